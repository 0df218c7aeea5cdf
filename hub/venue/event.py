"""The event configuration (``event.toml``): what the venue service runs.

One file per event, written by the tournament director before the event: the event's id
and game, the deal secret, how many rounds of how many boards, the broker, the web pages
and the referees' PIN hash, the store, every table (with the hub that runs it) and every
player.  Every mistake is reported with the file, the key and what to do, in English and
Chinese, and nothing is started from a bad file:

>>> load_text('''
... [event]
... id = "demo"
... name = "演示赛"
... game = "bigtwo"
... secret = "text:a demo secret of enough length"
... rounds = 0
... boards_per_round = 4
... ''', "event.toml")
Traceback (most recent call last):
...
paizhuo.venue.event.EventError: event.toml: event.rounds: must be between 1 and 99, not 0

A complete example is :data:`EXAMPLE` (``paizhuo venue example`` prints it).

>>> cfg = load_text(EXAMPLE, "event.toml", base="/srv/event")
>>> cfg.id, cfg.game, cfg.rounds, cfg.boards(), len(cfg.players), cfg.tables_needed()
('demo', 'bigtwo', 2, [1, 2, 3, 4], 8, 2)
>>> cfg.hub_of("1"), cfg.table_of("T02"), cfg.store_path
('T01', '2', '/srv/event/demo-venue.sqlite')
"""

import hashlib
import math
import os
import re
import stat
import tomllib
from dataclasses import dataclass

from ..errors import CodedError
from ..mqtt.client import Broker  # ``[broker]``: the MQTT broker every hub and the venue connect to
from ..rules import GAMES as ENGINES
from . import deals as deals_

__all__ = ["BOT_PREFIX", "EventError", "EventConfig", "Broker", "Web", "TableSpec", "Player", "load", "load_text", "EXAMPLE"]

# Ids that go into MQTT topics: the event id and hub ids (a hub id is also its MQTT username).
TOPIC_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_TEXT_ID = re.compile(r"^[^\x00-\x1f]{1,64}$")  # player ids, table names: printable, short
PIN_HASH = re.compile(r"^pbkdf2-sha256\$[0-9]{4,7}\$[0-9a-f]{16,64}\$[0-9a-f]{64}$")
BOT_PREFIX = "bot:"  # ids of the bots the movement seats in a short field: "bot:<table>:<seat>"
MIN_SECRET = 16  # bytes; the store refuses less (a short secret can be guessed from published deals)
MAX_ROUNDS = 99
MAX_BOARDS = 64  # per round; a session has a handful


class EventError(CodedError):
    """An event configuration that cannot run: ``file``, ``key`` and what to do.

    ``str(error)`` is the English text with the file and key in front; ``zh`` has them too.
    """

    def __init__(self, file, key, en, zh, code="bad_event"):
        where = "%s: %s" % (file, key) if key else file
        super().__init__(code, "%s: %s" % (where, en), "%s：%s" % (where, zh))
        self.file = file
        self.key = key


@dataclass(frozen=True)
class Web:
    """``[web]``: where the standings and the referee console are served."""

    host: str
    port: int
    pin_hash: str
    # Behind an HTTPS reverse proxy (the hall network): the session cookie is marked Secure.
    secure_cookies: bool = False


@dataclass(frozen=True)
class TableSpec:
    """One ``[[tables]]`` entry: a table's name and the hub (MQTT username) that runs it."""

    table: str
    hub: str


@dataclass(frozen=True)
class Player:
    """One ``[[players]]`` entry.  ``no`` is the player number typed at check-in (牌手序号);
    ``bot`` marks a computer player (人机赛 AI), seated like a player but never ranked."""

    id: str
    name: str
    no: int
    bot: bool = False

    def to_dict(self):
        return {"id": self.id, "name": self.name, "no": self.no, "bot": self.bot}


