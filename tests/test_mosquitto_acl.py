"""The broker rules against both real brokers: the production mosquitto with the files of
`paizhuo broker config`, and the embedded amqtt broker of `paizhuo venue` with the same folder
(logins, ACLs, forgeries, wills); mosquitto's persistence across a restart; `paizhuo broker
check` on tampered folders."""

import asyncio
import os
import subprocess

import pytest

from brokers import EmbeddedThread, Mosquitto, free_port, login, reachable_by_mosquitto, refused, wait_for
from paizhuo import cli
from paizhuo.mqtt import mosquitto as mq
from paizhuo.mqtt import wire
from paizhuo.mqtt.client import MqttClient, MqttError

EV = "demo"
HUBS = ["T01", "T02"]


def _mosquitto(tmp_path):
    folder = tmp_path / "broker"
    port = free_port()
    mq.write_config(str(folder), EV, HUBS, port=port, bind="127.0.0.1")
    b = Mosquitto(folder, conf=folder / "mosquitto.conf", port=port)
    b.files = folder
    return b


@pytest.fixture(params=["mosquitto", "embedded"])
def broker(request, tmp_path):
    """Each broker with the same `paizhuo broker config` folder (``.files``)."""
    if request.param == "mosquitto":
        b = _mosquitto(tmp_path)
    else:
        mq.write_config(str(tmp_path / "broker"), EV, HUBS, bind="127.0.0.1")
        b = EmbeddedThread(tmp_path / "broker", EV)
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def mosquitto_broker(tmp_path):
    b = _mosquitto(tmp_path)
    b.start()
    try:
        yield b
    finally:
        b.stop()


class Inbox:
    def __init__(self):
        self.got = []

    def __call__(self, topic, payload):
        self.got.append((topic, payload))

    def topics(self):
        return [t for t, _ in self.got]


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 90))


async def started(*clients):
    for c in clients:
        await c.start()
    for c in clients:
        await c.wait_connected(10)


async def stopped(*clients):
    for c in clients:
        await c.stop()


def hub(leaf, h="T01"):
    return wire.hub_topic(EV, h, leaf)


def test_a_hub_cannot_publish_as_another_hub_or_as_the_venue(broker):
    """T01, logged in with its own password, forges T02's result and status, pauses T02 (a control),
    sends T02 a round spec and publishes a retained venue/standings: nothing of it reaches the
    venue, T02 or a console, and the retained standings stay the venue's."""
    async def main():
        inbox, t02_inbox = Inbox(), Inbox()
        venue = login(broker, "venue", on_message=inbox)
        t01 = login(broker, "T01")
        t02 = login(broker, "T02", on_message=t02_inbox)
        spy = login(broker, "monitor", client_id="spy", on_message=Inbox())
        await started(venue, t01, t02, spy)
        try:
            venue.subscribe(wire.hub_filter(EV))
            spy.subscribe(wire.event_filter(EV))
            for f in wire.hub_subscriptions(EV, "T02"):
                t02.subscribe(f)
            await venue.published(venue.publish(wire.venue_topic(EV, "standings"), b"{}", retain=True), 10)
            await wait_for(lambda: spy.on_message.got and t02_inbox.got, what="the subscriptions live")
            # Forbidden first, then an allowed marker on the same connection: QoS 1 from one client
            # arrives in order, so when the marker is in, the forbidden ones would have been too.
            for topic in (hub("result", "T02"), hub("status", "T02"), wire.venue_topic(EV, "standings"),
                          wire.venue_topic(EV, "ack", "T02"), wire.venue_topic(EV, "control", "T02"),
                          wire.venue_topic(EV, "round", "T02"), wire.records_topic(EV, 1),
                          "paizhuo/v1/other/hub/T01/result", "elsewhere"):
                await t01.published(t01.publish(topic, b"forged"), 10)
                await t01.published(t01.publish(topic, b"forged", retain=True), 10)
            await t01.published(t01.publish(hub("result"), b"marker"), 10)
            await t01.published(t01.publish(hub("live"), b"marker"), 10)
            await venue.published(venue.publish(wire.venue_topic(EV, "ack", "T02"), b"marker"), 10)
            await venue.published(venue.publish(wire.venue_topic(EV, "standings"), b"marker"), 10)
            await wait_for(lambda: (hub("live"), b"marker") in inbox.got, what="marker at the venue")
            await wait_for(lambda: (wire.venue_topic(EV, "standings"), b"marker") in spy.on_message.got,
                           what="marker at the spy")
            await wait_for(lambda: (hub("result"), b"marker") in inbox.got, what="marker at the venue")
            await wait_for(lambda: (wire.venue_topic(EV, "ack", "T02"), b"marker") in t02_inbox.got, what="marker at T02")
            assert inbox.got == [(hub("result"), b"marker"), (hub("live"), b"marker")]
            assert b"forged" not in [p for _, p in spy.on_message.got + t02_inbox.got]
            # A console that comes later gets the venue's retained standings, not a forgery.
            late = Inbox()
            console = login(broker, "monitor", client_id="late", on_message=late)
            await started(console)
            console.subscribe(wire.event_filter(EV))
            await wait_for(lambda: late.got, what="retained messages at a later console")
            await asyncio.sleep(0.3)
            await console.stop()
            assert late.got == [(wire.venue_topic(EV, "standings"), b"{}")]
        finally:
            await stopped(venue, t01, t02, spy)
    run(main())


