"""The seat's mirror of what the hub last said, plus the player's unsent choices.

The hub is the only authority: every field here is a copy of a hub message (``welcome``,
``state``, ``event``, ``clock``, ``reject``, ``result``, ``seatmap``), except the card
selection, the "intent sent, no answer yet" mark and the refusal being shown.  The firmware
never decides legality; it may pre-check a selection to grey out the Play button.

Times are ``time.ticks_ms()`` values passed in by the caller (no hidden clock here).
"""

import time

from seat import text


RESULT_FIELDS = ("cards_left", "points", "scores", "places")  # what the result screen shows


def slim_result(r):
    """The fields of a deal result the seat shows (the full record stays on the hub)."""
    if not isinstance(r, dict):
        return None
    out = {}
    for k in RESULT_FIELDS:
        out[k] = r.get(k)
    return out


class Mirror:
    """Everything the screens draw from."""

    def __init__(self, lang):
        self.lang = lang  # text.ZH or text.EN (the hub's welcome may change it)
        self.online = False  # a session with the hub is open
        self.welcomed = False  # a welcome arrived since power-up
        self.seat = None
        self.table = ""
        self.event = ""
        self.player = None  # {id, name} of this seat's player, or None
        self.screen = "waiting"  # the hub's screen: waiting / deal / result / paused
        self.view = None  # BigTwo.view(seat) as the hub sent it
        self.turn = None  # the decision point an intent must carry
        self.players = {}
        self.result = None
        self.seatmap = None
        self.clock_seats = ()
        self.clock_ms = 0
        self.clock_at = 0  # ticks_ms when clock_ms was received
        self.clock_paused = False
        self.has_clock = False
        self.selected = []  # card codes the player picked, not yet sent
        self.pending = None  # the turn of an intent sent and not yet answered
        self.refusal = None  # (code, text) the hub refused an intent with, until dismissed
        self.fault = None  # a text for the connecting screen (unknown device, bad config)
        self.alert = None  # seat that just announced 报单, until the next round
        self.called = False  # the referee was called; cleared by the next game change

    # ---- hub messages ------------------------------------------------------------

    def on_welcome(self, msg):
        self.online = True
        self.welcomed = True
        self.fault = None
        self.seat = msg["seat"]
        self.table = msg["table"]
        self.event = msg["event"]
        self.lang = text.lang_index(msg["lang"])
        self.player = msg["player"]
        self.pending = None

    def on_state(self, msg, now):
        self.screen = msg["screen"]
        self.view = msg["view"]
        if self.view:
            self.view.pop("result", None)  # the full record again: the slim copy below is enough
        self.turn = msg["turn"]
        self.players = msg["players"]
        self.result = slim_result(msg["result"])
        self.seatmap = msg["seatmap"]
        self.set_clock(msg["clock"], now)
        self.pending = None
        self.alert = None
        self._keep_selection()

    def on_event(self, msg, now):
        self.called = False
        if msg["turn"] != self.turn:
            self.pending = None
            self.refusal = None  # the game moved on: an old refusal no longer applies
        self.view = msg["view"]
        if self.view and "result" in self.view:
            self.result = slim_result(self.view.pop("result"))
        self.turn = msg["turn"]
        self.set_clock(msg["clock"], now)
        if self.screen == "waiting":
            self.screen = "deal"
        for e in msg["events"]:
            kind = e.get("type")
            if kind == "report":
                self.alert = e.get("seat")
            elif kind == "round_end":
                self.alert = None
            elif kind == "deal_end":
                self.result = slim_result(e.get("result"))
        self._keep_selection()

    def on_result(self, msg):
        self.result = slim_result(msg["result"])
        self.screen = "result"
        self.selected = []

    def on_seatmap(self, msg):
        self.seatmap = msg["seatmap"]

    def on_reject(self, msg):
        self.pending = None
        self.refusal = (msg["code"], msg["zh"] if self.lang == text.ZH else msg["en"])

    def set_clock(self, c, now):
        if c is None:
            self.has_clock = False
            self.clock_seats = ()
            return
        self.has_clock = True
        self.clock_seats = c["seats"]
        self.clock_ms = c["ms"]
        self.clock_paused = c["paused"]
        self.clock_at = now

    def link_down(self):
        self.online = False
        self.pending = None

    # ---- questions the screens ask --------------------------------------------------

    def clock_left(self, now):
        """Milliseconds left on the running clock (counted down locally from the hub's figure)."""
        if not self.has_clock:
            return 0
        if self.clock_paused:
            return self.clock_ms
        left = self.clock_ms - time.ticks_diff(now, self.clock_at)
        return left if left > 0 else 0

    def my_clock(self):
        return self.has_clock and self.seat in self.clock_seats

    def phase(self):
        return self.view.get("phase") if self.view else None

    def my_turn(self):
        return bool(self.view) and self.seat in self.view.get("to_act", ())

    def paused(self):
        return self.screen == "paused" or (self.has_clock and self.clock_paused)

    def can_act(self, now):
        """May the player send a decision now?  (The hub still decides if it is legal.)"""
        return (self.online and not self.paused() and self.pending is None and self.my_turn()
                and self.clock_left(now) > 0)

    def hand(self):
        return self.view.get("hand", []) if self.view else []

    def toggle(self, code):
        if code in self.selected:
            self.selected.remove(code)
        elif code in self.hand():
            self.selected.append(code)

    def _keep_selection(self):
        hand = self.hand()
        self.selected = [c for c in self.selected if c in hand]
