"""``plays()`` lists what it listed before it was made fast (tests/vectors/guandan_listing_digests.json).

The file was written by tests/vectors/make_guandan_digests.py from the listing as it was
before the speed-up; the listing is complete by construction and checked against the
classifier elsewhere (tests/test_guandan_properties.py, guandan_plays.jsonl), so the same
plays in the same order on 240 seeded hands (27 cards mostly, 0 to 2 wild cards, leading
and following) is what a faster version must give.  Regenerate the file only for a change
that is meant to change the listing.
"""

import importlib.util
import json
from pathlib import Path

VECTORS = Path(__file__).resolve().parent / "vectors"


def _maker():
    spec = importlib.util.spec_from_file_location("make_guandan_digests", VECTORS / "make_guandan_digests.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_plays_lists_the_recorded_plays_in_the_recorded_order():
    mk = _maker()
    G = mk.G
    rows = json.loads(mk.OUT.read_text(encoding="utf-8"))
    assert len(rows) == mk.HANDS
    assert sum(1 for r in rows if r["over"]) >= 40 and sum(1 for r in rows if r["plays"] > 2000) >= 30
    wrong = []
    for row in rows:
        rules = G.Rules(**row["rules"])
        found = mk.listing(G.plays(G.cards(row["hand"]), rules, mk.over_play(row["over"], rules)))
        if mk.digest(sorted(found)) != row["set"]:
            wrong.append("%s (rules %s, over %s): %d plays, recorded %d, not the same plays"
                         % (row["hand"], row["rules"], row["over"], len(found), row["plays"]))
        elif mk.digest(found) != row["order"]:
            wrong.append("%s (rules %s, over %s): the same plays in another order" % (row["hand"], row["rules"], row["over"]))
    assert not wrong, "%d of %d hands differ, e.g.:\n%s" % (len(wrong), len(rows), "\n".join(wrong[:5]))
