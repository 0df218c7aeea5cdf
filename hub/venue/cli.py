"""``paizhuo venue``: run the venue service of one event, check its configuration, make the PIN hash.

    paizhuo venue --event event.toml [--stay] [--broker-port N]   serve the event (docs/venue.md)
    paizhuo venue check --event event.toml                          is the configuration (and store) right?
    paizhuo venue example                                           an example event.toml to start from
    paizhuo venue pin [--pin-stdin]                                 the referees' PIN → its hash for [web]

Without ``[broker]`` in event.toml the venue starts an embedded MQTT broker on 127.0.0.1 (port
1883, or ``--broker-port``; 0 picks a free one): the demo and a small room on one machine.
Without ``--stay`` the service ends by itself once the last round is complete.

Exit codes: 0 fine, 2 bad configuration, arguments or store (the message says what to fix).
"""

import asyncio
import getpass
import logging
import os
import signal
import sqlite3
import sys

__all__ = ["add_arguments", "run"]

MIN_PIN = 6        # characters; five wrong PINs lock the console for a minute (hub/venue/web.py)
DRAIN_SECONDS = 5  # after the last round: time for the final standings and records to reach the broker


def add_arguments(p):
    """The options and sub-commands of ``paizhuo venue``."""
    p.add_argument("--event", metavar="EVENT.toml", help="the event configuration to serve (docs/venue.md)")
    p.add_argument("--stay", action="store_true", help="keep serving after the last round (the standings stay up)")
    p.add_argument("--broker-port", type=int, default=1883, metavar="N",
                   help="port of the embedded broker when event.toml has no [broker] (default 1883; 0: any free port)")
    sub = p.add_subparsers(dest="venue_command")
    c = sub.add_parser("check", help="check event.toml (and its store, if it exists) without starting anything")
    c.add_argument("--event", dest="check_event", required=True, metavar="EVENT.toml")
    sub.add_parser("example", help="print an example event.toml")
    pin = sub.add_parser("pin", help="read the referees' PIN twice and print its hash for [web] referee_pin_hash")
    pin.add_argument("--pin-stdin", action="store_true", help="read the PIN once from standard input (scripts)")


def _fail(what, err=None):
    print("paizhuo venue: %s" % what, file=sys.stderr)
    if err is not None and getattr(err, "zh", None) and err.zh != getattr(err, "en", None):
        print("paizhuo venue: %s" % err.zh, file=sys.stderr)
    return 2


