"""``paizhuo provision``: what venue staff run to set up seat boards and a table hub.

    paizhuo provision board --dev S-0001 [--seat E|spare] [--lang zh] [--board ref-s3] --out seat.json [--force]
    paizhuo provision table --table 7 --hub T07 --devices S-0001:E,S-0002:N,S-0003:W,S-0004:S
                            --ports /dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3 --out-dir DIR
                            [--event NAME] [--lang zh] [--board ref-s3]
                            [--round-key HEX --round N --group G --boards 1-8] [--force]
    paizhuo provision check --config table.toml --board seat.json [more seat.json ...]

Every seat board gets a device id (the label on its enclosure) and its own random 32-byte key
(``secrets.token_bytes``).  The board keeps both in ``/seat.json`` (read by the firmware's
``device/seat/config.py``); the table hub keeps them in ``table.toml`` under
``[devices.<id>]`` with the seat the board plays.  The hub checks every ``hello`` tag with
that key, so a board whose file does not match its table is refused (``unknown_device`` or
``bad_tag``): ``check`` finds that before the players sit down.

Files holding keys are written with mode 0600 and never overwritten without ``--force``.
A bad argument changes nothing: every value is checked, and the whole table.toml is loaded
by the hub's own reader (:func:`paizhuo.table.config.load_text`), before anything is written.

>>> block = device_block("S-0001", bytes(range(32)), seat="E")
>>> print(block)
[devices.S-0001]
key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
seat = "E"
>>> parse_devices("S-0001:E,S-0002:N,S-0003:W,S-0004:S")["S-0003"]
'W'
>>> parse_devices("S-0001:E,S-0002:E,S-0003:W,S-0004:S")
Traceback (most recent call last):
...
paizhuo.provision.ProvisionError: --devices: seat E is given to both S-0001 and S-0002: one board per seat
"""

import hashlib
import hmac
import importlib.util
import json
import os
import secrets
import shlex
import sys
import tempfile
from pathlib import Path

from paizhuo_shared import link

from .. import rules as rules_
from ..errors import CodedError
from ..inputs import parse_json, whole_number
from ..table import config as table_config
from ..venue import deals as deals_

__all__ = ["ProvisionError", "BoardFile", "Provisioned", "ProvisionedTable", "TablePlan", "DealSource", "BoardCheck",
           "new_key", "fingerprint", "check_device_id", "check_table_id", "check_hub_id", "check_seat", "parse_devices", "parse_ports",
           "device_block", "seat_json", "table_toml", "provision_board", "provision_table", "check_boards",
           "firmware_config", "add_arguments", "command"]

SEATS = table_config.SEATS
LANGS = table_config.LANGS
# The boards staff provision.  The firmware also knows "host" (the unix port), whose files
# carry a pty path and a frame folder and are written by the simulation (paizhuo.sim).
BOARDS = ("ref-s3",)
# The hub's reader allows 16 ports (table_config); a table of four needs at least four.
MAX_PORTS = 16
MAX_BOARD_FILE = 64 * 1024  # a seat.json is a few hundred bytes
PRACTICE_SECRET = "text:paizhuo practice"
PRACTICE_BOARDS = "1-4"
FIRMWARE_CONFIG = Path(__file__).resolve().parents[2] / "device" / "seat" / "config.py"
EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2


class ProvisionError(CodedError):
    """A refused provisioning argument: ``arg`` names it (``--dev``), ``en``/``zh`` say what to do.

    >>> str(ProvisionError("bad_seat", "--seat", "must be E, N, W or S, not 'X'", "必须是 E、N、W 或 S"))
    "--seat: must be E, N, W or S, not 'X'"
    """

    def __init__(self, code, arg, en, zh):
        where = arg + ": " if arg else ""
        super().__init__(code, where + en, where + zh)
        self.arg = arg


# ---- values -------------------------------------------------------------------------------

def new_key():
    """A fresh device key: 32 bytes from the operating system's CSPRNG (``secrets``)."""
    return secrets.token_bytes(link.KEY_BYTES)


def fingerprint(key):
    """8 hex digits that tell two keys apart without showing either (for staff to compare).

    >>> fingerprint(bytes(32))
    '66687aad'
    """
    return hashlib.sha256(bytes(key)).hexdigest()[:8]


def _link_accepts(kind, field, value):
    # The rule is the seat link's own: the hub refuses a hello whose ``dev`` (or a challenge
    # whose ``hub``) breaks it, so provisioning asks the link's message check rather than
    # keeping a copy of the rule that could drift.  Every other field is valid.
    if kind == "hello":
        msg = {"t": "hello", "s": 0, "dev": "S-0001", "fw": "0", "board": BOARDS[0], "n": "0" * link.NONCE_HEX,
               "hn": ""}
        sender = "seat"
    else:
        msg = {"t": "challenge", "s": 0, "n": "0" * link.NONCE_HEX, "hub": "T01", "v": link.VERSION}
        sender = "hub"
    msg[field] = value
    try:
        link.check_message(msg, sender)
    except link.LinkError:
        return False
    return True


