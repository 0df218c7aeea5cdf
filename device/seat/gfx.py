"""Drawing: bitmap fonts and the widgets screens are made of.

Everything here draws into one band of the display (see ``board/band.py``): ``draw(fb, y0)``
gets the band (a ``framebuf.FrameBuffer``) and the screen row of its top, and draws with
``y - y0``; ``framebuf`` clips what falls outside.  Drawing allocates nothing: texts are
kept as UTF-8 ``bytes`` and decoded with integer arithmetic, glyph bitmaps are copied from
the font module's ``bytes`` (through ``io.BytesIO``, which shares the buffer) into one
preallocated tile, and the tile is blitted with a 2-entry palette.  Building widgets
(when a screen changes) may allocate; drawing them may not.

Widgets are few and composite (a whole hand, a whole opponent panel) because every object
costs heap: a 13-card hand is one widget holding the cards as a ``bytearray`` of card
numbers, not 13 objects (measured on the unix port: about 10 KB less per play screen).
"""

import io

import framebuf
from micropython import const

from board.band import WHITE, BLACK, RED, GREY, YELLOW, CREAM, DARK

LEFT = const(0)
CENTER = const(1)
RIGHT = const(2)
_MISSING = const(0xFFFD)
CARD_W = const(34)
CARD_H = const(62)
CARD_LIFT = const(16)  # a selected card sits this much higher

# Cards are numbers rank * 4 + suit (paizhuo_shared.bigtwo's order: ♦3 = 0 … ♠2 = 51).
RANKS = "3456789TJQKA2"
SUITS = "DCHS"
_RANK_FACES = (b"3", b"4", b"5", b"6", b"7", b"8", b"9", b"10", b"J", b"Q", b"K", b"A", b"2")
_SUIT_FACES = ("♦".encode(), "♣".encode(), "♥".encode(), "♠".encode())


def card_number(code):
    """``"3D"`` -> 0, ``"2S"`` -> 51 (-1 for anything else)."""
    if len(code) != 2:
        return -1
    r = RANKS.find(code[0])
    s = SUITS.find(code[1])
    return -1 if r < 0 or s < 0 else r * 4 + s


def card_code(n):
    return RANKS[n >> 2] + SUITS[n & 3]


def card_bytes(codes):
    """A sorted ``bytearray`` of card numbers for a list of codes (unknown codes left out)."""
    out = bytearray()
    for c in codes:
        n = card_number(c)
        if n >= 0:
            out.append(n)
    return bytearray(sorted(out))


def card_flags(codes):
    """A 52-byte table: 1 at the number of each card in ``codes`` (O(1) look-ups, no allocation)."""
    out = bytearray(52)
    for c in codes:
        n = card_number(c)
        if n >= 0:
            out[n] = 1
    return out


def _suit_colour(n):
    return RED if (n & 3) in (0, 2) else BLACK  # ♦ ♥


class Font:
    """A generated font module (``font16``/``font24``) ready to draw."""

    def __init__(self, mod):
        self.height = mod.HEIGHT
        self._codes = memoryview(mod.CODES)
        self._widths = mod.WIDTHS
        self._n = len(mod.WIDTHS)
        self._size = mod.HEIGHT * mod.ROW
        self._data = io.BytesIO(mod.DATA)  # shares the module's bytes: no copy
        self._buf = bytearray(self._size)
        self._tile = framebuf.FrameBuffer(self._buf, mod.ROW * 8, mod.HEIGHT, framebuf.MONO_HLSB)
        self._pal = framebuf.FrameBuffer(bytearray(1), 2, 1, framebuf.GS4_HMSB)
        self._box = self._find(_MISSING)
        self.misses = 0  # characters drawn as a box since start (the font lacks them)

    def _find(self, cp):
        c = self._codes
        lo = 0
        hi = self._n - 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            v = (c[mid << 1] << 8) | c[(mid << 1) + 1]
            if v < cp:
                lo = mid + 1
            elif v > cp:
                hi = mid - 1
            else:
                return mid
        return -1

    def has(self, ch):
        """True if the font holds the character ``ch`` (a one-character str)."""
        return self._find(ord(ch)) >= 0

    def width(self, s):
        """Width in pixels of ``s`` (str, or UTF-8 bytes of ASCII and 3-byte characters)."""
        w = 0
        if isinstance(s, str):
            for ch in s:
                i = self._find(ord(ch))
                w += self._widths[i if i >= 0 else self._box]
            return w
        return self.draw(None, 0, 0, s, 0)

    def draw(self, fb, x, y, s, color, i=0):
        """Draw UTF-8 ``s`` (bytes or bytearray) from index ``i`` with its top-left at (x, y)
        of the band; return the end x.  ``fb`` None only measures."""
        if fb is not None:
            self._pal.pixel(1, 0, color)
        data = self._data
        buf = self._buf
        tile = self._tile
        pal = self._pal
        size = self._size
        n = len(s)
        while i < n:
            b = s[i]
            if b < 0x80:
                cp = b
                i += 1
            elif b < 0xE0:
                cp = ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
                i += 2
            elif b < 0xF0:
                cp = ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
                i += 3
            else:
                cp = _MISSING
                i += 4
            g = self._find(cp)
            if g < 0:
                g = self._box
                if fb is not None:
                    self.misses += 1
            if fb is not None:
                data.seek(g * size)
                data.readinto(buf)
                fb.blit(tile, x, y, 0, pal)
            x += self._widths[g]
        return x