def run(args):
    """Carry out ``paizhuo venue …``; returns the exit code."""
    from . import event as event_
    if args.venue_command == "example":
        sys.stdout.write(event_.EXAMPLE)
        return 0
    if args.venue_command == "pin":
        return _pin(args.pin_stdin)
    if args.venue_command == "check":
        try:
            cfg = event_.load(args.check_event)
        except event_.EventError as e:
            return _fail(e.en, e)
        return _check(cfg)
    if not args.event:
        return _fail("give the event configuration: paizhuo venue --event event.toml (paizhuo venue example prints one)")
    try:
        cfg = event_.load(args.event)
    except event_.EventError as e:
        return _fail(e.en, e)
    if not 0 <= args.broker_port <= 65535:
        return _fail("--broker-port must be 0-65535, not %d" % args.broker_port)
    from .service import VenueError
    from .store import Store, StoreError
    from ..errors import CodedError
    try:
        store = Store(cfg.store_path)
    except StoreError as e:
        return _fail(e.en, e)
    logging.basicConfig(level=logging.WARNING, format="paizhuo venue: %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(_serve(cfg, store, args.stay, args.broker_port))
    except (VenueError, StoreError) as e:
        return _fail(e.en, e)
    except CodedError as e:  # the embedded broker cannot listen, the broker refused our credentials
        return _fail(e.en, e)
    except OSError as e:
        return _fail("cannot serve: %s" % e)
    finally:
        store.close()
    return 0


def _pin(from_stdin):
    from .store import hash_secret
    if from_stdin:
        pin = sys.stdin.readline().rstrip("\r\n")
    else:
        try:
            pin = getpass.getpass("referee PIN 裁判 PIN: ")
            again = getpass.getpass("again 再输入一次: ")
        except (EOFError, KeyboardInterrupt):
            return _fail("no PIN given")
        if pin != again:
            return _fail("the two PINs differ; nothing was printed — run it again / 两次输入的 PIN 不同，请重试")
    if len(pin) < MIN_PIN or pin != pin.strip():
        return _fail("a referee PIN needs at least %d characters and no spaces at either end / 裁判 PIN 至少 %d 个字符，首尾不能有空格"
                     % (MIN_PIN, MIN_PIN))
    print(hash_secret(pin))
    return 0


def _check(cfg):
    """Print what the configuration says; look into an existing store without writing to it."""
    humans = [p for p in cfg.players if not p.bot]
    print("event %s (%s): %s, %d round(s) × %d board(s)%s" % (cfg.id, cfg.name, cfg.game, cfg.rounds, cfg.boards_per_round,
                                                          ", auto start" if cfg.auto_start else ", referees start rounds"))
    print("players: %d (%d bot%s); tables: %d listed, %d needed%s" % (
        len(cfg.players), len(cfg.players) - len(humans), "" if len(cfg.players) - len(humans) == 1 else "s",
        len(cfg.tables), cfg.tables_needed(), ", 人机赛" if cfg.vs_ai else ""))
    if cfg.broker is None:
        print("broker: embedded, on 127.0.0.1 (no [broker])")
    else:
        print("broker: %s:%d as %s" % (cfg.broker.host, cfg.broker.port, cfg.broker.username or "(anonymous)"))
    if cfg.web is None:
        print("web: none (no [web]: no standings page and no referee console)")
    else:
        print("web: http://%s:%d/ (referee console /referee, PIN hash set)" % (cfg.web.host, cfg.web.port))
    if not os.path.exists(cfg.store_path):
        print("store: %s (new: created when the venue starts)" % cfg.store_path)
        return 0
    from .store import SCHEMA_VERSION, check_secret
    try:
        db = sqlite3.connect("file:%s?mode=ro" % cfg.store_path, uri=True)
        try:
            version = db.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            row = db.execute("SELECT name, game, secret_hash FROM events WHERE id = ?", (cfg.id,)).fetchone()
            rounds = db.execute("SELECT count(*) FROM rounds WHERE event = ?", (cfg.id,)).fetchone()[0]
            results = db.execute("SELECT count(*) FROM results WHERE event = ?", (cfg.id,)).fetchone()[0]
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        return _fail("%s is not a paizhuo venue store (%s): give [store] path another file" % (cfg.store_path, e))
    if version > SCHEMA_VERSION:
        return _fail("%s has store schema version %d, newer than this paizhuo understands (%d): upgrade paizhuo"
                     % (cfg.store_path, version, SCHEMA_VERSION))
    if row is None:
        print("store: %s (schema %d; event %s not in it yet)" % (cfg.store_path, version, cfg.id))
        return 0
    if (row[0], row[1]) != (cfg.name, cfg.game) or not row[2] or not check_secret(cfg.secret_text(), row[2]):
        return _fail("%s holds event %s with another name, game or secret than %s: use the event.toml it was made with, "
                     "or give [store] path a new file" % (cfg.store_path, cfg.id, cfg.path))
    print("store: %s (schema %d%s): event %s, %d round(s) seated, %d result(s)" % (
        cfg.store_path, version, ", migrated to %d when the venue starts" % SCHEMA_VERSION if version < SCHEMA_VERSION else "",
        cfg.id, rounds, results))
    return 0


async def _serve(cfg, store, stay, broker_port):
    from ..mqtt.client import Broker
    from .service import Venue
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    venue = Venue(cfg, store, None)
    venue.restore()  # a store of another event is refused before anything listens
    broker = None
    if cfg.broker is None:
        from ..mqtt.broker import EmbeddedBroker
        broker = EmbeddedBroker("127.0.0.1", broker_port)
        port = await broker.start()
        # The embedded broker checks no passwords; the username gives the venue a persistent session.
        b = Broker("127.0.0.1", port, username="venue")
        where = "embedded broker on 127.0.0.1:%d" % port
    else:
        b = cfg.broker
        where = "broker %s:%d%s" % (b.host, b.port, " (TLS)" if b.tls_ca is not None else "")
    runner = None
    try:
        link = venue.link = b.client("venue-%s" % cfg.id, clean_session=False)
        urls = None
        if cfg.web is not None:
            runner, urls = await _start_web(venue, cfg.web)
        _say("event %s (%s): %s, round %d seated, %s" % (cfg.id, cfg.name, cfg.game, venue.round, where))
        if urls is None:
            _say("no [web] in %s: no standings page, no referee console (standings on MQTT only)" % cfg.path)
        else:
            _say("standings 成绩: %s" % urls[0])
            _say("referee console 裁判台: %s" % urls[1])

        async def until_finished():
            await venue.finished.wait()
            _say("the last round is complete: final standings published%s" % ("; staying up (--stay)" if stay else ""))
            if not stay:
                deadline = loop.time() + DRAIN_SECONDS
                while link.unacknowledged and loop.time() < deadline:
                    await asyncio.sleep(0.05)
                stop.set()

        watcher = asyncio.ensure_future(until_finished())

        async def connection_check():
            await asyncio.sleep(5)
            if not link.connected:
                _say("not connected to the %s yet%s; still trying" % (where, ": %s" % link.error.en if link.error else ""))

        checker = asyncio.ensure_future(connection_check())
        try:
            await venue.run(stop)
        finally:
            watcher.cancel()
            checker.cancel()
    finally:
        if runner is not None:
            await runner.cleanup()
        if broker is not None:
            await broker.stop()


async def _start_web(venue, w):
    try:
        from aiohttp import web as aioweb
        from . import web as web_mod
    except ImportError as e:
        _say("the web pages are not available (%s): serving without them" % e)
        return None, None
    app = web_mod.make_app(venue, w.pin_hash, secure_cookies=w.secure_cookies)
    runner = aioweb.AppRunner(app)
    await runner.setup()
    site = aioweb.TCPSite(runner, w.host, w.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    shown = host if host not in ("0.0.0.0", "::") else "<this machine's address>"
    base = "http://%s:%d" % ("[%s]" % shown if ":" in shown else shown, port)
    return runner, (base + "/", base + "/referee")


def _say(text):
    print("paizhuo venue: %s" % text, file=sys.stderr, flush=True)