def test_no_hub_gets_another_hubs_retained_round_spec_or_status(broker):
    """Retained messages are checked per receiver too: T01, subscribed to everything (``#``), gets
    its own round spec, never T02's, nor T02's status — also when it comes back to its session."""
    async def main():
        t02 = login(broker, "T02", clean_session=False)
        venue = login(broker, "venue")
        await started(t02, venue)
        for f in wire.hub_subscriptions(EV, "T02"):
            t02.subscribe(f)
        await t02.published(t02.publish(hub("status", "T02"), b"T02 online", retain=True), 10)
        for h in ("T02", "T01"):
            await venue.published(venue.publish(wire.venue_topic(EV, "round", h), b"spec of " + h.encode(),
                                                retain=True), 10)
        await venue.published(venue.publish(wire.venue_topic(EV, "control", "T02"), b"start T02", retain=True), 10)
        own = (wire.venue_topic(EV, "round", "T01"), b"spec of T01")
        try:
            for attempt in range(2):    # a new session, then the same session again
                inbox = Inbox()
                t01 = login(broker, "T01", clean_session=False, on_message=inbox)
                await started(t01)
                for f in ["#", wire.event_filter(EV), wire.hub_filter(EV), "paizhuo/v1/%s/venue/#" % EV] \
                        + wire.hub_subscriptions(EV, "T01"):
                    t01.subscribe(f)
                await wait_for(lambda: own in inbox.got, what="T01's own retained round spec")
                await venue.published(venue.publish(wire.venue_topic(EV, "ack", "T01"), b"marker"), 10)
                await wait_for(lambda: (wire.venue_topic(EV, "ack", "T01"), b"marker") in inbox.got, what="marker")
                await asyncio.sleep(0.3)
                await t01.stop()
                leaked = [(t, p) for t, p in inbox.got if b"T02" in p]
                assert leaked == [], "attempt %d: T01 received %s" % (attempt, leaked)
        finally:
            await stopped(t02, venue)
    run(main())


