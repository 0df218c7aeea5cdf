"""The seat's screens (480×320).  Each is a small class that builds its widgets from the
mirror, owns its tasks (cancelled when the screen goes, as micropython-touch's
``Screen.reg_task``) and turns taps into intents.  The hub decides everything; a screen
only shows what the hub said and sends what the player chose.

Layout (rows): top bar 0-23; opponents' panels 28-123 (left: 上家, middle: 对家,
right: 下家, as seen from the seat); their last plays 128-146; a hint line 154-170;
the seat's own last play and the buttons 176-207; the hand 246-307 (a selected card
rises 16 px).

Tap ids in the hit map: ``card:3D``, ``btn:play``, ``btn:pass``, ``btn:yes``, ``btn:no``,
``btn:ok``, ``btn:call``.
"""

import time

import asyncio
from micropython import const

from board.band import WHITE, BLACK, RED, GREY, DARK, YELLOW, BLUE, LIGHT, ORANGE, GREEN, PANEL, MAROON
from seat import text
from seat.gfx import Box, Text, Button, Hand, CardRow, Cells, CENTER, card_bytes, card_code, card_flags

W = const(480)
TOP_H = const(24)
PANEL_Y = const(28)
PANEL_W = const(152)
PANEL_H = const(96)
LAST_Y = const(128)
HINT_Y = const(154)
ROW_Y = const(176)
HAND_Y = const(246)
SEATS = ("E", "N", "W", "S")  # play order: a seat's 下家 is the next one


def fit(font, s, w):
    """``s`` cut to fit ``w`` pixels (with … when cut)."""
    if font.width(s) <= w:
        return s
    while s and font.width(s + "…") > w:
        s = s[:-1]
    return s + "…"


def wrap(font, s, w, max_lines=3):
    """Lines of ``s`` no wider than ``w``: break at a space when there is one, else anywhere
    (Chinese has no spaces)."""
    lines = []
    line = ""
    for ch in s:
        if font.width(line + ch) > w:
            cut = line.rfind(" ")
            if cut > 0:
                lines.append(line[:cut])
                line = line[cut + 1:] + ch
            else:
                lines.append(line)
                line = ch
            if len(lines) == max_lines:
                return lines
        else:
            line += ch
    if line:
        lines.append(line)
    return lines


class Precheck:
    """Guidance only: what kind of play the selection is (``paizhuo_shared.bigtwo.classify``),
    so the Play button can be greyed for a selection that is no combination at all.  The
    hub still decides every play.  It costs about 12 KB of heap on the unix port, so the
    app loads it only when the heap can spare that (see ``App.start``)."""

    def __init__(self):
        from paizhuo_shared import bigtwo
        self.bigtwo = bigtwo
        self.rules = bigtwo.Rules()

    def kind(self, codes):
        """The kind name (``"pair"``, ``"straight"``, …) of the cards, or None."""
        try:
            k = self.bigtwo.classify(self.bigtwo.cards(codes), self.rules)
        except ValueError:
            return None
        return k[0] if k else None


def pick(m):
    """The screen class the mirror calls for."""
    if not m.welcomed:
        return Connecting
    phase = m.phase()
    if m.screen == "result" or phase == "over":
        return Result
    if m.screen in ("deal", "paused") and phase in ("show", "double"):
        return Decision
    if m.screen in ("deal", "paused") and phase == "play":
        return Play
    return Waiting


