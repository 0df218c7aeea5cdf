"""Driver for the reference seat display: a 480×320 SPI TFT with an ST7796S controller.

The ST7796S is of the ILI9488 class (same 480×320 size and MIPI DCS command set).  It is
the reference part rather than the ILI9488 itself because the ILI9488 takes only 18-bit
colour on its SPI interface (3 bytes per pixel): the 4-bit band would then need a
per-pixel conversion in Python, where the ST7796S takes the RGB565 rows the band
expansion produces (:mod:`board.band`) as they are.

Like nano-gui's drivers, the display object is the ``framebuf.FrameBuffer`` the app draws
into (here one band of it) and receives bus and pin objects:

    spi = SPI(1, baudrate=40_000_000, sck=Pin(12), mosi=Pin(11), miso=Pin(13))
    tft = ST7796(spi, cs=Pin(10), dc=Pin(9), rst=Pin(14))

Writes allocate nothing: commands go through a preallocated 1-byte and 4-byte buffer.
Timing at 40 MHz SPI: a 16-row band is 15 360 bytes ≈ 3.1 ms on the wire.
"""

import time

from micropython import const

from board.band import BandDisplay

_SWRESET = const(0x01)
_SLPOUT = const(0x11)
_INVON = const(0x21)
_DISPON = const(0x29)
_CASET = const(0x2A)
_RASET = const(0x2B)
_RAMWR = const(0x2C)
_MADCTL = const(0x36)
_COLMOD = const(0x3A)

# MADCTL bits: row/column exchange and mirroring choose the orientation; BGR panel order.
MY = const(0x80)
MX = const(0x40)
MV = const(0x20)
BGR = const(0x08)
LANDSCAPE = const(0x28)  # MV | BGR: 480 wide, 320 high, connector on the left


class ST7796(BandDisplay):
    """480×320 landscape ST7796S on SPI (mode 0).  ``madctl`` picks the orientation;
    ``invert`` is on for the common IPS modules (their colours are inverted otherwise)."""

    def __init__(self, spi, cs, dc, rst=None, rows=8, madctl=LANDSCAPE, invert=True):
        self._spi = spi
        self._cs = cs
        self._dc = dc
        self._rst = rst
        cs.init(cs.OUT, value=1)
        dc.init(dc.OUT, value=0)
        self._cmd = bytearray(1)
        self._arg = bytearray(4)
        self._arg_mv = memoryview(self._arg)
        super().__init__(480, 320, rows)
        self._reset()
        self._command(_SWRESET)
        time.sleep_ms(150)
        self._command(_SLPOUT)
        time.sleep_ms(150)
        self._arg[0] = 0x55  # 16 bits per pixel on the serial interface
        self._command(_COLMOD, self._arg_mv[:1])
        self._arg[0] = madctl
        self._command(_MADCTL, self._arg_mv[:1])
        if invert:
            self._command(_INVON)
        self._command(_DISPON)
        time.sleep_ms(20)

    def _reset(self):
        if self._rst is not None:
            self._rst.init(self._rst.OUT, value=1)
            time.sleep_ms(5)
            self._rst(0)
            time.sleep_ms(20)
            self._rst(1)
            time.sleep_ms(150)

    def _command(self, c, data=None):
        self._cs(0)
        self._dc(0)
        self._cmd[0] = c
        self._spi.write(self._cmd)
        if data is not None:
            self._dc(1)
            self._spi.write(data)
        self._cs(1)

    def _window(self, command, a, b):
        arg = self._arg
        arg[0] = a >> 8
        arg[1] = a & 0xFF
        arg[2] = b >> 8
        arg[3] = b & 0xFF
        self._command(command, arg)

    def _begin(self, y, nrows):
        self._window(_CASET, 0, self.width - 1)
        self._window(_RASET, y, y + nrows - 1)
        self._cs(0)
        self._dc(0)
        self._cmd[0] = _RAMWR
        self._spi.write(self._cmd)
        self._dc(1)  # pixel data follows until _end

    def _write(self, buf):
        self._spi.write(buf)

    def _end(self):
        self._cs(1)
