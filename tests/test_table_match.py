"""A table that plays any registered game: a board is one deal or a match of deals.

The contract with the venue (docs/protocol.md § Round spec, § Result): a round spec's optional
``rules`` (checked against the game's engine), a board's result whose record is the board's
record (a match game's ``Match.record()``), replayed by ``rules.replay`` to the board the venue
scores.
"""

import asyncio
import copy
import signal
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo import deals, rules
from paizhuo.mqtt import wire
from paizhuo.table import eventlog
from paizhuo.table import history as history_
from paizhuo.table import results as results_
from paizhuo.table.eventlog import EventLog
from paizhuo.table.history import TableHistory, audit
from paizhuo_shared import link

from table_seat import Rig, intent_of, log_entries

SECRET = b"table match tests, long enough.."
MATCH_GAMES = sorted(n for n in rules.GAMES if rules.game(n).match)


def spec(game, **extra):
    key = deals.round_key(SECRET, 1)
    s = {"v": 1, "id": "s1", "round": 1, "group": 1, "game": game, "table": "7", "boards": [1, 2],
         "deal_hashes": {str(b): deals.deal_from_round_key(key, game, 1, b, round=1).hash for b in (1, 2)},
         "players": {s: {"id": "P%d" % i, "name": "N%d" % i, "no": i} for i, s in enumerate("ENWS")}}
    s.update(extra)
    return s


# ---- the round spec's rules ------------------------------------------------------------------

@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_a_round_spec_may_carry_the_engines_rules(game):
    opts = rules.game(game).engine.Rules().to_dict()
    assert wire.check_round(spec(game, rules=opts))["rules"] == opts
    assert "rules" not in wire.check_round(spec(game))  # optional: the shape of every spec so far


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_a_round_spec_with_options_its_engine_lacks_is_refused_in_both_languages(game):
    with pytest.raises(wire.WireError) as e:
        wire.check_round(spec(game, rules={"no_such_option": 1}))
    assert e.value.code == "bad_rules" and "rules" in e.value.en and "规则" in e.value.zh
    with pytest.raises(wire.WireError) as e:
        wire.check_round(spec(game, rules=[1]))
    assert "rules" in e.value.en


# ---- a board's result message ----------------------------------------------------------------

def _played_match(game, max_deals=2, seed=0):
    g = rules.game(game)
    board = g.new_board(g.engine.Rules(max_deals=max_deals))
    bots = {s: g.new_bot(seed=seed + i) for i, s in enumerate(g.seats)}
    key = deals.round_key(SECRET, 1)
    while not board.over:
        state = board.start(g.deal_for(deals.deal_from_round_key(key, game, 1, 1, round=1, deal=board.number)))
        while state.phase != g.engine.OVER:
            seat = state.to_act()[0]
            state.apply(bots[seat].choose(state.view(seat), state.legal_actions(seat)))
        board.finish(state)
    return board


def _result_message(record):
    rows = [{"result_id": "T07/7/r1/g1/b1/%s" % s, "round": 1, "group": 1, "board": 1, "table": "7", "seat": s,
             "player": "P%s" % s, "score": 1, "think_ms": 0, "auto_moves": 0, "deal_hash": "ab" * 32, "bot": False}
            for s in "ENWS"]
    return {"v": 1, "kind": "result", "hub": "T07", "table": "7", "epoch": "0123456789abcdef", "n": 1, "at": 0,
            "round": 1, "group": 1, "board": 1,
            "deal": 0, "deal_hash": "ab" * 32, "rows": rows, "record": record}


@pytest.mark.parametrize("game", MATCH_GAMES)
def test_a_match_result_message_carries_the_match_record(game):
    board = _played_match(game)
    msg = _result_message(board.record())
    checked = wire.check_result(msg)
    assert rules.replay(game, checked["record"]).result() == board.result()
    broken = copy.deepcopy(msg)
    broken["record"]["deals"] = []
    with pytest.raises(wire.WireError):
        wire.check_result(broken)


