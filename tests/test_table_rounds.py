"""The table hub in venue mode, without MQTT: rounds, check-in, bot seats, board replacement,
the referee's notes, alerts, the live snapshot and replay of every new log entry.

The hub runs in this process (a ``Table`` task) over real pty pairs with the CPython test
seats of ``table_seat.py`` and real SQLite; the venue's part (round specs, start, controls)
is played by calling the ``Table`` methods the uplink calls (tests/test_hub_uplink.py runs
the same through a real broker).
"""

import asyncio
import json
import os

import pytest

from paizhuo.mqtt import wire
from paizhuo.table import config as config_
from paizhuo.table.history import TableHistory, audit
from paizhuo.table.results import result_rows, rows_from_log
from paizhuo.table.runtime import Table, TableError
from paizhuo.venue import deals as deals_

from table_seat import (DEAL, DEVICES, KEYS, PLAYERS, PLAYERS_2, SECRET, SPARE, SPARE_KEY, Rig, TestSeat,
                        card_strings, check_in_all, in_round_one, log_entries, play_deal, play_until, round_key, round_spec)


def run(coro, timeout=120):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def kinds(path):
    return [e.kind for e in log_entries(path)]


async def wait_until(pred, what, timeout=10.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise TimeoutError(what)
        await asyncio.sleep(0.01)


async def settle(table):
    """Let the scheduler run everything due now (a few loop turns): used before checking that
    something did NOT happen, never to measure time."""
    for _ in range(5):
        table._wake.set()
        await asyncio.sleep(0.02)


FAST = {"next_deal_seconds": 0.05, "grace_seconds": 600}


# ---- the configuration's new tables ----------------------------------------------------------

BASE = '[table]\nhub = "T07"\nid = "7"\nevent = "e"\n'
DEV = '[devices.S-0001]\nkey = "%s"\nseat = "%%s"\n' % ("00" * 32)
LINK = '[link]\nports = ["/dev/ttyACM0"]\n'
VENUE = '[venue]\nbroker = "127.0.0.1:1883"\nevent = "demo"\n'

BAD_CONFIGS = [
    ("venue without broker", BASE + '[venue]\nevent = "demo"\n' + LINK + DEV % "E", "venue.broker", "missing"),
    ("broker port out of range", BASE + '[venue]\nbroker = "h:70000"\nevent = "d"\n' + LINK + DEV % "E",
     "venue.broker", "bad_broker"),
    ("event id with a slash", BASE + '[venue]\nbroker = "h:1"\nevent = "a/b"\n' + LINK + DEV % "E", "venue.event",
     "bad_event_id"),
    ("misspelt venue key", BASE + VENUE + 'keepalive = 5\n' + LINK + DEV % "E", "venue.keepalive", "unknown_key"),
    ("keepalive zero", BASE + VENUE + 'keepalive_seconds = 0\n' + LINK + DEV % "E", "venue.keepalive_seconds",
     "out_of_range"),
    ("missing password file", BASE + VENUE + 'password_file = "nope.pass"\n' + LINK + DEV % "E",
     "venue.password_file", "no_password_file"),
    ("outbox is the log", BASE + 'log = "t.sqlite"\n' + VENUE + 'outbox = "t.sqlite"\n' + LINK + DEV % "E",
     "venue.outbox", "bad_outbox"),
    ("bot seat twice", BASE + VENUE + '[seats]\nbots = ["N", "N"]\n' + LINK + DEV % "E", "seats.bots", "bad_seat"),
    ("bot seat X", BASE + VENUE + '[seats]\nbots = ["X"]\n' + LINK + DEV % "E", "seats.bots", "bad_seat"),
    ("a board on a bot seat", BASE + VENUE + '[seats]\nbots = ["E"]\n' + LINK + DEV % "E", "devices.S-0001.seat",
     "bot_seat"),
    ("bot pacing negative", BASE + VENUE + '[seats]\nbot_think_seconds = -1\n' + LINK + DEV % "E",
     "seats.bot_think_seconds", "out_of_range"),
    ("device seat spare-ish", BASE + VENUE + LINK + DEV % "spares", "devices.S-0001.seat", "bad_seat"),
    ("no deals without a venue", BASE + LINK + DEV % "E", "deals", "missing"),
    ("no ports unless every seat is a bot", BASE + VENUE + '[seats]\nbots = ["N", "W", "S"]\n' + DEV % "E",
     "link", "missing"),
]


@pytest.mark.parametrize("what,text,key,code", BAD_CONFIGS, ids=[b[0] for b in BAD_CONFIGS])
def test_bad_venue_configurations_say_where_and_what(tmp_path, what, text, key, code):
    with pytest.raises(config_.ConfigError) as info:
        config_.load_text(text, "t7.toml", base=str(tmp_path))
    assert (info.value.key, info.value.code) == (key, code), str(info.value)
    assert info.value.zh.startswith("t7.toml")


def test_venue_mode_configuration(tmp_path):
    cfg = config_.load_text(config_.EXAMPLE_VENUE, "t7.toml", base=str(tmp_path))
    v = cfg.venue
    assert (v.host, v.port, v.event, v.username, v.password_file) == ("127.0.0.1", 1883, "demo", "T07", None)
    assert v.outbox == str(tmp_path / "table7-outbox.sqlite") and v.keepalive == 5 and v.resend_s == 5.0
    assert cfg.spares == ["S-0099"] and cfg.seat_device("E").id == "S-0001" and cfg.deals.records == []
    assert cfg.bots == () and cfg.bot_think_ms == 500
    # A table of bots needs no boards and no ports; a password file must be private.
    pw = tmp_path / "T07.pass"
    pw.write_text("secret\n")
    os.chmod(pw, 0o644)
    text = BASE + VENUE + 'password_file = "T07.pass"\n[seats]\nbots = ["E", "N", "W", "S"]\nbot_think_seconds = 0\n'
    with pytest.raises(config_.ConfigError) as info:
        config_.load_text(text, "t7.toml", base=str(tmp_path))
    assert info.value.code == "open_password_file" and "chmod 600" in info.value.en
    os.chmod(pw, 0o600)
    cfg = config_.load_text(text, "t7.toml", base=str(tmp_path))
    assert cfg.ports == [] and cfg.devices == {} and cfg.bots == ("E", "N", "W", "S") and cfg.bot_think_ms == 0
    assert cfg.venue.password() == "secret" and "secret" not in repr(cfg.venue)
    # Without [venue] nothing changes: the standalone example still needs its [deals].
    assert config_.load_text(config_.EXAMPLE, "t.toml").venue is None


# ---- rounds and check-in ----------------------------------------------------------------------

def test_two_rounds_with_check_in_start_and_results_owned_by_each_rounds_players(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, clock=FAST)
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            await rig.all_online(screen="waiting")
            assert "waiting for the venue's first round" in table.describe()
            assert table.load_round(round_spec(1, boards=[1, 2])) is True
            assert table.load_round(round_spec(1, boards=[1, 2])) is False  # the same spec again: ignored
            E, N = rig.seats["E"], rig.seats["N"]
            await rig.all_online(screen="checkin")
            assert E.seatmap == {"table": "7", "seat": "E", "player": PLAYERS["E"], "next": None, "checked": False}
            assert E.state["players"]["S"] == PLAYERS["S"] and E.view is None
            # A wrong number: refused, naming where that player sits (not who sits here), and alerted.
            n = len(E.frames)
            E.checkin(12)
            rej = await E.wait_frame("reject", n)
            assert rej["code"] == "checkin_wrong" and "North" in rej["en"] and "北家" in rej["zh"]
            E.checkin(99)
            await E.wait_for(lambda: len(E.rejects) == 2, 5, "the second reject")
            assert "99" in E.rejects[1]["en"] and "East" in E.rejects[1]["en"] and "11" not in E.rejects[1]["en"]
            wrong = [a for a in rig.alerts if a["kind"] == "checkin_wrong"]
            assert [(a["seat"], a["typed"], a["round"]) for a in wrong] == [("E", 12, 1), ("E", 99, 1)]
            await check_in_all(rig)
            await settle(table)
            assert table.screen == "checkin" and table.game is None  # everyone is here, but no start yet
            assert "waiting for the venue's start, 4 of 4 seats checked in" in table.describe()
            assert table.start_round(1, round_key(1)) is True and table.start_round(1, round_key(1)) is False
            await rig.all_online(screen="deal")
            assert E.seatmap["checked"] is True and E.seatmap["next"] is None
            for board in (1, 2):
                await wait_until(lambda: table.screen == "deal", "deal %d" % board)
                assert table.plan[table.deal_index].board == board
                await play_deal(rig)
                for seat in rig.seats.values():
                    seat.screen = None  # the next deal's state sets it again
            await rig.all_online(screen="waiting")
            # Round 2: the players moved; the seat map says where this seat's last player goes.
            moves = {"E": {"table": "3", "seat": "N"}, "N": None, "W": {"table": "7", "seat": "E"},
                     "S": {"table": "7", "seat": "W"}}
            with pytest.raises(TableError) as info:
                table.start_round(2, round_key(2))
            assert info.value.code == "unknown_round"
            table.load_round(round_spec(2, boards=[3], players=PLAYERS_2, moves=moves))
            await rig.all_online(screen="checkin")
            assert E.seatmap["player"] == PLAYERS["S"] and E.seatmap["next"] == {"table": "3", "seat": "N"}
            assert E.seatmap["checked"] is False and N.seatmap["next"] is None
            table.start_round(2, round_key(2))
            await check_in_all(rig, PLAYERS_2)
            await rig.all_online(screen="deal")
            assert table.deal_index == 2 and table.plan[2].board == 3  # the deal index is global
            await play_deal(rig)
            assert table.internal_errors == 0
        finally:
            await rig.close()
        return rig

    rig = run(main())
    log = log_entries(rig.config.log)
    assert [e.kind for e in log].count("round") == 2 and [e.kind for e in log].count("round_start") == 2
    assert sorted((e.body["round"], e.body["seat"]) for e in log if e.kind == "checkin") == \
        sorted([(1, s) for s in "ENWS"] + [(2, s) for s in "ENWS"])
    assert "unchecked" not in [e.kind for e in log]
    rows = rows_from_log(rig.config.log, rig.config)
    assert len(rows) == 12 and all(r["bot"] is False for r in rows)
    by = {(r["round"], r["board"], r["seat"]): r["player"] for r in rows}
    assert by[(1, 1, "E")] == "P011" and by[(1, 2, "S")] == "P014"
    assert by[(2, 3, "E")] == "P014" and by[(2, 3, "W")] == "P011"  # round 2's players own round 2's results
    assert {r["result_id"] for r in rows if r["round"] == 2} == {"T07/7/r2/g1/b3/%s" % s for s in "ENWS"}
    # The deals are the venue's: the same cards every table of the group gets from the round key.
    starts = [e.body for e in log if e.kind == "deal_start"]
    key = deals_.round_key(b"paizhuo venue tests", 2)
    assert starts[2]["deal_hash"] == deals_.deal_from_round_key(key, "bigtwo", 1, 3, round=2).hash
    report = audit(rig.config.log)
    assert report.ok and report.deals == 3, str(report)


def test_the_start_rule_grace_unchecked_and_absent_seats(tmp_path):
    async def main():
        # W never comes; S is online but never checks in.
        rig = Rig(str(tmp_path), venue=True, seats=("E", "N", "S"), clock={"grace_seconds": 0.5,
                                                                            "next_deal_seconds": 0.05})
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            await rig.all_online(screen="waiting")
            table.load_round(round_spec(1, boards=[1]))
            await rig.all_online(screen="checkin")
            for s in "EN":
                rig.seats[s].checkin(PLAYERS[s]["no"])
            await wait_until(lambda: len(table.book.venue_round(1).checked) == 2, "two check-ins")
            await settle(table)
            assert table.game is None  # no start: the grace period has not even begun
            table.start_round(1, round_key(1))
            await rig.all_online(screen="deal", timeout=10)  # after the grace period
            assert table.game is not None
            await play_deal(rig)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    log = log_entries(rig.config.log)
    unchecked = [e for e in log if e.kind == "unchecked"]
    assert len(unchecked) == 1 and unchecked[0].body == {"round": 1, "seats": ["S"]}
    assert [e.kind for e in log].index("unchecked") == [e.kind for e in log].index("deal_start") + 1
    acts = [e.body for e in log if e.kind == "action"]
    west = [b for b in acts if b["action"]["seat"] == "W"]
    assert west and all(b["by"] == "bot" and b["action"]["auto"] for b in west)  # 托管 for the absent seat
    assert all(b["by"] == "seat" for b in acts if b["action"]["seat"] == "S")  # unchecked but playing
    assert audit(rig.config.log).ok


SPECS_REFUSED = [
    ("not an object", [], "bad_round"),
    ("no id", {"id": None}, "bad_round"),
    ("round zero", {"round": 0}, "bad_round"),
    ("another game", {"game": "guandan"}, "wrong_game"),
    ("another table", {"table": "8"}, "wrong_table"),
    ("no boards", {"boards": []}, "bad_round"),
    ("board twice", {"boards": [1, 1]}, "bad_round"),
    ("board as text", {"boards": ["1"]}, "bad_round"),
    ("the round key in the spec", {"round_key": round_key(1)}, "bad_round"),
    ("the deals in the spec", {"deals": []}, "bad_round"),
    ("no deal hashes", {"deal_hashes": None}, "bad_round"),
    ("a board without its hash", {"deal_hashes": {"1": "ab" * 32}}, "bad_round"),
    ("a hash for another board", {"deal_hashes": {"1": "ab" * 32, "3": "ab" * 32}}, "bad_round"),
    ("a short hash", {"deal_hashes": {"1": "ab" * 32, "2": "ab"}}, "bad_round"),
    ("an upper-case hash", {"deal_hashes": {"1": "ab" * 32, "2": "AB" * 32}}, "bad_round"),
    ("three players", {"players": {s: PLAYERS[s] for s in "ENW"}}, "bad_round"),
    ("player without number", {"players": dict(PLAYERS, E={"id": "P1", "name": "A"})}, "bad_round"),
    ("player number as text", {"players": dict(PLAYERS, E=dict(PLAYERS["E"], no="11"))}, "bad_round"),
    ("bot flag as text", {"players": dict(PLAYERS, E=dict(PLAYERS["E"], bot="yes"))}, "bad_round"),
    ("move to a bad seat", {"moves": {"E": {"table": "3", "seat": "X"}}}, "bad_round"),
    ("moves of an unknown seat", {"moves": {"Q": None}}, "bad_round"),
]


def test_round_specs_are_checked_whole_and_a_started_round_cannot_change(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, seats=(), clock=FAST)
        try:
            table = await rig.start_hub()
            for what, change, code in SPECS_REFUSED:
                spec = change if isinstance(change, list) else dict(round_spec(1), **change)
                n = table.log.last_seq
                with pytest.raises(TableError) as info:
                    table.load_round(spec)
                assert info.value.code == code, (what, info.value.en)
                assert info.value.en and info.value.zh
                assert table.log.last_seq == n and table.plan == [], what  # nothing changed
            # A corrected spec for a round not started yet replaces it; once started, no change.
            assert table.load_round(round_spec(1, boards=[1, 2], id="first"))
            assert table.load_round(round_spec(1, boards=[5], id="second"))
            assert table.book.boards == [5] and table.plan == [None] and len(table.book.rounds) == 1  # no cards yet
            table.start_round(1, round_key(1))
            with pytest.raises(TableError) as info:
                table.load_round(round_spec(1, boards=[6], id="third"))
            assert info.value.code == "round_started"
            assert table.load_round(round_spec(1, boards=[5], id="second")) is False  # the retained one again
            table.load_round(round_spec(3, boards=[7]))
            with pytest.raises(TableError) as info:
                table.load_round(round_spec(2, boards=[8]))
            assert info.value.code == "round_order"
            assert table.book.boards == [5, 7] and table.plan[0].board == 5 and table.plan[1] is None
        finally:
            await rig.close()

    run(main())


# ---- bot seats ---------------------------------------------------------------------------------

def test_bot_seats_play_from_the_first_move_and_a_board_at_a_bot_seat_is_parked(tmp_path):
    async def main():
        # [seats] bots: N and W have no board; the round's S player is the computer (人机赛).
        rig = Rig(str(tmp_path), venue=True, bots=("N", "W"), bot_think_seconds=0.01, clock=FAST)
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            await rig.all_online(screen="waiting")
            players = dict(PLAYERS, S={"id": "AI01", "name": "电脑", "no": None, "bot": True})
            S = rig.seats["S"]
            table.load_round(round_spec(1, boards=[1], players=players))
            await S.wait_for(lambda: not S.online and any(r["code"] == "bot_seat" for r in S.rejects), 10,
                             "S parked")
            assert "bot_seat" not in table.rejects.get("port " + rig.links["S"].hub_path, {})  # not counted
            table.start_round(1, round_key(1))
            E = rig.seats["E"]
            await E.wait_for(lambda: E.screen == "checkin", 10, "check-in")
            snap = table.snapshot()
            assert {s: (v["bot"], v["online"], v["checked"]) for s, v in snap["seats"].items()} == {
                "E": (False, True, False), "N": (True, True, True), "W": (True, True, True), "S": (True, True, True)}
            E.checkin(11)
            await E.wait_for(lambda: E.screen == "deal", 10, "the deal")
            rig.seats = {"E": E}
            await play_deal(rig)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    acts = [e.body for e in log_entries(rig.config.log) if e.kind == "action"]
    for b in acts:
        a = b["action"]
        if a["seat"] == "E":
            assert b["by"] == "seat"
        else:
            assert b["by"] == "bot_seat" and not a.get("auto") and a["think_ms"] >= 10
    result = [e.body for e in log_entries(rig.config.log) if e.kind == "result"][0]["result"]
    assert result["auto_moves"] == {"E": 0, "N": 0, "W": 0, "S": 0}  # a bot player's moves are its own
    rows = rows_from_log(rig.config.log, rig.config)
    assert {r["seat"]: (r["player"], r["bot"]) for r in rows} == {
        "E": ("P011", False), "N": ("P012", False), "W": ("P013", False), "S": ("AI01", True)}
    assert audit(rig.config.log).ok


def test_a_table_of_bots_plays_its_round_without_boards(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=("E", "N", "W", "S"), bot_think_seconds=0.001, clock=FAST)
        changes = []
        try:
            table = await rig.start_hub(on_change=lambda: changes.append(rig.table.snapshot()))
            table.load_round(round_spec(1, boards=[1, 2]))
            table.start_round(1, round_key(1))
            await wait_until(lambda: kinds(rig.config.log).count("result") == 2, "two results", 30)
            await wait_until(lambda: table.screen == "waiting", "waiting")
        finally:
            await rig.close()
        return rig, changes

    rig, changes = run(main())
    assert audit(rig.config.log).deals == 2
    assert changes[-1]["screen"] == "waiting" and changes[-1]["deals_done"] == 2
    assert any(c["screen"] == "deal" and c["turn"] for c in changes)


# ---- replacing a board -----------------------------------------------------------------------

def test_a_referee_replaces_a_failed_board_with_a_spare_and_it_survives_a_restart(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, spares=(SPARE, "S-0098"), clock=FAST)
        try:
            table = await in_round_one(rig, 6)
            old_e = rig.seats["E"]
            # The spare plugged in before the referee acts: told it is a spare, nothing else.
            await old_e.stop()
            spare = TestSeat(rig.links["E"].seat_path, SPARE, SPARE_KEY)
            await spare.start()
            await spare.wait_for(lambda: any(r["code"] == "spare_device" for r in spare.rejects), 10, "spare reject")
            assert not spare.online and table.seat_conn["E"] is None
            for seat, dev, code in (("E", "S-7777", "unknown_device"), ("X", SPARE, "bad_seat"),
                                    ("E", DEVICES["N"], "device_in_use")):
                n = table.log.last_seq
                with pytest.raises(TableError) as info:
                    table.replace_device(seat, dev, by="referee Li", reason="test")
                assert info.value.code == code and table.log.last_seq == n
            assert table.replace_device("E", SPARE, by="referee Li", reason="screen dead") is True
            assert table.replace_device("E", SPARE) is False
            await spare.wait_for(lambda: spare.online, 10, "the spare welcomed")
            assert spare.welcome["seat"] == "E"
            await spare.wait_for(lambda: spare.state is not None and spare.view == table.game.view("E"), 10, "E's view")
            # The old board, plugged in again somewhere, is refused: it plays no seat now.
            await spare.stop()
            back = TestSeat(rig.links["E"].seat_path, DEVICES["E"], KEYS["E"])
            await back.start()
            await back.wait_for(lambda: any(r["code"] == "replaced_device" for r in back.rejects), 10, "refused")
            await back.stop()
            await rig.stop_hub()
            table = await rig.start_hub()  # the replacement is in the log: replayed
            assert table.seat_dev["E"] == SPARE and table.book.venue_round(1).started
            assert set(table.book.venue_round(1).checked) == set("ENWS")
            spare = rig.seats["E"] = TestSeat(rig.links["E"].seat_path, SPARE, SPARE_KEY)
            await spare.start()
            await spare.wait_for(lambda: spare.online and spare.screen == "deal", 10, "the spare after the restart")
            for s in "NWS":
                seat = rig.seats[s]
                await seat.wait_for(lambda seat=seat: seat.welcomes == 2 and seat.online, 10, "re-welcomed")
            await play_deal(rig)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    log = log_entries(rig.config.log)
    rep = [e.body for e in log if e.kind == "replace"]
    assert rep == [{"seat": "E", "dev": SPARE, "old": DEVICES["E"], "by": "referee Li", "reason": "screen dead"}]
    e_online = [e.body for e in log if e.kind == "seat" and e.body["seat"] == "E" and e.body["online"]]
    assert e_online[-1]["dev"] == SPARE
    assert audit(rig.config.log).ok


# ---- the referee's notes, calls, pause; alerts -------------------------------------------------

def test_notes_and_acknowledged_calls_reach_the_seats_and_the_log(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])  # standalone: the referee's controls work there too
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            await rig.all_online()
            E, N = rig.seats["E"], rig.seats["N"]
            E.send({"t": "call", "why": "a dispute"})
            await wait_until(lambda: any(a["kind"] == "call" for a in rig.alerts), "the call")
            assert table.ack_call("E", by="referee Li") is True
            await E.wait_for(lambda: E.notes, 5, "a note")
            assert E.notes[-1]["zh"] == "裁判已收到，请稍候" and not N.notes
            assert table.note(None, "Five minutes left in this session", "本节还剩五分钟") == 4
            for seat in rig.seats.values():
                await seat.wait_for(lambda seat=seat: seat.notes and seat.notes[-1]["zh"] == "本节还剩五分钟", 5, "note")
            assert table.note("N", "Please sit up", "请坐好") == 1
            await N.wait_for(lambda: N.notes[-1]["en"] == "Please sit up", 5, "N's note")
            for seat, en, zh, code in (("Q", "x", "x", "bad_seat"), (None, "", "x", "bad_note"),
                                       (None, "x" * 201, "x", "bad_note"), (None, "x", "a\nb", "bad_note"),
                                       (None, "x", 5, "bad_note")):
                n = table.log.last_seq
                with pytest.raises(TableError) as info:
                    table.note(seat, en, zh)
                assert info.value.code == code and table.log.last_seq == n
            with pytest.raises(TableError):
                table.ack_call("Q")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    log = log_entries(rig.config.log)
    assert [e.body for e in log if e.kind == "ack_call"] == [{"seat": "E", "by": "referee Li"}]
    assert [e.body["seat"] for e in log if e.kind == "note"] == [None, "N"]


