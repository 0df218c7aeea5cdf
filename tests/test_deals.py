"""Seeded, auditable duplicate deals (hub/venue/deals.py) and `paizhuo deals`.

The generator is pinned three ways: golden hashes, an independent re-implementation of the
documented algorithm (so the docs are exact enough for an auditor), and deterministic
uniformity counts (a fixed secret, so they cannot flake).
"""

import collections
import doctest
import hashlib
import hmac
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo.bots.bigtwo import BigTwoBot
from paizhuo.demo import demo_record, seeded_deal
from paizhuo.rules.bigtwo import BigTwo
from paizhuo.venue import deals as D
from paizhuo_shared.cards import deck, sort_key

PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")
GOLDEN = b"paizhuo golden secret"
SIZES = {"bigtwo": (52, "ENWS", 13), "guandan": (108, "ENWS", 27), "paohuzi": (80, "ENW", 20)}


def run(*args):
    return subprocess.run([PAIZHUO, *args], capture_output=True, text=True, timeout=60)


# ---- an independent implementation of the documented generator -------------------------

def reference_deal(secret, game, rnd, group, board):
    """docs/movement-and-deals.md, written again from the text: round key, HMAC byte stream,
    Fisher–Yates with one byte per draw and rejection at 256 - 256 % k, hands in seat order."""
    cards = reference_order(secret, game, rnd, group, board)
    size, seats, hand = SIZES[game]
    hands = {s: cards[i * hand:(i + 1) * hand] for i, s in enumerate(seats)}
    lines = ["paizhuo-deal-v1", "game " + game, "round %d" % rnd, "group %d" % group, "board %d" % board]
    if game == "paohuzi":
        shown, stock = cards[60], cards[61:]
        hands["E"] = hands["E"] + [shown]
    for s in seats:
        lines.append(s + " " + " ".join(sorted(hands[s], key=sort_key)))
    if game == "paohuzi":
        lines += ["shown " + shown, "stock " + " ".join(stock)]
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


def reference_order(secret, game, rnd, group, board, n=1):
    """The shuffled deck of deal ``n`` of a board (the text's algorithm; ``deal=n|`` ends the
    context of a match's later deals)."""
    key = hmac.new(secret, b"paizhuo-deal-v1|round-key|%d" % rnd, hashlib.sha256).digest()
    context = b"paizhuo-deal-v1|deal|%s|group=%d|board=%d|" % (game.encode(), group, board)
    if n != 1:
        context += b"deal=%d|" % n
    stream = bytearray()
    counter = 0

    def byte():
        nonlocal counter
        if not stream:
            stream.extend(hmac.new(key, context + counter.to_bytes(4, "big"), hashlib.sha256).digest())
            counter += 1
        return stream.pop(0)

    name = {"bigtwo": "52", "guandan": "108", "paohuzi": "80"}[game]
    cards = deck(name)
    for i in range(len(cards) - 1, 0, -1):
        k = i + 1
        while True:
            v = byte()
            if v < 256 - 256 % k:
                break
        j = v % k
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("game", sorted(SIZES))
@pytest.mark.parametrize("rnd,group,board", [(1, 1, 1), (2, 3, 17), (9, 1, 300)])
def test_the_documented_algorithm_reproduces_every_hash(game, rnd, group, board):
    assert D.deal(GOLDEN, game, rnd, group, board).hash == reference_deal(GOLDEN, game, rnd, group, board)


# ---- golden values: a change to the generator must be noticed ---------------------------

def test_golden_hashes_and_hand():
    assert D.round_key(GOLDEN, 1).hex() == "8fd2048766dc078adda74e3f9dd1bea31730508e9ee8986feed4c0da611e6ac1"
    golden = {
        ("bigtwo", 1, 1, 1): "2ad1835d918a9a06bd000604129c776d5460c83c9a4ccccc9173b83dcda3f945",
        ("guandan", 1, 1, 1): "f55218fae9f26114f5eacc845a3dd4bd5737d0988dc8350847afba7ec4b1092d",
        ("paohuzi", 1, 1, 1): "678e7f2a89a3b69970df6a866b76cf4ca32dbf4cd0d69f7f273305547c1416ef",
        ("bigtwo", 2, 3, 4): "dde882fd47c2421210e52df44de3d58cf267c2c2d617082e2c7c5694e6297086",
    }
    for (game, rnd, group, board), h in golden.items():
        assert D.deal(GOLDEN, game, rnd, group, board).hash == h, (game, rnd, group, board)
    d = D.deal(GOLDEN, "bigtwo", 1, 1, 1)
    assert list(d.hands["E"]) == ["2C", "2S", "3D", "3S", "4S", "6C", "6H", "8H", "9H", "TH", "JC", "QH", "KS"]
    assert D.deal(GOLDEN, "paohuzi", 1, 1, 1).extra["shown"] == "d1"


