"""The seat's screens (480×320): functions that build a screen's widgets from the mirror
and turn taps into intents.  The hub decides everything; a screen only shows what the
hub said and sends what the player chose.

Screens are kinds (``pick(m)``), not classes, and widgets are tuples (``seat/gfx.py``):
on the 64-bit unix port each class costs about 250–450 bytes of heap, and a seat has 64 KB.
The UI (``seat/ui.py``) keeps the current kind, and its ``tick`` (every 100 ms, from the
app's loop) counts the clock down and takes a refusal down.

Each game's deal screens (decisions, play, the deal's result) are its own module under
``seat/games/``, found by the view's ``game`` (``seat.games.load``); this module has the
screens every game shares — connecting, waiting, the refusal, the note banner — and the
pieces they are made of (the top bar, a seat's panel, fitting and wrapping texts).

Check-in (hub screen ``checkin``) is ``seat/checkin.py``'s.

A referee's note is a banner under the top bar (rows 24-71 at most), over whatever is
there and never over a button.

Tap ids in the hit map: ``btn:ok``, ``btn:call``, on the check-in keypad ``key:0`` …
``key:9``, ``btn:del``, ``btn:checkin``, and the games' own (``card:3D``, ``btn:play``, …).
"""

import sys

from micropython import const

from seat import text
from seat.gfx import BOX, CLOCK, ELLIPSIS, text as label, button

# Palette indices of board/band.py (private: folded into the code, no heap).
_WHITE = const(1)
_BLACK = const(2)
_GREY = const(4)
_DARK = const(5)
_YELLOW = const(6)
_BLUE = const(7)
_LIGHT = const(8)
_ORANGE = const(9)
_GREEN = const(10)
_PANEL = const(12)
_MAROON = const(13)

_CONNECTING = const(0)
_WAITING = const(1)
_CHECKIN = const(5)  # built by seat/checkin.py, loaded only while it is up
GAME = const(8)  # a game's own screens are kinds GAME and up (seat/games/)
_W = const(480)
_CALL_X = const(412)  # 叫裁判: 66×46 px (10×7 mm on the 3.5" panel), top right of every screen
_BTN_H = const(46)  # a button a finger presses: 7 mm (seat/gfx.py, "Touch targets")
TOP_H = const(24)
# Play order: a seat's 下家 is the next one.  Strings, not tuples, throughout: a tuple
# constant of strings is a str object per element on the heap.
SEATS = "ENWS"


def fit(font, s, w):
    """UTF-8 bytes of ``s`` (str or bytes) cut to fit ``w`` pixels (with … when cut)."""
    b = s.encode() if isinstance(s, str) else s
    if font.width(b) <= w:
        return b
    return b[:font.cut(b, w - font.width(ELLIPSIS))] + ELLIPSIS


def wrap(font, s, w, max_lines=3):
    """Lines (UTF-8 bytes) of ``s`` no wider than ``w``: break at the last space when the
    line has one, else anywhere (Chinese has no spaces); at most ``max_lines``."""
    b = s.encode()
    lines = []
    i = 0
    n = len(b)
    while i < n:
        j = font.cut(b, w, i)
        if j >= n:
            lines.append(b[i:])
            break
        if j == i:  # one character wider than the line: it gets a line of its own
            j = i + 1
            while j < n and b[j] & 0xC0 == 0x80:
                j += 1
        sp = b.rfind(b" ", i, j)
        if sp > i:
            lines.append(b[i:sp])
            i = sp + 1
        else:
            lines.append(b[i:j])
            i = j
        if len(lines) == max_lines:
            break
    return lines


def game(m):
    """The seat module of the game of the mirror's view (``seat.games``), or None.  The
    registry is imported with the first view: a seat at check-in does not carry it."""
    v = m.view
    if not v:
        return None
    from seat import games
    return games.load(v.get("game"))


def pick(m):
    """The screen kind the mirror calls for."""
    if not m.welcomed:
        return _CONNECTING
    if m.screen == "checkin":
        return _CHECKIN
    g = game(m)
    kind = g.pick(m) if g is not None else None
    return _WAITING if kind is None else kind


def name(ui):
    """The base screen's name on the control channel."""
    kind = ui.kind
    if kind >= GAME:
        return game(ui.m).name(ui)
    if kind == _CHECKIN:
        return "checked_in" if ui.m.checked() else "checkin"
    return "waiting" if kind == _WAITING else "connecting"