class Screen:
    """Base: ``build(now)`` fills ``widgets``; ``enter``/``leave`` start and cancel tasks."""

    name = "?"

    def __init__(self, ui):
        self.ui = ui
        self.m = ui.m
        self.widgets = []
        self._tasks = []

    def t(self, key):
        return text.t(key, self.m.lang)

    def reg_task(self, coro):
        self._tasks.append(asyncio.create_task(coro))

    def enter(self):
        pass

    def leave(self):
        for task in self._tasks:
            task.cancel()
        self._tasks = []

    def build(self, now):
        pass

    def on_tap(self, tap):
        pass

    # ---- pieces shared by several screens ---------------------------------------------

    def top_bar(self, ws, now, status=None, clock=True):
        m = self.m
        f = self.ui.f16
        ws.append(Box(0, 0, W, TOP_H, DARK))
        if m.seat:
            left = text.t("table_seat", m.lang) % (m.table, text.seat_name(m.seat, m.lang))
            ws.append(Text(f, 4, 4, fit(f, left, 150), WHITE))
        if not m.online:
            status, colour = self.t("reconnecting"), ORANGE
        elif m.paused():
            status, colour = self.t("paused"), ORANGE
        elif m.called:
            status, colour = self.t("called"), ORANGE
        else:
            colour = YELLOW
        if status:
            ws.append(Text(f, 160, 4, fit(f, status, 170), colour))
        if clock and m.has_clock:
            ws.append(Clock(self.ui, 330, 2, 68, 20))
        ws.append(Button(f, 404, 1, 74, 22, self.t("call_ref"), "btn:call", MAROON, m.online))

    def panels(self, ws):
        """The three other seats: name, cards left, 明牌/加倍/报单 marks, shown hand, last play."""
        m = self.m
        v = m.view or {}
        f = self.ui.f16
        me = SEATS.index(m.seat) if m.seat in SEATS else 0
        counts = v.get("counts", {})
        shown = v.get("shown", {})
        doubled = v.get("doubled", {})
        reports = v.get("reports", [])
        to_act = v.get("to_act", [])
        last = last_plays(v)
        for slot, offset in ((0, 3), (1, 2), (2, 1)):  # 上家 left, 对家 middle, 下家 right
            seat = SEATS[(me + offset) % 4]
            x = 4 + slot * 160
            ws.append(Box(x, PANEL_Y, PANEL_W, PANEL_H, PANEL, YELLOW if seat in to_act else -1))
            who = text.seat_name(seat, m.lang)
            p = m.players.get(seat)
            if p:
                who = who + " " + p.get("name", "")
            ws.append(Text(f, x + 4, PANEL_Y + 4, fit(f, who, PANEL_W - 8), WHITE))
            line = self.t("cards_left") % counts[seat] if seat in counts else ""
            if seat in shown:
                line += "  " + self.t("shown")
            if doubled.get(seat):
                line += "  " + self.t("doubled")
            t = Text(f, x + 4, PANEL_Y + 22, line, WHITE)
            ws.append(t)
            if seat in v.get("decided", ()):  # 明牌 phase: this seat has chosen (not what)
                ws.append(Text(f, x + PANEL_W - 40, PANEL_Y + 22, self.t("chose"), LIGHT))
            if seat in reports:  # 报单 stands out
                ws.append(Text(f, t.x + t.w + 8, PANEL_Y + 22, self.t("report"), ORANGE))
            if seat in shown:
                ws.append(CardRow(f, x + 4, PANEL_Y + 42, PANEL_W - 8, card_bytes(shown[seat]), 3))
            self.last_play(ws, x + 4, LAST_Y, PANEL_W - 8, last.get(seat, 0))

    def last_play(self, ws, x, y, w, play):
        if play is None:
            ws.append(Text(self.ui.f16, x, y + 1, self.t("passed"), LIGHT))
        elif play:
            ws.append(CardRow(self.ui.f16, x, y, w, card_bytes(play)))

    def hand(self, ws, tappable):
        m = self.m
        ws.append(Hand(self.ui.f24, HAND_Y, card_bytes(m.hand()), card_flags(m.selected if tappable else ()),
                       tappable, W))


def last_plays(view):
    """Each seat's latest entry in the current round: its cards, or None for a pass."""
    out = {}
    for e in view.get("trick", ()):
        out[e.get("seat")] = e.get("cards")
    return out


class Clock(Box):
    """The countdown, drawn from the mirror at every refresh (no text is rebuilt: the digits
    go into a preallocated buffer)."""

    def __init__(self, ui, x, y, w, h):
        super().__init__(x, y, w, h, DARK)
        self.ui = ui
        self.digits = bytearray(b"   ")

    def seconds(self):
        left = self.ui.m.clock_left(time.ticks_ms())
        return (left + 999) // 1000

    def draw(self, fb, y0):
        m = self.ui.m
        secs = self.seconds()
        mine = m.my_clock()
        colour = RED if secs <= 5 and not m.clock_paused else (YELLOW if mine else WHITE)
        y = self.y - y0
        fb.fill_rect(self.x, y, self.w, self.h, BLUE if mine else DARK)
        fb.rect(self.x, y, self.w, self.h, colour)
        d = self.digits
        i = 3
        while True:
            i -= 1
            d[i] = 48 + secs % 10
            secs //= 10
            if secs == 0 or i == 0:
                break
        f = self.ui.f16
        # Right-aligned seconds: digits are 8 px wide in the UI font.
        f.draw(fb, self.x + self.w - 6 - 8 * (3 - i), y + 2, d, colour, i)
        if m.clock_paused:
            fb.fill_rect(self.x + 6, y + 5, 3, 10, colour)
            fb.fill_rect(self.x + 12, y + 5, 3, 10, colour)


class Connecting(Screen):
    """Before the first welcome: the device id and what the link is doing."""

    name = "connecting"

    def build(self, now):
        m = self.m
        f = self.ui.f16
        ws = [Text(f, 0, 120, self.t("connecting"), WHITE, W, CENTER)]
        if m.fault:
            y = 150
            for line in wrap(f, m.fault, 440):
                ws.append(Text(f, 0, y, line, ORANGE, W, CENTER))
                y += 20
        ws.append(Text(f, 0, 290, self.t("device") % self.ui.app.dev, GREY, W, CENTER))
        self.widgets = ws


