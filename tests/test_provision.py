"""``paizhuo provision``: seat boards' key files and a table's table.toml, as staff make them.

Real files in temporary folders; the written table.toml is read by the hub's own reader and
served by a real ``paizhuo hub`` process; every seat.json is read by the firmware's own
parser under CPython and under the MicroPython unix port, and four firmware seats link up
with the hub using the provisioned keys.
"""

import json
import os
import re
import signal
import stat
import subprocess
import sys
import tomllib

import pytest

from paizhuo import rules
from hypothesis import given, settings, strategies as st

from paizhuo import cli, provision
from paizhuo.sim import firmware as firmware_
from paizhuo.sim.links import PtyLink
from paizhuo.table import config as table_config
from paizhuo.table import eventlog
from paizhuo.venue import deals as deals_

SEATS = ("E", "N", "W", "S")
DEVICES = "S-0001:E,S-0002:N,S-0003:W,S-0004:S"
PORTS = "/dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3"
ROUND_KEY = "5a" * 32
KEY_HEX = re.compile(r"[0-9a-fA-F]{64}")


def run(argv, capsys):
    """``paizhuo ARGV`` in this process: (exit code, stdout, stderr)."""
    try:
        rc = cli.main(argv)
    except SystemExit as e:  # argparse refuses a missing or unknown option this way
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def snapshot(folder):
    """Every path under ``folder`` with its mode and bytes: what a refused command must not change."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_mode, p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def table_args(out_dir, *extra, devices=DEVICES, ports=PORTS):
    return ["provision", "table", "--table", "7", "--hub", "T07", "--devices", devices, "--ports", ports,
            "--out-dir", str(out_dir), *extra]


@pytest.fixture(scope="module")
def fwconfig():
    """The firmware's provisioning reader (device/seat/config.py) under CPython."""
    return provision.firmware_config()


# ---- one board ------------------------------------------------------------------------------

def test_board_file_is_private_and_the_firmware_reads_it(tmp_path, capsys, fwconfig):
    out = tmp_path / "seat.json"
    rc, stdout, stderr = run(["provision", "board", "--dev", "S-0001", "--seat", "E", "--out", str(out)], capsys)
    assert rc == 0, stderr
    assert mode(out) == 0o600
    data = json.loads(out.read_text())
    assert set(data) == {"dev", "key", "lang", "board"}
    board = fwconfig.load(str(out))
    assert (board.dev, board.lang, board.board, len(board.key)) == ("S-0001", "zh", "ref-s3", 32)
    # stdout is exactly the [devices] block (so `>> table.toml` appends nothing else) ...
    block = tomllib.loads(stdout)["devices"]["S-0001"]
    assert block == {"key": data["key"], "seat": "E"}
    # ... and the copy hint is on stderr, naming the file written
    assert "mpremote cp %s :/seat.json" % out in stderr
    assert data["key"] not in stderr


def with_block(block, dev="S-0001"):
    """The hub's example table.toml with ``dev``'s [devices] table replaced by ``block``."""
    text = table_config.EXAMPLE
    old = re.search(r"\[devices\.%s\]\nkey = \"[0-9a-f]{64}\"\nseat = \"[ENWS]\"\n" % dev, text).group(0)
    return text.replace(old, block + "\n")


def test_the_printed_block_is_what_the_hub_reads(tmp_path, capsys):
    rc, stdout, _ = run(["provision", "board", "--dev", "S-0001", "--seat", "E", "--lang", "en",
                         "--out", str(tmp_path / "seat.json")], capsys)
    assert rc == 0
    cfg = table_config.load_text(with_block(stdout.rstrip("\n")))
    d = cfg.device("S-0001")
    assert d.key.hex() == json.loads((tmp_path / "seat.json").read_text())["key"]
    assert (d.seat, d.lang) == ("E", "en")
    assert json.loads((tmp_path / "seat.json").read_text())["lang"] == "en"


def test_a_spare_board_is_provisioned_for_the_referees_replace(tmp_path, capsys):
    rc, stdout, _ = run(["provision", "board", "--dev", "S-0099", "--seat", "spare", "--out", str(tmp_path / "seat.json")],
                        capsys)
    assert rc == 0
    cfg = table_config.load_text(table_config.EXAMPLE + "\n" + stdout)  # beside the four seats' boards
    assert cfg.device("S-0099").seat == "spare" and cfg.spares == ["S-0099"]
    rc, _, stderr = run(["provision", "board", "--dev", "S-0098", "--seat", "X", "--out", str(tmp_path / "x.json")], capsys)
    assert rc == 2 and "--seat" in stderr and "spare" in stderr and not (tmp_path / "x.json").exists()


