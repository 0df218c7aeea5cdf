"""The table hub over real pty links with CPython test seats speaking the link contract.

Each test runs the hub in this process (a ``Table`` task in the test's event loop) with
four ``socat`` pty pairs and real SQLite; the SIGKILL test (test_table_crash.py) runs it as
a ``paizhuo hub`` subprocess.
"""

import asyncio

import pytest

from paizhuo.rules.bigtwo import BigTwo
from paizhuo.table.history import audit
from paizhuo_shared import link

from table_seat import (DEAL, DEVICES, KEYS, Rig, TestSeat, card_strings, log_entries, play_deal, play_until,
                        random_bytes)
from paizhuo.bots.bigtwo import BigTwoBot


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


def logged_actions(path):
    return [e.body for e in log_entries(path) if e.kind == "action"]


def replay_scores(path):
    entries = log_entries(path)
    start = next(e for e in entries if e.kind == "deal_start").body
    record = dict(start["engine"], actions=[e.body["action"] for e in entries if e.kind == "action"])
    return BigTwo.from_record(record).result().scores


# ---- a complete deal -----------------------------------------------------------------------

def test_a_complete_deal_over_pty_links_matches_the_replay_of_the_log(tmp_path):
    async def main():
        # Ports listed S, W, N, E in the configuration: seats come from device ids, not port order.
        rig = Rig(str(tmp_path), order=("S", "W", "N", "E"))
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            for s, seat in rig.seats.items():
                assert seat.welcome["seat"] == s and seat.welcome["table"] == "7" and seat.welcome["lang"] == "zh"
                assert seat.state["screen"] == "deal" and seat.view["hand"] == rig.table.game.view(s)["hand"]
            assert rig.seats["E"].welcome["player"] == {"id": "P001", "name": "张三"}
            assert rig.seats["N"].welcome["player"] is None
            await play_deal(rig)
            final = rig.table.game.result().to_dict()
            # No intent or in-session frame was refused.  (Before a session, a hello torn by the
            # port opening mid-line may be refused as not_frame: that counts against the port.)
            assert rig.table.internal_errors == 0
            assert not [k for k in rig.table.rejects if not k.startswith("port ")], rig.table.rejects
        finally:
            await rig.close()
        return rig, final

    rig, final = run(main())
    scores = replay_scores(rig.config.log)
    assert scores == final["scores"]
    for s, seat in rig.seats.items():
        assert seat.result["scores"] == scores  # what each seat was told
        assert seat.result["think_ms"] == final["think_ms"]
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)
    ports = {e.body["seat"]: e.body["port"] for e in log_entries(rig.config.log) if e.kind == "seat"}
    assert all(ports[s].endswith("/%s.hub" % s) for s in "ENWS")


# ---- privacy -------------------------------------------------------------------------------

class ShowingBot(BigTwoBot):
    """The bot, except that its 明牌 choice is fixed (``shows``) — so the reveal is exercised."""

    def __init__(self, seed, shows):
        super().__init__(seed)
        self.shows = shows

    def choose(self, view, legal):
        if legal[0].type == "show":
            return [a for a in legal if a.yes == self.shows][0]
        return super().choose(view, legal)


