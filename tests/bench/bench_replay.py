"""Benchmark: what the venue's replay of every result costs (hub/venue/verify.py).

The venue trusts no hub's arithmetic: before a result counts it replays the record through the
engine from its own copy of the deal and compares every figure.  Measured here:

1. **Replay per result**: :func:`paizhuo.venue.verify.check_result` on genuine result messages
   (deals from the round key, played by the engine's bots with random legal moves mixed in, as
   ``bench_ingest.play`` does): median, p99 and worst.
2. **Ingest with and without the replay**: one round at 500 tables, every table's result message
   of one board handled by the real :class:`~paizhuo.venue.service.Venue` (wire check, replay,
   one SQLite transaction with fsync on a real file, acknowledgement), replay on and, for
   comparison, replaced by a no-op: messages/s and ms per message.  The broker is not in this
   figure (``bench_ingest.py`` measures the whole path, replay included).

Run alone with ``python tests/bench/bench_replay.py [--quick]``; ``tests/bench/run.py`` picks up
:func:`section`.
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_ingest import play  # noqa: E402  (genuine result bodies, as the ingest benchmark's hubs make them)
from bench_venue import Link, event_text  # noqa: E402
from timing import percentile  # noqa: E402

from paizhuo.mqtt import wire  # noqa: E402
from paizhuo.venue import deals, verify  # noqa: E402
from paizhuo.venue.event import load_text  # noqa: E402
from paizhuo.venue.service import Venue  # noqa: E402
from paizhuo.venue.store import Store  # noqa: E402


def messages(venue, board):
    """One genuine result message per table for ``board`` of round 1 (each table plays it its own way)."""
    key = deals.round_key(venue.config.secret, 1).hex()
    out = []
    for hub, spec in sorted(venue._rounds[1].specs.items()):
        body = play(dict(spec, hub=hub), key, board, int(hub[1:]))
        out.append(dict(body, v=1, kind="result", epoch="%016x" % int(hub[1:]), n=1, hub=hub, table=spec["table"], at=0))
    return out


def replay_cost(venue, msgs, repeat):
    times, cpu = [], []
    for _ in range(repeat):
        for m in msgs:
            d = venue._deal(m["round"], m["group"], m["board"])
            c, t = time.process_time_ns(), time.perf_counter_ns()
            found = verify.check_result(venue.game, venue.config.rules, d, m)
            times.append(time.perf_counter_ns() - t)
            cpu.append(time.process_time_ns() - c)
            if found is not None:
                raise RuntimeError("a genuine result did not replay: %s" % found.en)
    times.sort()
    actions = [len(m["record"]["actions"]) for m in msgs]
    return {"n": len(times), "median": statistics.median(times) / 1e6, "p99": percentile(times, 0.99) / 1e6,
            "max": times[-1] / 1e6, "actions": statistics.median(actions), "cpu": statistics.mean(cpu) / 1e6}


async def ingest(tables, replay):
    """Handle every table's board-1 result on a fresh venue; returns (seconds, messages, counted rows)."""
    folder = tempfile.mkdtemp(prefix="bench-replay-")
    cfg = load_text(event_text(tables, 2), "bench.toml", base=folder)
    venue = Venue(cfg, Store(os.path.join(folder, "venue.sqlite")), Link())
    venue.restore()
    await venue.start_round(1, "bench")
    msgs = [(wire.hub_topic("bench", m["hub"], "result"), wire.dumps(m)) for m in messages(venue, 1)]
    real = verify.check_result
    if not replay:
        verify.check_result = lambda *a: None
    try:
        c0, t0 = time.process_time(), time.perf_counter()
        for topic, payload in msgs:
            venue.handle(topic, payload)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        verify.check_result = real
    counted = len(venue.store.scoring_rows("bench"))
    held = len(venue.results()) - counted
    venue.store.close()
    if held or counted != 4 * len(msgs):
        raise RuntimeError("%d rows counted, %d held: every genuine result must count" % (counted, held))
    return {"s": elapsed, "msgs": len(msgs), "rate": len(msgs) / elapsed, "ms": elapsed / len(msgs) * 1000,
            "cpu_ms": cpu / len(msgs) * 1000}


def section(quick):
    tables = 50 if quick else 500
    cfg = load_text(event_text(tables, 2), "bench.toml", base=tempfile.gettempdir())
    venue = Venue(cfg, Store(":memory:"), Link())
    venue.restore()
    cost = replay_cost(venue, messages(venue, 1) + messages(venue, 2), 1 if quick else 3)
    on = asyncio.run(ingest(tables, True))
    off = asyncio.run(ingest(tables, False))
    from bench_ingest import _machine
    lines = [
        "## Venue: replaying every result before it counts",
        "",
        "The venue replays each result's record through the engine from its own copy of the deal and compares every "
        "figure (`paizhuo.venue.verify.check_result`); genuine results of deals played by the bots with random legal "
        "moves mixed in (%s actions median per deal).  Ingest: the real `Venue` handling one result message from each "
        "of %s tables (wire check, replay, one SQLite transaction with fsync on a file, acknowledgement), no broker.  "
        "Machine: %s.  %s run." % (_num(cost["actions"]), format(tables, ","), _machine(), "Quick" if quick else "Full"),
        "",
        "| measure | value |",
        "|---|---|",
        "| replay and comparison per result (%s results): wall clock median / p99 / worst; CPU time mean | "
        "%.2f / %.2f / %.2f ms; **%.2f ms CPU** |" % (format(cost["n"], ","), cost["median"], cost["p99"], cost["max"],
                                                     cost["cpu"]),
        "| ingest, replay on: %s messages | **%.0f messages/s** (%.2f ms each, %.2f ms CPU) |" % (
            format(on["msgs"], ","), on["rate"], on["ms"], on["cpu_ms"]),
        "| ingest, replay replaced by a no-op (comparison) | %.0f messages/s (%.2f ms each, %.2f ms CPU) |" % (
            off["rate"], off["ms"], off["cpu_ms"]),
        "",
        "At 500 tables a deal ends every few minutes at each table: a few results a second on average.  A whole "
        "round's board ending at all 500 tables at once is absorbed in %.1f s with the replay on (%.1f s without); "
        "the rest of each message's time is its fsynced transaction.  The wall-clock figures include the other "
        "processes sharing the two cores; the CPU time is the venue's own." % (500 / on["rate"], 500 / off["rate"]),
        "",
    ]
    return "\n".join(lines)


def _num(x):
    return "%.0f" % x if x >= 100 else "%.1f" % x


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