def test_a_hubs_will_cannot_speak_for_another(broker):
    """A will is a publish: T01's will on T02's status or on the standings never arrives."""
    async def main():
        inbox, console = Inbox(), Inbox()
        venue = login(broker, "venue", on_message=inbox)
        monitor = login(broker, "monitor", on_message=console)
        await started(venue, monitor)
        venue.subscribe(wire.hub_filter(EV))
        monitor.subscribe(wire.event_filter(EV))
        try:
            for n, topic in enumerate((hub("status", "T02"), wire.venue_topic(EV, "standings"))):
                t01 = login(broker, "T01", client_id="T01-%d" % n, keepalive=2, will=(topic, b"forged will", 1, True))
                await t01.start()
                try:
                    await t01.wait_connected(10)
                except MqttError:
                    pass        # refusing the login outright is as good
                await t01.abort()
            honest = login(broker, "T01", keepalive=2, will=(hub("status"), b"T01 offline", 1, True))
            await started(honest)
            await honest.abort()
            await wait_for(lambda: (hub("status"), b"T01 offline") in inbox.got, what="T01's own will")
            await venue.published(venue.publish(wire.venue_topic(EV, "standings"), b"marker"), 10)
            await wait_for(lambda: (wire.venue_topic(EV, "standings"), b"marker") in console.got,
                           what="the venue's standings at the console")
            assert b"forged will" not in [p for _, p in inbox.got + console.got]
        finally:
            await stopped(venue, monitor)
    run(main())


def test_hub_reads_only_its_own_venue_topics(broker):
    async def main():
        inbox = Inbox()
        t01 = login(broker, "T01", on_message=inbox)
        venue = login(broker, "venue")
        await started(t01, venue)
        try:
            for f in wire.hub_subscriptions(EV, "T01"):
                t01.subscribe(f)
            t01.subscribe("paizhuo/v1/%s/venue/#" % EV)      # wider than its ACL: gets nothing extra
            t01.subscribe("paizhuo/v1/%s/hub/#" % EV)        # other hubs' traffic: nothing
            t01.subscribe("#")                                 # everything: still nothing extra
            await venue.published(venue.publish(wire.venue_topic(EV, "control", "T02"), b"not yours"), 10)
            await venue.published(venue.publish(wire.venue_topic(EV, "round", "T02"), b"not yours",
                                                retain=True), 10)
            for leaf in ("ack", "control"):
                await venue.published(venue.publish(wire.venue_topic(EV, leaf, "T01"), b"yours"), 10)
            await venue.published(venue.publish(wire.venue_topic(EV, "standings"), b"all", retain=True), 10)
            await venue.published(venue.publish(wire.records_topic(EV, 1), b"all", retain=True), 10)
            want = {wire.venue_topic(EV, "ack", "T01"), wire.venue_topic(EV, "control", "T01"),
                    wire.venue_topic(EV, "standings"), wire.records_topic(EV, 1)}
            await wait_for(lambda: want <= set(inbox.topics()), what="T01's own topics")
            t02 = login(broker, "T02")
            await started(t02)
            await t02.published(t02.publish(hub("result", "T02"), b"t02 result"), 10)
            await venue.published(venue.publish(wire.venue_topic(EV, "ack", "T01"), b"marker"), 10)
            await wait_for(lambda: (wire.venue_topic(EV, "ack", "T01"), b"marker") in inbox.got, what="marker")
            await t02.stop()
            assert set(inbox.topics()) == want
            assert b"not yours" not in [p for _, p in inbox.got] and b"t02 result" not in [p for _, p in inbox.got]
        finally:
            await stopped(t01, venue)
    run(main())


