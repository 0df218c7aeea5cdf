"""The rules oracle: answers rule questions as JSON, for referees and conformance tests.

``paizhuo rules serve`` reads one JSON request per line and writes one JSON answer per line.
A malformed request gets ``{"ok": false, "error": "..."}`` and the next line is read as usual.

>>> answer({"op": "classify", "game": "bigtwo", "cards": ["3D", "3S"]})
{'ok': True, 'kinds': ['pair']}
>>> answer({"op": "beats", "game": "bigtwo", "play": ["2D"], "over": ["AS"]})
{'ok': True, 'beats': True}
>>> answer({"op": "classify", "game": "bigtwo", "cards": ["3D", "1Z"]})["error"]
"'1Z' is not a card: write rank (2-9, T, J, Q, K, A) then suit (S, H, C, D), like '3D' or 'TS'"
"""

import json

from paizhuo_shared import bigtwo as bt
from paizhuo_shared.cards import InvalidCardError

from . import bigtwo as engine

OPS = ("classify", "beats", "score", "legal", "games")
MAX_LINE = 64 * 1024  # a request longer than this is refused without parsing


class RequestError(ValueError):
    """A request the oracle cannot answer; the message says what to fix."""


def _field(req, name, kind=None):
    if name not in req:
        raise RequestError("missing field %r" % name)
    value = req[name]
    if kind is not None and not isinstance(value, kind):
        raise RequestError("field %r must be %s" % (name, {list: "a list", dict: "an object", str: "a string"}[kind]))
    return value


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


def _bigtwo(req, op):
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
    raise RequestError("unknown op %r; ops are %s" % (op, ", ".join(OPS)))


def answer(req):
    """Answer one request (a dict); never raises for bad input."""
    try:
        if not isinstance(req, dict):
            raise RequestError("a request must be a JSON object like {\"op\": \"classify\", ...}")
        op = _field(req, "op", str)
        if op not in OPS:
            raise RequestError("unknown op %r; ops are %s" % (op, ", ".join(OPS)))
        if op == "games":
            from . import GAMES
            return {"ok": True, "games": sorted(GAMES)}
        game = _field(req, "game", str)
        if game != "bigtwo":
            from . import GAMES
            raise RequestError("unknown game %r; games are %s" % (game, ", ".join(sorted(GAMES))))
        out = {"ok": True}
        out.update(_bigtwo(req, op))
        return out
    except (RequestError, InvalidCardError) as e:
        return {"ok": False, "error": str(e)}
    except ValueError as e:  # option values and card counts checked by the rules code
        return {"ok": False, "error": str(e)}


def answer_line(line):
    """Answer one line of the serve protocol; returns the JSON text of the answer (no newline)."""
    if len(line) > MAX_LINE:
        out = {"ok": False, "error": "request longer than %d bytes" % MAX_LINE}
    else:
        try:
            req = json.loads(line)
        except ValueError as e:
            out = {"ok": False, "error": "not JSON: %s" % e}
        else:
            out = answer(req)
    return json.dumps(out, ensure_ascii=False)


def serve(inp, out):
    """Read requests from ``inp`` line by line until EOF, answering each on ``out`` at once."""
    for line in inp:
        if not line.strip():
            continue
        out.write(answer_line(line) + "\n")
        out.flush()