def test_a_burst_of_refused_frames_raises_one_alert_per_window(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            await rig.all_online()
            E = rig.seats["E"]
            for i in range(9):
                E.intent({"type": "play", "cards": ["8D"]}, turn=0)  # the wrong phase: refused each time
            await E.wait_for(lambda: len(E.rejects) == 9, 10, "nine rejects")
            await settle(table)
            assert not [a for a in rig.alerts if a["kind"] == "reject_burst"]
            for i in range(15):
                E.intent({"type": "play", "cards": ["8D"]}, turn=0)
            await E.wait_for(lambda: len(E.rejects) == 24, 10, "24 rejects")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    bursts = [a for a in rig.alerts if a["kind"] == "reject_burst"]
    assert len(bursts) == 1, bursts  # 24 rejects within one window: one alert
    b = bursts[0]
    assert b["seat"] == "E" and b["dev"] == DEVICES["E"] and b["counts"] == {"wrong_phase": 10}


def test_clock_expiry_of_a_present_seat_is_alerted(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL], clock={"scale": 0.02, "grace_seconds": 600})
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await rig.seats["E"].wait_for(lambda: (rig.seats["E"].turn or 0) >= 9, 30, "9 expired decisions")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    expiries = [a for a in rig.alerts if a["kind"] == "clock_expiry"]
    acts = [e.body for e in log_entries(rig.config.log) if e.kind == "action"]
    want = [(b["action"]["seat"], b["deal"], b["turn"]) for b in acts if b["by"] == "clock"]
    assert [(a["seat"], a["deal"], a["turn"]) for a in expiries][:9] == want[:9]
    assert want[:4] == [(s, 0, t) for t, s in enumerate("ENWS")]


