"""A referee's correction of a result, over HTTP: a deal as a whole, refused when it no longer adds
up unless the referee says why, shown (marked, with its reason) in every view of the result — the
hand records page and JSON, the standings JSON and CSV, the console's results of any round — and a
warning, with a re-seat, when the next round was seated from the standings before it.  Nothing of
a board reaches a public view before every table of its group has finished it.

Everything is real (mosquitto, the Venue, SQLite, the web app); the hubs are the simulated ones of
``tests/venue_web_sim.py``.
"""

import asyncio
import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as hs

from brokers import mosquitto, wait_for  # noqa: F401  (pytest fixture)
from paizhuo.venue import adjust, web
from venue_web_sim import venue_world


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


def poster(w, csrf):
    async def post(action, body):
        r = await w.client.post("/referee/api/" + action, json=body, headers={"X-CSRF": csrf})
        return r.status, await r.json()
    return post


async def get_json(w, path):
    r = await w.client.get(path)
    assert r.status == 200, await r.text()
    return await r.json()


async def one_board_played(w, who, table):
    """Log in as ``who``, let every table play its board; the poster and ``table``'s deal."""
    post = poster(w, await w.login(who))
    await w.finish_board()
    res = await get_json(w, "/referee/results.json?round=1&table=%s" % table)
    return post, res["deals"][0]


