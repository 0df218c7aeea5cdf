"""Guandan match events: 级差分/场分, byes, forfeits, penalties, the tie-break chain, Swiss
pairing without repeats, team duplicate, and `paizhuo guandan` on the command line."""

import argparse
import doctest
import io
import itertools
import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paizhuo.venue import matches as gm
from paizhuo.venue.matches import MatchError, MatchResult, PairingError, Penalty, Room, pair_round, standings


def win(rnd, a, b, d):
    """a beats b by d levels (d = 0 is a draw), both from level 2."""
    return MatchResult.played(rnd, a, b, 2 + d, 2)


def pen(side, unit, points, rnd=None):
    d = {"side": side, "unit": unit, "points": points, "reason": "test deduction", "who": "referee Li",
         "at": "2025-05-01T10:00:00+08:00"}
    if rnd is not None:
        d["round"] = rnd
    return Penalty.from_dict(d)


def table(st_):
    return [(r.rank, r.side, r.decided_by) for r in st_.rows]


def test_docstring_examples():
    failed, attempted = doctest.testmod(gm, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and attempted > 10


# -- 级差分 and 场分 ---------------------------------------------------------------------------------

# The 级差分 conversion table (Jiangsu 2023 表2), written out rather than computed.
JICHAFEN_TABLE = [
    (0, 13, 13), (1, 14, 12), (2, 15, 11), (3, 16, 10), (4, 17, 9), (5, 18, 8), (6, 19, 7),
    (7, 20, 6), (8, 21, 5), (9, 22, 4), (10, 23, 3), (11, 24, 2), (12, 25, 1), (13, 26, 0),
]


@pytest.mark.parametrize("d,winner,loser", JICHAFEN_TABLE)
def test_jichafen_table(d, winner, loser):
    assert gm.jichafen(d) == (winner, loser)
    # the same difference reached in a match: winner at 2 + d (15 = passed A), loser at 2
    m = MatchResult.played(1, "W", "L", 2 + d, 2)
    assert (m.jichafen_a, m.jichafen_b) == (winner, loser)
    assert (m.changfen_a, m.changfen_b) == ((1, 1) if d == 0 else (2, 0))
    # and the other way round: the away side wins
    m = MatchResult.played(1, "L", "W", 2, 2 + d)
    assert (m.jichafen_a, m.jichafen_b) == (loser, winner)
    assert m.diff == -d


@pytest.mark.parametrize("d", [14, 15, 20, 26, 100])
def test_jichafen_capped_at_13(d):
    assert gm.jichafen(d) == (26, 0)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None, True])
def test_jichafen_refuses_bad_difference(bad):
    with pytest.raises(MatchError) as e:
        gm.jichafen(bad)
    assert e.value.code == "bad_diff"


@pytest.mark.parametrize("a,b,ja,jb,ca,cb", [
    ("K", "7", 19, 7, 2, 0),
    ("7", "K", 7, 19, 0, 2),
    ("A", "A", 13, 13, 1, 1),      # equal levels: a draw
    ("2", "2", 13, 13, 1, 1),
    ("A+", "A", 14, 12, 2, 0),     # passed A against a side stuck at A
    ("A+", "2", 26, 0, 2, 0),      # the largest possible difference, 13
    ("10", "T", 13, 13, 1, 1),
    (14, "9", 18, 8, 2, 0),
])
def test_played_matches(a, b, ja, jb, ca, cb):
    m = MatchResult.played(3, "H", "G", a, b)
    assert (m.jichafen_a, m.jichafen_b, m.changfen_a, m.changfen_b) == (ja, jb, ca, cb)
    assert m.score_of("H") == (ca, ja) and m.score_of("G") == (cb, jb)
    assert m.jichafen_a + m.jichafen_b == 26 and m.changfen_a + m.changfen_b == 2


@pytest.mark.parametrize("value,level", [("2", 2), ("9", 9), ("T", 10), ("t", 10), ("10", 10), ("J", 11), ("Q", 12),
                                         ("K", 13), ("A", 14), (" A ", 14), ("A+", 15), ("过A", 15), (2, 2), (14, 14), (15, 15)])
def test_parse_level(value, level):
    assert gm.parse_level(value) == level


@pytest.mark.parametrize("value", ["1", "0", "B", "AA", "", None, 1, 16, True, 2.0, "11"])
def test_parse_level_refuses(value):
    with pytest.raises(MatchError) as e:
        gm.parse_level(value)
    assert e.value.code == "bad_level" and "A+" in e.value.en and "级数" in e.value.zh


