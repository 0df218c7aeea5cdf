"""The rules oracle, through the real `paizhuo` command: referees and conformance suites talk to it."""

import json
import os
import subprocess
import sys

import pytest

from paizhuo.rules import oracle

PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")


@pytest.fixture(scope="module")
def server():
    """One `paizhuo rules serve` process kept open, answering line by line (not at EOF)."""
    proc = subprocess.Popen([PAIZHUO, "rules", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)

    def ask(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    yield ask
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0


def req(**kw):
    return json.dumps(kw)


SEATS_FALSE = {"E": False, "N": False, "W": False, "S": False}


@pytest.mark.parametrize("request_, expected", [
    (req(op="classify", game="bigtwo", cards=["3D", "3S"]), {"ok": True, "kinds": ["pair"]}),
    (req(op="classify", game="bigtwo", cards=["3D", "4S"]), {"ok": True, "kinds": []}),
    (req(op="classify", game="bigtwo", cards=["TS", "JS", "QS", "KS", "AS"]), {"ok": True, "kinds": ["straight_flush"]}),
    (req(op="classify", game="bigtwo", cards=["JD", "QC", "KD", "AD", "2D"]), {"ok": True, "kinds": []}),
    (req(op="classify", game="bigtwo", cards=["2D", "3C", "4D", "5D", "6D"], rules={"straights": "no_two"}),
     {"ok": True, "kinds": []}),
    (req(op="beats", game="bigtwo", play=["2D"], over=["AS"]), {"ok": True, "beats": True}),
    (req(op="beats", game="bigtwo", play=["3D", "3S"], over=["2S"]), {"ok": True, "beats": False}),
    (req(op="beats", game="bigtwo", play=["2D", "3C", "4D", "5D", "6H"], over=["TS", "JS", "QS", "KS", "AH"]),
     {"ok": True, "beats": True}),
    (req(op="score", game="bigtwo",
         hands_left={"E": ["3D", "4D", "5D", "6D", "7D"], "N": ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"],
                     "W": [], "S": ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"]},
         shown=SEATS_FALSE, doubled={"E": True, "N": False, "W": False, "S": True}),
     {"ok": True, "points": {"E": 5, "N": 16, "W": 0, "S": 36}, "scores": {"E": 136, "N": 2, "W": 98, "S": -236}}),
])
def test_answers(server, request_, expected):
    assert server(request_) == expected


@pytest.mark.parametrize("line, fragment", [
    ("this is not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    (req(game="bigtwo", cards=["3D"]), "missing field 'op'"),
    (req(op="fly", game="bigtwo"), "unknown op 'fly'"),
    (req(op="classify", game="chess", cards=["3D"]), "unknown game 'chess'"),
    (req(op="classify", game="bigtwo", cards=["3D", "1Z"]), "'1Z' is not a card"),
    (req(op="classify", game="bigtwo", cards=["3D", "3D"]), "3D appears twice"),
    (req(op="classify", game="bigtwo", cards=["D3"]), "write the rank first, like '3D'"),
    (req(op="classify", game="bigtwo", cards=["RJ"]), "not a card of the 52-card Big Two deck"),
    (req(op="classify", game="bigtwo", cards="3D 3S"), "field 'cards' must be a list"),
    (req(op="classify", game="bigtwo", cards=["3D"], rules={"straights": "wrap"}), "straights must be one of"),
    (req(op="classify", game="bigtwo", cards=["3D"], rules={"jokers": True}), "unknown Big Two rule option 'jokers'"),
    (req(op="score", game="bigtwo", hands_left={"E": []}, shown=SEATS_FALSE, doubled=SEATS_FALSE),
     "exactly the seats E, N, W, S"),
    (req(op="score", game="bigtwo", hands_left={"E": ["3D"], "N": ["3D"], "W": [], "S": []}, shown=SEATS_FALSE,
         doubled=SEATS_FALSE), "3D is left in two hands"),
    (req(op="score", game="bigtwo", hands_left={"E": [], "N": [], "W": [], "S": []},
         shown={"E": "yes", "N": False, "W": False, "S": False}, doubled=SEATS_FALSE), "shown.E has a bad value"),
    ("x" * (oracle.MAX_LINE + 10), "longer than"),
    (req(op="score", game="bigtwo", hands_left={"E": ["3D"], "N": ["4D"], "W": ["5D"], "S": ["6D"]},
         shown=SEATS_FALSE, doubled=SEATS_FALSE), "exactly one seat with no cards left"),
    (req(op="replay", game="bigtwo", record=[1]), "field 'record' must be an object"),
])
def test_bad_requests_are_answered_and_the_server_carries_on(server, line, fragment):
    ans = server(line)
    assert ans["ok"] is False
    assert fragment in ans["error"]
    # The process is still serving after every bad line.
    assert server(req(op="classify", game="bigtwo", cards=["2S"])) == {"ok": True, "kinds": ["single"]}


def test_legal_op_lists_plays_in_order(server):
    ans = server(req(op="legal", game="bigtwo", hand=["3D", "3S", "4H", "5C", "6D", "7S"], over=["4D"]))
    assert ans["ok"]
    assert [p["cards"] for p in ans["plays"]] == [["4H"], ["5C"], ["6D"], ["7S"]]
    first = server(req(op="legal", game="bigtwo", hand=["3D", "3S", "4H"], first_play=True))
    assert [p["cards"] for p in first["plays"]] == [["3D"], ["3D", "3S"]]


def run(*args):
    return subprocess.run([PAIZHUO, *args], capture_output=True, text=True, timeout=30)


def test_one_shot_forms_for_people():
    out = run("rules", "classify", "bigtwo", "3D", "3S")
    assert out.returncode == 0 and json.loads(out.stdout) == {"ok": True, "kinds": ["pair"]}
    out = run("rules", "beats", "bigtwo", "--play", "2D", "--over", "AS")
    assert json.loads(out.stdout) == {"ok": True, "beats": True}
    out = run("rules", "score", "bigtwo", "--left", "E=3D 4D 5D 6D 7D", "--left", "N=3C 4C 5C 6C 7C 8C 9C TC",
              "--left", "W=", "--left", "S=3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "--doubled", "E", "S")
    assert json.loads(out.stdout)["scores"] == {"E": 136, "N": 2, "W": 98, "S": -236}


def test_one_shot_errors_exit_nonzero_with_a_message():
    out = run("rules", "classify", "bigtwo", "3D", "ZZ")
    assert out.returncode == 2 and "'ZZ' is not a card" in json.loads(out.stdout)["error"]
    out = run("rules", "score", "bigtwo", "--left", "E=3D")
    assert out.returncode != 0 and "missing N, W, S" in out.stderr
    out = run("rules", "score", "bigtwo", "--left", "Q=3D")
    assert out.returncode != 0 and "SEAT=CARDS" in out.stderr


def _finished_record():
    from paizhuo.bots.bigtwo import BigTwoBot
    from paizhuo.demo import seeded_deal
    from paizhuo.rules.bigtwo import BigTwo

    game = BigTwo(seeded_deal(3))
    bots = {s: BigTwoBot(i) for i, s in enumerate("ENWS")}
    while game.phase != "over":
        seat = game.to_act()[0]
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions(seat)))
    return game


def test_replay_op_recomputes_a_logged_deal(server):
    game = _finished_record()
    record = game.record()
    ans = server(json.dumps({"op": "replay", "game": "bigtwo", "record": record}))
    assert ans["ok"] and ans["phase"] == "over"
    assert ans["result"]["scores"] == game.result().scores
    partial = dict(record, actions=record["actions"][:10])
    ans = server(json.dumps({"op": "replay", "game": "bigtwo", "record": partial}))
    assert ans["ok"] and ans["phase"] == "play" and ans["actions"] == 10 and len(ans["to_act"]) == 1


def test_replay_op_names_the_illegal_action(server):
    record = _finished_record().record()
    bad = dict(record, actions=list(record["actions"]))
    bad["actions"][12] = {"type": "pass", "seat": "E"} if bad["actions"][12]["seat"] != "E" else {"type": "pass", "seat": "N"}
    ans = server(json.dumps({"op": "replay", "game": "bigtwo", "record": bad}))
    assert ans["ok"] is False and ans["error"].startswith("action 12: ") and ans["code"] == "not_your_turn"
    ans = server(json.dumps({"op": "replay", "game": "bigtwo", "record": {"game": "bigtwo"}}))
    assert ans["ok"] is False and "no \"deal\"" in ans["error"]
    ans = server(json.dumps({"op": "replay", "game": "bigtwo", "record": dict(record, actions="all")}))
    assert ans["ok"] is False and "must be a list" in ans["error"]


# ---- Guandan ------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from paizhuo_shared import guandan as gd  # noqa: E402

FH_OR_BOMB = ["3S", "3D", "3C", "5H", "5H"]  # level 5: 三带对 of 3s with a wild pair, or a 5-card bomb
STRAIGHT_8 = ["4S", "5S", "6S", "7S", "8D"]
STRAIGHT_567 = ["3S", "4D", "5C", "2H", "2H"]  # level 2: 23456... A2345, 23456 or 34567


def gd_req(op, level="5", **kw):
    return req(op=op, game="guandan", level=level, **kw)


@pytest.mark.parametrize("request_, expected", [
    (gd_req("classify", cards=["3H", "4H", "5H", "6H", "7H"]), {"ok": True, "kinds": ["straight", "straight_flush"]}),
    (gd_req("classify", cards=FH_OR_BOMB), {"ok": True, "kinds": ["full_house", "bomb"]}),
    (gd_req("classify", level="2", cards=STRAIGHT_567), {"ok": True, "kinds": ["straight"]}),
    (gd_req("classify", cards=["BJ", "BJ", "RJ", "RJ"]), {"ok": True, "kinds": ["joker_bomb"]}),
    (gd_req("classify", cards=["JD", "QD", "KS", "AS", "2C"]), {"ok": True, "kinds": []}),
    (gd_req("classify", level="10", cards=["TH", "TH"]), {"ok": True, "kinds": ["pair"]}),
    (gd_req("classify", cards=["3D", "3D", "4D", "4D", "5D", "5D"]), {"ok": True, "kinds": ["pair_run"]}),
    (gd_req("classify", cards=["3D", "3D", "3C", "4D", "4D", "4S"]), {"ok": True, "kinds": ["triple_run"]}),
    # the kinds of the play agree (a 三带对 over a lower one, and a bomb too): no kind needed
    (gd_req("beats", play=FH_OR_BOMB, over=["2S", "2D", "2C", "4S", "4D"]), {"ok": True, "beats": True}),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind="bomb"), {"ok": True, "beats": True}),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind="full_house"), {"ok": True, "beats": False}),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind="bomb:3"), {"ok": True, "beats": True}),
    # within one kind the player declares the rank: any meaning that beats will do
    (gd_req("beats", level="2", play=STRAIGHT_567, over=["2S", "3D", "4C", "5C", "6D"]), {"ok": True, "beats": True}),
    (gd_req("beats", level="2", play=["4S", "5D", "6C", "7C", "8C"], over=STRAIGHT_567), {"ok": True, "beats": True}),
    (gd_req("beats", level="2", play=["3D", "4C", "5S", "6S", "7S"], over=STRAIGHT_567, over_kind="straight:6"),
     {"ok": True, "beats": True}),
    (gd_req("beats", level="2", play=["3D", "4C", "5S", "6S", "7S"], over=STRAIGHT_567, over_kind="straight:7"),
     {"ok": True, "beats": False}),
    (gd_req("beats", play=["BJ", "BJ", "RJ", "RJ"], over=["3H", "4H", "5H", "6H", "7H"], over_kind="straight_flush"),
     {"ok": True, "beats": True}),
    (gd_req("beats", play=["5S", "5S"], over=["AS", "AS"]), {"ok": True, "beats": True}),  # the level pair
    (gd_req("beats", level="6", play=["5S", "5S"], over=["AS", "AS"]), {"ok": True, "beats": False}),
])
def test_guandan_answers(server, request_, expected):
    assert server(request_) == expected


