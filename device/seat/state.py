"""The seat's mirror of what the hub last said, plus the player's unsent choices.

The hub is the only authority: every field here is a copy of a hub message (``welcome``,
``state``, ``event``, ``clock``, ``reject``, ``result``, ``seatmap``, ``note``), except the
card selection, the digits typed at check-in, the "intent (or check-in) sent, no answer
yet" marks and the refusal being shown.  The firmware
never decides legality; it may pre-check a selection to grey out the Play button.

Times are ``time.ticks_ms()`` values passed in by the caller (no hidden clock here).
"""

import time

from seat import text


# Words hub messages carry that no firmware code names.  A list display keeps them as
# qstrs, and MicroPython's JSON parser returns the existing qstr for a string it reads
# instead of allocating one (about 64 bytes of heap each, per message, on the unix port).
# (No tuple constants of strings in this firmware: each element would be a str object.)
_HUB_WORDS = ["game", "bigtwo", "first", "time_limit", "my_show", "leader", "hands", "seat"]


def prune(buf, n):
    """Blank out, in place, what the seat never shows of a hub message: in the JSON bytes
    ``buf[:n]``, every member of a deal result record (``"result":{…}``) other than
    cards_left, points, scores and places (what the result screen shows: the hands
    left, 明牌/加倍 flags, auto moves and think times go) — with
    its comma.  Called after the frame's tag is checked and before it is parsed
    (``Session.open``'s ``prune``): on the 64-bit unix port a parsed record costs about
    3.7 KB of heap, a pruned one under 1 KB, and the last ``event`` of a deal and the
    result ``state`` carry two records each.

    The pattern ``"result":{`` can only be a key (a quote inside a JSON string is
    escaped), and anything unexpected stops the pruning: the rest is parsed as sent.

    >>> b = bytearray(b'{"result":{"winner":"N","points":{"E":5},"think_ms":{"E":0}},"x":1}')
    >>> prune(b, len(b)); bytes(b).replace(b" ", b"")
    b'{"result":{"points":{"E":5}},"x":1}'
    """
    i = 0
    while True:
        i = buf.find(b'"result":{', i, n)
        if i < 0:
            return
        i += 10  # the first member
        kept = -1  # where the comma after the last member kept is
        while i < n and buf[i] == 34:  # '"': a member's key (record keys have no escapes)
            k = buf.find(b'"', i + 1, n)
            if k < 0 or k + 1 >= n or buf[k + 1] != 58:  # ':'
                return
            end = _skip(buf, k + 2, n)
            if end < 0 or end >= n:
                return
            comma = buf[end] == 44  # ','
            n_key = k - i - 1
            if ((n_key == 10 and buf.find(b"cards_left", i, k) == i + 1)
                    or (n_key == 6 and (buf.find(b"points", i, k) == i + 1 or buf.find(b"scores", i, k) == i + 1
                                        or buf.find(b"places", i, k) == i + 1))):
                kept = end
            elif comma:
                _blank(buf, i, end + 1)  # the member and its comma
            elif kept >= 0:
                _blank(buf, kept, end)  # the last member and the comma before it
            else:
                _blank(buf, i, end)  # the only member left
            i = end + 1 if comma else end


def _skip(buf, i, n):
    """The index just past the JSON value at ``buf[i]`` (-1 if it does not end before n)."""
    depth = 0
    while i < n:
        c = buf[i]
        i += 1
        if c == 34:  # a string, to its closing quote
            while True:
                if i >= n:
                    return -1
                c = buf[i]
                i += 1
                if c == 92:  # a backslash: the next byte is escaped
                    i += 1
                elif c == 34:
                    break
            if depth == 0:
                return i
        elif c == 123 or c == 91:  # { [
            depth += 1
        elif c == 125 or c == 93:  # } ]
            depth -= 1
            if depth == 0:
                return i
            if depth < 0:  # a number, true, false or null ended by its container
                return i - 1
        elif c == 44 and depth == 0:  # ',' ends a number, true, false or null
            return i - 1
    return -1


def _blank(buf, a, b):
    while a < b:
        buf[a] = 32
        a += 1


def _short(p):
    """A player ``{id, name}`` with its name cut to 32 characters, in place: no screen shows
    more (they fit names to a column), and a name of a 4 KB frame would stay on the heap."""
    if isinstance(p, dict):
        name = p.get("name")
        if isinstance(name, str) and len(name) > 32:
            p["name"] = name[:32]
    return p