class Waiting(Screen):
    """Welcomed, no deal running: table, seat, player."""

    name = "waiting"

    def build(self, now):
        m = self.m
        f = self.ui.f16
        ws = []
        self.top_bar(ws, now, clock=False)
        ws.append(Text(f, 0, 90, self.t("table_seat") % (m.table, text.seat_name(m.seat, m.lang)), WHITE, W, CENTER))
        p = (m.seatmap or {}).get("player") or m.player
        who = self.t("player") % p["name"] if p else self.t("no_player")
        ws.append(Text(f, 0, 120, fit(f, who, 440), YELLOW, W, CENTER))
        ws.append(Text(f, 0, 160, self.t("wait_deal"), WHITE, W, CENTER))
        ws.append(Text(f, 0, 190, fit(f, self.t("event") % m.event, 440), LIGHT, W, CENTER))
        ws.append(Text(f, 0, 290, self.t("device") % self.ui.app.dev, GREY, W, CENTER))
        self.widgets = ws


class Countdown(Screen):
    """A screen with a running clock: one task redraws the clock each second and rebuilds
    the screen when the seat's own time runs out (input locks at zero)."""

    def enter(self):
        self.reg_task(self._tick())

    async def _tick(self):
        m = self.m
        shown = -1
        while True:
            left = m.clock_left(time.ticks_ms())
            wait = left % 1000 if left > 0 and not m.clock_paused else 1000
            await asyncio.sleep_ms(wait if wait > 0 else 1000)
            now = time.ticks_ms()
            secs = (m.clock_left(now) + 999) // 1000
            if m.has_clock and secs != shown:
                shown = secs
                self.ui.invalidate(0, TOP_H)
            if m.my_clock() and left > 0 and m.clock_left(now) == 0:
                self.ui.update()  # time is up: lock the buttons


class Decision(Countdown):
    """明牌 (show) and 加倍 (double): the hand, the question, yes/no and the countdown."""

    @property
    def name(self):
        return "double" if self.m.phase() == "double" else "show"

    def build(self, now):
        m = self.m
        f = self.ui.f16
        v = m.view or {}
        phase = m.phase()
        ws = []
        mine = m.my_turn()
        if mine:
            status = self.t("your_turn")
        elif phase == "double" and v.get("to_act"):
            status = self.t("wait_for") % text.seat_name(v["to_act"][0], m.lang)
        else:
            status = None
        self.top_bar(ws, now, status)
        self.panels(ws)
        can = m.can_act(now)
        if mine and m.clock_left(now) == 0 and m.my_clock():
            q = self.t("time_up")
        elif mine:
            q = self.t("q_show" if phase == "show" else "q_double")
        elif phase == "show":
            q = self.t("decided")
        else:
            q = self.t("wait_double") % text.seat_name((v.get("to_act") or ["?"])[0], m.lang)
        ws.append(Text(f, 0, HINT_Y, q, YELLOW if mine else WHITE, W, CENTER))
        if mine:
            yes, no = ("show_yes", "show_no") if phase == "show" else ("double_yes", "double_no")
            ws.append(Button(f, 120, ROW_Y, 110, 34, self.t(yes), "btn:yes", GREEN, can))
            ws.append(Button(f, 250, ROW_Y, 110, 34, self.t(no), "btn:no", BLUE, can))
        self.hand(ws, False)
        self.widgets = ws

    def on_tap(self, tap):
        m = self.m
        if not m.can_act(time.ticks_ms()) or tap not in ("btn:yes", "btn:no"):
            return
        kind = "double" if m.phase() == "double" else "show"
        self.ui.app.send_intent({"type": kind, "yes": tap == "btn:yes"})


