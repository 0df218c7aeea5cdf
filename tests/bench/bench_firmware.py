"""Benchmark: the seat firmware under the MicroPython unix port (issue #4): frame render time
per screen, heap (a 64 KB data heap), image and font sizes, and tap latencies on the seat side.  Picked up by
tests/bench/run.py; run alone with ``python tests/bench/bench_firmware.py [--quick]``.

One firmware process on a pty link to the test hub (tests/firmware/testhub.py, the real
link codec); the hub sends a fixed scene (tests/firmware/scenes.py, real engine views),
the firmware draws it, and the figures come from its control channel: ``frame … ms=T``
(first band to last, the band yields included) and ``mem free=F low=L``.
"""

import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "firmware"))

import scenes  # noqa: E402
from rig import Rig  # noqa: E402

from paizhuo.sim.firmware import DATA_HEAP, build  # noqa: E402


def _pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def _scene_frames(rig, rounds):
    """Render time (ms, full screen) of each screen, best and median over ``rounds``."""
    table = [
        ("waiting", "waiting", lambda: scenes.state(None, screen="waiting")),
        ("明牌 (show)", "show", lambda: scenes.state(scenes.fresh())),
        ("加倍 (double)", "double", lambda: scenes.state(scenes.double_phase())),
        ("play, leading", "play", lambda: scenes.state(scenes.play_phase())),
        ("play, 报单 + shown hand", "play", lambda: scenes.state(scenes.report())),
        ("result", "result", lambda: scenes.state(scenes.finished())),
    ]
    return [(label,) + render(rig, make(), screen, rounds) for label, screen, make in table]


def render(rig, msg, screen, rounds):
    """(best, median) ms of the full-screen refresh the seat draws for hub message ``msg``."""
    times = []
    for _ in range(rounds):
        mark = rig.seat.mark()
        rig.hub.send(msg)
        rig.seat.wait_screen(screen, after=mark)
        n, _ = rig.seat.settle()
        times.append([f for f in rig.seat.frames if f[0] == n][0][3])
    return min(times), statistics.median(times)


def _tap_latency(rig, taps):
    """(tap → screen rebuilt) and (tap Play → intent at the hub), in ms."""
    g = scenes.play_phase()
    mark = rig.seat.mark()
    rig.hub.send(scenes.state(g))
    rig.seat.wait_screen("play", after=mark)
    rig.seat.settle()
    card = "card:" + g.view(scenes.SEAT)["hand"][0]
    select = []
    for _ in range(taps):
        mark = rig.seat.mark()
        t0 = time.perf_counter()
        rig.seat.tap_widget(card)
        rig.seat.wait_line("ui ", after=mark)
        select.append((time.perf_counter() - t0) * 1000)
        rig.seat.settle()
    intents = []
    for _ in range(taps):
        mark = rig.seat.mark()
        rig.hub.send(scenes.state(g))
        ui = rig.seat.wait_screen("play", after=mark, where=lambda u: "已发送，等待主机确认" not in u["text"])
        if not ui["widgets"]["btn:play"][4]:  # the selection stays after a play the hub did not apply
            rig.seat.tap_widget(card)
        rig.seat.wait_screen("play", after=mark, where=lambda u: u["widgets"]["btn:play"][4] == 1)
        before = rig.hub.mark()
        t0 = time.perf_counter()
        rig.seat.tap_widget("btn:play")
        rig.hub.wait_msg("intent", after=before)
        intents.append((time.perf_counter() - t0) * 1000)
    return select, intents


def section(quick):
    rounds, taps = (2, 8) if quick else (5, 40)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        fw = build(os.path.join(tmp, "fw"), common_hanzi=False)  # as the simulations run it
        build_s = time.perf_counter() - t0
        welcome = {"seat": scenes.SEAT, "table": "7", "event": "bench", "lang": "zh", "player": None}
        rig = Rig(fw, os.path.join(tmp, "seat"), welcome=welcome)
        try:
            rig.hub.on_session = lambda hub: hub.send(scenes.state(None, screen="waiting"))
            rig.seat.wait_screen("waiting", timeout=20)
            frames = _scene_frames(rig, rounds)
            select, intents = _tap_latency(rig, taps)
            rig.seat.wait_for(lambda s: s.mem is not None, 5, "a heap figure")
            free, low = rig.seat.mem
            allocs = {f[2] for f in rig.seat.frames}
            start = [ln for ln in rig.seat.lines if ln.startswith("start ")][0]
        finally:
            rig.close()
        font16 = fw.size_of("lib/seat/font16.mpy")
        font24 = fw.size_of("lib/seat/font24.mpy")
        from paizhuo.sim import glyphs
        n16 = len(glyphs.read_module(fw.folder / "gen" / "font16.py")[0])
        n24 = len(glyphs.read_module(fw.folder / "gen" / "font24.py")[0])
    lines = [
        "## Seat firmware (MicroPython unix port)", "",
        "One firmware process (`micropython -X heapsize=%d`: the %d-byte ROMFS image + a %d KB data heap) on a"
        % (fw.heapsize(), fw.image_size, DATA_HEAP // 1024),
        "pty link to the test hub; fixed scenes from the real engine.  Render time is one full-screen refresh,",
        "8-row bands, first band to last (the link and touch are read between bands), %s of %d." % (
            "best / median", rounds), "",
        "| screen | render (best) | render (median) |", "|---|---|---|",
    ]
    for label, best, med in frames:
        lines.append("| %s | %d ms | %d ms |" % (label, best, med))
    lines += [
        "",
        "| figure | value |", "|---|---|",
        "| bytes allocated by the draw loop, per frame | %s |" % ", ".join(str(a) for a in sorted(allocs)),
        "| lowest free data heap at the busiest moments (a message and its screen alive) | %d of %d bytes |" % (
            low, DATA_HEAP),
        "| free data heap when idle | %d bytes |" % free,
        "| free data heap after start-up, everything loaded (selection pre-check on) | %s bytes |" % (
            start.split("free=")[1]),
        "| tap → screen rebuilt (control line out), median / p99 of %d | %.1f / %.1f ms |" % (
            taps, statistics.median(select), _pct(select, 0.99)),
        "| tap Play → intent at the hub, median / p99 of %d | %.1f / %.1f ms |" % (
            taps, statistics.median(intents), _pct(intents, 0.99)),
        "| ROMFS image | %d bytes |" % fw.image_size,
        "| glyph font, UI 16 px (`font16.mpy`) | %d bytes, %d glyphs |" % (font16, n16),
        "| glyph font, cards 24 px (`font24.mpy`) | %d bytes, %d glyphs |" % (font24, n24),
        "| firmware build (fonts + mpy-cross + image) | %.1f s |" % build_s,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
