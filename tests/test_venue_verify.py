"""The venue trusts no hub's arithmetic: every result is replayed through the engine before it
counts (hub/venue/verify.py), and results of a round not started, a board not in the table's
spec or a seat layout other than the spec's are held or refused with a reason in both languages.

Messages come from the contract's simulated hub (tests/test_venue_service.py: deals really
played by the engine's bots from the round key) and are then forged the way a hub with its own
broker password could: nothing but the venue's replay stands between them and the standings.
"""

import asyncio
import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from paizhuo.mqtt import wire
from paizhuo.venue import deals
from paizhuo.venue.event import load_text
from paizhuo.venue.service import Venue
from paizhuo.venue.store import Store

from test_venue_service import Link, SimHub, config, event_text, running, send


def result(hub, spec, board):
    """A copy of the hub's genuine result message (the simulated hub caches its records)."""
    return copy.deepcopy(hub.result(spec, board))


def counted(venue):
    """Result ids the standings count (status ok)."""
    return {r["result_id"] for r in venue.results() if r["status"] == "ok"}


def ranked(venue):
    return [(p["player"], p["rank"], p["deals"], p["mp"]) for p in venue.standings()["players"]]


async def world(start=True, **kw):
    venue = Venue(config(bots=(), **kw), Store(":memory:"), Link(), standings_delay=0)
    stop, task = await running(venue, start=start)
    return venue, stop, task, SimHub("T01", "1"), SimHub("T02", "2")


async def baseline(venue, t02):
    """T02 reports board 1 truly: the standings every forged message must leave alone."""
    send(venue, t02, "result", result(t02, venue.spec_of("T02"), 1))
    await venue.recompute()
    assert len(counted(venue)) == 4
    return ranked(venue), venue.standings()["results"]


def assert_held(venue, msg, code, alert_kind=None):
    """Every row of ``msg`` is stored, held with ``code`` and its reason in English and Chinese,
    acknowledged, alerted, and not counted."""
    ids = {r["result_id"] for r in msg["rows"]}
    got = {r["result_id"]: r for r in venue.results() if r["result_id"] in ids}
    assert set(got) == ids, "every row is stored (nothing accepted is lost)"
    for r in got.values():
        assert (r["status"], r["held_why"]) == ("held", code), r
        reason = r["held_reason"]
        assert reason["code"] == code and reason["en"] and reason["zh"] and reason["en"] != reason["zh"]
    assert not ids & counted(venue)
    acks = venue.link.to("ack", msg["hub"])
    assert acks and acks[-1]["epoch"] == msg["epoch"] and acks[-1]["upto"] >= msg["n"]
    alert = [a for a in venue.alerts() if a["kind"] == (alert_kind or code) and a["table"] == msg["table"]]
    assert alert and alert[-1]["fields"]["board"] == msg["board"]
    return alert[-1]


def forge(msg, **rows):
    """A copy of ``msg`` with row fields replaced: ``score={"E": 5000}``."""
    out = copy.deepcopy(msg)
    for field, by_seat in rows.items():
        for r in out["rows"]:
            if r["seat"] in by_seat:
                r[field] = by_seat[r["seat"]]
    return out


def test_the_finding_forged_scores_and_another_deals_record_before_the_start_are_held_not_ranked():
    """The finding itself: T01, with its own broker password, published +5000/−5000 with the
    record of another deal before the round had started."""
    async def main():
        venue, stop, task, t01, t02 = await world(start=False)
        spec = venue.spec_of("T01")
        other = result(SimHub("T01", "1"), spec, 2)  # what the hub could only know after the start, as a stand-in
        msg = result(t01, spec, 1)
        msg["record"] = other["record"]
        msg = forge(msg, score={"E": 5000, "N": -5000, "W": 0, "S": 0})
        send(venue, t01, "result", msg)
        await venue.recompute()
        assert_held(venue, msg, "round_not_started")
        assert venue.standings()["results"] == 0 and venue.standings()["players"] == []
        stop.set()
        await task
    asyncio.run(main())