@dataclass(frozen=True)
class EventConfig:
    """A checked event configuration.  Build it with :func:`load` or :func:`load_text`."""

    path: str
    id: str
    name: str
    game: str
    secret: bytes
    rounds: int
    boards_per_round: int
    auto_start: bool
    tables_per_group: int
    vs_ai: bool
    human_seat: str
    broker: Broker
    web: Web
    store_path: str
    tables: tuple
    players: tuple
    digest: str

    @property
    def seats(self):
        """The seats of the game, in play order (Big Two: E, N, W, S)."""
        return deals_.GAMES[self.game].seats

    def boards(self):
        """The board numbers of every round: 1 .. boards_per_round."""
        return list(range(1, self.boards_per_round + 1))

    def secret_text(self):
        """The secret as the store's ``add_event`` takes it (hex; the store keeps only a hash)."""
        return self.secret.hex()

    def hub_of(self, table):
        for t in self.tables:
            if t.table == str(table):
                return t.hub
        raise KeyError(table)

    def table_of(self, hub):
        for t in self.tables:
            if t.hub == hub:
                return t.table
        raise KeyError(hub)

    def player(self, pid):
        for p in self.players:
            if p.id == pid:
                return p
        raise KeyError(pid)

    def bot_ids(self):
        return {p.id for p in self.players if p.bot}

    def tables_needed(self):
        """Tables the movement fills each round (人机赛: one per player)."""
        n = len(self.players)
        return n if self.vs_ai else math.ceil(n / len(self.seats))


# ---- reading ---------------------------------------------------------------------------

def load(path):
    """Read and check ``path``; relative paths inside it are relative to its folder."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise EventError(path, "", "cannot read the file (%s): check the path given to --event" % e.strerror,
                         "无法读取文件（%s）：请检查 --event 给出的路径" % e.strerror, "no_file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EventError(path, "", "is not UTF-8 text: save it as UTF-8", "不是 UTF-8 文本：请以 UTF-8 保存", "not_utf8") from None
    return load_text(text, path, base=os.path.dirname(os.path.abspath(path)))


def load_text(text, file="event.toml", base=None):
    """Check a configuration given as TOML text; ``file`` names it in errors, ``base`` is the
    folder relative paths start from (default: the current folder)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise EventError(file, "", "is not valid TOML: %s" % e, "不是有效的 TOML：%s" % e, "bad_toml") from None
    return _build(data, file, base or os.getcwd(), hashlib.sha256(text.encode("utf-8")).hexdigest())


_KIND_EN = {"str": "a string", "int": "a whole number", "num": "a number", "bool": "true or false",
            "list": "a list", "table": "a table"}
_KIND_ZH = {"str": "字符串", "int": "整数", "num": "数字", "bool": "true 或 false", "list": "列表", "table": "表"}


class _Reader:
    """Typed access to one TOML table; every error names the key."""

    def __init__(self, file, data, prefix=""):
        self.file, self.data, self.prefix, self.used = file, data, prefix, set()

    def fail(self, name, en, zh, code="bad_event"):
        raise EventError(self.file, (self.prefix + name) if name else self.prefix.rstrip("."), en, zh, code)

    def get(self, name, kind, default=None, required=False):
        self.used.add(name)
        if name not in self.data:
            if required:
                self.fail(name, "is missing: add it (%s)" % _KIND_EN[kind], "缺少此项：请添加（%s）" % _KIND_ZH[kind], "missing")
            return default
        value = self.data[name]
        ok = {"str": isinstance(value, str), "int": isinstance(value, int) and not isinstance(value, bool),
              "num": isinstance(value, (int, float)) and not isinstance(value, bool), "bool": isinstance(value, bool),
              "list": isinstance(value, list), "table": isinstance(value, dict)}[kind]
        if not ok:
            self.fail(name, "must be %s, not %r" % (_KIND_EN[kind], value), "必须是%s，而不是 %r" % (_KIND_ZH[kind], value),
                      "bad_type")
        return value

    def number(self, name, default, low, high, required=False):
        value = self.get(name, "int", default, required)
        if value is not None and not low <= value <= high:
            self.fail(name, "must be between %d and %d, not %r" % (low, high, value),
                      "必须在 %d 到 %d 之间，而不是 %r" % (low, high, value), "out_of_range")
        return value

    def section(self, name, required=False):
        value = self.get(name, "table", None, required)
        return _Reader(self.file, value if value is not None else {}, self.prefix + name + ".")

    def present(self, name):
        return name in self.data

    def done(self):
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise EventError(self.file, ", ".join(self.prefix + k for k in unknown),
                             "unknown key: check its spelling against docs/venue.md",
                             "未知的配置项：请对照 docs/venue.md 检查拼写", "unknown_key")