def check_device_id(text, arg="--dev"):
    """``text`` if the seat link accepts it as a device id (1-32 of ``A-Z a-z 0-9 - _``).

    >>> check_device_id("S-0001")
    'S-0001'
    >>> check_device_id("S 0001")
    Traceback (most recent call last):
    ...
    paizhuo.provision.ProvisionError: --dev: 'S 0001' is not a device id: write 1-32 characters of A-Z a-z 0-9 - _, like S-0001 (the label on the board)
    """
    if not isinstance(text, str) or not _link_accepts("hello", "dev", text):
        raise ProvisionError("bad_device_id", arg,
                             "%r is not a device id: write 1-32 characters of A-Z a-z 0-9 - _, like S-0001 "
                             "(the label on the board)" % (text,),
                             "%r 不是设备编号：请写 1-32 个 A-Z a-z 0-9 - _ 字符，如 S-0001（板上标签）" % (text,))
    return text


def check_hub_id(text, arg="--hub"):
    """``text`` if the link accepts it as the hub id a challenge carries (the device id rule)."""
    if not isinstance(text, str) or not _link_accepts("challenge", "hub", text):
        raise ProvisionError("bad_hub_id", arg,
                             "%r is not a hub id: write 1-32 characters of A-Z a-z 0-9 - _, like T07" % (text,),
                             "%r 不是主机编号：请写 1-32 个 A-Z a-z 0-9 - _ 字符，如 T07" % (text,))
    return text


def check_table_id(text, arg="--table"):
    """``text`` if it may name a table: 1-32 letters of any script (so 第8桌 is a table name),
    digits, ``-`` or ``_``.  No spaces, dots or slashes: it names the log file ``table-<id>.sqlite``.

    >>> check_table_id("第8桌"), check_table_id("7")
    ('第8桌', '7')
    >>> check_table_id("8/9")
    Traceback (most recent call last):
    ...
    paizhuo.provision.ProvisionError: --table: '8/9' is not a table name: write 1-32 letters (any script, like 第8桌), digits, - or _ (it names the log file)
    """
    if not isinstance(text, str) or not 1 <= len(text) <= 32 or not all(c.isalnum() or c in "-_" for c in text):
        raise ProvisionError("bad_table_id", arg,
                             "%r is not a table name: write 1-32 letters (any script, like 第8桌), digits, - or _ "
                             "(it names the log file)" % (text,),
                             "%r 不是桌名：请写 1-32 个文字（任何文字，如 第8桌）、数字、- 或 _（它是日志文件名的一部分）" % (text,))
    return text


def _check_choice(value, choices, arg):
    if value not in choices:
        raise ProvisionError("bad_" + arg.strip("-"), arg, "must be one of %s, not %r" % (", ".join(choices), value),
                             "必须是 %s 之一，而不是 %r" % ("、".join(choices), value))
    return value


def check_seat(value, arg="--seat", seats=SEATS):
    """``value`` if it is a seat E, N, W or S (of ``seats``: a game's)."""
    return _check_choice(value, seats, arg)


def check_game(name, arg="--game"):
    """``name`` if the table hubs can play it (the registry's ``at_table``); None: the default game."""
    if name is None:
        return rules_.DEFAULT_GAME
    playable = sorted(g for g in rules_.GAMES if rules_.game(g).at_table)
    return _check_choice(name, playable, arg)


def parse_devices(text, arg="--devices", seats=SEATS):
    """``{device id: seat}`` from ``S-0001:E,S-0002:N,S-0003:W,S-0004:S``: every seat of
    ``seats`` (the table's game's) once, every device once."""
    out = {}
    by_seat = {}
    items = [p.strip() for p in (text or "").split(",")]
    if not text or not text.strip():
        items = []
    for item in items:
        dev, sep, seat = item.partition(":")
        dev, seat = dev.strip(), seat.strip()
        if not sep or not dev or not seat:
            example = ",".join("S-%04d:%s" % (i + 1, s) for i, s in enumerate(seats))
            raise ProvisionError("bad_devices", arg,
                                 "%r is not DEVICE:SEAT; write the %d boards like %s" % (item, len(seats), example),
                                 "%r 不是 设备:座位；%d 块板的写法如 %s" % (item, len(seats), example))
        check_device_id(dev, arg)
        check_seat(seat, arg, seats)
        if dev in out:
            raise ProvisionError("device_twice", arg, "device %s is listed twice: each board once" % dev,
                                 "设备 %s 出现两次：每块板只写一次" % dev)
        if seat in by_seat:
            raise ProvisionError("seat_twice", arg, "seat %s is given to both %s and %s: one board per seat"
                                 % (seat, by_seat[seat], dev),
                                 "%s 座同时分配给 %s 和 %s：每个座位一块板" % (seat, by_seat[seat], dev))
        out[dev] = seat
        by_seat[seat] = dev
    missing = [s for s in seats if s not in by_seat]
    if missing:
        raise ProvisionError("seat_missing", arg, "no board for seat %s: a table needs one board on each of %s"
                             % (", ".join(missing), ", ".join(seats)),
                             "%s 座没有板：一桌的 %s 每座需要一块板" % ("、".join(missing), "、".join(seats)))
    return out