# ---- valid partitions, determinism, independence ----------------------------------------

@settings(max_examples=60, deadline=None)
@given(secret=st.binary(min_size=1, max_size=40), game=st.sampled_from(sorted(SIZES)),
       rnd=st.integers(1, 50), group=st.integers(1, 50), board=st.integers(1, 500))
def test_every_deal_is_a_valid_partition_and_reproducible(secret, game, rnd, group, board):
    d = D.deal(secret, game, rnd, group, board)
    size, seats, hand = SIZES[game]
    assert list(d.hands) == list(seats)
    everything = [c for h in d.hands.values() for c in h] + list(d.stock)
    assert sorted(everything, key=sort_key) == sorted(deck(str(size)), key=sort_key)
    for s in seats:
        assert len(d.hands[s]) == hand + (1 if game == "paohuzi" and s == "E" else 0)
    if game == "paohuzi":
        assert d.extra["shown"] in d.hands["E"] and len(d.stock) == 19
    again = D.deal_from_round_key(D.round_key(secret, rnd), game, group, board, round=rnd)
    assert again == d and again.to_dict() == d.to_dict()
    assert D.DealRecord.from_dict(json.loads(json.dumps(d.to_dict()))) == d


def test_deals_differ_across_boards_groups_rounds_games_and_secrets():
    seen = {}
    for secret in (GOLDEN, GOLDEN + b"!", b"\x00" * 32):
        for game in SIZES:
            for rnd in (1, 2, 3):
                for group in (1, 2, 3):
                    for board in range(1, 9):
                        h = D.deal(secret, game, rnd, group, board).hash
                        assert h not in seen, (secret, game, rnd, group, board, seen.get(h))
                        seen[h] = (secret, game, rnd, group, board)
    # Not only the hash (which covers the numbers) but the cards differ between groups.
    a, b = D.deal(GOLDEN, "bigtwo", 1, 1, 1), D.deal(GOLDEN, "bigtwo", 1, 2, 1)
    assert a.hands != b.hands


def test_a_round_key_derives_only_its_own_round():
    k1, k2 = D.round_key(GOLDEN, 1), D.round_key(GOLDEN, 2)
    assert k1 != k2 and len(k1) == 32
    # The hub's key for round 1 gives round 1's deals; used for round 2 it gives other cards.
    assert D.deal_from_round_key(k1, "bigtwo", 1, 1, round=1) == D.deal(GOLDEN, "bigtwo", 1, 1, 1)
    assert D.deal_from_round_key(k1, "bigtwo", 1, 1, round=2).hands != D.deal(GOLDEN, "bigtwo", 2, 1, 1).hands


def test_fast_shuffle_draws_exactly_what_below_draws():
    for n in (2, 3, 52, 80, 108, 256, 257, 600):
        fast = D.HmacStream(b"k", b"c").shuffle(range(n))
        s = D.HmacStream(b"k", b"c")
        a = list(range(n))
        for i in range(n - 1, 0, -1):
            j = s.below(i + 1)
            a[i], a[j] = a[j], a[i]
        assert fast == a, n


# ---- uniformity (deterministic: a fixed secret) -----------------------------------------

def chi_square(counts, expected):
    return sum((c - expected) ** 2 / expected for c in counts)


def test_diamond_three_lands_in_every_seat_equally_often():
    key = D.round_key(GOLDEN, 1)
    where = collections.Counter()
    for board in range(1, 4001):
        d = D.deal_from_round_key(key, "bigtwo", 1, board, round=1)
        where[next(s for s, h in d.hands.items() if "3D" in h)] += 1
    assert sum(where.values()) == 4000
    for seat in "ENWS":  # expected 1000 each, standard deviation about 27
        assert 880 <= where[seat] <= 1120, where
    assert chi_square(where.values(), 1000) < 16.3  # 3 degrees of freedom, p = 0.001


