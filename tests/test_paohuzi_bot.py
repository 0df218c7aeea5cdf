"""The Paohuzi bot (paizhuo.bots.paohuzi) plays seeded deals through the engine: always legal, every
deal ends, 胡 whenever it may, the same choice for the same view and seed, from a bare copy of
the view (no engine anywhere), and it wins far more deals than a random legal player."""

import copy
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from paizhuo import deals, rules
from paizhuo.bots.paohuzi import PaohuziBot
from paizhuo.rules.paohuzi import Action, Deal, Paohuzi, fill

SEATS = ("E", "N", "W")
SECRET = b"paohuzi bot test secret, 32 byte"
GAME = rules.game("paohuzi")


def _deal(k):
    """Seeded deals: the venue's deal generator (through the registry) and plain shuffles."""
    if k % 2:
        return GAME.deal_for(deals.deal(SECRET, "paohuzi", 1, 1 + k % 5, 1 + k))
    order = list(range(80))
    random.Random(k).shuffle(order)
    return Deal.from_permutation(order, board=1)


def _play(deal, players, rnd):
    """Play ``deal`` to its end; ``players[seat](game, seat)`` is that seat's action.  The asked
    seats of a claim decide in a seeded order.  Returns the finished game."""
    g = Paohuzi(deal)
    steps = 0
    while g.phase != "over":
        seat = rnd.choice(g.to_act())
        a = players[seat](g, seat)
        assert a in g.legal_actions(seat), (a, g.legal_actions(seat))
        g.verify(a)
        g.apply(a)
        steps += 1
        assert steps < 400  # a deal ends
    return g


def _bot_player(bot, seen=None):
    def act(g, seat):
        view = g.view(seat)
        a = bot.choose(view)
        if seen is not None:
            seen.append((view.get("may"), a))
        return a
    return act


def _random_player(rnd):
    return lambda g, seat: rnd.choice(g.legal_actions(seat))


def test_three_bots_play_seeded_deals_legally_to_the_end_and_always_claim_hu():
    seen = []
    results = []
    for k in range(9):
        bots = {s: GAME.new_bot(seed=10 * k + i) for i, s in enumerate(SEATS)}
        g = _play(_deal(k), {s: _bot_player(bots[s], seen) for s in SEATS}, random.Random(k))
        r = g.result().to_dict()
        assert sum(r["scores"].values()) == 0
        results.append(r["winner"])
    for may, a in seen:
        if may is not None and may["hu"]:
            assert a.type == "hu"  # 胡 whenever it may
    claims = [a.type for may, a in seen if may is not None]
    assert {"chi", "pass"} <= set(claims)  # it claims and it passes, as the holding says
    assert sum(1 for w in results if w) >= 5  # most deals are won, not 荒庄


def test_the_bot_decides_from_a_bare_copy_of_the_view_and_touches_no_engine_state():
    for k in range(3):
        twin = PaohuziBot(seed=k)
        bot = PaohuziBot(seed=k)

        def act(g, seat):
            before = g.snapshot()
            view = g.view(seat)
            kept = copy.deepcopy(view)
            bare = json.loads(json.dumps(view))  # plain data, no engine object anywhere
            a = bot.choose(bare)
            assert twin.choose(copy.deepcopy(view)) == a  # the same view and seed: the same choice
            assert PaohuziBot(seed=k).choose(copy.deepcopy(kept)) == PaohuziBot(seed=k).choose(kept)
            assert view == kept and g.snapshot() == before  # nothing read from or written to the engine
            return a

        _play(_deal(100 + k), {s: act for s in SEATS}, random.Random(k))


def test_the_bot_wins_far_more_deals_than_a_random_legal_player():
    # one bot and two random players per deal, the bot's seat going round; the same deals
    bot_wins = other_wins = 0
    for k in range(18):
        rnd = random.Random(1000 + k)
        seat = SEATS[k % 3]
        players = {s: _random_player(rnd) for s in SEATS}
        players[seat] = _bot_player(PaohuziBot(seed=k))
        w = _play(_deal(200 + k), players, rnd).result().winner
        bot_wins += w == seat
        other_wins += w is not None and w != seat
    assert bot_wins >= 6 and bot_wins > 2 * other_wins, (bot_wins, other_wins)  # each random seat: other_wins / 2