def test_a_deal_is_corrected_as_a_whole_and_shown_corrected_everywhere(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port, rounds=2, boards=1) as w:
            csrf = await w.login("裁判 周")
            post = poster(w, csrf)
            await w.finish_board()
            await wait_for(lambda: w.venue.finished_rounds() == [1], what="round 1 closed")
            await wait_for(lambda: all(s.spec["round"] == 2 for s in w.sims.values()), what="round 2 seated")

            # the console picks results by round and table (round 1 is over: it can still be opened)
            res = await get_json(w, "/referee/results.json?round=1&table=1")
            deal = res["deals"][0]
            assert (res["round"], res["table"], deal["board"], deal["sum"], deal["played_sum"]) == (1, "1", 1, 0, 0)
            scores = {r["seat"]: r["score"] for r in deal["rows"]}
            assert all(r["name"] for r in deal["rows"])            # the players' names, not only ids

            # one seat alone: the deal would not add up, refused, nothing changed
            before = (await w.client.get("/records/1")).status, w.store.adjustments(event=w.venue.event_id)
            status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1,
                                                      "scores": {"E": scores["E"] + 144}, "reason": "记分错误"})
            assert status == 409 and body["code"] == "not_balanced" and "+144" in body["en"] and "+144" in body["zh"]
            assert w.store.adjustments(event=w.venue.event_id) == before[1] == []
            assert w.venue.audit()[-1]["action"] == "adjust_deal_refused"

            # the deal as a whole: two seats swap 144 points; it still adds up
            new = {"E": scores["E"] + 144, "N": scores["N"] - 144}
            status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1, "scores": new,
                                                      "reason": "记分表经四方签字更正"})
            assert status == 200 and body["reply"]["sum"] == 0 and len(body["reply"]["adjustments"]) == 2
            warn = body["reply"]["warning"]
            assert warn["code"] == "next_round_seated" and warn["round"] == 2 and warn["can_reseat"] is True
            assert "第 2 轮" in warn["zh"] and "re-seat" in warn["en"]
            actions = [a["action"] for a in w.venue.audit() if a["who"] == "裁判 周"]
            assert "adjust_deal_requested" in actions and actions.count("adjust") == 2

            # the hand records: the corrected score, marked, with the reason
            rec = await get_json(w, "/records/1.json")
            rows = {r["seat"]: r for d in rec["deals"] for t in d["tables"] if t["table"] == "1" for r in t["rows"]}
            assert rows["E"]["score"] == new["E"] and rows["E"]["received_score"] == scores["E"]
            assert rows["E"]["adjusted"][0]["why"] == "记分表经四方签字更正"
            assert rows["W"]["adjusted"] == [] and rows["W"]["score"] == scores["W"]
            page = await (await w.client.get("/records/1")).text()
            assert "裁判已更正" in page and "记分表经四方签字更正" in page and ">%d<" % new["E"] in page

            # the standings (JSON, CSV, the referees'), each marked
            e_player = rows["E"]["player"]
            await wait_for(lambda: any(p["boards"]["r1b1"]["score"] == new["E"] for p in w.venue.public_standings()["players"]
                                       if p["player"] == e_player), what="the standings follow")
            st = await get_json(w, "/standings.json")
            line = [p for p in st["players"] if p["player"] == e_player][0]
            assert line["boards"]["r1b1"]["adjusted"][0]["new"] == new["E"]
            assert line["adjusted"][0]["why"] == "记分表经四方签字更正" and line["adjusted"][0]["old"] == scores["E"]
            text = await (await w.client.get("/standings.csv")).text()
            cells = {r["player"]: r for r in csv.DictReader(io.StringIO(text))}
            assert "记分表经四方签字更正" in cells[e_player]["adjusted"] and cells[rows["W"]["player"]]["adjusted"] == ""
            ref = await get_json(w, "/referee/standings.json")
            assert [p for p in ref["players"] if p["player"] == e_player][0]["adjusted"]
            res = await get_json(w, "/referee/results.json?round=1&table=1")
            e_row = [r for r in res["deals"][0]["rows"] if r["seat"] == "E"][0]
            assert res["deals"][0]["adjusted"] and (e_row["score"], e_row["received"]) == (new["E"], scores["E"])

            # re-seat round 2 from the corrected standings: new specs reach the hubs
            old_ids = {t: s.spec["id"] for t, s in w.sims.items()}
            status, body = await post("reseat_round", {"round": 2, "reason": "第 1 轮成绩更正后重新编排"})
            assert status == 200 and body["reply"]["round"] == 2
            await wait_for(lambda: all(s.spec["id"] != old_ids[t] for t, s in w.sims.items()), what="the new round 2 specs")
            assert "reseat_round_requested" in [a["action"] for a in w.venue.audit()]

            # once round 2 has started, a correction of round 1 says its seating stays
            await w.venue.start_round(2, "test")
            status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1,
                                                      "scores": {"E": new["E"] - 1, "N": new["N"] + 1}, "reason": "再次核对"})
            assert status == 200 and body["reply"]["warning"]["can_reseat"] is False
            status, body = await post("reseat_round", {"round": 2, "reason": "x"})
            assert status == 409 and body["code"] == "round_started"
    run(main())