def parse_ports(text, need, arg="--ports"):
    """The serial ports from ``/dev/ttyACM0,/dev/ttyACM1,…``: absolute paths, each once, at
    least ``need`` (one per board) and at most 16."""
    ports = [p.strip() for p in (text or "").split(",")]
    if not text or not text.strip() or not all(ports):
        raise ProvisionError("bad_ports", arg, "list the seat boards' serial ports separated by commas, like "
                             "/dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3 (ls /dev/serial/by-id/ shows them)",
                             "请用逗号分隔列出座位板的串口，如 /dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3")
    for p in ports:
        if not p.startswith("/") or any(ord(c) < 32 for c in p):
            raise ProvisionError("bad_ports", arg, "%r is not a port's path: write the full path, like /dev/ttyACM0"
                                 % (p,), "%r 不是串口路径：请写完整路径，如 /dev/ttyACM0" % (p,))
    dup = sorted({p for p in ports if ports.count(p) > 1})
    if dup:
        raise ProvisionError("port_twice", arg, "%s is listed twice: each port once" % ", ".join(dup),
                             "%s 重复：每个串口只写一次" % "、".join(dup))
    if len(ports) < need:
        raise ProvisionError("too_few_ports", arg, "%d port(s) for %d boards: list one port per board (any order)"
                             % (len(ports), need), "%d 个串口对应 %d 块板：每块板一个串口（顺序不限）" % (len(ports), need))
    if len(ports) > MAX_PORTS:
        raise ProvisionError("too_many_ports", arg, "%d ports: a table hub serves at most %d" % (len(ports), MAX_PORTS),
                             "%d 个串口：一台主机最多 %d 个" % (len(ports), MAX_PORTS))
    return ports


def toml_str(text):
    """``text`` as a TOML basic string."""
    # JSON's string escapes are all valid in a TOML basic string (\" \\ \n \uXXXX …).
    return json.dumps(text, ensure_ascii=False)


class BoardFile:
    """One board's provisioning values: ``dev``, ``key`` (32 bytes), ``lang``, ``board``.
    Its repr never shows the key."""

    __slots__ = ("dev", "key", "lang", "board")

    def __init__(self, dev, key, lang="zh", board="ref-s3"):
        self.dev = dev
        self.key = key
        self.lang = lang
        self.board = board

    def __repr__(self):
        return "BoardFile(%r, key %s…, lang=%r, board=%r)" % (self.dev, fingerprint(self.key), self.lang, self.board)


def seat_json(board):
    """The text of a board's ``seat.json`` (the firmware's provisioning file).

    >>> seat_json(BoardFile("S-0001", bytes(32)))[:42]
    '{"dev": "S-0001", "key": "0000000000000000'
    """
    return json.dumps({"dev": board.dev, "key": board.key.hex(), "lang": board.lang, "board": board.board}) + "\n"


def device_block(dev, key, seat=None, lang=None):
    """The ``[devices.<id>]`` table for table.toml; without a seat it has a placeholder the
    hub refuses, so a pasted block cannot run until staff choose the seat."""
    lines = ["[devices.%s]" % dev, "key = %s" % toml_str(key.hex())]
    if seat is None:
        lines.append('seat = "?"                # set E, N, W or S (the hub refuses "?")')
    else:
        lines.append("seat = %s" % toml_str(seat))
    if lang is not None:
        lines.append("lang = %s" % toml_str(lang))
    return "\n".join(lines)


class DealSource:
    """The ``[deals]`` of a provisioned table: a released round key, or practice deals."""

    __slots__ = ("round_key", "round", "group", "boards")

    def __init__(self, round_key=None, round=1, group=1, boards=PRACTICE_BOARDS):
        self.round_key = round_key
        self.round = round
        self.group = group
        self.boards = boards

    @property
    def practice(self):
        return self.round_key is None

    def toml(self):
        if self.practice:
            return ["[deals]",
                    "# PRACTICE deals, for bring-up and a trial game.  Before a round, replace them with the",
                    "# round key the venue releases for that round, and give [table] log a new file name",
                    "# (the hub refuses a log whose deals are not the configuration's):",
                    '#   round_key = "…64 hex digits…"', "#   round = N", "#   group = G", '#   boards = "1-8"',
                    "secret = %s" % toml_str(PRACTICE_SECRET), "boards = %s" % toml_str(self.boards)]
        return ["[deals]", "round_key = %s" % toml_str(self.round_key), "round = %d" % self.round,
                "group = %d" % self.group, "boards = %s" % toml_str(self.boards)]


