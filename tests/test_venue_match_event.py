"""Match events (pairs and teams, 竞技掼蛋) on the venue service: Swiss pairing of sides, the
round specs (teams: open and closed rooms on the same deals, the seats swapped), match results
replayed through the engine's Match, standings by 场分 and the tie-break chain, byes,
forfeits, forged results held, and the public standings that wait for every room."""

import asyncio
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from paizhuo import rules
from paizhuo.mqtt import wire
from paizhuo.venue import records as records_
from paizhuo.venue.event import EventError, load_text
from paizhuo.venue.service import Venue, VenueError
from paizhuo.venue.store import Store

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from brokers import wait_for  # noqa: E402
from match_hubs import MatchHub  # noqa: E402
from test_venue_service import Link, running  # noqa: E402

SECRET = "hex:" + "6b" * 32
GAME = next(g for g in sorted(rules.GAMES) if rules.game(g).match)  # a game whose board is a match


def event_text(fmt="pairs", sides=5, tables=2, rounds=3, max_deals=2, extra=""):
    size = 2 if fmt == "pairs" else 4
    out = ['[event]\nid = "cup"\nname = "掼蛋杯"\ngame = "%s"\nformat = "%s"\nsecret = "%s"\nrounds = %d\n'
           'boards_per_round = 1\n%s\n[rules]\nmax_deals = %d\n' % (GAME, fmt, SECRET, rounds, extra, max_deals)]
    for t in range(1, tables + 1):
        out.append('[[tables]]\ntable = "%d"\nhub = "T%02d"\n' % (t, t))
    for p in range(1, sides * size + 1):
        out.append('[[players]]\nid = "P%02d"\nname = "选手%d"\nno = %d\n' % (p, p, p))
    for s in range(1, sides + 1):
        ids = ", ".join('"P%02d"' % (p + (s - 1) * size) for p in range(1, size + 1))
        out.append('[[sides]]\nid = "S%d"\nname = "队%d"\nplayers = [%s]\n' % (s, s, ids))
    return "\n".join(out)


def venue_of(text):
    return Venue(load_text(text, "cup.toml", base="/tmp"), Store(":memory:"), Link(), standings_delay=0.01)


def hubs_of(venue):
    return {t.hub: MatchHub(t.hub, t.table, "cup", SECRET) for t in venue.config.tables}


def send(venue, hub, msg):
    venue.handle(hub.topic("result"), wire.dumps(msg))


def sides_at(venue, hub):
    spec = venue.spec_of(hub)
    return {s: venue._side_of[p["id"]] for s, p in spec["players"].items()}


async def settle(venue):
    """Every match result sent is replayed and stored (in a worker thread), the standings recomputed."""
    await venue.replays_done()
    await venue.recompute()


def test_event_toml_of_a_match_event_is_checked_in_both_languages():
    cfg = load_text(event_text(), "cup.toml", base="/tmp")
    assert cfg.matches and cfg.format == "pairs" and [s.players for s in cfg.sides][0] == ("P01", "P02")
    assert cfg.tables_needed() == 2 and cfg.rules["max_deals"] == 2
    bad = [(event_text().replace('format = "pairs"\n', ''), "bad_format"),
           (event_text().replace('players = ["P01", "P02"]', 'players = ["P01"]'), "bad_side"),
           (event_text().replace('players = ["P03", "P04"]', 'players = ["P03", "P01"]'), "duplicate"),
           (event_text().replace('players = ["P01", "P02"]', 'players = ["P01", "PX"]'), "unknown_player"),
           (event_text().replace("boards_per_round = 1", "boards_per_round = 2"), "out_of_range"),
           (event_text(tables=1), "too_few_tables"),
           (event_text(sides=4, rounds=4), "out_of_range")]
    for text, code in bad:
        with pytest.raises(EventError) as e:
            load_text(text, "cup.toml")
        assert e.value.code == code and e.value.en and e.value.zh and e.value.en != e.value.zh


