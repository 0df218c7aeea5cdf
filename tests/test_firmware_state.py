"""The seat's mirror (device/seat/state.py) on CPython: what it keeps of hub messages, and
``prune``, which blanks the parts of deal results the seat never shows before a frame is
parsed (its heap cannot hold two full result records at once).

- Real engine messages (the last ``event`` of a deal, the result ``state``, a ``result``):
  pruned, they parse to the same message with each result record cut to cards_left,
  points, scores and places, and they still pass the link codec's field checks.
- Hypothesis: any JSON object, with result records (of any content) anywhere in it, written
  compactly as the hub writes it: after ``prune`` it parses, equals the original with its
  records cut, and nothing outside the records changes.
- The mirror keeps player names to 32 characters and takes the slim result.
"""

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paizhuo.bots.bigtwo import BigTwoBot
from paizhuo.rules.bigtwo import SEATS, BigTwo, Deal
from paizhuo_shared import link

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "device"))
from seat import state  # noqa: E402  (plain Python: CPython reads it as it is)

KEEP = ("cards_left", "points", "scores", "places", "levels_after", "shown", "doubled",
        "winner", "self_drawn", "huxi", "tun", "fan", "names", "groups")  # the last: a three-seat winner's
BIGTWO_KEEP = {"winner", "cards_left", "points", "scores", "places", "shown", "doubled"}


def no_meaning(obj):
    """``obj`` without the members ``meaning`` that follow a comma (prune blanks them anywhere)."""
    if isinstance(obj, dict):
        return {k: no_meaning(v) for n, (k, v) in enumerate(obj.items()) if not (k == "meaning" and n)}
    if isinstance(obj, list):
        return [no_meaning(v) for v in obj]
    return obj


def cut(obj):
    """What prune makes of a parsed message: every "result" object keeps KEEP only, and the
    members it keeps stay exactly as they were (prune skips over them, whatever they hold)."""
    if isinstance(obj, dict):
        out = {}
        for n, (k, v) in enumerate(obj.items()):
            if k == "meaning" and n:  # a play's meaning after a comma goes too (the screens show cards)
                continue
            if k == "result" and isinstance(v, dict):
                out[k] = {rk: no_meaning(rv) for rk, rv in v.items() if rk in KEEP}
            else:
                out[k] = cut(v)
        return out
    if isinstance(obj, list):
        return [cut(v) for v in obj]
    return obj


def pruned(msg):
    body = bytearray(link._dumps(msg).encode())
    state.prune(body, len(body))
    return body, json.loads(bytes(body))


def finished_game(seed=4):
    import random
    order = list(range(52))
    random.Random(seed).shuffle(order)
    g = BigTwo(Deal.from_permutation(order, board=seed))
    bots = {s: BigTwoBot(seed=i) for i, s in enumerate(SEATS)}
    last = None
    while g.phase != "over":
        s = g.to_act()[0]
        last = g.apply(bots[s].choose(g.view(s), g.legal_actions(s)))
    return g, last


def test_docstring_examples():
    import doctest
    failed, attempted = doctest.testmod(state)
    assert failed == 0 and attempted > 0


@pytest.mark.parametrize("seed", [1, 4, 9])
def test_real_end_of_deal_messages(seed):
    g, events = finished_game(seed)
    seat = "E"
    msgs = [
        {"t": "event", "s": 7, "events": events, "view": g.view(seat), "turn": len(g.actions),
         "clock": {"seats": [], "ms": 0, "paused": False}},
        {"t": "state", "s": 3, "screen": "result", "view": g.view(seat), "turn": len(g.actions), "clock": None,
         "players": {"E": {"id": "P1", "name": "王明"}}, "result": g.result().to_dict(),
         "seatmap": {"table": "7", "seat": "E", "player": None, "next": {"table": "3", "seat": "S"}}},
        {"t": "result", "s": 9, "result": g.result().to_dict()},
    ]
    for msg in msgs:
        body, got = pruned(msg)
        assert got == cut(msg)
        link.check_message(got, "hub")
        assert len(body) == len(link._dumps(msg).encode()), "blanked in place, never moved"
        records = [got["result"]] if "result" in got else []
        if "view" in got:
            records.append(got["view"]["result"])
        for e in got.get("events", []):
            if "result" in e:
                records.append(e["result"])
        assert records and all(set(r) == BIGTWO_KEEP for r in records)
        assert all(r["scores"] == g.result().to_dict()["scores"] for r in records)


