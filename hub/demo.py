"""``paizhuo demo``: four bots play one complete Big Two deal from a seeded deal, shown on the terminal.

The deal comes from the event's HMAC deal generator (:mod:`paizhuo.venue.deals`) with a demo
secret derived from the seed; everything else is the real engine and the real bot.
"""

import hashlib
import unicodedata

from paizhuo_shared.bigtwo import KIND_NAMES_ZH
from paizhuo_shared.cards import pretty

from .bots.bigtwo import BigTwoBot
from .rules.bigtwo import SEAT_NAMES_ZH, SEATS, BigTwo
from .venue import deals

SEAT_LABEL = {s: "%s %s" % (SEAT_NAMES_ZH[s], s) for s in SEATS}


def _pad(text, width):
    """Left-align ``text`` in ``width`` terminal columns (Chinese characters take two)."""
    cols = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - cols)


def _cards(codes):
    return " ".join(pretty(c) for c in codes) if codes else "—"


def demo_secret(seed):
    """The demo's event secret: a fixed function of the seed (an event uses 32 random bytes)."""
    return hashlib.sha256(b"paizhuo demo secret|%d" % seed).digest()


def demo_record(seed, board=1):
    """The demo deal as the venue records it (round 1, group 1), hash included."""
    return deals.deal(demo_secret(seed), "bigtwo", 1, 1, board)


def seeded_deal(seed, board=1):
    """The Big Two engine deal of board ``board`` from the event deal generator, seeded by ``seed``."""
    return demo_record(seed, board).to_engine_deal()


def play_deal(deal, bots, out=print):
    """Play ``deal`` with one bot per seat, narrating every event through ``out``; return the state."""
    game = BigTwo(deal)
    out("Board %s — 竞技锄大地, seeded deal" % deal.board)
    for seat in SEATS:
        out("  %s  %s" % (SEAT_LABEL[seat], _cards(game.view(seat)["hand"])))
    out("首家 (holds ♦3): %s" % SEAT_LABEL[deal.first_seat])
    out("")
    out("明牌 (show hand), decided together:")
    while game.phase != "over":
        seat = game.to_act()[0]
        view = game.view(seat)
        action = bots[seat].choose(view, game.legal_actions(seat))
        events = game.apply(action)
        if action.type == "show":
            out("  %s %s" % (SEAT_LABEL[seat], "明牌 shows" if action.yes else "不明牌 keeps it hidden"))
        for ev in events:
            kind = ev["type"]
            if kind == "shown":
                for s, hand in sorted(ev["hands"].items()):
                    out("  shown: %s %s" % (SEAT_LABEL[s], _cards(hand)))
            elif kind == "phase" and ev["phase"] == "double":
                out("")
                out("加倍 (double), one by one from %s:" % SEAT_LABEL[ev["turn"]])
            elif kind == "double":
                out("  %s %s" % (SEAT_LABEL[ev["seat"]], "加倍 doubles" if ev["yes"] else "不加倍 does not double"))
            elif kind == "phase" and ev["phase"] == "play":
                out("")
                out("Play (%s leads with ♦3):" % SEAT_LABEL[ev["turn"]])
            elif kind == "play":
                out("  %s  %s %s (%s), %d left" % (
                    SEAT_LABEL[ev["seat"]], _pad(_cards(ev["cards"]), 16), ev["kind"], KIND_NAMES_ZH[ev["kind"]],
                    ev["left"]))
            elif kind == "pass":
                out("  %s  过 pass" % SEAT_LABEL[ev["seat"]])
            elif kind == "report":
                out("  ** 报单: %s has one card left **" % SEAT_LABEL[ev["seat"]])
            elif kind == "round_end":
                out("  — round over, %s leads —" % SEAT_LABEL[ev["leader"]])
    r = game.result()
    out("")
    out("Result: %s went out." % SEAT_LABEL[r.winner])
    out("  " + "".join(_pad(h, w) for h, w in (("seat", 7), ("left", 6), ("♠2", 5), ("明牌", 6), ("加倍", 6),
                                                  ("牌分", 6), ("score", 8), ("place", 5))))
    for s in SEATS:
        out("  %s%4d  %s%s%s%4d  %6d  %5d" % (
            _pad(SEAT_LABEL[s], 7), r.cards_left[s], _pad("yes" if "2S" in r.hands_left[s] else "", 5),
            _pad("yes" if r.shown[s] else "", 6), _pad("yes" if r.doubled[s] else "", 6), r.points[s],
            r.scores[s], r.places[s]))
    out("  scores sum to %d" % sum(r.scores.values()))
    return game


def main(seed=2026, board=1, out=print):
    record = demo_record(seed, board)
    out("Deal hash (each table's result carries it; published after the round): %s" % record.hash)
    deal = record.to_engine_deal()
    bots = {seat: BigTwoBot(seed * 10 + i) for i, seat in enumerate(SEATS)}
    return play_deal(deal, bots, out)
