"""The Paohuzi bot: from its seat's view only, always legal, the same for the same seed."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo import rules
from paizhuo.bots.paohuzi import PaohuziBot
from paizhuo.rules.paohuzi import Deal, Paohuzi


def play(seed, whim, bot_seed=0):
    game = Paohuzi(Deal.from_permutation(random.Random(seed).sample(range(80), 80)))
    bots = {s: PaohuziBot(seed=bot_seed + i, whim=whim) for i, s in enumerate("ENW")}
    kinds = set()
    while game.phase != "over":
        for seat in game.to_act():
            view = game.view(seat)
            a = bots[seat].choose(view)
            assert a in game.legal_actions(seat), (seat, a, view)  # legal from the view alone
            kinds.add(a.type)
            game.apply(a)
            break
    return game, kinds


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from([0.0, 0.3, 1.0]))
def test_every_choice_is_legal_and_every_deal_ends_zero_sum(seed, whim):
    game, _ = play(seed, whim)
    assert sum(game.result().to_dict()["scores"].values()) == 0


def test_it_claims_when_it_may_and_plays_the_same_for_the_same_seed():
    seen = set()
    for seed in range(8):
        a, kinds = play(seed, 0.0)
        b, _ = play(seed, 0.0)
        assert a.record() == b.record()
        seen |= kinds
    assert {"discard", "chi", "peng", "hu", "pass"} <= seen


def test_it_is_the_registrys_bot_and_refuses_a_bad_whim():
    g = rules.game("paohuzi")
    assert g.bot is PaohuziBot and g.new_bot(seed=1).needs_legal is False
    with pytest.raises(ValueError):
        PaohuziBot(whim=2)
    game = Paohuzi(Deal.from_permutation(list(range(80))))
    asked = [s for s in "ENW" if s not in game.to_act()]
    with pytest.raises(ValueError):  # a seat with no decision: the bot never guesses one
        PaohuziBot().choose(dict(game.view(asked[0]), phase="claim"))