def test_without_a_seat_the_block_cannot_run_until_staff_set_it(tmp_path, capsys):
    rc, stdout, stderr = run(["provision", "board", "--dev", "S-0001", "--out", str(tmp_path / "seat.json")], capsys)
    assert rc == 0 and "set its seat" in stderr
    with pytest.raises(table_config.ConfigError) as e:
        table_config.load_text(with_block(stdout.rstrip("\n")))
    assert e.value.code == "bad_seat" and e.value.key == "devices.S-0001.seat"


def test_an_existing_file_is_kept_unless_forced(tmp_path, capsys):
    out = tmp_path / "seat.json"
    assert run(["provision", "board", "--dev", "S-0001", "--out", str(out)], capsys)[0] == 0
    first = out.read_bytes()
    rc, stdout, stderr = run(["provision", "board", "--dev", "S-0002", "--out", str(out)], capsys)
    assert rc == 2 and stdout == ""
    assert "--out" in stderr and "already exists" in stderr and "--force" in stderr
    assert out.read_bytes() == first
    os.chmod(out, 0o644)
    assert run(["provision", "board", "--dev", "S-0002", "--out", str(out), "--force"], capsys)[0] == 0
    data = json.loads(out.read_text())
    assert data["dev"] == "S-0002" and data["key"] != json.loads(first)["key"]
    assert mode(out) == 0o600, "a replaced file is private again"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seat.json"], "no temporary file left behind"


def test_files_are_0600_whatever_the_umask(tmp_path, capsys):
    old = os.umask(0)
    try:
        assert run(["provision", "board", "--dev", "S-0001", "--out", str(tmp_path / "seat.json")], capsys)[0] == 0
        assert run(table_args(tmp_path / "t"), capsys)[0] == 0
    finally:
        os.umask(old)
    assert mode(tmp_path / "seat.json") == 0o600
    assert mode(tmp_path / "t" / "table.toml") == 0o600
    for dev in ("S-0001", "S-0002", "S-0003", "S-0004"):
        assert mode(tmp_path / "t" / dev / "seat.json") == 0o600
        assert mode(tmp_path / "t" / dev) == 0o700
    assert mode(tmp_path / "t") == 0o700


def test_keys_differ_between_boards_and_runs(tmp_path, capsys):
    keys = []
    for i in range(3):
        out = tmp_path / ("b%d.json" % i)
        assert run(["provision", "board", "--dev", "S-0001", "--out", str(out)], capsys)[0] == 0
        keys.append(json.loads(out.read_text())["key"])
    for run_no in range(2):
        folder = tmp_path / ("t%d" % run_no)
        assert run(table_args(folder), capsys)[0] == 0
        cfg = table_config.load(str(folder / "table.toml"))
        keys += [d.key.hex() for d in cfg.devices.values()]
    assert len(keys) == 11 and len(set(keys)) == 11
    assert all(len(bytes.fromhex(k)) == 32 for k in keys)


# ---- a table --------------------------------------------------------------------------------

def test_table_files_load_in_the_hub_and_the_firmware(tmp_path, capsys, fwconfig):
    folder = tmp_path / "t7"
    rc, stdout, stderr = run(table_args(folder), capsys)
    assert rc == 0, stderr
    cfg = table_config.load(str(folder / "table.toml"))
    assert (cfg.hub, cfg.table, cfg.event, cfg.game, cfg.lang) == ("T07", "7", "practice", "bigtwo", "zh")
    assert {d.id: d.seat for d in cfg.devices.values()} == {"S-0001": "E", "S-0002": "N", "S-0003": "W",
                                                          "S-0004": "S"}
    assert cfg.ports == PORTS.split(",")
    assert cfg.log == str(folder.resolve() / "table-7.sqlite")
    assert cfg.deals.source == "secret" and len(cfg.deals) == 4  # practice deals, boards 1-4
    for dev, d in cfg.devices.items():
        board = fwconfig.load(str(folder / dev / "seat.json"))
        assert board.dev == dev and board.key == d.key and board.board == "ref-s3"
        assert "mpremote cp %s :/seat.json" % (folder / dev / "seat.json") in stdout
    assert "PRACTICE" in stdout and "paizhuo hub --config %s" % (folder / "table.toml") in stdout
    assert not KEY_HEX.search(stdout + stderr), "keys are only in the files"


