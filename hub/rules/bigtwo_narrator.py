"""Big Two told on the terminal (``paizhuo demo --terminal`` and ``--table``): the hands, every
明牌/加倍 choice, every play, 报单 and the scored result.  The registry's ``narrator`` of the
game; the demo itself names no game."""

from paizhuo_shared.bigtwo import KIND_NAMES_ZH
from paizhuo_shared.cards import pretty

from .common import SEAT_NAMES_ZH, SEATS, pad

SEAT_LABEL = {s: "%s %s" % (SEAT_NAMES_ZH[s], s) for s in SEATS}


def _cards(codes):
    return " ".join(pretty(c) for c in codes) if codes else "—"


class Narrator:
    """Tells a deal on the terminal: the hands, every 明牌/加倍 choice, every play, 报单 and
    the scored result.  Fed with each applied action and the events the engine returned."""

    def __init__(self, out=print):
        self.out = out

    def opening(self, game, deal):
        out = self.out
        out("Board %s — 竞技锄大地, seeded deal" % deal.board)
        for seat in SEATS:
            out("  %s  %s" % (SEAT_LABEL[seat], _cards(game.view(seat)["hand"])))
        out("首家 (holds ♦3): %s" % SEAT_LABEL[deal.first_seat])
        out("")
        out("明牌 (show hand), decided together:")

    def action(self, action, events):
        out = self.out
        if action.type == "show":
            out("  %s %s" % (SEAT_LABEL[action.seat], "明牌 shows" if action.yes else "不明牌 keeps it hidden"))
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
                    SEAT_LABEL[ev["seat"]], pad(_cards(ev["cards"]), 16), ev["kind"], KIND_NAMES_ZH[ev["kind"]],
                    ev["left"]))
            elif kind == "pass":
                out("  %s  过 pass" % SEAT_LABEL[ev["seat"]])
            elif kind == "report":
                out("  ** 报单: %s has one card left **" % SEAT_LABEL[ev["seat"]])
            elif kind == "round_end":
                out("  — round over, %s leads —" % SEAT_LABEL[ev["leader"]])

    def result(self, r):
        out = self.out
        out("")
        out("Result: %s went out." % SEAT_LABEL[r.winner])
        out("  " + "".join(pad(h, w) for h, w in (("seat", 7), ("left", 6), ("♠2", 5), ("明牌", 6), ("加倍", 6),
                                                     ("牌分", 6), ("score", 8), ("place", 5))))
        for s in SEATS:
            out("  %s%4d  %s%s%s%4d  %6d  %5d" % (
                pad(SEAT_LABEL[s], 7), r.cards_left[s], pad("yes" if "2S" in r.hands_left[s] else "", 5),
                pad("yes" if r.shown[s] else "", 6), pad("yes" if r.doubled[s] else "", 6), r.points[s],
                r.scores[s], r.places[s]))
        out("  scores sum to %d" % sum(r.scores.values()))
