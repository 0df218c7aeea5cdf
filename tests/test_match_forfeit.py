"""A referee's forfeit in the venue reaches the table: the venue sends the match's hubs an
``end_board`` control on their own (authenticated) control topic; the hub ends the board
where it stands with a logged reason, the seats are told, nothing more of it is played after
a restart, the log audits, and no result of that match is counted twice."""

import asyncio
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo import deals, rules
from paizhuo.mqtt import wire
from paizhuo.table import results as results_
from paizhuo.table.history import audit
from paizhuo.table.runtime import TableError
from paizhuo.table.uplink import Uplink

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from table_seat import SECRET, Rig, log_entries  # noqa: E402
from test_table_match import A_BOARD, spec, wait_until  # noqa: E402
from test_venue_match_event import event_text, hubs_of, running, send, settle, venue_of  # noqa: E402


class Recorder:
    """The hub's MQTT client as the uplink sees it, recording what it publishes (the broker
    path of controls is tested in tests/test_uplink*)."""

    def __init__(self):
        self.sent = []
        self.on_message = self.on_connect = None

    def publish(self, topic, payload, qos=1, retain=False):
        self.sent.append((topic, wire.loads(payload)))


def venue_forfeit_control():
    """The control the venue sends table 2's hub when a referee forfeits its round-1 match;
    and whether a result that hub sends afterwards changed the standings."""
    async def main():
        venue = venue_of(event_text())
        hubs = hubs_of(venue)
        stop, task = await running(venue)
        try:
            m = venue.seat_map()["matches"][1]  # table 2's match
            await venue.forfeit(1, "2", m["away"], "裁判 Li", "no show at 14:10")
            await settle(venue)
            before = venue.standings()["sides"]
            send(venue, hubs["T02"], hubs["T02"].result(venue.spec_of("T02")))  # the hub finished it anyway
            await settle(venue)
            after = venue.standings()["sides"]
        finally:
            stop.set()
            await task
        return [b for t, b, _ in venue.link.sent if t == wire.venue_topic("cup", "control", "T02")
                and b["op"] != "start"], before, after
    return asyncio.run(main())


def test_a_referees_forfeit_ends_the_match_at_the_table_and_is_counted_once(tmp_path):
    sent, before, after = venue_forfeit_control()
    assert len(sent) == 1
    control = wire.check_control(sent[0])
    assert (control["op"], control["round"], control["by"]) == ("end_board", 1, "裁判 Li")
    assert "no show at 14:10" in control["reason"]
    assert before == after  # the result the hub sent after the forfeit is kept, not counted

    key = deals.round_key(SECRET, 1)
    hashes = {str(A_BOARD): deals.deal_from_round_key(key, "guandan", 1, A_BOARD, round=1).hash}

    async def main():
        rig = Rig(str(tmp_path), venue=True, bots=tuple("ENWS"), bot_think_seconds=0.01, game="guandan",
                  clock={"next_deal_seconds": 0.05})
        client = Recorder()
        try:
            table = await rig.start_hub()
            up = Uplink(rig.config, table, client=client)
            table.load_round(spec("guandan", boards=[A_BOARD], deal_hashes=hashes))
            table.start_round(1, key.hex())
            await wait_until(lambda: len(log_entries(rig.config.log, kind="action")) >= 12, "the match under way")
            with pytest.raises(TableError) as e:  # a round this table never loaded: refused, nothing logged
                table.end_board(3, by="裁判 Li", reason="forfeit")
            assert e.value.code == "unknown_round" and e.value.zh
            assert not log_entries(rig.config.log, kind="board_end")
            up._on_message(wire.venue_topic(rig.config.venue.event, "control", rig.config.hub), wire.dumps(control))
            snap = table.snapshot()
            await asyncio.sleep(0.3)  # nothing more is played
            acts = len(log_entries(rig.config.log, kind="action"))
            await rig.stop_hub()
            table = await rig.start_hub()  # a restart does not bring the match back
            await asyncio.sleep(0.3)
            assert len(log_entries(rig.config.log, kind="action")) == acts
            snap2 = table.snapshot()
        finally:
            await rig.close()
        return rig, client, snap, snap2

    rig, client, snap, snap2 = asyncio.run(asyncio.wait_for(main(), 60))
    replies = [b for t, b in client.sent if t.endswith("/reply")]
    assert replies and replies[-1]["ok"] is True
    log = log_entries(rig.config.log)
    (end,) = [e.body for e in log if e.kind == "board_end"]
    assert end["round"] == 1 and end["by"] == "裁判 Li" and "no show" in end["reason"] and end["deals"] == [0]
    kinds = [e.kind for e in log]
    assert "result" not in kinds and "deal_start" not in kinds[kinds.index("board_end"):]
    for s in (snap, snap2):  # the venue's view (and the seats' state) say who ended it and why
        assert s["screen"] == "waiting" and s["match"]["forfeited"]["by"] == "裁判 Li"
        wire.check_live(s)
    builder = results_.ResultBuilder(rig.config)
    assert [m for m in (builder.feed(e) for e in log) if m is not None] == []  # no result is sent for it
    report = audit(rig.config.log)
    assert report.ok, str(report)
    assert "forfeit" in str(report)
    assert rules.game("guandan").match


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["round", "by", "reason", "seat", "extra"]),
                       st.one_of(st.none(), st.booleans(), st.integers(-5, 10 ** 12), st.text(max_size=30))))
def test_any_end_board_control_is_checked_or_refused_in_both_languages(fields):
    msg = dict(fields, v=1, id="c1", op="end_board")
    try:
        checked = wire.check_control(msg)
    except wire.WireError as e:
        assert e.code and e.en and e.zh
        return
    assert type(checked["round"]) is int and checked["round"] >= 1
    assert isinstance(checked["by"], str) and isinstance(checked["reason"], str)

