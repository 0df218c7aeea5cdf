"""Swiss movement (hub/venue/movement.py) and `paizhuo movement`."""

import collections
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo.venue import movement as M
from paizhuo.venue import scoring

PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")
SECRET = b"paizhuo movement test secret"


def ids(n, prefix="p"):
    return ["%s%d" % (prefix, i) for i in range(1, n + 1)]


def grid(r):
    """[[group, occupant per seat]] with None for a bot."""
    return [[t.group] + [t.seats[s] for s in r.seats] for t in r.tables]


def cost(r, history):
    """Sum over table-mates of earlier rounds together (the quantity swaps lower)."""
    met = collections.Counter()
    for rnd in history:
        for t in rnd:
            people = [p for p in t if p is not None]
            for i, a in enumerate(people):
                for b in people[i + 1:]:
                    met[frozenset((a, b))] += 1
    total = 0
    for t in r.tables:
        people = t.players
        for i, a in enumerate(people):
            for b in people[i + 1:]:
                total += met[frozenset((a, b))]
    return total


def check_round(r, players, seats=4):
    """Invariants of every seating."""
    seated = [p for t in r.tables for p in t.players]
    assert sorted(seated, key=str) == sorted(players, key=str), "every player exactly once"
    assert [t.number for t in r.tables] == list(range(1, len(r.tables) + 1))
    groups = [t.group for t in r.tables]
    assert groups == sorted(groups) and set(groups) == set(range(1, max(groups) + 1))
    for t in r.tables:
        assert list(t.seats) == list(M.SEATS[seats]), "every seat present: a player or a bot"
        assert t.players, "no table of bots only"
    if not r.vs_ai:
        assert r.bots < seats, "bots only where the field cannot fill a table"
        assert r.bots == len(r.tables) * seats - len(players)
    places = r.places()
    for p in players:
        table, seat, group = places[p]
        assert r.tables[table - 1].seats[seat] == p and r.tables[table - 1].group == group


# ---- the snake, exactly as RULES.md writes it ---------------------------------------------------

def test_snake_in_one_group_of_three_tables():
    r = M.seat_round(ids(12), 2, standings=ids(12))
    # E: ranks 1..3 at tables 1..3; N: ranks 4..6 at tables 3..1; W: 7..9 at 1..3; S: 10..12 at 3..1.
    assert grid(r) == [[1, "p1", "p6", "p7", "p12"],
                       [1, "p2", "p5", "p8", "p11"],
                       [1, "p3", "p4", "p9", "p10"]]
    assert r.method == "ranking" and r.swaps == () and r.bots == 0


def test_snake_cut_into_groups_of_t_tables():
    r = M.seat_round(ids(16), 3, standings=ids(16), tables_per_group=2)
    assert grid(r) == [[1, "p1", "p4", "p5", "p8"],
                       [1, "p2", "p3", "p6", "p7"],
                       [2, "p9", "p12", "p13", "p16"],
                       [2, "p10", "p11", "p14", "p15"]]


def test_three_seat_snake_drops_south():
    r = M.seat_round(ids(9), 2, standings=ids(9), seats=3)
    assert r.seats == ("E", "N", "W")
    assert grid(r) == [[1, "p1", "p6", "p7"], [1, "p2", "p5", "p8"], [1, "p3", "p4", "p9"]]


def test_short_last_group_gets_bots_in_the_lowest_places():
    # 13 players, groups of 2 tables: 8, then 5 players on 2 tables with 3 bots.
    r = M.seat_round(ids(13), 2, standings=ids(13), tables_per_group=2)
    assert grid(r)[2:] == [[2, "p9", "p12", "p13", None], [2, "p10", "p11", None, None]]
    assert r.bots == 3
    assert r.to_dict()["tables"][3]["seats"]["S"] == {"player": None, "bot": True}


def test_a_lone_last_table_joins_the_group_above():
    # 10 players, groups of 2 tables: 8 + 2 would leave 2 players alone at one table, with
    # nobody to be compared with; they join group 1, which snakes over 3 tables.
    r = M.seat_round(ids(10), 2, standings=ids(10), tables_per_group=2)
    assert grid(r) == [[1, "p1", "p6", "p7", None], [1, "p2", "p5", "p8", None], [1, "p3", "p4", "p9", "p10"]]


