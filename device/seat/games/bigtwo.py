"""Big Two's seat screens (锄大地): 明牌/加倍 (one decision screen), play, and the deal's
result.  Found through ``seat.games`` by the view's ``game``; see ``seat/screens.py`` for
the screens every game shares (top bar, waiting, refusal, note).

Layout (rows): top bar 0-23, 叫裁判 hanging from its right end (0-45, x 412-478);
opponents' panels 28-113 in x 4-408 (left: 上家, middle: 对家, right: 下家, as seen
from the seat, each labelled so), their last plays 116-151 (the play to beat framed
yellow on white faces, earlier plays on grey); a hint line 155-170; the seat's own marks
and last play and the 46 px buttons 174-219; the hand 225-318 in one or two rows of
62×44 px cards (``seat/gfx.py``, "Touch targets").  Texts are placed by their measured
width (``screens.fit``; the lines of marks in ``_panels``), in both languages.  Tap ids: ``card:3D``, ``btn:play``, ``btn:pass``, ``btn:yes``, ``btn:no``.
"""

import time

from micropython import const

from seat import games, screens, text
from seat.games import bigtwo_kinds
from seat.gfx import BOX, CELLS, CODES, text as label, button, hand, cardrow, card_bytes, card_flags

# Words of this game's views that no code names, made qstrs when the module loads (the list
# itself is not kept): the JSON parser returns an existing qstr instead of a new string.
["bigtwo", "first", "my_show", "leader", "hands"]

# Palette indices of board/band.py (private: folded into the code, no heap).
_WHITE = const(1)
_LIGHT = const(8)
_ORANGE = const(9)
_GREEN = const(10)
_BLUE = const(7)
_YELLOW = const(6)
_PANEL = const(12)
_GREY = const(4)

_DECISION = const(8)  # 明牌 (show) and 加倍 (double); screens.GAME is 8
_PLAY = const(9)
_RESULT = const(10)
_W = const(480)
_PANEL_Y = const(28)
_PANEL_W = const(132)
_PANEL_H = const(86)
_LAST_Y = const(116)
_HINT_Y = const(155)
_ROW_Y = const(174)
_BTN_H = const(46)  # 7 mm on the 3.5" panel
_HAND_Y = const(225)
_CARD_W = const(62)  # 9.6 mm
_CARD_H = const(44)  # 6.8 mm
SEATS = "ENWS"


def pick(m):
    """The screen kind for the mirror: result, a decision (明牌/加倍) or play; None: waiting."""
    phase = games.deal_phase(m)
    if phase == "over":
        return _RESULT
    if phase == "show" or phase == "double":
        return _DECISION
    return _PLAY if phase == "play" else None


def name(ui):
    kind = ui.kind
    if kind == _DECISION:
        v = ui.m.view
        return "double" if v and v.get("phase") == "double" else "show"
    return "play" if kind == _PLAY else "result"