class TablePlan:
    """A table to provision: ids, the boards (``{dev: (seat, key)}``), ports, deals."""

    __slots__ = ("table", "hub", "event", "lang", "board", "devices", "ports", "deals", "game")

    def __init__(self, table, hub, event, lang, board, devices, ports, deals, game=None):
        self.game = game or rules_.DEFAULT_GAME  # the game the table plays: its seats are the boards' seats
        self.table = table
        self.hub = hub
        self.event = event
        self.lang = lang
        self.board = board
        self.devices = devices
        self.ports = ports
        self.deals = deals

    def by_seat(self):
        """The devices in seat order (E, N, W, S) as (dev, seat, key)."""
        seats = rules_.game(self.game).seats
        return sorted(((d, s, k) for d, (s, k) in self.devices.items()), key=lambda t: seats.index(t[1]))


def table_toml(plan):
    """The complete table.toml text of a :class:`TablePlan` (the hub's format, docs/table-hub.md)."""
    lines = ["# table.toml for table %s (hub %s), written by `paizhuo provision table`." % (plan.table, plan.hub),
             "# It holds the seat boards' keys: keep it on the hub, private (mode 0600).",
             "# Every key is explained in docs/table-hub.md.",
             "", "[table]",
             "hub = %s" % toml_str(plan.hub), "id = %s" % toml_str(plan.table), "event = %s" % toml_str(plan.event),
             "game = %s" % toml_str(plan.game), "lang = %s" % toml_str(plan.lang),
             "log = %s  # the event log, beside this file" % toml_str("table-%s.sqlite" % plan.table),
             "", "[clock]",
             "grace_seconds = 30        # 托管: an absent seat is played by the bot after this",
             "offline_seconds = 5",
             "next_deal_seconds = 10",
             "", "[link]",
             "ports = [%s]   # any order: seats are found by device id" % ", ".join(toml_str(p) for p in plan.ports),
             ""]
    for dev, seat, key in plan.by_seat():
        lines += [device_block(dev, key, seat), ""]
    lines += plan.deals.toml()
    return "\n".join(lines) + "\n"


# ---- the firmware's own reader --------------------------------------------------------------

def firmware_config():
    """The seat firmware's provisioning reader (``device/seat/config.py``), loaded under
    CPython, so a file is judged by the same code that reads it on the board."""
    if not FIRMWARE_CONFIG.is_file():
        raise ProvisionError("no_firmware", "", "the seat firmware's sources are not beside this paizhuo (%s is "
                             "missing): run paizhuo from the project folder" % FIRMWARE_CONFIG,
                             "找不到座位固件源码（缺少 %s）：请在项目文件夹中运行 paizhuo" % FIRMWARE_CONFIG)
    spec = importlib.util.spec_from_file_location("paizhuo_seat_config", FIRMWARE_CONFIG)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _firmware_accepts(fw, text, arg):
    try:
        fw.parse(json.loads(text))
    except fw.ConfigError as e:  # a bug here, never staff input: every value was checked
        raise ProvisionError("firmware_refuses", arg, "the seat firmware would refuse this file: %s" % e.en,
                             "座位固件不接受此文件：%s" % e.zh) from None


# ---- writing --------------------------------------------------------------------------------

class _Writer:
    """Writes private files (0600) all or nothing: each file is first written whole to a
    temporary file beside its target (``stage``), then all are renamed into place
    (``commit``).  ``undo`` removes the temporary files and the folders it made, so a failed
    run leaves no half-provisioned table behind."""

    def __init__(self):
        self.staged = []  # (temporary path, target path)
        self.made = []

    def mkdir(self, folder):
        missing = []
        p = Path(folder)
        while not p.exists():
            missing.append(p)
            p = p.parent
        for d in reversed(missing):
            os.mkdir(d, 0o700)
            self.made.append(d)

    def stage(self, path, text):
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".provision-")
        self.staged.append((tmp, str(path)))
        os.fchmod(fd, 0o600)  # mkstemp makes 0600 already; be exact whatever the umask
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())

    def commit(self):
        for tmp, path in self.staged:
            os.replace(tmp, path)
        self.staged = []

    def undo(self):
        for tmp, _ in self.staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        for d in reversed(self.made):
            try:
                os.rmdir(d)
            except OSError:
                pass