json_leaf = st.none() | st.booleans() | st.integers(-10 ** 6, 10 ** 6) | st.text(max_size=12)
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=10)
PLAIN_KEYS = KEEP + ("winners", "hands_left", "think_ms", "cards_left2", "名次", "shownx")


def messages(record_keys, keys):
    record = st.dictionaries(record_keys, json_value, max_size=8)
    return st.dictionaries(st.text(max_size=6), st.recursive(
        json_leaf | record.map(lambda r: {"result": r}),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=8), max_size=4)


@settings(max_examples=400)
@given(messages(st.sampled_from(PLAIN_KEYS), st.sampled_from(("result", "view", "events", "a", "名字"))))
def test_prune_keeps_everything_but_unshown_result_members(msg):
    body, got = pruned(msg)
    assert got == cut(msg)


@settings(max_examples=400)
@given(messages(st.sampled_from(PLAIN_KEYS) | st.text(max_size=6),
                st.sampled_from(("result", "view", "a", "resul\"t", "\\")) | st.text(max_size=4)))
def test_prune_never_breaks_a_message(msg):
    """A record key the hub never writes (a quote or backslash in it) stops the pruning
    there: the rest is parsed as sent, which is right, only not smaller."""
    body, got = pruned(msg)
    assert cut(got) == cut(msg)


def test_prune_stops_at_anything_unexpected():
    for raw in (b'{"result":{"winner":"N",', b'{"result":{"a":1,"b":[1,2', b'{"result":{"a\\"b":1,"points":2}}',
                b'{"result":{', b'{"result":{}}'):
        buf = bytearray(raw)
        state.prune(buf, len(buf))  # never raises, never writes past the end
        assert len(buf) == len(raw)


def test_the_mirror_keeps_short_names_and_slim_results():
    g, events = finished_game()
    m = state.Mirror(0)
    long_name = "很长的名字" * 20
    m.apply({"t": "welcome", "s": 1, "seat": "E", "table": "7", "event": "e", "lang": "zh",
             "player": {"id": "P1", "name": long_name}}, 0)
    assert m.player["name"] == long_name[:32]
    m.apply({"t": "state", "s": 2, "screen": "result", "view": g.view("E"), "turn": len(g.actions), "clock": None,
             "players": {s: {"id": s, "name": long_name} for s in SEATS}, "result": g.result().to_dict(),
             "seatmap": {"table": "7", "seat": "E", "player": {"id": 1, "name": long_name}, "next": None}}, 0)
    assert all(len(name) == 32 for name in m.players.values())
    assert len(m.seatmap["player"]["name"]) == 32
    assert set(m.result) == BIGTWO_KEEP - {"doubled"} | {"levels_after"} and "result" not in m.view  # shown: the multipliers
    m.apply({"t": "seatmap", "s": 3, "seatmap": {"table": "8", "seat": "N", "player": {"id": 2, "name": long_name},
                                                   "next": None}}, 0)
    assert len(m.seatmap["player"]["name"]) == 32


# ---- check-in and notes (issue #5) -----------------------------------------------------------

def _seatmap(checked):
    return {"table": "7", "seat": "E", "player": {"id": "P012", "name": "李四", "no": 12, "bot": False},
            "next": {"table": "3", "seat": "N"}, "checked": checked}


def _state(screen="checkin", checked=False):
    return {"t": "state", "s": 2, "screen": screen, "view": None, "turn": None, "clock": None, "players": {},
            "result": None, "seatmap": _seatmap(checked)}


def _reject(code):
    return {"t": "reject", "s": 3, "code": code, "en": "no", "zh": "不", "ref": 1}


# (what arrives while "12" is typed, and whether a check-in is out) -> digits kept, refusal code
CHECKIN_CASES = [
    ("wrong number: the digits go, the refusal shows", _reject("checkin_wrong"), True, "", "checkin_wrong"),
    ("another refusal while out: the digits stay", _reject("bad_message"), True, "12", "bad_message"),
    ("a refusal with nothing out: the digits stay", _reject("checkin_wrong"), False, "12", "checkin_wrong"),
    ("a state, still at check-in (another seat changed)", _state(), True, "12", None),
    ("a state, checked in", _state(checked=True), True, "", None),
    ("a state, the round started", _state(screen="deal"), True, "", None),
    ("a state, paused during check-in", _state(screen="paused"), False, "", None),
    ("a seat map, checked in", {"t": "seatmap", "s": 4, "seatmap": _seatmap(True)}, True, "", None),
    ("a seat map, not checked in", {"t": "seatmap", "s": 4, "seatmap": _seatmap(False)}, True, "12", None),
    ("a clock message", {"t": "clock", "s": 4, "clock": {"seats": [], "ms": 0, "paused": True}}, True, "12", None),
]