def test_forged_scores_are_held_with_the_reason_and_the_standings_do_not_change():
    async def main():
        venue, stop, task, t01, t02 = await world()
        before = await baseline(venue, t02)
        msg = forge(result(t01, venue.spec_of("T01"), 1), score={"E": 5000, "N": -5000, "W": 0, "S": 0})
        msg["record"]["result"]["scores"] = {"E": 5000, "N": -5000, "W": 0, "S": 0}  # the record lies the same way
        send(venue, t01, "result", msg)
        await venue.recompute()
        alert = assert_held(venue, msg, "score_mismatch")
        assert "5000" in alert["fields"]["en"] and "重放" in alert["fields"]["zh"]
        assert (ranked(venue), venue.standings()["results"]) == before
        stop.set()
        await task
    asyncio.run(main())


def test_a_forged_result_for_a_counted_seat_does_not_take_the_genuine_one_out():
    """A forged copy under new result ids (another outbox epoch) claims the seats of a counted
    result: it is held, and the genuine one still counts (no ``seat_taken`` from a forgery)."""
    async def main():
        venue, stop, task, t01, t02 = await world()
        before = await baseline(venue, t02)
        again = SimHub("T02", "2")
        msg = forge(result(again, venue.spec_of("T02"), 1), score={"E": 5000, "N": -5000})
        for r in msg["rows"]:
            r["result_id"] += "/again"
        send(venue, again, "result", msg)
        await venue.recompute()
        assert_held(venue, msg, "score_mismatch")
        assert len(counted(venue)) == 4 and not any(r["held_why"] == "seat_taken" for r in venue.results())
        assert (ranked(venue), venue.standings()["results"]) == before
        stop.set()
        await task
    asyncio.run(main())


def test_a_record_from_another_deal_is_held():
    async def main():
        venue, stop, task, t01, t02 = await world()
        before = await baseline(venue, t02)
        spec = venue.spec_of("T01")
        other = result(SimHub("T01", "1"), spec, 2)
        msg = result(t01, spec, 1)
        # Board 2's genuine record and its rows, reported as board 1 (whose deal hash is right).
        msg["record"] = other["record"]
        for mine, theirs in zip(msg["rows"], other["rows"]):
            mine.update(score=theirs["score"], think_ms=theirs["think_ms"], auto_moves=theirs["auto_moves"])
        send(venue, t01, "result", msg)
        await venue.recompute()
        assert_held(venue, msg, "record_deal_mismatch")
        assert (ranked(venue), venue.standings()["results"]) == before
        stop.set()
        await task
    asyncio.run(main())


def test_an_illegal_action_in_the_record_is_held_naming_the_action():
    async def main():
        venue, stop, task, t01, t02 = await world()
        before = await baseline(venue, t02)
        msg = result(t01, venue.spec_of("T01"), 1)
        actions = msg["record"]["actions"]
        i = next(k for k, a in enumerate(actions) if a["type"] == "play")
        seat = actions[i]["seat"]
        # The first play given a card the player does not hold (another seat's).
        hands = msg["record"]["deal"]["hands"]
        foreign = next(c for s, h in hands.items() if s != seat for c in h)
        actions[i]["cards"] = [foreign]
        send(venue, t01, "result", msg)
        await venue.recompute()
        alert = assert_held(venue, msg, "illegal_action")
        assert ("action %d" % i) in alert["fields"]["en"] and ("第 %d 个操作" % i) in alert["fields"]["zh"]
        assert (ranked(venue), venue.standings()["results"]) == before
        stop.set()
        await task
    asyncio.run(main())


