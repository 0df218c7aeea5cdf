"""A rule-based, always-legal Paohuzi player (托管, 人机赛, demos), deciding from its seat's view.

- A claim (the view's ``may``, only while the seat is asked): 胡 whenever it may; 碰 when it
  may; 吃 a choice of one group, or one whose groups bring 胡息 (一二三 / 二七十), the fewest
  groups first (比牌 costs cards), then the most 胡息; else 过.
- A discard: a card not of a 坎 (a 坎 may not be split), the one with the fewest partners in
  hand (copies, neighbours of its case, the same number of the other case, 二七十 partners),
  a small card before a big one, then the lowest.
- ``seed`` picks among equally good choices, and ``whim`` (0 to 1) is how often it makes an
  offhand choice instead (any claim it may make or a pass, any card it may discard): tables
  on the same deals then play different deals, each the same for the same seed.

>>> from paizhuo.rules.paohuzi import Paohuzi, Deal
>>> import random
>>> game = Paohuzi(Deal.from_permutation(random.Random(3).sample(range(80), 80)))
>>> bots = {s: PaohuziBot(seed=i) for i, s in enumerate("ENW")}
>>> while game.phase != "over":
...     seat = game.to_act()[0]
...     _ = game.apply(bots[seat].choose(game.view(seat)))
>>> sum(game.result().to_dict()["scores"].values())
0
"""

from paizhuo_shared import paohuzi as pz
from paizhuo.bots import SeededBot
from paizhuo.rules.paohuzi import Action

RED_SET = (2, 7, 10)  # 二七十 / 贰柒拾: a 句 of their own


def _partners(c, counts):
    """How many cards in hand (``counts``: copies per card) could make a group with card ``c``:
    its other copies (twice: a pair is half a 碰 or 坎), its case neighbours within two, the
    same number of the other case, and its 二七十 partners."""
    big, n = c >= pz.BIG, c % 10 + 1
    base = pz.BIG if big else 0
    k = 2 * (counts[c] - 1)
    for d in (-2, -1, 1, 2):
        if 1 <= n + d <= 10:
            k += min(counts[base + n - 1 + d], 1)
    k += min(counts[(c + 10) % 20], 1)
    if n in RED_SET:
        k += sum(min(counts[base + m - 1], 1) for m in RED_SET if m != n)
    return k


class PaohuziBot(SeededBot):
    """A computer player, deterministic for its ``seed``: ``choose(view)`` is one legal
    :class:`Action` of the seat whose ``view`` it is given (a discard, or a claim while asked)."""

    def choose(self, view):
        seat = view["seat"]
        may = view.get("may")
        if view["phase"] == "claim":
            if may is None:
                raise ValueError("seat %s is not asked about the card out" % seat)
            return self._claim(seat, may)
        return self._discard(seat, pz.cards(view["hand"]))

    def _claim(self, seat, may):
        options = ([Action.hu(seat)] if may["hu"] else []) + ([Action.peng(seat)] if may["peng"] else [])
        options += [Action.chi(seat, ch) for ch in may["chi"]]
        if self._offhand():
            k = self.rng.randrange(len(options) + 1)
            return options[k] if k < len(options) else Action.pass_(seat)
        if may["hu"]:
            return Action.hu(seat)
        if may["peng"]:
            return Action.peng(seat)
        def gain(ch):  # the 胡息 the choice lays down
            return sum(pz.huxi("chi", pz.cards(g)) for g in ch)
        good = [ch for ch in may["chi"] if len(ch) == 1 or gain(ch)]
        if not good:
            return Action.pass_(seat)
        low = min((len(ch), -gain(ch)) for ch in good)
        best = [ch for ch in good if (len(ch), -gain(ch)) == low]
        return Action.chi(seat, best[self.rng.randrange(len(best))] if len(best) > 1 else best[0])

    def _discard(self, seat, hand):
        counts = [0] * 20
        for c in hand:
            counts[c] += 1
        free = sorted(set(c for c in hand if counts[c] < 3)) or sorted(set(hand))
        if self._offhand():
            return Action.discard(seat, pz.code(free[self.rng.randrange(len(free))]))
        best = min((_partners(c, counts), c >= pz.BIG, c) for c in free)
        return Action.discard(seat, pz.code(best[2]))
