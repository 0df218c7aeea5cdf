"""Fairness across tables: in the duplicate format every table of a group plays the same board, at
its own speed, so nothing about a board — plays, hands, scores, MP, places — may reach a public
page, a public topic or the hall displays' ``monitor`` login before every table of the group has
finished it (or a referee closed it).  docs/venue.md § "What is public when".

The venue, its web pages and the simulated hubs are the real ones of ``tests/venue_web_sim.py``
(a real mosquitto, a real SQLite store); the ACL test runs mosquitto with the files of
``paizhuo broker config``.
"""

import asyncio
import json
import os
import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as hs

sys.path.insert(0, os.path.dirname(__file__))
from brokers import Mosquitto, free_port, mosquitto, wait_for  # noqa: E402,F401  (pytest fixture)
from test_venue_service import Link, SimHub as UnitHub, config, send  # noqa: E402
from test_venue_web import SSE  # noqa: E402
from venue_web_sim import venue_world  # noqa: E402

from paizhuo import cli  # noqa: E402
from paizhuo.mqtt import mosquitto as mq  # noqa: E402
from paizhuo.mqtt import wire  # noqa: E402
from paizhuo.mqtt.client import MqttClient  # noqa: E402
from paizhuo.venue.service import Venue, VenueError  # noqa: E402
from paizhuo.venue.store import Store  # noqa: E402
from paizhuo.venue.web import WebError, check_action  # noqa: E402

CARD = re.compile(r"[2-9TJQKA][DCHS]")


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 150))