def _write_all(files, force, arg, folders=()):
    """Write ``[(path, text)]`` as private files, all or nothing (see :class:`_Writer`)."""
    for path, _ in files:
        if os.path.isdir(path):
            raise ProvisionError("bad_out", arg, "%s is a folder: move it away or choose another place" % path,
                                 "%s 是文件夹：请移走或换一个位置" % path)
    if not force:
        _refuse_existing([p for p, _ in files], arg)
    w = _Writer()
    current = None
    try:
        for folder in folders:
            current = folder
            w.mkdir(folder)
        for path, text in files:
            current = path
            w.stage(path, text)
        if not force:  # a file that appeared while we wrote is still not overwritten
            _refuse_existing([p for p, _ in files], arg)
        w.commit()
    except OSError as e:
        w.undo()
        raise _write_error(e, current) from None
    except BaseException:
        w.undo()
        raise


def _refuse_existing(paths, arg):
    there = [str(p) for p in paths if os.path.lexists(p)]
    if there:
        one = len(there) == 1
        raise ProvisionError("exists", arg, "%s already %s: %s. Choose another place, or add --force to replace %s"
                             % (", ".join(there), "exists" if one else "exist",
                                "it may be a board's only copy of its key" if one
                                else "they may be the only copies of boards' keys", "it" if one else "them"),
                             "%s 已存在：它可能是某块板密钥的唯一副本。请换一个位置，或加 --force 覆盖" % "、".join(there))


def _write_error(e, path):
    return ProvisionError("cannot_write", "", "cannot write %s (%s): check the folder and its permissions"
                          % (path, e.strerror or e), "无法写入 %s（%s）：请检查文件夹及其权限" % (path, e.strerror or e))


class Provisioned:
    """What ``provision board`` made: the board's values, the file and the TOML block."""

    __slots__ = ("board", "path", "block")

    def __init__(self, board, path, block):
        self.board = board
        self.path = path
        self.block = block


def provision_board(out, dev, seat=None, lang="zh", board="ref-s3", force=False):
    """Write a board's ``seat.json`` at ``out`` with a fresh key; return :class:`Provisioned`.

    ``seat`` only goes into the returned TOML block (the board itself does not know its seat:
    the hub's table.toml decides it).
    """
    check_device_id(dev)
    if seat is not None:
        _check_choice(seat, SEATS + ("spare",), "--seat")  # a spare: the referee's replace puts it in
    _check_choice(lang, LANGS, "--lang")
    _check_choice(board, BOARDS, "--board")
    out = str(out)
    if os.path.isdir(out):
        raise ProvisionError("bad_out", "--out", "%s is a folder: give the file to write, like %s"
                             % (out, os.path.join(out, "seat.json")),
                             "%s 是文件夹：请给出要写的文件，如 %s" % (out, os.path.join(out, "seat.json")))
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise ProvisionError("bad_out", "--out", "the folder %s does not exist: create it first or choose another"
                             % folder, "文件夹 %s 不存在：请先创建或换一个" % folder)
    bf = BoardFile(dev, new_key(), lang, board)
    text = seat_json(bf)
    _firmware_accepts(firmware_config(), text, "--out")
    _write_all([(out, text)], force, "--out")
    return Provisioned(bf, out, device_block(dev, bf.key, seat, lang if lang != "zh" else None))


class ProvisionedTable:
    """What ``provision table`` made: ``config`` (the written table.toml as the hub reads it),
    ``plan`` (with the keys), ``toml_path`` and ``board_paths`` (``{dev: path of its seat.json}``)."""

    __slots__ = ("config", "plan", "toml_path", "board_paths")

    def __init__(self, config, plan, toml_path, board_paths):
        self.config = config
        self.plan = plan
        self.toml_path = toml_path
        self.board_paths = board_paths


# Which argument a table.toml key comes from, to name it when the hub's reader refuses one.
_ARG_OF_KEY = {"table.hub": "--hub", "table.id": "--table", "table.event": "--event", "table.lang": "--lang",
               "link.ports": "--ports", "deals.boards": "--boards", "deals.round_key": "--round-key",
               "deals.round": "--round", "deals.group": "--group"}


