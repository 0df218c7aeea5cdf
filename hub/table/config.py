"""The table configuration (``table.toml``): who sits where, which deals, which clocks.

Staff write one file per table hub.  Seats are bound to **device ids** (the seat boards'
provisioned identities), never to the order of the serial ports: a board plugged into any
port lands on its own seat.  Every mistake is reported with the file, the key and what to do:

>>> load_text('''
... [table]
... hub = "T07"
... id = "7"
... event = "demo"
... [link]
... ports = ["/dev/ttyACM0"]
... [devices.S-0001]
... key = "00"
... seat = "E"
... ''', "table.toml")
Traceback (most recent call last):
...
paizhuo.table.config.ConfigError: table.toml: devices.S-0001.key: must be the 64 hex digits of the 32-byte device key staff provisioned (got 2 characters)

A complete example is in ``docs/table-hub.md`` and :data:`EXAMPLE`; venue mode (``[venue]``,
``[seats]``, spare boards with ``seat = "spare"``) in :data:`EXAMPLE_VENUE`.
"""

import hashlib
import os
import re
from dataclasses import dataclass

from ..errors import CodedError
from ..inputs import InputError, parse_toml
from ..mqtt.client import Broker
from .. import deals as deals_
from .. import rules as rules_

__all__ = ["ConfigError", "TableConfig", "Device", "Clocks", "DealPlan", "VenueLink", "load", "load_text", "EXAMPLE",
           "EXAMPLE_VENUE", "example_text", "example_leftovers"]

SEATS = rules_.game(rules_.DEFAULT_GAME).seats  # `paizhuo provision`'s seat blocks; a table uses its game's
SPARE = "spare"  # a device's seat for a spare board: it plays no seat until a referee's replace
LANGS = ("zh", "en")
_DEV_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
_TEXT_ID = re.compile(r"^[^\x00-\x1f]{1,64}$")


def _en(seats):
    """A seat list for English text: ``E, N, W, S``."""
    return ", ".join(seats)


def _zh(seats):
    """A seat list for Chinese text: ``E、N、W、S``."""
    return "、".join(seats)


class ConfigError(CodedError):
    """A table configuration that cannot run: ``file``, ``key`` and what to do.

    ``code`` is stable for programs; ``en``/``zh`` are for staff.
    """

    def __init__(self, file, key, en, zh, code="bad_config"):
        where = "%s: %s" % (file, key) if key else file
        super().__init__(code, en, "%s：%s" % (where, zh))
        self.args = ("%s: %s" % (where, en),)  # str(error) names the file and key
        self.file = file
        self.key = key


class Device:
    """One provisioned seat board: its id, its 32-byte key and the seat it plays (``"spare"``
    for a spare board that a referee may put in for a failed one)."""

    __slots__ = ("id", "key", "seat", "lang")

    def __init__(self, id, key, seat, lang=None):
        self.id = id
        self.key = key
        self.seat = seat
        self.lang = lang

    def __repr__(self):  # never print the key
        return "Device(%r, seat=%r)" % (self.id, self.seat)


class Clocks:
    """The hub's clock settings.  Decision limits come from the engine (``time_limit``),
    whose defaults are the game's timers in RULES.md; ``scale`` multiplies
    them (tests and demos use a small scale; a competition uses 1).

    - ``grace_ms``: how long a seat may be absent before the bot plays for it (托管).
    - ``offline_ms``: no valid frame for this long marks a seat offline (the contract's 5 s).
    - ``next_deal_ms``: the result stays on screen this long before the next deal starts.
    - ``restart_floor_ms``: after a hub restart a running clock gets at least this much, so a
      player whose time was nearly gone can still see the board again before it expires.
    - ``checkpoint_ms``: how often the running clock's remaining time is saved (crash recovery).
    """

    __slots__ = ("scale", "grace_ms", "offline_ms", "next_deal_ms", "restart_floor_ms", "checkpoint_ms")

    def __init__(self, scale=1.0, grace_ms=30000, offline_ms=5000, next_deal_ms=10000,
                 restart_floor_ms=3000, checkpoint_ms=500):
        self.scale = scale
        self.grace_ms = grace_ms
        self.offline_ms = offline_ms
        self.next_deal_ms = next_deal_ms
        self.restart_floor_ms = restart_floor_ms
        self.checkpoint_ms = checkpoint_ms

    def limit_ms(self, seconds):
        """Milliseconds for an engine time limit in seconds, after scaling (at least 1 ms)."""
        return max(1, int(round(seconds * 1000 * self.scale)))


