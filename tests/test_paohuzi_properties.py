"""Properties of the Paohuzi engine under random legal play (hypothesis): every deal ends, the 80
cards are all somewhere at every step, every view hides what it must, every listed legal action
verifies and every default action is legal, events never carry a hidden card, and a record
replays to an identical snapshot."""

import json
import random

from hypothesis import given, settings, strategies as st

from paizhuo import deals, rules
from paizhuo.rules.paohuzi import Action, Deal, IllegalActionError, Paohuzi, Rules
from paizhuo_shared import paohuzi as pz

SEATS = ("E", "N", "W")
SECRET = b"paohuzi property secret, 32 byte"


def _deal(seed, source):
    if source == "deals":  # the venue's deal generator, through the registry
        rec = deals.deal(SECRET, "paohuzi", 1, 1 + seed % 7, 1 + seed % 50)
        return rules.game("paohuzi").deal_for(rec)
    order = list(range(80))
    random.Random(seed).shuffle(order)
    return Deal.from_permutation(order, board=1)


def _cards_everywhere(g, won):
    n = [0] * 20
    for cs in g.hands + g.piles + [g.stock] + [grp.cards for gs in g.open for grp in gs]:
        for c in cs:
            n[c] += 1
    if g.out is not None:
        n[g.out[0]] += 1
    if won is not None:
        n[won] += 1
    return n


def _check_views(g):
    public = g.view(None)
    assert "hand" not in public and "may" not in public and "stale" not in public
    if g.phase == "claim":
        assert public["to_act"] == []
    for i, s in enumerate(SEATS):
        v = g.view(s)
        json.dumps(v)  # plain data
        assert v["hand"] == pz.codes(sorted(g.hands[i])) and v["counts"][s] == len(g.hands[i])
        assert set(v["counts"]) == set(SEATS) and all(v["counts"][t] == len(g.hands[k]) for k, t in enumerate(SEATS))
        assert not any(k in v for k in ("hands", "stock_cards", "decided"))
        if g.phase == "claim":
            asked = i in g.may and i not in g.decided
            assert v["to_act"] == ([s] if asked else [])  # never who else is asked
            assert ("may" in v) == asked
        else:
            assert "may" not in v and v["to_act"] == list(g.to_act())
        for k, t in enumerate(SEATS):
            for grp, seen in zip(g.open[k], v["open"][t]):
                if k != i and grp.hidden:
                    assert seen == {"kind": grp.kind, "cards": None}  # a 偎 is face down to the others
                else:
                    assert seen["cards"] == pz.codes(grp.cards)
            hidden = sum(pz.huxi(grp.kind, grp.cards) for grp in g.open[k] if grp.hidden and k != i)
            assert v["huxi"][t] == sum(pz.huxi(grp.kind, grp.cards) for grp in g.open[k]) - hidden
        assert {x: v[x] for x in ("out", "piles", "stock", "phase", "turn")} == {
            x: public[x] for x in ("out", "piles", "stock", "phase", "turn")}


def _check_events(events, g):
    json.dumps(events)
    for k, e in enumerate(events):
        if e["type"] == "wei" and not e["chou"]:
            assert e["cards"] is None and events[k - 1]["type"] == "turn_up" and events[k - 1]["card"] is None
        if e["type"] == "ti" and e["from"] == "wei":
            owner = SEATS.index(e["seat"])
            ti = [grp for grp in g.open[owner] if grp.kind == "ti" and grp.cards == (grp.cards[0],) * 4]
            if e["cards"] is None:
                assert events[k - 1]["card"] is None and any(grp.hidden for grp in ti)
        assert "may" not in e and "to_act" not in e and "asked" not in e


def _play(g, rnd, check=True):
    """Random legal play to the end (sometimes the hub's default); returns the card won, if any."""
    won = None
    for step in range(500):
        if g.phase == "over":
            return won
        if check:
            assert _cards_everywhere(g, None) == [4] * 20
            _check_views(g)
        seat = rnd.choice(g.to_act())
        legal = g.legal_actions(seat)
        assert legal and all(a.seat == seat for a in legal)
        if check:
            for a in legal:
                g.verify(a)
                assert g.can(Action.from_dict(a.to_dict()))
            for s in g.to_act():
                assert g.default_action(s) in g.legal_actions(s)
            for s in SEATS:
                if s not in g.to_act():
                    assert g.legal_actions(s) == []
        a = g.default_action(seat) if rnd.random() < 0.2 else rnd.choice(legal)
        events = g.apply(a)
        if check:
            _check_events(events, g)
        for e in events:
            if e["type"] == "hu" and not e["compulsory"]:  # the card out, taken to win
                won = pz.card(e["card"])
    raise AssertionError("the deal did not end in 500 decisions")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 10 ** 9), st.sampled_from(["shuffle", "deals"]))
