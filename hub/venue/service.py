"""The venue service: hubs report over MQTT, the venue scores and seats the field, referees act.

:class:`Venue` is the in-process API.  ``paizhuo venue`` runs it with a broker and the web
pages (``hub/venue/web.py`` codes against this class only)::

    venue = Venue(event_config, store, link)   # link: paizhuo.mqtt.client.MqttClient, not started
    await venue.run(stop)                      # until stop (an asyncio.Event) is set

What it does, in order (docs/venue.md tells it for staff and referees):

1. **Restore** everything from the store (a restarted venue loses nothing): the event and its
   players, the rounds seated so far, their specs, which deals each table has finished.
2. **Seat** round 1 by the seeded draw (:func:`paizhuo.venue.movement.seat_round`), register
   every board's deal hash (:mod:`paizhuo.deals`, from the event secret), and publish
   each table's **round spec** (retained, ``venue/round/<hub>``): players, boards and each
   board's deal hash — never the round key, so no deal can be derived before its round.
3. **Start** the round: a referee calls :meth:`Venue.start_round`, or with ``auto_start`` the
   venue does as soon as every hub of the round reports (live snapshot) that it has loaded it.
   The ``start`` op carries the round key; the hub derives the deals and checks them against
   the spec's hashes.  A hub that shows the round loaded but not started (it restarted, the
   start was lost) gets the start again.
4. **Results** (``hub/<hub>/result``): checked (wire format, the hub's own table, a round and
   board it was given, one row per seat), stored idempotently with the message's outbox
   cursor in one transaction, then acknowledged (``venue/ack/<hub>``: the highest contiguous n).
   The venue trusts no hub's arithmetic: it replays the record through the game's engine from
   its own copy of the deal (:mod:`paizhuo.venue.verify`) and counts the result only when the
   deal, every action and every figure agree.  Otherwise every row of the deal is stored but
   **held** out of the standings with its reason (code, English, Chinese) and an alert of that
   kind: ``deal_hash_mismatch``, ``round_not_started``, ``player_mismatch`` (the seats are not
   the spec's), ``record_deal_mismatch``, ``illegal_action``, ``bad_record``,
   ``unfinished_record``, ``score_mismatch``, ``row_mismatch``, ``result_mismatch``.  A
   message's ``chain`` (the head of the hub's event log) is kept with it and as the hub's
   anchor (:meth:`Venue.anchors`).
5. **Standings** are recomputed in the background, coalesced (a burst of results costs one
   recompute); bots are never ranked.  Two sets: the referees' (:meth:`Venue.standings`, every
   counted result) and the **public** ones (:meth:`Venue.public_standings`, published on
   ``venue/standings``, retained, and on the public web pages), scored from the boards every
   table of their group has finished (or a referee closed, :meth:`Venue.close_board`) only: a
   board's scores, MP and places must not reach a table still playing it.  The public table
   feed (``venue/tables``, retained; :meth:`Venue.public_tables`) says per table whether it is
   online, in play or waiting and how many boards it has finished — never which board or card.
6. When every table has every board, the round is **complete**: it is closed, a standings
   snapshot is saved, the **hand records** are published (``venue/records/<round>``), and the
   next round is seated from the standings (with ``moves``: where each seat's previous player
   goes).  If results of the round are held, the venue waits for the referees (a release, or
   starting the next round anyway).  After the last round, :attr:`Venue.finished` is set.

Every message from the broker is hostile until checked (:mod:`paizhuo.mqtt.wire`): malformed
JSON, unknown topics, unknown hubs or tables, wrong types are refused, kept in the store's
refusal log (:meth:`Venue.refusals`) and change nothing else.  Outbox messages (results and
alerts) that can be identified (epoch, n) are acknowledged even when refused: resending them
would not help, and they stay in the store.

Referee actions (:meth:`Venue.pause`, :meth:`Venue.resume`, :meth:`Venue.ack_alert`,
:meth:`Venue.replace`, :meth:`Venue.note`, :meth:`Venue.adjust`, :meth:`Venue.release`,
:meth:`Venue.start_round`, :meth:`Venue.close_board`) write a ``<action>_requested`` line to the audit log **first**, then
act; a refusal writes ``<action>_refused`` (with the code) and raises :class:`VenueError`; an
operation a hub carries out writes ``<action>_reply`` with the hub's answer.

Example (no broker needed to seat a round; ``link`` may be any object with ``publish`` and
``subscribe`` until :meth:`run` starts it)::

>>> from paizhuo.venue.event import load_text, EXAMPLE
>>> from paizhuo.venue.store import Store
>>> class Recorder:
...     def __init__(self): self.sent = []
...     def publish(self, topic, payload, qos=1, retain=False): self.sent.append((topic, retain))
...     def subscribe(self, topic, qos=1): pass
>>> venue = Venue(load_text(EXAMPLE, "event.toml", base="/tmp"), Store(":memory:"), Recorder())
>>> venue.restore(); venue.round
1
>>> sorted(venue.spec_of("T01")["players"]), venue.spec_of("T01")["boards"]
(['E', 'N', 'S', 'W'], [1, 2, 3, 4])
>>> [row["table"] for row in venue.glance()]
['1', '2']
"""

import asyncio
import json
import logging
import re
import time
import uuid

from ..errors import CodedError
from ..mqtt import wire
from .. import deals as deals_
from . import matches as matches_
from . import matchplay
from . import adjust as adjust_
from . import console as console_
from . import movement
from . import records as records_
from . import scoring
from . import verify as verify_
from .event import BOT_PREFIX
from .store import StoreError

__all__ = ["Venue", "VenueError", "STANDINGS_DELAY", "REPLY_TIMEOUT"]

log = logging.getLogger("paizhuo.venue")

STANDINGS_DELAY = 0.05   # s: results arriving within this window share one recompute
REPLY_TIMEOUT = 10.0     # s: how long a referee action waits for the hub's reply
START_RESEND = 5.0       # s: a hub that shows the round loaded but not started gets the start again
CONTROL_RESEND = START_RESEND  # s: a control a hub has not answered goes again when it is seen, at most this often
REFUSALS_PER_MINUTE = 100  # per sender: more are counted, not stored (a flood must not fill the disk)
SUBSCRIBER_QUEUE = 1000  # pending notifications per subscriber; a slow one misses some, never blocks us
TABLES_DELAY = 0.25      # s: table changes within this window share one venue/tables message
BOT_NAME = "电脑 Bot"
RESENT_OPS = ("end_board",)  # controls sent until the hub answers (the others wait for their reply on the spot)
_EPOCH = re.compile(r"[0-9a-f]{16}")  # an outbox file's epoch (docs/protocol.md)


class VenueError(CodedError):
    """A request the venue refuses; nothing was changed (the audit log says it was asked).

    Codes: ``unknown_table``, ``unknown_alert``, ``unknown_round``,
    ``no_who`` (an action without a referee's name), ``no_reason``, ``bad_request`` (a field
    is wrong), ``hub_offline``, ``no_reply`` (the hub did not answer in time), ``not_ready``
    (the round before is not complete), ``round_over``, ``not_finished`` (hand records of a
    round still being played), ``wrong_event`` (the store holds another event); the store's
    codes for results (``not_found``, ``no_reason``, ``no_change``, ``bad_state``,
    ``seat_taken``, ``bad_row``); or the code a hub replied with (``no_deal``,
    ``unknown_device``, ``bad_control``, ...).
    """


def _now_ms():
    return int(time.time() * 1000)


def _loop_running():
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


_META = ("event", "name", "round", "complete", "results", "updated_at", "rounds", "round_started", "round_closed")
_LINE = ("player", "name", "no", "rank", "R", "playoff", "decided_by", "deals", "firsts", "mp")


def _line(p):
    """A full standings entry cut to its summary line."""
    return {k: p.get(k) for k in _LINE}


def _board_key(row):
    """(round, group, board) of a scoring row or result (the single group is group 1)."""
    return row["round"], int(row["group"] or 1), row["board"]


class _Public:
    """The public standings: scored from the rows of public boards only (``rows``: the rows
    they were scored from, so an unchanged set is not scored again)."""

    __slots__ = ("rows", "scored", "summary", "full", "results", "updated_at")

    def __init__(self):
        self.rows = None
        self.scored = self.summary = self.full = None
        self.results = 0
        self.updated_at = None


class _Round:
    """What the venue knows of one seated round."""

    __slots__ = ("number", "specs", "tables", "started", "closed", "done", "waiting_alert", "_expected")

    def __init__(self, number):
        self.number = number
        self.specs = {}          # hub → spec (as published)
        self.tables = {}         # table → hub
        self.started = False
        self.closed = False
        self.done = set()        # (table, board) with a stored result
        self.waiting_alert = False
        self._expected = None

    def add_spec(self, hub, spec):
        self.specs[hub] = spec
        self.tables[spec["table"]] = hub
        self._expected = None

    def expected(self):
        """(table, board) results the round needs (cached: it is asked after every result)."""
        if self._expected is None:
            self._expected = sum(len(s["boards"]) for s in self.specs.values())
        return self._expected

    def complete(self):
        return bool(self.specs) and len(self.done) >= self.expected()