def test_no_seat_ever_receives_another_seats_unshown_cards(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            bots = {s: ShowingBot(i, s == "N") for i, s in enumerate("ENWS")}
            # A seat also reconnects mid-deal: its full state must be as private as its events.
            await play_deal_with_resync(rig, bots)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    actions = [a["action"] for a in logged_actions(rig.config.log)]
    hands = {s: set(DEAL[s].split()) for s in "ENWS"}
    showers = {a["seat"] for a in actions[:4] if a["yes"]}
    assert showers == {"N"}
    checked = 0
    for s, seat in rig.seats.items():
        for msg in seat.frames:
            if msg["t"] == "result" or (msg["t"] in ("state", "event") and msg["view"] and msg["view"]["phase"] == "over"):
                continue  # the deal is over: the result lists every hand
            turn = msg.get("turn")
            if msg["t"] in ("state", "event") and turn is None:
                assert not set(card_strings(msg)), msg
                continue
            allowed = set(hands[s])
            if turn is not None:
                for a in actions[:turn]:
                    allowed |= set(a.get("cards", ()))
                if turn >= 4:  # every 明牌 decision made: shown hands are public
                    for w in showers:
                        allowed |= hands[w]
            seen = set(card_strings(msg))
            assert seen <= allowed, (s, msg["t"], turn, sorted(seen - allowed))
            checked += 1
            if msg["t"] in ("state", "event"):
                assert msg["view"]["seat"] == s and set(msg["view"]["hand"]) <= hands[s]
    assert checked > 100
    # Before the reveal, nobody but N was sent N's cards.
    for s in "EWS":
        early = [m for m in rig.seats[s].frames if m["t"] in ("state", "event") and (m["turn"] or 0) < 4]
        assert early and not any(set(card_strings(m)) & hands["N"] for m in early)


async def play_deal_with_resync(rig, bots):
    """Play with the bots; seat W asks for a resync on each of its turns."""
    seat = rig.seats["W"]
    original = seat.intent

    def intent(a, turn=None):
        seat.send({"t": "resync"})
        return original(a, turn)

    seat.intent = intent
    await play_deal(rig, bots=bots)


# ---- clocks ------------------------------------------------------------------------------

def test_clock_expiry_applies_the_default_action_marked_auto_at_every_phase(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL], clock={"scale": 0.02, "grace_seconds": 600})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            # Nobody answers: show, double, the first lead, three follows, and the next lead expire.
            await rig.seats["E"].wait_for(lambda: (rig.seats["E"].turn or 0) >= 13, 30, "13 expired decisions")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    acts = logged_actions(rig.config.log)[:13]
    limits = {"show": 300, "double": 300, "play": 500, "pass": 500}  # 15 s, 15 s, 25 s at scale 0.02
    for body in acts:
        a = body["action"]
        assert a["auto"] is True and body["by"] == "clock", body
        assert a["think_ms"] == limits[a["type"]], body
    assert [(b["action"]["type"], b["action"]["seat"], b["action"].get("yes")) for b in acts[:8]] == \
        [("show", s, False) for s in "ENWS"] + [("double", s, False) for s in "ENWS"]
    assert acts[8]["action"] == {"type": "play", "seat": "E", "cards": ["3D"], "auto": True, "think_ms": 500}  # 首攻: smallest
    assert [b["action"]["type"] for b in acts[9:12]] == ["pass"] * 3  # following: pass
    assert acts[12]["action"]["cards"] == ["3C"]  # leading again: the smallest single left (3C < 4D)
    clocks = [e.body for e in log_entries(rig.config.log) if e.kind == "clock"]
    assert clocks[0]["seats"] == ["E", "N", "W", "S"] and clocks[0]["limit_ms"] == 300  # one 明牌 clock for all
    assert clocks[1]["key"] == "t4" and clocks[1]["seats"] == ["E"]


def test_a_seat_that_never_comes_is_played_by_the_bot_after_the_grace_period(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), seats=("E", "N", "W"), clock={"grace_seconds": 0.3})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await play_deal(rig)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    acts = logged_actions(rig.config.log)
    south = [b for b in acts if b["action"]["seat"] == "S"]
    assert south and all(b["by"] == "bot" and b["action"]["auto"] for b in south)
    assert all(b["by"] == "seat" and not b["action"].get("auto") for b in acts if b["action"]["seat"] != "S")
    result = next(e.body for e in log_entries(rig.config.log) if e.kind == "result")["result"]
    assert result["auto_moves"] == {"E": 0, "N": 0, "W": 0, "S": len(south)}
    assert audit(rig.config.log).ok


# ---- dropping and coming back --------------------------------------------------------------

def test_a_pulled_link_comes_back_with_the_full_state(tmp_path):
    async def main():
        rig = Rig(str(tmp_path))
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await play_until(rig, 12)
            await rig.seats["N"].stop()
            rig.links["N"].close()  # the cable is pulled: the hub sees the port fail
            await wait_until(lambda: rig.table.seat_conn["N"] is None, "N offline")
            from paizhuo.sim.links import PtyLink
            rig.links["N"] = PtyLink(str(tmp_path), "N")  # plugged in again
            seat = rig.seats["N"] = TestSeat(rig.links["N"].seat_path, DEVICES["N"], KEYS["N"])
            await seat.start()
            await seat.wait_for(lambda: seat.online and seat.state is not None, 10, "welcome and state")
            want = rig.table.game.view("N")
            assert seat.state["screen"] == "deal" and seat.view == want
            assert seat.turn == len(rig.table.game.actions)
            if "N" in rig.table.game.to_act():
                assert seat.state["clock"]["seats"] == ["N"] and 0 < seat.state["clock"]["ms"] <= 25000
            await play_deal(rig)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    seat_log = [e.body for e in log_entries(rig.config.log) if e.kind == "seat" and e.body["seat"] == "N"]
    assert [b["online"] for b in seat_log] == [True, False, True]
    assert seat_log[1]["reason"] == "link closed"
    assert audit(rig.config.log).ok


