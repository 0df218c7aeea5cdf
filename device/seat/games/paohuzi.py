"""Paohuzi's seat screens (跑胡子): the deal (a discard, or a claim on the card out) and the
deal's result.  Found through ``seat.games`` by the view's ``game``; the screens every game
shares are ``seat/screens.py``'s.

Three seats, 20-21 cards of 一..十 / 壹..拾 (red: 二七十 贰柒拾).  Layout (rows): top bar
0-23; the hint 26-42 (left of 叫裁判); 上家's panel left and 下家's right (48-183: who, cards
in hand and the 胡息 of the groups this seat sees, the open groups as little columns — a
face-down 偎 (or its 提) as backs — and the latest cards of the seat's pile); between them
the stock count and the dealer (庄), the card out (44×52) with who turned it up (翻出: from
the stock) or discarded it (打出), and the buttons (胡 碰 吃 过 while the seat is asked,
出牌 on its discard); the hand 186-319: columns of up to four cards,
40 px wide and 26 px apart down a column (a finger's 6×4 mm of each card, the whole card at
the bottom), each column's 胡息 over it when it is a group; right of the hand the seat's own
open groups with their 胡息 and the total (open groups + the hand's columns as arranged).

The arrangement is the player's own (``_cols``, kept by this module across views and
resyncs of the same board): tap a card (it is framed yellow), then a card of another column
or the free place under a column (``新列``: a new one) to move it there; a new view only takes
away the cards that left the hand (the picked one first) and puts new ones beside their
kin; a column holds four.  A card picked on the seat's discard and 出牌 discards it.  吃 with
one way and no 比牌 sends it; else a chooser over the middle (46 down) shows each way's
groups as cards, and the one tapped is sent.  Nobody learns who else may claim: a seat not
asked sees 等待其他玩家决定.

The result: the winner (自摸 or not) or 荒庄, 胡息 · 囤 · 番, the 名堂, the winner's groups with
their 胡息, the three scores and where the player goes next.

Card codes become numbers before parsing (``prune``: ``x1``..``x10`` -> 0..9, ``d1``..``d10``
-> 10..19, the numbers of ``paizhuo_shared.paohuzi``): a small int is no heap, a code string
about 48 bytes (a view holds up to about 80); groups become ``[kind, cards …]`` lists.
Measured (unix port, ``tests/test_firmware_paohuzi.py``): 8.5-8.7 KB free at the lowest of
the busiest screens, 0 bytes allocated by the draw loop.

Tap ids: ``card:x5@2.1`` (the card, its column and row), ``card:@3.4`` (the free place of
column 3: row 4 is past its end), ``btn:discard``, ``btn:claim_hu``, ``btn:claim_peng``,
``btn:claim_chi``, ``btn:claim_pass``, ``chi:choice0`` … (the chooser), ``btn:ok`` (its
取消).  Every name here is a qstr for good once the module loads (620 fit the five pools
the firmware has: ``test_qstrs_stay_in_five_pools``), and a string literal of more than 10
characters is not one: hence the long ids, the seat state in ``_cols``'s last bytes and the
constants written where they are used.
"""

import time

from micropython import const

from seat import games, screens, state, text
from seat.gfx import BOX, CELLS, text as label, button

_WHITE = const(1)
_BLACK = const(2)
_RED = const(3)
_GREY = const(4)
_DARK = const(5)
_YELLOW = const(6)
_BLUE = const(7)
_LIGHT = const(8)
_ORANGE = const(9)
_GREEN = const(10)
_CREAM = const(11)
_PANEL = const(12)
_MAROON = const(13)

_OWN = const(9)  # seat/gfx.py's OWN: a widget this module draws (its function, then its data)
_PLAY = const(8)  # screens.GAME: the discard and the claim (one screen)
_RESULT = const(9)
_W = const(480)
_PANEL_Y = const(48)
_PANEL_W = const(138)
_PANEL_H = const(136)
_MID_X = const(146)  # the middle, between the panels: 146-333
_MID_W = const(188)
_HAND_Y = const(186)  # the columns' 胡息 row; the cards from 202
_COL_W = const(42)  # a column: 40 px and a 2 px gap
_STEP = const(26)  # a card's strip down its column
_CARD_H = const(40)
_CELL = const(18)  # a little card (an open group, a pile): 17 px and a gap
_ROWS = const(4)  # cards a column holds
_COLS = const(11)  # columns the arrangement keeps (480 px)
_ALL = const(44)  # _COLS * _ROWS: the places; then the seat's state, one byte each:
_SEL = const(44)  # the picked card's place (255: none)
_FULL = const(45)  # 1: the last move was refused (that column is full)
_CHOOSING = const(46)  # 1: the 吃 chooser is up

# The kinds of groups, numbered in this order (a group is [kind, cards …] here: see prune);
# the first five have fixed 胡息 (small, big: in _hx).
_KINDS = " peng wei pao ti kan chi ju jiao jiang "
_cols = bytearray(b"\xff" * _ALL + b"\xff\x00\x00")  # column c's cards at c*4 .. (255: none), the state
_of = None  # the board the arrangement belongs to


