"""The venue link's wire: topics and payload checks (no I/O), table-driven plus fuzzing."""

import copy
import json

import pytest
from hypothesis import given, settings, strategies as st

from paizhuo.mqtt import wire
from paizhuo.mqtt.wire import WireError

EV = "demo"
EPOCH = "0123456789abcdef"
HASH = "ab" * 32


def _row(seat, score):
    return {"result_id": "T07/7/r1/g1/b3/%s" % seat, "round": 1, "group": 1, "board": 3, "table": "7",
            "seat": seat, "player": "P%s" % seat, "score": score, "think_ms": 1200, "auto_moves": 0,
            "deal_hash": HASH, "bot": seat != "E"}


GOOD = {
    "status": {"v": 1, "hub": "T07", "table": "7", "online": True, "at": 1700000000000, "fw": "paizhuo 0.5"},
    "live": {"v": 1, "hub": "T07", "table": "7", "at": 1, "round": 1, "group": 1, "game": "bigtwo",
             "screen": "deal", "started": True, "deal": 2, "board": 3, "boards": [1, 2, 3, 4], "deals_done": 2,
             "turn": 12, "to_act": ["N"], "clock": {"seats": ["N"], "ms": 23000, "paused": False},
             "paused": None,
             "seats": {s: {"online": True, "dev": "S-000%d" % i, "player": None, "checked": True, "bot": False,
                           "cards": 9} for i, s in enumerate("ENWS")},
             "plays": [{"seat": "E", "type": "play", "cards": ["3D"]}, {"seat": "N", "type": "pass"}],
             "shown": {"E": ["3D"]}, "unacked": 0},
    "result": {"v": 1, "kind": "result", "epoch": EPOCH, "n": 3, "hub": "T07", "table": "7", "at": 5,
               "round": 1, "group": 1, "board": 3, "deal": 2, "deal_hash": HASH,
               "rows": [_row("E", 12), _row("N", -4), _row("W", -4), _row("S", -4)],
               "record": {"deal": {"board": 3, "hands": {}}, "actions": [{"type": "pass", "seat": "N"}],
                          "result": {"scores": {}}}},
    "alert": {"v": 1, "kind": "alert", "epoch": EPOCH, "n": 4, "hub": "T07", "table": "7", "at": 5,
              "alert": "call", "seat": "E", "dev": "S-0001"},
    "reply": {"v": 1, "id": "c0ffee", "ok": False, "code": "no_deal", "en": "nothing to pause", "zh": "没有进行中的牌局"},
    "ack": {"v": 1, "epoch": EPOCH, "upto": 7},
    "round": {"v": 1, "id": "a" * 32, "round": 2, "group": 1, "game": "bigtwo", "table": "7", "boards": [1, 2, 3, 4],
              "deal_hashes": {str(b): "%02x" % b * 32 for b in (1, 2, 3, 4)},
              "players": {s: {"id": "P01%d" % i, "name": "李四", "no": 12 + i, "bot": False}
                          for i, s in enumerate("ENWS")},
              "moves": {"E": {"table": "3", "seat": "N"}, "N": None}},
    "control": {"v": 1, "id": "b" * 32, "op": "replace", "seat": "E", "dev": "S-0099", "by": "referee Li",
                "reason": "screen dead"},
}

CHECKERS = {"status": wire.check_status, "live": wire.check_live, "result": wire.check_result,
            "alert": wire.check_alert, "reply": wire.check_reply, "ack": wire.check_ack,
            "round": wire.check_round, "control": wire.check_control}


def _set(msg, path, value):
    """Copy of ``msg`` with ``path`` (dotted; ints index lists) set, or deleted when value is DEL."""
    m = copy.deepcopy(msg)
    keys = path.split(".")
    target = m
    for k in keys[:-1]:
        target = target[int(k)] if isinstance(target, list) else target[k]
    last = keys[-1]
    if isinstance(target, list):
        last = int(last)
    if value is DEL:
        del target[last]
    else:
        target[last] = value
    return m


DEL = object()

