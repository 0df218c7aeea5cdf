"""End to end: the ``paizhuo hub`` process and four seat boards running the real firmware
under ``micropython`` (the unix port) on pty serial links.  Every move is a simulated touch
on a seat's screen — the bots tap cards and buttons — never a call into the engine: a deal
of Big Two, and a match of Guandan whose second deal opens with a tribute and a return.

What a player, a referee and staff would notice: the deal is played through; the scores the
hub logged are the engine's replay of the log; the seats' screens are the same pictures
every time the same deal is played the same way; a hub that loses power mid-deal comes back
to the same deal and the seats carry on; a pulled cable is plugged back in and play goes
on; a seat board that dies is played by the bot (托管) and those moves are marked automatic.
"""

import os
import signal
import time

import pytest
from PIL import Image

from paizhuo import rules
from paizhuo.rules.bigtwo import BigTwo
from paizhuo.sim import firmware as firmware_
from paizhuo.sim.links import PtyLink
from paizhuo.sim.table import SimTable
from paizhuo.table import config as config_
from paizhuo.table.history import audit
from paizhuo.table.results import ResultsError, rows_from_log
from paizhuo.venue.scoring import standings

pytestmark = pytest.mark.micropython

SEATS = ("E", "N", "W", "S")


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return firmware_.build(tmp_path_factory.mktemp("firmware"))


def actions(table):
    return [e.body for e in table.entries() if e.kind == "action"]


def replayed_scores(table):
    """The scores the engine computes from the logged deal and actions alone."""
    start = next(e.body for e in table.entries() if e.kind == "deal_start")
    record = dict(start["engine"], actions=[a["action"] for a in actions(table)])
    return BigTwo.from_record(record).result().scores


def test_a_deal_played_by_touch_on_four_firmware_seats(tmp_path, fw):
    shots = {}
    players = {"E": ("P001", "张伟"), "N": ("P002", "王芳"), "W": ("P003", "李娜"), "S": ("P004", "刘洋")}
    with SimTable(tmp_path / "t", boards="1", secret="e2e one, a long enough secret", firmware=fw, players=players) as table:
        table.start()

        def moment(name, seats):
            for seat in seats:
                shots[name, seat] = table.screenshot(seat, tmp_path / "shots" / ("%s-%s.png" % (name, seat)))

        history = table.play(seed=7, on_moment=moment)
        for sp in table.seats.values():
            sp.wait_screen("result", timeout=10)
        taps = {s: sum(1 for line in sp.lines if line.startswith("tap ")) for s, sp in table.seats.items()}
        mem = {s: sp.mem for s, sp in table.seats.items()}

    logged = actions(table)
    # Every decision entered as a touch on a seat board: none by the clock or the bot.
    assert logged and all(a["by"] == "seat" and not a["action"].get("auto") for a in logged)
    per_seat = {s: sum(1 for a in logged if a["action"]["seat"] == s) for s in SEATS}
    for s in SEATS:  # at least one tap per decision (a play of n cards takes n + 1)
        assert taps[s] >= per_seat[s] > 0
    # The logged result is the engine's replay of the logged actions, and the log verifies.
    result = history.played[0].result["result"]
    assert result["scores"] == replayed_scores(table)
    assert sum(result["scores"].values()) == 0
    assert all(t >= 0 for t in result["think_ms"].values())
    report = audit(str(table.log_path))
    assert report.ok, str(report)
    # Screenshots: every seat at every key moment, real 480×320 pictures, and each seat's own
    # picture (its own hand), so no two seats' screens are the same at one moment.
    moments = {name for name, _ in shots}
    assert {"show", "double", "play", "result"} <= moments
    for (name, seat), (path, digest) in shots.items():
        with Image.open(path) as img:
            assert img.size == (480, 320)
    for name in moments:
        digests = [shots[name, s][1] for s in SEATS]
        assert len(set(digests)) == 4, name
    # The boards ran inside their data heap (the firmware reports its low-water mark).
    for s, m in mem.items():
        assert m is not None and m[1] > 0, (s, m)
    # What the venue scores: one row per seat, owned by the seated player, with the deal hash;
    # exporting twice gives the same rows (same result ids), and the rows score.
    cfg = config_.load(str(table.config_path))
    rows = rows_from_log(str(table.log_path), cfg)
    assert rows == rows_from_log(str(table.log_path), cfg)
    assert {(r["seat"], r["player"], r["score"]) for r in rows} == {
        (s, players[s][0], result["scores"][s]) for s in SEATS}
    assert len({r["result_id"] for r in rows}) == 4
    assert {r["deal_hash"] for r in rows} == {history.played[0].deal_hash}
    assert len(standings(rows).to_dict()["players"]) == 4


