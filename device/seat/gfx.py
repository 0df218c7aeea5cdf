"""Drawing: bitmap fonts and the widgets screens are made of.

Everything here draws into one band of the display (see ``board/band.py``): ``draw(w, fb,
y0, ui)`` gets the band (a ``framebuf.FrameBuffer``) and the screen row of its top, and
draws with ``y - y0``; ``framebuf`` clips what falls outside.  Drawing allocates nothing:
texts are kept as UTF-8 ``bytes`` and decoded with integer arithmetic, glyph bitmaps are
copied from the font module's ``bytes`` (through ``io.BytesIO``, which shares the buffer)
into one preallocated tile, and the tile is blitted with a 2-entry palette.  Building
widgets (when a screen changes) may allocate; drawing them may not.

A widget is a tuple ``(kind, x, y, w, h, …)``, not an object: on the 64-bit unix port a
widget class costs about 400 bytes of heap and each instance about 170, a tuple about 100
and no class at all.  The fields after the box, per kind:

========  ==========================================================================
BOX       fill colour, border colour (-1: none); optionally UTF-8 bytes and their colour, a
          line of the UI font 4 px in (a panel's header: one tuple, not a box and a TEXT)
TEXT      UTF-8 bytes, colour, font (a :class:`Font`: the UI font, or the card font's
          large digits for the typed player number)
BUTTON    label bytes (may be empty: a TEXT over it, e.g. a keypad's large digit), tap id,
          colour (grey when disabled), enabled, label x
HAND      cards (sorted bytearray of card numbers), selected (:func:`card_flags`), step,
          tappable, top row of an unselected card, per row, card height, lift, marks, card width
CARDROW   cards (bytearray), face colour: small faces of the UI font (white; grey for a play
          beaten since)
CELLS     a table: column x positions, rows ``(y, bytes)`` of the row's texts separated
          by NUL bytes, colour — one bytes object per row, not an object per cell
CLOCK     nothing: the countdown, drawn from the mirror at every refresh
OWN       a game's own widget (kind 9): its function ``f`` then what it keeps; ``f(w, op, a, b,
          c)`` draws (op 0: band, y0, ui), hits (1: x, y, index), writes its hit map entries
          (2: write, sep; returns the separator) and its texts (3: out) — so a game with its own
          cards (not the 54 of ``CODES``) draws them without a kind here for each game
========  ==========================================================================

Widgets are few and composite (a whole hand, a whole table): a 13-card hand is one tuple
holding its cards as a ``bytearray`` of card numbers, not 13 objects.
"""

import io
import time

import framebuf
from micropython import const

# Palette indices of board/band.py (private: folded into the code, no heap).
_WHITE = const(1)
_BLACK = const(2)
_RED = const(3)
_GREY = const(4)
_DARK = const(5)
_YELLOW = const(6)
_BLUE = const(7)
_ORANGE = const(9)
_CREAM = const(11)

_IX = const(514)  # bytes of the bucket index in front of a font's CODES (paizhuo.sim.glyphs)
BOX = const(0)
TEXT = const(1)
BUTTON = const(2)
HAND = const(3)
CARDROW = const(4)
CELLS = const(5)
CLOCK = const(6)
_GREYROW = const(7)  # a CARDROW on grey: the colour in the kind, not a seventh item (a heap block a row)
_BEATROW = const(8)  # a CARDROW framed yellow, 4 px out (the play to beat): one widget, not two
_OWN = const(9)  # a game's own widget (see above); checked before the CARDROW kinds (>= _GREYROW)
_MISSING = const(0xFFFD)
# Touch targets.  The reference panel is 3.5" across 480×320 px: 576.9 px on the diagonal
# over 88.9 mm, 6.49 px/mm.  Touch guidelines ask for targets of about 7-9 mm (45-58 px);
# 34×62 px cards overlapping in one row of 13 left 5.2 mm of each under a finger.
# A game may ask for wide cards (``hand``'s ``w``): 62×44 px (9.6×6.8 mm, a 13-card hand's) side by
# side with 4 px (0.6 mm) between them in two rows of at most 7 (device/README.md, "Touch"),
# the rank beside the suit; a picked wide card is cream, framed yellow and 3 px higher.
_CARD_W = const(34)
_CARD_H = const(62)
_CARD_LIFT = const(16)  # a selected card sits this much higher

