"""A pairs event end to end, as ``paizhuo demo --game <a match game>`` runs it: the ``paizhuo
venue`` process with its embedded broker and pages, and ``paizhuo hub`` processes whose bots play
every seat — every part a real process, every byte through the broker.  Five pairs at two
tables over two rounds: a bye each round, every match replayed and counted by the venue, the
next round paired when every match is in, standings by 场分 with the tie-break chain, hand
records with every deal of every match."""

import re
import subprocess
import sys

import pytest

from paizhuo import rules
from paizhuo.venue.store import Store

MATCH_AT_TABLE = sorted(g for g in rules.GAMES if rules.game(g).match and rules.game(g).at_table)
pytestmark = pytest.mark.skipif(not MATCH_AT_TABLE, reason="no match game is played at the table hubs yet")
PAIZHUO = [sys.executable, "-m", "paizhuo.cli"]


def test_the_demo_runs_a_pairs_event_of_bot_tables_through_hubs_broker_and_venue(tmp_path):
    out = subprocess.run(PAIZHUO + ["demo", "--game", MATCH_AT_TABLE[0], "--tables", "2", "--rounds", "2", "--out", "run"],
                         capture_output=True, text=True, timeout=400, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    text = out.stdout
    assert "pairs event" in text and "The event is complete" in text
    ranks = [int(r) for r in re.findall(r"^\s+(\d+)  S\d+\s", text, re.M)]
    assert len(ranks) == 5 and ranks[0] == 1 and ranks == sorted(ranks), text[-2000:]
    store = Store(str(tmp_path / "run" / "venue.sqlite"))
    try:
        assert [r["status"] for r in store.rounds("demo")] == ["closed", "closed"]
        byes = [m for m in store.matches("demo") if m.get("bye")]
        assert sorted(m["round"] for m in byes) == [1, 2] and byes[0]["a"] != byes[1]["a"]
        plays = store.plays("demo")
        assert len(plays) == 4 and all(p["record"]["record"]["match"] for p in plays)
        assert all(1 <= len(p["record"]["record"]["deals"]) <= 3 for p in plays)
        results = store.results("demo", include_held=True, detail=True)
        assert len(results) == 16 and {r["status"] for r in results} == {"ok"}, {r["status"] for r in results}
        # Round 2 paired from round 1's standings: no pair meets the same pair again.
        met = [{r["player"] for r in store.seating("demo", rnd) if r["table"] == t} for rnd in (1, 2) for t in ("1", "2")]
        assert len({frozenset(m) for m in met}) == 4
    finally:
        store.close()
    bad = subprocess.run(PAIZHUO + ["demo", "--format", "teams"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--format applies" in bad.stderr
