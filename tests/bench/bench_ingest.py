"""Benchmark: results ingested per second by the real venue through a real broker (issue #5).

Everything is the production path except the hubs' tables:

- **broker**: mosquitto with the production configuration ``paizhuo broker config`` writes
  (a password per client, topic ACLs, ``set_tcp_nodelay``, persistence), on a free loopback port;
- **venue**: :class:`paizhuo.venue.service.Venue` in this process, its store a real SQLite file
  in a temp folder (WAL, ``synchronous=FULL``: one fsynced transaction per message), its link
  the project's MQTT client with the venue's password and a persistent session;
- **hubs**: N MQTT clients in a second process (the hubs are other machines at a real event),
  each logged in as its hub with its own password, keeping to the uplink's side of the contract:
  ``status`` online (retained) with the offline will, subscribed to its ``ack``, ``round`` and
  ``control`` topics, answering the round spec and the start, and re-sending every unacknowledged
  message when the venue's acknowledgements have not moved for 5 s (the uplink's rule and its
  ``resend_seconds``).  Each hub derives its deals as the real
  hub does (the round key that comes with the venue's start → deal, checked against the spec's
  deal hash) and plays them with the real engine and bots before the clock starts; its result
  messages are the contract's (four rows, the deal record, every action, the result), checked
  with ``wire.check_result``.

Measured:

1. **The burst**: every hub publishes all its results at once (QoS 1) — what a venue sees when
   the broker comes back and every hub re-sends its outbox, or when a round's last boards end
   together.  Results/s from the first publish to the last acknowledgement back at the hubs; the
   acknowledgement round trip per message (publish → ``venue/ack`` covering it, at the hub); how
   long after the last result was stored the venue's standings include it (in the venue, and on
   the wire: a ``monitor`` client's retained ``venue/standings``); the longest stall of the
   venue's event loop (its web pages share it).  Quick: 10 hubs × 20 results.  Full: 500 hubs ×
   4 results (2,000), and 500 hubs × 10 (5,000: a burst longer than the 5 s resend time; a hub
   re-sends only if its acknowledgements stall that long).  The venue must store each result exactly once and
   refuse nothing, or the benchmark fails.
2. **One at a time**: hubs in turn publish one result and wait for its acknowledgement (an
   otherwise idle venue, as during play): the acknowledgement round trip.
3. **The whole hub path**: a real ``paizhuo hub`` process (all four seats bots,
   ``bot_think_seconds = 0``) with ``[venue]`` on its own production-configured mosquitto and its
   own venue: from the hub's ``result`` log entry (``at_ms``) to the venue's stored message
   (``received_at`` in the venue's inbox), per deal.

Run alone with ``python tests/bench/bench_ingest.py [--quick]``; ``tests/bench/run.py`` picks up
:func:`section`.  (``--hubs <file>`` is the hub process this script starts for itself.)
"""

import asyncio
import datetime
import json
import os
import random
import secrets
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/, for brokers

from brokers import MOSQUITTO, Mosquitto, free_port  # noqa: E402
from timing import percentile  # noqa: E402

from paizhuo.bots.bigtwo import BigTwoBot  # noqa: E402
from paizhuo.mqtt import wire  # noqa: E402
from paizhuo.mqtt.client import MqttClient  # noqa: E402
from paizhuo.mqtt.mosquitto import read_password_file, write_config  # noqa: E402
from paizhuo.rules.bigtwo import SEATS, Action, BigTwo  # noqa: E402
from paizhuo.venue import deals  # noqa: E402

RESEND_S = 5.0          # the uplink's default resend_seconds
SECRET = "text:paizhuo ingest benchmark secret"


# ---- the hubs' process -----------------------------------------------------------------------------

