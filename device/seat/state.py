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

try:
    from micropython import const
except ImportError:  # CPython (the tests): a constant is its value
    def const(x):
        return x


# Words hub messages carry that no firmware code names.  A list display keeps them as
# qstrs, and MicroPython's JSON parser returns the existing qstr for a string it reads
# instead of allocating one (about 64 bytes of heap each, per message, on the unix port).
# (No tuple constants of strings in this firmware: each element would be a str object.)
# A game's own words are in its seat module (seat/games/), loaded with it.
_HUB_WORDS = ["game", "time_limit", "seat"]


# The longest string a hub message keeps, in UTF-8 bytes: a name of 64 Chinese characters
# (the codec's longest ``name``), and more of a refusal or a note than its screen shows (3
# lines of 340 px, 2 of 456 px).  Longer ones are cut before parsing (``prune``).
_MAX_TEXT = const(192)


def prune(buf, n):
    """Blank out, in place, what the seat never shows of a hub message: in the JSON bytes
    ``buf[:n]``, every member of a deal result record (``"result":{…}``) other than
    cards_left, points, scores, places, levels_after, the 明牌/加倍 flags shown and doubled,
    and a winner's winner, self_drawn, huxi, tun, fan, names and groups (what result screens
    show: the hands left, auto moves and think times go) — with
    its comma.  Called after the frame's tag is checked and before it is parsed
    (``Session.open``'s ``prune``): on the 64-bit unix port a parsed record costs about
    3.7 KB of heap, a pruned one under 1 KB, and the last ``event`` of a deal and the
    result ``state`` carry two records each.

    The pattern ``"result":{`` can only be a key (a quote inside a JSON string is
    escaped), and anything unexpected stops the pruning: the rest is parsed as sent.

    Then every string longer than ``_MAX_TEXT`` bytes is cut to its first ``_MAX_TEXT``
    bytes (whole characters and escapes): the new closing quote goes there and the rest of
    the string becomes spaces, so the JSON stays valid.  Why: the parser makes each string
    in one block (grown by reallocation), and a 4 KB ``state`` at the frame cap can carry
    four player names of 900 bytes; the seat's heap, fragmented after a deal, had no free
    run that long (measured: 6.9 KB free, the largest run 832 bytes, a name of 871 bytes:
    ``bad_json``, the frame dropped).  Cut, no string of a frame needs more than about 200
    bytes in one piece (the mirror keeps names to 32 characters anyway).  One function, not
    three: each function's name is a qstr for good.

    >>> b = bytearray(b'{"result":{"auto_moves":{"N":1},"points":{"E":5},"think_ms":{"E":0}},"x":1}')
    >>> prune(b, len(b)); bytes(b).replace(b" ", b"")
    b'{"result":{"points":{"E":5}},"x":1}'
    >>> b = bytearray(('{"n":"%s","k":"ok"}' % ("名" * 70)).encode())
    >>> prune(b, len(b)); import json; m = json.loads(bytes(b)); len(m["n"]), m["k"]
    (64, 'ok')
    """
    i = 0
    while True:
        i = buf.find(b'"result":{', i, n)
        if i < 0:
            break
        i += 10  # the first member
        kept = -1  # where the comma after the last member kept is
        while i < n and buf[i] == 34:  # '"': a member's key (record keys have no escapes)
            k = buf.find(b'"', i + 1, n)
            if k < 0 or k + 1 >= n or buf[k + 1] != 58:  # ':'
                i = n  # anything unexpected: no more pruning of results
                break
            end = _skip(buf, k + 2, n)
            if end < 0 or end >= n:
                i = n
                break
            comma = buf[end] == 44  # ','
            # the keys kept, quotes and all, in one constant (a bytes object each was 14 objects
            # on the heap for good); a key has no quote, so a match is one whole key
            if (b'"cards_left""points""scores""places""levels_after""shown""doubled"'
                    b'"winner""self_drawn""huxi""tun""fan""names""groups"').find(bytes(buf[i:k + 1])) >= 0:
                kept = end
            elif comma:
                _blank(buf, i, end + 1)  # the member and its comma
            elif kept >= 0:
                _blank(buf, kept, end)  # the last member and the comma before it
            else:
                _blank(buf, i, end)  # the only member left
            i = end + 1 if comma else end
    # A round's plays: the screens show each seat's last one, which is among the last four
    # (each seat plays once a turn round); the earlier ones go.  A round of twelve 27-card
    # plays parsed to 3 KB on the unix port, its last four to under 1 KB.
    i = buf.find(b'"trick":[', 0, n)
    if i >= 0:
        i += 9
        j = i
        count = 0
        while 0 <= j < n and buf[j] == 123:  # '{': the plays are objects
            j = _skip(buf, j, n)
            count += 1
            if 0 <= j < n and buf[j] == 44:  # ','
                j += 1
        if 0 <= j < n and buf[j] == 93 and count > 4:  # ']': the whole list was read
            j = i
            while count > 4:
                j = _skip(buf, j, n) + 1  # the play and its comma
                count -= 1
            _blank(buf, i, j)
    # Meanings (``"straight:7"``) of the plays shown: the screens show the cards.  Only a
    # member after a comma, blanked with it (the JSON stays valid wherever it is).
    i = buf.find(b',"meaning":', 0, n)
    while i >= 0:
        j = _skip(buf, i + 11, n)
        if j < 0:
            break
        _blank(buf, i, j)
        i = buf.find(b',"meaning":', j, n)
    # Long strings.
    i = buf.find(b'"', 0, n)
    while i >= 0:
        j = i
        while True:  # the closing quote: one after an even run of backslashes
            j = buf.find(b'"', j + 1, n)
            if j < 0:
                return
            k = j - 1
            while buf[k] == 92:  # '\\'
                k -= 1
            if (j - 1 - k) & 1 == 0:
                break
        if j - i - 1 > _MAX_TEXT:
            c = i + 1 + _MAX_TEXT
            if buf.find(b"\\", i + 1, c) >= 0:  # never cut inside an escape
                k = i + 1
                while k < c:
                    step = (6 if buf[k + 1] == 117 else 2) if buf[k] == 92 else 1  # \uXXXX, \n
                    if k + step > c:
                        break
                    k += step
                c = k
            while buf[c] & 0xC0 == 0x80:  # never inside a UTF-8 character
                c -= 1
            buf[c] = 34
            _blank(buf, c + 1, j + 1)
        i = buf.find(b'"', j + 1, n)


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
    """The fields of a deal result the seat shows (the full record stays on the hub);
    ``shown`` becomes each seat's multiplier (bytes, E N W S order)."""
    if not isinstance(r, dict):
        return None
    sh = r.get("shown")
    db = r.get("doubled")
    if isinstance(sh, dict) and isinstance(db, dict):
        # 明牌 ×3 and 加倍 ×2 as one multiplier a seat, E N W S: 4 bytes, not two dicts
        # (the result screen is the seat's lowest heap moment)
        sh = bytes([(3 if sh.get(s) else 1) * (2 if db.get(s) else 1) for s in "ENWS"])
    else:
        sh = None
    out = {"cards_left": r.get("cards_left"), "points": r.get("points"), "scores": r.get("scores"),
           "places": r.get("places"), "levels_after": r.get("levels_after"), "shown": sh}
    for k in r:  # a winner's (three seats: 胡息, 囤, 番, 名堂 …), named in bytes: no qstr for the other games
        if b" winner self_drawn huxi tun fan names groups ".find(b" " + k.encode() + b" ") >= 0:
            out[k] = r[k]
    return out


