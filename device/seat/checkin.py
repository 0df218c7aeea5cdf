"""The check-in screen (hub screen ``checkin``): the player sitting down for a venue round
types their player number on a keypad and confirms it; the hub checks it.

Layout (rows): top bar 0-23; who sits here this round ("第7桌 东家 · 本轮选手 李四") 32-47
and, when the hub gives it, where last round's player of this seat goes now ("上轮选手请到
第3桌 北家") 54-69; on the left the prompt (96-131), "选手号" and the typed number in the
card font's large digits (154-197) and the hint (210-225); on the right the keypad
(96-305): 1 2 3 / 4 5 6 / 7 8 9 / 删除 0 确认.  Tap ids ``key:0`` … ``key:9``, ``btn:del``,
``btn:checkin``.  Once the hub's seat map says ``checked``: "已签到，请等待开始" and no keypad.

确认 sends ``{"t": "checkin", "no": 12}`` (``App.send_checkin``) and locks the keypad until
the hub answers: a state whose seat map is ``checked``, or a refusal (``checkin_wrong``:
shown like any refusal, the digits cleared) — or, with no answer in 5 s, the keypad frees
itself (``UI.tick``).  叫裁判 stays on the top bar.

A module of its own, imported when the screen is built and dropped again when another
screen is (``screens.build``): a deal never carries its code on the heap.
"""

from micropython import const

from seat import screens, text
from seat.gfx import BOX, text as label, button

# Palette indices of board/band.py (private: folded into the code, no heap).
_WHITE = const(1)
_BLACK = const(2)
_GREY = const(4)
_YELLOW = const(6)
_LIGHT = const(8)
_ORANGE = const(9)
_GREEN = const(10)
_PANEL = const(12)
_MAROON = const(13)

_W = const(480)
_MAX_DIGITS = const(6)  # player numbers have at most six digits
_KEY_X = const(244)  # the keypad: three columns of _KEY_W, four rows of _KEY_H
_KEY_Y = const(96)
_KEY_W = const(72)
_KEY_H = const(48)


def build(ui, ws):
    """Append the check-in screen's widgets to ``ws``: who sits here now and where last
    round's player goes; then the keypad with the typed number, or, once the hub has the
    right number, that this seat is checked in."""
    m = ui.m
    f = ui.f16
    lang = m.lang
    fit = screens.fit
    screens._top_bar(ui, ws, None, False)
    sm = m.seatmap or {}
    table = sm.get("table") or m.table
    seat = text.seat_name(sm.get("seat") or m.seat, lang)
    p = sm.get("player")
    if p:
        who = text.t("checkin_who", lang) % (table, seat, p.get("name", ""))
    else:  # the top bar names table and seat (a new text or literal would be a qstr for good)
        who = text.t("no_player", lang)
    ws.append(label(f, 0, 32, fit(f, who, 400), _WHITE, 408))  # clear of 叫裁判 (x 412-478, y 0-45)
    nxt = sm.get("next")
    if nxt:
        go = text.t("prev_go", lang) % (nxt.get("table"), text.seat_name(nxt.get("seat"), lang))
        ws.append(label(f, 0, 54, fit(f, go, 400), _YELLOW, 408))
    if m.checked():
        ws.append((BOX, 90, 140, 300, 32, _GREEN, _WHITE))
        ws.append(label(f, 90, 148, text.t("checked", lang), _WHITE, 300))
        if p:
            ws.append(label(f, 0, 190, fit(f, text.t("player", lang) % p.get("name", ""), 440), _YELLOW, _W))
        ws.append(label(f, 0, 290, text.t("device", lang) % ui.app.dev, _GREY, _W))
        return
    y = _KEY_Y
    for line in screens.wrap(f, text.t("checkin_ask", lang), 224, 2):
        ws.append(label(f, 8, y, line, _WHITE))
        y += 20
    ws.append((BOX, 8, 154, 224, 44, _WHITE, _YELLOW))
    if m.typed:
        ws.append(label(ui.f24, 8, 164, m.typed, _BLACK, 224))
    if m.checking is not None:
        ws.append(label(f, 8, 210, fit(f, text.t("sent", lang), 228), _LIGHT))
    elif m.paused():
        ws.append(label(f, 8, 210, fit(f, text.t("paused", lang), 228), _ORANGE))
    # The keypad takes digits while this seat is not checked in and no number is out.
    can = m.online and not m.checked() and m.checking is None
    more = can and len(m.typed) < _MAX_DIGITS
    for i in range(10):  # 1 2 3 / 4 5 6 / 7 8 9 / _ 0 _
        slot = 10 if i == 0 else i - 1
        x = _KEY_X + (slot % 3) * (_KEY_W + 8)
        y = _KEY_Y + (slot // 3) * (_KEY_H + 6)
        d = str(i)
        # The digit is a TEXT in the card font's large digits over an unlabelled key (a
        # button's label is in the UI font; a font field in every button would cost a heap
        # block per button on the busy screens too).
        ws.append(button(f, x, y, _KEY_W, _KEY_H, "", "key:" + d, _PANEL, more))
        ws.append(label(ui.f24, x, y + 12, d, _WHITE, _KEY_W))
    row = _KEY_Y + 3 * (_KEY_H + 6)
    typed = can and len(m.typed) > 0
    ws.append(button(f, _KEY_X, row, _KEY_W, _KEY_H, text.t("key_del", lang), "btn:del", _MAROON, typed))
    ws.append(button(f, _KEY_X + 2 * (_KEY_W + 8), row, _KEY_W, _KEY_H, text.t("key_ok", lang), "btn:checkin",
                     _GREEN, typed))


def tap(ui, tap):
    """A tap on an enabled key: a digit (at most six), 删除, or 确认 (sends the number)."""
    m = ui.m
    if not (m.online and m.screen == "checkin" and not m.checked() and m.checking is None):
        return
    if tap.startswith("key:"):
        if len(m.typed) < _MAX_DIGITS:
            m.typed += tap[4:]
            ui.update()
    elif tap == "btn:del":
        m.typed = m.typed[:-1]
        ui.update()
    elif tap == "btn:checkin" and m.typed:
        ui.app.send_checkin(int(m.typed))
