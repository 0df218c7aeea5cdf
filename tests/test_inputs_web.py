"""The referee login and console API against hostile input, and the per-browser PIN lock.

The venue is the real :class:`~paizhuo.venue.service.Venue` on a real SQLite store and the real
aiohttp application on a loopback port; its MQTT link is a recorder (nothing here reaches a hub:
every request below is refused before, or is a login).  Only time is the test's (the lock).
"""

import asyncio
import json
import tempfile
from pathlib import Path

import aiohttp
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paizhuo.venue import web
from paizhuo.venue.event import EXAMPLE, load_text
from paizhuo.venue.service import Venue
from paizhuo.venue.store import Store, hash_secret

PIN = "246810"
PIN_HASH = hash_secret(PIN, rounds=1000)


class Recorder:
    """The venue's MQTT link: what it would publish (a refused request publishes nothing)."""

    def __init__(self):
        self.sent = []

    def publish(self, topic, payload, qos=1, retain=False):
        self.sent.append(topic)

    def subscribe(self, topic, qos=1):
        pass


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class World:
    """One venue and its store in a temporary folder, shared by a test's examples."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        cfg = load_text(EXAMPLE, "event.toml", base=self.dir.name)
        self.store = Store(str(Path(self.dir.name) / "venue.sqlite"))
        self.link = Recorder()
        self.venue = Venue(cfg, self.store, self.link)
        self.venue.restore()

    def state(self):
        return {"audit": self.venue.audit(), "alerts": self.venue.alerts(), "sent": list(self.link.sent),
                "results": self.venue.results()}

    def run(self, fn, clock=None):
        """Serve a fresh app (fresh sessions and lock) and run ``await fn(client, app)``."""
        async def main():
            app = web.make_app(self.venue, PIN_HASH, clock=clock or Clock())
            async with TestClient(TestServer(app, host="127.0.0.1")) as client:
                return await fn(client, app)
        return asyncio.run(asyncio.wait_for(main(), 60))


WORLD = None


def world():
    global WORLD
    if WORLD is None:
        WORLD = World()
    return WORLD


def assert_refusal(status, body):
    assert status in (400, 413), body     # 413: more than the 64 KB a body may have
    assert body["ok"] is False and body["code"] and body["en"] and body["zh"] and body["zh"] != body["en"], body


# ---- hostile JSON ----------------------------------------------------------------------------------

HOSTILE_CHARS = st.sampled_from(["\x00", "\ud800", "\udfff", "\udc80"])


def _bad_text():
    return st.builds(lambda a, c, b: a + c + b, st.text(max_size=5), HOSTILE_CHARS, st.text(max_size=5))


def _deep():
    return st.builds(lambda n, kind: ("[" * n + "]" * n) if kind else ('{"a":' * n + "1" + "}" * n),
                     st.integers(33, 40000), st.booleans())


_HUGE = st.one_of(st.integers(2 ** 53, 10 ** 30), st.integers(-10 ** 30, -2 ** 53),
                  st.sampled_from([10 ** 400, -10 ** 400]))


def _with(body, field, value):
    out = dict(body)
    out[field] = value
    return out


# Good bodies for every action: one field made hostile makes the body hostile.
GOOD = {"pause": {"table": "1", "reason": "phone"}, "resume": {"table": "1"}, "ack_alert": {"alert": 1},
        "replace": {"table": "1", "seat": "E", "dev": "S-0099", "reason": "broken"},
        "adjust": {"result_id": "T01/1/r1/g1/b1/E", "field": "score", "value": 3, "reason": "typo"},
        "release": {"result_id": "T01/1/r1/g1/b1/E", "reason": "checked"}, "start_round": {"round": 1},
        "close_board": {"round": 1, "group": 1, "board": 1, "reason": "table 2 cannot finish"},
        "note": {"table": "1", "zh": "请稍候"},
        "adjust_deal": {"round": 1, "table": "1", "board": 1, "scores": {"E": 3, "N": -3}, "reason": "typo"},
        "reseat_round": {"round": 2, "reason": "corrected standings"}, "ack_all": {},
        "forfeit": {"round": 1, "table": "1", "side": "S1", "reason": "no show"}}
assert set(GOOD) == set(web.ACTIONS)


def hostile_body(action):
    fields = sorted(GOOD[action]) or ["x"]      # an action without fields: any field is hostile
    return st.one_of(
        _deep(),
        st.builds(lambda f, v: json.dumps(_with(GOOD[action], f, v)), st.sampled_from(fields), _bad_text()),
        st.builds(lambda f, v: json.dumps(_with(GOOD[action], f, v)), st.sampled_from(fields), _HUGE),
        st.builds(lambda f, n: json.dumps(GOOD[action])[:-1] + ', "%s": %s}' % (f, n), st.sampled_from(["x", "value"]),
                  st.sampled_from(["1e400", "-1e999", "NaN", "Infinity"])),
        st.builds(lambda v: json.dumps(_with(GOOD[action], "k\ud800", v)), st.integers()),
        st.builds(lambda f, n: json.dumps(_with(GOOD[action], f, None)).replace("null", "[" * n + "]" * n),
                  st.sampled_from(fields), st.integers(33, 3000)),
    )


HOSTILE_ACTION = st.sampled_from(sorted(web.ACTIONS)).flatmap(lambda a: st.tuples(st.just(a), hostile_body(a)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=HOSTILE_ACTION)
def test_every_action_refuses_hostile_json_with_400_and_changes_nothing(case):
    action, raw = case
    w = world()
    before = w.state()

    async def go(client, app):
        r = await client.post("/referee/login", json={"who": "裁判 Li", "pin": PIN})
        csrf = (await r.json())["csrf"]
        n = len(w.venue.audit())
        r = await client.post("/referee/api/" + action, data=raw.encode("utf-8", "surrogatepass"),
                              headers={"X-CSRF": csrf, "Content-Type": "application/json"})
        assert r.content_type == "application/json"
        assert_refusal(r.status, await r.json())
        assert w.venue.audit()[n:] == []       # refused by the web: not even an audit line
    w.run(go)
    after = w.state()
    # the login is the only line written
    assert after["audit"][:len(before["audit"])] == before["audit"]
    assert [a["action"] for a in after["audit"][len(before["audit"]):]] == ["login"]
    assert {k: v for k, v in after.items() if k != "audit"} == {k: v for k, v in before.items() if k != "audit"}


LOGIN_HOSTILE = st.one_of(
    _deep(),
    st.builds(lambda who: json.dumps({"who": who, "pin": PIN}), _bad_text()),
    st.builds(lambda pin: json.dumps({"who": "Li", "pin": pin}), _bad_text()),
    st.builds(lambda n: json.dumps({"who": "Li", "pin": PIN, "x": n}), _HUGE),
    st.builds(lambda n: '{"who": "Li", "pin": "%s", "x": %s}' % (PIN, n), st.sampled_from(["1e400", "NaN", "-Infinity"])),
    st.builds(lambda n: '{"who": "Li", "pin": "1", "x": %s}' % ("[" * n + "]" * n), st.integers(33, 30000)),
    st.binary(min_size=1, max_size=20).filter(lambda b: not _utf8(b)),
)


def _utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=LOGIN_HOSTILE)
def test_login_refuses_hostile_json_with_400_and_counts_nothing(raw):
    w = world()
    before = w.state()

    async def go(client, app):
        data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
        r = await client.post("/referee/login", data=data, headers={"Content-Type": "application/json"})
        assert r.content_type == "application/json"
        assert_refusal(r.status, await r.json())
        assert web.SESSION_COOKIE not in r.cookies
        # not a wrong PIN: five more hostile bodies do not lock the right PIN out
        for _ in range(5):
            await client.post("/referee/login", data=data, headers={"Content-Type": "application/json"})
        r = await client.post("/referee/login", json={"who": "Li", "pin": PIN})
        assert r.status == 200
    w.run(go)
    after = w.state()
    assert [a["action"] for a in after["audit"][len(before["audit"]):]] == ["login"]


def test_a_lone_surrogate_in_a_reason_is_refused_not_a_500():
    # "\ud800" in JSON is valid syntax but no character: the audit log's encoder gave a 500
    w = world()

    async def go(client, app):
        r = await client.post("/referee/login", json={"who": "Li", "pin": PIN})
        csrf = (await r.json())["csrf"]
        r = await client.post("/referee/api/pause", data='{"table": "1", "reason": "\\ud800"}',
                              headers={"X-CSRF": csrf, "Content-Type": "application/json"})
        body = await r.json()
        assert_refusal(r.status, body)
        assert "surrogate" in body["en"] and "代理" in body["zh"]
    w.run(go)


def test_deep_json_on_the_login_is_a_400_not_a_500():
    w = world()

    async def go(client, app):
        r = await client.post("/referee/login", data="[" * 30000 + "]" * 30000,
                              headers={"Content-Type": "application/json"})
        body = await r.json()
        assert_refusal(r.status, body)
        assert "nested" in body["en"] and "嵌套" in body["zh"]
    w.run(go)


def test_a_huge_score_correction_is_refused():
    w = world()
    before = w.state()

    async def go(client, app):
        r = await client.post("/referee/login", json={"who": "Li", "pin": PIN})
        csrf = (await r.json())["csrf"]
        r = await client.post("/referee/api/adjust", data='{"result_id": "T01/1/r1/g1/b1/E", "field": "score", '
                              '"value": 1%s, "reason": "typo"}' % ("0" * 400),
                              headers={"X-CSRF": csrf, "Content-Type": "application/json"})
        assert_refusal(r.status, await r.json())
    w.run(go)
    assert w.state()["audit"][len(before["audit"]) + 1:] == []


# ---- the PIN lock is per browser ---------------------------------------------------------------------

async def _browser(client):
    """A second browser: its own cookie jar; it opens the login page first (which gives it its id)."""
    s = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    r = await s.get(client.make_url("/referee/login"))
    assert r.status == 200 and any(c.key == web.BROWSER_COOKIE for c in s.cookie_jar)
    return s


def test_a_guesser_locks_out_only_itself_not_the_referees():
    w = world()
    clock = Clock()

    async def go(client, app):
        for i in range(5):
            clock.now += 1
            r = await client.post("/referee/login", json={"who": "guess", "pin": "00000%d" % i})
            assert r.status == 403
        r = await client.post("/referee/login", json={"who": "guess", "pin": PIN})
        assert r.status == 429 and (await r.json())["code"] == "locked"
        referee = await _browser(client)
        try:
            r = await referee.post(client.make_url("/referee/login"), json={"who": "真裁判", "pin": PIN})
            assert r.status == 200, await r.text()
            assert (await referee.get(client.make_url("/referee/glance.json"))).status == 200
        finally:
            await referee.close()
    w.run(go, clock)


def test_a_browser_that_failed_a_little_is_not_locked_by_another():
    w = world()
    clock = Clock()

    async def go(client, app):
        referee = await _browser(client)
        try:
            # the referee mistypes once ...
            r = await referee.post(client.make_url("/referee/login"), json={"who": "Li", "pin": "111111"})
            assert r.status == 403
            # ... then a guesser (another browser) tries many PINs and locks itself
            for i in range(12):
                await client.post("/referee/login", json={"who": "guess", "pin": "9%05d" % i})
            r = await referee.post(client.make_url("/referee/login"), json={"who": "Li", "pin": PIN})
            assert r.status == 200
        finally:
            await referee.close()
    w.run(go, clock)


def test_locks_grow_for_a_client_that_keeps_guessing():
    w = world()
    clock = Clock()

    async def go(client, app):
        async def five():
            for i in range(5):
                r = await client.post("/referee/login", json={"who": "guess", "pin": "12345%d" % i})
            return r
        await five()
        assert (await client.post("/referee/login", json={"who": "g", "pin": PIN})).status == 429
        clock.now += 61
        r = await five()
        assert w.venue.audit()[-1]["detail"]["lock_seconds"] == 120
        clock.now += 119
        r = await client.post("/referee/login", json={"who": "g", "pin": PIN})
        assert r.status == 429 and "120" not in (await r.json())["en"]
        clock.now += 2
        assert (await client.post("/referee/login", json={"who": "g", "pin": PIN})).status == 200
    w.run(go, clock)


def test_a_burst_of_wrong_pins_from_many_browsers_alerts_the_referees_and_never_locks_a_right_pin():
    w = world()
    clock = Clock()
    alerts = len(w.venue.alerts())

    async def go(client, app):
        app[web.K_STATE].slow_seconds = 0.01
        for i in range(web.BURST_FAILS + 5):     # a guesser that changes its cookie every time
            r = await client.post("/referee/login", json={"who": "guess", "pin": "5%05d" % i},
                                  headers={"Cookie": "%s=%s" % (web.BROWSER_COOKIE, "b%022d" % i)})
            assert r.status == 403
        new = w.venue.alerts()[alerts:]
        assert [a["kind"] for a in new] == ["login_burst"]         # one alert per burst, not one per PIN
        assert new[0]["fields"]["wrong_pins"] == web.BURST_FAILS
        referee = await _browser(client)
        try:
            r = await referee.post(client.make_url("/referee/login"), json={"who": "Li", "pin": PIN})
            assert r.status == 200
        finally:
            await referee.close()
    w.run(go, clock)


def test_a_right_pin_is_not_kept_waiting_behind_a_burst_of_slowed_wrong_pins():
    """During a burst every wrong answer comes late — but outside the one-at-a-time check, so a
    referee's right PIN is answered at once, and one address cannot queue up checks without end."""
    w = world()
    clock = Clock()

    async def go(client, app):
        app[web.K_STATE].slow_seconds = 0.01
        for i in range(web.BURST_FAILS):          # a burst: from now on wrong answers are slowed
            await client.post("/referee/login", json={"who": "guess", "pin": "5%05d" % i},
                              headers={"Cookie": "%s=%s" % (web.BROWSER_COOKIE, "b%022d" % i)})
        app[web.K_STATE].slow_seconds = 3.0

        async def guess(i):
            r = await client.post("/referee/login", json={"who": "guess", "pin": "6%05d" % i},
                                  headers={"Cookie": "%s=%s" % (web.BROWSER_COOKIE, "c%022d" % i)})
            return r.status
        guesses = [asyncio.ensure_future(guess(i)) for i in range(12)]
        await asyncio.sleep(0.5)                  # the guesses are in: checked, now waiting out their delay
        referee = await _browser(client)
        try:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            r = await referee.post(client.make_url("/referee/login"), json={"who": "Li", "pin": PIN})
            assert r.status == 200 and loop.time() - t0 < 1.5, (r.status, loop.time() - t0)
        finally:
            await referee.close()
        statuses = await asyncio.gather(*guesses)
        assert set(statuses) <= {403, 429} and 403 in statuses
    w.run(go, clock)


def test_the_login_page_gives_each_browser_its_own_id_once():
    w = world()

    async def go(client, app):
        r = await client.get("/referee/login")
        c = r.cookies[web.BROWSER_COOKIE]
        assert r.status == 200 and len(c.value) >= 16 and c["httponly"] and c["samesite"] == "Strict"
        r = await client.get("/referee/login")
        assert web.BROWSER_COOKIE not in r.cookies        # kept, not replaced
    w.run(go)