def test_every_card_is_equally_likely_in_every_seat():
    key = D.round_key(GOLDEN, 2)
    counts = collections.Counter()
    n = 2000
    for board in range(1, n + 1):
        for seat, hand in D.deal_from_round_key(key, "bigtwo", 1, board, round=2).hands.items():
            for c in hand:
                counts[(c, seat)] += 1
    cells = [counts[(c, s)] for c in deck("52") for s in "ENWS"]
    assert len(cells) == 208 and sum(cells) == 52 * n
    # 52 cards x 3 free seats = 156 degrees of freedom: mean 156, sd 17.7; 240 is p < 0.0001.
    stat = chi_square(cells, n / 4)
    assert 80 < stat < 240, stat


def test_paohuzi_shown_card_and_stock_are_uniform():
    key = D.round_key(GOLDEN, 1)
    shown = collections.Counter()
    stock_first = collections.Counter()
    for board in range(1, 2001):
        d = D.deal_from_round_key(key, "paohuzi", 1, board, round=1)
        shown[d.extra["shown"]] += 1
        stock_first[d.stock[0]] += 1
    # 20 kinds of card, 4 copies each: expected 100 per kind; 19 degrees of freedom.
    for counter in (shown, stock_first):
        assert len(counter) == 20
        assert chi_square([counter[k] for k in counter], 100) < 43.8  # p = 0.001


def test_below_is_unbiased_where_modulo_would_not_be():
    # k = 3 over bytes: plain v % 3 favours 0 (86 of 256 against 85); rejection makes it exact.
    s = D.HmacStream(GOLDEN, b"below")
    counts = collections.Counter(s.below(100) for _ in range(50000))
    # With v % 100 the values 0..55 would come 3/256 of the time and 56..99 only 2/256.
    low = sum(counts[v] for v in range(56)) / 50000
    assert abs(low - 0.56) < 0.015, low
    assert D.HmacStream(b"k", b"c").below(1) == 0
    with pytest.raises(ValueError):
        D.HmacStream(b"k", b"c").below(0)


# ---- records from outside are checked ----------------------------------------------------

def _broken(game, change):
    data = json.loads(json.dumps(D.deal(GOLDEN, game, 1, 1, 1).to_dict()))
    change(data)
    return data


def _swap_card(data):
    data["hands"]["E"][0], data["hands"]["N"][0] = data["hands"]["N"][0], data["hands"]["E"][0]


BROKEN = [
    ("bigtwo", lambda d: d.update(version="v0"), "bad_version", "version"),
    ("bigtwo", lambda d: d.update(game="poker"), "unknown_game", "unknown game 'poker'"),
    ("bigtwo", lambda d: d.update(board=0), "bad_board", "board must be a whole number from 1"),
    ("bigtwo", lambda d: d.update(round="1"), "bad_round", "round must be"),
    ("bigtwo", lambda d: d["hands"].pop("S"), "bad_seats", "exactly the seats E, N, W, S"),
    ("bigtwo", lambda d: d["hands"]["E"].pop(), "bad_hand_size", "seat E holds 12 cards"),
    ("bigtwo", lambda d: d["hands"]["E"].__setitem__(0, d["hands"]["N"][0]), "not_a_partition", "dealt twice"),
    ("bigtwo", lambda d: d["hands"]["E"].__setitem__(0, "ZZ"), "invalid_card", "seat E: 'ZZ' is not a card"),
    ("bigtwo", lambda d: d["hands"]["E"].__setitem__(0, "BJ"), "invalid_card", "BJ is not a card of the 52"),
    ("bigtwo", _swap_card, "hash_mismatch", "does not match these cards"),
    ("bigtwo", lambda d: d.update(extra={"shown": "3D"}), "bad_deal", "no extra parts"),
    ("guandan", lambda d: d["hands"]["E"].__setitem__(0, "x1"), "invalid_card", "x1 is not a card of the 108"),
    ("paohuzi", lambda d: d["extra"].update(shown="x1" if d["extra"]["shown"] != "x1" else "x2"), None, ""),
    ("paohuzi", lambda d: d["extra"]["stock"].pop(), "bad_stock", "the stock holds 18 cards"),
    ("paohuzi", lambda d: d["extra"]["stock"].reverse(), "hash_mismatch", "does not match"),
    ("paohuzi", lambda d: d["hands"].update(S=[]), "bad_seats", "exactly the seats E, N, W"),
]


