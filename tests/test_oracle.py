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
    ("this is not json", "not JSON"),
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
