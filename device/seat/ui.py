"""The screen manager: which screen is up, the hit map, and the one refresh task.

Widgets never draw themselves when they change: a change marks rows dirty
(:meth:`UI.invalidate`) and the refresh task redraws every band that touches a dirty row,
drawing all widgets that cross that band, then yields (``await asyncio.sleep_ms(0)``)
so the link and the touch keep running.  A screen rebuilt while a refresh is under way
restarts it, so no frame ever mixes two screens.

Measured on the unix port (``tests/bench/bench_firmware.py`` has the figures for each
screen): the draw loop allocates 0 bytes; each refresh reports its allocation on the
control channel (``frame N PATH alloc=B ms=T``) so the tests hold it to that.
"""

import gc
import json
import time

import asyncio

from seat import gfx, screens, text
from seat import font16, font24


class UI:
    """Screens, dirty rows and the refresh task for one display."""

    def __init__(self, display, mirror, app, emit=None, write=None):
        self.display = display
        self.m = mirror
        self.app = app
        self.emit = emit  # control-line writer on a host; None on a seat board
        self.write = write  # the same channel, without the newline
        self.f16 = gfx.Font(font16)
        self.f24 = gfx.Font(font24)
        self.base = None  # the screen the hub's state calls for
        self.overlay = None  # a refusal shown over it, or None
        self.widgets = []
        self._lo = display.height
        self._hi = 0
        self._gen = 0  # bumped at every rebuild: a refresh under way restarts
        self._dirty = asyncio.Event()
        self.precheck = None  # a screens.Precheck when the heap can spare it
        self.frames = 0
        self.mem_low = gc.mem_free()

    # ---- screens -------------------------------------------------------------------

    def update(self):
        """Rebuild from the mirror: switch screens when the state calls for another one."""
        now = time.ticks_ms()
        cls = screens.pick(self.m)
        if self.base is None or type(self.base) is not cls:
            if self.base is not None:
                self.base.leave()
            self.base = cls(self)
            self.base.enter()
        if self.m.refusal is None:
            if self.overlay is not None:
                self.overlay.leave()
                self.overlay = None
        elif self.overlay is None:
            self.overlay = screens.Refusal(self)
            self.overlay.enter()
        self.base.build(now)
        ws = self.base.widgets
        if self.overlay is not None:
            self.overlay.build(now)
            ws = ws + self.overlay.widgets
        self.widgets = ws
        self._gen += 1
        self.invalidate(0, self.display.height)
        if self.emit:
            self._emit_ui()

    def release(self):
        """Out of memory: drop the widgets (the next update rebuilds them from the mirror).
        The heap is not compacted, so freeing a screen's many small objects is what makes
        room for the next frame's buffers."""
        self.widgets = []
        if self.base is not None:
            self.base.widgets = []
        if self.overlay is not None:
            self.overlay.widgets = []
        self._gen += 1

    def current(self):
        return self.overlay if self.overlay is not None else self.base

    def tap(self, x, y):
        """Send a tap to the topmost tappable widget under it; return its id (or None).
        While a refusal is shown only its own widgets take taps."""
        ws = self.overlay.widgets if self.overlay is not None else self.widgets
        for i in range(len(ws) - 1, -1, -1):
            w = ws[i]
            tap = w.hit(x, y)
            if tap is not None:
                if not w.enabled:
                    pass
                elif tap == "btn:call":  # 叫裁判 is on every screen's top bar
                    self.app.call_referee()
                else:
                    self.current().on_tap(tap)
                return tap
        return None

    def invalidate(self, y, h):
        """Rows y .. y+h-1 need redrawing."""
        if y < self._lo:
            self._lo = y
        if y + h > self._hi:
            self._hi = y + h
        self._dirty.set()

    # ---- refresh -------------------------------------------------------------------

    async def refresh(self):
        """The one task that draws.  Allocation-free between the band yields.

        Measured on the unix port (x86-64): a full 480×320 refresh in 16-row bands takes
        3–7 ms and allocates 0 bytes; a clock tick redraws rows 0–23 only."""
        d = self.display
        rows = d.rows
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            lo = self._lo
            hi = self._hi
            self._lo = d.height
            self._hi = 0
            if hi <= lo:
                continue
            gen = self._gen
            t0 = time.ticks_ms()
            alloc = 0
            y0 = (lo // rows) * rows
            aborted = False
            while y0 < hi:
                a = gc.mem_alloc()
                d.fill(0)  # FELT
                for w in self.widgets:
                    if w.y < y0 + rows and w.y + w.h > y0:
                        w.draw(d, y0)
                d.show_band(y0)
                alloc += gc.mem_alloc() - a
                y0 += rows
                await asyncio.sleep_ms(0)
                if gen != self._gen:  # rebuilt meanwhile: start again with the new screen
                    aborted = True
                    break
            if aborted:
                if lo < self._lo:
                    self._lo = lo
                if hi > self._hi:
                    self._hi = hi
                continue
            ms = time.ticks_diff(time.ticks_ms(), t0)
            path = d.frame_done()
            self.frames += 1
            gc.collect()
            if self.emit:
                self.emit("frame %d %s alloc=%d ms=%d rows=%d-%d" % (self.frames, path, alloc, ms, lo, hi))
                self.emit("mem free=%d low=%d" % (gc.mem_free(), self.mem_low))

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
        taps = []
        for w in (self.overlay.widgets if self.overlay is not None else self.widgets):
            w.taps(taps)  # while a refusal is up only its own widgets take taps
        write('ui {"screen":"%s","base":"%s","lang":"%s","missing":%d,"widgets":{' % (
            self.current().name, self.base.name, text.LANGS[self.m.lang], self.f16.misses))
        for i in range(len(taps)):
            tap, x, y, w, h, on = taps[i]
            write('%s"%s":[%d,%d,%d,%d,%d]' % ("," if i else "", tap, x, y, w, h, 1 if on else 0))
        taps = None
        write('},"text":[')
        first = True
        for w in self.widgets:
            texts = []
            w.texts(texts)
            for t in texts:
                write(json.dumps(t) if first else "," + json.dumps(t))
                first = False
        write("]}\n")