def test_a_pairs_event_runs_to_standings_with_a_bye_a_forfeit_and_a_forged_result():
    async def main():
        venue = venue_of(event_text())
        hubs = hubs_of(venue)
        stop, task = await running(venue)
        try:
            # Round 1: five pairs, two tables, one bye; the home pair sits E–W, the away pair N–S.
            spec = venue.spec_of("T01")
            assert spec["game"] == GAME and spec["boards"] == [1] and spec["rules"]["max_deals"] == 2
            seat = sides_at(venue, "T01")
            assert seat["E"] == seat["W"] and seat["N"] == seat["S"] and seat["E"] != seat["N"]
            sm = venue.seat_map()
            assert sm["format"] == "pairs" and len(sm["matches"]) == 2 and sm["bye"] is not None
            assert sm["tables"][0]["ew"] == sm["matches"][0]["home"] and sm["tables"][0]["seats"]["E"]["no"] >= 1
            bye1 = sm["bye"]
            # Check-in: each seat's player and the number they type come from their side.
            side = venue.config.side(seat["E"])
            assert [spec["players"][s]["id"] for s in "EW"] == list(side.players)

            send(venue, hubs["T01"], hubs["T01"].result(spec))
            await settle(venue)
            ref = {r["side"]: r for r in venue.standings()["sides"]}
            pub = {r["side"]: r for r in venue.public_standings()["sides"]}
            m1 = venue.seat_map()["matches"][0]
            # The referees see table 1's match; the public sees only the bye until table 2 is done too.
            assert ref[m1["home"]]["played"] == 1 and pub[m1["home"]]["played"] == 0
            assert pub[bye1]["changfen"] == 1.5 and pub[bye1]["jichafen"] == 17

            # The console's table detail: the match's deals and the levels the venue's replay reached.
            done = venue.table("1")["finished"][0]["match"]
            assert done["deals"] == 2 and set(done["levels"]) == {"EW", "NS"}
            # A forged result: the record replays to other figures than the message claims.
            def forge(record, rows):
                for r in rows:
                    r["score"] = 26 if r["seat"] in "EW" else 0
            send(venue, hubs["T02"], hubs["T02"].result(venue.spec_of("T02"), forge=forge))
            await settle(venue)
            held = [r for r in venue.results() if r["status"] == "held"]
            assert len(held) == 4 and held[0]["held_reason"]["code"] == "score_mismatch"
            assert "replays" in held[0]["held_reason"]["en"] and "重放" in held[0]["held_reason"]["zh"]
            assert any(a["kind"] == "score_mismatch" for a in venue.alerts())
            assert venue.round == 1  # the round waits for the referees
            await venue.release(held[0]["result_id"], "裁判 Li", "checked at the table")
            for r in held[1:]:
                await venue.release(r["result_id"], "裁判 Li", "checked at the table")
            await wait_for(lambda: venue.round == 2, 5, "round 2 seated")
            await settle(venue)
            st = venue.public_standings()
            assert st["format"] == "paizhuo.matches/1" and st["chain"][0] == "changfen"
            rows = st["sides"]
            assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
            # Round 2's bye counts from the moment round 2 is paired (场分 1.5 without a table).
            assert sum(r["played"] for r in rows) == 4 and sum(r["byes"] for r in rows) == 2
            assert all(rows[i]["changfen"] >= rows[i + 1]["changfen"] for i in range(len(rows) - 1))

            # Round 2: paired by the standings, no repeat meeting, a new bye.
            sm2 = venue.seat_map()
            met = {frozenset((m["home"], m["away"])) for m in sm["matches"]}
            assert not met & {frozenset((m["home"], m["away"])) for m in sm2["matches"]}
            assert sm2["bye"] not in (None, bye1)
            await venue.start_round(2, "裁判 Li")
            # A forfeit at table 2: its away pair did not come; table 2 owes no result.
            m2 = sm2["matches"][1]
            with pytest.raises(VenueError) as e:
                await venue.forfeit(2, "2", "S99", "裁判 Li", "no show")
            assert e.value.code == "bad_request" and e.value.zh
            with pytest.raises(VenueError) as e:
                await venue.forfeit(2, "2", m2["away"], "裁判 Li", " ")
            assert e.value.code == "no_reason"
            await venue.forfeit(2, "2", m2["away"], "裁判 Li", "no show at 14:10")
            send(venue, hubs["T01"], hubs["T01"].result(venue.spec_of("T01", 2)))
            await wait_for(lambda: venue.round == 3, 5, "round 3 seated when every match is in")
            await settle(venue)
            by = {r["side"]: r for r in venue.public_standings()["sides"]}
            assert by[m2["home"]]["wins"] >= 1 and by[m2["away"]]["losses"] >= 1
            assert [m["forfeit"] for m in venue.store.matches("cup") if m["match_id"] == m2["match_id"]] == ["b"]
            assert any(a["action"] == "forfeit" for a in venue.audit())
        finally:
            stop.set()
            await task
    asyncio.run(main())


