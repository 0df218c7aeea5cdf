"""竞技锄大地 (Big Two) engine scenarios: what a player or a referee would notice at the table.

Every scenario uses a hand-made deal (see :func:`make_deal`) and states its expectations as
RULES.md ("Big Two") states them.  Actions are written in a short notation (:func:`act`):
``"E 3D 4D"`` plays, ``"E pass"``, ``"E show+"``/``"E show-"``, ``"E double+"``/``"E double-"``.
"""

import json

import pytest

from paizhuo.rules.bigtwo import SEATS, Action, BigTwo, Deal, IllegalActionError, Rules
from paizhuo_shared.bigtwo import cards, classify, codes

ALL_CODES = frozenset(r + s for r in "3456789TJQKA2" for s in "DCHS")


# ---- helpers ----------------------------------------------------------------------------

def make_deal(fill="ENWS", board=None, **given):
    """A full legal deal from the cards a scenario cares about.

    ``given`` maps seats to the cards they must hold; the rest of the deck, lowest card
    first, tops the seats up to 13 in ``fill`` order (so the last seat in ``fill`` gets the
    highest leftover cards, e.g. ♠2 when nobody was given it).
    """
    hands = {s: list(cards(given.get(s, ""))) for s in SEATS}
    used = [c for h in hands.values() for c in h]
    assert len(used) == len(set(used)), "the scenario gives a card to two seats"
    rest = sorted(set(range(52)) - set(used))
    for seat in fill:
        while len(hands[seat]) < 13:
            hands[seat].append(rest.pop(0))
    assert not rest and all(len(h) == 13 for h in hands.values()), "fill must name every seat short of 13"
    return Deal(hands, board)


def act(text):
    """One action from the short notation: ``"E 3D 4D"``, ``"E pass"``, ``"E show+"``, ``"N double-"``."""
    seat, _, rest = text.partition(" ")
    if rest == "pass":
        return Action.pass_(seat)
    for kind, make in (("show", Action.show), ("double", Action.double)):
        if rest in (kind + "+", kind + "-"):
            return make(seat, rest.endswith("+"))
    return Action.play(seat, rest)


def run(game, *texts):
    """Apply actions in the short notation; return every event they caused."""
    events = []
    for text in texts:
        events += game.apply(act(text))
    return events


def start(deal, rules=None, shows="", doubles=""):
    """A game past 明牌 and 加倍: seats named in ``shows`` show, those in ``doubles`` double."""
    game = BigTwo(deal, rules)
    for seat in SEATS:
        game.apply(Action.show(seat, seat in shows))
    while game.phase == "double":
        seat = game.to_act()[0]
        game.apply(Action.double(seat, seat in doubles))
    assert game.phase == "play"
    return game


def refused(game, action):
    """The error the engine gives for ``action``; also checks that the refusal changed nothing."""
    before = game.snapshot()
    views = {s: game.view(s) for s in SEATS + (None,)}
    assert not game.can(action)
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    err = info.value
    assert err.en and err.zh and str(err) == err.en
    assert err.to_dict() == {"code": err.code, "en": err.en, "zh": err.zh}
    assert game.snapshot() == before, "a refused action must change nothing"
    assert {s: game.view(s) for s in SEATS + (None,)} == views
    return err


def card_codes_in(obj):
    """Every card code mentioned anywhere in a (nested) view."""
    found = set()
    if isinstance(obj, str):
        if obj in ALL_CODES:
            found.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            found |= card_codes_in(k) | card_codes_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            found |= card_codes_in(v)
    return found


def hand_of(game, seat):
    return game.snapshot()["hands"][SEATS.index(seat)]


# ---- 明牌: simultaneous, hidden until all four have decided ----------------------------

SHOW_DEAL = make_deal(E="3D")


@pytest.mark.parametrize("order", ["ENWS", "SWNE", "NSEW", "WESN"])
def test_show_phase_accepts_any_order(order):
    game = BigTwo(SHOW_DEAL)
    assert game.phase == "show" and set(game.to_act()) == set(SEATS)
    for k, seat in enumerate(order):
        assert game.legal_actions(seat) == [Action.show(seat, False), Action.show(seat, True)]
        events = game.apply(Action.show(seat, seat in "NW"))
        assert events[0] == {"type": "decided", "phase": "show", "seat": seat}
        if k < 3:
            assert game.phase == "show"
            assert set(game.to_act()) == set(order[k + 1:])
            assert game.legal_actions(seat) == []
    assert game.phase == "double" and game.to_act() == ("E",)
    assert {"type": "shown", "hands": {"N": hand_of(game, "N"), "W": hand_of(game, "W")}} in events


@pytest.mark.parametrize("yes", [True, False])
def test_show_decision_cannot_be_made_twice(yes):
    game = BigTwo(SHOW_DEAL)
    game.apply(Action.show("W", yes))
    assert refused(game, Action.show("W", not yes)).code == "already_decided"
    assert refused(game, Action.show("W", yes)).code == "already_decided"


