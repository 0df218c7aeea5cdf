"""A seeded, legal Big Two player for the demo, 托管 (auto-play of an absent seat) and 人机赛.

The bot decides from what its seat may see — the seat's view and its legal actions — so it
can never use hidden cards.  Its heuristics are simple and deterministic for a given seed:

- 明牌 only with a very strong hand (the ×3 multiplies losses too); 加倍 with a good one.
- Leading: shed the weakest cards first — a five-card hand if it has one, else the pair or
  triple holding its lowest card, else its lowest single.  Under the 报单 duty it prefers
  combinations (a single would have to be its highest card).
- Following: the cheapest play that beats the table; it keeps its 2s while the opponents are
  far from going out, and always contests when an opponent is down to a few cards.

>>> from paizhuo.rules.bigtwo import BigTwo, Deal
>>> import random
>>> order = list(range(52)); random.Random(7).shuffle(order)
>>> game = BigTwo(Deal.from_permutation(order, board=1))
>>> bots = {seat: BigTwoBot(seed=i) for i, seat in enumerate("ENWS")}
>>> while game.phase != "over":
...     seat = game.to_act()[0]
...     _ = game.apply(bots[seat].choose(game.view(seat), game.legal_actions(seat)))
>>> sum(game.result().scores.values())
0
"""

from paizhuo_shared import bigtwo as plays_
from paizhuo.bots import SeededBot

_TWO = 12  # rank index of the 2 in Big Two order
_ACE = 11


class BigTwoBot(SeededBot):
    """A deterministic computer player; ``seed`` breaks ties so different bots differ.

    ``whim`` (0 to 1, default 0) is how often it makes a person's offhand choice instead of its
    best one — any legal play or pass.  Simulated fields (the demo's tables) use it so that
    the tables of a group, which play the same cards, do not all come out the same.
    """

    def choose(self, view, legal):
        """Pick one of ``legal`` (the seat's legal actions) from the seat's ``view``."""
        if not legal:
            raise ValueError("the bot was asked to act with no legal actions")
        if self.whim and len(legal) > 1 and self.rng.random() < self.whim:
            return legal[self.rng.randrange(len(legal))]
        kind = legal[0].type
        if kind in ("show", "double"):
            return self._decide(view, legal)
        plays = [a for a in legal if a.type == "play"]
        passing = [a for a in legal if a.type == "pass"]
        if view["to_beat"] is None:
            return self._lead(view, plays)
        return self._follow(view, plays, passing)

    @staticmethod
    def _strength(hand):
        cards = plays_.cards(hand)
        high = sum(1 for c in cards if c >> 2 >= _ACE)
        return high + (1 if plays_.SPADE_TWO in cards else 0)

    def _decide(self, view, legal):
        strength = self._strength(view["hand"])
        want = strength >= 6 if legal[0].type == "show" else strength >= 4 or (strength == 3 and self.rng.random() < 0.3)
        for a in legal:
            if a.yes == want:
                return a
        return legal[0]

    def _lead(self, view, plays):
        if view.get("duty"):
            combos = [a for a in plays if len(a.cards) > 1]
            if combos:
                return max(combos, key=lambda a: (len(a.cards), -a.cards[0]))
        low = min(min(a.cards) for a in plays)
        fives = [a for a in plays if len(a.cards) == 5 and low in a.cards]
        if fives:
            return fives[0]
        fives = [a for a in plays if len(a.cards) == 5 and max(a.cards) >> 2 < _ACE]
        if fives and self.rng.random() < 0.5:
            return fives[0]
        with_low = [a for a in plays if low in a.cards]
        size = max(len(a.cards) for a in with_low)
        best = [a for a in with_low if len(a.cards) == size]
        return best[self.rng.randrange(len(best))]  # the seed picks among equally good leads

    def _follow(self, view, plays, passing):
        if not plays:
            return passing[0]
        seat = view["seat"]
        danger = any(n <= 3 for s, n in view["counts"].items() if s != seat)
        cheapest = plays[0]  # legal actions are sorted by value
        if not danger and passing and max(cheapest.cards) >> 2 == _TWO and len(view["hand"]) > 4:
            return passing[0]  # keep the 2s for later
        if not danger and passing and len(cheapest.cards) < 5 and self._breaks_combo(view, cheapest):
            return passing[0]
        return cheapest

    @staticmethod
    def _breaks_combo(view, action):
        """True if playing ``action`` would split a pair or triple of the same rank (for singles)."""
        if len(action.cards) != 1:
            return False
        rank = action.cards[0] >> 2
        same = sum(1 for c in view["hand"] if plays_.card(c) >> 2 == rank)
        return same >= 2 and rank < _ACE