# Six groups and a pair of 十 (9 胡息): one card from a win (听牌), waiting for 十 or 拾.
READY = "x1 x2 x3 d1 d2 d3 x4 x5 x6 x7 x8 x9 d4 d5 d6 d7 d8 d9 x10 x10"


def test_hu_on_a_winning_stock_card():
    # W waits; N turns up 拾
    g = Paohuzi(Deal.from_dict(fill({"W": READY}, stock="d10")))
    g.apply(Action.discard("E", g.view("E")["hand"][-1]))
    while "W" not in g.to_act():
        g.apply(Action.pass_(g.to_act()[0]))
    assert g.view("W")["may"]["hu"]
    assert PaohuziBot().choose(g.view("W")) == Action.hu("W")


def test_the_bot_discards_the_card_that_joins_nothing_and_claims_a_chi_that_completes_a_group():
    # E: 一二三 twice, 壹贰叁 twice, 四五六, 肆伍陆, another 五 and 伍, and 九 that joins nothing
    e = "x1 x2 x3 x1 x2 x3 d1 d2 d3 d1 d2 d3 x4 x5 x6 d4 d5 d6 x5 d5"  # and the 亮张 九
    g = Paohuzi(Deal.from_dict(fill({"E": e}, shown="x9")))
    assert PaohuziBot().choose(g.view("E")) == Action.discard("E", "x9")
    g = Paohuzi(Deal.from_dict(fill({"E": "x5", "N": "x4 x6"}, stock="d9 x5 x5 x5")))
    g.apply(Action.discard("E", "x5"))
    a = PaohuziBot().choose(g.view("N"))
    assert a.type == "chi" and a in g.legal_actions("N")


def test_the_bot_claims_a_peng_of_a_pair_outside_its_groups():
    g = Paohuzi(Deal.from_dict(fill({"E": "d10", "W": "d10 d10"}, stock="d9")))
    g.apply(Action.discard("E", "d10"))
    assert g.view("W")["may"]["peng"]
    assert PaohuziBot().choose(g.view("W")) == Action.peng("W")


def test_a_waiting_bot_passes_a_chi_that_would_break_its_wait():
    for card in ("x5", "d5"):  # 吃 with 比牌 takes 五 or 伍 from two groups of N's
        g = Paohuzi(Deal.from_dict(fill({"E": card, "N": READY}, stock="d10")))
        g.apply(Action.discard("E", card))
        assert g.view("N")["may"]["chi"]
        assert PaohuziBot().choose(g.view("N")) == Action.pass_("N")


def test_whim_plays_other_deals_for_other_seeds_and_the_same_for_the_same_seed():
    deal = _deal(7)

    def table(seed, whim):
        bots = {s: GAME.new_bot(seed=seed * 10 + i, whim=whim) for i, s in enumerate(SEATS)}
        g = _play(deal, {s: (lambda g, seat: bots[seat].choose(g.view(seat), None)) for s in SEATS},
                  random.Random(0))
        return [a.to_dict() for a in g.actions]

    first = table(1, 0.3)
    assert first == table(1, 0.3) and first != table(2, 0.3)


def test_the_registry_gives_this_bot_and_bad_calls_are_refused():
    assert GAME.bot is PaohuziBot
    assert GAME.new_bot(seed=1).needs_legal is False  # it decides from the view alone
    with pytest.raises(ValueError):
        PaohuziBot(whim=1.5)
    g = Paohuzi(_deal(3))
    with pytest.raises(ValueError):
        PaohuziBot().choose(g.view("W"))  # W has nothing to decide
    with pytest.raises(ValueError):
        PaohuziBot().choose(g.view(None))  # the public view is nobody's


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 60), st.floats(0, 1))
def test_from_any_point_of_random_play_the_bot_chooses_a_legal_action(seed, steps, whim):
    rnd = random.Random(seed)
    g = Paohuzi(_deal(seed % 1000))
    for _ in range(steps):
        if g.phase == "over":
            return
        seat = rnd.choice(g.to_act())
        g.apply(rnd.choice(g.legal_actions(seat)))
    for seat in g.to_act():  # every seat asked about a card, or the discarder
        a = PaohuziBot(seed=seed, whim=whim).choose(json.loads(json.dumps(g.view(seat))))
        assert a in g.legal_actions(seat)