# ---- a Guandan match through the real hub on pty links -------------------------------------


# A secret whose match, played by the registry's bot from every seat's view, has a double
# tribute in deal 2 and a 抗贡 (the payers hold both big jokers) in deal 3 (found by search:
# the bot is deterministic, so the same deals give the same play).
MATCH_SECRET = "text:guandan table test 2, long enough"
MATCH_RULES = "[rules]\nmax_deals = %d\n\n[deals]\nsecret = \"%s\"\nboards = \"1\"\n" + "".join(
    "\n[players.%s]\nid = \"P%d\"\nname = \"Player %d\"\n" % (s, i, i) for i, s in enumerate("ENWS"))


def match_rig(tmp_path, max_deals=3, **kw):
    clock = {"next_deal_seconds": 0.2}
    clock.update(kw.pop("clock", {}))
    return Rig(str(tmp_path), game="guandan", deals=False, extra=MATCH_RULES % (max_deals, MATCH_SECRET), clock=clock,
               players=False, **kw)


def board_over(rig):
    return bool(log_entries(rig.config.log, kind="result"))


async def play_match(rig, done, hold=lambda seat: False, timeout=90.0):
    """Every test seat answers its decisions with the registry's bot from its own view (as a
    person at a seat would) until ``done(rig)``; a seat for which ``hold(seat)`` is true waits."""
    bot = rules.game("guandan").new_bot()
    sent = {}
    deadline = time.monotonic() + timeout
    while not done(rig):
        if time.monotonic() > deadline:
            raise TimeoutError("the match did not get there within %.0f s" % timeout)
        for name, seat in rig.seats.items():
            v = seat.view
            if not (seat.online and seat.my_turn()) or hold(seat):
                continue
            n = (seat.state or {}).get("match", {}).get("deal")
            key = (n, v["phase"] if v["phase"] in ("tribute", "return") else seat.turn)  # one answer per decision
            if sent.get(name) != key:
                sent[name] = key
                seat.intent(intent_of(bot.choose(v)))
        await asyncio.sleep(0.01)


def hands_in(obj, seat=None):
    """The seats whose hand (``hand``, ``my_tribute``, ``my_return``) appears anywhere in ``obj``:
    the view's own seat, or "?" for a hand outside any view."""
    if isinstance(obj, dict):
        seat = obj.get("seat", seat) if "hand" in obj or "phase" in obj else seat
        for k, v in obj.items():
            if k in ("hand", "my_tribute", "my_return", "eligible"):
                yield seat if isinstance(seat, str) else "?"
            else:
                yield from hands_in(v, seat)
    elif isinstance(obj, list):
        for v in obj:
            yield from hands_in(v, seat)


