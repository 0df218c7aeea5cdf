"""A three-seat individual event end to end, as ``paizhuo demo --game <the three-seat game>``
runs it: the ``paizhuo venue`` process with its embedded broker and pages, and three ``paizhuo
hub`` processes — table 1's with three firmware seats whose simulated players check in on the
keypad and play by touch (when they can touch the game's actions, ``sim.table.can_touch``), the
others' bots playing every seat — every byte through the broker.  Nine players at three tables over two
rounds of two boards: every result replayed and counted by the venue, MP per seat over the
three tables of the group, round 2 seated by the three-seat snake from round 1's ranking,
standings, and hand records with three seats."""

import json
import re
import subprocess
import sys
from fractions import Fraction

import pytest

from paizhuo import rules
from paizhuo.venue.store import Store

THREE = sorted(g for g in rules.GAMES if len(rules.game(g).seats) == 3 and rules.game(g).at_table)
pytestmark = pytest.mark.skipif(not THREE, reason="no three-seat game is played at the table hubs yet")
PAIZHUO = [sys.executable, "-m", "paizhuo.cli"]


def test_a_three_seat_individual_event_runs_through_hubs_broker_and_venue_to_standings(tmp_path):
    game = THREE[0]
    seats = rules.game(game).seats
    out = subprocess.run(PAIZHUO + ["demo", "--game", game, "--tables", "3", "--rounds", "2", "--boards", "2",
                                    "--out", "run"], capture_output=True, text=True, timeout=400, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    text = out.stdout
    assert "The event is complete" in text and "bots play all 3 seats" in text
    from paizhuo.sim.table import can_touch
    touched = can_touch(game)
    assert ("table 1: the hub and 3 seat boards" in text) == touched
    assert len(re.findall(r"table 1 \S+ [ENW]: .* typed player number \d+ on the seat's keypad", text)) == (
        6 if touched else 0)
    ranks = [int(r) for r in re.findall(r"^\s+(\d+)  P\d+\s", text, re.M)]
    assert len(ranks) == 9 and ranks[0] == 1 and ranks == sorted(ranks), text[-2000:]
    run = tmp_path / "run"
    store = Store(str(run / "venue.sqlite"))
    try:
        assert [r["status"] for r in store.rounds("demo")] == ["closed", "closed"]
        results = store.results("demo", include_held=True, detail=True)
        # 2 rounds x 2 boards x 3 tables x 3 seats, every one replayed by the venue and counted
        assert len(results) == 36 and {r["status"] for r in results} == {"ok"}
        assert {r["seat"] for r in results} == set(seats)
        for rnd in (1, 2):
            seating = store.seating("demo", rnd)
            assert len(seating) == 9 and sorted({r["seat"] for r in seating}) == sorted(seats)
        r2 = {(r["table"], r["seat"]): r["player"] for r in store.seating("demo", 2)}
    finally:
        store.close()
    st = json.loads((run / "records" / "standings.json").read_text(encoding="utf-8"))
    players = {p["player"]: p for p in st["players"]}
    assert len(players) == 9
    for p in players.values():  # each deal is compared with the two others who held that seat: top 2(3 - 1) = 4
        assert len(p["boards"]) == 4 and all(b["top"] == 4 and b["results"] == 3 for b in p["boards"].values())
        assert {b["seat"] for b in p["boards"].values()} <= set(seats)
    # Round 2 by the snake (RULES.md, 3-seat games drop S): ranks 1..3 sit E at tables 1..3, 4..6 N at
    # tables 3..1, 7..9 W at tables 1..3, up to swaps of players of equal R (round 1's R).
    r1 = {pid: sum(Fraction(b["rate_exact"]) for k, b in p["boards"].items() if b["round"] == 1) / 2
          for pid, p in players.items()}
    ranking = sorted(r1, key=lambda pid: -r1[pid])
    snake = {}
    for k, pid in enumerate(ranking):
        row, i = divmod(k, 3)
        snake[(str(i + 1 if row % 2 == 0 else 3 - i), seats[row])] = pid
    assert sorted(snake) == sorted(r2)
    assert all(r1[r2[place]] == r1[pid] for place, pid in snake.items()), (snake, r2, r1)
    # The hand records: three hands, the card turned up and the stock, three seats' rows, no S.
    rec = json.loads((run / "records" / "round-1.json").read_text(encoding="utf-8"))
    for d in rec["deals"]:
        assert sorted(d["deal"]["hands"]) == sorted(seats) and d["deal"]["extra"]["stock"]
        assert len(d["tables"]) == 3 and all(t["same_deal"] for t in d["tables"])
        assert all(sorted(row["seat"] for row in t["rows"]) == sorted(seats) for t in d["tables"])
    page = (run / "records" / "round-1.html").read_text(encoding="utf-8")
    assert "南 South" not in page and "亮张 shown" in page and "打出 discard" in page
    verify = subprocess.run(PAIZHUO + ["hub", "verify", "--log", str(run / "table-1" / "table.sqlite")],
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and "all match" in verify.stdout, verify.stdout + verify.stderr
    if touched:  # table 1's every decision a touch on its seat boards: none by the clock or 托管
        from paizhuo.table import eventlog
        db = eventlog.open_readonly(str(run / "table-1" / "table.sqlite"))
        try:
            acts = [e.body for e in eventlog.read_entries(db, "1", None) if e.kind == "action"]
        finally:
            db.close()
        assert acts and all(a["by"] == "seat" and not a["action"].get("auto") for a in acts)
