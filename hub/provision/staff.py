"""``paizhuo provision boards|assign|push|verify|rollback``: seat boards over their own USB link.

    paizhuo provision boards   [--ports P,…] [--config table.toml]          the boards plugged in
    paizhuo provision assign   --table 7 --hub T07 --ports E,N,W,S --out-dir DIR [--devices D,D,D,D]
                               [--event NAME] [--lang zh] [--pin-stdin] [--force]
    paizhuo provision push     --config table.toml --release DIR [--dev ID …] [--pin-stdin]
                               [--trial-seconds 120] [--baud 115200]
    paizhuo provision verify   --config table.toml [--release DIR] [--dev ID …]
    paizhuo provision rollback --config table.toml [--dev ID …] [--pin-stdin]

Every board of a command is handled at once, each on its own port (threads); each ends with
one line, ``ok`` or what is wrong and what to do (English, then Chinese).  The table hub must
be stopped while staff use its ports (``systemctl stop paizhuo-hub``).  Keys are read from
table.toml and never printed (only :func:`paizhuo.provision.fingerprint`).
"""

import glob
import sys
import threading
import time
from pathlib import Path

from ..table import config as table_config
from .. import rules as rules_
from . import ProvisionError, check_device_id, check_game, fingerprint, parse_ports, provision_table
from .boardlink import BoardError, BoardLink
from .release import ReleaseError, load_release

SEATS = table_config.SEATS
SEAT_ZH = {"E": "东", "N": "北", "W": "西", "S": "南"}


def default_ports():
    """The seat ports udev named by position (``/dev/paizhuo/seat-*``), else every USB CDC port."""
    return sorted(glob.glob("/dev/paizhuo/seat-*")) or sorted(glob.glob("/dev/ttyACM*"))


def _ports(text):
    if text:
        return parse_ports(text, 1)
    found = default_ports()
    if not found:
        raise ProvisionError("no_ports", "--ports", "no seat board ports found (/dev/paizhuo/seat-*, /dev/ttyACM*): "
                             "plug the boards in, or list their ports with --ports",
                             "未找到座位板串口（/dev/paizhuo/seat-*、/dev/ttyACM*）：请插好板子，或用 --ports 列出")
    return found


def _config(path):
    try:
        return table_config.load(str(path))
    except table_config.ConfigError as e:
        raise ProvisionError(e.code, "--config", str(e), e.zh) from None


def _release(path):
    if path is None:
        return None
    try:
        return load_release(path)
    except ReleaseError as e:
        raise ProvisionError(e.code, "--release", e.en, e.zh) from None


def read_pin(stream=None):
    """The referee PIN from one line of standard input (scripts and staff alike)."""
    line = (stream or sys.stdin).readline().rstrip("\r\n")
    if not line:
        raise ProvisionError("no_pin", "--pin-stdin", "no PIN on standard input", "标准输入中没有 PIN")
    return line