def test_a_guandan_match_with_tribute_and_anti_tribute_is_played_deal_by_deal(tmp_path):
    async def main():
        rig = match_rig(tmp_path, clock={"scale": 0.2})
        snaps = []
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            assert rig.seats["E"].state["match"] == {"deal": 1, "deals_done": 0, "levels": {"EW": "2", "NS": "2"},
                                                     "playing": None, "max_deals": 3}

            def done(r):
                snap = r.table.snapshot()
                if not snaps or snaps[-1] != snap.get("match"):
                    snaps.append(snap.get("match"))
                return r.table.board is not None and r.table.board.over
            await play_match(rig, done)
            assert rig.table.internal_errors == 0
            assert not [k for k in rig.table.rejects if not k.startswith("port ")], rig.table.rejects
            final = rig.table.snapshot()
            for name, seat in rig.seats.items():  # privacy: a seat is only ever sent its own hand
                for frame in seat.frames:
                    assert set(hands_in(frame)) <= {name}, (name, frame.get("t"))
        finally:
            await rig.close()
        return rig, snaps, final

    rig, snaps, final = asyncio.run(asyncio.wait_for(main(), 120))
    entries = log_entries(rig.config.log)
    starts = [e.body for e in entries if e.kind == "deal_start"]
    ends = [e.body for e in entries if e.kind == "deal_end"]
    assert [b["n"] for b in starts] == [1, 2, 3] and [b["deal"] for b in starts] == [0, 0, 0]
    assert [b["n"] for b in ends] == [1, 2, 3]
    # deal 1 is the board's deal; the later deals are new deals of the same board
    assert len({b["deal_hash"] for b in starts}) == 3 and [b["deal_record"].get("deal", 1) for b in starts] == [1, 2, 3]
    assert ends[1]["result"]["tributes"] and len(ends[1]["result"]["tributes"]) == 2  # a double tribute
    assert ends[2]["result"]["anti_tribute"] is True  # 抗贡
    tribute_actions = [e.body["action"]["type"] for e in entries if e.kind == "action"]
    assert tribute_actions.count("tribute") == 2 and tribute_actions.count("return") == 2
    (result,) = [e.body for e in entries if e.kind == "result"]
    assert result["deal_hash"] == starts[0]["deal_hash"]
    board = rules.replay("guandan", result["record"])  # what the venue does with the board's record
    assert board.result() == result["result"] and board.result()["deals"] == 3
    # the live snapshot showed the match going on: the deal number and the levels as they moved
    assert [s["deal"] for s in snaps if s][:1] == [1] and max(s["deal"] for s in snaps if s) == 3
    assert final["match"]["over"] is True and final["match"]["levels"] == result["result"]["levels"]
    assert final["deals_done"] == 1 and final["game"] == "guandan"
    # the score rows come from the board's result: each seat's side's 场分
    rows = results_.result_rows(entries, rig.config)
    assert {r["seat"]: r["score"] for r in rows} == {
        s: result["result"]["changfen"]["EW" if s in "EW" else "NS"] for s in "ENWS"}
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)


DOWNTIME = 1.0  # seconds the hub stays dead


def all_see(phase, deal=2):
    """Every seat shows ``phase`` of deal ``deal`` of the match."""
    return lambda rig: all(s.view and s.view["phase"] == phase and (s.state or {}).get("match", {}).get("deal") == deal
                           for s in rig.seats.values())


async def kill_and_resume(rig):
    """SIGKILL the hub while a decision is open, start it again; returns (seats waiting, the
    time the first of them had left at the kill by its own countdown, the states after)."""
    await asyncio.sleep(0.5)  # the open decision's clock runs for a while
    seats = rig.seats
    waiting = sorted(s for s, seat in seats.items() if seat.my_turn())
    assert waiting
    probe = seats[waiting[0]]
    before = {s: (seat.turn, seat.view) for s, seat in seats.items()}
    welcomes = {s: seat.welcomes for s, seat in seats.items()}
    left_at_kill = probe.clock["ms"] - (time.monotonic() - probe.clock_at) * 1000
    rig.kill_hub(signal.SIGKILL)
    await asyncio.sleep(DOWNTIME)
    marks = {s: len(seat.frames) for s, seat in seats.items()}
    rig.spawn_hub()
    states = {}
    for s, seat in seats.items():
        await seat.wait_for(lambda seat=seat, s=s: seat.welcomes > welcomes[s] and seat.online, 20, "re-welcome")
        states[s] = await seat.wait_frame("state", marks[s], 10)
    for s, state in states.items():
        assert state["screen"] == "deal"
        assert (state["turn"], state["view"]) == before[s], s  # same deal, same phase, same turn, same view
    clock = states[waiting[0]]["clock"]
    assert sorted(clock["seats"]) == waiting and clock["paused"] is False
    return waiting, left_at_kill, states