def provision_table(out_dir, table, hub, devices, ports, event=None, lang="zh", board="ref-s3", round_key=None,
                    round=None, group=None, boards=None, force=False, game=None):
    """Write ``out_dir/table.toml`` and ``out_dir/<dev>/seat.json`` for each board of
    ``devices`` (the ``--devices`` text); return a :class:`ProvisionedTable`.

    Everything is checked, the table.toml text included (by the hub's reader), before the first
    file is written; without ``force`` no existing file is touched.
    """
    check_table_id(table)  # it names the log file table-<id>.sqlite: keep it a plain name
    check_hub_id(hub)
    game = check_game(game)
    assignment = parse_devices(devices, seats=rules_.game(game).seats)
    port_list = parse_ports(ports, len(assignment))
    _check_choice(lang, LANGS, "--lang")
    _check_choice(board, BOARDS, "--board")
    deal_src = _deal_source(round_key, round, group, boards)
    if event is None:
        if not deal_src.practice:
            raise ProvisionError("no_event", "--event", "give the event's name with a round key, like --event "
                                 "\"2026 national\" (it is shown on the seats)",
                                 "使用轮次密钥时请给出赛事名称，如 --event \"2026 national\"（座位上显示）")
        event = "practice"
    plan = TablePlan(table, hub, event, lang, board, {d: (s, new_key()) for d, s in assignment.items()},
                     port_list, deal_src, game)
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ProvisionError("bad_out", "--out-dir", "%s is a file: give a folder for table.toml and the boards' "
                             "files" % out_dir, "%s 是文件：请给出存放 table.toml 与各板文件的文件夹" % out_dir)
    toml_path = out_dir / "table.toml"
    board_paths = {dev: out_dir / dev / "seat.json" for dev in assignment}
    text = table_toml(plan)
    try:
        table_config.load_text(text, str(toml_path), base=str(out_dir.resolve()))
    except table_config.ConfigError as e:
        raise ProvisionError(e.code, _ARG_OF_KEY.get(e.key, ""), "the hub would refuse it: %s" % e.en,
                             "主机不会接受：%s" % e.zh) from None
    fw = firmware_config()
    board_texts = {}
    for dev, (seat, key) in plan.devices.items():
        board_texts[dev] = seat_json(BoardFile(dev, key, lang, board))
        _firmware_accepts(fw, board_texts[dev], "--devices")
    files = [(str(board_paths[d]), board_texts[d]) for d in sorted(board_paths)] + [(str(toml_path), text)]
    _write_all(files, force, "--out-dir", folders=[out_dir] + [board_paths[d].parent for d in sorted(board_paths)])
    cfg = table_config.load(str(toml_path))  # the file as written, read as the hub reads it
    return ProvisionedTable(cfg, plan, toml_path, board_paths)


def _deal_source(round_key, rnd, group, boards):
    if round_key is None:
        for name, value in (("--round", rnd), ("--group", group)):
            if value is not None:
                raise ProvisionError("bad_deals", name, "goes with --round-key (the key the venue released for that "
                                     "round); without it the table gets practice deals",
                                     "需与 --round-key（场地为该轮发布的密钥）一起使用；不给则写入练习牌")
    else:
        if len(round_key) != 64 or any(c not in "0123456789abcdefABCDEF" for c in round_key):
            raise ProvisionError("bad_round_key", "--round-key", "must be the 64 hex digits the venue released for "
                                 "this round (%d characters given)" % len(round_key),
                                 "必须是场地为本轮发布的 64 位十六进制（现为 %d 个字符）" % len(round_key))
        if boards is None:
            raise ProvisionError("bad_boards", "--boards", "give the round's boards with --round-key, like --boards 1-8",
                                 "使用 --round-key 时请给出本轮牌号，如 --boards 1-8")
    for name, value in (("--round", rnd), ("--group", group)):
        if value is not None and value < 1:
            raise ProvisionError("bad_deals", name, "must be a whole number from 1, not %d" % value,
                                 "必须是从 1 开始的整数，而不是 %d" % value)
    boards = PRACTICE_BOARDS if boards is None else boards
    try:
        deals_.parse_boards(boards)
    except deals_.DealError as e:
        raise ProvisionError("bad_boards", "--boards", e.en, e.zh) from None
    return DealSource(round_key.lower() if round_key else None, rnd or 1, group or 1, boards)


# ---- checking a board's file against its table ----------------------------------------------

class BoardCheck:
    """The verdict on one board file: ``ok``, ``dev``, ``seat`` (if the table has the device),
    ``code`` (``match``, ``unknown_device``, ``bad_tag``, ``bad_file``) and ``en``/``zh``."""

    __slots__ = ("path", "ok", "dev", "seat", "code", "en", "zh")

    def __init__(self, path, ok, dev, seat, code, en, zh):
        self.path = path
        self.ok = ok
        self.dev = dev
        self.seat = seat
        self.code = code
        self.en = en
        self.zh = zh


