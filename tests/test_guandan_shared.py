"""竞技掼蛋 (Guandan) plays in paizhuo_shared.guandan, against independent brute forces.

- Meanings: a set with wild cards means what it means with each wild card replaced by each of
  the 52 non-joker cards, classified by the plain rules written again here (no wild cards).
- Listing: every distinct sub-multiset of a hand, classified, is exactly what ``plays`` lists
  (hypothesis), each once; following lists exactly the plays that beat; ``plays_by_kind``
  has each kind, size and key of the listing once.
- The vectors (tests/vectors/guandan_*.jsonl) agree with these brute forces, so a wrong
  expectation cannot hide behind a matching bug.
"""

import importlib.util
import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo_shared import guandan as G
from paizhuo_shared import guandan_keys as K
from paizhuo_shared.cards import InvalidCardError

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
R = "23456789TJQKA"
ALL52 = [r + s for r in R for s in "DCHS"]

RULES = st.builds(G.Rules, level=st.sampled_from(list(R)), lone_wild=st.sampled_from(["level", "any"]),
                  wild_breaks_flush=st.booleans(), joker_pair_full_house=st.booleans())


# ---- an independent classifier ------------------------------------------------------------

def natural_meanings(cs, joker_pair_full_house):
    """{(kind, rank)} of codes without wild cards, straight from RULES.md."""
    n = len(cs)
    jokers = [c for c in cs if c in ("BJ", "RJ")]
    ranks = [c[0] for c in cs if c not in ("BJ", "RJ")]
    count = {r: ranks.count(r) for r in ranks}
    out = set()
    if n == 1:
        out.add(("single", cs[0] if jokers else cs[0][0]))
    if n == 2 and jokers == [cs[0], cs[0]]:
        out.add(("pair", cs[0]))
    if not jokers and len(count) == 1:
        out.add(({2: "pair", 3: "triple"}.get(n, "bomb" if n >= 4 else None), ranks[0]))
    if sorted(cs) == ["BJ", "BJ", "RJ", "RJ"]:
        out.add(("joker_bomb", None))
    if n == 5 and not jokers and sorted(count.values()) == [2, 3]:
        out.add(("full_house", [r for r in count if count[r] == 3][0]))
    if (n == 5 and joker_pair_full_house and len(jokers) == 2 and jokers[0] == jokers[1]
            and list(count.values()) == [3]):
        out.add(("full_house", ranks[0]))
    for length, width, kind in ((5, 1, "straight"), (3, 2, "pair_run"), (2, 3, "triple_run")):
        if jokers or n != length * width:
            continue
        for low in range(1, 16 - length):  # position 1 is A low, 2..14 are 2..A
            window = ["A" if p == 1 else R[p - 2] for p in range(low, low + length)]
            if all(count.get(r, 0) == width for r in window):
                flush = kind == "straight" and len(set(c[1] for c in cs)) == 1
                out.add(("straight_flush" if flush else kind, R[low + length - 3]))
    out.discard((None, ranks[0] if ranks else None))
    return out


def brute_meanings(codes, rules):
    """Every (kind, rank) of a set of codes: each wild card replaced by each non-joker card."""
    wild = rules.level + "H"
    others = [c for c in codes if c != wild]
    k = len(codes) - len(others)
    if not others and rules.lone_wild == "level":
        return natural_meanings(codes, rules.joker_pair_full_house)
    out = set()
    for sub in itertools.product(ALL52, repeat=k):
        out |= natural_meanings(others + list(sub), rules.joker_pair_full_house)
    suited = others and all(c not in ("BJ", "RJ") for c in others) and len(set(c[1] for c in others)) == 1
    if k and suited and not rules.wild_breaks_flush:
        out = {m for m in out if m[0] != "straight"}
    return out


def names(meanings):
    return sorted(kind if rank is None else "%s:%s" % (kind, rank) for kind, rank in meanings)


