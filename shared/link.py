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

Heap (the seat's concern; measured on the 64-bit MicroPython unix port, where the module
comes from a ROMFS image and its strings stay there): every table here is one string
constant rather than dicts and tuples, and no code iterates a ``str`` (MicroPython interns
each character it yields, for good), so importing the codec costs about 5 KB of heap.
"""

import binascii
import hashlib
import json

try:
    from micropython import const
except ImportError:  # CPython: a constant is its value
    def const(x):
        return x

MAX_FRAME = 4096  # bytes per frame, newline included
VERSION = 1  # the ``v`` of a challenge
SEATS = "ENWS"  # play order, as the engine's SEATS (a str: on MicroPython a tuple constant
# of strings costs a str object per element on the heap)
KEY_BYTES = const(32)  # device keys are 32 random bytes, provisioned as 64 hex chars
NONCE_HEX = const(32)  # nonces are 16 random bytes written as 32 lowercase hex chars
MAX_CARDS = const(27)  # the largest hand any game deals (27)
_LABEL = b"paizhuo-link-v1|"

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
# One string rather than a dict of tuples or a literal per raise: on MicroPython
# a string constant stays in the firmware image, while every dict, tuple and str object
# costs heap (each string literal of a module costs about 40 bytes of it, even from ROM).
_TEXTS = """
too_long|Frame longer than 4096 bytes; it was discarded|数据帧超过 4096 字节，已丢弃
not_frame|Not a link frame (expected JSON, a tab and a 64-hex-digit tag)|不是有效的数据帧（应为 JSON、制表符和 64 位十六进制校验码）
bad_tag|Frame tag does not match (wrong key, or not sent by this board): it is ignored; a board that keeps getting this has a key the table does not know: call a referee|数据帧校验失败（密钥不对，或并非本板发出）：已忽略；若一直出现，说明本板密钥与本桌登记的不符，请叫裁判
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
# The detail texts (with %-arguments) of more precise errors, "label|en|zh" a line, looked up
# by line number: the _D_* constants below (folded by MicroPython's compiler; a short key
# string per line would be a qstr each).  Keep the two in the same order.
_DETAILS = """bad|Malformed message: |消息格式不正确：
nonces|nonces must be 32 lowercase hex characters|随机数必须是 32 个小写十六进制字符
object|a message must be a JSON object|消息必须是 JSON 对象
t|field 't' (message type) is missing or not text|缺少字段 t（消息类型）或不是文本
s|field 's' (sequence number) is missing or not a whole number >= 0|缺少字段 s（序号）或不是非负整数
unjson|message %s cannot be written as JSON|消息 %s 无法写成 JSON
size|Message %s is %d bytes; a frame holds at most %d|消息 %s 有 %d 字节，超过上限 %d 字节
bytes|A frame must be bytes, not %s|数据帧必须是字节串（不是 %s）
tab|Not a link frame: the line does not end in a tab and a 64-digit tag|不是有效的数据帧：行尾不是制表符加 64 位校验码
hex|Not a link frame: the tag is not 64 lowercase hex digits|不是有效的数据帧：校验码不是 64 位小写十六进制
utf8|Frame body is not valid UTF-8|数据帧内容不是有效的 UTF-8
json|Frame body is not valid JSON|数据帧内容不是有效的 JSON
deep|Frame body could not be parsed: out of memory (nested too deep?)|数据帧内容无法解析：内存不足（嵌套过深？）
field|%s field '%s' must be %s|%s 的字段 %s 必须是%s
null| or null|或 null
action|intent action %s has an unknown field '%s'|intent 的动作 %s 含有未知字段 %s
type|unknown %s message type '%s' (known: %s)|未知的%s消息类型 %s（应为 %s）
needs|%s needs field '%s'|%s 缺少字段 %s
version|the hub speaks link version %s, this firmware version %d: update the firmware|主机的连接协议版本为 %s，本设备为 %d：请更新固件
zero|%s must have s 0|%s 的 s 必须是 0
extra|%s has an unknown field '%s'|%s 含有未知字段 %s
replay|Frame %d was already received (replay); it is ignored|数据帧 %d 重复（重放），已忽略
gap|Frames were lost: expected %d, got %d; the seat reconnects|数据帧丢失：应为第 %d 帧，收到第 %d 帧，座位将重新连接
code|Link error %s|连接错误 %s
"""
_D_BAD = const(0)
_D_NONCES = const(1)
_D_OBJECT = const(2)
_D_T = const(3)
_D_S = const(4)
_D_UNJSON = const(5)
_D_SIZE = const(6)
_D_BYTES = const(7)
_D_TAB = const(8)
_D_HEX = const(9)
_D_UTF8 = const(10)
_D_JSON = const(11)
_D_DEEP = const(12)
_D_FIELD = const(13)
_D_NULL = const(14)
_D_ACTION = const(15)
_D_TYPE = const(16)
_D_NEEDS = const(17)
_D_VERSION = const(18)
_D_ZERO = const(19)
_D_EXTRA = const(20)
_D_REPLAY = const(21)
_D_GAP = const(22)
_D_CODE = const(23)


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
        std = _lookup(_TEXTS, code) or _texts(_D_CODE, (code,))
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