def test_monitor_reads_only_public_topics_and_writes_nothing(broker):
    """Hall displays see the venue's table feed, standings and finished rounds' records — never
    a round spec or control (a start carries the round key, which opens every hand), a result
    (its hand record), an alert, or a hub's status or live snapshot (its plays of a board other
    tables may still be playing)."""
    async def main():
        inbox = Inbox()
        monitor = login(broker, "monitor", on_message=inbox)
        t01 = login(broker, "T01")
        venue = login(broker, "venue")
        await started(monitor, t01, venue)
        try:
            monitor.subscribe(wire.event_filter(EV))
            private = [(t01, hub("result")), (t01, hub("alert")), (t01, hub("reply")), (t01, hub("status")),
                       (t01, hub("live")),
                       (venue, wire.venue_topic(EV, "round", "T01")), (venue, wire.venue_topic(EV, "control", "T01")),
                       (venue, wire.venue_topic(EV, "ack", "T01"))]
            for client, topic in private:
                await client.published(client.publish(topic, b"secret"), 10)
            public = [(venue, wire.venue_topic(EV, "tables")), (venue, wire.venue_topic(EV, "standings")),
                      (venue, wire.records_topic(EV, 1))]
            for client, topic in public:
                await client.published(client.publish(topic, b"public"), 10)
            for topic in (hub("result"), hub("status", "T02"), wire.venue_topic(EV, "standings"),
                          wire.venue_topic(EV, "control", "T01")):
                await monitor.published(monitor.publish(topic, b"forged"), 10)
            await venue.published(venue.publish(wire.venue_topic(EV, "standings"), b"marker"), 10)
            await wait_for(lambda: (wire.venue_topic(EV, "standings"), b"marker") in inbox.got,
                           what="venue traffic at the monitor")
            assert sorted(t for t, p in inbox.got if p == b"public") == sorted(t for _, t in public)
            assert b"secret" not in [p for _, p in inbox.got]
            assert b"forged" not in [p for _, p in inbox.got]
        finally:
            await stopped(monitor, t01, venue)
    run(main())


@pytest.mark.parametrize("user,password", [(None, None), ("T01", "wrong"), ("T01", ""), ("nobody", "x"),
                                           ("venue", None)])
def test_anonymous_and_wrong_passwords_are_refused(broker, user, password):
    run(refused(broker, username=user, password=password))


def test_another_hubs_password_does_not_open_this_hub(broker):
    async def main():
        t02pass = mq.read_password_file(os.path.join(broker.files, "T02.pass"))
        c = MqttClient("T01", broker.host, broker.port, username="T01", password=t02pass)
        await c.start()
        try:
            with pytest.raises(MqttError):
                await c.wait_connected(10)
        finally:
            await c.stop()
    run(main())


def test_no_login_can_take_over_another_clients_session(broker):
    """T01, with its own password, connects under T02's and the venue's client ids — before they
    are in and while they are: neither is refused, disconnected or robbed of its session; the
    venue, away for a while, still gets what was queued for it (QoS 1, persistent session)."""
    async def main():
        drops = {"T02": 0, "venue": 0}
        got, t02_got = Inbox(), Inbox()
        password = mq.read_password_file(os.path.join(broker.files, "T01.pass"))

        def impostor(client_id):
            return MqttClient(client_id, broker.host, broker.port, username="T01", password=password,
                              clean_session=True)
        early = impostor("T02")
        await started(early)        # first with T02's id: T02 must still get in afterwards
        venue = login(broker, "venue", client_id="venue-demo", clean_session=False, on_message=got,
                      on_disconnect=lambda: drops.__setitem__("venue", drops["venue"] + 1))
        t02 = login(broker, "T02", clean_session=False, on_message=t02_got,
                    on_disconnect=lambda: drops.__setitem__("T02", drops["T02"] + 1))
        await started(venue, t02)
        await stopped(early)
        try:
            venue.subscribe(wire.hub_filter(EV))
            for f in wire.hub_subscriptions(EV, "T02"):
                t02.subscribe(f)
            await wait_for(lambda: venue.subscribed and t02.subscribed, what="the SUBACKs")
            await t02.published(t02.publish(hub("result", "T02"), b"first"), 10)
            await wait_for(lambda: got.got, what="the venue's subscription")
            for client_id in ("T02", "venue-demo", "venue"):
                c = impostor(client_id)
                await started(c)
                await asyncio.sleep(0.3)
                await stopped(c)
            await asyncio.sleep(0.5)
            assert drops == {"T02": 0, "venue": 0} and venue.connects == 1 and t02.connects == 1
            await venue.stop()
            await t02.published(t02.publish(hub("result", "T02"), b"queued"), 10)
            venue = login(broker, "venue", client_id="venue-demo", clean_session=False, on_message=got)
            await started(venue)
            await wait_for(lambda: [p for _, p in got.got] == [b"first", b"queued"], what="the queued result")
            await venue.published(venue.publish(wire.venue_topic(EV, "ack", "T02"), b"ack"), 10)
            await wait_for(lambda: (wire.venue_topic(EV, "ack", "T02"), b"ack") in t02_got.got, what="T02's ack")
        finally:
            await stopped(venue, t02)
    run(main())


