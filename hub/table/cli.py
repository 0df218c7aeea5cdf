"""``paizhuo hub``: run a table hub, check its log, print an example configuration.

    paizhuo hub --config table.toml         serve the table until SIGTERM / Ctrl-C (with [venue]:
                                            and its uplink to the venue over MQTT)
    paizhuo hub --config table.toml --override-log "reason"
                                            start on a log that fails the start-up check (a referee's
                                            decision; logged with the reason and the findings)
    paizhuo hub verify --log table7.sqlite [--anchor anchors.json]
                                            SQLite integrity, hash chain, its end against the hub's
                                            kept head and the venue's anchors, every result by replay
    paizhuo hub example [--venue]           an example table.toml to start from (standalone or venue mode)
    paizhuo hub results --config table.toml the finished deals as result rows (JSON) for paizhuo score
    paizhuo hub doctor --config table.toml  is this hub ready: seat ports, boards and keys, broker, clock,
                                            disk, log (what is wrong and what to do; exit 1 if anything fails)

Exit codes: 0 fine, 1 the log does not verify, 2 bad configuration or arguments.
"""

import asyncio
import json
import os
import signal
import sys

__all__ = ["add_arguments", "run"]


def add_arguments(p):
    """Add the hub's options and sub-commands to the ``hub`` sub-parser of ``paizhuo``."""
    p.add_argument("--config", metavar="TABLE.toml", help="the table configuration to serve (docs/table-hub.md)")
    p.add_argument("--override-log", metavar="REASON",
                   help="a referee's decision to start on a log that fails the start-up check (broken, or shorter "
                        "than the hub's kept head); the reason is logged with what was wrong")
    sub = p.add_subparsers(dest="hub_command")
    v = sub.add_parser("verify", help="check a table log: SQLite integrity, hash chain and its end, deal hashes, "
                                      "every result by replay")
    v.add_argument("--log", required=True, metavar="FILE", help="the event log (SQLite) to check")
    v.add_argument("--anchor", metavar="FILE",
                   help="the venue's anchors (paizhuo venue anchors --out FILE): the heads it acknowledged must "
                        "still be in the log")
    ex = sub.add_parser("example", help="print an example table.toml")
    ex.add_argument("--venue", action="store_true",
                    help="the venue-mode example: rounds come from the venue over MQTT ([venue], [seats], a spare)")
    r = sub.add_parser("results", help="the log's finished deals as result rows for `paizhuo score` (JSON)")
    r.add_argument("--config", dest="results_config", required=True, metavar="TABLE.toml",
                   help="the table configuration (its [players] own the results; its log is read)")
    r.add_argument("--log", metavar="FILE", help="a log other than the configuration's (e.g. a copy)")
    d = sub.add_parser("doctor", help="check the hub: seat ports, each board's firmware and key, the broker, "
                                      "the clock, the disk and the log (stop the hub first to check the boards)")
    d.add_argument("--config", dest="doctor_config", required=True, metavar="TABLE.toml")


def _refuse(prefix, err):
    """Print a refusal in English and Chinese (exit code 2 follows); ``str`` names a config's file and key."""
    print("%s: %s" % (prefix, err), file=sys.stderr)
    if getattr(err, "zh", None) and err.zh != err.en:
        print("%s: %s" % (prefix, err.zh), file=sys.stderr)
    return 2


