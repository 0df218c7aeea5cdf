"""A three-seat game at the table hub: three boards, one clock for every seat asked at once,
and nobody told who else is asked (RULES.md Paohuzi: "nobody learns who could have claimed").

The game is the registry's three-seat game, found by its seats (``rules.game(g).seats``); the
hub names none.  A claim on a card out is a simultaneous decision (the engine's
``SIMULTANEOUS``): the hub runs one clock for the seats asked, a claim that follows a claim at
once (nobody took the card, the next one is out) gets a clock of its own, an answer that
settles nothing is told to its own seat only, and the live snapshot shows no one's claim.
"""

import asyncio
import signal
import time

from paizhuo import rules
from paizhuo.mqtt import wire
from paizhuo.table.history import audit

from table_seat import Rig, log_entries, play_deal

THREE = [g for g in sorted(rules.GAMES) if len(rules.game(g).seats) == 3 and rules.game(g).at_table][0]
G = rules.game(THREE)
SIM = G.engine.SIMULTANEOUS


def bots(seed=0):
    return {s: G.new_bot(seed=seed + i) for i, s in enumerate(G.seats)}


def replay_log(log):
    """(state, events, phase before, clock in force) for each logged action of the log's deals,
    replayed through the engine, with each deal's clock entries: what the hub did, checked."""
    out = []
    state = clock = None
    for e in log:
        if e.kind == "deal_start":
            state = G.state.from_record(e.body["engine"])
        elif e.kind == "clock":
            clock = e.body
        elif e.kind == "action":
            phase, asked = state.phase, state.to_act()
            events = state.apply(G.engine.Action.from_dict(e.body["action"]))
            out.append({"entry": e, "phase": phase, "asked": asked, "events": events, "clock": clock,
                        "after": state.phase, "to_act": state.to_act()})
    return out


def test_a_three_seat_deal_runs_one_clock_per_claim_and_tells_no_one_who_else_is_asked(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), game=THREE, boards="1")
        snaps, lengths = [], []

        def changed():
            snaps.append(rig.table.snapshot())
            lengths.append((rig.table.deal_index, len(rig.table.game.actions)) if rig.table.game else None)
        try:
            assert sorted(rig.seats) == sorted(G.seats)  # three boards, no S
            await rig.start_seats()
            await rig.start_hub(on_change=changed)
            await rig.all_online()
            await play_deal(rig, bots=bots())
        finally:
            await rig.close()
        return rig, snaps, lengths

    rig, snaps, lengths = asyncio.run(asyncio.wait_for(main(), 60))
    log = log_entries(rig.config.log)
    steps = replay_log(log)
    assert steps and any(s["phase"] in SIM for s in steps)
    # One clock per simultaneous decision: started when it is prompted for every seat asked, kept
    # while they answer; a claim right after a claim starts its own.
    starts = [e.body for e in log if e.kind == "clock" and e.body["why"] == "start"]
    for s in steps:
        if s["after"] in SIM and s["to_act"]:
            fresh = s["phase"] not in SIM or s["entry"].body["action"]["seat"] in s["to_act"] or \
                not set(s["to_act"]) <= set(s["asked"])
            c = [b for b in starts if (b["deal"], b["turn"]) == (s["entry"].body["deal"], s["entry"].body["turn"] + 1)]
            if fresh:
                assert len(c) == 1 and c[0]["seats"] == list(s["to_act"]) and c[0]["key"] == s["after"], s
            else:
                assert not c, s  # the same decision: the same clock runs on
    assert any(len(b["seats"]) >= 2 for b in starts if b["key"] in SIM)
    # An answer that settles nothing is told to its own seat only; a seat is never told who else
    # is asked (its clock's seats and to_act are itself or no one).
    hidden = {s: sum(1 for x in steps if not x["events"] and x["entry"].body["action"]["seat"] == s) for s in G.seats}
    assert sum(hidden.values()) > 0
    # nor does a hidden answer make a live snapshot (its timing would tell): none is taken just after one
    after_hidden = {(s["entry"].body["deal"], s["entry"].body["turn"] + 1) for s in steps if not s["events"]}
    assert not after_hidden & set(lengths)
    for name, seat in rig.seats.items():
        told = [m for m in seat.frames if m["t"] == "event" and not m["events"]]
        assert len(told) == hidden[name], name
        for m in seat.frames:
            if m["t"] in ("event", "state") and m.get("view") and m["view"]["phase"] in SIM:
                assert set(m["view"]["to_act"]) <= {name} and set(m["clock"]["seats"]) <= {name}, m
    # The live snapshot (venue and referees) shows no claim either: no one to act, no clock seats,
    # no answers listed, the turn the claim was prompted at; and it passes the venue's check.
    claims = [sn for sn in snaps if sn["screen"] == "deal" and sn["clock"] and sn["turn"] is not None
              and sn["to_act"] == [] and sn["clock"]["seats"] == []]
    assert claims
    for sn in snaps:
        wire.check_live(sn)
        assert all(p["type"] != "pass" for p in sn["plays"])
        assert set(sn["seats"]) == set(G.seats)
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)