def play(spec, round_key, board, seed):
    """The result body of ``board`` of a round spec: the deal from the round key (checked against
    the spec's deal hash when it gives one), played by the real engine with four bots; each table
    sometimes plays a random legal move instead of the bot's, so tables score differently (as in
    ``tests/venue_web_sim.SimHub``)."""
    rec = deals.deal_from_round_key(bytes.fromhex(round_key), spec["game"], spec["group"], board, round=spec["round"])
    want = (spec.get("deal_hashes") or {}).get(str(board), rec.hash)
    if rec.hash != want:
        raise RuntimeError("board %d: the round key gives deal hash %s, the spec says %s" % (board, rec.hash, want))
    game = BigTwo(rec.to_engine_deal())
    bots = {s: BigTwoBot(seed * 100 + board) for s in SEATS}
    rng = random.Random(seed * 7919 + board)
    for s in SEATS:
        game.apply(Action.show(s, False).with_meta(think_ms=rng.randrange(500, 4000, 10)))
    while game.to_act():
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        a = rng.choice(legal) if rng.random() < 0.35 else bots[seat].choose(game.view(seat), legal)
        game.apply(a.with_meta(think_ms=rng.randrange(300, 9000, 10)))
    res = game.result()
    rows = [{"result_id": "%s/%s/r%d/g%d/b%d/%s" % (spec["hub"], spec["table"], spec["round"], spec["group"], board, s),
             "round": spec["round"], "group": spec["group"], "board": board, "table": spec["table"], "seat": s,
             "player": spec["players"][s]["id"], "score": res.scores[s], "think_ms": res.think_ms[s],
             "auto_moves": res.auto_moves[s], "deal_hash": rec.hash, "bot": bool(spec["players"][s].get("bot"))}
            for s in SEATS]
    return {"round": spec["round"], "group": spec["group"], "board": board, "deal": board - 1, "deal_hash": rec.hash,
            "rows": rows, "record": {"deal": rec.to_dict(), "actions": [a.to_dict() for a in game.actions],
                                     "result": res.to_dict()}}


class Hub:
    """One simulated hub's link (the uplink's side of the contract, without a table)."""

    def __init__(self, event, hub, table, host, port, password, seed):
        self.event, self.hub, self.table, self.seed = event, hub, table, seed
        self.topics = {leaf: wire.hub_topic(event, hub, leaf) for leaf in ("status", "result", "reply")}
        self.inbound = {wire.venue_topic(event, leaf, hub): leaf for leaf in ("ack", "round", "control")}
        offline = wire.dumps({"v": 1, "hub": hub, "table": table, "online": False})
        self.client = MqttClient(hub, host, port, username=hub, password=password, keepalive=5,
                                 will=(self.topics["status"], offline, 1, True), clean_session=False,
                                 on_message=self._on_message, on_connect=self._on_connect)
        for topic in self.inbound:
            self.client.subscribe(topic, 1)
        self.epoch = secrets.token_hex(8)
        self.spec = None
        self.started = False
        self.round_key = None
        self.payloads = {}      # n -> bytes
        self.sent = {}          # n -> wall time of the first publish
        self.acked = {}         # n -> wall time of the first ack covering it
        self.upto = 0
        self.resent = 0
        self.progress_at = time.monotonic()  # the last ack that moved the cursor, or the last (re)send
        self.resend_wait = RESEND_S  # doubled after each resend that brings no ack (the uplink's backoff)
        self.changed = asyncio.Event()

    def _on_connect(self):
        self.client.publish(self.topics["status"], wire.dumps({"v": 1, "hub": self.hub, "table": self.table,
                                                               "online": True, "at": int(time.time() * 1000),
                                                               "fw": "paizhuo bench"}), qos=1, retain=True)
        self.resend()

    def _reply(self, cid):
        self.client.publish(self.topics["reply"], wire.dumps({"v": 1, "id": cid, "ok": True}), qos=1)

    def _on_message(self, topic, payload):
        now = time.time()
        leaf = self.inbound[topic]
        if leaf == "ack":
            msg = wire.check_ack(payload)
            if msg["epoch"] == self.epoch and msg["upto"] > self.upto:
                for n in range(self.upto + 1, msg["upto"] + 1):
                    self.acked[n] = now
                self.upto = msg["upto"]
                self.progress_at = time.monotonic()
                self.resend_wait = RESEND_S
                self.changed.set()
        elif leaf == "round":
            spec = wire.check_round(payload)
            if self.spec is None or self.spec["id"] != spec["id"]:
                self.spec = dict(spec, hub=self.hub)
            self._reply(spec["id"])
            self.changed.set()
        else:
            msg = wire.check_control(payload)
            if msg["op"] == "start":
                # the key travels with the start (older specs carried it themselves)
                self.round_key = msg.get("round_key") or (self.spec or {}).get("round_key")
                self.started = True
            self._reply(msg["id"])
            self.changed.set()

    def build(self, boards):
        """The result messages of ``boards`` (n = 1, 2, … in that order), played now, not timed."""
        for board in boards:
            n = len(self.payloads) + 1
            body = dict(play(self.spec, self.round_key, board, self.seed), v=1, kind="result", epoch=self.epoch, n=n,
                        hub=self.hub, table=self.table, at=int(time.time() * 1000))
            wire.check_result(body, self.hub)
            self.payloads[n] = wire.dumps(body)

    def send(self, n):
        if not any(m > self.upto for m in self.sent):  # nothing outstanding: the ack clock starts now
            self.progress_at = time.monotonic()
        self.sent.setdefault(n, time.time())
        self.client.publish(self.topics["result"], self.payloads[n], qos=1)

    def resend(self, stalled_only=False):
        """Every message sent and not acknowledged, again — on a (re)connect, and on the timer only
        when the acknowledgements have stalled for RESEND_S (the uplink's resend rule)."""
        if not self.client.connected:
            return
        if stalled_only:
            if time.monotonic() - self.progress_at < self.resend_wait:
                return
            self.resend_wait = min(self.resend_wait * 2, 60.0)
        self.progress_at = time.monotonic()
        for n in sorted(self.sent):
            if n > self.upto:
                self.client.publish(self.topics["result"], self.payloads[n], qos=1)
                self.resent += 1


