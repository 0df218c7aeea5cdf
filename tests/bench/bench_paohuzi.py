"""Benchmark: the Paohuzi win check with the best arrangement (paizhuo_shared.paohuzi.win), and
吃 with 比牌 (chi_choices).  Picked up by tests/bench/run.py; run alone with
``python tests/bench/bench_paohuzi.py [--quick]``.

The aim (issue #14): every holding decided in under 5 ms on CPython, so a claim prompt never waits
on the engine.  Seeded holdings, each decided once (``win`` for a holding, with ``men`` and the 胡息
floor of the default rules), timed in CPU time (``time.process_time_ns``: the machine is shared):

- dealt: 21 cards from the shuffled 80, nothing open (most cannot be arranged at all);
- winning shape: 7 random groups (句, 绞, 坎, and with a 跑 or 提 a 将), some of them open, the
  rest in hand — what the engine checks when a card comes that completes a hand;
- dense: 21 cards from only 一..六 and 壹..陆, at most three of a card, pairs everywhere —
  the most overlapping 句 and 绞, so the most branches of the search;
- the hardest holding found by a hill climb on the search time (22 cards in pairs, a 将 wanted),
  timed alone;
- 吃: ``chi_choices`` for a random card against a dense 20-card hand.
"""

import os
import random
import sys
import time

from paizhuo_shared import paohuzi as P

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import percentile  # noqa: E402  (tests/bench, beside this file)

AIM_MS = 5.0
DECK = [c for c in range(20) for _ in range(4)]
RUNS = [(P.JU, (c, c + 1, c + 2)) for c in range(20) if c % 10 <= 7] + \
       [(P.JU, (1, 6, 9)), (P.JU, (11, 16, 19))] + \
       [(P.JIAO, (c, c, c + 10)) for c in range(10)] + [(P.JIAO, (c, c + 10, c + 10)) for c in range(10)]


def dealt(rng, n):
    out = []
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        out.append((tuple(sorted(deck[:21])), ()))
    return out


def _fits(cs):
    n = P.counts(cs)
    return max(n) <= 4 if cs else True


def winning_shapes(rng, n):
    """Holdings of 7 groups; a 跑 or 提 among the open ones brings the 将 in hand."""
    out = []
    while len(out) < n:
        opened = []
        hand = []
        four = rng.random() < 0.5
        if four:
            c = rng.randrange(20)
            opened.append((rng.choice((P.PAO, P.TI)), (c, c, c, c)))
        while len(opened) + len(hand) // 3 < 7 - (1 if four else 0):
            r = rng.random()
            if r < 0.2:
                c = rng.randrange(20)
                g = (P.KAN, (c, c, c))
            else:
                g = rng.choice(RUNS)
            if rng.random() < 0.4 and g[0] != P.KAN:
                opened.append((P.CHI, g[1]))
            elif rng.random() < 0.15 and g[0] == P.KAN:
                opened.append((rng.choice((P.PENG, P.WEI)), g[1]))
            else:
                hand.extend(g[1])
        if four:
            c = rng.randrange(20)
            hand += [c, c]
        every = hand + [c for _, cs in opened for c in cs]
        if _fits(every) and max(P.counts(hand)) <= 3:
            out.append((tuple(sorted(hand)), tuple(opened)))
    return out


def dense(rng, n, size=21):
    small = [c for c in list(range(6)) + list(range(10, 16)) for _ in range(2)]
    out = []
    for _ in range(n):
        pool = list(small) + [rng.randrange(20) for _ in range(4)]
        rng.shuffle(pool)
        hand = []
        for c in pool:
            if hand.count(c) < 3:
                hand.append(c)
            if len(hand) == size:
                break
        out.append((tuple(sorted(hand)), ()))
    return out


def time_win(holdings):
    """(median ms, p99 ms, worst ms, share that win) of ``win`` over the holdings, CPU time."""
    for hand, opened in holdings[:20]:  # warm up
        P.win(hand, opened)
    times = []
    wins = 0
    for hand, opened in holdings:
        t = time.process_time_ns()
        r = P.win(hand, opened)
        times.append(time.process_time_ns() - t)
        wins += r is not None
    times.sort()
    return times[len(times) // 2] / 1e6, percentile(times, 0.99) / 1e6, times[-1] / 1e6, wins / len(holdings)


# The slowest holding a hill climb on arrange()'s time found (pairs of overlapping runs, a 将 wanted).
HARDEST = P.cards("x2 x2 x3 x3 x4 x4 x5 x5 x6 x7 x8 x8 x10 d2 d2 d3 d3 d4 d4 d5 d5 d6")


def time_hardest(repeat):
    times = []
    for _ in range(repeat):
        t = time.process_time_ns()
        P.arrange(HARDEST, True)
        times.append(time.process_time_ns() - t)
    times.sort()
    return times[len(times) // 2] / 1e6, times[-1] / 1e6


def time_chi(rng, n):
    cases = [(rng.randrange(20), h) for h, _ in dense(rng, n, size=20)]
    times = []
    found = 0
    for c, hand in cases:
        t = time.process_time_ns()
        found += len(P.chi_choices(c, hand))
        times.append(time.process_time_ns() - t)
    times.sort()
    return times[len(times) // 2] / 1e6, percentile(times, 0.99) / 1e6, times[-1] / 1e6, found / n


def section(quick):
    n = 300 if quick else 5000
    rng = random.Random(14)
    lines = ["## Paohuzi: the win check with the best arrangement (CPython)", "",
             "`paohuzi.win(hand, open)` on seeded holdings, each decided once (7 门子, at least 6 胡息, the exact "
             "search for the most 胡息), CPU time per holding; the aim is under %.0f ms for every holding." % AIM_MS, "",
             "| holdings | count | win | median | p99 | worst | within the aim |",
             "|---|---:|---:|---:|---:|---:|:---:|"]
    for name, holdings in (("dealt: 21 of the 80 cards, nothing open", dealt(rng, n)),
                           ("winning shape: 7 groups, some open", winning_shapes(rng, n)),
                           ("dense: 21 cards of 一..六 / 壹..陆", dense(rng, n))):
        med, p99, worst, share = time_win(holdings)
        lines.append("| %s | %d | %.0f%% | %.3f ms | %.3f ms | %.3f ms | %s |" % (
            name, len(holdings), share * 100, med, p99, worst, "yes" if worst < AIM_MS else "**no**"))
    med, worst = time_hardest(50 if quick else 500)
    lines += ["", "The hardest holding found (a hill climb on the search time): `%s` with a 将 wanted, "
              "median %.3f ms, worst %.3f ms." % (" ".join(P.codes(HARDEST)), med, worst)]
    med, p99, worst, mean = time_chi(rng, n)
    lines += ["", "`paohuzi.chi_choices(card, hand)` (吃 with 比牌) against %d dense 20-card hands: median %.3f ms, "
              "p99 %.3f ms, worst %.3f ms, %.1f choices on average." % (n, med, p99, worst, mean), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