def _path(base, value):
    return value if os.path.isabs(value) else os.path.join(base, value)


def _private_file(r, name, base, what_en, what_zh):
    """A file holding a credential: it must exist and be readable by its owner only (0600)."""
    value = r.get(name, "str")
    if value is None:
        return None
    path = _path(base, value)
    try:
        st = os.stat(path)
    except OSError as e:
        r.fail(name, "cannot read %s (%s): check the path (relative to the event file)" % (path, e.strerror),
               "无法读取 %s（%s）：请检查路径（相对于赛事文件）" % (path, e.strerror), "no_file")
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        r.fail(name, "%s holds %s and must be readable by its owner only: chmod 600 %s" % (path, what_en, path),
               "%s 保存%s，只能由所有者读取：请执行 chmod 600 %s" % (path, what_zh, path), "file_mode")
    return path


def _build(data, file, base, digest):
    top = _Reader(file, data)
    ev = top.section("event", required=True)
    eid = ev.get("id", "str", required=True)
    if not TOPIC_ID.fullmatch(eid):
        ev.fail("id", "must be 1-32 characters of A-Z a-z 0-9 - _ (it is part of every MQTT topic), not %r" % (eid,),
                "必须是 1 到 32 个 A-Z a-z 0-9 - _ 字符（它是每个 MQTT 主题的一部分），而不是 %r" % (eid,), "bad_id")
    name = ev.get("name", "str", required=True)
    if not name.strip() or len(name) > 200:
        ev.fail("name", "must be the event's name, 1 to 200 characters", "必须是 1 到 200 个字符的赛事名称")
    game = ev.get("game", "str", required=True)
    if game not in ENGINES or game not in deals_.GAMES:
        ev.fail("game", "the venue runs individual duplicate events of a game the table hubs can play: %s, not %r "
                "(Guandan pair and team events: paizhuo guandan)" % (", ".join(sorted(ENGINES)), game),
                "场地服务只能运行桌机能打的个人复式项目：%s，而不是 %r（掼蛋双人与团体赛请用 paizhuo guandan）"
                % ("、".join(sorted(ENGINES)), game), "unknown_game")
    secret = _secret(ev, base)
    rounds = ev.number("rounds", None, 1, MAX_ROUNDS, required=True)
    boards = ev.number("boards_per_round", None, 1, MAX_BOARDS, required=True)
    auto_start = ev.get("auto_start", "bool", False)
    per_group = ev.number("tables_per_group", None, 2, 10000)
    vs_ai = ev.get("vs_ai", "bool", False)
    seats = deals_.GAMES[game].seats
    human_seat = ev.get("human_seat", "str", seats[0])
    if human_seat not in seats:
        ev.fail("human_seat", "must be one of %s, not %r" % (", ".join(seats), human_seat),
                "必须是 %s 之一，而不是 %r" % ("、".join(seats), human_seat), "bad_seat")
    if not vs_ai and ev.present("human_seat"):
        ev.fail("human_seat", "only applies to a 人机赛 (vs_ai = true): remove it or set vs_ai", "仅用于人机赛（vs_ai = true）")
    ev.done()

    broker = None
    if top.present("broker"):
        b = top.section("broker")
        host = b.get("host", "str", "127.0.0.1")
        if not host.strip():
            b.fail("host", "must name the broker's host, like \"127.0.0.1\"", "必须给出代理服务器地址，如 \"127.0.0.1\"")
        port = b.number("port", 1883, 1, 65535)
        username = b.get("username", "str", None)
        if username is not None and not TOPIC_ID.fullmatch(username):
            b.fail("username", "must be 1-32 characters of A-Z a-z 0-9 - _, not %r" % (username,),
                   "必须是 1 到 32 个 A-Z a-z 0-9 - _ 字符", "bad_id")
        password_file = _private_file(b, "password_file", base, "the venue's broker password", "场地的代理服务器密码")
        if password_file and username is None:
            b.fail("username", "is missing: a password_file needs the username it belongs to", "缺少用户名：密码文件需要对应的用户名",
                   "missing")
        keepalive = b.number("keepalive_seconds", 5, 1, 600)
        tls_ca = b.get("tls_ca", "str")
        if tls_ca is not None:
            tls_ca = _path(base, tls_ca)
            from ..mqtt.client import MqttError, tls_context
            try:
                tls_context(tls_ca)     # read it now: a wrong file is a config error, not a link that never comes up
            except MqttError as e:
                b.fail("tls_ca", "%s: give the venue CA's certificate (PEM) that signed the broker's certificate"
                       % e.en, "%s：请给出签发代理证书的场地 CA 证书（PEM）" % e.zh, "bad_tls_ca")
        tls_server_name = b.get("tls_server_name", "str")
        if tls_server_name is not None:
            if tls_ca is None:
                b.fail("tls_server_name", "only applies with tls_ca (a TLS broker): add tls_ca or remove it",
                       "仅在设置 tls_ca（TLS 代理）时有效：请添加 tls_ca 或删除此项", "bad_tls_server_name")
            if not tls_server_name.strip() or len(tls_server_name) > 253 or any(c.isspace() for c in tls_server_name):
                b.fail("tls_server_name", "must be the host name in the broker's certificate, like \"broker.hall\", "
                       "not %r" % (tls_server_name,), "必须是代理证书中的主机名，如 \"broker.hall\"，而不是 %r"
                       % (tls_server_name,), "bad_tls_server_name")
        b.done()
        broker = Broker(host, port, username, password_file, keepalive, tls_ca, tls_server_name)

    web = None
    if top.present("web"):
        w = top.section("web")
        host = w.get("host", "str", "127.0.0.1")
        port = w.number("port", 8080, 0, 65535)
        pin_hash = w.get("referee_pin_hash", "str", None)
        pin_file = _private_file(w, "referee_pin_file", base, "the referees' PIN hash", "裁判 PIN 的哈希")
        if (pin_hash is None) == (pin_file is None):
            w.fail("referee_pin_hash", "give exactly one of referee_pin_hash or referee_pin_file (make the hash with "
                   "`paizhuo venue pin`)", "请只给出 referee_pin_hash 或 referee_pin_file 之一（用 paizhuo venue pin 生成哈希）",
                   "missing")
        key = "referee_pin_hash"
        if pin_file is not None:
            key = "referee_pin_file"
            with open(pin_file, encoding="utf-8") as f:
                pin_hash = f.readline().strip()
        if not PIN_HASH.fullmatch(pin_hash):
            w.fail(key, "is not a PIN hash (pbkdf2-sha256$rounds$salt$hash): make one with `paizhuo venue pin` and paste "
                   "its output; never write the PIN itself", "不是 PIN 哈希（pbkdf2-sha256$轮数$盐$哈希）：请用 paizhuo venue pin "
                   "生成后粘贴其输出；不要写 PIN 本身", "bad_pin_hash")
        secure = w.get("secure_cookies", "bool", False)
        w.done()
        web = Web(host, port, pin_hash, secure)

    s = top.section("store")
    store_path = _path(base, s.get("path", "str", "%s-venue.sqlite" % eid))
    s.done()

    tables = _tables(top, file)
    players = _players(top, file)
    top.done()

    cfg = EventConfig(path=file, id=eid, name=name, game=game, secret=secret, rounds=rounds, boards_per_round=boards,
                      auto_start=auto_start, tables_per_group=per_group, vs_ai=vs_ai, human_seat=human_seat,
                      broker=broker, web=web, store_path=store_path, tables=tables, players=players, digest=digest)
    need = cfg.tables_needed()
    if need > len(tables):
        raise EventError(file, "tables", "%d players need %d tables%s but only %d are listed: add [[tables]] entries"
                         % (len(players), need, " (人机赛: one per player)" if vs_ai else "", len(tables)),
                         "%d 名选手需要 %d 张桌%s，但只列出了 %d 张：请添加 [[tables]]"
                         % (len(players), need, "（人机赛每人一桌）" if vs_ai else "", len(tables)), "too_few_tables")
    if vs_ai and any(p.bot for p in players):
        raise EventError(file, "players", "a 人机赛 (vs_ai) seats its own AI players: list only people in [[players]] "
                         "(remove bot = true)", "人机赛由场地安排电脑选手：[[players]] 中只列真人（去掉 bot = true）", "bot_in_vs_ai")
    if all(p.bot for p in players):
        raise EventError(file, "players", "every player is a bot: an event ranks people, list them in [[players]]",
                         "所有选手都是电脑：比赛为真人排名，请在 [[players]] 中列出选手", "no_players")
    return cfg


