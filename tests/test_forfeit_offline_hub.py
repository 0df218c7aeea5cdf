"""A referee's forfeit reaches a hub that was away when it was given: the venue sends the
``end_board`` control again (same id) whenever the hub shows itself, until the hub answers, so
it does not depend on the broker having kept the hub's session; the hub applies it once.

Real parts: mosquitto, the venue service (store in SQLite), the table hub (Table + Uplink,
bots at every seat) playing the venue's round.  The broker loses its state while the hub is
away (killed and restarted without its persistence file: a mosquitto crash before its
autosave, or the embedded broker's venue restarting), which is what left the forfeit unsent.
"""

import asyncio
import os
import sys

from paizhuo.mqtt import wire
from paizhuo.table.runtime import Table
from paizhuo.table.uplink import Uplink
from paizhuo.venue.event import load_text

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from brokers import mosquitto, wait_for  # noqa: E402,F401  (mosquitto is a fixture)
from table_seat import Rig, log_entries  # noqa: E402
from test_venue_match_event import event_text  # noqa: E402
from test_venue_service import broker_venue, running  # noqa: E402


class Hub:
    """The real table hub T07 on the broker, started and stopped as staff would."""

    def __init__(self, rig):
        self.rig = rig
        self.stop = self.tasks = self.uplink = None

    async def start(self):
        self.stop = asyncio.Event()
        table = Table(self.rig.config)
        self.uplink = Uplink(self.rig.config, table)
        self.tasks = [asyncio.ensure_future(table.run(self.stop)), asyncio.ensure_future(self.uplink.run(self.stop))]
        await wait_for(lambda: self.uplink.client.subscribed, 15, "the hub connected and subscribed")

    async def halt(self):
        self.stop.set()
        await asyncio.gather(*self.tasks)


def test_a_forfeit_given_while_the_hub_is_down_is_applied_once_when_it_is_back(tmp_path, mosquitto):  # noqa: F811
    cfg = load_text(event_text(sides=14, tables=7), "cup.toml", base=str(tmp_path))

    async def main():
        (tmp_path / "hub").mkdir()
        rig = Rig(str(tmp_path / "hub"), game="guandan", bots=tuple("ENWS"), bot_think_seconds=0.01,
                  venue={"broker": "127.0.0.1:%d" % mosquitto.port, "event": "cup", "keepalive_seconds": 1,
                         "resend_seconds": 0.3},
                  clock={"next_deal_seconds": 0.05})
        venue = broker_venue(cfg, str(tmp_path / "venue.sqlite"), mosquitto.port)
        hub = Hub(rig)
        vstop, vtask = await running(venue, start=False)
        try:
            await hub.start()
            await wait_for(lambda: venue._live.get("T07", ({}, 0))[0].get("round") == 1, 15, "the round loaded")
            await venue.start_round(1, "裁判 Li")
            await wait_for(lambda: len(log_entries(rig.config.log, kind="action")) >= 8, 30, "the match under way")
            await hub.halt()
            await wait_for(lambda: venue._online.get("T07") is False, 15, "the venue sees the hub offline")
            # The broker loses the hub's session (and its queue) while the hub is away.
            connects = venue.link.connects
            mosquitto.kill()
            for name in os.listdir(mosquitto.folder):
                if name.endswith(".db"):
                    os.remove(os.path.join(mosquitto.folder, name))
            mosquitto.start()
            await wait_for(lambda: venue.link.connects > connects, 15, "the venue back on the broker")
            match = next(m for m in venue.seat_map()["matches"] if any(r["table"] == "7" for r in m["rooms"]))
            await venue.forfeit(1, "7", match["away"], "裁判 Li", "no show at 14:10")
            await asyncio.sleep(0.5)
            await hub.start()
            await wait_for(lambda: log_entries(rig.config.log, kind="board_end"), 20, "the forfeit applied at the table")
            sent = [c for c in venue.store.controls("cup", "T07") if c["op"] == "end_board"]
            await wait_for(lambda: all(c["reply"] for c in venue.store.controls("cup", "T07") if c["op"] == "end_board"),
                           15, "the hub's answer at the venue")
            await hub.halt()
            await hub.start()  # and a restart of the hub does not apply it again
            await wait_for(lambda: hub.uplink.published_live >= 2, 10, "the restarted hub's snapshots at the venue")
            # The same control once more (a resend whose first answer was lost): answered, not applied again.
            body = sent[0]["body"]
            venue.link.publish(wire.venue_topic("cup", "control", "T07"), wire.dumps(body))
            await wait_for(lambda: body["id"] in hub.uplink.replies, 10, "the repeated control answered")
            assert hub.uplink.replies[body["id"]]["ok"] is True
            await hub.halt()
        finally:
            vstop.set()
            await vtask
            await rig.close()
        return rig, venue, sent

    rig, venue, sent = asyncio.run(asyncio.wait_for(main(), 120))
    (end,) = [e.body for e in log_entries(rig.config.log, kind="board_end")]  # exactly once
    assert end["round"] == 1 and end["by"] == "裁判 Li" and "no show at 14:10" in end["reason"]
    (control,) = [c for c in venue.store.controls("cup", "T07") if c["op"] == "end_board"]
    assert len(sent) == 1 and control["reply"]["ok"] is True
