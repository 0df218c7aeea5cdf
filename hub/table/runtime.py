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

Clocks are the hub's.  A decision's limit is the engine's ``time_limit()`` (the game's
RULES.md timers) times ``[clock] scale``.  In a phase the engine lists as ``SIMULTANEOUS``
(several seats decide at once) one clock runs for all of them; every other decision has its
own.  At expiry the hub applies the engine's ``default_action`` marked ``auto``.  Think time
is measured by the hub: the time the decision's clock has run when the intent arrives (so
pauses and hub downtime never count).

Boards: the venue scores a board, which is one deal or, for a match game, a match of deals
(the registry's ``new_board``).  The hub plays a match deal by deal, each logged like a
one-deal board's deal (``deal_start`` with its number ``n``, actions, clocks) and closed by a
``deal_end``; the board's ``result`` follows its last deal.  A match's later deals derive
from the round key (``deals.deal_from_round_key(..., deal=n)``).
"""

import asyncio
import collections
import copy
import hashlib
import os
import re
import sys
import time
import traceback

from paizhuo_shared import link

from .. import deals as deals_
from .. import rules as rules_
from ..errors import CodedError
from ..inputs import InputError, check_tree
from . import eventlog as eventlog_
from . import history as history_
from .eventlog import EventLog, LogError
from .transport import SerialTransport, TransportError

__all__ = ["Table", "TableError", "DecisionClock"]

REOPEN_SECONDS = 0.5  # a port that failed or dropped is tried again this often
CALL_INTERVAL = 2.0  # 叫裁判: a seat's calls closer together than this are counted, not logged again
BURST_COUNT = 10  # this many refused frames from one seat or port ...
BURST_SECONDS = 10.0  # ... within this window raise one reject_burst alert per window
# Answers to frames outside a session (rejects, and the challenge after no_session) cost a write
# each and anyone on the wire can ask for them: a token bucket per port, this many a second
# after a first burst; the rest are counted, not answered (reported with the reject_burst alert).
PLAIN_REPLY_RATE = 5.0
PLAIN_REPLY_BURST = 10
# Codes of a session frame that anyone on the wire could have sent: refused before its tag
# checked out, or a copy of one already received (replayed from a recording).
_NOT_FROM_THE_SEAT = ("too_long", "not_frame", "bad_tag", "replay")
NOTE_MAX = 200  # characters of a referee's note, per language (a seat frame holds 4096 bytes)
SEAT_EN = {"E": "East", "N": "North", "W": "West", "S": "South"}
SEAT_ZH = {"E": "东家", "N": "北家", "W": "西家", "S": "南家"}
_SPEC_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TEXT_ID = re.compile(r"^[^\x00-\x1f]{1,64}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
# Entries after which the hub keeps its log's head (eventlog.head_path): the ends of deals and of
# hub runs, not every action (that would double the disk writes of a move).
KEEP_HEAD = ("hub_start", "hub_stop", "result", "waiting", "round_start", "log_override")
_SPEC_FIELDS = ("v", "id", "round", "group", "game", "table", "boards", "deal_hashes", "players", "moves", "rules")


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
                 "refused", "reply_tokens", "reply_at", "unanswered")

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
        # (monotonic time, code) of recent rejects: burst detection (capped: a flood must not grow it)
        self.refused = collections.deque(maxlen=BURST_COUNT * 100)
        self.reply_tokens = float(PLAIN_REPLY_BURST)  # answers outside a session (PLAIN_REPLY_RATE)
        self.reply_at = None
        self.unanswered = 0     # frames outside a session not answered since the last reject_burst alert

    @property
    def name(self):
        return self.transport.name

    def send(self, msg):
        """Seal ``msg`` in this port's session and queue it; False if there is no session or
        the transport dropped the frame (the seat is not reading what was queued before)."""
        if self.session is None:
            return False
        return self.transport.write(self.session.seal(msg)) is not False

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
    - ``override_log``: a referee's reason to start on a log that fails its start-up check
      (a broken chain, or shorter than the head the hub kept); it is logged with the findings.
    """

    def __init__(self, config, transports=None, on_alert=None, on_entry=None, monotonic=None, wall_ms=None,
                 on_change=None, override_log=None):
        self.config = config
        self.override_log = override_log
        self.head_file = eventlog_.head_path(config.log)
        self.now = monotonic or time.monotonic
        self.wall_ms = wall_ms or (lambda: int(time.time() * 1000))
        self.on_alert = on_alert or (lambda alert: None)
        self.on_entry = on_entry or (lambda entry: None)
        # The configured game, from the one registry: its engine, bot and seats (never named here).
        self.game_of = rules_.game(config.game)
        self.engine = self.game_of.engine
        self.seats = self.game_of.seats
        self.on_change = on_change or (lambda: None)
        if transports is None:
            transports = [SerialTransport(p, config.baudrate) for p in config.ports]
        self.conns = [_Conn(t) for t in transports]
        self.log = EventLog(config.log, config.table, now_ms=wall_ms)
        recs = config.deals.records
        base = None
        if recs:  # the configuration's [deals]: a round that needs no venue start and no check-in
            base = history_.RoundPlan(recs[0].round, recs[0].group, recs, config.players, venue=False,
                                      game=config.game, table=config.table, key=config.deals.key)
        self.book = history_.Plan(base)
        self.plan = self.book.records
        # Which board plays which seat: the configuration's, changed by a referee's replace.
        self.seat_dev = {s: None for s in self.seats}
        for d in config.devices.values():
            if d.seat in self.seat_dev:
                self.seat_dev[d.seat] = d.id
        self.game = None  # the engine of the current (or last) deal
        self._phases = None  # (deal, the phase each of its actions was made in): see _action_phases
        self.board = None  # the board (registry's new_board) the current (or last) deal belongs to
        self.deal_index = None  # the plan index of that board
        self.deal_n = None  # the deal's number in its board (a match game's board has several)
        self.deal_rec = None  # the DealRecord of that deal
        self.clock = None
        self.board_ms = 0  # a timed board's elapsed time (ms) up to board_t0 ...
        self.board_t0 = None  # ... and the monotonic time it runs from; None: not running
        self.paused = None  # the pause body while the referee holds the table
        self.ended = {}  # plan index -> board_end body: boards a referee ended unplayed (a forfeit)
        self.screen = "waiting"
        self.last_result = None
        self.board_scores = {}  # plan index -> the logged board result's scores: the seats' round totals
        self.deal_due = None  # (monotonic) when the next deal may start; None: none planned
        self.seat_conn = {s: None for s in self.seats}
        self.absent_since = {s: self.now() for s in self.seats}
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
        self._kept = None  # (seq, hash) last written to head_file by this process
        self._checked = False  # the log passed its start-up check (or a referee overrode it)
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

    def _check_log(self):
        """Refuse a log that is damaged, broken or shorter than the head this hub kept — unless a
        referee overrides, which is logged (reason and findings) before anything else."""
        problems = self.log.problems()
        try:
            kept = eventlog_.read_head(self.head_file)
        except LogError as e:
            problems.append((e.en, e.zh))
            kept = None
        if kept is not None:
            short = eventlog_.check_head(self.log.db, kept["table"], kept["seq"], kept["hash"],
                                         "published (the hub's kept head %s)" % self.head_file,
                                         "发布（主机保存的链头 %s）" % self.head_file)
            if short is not None:
                problems.append(short)
        if not problems:
            self._checked = True
            return
        log = self.config.log
        if not self.override_log:
            raise TableError(
                "log_refused",
                "the log %s cannot be trusted, so the hub does not start: %s. Nothing was changed. Keep the log and %s "
                "for the referee and check it with: paizhuo hub verify --log %s (with --anchor and the venue's "
                "anchors). To play on with this log anyway, a referee starts the hub with --override-log \"reason\" "
                "(the override is logged); or give a new file in [table] log"
                % (log, "; ".join(en for en, zh in problems), self.head_file, log),
                "日志 %s 不可信，主机不启动：%s。未做任何改动。请保留该日志和 %s 交给裁判，并用 paizhuo hub verify --log %s"
                "（加 --anchor 与场馆的锚点文件）检查。若仍要用此日志继续，须由裁判以 --override-log \"原因\" 启动主机"
                "（该操作会记入日志）；或在 [table] log 中换新文件"
                % (log, "；".join(zh for en, zh in problems), self.head_file, log))
        self._checked = True
        self._append([("log_override", {"reason": str(self.override_log), "by": "referee",
                                        "problems": [en for en, zh in problems], "kept": kept})])

    def keep_head(self):
        """Keep the log's head beside it (:func:`~paizhuo.table.eventlog.write_head`) before
        anything names it outside; only once the start-up check has passed."""
        if not self._checked:  # e.g. the uplink's rescan before the start: a cut log must not be kept
            return
        if self._kept == (self.log.last_seq, self.log.last_hash):
            return
        try:
            eventlog_.write_head(self.head_file, self.config.hub, self.log.table_id, self.log.last_seq,
                                 self.log.last_hash)
            self._kept = (self.log.last_seq, self.log.last_hash)
        except OSError as e:  # the log itself is fine: say it, keep serving
            self._alert("log_failed", error="cannot keep the log head in %s: %s" % (self.head_file, e))

    def _restore(self):
        """Resume from the log: the deal in progress at its turn with its remaining clock."""
        self._check_log()
        try:
            entries = self.log.entries()
            hist = history_.TableHistory.from_entries(entries)
        except history_.HistoryError as e:
            raise TableError("log_broken", "the log %s does not replay (%s): run paizhuo hub verify --log on it, "
                             "keep it for the referee and give a new file in [table] log" % (self.config.log, e.en),
                             "日志 %s 无法重放（%s）：请用 paizhuo hub verify 检查并保留给裁判，并在 [table] log 中换新文件"
                             % (self.config.log, e.zh)) from None
        for e in entries:
            self._note_scores(e)
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
        self.ended = dict(hist.ended)
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
        self.absent_since = {s: now for s in self.seats}  # the grace period runs from the hub's start
        cur = hist.current
        items = [("hub_start", {"hub": self.config.hub, "config": self.config.digest,
                                "resumed": None if cur is None else cur.index, "pid": os.getpid()})]
        if cur is not None and cur.game.phase == self.engine.OVER and not cur.ended:
            # The deal's last action is logged but not its end (an end cut off, started on a
            # referee's override): the end follows from the actions, so log it now.
            self.deal_index, self.deal_n = cur.index, cur.n
            self.deal_rec = deals_.DealRecord.from_dict(cur.parts[-1][0])
            self.board = cur.match
            self._restore_board_time(cur, now)
            trial, ends = self._end_items(cur.match, cur.game, now)
            items += ends
            cur.match, cur.ended = trial, True
            cur.deal_result = ends[0][1]["result"]
            if trial.over:
                cur.result = ends[-1][1]
        if cur is not None and cur.finished:
            cur = None
        if cur is not None:
            self.game = cur.game
            self.board = cur.match
            self.deal_index = cur.index
            self.deal_n = cur.n
            self.deal_rec = deals_.DealRecord.from_dict(cur.parts[-1][0])
            self._restore_board_time(cur, now)
        if cur is not None and not cur.ended:
            self.screen = "deal"
            key = self._decision_key()
            limit = self._limit_ms()
            turn = len(self.game.actions)
            remaining = limit
            if cur.clock is not None and self._continues(cur.clock, self.game):
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
                items.append(("clock", self._timed(self.clock.body(self.deal_index, now, "restart"), now)))
        elif cur is not None:  # between two deals of a match: the last deal's result, then the next deal
            self.last_result = cur.deal_result
            self.screen = "result"
            self.deal_due = now + self.config.clocks.next_deal_ms / 1000.0
        elif hist.deals:
            last = hist.deals[-1]
            self.game = last.game
            self.board = last.match
            self.deal_index = last.index
            self.deal_n = last.n
            self.last_result = last.result["result"] if last.result is not None else None
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

    def _restore_board_time(self, cur, now):
        """A timed board's elapsed time as the log has it: the last logged ``board_ms``, plus
        what the decision clock's checkpoint says ran after it (so a killed hub loses at most
        one checkpoint interval); the time the hub was down does not count."""
        if self._board_limit() is None:
            return
        ms = cur.board_ms or 0
        mark = self.log.clock_mark()
        clock = cur.clock
        if (cur.paused is None and not cur.ended and clock is not None and cur.board_ms_seq == clock["seq"]
                and mark is not None and mark[0] == clock["seq"]):
            ms += max(0, clock["remaining_ms"] - mark[2])
        self.board_ms = ms
        self.board_t0 = None if cur.paused is not None or self.board.over else now

    # ---- a timed board (a match's time limit) -------------------------------------------

    def _board_limit(self, board=None):
        """The board's time limit in ms (its ``time_limit_ms()``, e.g. a match's minutes, times
        ``[clock] scale`` like every clock of the game), or None."""
        board = self.board if board is None else board
        limit = getattr(board, "time_limit_ms", None)
        limit = None if limit is None else limit()
        return None if limit is None else self.config.clocks.limit_ms(limit / 1000.0)

    def _board_elapsed(self, now):
        if self.board_t0 is None:
            return self.board_ms
        return self.board_ms + int(round((now - self.board_t0) * 1000))

    def _board_running(self, now, run):
        """Stop (pause, the board's end) or start counting the board's time."""
        self.board_ms = self._board_elapsed(now)
        self.board_t0 = now if run else None

    def _timed(self, body, now, board=None):
        """``body`` with the board's elapsed time (``board_ms``) when the board is timed: the log
        keeps it, so a restarted hub goes on with the same remaining time."""
        if self._board_limit(board) is not None:
            body["board_ms"] = self._board_elapsed(now)
        return body

    def _progress(self, now=None):
        """The board's ``progress()`` and, for a timed board, the time it has left."""
        p = self.board.progress()
        ended = self.ended.get(self.deal_index)
        if ended is not None:  # the seats and the venue see who ended it and why
            p["forfeited"] = {"by": ended["by"], "reason": ended["reason"]}
        limit = self._board_limit()
        if limit is not None:
            p["time_left_ms"] = max(0, limit - self._board_elapsed(self.now() if now is None else now))
        return p

    def _check_time(self, now, due):
        """Tell a timed board its time is up (logged first); until then, wake when it will be."""
        limit = self._board_limit()
        if limit is None or self.board_t0 is None or self.board.over or self.board.progress().get("time_up"):
            return
        left = limit - self._board_elapsed(now)
        if left > 0:
            due.append(now + left / 1000.0)
            return
        trial = copy.deepcopy(self.board)  # the board changes once the log has it
        trial.time_up()
        items = [("time_up", self._timed({"deal": self.deal_index, "n": self.deal_n, "limit_ms": limit}, now))]
        if trial.over:  # between deals: the match ends now (no tie-break deal is due)
            items.append(("result", self._result_body(trial)))
        self._append_control(items)
        self.board.time_up()
        if self.board.over:
            self._board_running(now, False)
        self._send_state_all()

    def describe(self):
        """One line for staff: where the table stands."""
        rnd = self._active_round()
        if not self._deal_running() and rnd is not None and self._pending(rnd) and self.screen != "result":
            checked = sum(1 for s in self.seats if s in rnd.checked or self._is_bot(s, rnd))
            return "round %d: %s, %d of %d seats checked in" % (
                rnd.round, "started" if rnd.started else "waiting for the venue's start", checked, len(self.seats))
        if self._deal_running():
            return "deal %d of %d (board %s%s) at turn %d%s" % (
                self.deal_index + 1, len(self.plan), self.plan[self.deal_index].board,
                ", deal %d of its match" % self.deal_n if self.board.multi else "", len(self.game.actions),
                ", paused" if self.paused is not None else "")
        if self.screen == "result":
            return "deal %d of %d finished, next deal pending" % (self.deal_index + 1, len(self.plan))
        if self.deal_due is not None and self.plan:
            return "waiting for the seats to start deal %d of %d" % (self._next_index() + 1, len(self.plan))
        if self.config.venue is not None and not self.plan:
            return "waiting for the venue's first round"
        return "every planned deal is played (%d)" % len(self.plan)

    # ---- the log -----------------------------------------------------------------------

    def _append(self, items, changed=True):
        """Log ``items`` in one transaction; ``changed``: tell ``on_change`` (the live snapshot)
        afterwards (not for a step that changed nothing public: its timing would tell)."""
        written = self.log.append_many(items)
        if any(kind in KEEP_HEAD for kind, body in items):
            self.keep_head()
        for e in written:
            self._note_scores(e)
            try:
                self.on_entry(e)
            except Exception:
                traceback.print_exc()
        if changed:
            self._changed()
        return written

    def _note_scores(self, e):
        """Keep a logged board result's scores (by plan index) for the seats' round totals."""
        if e.kind == "result" and isinstance(e.body.get("result"), dict):
            self.board_scores[e.body.get("deal")] = e.body["result"].get("scores") or {}

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
        return self._key_of(self.game, self.board, self.deal_n)

    def _key_of(self, g, board, n):
        """The decision a deal ``g`` (deal ``n`` of ``board``) waits for: one clock runs per key."""
        if g is None or g.phase == self.engine.OVER:
            return None
        if g.phase in self.engine.SIMULTANEOUS:  # e.g. 明牌, 进贡: the seats decide at once, on one clock
            key = g.phase
        else:
            key = "t%d" % len(g.actions)
        if board.multi:  # a match's deals each have their own decisions
            key = "%d:%s" % (n, key)
        return key

    def _continues(self, clock, g):
        """Is the decision deal ``g`` waits for the one ``clock`` (a clock's logged body: ``key``,
        ``turn``, ``seats``) runs for?  A decision of one seat is its turn (the key says it).  A
        simultaneous one goes on while every seat still to decide is a seat of that clock that
        has not decided since it started: the same phase may follow itself at once as a new
        decision (nobody took the card out and the next one is out), which needs a new clock."""
        if clock.get("key") != self._key_of(g, self.board, self.deal_n):
            return False
        if g.phase not in self.engine.SIMULTANEOUS:
            return True
        since = [a.seat for a in g.actions[clock.get("turn") or 0:]]
        seats = clock.get("seats") or ()
        return len(set(since)) == len(since) and all(s in seats and s not in since for s in g.to_act())

    def _limit_ms(self):
        return self.config.clocks.limit_ms(self.game.time_limit())

    def _deal_running(self):
        return self.game is not None and self.game.phase != self.engine.OVER and self.screen in ("deal", "paused")

    def _clock_msg(self, now=None, view=None):
        """The clock as a viewer whose ``view`` it is may see it: the seats it runs for, as far
        as the view shows who is to act (a game may hide who else decides at once)."""
        if self.clock is None or not self._deal_running():
            return {"seats": [], "ms": 0, "paused": self.paused is not None}
        now = self.now() if now is None else now
        acting = self.game.to_act()
        if view is not None:
            acting = [s for s in acting if s in view.get("to_act", acting)]
        return {"seats": [s for s in self.clock.seats if s in acting], "ms": self.clock.remaining(now),
                "paused": self.clock.paused}

    def _told_turn(self, g, public=None):
        """The turn the seats and the snapshot are told: the number of actions, except in a
        simultaneous decision whose seats the game hides (its public view does not show who is
        to act), where it is the turn the decision was prompted at: counting the answers would
        tell who was asked.  ``public``: ``g.view(None)``, when the caller has it."""
        if self.clock is None or not self._hides_seats(g, public):
            return len(g.actions)
        return self.clock.turn

    def _hides_seats(self, g, public=None):
        """Does deal ``g`` decide now in a simultaneous decision whose seats it hides (its public
        view, ``public`` when the caller has it, does not show who is to act)?"""
        if g.phase not in self.engine.SIMULTANEOUS:
            return False
        acting = list(g.to_act())
        public = g.view(None) if public is None else public
        return list(public.get("to_act", acting)) != acting

    def _players(self, rnd=None):
        """Who sits where now: the active round's players (the configuration's without rounds)."""
        rnd = rnd or self._active_round()
        return dict(rnd.players) if rnd is not None else dict(self.config.players)

    def _seatmap(self, seat):
        rnd = self._active_round()
        m = {"table": self.config.table, "seat": seat, "player": self._players(rnd).get(seat), "next": None}
        if self.plan and not self._deal_running() and self.screen == "waiting" and self._next_index() >= len(self.plan):
            m["done"] = True  # every board of the plan is played: the seat says the round is over here
        if rnd is not None and rnd.venue:
            m["checked"] = seat in rnd.checked
            if self._pending(rnd):  # until the round's first deal: where this seat's last player goes
                m["next"] = (rnd.moves or {}).get(seat)
        # issue #12: the seat's running total this round, the sum of its logged board scores
        scored = [sc.get(seat) for i, sc in self.board_scores.items()
                  if isinstance(i, int) and (rnd is None or rnd.covers(i))]
        if scored:
            m["total"] = sum(x for x in scored if isinstance(x, int))
        return m

    def _state_msg(self, seat, now=None):
        g = self.game
        show_view = g is not None and self.screen in ("deal", "paused", "result")
        view = g.view(seat) if show_view else None
        msg = {
            "t": "state",
            "screen": self.screen,
            "view": view,
            "turn": self._told_turn(g) if show_view else None,
            "clock": self._clock_msg(now, view) if self._deal_running() else None,
            "players": self._players(),
            "result": self.last_result if self.screen == "result" else None,
            "seatmap": self._seatmap(seat),
        }
        if self.board is not None and self.board.multi:
            msg["match"] = self._progress(now)  # levels, the deal number, time left: shown between deals too
        return msg

    def _send(self, conn, msg):
        try:
            sent = conn.send(msg)
        except link.LinkError as e:  # a frame over MAX_FRAME is a hub bug: say so, keep going
            print("paizhuo hub: cannot send %s to %s: %s" % (msg.get("t"), conn.name, e.en), file=sys.stderr)
            return
        if not sent and conn.session is not None:
            # The seat stopped reading and its queue is full: this frame is lost, so the
            # session cannot go on.  It ends here (the seat goes offline, 托管 may step in);
            # once the seat reads again its frames get no_session, and the new handshake
            # brings it a full state.  Nothing more is queued for it meanwhile.
            self._drop(conn, "not reading (output backed up)")

    def _broadcast(self, make, seats=None):
        for seat in self.seats if seats is None else seats:
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
        """The plan index of the next deal: the same board while its match goes on; boards a
        referee ended unplayed are skipped."""
        if self.deal_index is None:
            index = 0
        else:
            index = self.deal_index if self._match_goes_on() else self.deal_index + 1
        while index in self.ended:
            index += 1
        return index

    def _match_goes_on(self):
        """The last deal ended and its board (a match) has more deals to play."""
        return (self.board is not None and not self.board.over and not self._deal_running()
                and self.deal_index not in self.ended)

    def _deal_of(self, index, n):
        """The DealRecord of deal ``n`` of the board at plan ``index``: deal 1 is the plan's; a
        match's later deals derive from the round key (a hand-made first deal has none: then
        from a key made of its hash, so a test or demo match still plays on reproducibly)."""
        first = self.plan[index]
        if n == 1:
            return first
        rnd = self.book.round_at(index)
        key = rnd.key if rnd is not None and rnd.key is not None else hashlib.sha256(
            ("paizhuo-hand-made-board|" + first.hash).encode()).digest()
        return deals_.deal_from_round_key(key, first.game, first.group, first.board, round=first.round, deal=n)

    def _rules_for(self, rnd):
        """The rules a round is played under: the venue's (its spec's ``rules``), else table.toml's."""
        if rnd is not None and rnd.rules is not None:
            return self.engine.Rules.from_dict(rnd.rules)
        return self.config.rules

    def _bots(self, deal_hash):
        """The bots of a deal, one per seat: for 托管 (its best play, always) and for bot seats
        (``[seats] bot_whim`` of offhand choices).  Seeded by the hub, the deal and the seat, so
        the same cards at another table meet other choices; a replay of this table's log is
        unaffected (the log holds every move a bot made)."""
        takeover, seated = {}, {}
        for seat in self.seats:
            digest = hashlib.sha256(("%s|%s|%s" % (self.config.hub, deal_hash, seat)).encode()).digest()
            seed = int.from_bytes(digest[:8], "big")
            takeover[seat] = self.game_of.new_bot(seed=seed)
            seated[seat] = self.game_of.new_bot(seed=seed, whim=self.config.bot_whim)
        return takeover, seated

    def _start_deal(self, now):
        index = self._next_index()
        if index >= len(self.plan):
            self._append([("waiting", {"reason": "every planned deal is played" if self.plan
                                       else "no deals yet: waiting for the venue's round"})])
            self.deal_due = None
            self._show("waiting")
            return
        rnd = self.book.round_at(index)
        if self._match_goes_on():  # the next deal of the match: a copy until the log has it
            board = copy.deepcopy(self.board)
            n = board.number
        else:
            board = self.game_of.new_board(self._rules_for(rnd))
            n = 1
            self.board_ms, self.board_t0 = 0, now  # a new board's time runs from its first deal's start
        rec = self._deal_of(index, n)
        game = board.start(rec.to_engine_deal())
        limit = self.config.clocks.limit_ms(game.time_limit())
        body = {"deal": index, "board": rec.board, "deal_hash": rec.hash, "deal_record": rec.to_dict(),
                "engine": game.record()}
        if board.multi:
            body["n"] = n
        items = [("deal_start", self._timed(body, now, board))]
        if rnd.venue and index == rnd.start and n == 1:
            # The grace period after the start passed: a connected seat that did not check in
            # plays anyway, and the referee can see that it did.
            unchecked = [s for s in self.seats if not self._is_bot(s, rnd) and s not in rnd.checked
                         and self.seat_conn[s] is not None]
            if unchecked:
                items.append(("unchecked", {"round": rnd.round, "seats": unchecked}))
        clock = DecisionClock(self._key_of(game, board, n), 0, game.to_act(), limit, limit, now)
        items.append(("clock", self._timed(clock.body(index, now, "start"), now, board)))
        # Logged first: if the write fails nothing has started and the scheduler tries again.
        written = self._append(items)
        clock.seq = written[-1].seq
        self.bots, self.seat_bots = self._bots(rec.hash)
        self.game, self.board, self.deal_n, self.deal_rec = game, board, n, rec
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
        phase = g.phase
        events = g.apply(action)  # in memory only until the log has it
        if self._phases is not None and self._phases[0] is g and len(self._phases[1]) == turn:
            self._phases[1].append(phase)
        items = [("action", {"deal": index, "turn": turn, "action": action.to_dict(), "by": by})]
        new_clock = None
        result = None
        board = self.board
        if g.phase == self.engine.OVER:
            board, ends = self._end_items(self.board, g, now)
            items += ends
            result = ends[0][1]["result"]  # the deal's (a one-deal board's result is its deal's)
        else:
            key = self._decision_key()
            if self.clock is None or not self._continues(self.clock.body(index, now, ""), g):
                limit = self._limit_ms()
                new_clock = DecisionClock(key, turn + 1, g.to_act(), limit, limit, now)
                items.append(("clock", self._timed(new_clock.body(index, now, "start"), now)))
        try:
            # an answer with no public event (who else is asked stays hidden) changes no snapshot
            written = self._append(items, changed=bool(events) or new_clock is not None or result is not None)
        except Exception as e:
            # Nothing was announced: put the engine back to what the log holds and refuse.
            record = g.record()
            record["actions"] = record["actions"][:-1]
            self.game = type(g).from_record(record)
            self.board.current = self.game  # the board (not finished: that was a copy) plays on with it
            traceback.print_exc()
            self._alert("log_failed", error=str(e))
            raise TableError("log_failed", "The table's log cannot be written: call a referee",
                             "本桌日志无法写入，请叫裁判") from None
        if new_clock is not None:
            new_clock.seq = written[-1].seq
            self.clock = new_clock
            self._next_mark = now
        turn_now = self._told_turn(g)

        def told(seat):
            view = g.view(seat)
            return {"t": "event", "events": events, "view": view, "turn": turn_now, "clock": self._clock_msg(now, view)}
        # An action with no public event (one seat's answer in a decision whose seats are hidden)
        # is told to its own seat only: the others would learn that someone was asked.
        self._broadcast(told, None if events else (action.seat,))
        if result is not None:
            self.board = board
            self.clock = None
            self.screen = "result"
            self.last_result = result
            if board.over:
                self._board_running(now, False)
            msg = {"t": "result", "result": result}
            if board.multi:
                msg["match"] = self._progress(now)
            self._broadcast(lambda seat: msg)
            self._broadcast(lambda seat: {"t": "seatmap", "seatmap": self._seatmap(seat)})  # its round total
            self._log_rejects()
            self.deal_due = now + self.config.clocks.next_deal_ms / 1000.0
        self._wake.set()

    def _end_items(self, board, g, now=None):
        """The log entries of the end of deal ``g`` (over) of ``board``, and the board after it
        (a copy: ``board`` itself changes only once the log has them).  A match's deal ends
        with a ``deal_end``; the board's end adds its ``result`` (what the venue scores)."""
        trial = copy.deepcopy(board)
        res = trial.finish(trial.current)
        index, rec = self.deal_index, self.deal_rec
        items = []
        if trial.multi:
            items.append(("deal_end", self._timed({"deal": index, "n": self.deal_n, "board": rec.board,
                                                   "deal_hash": rec.hash, "result": res, "progress": trial.progress()},
                                                  self.now() if now is None else now, trial)))
        if trial.over:
            items.append(("result", self._result_body(trial)))
        return trial, items

    def _result_body(self, board):
        """The ``result`` entry of ``board`` (over), the board at ``deal_index``."""
        first = self.plan[self.deal_index]
        body = {"deal": self.deal_index, "board": first.board, "deal_hash": first.hash, "result": board.result(),
                "actions": sum(len(d["actions"]) for d in board.deals)}
        if board.multi:
            body["record"] = board.record()
        return body

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
        body = self._timed({"deal": self.deal_index, "key": self.clock.key, "remaining_ms": self.clock.remaining(now),
                            "by": str(by), "reason": str(reason)}, now)
        written = self._append_control([("pause", body)])  # logged first: a failed write changes nothing
        self.clock.pause(now)
        self._board_running(now, False)  # paused time does not count towards a match's time limit
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
        written = self._append_control([("clock", self._timed(dict(self.clock.body(self.deal_index, now, "resume"),
                                                                   by=str(by)), now))])
        self.clock.resume(now)
        if self._board_limit() is not None:
            self._board_running(now, True)
        self.clock.seq = written[-1].seq
        self.paused = None
        self.screen = "deal"
        self._next_mark = now
        self._send_state_all()
        self._wake.set()
        return True

    def end_board(self, round, by="referee", reason=""):
        """A referee forfeited venue round ``round``'s match (弃权): its boards not finished end
        here unplayed — the one in progress stops where it is, none of them starts later, and
        no result follows (the venue scored the forfeit).  Logged first (``board_end``); the
        seats are told why.  False if every board of the round is finished already."""
        rnd = self.book.venue_round(round)
        if rnd is None:
            raise TableError("unknown_round", "round %r was never loaded at this table: nothing to end" % (round,),
                             "本桌从未载入第 %r 轮：无可结束的比赛" % (round,))
        todo = [i for i in range(rnd.start, rnd.start + len(rnd.boards)) if i not in self.ended and not (
            self.deal_index is not None and (i < self.deal_index or (i == self.deal_index and self.board.over)))]
        if not todo:
            return False
        now = self.now()
        body = {"round": rnd.round, "deals": todo, "by": str(by), "reason": str(reason)}
        here = self.deal_index in todo
        if here and self.game is not None:
            body.update(n=self.deal_n, turn=len(self.game.actions))
        self._append_control([("board_end", self._timed(body, now) if here else body)])
        for i in todo:
            self.ended[i] = body
        if here:
            self.clock, self.paused = None, None
            self._board_running(now, False)
            self.last_result = None
            self.screen = "waiting"
            self.deal_due = now  # on to what comes next (the next round's check-in, or waiting)
        short = str(reason)[:NOTE_MAX - 60]
        self._send_note(None, "The referee ended this match: forfeit (%s)" % short, "裁判已判本场比赛弃权（%s）" % short)
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
        if not isinstance(players, dict) or sorted(players) != sorted(self.seats):
            bad("players", "must name the player of each seat %s" % ", ".join(self.seats),
                "必须给出 %s 每个座位的选手" % "、".join(self.seats))
        clean = {}
        for seat in self.seats:
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
            if not isinstance(moves, dict) or not all(k in self.seats for k in moves):
                bad("moves", "must be an object of seat: {table, seat} or null", "必须是 座位: {table, seat} 或 null")
            for k, mv in moves.items():
                if mv is not None and not (isinstance(mv, dict) and isinstance(mv.get("table"), str)
                                           and _TEXT_ID.match(mv["table"]) and mv.get("seat") in self.seats):
                    bad("moves.%s" % k, "must be {table, seat} or null", "必须是 {table, seat} 或 null")
            moves = {k: (None if mv is None else {"table": mv["table"], "seat": mv["seat"]}) for k, mv in moves.items()}
        rules = spec.get("rules")
        if rules is not None:  # the venue's rules for the round: the engine's options, every one checked
            try:
                rules = self.engine.Rules.from_dict(rules).to_dict()
            except (ValueError, TypeError) as e:
                bad("rules", "are not %s's rule options: %s" % (self.config.game, getattr(e, "en", None) or e),
                    "不是 %s 的规则选项：%s" % (self.config.game, getattr(e, "zh", None) or e))
        return history_.RoundPlan(spec["round"], spec["group"], None, clean, id=sid, game=self.config.game,
                                  table=self.config.table, boards=boards, moves=moves,
                                  hashes={b: hashes[str(b)] for b in boards}, rules=rules)

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
        # Logged first: a failed write changes nothing.  A match game keeps the key: its later deals need it.
        self._append_control([("round_start", rnd.start_body(records, kb if self.game_of.match else None))])
        if self.game_of.match:
            rnd.key = kb
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
        for seat in self.seats:
            conn = self.seat_conn[seat]
            if conn is not None and self._is_bot(seat):
                self._drop(conn, "the bot plays this seat this round", alert=False)
                self._challenge(conn)

    def replace_device(self, seat, dev, by="referee", reason=""):
        """From now on ``seat`` is played by board ``dev`` (a spare or any board of the
        configuration that plays no other seat); the old board's session ends.  Logged, so it
        survives a restart.  False if ``dev`` already plays ``seat``."""
        if seat not in self.seats:
            raise TableError("bad_seat", "unknown seat %.40r: seats are %s" % (seat, ", ".join(self.seats)),
                             "没有座位 %.40r：座位为 %s" % (seat, "、".join(self.seats)))
        device = self.config.device(dev) if isinstance(dev, str) else None
        if device is None and isinstance(dev, str):
            device = self._learn_spare(dev)
        if device is None:
            spares = ", ".join(self.config.spares) or "none"
            raise TableError("unknown_device", "board %.40r is not in this hub's table.toml (spares: %s): provision it "
                             "(paizhuo provision board --dev <id> --seat spare --out seat.json), add the printed block "
                             "to table.toml and replace again; the hub reads new spares without a restart" % (dev, spares),
                             "设备 %.40r 不在本主机的 table.toml 中（备用板：%s）：请先配置此板（paizhuo provision board --dev "
                             "<编号> --seat spare --out seat.json），把打印的配置块加入 table.toml 后再替换；主机无需重启即可"
                             "读到新的备用板" % (dev, spares))
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

    def _learn_spare(self, dev):
        """A spare provisioned while the hub runs: read table.toml again and take device ``dev``
        if it is there as a spare with a key of its own; nothing else of the file changes here."""
        from . import config as config_
        try:
            fresh = config_.load(self.config.path)
        except config_.ConfigError as e:
            raise TableError(e.code, "table.toml cannot be read again for the new spare: %s" % e,
                             "无法重新读取 table.toml 以加入新的备用板：%s" % e.zh) from None
        device = fresh.device(dev)
        if device is None or device.seat != config_.SPARE:
            return None
        if any(d.key == device.key for d in self.config.devices.values()):
            raise TableError("key_twice", "board %s has the key of another board in table.toml: provision it again"
                             % dev, "设备 %s 与 table.toml 中另一块板的密钥相同：请重新配置此板" % dev)
        self.config.devices[dev] = device
        return device

    def _seat_of(self, dev):
        for seat, d in self.seat_dev.items():
            if d == dev:
                return seat
        return None

    def ack_call(self, seat, by="referee"):
        """A referee has seen ``seat``'s call: logged, and the seat is told help is coming."""
        if seat not in self.seats:
            raise TableError("bad_seat", "unknown seat %.40r: seats are %s" % (seat, ", ".join(self.seats)),
                             "没有座位 %.40r：座位为 %s" % (seat, "、".join(self.seats)))
        self._append_control([("ack_call", {"seat": seat, "by": str(by)})])
        self._send_note(seat, "A referee is on the way", "裁判已收到，请稍候")
        return True

    def note(self, seat, en, zh):
        """Show a referee's message on ``seat`` (None: every seat); logged.  Returns the
        number of seats it reached now (a seat offline misses it)."""
        if seat is not None and seat not in self.seats:
            raise TableError("bad_seat", "unknown seat %.40r: seats are %s, or null for all" % (seat, ", ".join(self.seats)),
                             "没有座位 %.40r：座位为 %s，或 null 表示全部" % (seat, "、".join(self.seats)))
        for name, text in (("en", en), ("zh", zh)):
            if not isinstance(text, str) or not 1 <= len(text) <= NOTE_MAX or any(ord(c) < 32 for c in text):
                raise TableError("bad_note", "the note's %s text must be 1-%d characters without control characters"
                                 % (name, NOTE_MAX), "通知的 %s 文本必须是 1 到 %d 个字符，且不含控制字符" % (name, NOTE_MAX))
        self._append_control([("note", {"seat": seat, "en": en, "zh": zh})])
        return self._send_note(seat, en, zh)

    def _send_note(self, seat, en, zh):
        sent = 0
        for s in self.seats if seat is None else (seat,):
            conn = self.seat_conn[s]
            if conn is not None:
                self._send(conn, {"t": "note", "en": en, "zh": zh})
                sent += 1
        return sent

    def snapshot(self):
        """The live snapshot the venue and its referees see (venue contract § Live snapshot):
        never a hand that was not shown.  It lists every play of the board in progress, which
        other tables of the group may still be playing, so it is not for the public: the broker
        lets only the venue read it (docs/venue.md § What is public when).  ``unacked`` is the
        uplink's."""
        now = self.now()
        rnd = self._active_round()
        g = self.game
        running = self._deal_running()
        in_view = g is not None and self.screen in ("deal", "paused", "result")
        public = g.view(None) if in_view else None
        shown = public.get("shown") if public else None  # 明牌: the hands shown, by seat (a turned-up card is not)
        players = self._players(rnd)
        seats = {}
        for s in self.seats:
            bot = self._is_bot(s, rnd)
            seats[s] = {"online": bot or self.seat_conn[s] is not None, "dev": self.seat_dev[s],
                        "player": players.get(s), "checked": bot or (rnd is not None and (not rnd.venue or s in rnd.checked)),
                        "bot": bot, "cards": (public.get("counts") or {}).get(s) if public else None}
        plays = []
        if in_view:
            phases = self._action_phases(g)
            for a, phase in zip(g.actions, phases):
                if phase in self.engine.SIMULTANEOUS:
                    continue  # answers decided at once are told by the engine's own view (明牌: shown)
                if a.type == "play":
                    plays.append({"seat": a.seat, "type": "play", "cards": a.to_dict()["cards"]})
                elif a.type == "pass":
                    plays.append({"seat": a.seat, "type": "pass"})
        deals_done = 0
        if rnd is not None and self.deal_index is not None:
            over = self.board is not None and (self.board.over or self.deal_index in self.ended)
            last_done = self.deal_index if over else self.deal_index - 1
            deals_done = max(0, min(len(rnd.boards), last_done - rnd.start + 1))
        index = self.deal_index if in_view else None
        snap = {
            "v": 1, "hub": self.config.hub, "table": self.config.table, "at": self.wall_ms(),
            "round": rnd.round if rnd is not None else None, "group": rnd.group if rnd is not None else None,
            "game": self.config.game, "screen": self.screen,
            "started": bool(rnd is not None and rnd.started),
            "deal": index, "board": self.plan[index].board if index is not None else None,
            "boards": list(rnd.boards) if rnd is not None else [], "deals_done": deals_done,
            "turn": self._told_turn(g, public) if running else None,
            "to_act": list(public.get("to_act", g.to_act())) if running else [],
            "clock": self._clock_msg(now, public) if running else None,
            "paused": None if self.paused is None else {"by": self.paused["by"], "reason": self.paused["reason"]},
            "seats": seats, "plays": plays, "shown": dict(shown) if isinstance(shown, dict) else {},
            "unacked": 0,
        }
        if self.board is not None and self.board.multi:
            snap["match"] = self._progress(now)  # levels, the deal number, the match time left
        return snap

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
            unanswered, conn.unanswered = conn.unanswered, 0
            self._alert("reject_burst", seat=conn.seat, dev=conn.dev, port=conn.name, counts=counts,
                        window_s=BURST_SECONDS, unanswered=unanswered)

    def _may_answer(self, conn):
        """May the hub answer one more frame outside a session on this port (its token bucket)?"""
        now = self.now()
        if conn.reply_at is not None:
            conn.reply_tokens = min(float(PLAIN_REPLY_BURST),
                                    conn.reply_tokens + (now - conn.reply_at) * PLAIN_REPLY_RATE)
        conn.reply_at = now
        if conn.reply_tokens >= 1.0:
            conn.reply_tokens -= 1.0
            return True
        conn.unanswered += 1
        return False

    def _reject(self, conn, err, ref=None, count=True):
        """Refuse a frame (counted unless ``count`` is false); True if an answer went out (outside
        a session the port's token bucket may hold it back)."""
        if count:
            self._count(conn, err.code)
        # ``ref`` echoes the refused frame's s when it is a plausible number (it was not
        # authenticated; a 4000-digit "s" must not make the reject itself too long).
        ok = isinstance(ref, int) and not isinstance(ref, bool) and 0 <= ref < 1 << 53
        msg = link.reject_message(err, ref if ok else None)
        if conn.session is not None:
            self._send(conn, msg)
        elif not count or self._may_answer(conn):   # uncounted: a board's own hello (its tag checked out)
            conn.send_plain(msg)
        else:
            return False
        return True

    def _unauthenticated(self, conn, err, ref=None):
        """A frame that could not be authenticated (junk, a bad tag, a replay, a hello that is
        not the board's).  In a session it is counted (reject bursts are alerted) and dropped without
        an answer: a stranger's bytes must not end, reset or even touch a good session, and
        the seat would take a sealed reject for its own.  Outside a session it is rejected."""
        if conn.session is None:
            self._reject(conn, err, ref)
        else:
            self._count(conn, err.code)

    def _on_line(self, conn, line):
        try:
            head = link.peek(line)
        except link.LinkError as e:
            self._unauthenticated(conn, e)
            return
        ref = head.get("s")
        if head.get("t") == "hello":
            self._on_hello(conn, line, head)
            return
        if conn.session is None:
            if self._reject(conn, link.LinkError("no_session"), ref):   # answered: with the challenge too
                self._challenge(conn, fresh=False)
            return
        try:
            msg = conn.session.open(line)
        except link.LinkError as e:
            if e.code in _NOT_FROM_THE_SEAT:
                self._unauthenticated(conn, e)
            else:  # a fresh frame whose tag checked out: the seat itself sent it
                self._reject(conn, e, ref)
            return
        try:
            # Text from a seat ends up in alerts, logs and the console: no NUL, no lone surrogates.
            # The hub checks it (not shared/link.py: the board's heap has no room for the code).
            check_tree(msg, "seat frame")
        except InputError as e:
            self._reject(conn, link.LinkError("bad_message", "Malformed message: " + e.en, "消息格式不正确：" + e.zh), ref)
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
        elif t == "describe":
            self._on_describe(conn, msg)
        # "ack" is the heartbeat: last_rx above is all it does

    def _on_describe(self, conn, msg):
        """The seat's pre-check (docs/protocol.md, "Pre-check"): the legal meanings of its
        selection now, from the engine's game-neutral ``describe(seat, cards)`` hook; none
        for a game without it, a stale turn or no deal.  Changes nothing, logs nothing."""
        g = self.game
        hook = getattr(g, "describe", None)
        meanings = []
        if hook is not None and self._deal_running() and msg["turn"] == len(g.actions):
            meanings = list(hook(conn.seat, msg["cards"]))[:link.MAX_CARDS]
        self._send(conn, {"t": "meanings", "turn": msg["turn"], "cards": msg["cards"], "meanings": meanings})

    def _on_hello(self, conn, line, head):
        ref = head.get("s")
        try:
            link.check_message(head, "seat")
        except link.LinkError as e:
            self._unauthenticated(conn, e, ref)
            return
        device = self.config.device(head["dev"])
        if device is None:
            self._unauthenticated(conn, link.LinkError(
                "unknown_device", "Device %s is not registered at table %s; call a referee" % (head["dev"], self.config.table),
                "设备 %s 未在 %s 号桌登记，请叫裁判" % (head["dev"], self.config.table)), ref)
            return
        # The tag first: only the board itself may make the hub answer (a new challenge to a
        # live session's port would send the seat into a new handshake).
        try:
            link.decode(line, device.key)
        except link.LinkError as e:
            self._unauthenticated(conn, e, ref)
            return
        if head["hn"] != conn.nonce:
            self._challenge(conn, fresh=False)  # the seat answers an old challenge: show it the current one
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
            told = self._told_turn(g)  # as the seat was told it (hidden answers are not counted)
            self._reject(conn, link.LinkError(
                "stale_turn", "Too late: that was turn %d, the game is at turn %d; choose again" % (msg["turn"], told),
                "操作已过时：那是第 %d 步，牌局已到第 %d 步，请重新选择" % (msg["turn"], told)), msg["s"])
            return
        think = self.clock.used_ms(now) if self.clock is not None else None
        try:
            action = self.engine.Action.from_dict(dict(msg["a"], seat=seat)).with_meta(think_ms=think)
            self._commit(action, "seat", now)  # the engine's apply verifies first and changes nothing if refused
        except (self.engine.IllegalActionError, TableError) as e:
            self._reject(conn, e, msg["s"])

    def _on_call(self, conn, msg):
        now = self.now()
        if now - conn.calls_at < CALL_INTERVAL:
            self._count(conn, "call_repeat")
            return
        conn.calls_at = now
        body = {"seat": conn.seat, "dev": conn.dev, "why": msg.get("why", ""), "deal": self.deal_index,
                "turn": self._told_turn(self.game) if self.game is not None else None}
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
            other = [s for s in self.seats if s != seat and (rnd.player(s) or {}).get("no") == typed]
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
            # Not asyncio.wait_for: on Python 3.11 it swallows a cancel that arrives as _wake is set
            # (start_round sets it just before a stop), and the hub then never stops.
            try:
                async with asyncio.timeout(timeout):
                    await asyncio.sleep(0)   # always yield between ticks: _wake may already be set
                    await self._wake.wait()
            except TimeoutError:
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
        if self.board is not None and self.paused is None:
            self._check_time(now, due)
        if self.deal_due is not None and not self._deal_running():
            self._due_deal(now, due)
        if self._deal_running() and self.paused is None:
            # Clock expiry: the engine's default action for every seat still to decide.
            while self._deal_running() and self.clock.remaining(now) <= 0:
                seat = self.game.to_act()[0]
                index, turn = self.deal_index, len(self.game.actions)
                # a decision whose seats the game hides (who may claim) is not alerted: the alert
                # would name who was asked, and letting such a clock run out is an answer
                hidden = self._hides_seats(self.game)
                action = self.game.default_action(seat).with_meta(auto=True, think_ms=self.clock.limit_ms)
                self._commit(action, "clock", now)
                if self.seat_conn[seat] is not None and not hidden:  # an absent seat is alerted as offline already
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
                            choice = self._bot_choice(self.seat_bots[seat], seat)
                            self._commit(choice.with_meta(think_ms=used), "bot_seat", now)
                            acted = True
                            break
                        due.append(now + (pace - used) / 1000.0)
                        continue
                    since = self.absent_since[seat]
                    if since is None:
                        continue
                    if now >= since + cl.grace_ms / 1000.0:
                        choice = self._bot_choice(self.bots[seat], seat)
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

    def _action_phases(self, g):
        """The phase each action of deal ``g`` was made in, kept as the deal goes (``_commit``)
        and replayed from its record when the deal is new to it (a restart, a log refusal)."""
        cached = self._phases
        if cached is None or cached[0] is not g or len(cached[1]) != len(g.actions):
            record = g.record()
            trial = type(g).from_record(dict(record, actions=[]))
            phases = []
            for a in g.actions:
                phases.append(trial.phase)
                trial.apply(a)
            self._phases = cached = (g, phases)
        return cached[1]

    def _bot_choice(self, bot, seat):
        """The bot's action for ``seat``; the legal actions are listed only for a bot that reads
        them (a complete listing with wild cards is the costliest thing a move can ask)."""
        legal = self.game.legal_actions(seat) if getattr(bot, "needs_legal", True) else None
        return bot.choose(self.game.view(seat), legal)

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
        first = rnd.venue and index == rnd.start and not self._match_goes_on()
        if now < self.deal_due:
            due.append(self.deal_due)
        elif first and self.screen != "checkin":
            self._show("checkin")
        if first and not rnd.started:
            return  # start_round wakes the scheduler
        ready = all(self._is_bot(s, rnd) or (self.seat_conn[s] is not None and (not first or s in rnd.checked))
                    for s in self.seats)
        start_at = self.deal_due if ready else self.deal_due + self.config.clocks.grace_ms / 1000.0
        if now >= start_at:
            self._start_deal(now)
        else:
            due.append(start_at)
