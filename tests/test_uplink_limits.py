"""What the venue link cannot carry is said, never silently dropped.

- A result over the link's result limit (``wire.MAX_RESULT_PAYLOAD``, what mosquitto's
  ``max_packet_size`` lets through) cannot be sent: the referees get a ``result_too_big`` alert
  and the hub's log says, in English and Chinese, what to do; the result stays in the table log
  (``paizhuo hub results`` exports it), and a restart does not alert twice.
  The limit is lowered for the test, so an ordinary deal's result is over it: playing a 4 MB
  match would take minutes, and the path is the same.
"""

import asyncio

from paizhuo.mqtt import wire
from paizhuo.table.results import rows_from_log
from paizhuo.table.runtime import Table
from paizhuo.table.uplink import Uplink

from brokers import mosquitto, wait_for  # noqa: F401  (mosquitto is a fixture)
from table_seat import Rig, log_entries, round_key, round_spec
from test_mosquitto_acl import broker  # noqa: F401  (the fixture: mosquitto and the embedded broker)
from test_hub_uplink import FakeVenue, run, venue_opts


def test_a_result_too_big_for_the_link_alerts_the_referees_and_stays_in_the_log(tmp_path, mosquitto, monkeypatch):
    monkeypatch.setattr(wire, "MAX_RESULT_PAYLOAD", 1500)
    said = []

    async def main():
        rig = Rig(str(tmp_path), venue=venue_opts(mosquitto), bots=tuple("ENWS"), bot_think_seconds=0.001,
                  clock={"next_deal_seconds": 0.05})
        venue = FakeVenue(mosquitto, auto_ack=True)
        await venue.start()
        try:
            for restart in (False, True):
                stop = asyncio.Event()
                table = Table(rig.config)
                uplink = Uplink(rig.config, table, log=said.append)
                tasks = [asyncio.ensure_future(table.run(stop)), asyncio.ensure_future(uplink.run(stop))]
                try:
                    await wait_for(lambda: uplink.client.subscribed, 15, "the hub connected and subscribed")
                    if not restart:
                        spec = round_spec(1, boards=[1])
                        venue.publish_round(spec)
                        assert (await venue.reply(spec["id"]))["ok"] is True
                        start = venue.control("start", round=1, round_key=round_key(1))
                        assert (await venue.reply(start))["ok"] is True
                        await wait_for(lambda: venue.alerts, 30, "the referees alerted")
                    else:
                        await asyncio.sleep(0.5)  # the rescan has run: any second alert would be out by now
                    await wait_for(lambda: uplink.outbox.unacked == 0, 15, "the alert acknowledged")
                finally:
                    stop.set()
                    await asyncio.gather(*tasks)
        finally:
            await venue.stop()
            await rig.close()
        return rig, venue

    rig, venue = run(main())
    (alert,) = venue.alerts  # one alert, not one per start
    assert alert["alert"] == "result_too_big" and (alert["round"], alert["board"]) == (1, 1)
    assert alert["bytes"] > alert["limit"] == 1500
    for text in (alert["en"], alert["zh"]):
        assert "paizhuo hub results --config" in text and rig.config.log in text
    assert "cannot be sent" in alert["en"] and "无法发送" in alert["zh"]
    assert alert["en"] in said and alert["zh"] in said  # the hub's own log says it in both languages
    assert venue.results == [] and not venue.bad
    # Nothing accepted is lost: the result is in the log, and the export the alert names has it.
    assert [e.body["board"] for e in log_entries(rig.config.log, kind="result")] == [1]
    rows = rows_from_log(rig.config.log, rig.config)
    assert sorted(r["seat"] for r in rows) == sorted("ENWS")


# ---- the brokers' packet limit ---------------------------------------------------------------------

def _varint(n):
    out = b""
    while True:
        n, b = divmod(n, 128)
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _packet(first, body):
    return bytes([first]) + _varint(len(body)) + body


def _text(b):
    return len(b).to_bytes(2, "big") + b


async def _raw_login(broker, user):
    """A bare MQTT 3.1.1 connection as ``user`` (exact packet sizes: paho would resend)."""
    from paizhuo.mqtt import mosquitto as mq
    password = mq.read_password_file("%s/%s.pass" % (broker.files, user)).encode()
    reader, writer = await asyncio.open_connection(broker.host, broker.port)
    writer.write(_packet(0x10, _text(b"MQTT") + b"\x04\xc2" + (30).to_bytes(2, "big") + _text(user.encode())
                         + _text(user.encode()) + _text(password)))
    assert await asyncio.wait_for(reader.readexactly(4), 10) == b"\x20\x02\x00\x00", "logged in"
    return reader, writer


async def _publish_and_ping(reader, writer, topic, size):
    """Publish (QoS 0) a packet of ``size`` bytes as mosquitto counts them (remaining length + 1),
    then a PINGREQ: True if the broker still answers, False if it closed the connection."""
    body = _text(topic.encode())
    body += b"x" * (size - 1 - len(body))
    writer.write(_packet(0x30, body) + b"\xc0\x00")
    try:
        await writer.drain()
        return await asyncio.wait_for(reader.readexactly(2), 15) == b"\xd0\x00"
    except (asyncio.IncompleteReadError, ConnectionError):
        return False


def test_both_brokers_disconnect_a_client_whose_packet_is_over_the_limit(broker):  # noqa: F811
    """mosquitto (``max_packet_size`` as ``paizhuo broker config`` writes it) and the embedded broker
    draw the line at the same byte: a packet of wire.BROKER_PACKET goes through, one more byte
    and the sender is disconnected, the message delivered to no one."""
    from brokers import login
    from test_mosquitto_acl import EV, Inbox, hub, started, stopped

    async def main():
        venue = login(broker, "venue", on_message=Inbox())
        await started(venue)
        try:
            venue.subscribe(wire.hub_filter(EV))
            await asyncio.sleep(0.3)  # the subscription is live
            reader, writer = await _raw_login(broker, "T01")
            assert await _publish_and_ping(reader, writer, hub("live"), wire.BROKER_PACKET), "at the limit: taken"
            await wait_for(lambda: venue.on_message.got, 20, "the packet at the limit delivered")
            assert not await _publish_and_ping(reader, writer, hub("live"), wire.BROKER_PACKET + 1), \
                "one byte over: disconnected"
            writer.close()
            reader, writer = await _raw_login(broker, "T01")  # the client may come back
            assert await _publish_and_ping(reader, writer, hub("live"), 100)
            await wait_for(lambda: len(venue.on_message.got) == 2, 20, "a small packet after the reconnect")
            writer.close()
        finally:
            await stopped(venue)
        return venue.on_message.got

    got = asyncio.run(asyncio.wait_for(main(), 90))
    assert [len(p) for _, p in got] == [wire.BROKER_PACKET - 3 - len(hub("live")), 100 - 3 - len(hub("live"))]