def test_bye_scores_and_counts():
    m = MatchResult.bye(2, "P9")
    assert m.score_of("P9") == (1.5, 17) and m.outcome_of("P9") == "bye" and m.sides() == ("P9",)
    rec = standings([win(1, "P9", "P1", 3), m]).rows[0].record
    assert (rec.side, rec.changfen, rec.jichafen) == ("P9", 3.5, 33)
    assert (rec.byes, rec.wins, rec.played, rec.level_diff, rec.opponents) == (1, 1, 1, 3, ("P1",))


@pytest.mark.parametrize("by,abandoned,sa,sb,oa,ob", [
    ("b", False, (2, 17), (0, 0), "win", "loss"),
    ("a", False, (0, 0), (2, 17), "loss", "win"),
    ("G", True, (2, 17), (0, 0), "win", "loss"),     # by name; 中途退出 scores like a forfeit
    ("both", False, (0, 0), (0, 0), "loss", "loss"),
])
def test_forfeits(by, abandoned, sa, sb, oa, ob):
    m = MatchResult.forfeit(4, "H", "G", by, abandoned=abandoned)
    assert m.score_of("H") == sa and m.score_of("G") == sb
    assert (m.outcome_of("H"), m.outcome_of("G")) == (oa, ob)
    assert m.kind == ("abandoned" if abandoned else "forfeit") and m.diff == 0
    back = MatchResult.from_dict({k: v for k, v in m.to_dict().items() if k != "score"})
    assert back == m


@pytest.mark.parametrize("by,sa,sb,oa,ob", [
    ("b", (2, 17), (1, 13), "win", "draw"),
    ("a", (1, 13), (2, 17), "draw", "win"),
    ("both", (1, 13), (1, 13), "draw", "draw"),
])
def test_excused_absence(by, sa, sb, oa, ob):
    # 第三十六条: the excused side scores a draw, its opponent as against a forfeit
    m = MatchResult.from_dict({"round": 2, "a": "H", "b": "G", "excused": by})
    assert m.kind == "excused" and m.score_of("H") == sa and m.score_of("G") == sb
    assert (m.outcome_of("H"), m.outcome_of("G")) == (oa, ob)
    assert MatchResult.from_dict({k: v for k, v in m.to_dict().items() if k != "score"}) == m


def test_forfeit_refuses_a_stranger():
    with pytest.raises(MatchError) as e:
        MatchResult.forfeit(1, "H", "G", "X")
    assert e.value.code == "bad_forfeit"


def test_penalties_are_deducted_from_the_stage_total():
    ms = [win(1, "A", "B", 4), win(2, "A", "C", 1), win(1, "C", "D", 2), win(2, "B", "D", 0)]
    plain = {r.side: r.record for r in standings(ms).rows}
    pens = [pen("A", "级差分", 3), pen("A", "场分", 0.5), pen("B", "changfen", 1, rnd=2), pen("C", "jichafen", 2, rnd=5)]
    after = {r.side: r.record for r in standings(ms, pens).rows}
    assert (after["A"].changfen, after["A"].jichafen) == (plain["A"].changfen - 0.5, plain["A"].jichafen - 3)
    assert after["B"].changfen == plain["B"].changfen - 1
    assert after["C"].jichafen == plain["C"].jichafen  # counts only from round 5
    assert [p.reason for p in after["A"].penalties] == ["test deduction", "test deduction"]
    # a penalty from round 2 does not count in the standings after round 1
    r1 = {r.side: r.record for r in standings(ms, pens, upto=1).rows}
    assert r1["B"].changfen == 0 and r1["A"].changfen == 2 - 0.5
    # opponents' 场分 is the opponents' totals after their penalties
    assert after["D"].opponents_changfen == after["C"].changfen + after["B"].changfen


@pytest.mark.parametrize("change,code", [
    ({"reason": " "}, "bad_penalty"),
    ({"who": ""}, "bad_penalty"),
    ({"points": 0}, "bad_penalty"),
    ({"points": 0.3}, "bad_penalty"),
    ({"points": -1}, "bad_penalty"),
    ({"unit": "points"}, "bad_penalty"),
    ({"extra": 1}, "bad_penalty"),
    ({"round": 0}, "bad_round"),
])
def test_penalty_validation(change, code):
    d = {"side": "A", "unit": "场分", "points": 1, "reason": "late", "who": "Li", "at": "10:00"}
    d.update(change)
    with pytest.raises(MatchError) as e:
        Penalty.from_dict(d)
    assert e.value.code == code


