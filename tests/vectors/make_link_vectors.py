"""Write tests/vectors/link_frames.jsonl: seat link vectors with real tags.

    .venv/bin/python tests/vectors/make_link_vectors.py          # rewrite the file
    .venv/bin/python tests/vectors/make_link_vectors.py --check  # exit 1 if the file is stale

The expectations do not come from ``paizhuo_shared.link`` (the code under test): tags
and session keys are made here with CPython's own ``hmac`` module, messages are
parsed with ``json``, and every error code is written by hand below.  The HMAC
cases are RFC 4231 test cases 1–4, 6 and 7 (case 5 truncates the output, which the
link never does); this script also checks them against ``hmac``.

Line format (tests/mpy/run_vectors.py ``check_link`` reads it), one case per line, ``op``:

- ``hmac``: ``key_hex``, ``msg_hex`` → ``mac_hex``.
- ``session``: ``key_hex``, ``hn``, ``n`` → ``k_hex`` or ``error``.
- ``encode``: ``key_hex``, ``msg`` (with ``pad`` [char, n], its ``why`` is char × n) → the frame decodes back to ``msg`` with a tag the
  runner recomputes, or ``error`` (the JSON bytes differ between interpreters, so the
  line itself is not fixed).
- ``decode`` / ``peek``: ``key_hex`` (decode), ``line`` → ``msg`` or ``error``; with
  ``sender`` the message must also pass ``check_message``.
- ``check``: ``sender``, ``msg`` → passes, or ``error``.
- ``open``: ``key_hex``, ``peer``, ``frames`` (each ``line`` → ``msg`` or ``error``, and
  ``last_in`` after it): one Session fed the frames in order.
- ``lines``: ``chunks`` fed to a LineReader → ``lines`` (null stands for TOO_LONG); the
  runner also feeds the same bytes in 7-byte pieces and one byte at a time.

A ``line`` or chunk is a list of parts: text (UTF-8), ``[text, n]`` (text repeated n
times) or ``{"hex": ...}`` (raw bytes).  Every case has a ``note``.
"""

import hashlib
import hmac
import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("link_frames.jsonl")

MAX_FRAME = 4096
DEV_KEY = bytes(range(32))  # the example device key of docs/protocol.md: 00 01 02 … 1f
OTHER_KEY = bytes(range(32, 64))
HN = "9f2c4e6a8b0d1f3e5a7c9b2d4f6e8a01"  # hub nonce
SN = "1c3e5a7b9d0f2e4c6a8b0d1f3e5a7c92"  # seat nonce
HN2 = "0123456789abcdef0123456789abcdef"  # a later handshake
SN2 = "fedcba9876543210fedcba9876543210"


def mac(key, body):
    return hmac.new(key, body, hashlib.sha256).digest()


def session_key(dev_key, hn, n):
    return mac(dev_key, b"paizhuo-link-v1|" + hn.encode() + b"|" + n.encode())


K = session_key(DEV_KEY, HN, SN)
K2 = session_key(DEV_KEY, HN2, SN2)


def dumps(msg):
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def squeeze(text):
    """Text as line parts with runs of 32+ equal characters as [char, n] (short vector lines:
    MicroPython reads each case into a 64 KB heap)."""
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        if j - i >= 32:
            out.append([text[i], j - i])
        elif out and isinstance(out[-1], str):
            out[-1] += text[i:j]
        else:
            out.append(text[i:j])
        i = j
    return out


def parts(body, key, tag=None):
    """The line parts of a frame with ``body`` (bytes or a message) tagged under ``key``."""
    if isinstance(body, dict):
        body = dumps(body).encode()
    tag = hmac.new(key, body, hashlib.sha256).hexdigest() if tag is None else tag
    try:
        head = squeeze(body.decode("utf-8"))
    except UnicodeDecodeError:
        head = [{"hex": body.hex()}]
    return head + ["\t" + tag + "\n"]


def padded(case, msg):
    """Put ``msg`` into ``case``, its long ``why`` written as ``pad`` [char, n] (see the runner)."""
    why = msg.get("why", "")
    if len(why) >= 32 and why == why[0] * len(why):
        msg = dict(msg)
        case["pad"] = [why[0], len(why)]
        msg["why"] = ""
    case["msg"] = msg
    return case


