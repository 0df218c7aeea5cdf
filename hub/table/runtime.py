"""The table runtime (asyncio): one :class:`Table` owns the engine, the clocks, the event log
and a session per seat link.

The path of an intent::

    seat frame ─► LineReader ─► link checks (tag, seq, fields) ─► engine.verify
        refused ─► reject (code, en, zh) to that seat; nothing changes
        accepted ─► engine.apply ─► event log (one fsynced transaction: action + next clock)
                  ─► ``event`` to every online seat, each with only its own ``view(seat)``

Everything runs in one event loop, so frames, clock expiries and bot moves are handled one
at a time in arrival order; the SQLite commit happens inside that step, before any frame
goes out (DESIGN.md: nothing accepted is ever lost, nothing is announced before it is logged).

Tasks: one per port (open, challenge, read) and one scheduler (clock expiry, 托管, bot seats,
offline seats, the next deal, clock checkpoints).  :meth:`Table.run` starts them all and
cancels them all; nothing else starts a task.

Rounds (venue mode): the venue's round spec (:meth:`Table.load_round`) adds a round's boards
and their deal hashes to the plan, but no cards; its players check in on their seat
(``checkin`` with their player number).  The venue's start (:meth:`Table.start_round`) brings
the round key: the hub derives the round's deals from it, checks each against the spec's hash,
logs them, and the first deal starts once every seat is online and checked in (or the grace
period after the start has passed).  So no deal of a round exists at the table before that
round starts (docs/movement-and-deals.md).  The referee's controls (pause, resume, replace a
board, acknowledge a call, a note to the seats) are methods too; every refusal is a
:class:`TableError`.

Clocks are the hub's.  A decision's limit is the engine's ``time_limit()`` (15 s 明牌, 15 s
加倍, 25 s per turn by default) times ``[clock] scale``.  The 明牌 clock is one clock for all
four seats; 加倍 and each play have their own.  At expiry the hub applies the engine's
``default_action`` marked ``auto``.  Think time is measured by the hub: the time the
decision's clock has run when the intent arrives (so pauses and hub downtime never count).
"""

import asyncio
import collections
import hashlib
import os
import re
import sys
import time
import traceback

from paizhuo_shared import link

from ..bots.bigtwo import BigTwoBot
from ..errors import CodedError
from ..rules import bigtwo
from ..venue import deals as deals_
from . import history as history_
from .eventlog import EventLog
from .transport import SerialTransport, TransportError

__all__ = ["Table", "TableError", "DecisionClock"]