def test_a_claim_nobody_answers_is_declined_for_every_asked_seat_when_its_one_clock_runs_out(tmp_path):
    """The seats discard but never answer a claim: each claim's clock runs out once, and the
    engine's default (pass) is applied for every seat asked, at the same clock, marked auto."""
    async def main():
        rig = Rig(str(tmp_path), game=THREE, boards="1", clock={"scale": 0.02})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            b = bots()
            deadline = time.monotonic() + 60
            while not all(s.results for s in rig.seats.values()):
                assert time.monotonic() < deadline, "the deal did not end"
                for name, seat in rig.seats.items():
                    v = seat.view
                    if seat.my_turn() and v["phase"] not in SIM and getattr(seat, "_sent", None) != seat.turn:
                        seat._sent = seat.turn
                        a = b[name].choose(v, None).to_dict()
                        seat.intent({k: a[k] for k in a if k != "seat"})
                await asyncio.sleep(0.01)
        finally:
            await rig.close()
        return rig

    rig = asyncio.run(asyncio.wait_for(main(), 90))
    steps = replay_log(log_entries(rig.config.log))
    claims = [s for s in steps if s["phase"] in SIM]
    # no clock_expiry alert for a claim: it would tell the referees who was asked
    assert not [a for a in rig.alerts if a["kind"] == "clock_expiry"]
    assert claims and all(s["entry"].body["by"] == "clock" and s["entry"].body["action"]["auto"] for s in claims)
    assert all(s["entry"].body["action"]["type"] == "pass" for s in claims)
    # the seats of one claim are declined one after the other at its one expiry, in one clock's time
    by_clock = {}
    for s in claims:
        by_clock.setdefault(s["clock"]["turn"], []).append(s["entry"].body["action"]["seat"])
    assert any(len(v) >= 2 for v in by_clock.values())
    for turn, seats in by_clock.items():
        start = [s for s in steps if s["entry"].body["turn"] == turn][0]
        assert sorted(seats) == sorted(start["asked"])


def test_a_hub_killed_during_a_claim_decision_resumes_it_exactly(tmp_path):
    """Two seats are asked about a card; one answers (过), then the hub is SIGKILLed.  The
    restarted hub resumes the same claim: the same turn and view on every seat, the claim's one
    clock for the seat still asked with the time it had left, and the other's answer counts."""
    async def main():
        rig = Rig(str(tmp_path), game=THREE, boards="1", clock={"checkpoint_seconds": 0.2, "restart_floor_seconds": 0})
        b = bots()
        try:
            await rig.start_seats()
            rig.spawn_hub()
            await rig.all_online(timeout=20)
            sent = {}
            deadline = time.monotonic() + 60
            while True:  # play until a claim asks two seats at once, then one of them passes
                assert time.monotonic() < deadline and not any(s.results for s in rig.seats.values()), \
                    "no claim asked two seats"
                clocks = log_entries(rig.config.log, kind="clock")
                asked = [s for s, seat in rig.seats.items() if seat.my_turn() and seat.view["phase"] in SIM]
                last = clocks[-1].body if clocks else None
                if last and last["key"] in SIM and len(last["seats"]) >= 2 and sorted(asked) == sorted(last["seats"]) \
                        and all(rig.seats[s].turn == last["turn"] for s in asked):
                    break
                for name, seat in rig.seats.items():
                    if seat.my_turn() and sent.get(name) != (seat.turn, seat.view["phase"]) and not (
                            seat.view["phase"] in SIM and last and len(last["seats"]) >= 2):
                        sent[name] = (seat.turn, seat.view["phase"])
                        a = b[name].choose(seat.view, None).to_dict()
                        seat.intent({k: a[k] for k in a if k != "seat"})
                await asyncio.sleep(0.05)
            first, other = last["seats"][0], last["seats"][1:]
            seats = rig.seats
            n_actions = len(log_entries(rig.config.log, kind="action"))
            seats[first].intent({"type": "pass"})
            while len(log_entries(rig.config.log, kind="action")) == n_actions:
                await asyncio.sleep(0.02)
            await seats[first].wait_for(lambda: not seats[first].my_turn(), 10, "the pass told back")
            await asyncio.sleep(0.8)  # the claim's clock runs on for the others
            before = {s: (seat.turn, seat.view) for s, seat in seats.items()}
            probe = seats[other[0]]
            left_at_kill = probe.clock["ms"] - (time.monotonic() - probe.clock_at) * 1000
            welcomes = {s: seat.welcomes for s, seat in seats.items()}
            rig.kill_hub(signal.SIGKILL)
            await asyncio.sleep(1.0)
            marks = {s: len(seat.frames) for s, seat in seats.items()}
            rig.spawn_hub()
            states = {}
            for s, seat in seats.items():
                await seat.wait_for(lambda seat=seat, s=s: seat.welcomes > welcomes[s] and seat.online, 20, "re-welcome")
                states[s] = await seat.wait_frame("state", marks[s], 10)
            await play_deal(rig, bots=bots())
        finally:
            await rig.close()
        return rig, last, first, other, before, states, left_at_kill

    rig, last, first, other, before, states, left_at_kill = asyncio.run(asyncio.wait_for(main(), 150))
    for s, state in states.items():
        assert state["screen"] == "deal" and (state["turn"], state["view"]) == before[s], s
        assert state["clock"]["seats"] == ([s] if s in other else []), s
    log = log_entries(rig.config.log)
    restart = [e.body for e in log if e.kind == "clock" and e.body["why"] == "restart"]
    assert len(restart) == 1
    assert (restart[0]["key"], restart[0]["turn"], restart[0]["seats"]) == (last["key"], last["turn"], other)
    assert left_at_kill - 150 <= restart[0]["remaining_ms"] <= left_at_kill + 1000, (restart, left_at_kill)
    # the others' answers after the restart belong to the same claim: no new clock until it is settled
    steps = replay_log(log)
    at = [x for x in steps if x["entry"].body["turn"] == last["turn"] + 1]
    assert at and at[0]["clock"]["why"] == "restart" and at[0]["phase"] in SIM
    turns = [e.body["turn"] for e in log if e.kind == "action"]
    assert turns == list(range(len(turns)))
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)


