"""Benchmark: the seat firmware's Guandan screens under the MicroPython unix port (issue #11
part 4): frame render time per screen (27 cards in two rows), the pre-check's round trip
(a tap on a card → ``describe`` → the hub's ``meanings`` → 出牌 lit) and the heap.  Picked up
by tests/bench/run.py; run alone with ``python tests/bench/bench_firmware_guandan.py [--quick]``.

Views come from the real Guandan engine (tests/firmware/gdscenes.py); the test hub answers
``describe`` from the engine's ``describe`` hook, as hub/table/runtime.py does.
"""

import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "firmware"))

import gdscenes  # noqa: E402
from rig import Rig  # noqa: E402

sys.path.insert(0, HERE)
from bench_firmware import _pct, render as _render  # noqa: E402

from paizhuo.sim.firmware import DATA_HEAP, build  # noqa: E402


def section(quick):
    rounds, taps = (2, 6) if quick else (5, 30)
    m, g = gdscenes.match_with_tribute()
    payer = g.to_act()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fw = build(os.path.join(tmp, "fw"), common_hanzi=False)
        game = [g]
        welcome = {"seat": payer, "table": "7", "event": "bench", "lang": "zh", "player": None}
        rig = Rig(fw, os.path.join(tmp, "seat"), welcome=welcome)

        def answer(h, msg):
            if msg["t"] == "describe":
                h.send(gdscenes.describe_answer(game[0], msg, rig_seat[0]))
        rig_seat = [payer]
        rig.hub.on_message = answer
        try:
            rig.hub.on_session = lambda hub: hub.send(gdscenes.state(g, seat=payer, match=m))
            rig.seat.wait_screen("tribute", timeout=20)
            rows.append(("进贡 (tribute), 27 cards", _render(rig, gdscenes.state(g, seat=payer, match=m), "tribute",
                                                            rounds)))
            w, _ = gdscenes.wild_choice()
            cards = ["2H", "3D", "4D", "5D", "6D"]
            # E's view of a deal E leads (drawn the same on any seat's board)
            rows.append(("play, leading, 27 cards", _render(rig, gdscenes.state(w, seat="E"), "play", rounds)))
            late = gdscenes.GuandanDeal(gdscenes.deal(3))
            gdscenes.play_out(late, gdscenes.bots(), lambda x: len(x.out) >= 1)
            rows.append(("play, a place and 报牌", _render(rig, gdscenes.state(late, seat=payer), "play", rounds)))
            over = gdscenes.GuandanDeal(gdscenes.deal(4))
            gdscenes.play_out(over, gdscenes.bots())
            rows.append(("result", _render(rig, gdscenes.state(over, seat=payer), "result", rounds)))
            rig.seat.wait_for(lambda s: s.mem is not None, 5, "a heap figure")
            free, low = rig.seat.mem
            allocs = {f[2] for f in rig.seat.frames}
        finally:
            rig.close()
        # The pre-check's round trip, on the seat that holds the wild card (E).
        rig = Rig(fw, os.path.join(tmp, "seat2"), welcome=dict(welcome, seat="E"))
        game[0] = w
        rig_seat[0] = "E"
        rig.hub.on_message = answer
        trips = []
        try:
            rig.hub.on_session = lambda hub: hub.send(gdscenes.state(w, seat="E"))
            rig.seat.wait_screen("play", timeout=20)
            for i in range(taps):
                mark = rig.seat.mark()
                t0 = time.perf_counter()
                rig.seat.tap_widget("card:" + cards[0])
                lit = i % 2 == 0  # selected: 出牌 lights once the answer is in; deselected: grey
                rig.seat.wait_screen("play", after=mark, where=lambda u: (u["widgets"]["btn:play"][4] == 1) == lit
                                     and ("card:" + cards[0]) in u["widgets"])
                trips.append((time.perf_counter() - t0) * 1000)
        finally:
            rig.close()
    lines = [
        "## Seat firmware: Guandan screens (MicroPython unix port)", "",
        "The same firmware process and data heap (%d KB) as above; views from the real Guandan engine; full-screen"
        % (DATA_HEAP // 1024),
        "refresh in 8-row bands, best / median of %d." % rounds, "",
        "| screen | render (best) | render (median) |", "|---|---|---|",
    ]
    for label, (best, med) in rows:
        lines.append("| %s | %d ms | %d ms |" % (label, best, med))
    lines += [
        "",
        "| figure | value |", "|---|---|",
        "| bytes allocated by the draw loop, per frame | %s |" % ", ".join(str(a) for a in sorted(allocs)),
        "| lowest free data heap on these screens | %d of %d bytes |" % (low, DATA_HEAP),
        "| tap a card → the hub's meanings → screen rebuilt (pre-check round trip), median / p99 of %d | "
        "%.1f / %.1f ms |" % (taps, statistics.median(trips), _pct(trips, 0.99)),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