# ---- the live snapshot ------------------------------------------------------------------------

def test_every_snapshot_is_public_and_passes_the_wire_check(tmp_path):
    from test_table_hub import ShowingBot

    async def main():
        rig = Rig(str(tmp_path), venue=True, clock=FAST)
        snaps = []
        try:
            await rig.start_seats()
            table = await rig.start_hub(on_change=lambda: snaps.append(rig.table.snapshot()))
            table.load_round(round_spec(1, boards=[1, 2]))
            table.start_round(1, round_key(1))
            await check_in_all(rig)
            await rig.all_online(screen="deal")
            bots = {s: ShowingBot(i, s == "W") for i, s in enumerate("ENWS")}  # W shows its hand (明牌)
            await play_deal(rig, bots=bots)
            await wait_until(lambda: table.screen == "deal" and table.deal_index == 1, "deal 2", 30)
            table.pause(by="referee Li", reason="check")
            paused = table.snapshot()
            table.resume(by="referee Li")
            await rig.all_online(screen="deal")   # the seats too, or play_deal sees deal 1's result and returns
            await play_deal(rig, bots=bots)
            hands = {}
            for e in log_entries(rig.config.log):
                if e.kind == "deal_start":
                    hands[e.body["deal"]] = {s: set(h) for s, h in e.body["deal_record"]["hands"].items()}
            actions = {}
            for e in log_entries(rig.config.log):
                if e.kind == "action":
                    actions.setdefault(e.body["deal"], []).append(e.body["action"])
        finally:
            await rig.close()
        return snaps, paused, hands, actions

    snaps, paused, hands, actions = run(main())
    assert paused["screen"] == "paused" and paused["paused"] == {"by": "referee Li", "reason": "check"}
    assert paused["clock"]["paused"] is True
    wire.check_live(wire.dumps(paused), "T07")
    screens = {s["screen"] for s in snaps}
    assert {"checkin", "deal", "result"} <= screens
    checked = 0
    for snap in snaps:
        wire.check_live(wire.dumps(snap), "T07")  # the venue's own check accepts it
        seen = set(card_strings(snap))
        if snap["round"] is None:  # before the round spec came
            assert snap["screen"] == "waiting" and snap["boards"] == [] and not seen
            continue
        assert snap["hub"] == "T07" and snap["round"] == 1 and snap["boards"] == [1, 2]
        if snap["deal"] is None:
            assert not seen, snap
            continue
        acts = actions[snap["deal"]][:snap["turn"]] if snap["turn"] is not None else actions[snap["deal"]]
        allowed = set()
        for a in acts:
            allowed |= set(a.get("cards", ()))
        if len(acts) >= 4:  # 明牌 is decided by all: W's shown hand is public at the table
            allowed |= hands[snap["deal"]]["W"]
            assert snap["shown"] == {} or set(snap["shown"]) == {"W"}
        else:
            assert snap["shown"] == {}
        assert seen <= allowed, sorted(seen - allowed)
        checked += 1
    assert checked > 50
    done = [s["deals_done"] for s in snaps]
    assert done == sorted(done) and done[-1] == 2