def test_the_will_of_a_killed_hub_arrives(broker):
    async def main():
        inbox = Inbox()
        venue = login(broker, "venue", on_message=inbox)
        offline = wire.dumps({"v": 1, "hub": "T01", "table": "1", "online": False})
        t01 = login(broker, "T01", keepalive=2, clean_session=False, will=(hub("status"), offline, 1, True))
        await started(venue, t01)
        try:
            venue.subscribe(wire.hub_filter(EV, "status"))
            online = wire.dumps({"v": 1, "hub": "T01", "table": "1", "online": True, "at": 1})
            await t01.published(t01.publish(hub("status"), online, retain=True), 10)
            # (amqtt may deliver a retained message that races the subscription twice: at least once)
            await wait_for(lambda: (hub("status"), online) in inbox.got, what="online status")
            await t01.abort()
            await wait_for(lambda: inbox.got[-1] != (hub("status"), online), what="the will")
            topic, payload = inbox.got[-1]
            assert topic == hub("status") and wire.check_status(payload, "T01")["online"] is False
        finally:
            await venue.stop()
    run(main())


def test_broker_restart_mid_stream_loses_no_qos1_message(mosquitto_broker):
    broker = mosquitto_broker

    async def main():
        got = Inbox()
        venue = login(broker, "venue", clean_session=False, on_message=got)
        t01 = login(broker, "T01", clean_session=False)
        await started(venue, t01)
        venue.subscribe(wire.hub_filter(EV, "result"))
        # the broker's SUBACK first: a message published before it handled the SUBSCRIBE is not ours
        await wait_for(lambda: venue.subscribed, what="the venue's SUBACK")
        await t01.published(t01.publish(hub("result"), b"0"), 10)
        await wait_for(lambda: got.got, what="subscription live")
        sent = [b"0"]
        restarted = False
        try:
            for i in range(1, 301):
                sent.append(b"%d" % i)
                t01.publish(hub("result"), sent[-1])
                if i % 10 == 0:
                    await asyncio.sleep(0.01)     # a stream, not one burst
                if i == 120:
                    broker.stop()                 # SIGTERM: mosquitto saves its sessions and queues
                if i == 200:
                    assert not t01.connected      # these 80 were queued by paho while the broker was down
                    broker.start()
                    restarted = True
            assert restarted
            await wait_for(lambda: {p for _, p in got.got} == set(sent), 60, "all 301 results at the venue")
            # QoS 1 is at-least-once: a message whose PUBACK the shutdown cut off comes again (the
            # venue's store deduplicates by result id); nothing is missing.
            assert t01.unacknowledged == 0
        finally:
            await stopped(venue, t01)
    run(main())


# ---- the files and `paizhuo broker check` ------------------------------------------------------

def test_mosquitto_passwd_and_our_hashes_agree(tmp_path):
    pw = tmp_path / "pw"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(pw), "alice", "s3cret 密码"], check=True, capture_output=True)
    user, hashed = pw.read_text().strip().split(":", 1)
    assert user == "alice" and mq.verify_password("s3cret 密码", hashed)
    assert not mq.verify_password("s3cret", hashed)
    ours = mq.hash_password("s3cret 密码")
    assert ours.split("$")[1:3] == hashed.split("$")[1:3] and len(ours) == len(hashed)