@pytest.mark.parametrize("line, code, fragment", [
    (req(op="classify", game="guandan", cards=["3D"]), "missing_level", "missing field 'level'"),
    (gd_req("classify", level="1", cards=["3D"]), "bad_level", "level must be a rank"),
    (gd_req("classify", level=5, cards=["3D"]), "bad_level", "level must be a rank"),
    (gd_req("classify", level="", cards=["3D"]), "bad_level", "level must be a rank"),
    (gd_req("classify", level="TJ", cards=["3D"]), "bad_level", "level must be a rank"),
    (gd_req("classify", cards=["3D", "1Z"]), "invalid_card", "'1Z' is not a card"),
    (gd_req("classify", cards=["3D", "3D", "3D"]), "duplicate_card", "3D appears 3 times"),
    (gd_req("classify", cards="3D 3S"), "bad_field", "must be a list"),
    (gd_req("classify", cards=["3D"] * 28), "too_many_cards", "at most 27"),
    (gd_req("classify", cards=["3D"], rules={"wild_breaks_flush": "yes"}), "bad_rules", "wild_breaks_flush"),
    (gd_req("classify", cards=["3D"], rules={"level": "7"}), "bad_rules", "give the level once"),
    (gd_req("classify", cards=["3D"], rules=[1]), "bad_rules", "must be an object"),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8), "ambiguous_play", "say which with \"play_kind\""),
    (gd_req("beats", level="2", play=["3D", "4C", "5S", "6S", "7S"], over=STRAIGHT_567), "ambiguous_over",
     "say which with \"over_kind\""),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind="fly"), "unknown_kind", "unknown kind 'fly'"),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind=7), "unknown_kind", "must be a kind"),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind="pair"), "kind_not_formed", "no pair"),
    (gd_req("beats", play=FH_OR_BOMB, over=STRAIGHT_8, play_kind="bomb:4"), "kind_not_formed", "no bomb:4"),
    (gd_req("beats", play=["3D", "4S"], over=STRAIGHT_8), "not_a_play", "3D 4S is no play"),
    (gd_req("beats", play=[], over=STRAIGHT_8), "not_a_play", "is no play"),
    (gd_req("beats", over=STRAIGHT_8), "missing_field", "missing field 'play'"),
    (gd_req("legal", hand=["3D", "3S", "5H"], over=FH_OR_BOMB), "ambiguous_over", "over_kind"),
    (gd_req("score", hand=["3D"]), "unknown_op", "Guandan has no op 'score'"),
])
def test_guandan_refusals_have_code_and_both_languages(server, line, code, fragment):
    ans = server(line)
    assert ans["ok"] is False and ans["code"] == code, ans
    assert fragment in ans["en"] and ans["error"] == ans["en"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in ans["zh"]), ans["zh"]
    assert server(gd_req("classify", cards=["2S"])) == {"ok": True, "kinds": ["single"]}