# ---- sample messages ----------------------------------------------------------------------

CLOCK = {"seats": ["E", "N", "W", "S"], "ms": 15000, "paused": False}
VIEW = {"seat": "E", "phase": "show", "hand": ["3D", "5C", "2S"], "counts": {"E": 13, "N": 13, "W": 13, "S": 13},
        "shown": {}, "trick": [], "reports": [], "to_act": ["E", "N", "W", "S"]}
PLAYER = {"id": "P012", "name": "王芳"}

SEAT_OK = [
    ("hello after a challenge", {"t": "hello", "s": 0, "dev": "S-0001", "fw": "0.2.0", "board": "host", "n": SN, "hn": HN}),
    ("hello before any challenge (hn empty)", {"t": "hello", "s": 0, "dev": "seat_7", "fw": "0.2.0", "board": "ref-s3", "n": SN, "hn": ""}),
    ("intent show yes", {"t": "intent", "s": 1, "turn": 0, "a": {"type": "show", "yes": True}}),
    ("intent double no", {"t": "intent", "s": 2, "turn": 5, "a": {"type": "double", "yes": False}}),
    ("intent play a pair", {"t": "intent", "s": 3, "turn": 9, "a": {"type": "play", "cards": ["3D", "3S"]}}),
    ("intent play 27 cards (Guandan's largest hand)", {"t": "intent", "s": 3, "turn": 9, "a": {"type": "play", "cards": ["x10"] * 27}}),
    ("intent pass", {"t": "intent", "s": 4, "turn": 12, "a": {"type": "pass"}}),
    ("resync", {"t": "resync", "s": 5}),
    ("call without why", {"t": "call", "s": 6}),
    ("call with why", {"t": "call", "s": 6, "why": "屏幕无响应"}),
    ("ack", {"t": "ack", "s": 7, "upto": 12}),
    ("checkin with the typed player number", {"t": "checkin", "s": 8, "no": 12}),
    ("checkin with number 0", {"t": "checkin", "s": 8, "no": 0}),
]

HUB_OK = [
    ("challenge", {"t": "challenge", "s": 0, "n": HN, "hub": "T07", "v": 1}),
    ("welcome without a player", {"t": "welcome", "s": 1, "seat": "E", "table": "7", "event": "demo", "lang": "zh", "player": None}),
    ("welcome with a player", {"t": "welcome", "s": 1, "seat": "S", "table": "12", "event": "2025 全国赛", "lang": "en", "player": PLAYER}),
    ("state during a deal", {"t": "state", "s": 2, "screen": "deal", "view": VIEW, "turn": 0, "clock": CLOCK,
                             "players": {"E": PLAYER, "N": {"id": 7, "name": "Li"}}, "result": None, "seatmap": None}),
    ("state while waiting: view, turn, clock may be null", {"t": "state", "s": 2, "screen": "waiting", "view": None, "turn": None,
                                                            "clock": None, "players": {}, "result": None,
                                                            "seatmap": {"table": "7", "seat": "E", "player": PLAYER, "next": None}}),
    ("event", {"t": "event", "s": 3, "events": [{"type": "decided", "phase": "show", "seat": "E"}], "view": VIEW, "turn": 1, "clock": CLOCK}),
    ("clock (paused)", {"t": "clock", "s": 4, "clock": {"seats": [], "ms": 0, "paused": True}}),
    ("reject with a ref", {"t": "reject", "s": 5, "code": "not_your_turn", "en": "It is not your turn", "zh": "还没轮到你", "ref": 3}),
    ("reject of an unreadable frame (ref null)", {"t": "reject", "s": 5, "code": "not_frame", "en": "x", "zh": "x", "ref": None}),
    ("result", {"t": "result", "s": 6, "result": {"places": ["E", "N", "W", "S"], "scores": {"E": 24}}}),
    ("seatmap with the next seat", {"t": "seatmap", "s": 7, "seatmap": {"table": "7", "seat": "E", "player": PLAYER,
                                                                         "next": {"table": "3", "seat": "W"}}}),
    ("hub messages may carry extra fields (a newer hub)", {"t": "clock", "s": 8, "clock": CLOCK, "game": "bigtwo"}),
    ("state checkin: player with no and bot, next seat, checked", {
        "t": "state", "s": 2, "screen": "checkin", "view": None, "turn": None, "clock": None,
        "players": {"E": {"id": "P012", "name": "李四", "no": 12, "bot": False}, "N": {"id": "AI1", "name": "AI", "no": None, "bot": True}},
        "result": None, "seatmap": {"table": "7", "seat": "E", "player": {"id": "P012", "name": "李四", "no": 12, "bot": False},
                                    "next": {"table": "3", "seat": "N"}, "checked": False}}),
    ("seatmap checked", {"t": "seatmap", "s": 7, "seatmap": {"table": "7", "seat": "E", "player": PLAYER, "next": None, "checked": True}}),
    ("note", {"t": "note", "s": 9, "en": "A referee is on the way", "zh": "裁判已收到，请稍候"}),
]