class Widget:
    """A rectangle on the screen.  ``tap`` is its id in the hit map (None: not tappable);
    composite widgets override :meth:`hit` and :meth:`taps`."""

    tap = None
    enabled = True

    def __init__(self, x, y, w, h):
        self.x = x
        self.y = y
        self.w = w
        self.h = h

    def hit(self, x, y):
        """The tap id under (x, y), or None."""
        if self.tap is not None and self.x <= x < self.x + self.w and self.y <= y < self.y + self.h:
            return self.tap
        return None

    def taps(self, out):
        """Append ``(id, x, y, w, h, enabled)`` for each tappable part (the hit map)."""
        if self.tap is not None:
            out.append((self.tap, self.x, self.y, self.w, self.h, self.enabled))

    def texts(self, out):
        """Append the texts shown (for the control channel)."""

    def draw(self, fb, y0):
        pass


class Box(Widget):
    """A filled rectangle with an optional border (colour -1: none)."""

    def __init__(self, x, y, w, h, fill, border=-1):
        super().__init__(x, y, w, h)
        self.fill = fill
        self.border = border

    def draw(self, fb, y0):
        if self.fill >= 0:
            fb.fill_rect(self.x, self.y - y0, self.w, self.h, self.fill)
        if self.border >= 0:
            fb.rect(self.x, self.y - y0, self.w, self.h, self.border)


class Text(Widget):
    """One line of text in the UI font, aligned in the span (x, w).  The widget's box is
    the text itself; ``b`` holds it as UTF-8."""

    def __init__(self, font, x, y, text, color, w=0, align=LEFT):
        b = text.encode()
        tw = font.width(b)
        if align == CENTER:
            x += (w - tw) // 2
        elif align == RIGHT:
            x += w - tw
        super().__init__(x, y, tw, font.height)
        self.font = font
        self.b = b
        self.color = color

    def texts(self, out):
        out.append(self.b.decode())

    def draw(self, fb, y0):
        self.font.draw(fb, self.x, self.y - y0, self.b, self.color)


class Cells(Widget):
    """Many short texts in one widget (a table): ``add(x, y, text, colour)``.  One object and
    a tuple per cell instead of a widget per cell (the result table has 30 cells)."""

    def __init__(self, font, x, y, w, h):
        super().__init__(x, y, w, h)
        self.font = font
        self.cells = []

    def add(self, x, y, text, color):
        self.cells.append((x, y, text.encode(), color))

    def texts(self, out):
        for cell in self.cells:
            out.append(cell[2].decode())

    def draw(self, fb, y0):
        font = self.font
        top = y0 - font.height
        bottom = y0 + fb.rows  # fb: the band (a BandDisplay)
        for x, y, b, color in self.cells:
            if top < y < bottom:
                font.draw(fb, x, y - y0, b, color)


