"""A match's time limit at the table (seed 第十二条): the hub measures the match's time on its
own clock (pauses and downtime not counted), keeps it in the log across a SIGKILL, shows the
time left, and once it is reached no new deal starts; the record's time-up mark replays."""

import asyncio
import signal

from paizhuo import rules
from paizhuo.table.history import audit

from table_seat import Rig, log_entries
from test_table_match import MATCH_SECRET, board_over, play_match

# 1 minute at clock scale 0.04 is 2.4 s of match time: a deal or two of seats that answer at once.
TIMED_RULES = "[rules]\nmax_deals = 9\nmatch_minutes = 1\n\n[deals]\nsecret = \"%s\"\nboards = \"1\"\n" % MATCH_SECRET + \
    "".join("\n[players.%s]\nid = \"P%d\"\nname = \"Player %d\"\n" % (s, i, i) for i, s in enumerate("ENWS"))
LIMIT_MS = 2400


def timed_rig(tmp_path, **clock):
    clock = dict({"scale": 0.04, "next_deal_seconds": 0.2}, **clock)
    return Rig(str(tmp_path), game="guandan", deals=False, extra=TIMED_RULES, clock=clock, players=False)


def check_time_up(log):
    """The log's time-up: one, no deal of the board starts after it, and the result's record
    carries where it came and replays to the same result."""
    kinds = [e.kind for e in log]
    assert kinds.count("time_up") == 1 and kinds.count("result") == 1
    at = kinds.index("time_up")
    up = log[at].body
    assert up["board_ms"] >= LIMIT_MS and up["limit_ms"] == LIMIT_MS
    assert "deal_start" not in kinds[at:]  # the current deal was played out, no new one started
    res = log[kinds.index("result")].body
    record = res["record"]
    assert record["time_up"] == up["n"] == len(record["deals"]) < 9
    replayed = rules.replay("guandan", record)
    assert replayed.over and replayed.result()["levels"] == res["result"]["levels"]
    return up


def test_the_match_time_runs_on_the_hubs_clock_without_pauses_and_ends_the_match(tmp_path):
    async def main():
        rig = timed_rig(tmp_path)
        snaps = []
        try:
            await rig.start_seats()
            table = await rig.start_hub(on_change=lambda: snaps.append(rig.table.snapshot()))
            await rig.all_online(timeout=20)
            await asyncio.sleep(0.3)
            table.pause(by="referee", reason="a spilt drink")
            left = table.snapshot()["match"]["time_left_ms"]
            await asyncio.sleep(1.0)  # paused: the match time stands still
            assert table.snapshot()["match"]["time_left_ms"] == left
            seat_left = [s.state["match"]["time_left_ms"] for s in rig.seats.values()]
            assert all(abs(x - left) < 100 for x in seat_left)  # the seats show the time left
            table.resume(by="referee")
            await play_match(rig, board_over, timeout=60)
        finally:
            await rig.close()
        return rig, snaps, left

    rig, snaps, left = asyncio.run(asyncio.wait_for(main(), 90))
    assert 0 < left < LIMIT_MS
    lefts = [s["match"]["time_left_ms"] for s in snaps if s.get("match") and "time_left_ms" in s["match"]]
    assert lefts and lefts == sorted(lefts, reverse=True)  # it only ever goes down
    log = log_entries(rig.config.log)
    check_time_up(log)
    pause = next(e.body for e in log if e.kind == "pause")
    resume = next(e.body for e in log if e.kind == "clock" and e.body["why"] == "resume")
    assert resume["board_ms"] - pause["board_ms"] < 50  # the second paused is not counted
    report = audit(rig.config.log)
    assert report.ok, str(report)


def test_a_hub_killed_mid_match_resumes_with_the_same_match_time_left(tmp_path):
    async def main():
        rig = timed_rig(tmp_path, checkpoint_seconds=0.1, restart_floor_seconds=0)
        try:
            await rig.start_seats()
            rig.spawn_hub()
            await rig.all_online(timeout=20)
            await play_match(rig, lambda r: sum(s.turn or 0 for s in r.seats.values()) >= 8, timeout=30)
            await asyncio.sleep(0.4)  # nobody plays: the open decision's clock and the match time run
            rig.kill_hub(signal.SIGKILL)
            killed = log_entries(rig.config.log)
            await asyncio.sleep(1.5)  # downtime: not the match's time
            rig.spawn_hub()
            await rig.all_online(timeout=20)
            await play_match(rig, board_over, timeout=60)
        finally:
            await rig.close()
        return rig, killed

    rig, killed = asyncio.run(asyncio.wait_for(main(), 120))
    log = log_entries(rig.config.log)
    before = [e.body["board_ms"] for e in killed if isinstance(e.body, dict) and "board_ms" in e.body][-1]
    restart = next(e.body for e in log[len(killed):] if e.kind == "clock" and e.body["why"] == "restart")
    # the checkpoints (0.1 s) carry the 0.4 s of the open decision; the 1.5 s of downtime are not counted
    assert before + 250 <= restart["board_ms"] <= before + 600, (before, restart)
    check_time_up(log)
    report = audit(rig.config.log)
    assert report.ok, str(report)


