"""The seat's screens (480×320): functions that build a screen's widgets from the mirror
and turn taps into intents.  The hub decides everything; a screen only shows what the
hub said and sends what the player chose.

Screens are kinds (``pick(m)``), not classes, and widgets are tuples (``seat/gfx.py``):
on the 64-bit unix port each class costs about 250–450 bytes of heap, and a seat has 64 KB.
The UI (``seat/ui.py``) keeps the current kind, and its ``tick`` (every 100 ms, from the
app's loop) counts the clock down and takes a refusal down.

Layout (rows): top bar 0-23; opponents' panels 28-123 (left: 上家, middle: 对家,
right: 下家, as seen from the seat); their last plays 128-146; a hint line 154-170;
the seat's own last play and the buttons 176-207; the hand 246-307 (a selected card
rises 16 px).

Check-in (hub screen ``checkin``) is ``seat/checkin.py``'s.

A referee's note is a banner under the top bar (rows 24-71 at most), over whatever is
there and never over a button.

Tap ids in the hit map: ``card:3D``, ``btn:play``, ``btn:pass``, ``btn:yes``, ``btn:no``,
``btn:ok``, ``btn:call``, and on the check-in keypad ``key:0`` … ``key:9``, ``btn:del``,
``btn:checkin``.
"""

import sys
import time

from micropython import const

from seat import kinds, text
from seat.gfx import (BOX, CELLS, CLOCK, ELLIPSIS, CODES, text as label, button, hand, cardrow,
                      card_bytes, card_flags)

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
DECISION = const(2)  # 明牌 (show) and 加倍 (double)
PLAY = const(3)
_RESULT = const(4)
_CHECKIN = const(5)  # built by seat/checkin.py, loaded only while it is up
_W = const(480)
TOP_H = const(24)
_PANEL_Y = const(28)
_PANEL_W = const(152)
_PANEL_H = const(96)
_LAST_Y = const(128)
_HINT_Y = const(154)
_ROW_Y = const(176)
_HAND_Y = const(246)
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


def pick(m):
    """The screen kind the mirror calls for."""
    if not m.welcomed:
        return _CONNECTING
    if m.screen == "checkin":
        return _CHECKIN
    v = m.view
    phase = v.get("phase") if v else None
    if m.screen == "result" or phase == "over":
        return _RESULT
    if m.screen == "deal" or m.screen == "paused":
        if phase == "show" or phase == "double":
            return DECISION
        if phase == "play":
            return PLAY
    return _WAITING