def test_three_seat_bots():
    r = M.seat_round(ids(10), 2, standings=ids(10), seats=3)
    assert grid(r) == [[1, "p1", "p8", "p9"], [1, "p2", "p7", "p10"], [1, "p3", "p6", None], [1, "p4", "p5", None]]


# ---- avoiding repeat table-mates -------------------------------------------------------------------

def standings(order, rs):
    return [{"player": p, "rank": i + 1, "R": r} for i, (p, r) in enumerate(zip(order, rs))]


def test_equal_r_players_swap_to_avoid_a_repeat():
    # p1 and p6 sat together last round; the snake would seat them together again at table 1.
    # p1 and p2 share R 60.0, so they exchange places: p2 goes to table 1, p1 to table 2.
    rs = [60.0, 60.0, 55.0, 54.0, 53.0, 52.0, 51.0, 50.0, 49.0, 48.0, 47.0, 46.0]
    history = [[["p1", "p6", "p20", "p21"]]]
    r = M.seat_round(ids(12), 2, standings=standings(ids(12), rs), history=history)
    assert grid(r)[:2] == [[1, "p2", "p6", "p7", "p12"], [1, "p1", "p5", "p8", "p11"]]
    assert len(r.swaps) == 1 and r.swaps[0].players == ("p1", "p2") and r.swaps[0].tie == 60.0
    assert r.swaps[0].to_dict() == {"players": ["p1", "p2"], "tables": [1, 2], "R": 60.0,
                                    "repeats_before": 1, "repeats_after": 0}
    assert r.repeats == ()
    assert cost(r, history) == 0


def test_no_swap_between_different_r_the_repeat_is_reported():
    rs = [60.0, 59.0, 55.0, 54.0, 53.0, 52.0, 51.0, 50.0, 49.0, 48.0, 47.0, 46.0]
    r = M.seat_round(ids(12), 2, standings=standings(ids(12), rs), history=[[["p1", "p6"]]])
    assert grid(r)[0] == [1, "p1", "p6", "p7", "p12"]
    assert r.swaps == ()
    assert r.repeats == (("p1", "p6", 1, 1),)
    assert r.to_dict()["repeats"] == [{"players": ["p1", "p6"], "table": 1, "before": 1}]


def test_nearest_equal_partner_is_tried_first_and_a_useless_swap_is_not_made():
    # p4, p5, p6 share R; p6 (table 1, N) met p1.  p5 is nearest but sits at table 2 with p2,
    # whom p6 also met: exchanging with p5 would not lower the cost, so p4 (table 3) is used.
    rs = [70.0, 69.0, 68.0, 50.0, 50.0, 50.0, 40.0, 39.0, 38.0, 37.0, 36.0, 35.0]
    history = [[["p1", "p6"], ["p2", "p6x"]], [["p2", "p6"]]]
    r = M.seat_round(ids(12), 3, standings=standings(ids(12), rs), history=history)
    assert [s.players for s in r.swaps] == [("p6", "p4")]
    assert grid(r)[0] == [1, "p1", "p4", "p7", "p12"] and grid(r)[2] == [1, "p3", "p6", "p9", "p10"]
    assert cost(r, history) == 0


def test_plain_list_ranking_never_swaps():
    r = M.seat_round(ids(8), 2, standings=ids(8), history=[[["p1", "p4"]]])
    assert r.swaps == () and r.repeats == (("p1", "p4", 1, 1),)


def test_unranked_players_sit_last_and_may_swap_among_themselves():
    st8 = standings(ids(6), [90.0, 80.0, 70.0, 60.0, 50.0, 40.0])
    r = M.seat_round(ids(8), 2, standings=st8, history=[[["p3", "p7"]]])
    assert r.unranked == ("p7", "p8")
    # The snake puts p3 (N) and p7 (S) at table 2; p7 and p8 have no R, so they exchange.
    assert grid(r) == [[1, "p1", "p4", "p5", "p7"], [1, "p2", "p3", "p6", "p8"]]
    assert [s.players for s in r.swaps] == [("p7", "p8")] and r.swaps[0].tie is None


def test_absent_ranked_players_are_reported_and_not_seated():
    r = M.seat_round(ids(4), 2, standings=ids(5))
    assert r.absent == ("p5",) and sorted(r.places()) == ids(4)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.integers(1, 120), seats=st.sampled_from([3, 4]),
       per_group=st.one_of(st.none(), st.integers(2, 8)), rounds=st.integers(1, 4))
