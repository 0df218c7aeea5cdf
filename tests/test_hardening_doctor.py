"""`paizhuo hub doctor` beside a running hub: the brokers give each login one client id (its
username), so the doctor must not log in as the hub while it runs (that would disconnect it)."""

import asyncio
import subprocess
import sys

from brokers import login
from paizhuo.table import config as table_config
from paizhuo.table import doctor
from test_doctor import table  # noqa: F401  (the fixture: real seats, real mosquitto, table.toml)


def test_the_doctor_leaves_a_running_hubs_broker_connection_alone(table):   # noqa: F811
    root, fw, links, seats, toml = table
    cfg = table_config.load(str(toml))
    # The hub holds its ports: a process that holds one plays it.
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; f = open(sys.argv[1], 'rb', buffering=0); "
                               "print('held', flush=True); time.sleep(60)", links[0].hub_path],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"

    class Files:
        host, port, files = cfg.venue.host, cfg.venue.port, str(root / "broker")

    async def main():
        drops = []
        hub = login(Files, "T01", clean_session=False, on_disconnect=lambda: drops.append(1))
        await hub.start()
        await hub.wait_connected(10)
        try:
            found = await asyncio.get_running_loop().run_in_executor(None, doctor.diagnose, cfg, True)
            await asyncio.sleep(0.5)
            return found, drops, hub.connects
        finally:
            await hub.stop()
    try:
        found, drops, connects = asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        holder.kill()
        holder.wait()
    broker = [f for f in found if f.what == "broker"][0]
    assert broker.level == doctor.WARN and "while the hub runs" in broker.en and "主机运行时" in broker.zh
    assert drops == [] and connects == 1


def test_the_doctor_of_a_stopped_hub_leaves_what_the_venue_queued_for_it(table):   # noqa: F811
    """The doctor's login must not consume the stopped hub's session: a control the venue sent
    while the hub was down still reaches the hub when it comes back."""
    root, fw, links, seats, toml = table
    cfg = table_config.load(str(toml))
    from paizhuo.mqtt import wire

    class Files:
        host, port, files = cfg.venue.host, cfg.venue.port, str(root / "broker")

    topic = wire.venue_topic("demo", "control", "T01")

    async def main():
        got = []
        hub = login(Files, "T01", clean_session=False, on_message=lambda t, p: got.append(p))
        hub.subscribe(topic, 1)
        await hub.start()
        await hub.wait_connected(10)
        await asyncio.sleep(0.3)                      # the subscription is in the session
        await hub.stop()                              # the hub stops; its session stays
        venue = login(Files, "venue")
        await venue.start()
        await venue.wait_connected(10)
        await venue.published(venue.publish(topic, b'{"queued": 1}', qos=1), timeout=10)
        await venue.stop()
        found = await asyncio.get_running_loop().run_in_executor(None, doctor.check_broker, cfg)
        back = login(Files, "T01", clean_session=False, on_message=lambda t, p: got.append(p))
        back.subscribe(topic, 1)
        await back.start()
        await back.wait_connected(10)
        for _ in range(50):
            if got:
                break
            await asyncio.sleep(0.1)
        await back.stop()
        return found, got
    found, got = asyncio.run(asyncio.wait_for(main(), 60))
    assert found.level == doctor.OK, found.en
    assert got == [b'{"queued": 1}']