def test_a_teams_event_plays_open_and_closed_rooms_and_hides_the_open_room_until_the_closed_is_done():
    async def main():
        venue = venue_of(event_text(fmt="teams", sides=4, tables=4, rounds=2, max_deals=1))
        hubs = hubs_of(venue)
        stop, task = await running(venue)
        try:
            sm = venue.seat_map()
            assert [(t["table"], t["room"], t["match"]) for t in sm["tables"]] == [
                ("1", "open", 1), ("2", "closed", 1), ("3", "open", 2), ("4", "closed", 2)]
            assert venue.seat_map()["matches"][0]["rooms"][1] == {"table": "2", "room": "closed"}
            o, c = venue.spec_of("T01"), venue.spec_of("T02")
            assert o["deal_hashes"] == c["deal_hashes"] and o["group"] == c["group"]   # the same deals
            home, away = sm["matches"][0]["home"], sm["matches"][0]["away"]
            assert sides_at(venue, "T01") == {"E": home, "W": home, "N": away, "S": away}
            assert sides_at(venue, "T02") == {"E": away, "W": away, "N": home, "S": home}   # seats swapped
            team = venue.config.side(home).players
            assert [o["players"][s]["id"] for s in "EW"] == list(team[:2])
            assert [c["players"][s]["id"] for s in "NS"] == list(team[2:])

            send(venue, hubs["T01"], hubs["T01"].result(o))
            await settle(venue)
            # The open room alone is no match result, for anyone; nothing of it is public.
            assert all(r["played"] == 0 for r in venue.standings()["sides"])
            assert all(r["played"] == 0 for r in venue.public_standings()["sides"])
            assert not venue.public_boards()
            # Nor on any public topic: venue/standings carries no match yet, no hand records exist.
            link = venue.link
            assert link.to("standings") and all(r["played"] == 0 for r in link.to("standings")[-1]["sides"])
            assert not link.to("records") and all(t["state"] != "playing" or t["boards_done"] == 0
                                                  for t in venue.public_tables()[1:])
            with pytest.raises(VenueError) as e:
                venue.records(1)
            assert e.value.code == "not_finished"
            for h in ("T02", "T03", "T04"):
                send(venue, hubs[h], hubs[h].result(venue.spec_of(h)))
            await wait_for(lambda: venue.round == 2, 5, "round 2 seated")
            await settle(venue)
            rows = venue.public_standings()["sides"]
            assert sum(r["played"] for r in rows) == 4 and rows[0]["rank"] == 1
            assert link.to("records") and sum(r["played"] for r in link.to("standings")[-1]["sides"]) == 4
            # The hand records: every deal of each room's match, both rooms on the same cards.
            recs = venue.records(1)["deals"][0]["tables"]
            assert [t["table"] for t in recs] == ["1", "2", "3", "4"] and all(t["match"] for t in recs)
            assert recs[0]["match"][0]["hands"] == recs[1]["match"][0]["hands"]
            assert recs[0]["match"][0]["setup"]["levels"] == {"EW": 2, "NS": 2}
            page = records_.render_html(venue.records(1))
            assert "第 1 局" in page and "出 play" in page
            decided = {r["decided_by"] for r in rows} - {None, "tie"}
            assert decided <= set(venue.public_standings()["chain"])
            total = {r["side"]: r for r in rows}
            # A team's 级差分: both rooms' level differences added and scored like one match.
            assert total[home]["jichafen"] + total[away]["jichafen"] == 26
            sm2 = venue.seat_map()
            assert not {frozenset((m["home"], m["away"])) for m in sm["matches"]} & \
                {frozenset((m["home"], m["away"])) for m in sm2["matches"]}
        finally:
            stop.set()
            await task
    asyncio.run(main())


def test_a_restarted_venue_keeps_the_pairing_the_forfeit_and_the_replayed_matches(tmp_path):
    text = event_text(sides=4, rounds=2, max_deals=1)
    path = str(tmp_path / "cup.sqlite")

    async def first():
        venue = Venue(load_text(text, "cup.toml", base="/tmp"), Store(path), Link(), standings_delay=0.01)
        hubs = hubs_of(venue)
        stop, task = await running(venue)
        send(venue, hubs["T01"], hubs["T01"].result(venue.spec_of("T01")))
        await venue.forfeit(1, "2", "both", "裁判 Li", "neither pair came")
        await wait_for(lambda: venue.round == 2, 5, "round 2 seated")
        await settle(venue)
        out = (venue.standings()["sides"], venue.seat_map())
        stop.set()
        await task
        venue.store.close()
        return out

    async def second():
        venue = Venue(load_text(text, "cup.toml", base="/tmp"), Store(path), Link(), standings_delay=0.01)
        stop, task = await running(venue, start=False)
        await settle(venue)
        out = (venue.standings()["sides"], venue.seat_map(), venue.rounds())
        stop.set()
        await task
        return out

    before, seats = asyncio.run(first())
    after, seats_again, rounds = asyncio.run(second())
    assert after == before and seats_again == seats
    assert rounds[0]["closed"] and rounds[0]["boards_done"] == 2 and not rounds[1]["closed"]
    both = [r for r in after if r["losses"] == 1 and r["changfen"] == 0 and r["jichafen"] == 0]
    assert len(both) >= 2  # a forfeit by both: 0 and 0 each


