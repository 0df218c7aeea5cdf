"""Write tests/vectors/guandan_listing_digests.json: what ``plays()`` lists for seeded hands.

    .venv/bin/python tests/vectors/make_guandan_digests.py          # rewrite the file
    .venv/bin/python tests/vectors/make_guandan_digests.py --check  # exit 1 if the file is stale

``plays()`` is fast because it is written for speed (shared/guandan.py); this file pins what
it lists, so that a faster version is proved to list exactly the same: for each hand (27
cards mostly, with 0, 1 or 2 wild cards, seeded levels and rule options, leading or
following a play taken from the listing) the number of plays and two digests of them, one
of the list in its order (``plays()`` promises a fixed order, and the engine's legal
actions follow it) and one of the sorted list.  A play is (kind, key, cards, stands).
Written from the listing as it was before the speed-up (3.5 ms a hand with two wild
cards) and unchanged by it; tests/test_guandan_listing.py checks it.  CPython only: a
27-card listing does not fit a 64 KB MicroPython heap.
"""

import hashlib
import json
import random
import sys
from pathlib import Path

from paizhuo_shared import guandan as G

OUT = Path(__file__).with_name("guandan_listing_digests.json")
HANDS = 240


def listing(found):
    """The plays as plain tuples, in the listing's order."""
    return [(p.kind, p.key, p.cards, p.stands) for p in found]


def digest(items):
    return hashlib.sha256(repr(items).encode()).hexdigest()[:24]


def cases():
    """[(rules options, hand as codes, over as (codes, name) or None)], seeded."""
    rng = random.Random(20261202)
    out = []
    for i in range(HANDS):
        opts = {"level": rng.choice(G.RANKS)}
        if i % 4 == 3:
            opts.update(lone_wild=rng.choice(G.LONE_WILDS), wild_breaks_flush=rng.random() < 0.5,
                        joker_pair_full_house=rng.random() < 0.5)
        rules = G.Rules(**opts)
        deck = [c for c in list(range(54)) * 2 if c != rules.wild]
        rng.shuffle(deck)
        n = 27 if i % 6 else rng.randint(5, 26)
        wilds = i % 3
        hand = tuple(sorted(deck[:n - wilds] + [rules.wild] * wilds))
        over = None
        if i % 5 == 4:  # follow a play of this hand's own listing: every kind gets followed
            p = rng.choice(G.plays(hand, rules))
            over = (" ".join(G.codes(sorted(p.cards))), p.name)
        out.append((opts, " ".join(G.codes(hand)), over))
    return out


def over_play(over, rules):
    """The :class:`Play` a case follows (its cards and name), or None when leading."""
    if over is None:
        return None
    return [p for p in G.classify(G.cards(over[0]), rules) if p.name == over[1]][0]


def render():
    rows = []
    for opts, hand, over in cases():
        rules = G.Rules(**opts)
        found = listing(G.plays(G.cards(hand), rules, over_play(over, rules)))
        rows.append({"rules": opts, "hand": hand, "over": over, "plays": len(found),
                     "order": digest(found), "set": digest(sorted(found))})
    return "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows) + "\n]\n"


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        sys.exit(0 if OUT.exists() and OUT.read_text(encoding="utf-8") == text else 1)
    OUT.write_text(text, encoding="utf-8")
    print("wrote %s: %d hands" % (OUT, HANDS))