# (kind, path, value, code, field the error names)
BAD = [
    ("status", "v", 2, "bad_version", "v"),
    ("status", "v", True, "bad_version", "v"),
    ("status", "hub", "T 07", "bad_field", "hub"),
    ("status", "online", "yes", "bad_field", "online"),
    ("status", "online", DEL, "missing_field", "online"),
    ("status", "at", -1, "bad_field", "at"),
    ("status", "table", "", "bad_field", "table"),
    ("live", "screen", "lobby", "bad_field", "screen"),
    ("live", "seats.X", {}, "bad_field", "seats key"),
    ("live", "to_act", ["Q"], "bad_field", "to_act[0]"),
    ("live", "clock.ms", -5, "bad_field", "clock.ms"),
    ("live", "boards", [0], "bad_field", "boards[0]"),
    ("live", "plays.1.seat", "X", "bad_field", "plays[1].seat"),
    ("live", "turn", 1.5, "bad_field", "turn"),
    ("result", "kind", "alert", "bad_kind", "kind"),
    ("result", "epoch", "0123456789ABCDEF", "bad_field", "epoch"),
    ("result", "n", 0, "bad_field", "n"),
    ("result", "n", True, "bad_field", "n"),
    ("result", "deal_hash", "ab", "bad_field", "deal_hash"),
    ("result", "rows", [], "bad_field", "rows"),
    ("result", "rows.0.score", "12", "bad_field", "rows[0].score"),
    ("result", "rows.1.seat", "E", "inconsistent", "rows"),
    ("result", "rows.2.board", 4, "inconsistent", "rows[2].board"),
    ("result", "rows.2.deal_hash", "cd" * 32, "inconsistent", "rows[2].deal_hash"),
    ("result", "rows.3.bot", 1, "bad_field", "rows[3].bot"),
    ("result", "record.actions", {}, "bad_field", "record.actions"),
    ("result", "record", DEL, "missing_field", "record"),
    ("alert", "alert", "fire", "bad_kind", "alert"),
    ("alert", "seat", "X", "bad_field", "seat"),
    ("reply", "ok", DEL, "missing_field", "ok"),
    ("reply", "zh", DEL, "missing_field", "zh"),
    ("reply", "id", "has space", "bad_field", "id"),
    ("ack", "upto", -1, "bad_field", "upto"),
    ("ack", "upto", "3", "bad_field", "upto"),
    ("ack", "epoch", DEL, "missing_field", "epoch"),
    ("round", "boards", [1, 1], "bad_field", "boards"),
    ("round", "boards", [], "bad_field", "boards"),
    # The round key never travels with the spec (only with the start): a spec carrying one is refused.
    ("round", "round_key", HASH, "unknown_field", "round_key"),
    ("round", "round_key", "zz" * 32, "unknown_field", "round_key"),
    ("round", "deals", [], "unknown_field", "deals"),
    ("round", "deal_hashes", DEL, "missing_field", "deal_hashes"),
    ("round", "deal_hashes", [HASH] * 4, "bad_field", "deal_hashes"),
    ("round", "deal_hashes.4", DEL, "inconsistent", "deal_hashes"),
    ("round", "deal_hashes.5", HASH, "inconsistent", "deal_hashes"),
    ("round", "deal_hashes.3", "AB" * 32, "bad_field", "deal_hashes.3"),
    ("round", "deal_hashes.3", "ab" * 31, "bad_field", "deal_hashes.3"),
    ("round", "deal_hashes.3", None, "bad_field", "deal_hashes.3"),
    ("round", "players.X", {"id": "P1", "name": "x"}, "bad_field", "players key"),
    ("round", "players.E.id", "", "bad_field", "players.E.id"),
    ("round", "players.E.bot", "no", "bad_field", "players.E.bot"),
    ("round", "moves.E.seat", "Q", "bad_field", "moves.E.seat"),
    ("control", "op", "explode", "bad_control", "op"),
    ("control", "dev", "S 0099", "bad_field", "dev"),
    ("control", "seat", None, "bad_field", "seat"),
    ("control", "by", DEL, "missing_field", "by"),
]


@pytest.mark.parametrize("kind", sorted(GOOD))
def test_good_messages_pass_as_dict_and_as_bytes(kind):
    msg = GOOD[kind]
    assert CHECKERS[kind](msg) == msg
    assert CHECKERS[kind](wire.dumps(msg)) == msg


@pytest.mark.parametrize("kind,path,value,code,field", BAD, ids=["%s:%s" % (b[0], b[1]) for b in BAD])
def test_bad_messages_are_refused_naming_the_field(kind, path, value, code, field):
    bad = _set(GOOD[kind], path, value)
    with pytest.raises(WireError) as e:
        CHECKERS[kind](bad)
    assert e.value.code == code
    assert e.value.field == field
    assert field in e.value.en and field in e.value.zh
    with pytest.raises(WireError):
        CHECKERS[kind](wire.dumps(bad))