def _load_maker():
    spec = importlib.util.spec_from_file_location("make_guandan_plays", VECTORS / "make_guandan_plays.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


maker = _load_maker()  # its sub_multisets() and the vector file it writes
sub_multisets = maker.sub_multisets


def brute_listing(hand, rules, over=None):
    """{(sorted cards, name)} of every sub-multiset's meanings that beat ``over``."""
    out = set()
    for sub in sub_multisets(list(hand)):
        for p in G.classify(sub, rules):
            if over is None or G.beats(p, over, rules):
                out.add((sub, p.name))
    return out


# ---- strategies ------------------------------------------------------------------------

@st.composite
def card_sets(draw, most=10):
    """Sets of cards that are often plays: a few ranks, the wild card, jokers, one suit."""
    rules = draw(RULES)
    ranks = draw(st.lists(st.sampled_from(list(R)), min_size=1, max_size=5, unique=True))
    suits = draw(st.sampled_from(["DCHS", "S", "H", "SD"]))
    card = st.one_of(st.tuples(st.sampled_from(ranks), st.sampled_from(list(suits))).map("".join),
                     st.just(rules.level + "H"), st.sampled_from(["BJ", "RJ"]))
    codes = draw(st.lists(card, min_size=1, max_size=most))
    return rules, [c for i, c in enumerate(codes) if codes[:i].count(c) < 2]


@st.composite
def runs_with_wilds(draw):
    """A run or group made legal first, then up to two cards replaced by wild cards."""
    rules = draw(RULES)
    kind = draw(st.sampled_from(["straight", "pair_run", "triple_run", "full_house", "bomb"]))
    low = draw(st.integers(1, 10))
    rank = ["A" if p == 1 else R[p - 2] for p in range(low, low + 5)]
    suit = st.sampled_from(list("DCHS"))
    if kind == "straight":
        codes = [r + (draw(suit) if draw(st.booleans()) else "S") for r in rank]
    elif kind == "pair_run":
        codes = [r + draw(suit) for r in rank[:3] for _ in range(2)]
    elif kind == "triple_run":
        codes = [r + draw(suit) for r in rank[:2] for _ in range(3)]
    elif kind == "full_house":
        codes = [rank[0] + draw(suit) for _ in range(3)] + [rank[2] + draw(suit) for _ in range(2)]
    else:
        codes = [rank[0] + draw(suit) for _ in range(draw(st.integers(4, 8)))]
    for _ in range(draw(st.integers(0, 2))):
        codes[draw(st.integers(0, len(codes) - 1))] = rules.level + "H"
    if codes.count(rules.level + "H") > 2 or any(codes.count(c) > 2 for c in codes):
        codes = codes[:1]
    return rules, codes


# ---- classification -----------------------------------------------------------------------

def _check_meanings(rules, codes):
    cs = G.cards(codes)
    found = G.classify(cs, rules)
    assert sorted(p.name for p in found) == names(brute_meanings(G.codes(cs), rules)), codes
    for p in found:
        assert sorted(p.cards) == list(cs)
        assert len(p.stands) == p.cards.count(rules.wild)
        assert all(c < G.BJ for c in p.stands), "a wild card never stands for a joker"
        # What the wild cards stand for, put in their place, has this meaning without wild cards.
        natural = G.codes([c for c in p.cards if c != rules.wild] + list(p.stands))
        assert (p.kind, p.rank) in natural_meanings(natural, True), (p, natural)


@settings(max_examples=100, deadline=None)
@given(card_sets())
def test_meanings_are_every_substitution(case):
    _check_meanings(*case)


@settings(max_examples=100, deadline=None)
@given(runs_with_wilds())
def test_meanings_of_runs_and_groups_with_wild_cards(case):
    _check_meanings(*case)


def test_a_straight_flush_with_a_wild_card_is_also_listed_when_the_wild_card_makes_a_bomb():
    # The move a public platform's generator misses: ♥2 completes 777 into a bomb and also
    # stands for ♠3 or ♠8 in a 同花顺; following a bomb of 8s only the 同花顺 beat it.
    r = G.Rules(level="2")
    hand = G.cards("4S 5S 6S 7S 7D 7C 2H")
    eights = G.classify(G.cards("8D 8C 8S 8H"), r)[0]
    follow = G.plays(hand, r, eights)
    assert sorted((p.name, tuple(G.codes(p.stands))) for p in follow) == [
        ("straight_flush:7", ("3S",)), ("straight_flush:8", ("8S",))]
    lead = G.plays(hand, r)
    assert any(p.name == "bomb:7" and r.wild in p.cards for p in lead)
    assert sum(p.kind == "straight_flush" for p in lead) == 2


def test_bomb_ladder_in_order():
    r = G.Rules(level="5")
    ladder = ["4D 4C 4S 4H", "5D 5C 5S 5S", "AD AC AS AH AD", "AS 2S 3S 4S 5S", "TH JH QH KH AH",
              "3D 3C 3S 3H 3D 3C", "3D 3C 3S 3H 3D 3C 3S", "3D 3C 3S 3H 3D 3C 3S 3H",
              "6D 6C 6S 6H 6D 6C 6S 6H 5H", "6D 6C 6S 6H 6D 6C 6S 6H 5H 5H", "BJ BJ RJ RJ"]
    plays = [G.classify(G.cards(c), r)[0] for c in ladder]
    for i, low in enumerate(plays):
        for high in plays[i + 1:]:
            assert G.beats(high, low, r) and not G.beats(low, high, r), (high, low)
    straight = G.classify(G.cards("TD JC QS KH AD"), r)[0]
    assert all(G.beats(p, straight, r) for p in plays)


def test_classify_vectors_agree_with_the_brute_force():
    seen = 0
    for line in (VECTORS / "guandan_classify.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if "error" in case:
            with pytest.raises(InvalidCardError):
                G.cards(case["cards"])
            continue
        rules = G.Rules.from_dict(case.get("rules"))
        assert sorted(case["meanings"]) == names(brute_meanings(G.codes(G.cards(case["cards"])), rules)), case
        seen += 1
    assert seen >= 60


def _strength(name, size, level):
    """An independent reading of the ladder: (tier, rank order) — tier 0 for every non-bomb."""
    kind, _, rank = name.partition(":")
    runs = ("straight", "straight_flush", "pair_run", "triple_run")
    order = (R.index(rank) if rank in R else 0) if kind in runs else (
        {"BJ": 14, "RJ": 15}.get(rank, 13 if rank == level else R.index(rank) if rank in R else 0))
    tier = {"joker_bomb": 9, "straight_flush": 3}.get(kind, 0)
    if kind == "bomb":
        tier = size - 3 if size < 6 else size - 2
    return tier, order


def test_beats_vectors_agree_with_an_independent_ladder():
    for line in (VECTORS / "guandan_beats.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        rules = G.Rules.from_dict(case.get("rules"))
        a, b = [[p for p in G.classify(G.cards(case[k]), rules) if case.get(k + "_as") in (None, p.name)][0]
                for k in ("play", "over")]
        (ta, oa), (tb, ob) = _strength(a.name, a.size, rules.level), _strength(b.name, b.size, rules.level)
        if ta or tb:
            want = (ta, oa) > (tb, ob)
        else:
            want = a.kind == b.kind and oa > ob
        assert case["beats"] == want, case


# ---- listing ------------------------------------------------------------------------------

@st.composite
def small_hands(draw):
    rules, codes = draw(card_sets(most=11))
    return rules, G.cards(codes)


def _check_listing(rules, hand, over):
    listed = G.plays(hand, rules, over)
    got = [(tuple(sorted(p.cards)), p.name) for p in listed]
    assert len(set(got)) == len(got), "a play listed twice"
    assert set(got) == brute_listing(hand, rules, over)
    for p in listed:
        same = [q for q in G.classify(tuple(sorted(p.cards)), rules) if q == p]
        assert len(same) == 1 and same[0].stands == p.stands and same[0].power == p.power, p
    by_kind = G.plays_by_kind(hand, rules, over)
    kinds = [(p.kind, p.size, p.key) for p in by_kind]
    assert len(set(kinds)) == len(kinds) and set(kinds) == set((p.kind, p.size, p.key) for p in listed)
    _check_keys(hand, rules, over, by_kind)
    return listed


def _check_keys(hand, rules, over, by_kind):
    """play_keys lists the keys of plays_by_kind, each once; play_for makes its very play."""
    keys = K.play_keys(hand, rules, over)
    assert len(set(keys)) == len(keys) and sorted(keys) == sorted((p.kind, p.size, p.key) for p in by_kind)
    for p in by_kind[::5]:
        q = K.play_for(hand, rules, p.kind, p.size, p.key, over)
        assert (q.cards, q.stands) == (p.cards, p.stands) and q == p
    assert K.play_for(hand, rules, G.JOKER_BOMB, 4, 1, over) is None


@settings(max_examples=80, deadline=None)
@given(small_hands(), st.randoms(use_true_random=False))
def test_listing_is_every_legal_subset_once(case, rnd):
    rules, hand = case
    listed = _check_listing(rules, hand, None)
    for over in rnd.sample(listed, min(3, len(listed))):
        _check_listing(rules, hand, over)


def _hands27(n, wilds, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        rules = G.Rules(level=rng.choice(R))
        deck = [c for c in list(range(54)) * 2 if c != rules.wild]
        rng.shuffle(deck)
        out.append((rules, tuple(sorted(deck[:27 - wilds] + [rules.wild] * wilds))))
    return out


@pytest.mark.parametrize("wilds", [0, 1, 2])
def test_27_card_hands_list_only_legal_plays_once(wilds):
    for rules, hand in _hands27(3, wilds, 40 + wilds):
        listed = G.plays(hand, rules)
        assert len(set(listed)) == len(listed)
        for p in listed:
            assert p in G.classify(tuple(sorted(p.cards)), rules)
            rest = list(hand)
            for c in p.cards:
                rest.remove(c)  # the hand holds every card of the play
        by_kind = G.plays_by_kind(hand, rules)
        assert sorted((p.kind, p.size, p.key) for p in by_kind) == sorted(set((p.kind, p.size, p.key) for p in listed))
        _check_keys(hand, rules, None, by_kind)
        for over in random.Random(wilds).sample(listed, 5):
            assert set(G.plays(hand, rules, over)) == set(p for p in listed if G.beats(p, over, rules))
            _check_keys(hand, rules, over, G.plays_by_kind(hand, rules, over))


@pytest.mark.parametrize("option", [dict(lone_wild="any"), dict(wild_breaks_flush=False),
                                    dict(joker_pair_full_house=False)])
def test_play_keys_follow_every_rule_option_on_27_card_hands(option):
    for rules, hand in _hands27(20, 2, 70):
        rules = G.Rules(level=rules.level, **option)
        listed = G.plays(hand, rules)
        for over in [None] + random.Random(sum(hand)).sample(listed, 4):
            _check_keys(hand, rules, over, G.plays_by_kind(hand, rules, over))


def test_plays_by_kind_uses_the_fewest_wild_cards():
    r = G.Rules(level="2")
    hand = G.cards("7D 7C 7S 2H 2H 3D 3C")
    by = {(p.kind, p.size, p.name): p for p in G.plays_by_kind(hand, r)}
    assert by[("triple", 3, "triple:7")].cards == G.cards("7D 7C 7S")
    assert by[("bomb", 5, "bomb:7")].cards.count(r.wild) == 2
    assert by[("full_house", 5, "full_house:7")].cards.count(r.wild) == 0


def test_plays_vectors_are_up_to_date():
    assert maker.render() == (VECTORS / "guandan_plays.jsonl").read_text(encoding="utf-8"), (
        "guandan_plays.jsonl is stale: run .venv/bin/python tests/vectors/make_guandan_plays.py")


# ---- input from outside -------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=4), st.sampled_from(ALL52 + ["BJ", "RJ", "10h", "x3", "S3"]),
                          st.integers(-2, 60)), max_size=12))
def test_cards_parses_or_refuses_in_both_languages(items):
    try:
        cs = G.cards(items)
    except InvalidCardError as e:
        assert e.code in ("invalid_card", "duplicate_card") and e.en and e.zh
        return
    assert list(cs) == sorted(cs) and all(cs.count(c) <= 2 for c in cs)
    assert G.cards(G.codes(cs)) == cs


def test_rules_refuse_bad_options_by_name():
    with pytest.raises(ValueError, match="level"):
        G.Rules(level="Z")
    with pytest.raises(ValueError, match="lone_wild"):
        G.Rules(lone_wild="maybe")
    with pytest.raises(ValueError, match="unknown Guandan rule option 'wild'"):
        G.Rules.from_dict({"wild": True})
    assert G.Rules.from_dict(G.Rules(level="T").to_dict()) == G.Rules(level="10")


@pytest.mark.micropython
def test_play_keys_under_micropython_match_cpython(tmp_path):
    """guandan_keys is shared code: the MicroPython port lists the very same keys."""
    import shutil
    import subprocess
    import sys

    exe = shutil.which("micropython", path=str(Path(sys.executable).parent)) or shutil.which("micropython")
    if exe is None:
        pytest.skip("the micropython unix port is not installed")
    spec = importlib.util.spec_from_file_location("mpy_build", Path(__file__).parent / "mpy" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    dest = build.build_mpy(tmp_path / "mpy")
    cases = []
    for i, (rules, hand) in enumerate(_hands27(6, 2, 90) + _hands27(3, 0, 91)):
        rules = G.Rules(level=rules.level, lone_wild=G.LONE_WILDS[i % 2], wild_breaks_flush=i % 3 != 0)
        cases.append((rules, hand))
    script = ["from paizhuo_shared import guandan as G", "from paizhuo_shared import guandan_keys as K"]
    for rules, hand in cases:
        script.append("print(sorted(K.play_keys(%r, G.Rules(level=%r, lone_wild=%r, wild_breaks_flush=%r))))"
                      % (hand, rules.level, rules.lone_wild, rules.wild_breaks_flush))
    proc = subprocess.run([exe, "-X", "heapsize=512k", "-c", "\n".join(script)], env=build.micropython_env(dest),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [repr(sorted(K.play_keys(hand, rules))) for rules, hand in cases]
