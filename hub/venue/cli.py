"""``paizhuo venue``: run the venue service of one event, check its configuration, make the PIN hash.

    paizhuo venue --event event.toml [--stay] [--broker-port N]   serve the event (docs/venue.md)
    paizhuo venue check --event event.toml                          is the configuration (and store) right?
    paizhuo venue example                                           an example event.toml to start from
    paizhuo venue pin [--pin-stdin]                                 the referees' PIN → its hash for [web]
    paizhuo venue players players.csv|players.xlsx                  [[players]] blocks from a players' list
    paizhuo venue anchors --event event.toml [--out FILE]           each hub's log head the venue acknowledged (JSON)

Without ``[broker]`` in event.toml the venue starts an embedded MQTT broker on 127.0.0.1 (port
1883, or ``--broker-port``; 0 picks a free one): the demo and a small room on one machine.  Its
logins are a ``paizhuo broker config`` folder (``[embedded_broker] credentials``, default
``<event id>-broker`` next to event.toml) the venue writes at its first start: give each hub its
``<hub>.pass`` as ``[venue] password_file``.
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

from ..errors import SQLITE_READ_ERRORS

__all__ = ["add_arguments", "run"]

DRAIN_SECONDS = 5  # after the last round: time for the final standings and records to reach the broker
# A stop (SIGTERM, Ctrl-C) always ends the process: each step of the shutdown gets this long, and
# a step that takes longer is named in a warning and left (everything accepted is in the store
# already: each result is committed when it is acknowledged).  A test once saw a venue still up
# 30 s after SIGTERM under load, without telling which step waited.
STOP_STEP_SECONDS = 8


def add_arguments(p):
    """The options and sub-commands of ``paizhuo venue``."""
    p.add_argument("--event", metavar="EVENT.toml", help="the event configuration to serve (docs/venue.md)")
    p.add_argument("--stay", action="store_true", help="keep serving after the last round (the standings stay up)")
    p.add_argument("--broker-port", type=int, default=1883, metavar="N",
                   help="port of the embedded broker when event.toml has no [broker] (default 1883; 0: any free port)")
    sub = p.add_subparsers(dest="venue_command")
    c = sub.add_parser("check", help="check event.toml (and its store, if it exists) without starting anything")
    c.add_argument("--event", dest="check_event", required=True, metavar="EVENT.toml")
    sub.add_parser("example", help="print an example event.toml (with a fresh deal secret)")
    pin = sub.add_parser("pin", help="read the referees' PIN twice and print its hash for [web] referee_pin_hash")
    pin.add_argument("--pin-stdin", action="store_true", help="read the PIN once from standard input (scripts)")
    pl = sub.add_parser("players", help="[[players]] blocks for event.toml from a CSV or XLSX list of players (id, name, no)")
    pl.add_argument("players_file", metavar="FILE",
                    help="the players' list: a .csv file (UTF-8, or GB18030 as spreadsheets save it) or a .xlsx workbook")
    a = sub.add_parser("anchors", help="write, per hub, the head of its event log the venue acknowledged "
                                       "(for paizhuo hub verify --anchor)")
    a.add_argument("--event", dest="anchors_event", required=True, metavar="EVENT.toml")
    a.add_argument("--out", metavar="FILE", help="write the JSON here (default: standard output)")


def _fail(what, err=None):
    """Print a refusal (English, then Chinese: ``err`` is a CodedError or the Chinese text); 2."""
    print("paizhuo venue: %s" % what, file=sys.stderr)
    zh = err if isinstance(err, str) else getattr(err, "zh", None)
    if zh and zh != getattr(err, "en", None):
        print("paizhuo venue: %s" % zh, file=sys.stderr)
    return 2


def run(args):
    """Carry out ``paizhuo venue …``; returns the exit code."""
    from . import event as event_
    if args.venue_command == "example":
        sys.stdout.write(event_.example_text())  # a fresh secret, never the published one
        return 0
    if args.venue_command == "pin":
        return _pin(args.pin_stdin)
    if args.venue_command == "players":
        from .roster import RosterError, players_toml, read_players
        try:
            players = read_players(args.players_file)
        except RosterError as e:
            return _fail(e.en, e)
        sys.stdout.write(players_toml(players))   # alone on stdout: `… >> event.toml` appends only the blocks
        _say("%d player(s) from %s: add the blocks above to event.toml (or `>> event.toml`), then paizhuo venue check"
             % (len(players), args.players_file))
        _say("已读取 %d 名选手：把上面的配置块加入 event.toml（或 >> event.toml），然后运行 paizhuo venue check" % len(players))
        return 0
    if args.venue_command == "anchors":
        try:
            cfg = event_.load(args.anchors_event)
        except event_.EventError as e:
            return _fail(e.en, e)
        return _anchors(cfg, args.out)
    if args.venue_command == "check":
        try:
            cfg = event_.load(args.check_event)
        except event_.EventError as e:
            return _fail(e.en, e)
        return _refuse_example(cfg) or _check(cfg)
    if not args.event:
        return _fail("give the event configuration: paizhuo venue --event event.toml (paizhuo venue example prints one)",
                     "请给出赛事配置：paizhuo venue --event event.toml（paizhuo venue example 可打印一份示例）")
    try:
        cfg = event_.load(args.event)
    except event_.EventError as e:
        return _fail(e.en, e)
    if _refuse_example(cfg):
        return 2
    if not 0 <= args.broker_port <= 65535:
        return _fail("--broker-port must be 0-65535, not %d" % args.broker_port,
                     "--broker-port 必须在 0 到 65535 之间，而不是 %d" % args.broker_port)
    from .service import VenueError
    from .store import Store, StoreError
    from ..errors import SQLITE_READ_ERRORS, CodedError
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
        return _fail("cannot serve: %s" % e, "无法提供服务：%s" % e)
    finally:
        store.close()
    return 0


def _names_the_boards_cannot_draw(players):
    """Print each player whose name has characters the seat boards' font lacks (issue #12)."""
    from ..sim import glyphs  # the font the firmware build ships (no Pillow needed to ask)
    for name, missing in glyphs.undrawable([p.name for p in players]):
        print("warning: the seat boards cannot draw %s in the name %r (shown as a box): check the name or "
              "use a common form of the character" % (" ".join(missing), name))
        print("  警告：座位板无法显示选手名 %r 中的 %s（显示为方框）：请核对姓名或改用常用字形" % (name, " ".join(missing)))