class Mirror:
    """Everything the screens draw from; :meth:`apply` takes each hub message."""

    # Class defaults, set on the instance only once they change: what a seat seldom holds
    # (an instance's attribute table grows 23 -> 29 -> 37 slots of 16 bytes on the unix
    # port, and 30 attributes took 37: 592 bytes at the busiest moment).
    refusal = None  # (code, text) the hub refused an intent with, until dismissed
    fault = None  # a text for the connecting screen (unknown device, bad config)
    called = False  # the referee was called; cleared by the next game change
    typed = ""  # check-in: the player number's digits typed so far (at most 6)
    checking = None  # check-in: ticks_ms it was sent, until answered (the keypad locks)
    note = None  # a referee's note: (text in this seat's language, ticks_ms it came),
    # until the screen changes or 10 s pass (the UI takes it down)
    round_end = None  # the last ``round_end`` event (who leads the new round, and why)
    meanings = None  # (cards, meanings) the hub's answer to the last ``describe``

    def __init__(self, lang):
        self.lang = lang  # text.ZH or text.EN (the hub's welcome may change it)
        self.online = False  # a session with the hub is open
        self.welcomed = False  # a welcome arrived since power-up
        self.seat = None
        self.table = ""
        self.event = ""
        self.player = None  # {id, name} of this seat's player, or None
        self.screen = "waiting"  # the hub's screen: waiting / checkin / deal / result / paused
        self.view = None  # the engine's view(seat) as the hub sent it (without its "result")
        self.turn = None  # the decision point an intent must carry
        self.players = {}  # seat -> its player's name (cut to 32 characters)
        self.result = None
        self.seatmap = None
        self.clock_seats = ()
        self.clock_ms = 0
        self.clock_at = 0  # ticks_ms when clock_ms was received
        self.clock_paused = False
        self.has_clock = False
        self.selected = []  # card codes the player picked, not yet sent
        self.pending = None  # the turn of an intent sent and not yet answered
        self.alert = None  # seat that just announced 报单, until the next round
        # (Few new fields: a 64 KB heap feels every slot of this object's dict.)
        self.match = None  # a board of several deals (a match): the hub's progress, or None

    def apply(self, msg, now):
        """Take one hub message (already checked by the link codec) received at ``now``."""
        t = msg["t"]
        if t == "welcome":
            self.online = True
            self.welcomed = True
            if self.fault is not None:  # (each reset of a class default is guarded: see above)
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
            for seat in players:  # a name is all a screen shows of a player: no dict of four
                p = _short(players[seat])
                players[seat] = p.get("name", "") if isinstance(p, dict) else ""
            self.result = slim_result(msg["result"])
            self.seatmap = msg["seatmap"]
            if self.seatmap:
                _short(self.seatmap.get("player"))
            self.match = msg.get("match")
            if self.round_end is not None:
                self.round_end = None
            self.pending = None
            self.alert = None
            if self.checking is not None:
                self.checking = None  # a check-in sent is answered (a right number: ``checked``)
            if self.typed and (self.screen != "checkin" or self.checked()):
                self.typed = ""  # the digits go once they are no longer wanted
        elif t == "event":
            if self.called:
                self.called = False
            if msg["turn"] != self.turn:
                self.pending = None
                if self.refusal is not None:
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
                    self.round_end = e
                elif kind == "deal_end":
                    self.result = slim_result(e.get("result"))
                elif (kind == "play" or kind == "tribute" or kind == "return") and e.get("seat") == self.seat:
                    # The seat's own cards went (a refusal is a ``reject`` and keeps them): with
                    # two decks the hand may still hold a copy of a card just played.
                    self.selected = []
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
            if "match" in msg:
                self.match = msg["match"]
        elif t == "meanings":
            if msg["turn"] == self.turn:
                self.meanings = (msg["cards"], msg["meanings"])
        elif t == "seatmap":
            self.seatmap = msg["seatmap"]
            _short(self.seatmap.get("player"))
            if self.checking is not None:
                self.checking = None
            if self.typed and self.checked():
                self.typed = ""
        elif t == "note":
            self.note = (msg["zh"] if self.lang == text.ZH else msg["en"], now)
        if (t == "state" or t == "result") and self.match:
            self.match["clock_at"] = now  # when its time_left_ms was measured (match_left counts from
            # it; a word that is a qstr already: each new one is heap for good)
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
            keep = []
            for c in self.selected:  # as many copies as the hand holds (two decks: two of a card)
                if keep.count(c) < hand.count(c):
                    keep.append(c)
            self.selected = keep

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

    def match_left(self, now):
        """Milliseconds left of a timed match (the hub's ``time_left_ms``, counted down here
        while the seat is not paused), 0 once its time is up, or None: no time limit, or the
        match is over or ended by a referee."""
        mt = self.match
        if not mt or mt.get("time_left_ms") is None or mt.get("over") or mt.get("forfeited"):
            return None
        if mt.get("time_up"):
            return 0
        left = mt["time_left_ms"]
        if not self.paused():
            left -= time.ticks_diff(now, mt.get("clock_at", now))
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
