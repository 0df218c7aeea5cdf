"""Write tests/vectors/bigtwo_plays.jsonl from a brute force over every subset of each hand.

    .venv/bin/python tests/vectors/make_plays_vectors.py          # rewrite the file
    .venv/bin/python tests/vectors/make_plays_vectors.py --check  # exit 1 if the file is stale

The expected plays do not come from ``plays()`` (the function under test): every
subset of 1, 2, 3 and 5 cards of the hand is tried with ``classify()`` and
``beats()``, which tests/vectors/bigtwo_classify.jsonl and bigtwo_beats.jsonl check
independently.  Each line records the count, the count by kind, a few plays that
must be listed (``includes``) and a few card sets that must not be (``excludes``:
legal combinations that do not beat the play to follow, miss the card that must be
held, or break the 报单 duty, and card sets that are no play at all).
Edit CASES and rerun; the output is deterministic (seeded).
"""

import itertools
import json
import random
import sys
from pathlib import Path

from paizhuo_shared.bigtwo import Rules, beats, card, cards, classify, codes

OUT = Path(__file__).with_name("bigtwo_plays.jsonl")
DECK = [r + s for r in "3456789TJQKA2" for s in "DCHS"]

HAND_4K = "2D 2C 2H 2S AD AC AH AS KD KC KH KS 3D"  # 214 plays when leading: see MEMORY below
HAND_2K = "AD AC AH AS KD KC KH KS 2D 2C 3D 3C 4D"
HAND_4K_TRIPLE = "9D 9C 9H 9S 5D 5C 5H 3D 3S 4D 6C 7H 8S"
HAND_FLUSH7 = "3H 5H 7H 9H JH KH 2H 4C 6D 8S TC QD AS"
HAND_SF7 = "3S 4S 5S 6S 7S 9S JS 3D 8D 8C TH QC KD"
HAND_RUNS = "3D 3C 4H 4S 5D 5C 6H 6S 7D 7C 8H 9S TD"
HAND_LOW_RUNS = "AD AC 2D 2H 3C 3S 4D 4H 5C 5S 6D KC QH"
HAND_HIGH_RUNS = "TD TC JH JS QD QC KH KS AD AC 2H 9S 8D"


def random_hand(seed, with_card=None):
    """13 cards from a seeded shuffle; ``with_card`` forces one card in (♦3 for a first lead)."""
    rng = random.Random(seed)
    deck = [c for c in DECK if c != with_card]
    hand = rng.sample(deck, 12 if with_card else 13)
    if with_card:
        hand.append(with_card)
    return " ".join(hand)


# MEMORY: the runner must also pass under ``micropython -X heapsize=64k`` on the 64-bit unix
# port, where one listed play costs about 133 bytes (a 5-tuple and a 3-tuple; about half that
# on a 32-bit board).  Leading with HAND_4K lists 214 plays (about 29 KB held), which does
# not fit beside the imported modules there, so leads and full-house follows with it stay out.
# (note, hand, options): options size / over / must_hold / top_single_only / rules
CASES = [
    ("lead, random hand seed 1", random_hand(1), {}),
    ("lead, random hand seed 2", random_hand(2), {}),
    ("lead, random hand seed 3", random_hand(3), {}),
    ("lead, random hand seed 4", random_hand(4), {}),
    ("lead, random hand seed 5", random_hand(5), {}),
    ("lead, random hand seed 6", random_hand(6), {}),
    ("lead, random hand seed 7", random_hand(7), {}),
    ("lead, random hand seed 8", random_hand(8), {}),
    ("first lead must hold ♦3, random hand seed 21", random_hand(21, "3D"), {"must_hold": "3D"}),
    ("first lead must hold ♦3, random hand seed 22", random_hand(22, "3D"), {"must_hold": "3D"}),
    ("first lead must hold ♦3: in pairs, triple, full houses, straights and a flush",
     "3D 3C 3H 4D 5D 6D 7D 8D 8S 8H 2S AS KS", {"must_hold": "3D"}),
    ("must hold ♦3 but the hand lacks it: nothing", "3C 3H 4D 5D 6D 7D 8D", {"must_hold": "3D"}),
    ("lead, two 铁枝 (AAAA, KKKK) plus pairs: many full houses and 铁枝", HAND_2K, {}),
    ("lead, 铁枝 9999 plus a triple and straights", HAND_4K_TRIPLE, {}),
    ("lead, seven hearts: 21 flushes", HAND_FLUSH7, {}),
    ("lead, seven spades holding the straight flush 34567", HAND_SF7, {}),
    ("lead, many straights 34567 to 6789T", HAND_RUNS, {}),
    ("lead, A2345 and 23456 straights", HAND_LOW_RUNS, {}),
    ("lead, TJQKA and 9TJQK straights", HAND_HIGH_RUNS, {}),
    ("lead, five-card plays only (size 5)", HAND_RUNS, {"size": 5}),
    ("follow a single ♠K", random_hand(11), {"over": "KS"}),
    ("follow a single ♥2: only ♠2 beats it", random_hand(12) , {"over": "2H"}),
    ("follow a pair of 9s (♥9 ♠9)", HAND_RUNS.replace("TD", "9D"), {"over": "9H 9S"}),
    ("follow a pair 33 (♣3 ♦3) with 铁枝 hands", HAND_4K, {"over": "3C 3H"}),
    ("follow a triple 777", HAND_4K_TRIPLE, {"over": "7D 7C 7H"}),
    ("follow a straight 89TJQ (♠Q)", HAND_HIGH_RUNS, {"over": "8S 9D TC JH QS"}),
    ("follow a straight A2345 (♦2)", HAND_LOW_RUNS, {"over": "AS 2D 3D 4H 5H"}),
    ("follow a flush ♦K-high", HAND_FLUSH7, {"over": "3D 5D 7D 9D KD"}),
    ("follow a full house QQQ+55 with AAAA and KKKK", HAND_2K, {"over": "QD QC QH 5C 5H"}),
    ("follow a full house 888+33 (little to beat it)", HAND_4K_TRIPLE, {"over": "8D 8C 8H 3C 3H"}),
    ("follow a 铁枝 5555", HAND_4K_TRIPLE, {"over": "5D 5C 5H 5S 3C"}),
    ("follow a 铁枝 5555 with 2222/AAAA/KKKK", HAND_4K, {"over": "5D 5C 5H 5S 3C"}),
    ("follow a straight flush 34567♣", HAND_SF7, {"over": "3C 4C 5C 6C 7C"}),
    ("follow a straight flush 34567♥ (♠ beats it)", HAND_SF7, {"over": "3H 4H 5H 6H 7H"}),
    ("报单 duty, lead: the only single is the highest card", random_hand(31), {"top_single_only": True}),
    ("报单 duty, follow a single ♠10", random_hand(32), {"over": "TS", "top_single_only": True}),
    ("报单 duty, follow a pair: pairs are not restricted", random_hand(33), {"over": "4D 4C", "top_single_only": True}),
    ("报单 duty, highest card ♠Q below ♥K: no single at all", "3D 5C 7H 9S QS", {"over": "KH", "top_single_only": True}),
    ("no_two straights: A2345 and 23456 are not straights", HAND_LOW_RUNS, {"rules": {"straights": "no_two"}}),
    ("no_two straights, seven spades", HAND_SF7, {"rules": {"straights": "no_two"}}),
    ("suit_first flushes, follow a ♥ flush ♥2-high", HAND_SF7, {"over": "3H 5H 7H 9H 2H", "rules": {"flush_order": "suit_first"}}),
    ("top_card flushes, follow a ♥ flush ♥2-high", HAND_SF7, {"over": "3H 5H 7H 9H 2H"}),
    ("lead with two cards left, a pair", "3D 3S", {}),
    ("lead with one card left", "2S", {}),
    ("empty hand: no plays", "", {}),
]


