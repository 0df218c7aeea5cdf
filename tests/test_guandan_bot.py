"""The Guandan bot plays many seeded deals and matches legally, from its seat's view only."""

import random

from paizhuo.bots.guandan import GuandanBot
from paizhuo.rules.guandan import Deal, Match, Rules


def test_bot_plays_seeded_matches_legally():
    bot = GuandanBot()
    deals = 0
    for seed in range(4):
        rnd = random.Random(seed)
        m = Match(Rules(max_deals=5))
        while not m.over:
            g = m.start(Deal.from_permutation(rnd.sample(range(108), 108)))
            while g.phase != "over":
                seat = rnd.choice(g.to_act())
                a = bot.choose(g.view(seat))
                g.verify(a)  # the bot's choice is always legal
                g.apply(a)
            m.finish(g)
            deals += 1
        assert m.result()["deals"] <= 5
    assert deals >= 8


def test_bot_keeps_bombs_when_leading_and_never_beats_its_partner():
    from paizhuo.rules.guandan import Action, GuandanDeal, fill
    e = "3D 3D 3C 3C 3H 3H 3S 3S 4D 4D 4C 4C 4H 4H 4S 4S 5D 5D 5C 5C 5H 5H 5S 5S 6D 6D 6C"
    g = GuandanDeal(Deal.from_dict(fill({"E": e})))
    bot = GuandanBot()
    lead = bot.choose(g.view("E"))
    assert lead == Action.play("E", "6D 6D 6C", "triple:6")  # the bombs stay whole
    g.apply(lead)
    g.apply(Action.pass_("N"))
    assert bot.choose(g.view("W")) == Action.pass_("W")  # its partner's play stands


def _match_on(deals, bots):
    """A two-deal match on ``deals`` with one bot per seat; returns every action played."""
    m = Match(Rules(max_deals=2))
    played = []
    for d in deals:
        if m.over:
            break
        g = m.start(d)
        while g.phase != "over":
            seat = g.to_act()[0]
            a = bots[seat].choose(g.view(seat), None)
            g.verify(a)  # offhand or not, always legal
            g.apply(a)
            played.append(a.to_dict())
        m.finish(g)
    return played


def test_seeded_bots_play_other_matches_on_the_same_deals():
    from paizhuo import rules as rules_
    gd = rules_.game("guandan")
    rnd = random.Random(11)
    deals = [Deal.from_permutation(rnd.sample(range(108), 108)) for _ in range(2)]

    def table(seed, whim):
        return _match_on(deals, {s: gd.new_bot(seed=seed * 10 + i, whim=whim) for i, s in enumerate("ENWS")})

    assert table(1, 0.2) == table(1, 0.2)  # the same seed: the same match
    assert table(1, 0.2) != table(2, 0.2)  # two tables on the same deals: two matches
    assert table(1, 0.0) == table(1, 0.0)
