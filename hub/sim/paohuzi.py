"""Paohuzi by touch on a simulated seat (跑胡子): how a person enters each decision on the
seat's screens (``device/seat/games/paohuzi.py``), for :meth:`paizhuo.sim.table.SimTable.touch`,
which finds this class through the registry (``rules.game(...).touch``).

- a discard (出牌): tap the card in the hand's columns (``card:x5@2.1``: the card, its column
  and row), then 出牌 (``btn:discard``);
- a claim: 胡 碰 过 (``btn:claim_hu`` ``btn:claim_peng`` ``btn:claim_pass``); 吃
  (``btn:claim_chi``) sends the one way there is, else opens the chooser (screen ``chi``)
  and the way is tapped there (``chi:choiceN``, in the order of the view's ``may.chi``).

Every tap is on a screen that shows the hand the table says the seat holds (the columns are
the seat's own arrangement, so a card is found by its code wherever the player put it) and,
in a claim, the buttons the table says the seat may press; each tap waits for the seat's own
record of it and must hit the widget meant.

    >>> Touch.TYPES
    ('discard', 'chi', 'peng', 'hu', 'pass')
    >>> hand_shown({"widgets": {"card:x5@0.0": [0, 0, 1, 1, 1], "card:d2@1.0": [0, 0, 1, 1, 1],
    ...                         "card:@1.4": [0, 0, 1, 1, 1], "btn:discard": [0, 0, 1, 1, 0]}})
    ['d2', 'x5']
"""

import json

from .table import SimError

# the claim buttons in the order the seat draws them, and the view's ``may`` entry of each
CLAIMS = (("hu", "hu"), ("peng", "peng"), ("chi", "chi"), ("pass", None))


def hand_shown(ui):
    """The card codes of the hand on a Paohuzi screen (its cards, not the columns' free places),
    sorted."""
    out = []
    for wid in ui["widgets"]:
        if wid.startswith("card:") and not wid.startswith("card:@"):
            out.append(wid[5:wid.index("@")])
    return sorted(out)


def card_widget(ui, code):
    """The tap id of a card ``code`` in the hand shown (the first in column order), or None."""
    ids = sorted((w for w in ui["widgets"] if w.startswith("card:%s@" % code)),
                 key=lambda w: tuple(int(x) for x in w[w.index("@") + 1:].split(".")))
    return ids[0] if ids else None


def _on(ui, wid):
    w = ui["widgets"].get(wid)
    return bool(w) and bool(w[4])


def _claims_shown(ui):
    """Which of 胡 碰 吃 过 the screen has enabled (None: no claim buttons)."""
    if "btn:claim_pass" not in ui["widgets"]:
        return None
    return tuple(_on(ui, "btn:claim_" + b) for b, _ in CLAIMS)


class Touch:
    """Enters a Paohuzi action on a seat board of a :class:`~paizhuo.sim.table.SimTable`."""

    TYPES = ("discard", "chi", "peng", "hu", "pass")

    @staticmethod
    def enter(table, seat, action, state):
        """Tap ``action`` (an engine ``Action``) onto ``seat``'s screen; ``state``: the deal as
        the table's log tells it (what the seat must be showing)."""
        sp = table.seats[seat]
        view = state.view(seat)
        hand = sorted(view.get("hand") or ())
        engine = table.game_of.engine
        if action.type == "discard":
            code = action.to_dict()["card"]
            ui = sp.wait_screen("discard", timeout=15, where=lambda u: hand_shown(u) == hand and "btn:discard" in u[
                "widgets"] and card_widget(u, code) is not None)
            after = None
            # Picked: 出牌 is enabled on the screen the tap left.  A card picked before (a look
            # the seat had not drawn yet) makes the tap a move instead; then the card again.
            for _ in range(3):
                wid = card_widget(ui, code)
                after = table.tap(sp, wid)[1]
                ui = json.loads(sp.lines[after][3:])
                if _on(ui, "btn:discard") or ui["screen"] != "discard":
                    break
            table.press(sp, "discard", "btn:discard", after)
            return
        may = view.get("may") or {}
        want = tuple(bool(may.get(k)) if k else True for _, k in CLAIMS)
        # the claim this look is about: this hand, and the buttons the table says the seat may press
        sp.wait_screen("claim", timeout=15, where=lambda u: hand_shown(u) == hand and _claims_shown(u) == want)
        if action.type != "chi":
            table.press(sp, "claim", "btn:claim_" + action.type)
            return
        ways = may.get("chi") or []
        i = next((k for k, way in enumerate(ways)
                  if engine.Action.from_dict({"type": "chi", "seat": seat, "groups": way}) == action), None)
        if i is None:
            raise SimError("seat %s may not 吃 %s: the ways are %s" % (seat, action.to_dict(), ways))
        if len(ways) == 1 and len(ways[0]) == 1:  # one way, no 比牌: 吃 sends it
            table.press(sp, "claim", "btn:claim_chi")
            return
        after = table.press(sp, "claim", "btn:claim_chi", chooser="chi")
        table.press(sp, "chi", "chi:choice%d" % i, after)