def test_the_same_deal_played_the_same_way_gives_the_same_screens(tmp_path, fw):
    """Fixed scenes have fixed pictures: the frame hashes (raw frame bytes, not PNG) of every
    seat at the first play and at the result are equal across two runs of the same deal."""
    runs = []
    for run in range(2):
        hashes = {}
        with SimTable(tmp_path / ("run%d" % run), boards="1", secret="e2e same, a long enough secret", firmware=fw) as table:
            table.start()

            def moment(name, seats, table=table, hashes=hashes):
                if name in ("play", "result"):
                    for seat in seats:
                        hashes[name, seat] = table.screenshot(seat, tmp_path / ("r%d-%s-%s.png" % (run, name, seat)))[1]

            table.play(seed=11, on_moment=moment)
        runs.append(hashes)
    assert set(runs[0]) == {(m, s) for m in ("play", "result") for s in SEATS}
    assert runs[0] == runs[1]


def test_hub_killed_mid_deal_comes_back_and_the_firmware_seats_carry_on(tmp_path, fw):
    with SimTable(tmp_path / "t", boards="1", secret="e2e crash, a long enough secret", firmware=fw) as table:
        table.start()
        table.play(seed=5, until_actions=20)
        before = actions(table)
        marks = {s: sp.mark() for s, sp in table.seats.items()}
        table.kill_hub(signal.SIGKILL)  # a power cut: no clean shutdown
        time.sleep(1.0)
        table.start_hub()
        table.wait_linked(after=marks)  # every board made a new session with the new hub
        for s, sp in table.seats.items():
            sp.wait_line("link up", after=marks[s])
        history = table.play(seed=5)
    after = actions(table)
    assert after[:len(before)] == before  # nothing accepted was lost or changed
    assert len(after) > len(before)
    assert all(a["by"] == "seat" for a in after)
    starts = [e.body for e in table.entries() if e.kind == "hub_start"]
    assert len(starts) == 2 and starts[1]["resumed"] is not None
    assert history.played[0].result["result"]["scores"] == replayed_scores(table)
    assert audit(str(table.log_path)).ok


def test_a_pulled_cable_is_plugged_back_and_play_goes_on(tmp_path, fw):
    with SimTable(tmp_path / "t", boards="1", secret="e2e cable, a long enough secret", firmware=fw,
                  clock={"offline_seconds": 2}) as table:
        table.start()
        table.play(seed=3, until_actions=12)
        sp = table.seats["W"]
        mark = sp.mark()
        table.links["W"].close()  # the USB cable is pulled ...
        time.sleep(1.0)
        table.links["W"] = PtyLink(str(table.folder / "links"), "W")  # ... and plugged back in
        sp.wait_line("link up", after=mark, timeout=20)
        history = table.play(seed=3)
    assert "Traceback" not in table.hub_text()  # a pulled cable is an event, not a crash
    with pytest.raises(ResultsError) as refused:  # no [players]: nobody owns these results
        rows_from_log(str(table.log_path), config_.load(str(table.config_path)))
    assert refused.value.code == "no_player"
    seat_events = [(e.body["seat"], e.body["online"]) for e in table.entries() if e.kind == "seat"]
    assert ("W", False) in seat_events
    assert seat_events[-1] == ("W", True)
    assert all(a["by"] == "seat" for a in actions(table))  # W came back in time: no 托管
    assert history.played[0].result["result"]["scores"] == replayed_scores(table)


