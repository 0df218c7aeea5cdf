"""Simulated table hubs of a match event for the venue tests: each plays its round spec's match
with the real engine (the registry's ``Match``) and bot, from the deals the round key gives, and
publishes the result message a hub publishes (no figure is made by hand)."""

import random
import secrets

from paizhuo import deals, rules
from paizhuo.mqtt import wire

_PLAYED = {}


def play_match(spec, board, round_key, seed):
    """Play the board (a match) of ``spec`` from the round key: ``(record, result)``.
    The bots mostly play the registry's bot and now and then (by ``seed``) another legal action,
    so tables on the same deals end differently.  Cached."""
    key = (round_key, spec["group"], board, seed, str(spec.get("rules")))
    if key in _PLAYED:
        return _PLAYED[key]
    game = spec["game"]
    g = rules.game(game)
    eng = g.engine
    rnd = random.Random(seed)
    m = g.new_board(eng.Rules.from_dict(spec["rules"]) if spec.get("rules") else None)
    bot = g.new_bot(seed)
    n = 0
    while not m.over:
        n += 1
        rec = deals.deal_from_round_key(bytes.fromhex(round_key), game, spec["group"], board, round=spec["round"], deal=n)
        if n == 1:
            assert rec.hash == spec["deal_hashes"][str(board)], "the start's key does not give the spec's deal"
        state = m.start(g.deal_for(rec))
        step = 0
        while state.to_act():
            seat = state.to_act()[0]
            view = state.view(seat)
            step += 1
            if view["phase"] == "play" and rnd.random() < 0.15:
                action = rnd.choice(state.legal_actions(seat))
            else:
                action = bot.choose(view, None)
            state.apply(action.with_meta(think_ms=300 + (step * 37 + seed) % 3000))
        m.finish(state)
    result = m.result()
    result.pop("records")
    record = dict(m.record(), result=result)
    _PLAYED[key] = (record, result)
    return _PLAYED[key]


class MatchHub:
    """A hub of a match event: outbox messages with an epoch and a cursor, results of its matches."""

    def __init__(self, hub, table, event, secret_text):
        self.hub, self.table, self.event = hub, table, event
        self.secret = deals.parse_secret(secret_text)
        self.epoch = secrets.token_hex(8)
        self.n = 0

    def topic(self, leaf):
        return wire.hub_topic(self.event, self.hub, leaf)

    def result(self, spec, seed=None, forge=None):
        """The result message of the spec's match; ``forge(record, rows)`` may change it."""
        board = spec["boards"][0]
        seed = int(self.table) if seed is None else seed
        key = deals.round_key(self.secret, spec["round"]).hex()
        record, result = play_match(spec, board, key, seed)
        record = dict(record, result=dict(result))
        h = deals.deal_from_round_key(bytes.fromhex(key), spec["game"], spec["group"], board, round=spec["round"]).hash
        rows = []
        for s in "ENWS":
            p = spec["players"][s]
            rows.append({"result_id": "%s/%s/r%d/g%d/b%d/%s" % (self.hub, self.table, spec["round"], spec["group"], board, s),
                         "round": spec["round"], "group": spec["group"], "board": board, "table": self.table,
                         "seat": s, "player": p["id"], "score": result["scores"][s],
                         "think_ms": result["think_ms"][s], "auto_moves": result["auto_moves"][s], "deal_hash": h,
                         "bot": bool(p.get("bot"))})
        if forge is not None:
            record = forge(record, rows) or record
        self.n += 1
        return {"v": 1, "kind": "result", "epoch": self.epoch, "n": self.n, "hub": self.hub, "table": self.table,
                "at": 1_700_000_000_000 + self.n, "round": spec["round"], "group": spec["group"], "board": board,
                "deal": 0, "deal_hash": h, "rows": rows, "record": record}