def _secret(ev, base):
    text = ev.get("secret", "str", None)
    path = _private_file(ev, "secret_file", base, "the event's deal secret", "赛事发牌密钥")
    if (text is None) == (path is None):
        ev.fail("secret", "give exactly one of secret (\"hex:…\" or \"text:…\") or secret_file; make 32 random bytes with: "
                "python3 -c \"import secrets; print(secrets.token_hex(32))\"",
                "请只给出 secret（\"hex:…\" 或 \"text:…\"）或 secret_file 之一；用 python3 -c \"import secrets; "
                "print(secrets.token_hex(32))\" 生成 32 个随机字节", "missing")
    key = "secret"
    if path is not None:
        key = "secret_file"
        with open(path, encoding="utf-8") as f:
            text = f.readline().strip()
    try:
        secret = deals_.parse_secret(text)
    except deals_.DealError as e:
        ev.fail(key, e.en, e.zh, e.code)
    if len(secret) < MIN_SECRET:
        ev.fail(key, "is %d bytes; an event secret needs at least %d (32 random bytes are right: once deals are "
                "published a short secret can be guessed and later rounds foreseen)" % (len(secret), MIN_SECRET),
                "只有 %d 字节；赛事密钥至少需要 %d 字节（应为 32 个随机字节：短密钥可能被猜出，从而预知后续轮次）"
                % (len(secret), MIN_SECRET), "short_secret")
    return secret