class Button(Widget):
    """A tappable button; a disabled button is grey and ignores taps."""

    def __init__(self, font, x, y, w, h, label, tap, color, enabled=True):
        super().__init__(x, y, w, h)
        self.tap = tap
        self.enabled = enabled
        self.color = color if enabled else GREY
        self.font = font
        self.b = label.encode()
        self.tx = x + (w - font.width(self.b)) // 2

    def texts(self, out):
        out.append(self.b.decode())

    def draw(self, fb, y0):
        y = self.y - y0
        fb.fill_rect(self.x, y, self.w, self.h, self.color)
        fb.rect(self.x, y, self.w, self.h, WHITE if self.enabled else DARK)
        self.font.draw(fb, self.tx, y + (self.h - self.font.height) // 2, self.b, WHITE)


class Hand(Widget):
    """The seat's own hand: big card faces side by side (rank over suit, in the card font).

    ``cards`` is a sorted bytearray of card numbers, ``selected`` a 52-byte table of the
    cards picked (:func:`card_flags`); a picked card rises.  With ``tappable`` each card is in the hit map as ``card:<code>``.
    """

    def __init__(self, font, y, cards, selected, tappable, width=480):
        n = len(cards)
        step = 36 if n < 2 else min(36, (width - 8 - CARD_W) // (n - 1))
        x = (width - (step * (n - 1) + CARD_W)) // 2 if n else 0
        super().__init__(x, y - CARD_LIFT, step * (n - 1) + CARD_W if n else 0, CARD_H + CARD_LIFT)
        self.font = font
        self.cards = cards
        self.selected = selected
        self.step = step
        self.tappable = tappable
        self.top = y

    def _card_y(self, n):
        return self.top - CARD_LIFT if self.selected[n] else self.top

    def hit(self, x, y):
        if not self.tappable:
            return None
        # The rightmost card under the finger (cards are drawn left to right).
        for i in range(len(self.cards) - 1, -1, -1):
            n = self.cards[i]
            cx = self.x + i * self.step
            cy = self._card_y(n)
            if cx <= x < cx + CARD_W and cy <= y < cy + CARD_H:
                return "card:" + card_code(n)
        return None

    def taps(self, out):
        if self.tappable:
            for i in range(len(self.cards)):
                n = self.cards[i]
                out.append(("card:" + card_code(n), self.x + i * self.step, self._card_y(n), CARD_W, CARD_H, True))

    def texts(self, out):
        out.append(" ".join(card_code(n) for n in self.cards))

    def draw(self, fb, y0):
        font = self.font
        x = self.x
        for n in self.cards:
            sel = self.selected[n]
            y = (self.top - CARD_LIFT if sel else self.top) - y0
            fb.fill_rect(x + 1, y + 1, CARD_W - 2, CARD_H - 2, CREAM if sel else WHITE)
            fb.rect(x, y, CARD_W, CARD_H, YELLOW if sel else BLACK)
            if sel:
                fb.rect(x + 1, y + 1, CARD_W - 2, CARD_H - 2, YELLOW)
            c = _suit_colour(n)
            r = _RANK_FACES[n >> 2]
            s = _SUIT_FACES[n & 3]
            font.draw(fb, x + (CARD_W - font.draw(None, 0, 0, r, 0)) // 2, y + 4, r, c)
            font.draw(fb, x + (CARD_W - font.draw(None, 0, 0, s, 0)) // 2, y + 32, s, c)
            x += self.step


class CardRow(Widget):
    """Small card faces (``♠A ♥10``) in the UI font, wrapped to ``w`` in up to ``rows``
    rows; ``cards`` is a bytearray of card numbers."""

    def __init__(self, font, x, y, w, cards, rows=1):
        super().__init__(x, y, w, rows * (font.height + 2))
        self.font = font
        self.cards = cards

    def texts(self, out):
        out.append(" ".join(card_code(n) for n in self.cards))

    def draw(self, fb, y0):
        font = self.font
        x = self.x
        y = self.y - y0
        end = self.x + self.w
        bottom = self.y + self.h - y0
        step = font.height + 2
        for n in self.cards:
            s = _SUIT_FACES[n & 3]
            r = _RANK_FACES[n >> 2]
            cw = font.draw(None, 0, 0, s, 0) + font.draw(None, 0, 0, r, 0) + 2
            if x + cw > end and x > self.x:
                x = self.x
                y += step
                if y + step > bottom:
                    return
            fb.fill_rect(x, y, cw, font.height + 1, WHITE)
            c = _suit_colour(n)
            font.draw(fb, font.draw(fb, x + 1, y + 1, s, c) - 1, y + 1, r, c)
            x += cw + 1