# ---- restart: every new entry kind replays ----------------------------------------------------

def test_a_restarted_hub_replays_rounds_starts_check_ins_and_replacements(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, spares=(SPARE,), clock=FAST)
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            table.load_round(round_spec(1, boards=[1]))
            table.load_round(round_spec(2, boards=[2], players=PLAYERS_2))  # loaded early: after round 1
            for s in "EN":
                await rig.seats[s].wait_for(lambda s=s: rig.seats[s].screen == "checkin", 10, "check-in")
                rig.seats[s].checkin(PLAYERS[s]["no"])
            await wait_until(lambda: len(table.book.venue_round(1).checked) == 2, "two check-ins")
            table.replace_device("S", SPARE, by="referee", reason="cable")
            await rig.stop_hub()
            table = await rig.start_hub()
            r1, r2 = table.book.venue_round(1), table.book.venue_round(2)
            assert (r1.start, r2.start) == (0, 1) and table.book.boards == [1, 2] and table.plan == [None, None]
            assert set(r1.checked) == {"E", "N"} and not r1.started and not r2.started
            assert table.seat_dev["S"] == SPARE and table.screen in ("waiting", "checkin")
            await rig.seats["E"].wait_for(lambda: rig.seats["E"].screen == "checkin", 10, "check-in again")
            assert rig.seats["E"].seatmap["checked"] is True and rig.seats["W"].seatmap["checked"] is False
            table.start_round(1, round_key(1))
            await rig.stop_hub()
            table = await rig.start_hub()
            assert table.book.venue_round(1).started and not table.book.venue_round(2).started
            hist = TableHistory.from_entries(table.log.entries())
            assert [r.round for r in hist.rounds] == [1, 2] and hist.devices == {"S": SPARE}
        finally:
            await rig.close()
        return rig

    rig = run(main())
    assert kinds(rig.config.log).count("hub_start") == 3
    assert audit(rig.config.log).ok