def cards_in(obj, out=None):
    """Every card code among the strings of a JSON value."""
    out = set() if out is None else out
    if isinstance(obj, str):
        if CARD.fullmatch(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            cards_in(k, out)
            cards_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            cards_in(v, out)
    return out


class Watcher:
    """A hall display on MQTT: subscribes to exactly what the ``monitor`` login may read."""

    def __init__(self, event, port):
        self.got = []
        self.client = MqttClient("hall-display", "127.0.0.1", port, on_message=lambda t, p: self.got.append((t, p)))
        for leaf in mq.MONITOR_READS:
            self.client.subscribe("%s/%s/%s" % (wire.ROOT, event, leaf), 1)

    def last(self, leaf):
        for t, p in reversed(self.got):
            if t.endswith("/venue/" + leaf):
                return json.loads(p)
        return None


async def public_view(w, sse, watcher):
    """Everything public, now: the pages, the stream's pending events, the topics."""
    out = {"json": await (await w.client.get("/standings.json")).json(),
           "csv": await (await w.client.get("/standings.csv")).text(),
           "page": await (await w.client.get("/")).text(),
           "sse": []}
    r = await w.client.get("/tables.json")
    out["tables"] = await r.json() if r.status == 200 else {}
    while True:
        try:
            out["sse"].append(await sse.next(0.5))
        except asyncio.TimeoutError:
            break
    out["mqtt"] = list(watcher.got)
    return out


def board_shown(view, label):
    """Where in ``view`` the board ``label`` (``r1b1``) or a card shows (empty: nowhere)."""
    where = []
    if label in json.dumps(view["json"]) or any(p.get("deals") for p in view["json"]["players"]):
        where.append("/standings.json")
    if label in view["csv"]:
        where.append("/standings.csv")
    if label in view["page"]:
        where.append("/")
    for ev, data in view["sse"]:
        if label in json.dumps(data) or cards_in(data) or any(p.get("deals") for p in data.get("players", ())):
            where.append("SSE %s" % ev)
    for topic, payload in view["mqtt"]:
        text = payload.decode("utf-8", "replace")
        data = json.loads(text)
        if "/hub/" in topic or label in text or cards_in(data) or any(p.get("deals") for p in data.get("players", ())):
            where.append("MQTT %s" % topic)
    if cards_in(view["tables"]) or label in json.dumps(view["tables"]):
        where.append("/tables.json")
    return where


def test_a_board_another_table_still_plays_is_nowhere_public_until_it_is_done(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            watcher = Watcher(w.cfg.id, mosquitto.port)
            await watcher.client.start()
            try:
                sse = SSE(await w.client.get("/live/standings"))
                fast, slow = w.sims["1"], w.sims["2"]
                # Table 1 plays board 1 to the end; table 2 is at turn 12 of the same board.
                fast.begin_deal()
                fast.finish()
                slow.begin_deal()
                slow.step(12)
                await wait_for(lambda: len(w.venue.results()) == 4, what="table 1's result stored")
                await wait_for(lambda: w.venue.standings()["results"] == 4, what="the referees' standings")
                await wait_for(lambda: next(r for r in w.venue.glance() if r["table"] == "2")["turn"] == 16,
                               what="table 2's snapshot at the venue")   # 4 明牌 choices + 12 moves
                ref = w.venue.standings()
                assert all("r1b1" in p["boards"] for p in ref["players"] if p["player"] in
                           {s["id"] for s in fast.spec["players"].values()})   # the referees see it all
                await asyncio.sleep(0.6)  # a venue/tables message (0.25 s coalescing) would be out
                view = await public_view(w, sse, watcher)
                assert board_shown(view, "r1b1") == [], "board 1 reached the public while table 2 plays it"
                assert view["json"]["results"] == 0
                # The public table feed says who is at which stage, nothing of the board.
                want = {"1": ("playing", 1), "2": ("playing", 0)}
                assert {t["table"]: (t["state"], t["boards_done"]) for t in view["tables"]["tables"]} == want
                feed = watcher.last("tables")
                assert feed is not None and wire.check_tables(feed)
                assert {t["table"]: t["boards_done"] for t in feed["tables"]} == {"1": 1, "2": 0}

                # Table 2 finishes board 1: now it is public everywhere.
                slow.finish()
                await wait_for(lambda: w.venue.public_standings()["results"] == 8, what="board 1 public")
                st = await (await w.client.get("/standings.json")).json()
                assert len(st["players"]) == 8 and all("r1b1" in p["boards"] for p in st["players"])
                assert "r1b1_mp" in await (await w.client.get("/standings.csv")).text()
                await sse.until(lambda ev, d: ev == "standings" and all(p["deals"] == 1 for p in d["players"])
                                and len(d["players"]) == 8, what="board 1 on the public stream")
                await wait_for(lambda: (watcher.last("standings") or {}).get("results") == 8,
                               what="board 1 on venue/standings")
                assert all(p["deals"] == 1 for p in watcher.last("standings")["players"])
                await wait_for(lambda: {t["table"]: t["boards_done"] for t in watcher.last("tables")["tables"]}
                               == {"1": 1, "2": 1}, what="the feed: both tables have finished one board")
                assert not [t for t, _ in watcher.got if "/hub/" in t]
                # Hand records (every hand, the round key) still wait for the end of the round.
                r = await w.client.get("/records/1.json")
                assert r.status == 404 and (await r.json())["code"] == "not_finished"
                assert not [t for t, _ in watcher.got if "/records/" in t]

                # Board 2: table 1 finishes it, table 2's hub cannot: a referee closes the board.
                fast.begin_deal()
                fast.finish()
                await wait_for(lambda: w.venue.standings()["results"] == 12, what="table 1's board 2, for referees")
                await asyncio.sleep(0.2)
                assert "r1b2" not in json.dumps(await (await w.client.get("/standings.json")).json())
                csrf = await w.login()
                head = {"X-CSRF": csrf, "Origin": w.url("/").rstrip("/")}
                r = await w.client.post("/referee/api/close_board", json={"round": 1, "group": 1, "board": 2},
                                        headers=head)
                assert r.status == 400 and (await r.json())["code"] == "no_reason"
                r = await w.client.post("/referee/api/close_board", json={"round": 1, "group": 1, "board": 9,
                                                                         "reason": "x"}, headers=head)
                assert r.status == 404 and (await r.json())["code"] == "unknown_board"
                assert "r1b2" not in json.dumps(await (await w.client.get("/standings.json")).json())
                r = await w.client.post("/referee/api/close_board", json={
                    "round": 1, "group": 1, "board": 2, "reason": "桌 2 桌机故障 hub 2 is broken"}, headers=head)
                body = (await r.json())["reply"]
                assert r.status == 200 and body["unfinished"] == ["2"] and not body["already"], body
                await wait_for(lambda: w.venue.public_standings()["results"] == 12, what="board 2 public")
                st = await (await w.client.get("/standings.json")).json()
                assert sum("r1b2" in p["boards"] for p in st["players"]) == 4
                audit = [(a["who"], a["action"]) for a in w.venue.audit() if "close_board" in a["action"]]
                assert audit[-2:] == [("裁判 Li", "close_board_requested"), ("裁判 Li", "close_board")]
                assert [a for a in audit if a[1] == "close_board_refused"]
                # the referees' full standings stay on their side of the login
                r = await w.client.get("/referee/standings.json")
                assert r.status == 200 and (await r.json())["results"] == 12
            finally:
                await watcher.client.stop()
    run(main())


def test_the_monitor_login_cannot_read_hub_live_snapshots(tmp_path):
    """mosquitto with the files of `paizhuo broker config`: a hall display (``monitor``) that
    subscribes to a hub's live snapshot, its status, or everything, gets only the venue's public
    topics (table feed, standings, records)."""
    folder = str(tmp_path / "broker")
    port = free_port()
    assert cli.main(["broker", "config", "--event", "cup", "--hubs", "T01,T02", "--out", folder,
                     "--port", str(port), "--bind", "127.0.0.1"]) == 0

    def login(user, **kw):
        pw = mq.read_password_file(os.path.join(folder, "%s.pass" % user))
        return MqttClient(user, "127.0.0.1", port, username=user, password=pw, **kw)

    async def main():
        got = []
        monitor = login("monitor", on_message=lambda t, p: got.append((t, p)))
        hub, venue = login("T01"), login("venue")
        for f in (wire.hub_topic("cup", "T01", "live"), "paizhuo/v1/cup/hub/+/live", "paizhuo/v1/cup/hub/#",
                  wire.hub_topic("cup", "T01", "status"), wire.event_filter("cup")):
            monitor.subscribe(f, 1)
        for c in (monitor, hub, venue):
            await c.start()
            await c.wait_connected(10)
        try:
            snap = {"v": 1, "hub": "T01", "table": "1", "at": 1, "screen": "deal", "seats": {},
                    "plays": [{"seat": "E", "type": "play", "cards": ["3D"]}]}
            await hub.published(hub.publish(wire.hub_topic("cup", "T01", "live"), wire.dumps(snap)), 10)
            await hub.published(hub.publish(wire.hub_topic("cup", "T01", "status"), b'{"online":true}', retain=True), 10)
            tables = "paizhuo/v1/cup/venue/tables"
            feed = {"v": 1, "round": 1, "at": 1, "tables": [{"table": "1", "round": 1, "online": True, "boards": 2,
                                                             "boards_done": 0, "state": "playing"}]}
            for topic in (tables, wire.venue_topic("cup", "standings")):
                await venue.published(venue.publish(topic, wire.dumps(feed), retain=True), 10)
            await hub.published(hub.publish(wire.hub_topic("cup", "T01", "live"), wire.dumps(snap)), 10)
            # QoS 1 from one client arrives in order: once the marker is in, so would be the rest.
            await venue.published(venue.publish(wire.venue_topic("cup", "standings"), b'{"v":1,"marker":1}'), 10)
            await wait_for(lambda: any(p == b'{"v":1,"marker":1}' for _, p in got), what="marker")
            assert [t for t, _ in got if "/hub/" in t] == [], "a hall display read a hub's live snapshot or status"
            assert tables in {t for t, _ in got}, "the public table feed did not reach the monitor"
        finally:
            for c in (monitor, hub, venue):
                await c.stop()

    b = Mosquitto(folder, conf=os.path.join(folder, "mosquitto.conf"), port=port)
    b.start()
    try:
        run(main())
    finally:
        b.stop()


def test_close_board_is_audited_survives_a_restart_and_refuses_bad_requests(tmp_path):
    async def main():
        cfg = config()
        path = str(tmp_path / "v.sqlite")
        st = Store(path)
        venue = Venue(cfg, st, Link(), standings_delay=0)
        venue.restore()
        await venue.start_round(1, "referee Li")  # the venue counts no result of a round not started
        hubs = [UnitHub("T01", "1"), UnitHub("T02", "2")]
        spec = venue.spec_of("T01")
        send(venue, hubs[0], "result", hubs[0].result(spec, spec["boards"][0]))
        await venue.recompute()
        b = spec["boards"][0]
        assert venue.standings()["results"] > 0 and venue.public_standings()["results"] == 0
        assert (1, spec["group"], b) not in venue.public_boards()
        for args, code in (((1, spec["group"], b, "Li", " "), "no_reason"), ((1, spec["group"], 99, "Li", "x"), "unknown_board"),
                           ((7, spec["group"], b, "Li", "x"), "unknown_board"), (("1", spec["group"], b, "Li", "x"), "unknown_board"),
                           ((1, spec["group"], b, "", "x"), "no_who")):
            try:
                await venue.close_board(*args)
            except VenueError as e:
                assert e.code == code and e.zh
            else:
                raise AssertionError("close_board%r was not refused" % (args,))
        assert venue.public_standings()["results"] == 0
        out = await venue.close_board(1, spec["group"], b, "Li", "hub T02 is broken")
        assert out["unfinished"] == ["2"] and not out["already"]
        await venue.recompute()
        assert venue.public_standings()["results"] == venue.standings()["results"]
        again = await venue.close_board(1, spec["group"], b, "Li", "twice")
        assert again["already"]
        assert [a["action"] for a in venue.audit()].count("close_board") == 1
        st.close()
        # a restarted venue keeps the board public
        venue2 = Venue(cfg, Store(path), Link(), standings_delay=0)
        venue2.restore()
        await venue2.recompute()
        assert (1, spec["group"], b) in venue2.public_boards()
        assert venue2.public_standings()["results"] == venue2.standings()["results"] > 0
    asyncio.run(main())


def test_public_tables_always_pass_the_wire_check_and_name_no_board():
    async def main():
        venue = Venue(config(), Store(":memory:"), Link(), standings_delay=0)
        venue.restore()
        hubs = [UnitHub("T01", "1"), UnitHub("T02", "2")]
        spec = venue.spec_of("T01")
        send(venue, hubs[0], "status", hubs[0].status())
        send(venue, hubs[0], "live", hubs[0].live(spec))
        rows = venue.public_tables()
        assert [(r["table"], r["state"]) for r in rows] == [("1", "playing"), ("2", "offline")]
        msg = wire.check_tables({"v": 1, "round": 1, "at": 0, "tables": rows})
        assert set(msg["tables"][0]) == set(wire.TABLE_FIELDS)
    asyncio.run(main())


_json = hs.recursive(hs.none() | hs.booleans() | hs.integers(-3, 2 ** 54) | hs.text(max_size=8),
                     lambda c: hs.lists(c, max_size=4) | hs.dictionaries(hs.text(max_size=8), c, max_size=4),
                     max_leaves=20)
_row = hs.fixed_dictionaries({"table": hs.sampled_from(["1", "", 7, "x" * 70]),
                              "round": hs.sampled_from([1, None, -1, "1"]),
                              "online": hs.sampled_from([True, None, 1]), "boards": hs.sampled_from([2, -1, None]),
                              "boards_done": hs.sampled_from([0, 1.5]), "state": hs.sampled_from(["offline", "idle", "checkin", "waiting", "playing", "paused", "done", "x"])},
                             optional={"board": hs.integers(1, 3), "plays": _json})


@settings(max_examples=300, deadline=None)
@given(hs.one_of(_json, hs.fixed_dictionaries({"v": hs.just(1), "round": hs.integers(0, 3), "at": hs.integers(0, 9),
                                                "tables": hs.lists(_row, max_size=3)})))
def test_check_tables_refuses_with_a_wire_error_or_keeps_to_the_fields(payload):
    try:
        msg = wire.check_tables(wire.dumps(payload) if isinstance(payload, dict) else payload)
    except wire.WireError as e:
        assert e.en and e.zh
        return
    for t in msg["tables"]:
        assert set(t) <= set(wire.TABLE_FIELDS) and t["state"] in wire.TABLE_STATES


@settings(max_examples=300, deadline=None)
@given(hs.dictionaries(hs.sampled_from(["round", "group", "board", "reason", "table"]), _json, max_size=5))
def test_close_board_bodies_are_checked_or_refused_in_both_languages(body):
    try:
        out = check_action("close_board", body)
    except WebError as e:
        assert e.en and e.zh and e.status in (400, 404)
        return
    assert set(out) == {"round", "group", "board", "reason"} and out["reason"].strip()
    assert all(type(out[k]) is int and out[k] >= 1 for k in ("round", "group", "board"))


def test_the_public_page_in_chromium_mid_round_shows_the_tables_not_the_board(mosquitto, tmp_path):
    import shutil

    import pytest
    playwright_api = pytest.importorskip("playwright.async_api")
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    shots = os.environ.get("PAIZHUO_SCREENSHOTS") or str(tmp_path)

    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w, playwright_api.async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            try:
                page = await (await browser.new_context(viewport={"width": 1280, "height": 720}, locale="zh-CN")).new_page()
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                await page.goto(w.url("/"))
                fast, slow = w.sims["1"], w.sims["2"]
                fast.begin_deal()
                fast.finish()
                slow.begin_deal()
                slow.step(12)
                await wait_for(lambda: w.venue.standings()["results"] == 4, what="table 1's board 1 at the venue")
                await page.wait_for_function("() => document.querySelector('#tables [data-table=\"1\"]')"
                                             " && document.querySelector('#tables [data-table=\"1\"]').textContent"
                                             ".includes('1/2')", timeout=10000)
                await page.screenshot(path=os.path.join(shots, "public-mid-round.png"), full_page=True)
                assert await page.locator("#standings tbody tr").count() == 0
                assert await page.locator("#empty").is_visible()
                states = await page.eval_on_selector_all("#tables [data-table]", "e => e.map(x => x.dataset.state)")
                assert states == ["playing", "playing"]
                slow.finish()
                await page.wait_for_function("() => document.querySelectorAll('#standings tbody tr').length === 8",
                                             timeout=10000)
                await page.screenshot(path=os.path.join(shots, "public-board-1-done.png"), full_page=True)
                assert not errors, errors
            finally:
                await browser.close()
    run(main())