@dataclass(frozen=True)
class VenueLink(Broker):
    """``[venue]``: how this hub reaches the venue over MQTT (see docs/table-hub.md): the
    broker (:class:`paizhuo.mqtt.client.Broker`: host, port, ``username`` — default the hub
    id — ``password_file`` with mode 0600, ``keepalive`` — the broker publishes the hub's
    last will ``offline`` about 1.5 keepalives after it vanishes — ``tls_ca``,
    ``tls_server_name``), and:

    - ``event``: the event id (the topic segment);
    - ``outbox``: the SQLite outbox that keeps results and alerts until the venue acks them;
    - ``resend_s``: unacked messages are sent again when acknowledgements stall this long.
    """

    event: str = None
    outbox: str = None
    resend_s: float = 5.0

    def __repr__(self):  # the password stays in its file; only where it is
        return "VenueLink(%s:%d, event=%r, user=%r)" % (self.host, self.port, self.event, self.username)


class DealPlan:
    """The deals this table plays, in order: a list of :class:`paizhuo.deals.DealRecord`."""

    __slots__ = ("records", "source", "key")

    def __init__(self, records, source, key=None):
        self.records = records
        self.source = source  # "inline" or "secret" or "round_key"
        self.key = key  # the round key (bytes) a match's later deals derive from; None for inline deals

    def __len__(self):
        return len(self.records)


class TableConfig:
    """A checked table configuration.  Build it with :func:`load` or :func:`load_text`."""

    __slots__ = ("path", "hub", "table", "event", "game", "lang", "rules", "log", "ports", "baudrate",
                 "devices", "players", "clocks", "deals", "digest", "venue", "bots", "bot_think_ms", "bot_whim")

    def __init__(self, **fields):
        for name in self.__slots__:
            setattr(self, name, fields[name])

    def device(self, dev_id):
        """The :class:`Device` with this id, or None (an unknown board)."""
        return self.devices.get(dev_id)

    def seat_device(self, seat):
        """The device configured for ``seat`` (spares have none), or None."""
        for d in self.devices.values():
            if d.seat == seat:
                return d
        return None

    @property
    def spares(self):
        """Ids of the spare boards (``seat = "spare"``), sorted."""
        return sorted(d.id for d in self.devices.values() if d.seat == SPARE)

    def player(self, seat):
        return self.players.get(seat)


# ---- reading -------------------------------------------------------------------------