def _entries(top, name, file):
    items = top.get(name, "list", None, required=True)
    if not items:
        top.fail(name, "is empty: add at least one [[%s]] entry" % name, "为空：请至少添加一个 [[%s]]" % name, "missing")
    readers = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            top.fail("%s[%d]" % (name, i), "must be a table ([[%s]])" % name, "必须是表（[[%s]]）" % name, "bad_type")
        readers.append(_Reader(file, item, "%s[%d]." % (name, i)))
    return readers


def _tables(top, file):
    out, seen_t, seen_h = [], {}, {}
    for i, r in enumerate(_entries(top, "tables", file)):
        table = r.get("table", "str", required=True)
        if not _TEXT_ID.fullmatch(table):
            r.fail("table", "must be the table's name or number as text, 1 to 64 printable characters, like \"7\"",
                   "必须是 1 到 64 个可打印字符的桌号文字，如 \"7\"")
        hub = r.get("hub", "str", required=True)
        if not TOPIC_ID.fullmatch(hub):
            r.fail("hub", "must be 1-32 characters of A-Z a-z 0-9 - _ (the hub's MQTT username), not %r" % (hub,),
                   "必须是 1 到 32 个 A-Z a-z 0-9 - _ 字符（桌机的 MQTT 用户名），而不是 %r" % (hub,), "bad_id")
        for value, seen, what, zh in ((table, seen_t, "table", "桌"), (hub, seen_h, "hub", "桌机")):
            if value in seen:
                r.fail(what, "%r is listed twice (also tables[%d]): each %s once" % (value, seen[value], what),
                       "%s %r 重复（另见 tables[%d]）" % (zh, value, seen[value]), "duplicate")
            seen[value] = i
        r.done()
        out.append(TableSpec(table, hub))
    return tuple(out)