def test_scores_that_do_not_match_the_record_are_held():
    async def main():
        venue, stop, task, t01, t02 = await world()
        before = await baseline(venue, t02)
        spec = venue.spec_of("T01")
        genuine = result(SimHub("T01", "1"), spec, 1)
        s = {r["seat"]: r["score"] for r in genuine["rows"]}
        # The scores rotated between the seats (they still add up to zero: not all equal, a deal has a winner).
        swapped = forge(result(t01, spec, 1), score={"E": s["S"], "N": s["E"], "W": s["N"], "S": s["W"]})
        assert swapped["rows"] != genuine["rows"]
        send(venue, t01, "result", swapped)
        # Card points and places in the record are figures too: changed on another board.
        pts = result(t01, spec, 2)
        pts["record"]["result"]["points"]["E"] += 1
        pts["record"]["result"]["places"]["E"] = 1 if pts["record"]["result"]["places"]["E"] != 1 else 2
        send(venue, t01, "result", pts)
        await venue.recompute()
        assert_held(venue, swapped, "score_mismatch")
        alert = assert_held(venue, pts, "result_mismatch")
        assert alert["fields"]["detail"]["fields"] == ["places", "points"]
        assert (ranked(venue), venue.standings()["results"]) == before
        stop.set()
        await task
    asyncio.run(main())


def test_a_result_before_the_round_started_is_held_then_a_referee_can_release_it():
    async def main():
        venue, stop, task, t01, t02 = await world(start=False)
        msg = result(t01, venue.spec_of("T01"), 1)
        send(venue, t01, "result", msg)
        await venue.recompute()
        assert_held(venue, msg, "round_not_started")
        assert venue.standings()["results"] == 0
        # A referee who checked the table's slip decides: the result counts from then on.
        for rid in sorted(r["result_id"] for r in msg["rows"]):
            await venue.release(rid, "referee Li", "the table played on its own deals file; slip signed by all four")
        await venue.recompute()
        assert {r["result_id"] for r in msg["rows"]} <= counted(venue) and venue.standings()["results"] == 4
        stop.set()
        await task
    asyncio.run(main())


def test_a_board_not_in_the_spec_and_a_wrong_seat_layout_are_refused_or_held():
    async def main():
        venue, stop, task, t01, t02 = await world()
        before = await baseline(venue, t02)
        spec = venue.spec_of("T01")
        # A board the table was not given: refused (it cannot be placed), acknowledged, kept.
        msg = result(t01, spec, 1)
        msg["board"] = 9
        for r in msg["rows"]:
            r["board"] = 9
        send(venue, t01, "result", msg)
        ref = venue.refusals()[-1]
        assert ref["reason"]["code"] == "unknown_board" and "牌号" in ref["reason"]["zh"] and "board" in ref["reason"]["en"]
        assert venue.link.to("ack", "T01")[-1]["upto"] == msg["n"]
        # Seats of the spec swapped between rows (E's player in N's row and back): held.
        swapped = result(t01, spec, 2)
        e, n = swapped["rows"][0], swapped["rows"][1]
        assert (e["seat"], n["seat"]) == ("E", "N")
        e["player"], n["player"] = n["player"], e["player"]
        send(venue, t01, "result", swapped)
        alert = assert_held(venue, swapped, "player_mismatch")
        assert [w["seat"] for w in alert["fields"]["seats"]] == ["E", "N"] and "E has" in alert["fields"]["en"]
        # Rows that are not one per seat of the game: refused.
        short = result(t01, spec, 1)
        short["rows"] = short["rows"][:3]
        send(venue, t01, "result", short)
        assert venue.refusals()[-1]["reason"]["code"] == "bad_rows"
        await venue.recompute()
        assert (ranked(venue), venue.standings()["results"]) == before
        stop.set()
        await task
    asyncio.run(main())