def test_a_three_seat_games_table_has_a_board_on_each_of_its_seats(tmp_path, capsys, fwconfig):
    three = [g for g in sorted(rules.GAMES) if len(rules.game(g).seats) == 3 and rules.game(g).at_table][0]
    folder = tmp_path / "t3"
    devices = "S-0001:E,S-0002:N,S-0003:W"
    ports = "/dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2"
    argv = ["provision", "table", "--table", "7", "--hub", "T07", "--devices", devices, "--ports", ports,
            "--out-dir", str(folder), "--game", three]
    rc, stdout, stderr = run(argv, capsys)
    assert rc == 0, stderr
    cfg = table_config.load(str(folder / "table.toml"))
    assert cfg.game == three and {d.id: d.seat for d in cfg.devices.values()} == {"S-0001": "E", "S-0002": "N",
                                                                                "S-0003": "W"}
    assert len(cfg.deals) == 4 and sorted(cfg.deals.records[0].hands) == sorted(rules.game(three).seats)
    # the seats are the game's: no S, and every seat has its board
    for bad, words in (("S-0001:E,S-0002:N,S-0003:S", "must be one of E, N, W"), ("S-0001:E,S-0002:N", "no board for seat W")):
        rc, stdout, stderr = run(argv[:7] + [bad] + argv[8:] + ["--force"], capsys)
        assert rc == 2 and words in stderr, stderr
    rc, stdout, stderr = run(argv + ["--force", "--game", "no-such-game"], capsys)
    assert rc == 2 and "--game" in stderr and three in stderr


def test_table_with_a_released_round_key(tmp_path, capsys):
    folder = tmp_path / "t"
    rc, stdout, stderr = run(table_args(folder, "--round-key", ROUND_KEY.upper(), "--round", "3", "--group", "2",
                                        "--boards", "1-8", "--event", "2026 national", "--lang", "en"), capsys)
    assert rc == 0, stderr
    cfg = table_config.load(str(folder / "table.toml"))
    assert cfg.deals.source == "round_key" and cfg.event == "2026 national" and cfg.lang == "en"
    want = [deals_.deal_from_round_key(bytes.fromhex(ROUND_KEY), "bigtwo", 2, b, round=3).hash for b in range(1, 9)]
    assert [r.hash for r in cfg.deals.records] == want
    assert "round 3, group 2, boards 1-8 (8 deals)" in stdout
    assert "secret" not in (folder / "table.toml").read_text(), "an event secret never goes to a hub"


def test_the_check_command_says_match_or_mismatch(tmp_path, capsys):
    assert run(table_args(tmp_path / "a"), capsys)[0] == 0
    assert run(table_args(tmp_path / "b", devices="S-0001:E,S-0002:N,S-0003:W,S-0009:S"), capsys)[0] == 0
    conf = str(tmp_path / "a" / "table.toml")
    own = [str(tmp_path / "a" / d / "seat.json") for d in ("S-0001", "S-0002", "S-0003", "S-0004")]
    rc, stdout, _ = run(["provision", "check", "--config", conf, "--board", *own], capsys)
    assert rc == 0
    assert stdout.count("match   ") == 4 and "4 of 4 board file(s) match" in stdout
    assert "seat W of table 7 (hub T07)" in stdout
    # the same device id provisioned for another table: the hub would refuse its tag
    other = str(tmp_path / "b" / "S-0001" / "seat.json")
    rc, stdout, _ = run(["provision", "check", "--config", conf, "--board", own[1], "--board", other], capsys)
    assert rc == 1
    assert "MISMATCH  %s" % other in stdout and "keys differ" in stdout and "bad_tag" in stdout
    assert "1 of 2 board file(s) match" in stdout
    # a device this table does not have
    rc, stdout, _ = run(["provision", "check", "--config", conf, "--board", str(tmp_path / "b" / "S-0009" /
                                                                                 "seat.json")], capsys)
    assert rc == 1 and "S-0009 is not in this table's [devices]" in stdout and "unknown_device" in stdout
    # a file the board itself would refuse (the firmware's own words)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dict(json.loads(open(own[0]).read()), lang="fr")))
    rc, stdout, _ = run(["provision", "check", "--config", conf, "--board", str(bad)], capsys)
    assert rc == 1 and "the board would refuse it: seat config: lang must be" in stdout
    (tmp_path / "broken.json").write_text("{")
    rc, stdout, _ = run(["provision", "check", "--config", conf, "--board", str(tmp_path / "broken.json")], capsys)
    assert rc == 1 and "the board would refuse it" in stdout
    # no key is ever printed, only fingerprints
    keys = [json.loads(open(p).read())["key"] for p in own + [other]]
    assert not any(k in stdout for k in keys)