# -- the tie-break chain -----------------------------------------------------------------------------

# Each case reaches one step on purpose: (name, matches, penalties, expected (rank, side, decided_by)).
TIE_BREAK_CASES = [
    ("changfen", [win(1, "A", "B", 1)], [], [(1, "A", None), (2, "B", "changfen")]),
    ("jichafen", [win(1, "A", "C", 6), win(1, "B", "D", 3)], [],
     [(1, "A", None), (2, "B", "jichafen"), (3, "D", "changfen"), (4, "C", "jichafen")]),
    # three sides on 2 场分: E has more 级差分; A and B are then two, and A beat B
    ("head_to_head",
     [win(1, "A", "B", 3), win(1, "C", "D", 0), win(1, "E", "F", 8), win(2, "D", "A", 3), win(2, "B", "F", 3), win(2, "C", "E", 1)], [],
     [(1, "D", None), (2, "C", "jichafen"), (3, "E", "changfen"), (4, "A", "jichafen"), (5, "B", "head_to_head"), (6, "F", "changfen")]),
    # A (win, loss) and B, D (two draws): equal 场分 and 级差分; B and D drew each other
    ("wins",
     [win(1, "A", "C", 3), win(1, "B", "D", 0), win(1, "F", "E", 5), win(2, "E", "A", 3), win(2, "B", "F", 0), win(2, "C", "D", 0)], [],
     [(1, "F", None), (2, "A", "changfen"), (3, "B", "wins"), (4, "D", "opponents_changfen"), (5, "E", "jichafen"), (6, "C", "changfen")]),
    # A: win + draw − 1 场分 penalty; B: win + loss; equal 级差分 28
    ("draws",
     [win(1, "A", "C", 2), win(1, "B", "D", 5), win(1, "E", "F", 0), win(2, "A", "E", 0), win(2, "F", "B", 3), win(2, "C", "D", 0)],
     [pen("A", "场分", 1)],
     [(1, "F", None), (2, "A", "changfen"), (3, "B", "draws"), (4, "E", "jichafen"), (5, "C", "changfen"), (6, "D", "jichafen")]),
    # B's 级差分 penalty evens the 级差分, not the level difference; E and F tie all the way
    ("level_diff",
     [win(1, "A", "C", 4), win(1, "B", "D", 5), win(1, "E", "F", 0), win(2, "E", "A", 4), win(2, "F", "B", 4), win(2, "C", "D", 0)],
     [pen("B", "级差分", 1)],
     [(1, "E", None), (1, "F", "tie"), (3, "B", "changfen"), (4, "A", "level_diff"), (5, "C", "changfen"), (6, "D", "jichafen")]),
    ("opponents_changfen",
     [win(1, "A", "C", 3), win(1, "B", "D", 3), win(1, "E", "F", 0), win(1, "G", "H", 0),
      win(2, "A", "G", 0), win(2, "B", "H", 0), win(2, "C", "E", 1), win(2, "F", "D", 3)], [],
     [(1, "A", None), (2, "B", "opponents_changfen"), (3, "F", "opponents_changfen"), (4, "G", "changfen"), (4, "H", "tie"),
      (6, "C", "jichafen"), (7, "E", "changfen"), (8, "D", "changfen")]),
    # A and B equal in everything after round 2; after round 1 A was ahead on 级差分
    ("previous_rank",
     [win(1, "A", "C", 5), win(1, "B", "D", 3), win(1, "E", "F", 0), win(2, "E", "A", 3), win(2, "F", "B", 1), win(2, "C", "D", 0)], [],
     [(1, "E", None), (2, "F", "jichafen"), (3, "A", "changfen"), (4, "B", "previous_rank"), (5, "D", "changfen"), (6, "C", "jichafen")]),
    # A beat B, B beat C, C beat A, all by 3, each drew D: three tied, so no head-to-head
    ("three_tied_no_head_to_head",
     [win(1, "A", "B", 3), win(1, "C", "D", 0), win(2, "B", "C", 3), win(2, "A", "D", 0), win(3, "C", "A", 3), win(3, "B", "D", 0)], [],
     [(1, "A", None), (2, "B", "previous_rank"), (3, "C", "previous_rank"), (4, "D", "wins")]),
    ("shared_rank", [win(1, "B", "D", 3), win(1, "A", "C", 3)], [],
     [(1, "A", None), (1, "B", "tie"), (3, "C", "changfen"), (3, "D", "tie")]),
]


