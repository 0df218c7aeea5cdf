"""Hand records of a finished round: the deals are the venue's own, every table's play replays through
the engine to the scores it sent, the page is self-contained and escapes what it shows, and the MQTT
copy fits in one message."""

import asyncio
import doctest
import json
import re

import pytest

from paizhuo.mqtt import wire
from paizhuo.rules.bigtwo import Action, BigTwo
from paizhuo.venue import deals
from paizhuo.venue import records as records_mod
from paizhuo.venue.records import build, card_text, for_wire, render_html
from paizhuo.venue.service import Venue
from paizhuo.venue.store import Store

from test_venue_service import Link, SimHub, config, finish_round, running, send, wait_for


def test_docstring_examples():
    failed, attempted = doctest.testmod(records_mod)
    assert failed == 0 and attempted >= 5


def finished_event(foreign=None):
    """A venue with round 1 of two tables played (one table's board 2 with a foreign hash if asked)."""
    async def main():
        venue = Venue(config(rounds=2, boards=2), Store(":memory:"), Link(), standings_delay=0)
        stop, task = await running(venue)
        hubs = [SimHub("T01", "1"), SimHub("T02", "2")]
        await finish_round(venue, hubs, 1, skip={("T02", 2)} if foreign else ())
        if foreign:
            send(venue, hubs[1], "result", hubs[1].result(venue.spec_of("T02"), 2, deal_hash=foreign))
            await venue.start_round(2, "referee Li")  # go on with the held result
        await wait_for(lambda: venue.round == 2, 10, "round 1 closed")
        recs = venue.records(1)
        stop.set()
        await task
        return venue, recs
    return asyncio.run(main())


def test_records_hold_the_venues_deals_and_every_tables_play():
    venue, recs = finished_event()
    assert recs["format"] == "paizhuo.records/1" and recs["round"] == 1 and recs["event"] == "cup"
    assert recs["round_key"] == deals.round_key(venue.config.secret, 1).hex()
    assert [(d["group"], d["board"]) for d in recs["deals"]] == [(1, 1), (1, 2)]
    for d in recs["deals"]:
        rec = deals.DealRecord.from_dict(d["deal"])       # a whole, valid deal with the right hash
        assert rec == deals.deal(venue.config.secret, "bigtwo", 1, 1, d["board"]) and d["hash"] == rec.hash
        assert [t["table"] for t in d["tables"]] == ["1", "2"] and d["missing"] == []
        for t in d["tables"]:
            assert t["same_deal"] and t["deal_hash"] == rec.hash
            # the record is complete: replaying its actions on the deal gives the scores the table sent
            game = BigTwo(rec.to_engine_deal())
            for a in t["actions"]:
                game.apply(Action.from_dict(a))
            assert {r["seat"]: r["score"] for r in t["rows"]} == game.result().scores == t["result"]["scores"]
            assert {r["status"] for r in t["rows"]} == {"ok"}
            assert set(t["players"]) == set("ENWS") and t["players"]["E"]["id"] == t["rows"][0]["player"]
    wire.check_records(wire.dumps(for_wire(recs)))


def test_a_foreign_deal_is_marked_and_its_rows_shown_held():
    venue, recs = finished_event(foreign="cd" * 32)
    t = recs["deals"][1]["tables"][1]
    assert t["table"] == "2" and not t["same_deal"] and t["deal_hash"] == "cd" * 32
    assert {(r["status"], r["held_why"]) for r in t["rows"]} == {("held", "deal_hash_mismatch")}
    page = render_html(recs)
    assert "this table played another deal" in page and "cd" * 32 in page and "暂扣 held: deal_hash_mismatch" in page
    assert "<th>状态 status</th>" in page and "计入 counted" in page  # table 1's rows of that board count


def test_a_table_without_a_record_is_listed_missing():
    secret = b"a secret for the missing-table test"
    specs = [{"hub": "T%d" % i, "table": str(i), "spec": {"group": 1, "players": {}}} for i in (1, 2, 10)]
    recs = build("cup", "Cup", "bigtwo", secret, 3, [1, 2], specs, [])
    assert [d["missing"] for d in recs["deals"]] == [["1", "2", "10"]] * 2
    assert recs["deals"][0]["hash"] == deals.deal(secret, "bigtwo", 3, 1, 1).hash