@pytest.mark.parametrize("hashed", ["", "$6$abc$def", "$7$x$AAAA$AAAA", "$7$101$!!$AAAA", "$7$101$AAAA"])
def test_verify_rejects_malformed_hashes(hashed):
    assert mq.verify_password("x", hashed) is False


def _tamper_mode(d):
    os.chmod(os.path.join(d, "T01.pass"), 0o644)


def _tamper_pass(d):
    with open(os.path.join(d, "T02.pass"), "w") as f:
        f.write("guessed")


def _edit(name, old, new):
    def tamper(d):
        path = os.path.join(d, name)
        text = open(path).read()
        assert old in text
        open(path, "w").write(text.replace(old, new, 1))
    return tamper


def _remove(name):
    return lambda d: os.remove(os.path.join(d, name))


TAMPER = [
    ("pass file readable by others", _tamper_mode, "chmod 600"),
    ("pass file does not match", _tamper_pass, "T02.pass does not match"),
    ("anonymous allowed", _edit("mosquitto.conf", "allow_anonymous false", "allow_anonymous true"), "allow_anonymous"),
    ("nagle back on", _edit("mosquitto.conf", "set_tcp_nodelay true", "set_tcp_nodelay false"), "set_tcp_nodelay"),
    ("hub writes every hub", _edit("acl", "topic write paizhuo/v1/demo/hub/T01/#", "topic write paizhuo/v1/demo/hub/#"),
     "user T01"),
    ("monitor may write", _edit("acl", "topic read paizhuo/v1/demo/venue/tables", "topic readwrite paizhuo/v1/demo/venue/tables"),
     "user monitor"),
    ("monitor reads round keys", _edit("acl", "topic read paizhuo/v1/demo/venue/tables",
                                       "topic read paizhuo/v1/demo/venue/tables\ntopic read paizhuo/v1/demo/venue/#"),
     "user monitor"),
    ("rule for everyone", _edit("acl", "# paizhuo", "topic readwrite #\n# paizhuo"), "before any `user`"),
    ("pattern rule", _edit("acl", "user venue", "pattern write paizhuo/#\nuser venue"), "pattern"),
    ("user without password", _edit("acl", "user T01", "user T09\ntopic write paizhuo/v1/demo/hub/T09/#\n"
                                    "topic read paizhuo/v1/demo/venue/+/T09\ntopic read paizhuo/v1/demo/venue/standings\n"
                                    "topic read paizhuo/v1/demo/venue/records/#\n\nuser T01"), "no password"),
    ("missing pass file", _remove("venue.pass"), "venue.pass is missing"),
    ("missing acl", _remove("acl"), "acl: cannot read"),
    ("password file elsewhere", _edit("mosquitto.conf", "password_file /", "password_file /tmp/../"), None),
    ("plaintext passwd", _edit("passwd", "$7$", "plain"), "passwd line"),
]


@pytest.mark.parametrize("name,tamper,needle", TAMPER, ids=[t[0] for t in TAMPER])
def test_check_finds_tampering(tmp_path, name, tamper, needle):
    d = str(tmp_path / "b")
    mq.write_config(d, EV, HUBS)
    assert mq.check_config(d)["hubs"] == HUBS
    tamper(d)
    if needle is None:    # an equivalent absolute path still names this folder's file: fine
        assert mq.check_config(d)["event"] == EV
        return
    with pytest.raises(mq.MosquittoError) as e:
        mq.check_config(d)
    assert needle in e.value.en