def name(ui):
    """The base screen's name on the control channel."""
    kind = ui.kind
    if kind == DECISION:
        v = ui.m.view
        return "double" if v and v.get("phase") == "double" else "show"
    if kind == PLAY:
        return "play"
    if kind == _RESULT:
        return "result"
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
        return
    v = m.view or {}
    mine = m.my_turn()
    if kind == _WAITING:  # welcomed, no deal running: table, seat, player
        _top_bar(ui, ws, None, False)
        ws.append(label(f, 0, 90, text.t("table_seat", lang) % (m.table, text.seat_name(m.seat, lang)),
                        _WHITE, _W))
        p = (m.seatmap or {}).get("player") or m.player
        who = text.t("player", lang) % p["name"] if p else text.t("no_player", lang)
        ws.append(label(f, 0, 120, fit(f, who, 440), _YELLOW, _W))
        if m.screen == "paused":  # paused between deals: nothing runs until the referee resumes
            ws.append(label(f, 0, 160, fit(f, text.t("paused_long", lang), 470), _ORANGE, _W))
        else:
            ws.append(label(f, 0, 160, text.t("wait_deal", lang), _WHITE, _W))
        ws.append(label(f, 0, 190, fit(f, text.t("event", lang) % m.event, 440), _LIGHT, _W))
        ws.append(label(f, 0, 290, text.t("device", lang) % ui.app.dev, _GREY, _W))
    elif kind == DECISION:  # 明牌 / 加倍: the hand, the question, yes/no and the countdown
        phase = v.get("phase")
        to_act = v.get("to_act")
        if mine:
            status = text.t("your_turn", lang)
        elif phase == "double" and to_act:
            status = text.t("wait_for", lang) % text.seat_name(to_act[0], lang)
        else:
            status = None
        _top_bar(ui, ws, status, True)
        _panels(ui, ws, v)
        if m.paused():
            q = text.t("paused_long", lang)
        elif mine and m.clock_left(now) == 0 and m.my_clock():
            q = text.t("time_up", lang)
        elif mine:
            q = text.t("q_show" if phase == "show" else "q_double", lang)
        elif phase == "show":
            q = text.t("decided", lang)
        else:
            q = text.t("wait_double", lang) % text.seat_name((to_act or ["?"])[0], lang)
        ws.append(label(f, 0, _HINT_Y, fit(f, q, 470), _YELLOW if mine else _WHITE, _W))
        if mine:
            can = m.can_act(now)
            show = phase == "show"
            ws.append(button(f, 120, _ROW_Y, 110, 34, text.t("show_yes" if show else "double_yes", lang),
                             "btn:yes", _GREEN, can))
            ws.append(button(f, 250, _ROW_Y, 110, 34, text.t("show_no" if show else "double_no", lang),
                             "btn:no", _BLUE, can))
        ws.append(hand(_HAND_Y, card_bytes(m.hand()), card_flags(()), False, _W))
    elif kind == PLAY:  # the hand (tap to select), Play and Pass, the others, whose turn, the clock
        to_act = v.get("to_act")
        if mine:
            status = text.t("your_turn", lang)
        elif to_act:
            status = text.t("wait_for", lang) % text.seat_name(to_act[0], lang)
        else:
            status = None
        _top_bar(ui, ws, status, True)
        _panels(ui, ws, v)
        # The hint line: what matters most first.
        hint = None
        colour = _WHITE
        alert = m.alert if m.alert in v.get("reports", ()) else None
        # The pre-check (seat/kinds.py): guidance only, the hub decides every play.
        sel = kinds.kind(card_bytes(m.selected)) if m.selected else None
        if m.paused():
            hint, colour = text.t("paused_long", lang), _ORANGE
        elif m.pending is not None:
            hint = text.t("sent", lang)
        elif mine and m.my_clock() and m.clock_left(now) == 0:
            hint, colour = text.t("time_up", lang), _ORANGE
        elif alert and alert != m.seat:
            hint, colour = text.t("report_alert", lang) % text.seat_name(alert, lang), _ORANGE
        elif mine and v.get("duty"):
            hint, colour = text.t("duty", lang), _ORANGE
        elif mine and m.selected:
            hint = text.t("kind_" + sel, lang) if sel else text.t("not_combo", lang)
        elif mine and v.get("first_play"):
            hint = text.t("first_play", lang)
        elif mine and not v.get("to_beat"):
            hint = text.t("lead", lang)
        elif mine:
            hint = text.t("select", lang)
        if hint:
            ws.append(label(f, 0, _HINT_Y, fit(f, hint, 470), colour, _W))
        ws.append(label(f, 4, _ROW_Y + 8, text.t("you", lang), _LIGHT))
        _last_play(ui, ws, 28, _ROW_Y + 7, 260, _last(v, m.seat))
        can = m.can_act(now)
        ws.append(button(f, 300, _ROW_Y, 84, 32, text.t("play", lang), "btn:play", _GREEN, can and sel is not None))
        ws.append(button(f, 392, _ROW_Y, 84, 32, text.t("pass", lang), "btn:pass", _BLUE,
                         can and v.get("to_beat") is not None))
        ws.append(hand(_HAND_Y, card_bytes(m.hand()), card_flags(m.selected), True, _W))
    elif kind == _CHECKIN:
        from seat import checkin
        checkin.build(ui, ws)
    else:  # _RESULT: each seat's cards left, card points, score and place; where next
        r = m.result or {}
        _top_bar(ui, ws, None, False)
        title = text.t("result", lang)
        board = v.get("board")
        if isinstance(board, int):
            title = title + "  " + text.t("board", lang) % board
        ws.append(label(f, 0, 32, title, _YELLOW, _W))
        ws.append(label(f, 8, 60, text.t("col_seat", lang), _LIGHT))
        ws.append(label(f, 72, 60, text.t("col_player", lang), _LIGHT))
        ws.append(label(f, 230, 60, text.t("col_left", lang), _LIGHT))
        ws.append(label(f, 290, 60, text.t("col_points", lang), _LIGHT))
        ws.append(label(f, 350, 60, text.t("col_score", lang), _LIGHT))
        ws.append(label(f, 420, 60, text.t("col_place", lang), _LIGHT))
        me = SEATS.find(m.seat) if isinstance(m.seat, str) and len(m.seat) == 1 else -1
        if me >= 0:
            ws.append((BOX, 4, 84 + 26 * me - 3, _W - 8, 22, _PANEL, _YELLOW))
        rows = []
        y = 84
        for seat in SEATS:
            p = m.players.get(seat)
            rows.append((y, b"\0".join([text.seat_name(seat, lang).encode(),
                                         fit(f, p.get("name", "") if p else "-", 150),
                                         _cell(r.get("cards_left"), seat), _cell(r.get("points"), seat),
                                         _cell(r.get("scores"), seat), _cell(r.get("places"), seat)])))
            y += 26
        ws.append((CELLS, 0, 84, _W, 26 * 4, (8, 72, 230, 290, 350, 420), rows, _WHITE))
        nxt = (m.seatmap or {}).get("next")
        if nxt:
            line = text.t("next_seat", lang) % (nxt.get("table"), text.seat_name(nxt.get("seat"), lang))
        else:
            line = text.t("stay", lang)
        ws.append(label(f, 0, 210, fit(f, line, 470), _YELLOW if nxt else _WHITE, _W))


