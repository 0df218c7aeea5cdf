"""Benchmark: what the venue's replay of a match result costs (hub/venue/verify.py check_match).

A board of a match game is a whole match (deals from level 2 until a side passes A); before it
counts, the venue replays every deal of its record from its own deals and compares every
figure.  Measured here on genuine result messages (matches played to their end by the
registry's bot with random legal plays mixed in, ``tests/match_hubs.py``): deals per match,
record size, and the replay's median, p99 and worst time per match.

Run alone with ``python tests/bench/bench_match_replay.py [--quick]``; ``tests/bench/run.py``
picks up :func:`section`.
"""

import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from match_hubs import MatchHub  # noqa: E402
from timing import percentile  # noqa: E402

from paizhuo import deals, rules  # noqa: E402
from paizhuo.venue import verify  # noqa: E402

SECRET = "hex:" + "3d" * 32


def _messages(n):
    game = next(g for g in sorted(rules.GAMES) if rules.game(g).match)
    key = deals.round_key(deals.parse_secret(SECRET), 1)
    out = []
    for board in range(1, n + 1):
        spec = {"v": 1, "id": "s", "round": 1, "group": 1, "game": game, "table": "1", "boards": [board],
                "deal_hashes": {str(board): deals.deal_from_round_key(key, game, 1, board, round=1).hash},
                "players": {s: {"id": "P" + s, "name": s, "no": i + 1} for i, s in enumerate("ENWS")}}
        msg = MatchHub("T01", "1", "bench", SECRET).result(spec, seed=board)
        out.append((game, key, board, msg))
    return out


def measure(n):
    times, sizes, lengths = [], [], []
    for game, key, board, msg in _messages(n):
        deal_of = lambda d, b=board: deals.deal_from_round_key(key, game, 1, b, round=1, deal=d)  # noqa: E731
        t = time.perf_counter()
        finding, res = verify.check_match(game, None, deal_of, msg)
        times.append((time.perf_counter() - t) * 1000)
        assert finding is None, finding.to_dict()
        lengths.append(res["deals"])
        sizes.append(len(json.dumps(msg["record"], separators=(",", ":")).encode("utf-8")))
    return {"matches": n, "deals_median": statistics.median(lengths), "deals_max": max(lengths),
            "record_kb_median": statistics.median(sizes) / 1024, "record_kb_max": max(sizes) / 1024,
            "ms_median": statistics.median(times), "ms_p99": percentile(times, 0.99), "ms_max": max(times)}


def section(quick=False):
    r = measure(5 if quick else 30)
    return "\n".join([
        "## The venue's replay of a match result",
        "",
        "Genuine match results (to a side passing A, bots with random legal plays mixed in), each replayed "
        "deal by deal from the venue's own deals by `verify.check_match` before it counts.",
        "",
        "| matches | deals per match (median / max) | record KB (median / max) | replay ms median | p99 | worst |",
        "|---:|---:|---:|---:|---:|---:|",
        "| %d | %g / %d | %.0f / %.0f | %.1f | %.1f | %.1f |" % (
            r["matches"], r["deals_median"], r["deals_max"], r["record_kb_median"], r["record_kb_max"],
            r["ms_median"], r["ms_p99"], r["ms_max"]),
        ""])


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
