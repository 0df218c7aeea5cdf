"""Driver for the reference seat's capacitive touch controller: FocalTech FT6206/FT6336U
(the same register map) on I2C, address 0x38.

The controller reports the panel's native portrait coordinates (320×480); ``rotate``
maps them to the landscape screen the firmware draws (480×320).  A tap is a touch that
went down and came up again; its position is where it went down (a finger that slides
off a card does not pick the next one).  The app's loop calls :meth:`FT6206.poll` often;
it reads the controller at most every 20 ms (one 5-byte I2C read into a preallocated
buffer).

    i2c = I2C(0, scl=Pin(8), sda=Pin(18), freq=400_000)
    touch = FT6206(i2c)
    p = touch.poll()            # (x, y) once a finger has lifted, else None
"""

import time

from micropython import const

ADDR = const(0x38)
_TD_STATUS = const(0x02)  # number of touches, then P1_XH P1_XL P1_YH P1_YL
POLL_MS = const(20)
NATIVE_W = const(320)
NATIVE_H = const(480)


class FT6206:
    """Touch points in screen coordinates (landscape by default)."""

    def __init__(self, i2c, addr=ADDR, rotate=True, flip_x=False, flip_y=False):
        self._i2c = i2c
        self._addr = addr
        self._buf = bytearray(5)
        self.rotate = rotate
        self.flip_x = flip_x
        self.flip_y = flip_y
        self.x = 0
        self.y = 0
        self._held = False  # a finger is down; (_tx, _ty) is where it went down
        self._tx = 0
        self._ty = 0
        self._lx = 0  # where it was last seen (a drag ends there)
        self._ly = 0
        self._last = time.ticks_ms()  # when the controller was last read

    def read(self):
        """True while a finger is down; then ``x``/``y`` hold its screen position."""
        b = self._buf
        self._i2c.readfrom_mem_into(self._addr, _TD_STATUS, b)
        n = b[0] & 0x0F
        if n == 0 or n > 2:  # 0: nothing; >2: the controller's "invalid" report
            return False
        px = ((b[1] & 0x0F) << 8) | b[2]
        py = ((b[3] & 0x0F) << 8) | b[4]
        if self.rotate:  # landscape: screen x runs along the panel's long side
            x, y = py, NATIVE_W - 1 - px
            w, h = NATIVE_H, NATIVE_W
        else:
            x, y = px, py
            w, h = NATIVE_W, NATIVE_H
        if self.flip_x:
            x = w - 1 - x
        if self.flip_y:
            y = h - 1 - y
        self.x = x
        self.y = y
        return True

    def _down(self):
        try:
            return self.read()
        except OSError:  # a glitch on the bus reads as "no finger"; the next poll retries
            return False

    def poll(self):
        """The tap ``(x, y)`` once a finger that went down has lifted (``(x, y, x1, y1)`` if it
        moved from x, y to x1, y1: a drag), else None.  Reads the
        controller at most every POLL_MS; never blocks."""
        now = time.ticks_ms()
        if time.ticks_diff(now, self._last) < POLL_MS:
            return None
        self._last = now
        if self._down():
            if not self._held:
                self._held = True
                self._tx = self.x
                self._ty = self.y
            self._lx = self.x
            self._ly = self.y
            return None
        if self._held:
            self._held = False
            # A finger that moved more than a card's gap (8 px, 1.2 mm) is a drag.
            if abs(self._lx - self._tx) > 8 or abs(self._ly - self._ty) > 8:
                return self._tx, self._ty, self._lx, self._ly
            return self._tx, self._ty
        return None