def check_boards(config_path, board_paths):
    """Judge each board file against the table: ``(TableConfig, [BoardCheck])``.

    The table.toml is read by the hub's reader, each seat.json by the firmware's; keys are
    compared in constant time and never shown (only :func:`fingerprint`).
    """
    try:
        cfg = table_config.load(str(config_path))
    except table_config.ConfigError as e:
        raise ProvisionError(e.code, "--config", str(e), e.zh) from None
    fw = firmware_config()
    out = []
    for path in board_paths:
        path = str(path)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise ProvisionError("no_file", "--board", "cannot read %s (%s): check the path" % (path, e.strerror),
                                 "无法读取 %s（%s）：请检查路径" % (path, e.strerror)) from None
        try:
            board = fw.parse(parse_json(raw, path, max_bytes=MAX_BOARD_FILE))
        except ValueError as e:   # InputError (not JSON, too deep, bad text), the firmware's refusal
            en = getattr(e, "en", "it is not UTF-8 JSON; provision the board again")
            zh = getattr(e, "zh", "不是 UTF-8 的 JSON；请重新配置此板")
            out.append(BoardCheck(path, False, None, None, "bad_file", "the board would refuse it: %s" % en,
                                  "板子不会接受此文件：%s" % zh))
            continue
        dev = cfg.device(board.dev)
        if dev is None:
            known = ", ".join(sorted(cfg.devices))
            out.append(BoardCheck(path, False, board.dev, None, "unknown_device",
                                  "device %s is not in this table's [devices] (%s): the hub would refuse it "
                                  "(unknown_device). Wrong board for this table, or add its block to table.toml"
                                  % (board.dev, known),
                                  "设备 %s 不在本桌 [devices]（%s）中：主机会拒绝（unknown_device）。"
                                  "板子放错了桌，或把它的配置块加入 table.toml" % (board.dev, known)))
        elif not hmac.compare_digest(bytes(board.key), dev.key):
            out.append(BoardCheck(path, False, board.dev, dev.seat, "bad_tag",
                                  "device %s is this table's seat %s but the keys differ (board %s…, table %s…): the "
                                  "hub would refuse it (bad_tag). Copy the table's seat.json for %s to the board, or "
                                  "put the board's key in table.toml"
                                  % (board.dev, dev.seat, fingerprint(board.key), fingerprint(dev.key), board.dev),
                                  "设备 %s 是本桌 %s 座，但密钥不同（板 %s…，主机 %s…）：主机会拒绝（bad_tag）。"
                                  "请把本桌为 %s 生成的 seat.json 拷到板上，或把板的密钥写入 table.toml"
                                  % (board.dev, dev.seat, fingerprint(board.key), fingerprint(dev.key), board.dev)))
        else:
            out.append(BoardCheck(path, True, board.dev, dev.seat, "match",
                                  "device %s matches: seat %s of table %s (hub %s)" % (board.dev, dev.seat, cfg.table,
                                                                                      cfg.hub),
                                  "设备 %s 匹配：%s 桌（主机 %s）%s 座" % (board.dev, cfg.table, cfg.hub, dev.seat)))
    return cfg, out


# ---- the command ----------------------------------------------------------------------------

def add_arguments(p):
    """The sub-commands of ``paizhuo provision``."""
    sub = p.add_subparsers(dest="provision_command", required=True)
    b = sub.add_parser("board", help="write one board's seat.json with a fresh key; print its table.toml block")
    b.add_argument("--dev", required=True, help="the board's device id (its label), like S-0001")
    b.add_argument("--seat", help="the seat it plays (E, N, W, S), or spare (a board a referee may put in for a "
                                  "failed one), for the printed block; default: a placeholder")
    b.add_argument("--lang", default="zh", help="the board's language until the hub says otherwise: zh (default) or en")
    b.add_argument("--board", default="ref-s3", help="the board model: ref-s3 (default, hardware/README.md)")
    b.add_argument("--out", required=True, metavar="FILE", help="the file to write, like seat.json")
    b.add_argument("--force", action="store_true", help="replace an existing file (its key is lost)")
    t = sub.add_parser("table", help="write a table.toml and the four boards' seat.json files, keys random")
    t.add_argument("--table", required=True, help="table number or name, like 7 or 第8桌 (names the log table-7.sqlite)")
    t.add_argument("--hub", required=True, help="the hub's id, like T07")
    t.add_argument("--devices", required=True, metavar="DEV:SEAT,…", help="the boards and their seats, like "
                   "S-0001:E,S-0002:N,S-0003:W,S-0004:S")
    t.add_argument("--ports", required=True, metavar="PORT,…", help="the hub's serial ports, any order, like "
                   "/dev/ttyACM0,/dev/ttyACM1,/dev/ttyACM2,/dev/ttyACM3")
    t.add_argument("--out-dir", required=True, metavar="DIR", help="where table.toml and DIR/<dev>/seat.json go")
    t.add_argument("--event", help="the event's name shown on the seats (default: practice)")
    t.add_argument("--lang", default="zh", help="the seats' language: zh (default) or en")
    t.add_argument("--board", default="ref-s3", help="the boards' model: ref-s3 (default)")
    t.add_argument("--round-key", metavar="HEX", help="the round key the venue released (default: practice deals)")
    t.add_argument("--round", type=whole_number("--round", 1, 999), help="the round of --round-key")
    t.add_argument("--group", type=whole_number("--group", 1, 999), help="the group of this table (default 1)")
    t.add_argument("--boards", help="the boards to play, like 1-8 (practice: 1-4)")
    t.add_argument("--force", action="store_true", help="replace existing files (their keys are lost)")
    t.add_argument("--game", help="the game the table plays (default: the default game); a board on each of its seats")
    c = sub.add_parser("check", help="does a board's seat.json match the table.toml? (never prints keys)")
    c.add_argument("--config", required=True, metavar="TABLE.toml", help="the table hub's configuration")
    c.add_argument("--board", required=True, action="extend", nargs="+", metavar="SEAT.json",
                   help="one or more boards' provisioning files")
    from . import staff
    staff.add_arguments(sub)