def note(ui, s, ws):
    """Append the banner of a referee's note ``s``: under the top bar, over the screen (no taps)."""
    f = ui.f16
    lines = wrap(f, s, 456, 2)
    ws.append((BOX, 4, TOP_H, _W - 8, 8 + 20 * len(lines), _BLUE, _YELLOW))
    y = TOP_H + 5
    for line in lines:
        ws.append(label(f, 12, y, line, _WHITE, _W - 24))
        y += 20


def refusal(ui, ws):
    """Append the overlay for a refused intent: the reason (the engine's zh/en text) and OK."""
    f = ui.f16
    code, reason = ui.m.refusal or ("", "")
    lang = ui.m.lang
    ws.append((BOX, 60, 96, 360, 136, _WHITE, _BLACK))
    ws.append((BOX, 60, 96, 360, 24, _MAROON, -1))
    ws.append(label(f, 60, 100, text.t("refused", lang), _WHITE, 360))
    y = 128
    for line in wrap(f, reason or code, 340):
        ws.append(label(f, 70, y, line, _BLACK, 340))
        y += 20
    ws.append(button(f, 190, 192, 100, 32, text.t("ok", lang), "btn:ok", _BLUE))


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
        return
    if ui.kind == PLAY and tap.startswith("card:"):
        m.toggle(tap[5:])
        ui.update()
    elif not m.can_act(time.ticks_ms()):
        return
    elif ui.kind == DECISION and (tap == "btn:yes" or tap == "btn:no"):
        ui.app.send_intent({"type": "double" if m.view.get("phase") == "double" else "show",
                            "yes": tap == "btn:yes"})
    elif ui.kind == PLAY and tap == "btn:play" and m.selected:
        ui.app.send_intent({"type": "play", "cards": [CODES[n] for n in card_bytes(m.selected)]})
    elif ui.kind == PLAY and tap == "btn:pass":
        ui.app.send_intent({"type": "pass"})


