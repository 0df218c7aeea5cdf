"""Hostile input never crashes a parser: card codes and oracle requests (hypothesis)."""

import json

from hypothesis import given, settings, strategies as st

from paizhuo.rules import oracle
from paizhuo_shared import bigtwo as bt
from paizhuo_shared import cards

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
CODES = st.sampled_from(["3D", "3S", "2S", "TD", "10h", "AS", "RJ", "BJ", "x3", "d10", "D3", "1Z", "", "33"])


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=6) | st.integers() | st.none())
def test_a_card_code_parses_to_a_valid_code_or_a_clear_error(text):
    try:
        code = cards.parse(text)
    except cards.InvalidCardError as e:
        assert e.en and e.zh and e.code == "invalid_card"
    else:
        assert cards.in_deck(code, cards.DECK108) or cards.in_deck(code, cards.DECK80)
        assert cards.parse(code) == code  # normal form is stable


@settings(max_examples=300, deadline=None)
@given(st.lists(CODES, max_size=7))
def test_big_two_cards_round_trip_or_refuse(items):
    try:
        cs = bt.cards(items)
    except cards.InvalidCardError as e:
        assert e.code in ("invalid_card", "duplicate_card")
    else:
        assert list(cs) == sorted(cs) and len(set(cs)) == len(cs)
        assert bt.cards(bt.codes(cs)) == cs


@settings(max_examples=400, deadline=None)
@given(st.one_of(
    st.text(max_size=40),
    JSON.map(json.dumps),
    st.fixed_dictionaries({"op": st.sampled_from(oracle.OPS), "game": st.sampled_from(["bigtwo", "x"])},
                          optional={"cards": JSON | st.lists(CODES), "play": st.lists(CODES),
                                    "over": st.lists(CODES) | JSON, "hand": st.lists(CODES),
                                    "rules": JSON, "record": JSON, "hands_left": JSON,
                                    "shown": JSON, "doubled": JSON}).map(json.dumps)))
def test_every_oracle_line_gets_one_json_answer(line):
    text = oracle.answer_line(line)
    assert "\n" not in text
    ans = json.loads(text)
    assert ans["ok"] in (True, False)
    if ans["ok"] is False:
        assert ans["error"] and not ans["error"].startswith("internal error")