# ---- the round key comes with the start, never before ------------------------------------------

def test_a_start_whose_key_does_not_give_the_spec_deals_is_refused_and_changes_nothing(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, clock=FAST)
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            table.load_round(round_spec(2, boards=[1, 2]))
            await check_in_all(rig)
            rnd = table.book.venue_round(2)
            assert rnd.records is None and table.plan == [None, None]
            n = table.log.last_seq
            refused = [
                (round_key(1), "deal_mismatch"),                              # another round's key
                (round_key(2, secret=b"another event"), "deal_mismatch"),    # another event's key
                (None, "bad_round_key"), ("", "bad_round_key"), (round_key(2)[:62], "bad_round_key"),
                (round_key(2).upper(), "bad_round_key"), (bytes(32), "bad_round_key"),
            ]
            for key, code in refused:
                with pytest.raises(TableError) as info:
                    table.start_round(2, key)
                assert info.value.code == code and info.value.en and info.value.zh, key
                if code == "deal_mismatch":
                    assert "boards 1, 2" in info.value.en and "牌号 1、2" in info.value.zh
            await settle(table)
            # Nothing logged, nothing started: the seats still wait at check-in, no deal exists here.
            assert table.log.last_seq == n and not rnd.started and rnd.records is None
            assert table.screen == "checkin" and table.game is None and table.plan == [None, None]
            assert "waiting for the venue's start" in table.describe() and table.snapshot()["started"] is False
            mism = [a for a in rig.alerts if a["kind"] == "deal_mismatch"]
            assert [(a["round"], a["boards"]) for a in mism] == [(2, [1, 2]), (2, [1, 2])]
            # The right key starts the round; its deals are the spec's.
            assert table.start_round(2, round_key(2)) is True
            await rig.all_online(screen="deal")
            assert [r.hash for r in table.plan] == [round_spec(2)["deal_hashes"][str(b)] for b in (1, 2)]
            # A repeated start is answered as before; a wrong key is still refused (and alerted).
            assert table.start_round(2, round_key(2)) is False
            with pytest.raises(TableError) as info:
                table.start_round(2, round_key(3))
            assert info.value.code == "deal_mismatch"
            await play_deal(rig)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    log = log_entries(rig.config.log)
    assert [e.kind for e in log].count("round_start") == 1
    assert len([a for a in rig.alerts if a["kind"] == "deal_mismatch"]) == 3
    assert audit(rig.config.log).ok