def _say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def _wait_all(hubs, cond, timeout, what):
    deadline = time.monotonic() + timeout
    while not all(cond(h) for h in hubs):
        if time.monotonic() > deadline:
            missing = [h.hub for h in hubs if not cond(h)]
            raise RuntimeError("hubs: timed out waiting for %s (%d hubs, e.g. %s)" % (what, len(missing), missing[:5]))
        await asyncio.sleep(0.01)


async def _hubs_main(cfg):
    """The hubs' process: see the module docstring.  Talks to the bench on stdin/stdout (JSON lines)."""
    host, port, event, per_hub, extra = cfg["host"], cfg["port"], cfg["event"], cfg["per_hub"], cfg["extra_boards"]
    hubs = [Hub(event, hub, table, host, port, read_password_file(os.path.join(cfg["broker"], "%s.pass" % hub)), i + 1)
            for i, (hub, table) in enumerate(cfg["hubs"])]
    standings = []   # (wall time, results counted) of each standings message the monitor receives

    def on_standings(topic, payload):
        standings.append((time.time(), json.loads(payload).get("results")))
    monitor = MqttClient("monitor", host, port, username="monitor",
                         password=read_password_file(os.path.join(cfg["broker"], "monitor.pass")),
                         keepalive=5, on_message=on_standings)
    monitor.subscribe(wire.venue_topic(event, "standings"), 1)
    t0 = time.monotonic()
    await monitor.start()
    for h in hubs:
        await h.client.start()
    await _wait_all(hubs, lambda h: h.client.connected and h.spec is not None, 60, "connections and round specs")
    connect_s = time.monotonic() - t0
    _say({"online": True, "connect_s": connect_s})
    await _wait_all(hubs, lambda h: h.started, 60, "the venue's start")
    t0 = time.monotonic()
    for h in hubs:
        h.build(range(1, per_hub + 1 + extra))
    build_s = time.monotonic() - t0
    sizes = [len(p) for h in hubs for p in h.payloads.values()]
    _say({"ready": True, "build_s": build_s})
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)          # "go"

    async def resender():
        while True:
            await asyncio.sleep(1.0)
            for h in hubs:
                h.resend(stalled_only=True)
    ticker = asyncio.ensure_future(resender())
    try:
        # 1. the burst: every hub sends every result at once, hubs interleaved message by message
        t_first = time.time()
        for n in range(1, per_hub + 1):
            for h in hubs:
                h.send(n)
            await asyncio.sleep(0)
        await _wait_all(hubs, lambda h: h.upto >= per_hub, 300, "the burst's acknowledgements")
        t_last = max(h.acked[n] for h in hubs for n in range(1, per_hub + 1))
        burst_rtt = [(h.acked[n] - h.sent[n]) * 1000 for h in hubs for n in range(1, per_hub + 1)]
        resent_burst = sum(h.resent for h in hubs)
        # the venue settles: its standings with every burst result reach the monitor
        deadline = time.monotonic() + 60
        while not any(r is not None and r >= 4 * per_hub * len(hubs) for _, r in standings):
            if time.monotonic() > deadline:
                raise RuntimeError("hubs: the standings never counted the burst's results")
            await asyncio.sleep(0.01)
        # 2. one at a time: a hub sends one result, waits for its acknowledgement, the next hub follows
        paced = []
        order = [(h, n) for n in range(per_hub + 1, per_hub + 1 + extra) for h in hubs][:cfg["paced"]]
        for h, n in order:
            h.changed.clear()
            h.send(n)
            while h.upto < n:
                await asyncio.wait_for(h.changed.wait(), 30)
                h.changed.clear()
            paced.append((h.acked[n] - h.sent[n]) * 1000)
    finally:
        ticker.cancel()
    _say({"done": True, "t_first": t_first, "t_last_ack": t_last, "burst_rtt_ms": burst_rtt, "paced_rtt_ms": paced,
          "resent_burst": resent_burst, "resent_total": sum(h.resent for h in hubs), "standings": standings,
          "size_median": statistics.median(sizes), "messages": per_hub * len(hubs), "connect_s": connect_s,
          "times": {h.hub: {n: [h.sent[n], h.acked[n]] for n in range(1, per_hub + 1)} for h in hubs}})
    await loop.run_in_executor(None, sys.stdin.readline)          # "stop"
    for h in hubs:
        await h.client.stop()
    await monitor.stop()