def build(ui, now, ws):
    """Append the widgets of the Big Two screen ``ui.kind`` to ``ws``."""
    m = ui.m
    f = ui.f16
    lang = m.lang
    kind = ui.kind
    v = m.view or {}
    mine = m.my_turn()
    if kind == _DECISION:  # 明牌 / 加倍: the hand, the question, yes/no and the countdown
        phase = v.get("phase")
        to_act = v.get("to_act")
        screens._top_bar(ui, ws, games.status(ui, mine) if mine or phase == "double" else None, True)
        _panels(ui, ws, v, 150)
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
        ws.append(label(f, 0, _HINT_Y, screens.fit(f, q, 470), _YELLOW if mine else _WHITE, _W))
        if mine:
            can = m.can_act(now)
            show = phase == "show"
            ws.append(button(f, 180, _ROW_Y, 140, _BTN_H, text.t("show_yes" if show else "double_yes", lang),
                             "btn:yes", _GREEN, can))
            ws.append(button(f, 330, _ROW_Y, 140, _BTN_H, text.t("show_no" if show else "double_no", lang),
                             "btn:no", _BLUE, can))
        ws.append(hand(_HAND_Y, card_bytes(m.hand()), card_flags(()), False, _W, 7, _CARD_H, -1, _CARD_W))
    elif kind == _PLAY:  # the hand (tap to select), Play and Pass, the others, whose turn, the clock
        screens._top_bar(ui, ws, games.status(ui, mine), True)
        _panels(ui, ws, v, 216)
        # The hint line: what matters most first.
        hint, colour = games.held(m, now, mine)
        alert = m.alert if m.alert in v.get("reports", ()) else None
        # The pre-check (seat/games/bigtwo_kinds.py): guidance only, the hub decides every play.
        sel = bigtwo_kinds.kind(card_bytes(m.selected)) if m.selected else None
        if hint:
            pass
        elif mine and v.get("duty"):  # the duty, after the alert that brought it
            hint, colour = text.t("duty", lang), _ORANGE
            if alert and alert != m.seat:
                hint = text.t("report_alert", lang) % text.seat_name(alert, lang) + " " + hint
        elif alert and alert != m.seat:
            hint, colour = text.t("report_alert", lang) % text.seat_name(alert, lang), _ORANGE
        elif mine and m.selected:
            hint = text.t("kind_" + sel, lang) if sel else text.t("not_combo", lang)
        elif mine and v.get("first_play"):
            hint = text.t("first_play", lang)
        elif mine and not v.get("to_beat"):
            hint = text.t("lead", lang)
        elif mine:
            hint = text.t("select", lang)
        if hint:
            ws.append(label(f, 0, _HINT_Y, screens.fit(f, hint, 470), colour, _W))
        _last_play(ui, ws, 4, _ROW_Y + 22, 216, _last(v, m.seat), _WHITE if (v.get("to_beat") or {}).get("seat") == m.seat else _GREY)
        can = m.can_act(now)
        ws.append(button(f, 228, _ROW_Y, 120, _BTN_H, text.t("play", lang), "btn:play", _GREEN,
                         can and sel is not None))
        ws.append(button(f, 356, _ROW_Y, 120, _BTN_H, text.t("pass", lang), "btn:pass", _BLUE,
                         can and v.get("to_beat") is not None))
        ws.append(hand(_HAND_Y, card_bytes(m.hand()), card_flags(m.selected), True, _W, 7, _CARD_H, -1, _CARD_W))
    else:  # _RESULT: each seat's cards left, card points, score and place; where next
        r = m.result or {}
        screens._top_bar(ui, ws, None, False)
        title = text.t("result", lang, 0)
        board = v.get("board")
        if isinstance(board, int):
            title = title + "  " + text.t("board", lang) % board
        ws.append(label(f, 0, 32, screens.fit(f, title, 400), _YELLOW, 408))
        xs = (4, 60, 196, 244, 300, 350, 424)  # seat, player, left, points, multiplier, score, place
        head = []
        for i in range(7):  # the heads are parts 3-9 of the result texts: no key (qstr) a column
            head.append(screens.fit(f, text.t("result", lang, 3 + i), (xs[i + 1] if i < 6 else _W) - xs[i] - 4))
        ws.append((CELLS, 0, 56, _W, 20, xs, [(56, b"\0".join(head))], _LIGHT))  # the heads: one widget, not seven
        times = text.t("result", lang, 10)  # ×%d
        mult = r.get("shown")  # state.slim_result: each seat's multiplier, E N W S
        me = SEATS.find(m.seat) if isinstance(m.seat, str) and len(m.seat) == 1 else -1
        if me >= 0:
            ws.append((BOX, 4, 78 + 24 * me - 3, _W - 8, 22, _PANEL, _YELLOW))
        rows = []
        y = 78
        for seat in SEATS:
            p = m.players.get(seat)
            rows.append((y, b"\0".join([screens.fit(f, text.seat_name(seat, lang), xs[1] - xs[0] - 4),
                                         screens.fit(f, p or "-", xs[2] - xs[1] - 6),
                                         games.cell(r.get("cards_left"), seat), games.cell(r.get("points"), seat),
                                         (times % mult["ENWS".find(seat)]).encode() if mult else b"-",
                                         games.cell(r.get("scores"), seat), games.cell(r.get("places"), seat)])))
            y += 24
        ws.append((CELLS, 0, 78, _W, 24 * 4, xs, rows, _WHITE))
        y = 176
        for line in screens.wrap(f, text.t("result", lang, 1), 470, 2):  # why the scores are what they are
            ws.append(label(f, 4, y, line, _LIGHT))
            y += 20
        total = (m.seatmap or {}).get("total")
        if isinstance(total, int):  # the hub's sum of this seat's scores this round, when it sends one
            ws.append(label(f, 0, 222, screens.fit(f, text.t("result", lang, 2) % total, 470), _WHITE, _W))
        games.next_seat(ui, ws, 250)


def on_tap(ui, tap):
    """A tap on an enabled widget of a Big Two screen."""
    m = ui.m
    if ui.kind == _PLAY and tap.startswith("card:"):
        m.toggle(tap[5:])
        ui.update()
    elif not m.can_act(time.ticks_ms()):
        return
    elif ui.kind == _DECISION and (tap == "btn:yes" or tap == "btn:no"):
        ui.app.send_intent({"type": "double" if m.view.get("phase") == "double" else "show",
                            "yes": tap == "btn:yes"})
    elif ui.kind == _PLAY and tap == "btn:play" and m.selected:
        ui.app.send_intent({"type": "play", "cards": [CODES[n] for n in card_bytes(m.selected)]})
    elif ui.kind == _PLAY and tap == "btn:pass":
        ui.app.send_intent({"type": "pass"})


