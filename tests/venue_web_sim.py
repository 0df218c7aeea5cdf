"""A venue with its web pages, and simulated table hubs, for the web and browser tests and the
console benchmark.

The venue is the real one (:class:`paizhuo.venue.service.Venue` on a real broker, a real SQLite
store); the web application is :func:`paizhuo.venue.web.make_app` served on a loopback port.  A
:class:`SimHub` stands in for a table hub: a plain MQTT client (the project's
:class:`paizhuo.mqtt.client.MqttClient`) that publishes contract-conformant ``status``, ``live``,
``alert`` and ``result`` messages and answers the venue's control ops — it plays its deals with
the real Big Two engine and bots, derived (as a hub does) from the round key that the venue's
``start`` carries and checked against the round spec's deal hashes, so its results carry the
right deal hashes.  The real hub and its uplink are tested on their own.

    async with venue_world(tmp_path, broker_port) as w:
        w.sims["1"].begin_deal()          # table 1 starts the spec's first board
        w.sims["1"].step(3)               # three bot moves, a live snapshot after each
        r = await w.client.get("/standings.json")
"""

import asyncio
import contextlib
import json
import random
import secrets
import time

from aiohttp.test_utils import TestClient, TestServer

from paizhuo.bots.bigtwo import BigTwoBot
from paizhuo.mqtt import wire
from paizhuo.mqtt.client import MqttClient
from paizhuo.rules.bigtwo import SEATS, Action, BigTwo
from paizhuo.venue import deals
from paizhuo.venue.event import load_text
from paizhuo.venue.service import Venue
from paizhuo.venue.store import Store, hash_secret
from paizhuo.venue.web import make_app

from brokers import wait_for

EVENT = "webtest"
PIN = "246810"
# Eight players: two tables of one group.  One name starts with "=" (a spreadsheet formula):
# the CSV export must keep it as text.
PLAYERS = [("P001", "张三", 1), ("P002", "李四", 2), ("P003", "王五", 3), ("P004", "赵六", 4),
           ("P005", "钱七", 5), ("P006", "孙八", 6), ("P007", "=1+2", 7), ("P008", "周十", 8)]


def event_toml(port, store, rounds=2, boards=2, players=PLAYERS, tables=2):
    lines = ['[event]', 'id = "%s"' % EVENT, 'name = "网页测试赛 Web test cup"', 'game = "bigtwo"',
             'secret = "text:the web test secret, long enough"', "rounds = %d" % rounds,
             "boards_per_round = %d" % boards, "auto_start = false",
             "[broker]", 'host = "127.0.0.1"', "port = %d" % port, "keepalive_seconds = 5",
             "[store]", 'path = "%s"' % store]
    for t in range(1, tables + 1):
        lines += ["[[tables]]", 'table = "%d"' % t, 'hub = "T%02d"' % t]
    for pid, name, no in players:
        lines += ["[[players]]", 'id = "%s"' % pid, "name = %s" % json.dumps(name, ensure_ascii=False), "no = %d" % no]
    return "\n".join(lines) + "\n"