def test_the_page_is_self_contained_and_escapes_names():
    secret = b"a secret for the escaping test here"
    evil = '<img src=x onerror="alert(1)">'
    spec = {"group": 1, "players": {s: {"id": "P" + s, "name": evil if s == "E" else "ok", "no": 1, "bot": s == "S"}
                                   for s in "ENWS"}}
    rec = deals.deal(secret, "bigtwo", 1, 1, 1)
    rows = [{"seat": s, "player": "P" + s, "score": 1, "think_ms": 1500, "auto_moves": 0, "result_id": "r" + s} for s in "ENWS"]
    play = {"group": 1, "board": 1, "table": "1", "hub": "T1",
            "record": {"deal_hash": rec.hash, "rows": rows,
                       "record": {"actions": [{"type": "show", "seat": "E", "yes": False},
                                              {"type": "play", "seat": "E", "cards": ["3D", "TS"]},
                                              {"type": "pass", "seat": "N", "auto": True},
                                              {"type": "weird</li><script>", "seat": "W"}, "not a dict"],
                                  "result": {}}}}
    page = render_html(build("cup", "杯赛 <b>", "bigtwo", secret, 1, [1], [{"hub": "T1", "table": "1", "spec": spec}], [play]))
    assert "<script" not in page and "<img" not in page and "onerror=\"" not in page
    assert "&lt;img src=x" in page and "杯赛 &lt;b&gt;" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)  # nothing from outside
    assert "出 play <span class=\"c r\">♦3</span> <span class=\"c\">♠10</span>" in page
    assert "不出 pass <span class=\"auto\">托管 auto</span>" in page and "不明牌 no show" in page
    assert "1.5 s" in page and "电脑 bot" in page
    for seat in "ENWS":
        assert " ".join(card_text(c) for c in rec.hands[seat]) in re.sub(r"<[^>]+>", "", page)


def test_card_text():
    assert [card_text(c) for c in ("3D", "TS", "2S", "BJ", "RJ", "x1", "d10", "??", 7)] == [
        "♦3", "♠10", "♠2", "小王", "大王", "一", "拾", "??", "7"]


def test_for_wire_keeps_under_the_limit():
    secret = b"a secret for the wire-size test ok"
    spec = {"group": 1, "players": {}}
    specs = [{"hub": "T%d" % i, "table": str(i), "spec": spec} for i in range(1, 41)]
    plays = []
    for i in range(1, 41):
        for b in (1, 2, 3, 4):
            rows = [{"seat": s, "player": "P%d%s" % (i, s), "score": 0, "think_ms": 0, "auto_moves": 0,
                     "result_id": "T%d/%d/%s" % (i, b, s)} for s in "ENWS"]
            plays.append({"group": 1, "board": b, "table": str(i), "hub": "T%d" % i,
                          "record": {"deal_hash": "x", "rows": rows,
                                     "record": {"actions": [{"type": "pass", "seat": "E"}] * 60, "result": {}}}})
    full = build("cup", "Cup", "bigtwo", secret, 1, [1, 2, 3, 4], specs, plays)
    size = len(json.dumps(full, ensure_ascii=False, separators=(",", ":")).encode())
    assert size > wire.MAX_PAYLOAD
    sent = for_wire(full)
    assert sent["plays_omitted"] and len(wire.dumps(sent)) <= wire.MAX_PAYLOAD
    small = build("cup", "Cup", "bigtwo", secret, 1, [1], specs[:1], plays[:1])
    assert for_wire(small) is small
    slim = for_wire(full, limit=size // 2)
    assert slim["plays_omitted"] and not slim.get("tables_omitted")
    assert all(t["actions"] == [] and t["rows"] for d in slim["deals"] for t in d["tables"])
    tiny = for_wire(full, limit=5000)
    assert tiny["tables_omitted"] and all(d["tables"] == [] and d["deal"]["hands"] for d in tiny["deals"])
    assert full["deals"][0]["tables"][0]["actions"]  # the original is untouched


def test_unfinished_rounds_have_no_records():
    venue = Venue(config(), Store(":memory:"), Link())
    venue.restore()
    for r in (1, 2, 0, "1", None):
        with pytest.raises(Exception) as e:
            venue.records(r)
        assert getattr(e.value, "code", None) == "not_finished"
