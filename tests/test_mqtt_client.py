"""MqttClient (paho on asyncio) against a real mosquitto: delivery, sessions, reconnects, refusals."""

import asyncio
import socket
import subprocess

import paho.mqtt.client as paho
import pytest

from brokers import Mosquitto, free_port, mosquitto, wait_for  # noqa: F401  (mosquitto is a fixture)
from paizhuo.mqtt.client import MqttClient, MqttError


class Inbox:
    """Collects (topic, payload) a client receives."""

    def __init__(self):
        self.got = []

    def __call__(self, topic, payload):
        self.got.append((topic, payload))

    def payloads(self, topic=None):
        return [p for t, p in self.got if topic is None or t == topic]


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_paho_still_has_the_socket_hook_we_replace():
    # MqttClient hands paho a socket asyncio connected; this fails loudly if paho moves the hook.
    assert callable(getattr(paho.Client, "_create_socket_connection"))


def test_publish_subscribe_qos1_with_nodelay(mosquitto):
    async def main():
        inbox = Inbox()
        sub = MqttClient("sub", mosquitto.host, mosquitto.port, on_message=inbox)
        pub = MqttClient("pub", mosquitto.host, mosquitto.port)
        await sub.start()
        await pub.start()
        try:
            await sub.wait_connected(10)
            await pub.wait_connected(10)
            assert sub._sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
            sub.subscribe("t/#")
            # The SUBACK is not exposed; a retained probe tells us the subscription is live.
            pub.publish("t/probe", b"p", retain=True)
            await wait_for(lambda: inbox.payloads("t/probe"), what="subscription live")
            mids = [pub.publish("t/x", ("m%d" % i).encode()) for i in range(50)]
            for mid in mids:
                await pub.published(mid, 10)
            assert pub.unacknowledged == 0
            await wait_for(lambda: len(inbox.payloads("t/x")) == 50, what="50 messages")
            assert inbox.payloads("t/x") == [("m%d" % i).encode() for i in range(50)]  # QoS 1 keeps order here
        finally:
            await sub.stop()
            await pub.stop()
    run(main())


def test_nodelay_off_when_asked(mosquitto):
    async def main():
        c = MqttClient("nagle", mosquitto.host, mosquitto.port, nodelay=False)
        await c.start()
        try:
            await c.wait_connected(10)
            assert c._sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
        finally:
            await c.stop()
    run(main())


def test_persistent_session_gets_messages_queued_while_away(mosquitto):
    async def main():
        inbox = Inbox()
        venue = MqttClient("venue", mosquitto.host, mosquitto.port, clean_session=False, on_message=inbox)
        hub = MqttClient("T01", mosquitto.host, mosquitto.port, clean_session=False)
        await venue.start()
        await hub.start()
        try:
            await venue.wait_connected(10)
            await hub.wait_connected(10)
            venue.subscribe("paizhuo/v1/demo/hub/#")
            mid = hub.publish("paizhuo/v1/demo/hub/T01/result", b"first")
            await hub.published(mid, 10)
            await wait_for(lambda: inbox.payloads() == [b"first"], what="first result")
            await venue.stop()
            for i in range(5):
                await hub.published(hub.publish("paizhuo/v1/demo/hub/T01/result", b"away%d" % i), 10)
            # The same client id comes back: the broker kept the session and its queue.
            inbox2 = Inbox()
            venue2 = MqttClient("venue", mosquitto.host, mosquitto.port, clean_session=False, on_message=inbox2)
            await venue2.start()
            try:
                await venue2.wait_connected(10)
                await wait_for(lambda: len(inbox2.got) == 5, what="queued messages")
                assert inbox2.payloads() == [b"away%d" % i for i in range(5)]
            finally:
                await venue2.stop()
        finally:
            await hub.stop()
    run(main())


