"""竞技跑胡子 (Paohuzi) groups and the win check in paizhuo_shared.paohuzi, against brute forces.

- Groups and 胡息 are written again here from RULES.md, on codes (no code of the module).
- ``arrange``: the brute force tries every partition of the hand into groups in hand and keeps
  those that leave every 坎 whole and hold the right number of 将; the module's best 胡息 is
  the brute force's, and its arrangement uses exactly the hand's cards, in groups whose 胡息
  add up to the total (hypothesis, small random holdings, many of them arrangeable).
- ``win``: the same brute force with the open groups, the 门子 count and the 胡息 floor.
- ``chi_choices``: every set of 句/绞 that holds the claimed card and lays down every copy of it
  from the hand's cards outside 坎, found by trying all 3-card subsets.
"""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo_shared import paohuzi as P
from paizhuo_shared.cards import InvalidCardError

CODES = ["x%d" % n for n in range(1, 11)] + ["d%d" % n for n in range(1, 11)]


# ---- groups from RULES.md, on codes ----------------------------------------------------------

def _num(c):
    return int(c[1:])


def ref_kind_ok(kind, cs):
    """Is the list of codes ``cs`` a group of ``kind``?  (RULES.md, written again.)"""
    same = len(set(cs)) == 1
    if kind in ("kan", "peng", "wei"):
        return len(cs) == 3 and same
    if kind in ("pao", "ti"):
        return len(cs) == 4 and same
    if kind == "jiang":
        return len(cs) == 2 and same
    if len(cs) != 3:
        return False
    nums = sorted(_num(c) for c in cs)
    cases = sorted(c[0] for c in cs)
    run = len(set(cases)) == 1 and (nums in ([2, 7, 10],) or nums[1] == nums[0] + 1 == nums[2] - 1)
    jiao = len(set(nums)) == 1 and cases in (["d", "x", "x"], ["d", "d", "x"])
    if kind == "ju":
        return run
    if kind == "jiao":
        return jiao
    return run or jiao  # chi


def ref_huxi(kind, cs):
    big = cs[0][0] == "d"
    if kind in ("ju", "chi"):
        nums = sorted(_num(c) for c in cs)
        if len({c[0] for c in cs}) == 1 and nums in ([1, 2, 3], [2, 7, 10]):
            return 6 if big else 3
        return 0
    small_big = {"kan": (3, 6), "wei": (3, 6), "peng": (1, 3), "pao": (6, 9), "ti": (9, 12),
                 "jiao": (0, 0), "jiang": (0, 0)}[kind]
    return small_big[1] if big else small_big[0]


def ref_arrangements(hand, jiang):
    """Every partition of ``hand`` (codes) into groups in hand that keeps each 坎 whole and holds
    one 将 if ``jiang`` else none, as lists of (kind, sorted codes)."""
    hand = sorted(hand)
    if any(hand.count(c) == 4 for c in hand):
        return []
    kans = {c for c in hand if hand.count(c) == 3}
    found = []

    def rec(rest, groups):
        if not rest:
            if sum(1 for k, _ in groups if k == "jiang") != (1 if jiang else 0):
                return
            if all(("kan", [c, c, c]) in groups for c in kans):
                found.append(list(groups))
            return
        first, others = rest[0], rest[1:]
        tried = set()
        for size in (1, 2):
            for idx in itertools.combinations(range(len(others)), size):
                cs = sorted([first] + [others[i] for i in idx])
                if tuple(cs) in tried:
                    continue
                tried.add(tuple(cs))
                left = [others[i] for i in range(len(others)) if i not in idx]
                for kind in ("kan", "ju", "jiao", "jiang"):
                    if ref_kind_ok(kind, cs):
                        rec(left, groups + [(kind, cs)])

    rec(hand, [])
    return found


def ref_best(hand, jiang):
    best = None
    for groups in ref_arrangements(hand, jiang):
        h = sum(ref_huxi(k, cs) for k, cs in groups)
        if best is None or h > best:
            best = h
    return best


# ---- strategies ------------------------------------------------------------------------------