class SimHub:
    """One simulated table hub (see the module docstring).

    ``spec`` is the latest round spec received; ``keys`` the round keys the starts brought
    (round → 64 hex); ``controls`` every control op received, in order; ``acks`` the venue's
    acknowledgements; ``game`` the deal in play (None between deals).  ``refuse[op] = (code,
    en, zh)`` makes the hub refuse that op.  A start whose key does not give the spec's deals
    is refused ``deal_mismatch`` (as the hub does).
    """

    def __init__(self, event, hub, table, port, *, seed=1, spares=("S-0099",), think_ms=700):
        self.event, self.hub, self.table = event, hub, table
        self.status_topic = wire.hub_topic(event, hub, "status")
        offline = wire.dumps({"v": 1, "hub": hub, "table": table, "online": False})
        self.client = MqttClient(hub, "127.0.0.1", port, keepalive=5, will=(self.status_topic, offline, 1, True),
                                 on_message=self._on_message)
        self.seed = seed
        self.devices = {s: "S-%02d%02d" % (int(seed), i + 1) for i, s in enumerate(SEATS)}
        self.spares = set(spares)
        self.think_ms = think_ms
        self.spec = None
        self.started = set()
        self.keys = {}
        self.controls = []
        self.acks = []
        self.replies = []
        self.refuse = {}
        self.paused = None
        self.game = None
        self.record = None
        self.deal = 0                      # global deal index (as a real hub counts)
        self.deals_done = 0
        self.board = None
        self.epoch = secrets.token_hex(8)
        self.n = 0
        self.clock_ms = 30000
        self.live_sent = 0
        self.sent_at = {}                  # turn → wall ms (float) just before its snapshot was published
        self.alert_at = {}                 # outbox n → wall ms (float) just before an alert was published
        self.offline_seats = set()
        self.unchecked = set()             # seats whose player has not typed the check-in number

    # ---- connection --------------------------------------------------------------------------
    async def start(self):
        await self.client.start()
        await self.client.wait_connected(10)
        for f in wire.hub_subscriptions(self.event, self.hub):
            self.client.subscribe(f, 1)
        self.client.publish(self.status_topic, wire.dumps({"v": 1, "hub": self.hub, "table": self.table, "online": True,
                                                           "at": _ms(), "fw": "paizhuo sim"}), qos=1, retain=True)

    async def stop(self):
        await self.client.stop()

    # ---- from the venue ------------------------------------------------------------------------
    def _on_message(self, topic, payload):
        t, msg = wire.check(self.event, topic, payload)
        if t.leaf == "round":
            if self.spec is None or self.spec["id"] != msg["id"]:
                self.spec = msg
                self.deals_done = 0
                self.publish_live()
        elif t.leaf == "control":
            self.controls.append(msg)
            self._control(msg)
        elif t.leaf == "ack":
            self.acks.append(msg)

    def _control(self, msg):
        op = msg["op"]
        if op in self.refuse:
            code, en, zh = self.refuse[op]
            return self._reply(msg["id"], False, code, en, zh)
        if op == "start":
            spec = self.spec
            if spec is None or spec["round"] != msg["round"]:
                return self._reply(msg["id"], False, "unknown_round", "round %d is not loaded here" % msg["round"],
                                   "本桌尚未载入第 %d 轮" % msg["round"])
            key = bytes.fromhex(msg["round_key"])
            bad = [b for b in spec["boards"] if deals.deal_from_round_key(key, spec["game"], spec["group"], b,
                                                                          round=spec["round"]).hash
                   != spec["deal_hashes"][str(b)]]
            if bad:
                return self._reply(msg["id"], False, "deal_mismatch", "the round key does not give boards %s" % bad,
                                   "轮次密钥与牌号 %s 不符" % bad)
            self.keys[msg["round"]] = msg["round_key"]
            self.started.add(msg["round"])
        elif op == "pause":
            if self.game is None:
                return self._reply(msg["id"], False, "no_deal", "no deal is being played: nothing to pause",
                                   "当前没有进行中的牌局，无需暂停")
            self.paused = {"by": msg["by"], "reason": msg["reason"]}
        elif op == "resume":
            self.paused = None
        elif op == "replace":
            if msg["dev"] not in self.spares and msg["dev"] not in self.devices.values():
                return self._reply(msg["id"], False, "unknown_device",
                                   "device %s is not in this table's table.toml" % msg["dev"],
                                   "设备 %s 不在本桌的 table.toml 中" % msg["dev"])
            self.devices[msg["seat"]] = msg["dev"]
        self._reply(msg["id"], True)
        self.publish_live()

    def _reply(self, cid, ok, code=None, en=None, zh=None):
        body = {"v": 1, "id": cid, "ok": ok}
        if not ok:
            body.update(code=code, en=en, zh=zh)
        self.replies.append(body)
        self.client.publish(wire.hub_topic(self.event, self.hub, "reply"), wire.dumps(body), qos=1)

    # ---- playing --------------------------------------------------------------------------------
    @property
    def round(self):
        return self.spec["round"] if self.spec else None

    def begin_deal(self, board=None):
        """Start the next board of the spec (or ``board``): every seat declines 明牌, so no hand
        is public; a live snapshot follows."""
        spec = self.spec
        board = board if board is not None else spec["boards"][self.deals_done]
        key = self.keys.get(spec["round"])
        if key is None:
            raise RuntimeError("table %s: round %d has not started here: no round key, no deal" % (self.table, spec["round"]))
        self.record = deals.deal_from_round_key(bytes.fromhex(key), spec["game"], spec["group"], board, round=spec["round"])
        self.game = BigTwo(self.record.to_engine_deal())
        self.board = board
        self.deal += 1
        self.bots = {s: BigTwoBot(self.seed * 100 + board) for s in SEATS}
        # Tables differ: each sometimes plays a random legal move instead of the bot's, so the
        # same deal scores differently at each table and the standings have an order.
        self.rng = random.Random(self.seed * 7919 + board)
        for s in SEATS:
            self.game.apply(Action.show(s, False).with_meta(think_ms=self.think_ms))
        self.publish_live()

    def step(self, moves=1):
        """``moves`` bot moves, each followed by a live snapshot; returns the actions made."""
        made = []
        for _ in range(moves):
            to_act = self.game.to_act()
            if not to_act:
                break
            seat = to_act[0]
            legal = self.game.legal_actions(seat)
            if self.rng.random() < 0.35:
                a = self.rng.choice(legal)
            else:
                a = self.bots[seat].choose(self.game.view(seat), legal)
            a = a.with_meta(think_ms=self.think_ms + self.rng.randrange(0, 5000, 10))
            self.game.apply(a)
            made.append(a)
            self.publish_live()
        return made

    def finish(self, deal_hash=None):
        """Play the deal to its end and send its result (``deal_hash`` overrides the true hash)."""
        while self.game.to_act():
            self.step(1)
        res = self.game.result()
        spec = self.spec
        h = deal_hash or self.record.hash
        rows = []
        for s in SEATS:
            p = spec["players"][s]
            rows.append({"result_id": "%s/%s/r%s/g%s/b%s/%s" % (self.hub, self.table, spec["round"], spec["group"],
                                                                 self.board, s),
                         "round": spec["round"], "group": spec["group"], "board": self.board, "table": self.table,
                         "seat": s, "player": p["id"], "score": res.scores[s], "think_ms": res.think_ms[s],
                         "auto_moves": res.auto_moves[s], "deal_hash": h, "bot": bool(p.get("bot", False))})
        body = {"round": spec["round"], "group": spec["group"], "board": self.board, "deal": self.deal - 1,
                "deal_hash": h, "rows": rows,
                "record": {"deal": self.record.to_dict(), "actions": [a.to_dict() for a in self.game.actions],
                           "result": res.to_dict()}}
        self._outbox("result", body)
        self.game = None
        self.deals_done += 1
        self.publish_live()
        return rows

    def call(self, seat, reason="call"):
        """A seat presses 呼叫裁判: alert ``call``."""
        return self._outbox("alert", {"alert": "call", "seat": seat, "reason": reason})

    def _outbox(self, kind, body):
        self.n += 1
        msg = dict(body, v=1, kind=kind, epoch=self.epoch, n=self.n, hub=self.hub, table=self.table, at=_ms())
        if kind == "alert":
            self.alert_at[self.n] = time.time() * 1000
        self.client.publish(wire.hub_topic(self.event, self.hub, kind), wire.dumps(msg), qos=1)
        return self.n

    def hands_left(self):
        """Every seat's unplayed cards of the deal in play (what must never reach a page)."""
        if self.game is None:
            return {}
        return {s: list(self.game.view(s)["hand"]) for s in SEATS}

    def snapshot(self):
        spec = self.spec
        g = self.game
        to_act = list(g.to_act()) if g is not None else []
        if spec is None:
            screen = "waiting"
        elif self.paused:
            screen = "paused"
        elif g is not None:
            screen = "deal"
        elif self.deals_done:
            screen = "result"
        else:
            screen = "waiting" if spec["round"] in self.started else "checkin"
        plays = []
        if g is not None:
            for a in g.actions:
                if a.type == "play":
                    plays.append({"seat": a.seat, "type": "play", "cards": a.to_dict()["cards"]})
                elif a.type == "pass":
                    plays.append({"seat": a.seat, "type": "pass"})
        seats = {}
        for s in SEATS:
            p = spec["players"][s] if spec else None
            seats[s] = {"online": s not in self.offline_seats, "dev": self.devices[s], "player": p, "checked": s not in self.unchecked,
                        "bot": bool(p and p.get("bot")), "cards": len(g.hands[SEATS.index(s)]) if g is not None else None}
        return {"v": 1, "hub": self.hub, "table": self.table, "at": _ms(),
                "round": spec["round"] if spec else None, "group": spec["group"] if spec else None, "game": "bigtwo",
                "screen": screen, "started": bool(spec and spec["round"] in self.started),
                "deal": (self.deal - 1) if g is not None else None, "board": self.board if g is not None else None,
                "boards": spec["boards"] if spec else [], "deals_done": self.deals_done,
                "turn": len(g.actions) if g is not None else None, "to_act": to_act,
                "clock": {"seats": to_act, "ms": self.clock_ms, "paused": self.paused is not None} if to_act else None,
                "paused": self.paused, "seats": seats, "plays": plays, "shown": {}, "unacked": 0}

    def publish_live(self):
        snap = self.snapshot()
        wire.check_live(snap, self.hub)    # the simulation keeps to the contract
        self.live_sent += 1
        self.sent_at[snap["turn"]] = time.time() * 1000
        self.client.publish(wire.hub_topic(self.event, self.hub, "live"), wire.dumps(snap), qos=0)
        return snap