def _texts(n, args=()):
    """(en, zh) of detail line ``n`` (a _D_* constant) with its %-arguments filled in."""
    i = 0
    while n:
        i = _DETAILS.index("\n", i) + 1
        n -= 1
    i = _DETAILS.index("|", i) + 1  # past the label
    j = _DETAILS.index("|", i)
    return _DETAILS[i:j] % args, _DETAILS[j + 1:_DETAILS.index("\n", j)] % args


def _fail(code, n, args=()):
    """A LinkError ``code`` with detail text ``n`` (bad_message gets its prefix)."""
    en, zh = _texts(n, args)
    if code == "bad_message":
        pre = _texts(_D_BAD)
        en, zh = pre[0] + en, pre[1] + zh
    return LinkError(code, en, zh)


def _bad(n, args=()):
    return _fail("bad_message", n, args)


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

def _chars_ok(text, extra):
    """True if every character of ``text`` is a lowercase hex digit, or, with ``extra``, any
    of ``A-Z a-z 0-9 - _`` (a device id).  Iterates the UTF-8 bytes: iterating the ``str``
    would intern each character on MicroPython."""
    for b in text.encode():
        if not (48 <= b <= 57 or 97 <= b <= 102 or (extra and (65 <= b <= 90 or 97 <= b <= 122 or b == 45 or b == 95))):
            return False
    return True


def is_nonce(value):
    """True for a nonce as the link writes it: 32 lowercase hex chars.

    >>> is_nonce("0123456789abcdef" * 2), is_nonce("0123456789ABCDEF" * 2)
    (True, False)
    """
    return isinstance(value, str) and len(value) == NONCE_HEX and _chars_ok(value, False)


def parse_key(text):
    """A device key from its 64-hex-char provisioning text; LinkError ``bad_key`` otherwise.

    >>> len(parse_key("ab" * 32))
    32
    """
    if isinstance(text, str) and len(text) == 2 * KEY_BYTES:
        low = text.lower()
        if _chars_ok(low, False):
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
        raise _bad(_D_NONCES)
    return hmac_sha256(device_key, _LABEL + hub_nonce.encode() + b"|" + seat_nonce.encode())


# ---- frames -------------------------------------------------------------------------------

def _check_head(msg):
    if not isinstance(msg, dict):
        raise _bad(_D_OBJECT)
    if not isinstance(msg.get("t"), str):
        raise _bad(_D_T)
    s = msg.get("s")
    # type() is int: JSON true/false are bools, and bool is an int subclass on both interpreters.
    if type(s) is not int or s < 0:
        raise _bad(_D_S)


def _encode(msg, pads):
    _check_head(msg)
    try:
        body = _dumps(msg).encode()
    except (TypeError, ValueError, OverflowError):  # not JSON-able, NaN, lone surrogate
        raise _bad(_D_UNJSON, (msg["t"],)) from None
    n = len(body) + 66
    if n > MAX_FRAME:
        raise _fail("too_long", _D_SIZE, (msg["t"], n, MAX_FRAME))
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
    """(body as a memoryview, raw 32-byte tag) of a frame line; LinkError too_long / not_frame.

    ``line`` may be bytes, a bytearray or a memoryview (LineReader hands a seat its lines
    in place, as views of its buffer): nothing of the body is copied."""
    if line is TOO_LONG:
        raise LinkError("too_long")
    if not isinstance(line, (bytes, bytearray, memoryview)):
        raise _fail("not_frame", _D_BYTES, (type(line).__name__,))
    n = len(line)
    if n and line[n - 1] == 10:  # b"\n"
        n -= 1
    if n + 1 > MAX_FRAME:
        raise LinkError("too_long")
    # The last tab must sit right before a 64-char tag; no search needed (and
    # MicroPython's bytearray has no rfind).
    cut = n - 65
    if cut < 0 or line[cut] != 9:  # b"\t"
        raise _fail("not_frame", _D_TAB)
    tag = bytes(line[cut + 1:n])
    try:
        raw = binascii.unhexlify(tag)
    except ValueError:
        raw = None
    # unhexlify also takes upper case; the link writes lower case only.
    if raw is None or binascii.hexlify(raw) != tag:
        raise _fail("not_frame", _D_HEX)
    return memoryview(line)[:cut], raw  # a view: a 4 KB body is not copied