def test_properties_over_several_rounds(data, n, seats, per_group, rounds):
    players = ids(n)
    r = M.seat_round(players, 1, seats=seats, tables_per_group=per_group, secret=SECRET)
    check_round(r, players, seats)
    history = [r.to_dict()]
    plain_history = [[t.players for t in r.tables]]
    for rnd in range(2, rounds + 1):
        # R on a coarse scale so ties are common and swaps happen.
        rs = sorted(data.draw(st.lists(st.sampled_from([30.0, 40.0, 50.0, 60.0]), min_size=n, max_size=n)),
                    reverse=True)
        order = data.draw(st.permutations(players))
        ranking = standings(order, rs)
        r = M.seat_round(players, rnd, seats=seats, tables_per_group=per_group, standings=ranking, history=history)
        check_round(r, players, seats)
        plain = M.seat_round(players, rnd, seats=seats, tables_per_group=per_group, standings=ranking)
        assert cost(r, plain_history) <= cost(plain, plain_history)
        tie = {p["player"]: p["R"] for p in ranking}
        for s in r.swaps:
            assert tie[s.players[0]] == tie[s.players[1]] == s.tie
            assert s.cost_after < s.cost_before
        moved = {p for s in r.swaps for p in s.players}
        for p in players:
            if p not in moved:  # everyone else sits exactly where the snake put them
                assert r.places()[p] == plain.places()[p]
        # JSON round trip of the history form
        history.append(json.loads(json.dumps(r.to_dict())))
        plain_history.append([t.players for t in r.tables])


# ---- round 1: the seeded draw ---------------------------------------------------------------------

def test_round_one_draw_is_reproducible_and_keyed_by_the_secret():
    a = M.seat_round(ids(20), 1, secret=SECRET, tables_per_group=2)
    assert a == M.seat_round(ids(20), 1, secret=SECRET, tables_per_group=2)
    assert grid(a) != grid(M.seat_round(ids(20), 1, secret=SECRET + b"x", tables_per_group=2))
    assert a.method == "draw"
    assert M.draw(list("abcdefgh"), b"paizhuo golden secret") == ["f", "h", "d", "g", "b", "c", "a", "e"]


def test_round_one_draw_is_uniform_over_seats():
    # Where player "a" sits among 4 (one table), over 2,400 secrets: 600 each expected.
    counts = collections.Counter()
    for i in range(2400):
        r = M.seat_round(list("abcd"), 1, secret=b"s%d" % i)
        counts[r.place("a")[1]] += 1
    assert all(520 <= counts[s] <= 680 for s in "ENWS"), counts


# ---- 人机赛 --------------------------------------------------------------------------------------

def test_vs_ai_every_human_in_one_seat_at_their_own_table():
    r = M.seat_round(ids(7), 2, standings=ids(7), vs_ai=True, human_seat="N", tables_per_group=3)
    check_round(r, ids(7))
    assert r.vs_ai and len(r.tables) == 7 and r.bots == 21
    for i, t in enumerate(r.tables, 1):
        assert t.seats["N"] == "p%d" % i and t.bot_seats == ["E", "W", "S"]
    # groups of 3 tables; the lone seventh human joins the group above
    assert [t.group for t in r.tables] == [1, 1, 1, 2, 2, 2, 2]
    assert r.instruction("p5") == "table 5, North" and r.instruction("p5", "zh") == "第5桌 北家"


def test_vs_ai_round_one_and_three_seats():
    r = M.seat_round(ids(5), 1, seats=3, secret=SECRET, vs_ai=True)
    check_round(r, ids(5), seats=3)
    assert all(t.seats["E"] is not None and t.bot_seats == ["N", "W"] for t in r.tables)
    assert "人机赛" in r.text()


# ---- the scoring module's standings feed the movement ---------------------------------------------

def test_standings_from_scoring_seat_the_next_round():
    rows = []
    for p, scores in {1: (15, 11, 18), 2: (7, 11, 51), 3: (21, -3, 18)}.items():
        for board, s in zip((1, 2, 3), scores):
            rows.append({"player": p, "board": board, "seat": "E", "table": p, "score": s, "think_ms": 0})
    data = json.loads(json.dumps(scoring.standings(rows).to_dict()))
    r = M.seat_round([1, 2, 3], 2, seats=3, standings=data)
    # Ranking 2, 1, 3 (R 58.3, 50.0, 41.7): one table of three.
    assert grid(r) == [[1, 2, 1, 3]]