class Play(Countdown):
    """The play phase: the hand (tap to select), Play and Pass, the others' last plays,
    card counts, 报单, shown hands, whose turn and the countdown."""

    name = "play"

    def build(self, now):
        m = self.m
        f = self.ui.f16
        v = m.view or {}
        ws = []
        mine = m.my_turn()
        if mine:
            status = self.t("your_turn")
        elif v.get("to_act"):
            status = self.t("wait_for") % text.seat_name(v["to_act"][0], m.lang)
        else:
            status = None
        self.top_bar(ws, now, status)
        self.panels(ws)
        # The hint line: what matters most first.
        hint, colour = None, WHITE
        alert = m.alert if m.alert in v.get("reports", ()) else None
        pre = self.ui.precheck
        kind = pre.kind(m.selected) if pre and m.selected else None
        if m.pending is not None:
            hint = self.t("sent")
        elif mine and m.my_clock() and m.clock_left(now) == 0:
            hint, colour = self.t("time_up"), ORANGE
        elif alert and alert != m.seat:
            hint, colour = self.t("report_alert") % text.seat_name(alert, m.lang), ORANGE
        elif mine and v.get("duty"):
            hint, colour = self.t("duty"), ORANGE
        elif mine and m.selected:
            hint = self.t("kind_" + kind) if kind else (self.t("not_combo") if pre else None)
        elif mine and v.get("first_play"):
            hint = self.t("first_play")
        elif mine and not v.get("to_beat"):
            hint = self.t("lead")
        elif mine:
            hint = self.t("select")
        if hint:
            ws.append(Text(f, 0, HINT_Y, fit(f, hint, 470), colour, W, CENTER))
        last = last_plays(v)
        ws.append(Text(f, 4, ROW_Y + 8, self.t("you"), LIGHT))
        self.last_play(ws, 28, ROW_Y + 7, 260, last.get(m.seat, 0))
        can = m.can_act(now)
        ws.append(Button(f, 300, ROW_Y, 84, 32, self.t("play"), "btn:play", GREEN,
                         can and bool(m.selected) and (kind is not None or pre is None)))
        ws.append(Button(f, 392, ROW_Y, 84, 32, self.t("pass"), "btn:pass", BLUE,
                         can and v.get("to_beat") is not None))
        self.hand(ws, True)
        self.widgets = ws

    def on_tap(self, tap):
        m = self.m
        app = self.ui.app
        if tap.startswith("card:"):
            m.toggle(tap[5:])
            self.ui.update()
        elif not m.can_act(time.ticks_ms()):
            return
        elif tap == "btn:play" and m.selected:
            app.send_intent({"type": "play", "cards": [card_code(n) for n in card_bytes(m.selected)]})
        elif tap == "btn:pass":
            app.send_intent({"type": "pass"})


class Result(Screen):
    """The finished deal: each seat's cards left, card points, score and place; where next."""

    name = "result"

    def build(self, now):
        m = self.m
        f = self.ui.f16
        r = m.result or {}
        ws = []
        self.top_bar(ws, now, clock=False)
        title = self.t("result")
        board = (m.view or {}).get("board")
        if isinstance(board, int):
            title = title + "  " + self.t("board") % board
        ws.append(Text(f, 0, 32, title, YELLOW, W, CENTER))
        cols = ((8, "col_seat"), (72, "col_player"), (230, "col_left"), (290, "col_points"),
                (350, "col_score"), (420, "col_place"))
        for x, key in cols:
            ws.append(Text(f, x, 60, self.t(key), LIGHT))
        me = SEATS.index(m.seat) if m.seat in SEATS else -1
        if me >= 0:
            ws.append(Box(4, 84 + 26 * me - 3, W - 8, 22, PANEL, YELLOW))
        table = Cells(f, 0, 84, W, 26 * 4)
        y = 84
        for seat in SEATS:
            p = m.players.get(seat)
            table.add(8, y, text.seat_name(seat, m.lang), WHITE)
            table.add(72, y, fit(f, p.get("name", "") if p else "-", 150), WHITE)
            for x, field in ((230, "cards_left"), (290, "points"), (350, "scores"), (420, "places")):
                value = (r.get(field) or {}).get(seat)
                table.add(x, y, "-" if value is None else str(value), WHITE)
            y += 26
        ws.append(table)
        nxt = (m.seatmap or {}).get("next")
        if nxt:
            line = self.t("next_seat") % (nxt.get("table"), text.seat_name(nxt.get("seat"), m.lang))
        else:
            line = self.t("stay")
        ws.append(Text(f, 0, 210, fit(f, line, 470), YELLOW if nxt else WHITE, W, CENTER))
        self.widgets = ws


class Refusal(Screen):
    """The hub refused an intent: its reason (the engine's zh/en text) over the screen,
    until the player taps OK, five seconds pass, or the game moves on."""

    name = "refusal"
    SHOW_MS = 5000

    def enter(self):
        self.reg_task(self._expire())

    async def _expire(self):
        await asyncio.sleep_ms(self.SHOW_MS)
        self.dismiss()

    def dismiss(self):
        self.m.refusal = None
        self.ui.update()

    def build(self, now):
        f = self.ui.f16
        code, reason = self.m.refusal or ("", "")
        ws = [Box(60, 96, 360, 136, WHITE, BLACK), Box(60, 96, 360, 24, MAROON),
              Text(f, 60, 100, self.t("refused"), WHITE, 360, CENTER)]
        y = 128
        for line in wrap(f, reason or code, 340):
            ws.append(Text(f, 70, y, line, BLACK, 340, CENTER))
            y += 20
        ws.append(Button(f, 190, 192, 100, 32, self.t("ok"), "btn:ok", BLUE))
        self.widgets = ws

    def on_tap(self, tap):
        if tap == "btn:ok":
            self.dismiss()
