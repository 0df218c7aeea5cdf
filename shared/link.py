"""Seat link codec (hub ↔ seat board): framing, HMAC tags, message checks, sequence rules.

Pure code, shared by the hub (CPython) and the seat firmware (MicroPython): it takes bytes
and returns messages.  No I/O, no clock, no randomness — nonces come from the caller.
docs/protocol.md is the full description for staff; this is the short one:

- A frame is one line ``JSON_BYTES + b"\\t" + TAG + b"\\n"``, at most ``MAX_FRAME`` bytes.
  TAG is 64 lowercase hex chars, HMAC-SHA256(key, JSON_BYTES) over the exact bytes sent
  (MicroPython dicts are unordered: never re-serialise a message to check its tag).
- ``challenge`` (hub, s=0) is tagged with the empty key, ``hello`` (seat, s=0) with the
  seat's device key, and every later frame with the session key from :func:`session_key`.
- :class:`Session` numbers outgoing frames 1, 2, 3, … and accepts exactly last+1 incoming.

A handshake and one intent, both sides in one process:

>>> dev_key = bytes(range(32))
>>> hub_n, seat_n = "00" * 16, "11" * 16
>>> line = encode({"t": "challenge", "s": 0, "n": hub_n, "hub": "T07", "v": 1}, b"")
>>> decode(line, b"")["n"] == hub_n
True
>>> hello = {"t": "hello", "s": 0, "dev": "S-0001", "fw": "0.2.0", "board": "host",
...          "n": seat_n, "hn": hub_n}
>>> line = encode(hello, dev_key)
>>> peek(line)["dev"]                     # the hub looks up this device's key ...
'S-0001'
>>> decode(line, dev_key)["n"] == seat_n  # ... and checks the tag with it
True
>>> k = session_key(dev_key, hub_n, seat_n)
>>> hub, seat = Session(k, "seat"), Session(k, "hub")
>>> frame = seat.seal({"t": "intent", "turn": 0, "a": {"type": "pass"}})
>>> hub.open(frame)["a"]
{'type': 'pass'}
>>> hub.open(frame)
Traceback (most recent call last):
...
paizhuo_shared.link.LinkError: Frame 1 was already received (replay); it is ignored
"""

import binascii
import hashlib
import json

MAX_FRAME = 4096  # bytes per frame, newline included
VERSION = 1  # the ``v`` of a challenge
SEATS = ("E", "N", "W", "S")  # play order, as the engine's SEATS
KEY_BYTES = 32  # device keys are 32 random bytes, provisioned as 64 hex chars
NONCE_HEX = 32  # nonces are 16 random bytes written as 32 lowercase hex chars
MAX_CARDS = 27  # the largest hand of the three games (掼蛋 deals 27)
_LABEL = b"paizhuo-link-v1|"
_HEX = "0123456789abcdef"
_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