def slim_result(r):
    """The fields of a deal result the seat shows (the full record stays on the hub)."""
    if not isinstance(r, dict):
        return None
    return {"cards_left": r.get("cards_left"), "points": r.get("points"), "scores": r.get("scores"),
            "places": r.get("places")}


class Mirror:
    """Everything the screens draw from; :meth:`apply` takes each hub message."""

    def __init__(self, lang):
        self.lang = lang  # text.ZH or text.EN (the hub's welcome may change it)
        self.online = False  # a session with the hub is open
        self.welcomed = False  # a welcome arrived since power-up
        self.seat = None
        self.table = ""
        self.event = ""
        self.player = None  # {id, name} of this seat's player, or None
        self.screen = "waiting"  # the hub's screen: waiting / checkin / deal / result / paused
        self.view = None  # BigTwo.view(seat) as the hub sent it (without its "result")
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
        # (Few new fields: a 64 KB heap feels every slot of this object's dict.)
        self.typed = ""  # check-in: the player number's digits typed so far (at most 6)
        self.checking = None  # check-in: ticks_ms it was sent, until answered (the keypad locks)
        self.note = None  # a referee's note: (text in this seat's language, ticks_ms it came),
        # until the screen changes or 10 s pass (the UI takes it down)

    def apply(self, msg, now):
        """Take one hub message (already checked by the link codec) received at ``now``."""
        t = msg["t"]
        if t == "welcome":
            self.online = True
            self.welcomed = True
            self.fault = None
            self.seat = msg["seat"]
            self.table = msg["table"]
            self.event = msg["event"]
            self.lang = text.lang_index(msg["lang"])
            self.player = _short(msg["player"])
            self.pending = None
        elif t == "state":
            self.screen = msg["screen"]
            self.view = v = msg["view"]
            if v:
                v.pop("result", None)  # the full record again: the slim copy below is enough
            self.turn = msg["turn"]
            self.players = players = msg["players"]
            for seat in players:
                _short(players[seat])
            self.result = slim_result(msg["result"])
            self.seatmap = msg["seatmap"]
            if self.seatmap:
                _short(self.seatmap.get("player"))
            self.pending = None
            self.alert = None
            self.checking = None  # a check-in sent is answered (a right number: ``checked``)
            if self.screen != "checkin" or self.checked():
                self.typed = ""  # the digits go once they are no longer wanted
        elif t == "event":
            self.called = False
            if msg["turn"] != self.turn:
                self.pending = None
                self.refusal = None  # the game moved on: an old refusal no longer applies
            self.view = v = msg["view"]
            if v and "result" in v:
                self.result = slim_result(v.pop("result"))
            self.turn = msg["turn"]
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
        elif t == "reject":
            text_ = msg["zh"] if self.lang == text.ZH else msg["en"]
            if not self.welcomed:
                self.fault = text_  # e.g. an unregistered device: the connecting screen says so
            else:
                self.pending = None
                self.refusal = (msg["code"], text_)
                if self.checking is not None:  # the hub refused the number: the keypad is free again
                    self.checking = None
                    if msg["code"] == "checkin_wrong":
                        self.typed = ""  # type it again from the start
        elif t == "result":
            self.result = slim_result(msg["result"])
            self.screen = "result"
            self.selected = []
        elif t == "seatmap":
            self.seatmap = msg["seatmap"]
            _short(self.seatmap.get("player"))
            self.checking = None
            if self.checked():
                self.typed = ""
        elif t == "note":
            self.note = (msg["zh"] if self.lang == text.ZH else msg["en"], now)
        if t == "state" or t == "event" or t == "clock":
            c = msg["clock"]
            self.has_clock = c is not None
            if c is None:
                self.clock_seats = ()
            else:
                self.clock_seats = c["seats"]
                self.clock_ms = c["ms"]
                self.clock_paused = c["paused"]
                self.clock_at = now
        if t == "state" or t == "event":  # keep only picked cards that are still in the hand
            hand = self.hand()
            self.selected = [c for c in self.selected if c in hand]

    # ---- questions the screens ask --------------------------------------------------

    def checked(self):
        """This round's player has checked in at this seat (the hub's seat map says so)."""
        return bool(self.seatmap and self.seatmap.get("checked") is True)

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
