"""Fixed game situations for firmware tests, made by the real engine (so every view has
exactly the shape the hub sends): a seeded deal played by seeded bots up to a point.

The seat under test is always ``SEAT`` (the holder of ♦3 in this deal, so it decides first
in 加倍 and makes the first play).
"""

import random

from paizhuo.bots.bigtwo import BigTwoBot
from paizhuo.rules.bigtwo import SEATS, Action, BigTwo, Deal

ORDER = list(range(52))
random.Random(7).shuffle(ORDER)
DEAL = Deal.from_permutation(ORDER, board=3)
SEAT = DEAL.first_seat
PLAYERS = {"E": {"id": "P01", "name": "王明"}, "N": {"id": "P02", "name": "Li Na"},
           "W": {"id": "P03", "name": "Chen"}, "S": {"id": "P04", "name": "Zhao"}}


def clock(seats, ms=25000, paused=False):
    return {"seats": list(seats), "ms": ms, "paused": paused}


def game_until(stop, shows=None, doubles=None):
    """Play the deal with bots until ``stop(game)`` is true; returns the game.

    ``shows``/``doubles``: seat -> yes/no overriding the bots in those phases.
    """
    g = BigTwo(DEAL)
    bots = {s: BigTwoBot(seed=i) for i, s in enumerate(SEATS)}
    while not stop(g):
        seat = g.to_act()[0]
        if g.phase == "show" and shows and seat in shows:
            a = Action.show(seat, shows[seat])
        elif g.phase == "double" and doubles and seat in doubles:
            a = Action.double(seat, doubles[seat])
        else:
            a = bots[seat].choose(g.view(seat), g.legal_actions(seat))
        g.apply(a)
    return g


def state(g, screen="deal", clock_ms=25000, paused=False, seat=SEAT, players=PLAYERS, seatmap=None):
    """The ``state`` message the hub sends ``seat`` for game ``g`` (None: no deal)."""
    if g is None:
        return {"t": "state", "screen": screen, "view": None, "turn": None, "clock": None,
                "players": players, "result": None, "seatmap": seatmap}
    over = g.phase == "over"
    return {"t": "state", "screen": "result" if over else screen, "view": g.view(seat), "turn": len(g.actions),
            "clock": None if over else clock(g.to_act(), clock_ms, paused), "players": players,
            "result": g.result().to_dict() if over else None, "seatmap": seatmap}


def fresh():
    return BigTwo(DEAL)


def double_phase():
    """Everyone has chosen 明牌 (S shows its hand); the seat under test doubles first."""
    return game_until(lambda g: g.phase == "double", shows={"E": False, "N": False, "W": False, "S": True})


def play_phase():
    """The first play, the seat under test to lead with ♦3."""
    return game_until(lambda g: g.phase == "play", shows={"E": False, "N": False, "W": False, "S": True},
                      doubles={"E": False, "N": True, "W": False, "S": False})


def following():
    """Play, the seat under test to follow a play (it may pass)."""
    def stop(g):
        return (g.phase == "play" and g.to_act() == (SEAT,) and g.to_beat is not None)
    return game_until(stop, shows={"S": True})


def report():
    """Someone other than the seat under test is down to one card (报单), the seat to act."""
    def stop(g):
        return g.phase == "play" and g.to_act() == (SEAT,) and any(
            len(g.hands[i]) == 1 for i in range(4) if SEATS[i] != SEAT)
    return game_until(stop, shows={"S": True})


def finished():
    return game_until(lambda g: g.phase == "over", shows={"S": True})