def test_guandan_legal_lists_every_play_with_its_meaning(server):
    hand = ["3S", "4D", "5C", "6C", "7C", "2H", "2H"]
    ans = server(gd_req("legal", level="2", hand=hand))
    rules = gd.Rules(level="2")
    expected = [p.to_dict() for p in gd.plays(gd.cards(hand), rules)]
    assert ans == {"ok": True, "plays": expected}
    names = {(tuple(p["cards"]), p["kind"], p["rank"]) for p in ans["plays"]}
    assert (("3S", "4D", "5C", "2H", "2H"), "straight", "5") in names  # A2345: wild cards as A and 2
    over = server(gd_req("legal", level="2", hand=hand, over=STRAIGHT_567, over_kind="straight:6"))
    assert over["ok"] and {p["kind"] for p in over["plays"]} == {"straight", "straight_flush"}
    assert {p["rank"] for p in over["plays"] if p["kind"] == "straight"} == {"7", "8", "9"}
    bomb = server(gd_req("legal", level="2", hand=hand, over=["9S", "9S", "9D", "9D"]))
    # over a bomb only the 同花顺 of clubs made with the wild cards (3C 4C … or … 8C 9C)
    assert bomb["ok"] and {p["kind"] for p in bomb["plays"]} == {"straight_flush"}