def load(path):
    """Read and check ``path``; relative paths inside it (the log) are relative to its folder."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ConfigError(path, "", "cannot read the file (%s): check the path given to --config" % e.strerror,
                          "无法读取文件（%s）：请检查 --config 给出的路径" % e.strerror, "no_file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(path, "", "is not UTF-8 text: save it as UTF-8", "不是 UTF-8 文本：请以 UTF-8 保存",
                          "not_utf8") from None
    return load_text(text, path, base=os.path.dirname(os.path.abspath(path)))


def load_text(text, file="table.toml", base=None):
    """Check a configuration given as TOML text; ``file`` names it in errors."""
    try:
        data = parse_toml(text, "")
    except InputError as e:   # not TOML, nested too deep, NUL or lone surrogates, huge numbers
        raise ConfigError(file, e.path, ("is " if e.code == "bad_toml" else "") + e.what[0], e.what[1], e.code) from None
    return _build(data, file, base or os.getcwd(), hashlib.sha256(text.encode("utf-8")).hexdigest())


class _Reader:
    """Typed access to one TOML table with errors that name the key."""

    def __init__(self, file, data, prefix=""):
        self.file = file
        self.data = data
        self.prefix = prefix
        self.used = set()

    def key(self, name):
        return self.prefix + name

    def fail(self, name, en, zh, code="bad_config"):
        raise ConfigError(self.file, self.key(name) if name else self.prefix.rstrip("."), en, zh, code)

    def get(self, name, kind, default=None, required=False):
        self.used.add(name)
        if name not in self.data:
            if required:
                self.fail(name, "is missing: add it (%s)" % _KIND_EN[kind], "缺少此项：请添加（%s）" % _KIND_ZH[kind],
                          "missing")
            return default
        value = self.data[name]
        ok = {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "num": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
            "list": isinstance(value, list),
            "table": isinstance(value, dict),
        }[kind]
        if not ok:
            self.fail(name, "must be %s, not %r" % (_KIND_EN[kind], value),
                      "必须是%s，而不是 %r" % (_KIND_ZH[kind], value), "bad_type")
        return value

    def seconds(self, name, default, low, high):
        value = self.get(name, "num", default)
        if not low <= value <= high:
            self.fail(name, "must be between %s and %s seconds, not %r" % (low, high, value),
                      "必须在 %s 到 %s 秒之间，而不是 %r" % (low, high, value), "out_of_range")
        return int(round(value * 1000))

    def section(self, name, required=False):
        value = self.get(name, "table", None, required)
        return _Reader(self.file, value if value is not None else {}, self.key(name) + ".")

    def done(self):
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            names = ", ".join(self.key(k) for k in unknown)
            raise ConfigError(self.file, names, "unknown key: check its spelling against docs/table-hub.md",
                              "未知的配置项：请对照 docs/table-hub.md 检查拼写", "unknown_key")


_KIND_EN = {"str": "a string", "int": "a whole number", "num": "a number", "bool": "true or false",
            "list": "a list", "table": "a table"}
_KIND_ZH = {"str": "字符串", "int": "整数", "num": "数字", "bool": "true 或 false", "list": "列表", "table": "表"}


def _ident(r, name, required=True, default=None):
    value = r.get(name, "str", default, required)
    if value is not None and not _TEXT_ID.fullmatch(value):
        r.fail(name, "must be 1 to 64 printable characters, not %r" % (value,),
               "必须是 1 到 64 个可打印字符，而不是 %r" % (value,))
    return value


def _build(data, file, base, digest):
    top = _Reader(file, data)
    t = top.section("table", required=True)
    hub = t.get("hub", "str", required=True)
    if not _DEV_ID.fullmatch(hub):
        t.fail("hub", "must be 1-32 characters of A-Z a-z 0-9 - _ (it is sent in every challenge), not %r" % (hub,),
               "必须是 1 到 32 个 A-Z a-z 0-9 - _ 字符（每次握手都会发送），而不是 %r" % (hub,), "bad_hub_id")
    table = _ident(t, "id")
    event = _ident(t, "event")
    game = t.get("game", "str", rules_.DEFAULT_GAME)
    try:
        registered = rules_.game(game)
    except ValueError as e:
        t.fail("game", str(e), "未知的项目 %r；可用的项目：%s" % (game, "、".join(sorted(rules_.GAMES))), "unknown_game")
    if not registered.at_table:
        t.fail("game", "%s has a rules engine but no table hub yet (its seat screens come next)" % game,
               "%s 已有规则引擎，但牌桌尚不支持" % game, "no_table_game")
    engine, seats = registered.engine, registered.seats
    lang = t.get("lang", "str", "zh")
    if lang not in LANGS:
        t.fail("lang", "must be \"zh\" or \"en\", not %r" % (lang,), "必须是 \"zh\" 或 \"en\"，而不是 %r" % (lang,))
    log = t.get("log", "str", "table-%s.sqlite" % table)
    if not log:
        t.fail("log", "must name the event log file, like \"table7.sqlite\"", "必须给出事件日志文件名")
    log = os.path.join(base, log)
    # A folder is never a log (SQLite would only say "unable to open database file" at the start);
    # a missing folder is found when the hub opens the log (the file may be meant for another machine).
    if os.path.isdir(log):
        t.fail("log", "is a folder (%s): name a file in it, like \"table7.sqlite\"" % log,
               "是一个文件夹（%s）：请给出其中的文件名，如 \"table7.sqlite\"" % log, "bad_log")
    t.done()

    rules_table = top.get("rules", "table", {})
    try:
        rules = engine.Rules.from_dict(rules_table)
    except (ValueError, TypeError) as e:
        raise ConfigError(file, "rules", "%s (see docs/rules-options.md)" % e,
                          "规则选项错误：%s（见 docs/rules-options.md）" % getattr(e, "zh", e), "bad_rules") from None

    c = top.section("clock")
    scale = c.get("scale", "num", 1.0)
    if not 0.001 <= scale <= 10:
        c.fail("scale", "must be between 0.001 and 10 (1 in a competition), not %r" % (scale,),
               "必须在 0.001 到 10 之间（正式比赛为 1），而不是 %r" % (scale,), "out_of_range")
    clocks = Clocks(
        scale=float(scale),
        grace_ms=c.seconds("grace_seconds", 30, 0, 3600),
        # At least 1 s: the seats' heartbeat is every 500 ms, so anything shorter makes seats flap.
        offline_ms=c.seconds("offline_seconds", 5, 1, 600),
        next_deal_ms=c.seconds("next_deal_seconds", 10, 0, 3600),
        restart_floor_ms=c.seconds("restart_floor_seconds", 3, 0, 600),
        checkpoint_ms=c.seconds("checkpoint_seconds", 0.5, 0.05, 60),
    )
    c.done()

    sb = top.section("seats")
    bots = sb.get("bots", "list", [])
    if not all(isinstance(b, str) and b in seats for b in bots) or len(set(bots)) != len(bots):
        sb.fail("bots", "must list seats %s (each once) that the hub's bot plays, not %r" % (_en(seats), bots),
                "必须列出由主机机器人打的座位 %s（每个一次），而不是 %r" % (_zh(seats), bots), "bad_seat")
    bots = tuple(s for s in seats if s in bots)
    bot_think_ms = sb.seconds("bot_think_seconds", 0.5, 0, 60)
    # How often a bot seat makes a person's offhand choice (simulated fields; 0 for 人机赛 and 托管).
    bot_whim = sb.get("bot_whim", "num", 0.0)
    if not 0 <= bot_whim <= 1:
        sb.fail("bot_whim", "must be from 0 to 1 (a share of the bot's decisions), not %r" % (bot_whim,),
                "必须在 0 到 1 之间（机器人随意出牌的比例），而不是 %r" % (bot_whim,), "out_of_range")
    sb.done()
    all_bots = len(bots) == len(seats)  # a table of bots only needs no boards and no ports

    ln = top.section("link", required=not all_bots)
    ports = ln.get("ports", "list", required=not all_bots)
    if ports is None:
        ports = []
    elif not (ports or all_bots) or not all(isinstance(p, str) and p for p in ports):
        ln.fail("ports", "must list the serial ports of the seat boards, like [\"/dev/ttyACM0\", ...]",
                "必须列出座位板的串口，如 [\"/dev/ttyACM0\", ...]")
    if len(set(ports)) != len(ports):
        dup = sorted({p for p in ports if ports.count(p) > 1})
        ln.fail("ports", "names %s twice: each port once" % ", ".join(dup), "重复列出 %s：每个串口只写一次" % "、".join(dup))
    if len(ports) > 16:
        ln.fail("ports", "lists %d ports; a table has at most 16" % len(ports), "列出 %d 个串口；一桌最多 16 个" % len(ports))
    ports = [p if os.path.isabs(p) else os.path.join(base, p) for p in ports]
    baudrate = ln.get("baudrate", "int", 115200)
    if baudrate <= 0:
        ln.fail("baudrate", "must be a positive whole number like 115200", "必须是正整数，如 115200")
    ln.done()

    devices = {}
    dv = top.section("devices", required=not all_bots)
    for dev_id in dv.data:
        d = dv.section(dev_id)
        if not _DEV_ID.fullmatch(dev_id):
            dv.fail(dev_id, "is not a device id: 1-32 characters of A-Z a-z 0-9 - _",
                    "不是设备编号：1 到 32 个 A-Z a-z 0-9 - _ 字符", "bad_device_id")
        key = d.get("key", "str", required=True)
        if not _HEX64.fullmatch(key):
            d.fail("key", "must be the 64 hex digits of the 32-byte device key staff provisioned (got %d characters)"
                   % len(key), "必须是工作人员配置的 32 字节设备密钥的 64 位十六进制（现为 %d 个字符）" % len(key), "bad_key")
        seat = d.get("seat", "str", required=True)
        if seat not in seats and seat != SPARE:
            d.fail("seat", "must be one of %s (or \"spare\" for a spare board), not %r" % (_en(seats), seat),
                   "必须是 %s 之一（备用板为 \"spare\"），而不是 %r" % (_zh(seats), seat), "bad_seat")
        if seat in bots:
            d.fail("seat", "is %s, which [seats] bots gives to the hub's bot: remove the board or the seat from bots"
                   % seat, "%s 座已在 [seats] bots 中由机器人打：请删除此板或从 bots 中去掉该座" % seat, "bot_seat")
        dlang = d.get("lang", "str", None)
        if dlang is not None and dlang not in LANGS:
            d.fail("lang", "must be \"zh\" or \"en\", not %r" % (dlang,), "必须是 \"zh\" 或 \"en\"")
        d.done()
        devices[dev_id] = Device(dev_id, bytes.fromhex(key), seat, dlang)
    if not devices and not all_bots:
        dv.fail("", "lists no devices: add one [devices.<id>] table per seat board",
                "没有设备：每个座位板添加一个 [devices.<编号>] 表", "no_devices")
    by_seat = {}
    for d in devices.values():
        if d.seat == SPARE:
            continue
        if d.seat in by_seat:
            raise ConfigError(file, "devices", "seat %s is given to both %s and %s: one board per seat"
                              % (d.seat, by_seat[d.seat], d.id),
                              "%s 座同时分配给 %s 和 %s：每个座位一块板" % (d.seat, by_seat[d.seat], d.id), "seat_twice")
        by_seat[d.seat] = d.id
    keys = [d.key for d in devices.values()]
    if len(set(keys)) != len(keys):
        raise ConfigError(file, "devices", "two devices share a key: every board has its own key",
                          "两个设备使用了同一密钥：每块板必须有自己的密钥", "key_twice")
    dv.used.update(dv.data)
    dv.done()

    players = {}
    pl = top.section("players")
    for seat in list(pl.data):
        if seat not in seats:
            pl.fail(seat, "is not a seat: use %s" % ", ".join("players." + s for s in seats),
                    "不是座位：请用 %s" % "、".join("players." + s for s in seats), "bad_seat")
        p = pl.section(seat)
        pid = _ident(p, "id")
        name = _ident(p, "name")
        p.done()
        players[seat] = {"id": pid, "name": name}
    pl.done()

    venue = _venue(top.section("venue"), hub, log, base) if "venue" in top.data else None
    top.used.add("venue")
    if venue is not None and "deals" not in top.data:
        deals = DealPlan([], None)  # the venue's round specs bring the deals
        top.used.add("deals")
    else:
        deals = _deal_plan(top.section("deals", required=True), game)
    top.done()
    return TableConfig(path=file, hub=hub, table=table, event=event, game=game, lang=lang, rules=rules, log=log,
                       ports=ports, baudrate=baudrate, devices=devices, players=players, clocks=clocks,
                       deals=deals, digest=digest, venue=venue, bots=bots, bot_think_ms=bot_think_ms,
                       bot_whim=float(bot_whim))


def _venue(r, hub, log, base):
    """``[venue]``: the MQTT uplink to the venue service."""
    broker = r.get("broker", "str", required=True)
    host, sep, port = broker.rpartition(":")
    if not sep:
        host, port = broker, "1883"
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # an IPv6 address: "[::1]:1883"
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        r.fail("broker", "must be host:port of the MQTT broker, like \"127.0.0.1:1883\", not %r" % (broker,),
               "必须是 MQTT 服务器的 主机:端口，如 \"127.0.0.1:1883\"，而不是 %r" % (broker,), "bad_broker")
    event = r.get("event", "str", required=True)
    if not _DEV_ID.fullmatch(event):
        r.fail("event", "must be the event id: 1-32 characters of A-Z a-z 0-9 - _ (as in the venue's event.toml), "
               "not %r" % (event,), "必须是赛事编号：1 到 32 个 A-Z a-z 0-9 - _ 字符（与场地 event.toml 一致），而不是 %r"
               % (event,), "bad_event_id")
    username = r.get("username", "str", hub)
    if not _DEV_ID.fullmatch(username):
        r.fail("username", "must be 1-32 characters of A-Z a-z 0-9 - _ (the hub's broker account), not %r"
               % (username,), "必须是 1 到 32 个 A-Z a-z 0-9 - _ 字符（主机的消息服务器账号），而不是 %r" % (username,),
               "bad_username")
    password_file = r.get("password_file", "str", None)
    if password_file is not None:
        password_file = os.path.join(base, password_file)
        try:
            st = os.stat(password_file)
            with open(password_file, encoding="utf-8") as f:
                first = f.readline().strip()
        except (OSError, UnicodeDecodeError) as e:
            r.fail("password_file", "cannot be read (%s): give the file `paizhuo broker` wrote for this hub"
                   % getattr(e, "strerror", e), "无法读取（%s）：请给出 paizhuo broker 为本主机生成的文件"
                   % getattr(e, "strerror", e), "no_password_file")
        if st.st_mode & 0o077:
            r.fail("password_file", "%s is readable by others (mode %o): chmod 600 it" % (password_file, st.st_mode & 0o777),
                   "%s 可被他人读取（权限 %o）：请执行 chmod 600" % (password_file, st.st_mode & 0o777), "open_password_file")
        if not first:
            r.fail("password_file", "%s is empty: its first line is the password" % password_file,
                   "%s 为空：第一行应为密码" % password_file, "no_password_file")
    stem = os.path.splitext(log)[0]
    outbox = r.get("outbox", "str", None)
    outbox = stem + "-outbox.sqlite" if outbox is None else os.path.join(base, outbox)
    if os.path.abspath(outbox) == os.path.abspath(log):
        r.fail("outbox", "must not be the event log itself: give another file", "不能与事件日志相同：请换一个文件",
               "bad_outbox")
    keepalive = r.get("keepalive_seconds", "int", 5)
    if not 1 <= keepalive <= 600:
        r.fail("keepalive_seconds", "must be a whole number of seconds from 1 to 600, not %r" % (keepalive,),
               "必须是 1 到 600 之间的整数秒，而不是 %r" % (keepalive,), "out_of_range")
    resend_ms = r.seconds("resend_seconds", 5, 0.1, 600)
    tls_ca = r.get("tls_ca", "str", None)
    if tls_ca is not None:
        tls_ca = os.path.join(base, tls_ca)
        from ..mqtt.client import MqttError, tls_context
        try:
            tls_context(tls_ca)     # read it now: a wrong file is a config error, not a link that never comes up
        except MqttError as e:
            r.fail("tls_ca", "%s: give the venue CA's certificate (PEM) that signed the broker's certificate" % e.en,
                   "%s：请给出签发代理证书的场地 CA 证书（PEM）" % e.zh, "bad_tls_ca")
    tls_server_name = r.get("tls_server_name", "str", None)
    if tls_server_name is not None:
        if tls_ca is None:
            r.fail("tls_server_name", "only applies with tls_ca (a TLS broker): add tls_ca or remove it",
                   "仅在设置 tls_ca（TLS 代理）时有效：请添加 tls_ca 或删除此项", "bad_tls_server_name")
        if not tls_server_name.strip() or len(tls_server_name) > 253 or any(c.isspace() for c in tls_server_name):
            r.fail("tls_server_name", "must be the host name in the broker's certificate, like \"broker.hall\", not %r"
                   % (tls_server_name,), "必须是代理证书中的主机名，如 \"broker.hall\"，而不是 %r" % (tls_server_name,),
                   "bad_tls_server_name")
    r.done()
    return VenueLink(host, int(port), username=username, password_file=password_file, keepalive=keepalive,
                     tls_ca=tls_ca, tls_server_name=tls_server_name, event=event, outbox=outbox,
                     resend_s=resend_ms / 1000.0)


def _deal_plan(r, game):
    """``[deals]``: either generated (``secret`` or ``round_key``, with ``round``, ``group``,
    ``boards``) or given inline (``[[deals.inline]]`` with ``board`` and the four hands)."""
    seats = rules_.game(game).seats
    # a game that turns a card up for its dealer also gives it and the stock (rules.DEALING)
    parts = ("shown", "stock") if rules_.DEALING[game].shown else ()
    parts_en = ", shown, stock" if parts else ""
    parts_zh = "、shown（亮张）、stock（底牌）" if parts else ""
    inline = r.get("inline", "list", None)
    secret = r.get("secret", "str", None)
    round_key = r.get("round_key", "str", None)
    rnd = r.get("round", "int", 1)
    group = r.get("group", "int", 1)
    boards = r.data.get("boards")  # a list or a range text like "1-8": checked below
    r.used.add("boards")
    given = [n for n, v in (("inline", inline), ("secret", secret), ("round_key", round_key)) if v is not None]
    if len(given) != 1:
        r.fail("", "give exactly one of inline (a list of deals), secret or round_key (with boards); got %s"
               % (", ".join(given) or "none"),
               "只能给出 inline（牌局列表）、secret 或 round_key（加 boards）之一；现为 %s" % ("、".join(given) or "无"),
               "bad_deals")
    for name, value in (("round", rnd), ("group", group)):
        if value < 1:
            r.fail(name, "must be a whole number from 1, not %r" % value, "必须是从 1 开始的整数", "out_of_range")
    records = []
    key_bytes = None
    if inline is not None:
        if boards is not None:
            r.fail("boards", "goes with secret or round_key; inline deals carry their own board numbers",
                   "boards 只与 secret 或 round_key 一起用；inline 牌局自带牌号")
        if not inline:
            r.fail("inline", "is empty: give at least one deal", "为空：至少给出一副牌")
        for i, item in enumerate(inline):
            key = "inline[%d]" % i
            if not isinstance(item, dict):
                r.fail(key, "must be a table with board and the hands %s%s" % (_en(seats), parts_en),
                       "必须是包含 board 与 %s 手牌%s的表" % (_zh(seats), parts_zh))
            board = item.get("board", i + 1)
            hands = {s: item[s] for s in item if s in seats}
            unknown = sorted(set(item) - set(seats) - set(parts) - {"board"})
            if unknown:
                r.fail(key, "unknown keys %s: a deal has board and %s%s" % (", ".join(unknown), _en(seats), parts_en),
                       "未知的项 %s：牌局只有 board 与 %s%s" % ("、".join(unknown), _zh(seats), parts_zh), "unknown_key")
            hands = {s: (h.replace(",", " ").split() if isinstance(h, str) else h) for s, h in hands.items()}
            # the card turned up for the dealer (shown) and the stock: text like the hands
            extra = {k: (item[k].replace(",", " ").split() if isinstance(item[k], str) and k == "stock" else item[k])
                     for k in parts if k in item}
            try:
                rec = deals_.DealRecord.from_dict({"version": deals_.VERSION, "game": game, "round": rnd,
                                                   "group": group, "board": board, "hands": hands, "extra": extra})
                rec.to_engine_deal()
            except (deals_.DealError, ValueError) as e:
                zh = getattr(e, "zh", str(e))
                r.fail(key, "%s" % e, "%s" % zh, "bad_deal")
            if any(r.board == rec.board for r in records):
                r.fail(key, "board %d is given twice: number each deal's board once" % rec.board,
                       "牌号 %d 重复：每副牌的牌号只能出现一次" % rec.board, "bad_boards")
            records.append(rec)
        source = "inline"
    else:
        if not isinstance(boards, (str, list)) or not boards:
            r.fail("boards", "must list the boards to play, like [1, 2, 3] or \"1-8\"",
                   "必须列出要打的牌号，如 [1, 2, 3] 或 \"1-8\"", "bad_boards")
        try:
            if isinstance(boards, str):
                numbers = deals_.parse_boards(boards)
            else:
                if not all(isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in boards):
                    raise deals_.DealError("boards must be whole numbers from 1", "牌号必须是从 1 开始的整数", "bad_boards")
                if len(set(boards)) != len(boards):
                    raise deals_.DealError("a board is named twice", "有牌号重复", "bad_boards")
                numbers = list(boards)
            if secret is not None:
                secret_bytes = deals_.parse_secret(secret)
                if len(secret_bytes) < deals_.SHORT_SECRET:
                    # as event.toml: published deals would let someone guess a short secret
                    raise deals_.DealError("secret is %d bytes; an event secret has at least %d (32 random bytes "
                                           "is best): a short one can be guessed from the published deals"
                                           % (len(secret_bytes), deals_.SHORT_SECRET),
                                           "secret 只有 %d 字节；比赛密钥至少 %d 字节（最好 32 个随机字节）："
                                           "过短的密钥可从公布的牌局猜出" % (len(secret_bytes), deals_.SHORT_SECRET),
                                           "short_secret")
                key_bytes = deals_.round_key(secret_bytes, rnd)
                source = "secret"
            else:
                if not _HEX64.fullmatch(round_key):
                    raise deals_.DealError("round_key must be the 64 hex digits the venue released for this round",
                                           "round_key 必须是场地为本轮发布的 64 位十六进制", "bad_round_key")
                key_bytes = bytes.fromhex(round_key)
                source = "round_key"
            records = [deals_.deal_from_round_key(key_bytes, game, group, b, round=rnd) for b in numbers]
        except deals_.DealError as e:
            r.fail("boards" if e.code == "bad_boards" else ("secret" if secret is not None else "round_key"),
                   e.en, e.zh, e.code)
    r.done()
    return DealPlan(records, source, key_bytes)


EXAMPLE = """\
# table.toml: one table hub (see docs/table-hub.md)
# Standalone: this file names the deals and players.  For a hub in a venue event
# (rounds sent over MQTT) start from `paizhuo hub example --venue` instead.
[table]
hub = "T07"               # this hub's id (shown in the challenge)
id = "7"                  # table number
event = "2026 national"   # event name
game = "%(game)s"%(pad)s# any game of `paizhuo rules serve`'s games op (default %(game)s)
lang = "zh"               # seat language: zh or en
log = "table7.sqlite"     # the event log, relative to this file

