"""`paizhuo venue` without [broker]: the embedded broker's logins (written at the first start,
kept after), what it lets in, and its topic matching against amqtt's own.  The rule tests shared
with mosquitto are in tests/test_mosquitto_acl.py (run against both brokers)."""

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brokers import free_port, login, refused, wait_for
from paizhuo.mqtt import wire
from paizhuo.mqtt.broker import filters_overlap, topic_matches
from paizhuo.mqtt.client import MqttClient
from paizhuo.venue.event import EXAMPLE, EventError, load_text

PAIZHUO = [sys.executable, "-m", "paizhuo.cli"]


class Inbox(list):
    def __call__(self, topic, payload):
        self.append((topic, payload))


def runnable_example():
    """The example event.toml with a secret and a PIN hash of its own (the venue refuses the published ones)."""
    from paizhuo.venue.event import example_text
    from paizhuo.venue.store import hash_secret
    return example_text(secret="hex:" + "5a" * 32, pin_hash=hash_secret("246810")).replace("port = 8080", "port = 0")


class Venue:
    """`paizhuo venue --event event.toml` on a fixed broker port, until stopped."""

    host = "127.0.0.1"

    def __init__(self, folder, text=None):
        text = text or runnable_example()
        self.folder = folder
        (folder / "event.toml").write_text(text)
        self.port = free_port()
        self.files = folder / "demo-broker"
        self.out = folder / "venue.txt"
        self.proc = None

    def start(self):
        with open(self.out, "wb") as log:
            self.proc = subprocess.Popen(PAIZHUO + ["venue", "--event", str(self.folder / "event.toml"), "--broker-port",
                                                    str(self.port)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while "round 1 seated" not in self.text():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.text()
            time.sleep(0.05)
        return self

    def text(self):
        return self.out.read_text(errors="replace")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the venue did not stop on SIGTERM:\n%s" % self.text())


def test_the_venue_writes_the_hub_logins_at_its_first_start_and_lets_only_them_in(tmp_path):
    venue = Venue(tmp_path).start()
    try:
        assert "wrote the broker logins to %s" % venue.files in venue.text()
        for user in ("T01", "T02", "venue", "monitor"):
            assert os.stat(venue.files / ("%s.pass" % user)).st_mode & 0o777 == 0o600

        async def main():
            await refused(venue)
            inbox = Inbox()
            t01 = login(venue, "T01", on_message=inbox)
            await t01.start()
            await t01.wait_connected(10)
            try:
                for f in ["#"] + wire.hub_subscriptions("demo", "T01"):
                    t01.subscribe(f)
                own = wire.venue_topic("demo", "round", "T01")
                await wait_for(lambda: own in [t for t, _ in inbox], what="T01's round spec from the venue")
                await asyncio.sleep(0.5)
                assert wire.venue_topic("demo", "round", "T02") not in [t for t, _ in inbox]
                assert wire.check_round(dict(inbox)[own])["table"] == "1"
            finally:
                await t01.stop()
        asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        assert venue.stop() == 0
    # the folder is a `paizhuo broker config` folder: mosquitto could run the event from it as is
    from paizhuo.mqtt import mosquitto as mq
    assert mq.check_config(str(venue.files))["hubs"] == ["T01", "T02"]
    before = (venue.files / "T01.pass").read_text()
    venue = Venue(tmp_path).start()     # a restart keeps the logins the hubs were given
    try:
        assert "wrote the broker logins" not in venue.text()
        assert (venue.files / "T01.pass").read_text() == before

        async def t01_logs_in():
            t01 = login(venue, "T01")
            await t01.start()
            try:
                await t01.wait_connected(10)
            finally:
                await t01.stop()
        asyncio.run(asyncio.wait_for(t01_logs_in(), 60))
    finally:
        assert venue.stop() == 0


def test_a_hub_without_a_login_in_the_folder_is_a_clear_error(tmp_path):
    from paizhuo.mqtt import mosquitto as mq
    (tmp_path / "event.toml").write_text(runnable_example())
    check = subprocess.run(PAIZHUO + ["venue", "check", "--event", str(tmp_path / "event.toml")],
                           capture_output=True, text=True, timeout=60)
    assert "hub logins in %s (new: written when the venue starts)" % (tmp_path / "demo-broker") in check.stdout
    mq.write_config(str(tmp_path / "demo-broker"), "demo", ["T01"])
    out = subprocess.run(PAIZHUO + ["venue", "--event", str(tmp_path / "event.toml"), "--broker-port", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "has no login for T02" in out.stderr and "没有 T02 的登录信息" in out.stderr
    assert "Traceback" not in out.stderr


def test_embedded_broker_settings_in_event_toml():
    assert load_text(EXAMPLE, "event.toml", base="/srv").embedded_credentials == "/srv/demo-broker"
    text = EXAMPLE.replace("[web]\n", '[embedded_broker]\ncredentials = "logins"\n\n[web]\n')
    assert load_text(text, "event.toml", base="/srv").embedded_credentials == "/srv/logins"
    both = text.replace("[web]\n", '[broker]\nhost = "127.0.0.1"\n\n[web]\n')
    with pytest.raises(EventError) as e:
        load_text(both, "event.toml", base="/srv")
    assert "embedded_broker.credentials" in str(e.value) and "仅在没有 [broker] 时有效" in e.value.zh
    with pytest.raises(EventError) as e:
        load_text(text.replace('credentials = "logins"', 'credentials = "logins"\nport = 1'), "event.toml", base="/srv")
    assert e.value.code == "unknown_key"


@pytest.mark.parametrize("intruder", ["no password, clean session", "no password, same session",
                                      "T01's password, the venue's session"])
def test_a_client_without_a_login_cannot_disturb_another_clients_session(tmp_path, intruder):
    """A client id is its login's username: a newcomer with the venue's client id neither drops nor
    takes the venue's session, and the venue gets what was queued for it."""
    from brokers import EmbeddedThread, credentials

    async def main(broker):
        got = Inbox()
        venue = login(broker, "venue", client_id="venue-demo", clean_session=False, on_message=got)
        t02 = login(broker, "T02")
        for c in (venue, t02):
            await c.start()
            await c.wait_connected(10)
        venue.subscribe(wire.hub_filter("demo"))
        await wait_for(lambda: venue.subscribed, what="the venue's SUBACK")
        result = wire.hub_topic("demo", "T02", "result")
        await t02.published(t02.publish(result, b"before"), 10)
        await wait_for(lambda: got, what="the venue's subscription")
        if intruder.startswith("T01"):
            await venue.stop()      # offline: what T02 sends now is queued for the venue's session
            await t02.published(t02.publish(result, b"queued"), 10)
            # Let in, but as client T01 (its own session): nothing queued for the venue reaches it.
            stolen = Inbox()
            password = open(os.path.join(broker.files, "T01.pass")).read()
            thief = MqttClient("venue-demo", broker.host, broker.port, username="T01", password=password,
                               clean_session=False, on_message=stolen)
            await thief.start()
            await thief.wait_connected(10)
            await asyncio.sleep(0.3)
            await thief.stop()
        else:
            stolen = None
            await refused(broker, "venue-demo", username="nobody", password="guess",
                          clean_session=intruder.endswith("clean session"))
        if stolen is not None:
            assert stolen == []
            got = Inbox()
            venue = login(broker, "venue", client_id="venue-demo", clean_session=False, on_message=got)
            await venue.start()
        await t02.published(t02.publish(result, b"after"), 10)
        want = [b"queued", b"after"] if stolen is not None else [b"before", b"after"]
        await wait_for(lambda: [p for _, p in got] == want, what="%s at the venue" % want)
        await venue.stop()
        await t02.stop()

    with EmbeddedThread(credentials(tmp_path / "broker")) as broker:
        asyncio.run(asyncio.wait_for(main(broker), 60))


@pytest.fixture(scope="module")
def shared_broker(tmp_path_factory):
    from brokers import EmbeddedThread, credentials
    with EmbeddedThread(credentials(tmp_path_factory.mktemp("broker"))) as broker:
        yield broker


NAME = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=30, deadline=None)
@given(user=st.one_of(st.none(), NAME, st.sampled_from(["T01", "venue", "monitor"])), password=st.one_of(st.none(), NAME))
def test_any_login_but_a_real_one_is_refused_and_changes_nothing(shared_broker, user, password):
    """Whatever username and password arrive from outside, only the folder's pairs log in."""
    async def main():
        await refused(shared_broker, "probe", username=user, password=password)
        ok = login(shared_broker, "T01", client_id="probe")    # the broker still serves, the id is still free
        await ok.start()
        try:
            await ok.wait_connected(10)
        finally:
            await ok.stop()
    asyncio.run(asyncio.wait_for(main(), 30))


def test_read_passwd_refuses_what_is_not_a_passwd_file(tmp_path):
    from paizhuo.mqtt import mosquitto as mq
    for text in ("", "T01\n", "T01:plain\n", "T01:$7$101$AAAA$AAAA\nT01:$7$101$AAAA$AAAA\n"):
        (tmp_path / "passwd").write_text(text)
        with pytest.raises(mq.MosquittoError) as e:
            mq.read_passwd(str(tmp_path))
        assert e.value.code == "bad_broker_dir" and e.value.zh
    with pytest.raises(mq.MosquittoError):
        mq.read_passwd(str(tmp_path / "nowhere"))


# ---- topic matching: ours against amqtt's own (the broker's routing) ---------------------------

LEVEL = st.sampled_from(["a", "b", "T01", ""])
TOPIC = st.lists(LEVEL, min_size=1, max_size=4).map("/".join)
FILTER = st.tuples(st.lists(st.sampled_from(["a", "b", "T01", "", "+"]), min_size=0, max_size=4),
                   st.booleans()).map(lambda x: "/".join(x[0] + (["#"] if x[1] or not x[0] else [])))


@settings(max_examples=400, deadline=None)
@given(FILTER, TOPIC)
def test_topic_matches_agrees_with_amqtt_routing(topic_filter, topic):
    from amqtt.broker import Broker
    assert topic_matches(topic_filter, topic) == Broker._matches(Broker.__new__(Broker), topic, topic_filter)


@settings(max_examples=400, deadline=None)
@given(FILTER, FILTER, TOPIC)
def test_filters_that_match_one_topic_overlap(a, b, topic):
    if topic_matches(a, topic) and topic_matches(b, topic):
        assert filters_overlap(a, b) and filters_overlap(b, a)
    if topic_matches(a, topic):
        assert filters_overlap(a, topic)


def test_a_client_id_not_the_logins_is_taken_under_the_username_and_logged(tmp_path, caplog):
    """As mosquitto's use_username_as_clientid: T01 asking for client id T02 is let in as T01,
    and the broker's log says so."""
    from brokers import EmbeddedThread, credentials

    async def main(broker):
        password = open(os.path.join(broker.files, "T01.pass")).read()
        c = MqttClient("T02", broker.host, broker.port, username="T01", password=password)
        await c.start()
        try:
            await c.wait_connected(10)
        finally:
            await c.stop()

    with caplog.at_level("WARNING", logger="paizhuo.mqtt.broker"):
        with EmbeddedThread(credentials(tmp_path / "broker")) as broker:
            asyncio.run(asyncio.wait_for(main(broker), 30))
    assert "MQTT client 'T02' logged in as 'T01': taken as client 'T01'" in caplog.text
