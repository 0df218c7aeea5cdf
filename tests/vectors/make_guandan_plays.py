"""Write tests/vectors/guandan_plays.jsonl from a brute force over every sub-multiset of each hand.

    .venv/bin/python tests/vectors/make_guandan_plays.py          # rewrite the file
    .venv/bin/python tests/vectors/make_guandan_plays.py --check  # exit 1 if the file is stale

The expected plays do not come from ``plays()`` (the function under test): every distinct
sub-multiset of the hand is given to ``classify()`` (checked on its own by
guandan_classify.jsonl and, against a substitution brute force, by tests/test_guandan_shared.py)
and each meaning is kept if it ``beats()`` the play to follow.  Each line records the count,
the count by kind, some plays that must be listed (``includes``: cards and meaning) and some
that must not (``excludes``).  ``kinds`` is how many (kind, size, key) there are: the length
of ``plays_by_kind()``.  Deterministic: edit CASES and rerun.
"""

import json
import random
import sys
from pathlib import Path

from paizhuo_shared.guandan import Rules, beats, cards, classify, codes

OUT = Path(__file__).with_name("guandan_plays.jsonl")

# MEMORY: the runner also runs these under ``micropython -X heapsize=64k`` (64-bit unix port),
# where a listed play costs about 200 bytes beside the 31 KB the module and its checks take:
# every case lists at most MAX_PLAYS plays (a random seed listing more is passed over).
# 27-card hands are checked on CPython (tests/test_guandan_shared.py).
MAX_PLAYS = 24
CASES = [
    # The move a public platform's generator misses: the wild card making the bomb also
    # makes a 同花顺, which must be listed as well.
    ("lead: ♥2 makes the 4-card bomb 777 and the 同花顺 4567 + 3 or 8", "4S 5S 6S 7S 7D 7C 2H", {}),
    ("follow a 4-card bomb of 8s: only the 同花顺 made with ♥2 beat it", "4S 5S 6S 7S 7D 7C 2H",
     {"over": "8D 8C 8S 8H"}),
    ("lead: both wild cards, three spades", "3S 4S 5S 9D 2H 2H", {}),
    ("follow a 顺子 with both wild cards", "3S 4S 5S 9D 9C 2H 2H", {"over": "2D 3C 4D 5C 6D"}),
    ("lead at level 5: ♥5 wild, level cards in runs at natural value", "4D 4S 5D 6D 6S 5H", {"rules": {"level": "5"}}),
    ("lead: jokers, a pair of 小王, 四大天王", "BJ BJ RJ RJ 3D 3C 3S", {}),
    ("lead: 三带对 with a joker pair switched off", "BJ BJ RJ RJ 3D 3C 3S", {"rules": {"joker_pair_full_house": False}}),
    ("lead: A counts as 1: AA2233 and A2345", "AD AS 2D 2C 3S 3S 4H 5C", {"rules": {"level": "9"}}),
    ("lead: bombs of 4 and 5 cards", "9D 9C 9D 2H 2H", {}),
    ("follow a 6-card bomb: the 7-card bombs", "9D 9C 9D 9C 9S 2H 2H", {"over": "3D 3S 3C 3H 3D 3S"}),
    ("follow 同花顺 TJQKA: 6- and 7-card bombs", "9D 9C 9D 9C 9S 2H 2H", {"over": "TH JH QH KH AH"}),
    ("lead: lone_wild any — both wild cards alone as any pair", "2H 2H", {"rules": {"lone_wild": "any"}}),
    ("lead: wild_breaks_flush off", "3H 4H 6H 7H 5H", {"rules": {"level": "5", "wild_breaks_flush": False}}),
    ("follow a pair of level cards", "BJ BJ AS AD 2H 2D KS", {"over": "2S 2C"}),
    ("follow 三带对 333+44 with wild cards", "5D 5C 6D 6S 2H 2H 9D", {"over": "3D 3C 3S 4D 4C"}),
]


def random_case(seed):
    """A small hand drawn with many wild cards, jokers and repeated ranks."""
    rng = random.Random(seed)
    level = rng.choice("23456789TJQKA")
    pool = rng.sample("23456789TJQKA", rng.randint(3, 6))
    hand = []
    while len(hand) < rng.randint(6, 9):
        x = rng.random()
        c = level + "H" if x < 0.15 else rng.choice(["BJ", "RJ"]) if x < 0.22 else rng.choice(pool) + rng.choice("DCHS")
        if hand.count(c) < 2:
            hand.append(c)
    return ("lead, random hand seed %d" % seed, " ".join(hand), {"rules": {"level": level}})


def _small(case):
    note, hand, opts = case
    return len(expected(cards(hand), Rules.from_dict(opts.get("rules")), None)) <= MAX_PLAYS


def sub_multisets(hand):
    distinct = sorted(set(hand))
    subs = [()]
    for c in distinct:
        subs = [s + (c,) * k for s in subs for k in range(hand.count(c) + 1)]
    return [s for s in subs if s]


def expected(hand, rules, over):
    found = []
    for sub in sub_multisets(list(hand)):
        for p in classify(sub, rules):
            if over is None or beats(p, over, rules):
                found.append(p)
    return found


def case_line(note, hand_text, opts):
    rules = Rules.from_dict(opts.get("rules"))
    hand = cards(hand_text)
    over = None
    line = {"hand": codes(hand)}
    if opts.get("rules"):
        line["rules"] = opts["rules"]
    if opts.get("over"):
        meanings = classify(cards(opts["over"]), rules)
        assert len(meanings) == 1, opts["over"]
        over = meanings[0]
        line["over"] = opts["over"].split()
    found = expected(hand, rules, over)
    by_kind = {}
    for p in found:
        by_kind[p.kind] = by_kind.get(p.kind, 0) + 1
    line["count"] = len(found)
    line["by_kind"] = dict(sorted(by_kind.items()))
    line["kinds"] = len(set((p.kind, p.size, p.key) for p in found))
    rng = random.Random(hand_text)
    picks = rng.sample(found, min(6, len(found)))
    line["includes"] = [[codes(sorted(p.cards)), p.name] for p in picks]
    # Excludes: legal meanings of the hand that do not beat ``over``, or card sets of the
    # hand with a meaning they do not have.
    if over is not None:
        weaker = [p for p in expected(hand, rules, None) if not beats(p, over, rules)]
        line["excludes"] = [[codes(sorted(p.cards)), p.name] for p in rng.sample(weaker, min(3, len(weaker)))]
    else:
        line["excludes"] = [[codes(sorted(p.cards)), "pair_run:5" if p.kind != "pair_run" else "triple_run:5"]
                            for p in picks[:2]]
    line["note"] = note
    return json.dumps(line, ensure_ascii=False)


def render():
    cases = CASES + [c for c in (random_case(s) for s in range(1, 25)) if _small(c)][:12]
    return "".join(case_line(*c) + "\n" for c in cases)


def main(argv):
    text = render()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print("%s is stale: run %s" % (OUT, argv[0]))
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print("%s: %d cases" % (OUT, text.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