def _parse(body):
    try:
        if _CPYTHON_JSON:  # CPython reads NaN/Infinity unless told not to; JSON has neither
            msg = json.loads(str(body, "utf-8"), parse_constant=_no_constant)
        else:  # MicroPython parses the buffer in place and checks its UTF-8
            msg = json.loads(body)
    except UnicodeError:
        raise _fail("bad_json", _D_UTF8) from None
    except (ValueError, RuntimeError):  # RuntimeError: CPython's RecursionError (deep nesting)
        raise _fail("bad_json", _D_JSON) from None
    except MemoryError:  # MicroPython on deep nesting, or a frame too big for what is free
        raise _fail("bad_json", _D_DEEP) from None
    _check_head(msg)
    return msg


def _decode(line, pads, prune=None):
    body, raw = _split(line)
    if not _same(_mac(pads, body), raw):
        raise LinkError("bad_tag")
    if prune is not None:
        prune(body)
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
    paizhuo_shared.link.LinkError: Frame tag does not match (wrong key, or not sent by this board): it is ignored; a board that keeps getting this has a key the table does not know: call a referee
    """
    return _decode(line, _pads(key))


def peek(line):
    """The message of a frame line WITHOUT checking its tag: only to read a hello's ``dev``.

    Same errors as :func:`decode` except ``bad_tag``.  Never act on what peek returns
    beyond choosing the key to decode with.
    """
    return _parse(_split(line)[0])


# ---- message checks -----------------------------------------------------------------------

# The fields of each message type (docs/protocol.md), one type a line:
#   <sender> <t> <field>:<kind> …      sender h = hub → seat, s = seat → hub
# A kind written ``?kind`` also takes null.  ``_fits`` says what each kind accepts and _KINDS
# says it in words for the error.  One string constant, read in place: dicts of tuples cost
# the seat about 3 KB of heap on the 64-bit unix port.
_MESSAGES = """
h challenge n:nonce hub:id v:version
h welcome seat:seat table:name event:name lang:lang player:?player
h state screen:screen view:?object turn:?count clock:?clock players:players result:?object seatmap:?seatmap
h event events:events view:?object turn:count clock:clock
h clock clock:clock
h reject code:code en:text zh:text ref:?count
h result result:object
h seatmap seatmap:seatmap
h note en:text zh:text
h meanings turn:count cards:cards meanings:names
s hello dev:id fw:fw board:id n:nonce hn:hn
s intent turn:count a:action
s resync
s call why:why
s ack upto:count
s checkin no:count
s describe turn:count cards:cards
"""
# kind|en|zh: what a field of that kind must be (a "?kind" field also takes null).
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
screen|waiting, checkin, deal, result or paused|waiting、checkin、deal、result 或 paused
object|an object|对象
player|a player {"id", "name"} (optional "no": whole number >= 0, "bot": true/false)|选手 {"id", "name"}（可选 "no"：非负整数，"bot"：true/false）
players|an object of seat: player {"id", "name"}|以座位为键、值为选手 {"id", "name"} 的对象
clock|a clock {"seats": [...], "ms": whole number >= 0, "paused": true/false}|时钟 {"seats": [...], "ms": 非负整数, "paused": true/false}
seatmap|a seat map {"table", "seat", "player", "next": {"table", "seat"} or null, optional "checked": true/false}|座位表 {"table", "seat", "player", "next"：{"table", "seat"} 或 null，可选 "checked"：true/false}
events|a list of objects|对象列表
cards|a list of 1 to 27 card codes|1 到 27 个牌码的列表
names|a list of at most 27 texts of 1 to 32 characters|最多 27 个、每个 1 到 32 个字符的文本列表
yes|true or false|true 或 false
card|a card code|牌码
groups|a list of 1 to 4 groups of 3 card codes|1 到 4 组、每组 3 个牌码的列表
type|show, double, play, tribute, return, discard, chi, peng, hu or pass|show、double、play、tribute、return、discard、chi、peng、hu 或 pass
"""