def test_decided_event_never_carries_the_choice():
    yes_game, no_game = BigTwo(SHOW_DEAL), BigTwo(SHOW_DEAL)
    for seat in "ENW":
        assert yes_game.apply(Action.show(seat, True)) == no_game.apply(Action.show(seat, False)) \
            == [{"type": "decided", "phase": "show", "seat": seat}]
    # Nor does the public view, before the reveal: only who has decided.
    assert yes_game.view(None) == no_game.view(None)
    assert yes_game.view("S") == no_game.view("S")
    assert yes_game.view(None)["decided"] == ["E", "N", "W"]


def test_shown_hand_is_hidden_until_all_decide_then_visible_to_all_for_the_rest_of_the_deal():
    deal = make_deal(fill="NWSE", E="3D 4D 5D 6D 7D 8D 9D TD JD QD KC KH KS")
    game = BigTwo(deal)
    e_cards = set(codes(deal.hands["E"]))
    game.apply(Action.show("E", True))
    for seat in "NWS":
        for viewer in ("N", "W", "S", None):
            v = game.view(viewer)
            assert v["shown"] == {}
            assert not card_codes_in(v) & e_cards, "E's shown hand leaked before all four decided"
        assert game.view("E")["my_show"] is True and game.view("N")["my_show"] in (None, False)
        events = game.apply(Action.show(seat, False))
    assert {"type": "shown", "hands": {"E": codes(deal.hands["E"])}} in events
    for viewer in SEATS + (None,):
        assert game.view(viewer)["shown"] == {"E": codes(deal.hands["E"])}
    # Still visible, as E's *current* cards, as the deal goes on and after it ends.
    for seat in "ENWS":
        game.apply(Action.double(seat, False))
    run(game, "E 3D 4D 5D 6D 7D", "N pass", "W pass", "S pass")
    for viewer in SEATS + (None,):
        assert game.view(viewer)["shown"] == {"E": ["8D", "9D", "TD", "JD", "QD", "KC", "KH", "KS"]}
    run(game, "E 8D 9D TD JD QD", "N pass", "W pass", "S pass", "E KC KH KS")
    assert game.phase == "over"
    for viewer in SEATS + (None,):
        assert game.view(viewer)["shown"] == {"E": []}


# ---- 加倍: one by one from the ♦3 holder, counter-clockwise ------------------------------

@pytest.mark.parametrize("first, order", [("E", "ENWS"), ("N", "NWSE"), ("W", "WSEN"), ("S", "SENW")])
def test_doubling_goes_round_from_the_diamond_three_holder(first, order):
    game = BigTwo(make_deal(**{first: "3D"}))
    for seat in SEATS:
        game.apply(Action.show(seat, False))
    for k, seat in enumerate(order):
        assert game.phase == "double" and game.to_act() == (seat,)
        assert game.view(None)["turn"] == seat
        for other in SEATS:
            if other != seat:
                assert game.legal_actions(other) == []
                assert refused(game, Action.double(other, True)).code == "not_your_turn"
        assert refused(game, Action.show(seat, True)).code == "wrong_phase"
        assert refused(game, Action.play(seat, "3D") if seat == first else Action.pass_(seat)).code == "wrong_phase"
        events = game.apply(Action.double(seat, k % 2 == 0))
        assert events[0] == {"type": "double", "seat": seat, "yes": k % 2 == 0}
    # The ♦3 holder then leads, with a play containing ♦3.
    assert game.phase == "play" and game.to_act() == (first,)
    legal = game.legal_actions(first)
    assert legal and all(a.type == "play" and 0 in a.cards for a in legal)
    assert game.view(None)["doubled"] == {s: order.index(s) % 2 == 0 for s in SEATS}


def test_nothing_but_show_decisions_during_the_show_phase():
    game = BigTwo(SHOW_DEAL)
    for action in (Action.double("E", True), Action.play("E", "3D"), Action.pass_("E")):
        assert refused(game, action).code == "wrong_phase"


# ---- refused plays: the right reason, and nothing changes ---------------------------------

PLAY_DEAL = make_deal(
    fill="SNWE",
    E="3D 3C 3H 4D 6D 7D 8C 8H 9C 9H 9S TC JC",
    N="4C 4H 5H 5S 6C 7C 8D 9D",
    W="3S 5D 5C",
)
ROUND_AGAIN = ["E 3D", "N pass", "W pass", "S pass"]  # E leads the next round

REFUSALS = [
    # (actions first, refused action, code)
    ([], "E 9C", "must_contain_d3"),
    ([], "E 9C 9H", "must_contain_d3"),
    ([], "E 3D 4D", "not_a_combination"),
    ([], "E 3D 3C 3H 4D", "not_a_combination"),  # four cards is no combination
    ([], "E 3D 3C 4D 6D 7D", "not_a_combination"),
    ([], "E 3D 2S", "not_in_hand"),
    ([], "E 5D", "not_in_hand"),
    ([], "E pass", "leader_cannot_pass"),
    ([], "N 4C", "not_your_turn"),
    ([], "S pass", "not_your_turn"),
    ([], "E show+", "wrong_phase"),
    ([], "E double-", "wrong_phase"),
    (["E 3D"], "N 4C 4H", "wrong_kind"),  # pair over single
    (["E 3D 3C"], "N 4C", "wrong_kind"),  # single over pair
    (["E 3D 3C 3H"], "N 4C 5H 6C 7C 8D", "wrong_kind"),  # five over three
    (["E 3D 3C 3H"], "N 4C 4H", "wrong_kind"),  # pair over triple
    (["E 3D"], "W 5C", "not_your_turn"),
    (["E 3D", "N 5S"], "W 5C", "too_low"),  # same rank, lower suit
    (["E 3D", "N 5S"], "W 3S", "too_low"),
    (["E 3D 3C", "N 5H 5S"], "W 5D 5C", "too_low"),  # pair: suit of the higher card decides
    (ROUND_AGAIN + ["E 6D 7D 8C 9C TC"], "N 4C 5H 6C 7C 8D", "too_low"),  # 45678 < 6789T
    (ROUND_AGAIN + ["E 6D 7D 8C 9C TC"], "N 5H 5S", "wrong_kind"),
    (ROUND_AGAIN + ["E 9C"], "N 3S", "not_in_hand"),
    (ROUND_AGAIN, "E 4D 6D", "not_a_combination"),
]