# ---- outputs ----------------------------------------------------------------------------------------

def test_to_dict_and_text_name_every_player_seat_and_table():
    r = M.seat_round(ids(7), 2, standings=ids(7))
    d = r.to_dict()
    assert d["round"] == 2 and d["seats"] == ["E", "N", "W", "S"] and d["groups"] == 1 and d["bots"] == 1
    assert {p["player"]: (p["table"], p["seat"], p["en"], p["zh"]) for p in d["players"]}["p4"] == (
        1, "N", "table 1, North", "第1桌 北家")
    text = r.text()
    assert "p4         table 1, North    第1桌 北家" in text
    assert "(bot)" in text and "1 in all" in text


@pytest.mark.parametrize("kwargs,code,text", [
    (dict(players=[], round=1, secret=SECRET), "no_players", "empty"),
    (dict(players=["a", "a"], round=1, secret=SECRET), "duplicate_player", "listed twice"),
    (dict(players=[7, "7"], round=1, secret=SECRET), "duplicate_player", "listed twice"),
    (dict(players=["a", True], round=1, secret=SECRET), "bad_player", "text or a whole number"),
    (dict(players=["a", ""], round=1, secret=SECRET), "bad_player", "1 to 64 characters"),
    (dict(players="abc", round=1, secret=SECRET), "bad_players", "list of player ids"),
    (dict(players=["a"], round=0, secret=SECRET), "bad_round", "round must be"),
    (dict(players=["a"], round=1, secret=SECRET, seats=5), "bad_seats", "4 (bigtwo, guandan) or 3 (paohuzi)"),
    (dict(players=["a"], round=1, secret=SECRET, tables_per_group=1), "bad_tables_per_group", "at least 2"),
    (dict(players=["a"], round=1, secret=SECRET, vs_ai=True, seats=3, human_seat="S"), "bad_human_seat", "E, N, W"),
    (dict(players=["a"], round=1), "no_secret", "give the secret"),
    (dict(players=["a"], round=1, secret=b""), "no_secret", "give the secret"),
    (dict(players=["a"], round=1, secret=SECRET, standings=["a"]), "standings_in_round_1", "from round 2"),
    (dict(players=["a"], round=1, secret=SECRET, history=[[["a"]]]), "history_in_round_1", "no earlier rounds"),
    (dict(players=["a"], round=2), "no_standings", "give the standings after round 1"),
    (dict(players=["a"], round=2, standings=["a", "a"]), "duplicate_player", "ranked twice"),
    (dict(players=["a", "b"], round=2, standings=[{"player": "a", "R": 40.0}, {"player": "b", "R": 50.0}]),
     "standings_order", "out of order"),
    (dict(players=["a"], round=2, standings=[{"player": "a", "R": 140}]), "bad_standings", "0 to 100"),
    (dict(players=["a"], round=2, standings=[{"player": "a", "rank": 0}]), "bad_standings", "rank must be"),
    (dict(players=["a"], round=2, standings=[{"R": 5}]), "bad_standings", "no \"player\""),
    (dict(players=["a"], round=2, standings={"rows": []}), "bad_standings", "paizhuo score"),
    (dict(players=["a", "b"], round=2, standings=["a", "b"], history=[[["a", "b"], ["b"]]]), "bad_history",
     "seated twice"),
    (dict(players=["a"], round=2, standings=["a"], history=[{"round": 2, "tables": []}]), "bad_history",
     "not before round 2"),
    (dict(players=["a"], round=3, standings=["a"], history=[{"round": 1, "tables": []}, {"round": 1, "tables": []}]),
     "bad_history", "both round 1"),
    (dict(players=["a"], round=2, standings=["a"], history=[{"tables": [{"seats": ["a"]}]}]), "bad_history",
     "\"seats\" must map"),
    (dict(players=["a"], round=2, standings=["a"], history=[{"tables": "x"}]), "bad_history", "must be a list"),
    (dict(players=["a"], round=2, standings=["a"], history=[[[{"name": "a"}]]]), "bad_history",
     "needs \"player\" or \"bot\""),
])
def test_bad_input_is_refused_saying_what_is_wrong(kwargs, code, text):
    players = kwargs.pop("players")
    rnd = kwargs.pop("round")
    with pytest.raises(M.MovementError) as e:
        M.seat_round(players, rnd, **kwargs)
    assert e.value.code == code
    assert text in str(e.value)
    assert e.value.zh