@pytest.mark.parametrize("name,ms,pens,expected", TIE_BREAK_CASES, ids=[c[0] for c in TIE_BREAK_CASES])
def test_tie_break_steps(name, ms, pens, expected):
    got = standings(ms, pens)
    assert table(got) == expected
    if name in gm.STEPS:
        assert name in [r.decided_by for r in got.rows]


def test_every_step_is_reached_by_some_case():
    reached = {r.decided_by for _, ms, pens, _ in TIE_BREAK_CASES for r in standings(ms, pens).rows}
    assert set(gm.STEPS) | {None, "tie"} == reached


def test_head_to_head_needs_a_result_between_them():
    # A and B drew each other: head-to-head does not decide, the chain goes on
    ms = [win(1, "A", "B", 0), win(2, "A", "C", 2), win(2, "B", "D", 2), win(3, "C", "D", 0)]
    rows = table(standings(ms))
    assert rows[0][1:] == ("A", None) and rows[1] == (1, "B", "tie")


def test_organiser_may_drop_a_step():
    # seed 第四十九条 lists draws "场分制除外"; an organiser can leave the step out
    ms, pens = TIE_BREAK_CASES[4][1], TIE_BREAK_CASES[4][2]
    rows = table(standings(ms, pens, steps=[s for s in gm.DEFAULT_STEPS if s != "draws"]))
    assert "draws" not in [d for _, _, d in rows]
    with pytest.raises(MatchError):
        standings(ms, steps=["jichafen", "luck"])


def test_sides_without_matches_are_listed():
    st_ = standings([win(1, "A", "B", 2)], sides=["A", "B", "C"])
    assert table(st_)[-1] == (3, "C", "jichafen")   # B lost but took 11 级差分; C has 0


def test_standings_json_and_csv_agree():
    ms = TIE_BREAK_CASES[2][1]
    st_ = standings(ms, [pen("F", "级差分", 2)])
    d = st_.to_dict()
    assert d["steps"][0] == "changfen" and [r["side"] for r in d["standings"]] == st_.order()
    lines = st_.to_csv().splitlines()
    assert lines[0].startswith("rank,side,changfen") and len(lines) == 1 + len(st_.rows)
    assert [line.split(",")[1] for line in lines[1:]] == st_.order()


# -- parsing -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows,code,where", [
    ([{"round": 1, "a": "A", "b": "B", "a_level": "K"}], "bad_match", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "a_level": "K", "b_level": "2", "forfeit": "a"}], "bad_match", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "forfeit": "a", "excused": "b"}], "bad_match", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "excused": "C"}], "bad_forfeit", "row 1"),
    ([{"round": 1, "a": "A", "b": "A", "a_level": "K", "b_level": "2"}], "same_side", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "a_level": "K", "b_level": "2", "winner": "A"}], "bad_match", "row 1"),
    ([{"round": 0, "a": "A", "bye": True}], "bad_round", "row 1"),
    ([{"round": 1, "a": "A", "bye": True, "b": "B"}], "bad_match", "row 1"),
    ([{"round": 1, "a": "", "bye": True}], "bad_side", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "open": {"EW": "K", "NS": "2"}}], "bad_match", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "open": {"EW": "K"}, "closed": {"EW": "2", "NS": "3"}}], "bad_match", "row 1"),
    ([{"round": 1, "a": "A", "b": "B", "a_level": 5, "b_level": 2}, {"round": 1, "a": "C", "b": "A", "a_level": 5, "b_level": 2}],
     "side_twice", "row 2"),
    ([{"round": 1, "a": "A", "bye": True, "match_id": "m"}, {"round": 2, "a": "A", "bye": True, "match_id": "m"}], "duplicate_id", "row 2"),
    ("not a list", "bad_input", "list"),
    ([7], "bad_match", "row 1"),
])
def test_parse_matches_names_the_row(rows, code, where):
    with pytest.raises(MatchError) as e:
        gm.parse_matches(rows)
    assert e.value.code == code and where in e.value.en


def test_match_dict_round_trip():
    for m in [win(1, "A", "B", 3), MatchResult.bye(2, "C"), MatchResult.forfeit(3, "A", "C", "both"), MatchResult.excused(6, "A", "C", "a"),
              MatchResult.team(4, "T1", "T2", Room("A+", "3"), Room("K", "Q"), match_id="x"), MatchResult.played(5, 1, 2, "T", "J")]:
        d = m.to_dict()
        assert d["score"]["jichafen"] == [m.jichafen_a, m.jichafen_b]
        assert MatchResult.from_dict({k: v for k, v in d.items() if k != "score"}) == m