@pytest.mark.parametrize("before, action, code", REFUSALS, ids=["%s-%s" % (c[2], c[1]) for c in REFUSALS])
def test_illegal_action_is_refused_with_its_reason_and_changes_nothing(before, action, code):
    game = start(PLAY_DEAL)
    run(game, *before)
    assert refused(game, act(action)).code == code


def test_diamond_three_holder_leads_and_every_legal_lead_contains_it():
    game = start(PLAY_DEAL)
    assert game.to_act() == ("E",)
    leads = game.legal_actions("E")
    assert Action.pass_("E") not in leads and all(0 in a.cards for a in leads)  # 0 is ♦3
    small = {" ".join(codes(a.cards)) for a in leads if len(a.cards) < 5}
    assert small == {"3D", "3D 3C", "3D 3H", "3D 3C 3H"}
    assert Action.play("E", "3D 3C 3H 8C 8H") in leads and Action.play("E", "3D 3C 9C 9H 9S") in leads


def test_no_action_after_the_deal_is_over():
    game = start(make_deal(fill="NWSE", E="3D 4D 5D 6D 7D 8D 9D TD JD QD KC KH KS"))
    run(game, "E 3D 4D 5D 6D 7D", "N pass", "W pass", "S pass",
        "E 8D 9D TD JD QD", "N pass", "W pass", "S pass", "E KC KH KS")
    assert game.phase == "over" and game.to_act() == ()
    for seat in SEATS:
        assert game.legal_actions(seat) == []
        assert refused(game, Action.pass_(seat)).code == "deal_over"
        assert refused(game, Action.play(seat, hand_of(game, seat)[:1] or ["2S"])).code == "deal_over"
        with pytest.raises(IllegalActionError):
            game.default_action(seat)


def test_result_is_refused_before_the_deal_is_over():
    game = start(PLAY_DEAL)
    with pytest.raises(IllegalActionError) as info:
        game.result()
    assert info.value.code == "not_over"


# ---- rounds: three passes in a row ----------------------------------------------------------

def test_three_passes_end_the_round_and_the_last_player_leads():
    game = start(PLAY_DEAL)
    events = run(game, "E 3D", "N 5S", "W pass", "S pass")
    assert game.to_act() == ("E",) and game.view(None)["to_beat"]["seat"] == "N"
    events = run(game, "E pass")
    assert {"type": "round_end", "leader": "N"} in events
    assert game.to_act() == ("N",)
    v = game.view(None)
    assert v["to_beat"] is None and v["trick"] == []
    assert refused(game, Action.pass_("N")).code == "leader_cannot_pass"
    run(game, "N 4C 4H")  # a new round: any combination
    assert game.view(None)["to_beat"] == {"seat": "N", "cards": ["4C", "4H"], "kind": "pair"}


def test_a_player_who_passed_may_play_again_while_the_round_goes_on():
    game = start(PLAY_DEAL)
    # N passes, W plays: only two passes in a row follow (S, E), so the round goes on
    # and N, who passed, plays again.
    events = run(game, "E 3D", "N pass", "W 5C", "S pass", "E pass")
    assert not any(e["type"] == "round_end" for e in events)
    assert game.to_act() == ("N",)
    assert Action.play("N", "5S") in game.legal_actions("N")
    events = run(game, "N 5S", "W pass", "S pass")
    assert not any(e["type"] == "round_end" for e in events) and game.to_act() == ("E",)
    events = run(game, "E pass")
    assert {"type": "round_end", "leader": "N"} in events and game.to_act() == ("N",)


def test_trick_and_turn_events_are_public():
    game = start(PLAY_DEAL)
    events = run(game, "E 3D 3C")
    assert events == [
        {"type": "play", "seat": "E", "cards": ["3D", "3C"], "kind": "pair", "left": 11},
        {"type": "turn", "seat": "N"},
    ]
    events = run(game, "N pass")
    assert events == [{"type": "pass", "seat": "N"}, {"type": "turn", "seat": "W"}]
    assert game.view("S")["trick"] == [{"seat": "E", "cards": ["3D", "3C"]}, {"seat": "N", "cards": None}]


# ---- 报单: when a seat's 下家 holds one card ----------------------------------------------

# E goes down to one card (4C) with ♠A; S, E's 上家, then follows under the 报单 duty.
DUTY_PREFIX = ["E 3D 4D 5D 6D 7D", "N pass", "W pass", "S pass",
               "E 8D 9D TD JD QD", "N pass", "W pass", "S pass",
               "E 3C", "N 5C", "W 6C", "S 7C", "E AS"]