def test_publish_while_broker_down_is_delivered_after_it_comes_up(tmp_path):
    broker = Mosquitto(tmp_path)

    async def main():
        # The venue's persistent session (subscription included) is made first and saved by the broker.
        broker.start()
        venue = MqttClient("venue", broker.host, broker.port, clean_session=False)
        await venue.start()
        await venue.wait_connected(10)
        venue.subscribe("x/#")
        await venue.published(venue.publish("x/probe", b"p"), 10)   # after the SUBSCRIBE on the same link
        await venue.stop()
        broker.stop()
        # Now the hub starts with no broker at all, and publishes.
        hub = MqttClient("T02", broker.host, broker.port, clean_session=False)
        await hub.start()
        try:
            assert hub.publish("x/live", b"dropped", qos=0) is None      # QoS 0 offline: dropped
            mids = [hub.publish("x/result", b"r%d" % i) for i in range(3)]
            assert hub.unacknowledged == 3 and not hub.connected
            with pytest.raises(MqttError) as e:
                await hub.wait_connected(0.3)
            assert e.value.code == "not_connected"
            broker.start()
            for mid in mids:
                await hub.published(mid, 20)      # the hub's retries are at most 5 s apart
            assert hub.unacknowledged == 0
            inbox = Inbox()
            venue2 = MqttClient("venue", broker.host, broker.port, clean_session=False, on_message=inbox)
            await venue2.start()
            try:
                await wait_for(lambda: len(inbox.got) >= 3, 20, "3 results queued for the venue")
                assert inbox.payloads("x/result") == [b"r0", b"r1", b"r2"]
                assert inbox.payloads("x/live") == []
            finally:
                await venue2.stop()
        finally:
            await hub.stop()
            broker.stop()
    run(main())


def test_reconnects_after_broker_restart_and_resubscribes(tmp_path):
    broker = Mosquitto(tmp_path)
    broker.start()

    async def main():
        inbox = Inbox()
        events = []
        # clean session: the broker forgets the subscription, so only our re-subscribe brings it back
        sub = MqttClient("sub", broker.host, broker.port, on_message=inbox,
                         on_connect=lambda: events.append("up"), on_disconnect=lambda: events.append("down"))
        pub = MqttClient("pub", broker.host, broker.port)
        await sub.start()
        await pub.start()
        try:
            await sub.wait_connected(10)
            sub.subscribe("r/#")
            await pub.wait_connected(10)
            pub.publish("r/probe", b"1", retain=True)
            await wait_for(lambda: inbox.payloads("r/probe"), what="first probe")
            broker.stop()
            await wait_for(lambda: not sub.connected and not pub.connected, what="both see the broker gone")
            broker.start()
            await sub.wait_connected(20)
            await pub.wait_connected(20)
            mid = pub.publish("r/after", b"2")
            await pub.published(mid, 10)
            await wait_for(lambda: inbox.payloads("r/after") == [b"2"], what="message after restart")
            assert events[:3] == ["up", "down", "up"] and sub.connects >= 2
        finally:
            await sub.stop()
            await pub.stop()
            broker.stop()
    run(main())


def test_will_is_published_when_a_client_dies(mosquitto):
    async def main():
        inbox = Inbox()
        venue = MqttClient("venue", mosquitto.host, mosquitto.port, on_message=inbox)
        hub = MqttClient("T03", mosquitto.host, mosquitto.port, keepalive=2,
                         will=("s/T03", b'{"online":false}', 1, True))
        await venue.start()
        await hub.start()
        try:
            await venue.wait_connected(10)
            venue.subscribe("s/#")
            await hub.wait_connected(10)
            await hub.published(hub.publish("s/T03", b'{"online":true}', retain=True), 10)
            await wait_for(lambda: inbox.payloads() == [b'{"online":true}'], what="online status")
            await hub.abort()
            await wait_for(lambda: inbox.payloads()[-1:] == [b'{"online":false}'], what="the will")
        finally:
            await venue.stop()
    run(main())


def test_clean_stop_sends_no_will(mosquitto):
    async def main():
        inbox = Inbox()
        venue = MqttClient("venue", mosquitto.host, mosquitto.port, on_message=inbox)
        hub = MqttClient("T04", mosquitto.host, mosquitto.port, will=("w/T04", b"gone", 1, False))
        await venue.start()
        await hub.start()
        try:
            await venue.wait_connected(10)
            venue.subscribe("w/#")
            await hub.wait_connected(10)
            await hub.stop()
            # A marker sent after the stop arrives after any will would have: none came before it.
            venue.publish("w/marker", b"m")
            await wait_for(lambda: inbox.payloads("w/marker"), what="marker")
            assert inbox.payloads("w/T04") == []
        finally:
            await venue.stop()
    run(main())