def _text(v, lo, hi):
    return isinstance(v, str) and lo <= len(v) <= hi


def _seat(v):
    return isinstance(v, str) and len(v) == 1 and v in SEATS


def _player(v):
    # ``no`` (the player number typed at check-in) and ``bot`` (an AI player) are optional;
    # a hub without a venue sends neither.  ``no`` may be null (a player without a number).
    if not (isinstance(v, dict) and isinstance(v.get("name"), str) and (
            isinstance(v.get("id"), str) or type(v.get("id")) is int)):
        return False
    no = v.get("no")
    return (no is None or (type(no) is int and no >= 0)) and (
        "bot" not in v or isinstance(v["bot"], bool))


def _fits(kind, v):
    """True if ``v`` is a value of ``kind`` (see _KINDS; a seat is one of SEATS)."""
    if kind == "id":
        return _text(v, 1, 32) and _chars_ok(v, True)
    if kind == "fw" or kind == "code":
        return _text(v, 1, 32)
    if kind == "name":
        return _text(v, 1, 64)
    if kind == "why":
        return _text(v, 0, 100)
    if kind == "text":
        return isinstance(v, str)
    if kind == "nonce":
        return is_nonce(v)
    if kind == "hn":
        return v == "" or is_nonce(v)
    if kind == "count":
        return type(v) is int and v >= 0
    if kind == "seat":
        return _seat(v)
    if kind == "lang":
        return v == "zh" or v == "en"
    if kind == "screen":
        return (v == "waiting" or v == "checkin" or v == "deal" or v == "result"
                or v == "paused")
    if kind == "object":
        return isinstance(v, dict)
    if kind == "player":
        return _player(v)
    if kind == "players":
        if not isinstance(v, dict):
            return False
        for k in v:
            if not (_seat(k) and _player(v[k])):
                return False
        return True
    if kind == "clock":
        if not (isinstance(v, dict) and type(v.get("ms")) is int and v["ms"] >= 0
                and isinstance(v.get("paused"), bool) and isinstance(v.get("seats"), list)):
            return False
        for s in v["seats"]:
            if not _seat(s):
                return False
        return True
    if kind == "seatmap":
        if not (isinstance(v, dict) and isinstance(v.get("table"), str) and _seat(v.get("seat"))):
            return False
        p = v.get("player")
        nxt = v.get("next")
        return (p is None or _player(p)) and (nxt is None or (
            isinstance(nxt, dict) and isinstance(nxt.get("table"), str) and _seat(nxt.get("seat")))) and (
            "checked" not in v or isinstance(v["checked"], bool))
    if kind == "cards" or kind == "names":  # card codes; a describe's meanings ("straight:7")
        if not (isinstance(v, list) and (kind == "names" or len(v) >= 1) and len(v) <= MAX_CARDS):
            return False
        for c in v:
            if not _text(c, 1, 4 if kind == "cards" else 32):
                return False
        return True
    if kind == "events":
        if not isinstance(v, list):
            return False
        for e in v:
            if not isinstance(e, dict):
                return False
        return True
    raise ValueError("unknown field kind " + kind)  # a bug in the tables above


def _wrong(t, name, kind, opt=False):
    en, zh = _lookup(_KINDS, kind)
    if opt:
        null = _texts(_D_NULL)
        en, zh = en + null[0], zh + null[1]
    e = _texts(_D_FIELD, (t, name, "%s"))
    pre = _texts(_D_BAD)
    return LinkError("bad_message", pre[0] + e[0] % en, pre[1] + e[1] % zh)