def _ms():
    return int(time.time() * 1000)


class World:
    """What :func:`venue_world` gives: ``cfg``, ``venue``, ``store``, ``sims`` (table → SimHub),
    ``client`` (aiohttp TestClient on the web app), ``server`` (its TestServer), ``pin``, ``clock``."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def url(self, path="/"):
        return str(self.server.make_url(path))

    async def login(self, who="裁判 Li", pin=PIN):
        """Log the test client in; returns the session's CSRF token."""
        r = await self.client.post("/referee/login", json={"who": who, "pin": pin})
        body = await r.json()
        assert r.status == 200, body
        return body["csrf"]

    async def finish_board(self, tables=None):
        """Every (given) table plays its next board to the end; waits until the venue stored them."""
        sims = [self.sims[t] for t in (tables or self.sims)]
        before = len(self.venue.results())
        for s in sims:
            s.begin_deal()
            s.finish()
        await wait_for(lambda: len(self.venue.results()) >= before + 4 * len(sims), what="the results stored")


class FakeClock:
    """Monotonic seconds the test moves by hand (session expiry, the login lock)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@contextlib.asynccontextmanager
async def venue_world(tmp_path, port, *, rounds=2, boards=2, secure_cookies=False, start_round=True, players=PLAYERS):
    """The real venue on the broker at ``port``, one SimHub per table (spec received, online),
    the web app on a loopback port with a test client; everything stopped on exit."""
    cfg = load_text(event_toml(port, tmp_path / "venue.sqlite", rounds, boards, players), str(tmp_path / "event.toml"),
                    base=str(tmp_path))
    store = Store(cfg.store_path)
    link = MqttClient("venue-" + cfg.id, "127.0.0.1", port, keepalive=5, clean_session=False)
    venue = Venue(cfg, store, link, reply_timeout=5.0)
    stop = asyncio.Event()
    started = asyncio.Event()
    task = asyncio.ensure_future(venue.run(stop, on_started=lambda v: started.set()))
    sims = {}
    client = None
    try:
        await asyncio.wait_for(started.wait(), 15)
        for i, t in enumerate(cfg.tables):
            sims[t.table] = SimHub(cfg.id, t.hub, t.table, port, seed=i + 1)
        for s in sims.values():
            await s.start()
        await wait_for(lambda: all(s.spec is not None for s in sims.values()), what="every hub got its round spec")
        await wait_for(lambda: all(r["online"] and r["screen"] for r in venue.glance()), what="every hub online")
        if start_round:
            await venue.start_round(1, "test setup")
            await wait_for(lambda: all(1 in s.started for s in sims.values()), what="round 1 started at every hub")
        clock = FakeClock()
        app = make_app(venue, hash_secret(PIN, rounds=1000), secure_cookies=secure_cookies, clock=clock)
        server = TestServer(app, host="127.0.0.1")
        client = TestClient(server)
        await client.start_server()
        yield World(cfg=cfg, venue=venue, store=store, sims=sims, client=client, server=server, pin=PIN, clock=clock)
    finally:
        if client is not None:
            await client.close()
        for s in sims.values():
            await s.stop()
        stop.set()
        try:
            await asyncio.wait_for(task, 15)
        finally:
            store.close()