def test_a_hub_killed_during_a_tribute_and_during_a_return_resumes_exactly(tmp_path):
    async def main():
        rig = match_rig(tmp_path, max_deals=2, clock={"scale": 0.5, "checkpoint_seconds": 0.2,
                                                      "restart_floor_seconds": 0})
        kills = []
        try:
            await rig.start_seats()
            rig.spawn_hub()
            await rig.all_online(timeout=20)
            in_phase = lambda phase: lambda seat: seat.view["phase"] == phase  # noqa: E731
            await play_match(rig, all_see("tribute"), hold=in_phase("tribute"))
            # deal 2 opens with a double tribute: one payer pays, the other is still deciding at the kill
            payers = sorted(s for s, seat in rig.seats.items() if seat.my_turn())
            assert len(payers) == 2
            turn = rig.seats[payers[0]].turn
            await play_match(rig, lambda r: all(s.turn == turn + 1 for s in r.seats.values()),
                             hold=lambda seat: seat.view["seat"] != payers[0])
            kills.append(await kill_and_resume(rig))
            assert kills[-1][0] == payers[1:] and kills[-1][2][payers[1]]["view"]["phase"] == "tribute"
            await play_match(rig, all_see("return"), hold=in_phase("return"))
            kills.append(await kill_and_resume(rig))
            assert len(kills[-1][0]) == 2 and kills[-1][2][kills[-1][0][0]]["view"]["phase"] == "return"
            await play_match(rig, board_over)
        finally:
            await rig.close()
        return rig, kills

    rig, kills = asyncio.run(asyncio.wait_for(main(), 150))
    log = log_entries(rig.config.log)
    kinds = [e.kind for e in log]
    assert kinds.count("hub_start") == 3 and kinds.count("result") == 1 and kinds.count("deal_end") == 2
    assert [e.body["resumed"] for e in log if e.kind == "hub_start"] == [None, 0, 0]
    restarts = [e.body for e in log if e.kind == "clock" and e.body["why"] == "restart"]
    assert [r["key"] for r in restarts] == ["2:tribute", "2:return"]  # one clock per simultaneous phase
    for r, (waiting, left_at_kill, _) in zip(restarts, kills):
        assert sorted(r["seats"]) == waiting
        # the time left when the hub died (checkpoints every 0.2 s); the downtime is not charged
        assert left_at_kill - 150 <= r["remaining_ms"] <= left_at_kill + 1000, (r, left_at_kill)
    per_deal = {}
    for e in log:
        if e.kind == "deal_start":
            per_deal[e.body["n"]] = []
        elif e.kind == "action":
            per_deal[max(per_deal)].append(e.body["turn"])
    assert all(turns == list(range(len(turns))) for turns in per_deal.values())  # nothing lost or doubled
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)


# ---- a venue round of matches ------------------------------------------------------------------

async def wait_until(pred, what, timeout=90.0):
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise TimeoutError(what)
        await asyncio.sleep(0.01)


# Board 50 of this secret's round 1: the registry's bot at every seat takes N-S up three levels
# a deal (2, 5, 8, J, A) and past A in the fifth (found by search: the bot is deterministic).
A_BOARD = 50


