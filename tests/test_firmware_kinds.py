"""The seat's Big Two selection pre-check (device/seat/games/bigtwo_kinds.py) agrees with the engine's rules.

The seat greys its Play button for a selection that is no combination; it cannot afford
``paizhuo_shared.bigtwo`` and its ``Rules`` on its heap (about 17 KB on the unix port), so
it has its own ``kind``.  These tests hold it to ``paizhuo_shared.bigtwo.classify`` under
the default rules (the seed's straights):

- every 1-, 2- and 3-card selection of the deck;
- every 5-card selection up to what ``classify`` can see: for each multiset of 5 ranks
  (4 suits at most per rank), a flush and a non-flush when the ranks differ, and suit
  assignments that put the repeated ranks' cards in every order otherwise;
- 4 and 6 to 13 cards: no combination (hypothesis);
- under MicroPython, the classify vectors of tests/vectors (default rules) through the
  firmware's own module, built into its image.
"""

import importlib.util
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo.sim.firmware import build, run_snippet
from paizhuo_shared import bigtwo

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("seat_kinds", ROOT / "device" / "seat" / "games" / "bigtwo_kinds.py")
kinds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kinds)

RULES = bigtwo.Rules()


def engine_kind(cs):
    got = bigtwo.classify(tuple(sorted(cs)), RULES)
    return None if got is None else got[0]


def seat_kind(cs):
    return kinds.kind(bytes(sorted(cs)))


def test_docstring_examples():
    import doctest
    failed, attempted = doctest.testmod(kinds)
    assert failed == 0 and attempted > 0


def test_the_straights_are_the_rules_windows():
    masks = {mask for mask in range(1 << 13) if kinds.straight(mask)}
    assert masks == set(RULES.window_of)
    assert len(masks) == 10


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_small_selection(n):
    for cs in itertools.combinations(range(52), n):
        assert seat_kind(cs) == engine_kind(cs), [bigtwo.code(c) for c in cs]


def _five_card_classes():
    """Selections of 5 cards covering every way classify can see them."""
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        counts = {r: ranks.count(r) for r in ranks}
        if max(counts.values()) > 4:
            continue
        if len(counts) == 5:
            yield [r * 4 + 1 for r in ranks]  # a flush (all ♣)
            yield [r * 4 + (i % 4) for i, r in enumerate(ranks)]  # mixed suits
            yield [r * 4 + (3 if i == 4 else 2) for i, r in enumerate(ranks)]  # 4 ♥ and a ♠
        else:
            seen = {}
            out = []
            for r in ranks:  # the copies of a rank in different suits
                k = seen.get(r, 0)
                seen[r] = k + 1
                out.append(r * 4 + k)
            yield out


def test_every_kind_of_five_card_selection():
    n = 0
    for cs in _five_card_classes():
        assert len(set(cs)) == 5
        assert seat_kind(cs) == engine_kind(cs), [bigtwo.code(c) for c in cs]
        n += 1
    assert n > 6000  # every multiset of ranks, some twice


@settings(max_examples=300)
@given(st.sets(st.integers(0, 51), min_size=4, max_size=13))
def test_other_sizes_are_no_combination(cs):
    if len(cs) != 5:
        assert seat_kind(cs) is None and engine_kind(cs) is None
    else:
        assert seat_kind(cs) == engine_kind(cs)


@pytest.mark.micropython
def test_classify_vectors_under_micropython(tmp_path_factory):
    cases = []
    for line in (ROOT / "tests" / "vectors" / "bigtwo_classify.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        if "error" in case or case.get("rules"):
            continue  # the seat knows the default rules only
        cases.append((case["cards"], case["kinds"]))
    assert len(cases) >= 40
    fw = build(tmp_path_factory.mktemp("firmware"))
    code = (
        "import json\n"
        "from seat import gfx\nfrom seat.games import bigtwo_kinds as kinds\n"
        "for cards, want in %r:\n"
        "    k = kinds.kind(gfx.card_bytes(cards))\n"
        "    print(json.dumps([cards, [] if k is None else [k], want]))\n" % (cases,))
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == len(cases)
    for cards, got, want in rows:
        assert got == want, cards