@pytest.mark.parametrize("game,change,code,text", BROKEN)
def test_from_dict_refuses_a_broken_record_saying_why(game, change, code, text):
    data = _broken(game, change)
    with pytest.raises(D.DealError) as e:
        D.DealRecord.from_dict(data)
    if code is not None:
        assert e.value.code == code
        assert text in str(e.value)
    else:  # a shown card that is not the dealer's, or not the recorded one
        assert e.value.code in ("bad_shown", "hash_mismatch")
    assert e.value.zh


def test_from_dict_without_a_hash_computes_it():
    data = D.deal(GOLDEN, "guandan", 1, 1, 2).to_dict()
    del data["hash"]
    assert D.DealRecord.from_dict(data).hash == D.deal(GOLDEN, "guandan", 1, 1, 2).hash


@pytest.mark.parametrize("call,code", [
    (lambda: D.deal(b"", "bigtwo", 1, 1, 1), "empty_secret"),
    (lambda: D.deal("text", "bigtwo", 1, 1, 1), "bad_secret"),
    (lambda: D.deal(GOLDEN, "mahjong", 1, 1, 1), "unknown_game"),
    (lambda: D.deal(GOLDEN, "bigtwo", 0, 1, 1), "bad_round"),
    (lambda: D.deal(GOLDEN, "bigtwo", 1, -1, 1), "bad_group"),
    (lambda: D.deal(GOLDEN, "bigtwo", 1, 1, True), "bad_board"),
    (lambda: D.deal(GOLDEN, "bigtwo", 1, 1, 2 ** 40), "bad_board"),
    (lambda: D.deal_from_round_key(b"", "bigtwo", 1, 1, round=1), "empty_secret"),
])
def test_bad_arguments_raise_deal_errors(call, code):
    with pytest.raises(D.DealError) as e:
        call()
    assert e.value.code == code


@pytest.mark.parametrize("text,boards", [
    ("1-8", [1, 2, 3, 4, 5, 6, 7, 8]), ("3", [3]), ("1,4,7-9", [1, 4, 7, 8, 9]), (" 9 , 2-3 ", [2, 3, 9]),
    ("5-5", [5]),
])
def test_parse_boards(text, boards):
    assert D.parse_boards(text) == boards


@pytest.mark.parametrize("text,message", [
    ("", "no boards given"), ("0", "numbered from 1"), ("8-1", "runs backwards"), ("1-3,2", "board 2 is named twice"),
    ("a", "'a' is not a board number"), ("1,,2", "'' is not a board number"), ("1-", "'1-' is not"),
    ("-3", "'-3' is not"), ("1.5", "'1.5' is not"), ("1-20000", "more than 10000 boards"), ("٣", "is not a board"),
])
def test_parse_boards_refuses(text, message):
    with pytest.raises(D.DealError) as e:
        D.parse_boards(text)
    assert message in str(e.value)


@pytest.mark.parametrize("text,secret", [
    ("00ff", b"\x00\xff"), ("hex:00FF", b"\x00\xff"), ("text:00ff", b"00ff"), ("abc", b"abc"),
    ("event 2026", b"event 2026"), ("赛事", "赛事".encode()), ("0", b"0"),
])
def test_parse_secret(text, secret):
    assert D.parse_secret(text) == secret


@pytest.mark.parametrize("text", ["", "hex:", "text:", "hex:abc", "hex:zz"])
def test_parse_secret_refuses(text):
    with pytest.raises(D.DealError):
        D.parse_secret(text)


# ---- the engine takes the deal ------------------------------------------------------------

def test_big_two_engine_plays_a_generated_deal_to_the_end():
    record = D.deal(GOLDEN, "bigtwo", 1, 1, 5)
    deal = record.to_engine_deal()
    assert deal.board == 5
    assert {s: set(h) for s, h in deal.to_dict()["hands"].items()} == {s: set(h) for s, h in record.hands.items()}
    assert "3D" in record.hands[deal.first_seat]
    game = BigTwo(deal)
    bots = {s: BigTwoBot(i) for i, s in enumerate("ENWS")}
    while game.phase != "over":
        seat = game.to_act()[0]
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions(seat)))
    assert sum(game.result().scores.values()) == 0


