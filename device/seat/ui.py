"""The screen manager: which screen is up, the hit map, drawing, and what the app's loop
does for the screens every 100 ms (the countdown, the refusal's five seconds, a referee
note's ten, an unanswered check-in's five).

Widgets never draw themselves when they change: a change marks rows dirty
(:meth:`UI.invalidate`) and the app's loop has :meth:`UI.draw` redraw every band that
touches a dirty row, one band per call, drawing all widgets that cross that band; between
bands the loop reads the link and the touch.  A screen rebuilt while a refresh is under
way restarts it, so no frame ever mixes two screens.

Measured on the unix port (``tests/bench/bench_firmware.py`` has the figures for each
screen): the draw loop allocates 0 bytes; each refresh reports its allocation on the
control channel (``frame N PATH alloc=B ms=T``) so the tests hold it to that.
"""

import gc
import json
import time

from micropython import const

from seat import gfx, screens
from seat import font16, font24

_SHOW_MS = const(5000)  # a refusal stays up this long unless dismissed or the game moves on
_NOTE_MS = const(10000)  # a referee's note stays up this long unless the screen changes
_CHECKIN_MS = const(5000)  # a check-in the hub has not answered by then frees the keypad


class UI:
    """Screens, dirty rows and the refresh for one display."""

    # Class defaults, on the instance only once they change (the instance's attribute table
    # stays at 23 slots of 16 bytes, not 29, until a refusal, a note or a call):
    asking = False  # 叫裁判 was tapped: its confirmation is shown over the screen
    overlay = False  # a refusal is shown over it
    note_on = None  # (note, screen name, hub's screen) a referee's note went up on:
    # a change of either screen takes it down
    refused_at = 0  # ticks_ms when the refusal (or the confirmation) went up
    first_tap = 0  # index of the first widget that takes taps (the overlay's while up)

    def __init__(self, display, mirror, app, emit=None, write=None):
        self.display = display
        self.m = mirror
        self.app = app
        self.emit = emit  # control-line writer on a host; None on a seat board
        self.write = write  # the same channel, without the newline
        self.f16 = gfx.Font(font16)
        self.f24 = gfx.Font(font24)
        self.kind = None  # the base screen (screens.pick)
        # The base screen's widgets, then the note's and the refusal's.  A rebuild empties
        # and refills this list in place (deleting a slice keeps a list's room), so a tap
        # allocates no new list: one was a 256-byte block on the play screen, which a
        # fragmented heap sometimes could not find (a MemoryError, then a resync).  Only
        # :meth:`release` lets the list itself go (before a new view is parsed).
        self.widgets = []
        self.digits = bytearray(3)  # the clock's seconds, drawn without building a text
        self._lo = display.height
        self._hi = 0
        self._gen = 0  # bumped at every rebuild: a refresh under way restarts
        self._y0 = -1  # the next band of the refresh under way (-1: none)
        self._from = 0  # the rows it covers,
        self._to = 0
        self._drawing = 0  # the screen generation it draws,
        self._t0 = 0  # when it started,
        self._alloc = 0  # and what drawing it allocated
        self._shown = -1  # the countdown's seconds last drawn
        self._left = 0  # the countdown's ms at the last tick
        self.frames = 0
        self.mem_low = gc.mem_free()

    # ---- screens -------------------------------------------------------------------

    def update(self):
        """Rebuild from the mirror (the screen kind the state calls for, and the refusal)."""
        now = time.ticks_ms()
        m = self.m
        self.kind = screens.pick(m)
        if m.refusal is None:
            if self.overlay:
                self.overlay = False
        elif not self.overlay:
            self.overlay = True
            self.refused_at = now
        # The old widgets go first: they are garbage once the new ones exist, and the
        # heap is small enough that both at once matter.
        ws = self.widgets
        del ws[:]
        self._gen += 1
        screens.build(self, now, ws)
        note = m.note
        if note is not None:
            on = self.note_on
            name = screens.name(self)
            if on is None or on[0] is not note:  # just arrived: it belongs to this screen
                self.note_on = (note, name, m.screen)
            elif on[1] != name or on[2] != m.screen:
                m.note = note = None  # the screen changed: the note was about the one before
        if note is None:
            if self.note_on is not None:
                self.note_on = None
        else:
            screens.note(self, note[0], ws)
        if self.first_tap:
            self.first_tap = 0
        if self.overlay:
            self.first_tap = len(ws)
            screens.refusal(self, ws)
        elif self.asking:
            self.first_tap = len(ws)
            screens.refusal(self, ws)
        self._gen += 1
        self.invalidate(0, self.display.height)
        if self.emit:
            self._emit_ui()

    def release(self):
        """Out of memory: drop the widgets (the next update rebuilds them from the mirror).
        The heap is not compacted, so freeing a screen's small objects is what makes room
        for the next frame."""
        self.widgets = []  # the list's room too: a 4 KB state is parsed next
        self._gen += 1

    def tap(self, x, y, end):
        """Send a tap to the topmost tappable widget under it; return its id (or None).
        While a refusal or the 叫裁判 confirmation is shown only its own widgets take taps.
        A drag (the finger went down at x, y and lifted at ``end``, (x1, y1)) from one card
        of the hand to another selects the run of cards between them."""
        ws = self.widgets
        if end and not self.asking and not self.overlay and self.kind >= screens.GAME:
            for w in ws:
                if w[0] != gfx.HAND:
                    continue
                a = gfx.hit(w, x, y, True)
                b = gfx.hit(w, end[0], end[1], True)
                if a is not None and b is not None:  # from a card to a card: select the run between them
                    m = self.m
                    for i in range(min(a, b), max(a, b) + 1):
                        c = gfx.CODES[w[5][i]]
                        if c not in m.selected:
                            m.selected.append(c)
                    self.update()
                    return None
        for i in range(len(ws) - 1, self.first_tap - 1, -1):
            w = ws[i]
            tap = gfx.hit(w, x, y, False)
            if tap is not None:
                if w[0] == gfx.BUTTON and not w[8]:
                    pass  # disabled
                elif self.asking:  # the confirmation: call (btn:yes) or not (btn:ok)
                    self.asking = False
                    if tap == "btn:yes":
                        self.app.call_referee()
                    self.update()
                elif tap == "btn:call":  # 叫裁判 is on every screen: first its confirmation
                    self.asking = True
                    self.refused_at = time.ticks_ms()
                    self.update()
                else:
                    screens.on_tap(self, tap)
                return tap
        return None

    def invalidate(self, y, h):
        """Rows y .. y+h-1 need redrawing."""
        if y < self._lo:
            self._lo = y
        if y + h > self._hi:
            self._hi = y + h

    # ---- tasks ---------------------------------------------------------------------

    def draw(self):
        """Draw the next band of the refresh under way, or start one if rows are dirty;
        True while bands are left (the app's loop reads the link and the touch between
        bands, so a refresh never holds them up).  Allocation-free.

        Measured on the unix port (x86-64): a full 480×320 refresh in 8-row bands takes
        3–12 ms (tests/bench/bench_firmware.py) and allocates 0 bytes; a clock tick redraws
        rows 0–23 only."""
        d = self.display
        rows = d.rows
        y0 = self._y0
        if y0 < 0:  # no refresh under way: start one over the dirty rows
            lo = self._lo
            hi = self._hi
            self._lo = d.height
            self._hi = 0
            if hi <= lo or not self.widgets:  # nothing dirty, or released (a new view is
                return False  # coming: the panel keeps its picture)
            self._from = lo
            self._to = hi
            self._drawing = self._gen
            self._t0 = time.ticks_ms()
            self._alloc = 0
            y0 = (lo // rows) * rows
        elif self._drawing != self._gen:  # rebuilt meanwhile: start again with the new screen
            if self._from < self._lo:
                self._lo = self._from
            if self._to > self._hi:
                self._hi = self._to
            self._y0 = -1
            return True
        # No collection inside a band: a call with many locals (gfx.draw) puts its frame on
        # the heap for the call, and on a heap full of garbage that would collect, counted as
        # the band's allocation (negative).  Without it such a frame goes on the C stack.
        gc.disable()
        try:
            a = gc.mem_alloc()
            d.fill(0)  # FELT
            for w in self.widgets:
                if w[2] < y0 + rows and w[2] + w[4] > y0:
                    gfx.draw(w, d, y0, self)
            d.show_band(y0)
            self._alloc += gc.mem_alloc() - a
        finally:
            gc.enable()
        y0 += rows
        if y0 < self._to:
            self._y0 = y0
            return True
        self._y0 = -1
        ms = time.ticks_diff(time.ticks_ms(), self._t0)
        path = d.frame_done()
        self.frames += 1
        gc.collect()
        if self.emit:
            self.emit("frame %d %s alloc=%d ms=%d rows=%d-%d" % (self.frames, path, self._alloc, ms, self._from,
                                                                 self._to))
            self.emit("mem free=%d low=%d" % (gc.mem_free(), self.mem_low))
        return False

    def tick(self, now):
        """Called by the app's loop every 100 ms: on a game's screens the countdown is redrawn when its seconds change, and the screen is rebuilt when the
        seat's own time runs out (input locks at zero); a refusal goes after five seconds,
        a referee's note after ten, and a check-in unanswered for five frees the keypad."""
        m = self.m
        if self.overlay and time.ticks_diff(now, self.refused_at) >= _SHOW_MS:
            m.refusal = None
            self.update()
        if self.asking and time.ticks_diff(now, self.refused_at) >= _NOTE_MS:
            self.asking = False  # not confirmed in ten seconds: no call
            self.update()
        if m.note is not None and time.ticks_diff(now, m.note[1]) >= _NOTE_MS:
            m.note = None
            self.update()
        if m.checking is not None and time.ticks_diff(now, m.checking) >= _CHECKIN_MS:
            m.checking = None  # no answer (a hub without check-in?): the player may try again
            self.update()
        if self.kind >= screens.GAME:  # a game's screens show the clock (none once the deal is over)
            left = m.match_left(now)  # a timed match's minutes left: rebuilt when they change
            if left is not None and (left + 59999) // 60000 != m.match.get("min"):
                m.match["min"] = (left + 59999) // 60000  # (kept in the match: no attribute more here)
                self.update()
            left = m.clock_left(now)
            secs = (left + 999) // 1000
            if m.has_clock and secs != self._shown:
                self._shown = secs
                self.invalidate(0, screens.TOP_H)
            if left == 0 and self._left > 0 and m.my_clock():
                self.update()  # time is up: lock the buttons
            self._left = left

    def sample(self):
        """Collect and record the lowest free heap seen.  Called at the busiest moments
        (a hub message and the screen built from it both alive), so ``mem_low`` is the
        heap left over the peak of live data (collecting also keeps fragmentation down;
        it takes about 1 ms on the unix port)."""
        gc.collect()
        f = gc.mem_free()
        if f < self.mem_low:
            self.mem_low = f

    def _emit_ui(self):
        """The hit map and texts as one control line, written piece by piece (host only:
        building it as one string or dict would cost the heap several KB)."""
        write = self.write
        ws = self.widgets
        write('ui {"screen":"%s","base":"%s","lang":"%s","missing":%d,"widgets":{' % (
            "refusal" if self.overlay else ("call" if self.asking else screens.name(self)), screens.name(self), "en" if self.m.lang else "zh",
            self.f16.misses))
        sep = ""
        for i in range(self.first_tap, len(ws)):  # while a refusal is up only its widgets take taps
            sep = gfx.taps(ws[i], write, sep)
        write('},"text":[')
        sep = ""
        out = []
        for w in ws:
            if w[0] == gfx.CELLS:  # a row at a time: a whole table's cells at once ran out of heap
                for row in w[6]:
                    for b in row[1].split(b"\0"):
                        write(sep + json.dumps(b.decode()))
                        sep = ","
                continue
            gfx.texts(w, out)
            for b in out:
                write(sep + json.dumps(b.decode()))
                sep = ","
            out.clear()
        write("]}\n")
