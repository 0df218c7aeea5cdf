"""A rule-based, always-legal Guandan player (托管, 人机赛, demos), deciding from its seat's view.

- Tribute: the largest eligible card; return: the smallest eligible card.
- Leading: the weakest group that breaks no bomb and spends no wild card (longer first at
  equal strength, to shed cards); its smallest single if there is none.
- Following: never over its partner; otherwise the weakest non-bomb that beats the table;
  a bomb only when an opponent has reported 6 cards or fewer; else pass.
- ``seed`` picks among equally good choices, and ``whim`` (0 to 1) is how often it makes an
  offhand choice instead (any card it may give, any play it lists, or a pass when it may):
  tables on the same deals then play different matches, each the same for the same seed.

>>> from paizhuo.rules.guandan import GuandanDeal, Deal
>>> import random
>>> game = GuandanDeal(Deal.from_permutation(random.Random(3).sample(range(108), 108)))
>>> bot = GuandanBot()
>>> while game.phase != "over":
...     seat = game.to_act()[0]
...     _ = game.apply(bot.choose(game.view(seat)))
>>> sorted(game.result()["places"])
['E', 'N', 'S', 'W']
"""

from paizhuo_shared import guandan as plays_
from paizhuo.bots import SeededBot
from paizhuo.rules.guandan import Action, partner, side_of

CLOSE = 6  # an opponent with this many cards or fewer is worth a bomb


class GuandanBot(SeededBot):
    """A computer player, deterministic for its ``seed``: ``choose(view)`` is one legal
    :class:`Action` of the seat whose ``view`` it is given."""

    def _pick(self, options, key):
        """One of the best ``options`` by ``key``, the seed choosing among equals."""
        low = min(key(p) for p in options)
        best = [p for p in options if key(p) == low]
        return best[self.rng.randrange(len(best))] if len(best) > 1 else best[0]

    def choose(self, view):
        seat = view["seat"]
        t = view.get("tribute") or {}
        if view["phase"] in ("tribute", "return"):
            make = Action.tribute if view["phase"] == "tribute" else Action.return_
            eligible = t["eligible"]
            if self._offhand():
                return make(seat, eligible[self.rng.randrange(len(eligible))])
            return make(seat, eligible[-1] if view["phase"] == "tribute" else eligible[0])
        rules = plays_.Rules(level=view["level"])
        hand = plays_.cards(view["hand"])
        beat = view["to_beat"]
        over = None
        if beat is not None:
            if beat["seat"] == partner(seat):
                return Action.pass_(seat)  # never beat the partner
            over = [p for p in plays_.classify(plays_.cards(beat["cards"]), rules) if p.name == beat["meaning"]][0]
        found = plays_.plays_by_kind(hand, rules, over)
        if found and self._offhand():
            k = self.rng.randrange(len(found) + (1 if over is not None else 0))
            if k == len(found):
                return Action.pass_(seat)
            return Action.play(seat, sorted(found[k].cards), found[k].name)
        counts = {}
        for c in hand:
            counts[c >> 2] = counts.get(c >> 2, 0) + (1 if c < plays_.BJ and c != rules.wild else 0)
        bombs = set(r for r, n in counts.items() if n >= 4)

        def plain(p):
            return p.power < plays_.BOMB_POWER

        def keeps(p):
            return rules.wild not in p.cards and not any(c < plays_.BJ and c >> 2 in bombs for c in p.cards
                                                         if p.kind != plays_.BOMB)

        if over is None:
            nice = [p for p in found if plain(p) and keeps(p)] or [p for p in found if plain(p)] or found
            best = self._pick(nice, lambda p: (p.key if p.kind in (plays_.SINGLE, plays_.PAIR, plays_.TRIPLE,
                                                                     plays_.FULL_HOUSE) else p.key * 16, -p.size))
            return Action.play(seat, sorted(best.cards), best.name)
        cheap = [p for p in found if plain(p)]
        if cheap:
            best = self._pick(cheap, lambda p: (not keeps(p), p.key))
            return Action.play(seat, sorted(best.cards), best.name)
        close = any(n <= CLOSE for s, n in view["reports"].items() if side_of(s) != side_of(seat) and n)
        if close and found:
            best = self._pick(found, lambda p: p.power)
            return Action.play(seat, sorted(best.cards), best.name)
        return Action.pass_(seat)