def test_a_registered_game_takes_its_deal_and_an_unregistered_one_is_refused():
    record = D.deal(GOLDEN, "guandan", 1, 1, 1)
    deal = record.to_engine_deal()  # the registry's deal_for: Guandan is registered now
    assert deal.board == 1 and sorted(len(h) for h in deal.hands.values()) == [27] * 4
    record = D.deal(GOLDEN, "paohuzi", 1, 1, 1)
    deal = record.to_engine_deal()  # the record's extra (亮张, stock) goes to the engine's deal too
    assert deal.to_dict()["shown"] == record.shown and deal.to_dict()["stock"] == list(record.stock)
    assert deal.to_dict()["hands"] == {s: list(h) for s, h in record.hands.items()}


def test_a_game_dealt_before_its_engine_exists_is_refused(monkeypatch):
    from paizhuo import rules

    def no_game(name):
        raise ValueError("unknown game %r" % name)
    monkeypatch.setattr(rules, "game", no_game)
    with pytest.raises(D.DealError) as e:
        D.deal(GOLDEN, "paohuzi", 1, 1, 1).to_engine_deal()
    assert e.value.code == "no_engine"


def test_the_demo_deals_from_the_generator():
    assert seeded_deal(7, 3) == demo_record(7, 3).to_engine_deal()
    assert seeded_deal(7, 3) != seeded_deal(8, 3) and seeded_deal(7, 3) != seeded_deal(7, 4)


@pytest.mark.parametrize("module", ["paizhuo.venue.deals", "paizhuo.venue.movement"])
def test_docstring_examples(module):
    import importlib
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert failed == 0 and attempted > 0


# ---- `paizhuo deals` ------------------------------------------------------------------------

def test_cli_prints_checkable_records():
    out = run("deals", "--secret", GOLDEN.hex(), "--game", "bigtwo", "--round", "2", "--group", "3",
              "--boards", "1-3,4")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # a 21-byte secret is long enough: no warning
    records = json.loads(out.stdout)
    assert [r["board"] for r in records] == [1, 2, 3, 4]
    for r in records:
        assert D.DealRecord.from_dict(r).hash == r["hash"]
    assert records[3]["hash"] == "dde882fd47c2421210e52df44de3d58cf267c2c2d617082e2c7c5694e6297086"


def test_cli_round_key_gives_the_same_deals_as_the_secret():
    key = D.round_key(GOLDEN, 3).hex()
    a = run("deals", "--round-key", key, "--round", "3", "--game", "paohuzi", "--boards", "2")
    b = run("deals", "--secret", "hex:" + GOLDEN.hex(), "--round", "3", "--game", "paohuzi", "--boards", "2")
    assert a.returncode == b.returncode == 0
    assert json.loads(a.stdout) == json.loads(b.stdout)


def test_cli_warns_about_a_short_secret_but_still_deals():
    out = run("deals", "--secret", "test", "--game", "guandan", "--boards", "1")
    assert out.returncode == 0 and "warning: the secret is 4 bytes" in out.stderr
    assert json.loads(out.stdout)[0]["hash"] == D.deal(b"test", "guandan", 1, 1, 1).hash


@pytest.mark.parametrize("args,message", [
    (["--secret", "", "--game", "bigtwo", "--boards", "1"], "the secret is empty"),
    (["--secret", "x", "--game", "poker", "--boards", "1"], "unknown game 'poker'; games are: bigtwo, guandan"),
    (["--secret", "x", "--game", "bigtwo", "--boards", "8-1"], "runs backwards"),
    (["--secret", "x", "--game", "bigtwo", "--boards", "one"], "'one' is not a board number"),
    (["--secret", "x", "--game", "bigtwo", "--boards", "1", "--round", "0"], "round must be a whole number"),
    (["--secret", "x", "--game", "bigtwo", "--boards", "1", "--group", "-2"], "group must be a whole number"),
    (["--secret", "x", "--game", "bigtwo", "--boards", "1", "--round", "x"], "invalid int value: 'x'"),
    (["--game", "bigtwo", "--boards", "1"], "give exactly one of --secret"),
    (["--secret", "x", "--round-key", "00", "--game", "bigtwo", "--boards", "1"], "give exactly one of --secret"),
    (["--round-key", "xyz", "--game", "bigtwo", "--boards", "1"], "--round-key must be hex"),
    (["--round-key", "00ff", "--game", "bigtwo", "--boards", "1"], "must be 32 bytes"),
    (["--secret", "hex:0", "--game", "bigtwo", "--boards", "1"], "is not hex"),
    (["--secret", "x", "--boards", "1"], "--game"),
])
def test_cli_refuses_bad_arguments(args, message):
    out = run("deals", *args)
    assert out.returncode == 2
    assert message in out.stderr
    assert out.stdout == ""