def test_wrong_password_is_one_clear_refusal(tmp_path):
    port = free_port()
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(passwd), "T05", "right"], check=True, capture_output=True)
    conf = tmp_path / "m.conf"
    conf.write_text("listener %d 127.0.0.1\nallow_anonymous false\npassword_file %s\n" % (port, passwd))
    broker = Mosquitto(tmp_path, conf=conf, port=port)
    broker.start()

    async def main():
        for user, pw in (("T05", "wrong"), ("nobody", "right"), (None, None)):
            c = MqttClient("c-%s" % user, broker.host, broker.port, username=user, password=pw)
            await c.start()
            try:
                with pytest.raises(MqttError) as e:
                    await c.wait_connected(10)
                assert e.value.code == "broker_refused"
                assert "Not authorized" in e.value.en or "Bad user name or password" in e.value.en
                assert not c.connected
            finally:
                await c.stop()
        ok = MqttClient("ok", broker.host, broker.port, username="T05", password="right")
        await ok.start()
        try:
            await ok.wait_connected(10)
            assert ok.error is None
        finally:
            await ok.stop()
    try:
        run(main())
    finally:
        broker.stop()


def test_a_failing_callback_does_not_break_the_link(mosquitto):
    async def main():
        seen = []

        def bad(topic, payload):
            seen.append(payload)
            raise RuntimeError("handler bug")
        sub = MqttClient("sub", mosquitto.host, mosquitto.port, on_message=bad)
        await sub.start()
        try:
            await sub.wait_connected(10)
            sub.subscribe("b/#")
            for i in range(3):
                sub.publish("b/x", b"%d" % i, retain=(i == 0))
            await wait_for(lambda: len(seen) >= 3, what="three deliveries despite the handler raising")
            assert sub.connected
        finally:
            await sub.stop()
    run(main())


@pytest.mark.parametrize("kwargs", [
    dict(client_id="", host="h", port=1883, clean_session=False),
    dict(client_id="x", host="h", port=0),
    dict(client_id="x", host="h", port=70000),
    dict(client_id="x", host="h", port=1883, keepalive=0),
])
def test_bad_arguments(kwargs):
    with pytest.raises(MqttError) as e:
        MqttClient(**kwargs)
    assert e.value.code == "bad_client"


def test_wait_before_start_and_double_start(mosquitto):
    async def main():
        c = MqttClient("x", mosquitto.host, mosquitto.port)
        with pytest.raises(MqttError):
            await c.wait_connected(1)
        await c.start()
        try:
            with pytest.raises(MqttError):
                await c.start()
        finally:
            await c.stop()
        await c.stop()  # twice is harmless
    run(main())


# ---- the embedded amqtt broker (demo default) ----------------------------------------------------

def test_embedded_broker_qos1_retained_will_and_sessions():
    from brokers import amqtt_broker, login
    from paizhuo.mqtt import wire

    def topic(leaf):
        return wire.hub_topic("demo", "T01", leaf)

    async def main():
        async with amqtt_broker() as broker:
            broker.files = broker.credentials
            inbox = Inbox()
            venue = login(broker, "venue", clean_session=False, on_message=inbox)
            hub = login(broker, "T01", clean_session=False, keepalive=2, will=(topic("status"), b"offline", 1, True))
            await hub.start()
            await hub.wait_connected(10)
            # retained before anyone listens
            await hub.published(hub.publish(topic("status"), b"online", retain=True), 10)
            await venue.start()
            await venue.wait_connected(10)
            # results first: once the retained status (of the later subscription) is in, both are live
            venue.subscribe(wire.hub_filter("demo", "result"))
            venue.subscribe(wire.hub_filter("demo", "status"))
            await wait_for(lambda: inbox.payloads(topic("status")) == [b"online"], what="retained status")
            for i in range(20):
                hub.publish(topic("result"), b"%d" % i)
            await wait_for(lambda: len(inbox.payloads(topic("result"))) == 20, what="20 QoS 1 results")
            assert sorted(inbox.payloads(topic("result")), key=int) == [b"%d" % i for i in range(20)]
            # persistent session: messages published while the venue is away wait for it
            await venue.stop()
            for i in range(3):
                await hub.published(hub.publish(topic("result"), b"away%d" % i), 10)
            inbox2 = Inbox()
            venue2 = login(broker, "venue", clean_session=False, on_message=inbox2)
            await venue2.start()
            try:
                await wait_for(lambda: len(inbox2.payloads(topic("result"))) == 3, what="queued messages")
                # abrupt loss of the hub: the broker publishes its will
                await hub.abort()
                await wait_for(lambda: inbox2.payloads(topic("status"))[-1:] == [b"offline"], what="the will")
            finally:
                await venue2.stop()
    run(main())


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.org", "::"])
def test_embedded_broker_refuses_non_loopback(host):
    from paizhuo.mqtt.broker import BrokerError, EmbeddedBroker
    with pytest.raises(BrokerError) as e:
        EmbeddedBroker(host, 0)
    assert e.value.code == "no_remote_embedded"