def test_a_seat_board_that_dies_is_played_by_the_bot(tmp_path, fw):
    with SimTable(tmp_path / "t", boards="1", secret="e2e dead, a long enough secret", firmware=fw,
                  clock={"offline_seconds": 1, "grace_seconds": 1}) as table:
        table.start()
        table.play(seed=9, until_actions=8)
        table.seats["S"].kill()  # the board's power fails and it never returns
        history = table.play(seed=9, timeout=180)
    logged = actions(table)
    later = logged[8:]
    south = [a for a in later if a["action"]["seat"] == "S"]
    assert south, "S had to act after its board died"
    assert all(a["action"].get("auto") and a["by"] in ("bot", "clock") for a in south)
    assert all(a["by"] == "seat" for a in later if a["action"]["seat"] != "S")
    assert history.played[0].result["result"]["auto_moves"]["S"] == len(south)
    assert history.played[0].result["result"]["scores"] == replayed_scores(table)


# ---- a Guandan match by touch ------------------------------------------------------------------
# Two deals (``max_deals = 2``), so the second opens with a tribute and a return: given on the
# seats (the card, then 进贡/还牌), like every other decision of the match.

GUANDAN = rules.game("guandan")
# Found by search (the bots are seeded, so the same deals give the same match): deal 1 ends with
# N and S last, so deal 2 has a double tribute (N and S pay, E and W return), not a 抗贡.
GD_SECRET = "gd e2e 11, a long enough secret"
GD_MARGIN = 8 * 1024  # the firmware's heap margin, for every game (tests/test_firmware_guandan.py)


def replayed_match(entries, max_deals):
    """The match the engine makes of the log alone: each deal's cards from its start entry, its
    setup (levels, tribute) from the match, then every logged action of that deal."""
    board = GUANDAN.new_board(GUANDAN.engine.Rules(max_deals=max_deals))
    state = None
    for e in entries:
        if e.kind == "deal_start":
            state = board.start(GUANDAN.engine.Deal.from_dict(e.body["engine"]["deal"]))
        elif e.kind == "action":
            state.apply(GUANDAN.engine.Action.from_dict(e.body["action"]))
        elif e.kind == "deal_end":
            board.finish(state)
    return board


