"""The rules oracle: answers rule questions as JSON, for referees and conformance tests.

``paizhuo rules serve`` reads one JSON request per line and writes one JSON answer per line.
A malformed request gets ``{"ok": false, "error": "..."}`` and the next line is read as usual.

Ops: ``classify`` (cards → kinds), ``beats`` (play over play), ``score`` (hands left, 明牌 and
加倍 → card points and scores), ``legal`` (every legal play of a hand, optionally over a play,
on the 首攻 or under the 报单 duty), ``replay`` (a deal record → where it stands, and the
result if it is over; an illegal action is named by its index) and ``games``.  Each op takes
optional ``"rules"``: rule options by name (docs/rules-options.md).

>>> answer({"op": "classify", "game": "bigtwo", "cards": ["3D", "3S"]})
{'ok': True, 'kinds': ['pair']}
>>> answer({"op": "beats", "game": "bigtwo", "play": ["2D"], "over": ["AS"]})
{'ok': True, 'beats': True}
>>> answer({"op": "classify", "game": "bigtwo", "cards": ["3D", "1Z"]})["error"]
"'1Z' is not a card: write rank (2-9, T, J, Q, K, A) then suit (S, H, C, D), like '3D' or 'TS'"
"""

import json
import sys

from paizhuo_shared import bigtwo as bt
from paizhuo_shared.cards import InvalidCardError

from . import GAMES
from . import bigtwo as engine

OPS = ("classify", "beats", "score", "legal", "replay", "games")
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


def answer(req):
    """Answer one request (a dict); never raises for bad input."""
    try:
        if not isinstance(req, dict):
            raise RequestError("a request must be a JSON object like {\"op\": \"classify\", ...}")
        op = _field(req, "op", str)
        if op not in OPS:
            raise RequestError("unknown op %r; ops are %s" % (op, ", ".join(OPS)))
        if op == "games":
            return {"ok": True, "games": sorted(GAMES)}
        game = _field(req, "game", str)
        if GAMES.get(game) is not engine:  # one game so far; each new engine adds its ops here
            raise RequestError("unknown game %r; games are %s" % (game, ", ".join(sorted(GAMES))))
        out = {"ok": True}
        out.update(_bigtwo(req, op))
        return out
    except engine.IllegalActionError as e:  # a replayed record with an illegal action
        return {"ok": False, "error": str(e), "code": e.code, "zh": e.zh}
    except ValueError as e:  # RequestError, InvalidCardError, rule options, deals
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
            try:
                out = answer(req)
            except Exception as e:  # a bug must not end a referee's session; say so and carry on
                sys.stderr.write("paizhuo rules: internal error on %r: %r\n" % (line[:200], e))
                out = {"ok": False, "error": "internal error (reported on stderr): %s" % type(e).__name__}
    return json.dumps(out, ensure_ascii=False)


def serve(inp, out):
    """Read requests from ``inp`` line by line until EOF, answering each on ``out`` at once."""
    for line in inp:
        if not line.strip():
            continue
        out.write(answer_line(line) + "\n")
        out.flush()
