"""Benchmark: the venue link through a real broker (mosquitto; amqtt for comparison).

1. Results per second: N hub clients (``MqttClient``, each its own connection) publish result-sized
   payloads (a real four-row result with its deal record, ~3 KB) at QoS 1; one venue client
   (persistent session) subscribes to ``hub/+/result``.  Timed from the first publish to the last
   message received by the venue.  Everything but the broker runs in this one Python process,
   so the figure is bounded by the clients' CPU as much as by the broker.
2. Round trip: a small QoS 1 publish → the other client receives it and publishes a reply at
   QoS 1 → the first client receives the reply; with TCP_NODELAY on both the clients and the
   broker (``set_tcp_nodelay true``) and with both off (Nagle's algorithm + delayed ACK).

Run alone with ``python tests/bench/bench_mqtt.py [--quick]``.
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/, for brokers

from brokers import Mosquitto, amqtt_broker, free_port  # noqa: E402
from timing import percentile  # noqa: E402

from paizhuo.mqtt import wire  # noqa: E402
from paizhuo.mqtt.client import MqttClient  # noqa: E402
from paizhuo.mqtt.mosquitto import read_password_file  # noqa: E402

EV = "bench"


def _result(hub, n):
    """A result message the size of a real one (four rows and a whole deal's record)."""
    h = "ab" * 32
    rows = [{"result_id": "%s/1/r1/g1/b%d/%s" % (hub, n, s), "round": 1, "group": 1, "board": n, "table": "1",
             "seat": s, "player": "P%03d" % i, "score": 12 - 4 * i, "think_ms": 45000, "auto_moves": 0,
             "deal_hash": h, "bot": False} for i, s in enumerate("ENWS")]
    actions = [{"type": "play", "seat": "ENWS"[i % 4], "cards": ["3D", "3S"], "think_ms": 2100} for i in range(40)]
    hands = {s: ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "2D"] for s in "ENWS"}
    return wire.dumps({"v": 1, "kind": "result", "epoch": "0123456789abcdef", "n": n, "hub": hub, "table": "1",
                       "at": 1, "round": 1, "group": 1, "board": n, "deal": n - 1, "deal_hash": h, "rows": rows,
                       "record": {"deal": {"board": n, "hands": hands}, "actions": actions,
                                  "result": {"scores": {s: 0 for s in "ENWS"}}}})


def _password(passwords, user):
    return None if passwords is None else passwords[user]


async def _throughput(host, port, hubs, per_hub, user_prefix="", passwords=None):
    done = asyncio.Event()
    got = [0]
    total = hubs * per_hub

    def on_message(topic, payload):
        got[0] += 1
        if got[0] >= total:
            done.set()
    venue = MqttClient("venue", host, port, username=user_prefix + "venue", clean_session=False,
                       on_message=on_message, password=_password(passwords, "venue"))
    clients = [MqttClient("T%02d" % i, host, port, username=user_prefix + "T%02d" % i, clean_session=False,
                          password=_password(passwords, "T%02d" % i)) for i in range(hubs)]
    for c in [venue] + clients:
        await c.start()
    for c in [venue] + clients:
        await c.wait_connected(10)
    venue.subscribe(wire.hub_filter(EV, "result"))
    await clients[0].published(clients[0].publish(wire.hub_topic(EV, "T00", "result"), b"warm"), 10)
    while got[0] < 1:
        await asyncio.sleep(0.01)
    got[0] = 0
    payloads = [[_result(c.client_id, n + 1) for n in range(per_hub)] for c in clients]
    size = len(payloads[0][0])
    t0 = time.perf_counter()

    async def one(c, msgs):
        topic = wire.hub_topic(EV, c.client_id, "result")
        for i, p in enumerate(msgs):
            c.publish(topic, p)
            if i % 20 == 19:
                await asyncio.sleep(0)      # let the loop write and read between bursts, as a hub would
    await asyncio.gather(*(one(c, m) for c, m in zip(clients, payloads)))
    await asyncio.wait_for(done.wait(), 120)
    elapsed = time.perf_counter() - t0
    for c in [venue] + clients:
        await c.stop()
    return total / elapsed, size