def build(ui, now, ws):
    """Append the widgets of the base screen ``ui.kind`` to ``ws`` (the UI's one list)."""
    m = ui.m
    if ui.kind != _CHECKIN and "seat.checkin" in sys.modules:
        # Check-in is over: its module goes (about 1 KB of heap the deals can use; it is
        # read again from the image at the next round's check-in).
        import seat
        del sys.modules["seat.checkin"]
        del seat.checkin
    f = ui.f16
    lang = m.lang
    kind = ui.kind
    if kind == _CONNECTING:  # before the first welcome: the device id and what the link is doing
        ws.append(label(f, 0, 120, text.t("connecting", lang), _WHITE, _W))
        if m.fault:
            y = 150
            for line in wrap(f, m.fault, 440):
                ws.append(label(f, 0, y, line, _ORANGE, _W))
                y += 20
        ws.append(label(f, 0, 290, text.t("device", lang) % ui.app.dev, _GREY, _W))
    elif kind == _WAITING:  # welcomed, no deal running: table, seat, player
        _top_bar(ui, ws, None, False)
        ws.append(label(f, 0, 90, text.t("table_seat", lang) % (m.table, text.seat_name(m.seat, lang)),
                        _WHITE, _W))
        p = (m.seatmap or {}).get("player") or m.player
        who = text.t("player", lang) % p["name"] if p else text.t("no_player", lang)
        ws.append(label(f, 0, 120, fit(f, who, 440), _YELLOW, _W))
        ended = (m.match or {}).get("forfeited")  # a board of several deals a referee ended
        if m.screen == "paused":  # paused between deals: nothing runs until the referee resumes
            ws.append(label(f, 0, 160, fit(f, text.t("paused_long", lang), 470), _ORANGE, _W))
        elif isinstance(ended, dict):
            ws.append(label(f, 0, 150, fit(f, text.t("forfeited", lang, 0), 470), _ORANGE, _W))
            y = 172
            for line in wrap(f, text.t("forfeited", lang, 1) % ended.get("reason", ""), 460, 2):
                ws.append(label(f, 0, y, line, _WHITE, _W))
                y += 20
        elif (m.seatmap or {}).get("done"):  # the table's last board of the round is played
            ws.append(label(f, 0, 150, fit(f, text.t("done", lang, 0), 470), _YELLOW, _W))
            y = 172
            for line in wrap(f, text.t("done", lang, 1), 460, 2):
                ws.append(label(f, 0, y, line, _WHITE, _W))
                y += 20
        else:
            ws.append(label(f, 0, 160, text.t("wait_deal", lang), _WHITE, _W))
        ws.append(label(f, 0, 220, fit(f, text.t("event", lang) % m.event, 440), _LIGHT, _W))
        ws.append(label(f, 0, 290, text.t("device", lang) % ui.app.dev, _GREY, _W))
    elif kind == _CHECKIN:
        from seat import checkin
        checkin.build(ui, ws)
    else:
        game(m).build(ui, now, ws)


def note(ui, s, ws):
    """Append the banner of a referee's note ``s``: under the top bar, over the screen (no taps)."""
    f = ui.f16
    lines = wrap(f, s, _CALL_X - 28, 2)  # clear of 叫裁判
    ws.append((BOX, 4, TOP_H, _CALL_X - 8, 8 + 20 * len(lines), _BLUE, _YELLOW))
    y = TOP_H + 5
    for line in lines:
        ws.append(label(f, 12, y, line, _WHITE, _CALL_X - 24))
        y += 20


def refusal(ui, ws):
    """Append the overlay for a refused intent (the reason, the engine's zh/en text, and OK),
    or, while ``ui.asking``, the confirmation of 叫裁判: call (``btn:yes``) or cancel (``btn:ok``)."""
    f = ui.f16
    code, reason = ui.m.refusal or ("", "")
    lang = ui.m.lang
    ask = ui.asking
    ws.append((BOX, 60, 96, 360, 136, _WHITE, _BLACK))
    ws.append((BOX, 60, 96, 360, 24, _MAROON, -1))
    ws.append(label(f, 60, 100, text.t("call", lang, 0) if ask else text.t("refused", lang), _WHITE, 360))
    y = 126
    for line in wrap(f, text.t("call", lang, 1) if ask else reason or code, 340, 2 if ask else 3):
        ws.append(label(f, 70, y, line, _BLACK, 340))
        y += 20
    if ask:
        ws.append(button(f, 72, 178, 164, _BTN_H, text.t("call", lang, 2), "btn:yes", _MAROON))
        ws.append(button(f, 244, 178, 164, _BTN_H, text.t("call", lang, 3), "btn:ok", _BLUE))
    else:
        ws.append(button(f, 180, 184, 120, _BTN_H, text.t("ok", lang), "btn:ok", _BLUE))


def on_tap(ui, tap):
    """A tap on an enabled widget of the current screen (叫裁判 is the UI's own)."""
    m = ui.m
    if ui.overlay:
        if tap == "btn:ok":
            m.refusal = None
            ui.update()
        return
    if ui.kind == _CHECKIN:
        from seat import checkin
        checkin.tap(ui, tap)
    elif ui.kind >= GAME:
        game(m).on_tap(ui, tap)


# ---- pieces shared by several screens ---------------------------------------------------------

def _top_bar(ui, ws, status, clock):
    m = ui.m
    f = ui.f16
    lang = m.lang
    ws.append((BOX, 0, 0, _W, TOP_H, _DARK, -1))
    x = 4
    if m.seat:
        t = label(f, 4, 4, fit(f, text.t("table_seat", lang) % (m.table, text.seat_name(m.seat, lang)), 150), _WHITE)
        ws.append(t)
        x = t[3] + 16  # the status starts after the measured table and seat
    if not m.online:
        status, colour = text.t("reconnecting", lang), _ORANGE
    elif m.paused():
        status, colour = text.t("paused", lang), _ORANGE
    elif m.called:
        status, colour = text.t("called", lang), _ORANGE
    else:
        colour = _YELLOW
    if status:
        ws.append(label(f, x, 4, fit(f, status, (326 if clock and m.has_clock else _CALL_X - 6) - x), colour))
    if clock and m.has_clock:
        ws.append((CLOCK, 332, 2, 68, 20))
    ws.append(button(f, _CALL_X, 0, _W - _CALL_X - 2, 46, text.t("call_ref", lang), "btn:call", _MAROON,
                     m.online))