@pytest.mark.parametrize("argv, arg, words", [
    (["--config", "{dir}/none.toml", "--board", "{dir}/a/S-0001/seat.json"], "--config", "cannot read the file"),
    (["--config", "{dir}/a/table.toml", "--board", "{dir}/none.json"], "--board", "cannot read"),
    (["--config", "{dir}/a/S-0001/seat.json", "--board", "{dir}/a/S-0001/seat.json"], "--config", "not valid TOML"),
])
def test_check_refuses_files_it_cannot_read(tmp_path, capsys, argv, arg, words):
    assert run(table_args(tmp_path / "a"), capsys)[0] == 0
    rc, stdout, stderr = run(["provision", "check"] + [a.format(dir=tmp_path) for a in argv], capsys)
    assert rc == 2 and stdout == ""
    assert stderr.startswith("paizhuo provision: %s" % arg) and words in stderr


# ---- refusals: a clear message naming the argument, exit 2, nothing written ------------------

BOARD_REFUSALS = [
    (["--dev", "S 0001"], "--dev", "is not a device id"),
    (["--dev", ""], "--dev", "is not a device id"),
    (["--dev", "S" * 33], "--dev", "is not a device id"),
    (["--dev", "座位1"], "--dev", "is not a device id"),
    (["--dev", "S-0001", "--seat", "X"], "--seat", "must be one of E, N, W, S"),
    (["--dev", "S-0001", "--lang", "fr"], "--lang", "must be one of zh, en"),
    (["--dev", "S-0001", "--board", "host"], "--board", "must be one of ref-s3"),
    (["--dev", "S-0001", "--out", "{dir}/no/such/folder/seat.json"], "--out", "does not exist"),
    (["--dev", "S-0001", "--out", "{dir}"], "--out", "is a folder"),
    (["--out", "{dir}/seat.json"], "--dev", "required"),
    (["--dev", "S-0001"], "--out", "required"),
]


@pytest.mark.parametrize("argv, arg, words", BOARD_REFUSALS)
def test_board_refusals(tmp_path, capsys, argv, arg, words):
    (tmp_path / "keep.json").write_text("{}")
    before = snapshot(tmp_path)
    argv = [a.format(dir=tmp_path) for a in argv]
    if "--out" not in argv and arg != "--out":
        argv += ["--out", str(tmp_path / "seat.json")]
    rc, stdout, stderr = run(["provision", "board"] + argv, capsys)
    assert rc == 2 and stdout == ""
    assert arg in stderr and words in stderr, stderr
    assert snapshot(tmp_path) == before


