"""The rules oracle's Guandan questions (``"game": "guandan"``), answered by ``paizhuo_shared.guandan``.

Every request carries ``"level"``: the rank being played, ``"2"`` … ``"A"`` (``"10"`` for
``"T"``); its two hearts are the wild cards.  Optional ``"rules"`` holds the other rule
options (``lone_wild``, ``wild_breaks_flush``, ``joker_pair_full_house``).

- ``classify`` → ``{"kinds": [...]}``: every kind the cards can form, weakest first, each once.
- ``beats`` → ``{"beats": bool}``.  ``play_kind`` / ``over_kind`` pin a meaning: a kind
  (``"straight"``) or a kind and its rank (``"straight:7"``, ``"bomb:K"``, ``"joker_bomb"``).
  Meanings left open are read so:

  * within one kind, ``play`` beats when *any* of its meanings of that kind beats (the player
    declares the rank: 3♠ 4♦ 5♣ ♥2 ♥2 at level 2 is 34567 over 23456);
  * when ``play`` can form several kinds and no ``play_kind`` is given, the kinds must agree:
    all beat or none does; otherwise ``ok: false`` with code ``ambiguous_play``;
  * ``over`` is what lies on the table, played as one meaning: when its open meanings would
    give different answers, ``ok: false`` with code ``ambiguous_over`` (pin ``over_kind``).

- ``legal`` → ``{"plays": [{"kind", "rank", "cards", "stands"}, ...]}``: every legal play of
  ``hand`` (every set of cards with each meaning, ``stands`` naming what the wild cards stand
  for), leading, or over ``over`` (pinned by ``over_kind`` when it has several meanings).

Every refusal is a :class:`~paizhuo.errors.CodedError` (code, English, Chinese).

>>> answer({"level": "5", "cards": ["3S", "3D", "3C", "5H", "5H"]}, "classify")
{'kinds': ['full_house', 'bomb']}
>>> full_house_or_bomb, straight = ["3S", "3D", "3C", "5H", "5H"], ["4S", "5S", "6S", "7S", "8D"]
>>> answer({"level": "5", "play": full_house_or_bomb, "over": straight, "play_kind": "bomb"}, "beats")
{'beats': True}
>>> try:
...     answer({"level": "5", "play": full_house_or_bomb, "over": straight}, "beats")
... except CodedError as e:
...     print(e.code, "/", e.en)
ambiguous_play / the play can be full_house or bomb, and only some of them beat the play it is over: say which with "play_kind"
"""

from paizhuo_shared import guandan as gd
from paizhuo_shared.cards import InvalidCardError

from ..errors import CodedError

OPS = ("classify", "beats", "legal")
MAX_HAND = 27  # a Guandan hand is 27 cards
# `paizhuo rules` examples (arguments after the game's name, what each asks): the CLI shows them.
EXAMPLES = (
    ("classify 3H 4H 5H 6H 7H --level 5", "every kind of a play (--level is required)",
     "一手牌的全部牌型（必须给出 --level）"),
    ("beats --level 5 --play ... --over ... [--play-kind bomb] [--over-kind straight:7]",
     "does one play beat another, each meaning pinned or not", "一手牌能否压过另一手（含义可指定）"),
    ("legal 3H 4H ... --level 5 [--over ...] [--over-kind straight:7]", "every legal play of a hand, with its meaning",
     "一手牌的全部合法出法及其含义"),
)


def _error(code, en, zh):
    return CodedError(code, en, zh)


def _rules(req):
    if "level" not in req:
        raise _error("missing_level", "missing field 'level': the rank being played, like \"level\": \"5\"",
                     "缺少字段 level：本局打几，例如 \"level\": \"5\"")
    level = req["level"]
    opts = req.get("rules")
    if opts is None:
        opts = {}
    if not isinstance(opts, dict):
        raise _error("bad_rules", "field 'rules' must be an object of rule options",
                     "字段 rules 必须是规则选项的对象")
    if "level" in opts and opts["level"] != level:
        raise _error("bad_rules", "give the level once, as the field 'level', not also in 'rules'",
                     "级牌只在字段 level 中给出一次，不要在 rules 中再给")
    if not isinstance(level, str) or not (len(level) == 1 and level.upper() in gd.RANKS or level == "10"):
        raise _error("bad_level", "level must be a rank as text: 2..9, T (or 10), J, Q, K or A, not %.40r" % (level,),
                     "level 必须是文字的点数：2..9、T（或 10）、J、Q、K、A，而不是 %.40r" % (level,))
    try:
        return gd.Rules.from_dict(dict(opts, level=level))
    except (TypeError, ValueError) as e:
        raise _error("bad_rules", "rules: %s" % e, "规则选项有误：%s" % e) from None