async def _round_trips(host, port, n, nodelay, passwords=None):
    # The venue pings hub T00 on its ack topic, the hub answers on its reply topic: topics the
    # broker rules allow (the embedded broker enforces them; the bench's mosquitto is open).
    ping, pong_topic = wire.venue_topic(EV, "ack", "T00"), wire.hub_topic(EV, "T00", "reply")
    pong = asyncio.Event()
    a = MqttClient("rt-a", host, port, nodelay=nodelay, on_message=lambda t, p: pong.set(),
                   username="venue" if passwords else None, password=_password(passwords, "venue"))
    b = None

    def reply(topic, payload):
        b.publish(pong_topic, payload, qos=1)
    b = MqttClient("rt-b", host, port, nodelay=nodelay, on_message=reply,
                   username="T00" if passwords else None, password=_password(passwords, "T00"))
    for c in (a, b):
        await c.start()
        await c.wait_connected(10)
    a.subscribe(pong_topic)
    b.subscribe(ping)
    # Both SUBSCRIBEs travel on their own connections: ping until the first pong says both are live.
    for _ in range(100):
        a.publish(ping, b"warm", qos=1)
        try:
            await asyncio.wait_for(pong.wait(), 0.2)
            break
        except asyncio.TimeoutError:
            pass
    await asyncio.sleep(0.3)        # late pongs of the warm-up pings land before timing starts
    times = []
    for i in range(n):
        pong.clear()
        t0 = time.perf_counter()
        a.publish(ping, b"%d" % i, qos=1)
        await asyncio.wait_for(pong.wait(), 10)
        times.append((time.perf_counter() - t0) * 1000.0)
    await a.stop()
    await b.stop()
    return times


def _mosquitto(folder, nodelay=True):
    port = free_port()
    conf = os.path.join(folder, "bench-%s.conf" % ("nodelay" if nodelay else "nagle"))
    with open(conf, "w") as f:
        f.write("listener %d 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay %s\nmax_inflight_messages 100\n"
                "max_queued_messages 100000\n" % (port, "true" if nodelay else "false"))
    return Mosquitto(folder, conf=conf, port=port)


async def _run(quick):
    hubs, per_hub = (4, 250) if quick else (20, 500)
    trips_fast, trips_slow = (200, 30) if quick else (1000, 200)
    folder = tempfile.mkdtemp(prefix="paizhuo-bench-mqtt-")
    out = {}
    broker = _mosquitto(folder, nodelay=True).start()
    try:
        out["mosquitto"] = await _throughput(broker.host, broker.port, hubs, per_hub)
        out["rt_on"] = await _round_trips(broker.host, broker.port, trips_fast, True)
    finally:
        broker.stop()
    broker = _mosquitto(folder, nodelay=False).start()
    try:
        out["rt_off"] = await _round_trips(broker.host, broker.port, trips_slow, False)
    finally:
        broker.stop()
    users = ["T%02d" % i for i in range(hubs)]
    async with amqtt_broker(event=EV, hubs=users) as am:
        # with logins and the topic rules checked on every message, as the venue runs it
        passwords = {u: read_password_file(os.path.join(am.credentials, "%s.pass" % u)) for u in users + ["venue"]}
        out["amqtt"] = await _throughput("127.0.0.1", am.port, hubs, per_hub // (5 if quick else 2), passwords=passwords)
        out["rt_amqtt"] = await _round_trips("127.0.0.1", am.port, trips_fast // 2, True, passwords=passwords)
    return hubs, per_hub, out


def section(quick):
    hubs, per_hub, r = asyncio.run(_run(quick))
    (mq_rate, size), (am_rate, _) = r["mosquitto"], r["amqtt"]

    def rt(times):
        return "%.2f / %.2f ms (%d)" % (statistics.median(times), percentile(times, 0.99), len(times))
    lines = [
        "## Venue link: MQTT through a real broker",
        "",
        "%d hub clients each publish %d results (QoS 1, %d bytes each: four rows and the deal's record) to one"
        " venue client with a persistent session; clients and broker on this machine, all clients in one"
        " Python process (`hub/mqtt/client.py`: paho-mqtt on asyncio).  Round trip: a small QoS 1 publish,"
        " the other client's QoS 1 reply, received (median / p99, count)." % (hubs, per_hub, size),
        "",
        "| measure | value |",
        "|---|---|",
        "| results/s through mosquitto | %.0f |" % mq_rate,
        "| results/s through the embedded amqtt broker | %.0f |" % am_rate,
        "| round trip, TCP_NODELAY on (clients and mosquitto) | %s |" % rt(r["rt_on"]),
        "| round trip, TCP_NODELAY off (Nagle + delayed ACK) | %s |" % rt(r["rt_off"]),
        "| round trip, embedded amqtt (TCP_NODELAY on the clients) | %s |" % rt(r["rt_amqtt"]),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
