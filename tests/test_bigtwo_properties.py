"""竞技锄大地 (Big Two) random playouts: every invariant at every step (OpenSpiel ``random_sim_test`` style).

Hypothesis draws the shuffled deck, the rule options and a seed for a ``random.Random`` that
picks the actions: random legal actions, clock defaults (marked auto) and thinking times.
"""

import json
import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo.rules.bigtwo import SEATS, Action, BigTwo, Deal, IllegalActionError, Rules
from paizhuo_shared.bigtwo import DIAMOND_THREE, card, classify, scores

# Each play takes at least one card and at most three passes come between plays; the deal
# ends before the 50th card is played (the other three still hold one or more).
MAX_ACTIONS = 4 + 4 + 4 * 52
BRUTE_FORCE_MAX_HAND = 9  # brute-force the listing of every play when the hand is this small

RULES = st.builds(
    Rules,
    straights=st.sampled_from(["seed", "no_two"]),
    flush_order=st.sampled_from(["top_card", "suit_first"]),
    report_duty=st.sampled_from(["highest_single", "highest_single", "off"]),
    report_may_pass=st.booleans(),
    spade_two_doubles=st.booleans(),
)
DEALS = st.permutations(range(52)).map(Deal.from_permutation)
SEEDS = st.integers(0, 2 ** 32 - 1)


def _hands(game):
    return [[card(c) for c in h] for h in game.snapshot()["hands"]]


def _check_listing_complete(game, seat, legal):
    """Every subset of size 1, 2, 3, 5 of the hand is accepted by can() exactly when listed."""
    hand = _hands(game)[SEATS.index(seat)]
    listed = {a.cards for a in legal if a.type == "play"}
    seen = 0
    for size in (1, 2, 3, 5):
        for cs in combinations(hand, size):
            ok = game.can(Action.play(seat, list(cs)))
            assert ok == (cs in listed), (seat, cs, ok)
            seen += ok
    assert seen == len(listed)
    # Nothing bigger or of size 4 is ever a play.
    if len(hand) >= 4:
        assert not game.can(Action.play(seat, hand[:4]))


def _check_step(game, played, rng, brute_forced):
    snap = game.snapshot()
    hands = _hands(game)
    # 52 cards conserved: in hands or played, each exactly once.
    every = [c for h in hands for c in h] + played
    assert sorted(every) == list(range(52))
    to_act = game.to_act()
    assert to_act, "the game waits for nobody before it is over"
    if game.phase != "show":
        assert len(to_act) == 1
    for seat in SEATS:
        legal = game.legal_actions(seat)
        if seat not in to_act:
            assert legal == []
            assert not game.can(Action.pass_(seat))
            continue
        assert legal, "a seat to act always has a legal action"
        assert len(set(legal)) == len(legal)
        for a in legal:
            assert a.seat == seat and game.can(a)
        # Listed in order: plays by size, then value; pass last.
        plays = [a for a in legal if a.type == "play"]
        keys = [(len(a.cards), classify(a.cards, game.rules)[1]) for a in plays]
        assert keys == sorted(keys)
        assert all(a.type == "play" for a in legal[:len(plays)])
        if game.phase == "play":
            i = SEATS.index(seat)
            if snap["to_beat"] is None:
                assert Action.pass_(seat) not in legal
            if snap["first_play"]:
                assert all(DIAMOND_THREE in a.cards for a in plays)
            if snap["to_beat"] is not None:
                assert {len(a.cards) for a in plays} <= {len(snap["to_beat"][1])}
            nxt = hands[(i + 1) % 4]
            if len(nxt) == 1 and game.rules.report_duty == "highest_single":
                assert all(a.cards == (max(hands[i]),) for a in plays if len(a.cards) == 1)
            hand_size = len(hands[i])
            if hand_size <= BRUTE_FORCE_MAX_HAND or (not brute_forced[0] and rng.random() < 0.5):
                brute_forced[0] = brute_forced[0] or hand_size > BRUTE_FORCE_MAX_HAND
                _check_listing_complete(game, seat, legal)
        # The clock's choice is always legal, and marked automatic.
        d = game.default_action(seat)
        assert d.auto and game.can(d) and d in legal
        if game.phase in ("show", "double"):
            assert d.yes is False
    assert game.snapshot() == snap, "asking questions changed the state"


def _check_privacy(game):
    hands = game.snapshot()["hands"]
    shown = game.view(None)["shown"]
    for viewer in SEATS + (None,):
        text = json.dumps(game.view(viewer))
        for k, seat in enumerate(SEATS):
            if seat == viewer or seat in shown:
                continue
            for c in hands[k]:
                assert '"%s"' % c not in text, "%s sees %s's hidden %s" % (viewer, seat, c)


def _playout(game, rng, check=True):
    """Play to the end by random legal actions; return (applied actions, auto counts, think sums)."""
    played = []
    auto = {s: 0 for s in SEATS}
    think = {s: 0 for s in SEATS}
    pass_bias = rng.random()  # some games pass a lot, some rarely
    brute_forced = [False]
    steps = 0
    while game.phase != "over":
        steps += 1
        assert steps <= MAX_ACTIONS, "the deal does not end"
        if check:
            _check_step(game, played, rng, brute_forced)
            if steps % 5 == 0:
                _check_privacy(game)
        seat = rng.choice(game.to_act())
        legal = game.legal_actions(seat)
        r = rng.random()
        if r < 0.15:
            action = game.default_action(seat)
        elif Action.pass_(seat) in legal and r < 0.15 + 0.6 * pass_bias:
            action = Action.pass_(seat)
        else:
            action = rng.choice(legal)
        assert action in legal
        if rng.random() < 0.5:
            ms = rng.randrange(0, 25000)
            action = action.with_meta(auto=action.auto, think_ms=ms)
            think[seat] += ms
        auto[seat] += action.auto
        before = game.snapshot()
        events = game.apply(action)
        assert events and all(isinstance(e, dict) and "type" in e for e in events)
        assert game.snapshot() != before
        played.extend(action.cards)
    return played, auto, think