def test_guandan_one_shot_forms():
    out = run("rules", "classify", "guandan", "3H", "4H", "5H", "6H", "7H", "--level", "5")
    assert out.returncode == 0 and json.loads(out.stdout) == {"ok": True, "kinds": ["straight", "straight_flush"]}
    out = run("rules", "beats", "guandan", "--level", "5", "--play", *FH_OR_BOMB, "--over", *STRAIGHT_8,
              "--play-kind", "bomb")
    assert out.returncode == 0 and json.loads(out.stdout) == {"ok": True, "beats": True}
    out = run("rules", "beats", "guandan", "--level", "5", "--play", *FH_OR_BOMB, "--over", *STRAIGHT_8)
    assert out.returncode == 2 and json.loads(out.stdout)["code"] == "ambiguous_play"
    out = run("rules", "legal", "guandan", "3S", "3D", "--over", "2S", "--level", "5")
    assert out.returncode == 0 and sorted(p["cards"] for p in json.loads(out.stdout)["plays"]) == [["3D"], ["3S"]]
    out = run("rules", "classify", "guandan", "3H")
    assert out.returncode == 2 and json.loads(out.stdout)["code"] == "missing_level"


JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-60, 60) | st.text(max_size=4)
                       | st.sampled_from(["3D", "5H", "RJ", "BJ", "TS", "10", "5", "bomb", "straight:7"]),
                       lambda kids: st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
                       max_leaves=20)
CARD = st.sampled_from(["3D", "3S", "4H", "5H", "6C", "7D", "BJ", "RJ", "AS", "2H", "TS"]) | JSONISH


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(["classify", "beats", "legal", "score", "replay", 3]),
       level=st.sampled_from(["2", "5", "10", "A", "a", "1", "", 5, None]) | JSONISH,
       fields=st.dictionaries(st.sampled_from(["cards", "play", "over", "hand", "play_kind", "over_kind", "rules"]),
                              st.lists(CARD, max_size=8) | JSONISH, max_size=5))
def test_guandan_hostile_requests_are_answered_never_raised(op, level, fields):
    request = dict(fields, op=op, game="guandan", level=level)
    ans = oracle.answer(request)
    assert ans["ok"] in (True, False)
    if not ans["ok"]:
        assert ans["code"] and ans["en"] and ans["zh"] and ans["error"] == ans["en"]
    # Through the serve protocol the safe-input checks come first (a NUL in a text is refused
    # there); otherwise the answer is the same.
    line = json.loads(oracle.answer_line(json.dumps(request)))
    assert line == ans or (line["ok"] is False and line["code"] and line["en"] and line["zh"])