def _action(a):
    """Refuse an intent's ``a`` that is not the engine's Action.to_dict() without ``seat``."""
    if not isinstance(a, dict):
        raise _wrong("intent", "a", "object")
    kind = a.get("type")
    if kind == "show" or kind == "double":
        if not isinstance(a.get("yes"), bool):
            raise _wrong("intent", "a.yes", "yes")
        field = "yes"
    elif kind == "play" or kind == "tribute" or kind == "return":  # 进贡 and 还牌 give cards too
        if not _fits("cards", a.get("cards")):
            raise _wrong("intent", "a.cards", "cards")
        field = "cards"
    elif kind == "pass":
        field = None
    elif isinstance(kind, str) and " discard:a.card chi:a.groups peng: hu: ".find(" " + kind + ":") >= 0:
        # The claim game's: discard (one card out of the hand), 吃 (the group with the card out, then
        # the 比牌 groups), 碰 and 胡 (no card: the card out).  Its words are read from one
        # long string, not named: each short literal here would be a qstr on every seat,
        # for good, whatever game it plays (test_qstrs_stay_in_five_pools).
        i = " discard:a.card chi:a.groups peng: hu: ".find(" " + kind + ":") + len(kind) + 2
        name = " discard:a.card chi:a.groups peng: hu: "[i:" discard:a.card chi:a.groups peng: hu: ".find(" ", i)]
        field = name[2:] or None
        v = a.get(field) if field else None
        if field and len(field) == 4:  # card
            ok = _text(v, 1, 4)
        elif field:  # groups: 1 to 4 of 3 card codes
            ok = isinstance(v, list) and 1 <= len(v) <= 4
            for x in v if ok else ():
                ok = ok and isinstance(x, list) and len(x) == 3 and _fits("cards", x)
        else:
            ok = True
        if not ok:
            raise _wrong("intent", name, field)
    else:
        raise _wrong("intent", "a.type", "type")
    if len(a) != (1 if field is None else 2):  # the type and its one field: anything more is unknown
        for k in a:
            # a play may name its meaning when wild cards make it ambiguous ("straight:7")
            if k != "type" and k != field and not (k == "meaning" and kind == "play" and _text(a[k], 1, 32)):
                raise _bad(_D_ACTION, (kind, k))


def _types(sender):
    """The message types ``sender`` ("h"/"s") may send, sorted (for an error text)."""
    out = []
    for line in _MESSAGES.split("\n"):
        if line[:2] == sender + " ":
            out.append(line.split()[1])
    return sorted(out)


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
        who = "s"
    elif sender == "hub":
        who = "h"
    else:
        raise ValueError("sender must be 'hub' or 'seat', not %r" % (sender,))
    t = msg["t"]
    tbl = _MESSAGES
    # "\n<sender> <t>" followed by a space (fields) or the end of the line (none).  A type
    # with a space or newline in it could match across tokens or lines: never a type.
    head = "\n" + who + " " + t
    i = -1
    if " " not in t and "\n" not in t:
        i = tbl.find(head + " ")
        if i < 0:
            i = tbl.find(head + "\n")
    if i < 0:
        types = _types(who)
        e = _texts(_D_TYPE, (sender, t, ", ".join(types)))
        z = _texts(_D_TYPE, ("座位" if who == "s" else "主机", t, "、".join(types)))
        pre = _texts(_D_BAD)
        raise LinkError("bad_message", pre[0] + e[0], pre[1] + z[1])
    start = i + len(head) + 1
    end = tbl.find("\n", i + 1)
    # Walk "name:kind" tokens in place: slicing a name that exists as a qstr allocates nothing
    # on MicroPython; the kinds compared in _fits are qstrs too.
    i = start
    while i < end:
        j = tbl.find(" ", i, end)
        if j < 0:
            j = end
        c = tbl.find(":", i, j)
        name = tbl[i:c]
        opt = tbl.startswith("?", c + 1)
        kind = tbl[c + 2:j] if opt else tbl[c + 1:j]
        i = j + 1
        if name not in msg:
            if kind == "why":  # call's reason is the one optional field
                continue
            raise _bad(_D_NEEDS, (t, name))
        v = msg[name]
        if v is None and opt:
            continue
        if kind == "action":
            _action(v)
        elif kind == "version":
            if type(v) is not int or v != VERSION:
                raise _bad(_D_VERSION, (v, VERSION))
        elif not _fits(kind, v):
            raise _wrong(t, name, kind, opt)
    if (t == "hello" or t == "challenge") and msg["s"] != 0:
        raise _bad(_D_ZERO, (t,))
    # Unknown fields from the hub are ignored (a newer hub can add fields without
    # reflashing every seat); the seat→hub direction, the hostile one, is strict.
    if who == "s":
        for k in msg:
            if k != "t" and k != "s" and not _has_field(tbl, start, end, k):
                raise _bad(_D_EXTRA, (t, k))


