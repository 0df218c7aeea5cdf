"""Paohuzi vector checks (paohuzi_*.jsonl) for tests/mpy/run_vectors.py.

Plain code for MicroPython and CPython alike, like game_checks.py.  A family of its own, so
the runner loads the Paohuzi module without the other games'.  ``check(name, case)`` returns
None or what went wrong.  The files:

- paohuzi_cards: parsing (``ints``), ``codes`` back, ``reds`` (red_count), or ``error``.
- paohuzi_huxi: ``kind`` + ``cards`` -> ``huxi`` (is_group true), or ``error`` (is_group false
  for a GroupError of code ``not_a_group``).
- paohuzi_arrange: ``hand`` + ``jiang`` -> ``huxi`` of the best arrangement or null, and
  optionally the exact ``groups``.
- paohuzi_win: ``hand`` + ``open`` (+ ``rules``: men, min_huxi; + ``card`` and ``self_drawn``: a
  stock card turned up, through ``win_on``) -> ``wins``, ``huxi``, ``groups``, or
  ``error`` (a kind in hand among the open groups).
- paohuzi_chi: ``card`` + ``hand`` -> ``choices`` (lists of groups of codes).
- paohuzi_score: ``hand`` + ``open`` + ``self_drawn`` + ``winner`` (+ ``rules``) -> ``huxi``,
  ``reds``, ``tun``, ``fan``, ``names``, ``scores``.
"""

from paizhuo_shared import cards as C
from paizhuo_shared import paohuzi as P


def _error_code(fn):
    """The code of the InvalidCardError or GroupError ``fn`` raises (with both texts), or None."""
    try:
        fn()
    except (C.InvalidCardError, P.GroupError) as e:
        if not e.zh or not e.en:
            return "no zh/en text"
        return e.code
    return None


def _groups(items):
    """``[{"kind", "cards"}, ...]`` -> ``[(kind, sorted ints)]``."""
    return [(g["kind"], P.cards(g["cards"])) for g in items]


def _shown(groups):
    """Groups back as ``[{"kind", "cards"}]`` with codes (how the vectors write them)."""
    return [{"kind": k, "cards": P.codes(cs)} for k, cs in groups]


def check_cards(case):
    if "error" in case:
        got = _error_code(lambda: P.cards(case["cards"]))
        if got != case["error"]:
            return "cards() gives error %s, expected %s" % (got, case["error"])
        return None
    cs = P.cards(case["cards"])
    if list(cs) != case["ints"]:
        return "cards() gives %s, expected %s" % (list(cs), case["ints"])
    if P.codes(cs) != case["codes"]:
        return "codes() gives %s, expected %s" % (P.codes(cs), case["codes"])
    if P.red_count(cs) != case["reds"]:
        return "red_count gives %d, expected %d" % (P.red_count(cs), case["reds"])
    reds = [c for c in cs if P.is_red(c)]
    if len(reds) != case["reds"]:
        return "is_red finds %d red cards, expected %d" % (len(reds), case["reds"])


def check_huxi(case):
    kind = case["kind"]
    if "error" in case:
        got = _error_code(lambda: P.huxi(kind, case["cards"]))
        if got != case["error"]:
            return "huxi() gives error %s, expected %s" % (got, case["error"])
        if got == "not_a_group" and P.is_group(kind, case["cards"]):
            return "is_group says yes to cards huxi() refuses"
        return None
    if not P.is_group(kind, case["cards"]):
        return "is_group says %s is no %s" % (case["cards"], kind)
    got = P.huxi(kind, case["cards"])
    if got != case["huxi"]:
        return "huxi gives %d, expected %d" % (got, case["huxi"])


def _same_groups(got, want):
    if _shown(got) != want:
        return "groups %s, expected %s" % (_shown(got), want)
    return None


def check_arrange(case):
    hand = P.cards(case["hand"])
    got = P.arrange(hand, case["jiang"])
    if got is None or case["huxi"] is None:
        if got is None and case["huxi"] is None:
            return None
        return "arrange gives %s, expected %s" % (got and got[0], case["huxi"])
    if got[0] != case["huxi"]:
        return "arrange gives %d 胡息, expected %d" % (got[0], case["huxi"])
    used = []
    for kind, cs in got[1]:
        if kind not in P.HAND_KINDS or not P.is_group(kind, cs):
            return "%s %s is no group in hand" % (kind, P.codes(cs))
        used.extend(cs)
    if tuple(sorted(used)) != hand:
        return "the groups use %s, not the hand" % P.codes(sorted(used))
    if "groups" in case:
        return _same_groups(got[1], case["groups"])


def _rules(case):
    return P.Rules.from_dict(case.get("rules"))


def check_win(case):
    r = _rules(case)
    if "error" in case:
        got = _error_code(lambda: P.win(P.cards(case["hand"]), _groups(case["open"]), r.men, r.min_huxi))
        if got != case["error"]:
            return "win() gives error %s, expected %s" % (got, case["error"])
        return None
    if "card" in case:  # a stock card turned up: win_on makes its moves first
        got = P.win_on(P.card(case["card"]), P.cards(case["hand"]), _groups(case["open"]), case["self_drawn"],
                       r.men, r.min_huxi)
    else:
        got = P.win(P.cards(case["hand"]), _groups(case.get("open", [])), r.men, r.min_huxi)
    if not case["wins"]:
        if got is not None:
            return "wins with %d 胡息 (%s), expected no win" % (got[0], _shown(got[1]))
        return None
    if got is None:
        return "no win, expected a win with %d 胡息" % case["huxi"]
    if got[0] != case["huxi"]:
        return "wins with %d 胡息, expected %d" % (got[0], case["huxi"])
    if "groups" in case:
        return _same_groups(got[1], case["groups"])


def check_chi(case):
    got = P.chi_choices(P.card(case["card"]), P.cards(case["hand"]))
    shown = [[P.codes(g) for g in choice] for choice in got]
    if shown != case["choices"]:
        return "chi_choices gives %s, expected %s" % (shown, case["choices"])
    for choice in got:  # each choice is found again with its groups in another order
        back = list(choice)
        back.reverse()
        if P.chi_choice(P.card(case["card"]), P.cards(case["hand"]), back) != choice:
            return "chi_choice does not find %s" % (choice,)


def check_score(case):
    r = _rules(case)
    winner = case["winner"]
    if winner is None:  # 荒庄
        got = P.settle(None, 0, 0)
        if got != case["scores"]:
            return "settle gives %s, expected %s" % (got, case["scores"])
        return None
    won = P.win(P.cards(case["hand"]), _groups(case.get("open", [])), r.men, r.min_huxi)
    if won is None:
        return "the holding does not win"
    huxi, groups = won
    reds = 0
    for kind, cs in groups:
        reds += P.red_count(cs)
    tun, fan, names = P.score(groups, case["self_drawn"], r)
    got = {"huxi": huxi, "reds": reds, "tun": tun, "fan": fan, "names": names,
           "scores": P.settle(winner, tun, fan)}
    for key in ("huxi", "reds", "tun", "fan", "names", "scores"):
        if got[key] != case[key]:
            return "%s is %s, expected %s" % (key, got[key], case[key])


CHECKS = {"cards": check_cards, "huxi": check_huxi, "arrange": check_arrange, "win": check_win,
          "chi": check_chi, "score": check_score}


def check(name, case):
    kind = name[len("paohuzi_"):-len(".jsonl")]
    fn = CHECKS.get(kind)
    if fn is None:
        return "no checks for %s" % name
    return fn(case)
