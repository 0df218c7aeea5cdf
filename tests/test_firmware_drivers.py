"""The reference board's drivers (ST7796S panel, FT6206 touch) under the MicroPython unix
port, on recording buses: there is no SPI or I2C bus here, so the buses are small
objects that record what the driver writes and replay what a controller answers.  That
checks the bytes on the wire — commands, windows, pixel order — which is what breaks a
real panel.
"""

import json

import pytest

from paizhuo.sim.firmware import build, run_snippet

pytestmark = pytest.mark.micropython

BUSES = r"""
import json
class Pin:
    OUT = 1
    def __init__(self, name, log):
        self.name = name
        self.log = log
    def init(self, mode, value=None):
        if value is not None:
            self.log.append((self.name, value))
    def __call__(self, v):
        self.log.append((self.name, v))
class SPI:
    def __init__(self, log, dc):
        self.log = log
        self.dc = dc
    def write(self, buf):
        self.log.append(("dc%d" % self.dc.level(), bytes(buf)))
class DC(Pin):
    def __init__(self, log):
        super().__init__("dc", log)
        self.v = 0
    def __call__(self, v):
        self.v = v
    def init(self, mode, value=None):
        self.v = value
    def level(self):
        return self.v
"""


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return build(tmp_path_factory.mktemp("firmware"))


def run(fw, code):
    # The recording buses keep every byte written: more than a seat's 64 KB data heap.
    out = run_snippet(fw, BUSES + code, data_heap=256 * 1024)
    assert out.returncode == 0, out.stdout + out.stderr
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith(("{", "["))]


def test_st7796_init_window_and_pixels_match_the_host_display(fw, tmp_path):
    code = r"""
from board.st7796 import ST7796
from board.host import HostDisplay
from board.band import rgb565
RED, WHITE = 3, 1  # palette indices (board/band.py)
log = []
dc = DC(log)
tft = ST7796(SPI(log, dc), Pin("cs", log), dc, Pin("rst", log), rows=16)
init = [e[1][0] for e in log if e[0] == "dc0"]
args = [list(e[1]) for e in log if e[0] == "dc1"]
print(json.dumps({"init": init, "args": args}))
del log[:]
host = HostDisplay(%r, 16, 0)
for d in (tft, host):
    d.fill(WHITE)
    d.fill_rect(10, 2, 100, 5, RED)
    d.show_band(32)
cmds = [(e[0], list(e[1])) for e in log if e[0] in ("dc0", "dc1") and len(e[1]) <= 4]
pixels = b"".join(e[1] for e in log if e[0] == "dc1" and len(e[1]) > 4)
host._gram.flush()
f = open(host.screen_path, "rb"); f.seek(32 * 960); same = f.read(16 * 960) == pixels; f.close()
print(json.dumps({"cmds": cmds, "n": len(pixels), "same": same, "cs": [e[1] for e in log if e[0] == "cs"],
                  "first": list(pixels[:2]), "red": list(pixels[(2 * 480 + 10) * 2:(2 * 480 + 10) * 2 + 2]),
                  "white": rgb565(WHITE), "redv": rgb565(RED)}))
""" % str(tmp_path / "frames")
    init, band = run(fw, code)
    assert init["init"] == [0x01, 0x11, 0x3A, 0x36, 0x21, 0x29]  # reset, wake, RGB565, landscape, invert, on
    assert init["args"] == [[0x55], [0x28]]
    assert band["cmds"][:5] == [["dc0", [0x2A]], ["dc1", [0, 0, 1, 0xDF]], ["dc0", [0x2B]], ["dc1", [0, 32, 0, 47]],
                                ["dc0", [0x2C]]]
    assert band["n"] == 480 * 16 * 2 and band["same"], "the panel gets exactly what the host display stores"
    assert band["cs"][-1] == 1, "chip select released after the band"
    assert band["first"] == [band["white"] >> 8, band["white"] & 0xFF], "big-endian RGB565"
    assert band["red"] == [band["redv"] >> 8, band["redv"] & 0xFF]


@pytest.mark.parametrize("native, rotate, flip_y, screen", [
    ((0, 0), True, False, (0, 319)),
    ((319, 479), True, False, (479, 0)),
    ((100, 200), True, False, (200, 219)),
    ((100, 200), False, False, (100, 200)),
    ((100, 200), True, True, (200, 100)),
])
def test_ft6206_maps_native_points_to_the_screen(fw, native, rotate, flip_y, screen):
    code = r"""
from board.ft6206 import FT6206
class I2C:
    def readfrom_mem_into(self, addr, reg, buf):
        assert addr == 0x38 and reg == 2
        buf[:] = bytes([1, 0x80 | (%d >> 8), %d & 255, %d >> 8, %d & 255])
t = FT6206(I2C(), rotate=%s, flip_y=%s)
print(json.dumps([t.read(), t.x, t.y]))
""" % (native[0], native[0], native[1], native[1], rotate, flip_y)
    [(down, x, y)] = run(fw, code)
    assert down and (x, y) == screen


def test_ft6206_tap_is_where_the_finger_went_down(fw):
    code = r"""
import time
from board.ft6206 import FT6206, POLL_MS
reports = [[0, 0, 0, 0, 0], [15, 0, 0, 0, 0], [1, 0, 50, 0, 60], [1, 0, 51, 0, 90], [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0]]
class I2C:
    def __init__(self):
        self.i = 0
    def readfrom_mem_into(self, addr, reg, buf):
        r = reports[min(self.i, len(reports) - 1)]
        self.i += 1
        if self.i == 2:
            raise OSError(19)  # a bus glitch: read as no finger
        buf[:] = bytes(r)
i2c = I2C()
t = FT6206(i2c, rotate=False)
got = []
for _ in range(len(reports)):
    time.sleep_ms(POLL_MS)
    got.append(t.poll())
reads = i2c.i
got.append(t.poll())  # at once again: too soon to read the controller
print(json.dumps([got, reads, i2c.i]))
"""
    [(taps, reads, after)] = run(fw, code)
    # The finger moved 30 px while down: a drag, reported from where it went down (a tap
    # there unless it runs from card to card: seat/ui.py)
    assert taps == [None, None, None, None, [50, 60, 51, 90], None, None], "one touch, from where the finger went down"
    assert reads == after == 6, "at most one read per poll interval"
