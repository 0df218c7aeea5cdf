"""A spare board swapped in while the hub runs (issue 12): staff provision a spare the hub did
not know at its start, add its block to table.toml, and the referee's replace puts it in."""

import asyncio

import pytest

from paizhuo.provision import device_block
from paizhuo.table.runtime import TableError

from table_seat import DEVICES, Rig, TestSeat, in_round_one, log_entries

NEW = "S-0100"
NEW_KEY = bytes(range(100, 132))
FAST = {"next_deal_seconds": 0.05, "grace_seconds": 600}


def run(coro, timeout=120):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def test_a_spare_provisioned_while_the_hub_runs_replaces_a_failed_board(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, clock=FAST)   # no spare in table.toml at the start
        try:
            table = await in_round_one(rig, 4)
            await rig.seats["E"].stop()   # East's board fails
            # Not provisioned yet: refused, with what to do, and nothing logged.
            n = table.log.last_seq
            with pytest.raises(TableError) as e:
                table.replace_device("E", NEW, by="referee Li", reason="screen dead")
            assert e.value.code == "unknown_device" and "paizhuo provision board" in e.value.en
            assert "无需重启" in e.value.zh and table.log.last_seq == n
            # A block that is not a spare's is not taken either.
            with open(rig.config_path, "a") as f:
                f.write("\n" + device_block("S-0101", bytes(range(140, 172)), seat="E") + "\n")
            with pytest.raises(TableError):
                table.replace_device("E", "S-0101", by="referee Li", reason="x")
            # Staff provision the spare and add its block; the referee's replace takes it.
            text = open(rig.config_path).read().replace(device_block("S-0101", bytes(range(140, 172)), seat="E"), "")
            with open(rig.config_path, "w") as f:
                f.write(text + "\n" + device_block(NEW, NEW_KEY, seat="spare") + "\n")
            spare = TestSeat(rig.links["E"].seat_path, NEW, NEW_KEY)
            await spare.start()
            assert table.replace_device("E", NEW, by="referee Li", reason="screen dead") is True
            await spare.wait_for(lambda: spare.online, 10, "the new spare welcomed")
            assert spare.welcome["seat"] == "E"
            await spare.wait_for(lambda: spare.view == table.game.view("E"), 10, "East's view on the spare")
            await spare.stop()
            await rig.stop_hub()
            table = await rig.start_hub()   # the file now has the spare: the replacement replays
            assert table.seat_dev["E"] == NEW
        finally:
            await rig.close()
        return rig

    rig = run(main())
    rep = [e.body for e in log_entries(rig.config.log) if e.kind == "replace"]
    assert rep == [{"seat": "E", "dev": NEW, "old": DEVICES["E"], "by": "referee Li", "reason": "screen dead"}]


def test_a_broken_table_toml_refuses_the_new_spare_and_changes_nothing(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), venue=True, clock=FAST)
        try:
            table = await rig.start_hub()
            with open(rig.config_path, "a") as f:
                f.write("\n[devices.%s]\nkey = \"00\"\nseat = \"spare\"\n" % NEW)
            with pytest.raises(TableError) as e:
                table.replace_device("E", NEW, by="referee Li", reason="x")
            assert e.value.code == "bad_key" and "devices.S-0100.key" in e.value.en and "无法重新读取" in e.value.zh
            assert table.seat_dev["E"] == DEVICES["E"] and NEW not in table.config.devices
        finally:
            await rig.close()

    run(main())