def test_a_true_result_is_counted_and_its_resend_is_not_replayed_again(monkeypatch):
    async def main():
        venue, stop, task, t01, t02 = await world()
        msg = result(t01, venue.spec_of("T01"), 1)
        from paizhuo.venue import verify
        calls = []
        real = verify.check_result
        monkeypatch.setattr(verify, "check_result", lambda *a: calls.append(1) or real(*a))
        send(venue, t01, "result", msg)
        send(venue, t01, "result", msg)  # the same n again: answered from the store
        await venue.recompute()
        assert {r["result_id"] for r in msg["rows"]} == counted(venue) and venue.standings()["results"] == 4
        assert all(r["held_why"] is None and r["held_reason"] is None for r in venue.results())
        assert len(calls) == 1 and [a["upto"] for a in venue.link.to("ack", "T01")] == [1, 1]
        assert venue.alerts() == []
        stop.set()
        await task
    asyncio.run(main())


def test_the_event_rules_are_the_ones_replayed_and_a_bad_rules_table_is_refused():
    cfg = load_text(event_text(extra="") + '\n[rules]\nspade_two_doubles = false\n', "cup.toml", base="/tmp")
    assert cfg.rules["spade_two_doubles"] is False
    try:
        load_text(event_text() + '\n[rules]\nno_such_rule = 1\n', "cup.toml", base="/tmp")
    except Exception as e:
        assert getattr(e, "code", None) == "bad_rules" and "rules" in e.en and "规则" in e.zh
    else:
        raise AssertionError("an unknown rule option must be refused")


# ---- any mutation of a genuine result is never counted ------------------------------------------

_GENUINE = {}


def genuine():
    """One genuine result message of T01, board 1 (played once by the bots)."""
    if not _GENUINE:
        venue = Venue(config(bots=()), Store(":memory:"), Link())
        venue.restore()
        _GENUINE["msg"] = SimHub("T01", "1", epoch="00000000000000e1").result(venue.spec_of("T01"), 1)
    return copy.deepcopy(_GENUINE["msg"])


CARDS = ["3D", "3C", "3H", "3S", "7D", "TC", "QH", "AS", "2S", "2D"]


def mutation():
    """A strategy for one change to a genuine message's record or rows: (path, how)."""
    return hs.tuples(hs.sampled_from(["action", "drop", "dup", "truncate", "result", "row", "hand"]),
                     hs.integers(0, 10 ** 6), hs.integers(0, 10 ** 6), hs.sampled_from([-3, -1, 1, 2, 5000]),
                     hs.sampled_from(CARDS))


def mutate(msg, m):
    kind, i, j, delta, card = m
    rec = msg["record"]
    acts = rec["actions"]
    seats = ["E", "N", "W", "S"]
    if kind == "action":
        a = acts[i % len(acts)]
        field = ["seat", "type", "cards", "yes", "auto", "think_ms"][j % 6]
        if field == "seat":
            a["seat"] = seats[(seats.index(a["seat"]) + 1 + j % 3) % 4]
        elif field == "type":
            a["type"] = {"play": "pass", "pass": "play", "show": "double", "double": "show"}[a["type"]]
        elif field == "cards":
            a["cards"] = [card] if a.get("cards") != [card] else [CARDS[(CARDS.index(card) + 1) % len(CARDS)]]
        elif field == "yes":
            a["yes"] = not a.get("yes", False)
        elif field == "auto":
            a["auto"] = not a.get("auto", False)
        else:
            a["think_ms"] = a.get("think_ms", 0) + abs(delta)
    elif kind == "drop":
        del acts[i % len(acts)]
    elif kind == "dup":
        k = i % len(acts)
        acts.insert(k, copy.deepcopy(acts[k]))
    elif kind == "truncate":
        del acts[len(acts) - 1 - i % len(acts):]
    elif kind == "result":
        res = rec["result"]
        name = sorted(res)[i % len(res)]
        seat = seats[j % 4]
        v = res[name]
        if isinstance(v, dict):
            old = v.get(seat)
            if isinstance(old, bool):
                v[seat] = not old
            elif isinstance(old, int):
                v[seat] = old + delta
            else:  # a list of cards left
                v[seat] = (old or []) + [card] if card not in (old or []) else [c for c in old if c != card]
        else:
            res[name] = seats[(seats.index(v) + 1) % 4] if v in seats else seat
    elif kind == "row":
        r = msg["rows"][j % 4]
        field = ["score", "think_ms", "auto_moves", "player"][i % 4]
        if field == "player":
            r["player"] = msg["rows"][(j + 1) % 4]["player"]
        else:
            r[field] = r[field] + abs(delta) if field != "score" else r[field] + delta
    else:  # a card moved from one hand to another in the record's deal
        hands = rec["deal"]["hands"]
        a, b = seats[i % 4], seats[(i + 1 + j % 3) % 4]
        hands[b].append(hands[a].pop(j % len(hands[a])))
    return msg


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutation())
def test_any_mutation_of_a_genuine_record_or_rows_is_never_counted(m):
    msg = mutate(genuine(), m)
    assert msg != genuine()

    async def main():
        venue = Venue(config(bots=()), Store(":memory:"), Link())
        venue.restore()
        await venue.start_round(1, "referee")
        hub = SimHub("T01", "1", epoch=msg["epoch"])
        try:
            wire.check_result(json.loads(wire.dumps(msg)), "T01")
        except wire.WireError:
            return  # refused at the wire: never counted either
        send(venue, hub, "result", msg)
        ids = {r["result_id"] for r in msg["rows"]}
        assert not ids & counted(venue), (m, [r["held_why"] for r in venue.results()])
        assert venue.link.to("ack", "T01")[-1]["upto"] == msg["n"]  # acknowledged all the same
    asyncio.run(main())