def test_a_guandan_match_with_a_tribute_is_played_by_touch_on_four_firmware_seats(tmp_path, fw):
    with SimTable(tmp_path / "t", boards="1", secret=GD_SECRET, firmware=fw, game="guandan",
                  rules={"max_deals": 2}, clock={"next_deal_seconds": 0.3}) as table:
        table.start()
        history = table.play(seed=1, timeout=120)
        (result,) = [e.body for e in table.entries() if e.kind == "result"]
        res = result["result"]
        # Every seat ends the match on its result: 比赛结束 and the winning side (the hub's
        # result message follows the last deal's events, and next_deal_seconds later the hub
        # puts the seats on its waiting screen: the result screen they showed is what counts).
        over = "比赛结束" + ("  %s胜" % {"EW": "东西", "NS": "南北"}[res["winner"]] if res["winner"] else "")
        finals = {s: sp.wait_for(lambda o: next((u for u in reversed(o.screens)
                                                 if u["screen"] == "result" and over in u["text"]), None),
                                 10, "the match's result on the screen") for s, sp in table.seats.items()}
        # Then the table has played its boards: each seat says so, not "the deal starts soon".
        for sp in table.seats.values():
            sp.wait_screen("waiting", timeout=10, where=lambda u: "本轮在本桌已全部打完" in u["text"])
        lines = {s: list(sp.lines) for s, sp in table.seats.items()}
        mem = {s: sp.mem for s, sp in table.seats.items()}
    entries = table.entries()
    actions = [e.body for e in entries if e.kind == "action"]
    # Every decision of the match came from a touch on a seat: none by the clock or 托管.
    assert actions and all(a["by"] == "seat" and not a["action"].get("auto") for a in actions), [
        a for a in actions if a["by"] != "seat" or a["action"].get("auto")]
    starts = [e.body for e in entries if e.kind == "deal_start"]
    ends = [e.body for e in entries if e.kind == "deal_end"]
    assert [b["n"] for b in starts] == [1, 2] and [b["n"] for b in ends] == [1, 2]
    # Deal 2 opened with a real tribute (not 抗贡), given and returned on the seats.
    second = ends[1]["result"]
    assert second["anti_tribute"] is False and second["tributes"], second
    gives = [a for a in actions if a["action"]["type"] in ("tribute", "return")]
    payers = {t["from"] for t in second["tributes"]}
    receivers = {t["to"] for t in second["tributes"]}
    assert sorted((a["action"]["type"], a["action"]["seat"]) for a in gives) == sorted(
        [("tribute", s) for s in payers] + [("return", s) for s in receivers])
    for t in second["tributes"]:
        for kind, seat, card in (("tribute", t["from"], t["card"]), ("return", t["to"], t["returned"])):
            assert {"type": kind, "seat": seat, "cards": [card]}.items() <= next(
                a["action"] for a in gives if a["action"]["seat"] == seat).items()
            # on the seat: the card tapped, then 进贡/还牌 (btn:give) sent the intent
            seat_lines = lines[seat]
            i = next(i for i, x in enumerate(seat_lines) if x.startswith("intent ") and x.endswith(" " + kind))
            assert next(x for x in seat_lines[i:] if x.startswith("tap ")).endswith(" btn:give")
            assert any(x.endswith(" card:" + card) for x in seat_lines[:i] if x.startswith("tap "))
    # The match result the hub logged is the engine's replay of the logged deals and actions.
    board = replayed_match(entries, 2)
    assert board.over and board.result() == res == history.played[0].result["result"]
    assert res["deals"] == 2 and [e["result"]["places"] for e in ends] == [r["places"] for r in board.results]
    # ... and the seats show it: the last deal's places and both sides' final levels.
    levels = "东西 %s · 南北 %s" % (res["levels"]["EW"], res["levels"]["NS"])
    names = {"E": "东家", "N": "北家", "W": "西家", "S": "南家"}
    for seat, ui in finals.items():
        shown = ui["text"]
        assert any(x.startswith("本副结果") for x in shown) and levels in shown, (seat, shown)
        for place, s in zip(("上游", "二游", "三游", "下游"), second["places"]):
            assert any(x.startswith("%s  %s" % (place, names[s])) for x in shown), (seat, place, shown)
    # The boards played the match inside their data heap, with the margin kept (measured: 9.1-9.5 KB).
    for seat, m in mem.items():
        assert m is not None and m[1] >= GD_MARGIN, (seat, m)


# ---- a Paohuzi deal by touch on three seats ----------------------------------------------------
# Every decision tapped: the discards (the card, then 出牌), 胡 碰 吃 过 on the card out, and the
# 吃 chooser with its 比牌 groups.

PAOHUZI = rules.game("paohuzi")
# Found by search (the bots are seeded, so the same deal is played the same way): two 吃 through
# the chooser, two 碰, a 过, and N's 胡 on its own turned card (自摸).
PZ_SECRET = "pz e2e 55, a long enough secret"