def test_parse_sides():
    assert gm.parse_sides([{"id": "A", "seed": 2}, {"id": "B", "seed": 1}]) == (["A", "B"], {"A": 2, "B": 1})
    for bad in ([], ["A", "A"], [{"id": "A", "seed": 1}, "B"], [{"id": "A", "seed": 1}, {"id": "B", "seed": 1}], [{"name": "x"}], [None]):
        with pytest.raises(MatchError):
            gm.parse_sides(bad)


# -- team duplicate ----------------------------------------------------------------------------------

# (open E–W, open N–S, closed E–W, closed N–S) → home (E–W in open, N–S in closed) diff, 级差分, 场分
TEAM_CASES = [
    (("K", "7"), ("5", "9"), 10, 23, 3, 2, 0),    # home won both rooms: +6 and +4
    (("K", "7"), ("K", "7"), 0, 13, 13, 1, 1),    # E–W reached K in both rooms: the rooms cancel
    (("K", "7"), ("9", "5"), 2, 15, 11, 2, 0),    # E–W won both; home's margin was larger in the open room
    (("3", "A"), ("4", "2"), -13, 0, 26, 0, 2),   # away won both: −11 and −2
    (("A+", "2"), ("2", "A"), 25, 26, 0, 2, 0),   # +13 and +12: the sum is capped at 13
    (("2", "A+"), ("A", "2"), -25, 0, 26, 0, 2),
    (("5", "5"), ("8", "8"), 0, 13, 13, 1, 1),
]


@pytest.mark.parametrize("open_,closed,diff,ja,jb,ca,cb", TEAM_CASES)
def test_team_duplicate(open_, closed, diff, ja, jb, ca, cb):
    m = MatchResult.team(1, "Home", "Away", Room(*open_), Room(*closed))
    assert (m.diff, m.jichafen_a, m.jichafen_b, m.changfen_a, m.changfen_b) == (diff, ja, jb, ca, cb)
    # the same boards with every seat swapped give the mirror result
    swapped = MatchResult.team(1, "Home", "Away", Room(open_[1], open_[0]), Room(closed[1], closed[0]))
    assert (swapped.diff, swapped.jichafen_a, swapped.changfen_a) == (-diff, jb, cb)
    rec = {r.side: r.record for r in standings([m]).rows}
    assert rec["Home"].level_diff == diff and rec["Away"].level_diff == -diff


@given(st.lists(st.sampled_from(list("23456789TJQKA") + ["A+"]), min_size=4, max_size=4))
def test_team_duplicate_is_the_sum_of_the_rooms(levels):
    o_ew, o_ns, c_ew, c_ns = levels
    m = MatchResult.team(1, "H", "A", Room(o_ew, o_ns), Room(c_ew, c_ns))
    open_room = MatchResult.played(1, "H", "A", o_ew, o_ns)     # home is E–W in the open room
    closed_room = MatchResult.played(1, "H", "A", c_ns, c_ew)   # and N–S in the closed room
    assert m.diff == open_room.diff + closed_room.diff
    assert m.jichafen_a + m.jichafen_b == 26 and m.changfen_a + m.changfen_b == 2


# -- pairing -----------------------------------------------------------------------------------------

def names(n):
    return ["S%d" % i for i in range(1, n + 1)]


def test_round_one_comes_from_the_secret():
    sides = names(12)
    a = pair_round(1, sides, secret="event-secret-0123456789")
    assert a == pair_round(1, sides, secret="event-secret-0123456789")
    assert a.method == "secret" and a.bye is None
    others = {pair_round(1, sides, secret="event-secret-%d" % k).ranking for k in range(5)}
    assert len(others) == 5  # different secrets, different draws
    with pytest.raises(PairingError) as e:
        pair_round(1, sides)
    assert e.value.code == "no_secret"


def test_round_one_seeded_strong_against_weak():
    sides, seeds = gm.parse_sides([{"id": "S%d" % k, "seed": 8 - k} for k in range(1, 8)])
    p = pair_round(1, sides, seeds=seeds)
    # seeds 1..7: the lowest seed (7, S1) has the bye; then 1 v 4, 2 v 5, 3 v 6
    assert p.method == "seeded" and p.bye == "S1"
    assert {frozenset(t) for t in p.tables} == {frozenset(x) for x in (("S7", "S4"), ("S6", "S3"), ("S5", "S2"))}