def _hand_groups():
    out = []
    for c in CODES:
        out.append(("kan", [c] * 3))
    for case in "xd":
        for n in range(1, 9):
            out.append(("ju", [case + str(n + i) for i in range(3)]))
        out.append(("ju", [case + "2", case + "7", case + "10"]))
    for n in range(1, 11):
        out.append(("jiao", ["x%d" % n, "x%d" % n, "d%d" % n]))
        out.append(("jiao", ["x%d" % n, "d%d" % n, "d%d" % n]))
    return out


HAND_GROUPS = _hand_groups()


def _fits(cards):
    return all(cards.count(c) <= 4 for c in cards)


@st.composite
def holdings(draw, most_groups=3):
    """A hand of codes: some groups in hand, maybe a pair, maybe a card swapped or dropped,
    so that many hands arrange and many nearly do."""
    groups = draw(st.lists(st.sampled_from(HAND_GROUPS), max_size=most_groups))
    cards = [c for _, cs in groups for c in cs]
    if draw(st.booleans()):
        c = draw(st.sampled_from(CODES))
        cards += [c, c]
    noise = draw(st.integers(0, 3))
    if noise == 1 and cards:
        cards.pop(draw(st.integers(0, len(cards) - 1)))
    elif noise == 2 and cards:
        cards[draw(st.integers(0, len(cards) - 1))] = draw(st.sampled_from(CODES))
    elif noise == 3:
        cards.append(draw(st.sampled_from(CODES)))
    if not _fits(cards):
        cards = [c for i, c in enumerate(cards) if cards[:i + 1].count(c) <= 4]
    return cards


def _check_arrangement(hand, result, jiang):
    h, groups = result
    used = []
    total = 0
    for kind, cs in groups:
        assert kind in P.HAND_KINDS and P.is_group(kind, cs)
        assert ref_kind_ok(kind, P.codes(cs))
        total += P.huxi(kind, cs)
        used.extend(cs)
    assert total == h, "the total is the sum of the groups' 胡息"
    assert tuple(sorted(used)) == P.cards(hand), "the groups use exactly the hand's cards"
    assert sum(1 for k, _ in groups if k == "jiang") == (1 if jiang else 0)
    for c in set(P.cards(hand)):
        if P.cards(hand).count(c) == 3:
            assert ("kan", (c, c, c)) in groups, "a 坎 stays whole"


@settings(max_examples=250, deadline=None)
@given(holdings(), st.booleans())
def test_arrange_is_the_brute_force_best(hand, jiang):
    want = ref_best(hand, jiang)
    got = P.arrange(P.cards(hand), jiang)
    if want is None:
        assert got is None
        return
    assert got is not None and got[0] == want
    _check_arrangement(hand, got, jiang)
    assert P.arrange(list(reversed(hand)), jiang) == got, "deterministic, whatever the order given"


OPEN = st.sampled_from([("peng", "x5 x5 x5"), ("peng", "d8 d8 d8"), ("wei", "x9 x9 x9"), ("wei", "d4 d4 d4"),
                        ("pao", "x6 x6 x6 x6"), ("ti", "d10 d10 d10 d10"), ("chi", "x1 x2 x3"),
                        ("chi", "d2 d7 d10"), ("chi", "x4 x4 d4"), ("chi", "d6 d7 d8")])


@settings(max_examples=200, deadline=None)
@given(holdings(most_groups=4), st.lists(OPEN, max_size=4, unique=True), st.sampled_from([0, 0, 0, -1, 1]),
       st.sampled_from([0, 3, 6, 9]))
def test_win_is_the_brute_force_win(hand, opened, men_off, min_huxi):
    opened = [(k, cs.split()) for k, cs in opened]
    if not _fits(hand + [c for _, cs in opened for c in cs]):
        return
    jiang = any(k in ("pao", "ti") for k, _ in opened)
    # the 门子 the cards would make, give or take one: most holdings are not refused for the count
    men = len(opened) + (len(hand) + (1 if jiang else 0)) // 3 + men_off
    open_huxi = sum(ref_huxi(k, cs) for k, cs in opened)
    best = None
    for groups in ref_arrangements(hand, jiang):
        h = open_huxi + sum(ref_huxi(k, cs) for k, cs in groups)
        if len(opened) + len(groups) == men and h >= min_huxi and (best is None or h > best):
            best = h
    got = P.win(P.cards(hand), [(k, P.cards(cs)) for k, cs in opened], men, min_huxi)
    if best is None:
        assert got is None
        return
    assert got is not None and got[0] == best
    assert [(k, P.codes(cs)) for k, cs in got[1][:len(opened)]] == [(k, sorted(cs, key=CODES.index))
                                                                     for k, cs in opened]
    _check_arrangement(hand, (best - open_huxi, got[1][len(opened):]), jiang)