def test_the_genuine_message_itself_is_counted():
    async def main():
        venue = Venue(config(bots=()), Store(":memory:"), Link())
        venue.restore()
        await venue.start_round(1, "referee")
        msg = genuine()
        send(venue, SimHub("T01", "1", epoch=msg["epoch"]), "result", msg)
        assert {r["result_id"] for r in msg["rows"]} == counted(venue)
        assert deals.deal(venue.config.secret, "bigtwo", 1, 1, 1).hash == msg["deal_hash"]
    asyncio.run(main())


# ---- the hubs' log heads (chain) and `paizhuo venue anchors` -----------------------------------

def chain(seq, fill="a", table="1"):
    return {"table": table, "seq": seq, "hash": (fill * 64)[:64]}


def test_each_hubs_highest_acknowledged_log_head_is_kept_and_a_fork_is_alerted():
    async def main():
        venue, stop, task, t01, t02 = await world()
        spec = venue.spec_of("T01")
        m1 = dict(result(t01, spec, 1), chain=chain(40))
        m2 = dict(t01.alert("call", seat="E"), chain=chain(55, "b"))
        m3 = dict(result(t01, spec, 2), chain=chain(47, "c"))   # an older head, sent later (a resend): kept per message
        for leaf, m in (("result", m1), ("alert", m2), ("result", m3)):
            send(venue, t01, leaf, m)
        assert venue.store.anchors("cup")["T01"] == {"table": "1", "seq": 55, "hash": "b" * 64, "epoch": t01.epoch, "n": 2,
                                                     "at": venue.store.anchors("cup")["T01"]["at"]}
        assert [m["chain"]["seq"] for m in venue.store.inbox("cup", "T01")] == [40, 55, 47]
        assert "chain" not in [a for a in venue.alerts() if a["kind"] == "call"][0]["fields"]
        # The same seq with another hash: the hub's log was rewritten after the venue saw it.
        send(venue, t01, "alert", dict(t01.alert("call", seat="N"), chain=chain(55, "d")))
        fork = [a for a in venue.alerts() if a["kind"] == "chain_fork"]
        assert len(fork) == 1 and fork[0]["fields"]["anchored"] == "b" * 64 and fork[0]["fields"]["hash"] == "d" * 64
        assert venue.store.anchors("cup")["T01"]["hash"] == "b" * 64
        # A malformed chain refuses the message (acknowledged, kept as a refusal, nothing else stored).
        before = len(venue.results())
        for bad in ({"table": "1", "seq": "9", "hash": "a" * 64}, {"table": "1", "seq": 9, "hash": "A" * 64},
                    {"table": "1", "seq": 9}, "head", {"table": "", "seq": 9, "hash": "a" * 64}):
            m = dict(result(t01, spec, 1), chain=bad)
            send(venue, t01, "result", m)
            ref = venue.refusals()[-1]
            assert ref["reason"]["code"] == "bad_field" and "chain" in ref["reason"]["en"] and "chain" in ref["reason"]["zh"]
            assert venue.link.to("ack", "T01")[-1]["upto"] == m["n"]
        # A refused message's head is not anchored (a refusal changes nothing else).
        m = dict(result(t01, spec, 1), board=9, chain=chain(99, "e"))
        m["rows"] = [dict(r, board=9) for r in m["rows"]]
        send(venue, t01, "result", m)
        assert venue.refusals()[-1]["reason"]["code"] == "unknown_board"
        assert venue.store.anchors("cup")["T01"]["seq"] == 55 and len(venue.results()) == before
        stop.set()
        await task
    asyncio.run(main())