def test_the_released_round_key_gives_the_hubs_the_same_deals():
    """The venue prints a round's key when the round starts; a hub given only that key deals
    exactly what the event secret deals, and the key says nothing about other rounds."""
    got = run("deals", "--secret", "text:released key event 2026", "--game", "bigtwo", "--round", "3",
              "--print-round-key")
    assert got.returncode == 0, got.stderr
    printed = json.loads(got.stdout)
    assert printed == {"round": 3, "round_key": D.round_key(b"released key event 2026", 3).hex()}
    by_secret = run("deals", "--secret", "text:released key event 2026", "--game", "bigtwo", "--round", "3",
                    "--boards", "1-3")
    by_key = run("deals", "--round-key", printed["round_key"], "--game", "bigtwo", "--round", "3", "--boards", "1-3")
    assert by_secret.returncode == by_key.returncode == 0
    assert json.loads(by_secret.stdout) == json.loads(by_key.stdout)
    refused = run("deals", "--round-key", printed["round_key"], "--game", "bigtwo", "--print-round-key")
    assert refused.returncode == 2 and "--secret" in refused.stderr and refused.stdout == ""
    refused = run("deals", "--secret", "text:released key event 2026", "--game", "bigtwo")
    assert refused.returncode == 2 and "--boards" in refused.stderr and refused.stdout == ""


# ---- the deals of a match (a match game's board is several deals) ---------------------------

def reference_later_deal(secret, game, rnd, group, board, n):
    """Deal n >= 2 of a board, written again from docs/movement-and-deals.md: the same round key,
    the board's context with ``deal=n|`` added, the same shuffle."""
    order = reference_order(secret, game, rnd, group, board, n)
    size = SIZES[game][2]
    return {s: sorted(order[i * size:(i + 1) * size], key=sort_key) for i, s in enumerate("ENWS")}


@given(st.sampled_from(["bigtwo", "guandan"]), st.integers(1, 5), st.integers(1, 4), st.integers(1, 30))
@settings(max_examples=25, deadline=None)
def test_deal_one_of_a_board_is_the_boards_deal_and_later_deals_are_new_contexts(game, rnd, group, board):
    key = D.round_key(GOLDEN, rnd)
    first = D.deal_from_round_key(key, game, group, board, round=rnd)
    assert D.deal_from_round_key(key, game, group, board, round=rnd, deal=1).to_dict() == first.to_dict()
    assert "deal" not in first.to_dict() and "deal " not in first.canonical_text()
    seen = {first.hash}
    for n in (2, 3):
        later = D.deal_from_round_key(key, game, group, board, round=rnd, deal=n)
        assert {s: list(h) for s, h in later.hands.items()} == reference_later_deal(GOLDEN, game, rnd, group, board, n)
        assert later.deal == n and later.to_dict()["deal"] == n and "\ndeal %d\n" % n in later.canonical_text()
        assert D.DealRecord.from_dict(later.to_dict()) == later
        seen.add(later.hash)
    assert len(seen) == 3


def test_a_later_deal_record_keeps_its_number_under_the_hash():
    later = D.deal_from_round_key(D.round_key(GOLDEN, 1), "guandan", 1, 1, round=1, deal=2).to_dict()
    later["deal"] = 3
    with pytest.raises(D.DealError) as e:
        D.DealRecord.from_dict(later)
    assert e.value.code == "hash_mismatch"
    later["deal"] = 0
    with pytest.raises(D.DealError) as e:
        D.DealRecord.from_dict(later)
    assert e.value.code == "bad_deal" and "从 1 开始" in e.value.zh


def test_how_a_game_is_dealt_comes_from_its_engine():
    from paizhuo import rules
    assert D.GAMES is rules.DEALING
    for name, engine in rules.GAMES.items():
        d = rules.DEALING[name]
        assert (d.deck, d.hand, d.seats) == (engine.DECK, engine.HAND_SIZE, tuple(engine.SEATS))
    for name, (size, seats, hand) in SIZES.items():
        assert (D.GAMES[name].size, "".join(D.GAMES[name].seats), D.GAMES[name].hand) == (size, seats, hand)