DUTY_E = "3D 4D 5D 6D 7D 8D 9D TD JD QD 3C 4C AS"


def duty_game(rules=None, s_holds_twos=True):
    """S to follow E's ♠A while E has one card left; S holds ♥2 ♠2 (or no 2 at all)."""
    twos = "2H 2S"
    deal = make_deal(fill="SNW", E=DUTY_E, N="5C" + ("" if s_holds_twos else " " + twos), W="6C",
                     S="7C KC KH 8S 9S TS JS QS" + (" " + twos if s_holds_twos else ""))
    game = start(deal, rules)
    events = run(game, *DUTY_PREFIX)
    assert {"type": "report", "seat": "E"} in events
    run(game, "N pass", "W pass")
    assert game.to_act() == ("S",)
    return game


def test_report_is_announced_and_shown_in_views():
    game = start(make_deal(fill="SNW", E=DUTY_E, N="5C", W="6C", S="7C 2H 2S"))
    for text in DUTY_PREFIX[:-1]:
        assert not any(e["type"] == "report" for e in game.apply(act(text)))
        assert game.view(None)["reports"] == []
    events = run(game, DUTY_PREFIX[-1])
    assert {"type": "report", "seat": "E"} in events
    for viewer in SEATS + (None,):
        assert game.view(viewer)["reports"] == ["E"]
    assert game.view("S")["duty"] is True  # E is S's 下家
    assert [game.view(s)["duty"] for s in "ENW"] == [False, False, False]


DUTY_FOLLOW = [
    # (rules, action, refusal code or None if legal)
    ({}, "S 2H", "report_duty"),
    ({}, "S 2S", None),
    ({}, "S pass", None),  # passing when following stays allowed [decision]
    ({"report_may_pass": False}, "S pass", "must_play"),
    ({"report_may_pass": False}, "S 2H", "report_duty"),
    ({"report_may_pass": False}, "S 2S", None),
    ({"report_duty": "off"}, "S 2H", None),
    ({"report_duty": "off", "report_may_pass": False}, "S pass", None),
]


@pytest.mark.parametrize("options, action, code", DUTY_FOLLOW)
def test_report_duty_when_following_a_single(options, action, code):
    game = duty_game(Rules(**options))
    if code is None:
        assert game.can(act(action)) and act(action) in game.legal_actions("S")
        game.apply(act(action))
    else:
        assert refused(game, act(action)).code == code
        assert act(action) not in game.legal_actions("S")


@pytest.mark.parametrize("options, legal", [
    ({}, ["S 2S", "S pass"]),
    ({"report_may_pass": False}, ["S 2S"]),
    ({"report_duty": "off"}, ["S 2H", "S 2S", "S pass"]),
])
def test_report_duty_legal_actions_when_following(options, legal):
    game = duty_game(Rules(**options))
    assert game.legal_actions("S") == [act(a) for a in legal]


@pytest.mark.parametrize("may_pass", [True, False])
def test_report_duty_pass_allowed_when_nothing_can_be_played(may_pass):
    game = duty_game(Rules(report_may_pass=may_pass), s_holds_twos=False)
    assert game.legal_actions("S") == [Action.pass_("S")]
    assert game.default_action("S") == Action.pass_("S")
    game.apply(Action.pass_("S"))


DUTY_LEAD = [
    ("S KC", "report_duty"),
    ("S 8S", "report_duty"),
    ("S 2H", None),  # the highest single
    ("S KC KH", None),  # a pair is allowed
    ("S 8S 9S TS JS QS", None),  # so is a five-card hand
    ("S pass", "leader_cannot_pass"),
]


@pytest.mark.parametrize("action, code", DUTY_LEAD)
def test_report_duty_when_leading(action, code):
    game = duty_game()
    run(game, "S 2S", "E pass", "N pass", "W pass")  # E's 4C cannot beat ♠2; S leads
    assert game.to_act() == ("S",) and game.view("S")["duty"]
    singles = [a for a in game.legal_actions("S") if len(a.cards) == 1]
    assert singles == [Action.play("S", "2H")]
    if code is None:
        game.apply(act(action))
    else:
        assert refused(game, act(action)).code == code


def test_report_duty_off_lets_any_single_lead():
    game = duty_game(Rules(report_duty="off"))
    run(game, "S 2S", "E pass", "N pass", "W pass")
    assert game.can(act("S 8S")) and game.can(act("S KC"))
    assert game.default_action("S") == Action.play("S", hand_of(game, "S")[0])  # the smallest single


# ---- the clock: default actions and time limits -------------------------------------------

def test_default_action_in_show_and_double_is_no_and_marked_auto():
    game = BigTwo(make_deal(W="3D"))
    for seat in "SNEW":
        d = game.default_action(seat)
        assert d == Action.show(seat, False) and d.auto
        game.apply(d)
    for seat in "WSEN":
        for other in SEATS:
            if other != seat:
                with pytest.raises(IllegalActionError) as info:
                    game.default_action(other)
                assert info.value.code == "not_your_turn"
        d = game.default_action(seat)
        assert d == Action.double(seat, False) and d.auto
        game.apply(d)
    assert game.phase == "play"