def _refuse_example(cfg):
    """2 (after saying why, in both languages) when ``cfg`` still holds the published example's
    secret or PIN hash; None otherwise."""
    from . import event as event_
    leftovers = event_.example_leftovers(cfg)
    for key, en, zh in leftovers:
        _fail("%s: %s: %s" % (cfg.path, key, en), event_.EventError(cfg.path, key, en, zh))
    return 2 if leftovers else None


def _pin(from_stdin):
    from .store import hash_secret
    if from_stdin:
        try:
            pin = sys.stdin.buffer.readline().decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            return _fail("the PIN is not UTF-8 text", "PIN 不是 UTF-8 文本")
    else:
        try:
            pin = getpass.getpass("referee PIN 裁判 PIN: ")
            again = getpass.getpass("again 再输入一次: ")
        except (EOFError, KeyboardInterrupt):
            return _fail("no PIN given", "没有输入 PIN")
        if pin != again:
            return _fail("the two PINs differ; nothing was printed — run it again", "两次输入的 PIN 不同，没有输出：请重试")
    from ..errors import CodedError
    from .event import check_pin
    try:
        check_pin(pin)
    except CodedError as e:
        return _fail(e.en, e)
    print(hash_secret(pin))
    return 0


def _anchors(cfg, out):
    """``{"v": 1, "event", "hubs": {hub: {"table", "seq", "hash"}}}`` from the event's store, read-only."""
    import json
    from ..errors import CodedError
    from .store import StoreError, read_anchors
    if not os.path.exists(cfg.store_path):
        e = CodedError("no_store", "there is no store %s yet: the venue has acknowledged nothing (check [store] path in %s)"
                       % (cfg.store_path, cfg.path), "数据库 %s 尚不存在：场地尚未确认任何消息（请检查 %s 中的 [store] path）"
                       % (cfg.store_path, cfg.path))
        return _fail(e.en, e)
    try:
        got = read_anchors(cfg.store_path, cfg.id)
    except StoreError as e:
        return _fail(e.en, e)
    text = json.dumps({"v": 1, "event": cfg.id, "hubs": {h: {k: a[k] for k in ("table", "seq", "hash")}
                                                         for h, a in got.items()}},
                      ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)  # never a half-written anchors file
    except OSError as e:
        err = CodedError("cannot_write", "cannot write %s: %s" % (out, e.strerror), "无法写入 %s：%s" % (out, e.strerror))
        return _fail(err.en, err)
    _say("anchors of %d hub(s) written to %s / 已将 %d 个主机的锚点写入 %s" % (len(got), out, len(got), out))
    return 0