def test_home_side_by_number():
    ms = [win(1, "S1", "S2", 1), win(1, "S3", "S4", 1)]
    p2 = pair_round(2, names(4), ms)
    assert p2.tables == (("S3", "S1"), ("S4", "S2"))   # even round: the larger number is home
    ms += [win(2, "S3", "S1", 1), win(2, "S4", "S2", 1)]
    p3 = pair_round(3, names(4), ms)
    assert all(names(4).index(h) < names(4).index(a) for h, a in p3.tables)   # odd round: the smaller


def test_pairing_refuses_results_of_the_round():
    with pytest.raises(PairingError) as e:
        pair_round(1, names(4), [win(1, "S1", "S2", 1)])
    assert e.value.code == "round_has_results"


def test_no_pairing_left_is_an_error():
    ms = [win(1, "S1", "S2", 1), win(1, "S3", "S4", 1), win(2, "S1", "S3", 1), win(2, "S2", "S4", 1),
          win(3, "S1", "S4", 1), win(3, "S2", "S3", 1)]
    with pytest.raises(PairingError) as e:
        pair_round(4, names(4), ms)
    assert e.value.code == "no_pairing" and "round 4" in e.value.en


def test_no_bye_left_is_an_error():
    ms = [MatchResult.bye(1, "S3"), win(1, "S1", "S2", 1), MatchResult.bye(2, "S2"), win(2, "S1", "S3", 1),
          MatchResult.bye(3, "S1"), win(3, "S2", "S3", 1)]
    with pytest.raises(PairingError) as e:
        pair_round(4, names(3), ms)
    assert e.value.code == "no_bye_left"


def test_bye_moves_up_when_the_lowest_would_leave_a_repeat():
    # S7 is last and has had no bye, but S1 has met S2..S6, so without S7 the rest cannot be
    # paired: the bye goes to the next lowest, S6, and S1 meets S7.
    ms = [win(1, "S1", "S2", 1), win(1, "S3", "S7", 10), win(2, "S1", "S3", 1), win(2, "S4", "S7", 10),
          win(3, "S1", "S4", 1), win(3, "S5", "S7", 10), win(4, "S1", "S5", 1), win(4, "S2", "S6", 5),
          win(5, "S1", "S6", 1)]
    p = pair_round(6, names(7), ms)
    assert p.ranking[-2:] == ("S6", "S7")
    assert p.bye == "S6" and ("S1", "S7") in [tuple(sorted(t)) for t in p.tables]


def reference_pairing(order, met, budget=200000):
    """Plain backtracking from the top of the ranking: what the fast pairing must equal."""
    steps = [0]

    def bt(rest):
        if not rest:
            return []
        steps[0] += 1
        if steps[0] > budget:
            raise TimeoutError
        i = rest[0]
        for j in rest[1:]:
            if j in met.get(i, ()):
                continue
            r = bt([x for x in rest if x not in (i, j)])
            if r is not None:
                return [(i, j)] + r
        return None

    return bt(list(order))


def has_perfect_matching(order, met):
    """Independent check by bitmask search (small fields only)."""
    n = len(order)
    ok = [[order[j] not in met.get(order[i], ()) for j in range(n)] for i in range(n)]
    seen = {}

    def go(mask):
        if mask == (1 << n) - 1:
            return True
        if mask in seen:
            return seen[mask]
        i = next(k for k in range(n) if not mask >> k & 1)
        res = any(go(mask | 1 << i | 1 << j) for j in range(i + 1, n) if not mask >> j & 1 and ok[i][j])
        seen[mask] = res
        return res

    return go(0)


@pytest.mark.parametrize("n,p", [(n, p) for n in (2, 4, 6, 8, 10, 12, 14) for p in (0.2, 0.5, 0.8)])
def test_fast_pairing_equals_backtracking(n, p):
    rng = random.Random(n * 1000 + int(p * 10))
    for _ in range(60):
        order = names(n)
        met = {}
        for a, b in itertools.combinations(order, 2):
            if rng.random() < p:
                met.setdefault(a, set()).add(b)
                met.setdefault(b, set()).add(a)
        got = gm._perfect_pairing(order, met)
        assert got == reference_pairing(order, met)
        assert (got is not None) == has_perfect_matching(order, met)