def test_pairs_tables_of_their_own_deals_make_each_match_public_when_it_is_over():
    async def main():
        venue = venue_of(event_text(sides=4, rounds=1, max_deals=1, extra="tables_per_group = 1\n"))
        hubs = hubs_of(venue)
        stop, task = await running(venue)
        try:
            a, b = venue.spec_of("T01"), venue.spec_of("T02")
            assert (a["group"], b["group"]) == (1, 2) and a["deal_hashes"] != b["deal_hashes"]
            send(venue, hubs["T01"], hubs["T01"].result(a))
            await settle(venue)
            assert sum(r["played"] for r in venue.public_standings()["sides"]) == 2   # table 2 plays other cards
        finally:
            stop.set()
            await task
    asyncio.run(main())
    with pytest.raises(EventError) as e:
        load_text(event_text(fmt="teams", sides=4, tables=4, extra="tables_per_group = 1\n"), "cup.toml")
    assert e.value.code == "bad_format" and "开室" in e.value.zh


_VALUE = hs.one_of(hs.text(max_size=6), hs.integers(-3, 30), hs.none(), hs.booleans(),
                   hs.lists(hs.sampled_from(["P01", "P02", "P03", "P04", "PX", ""]), max_size=5))


@settings(max_examples=80, deadline=None)
@given(hs.lists(hs.dictionaries(hs.sampled_from(["id", "name", "players", "seed"]), _VALUE, max_size=4), max_size=4),
       hs.sampled_from(["pairs", "teams", "solo", None]))
def test_any_sides_table_is_an_event_or_a_clear_refusal(sides, fmt):
    from paizhuo.provision import toml_str

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return "[%s]" % ", ".join(toml_str(x) for x in v)
        return toml_str(v) if isinstance(v, str) else str(v)
    head = event_text(sides=2).split("[[sides]]")[0]
    if fmt is None:
        head = head.replace('format = "pairs"\n', "")
    else:
        head = head.replace('format = "pairs"', 'format = "%s"' % fmt)
    text = head + "".join("[[sides]]\n" + "".join("%s = %s\n" % (k, value(v)) for k, v in s.items() if v is not None)
                          for s in sides)
    try:
        cfg = load_text(text, "cup.toml")
    except EventError as e:
        assert e.code and e.en and e.zh and e.en != e.zh
        return
    assert cfg.format == "pairs" and len(cfg.sides) >= 2
    assert sorted(p for s in cfg.sides for p in s.players) == sorted(p.id for p in cfg.players)


def test_the_console_forfeit_action_checks_its_fields():
    from paizhuo.venue.web import WebError, check_action
    assert check_action("forfeit", {"round": 2, "table": "1", "side": "S1", "reason": " late "})["reason"] == "late"
    for body in ({"round": 2, "table": "1", "side": "S1"}, {"round": "2", "table": "1", "side": "S1", "reason": "x"},
                 {"round": 2, "table": "", "side": "S1", "reason": "x"}, {"round": 2, "table": "1", "side": "S1",
                                                                          "reason": "x", "by": "me"}):
        with pytest.raises(WebError) as e:
            check_action("forfeit", body)
        assert e.value.status == 400 and e.value.zh


def test_venue_check_tells_the_sides_of_a_match_event(tmp_path):
    import subprocess
    path = tmp_path / "cup.toml"
    path.write_text(event_text(), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "paizhuo.cli", "venue", "check", "--event", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "sides: 5 pairs, paired by 积分编排 (an odd field: one bye a round)" in out.stdout


def test_a_match_is_replayed_in_a_worker_thread_and_a_copy_sent_meanwhile_is_stored_once():
    async def main():
        venue = venue_of(event_text(sides=4, rounds=1, max_deals=2))
        hubs = hubs_of(venue)
        stop, task = await running(venue)
        try:
            msg = hubs["T01"].result(venue.spec_of("T01"))
            send(venue, hubs["T01"], msg)
            send(venue, hubs["T01"], msg)          # the hub re-sends before the venue has answered
            assert len(venue._replaying) == 1 and venue.results() == []   # handle() returned at once
            venue.handle(hubs["T02"].topic("status"), wire.dumps({"v": 1, "hub": "T02", "table": "2", "online": True,
                                                                  "at": 1, "fw": "x"}))
            assert venue.glance(["2"])[0]["online"] is True   # the link goes on during the replay
            await settle(venue)
            assert len(venue.results()) == 4 and {r["status"] for r in venue.results()} == {"ok"}
            send(venue, hubs["T01"], msg)          # a later copy is answered from the store, not replayed
            assert not venue._replaying
            acks = venue.link.to("ack", "T01")
            assert acks and acks[-1]["upto"] == 1 and len(venue.results()) == 4
        finally:
            stop.set()
            await task
    asyncio.run(main())
