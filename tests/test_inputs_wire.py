"""The MQTT wire (hub/mqtt/wire.py) and the seat link codec (shared/link.py) against hostile JSON:
deep nesting, NUL and lone surrogates, huge and non-finite numbers.  A hostile message is refused
(WireError / LinkError), never accepted and never another exception: what the wire accepts the
venue stores in SQLite and shows on the console, which need clean UTF-8 and sane numbers.
"""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo.inputs import InputError, check_tree
from paizhuo.mqtt import wire
from paizhuo.venue.store import Store
from paizhuo_shared import link
from test_mqtt_wire import CHECKERS, GOOD

BAD_STRINGS = st.builds(lambda a, c: a + c, st.text(max_size=4), st.sampled_from(["\x00", "\ud800", "\udfff", "\udc80"]))
HUGE = st.one_of(st.integers(2 ** 53, 10 ** 30), st.sampled_from([10 ** 400, -(10 ** 400)]))


def _paths(v, prefix=()):
    """Every place in a message: (path, value) of each leaf."""
    if isinstance(v, dict):
        for k, item in v.items():
            yield from _paths(item, prefix + (k,))
    elif isinstance(v, list):
        for i, item in enumerate(v):
            yield from _paths(item, prefix + (i,))
    else:
        yield prefix, v


def _replaced(msg, path, value):
    m = copy.deepcopy(msg)
    t = m
    for k in path[:-1]:
        t = t[k]
    t[path[-1]] = value
    return m


MARK = "\u2603deep\u2603"


def _payload(msg):
    text = json.dumps(msg)       # ASCII escapes: a lone surrogate is the 6 characters \ud800
    return text.encode("ascii")


@st.composite
def hostile_wire(draw):
    leaf = draw(st.sampled_from(sorted(CHECKERS)))
    good = GOOD[leaf]
    paths = [p for p, _ in _paths(good) if p and p[0] != "v"]
    how = draw(st.sampled_from(["text", "number", "deep", "extra", "key", "raw"]))
    if how == "extra":
        return leaf, _payload(dict(good, zz_extra=draw(BAD_STRINGS)))
    if how == "key":
        return leaf, _payload(dict(good, **{"k" + draw(BAD_STRINGS): 1}))
    path = draw(st.sampled_from(paths))
    if how == "text":
        return leaf, _payload(_replaced(good, path, draw(BAD_STRINGS)))
    if how == "number":
        return leaf, _payload(_replaced(good, path, draw(HUGE)))
    if how == "deep":
        n = draw(st.integers(33, 20000))
        return leaf, _payload(_replaced(good, path, MARK)).replace(json.dumps(MARK).encode(), b"[" * n + b"]" * n)
    n = draw(st.sampled_from([b"1e400", b"-1e999", b"NaN", b"Infinity"]))
    return leaf, _payload(_replaced(good, path, MARK)).replace(json.dumps(MARK).encode(), n)


@settings(max_examples=400, deadline=None)
@given(case=hostile_wire())
def test_the_wire_refuses_every_hostile_payload(case):
    leaf, payload = case
    try:
        msg = CHECKERS[leaf](payload)
    except wire.WireError as e:
        assert e.code and e.en and e.zh
        return
    # accepted: then it must be clean (a hostile value in an ignored place was dropped)
    check_tree(msg)
    json.dumps(msg, ensure_ascii=False).encode("utf-8")


def test_an_alert_with_a_lone_surrogate_is_refused_at_the_wire():
    # accepted before, then the store's UTF-8 encoder failed on it (an alert's extra fields are kept)
    payload = _payload(dict(GOOD["alert"], why="\ud800"))
    try:
        wire.check_alert(payload)
    except wire.WireError as e:
        assert e.code == "bad_field" and "surrogate" in e.en and "代理" in e.zh
    else:
        raise AssertionError("accepted")


def test_what_the_wire_accepts_the_store_can_write(tmp_path):
    # the good alert, stored as the venue stores alerts: real SQLite, real UTF-8
    s = Store(str(tmp_path / "v.sqlite"))
    s.add_event("ev", "name", "bigtwo")
    msg = wire.check_alert(_payload(GOOD["alert"]))
    s.add_alert("ev", "call", {k: v for k, v in msg.items() if k not in ("v", "kind")}, hub="T07", table="7")
    assert s.alerts("ev")[0]["fields"]["dev"] == "S-0001"


# ---- the seat link codec: a seat (the hostile side) sends a correctly tagged hostile frame -----------