def pick(m):
    """The screen kind: the result, or the deal (a discard or a claim); None: waiting."""
    phase = games.deal_phase(m)
    if phase == "over":
        return _RESULT
    return _PLAY if phase == "discard" or phase == "claim" else None


def name(ui):
    if ui.kind == _PLAY:
        return "chi" if _cols[_CHOOSING] else ui.m.view.get("phase")
    return "result"


def prune(buf, n):
    """Before a frame is parsed (``seat.games.prune``): the view's ``stale``, ``time_limit``,
    ``turn``, ``seat`` and ``huxi`` go (blanked: no screen shows them; the 胡息 of the groups
    the seat sees is summed here from the groups), and once the deal is over its
    groups, piles, hand, counts, 胡息 and claims too (the result screen shows the result's);
    in the view, a result and the
    events, every card code string becomes its number, padded with spaces (``"x10"`` -> ``9    ``),
    so the JSON stays valid and the parser makes small ints, not strings.  (A view's strings
    are codes, kinds and seats: no escapes.)"""
    i = buf.find(b'"view":{', 0, n)
    j = state._skip(buf, i + 7, n) if i >= 0 else -1
    over = j > 0 and buf.find(b'"phase":"over"', i, j) >= 0  # the result screen shows the result only
    c = 0
    # the view's members shown nowhere (the first five); one constant, split when wanted (a
    # tuple of ten would be eleven objects on the heap for good)
    for key in b'"stale": "time_limit": "turn": "seat": "huxi": "open": "piles": "hand": "counts": "may":'.split():
        c += 1
        if c > 5 and not over:
            break
        k = buf.find(key, i, j) if j > 0 else -1
        if k > 0:
            e = state._skip(buf, k + len(key), j)
            if e > 0 and buf[e] == 44:  # with its comma
                state._blank(buf, k, e + 1)
            elif e > 0 and buf[k - 1] == 44:  # the last member: the comma before it
                state._blank(buf, k - 1, e)
    for key in b'"view":{ "result":{ "events":['.split():
        i = buf.find(key, 0, n)
        while i >= 0:
            j = state._skip(buf, i + len(key) - 1, n)
            if j < 0:
                j = n
            g = i
            i = buf.find(b'"', i + len(key), j)
            while i >= 0:
                e = buf.find(b'"', i + 1, j)  # the string's closing quote
                if e < 0:
                    break
                c = buf[i + 1]
                if (c == 120 or c == 100) and ((e - i == 3 and 49 <= buf[i + 2] <= 57)
                                               or (e - i == 4 and buf[i + 2] == 49 and buf[i + 3] == 48)):
                    num = (10 if e - i == 4 else buf[i + 2] - 48) + (-1 if c == 120 else 9)  # x: 0..9, d: 10..19
                    state._blank(buf, i, e + 1)
                    if num > 9:
                        buf[i] = 49
                        i += 1
                    buf[i] = 48 + num % 10
                i = buf.find(b'"', e + 1, j)
            # Then each group {"kind":"peng","cards":[4,4,4]} becomes [0,4,4,4] (the kind's
            # number in _KINDS first; a face-down one, "cards":null, [1]): a list of small
            # ints, not a dict and a list (about 130 bytes less a group parsed, unix port).
            g = buf.find(b'{"kind":"', g, j)
            while g >= 0:
                q = buf.find(b'"', g + 9, j)
                c = buf.find(b',"cards":', q, j) if q > 0 else -1
                e = buf.find(b"}", q, j) if c == q + 1 else -1
                k = _KINDS.find(" " + bytes(buf[g + 9:q]).decode() + " ") if 0 < e and q < g + 15 else -1
                if k < 0:
                    break  # anything else: the rest as sent (build copes with both)
                buf[g] = 91  # [
                buf[g + 1] = 48 + _KINDS.count(" ", 0, k)
                r = buf.find(b"]", c + 10, e) if buf[c + 9] == 91 else -1  # the cards' ]
                if r > c + 10:
                    state._blank(buf, g + 2, c + 10)
                    buf[g + 2] = 44  # ,
                    buf[r] = 32
                    buf[e] = 93
                else:  # null (face down) or no cards
                    state._blank(buf, g + 2, e + 1)
                    buf[g + 2] = 93
                g = buf.find(b'{"kind":"', e, j)
            i = buf.find(key, j, n)