[rules]                   # the game engine's rule options (docs/rules-options.md), e.g.
# turn_seconds = 25

[clock]
grace_seconds = 30        # 托管: an absent seat is played by the bot after this
offline_seconds = 5
next_deal_seconds = 10

[link]
ports = ["/dev/ttyACM0", "/dev/ttyACM1", "/dev/ttyACM2", "/dev/ttyACM3"]   # any order

[devices.S-0001]
key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
seat = "E"
[devices.S-0002]
key = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
seat = "N"
[devices.S-0003]
key = "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
seat = "W"
[devices.S-0004]
key = "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
seat = "S"

[players.E]
id = "P001"
name = "张三"

[deals]
secret = "text:demo event secret"
round = 1
group = 1
boards = "1-4"
"""

EXAMPLE_VENUE = """\
# table.toml: a table hub in a venue event (see docs/table-hub.md, "Venue mode").
# The venue service sends each round's deals and seating over MQTT; this file
# only says who the hub is, where the broker is and which seat boards it has.
[table]
hub = "T07"               # this hub's id: also its broker username by default
id = "7"                  # table number (the venue's [[tables]] table)
event = "2026 national"   # event name shown on the seats
game = "%(game)s"%(pad)s# the game of the venue's event (its round specs say it too)
log = "table7.sqlite"     # one log for every round at this table

