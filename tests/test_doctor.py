"""Issue #13: ``paizhuo hub doctor`` against a healthy table and against each fault it names.

The table is real: four seat boards running the firmware on the unix port over ptys, a real
mosquitto with the hub's own login (``paizhuo broker config``), the hub's table.toml.  Two
inputs are given rather than made: the clock's sync state (this machine's timedatectl is not
the test's to set) and, for the full disk, the ``statvfs`` reading — a small filesystem image
or a quota needs privileges this test must not assume, so the check is fed the numbers a full
card gives.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brokers import Mosquitto, free_port

sys.path.insert(0, str(Path(__file__).parent / "firmware"))
from simboard import shared_firmware  # noqa: E402

from paizhuo import cli
from paizhuo.mqtt import mosquitto as mq
from paizhuo.provision import provision_table
from paizhuo.sim.firmware import SeatProcess
from paizhuo.sim.links import PtyLink
from paizhuo.table import config as table_config
from paizhuo.table import doctor

pytestmark = pytest.mark.micropython
SEATS = "ENWS"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = tmp_path_factory.mktemp("doctor")
    fw = shared_firmware()
    port = free_port()
    mq.write_config(str(root / "broker"), "demo", ["T01", "T02"], port=port, bind="127.0.0.1")
    broker = Mosquitto(root / "broker", conf=root / "broker" / "mosquitto.conf", port=port)
    broker.start()
    links = [PtyLink(str(root), s) for s in SEATS]
    made = provision_table(root / "t", "7", "T01", ",".join("S-000%d:%s" % (i + 1, s) for i, s in enumerate(SEATS)),
                           ",".join(link.hub_path for link in links), event="demo")
    shutil.copyfile(root / "broker" / "T01.pass", root / "t" / "T01.pass")
    os.chmod(root / "t" / "T01.pass", 0o600)
    with open(made.toml_path, "a") as f:
        f.write('\n[venue]\nbroker = "127.0.0.1:%d"\nevent = "demo"\npassword_file = "T01.pass"\n' % port)
    cfg = table_config.load(str(made.toml_path))
    seats = []
    try:
        for i, (s, link) in enumerate(zip(SEATS, links)):
            d = cfg.seat_device(s)
            seats.append(SeatProcess(fw, d.id, d.key.hex(), link.seat_path, root / ("frames-" + s)))
        for seat in seats:
            seat.wait_line("link open", timeout=30)
        yield root, fw, links, seats, made.toml_path
    finally:
        for seat in seats:
            seat.stop()
        for link in links:
            link.close()
        broker.stop()


def levels(found, what):
    return [(f.level, f.en) for f in found if f.what == what]


def test_a_healthy_table(table, capsys):
    root, fw, links, seats, toml = table
    found = doctor.diagnose(table_config.load(str(toml)), synced=True)
    assert [f for f in found if f.level != doctor.OK] == []
    boards = levels(found, "board")
    assert len(boards) == 4 and all("key matches" in en and "firmware 0.2.0" in en for _, en in boards)
    assert "accepts the hub's login" in levels(found, "broker")[0][1]
    # The command itself: this machine's clock may only warn, nothing fails.
    rc = cli.main(["hub", "doctor", "--config", str(toml)])
    out = capsys.readouterr().out
    assert rc == 0 and "0 problem(s)" in out and "密钥匹配" in out


def test_a_missing_port(table):
    root, fw, links, seats, toml = table
    cfg = table_config.load(str(toml))
    cfg.ports = list(cfg.ports[:3]) + [str(root / "gone.hub")]
    found = doctor.diagnose(cfg, synced=True)
    [(level, en)] = [x for x in levels(found, "port") if "gone" in x[1]]
    assert level == doctor.FAIL and "is missing" in en and "unplugged" in en
    f = [f for f in found if f.what == "port" and f.level == doctor.FAIL][0]
    assert "不存在" in f.zh


def test_a_board_with_the_wrong_key(table, tmp_path):
    root, fw, links, seats, toml = table
    with PtyLink(str(tmp_path), "X") as link:
        stranger = SeatProcess(fw, "S-0002", "77" * 32, link.seat_path, tmp_path / "frames")
        try:
            stranger.wait_line("link open", timeout=30)
            f = doctor.check_board(link.hub_path, table_config.load(str(toml)))
        finally:
            stranger.stop()
    assert f.level == doctor.FAIL and "another key" in f.en and "bad_tag" in f.en and "密钥" in f.zh


def test_a_broker_that_refuses_the_hubs_password(table):
    root, fw, links, seats, toml = table
    pw = root / "t" / "T01.pass"
    good = pw.read_text()
    pw.write_text("not-the-password-at-all\n")
    try:
        f = doctor.check_broker(table_config.load(str(toml)))
    finally:
        pw.write_text(good)
    assert f.level == doctor.FAIL and "refuses the hub's login" in f.en and "拒绝" in f.zh


def test_a_full_disk(table):
    root, fw, links, seats, toml = table

    class Full:  # what os.statvfs reports for a 32 GB card with 50 MB left
        f_frsize = 4096
        f_blocks = 32 * 1024 * 1024 * 1024 // 4096
        f_bavail = 50 * 1024 * 1024 // 4096
    found = doctor.diagnose(table_config.load(str(toml)), synced=True, statvfs=lambda p: Full)
    [(level, en)] = levels(found, "disk")
    assert level == doctor.FAIL and "only 50 MB" in en and "delete old logs" in en


def test_clock_and_log_faults(tmp_path):
    assert doctor.check_clock(True, now=0).level == doctor.FAIL
    assert doctor.check_clock(False).level == doctor.WARN
    bad = tmp_path / "log.sqlite"
    bad.write_bytes(b"SQLite format 3\0" + b"\xff" * 5000)
    f = doctor.check_log(str(bad))
    assert f.level == doctor.FAIL and "paizhuo hub verify" in f.en