@pytest.mark.parametrize("first", SEATS)
def test_default_first_lead_is_the_diamond_three(first):
    game = start(make_deal(**{first: "3D"}))
    d = game.default_action(first)
    assert d == Action.play(first, "3D") and d.auto and game.can(d)


def test_default_lead_is_the_smallest_single_and_following_is_pass():
    game = start(PLAY_DEAL)
    run(game, "E 3D 3C")
    for seat in "NWS":
        d = game.default_action(seat)
        assert d == Action.pass_(seat) and d.auto
        game.apply(d)
    assert game.default_action("E") == Action.play("E", "3H")  # E's smallest card now
    game.apply(game.default_action("E"))
    assert game.default_action("N") == Action.pass_("N")


def test_default_lead_under_report_duty_is_the_highest_single():
    game = duty_game()
    run(game, "S 2S", "E pass", "N pass", "W pass")
    d = game.default_action("S")
    assert d == Action.play("S", "2H") and d.auto


def test_default_follow_under_duty_without_pass_is_the_lowest_play():
    # E leads a five-card hand down to one card; S (E's 上家) may not pass and must play:
    # the clock plays S's lowest legal five-card hand, the straight TJQKA, not a flush.
    deal = make_deal(fill="NW", E="3D 4D 5D 6D 7D 8C 8H 9C TC JH QH KS 4C",
                     S="TD JD QD KD AS 2S 3S 5S 6S 8S 7C 7H 7S")
    game = start(deal, Rules(report_may_pass=False))
    run(game, "E 3D 4D 5D 6D 7D", "N pass", "W pass", "S pass", "E 8C 8H", "N pass", "W pass", "S pass")
    events = run(game, "E 9C TC JH QH KS", "N pass", "W pass")
    assert {"type": "report", "seat": "E"} in events
    legal = game.legal_actions("S")
    assert Action.pass_("S") not in legal
    kinds = {classify(a.cards, game.rules)[0] for a in legal}
    assert kinds == {"straight", "flush"}
    d = game.default_action("S")
    assert d == Action.play("S", "TD JD QD KD AS") and d.auto
    assert d == legal[0], "legal actions are listed lowest first"
    # With the seed's default (passing allowed) the clock passes instead.
    game2 = start(deal)
    run(game2, "E 3D 4D 5D 6D 7D", "N pass", "W pass", "S pass", "E 8C 8H", "N pass", "W pass", "S pass",
        "E 9C TC JH QH KS", "N pass", "W pass")
    assert game2.default_action("S") == Action.pass_("S")
    assert game2.can(Action.play("S", "3S 5S 6S 7S 8S"))  # any five-card hand may follow under the duty


def test_auto_moves_are_counted_per_seat():
    game = BigTwo(make_deal(fill="NWSE", E="3D 4D 5D 6D 7D 8D 9D TD JD QD KC KH KS"))
    for seat in "ENWS":
        game.apply(game.default_action(seat) if seat in "NS" else Action.show(seat, False))
    for seat in "ENWS":
        game.apply(game.default_action(seat) if seat == "S" else Action.double(seat, False))
    game.apply(Action.play("E", "3D 4D 5D 6D 7D"))
    for seat in "NWS":
        game.apply(game.default_action(seat))
    game.apply(Action.play("E", "8D 9D TD JD QD"))
    game.apply(Action.pass_("N"))
    game.apply(game.default_action("W"))
    game.apply(Action.pass_("S"))
    game.apply(Action.play("E", "KC KH KS"))
    assert game.result().auto_moves == {"E": 0, "N": 2, "W": 2, "S": 3}


def test_time_limits_by_phase_follow_the_rules():
    for rules, expect in ((None, (15, 15, 25)), (Rules(show_seconds=20, double_seconds=12, turn_seconds=40), (20, 12, 40))):
        game = BigTwo(make_deal(fill="NWSE", E="3D 4D 5D 6D 7D 8D 9D TD JD QD KC KH KS"), rules)
        assert game.time_limit() == game.view(None)["time_limit"] == expect[0]
        for seat in SEATS:
            game.apply(Action.show(seat, False))
        assert game.time_limit() == game.view("N")["time_limit"] == expect[1]
        for seat in SEATS:
            game.apply(Action.double(seat, False))
        assert game.time_limit() == expect[2]
        run(game, "E 3D 4D 5D 6D 7D")
        assert game.time_limit("N") == expect[2]
        run(game, "N pass", "W pass", "S pass", "E 8D 9D TD JD QD", "N pass", "W pass", "S pass", "E KC KH KS")
        assert game.time_limit() == 0


# ---- scoring --------------------------------------------------------------------------------

# The seed's worked example played through the engine.  Roles: A = N, B = W, C = E (goes
# out), D = S.  N and S double; nobody shows; E plays ♠2 so nobody left holds it.
EXAMPLE_DEAL = make_deal(
    E="3D 3C 3H KD KC KH 4C 4H 4D 2S 9D 9C 9H",
    N="5D 5C 5H 6C 7C 8D 9S TH",
    W="3S 5S 7S JS QS",
    S="6S",
)
EXAMPLE_PLAY = [
    "E 3D 3C 3H", "N 5D 5C 5H", "W pass", "S pass", "E pass",  # N (A) wins the triples
    "N 6C 7C 8D 9S TH", "W 3S 5S 7S JS QS", "S pass",  # straight, flush over it
    "E KD KC KH 4C 4H", "N pass", "W pass", "S pass",  # full house over the flush
    "E 4D", "N pass", "W pass", "S 6S", "E 2S", "N pass", "W pass", "S pass",
    "E 9D 9C 9H",  # E (C) goes out
]