def test_the_log_holds_no_deal_before_the_round_starts(tmp_path):
    """The ``round`` entry carries the boards' hashes, no cards; the ``round_start`` entry brings
    the deals (checked against those hashes), and every ``deal_start`` comes after it."""
    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=("E", "N", "W", "S"), bot_think_seconds=0, clock=FAST)
        try:
            table = await rig.start_hub()
            table.load_round(round_spec(1, boards=[1, 2]))
            await settle(table)
            before = log_entries(rig.config.log)
            table.start_round(1, round_key(1))
            await wait_until(lambda: kinds(rig.config.log).count("result") == 2, "two results", 30)
        finally:
            await rig.close()
        return rig, before

    rig, before = run(main())
    assert "round" in [e.kind for e in before] and "round_start" not in [e.kind for e in before]
    log = log_entries(rig.config.log)
    at = [e.kind for e in log].index("round_start")
    for e in log[:at]:
        assert not list(card_strings(e.body)) and "hands" not in json.dumps(e.body), (e.kind, e.body)
        assert round_key(1) not in json.dumps(e.body)
    spec = round_spec(1, boards=[1, 2])
    rnd_entry = [e.body for e in log if e.kind == "round"][0]
    assert rnd_entry["deal_hashes"] == spec["deal_hashes"] and "deals" not in rnd_entry
    start = log[at].body
    assert [d["hash"] for d in start["deals"]] == [spec["deal_hashes"]["1"], spec["deal_hashes"]["2"]]
    assert round_key(1) not in json.dumps([e.body for e in log])  # the key itself is never logged
    assert min(i for i, e in enumerate(log) if e.kind == "deal_start") > at
    report = audit(rig.config.log)
    assert report.ok and report.deals == 2, str(report)


