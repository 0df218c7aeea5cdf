"""A whole table on one machine: the ``paizhuo hub`` process, a pty serial link and a seat
board per seat of the game (four, or three) running the real firmware under the MicroPython unix port.

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

from .. import rules as rules_
from ..provision import device_block, toml_str
from ..table import eventlog
from ..table.history import TableHistory
from . import firmware as firmware_
from . import lifeline
from .links import PtyLink

DEVICES = {"E": "S-0001", "N": "S-0002", "W": "S-0003", "S": "S-0004"}


# The actions :meth:`SimTable.touch` knows how to enter on a seat's screen.
TOUCHED = ("show", "double", "play", "pass", "tribute", "return")


def can_touch(game):
    """True if a simulated player can play ``game`` by touch: the firmware has its screens and
    :meth:`SimTable.touch` enters every kind of its actions — by their types, or through the
    game's own ``touch`` class (the registry's) — else its tables are bots only.

    >>> all(can_touch(g) for g in rules_.GAMES if firmware_.has_screens(g))
    True
    """
    g = rules_.game(game)
    types = g.touch.TYPES if g.touch is not None else TOUCHED
    return firmware_.has_screens(game) and all(t in types for t in g.engine.Action.TYPES)


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
    ``game``: any registered game (None: the registry's default); ``bots``: seats the hub's
    own bot plays (``[seats] bots``: no link, no board; a game whose seat screens the firmware
    does not have yet plays with every seat a bot); ``rules``: the ``[rules]`` options.
    """

    def __init__(self, folder, boards="1", secret="paizhuo demo table", clock_scale=1.0, players=None,
                 port_order="WSEN", lang="zh", firmware=None, frames_keep=4, clock=None, venue=None, names="",
                 game=None, bots=(), rules=None, bot_think_seconds=0.05):
        # The game, from the registry (its seats, bot and card codes); None: the registry's default.
        self.game_of = rules_.game(game or rules_.DEFAULT_GAME)
        self.bots = tuple(s for s in self.game_of.seats if s in bots)
        self.seats_order = tuple(s for s in self.game_of.seats if s not in self.bots)  # the seats with a board
        self.rules = dict(rules or {})
        self.bot_think_seconds = bot_think_seconds
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
        # ``venue``: {"broker": "host:port", "event": id, "hub": id, "table": name[, "password_file":
        # path]} puts the hub in
        # venue mode: the venue's round specs bring deals and players, the seats check players in.
        self.venue = dict(venue) if venue else None
        self.hub_id = self.venue["hub"] if self.venue else "T07"
        self.table_id = self.venue["table"] if self.venue else "7"
        self.config_path = self.folder / "table.toml"
        self.log_path = self.folder / "table.sqlite"
        self._entries = []  # the log as last read (entries(): only what is new is read)
        self._history = None  # (entries replayed, their TableHistory), extended as the log grows
        self._history_head = None  # the hash of the last entry replayed

    # ---- life ------------------------------------------------------------------------------

    def start(self):
        """Links, configuration, the hub process and the four seat boards."""
        if self.firmware is None and self.seats_order:
            # The names these seats will show (the simulation knows them; a board carries
            # the common hanzi instead, firmware.build's default).
            names = "".join(name for _, name in self.players.values()) + self.names
            self.firmware = firmware_.build(extra_text=names, common_hanzi=False)
        (self.folder / "links").mkdir(exist_ok=True)
        for seat in self.seats_order:
            self.links[seat] = PtyLink(str(self.folder / "links"), seat)
        self.write_config()
        self.start_hub()
        for seat in self.seats_order:
            self.start_seat(seat)
        self.wait_linked()
        return self

    def write_config(self):
        clock = {"scale": self.clock_scale, "next_deal_seconds": 2}
        clock.update(self.clock)
        lines = ["[table]", "hub = %s" % toml_str(self.hub_id), "id = %s" % toml_str(self.table_id),
                 'event = "paizhuo demo"', 'lang = %s' % toml_str(self.lang), 'log = "table.sqlite"']
        if self.game_of.name != rules_.DEFAULT_GAME:
            lines += ["game = %s" % toml_str(self.game_of.name)]
        lines += [""]
        if self.rules:
            lines += ["[rules]"] + ["%s = %s" % (k, _toml(v)) for k, v in sorted(self.rules.items())] + [""]
        if self.bots:
            lines += ["[seats]", "bots = [%s]" % ", ".join(toml_str(s) for s in self.bots),
                      "bot_think_seconds = %s" % self.bot_think_seconds, ""]
        if self.venue:
            lines += ["[venue]", "broker = %s" % toml_str(self.venue["broker"]),
                      "event = %s" % toml_str(self.venue["event"]), "keepalive_seconds = 5"]
            if self.venue.get("password_file"):     # the hub's broker login (`paizhuo broker config`)
                lines += ["password_file = %s" % toml_str(self.venue["password_file"])]
            lines += [""]
        lines += ["[clock]"]
        lines += ["%s = %s" % (k, v) for k, v in clock.items()]
        lines += ["", "[link]", "ports = [%s]" % ", ".join(toml_str(self.links[s].hub_path) for s in self.port_order
                                                           if s in self.links), ""]
        for seat in self.seats_order:  # the blocks `paizhuo provision` writes
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
            self.hub = lifeline.popen([sys.executable, "-m", "paizhuo.cli", "hub", "--config", str(self.config_path)],
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
        """The table's log entries.  The log only grows while a table plays, so they are read
        once each: a look at the table reads what is new (a whole reread when the log is not
        the one read before: fewer entries, or another first one)."""
        if not self.log_path.exists():
            return []
        try:
            db = eventlog.open_readonly(str(self.log_path))
        except eventlog.LogError:  # the hub is creating it this moment
            return []
        try:
            seen = self._entries
            if seen:
                last = seen[-1]
                n = db.execute("SELECT count(*) FROM events WHERE table_id = ? AND seq <= ?",
                               (self.table_id, last.seq)).fetchone()[0]
                row = db.execute("SELECT hash FROM events WHERE table_id = ? AND seq = ?",
                                 (self.table_id, last.seq)).fetchone()
                if n != len(seen) or row is None or row[0] != last.hash:
                    seen = []
            new = eventlog.read_entries(db, self.table_id, seen[-1].seq if seen else None)
        finally:
            db.close()
        self._entries = seen = seen + new
        return list(seen)

    def history(self, entries=None):
        """The table as its event log tells it (``entries``: as just read), replayed through
        the engine: one history that each look extends with the entries that are new (so
        an object returned earlier moves on with the log)."""
        entries = self.entries() if entries is None else entries
        n, h = self._history or (0, None)
        if h is None or n > len(entries) or (n and entries[n - 1].hash != self._history_head):
            n, h = 0, TableHistory()  # another log than the one replayed: from its start
        self._history = None  # (a replay that fails leaves nothing half done behind)
        h.extend(entries[n:])
        self._history, self._history_head = (len(entries), h), entries[-1].hash if entries else None
        return h

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
        bots = {seat: self.game_of.new_bot(seed=seed * 10 + i, whim=whim) for i, seat in enumerate(self.seats_order)}
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
            h = self.history(entries)
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
                    on_moment("result", self.seats_order)
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
                on_moment(phase, self.seats_order)
            if on_moment and "report" not in moments and game.view(None).get("reports"):
                moments.add("report")
                self._settle_all("play")
                on_moment("report", self.seats_order)
            turn = len(game.actions)
            # a phase in which several seats decide at once is one decision (e.g. 明牌), the one
            # its clock runs for: the same phase may follow itself as a new decision (a new clock)
            decision = (phase, (d.clock or {}).get("turn")) if phase in self.game_of.engine.SIMULTANEOUS else turn
            for seat in game.to_act():
                if seat in self.bots or (d.index, d.n, decision, seat) in touched or not self.seats[seat].alive():
                    continue
                touched.add((d.index, d.n, decision, seat))
                bot = bots[seat]
                action = bot.choose(game.view(seat), game.legal_actions(seat) if getattr(bot, "needs_legal", True) else None)
                self.touch(seat, action, game)
                # Of seats deciding at once, one at a time, each from a new look at the log: one
                # seat's decision may settle the others' (a 胡 or 碰 ends a claim the others were
                # still asked in), and their buttons go before a tap would reach them.
                break
            self._wait_log_past(len(entries), turn, deadline)

    def _check_in(self, h, done, on_checkin):
        """Each live seat of the newest round whose player has not checked in yet: type the number."""
        for rnd in h.rounds[-1:]:
            for seat in self.seats_order:
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

    def touch(self, seat, action, state=None):
        """Enter ``action`` on ``seat``'s screen as a person would: tap, look, tap.  Cards are
        tapped by their tap ids (the second of two equal cards is ``card:<code>+``); an action
        that gives cards other than a play (a tribute or a return, say) is confirmed on its
        own screen with ``btn:give``; a play the seat asks the meaning of (the chooser) gets
        the action's meaning, found in ``state.describe`` (the list the seat shows).

        Each look is at the screen the seat drew *after* the last tap took (its ``tap`` line):
        a screen from before it (a hub message that arrived meanwhile, the pre-check's answer
        to an earlier selection) may show a button enabled that the seat has disabled since.
        A button that did not respond (no intent sent) is tapped again on a newer screen.

        A game with its own ``touch`` class in the registry (its screens tap otherwise) enters
        its actions through it, with :meth:`tap` and :meth:`press`."""
        own = self.game_of.touch
        if own is not None:
            own.enter(self, seat, action, state)
            return
        sp = self.seats[seat]
        if action.type in ("show", "double"):
            self.press(sp, action.type, "btn:yes" if action.yes else "btn:no")
            return
        if action.type == "pass":
            self.press(sp, "play", "btn:pass")
            return
        screen = "play" if action.type == "play" else action.type
        codes = [self.game_of.engine.Deal.code(c) for c in action.cards]
        taps = ["card:" + code + ("+" if code in codes[:i] else "") for i, code in enumerate(codes)]
        # The seat must show the hand the table says it has: the cards are tapped where that
        # screen has them, and a hand one play old has them elsewhere (the row is centred).
        hand = sorted(state.view(seat).get("hand") or ()) if state is not None else None
        sp.wait_screen(screen, timeout=15, where=lambda ui: taps[0] in ui["widgets"] and (
            hand is None or _hand_shown(ui) == hand))
        after = None
        for wid in taps:
            after = self.tap(sp, wid)[1]
        btn = "btn:play" if screen == "play" else "btn:give"
        meaning = getattr(action, "meaning", None)
        choices = state.describe(seat, codes) if meaning and hasattr(state, "describe") else []
        if len(choices) < 2:
            self.press(sp, screen, btn, after)
            return
        after = self.press(sp, screen, btn, after, chooser="choose")
        self.press(sp, "choose", "mean:%d" % choices.index(meaning), after)

    def tap(self, sp, wid):
        """Tap widget ``wid`` and wait until the seat has handled it.  Returns ``(tap, shown)``:
        the index of its ``tap`` line, and of the seat's screen (``ui`` line) as it stood then
        (the tap's own rebuild, if it made one): the seat's state after the tap is that screen
        or a later one."""
        mark = sp.mark()
        sp.tap_widget(wid)
        i, hit = sp.wait_for(lambda o: _tap_line(o.lines, mark), 15, "the seat to take the tap on %s" % wid)
        if hit != wid:
            raise SimError("a tap on %s hit %s on the seat:\n%s" % (wid, hit, sp.output()))
        shown = i
        while shown > 0 and not sp.lines[shown].startswith("ui "):
            shown -= 1
        return i, shown

    def press(self, sp, screen, wid, after=None, chooser=None):
        """Tap button ``wid`` once screen ``screen`` (as it stood at line ``after`` or later)
        shows it enabled, until the seat sends its intent (``chooser``: a screen's name, until
        the tap opens that screen instead: a chooser); returns the index of the screen the tap
        that did left."""
        for _ in range(5):
            sp.wait_screen(screen, timeout=15, after=after, where=lambda ui: _enabled(ui, wid))
            marks = {s: other.mark() for s, other in self.seats.items()}
            mark = sp.mark()
            t0 = time.monotonic()
            i, shown = self.tap(sp, wid)
            took = sp.lines[mark:i]
            if chooser and any(x.startswith("ui ") and '"screen":"%s"' % chooser in x for x in took):
                return shown
            if chooser or not any(x.startswith("intent ") for x in took):
                after = i + 1  # ignored (the seat's state had moved on): look again at a newer screen
                continue
            if self.latencies is not None:  # touch → frame → hub → log → every seat redrawn
                for s, other in self.seats.items():
                    if other.alive():
                        other.wait_for(lambda o, m=marks[s]: _redrawn(o.lines, m), 10, "seat %s redrawn" % s)
                self.latencies.append((time.monotonic() - t0) * 1000.0)
            return shown
        raise SimError("%s on screen %s did not respond to five taps:\n%s" % (wid, screen, sp.output()))

    def _wait_log_past(self, seen, turn, deadline):
        """Until the log has more than its first ``seen`` entries besides clock starts: a move
        (by a seat, the clock or 托管), a deal's end or start, a seat's coming or going.

        Not "until the deal is past ``turn``": a match's next deal counts its turns from 0
        again, so a look taken at the end of deal 1 and a wait that began after deal 2 had
        started waited for deal 2 to pass deal 1's length, and left deal 2 to the clock."""
        while time.monotonic() < deadline:
            if any(e.kind != "clock" for e in self.entries()[seen:]):
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


def _toml(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return toml_str(v)
    return repr(v)


def _enabled(ui, wid):
    w = ui["widgets"].get(wid)
    return bool(w) and (len(w) < 5 or bool(w[4]))


def _hand_shown(ui):
    """The card codes of the hand on a seat's screen (its tappable cards), sorted."""
    return sorted(w[5:].rstrip("+") for w in ui["widgets"] if w.startswith("card:"))


def _tap_line(lines, start):
    """``(index, widget id)`` of the first ``tap X Y ID`` line at or after ``start``, or None."""
    for i in range(start, len(lines)):
        if lines[i].startswith("tap "):
            return i, lines[i].split()[3]
    return None


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


def _board_list(spec):
    out = []
    for part in str(spec).split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out