def play_example(rules=None):
    game = start(EXAMPLE_DEAL, rules, doubles="NS")
    run(game, *EXAMPLE_PLAY)
    return game


def test_seed_worked_example_through_the_engine():
    game = play_example()
    assert game.phase == "over"
    r = game.result()
    assert r.winner == "E"
    assert r.cards_left == {"N": 5, "W": 8, "E": 0, "S": 12}  # A 5, B 8, C 0, D 12
    assert all("2S" not in h for h in r.hands_left.values())
    assert r.doubled == {"E": False, "N": True, "W": False, "S": True}
    assert r.shown == {s: False for s in SEATS}
    assert r.points == {"N": 5, "W": 16, "E": 0, "S": 36}
    assert r.scores == {"N": 136, "W": 2, "E": 98, "S": -236}  # A 136, B 2, C 98, D −236
    assert r.places == {"N": 1, "E": 2, "W": 3, "S": 4}
    assert sum(r.scores.values()) == 0
    assert game.view(None)["result"] == r.to_dict()


# Quick deal: E goes out in three plays, everyone else keeps 13 cards (points 4n = 52, or
# 104 for the ♠2 holder).  Fill order puts ♠2 in W's hand.
QUICK_DEAL = make_deal(fill="NSW", E="3D 4D 5D 6D 7D 8D 9D TD JD QD KC KH KS")
QUICK_PLAY = ["E 3D 4D 5D 6D 7D", "N pass", "W pass", "S pass",
              "E 8D 9D TD JD QD", "N pass", "W pass", "S pass", "E KC KH KS"]

SCORING = [
    # (rules, shows, doubles, points E N W S, scores E N W S, places E N W S)
    ({}, "", "", (0, 52, 104, 52), (208, 0, -208, 0), (1, 2, 4, 2)),  # ♠2 doubles W's points
    ({"spade_two_doubles": False}, "", "", (0, 52, 52, 52), (156, -52, -52, -52), (1, 2, 2, 2)),
    ({}, "N", "", (0, 52, 104, 52), (312, 0, -312, 0), (1, 2, 4, 2)),  # N shows: ×3 on N's pairs
    ({}, "E", "EW", (0, 52, 104, 52), (1872, -208, -1456, -208), (1, 2, 4, 2)),  # E ×3×2, W ×2
    ({}, "NWS", "", (0, 52, 104, 52), (624, 312, -1248, 312), (1, 2, 4, 2)),
]


@pytest.mark.parametrize("options, shows, doubles, points, scores, places", SCORING)
def test_scores_with_spade_two_show_and_double(options, shows, doubles, points, scores, places):
    assert "2S" in codes(QUICK_DEAL.hands["W"])
    game = start(QUICK_DEAL, Rules(**options), shows=shows, doubles=doubles)
    run(game, *QUICK_PLAY)
    r = game.result()
    assert r.winner == "E"
    assert r.points == dict(zip("ENWS", points))
    assert r.scores == dict(zip("ENWS", scores))
    assert r.places == dict(zip("ENWS", places))
    assert sum(r.scores.values()) == 0
    assert r.shown == {s: s in shows for s in SEATS} and r.doubled == {s: s in doubles for s in SEATS}


def test_think_ms_sums_per_seat():
    game = BigTwo(QUICK_DEAL)
    times = {"E": 0, "N": 0, "W": 0, "S": 0}
    for k, text in enumerate(["E show-", "N show-", "W show-", "S show-",
                              "E double-", "N double-", "W double-", "S double-"] + QUICK_PLAY):
        action = act(text)
        if k % 3 != 2:  # some actions carry no measured time
            ms = 137 * (k + 1)
            action = action.with_meta(think_ms=ms)
            times[action.seat] += ms
        game.apply(action)
    assert game.result().think_ms == times
    assert game.result().auto_moves == {s: 0 for s in SEATS}
    replay = BigTwo.from_record(json.loads(json.dumps(game.record())))
    assert replay.result().think_ms == times


# ---- replay -----------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", [None, Rules(report_may_pass=False, straights="no_two", turn_seconds=30)])
@pytest.mark.parametrize("stop", [0, 6, 20, len(EXAMPLE_PLAY)])
def test_record_replays_to_the_same_state_and_result(rules, stop):
    game = start(EXAMPLE_DEAL, rules, doubles="NS", shows="W")
    game.apply(act(EXAMPLE_PLAY[0]).with_meta(think_ms=900))
    run(game, *EXAMPLE_PLAY[1:stop])
    record = json.loads(json.dumps(game.record()))
    replay = BigTwo.from_record(record)
    assert replay.snapshot() == game.snapshot()
    assert replay.rules == game.rules and replay.deal == game.deal
    assert [replay.view(s) for s in SEATS + (None,)] == [game.view(s) for s in SEATS + (None,)]
    if game.phase == "over":
        assert replay.result().to_dict() == game.result().to_dict()