def brute_force(hand, size, over, must_hold, top_single_only, rules):
    """Every legal play and the legal-but-refused combinations, by trying every subset."""
    sizes = (size,) if size else (1, 2, 3, 5)
    legal, refused, illegal = [], [], []
    top = max(hand) if hand else -1
    for k in sizes:
        for combo in itertools.combinations(hand, k):
            cl = classify(combo, rules)
            if cl is None:
                illegal.append(combo)
                continue
            ok = True
            if over is not None and not beats(combo, over, rules):
                ok = False
            if must_hold >= 0 and must_hold not in combo:
                ok = False
            if top_single_only and k == 1 and combo[0] != top:
                ok = False
            (legal if ok else refused).append((combo, cl[0]))
    return legal, refused, illegal


def pick(rng, items, n):
    if len(items) <= n:
        return list(items)
    return [items[i] for i in sorted(rng.sample(range(len(items)), n))]


def vector(i, note, hand_text, opt):
    rules = Rules.from_dict(opt.get("rules"))
    hand = cards(hand_text)
    over = cards(opt["over"]) if opt.get("over") else None
    size = len(over) if over else opt.get("size", 0)
    must = opt.get("must_hold")
    legal, refused, illegal = brute_force(hand, size, over, card(must) if must else -1,
                                          opt.get("top_single_only", False), rules)
    rng = random.Random(1000 + i)
    by_kind = {}
    for combo, kind in legal:
        by_kind.setdefault(kind, []).append(combo)
    includes = []
    for kind in sorted(by_kind):
        group = by_kind[kind]
        includes += [group[0], group[-1]] if len(group) > 1 else group
        includes += pick(rng, group[1:-1], 1)
    excludes = pick(rng, [c for c, _ in refused], 6) + pick(rng, illegal, 3)
    out = {"hand": codes(hand), "size": size, "over": opt.get("over", "").split() or None,
           "must_hold": must, "top_single_only": opt.get("top_single_only", False)}
    if opt.get("rules"):
        out["rules"] = opt["rules"]
    out["count"] = len(legal)
    out["by_kind"] = {k: len(v) for k, v in sorted(by_kind.items())}
    out["includes"] = [codes(c) for c in includes]
    out["excludes"] = [codes(c) for c in excludes]
    out["note"] = note
    return json.dumps(out, ensure_ascii=False)


def render():
    return "".join(vector(i, note, hand, opt) + "\n" for i, (note, hand, opt) in enumerate(CASES))


def main(argv):
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("%s is stale: rerun %s" % (OUT, Path(__file__).name))
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print("wrote %d cases to %s" % (len(CASES), OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