# ---- the venue's side --------------------------------------------------------------------------------

def _iso_ms(text):
    """The store's received_at (ISO 8601 UTC, ms) as wall-clock ms."""
    return datetime.datetime.fromisoformat(text).timestamp() * 1000


def event_toml(event, port, broker_dir, tables, boards, auto_start=False):
    lines = ["[event]", 'id = "%s"' % event, 'name = "入库测试 ingest bench"', 'game = "bigtwo"', 'secret = "%s"' % SECRET,
             "rounds = 1", "boards_per_round = %d" % boards, "auto_start = %s" % ("true" if auto_start else "false"), "",
             "[broker]", 'host = "127.0.0.1"', "port = %d" % port, 'username = "venue"',
             'password_file = "%s"' % os.path.join(broker_dir, "venue.pass"), "keepalive_seconds = 5", "",
             "[store]", 'path = "venue.sqlite"', ""]
    for t in range(1, tables + 1):
        lines += ["[[tables]]", 'table = "%d"' % t, 'hub = "T%03d"' % t, ""]
    for p in range(1, 4 * tables + 1):
        lines += ["[[players]]", 'id = "P%04d"' % p, 'name = "选手%d"' % p, "no = %d" % p, ""]
    return "\n".join(lines)


def _broker(folder, event, hubs):
    """mosquitto with the production files (passwords, ACLs) in ``folder``/broker."""
    port = free_port()
    bdir = os.path.join(folder, "broker")
    write_config(bdir, event, hubs, port=port, bind="127.0.0.1")
    return Mosquitto(bdir, conf=os.path.join(bdir, "mosquitto.conf"), port=port), bdir


