"""The rules oracle's Big Two questions (``"game": "bigtwo"``), answered by ``paizhuo_shared.bigtwo``
and the engine (:mod:`.oracle` reads the requests and finds this through the registry).

>>> from .oracle import answer
>>> answer({"op": "classify", "game": "bigtwo", "cards": ["3D", "3S"]})
{'ok': True, 'kinds': ['pair']}
>>> answer({"op": "beats", "game": "bigtwo", "play": ["2D"], "over": ["AS"]})
{'ok': True, 'beats': True}
>>> answer({"op": "classify", "game": "bigtwo", "cards": ["3D", "1Z"]})["error"]
"'1Z' is not a card: write rank (2-9, T, J, Q, K, A) then suit (S, H, C, D), like '3D' or 'TS'"
"""

from paizhuo_shared import bigtwo as bt

from . import bigtwo as engine
from .oracle import OPS, RequestError, _field

# `paizhuo rules` examples (arguments after the game's name, what each asks): the CLI shows them.
EXAMPLES = (
    ("classify 3D 3S", "what kind of play is this?", "这手牌是什么牌型？"),
    ("beats --play 2D --over AS", "does one play beat another?", "一手牌能否压过另一手？"),
    ("legal 3D 4D 3S ... [--over 5H] [--first-play] [--duty]", "every legal play of a hand", "一手牌的全部合法出法"),
    ("score --left E=\"5D 6D\" --left N= ... [--shown E] [--doubled E S]", "card points and scores of a finished deal",
     "已结束牌局的牌分与得分"),
)


def _rules(req):
    try:
        return bt.Rules.from_dict(req.get("rules"))
    except (TypeError, ValueError) as e:
        raise RequestError("rules: %s" % e) from None


def _seat_map(req, name, values):
    data = _field(req, name, dict)
    if sorted(data) != sorted(engine.SEATS):
        raise RequestError("%r must name exactly the seats E, N, W, S" % name)
    for seat, v in data.items():
        if not values(v):
            raise RequestError("%s.%s has a bad value %r" % (name, seat, v))
    return data


def answer(req, op):
    """Big Two's answers (the registry's ``oracle`` of the game)."""
    rules = _rules(req)
    if op == "classify":
        cs = bt.cards(_field(req, "cards", list))
        kind = bt.classify(cs, rules)
        return {"kinds": [] if kind is None else [kind[0]]}
    if op == "beats":
        play = bt.cards(_field(req, "play", list))
        over = bt.cards(_field(req, "over", list))
        return {"beats": bt.beats(play, over, rules)}
    if op == "score":
        hands = _seat_map(req, "hands_left", lambda v: isinstance(v, list))
        shown = _seat_map(req, "shown", lambda v: v is True or v is False)
        doubled = _seat_map(req, "doubled", lambda v: v is True or v is False)
        left = {s: bt.cards(hands[s]) for s in engine.SEATS}
        seen = set()
        for s in engine.SEATS:
            if len(left[s]) > 13:
                raise RequestError("hands_left.%s has %d cards; a hand has at most 13" % (s, len(left[s])))
            for c in left[s]:
                if c in seen:
                    raise RequestError("%s is left in two hands" % bt.code(c))
                seen.add(c)
        out_seats = [s for s in engine.SEATS if not left[s]]
        if len(out_seats) != 1:
            raise RequestError("a finished deal has exactly one seat with no cards left (the one who went out), "
                               "not %d" % len(out_seats))
        points = [bt.card_points(len(left[s]), bt.SPADE_TWO in left[s], rules) for s in engine.SEATS]
        sc = bt.scores(points, [shown[s] for s in engine.SEATS], [doubled[s] for s in engine.SEATS])
        return {"points": dict(zip(engine.SEATS, points)), "scores": dict(zip(engine.SEATS, sc))}
    if op == "legal":
        hand = bt.cards(_field(req, "hand", list))
        over = req.get("over")
        over = bt.cards(over) if over else None
        kind = bt.classify(over, rules) if over else None
        if over and kind is None:
            raise RequestError("'over' is not a legal play")
        found = bt.plays(hand, rules, size=len(over) if over else 0, above=kind[1] if kind else -1,
                         must_hold=bt.DIAMOND_THREE if req.get("first_play") else -1,
                         top_single_only=bool(req.get("duty")))
        return {"plays": [{"cards": bt.codes(p[0]), "kind": p[1]} for p in found]}
    if op == "replay":
        state = engine.BigTwo.from_record(_field(req, "record", dict))
        out = {"phase": state.phase, "to_act": list(state.to_act()), "actions": len(state.actions)}
        if state.phase == engine.OVER:
            out["result"] = state.result().to_dict()
        return out
    raise RequestError("unknown op %r; ops are %s" % (op, ", ".join(OPS)))
