"""Banded drawing for a 480×320 RGB565 panel without a full-screen buffer.

A full RGB565 frame is 300 KB; a seat board without PSRAM has about 110 KB of heap.  So the
screen is drawn one band of rows at a time into a small 4-bit framebuffer (16 colours are
plenty for cards and buttons), and each finished band is expanded to RGB565 through a
16-entry palette and sent to the panel a few rows at a time (nano-gui's ili9341 driver
does the same with a full-screen 4-bit buffer and a lookup table).

The palette holds the colours byte-swapped, so the rows the expansion produces are
big-endian RGB565: exactly the bytes an SPI panel wants (``framebuf`` itself is
little-endian).

Memory (480 wide): band 480×R/2 bytes (R=16: 3840) + expansion rows 480×2×2 = 1920 bytes.
Drawing allocates nothing: ``framebuf`` calls and the preallocated buffers only.

Colours are palette indices (``const`` below); :func:`rgb565` converts 8-bit RGB.
"""

import framebuf
from micropython import const

# The palette: index -> (r, g, b).  Screens use the indices, never RGB values.
FELT = const(0)  # table felt, the background
WHITE = const(1)
BLACK = const(2)
RED = const(3)
GREY = const(4)  # disabled buttons, secondary text
DARK = const(5)  # top bar
YELLOW = const(6)  # selection, whose turn
BLUE = const(7)  # primary buttons
LIGHT = const(8)  # card backs of counts, panels' text on dark
ORANGE = const(9)  # 报单 alert
GREEN = const(10)  # "yes" buttons
CREAM = const(11)  # a selected card's face
PANEL = const(12)  # opponents' panels (lighter felt)
MAROON = const(13)  # refusal box title
COLOURS = (
    (16, 92, 52), (255, 255, 255), (0, 0, 0), (204, 24, 30), (150, 150, 150), (28, 32, 36),
    (250, 204, 40), (36, 92, 200), (225, 225, 225), (236, 120, 20), (40, 150, 70), (255, 240, 176),
    (28, 116, 70), (128, 0, 24), (0, 0, 0), (0, 0, 0),
)

EXPAND_ROWS = const(2)  # rows expanded to RGB565 per write (the panel window is set once per band)


def rgb565(r, g, b):
    """The RGB565 value of an 8-bit colour (native order: red in the top bits).

    >>> hex(rgb565(255, 0, 0))
    '0xf800'
    """
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
        if height % rows or rows % EXPAND_ROWS or width % 2:
            raise ValueError("band rows must divide the height (%d), be a multiple of %d, and the width must be even"
                             % (height, EXPAND_ROWS))
        self.width = width
        self.height = height
        self.rows = rows
        self.band = bytearray(width * rows // 2)
        super().__init__(self.band, width, rows, framebuf.GS4_HMSB)
        self._rgb = bytearray(width * EXPAND_ROWS * 2)
        self._rgb_mv = memoryview(self._rgb)
        self._rgb_fb = framebuf.FrameBuffer(self._rgb, width, EXPAND_ROWS, framebuf.RGB565)
        self._pal = framebuf.FrameBuffer(bytearray(32), 16, 1, framebuf.RGB565)
        for i in range(16):
            c = rgb565(*COLOURS[i])
            self._pal.pixel(i, 0, ((c & 0xFF) << 8) | (c >> 8))  # byte-swapped: big-endian out

    def buffer_bytes(self):
        """Bytes the display holds for drawing (band + expansion rows + palette)."""
        return len(self.band) + len(self._rgb) + 32

    def show_band(self, y):
        """Expand the band (screen rows ``y`` .. ``y + rows - 1``) to RGB565 and send it."""
        self._begin(y, self.rows)
        r = 0
        while r < self.rows:
            self._rgb_fb.blit(self, 0, -r, -1, self._pal)
            self._write(self._rgb_mv)
            r += EXPAND_ROWS
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