def test_a_silent_seat_goes_offline_and_its_next_hello_restores_it(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), clock={"offline_seconds": 1})
        try:
            for s in rig.seats.values():
                s.heartbeat = 0.1
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            seat = rig.seats["W"]
            seat.heartbeat = 0
            seat.auto_hello = False  # the board hangs: no acks, no hellos
            before = len(seat.frames)
            await seat.wait_frame("challenge", before, 5)  # the hub gave up on the session
            assert rig.table.seat_conn["W"] is None
            seat.session = None
            seat.auto_hello = True
            seat.heartbeat = 0.1
            await seat.wait_for(lambda: seat.online and seat.welcomes == 2, 5, "a second welcome")
            state = await seat.wait_frame("state", before, 5)
            assert state["view"] == rig.table.game.view("W") and state["turn"] == 0
        finally:
            await rig.close()
        return rig

    rig = run(main())
    seat_log = [e.body for e in log_entries(rig.config.log) if e.kind == "seat" and e.body["seat"] == "W"]
    assert [b["online"] for b in seat_log] == [True, False, True]
    assert seat_log[1]["reason"].startswith("silent for")


async def wait_until(pred, what, timeout=10.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)


# ---- hostile input -------------------------------------------------------------------------

def sealed_with(seat, msg, s):
    """A frame under the seat's session key with an arbitrary sequence number."""
    body = dict(msg, s=s)
    return link.encode(body, seat.session_key)


async def expect_reject(rig, seat, send, code, what):
    """Send something hostile; the hub answers ``reject code`` and nothing in the game changes."""
    table = rig.table
    before = table.game.snapshot()
    n_log = table.log.last_seq
    n = len(seat.frames)
    send()
    await seat.wait_for(lambda: any(m["t"] == "reject" for m in seat.frames[n:]), 5, "a reject for " + what)
    got = [m for m in seat.frames[n:] if m["t"] == "reject"]
    assert got[0]["code"] == code, (what, got)
    assert got[0]["en"] and got[0]["zh"]
    await asyncio.sleep(0.05)
    assert table.game.snapshot() == before, what
    assert [e.kind for e in log_entries(rig.config.log)[n_log:] if e.kind in ("action", "result")] == [], what
    await seat.wait_for(lambda: seat.online, 5, "back in session after " + what)
    return got


async def expect_dropped(rig, seat, send, code, what):
    """Send something no one can authenticate: counted as ``code``, never answered; the
    session (no new welcome) and the game stay as they were."""
    table = rig.table
    before = table.game.snapshot()
    n, welcomes = len(seat.frames), seat.welcomes
    who = rig.config.device(seat.dev).seat
    counted = table.rejects.get(who, {}).get(code, 0)
    send()
    await wait_until(lambda: table.rejects.get(who, {}).get(code, 0) > counted, "%s counted" % what)
    await asyncio.sleep(0.1)
    assert [m["t"] for m in seat.frames[n:] if m["t"] in ("reject", "challenge", "welcome")] == [], what
    assert seat.welcomes == welcomes and seat.online, what
    assert table.game.snapshot() == before, what