[venue]
broker = "127.0.0.1:1883"        # the venue's MQTT broker (host:port)
event = "demo"                   # the event id of the venue's event.toml
# username = "T07"               # default: [table] hub
# password_file = "T07.pass"     # from `paizhuo broker` (or the venue's embedded-broker folder); mode 0600
# outbox = "table7-outbox.sqlite"  # default: <log name>-outbox.sqlite
keepalive_seconds = 5            # the venue sees the hub offline within about 1.5 × this
# tls_ca = "venue-ca.pem"        # the venue CA (PEM) when the broker listens with TLS (docs/venue.md)
# tls_server_name = "broker.hall"  # default: the broker's host as written above

[seats]
# bots = ["N", "W", "S"]         # seats the hub's bot plays from the first move (no board needed)
bot_think_seconds = 0.5          # the bot's pause before each move (0 = at once)
# bot_whim = 0.2                 # demo fields only: how often a bot seat plays offhand (0 to 1)

[link]
ports = ["/dev/ttyACM0", "/dev/ttyACM1", "/dev/ttyACM2", "/dev/ttyACM3"]

[devices.S-0001]
key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
seat = "E"
[devices.S-0002]
key = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
seat = "N"
[devices.S-0003]
key = "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
seat = "W"
[devices.S-0004]
key = "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
seat = "S"
[devices.S-0099]          # a spare board: a referee's "replace" puts it in for a failed one
key = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
seat = "spare"
"""

# The examples name the registry's default game, never a game of their own.
_FILL = {"game": rules_.DEFAULT_GAME, "pad": " " * max(1, 17 - len(rules_.DEFAULT_GAME))}
EXAMPLE, EXAMPLE_VENUE = EXAMPLE % _FILL, EXAMPLE_VENUE % _FILL


# The examples above are published with the source, so their keys and secret are known to
# anyone: `paizhuo hub example` prints them with fresh ones (example_text), and `paizhuo hub`
# refuses a configuration that still holds one (example_leftovers).
_EXAMPLE_KEYS = tuple(bytes(range(32 * i, 32 * i + 32)) for i in range(5))
_EXAMPLE_SECRET = "text:demo event secret"


def example_text(venue=False):
    """:data:`EXAMPLE` (or :data:`EXAMPLE_VENUE`) with a fresh random key for every device and a
    fresh deal secret: what ``paizhuo hub example`` prints.

    >>> a, b = example_text(), example_text()
    >>> a != b and load_text(a, "t.toml").devices["S-0001"].key not in _EXAMPLE_KEYS
    True
    """
    import secrets
    text = EXAMPLE_VENUE if venue else EXAMPLE
    for key in _EXAMPLE_KEYS:
        text = text.replace(key.hex(), secrets.token_hex(32))
    return text.replace('"%s"' % _EXAMPLE_SECRET, '"hex:%s"' % secrets.token_hex(32))


def example_leftovers(cfg):
    """What ``cfg`` still has from the published examples, as ``[(key, en, zh)]``: device keys
    anyone can sign with, a deal secret anyone can deal from.  Empty for a real configuration."""
    found = []
    for d in sorted(cfg.devices.values(), key=lambda d: d.id):
        if d.key in _EXAMPLE_KEYS:
            found.append(("devices.%s.key" % d.id,
                          "is the published example's key: anyone with the paizhuo sources can sign this board's "
                          "frames. Give the board its own key: paizhuo provision board --dev %s --out seat.json" % d.id,
                          "是公开示例中的密钥：任何拿到 paizhuo 源码的人都能伪造此板的消息。请为此板生成自己的密钥："
                          "paizhuo provision board --dev %s --out seat.json" % d.id))
    if cfg.deals.source == "secret" and cfg.deals.records:
        r = cfg.deals.records[0]
        key = deals_.round_key(deals_.parse_secret(_EXAMPLE_SECRET), r.round)
        if deals_.deal_from_round_key(key, cfg.game, r.group, r.board, round=r.round).hash == r.hash:
            found.append(("deals.secret", "is the published example's secret: anyone can compute these deals. Make "
                          "32 random bytes: python3 -c \"import secrets; print('hex:' + secrets.token_hex(32))\"",
                          "是公开示例中的密钥：任何人都能算出这些牌。请生成 32 个随机字节：python3 -c \"import secrets; "
                          "print('hex:' + secrets.token_hex(32))\""))
    return found