def run(args):
    """Carry out ``paizhuo hub …``; returns the exit code."""
    from . import config as config_
    if args.hub_command == "example":
        sys.stdout.write(config_.example_text(venue=args.venue))  # fresh keys and secret: never the published ones
        return 0
    if args.hub_command == "verify":
        from .eventlog import LogError
        from .history import audit
        try:
            report = audit(args.log, anchors=args.anchor)
        except LogError as e:
            return _refuse("paizhuo hub verify", e)
        print(report)
        print("%s: %d deal(s) recomputed, %s" % (args.log, report.deals, "all match" if report.ok else "PROBLEMS FOUND"))
        print("%s：重算 %d 副牌，%s" % (args.log, report.deals, "全部一致" if report.ok else "发现问题"))
        return 0 if report.ok else 1
    if args.hub_command == "results":
        from .eventlog import LogError
        from .results import ResultsError, rows_from_log
        try:
            cfg = config_.load(args.results_config)
            rows = rows_from_log(args.log or cfg.log, cfg)
        except (config_.ConfigError, LogError, ResultsError) as e:
            return _refuse("paizhuo hub results", e)
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    if args.hub_command == "doctor":
        from . import doctor
        try:
            cfg = config_.load(args.doctor_config)
        except config_.ConfigError as e:
            return _refuse("paizhuo hub doctor", e)
        return doctor.report(doctor.diagnose(cfg))
    if not args.config:
        print("paizhuo hub: give the table configuration: paizhuo hub --config table.toml "
              "(paizhuo hub example prints one)", file=sys.stderr)
        print("paizhuo hub: 请给出桌机配置：paizhuo hub --config table.toml（paizhuo hub example 可打印一份示例）",
              file=sys.stderr)
        return 2
    if args.override_log is not None and not args.override_log.strip():
        print("paizhuo hub: --override-log needs the referee's reason, like --override-log \"log cut at power loss, "
              "checked by referee Li\"", file=sys.stderr)
        print("paizhuo hub: --override-log 需要写明裁判的理由", file=sys.stderr)
        return 2
    try:
        cfg = config_.load(args.config)
    except config_.ConfigError as e:
        return _refuse("paizhuo hub", e)
    leftovers = config_.example_leftovers(cfg)
    for key, en, zh in leftovers:
        _refuse("paizhuo hub", config_.ConfigError(cfg.path, key, en, zh, "example_value"))
    if leftovers:
        return 2
    from ..mqtt.client import MqttError
    from ..mqtt.outbox import OutboxError
    from .eventlog import LogError
    from .runtime import TableError
    try:
        asyncio.run(_serve(cfg, args.override_log))
    except (TableError, LogError, OutboxError, MqttError) as e:
        return _refuse("paizhuo hub", e)
    return 0


def ports_line(ports):
    """What staff need to know about the serial ports, ``(en, zh)``: which are there and which are
    missing (a board not plugged in, a wrong path); the hub keeps trying the missing ones.

    >>> ports_line(["/dev/null"])[0]
    '1 serial port: /dev/null present'
    >>> ports_line(["/dev/null", "/nonexistent/ttyACM9"])[0]
    '2 serial ports: /dev/null present; MISSING /nonexistent/ttyACM9 (plug its board in or fix [link] ports: the hub keeps trying)'
    """
    if not ports:
        return "no serial ports (the hub's bots play every seat)", "没有串口（所有座位由主机的机器人打）"
    here = [p for p in ports if os.path.exists(p)]
    gone = [p for p in ports if p not in here]
    en = "%d serial port%s: %s" % (len(ports), "" if len(ports) == 1 else "s",
                                   "%s present" % ", ".join(here) if here else "none present")
    zh = "%d 个串口：%s" % (len(ports), "%s 已连接" % "、".join(here) if here else "一个都不存在")
    if gone:
        en += "; MISSING %s (plug its board in or fix [link] ports: the hub keeps trying)" % ", ".join(gone)
        zh += "；缺少 %s（请插上座位板或修改 [link] ports：主机会一直重试）" % "、".join(gone)
    return en, zh


def _print_alert(alert):
    print("paizhuo hub alert: %s" % json.dumps(alert, ensure_ascii=False), file=sys.stderr, flush=True)


async def _serve(cfg, override_log=None):
    from .runtime import Table
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    table = Table(cfg, on_alert=_print_alert, override_log=override_log)
    uplink = None
    if cfg.venue is not None:
        from .uplink import Uplink
        uplink = Uplink(cfg, table)  # before run: it reads the log and hooks the table

    def announce(t):
        print("paizhuo hub: table %s (hub %s): %s; %s; log %s"
              % (cfg.table, cfg.hub, ports_line(cfg.ports)[0], t.describe(), cfg.log), file=sys.stderr, flush=True)
        print("paizhuo hub: %s 桌（主机 %s）：%s；日志 %s" % (cfg.table, cfg.hub, ports_line(cfg.ports)[1], cfg.log),
              file=sys.stderr, flush=True)
        if uplink is not None:
            v = cfg.venue
            print("paizhuo hub: venue uplink to %s:%d as %s (event %s); outbox %s, %d unacknowledged"
                  % (v.host, v.port, v.username, v.event, v.outbox, uplink.outbox.unacked), file=sys.stderr,
                  flush=True)
            print("paizhuo hub: 连接场地 %s:%d，用户 %s（赛事 %s）；发件箱 %s，%d 条未确认"
                  % (v.host, v.port, v.username, v.event, v.outbox, uplink.outbox.unacked), file=sys.stderr,
                  flush=True)

    if uplink is None:
        await table.run(stop, on_started=announce)
        return
    link = asyncio.ensure_future(uplink.run(stop))
    try:
        await table.run(stop, on_started=announce)
    finally:
        stop.set()  # a table that stopped (or failed) takes its uplink with it
        await link