def _timed_match(minutes=30, tiebreak=True, seed=3, before=False):
    """A match whose time is reached during its first deal (levels then decide), or before
    it (``before``: equal levels, so that deal is the tie-break)."""
    import random
    from paizhuo.rules.guandan import Deal, Match, Rules
    rnd = random.Random(seed)
    m = Match(Rules(match_minutes=minutes, tiebreak_deal=tiebreak))
    if before:
        m.time_up()
    while not m.over:
        g = m.start(Deal.from_permutation(rnd.sample(range(108), 108)))
        m.time_up()  # reached during each deal: no new deal but a tie-break
        while g.phase != "over":
            seat = g.to_act()[0]
            g.apply(rnd.choice(g.legal_actions(seat)).with_meta(think_ms=1000))
        m.finish(g)
    return m


def test_a_records_time_up_mark_replays_where_it_came_and_must_be_consistent():
    import copy
    import pytest
    m = _timed_match()
    rec = m.record()
    assert rec["time_up"] == 1 and len(rec["deals"]) == 1
    assert rules.replay("guandan", rec).result() == m.result()
    tb = _timed_match(before=True)
    assert tb.record()["time_up"] == 0 and tb.result()["tiebreak"] and tb.result()["deals"] == 1
    assert rules.replay("guandan", tb.record()).result() == tb.result()  # the tie-break deal replays as one
    for change, why in ((lambda r: r["rules"].update(match_minutes=None), "no match_minutes"),
                        (lambda r: r.update(time_up=len(r["deals"]) + 1), "number of deals"),
                        (lambda r: r.update(time_up="1"), "number of deals")):
        bad = copy.deepcopy(rec)
        change(bad)
        with pytest.raises(ValueError, match=why):
            rules.replay("guandan", bad)
    # the clock time of the deals before the time-up deal must be under the limit
    short = _timed_match(minutes=1)
    bad = short.record()
    bad["deals"].append(bad["deals"][0])
    bad["time_up"] = 2
    with pytest.raises(ValueError, match="past the 1-minute limit"):
        rules.replay("guandan", bad)


def test_match_minutes_is_a_whole_number_of_minutes_or_none():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from paizhuo.rules.guandan import Rules

    @settings(max_examples=80, deadline=None)
    @given(st.one_of(st.none(), st.booleans(), st.integers(-10, 5000), st.floats(allow_nan=True), st.text(max_size=5)))
    def check(v):
        try:
            r = Rules.from_dict({"match_minutes": v})
        except ValueError as e:
            assert "match_minutes" in str(e)
            return
        assert v is None or (type(v) is int and 1 <= v <= 1440)
        assert r.to_dict()["match_minutes"] == v
    check()


def test_the_venue_counts_a_match_that_ended_on_time_and_holds_an_inconsistent_mark():
    import copy
    from paizhuo.venue import verify
    from test_venue_match_verify import GAME, deal_of

    g = rules.game(GAME)
    opts = g.engine.Rules(match_minutes=40, tiebreak_deal=True).to_dict()
    m = g.new_board(g.engine.Rules.from_dict(opts))
    m.time_up()  # reached before the first deal (a late start): one tie-break deal decides
    bot = g.new_bot(seed=5)
    while not m.over:
        st = m.start(g.deal_for(deal_of(m.number)))
        while st.phase != "over":
            seat = st.to_act()[0]
            st.apply(bot.choose(st.view(seat), None).with_meta(think_ms=900))
        m.finish(st)
    res = m.result()
    rows = [{"seat": s, "score": res["scores"][s], "think_ms": res["think_ms"][s], "auto_moves": res["auto_moves"][s]}
            for s in g.seats]
    msg = {"board": 1, "rows": rows, "record": dict(m.record(), result=res)}
    finding, counted = verify.check_match(GAME, opts, deal_of, msg)
    assert finding is None and counted["tiebreak"] and counted["deals"] == 1
    late = copy.deepcopy(msg)  # the mark moved past the deals played
    late["record"]["time_up"] = 2
    finding, _ = verify.check_match(GAME, opts, deal_of, late)
    assert finding is not None and finding.code == "bad_record" and finding.zh