def _check(cfg):
    """Print what the configuration says; look into an existing store without writing to it."""
    humans = [p for p in cfg.players if not p.bot]
    print("event %s (%s): %s, %d round(s) × %d board(s)%s" % (cfg.id, cfg.name, cfg.game, cfg.rounds, cfg.boards_per_round,
                                                          ", auto start" if cfg.auto_start else ", referees start rounds"))
    print("  赛事 %s：%d 轮，每轮 %d 副牌，%s" % (cfg.id, cfg.rounds, cfg.boards_per_round,
                                         "自动开轮" if cfg.auto_start else "由裁判开轮"))
    print("players: %d (%d bot%s); tables: %d listed, %d needed%s" % (
        len(cfg.players), len(cfg.players) - len(humans), "" if len(cfg.players) - len(humans) == 1 else "s",
        len(cfg.tables), cfg.tables_needed(), ", 人机赛" if cfg.vs_ai else ""))
    print("  选手 %d 名（电脑 %d 名）；列出 %d 张桌，需要 %d 张" % (len(cfg.players), len(cfg.players) - len(humans),
                                                    len(cfg.tables), cfg.tables_needed()))
    _names_the_boards_cannot_draw(humans)
    if cfg.matches:  # a match event pairs sides (pairs or teams), one match a round
        print("sides: %d %s, paired by 积分编排%s" % (len(cfg.sides), cfg.format,
                                                   " (an odd field: one bye a round)" if len(cfg.sides) % 2 else ""))
        print("  参赛方 %d 个（%s），积分编排%s" % (len(cfg.sides), cfg.format, "（单数：每轮一方轮空）" if len(cfg.sides) % 2 else ""))
    if cfg.broker is None:
        print("broker: embedded, on 127.0.0.1 (no [broker]); hub logins in %s%s" % (
            cfg.embedded_credentials, "" if os.path.exists(os.path.join(cfg.embedded_credentials, "passwd"))
            else " (new: written when the venue starts)"))
        print("  代理：内置，仅 127.0.0.1；各主机的登录信息在 %s" % cfg.embedded_credentials)
    else:
        print("broker: %s:%d as %s" % (cfg.broker.host, cfg.broker.port, cfg.broker.username or "(anonymous)"))
        print("  代理：%s:%d，用户 %s" % (cfg.broker.host, cfg.broker.port, cfg.broker.username or "（匿名）"))
    if cfg.web is None:
        print("web: none (no [web]: no standings page and no referee console)")
        print("  网页：无（没有 [web]：没有成绩页和裁判台）")
    else:
        print("web: http://%s:%d/ (referee console /referee, PIN hash set)" % (cfg.web.host, cfg.web.port))
        print("  网页：http://%s:%d/（裁判台 /referee，已设置 PIN 哈希）" % (cfg.web.host, cfg.web.port))
    if not os.path.exists(cfg.store_path):
        print("store: %s (new: created when the venue starts)" % cfg.store_path)
        print("  数据库：%s（新建：场地服务启动时创建）" % cfg.store_path)
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
    except SQLITE_READ_ERRORS as e:
        return _fail("%s is not a paizhuo venue store (%s): give [store] path another file" % (cfg.store_path, e),
                     "%s 不是 paizhuo 场地数据库（%s）：请为 [store] path 另给一个文件" % (cfg.store_path, e))
    if version > SCHEMA_VERSION:
        return _fail("%s has store schema version %d, newer than this paizhuo understands (%d): upgrade paizhuo"
                     % (cfg.store_path, version, SCHEMA_VERSION), "%s 的数据库版本为 %d，比本 paizhuo 能读的（%d）更新："
                     "请升级 paizhuo" % (cfg.store_path, version, SCHEMA_VERSION))
    if row is None:
        print("store: %s (schema %d; event %s not in it yet)" % (cfg.store_path, version, cfg.id))
        print("  数据库：%s（版本 %d；其中尚无赛事 %s）" % (cfg.store_path, version, cfg.id))
        return 0
    if (row[0], row[1]) != (cfg.name, cfg.game) or not row[2] or not check_secret(cfg.secret_text(), row[2]):
        return _fail("%s holds event %s with another name, game or secret than %s: use the event.toml it was made with, "
                     "or give [store] path a new file" % (cfg.store_path, cfg.id, cfg.path),
                     "%s 中的赛事 %s 与 %s 的名称、项目或密钥不同：请使用建库时的 event.toml，或为 [store] path 另给一个新文件"
                     % (cfg.store_path, cfg.id, cfg.path))
    print("store: %s (schema %d%s): event %s, %d round(s) seated, %d result(s)" % (
        cfg.store_path, version, ", migrated to %d when the venue starts" % SCHEMA_VERSION if version < SCHEMA_VERSION else "",
        cfg.id, rounds, results))
    print("  数据库：%s：赛事 %s，已排座 %d 轮，成绩 %d 条" % (cfg.store_path, cfg.id, rounds, results))
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
        folder = _embedded_logins(cfg, broker_port)
        broker = EmbeddedBroker("127.0.0.1", broker_port, credentials=folder, event=cfg.id)
        port = await broker.start()
        b = Broker("127.0.0.1", port, username="venue", password_file=os.path.join(folder, "venue.pass"))
        where = "embedded broker on 127.0.0.1:%d" % port
    else:
        b = cfg.broker
        where = "broker %s:%d%s" % (b.host, b.port, " (TLS)" if b.tls_ca is not None else "")
    runner = None
    try:
        # The login's own name as client id: the brokers take every login under its username.
        link = venue.link = b.client(b.username or "venue-%s" % cfg.id, clean_session=False)
        urls = None
        if cfg.web is not None:
            runner, urls = await _start_web(venue, cfg.web)
        _say("event %s (%s): %s, round %d seated, %s" % (cfg.id, cfg.name, cfg.game, venue.round, where))
        _say("赛事 %s（%s）：%s，第 %d 轮已排座，%s" % (cfg.id, cfg.name, cfg.game, venue.round, where))
        if urls is None:
            _say("no [web] in %s: no standings page, no referee console (standings on MQTT only)" % cfg.path)
            _say("%s 中没有 [web]：没有成绩页和裁判台（成绩只经 MQTT 发布）" % cfg.path)
        else:
            _say("standings 成绩: %s" % urls[0])
            _say("referee console 裁判台: %s" % urls[1])

        async def until_finished():
            await venue.finished.wait()
            _say("the last round is complete: final standings published%s" % ("; staying up (--stay)" if stay else ""))
            _say("最后一轮已完成：最终成绩已发布%s" % ("；继续服务（--stay）" if stay else ""))
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
                _say("尚未连上 %s%s；仍在重试" % (where, "：%s" % link.error.zh if link.error else ""))

        checker = asyncio.ensure_future(connection_check())
        running = asyncio.ensure_future(venue.run(stop))
        stopped = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
            await _bounded(running, "the venue service")
        finally:
            stopped.cancel()
            watcher.cancel()
            checker.cancel()
    finally:
        if runner is not None:
            await _bounded(runner.cleanup(), "the web pages")
        if broker is not None:
            await _bounded(broker.stop(), "the embedded broker")