def play_round(rng, p, kinds):
    out = []
    for h, a in p.tables:
        k = rng.choice(kinds)
        if k == "played":
            out.append(MatchResult.played(p.round, h, a, rng.randint(2, 15), rng.randint(2, 15)))
        elif k == "forfeit":
            out.append(MatchResult.forfeit(p.round, h, a, rng.choice(["a", "b", "both"])))
        else:
            out.append(MatchResult.team(p.round, h, a, Room(rng.randint(2, 15), rng.randint(2, 15)),
                                        Room(rng.randint(2, 15), rng.randint(2, 15))))
    if p.bye:
        out.append(MatchResult.bye(p.round, p.bye))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(10, 60), rounds=st.integers(1, 9), seed=st.integers(0, 2**32 - 1),
       kinds=st.sampled_from([["played"], ["played", "forfeit"], ["team"], ["played", "team", "forfeit"]]))
def test_swiss_never_repeats(n, rounds, seed, kinds):
    rng = random.Random(seed)
    sides = names(n)
    ms, met, byes = [], {}, []
    for r in range(1, rounds + 1):
        try:
            p = pair_round(r, sides, ms, secret="secret-%d" % seed)
        except PairingError as e:
            # only when no pairing exists at all (checked independently, so only on small fields)
            assert n <= 20, "pairing failed on a field of %d: %s" % (n, e)
            eligible = [s for s in sides if s not in byes] if n % 2 else [None]
            assert not any(has_perfect_matching([s for s in sides if s != b], met) for b in eligible)
            return
        placed = [s for t in p.tables for s in t] + ([p.bye] if p.bye else [])
        assert sorted(placed) == sorted(sides)                         # everyone exactly once
        for h, a in p.tables:
            assert a not in met.get(h, ())                             # never a repeat meeting
        assert (p.bye is not None) == (n % 2 == 1)
        if p.bye:
            assert p.bye not in byes                                   # a bye once per side
            lowest = [s for s in p.ranking if s not in byes][-1]
            if p.bye != lowest:                                        # the lowest without a bye, unless
                rest = [s for s in p.ranking if s != lowest]           # the rest could not then be paired
                assert n > 20 or not has_perfect_matching(rest, met)
                assert not gm._perfect_pairing_exists(rest, met)
            byes.append(p.bye)
        if r > 1:
            # the ranking is the standings after the previous round
            assert p.ranking == tuple(standings(ms, sides=sides, upto=r - 1,
                                                final_key=lambda x: ((1 if r % 2 else -1) * sides.index(x.side), x.side)).order())
            try:
                ref = reference_pairing([s for s in p.ranking if s != p.bye], met)
            except TimeoutError:
                ref = None
            if ref is not None:
                assert [tuple(sorted(t, key=p.ranking.index)) for t in p.tables] == ref
        for h, a in p.tables:
            met.setdefault(h, set()).add(a)
            met.setdefault(a, set()).add(h)
        ms += play_round(rng, p, kinds)


def test_pairing_follows_the_ranking():
    # after one round, winners meet winners and losers meet losers
    sides = names(8)
    p1 = pair_round(1, sides, secret="another-secret-123456")
    ms = [win(1, h, a, 3) for h, a in p1.tables]
    winners = {h for h, _ in p1.tables}
    p2 = pair_round(2, sides, ms)
    for h, a in p2.tables:
        assert (h in winners) == (a in winners)


def test_withdrawn_and_new_sides():
    ms = [win(1, "S1", "S2", 3), win(1, "S3", "S4", 2)]
    p = pair_round(2, ["S1", "S3", "S4", "S5"], ms)   # S2 withdrew, S5 joined
    placed = sorted(s for t in p.tables for s in t)
    assert placed == ["S1", "S3", "S4", "S5"] and ("S3", "S4") not in p.tables and ("S4", "S3") not in p.tables


# -- the command line ---------------------------------------------------------------------------------