def _with(msg, **changes):
    out = dict(msg)
    for k, v in changes.items():
        if v is _DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


_DROP = object()
HELLO = SEAT_OK[0][1]
INTENT = {"t": "intent", "s": 1, "turn": 3, "a": {"type": "pass"}}
WELCOME = HUB_OK[1][1]
STATE = HUB_OK[3][1]
EVENT = HUB_OK[5][1]

SEAT_BAD = [
    ("not an object", [1, 2]),
    ("t missing", {"s": 1}),
    ("t not text", {"t": 5, "s": 1}),
    ("s missing", {"t": "resync"}),
    ("s is true, not a number", {"t": "resync", "s": True}),
    ("s is text", {"t": "resync", "s": "1"}),
    ("s is negative", {"t": "resync", "s": -1}),
    ("s is a float", {"t": "resync", "s": 1.0}),
    ("unknown seat type", {"t": "fold", "s": 1}),
    ("a hub type from a seat", {"t": "welcome", "s": 1, "seat": "E", "table": "7", "event": "e", "lang": "zh", "player": None}),
    ("hello with s 1", _with(HELLO, s=1)),
    ("hello dev empty", _with(HELLO, dev="")),
    ("hello dev with a space", _with(HELLO, dev="S 0001")),
    ("hello dev 33 chars", _with(HELLO, dev="S" * 33)),
    ("hello dev a number", _with(HELLO, dev=1)),
    ("hello dev missing", _with(HELLO, dev=_DROP)),
    ("hello fw missing", _with(HELLO, fw=_DROP)),
    ("hello board with a space", _with(HELLO, board="ref s3")),
    ("hello n upper case", _with(HELLO, n=SN.upper())),
    ("hello n 31 chars", _with(HELLO, n=SN[:31])),
    ("hello n missing", _with(HELLO, n=_DROP)),
    ("hello hn not a nonce", _with(HELLO, hn="xyz")),
    ("hello with an extra field", _with(HELLO, key="00" * 32)),
    ("intent turn true", _with(INTENT, turn=True)),
    ("intent turn negative", _with(INTENT, turn=-1)),
    ("intent turn text", _with(INTENT, turn="3")),
    ("intent turn missing", _with(INTENT, turn=_DROP)),
    ("intent a missing", _with(INTENT, a=_DROP)),
    ("intent a not an object", _with(INTENT, a="pass")),
    ("intent a type unknown", _with(INTENT, a={"type": "fold"})),
    ("intent a type missing", _with(INTENT, a={"cards": ["3D"]})),
    ("intent show yes is 1", _with(INTENT, a={"type": "show", "yes": 1})),
    ("intent double yes missing", _with(INTENT, a={"type": "double"})),
    ("intent play no cards", _with(INTENT, a={"type": "play", "cards": []})),
    ("intent play 28 cards", _with(INTENT, a={"type": "play", "cards": ["3D"] * 28})),
    ("intent play cards as one text", _with(INTENT, a={"type": "play", "cards": "3D 3S"})),
    ("intent play a card number", _with(INTENT, a={"type": "play", "cards": [1]})),
    ("intent play a 5-char card", _with(INTENT, a={"type": "play", "cards": ["3DDDD"]})),
    ("intent pass with cards", _with(INTENT, a={"type": "pass", "cards": ["3D"]})),
    ("intent names its seat (the hub fills it)", _with(INTENT, a={"type": "pass", "seat": "E"})),
    ("intent claims an auto move", _with(INTENT, a={"type": "pass", "auto": True})),
    ("intent with an extra field", _with(INTENT, seat="E")),
    ("resync with a field", {"t": "resync", "s": 1, "x": 1}),
    ("call why a number", {"t": "call", "s": 1, "why": 3}),
    ("call why 101 chars", {"t": "call", "s": 1, "why": "x" * 101}),
    ("ack upto missing", {"t": "ack", "s": 1}),
    ("ack upto true", {"t": "ack", "s": 1, "upto": True}),
    ("checkin no missing", {"t": "checkin", "s": 1}),
    ("checkin no negative", {"t": "checkin", "s": 1, "no": -1}),
    ("checkin no as text", {"t": "checkin", "s": 1, "no": "12"}),
    ("checkin no true", {"t": "checkin", "s": 1, "no": True}),
    ("checkin no a float", {"t": "checkin", "s": 1, "no": 12.0}),
    ("checkin with an extra field", {"t": "checkin", "s": 1, "no": 12, "seat": "E"}),
    ("a hub's note from a seat", {"t": "note", "s": 1, "en": "x", "zh": "x"}),
]