class Venue:
    """The venue service of one event.

    ``config``: :class:`paizhuo.venue.event.EventConfig`; ``store``:
    :class:`paizhuo.venue.store.Store` (used from the event loop's thread only); ``link``:
    :class:`paizhuo.mqtt.client.MqttClient`, not started — :meth:`run` sets its
    ``on_message``/``on_connect``, subscribes, starts it and stops it on the way out.

    ``wall_ms``: the clock of ``last_seen`` and ``updated_at`` (ms; tests pass their own);
    ``reply_timeout``: seconds a referee action waits for the hub; ``standings_delay``: the
    coalescing window of the standings recompute.

    Attributes: ``event_id``, ``event_name``, ``game``, ``seats``, ``round`` (the round
    seated last, 0 before :meth:`restore`), ``finished`` (an :class:`asyncio.Event` set after
    the last round is complete), ``recomputes`` (standings computed so far).
    """

    def __init__(self, config, store, link, *, wall_ms=None, reply_timeout=REPLY_TIMEOUT,
                 standings_delay=STANDINGS_DELAY):
        self.config = config
        self.store = store
        self.link = link
        self.event_id = config.id
        self.event_name = config.name
        self.game = config.game
        self.seats = tuple(config.seats)
        self.round = 0
        self.finished = asyncio.Event()
        self.recomputes = 0
        self.reply_timeout = reply_timeout
        self.standings_delay = standings_delay
        self._wall_ms = wall_ms or _now_ms
        self._rounds = {}
        self._hashes = {}             # (round, group, board) → deal hash
        self._deals = {}              # (round, group, board, deal n) → DealRecord, for replaying results (made on first use)
        self._live = {}               # hub → (snapshot, venue ms when received)
        self._online = {}             # hub → bool (last status)
        self._subs = set()
        self._pending = {}            # control id → Future of the hub's reply
        self._start_sent = {}         # (round, hub) → (control id, monotonic time sent)
        self._unanswered = {}         # control id → [hub, body, monotonic time sent]: sent until the hub answers
        self._scored = None           # the last scoring.Standings (None: nothing scored since the start)
        self._summary = None          # its one-line-per-player form (standings_summary())
        self._full = None             # its full dict (standings()), made when first asked for
        self._meta = {"results": 0, "updated_at": None}
        self._standings_error = None
        self._public = _Public()
        self._closed_boards = set()   # (round, group, board) a referee made public (close_board)
        self._tables_sent = None      # the last venue/tables body published (without "at")
        self._tables_timer = None
        self._dirty = asyncio.Event()
        self._lock = asyncio.Lock()   # one recompute / round change at a time
        self._refusal_window = {}     # sender → [window start, stored, suppressed]
        self._tasks = []
        self._completing = set()
        self._starting = set()
        self._spec_refused = set()  # ids of round specs a hub refused (alerted once)
        self._replaying = {}        # (hub, epoch, n) → the task replaying a match result
        self._restored = False
        self._hubs = {t.hub: t.table for t in config.tables}
        self._players = {p.id: p for p in config.players}
        self._bots = {p.id for p in config.players if p.bot}
        # A match event (the engine's board is a match): sides are paired, matches scored by 场分.
        self._match = config.matches
        self._sides = {s.id: s for s in config.sides}
        self._side_of = {p: s.id for s in config.sides for p in s.players}
        self._levels = {}             # (round, table) → the replayed final levels of its match
        self._slots = {}              # round → its matches (matchplay.Slot), read from the seating

    # ---- start-up -------------------------------------------------------------------------

    def restore(self):
        """Load the event from the store (creating it on first use) and seat round 1 if nothing
        is seated yet.  Raises :class:`VenueError` ``wrong_event`` when the store holds this
        event id with another name, game or secret (use the event.toml the store was made
        with, or another store path)."""
        ev = self.event_id
        try:
            self.store.add_event(ev, self.event_name, self.game, secret=self.config.secret_text())
            for p in self.config.players:
                self.store.add_player(ev, p.id, p.name, side=self._side_of.get(p.id))
        except StoreError as e:
            if e.code != "conflict":
                raise
            raise VenueError("wrong_event", "the store %s already holds event %r with other details (%s): start the venue "
                             "with the event.toml it was made with, or give [store] path a new file"
                             % (self.store.path, ev, e.en),
                             "数据库 %s 中的赛事 %r 与配置不同（%s）：请使用创建它时的 event.toml，或为 [store] path 指定新文件"
                             % (self.store.path, ev, e.zh)) from None
        for b in self.store.boards(ev):
            self._hashes[(b["round"], int(b["group"] or 1), b["board"])] = b["deal_hash"]
        for row in self.store.round_specs(ev):
            self._rounds.setdefault(row["round"], _Round(row["round"])).add_spec(row["hub"], row["spec"])
        for r in self.store.rounds(ev):
            if r["round"] in self._rounds:
                self._rounds[r["round"]].started = r["started_at"] is not None
                self._rounds[r["round"]].closed = r["status"] == "closed"
        for p in self.store.plays(ev):
            if p["round"] in self._rounds:
                self._rounds[p["round"]].done.add((p["table"], p["board"]))
        for c in self.store.controls(ev):
            if c["op"] == "start":
                self._start_sent[(c["body"].get("round"), c["hub"])] = (c["id"], 0.0)
            elif c["op"] in RESENT_OPS and c["reply"] is None:
                self._unanswered[c["id"]] = [c["hub"], c["body"], 0.0]
        for hub, st in self.store.hub_status(ev).items():
            self._online[hub] = st["online"]
        snap = self.store.latest_standings(ev)
        if snap is not None:  # what the last round was closed with, until the first recompute
            self._full = {k: v for k, v in snap["data"].items() if k not in _META}
            self._summary = dict(self._full, players=[_line(p) for p in self._full["players"]])
            self._meta.update({k: snap["data"][k] for k in ("results", "updated_at") if k in snap["data"]})
            # Saved when a round closed, so every board in it was public then.
            self._public.full, self._public.summary = self._full, self._summary
            self._public.results, self._public.updated_at = self._meta["results"], self._meta["updated_at"]
        for m in self.store.matches(ev):  # a forfeited match: its tables have nothing more to report
            self._forfeit_done(m)
        for a in self.store.audit_log(ev):
            if a["action"] == "close_board":
                d = a["detail"]
                self._closed_boards.add((d["round"], d["group"], d["board"]))
        self.round = max(self._rounds, default=0)
        if self.round == 0:
            self._seat(1)
        elif not self._seated(self.round):
            self._seat(self.round)  # stopped while seating: finish it (a stored seating or spec is kept)
        if self._rounds[self.round].closed:
            if self.round < self.config.rounds:
                self._seat_next(self.round + 1)  # stopped between closing a round and seating the next
            else:
                self.finished.set()
        self._restored = True

    async def run(self, stop=None, on_started=None):
        """Serve until ``stop`` is set: restore, subscribe, start the link, keep the standings
        current, finish rounds and seat the next ones.  ``on_started(venue)`` is called once
        the venue is restored and its link started."""
        stop = stop or asyncio.Event()
        if not self._restored:
            self.restore()
        self.link.on_message = self.handle
        self.link.on_connect = self._link_up
        self.link.subscribe(wire.hub_filter(self.event_id), 1)
        self._tasks = [asyncio.ensure_future(self._standings_loop())]
        await self.link.start()
        self._dirty.set()
        self._check_complete(self.round)
        if on_started is not None:
            on_started(self)
        try:
            await stop.wait()
        finally:
            await self.replays_done()  # nothing half-handled: a replay in hand is stored before the link stops
            for t in self._tasks:
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for fut in self._pending.values():
                if not fut.done():
                    fut.cancel()
            await self.link.stop()

    def _link_up(self):
        """After every (re)connect: the retained state again (a broker restarted without
        persistence has lost it) and the acknowledgement of every hub cursor."""
        for rd in self._rounds.values():
            if rd.number == self.round:
                self._publish_specs(rd)
        if self._summary is not None:
            self._publish_standings()
        self._publish_tables(force=True)
        for r, rd in sorted(self._rounds.items()):
            if rd.closed:
                self._publish_records(r)
        for c in self.store.cursors(self.event_id):  # a hub ignores the acks of its earlier outbox files
            self._ack(c["hub"], c["epoch"], c["upto"])

    # ---- publishing --------------------------------------------------------------------------

    def _pub(self, topic, msg, retain=False, qos=1):
        try:
            self.link.publish(topic, wire.dumps(msg), qos=qos, retain=retain)
        except CodedError as e:
            log.error("cannot publish %s: %s", topic, e.en)

    def _ack(self, hub, epoch, upto):
        # QoS 0: an acknowledgement is idempotent and a lost one costs a resend, which is
        # acknowledged again.  At QoS 1 each ack waits in paho's in-flight list, and paho reads
        # as many packets per wake-up as that list is long: under a burst of results the acks
        # piled up behind the reads, reached the hubs seconds late and set off their resends
        # (tests/bench/bench_ingest.py measured it).
        if upto > 0:
            self._pub(wire.venue_topic(self.event_id, "ack", hub), {"v": 1, "epoch": epoch, "upto": upto}, qos=0)

    def _publish_specs(self, rd):
        for hub, spec in sorted(rd.specs.items()):
            self._pub(wire.venue_topic(self.event_id, "round", hub), spec, retain=True)

    def _publish_standings(self):
        self._pub(wire.venue_topic(self.event_id, "standings"), self._standings_for_wire(), retain=True)

    def _publish_tables(self, force=False):
        """``venue/tables`` (retained) when the public table feed changed (or ``force``)."""
        self._tables_timer = None
        body = {"round": self.round, "tables": self.public_tables()}
        if body != self._tables_sent or force:
            changed = body != self._tables_sent
            self._tables_sent = body
            self._pub(wire.venue_topic(self.event_id, "tables"), dict(body, v=1, at=self._wall_ms()), retain=True)
            if changed:     # at most every TABLES_DELAY: the public page's stream follows this, not each snapshot
                self._notify({"type": "tables"})

    def _schedule_tables(self):
        if self._tables_timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:    # seating before run(): _link_up publishes the feed
            return
        self._tables_timer = loop.call_later(TABLES_DELAY, self._publish_tables)

    def _publish_records(self, rnd):
        self._pub(wire.records_topic(self.event_id, rnd), records_.for_wire(self.records(rnd)), retain=True)

    # ---- subscribers ---------------------------------------------------------------------------

    def subscribe(self):
        """A queue of change notices for a live page: ``{"type": "table", "table": "7"}``,
        ``{"type": "standings"}`` (the public standings changed), ``{"type": "scores"}`` (the
        referees' standings were recomputed), ``{"type": "tables"}`` (the public table feed changed),
        ``{"type": "alert"}``, ``{"type": "audit"}``,
        ``{"type": "round", "round": n}``.  A notice says what to fetch again, it carries no
        data.  A subscriber that falls more than 1,000 notices behind misses some (it should
        refetch everything); call :meth:`unsubscribe` when done."""
        q = asyncio.Queue(SUBSCRIBER_QUEUE)
        self._subs.add(q)
        return q

    def unsubscribe(self, queue):
        """Stop notices to ``queue`` (from :meth:`subscribe`)."""
        self._subs.discard(queue)

    def _notify(self, notice):
        if notice.get("type") in ("table", "round"):
            self._schedule_tables()
        for q in list(self._subs):
            try:
                q.put_nowait(notice)
            except asyncio.QueueFull:
                pass

    # ---- the wire: every message from the broker -------------------------------------------------

    def handle(self, topic, payload):
        """Take one message from the broker (the link's ``on_message``).  Never raises: a
        refused message is logged in the store's refusal log."""
        try:
            self._handle(topic, payload)
        except Exception:  # a bug must not take the link down; the message stays unacknowledged
            log.exception("venue: message on %s could not be handled", topic)

    def _handle(self, topic, payload):
        try:
            t = wire.parse_topic(self.event_id, topic)
        except wire.WireError as e:
            return self._refuse(None, topic, payload, e)
        if t.side != "hub":
            return self._refuse(None, topic, payload, wire.WireError(
                "unknown_topic", "venue topics are the venue's own; a client published on %s" % topic,
                "venue 主题只能由场地发布；有客户端在 %s 发布" % topic))
        hub = t.hub
        if t.leaf in ("result", "alert"):
            return self._outbox(t.leaf, hub, topic, payload)
        try:
            _, msg = wire.check(self.event_id, topic, payload)
            if t.leaf != "reply":
                self._check_sender(hub, msg)
        except CodedError as e:
            return self._refuse(hub, topic, payload, e)
        if t.leaf == "status":
            self._on_status(hub, msg)
        elif t.leaf == "live":
            self._on_live(hub, msg)
        else:
            self._on_reply(hub, msg, topic, payload)

    def _check_sender(self, hub, msg):
        if hub not in self._hubs:
            raise VenueError("unknown_hub", "hub %r is not in the event's [[tables]]" % hub,
                             "桌机 %r 不在赛事的 [[tables]] 中" % hub)
        if msg.get("table") != self._hubs[hub]:
            raise VenueError("unknown_table", "hub %s runs table %s, not table %r" % (hub, self._hubs[hub], msg.get("table")),
                             "桌机 %s 负责第 %s 桌，而不是 %r" % (hub, self._hubs[hub], msg.get("table")))

    def _refuse(self, hub, topic, payload, err):
        """Keep a refused message (rate-limited per sender) and change nothing else."""
        key = hub or "?"
        now = time.monotonic()
        w = self._refusal_window.get(key)
        if w is None or now - w[0] >= 60:
            if w is not None and w[2]:
                self.store.add_refusal(self.event_id, hub, topic, b"", {
                    "code": "suppressed", "en": "%d more refused messages from %s in a minute were counted, not kept" % (w[2], key),
                    "zh": "一分钟内另有 %d 条来自 %s 的被拒消息只计数未保存" % (w[2], key)})
            w = self._refusal_window[key] = [now, 0, 0]
        if w[1] >= REFUSALS_PER_MINUTE:
            w[2] += 1
            return
        w[1] += 1
        log.warning("venue: refused %s: %s", topic, err.en)
        self.store.add_refusal(self.event_id, hub, topic, payload if payload is not None else b"", err)

    @staticmethod
    def _cursor_of(payload):
        """(epoch, n) of an outbox message when they can be read, even if the rest is wrong."""
        try:
            m = wire.loads(payload, limit=wire.MAX_RESULT_PAYLOAD)  # the largest outbox message; checked by kind later
        except wire.WireError:
            return None, None, None
        epoch, n = m.get("epoch"), m.get("n")
        if isinstance(epoch, str) and _EPOCH.fullmatch(epoch) and type(n) is int and 1 <= n <= 2 ** 53:
            return epoch, n, m
        return None, None, m

    def _outbox(self, kind, hub, topic, payload):
        epoch, n, loose = self._cursor_of(payload)
        err = None
        msg = None
        chain = None
        try:
            _, msg = wire.check(self.event_id, topic, payload)
            self._check_sender(hub, msg)
            chain = msg.get("chain")  # the hub's log head, its shape checked by the wire
        except CodedError as e:
            err = e
        if epoch is None:
            return self._refuse(hub, topic, payload, err or wire.WireError("bad_field", "no epoch/n", "缺少 epoch/n"))
        rows, play, alert, holds = (), None, None, None
        # A re-sent message is answered from the store (the same acknowledgement): it is not
        # checked or replayed again.
        if err is None and not self.store.seen(self.event_id, hub, epoch, n):
            if kind == "result" and self._match and _loop_running():
                # A match's replay takes a quarter of a second (tests/bench/bench_match_replay.py):
                # in a worker thread, so the link, the acknowledgements and the pages go on.
                key = (hub, epoch, n)
                if key not in self._replaying:  # a copy re-sent meanwhile is answered when the first is stored
                    self._replaying[key] = asyncio.ensure_future(
                        self._replay_then_ingest(key, hub, topic, payload, msg, chain))
                return
            try:
                if kind == "result":
                    rows, play, alert, holds = self._result_parts(hub, msg)
                else:
                    alert = self._alert_parts(msg)
                    console_.alert_context(alert["body"], self._live.get(hub, (None,))[0], self.spec_of(hub))
            except VenueError as e:
                err = e
        self._ingest(kind, hub, epoch, n, topic, payload, msg if msg is not None else loose, err, chain,
                     (rows, play, alert, holds))

    async def _replay_then_ingest(self, key, hub, topic, payload, msg, chain):
        """A match result: its replay in a worker thread, then stored and acknowledged as any."""
        try:
            err, parts = None, ((), None, None, None)
            try:
                parts = await asyncio.to_thread(self._result_parts, hub, msg)
            except VenueError as e:
                err = e
            self._ingest("result", hub, key[1], key[2], topic, payload, msg, err, chain, parts)
        except Exception:  # a bug must not take the link down; the message stays unacknowledged
            log.exception("venue: match result %s from %s could not be handled", key[2], hub)
        finally:
            self._replaying.pop(key, None)

    async def replays_done(self):
        """Wait until every match result being replayed is stored (tests; the venue's stop)."""
        while self._replaying:
            await asyncio.gather(*list(self._replaying.values()), return_exceptions=True)

    def _ingest(self, kind, hub, epoch, n, topic, payload, msg, err, chain, parts):
        """Store one outbox message (refused with ``err``, or with its result ``parts``: rows,
        play, alert, holds), acknowledge the hub's cursor, tell the pages."""
        rows, play, alert, holds = parts
        res = self.store.ingest(self.event_id, hub, epoch, n, kind, msg, topic, payload,
                                rows=rows, play=play, alert=alert, refuse=err, holds=holds, chain=chain)
        if res["fork"] is not None:
            log.error("venue: hub %s sent a log head that contradicts the one anchored (chain_fork)", hub)
            self._notify({"type": "alert"})
        if res["status"] == "refused":
            log.warning("venue: refused %s n=%d from %s: %s", kind, n, hub, (err.en if err else "stored row refused"))
        self._ack(hub, epoch, res["upto"])
        if res["status"] != "stored":
            return
        table = self._hubs[hub]
        if res["alert"] is not None:
            self._notify({"type": "alert"})
        if kind == "result":
            rd = self._rounds[msg["round"]]
            rd.done.add((table, msg["board"]))
            if any(v != "duplicate" for v in res["results"].values()):
                self._dirty.set()
            self._notify({"type": "table", "table": table})
            self._check_complete(msg["round"])
        else:
            self._notify({"type": "table", "table": table})

    def _result_parts(self, hub, msg):
        """Rows, play record, alert and holds of a result message, or VenueError (refused)."""
        rnd, group, board, table = msg["round"], msg["group"], msg["board"], msg["table"]
        rd = self._rounds.get(rnd)
        spec = rd.specs.get(hub) if rd is not None else None
        if spec is None:
            raise VenueError("unknown_round", "hub %s was given no round %d: a result for it cannot be placed" % (hub, rnd),
                             "桌机 %s 没有第 %d 轮的安排：该成绩无法归位" % (hub, rnd))
        if group != spec["group"] or board not in spec["boards"]:
            raise VenueError("unknown_board", "round %d at table %s is group %d, boards %s: not group %d board %d"
                             % (rnd, table, spec["group"], spec["boards"], group, board),
                             "第 %d 轮第 %s 桌为第 %d 组、牌号 %s，而不是第 %d 组第 %d 副"
                             % (rnd, table, spec["group"], spec["boards"], group, board))
        seats = sorted(r["seat"] for r in msg["rows"])
        if seats != sorted(self.seats):
            raise VenueError("bad_rows", "a %s result has one row per seat %s, not %s" % (self.game, ", ".join(self.seats), ", ".join(seats)),
                             "%s 的成绩每个座位 %s 一行，而不是 %s" % (self.game, "、".join(self.seats), "、".join(seats)))
        rows, wrong = [], []
        for r in msg["rows"]:
            want = spec["players"][r["seat"]]["id"]
            if r["player"] != want:
                wrong.append({"seat": r["seat"], "player": r["player"], "expected": want})
            rows.append(dict(r, event=self.event_id, hub=hub))
        alert = None
        want_hash = self._hashes.get((rnd, group, board))
        fields = {"round": rnd, "group": group, "board": board}
        # Whatever is wrong with the deal holds every row of it, with one reason (the first).
        if msg["deal_hash"] != want_hash:
            reason = verify_.Finding("deal_hash_mismatch", "the result's deal hash %s… is not board %d's (%s…)"
                                     % (msg["deal_hash"][:12], board, (want_hash or "?")[:12]),
                                     "成绩的牌局哈希 %s… 不是第 %d 副牌的（%s…）" % (msg["deal_hash"][:12], board, (want_hash or "?")[:12]))
            alert = {"table": table, "kind": "deal_hash_mismatch",
                     "body": dict(fields, deal_hash=msg["deal_hash"], expected=want_hash, wrong_players=wrong or None)}
        elif not rd.started:
            reason = verify_.Finding("round_not_started", "round %d has not started: no table can have played its deals yet" % rnd,
                                     "第 %d 轮尚未开始：任何一桌都不可能已打完其中的牌" % rnd)
        elif self._match:
            reason, outcome = verify_.check_match(self.game, self.config.rules,
                                                  lambda n: self._deal(rnd, group, board, n), msg)
            if outcome is not None:
                self._levels[(rnd, table)] = outcome["levels"]
        else:
            reason = verify_.check_result(self.game, self.config.rules, self._deal(rnd, group, board), msg)
        holds = {}
        if reason is not None:
            why = reason.to_dict()
            holds = {r["result_id"]: why for r in msg["rows"]}
            if alert is None:
                alert = {"table": table, "kind": reason.code, "body": dict(fields, **why, wrong_players=wrong or None)}
        elif wrong:
            # A seat layout other than the spec's: the whole deal waits for a referee (who sat where?).
            seats = ", ".join("%s has %s, not %s" % (w["seat"], w["player"], w["expected"]) for w in wrong)
            seats_zh = "；".join("%s 为 %s 而非 %s" % (w["seat"], w["player"], w["expected"]) for w in wrong)
            why = {"code": "player_mismatch", "en": "the seats are not as the round spec seats them: %s" % seats,
                   "zh": "座位与本轮安排不符：%s" % seats_zh}
            holds = {r["result_id"]: why for r in msg["rows"]}
            alert = {"table": table, "kind": "player_mismatch", "body": dict(fields, seats=wrong, en=why["en"], zh=why["zh"])}
        play = {"round": rnd, "group": group, "board": board, "table": table,
                "record": {"deal_hash": msg["deal_hash"], "deal": msg["deal"], "at": msg["at"], "rows": msg["rows"],
                           "record": msg["record"]}}
        return rows, play, alert, holds

    def _deal(self, rnd, group, board, n=1):
        """The venue's own record of a board's deal (from the event secret), kept for the
        replays of the other tables of its group; ``n``: the board's deal n (a match's)."""
        key = (rnd, group, board, n)
        d = self._deals.get(key)
        if d is None:
            d = self._deals[key] = deals_.deal_from_round_key(deals_.round_key(self.config.secret, rnd), self.game,
                                                              group, board, round=rnd, deal=n)
        return d

    @staticmethod
    def _alert_parts(msg):
        body = {k: v for k, v in msg.items() if k not in ("v", "kind", "epoch", "n", "hub", "table", "alert", "chain")}
        return {"table": msg["table"], "kind": msg["alert"], "body": body}

    def _on_status(self, hub, msg):
        table = self._hubs[hub]
        before = self.store.set_hub_status(self.event_id, hub, table, msg["online"], msg)
        self._online[hub] = msg["online"]
        if not msg["online"] and before is not False:
            self.store.add_alert(self.event_id, "hub_offline", {"fw": msg.get("fw")}, hub=hub, table=table)
            self._notify({"type": "alert"})
        if not msg["online"]:
            self._live.pop(hub, None)
        elif before is not True:  # back: its first snapshot gets what it has not answered, at once
            for item in self._unanswered.values():
                if item[0] == hub:
                    item[2] = 0.0
        self._notify({"type": "table", "table": table})

    def _on_live(self, hub, msg):
        self._live[hub] = (msg, self._wall_ms())
        self._online[hub] = True  # a hub that sends live snapshots is online, whatever the last status said
        self._notify({"type": "table", "table": self._hubs[hub]})
        self._resend_controls(hub)
        rd = self._rounds.get(self.round)
        if rd is None or hub not in rd.specs or msg.get("round") != rd.number:
            return
        if rd.started:
            if msg.get("started") is False:
                sent = self._start_sent.get((rd.number, hub))
                if sent is None or time.monotonic() - sent[1] >= START_RESEND:
                    self._send_start(rd.number, hub)
        elif self.config.auto_start and rd.number not in self._starting and self._all_loaded(rd):
            self._starting.add(rd.number)
            asyncio.ensure_future(self._auto_start(rd.number))

    def _resend_controls(self, hub):
        """Send ``hub`` again (same id) every control of :data:`RESENT_OPS` it has not answered,
        each at most every CONTROL_RESEND s: one sent while the hub was away reaches it when
        it is back even if the broker lost the hub's session.  Called on the hub's live
        snapshots, which come only from a hub whose table is up.  A hub answers a repeated id
        as before, and ``end_board`` of a board already ended changes nothing."""
        now = time.monotonic()
        for cid, item in list(self._unanswered.items()):
            if item[0] == hub and now - item[2] >= CONTROL_RESEND:
                item[2] = now
                self._pub(wire.venue_topic(self.event_id, "control", hub), item[1])

    def _all_loaded(self, rd):
        return all(self._live.get(h, ({}, 0))[0].get("round") == rd.number for h in rd.specs)

    async def _auto_start(self, rnd):
        try:
            await self.start_round(rnd, "venue (auto_start)")
        except VenueError as e:
            log.error("venue: auto start of round %d failed: %s", rnd, e.en)
        finally:
            self._starting.discard(rnd)

    def _on_reply(self, hub, msg, topic, payload):
        # The hub answers every round spec it is sent (the retained spec again after each
        # reconnect): the rounds in memory say whose spec it is, without reading the store.
        rd = next((r for r in self._rounds.values() if r.specs.get(hub, {}).get("id") == msg["id"]), None)
        if rd is not None:
            # Loaded is the normal answer; a refusal stops that table, so say it (once).
            if not msg["ok"] and msg["id"] not in self._spec_refused:
                self._spec_refused.add(msg["id"])
                self.store.add_alert(self.event_id, "round_refused",
                                     {"round": rd.number, "code": msg.get("code"), "en": msg.get("en"),
                                      "zh": msg.get("zh")}, hub=hub, table=rd.specs[hub]["table"])
                self._notify({"type": "alert"})
            return
        known = self.store.set_control_reply(msg["id"], dict(msg, hub=hub))
        self._unanswered.pop(msg["id"], None)  # answered: acknowledged, whatever it says
        fut = self._pending.pop(msg["id"], None)
        if fut is not None and not fut.done():
            fut.set_result(msg)
        elif not known and fut is None and msg["id"] not in {c["id"] for c in self.store.controls(self.event_id, hub)}:
            self._refuse(hub, topic, payload, VenueError("unknown_control", "a reply to control %s, which was never sent to %s"
                                                         % (msg["id"], hub), "回复的控制 %s 从未发给 %s" % (msg["id"], hub)))

    # ---- rounds ----------------------------------------------------------------------------------

    def _seated(self, rnd):
        rd = self._rounds.get(rnd)
        return rd is not None and rd.specs and len(rd.specs) == len({s["table"] for s in self.store.seating(self.event_id, rnd)})

    def _is_bot(self, pid):
        return pid in self._bots or str(pid).lower().startswith(BOT_PREFIX)

    def _seat(self, rnd):
        """Seat round ``rnd``: the movement (unless the store already holds its seating), the
        boards' deal hashes, one spec per table (a spec already stored is kept: a published spec
        never changes).  Makes ``rnd`` the current round; publishes nothing."""
        ev, cfg = self.event_id, self.config
        seating = self.store.seating(ev, rnd)
        if not seating:
            ids = [p.id for p in sorted(cfg.players, key=lambda p: p.no)]
            kw = dict(seats=len(self.seats), tables_per_group=cfg.tables_per_group, vs_ai=cfg.vs_ai,
                      human_seat=cfg.human_seat)
            if self._match:
                rows = self._pair(rnd)
            else:
                if rnd == 1:
                    mv = movement.seat_round(ids, 1, secret=cfg.secret, **kw)
                else:
                    mv = movement.seat_round(ids, rnd, standings=self._ranking(), history=self._history(rnd), **kw)
                rows = [{"table": cfg.tables[t.number - 1].table, "seat": s, "group": t.group,
                         "player": p if p is not None else "%s%s:%s" % (BOT_PREFIX, cfg.tables[t.number - 1].table, s)}
                        for t in mv.tables for s, p in t.seats.items()]
            self.store.set_seating(ev, rnd, rows)
            seating = self.store.seating(ev, rnd)
        if self._match:
            bye = matchplay.bye_of(self._sides, seating)
            if bye is not None:  # 轮空 (场分 1.5, 级差分 17): stored with the seating's round, once
                self.store.add_match(ev, {"round": rnd, "a": bye, "bye": True, "match_id": "r%d:bye" % rnd})
        key = deals_.round_key(cfg.secret, rnd)
        by_table = {}
        for s in seating:
            by_table.setdefault(s["table"], {})[s["seat"]] = (s["player"], int(s["group"] or 1))
        for g in sorted({g for seats in by_table.values() for _, g in seats.values()}):
            for b in cfg.boards():
                h = deals_.deal_from_round_key(key, self.game, g, b, round=rnd).hash
                self.store.add_board(ev, rnd, b, h, group=g)
                self._hashes[(rnd, g, b)] = h
        rd = self._rounds.setdefault(rnd, _Round(rnd))
        stored = {row["hub"]: row["spec"] for row in self.store.round_specs(ev, rnd)}
        prev = {}
        if rnd > 1:
            for s in self.store.seating(ev, rnd - 1):
                prev.setdefault(s["table"], {})[s["seat"]] = s["player"]
        place = {p: (t, s) for t, seats in by_table.items() for s, (p, _) in seats.items()}
        new = []
        for table, seats in by_table.items():
            hub = cfg.hub_of(table)
            if hub not in stored:
                moves = None
                if table in prev:
                    moves = {}
                    for s, p in prev[table].items():
                        there = None if self._is_bot(p) else place.get(p)
                        moves[s] = None if there is None else {"table": there[0], "seat": there[1]}
                group = next(iter(seats.values()))[1]
                # The deal hashes, not the round key: the hub checks the deals the start's key
                # gives against them, and nobody can derive a card before the round starts.
                spec = {"v": 1, "id": uuid.uuid4().hex, "round": rnd, "group": group, "game": self.game,
                        "table": table, "boards": cfg.boards(),
                        "deal_hashes": {str(b): self._hashes[(rnd, group, b)] for b in cfg.boards()},
                        "players": {s: self._seat_player(p) for s, (p, _) in sorted(seats.items())}, "moves": moves}
                if cfg.rules is not None:
                    spec["rules"] = cfg.rules  # the engine's Rules.to_dict(): the hub plays under the event's rules
                wire.check_round(spec)
                new.append((hub, table, spec))
        self.store.save_round_specs(ev, rnd, new)  # one transaction: all the round's specs or none
        for hub, table, spec in new:
            stored[hub] = spec
        for table in by_table:
            hub = cfg.hub_of(table)
            rd.add_spec(hub, stored[hub])
        self.round = rnd

    def _seat_next(self, rnd):
        """Seat round ``rnd`` after the one before closed; False when a match event's pairing is
        impossible (every pairing repeats a meeting): the referees get a ``pairing_failed``
        alert and the event waits (it cannot go on by itself)."""
        try:
            self._seat(rnd)
            return True
        except matches_.MatchError as e:
            log.error("venue: round %d cannot be paired: %s", rnd, e.en)
            if not any(a["kind"] == "pairing_failed" and a["fields"].get("round") == rnd
                       for a in self.store.alerts(self.event_id, open_only=True)):
                self.store.add_alert(self.event_id, "pairing_failed", dict(e.to_dict(), round=rnd))
                self._notify({"type": "alert"})
            return False

    def _pair(self, rnd):
        """A match event's seating of round ``rnd``: Swiss pairing (积分编排) of the sides from the
        matches counted so far, each match at the next table (two in a teams event)."""
        cfg = self.config
        played = [m for m in self._match_results()[0] if m.round < rnd]
        pairing = matches_.pair_round(rnd, [s.id for s in cfg.sides], played,
                                      [matches_.Penalty.from_dict(p) for p in self.store.penalties(self.event_id)],
                                      secret=cfg.secret)
        return matchplay.seat_rows(cfg.format, [t.table for t in cfg.tables], self._sides, pairing.tables,
                                   cfg.tables_per_group)

    def _slots_of(self, rnd):
        """The matches of a seated round (cached: a seating never changes)."""
        if rnd not in self._slots:
            seating = self.store.seating(self.event_id, rnd)
            if not seating:
                return []
            self._slots[rnd] = matchplay.slots(self.config.format, [t.table for t in self.config.tables], self._sides,
                                               seating, rnd)
        return self._slots[rnd]

    def _slot(self, rnd, table):
        return next((m for m in self._slots_of(rnd) if str(table) in m.tables), None)

    def _forfeit_done(self, row):
        """A stored forfeit's tables count as finished (their boards are not played)."""
        mid = row.get("match_id") or ""
        rd = self._rounds.get(row.get("round"))
        if rd is None or row.get("bye") or not mid.startswith("r"):
            return
        for m in self._slots_of(rd.number):
            if m.match_id == mid:
                for t in m.tables:
                    for b in self.config.boards():
                        rd.done.add((t, b))

    def _room_levels(self, rnd, table, plays):
        """The final levels of one room's match: the venue's replay of its record (cached); for a
        result a referee released, what the hub's record says (the referees accepted it).
        ``plays(rnd)``: the round's stored plays (read only when the cache misses)."""
        key = (rnd, table)
        if key not in self._levels:
            play = next((p for p in plays(rnd) if str(p["table"]) == table), None)
            if play is None:
                return None
            body = play["record"]
            msg = {"record": body.get("record"), "rows": body.get("rows"), "board": play["board"]}
            group, board = int(play["group"] or 1), play["board"]
            finding, res = verify_.check_match(self.game, self.config.rules,
                                               lambda n: self._deal(rnd, group, board, n), msg)
            if finding is None:
                self._levels[key] = res["levels"]
            else:
                claimed = ((body.get("record") or {}).get("result") or {}).get("levels")
                self._levels[key] = claimed if isinstance(claimed, dict) else None
        return self._levels[key]

    def _match_results(self):
        """(every counted match, the public ones): byes and forfeits as stored, played matches from
        the replays of their rooms once every room is in and not held.  A match is public when its
        board is (every table of its group has finished it: the open room waits for the closed)."""
        ev = self.event_id
        stored = [matches_.MatchResult.from_dict(dict((k, v) for k, v in m.items() if k != "score"))
                  for m in self.store.matches(ev)]
        taken = {m.match_id for m in stored}
        rooms, held = set(), set()
        for r in self.store.results(ev, include_held=True, detail=True):
            (held if r["status"] == "held" else rooms).add((r["round"], str(r["table"])))
        public = self.public_boards()
        everything, shown = list(stored), list(stored)
        read = {}

        def plays(rnd):  # a round's match records, parsed only when a replay is not cached yet
            if rnd not in read:
                read[rnd] = self.store.plays(ev, rnd)
            return read[rnd]
        for rnd in sorted({r for r, _ in rooms}):
            for slot in self._slots_of(rnd):
                if slot.match_id in taken or not all((rnd, t) in rooms and (rnd, t) not in held for t in slot.tables):
                    continue
                levels = {t: self._room_levels(rnd, t, plays) for t in slot.tables}
                if any(v is None for v in levels.values()):
                    continue
                try:
                    m = matchplay.match_result(slot, levels)
                except matches_.MatchError as e:
                    log.error("venue: match %s cannot be scored: %s", slot.match_id, e.en)
                    continue
                everything.append(m)
                if all((rnd, slot.group, b) in public for b in self.config.boards()):
                    shown.append(m)
        return everything, shown

    def _seat_player(self, pid):
        p = self._players.get(pid)
        if p is None:
            return {"id": pid, "name": BOT_NAME, "bot": True}
        return p.to_dict()

    def _ranking(self):
        """The standings the movement seats the next round from (bots are never in them)."""
        st = self._summary or {"players": []}
        return {"players": [{"player": p["player"], "rank": p["rank"], "R": p["R"]} for p in st["players"]]}

    def _history(self, rnd):
        out = []
        for r in range(1, rnd):
            tables = {}
            for s in self.store.seating(self.event_id, r):
                tables.setdefault(s["table"], {})[s["seat"]] = None if self._is_bot(s["player"]) else s["player"]
            out.append({"round": r, "tables": [{"seats": seats} for _, seats in sorted(tables.items())]})
        return out

    def _check_complete(self, rnd):
        rd = self._rounds.get(rnd)
        if rd is None or rd.closed or not rd.complete() or rnd in self._completing:
            return
        self._completing.add(rnd)
        asyncio.ensure_future(self._complete(rnd))

    async def _complete(self, rnd, force=False, who="venue"):
        """Close a complete round: standings, records, next round (or finished)."""
        try:
            async with self._lock:
                rd = self._rounds[rnd]
                if rd.closed:
                    return
                held = [r for r in self.store.results(self.event_id, include_held=True, detail=True)
                        if r["round"] == rnd and r["status"] == "held"]
                if held and not force:
                    rd.waiting_alert = rd.waiting_alert or any(
                        a["kind"] == "round_waiting" and a["fields"].get("round") == rnd
                        for a in self.store.alerts(self.event_id, open_only=True))  # raised before a restart
                    if not rd.waiting_alert:
                        rd.waiting_alert = True
                        self.store.add_alert(self.event_id, "round_waiting", {
                            "round": rnd, "held": [r["result_id"] for r in held][:50],
                            "en": "round %d is complete but %d result(s) are held: release them, or start round %d "
                                  "to go on without them" % (rnd, len(held), rnd + 1),
                            "zh": "第 %d 轮已全部完成，但有 %d 个成绩被暂扣：请放行，或直接开始第 %d 轮"
                                  % (rnd, len(held), rnd + 1)})
                        self._notify({"type": "alert"})
                    return
                await self._recompute_locked()
                self.store.close_round(self.event_id, rnd, who)
                rd.closed = True
                self.store.save_standings(self.event_id, rnd, self.standings())
                self._publish_records(rnd)
                if rnd < self.config.rounds:
                    if self._seat_next(rnd + 1):
                        self._publish_specs(self._rounds[rnd + 1])
                else:
                    self.finished.set()
                self._publish_standings()  # round, complete
                self._notify({"type": "round", "round": self.round})
                self._notify({"type": "standings"})
                for t in self._hubs.values():
                    self._notify({"type": "table", "table": t})
        finally:
            self._completing.discard(rnd)

    # ---- standings ----------------------------------------------------------------------------------

    async def _standings_loop(self):
        while True:
            await self._dirty.wait()
            await asyncio.sleep(self.standings_delay)
            self._dirty.clear()
            async with self._lock:
                await self._recompute_locked()

    async def recompute(self):
        """Recompute the standings now (normally done for you, coalesced, after each change)."""
        async with self._lock:
            await self._recompute_locked()

    async def _recompute_locked(self):
        if self._match:
            return self._recompute_matches()
        rows = [r for r in self.store.scoring_rows(self.event_id) if not self._is_bot(r["player"])]
        public = self.public_boards()
        public_rows = [r for r in rows if _board_key(r) in public]
        pub = self._public
        try:
            scored, summary = await asyncio.to_thread(self._score, rows)
            if public_rows == rows:
                pub_scored = (scored, summary)
            elif public_rows != pub.rows:   # scored again only when a board became public or changed
                pub_scored = await asyncio.to_thread(self._score, public_rows)
            else:
                pub_scored = None
        except scoring.ScoringInputError as e:
            if self._standings_error != e.en:
                self._standings_error = e.en
                self.store.add_alert(self.event_id, "standings_error", e.to_dict())
                self._notify({"type": "alert"})
            log.error("venue: standings cannot be computed: %s", e.en)
            return
        self._standings_error = None
        self._scored, self._summary, self._full = scored, summary, None
        self._meta.update(results=len(rows), updated_at=self._wall_ms())
        if pub_scored is not None:
            pub.rows, (pub.scored, pub.summary), pub.full = public_rows, pub_scored, None
            pub.results, pub.updated_at = len(public_rows), self._wall_ms()
        self.recomputes += 1
        self._notify({"type": "scores"})  # the referees' standings changed
        if pub_scored is not None:  # what is public changed: venue/standings and the public page follow
            self._publish_standings()
            self._notify({"type": "standings"})

    def _match_summary(self, results):
        st = matches_.standings(results, [matches_.Penalty.from_dict(p) for p in self.store.penalties(self.event_id)],
                                sides=[s.id for s in self.config.sides])
        return matchplay.summary(st, self._sides, self._players)

    def _recompute_matches(self):
        """A match event's standings: 场分, then the tie-break chain (:mod:`paizhuo.venue.matches`),
        for the referees from every counted match, for the public from the public ones."""
        everything, shown = self._match_results()
        pub = self._public
        self._full = self._summary = self._match_summary(everything)
        self._meta.update(results=len(everything), updated_at=self._wall_ms())
        ids = sorted(m.match_id or "" for m in shown)
        self.recomputes += 1
        self._notify({"type": "scores"})  # the referees' standings changed
        if ids != pub.rows:
            pub.rows = ids
            pub.full = pub.summary = self._full if len(shown) == len(everything) else self._match_summary(shown)
            pub.results, pub.updated_at = len(shown), self._wall_ms()
            self._publish_standings()
            self._notify({"type": "standings"})

    def _score(self, rows):
        """Scoring (in a worker thread): the Standings and their one-line-per-player summary."""
        st = scoring.standings(rows, seats=self.seats)
        players = []
        for e in st.entries:
            info = self._players.get(e.player)
            players.append({"player": e.player, "name": info.name if info else None, "no": info.no if info else None,
                            "rank": e.rank, "R": float(e.R_display), "playoff": e.playoff, "decided_by": e.decided_by,
                            "deals": len(e.deals), "firsts": e.firsts,
                            "mp": float(scoring.half_up(sum(d.mp for d in e.deals), 2))})
        summary = {"format": scoring.FORMAT, "exact_ties": st.exact_ties,
                   "fields": [{"round": r, "group": g, "tables": t, "expected": n} for r, g, t, n in st.fields],
                   "playoffs": st.playoffs, "players": players}
        return st, summary

    def _current_meta(self):
        rd = self._rounds.get(self.round)
        complete = self.finished.is_set() or (self.round == self.config.rounds and rd is not None and rd.closed)
        return dict(self._meta, event=self.event_id, name=self.event_name, round=self.round, complete=complete,
                    rounds=self.config.rounds, round_started=rd is not None and rd.started,
                    round_closed=rd is not None and rd.closed)

    def _standings_for_wire(self):
        keep = ("player", "name", "rank", "R", "playoff", "decided_by", "deals")
        slim = dict(self.public_standings_summary(), v=1)  # venue/standings is public
        slim["players"] = [{k: p.get(k) for k in keep} for p in slim["players"]]
        if "sides" in slim:
            slim["sides"] = list(slim["sides"])
        slim["detail"] = "/standings.json"  # every board's MP is on the web page, too big for one message
        while len(json.dumps(slim, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) > wire.MAX_PAYLOAD:
            slim["players"] = slim["players"][: len(slim["players"]) * 9 // 10]
            slim["truncated"] = True
        return slim

    # ---- reading (the web pages) ------------------------------------------------------------------------

    def now_ms(self):
        """The venue's wall clock in ms (``last_seen`` is on this clock)."""
        return self._wall_ms()

    def spec_of(self, hub, rnd=None):
        """The round spec published to ``hub`` for ``rnd`` (default: the current round), or None."""
        rd = self._rounds.get(rnd or self.round)
        return None if rd is None else rd.specs.get(hub)

    def seat_map(self, rnd=None):
        """Who sits where in round ``rnd`` (default: the current round), public from the moment
        the round is seated (the check-in screens show it too): ``{"round", "format", "tables":
        [{"table", "group", "seats": {seat: {"id", "name", "no", "bot"}}}], "matches", "bye"}``.
        A match event adds per table ``match``, ``room`` (``open``/``closed``; None in a pairs
        event), ``ew`` and ``ns`` (the side ids) with ``ew_name`` and ``ns_name``, and ``matches`` (:meth:`paizhuo.venue.matchplay.Slot.to_dict` with the
        sides' names) and ``bye`` (the side that sits out, or None)."""
        rnd = rnd or self.round
        rd = self._rounds.get(rnd)
        out = {"round": rnd, "format": self.config.format, "tables": [], "matches": [], "bye": None}
        if rd is None:
            return out
        place = {}
        for m in self._slots_of(rnd) if self._match else ():
            d = m.to_dict()
            for k in ("home", "away"):
                s = self._sides.get(d[k])
                d[k + "_name"] = s.name if s else d[k]
            out["matches"].append(d)
            for t, room in m.rooms:
                place[t] = (m.number, room if self.config.rooms > 1 else None)  # a pairs match has one room
        if self._match:
            out["bye"] = matchplay.bye_of(self._sides, self.store.seating(self.event_id, rnd))
            out["bye_name"] = self._sides[out["bye"]].name if out["bye"] else None
        for t in self.config.tables:
            spec = rd.specs.get(t.hub)
            if spec is None:
                continue
            row = {"table": t.table, "group": spec["group"], "seats": spec["players"]}
            if t.table in place:
                row.update(match=place[t.table][0], room=place[t.table][1],
                           ew=self._side_of.get(spec["players"]["E"]["id"]), ns=self._side_of.get(spec["players"]["N"]["id"]))
                for k in ("ew", "ns"):
                    row[k + "_name"] = self._sides[row[k]].name if row[k] in self._sides else row[k]
            out["tables"].append(row)
        return out

    def rounds(self):
        """``[{"round", "started", "closed", "tables", "boards_done", "boards_expected"}]``."""
        return [{"round": r, "started": rd.started, "closed": rd.closed, "tables": len(rd.specs),
                 "boards_done": len(rd.done), "boards_expected": rd.expected()} for r, rd in sorted(self._rounds.items())]

    def glance(self, tables=None):
        """Every table at a glance, in the order of [[tables]]: ``table``, ``hub``, ``online``
        (the hub's last status; None: never heard), ``game``, ``round``, ``group``,
        ``screen``, ``started``, ``boards``, ``deals_done``, ``deal``, ``board``, ``turn``,
        ``to_act`` (seats), ``clock`` (``{"seats", "ms", "paused"}`` as of ``last_seen``),
        ``seats`` (per seat: ``online``, ``dev``, ``player``, ``checked``, ``bot``,
        ``cards``), ``paused`` (``{"by", "reason"}`` or None), ``alerts_open``, ``unacked``,
        ``last_seen`` (venue ms of the last live snapshot, None: none yet), ``seated``
        (whether the table plays the current round).  ``tables``: only these (a live page
        updating the tables that changed, not all 500)."""
        open_by_table = {}
        for a in self.store.alerts(self.event_id, open_only=True):
            open_by_table[a["table"]] = open_by_table.get(a["table"], 0) + 1
        return [self._row(t.table, t.hub, open_by_table.get(t.table, 0)) for t in self.config.tables
                if tables is None or t.table in tables]

    def _row(self, table, hub, alerts_open):
        live, seen = self._live.get(hub, (None, None))
        spec = self.spec_of(hub)
        row = {"table": table, "hub": hub, "online": self._online.get(hub), "game": self.game,
               "round": None, "group": None, "screen": None, "started": None, "boards": None, "deals_done": None,
               "deal": None, "board": None, "turn": None, "to_act": [], "clock": None, "seats": {}, "paused": None,
               "alerts_open": alerts_open, "unacked": None, "last_seen": seen, "seated": spec is not None}
        if spec is not None:
            row.update(round=spec["round"], group=spec["group"], boards=spec["boards"],
                       started=self._rounds[spec["round"]].started,
                       seats={s: {"online": None, "dev": None, "player": p, "checked": None, "bot": p.get("bot", False),
                                  "cards": None} for s, p in spec["players"].items()})
        if live is not None:
            for k in ("round", "group", "screen", "started", "boards", "deals_done", "deal", "board", "turn", "clock",
                      "paused", "unacked"):
                if k in live:
                    row[k] = live[k]
            row["to_act"] = live.get("to_act") or []
            if isinstance(live.get("seats"), dict):
                row["seats"] = live["seats"]
        if spec is not None:
            rd = self._rounds[spec["round"]]
            row["boards_done"] = sum(1 for b in spec["boards"] if (table, b) in rd.done)
        row["state"] = console_.table_state(row, live)
        return row

    def _hub_of_table(self, table):
        try:
            return self.config.hub_of(table)
        except KeyError:
            raise VenueError("unknown_table", "there is no table %r in this event" % (table,),
                             "本赛事没有第 %r 桌" % (table,)) from None

    def table(self, table):
        """One table in detail: the :meth:`glance` row plus ``plays`` and ``shown`` of the
        deal being played (public), ``players`` and ``moves`` of the current round's spec,
        ``alerts`` (this table's, newest last) and ``finished``: the deals of the current round
        the table has finished, with every hand (``{"group", "board", "hands", "extra",
        "deal_hash", "same_deal", "actions", "result", "rows"}``).  Hands of a deal still being
        played are never in it.  Raises ``VenueError("unknown_table")``."""
        hub = self._hub_of_table(table)
        table = str(table)
        row = self._row(table, hub, 0)
        alerts = [a for a in self.store.alerts(self.event_id) if a["table"] == table]
        row["alerts_open"] = sum(1 for a in alerts if a["acked_at"] is None)
        row["alerts"] = alerts
        live = self._live.get(hub, (None, None))[0] or {}
        row["plays"] = live.get("plays") or []
        row["shown"] = live.get("shown") or {}
        spec = self.spec_of(hub)
        row["players"] = spec["players"] if spec else {}
        row["moves"] = spec["moves"] if spec else None
        row["finished"] = []
        if spec is not None:
            key = deals_.round_key(self.config.secret, spec["round"])
            for p in self.store.plays(self.event_id, spec["round"]):
                if p["table"] != table:
                    continue
                rec = deals_.deal_from_round_key(key, self.game, int(p["group"] or 1), p["board"], round=spec["round"])
                body = p["record"]
                inner = body.get("record") or {}
                row["finished"].append({"group": int(p["group"] or 1), "board": p["board"], "hands": rec.to_dict()["hands"],
                                        "extra": rec.extra, "deal_hash": body.get("deal_hash"),
                                        "same_deal": body.get("deal_hash") == rec.hash, "actions": inner.get("actions", []),
                                        "result": inner.get("result", {}), "rows": body.get("rows", [])})
                if self._match and isinstance(inner.get("deals"), list):
                    # a match: how many deals and the final levels of the venue's replay (None: it did not replay)
                    row["finished"][-1]["match"] = {"deals": len(inner["deals"]),
                                                    "levels": self._levels.get((spec["round"], table))}
        return row

    @staticmethod
    def _full_dict(scored, summary):
        if scored is None:
            return {"format": scoring.FORMAT, "exact_ties": False, "fields": [], "playoffs": [], "players": []}
        full = scored.to_dict()
        for p, line in zip(full["players"], summary["players"]):
            p.update(name=line["name"], no=line["no"], mp=line["mp"])
        return full

    def standings(self):
        """The referees' standings in full, with every counted result — also of boards other
        tables are still playing, so never for a public page (:meth:`public_standings` is):
        ``Standings.to_dict()`` (``paizhuo.standings/1``, docs/scoring.md: every player's every
        board with MP, rate and place) with each player's ``name``, ``no`` and ``mp`` (total),
        plus ``event``, ``name``, ``round`` (seated last), ``complete`` (the event is over),
        ``results`` (rows counted) and ``updated_at`` (venue ms).  Bots are never in it; held
        results are not counted.  Large (megabytes for 2,000 players) and made on first request
        after each recompute: live pages want :meth:`standings_summary`."""
        if self._full is None:
            self._full = self._match_summary([]) if self._match else self._full_dict(self._scored, self._summary)
        return adjust_.mark_standings(dict(self._full, **self._current_meta()), self._marks(False))

    def _marks(self, public):
        """The corrected results as :func:`paizhuo.venue.adjust.marks` (of public boards only)."""
        adjs = adjust_.by_result(self.store, self.event_id)
        if not adjs:
            return {}
        return adjust_.marks([dict(self.store.result(rid), result_id=rid) for rid in adjs], adjs,
                             self.public_boards() if public else None)

    def table_results(self, rnd, table):
        """One table's results of round ``rnd`` (any round seated so far) for the console, with
        every correction: ``{"round", "table", "deals"}`` (:func:`paizhuo.venue.adjust.table_results`).
        Raises ``VenueError("unknown_table")``, ``("unknown_round")``."""
        hub = self._hub_of_table(table)
        if type(rnd) is not int or rnd not in self._rounds:
            raise VenueError("unknown_round", "round %r is not seated; the rounds so far are %s"
                             % (rnd, ", ".join(str(r) for r in sorted(self._rounds))),
                             "第 %r 轮尚未安排；已有轮次：%s" % (rnd, "、".join(str(r) for r in sorted(self._rounds))))
        spec = self.spec_of(hub, rnd) or {}
        deals = adjust_.table_results(self.results(), adjust_.by_result(self.store, self.event_id), rnd, table,
                                      spec.get("players"))
        # each deal's record as the table sent it: the start of a corrected record
        record = {p["board"]: (p["record"].get("record") or {}) for p in self.store.plays(self.event_id, rnd)
                  if str(p["table"]) == str(table)}
        for d in deals:
            d["actions"] = record.get(d["board"], {}).get("actions") or []
        return {"round": rnd, "table": str(table), "boards": spec.get("boards", []), "deals": deals}

    def standings_summary(self):
        """The referees' standings, one line per player (cheap): the :meth:`standings` dict whose
        players hold only ``player``, ``name``, ``no``, ``rank``, ``R``, ``playoff``,
        ``decided_by``, ``deals``, ``firsts`` and ``mp``."""
        if self._summary is None:
            return dict(self.standings())
        return dict(self._summary, **self._current_meta())

    # ---- what is public when (docs/venue.md § What is public when) -------------------------------

    def public_boards(self):
        """The ``(round, group, board)`` whose results everyone may see: every table of the group
        that was given the board has a result for it (held ones too: the table has played it),
        its round is closed, or a referee closed the board (:meth:`close_board`)."""
        out = set(self._closed_boards)
        for r, rd in self._rounds.items():
            finished = {}
            for spec in rd.specs.values():
                for b in spec["boards"]:
                    key = (r, spec["group"], b)
                    finished[key] = finished.get(key, True) and (rd.closed or (spec["table"], b) in rd.done)
            out.update(k for k, ok in finished.items() if ok)
        return out

    def public_standings(self):
        """The standings everyone may see (the public page, ``/standings.json``, ``/standings.csv``,
        ``venue/standings``): :meth:`standings` scored from the boards of :meth:`public_boards`
        only, so no table learns a score, MP or place of a board it is still playing.
        ``results`` counts those rows; ``updated_at`` is when they last changed."""
        pub = self._public
        if pub.full is None and self._match:
            pub.full = self._match_summary([])
        if pub.full is None:
            # Every board public (the usual case between rounds): the referees' dict is the same.
            same = pub.scored is not None and pub.scored is self._scored and self._full is not None
            pub.full = self._full if same else self._full_dict(pub.scored, pub.summary)
        return adjust_.mark_standings(dict(pub.full, **self._public_meta()), self._marks(True))

    def public_standings_summary(self):
        """:meth:`public_standings`, one line per player (what ``venue/standings`` carries)."""
        if self._public.summary is None:
            return dict(self.public_standings())
        return dict(self._public.summary, **self._public_meta())

    def _public_meta(self):
        return dict(self._current_meta(), results=self._public.results, updated_at=self._public.updated_at)

    def public_tables(self):
        """The public table feed (``venue/tables``; the public page): per table, in the order of
        [[tables]], ``table``, ``round`` (of its current spec, None: not seated), ``online`` (the
        hub's last word, None: never heard), ``boards`` (given this round), ``boards_done``
        (results in) and ``state``: ``offline``, ``idle`` (not seated), ``checkin``, ``waiting``
        (for the start or the next deal), ``playing``, ``paused`` or ``done`` (every board in).
        Nothing names a board, a turn, a card or a score (:data:`paizhuo.mqtt.wire.TABLE_FIELDS`)."""
        rd = self._rounds.get(self.round)
        out = []
        for t in self.config.tables:
            spec = rd.specs.get(t.hub) if rd is not None else None
            online = self._online.get(t.hub)
            live = self._live.get(t.hub, (None, None))[0]
            boards = spec["boards"] if spec is not None else []
            done = sum(1 for b in boards if (t.table, b) in rd.done)
            if not online:
                state = "offline"
            elif spec is None:
                state = "idle"
            elif done >= len(boards):
                state = "done"
            elif live is None or live.get("round") != rd.number:
                state = "waiting"
            else:   # check-in only while a seat is not checked in (console.table_state)
                state = console_.public_state(self._row(t.table, t.hub, 0)["state"])
            out.append({"table": t.table, "round": spec["round"] if spec is not None else None, "online": online,
                        "boards": len(boards), "boards_done": done, "state": state})
        return out

    def records(self, rnd):
        """The hand records of finished round ``rnd`` (:func:`paizhuo.venue.records.build`; render
        them with :func:`paizhuo.venue.records.render_html`).  A round still being played has
        none: ``VenueError("not_finished")`` (its hands are secret until every table is done)."""
        rd = self._rounds.get(rnd) if isinstance(rnd, int) else None
        if rd is None or not rd.closed:
            raise VenueError("not_finished", "round %r has no hand records: they are published when every table has "
                             "finished the round" % (rnd,), "第 %r 轮尚无牌谱：所有桌打完本轮后公布" % (rnd,))
        ev = self.event_id
        return records_.build(ev, self.event_name, self.game, self.config.secret, rnd, self.config.boards(),
                              self.store.round_specs(ev, rnd), self.store.plays(ev, rnd),
                              self.store.results(ev, include_held=True, detail=True), adjust_.by_result(self.store, ev))

    def finished_rounds(self):
        """Round numbers whose hand records exist."""
        return [r for r, rd in sorted(self._rounds.items()) if rd.closed]

    def alerts(self, open_only=False):
        """Alerts, oldest first: ``{"id", "hub", "table", "kind", "fields", "at", "acked_by",
        "acked_at"}``.  Kinds from hubs: ``call``, ``seat_offline``, ``seat_online``,
        ``clock_expiry``, ``reject_burst``, ``checkin_wrong``, ``log_failed``, ``hub_error``;
        from the venue: a result held (``deal_hash_mismatch``, ``player_mismatch``,
        ``round_not_started`` and the replay's codes, :mod:`paizhuo.venue.verify`; the fields
        carry ``en`` and ``zh``), ``chain_fork``, ``hub_offline``, ``round_waiting``,
        ``round_refused``, ``standings_error``; from the web: ``login_burst``."""
        return self.store.alerts(self.event_id, open_only=open_only)

    def audit(self):
        """The audit log of the event, oldest first: ``{"id", "event", "who", "at", "action", "detail"}``."""
        return self.store.audit_log(self.event_id)

    def results(self, include_held=True):
        """Every stored result with ``result_id``, ``status``, ``held_why``, ``held_reason``
        (``{"code", "en", "zh", ...}``: why the venue held it) and adjustments applied."""
        return self.store.results(self.event_id, include_held=include_held, detail=True)

    def anchors(self):
        """Per hub, the highest head of its hash-chained event log acknowledged:
        ``{hub: {"table", "seq", "hash", "epoch", "n", "at"}}`` (``paizhuo venue anchors``)."""
        return self.store.anchors(self.event_id)

    def refusals(self):
        """Messages refused at the wire: ``{"id", "hub", "topic", "payload", "size", "reason", "at"}``."""
        return self.store.refusals(self.event_id)

    def audit_event(self, who, action, detail=None):
        """Write one audit line for the web layer (``login``, ``login_failed``, ``logout``…) and
        tell subscribers."""
        self.store.audit(who, action, detail or {}, event=self.event_id)
        self._notify({"type": "audit"})

    def alert_event(self, kind, fields=None):
        """Raise one venue alert for the web layer (``login_burst``) and tell subscribers."""
        self.store.add_alert(self.event_id, kind, fields or {})
        self._notify({"type": "alert"})

    # ---- referee actions ------------------------------------------------------------------------

    def _who(self, who):
        if not isinstance(who, str) or not who.strip() or len(who) > 100:
            raise VenueError("no_who", "say who you are (a referee's name, up to 100 characters)", "请写明裁判姓名（最多 100 字）")
        return who.strip()

    def _requested(self, action, who, detail):
        self.store.audit(who, action + "_requested", detail, event=self.event_id)
        self._notify({"type": "audit"})

    def _refused(self, action, who, err):
        self.store.audit(who, action + "_refused", err.to_dict(), event=self.event_id)
        self._notify({"type": "audit"})
        if isinstance(err, VenueError):
            return err
        return VenueError(getattr(err, "code", "store"), err.en, err.zh)

    async def _act(self, action, who, detail, body):
        """Audit first, then ``body()`` (a coroutine function); refusals audited and raised."""
        who = self._who(who)
        self._requested(action, who, detail)
        try:
            return await body(who)
        except CodedError as e:
            raise self._refused(action, who, e) from None

    async def _control(self, action, who, hub, op, fields):
        """Send a control op to a hub and wait for its reply (audited as ``<action>_reply``)."""
        if not self._online.get(hub):
            raise VenueError("hub_offline", "hub %s (table %s) is offline: the request was not sent; go to the table"
                             % (hub, self._hubs[hub]), "桌机 %s（第 %s 桌）离线：请求未发送；请到桌前处理" % (hub, self._hubs[hub]))
        cid = uuid.uuid4().hex
        body = dict(fields, v=1, id=cid, op=op)
        try:
            wire.check_control(body)
        except wire.WireError as e:
            raise VenueError("bad_request", e.en, e.zh) from None
        self.store.add_control(cid, self.event_id, hub, op, body)
        fut = asyncio.get_running_loop().create_future()
        self._pending[cid] = fut
        self._pub(wire.venue_topic(self.event_id, "control", hub), body)
        try:
            reply = await asyncio.wait_for(fut, self.reply_timeout)
        except asyncio.TimeoutError:
            raise VenueError("no_reply", "hub %s did not answer within %g s; the request may still arrive: watch the table"
                             % (hub, self.reply_timeout), "桌机 %s 在 %g 秒内未回复；请求可能稍后到达：请留意该桌"
                             % (hub, self.reply_timeout)) from None
        finally:
            self._pending.pop(cid, None)
        self.store.audit(who, action + "_reply", dict(reply, hub=hub, op=op), event=self.event_id)
        self._notify({"type": "audit"})
        if not reply.get("ok"):
            raise VenueError(reply.get("code", "refused"), reply.get("en", "the hub refused"), reply.get("zh"))
        return {"ok": True, "id": cid, "hub": hub, "table": self._hubs[hub], "op": op}

    def _end_board_at(self, rnd, table, who, reason):
        """Tell a forfeited match's hub to end the round's board at its table (authenticated
        like every control: the hub's own venue topic).  Not awaited: the forfeit is scored
        either way, and a result the hub sent before it ended is kept, not counted.  Sent again
        until the hub answers (:meth:`_resend_controls`): the hub may be away now."""
        hub = self._hub_of_table(table)
        body = {"v": 1, "id": uuid.uuid4().hex, "op": "end_board", "round": rnd, "by": who,
                "reason": "forfeit: %s" % reason}
        self.store.add_control(body["id"], self.event_id, hub, "end_board", body)
        self._unanswered[body["id"]] = [hub, body, time.monotonic()]
        self._pub(wire.venue_topic(self.event_id, "control", hub), body)

    def _send_start(self, rnd, hub):
        """Send (or send again, same id: the hub answers a repeated id as before) a round's
        start, with the round key: the one moment the key leaves the venue.  The store keeps
        the op without the key (it is derived from the event secret each time it is sent)."""
        cid = self._start_sent.get((rnd, hub), (None, 0))[0]
        body = {"v": 1, "id": cid or uuid.uuid4().hex, "op": "start", "round": rnd}
        if cid is None:
            self.store.add_control(body["id"], self.event_id, hub, "start", body)
        self._start_sent[(rnd, hub)] = (body["id"], time.monotonic())
        body["round_key"] = deals_.round_key(self.config.secret, rnd).hex()
        self._pub(wire.venue_topic(self.event_id, "control", hub), body)
        return body["id"]

    async def pause(self, table, who, reason):
        """Pause a table (its clocks stop; the seats show 暂停 (裁判)).  Returns the hub's
        confirmation ``{"ok": True, "id", "hub", "table", "op"}``."""
        async def body(who):
            if not isinstance(reason, str) or not reason.strip():
                raise VenueError("no_reason", "say why the table is paused", "请写明暂停原因")
            hub = self._hub_of_table(table)
            why_not = console_.pause_refusal(self._row(str(table), hub, 0), self._live.get(hub, (None,))[0],
                                            self.finished.is_set())
            if why_not is not None:
                raise VenueError(*why_not)
            return await self._control("pause", who, hub, "pause", {"by": who, "reason": reason.strip()})
        return await self._act("pause", who, {"table": table, "reason": reason}, body)

    async def resume(self, table, who):
        """Resume a paused table."""
        async def body(who):
            return await self._control("resume", who, self._hub_of_table(table), "resume", {"by": who})
        return await self._act("resume", who, {"table": table}, body)

    async def replace(self, table, seat, dev, who, reason):
        """Move a seat of a table to another seat board ``dev`` (a spare in the hub's table.toml)."""
        async def body(who):
            if seat not in self.seats:
                raise VenueError("bad_request", "seat must be one of %s, not %r" % (", ".join(self.seats), seat),
                                 "座位必须是 %s 之一" % "、".join(self.seats))
            if not isinstance(reason, str) or not reason.strip():
                raise VenueError("no_reason", "say why the seat board is replaced", "请写明更换座位板的原因")
            return await self._control("replace", who, self._hub_of_table(table), "replace",
                                       {"seat": seat, "dev": dev, "by": who, "reason": reason.strip()})
        return await self._act("replace", who, {"table": table, "seat": seat, "dev": dev, "reason": reason}, body)

    async def note(self, table, seat, en, zh, who):
        """Show a referee's message on one seat (``seat``) or every seat (``seat=None``) of a table."""
        async def body(who):
            if seat is not None and seat not in self.seats:
                raise VenueError("bad_request", "seat must be one of %s or none" % ", ".join(self.seats), "座位无效")
            return await self._control("note", who, self._hub_of_table(table), "note", {"seat": seat, "en": en, "zh": zh})
        return await self._act("note", who, {"table": table, "seat": seat, "en": en, "zh": zh}, body)

    async def ack_alert(self, alert_id, who):
        """Acknowledge an alert.  For a seat's call (``call``) the hub is told too, and the seat
        shows "裁判已收到，请稍候 / A referee is on the way".  Returns ``{"ok": True, "alert": id,
        "hub_reply": reply or None, "hub_error": {code, en, zh} or None}``: the acknowledgement
        stands even when the hub cannot be told (it is offline)."""
        async def body(who):
            try:
                alert = self.store.alert(alert_id)
            except StoreError:
                raise VenueError("unknown_alert", "there is no alert %r" % (alert_id,), "没有提醒 %r" % (alert_id,)) from None
            self.store.ack_alert(alert_id, who)
            self._notify({"type": "alert"})
            self._notify({"type": "audit"})
            out = {"ok": True, "alert": alert_id, "hub_reply": None, "hub_error": None}
            seat = alert["fields"].get("seat")
            if alert["kind"] == "call" and alert["hub"] in self._hubs and seat in self.seats:
                try:
                    out["hub_reply"] = await self._control("ack_alert", who, alert["hub"], "ack_call", {"seat": seat, "by": who})
                except VenueError as e:
                    out["hub_error"] = e.to_dict()
            if alert["table"] is not None:
                self._notify({"type": "table", "table": alert["table"]})
            return out
        return await self._act("ack_alert", who, {"alert": alert_id}, body)

    async def adjust(self, result_id, field, value, who, why, unbalanced=None):
        """Correct ``score``, ``think_ms`` or ``player`` of a stored result, with a reason.  The
        result as received is kept; the standings use the corrected value.  A score that makes
        its deal add up to another total than it was played with is refused (``not_balanced``)
        unless ``unbalanced`` says why (:mod:`paizhuo.venue.adjust`; :meth:`adjust_deal` corrects
        every seat at once).  Returns ``{"ok": True, "adjustment": id, "result_id", "field",
        "value", "warning"}``."""
        async def body(who):
            extra = {}
            if not isinstance(why, str) or not why.strip():
                raise VenueError("no_reason", "every referee decision needs a reason (why); nothing was changed",
                                 "裁判的每个决定都必须写明原因；未做任何改动")
            if field == "score":
                try:
                    r = self.store.result(result_id)
                except StoreError:
                    r = None
                if r is not None and r["score"] != value:
                    rows = adjust_.deal_rows(self.results(), r["round"], r["table"], r["board"])
                    _, _, after = adjust_.plan(rows, {r["seat"]: value})
                    adjust_.balance(adjust_.played_total(rows, adjust_.by_result(self.store, self.event_id)), after,
                                    unbalanced)
                    if unbalanced:
                        extra["unbalanced"] = unbalanced.strip()
            aid = self.store.adjust_many([(result_id, field, value)], who, why, extra)[0]
            return dict(self._adjusted(self.store.result(result_id)["round"]), adjustment=aid, result_id=result_id,
                        field=field, value=value)
        return await self._act("adjust", who, {"result_id": result_id, "field": field, "value": value, "why": why,
                                               "unbalanced": unbalanced}, body)

    def _adjusted(self, rnd):
        """After a correction of round ``rnd``: the standings follow, the pages are told, and the
        answer warns when a later round was seated from the standings before it."""
        self._dirty.set()
        self._notify({"type": "audit"})
        self._notify({"type": "standings"})
        for t in self._hubs.values():
            self._notify({"type": "table", "table": t})
        if self._rounds.get(rnd) is not None and self._rounds[rnd].closed:
            self._publish_records(rnd)
        return {"ok": True, "warning": adjust_.later_rounds(self.rounds(), rnd)}

    async def adjust_deal(self, rnd, table, board, scores, who, why, unbalanced=None, actions=None):
        """Correct the scores of one deal at one table as a whole (``scores``: seat → score; seats
        left out keep theirs; or ``actions``: the deal's corrected record, replayed through the
        game's engine from the venue's deal for the scores), with a reason, in one transaction.
        Refused (``not_balanced``) when the deal would add up to another total than it was
        played with, unless ``unbalanced`` says why.  Returns ``{"ok": True, "adjustments":
        [ids], "sum", "scores", "warning"}`` (:func:`paizhuo.venue.adjust.later_rounds`)."""
        async def body(who):
            rows = adjust_.deal_rows(self.results(), rnd, table, board)
            if not rows:
                raise VenueError("unknown_deal", "table %s has no result of round %r board %r" % (table, rnd, board),
                                 "第 %s 桌没有第 %r 轮第 %r 副的成绩" % (table, rnd, board))
            new = scores
            if actions is not None:
                new = adjust_.replayed_scores(self.game, self.config.rules,
                                              self._deal(rnd, adjust_._group(rows[0].get("group")), board), actions)
            changes, _, after = adjust_.plan(rows, new)
            if not changes:
                raise VenueError("no_change", "the deal already has these scores", "该副牌已经是这些分数")
            adjust_.balance(adjust_.played_total(rows, adjust_.by_result(self.store, self.event_id)), after, unbalanced)
            extra = {"round": rnd, "table": str(table), "board": board}
            if unbalanced:
                extra["unbalanced"] = unbalanced.strip()
            if actions is not None:
                extra["from_record"] = len(actions)
            ids = self.store.adjust_many([(rid, "score", v) for rid, _, v in changes], who, why, extra)
            return dict(self._adjusted(rnd), adjustments=ids, sum=after, scores=new)
        return await self._act("adjust_deal", who, {"round": rnd, "table": table, "board": board, "scores": scores,
                                                    "actions": actions, "why": why, "unbalanced": unbalanced}, body)

    async def reseat_round(self, rnd, who, why):
        """Seat round ``rnd`` again from the standings as they are now (after a correction of an
        earlier round), and publish the new specs: only the last round seated, before it
        starts.  Returns ``{"ok": True, "round", "tables"}``."""
        async def body(who):
            rd = self._rounds.get(rnd) if type(rnd) is int else None
            if rd is None or rnd != self.round or rnd == 1:
                raise VenueError("unknown_round", "only the round seated last (%d) can be seated again, after round 1"
                                 % self.round, "只能重新安排最后安排的一轮（第 %d 轮），且不能是第 1 轮" % self.round)
            if rd.started or rd.done:
                raise VenueError("round_started", "round %d has started: its seating stays as it is" % rnd,
                                 "第 %d 轮已开始：座位保持不变" % rnd)
            async with self._lock:
                await self._recompute_locked()
                self.store.clear_seating(self.event_id, rnd, who, why)
                del self._rounds[rnd]
                self._seat(rnd)
                self.store.save_standings(self.event_id, rnd - 1, self.standings(), who=who)
                self._publish_specs(self._rounds[rnd])
            self._notify({"type": "round", "round": rnd})
            for t in self._hubs.values():
                self._notify({"type": "table", "table": t})
            return {"ok": True, "round": rnd, "tables": len(self._rounds[rnd].specs)}
        return await self._act("reseat_round", who, {"round": rnd, "why": why}, body)

    async def release(self, result_id, who, why):
        """Count a held result in the standings from now on (a referee's decision, with a reason)."""
        async def body(who):
            self.store.release(result_id, who, why)
            self._dirty.set()
            self._notify({"type": "audit"})
            r = self.store.result(result_id)
            rd = self._rounds.get(r["round"])
            if rd is not None:
                rd.waiting_alert = False
                self._check_complete(r["round"])
            return {"ok": True, "result_id": result_id}
        return await self._act("release", who, {"result_id": result_id, "why": why}, body)

    async def close_board(self, rnd, group, board, who, reason):
        """Make a board public before every table of its group has a result for it (a table
        cannot finish it: its hub failed, the referees decided to go on without it).  Its
        scores, MP and places go into the public standings at once; a result that comes in
        later still counts.  Audited (``close_board_requested``, then ``close_board`` with the
        tables that had not finished it).  Returns ``{"ok": True, "round", "group", "board",
        "already" (it was public), "unfinished": [tables]}``."""
        async def body(who):
            if not isinstance(reason, str) or not reason.strip():
                raise VenueError("no_reason", "say why the board is made public before every table has played it",
                                 "请写明在各桌打完之前公开该副牌的原因")
            rd = self._rounds.get(rnd) if type(rnd) is int else None
            tables = sorted(s["table"] for s in rd.specs.values() if s["group"] == group and board in s["boards"]) \
                if rd is not None and type(group) is int and type(board) is int else []
            if not tables:
                raise VenueError("unknown_board", "round %r has no board %r in group %r" % (rnd, board, group),
                                 "第 %r 轮第 %r 组没有第 %r 副牌" % (rnd, group, board))
            key = (rnd, group, board)
            already = key in self.public_boards()
            unfinished = [t for t in tables if (t, board) not in rd.done]
            if not already:
                self._closed_boards.add(key)
                self.store.audit(who, "close_board", {"round": rnd, "group": group, "board": board,
                                                      "reason": reason.strip(), "unfinished": unfinished},
                                 event=self.event_id)
                self._notify({"type": "audit"})
                self._dirty.set()
            return {"ok": True, "round": rnd, "group": group, "board": board, "already": already,
                    "unfinished": unfinished}
        return await self._act("close_board", who, {"round": rnd, "group": group, "board": board, "reason": reason},
                               body)

    async def forfeit(self, rnd, table, side, who, reason):
        """Score a match of a match event as forfeited (弃权, seed 第三十四条 六): ``side`` (a side
        id of the match, or ``"both"``) did not play it; the other side scores 场分 2 and 级差分 17.
        ``table`` is any table of the match.  The match's tables need no result any more (one
        that comes in later is kept, not counted).  Returns ``{"ok": True, "match": {...}}``."""
        async def body(who):
            if not self._match:
                raise VenueError("bad_request", "only a pairs or teams event has matches to forfeit",
                                 "只有双人或团体赛才有可判弃权的比赛")
            if not isinstance(reason, str) or not reason.strip():
                raise VenueError("no_reason", "say why the match is forfeited", "请写明判弃权的原因")
            rd = self._rounds.get(rnd) if type(rnd) is int else None
            slot = self._slot(rnd, table) if rd is not None else None
            if slot is None:
                raise VenueError("unknown_table", "table %r plays no match in round %r" % (table, rnd),
                                 "第 %r 轮第 %r 桌没有比赛" % (rnd, table))
            if rd.closed:
                raise VenueError("round_over", "round %d is over" % rnd, "第 %d 轮已结束" % rnd)
            if side not in (slot.home, slot.away, "both"):
                raise VenueError("bad_request", "side must be %s, %s or \"both\", not %r" % (slot.home, slot.away, side),
                                 "弃权方必须是 %s、%s 或 both" % (slot.home, slot.away))
            row = {"round": rnd, "a": slot.home, "b": slot.away, "match_id": slot.match_id,
                   "forfeit": "both" if side == "both" else ("a" if side == slot.home else "b")}
            self.store.add_match(self.event_id, row)
            self.store.audit(who, "forfeit", dict(row, reason=reason.strip(), tables=slot.tables), event=self.event_id)
            self._forfeit_done(row)
            self._dirty.set()
            self._notify({"type": "audit"})
            for t in slot.tables:
                self._end_board_at(rnd, t, who, reason.strip())
                self._notify({"type": "table", "table": t})
            self._check_complete(rnd)
            return {"ok": True, "match": dict(slot.to_dict(), forfeit=side)}
        return await self._act("forfeit", who, {"round": rnd, "table": table, "side": side, "reason": reason}, body)

    async def start_round(self, rnd, who):
        """Start round ``rnd`` at every table (its deals may begin once the seats have checked
        in).  Starting the next round while the current one is complete but waits on held
        results closes the current one as it stands (the referees accept the holds).  Returns
        ``{"ok": True, "round", "already": bool, "hubs": {hub: control id}}``; the hubs'
        replies arrive later (a hub that is offline gets the start when it is back)."""
        async def body(who):
            if type(rnd) is not int or rnd < 1 or rnd > self.config.rounds:
                raise VenueError("unknown_round", "the event has rounds 1 to %d, not %r" % (self.config.rounds, rnd),
                                 "本赛事只有第 1 到 %d 轮" % self.config.rounds)
            if rnd < self.round or (rnd == self.round and self._rounds[rnd].closed):
                raise VenueError("round_over", "round %d is over" % rnd, "第 %d 轮已结束" % rnd)
            if rnd == self.round + 1:
                cur = self._rounds[self.round]
                if not cur.complete():
                    raise VenueError("not_ready", "round %d is not complete: %d of %d deals are in"
                                     % (self.round, len(cur.done), cur.expected()),
                                     "第 %d 轮尚未完成：已收到 %d/%d 副" % (self.round, len(cur.done), cur.expected()))
                await self._complete(self.round, force=True, who=who)
            elif rnd > self.round:
                raise VenueError("not_ready", "round %d comes after round %d" % (rnd, self.round + 1),
                                 "第 %d 轮须在第 %d 轮之后" % (rnd, self.round + 1))
            rd = self._rounds[rnd]
            already = self.store.start_round(self.event_id, rnd, who) == "duplicate"
            rd.started = True
            sent = {hub: self._send_start(rnd, hub) for hub in sorted(rd.specs)}
            for t in rd.tables:
                self._notify({"type": "table", "table": t})
            self._notify({"type": "round", "round": rnd})
            return {"ok": True, "round": rnd, "already": already, "hubs": sent}
        return await self._act("start_round", who, {"round": rnd}, body)
