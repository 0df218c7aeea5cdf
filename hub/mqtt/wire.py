"""The venue link's wire: topic layout and payload codecs, with no I/O.

Every topic lives under ``paizhuo/v1/<event>/``; a hub writes under ``hub/<hub>/`` and the
venue under ``venue/`` (``docs/protocol.md`` § "Venue link (MQTT)" has the full table).  Every
payload is one UTF-8 JSON object of at most 256 KB carrying ``"v": 1`` (a result: 4 MB, see
:data:`MAX_RESULT_PAYLOAD`).  Messages from the
broker are hostile until checked: each kind has one checker that returns the message or raises
:class:`WireError` naming the field, so the receiver can log the refusal and change nothing.

    >>> hub_topic("demo", "T07", "result")
    'paizhuo/v1/demo/hub/T07/result'
    >>> venue_topic("demo", "ack", "T07")
    'paizhuo/v1/demo/venue/ack/T07'
    >>> parse_topic("demo", "paizhuo/v1/demo/hub/T07/status")
    Topic(side='hub', hub='T07', leaf='status')
    >>> parse_topic("demo", "paizhuo/v1/demo/venue/records/2").round
    2
    >>> msg = check_ack(b'{"v":1,"epoch":"00112233445566ff","upto":3}')
    >>> msg["upto"]
    3
    >>> check_ack({"v": 1, "epoch": "xyz", "upto": 3})
    Traceback (most recent call last):
    ...
    paizhuo.mqtt.wire.WireError: ack: epoch: must be 16 lowercase hex digits, not 'xyz'
    >>> dumps({"v": 1, "name": "李四"})
    b'{"v":1,"name":"\\xe6\\x9d\\x8e\\xe5\\x9b\\x9b"}'
"""

import json
import re
from collections import namedtuple

from .. import rules as rules_
from ..errors import CodedError
from ..inputs import InputError, parse_json

__all__ = [
    "ROOT", "MAX_PAYLOAD", "MAX_RESULT_PAYLOAD", "BROKER_PACKET", "SEATS", "ALERT_KINDS", "CONTROL_OPS", "ROUND_FIELDS", "LIVE_SCREENS", "WireError", "Topic",
    "hub_topic", "venue_topic", "records_topic", "parse_topic", "event_filter", "hub_filter", "hub_subscriptions",
    "dumps", "loads", "check", "check_status", "check_live", "check_result", "check_alert", "check_reply",
    "check_ack", "check_round", "check_control", "check_standings", "check_records", "check_tables", "check_id",
    "TABLE_STATES",
]

ROOT = "paizhuo/v1"
MAX_PAYLOAD = 256 * 1024          # bytes; a result with its full record is ~10 KB, standings of 2000 players ~200 KB
# A result carries its board's whole record, and a match has no deal limit unless its rules set
# one (max_deals): about 8.5 KB a deal as bots play, 30 KB for a deal of the most actions a deal
# can have (tests/bench/bench_match_record.py), so 256 KB holds 8 such deals.  Results alone
# may be this big: 140 deals of the longest possible kind, some 470 as played.
MAX_RESULT_PAYLOAD = 4 * 1024 * 1024
# The brokers' packet limit (mosquitto's max_packet_size): the largest payload plus room for
# the MQTT header and topic.
BROKER_PACKET = MAX_RESULT_PAYLOAD + 64 * 1024
SEATS = ("E", "N", "W", "S")
HUB_LEAVES = ("status", "live", "result", "alert", "reply")
VENUE_HUB_LEAVES = ("ack", "round", "control")      # venue/<leaf>/<hub>
ALERT_KINDS = ("call", "seat_offline", "seat_online", "clock_expiry", "reject_burst", "checkin_wrong",
               "log_failed", "hub_error", "deal_mismatch", "result_too_big")
ROUND_FIELDS = ("v", "id", "round", "group", "game", "table", "boards", "deal_hashes", "players", "moves", "rules")
CONTROL_OPS = ("start", "pause", "resume", "ack_call", "replace", "note", "end_board")
LIVE_SCREENS = ("checkin", "waiting", "deal", "paused", "result")
# What the public table feed (venue/tables) may say a table is doing: never which board or turn.
TABLE_STATES = ("offline", "idle", "checkin", "waiting", "playing", "paused", "done")
TABLE_FIELDS = ("table", "round", "online", "boards", "boards_done", "state")
VENUE_LEAVES = ("standings", "tables")              # venue/<leaf>, for everyone