def test_hostile_input_is_refused_and_changes_nothing(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            E, N = rig.seats["E"], rig.seats["N"]
            # Frames no one can authenticate are counted and dropped without an answer: a
            # stranger's bytes on the wire must not reach, let alone reset, E's session.
            unauthenticated = [
                ("random bytes", lambda: E.write(random_bytes(300, 1).replace(b"\n", b"") + b"\n"), "not_frame"),
                ("oversized frame", lambda: E.write(b"{" + b"x" * 5000 + b"\n"), "too_long"),
                ("not JSON", lambda: E.write(b"hello there\t" + b"0" * 64 + b"\n"), "bad_json"),
                ("bad tag", lambda: E.write(link.encode({"t": "resync", "s": E.session.next_out}, b"wrong")), "bad_tag"),
                ("wrong device id", lambda: E.hello(dev="S-9999"), "unknown_device"),
                ("a hello that is not the board's", lambda: E.hello(key=bytes(32), hn="0" * 32), "bad_tag"),
            ]
            for what, send, code in unauthenticated:
                await expect_dropped(rig, E, send, code, what)
            cases = [
                # Well tagged, in sequence, but not what the contract allows (sealed by hand:
                # the seat's own codec refuses to send these).
                ("unknown message", lambda: E.write(sealed_with(E, {"t": "shuffle"}, E.session.next_out)), "bad_message"),
                ("a seat claiming an auto move", lambda: E.write(sealed_with(
                    E, {"t": "intent", "turn": 0, "a": {"type": "pass", "auto": True}}, E.session.next_out)), "bad_message"),
                ("a seat naming another seat", lambda: E.write(sealed_with(
                    E, {"t": "intent", "turn": 0, "a": {"type": "pass", "seat": "N"}}, E.session.next_out)), "bad_message"),
                ("turn from the future", lambda: E.intent({"type": "show", "yes": False}, turn=7), "stale_turn"),
            ]
            for what, send, code in cases:
                await expect_reject(rig, E, send, code, what)
            # Replayed and skipped sequence numbers: a frame the hub already accepted, then a gap.
            line = E.session.seal({"t": "resync"})
            E.write(line)
            await E.wait_for(lambda: E.state is not None, 5, "state")
            await expect_dropped(rig, E, lambda: E.write(line), "replay", "a replayed frame")
            await expect_reject(rig, E, lambda: E.write(sealed_with(E, {"t": "resync"}, E.session.next_out + 3)),
                                "seq_gap", "a skipped sequence number")
            # 明牌 for all, then the game's own refusals in the 加倍 and play phases.
            for s in "ENWS":
                rig.seats[s].intent({"type": "show", "yes": False}, turn=0)  # turn 0 stays current while others decide
            await wait_until(lambda: rig.table.game.phase == "double", "double phase")
            await N.wait_for(lambda: N.turn == 4, 5, "turn 4")
            await expect_reject(rig, N, lambda: N.intent({"type": "double", "yes": True}), "not_your_turn",
                                "an intent out of turn")
            await expect_reject(rig, E, lambda: E.intent({"type": "double", "yes": True}, turn=2), "stale_turn",
                                "an old turn")
            await expect_reject(rig, E, lambda: E.intent({"type": "play", "cards": ["3D"]}, turn=4), "wrong_phase",
                                "a play in the double phase")
            for s in "ENWS":
                seat = rig.seats[s]
                await seat.wait_for(lambda seat=seat: seat.my_turn(), 5, "double turn")
                seat.intent({"type": "double", "yes": False})
            await wait_until(lambda: rig.table.game.phase == "play", "play phase")
            await E.wait_for(lambda: E.turn == 8, 5, "turn 8")
            await expect_reject(rig, E, lambda: E.intent({"type": "play", "cards": ["8D"]}), "not_in_hand",
                                "cards the seat does not hold")
            await expect_reject(rig, E, lambda: E.intent({"type": "play", "cards": ["4D"]}), "must_contain_d3",
                                "a first play without the 3 of diamonds")
            await expect_reject(rig, E, lambda: E.intent({"type": "play", "cards": ["3D", "4C"]}), "not_a_combination",
                                "not a combination")
            await expect_reject(rig, E, lambda: E.intent({"type": "play", "cards": ["ZZ"]}), "invalid_card",
                                "not a card")
            await expect_reject(rig, E, lambda: E.intent({"type": "pass"}), "leader_cannot_pass", "the leader passing")
            await expect_reject(rig, N, lambda: N.intent({"type": "pass"}), "not_your_turn", "a follower before its turn")
            assert rig.table.internal_errors == 0
            counts = dict(rig.table.rejects)
            E.intent({"type": "play", "cards": ["3D"]})
            await E.wait_for(lambda: E.turn == 9, 5, "the legal play")
        finally:
            await rig.close()
        return rig, counts

    rig, counts = run(main())
    assert counts["E"]["bad_tag"] == 2 and counts["E"]["stale_turn"] == 2 and counts["N"]["not_your_turn"] == 2
    summary = [e.body for e in log_entries(rig.config.log) if e.kind == "rejects"]
    assert summary and summary[-1]["counts"]["E"]["not_in_hand"] == 1  # the reject summary reaches the log


def test_an_unknown_board_is_refused_without_a_session(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), seats=("E", "N", "W"))
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online(screen="waiting")  # the deal waits for S (or the grace period)
            stranger = TestSeat(rig.links["S"].seat_path, "S-0666", bytes(32))
            await stranger.start()
            await stranger.wait_for(lambda: any(m["t"] == "reject" for m in stranger.frames), 5, "a reject")
            rej = [m for m in stranger.frames if m["t"] == "reject"][0]
            assert rej["code"] == "unknown_device" and "S-0666" in rej["en"] and rej["ref"] == 0
            assert not stranger.online and rig.table.seat_conn["S"] is None
            # The right device id with a forged key: refused too.
            forger = TestSeat(rig.links["S"].seat_path, DEVICES["S"], bytes(32))
            await stranger.stop()
            await forger.start()
            await forger.wait_for(lambda: any(m["t"] == "reject" for m in forger.frames), 5, "a reject")
            assert [m for m in forger.frames if m["t"] == "reject"][0]["code"] == "bad_tag"
            assert rig.table.seat_conn["S"] is None
            await forger.stop()
        finally:
            await rig.close()
        return rig

    rig = run(main())
    assert not any(e.kind == "seat" and e.body["seat"] == "S" for e in log_entries(rig.config.log))


