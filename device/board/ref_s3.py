"""The reference seat board: ESP32-S3 module, 480×320 ST7796S SPI panel, FT6336U capacitive
touch, USB CDC link to the hub (hardware/README.md has the wiring table and the BOM).

This file is the board's "hardware setup" in nano-gui's sense: it wires pins to drivers
and allocates the display's buffers after a ``gc.collect()`` so they come from one
unfragmented heap.  Change the pin numbers here (and only here) for another layout.
"""

import gc
import sys
import select

import micropython
from machine import I2C, Pin, SPI

from board.ft6206 import FT6206, POLL_MS
from board.st7796 import ST7796

# Pinout (ESP32-S3-WROOM-1 N8R2 / N16R8 on the reference carrier): hardware/pinout.csv, the one
# source for this code and the wiring table (board/pinout.py reads it from the image).
SPI_ID = 1
SPI_HZ = 40_000_000
I2C_ID = 0
I2C_HZ = 400_000


class UsbCdcPort:
    """The hub link over the board's native USB (CDC ACM): the same port as the REPL.

    Ctrl-C (0x03) must not interrupt the firmware when it occurs in a frame, so the
    keyboard interrupt is switched off while the link is open.  Reads take what is there
    (``ipoll`` allocates nothing) and never block.
    """

    def __init__(self, poll):
        micropython.kbd_intr(-1)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = poll  # the board's, with stdin registered
        self._one = bytearray(1)

    def readinto(self, buf):
        n = 0
        size = len(buf)
        while n < size:
            ready = False
            for _ in self._poll.ipoll(0):
                ready = True
            if not ready:
                break
            if not self._in.readinto(self._one):
                raise OSError("USB link closed")
            buf[n] = self._one[0]
            n += 1
        return n

    def write(self, data):
        self._out.write(data)

    def close(self):
        micropython.kbd_intr(3)


class RefS3Board:
    name = "ref-s3"

    def __init__(self, cfg):
        from board import pinout
        p = pinout.load()
        Pin(p["BL"], Pin.OUT, value=0)  # dark until the first frame is drawn
        spi = SPI(SPI_ID, baudrate=SPI_HZ, sck=Pin(p["SCK"]), mosi=Pin(p["MOSI"]), miso=Pin(p["MISO"]))
        cs, dc, rst, bl = Pin(p["CS"]), Pin(p["DC"]), Pin(p["RST"]), p["BL"]
        Pin(p["TOUCH_RST"], Pin.OUT, value=1)
        i2c = I2C(I2C_ID, scl=Pin(p["SCL"]), sda=Pin(p["SDA"]), freq=I2C_HZ)
        del p, pinout
        gc.collect()  # the band buffers next: from an unfragmented heap
        self.display = ST7796(spi, cs, dc, rst, rows=cfg.rows)
        Pin(bl, Pin.OUT, value=1)
        self.touch = FT6206(i2c)
        self.emit = None  # no control channel: stdout is the hub link
        self.ended = False  # a seat board runs until it is switched off
        self._poll = select.poll()
        self._poll.register(sys.stdin.buffer, select.POLLIN)

    def wait(self, ms):
        """Sleep until the link has something or the touch is due for a look, at most ``ms``."""
        for _ in self._poll.ipoll(ms if ms < POLL_MS else POLL_MS):
            break

    def open_port(self):
        return UsbCdcPort(self._poll)


def setup(cfg):
    return RefS3Board(cfg)