def _code(k, p=0):
    """The code of card number ``k``; of a list of them (or of lists), the list of codes.
    With ``p``, the other way, in place: the cards of list ``k`` (and of its lists) become
    numbers and its groups as the engine writes them (dicts) ``[kind, cards …]``."""
    if p:
        for i in range(len(k or ())):
            c = k[i]
            if isinstance(c, str):
                k[i] = int(c[1:]) + (-1 if c[0] == "x" else 9)
            elif isinstance(c, dict):
                j = _KINDS.find(" " + str(c.get("kind")) + " ")
                k[i] = c = [_KINDS.count(" ", 0, j) if j >= 0 else 5] + list(c.get("cards") or ())
            if isinstance(c, list):
                _code(c, 1)
        return k
    if isinstance(k, int):
        return "xd"[k // 10] + str(k % 10 + 1)
    out = []
    for c in k:
        out.append(_code(c))
    return out


def _hx(kind, cards):
    """胡息 of a group (RULES.md): 碰 1/3, 偎 and 坎 3/6, 跑 6/9, 提 9/12 (small/big), 一二三 and
    二七十 3/6, every other group 0.  ``kind``: the group's number (``_KINDS``); None: a
    column in hand, -1 if it is no group (三 alike is a 坎; a 句 of three in a row or 二七十;
    a 绞); -1: ``cards`` are groups ``[kind, cards …]``, and the answer each one's 胡息
    (bytes, 255: a face-down 偎).

    >>> _hx(0, [14, 14, 14]), _hx(3, [0] * 4), _hx(None, [1, 6, 9]), _hx(None, [13, 14, 15])
    (3, 9, 3, 0)
    >>> _hx(None, [4, 4, 14]), _hx(None, [4, 5]), _hx(None, [2, 2, 2]), _hx(8, [3, 3])
    (0, -1, 3, 0)
    """
    n = len(cards)
    if kind == -1:
        out = bytearray(n)
        for i in range(n):
            g = cards[i]
            out[i] = 255 if len(g) < 2 else max(0, _hx(g[0], g[1:]))
        return out
    if not n:
        return -1
    big = cards[0] >= 10
    if kind is not None and kind < 5:
        return (b"\x03\x06\x09\x0c\x06" if big else b"\x01\x03\x06\x09\x03")[kind]
    no = -1 if kind is None else 0
    if n != 3:
        return no
    s = sorted(cards)
    if s[0] == s[2]:
        return (6 if big else 3) if kind is None else 0
    lo = s[0] // 10 * 10
    if s[2] < lo + 10:  # one case
        a, b, c = s[0] - lo, s[1] - lo, s[2] - lo
        if (a == 0 and b == 1 and c == 2) or (a == 1 and b == 6 and c == 9):
            return 6 if big else 3
        return 0 if b == a + 1 and c == b + 1 else no
    return 0 if s[0] % 10 == s[1] % 10 == s[2] % 10 else no  # a 绞: one number, both cases


# ---- the arrangement --------------------------------------------------------------------------

def _len(k):
    """Cards in column ``k``; with -1, the columns (they are packed from the left)."""
    if k < 0:
        k = 0
        while k < _COLS and _cols[k * _ROWS] != 255:
            k += 1
        return k
    n = 0
    while n < _ROWS and _cols[k * _ROWS + n] != 255:
        n += 1
    return n


def _put(v, hi):
    """Put card ``v`` into a column: beside the same card, else the same number of the other
    case, else a neighbour of its case, else a new column while fewer than ``hi``, else the
    shortest.  With ``hi`` -1, take the card at place ``v`` out of its column instead (a
    column left empty closes up).  (One function, not two: each is heap on the seat.)"""
    if hi < 0:
        p = v
        k = p - p % _ROWS
        for i in range(p, k + _ROWS - 1):
            _cols[i] = _cols[i + 1]
        _cols[k + _ROWS - 1] = 255
        if _cols[k] == 255:
            for i in range(k, _ALL - _ROWS):
                _cols[i] = _cols[i + _ROWS]
            for i in range(_ALL - _ROWS, _ALL):
                _cols[i] = 255
        return
    n = _len(-1)
    best = -1
    score = 0
    for c in range(n):
        ln = _len(c)
        if ln >= _ROWS:
            continue
        s = 1
        for i in range(c * _ROWS, c * _ROWS + ln):
            w = _cols[i]
            t = 4 if w == v else (3 if w % 10 == v % 10 else (2 if w // 10 == v // 10 and -2 <= w - v <= 2 else 0))
            if t > s:
                s = t
        if s > score or (s == score and s == 1 and ln < _len(best)):
            best, score = c, s
    if (score < 2 or best < 0) and n < hi:
        best = n
    if best < 0:  # every column full (not with 21 cards in 8 or more columns): the last one
        best = n - 1
    _cols[best * _ROWS + _len(best)] = v


def _sync(hand, board, hi):
    """Bring the arrangement to the view's ``hand`` (numbers), in at most ``hi`` columns.

    A new board arranges afresh: 坎, 二七十 and runs of three, then each number's cards (a
    pair with the other case's card: a 绞).  Else the cards that left the hand go (the
    picked one first), new ones join their kin, and columns beyond ``hi`` (the seat's
    open groups grew) are shared out, the shortest first."""
    global _of
    sel = _cols[_SEL]
    if board != _of or not _len(-1):
        _of = board
        for i in range(_ALL + 1):
            _cols[i] = 255
        cnt = bytearray(20)
        for c in hand:
            cnt[c] += 1
        col = 0
        for step in range(4):  # 坎, 二七十, runs of three, each number's cards: a column each
            for v in range(20):
                while True:
                    if step == 0:
                        cs = [v] * cnt[v] if cnt[v] >= 3 else None
                    elif step == 1:
                        cs = [v, v + 5, v + 8] if v % 10 == 1 and cnt[v] and cnt[v + 5] and cnt[v + 8] else None
                    elif step == 2:
                        cs = [v, v + 1, v + 2] if v % 10 < 8 and cnt[v] and cnt[v + 1] and cnt[v + 2] else None
                    else:
                        cs = [v] * cnt[v] + [v + 10] * cnt[v + 10] if v < 10 and cnt[v] + cnt[v + 10] else None
                    if not cs:
                        break
                    for c in cs:
                        cnt[c] -= 1
                    if col < hi:
                        for i in range(len(cs)):
                            _cols[col * _ROWS + i] = cs[i]
                        col += 1
                    else:
                        for c in cs:
                            _put(c, hi)
        return
    need = bytearray(20)
    for c in hand:
        need[c] += 1
    have = bytearray(20)
    for i in range(_ALL):
        if _cols[i] != 255:
            have[_cols[i]] += 1
    if sel != 255 and have[_cols[sel]] > need[_cols[sel]]:  # the card picked went (discarded)
        have[_cols[sel]] -= 1
        _put(sel, -1)
        _cols[_SEL] = 255
    for p in range(_ALL - 1, -1, -1):  # from the end: a take moves only what is behind
        v = _cols[p]
        if v != 255 and have[v] > need[v]:
            have[v] -= 1
            _put(p, -1)
            _cols[_SEL] = 255
    for v in range(20):
        while have[v] < need[v]:
            have[v] += 1
            _put(v, hi)
            _cols[_SEL] = 255
    while _len(-1) > hi:
        short = 0
        for c in range(_len(-1)):
            if _len(c) < _len(short):
                short = c
        k = short * _ROWS
        cs = bytes(_cols[k:k + _len(short)])
        for v in cs:
            _put(k, -1)
        for v in cs:
            _put(v, hi)
        _cols[_SEL] = 255


# ---- widgets: (OWN, x, y, w, h, _w, sub, data …) ------------------------------------------------

def _face(fb, font, x, y, w, h, v, ok):
    """One card at (x, y) of the band: white (picked, ``ok``: cream, framed yellow), its face
    red for 二七十 / 贰柒拾, centred at the top.  A back (``v`` 255): blue, a light frame."""
    if v == 255:
        fb.fill_rect(x, y, w, h, _BLUE)
        fb.rect(x + 2, y + 2, w - 4, h - 4, _LIGHT)
        return
    fb.fill_rect(x + 1, y + 1, w - 2, h - 2, _CREAM if ok else _WHITE)
    fb.rect(x, y, w, h, _YELLOW if ok else _BLACK)
    if ok:
        fb.rect(x + 1, y + 1, w - 2, h - 2, _YELLOW)
        fb.rect(x + 2, y + 2, w - 4, h - 4, _YELLOW)
    b = v % 10
    # the faces, 3 bytes each (UTF-8) in card order, 一..十 then 壹..拾: a bytes literal stays in ROM
    font.draw(fb, x + (w - font.height) // 2, y + (2 if font.height > 16 else 0),
              b"\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94\xe5\x85\xad\xe4\xb8\x83\xe5\x85\xab"
              b"\xe4\xb9\x9d\xe5\x8d\x81\xe5\xa3\xb9\xe8\xb4\xb0\xe5\x8f\x81\xe8\x82\x86\xe4\xbc\x8d\xe9\x99\x86"
              b"\xe6\x9f\x92\xe6\x8d\x8c\xe7\x8e\x96\xe6\x8b\xbe",
              _RED if b == 1 or b == 6 or b == 9 else _BLACK, v * 3, v * 3 + 3)
    if w > 20 and v >= 10:  # a big card (大字) also says so at its foot, for the eye that skims
        fb.fill_rect(x + 6, y + h - 5, w - 12, 2, _GREY)


def _w(w, k, a, b, p):
    """The widgets of this module (seat/gfx.py's OWN), by ``w[6]``:

    - 0 the hand (``_cols``; ``w[7]`` each column's 胡息, 255 none; ``w[8]`` the new
      column's label, empty: no place; ``w[9]`` tappable);
    - 1 open groups as little columns (``w[7]`` groups ``[kind, cards …]``, ``w[8]`` their
      胡息 under them or None), under a line ``w[9]`` (bytes, may be empty), with a pile
      ``w[10]`` (little cards in a row, the latest that fit; or None) 74 px under the
      groups, and a line ``w[11]`` (yellow) 98 px under them: a seat's panel, or the seat's
      own groups and its total — one widget, not four (each is heap on the busiest screen);
    - 3 the middle: ``w[7]`` the card out (255: none) under the line ``w[8]`` and over the
      line ``w[9]`` (colour ``w[10]``);
    - 4 a 吃 way of the chooser (``w[7]`` its groups, ``w[8]`` its tap id), on dark grey;
    - 5 the claim buttons 胡 碰 吃 过 (``w[7]`` their labels, NUL-separated; ``w[8]`` which
      are enabled), drawn as seat/gfx.py draws a BUTTON.

    ``k``: 0 draw (a, b, p = the band, its top row, the UI), 1 hit (a, b = x, y; p a drag's
    index: none here), 2 the hit map entries (a = write, b = the separator), 3 the texts
    (a = the list).  Drawing allocates nothing: numbers, bytes and the fonts' draw."""
    sub = w[6]
    x0 = w[1]
    if k == 0:
        fb = a
        y = w[2] - b
        f16 = p.f16
        if sub == 0:
            labels = w[7]
            for c in range(_len(-1)):
                x = x0 + c * _COL_W
                hx = labels[c]
                if hx != 255:  # 0..12: one or two digits, centred over the column
                    f16.draw(fb, x + (16 if hx < 10 else 12), y, b"0123456789", _YELLOW if hx else _LIGHT,
                             hx // 10 if hx >= 10 else hx, hx // 10 + 1 if hx >= 10 else hx + 1)
                    if hx >= 10:
                        f16.draw(fb, x + 20, y, b"0123456789", _YELLOW, hx % 10, hx % 10 + 1)
                for r in range(_len(c)):
                    i = c * _ROWS + r
                    _face(fb, p.f24, x, y + 16 + r * _STEP, 40, _CARD_H, _cols[i], i == _cols[_SEL])
            if w[8]:  # the place for a new column
                x = x0 + _len(-1) * _COL_W
                fb.rect(x, y + 16, 40, _CARD_H, _LIGHT)
                f16.draw(fb, x + 4, y + 28, w[8], _LIGHT)
        elif sub == 1:
            if w[9]:
                f16.draw(fb, x0, y, w[9], _WHITE)
                y += 18
            gs = w[7]
            hx = w[8]
            x = x0
            for i in range(len(gs)):
                g = gs[i]
                n = len(g) - 1
                for r in range(n if n else (4 if g[0] == 3 else 3)):  # face down: a 偎, or the 提 it became
                    _face(fb, f16, x, y + r * 17, 17, 17, g[1 + r] if n else 255, False)
                if hx is not None and hx[i] != 255:
                    n = hx[i]
                    f16.draw(fb, x + (4 if n < 10 else 0), y + 70, b"0123456789", _YELLOW if n else _LIGHT,
                             n // 10 if n >= 10 else n, n // 10 + 1 if n >= 10 else n + 1)
                    if n >= 10:
                        f16.draw(fb, x + 8, y + 70, b"0123456789", _YELLOW, n % 10, n % 10 + 1)
                x += _CELL + 1
            cs = w[10]
            if cs:
                n = len(cs) - w[3] // _CELL
                x = x0
                for i in range(n if n > 0 else 0, len(cs)):
                    _face(fb, f16, x, y + 74, 17, 17, cs[i], False)
                    x += _CELL
            if w[11]:
                f16.draw(fb, x0, y + 98, w[11], _YELLOW)
        elif sub == 3:
            f16.draw(fb, x0 + (w[3] - f16.width(w[8])) // 2, y, w[8], _LIGHT)
            if w[7] != 255:
                _face(fb, p.f24, x0 + (w[3] - 44) // 2, y + 20, 44, 52, w[7], False)
            f16.draw(fb, x0 + (w[3] - f16.width(w[9])) // 2, y + 74, w[9], w[10])
        elif sub == 5:  # as seat/gfx.py draws a BUTTON: grey when disabled
            i = 0
            for c in range(4):
                x = x0 + c * 47
                e = w[7].find(b"\0", i)
                if e < 0:
                    e = len(w[7])
                fb.fill_rect(x, y, 44, w[4], (_MAROON if c == 0 else _BLUE if c == 3 else _GREEN) if w[8][c] else _GREY)
                fb.rect(x, y, 44, w[4], _WHITE if w[8][c] else _DARK)
                f16.draw(fb, x + (44 - f16.draw(None, 0, 0, w[7], 0, i, e)) // 2, y + (w[4] - 16) // 2, w[7], _WHITE, i, e)
                i = e + 1
        else:
            fb.fill_rect(x0 - 4, y, w[3] + 8, w[4], _DARK)
            big = w[3] > 300  # a way a row (five ways or fewer): the card font's faces
            x = x0
            for i in range(len(w[7])):
                g = w[7][i]
                if i and big:  # 比: the groups that take the other copies of the card
                    f16.draw(fb, x, y + 9, b"\xe6\xaf\x94", _YELLOW)
                    x += 18
                for r in range(len(g)):
                    if big:
                        _face(fb, p.f24, x + r * 27, y + 3, 26, 28, g[r], False)
                    else:
                        _face(fb, f16, x + r * 19, y + 6, 18, 18, g[r], False)
                x += len(g) * (27 if big else 19) + (12 if big else 8)
        return None
    if k == 1:
        if sub == 4:
            return w[8] if not p and x0 <= a < x0 + w[3] and w[2] <= b < w[2] + w[4] else None
        if sub == 5:
            c = (a - x0) // 47
            if 0 <= c < 4 and a - x0 - c * 47 < 44 and w[2] <= b < w[2] + w[4] and w[8][c] and not p:
                return "btn:claim_%s" % ("hu" if c == 0 else "peng" if c == 1 else "chi" if c == 2 else "pass")
            return None
        if sub or p or not w[9]:
            return None
        c = (a - x0) // _COL_W
        n = _len(-1)
        if a < x0 or c > n or a - x0 - c * _COL_W >= 40 or b < w[2] or b >= w[2] + w[4] or (c == n and not w[8]):
            return None
        ln = _len(c) if c < n else 0
        r = (b - w[2] - 16) // _STEP
        if 0 < ln <= r and b < w[2] + 16 + (ln - 1) * _STEP + _CARD_H:
            r = ln - 1  # the foot of the column's last card
        if r < 0 or r >= ln:
            return "card:%s@%d.%d" % ("", c, _ROWS)  # the column's free place
        return "card:%s@%d.%d" % (_code(_cols[c * _ROWS + r]), c, r)
    if k == 2:
        if sub == 4:
            a('%s"%s":[%d,%d,%d,%d,1]' % (b, w[8], x0, w[2], w[3], w[4]))
            return ","
        if sub == 5:
            for c in range(4):
                a('%s"btn:claim_%s":[%d,%d,44,%d,%d]' % (b, "hu" if c == 0 else "peng" if c == 1 else "chi" if c == 2
                                                         else "pass", x0 + c * 47, w[2], w[4], w[8][c]))
                b = ","
            return b
        if sub or not w[9]:
            return b
        n = _len(-1)
        for c in range(n + 1):
            ln = _len(c) if c < n else 0
            for r in range(ln):
                a('%s"card:%s@%d.%d":[%d,%d,40,%d,1]' % (b, _code(_cols[c * _ROWS + r]), c, r, x0 + c * _COL_W,
                                                       w[2] + 16 + r * _STEP, _CARD_H if r == ln - 1 else _STEP))
                b = ","
            y = w[2] + 16 + (ln - 1) * _STEP + _CARD_H if ln else w[2] + 16
            if (c < n or w[8]) and y < w[2] + w[4]:
                a('%s"card:@%d.%d":[%d,%d,40,%d,1]' % (b, c, _ROWS, x0 + c * _COL_W, y, w[2] + w[4] - y))
                b = ","
        return b
    # the texts: cards as codes, a column (or a group: "back" face down, or a way) a text
    out = []
    if sub == 0:
        for c in range(_len(-1)):  # (no comprehension over c: c would be a cell, heap at every call)
            cs = []
            for r in range(_len(c)):
                cs.append(_code(_cols[c * _ROWS + r]))
            out.append(" ".join(cs))
        if w[8]:
            out.append(w[8].decode())
    elif sub == 1:
        if w[9]:
            out.append(w[9].decode())
        for g in w[7]:
            out.append(" ".join(_code(g[1:])) if len(g) > 1 else "back")
        if w[10]:
            out.append(" ".join(_code(w[10])))
        if w[11]:
            out.append(w[11].decode())
    elif sub == 5:
        for t in w[7].split(b"\0"):
            out.append(t.decode())
    elif sub == 3:
        out.append(w[8].decode())
        if w[7] != 255:
            out.append(_code(w[7]))
        if w[9]:
            out.append(w[9].decode())
    else:
        for g in w[7]:
            out.append(" ".join(_code(g)))
    for t in out:
        a.append(t.encode())
    return None


# ---- screens ----------------------------------------------------------------------------------

def build(ui, now, ws):
    """Append the widgets of the Paohuzi screen ``ui.kind`` to ``ws``."""
    m = ui.m
    f = ui.f16
    lang = m.lang
    v = m.view or {}
    me = m.seat
    r = m.result or {}
    # Every card as its number and every group as [kind, cards …], in place (a frame parsed
    # before this module was loaded kept its strings and dicts): drawing reads numbers.
    _code(v.get("hand"), 1)
    if "huxi" in v:  # (what prune blanks, from such a frame)
        v.pop("huxi")
        v.pop("stale", None)
    for seat in games.SEATS[:3]:
        _code((v.get("piles") or {}).get(seat), 1)
        _code((v.get("open") or {}).get(seat), 1)
    _code(r.get("groups"), 1)
    _code((v.get("may") or {}).get("chi"), 1)
    out = v.get("out")
    if out and isinstance(out.get("card"), str):
        out["card"] = _code([out["card"]], 1)[0]
    if ui.kind == _RESULT:  # the winner (or 荒庄), 胡息 囤 番, 名堂, the winner's groups, scores
        screens._top_bar(ui, ws, None, False)
        title = text.t("result", lang, 0)
        if isinstance(v.get("board"), int):
            title = title + " · " + text.t("board", lang) % v.get("board")
        ws.append(label(f, 0, 30, screens.fit(f, title, 400), _YELLOW, 408))
        won = r.get("winner")
        if won:
            p = m.players.get(won)
            line = text.t("pz", lang, 14) % (text.seat_name(won, lang) + (" " + p if p else ""))
            if r.get("self_drawn"):
                line = line + text.t("pz", lang, 15)
            ws.append(label(f, 0, 52, screens.fit(f, line, 470), _YELLOW if won == me else _WHITE, _W))
            ws.append(label(f, 0, 72, text.t("pz", lang, 17) % (r.get("huxi") or 0, r.get("tun") or 0,
                                                              r.get("fan") or 0), _WHITE, _W))
            names = []
            for n in r.get("names") or ():
                # the 名堂 ids in the order of their texts (pz 23..27)
                i = " hong_hu hong_wu dian_hu wu_hu duizi_hu ".find(" " + str(n) + " ")
                names.append(text.t("pz", lang, 23 + " hong_hu hong_wu dian_hu wu_hu duizi_hu ".count(" ", 0, i))
                             if i >= 0 else str(n))
            if names:
                ws.append(label(f, 0, 92, screens.fit(f, text.t("pz", lang, 18) % " ".join(names), 470), _ORANGE, _W))
            gs = r.get("groups") or ()
            if gs:
                wd = len(gs) * (_CELL + 1)
                ws.append((_OWN, (_W - wd) // 2, 114, wd, 88, _w, 1, gs, _hx(-1, gs), b"", None, b""))
        else:
            ws.append(label(f, 0, 64, screens.fit(f, text.t("pz", lang, 16), 470), _ORANGE, _W))
        xs = (60, 140, 330)  # seat, player, score
        head = []
        for i in (3, 4, 8):  # 座位 选手 得分: parts of the result texts
            head.append(text.t("result", lang, i).encode())
        ws.append((CELLS, 0, 206, _W, 20, xs, [(206, b"\0".join(head))], _LIGHT))
        rows = []
        y = 226
        for seat in games.SEATS[:3]:
            if seat == me:
                ws.append((BOX, 56, y - 3, 340, 22, _PANEL, _YELLOW))
            p = m.players.get(seat)
            rows.append((y, b"\0".join([text.seat_name(seat, lang).encode(), screens.fit(f, p or "-", 180),
                                         games.cell(r.get("scores"), seat)])))
            y += 22
        ws.append((CELLS, 0, 226, _W, 66, xs, rows, _WHITE))
        games.next_seat(ui, ws, 296)
        return
    mine = m.my_turn()
    phase = v.get("phase")
    can = m.can_act(now)
    opened = v.get("open") or {}
    huxi = {}  # of the groups this seat sees (the view's "huxi": pruned, the same sums)
    for seat in opened:
        n = 0
        for hx in _hx(-1, opened[seat]):
            n += 0 if hx == 255 else hx
        huxi[seat] = n
    choosing = _cols[_CHOOSING]
    screens._top_bar(ui, ws, games.status(ui, mine), True)
    for slot in (0, 2):  # 上家 left, 下家 right (three seats: no 对家)
        seat, x = games.panel(ui, ws, v, slot, _PANEL_Y, _PANEL_W, _PANEL_H, games.SEATS[:3])
        if choosing:  # under the chooser: the heap holds only what is seen
            continue
        line = text.t("pz", lang, 1) % ((v.get("counts") or {}).get(seat, 0), huxi.get(seat, 0))
        # who holds what: the counts line, the open groups, the pile (one widget)
        ws.append((_OWN, x + 4, _PANEL_Y + 22, _PANEL_W - 8, _PANEL_H - 26, _w, 1, opened.get(seat) or (), None,
                   screens.fit(f, line, _PANEL_W - 8), (v.get("piles") or {}).get(seat), b""))
    # The middle: the stock and the dealer, the card out and who put it there, the buttons.
    out = v.get("out") or {}
    rel = []  # 你 / 上家 / 下家: the dealer's, then the card out's
    for seat in (v.get("dealer"), out.get("by")):
        k = games.SEATS.find(me) if isinstance(me, str) and me else 0
        rel.append(text.t("pz", lang, 22) if seat == me else
                   text.t("seat_" + ("2" if games.SEATS[(k + 1) % 3] == seat else "0"), lang))
    line = text.t("pz", lang, 0) % (v.get("stock") or 0, rel[0])
    stock = out.get("from") == "stock"
    by = text.t("pz", lang, 2 if stock else 3) % rel[1] if out.get("card") is not None else ""
    if not choosing:
        ws.append((_OWN, _MID_X, 50, _MID_W, 90, _w, 3, 255 if out.get("card") is None else out.get("card"),
                   screens.fit(f, line, _MID_W), screens.fit(f, by, _MID_W), _YELLOW if stock else _WHITE))
    may = v.get("may") or {}
    chi = may.get("chi") or ()
    asked = phase == "claim" and mine
    if asked and not choosing:  # 胡 碰 吃 过: one widget of four buttons (sub 5)
        ok = bytearray(4)
        out = []
        for i in range(4):
            ok[i] = can and (bool(may.get("hu")) if i == 0 else bool(may.get("peng")) if i == 1 else
                             bool(chi) if i == 2 else True)
            out.append(text.t("pz", lang, 21 if i == 3 else 4 + i).encode())
        ws.append((_OWN, _MID_X + 2, 142, 185, 42, _w, 5, b"\0".join(out), ok))
    elif phase == "discard" and mine:
        ws.append(button(f, _MID_X + 34, 142, 120, 42, text.t("play", lang), "btn:discard", _GREEN,
                         can and _cols[_SEL] != 255 and not choosing))
    # The hand, arranged: as many columns as fit left of the seat's own open groups.
    mine_open = opened.get(me) or ()
    own_w = max(64, len(mine_open) * (_CELL + 1)) + 6
    hi = (_W - 4 - own_w) // _COL_W
    _sync(v.get("hand") or (), v.get("board"), hi if hi < _COLS else _COLS)
    labels = bytearray(_COLS)
    total = huxi.get(me, 0)
    for c in range(_COLS):
        k = c * _ROWS
        hx = _hx(None, list(_cols[k:k + _len(c)])) if c < _len(-1) else -1
        labels[c] = 255 if hx < 0 else hx
        if hx > 0:
            total += hx
    new = text.t("pz", lang, 20).encode() if _cols[_SEL] != 255 and _len(-1) < hi else b""
    ws.append((_OWN, 4, _HAND_Y, hi * _COL_W, 320 - _HAND_Y, _w, 0, labels, new, not choosing))
    # the seat's own open groups, each one's 胡息 under it, and the total (one widget)
    ws.append((_OWN, _W - own_w, _HAND_Y + 16, own_w - 4, 118, _w, 1, mine_open, _hx(-1, mine_open), b"", None,
               screens.fit(f, text.t("pz", lang, 13) % total, own_w - 4)))
    # The hint: what holds the player up, else what to do.
    hint, colour = games.held(m, now, mine)
    if hint is None:
        if _cols[_FULL]:
            hint, colour = text.t("pz", lang, 19), _ORANGE
        elif asked:
            ways = []
            for i in range(3):
                if (may.get("hu"), may.get("peng"), chi)[i]:
                    ways.append(text.t("pz", lang, 4 + i))
            hint, colour = text.t("pz", lang, 9) % "/".join(ways), _YELLOW
        elif phase == "claim":
            hint = text.t("pz", lang, 10)
        elif mine:
            hint, colour = text.t("pz", lang, 7), _YELLOW
        else:
            hint, colour = text.t("pz", lang, 8), _LIGHT
    _cols[_FULL] = 0
    ws.append(label(f, 0, 26, screens.fit(f, hint, 404), colour, 408))
    if choosing:
        if not (asked and can and chi):
            _cols[_CHOOSING] = 0
            return
        n = len(chi)
        rows = n if n <= 5 else (n + 1) // 2  # five ways or fewer: one a row, with big faces
        h = max(146, 72 + rows * 36)
        y = 46  # over the panels and the middle (not built meanwhile)
        ws.append((BOX, 20, y, 440, h, _WHITE, _BLACK))
        ws.append((BOX, 20, y, 440, 24, _MAROON, -1))
        ws.append(label(f, 20, y + 4, text.t("pz", lang, 11), _WHITE, 440))
        for i in range(n):
            x = 28 + (0 if n <= 5 else (i % 2) * 216)
            ws.append((_OWN, x + 4, y + 30 + (i if n <= 5 else i // 2) * 36, 416 if n <= 5 else 200, 34, _w, 4,
                       chi[i], "chi:choice%d" % i))
        ws.append(button(f, 180, y + h - 38, 120, 32, text.t("pz", lang, 12), "btn:ok", _BLUE))


def on_tap(ui, tap):
    """A tap on an enabled widget of a Paohuzi screen."""
    m = ui.m
    chi = ((m.view or {}).get("may") or {}).get("chi") or ()
    sel = _cols[_SEL]
    if tap.startswith("card:"):  # a card (picked, or the place a picked one goes), or a column's place
        at = tap.find("@")
        dot = tap.find(".", at)
        c = int(tap[at + 1:dot])
        p = c * _ROWS + int(tap[dot + 1:])
        if sel != 255 and c != sel // _ROWS:  # to the end of column c (past the last: a new one)
            n = _len(-1)
            if c < n and _len(c) >= _ROWS:
                _cols[_FULL] = 1
            elif c <= n < _COLS:
                _cols[c * _ROWS + (_len(c) if c < n else 0)] = _cols[sel]
                _put(sel, -1)
            _cols[_SEL] = 255
        elif at > 5:  # a card: picked, or put back
            _cols[_SEL] = 255 if p == sel else p
        ui.update()
        return
    if _cols[_CHOOSING]:
        _cols[_CHOOSING] = 0
        if tap.startswith("chi") and m.can_act(time.ticks_ms()):
            way = chi[int(tap[10:])]
            ui.app.send_intent({"type": "chi", "groups": _code(way)})
            return
        ui.update()
        return
    if not m.can_act(time.ticks_ms()):
        return
    if tap == "btn:discard" and sel != 255:
        ui.app.send_intent({"type": "discard", "card": _code(_cols[sel])})
    elif tap == "btn:claim_chi" and chi:
        if len(chi) == 1 and len(chi[0]) == 1:  # one way, no 比牌: nothing to choose
            ui.app.send_intent({"type": "chi", "groups": _code(chi[0])})
        else:
            _cols[_CHOOSING] = 1
            ui.update()
    elif tap.startswith("btn:claim_"):  # 胡 碰 过
        ui.app.send_intent({"type": tap[10:]})
