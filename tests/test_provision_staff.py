"""Issue #13: ``paizhuo provision boards|assign|push|verify|rollback`` for venue staff, on a table
of four simulated boards (the real firmware on the unix port, one pty each).

One table for the whole module, in the order staff meet it: four blank boards are listed,
assigned their seats (labels printed), updated at once with progress, verified, refused a
release for another board, and rolled back.
"""

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

from simboard import SimBoard, shared_firmware  # noqa: E402
from test_provision_update import variant  # noqa: E402

from paizhuo import cli  # noqa: E402
from paizhuo.sim.links import PtyLink  # noqa: E402

pytestmark = pytest.mark.micropython
SEATS = "ENWS"
KEY_HEX = re.compile(r"[0-9a-f]{64}")


def run(argv, capsys):
    try:
        rc = cli.main(argv)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def make_release(folder, image, boards=("ref-s3", "host"), version="0.2.0-t2"):
    folder.mkdir(parents=True)
    (folder / "seat.romfs").write_bytes(image)
    sha = hashlib.sha256(image).hexdigest()
    manifest = {"format": 1, "name": "paizhuo-seat", "version": version, "commit": "0" * 40, "boards": list(boards),
                "micropython": "1.29", "mpy": 6, "image": {"path": "seat.romfs", "size": len(image), "sha256": sha},
                "boot": [], "files": [{"path": "seat.romfs", "size": len(image), "sha256": sha}]}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = tmp_path_factory.mktemp("table")
    fw = shared_firmware()
    links, boards = [], []
    try:
        for s in SEATS:
            links.append(PtyLink(str(root), s))
            boards.append(SimBoard(fw, root / ("board-" + s), links[-1].seat_path))
        for b in boards:
            b.wait_line("service mode")
        yield root, fw, links, boards
    finally:
        for b in boards:
            b.stop()
        for link in links:
            link.close()


@pytest.fixture(scope="module")
def assigned(table):
    root, fw, links, boards = table
    ports = ",".join(link.hub_path for link in links)
    rc = cli.main(["provision", "assign", "--table", "7", "--hub", "T07", "--ports", ports,
                   "--out-dir", str(root / "t7"), "--event", "demo"])
    assert rc == 0
    return root / "t7" / "table.toml"


def test_blank_boards_are_listed(table, capsys):
    root, fw, links, boards = table
    rc, out, err = run(["provision", "boards", "--ports", ",".join(link.hub_path for link in links)], capsys)
    assert rc == 0, err
    assert out.count("(blank)") == 4 and "host" in out and "0.2.0" in out


def test_assign_gives_each_seat_its_identity_and_a_label(table, assigned, capsys):
    root, fw, links, boards = table
    labels = (root / "t7" / "labels.txt").read_text()
    for s, zh in zip(SEATS, "东北西南"):
        assert "第 7 桌  %s %s" % (zh, s) in labels and "device T07-%s" % s in labels
    assert not KEY_HEX.search(labels)
    for s, b in zip(SEATS, boards):
        assert b.seat_file()["dev"] == "T07-" + s
    rc, out, err = run(["provision", "boards", "--config", str(assigned),
                        "--ports", ",".join(link.hub_path for link in links)], capsys)
    assert rc == 0, err
    assert out.count("key ok") == 4 and "table 7 seat N hub T07" in out
    assert not KEY_HEX.search(out + err), "no key is printed"


def test_push_updates_the_whole_table_at_once_then_verify(table, assigned, capsys, tmp_path):
    root, fw, links, boards = table
    rel = make_release(tmp_path / "rel", variant(fw, tmp_path, "two"))
    rc, out, err = run(["provision", "push", "--config", str(assigned), "--release", str(rel)], capsys)
    assert rc == 0, out + err
    assert out.count("] 100%") == 4 and "[##########----------]  50%" in out
    assert out.count("ok      ") == 4 and "runs 0.2.0-t2" in out
    rc, out, err = run(["provision", "verify", "--config", str(assigned), "--release", str(rel)], capsys)
    assert rc == 0, out + err
    assert out.count("key ok, runs 0.2.0-t2") == 4


def test_a_release_for_another_board_is_refused_and_nothing_changes(table, assigned, capsys, tmp_path):
    root, fw, links, boards = table
    before = [b.boot_state() for b in boards]
    rel = make_release(tmp_path / "c6", variant(fw, tmp_path, "c6"), boards=("ref-c6",))
    rc, out, err = run(["provision", "push", "--config", str(assigned), "--release", str(rel), "--dev", "T07-E"],
                       capsys)
    assert rc == 1
    assert "is for ref-c6, not for T07-E's board host" in out and "不适用于 T07-E 的板型 host" in out
    assert "Traceback" not in out + err
    assert [b.boot_state() for b in boards] == before


def test_a_damaged_release_and_a_missing_board(table, assigned, capsys, tmp_path):
    root, fw, links, boards = table
    rel = make_release(tmp_path / "bad", b"x" * 100)
    (rel / "seat.romfs").write_bytes(b"y" * 100)
    rc, out, err = run(["provision", "push", "--config", str(assigned), "--release", str(rel)], capsys)
    assert rc == 2 and "checksum mismatch" in err and "校验不符" in err
    rc, out, err = run(["provision", "boards", "--ports", str(tmp_path / "nothing")], capsys)
    assert "cannot open" in out and "无法打开" in out


def test_rollback_puts_a_board_back_on_its_old_firmware(table, assigned, capsys):
    root, fw, links, boards = table
    assert boards[1].boot_state()["active"] == "b"
    rc, out, err = run(["provision", "rollback", "--config", str(assigned), "--dev", "T07-N"], capsys)
    assert rc == 0, out + err
    assert "T07-N runs factory" in out
    assert boards[1].boot_state()["active"] == "a" and boards[0].boot_state()["active"] == "b"
    shutil.rmtree(root / "t7" / "unused", ignore_errors=True)
