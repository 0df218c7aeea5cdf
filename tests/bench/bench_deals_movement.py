"""Benchmark: seeded deals (HMAC generator) and Swiss movement, for `make bench`.

Aim (issue #3): 10,000 deals generated and the movement of 2,000 players, each under one
second on this machine.  Measured here, never asserted in tests.
"""


from paizhuo.venue import deals as D
from paizhuo.venue import movement as M
from timing import best_of  # noqa: E402  (tests/bench, beside this file)

SECRET = b"bench secret, 32 bytes long....."


def bench_deals(game, n, repeat):
    key = D.round_key(SECRET, 1)

    def run():
        return [D.deal_from_round_key(key, game, 1, b, round=1) for b in range(1, n + 1)]

    seconds, records = best_of(run, repeat)
    assert len({r.hash for r in records}) == n
    return seconds


def bench_movement(n, repeat):
    """Round 1 (draw), round 2 by a ranking with many equal R after round 1's history, round 3
    where every player has equal R and the same snake as round 2 (the most swaps)."""
    players = ["p%d" % i for i in range(1, n + 1)]
    t1, r1 = best_of(lambda: M.seat_round(players, 1, secret=SECRET, tables_per_group=10), repeat)
    ranking = [{"player": p, "rank": i + 1, "R": float(100 - i * 100 // n)} for i, p in enumerate(players)]
    history = [r1.to_dict()]
    t2, r2 = best_of(lambda: M.seat_round(players, 2, standings=ranking, history=history, tables_per_group=10), repeat)
    flat = [{"player": p, "rank": 1, "R": 50.0} for p in players]
    history3 = [r1.to_dict(), M.seat_round(players, 2, standings=flat, tables_per_group=10).to_dict()]
    t3, r3 = best_of(lambda: M.seat_round(players, 3, standings=flat, history=history3, tables_per_group=10), repeat)
    return [("round 1, seeded draw", t1, r1), ("round 2, ranking + round-1 history", t2, r2),
            ("round 3, all R equal, same snake as round 2 (worst case for swaps)", t3, r3)]


def section(quick):
    n_deals = 2000 if quick else 10000
    repeat = 1 if quick else 3
    lines = ["## Venue: seeded deals and Swiss movement", "",
             "`paizhuo.venue.deals`: HMAC-SHA256 byte stream, Fisher–Yates with rejection sampling, a",
             "SHA-256 hash per deal.  `paizhuo.venue.movement`: snake seating by ranking, equal-R swaps",
             "against repeat table-mates.  Best of %d runs." % repeat, "",
             "| workload | time | per item |", "|---|---|---|"]
    for game in ("bigtwo", "guandan", "paohuzi"):
        s = bench_deals(game, n_deals, repeat)
        lines.append("| %s deals generated (%s, records + hashes) | %.3f s | %.1f µs |" % (
            format(n_deals, ","), game, s, s / n_deals * 1e6))
    n_players = 500 if quick else 2000
    for name, s, r in bench_movement(n_players, repeat):
        lines.append("| movement, %s players, %s: %d tables, %d swaps, %d repeats left | %.3f s | |" % (
            format(n_players, ","), name, len(r.tables), len(r.swaps), len(r.repeats), s))
    lines += ["", "Aim: 10,000 deals and 2,000-player movement each under one second%s." % (
        "" if quick else " — " + ("met" if _met(lines) else "NOT met")), ""]
    return "\n".join(lines)


def _met(lines):
    for line in lines:
        if line.startswith("| ") and " s |" in line:
            if float(line.split("|")[2].strip().split()[0]) >= 1.0:
                return False
    return True


if __name__ == "__main__":
    import sys
    print(section("--quick" in sys.argv))