CONTROL_OPS = [
    {"op": "start", "round": 2, "round_key": HASH},
    {"op": "pause", "reason": "电源故障", "by": "referee Li"},
    {"op": "pause", "by": "referee Li"},
    {"op": "resume", "by": "referee Li"},
    {"op": "ack_call", "seat": "W", "by": "referee Li"},
    {"op": "note", "seat": None, "en": "5 minutes left", "zh": "还剩 5 分钟"},
    {"op": "note", "seat": "S", "en": "x", "zh": "y"},
    {"op": "end_board", "round": 2, "by": "referee Li", "reason": "forfeit: no show"},
]


@pytest.mark.parametrize("body", CONTROL_OPS, ids=[c["op"] for c in CONTROL_OPS])
def test_every_control_op(body):
    msg = dict(body, v=1, id="c1")
    assert wire.check_control(msg) == msg


@pytest.mark.parametrize("body,field", [
    ({"op": "start", "round_key": HASH}, "round"), ({"op": "start", "round": 0, "round_key": HASH}, "round"),
    ({"op": "start", "round": 2}, "round_key"), ({"op": "start", "round": 2, "round_key": "AB" * 32}, "round_key"),
    ({"op": "start", "round": 2, "round_key": "ab" * 16}, "round_key"), ({"op": "start", "round": 2, "round_key": 7}, "round_key"),
    ({"op": "ack_call", "by": "x"}, "seat"),
    ({"op": "note", "seat": "E", "en": "x"}, "zh"), ({"op": "resume"}, "by"),
    ({"op": "end_board", "by": "x", "reason": "y"}, "round"), ({"op": "end_board", "round": 1, "by": "x"}, "reason"),
])
def test_control_op_missing_its_fields(body, field):
    with pytest.raises(WireError) as e:
        wire.check_control(dict(body, v=1, id="c1"))
    assert e.value.field == field


def test_hub_messages_must_name_the_topic_hub():
    with pytest.raises(WireError) as e:
        wire.check("demo", "paizhuo/v1/demo/hub/T08/result", wire.dumps(GOOD["result"]))
    assert e.value.code == "wrong_sender" and e.value.field == "hub"
    t, msg = wire.check("demo", "paizhuo/v1/demo/hub/T07/result", wire.dumps(GOOD["result"]))
    assert t == ("hub", "T07", "result") and msg["n"] == 3


@pytest.mark.parametrize("payload,code", [
    (b"", "bad_json"), (b"{", "bad_json"), (b"\xff\xfe", "bad_json"), (b"[1,2]", "not_object"),
    (b"null", "not_object"), (b'"x"', "not_object"), (b'{"v":NaN}', "bad_json"), (b'{"v":Infinity}', "bad_json"),
    (b'{"v":"1"}', "bad_version"), (b"{}", "bad_version"), (b"[" * 100000 + b"]" * 100000, "bad_json"),
    (b'{"v":1,"pad":"' + b"x" * wire.MAX_PAYLOAD + b'"}', "too_big"),
])
def test_malformed_payloads(payload, code):
    with pytest.raises(WireError) as e:
        wire.check_ack(payload)
    assert e.value.code == code


def test_dumps_is_compact_utf8_and_capped():
    assert wire.dumps({"v": 1, "zh": "李四"}) == '{"v":1,"zh":"李四"}'.encode()
    with pytest.raises(WireError) as e:
        wire.dumps({"v": 1, "x": "x" * wire.MAX_PAYLOAD})
    assert e.value.code == "too_big"
    with pytest.raises(WireError):
        wire.dumps({"v": 1, "x": float("nan")})
    with pytest.raises(WireError):
        wire.dumps({"v": 1, "x": object()})


TOPICS = [
    ("paizhuo/v1/demo/hub/T07/status", ("hub", "T07", "status")),
    ("paizhuo/v1/demo/hub/T-7_x/live", ("hub", "T-7_x", "live")),
    ("paizhuo/v1/demo/hub/T07/result", ("hub", "T07", "result")),
    ("paizhuo/v1/demo/hub/T07/alert", ("hub", "T07", "alert")),
    ("paizhuo/v1/demo/hub/T07/reply", ("hub", "T07", "reply")),
    ("paizhuo/v1/demo/venue/ack/T07", ("venue", "T07", "ack")),
    ("paizhuo/v1/demo/venue/round/T07", ("venue", "T07", "round")),
    ("paizhuo/v1/demo/venue/control/T07", ("venue", "T07", "control")),
    ("paizhuo/v1/demo/venue/standings", ("venue", None, "standings")),
    ("paizhuo/v1/demo/venue/records/12", ("venue", None, "records")),
]


