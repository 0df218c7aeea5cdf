"""The rules oracle's Paohuzi questions (``"game": "paohuzi"``), answered by ``paizhuo_shared.paohuzi``.

A group is ``{"kind": K, "cards": [...]}``: open kinds ``chi`` (a 句 or 绞 made by 吃), ``peng``,
``wei``, ``pao``, ``ti``; kinds in hand ``kan``, ``ju``, ``jiao``, ``jiang``.  Optional
``"rules"`` holds rule options by name (``men``, ``min_huxi``, the 名堂 values and red
thresholds; docs/rules-options.md); the engine's clock options are accepted and change nothing here.

- ``huxi``: ``groups`` (any kinds) → ``{"huxi": N}``, their 胡息; a group that is not what its
  kind says is refused (``not_a_group``).
- ``win``: ``hand`` (every card in hand, the winning card too; three identical cards are a 坎)
  and ``open`` (open groups) → ``{"wins": bool, "huxi": N, "groups": [...]}``: the open groups as
  given, then the hand's best arrangement (the most 胡息, 坎 kept whole, the 将 exactly when there
  is a 跑 or 提), and its total 胡息 — also when it does not win (too few 胡息, or not 7 门子).  A
  hand that cannot be arranged at all gives the open groups alone and their 胡息.
- ``score``: ``winner`` (a seat, or null for 荒庄), ``hand``, ``open``, ``self_drawn`` →
  ``{"scores": {"E", "N", "W"}, "tun": N, "fan": N, "names": [...]}``; a holding that does not
  win is refused (``no_win``).  荒庄 scores 0 everywhere (tun 0, fan 0, no names).

Every refusal is a :class:`~paizhuo.errors.CodedError` (code, English, Chinese).

>>> answer({"groups": [{"kind": "ju", "cards": ["x1", "x2", "x3"]}, {"kind": "peng", "cards": ["d5"] * 3}]}, "huxi")
{'huxi': 6}
>>> answer({"hand": "x1 x2 x3 x4 x5 x6 x7 x8 x9 d2 d7 d10 d4 d5 d6 d1 d1".split(),
...         "open": [{"kind": "pao", "cards": ["d8"] * 4}]}, "win")["huxi"]
18
>>> try:
...     answer({"groups": [{"kind": "ju", "cards": ["x1", "x2", "d3"]}]}, "huxi")
... except CodedError as e:
...     print(e.code, "/", e.en, "/", e.zh)
not_a_group / groups[0]: x1 x2 d3 is not a ju (句) / groups[0]：x1 x2 d3 不是句
"""

from paizhuo_shared import paohuzi as P
from paizhuo_shared.cards import InvalidCardError

from ..errors import CodedError

OPS = ("huxi", "win", "score")
MAX_HAND = 21  # the dealer's 20 cards and the 亮张
MAX_GROUPS = 10
EXAMPLES = (
    ("huxi --group ju:x1,x2,x3 --group peng:d5,d5,d5", "the 胡息 of groups", "组合的胡息"),
    ("win x1 x2 x3 ... d1 d1 --open pao:d8,d8,d8,d8", "does a holding win, with which best arrangement",
     "这手牌能否胡，最佳组合是什么"),
    ("score --winner E --hand x1 x2 x3 ... --open pao:d8,d8,d8,d8 [--self-drawn]", "囤, 番, 名堂 and scores of a win",
     "胡牌的囤数、番数、名堂和得分"),
)


def _error(code, en, zh):
    return CodedError(code, en, zh)


def _rules(req):
    opts = req.get("rules")
    if opts is None:
        return P.Rules()
    if not isinstance(opts, dict):
        raise _error("bad_rules", "field 'rules' must be an object of rule options", "字段 rules 必须是规则选项的对象")
    mine = {k: v for k, v in opts.items() if k not in _engine_only()}
    try:
        return P.Rules.from_dict(mine)
    except (TypeError, ValueError) as e:
        raise _error("bad_rules", "rules: %s" % e, "规则选项有误：%s" % e) from None


def _engine_only():
    """The engine's own rule options (clocks and the like): accepted, and no matter here."""
    try:
        from . import paohuzi as engine
    except ImportError:
        return ()
    return tuple(k for k in getattr(getattr(engine, "Rules", None), "OPTIONS", ()) if k not in P.Rules.OPTIONS)


def _cards(value, where, most):
    if not isinstance(value, list):
        raise _error("bad_field", "%s must be a list of cards like [\"x1\", \"d2\"]" % where,
                     "%s 必须是牌的列表，例如 [\"x1\", \"d2\"]" % where)
    if len(value) > most:
        raise _error("too_many_cards", "%s has %d cards; at most %d" % (where, len(value), most),
                     "%s 有 %d 张牌；最多 %d 张" % (where, len(value), most))
    try:
        return P.cards(value)
    except InvalidCardError as e:
        raise _error(e.code, "%s: %s" % (where, e.en), "%s：%s" % (where, e.zh)) from None