# The compact form both interpreters write; CPython also refuses NaN/Infinity (MicroPython
# cannot read them) and writes UTF-8 instead of \\u escapes (Chinese names: 3 bytes, not 6).
try:
    json.dumps(0, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    _CPYTHON_JSON = True
except TypeError:
    _CPYTHON_JSON = False


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _dumps(msg):
    if _CPYTHON_JSON:
        return json.dumps(msg, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return json.dumps(msg, separators=(",", ":"))


# ---- errors -------------------------------------------------------------------------------

# Standard texts per code, one "code|en|zh" a line.  Codes the hub produces (unknown_device,
# no_session, stale_turn, paused, no_deal) live here too so both sides show the same words.
# One string rather than a dict of tuples: on MicroPython every str object costs heap
# beyond its text (measured on the unix port: 3.4 KB as a dict, 1.7 KB as one string).
_TEXTS = """
too_long|Frame longer than 4096 bytes; it was discarded|数据帧超过 4096 字节，已丢弃
not_frame|Not a link frame (expected JSON, a tab and a 64-hex-digit tag)|不是有效的数据帧（应为 JSON、制表符和 64 位十六进制校验码）
bad_tag|Frame tag does not match: wrong key or an old session; the seat reconnects|数据帧校验失败：密钥不对或会话已过期，座位将重新连接
bad_json|Frame body is not valid UTF-8 JSON|数据帧内容不是有效的 UTF-8 JSON
bad_message|Message is malformed|消息格式不正确
replay|Frame was already received (replay); it is ignored|数据帧重复（重放），已忽略
seq_gap|Frames were lost (sequence gap); the seat reconnects|数据帧丢失（序号不连续），座位将重新连接
unknown_device|This seat board is not registered at this table; call a referee|本桌未登记此座位设备，请叫裁判
no_session|No open session: the seat reconnects|没有已建立的会话，座位将重新连接
stale_turn|Too late: the game has moved on; choose again|操作已过时：牌局已进行到下一步，请重新选择
paused|The table is paused by the referee; wait for the restart|裁判已暂停本桌，请等待恢复
no_deal|No deal is running at this table|本桌当前没有进行中的牌局
bad_key|Device key must be 32 bytes (64 hex characters); re-provision the board|设备密钥必须是 32 字节（64 个十六进制字符），请重新配置设备
"""


def _lookup(table, key):
    """(en, zh) of ``key`` in a "key|en|zh" table, or None."""
    i = table.find("\n" + key + "|")
    if i < 0:
        return None
    i += len(key) + 2
    j = table.find("|", i)
    return table[i:j], table[j + 1:table.find("\n", j)]


def standard_text(code):
    """(en, zh): the standard texts of a reject code, or None for an unknown code.

    >>> standard_text("stale_turn")[1]
    '操作已过时：牌局已进行到下一步，请重新选择'
    """
    return _lookup(_TEXTS, code)


class LinkError(ValueError):
    """A frame or message the link refuses.  ``code`` for machines, ``en``/``zh`` for people.

    ``LinkError(code)`` takes the standard texts (:func:`standard_text`); pass ``en``/``zh``
    to say more precisely what was wrong.  ``bad_key`` is a configuration error and is
    never sent on the wire; every other code is a reject code (docs/protocol.md).

    >>> LinkError("paused").to_dict()["zh"]
    '裁判已暂停本桌，请等待恢复'
    """

    def __init__(self, code, en=None, zh=None):
        std = _lookup(_TEXTS, code) or ("Link error " + str(code), "连接错误 " + str(code))
        self.code = code
        self.en = en or std[0]
        self.zh = zh or std[1]
        super().__init__(self.en)

    def to_dict(self):
        return {"code": self.code, "en": self.en, "zh": self.zh}


def reject_message(err, ref=None):
    """The ``reject`` message (without ``s``) that answers a refused frame or intent.

    ``err`` is anything with ``code``/``en``/``zh`` (a LinkError, the engine's
    IllegalActionError); ``ref`` is the refused frame's ``s``, or None when unknown.

    >>> reject_message(LinkError("replay"), 4)["ref"]
    4
    """
    return {"t": "reject", "code": err.code, "en": err.en, "zh": err.zh, "ref": ref}


def _bad(en, zh):
    return LinkError("bad_message", "Malformed message: " + en, "消息格式不正确：" + zh)


# ---- HMAC-SHA256 (RFC 2104; MicroPython has no hmac module) -------------------------------

def _pads(key):
    """The inner and outer padded keys of RFC 2104 for SHA-256 (block size 64)."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = bytes(key) + bytes(64 - len(key))
    return bytes(b ^ 0x36 for b in key), bytes(b ^ 0x5C for b in key)


def _mac(pads, msg):
    inner = hashlib.sha256(pads[0])
    inner.update(msg)
    outer = hashlib.sha256(pads[1])
    outer.update(inner.digest())
    return outer.digest()


def hmac_sha256(key, msg):
    """HMAC-SHA256 of ``msg`` under ``key`` (both bytes), 32 raw bytes.

    >>> binascii.hexlify(hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog"))[:16]
    b'f7bc83f430538424'
    """
    return _mac(_pads(key), msg)


def _same(a, b):
    """Constant-time comparison of two digests (the time does not tell how many bytes match)."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


# ---- keys and nonces ----------------------------------------------------------------------

def is_nonce(value):
    """True for a nonce as the link writes it: 32 lowercase hex chars.

    >>> is_nonce("0123456789abcdef" * 2), is_nonce("0123456789ABCDEF" * 2)
    (True, False)
    """
    if not isinstance(value, str) or len(value) != NONCE_HEX:
        return False
    for ch in value:
        if ch not in _HEX:
            return False
    return True


def parse_key(text):
    """A device key from its 64-hex-char provisioning text; LinkError ``bad_key`` otherwise.

    >>> len(parse_key("ab" * 32))
    32
    """
    if isinstance(text, str) and len(text) == 2 * KEY_BYTES:
        low = text.lower()
        for ch in low:
            if ch not in _HEX:
                break
        else:
            return binascii.unhexlify(low)
    raise LinkError("bad_key")


def session_key(device_key, hub_nonce, seat_nonce):
    """K = HMAC-SHA256(device_key, b"paizhuo-link-v1|" + hub_nonce + b"|" + seat_nonce).

    Both nonces must be 32 lowercase hex chars (LinkError ``bad_message``); the device key
    32 bytes (LinkError ``bad_key``).

    >>> len(session_key(bytes(32), "0" * 32, "1" * 32))
    32
    """
    if not isinstance(device_key, (bytes, bytearray)) or len(device_key) != KEY_BYTES:
        raise LinkError("bad_key")
    if not is_nonce(hub_nonce) or not is_nonce(seat_nonce):
        raise _bad("nonces must be 32 lowercase hex characters", "随机数必须是 32 个小写十六进制字符")
    return hmac_sha256(device_key, _LABEL + hub_nonce.encode() + b"|" + seat_nonce.encode())


# ---- frames -------------------------------------------------------------------------------

def _is_int(v):
    # JSON true/false are bools, and bool is an int subclass on both interpreters.
    return isinstance(v, int) and not isinstance(v, bool)


def _check_head(msg):
    if not isinstance(msg, dict):
        raise _bad("a message must be a JSON object", "消息必须是 JSON 对象")
    t = msg.get("t")
    if not isinstance(t, str):
        raise _bad("field 't' (message type) is missing or not text", "缺少字段 t（消息类型）或不是文本")
    s = msg.get("s")
    if not _is_int(s) or s < 0:
        raise _bad("field 's' (sequence number) is missing or not a whole number >= 0",
                   "缺少字段 s（序号）或不是非负整数")


def _encode(msg, pads):
    _check_head(msg)
    try:
        body = _dumps(msg).encode()
    except (TypeError, ValueError, OverflowError):  # not JSON-able, NaN, lone surrogate
        raise _bad("message %s cannot be written as JSON" % msg["t"],
                   "消息 %s 无法写成 JSON" % msg["t"]) from None
    if len(body) + 66 > MAX_FRAME:
        raise LinkError("too_long", "Message %s is %d bytes; a frame holds at most %d" % (
            msg["t"], len(body) + 66, MAX_FRAME), "消息 %s 有 %d 字节，超过上限 %d 字节" % (
            msg["t"], len(body) + 66, MAX_FRAME))
    return b"".join((body, b"\t", binascii.hexlify(_mac(pads, body)), b"\n"))  # one copy of a 4 KB body


def encode(msg, key):
    """The frame line for ``msg`` (a dict with str ``t`` and int ``s``), ending in ``b"\\n"``.

    LinkError ``too_long`` if the frame would exceed MAX_FRAME, ``bad_message`` if ``msg``
    has no ``t``/``s`` or is not JSON-able.

    >>> line = encode({"t": "resync", "s": 3}, b"k")
    >>> line[:21], len(line), line[-1:]
    (b'{"t":"resync","s":3}\\t', 86, b'\\n')
    """
    return _encode(msg, _pads(key))


class _TooLong:
    def __repr__(self):
        return "TOO_LONG"


# What LineReader yields for an over-long line; decode/peek/Session.open answer it with
# LinkError too_long, so a reader can pass every item it gets straight on.
TOO_LONG = _TooLong()


def _split(line):
    """(body as a memoryview, raw 32-byte tag) of a frame line; LinkError too_long / not_frame."""
    if line is TOO_LONG:
        raise LinkError("too_long")
    if not isinstance(line, (bytes, bytearray)):
        raise LinkError("not_frame", "A frame must be bytes, not %s" % type(line).__name__,
                        "数据帧必须是字节串")
    n = len(line)
    if n and line[n - 1] == 10:  # b"\n"
        n -= 1
    if n + 1 > MAX_FRAME:
        raise LinkError("too_long")
    # The last tab must sit right before a 64-char tag; no search needed (and
    # MicroPython's bytearray has no rfind).
    cut = n - 65
    if cut < 0 or line[cut] != 9:  # b"\t"
        raise LinkError("not_frame", "Not a link frame: the line does not end in a tab and a 64-digit tag",
                        "不是有效的数据帧：行尾不是制表符加 64 位校验码")
    tag = bytes(line[cut + 1:n])
    try:
        raw = binascii.unhexlify(tag)
    except ValueError:
        raw = None
    # unhexlify also takes upper case; the link writes lower case only.
    if raw is None or binascii.hexlify(raw) != tag:
        raise LinkError("not_frame", "Not a link frame: the tag is not 64 lowercase hex digits",
                        "不是有效的数据帧：校验码不是 64 位小写十六进制")
    return memoryview(line)[:cut], raw  # a view: a 4 KB body is not copied


def _parse(body):
    try:
        if _CPYTHON_JSON:  # CPython reads NaN/Infinity unless told not to; JSON has neither
            msg = json.loads(str(body, "utf-8"), parse_constant=_no_constant)
        else:  # MicroPython parses the buffer in place and checks its UTF-8
            msg = json.loads(body)
    except UnicodeError:
        raise LinkError("bad_json", "Frame body is not valid UTF-8", "数据帧内容不是有效的 UTF-8") from None
    except (ValueError, RuntimeError):  # RuntimeError: CPython's RecursionError (deep nesting)
        raise LinkError("bad_json", "Frame body is not valid JSON", "数据帧内容不是有效的 JSON") from None
    except MemoryError:  # MicroPython on deep nesting, or a frame too big for what is free
        raise LinkError("bad_json", "Frame body could not be parsed: out of memory (nested too deep?)",
                        "数据帧内容无法解析：内存不足（嵌套过深？）") from None
    _check_head(msg)
    return msg


def _decode(line, pads):
    body, raw = _split(line)
    if not _same(_mac(pads, body), raw):
        raise LinkError("bad_tag")
    return _parse(body)


def decode(line, key):
    """The message of a frame line after checking its tag under ``key``; LinkError otherwise.

    Checks in this order: length, tab and tag shape (``too_long``, ``not_frame``), HMAC
    (``bad_tag``), UTF-8 and JSON (``bad_json``), an object with int ``s`` and str ``t``
    (``bad_message``).  A trailing newline is optional.  Field checks are
    :func:`check_message`'s job.

    >>> decode(b'{"t":"resync","s":3}\\t' + b"0" * 64, b"k")
    Traceback (most recent call last):
    ...
    paizhuo_shared.link.LinkError: Frame tag does not match: wrong key or an old session; the seat reconnects
    """
    return _decode(line, _pads(key))


def peek(line):
    """The message of a frame line WITHOUT checking its tag: only to read a hello's ``dev``.

    Same errors as :func:`decode` except ``bad_tag``.  Never act on what peek returns
    beyond choosing the key to decode with.
    """
    return _parse(_split(line)[0])


# ---- message checks -----------------------------------------------------------------------

# Fields of each message type as name, kind, name, kind, … (flat: one tuple object per
# type, which MicroPython's heap prefers to one per field); ``_fits`` says what a kind accepts and
# _KINDS says it in words for the error.  The tables are the contract's (docs/protocol.md).
SEAT_MESSAGES = {
    "hello": ("dev", "id", "fw", "fw", "board", "id", "n", "nonce", "hn", "hn"),
    "intent": ("turn", "count", "a", "action"),
    "resync": (),
    "call": ("why", "why"),  # the one optional field
    "ack": ("upto", "count"),
}
HUB_MESSAGES = {
    "challenge": ("n", "nonce", "hub", "id", "v", "version"),
    "welcome": ("seat", "seat", "table", "name", "event", "name", "lang", "lang", "player", "player?"),
    "state": ("screen", "screen", "view", "object?", "turn", "count?", "clock", "clock?",
              "players", "players", "result", "object?", "seatmap", "seatmap?"),
    "event": ("events", "events", "view", "object?", "turn", "count", "clock", "clock"),
    "clock": ("clock", "clock"),
    "reject": ("code", "code", "en", "text", "zh", "text", "ref", "count?"),
    "result": ("result", "object"),
    "seatmap": ("seatmap", "seatmap"),
}
# kind|en|zh: what a field of that kind must be (a "kind?" field also takes null).
_KINDS = """
id|1 to 32 characters of A-Z a-z 0-9 - _|1 到 32 个字符（A-Z a-z 0-9 - _）
fw|text of 1 to 32 characters|1 到 32 个字符的文本
name|text of 1 to 64 characters|1 到 64 个字符的文本
code|text of 1 to 32 characters|1 到 32 个字符的文本
why|text of at most 100 characters|不超过 100 个字符的文本
text|text|文本
nonce|32 lowercase hex characters|32 个小写十六进制字符
hn|32 lowercase hex characters or ""|32 个小写十六进制字符或空文本
count|a whole number >= 0|非负整数
seat|a seat E, N, W or S|座位 E、N、W 或 S
lang|zh or en|zh 或 en
screen|waiting, deal, result or paused|waiting、deal、result 或 paused
object|an object|对象
player|a player {"id", "name"}|选手 {"id", "name"}
players|an object of seat: {"id", "name"}|以座位为键、值为 {"id", "name"} 的对象
clock|a clock {"seats": [...], "ms": whole number >= 0, "paused": true/false}|时钟 {"seats": [...], "ms": 非负整数, "paused": true/false}
seatmap|a seat map {"table", "seat", "player", "next"}|座位表 {"table", "seat", "player", "next"}
events|a list of objects|对象列表
cards|a list of 1 to 27 card codes|1 到 27 个牌码的列表
yes|true or false|true 或 false
type|show, double, play or pass|show、double、play 或 pass
"""


def _is_text(v, lo, hi):
    return isinstance(v, str) and lo <= len(v) <= hi


def _is_seat(v):
    return isinstance(v, str) and v in SEATS


def _is_player(v):
    return isinstance(v, dict) and isinstance(v.get("name"), str) and (
        isinstance(v.get("id"), str) or _is_int(v.get("id")))


def _is_clock(v):
    if not (isinstance(v, dict) and _is_int(v.get("ms")) and v["ms"] >= 0
            and isinstance(v.get("paused"), bool) and isinstance(v.get("seats"), list)):
        return False
    for s in v["seats"]:
        if not _is_seat(s):
            return False
    return True


def _is_seatmap(v):
    if not (isinstance(v, dict) and isinstance(v.get("table"), str) and _is_seat(v.get("seat"))):
        return False
    nxt = v.get("next")
    player = v.get("player")
    return (player is None or _is_player(player)) and (nxt is None or (
        isinstance(nxt, dict) and isinstance(nxt.get("table"), str) and _is_seat(nxt.get("seat"))))


def _fits(kind, v):
    """True if ``v`` is a value of ``kind`` (see _KINDS)."""
    if v is None and kind[-1] == "?":
        return True
    if kind == "id":
        if not _is_text(v, 1, 32):
            return False
        for ch in v:
            if ch not in _ID_CHARS:
                return False
        return True
    if kind == "fw" or kind == "code":
        return _is_text(v, 1, 32)
    if kind == "name":
        return _is_text(v, 1, 64)
    if kind == "why":
        return _is_text(v, 0, 100)
    if kind == "text":
        return isinstance(v, str)
    if kind == "nonce":
        return is_nonce(v)
    if kind == "hn":
        return v == "" or is_nonce(v)
    if kind[:5] == "count":
        return _is_int(v) and v >= 0
    if kind == "seat":
        return _is_seat(v)
    if kind == "lang":
        return v == "zh" or v == "en"
    if kind == "screen":
        return v in ("waiting", "deal", "result", "paused") and isinstance(v, str)
    if kind[:6] == "object":
        return isinstance(v, dict)
    if kind == "player?":
        return _is_player(v)
    if kind == "players":
        if not isinstance(v, dict):
            return False
        for k in v:
            if not _is_seat(k) or not _is_player(v[k]):
                return False
        return True
    if kind[:5] == "clock":
        return _is_clock(v)
    if kind[:7] == "seatmap":
        return _is_seatmap(v)
    if kind == "events":
        if not isinstance(v, list):
            return False
        for e in v:
            if not isinstance(e, dict):
                return False
        return True
    raise ValueError("unknown field kind " + kind)  # a bug in the tables above


def _wrong(t, name, kind):
    opt = kind[-1] == "?"
    en, zh = _lookup(_KINDS, kind[:-1] if opt else kind)
    if opt:
        en, zh = en + " or null", zh + "或 null"
    return _bad("%s field '%s' must be %s" % (t, name, en), "%s 的字段 %s 必须是%s" % (t, name, zh))


def _action(a):
    """Refuse an intent's ``a`` that is not the engine's Action.to_dict() without ``seat``."""
    if not isinstance(a, dict):
        raise _wrong("intent", "a", "object")
    kind = a.get("type")
    if kind == "show" or kind == "double":
        if not isinstance(a.get("yes"), bool):
            raise _wrong("intent", "a.yes", "yes")
        allowed = ("type", "yes")
    elif kind == "play":
        cards = a.get("cards")
        ok = isinstance(cards, list) and 1 <= len(cards) <= MAX_CARDS
        if ok:
            for c in cards:
                if not _is_text(c, 1, 4):
                    ok = False
        if not ok:
            raise _wrong("intent", "a.cards", "cards")
        allowed = ("type", "cards")
    elif kind == "pass":
        allowed = ("type",)
    else:
        raise _wrong("intent", "a.type", "type")
    for k in a:
        if k not in allowed:
            raise _bad("intent action %s has an unknown field '%s'" % (kind, k),
                       "intent 的动作 %s 含有未知字段 %s" % (kind, k))


def _check_fields(msg, t, fields, strict):
    for i in range(0, len(fields), 2):
        name, kind = fields[i], fields[i + 1]
        if name not in msg:
            if kind == "why":
                continue
            raise _bad("%s needs field '%s'" % (t, name), "%s 缺少字段 %s" % (t, name))
        v = msg[name]
        if kind == "action":
            _action(v)
        elif kind == "version":
            if not _is_int(v) or v != VERSION:
                raise _bad("the hub speaks link version %s, this firmware version %d: update the firmware" % (
                    v, VERSION), "主机的连接协议版本为 %s，本设备为 %d：请更新固件" % (v, VERSION))
        elif not _fits(kind, v):
            raise _wrong(t, name, kind)
    if (t == "hello" or t == "challenge") and msg["s"] != 0:
        raise _bad("%s must have s 0" % t, "%s 的 s 必须是 0" % t)
    if strict:
        for k in msg:
            if k != "t" and k != "s":
                for i in range(0, len(fields), 2):
                    if k == fields[i]:
                        break
                else:
                    raise _bad("%s has an unknown field '%s'" % (t, k), "%s 含有未知字段 %s" % (t, k))


def check_message(msg, sender):
    """Refuse (LinkError ``bad_message``) a message whose fields do not match the contract.

    ``sender`` is ``"hub"`` or ``"seat"``: who sent ``msg``.  Seat messages may carry no
    field beyond their table's; hub messages may (a newer hub can add fields).

    >>> check_message({"t": "intent", "s": 1, "turn": 3, "a": {"type": "show", "yes": 1}}, "seat")
    Traceback (most recent call last):
    ...
    paizhuo_shared.link.LinkError: Malformed message: intent field 'a.yes' must be true or false
    """
    _check_head(msg)
    if sender == "seat":
        table = SEAT_MESSAGES
    elif sender == "hub":
        table = HUB_MESSAGES
    else:
        raise ValueError("sender must be 'hub' or 'seat', not %r" % (sender,))
    t = msg["t"]
    fields = table.get(t)
    if fields is None:
        raise _bad("unknown %s message type '%s' (known: %s)" % (sender, t, ", ".join(sorted(table))),
                   "未知的%s消息类型 %s（应为 %s）" % ("座位" if sender == "seat" else "主机", t, "、".join(sorted(table))))
    # Unknown fields from the hub are ignored (a newer hub can add fields without
    # reflashing every seat); the seat→hub direction, the hostile one, is strict.
    _check_fields(msg, t, fields, sender == "seat")


# ---- sessions -----------------------------------------------------------------------------

class Session:
    """One session after the handshake: the key K and both sequence counters.

    ``peer`` is who is at the other end: ``"seat"`` on the hub, ``"hub"`` on a seat.
    ``next_out`` is the ``s`` the next sealed frame gets (1 first), ``last_in`` the ``s``
    of the last frame accepted (0 before any).  A refused frame changes neither.
    """

    def __init__(self, key, peer):
        if peer != "seat" and peer != "hub":
            raise ValueError("peer must be 'seat' or 'hub', not %r" % (peer,))
        self.peer = peer
        self.me = "hub" if peer == "seat" else "seat"
        self.next_out = 1
        self.last_in = 0
        self._pads = _pads(key)  # RFC 2104 pads once per session, not once per frame

    def seal(self, msg):
        """Set ``msg["s"]``, check it as our own message, and return its frame line.

        The number is used up only when the frame is made: a LinkError leaves
        ``next_out`` unchanged.
        """
        msg["s"] = self.next_out
        check_message(msg, self.me)
        line = _encode(msg, self._pads)
        self.next_out += 1
        return line

    def open(self, line):
        """The checked message of a frame from the peer; LinkError if refused.

        Order: :func:`decode` under K, :func:`check_message`, then the sequence rule:
        ``s <= last_in`` → ``replay``, ``s > last_in + 1`` → ``seq_gap``.
        """
        msg = _decode(line, self._pads)
        check_message(msg, self.peer)
        s = msg["s"]
        if s <= self.last_in:
            raise LinkError("replay", "Frame %d was already received (replay); it is ignored" % s,
                            "数据帧 %d 重复（重放），已忽略" % s)
        if s != self.last_in + 1:
            raise LinkError("seq_gap", "Frames were lost: expected %d, got %d; the seat reconnects" % (
                self.last_in + 1, s), "数据帧丢失：应为第 %d 帧，收到第 %d 帧，座位将重新连接" % (
                self.last_in + 1, s))
        self.last_in = s
        return msg


# ---- line reader --------------------------------------------------------------------------

class LineReader:
    """Splits a byte stream into frame lines, in one buffer allocated up front.

    ``feed(data)`` takes any chunk (bytes or bytearray) and returns the lines it completed,
    without their newline (an empty tuple when none, so the common case allocates nothing).
    Blank lines are skipped.  A line longer than MAX_FRAME is dropped up to its newline and
    yields :data:`TOO_LONG` once, as soon as it is too long.

    >>> r = LineReader()
    >>> r.feed(b"ab"), r.feed(b"c\\nde\\n\\nf")
    ((), [b'abc', b'de'])
    >>> r.feed(b"x" * 5000 + b"\\ng\\n")   # the pending "f" line grows too long
    [TOO_LONG, b'g']
    """

    def __init__(self, size=MAX_FRAME):
        self._buf = bytearray(size - 1)  # room for a line without its newline
        self._mv = memoryview(self._buf)
        self._n = 0
        self._drop = False  # inside an over-long line: discard up to its newline

    def feed(self, data):
        # Allocates nothing for a chunk that completes no line (measured on the unix port
        # with the heap locked); a completed line costs its bytes, the list and a view.
        out = ()
        cap = len(self._buf)
        src = None  # a view of data, made only to copy part of it
        i = 0
        end = len(data)
        while i < end:
            j = data.find(b"\n", i)
            stop = end if j < 0 else j
            if not self._drop:
                k = stop - i
                if self._n + k > cap:
                    self._drop = True
                    self._n = 0
                    if not out:
                        out = []
                    out.append(TOO_LONG)
                elif k:
                    if k == end:
                        self._buf[self._n:self._n + k] = data  # the whole chunk: no view needed
                    else:
                        if src is None:
                            src = memoryview(data)
                        self._buf[self._n:self._n + k] = src[i:stop]
                    self._n += k
            if j < 0:
                break
            if self._drop:
                self._drop = False
            elif self._n:
                if not out:
                    out = []
                out.append(bytes(self._mv[:self._n]))
                self._n = 0
            i = j + 1
        return out