# Cards are numbers rank * 4 + suit, the order the hub's card codes use: ♦3 = 0 … ♠2 = 51.
# The codes, from a list display on purpose: MicroPython keeps the short string literals of
# a list display as qstrs (a constant tuple would hold 52 str objects), and its JSON parser
# returns an existing qstr for a string it reads instead of allocating one — so the card
# codes of every hub message cost no heap (a view with 40 cards: about 2.5 KB less).
CODES = tuple([
    "3D", "3C", "3H", "3S", "4D", "4C", "4H", "4S", "5D", "5C", "5H", "5S", "6D", "6C", "6H", "6S",
    "7D", "7C", "7H", "7S", "8D", "8C", "8H", "8S", "9D", "9C", "9H", "9S", "TD", "TC", "TH", "TS",
    "JD", "JC", "JH", "JS", "QD", "QC", "QH", "QS", "KD", "KC", "KH", "KS", "AD", "AC", "AH", "AS",
    "2D", "2C", "2H", "2S", "BJ", "RJ",
])  # and the jokers of the decks that have them: 小王 52, 大王 53
ELLIPSIS = "…".encode()
# Faces as drawn: ranks (T is 10) and suits ♦ ♣ ♥ ♠, as UTF-8 in one constant each.
_RANKS = b"345678910JQKA2"
_SUITS = "♦♣♥♠".encode()
_JOKER = "小大王".encode()  # 小王 small (black), 大王 big (red): "小"/"大" over "王"


def card_bytes(codes):
    """A sorted ``bytearray`` of card numbers for a list of codes (unknown codes left out)."""
    out = bytearray()
    for c in codes:
        if c in CODES:
            out.append(CODES.index(c))
    return bytearray(sorted(out))


def card_flags(codes):
    """A 54-byte table: at the number of each card, how many of ``codes`` are that card (two
    decks hold two of each; O(1) look-ups while drawing, no allocation)."""
    out = bytearray(54)
    for c in codes:
        if c in CODES:
            out[CODES.index(c)] += 1
    return out


class Font:
    """A generated font module (``font16``/``font24``) ready to draw."""

    def __init__(self, mod):
        self.height = mod.HEIGHT
        self._codes = memoryview(mod.CODES)  # a bucket index per high byte, then the codes
        self._widths = mod.WIDTHS
        self._size = mod.HEIGHT * mod.ROW
        self._data = io.BytesIO(mod.DATA)  # shares the module's bytes: no copy
        self._buf = bytearray(self._size)
        self._tile = framebuf.FrameBuffer(self._buf, mod.ROW * 8, mod.HEIGHT, framebuf.MONO_HLSB)
        self._pal = framebuf.FrameBuffer(bytearray(1), 2, 1, framebuf.GS4_HMSB)
        self._box = self._find(_MISSING)
        self.misses = 0  # characters drawn as a box since start (the font lacks them)

    def _find(self, cp):
        c = self._codes
        h = (cp >> 8) << 1
        lo = (c[h] << 8) | c[h + 1]  # the bucket of cp's high byte: about 50 of 4,000 codes
        hi = ((c[h + 2] << 8) | c[h + 3]) - 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            v = (c[_IX + (mid << 1)] << 8) | c[_IX + (mid << 1) + 1]
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
        """Width in pixels of UTF-8 ``s`` (bytes).  Texts are measured as bytes, never by
        iterating a ``str``: MicroPython interns every character a str iteration yields,
        and those qstrs stay on the heap for good."""
        return self.draw(None, 0, 0, s, 0)

    def draw(self, fb, x, y, s, color, i=0, end=-1, stop=-1):
        """Draw UTF-8 ``s[i:end]`` (bytes or bytearray; ``end`` -1: to the end) with its
        top-left at (x, y) of the band; return the end x.  ``fb`` None only measures; then
        ``stop`` >= 0 makes it return, instead, the index of the first character that would
        end past x = stop (or ``end``)."""
        if fb is not None:
            self._pal.pixel(1, 0, color)
        data = self._data
        buf = self._buf
        tile = self._tile
        pal = self._pal
        size = self._size
        n = len(s) if end < 0 else end
        while i < n:
            b = s[i]
            if b < 0x80:
                cp = b
                k = 1
            elif b < 0xE0:
                cp = ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
                k = 2
            elif b < 0xF0:
                cp = ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
                k = 3
            else:
                cp = _MISSING
                k = 4
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
            if 0 <= stop < x:
                return i
            i += k
        return n if stop >= 0 else x

    def cut(self, s, w, i=0):
        """The index into UTF-8 ``s`` up to which the characters from ``i`` fit ``w`` pixels."""
        return self.draw(None, 0, 0, s, 0, i, -1, w)