def _venue(folder, text):
    from paizhuo.venue.event import load_text
    from paizhuo.venue.service import Venue
    from paizhuo.venue.store import Store
    path = os.path.join(folder, "event.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    cfg = load_text(text, path, base=folder)
    link = cfg.broker.client("venue-%s" % cfg.id, clean_session=False)
    return Venue(cfg, Store(cfg.store_path), link)


async def _wait(cond, timeout, what, proc=None):
    deadline = time.monotonic() + timeout
    while not cond():
        if proc is not None and proc.returncode is not None:
            raise RuntimeError("a child process exited (%s) while waiting for %s" % (proc.returncode, what))
        if time.monotonic() > deadline:
            raise RuntimeError("timed out after %s s waiting for %s" % (timeout, what))
        await asyncio.sleep(0.01)


async def _read(proc, key, timeout, errlog):
    while True:
        line = await asyncio.wait_for(proc.stdout.readline(), timeout)
        if not line:
            with open(errlog, errors="replace") as f:
                raise RuntimeError("the hubs' process ended early:\n%s" % f.read()[-3000:])
        msg = json.loads(line)
        if key in msg:
            return msg


async def _until_started(task, started, timeout):
    """Wait for the venue's ``on_started``; a venue that fails on the way up raises its error at once."""
    waiter = asyncio.ensure_future(started.wait())
    try:
        await asyncio.wait({task, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task.done():
        task.result()
        raise RuntimeError("the venue stopped before it started")
    if not started.is_set():
        raise RuntimeError("the venue did not start within %s s" % timeout)


async def _tear_down(proc, stop, task, venue, broker):
    """Stop what a measurement started, whatever happened: the child process (its own process
    group), the venue, its store, the broker."""
    try:
        if proc is not None and proc.returncode is None:
            os.killpg(proc.pid, signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        stop.set()
        if task is not None:
            await asyncio.wait_for(task, 30)
    finally:
        try:
            if venue is not None:
                venue.store.close()
        finally:
            broker.stop()


async def measure_ingest(tables, per_hub, paced):
    """Sections 1 and 2 of the module docstring."""
    event = "ingest"
    extra = -(-paced // tables)                     # boards for the one-at-a-time part
    boards = per_hub + extra + 1                    # one board never played: the round stays open
    with tempfile.TemporaryDirectory(prefix="paizhuo-bench-ingest-") as folder:
        hubs = [("T%03d" % t, str(t)) for t in range(1, tables + 1)]
        broker, bdir = _broker(folder, event, [h for h, _ in hubs])
        broker.start()
        proc = task = venue = None
        stop = asyncio.Event()
        try:
            venue = _venue(folder, event_toml(event, broker.port, bdir, tables, boards))
            started = asyncio.Event()
            t0 = time.monotonic()
            task = asyncio.ensure_future(venue.run(stop, on_started=lambda v: started.set()))
            await _until_started(task, started, 60)
            venue_start_s = time.monotonic() - t0
            seen = []                                   # (wall time, results in the venue's standings)
            notices = venue.subscribe()

            async def watch():
                while True:
                    n = await notices.get()
                    if n["type"] == "standings":
                        seen.append((time.time(), venue.standings_summary()["results"]))
            watcher = asyncio.ensure_future(watch())
            stall = [0.0]                               # the venue's event loop: longest pause past a 10 ms tick

            async def ticks():
                while True:
                    t = time.monotonic()
                    await asyncio.sleep(0.01)
                    stall[0] = max(stall[0], time.monotonic() - t - 0.01)
            spec = {"host": broker.host, "port": broker.port, "event": event, "broker": bdir, "hubs": hubs,
                    "per_hub": per_hub, "extra_boards": extra, "paced": paced}
            spec_path = os.path.join(folder, "hubs.json")
            with open(spec_path, "w") as f:
                json.dump(spec, f)
            errlog = os.path.join(folder, "hubs.log")
            with open(errlog, "wb") as err:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, os.path.abspath(__file__), "--hubs", spec_path, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=err, start_new_session=True, limit=2 ** 26)
            online = await _read(proc, "online", 120, errlog)
            await _wait(lambda: all(r["online"] for r in venue.glance()), 60, "every hub online at the venue", proc)
            await venue.start_round(1, "bench")
            await _read(proc, "ready", 300, errlog)
            # every start answered and stored: nothing of the set-up is left when the clock starts
            await _wait(lambda: all(c["reply"] is not None for c in venue.store.controls(event)), 60,
                        "the hubs' answers to the start", proc)
            rows_before = venue.standings_summary()["results"]
            ticker = asyncio.ensure_future(ticks())
            proc.stdin.write(b"go\n")
            await proc.stdin.drain()
            done = await _read(proc, "done", 600, errlog)
            ticker.cancel()
            proc.stdin.write(b"stop\n")
            await proc.stdin.drain()
            await asyncio.wait_for(proc.wait(), 60)
            watcher.cancel()
            venue.unsubscribe(notices)
            # What the venue stored: every message once, nothing refused.
            inbox = [m for m in venue.store.inbox(event) if m["kind"] == "result"]
            target = rows_before + 4 * done["messages"]
            refused = venue.refusals()
            stored = len(venue.results())
            if refused or stored != 4 * (done["messages"] + paced) or len(inbox) != done["messages"] + paced:
                raise RuntimeError("the venue did not store every result once: %d rows, %d inbox, refusals %s"
                                   % (stored, len(inbox), refused[:3]))
            burst = [m for m in inbox if m["message"]["board"] <= per_hub]
            last_stored = max(_iso_ms(m["received_at"]) for m in burst) / 1000
            first_stored = min(_iso_ms(m["received_at"]) for m in burst) / 1000
            # where a message's round trip went: publish → stored at the venue → ack back at the hub
            to_store, to_ack = [], []
            for m in burst:
                sent, acked = done["times"][m["hub"]][str(m["n"])]
                at = _iso_ms(m["received_at"]) / 1000
                to_store.append((at - sent) * 1000)
                to_ack.append((acked - at) * 1000)
            venue_has = min(t for t, r in seen if r >= target)
            wire_has = min(t for t, r in done["standings"] if r is not None and r >= target)
            return {
                "tables": tables, "per_hub": per_hub, "messages": done["messages"], "size": done["size_median"],
                "rate": done["messages"] / (done["t_last_ack"] - done["t_first"]),
                "elapsed": done["t_last_ack"] - done["t_first"],
                "store_elapsed": last_stored - first_stored,
                "burst_rtt": done["burst_rtt_ms"], "paced_rtt": done["paced_rtt_ms"], "to_store": to_store, "to_ack": to_ack,
                "resent": done["resent_burst"], "venue_lag": venue_has - last_stored,
                "wire_lag": wire_has - last_stored, "wire_after_ack": wire_has - done["t_last_ack"],
                "connect_s": online["connect_s"], "venue_start_s": venue_start_s, "recomputes": venue.recomputes,
                "stall": stall[0],
            }
        finally:
            await _tear_down(proc, stop, task, venue, broker)


async def measure_hub_path(boards):
    """Section 3 of the module docstring."""
    event = "hubpath"
    with tempfile.TemporaryDirectory(prefix="paizhuo-bench-hubpath-") as folder:
        broker, bdir = _broker(folder, event, ["T001"])
        broker.start()
        stop = asyncio.Event()
        task = proc = venue = None
        try:
            venue = _venue(folder, event_toml(event, broker.port, bdir, 1, boards, auto_start=True))
            started = asyncio.Event()
            task = asyncio.ensure_future(venue.run(stop, on_started=lambda v: started.set()))
            await _until_started(task, started, 30)
            hub_dir = os.path.join(folder, "T001")
            os.makedirs(hub_dir)
            toml = os.path.join(hub_dir, "table.toml")
            with open(toml, "w", encoding="utf-8") as f:
                f.write("\n".join([
                    "[table]", 'hub = "T001"', 'id = "1"', 'event = "ingest bench"', 'log = "table.sqlite"', "",
                    "[venue]", 'broker = "127.0.0.1:%d"' % broker.port, 'event = "%s"' % event,
                    'password_file = "%s"' % os.path.join(bdir, "T001.pass"), "keepalive_seconds = 5", "",
                    "[seats]", 'bots = ["E", "N", "W", "S"]', "bot_think_seconds = 0", "",
                    "[clock]", "next_deal_seconds = 0.5", ""]))
            out = os.path.join(hub_dir, "hub.txt")
            with open(out, "wb") as f:
                proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "paizhuo.cli", "hub", "--config", toml,
                                                            stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                await _wait(lambda: venue.finished.is_set(), 120, "the hub's %d deals at the venue" % boards, proc)
            except RuntimeError:
                with open(out, errors="replace") as f:
                    raise RuntimeError("the hub path did not finish:\n%s" % f.read()[-3000:]) from None
            db = sqlite3.connect("file:%s?mode=ro" % os.path.join(hub_dir, "table.sqlite"), uri=True)
            try:
                logged = {json.loads(body)["board"]: at for at, body in
                          db.execute("SELECT at_ms, body_json FROM events WHERE kind = 'result'")}
            finally:
                db.close()
            got = {m["message"]["board"]: _iso_ms(m["received_at"]) for m in venue.store.inbox(event)
                   if m["kind"] == "result"}
            if sorted(got) != sorted(logged) or len(got) != boards:
                raise RuntimeError("hub path: the hub logged boards %s, the venue stored %s" % (sorted(logged), sorted(got)))
            return {"boards": boards, "lat": [got[b] - logged[b] for b in sorted(got)]}
        finally:
            await _tear_down(proc, stop, task, venue, broker)


def _mosquitto_version():
    try:
        out = subprocess.run([MOSQUITTO, "-h"], capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).splitlines()[0].strip()
    except (OSError, IndexError, subprocess.SubprocessError):
        return "mosquitto (version unknown)"


def _machine():
    from run import machine
    m = machine()
    return "%s, %s cores, Python %s, %s" % (m["cpu"], m["cores"], m["python"], _mosquitto_version())


def section(quick):
    # (tables, results per hub, one-at-a-time results after the burst)
    loads = [(10, 20, 20)] if quick else [(500, 4, 100), (500, 10, 0)]
    path_boards = 3 if quick else 6
    runs = [asyncio.run(measure_ingest(t, n, p)) for t, n, p in loads]
    hp = asyncio.run(measure_hub_path(path_boards))

    def ms(values, p99=True):
        if p99:
            return "%s / %s ms" % (_num(statistics.median(values)), _num(percentile(values, 0.99)))
        return "%s ms" % _num(statistics.median(values))
    first = runs[0]
    lines = [
        "## Venue ingest: results through mosquitto into the venue's store",
        "",
        "Simulated hubs (real MQTT clients in a process of their own, each logged in with its own password under the "
        "production ACL, re-sending what is unacknowledged when acknowledgements stall for %g s, as the uplink does) "
        "publish their results at "
        "QoS 1 — %s bytes median each: four rows, the deal record and every action of a deal played from the round the "
        "venue sent — through mosquitto to the real `Venue` (this process; SQLite store, WAL, one fsynced transaction "
        "per message; acknowledgement by cursor; standings recomputed in the background).  Every hub sends all its "
        "results at once (a broker coming back, or a round's boards ending together).  Results/s: first publish → last "
        "acknowledgement at the hubs.  Machine: %s; mosquitto, the venue and the hubs share the cores.  %s run." % (
            RESEND_S, format(int(first["size"]), ","), _machine(), "Quick" if quick else "Full"),
        "",
        "| burst | results/s (rows/s) | ack round trip at the hub, median / p99 | publish → stored, median | "
        "stored → ack at the hub, median | re-sent by the 5 s rule | venue loop's longest stall | standings include "
        "the last result, after it was stored: venue / `venue/standings` on the wire |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append("| %d hubs × %d = %s results | **%.0f** (%s) | %s | %s | %s | %d | %.2f s | %.2f s / %.2f s |" % (
            r["tables"], r["per_hub"], format(r["messages"], ","), r["rate"], format(int(4 * r["rate"]), ","),
            ms(r["burst_rtt"]), ms(r["to_store"], False), ms(r["to_ack"], False), r["resent"], r["stall"],
            r["venue_lag"], r["wire_lag"]))
    lines += [
        "",
        "| measure | value |",
        "|---|---|",
        "| one result at a time (%d, hubs in turn, after the first burst): ack round trip, median / p99 / max | "
        "%s / %s / %s ms |" % (len(first["paced_rtt"]), _num(statistics.median(first["paced_rtt"])),
                               _num(percentile(first["paced_rtt"], 0.99)), _num(max(first["paced_rtt"]))),
        "| whole hub path: `paizhuo hub` (four bot seats, `bot_think_seconds = 0`, %d deals), `result` log entry → "
        "stored at the venue, median / max | %.0f / %.0f ms |" % (hp["boards"], statistics.median(hp["lat"]), max(hp["lat"])),
        "",
        "The ack round trip in a burst is queueing: the venue stores the messages one at a time in arrival order, one "
        "transaction and one fsync each, so the rate is the disk's; each acknowledgement leaves right after its store "
        "(QoS 0: stored → ack above).  A hub whose acknowledgements stall for 5 s re-sends, then waits twice as long "
        "each time (the uplink's backoff); the venue drops the copies by cursor.  "
        "Set-up, not timed: %s hubs connected and had their round spec in %.2f s.  The hub-path figure is wall clock "
        "to wall clock on one machine (the hub log's `at_ms`, the venue inbox's `received_at`, ms resolution): the "
        "hub's log commit, its outbox commit, the broker and the venue's commit." % (
            format(runs[-1]["tables"], ","), runs[-1]["connect_s"]),
        "",
    ]
    return "\n".join(lines)


def _num(x):
    return "%.0f" % x if x >= 100 else "%.1f" % x


if __name__ == "__main__":
    if "--hubs" in sys.argv:
        with open(sys.argv[sys.argv.index("--hubs") + 1]) as f:
            asyncio.run(_hubs_main(json.load(f)))
    else:
        print(section("--quick" in sys.argv))