def test_a_paohuzi_deal_is_played_by_touch_on_three_firmware_seats(tmp_path, fw):
    t0 = time.monotonic()
    with SimTable(tmp_path / "t", boards="1", secret=PZ_SECRET, firmware=fw, game="paohuzi") as table:
        table.start()
        history = table.play(seed=1, timeout=90)
        (result,) = [e.body for e in table.entries() if e.kind == "result"]
        res = result["result"]
        finals = {s: sp.wait_for(lambda o: next((u for u in reversed(o.screens) if u["screen"] == "result"), None),
                                 10, "the deal's result on the screen") for s, sp in table.seats.items()}
        lines = {s: list(sp.lines) for s, sp in table.seats.items()}
        mem = {s: sp.mem for s, sp in table.seats.items()}
    took = time.monotonic() - t0
    assert set(table.seats) == set(PAOHUZI.seats)
    entries = table.entries()
    logged = [e.body for e in entries if e.kind == "action"]
    # Every decision came from a touch on a seat: none by the clock or 托管.
    assert logged and all(a["by"] == "seat" and not a["action"].get("auto") for a in logged), [
        a for a in logged if a["by"] != "seat" or a["action"].get("auto")]
    kinds = [a["action"]["type"] for a in logged]
    assert {"discard", "chi", "peng", "pass", "hu"} <= set(kinds), kinds
    # The logged result is the engine's replay of the logged deal and actions.
    start = next(e.body for e in entries if e.kind == "deal_start")
    replay = PAOHUZI.state.from_record(dict(start["engine"], actions=[a["action"] for a in logged]))
    assert replay.phase == PAOHUZI.engine.OVER
    assert replay.result().to_dict() == res == history.played[0].result["result"]
    assert res["winner"] and sum(res["scores"].values()) == 0
    assert audit(str(table.log_path)).ok
    # On the seats, in order: every decision's button, each discard's card before it, and each
    # 吃 of several ways (or with 比牌) its way on the chooser, numbered as the view offered it.
    taps = {s: [x.split()[3] for x in ls if x.startswith("tap ")] for s, ls in lines.items()}
    step = PAOHUZI.state.from_record(dict(start["engine"], actions=[]))
    want = {s: [] for s in PAOHUZI.seats}
    settled = 0  # claims that one seat's decision settled while another asked seat had not answered
    for a in logged:
        act = PAOHUZI.engine.Action.from_dict(a["action"])
        asked = [s for s in step.to_act() if s != act.seat] if step.phase == "claim" else []
        if act.type == "discard":
            want[act.seat] += ["card:%s@" % a["action"]["card"], "btn:discard"]
        else:
            want[act.seat].append("btn:claim_" + act.type)
            ways = step.view(act.seat)["may"]["chi"] if act.type == "chi" else []
            if len(ways) > 1 or (ways and len(ways[0]) > 1):
                want[act.seat].append("chi:choice%d" % [PAOHUZI.engine.Action.from_dict(
                    {"type": "chi", "seat": act.seat, "groups": w}) for w in ways].index(act))
        step.apply(act)
        settled += bool(asked) and not any(s in step.to_act() for s in asked)
    assert settled, "no claim was settled before every asked seat answered"
    for s in PAOHUZI.seats:  # (a tap the seat ignored, its state having moved on, is made again)
        got = _runs([t if not t.startswith("card:") else t[:t.index("@") + 1] for t in taps[s]])
        assert got == _runs(want[s]), (s, got, want[s])  # none missed, none more
    assert any(t.startswith("chi:choice") for ts in taps.values() for t in ts)
    # Each seat ends on the result screen, with the three scores.
    for seat, ui in finals.items():
        assert all(any(x.endswith(" " + str(res["scores"][s])) or x == str(res["scores"][s]) for x in ui["text"])
                   for s in PAOHUZI.seats), (seat, ui["text"])
    # The boards played inside their data heap, with the margin every game keeps.
    for seat, m in mem.items():
        assert m is not None and m[1] >= GD_MARGIN, (seat, m)
    print("paohuzi by touch: %d decisions in %.1f s, heap low %s" % (len(logged), took, mem))


def _runs(xs):
    """``xs`` with each run of equal items as one."""
    return [x for i, x in enumerate(xs) if i == 0 or xs[i - 1] != x]