def test_random_legal_play_ends_conserves_the_cards_and_hides_what_it_must(deal_seed, play_seed, source):
    g = Paohuzi(_deal(deal_seed, source))
    _check_events(g.opening, g)
    won = _play(g, random.Random(play_seed))
    assert g.phase == "over" and g.to_act() == () and _cards_everywhere(g, won) == [4] * 20
    r = g.result().to_dict()
    assert sum(r["scores"].values()) == 0 and sorted(r["scores"]) == sorted(SEATS)
    if r["winner"] is None:
        assert g.stock == [] and set(r["scores"].values()) == {0}
    else:
        assert r["huxi"] >= 6 and r["tun"] >= 1 and r["fan"] >= 1
        assert r["scores"][r["winner"]] == 2 * r["tun"] * r["fan"]
        fours = sum(1 for grp in r["groups"] if grp["kind"] in ("pao", "ti"))  # then a 将 too: 7 门子
        assert sum(len(grp["cards"]) for grp in r["groups"]) == (20 + fours if fours else 21)
    json.dumps(r)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 10 ** 9), st.integers(0, 60))
def test_a_record_replays_to_an_identical_snapshot_from_any_point(deal_seed, play_seed, stop):
    g = Paohuzi(_deal(deal_seed, "shuffle"), Rules(win_card="any") if deal_seed % 3 == 0 else None)
    rnd = random.Random(play_seed)
    for _ in range(stop):
        if g.phase == "over":
            break
        seat = rnd.choice(g.to_act())
        g.apply(rnd.choice(g.legal_actions(seat)).with_meta(auto=rnd.random() < 0.3, think_ms=rnd.randrange(5000)))
    rec = json.loads(json.dumps(g.record()))
    again = Paohuzi.from_record(rec)
    assert again.snapshot() == g.snapshot()
    assert again.view("N") == g.view("N") and again.view(None) == g.view(None)
    if g.phase == "over":
        assert again.result().to_dict() == g.result().to_dict()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_only_the_hubs_defaults_play_a_deal_to_its_end(deal_seed):
    g = Paohuzi(_deal(deal_seed, "shuffle"))
    while g.phase != "over":
        s = g.to_act()[0]
        a = g.default_action(s)
        assert a.auto and g.can(a)
        g.apply(a)
    assert sum(g.result().scores.values()) == 0


CODES = st.sampled_from(pz.codes(range(20)) + ["x0", "d11", "3D", "", "X5", "D10"])
JUNK = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 25), st.text(max_size=4), CODES),
                    lambda inner: st.lists(inner, max_size=4), max_leaves=10)
ACTIONS = st.fixed_dictionaries(
    {"type": st.sampled_from(["discard", "chi", "peng", "hu", "pass", "play", 1]),
     "seat": st.sampled_from(["E", "N", "W", "S", None])},
    optional={"card": st.one_of(CODES, JUNK), "groups": st.one_of(st.lists(st.lists(CODES, max_size=4), max_size=3),
                                                                 JUNK),
              "auto": st.one_of(st.booleans(), JUNK), "think_ms": st.one_of(st.integers(-5, 10 ** 6), JUNK)})


@settings(max_examples=60, deadline=None)
@given(ACTIONS, st.integers(0, 10 ** 6), st.integers(0, 30))
def test_any_action_from_outside_is_taken_or_refused_with_a_code_and_nothing_changes(data, seed, steps):
    g = Paohuzi(_deal(seed, "shuffle"))
    rnd = random.Random(seed)
    for _ in range(steps):
        if g.phase == "over":
            break
        g.apply(rnd.choice(g.legal_actions(rnd.choice(g.to_act()))))
    before = g.snapshot()
    try:
        a = Action.from_dict(data)
    except IllegalActionError as e:
        assert e.code and e.en and e.zh
        return
    try:
        g.verify(a)
    except IllegalActionError as e:
        assert e.code and e.en and e.zh and e.en != e.zh
        assert g.snapshot() == before
        return
    assert a in g.legal_actions(a.seat)  # what verifies is listed (a 吃's groups in any order)


@settings(max_examples=60, deadline=None)
@given(st.one_of(JUNK, st.dictionaries(st.sampled_from(["hands", "shown", "stock", "board"]), JUNK, max_size=4),
                 st.fixed_dictionaries({"hands": st.dictionaries(st.sampled_from(SEATS), JUNK, max_size=3)})))
def test_a_deal_from_outside_is_a_deal_or_a_value_error(data):
    try:
        Deal.from_dict(data)
    except ValueError:
        pass