TAMPERING = [
    # (action index, replacement, code)
    # actions 0-3 show, 4-7 double (E N W S), 8 "E 3D 3C 3H", 9 "N 5D 5C 5H", 10 "W pass", ...
    (7, {"type": "play", "seat": "E", "cards": ["3D"]}, "wrong_phase"),  # S has not doubled yet
    (3, {"type": "show", "seat": "E", "yes": False}, "already_decided"),
    (5, {"type": "double", "seat": "W", "yes": True}, "not_your_turn"),
    (8, {"type": "play", "seat": "E", "cards": ["3C", "3H"]}, "must_contain_d3"),
    (10, {"type": "play", "seat": "W", "cards": ["5D"]}, "not_in_hand"),  # N holds ♦5
    (10, {"type": "pass", "seat": "S"}, "not_your_turn"),
    (13, {"type": "pass", "seat": "N"}, "leader_cannot_pass"),
    (14, {"type": "play", "seat": "W", "cards": ["5S"]}, "wrong_kind"),
    (14, {"type": "play", "seat": "W", "cards": ["3S", "5S", "7S", "JS", "KS"]}, "not_in_hand"),
]


@pytest.mark.parametrize("index, replacement, code", TAMPERING)
def test_tampered_record_names_the_illegal_action(index, replacement, code):
    record = json.loads(json.dumps(play_example().record()))
    record["actions"][index] = replacement
    with pytest.raises(IllegalActionError) as info:
        BigTwo.from_record(record)
    assert info.value.code == code
    assert str(info.value).startswith("action %d: " % index)
    assert "第 %d 个操作" % index in info.value.zh


def test_record_with_a_malformed_action_names_it():
    record = play_example().record()
    record["actions"][13]["cards"] = ["1Z"]
    with pytest.raises(IllegalActionError) as info:
        BigTwo.from_record(record)
    assert info.value.code == "invalid_card"
    assert str(info.value).startswith("action 13: ") and "1Z" in str(info.value)


def test_record_of_another_game_is_refused():
    record = play_example().record()
    with pytest.raises(ValueError):
        BigTwo.from_record(dict(record, game="guandan"))


# ---- privacy -------------------------------------------------------------------------------

@pytest.mark.parametrize("shows", ["", "W", "ES"])
def test_views_hold_only_own_and_shown_hands(shows):
    game = BigTwo(EXAMPLE_DEAL)

    def check():
        shown = game.view(None)["shown"]
        for viewer in SEATS + (None,):
            v = game.view(viewer)
            seen = card_codes_in(v)
            if viewer is not None:
                assert v["hand"] == hand_of(game, viewer)
            for other in SEATS:
                if other == viewer or (other in shown and game.phase != "show"):
                    continue
                if game.phase == "over":
                    continue  # the result lists every hand left once the deal is over
                assert not seen & set(hand_of(game, other)), "%s sees %s's hidden cards" % (viewer, other)

    texts = ["%s show%s" % (s, "+" if s in shows else "-") for s in SEATS]
    texts += ["%s double%s" % (s, "+" if s in "NS" else "-") for s in "ENWS"] + EXAMPLE_PLAY
    check()
    for text in texts:
        events = game.apply(act(text))
        check()
        # Events are public: they never name a card still hidden in a hand.
        for e in events:
            if e["type"] in ("shown", "deal_end"):
                continue
            for other in SEATS:
                assert not card_codes_in(e) & set(hand_of(game, other)) - set(game.view(None)["shown"].get(other, []))
    assert game.phase == "over"
    assert set(game.view(None)["result"]["hands_left"]) == set(SEATS)


# ---- bad input ------------------------------------------------------------------------------