# ---- `paizhuo movement` -------------------------------------------------------------------------------

def run(*args):
    return subprocess.run([PAIZHUO, "movement", *args], capture_output=True, text=True, timeout=60)


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_cli_round_one_then_round_two_from_standings_and_history(tmp_path):
    players = write(tmp_path, "players.json", ids(16))
    out = run("--round", "1", "--players", players, "--secret", SECRET.hex(), "--tables-per-group", "2")
    assert out.returncode == 0, out.stderr
    first = json.loads(out.stdout)
    assert first["round"] == 1 and len(first["tables"]) == 4 and len(first["players"]) == 16
    assert first == M.seat_round(ids(16), 1, secret=SECRET, tables_per_group=2).to_dict()
    history = write(tmp_path, "history.json", [first])
    ranking = write(tmp_path, "standings.json", {"players": standings(ids(16), [50.0] * 16)})
    out = run("--round", "2", "--players", players, "--standings", ranking, "--history", history,
              "--tables-per-group", "2")
    assert out.returncode == 0, out.stderr
    second = json.loads(out.stdout)
    assert second["round"] == 2 and second["method"] == "ranking"
    assert second["repeats"] == []  # all R equal: every repeat can be swapped away
    out = run("--round", "2", "--players", players, "--standings", ranking, "--format", "text")
    assert out.returncode == 0 and "table 1, East" in out.stdout and "第1桌 东家" in out.stdout


def test_cli_vs_ai_and_three_seats(tmp_path):
    players = write(tmp_path, "players.json", {"players": [{"id": 1}, {"id": 2}, {"id": 3}]})
    out = run("--round", "1", "--players", players, "--secret", "text:a secret of sixteen bytes or more", "--vs-ai", "--human-seat", "W",
              "--seats", "3")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["vs_ai"] and sorted(p["player"] for p in d["players"]) == [1, 2, 3]
    assert {p["seat"] for p in d["players"]} == {"W"}


@pytest.mark.parametrize("args,files,message", [
    (["--round", "1", "--players", "{dir}/missing.json", "--secret", "text:a secret of sixteen bytes or more"], {}, "missing.json: no such file"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more"], {"players": "[1, 2,"}, "not valid JSON"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more"], {"players": "{\"a\": 1}"}, "list of player ids"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more"], {"players": "[1, 1]"}, "listed twice"),
    (["--round", "1", "--players", "{players}"], {"players": "[1, 2]"}, "give the secret"),
    (["--round", "1", "--players", "{players}", "--secret", ""], {"players": "[1, 2]"}, "--secret: the secret is empty"),
    (["--round", "2", "--players", "{players}"], {"players": "[1, 2]"}, "give the standings"),
    (["--round", "2", "--players", "{players}", "--standings", "{standings}"],
     {"players": "[1, 2]", "standings": "[1, 1]"}, "ranked twice"),
    (["--round", "2", "--players", "{players}", "--standings", "{standings}", "--history", "{history}"],
     {"players": "[1, 2]", "standings": "[1, 2]", "history": "[[[1, 2, 1]]]"}, "seated twice"),
    (["--round", "x", "--players", "{players}"], {"players": "[1]"}, "--round must be a whole number from 1 to 999, not 'x'"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more", "--seats", "5"], {"players": "[1]"}, "4 (bigtwo, guandan) or 3 (paohuzi)"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more", "--tables-per-group", "0"], {"players": "[1]"},
     "at least 2"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more", "--vs-ai", "--human-seat", "Q"], {"players": "[1]"},
     "must be one of E, N, W, S"),
    (["--round", "1", "--players", "{players}", "--secret", "text:a secret of sixteen bytes or more", "--format", "xml"], {"players": "[1]"},
     "invalid choice: 'xml'"),
    (["--players", "{players}"], {"players": "[1]"}, "--round"),
])
def test_cli_refuses_bad_input(tmp_path, args, files, message):
    paths = {name: write(tmp_path, name + ".json", text) for name, text in files.items()}
    paths["dir"] = str(tmp_path)
    out = run(*[a.format(**paths) for a in args])
    assert out.returncode == 2, out.stdout
    assert message in out.stderr
    assert out.stdout == ""