def test_a_hub_restarted_after_the_start_mid_deal_and_after_the_round_resumes(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, clock=FAST)
        try:
            await rig.start_seats()
            table = await rig.start_hub()
            table.load_round(round_spec(1, boards=[1, 2]))
            await check_in_all(rig)
            await rig.stop_hub()
            # Restarted between the load and the start: the round is there, without cards.
            table = await rig.start_hub()
            rnd = table.book.venue_round(1)
            assert not rnd.started and rnd.records is None and table.plan == [None, None]
            assert set(rnd.checked) == set("ENWS") and rnd.hashes == {1: round_spec(1)["deal_hashes"]["1"],
                                                                      2: round_spec(1)["deal_hashes"]["2"]}
            table.start_round(1, round_key(1))
            await rig.all_online(screen="deal")
            await play_until(rig, 7)
            turn = len(table.game.actions)
            await rig.stop_hub()
            # Restarted mid-deal: the deals come from the log's round_start, the deal resumes at its turn.
            table = await rig.start_hub()
            rnd = table.book.venue_round(1)
            assert rnd.started and [r.board for r in table.plan] == [1, 2] and table.book.boards == [1, 2]
            assert table.deal_index == 0 and len(table.game.actions) == turn and table.screen == "deal"
            assert table.game.deal == table.plan[0].to_engine_deal()
            assert table.start_round(1, round_key(1)) is False  # the venue's resent start: nothing new
            for seat in rig.seats.values():
                await seat.wait_for(lambda seat=seat: seat.online and seat.turn == turn, 10, "resumed")
            await play_deal(rig)
            for seat in rig.seats.values():
                seat.screen = None
            await wait_until(lambda: table.screen == "deal" and table.deal_index == 1, "deal 2", 30)
            await play_deal(rig)
            await wait_until(lambda: table.screen == "waiting", "the round done")
            await rig.stop_hub()
            # Restarted after the round: both deals played, nothing more to start.
            table = await rig.start_hub()
            await settle(table)
            assert table.deal_index == 1 and table.game.phase == "over"
            assert table.screen == "waiting" and table.snapshot()["deals_done"] == 2
            assert table.book.venue_round(1).started and len(table.plan) == 2
        finally:
            await rig.close()
        return rig

    rig = run(main())
    log = log_entries(rig.config.log)
    assert [e.kind for e in log].count("round_start") == 1 and [e.kind for e in log].count("result") == 2
    assert kinds(rig.config.log).count("hub_start") == 4
    report = audit(rig.config.log)
    assert report.ok and report.deals == 2, str(report)


def test_a_log_with_a_start_whose_deals_are_not_the_spec_does_not_replay(tmp_path):
    """History refuses a ``round_start`` whose deals are not the round's hashes, a second
    start, and a deal started before its round's start."""
    from paizhuo.table.history import HistoryError
    from paizhuo.table.eventlog import Entry

    spec_body = {"id": "s1", "round": 1, "group": 1, "game": "bigtwo", "table": "7", "boards": [1, 2],
                 "deal_hashes": round_spec(1)["deal_hashes"], "players": PLAYERS, "moves": None, "start": 0}
    key = deals_.round_key(SECRET, 1)
    good = [deals_.deal_from_round_key(key, "bigtwo", 1, b, round=1).to_dict() for b in (1, 2)]
    other = [deals_.deal_from_round_key(key, "bigtwo", 1, b, round=1).to_dict() for b in (2, 1)]

    def entries(*items):
        return [Entry(i + 1, "7", i + 1, 0, kind, body, "", "") for i, (kind, body) in enumerate(items)]

    ok = TableHistory.from_entries(entries(("round", spec_body), ("round_start", {"round": 1, "id": "s1", "deals": good})))
    assert [r.hash for r in ok.rounds[0].records] == [d["hash"] for d in good]
    for items in ([("round", spec_body), ("round_start", {"round": 1, "id": "s1", "deals": other})],
                  [("round", spec_body), ("round_start", {"round": 1, "id": "s1", "deals": good[:1]})],
                  [("round", spec_body), ("round_start", {"round": 1, "id": "s1"})],
                  [("round", spec_body), ("round_start", {"round": 1, "id": "s1", "deals": good}),
                   ("round_start", {"round": 1, "id": "s1", "deals": good})],
                  [("round", dict(spec_body, deal_hashes={"1": "ab" * 32}))],
                  [("round", {k: v for k, v in spec_body.items() if k != "deal_hashes"})],
                  ):
        with pytest.raises(HistoryError):
            TableHistory.from_entries(entries(*items))
    # A deal started before its round's start: refused (the engine record itself is fine).
    from paizhuo.rules.bigtwo import BigTwo
    engine = BigTwo(deals_.DealRecord.from_dict(good[0]).to_engine_deal()).record()
    early = {"deal": 0, "board": 1, "deal_hash": good[0]["hash"], "deal_record": good[0], "engine": engine}
    with pytest.raises(HistoryError) as info:
        TableHistory.from_entries(entries(("round", spec_body), ("deal_start", early)))
    assert "before the venue's start" in info.value.en
    played = TableHistory.from_entries(entries(("round", spec_body), ("round_start", {"round": 1, "id": "s1", "deals": good}),
                                               ("deal_start", early)))
    assert played.current.index == 0


