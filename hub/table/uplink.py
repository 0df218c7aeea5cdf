"""The venue uplink: a table hub's MQTT link to the venue service (venue mode).

:class:`Uplink` sits beside a :class:`~paizhuo.table.runtime.Table` in the same event loop and
connects it to the venue through the broker (``hub/mqtt/client.py``)::

    Table ──on_entry (result)──► ResultBuilder ─► Outbox (SQLite) ─► hub/<hub>/result  (QoS 1)
          ──on_alert─────────────────────────────► Outbox ─────────► hub/<hub>/alert   (QoS 1)
          ──on_change ─► snapshot() (≤ 10/s) ───────────────────────► hub/<hub>/live    (QoS 0)
    venue/ack/<hub>     ─► Outbox.ack(epoch, upto)
    venue/round/<hub>   ─► Table.load_round(spec)                ─► hub/<hub>/reply
    venue/control/<hub> ─► Table.start_round (with the round key) / pause / resume / ack_call /
                           replace_device / note                 ─► hub/<hub>/reply
    connect             ─► hub/<hub>/status {"online": true} (retained); the last will says false

**The log's end is anchored.**  Every result and alert carries ``chain``, the head of the
table's log (``{"table", "seq", "hash"}``) when it was made; the venue keeps the highest one it
acknowledged, and the hub keeps it beside its log (``Table.keep_head``), so a log whose end was
cut off no longer reaches a head that was published (``paizhuo hub verify``, the hub's start).

**Nothing is lost.**  A result is written to the table's event log first (the table does
that), then put in the outbox under its result key; every unacknowledged outbox message is
sent again on every (re)connect and every ``resend_seconds`` while connected and the venue's
acknowledgements have not moved the cursor for that long, until the venue
acknowledges it by cursor.  A hub killed between the log commit and the outbox write loses
nothing either: on start the uplink reads the whole log again and puts every result (a key
already in the outbox is ignored), so the missing one is added then.

**Controls are idempotent** by their ``id``: a repeated id gets the first reply again and
does not act twice (the last 1000 ids are remembered).  A payload that fails the wire check
is refused with ``ok: false`` (when it carries a usable id) and changes nothing.

Construct the uplink before ``Table.run`` (it reads the log and hooks the table's callbacks),
then run both::

    table = Table(cfg)
    uplink = Uplink(cfg, table)
    await asyncio.gather(table.run(stop), uplink.run(stop))
"""

import asyncio
import collections
import json
import re
import sys
import time
import traceback
import uuid

from .. import __version__
from ..errors import CodedError
from ..mqtt import wire
from ..mqtt.outbox import Outbox, OutboxError
from .results import ResultBuilder, ResultsError
from .runtime import TableError

__all__ = ["Uplink", "LIVE_INTERVAL", "LIVE_REFRESH", "REPLY_MEMORY"]

LIVE_INTERVAL = 0.1  # seconds: at most ten live snapshots a second
LIVE_REFRESH = 5.0  # seconds: a snapshot at least this often, so the venue sees the hub is alive
REPLY_MEMORY = 1000  # control ids remembered for idempotent replies
RESEND_MAX_S = 60.0  # seconds: the longest wait between resends while the venue acknowledges nothing
_REPLY_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what a reply's id may be (wire.check_reply)