BAD_ACTIONS = [
    # (wire data, code, text the message must mention)
    ({"type": "pass", "seat": "E", "foo": 1}, "bad_action", "foo"),
    ({"type": "pass", "seat": "E", "Cards": ["3D"]}, "bad_action", "Cards"),
    ({"type": "pass", "seat": "X"}, "unknown_seat", "X"),
    ({"type": "pass", "seat": 5}, "unknown_seat", "5"),
    ({"type": "pass", "seat": "e"}, "unknown_seat", "e"),
    ({"type": "pass"}, "unknown_seat", "seats are"),
    ({"type": "bid", "seat": "E"}, "bad_action", "bid"),
    ({"seat": "E"}, "bad_action", "use show, double, play or pass"),
    ({"type": "play", "seat": "E", "cards": ["1Z"]}, "invalid_card", "1Z"),
    ({"type": "play", "seat": "E", "cards": "3D 1Z"}, "invalid_card", "1Z"),
    ({"type": "play", "seat": "E", "cards": ["3D", "3D"]}, "duplicate_card", "3D appears twice"),
    ({"type": "play", "seat": "E", "cards": "3d 3D"}, "duplicate_card", "3D appears twice"),
    ({"type": "play", "seat": "E", "cards": ["RJ"]}, "invalid_card", "RJ"),
    ({"type": "play", "seat": "E", "cards": ["BJ", "3D"]}, "invalid_card", "BJ"),
    ({"type": "play", "seat": "E", "cards": ["x3"]}, "invalid_card", "x3"),
    ({"type": "play", "seat": "E", "cards": ["SA"]}, "invalid_card", "rank first"),
    ({"type": "play", "seat": "E", "cards": ["D3"]}, "invalid_card", "write the rank first"),
    ({"type": "play", "seat": "E", "cards": 5}, "invalid_card", "list"),
    ({"type": "play", "seat": "E", "cards": {"3D": 1}}, "invalid_card", "list"),
    ({"type": "play", "seat": "E", "cards": [None]}, "invalid_card", "None"),
    ({"type": "play", "seat": "E", "cards": [52]}, "invalid_card", "52"),
    ({"type": "play", "seat": "E", "cards": [-1]}, "invalid_card", "-1"),
    ({"type": "play", "seat": "E", "cards": [0, 0]}, "duplicate_card", "3D"),
    ({"type": "play", "seat": "E", "cards": []}, "no_cards", "pass"),
    ({"type": "play", "seat": "E"}, "no_cards", "pass"),
    ({"type": "play", "seat": "E", "cards": ""}, "no_cards", "pass"),
    ({"type": "show", "seat": "E"}, "bad_action", "yes"),
    ({"type": "show", "seat": "E", "yes": "yes"}, "bad_action", "yes"),
    ({"type": "double", "seat": "E", "yes": 1}, "bad_action", "yes"),
    ({"type": "pass", "seat": "E", "auto": "yes"}, "bad_action", "auto"),
    ({"type": "pass", "seat": "E", "think_ms": "5"}, "bad_action", "think_ms"),
    ({"type": "pass", "seat": "E", "think_ms": -1}, "bad_action", "think_ms"),
    ({"type": "pass", "seat": "E", "think_ms": 1.5}, "bad_action", "think_ms"),
    ({"type": "pass", "seat": "E", "think_ms": True}, "bad_action", "think_ms"),
    ("pass", "bad_action", "object"),
    (None, "bad_action", "object"),
    (["pass", "E"], "bad_action", "object"),
]


@pytest.mark.parametrize("data, code, mention", BAD_ACTIONS, ids=[repr(b[0]) for b in BAD_ACTIONS])
def test_malformed_actions_are_refused_with_a_clear_message(data, code, mention):
    with pytest.raises(IllegalActionError) as info:
        Action.from_dict(data)
    err = info.value
    assert err.code == code
    assert mention in err.en, err.en
    assert err.zh and isinstance(err.zh, str)


def test_good_wire_actions_round_trip():
    for a in (Action.show("E", True), Action.double("S", False), Action.play("N", "3S 3D"),
              Action.pass_("W").with_meta(auto=True, think_ms=4200), Action.play("E", "10D").with_meta(think_ms=0)):
        back = Action.from_dict(json.loads(json.dumps(a.to_dict())))
        assert back == a and back.auto == a.auto and back.think_ms == a.think_ms
    assert Action.from_dict({"type": "play", "seat": "E", "cards": ["td", "10h"]}) == Action.play("E", "TD TH")
    assert Action.play("E", [51, 0]) == Action.play("E", "3D 2S")


def test_verify_refuses_what_is_not_an_action():
    game = BigTwo(SHOW_DEAL)
    for junk in ({"type": "pass", "seat": "E"}, "E pass", None):
        with pytest.raises(IllegalActionError) as info:
            game.verify(junk)
        assert info.value.code == "bad_action"
        assert not game.can(junk)


def test_unknown_seat_is_refused_by_the_game_too():
    game = BigTwo(SHOW_DEAL)
    for call in (game.legal_actions, game.default_action, game.view):
        with pytest.raises(IllegalActionError) as info:
            call("X")
        assert info.value.code == "unknown_seat"


def _full():
    return {s: codes(SHOW_DEAL.hands[s]) for s in SEATS}


def _bad_deals():
    short = _full()
    short["E"] = short["E"][:12]
    dup = _full()
    dup["N"] = dup["N"][:12] + [dup["E"][0]]
    dup_in_seat = _full()
    dup_in_seat["W"] = dup_in_seat["W"][:12] + [dup_in_seat["W"][0]]
    joker = _full()
    joker["S"] = joker["S"][:12] + ["RJ"]
    missing = _full()
    del missing["S"]
    extra = _full()
    extra["X"] = []
    many = _full()
    many["E"] = many["E"] + ["2S"]
    return [short, dup, dup_in_seat, joker, missing, extra, many, "3D 4D", None]


@pytest.mark.parametrize("data", _bad_deals(), ids=["12 cards", "dealt twice", "twice in a hand", "joker",
                                                     "missing seat", "extra seat", "14 cards", "text", "None"])
def test_bad_deals_are_refused(data):
    with pytest.raises(ValueError):
        Deal.from_dict(data)


@pytest.mark.parametrize("order", [list(range(51)), list(range(51)) + [0], list(range(1, 53)), list(range(53))])
def test_bad_permutations_are_refused(order):
    with pytest.raises(ValueError):
        Deal.from_permutation(order)


def test_a_deal_is_data():
    assert Deal.from_dict(SHOW_DEAL.to_dict()) == SHOW_DEAL
    assert Deal.from_permutation(range(52)).hands["E"] == tuple(range(13))
    with pytest.raises(TypeError):
        BigTwo(SHOW_DEAL.to_dict())
