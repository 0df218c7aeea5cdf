"""Benchmark: Guandan Swiss pairing (积分编排) and match standings for large fields, and the venue
store's result intake.  Picked up by tests/bench/run.py; run alone with
``python tests/bench/bench_guandan.py [--quick]``.

The event is simulated deterministically: each round is paired from the standings, every match
gets random final levels (2..A+), so the field has many equal scores and the tie-break chain
and the no-repeat search both have work.
"""

import os
import random
import sys
import tempfile
import time

from paizhuo.venue.matches import MatchResult, pair_round, standings
from paizhuo.venue.store import Store


def simulate(sides, rounds, seed=2026):
    """Pair and play ``rounds`` rounds; returns (matches, seconds per pairing)."""
    rng = random.Random(seed)
    names = ["S%03d" % i for i in range(1, sides + 1)]
    matches, times = [], []
    for r in range(1, rounds + 1):
        t0 = time.perf_counter()
        p = pair_round(r, names, matches, secret="bench-secret-0123456789")
        times.append(time.perf_counter() - t0)
        for h, a in p.tables:
            matches.append(MatchResult.played(r, h, a, rng.randint(2, 15), rng.randint(2, 15)))
        if p.bye:
            matches.append(MatchResult.bye(r, p.bye))
    return matches, times


def store_intake(n):
    """Results per second into a WAL file with synchronous=FULL (each one its own transaction)."""
    with tempfile.TemporaryDirectory() as tmp:
        s = Store(os.path.join(tmp, "venue.db"))
        s.add_event("bench", "bench", "bigtwo")
        for b in range(1, 9):
            s.add_board("bench", 1, b, "%064x" % b)
        # 32 results per table: 8 boards × 4 seats
        rows = [{"event": "bench", "result_id": "r%d" % i, "round": 1, "board": i // 4 % 8 + 1, "table": i // 32 + 1,
                 "seat": "ENWS"[i % 4], "player": "p%d" % (i // 32 * 4 + i % 4), "score": i % 50, "think_ms": 1000,
                 "deal_hash": "%064x" % (i // 4 % 8 + 1)} for i in range(n)]
        t0 = time.perf_counter()
        for r in rows:
            s.add_result(r)
        add = time.perf_counter() - t0
        t0 = time.perf_counter()
        for r in rows[: n // 2]:
            s.add_result(r)  # re-sent by a hub outbox: duplicates
        dup = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = s.results("bench")
        read = time.perf_counter() - t0
        s.close()
    assert len(out) == n
    return n / add, (n // 2) / dup, read


def section(quick):
    cases = [(60, 7), (200, 9)] if quick else [(60, 7), (200, 9), (500, 9), (501, 11)]
    lines = ["## Guandan pairing and match standings", "",
             "Swiss pairing (积分编排) of a simulated pairs/teams event: each round paired from the full standings "
             "(场分 and the tie-break chain), no repeat meetings (blossom-checked top-down search), one bye per side; "
             "random final levels 2..A+.", "",
             "| sides | rounds | slowest round to pair | all pairings | standings after the last round |",
             "|---:|---:|---:|---:|---:|"]
    for sides, rounds in cases:
        ms, times = simulate(sides, rounds)
        t0 = time.perf_counter()
        standings(ms)
        st_time = time.perf_counter() - t0
        lines.append("| %d | %d | %.0f ms | %.2f s | %.0f ms |" % (sides, rounds, max(times) * 1000, sum(times), st_time * 1000))
    n = 300 if quick else 2000
    add, dup, read = store_intake(n)
    lines += ["", "Venue store (SQLite, WAL, synchronous=FULL, one transaction per result): %d results stored at %.0f/s; "
              "re-sent duplicates answered at %.0f/s; `results()` of all %d in %.0f ms." % (n, add, dup, n, read * 1000), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