_ID = re.compile(r"[A-Za-z0-9_-]{1,32}\Z")          # event, hub and device ids (MQTT usernames, topic segments)
_MSG_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")      # control / round-spec ids (uuid hex)
_TEXT_ID = re.compile(r"[^\x00-\x1f]{1,64}\Z")      # table and player ids: as table.toml allows
_EPOCH = re.compile(r"[0-9a-f]{16}\Z")
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_TEXT_MAX = 1000                                   # referee notes, reasons, names


class WireError(CodedError):
    """A topic or payload refused at the wire; ``field`` names the offending part (or ``None``).

    >>> e = WireError("bad_field", "ack: upto: must be an integer", field="upto")
    >>> e.code, e.field, isinstance(e, ValueError)
    ('bad_field', 'upto', True)
    """

    def __init__(self, code, en, zh=None, field=None):
        super().__init__(code, en, zh)
        self.field = field


# ---- topics ---------------------------------------------------------------------------------

class Topic(namedtuple("_Topic", "side hub leaf")):
    """A parsed topic: ``side`` is ``"hub"`` or ``"venue"``; ``hub`` the hub id (``None`` for
    ``venue/standings``, ``venue/tables`` and ``venue/records/<n>``); ``leaf`` the message kind.  ``round`` is set
    for ``venue/records/<n>`` only."""

    round = None


def _id(value, what):
    if not isinstance(value, str) or not _ID.match(value):
        raise WireError("bad_id", "%s must be 1-32 characters of A-Z a-z 0-9 - _, not %r" % (what, value),
                        "%s 必须是 1 到 32 个 A-Z a-z 0-9 - _ 字符，而不是 %r" % (what, value), field=what)
    return value


def check_id(value, what="id"):
    """``value`` if it is a valid event/hub/device id (``[A-Za-z0-9_-]{1,32}``), else :class:`WireError`."""
    return _id(value, what)


def hub_topic(event, hub, leaf):
    """``paizhuo/v1/<event>/hub/<hub>/<leaf>``; leaf is one of status, live, result, alert, reply."""
    _id(event, "event")
    _id(hub, "hub")
    if leaf not in HUB_LEAVES:
        raise WireError("bad_topic", "hub topics end in one of %s, not %r" % (", ".join(HUB_LEAVES), leaf),
                        "hub 主题只能以 %s 结尾，而不是 %r" % (", ".join(HUB_LEAVES), leaf), field="leaf")
    return "%s/%s/hub/%s/%s" % (ROOT, event, hub, leaf)


def venue_topic(event, leaf, hub=None):
    """``paizhuo/v1/<event>/venue/<leaf>[/<hub>]``.

    ``ack``, ``round`` and ``control`` need the hub; ``standings`` and ``tables`` (the public
    table feed) take none; for ``records`` pass the round number in place of the hub (or use
    :func:`records_topic`).

    >>> venue_topic("demo", "standings")
    'paizhuo/v1/demo/venue/standings'
    >>> venue_topic("demo", "tables")
    'paizhuo/v1/demo/venue/tables'
    >>> venue_topic("demo", "records", 2)
    'paizhuo/v1/demo/venue/records/2'
    """
    _id(event, "event")
    if leaf in VENUE_HUB_LEAVES:
        return "%s/%s/venue/%s/%s" % (ROOT, event, leaf, _id(hub, "hub"))
    if leaf in VENUE_LEAVES and hub is None:
        return "%s/%s/venue/%s" % (ROOT, event, leaf)
    if leaf == "records":
        return records_topic(event, hub)
    raise WireError("bad_topic", "venue topics are ack/<hub>, round/<hub>, control/<hub>, standings, tables, "
                    "records/<round>; got leaf %r with hub %r" % (leaf, hub),
                    "venue 主题只能是 ack/<hub>、round/<hub>、control/<hub>、standings、tables、records/<轮次>",
                    field="leaf")


def records_topic(event, rnd):
    """``paizhuo/v1/<event>/venue/records/<round>`` (retained hand records of a finished round)."""
    _id(event, "event")
    if type(rnd) is not int or rnd < 1:
        raise WireError("bad_topic", "records need a round number of 1 or more, not %r" % (rnd,),
                        "牌谱主题需要 1 或以上的轮次，而不是 %r" % (rnd,), field="round")
    return "%s/%s/venue/records/%d" % (ROOT, event, rnd)


def event_filter(event):
    """The filter for everything of an event (the monitor's subscription): ``paizhuo/v1/<event>/#``."""
    return "%s/%s/#" % (ROOT, _id(event, "event"))


def hub_filter(event, leaf=None):
    """What the venue subscribes to: ``.../hub/#``, or ``.../hub/+/<leaf>`` for one kind."""
    _id(event, "event")
    if leaf is None:
        return "%s/%s/hub/#" % (ROOT, event)
    if leaf not in HUB_LEAVES:
        raise WireError("bad_topic", "no hub leaf %r" % (leaf,), "没有 hub 主题 %r" % (leaf,), field="leaf")
    return "%s/%s/hub/+/%s" % (ROOT, event, leaf)