def test_cli_config_and_check(tmp_path, capsys):
    d = str(tmp_path / "b")
    assert cli.main(["broker", "config", "--event", EV, "--hubs", "T01,T02,T03", "--out", d, "--port", "1884"]) == 0
    out = capsys.readouterr().out
    assert "mosquitto -c" in out
    for user in ("T01", "T02", "T03", "venue", "monitor"):
        assert os.stat(os.path.join(d, "%s.pass" % user)).st_mode & 0o777 == 0o600
    assert "listener 1884\n" in open(os.path.join(d, "mosquitto.conf")).read()
    reachable_by_mosquitto(d)
    assert cli.main(["broker", "check", "--dir", d]) == 0
    assert "ok: event demo, port 1884, 3 hubs" in capsys.readouterr().out
    # a second config into the same folder would lock out deployed hubs: refused, nothing changed
    before = open(os.path.join(d, "T01.pass")).read()
    assert cli.main(["broker", "config", "--event", EV, "--hubs", "T01", "--out", d]) == 2
    assert "--force" in capsys.readouterr().err
    assert open(os.path.join(d, "T01.pass")).read() == before
    assert cli.main(["broker", "config", "--event", EV, "--hubs", "T01", "--out", d, "--force"]) == 0
    assert open(os.path.join(d, "T01.pass")).read() != before


@pytest.mark.parametrize("hubs,code", [("T01,T01", "duplicate_hub"), ("T 1", "bad_id"), ("venue", "reserved_hub"),
                                       ("", "no_hubs"), ("T01,monitor", "reserved_hub")])
def test_cli_refuses_bad_hub_lists(tmp_path, capsys, hubs, code):
    d = str(tmp_path / "b")
    with pytest.raises(mq.MosquittoError) as e:
        mq.write_config(d, EV, [h for h in hubs.split(",") if h])
    assert e.value.code == code
    assert cli.main(["broker", "config", "--event", EV, "--hubs", hubs, "--out", d]) == 2
    assert not os.path.exists(os.path.join(d, "passwd"))


def test_cli_check_of_an_empty_folder(tmp_path, capsys):
    assert cli.main(["broker", "check", "--dir", str(tmp_path)]) == 2
    assert "paizhuo broker config" in capsys.readouterr().err


def test_read_password_file_refusals(tmp_path):
    p = tmp_path / "x.pass"
    with pytest.raises(mq.MosquittoError) as e:
        mq.read_password_file(str(p))
    assert e.value.code == "no_password_file"
    p.write_text("secret\n")
    os.chmod(p, 0o640)
    with pytest.raises(mq.MosquittoError) as e:
        mq.read_password_file(str(p))
    assert e.value.code == "password_file_mode"
    os.chmod(p, 0o600)
    assert mq.read_password_file(str(p)) == "secret"
    p.write_text("\n")
    with pytest.raises(mq.MosquittoError) as e:
        mq.read_password_file(str(p))
    assert e.value.code == "empty_password_file"


TEMPLATE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "hub", "venue", "brokers", "mosquitto.conf")


def test_the_commented_template_matches_the_generated_config_and_runs(tmp_path):
    d = str(tmp_path / "b")
    port = free_port()
    mq.write_config(d, EV, HUBS, port=port, bind="127.0.0.1")
    template = open(TEMPLATE).read()
    generated = open(os.path.join(d, "mosquitto.conf")).read()

    def options(text):
        return sorted({line.split()[0] for line in text.splitlines() if line.strip() and not line.startswith("#")})
    assert options(template) == options(generated)
    # The template with this folder's paths and a test port is a working broker.
    conf = tmp_path / "template.conf"
    conf.write_text(template.replace("/etc/mosquitto/paizhuo/", d + "/")
                    .replace("/var/lib/mosquitto/", str(tmp_path) + "/")
                    .replace("listener 1883\n", "listener %d 127.0.0.1\n" % port))
    broker = Mosquitto(tmp_path, conf=conf, port=port)
    broker.start()
    broker.files = d

    async def main():
        ok = login(broker, "T01")
        anon = MqttClient("anon", broker.host, broker.port)
        await started(ok)
        await anon.start()
        try:
            with pytest.raises(MqttError):
                await anon.wait_connected(10)
        finally:
            await stopped(ok, anon)
    try:
        run(main())
    finally:
        broker.stop()