def test_a_venue_round_match_ends_by_the_a_rule_under_the_specs_rules_and_survives_a_restart(tmp_path):
    """A board that is a match under the spec's rules (max_deals 8); the hub restarted between
    two deals of the match derives the next deal from the round key it logged at the start; the
    match ends when a side passes A (过A), before the deal limit."""
    key = deals.round_key(SECRET, 1)
    hashes = {str(A_BOARD): deals.deal_from_round_key(key, "guandan", 1, A_BOARD, round=1).hash}
    opts = dict(rules.game("guandan").engine.Rules(max_deals=8).to_dict(), turn_seconds=30)

    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=tuple("ENWS"), bot_think_seconds=0.001, game="guandan",
                  clock={"next_deal_seconds": 0.05})
        try:
            table = await rig.start_hub()
            table.load_round(spec("guandan", rules=opts, boards=[A_BOARD], deal_hashes=hashes))
            table.start_round(1, key.hex())
            await wait_until(lambda: log_entries(rig.config.log, kind="deal_end"), "the match's first deal")
            await rig.stop_hub()
            table = await rig.start_hub()
            assert table.book.venue_round(1).key == key  # from the log's round_start
            await wait_until(lambda: log_entries(rig.config.log, kind="result"), "the match's end")
            await wait_until(lambda: table.screen == "waiting", "the round done")
            snap = table.snapshot()
        finally:
            await rig.close()
        return rig, snap

    rig, snap = asyncio.run(asyncio.wait_for(main(), 180))
    log = log_entries(rig.config.log)
    (start,) = [e.body for e in log if e.kind == "round_start"]
    assert start["key"] == key.hex()
    (rnd,) = [e.body for e in log if e.kind == "round"]
    assert rnd["rules"]["max_deals"] == 8 and rnd["rules"]["turn_seconds"] == 30
    starts = [e.body for e in log if e.kind == "deal_start"]
    assert [(b["deal"], b["n"], b["board"]) for b in starts] == [(0, n, A_BOARD) for n in range(1, 6)]
    ends = [e.body for e in log if e.kind == "deal_end"]
    assert [b["progress"]["levels"]["NS"] for b in ends] == ["5", "8", "J", "A", "A+"]
    assert [b["result"]["passed_a"] for b in ends] == [False] * 4 + [True]
    for b in starts:  # deal n of board b, from the round key
        want = deals.deal_from_round_key(key, "guandan", 1, b["board"], round=1, deal=b["n"])
        assert b["deal_hash"] == want.hash and b["engine"]["rules"]["turn_seconds"] == 30
    results = [e.body for e in log if e.kind == "result"]
    assert [r["deal_hash"] for r in results] == [hashes[str(A_BOARD)]]
    (res,) = [r["result"] for r in results]
    assert (res["winner"], res["levels"], res["deals"]) == ("NS", {"EW": "2", "NS": "A+"}, 5)
    assert res["changfen"] == {"NS": 2, "EW": 0} and res["jichafen"] == {"NS": 26, "EW": 0}
    # each result message as the uplink sends it passes the venue's check, and replays to its result
    builder = results_.ResultBuilder(rig.config)
    msgs = [m for m in (builder.feed(e) for e in log) if m is not None]
    assert len(msgs) == 1
    for n, m in enumerate(msgs, 1):
        body = dict({"v": 1, "kind": "result", "hub": "T07", "table": "7", "at": 0, "epoch": "0123456789abcdef",
                     "n": n}, **m)
        checked = wire.check_result(body)
        board = rules.replay("guandan", checked["record"])
        assert board.result() == res
        assert {r["seat"]: r["score"] for r in checked["rows"]} == {"E": 0, "W": 0, "N": 2, "S": 2}
    assert snap["deals_done"] == 1 and snap["match"]["over"] is True and snap["match"]["deals_done"] == 5
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)
    # a log whose start holds another round key (so other later deals) does not replay
    other = deals.round_key(SECRET, 2).hex()
    forged = [eventlog.Entry(e.rowid, e.table_id, e.seq, e.at_ms, e.kind, dict(e.body, key=other), e.prev_hash,
                             e.hash) if e.kind == "round_start" else e for e in log]
    with pytest.raises(history_.HistoryError, match="does not give its deals"):
        TableHistory.from_entries(forged)


# ---- any match log replays to the same result ---------------------------------------------------


def write_match_log(path, seed, max_deals, anti=False):
    """A match played by random legal choices, logged entry by entry in the documented format
    (hub/table/history.py: deal_start with n, action, deal_end, result with the board's record)."""
    import random
    g = rules.game("guandan")
    rnd = random.Random(seed)
    board = g.new_board(g.engine.Rules(max_deals=max_deals))
    key = deals.round_key(SECRET, 1)
    log = EventLog(str(path), "7")
    items = []
    while not board.over:
        rec = deals.deal_from_round_key(key, "guandan", 1, 1, round=1, deal=board.number)
        state = board.start(g.deal_for(rec))
        n = board.number
        items.append(("deal_start", {"deal": 0, "n": n, "board": 1, "deal_hash": rec.hash,
                                     "deal_record": rec.to_dict(), "engine": state.record()}))
        while state.phase != g.engine.OVER:
            seat = rnd.choice(state.to_act())
            legal = state.legal_actions(seat)
            action = rnd.choice(legal) if rnd.random() < 0.5 else legal[0]
            items.append(("action", {"deal": 0, "turn": len(state.actions), "action": action.to_dict(), "by": "seat"}))
            state.apply(action)
        res = board.finish(state)
        items.append(("deal_end", {"deal": 0, "n": n, "board": 1, "deal_hash": rec.hash, "result": res,
                                   "progress": board.progress()}))
    first = deals.deal_from_round_key(key, "guandan", 1, 1, round=1)
    items.append(("result", {"deal": 0, "board": 1, "deal_hash": first.hash, "result": board.result(),
                             "actions": sum(len(d["actions"]) for d in board.deals), "record": board.record()}))
    log.append_many(items)
    log.close()
    return board