@pytest.mark.parametrize("what, msg, out, typed, refusal", CHECKIN_CASES, ids=[c[0] for c in CHECKIN_CASES])
def test_checkin_digits_and_the_keypad_lock(what, msg, out, typed, refusal):
    link.check_message(msg, "hub")  # every case is a message the hub may send
    m = state.Mirror(0)
    m.apply({"t": "welcome", "s": 1, "seat": "E", "table": "7", "event": "e", "lang": "zh", "player": None}, 0)
    m.apply(_state(), 0)
    m.typed = "12"
    m.checking = 100 if out else None
    m.apply(msg, 200)
    assert m.typed == typed
    expect_out = out and msg["t"] == "clock"  # only an answer (state, seat map, refusal) frees the keypad
    assert (m.checking is not None) == expect_out
    assert (m.refusal or (None,))[0] == refusal


@pytest.mark.parametrize("lang, shown", [("zh", "裁判已收到，请稍候"), ("en", "A referee is on the way")])
def test_a_note_is_kept_in_the_seats_language_with_its_time(lang, shown):
    m = state.Mirror(0)
    m.apply({"t": "welcome", "s": 1, "seat": "E", "table": "7", "event": "e", "lang": lang, "player": None}, 0)
    note = {"t": "note", "s": 2, "en": "A referee is on the way", "zh": "裁判已收到，请稍候"}
    link.check_message(note, "hub")
    m.apply(note, 1234)
    assert m.note == (shown, 1234)
    assert m.checked() is False
    m.apply({"t": "seatmap", "s": 3, "seatmap": _seatmap(True)}, 0)
    assert m.checked() is True


# ---- long strings are cut before parsing (the heap regression of issue #11's session) ---------

long_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=400) | st.builds(
    lambda a, b: a * b, st.sampled_from(("名", "a", "\\", '"', "\n", "é", "😀", "\\u")), st.integers(0, 260))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.dictionaries(st.text(max_size=8), st.lists(long_text, max_size=3) | long_text, max_size=4))
def test_prune_cuts_long_strings_and_keeps_the_json(msg):
    """Any message as the hub writes it: after prune it parses to the same shape, and each
    string is its original when at most 192 bytes long in the frame, else a prefix of it
    of at most 192 bytes there (whole characters and escapes: never a broken one)."""
    body, got = pruned(msg)

    def framed(s):
        return len(link._dumps(s).encode()) - 2  # the string's bytes between its quotes

    def same(a, b):  # a: what the seat parsed, b: what the hub sent
        if isinstance(b, str):
            assert b.startswith(a) and (a == b if framed(b) <= 192 else 0 < framed(a) <= 192), (a, b)
        else:
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
    assert set(got) == set(msg)
    for k in msg:
        same(got[k], msg[k])


# ---- the selection after a play (issue #12 item 5; two decks) ---------------------------------

def test_a_played_card_leaves_the_selection_even_with_its_twin_in_the_hand():
    """A refused play keeps the selection to fix; an accepted one clears it, also when the hand
    still holds the other copy of a card just played (Guandan's two decks: the selection
    kept the code, and the next pick made a selection that was no play)."""
    sys.path.insert(0, str(ROOT / "tests" / "firmware"))
    import gdscenes
    from paizhuo.rules.guandan import Action as GdAction, Match, Rules
    g = Match(Rules()).start(gdscenes.deal(1))
    me = g.to_act()[0]  # the first deal's leader
    hand = g.view(me)["hand"]
    twin = [c for c in hand if hand.count(c) == 2][0]
    m = state.Mirror(0)
    m.apply({"t": "welcome", "s": 1, "seat": me, "table": "7", "event": "e", "lang": "zh", "player": None}, 0)
    # (a copy of the players: the mirror keeps their names in the message's own dict, and
    # gdscenes.PLAYERS is the welcome of the Guandan firmware tests run after this one)
    players = {s: dict(p) for s, p in gdscenes.PLAYERS.items()}
    m.apply(dict(gdscenes.state(g, seat=me, players=players), s=2), 0)
    m.selected = [twin]
    m.apply(dict(_reject("not_a_play"), s=3), 0)
    assert m.selected == [twin]  # refused: kept
    events = g.apply(GdAction.from_dict({"type": "play", "seat": me, "cards": [twin]}))
    m.apply(dict(gdscenes.event(g, events, seat=me), s=4), 0)
    assert twin in m.hand() and m.selected == []