def _has_field(tbl, i, end, k):
    """True if the field list tbl[i:end] names ``k``."""
    while i < end:
        c = tbl.find(":", i, end)
        if c < 0:
            return False
        if k == tbl[i:c]:
            return True
        i = tbl.find(" ", c, end)
        if i < 0:
            return False
        i += 1
    return False


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

    def open(self, line, prune=None):
        """The checked message of a frame from the peer; LinkError if refused.

        Order: :func:`decode` under K, :func:`check_message`, then the sequence rule:
        ``s <= last_in`` → ``replay``, ``s > last_in + 1`` → ``seq_gap``.  ``line`` may be
        a memoryview (parsed in place).  ``prune(body)``, if given, is called with the JSON
        bytes once the tag has checked out and before they are parsed: it may overwrite
        what its reader never uses with spaces (``line`` must then be writable; the seat
        blanks the parts of deal results it does not show, which its heap cannot spare).
        """
        msg = _decode(line, self._pads, prune)
        check_message(msg, self.peer)
        s = msg["s"]
        last = self.last_in
        if s <= last:
            raise _fail("replay", _D_REPLAY, (s,))
        if s != last + 1:
            raise _fail("seq_gap", _D_GAP, (last + 1, s))
        self.last_in = s
        return msg


# ---- line reader --------------------------------------------------------------------------

class LineReader:
    """Splits a byte stream into frame lines, in one buffer allocated up front.

    ``feed(data)`` takes any chunk (bytes, bytearray or memoryview) and returns the lines it
    completed, without their newline (an empty tuple when none, so the common case allocates
    nothing).  Blank lines are skipped.  A line longer than MAX_FRAME is dropped up to its
    newline and yields :data:`TOO_LONG` once, as soon as it is too long.

    ``feed(data, handle)`` instead calls ``handle(line)`` for each, with the line as a
    memoryview of the reader's own buffer — nothing is copied, and the view is valid only
    during the call (the seat parses its frames this way).  If ``handle`` raises, the rest
    of ``data`` is dropped.  ``reset()`` forgets a partial line (a new connection).

    >>> r = LineReader()
    >>> r.feed(b"ab"), r.feed(b"c\\nde\\n\\nf")
    ((), [b'abc', b'de'])
    >>> r.feed(b"x" * 5000 + b"\\ng\\n")   # the pending "f" line grows too long
    [TOO_LONG, b'g']
    >>> r.feed(memoryview(b"h\\ni\\n"), lambda line: print(bytes(line)))
    b'h'
    b'i'
    ()
    """

    def __init__(self, size=MAX_FRAME):
        # The buffer: a line handed to ``handle`` is ``buf[:len(line)]`` (read-only for
        # callers, except to overwrite the line in place while they handle it).
        self.buf = bytearray(size - 1)  # room for a line without its newline
        self._mv = memoryview(self.buf)
        self._n = 0  # bytes of the current line in buf
        self._drop = False  # inside an over-long line: discard up to its newline

    def reset(self):
        self._n = 0
        self._drop = False

    def feed(self, data, handle=None):
        # Each piece of data is copied into the buffer and the newline is searched there
        # (a memoryview has no find).  A chunk that completes no line allocates nothing
        # (measured on the unix port with the heap locked); a completed line costs a view
        # (and, without ``handle``, its bytes and the list).
        out = ()
        buf = self.buf
        cap = len(buf)
        i = 0
        end = len(data)
        while i < end:
            n = self._n
            if n == cap:  # the buffer is full: the next byte ends the line or makes it too long
                if data[i] != 10:
                    if not self._drop:
                        self._drop = True
                        if handle is None:
                            if not out:
                                out = []
                            out.append(TOO_LONG)
                        else:
                            self._n = 0
                            handle(TOO_LONG)
                    self._n = 0
                    continue
                j = n
                i += 1
            else:
                k = end - i
                if k > cap - n:
                    k = cap - n
                if i == 0 and k == end:
                    buf[n:n + k] = data  # the whole chunk: no slice of it needed
                else:
                    buf[n:n + k] = data[i:i + k]
                j = buf.find(b"\n", n, n + k)
                if j < 0:
                    self._n = n + k
                    i += k
                    continue
                i += j - n + 1  # up to the newline; what follows is copied again from data
            self._n = 0
            if self._drop:
                self._drop = False
            elif j:
                if handle is None:
                    if not out:
                        out = []
                    out.append(bytes(self._mv[:j]))
                else:
                    handle(self._mv[:j])
        return out