TABLE_REFUSALS = [
    (["--devices", "S-0001:E,S-0002:E,S-0003:W,S-0004:S"], "--devices", "seat E is given to both S-0001 and S-0002"),
    (["--devices", "S-0001:E,S-0001:N,S-0003:W,S-0004:S"], "--devices", "device S-0001 is listed twice"),
    (["--devices", "S-0001:E,S-0002:N,S-0003:W"], "--devices", "no board for seat S"),
    (["--devices", "S-0001:E,S-0002:N"], "--devices", "no board for seat W, S"),
    (["--devices", "S-0001,S-0002:N,S-0003:W,S-0004:S"], "--devices", "'S-0001' is not DEVICE:SEAT"),
    (["--devices", "S-0001:Q,S-0002:N,S-0003:W,S-0004:S"], "--devices", "must be one of E, N, W, S, not 'Q'"),
    (["--devices", "S 1:E,S-0002:N,S-0003:W,S-0004:S"], "--devices", "'S 1' is not a device id"),
    (["--devices", ""], "--devices", "no board for seat E, N, W, S"),
    (["--ports", "/dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2"], "--ports", "3 port(s) for 4 boards"),
    (["--ports", "/dev/ttyACM0,/dev/ttyACM0,/dev/ttyACM2,/dev/ttyACM3"], "--ports", "/dev/ttyACM0 is listed twice"),
    (["--ports", "ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3"], "--ports", "'ttyACM0' is not a port's path"),
    (["--ports", "/dev/ttyACM0,,/dev/ttyACM2,/dev/ttyACM3"], "--ports", "separated by commas"),
    (["--ports", ",".join("/dev/ttyACM%d" % i for i in range(17))], "--ports", "at most 16"),
    (["--hub", "T 07"], "--hub", "'T 07' is not a hub id"),
    (["--table", "7/A"], "--table", "'7/A' is not a table name"),
    (["--lang", "fr"], "--lang", "must be one of zh, en"),
    (["--board", "host"], "--board", "must be one of ref-s3"),
    (["--round-key", "ab" * 31, "--boards", "1-8", "--event", "x"], "--round-key", "must be the 64 hex digits"),
    (["--round-key", "zz" * 32, "--boards", "1-8", "--event", "x"], "--round-key", "must be the 64 hex digits"),
    (["--round-key", ROUND_KEY, "--event", "x"], "--boards", "give the round's boards with --round-key"),
    (["--round-key", ROUND_KEY, "--boards", "1-8"], "--event", "give the event's name"),
    (["--round-key", ROUND_KEY, "--boards", "8-1", "--event", "x"], "--boards", "runs backwards"),
    (["--round-key", ROUND_KEY, "--boards", "1-8", "--round", "0", "--event", "x"], "--round", "from 1 to 999, not '0'"),
    (["--round", "2"], "--round", "goes with --round-key"),
    (["--group", "2"], "--group", "goes with --round-key"),
    (["--event", "bad\tname"], "--event", "the hub would refuse it"),
    (["--event", "x" * 65], "--event", "the hub would refuse it"),
    (["--out-dir", "{dir}/keep.json"], "--out-dir", "is a file"),
    (["--out-dir", "{dir}/old"], "--out-dir", "old/table.toml already exists"),
    (["--hub"], "--hub", "expected one argument"),
]


@pytest.mark.parametrize("argv, arg, words", TABLE_REFUSALS)
def test_table_refusals(tmp_path, capsys, argv, arg, words):
    (tmp_path / "keep.json").write_text("{}")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "table.toml").write_text("# an older table's file\n")
    before = snapshot(tmp_path)
    argv = [a.format(dir=tmp_path) for a in argv]
    base = dict(zip(["--table", "--hub", "--devices", "--ports", "--out-dir"],
                    ["7", "T07", DEVICES, PORTS, str(tmp_path / "new")]))
    full = ["provision", "table"]
    for name, value in base.items():
        if name not in argv:
            full += [name, value]
    rc, stdout, stderr = run(full + argv, capsys)
    assert rc == 2 and stdout == ""
    assert arg in stderr and words in stderr, stderr
    assert snapshot(tmp_path) == before, "nothing written"


def test_a_half_existing_table_is_not_touched(tmp_path, capsys):
    folder = tmp_path / "t"
    (folder / "S-0003").mkdir(parents=True)
    (folder / "S-0003" / "seat.json").write_text('{"dev": "S-0003"}')
    before = snapshot(tmp_path)
    rc, _, stderr = run(table_args(folder), capsys)
    assert rc == 2 and "S-0003/seat.json already exists" in stderr
    assert snapshot(tmp_path) == before
    assert run(table_args(folder, "--force"), capsys)[0] == 0
    assert table_config.load(str(folder / "table.toml")).device("S-0003").key.hex() in (
        folder / "S-0003" / "seat.json").read_text()
    assert sorted(p.name for p in folder.rglob(".provision-*")) == []


# ---- the device id rule is the link's, and the firmware agrees ------------------------------

ID_TEXT = st.text(alphabet=st.sampled_from("Sa09-_ Z.:/é座\t\n"), min_size=0, max_size=34)


@settings(max_examples=300, deadline=None)
@given(ID_TEXT)
def test_device_ids_provision_accepts_are_those_the_firmware_accepts(fwconfig, dev):
    try:
        provision.check_device_id(dev)
        ours = True
    except provision.ProvisionError as e:
        assert e.code == "bad_device_id" and e.arg == "--dev"
        ours = False
    try:
        fwconfig.parse({"dev": dev, "key": "ab" * 32})
        theirs = True
    except fwconfig.ConfigError:
        theirs = False
    assert ours == theirs, dev


# ---- under the MicroPython unix port, and a real hub with firmware seats ---------------------

@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return firmware_.build(tmp_path_factory.mktemp("firmware"))


