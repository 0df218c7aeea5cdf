"""A whole table on one machine: the ``paizhuo hub`` process, four pty serial links and four
seat boards running the real firmware under the MicroPython unix port.

Players are bots, but they play the way a person does: they look at the table (the seat's
view, rebuilt from the hub's event log exactly as a spectator would), decide, and **touch
the seat's screen** — the cards, then 出牌/过, or the 明牌/加倍 buttons.  Nothing reaches the
hub except through a seat board's touch screen and its serial link, so the demo and the
end-to-end tests exercise the firmware, the link, the hub and the log together.

    >>> with SimTable("/tmp/t7", boards="1") as table:        # doctest: +SKIP
    ...     table.start()
    ...     table.play(seed=1)                                 # every move a touch
    ...     table.history().played[0].result["result"]["scores"]

Folder layout: ``table.toml``, ``table.sqlite`` (the event log), ``hub-N.txt`` (what each
hub process printed), ``links/`` (the pty pairs), ``seats/<seat>/`` (frames and the seat's
provisioning file).
"""

import hashlib
import hmac
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..bots.bigtwo import BigTwoBot
from ..provision import device_block, toml_str
from ..rules.bigtwo import SEATS
from ..table import eventlog
from ..table.history import TableHistory
from . import firmware as firmware_
from .links import PtyLink

DEVICES = {"E": "S-0001", "N": "S-0002", "W": "S-0003", "S": "S-0004"}


class SimError(RuntimeError):
    """The simulated table did not do what was awaited (the message says what, with output)."""


def device_key(secret, dev):
    """A demo board's 32-byte key.  Real boards get random keys at provisioning; a simulation
    derives them so a run can be repeated."""
    return hmac.new(secret.encode(), b"paizhuo-sim-device|" + dev.encode(), hashlib.sha256).digest()