# ---- the referee's controls and calls ----------------------------------------------------

def test_pause_keeps_the_remaining_time_and_refuses_intents_until_resume(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            E = rig.seats["E"]
            table = rig.table
            await asyncio.sleep(0.2)
            assert table.pause(by="referee 3", reason="dispute") is True
            assert table.pause() is False  # already paused
            await E.wait_for(lambda: E.screen == "paused", 5, "paused screen")
            held = E.clock["ms"]
            assert E.clock["paused"] is True and 0 < held < 15000
            await asyncio.sleep(0.3)
            assert table.clock.remaining(table.now()) == held  # the clock stands still
            n = len(E.frames)
            E.intent({"type": "show", "yes": True})
            await E.wait_for(lambda: any(m["t"] == "reject" for m in E.frames[n:]), 5, "reject")
            assert [m for m in E.frames[n:] if m["t"] == "reject"][0]["code"] == "paused"
            assert table.resume(by="referee 3") is True
            await E.wait_for(lambda: E.screen == "deal", 5, "deal screen")
            assert E.clock["paused"] is False and held - 100 <= E.clock["ms"] <= held
            E.intent({"type": "show", "yes": False})
            await E.wait_for(lambda: E.turn == 1, 5, "accepted")
            # 叫裁判: logged, and the hook the venue uplink will use is called.
            E.send({"t": "call", "why": "dispute"})
            E.send({"t": "call", "why": "again"})  # within 2 s: counted, not logged twice
            await wait_until(lambda: any(a["kind"] == "call" for a in rig.alerts), "call alert")
            n = len(E.frames)
            E.send({"t": "resync"})
            state = await E.wait_frame("state", n)
            assert state["turn"] == 1 and state["view"] == table.game.view("E")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    kinds = [e.kind for e in log_entries(rig.config.log)]
    assert kinds.count("pause") == 1 and kinds.count("call") == 1
    resume = [e.body for e in log_entries(rig.config.log) if e.kind == "clock" and e.body["why"] == "resume"]
    assert resume and resume[0]["by"] == "referee 3"
    call = [a for a in rig.alerts if a["kind"] == "call"][0]
    assert (call["seat"], call["why"], call["table"]) == ("E", "dispute", "7")


@pytest.mark.parametrize("pause", [0.2, 0])
def test_deals_follow_each_other_and_the_table_then_waits(tmp_path, pause):
    """With no pause the result screen passes at once: a seat reads the result and the next
    deal's state together (as on a busy machine with any pause), and the deals still follow."""
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL, DEAL], clock={"next_deal_seconds": pause})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            totals = {s: 0 for s in rig.seats}
            for n in range(2):
                await play_deal(rig, timeout=20)
                for s, seat in rig.seats.items():
                    await seat.wait_for(lambda seat=seat: seat.screen in ("deal", "waiting") and seat.result is not None,
                                        10, "the next screen")
                    # issue #12: with the result, the seat map brings the seat's running total for the round
                    totals[s] += seat.result["scores"][s]
                    await seat.wait_for(lambda seat=seat, s=s: (seat.seatmap or {}).get("total") == totals[s], 5,
                                        "the round total")
                    seat.result = None
            assert all(s.screen == "waiting" and s.view is None for s in rig.seats.values())
            assert "every planned deal is played" in rig.table.describe()
            # issue #12: the seats are told the round is over at this table (they say so, not "starts soon")
            for seat in rig.seats.values():
                await seat.wait_for(lambda seat=seat: (seat.seatmap or {}).get("done") is True, 5, "the round's end")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    report = audit(rig.config.log)
    assert report.ok and report.deals == 2, str(report)
    assert [e.kind for e in log_entries(rig.config.log)].count("waiting") == 1


