"""Banded drawing for a 480×320 RGB565 panel without a full-screen buffer.

A full RGB565 frame is 300 KB; a seat board without PSRAM has about 110 KB of heap.  So the
screen is drawn one band of rows at a time into a small 4-bit framebuffer (16 colours are
plenty for cards and buttons), and each finished band is expanded to RGB565 through a
16-entry palette and sent to the panel a row at a time (nano-gui's ili9341 driver
does the same with a full-screen 4-bit buffer and a lookup table).

The palette holds the colours byte-swapped, so the rows the expansion produces are
big-endian RGB565: exactly the bytes an SPI panel wants (``framebuf`` itself is
little-endian).

Memory (480 wide): band 480×R/2 bytes (R=8, the default: 1920; 16: 3840) + one expansion
row 480×2 = 960 bytes.  Smaller bands cost draw time (a widget crossing several bands is
drawn, clipped, in each), not pixels.  Drawing allocates nothing: ``framebuf`` calls and
the preallocated buffers only.

Colours are palette indices (below); :func:`rgb565` gives an index's RGB565 value.
"""

import framebuf

# The palette: index -> (r, g, b).  Screens use the indices, never RGB values:
#
#   0 FELT    table felt, the background     7 BLUE    primary buttons
#   1 WHITE                                  8 LIGHT   panels' text on dark
#   2 BLACK                                  9 ORANGE  报单 alert
#   3 RED                                   10 GREEN   "yes" buttons
#   4 GREY    disabled buttons, 2nd text    11 CREAM   a selected card's face
#   5 DARK    top bar                       12 PANEL   opponents' panels (lighter felt)
#   6 YELLOW  selection, whose turn         13 MAROON  refusal box title
#
# The modules that draw name them as private constants (``_WHITE = const(1)``): MicroPython
# folds those into the code, where a public name costs a qstr and a dict entry in this module
# and in each module importing it (tests/test_firmware_build.py checks the names agree).
# r, g, b of each index in turn, as hex: one string constant that stays in the firmware
# image (a tuple of numbers is built on the heap when the module loads: 416 bytes of it).
COLOURS = bytes.fromhex(
    "105c34 ffffff 000000 cc181e 969696 1c2024 facc28 245cc8"  # FELT … BLUE
    " e1e1e1 ec7814 289646 fff0b0 1c7446 800018 000000 000000")  # LIGHT … MAROON, unused


def rgb565(i):
    """The RGB565 value of palette index ``i`` (native order: red in the top bits).

    >>> hex(rgb565(3))   # RED
    '0xc8c3'
    """
    r, g, b = COLOURS[3 * i], COLOURS[3 * i + 1], COLOURS[3 * i + 2]
    return ((r & 0xF8) << 8) | ((g & 0xFC) << 3) | (b >> 3)


class BandDisplay(framebuf.FrameBuffer):
    """A display drawn in bands.  The object *is* the band: a ``framebuf.FrameBuffer`` of
    ``width`` × ``rows`` 4-bit pixels; callers draw with y relative to the band's top row
    and call :meth:`show_band` with the band's screen row when it is finished.

    Subclasses implement ``_begin(y, nrows)`` (the next pixels written go to screen rows
    ``y`` .. ``y + nrows - 1``, left to right, top to bottom), ``_write(buf)`` (big-endian
    RGB565 pixels, a memoryview) and optionally ``_end()``.
    """

    def __init__(self, width, height, rows):
        if height % rows or width % 2:
            raise ValueError("band rows must divide the height (%d) and the width must be even" % height)
        self.width = width
        self.height = height
        self.rows = rows
        self.band = bytearray(width * rows // 2)
        super().__init__(self.band, width, rows, framebuf.GS4_HMSB)
        # One row at a time is expanded to RGB565 and written (the panel window is set
        # once per band): 960 bytes of heap for it, not more.
        self._rgb = bytearray(width * 2)
        self._rgb_mv = memoryview(self._rgb)
        self._rgb_fb = framebuf.FrameBuffer(self._rgb, width, 1, framebuf.RGB565)
        self._pal = framebuf.FrameBuffer(bytearray(32), 16, 1, framebuf.RGB565)
        for i in range(16):
            c = rgb565(i)
            self._pal.pixel(i, 0, ((c & 0xFF) << 8) | (c >> 8))  # byte-swapped: big-endian out

    def buffer_bytes(self):
        """Bytes the display holds for drawing (band + expansion rows + palette)."""
        return len(self.band) + len(self._rgb) + 32

    def show_band(self, y):
        """Expand the band (screen rows ``y`` .. ``y + rows - 1``) to RGB565 and send it."""
        self._begin(y, self.rows)
        for r in range(self.rows):
            self._rgb_fb.blit(self, 0, -r, -1, self._pal)
            self._write(self._rgb_mv)
        self._end()

    def frame_done(self):
        """Called after the last band of a refresh (a host display finishes its frame file)."""
        return None

    def _begin(self, y, nrows):
        raise NotImplementedError

    def _write(self, buf):
        raise NotImplementedError

    def _end(self):
        """The band is complete (an SPI panel releases chip select)."""