def hub_subscriptions(event, hub):
    """The filters a hub subscribes to (exactly what the production ACL lets it read)."""
    _id(event, "event")
    _id(hub, "hub")
    return ["%s/%s/venue/+/%s" % (ROOT, event, hub), "%s/%s/venue/standings" % (ROOT, event),
            "%s/%s/venue/records/#" % (ROOT, event)]


def _unknown_topic(topic, why):
    return WireError("unknown_topic", "unknown topic %r: %s" % (topic, why), "未知主题 %r：%s" % (topic, why),
                     field="topic")


def parse_topic(event, topic):
    """``Topic(side, hub, leaf)`` of a topic of this event; anything else raises ``WireError``.

    >>> parse_topic("demo", "paizhuo/v1/demo/venue/ack/T07")
    Topic(side='venue', hub='T07', leaf='ack')
    >>> parse_topic("demo", "paizhuo/v1/other/hub/T07/status")
    Traceback (most recent call last):
    ...
    paizhuo.mqtt.wire.WireError: unknown topic 'paizhuo/v1/other/hub/T07/status': not under paizhuo/v1/demo/
    """
    _id(event, "event")
    if not isinstance(topic, str):
        raise _unknown_topic(topic, "a topic is text")
    prefix = "%s/%s/" % (ROOT, event)
    if not topic.startswith(prefix):
        raise _unknown_topic(topic, "not under %s" % prefix)
    parts = topic[len(prefix):].split("/")
    if len(parts) == 3 and parts[0] == "hub" and _ID.match(parts[1]) and parts[2] in HUB_LEAVES:
        return Topic("hub", parts[1], parts[2])
    if len(parts) == 3 and parts[0] == "venue" and parts[1] in VENUE_HUB_LEAVES and _ID.match(parts[2]):
        return Topic("venue", parts[2], parts[1])
    if len(parts) == 2 and parts[0] == "venue" and parts[1] in VENUE_LEAVES:
        return Topic("venue", None, parts[1])
    if len(parts) == 3 and parts[:2] == ["venue", "records"] and parts[2].isdigit() and parts[2].isascii() \
            and not parts[2].startswith("0") and len(parts[2]) <= 6:
        t = Topic("venue", None, "records")
        t.round = int(parts[2])
        return t
    raise _unknown_topic(topic, "not a paizhuo venue-link topic (see docs/protocol.md)")


# ---- payloads -------------------------------------------------------------------------------

def _too_big(n, limit=MAX_PAYLOAD):
    return WireError("too_big", "payload of %d bytes is over the %d-byte limit" % (n, limit),
                     "消息 %d 字节，超过 %d 字节上限" % (n, limit), field="payload")


def limit_of(kind):
    """The payload limit of a message kind: a result's (its board's whole record) is larger."""
    return MAX_RESULT_PAYLOAD if kind == "result" else MAX_PAYLOAD