SEATS = bigtwo.SEATS
REOPEN_SECONDS = 0.5  # a port that failed or dropped is tried again this often
CALL_INTERVAL = 2.0  # 叫裁判: a seat's calls closer together than this are counted, not logged again
BURST_COUNT = 10  # this many refused frames from one seat or port ...
BURST_SECONDS = 10.0  # ... within this window raise one reject_burst alert per window
NOTE_MAX = 200  # characters of a referee's note, per language (a seat frame holds 4096 bytes)
SEAT_EN = {"E": "East", "N": "North", "W": "West", "S": "South"}
SEAT_ZH = {"E": "东家", "N": "北家", "W": "西家", "S": "南家"}
_SPEC_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TEXT_ID = re.compile(r"^[^\x00-\x1f]{1,64}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_SPEC_FIELDS = ("v", "id", "round", "group", "game", "table", "boards", "deal_hashes", "players", "moves")


class TableError(CodedError):
    """A request the table cannot carry out now (pause without a deal, a log that belongs to
    another configuration, …): ``code``, ``en``, ``zh``."""


class DecisionClock:
    """The countdown of one decision (``key``) for ``seats``; times are monotonic seconds.

    >>> c = DecisionClock("t5", 5, ["N"], 25000, 25000, now=100.0)
    >>> c.remaining(110.0), c.used_ms(110.0)
    (15000, 10000)
    >>> c.pause(112.0); c.remaining(500.0)
    13000
    >>> c.resume(600.0); c.remaining(603.0)
    10000
    """

    __slots__ = ("key", "turn", "seats", "limit_ms", "seq", "paused", "_rem", "_t0")

    def __init__(self, key, turn, seats, limit_ms, remaining_ms, now, seq=None, paused=False):
        self.key = key
        self.turn = turn  # the turn at which the decision was prompted
        self.seats = list(seats)
        self.limit_ms = limit_ms
        self.seq = seq  # the log entry that started (or restarted) this clock
        self.paused = paused
        self._rem = remaining_ms
        self._t0 = now

    def remaining(self, now):
        if self.paused:
            return self._rem
        return max(0, self._rem - int((now - self._t0) * 1000))

    def used_ms(self, now):
        """Thinking time so far: the part of the limit that has run (never negative, never over)."""
        return max(0, min(self.limit_ms, self.limit_ms - self.remaining(now)))

    def deadline(self):
        """Monotonic time of expiry, or None while paused."""
        return None if self.paused else self._t0 + self._rem / 1000.0

    def pause(self, now):
        if not self.paused:
            self._rem = self.remaining(now)
            self.paused = True

    def resume(self, now):
        if self.paused:
            self._t0 = now
            self.paused = False

    def body(self, deal, now, why):
        return {"deal": deal, "key": self.key, "turn": self.turn, "seats": list(self.seats),
                "limit_ms": self.limit_ms, "remaining_ms": self.remaining(now), "why": why}


class _Conn:
    """One port: its transport, line reader, current challenge and (after hello) session."""

    __slots__ = ("transport", "reader", "nonce", "session", "dev", "seat", "last_rx", "fw", "board", "calls_at",
                 "refused")

    def __init__(self, transport):
        self.transport = transport
        self.reader = link.LineReader()
        self.nonce = None
        self.session = None
        self.dev = None
        self.seat = None
        self.last_rx = 0.0
        self.fw = None
        self.board = None
        self.calls_at = -1e9
        self.refused = collections.deque()  # (monotonic time, code) of recent rejects: burst detection

    @property
    def name(self):
        return self.transport.name

    def send(self, msg):
        """Seal ``msg`` in this port's session and queue it (False if there is no session)."""
        if self.session is None:
            return False
        self.transport.write(self.session.seal(msg))
        return True

    def send_plain(self, msg):
        """A frame outside any session (challenge, pre-session reject): s=0, empty key."""
        msg["s"] = 0
        self.transport.write(link.encode(msg, b""))


class Table:
    """One table: engine, clocks, event log and seat sessions.  ``await run()`` plays it.

    - ``transports``: one :class:`~paizhuo.table.transport.Transport` per port (default:
      serial ports from the configuration).
    - ``on_alert(dict)``: called for calls to the referee, seats going offline or coming
      back, clock expiries, reject bursts, wrong check-ins and log failures (the venue
      uplink hooks in here).  The dict has ``kind``, ``hub``, ``table`` and the alert's fields.
    - ``on_entry(Entry)``: called after every log entry is committed.
    - ``on_change()``: called (soon, from the event loop, once per burst of changes) after
      the table's state changed: anything :meth:`snapshot` shows.
    - ``monotonic``: the clock (seconds); ``wall_ms`` the wall time for log entries.
    """

    def __init__(self, config, transports=None, on_alert=None, on_entry=None, monotonic=None, wall_ms=None,
                 on_change=None):
        self.config = config
        self.now = monotonic or time.monotonic
        self.wall_ms = wall_ms or (lambda: int(time.time() * 1000))
        self.on_alert = on_alert or (lambda alert: None)
        self.on_entry = on_entry or (lambda entry: None)
        self.on_change = on_change or (lambda: None)
        if transports is None:
            transports = [SerialTransport(p, config.baudrate) for p in config.ports]
        self.conns = [_Conn(t) for t in transports]
        self.log = EventLog(config.log, config.table, now_ms=wall_ms)
        recs = config.deals.records
        base = None
        if recs:  # the configuration's [deals]: a round that needs no venue start and no check-in
            base = history_.RoundPlan(recs[0].round, recs[0].group, recs, config.players, venue=False,
                                      game=config.game, table=config.table)
        self.book = history_.Plan(base)
        self.plan = self.book.records
        # Which board plays which seat: the configuration's, changed by a referee's replace.
        self.seat_dev = {s: None for s in SEATS}
        for d in config.devices.values():
            if d.seat in self.seat_dev:
                self.seat_dev[d.seat] = d.id
        self.game = None  # the engine of the current (or last) deal
        self.deal_index = None
        self.clock = None
        self.paused = None  # the pause body while the referee holds the table
        self.screen = "waiting"
        self.last_result = None
        self.deal_due = None  # (monotonic) when the next deal may start; None: none planned
        self.seat_conn = {s: None for s in SEATS}
        self.absent_since = {s: self.now() for s in SEATS}
        self.rejects = {}  # seat or port -> {code: count}, since the hub started
        self._rejects_unlogged = {}
        self.bots, self.seat_bots = self._bots(None)
        self.started = asyncio.Event()
        self._wake = asyncio.Event()
        self._next_mark = 0.0
        self._stopping = False
        self._offline_alerted = set()  # seats whose seat_offline alert has not been answered by seat_online
        self._burst_at = {}  # seat or port -> when its last reject_burst alert went out
        self._change_pending = False
        self.internal_errors = 0  # frames whose handling hit a hub bug (tests require none)

    # ---- life cycle --------------------------------------------------------------------

    async def run(self, stop=None, on_started=None):
        """Restore from the log, then serve every port until ``stop`` (an asyncio.Event) is set.

        ``on_started(table)`` is called once the log is restored and the ports are being
        opened.  This is the one place tasks are started and cancelled.
        """
        try:
            self._restore()
        except BaseException:
            self.log.close()
            raise
        tasks = [asyncio.create_task(self._port_loop(c), name="port %s" % c.name) for c in self.conns]
        tasks.append(asyncio.create_task(self._scheduler(), name="scheduler"))
        waiter = asyncio.create_task((stop or asyncio.Event()).wait(), name="stop")
        self.started.set()
        if on_started is not None:
            on_started(self)
        try:
            done, _ = await asyncio.wait(tasks + [waiter], return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                if t is not waiter and not t.cancelled() and t.exception() is not None:
                    raise t.exception()
        finally:
            self._stopping = True
            for t in tasks + [waiter]:
                t.cancel()
            await asyncio.gather(*tasks, waiter, return_exceptions=True)
            for c in self.conns:
                c.transport.close()
            try:
                self._log_rejects()
                self._append([("hub_stop", {"reason": "stopped"})])
            except Exception:  # a failing disk must not hide the original error
                traceback.print_exc()
            self.log.close()

    def _restore(self):
        """Resume from the log: the deal in progress at its turn with its remaining clock."""
        try:
            hist = history_.TableHistory.from_entries(self.log.entries())
        except history_.HistoryError as e:
            raise TableError("log_broken", "the log %s does not replay (%s): run paizhuo hub verify --log on it, "
                             "keep it for the referee and give a new file in [table] log" % (self.config.log, e.en),
                             "日志 %s 无法重放（%s）：请用 paizhuo hub verify 检查并保留给裁判，并在 [table] log 中换新文件"
                             % (self.config.log, e.zh)) from None
        for rnd in hist.rounds:
            logged = rnd.start
            self.book.add(rnd)  # sets rnd.start: the configuration's deals come first
            if rnd.start != logged:
                raise TableError(
                    "log_mismatch", "the log %s holds round %s from plan position %d, but this configuration puts it at "
                    "%d ([deals] changed): give a new file in [table] log" % (self.config.log, rnd.round, logged + 1,
                                                                              rnd.start + 1),
                    "日志 %s 中第 %s 轮的位置与本配置不符（[deals] 已改）：请在 [table] log 中换新文件"
                    % (self.config.log, rnd.round))
        self.plan = self.book.records
        for seat, dev in hist.devices.items():
            if seat in self.seat_dev:
                self.seat_dev[seat] = dev
        for d in hist.deals:
            if d.index >= len(self.plan) or self.plan[d.index] is None or self.plan[d.index].hash != d.deal_hash:
                raise TableError(
                    "log_mismatch",
                    "the log %s holds deal %d with hash %s, which is not deal %d of this configuration: "
                    "this log belongs to another set of deals; give a new file in [table] log"
                    % (self.config.log, d.index + 1, str(d.deal_hash)[:12], d.index + 1),
                    "日志 %s 中第 %d 副牌与本配置不符：该日志属于另一组牌；请在 [table] log 中换新文件"
                    % (self.config.log, d.index + 1))
        now = self.now()
        self.absent_since = {s: now for s in SEATS}  # the grace period runs from the hub's start
        cur = hist.current
        items = [("hub_start", {"hub": self.config.hub, "config": self.config.digest,
                                "resumed": None if cur is None else cur.index, "pid": os.getpid()})]
        if cur is not None:
            self.game = cur.game
            self.deal_index = cur.index
            self.screen = "deal"
            key = self._decision_key()
            limit = self._limit_ms()
            turn = len(self.game.actions)
            remaining = limit
            if cur.clock is not None and cur.clock.get("key") == key:
                limit = cur.clock["limit_ms"]
                turn = cur.clock["turn"]
                remaining = cur.clock["remaining_ms"]
                mark = self.log.clock_mark()
                if mark is not None and mark[0] == cur.clock["seq"]:
                    remaining = mark[2]
                if cur.paused is not None:
                    remaining = cur.paused["remaining_ms"]
            floor = self.config.clocks.restart_floor_ms
            remaining = min(limit, max(remaining, floor))
            self.clock = DecisionClock(key, turn, self.game.to_act(), limit, remaining, now,
                                       paused=cur.paused is not None)
            if cur.paused is not None:
                self.paused = cur.paused
                self.screen = "paused"
                self.clock.seq = cur.paused["seq"]
            else:
                items.append(("clock", self.clock.body(self.deal_index, now, "restart")))
        elif hist.deals:
            last = hist.deals[-1]
            self.game = last.game
            self.deal_index = last.index
            self.last_result = last.result["result"]
            if last.index + 1 < len(self.plan):
                self.screen = "result"
                self.deal_due = now + self.config.clocks.next_deal_ms / 1000.0
            else:
                self.screen = "waiting"
        else:
            self.deal_due = now
        written = self._append(items)
        if self.clock is not None and not self.clock.paused:
            self.clock.seq = written[-1].seq

    def describe(self):
        """One line for staff: where the table stands."""
        rnd = self._active_round()
        if not self._deal_running() and rnd is not None and self._pending(rnd) and self.screen != "result":
            checked = sum(1 for s in SEATS if s in rnd.checked or self._is_bot(s, rnd))
            return "round %d: %s, %d of 4 seats checked in" % (
                rnd.round, "started" if rnd.started else "waiting for the venue's start", checked)
        if self._deal_running():
            return "deal %d of %d (board %s) at turn %d%s" % (
                self.deal_index + 1, len(self.plan), self.plan[self.deal_index].board, len(self.game.actions),
                ", paused" if self.paused is not None else "")
        if self.screen == "result":
            return "deal %d of %d finished, next deal pending" % (self.deal_index + 1, len(self.plan))
        if self.deal_due is not None and self.plan:
            return "waiting for the seats to start deal %d of %d" % (self._next_index() + 1, len(self.plan))
        if self.config.venue is not None and not self.plan:
            return "waiting for the venue's first round"
        return "every planned deal is played (%d)" % len(self.plan)

    # ---- the log -----------------------------------------------------------------------

    def _append(self, items):
        written = self.log.append_many(items)
        for e in written:
            try:
                self.on_entry(e)
            except Exception:
                traceback.print_exc()
        self._changed()
        return written

    def _append_control(self, items):
        """Log a referee's or the venue's request before acting on it; a log that cannot be
        written refuses the request (``log_failed``) and changes nothing."""
        try:
            return self._append(items)
        except Exception as e:
            traceback.print_exc()
            self._alert("log_failed", error=repr(e))
            raise TableError("log_failed", "the table's log cannot be written (%s): nothing was changed; check the "
                             "hub's storage and try again" % e, "本桌日志无法写入（%s）：未作任何更改；请检查主机存储后重试"
                             % e) from None

    def _changed(self):
        """Tell ``on_change`` once the current step is done (a step may log several entries
        and change the screen after them: the hook must see the finished state)."""
        if self._change_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._fire_change()
            return
        self._change_pending = True
        loop.call_soon(self._fire_change)

    def _fire_change(self):
        self._change_pending = False
        try:
            self.on_change()
        except Exception:
            traceback.print_exc()

    def _note(self, items):
        """Log entries that record what happened around the game (seats, calls, rejects): a
        failed write is alerted but never stops the table, unlike a game step."""
        try:
            self._append(items)
        except Exception as e:
            traceback.print_exc()
            self._alert("log_failed", error=repr(e))

    def _alert(self, kind, **fields):
        alert = dict(fields, kind=kind, table=self.config.table, hub=self.config.hub)
        try:
            self.on_alert(alert)
        except Exception:
            traceback.print_exc()

    # ---- what seats are told -------------------------------------------------------------

    def _decision_key(self):
        g = self.game
        if g is None or g.phase == bigtwo.OVER:
            return None
        if g.phase == bigtwo.SHOW:
            return "show"
        return "t%d" % len(g.actions)

    def _limit_ms(self):
        return self.config.clocks.limit_ms(self.game.time_limit())

    def _deal_running(self):
        return self.game is not None and self.game.phase != bigtwo.OVER and self.screen in ("deal", "paused")

    def _clock_msg(self, now=None):
        if self.clock is None or not self._deal_running():
            return {"seats": [], "ms": 0, "paused": self.paused is not None}
        now = self.now() if now is None else now
        acting = self.game.to_act()
        return {"seats": [s for s in self.clock.seats if s in acting], "ms": self.clock.remaining(now),
                "paused": self.clock.paused}

    def _players(self, rnd=None):
        """Who sits where now: the active round's players (the configuration's without rounds)."""
        rnd = rnd or self._active_round()
        return dict(rnd.players) if rnd is not None else dict(self.config.players)

    def _seatmap(self, seat):
        rnd = self._active_round()
        m = {"table": self.config.table, "seat": seat, "player": self._players(rnd).get(seat), "next": None}
        if rnd is not None and rnd.venue:
            m["checked"] = seat in rnd.checked
            if self._pending(rnd):  # until the round's first deal: where this seat's last player goes
                m["next"] = (rnd.moves or {}).get(seat)
        return m

    def _state_msg(self, seat, now=None):
        g = self.game
        show_view = g is not None and self.screen in ("deal", "paused", "result")
        return {
            "t": "state",
            "screen": self.screen,
            "view": g.view(seat) if show_view else None,
            "turn": len(g.actions) if show_view else None,
            "clock": self._clock_msg(now) if self._deal_running() else None,
            "players": self._players(),
            "result": self.last_result if self.screen == "result" else None,
            "seatmap": self._seatmap(seat),
        }

    def _send(self, conn, msg):
        try:
            conn.send(msg)
        except link.LinkError as e:  # a frame over MAX_FRAME is a hub bug: say so, keep going
            print("paizhuo hub: cannot send %s to %s: %s" % (msg.get("t"), conn.name, e.en), file=sys.stderr)

    def _broadcast(self, make):
        for seat in SEATS:
            conn = self.seat_conn[seat]
            if conn is not None:
                self._send(conn, make(seat))

    def _send_state_all(self):
        now = self.now()
        self._broadcast(lambda seat: self._state_msg(seat, now))
        self._changed()

    def _show(self, screen):
        """Change every seat's screen (no log entry: the screen follows from the log)."""
        self.screen = screen
        self._park_bot_seats()
        self._send_state_all()

    # ---- deals -------------------------------------------------------------------------

    def _next_index(self):
        return 0 if self.deal_index is None else self.deal_index + 1

    def _bots(self, deal_hash):
        """The bots of a deal, one per seat: for 托管 (its best play, always) and for bot seats
        (``[seats] bot_whim`` of offhand choices).  Seeded by the hub, the deal and the seat, so
        the same cards at another table meet other choices; a replay of this table's log is
        unaffected (the log holds every move a bot made)."""
        takeover, seated = {}, {}
        for seat in SEATS:
            digest = hashlib.sha256(("%s|%s|%s" % (self.config.hub, deal_hash, seat)).encode()).digest()
            seed = int.from_bytes(digest[:8], "big")
            takeover[seat] = BigTwoBot(seed=seed)
            seated[seat] = BigTwoBot(seed=seed, whim=self.config.bot_whim)
        return takeover, seated

    def _start_deal(self, now):
        index = self._next_index()
        if index >= len(self.plan):
            self._append([("waiting", {"reason": "every planned deal is played" if self.plan
                                       else "no deals yet: waiting for the venue's round"})])
            self.deal_due = None
            self._show("waiting")
            return
        rec = self.plan[index]
        rnd = self.book.round_at(index)
        self.bots, self.seat_bots = self._bots(rec.hash)
        game = history_.state_class(self.config.game)(rec.to_engine_deal(), self.config.rules)
        limit = self.config.clocks.limit_ms(game.time_limit())
        clock = DecisionClock("show", 0, game.to_act(), limit, limit, now)
        items = [("deal_start", {"deal": index, "board": rec.board, "deal_hash": rec.hash,
                                 "deal_record": rec.to_dict(), "engine": game.record()})]
        if rnd.venue and index == rnd.start:
            # The grace period after the start passed: a connected seat that did not check in
            # plays anyway, and the referee can see that it did.
            unchecked = [s for s in SEATS if not self._is_bot(s, rnd) and s not in rnd.checked
                         and self.seat_conn[s] is not None]
            if unchecked:
                items.append(("unchecked", {"round": rnd.round, "seats": unchecked}))
        items.append(("clock", clock.body(index, now, "start")))
        # Logged first: if the write fails nothing has started and the scheduler tries again.
        written = self._append(items)
        clock.seq = written[-1].seq
        self.game = game
        self.deal_index = index
        self.screen = "deal"
        self.last_result = None
        self.deal_due = None
        self.clock = clock
        self._next_mark = now
        self._park_bot_seats()
        self._send_state_all()

    def _commit(self, action, by, now):
        """Apply an accepted action: engine, log (one transaction), then tell every seat."""
        g = self.game
        index = self.deal_index
        turn = len(g.actions)
        rec = self.plan[index]
        events = g.apply(action)  # in memory only until the log has it
        items = [("action", {"deal": index, "turn": turn, "action": action.to_dict(), "by": by})]
        new_clock = None
        result = None
        if g.phase == bigtwo.OVER:
            result = g.result().to_dict()
            items.append(("result", {"deal": index, "board": rec.board, "deal_hash": rec.hash, "result": result,
                                     "actions": len(g.actions)}))
        else:
            key = self._decision_key()
            if self.clock is None or self.clock.key != key:
                limit = self._limit_ms()
                new_clock = DecisionClock(key, turn + 1, g.to_act(), limit, limit, now)
                items.append(("clock", new_clock.body(index, now, "start")))
        try:
            written = self._append(items)
        except Exception as e:
            # Nothing was announced: put the engine back to what the log holds and refuse.
            record = g.record()
            record["actions"] = record["actions"][:-1]
            self.game = type(g).from_record(record)
            traceback.print_exc()
            self._alert("log_failed", error=str(e))
            raise TableError("log_failed", "The table's log cannot be written: call a referee",
                             "本桌日志无法写入，请叫裁判") from None
        if new_clock is not None:
            new_clock.seq = written[-1].seq
            self.clock = new_clock
            self._next_mark = now
        turn_now = len(g.actions)
        clock = self._clock_msg(now)
        self._broadcast(lambda seat: {"t": "event", "events": events, "view": g.view(seat), "turn": turn_now,
                                      "clock": clock})
        if result is not None:
            self.clock = None
            self.screen = "result"
            self.last_result = result
            self._broadcast(lambda seat: {"t": "result", "result": result})
            self._log_rejects()
            self.deal_due = now + self.config.clocks.next_deal_ms / 1000.0
        self._wake.set()

    def _log_rejects(self):
        if self._rejects_unlogged:
            counts, self._rejects_unlogged = self._rejects_unlogged, {}
            self._note([("rejects", {"deal": self.deal_index, "counts": counts})])

    # ---- the referee's controls --------------------------------------------------------

    def pause(self, by="referee", reason=""):
        """Stop the clock and refuse intents until :meth:`resume`; the remaining time is kept."""
        if not self._deal_running():
            raise TableError("no_deal", "No deal is running: there is nothing to pause", "当前没有进行中的牌局，无需暂停")
        if self.paused is not None:
            return False
        now = self.now()
        body = {"deal": self.deal_index, "key": self.clock.key, "remaining_ms": self.clock.remaining(now),
                "by": str(by), "reason": str(reason)}
        written = self._append_control([("pause", body)])  # logged first: a failed write changes nothing
        self.clock.pause(now)
        self.paused = dict(body, seq=written[-1].seq)
        self.screen = "paused"
        self._send_state_all()
        self._wake.set()
        return True

    def resume(self, by="referee"):
        """Restart the clock from where :meth:`pause` stopped it."""
        if self.paused is None:
            return False
        now = self.now()
        written = self._append_control([("clock", dict(self.clock.body(self.deal_index, now, "resume"), by=str(by)))])
        self.clock.resume(now)
        self.clock.seq = written[-1].seq
        self.paused = None
        self.screen = "deal"
        self._next_mark = now
        self._send_state_all()
        self._wake.set()
        return True

    # ---- rounds (venue mode) -----------------------------------------------------------

    def _active_round(self):
        """The round the seats are in now: the running (or just finished) deal's, else the
        next deal's, else the last one (None before any)."""
        if self.deal_index is not None and self.screen in ("deal", "paused", "result"):
            return self.book.round_at(self.deal_index)
        nxt = self.book.round_at(self._next_index())
        if nxt is not None:
            return nxt
        if self.deal_index is not None:
            return self.book.round_at(self.deal_index)
        return self.book.rounds[-1] if self.book.rounds else None

    def _pending(self, rnd):
        """True while ``rnd`` is a venue round whose first deal has not started (check-in time)."""
        return rnd.venue and (self.deal_index is None or self.deal_index < rnd.start)

    def _is_bot(self, seat, rnd=None):
        """True if the hub's bot plays ``seat`` from the first move: ``[seats] bots`` or the
        round's player is the computer."""
        if seat in self.config.bots:
            return True
        rnd = rnd if rnd is not None else self._active_round()
        return rnd is not None and rnd.is_bot(seat)

    def _checkin_round(self):
        """The round players check in to now, or None (check-in is closed)."""
        rnd = self._active_round()
        if rnd is None or self._deal_running() or not self._pending(rnd) or self.screen == "result":
            return None
        return rnd

    def load_round(self, spec):
        """Load the venue's round spec (venue contract § Round spec); True if it changed the plan.

        The spec is checked whole before anything changes and logged as a ``round`` entry:
        the round's boards, their deal hashes (``deal_hashes``) and players, no cards (the
        round key comes with the start, :meth:`start_round`).  The same spec again (same
        ``id``) changes nothing (False); another spec for the round last loaded replaces it as
        long as that round has not started; a round that has started cannot be changed
        (``round_started``).
        """
        rnd = self._round_from_spec(spec)
        old = self.book.venue_round(rnd.round)
        if old is not None and old.id == rnd.id:
            return False
        if old is not None:
            if old.started or not self._pending(old):
                raise TableError("round_started", "round %d has started at this table: its spec cannot change now"
                                 % rnd.round, "第 %d 轮已在本桌开始，不能再更改" % rnd.round)
            if old is not self.book.rounds[-1]:
                raise TableError("round_order", "round %d is not the last round loaded here: only the last one can "
                                 "be replaced" % rnd.round, "第 %d 轮不是本桌最后载入的一轮，不能替换" % rnd.round)
        last = self.book.last_venue
        if old is None and last is not None and rnd.round < last.round:
            raise TableError("round_order", "round %d comes before round %d, which is loaded already"
                             % (rnd.round, last.round), "第 %d 轮早于已载入的第 %d 轮" % (rnd.round, last.round))
        trial = history_.Plan()
        trial.rounds = list(self.book.rounds)
        trial.add(rnd)  # sets rnd.start
        self._append_control([("round", rnd.body())])  # logged first: a failed write changes nothing
        self.book = trial
        self.plan = self.book.records
        if not self._deal_running() and self.deal_due is None:
            self.deal_due = self.now()
        self._park_bot_seats()
        self._send_state_all()
        self._wake.set()
        return True

    def _round_from_spec(self, spec):
        def bad(field, en, zh):
            raise TableError("bad_round", "round spec: %s: %s" % (field, en), "轮次安排：%s：%s" % (field, zh))

        if not isinstance(spec, dict):
            bad("spec", "must be a JSON object", "必须是 JSON 对象")
        if "round_key" in spec:
            bad("round_key", "a round spec never carries the round key: the venue sends it with the round's start",
                "轮次安排不得包含轮次密钥：场地在本轮开始时才发送")
        unknown = sorted(str(k) for k in spec if k not in _SPEC_FIELDS)
        if unknown:
            bad(unknown[0], "is not a round spec field (fields: %s)" % ", ".join(_SPEC_FIELDS),
                "不是轮次安排的字段（字段：%s）" % "、".join(_SPEC_FIELDS))
        if spec.get("v", 1) != 1:
            bad("v", "must be 1", "必须是 1")
        sid = spec.get("id")
        if not isinstance(sid, str) or not _SPEC_ID.match(sid):
            bad("id", "must be 1-64 characters of A-Z a-z 0-9 - _", "必须是 1 到 64 个 A-Z a-z 0-9 - _ 字符")
        for f in ("round", "group"):
            v = spec.get(f)
            if type(v) is not int or v < 1:
                bad(f, "must be a whole number from 1, not %.40r" % (v,), "必须是从 1 开始的整数")
        if spec.get("game") != self.config.game:
            raise TableError("wrong_game", "the round is for game %.40r but this table plays %s"
                             % (spec.get("game"), self.config.game),
                             "该轮项目为 %.40r，本桌为 %s" % (spec.get("game"), self.config.game))
        if spec.get("table") != self.config.table:
            raise TableError("wrong_table", "the round spec is for table %.40r, this hub runs table %s"
                             % (spec.get("table"), self.config.table),
                             "该轮安排属于 %.40r 号桌，本主机为 %s 号桌" % (spec.get("table"), self.config.table))
        boards = spec.get("boards")
        if not isinstance(boards, list) or not boards or len(boards) > 1000 or not all(
                type(b) is int and b >= 1 for b in boards) or len(set(boards)) != len(boards):
            bad("boards", "must list the round's board numbers (whole numbers from 1, each once)",
                "必须列出本轮的牌号（从 1 开始的整数，各一次）")
        hashes = spec.get("deal_hashes")
        if not isinstance(hashes, dict) or set(hashes) != {str(b) for b in boards}:
            bad("deal_hashes", "must give one deal hash for each board, keyed by the board number as text",
                "必须为每个牌号给出一个牌局哈希，键为牌号文本")
        for b in boards:
            if not isinstance(hashes[str(b)], str) or not _HEX64.match(hashes[str(b)]):
                bad("deal_hashes.%d" % b, "must be 64 lowercase hex digits", "必须是 64 位小写十六进制")
        players = spec.get("players")
        if not isinstance(players, dict) or sorted(players) != sorted(SEATS):
            bad("players", "must name the player of each seat E, N, W, S", "必须给出 E、N、W、S 每个座位的选手")
        clean = {}
        for seat in SEATS:
            p = players[seat]
            where = "players.%s" % seat
            if not isinstance(p, dict):
                bad(where, "must be an object {id, name, no, bot}", "必须是对象 {id, name, no, bot}")
            pid, name, no, is_bot = p.get("id"), p.get("name"), p.get("no"), p.get("bot", False)
            if not isinstance(pid, str) or not _TEXT_ID.match(pid):
                bad(where + ".id", "must be 1-64 printable characters", "必须是 1 到 64 个可打印字符")
            if not isinstance(name, str) or not _TEXT_ID.match(name):
                bad(where + ".name", "must be 1-64 printable characters", "必须是 1 到 64 个可打印字符")
            if type(is_bot) is not bool:
                bad(where + ".bot", "must be true or false", "必须是 true 或 false")
            if no is None and not is_bot:
                bad(where + ".no", "is missing: a player checks in with their number", "缺少选手号：选手签到要用")
            if no is not None and (type(no) is not int or no < 0):
                bad(where + ".no", "must be a whole number >= 0", "必须是非负整数")
            clean[seat] = {"id": pid, "name": name, "no": no, "bot": is_bot}
        moves = spec.get("moves")
        if moves is not None:
            if not isinstance(moves, dict) or not all(k in SEATS for k in moves):
                bad("moves", "must be an object of seat: {table, seat} or null", "必须是 座位: {table, seat} 或 null")
            for k, mv in moves.items():
                if mv is not None and not (isinstance(mv, dict) and isinstance(mv.get("table"), str)
                                           and _TEXT_ID.match(mv["table"]) and mv.get("seat") in SEATS):
                    bad("moves.%s" % k, "must be {table, seat} or null", "必须是 {table, seat} 或 null")
            moves = {k: (None if mv is None else {"table": mv["table"], "seat": mv["seat"]}) for k, mv in moves.items()}
        return history_.RoundPlan(spec["round"], spec["group"], None, clean, id=sid, game=self.config.game,
                                  table=self.config.table, boards=boards, moves=moves,
                                  hashes={b: hashes[str(b)] for b in boards})

    def start_round(self, round, round_key):
        """The venue's start for ``round`` (loaded already), with its round key (64 lowercase
        hex); True if it was not started before.

        The round's deals are derived from the key (``deals.deal_from_round_key``) and each
        must have its board's hash from the round spec: otherwise the start is refused
        (``deal_mismatch``, alerted; nothing changes, the table keeps waiting).  The deals are
        logged with the start (a ``round_start`` entry), so a restarted hub has them from its
        log.  A start for a round already started is answered False (the same key again; a key
        that gives other deals is refused as above).

        Its first deal begins once every seat is online and checked in (bot seats count as
        both), or ``grace_seconds`` after this start whatever the seats do.
        """
        rnd = self.book.venue_round(round) if type(round) is int else None
        if rnd is None:
            raise TableError("unknown_round", "round %.40r is not loaded at this table: send its spec first" % (round,),
                             "本桌尚未载入第 %.40r 轮：请先发送该轮安排" % (round,))
        if not isinstance(round_key, str) or not _HEX64.match(round_key):
            raise TableError("bad_round_key", "the start of round %d must carry the round key: 64 lowercase hex digits"
                             % rnd.round, "第 %d 轮的开始指令必须带有轮次密钥：64 位小写十六进制" % rnd.round)
        try:
            kb = bytes.fromhex(round_key)
            records = [deals_.deal_from_round_key(kb, self.config.game, rnd.group, b, round=rnd.round)
                       for b in rnd.boards]
        except deals_.DealError as e:
            raise TableError(e.code, "round %d: %s" % (rnd.round, e.en), "第 %d 轮：%s" % (rnd.round, e.zh)) from None
        bad = rnd.mismatches(records)
        if bad:
            # The venue's key and the venue's spec disagree (a wrong event secret, a spec from
            # another event, a fault): playing would give this table other cards than the rest.
            self._alert("deal_mismatch", round=rnd.round, boards=bad)
            raise TableError("deal_mismatch",
                             "round %d: the start's round key does not give the deals of the round spec (boards %s): "
                             "nothing was started; the venue must send the right key (call the venue's staff)"
                             % (rnd.round, ", ".join(map(str, bad))),
                             "第 %d 轮：开始指令中的轮次密钥与轮次安排的牌局不符（牌号 %s）：未开始；需场地发送正确的密钥"
                             "（请联系场地工作人员）" % (rnd.round, "、".join(map(str, bad))))
        if rnd.started:
            return False
        self._append_control([("round_start", rnd.start_body(records))])  # logged first: a failed write changes nothing
        self.book.set_deals(rnd, records)
        rnd.started = True
        self.plan = self.book.records
        if not self._deal_running():
            now = self.now()
            # The grace period counts from the start (or from the end of the result on show).
            self.deal_due = now if self.deal_due is None else max(self.deal_due, now)
        self._send_state_all()
        self._wake.set()
        return True

    def _park_bot_seats(self):
        """A board whose seat the bot plays now (a 人机赛 round) loses its session: it must
        not show the bot's hand to the room.  Its next hello is refused ``bot_seat``."""
        for seat in SEATS:
            conn = self.seat_conn[seat]
            if conn is not None and self._is_bot(seat):
                self._drop(conn, "the bot plays this seat this round", alert=False)
                self._challenge(conn)

    def replace_device(self, seat, dev, by="referee", reason=""):
        """From now on ``seat`` is played by board ``dev`` (a spare or any board of the
        configuration that plays no other seat); the old board's session ends.  Logged, so it
        survives a restart.  False if ``dev`` already plays ``seat``."""
        if seat not in SEATS:
            raise TableError("bad_seat", "unknown seat %.40r: seats are E, N, W, S" % (seat,),
                             "没有座位 %.40r：座位为 E、N、W、S" % (seat,))
        device = self.config.device(dev) if isinstance(dev, str) else None
        if device is None:
            spares = ", ".join(self.config.spares) or "none"
            raise TableError("unknown_device", "board %.40r is not in this hub's table.toml (spares: %s): add it as "
                             "[devices.<id>] with seat = \"spare\" and restart the hub" % (dev, spares),
                             "设备 %.40r 不在本主机的 table.toml 中（备用板：%s）：请以 seat = \"spare\" 添加后重启主机"
                             % (dev, spares))
        old = self.seat_dev[seat]
        if old == dev:
            return False
        other = self._seat_of(dev)
        if other is not None:
            raise TableError("device_in_use", "board %s plays seat %s now: choose a spare, or replace %s's board first"
                             % (dev, other, other), "设备 %s 正在 %s 座使用：请选备用板，或先更换 %s 座的板"
                             % (dev, SEAT_ZH[other], SEAT_ZH[other]))
        self._append_control([("replace", {"seat": seat, "dev": dev, "old": old, "by": str(by), "reason": str(reason)})])
        self.seat_dev[seat] = dev
        for conn in self.conns:
            if conn.session is not None and conn.dev == old:
                self._drop(conn, "board replaced by %s" % dev, alert=False)
                self._challenge(conn)
        self._wake.set()
        return True

    def _seat_of(self, dev):
        for seat, d in self.seat_dev.items():
            if d == dev:
                return seat
        return None

    def ack_call(self, seat, by="referee"):
        """A referee has seen ``seat``'s call: logged, and the seat is told help is coming."""
        if seat not in SEATS:
            raise TableError("bad_seat", "unknown seat %.40r: seats are E, N, W, S" % (seat,),
                             "没有座位 %.40r：座位为 E、N、W、S" % (seat,))
        self._append_control([("ack_call", {"seat": seat, "by": str(by)})])
        self._send_note(seat, "A referee is on the way", "裁判已收到，请稍候")
        return True

    def note(self, seat, en, zh):
        """Show a referee's message on ``seat`` (None: every seat); logged.  Returns the
        number of seats it reached now (a seat offline misses it)."""
        if seat is not None and seat not in SEATS:
            raise TableError("bad_seat", "unknown seat %.40r: seats are E, N, W, S, or null for all" % (seat,),
                             "没有座位 %.40r：座位为 E、N、W、S，或 null 表示全部" % (seat,))
        for name, text in (("en", en), ("zh", zh)):
            if not isinstance(text, str) or not 1 <= len(text) <= NOTE_MAX or any(ord(c) < 32 for c in text):
                raise TableError("bad_note", "the note's %s text must be 1-%d characters without control characters"
                                 % (name, NOTE_MAX), "通知的 %s 文本必须是 1 到 %d 个字符，且不含控制字符" % (name, NOTE_MAX))
        self._append_control([("note", {"seat": seat, "en": en, "zh": zh})])
        return self._send_note(seat, en, zh)

    def _send_note(self, seat, en, zh):
        sent = 0
        for s in SEATS if seat is None else (seat,):
            conn = self.seat_conn[s]
            if conn is not None:
                self._send(conn, {"t": "note", "en": en, "zh": zh})
                sent += 1
        return sent

    def snapshot(self):
        """The live snapshot the venue shows (venue contract § Live snapshot): public
        information only — never a hand that was not shown.  ``unacked`` is the uplink's."""
        now = self.now()
        rnd = self._active_round()
        g = self.game
        running = self._deal_running()
        in_view = g is not None and self.screen in ("deal", "paused", "result")
        public = g.view(None) if in_view else None
        players = self._players(rnd)
        seats = {}
        for s in SEATS:
            bot = self._is_bot(s, rnd)
            seats[s] = {"online": bot or self.seat_conn[s] is not None, "dev": self.seat_dev[s],
                        "player": players.get(s), "checked": bot or (rnd is not None and (not rnd.venue or s in rnd.checked)),
                        "bot": bot, "cards": public["counts"][s] if public else None}
        plays = []
        if in_view:
            for a in g.actions:
                if a.type == "play":
                    plays.append({"seat": a.seat, "type": "play", "cards": a.to_dict()["cards"]})
                elif a.type == "pass":
                    plays.append({"seat": a.seat, "type": "pass"})
        deals_done = 0
        if rnd is not None and self.deal_index is not None:
            last_done = self.deal_index if (g is not None and g.phase == bigtwo.OVER) else self.deal_index - 1
            deals_done = max(0, min(len(rnd.boards), last_done - rnd.start + 1))
        index = self.deal_index if in_view else None
        return {
            "v": 1, "hub": self.config.hub, "table": self.config.table, "at": self.wall_ms(),
            "round": rnd.round if rnd is not None else None, "group": rnd.group if rnd is not None else None,
            "game": self.config.game, "screen": self.screen,
            "started": bool(rnd is not None and rnd.started),
            "deal": index, "board": self.plan[index].board if index is not None else None,
            "boards": list(rnd.boards) if rnd is not None else [], "deals_done": deals_done,
            "turn": len(g.actions) if running else None, "to_act": list(g.to_act()) if running else [],
            "clock": self._clock_msg(now) if running else None,
            "paused": None if self.paused is None else {"by": self.paused["by"], "reason": self.paused["reason"]},
            "seats": seats, "plays": plays, "shown": dict(public["shown"]) if public else {},
            "unacked": 0,
        }

    # ---- ports -------------------------------------------------------------------------

    async def _port_loop(self, conn):
        while True:
            conn.reader = link.LineReader()  # a new connection starts with an empty line buffer
            try:
                await conn.transport.open(lambda data, c=conn: self._on_data(c, data))
            except TransportError:
                await asyncio.sleep(REOPEN_SECONDS)
                continue
            self._challenge(conn)
            try:
                await conn.transport.closed()
            finally:
                self._drop(conn, "link closed")
                conn.transport.close()
            await asyncio.sleep(REOPEN_SECONDS)

    def _challenge(self, conn, fresh=True):
        if fresh or conn.nonce is None:
            conn.nonce = os.urandom(16).hex()
        conn.send_plain({"t": "challenge", "n": conn.nonce, "hub": self.config.hub, "v": link.VERSION})

    def _drop(self, conn, reason, alert=True):
        """The port's session ends (link lost, silence, replaced); its seat goes offline.
        ``alert=False`` when a referee's or the round's decision ended it (nothing to look at)."""
        seat = conn.seat
        conn.session = None
        conn.seat = None
        dev, conn.dev = conn.dev, None
        if seat is not None and self.seat_conn[seat] is conn and not self._stopping:
            self.seat_conn[seat] = None
            self.absent_since[seat] = self.now()
            self._note([("seat", {"seat": seat, "dev": dev, "port": conn.name, "online": False, "reason": reason})])
            if alert:
                self._offline_alerted.add(seat)
                self._alert("seat_offline", seat=seat, dev=dev, reason=reason)
            self._wake.set()

    def _on_data(self, conn, data):
        for line in conn.reader.feed(data):
            try:
                self._on_line(conn, line)
            except Exception:  # a hub bug; the frame is dropped, the hub carries on
                self.internal_errors += 1
                traceback.print_exc()

    def _count(self, conn, code):
        who = conn.seat or ("port " + conn.name)
        for counts in (self.rejects, self._rejects_unlogged):
            per = counts.setdefault(who, {})
            per[code] = per.get(code, 0) + 1
        # A burst of refused frames (a bad cable, a board with the wrong key, someone probing)
        # is worth a referee's look: one alert per seat or port per window.
        now = self.now()
        recent = conn.refused
        recent.append((now, code))
        while recent and recent[0][0] <= now - BURST_SECONDS:
            recent.popleft()
        if len(recent) >= BURST_COUNT and now - self._burst_at.get(who, -1e9) >= BURST_SECONDS:
            self._burst_at[who] = now
            counts = {}
            for _, c in recent:
                counts[c] = counts.get(c, 0) + 1
            self._alert("reject_burst", seat=conn.seat, dev=conn.dev, port=conn.name, counts=counts,
                        window_s=BURST_SECONDS)

    def _reject(self, conn, err, ref=None, count=True):
        if count:
            self._count(conn, err.code)
        # ``ref`` echoes the refused frame's s when it is a plausible number (it was not
        # authenticated; a 4000-digit "s" must not make the reject itself too long).
        ok = isinstance(ref, int) and not isinstance(ref, bool) and 0 <= ref < 1 << 53
        msg = link.reject_message(err, ref if ok else None)
        if conn.session is not None:
            self._send(conn, msg)
        else:
            conn.send_plain(msg)

    def _on_line(self, conn, line):
        try:
            head = link.peek(line)
        except link.LinkError as e:
            self._reject(conn, e)
            return
        ref = head.get("s")
        if head.get("t") == "hello":
            self._on_hello(conn, line, head)
            return
        if conn.session is None:
            self._reject(conn, link.LinkError("no_session"), ref)
            self._challenge(conn, fresh=False)
            return
        try:
            msg = conn.session.open(line)
        except link.LinkError as e:
            self._reject(conn, e, ref)
            return
        conn.last_rx = self.now()
        t = msg["t"]
        if t == "intent":
            self._on_intent(conn, msg)
        elif t == "resync":
            self._send(conn, self._state_msg(conn.seat))
        elif t == "call":
            self._on_call(conn, msg)
        elif t == "checkin":
            self._on_checkin(conn, msg)
        # "ack" is the heartbeat: last_rx above is all it does

    def _on_hello(self, conn, line, head):
        ref = head.get("s")
        try:
            link.check_message(head, "seat")
        except link.LinkError as e:
            self._reject(conn, e, ref)
            return
        device = self.config.device(head["dev"])
        if device is None:
            self._reject(conn, link.LinkError(
                "unknown_device", "Device %s is not registered at table %s; call a referee" % (head["dev"], self.config.table),
                "设备 %s 未在 %s 号桌登记，请叫裁判" % (head["dev"], self.config.table)), ref)
            return
        if head["hn"] != conn.nonce:
            self._challenge(conn, fresh=False)  # the seat answers an old challenge: show it the current one
            return
        try:
            link.decode(line, device.key)
        except link.LinkError as e:
            self._reject(conn, e, ref)
            return
        seat = self._seat_of(device.id)
        parked = None
        if seat is None and device.seat == "spare":
            parked = ("spare_device", "Spare board %s: it plays no seat until a referee puts it in for another board"
                      % device.id, "备用板 %s：裁判指定替换后才能使用" % device.id)
        elif seat is None:
            parked = ("replaced_device", "Board %s was replaced by a referee; it plays no seat now" % device.id,
                      "设备 %s 已被裁判更换，当前不属于任何座位" % device.id)
        elif self._is_bot(seat):
            parked = ("bot_seat", "The computer plays seat %s this round; this board stays idle"
                      % SEAT_EN[seat], "本轮%s由电脑打，此板暂不使用" % SEAT_ZH[seat])
        if parked is not None:
            # Expected states, not faults: told on every hello, not counted as rejects.
            self._reject(conn, link.LinkError(*parked), ref, count=False)
            return
        now = self.now()
        key = link.session_key(device.key, conn.nonce, head["n"])
        if conn.seat is not None and conn.seat != seat:
            self._drop(conn, "another device on this port")
        old = self.seat_conn[seat]
        if old is not None and old is not conn:
            self._drop(old, "the device reconnected on %s" % conn.name)
            self._challenge(old)
        conn.session = link.Session(key, "seat")
        conn.nonce = os.urandom(16).hex()  # used up: a replayed hello cannot open a second session
        conn.dev = device.id
        conn.seat = seat
        conn.fw = head["fw"]
        conn.board = head["board"]
        conn.last_rx = now
        was_online = self.seat_conn[seat] is conn
        self.seat_conn[seat] = conn
        self.absent_since[seat] = None
        self._note([("seat", {"seat": seat, "dev": device.id, "port": conn.name, "online": True,
                                "reason": "re-handshake" if was_online else "hello", "fw": head["fw"],
                                "board": head["board"]})])
        if seat in self._offline_alerted:
            self._offline_alerted.discard(seat)
            self._alert("seat_online", seat=seat, dev=device.id, port=conn.name)
        self._send(conn, {"t": "welcome", "seat": seat, "table": self.config.table,
                          "event": self.config.event, "lang": device.lang or self.config.lang,
                          "player": self._players().get(seat)})
        self._send(conn, self._state_msg(seat, now))
        self._wake.set()

    def _on_intent(self, conn, msg):
        seat = conn.seat
        g = self.game
        if not self._deal_running():
            self._reject(conn, link.LinkError("no_deal"), msg["s"])
            return
        if self.paused is not None:
            self._reject(conn, link.LinkError("paused"), msg["s"])
            return
        now = self.now()
        current = len(g.actions)
        # The seat's decision was prompted at the clock's turn (the 明牌 clock runs for all four
        # from turn 0, so an answer to turn 0 stays current while others decide); anything
        # older answers a decision that no longer exists.
        low = self.clock.turn if self.clock is not None and seat in self.clock.seats else current
        if not low <= msg["turn"] <= current:
            self._reject(conn, link.LinkError(
                "stale_turn", "Too late: that was turn %d, the game is at turn %d; choose again" % (msg["turn"], current),
                "操作已过时：那是第 %d 步，牌局已到第 %d 步，请重新选择" % (msg["turn"], current)), msg["s"])
            return
        think = self.clock.used_ms(now) if self.clock is not None else None
        try:
            action = bigtwo.Action.from_dict(dict(msg["a"], seat=seat)).with_meta(think_ms=think)
            self._commit(action, "seat", now)  # the engine's apply verifies first and changes nothing if refused
        except (bigtwo.IllegalActionError, TableError) as e:
            self._reject(conn, e, msg["s"])

    def _on_call(self, conn, msg):
        now = self.now()
        if now - conn.calls_at < CALL_INTERVAL:
            self._count(conn, "call_repeat")
            return
        conn.calls_at = now
        body = {"seat": conn.seat, "dev": conn.dev, "why": msg.get("why", ""), "deal": self.deal_index,
                "turn": len(self.game.actions) if self.game is not None else None}
        self._note([("call", body)])
        self._alert("call", **body)

    def _on_checkin(self, conn, msg):
        """A player typed their number on the seat's check-in keypad."""
        seat = conn.seat
        rnd = self._checkin_round()
        if rnd is None:
            self._reject(conn, link.LinkError("no_checkin", "Check-in is not open now (it opens when a round is "
                                                            "seated, before its first deal)", "当前不在签到时间（新一轮开始前签到）"),
                         msg["s"])
            return
        typed = msg["no"]
        player = rnd.player(seat) or {}
        if player.get("no") != typed:
            here = "table %s %s" % (self.config.table, SEAT_EN[seat])
            here_zh = "%s 号桌%s" % (self.config.table, SEAT_ZH[seat])
            other = [s for s in SEATS if s != seat and (rnd.player(s) or {}).get("no") == typed]
            if other:
                en = "Player %d sits at %s of this table this round, not here (%s): please move there" % (
                    typed, SEAT_EN[other[0]], here)
                zh = "%d 号选手本轮坐本桌%s，不是这里（%s）：请换到该座位" % (typed, SEAT_ZH[other[0]], here_zh)
            else:
                en = "Player %d is not seated here (%s) this round: check the seat map, or call a referee" % (typed, here)
                zh = "%d 号选手本轮不在此座位（%s）：请核对座位表，或叫裁判" % (typed, here_zh)
            self._reject(conn, link.LinkError("checkin_wrong", en, zh), msg["s"])
            self._alert("checkin_wrong", seat=seat, dev=conn.dev, typed=typed, round=rnd.round)
            return
        if seat not in rnd.checked:
            body = {"round": rnd.round, "seat": seat, "no": typed, "player": player.get("id"), "dev": conn.dev}
            try:
                self._append([("checkin", body)])
            except Exception as e:
                traceback.print_exc()
                self._alert("log_failed", error=repr(e))
                self._reject(conn, link.LinkError("log_failed", "The table's log cannot be written: call a referee",
                                                  "本桌日志无法写入，请叫裁判"), msg["s"])
                return
            rnd.checked[seat] = body
            self._wake.set()
        self._send(conn, self._state_msg(seat))

    # ---- the scheduler: clocks, 托管, offline seats, next deal ------------------------

    async def _scheduler(self):
        while True:
            self._wake.clear()
            now = self.now()
            try:
                due = self._tick(now)
            except TableError:
                due = now + 1.0  # the log cannot be written: try again shortly (alerted already)
            except Exception as e:  # a hub bug: say so loudly, keep serving the seats
                self.internal_errors += 1
                traceback.print_exc()
                self._alert("hub_error", error=repr(e))
                due = now + 1.0
            timeout = 1.0 if due is None else min(1.0, max(0.0, due - self.now()))
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except asyncio.TimeoutError:
                pass

    def _tick(self, now):
        """Do everything that is due at ``now``; return when something is next due."""
        due = []
        cl = self.config.clocks
        for conn in self.conns:
            if conn.session is not None:
                limit = conn.last_rx + cl.offline_ms / 1000.0
                if now >= limit:
                    self._drop(conn, "silent for %.1f s" % (cl.offline_ms / 1000.0))
                    self._challenge(conn)
                else:
                    due.append(limit)
        if self.deal_due is not None and not self._deal_running():
            self._due_deal(now, due)
        if self._deal_running() and self.paused is None:
            # Clock expiry: the engine's default action for every seat still to decide.
            while self._deal_running() and self.clock.remaining(now) <= 0:
                seat = self.game.to_act()[0]
                index, turn = self.deal_index, len(self.game.actions)
                action = self.game.default_action(seat).with_meta(auto=True, think_ms=self.clock.limit_ms)
                self._commit(action, "clock", now)
                if self.seat_conn[seat] is not None:  # an absent seat is alerted as offline already
                    self._alert("clock_expiry", seat=seat, deal=index, turn=turn)
            # Bot seats (人机赛, demo) decide after bot_think_seconds; 托管: a seat absent for
            # the grace period is played by the bot.
            acted = True
            rnd = self.book.round_at(self.deal_index) if self._deal_running() else None
            while acted and self._deal_running():
                acted = False
                for seat in self.game.to_act():
                    if self._is_bot(seat, rnd):
                        pace = min(self.config.bot_think_ms, self.clock.limit_ms // 2)
                        used = self.clock.used_ms(now)
                        if used >= pace:
                            choice = self.seat_bots[seat].choose(self.game.view(seat), self.game.legal_actions(seat))
                            self._commit(choice.with_meta(think_ms=used), "bot_seat", now)
                            acted = True
                            break
                        due.append(now + (pace - used) / 1000.0)
                        continue
                    since = self.absent_since[seat]
                    if since is None:
                        continue
                    if now >= since + cl.grace_ms / 1000.0:
                        choice = self.bots[seat].choose(self.game.view(seat), self.game.legal_actions(seat))
                        self._commit(choice.with_meta(auto=True, think_ms=self.clock.used_ms(now)), "bot", now)
                        acted = True
                        break
                    due.append(since + cl.grace_ms / 1000.0)
            if self._deal_running():
                due.append(self.clock.deadline())
                if now >= self._next_mark:
                    self._next_mark = now + cl.checkpoint_ms / 1000.0
                    try:
                        self.log.mark_clock(self.clock.seq, self.clock.remaining(now))
                    except Exception as e:  # only crash recovery's precision suffers; say so
                        self._alert("log_failed", error=repr(e))
                due.append(self._next_mark)
        return min(due) if due else None

    def _due_deal(self, now, due):
        """Start the next deal when it is due: after the result's pause, once the seats are
        there (or the grace period has passed); a venue round's first deal also needs the
        venue's start and the players' check-in (the seats show ``checkin`` meanwhile)."""
        index = self._next_index()
        rnd = self.book.round_at(index)
        if rnd is None:  # every planned deal is played
            if now >= self.deal_due:
                self._start_deal(now)
            else:
                due.append(self.deal_due)
            return
        first = rnd.venue and index == rnd.start
        if now < self.deal_due:
            due.append(self.deal_due)
        elif first and self.screen != "checkin":
            self._show("checkin")
        if first and not rnd.started:
            return  # start_round wakes the scheduler
        ready = all(self._is_bot(s, rnd) or (self.seat_conn[s] is not None and (not first or s in rnd.checked))
                    for s in SEATS)
        start_at = self.deal_due if ready else self.deal_due + self.config.clocks.grace_ms / 1000.0
        if now >= start_at:
            self._start_deal(now)
        else:
            due.append(start_at)
