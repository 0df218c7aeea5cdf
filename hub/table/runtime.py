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

Tasks: one per port (open, challenge, read) and one scheduler (clock expiry, 托管, offline
seats, the next deal, clock checkpoints).  :meth:`Table.run` starts them all and cancels them
all; nothing else starts a task.

Clocks are the hub's.  A decision's limit is the engine's ``time_limit()`` (15 s 明牌, 15 s
加倍, 25 s per turn by default) times ``[clock] scale``.  The 明牌 clock is one clock for all
four seats; 加倍 and each play have their own.  At expiry the hub applies the engine's
``default_action`` marked ``auto``.  Think time is measured by the hub: the time the
decision's clock has run when the intent arrives (so pauses and hub downtime never count).
"""

import asyncio
import os
import sys
import time
import traceback

from paizhuo_shared import link

from ..bots.bigtwo import BigTwoBot
from ..errors import CodedError
from ..rules import bigtwo
from . import history as history_
from .eventlog import EventLog
from .transport import SerialTransport, TransportError

__all__ = ["Table", "TableError", "DecisionClock"]

SEATS = bigtwo.SEATS
REOPEN_SECONDS = 0.5  # a port that failed or dropped is tried again this often
CALL_INTERVAL = 2.0  # 叫裁判: a seat's calls closer together than this are counted, not logged again


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

    __slots__ = ("transport", "reader", "nonce", "session", "dev", "seat", "last_rx", "fw", "board", "calls_at")

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
    - ``on_alert(dict)``: called for calls to the referee, seats going offline and log
      failures (the venue uplink hooks in here).
    - ``on_entry(Entry)``: called after every log entry is committed.
    - ``monotonic``: the clock (seconds); ``wall_ms`` the wall time for log entries.
    """

    def __init__(self, config, transports=None, on_alert=None, on_entry=None, monotonic=None, wall_ms=None):
        self.config = config
        self.now = monotonic or time.monotonic
        self.on_alert = on_alert or (lambda alert: None)
        self.on_entry = on_entry or (lambda entry: None)
        if transports is None:
            transports = [SerialTransport(p, config.baudrate) for p in config.ports]
        self.conns = [_Conn(t) for t in transports]
        self.log = EventLog(config.log, config.table, now_ms=wall_ms)
        self.plan = config.deals.records
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
        self.bots = {s: BigTwoBot(seed=i) for i, s in enumerate(SEATS)}
        self.started = asyncio.Event()
        self._wake = asyncio.Event()
        self._next_mark = 0.0
        self._stopping = False
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
        for d in hist.deals:
            if d.index >= len(self.plan) or self.plan[d.index].hash != d.deal_hash:
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
        if self._deal_running():
            return "deal %d of %d (board %s) at turn %d%s" % (
                self.deal_index + 1, len(self.plan), self.plan[self.deal_index].board, len(self.game.actions),
                ", paused" if self.paused is not None else "")
        if self.screen == "result":
            return "deal %d of %d finished, next deal pending" % (self.deal_index + 1, len(self.plan))
        if self.deal_due is not None:
            return "waiting for the seats to start deal 1 of %d" % len(self.plan)
        return "every planned deal is played (%d)" % len(self.plan)

    # ---- the log -----------------------------------------------------------------------

    def _append(self, items):
        written = self.log.append_many(items)
        for e in written:
            try:
                self.on_entry(e)
            except Exception:
                traceback.print_exc()
        return written

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

    def _seatmap(self, seat):
        return {"table": self.config.table, "seat": seat, "player": self.config.player(seat), "next": None}

    def _state_msg(self, seat, now=None):
        g = self.game
        show_view = g is not None and self.screen in ("deal", "paused", "result")
        return {
            "t": "state",
            "screen": self.screen,
            "view": g.view(seat) if show_view else None,
            "turn": len(g.actions) if show_view else None,
            "clock": self._clock_msg(now) if self._deal_running() else None,
            "players": dict(self.config.players),
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

    # ---- deals -------------------------------------------------------------------------

    def _start_deal(self, now):
        index = 0 if self.deal_index is None else self.deal_index + 1
        if index >= len(self.plan):
            self._append([("waiting", {"reason": "every planned deal is played"})])
            self.deal_due = None
            self.screen = "waiting"
            self._send_state_all()
            return
        rec = self.plan[index]
        game = history_.state_class(self.config.game)(rec.to_engine_deal(), self.config.rules)
        limit = self.config.clocks.limit_ms(game.time_limit())
        clock = DecisionClock("show", 0, game.to_act(), limit, limit, now)
        # Logged first: if the write fails nothing has started and the scheduler tries again.
        written = self._append([
            ("deal_start", {"deal": index, "board": rec.board, "deal_hash": rec.hash,
                            "deal_record": rec.to_dict(), "engine": game.record()}),
            ("clock", clock.body(index, now, "start")),
        ])
        clock.seq = written[-1].seq
        self.game = game
        self.deal_index = index
        self.screen = "deal"
        self.last_result = None
        self.deal_due = None
        self.clock = clock
        self._next_mark = now
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
        written = self._append([("pause", body)])  # logged first: a failed write changes nothing
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
        written = self._append([("clock", dict(self.clock.body(self.deal_index, now, "resume"), by=str(by)))])
        self.clock.resume(now)
        self.clock.seq = written[-1].seq
        self.paused = None
        self.screen = "deal"
        self._next_mark = now
        self._send_state_all()
        self._wake.set()
        return True

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

    def _drop(self, conn, reason):
        """The port's session ends (link lost, silence, replaced); its seat goes offline."""
        seat = conn.seat
        conn.session = None
        conn.seat = None
        dev, conn.dev = conn.dev, None
        if seat is not None and self.seat_conn[seat] is conn and not self._stopping:
            self.seat_conn[seat] = None
            self.absent_since[seat] = self.now()
            self._note([("seat", {"seat": seat, "dev": dev, "port": conn.name, "online": False, "reason": reason})])
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

    def _reject(self, conn, err, ref=None):
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
        now = self.now()
        key = link.session_key(device.key, conn.nonce, head["n"])
        if conn.seat is not None and conn.seat != device.seat:
            self._drop(conn, "another device on this port")
        old = self.seat_conn[device.seat]
        if old is not None and old is not conn:
            self._drop(old, "the device reconnected on %s" % conn.name)
            self._challenge(old)
        conn.session = link.Session(key, "seat")
        conn.nonce = os.urandom(16).hex()  # used up: a replayed hello cannot open a second session
        conn.dev = device.id
        conn.seat = device.seat
        conn.fw = head["fw"]
        conn.board = head["board"]
        conn.last_rx = now
        was_online = self.seat_conn[device.seat] is conn
        self.seat_conn[device.seat] = conn
        self.absent_since[device.seat] = None
        self._note([("seat", {"seat": device.seat, "dev": device.id, "port": conn.name, "online": True,
                                "reason": "re-handshake" if was_online else "hello", "fw": head["fw"],
                                "board": head["board"]})])
        self._send(conn, {"t": "welcome", "seat": device.seat, "table": self.config.table,
                          "event": self.config.event, "lang": device.lang or self.config.lang,
                          "player": self.config.player(device.seat)})
        self._send(conn, self._state_msg(device.seat, now))
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
            everyone = all(self.seat_conn[s] is not None for s in SEATS)
            start_at = self.deal_due if everyone else self.deal_due + cl.grace_ms / 1000.0
            if now >= start_at:
                self._start_deal(now)
            else:
                due.append(start_at)
        if self._deal_running() and self.paused is None:
            # Clock expiry: the engine's default action for every seat still to decide.
            while self._deal_running() and self.clock.remaining(now) <= 0:
                seat = self.game.to_act()[0]
                action = self.game.default_action(seat).with_meta(auto=True, think_ms=self.clock.limit_ms)
                self._commit(action, "clock", now)
            # 托管: a seat absent for the grace period is played by the bot.
            acted = True
            while acted and self._deal_running():
                acted = False
                for seat in self.game.to_act():
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