HUB_BAD = [
    ("unknown hub type", {"t": "prompt", "s": 1}),
    ("a seat type from the hub", {"t": "ack", "s": 1, "upto": 1}),
    ("challenge v 2 (firmware too old)", _with(HUB_OK[0][1], v=2)),
    ("challenge v true", _with(HUB_OK[0][1], v=True)),
    ("challenge s 1", _with(HUB_OK[0][1], s=1)),
    ("challenge hub id with a space", _with(HUB_OK[0][1], hub="T 07")),
    ("challenge n missing", _with(HUB_OK[0][1], n=_DROP)),
    ("welcome seat X", _with(WELCOME, seat="X")),
    ("welcome seat lower case", _with(WELCOME, seat="e")),
    ("welcome lang fr", _with(WELCOME, lang="fr")),
    ("welcome player a name only", _with(WELCOME, player="bob")),
    ("welcome player id true", _with(WELCOME, player={"id": True, "name": "x"})),
    ("welcome table empty", _with(WELCOME, table="")),
    ("welcome event missing", _with(WELCOME, event=_DROP)),
    ("welcome player missing (null is required)", _with(WELCOME, player=_DROP)),
    ("state screen unknown", _with(STATE, screen="lobby")),
    ("state view a list", _with(STATE, view=[])),
    ("state turn negative", _with(STATE, turn=-1)),
    ("state clock without ms", _with(STATE, clock={"seats": [], "paused": False})),
    ("state clock paused text", _with(STATE, clock={"seats": [], "ms": 0, "paused": "no"})),
    ("state clock seat Q", _with(STATE, clock={"seats": ["Q"], "ms": 0, "paused": False})),
    ("state clock ms true", _with(STATE, clock={"seats": [], "ms": True, "paused": False})),
    ("state players keyed by X", _with(STATE, players={"X": PLAYER})),
    ("state player without a name", _with(STATE, players={"E": {"id": "1"}})),
    ("state players missing", _with(STATE, players=_DROP)),
    ("state result a list", _with(STATE, result=[])),
    ("state seatmap next seat Z", _with(STATE, seatmap={"table": "7", "seat": "E", "player": None,
                                                        "next": {"table": "8", "seat": "Z"}})),
    ("event events not a list", _with(EVENT, events={})),
    ("event events hold a number", _with(EVENT, events=[1])),
    ("event turn null", _with(EVENT, turn=None)),
    ("event clock null", _with(EVENT, clock=None)),
    ("clock message clock true", {"t": "clock", "s": 1, "clock": True}),
    ("reject ref text", {"t": "reject", "s": 1, "code": "x", "en": "x", "zh": "x", "ref": "1"}),
    ("reject code empty", {"t": "reject", "s": 1, "code": "", "en": "x", "zh": "x", "ref": None}),
    ("reject zh missing", {"t": "reject", "s": 1, "code": "x", "en": "x", "ref": None}),
    ("result null", {"t": "result", "s": 1, "result": None}),
    ("seatmap null", {"t": "seatmap", "s": 1, "seatmap": None}),
    ("state player no as text", _with(STATE, players={"E": {"id": "P1", "name": "x", "no": "12"}})),
    ("state player no negative", _with(STATE, players={"E": {"id": "P1", "name": "x", "no": -1}})),
    ("state player no true", _with(STATE, players={"E": {"id": "P1", "name": "x", "no": True}})),
    ("state player bot 1", _with(STATE, players={"E": {"id": "P1", "name": "x", "bot": 1}})),
    ("state player bot null", _with(STATE, players={"E": {"id": "P1", "name": "x", "bot": None}})),
    ("seatmap checked text", {"t": "seatmap", "s": 1, "seatmap": {"table": "7", "seat": "E", "player": None, "next": None, "checked": "yes"}}),
    ("seatmap player no text", {"t": "seatmap", "s": 1, "seatmap": {"table": "7", "seat": "E", "player": {"id": "P1", "name": "x", "no": "1"}, "next": None}}),
    ("note zh missing", {"t": "note", "s": 1, "en": "x"}),
    ("note en a number", {"t": "note", "s": 1, "en": 1, "zh": "x"}),
    ("a seat's checkin from the hub", {"t": "checkin", "s": 1, "no": 12}),
]