class SimTable:
    """Table 7 with hub ``T07``: links, config, hub process and firmware seats in ``folder``.

    ``boards``: the boards to play (``"1"``, ``"1-4"``); ``secret``: the event secret the deals
    come from; ``clock_scale``: multiplies the rule clocks (1 = competition time);
    ``players``: ``{seat: (id, name)}`` shown on the seats; ``port_order``: the order the
    ports are listed in the configuration (seats are found by device id, never by port).
    """

    def __init__(self, folder, boards="1", secret="paizhuo demo", clock_scale=1.0, players=None,
                 port_order="WSEN", lang="zh", firmware=None, frames_keep=4, clock=None, venue=None, names=""):
        # Absolute: the seat processes run in their own folders and read paths from their config.
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.boards = boards
        self.secret = secret
        self.clock_scale = clock_scale
        self.players = players or {}
        self.port_order = port_order
        self.lang = lang
        self.frames_keep = frames_keep
        self.clock = dict(clock or {})
        self.firmware = firmware
        self.names = names  # more text the seats will show (a venue's players' names)
        self.links = {}
        self.seats = {}
        self.hub = None
        self.hub_runs = 0
        self.latencies = None  # a list to measure touch → all seats redrawn (ms), see touch()
        # ``venue``: {"broker": "host:port", "event": id, "hub": id, "table": name} puts the hub in
        # venue mode: the venue's round specs bring deals and players, the seats check players in.
        self.venue = dict(venue) if venue else None
        self.hub_id = self.venue["hub"] if self.venue else "T07"
        self.table_id = self.venue["table"] if self.venue else "7"
        self.config_path = self.folder / "table.toml"
        self.log_path = self.folder / "table.sqlite"

    # ---- life ------------------------------------------------------------------------------

    def start(self):
        """Links, configuration, the hub process and the four seat boards."""
        if self.firmware is None:
            # The names these seats will show (the simulation knows them; a board carries
            # the common hanzi instead, firmware.build's default).
            names = "".join(name for _, name in self.players.values()) + self.names
            self.firmware = firmware_.build(extra_text=names, common_hanzi=False)
        (self.folder / "links").mkdir(exist_ok=True)
        for seat in SEATS:
            self.links[seat] = PtyLink(str(self.folder / "links"), seat)
        self.write_config()
        self.start_hub()
        for seat in SEATS:
            self.start_seat(seat)
        self.wait_linked()
        return self

    def write_config(self):
        clock = {"scale": self.clock_scale, "next_deal_seconds": 2}
        clock.update(self.clock)
        lines = ["[table]", "hub = %s" % toml_str(self.hub_id), "id = %s" % toml_str(self.table_id),
                 'event = "paizhuo demo"', 'lang = %s' % toml_str(self.lang), 'log = "table.sqlite"', ""]
        if self.venue:
            lines += ["[venue]", "broker = %s" % toml_str(self.venue["broker"]),
                      "event = %s" % toml_str(self.venue["event"]), "keepalive_seconds = 5", ""]
        lines += ["[clock]"]
        lines += ["%s = %s" % (k, v) for k, v in clock.items()]
        lines += ["", "[link]", "ports = [%s]" % ", ".join(toml_str(self.links[s].hub_path) for s in self.port_order), ""]
        for seat in SEATS:  # the blocks `paizhuo provision` writes
            lines += [device_block(DEVICES[seat], device_key(self.secret, DEVICES[seat]), seat), ""]
        if not self.venue:
            for seat, (pid, name) in sorted(self.players.items()):
                lines += ["[players.%s]" % seat, "id = %s" % toml_str(pid), "name = %s" % toml_str(name), ""]
            lines += ["[deals]", "secret = %s" % toml_str("text:" + self.secret), "boards = %s" % toml_str(self.boards), ""]
        self.config_path.write_text("\n".join(lines), encoding="utf-8")

    def start_hub(self):
        """Run ``paizhuo hub --config table.toml`` in its own session (so it can be killed alone)."""
        self.hub_runs += 1
        self.hub_output = self.folder / ("hub-%d.txt" % self.hub_runs)
        with open(self.hub_output, "wb") as out:  # a file, not a pipe: a chatty hub never blocks
            self.hub = subprocess.Popen([sys.executable, "-m", "paizhuo.cli", "hub", "--config", str(self.config_path)],
                                        stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        return self.hub

    def kill_hub(self, sig=signal.SIGKILL):
        """Signal the hub (SIGKILL: a power cut) and wait until it is gone."""
        if self.hub is not None and self.hub.poll() is None:
            os.killpg(self.hub.pid, sig)
            self.hub.wait(timeout=10)
        self.hub = None

    def start_seat(self, seat):
        dev = DEVICES[seat]
        sp = firmware_.SeatProcess(self.firmware, dev, device_key(self.secret, dev).hex(), self.links[seat].seat_path,
                                   self.folder / "seats" / seat, lang=self.lang, frames_keep=self.frames_keep)
        self.seats[seat] = sp
        return sp

    def wait_linked(self, timeout=30.0, after=None):
        """Every seat board has a session with the hub (its ``link up`` line)."""
        for seat, sp in self.seats.items():
            start = 0 if after is None else after[seat]
            try:
                sp.wait_line("link up", after=start, timeout=timeout)
            except firmware_.SeatError as e:
                raise SimError("seat %s did not link up: %s\n--- hub ---\n%s" % (seat, e, self.hub_text())) from None

    def hub_text(self):
        try:
            return self.hub_output.read_text(encoding="utf-8", errors="replace")[-4000:]
        except (OSError, AttributeError):
            return ""

    def close(self):
        for sp in self.seats.values():
            sp.stop()
        if self.hub is not None and self.hub.poll() is None:
            os.killpg(self.hub.pid, signal.SIGTERM)
            try:
                self.hub.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill_hub()
        for link in self.links.values():
            link.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- what the log says -----------------------------------------------------------------

    def entries(self):
        if not self.log_path.exists():
            return []
        db = eventlog.open_readonly(str(self.log_path))
        try:
            return eventlog.read_entries(db, self.table_id)
        finally:
            db.close()

    def history(self):
        """The table as its event log tells it, replayed through the engine."""
        return TableHistory.from_entries(self.entries())

    # ---- playing by touch --------------------------------------------------------------------

    def play(self, seed=1, deals=None, timeout=120.0, on_action=None, on_moment=None, until_actions=None,
             until=None, on_checkin=None, whim=0.0):
        """Bots play by touching the seats until ``deals`` deals (default: every planned board)
        have results (or, with ``until_actions``, until that many actions are logged).  A seat
        whose board is dead is left alone: the hub's clock and 托管 must cope.  ``on_action(history, entry)`` is called for each logged action;
        ``on_moment(name, seats)`` at the moments worth a screenshot (first 明牌, 加倍 and play
        screens, 报单, the result).

        In venue mode the players change each round: the bots type each new player's number
        on the check-in keypad (``on_checkin(round, seat, player)`` after each), and play goes on
        until ``until(history)`` is true (the venue's event is over).  ``on_checkin(round, seat,
        player, stage)`` is called with stage "before" (the keypad is up) and "after" typing."""
        bots = {seat: BigTwoBot(seed * 10 + i, whim=whim) for i, seat in enumerate(SEATS)}
        if deals is not None:
            want = deals
        else:
            want = None if self.venue else len(_board_list(self.boards))
        checked_in = set()  # (round, seat): a person types the number once and waits
        deadline = time.monotonic() + timeout
        seen_actions = 0
        moments = set()
        touched = set()  # (deal, decision, seat): a person taps once and waits for the table
        while True:
            if time.monotonic() > deadline:
                raise SimError("the table did not finish %d deal(s) within %.0f s\n--- hub ---\n%s"
                               % (want, timeout, self.hub_text()))
            if self.hub is not None and self.hub.poll() is not None:
                raise SimError("the hub exited (%s):\n%s" % (self.hub.returncode, self.hub_text()))
            entries = self.entries()  # one read of the log per look at the table
            h = TableHistory.from_entries(entries)
            actions = [e for e in entries if e.kind == "action"]
            for e in actions[seen_actions:]:
                if on_action:
                    on_action(h, e)
            seen_actions = len(actions)
            if until_actions is not None and seen_actions >= until_actions:
                return h
            if until is not None and until(h):
                return h
            if self.venue:
                self._check_in(h, checked_in, on_checkin)
            if want is not None and len(h.played) >= want:
                if on_moment and "result" not in moments:
                    moments.add("result")
                    self._settle_all("result")
                    on_moment("result", SEATS)
                return h
            d = h.current
            if d is None or d.paused:
                time.sleep(0.05)
                continue
            game = d.game
            phase = game.phase
            if on_moment and phase not in moments and phase in ("show", "double", "play"):
                moments.add(phase)
                self._settle_all(phase)
                on_moment(phase, SEATS)
            if on_moment and "report" not in moments and game.view(None).get("reports"):
                moments.add("report")
                self._settle_all("play")
                on_moment("report", SEATS)
            turn = len(game.actions)
            decision = "show" if phase == "show" else turn  # 明牌 is one simultaneous decision
            for seat in game.to_act():
                if (d.index, decision, seat) in touched or not self.seats[seat].alive():
                    continue
                touched.add((d.index, decision, seat))
                action = bots[seat].choose(game.view(seat), game.legal_actions(seat))
                self.touch(seat, action)
            self._wait_log_past(d.index, turn, deadline)

    def _check_in(self, h, done, on_checkin):
        """Each live seat of the newest round whose player has not checked in yet: type the number."""
        for rnd in h.rounds[-1:]:
            for seat in SEATS:
                p = rnd.player(seat)
                if p is None or p.get("bot") or seat in rnd.checked or (rnd.round, seat) in done:
                    continue
                if not self.seats[seat].alive():
                    continue
                done.add((rnd.round, seat))
                if on_checkin:  # the keypad as the arriving player finds it
                    self.seats[seat].wait_screen("checkin", timeout=15)
                    on_checkin(rnd, seat, p, "before")
                self.seats[seat].check_in(p["no"])
                if on_checkin:
                    on_checkin(rnd, seat, p, "after")

    def touch(self, seat, action):
        """Enter ``action`` on ``seat``'s screen as a person would: tap, look, tap."""
        sp = self.seats[seat]
        if action.type in ("show", "double"):
            btn = "btn:yes" if action.yes else "btn:no"
            sp.wait_screen(action.type, timeout=15, where=lambda ui: _enabled(ui, btn))
            self._final_tap(sp, btn)
            return
        if action.type == "pass":
            sp.wait_screen("play", timeout=15, where=lambda ui: _enabled(ui, "btn:pass"))
            self._final_tap(sp, "btn:pass")
            return
        sp.wait_screen("play", timeout=15)
        for code in _codes(action):
            mark = sp.mark()
            sp.tap_widget("card:" + code)
            sp.wait_screen("play", after=mark, timeout=15)  # the seat redrew with the card raised
        sp.wait_screen("play", timeout=15, where=lambda ui: _enabled(ui, "btn:play"))
        self._final_tap(sp, "btn:play")

    def _final_tap(self, sp, wid):
        """The tap that sends the intent.  When measuring, wait until every seat has rebuilt its
        screen from the hub's answer and drawn it: touch → frame → hub → log → 4 seats redrawn."""
        if self.latencies is None:
            sp.tap_widget(wid)
            return
        marks = {s: other.mark() for s, other in self.seats.items()}
        t0 = time.monotonic()
        sp.tap_widget(wid)
        for s, other in self.seats.items():
            if other.alive():
                other.wait_for(lambda o, m=marks[s]: _redrawn(o.lines, m), 10, "seat %s redrawn" % s)
        self.latencies.append((time.monotonic() - t0) * 1000.0)

    def _wait_log_past(self, deal, turn, deadline):
        """Until deal ``deal`` has more than ``turn`` actions logged (or has ended)."""
        while time.monotonic() < deadline:
            h = self.history()
            d = h.current
            if d is None or d.index != deal or len(d.game.actions) > turn:
                return
            time.sleep(0.02)
        raise SimError("no move was logged after turn %d\n--- hub ---\n%s" % (turn, self.hub_text()))

    def _settle_all(self, screen):
        for sp in self.seats.values():
            try:
                sp.settle(timeout=10)
            except firmware_.SeatError:
                pass

    # ---- screenshots --------------------------------------------------------------------------

    def screenshot(self, seat, path):
        """The seat's latest frame as a PNG; returns (path, frame hash)."""
        from .screenshot import frame_hash, save_png
        sp = self.seats[seat]
        number, frame = sp.settle(timeout=10)
        frame = Path(frame)
        if not frame.is_absolute():
            frame = sp.frames_dir / frame
        data = frame.read_bytes()
        save_png(data, path)
        return Path(path), frame_hash(data)


def _enabled(ui, wid):
    w = ui["widgets"].get(wid)
    return bool(w) and (len(w) < 5 or bool(w[4]))


def _redrawn(lines, start):
    """A screen rebuild (``ui``) after ``start`` followed by its drawn frame."""
    seen_ui = False
    for i in range(start, len(lines)):
        line = lines[i]
        if line.startswith("ui "):
            seen_ui = True
        elif seen_ui and line.startswith("frame "):
            return True
    return False


def _codes(action):
    from paizhuo_shared.bigtwo import codes
    return codes(action.cards)


def _board_list(spec):
    out = []
    for part in str(spec).split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out