def dumps(msg):
    """Compact UTF-8 JSON bytes of a message (Chinese stays readable); over 256 KB (a result,
    ``"kind": "result"``: over 4 MB) → ``WireError``."""
    try:
        data = json.dumps(msg, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise WireError("not_json", "message cannot be sent as JSON: %s" % e, "消息无法编码为 JSON：%s" % e) from None
    limit = limit_of(msg.get("kind") if isinstance(msg, dict) else None)
    if len(data) > limit:
        raise _too_big(len(data), limit)
    return data


def loads(payload, kind="message", limit=None):
    """The JSON object in ``payload`` (bytes or str) with ``"v": 1``, or ``WireError``; over
    ``limit`` bytes (default: the kind's, :func:`limit_of`) it is refused ``too_big``."""
    limit = limit_of(kind) if limit is None else limit
    if isinstance(payload, (bytes, bytearray, memoryview)):
        payload = bytes(payload)
        if len(payload) > limit:
            raise _too_big(len(payload), limit)
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as e:
            raise WireError("bad_json", "%s: payload is not UTF-8 (byte %d)" % (kind, e.start),
                            "%s：消息不是 UTF-8 编码（第 %d 字节）" % (kind, e.start), field="payload") from None
    elif isinstance(payload, str):
        text = payload
        if len(text) > limit:  # characters ≤ bytes, so a cheap first cut
            raise _too_big(len(text), limit)
    else:
        raise WireError("bad_json", "%s: payload must be bytes, not %s" % (kind, type(payload).__name__),
                        "%s：消息必须是字节串" % kind, field="payload")
    try:
        # Deep nesting, NaN, huge numbers, NUL and lone surrogates are refused here: a message
        # the venue stores must encode as UTF-8 and never make a reader recurse.
        msg = parse_json(text, kind, max_bytes=limit)
    except InputError as e:
        code = "bad_json" if e.code in ("bad_json", "too_deep") else "bad_field"
        raise WireError(code, e.en, e.zh, field=e.path or "payload") from None
    if not isinstance(msg, dict):
        raise WireError("not_object", "%s: payload must be a JSON object, not %s" % (kind, type(msg).__name__),
                        "%s：消息必须是 JSON 对象" % kind, field="payload")
    return msg


# ---- field checks -----------------------------------------------------------------------------

class _Msg:
    """One message under check: typed getters whose errors name ``kind: field``."""

    def __init__(self, kind, payload):
        self.kind = kind
        self.m = payload if isinstance(payload, dict) else loads(payload, kind)
        v = self.m.get("v")
        if type(v) is not int or v != 1:
            raise WireError("bad_version", "%s: v: this hub/venue speaks version 1, got %r" % (kind, v),
                            "%s：v：本系统使用协议版本 1，收到 %r" % (kind, v), field="v")

    def fail(self, field, en, zh, code="bad_field"):
        raise WireError(code, "%s: %s: %s" % (self.kind, field, en), "%s：%s：%s" % (self.kind, field, zh), field=field)

    def get(self, field, required=True):
        if field not in self.m:
            if required:
                self.fail(field, "missing", "缺少该字段", "missing_field")
            return None
        return self.m[field]

    def int(self, field, lo=0, required=True, null=False, value=None, name=None):
        v = self.get(field, required) if name is None else value
        name = name or field
        if v is None and (null or (not required and name == field and field not in self.m)):
            return v
        if type(v) is not int or v < lo or v > 2 ** 53:
            self.fail(name, "must be an integer of %d or more%s, not %r" % (lo, " or null" if null else "", v),
                      "必须是不小于 %d 的整数%s，而不是 %r" % (lo, "或 null" if null else "", v))
        return v

    def bool(self, field, required=True):
        v = self.get(field, required)
        if v is None and not required:
            return v
        if type(v) is not bool:
            self.fail(field, "must be true or false, not %r" % (v,), "必须是 true 或 false，而不是 %r" % (v,))
        return v

    def str(self, field, required=True, pattern=None, null=False, limit=_TEXT_MAX, value=None, name=None, what=None):
        v = self.get(field, required) if name is None else value
        name = name or field
        if v is None and (null or (not required and name == field and field not in self.m)):
            return v
        if not isinstance(v, str) or len(v) > limit or (pattern is not None and not pattern.match(v)):
            what = what or ("text of at most %d characters" % limit)
            self.fail(name, "must be %s%s, not %.80r" % (what, " or null" if null else "", v),
                      "必须是%s%s，而不是 %.80r" % (what, "或 null" if null else "", v))
        return v

    def seat(self, field, required=True, null=False, value=None, name=None):
        v = self.get(field, required) if name is None else value
        name = name or field
        if v is None and (null or (not required and name == field and field not in self.m)):
            return v
        if v not in SEATS or not isinstance(v, str):
            self.fail(name, "must be a seat E, N, W or S%s, not %.40r" % (" or null" if null else "", v),
                      "必须是座位 E、N、W、S%s，而不是 %.40r" % ("或 null" if null else "", v))
        return v

    def obj(self, field, required=True, null=False, value=None, name=None):
        v = self.get(field, required) if name is None else value
        name = name or field
        if v is None and (null or (not required and name == field and field not in self.m)):
            return v
        if not isinstance(v, dict):
            self.fail(name, "must be a JSON object%s, not %.40r" % (" or null" if null else "", v),
                      "必须是 JSON 对象%s" % ("或 null" if null else ""))
        return v

    def list(self, field, required=True, value=None, name=None, limit=10000):
        v = self.get(field, required) if name is None else value
        name = name or field
        if v is None and not required and name == field and field not in self.m:
            return v
        if not isinstance(v, list) or len(v) > limit:
            self.fail(name, "must be a list of at most %d items, not %.40r" % (limit, v),
                      "必须是最多 %d 项的列表" % limit)
        return v

    def equal(self, field, expected, what):
        v = self.m.get(field)
        if expected is not None and v != expected:
            self.fail(field, "is %.40r but the topic says %s %r" % (v, what, expected),
                      "为 %.40r，但主题中的%s是 %r" % (v, what, expected), "wrong_sender")


def _ident(msg, field, required=True):
    return msg.str(field, required, pattern=_ID, limit=32, what="1-32 characters of A-Z a-z 0-9 - _")


def _table(msg, field="table", value=None, name=None):
    return msg.str(field, pattern=_TEXT_ID, limit=64, what="1-64 printable characters", value=value, name=name)


def _hub_header(msg, hub):
    _ident(msg, "hub")
    msg.equal("hub", hub, "hub")
    _table(msg)


def _outbox_header(msg, kind, hub):
    if msg.get("kind") != kind:
        msg.fail("kind", "must be %r on this topic, not %.40r" % (kind, msg.m.get("kind")),
                 "此主题上必须是 %r" % kind, "bad_kind")
    msg.str("epoch", pattern=_EPOCH, limit=16, what="16 lowercase hex digits")
    msg.int("n", 1)
    _hub_header(msg, hub)
    msg.int("at", 0)
    _chain(msg)


def _chain(msg):
    """``chain``: the head of the hub's event log when the message was made,
    ``{"table": <table id in the log>, "seq": n, "hash": <64 hex>}``.  Every hub of this version
    sends it; a message without it (an older hub) is taken, but anchors nothing."""
    chain = msg.obj("chain", required=False)
    if chain is None:
        return
    extra = sorted(set(chain) - {"table", "seq", "hash"})
    if extra:
        msg.fail("chain", "has fields other than table, seq, hash: %.80s" % ", ".join(map(str, extra)),
                 "只能有 table、seq、hash 三项：%.80s" % "、".join(map(str, extra)))
    _table(msg, value=chain.get("table"), name="chain.table")
    msg.int(None, 0, value=chain.get("seq"), name="chain.seq")
    msg.str(None, value=chain.get("hash"), name="chain.hash", pattern=_HEX64, limit=64, what="64 lowercase hex digits")


def check_status(payload, hub=None):
    """``hub/<hub>/status``: ``{"v":1,"hub","table","online",["at"],["fw"]}`` (the will has no ``at``).

    ``hub``, when given (from the topic), must equal the message's ``hub``.
    """
    m = _Msg("status", payload)
    _hub_header(m, hub)
    m.bool("online")
    m.int("at", 0, required=False)
    m.str("fw", required=False, limit=64)
    return m.m


def check_live(payload, hub=None):
    """``hub/<hub>/live``: the public table snapshot (venue contract § Live snapshot)."""
    m = _Msg("live", payload)
    _hub_header(m, hub)
    m.int("at", 0)
    screen = m.get("screen")
    if screen not in LIVE_SCREENS or not isinstance(screen, str):
        m.fail("screen", "must be one of %s, not %.40r" % (", ".join(LIVE_SCREENS), screen),
               "必须是 %s 之一" % "、".join(LIVE_SCREENS))
    for f in ("round", "group", "deal", "board", "turn"):
        m.int(f, 0, required=False, null=True)
    m.int("deals_done", 0, required=False)
    m.int("unacked", 0, required=False)
    m.bool("started", required=False)
    m.str("game", required=False, null=True, pattern=_ID, limit=32, what="a game id")
    boards = m.list("boards", required=False, limit=1000)
    for i, b in enumerate(boards or ()):
        m.int(None, 1, value=b, name="boards[%d]" % i)
    for i, s in enumerate(m.list("to_act", required=False, limit=4) or ()):
        m.seat(None, value=s, name="to_act[%d]" % i)
    clock = m.obj("clock", required=False, null=True)
    if clock is not None:
        for i, s in enumerate(m.list(None, value=clock.get("seats"), name="clock.seats", limit=4)):
            m.seat(None, value=s, name="clock.seats[%d]" % i)
        m.int(None, 0, value=clock.get("ms"), name="clock.ms")
    m.obj("paused", required=False, null=True)
    seats = m.obj("seats")
    for s, v in seats.items():
        m.seat(None, value=s, name="seats key")
        m.obj(None, value=v, name="seats.%s" % s)
    for i, p in enumerate(m.list("plays", required=False, limit=2000) or ()):
        p = m.obj(None, value=p, name="plays[%d]" % i)
        m.seat(None, value=p.get("seat"), name="plays[%d].seat" % i)
    shown = m.obj("shown", required=False)
    for s in shown or ():
        m.seat(None, value=s, name="shown key")
    return m.m


def _row(m, i, row, top):
    name = "rows[%d]" % i
    row = m.obj(None, value=row, name=name)
    m.str(None, value=row.get("result_id"), name=name + ".result_id", limit=200, what="a result id")
    seat = m.seat(None, value=row.get("seat"), name=name + ".seat")
    m.str(None, value=row.get("player"), name=name + ".player", pattern=_TEXT_ID, limit=64,
          what="a player id of 1-64 printable characters")
    score = row.get("score")
    if type(score) is not int or abs(score) > 2 ** 31:
        m.fail(name + ".score", "must be an integer, not %.40r" % (score,), "必须是整数")
    m.int(None, 0, value=row.get("think_ms"), name=name + ".think_ms")
    m.int(None, 0, value=row.get("auto_moves"), name=name + ".auto_moves")
    if type(row.get("bot")) is not bool:
        m.fail(name + ".bot", "must be true or false, not %.40r" % (row.get("bot"),), "必须是 true 或 false")
    for f in ("round", "group", "board", "table", "deal_hash"):
        if row.get(f) != top[f]:
            m.fail(name + "." + f, "is %.40r but the result says %.40r" % (row.get(f), top[f]),
                   "为 %.40r，但结果中是 %.40r" % (row.get(f), top[f]), "inconsistent")
    return seat


def check_result(payload, hub=None):
    """``hub/<hub>/result``: one finished board, its rows (one per seat) and its record: a
    one-deal game's ``{"deal", "actions", "result"}``, a match game's ``Match.record()``
    (``"match": true`` and ``deals``, every deal's record)."""
    m = _Msg("result", payload)
    _outbox_header(m, "result", hub)
    for f in ("round", "group", "board"):
        m.int(f, 1)
    m.int("deal", 0)
    m.str("deal_hash", pattern=_HEX64, limit=64, what="64 lowercase hex digits")
    rows = m.list("rows", limit=4)
    if not rows:
        m.fail("rows", "must list the deal's rows, one per seat", "必须列出每个座位的成绩")
    seats = [_row(m, i, r, m.m) for i, r in enumerate(rows)]
    if len(set(seats)) != len(seats):
        m.fail("rows", "names a seat twice: %s" % ", ".join(seats), "座位重复：%s" % "、".join(seats), "inconsistent")
    rec = m.obj("record")
    if rec.get("match") is True:  # a match game's board: the match's record, every deal's record inside
        m.str(None, value=rec.get("game"), name="record.game", pattern=_ID, limit=32, what="a game id")
        deals = m.list(None, value=rec.get("deals"), name="record.deals", limit=1000)
        if not deals:
            m.fail("record.deals", "must list the match's deals", "必须列出本场比赛的每副牌")
        for i, d in enumerate(deals):
            d = m.obj(None, value=d, name="record.deals[%d]" % i)
            m.obj(None, value=d.get("deal"), name="record.deals[%d].deal" % i)
            m.list(None, value=d.get("actions"), name="record.deals[%d].actions" % i)
        return m.m
    m.obj(None, value=rec.get("deal"), name="record.deal")
    for i, a in enumerate(m.list(None, value=rec.get("actions"), name="record.actions")):
        m.obj(None, value=a, name="record.actions[%d]" % i)
    m.obj(None, value=rec.get("result"), name="record.result")
    return m.m


def check_alert(payload, hub=None):
    """``hub/<hub>/alert``: ``alert`` is one of :data:`ALERT_KINDS`; its own fields are free but ``seat``
    (when present) must be a seat."""
    m = _Msg("alert", payload)
    _outbox_header(m, "alert", hub)
    a = m.get("alert")
    if a not in ALERT_KINDS or not isinstance(a, str):
        m.fail("alert", "must be one of %s, not %.40r" % (", ".join(ALERT_KINDS), a),
               "必须是 %s 之一" % "、".join(ALERT_KINDS), "bad_kind")
    m.seat("seat", required=False, null=True)
    return m.m


def check_reply(payload, hub=None):
    """``hub/<hub>/reply``: ``{"v":1,"id","ok":true}`` or ``{"v":1,"id","ok":false,"code","en","zh"}``."""
    m = _Msg("reply", payload)
    m.str("id", pattern=_MSG_ID, limit=64, what="a control id (1-64 of A-Z a-z 0-9 - _)")
    if not m.bool("ok"):
        m.str("code", pattern=_ID, limit=32, what="an error code")
        m.str("en")
        m.str("zh")
    return m.m


def check_ack(payload):
    """``venue/ack/<hub>``: ``{"v":1,"epoch":<16 hex>,"upto":n}`` (n ≥ 0)."""
    m = _Msg("ack", payload)
    m.str("epoch", pattern=_EPOCH, limit=16, what="16 lowercase hex digits")
    m.int("upto", 0)
    return m.m


def check_round(payload):
    """``venue/round/<hub>`` (retained): who plays which seat, the boards and each board's deal
    hash (``deal_hashes``, keyed by the board number as text).  Never the round key: that comes
    with the round's start (``check_control``), so no deal can be derived before its round; a
    field this version does not know (``round_key`` among them) is refused.

    >>> spec = {"v": 1, "id": "s1", "round": 1, "group": 1, "game": rules_.DEFAULT_GAME, "table": "7", "boards": [1],
    ...         "deal_hashes": {"1": "ab" * 32}, "players": {"E": {"id": "P1", "name": "A", "no": 1}}}
    >>> check_round(spec)["deal_hashes"]["1"][:4]
    'abab'
    >>> check_round(dict(spec, round_key="cd" * 32))
    Traceback (most recent call last):
    ...
    paizhuo.mqtt.wire.WireError: round: round_key: is not a round spec field (a round key travels only with the start)
    """
    m = _Msg("round", payload)
    for f in sorted(m.m):
        if f not in ROUND_FIELDS:
            m.fail(f, "is not a round spec field%s" % (" (a round key travels only with the start)"
                                                       if f == "round_key" else ""),
                   "不是轮次安排的字段%s" % ("（轮次密钥只随开始指令发送）" if f == "round_key" else ""),
                   "unknown_field")
    m.str("id", pattern=_MSG_ID, limit=64, what="a spec id (1-64 of A-Z a-z 0-9 - _)")
    m.int("round", 1)
    m.int("group", 1)
    m.str("game", pattern=_ID, limit=32, what="a game id")
    _table(m)
    boards = m.list("boards", limit=1000)
    if not boards:
        m.fail("boards", "must list the round's boards", "必须列出本轮的牌号")
    for i, b in enumerate(boards):
        m.int(None, 1, value=b, name="boards[%d]" % i)
    if len(set(boards)) != len(boards):
        m.fail("boards", "lists a board twice", "牌号重复")
    hashes = m.obj("deal_hashes")
    if set(hashes) != {str(b) for b in boards}:
        m.fail("deal_hashes", "must give one hash for each board %s, keyed by the board number as text, not %.200r"
               % (boards, list(hashes)[:20]), "必须为每个牌号各给一个哈希（键为牌号文本）", "inconsistent")
    for b in boards:
        m.str(None, value=hashes[str(b)], name="deal_hashes.%d" % b, pattern=_HEX64, limit=64,
              what="64 lowercase hex digits")
    players = m.obj("players")
    if not players:
        m.fail("players", "must name the player of each seat", "必须给出每个座位的选手")
    for s, p in players.items():
        m.seat(None, value=s, name="players key")
        p = m.obj(None, value=p, name="players.%s" % s)
        m.str(None, value=p.get("id"), name="players.%s.id" % s, pattern=_TEXT_ID, limit=64, what="a player id")
        m.str(None, value=p.get("name"), name="players.%s.name" % s, limit=64)
        if p.get("no") is not None:
            m.int(None, 0, value=p.get("no"), name="players.%s.no" % s)
        if "bot" in p and type(p["bot"]) is not bool:
            m.fail("players.%s.bot" % s, "must be true or false", "必须是 true 或 false")
    # The rules the venue plays under: the engine's Rules.to_dict() (every option by name).
    rules = m.obj("rules", required=False, null=True)
    if rules is not None:
        try:
            registered = rules_.game(m.m["game"])
        except ValueError:
            m.fail("game", "%.40r has no rules engine, so its rules cannot be checked" % (m.m["game"],),
                   "项目 %.40r 没有规则引擎，无法检查其规则" % (m.m["game"],), "unknown_game")
        try:
            registered.engine.Rules.from_dict(rules)
        except (ValueError, TypeError) as e:
            m.fail("rules", "are not %s's rule options: %s" % (m.m["game"], getattr(e, "en", None) or e),
                   "不是 %s 的规则选项：%s" % (m.m["game"], getattr(e, "zh", None) or e), "bad_rules")
    moves = m.obj("moves", required=False, null=True)
    for s, mv in (moves or {}).items():
        m.seat(None, value=s, name="moves key")
        if mv is not None:
            mv = m.obj(None, value=mv, name="moves.%s" % s)
            _table(m, value=mv.get("table"), name="moves.%s.table" % s)
            m.seat(None, value=mv.get("seat"), name="moves.%s.seat" % s)
    return m.m


def check_control(payload):
    """``venue/control/<hub>``: ``{"v":1,"id","op",...}`` with the fields each op needs."""
    m = _Msg("control", payload)
    m.str("id", pattern=_MSG_ID, limit=64, what="a control id (1-64 of A-Z a-z 0-9 - _)")
    op = m.get("op")
    if op not in CONTROL_OPS or not isinstance(op, str):
        m.fail("op", "must be one of %s, not %.40r" % (", ".join(CONTROL_OPS), op),
               "必须是 %s 之一" % "、".join(CONTROL_OPS), "bad_control")
    if op == "start":
        m.int("round", 1)
        m.str("round_key", pattern=_HEX64, limit=64, what="64 lowercase hex digits (the round's key)")
    elif op == "pause":
        m.str("by")
        m.str("reason", required=False)
    elif op == "resume":
        m.str("by")
    elif op == "ack_call":
        m.seat("seat")
        m.str("by")
    elif op == "replace":
        m.seat("seat")
        _ident(m, "dev")
        m.str("by")
        m.str("reason", required=False)
    elif op == "note":
        m.seat("seat", null=True)
        m.str("en")
        m.str("zh")
    elif op == "end_board":  # a referee's forfeit: the round's boards end at the table, unplayed
        m.int("round", 1)
        m.str("by")
        m.str("reason")
    return m.m


def check_standings(payload):
    """``venue/standings`` (retained): a JSON object with ``"v": 1``; its body is the venue's."""
    return _Msg("standings", payload).m


def check_records(payload):
    """``venue/records/<round>`` (retained): a JSON object with ``"v": 1``; its body is the venue's."""
    return _Msg("records", payload).m


def check_tables(payload):
    """``venue/tables`` (retained): the public table feed, what hall displays may show while a
    round is played — ``{"v":1,"round","at","tables":[{"table","round","online","boards",
    "boards_done","state"}]}`` (``state`` one of :data:`TABLE_STATES`).  Nothing in it names a
    board, a card or a score: a board's content is public only when every table has played it
    (docs/venue.md § What is public when), so any other field is refused.

    >>> check_tables({"v": 1, "round": 1, "at": 5, "tables": [{"table": "1", "round": 1, "online": True,
    ...               "boards": 4, "boards_done": 1, "state": "playing"}]})["tables"][0]["state"]
    'playing'
    >>> check_tables({"v": 1, "round": 1, "at": 5, "tables": [{"table": "1", "round": 1, "online": True,
    ...               "boards": 4, "boards_done": 1, "state": "playing", "board": 2}]})
    Traceback (most recent call last):
    ...
    paizhuo.mqtt.wire.WireError: tables: tables[0].board: is not a field of the public table feed
    """
    m = _Msg("tables", payload)
    m.int("round", 0)
    m.int("at", 0)
    for i, t in enumerate(m.list("tables", limit=10000)):
        name = "tables[%d]" % i
        t = m.obj(None, value=t, name=name)
        for f in sorted(t):
            if f not in TABLE_FIELDS:
                m.fail("%s.%s" % (name, f), "is not a field of the public table feed", "不是公开桌况的字段",
                       "unknown_field")
        _table(m, value=t.get("table"), name=name + ".table")
        m.int(None, 0, value=t.get("round"), name=name + ".round", null=True)
        if t.get("online") is not None and type(t.get("online")) is not bool:
            m.fail(name + ".online", "must be true, false or null", "必须是 true、false 或 null")
        m.int(None, 0, value=t.get("boards"), name=name + ".boards")
        m.int(None, 0, value=t.get("boards_done"), name=name + ".boards_done")
        if t.get("state") not in TABLE_STATES or not isinstance(t.get("state"), str):
            m.fail(name + ".state", "must be one of %s, not %.40r" % (", ".join(TABLE_STATES), t.get("state")),
                   "必须是 %s 之一" % "、".join(TABLE_STATES))
    return m.m


_HUB_CHECKS = {"status": check_status, "live": check_live, "result": check_result, "alert": check_alert,
               "reply": check_reply}
_VENUE_CHECKS = {"ack": check_ack, "round": check_round, "control": check_control, "standings": check_standings,
                 "records": check_records, "tables": check_tables}


def check(event, topic, payload):
    """Parse ``topic`` and check ``payload`` as the message that topic carries: ``(Topic, message)``.

    A hub message must name the hub of its topic (so a message cannot claim another hub).

    >>> t, msg = check("demo", "paizhuo/v1/demo/hub/T07/reply", b'{"v":1,"id":"c1","ok":true}')
    >>> t.hub, msg["ok"]
    ('T07', True)
    >>> check("demo", "paizhuo/v1/demo/hub/T07/status", b'{"v":1,"hub":"T08","table":"8","online":true}')
    Traceback (most recent call last):
    ...
    paizhuo.mqtt.wire.WireError: status: hub: is 'T08' but the topic says hub 'T07'
    """
    t = parse_topic(event, topic)
    if t.side == "hub":
        return t, _HUB_CHECKS[t.leaf](payload, t.hub)
    return t, _VENUE_CHECKS[t.leaf](payload)