def test_paizhuo_venue_anchors_writes_the_anchors_file(tmp_path):
    import subprocess
    import sys
    ev = tmp_path / "cup.toml"
    ev.write_text(event_text(bots=()) + '\n[store]\npath = "cup.sqlite"\n', encoding="utf-8")

    async def main():
        venue = Venue(load_text(ev.read_text(encoding="utf-8"), str(ev), base=str(tmp_path)),
                      Store(str(tmp_path / "cup.sqlite")), Link(), standings_delay=0)
        stop, task = await running(venue)
        t01, t02 = SimHub("T01", "1"), SimHub("T02", "2")
        send(venue, t01, "result", dict(result(t01, venue.spec_of("T01"), 1), chain=chain(12, "f")))
        send(venue, t02, "alert", dict(t02.alert("call", seat="S"), chain=chain(3, "0", table="2")))
        stop.set()
        await task
        venue.store.close()
    asyncio.run(main())
    out = tmp_path / "anchors.json"
    cli = [sys.executable, "-m", "paizhuo.cli", "venue", "anchors", "--event", str(ev)]
    got = subprocess.run(cli + ["--out", str(out)], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    want = {"v": 1, "event": "cup", "hubs": {"T01": {"table": "1", "seq": 12, "hash": "f" * 64},
                                             "T02": {"table": "2", "seq": 3, "hash": "0" * 64}}}
    assert json.loads(out.read_text(encoding="utf-8")) == want
    printed = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0 and json.loads(printed.stdout) == want
    # No store yet: a clear error in both languages, no traceback, nothing written.
    (tmp_path / "cup.sqlite").rename(tmp_path / "moved.sqlite")
    missing = subprocess.run(cli + ["--out", str(tmp_path / "none.json")], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no store" in missing.stderr and "尚不存在" in missing.stderr
    assert "Traceback" not in missing.stderr and not (tmp_path / "none.json").exists()


def test_a_schema_2_store_is_migrated_to_3_keeping_its_results_and_messages(tmp_path):
    import sqlite3
    from paizhuo.venue import store as store_mod
    from test_venue_service import schema, v1_file
    path = str(tmp_path / "v2.sqlite")
    v1_file(path)
    db = sqlite3.connect(path)
    schema(db, 2)
    db.execute("INSERT INTO inbox VALUES ('cup', 'T1', '0123456789abcdef', 1, 'alert', 'stored', 'then', '{}')")
    db.commit()
    db.close()
    assert store_mod.read_anchors(path, "cup") == {}  # read-only, before the migration: none yet
    s = Store(path)
    assert s.schema_version() == 3 and s.result("x")["held_reason"] is None and s.result("x")["score"] == 5
    assert s.inbox("cup")[0]["chain"] is None and s.anchors("cup") == {}
    s.close()
