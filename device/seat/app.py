"""The seat application: one asyncio program with a task each for the link, the screen
refresh and the touch input (screens run their own clock tasks).

    from seat import app
    app.main()          # reads the provisioning file, sets up the board, runs forever

The app is the only place that wires parts together: hub messages go into the mirror and
rebuild the screen; taps go to the screen, which may call :meth:`App.send_intent`.
"""

import gc
import sys
import time

import asyncio

from seat import text
from seat.link import SeatLink
from seat.state import Mirror
from seat.ui import UI


# Load the selection pre-check only if this much heap is free once everything else is up
# (it needs about 12 KB; what remains serves the messages and screens).
PRECHECK_FREE = 44 * 1024


class App:
    """One seat: ``App(cfg, board)``; ``await app.run()``."""

    def __init__(self, cfg, board):
        self.cfg = cfg
        self.dev = cfg.dev
        self.board = board
        self.mirror = Mirror(text.lang_index(cfg.lang))
        self.ui = UI(board.display, self.mirror, self, board.emit, getattr(board, "write", None))
        self.link = SeatLink(cfg.dev, cfg.key, board.name, board.open_port, self.on_message, self.on_link,
                             board.emit, self.ui.release)

    # ---- from the hub ---------------------------------------------------------------

    def on_message(self, msg):
        m = self.mirror
        t = msg["t"]
        now = time.ticks_ms()
        if t == "welcome":
            m.on_welcome(msg)
        elif t == "state":
            m.on_state(msg, now)
        elif t == "event":
            m.on_event(msg, now)
        elif t == "clock":
            m.set_clock(msg["clock"], now)
        elif t == "reject":
            if not m.welcomed:
                m.fault = msg["zh"] if m.lang == text.ZH else msg["en"]
            else:
                m.on_reject(msg)
        elif t == "result":
            m.on_result(msg)
        elif t == "seatmap":
            m.on_seatmap(msg)
        self.ui.update()
        self.ui.sample()  # msg, the mirror and the new screen are all alive here

    def on_link(self, up, why):
        if not up:
            self.mirror.link_down()
            self.ui.update()

    # ---- to the hub -----------------------------------------------------------------

    def send_intent(self, action):
        """Send the player's decision for the current turn; the buttons lock until the hub answers."""
        m = self.mirror
        s = self.link.send({"t": "intent", "turn": m.turn, "a": action})
        if s is not None:
            m.pending = m.turn
            m.selected = [] if action.get("type") == "play" else m.selected
            if self.board.emit:
                self.board.emit("intent %d %s" % (s, action.get("type")))
        self.ui.update()

    def call_referee(self):
        """叫裁判: tell the hub (which alerts the referees); the top bar says it was sent."""
        if self.link.send({"t": "call", "why": "seat"}) is not None:
            self.mirror.called = True
            self.ui.update()

    # ---- tasks ----------------------------------------------------------------------

    async def touch_task(self):
        """Taps to the screen; returns when the touch source ends (host control channel closed)."""
        while True:
            p = await self.board.touch.tap()
            if p is None:
                return
            hit = self.ui.tap(p[0], p[1])
            self.ui.sample()
            if self.board.emit:
                self.board.emit("tap %d %d %s" % (p[0], p[1], hit or "-"))

    def start(self):
        """Optional parts that depend on free memory; call once everything else is loaded."""
        gc.collect()
        if gc.mem_free() >= PRECHECK_FREE:
            try:
                from seat.screens import Precheck
                self.ui.precheck = Precheck()
            except MemoryError:
                self.ui.precheck = None
        gc.collect()
        if self.board.emit:
            self.board.emit("start precheck=%d free=%d" % (self.ui.precheck is not None, gc.mem_free()))

    async def run(self):
        self.start()
        self.ui.update()
        tasks = [asyncio.create_task(self.link.run()), asyncio.create_task(self.ui.refresh())]
        try:
            await self.touch_task()
        finally:
            for task in tasks:
                task.cancel()


def main(path=None):
    """Entry point (``main.py``): provisioning file → board → app."""
    import seat
    from seat import config
    try:
        cfg = config.load(path)
    except config.ConfigError as e:
        print("paizhuo seat: %s" % e.en)
        sys.exit(2)
    # Read once: drop the reader so its ~2.7 KB return to the heap (Config has no methods
    # and so keeps no reference to the module).
    del sys.modules["seat.config"]
    del seat.config
    del config
    import board
    brd = board.setup(cfg)
    gc.collect()
    asyncio.run(App(cfg, brd).run())