def test_three_seats_check_in_for_a_venue_round_and_a_fourth_seat_is_refused(tmp_path):
    """A venue round of the three-seat game: the spec seats E, N, W (a spec with S is refused),
    the three players type their numbers, the hub says "3 of 3 seats checked in", the deal runs."""
    from table_seat import PLAYERS, check_in_all, round_key, round_spec
    from paizhuo.table.runtime import TableError

    async def main():
        rig = Rig(str(tmp_path), game=THREE, venue=True)
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            four = round_spec(1, boards=[1], game=THREE, players=dict(PLAYERS))
            try:
                table.load_round(four)
                raise AssertionError("a spec seating S was taken")
            except TableError as e:
                refused = e
            table.load_round(round_spec(1, boards=[1], game=THREE))
            table.start_round(1, round_key(1))
            lines = [table.describe()]
            await check_in_all(rig, players={s: PLAYERS[s] for s in G.seats})
            await rig.all_online(screen="deal")
            lines.append(table.describe())
            snap = table.snapshot()
        finally:
            await rig.close()
        return refused, lines, snap

    refused, lines, snap = asyncio.run(asyncio.wait_for(main(), 30))
    assert refused.code == "bad_round" and "each seat E, N, W" in refused.en and "S" not in refused.en.split("seat")[-1], refused.en
    assert "of 3 seats checked in" in lines[0] and lines[1].startswith("deal 1 of 1")
    assert sorted(snap["seats"]) == sorted(G.seats) and all(v["checked"] for v in snap["seats"].values())


def test_a_three_seat_table_toml_takes_inline_deals_with_the_turned_up_card_and_the_stock():
    from paizhuo import deals
    from paizhuo.table import config
    rec = deals.deal(b"three seat inline deals, long enough", THREE, 1, 1, 1)
    text = config.EXAMPLE.replace('game = "%s"' % rules.DEFAULT_GAME, 'game = "%s"' % THREE).replace(
        'seat = "S"', 'seat = "spare"')
    head = text[:text.index("[deals]")]
    item = ["[[deals.inline]]", "board = 1"] + ['%s = "%s"' % (s, " ".join(rec.hands[s])) for s in G.seats]
    stock = 'stock = "%s"' % " ".join(rec.extra["stock"])
    good = head + "\n".join(["[deals]"] + item + ['shown = "%s"' % rec.extra["shown"], stock]) + "\n"
    cfg = config.load_text(good, "t.toml")
    assert cfg.deals.records[0].hash == rec.hash  # the same deal as the generator's
    for bad, words in ((good.replace(stock + "\n", ""), "stock"),
                       (good.replace('board = 1', 'board = 1\nS = "x1"'), "board and E, N, W, shown, stock")):
        try:
            config.load_text(bad, "t.toml")
            raise AssertionError("taken: %s" % words)
        except config.ConfigError as e:
            assert words in e.en and e.zh, e.en