# ---- pieces shared by several screens ---------------------------------------------------------

def _top_bar(ui, ws, status, clock):
    m = ui.m
    f = ui.f16
    lang = m.lang
    ws.append((BOX, 0, 0, _W, TOP_H, _DARK, -1))
    if m.seat:
        ws.append(label(f, 4, 4, fit(f, text.t("table_seat", lang) % (m.table, text.seat_name(m.seat, lang)), 150),
                        _WHITE))
    if not m.online:
        status, colour = text.t("reconnecting", lang), _ORANGE
    elif m.paused():
        status, colour = text.t("paused", lang), _ORANGE
    elif m.called:
        status, colour = text.t("called", lang), _ORANGE
    else:
        colour = _YELLOW
    if status:
        ws.append(label(f, 160, 4, fit(f, status, 170), colour))
    if clock and m.has_clock:
        ws.append((CLOCK, 330, 2, 68, 20))
    ws.append(button(f, 404, 1, 74, 22, text.t("call_ref", lang), "btn:call", _MAROON, m.online))


def _cell(by_seat, seat):
    value = (by_seat or {}).get(seat)
    return b"-" if value is None else str(value).encode()


def _panels(ui, ws, v):
    """The three other seats: name, cards left, 明牌/加倍/报单 marks, shown hand, last play."""
    m = ui.m
    f = ui.f16
    lang = m.lang
    me = SEATS.find(m.seat) if isinstance(m.seat, str) and len(m.seat) == 1 else -1
    if me < 0:
        me = 0
    counts = v.get("counts", {})
    shown = v.get("shown", {})
    doubled = v.get("doubled", {})
    reports = v.get("reports", [])
    to_act = v.get("to_act", [])
    decided = v.get("decided", ())
    for slot in range(3):  # 上家 left, 对家 middle, 下家 right
        seat = SEATS[(me + 3 - slot) % 4]
        x = 4 + slot * 160
        ws.append((BOX, x, _PANEL_Y, _PANEL_W, _PANEL_H, _PANEL, _YELLOW if seat in to_act else -1))
        who = text.seat_name(seat, lang)
        p = m.players.get(seat)
        if p:
            who = who + " " + p.get("name", "")
        ws.append(label(f, x + 4, _PANEL_Y + 4, fit(f, who, _PANEL_W - 8), _WHITE))
        line = text.t("cards_left", lang) % counts[seat] if seat in counts else ""
        if seat in shown:
            line += "  " + text.t("shown", lang)
        if doubled.get(seat):
            line += "  " + text.t("doubled", lang)
        t = label(f, x + 4, _PANEL_Y + 22, line, _WHITE)
        ws.append(t)
        if seat in decided:  # 明牌 phase: this seat has chosen (not what)
            ws.append(label(f, x + _PANEL_W - 40, _PANEL_Y + 22, text.t("chose", lang), _LIGHT))
        if seat in reports:  # 报单 stands out
            ws.append(label(f, t[1] + t[3] + 8, _PANEL_Y + 22, text.t("report", lang), _ORANGE))
        if seat in shown:
            ws.append(cardrow(f, x + 4, _PANEL_Y + 42, _PANEL_W - 8, card_bytes(shown[seat]), 3))
        _last_play(ui, ws, x + 4, _LAST_Y, _PANEL_W - 8, _last(v, seat))


def _last(v, seat):
    """``seat``'s latest entry in the current round: its cards, None for a pass, 0 if none."""
    play = 0
    for e in v.get("trick", ()):
        if e.get("seat") == seat:
            play = e.get("cards")
    return play


def _last_play(ui, ws, x, y, w, play):
    if play is None:
        ws.append(label(ui.f16, x, y + 1, text.t("passed", ui.m.lang), _LIGHT))
    elif play:
        ws.append(cardrow(ui.f16, x, y, w, card_bytes(play)))