@pytest.mark.parametrize("topic,parsed", TOPICS)
def test_topics_parse_and_build_back(topic, parsed):
    t = wire.parse_topic(EV, topic)
    assert t == parsed
    if t.side == "hub":
        assert wire.hub_topic(EV, t.hub, t.leaf) == topic
    elif t.leaf == "records":
        assert t.round == 12 and wire.venue_topic(EV, "records", t.round) == topic
    else:
        assert wire.venue_topic(EV, t.leaf, t.hub) == topic


@pytest.mark.parametrize("topic", [
    "paizhuo/v1/other/hub/T07/status", "paizhuo/v2/demo/hub/T07/status", "paizhuo/v1/demo/hub/T07/secret",
    "paizhuo/v1/demo/hub/T07/status/x", "paizhuo/v1/demo/hub/T 07/status", "paizhuo/v1/demo/hub/+/status",
    "paizhuo/v1/demo/hub//status", "paizhuo/v1/demo/venue/ack", "paizhuo/v1/demo/venue/standings/x",
    "paizhuo/v1/demo/venue/records/0", "paizhuo/v1/demo/venue/records/x", "paizhuo/v1/demo/venue/records/01",
    "paizhuo/v1/demo/venue/records/١", "paizhuo/v1/demo", "", "paizhuo/v1/demo/hub/" + "T" * 33 + "/status",
])
def test_unknown_topics_refused(topic):
    with pytest.raises(WireError) as e:
        wire.parse_topic(EV, topic)
    assert e.value.code == "unknown_topic"


@pytest.mark.parametrize("call", [
    lambda: wire.hub_topic("demo", "T07", "ack"), lambda: wire.hub_topic("de mo", "T07", "status"),
    lambda: wire.hub_topic("demo", "#", "status"), lambda: wire.venue_topic("demo", "ack"),
    lambda: wire.venue_topic("demo", "standings", "T07"), lambda: wire.venue_topic("demo", "records", 0),
    lambda: wire.venue_topic("demo", "records", "2"), lambda: wire.hub_filter("demo", "ack"),
])
def test_topic_builders_refuse_bad_parts(call):
    with pytest.raises(WireError):
        call()


def test_filters():
    assert wire.event_filter("demo") == "paizhuo/v1/demo/#"
    assert wire.hub_filter("demo") == "paizhuo/v1/demo/hub/#"
    assert wire.hub_filter("demo", "live") == "paizhuo/v1/demo/hub/+/live"
    assert wire.hub_subscriptions("demo", "T07") == [
        "paizhuo/v1/demo/venue/+/T07", "paizhuo/v1/demo/venue/standings", "paizhuo/v1/demo/venue/records/#"]


# ---- fuzzing: nothing but WireError ever escapes -------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 60, 2 ** 60) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=10), kids, max_size=6),
    max_leaves=30)


def _mutations(kind):
    keys = sorted(GOOD[kind])
    return st.fixed_dictionaries({}).flatmap(lambda _: st.tuples(
        st.lists(st.sampled_from(keys), max_size=3), st.dictionaries(st.sampled_from(keys), json_values, max_size=3)))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_only_raise_wire_error(data):
    for kind, check in CHECKERS.items():
        try:
            check(data)
        except WireError:
            pass


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_arbitrary_json_only_raises_wire_error(value):
    data = json.dumps(value).encode()
    for check in CHECKERS.values():
        for payload in (data, value if isinstance(value, dict) else data):
            try:
                check(payload)
            except WireError:
                pass


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(GOOD)), st.data())
def test_mutated_good_messages_only_raise_wire_error(kind, data):
    drop, change = data.draw(_mutations(kind))
    msg = copy.deepcopy(GOOD[kind])
    for k in drop:
        msg.pop(k, None)
    msg.update(change)
    try:
        out = CHECKERS[kind](wire.dumps(msg) if data.draw(st.booleans()) else msg)
    except WireError as e:
        assert e.code and e.en and e.zh
    else:
        assert out == msg


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_topics_only_raise_wire_error(topic):
    try:
        t = wire.parse_topic(EV, topic)
    except WireError:
        return
    assert topic.startswith("paizhuo/v1/demo/") and t.side in ("hub", "venue")