# ---- cases --------------------------------------------------------------------------------

def hmac_cases():
    # RFC 4231 section 4: (case, key, data, HMAC-SHA256).
    rfc = [
        (1, bytes([0x0B] * 20), b"Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (2, b"Jefe", b"what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (3, bytes([0xAA] * 20), bytes([0xDD] * 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (4, bytes(range(1, 26)), bytes([0xCD] * 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (6, bytes([0xAA] * 131), b"Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (7, bytes([0xAA] * 131), b"This is a test using a larger than block-size key and a larger than block-size data."
                                 b" The key needs to be hashed before being used by the HMAC algorithm.",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]
    out = []
    for n, key, data, want in rfc:
        assert mac(key, data).hex() == want, "RFC 4231 case %d copied wrong" % n
        out.append({"op": "hmac", "key_hex": key.hex(), "msg_hex": data.hex(), "mac_hex": want,
                    "note": "RFC 4231 test case %d" % n})
    for note, key, data in [
        ("empty key and empty message (the challenge's key)", b"", b""),
        ("key of exactly one block (64 bytes) is used as is", bytes(range(64)), b"paizhuo"),
        ("key of 65 bytes is hashed first", bytes(range(65)), b"paizhuo"),
    ]:
        out.append({"op": "hmac", "key_hex": key.hex(), "msg_hex": data.hex(), "mac_hex": mac(key, data).hex(),
                    "note": note})
    return out


def session_cases():
    out = [{"op": "session", "key_hex": DEV_KEY.hex(), "hn": HN, "n": SN, "k_hex": K.hex(),
            "note": "the session key of docs/protocol.md's example"},
           {"op": "session", "key_hex": DEV_KEY.hex(), "hn": HN2, "n": SN2, "k_hex": K2.hex(),
            "note": "a new handshake gives a new key"},
           {"op": "session", "key_hex": DEV_KEY.hex(), "hn": SN, "n": HN, "k_hex": session_key(DEV_KEY, SN, HN).hex(),
            "note": "the nonces are not interchangeable"}]
    for note, key, hn, n, code in [
        ("hub nonce empty", DEV_KEY, "", SN, "bad_message"),
        ("seat nonce upper case", DEV_KEY, HN, SN.upper(), "bad_message"),
        ("hub nonce 33 chars", DEV_KEY, HN + "0", SN, "bad_message"),
        ("device key of 16 bytes", DEV_KEY[:16], HN, SN, "bad_key"),
        ("device key empty", b"", HN, SN, "bad_key"),
    ]:
        out.append({"op": "session", "key_hex": key.hex(), "hn": hn, "n": n, "error": code, "note": note})
    return out


def encode_cases():
    out = []
    for note, msg in SEAT_OK + HUB_OK:
        out.append({"op": "encode", "key_hex": K.hex(), "msg": msg, "note": "round trip: " + note})
    out.append({"op": "encode", "key_hex": "", "msg": HUB_OK[0][1], "note": "round trip under the empty key"})
    base = len(dumps({"t": "call", "s": 1, "why": ""}).encode()) + 66
    for size in (MAX_FRAME, MAX_FRAME + 1):
        big = {"t": "call", "s": 1, "why": "x" * (size - base)}
        assert len(dumps(big).encode()) + 66 == size
        case = {"op": "encode", "key_hex": K.hex(), "note": "a frame of %d bytes with its newline %s" % (
            size, "fits" if size == MAX_FRAME else "is too long")}
        if size > MAX_FRAME:
            case["error"] = "too_long"
        out.append(padded(case, big))
    for note, msg in [("no t", {"s": 1}), ("s true", {"t": "ack", "s": True, "upto": 1}),
                      ("s negative", {"t": "ack", "s": -2, "upto": 1}), ("not an object", ["t", "s"])]:
        out.append({"op": "encode", "key_hex": K.hex(), "msg": msg, "error": "bad_message", "note": "encode refuses: " + note})
    return out


def decode_cases():
    out = []
    for sender, table in (("seat", SEAT_OK), ("hub", HUB_OK)):
        for note, msg in table:
            key = DEV_KEY if msg["t"] == "hello" else b"" if msg["t"] == "challenge" else K
            out.append({"op": "decode", "key_hex": key.hex(), "line": parts(msg, key), "sender": sender, "msg": msg,
                        "note": "%s → %s: %s" % (sender, "hub" if sender == "seat" else "seat", note)})
    msg = {"t": "ack", "s": 1, "upto": 0}
    body = dumps(msg).encode()
    good = parts(msg, K)
    raw = K.hex()

    def case(note, line, error=None, key=K, ok=None):
        c = {"op": "decode", "key_hex": key.hex(), "line": line, "note": note}
        if error:
            c["error"] = error
            out.append(c)
        else:
            out.append(padded(c, ok))

    case("no trailing newline is fine", good[:1] + ["\t" + good[1][1:-1]], ok=msg)
    # Length: the frame may be MAX_FRAME bytes with its newline, not one more.
    for size, err in ((MAX_FRAME, None), (MAX_FRAME + 1, "too_long")):
        pad = size - len(b'{"t":"call","s":1,"why":""}') - 66
        m = {"t": "call", "s": 1, "why": "y" * pad}
        assert len(dumps(m).encode()) + 66 == size
        case("frame of %d bytes with its newline" % size, parts(m, K), err, ok=m)
    case("5000 bytes of x", [["x", 5000]], "too_long")
    case("too long is checked before the tag", [["x", MAX_FRAME], "\t", ["0", 64], "\n"], "too_long")
    case("empty line", [""], "not_frame")
    case("just a newline", ["\n"], "not_frame")
    case("JSON without a tag", [body.decode() + "\n"], "not_frame")
    case("no tab at all", [body.decode(), mac(K, body).hex() + "\n"], "not_frame")
    case("tag of 63 hex digits", [body.decode(), "\t" + mac(K, body).hex()[:63] + "\n"], "not_frame")
    case("tag of 65 hex digits", [body.decode(), "\t" + mac(K, body).hex() + "0\n"], "not_frame")
    case("tag in upper case", [body.decode(), "\t" + mac(K, body).hex().upper() + "\n"], "not_frame")
    case("tag with a non-hex letter", [body.decode(), "\t" + "g" + mac(K, body).hex()[1:] + "\n"], "not_frame")
    case("CR LF line end (the tag then has 65 chars)", [body.decode(), "\t" + mac(K, body).hex() + "\r\n"], "not_frame")
    case("tag made with another key", parts(msg, OTHER_KEY), "bad_tag")
    case("tag of the previous session (old key)", parts(msg, K2), "bad_tag")
    case("tag made with the empty key", parts(msg, b""), "bad_tag")
    case("one body byte changed after tagging", [body.decode().replace("0", "1"), good[1]], "bad_tag")
    case("all-zero tag", [body.decode(), "\t" + "0" * 64 + "\n"], "bad_tag")
    case("tag of the re-serialised message with spaces", [json.dumps(msg), good[1]], "bad_tag")
    case("the last tab splits: a tab inside the body is part of it", parts(b'{"t":"ack",\t"s":1,"upto":0}', K), ok=msg)
    case("not UTF-8 (tag right)", parts(b'{"t":"ack","s":1,"upto":"\xff"}', K), "bad_json")
    case("UTF-8 but not JSON (tag right)", parts(b"hello world", K), "bad_json")
    case("NaN is not JSON (tag right)", parts(b'{"t":"ack","s":1,"upto":NaN}', K), "bad_json")
    case("Infinity is not JSON (tag right)", parts(b'{"t":"ack","s":1,"upto":Infinity}', K), "bad_json")
    case("unclosed object (tag right)", parts(b'{"t":"ack","s":1', K), "bad_json")
    case("2000-deep nested list (tag right): too deep to parse, refused not crashed",
         parts(b"[" * 2000 + b"]" * 2000, K), "bad_json")
    case("2000 open brackets (tag right)", parts(b"[" * 2000, K), "bad_json")
    case("empty body (tag right)", parts(b"", K), "bad_json")
    case("a JSON list (tag right)", parts(b"[1,2]", K), "bad_message")
    case("a JSON string (tag right)", parts(b'"hi"', K), "bad_message")
    case("s missing (tag right)", parts({"t": "ack", "upto": 0}, K), "bad_message")
    case("s true (tag right)", parts({"t": "ack", "s": True, "upto": 0}, K), "bad_message")
    case("s 1.5 (tag right)", parts({"t": "ack", "s": 1.5, "upto": 0}, K), "bad_message")
    case("t a number (tag right)", parts({"t": 1, "s": 1}, K), "bad_message")
    case("Chinese text survives the round trip", parts({"t": "call", "s": 1, "why": "叫裁判：牌不对"}, K),
         ok={"t": "call", "s": 1, "why": "叫裁判：牌不对"})
    case("escaped Chinese text reads the same", parts(json.dumps({"t": "call", "s": 1, "why": "叫裁判"}).encode(), K),
         ok={"t": "call", "s": 1, "why": "叫裁判"})
    case("the challenge decodes under the empty key", parts(HUB_OK[0][1], b""), key=b"", ok=HUB_OK[0][1])
    case("a hello does not decode under the empty key", parts(HELLO, DEV_KEY), "bad_tag", key=b"")
    assert raw  # (K in hex is in the session cases)
    return out


def peek_cases():
    hello = parts(HELLO, DEV_KEY)
    return [
        {"op": "peek", "line": hello, "msg": HELLO, "note": "peek reads a hello without its key"},
        {"op": "peek", "line": parts(HELLO, OTHER_KEY), "msg": HELLO, "note": "peek does not check the tag"},
        {"op": "peek", "line": [hello[0] + "\n"], "error": "not_frame", "note": "peek still needs a tag"},
        {"op": "peek", "line": [hello[0], "\t" + "Z" * 64 + "\n"], "error": "not_frame", "note": "peek still needs a hex tag"},
        {"op": "peek", "line": [["x", 5000]], "error": "too_long", "note": "peek caps the length"},
        {"op": "peek", "line": parts(b"{", DEV_KEY), "error": "bad_json", "note": "peek parses"},
        {"op": "peek", "line": parts(b'{"t":"hello"}', DEV_KEY), "error": "bad_message", "note": "peek wants t and s"},
    ]


def check_cases():
    out = []
    for sender, ok, bad in (("seat", SEAT_OK, SEAT_BAD), ("hub", HUB_OK, HUB_BAD)):
        for note, msg in ok:
            out.append({"op": "check", "sender": sender, "msg": msg, "note": "%s sends %s" % (sender, note)})
        for note, msg in bad:
            out.append({"op": "check", "sender": sender, "msg": msg, "error": "bad_message",
                        "note": "%s sends %s" % (sender, note)})
    return out


def open_cases():
    def f(key, msg, error=None, last_in=None):
        d = {"line": parts(msg, key), "last_in": last_in}
        if error:
            d["error"] = error
        else:
            d["msg"] = msg
        return d

    ack = lambda s, upto=0: {"t": "ack", "s": s, "upto": upto}  # noqa: E731
    ev = lambda s: dict(EVENT, s=s)  # noqa: E731
    return [
        {"op": "open", "key_hex": K.hex(), "peer": "seat", "note": "hub side: in order, replay, gap, refused frames change nothing",
         "frames": [
             f(K, ack(1), last_in=1),
             f(K, ack(2), last_in=2),
             f(K, ack(2), "replay", 2),
             f(K, ack(1), "replay", 2),
             f(K, ack(0), "replay", 2),
             f(K, ack(4), "seq_gap", 2),
             f(K2, ack(3), "bad_tag", 2),
             f(K, {"t": "intent", "s": 3, "turn": True, "a": {"type": "pass"}}, "bad_message", 2),
             f(K, {"t": "welcome", "s": 3, "seat": "E", "table": "7", "event": "e", "lang": "zh", "player": None},
               "bad_message", 2),
             f(K, ack(3), last_in=3),
             f(K, {"t": "intent", "s": 4, "turn": 0, "a": {"type": "play", "cards": ["3D"]}}, last_in=4),
         ]},
        {"op": "open", "key_hex": K2.hex(), "peer": "seat", "note": "a new session refuses the old session's frames",
         "frames": [f(K, ack(1), "bad_tag", 0), f(K2, ack(1), last_in=1), f(K, ack(2), "bad_tag", 1)]},
        {"op": "open", "key_hex": K.hex(), "peer": "hub", "note": "seat side: welcome, state, event; a hello is not a hub message",
         "frames": [
             f(K, dict(WELCOME, s=1), last_in=1),
             f(K, dict(STATE, s=2), last_in=2),
             f(K, ev(2), "replay", 2),
             f(K, dict(HELLO, s=3), "bad_message", 2),
             f(K, ev(3), last_in=3),
             f(K, ev(5), "seq_gap", 3),
         ]},
        {"op": "open", "key_hex": K.hex(), "peer": "hub", "note": "a session never accepts s=0 (the handshake's number)",
         "frames": [f(K, {"t": "clock", "s": 0, "clock": CLOCK}, "replay", 0)]},
    ]


def lines_cases():
    return [
        {"op": "lines", "chunks": [["a"], ["b\nc"], ["\n"]], "lines": ["ab", "c"], "note": "lines across chunks"},
        {"op": "lines", "chunks": [["\n\n\nx\n\n"]], "lines": ["x"], "note": "blank lines are skipped"},
        {"op": "lines", "chunks": [["pending"]], "lines": [], "note": "no newline, no line yet"},
        {"op": "lines", "chunks": [[["a", 2000]], [["a", MAX_FRAME - 2001], "\n"]], "lines": [[["a", MAX_FRAME - 1]]],
         "note": "a line of MAX_FRAME bytes with its newline passes"},
        {"op": "lines", "chunks": [[["a", 2048]], [["a", MAX_FRAME - 2048], "\nok\n"]], "lines": [None, "ok"],
         "note": "one byte more: TOO_LONG once, then the next line"},
        {"op": "lines", "chunks": [[["b", 1500]], [["b", 1500]], [["b", 1500], "\nnext\n"]], "lines": [None, "next"],
         "note": "an over-long line across chunks yields TOO_LONG once"},
        {"op": "lines", "chunks": [["x\n", ["z", 2000]], [["z", 2097], "\n", ["z", 2000]], [["z", 2096], "\ny"], ["\n"]],
         "lines": ["x", None, None, "y"],
         "note": "two over-long lines, each reported once"},
        {"op": "lines", "chunks": [[{"hex": "ff00fe0a"}, "\t\n"]], "lines": [[{"hex": "ff00fe"}], "\t"],
         "note": "any bytes pass through the reader unchanged"},
    ]


def _size(spec):
    n = 0
    for part in spec:
        n += len(part.encode()) if isinstance(part, str) else part[1] if isinstance(part, list) else len(part["hex"]) // 2
    return n


def heavy(case):
    """True for a case that puts about MAX_FRAME bytes in flight (a line, a chunk, a pad)."""
    specs = [case["line"]] if "line" in case else case.get("chunks", [])
    return sum([_size(sp) for sp in specs] + [case.get("pad", ["", 0])[1]]) > MAX_FRAME // 2


def render():
    rows = hmac_cases() + session_cases() + encode_cases() + decode_cases() + peek_cases() + check_cases() \
        + open_cases() + lines_cases()
    # The 4 KB cases go first: under MicroPython (64 KB heap) they need several 4 KB
    # blocks, which a heap still in one piece has and a heap after 200 cases may not.
    rows = [r for r in rows if heavy(r)] + [r for r in rows if not heavy(r)]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv):
    text = render()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print("%s is stale: rerun %s" % (OUT, Path(__file__).name))
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print("wrote %d cases to %s" % (text.count("\n"), OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