def _cards(req, name, most=MAX_HAND):
    if name not in req:
        raise _error("missing_field", "missing field %r: a list of cards like [\"3D\", \"3S\"]" % name,
                     "缺少字段 %s：牌的列表，例如 [\"3D\", \"3S\"]" % name)
    value = req[name]
    if not isinstance(value, list):
        raise _error("bad_field", "field %r must be a list of cards like [\"3D\", \"3S\"]" % name,
                     "字段 %s 必须是牌的列表，例如 [\"3D\", \"3S\"]" % name)
    if len(value) > most:
        raise _error("too_many_cards", "field %r has %d cards; at most %d" % (name, len(value), most),
                     "字段 %s 有 %d 张牌；最多 %d 张" % (name, len(value), most))
    try:
        return gd.cards(value)
    except InvalidCardError as e:
        raise _error(e.code, "%s: %s" % (name, e.en), "%s：%s" % (name, e.zh)) from None


def _pin(req, field):
    """The meaning filter ``field`` asks for: None, or (kind, rank or None)."""
    pin = req.get(field)
    if pin is None:
        return None
    if not isinstance(pin, str):
        raise _error("unknown_kind", "field %r must be a kind as text, like \"straight\" or \"straight:7\"" % field,
                     "字段 %s 必须是牌型名称，例如 \"straight\" 或 \"straight:7\"" % field)
    kind, _, rank = pin.partition(":")
    if kind not in gd.KINDS:
        raise _error("unknown_kind", "%s: unknown kind %.40r; kinds are %s" % (field, pin, ", ".join(gd.KINDS)),
                     "%s：没有牌型 %.40r；牌型有 %s" % (field, pin, "、".join(gd.KINDS)))
    return kind, rank or None


def _meanings(req, name, pin_field):
    """The meanings of the cards in field ``name`` that its pin allows (never empty)."""
    cs = _cards(req, name, 10)
    found = gd.classify(cs, _rules(req))
    if not found:
        raise _error("not_a_play", "%s: %s is no play" % (name, " ".join(gd.codes(cs)) or "nothing"),
                     "%s：%s 不成牌型" % (name, " ".join(gd.codes(cs)) or "空"))
    pin = _pin(req, pin_field)
    if pin is None:
        return found
    kind, rank = pin
    kept = [p for p in found if p.kind == kind and (rank is None or p.name == req[pin_field])]
    if not kept:
        names = ", ".join(p.name for p in found)
        raise _error("kind_not_formed", "%s: the cards are no %s; they can be %s" % (name, req[pin_field], names),
                     "%s：这些牌不是 %s；可以是 %s" % (name, req[pin_field], names))
    return kept


def _kinds(meanings):
    out = []
    for p in meanings:
        if p.kind not in out:
            out.append(p.kind)
    return out


def _beats(req):
    plays = _meanings(req, "play", "play_kind")
    overs = _meanings(req, "over", "over_kind")
    by_over = set()
    for o in overs:
        by_kind = {}  # kind of play → does some meaning of that kind beat o
        for p in plays:
            by_kind[p.kind] = by_kind.get(p.kind, False) or gd.beats(p, o)
        if len(set(by_kind.values())) > 1:
            kinds = _kinds(plays)
            raise _error("ambiguous_play",
                         "the play can be %s, and only some of them beat the play it is over: say which with "
                         "\"play_kind\"" % " or ".join(kinds),
                         "这手牌可以是 %s，其中只有一部分大过所压的牌：请用 play_kind 指明" % "、".join(kinds))
        by_over.add(any(by_kind.values()))
    if len(by_over) > 1:
        names = ", ".join(o.name for o in overs)
        raise _error("ambiguous_over",
                     "the play it is over can be %s, and the answer differs: say which with \"over_kind\" "
                     "(like \"%s\")" % (names, overs[0].name),
                     "所压的牌可以是 %s，结果不同：请用 over_kind 指明（例如 \"%s\"）" % (names, overs[0].name))
    return {"beats": by_over.pop()}


def _legal(req):
    rules = _rules(req)
    hand = _cards(req, "hand")
    over = None
    if req.get("over"):
        overs = _meanings(req, "over", "over_kind")
        if len(overs) > 1:
            names = ", ".join(o.name for o in overs)
            raise _error("ambiguous_over", "the play it is over can be %s: say which with \"over_kind\"" % names,
                         "所压的牌可以是 %s：请用 over_kind 指明" % names)
        over = overs[0]
    return {"plays": [p.to_dict() for p in gd.plays(hand, rules, over)]}


def answer(req, op):
    """The answer fields of Guandan op ``op`` for the request ``req`` (a dict), or a CodedError."""
    if op == "classify":
        rules = _rules(req)
        return {"kinds": _kinds(gd.classify(_cards(req, "cards"), rules))}
    if op == "beats":
        _rules(req)  # a bad level is named before the cards
        return _beats(req)
    if op == "legal":
        return _legal(req)
    raise _error("unknown_op", "Guandan has no op %r; its ops are %s" % (op, ", ".join(OPS)),
                 "掼蛋没有操作 %r；可用的操作有 %s" % (op, "、".join(OPS)))