@given(st.integers(0, 10 ** 6), st.integers(1, 3))
@settings(max_examples=6, deadline=None)
def test_any_match_log_replays_to_the_same_result(tmp_path_factory, seed, max_deals):
    path = tmp_path_factory.mktemp("m") / "t.sqlite"
    board = write_match_log(path, seed, max_deals)
    (d,) = TableHistory.from_entries(read_log(path)).deals
    assert d.finished and d.match.result() == board.result() and len(d.parts) == len(board.deals)
    assert rules.replay("guandan", board.record()).result() == board.result()
    report = audit(str(path))
    assert report.ok and report.deals == 1, str(report)


def read_log(path):
    db = eventlog.open_readonly(str(path))
    try:
        return eventlog.read_entries(db, "7")
    finally:
        db.close()


@given(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))
@settings(max_examples=8, deadline=None)
def test_a_match_log_with_an_entry_changed_never_passes_its_replay(tmp_path_factory, seed, pick):
    """A change to a deal's start, an action, a deal's end or the result is a FAIL line or a
    history error naming the entry: never a traceback, never a passing replay."""
    path = tmp_path_factory.mktemp("m") / "t.sqlite"
    write_match_log(path, seed, 2)
    entries = read_log(path)
    e = entries[pick % len(entries)]
    body = copy.deepcopy(e.body)
    if e.kind == "action":
        body["turn"] += 1
    elif e.kind == "deal_start":
        body["n"] = 3 - body["n"]  # the two deals swapped
    elif e.kind == "deal_end":
        body["n"] += 1
    else:
        body["result"]["scores"]["E"] += 1
    changed = [x if x is not e else eventlog.Entry(x.rowid, x.table_id, x.seq, x.at_ms, x.kind, body, x.prev_hash,
                                                   x.hash) for x in entries]
    report = history_.AuditReport()
    try:
        history_._replay(report, "7", changed)
    except history_.HistoryError as err:
        assert "entry %d" % e.seq in err.en or err.seq is not None
    else:
        assert not report.ok, str(report)


# ---- the seat link carries every game's intents ----------------------------------------------


@pytest.mark.parametrize("a", [{"type": "tribute", "cards": ["RJ"]}, {"type": "return", "cards": ["3D"]},
                               {"type": "play", "cards": ["3H", "4D", "5D", "6D", "7D"], "meaning": "straight:7"},
                               {"type": "play", "cards": ["3D"]}, {"type": "show", "yes": True}])
def test_the_seat_link_takes_every_games_intents(a):
    link.check_message({"t": "intent", "s": 1, "turn": 0, "a": a}, "seat")


@pytest.mark.parametrize("a", [{"type": "pass", "meaning": "single:3"}, {"type": "tribute", "cards": ["RJ"], "meaning": "x"},
                               {"type": "play", "cards": ["3D"], "meaning": 7}, {"type": "return"},
                               {"type": "play", "cards": ["3D"], "meaning": "m" * 40}])
def test_the_seat_link_refuses_a_malformed_intent_in_both_languages(a):
    with pytest.raises(link.LinkError) as e:
        link.check_message({"t": "intent", "s": 1, "turn": 0, "a": a}, "seat")
    assert e.value.code == "bad_message" and e.value.zh