# ---- widgets --------------------------------------------------------------------------------

def text(font, x, y, s, color, w=-1):
    """A TEXT widget: one line in ``font`` at x, or with ``w`` >= 0 centred in the span
    (x, w); its box is the text itself.  ``s`` is a str or UTF-8 bytes."""
    b = s.encode() if isinstance(s, str) else s
    tw = font.width(b)
    if w >= 0:
        x += (w - tw) // 2
    return (TEXT, x, y, tw, font.height, b, color, font)


def button(font, x, y, w, h, label, tap, color, enabled=True):
    """A BUTTON: tappable; a disabled one is grey and ignores taps."""
    b = label.encode()
    return (BUTTON, x, y, w, h, b, tap, color if enabled else _GREY, enabled, x + (w - font.width(b)) // 2)


def hand(y, cards, selected, tappable, width=480, per_row=0, card_h=_CARD_H, marks=-1, w=_CARD_W):
    """The seat's own HAND: big card faces side by side (rank over suit, in the card font);
    a picked card rises.  With ``tappable`` each card is in the hit map as ``card:<code>``
    (the second of two equal cards as ``card:<code>+``).  ``selected``: :func:`card_flags`
    (how many of each card are picked: the first copies rise).  ``per_row`` > 0 breaks
    the hand into rows of that many cards, ``card_h`` + 6 apart, or the lift + 1 when a card
    rises more (a raised card never covers the one above it: one card under a finger) (a 27-card hand: two rows
    of 14 and 13 — the game's screen module says why); ``marks``: the rank (0 for 3 … 12 for 2)
    whose four suits are framed orange (a game's level cards), -1 for none (an int, not a
    table: 96 bytes less on the busiest screen); ``w`` (the card width, named
    as an existing qstr) wider than 34 px: cards side by side 4 px apart, rank beside suit
    (device/README.md, "Touch targets")."""
    n = len(cards)
    k = per_row if 0 < per_row < n else n
    wide = w > _CARD_W
    step = w + 4 if wide else (36 if k < 2 else min(36, (width - 8 - _CARD_W) // (k - 1)))
    x = (width - (step * (k - 1) + w)) // 2 if n else 0
    lift = 3 if wide else (_CARD_LIFT if card_h == _CARD_H else card_h // 4)
    rows = (n + k - 1) // k if n else 1
    gap = 6 if lift < 6 else lift + 1
    return (HAND, x, y - lift, step * (k - 1) + w if n else 0, (card_h + gap) * rows - gap + lift,
            cards, selected, step, tappable, y, k, card_h, lift, marks)  # the card width: step - 4 when wide


def _card_at(w, i, copy):
    """(x, y) of the i-th card of HAND ``w`` (``copy``: it is the copy-th of its number)."""
    k = w[10]
    y = w[9] + (i // k) * (w[11] + (6 if w[12] < 6 else w[12] + 1))
    return w[1] + (i % k) * w[7], y - w[12] if copy < w[6][w[5][i]] else y


def cardrow(font, x, y, w, cards, rows=1, color=_WHITE):
    """A CARDROW: small faces (``♠A ♥10``) in the UI font, wrapped to ``w`` in up to ``rows``
    rows, on ``color`` (white; grey for a play that is no longer the one to beat)."""
    if color == _YELLOW:  # the play to beat: white faces in a yellow frame, its box the frame's
        return (_BEATROW, x - 4, y - 2, w + 8, rows * (font.height + 2) + 3, cards)
    return (CARDROW if color == _WHITE else _GREYROW, x, y, w, rows * (font.height + 2), cards)


def hit(w, x, y, index):
    """The tap id of widget ``w`` under (x, y), or None; with ``index``, for a HAND, the
    index of its card there instead (a drag's ends; one function, not two: each costs heap)."""
    k = w[0]
    if k == _OWN:
        return w[5](w, 1, x, y, index)
    if k == BUTTON:
        if w[1] <= x < w[1] + w[3] and w[2] <= y < w[2] + w[4]:
            return w[6]
    elif k == HAND and w[8]:
        # The last card drawn under the finger (cards are drawn left to right, row by row).
        cards = w[5]
        cw = w[7] - 4 if w[7] > 36 else _CARD_W
        for i in range(len(cards) - 1, -1, -1):
            n = cards[i]
            copy = 1 if i and cards[i - 1] == n else 0
            cx, cy = _card_at(w, i, copy)
            if cx <= x < cx + cw and cy <= y < cy + w[11]:
                return i if index else "card:" + CODES[n] + ("+" if copy else "")
    return None


def taps(w, write, sep):
    """Write the hit map entries of widget ``w`` (``"id":[x,y,w,h,enabled]``, the first after
    ``sep``, the others after a comma) with ``write``: the host's control channel, piece by
    piece (no list is built).  Returns the separator for the next entry."""
    k = w[0]
    if k == _OWN:
        return w[5](w, 2, write, sep, None)
    if k == BUTTON:
        write('%s"%s":[%d,%d,%d,%d,%d]' % (sep, w[6], w[1], w[2], w[3], w[4], 1 if w[8] else 0))
        return ","
    if k == HAND and w[8]:
        cards = w[5]
        for i in range(len(cards)):
            n = cards[i]
            copy = 1 if i and cards[i - 1] == n else 0
            cx, cy = _card_at(w, i, copy)
            cw = w[7] - 4 if w[7] > 36 else _CARD_W
            if i + 1 < len(cards) and (i + 1) % w[10] and w[7] < cw:
                cw = w[7]  # the part of an overlapped card a finger reaches (hit: the one drawn last)
            write('%s"card:%s%s":[%d,%d,%d,%d,1]' % (sep, CODES[n], "+" if copy else "", cx, cy, cw, w[11]))
            sep = ","
    return sep


def texts(w, out):
    """Append the texts widget ``w`` shows (for the control channel)."""
    k = w[0]
    if k == _OWN:
        w[5](w, 3, out, None, None)
    elif k == TEXT or k == BUTTON:
        if w[5]:  # a keypad key's label is the TEXT over it
            out.append(w[5])
    elif k == BOX and len(w) > 7:
        out.append(w[7])
    elif k == CELLS:
        for row in w[6]:
            out.extend(row[1].split(b"\0"))
    elif k == HAND or k == CARDROW or k >= _GREYROW:
        out.append(" ".join(CODES[n] for n in w[5]).encode())


def draw(w, fb, y0, ui):
    """Draw widget ``w`` into the band ``fb`` whose top is screen row ``y0``.  Allocates nothing."""
    k = w[0]
    x = w[1]
    y = w[2] - y0
    if k == _OWN:
        w[5](w, 0, fb, y0, ui)
    elif k == BOX:
        if w[5] >= 0:
            fb.fill_rect(x, y, w[3], w[4], w[5])
        if w[6] >= 0:
            fb.rect(x, y, w[3], w[4], w[6])
        if len(w) > 7:
            ui.f16.draw(fb, x + 4, y + 4, w[7], w[8])
    elif k == TEXT:
        w[7].draw(fb, x, y, w[5], w[6])
    elif k == BUTTON:
        font = ui.f16
        fb.fill_rect(x, y, w[3], w[4], w[7])
        fb.rect(x, y, w[3], w[4], _WHITE if w[8] else _DARK)
        font.draw(fb, w[9], y + (w[4] - font.height) // 2, w[5], _WHITE)
    elif k == HAND:
        font = ui.f24
        sel = w[6]
        cards = w[5]
        ch = w[11]
        marks = w[13]
        face = 4 if ch == _CARD_H else 2  # the rank's top row; the suit's 28 rows lower
        prev = -1
        copy = 0
        for i in range(len(cards)):
            n = cards[i]
            copy = copy + 1 if n == prev else 0
            prev = n
            s = copy < sel[n]
            k = w[10]  # as _card_at, inline: a returned tuple would allocate while drawing
            x = w[1] + (i % k) * w[7]
            y = w[9] + (i // k) * (ch + (6 if w[12] < 6 else w[12] + 1)) - y0  # the rows' gap: as hand's
            if s:
                y -= w[12]
            cw = (w[7] - 4 if w[7] > 36 else _CARD_W)
            fb.fill_rect(x + 1, y + 1, cw - 2, ch - 2, _CREAM if s else _WHITE)
            fb.rect(x, y, cw, ch, _YELLOW if s else (_ORANGE if n >> 2 == marks else _BLACK))
            if s or n >> 2 == marks:
                fb.rect(x + 1, y + 1, cw - 2, ch - 2, _YELLOW if s else _ORANGE)
            if s and cw > _CARD_W:  # a wide card hardly rises: a thicker frame marks it
                fb.rect(x + 2, y + 2, cw - 4, ch - 4, _YELLOW)
            if n >= 52:  # a joker: 小/大 over 王, black and red
                c = _RED if n == 53 else _BLACK
                a = (n - 52) * 3
                font.draw(fb, x + 5, y + face, _JOKER, c, a, a + 3)
                font.draw(fb, x + 5, y + face + 28, _JOKER, c, 6, 9)
                continue
            c = _RED if (n & 3) == 0 or (n & 3) == 2 else _BLACK  # ♦ ♥
            r = n >> 2  # the rank's face in _RANKS: "10" for T (r 7) is two bytes
            a = r if r < 8 else r + 1
            b = a + 2 if r == 7 else a + 1
            if cw > _CARD_W:  # wide: rank beside suit, the pair centred
                q = (n & 3) * 3
                left = x + (cw - font.draw(None, 0, 0, _RANKS, 0, a, b) - font.draw(None, 0, 0, _SUITS, 0, q, q + 3)) // 2
                font.draw(fb, font.draw(fb, left, y + (ch - 24) // 2, _RANKS, c, a, b), y + (ch - 24) // 2, _SUITS, c,
                          q, q + 3)
                continue
            font.draw(fb, x + (_CARD_W - font.draw(None, 0, 0, _RANKS, 0, a, b)) // 2, y + face, _RANKS, c, a, b)
            a = (n & 3) * 3
            font.draw(fb, x + (_CARD_W - font.draw(None, 0, 0, _SUITS, 0, a, a + 3)) // 2, y + face + 28, _SUITS, c,
                      a, a + 3)
    elif k == CARDROW or k >= _GREYROW:
        font = ui.f16
        end = x + w[3]
        bottom = y + w[4]
        if k == _BEATROW:
            fb.rect(x, y, w[3], w[4], _YELLOW)
            x += 4
            y += 2
            end -= 4
            bottom -= 1
        left = x
        step = font.height + 2
        for n in w[5]:
            if n >= 52:  # a joker, in small faces: 小王 / 大王 (the rank's place holds 王)
                a, b, s = 6, 9, (n - 52) * 3
                cw = 34
            else:
                r = n >> 2
                a = r if r < 8 else r + 1
                b = a + 2 if r == 7 else a + 1
                s = (n & 3) * 3
                cw = font.draw(None, 0, 0, _SUITS, 0, s, s + 3) + font.draw(None, 0, 0, _RANKS, 0, a, b) + 2
            if x + cw > end and x > left:
                x = left
                y += step
                if y + step > bottom:
                    return
            fb.fill_rect(x, y, cw, font.height + 1, _GREY if k == _GREYROW else _WHITE)
            if n >= 52:
                c = _RED if n == 53 else _BLACK
                font.draw(fb, font.draw(fb, x + 1, y + 1, _JOKER, c, s, s + 3), y + 1, _JOKER, c, a, b)
            else:
                c = _RED if (n & 3) == 0 or (n & 3) == 2 else _BLACK
                font.draw(fb, font.draw(fb, x + 1, y + 1, _SUITS, c, s, s + 3) - 1, y + 1, _RANKS, c, a, b)
            x += cw + 1
    elif k == CELLS:
        font = ui.f16
        top = y0 - font.height
        bottom = y0 + fb.rows  # fb: the band (a BandDisplay)
        xs = w[5]
        for cy, b in w[6]:
            if top < cy < bottom:
                i = 0
                for cx in xs:
                    j = b.find(b"\0", i)
                    if j < 0:
                        j = len(b)
                    font.draw(fb, cx, cy - y0, b, w[7], i, j)
                    i = j + 1
    elif k == CLOCK:
        m = ui.m
        secs = (m.clock_left(time.ticks_ms()) + 999) // 1000
        mine = m.has_clock and m.seat in m.clock_seats
        colour = _RED if secs <= 5 and not m.clock_paused else (_YELLOW if mine else _WHITE)
        fb.fill_rect(x, y, w[3], w[4], _BLUE if mine else _DARK)
        fb.rect(x, y, w[3], w[4], colour)
        d = ui.digits
        i = 3
        while True:
            i -= 1
            d[i] = 48 + secs % 10
            secs //= 10
            if secs == 0 or i == 0:
                break
        # Right-aligned seconds: digits are 8 px wide in the UI font.
        ui.f16.draw(fb, x + w[3] - 6 - 8 * (3 - i), y + 2, d, colour, i)
        if m.clock_paused:
            fb.fill_rect(x + 6, y + 5, 3, 10, colour)
            fb.fill_rect(x + 12, y + 5, 3, 10, colour)