class Progress:
    """One line per board each time it passes a quarter of its image: a bar, percent, kilobytes
    (lines, not a redrawn bar: the output reads the same in a terminal, a log or over ssh)."""

    def __init__(self, out, width=20):
        self.out = out
        self.width = width
        self.lock = threading.Lock()
        self.shown = {}

    def __call__(self, label, sent, size):
        tenth = 4 * sent // size
        with self.lock:
            if self.shown.get(label) == tenth:
                return
            self.shown[label] = tenth
            fill = self.width * sent // size
            print("  %-12s [%s%s] %3d%%  %d/%d KB" % (label, "#" * fill, "-" * (self.width - fill), 100 * sent // size,
                                                      sent // 1024, size // 1024), file=self.out, flush=True)


def _each(ports, work):
    """Run ``work(port)`` for every port at once; {port: result or BoardError/ProvisionError}."""
    results = {}

    def run(port):
        try:
            results[port] = work(port)
        except (BoardError, ProvisionError) as e:
            results[port] = e
    threads = [threading.Thread(target=run, args=(p,)) for p in ports]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _report(results, out, ok_line):
    bad = 0
    for port in sorted(results):
        r = results[port]
        if isinstance(r, (BoardError, ProvisionError)):
            bad += 1
            print("FAILED  %s: %s" % (port, r.en), file=out)
            print("        %s" % r.zh, file=out)
        else:
            print("ok      %s: %s" % (port, ok_line(r)), file=out)
    return 1 if bad else 0


def _board(cfg, dev, port):
    d = cfg.device(dev) if dev else None
    if d is None:
        raise ProvisionError("unknown_device", "", "board %s on %s is not in table %s's table.toml: wrong table, or "
                             "assign it first (paizhuo provision assign)" % (dev or "(blank)", port, cfg.table),
                             "%s 上的板 %s 不在 %s 桌的 table.toml 中：放错了桌，或请先分配（paizhuo provision assign）"
                             % (port, dev or "（空白）", cfg.table))
    return d


# ---- boards ---------------------------------------------------------------------------------

def boards(ports, config=None, out=None):
    """List what is plugged in: device id, firmware, identity, image, free flash (and, with a
    table.toml, whether the board's key is that table's)."""
    out = out or sys.stdout
    cfg = _config(config) if config else None

    def look(port):
        with BoardLink(port) as b:
            hi = b.probe()
            key_state = "-"
            if cfg is not None and hi.get("dev"):
                d = cfg.device(hi["dev"])
                if d is None:
                    key_state = "not in table.toml"
                else:
                    key_state = "key ok" if b.key_matches(d.key)[1] else "KEY WRONG"
            return hi, key_state
    results = _each(ports, look)
    print("%-22s %-10s %-7s %-7s %-8s %-22s %-10s %s" % ("port", "device", "fw", "board", "mode", "identity",
                                                          "image", "free"), file=out)
    for port in sorted(results):
        r = results[port]
        if isinstance(r, Exception):
            print("%-22s %s" % (port, r.en), file=out)
            print("%-22s %s" % ("", r.zh), file=out)
            continue
        hi, key_state = r
        ident = "-" if not hi.get("table") else "table %s seat %s hub %s" % (hi["table"], hi["seat"], hi["hub"])
        img = (hi.get("img") or {}).get(hi.get("active") or "", {})
        image = "%s %s" % (img.get("ver", "?"), img.get("sha", "")[:8]) if img else "-"
        free = "%d KB" % (hi["free"] // 1024) if isinstance(hi.get("free"), int) and hi["free"] >= 0 else "-"
        if hi.get("mode") == "game":
            image = "(in game)"  # a game board tells no image: push/verify open service mode for that
        print("%-22s %-10s %-7s %-7s %-8s %-22s %-10s %s  %s" % (port, hi.get("dev") or "(blank)", hi.get("fw"),
                                                                 hi.get("board"), hi.get("mode"), ident, image, free,
                                                                 key_state), file=out)
    return 0


# ---- assign ---------------------------------------------------------------------------------

def label(cfg, dev, seat):
    """The printable label of one seat board (stick it on the enclosure)."""
    d = cfg.device(dev)
    return "\n".join(["+--------------------------------------+",
                      "|  第 %s 桌  %s %s    table %s seat %s" % (cfg.table, SEAT_ZH.get(seat, seat), seat, cfg.table, seat),
                      "|  device %s   hub %s" % (dev, cfg.hub),
                      "|  event  %s" % cfg.event,
                      "|  key    %s…  (fingerprint)" % fingerprint(d.key),
                      "+--------------------------------------+"])


def assign(table, hub, ports, out_dir, devices=None, event=None, lang="zh", pin=None, force=False, out=None,
           game=None):
    """Give the boards on ``ports`` (one per seat of ``game``, None: the default game, in seat
    order E, N, W, S: the hub's USB positions) their identities: write table.toml and the
    boards' files (fresh keys), then each board's identity over its link, verified under its
    new key; print a label per seat."""
    out = out or sys.stdout
    game = check_game(game)
    seats = rules_.game(game).seats  # the table's game's seats, in play order
    en, zh, n = ", ".join(seats), "、".join(seats), len(seats)
    port_list = parse_ports(ports, len(seats))
    if len(port_list) != len(seats):
        raise ProvisionError("bad_ports", "--ports", "give the %d seats' ports in seat order %s (one each)" % (n, en),
                             "请按座位顺序 %s 给出 %d 个座位的串口（各一个）" % (zh, n))
    if devices:
        ids = [check_device_id(d.strip(), "--devices") for d in devices.split(",")]
        if len(ids) != len(seats):
            raise ProvisionError("bad_devices", "--devices", "give %d device ids in seat order %s" % (n, en),
                                 "请按座位顺序 %s 给出 %d 个设备编号" % (zh, n))
    else:
        ids = ["%s-%s" % (hub, s) for s in seats]
    # Every board is asked first: nothing is written while a board would refuse.
    def ask(port):
        with BoardLink(port) as b:
            return b.probe()
    probes = _each(port_list, ask)
    for port, seat in zip(port_list, seats):
        hi = probes[port]
        if isinstance(hi, (BoardError, ProvisionError)):
            raise ProvisionError(hi.code, "--ports", hi.en, hi.zh)
        if hi.get("keyed") and not hi.get("zero"):
            raise ProvisionError("has_identity", "--ports", "the board on %s (seat %s) already has an identity (%s): hold "
                                 "its BOOT button through a reset to give it a new one, or leave it out"
                                 % (port, seat, hi.get("dev")),
                                 "%s 上的板（%s 座）已有身份（%s）：请按住 BOOT 键复位后再分配，或不分配此板"
                                 % (port, seat, hi.get("dev")))
    made = provision_table(out_dir, table, hub, ",".join("%s:%s" % (d, s) for d, s in zip(ids, seats)),
                           ",".join(port_list), event=event, lang=lang, force=force, game=game)
    cfg = made.config

    def write(port):
        seat = seats[port_list.index(port)]
        dev = ids[seats.index(seat)]
        d = cfg.device(dev)
        with BoardLink(port) as b:
            b.open_service(None)
            b.ident(dev, d.key, lang, cfg.event, cfg.table, seat, cfg.hub, pin=pin)
            hi = b.open_service(d.key)  # the board answers under its new key: the identity took
            if (hi.get("dev"), hi.get("table"), hi.get("seat"), hi.get("hub")) != (dev, cfg.table, seat, cfg.hub):
                raise BoardError("ident_mismatch", "the board on %s reports another identity after writing" % port,
                                 "%s 上的板写入后报告的身份不一致" % port, dev)
            b.reboot()
        return dev, seat
    results = _each(port_list, write)
    code = _report(results, out, lambda r: "%s is table %s seat %s" % (r[0], cfg.table, r[1]))
    labels = [label(cfg, ids[i], s) for i, s in enumerate(seats)]
    Path(out_dir, "labels.txt").write_text("\n\n".join(labels) + "\n", encoding="utf-8")
    print("labels (also in %s):" % Path(out_dir, "labels.txt"), file=out)
    print("\n\n".join(labels), file=out)
    print("table.toml: %s — start the hub with: paizhuo hub --config %s" % (made.toml_path, made.toml_path), file=out)
    return code


# ---- push, verify, rollback ------------------------------------------------------------------

def _on_boards(cfg, devs, work, pace=None):
    """``work(link, hi, device)`` for each board of the table's ports (or only ``devs``), at once."""
    def each(port):
        with BoardLink(port, pace=pace) as b:
            hi = b.probe()
            d = _board(cfg, hi.get("dev"), port)
            if devs and d.id not in devs:
                return None
            return work(b, hi, d)
    return {p: r for p, r in _each(list(cfg.ports), each).items() if r is not None}


def _active(info):
    """The image record ({sha, ver, size}) of the slot a board boots."""
    return (info.get("img") or {}).get(info.get("active"), {})


def _confirm(b, cfg, d):
    b.confirm_as_hub(d.key, cfg.hub, d.seat if d.seat in SEATS else "E", cfg.table, cfg.event or "-",
                     d.lang or cfg.lang or "zh")


def push(config, release, devs=None, pin=None, trial_seconds=120, pace=None, out=None, tamper=None):
    """Update the table's boards (or ``devs``) to ``release``, all at once, with progress; each
    board boots the new image on trial, this tool welcomes it as its hub would, and checks it
    kept the image."""
    out = out or sys.stdout
    cfg = _config(config)
    rel = _release(release)
    progress = Progress(out)

    def work(b, hi, d):
        start = time.monotonic()
        if hi.get("board") not in rel.manifest["boards"]:
            raise BoardError("wrong_board", "release %s is for %s, not for %s's board %s: use a release built for "
                             "it" % (rel.version, ", ".join(rel.manifest["boards"]), d.id, hi.get("board")),
                             "版本 %s 适用于 %s，不适用于 %s 的板型 %s：请使用为它构建的版本"
                             % (rel.version, "、".join(rel.manifest["boards"]), d.id, hi.get("board")), d.id)
        info = b.open_service(d.key, pin=pin)
        active = _active(info)
        if active.get("sha") != rel.sha:
            b.push(rel.image, rel.manifest, lambda s, n: progress("%s %s" % (d.seat, d.id), s, n),
                   limit_ms=trial_seconds * 1000, tamper=tamper)
            b.reboot()
            _confirm(b, cfg, d)
            info = b.open_service(d.key)
        kept = _active(info)
        if kept.get("sha") != rel.sha or info.get("trial"):
            raise BoardError("not_kept", "%s did not keep release %s (it runs %s): its trial boot rolled back; "
                             "see its screen, then push again" % (d.id, rel.version, kept.get("ver")),
                             "%s 未保留版本 %s（现运行 %s）：试运行已回退；请查看屏幕后重新推送"
                             % (d.id, rel.version, kept.get("ver")), d.id)
        b.reboot()
        return d, time.monotonic() - start
    results = _on_boards(cfg, devs, work, pace)
    return _report(results, out, lambda r: "%s (seat %s) runs %s, sha256 %s… (%.1f s)"
                   % (r[0].id, r[0].seat, rel.version, rel.sha[:12], r[1]))


def verify(config, release=None, devs=None, out=None):
    """Check each board: it answers under table.toml's key, its identity is this table's seat,
    no trial is pending, and (with ``release``) it runs that image."""
    out = out or sys.stdout
    cfg = _config(config)
    rel = _release(release)

    def work(b, hi, d):
        hi, good = b.key_matches(d.key)
        if not good:
            raise BoardError("bad_key", "%s's key is not the one in table.toml (board answers under another key): "
                             "the hub would refuse it (bad_tag); assign it again" % d.id,
                             "%s 的密钥与 table.toml 不同：主机会拒绝（bad_tag）；请重新分配" % d.id, d.id)
        info = b.open_service(d.key)
        problems = []
        if (info.get("table"), info.get("seat"), info.get("hub")) != (cfg.table, d.seat, cfg.hub):
            problems.append(("identity is table %s seat %s hub %s, table.toml says table %s seat %s hub %s"
                             % (info.get("table"), info.get("seat"), info.get("hub"), cfg.table, d.seat, cfg.hub),
                             "身份为 %s 桌 %s 座 主机 %s，table.toml 为 %s 桌 %s 座 主机 %s"
                             % (info.get("table"), info.get("seat"), info.get("hub"), cfg.table, d.seat, cfg.hub)))
        if info.get("trial"):
            problems.append(("an update waits for its trial boot", "有更新等待试运行"))
        active = _active(info)
        if rel is not None and active.get("sha") != rel.sha:
            problems.append(("runs %s, not release %s" % (active.get("ver"), rel.version),
                             "运行 %s，而不是版本 %s" % (active.get("ver"), rel.version)))
        b.reboot()
        if problems:
            raise BoardError("mismatch", "%s: %s" % (d.id, "; ".join(p[0] for p in problems)),
                             "%s：%s" % (d.id, "；".join(p[1] for p in problems)), d.id)
        return d, active
    results = _on_boards(cfg, devs, work)
    return _report(results, out, lambda r: "%s is seat %s of table %s, key ok, runs %s %s…"
                   % (r[0].id, r[0].seat, cfg.table, r[1].get("ver"), r[1].get("sha", "")[:12]))


def rollback(config, devs=None, pin=None, out=None):
    """Put each board (or ``devs``) back on the image it ran before its last update."""
    out = out or sys.stdout
    cfg = _config(config)

    def work(b, hi, d):
        b.open_service(d.key, pin=pin)
        b.call("rollback")
        b.reboot()
        _confirm(b, cfg, d)
        info = b.open_service(d.key)
        b.reboot()
        return d, _active(info)
    results = _on_boards(cfg, devs, work)
    return _report(results, out, lambda r: "%s runs %s %s… again" % (r[0].id, r[1].get("ver"), r[1].get("sha", "")[:12]))


# ---- the command line -------------------------------------------------------------------------

def add_arguments(sub):
    """The staff sub-commands, on ``paizhuo provision``'s sub-parsers."""
    b = sub.add_parser("boards", help="list the seat boards on USB: device id, firmware, identity, free flash")
    b.add_argument("--ports", help="ports, comma separated (default: /dev/paizhuo/seat-*, else /dev/ttyACM*)")
    b.add_argument("--config", metavar="TABLE.toml", help="also check each board's key against this table")
    a = sub.add_parser("assign", help="give a table's four blank boards their seats, keys and labels in one go")
    a.add_argument("--table", required=True)
    a.add_argument("--hub", required=True)
    a.add_argument("--ports", required=True, help="the seats' ports in seat order E,N,W,S (a three-seat game: E,N,W)")
    a.add_argument("--out-dir", required=True, metavar="DIR", help="where table.toml, the boards' files and labels.txt go")
    a.add_argument("--devices", help="device ids in seat order (default HUB-E, HUB-N, HUB-W, HUB-S)")
    a.add_argument("--event")
    a.add_argument("--lang", default="zh")
    a.add_argument("--pin-stdin", action="store_true", help="read the referee PIN (unlocks a board in a deal)")
    a.add_argument("--force", action="store_true")
    a.add_argument("--game", help="the game the table plays (default: the default game); a board on each of its seats")
    for name, what in (("push", "update boards to a release (trial boot, kept once welcomed)"),
                       ("verify", "check each board's key, identity and firmware"),
                       ("rollback", "put boards back on the firmware they ran before")):
        p = sub.add_parser(name, help=what)
        p.add_argument("--config", required=True, metavar="TABLE.toml")
        p.add_argument("--dev", action="append", help="only this board (repeat for more); default: the whole table")
        if name != "rollback":
            p.add_argument("--release", required=name == "push", metavar="DIR",
                           help="a release folder (make firmware: build/release/paizhuo-seat-…)")
        if name != "verify":
            p.add_argument("--pin-stdin", action="store_true", help="read the referee PIN (a board in a running deal)")
        if name == "push":
            p.add_argument("--trial-seconds", type=int, default=120, help="time a trial boot has to reach its hub")
            p.add_argument("--baud", type=int, help="space writes as a serial line of this speed would (8N1), "
                           "like 115200; default: as fast as the port takes them")


COMMANDS = ("boards", "assign", "push", "verify", "rollback")


def command(args, out):
    """Run one of :data:`COMMANDS`; the exit code."""
    c = args.provision_command
    pin = read_pin() if getattr(args, "pin_stdin", False) else None
    if c == "boards":
        return boards(_ports(args.ports), args.config, out)
    if c == "assign":
        return assign(args.table, args.hub, args.ports, args.out_dir, args.devices, args.event, args.lang, pin,
                      args.force, out, game=args.game)
    if c == "push":
        pace = args.baud // 10 if args.baud else None  # 8N1: ten bits a byte
        return push(args.config, args.release, args.dev, pin, args.trial_seconds, pace, out)
    if c == "verify":
        return verify(args.config, args.release, args.dev, out)
    return rollback(args.config, args.dev, pin, out)