# ---- the simulated table: the `paizhuo hub` process, any game ----------------------------------

def test_the_simulated_table_plays_matches_with_the_hubs_bot_at_every_seat(tmp_path):
    import subprocess
    import sys
    from paizhuo.sim.table import SimTable
    with SimTable(tmp_path, boards="1-2", game="guandan", bots="ENWS", rules={"max_deals": 1},
                  clock={"next_deal_seconds": 0.1}, bot_think_seconds=0) as table:
        table.start()
        h = table.play(timeout=60)
    assert [(d.index, d.board, len(d.parts)) for d in h.played] == [(0, 1, 1), (1, 2, 1)]  # board after board
    for d in h.played:
        assert d.result["result"] == d.match.result() and d.result["record"]["match"] is True
    out = subprocess.run([sys.executable, "-m", "paizhuo.cli", "hub", "verify", "--log", str(table.log_path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "result matches the replay" in out.stdout, out.stdout + out.stderr


def test_clock_defaults_and_the_registrys_bot_play_a_match_when_seats_do_not(tmp_path):
    """S never connects: after the grace period the registry's bot plays it (托管, marked auto).
    The others never give their tribute or return: the clock runs out and the engine's default
    action is applied (the largest eligible card; the smallest eligible return)."""
    async def main():
        rig = match_rig(tmp_path, max_deals=2, seats=("E", "N", "W"), clock={"scale": 0.05, "grace_seconds": 0.3})
        snaps = []
        try:
            await rig.start_seats()
            await rig.start_hub(on_change=lambda: snaps.append(rig.table.snapshot()))
            await play_match(rig, board_over, hold=lambda seat: seat.view["phase"] in ("tribute", "return"))
        finally:
            await rig.close()
        return rig, snaps

    rig, snaps = asyncio.run(asyncio.wait_for(main(), 120))
    log = log_entries(rig.config.log)
    acts = [e.body for e in log if e.kind == "action"]
    assert acts and all(a["by"] == "bot" and a["action"]["auto"] for a in acts if a["action"]["seat"] == "S")
    g = rules.game("guandan")
    replayed = {}
    for e in log:  # each clock's tribute or return is what the engine's default_action says
        if e.kind == "deal_start":
            state = g.state.from_record(e.body["engine"])
        elif e.kind == "action":
            a = e.body["action"]
            if a["type"] in ("tribute", "return") and a["seat"] != "S":
                assert e.body["by"] == "clock" and a["auto"] is True
                assert g.engine.Action.from_dict(a) == state.default_action(a["seat"])
                replayed[a["type"]] = replayed.get(a["type"], 0) + 1
            state.apply(g.engine.Action.from_dict(a))
    assert replayed.get("tribute") and replayed.get("return")
    for snap in snaps:  # every live snapshot of the match passes the venue's check
        wire.check_live(snap)
    assert any(s.get("match") and s["match"]["deal"] == 2 for s in snaps)
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)


def test_a_round_specs_rules_are_checked_by_the_hub_and_refused_whole_in_both_languages(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=tuple("ENWS"), game="guandan")
        try:
            table = await rig.start_hub()
            before = len(log_entries(rig.config.log))
            for bad in ({"max_deals": 0}, {"no_such_option": True}, [1]):
                with pytest.raises(Exception) as e:
                    table.load_round(spec("guandan", rules=bad))
                assert e.value.code == "bad_round" and "rules" in e.value.en and "规则" in e.value.zh
            assert len(log_entries(rig.config.log)) == before and table.plan == []  # nothing changed
            assert table.load_round(spec("guandan", rules={"max_deals": 4})) is True
        finally:
            await rig.close()
        return rig

    rig = asyncio.run(asyncio.wait_for(main(), 60))
    (rnd,) = log_entries(rig.config.log, kind="round")
    # logged whole: every option by name, the ones the spec left out at their defaults
    assert rnd.body["rules"] == rules.game("guandan").engine.Rules(max_deals=4).to_dict()


def test_a_one_deal_games_log_keeps_its_shape(tmp_path):
    """Big Two's entries have exactly the fields they always had: no deal numbers, no deal_end,
    no board record (the format changes only where a match needs it)."""
    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=tuple("ENWS"), bot_think_seconds=0.001,
                  clock={"next_deal_seconds": 0.05})
        try:
            table = await rig.start_hub()
            table.load_round(spec(rules.DEFAULT_GAME, boards=[1], deal_hashes={"1": spec(rules.DEFAULT_GAME)[
                "deal_hashes"]["1"]}))
            table.start_round(1, deals.round_key(SECRET, 1).hex())
            await wait_until(lambda: log_entries(rig.config.log, kind="result"), "the deal's end")
        finally:
            await rig.close()
        return rig

    rig = asyncio.run(asyncio.wait_for(main(), 60))
    log = log_entries(rig.config.log)
    fields = {}
    for e in log:
        fields.setdefault(e.kind, set()).update(e.body)
    assert "deal_end" not in fields
    assert fields["deal_start"] == {"deal", "board", "deal_hash", "deal_record", "engine"}
    assert fields["result"] == {"deal", "board", "deal_hash", "result", "actions"}
    assert fields["round"] == {"id", "round", "group", "game", "table", "boards", "deal_hashes", "players", "moves",
                               "start"}
    assert fields["round_start"] == {"round", "id", "deals"}
    keys = {e.body["key"] for e in log if e.kind == "clock"}
    assert all(k == "show" or (k[0] == "t" and k[1:].isdigit()) for k in keys)
    (start,) = [e.body for e in log if e.kind == "deal_start"]
    assert "deal" not in start["deal_record"] and set(start["engine"]) == {"game", "rules", "deal", "actions"}


def test_a_log_that_cannot_take_a_deals_last_action_leaves_the_match_as_it_was(tmp_path):
    """The action that ends a match's deal is refused log_failed when the log cannot be written:
    the deal, the match's levels and its finished deals stay as the log has them (the match
    is not over); once the log is writable the same action ends the deal, and the match."""
    import sqlite3
    g = rules.game("guandan")
    bot = g.new_bot()

    def ends_the_deal(rig):
        game = rig.table.game
        if game is None or game.phase != "play" or rig.table.screen != "deal":
            return False
        trial = copy.deepcopy(game)
        seat = trial.to_act()[0]
        trial.apply(bot.choose(trial.view(seat)))
        return trial.phase == g.engine.OVER and rig.seats[seat].turn == len(game.actions)

    async def main():
        rig = match_rig(tmp_path, max_deals=1, clock={"scale": 0.5})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await play_match(rig, ends_the_deal)
            table = rig.table
            seat = table.game.to_act()[0]
            S = rig.seats[seat]
            before = (table.game.snapshot(), table.board.progress(), len(table.board.deals))
            blocker = sqlite3.connect(rig.config.log, isolation_level=None)
            blocker.execute("BEGIN IMMEDIATE")  # another writer holds the log: every write fails
            try:
                n = len(S.frames)
                S.intent(intent_of(bot.choose(S.view)))
                await S.wait_for(lambda: any(m["t"] == "reject" for m in S.frames[n:]), 10, "a reject")
                assert [m["code"] for m in S.frames[n:] if m["t"] == "reject"] == ["log_failed"]
                assert (table.game.snapshot(), table.board.progress(), len(table.board.deals)) == before
                assert table.board.current is table.game and table.screen == "deal" and not table.board.over
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
            S.intent(intent_of(bot.choose(S.view)))
            await play_match(rig, lambda r: r.table.board is not None and r.table.board.over)
            assert table.internal_errors == 0
        finally:
            await rig.close()
        return rig

    rig = asyncio.run(asyncio.wait_for(main(), 120))
    log = log_entries(rig.config.log)
    assert [e.body["n"] for e in log if e.kind == "deal_end"] == [1] and [e.kind for e in log].count("result") == 1
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)