def test_a_changed_total_needs_its_own_reason_and_the_reason_is_shown(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port, rounds=1, boards=1) as w:
            post, deal = await one_board_played(w, "裁判 吴", "2")
            rows = {r["seat"]: r for r in deal["rows"]}
            # the single-seat action keeps the same rule
            status, body = await post("adjust", {"result_id": rows["S"]["result_id"], "field": "score",
                                                 "value": rows["S"]["score"] - 20, "reason": "罚分"})
            assert status == 409 and body["code"] == "not_balanced"
            status, body = await post("adjust_deal", {"round": 1, "table": "2", "board": 1,
                                                      "scores": {"S": rows["S"]["score"] - 20}, "reason": "罚分",
                                                      "unbalanced": "南家掉牌，罚 20 分，其他座位不变"})
            assert status == 200 and body["reply"]["sum"] == -20 and body["reply"]["warning"] is None
            audit = [a for a in w.venue.audit() if a["action"] == "adjust"][-1]
            assert audit["detail"]["unbalanced"] == "南家掉牌，罚 20 分，其他座位不变"
            res = await get_json(w, "/referee/results.json?round=1&table=2")
            assert (res["deals"][0]["sum"], res["deals"][0]["played_sum"]) == (-20, 0)
            # refused requests change nothing: unknown deal, a seat the game has not, no reason
            for body, code in (({"round": 1, "table": "2", "board": 9, "scores": {"E": 1}, "reason": "x"}, "unknown_deal"),
                               ({"round": 1, "table": "9", "board": 1, "scores": {"E": 1}, "reason": "x"}, "unknown_deal"),
                               ({"round": 1, "table": "2", "board": 1, "scores": {"X": 1}, "reason": "x"}, "bad_field"),
                               ({"round": 1, "table": "2", "board": 1, "scores": {"E": 1}}, "no_reason"),
                               ({"round": 1, "table": "2", "board": 1, "scores": {"E": 1.5}, "reason": "x"}, "bad_field")):
                n = len(w.store.adjustments(event=w.venue.event_id))
                status, got = await post("adjust_deal", body)
                assert got["code"] == code and got["en"] and got["zh"] and status in (400, 404), (body, got)
                assert len(w.store.adjustments(event=w.venue.event_id)) == n
            r = await w.client.get("/referee/results.json?round=7&table=1")
            assert r.status == 404 and (await r.json())["code"] == "unknown_round"
            # hostile queries: a clear refusal in both languages, never a traceback
            for q in ("round=x&table=1", "round=0&table=1", "round=-1&table=1", "round=1.5&table=1", "round=%D9%A1&table=1",
                      "round=99999&table=1", "round=1&table=", "round=1", "round=1&table=" + "9" * 300,
                      "round=1&table=%3Cscript%3E", "round=1&table=%E7%AC%AC8%E6%A1%8C", "round=1%00&table=1"):
                r = await w.client.get("/referee/results.json?" + q)
                got = await r.json()
                assert r.status in (400, 404) and got["code"] and got["en"] and got["zh"], (q, r.status, got)
                assert "Traceback" not in got["en"]
            for q in ("round=x", "round=0", "round=%00"):
                r = await w.client.get("/boards.json?" + q)
                assert r.status == 400 and (await r.json())["zh"], q
    run(main())


def test_nothing_of_a_board_is_public_before_every_table_has_finished_it(mosquitto, tmp_path):
    async def main():
        async with venue_world(tmp_path, mosquitto.port, rounds=1, boards=2) as w:
            # behind the PIN: no session, no results, no boards in play, no correction
            for path in ("/referee/results.json?round=1&table=1", "/referee/boards.json"):
                r = await w.client.get(path)
                assert r.status == 401 and (await r.json())["code"] == "login_needed"
            csrf = await w.login("裁判 郑")
            r = await w.client.post("/referee/api/adjust_deal", json={"round": 1, "table": "1", "board": 1,
                                                                      "scores": {"E": 1}, "reason": "x"})
            assert r.status == 403 and (await r.json())["code"] == "csrf"
            post = poster(w, csrf)
            await w.finish_board(["1"])                  # table 2 still plays board 1
            res = await get_json(w, "/referee/results.json?round=1&table=1")
            rows = {r["seat"]: r["score"] for r in res["deals"][0]["rows"]}
            status, _ = await post("adjust_deal", {"round": 1, "table": "1", "board": 1, "reason": "核对",
                                                   "scores": {"E": rows["E"] + 2, "N": rows["N"] - 2}})
            assert status == 200
            await wait_for(lambda: w.venue.standings()["results"] >= 4, what="the referees' standings")
            ref = await get_json(w, "/referee/boards.json")
            assert [(b["round"], b["board"], [t["table"] for t in b["tables"]]) for b in ref["boards"]] == [(1, 1, ["1"])]
            pub = await get_json(w, "/boards.json")
            st = await get_json(w, "/standings.json")
            text = await (await w.client.get("/standings.csv")).text()
            assert pub["boards"] == [] and st["players"] == [] and "核对" not in text
            await w.finish_board(["2"])
            await wait_for(lambda: w.venue.public_standings()["players"], what="board 1 public")
            pub = await get_json(w, "/boards.json")
            assert [t["table"] for t in pub["boards"][0]["tables"]] == ["1", "2"]
            assert any(r["adjusted"] for r in pub["boards"][0]["tables"][0]["rows"])
    run(main())


