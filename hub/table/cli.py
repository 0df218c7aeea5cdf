"""``paizhuo hub``: run a table hub, check its log, print an example configuration.

    paizhuo hub --config table.toml         serve the table until SIGTERM / Ctrl-C (with [venue]:
                                            and its uplink to the venue over MQTT)
    paizhuo hub verify --log table7.sqlite  hash chain + every deal's result recomputed by replay
    paizhuo hub example [--venue]           an example table.toml to start from (standalone or venue mode)
    paizhuo hub results --config table.toml the finished deals as result rows (JSON) for paizhuo score

Exit codes: 0 fine, 1 the log does not verify, 2 bad configuration or arguments.
"""

import asyncio
import json
import signal
import sys

__all__ = ["add_arguments", "run"]


def add_arguments(p):
    """Add the hub's options and sub-commands to the ``hub`` sub-parser of ``paizhuo``."""
    p.add_argument("--config", metavar="TABLE.toml", help="the table configuration to serve (docs/table-hub.md)")
    sub = p.add_subparsers(dest="hub_command")
    v = sub.add_parser("verify", help="check a table log: hash chain, deal hashes, every result by replay")
    v.add_argument("--log", required=True, metavar="FILE", help="the event log (SQLite) to check")
    ex = sub.add_parser("example", help="print an example table.toml")
    ex.add_argument("--venue", action="store_true",
                    help="the venue-mode example: rounds come from the venue over MQTT ([venue], [seats], a spare)")
    r = sub.add_parser("results", help="the log's finished deals as result rows for `paizhuo score` (JSON)")
    r.add_argument("--config", dest="results_config", required=True, metavar="TABLE.toml",
                   help="the table configuration (its [players] own the results; its log is read)")
    r.add_argument("--log", metavar="FILE", help="a log other than the configuration's (e.g. a copy)")


def run(args):
    """Carry out ``paizhuo hub …``; returns the exit code."""
    from . import config as config_
    if args.hub_command == "example":
        sys.stdout.write(config_.EXAMPLE_VENUE if args.venue else config_.EXAMPLE)
        return 0
    if args.hub_command == "verify":
        from .eventlog import LogError
        from .history import audit
        try:
            report = audit(args.log)
        except LogError as e:
            print("paizhuo hub verify: %s" % e.en, file=sys.stderr)
            return 2
        print(report)
        print("%s: %d deal(s) recomputed, %s" % (args.log, report.deals, "all match" if report.ok else "PROBLEMS FOUND"))
        return 0 if report.ok else 1
    if args.hub_command == "results":
        from .eventlog import LogError
        from .results import ResultsError, rows_from_log
        try:
            cfg = config_.load(args.results_config)
            rows = rows_from_log(args.log or cfg.log, cfg)
        except (config_.ConfigError, LogError, ResultsError) as e:
            print("paizhuo hub results: %s" % e, file=sys.stderr)
            return 2
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    if not args.config:
        print("paizhuo hub: give the table configuration: paizhuo hub --config table.toml "
              "(paizhuo hub example prints one)", file=sys.stderr)
        return 2
    try:
        cfg = config_.load(args.config)
    except config_.ConfigError as e:
        print("paizhuo hub: %s" % e, file=sys.stderr)
        return 2
    from ..mqtt.client import MqttError
    from ..mqtt.outbox import OutboxError
    from .eventlog import LogError
    from .runtime import TableError
    try:
        asyncio.run(_serve(cfg))
    except (TableError, LogError, OutboxError, MqttError) as e:
        print("paizhuo hub: %s" % e.en, file=sys.stderr)
        return 2
    return 0


def _print_alert(alert):
    print("paizhuo hub alert: %s" % json.dumps(alert, ensure_ascii=False), file=sys.stderr, flush=True)


async def _serve(cfg):
    from .runtime import Table
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    table = Table(cfg, on_alert=_print_alert)
    uplink = None
    if cfg.venue is not None:
        from .uplink import Uplink
        uplink = Uplink(cfg, table)  # before run: it reads the log and hooks the table

    def announce(t):
        print("paizhuo hub: table %s (hub %s) serving %d port(s); %s; log %s"
              % (cfg.table, cfg.hub, len(cfg.ports), t.describe(), cfg.log), file=sys.stderr, flush=True)
        if uplink is not None:
            v = cfg.venue
            print("paizhuo hub: venue uplink to %s:%d as %s (event %s); outbox %s, %d unacknowledged"
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
