"""Guandan situations for firmware tests, made by the real engine (``hub/rules/guandan.py``)
and its bot: a match's first deal played out, then the second deal with its tribute, and
moments of it — every view has exactly the shape the hub sends.

The seat under test is ``SEAT`` (E).  ``second()`` is the second deal of the match: its
tribute phase; ``at(phase)`` plays it (bots) until that phase; ``wild_choice()`` is a play
moment whose selection (with a heart level card) has more than one legal meaning.
"""

import random

from paizhuo.bots.guandan import GuandanBot
from paizhuo.rules.guandan import SEATS, Action, Deal, GuandanDeal, Match, Rules

SEAT = "E"
PLAYERS = {"E": {"id": "P01", "name": "王明"}, "N": {"id": "P02", "name": "Li Na"},
           "W": {"id": "P03", "name": "Chen"}, "S": {"id": "P04", "name": "Zhao"}}


def deal(seed):
    order = list(range(108))
    random.Random(seed).shuffle(order)
    return Deal.from_permutation(order, board=seed)


def clock(seats, ms=20000, paused=False):
    return {"seats": list(seats), "ms": ms, "paused": paused}


def play_out(g, bots, stop=lambda g: False):
    """Let the bots play ``g`` until ``stop(g)`` or the end; the events of the last action."""
    events = []
    while g.phase != "over" and not stop(g):
        s = g.to_act()[0]
        events = g.apply(bots[s].choose(g.view(s)))
    return events


def bots():
    return {s: GuandanBot() for s in SEATS}


def match_with_tribute(first=1, second=2):
    """A match whose first deal is over and whose second deal (dealt ``second``) starts with
    a tribute (no 抗贡): (match, game of the second deal)."""
    for seed in range(second, second + 50):
        m = Match(Rules())
        g = m.start(deal(first))
        play_out(g, bots())
        m.finish(g)
        g2 = m.start(deal(seed))
        if g2.phase == "tribute":
            return m, g2
    raise AssertionError("no tribute found")


def state(g, screen="deal", seat=SEAT, players=PLAYERS, match=None, clock_ms=20000):
    over = g.phase == "over"
    msg = {"t": "state", "screen": "result" if over else screen, "view": g.view(seat), "turn": len(g.actions),
           "clock": None if over else clock(g.to_act(), clock_ms), "players": players,
           "result": g.result() if over else None, "seatmap": None}
    if match is not None:
        msg["match"] = match.progress()
    return msg


def event(g, events, seat=SEAT):
    return {"t": "event", "events": events, "view": g.view(seat), "turn": len(g.actions),
            "clock": clock(g.to_act()) if g.phase != "over" else clock([], 0)}


def describe_answer(g, msg, seat=SEAT):
    """The hub's answer to a seat's ``describe`` (as hub/table/runtime.py makes it)."""
    return {"t": "meanings", "turn": msg["turn"], "cards": msg["cards"],
            "meanings": g.describe(seat, msg["cards"]) if msg["turn"] == len(g.actions) else []}


def wild_choice():
    """A level-2 deal that E leads, holding the heart 2 (wild) with ♦3 ♦4 ♦5 ♦6: (game, cards)
    where ``cards`` may be played four ways (a straight or a straight flush, to 6 or to 7)."""
    hands = {"E": "2H 3D 3C 3S 4D 5D 6D 7D 8C 9C TC JC QC KC AC 8S 9S TS JS QS KS AS 4C 5C 6C 7C 8D",
             "N": "", "W": "", "S": ""}
    from paizhuo.rules.guandan import fill
    g = GuandanDeal(Deal.from_dict(fill(hands)))
    return g, ["2H", "3D", "4D", "5D", "6D"]