def test_the_plan_of_a_correction_keeps_the_untouched_seats():
    rows = [{"seat": s, "score": v, "result_id": s} for s, v in zip("ENWS", (30, -10, -10, -10))]
    changes, before, after = adjust.plan(rows, {"E": 30, "N": 0, "W": -20})
    assert changes == [("N", -10, 0), ("W", -10, -20)] and (before, after) == (0, 0)


@settings(max_examples=200, deadline=None)
@given(hs.dictionaries(hs.one_of(hs.sampled_from("ENWSX"), hs.text(max_size=3)),
                       hs.one_of(hs.integers(), hs.floats(), hs.text(max_size=3), hs.none(), hs.booleans()), max_size=6))
def test_adjust_deal_scores_are_checked_or_refused_in_both_languages(scores):
    body = {"round": 1, "table": "1", "board": 1, "scores": scores, "reason": "x"}
    try:
        args = web.check_action("adjust_deal", body)
    except web.WebError as e:
        assert e.status == 400 and e.code == "bad_field" and e.en and e.zh
        return
    assert args["scores"] and all(s in "ENWS" and type(v) is int for s, v in args["scores"].items())


def test_a_deal_is_recomputed_from_its_corrected_record(mosquitto, tmp_path):
    from paizhuo.bots.bigtwo import BigTwoBot
    from paizhuo.rules.bigtwo import SEATS, Action, BigTwo
    from paizhuo.venue import deals

    async def main():
        async with venue_world(tmp_path, mosquitto.port, rounds=1, boards=1) as w:
            post, deal = await one_board_played(w, "裁判 冯", "1")
            played = {r["seat"]: r["score"] for r in deal["rows"]}
            assert deal["actions"]                       # the record as the table sent it
            # the same record again: the same scores, nothing to change
            status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1, "actions": deal["actions"],
                                                      "reason": "重放核对"})
            assert status == 409 and body["code"] == "no_change"
            # a record that stops early, or is not legal, is refused in both languages
            for actions in (deal["actions"][:5], [{"type": "play", "seat": "E", "cards": ["XX"]}]):
                status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1, "actions": actions,
                                                          "reason": "x"})
                assert status == 400 and body["code"] == "bad_record" and body["zh"] and body["en"], body
            status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1, "actions": deal["actions"],
                                                      "scores": {"E": 1}, "reason": "x"})
            assert status == 400 and body["code"] == "bad_field"
            # the deal as it should have been played (a referee rebuilt it): the venue replays it
            spec = w.sims["1"].spec
            key = bytes.fromhex(w.sims["1"].keys[1])
            rec = deals.deal_from_round_key(key, spec["game"], spec["group"], 1, round=1)
            g = BigTwo(rec.to_engine_deal())
            bots = {s: BigTwoBot(4242) for s in SEATS}
            for s in SEATS:
                g.apply(Action.show(s, False))
            while g.to_act():
                s = g.to_act()[0]
                g.apply(bots[s].choose(g.view(s), g.legal_actions(s)))
            want = g.result().scores
            actions = [a.to_dict() for a in g.actions]
            status, body = await post("adjust_deal", {"round": 1, "table": "1", "board": 1, "actions": actions,
                                                      "reason": "按四方确认的出牌重算"})
            assert dict(want) != played                  # (seeded: another play of the same cards)
            assert status == 200 and body["reply"]["scores"] == dict(want) and body["reply"]["sum"] == sum(want.values())
            res = await get_json(w, "/referee/results.json?round=1&table=1")
            assert {r["seat"]: r["score"] for r in res["deals"][0]["rows"]} == dict(want)
            audit = [a for a in w.venue.audit() if a["action"] == "adjust"][-1]
            assert audit["detail"]["from_record"] == len(actions)
    run(main())