@pytest.mark.micropython
def test_provisioned_files_load_in_the_firmware_under_micropython(tmp_path, capsys, fw):
    assert run(table_args(tmp_path / "t", "--lang", "en"), capsys)[0] == 0
    assert run(["provision", "board", "--dev", "X_9", "--out", str(tmp_path / "x.json")], capsys)[0] == 0
    paths = [str(tmp_path / "t" / d / "seat.json") for d in ("S-0001", "S-0002", "S-0003", "S-0004")]
    paths.append(str(tmp_path / "x.json"))
    code = ("import json, binascii\n"
            "from seat import config\n"
            "for p in %r:\n"
            "    c = config.load(p)\n"
            "    print(json.dumps([c.dev, binascii.hexlify(c.key).decode(), c.lang, c.board]))\n" % paths)
    done = firmware_.run_snippet(fw, code)
    assert done.returncode == 0, done.stdout + done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    want = [[d["dev"], d["key"].lower(), d["lang"], d["board"]] for d in (json.loads(open(p).read()) for p in paths)]
    assert got == want
    assert [g[2] for g in got] == ["en"] * 4 + ["zh"]


@pytest.mark.micropython
def test_a_provisioned_table_links_up_with_firmware_seats(tmp_path, capsys, fw):
    """The keys in the boards' files and the hub's table.toml agree: the real hub seats each
    firmware board (ports in another order than the seats) where the provisioning put it."""
    links = {}
    seats = {}
    hub = None
    try:
        for s in SEATS:
            links[s] = PtyLink(str(tmp_path), s)
        ports = ",".join(links[s].hub_path for s in "SWNE")
        folder = tmp_path / "t7"
        rc, _, stderr = run(table_args(folder, ports=ports, devices="S-0001:N,S-0002:E,S-0003:S,S-0004:W"), capsys)
        assert rc == 0, stderr
        with open(tmp_path / "hub.txt", "wb") as hub_out:
            hub = subprocess.Popen([sys.executable, "-m", "paizhuo.cli", "hub", "--config", str(folder / "table.toml")],
                                   stdout=hub_out, stderr=subprocess.STDOUT, start_new_session=True)
        expect = {"S-0001": "N", "S-0002": "E", "S-0003": "S", "S-0004": "W"}
        for dev, seat in expect.items():
            board = json.loads((folder / dev / "seat.json").read_text())
            # A host board runs the board's provisioned id and key on this seat's pty.
            seats[dev] = firmware_.SeatProcess(fw, board["dev"], board["key"], links[seat].seat_path,
                                               tmp_path / "frames" / dev)
        for dev, seat in expect.items():
            assert seats[dev].wait_line("link up", timeout=30) == "link up %s" % seat
        for sp in seats.values():
            sp.stop()
        os.killpg(hub.pid, signal.SIGTERM)
        assert hub.wait(timeout=15) == 0
        db = eventlog.open_readonly(str(folder / "table-7.sqlite"))
        try:
            online = {e.body["dev"]: e.body["seat"] for e in eventlog.read_entries(db, "7")
                      if e.kind == "seat" and e.body["online"]}
        finally:
            db.close()
        assert online == expect
        verify = subprocess.run([sys.executable, "-m", "paizhuo.cli", "hub", "verify", "--log",
                                 str(folder / "table-7.sqlite")], capture_output=True, text=True, timeout=60)
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        for sp in seats.values():
            sp.stop()
        if hub is not None and hub.poll() is None:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()
        for link in links.values():
            link.close()


def test_staff_assign_takes_a_board_per_seat_of_the_tables_game(tmp_path, capsys):
    three = [g for g in sorted(rules.GAMES) if len(rules.game(g).seats) == 3 and rules.game(g).at_table][0]
    four = ",".join("/dev/ttyACM%d" % i for i in range(4))
    rc, stdout, stderr = run(["provision", "assign", "--table", "7", "--hub", "T07", "--ports", four,
                              "--out-dir", str(tmp_path / "t"), "--game", three], capsys)
    assert rc == 2 and "give the 3 seats' ports in seat order E, N, W" in stderr and "E、N、W" in stderr, stderr
    rc, stdout, stderr = run(["provision", "assign", "--table", "7", "--hub", "T07", "--ports", four[:-13],
                              "--out-dir", str(tmp_path / "t"), "--game", three, "--devices", "A,B"], capsys)
    assert rc == 2 and "give 3 device ids in seat order E, N, W" in stderr, stderr
    assert not (tmp_path / "t").exists()
