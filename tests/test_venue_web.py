"""The venue's web layer over HTTP: every route, the PIN login and its lock, the session cookie,
CSRF, refusals of bad requests (nothing changed), and the live streams (SSE).

Everything is real: mosquitto, the Venue service and its SQLite store, the aiohttp application
on a loopback port, and simulated table hubs (MQTT clients that keep to the venue contract:
``tests/venue_web_sim.py``).  Only time is the test's: sessions and the login lock run on a
clock the test moves.
"""

import asyncio
import csv
import io
import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brokers import mosquitto, wait_for  # noqa: F401  (pytest fixture)
from paizhuo import rules
from paizhuo.venue import deals, web
from paizhuo.venue.store import hash_secret
from paizhuo.venue.web import STATIC
from venue_web_sim import PIN, venue_world


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


class SSE:
    """Reads server-sent events from an aiohttp response: ``await sse.next()`` → (event, data)."""

    def __init__(self, resp):
        self.resp = resp

    async def next(self, timeout=10):
        event, data = None, []
        while True:
            line = await asyncio.wait_for(self.resp.content.readline(), timeout)
            if not line:
                raise EOFError("the stream ended")
            line = line.decode("utf-8").rstrip("\n")
            if line == "":
                if event is not None or data:
                    return event, json.loads("\n".join(data))
                continue
            if line.startswith(":") or line.startswith("retry:"):
                continue
            name, _, value = line.partition(": ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)

    async def until(self, pred, timeout=10, what="an event"):
        seen = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError("no %s within %s s; saw %s" % (what, timeout, [e for e, _ in seen]))
            ev, data = await self.next(left)
            seen.append((ev, data))
            if pred(ev, data):
                return data


def state_of(w):
    """What a refused request must leave as it was."""
    return {"controls": {t: len(s.controls) for t, s in w.sims.items()}, "results": w.venue.results(),
            "alerts": w.venue.alerts(), "glance": [dict(r, last_seen=None) for r in w.venue.glance()],
            "standings": w.venue.standings().get("players")}


# ---- public pages ----------------------------------------------------------------------------------

def test_public_pages_static_files_and_headers(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            r = await w.client.get("/")
            text = await r.text()
            assert r.status == 200 and r.content_type == "text/html"
            assert "/static/standings.js" in text and "成绩排名" in text and "Standings" in text
            assert "http://" not in text and "https://" not in text   # nothing fetched from outside
            h = r.headers
            assert "script-src 'self'" in h["Content-Security-Policy"]
            assert h["X-Content-Type-Options"] == "nosniff" and h["X-Frame-Options"] == "DENY"
            for path, kind in [("/static/common.css", "text/css"), ("/static/common.js", "javascript"),
                               ("/static/standings.js", "javascript"), ("/static/console.js", "javascript"),
                               ("/static/login.js", "javascript"), ("/static/console.html", "text/html")]:
                r = await w.client.get(path)
                body = await r.text()
                assert r.status == 200 and kind in r.content_type, path
                assert "http://" not in body and "https://" not in body, path
            for name in sorted(os.listdir(STATIC)):
                if name.endswith(".html"):
                    page = (STATIC / name).read_text(encoding="utf-8")
                    # the Content-Security-Policy forbids inline code and styles: none may be written
                    assert not re.search(r"<script(?![^>]*\bsrc=)|\sstyle=|\son[a-z]+=|<style", page), name
            assert (await w.client.get("/static/../web.py")).status in (403, 404)
            assert (await w.client.get("/static/nothing.js")).status == 404
            r = await w.client.get("/standings.json")
            assert r.status == 200 and await r.json() == json.loads(json.dumps(w.venue.standings()))
            r = await w.client.get("/standings.csv")
            assert r.status == 200 and r.content_type == "text/csv"
            assert (await r.text()).splitlines()[0].startswith("rank,player,name,R,mp,playoff,decided_by")
    run(main())


def test_standings_csv_and_json_follow_the_results(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            await w.finish_board()
            await wait_for(lambda: len(w.venue.standings()["players"]) == 8, what="standings of 8 players")
            st_ = w.venue.standings()
            r = await w.client.get("/standings.csv")
            rows = list(csv.DictReader(io.StringIO(await r.text())))
            assert [row["player"] for row in rows] == [p["player"] for p in st_["players"]]
            assert [row["rank"] for row in rows] == [str(p["rank"]) for p in st_["players"]]
            names = {row["player"]: row["name"] for row in rows}
            assert names["P007"] == "'=1+2"          # a formula-looking name stays text in a spreadsheet
            assert names["P001"] == "张三"
            label = next(iter(st_["players"][0]["boards"]))
            assert label + "_mp" in rows[0] and rows[0]["R"] == str(st_["players"][0]["R"])
            r = await w.client.get("/standings.json")
            assert [p["player"] for p in (await r.json())["players"]] == [p["player"] for p in st_["players"]]
    run(main())


def test_records_pages_only_for_a_finished_round(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            for path in ("/records/1", "/records/1.json"):
                r = await w.client.get(path)
                assert r.status == 404, path
            body = await (await w.client.get("/records/1.json")).json()
            assert body["code"] == "not_finished" and body["zh"] and body["en"] and body["ok"] is False
            page = await (await w.client.get("/records/1")).text()
            assert "所有桌打完本轮后公布" in page and "No hand records" in page
            for bad in ("/records/0", "/records/x", "/records/-1.json", "/records/1e3"):
                r = await w.client.get(bad)
                assert r.status == 404, bad
            await w.finish_board()
            await w.finish_board()
            await wait_for(lambda: w.venue.finished_rounds() == [1], what="round 1 finished")
            r = await w.client.get("/records/1")
            text = await r.text()
            assert r.status == 200 and r.content_type == "text/html"
            assert "<script" not in text and "script-src" not in r.headers["Content-Security-Policy"]
            assert "第 1 轮牌谱" in text
            r = await w.client.get("/records/1.json")
            assert r.status == 200 and await r.json() == json.loads(json.dumps(w.venue.records(1)))
    run(main())


# ---- login -------------------------------------------------------------------------------------------

def _cookie_attrs(resp):
    raw = resp.headers.getall("Set-Cookie")
    assert len(raw) == 1, raw
    parts = [p.strip() for p in raw[0].split(";")]
    name, _, value = parts[0].partition("=")
    attrs = {}
    for p in parts[1:]:
        k, _, v = p.partition("=")
        attrs[k.lower()] = v
    return name, value, attrs


@pytest.mark.parametrize("secure", [False, True])
def test_login_sets_a_safe_session_cookie(mosquitto, tmp_path, secure):
    async def main():
        async with venue_world(tmp_path, mosquitto.port, secure_cookies=secure) as w:
            r = await w.client.post("/referee/login", json={"who": " 裁判 王 ", "pin": PIN})
            body = await r.json()
            assert r.status == 200 and body["ok"] and body["who"] == "裁判 王" and len(body["csrf"]) >= 40
            name, token, attrs = _cookie_attrs(r)
            assert name == web.SESSION_COOKIE and len(token) >= 40 and token != body["csrf"]
            assert "httponly" in attrs and attrs["samesite"] == "Strict" and attrs["path"] == "/referee"
            assert attrs["max-age"] == str(12 * 3600)
            assert ("secure" in attrs) is secure
            audit = w.venue.audit()[-1]
            assert audit["action"] == "login" and audit["who"] == "裁判 王"
            # a second login is a new session with a new token
            r2 = await w.client.post("/referee/login", json={"who": "裁判 王", "pin": PIN})
            assert _cookie_attrs(r2)[1] != token
    run(main())


def test_form_login_redirects_and_wrong_pin_shows_the_page(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            r = await w.client.post("/referee/login", data={"who": "Li", "pin": "000000"}, allow_redirects=False)
            text = await r.text()
            assert r.status == 403 and "PIN 码错误" in text and "wrong PIN" in text and "<form" in text
            assert "Set-Cookie" not in r.headers
            r = await w.client.post("/referee/login", data={"who": "Li", "pin": PIN}, allow_redirects=False)
            assert r.status == 303 and r.headers["Location"] == "/referee"
            r = await w.client.get("/referee", allow_redirects=False)
            assert r.status == 200 and "/static/console.js" in await r.text()
            r = await w.client.get("/referee/login", allow_redirects=False)
            assert r.status == 303 and r.headers["Location"] == "/referee"
    run(main())


def test_wrong_pin_is_refused_audited_and_never_written_down(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            r = await w.client.post("/referee/login", json={"who": "Mallory", "pin": "135791"})
            body = await r.json()
            assert r.status == 403 and body["code"] == "wrong_pin" and "PIN" in body["zh"] and body["ok"] is False
            assert "Set-Cookie" not in r.headers
            last = w.venue.audit()[-1]
            assert last["action"] == "login_failed" and last["who"] == "Mallory" and last["detail"]["locked"] is False
            assert "135791" not in json.dumps(w.venue.audit(), ensure_ascii=False)
            assert (await w.client.get("/referee/glance.json")).status == 401
    run(main())


def test_five_wrong_pins_lock_the_login_for_a_minute(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login("早到的裁判")              # a session opened before the lock keeps working
            answers = []
            for i in range(5):
                w.clock.now += 5
                r = await w.client.post("/referee/login", json={"who": "guess", "pin": "00000%d" % i})
                answers.append(r.status)
            assert answers == [403] * 5
            assert w.venue.audit()[-1]["detail"]["locked"] is True
            r = await w.client.post("/referee/login", json={"who": "真裁判", "pin": PIN})
            body = await r.json()
            assert r.status == 429 and body["code"] == "locked" and "锁定" in body["zh"]
            assert w.venue.audit()[-1]["action"] == "login_locked"
            assert (await w.client.get("/referee/glance.json")).status == 200
            assert csrf
            w.clock.now += 59
            assert (await w.client.post("/referee/login", json={"who": "真裁判", "pin": PIN})).status == 429
            w.clock.now += 2
            assert (await w.client.post("/referee/login", json={"who": "真裁判", "pin": PIN})).status == 200
    run(main())


def test_wrong_pins_spread_over_more_than_a_minute_do_not_lock(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            for i in range(8):
                w.clock.now += 15                         # 4 within any 60 s
                r = await w.client.post("/referee/login", json={"who": "slow", "pin": "99999%d" % i})
                assert r.status == 403
            assert (await w.client.post("/referee/login", json={"who": "Li", "pin": PIN})).status == 200
    run(main())


LOGIN_BAD = [
    ({"pin": PIN}, 400, "bad_name"),
    ({"who": "   ", "pin": PIN}, 400, "bad_name"),
    ({"who": "x" * 41, "pin": PIN}, 400, "bad_name"),
    ({"who": "Li\x07", "pin": PIN}, 400, "bad_name"),
    ({"who": 7, "pin": PIN}, 400, "bad_name"),
    ({"who": "Li"}, 400, "bad_pin"),
    ({"who": "Li", "pin": ""}, 400, "bad_pin"),
    ({"who": "Li", "pin": 246810}, 400, "bad_pin"),
    ({"who": "Li", "pin": "1" * 65}, 400, "bad_pin"),
    ("not json", 400, "bad_json"),
    ([1, 2], 400, "not_object"),
]


def test_malformed_logins_are_refused_and_not_counted(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            before = w.venue.audit()
            for body, status, code in LOGIN_BAD:
                data = body if isinstance(body, str) else json.dumps(body)
                r = await w.client.post("/referee/login", data=data, headers={"Content-Type": "application/json"})
                answer = await r.json()
                assert (r.status, answer["code"]) == (status, code), body
                assert answer["en"] and answer["zh"] and "Set-Cookie" not in r.headers
            assert w.venue.audit() == before
            # eleven malformed requests are not eleven wrong PINs: the login is not locked
            assert (await w.client.post("/referee/login", json={"who": "Li", "pin": PIN})).status == 200
            r = await w.client.post("/referee/login", json={"who": "Li", "pin": PIN},
                                    headers={"Origin": "http://evil.example"})
            assert r.status == 403 and (await r.json())["code"] == "bad_origin"
    run(main())


# ---- sessions and CSRF ---------------------------------------------------------------------------------

def test_referee_pages_need_a_session_that_expires(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            for path in ("/referee", "/referee/", "/referee/table/1"):
                r = await w.client.get(path, allow_redirects=False)
                assert r.status == 303 and r.headers["Location"] == "/referee/login", path
            for path in ("/referee/glance.json", "/referee/alerts.json", "/referee/audit.json", "/referee/session.json",
                         "/referee/table/1.json", "/referee/live"):
                r = await w.client.get(path)
                body = await r.json()
                assert r.status == 401 and body["code"] == "login_needed", path
            r = await w.client.post("/referee/api/pause", json={"table": "1", "reason": "x"}, headers={"X-CSRF": "x"})
            assert r.status == 401
            r = await w.client.get("/referee/login")
            assert r.status == 200 and 'name="pin"' in await r.text()
            w.client.session.cookie_jar.update_cookies({web.SESSION_COOKIE: "forged-token"})
            assert (await w.client.get("/referee/glance.json")).status == 401
            csrf = await w.login("李")
            s = await (await w.client.get("/referee/session.json")).json()
            assert s["who"] == "李" and s["csrf"] == csrf and s["event"] == "网页测试赛 Web test cup"
            assert set(s["actions"]) == set(web.ACTIONS)
            assert set(s["games"]) == set(rules.DEALING)  # the console's game titles come from the registry
            assert s["games"][rules.DEFAULT_GAME] == "%s %s" % rules.title(rules.DEFAULT_GAME)[::-1]
            assert s["seats"] == list(rules.game(rules.DEFAULT_GAME).seats)  # the forms' seat choices
            for path in ("/referee", "/referee/table/1"):
                r = await w.client.get(path, allow_redirects=False)
                assert r.status == 200 and "/static/console.js" in await r.text()
                assert r.headers["Cache-Control"] == "no-store"
            w.clock.now += 12 * 3600 - 1
            assert (await w.client.get("/referee/glance.json")).status == 200
            w.clock.now += 1
            assert (await w.client.get("/referee/glance.json")).status == 401
            assert (await w.client.get("/referee", allow_redirects=False)).status == 303
    run(main())


def test_actions_need_the_csrf_header_and_a_same_site_origin(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            w.sims["1"].begin_deal()
            csrf = await w.login()
            await wait_for(lambda: w.venue.glance()[0]["board"] == 1, what="the deal on the console")
            before, audit = state_of(w), w.venue.audit()
            for headers in ({}, {"X-CSRF": ""}, {"X-CSRF": csrf[:-1]}, {"X-CSRF": "x" + csrf},
                            {"X-CSRF": csrf, "Origin": "http://evil.example"}, {"X-CSRF": csrf, "Origin": "null"}):
                r = await w.client.post("/referee/api/pause", json={"table": "1", "reason": "test"}, headers=headers)
                body = await r.json()
                assert r.status == 403 and body["code"] == "csrf" and body["zh"], headers
            assert state_of(w) == before and w.venue.audit() == audit
            r = await w.client.post("/referee/api/pause", json={"table": "1", "reason": "test"},
                                    headers={"X-CSRF": csrf, "Origin": w.url("/").rstrip("/")})
            assert r.status == 200 and (await r.json())["ok"] is True
    run(main())


def test_logout_needs_csrf_and_ends_the_session(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login("Li")
            assert (await w.client.post("/referee/logout")).status == 403
            r = await w.client.post("/referee/logout", headers={"X-CSRF": csrf})
            assert r.status == 200
            assert w.venue.audit()[-1]["action"] == "logout" and w.venue.audit()[-1]["who"] == "Li"
            assert (await w.client.get("/referee/glance.json")).status == 401
    run(main())


# ---- refused actions: clear message, nothing changed --------------------------------------------------

WEB_REFUSALS = [
    # action, raw body, status, code
    ("pause", "{not json", 400, "bad_json"),
    ("pause", "[1]", 400, "not_object"),
    ("pause", "", 400, "bad_json"),
    ("explode", '{"table": "1"}', 404, "unknown_action"),
    ("pause", '{"table": "1"}', 400, "no_reason"),
    ("pause", '{"table": "1", "reason": "   "}', 400, "no_reason"),
    ("pause", '{"table": "1", "reason": 5}', 400, "no_reason"),
    ("pause", '{"reason": "x"}', 400, "missing_field"),
    ("pause", '{"table": "1", "reason": "x", "force": true}', 400, "unknown_field"),
    ("pause", '{"table": "", "reason": "x"}', 400, "bad_field"),
    ("pause", '{"table": "1", "reason": "%s"}' % ("x" * 501), 400, "bad_field"),
    ("resume", '{"table": 1}', 400, "bad_field"),
    ("replace", '{"table": "1", "seat": "X", "dev": "S-0099", "reason": "broken"}', 400, "bad_field"),
    ("replace", '{"table": "1", "seat": "E", "dev": "S 0099", "reason": "broken"}', 400, "bad_field"),
    ("replace", '{"table": "1", "seat": "E", "dev": "S-0099"}', 400, "no_reason"),
    ("adjust", '{"result_id": "T01/1/r1/g1/b1/E", "field": "score", "value": 3}', 400, "no_reason"),
    ("adjust", '{"result_id": "T01/1/r1/g1/b1/E", "field": "score", "value": 3.5, "reason": "x"}', 400, "bad_field"),
    ("adjust", '{"result_id": "T01/1/r1/g1/b1/E", "field": "score", "value": null, "reason": "x"}', 400, "bad_field"),
    ("adjust", '{"result_id": "T01/1/r1/g1/b1/E", "field": "score", "value": true, "reason": "x"}', 400, "bad_field"),
    ("release", '{"result_id": "T01/1/r1/g1/b1/E", "reason": ""}', 400, "no_reason"),
    ("ack_alert", '{"alert": 0}', 400, "bad_field"),
    ("ack_alert", '{"alert": [1]}', 400, "bad_field"),
    ("start_round", '{"round": "2"}', 400, "bad_field"),
    ("start_round", '{"round": true}', 400, "bad_field"),
    ("start_round", '{"round": 0}', 400, "bad_field"),
    ("note", '{"table": "1"}', 400, "missing_field"),
    ("note", '{"table": "1", "zh": "%s"}' % ("请" * 81), 400, "bad_field"),
    ("note", '{"table": "1", "zh": "请稍候", "seat": "X"}', 400, "bad_field"),
    ("note", '{"table": "1", "zh": "请稍候", "en": 5}', 400, "bad_field"),
]

VENUE_REFUSALS = [
    # refused by the venue (it writes "<action>_requested" and "<action>_refused" in the audit log)
    ("pause", {"table": "99", "reason": "x"}, 404, "unknown_table"),
    ("replace", {"table": "99", "seat": "E", "dev": "S-0099", "reason": "x"}, 404, "unknown_table"),
    ("ack_alert", {"alert": 999}, 404, "unknown_alert"),
    ("adjust", {"result_id": "T01/1/r9/g1/b1/E", "field": "score", "value": 3, "reason": "x"}, 404, "not_found"),
    ("adjust", {"result_id": "T01/1/r1/g1/b1/E", "field": "colour", "value": 3, "reason": "x"}, 400, "bad_row"),
    ("release", {"result_id": "nope", "reason": "x"}, 404, "not_found"),
    ("start_round", {"round": 9}, 404, "unknown_round"),
    ("start_round", {"round": 2}, 409, "not_ready"),
]


def test_bad_requests_are_refused_with_a_message_and_change_nothing(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            w.sims["1"].begin_deal()
            csrf = await w.login()
            await wait_for(lambda: w.venue.glance()[0]["board"] == 1, what="the deal on the console")
            before, audit = state_of(w), w.venue.audit()
            for action, raw, status, code in WEB_REFUSALS:
                r = await w.client.post("/referee/api/" + action, data=raw,
                                        headers={"X-CSRF": csrf, "Content-Type": "application/json"})
                body = await r.json()
                assert (r.status, body["code"]) == (status, code), (action, raw, body)
                assert body["ok"] is False and body["en"] and body["zh"]
            assert state_of(w) == before and w.venue.audit() == audit   # the web refused: not even an audit line
            for action, args, status, code in VENUE_REFUSALS:
                n = len(w.venue.audit())
                r = await w.client.post("/referee/api/" + action, json=args, headers={"X-CSRF": csrf})
                body = await r.json()
                assert (r.status, body["code"]) == (status, code), (action, args, body)
                assert body["en"] and body["zh"] and body["zh"] != body["en"]
                lines = w.venue.audit()[n:]
                assert [a["action"] for a in lines] == [action + "_requested", action + "_refused"], lines
                assert all(a["who"] == "裁判 Li" for a in lines)
            assert state_of(w) == before
            r = await w.client.get("/referee/table/99.json")
            body = await r.json()
            assert r.status == 404 and body["code"] == "unknown_table" and "99" in body["zh"]
    run(main())


def test_no_reason_is_refused_even_when_whitespace_only(mosquitto, tmp_path):
    # the whole family of reason-taking actions, with every blank reason
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login()
            before = state_of(w)
            bodies = {"pause": {"table": "1"}, "replace": {"table": "1", "seat": "E", "dev": "S-0099"},
                      "adjust": {"result_id": "x", "field": "score", "value": 1}, "release": {"result_id": "x"}}
            for action, body in bodies.items():
                for reason in ("", " ", "\t\n", None):
                    args = dict(body) if reason is None else dict(body, reason=reason)
                    r = await w.client.post("/referee/api/" + action, json=args, headers={"X-CSRF": csrf})
                    answer = await r.json()
                    assert r.status == 400 and answer["code"] == "no_reason" and "理由" in answer["zh"], (action, reason)
            assert state_of(w) == before
    run(main())


# ---- actions that work ---------------------------------------------------------------------------------

def test_pause_resume_and_replace_reach_the_hub(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login("裁判 王")
            hub = w.sims["1"]
            post = lambda a, b: w.client.post("/referee/api/" + a, json=b, headers={"X-CSRF": csrf})  # noqa: E731
            sent = len(hub.controls)
            r = await post("pause", {"table": "1", "reason": "no deal yet"})
            body = await r.json()
            # Not the hub's bare refusal: what the table is doing, and when a pause will work.
            assert r.status == 409 and body["code"] == "no_deal" and len(hub.controls) == sent
            assert "等待下一副开始" in body["zh"] and "next deal" in body["en"] and "第 1 桌" in body["zh"]
            hub.begin_deal()
            hub.step(2)
            r = await post("pause", {"table": "1", "reason": "东家手机响了"})
            body = await r.json()
            assert r.status == 200 and body["ok"] and body["reply"]["op"] == "pause"
            op = hub.controls[-1]
            assert (op["op"], op["by"], op["reason"]) == ("pause", "裁判 王", "东家手机响了")
            await wait_for(lambda: w.venue.glance()[0]["paused"] == {"by": "裁判 王", "reason": "东家手机响了"},
                           what="the console shows the pause")
            row = (await (await w.client.get("/referee/glance.json")).json())["tables"][0]
            assert row["paused"]["reason"] == "东家手机响了" and row["clock"]["paused"] is True
            assert (await post("resume", {"table": "1"})).status == 200
            assert hub.controls[-1]["op"] == "resume"
            await wait_for(lambda: w.venue.glance()[0]["paused"] is None, what="resumed")
            r = await post("replace", {"table": "1", "seat": "E", "dev": "S-0099", "reason": "屏幕碎了"})
            assert r.status == 200 and hub.devices["E"] == "S-0099"
            op = hub.controls[-1]
            assert (op["op"], op["seat"], op["dev"], op["by"], op["reason"]) == ("replace", "E", "S-0099", "裁判 王", "屏幕碎了")
            r = await post("replace", {"table": "1", "seat": "N", "dev": "S-7777", "reason": "x"})
            body = await r.json()
            assert r.status == 409 and body["code"] == "unknown_device" and "S-7777" in body["zh"]
            assert hub.devices["N"] != "S-7777"
            r = await post("note", {"table": "1", "zh": "请保持安静"})
            assert r.status == 200
            op = hub.controls[-1]
            assert (op["op"], op["seat"], op["zh"], op["en"]) == ("note", None, "请保持安静", "请保持安静")
            r = await post("note", {"table": "1", "seat": "W", "zh": "请看屏幕", "en": "Look at the screen"})
            assert r.status == 200
            op = hub.controls[-1]
            assert (op["seat"], op["zh"], op["en"]) == ("W", "请看屏幕", "Look at the screen")
            actions = [a["action"] for a in w.venue.audit() if a["who"] == "裁判 王"]
            for a in ("pause_requested", "pause_reply", "resume_reply", "replace_reply", "replace_refused", "note_reply"):
                assert a in actions
    run(main())


def test_acknowledging_a_call_tells_the_hub(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login("裁判 赵")
            w.sims["2"].call("W")
            await wait_for(lambda: any(a["kind"] == "call" for a in w.venue.alerts()), what="the call stored")
            alerts = (await (await w.client.get("/referee/alerts.json")).json())["alerts"]
            call = [a for a in alerts if a["kind"] == "call"][0]
            assert call["table"] == "2" and call["fields"]["seat"] == "W" and call["acked_by"] is None
            glance = (await (await w.client.get("/referee/glance.json")).json())["tables"]
            assert [t["alerts_open"] for t in glance if t["table"] == "2"] == [1]
            r = await w.client.post("/referee/api/ack_alert", json={"alert": call["id"]}, headers={"X-CSRF": csrf})
            body = await r.json()
            assert r.status == 200 and body["reply"]["hub_error"] is None
            op = w.sims["2"].controls[-1]
            assert (op["op"], op["seat"], op["by"]) == ("ack_call", "W", "裁判 赵")
            alerts = (await (await w.client.get("/referee/alerts.json")).json())["alerts"]
            assert [a["acked_by"] for a in alerts if a["id"] == call["id"]] == ["裁判 赵"]
    run(main())


def test_adjust_release_and_start_round_are_recorded_with_who_and_why(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login("裁判 钱")
            post = lambda a, b: w.client.post("/referee/api/" + a, json=b, headers={"X-CSRF": csrf})  # noqa: E731
            await w.finish_board()
            await wait_for(lambda: len(w.venue.standings()["players"]) == 8, what="standings")
            last = w.venue.standings()["players"][-1]["player"]
            rid = [r for r in w.venue.results() if r["player"] == last][0]["result_id"]
            r = await post("adjust", {"result_id": rid, "field": "score", "value": 500, "reason": "记分表经四方签字更正"})
            body = await r.json()   # one seat alone would unbalance the deal: refused, nothing changed
            assert r.status == 409 and body["code"] == "not_balanced" and "合计" in body["zh"]
            assert not w.store.adjustments(event=w.venue.event_id)
            r = await post("adjust", {"result_id": rid, "field": "score", "value": 500, "reason": "记分表经四方签字更正",
                                      "unbalanced": "罚分：其他座位不变"})
            assert r.status == 200 and (await r.json())["reply"]["adjustment"]
            await wait_for(lambda: w.venue.standings()["players"][0]["player"] == last, what="the adjusted player on top")
            audit = (await (await w.client.get("/referee/audit.json")).json())["audit"]
            adj = [a for a in audit if a["action"] == "adjust_requested"][-1]
            assert adj["who"] == "裁判 钱" and adj["detail"]["why"] == "记分表经四方签字更正" and adj["detail"]["value"] == 500
            # a result with a foreign deal hash is held back and alerted; a referee releases it
            w.sims["1"].begin_deal()
            w.sims["1"].finish(deal_hash="ab" * 32)
            await wait_for(lambda: any(a["kind"] == "deal_hash_mismatch" for a in w.venue.alerts()), what="mismatch alert")
            held = [r for r in w.venue.results() if r["status"] == "held"]
            assert len(held) == 4
            r = await post("release", {"result_id": held[0]["result_id"], "reason": "裁判长确认牌局无误"})
            assert r.status == 200
            assert [r["status"] for r in w.venue.results() if r["result_id"] == held[0]["result_id"]] == ["ok"]
            r = await post("start_round", {"round": 1})
            body = await r.json()
            assert r.status == 200 and body["reply"]["already"] is True
            # The hubs got round 1's key with the start, never with the (retained) spec.
            key = deals.round_key(w.cfg.secret, 1).hex()
            assert all(s.keys == {1: key} and "round_key" not in s.spec for s in w.sims.values())
            r = await post("start_round", {"round": 2})
            body = await r.json()
            assert r.status == 409 and body["code"] == "not_ready" and "第 1 轮尚未完成" in body["zh"]
    run(main())


# ---- live streams --------------------------------------------------------------------------------------

def test_public_stream_sends_the_standings_at_once_and_after_each_result(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            resp = await w.client.get("/live/standings")
            assert resp.status == 200 and resp.content_type == "text/event-stream"
            sse = SSE(resp)
            ev, data = await sse.next()
            assert ev == "standings" and data["players"] == [] and data["round"] == 1 and data["complete"] is False
            assert data["event"] == "网页测试赛 Web test cup" and data["steps"]["think_total"]["zh"]
            await w.finish_board()
            data = await sse.until(lambda e, d: e == "standings" and len(d["players"]) == 8, what="8 players")
            want = w.venue.standings()["players"]
            assert [p["player"] for p in data["players"]] == [p["player"] for p in want]
            top = data["players"][0]
            assert set(top) >= {"rank", "player", "name", "no", "R", "mp", "deals", "decided_by", "playoff"}
            assert "boards" not in top             # the public stream is one line per player
            resp.close()
    run(main())


def test_referee_stream_follows_tables_alerts_and_the_audit_log(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            csrf = await w.login("裁判 孙")
            resp = await w.client.get("/referee/live")
            assert resp.status == 200
            sse = SSE(resp)
            first = [await sse.next() for _ in range(3)]
            assert [e for e, _ in first] == ["glance", "alerts", "audit"]
            assert [t["table"] for t in first[0][1]["tables"]] == ["1", "2"] and first[0][1]["now"] > 0
            hub = w.sims["1"]
            hub.begin_deal()
            hub.step(6)
            turn = hub.snapshot()["turn"]
            row = await sse.until(lambda e, d: e == "table" and d["table"]["table"] == "1" and d["table"]["turn"] == turn,
                                  what="table 1 at turn %d" % turn)
            assert row["table"]["to_act"] == hub.snapshot()["to_act"] and row["now"] >= row["table"]["last_seen"]
            w.sims["2"].call("S")
            await sse.until(lambda e, d: e == "alerts" and any(a["kind"] == "call" for a in d["alerts"]), what="the call")
            r = await w.client.post("/referee/api/pause", json={"table": "1", "reason": "直播测试"}, headers={"X-CSRF": csrf})
            assert r.status == 200
            # both arrive, in whichever order the hub's snapshot and its reply came
            seen = set()

            def pause_seen(e, d):
                if e == "audit" and any(a["action"] == "pause_reply" and a["who"] == "裁判 孙" for a in d["audit"]):
                    seen.add("audit")
                if e == "table" and d["table"]["table"] == "1" and d["table"]["paused"] == {"by": "裁判 孙",
                                                                                          "reason": "直播测试"}:
                    seen.add("table")
                return seen == {"audit", "table"}
            await sse.until(pause_seen, what="the pause in the audit log and on table 1")
            # the session ends: the stream says so and closes at the next change
            w.clock.now += 12 * 3600
            hub.step(0)
            hub.publish_live()
            await sse.until(lambda e, d: e == "logout" and d["code"] == "login_needed", what="logout")
            with pytest.raises(EOFError):
                await sse.next()
            # closing the server ends streams that are still open (no hanging shutdown)
            resp2 = await w.client.get("/live/standings")
            await SSE(resp2).next()
            await asyncio.wait_for(w.client.close(), 10)
    run(main())


def _strings(obj, out):
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)
    return out


def test_no_page_or_stream_shows_a_hand_of_the_deal_in_play(mosquitto, tmp_path):
    # Both tables play the same deal (one group), so a card played at table 2 may still be in a
    # hand at table 1: each table's hands are checked against everything common to the event
    # and against that table's own detail (the plays of another table are public at that table).
    async def main():
        async with venue_world(tmp_path, mosquitto.port) as w:
            await w.login()
            ref = SSE(await w.client.get("/referee/live"))
            pub = SSE(await w.client.get("/live/standings"))
            common = set()
            for sse in (ref, pub):
                _strings((await sse.next())[1], common)
            hubs = w.sims
            for h in hubs.values():
                h.begin_deal()
                h.step(12)
            await wait_for(lambda: all(r["turn"] == hubs[r["table"]].snapshot()["turn"] for r in w.venue.glance()),
                           what="the venue has the latest snapshots")
            # everything a page or a stream can carry, mid-deal
            for path in ("/standings.json", "/referee/glance.json", "/referee/alerts.json", "/referee/audit.json",
                         "/records/1.json", "/referee/session.json"):
                _strings(await (await w.client.get(path)).json(), common)
            for page in ("/", "/referee", "/standings.csv", "/records/1"):
                common.update(re.findall(r"[0-9TJQKA][DCHS]", await (await w.client.get(page)).text()))
            for _ in range(6):
                try:
                    _strings((await ref.next(1))[1], common)
                except asyncio.TimeoutError:
                    break
            for table, h in hubs.items():
                detail = _strings(await (await w.client.get("/referee/table/%s.json" % table)).json(), set())
                played = {c for p in h.snapshot()["plays"] for c in p.get("cards", ())}
                assert played and played <= detail       # the public plays are there: the search works
                left = {c for hand in h.hands_left().values() for c in hand}
                assert len(left) > 20
                assert not (left & (common | detail)), "unplayed cards reached a page: %s" % sorted(left & (common | detail))


# ---- pure parts ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["246810", "", None, b"pbkdf2", "pbkdf2-sha256$1000$zz$00",
                                 "sha1$1000$00$" + "0" * 64])
def test_make_app_wants_a_pin_hash_not_a_pin(bad):
    with pytest.raises(ValueError, match="pbkdf2-sha256 hash"):
        web.make_app(None, bad)


def test_make_app_takes_a_real_hash():
    assert web.make_app(None, hash_secret("123456", rounds=1000)) is not None


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10 ** 6) | st.floats(allow_nan=False) | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                    max_leaves=8)
FIELDS = sorted({f for a in web.ACTIONS.values() for f in a.fields})


@settings(max_examples=300, deadline=None)
@given(action=st.sampled_from(sorted(web.ACTIONS) + ["nope"]),
       body=st.one_of(JSON, st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=5)))
def test_check_action_takes_exactly_the_fields_or_says_why(action, body):
    try:
        args = web.check_action(action, body)
    except web.WebError as e:
        assert e.status in (400, 404) and e.code and e.en and e.zh
        return
    act = web.ACTIONS[action]
    assert set(args) == set(act.fields) and set(body) <= set(act.fields)
    assert set(act.fields) - set(act.optional) <= set(body)
    if "reason" in args:
        assert args["reason"].strip() == args["reason"] and args["reason"]