def test_rows_need_a_player_for_every_seat(tmp_path):
    """A standalone log without [players] for a seat cannot be exported (as before); the
    rows of a venue round always have players."""
    from paizhuo.table.results import ResultsError

    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL], clock={"scale": 0.01, "grace_seconds": 0})
        try:
            await rig.start_hub()
            await wait_until(lambda: "result" in kinds(rig.config.log), "the result", 30)
        finally:
            await rig.close()
        return rig

    rig = run(main())
    with pytest.raises(ResultsError) as info:
        result_rows(log_entries(rig.config.log), rig.config)
    assert info.value.code == "no_player" and "[players.N]" in info.value.en


def test_a_control_the_log_cannot_take_is_refused_and_changes_nothing(tmp_path):
    import sqlite3

    async def main():
        rig = Rig(str(tmp_path), venue=True, seats=(), spares=(SPARE,), clock=FAST)
        try:
            table = await rig.start_hub()
            blocker = sqlite3.connect(rig.config.log, isolation_level=None)
            blocker.execute("BEGIN IMMEDIATE")  # another writer holds the log
            try:
                for call in (lambda: table.load_round(round_spec(1)), lambda: table.note(None, "a", "b"),
                             lambda: table.replace_device("E", SPARE, "ref", "x"), lambda: table.ack_call("E", "ref")):
                    with pytest.raises(TableError) as info:
                        call()
                    assert info.value.code == "log_failed" and info.value.zh
                assert table.plan == [] and table.seat_dev["E"] == DEVICES["E"]
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
            assert table.load_round(round_spec(1)) and table.replace_device("E", SPARE, "ref", "x")
        finally:
            await rig.close()
        return rig

    rig = run(main())
    assert [a["kind"] for a in rig.alerts].count("log_failed") == 4
    assert kinds(rig.config.log).count("round") == 1 and kinds(rig.config.log).count("replace") == 1


# ---- hostile round specs (property) ----------------------------------------------------------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

JSON = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 40, 2 ** 40) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)
SPEC_FIELDS = ["v", "id", "round", "group", "game", "table", "boards", "deal_hashes", "players", "moves", "round_key"]


def test_any_mangled_round_spec_is_accepted_whole_or_refused_with_nothing_changed(tmp_path):
    """A spec with any one field replaced (or dropped, or a player's field mangled) either
    loads as a whole or raises TableError; a refusal writes nothing and loads nothing."""
    rig = Rig(str(tmp_path), venue=True, seats=())
    cfg = rig.config
    for pty in rig.links.values():   # only the configuration is needed: no socat left behind
        pty.close()
    table = Table(cfg, transports=[])
    loaded = []

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(field=st.sampled_from(SPEC_FIELDS + ["players.E", "players.E.no", "players.W.id", "moves.S", "deal_hashes.1"]),
           value=JSON, drop=st.booleans(), rnd=st.integers(1, 3))
    def check(field, value, drop, rnd):
        spec = round_spec(rnd, boards=[1], id="p%d" % len(loaded))
        spec["players"] = {s: dict(p) for s, p in spec["players"].items()}
        spec["moves"] = {"S": {"table": "3", "seat": "N"}}
        parts = field.split(".")
        target = spec
        for p in parts[:-1]:
            target = target[p]
        if drop:
            target.pop(parts[-1], None)
        else:
            target[parts[-1]] = value
        before = (table.log.last_seq, table.book.boards, [r.id for r in table.book.rounds])
        try:
            changed = table.load_round(spec)
        except TableError as e:
            assert e.code and e.en and e.zh
            assert (table.log.last_seq, table.book.boards, [r.id for r in table.book.rounds]) == before
            return
        assert "round_key" not in spec  # a spec with a key (any value) is never loaded
        assert isinstance(changed, bool)
        if changed:
            loaded.append(spec["id"])
            assert table.log.last_seq == before[0] + 1

    try:
        check()
    finally:
        table.log.close()
    assert loaded  # some mangled specs are still valid (e.g. an unknown extra value in moves)


def test_a_stop_asked_for_from_inside_the_tables_own_step_stops_the_hub(tmp_path):
    """The scheduler ends on the stop's cancel even when that cancel meets a wake-up (Python
    3.11's wait_for swallowed it there, and the hub never stopped)."""
    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=("E", "N", "W", "S"), bot_think_seconds=0.001, clock=FAST)
        stop = asyncio.Event()

        def on_entry(entry):
            if entry.kind == "result":
                stop.set()
                rig.table._wake.set()    # what any further step does: the cancel meets a set wake-up
        rig.table = table = Table(rig.config, on_entry=on_entry)
        task = asyncio.create_task(table.run(stop))
        await table.started.wait()
        table.load_round(round_spec(1, boards=[1, 2]))
        table.start_round(1, round_key(1))
        try:
            await asyncio.wait_for(asyncio.shield(task), 30)
        finally:
            stop.set()
            if not task.done():
                task.cancel()
        return rig

    rig = run(main())
    assert kinds(rig.config.log).count("result") >= 1