async def _bounded(step, what):
    """Await one step of the shutdown for at most STOP_STEP_SECONDS; past that, say which and
    go on (the step is cancelled).  The step's own error still raises."""
    task = asyncio.ensure_future(step)
    try:
        await asyncio.wait_for(asyncio.shield(task), STOP_STEP_SECONDS)
    except asyncio.TimeoutError:
        task.cancel()
        _say("%s took over %d s to stop; stopping without it" % (what, STOP_STEP_SECONDS))
        _say("%s 超过 %d 秒仍未停止；不再等待" % (what, STOP_STEP_SECONDS))
        return
    task.result()


def _embedded_logins(cfg, port):
    """The embedded broker's credentials folder: written at the first start, then only checked."""
    from ..mqtt import mosquitto as mq
    folder = cfg.embedded_credentials
    hubs = sorted({t.hub for t in cfg.tables})
    if not os.path.exists(os.path.join(folder, "passwd")):
        mq.write_config(folder, cfg.id, hubs, port=port or 1883, bind="127.0.0.1")
        _say("wrote the broker logins to %s: give each hub its <hub>.pass as [venue] password_file (keep it mode 0600)"
             % folder)
        _say("已将代理登录信息写入 %s：把 <hub>.pass 交给对应的主机作为 [venue] password_file（保持 0600 权限）" % folder)
    users = mq.read_passwd(folder)
    missing = [u for u in [mq.VENUE_USER] + hubs if u not in users]
    if missing:
        raise mq.MosquittoError(
            "hubs_without_login", "%s has no login for %s: write new logins for every hub with `paizhuo broker config"
            " --event %s --hubs %s --out %s --force` (every hub then needs its new .pass file)"
            % (folder, ", ".join(missing), cfg.id, ",".join(hubs), folder),
            "%s 中没有 %s 的登录信息：请用 `paizhuo broker config --event %s --hubs %s --out %s --force` 为所有 hub"
            "重新生成（之后每个 hub 都需要新的 .pass 文件）" % (folder, "、".join(missing), cfg.id, ",".join(hubs), folder))
    return folder


async def _start_web(venue, w):
    try:
        from aiohttp import web as aioweb
        from . import web as web_mod
    except ImportError as e:
        _say("the web pages are not available (%s): serving without them / 网页不可用（%s）：不提供网页继续服务" % (e, e))
        return None, None
    app = web_mod.make_app(venue, w.pin_hash, secure_cookies=w.secure_cookies)
    runner = aioweb.AppRunner(app, shutdown_timeout=3)  # open requests get 3 s at a stop, not aiohttp's 60
    await runner.setup()
    site = aioweb.TCPSite(runner, w.host, w.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    shown = host if host not in ("0.0.0.0", "::") else "<this machine's address>"
    base = "http://%s:%d" % ("[%s]" % shown if ":" in shown else shown, port)
    return runner, (base + "/", base + "/referee")


def _say(text):
    print("paizhuo venue: %s" % text, file=sys.stderr, flush=True)