KEY = bytes(range(32))
SEAT_MSGS = [{"t": "intent", "s": 1, "turn": 3, "a": {"type": "pass"}},
             {"t": "intent", "s": 1, "turn": 3, "a": {"type": "play", "cards": ["3D", "3S"]}},
             {"t": "call", "s": 1, "why": "help"},
             {"t": "resync", "s": 1}]


def _seat_frame(body):
    tag = link.hmac_sha256(link.session_key(KEY, "00" * 16, "11" * 16), body)
    return body + b"\t" + tag.hex().encode() + b"\n"


def _open_seat_frame(frame):
    hub = link.Session(link.session_key(KEY, "00" * 16, "11" * 16), "seat")
    msg = hub.open(frame)
    link.check_message(msg, "seat")
    return msg


@st.composite
def deep_or_not_json_frame(draw):
    good = draw(st.sampled_from(SEAT_MSGS))
    paths = [p for p, _ in _paths(good) if p and p[0] not in ("t", "s")] or [("zz",)]
    path = draw(st.sampled_from(paths))
    n = draw(st.integers(33, 1200))
    fill = draw(st.sampled_from([b"[" * n + b"]" * n, b'{"a":' * n + b"1" + b"}" * n, b"1e400", b"NaN", b"-Infinity"]))
    return _seat_frame(_payload(_replaced(good, path, MARK)).replace(json.dumps(MARK).encode(), fill))


@settings(max_examples=200, deadline=None)
@given(frame=deep_or_not_json_frame())
def test_the_seat_link_refuses_deep_and_non_finite_frames(frame):
    try:
        msg = _open_seat_frame(frame)
    except link.LinkError as e:
        assert e.code and e.en and e.zh
        return
    raise AssertionError("accepted %r" % (msg,))


@settings(max_examples=50, deadline=None)
@given(good=st.sampled_from(SEAT_MSGS[:3]), bad=BAD_STRINGS)
def test_bad_text_from_a_seat_is_refused_by_the_codec_or_by_the_hubs_check(good, bad):
    # The board's codec (shared/link.py) leaves text alone — the board's heap has no room for
    # the check — so the hub's check_tree on every opened seat frame must catch what it lets by.
    path = [p for p, v in _paths(good) if isinstance(v, str) and p[0] not in ("t",)][0]
    frame = _seat_frame(_payload(_replaced(good, path, bad)))
    try:
        msg = _open_seat_frame(frame)
    except link.LinkError:
        return
    with pytest.raises(InputError) as e:
        check_tree(msg, "seat frame")
    assert e.value.code in ("nul_char", "bad_text") and e.value.zh


# ---- the hub side of the seat link: a real hub (hub/table/runtime.py) on pty links ---------------------

def _frame(seat, msg):
    """A frame with ``msg`` as ASCII JSON (a lone surrogate stays an escape) under the seat's session."""
    body = json.dumps(dict(msg, s=seat.session.next_out)).encode("ascii")
    seat.session.next_out += 1
    return body + b"\t" + link.hmac_sha256(seat.session_key, body).hex().encode() + b"\n"


HOSTILE_SEAT_MSGS = [
    {"t": "call", "why": "\ud800"},
    {"t": "call", "why": "bad\x00why"},
    {"t": "intent", "turn": 0, "a": {"type": "play", "cards": ["\udcff"]}},
    {"t": "intent", "turn": 10 ** 400, "a": {"type": "pass"}},
    {"t": "checkin", "no": 10 ** 400},
]


def test_the_hub_survives_hostile_text_and_numbers_from_a_seat(tmp_path):
    import asyncio

    from paizhuo.table.history import audit
    from table_seat import DEAL, Rig

    async def main():
        rig = Rig(str(tmp_path), deals=[DEAL])
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            E = rig.seats["E"]
            before = rig.table.game.snapshot()
            for msg in HOSTILE_SEAT_MSGS:
                n = len(E.frames)
                E.write(_frame(E, msg))
                await E.wait_for(lambda: any(m["t"] == "reject" for m in E.frames[n:]), 5, "a reject")
                assert not rig._task.done(), (msg, rig._task)          # the hub is still running
            assert rig.table.game.snapshot() == before
            assert not [a for a in rig.alerts if a.get("alert") == "call" or a.get("kind") == "call"]
            # the link still works and the log is whole
            n = len(E.frames)
            E.send({"t": "resync"})
            await E.wait_for(lambda: any(m["t"] == "state" for m in E.frames[n:]), 5, "a state after resync")
        finally:
            await rig.close()
        assert audit(rig.config.log).ok

    asyncio.run(asyncio.wait_for(main(), 90))