def _players(top, file):
    out, seen_id, seen_no = [], {}, {}
    for i, r in enumerate(_entries(top, "players", file)):
        pid = r.get("id", "str", required=True)
        if not _TEXT_ID.fullmatch(pid) or not pid.strip():
            r.fail("id", "must be the player's id, 1 to 64 printable characters, like \"P012\"", "必须是 1 到 64 个可打印字符的选手编号，如 \"P012\"")
        if pid.lower().startswith(BOT_PREFIX):
            r.fail("id", "must not start with %r: the venue names the bots it seats that way" % BOT_PREFIX,
                   "不能以 %r 开头：场地以此命名它安排的电脑选手" % BOT_PREFIX, "reserved_id")
        name = r.get("name", "str", required=True)
        if not name.strip() or len(name) > 64:
            r.fail("name", "must be the player's name, 1 to 64 characters", "必须是 1 到 64 个字符的选手姓名")
        no = r.number("no", None, 1, 999999, required=True)
        bot = r.get("bot", "bool", False)
        for value, seen, what, zh in ((pid, seen_id, "id", "选手编号"), (no, seen_no, "no", "选手序号")):
            if value in seen:
                r.fail(what, "%r is given twice (also players[%d]): every player has their own" % (value, seen[value]),
                       "%s %r 重复（另见 players[%d]）：每位选手各不相同" % (zh, value, seen[value]), "duplicate")
            seen[value] = i
        r.done()
        out.append(Player(pid, name, no, bot))
    return tuple(out)


EXAMPLE = """\
# event.toml: one event run by `paizhuo venue --event event.toml` (see docs/venue.md)
[event]
id = "demo"                  # 1-32 of A-Z a-z 0-9 - _ ; part of every MQTT topic
name = "2026 演示赛"
game = "bigtwo"
# The deal secret decides every deal: 32 random bytes, made with
#   python3 -c "import secrets; print(secrets.token_hex(32))"
# Keep it out of reach of players; a secret_file (mode 600) keeps it out of this file.
secret = "hex:8f1c0b6d2e4a59c3b7e1f0a2d4c6b8e9f1a3c5e7d9b0a2c4e6f8a1b3c5d7e9f0"
rounds = 2
boards_per_round = 4
auto_start = false           # true: start each round as soon as every hub has loaded it
# tables_per_group = 8       # tables that play the same deals (default: the whole field)
# vs_ai = true               # 人机赛: every player alone at a table with bots
# human_seat = "E"

# [broker]                   # absent: an embedded broker on 127.0.0.1 (demo, small room)
# host = "10.0.0.2"
# port = 1883
# username = "venue"
# password_file = "venue.pass"   # mode 600
# tls_ca = "venue-ca.pem"    # the venue CA (PEM) when the broker listens with TLS (docs/venue.md)
# tls_server_name = "broker.hall"  # default: host

[web]
host = "127.0.0.1"           # 0.0.0.0 to serve the hall's network
port = 8080
# From `paizhuo venue pin` (the PIN itself is never written down here):
referee_pin_hash = "pbkdf2-sha256$200000$00112233445566778899aabbccddeeff$8c1b0d7f7c8ea3b7ba5d8f3d3f5cd0f2b7f0a3c9d2e1f4a5b6c7d8e9f0a1b2c3"
# secure_cookies = true      # when the pages are served over HTTPS (a TLS reverse proxy)

[store]
path = "demo-venue.sqlite"   # relative to this file

[[tables]]
table = "1"
hub = "T01"
[[tables]]
table = "2"
hub = "T02"

[[players]]
id = "P001"
name = "张三"
no = 1
[[players]]
id = "P002"
name = "李四"
no = 2
[[players]]
id = "P003"
name = "王五"
no = 3
[[players]]
id = "P004"
name = "赵六"
no = 4
[[players]]
id = "P005"
name = "钱七"
no = 5
[[players]]
id = "P006"
name = "孙八"
no = 6
[[players]]
id = "P007"
name = "周九"
no = 7
[[players]]
id = "AI-1"
name = "电脑一"
no = 8
bot = true                   # a computer player: seated like a player, never ranked
"""