def ref_chi(claimed, hand):
    """Every set of groups (sorted tuples of sorted codes) a 吃 of ``claimed`` may lay down."""
    if hand.count(claimed) >= 3:
        return set()
    pool = sorted([c for c in hand if hand.count(c) < 3] + [claimed])
    copies = pool.count(claimed)
    out = set()
    idx = range(len(pool))
    triples = [t for t in itertools.combinations(idx, 3)
               if claimed in [pool[i] for i in t] and ref_kind_ok("chi", [pool[i] for i in t])]
    for k in range(1, copies + 1):
        for combo in itertools.combinations(triples, k):
            flat = [i for t in combo for i in t]
            if len(set(flat)) != len(flat):
                continue  # groups share a card
            if sum(1 for i in flat if pool[i] == claimed) != copies:
                continue  # a copy of the card stays in hand
            out.add(tuple(sorted(tuple(pool[i] for i in t) for t in combo)))
    return out


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(CODES), st.lists(st.sampled_from(CODES[:7] + CODES[10:17]), max_size=9))
def test_chi_choices_are_the_brute_force_ones(claimed, hand):
    if not _fits(hand + [claimed]):
        return
    got = P.chi_choices(P.card(claimed), P.cards(hand))
    keys = []
    for choice in got:
        assert P.card(claimed) in choice[0], "the first group holds the claimed card"
        assert list(choice[1:]) == sorted(choice[1:])
        keys.append(tuple(sorted(tuple(P.codes(g)) for g in choice)))
    assert len(keys) == len(set(keys)), "each set of groups once"
    want = {tuple(sorted(tuple(sorted(g, key=CODES.index)) for g in ch)) for ch in ref_chi(claimed, hand)}
    assert set(keys) == want
    assert got == sorted(got)


# ---- plain checks ------------------------------------------------------------------------

def test_every_group_of_three_or_four_cards_is_judged_as_rules_md_says():
    for size in (2, 3, 4):
        for combo in itertools.combinations_with_replacement(CODES, size):
            for kind in P.KINDS:
                cs = list(combo)
                assert P.is_group(kind, cs) == ref_kind_ok(kind, cs), (kind, cs)
                if ref_kind_ok(kind, cs):
                    assert P.huxi(kind, cs) == ref_huxi(kind, cs), (kind, cs)


def test_cards_round_trip_and_red():
    assert [P.code(P.card(c)) for c in CODES] == CODES
    assert P.cards(CODES) == tuple(range(20))
    assert [c for c in CODES if P.is_red(P.card(c))] == ["x2", "x7", "x10", "d2", "d7", "d10"]
    with pytest.raises(InvalidCardError):
        P.card("x0")
    with pytest.raises(InvalidCardError):
        P.card(True)


def test_rules_refuse_unknown_and_bad_options():
    assert P.Rules.from_dict(P.Rules(men=6).to_dict()) == P.Rules(men=6)
    with pytest.raises(ValueError, match="unknown Paohuzi rule option"):
        P.Rules.from_dict({"seconds": 3})
    with pytest.raises(ValueError, match="min_huxi"):
        P.Rules(min_huxi=-1)
    with pytest.raises(ValueError, match="hong_wu"):
        P.Rules(hong_wu=True)


def test_score_refuses_a_win_below_the_floor_and_settle_an_unknown_seat():
    with pytest.raises(ValueError):
        P.score([("chi", P.cards("x4 x5 x6"))])
    with pytest.raises(ValueError):
        P.settle("S", 1, 1)
    assert sum(P.settle("W", 3, 4).values()) == 0


def test_win_refuses_a_group_in_hand_among_the_open_ones():
    with pytest.raises(P.GroupError) as e:
        P.win(P.cards("x1 x2 x3"), [("kan", P.cards("x5 x5 x5"))])
    assert e.value.code == "not_open" and e.value.zh