def _panels(ui, ws, v, width):
    """The three other seats (labelled 上家/对家/下家 by games.panel): cards left,
    明牌/加倍/报单 marks, 要压 on the play to beat, shown hand, last play; then (slot 3)
    the seat's own line left of the buttons, ``width`` wide: 你, its 明牌 ×3 / 加倍 ×2
    choices (or 不明牌 once chosen), and 要压 when its play is the one to beat.

    Each line's texts are laid out left to right by their measured widths, a new line when
    the next would not fit; neighbours of one colour on one line share a TEXT widget (the
    heap holds each widget).  In this loop, not a function of its own: each module
    function is heap on the seat."""
    m = ui.m
    f = ui.f16
    lang = m.lang
    counts = v.get("counts", {})
    shown = v.get("shown", {})
    doubled = v.get("doubled", {})
    reports = v.get("reports", [])
    decided = v.get("decided", ())
    to_beat = (v.get("to_beat") or {}).get("seat")
    sp = f.width(b" ")
    for slot in range(4):  # 上家 left, 对家 middle, 下家 right; then the seat's own line
        if slot == 3:
            seat = m.seat
            lx, y, w = 4, _ROW_Y + 2, width
            times = text.t("result", lang, 10)  # ×%d
            out = [text.t("you", lang), _LIGHT]
            show = v.get("my_show")
            if show:
                out += [text.t("shown", lang) + times % 3, _YELLOW]
            elif show is not None:
                out += [text.t("show_no", lang), _LIGHT]
            if doubled.get(seat):
                out += [text.t("doubled", lang) + times % 2, _YELLOW]
        else:
            seat, x = games.panel(ui, ws, v, slot, _PANEL_Y, _PANEL_W, _PANEL_H)
            lx, y, w = x + 4, _PANEL_Y + 21, _PANEL_W - 8
            out = [text.t("cards_left", lang) % counts[seat] if seat in counts else "", _WHITE]
            if seat in shown:
                out += [text.t("shown", lang), _WHITE]
            if doubled.get(seat):
                out += [text.t("doubled", lang), _WHITE]
            if seat in decided:  # 明牌 phase: this seat has chosen (not what)
                out += [text.t("chose", lang), _LIGHT]
            if seat in reports:  # 报单 stands out
                out += [text.t("report", lang), _ORANGE]
        beaten = seat == to_beat
        if beaten:
            out += [text.t("to_beat", lang), _YELLOW]
        cx = lx  # where the next word goes
        run = b""  # the words of the widget being gathered, from rx
        rx = lx
        colour = -1
        for i in range(0, len(out), 2):
            b = screens.fit(f, out[i], w)
            tw = f.width(b)
            wrap_ = cx > lx and cx + tw > lx + w
            if run and (wrap_ or out[i + 1] != colour):
                ws.append(label(f, rx, y, run, colour))
                run = b""
            if wrap_:
                cx = lx
                y += 18
            if run:
                run += b" " + b
            else:
                run = b
                rx = cx
                colour = out[i + 1]
            cx += tw + sp
        if run:
            ws.append(label(f, rx, y, run, colour))
        y += 18
        out = None
        if slot == 3:
            break
        if seat in shown and y + 18 <= _PANEL_Y + _PANEL_H:
            ws.append(cardrow(f, x + 4, y, _PANEL_W - 8, card_bytes(shown[seat]), (_PANEL_Y + _PANEL_H - y) // 18))
        # the play to beat framed yellow (gfx.cardrow), earlier plays on grey
        _last_play(ui, ws, x + 4, _LAST_Y, _PANEL_W - 8, _last(v, seat), _YELLOW if beaten else _GREY)


def _last(v, seat):
    """``seat``'s latest entry in the current round: its cards, None for a pass, 0 if none."""
    play = 0
    for e in v.get("trick", ()):
        if e.get("seat") == seat:
            play = e.get("cards")
    return play


def _last_play(ui, ws, x, y, w, play, color):
    """A seat's latest play (or 过): faces on white for the play to beat, on grey for one beaten since."""
    if play is None:
        ws.append(label(ui.f16, x, y + 1, text.t("passed", ui.m.lang), _LIGHT))
    elif play:
        ws.append(cardrow(ui.f16, x, y, w, card_bytes(play), 2, color))