def test_embedded_broker_port_in_use_is_a_clear_error(tmp_path):
    from brokers import credentials
    from paizhuo.mqtt.broker import BrokerError, EmbeddedBroker
    folder = credentials(tmp_path / "broker")

    async def main():
        first = EmbeddedBroker("127.0.0.1", 0, credentials=folder, event="demo")
        port = await first.start()
        try:
            second = EmbeddedBroker("127.0.0.1", port, credentials=folder, event="demo")
            with pytest.raises(BrokerError) as e:
                await second.start()
            assert e.value.code == "cannot_listen" and str(port) in e.value.en
            assert not second.running
        finally:
            await first.stop()
        await first.stop()
    run(main())


def test_a_server_that_is_not_a_broker_is_named_as_such():
    async def main():
        attempts = []
        writers = []

        async def junk(reader, writer):
            attempts.append("junk")
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            writer.close()

        async def silent(reader, writer):
            attempts.append("silent")
            writers.append(writer)          # keep it open, say nothing

        s1 = await asyncio.start_server(junk, "127.0.0.1", 0)
        s2 = await asyncio.start_server(silent, "127.0.0.1", 0)
        try:
            for server, needle, wait in ((s1, "closed the connection before accepting us", 3),
                                         (s2, "never answered CONNECT", 8)):
                c = MqttClient("x", "127.0.0.1", server.sockets[0].getsockname()[1], keepalive=1)
                await c.start()
                try:
                    with pytest.raises(MqttError) as e:
                        await c.wait_connected(wait)
                    assert e.value.code == "not_connected" and needle in e.value.en
                finally:
                    await c.stop()
            assert "junk" in attempts and "silent" in attempts
        finally:
            for w in writers:
                w.close()
            s1.close()
            s2.close()
    run(main())


def test_unreachable_broker_is_named_in_the_error():
    async def main():
        port = free_port()      # nothing listens there
        c = MqttClient("x", "127.0.0.1", port)
        await c.start()
        try:
            with pytest.raises(MqttError) as e:
                await c.wait_connected(1)
            assert "cannot reach the MQTT broker at 127.0.0.1:%d" % port in e.value.en
        finally:
            await c.stop()
    run(main())


def test_start_again_after_stop(mosquitto):
    async def main():
        inbox = Inbox()
        c = MqttClient("again", mosquitto.host, mosquitto.port, clean_session=False, on_message=inbox)
        await c.start()
        await c.wait_connected(10)
        c.subscribe("again/#")
        await c.stop()
        assert not c.connected
        await c.start()
        try:
            await c.wait_connected(10)
            await c.published(c.publish("again/x", b"1"), 10)
            await wait_for(lambda: inbox.payloads() == [b"1"], what="message after the second start")
            assert c.connects == 2
        finally:
            await c.stop()
    run(main())


def test_subscribed_waits_for_the_brokers_suback_not_just_the_connack():
    # A broker that accepts the connection and holds the SUBACK: a message published to the
    # topic by someone else now would not reach us, so the client must not say it would.
    async def main():
        got = {}
        release = asyncio.Event()

        async def broker(reader, writer):
            head = await reader.readexactly(2)  # CONNECT: short, so one length byte
            await reader.readexactly(head[1])
            writer.write(b"\x20\x02\x00\x00")  # CONNACK, accepted
            await writer.drain()
            head = await reader.readexactly(2)
            assert head[0] >> 4 == 8, "a SUBSCRIBE"
            body = await reader.readexactly(head[1])
            got["mid"] = body[:2]
            await release.wait()
            writer.write(b"\x90\x03" + body[:2] + b"\x01")  # SUBACK, granted QoS 1
            await writer.drain()
            await reader.read()  # until the client goes

        server = await asyncio.start_server(broker, "127.0.0.1", 0)
        c = MqttClient("sub-test", "127.0.0.1", server.sockets[0].getsockname()[1], keepalive=30)
        c.subscribe("paizhuo/v1/test/x")
        await c.start()
        try:
            await c.wait_connected(5)
            await wait_for(lambda: "mid" in got, 5, "the SUBSCRIBE")
            await asyncio.sleep(0.2)
            assert c.connected and not c.subscribed
            release.set()
            await wait_for(lambda: c.subscribed, 5, "subscribed after the SUBACK")
        finally:
            await c.stop()
            server.close()

    run(main())