def run_cli(tmp_path, argv, matches_doc=None, sides_doc=None):
    if matches_doc is not None:
        (tmp_path / "matches.json").write_text(json.dumps(matches_doc, ensure_ascii=False), encoding="utf-8")
    if sides_doc is not None:
        (tmp_path / "sides.json").write_text(json.dumps(sides_doc), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    argv = [a.replace("@", str(tmp_path) + "/") for a in argv]
    parser = argparse.ArgumentParser()
    gm.add_arguments(parser)
    code = gm.command(parser.parse_args(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


MATCHES_DOC = {
    "matches": [
        {"round": 1, "a": "P1", "b": "P2", "a_level": "K", "b_level": "7"},
        {"round": 1, "a": "P3", "b": "P4", "a_level": "5", "b_level": "5"},
        {"round": 1, "a": "P5", "bye": True},
    ],
    "penalties": [{"side": "P3", "unit": "级差分", "points": 1, "reason": "超时 0–5 分钟（第三十三条）", "who": "referee Li",
                   "at": "2025-05-01T11:02:00+08:00", "round": 1}],
}


def test_cli_standings_json_and_csv(tmp_path):
    code, out, err = run_cli(tmp_path, ["standings", "--input", "@matches.json"], MATCHES_DOC)
    assert code == 0 and err == ""
    d = json.loads(out)
    assert [(r["rank"], r["side"], r["changfen"], r["jichafen"], r["decided_by"]) for r in d["standings"]] == [
        (1, "P1", 2, 19, None), (2, "P5", 1.5, 17, "changfen"), (3, "P4", 1, 13, "changfen"),
        (4, "P3", 1, 12, "jichafen"), (5, "P2", 0, 7, "changfen")]
    code, out, _ = run_cli(tmp_path, ["standings", "--input", "@matches.json", "--format", "csv"])
    assert code == 0 and out.splitlines()[2] == "2,P5,1.5,17,0,0,0,0,1,0,0,,0,changfen"


def test_cli_pair(tmp_path):
    code, out, err = run_cli(tmp_path, ["pair", "--round", "2", "--input", "@matches.json", "--sides", "@sides.json"],
                             MATCHES_DOC, ["P1", "P2", "P3", "P4", "P5"])
    assert code == 0, err
    d = json.loads(out)
    assert d["bye"] == "P2" and d["method"] == "standings"
    assert d["tables"] == [{"table": 1, "home": "P4", "away": "P1"}, {"table": 2, "home": "P5", "away": "P3"}]
    (tmp_path / "empty.json").write_text("[]")
    code, out, err = run_cli(tmp_path, ["pair", "--round", "1", "--input", "@empty.json", "--sides", "@sides.json", "--secret", "s" * 20])
    assert code == 0 and json.loads(out)["method"] == "secret"


@pytest.mark.parametrize("doc,argv,needle", [
    ([{"round": 1, "a": "P1", "b": "P2", "a_level": "Z", "b_level": "2"}], ["standings"], "matches row 1: level 'Z'"),
    ({"matches": [{"round": 1, "a": "P1", "bye": True}], "penalties": [{"side": "P1", "unit": "场分", "points": 1}]},
     ["standings"], "penalties row 1: missing field 'reason'"),
    ({"matches": [], "extra": 1}, ["standings"], "unknown key(s) extra"),
    ([{"round": 1, "a": "P1", "b": "P2", "a_level": 3, "b_level": 2}, {"round": 1, "a": "P2", "bye": True}], ["standings"],
     "matches row 2: P2 already plays in round 1 (row 1)"),
    ([], ["pair", "--round", "1", "--sides", "@sides.json"], "round 1 needs the event secret"),
    ([{"round": 1, "a": "P1", "b": "P2", "a_level": 3, "b_level": 2}], ["pair", "--round", "1", "--sides", "@sides.json"],
     "round 1 already has results"),
])
def test_cli_refuses_bad_input(tmp_path, doc, argv, needle):
    argv = argv[:1] + ["--input", "@matches.json"] + argv[1:]
    code, out, err = run_cli(tmp_path, argv, doc, ["P1", "P2"])
    assert code == 2 and out == ""
    assert needle in err and "paizhuo guandan:" in err


def test_cli_unreadable_files(tmp_path):
    code, out, err = run_cli(tmp_path, ["standings", "--input", "@missing.json"])
    assert code == 2 and "cannot read the matches file" in err
    (tmp_path / "bad.json").write_text("{")
    code, out, err = run_cli(tmp_path, ["standings", "--input", "@bad.json"])
    assert code == 2 and "not valid JSON" in err


def test_paizhuo_guandan_command(tmp_path):
    (tmp_path / "m.json").write_text(json.dumps(MATCHES_DOC), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "paizhuo.cli", "guandan", "standings", "--input", str(tmp_path / "m.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["standings"][0]["side"] == "P1"
    proc = subprocess.run([sys.executable, "-m", "paizhuo.cli", "guandan", "pair", "--round", "0", "--input", str(tmp_path / "m.json"),
                           "--sides", str(tmp_path / "m.json")], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
