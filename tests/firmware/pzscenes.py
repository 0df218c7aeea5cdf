"""Paohuzi situations for firmware tests: views made by hand in the shape of PAOHUZI.md's
``view(seat)`` (the engine is built beside the seat, so these are written, not played), and
the hub messages that carry them.

The seat under test is ``SEAT`` (E, the dealer).  Each scene is one moment a player meets:
``discard()`` (E discards after a 碰; 北家 holds a face-down 偎), ``claim()`` (西家 turned up
四 from the stock: E may 胡, 碰 or 吃, every 吃 with its 比牌), ``chi_choice()`` (several ways
to 吃), ``waiting()`` (a claim E is not asked in; 北家's 偎 became a hidden 提), ``start()``
(the deal: 21 cards) and ``over()`` (the result).
"""

PLAYERS = {"E": {"id": "P01", "name": "王明"}, "N": {"id": "P02", "name": "Li Na"},
           "W": {"id": "P03", "name": "Chen"}}
SEAT = "E"

# The dealer's 21 cards at the deal: a 坎 (三三三), 二七十, runs, pairs and singles.
START = ["x3", "x3", "x3", "x2", "x7", "x10", "x4", "x5", "x6", "d1", "d2", "d3", "x8", "x8", "d8",
         "d5", "d9", "d10", "x1", "d6", "x9"]
# Later in the deal, after E's 碰 of 五 (x5 x5) and a 吃: the 17 cards E holds.
HAND = ["x2", "x3", "x4", "x4", "x5", "x6", "x7", "x10", "d4", "d4", "d1", "d2", "d3", "x8", "x8", "d8", "d9"]


def groups(*gs):
    return [{"kind": k, "cards": None if cs is None else cs.split()} for k, cs in gs]


def view(phase="discard", seat=SEAT, hand=None, to_act=None, out=None, may=None, stock=12, board=7, **more):
    hand = sorted(HAND if hand is None else hand, key=lambda c: (c[0] == "d", int(c[1:])))
    v = {"game": "paohuzi", "board": board, "phase": phase, "seat": seat, "dealer": "E",
         "turn": (out or {}).get("by", seat), "to_act": [seat] if to_act is None else to_act,
         "hand": hand, "counts": {"E": len(hand), "N": 14, "W": 17},
         "open": {"E": groups(("peng", "x5 x5 x5"), ("chi", "d6 d7 d8")),
                  "N": groups(("wei", None), ("chi", "x1 x2 x3"), ("peng", "d10 d10 d10")),
                  "W": groups(("chi", "x7 d7 d7"))},
         "huxi": {"E": 1, "N": 3, "W": 0},
         "piles": {"E": ["d5", "x9"], "N": ["x6", "d2", "x10", "d9", "x1", "d3", "x7", "d4", "x2"], "W": ["d1"]},
         "out": out, "stock": stock, "stale": ["x9"], "time_limit": 20 if phase == "discard" else 10}
    if may is not None:
        v["may"] = may
    v.update(more)
    return v


def clock(seats, ms=20000, paused=False):
    return {"seats": list(seats), "ms": ms, "paused": paused}


def state(v, turn=5, players=PLAYERS, result=None, clock_ms=None, seatmap=None):
    over = v["phase"] == "over"
    ms = clock_ms if clock_ms is not None else (v.get("time_limit") or 10) * 1000
    return {"t": "state", "screen": "result" if over else "deal", "view": v, "turn": turn,
            "clock": None if over else clock(v["to_act"] or ["E", "N", "W"], ms), "players": players,
            "result": result, "seatmap": seatmap}


def event(v, events, turn=6, clock_ms=None):
    over = v["phase"] == "over"
    ms = clock_ms if clock_ms is not None else (v.get("time_limit") or 10) * 1000
    return {"t": "event", "events": events, "view": v, "turn": turn,
            "clock": clock([], 0) if over else clock(v["to_act"] or ["E", "N", "W"], ms)}


def start():
    """The deal: E, the dealer, holds 21 cards and discards first (nothing out yet)."""
    v = view(hand=START, stock=19, board=3)
    v.update({"open": {"E": [], "N": [], "W": []}, "huxi": {"E": 0, "N": 0, "W": 0},
              "piles": {"E": [], "N": [], "W": []}, "counts": {"E": 21, "N": 20, "W": 20}, "stale": []})
    return v


def discard():
    """E discards after its 碰: nothing is out; 北家 holds a face-down 偎."""
    return view()


def claim():
    """西家 turned up 四 (x4) from the stock: E may 胡 (a stock card), 碰 (a pair of 四) or 吃 —
    every 吃 with 比牌 groups for the two 四 in hand."""
    chi = [[["x4", "x5", "x6"], ["x2", "x3", "x4"], ["x4", "d4", "d4"]],
           [["x2", "x3", "x4"], ["x4", "x5", "x6"], ["x4", "d4", "d4"]]]
    return view("claim", out={"card": "x4", "by": "W", "from": "stock"}, may={"hu": True, "peng": True, "chi": chi})


CHI_WAYS = [[["x3", "x4", "x5"]],
            [["x4", "x5", "x6"]],
            [["x2", "x3", "x4"]],
            [["x4", "d4", "d4"]],
            [["x3", "x4", "x5"], ["x2", "x7", "x10"]]]


def chi_choice():
    """西家 (E's 上家) discarded 四: E, its 下家, may 吃 it five ways (no 胡 on a discard)."""
    hand = HAND[:2] + HAND[3:]  # one 四 in hand
    return view("claim", hand=hand, out={"card": "x4", "by": "W", "from": "discard"},
                may={"hu": False, "peng": False, "chi": CHI_WAYS})


def waiting():
    """A claim E is not asked in (nobody learns who is); 北家's 偎 became a hidden 提."""
    v = view("claim", to_act=[], out={"card": "d2", "by": "N", "from": "stock"})
    v["open"]["N"][0] = {"kind": "ti", "cards": None}
    return v


RESULT = {"winner": "E", "self_drawn": True, "huxi": 15, "tun": 4, "fan": 2, "names": ["hong_hu"],
          "groups": groups(("peng", "x5 x5 x5"), ("chi", "d6 d7 d8"), ("kan", "x3 x3 x3"), ("ju", "x2 x7 x10"),
                           ("ju", "d1 d2 d3"), ("jiao", "x8 x8 d8"), ("jiang", "d4 d4")),
          "scores": {"E": 16, "N": -8, "W": -8}, "places": {"E": 1, "N": 2, "W": 2},
          "hands_left": {"N": ["x1"], "W": ["d1"]}, "auto_moves": {"E": 0, "N": 1, "W": 0},
          "think_ms": {"E": 1000, "N": 2000, "W": 3000}}


def over():
    v = view("over", to_act=[], out=None)
    v["result"] = dict(RESULT)
    return v
