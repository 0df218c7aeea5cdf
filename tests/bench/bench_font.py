"""Benchmark: the seat board's font (issue #12: names are data).  The board ships the UI
font with the 20,902 hanzi of GBK (``paizhuo.sim.glyphs.board_hanzi``): its size in the
ROMFS image (flash) and the time of a glyph look-up and of measuring and drawing a name,
under the MicroPython unix port through the firmware's own reader (``seat.gfx.Font``),
against the simulations' subset font.  Picked up by tests/bench/run.py; run alone with
``python tests/bench/bench_font.py [--quick]``."""

import json
import os
import sys
import tempfile

from paizhuo.sim import glyphs
from paizhuo.sim.firmware import build, run_snippet

NAMES = "王鑫 李昊 张淼 欧阳娜娜 赵喆 Li Na"

CODE = """
import json, time, framebuf
from seat import font16, gfx
f = gfx.Font(font16)
chars = %r
names = [n.encode() for n in %r.split()]
fb = framebuf.FrameBuffer(bytearray(480 * 8 // 2), 480, 8, framebuf.GS4_HMSB)
n = %d
t = time.ticks_us()
for i in range(n):
    for c in chars:
        f.has(c)
look = time.ticks_diff(time.ticks_us(), t) / (n * len(chars))
t = time.ticks_us()
for i in range(n):
    for b in names:
        f.draw(fb, 0, 0, b, 1)
draw = time.ticks_diff(time.ticks_us(), t) / (n * len(names))
print(json.dumps([look, draw]))
"""


def _measure(fw, n):
    chars = "王鑫昊淼喆娜张李赵欧阳Li"
    out = run_snippet(fw, CODE % (chars, NAMES, n), timeout=300)
    if out.returncode != 0:
        raise RuntimeError(out.stdout + out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def section(quick):
    n = 50 if quick else 500
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, common in (("board (GBK hanzi)", True), ("simulation subset", False)):
            fw = build(os.path.join(tmp, label[:5]), extra_text=NAMES.replace(" ", ""), common_hanzi=common)
            glyph_n = len(glyphs.read_module(fw.folder / "gen" / "font16.py")[0])
            look, draw = _measure(fw, n)
            rows.append("| %s | %d | %d bytes | %.1f µs | %.1f µs |" % (
                label, glyph_n, fw.size_of("lib/seat/font16.mpy"), look, draw))
    return "\n".join([
        "## Seat font: flash size and look-up time", "",
        "The UI font as a board ships it (every GBK hanzi) and as the simulations build it (the texts and",
        "the names they know), read in place from the ROMFS image under the MicroPython unix port",
        "(x86-64; a board's ESP32-S3 is slower).  Look-up: `Font.has` of one character (a binary search in",
        "its code point's bucket); draw: one name of %s measured and blitted into a band, %d times each." % (
            "/".join(NAMES.split()), n), "",
        "| font | glyphs | `font16.mpy` in flash | look-up | draw a name |", "|---|---|---|---|---|",
    ] + rows) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
