"""Benchmark: whole Paohuzi deals played by three bots (paizhuo.bots.paohuzi) through the engine.
Picked up by tests/bench/run.py; run alone with ``python tests/bench/bench_paohuzi_bot.py [--quick]``.

Seeded deals, every decision a bot's from its seat's view (the asked seats of a claim decide in
turn).  CPU time (``time.process_time``: the machine is shared) for the whole deal, and for each
bot decision alone: weighing the holdings after every discard or claim, the 听牌 check with the
best arrangement for each unseen card.  Also how the bots' deals end, and one bot against two
random legal players on the same deals (its seat going round).
"""

import os
import random
import sys
import time

from paizhuo.bots.paohuzi import PaohuziBot
from paizhuo.rules.paohuzi import Deal, Paohuzi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import percentile  # noqa: E402  (tests/bench, beside this file)

SEATS = ("E", "N", "W")


def _deals(n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        order = list(range(80))
        rng.shuffle(order)
        out.append(Deal.from_permutation(order))
    return out


def bot_deals(n, seed=14):
    """``(seconds, decision times in ns, decisions, deals won)`` of ``n`` deals by three bots."""
    times = []
    won = 0
    decisions = 0
    t0 = time.process_time()
    for k, deal in enumerate(_deals(n, seed)):
        g = Paohuzi(deal)
        bots = {s: PaohuziBot(seed=3 * k + i) for i, s in enumerate(SEATS)}
        while g.phase != "over":
            seat = g.to_act()[0]
            t = time.process_time_ns()
            a = bots[seat].choose(g.view(seat))
            times.append(time.process_time_ns() - t)
            g.apply(a)
            decisions += 1
        won += g.result().winner is not None
    return time.process_time() - t0, times, decisions, won


def against_random(n, seed=15):
    """``(bot wins, random wins, 荒庄)``: one bot and two random legal players, the bot's seat going round."""
    rng = random.Random(seed)
    tally = [0, 0, 0]
    for k, deal in enumerate(_deals(n, seed)):
        me = SEATS[k % 3]
        bot = PaohuziBot(seed=k)
        g = Paohuzi(deal)
        while g.phase != "over":
            seat = g.to_act()[0]
            g.apply(bot.choose(g.view(seat)) if seat == me else rng.choice(g.legal_actions(seat)))
        w = g.result().winner
        tally[0 if w == me else 2 if w is None else 1] += 1
    return tuple(tally)


def section(quick):
    n = 10 if quick else 150
    secs, times, decisions, won = bot_deals(n)
    times.sort()
    med, p99, worst = times[len(times) // 2] / 1e6, percentile(times, 0.99) / 1e6, times[-1] / 1e6
    bot_share = sum(times) / 1e9 / secs if secs else 0
    m = 12 if quick else 150
    mine, theirs, none = against_random(m)
    lines = ["## Paohuzi: whole bot-vs-bot deals per second (CPython)", "",
             "%d seeded deals, three bots (`paizhuo.bots.paohuzi`) deciding from their seats' views through the "
             "engine; CPU time. A decision weighs the holding after each discard or claim (门子, partial groups by "
             "unseen cards, 胡息) and, one card from a win, checks every unseen card with the best arrangement."
             % n, "",
             "| deals per second | decisions per deal | bot decision median | p99 | worst | bot share of the time "
             "| deals won (not 荒庄) |",
             "|---:|---:|---:|---:|---:|---:|---:|",
             "| %.1f | %.1f | %.2f ms | %.2f ms | %.2f ms | %.0f%% | %d of %d |"
             % (n / secs if secs else 0, decisions / n, med, p99, worst, 100 * bot_share, won, n), "",
             "One bot against two random legal players on %d seeded deals (its seat going round): the bot won "
             "%d, the two random players %d together, %d 荒庄." % (m, mine, theirs, none), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