def _groups(req, name, kinds):
    if name not in req:
        raise _error("missing_field", "missing field %r: a list of groups like {\"kind\": \"peng\", \"cards\": "
                     "[\"x5\", \"x5\", \"x5\"]}" % name, "缺少字段 %s：组合的列表，例如 {\"kind\": \"peng\", \"cards\": "
                     "[\"x5\", \"x5\", \"x5\"]}" % name)
    items = req[name]
    if not isinstance(items, list):
        raise _error("bad_field", "field %r must be a list of groups" % name, "字段 %s 必须是组合的列表" % name)
    if len(items) > MAX_GROUPS:
        raise _error("too_many_groups", "field %r has %d groups; at most %d" % (name, len(items), MAX_GROUPS),
                     "字段 %s 有 %d 个组合；最多 %d 个" % (name, len(items), MAX_GROUPS))
    out = []
    for i, g in enumerate(items):
        where = "%s[%d]" % (name, i)
        if not isinstance(g, dict) or "kind" not in g or "cards" not in g:
            raise _error("bad_group", "%s must be an object {\"kind\": ..., \"cards\": [...]}" % where,
                         "%s 必须是对象 {\"kind\": ..., \"cards\": [...]}" % where)
        kind = g["kind"]
        if kind in P.HAND_KINDS and kind not in kinds:
            raise _error("not_open", "%s: %s (%s) is a group in hand, not an open one; open kinds are %s"
                         % (where, kind, P.KIND_NAMES_ZH[kind], ", ".join(kinds)),
                         "%s：%s 是手中的组合，不是亮出的组合" % (where, P.KIND_NAMES_ZH[kind]))
        if not isinstance(kind, str) or kind not in kinds:
            raise _error("unknown_kind", "%s: kind %.40r is none of %s" % (where, kind, ", ".join(kinds)),
                         "%s：组合 %.40r 不在 %s 之中" % (where, kind, "、".join(P.KIND_NAMES_ZH[k] + " " + k for k in kinds)))
        if g["cards"] is None:
            raise _error("hidden_cards", "%s: the cards of a face-down group must be given" % where,
                         "%s：扣着的组合也要给出牌" % where)
        cs = _cards(g["cards"], where, 4)
        try:
            P.huxi(kind, cs)
        except P.GroupError as e:
            raise _error(e.code, "%s: %s" % (where, e.en), "%s：%s" % (where, e.zh)) from None
        out.append((kind, cs))
    return out


def _holding(req):
    """``(hand, open groups)`` of a request, every card at most four times in all."""
    if "hand" not in req:
        raise _error("missing_field", "missing field 'hand': every card in hand, the winning card too",
                     "缺少字段 hand：手中的全部牌，包括胡的那张")
    hand = _cards(req["hand"], "hand", MAX_HAND)
    opened = _groups(req, "open", P.OPEN_KINDS) if req.get("open") is not None else []
    n = P.counts(hand)
    for _, cs in opened:
        for c in cs:
            n[c] += 1
            if n[c] > 4:
                raise _error("duplicate_card", "%s appears more than four times in hand and open groups" % P.code(c),
                             "%s 在手牌和亮出的组合中出现超过四次" % P.code(c))
    return hand, opened


def _shown(groups):
    return [{"kind": k, "cards": P.codes(cs)} for k, cs in groups]


def _win(req):
    rules = _rules(req)
    hand, opened = _holding(req)
    won = P.win(hand, opened, rules.men, rules.min_huxi)
    if won is not None:
        return {"wins": True, "huxi": won[0], "groups": _shown(won[1])}
    jiang = any(k in (P.PAO, P.TI) for k, _ in opened)
    best = P.arrange(hand, jiang)
    h = P.open_huxi(opened)
    groups = list(opened)
    if best is not None:
        h += best[0]
        groups += best[1]
    return {"wins": False, "huxi": h, "groups": _shown(groups)}


def _score(req):
    rules = _rules(req)
    if "winner" not in req:
        raise _error("missing_field", "missing field 'winner': a seat E, N or W, or null for 荒庄 (a drawn deal)",
                     "缺少字段 winner：座位 E、N、W，荒庄为 null")
    winner = req["winner"]
    if winner is None:
        return {"scores": P.settle(None, 0, 0), "tun": 0, "fan": 0, "names": []}
    if winner not in P.SEATS:
        raise _error("bad_seat", "winner must be a seat E, N or W (or null for 荒庄), not %.20r" % (winner,),
                     "winner 必须是座位 E、N、W（荒庄为 null），而不是 %.20r" % (winner,))
    self_drawn = req.get("self_drawn", False)
    if self_drawn is not True and self_drawn is not False:
        raise _error("bad_field", "field 'self_drawn' must be true or false", "字段 self_drawn 必须是 true 或 false")
    hand, opened = _holding(req)
    won = P.win(hand, opened, rules.men, rules.min_huxi)
    if won is None:
        raise _error("no_win", "the holding does not win: it needs %d 门子 and %d 胡息 (ask op \"win\" for its "
                     "best arrangement)" % (rules.men, rules.min_huxi),
                     "这手牌不能胡：需要 %d 门子、%d 胡息（用 win 查看最佳组合）" % (rules.men, rules.min_huxi))
    tun, fan, names = P.score(won[1], self_drawn, rules)
    return {"scores": P.settle(winner, tun, fan), "tun": tun, "fan": fan, "names": names}


def answer(req, op):
    """The answer fields of Paohuzi op ``op`` for the request ``req`` (a dict), or a CodedError."""
    if op == "huxi":
        _rules(req)
        groups = _groups(req, "groups", P.KINDS)
        h = 0
        for kind, cs in groups:
            h += P.huxi(kind, cs)
        return {"huxi": h}
    if op == "win":
        return _win(req)
    if op == "score":
        return _score(req)
    raise _error("unknown_op", "Paohuzi has no op %r; its ops are %s" % (op, ", ".join(OPS)),
                 "跑胡子没有操作 %r；可用的操作有 %s" % (op, "、".join(OPS)))
