"""Properties of the Guandan engine under random legal play (hypothesis drives the seeds)."""

import json
import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from paizhuo.rules.guandan import SEATS, Action, Deal, GuandanDeal, IllegalActionError, Match, Rules

FULL = Counter({c: 2 for c in range(54)})


def check_step(g, rnd, played):
    """The invariants of one moment of a deal."""
    held = Counter()
    for h in g.hands:
        held.update(h)
    held.update(played)
    held.update(c for p, c in g.paid.items() if p not in g.gives)  # tributes not yet handed over
    assert held == FULL  # the 108 cards are all somewhere, once each
    for seat in SEATS:
        view = json.dumps(g.view(seat), ensure_ascii=False)
        for k, other in enumerate(SEATS):
            if other != seat and g.phase != "over" and len(g.hands[k]) > 3:
                assert json.dumps(g.view(other)["hand"]) not in view  # another seat's hand never shows
    for seat in g.to_act():
        legal = g.legal_actions(seat)
        assert legal
        for a in (legal if len(legal) <= 300 else rnd.sample(legal, 40)):
            g.verify(a)
        assert g.can(g.default_action(seat))


def play_deal(g, rnd):
    played = []
    while g.phase != "over":
        check_step(g, rnd, played)
        seat = rnd.choice(g.to_act())
        a = rnd.choice(g.legal_actions(seat)) if rnd.random() < 0.85 else g.default_action(seat)
        g.apply(a)
        if a.type == "play":
            played += a.cards
    return g


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2 ** 32), st.integers(2, 14), st.sampled_from([None, ["E", "W", "N", "S"], ["N", "E", "S", "W"],
                                                                      ["S", "W", "E", "N"]]))
def test_random_deal_invariants_and_replay(seed, level, previous):
    rnd = random.Random(seed)
    g = GuandanDeal(Deal.from_permutation(rnd.sample(range(108), 108)), None, {"EW": level, "NS": level},
                    None if previous is None else "EW", previous)
    play_deal(g, rnd)
    r = g.result()
    assert sorted(r["places"]) == sorted(SEATS)
    replay = GuandanDeal.from_record(json.loads(json.dumps(g.record())))
    assert replay.snapshot() == g.snapshot() and replay.result() == r


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2 ** 32))
def test_random_match_levels_stay_in_range_and_replay(seed):
    rnd = random.Random(seed)
    m = Match(Rules(max_deals=4))
    while not m.over:
        g = m.start(Deal.from_permutation(rnd.sample(range(108), 108)))
        play_deal(g, rnd)
        m.finish(g)
        assert all(2 <= v <= 15 for v in m.levels.values())
        assert all(v <= 14 for v in m.levels.values()) or m.over
    r = m.result()
    assert Match.from_record(json.loads(json.dumps(m.record()))).result() == r


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "seat", "cards", "meaning", "auto", "think_ms", "x"]),
                       st.one_of(st.none(), st.booleans(), st.integers(-3, 60), st.text(max_size=6),
                                 st.lists(st.sampled_from(["3D", "RJ", "2H", "ZZ", 5, "BJ"]), max_size=4))))
def test_outside_actions_are_refused_cleanly_or_legal(d):
    g = GuandanDeal(Deal.from_permutation(range(108)))
    before = g.snapshot()
    try:
        a = Action.from_dict(d)
        g.apply(a)
    except IllegalActionError as e:
        assert e.code and e.en and e.zh
        assert g.snapshot() == before
