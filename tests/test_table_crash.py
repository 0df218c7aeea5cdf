"""Crash safety: ``kill -9`` the hub process mid-deal, start it again with the same config.

The restarted hub resumes the same deal at the same turn with the time the player had left
when the hub died (downtime does not count), and every seat resynchronises: the hub opens
the ports again with a new challenge, each seat says hello, and gets its full state.
"""

import asyncio
import signal
import time

import pytest

from paizhuo.table import eventlog
from paizhuo.table.history import audit

from table_seat import Rig, play_deal, play_until

DOWNTIME = 2.0  # seconds the hub stays dead


def entries(path):
    db = eventlog.open_readonly(path)
    try:
        return eventlog.read_entries(db, "7")
    finally:
        db.close()


@pytest.mark.parametrize("kill_at", [2, 14], ids=["during 明牌", "during play"])
def test_sigkill_mid_deal_resumes_the_same_deal_turn_and_clock(tmp_path, kill_at):
    async def main():
        rig = Rig(str(tmp_path), clock={"checkpoint_seconds": 0.2, "restart_floor_seconds": 0})
        try:
            await rig.start_seats()
            rig.spawn_hub()
            await rig.all_online(timeout=20)
            if kill_at == 2:  # two of the four have made their 明牌 choice; the shared clock runs on
                for s in "EN":
                    rig.seats[s].intent({"type": "show", "yes": s == "N"}, turn=0)
                for seat in rig.seats.values():
                    await seat.wait_for(lambda seat=seat: seat.turn == 2, 10, "two 明牌 decisions")
            else:
                await play_until(rig, kill_at)
            await asyncio.sleep(1.0)  # the clock of the open decision runs for a while
            seats = rig.seats
            waiting = [s for s, seat in seats.items() if seat.my_turn()]
            assert waiting
            probe = seats[waiting[0]]
            before = {s: (seat.turn, seat.view) for s, seat in seats.items()}
            welcomes = {s: seat.welcomes for s, seat in seats.items()}
            killed = time.monotonic()
            left_at_kill = probe.clock["ms"] - (killed - probe.clock_at) * 1000  # the seat's own countdown
            rig.kill_hub(signal.SIGKILL)
            await asyncio.sleep(DOWNTIME)
            marks = {s: len(seat.frames) for s, seat in seats.items()}
            rig.spawn_hub()
            states = {}
            try:
                for s, seat in seats.items():
                    await seat.wait_for(lambda seat=seat, s=s: seat.welcomes > welcomes[s] and seat.online, 20,
                                        "re-welcome")
                    states[s] = await seat.wait_frame("state", marks[s], 10)
            except TimeoutError as e:
                with open(rig.hub_output, encoding="utf-8", errors="replace") as f:
                    raise AssertionError("%s; the restarted hub said:\n%s" % (e, f.read())) from None
            for s, state in states.items():
                assert state["screen"] == "deal"
                assert (state["turn"], state["view"]) == before[s], s  # same deal, same turn, same view
            clock = states[waiting[0]]["clock"]
            assert sorted(clock["seats"]) == sorted(waiting) and clock["paused"] is False
            await play_deal(rig)
        finally:
            await rig.close()
        return rig, waiting, left_at_kill

    rig, waiting, left_at_kill = asyncio.run(asyncio.wait_for(main(), 120))
    log = entries(rig.config.log)
    kinds = [e.kind for e in log]
    assert kinds.count("hub_start") == 2 and kinds.count("deal_start") == 1 and kinds.count("result") == 1
    second = [e for e in log if e.kind == "hub_start"][1]
    assert second.body["resumed"] == 0
    restart = [e.body for e in log if e.kind == "clock" and e.body["why"] == "restart"]
    assert len(restart) == 1 and restart[0]["turn"] <= kill_at
    if kill_at == 2:
        assert restart[0]["key"] == "show" and restart[0]["seats"] == ["W", "S"] and restart[0]["turn"] == 0
    # The restored time is what was left when the hub died: saved every 0.2 s, so at most a
    # checkpoint (plus scheduling) in the player's favour, and the 2 s of downtime are not charged.
    assert left_at_kill - 150 <= restart[0]["remaining_ms"] <= left_at_kill + 1000, (restart, left_at_kill)
    turns = [e.body["turn"] for e in log if e.kind == "action"]
    assert turns == list(range(len(turns)))  # no action lost or doubled across the crash
    report = audit(rig.config.log)
    assert report.ok and report.deals == 1, str(report)