class Uplink:
    """One hub's link to the venue (see the module doc).

    - ``config``: the :class:`~paizhuo.table.config.TableConfig` (its ``[venue]`` is used);
    - ``table``: the :class:`~paizhuo.table.runtime.Table`, not yet running;
    - ``client``: an :class:`~paizhuo.mqtt.client.MqttClient` not yet started (default: one
      made from ``[venue]`` with the status will, ``clean_session=False``);
    - ``log``: where refusals and link problems are written (default stderr).

    Attributes for tests and staff: ``outbox``, ``client``, ``refused`` (payloads refused at
    the wire, newest last), ``replies`` (the replies sent, by control id: the last 1000),
    ``published_live`` (snapshots sent).
    """

    def __init__(self, config, table, client=None, log=None):
        if config.venue is None:
            raise ValueError("the configuration has no [venue]: a standalone hub has no uplink")
        self.config = config
        self.venue = v = config.venue
        self.table = table
        self.hub = config.hub
        self._log = log or (lambda text: print("paizhuo hub uplink: %s" % text, file=sys.stderr, flush=True))
        self.topics = {leaf: wire.hub_topic(v.event, self.hub, leaf)
                       for leaf in ("status", "live", "result", "alert", "reply")}
        self.inbound = {wire.venue_topic(v.event, leaf, self.hub): leaf for leaf in ("ack", "round", "control")}
        self.outbox = Outbox(v.outbox)
        offline = wire.dumps({"v": 1, "hub": self.hub, "table": config.table, "online": False})
        self.client = client or v.client(v.username, will=(self.topics["status"], offline, 1, True),
                                         clean_session=False)
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect
        self.refused = collections.deque(maxlen=100)
        self.published_live = 0
        self.replies = collections.OrderedDict()  # control id -> reply dict
        self._builder = ResultBuilder(config)
        self._live_at = 0.0  # monotonic time of the last live publish
        self._progress_at = time.monotonic()  # the last ack that moved the cursor, or the last resend
        self._resend_wait = config.venue.resend_s  # doubles after each resend that brings no ack
        self._live_timer = None
        self._stopping = False
        # Hook the table: keep what was there (the CLI prints alerts) and add ours.
        self._chain_entry, self._chain_alert, self._chain_change = table.on_entry, table.on_alert, table.on_change
        table.on_entry = self._on_entry
        table.on_alert = self._on_alert
        table.on_change = self._on_change
        self.rescan()

    # ---- the outbox ---------------------------------------------------------------------

    def rescan(self):
        """Put every result of the log in the outbox (keys already there are ignored): what
        a crash between a log commit and its outbox write would otherwise lose.  Returns
        how many were missing."""
        self._builder = ResultBuilder(self.config)
        added = 0
        for e in self.table.log.entries():
            added += self._feed(e, send=False)
        return added

    def _feed(self, entry, send=True):
        try:
            msg = self._builder.feed(entry)
        except ResultsError as e:
            self._log("cannot report entry %d: %s" % (entry.seq, e.en))
            # Keyed by the entry: a rescan after a restart does not raise it again.
            self._on_alert({"kind": "hub_error", "hub": self.hub, "table": self.config.table,
                            "error": "result not reported: %s" % e.en}, key="alert/entry-%d" % entry.seq)
            return 0
        if msg is None:
            return 0
        body = dict({"v": 1, "kind": "result", "hub": self.hub, "table": self.config.table, "at": entry.at_ms}, **msg)
        key = "result/%s/%s/r%s/g%s/b%s" % (self.hub, self.config.table, msg["round"], msg["group"], msg["board"])
        return self._put(key, "result", body, send)

    def _put(self, key, leaf, body, send=True):
        # The log's head goes with every message (the venue keeps the highest acknowledged one), and
        # the hub keeps it beside the log first, so its own kept head is never behind the venue's.
        self.table.keep_head()
        body = dict(body, chain=self.table.log.head)
        try:
            n = self.outbox.put(key, self.topics[leaf], body)
        except wire.WireError as e:
            if e.code == "too_big" and leaf == "result":
                self._too_big(key, body, e)
            else:
                self._log("cannot keep %s in the outbox: %s" % (key, e.en))
            return 0
        except OutboxError as e:  # a disk problem: say it loudly
            self._log("cannot keep %s in the outbox: %s" % (key, e.en))
            return 0
        if n is None:
            return 0
        if send and self.client.connected:
            got = self.outbox.get(key)
            if not self.outbox.unacked - 1:  # nothing else outstanding: the ack clock starts now
                self._progress_at = time.monotonic()
            try:
                self.client.publish(got[1], got[2], qos=1)
            except CodedError as e:  # kept in the outbox: the resend sends it
                self._log("cannot send %s now: %s" % (key, e.en))
        return 1

    def _too_big(self, key, body, err):
        """A result over the broker's packet limit cannot go over MQTT (the broker would drop
        the hub's connection, again at every resend).  It stays in the table's log, where
        ``paizhuo hub results`` exports it; the referees are told by an alert (keyed by the
        result: a rescan after a restart logs it again but does not alert twice)."""
        size = len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        where = "round %s board %s" % (body.get("round"), body.get("board"))
        en = ("the result of %s (%d bytes) is over the %d-byte limit of the venue link and cannot be sent; "
              "it is kept in the table log %s: export it with `paizhuo hub results --config <table.toml>` "
              "and hand the file to the venue's referees"
              % (where, size, wire.MAX_RESULT_PAYLOAD, self.config.log))
        zh = ("第 %s 轮第 %s 副的成绩（%d 字节）超过场馆链路 %d 字节的上限，无法发送；成绩仍保存在牌桌日志 %s 中："
              "请用 `paizhuo hub results --config <table.toml>` 导出，并把文件交给场馆裁判"
              % (body.get("round"), body.get("board"), size, wire.MAX_RESULT_PAYLOAD, self.config.log))
        self._log(en)
        self._log(zh)
        self._on_alert({"kind": "result_too_big", "round": body.get("round"), "group": body.get("group"),
                        "board": body.get("board"), "bytes": size, "limit": wire.MAX_RESULT_PAYLOAD,
                        "en": en, "zh": zh}, key="alert/too-big/" + key)

    def _on_entry(self, entry):
        self._chain_entry(entry)
        self._feed(entry)

    def _on_alert(self, alert, key=None):
        self._chain_alert(alert)
        fields = {k: v for k, v in alert.items() if k not in ("kind", "hub", "table", "v", "epoch", "n", "at")}
        body = dict(fields, v=1, kind="alert", hub=self.hub, table=self.config.table, at=int(time.time() * 1000),
                    alert=alert["kind"])
        self._put(key or "alert/%s" % uuid.uuid4().hex, "alert", body)

    def resend(self):
        """Publish every unacknowledged outbox message (only while connected: paho would
        queue each again while offline).  Returns how many were sent."""
        if not self.client.connected:
            return 0
        self._progress_at = time.monotonic()
        pending = self.outbox.pending()
        for n, topic, payload in pending:
            try:
                self.client.publish(topic, payload, qos=1)
            except CodedError as e:  # the client's queue refused it: the next round of resends tries again
                self._log("cannot send message %d now: %s" % (n, e.en))
                return 0
        return len(pending)

    # ---- live snapshots -------------------------------------------------------------------

    def snapshot(self):
        """The table's live snapshot plus ``unacked``: for the venue and its referees only (it
        lists the plays of a board other tables may still be playing; the ``monitor`` login
        cannot read ``hub/<hub>/live``)."""
        snap = self.table.snapshot()
        snap["unacked"] = self.outbox.unacked
        return snap

    def _on_change(self):
        self._chain_change()
        self._schedule_live()

    def _schedule_live(self):
        """Publish now if the last one is 100 ms old, else once at the end of the 100 ms."""
        if self._live_timer is not None or self._stopping:
            return
        wait = self._live_at + LIVE_INTERVAL - time.monotonic()
        if wait <= 0:
            self.publish_live()
        else:
            self._live_timer = asyncio.get_running_loop().call_later(wait, self._timer_live)

    def _timer_live(self):
        self._live_timer = None
        self.publish_live()

    def publish_live(self):
        if not self.client.connected:
            return
        self._live_at = time.monotonic()
        try:
            self.client.publish(self.topics["live"], wire.dumps(self.snapshot()), qos=0)
            self.published_live += 1
        except Exception:  # a snapshot that cannot be sent must never stop the table
            traceback.print_exc()

    # ---- the connection --------------------------------------------------------------------

    def _on_connect(self):
        status = {"v": 1, "hub": self.hub, "table": self.config.table, "online": True,
                  "at": int(time.time() * 1000), "fw": "paizhuo %s" % __version__}
        self.client.publish(self.topics["status"], wire.dumps(status), qos=1, retain=True)
        self.resend()
        self.publish_live()

    async def run(self, stop):
        """Connect once the table has restored its log, serve until ``stop`` is set, then
        say ``offline`` (retained) and disconnect."""
        waiter = asyncio.ensure_future(stop.wait())
        started = asyncio.ensure_future(self.table.started.wait())
        try:
            await asyncio.wait({waiter, started}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            started.cancel()
        if stop.is_set():
            waiter.cancel()
            self.outbox.close()
            return
        # Subscribed before the connection: the client subscribes on every (re)connect, and
        # the retained round spec arrives with the subscription.
        for topic in self.inbound:
            self.client.subscribe(topic, 1)
        await self.client.start()
        ticker = asyncio.ensure_future(self._ticker())
        try:
            await waiter
        finally:
            self._stopping = True
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)
            if self._live_timer is not None:
                self._live_timer.cancel()
            if self.client.connected:
                offline = {"v": 1, "hub": self.hub, "table": self.config.table, "online": False,
                           "at": int(time.time() * 1000)}
                mid = self.client.publish(self.topics["status"], wire.dumps(offline), qos=1, retain=True)
                try:
                    await self.client.published(mid, 2.0)
                except CodedError:
                    pass
            await self.client.stop()
            self.outbox.close()

    async def _ticker(self):
        """Re-send unacknowledged messages when the acknowledgements stall
        (:meth:`resend_if_stalled`); a live snapshot at least every LIVE_REFRESH seconds."""
        while True:
            await asyncio.sleep(min(self.venue.resend_s, LIVE_REFRESH, 1.0))
            now = time.monotonic()
            self.resend_if_stalled(now)
            if now - self._live_at >= LIVE_REFRESH:
                self.publish_live()

    def resend_if_stalled(self, now):
        """Re-send what is unacknowledged if the venue's acknowledgements have not moved the
        cursor for the resend wait; returns how many were sent.

        While the cursor moves, what is unacknowledged is on its way (a burst) and resending it
        would only add copies to the venue's queue.  Each resend that brings no acknowledgement
        doubles the wait, from ``resend_seconds`` up to RESEND_MAX_S, so a venue working
        through a backlog is not buried; an acknowledgement that moves the cursor resets it.
        """
        if not self.outbox.unacked or now - self._progress_at < self._resend_wait:
            return 0
        sent = self.resend()
        if sent:
            self._resend_wait = min(self._resend_wait * 2, max(RESEND_MAX_S, self.venue.resend_s))
        return sent

    # ---- the venue's messages ---------------------------------------------------------------

    def _on_message(self, topic, payload):
        leaf = self.inbound.get(topic)
        if leaf is None:
            self._refuse(topic, payload, wire.WireError("unknown_topic", "topic %s is not one this hub reads" % topic,
                                                        "本主机不读取主题 %s" % topic))
            return
        try:
            if leaf == "ack":
                self._on_ack(wire.check_ack(payload))
            elif leaf == "round":
                self._on_round(payload)
            else:
                self._on_control(payload)
        except wire.WireError as e:  # a malformed ack: refused, nothing changes
            self._refuse(topic, payload, e)
        except Exception as e:  # a hub bug must not break the link: alert and carry on
            traceback.print_exc()
            self._on_alert({"kind": "hub_error", "hub": self.hub, "table": self.config.table,
                            "error": "handling %s: %r" % (leaf, e)})

    def _refuse(self, topic, payload, err, reply_id=None):
        self.refused.append({"topic": topic, "payload": bytes(payload[:2000]) if payload else b"",
                             "code": err.code, "en": err.en})
        self._log("refused a message on %s: %s" % (topic, err.en))
        if reply_id is not None:
            self._reply(reply_id, err)

    def _on_ack(self, msg):
        try:
            done = self.outbox.ack(msg["epoch"], msg["upto"])
        except OutboxError as e:
            self._refuse(self.topics["result"], wire.dumps(msg), e)
            return
        if done:
            self._progress_at = time.monotonic()
            self._resend_wait = self.venue.resend_s
            self._schedule_live()  # "unacked" changed

    @staticmethod
    def _id_of(payload):
        """The ``id`` of a payload that failed its check, if it is one a reply may carry."""
        try:
            msg = json.loads(payload)
        except (ValueError, TypeError, RecursionError):   # the payload already failed its check
            return None
        rid = msg.get("id") if isinstance(msg, dict) else None
        return rid if isinstance(rid, str) and _REPLY_ID.fullmatch(rid) else None

    def _on_round(self, payload):
        topic = wire.venue_topic(self.venue.event, "round", self.hub)
        try:
            spec = wire.check_round(payload)
        except wire.WireError as e:
            self._refuse(topic, payload, e, self._id_of(payload))
            return
        try:
            self.table.load_round(spec)
        except TableError as e:
            self._refuse(topic, payload, e, spec["id"])
            return
        self._reply(spec["id"], None)

    def _on_control(self, payload):
        topic = wire.venue_topic(self.venue.event, "control", self.hub)
        try:
            msg = wire.check_control(payload)
        except wire.WireError as e:
            err = CodedError("bad_control", "control refused: %s" % e.en, "控制指令被拒绝：%s" % e.zh)
            self._refuse(topic, payload, err, self._id_of(payload))
            return
        cid = msg["id"]
        if cid in self.replies:  # the same control again: the same answer, no second action
            self.client.publish(self.topics["reply"], wire.dumps(self.replies[cid]), qos=1)
            return
        t = self.table
        op = msg["op"]
        try:
            if op == "start":
                t.start_round(msg["round"], msg["round_key"])
            elif op == "pause":
                t.pause(by=msg["by"], reason=msg.get("reason", ""))
            elif op == "resume":
                t.resume(by=msg["by"])
            elif op == "ack_call":
                t.ack_call(msg["seat"], by=msg["by"])
            elif op == "replace":
                t.replace_device(msg["seat"], msg["dev"], by=msg["by"], reason=msg.get("reason", ""))
            elif op == "note":
                t.note(msg["seat"], msg["en"], msg["zh"])
            elif op == "end_board":
                t.end_board(msg["round"], by=msg["by"], reason=msg["reason"])
        except CodedError as e:  # TableError, or a log that cannot be written
            self._reply(cid, e)
            return
        except Exception as e:
            traceback.print_exc()
            self._reply(cid, CodedError("hub_error", "the hub failed to carry out %s: %r" % (op, e),
                                        "主机执行 %s 时出错：%r" % (op, e)))
            return
        self._reply(cid, None)

    def _reply(self, cid, err):
        reply = {"v": 1, "id": cid, "ok": err is None}
        if err is not None:
            reply.update(code=err.code, en=err.en, zh=err.zh)
        self.replies[cid] = reply
        while len(self.replies) > REPLY_MEMORY:
            self.replies.popitem(last=False)
        self.client.publish(self.topics["reply"], wire.dumps(reply), qos=1)
