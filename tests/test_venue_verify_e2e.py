"""End to end: a real ``paizhuo hub`` process (four bot seats) reports its real results through a
real mosquitto (production configuration: a password per client, topic ACLs) to the real venue,
which replays and counts each of them; then someone holding that hub's own broker password
publishes a forged result (+5000/−5000) — the finding — and the venue holds it, acknowledged,
with its reason, and the standings do not move.  The heads of the hub's log that came with its
messages are the venue's anchor: ``paizhuo venue anchors`` exports it and ``paizhuo hub verify
--anchor`` finds the hub's log reaching it.
"""

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys

from brokers import Mosquitto, free_port, wait_for

from paizhuo.mqtt import wire
from paizhuo.mqtt.client import MqttClient
from paizhuo.mqtt.mosquitto import read_password_file, write_config
from paizhuo.venue.event import load_text
from paizhuo.venue.service import Venue
from paizhuo.venue.store import Store

EVENT = "verify"
HUB = "T001"


def event_toml(port, bdir):
    lines = ["[event]", 'id = "%s"' % EVENT, 'name = "复核测试"', 'game = "bigtwo"', 'secret = "text:verify e2e secret text"',
             "rounds = 1", "boards_per_round = 2", "auto_start = true", "",
             "[broker]", 'host = "127.0.0.1"', "port = %d" % port, 'username = "venue"',
             'password_file = "%s"' % os.path.join(bdir, "venue.pass"), "keepalive_seconds = 5", "",
             "[store]", 'path = "venue.sqlite"', "", "[[tables]]", 'table = "1"', 'hub = "%s"' % HUB, ""]
    for p in range(1, 5):
        lines += ["[[players]]", 'id = "P%d"' % p, 'name = "选手%d"' % p, "no = %d" % p, ""]
    return "\n".join(lines)


def table_toml(port, bdir):
    return "\n".join([
        "[table]", 'hub = "%s"' % HUB, 'id = "1"', 'event = "verify e2e"', 'log = "table.sqlite"', "",
        "[venue]", 'broker = "127.0.0.1:%d"' % port, 'event = "%s"' % EVENT,
        'password_file = "%s"' % os.path.join(bdir, "%s.pass" % HUB), "keepalive_seconds = 5", "",
        "[seats]", 'bots = ["E", "N", "W", "S"]', "bot_think_seconds = 0", "",
        "[clock]", "next_deal_seconds = 0.2", ""])


def test_a_real_hubs_results_count_and_a_forgery_with_its_password_is_held(tmp_path):
    folder = str(tmp_path)
    port = free_port()
    bdir = os.path.join(folder, "broker")
    write_config(bdir, EVENT, [HUB], port=port, bind="127.0.0.1")
    broker = Mosquitto(bdir, conf=os.path.join(bdir, "mosquitto.conf"), port=port)
    broker.start()
    hub_dir = os.path.join(folder, HUB)
    os.makedirs(hub_dir)
    with open(os.path.join(hub_dir, "table.toml"), "w", encoding="utf-8") as f:
        f.write(table_toml(port, bdir))

    async def main():
        text = event_toml(port, bdir)
        with open(os.path.join(folder, "event.toml"), "w", encoding="utf-8") as f:
            f.write(text)
        cfg = load_text(text, os.path.join(folder, "event.toml"), base=folder)
        venue = Venue(cfg, Store(cfg.store_path), cfg.broker.client("venue-verify", clean_session=False), standings_delay=0)
        stop = asyncio.Event()
        task = asyncio.ensure_future(venue.run(stop))
        out = open(os.path.join(hub_dir, "hub.txt"), "wb")
        proc = subprocess.Popen([sys.executable, "-m", "paizhuo.cli", "hub", "--config", os.path.join(hub_dir, "table.toml")],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        forger = None
        try:
            await wait_for(venue.finished.is_set, 120, "the hub's two deals counted (round complete)")
            rows = venue.results()
            assert len(rows) == 8 and all(r["status"] == "ok" and r["held_reason"] is None for r in rows), rows
            await venue.recompute()
            before = venue.standings()
            assert before["results"] == 8 and not [a for a in venue.alerts() if a["kind"] not in ("seat_offline", "seat_online")]
            # The hub's own password, the hub's own topic: the broker lets it through.
            genuine = [m["message"] for m in venue.store.inbox(EVENT, HUB) if m["kind"] == "result"][0]
            forged = json.loads(json.dumps(genuine))
            forged.update(epoch=secrets.token_hex(8), n=1)
            for r in forged["rows"]:
                r["result_id"] += "/forged"
                r["score"] = {"E": 5000, "N": -5000}.get(r["seat"], 0)
            forged["record"]["result"]["scores"] = {"E": 5000, "N": -5000, "W": 0, "S": 0}
            acks = []
            forger = MqttClient("forger", "127.0.0.1", port, username=HUB,
                                password=read_password_file(os.path.join(bdir, "%s.pass" % HUB)),
                                on_message=lambda t, p: acks.append(json.loads(p)))
            forger.subscribe(wire.venue_topic(EVENT, "ack", HUB), 1)
            await forger.start()
            await wait_for(lambda: forger.connected, 10, "the forger connected")
            forger.publish(wire.hub_topic(EVENT, HUB, "result"), wire.dumps(forged), qos=1)
            await wait_for(lambda: any(a.get("epoch") == forged["epoch"] and a["upto"] == 1 for a in acks), 20,
                           "the venue acknowledged the forgery")
            held = [r for r in venue.results() if r["result_id"].endswith("/forged")]
            assert len(held) == 4 and {(r["status"], r["held_why"]) for r in held} == {("held", "score_mismatch")}
            assert all("5000" in r["held_reason"]["en"] and r["held_reason"]["zh"] for r in held if r["seat"] in "EN")
            assert [a["kind"] for a in venue.alerts()][-1] == "score_mismatch"
            await venue.recompute()
            after = venue.standings()
            assert after["results"] == 8 and after["players"] == before["players"]
            # The hub's log heads came with its messages: the venue's anchor is one of them, and
            # the hub's own log checks out against the export.
            anchor = venue.anchors()[HUB]
            heads = [m["chain"] for m in venue.store.inbox(EVENT, HUB) if m["chain"] and m["status"] == "stored"]
            assert anchor["seq"] == max(h["seq"] for h in heads) and anchor["table"] == "1"
            anchors = os.path.join(folder, "anchors.json")
            cli = [sys.executable, "-m", "paizhuo.cli"]
            got = subprocess.run(cli + ["venue", "anchors", "--event", os.path.join(folder, "event.toml"), "--out", anchors],
                                 capture_output=True, text=True, timeout=60)
            assert got.returncode == 0, got.stderr
            with open(anchors, encoding="utf-8") as f:
                assert json.load(f)["hubs"][HUB] == {k: anchor[k] for k in ("table", "seq", "hash")}
            check = subprocess.run(cli + ["hub", "verify", "--log", os.path.join(hub_dir, "table.sqlite"), "--anchor", anchors],
                                   capture_output=True, text=True, timeout=60)
            assert check.returncode == 0 and "reaches the venue's anchor for hub %s" % HUB in check.stdout, check.stdout
        finally:
            if forger is not None:
                await forger.stop()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(30)
            out.close()
            stop.set()
            await asyncio.wait_for(task, 30)
            venue.store.close()

    try:
        asyncio.run(asyncio.wait_for(main(), 240))
    finally:
        broker.stop()