# ---- restarting (a clean stop here; test_table_crash.py kills the process) ----------------

def test_a_paused_table_comes_back_paused_and_a_finished_deal_shows_its_result(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL, DEAL], clock={"next_deal_seconds": 0.3})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await play_until(rig, 9)
            rig.table.pause(reason="power check")
            held = rig.table.clock.remaining(rig.table.now())
            await rig.stop_hub()
            table = await rig.start_hub()  # the same configuration and log
            assert table.paused is not None and table.screen == "paused"
            assert table.clock.remaining(table.now()) == held and len(table.game.actions) == 9
            E = rig.seats["E"]
            await E.wait_for(lambda: E.welcomes == 2 and E.screen == "paused", 10, "paused after restart")
            assert E.clock["ms"] == held and E.clock["paused"] is True
            table.resume()
            await play_deal(rig)
            await rig.stop_hub()
            table = await rig.start_hub()  # between deals: the result again, then the next deal
            assert table.screen == "result" and table.last_result is not None
            await E.wait_for(lambda: E.welcomes == 3 and E.state["screen"] in ("result", "deal"), 10, "after restart")
            await E.wait_for(lambda: E.screen == "deal" and E.view["board"] == 2, 10, "the next deal")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    kinds = [e.kind for e in log_entries(rig.config.log)]
    assert kinds.count("hub_start") == 3 and kinds.count("hub_stop") == 3 and kinds.count("deal_start") == 2
    assert audit(rig.config.log).ok


def test_a_log_from_other_deals_is_refused(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await rig.stop_hub()
        finally:
            await rig.close()
        return rig

    rig = run(main())
    from paizhuo.table import config as config_
    from paizhuo.table.runtime import Table, TableError
    other = config_.load_text(open(rig.config_path).read().split("[deals]")[0] +
                              '[deals]\nsecret = "text:another event, long enough"\nboards = [1]\n', rig.config_path,
                              base=str(tmp_path))
    with pytest.raises(TableError) as info:
        asyncio.run(Table(other, transports=[]).run())
    assert info.value.code == "log_mismatch" and "new file" in info.value.en


def test_a_log_that_cannot_be_written_refuses_the_intent_and_changes_nothing(tmp_path):
    import sqlite3

    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            E = rig.seats["E"]
            before = rig.table.game.snapshot()
            blocker = sqlite3.connect(rig.config.log, isolation_level=None)
            blocker.execute("BEGIN IMMEDIATE")  # another writer holds the log: every write fails
            try:
                n = len(E.frames)
                E.intent({"type": "show", "yes": True})
                await E.wait_for(lambda: any(m["t"] == "reject" for m in E.frames[n:]), 10, "a reject")
                rej = [m for m in E.frames[n:] if m["t"] == "reject"][0]
                assert rej["code"] == "log_failed" and rej["zh"]
                assert rig.table.game.snapshot() == before
                assert not any(m["t"] == "event" for m in E.frames[n:])  # nothing announced
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
            E.intent({"type": "show", "yes": True})
            await E.wait_for(lambda: E.turn == 1, 10, "accepted once the log is writable")
            assert rig.table.internal_errors == 0
        finally:
            await rig.close()
        return rig

    rig = run(main())
    assert any(a["kind"] == "log_failed" for a in rig.alerts)
    assert [a["action"]["yes"] for a in logged_actions(rig.config.log)] == [True]
    assert audit(rig.config.log).ok
