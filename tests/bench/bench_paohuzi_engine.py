"""Benchmark: the Paohuzi engine's claim resolution per turned card (paizhuo.rules.paohuzi).
Picked up by tests/bench/run.py; run alone with ``python tests/bench/bench_paohuzi_engine.py [--quick]``.

Seeded deals played by random legal decisions.  Each ``apply`` that ends with a card turned up
from the stock is timed (CPU time, ``time.process_time_ns``: the machine is shared): it verifies
the decision, settles the previous card, turns up the next, makes the turner's 提 or 偎, and works
out who may claim the new card (three win checks with the best arrangement, 跑, 碰, every 吃 with
比牌).  That is the wait between one claim and the next prompt, which the aim of issue #14 wants
well under the 5 ms a holding may take.
"""

import os
import random
import sys
import time

from paizhuo.rules.paohuzi import Deal, Paohuzi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import percentile  # noqa: E402  (tests/bench, beside this file)

AIM_MS = 5.0


def play(n_deals, seed=14):
    """``(turn-up times in ns, claims opened, decisions, seconds)`` over ``n_deals`` random deals."""
    rng = random.Random(seed)
    times = []
    claims = 0
    decisions = 0
    t0 = time.process_time()
    for _ in range(n_deals):
        order = list(range(80))
        rng.shuffle(order)
        g = Paohuzi(Deal.from_permutation(order))
        while g.phase != "over":
            seat = rng.choice(g.to_act())
            a = rng.choice(g.legal_actions(seat))
            t = time.process_time_ns()
            events = g.apply(a)
            dt = time.process_time_ns() - t
            decisions += 1
            if any(e["type"] == "turn_up" for e in events):
                times.append(dt)
            claims += sum(1 for e in events if e["type"] == "claim")
    return times, claims, decisions, time.process_time() - t0


def section(quick):
    n = 30 if quick else 500
    times, claims, decisions, secs = play(n)
    times.sort()
    med, p99, worst = times[len(times) // 2] / 1e6, percentile(times, 0.99) / 1e6, times[-1] / 1e6
    lines = ["## Paohuzi: claim resolution per turned card (CPython)", "",
             "%d seeded deals played by random legal decisions (%d decisions, %d claims opened). Each `apply` "
             "that ends with a stock card turned up is timed in CPU time: verify the decision, settle the card "
             "before, turn up the next, the turner's 提/偎, then who may claim it (three win checks with the best "
             "arrangement, 跑, 碰, 吃 with 比牌)." % (n, decisions, claims), "",
             "| turned cards | median | p99 | worst | within %.0f ms |" % AIM_MS,
             "|---:|---:|---:|---:|:---:|",
             "| %d | %.3f ms | %.3f ms | %.3f ms | %s |" % (len(times), med, p99, worst,
                                                          "yes" if worst < AIM_MS else "**no**"),
             "", "Whole deals: %.0f per second (random legal play, CPU time)." % (n / secs if secs else 0), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
