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
... game = "%s"
... secret = "text:a demo secret of enough length"
... rounds = 0
... boards_per_round = 4
... ''' % rules_.DEFAULT_GAME, "event.toml")
Traceback (most recent call last):
...
paizhuo.venue.event.EventError: event.toml: event.rounds: must be between 1 and 99, not 0

A complete example is :data:`EXAMPLE` (``paizhuo venue example`` prints it).

>>> cfg = load_text(EXAMPLE, "event.toml", base="/srv/event")
>>> cfg.id, cfg.game == rules_.DEFAULT_GAME, cfg.rounds, cfg.boards(), len(cfg.players), cfg.tables_needed()
('demo', True, 2, [1, 2, 3, 4], 8, 2)
>>> cfg.hub_of("1"), cfg.table_of("T02"), cfg.store_path
('T01', '2', '/srv/event/demo-venue.sqlite')
"""

import hashlib
import math
import os
import re
import stat
from dataclasses import dataclass

from ..errors import CodedError
from ..inputs import InputError, check_text, parse_toml
from ..mqtt.client import Broker  # ``[broker]``: the MQTT broker every hub and the venue connect to
from .. import rules as rules_
from . import deals as deals_

__all__ = ["BOT_PREFIX", "EventError", "EventConfig", "Broker", "Web", "TableSpec", "Player", "Side", "FORMATS",
           "board_is_match", "load", "load_text", "EXAMPLE", "example_text", "example_leftovers", "MIN_PIN", "check_pin"]

# Ids that go into MQTT topics: the event id and hub ids (a hub id is also its MQTT username).
TOPIC_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_TEXT_ID = re.compile(r"^[^\x00-\x1f]{1,64}$")  # player ids, table names: printable, short
PIN_HASH = re.compile(r"^pbkdf2-sha256\$[0-9]{4,7}\$[0-9a-f]{16,64}\$[0-9a-f]{64}$")
BOT_PREFIX = "bot:"  # ids of the bots the movement seats in a short field: "bot:<table>:<seat>"
MIN_SECRET = 16  # bytes; the store refuses less (a short secret can be guessed from published deals)
MAX_ROUNDS = 99
MAX_BOARDS = 64  # per round; a session has a handful
MIN_PIN = 6  # characters of a referee PIN (`paizhuo venue pin`, the demo); wrong PINs lock the browser (web.py)


def check_pin(pin):
    """The one rule for a referee PIN: at least :data:`MIN_PIN` printable characters, no spaces at
    either end.  Returns ``pin`` or raises :class:`CodedError` ``bad_pin``.

    >>> check_pin("246810")
    '246810'
    >>> check_pin("2468")
    Traceback (most recent call last):
    ...
    paizhuo.errors.CodedError: a referee PIN needs at least 6 printable characters and no spaces at either end
    """
    if not isinstance(pin, str) or len(pin) < MIN_PIN or pin != pin.strip() or not pin.isprintable():
        raise CodedError("bad_pin", "a referee PIN needs at least %d printable characters and no spaces at either end"
                         % MIN_PIN, "裁判 PIN 至少 %d 个可打印字符，首尾不能有空格" % MIN_PIN)
    return pin


# Match events (a board is a match of deals, scored by matches.py): a side is a pair or a team.
FORMATS = {"pairs": 2, "teams": 4}  # players per side


def board_is_match(game):
    """Whether a board of ``game`` is a match (a sequence of deals scored by 场分 and 级差分,
    :mod:`paizhuo.venue.matches`) rather than one deal scored by duplicate MP
    (:mod:`paizhuo.venue.scoring`): the registry says so (``Game.match``: the engine's board
    is a match).  Never decided by the game's name."""
    return rules_.game(game).match


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
class Side:
    """One ``[[sides]]`` entry of a match event: a pair (two players) or a team (four: the
    first two play the open room, the last two the closed room).  ``no`` is the side number
    (号, its place in the list, from 1): it orders ties and picks the home side."""

    id: str
    name: str
    no: int
    players: tuple


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
    # Without [broker]: the folder (``paizhuo broker config`` format) of the embedded broker's logins.
    embedded_credentials: str = None
    # ``[rules]``: the engine's rule options every hub plays under (the table.toml [rules] of
    # the hubs); the venue replays each result under them.  None: the engine's defaults.
    rules: dict = None
    # Match events: "pairs" or "teams" and the sides in side-number order (None, (): duplicate).
    format: str = None
    sides: tuple = ()

    @property
    def matches(self):
        """True when a board is a match (:func:`board_is_match`): sides, pairing, 场分."""
        return self.format is not None

    @property
    def rooms(self):
        """Tables one match needs: 2 (open and closed room) in a teams event, else 1."""
        return 2 if self.format == "teams" else 1

    def side(self, sid):
        for s in self.sides:
            if s.id == sid:
                return s
        raise KeyError(sid)

    @property
    def seats(self):
        """The seats of the game, in play order (from the registry's dealing: E, N, W, S for four)."""
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
        if self.matches:
            return len(self.sides) // 2 * self.rooms  # one side sits out (a bye) in an odd field
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
        data = parse_toml(text, "")
    except InputError as e:   # not TOML, nested too deep, NUL or lone surrogates, huge numbers
        raise EventError(file, e.path, ("is " if e.code == "bad_toml" else "") + e.what[0], e.what[1], e.code) from None
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
    # Only games the table hubs can run (the registry's at_table): an engine alone is not an event.
    playable = sorted(g for g in rules_.GAMES if rules_.game(g).at_table)
    if game not in playable or game not in deals_.GAMES:
        ev.fail("game", "the venue runs events of a game the table hubs can play: %s, not %r" % (", ".join(playable), game),
                "场地服务只能运行桌机能打的项目：%s，而不是 %r" % ("、".join(playable), game), "unknown_game")
    match = board_is_match(game)
    fmt = ev.get("format", "str", None)
    if match and fmt not in FORMATS:
        ev.fail("format", "a %s board is a match between two sides: say format = \"pairs\" or \"teams\", not %r"
                % (game, fmt), "%s 每桌打一场比赛：请写 format = \"pairs\"（双人）或 \"teams\"（团体），而不是 %r"
                % (game, fmt), "bad_format")
    if not match and fmt is not None:
        ev.fail("format", "only applies to a game whose board is a match (pairs or teams); a %s event is individual "
                "duplicate: remove it" % game, "仅用于以场为单位的项目（双人或团体）；%s 为个人复式：请删除此项" % game,
                "bad_format")
    secret = _secret(ev, base)
    rounds = ev.number("rounds", None, 1, MAX_ROUNDS, required=True)
    boards = ev.number("boards_per_round", None, 1, MAX_BOARDS, required=True)
    auto_start = ev.get("auto_start", "bool", False)
    # A match event may give each match its own deals (1: a pairs table is a group of its own).
    per_group = ev.number("tables_per_group", None, 1 if match else 2, 10000)
    vs_ai = ev.get("vs_ai", "bool", False)
    seats = deals_.GAMES[game].seats
    human_seat = ev.get("human_seat", "str", seats[0])
    if human_seat not in seats:
        ev.fail("human_seat", "must be one of %s, not %r" % (", ".join(seats), human_seat),
                "必须是 %s 之一，而不是 %r" % ("、".join(seats), human_seat), "bad_seat")
    if not vs_ai and ev.present("human_seat"):
        ev.fail("human_seat", "only applies to a 人机赛 (vs_ai = true): remove it or set vs_ai", "仅用于人机赛（vs_ai = true）")
    if match and boards != 1:
        ev.fail("boards_per_round", "is the matches a round has; a pairs or teams round is one match: set it to 1",
                "为每轮的场数；双人与团体赛每轮一场：请设为 1", "out_of_range")
    if match and (vs_ai or per_group is not None and per_group % (2 if fmt == "teams" else 1)):
        ev.fail("vs_ai" if vs_ai else "tables_per_group",
                "a match event has no 人机赛, and a group holds whole matches (both rooms of a team match)",
                "以场为单位的项目没有人机赛，每组须包含完整的比赛（团体赛的开室与闭室）", "bad_format")
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
    embedded_credentials = None
    if top.present("embedded_broker"):
        e = top.section("embedded_broker")
        if broker is not None:
            e.fail("credentials", "only applies without [broker] (it is the embedded broker's): remove one of the two",
                   "仅在没有 [broker] 时有效（属于内置代理）：请删除二者之一")
        embedded_credentials = e.get("credentials", "str", None)
        e.done()
    if broker is None:
        # The embedded broker's logins: made by the venue at its first start (paizhuo venue).
        embedded_credentials = _path(base, embedded_credentials or "%s-broker" % eid)

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
            pin_hash = _first_line(w, key, pin_file)
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

    rules = top.get("rules", "table", None)
    if rules is not None:
        try:
            rules = rules_.engine(game).Rules.from_dict(rules).to_dict()
        except (ValueError, TypeError) as e:
            top.fail("rules", "%s (the same options as the hubs' table.toml [rules], docs/rules-options.md)" % e,
                     "规则选项错误：%s（须与桌机 table.toml 的 [rules] 相同，见 docs/rules-options.md）" % getattr(e, "zh", e),
                     "bad_rules")

    tables = _tables(top, file)
    players = _players(top, file)
    sides = _sides(top, file, fmt, players) if match else ()
    most = len(sides) - (0 if len(sides) % 2 else 1)  # rounds before every side has met every other
    if match and rounds > most:
        ev.fail("rounds", "%d sides can play at most %d rounds without meeting again (积分编排 never repeats a match), "
                "not %d" % (len(sides), most, rounds), "%d 个参赛方最多可打 %d 轮而不重复相遇，而不是 %d 轮"
                % (len(sides), most, rounds), "out_of_range")
    if not match and top.present("sides"):
        top.fail("sides", "only a pairs or teams event has sides: remove [[sides]]", "只有双人或团体赛有参赛方：请删除 [[sides]]")
    top.done()

    cfg = EventConfig(path=file, id=eid, name=name, game=game, secret=secret, rounds=rounds, boards_per_round=boards,
                      auto_start=auto_start, tables_per_group=per_group, vs_ai=vs_ai, human_seat=human_seat,
                      broker=broker, web=web, store_path=store_path, tables=tables, players=players, digest=digest,
                      embedded_credentials=embedded_credentials, rules=rules, format=fmt, sides=sides)
    need = cfg.tables_needed()
    if need > len(tables):
        who, who_zh = ("%d sides" % len(sides), "%d 个参赛方" % len(sides)) if match else \
            ("%d players" % len(players), "%d 名选手" % len(players))
        raise EventError(file, "tables", "%s need %d tables%s but only %d are listed: add [[tables]] entries"
                         % (who, need, " (人机赛: one per player)" if vs_ai else "", len(tables)),
                         "%s需要 %d 张桌%s，但只列出了 %d 张：请添加 [[tables]]"
                         % (who_zh, need, "（人机赛每人一桌）" if vs_ai else "", len(tables)), "too_few_tables")
    if vs_ai and any(p.bot for p in players):
        raise EventError(file, "players", "a 人机赛 (vs_ai) seats its own AI players: list only people in [[players]] "
                         "(remove bot = true)", "人机赛由场地安排电脑选手：[[players]] 中只列真人（去掉 bot = true）", "bot_in_vs_ai")
    if all(p.bot for p in players):
        raise EventError(file, "players", "every player is a bot: an event ranks people, list them in [[players]]",
                         "所有选手都是电脑：比赛为真人排名，请在 [[players]] 中列出选手", "no_players")
    return cfg


def _first_line(r, key, path):
    """The first line of a private file (a secret, a PIN hash), refused in both languages when it
    cannot be read or is not clean UTF-8 text."""
    try:
        with open(path, "rb") as f:
            line = f.readline(4096).decode("utf-8").strip()
        return check_text(line, path)
    except OSError as e:
        r.fail(key, "cannot read %s (%s)" % (path, e.strerror), "无法读取 %s（%s）" % (path, e.strerror), "no_file")
    except UnicodeDecodeError:
        r.fail(key, "%s is not UTF-8 text: save it as UTF-8" % path, "%s 不是 UTF-8 文本：请以 UTF-8 保存" % path, "not_utf8")
    except InputError as e:
        r.fail(key, e.en, e.zh, e.code)


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
        text = _first_line(ev, key, path)
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


MAX_PLAYER_NO = 999999


def player_problems(pid, name, no):
    """What is wrong with one player's id, name and number, as ``[(field, en, zh, code)]``: the
    rule of ``[[players]]`` entries, shared by the reader and the list importer."""
    found = []
    if not isinstance(pid, str) or not _TEXT_ID.fullmatch(pid) or not pid.strip():
        found.append(("id", "must be the player's id, 1 to 64 printable characters, like \"P012\"",
                      "必须是 1 到 64 个可打印字符的选手编号，如 \"P012\"", "bad_event"))
    elif pid.lower().startswith(BOT_PREFIX):
        found.append(("id", "must not start with %r: the venue names the bots it seats that way" % BOT_PREFIX,
                      "不能以 %r 开头：场地以此命名它安排的电脑选手" % BOT_PREFIX, "reserved_id"))
    if not isinstance(name, str) or not name.strip() or len(name) > 64 or not name.isprintable():
        found.append(("name", "must be the player's name, 1 to 64 printable characters",
                      "必须是 1 到 64 个可打印字符的选手姓名", "bad_event"))
    if not isinstance(no, int) or isinstance(no, bool) or not 1 <= no <= MAX_PLAYER_NO:
        found.append(("no", "must be between 1 and %d, not %r" % (MAX_PLAYER_NO, no),
                      "必须在 1 到 %d 之间，而不是 %r" % (MAX_PLAYER_NO, no), "out_of_range"))
    return found


def _players(top, file):
    out, seen_id, seen_no = [], {}, {}
    for i, r in enumerate(_entries(top, "players", file)):
        pid = r.get("id", "str", required=True)
        name = r.get("name", "str", required=True)
        no = r.get("no", "int", None, required=True)
        for field, en, zh, code in player_problems(pid, name, no):
            r.fail(field, en, zh, code)
        bot = r.get("bot", "bool", False)
        for value, seen, what, zh in ((pid, seen_id, "id", "选手编号"), (no, seen_no, "no", "选手序号")):
            if value in seen:
                r.fail(what, "%r is given twice (also players[%d]): every player has their own" % (value, seen[value]),
                       "%s %r 重复（另见 players[%d]）：每位选手各不相同" % (zh, value, seen[value]), "duplicate")
            seen[value] = i
        r.done()
        out.append(Player(pid, name, no, bot))
    return tuple(out)


def _sides(top, file, fmt, players):
    """``[[sides]]``: each a pair or team of listed players; every player in exactly one side."""
    size = FORMATS[fmt]
    known = {p.id: p for p in players}
    out, seen_id, member = [], {}, {}
    for i, r in enumerate(_entries(top, "sides", file)):
        sid = r.get("id", "str", required=True)
        if not _TEXT_ID.fullmatch(sid) or not sid.strip():
            r.fail("id", "must be the side's id, 1 to 64 printable characters, like \"P1\"", "必须是 1 到 64 个可打印字符的参赛方编号，如 \"P1\"")
        if sid in seen_id:
            r.fail("id", "%r is given twice (also sides[%d])" % (sid, seen_id[sid]), "%r 重复（另见 sides[%d]）" % (sid, seen_id[sid]),
                   "duplicate")
        seen_id[sid] = i
        name = r.get("name", "str", sid)
        if not name.strip() or len(name) > 64:
            r.fail("name", "must be the side's name, 1 to 64 characters", "必须是 1 到 64 个字符的参赛方名称")
        ids = r.get("players", "list", required=True)
        if len(ids) != size or not all(isinstance(x, str) for x in ids):
            r.fail("players", "a side of a %s event lists %d player ids%s, not %r"
                   % (fmt, size, " (the open-room pair first, then the closed-room pair)" if size == 4 else "", ids),
                   "%s的参赛方须列出 %d 名选手编号%s，而不是 %r"
                   % ("团体赛" if size == 4 else "双人赛", size, "（先开室一对，后闭室一对）" if size == 4 else "", ids), "bad_side")
        for pid in ids:
            if pid not in known:
                r.fail("players", "%r is not in [[players]]: list every player there (with the number typed at check-in)"
                       % pid, "%r 不在 [[players]] 中：请在那里登记每位选手（含签到序号）" % pid, "unknown_player")
            if known[pid].bot:
                r.fail("players", "%r is a bot: a side is people" % pid, "%r 是电脑选手：参赛方须为真人" % pid, "bad_side")
            if pid in member:
                r.fail("players", "%r already plays for side %s" % (pid, member[pid]), "%r 已属于参赛方 %s" % (pid, member[pid]),
                       "duplicate")
            member[pid] = sid
        r.done()
        out.append(Side(sid, name, i + 1, tuple(ids)))
    if len(out) < 2:
        top.fail("sides", "a match event needs at least two sides", "至少需要两个参赛方", "missing")
    loose = [p.id for p in players if p.id not in member]
    if loose:
        top.fail("players", "%s play for no side: add them to a [[sides]] entry or remove them" % ", ".join(loose),
                 "%s 不属于任何参赛方：请加入某个 [[sides]] 或删除" % "、".join(loose), "bad_side")
    return tuple(out)


EXAMPLE = """\
# event.toml: one event run by `paizhuo venue --event event.toml` (see docs/venue.md)
[event]
id = "demo"                  # 1-32 of A-Z a-z 0-9 - _ ; part of every MQTT topic
name = "2026 演示赛"
game = "@GAME@"
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

# Without [broker] the venue runs an embedded broker on 127.0.0.1 (demo, small room on one
# machine) with one password per hub, written at its first start into this folder:
# [embedded_broker]
# credentials = "demo-broker"    # default: <event id>-broker next to this file; give hub T01 its T01.pass
# [broker]                   # mosquitto (hubs on other machines): see `paizhuo broker config`
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
""".replace("@GAME@", rules_.DEFAULT_GAME)  # the registry's default game

# The example is published with the source: `paizhuo venue example` prints it with a fresh
# deal secret and no PIN hash (example_text); `paizhuo venue check` and the venue's start
# refuse a configuration that still holds the published ones (example_leftovers).
_EXAMPLE_SECRET = re.search(r'^secret = "(hex:[0-9a-f]{64})"', EXAMPLE, re.M).group(1)
_EXAMPLE_PIN_HASH = re.search(r'^referee_pin_hash = "(.*)"', EXAMPLE, re.M).group(1)
_NO_PIN_HASH = "run `paizhuo venue pin` and paste its output here"


def example_text(secret=None, pin_hash=None):
    """:data:`EXAMPLE` with ``secret`` (default: 32 fresh random bytes) and ``pin_hash`` (default:
    a note to paste ``paizhuo venue pin``'s output, which the venue refuses to start with):
    what ``paizhuo venue example`` prints.

    >>> example_text() != example_text() and _EXAMPLE_SECRET not in example_text()
    True
    """
    import secrets
    return (EXAMPLE.replace(_EXAMPLE_SECRET, secret or "hex:" + secrets.token_hex(32))
            .replace(_EXAMPLE_PIN_HASH, pin_hash or _NO_PIN_HASH))


def example_leftovers(cfg):
    """The published example's values still in ``cfg``, as ``[(key, en, zh)]``: its deal secret
    (anyone could compute every deal) and its PIN hash (the referees' PIN is nobody's choice)."""
    found = []
    if cfg.secret == deals_.parse_secret(_EXAMPLE_SECRET):
        found.append(("event.secret", "is the published example's secret: anyone with the paizhuo sources can compute "
                      "every deal. Make 32 random bytes: python3 -c \"import secrets; print(secrets.token_hex(32))\"",
                      "是公开示例中的密钥：任何拿到 paizhuo 源码的人都能算出每一副牌。请生成 32 个随机字节："
                      "python3 -c \"import secrets; print(secrets.token_hex(32))\""))
    if cfg.web is not None and cfg.web.pin_hash == _EXAMPLE_PIN_HASH:
        found.append(("web.referee_pin_hash", "is the published example's PIN hash: choose the referees' PIN and paste "
                      "the output of `paizhuo venue pin`", "是公开示例中的 PIN 哈希：请设定裁判 PIN，并粘贴 "
                      "paizhuo venue pin 的输出"))
    return found
