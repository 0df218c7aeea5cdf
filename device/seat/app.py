"""The seat application: one loop for the link, the touch input, the timers (every 100 ms:
hello and heartbeat, the countdown) and the screen refresh, a band at a time.

    from seat import app
    app.main()          # reads the provisioning file, sets up the board, runs forever

The app is the only place that wires parts together: hub messages go into the mirror and
rebuild the screen; taps go to the screen, which may call :meth:`App.send_intent`.
"""

import gc
import sys
import time

from seat import text
from seat.link import SeatLink
from seat.state import Mirror
from seat.ui import UI


class App:
    """One seat: ``App(cfg, board)``; ``app.run()``."""

    def __init__(self, cfg, board, _reader=None):
        self.dev = cfg.dev
        self.board = board
        self.mirror = Mirror(text.lang_index(cfg.lang))
        self.ui = UI(board.display, self.mirror, self, board.emit, getattr(board, "emit_part", None))
        self.link = SeatLink(cfg.dev, cfg.key, board, self, _reader)

    # ---- from the hub ---------------------------------------------------------------

    def on_message(self, msg):
        self.mirror.apply(msg, time.ticks_ms())
        # What the mirror keeps it now holds itself; the rest (an event's list of events,
        # the message's own table) goes before the new screen is built, the heap's peak.
        msg.clear()
        self.ui.update()
        self.ui.sample()  # the mirror and the new screen are both alive here

    def drop_view(self, state=False):
        """A new view is on its way (see SeatLink._cut): the old one and the screen built
        from it go now, before the new one is parsed; for a ``state`` (which replaces them
        all) the players, the result and the seat map go too — at a 4 KB state they were
        about 2 KB the parser could not use (unix port).  (``state``: a word that is a
        qstr already; each new argument name would be one more.)"""
        m = self.mirror
        m.view = None
        if state:
            m.players = {}
            m.result = None
            m.seatmap = None
        self.ui.release()

    def on_link(self, up, why):
        if up and "updater" in sys.modules:  # a trial boot reached its hub: keep this image
            sys.modules["updater"].tick(None)
        if not up:
            self.mirror.online = False
            self.mirror.pending = None
            self.ui.update()

    # ---- to the hub -----------------------------------------------------------------

    def send_intent(self, action):
        """Send the player's decision for the current turn; the buttons lock until the hub answers."""
        m = self.mirror
        s = self.link.send({"t": "intent", "turn": m.turn, "a": action})
        if s is not None:
            # The selection stays: a refused play keeps it to fix; an accepted one leaves the
            # hand, and the mirror keeps only picked cards still in the hand.
            m.pending = m.turn
            if self.board.emit:
                self.board.emit("intent %d %s" % (s, action.get("type")))
        self.ui.update()

    def describe(self, cards):
        """Ask the hub what the selected ``cards`` may be played as now (the pre-check of a
        game that has no classifier on the seat); the answer is a ``meanings`` message."""
        m = self.mirror
        m.meanings = None
        self.link.send({"t": "describe", "turn": m.turn, "cards": cards})

    def send_checkin(self, no):
        """Check-in: send the player number typed on the keypad; the keypad locks until the
        hub answers (a state with ``checked``, or a ``checkin_wrong`` refusal)."""
        m = self.mirror
        s = self.link.send({"t": "checkin", "no": no})
        if s is not None:
            m.checking = time.ticks_ms()
            if self.board.emit:
                self.board.emit("checkin %d %d" % (s, no))
        self.ui.update()

    def call_referee(self):
        """叫裁判: tell the hub (which alerts the referees); the top bar says it was sent."""
        if self.link.send({"t": "call", "why": "seat"}) is not None:
            self.mirror.called = True
            self.ui.update()

    # ---- the loop ---------------------------------------------------------------------

    def run(self):
        """The seat's one loop, until the touch source ends (the host's control channel
        closed): the link, taps, every 100 ms the timers, and one band of drawing at a
        time; with nothing to do it sleeps in ``board.wait`` until input or the next tick.

        No asyncio: its modules, tasks and coroutine frames would cost about 9 KB of the
        64 KB heap (measured on the unix port), and one loop does all the firmware needs."""
        gc.collect()
        board = self.board
        emit = board.emit
        if emit:  # the pre-check is always on (each game's, seat/games/)
            emit("start precheck=1 free=%d" % gc.mem_free())
        ui = self.ui
        link = self.link
        touch = board.touch
        ui.update()
        tick = time.ticks_ms()
        while not board.ended:
            link.poll()
            p = touch.poll()
            if p is not None:
                try:
                    hit = ui.tap(p[0], p[1], p[2:])  # (x, y) a tap, (x, y, x1, y1) a drag
                except Exception as e:  # out of memory or a bug: the hub's full state repairs the screen
                    hit = None
                    link.trouble("%s handling a tap: %s" % (type(e).__name__, e))
                ui.sample()
                if emit:
                    emit("tap %d %d %s" % (p[0], p[1], hit or "-"))
            now = time.ticks_ms()
            if time.ticks_diff(now, tick) >= 100:
                tick = now
                link.tick(now)
                ui.tick(now)
                if "updater" in sys.modules:  # a trial boot: it rolls back if no hub welcomes it in time
                    sys.modules["updater"].tick(now)
            if ui.draw():
                continue  # more bands: input first, but no sleeping
            wait = 100 - time.ticks_diff(time.ticks_ms(), tick)
            if wait > 0:
                board.wait(wait)


def main(path=None):
    """Entry point (``main.py``): provisioning file → board → app."""
    import seat
    from seat import config
    from paizhuo_shared.link import LineReader
    # The link's 4 KB line buffer first, while the heap is one free run: made after the
    # 32-row display bands and the board's files it found none (MemoryError at start-up,
    # depending on the length of the board's file paths).
    reader = LineReader()
    try:
        cfg = config.load(path)
    except config.ConfigError as e:
        print("paizhuo seat: %s" % e.en)
        sys.exit(2)
    # Read once: drop the reader so its heap returns (Config has no methods and so keeps
    # no reference to the module).
    del sys.modules["seat.config"]
    del seat.config
    del config
    import board
    brd = board.setup(cfg)
    gc.collect()
    App(cfg, brd, reader).run()