def _check_over(game, played, auto, think):
    assert game.to_act() == ()
    for seat in SEATS:
        assert game.legal_actions(seat) == []
    r = game.result()
    assert sorted(played + [card(c) for h in r.hands_left.values() for c in h]) == list(range(52))
    assert [s for s in SEATS if r.cards_left[s] == 0] == [r.winner]
    assert all(r.cards_left[s] >= 1 for s in SEATS if s != r.winner)
    assert sum(r.scores.values()) == 0
    assert r.points[r.winner] == 0 and r.scores[r.winner] >= 0  # no one owes the winner's side
    if len(set(r.shown.values())) == 1 and len(set(r.doubled.values())) == 1:
        assert r.places[r.winner] == 1
    assert list(r.scores.values()) == scores([r.points[s] for s in SEATS], [r.shown[s] for s in SEATS],
                                             [r.doubled[s] for s in SEATS])
    for s in SEATS:
        assert r.places[s] == 1 + sum(1 for x in r.scores.values() if x > r.scores[s])
    assert r.auto_moves == auto and r.think_ms == think
    # Replay: the log, through JSON, gives the same state and result.
    record = json.loads(json.dumps(game.record()))
    replay = BigTwo.from_record(record)
    assert replay.snapshot() == game.snapshot()
    assert replay.result().to_dict() == r.to_dict()


@settings(max_examples=60, deadline=None)
@given(deal=DEALS, rules=RULES, seed=SEEDS)
def test_random_playouts_keep_every_invariant(deal, rules, seed):
    rng = random.Random(seed)
    game = BigTwo(deal, rules)
    played, auto, think = _playout(game, rng)
    _check_over(game, played, auto, think)


@settings(max_examples=40, deadline=None)
@given(deal=DEALS, rules=RULES, seed=SEEDS, cut=st.floats(0, 1))
def test_replay_mid_deal_and_tampering(deal, rules, seed, cut):
    rng = random.Random(seed)
    game = BigTwo(deal, rules)
    _playout(game, rng, check=False)
    record = game.record()
    n = int(cut * len(record["actions"]))
    partial = json.loads(json.dumps(dict(record, actions=record["actions"][:n])))
    replay = BigTwo.from_record(partial)
    assert len(replay.actions) == n
    # Continuing the partial replay with the logged actions reaches the same end.
    for a in record["actions"][n:]:
        replay.apply(Action.from_dict(a))
    assert replay.snapshot() == game.snapshot()
    # An action by a seat that is not to act is refused, naming its index.
    if n < len(record["actions"]):
        partial = BigTwo.from_record(dict(record, actions=record["actions"][:n]))
        wrong = [s for s in SEATS if s not in partial.to_act()]
        if wrong:
            bad = json.loads(json.dumps(record))
            bad["actions"][n] = {"type": "pass", "seat": wrong[0]}
            try:
                BigTwo.from_record(bad)
            except IllegalActionError as e:
                assert str(e).startswith("action %d: " % n)
            else:
                raise AssertionError("a tampered record replayed")


@settings(max_examples=60, deadline=None)
@given(deal=DEALS, rules=RULES)
def test_clock_defaults_alone_finish_every_deal(deal, rules):
    game = BigTwo(deal, rules)
    for _ in range(MAX_ACTIONS):
        if game.phase == "over":
            break
        for seat in game.to_act():
            d = game.default_action(seat)
            assert d.auto and game.can(d) and d in game.legal_actions(seat)
            if game.phase == "play" and game.snapshot()["to_beat"] is None:
                hand = [card(c) for c in game.snapshot()["hands"][SEATS.index(seat)]]
                nxt = len(game.snapshot()["hands"][(SEATS.index(seat) + 1) % 4])
                duty = nxt == 1 and rules.report_duty == "highest_single"
                assert d.cards == ((max(hand) if duty else min(hand)),)
            game.apply(d)
    assert game.phase == "over"
    r = game.result()
    assert sum(r.scores.values()) == 0 and sum(r.auto_moves.values()) == len(game.actions)
    assert all(not v for v in r.shown.values()) and all(not v for v in r.doubled.values())


@settings(max_examples=200, deadline=None)
@given(points=st.lists(st.integers(0, 104), min_size=4, max_size=4),
       shown=st.lists(st.booleans(), min_size=4, max_size=4),
       doubled=st.lists(st.booleans(), min_size=4, max_size=4))
def test_scores_always_sum_to_zero_and_rank_by_points(points, shown, doubled):
    sc = scores(points, shown, doubled)
    assert sum(sc) == 0
    # With equal factors, fewer card points never scores less.
    if len(set(shown)) == 1 and len(set(doubled)) == 1:
        for a in range(4):
            for b in range(4):
                if points[a] <= points[b]:
                    assert sc[a] >= sc[b]