def _fail(err, e):
    print("paizhuo provision: %s" % e.en, file=err)
    print("  %s" % e.zh, file=err)
    return EXIT_BAD_INPUT


def command(args, out=None, err=None):
    """Carry out ``paizhuo provision …``; returns the exit code (0, 1 mismatch, 2 bad input)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if args.provision_command == "board":
            return _board(args, out, err)
        if args.provision_command == "table":
            return _table(args, out, err)
        from . import staff
        if args.provision_command in staff.COMMANDS:
            return staff.command(args, out)
        return _check(args, out, err)
    except CodedError as e:  # ProvisionError, or a board's refusal (boardlink.BoardError)
        return _fail(err, e)


def _board(args, out, err):
    made = provision_board(args.out, args.dev, seat=args.seat, lang=args.lang, board=args.board, force=args.force)
    # The block goes to stdout alone, so `… >> table.toml` appends nothing else.
    print(made.block, file=out)
    print("paizhuo provision: wrote %s for device %s (key %s…, mode 0600)" % (made.path, made.board.dev,
                                                                               fingerprint(made.board.key)), file=err)
    print("  copy it to the board (in service mode: hold BOOT while pressing RESET):", file=err)
    print("    mpremote cp %s :/seat.json" % shlex.quote(made.path), file=err)
    print("  add the block above to the table's table.toml%s; keep both files private"
          % ("" if args.seat else " and set its seat"), file=err)
    print("  已为设备 %s 写入 %s（密钥 %s…，权限 0600）：在维修模式下（按住 BOOT 再按 RESET）拷到板上；把上面的配置块加入本桌 "
          "table.toml%s；两个文件都要保密" % (made.board.dev, made.path, fingerprint(made.board.key),
                                         "" if args.seat else "并设定座位"), file=err)
    return 0


def _table(args, out, err):
    made = provision_table(args.out_dir, args.table, args.hub, args.devices, args.ports, event=args.event,
                           lang=args.lang, board=args.board, round_key=args.round_key, round=args.round,
                           group=args.group, boards=args.boards, force=args.force, game=args.game)
    cfg, plan, toml_path, board_paths = made.config, made.plan, made.toml_path, made.board_paths
    print("table %s (hub %s), event %r: wrote %s (mode 0600)" % (cfg.table, cfg.hub, cfg.event, toml_path), file=out)
    for dev, seat, key in plan.by_seat():
        d = cfg.device(dev)
        print("  seat %s  %-10s key %s…  %s" % (d.seat, dev, fingerprint(d.key), board_paths[dev]), file=out)
    print("  ports: %s" % ", ".join(cfg.ports), file=out)
    if plan.deals.practice:
        print("  deals: PRACTICE boards %s; before a round put the venue's round key in [deals]" % plan.deals.boards,
              file=out)
    else:
        print("  deals: round %d, group %d, boards %s (%d deals)" % (plan.deals.round, plan.deals.group,
                                                                   plan.deals.boards, len(cfg.deals)), file=out)
    print("copy each file to its board (one board plugged in at a time, in service mode: hold BOOT while "
          "pressing RESET):", file=out)
    for dev, seat, key in plan.by_seat():
        print("  mpremote cp %s :/seat.json        # %s, seat %s" % (shlex.quote(str(board_paths[dev])), dev, seat),
              file=out)
    print("then on the hub:  paizhuo hub --config %s" % shlex.quote(str(toml_path)), file=out)
    print("已写入 %s 桌（主机 %s）的 table.toml（权限 0600）与每块板的 seat.json：逐块在维修模式下（按住 BOOT 再按 RESET）用上面的 "
          "mpremote 命令拷到板上，然后在主机上运行 paizhuo hub --config %s" % (cfg.table, cfg.hub, shlex.quote(str(toml_path))),
          file=out)
    return 0


def _check(args, out, err):
    cfg, checks = check_boards(args.config, args.board)
    for c in checks:
        print("%s  %s: %s" % ("match   " if c.ok else "MISMATCH", c.path, c.en), file=out)
        if not c.ok:
            print("          %s" % c.zh, file=out)
    good = sum(1 for c in checks if c.ok)
    print("table %s (hub %s): %d of %d board file(s) match" % (cfg.table, cfg.hub, good, len(checks)), file=out)
    print("%s 桌（主机 %s）：%d 个板文件中 %d 个匹配" % (cfg.table, cfg.hub, len(checks), good), file=out)
    return 0 if good == len(checks) else EXIT_MISMATCH
