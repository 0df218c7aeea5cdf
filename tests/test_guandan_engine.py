"""The Guandan engine (paizhuo.rules.guandan): tribute, 抗贡, the return, 接风, levels and the A
rule, clocks and their defaults, and a whole match played to its end."""

import json
import random

import pytest

from paizhuo.rules.guandan import (Action, Deal, GuandanDeal, IllegalActionError, Match, Rules, fill,
                                   next_levels)

PREV_DOUBLE_DOWN = ["E", "W", "N", "S"]  # E 上游, W 二游: N and S are 双下


def game(hands, previous=None, levels=None, playing=None, rules=None):
    return GuandanDeal(Deal.from_dict(fill(hands)), rules, levels, playing, previous)


def play_out(g, script):
    """Apply (seat, cards) plays; None cards is a pass."""
    for seat, cards in script:
        g.apply(Action.pass_(seat) if cards is None else Action.play(seat, cards))


# ---- tribute -------------------------------------------------------------------------------

def test_double_tribute_of_equal_cards_goes_clockwise_and_the_payer_of_the_top_leads():
    g = game({"N": "BJ", "S": "BJ", "E": "RJ", "W": "RJ"}, previous=PREV_DOUBLE_DOWN)
    assert g.phase == "tribute" and g.to_act() == ("N", "S")
    assert [a.cards for a in g.legal_actions("N")] == [(52,)]
    g.apply(Action.tribute("N", "BJ"))
    events = g.apply(Action.tribute("S", "BJ"))
    gives = {t["from"]: t["to"] for t in events[-2]["tributes"]}
    assert gives == {"N": "E", "S": "W"}  # each to the opponent on the clockwise side (上家)
    assert g.phase == "return" and set(g.to_act()) == {"E", "W"}
    g.apply(g.default_action("E"))
    g.apply(g.default_action("W"))
    assert g.phase == "play" and g.to_act() == ("N",)  # N paid the 上游


def test_equal_tribute_counter_clockwise_option():
    g = game({"N": "BJ", "S": "BJ", "E": "RJ", "W": "RJ"}, previous=PREV_DOUBLE_DOWN,
             rules=Rules(equal_tribute="counter_clockwise"))
    g.apply(Action.tribute("N", "BJ"))
    events = g.apply(Action.tribute("S", "BJ"))
    assert {t["from"]: t["to"] for t in events[-2]["tributes"]} == {"N": "W", "S": "E"}
    assert g.leader == 3  # S paid the 上游


def test_double_tribute_higher_card_to_the_top_lower_to_the_partner():
    g = game({"N": "BJ", "S": "RJ", "E": "RJ BJ"}, previous=PREV_DOUBLE_DOWN)
    g.apply(Action.tribute("S", "RJ"))
    assert g.view("E")["tribute"]["tributes"] is None  # no card shown before both have paid
    g.apply(Action.tribute("N", "BJ"))
    assert {t["from"]: t["to"] for t in g.view()["tribute"]["tributes"]} == {"S": "E", "N": "W"}
    assert g.leader == 3


def test_anti_tribute_with_the_big_jokers_split_between_two_payers():
    g = game({"N": "RJ", "S": "RJ"}, previous=PREV_DOUBLE_DOWN)
    assert g.anti_tribute and g.phase == "play" and g.to_act() == ("E",)  # the 上游 leads
    assert g.view("N")["tribute"]["anti_tribute"] is True


def test_single_payer_with_one_big_joker_pays_it():
    g = game({"S": "RJ", "E": "RJ"}, previous=["E", "N", "W", "S"])
    assert not g.anti_tribute and g.to_act() == ("S",)
    with pytest.raises(IllegalActionError) as e:
        g.verify(Action.tribute("S", g.view("S")["hand"][0]))
    assert e.value.code == "tribute_not_highest" and "大王" in e.value.en and e.value.zh != e.value.en
    g.apply(Action.tribute("S", "RJ"))
    assert g.to_act() == ("E",) and g.hands[0].count(53) == 2


def test_tribute_skips_the_heart_level_card():
    # level 2: S holds both ♥2 (wild) and no joker or other 2: the highest eligible is its A
    hands = {"S": "2H 2H AS AD", "E": "2D 2D 2C 2C 2S 2S BJ BJ RJ RJ AD AC AC AH AH AS"}
    g = game(hands, previous=["E", "N", "W", "S"])
    assert [a.to_dict()["cards"] for a in g.legal_actions("S")] == [["AD"], ["AS"]]
    assert not g.can(Action.tribute("S", "2H"))
    assert g.default_action("S").auto


def test_return_is_ten_or_lower_and_the_lowest_when_none():
    g = game({"S": "RJ", "E": "RJ JD"}, previous=["E", "N", "W", "S"])
    g.apply(Action.tribute("S", "RJ"))
    ok = {a.to_dict()["cards"][0][0] for a in g.legal_actions("E")}
    assert ok <= set("23456789T") and ok
    jack = next(c for c in g.view("E")["hand"] if c[0] in "JQKA")
    with pytest.raises(IllegalActionError) as e:
        g.verify(Action.return_("E", jack))
    assert e.value.code == "return_too_high" and "10" in e.value.zh
    assert g.time_limit() == 40
    g.apply(g.default_action("E"))
    assert g.phase == "play" and g.to_act() == ("S",) and g.time_limit() == 40


def test_return_without_low_cards_is_the_lowest():
    high = "JD JD JC JC JH JH JS JS QD QD QC QC QH QH QS QS KD KD KC KC KH KH KS KS AD AD AC"
    g = game({"E": high, "N": "RJ", "S": "RJ"}, previous=["E", "N", "W", "S"])
    g.apply(Action.tribute("S", "RJ"))
    assert [a.to_dict()["cards"] for a in g.legal_actions("E")] == [["JD"], ["JC"], ["JH"], ["JS"]]
    assert g.default_action("E").to_dict()["cards"] == ["JD"]


def test_return_card_is_seen_only_by_the_two_seats():
    g = game({"S": "RJ", "E": "RJ"}, previous=["E", "N", "W", "S"])
    g.apply(Action.tribute("S", "RJ"))
    events = g.apply(Action.return_("E", g.legal_actions("E")[0].cards[0]))
    assert "card" not in events[0]
    assert "my_return" in g.view("E")["tribute"] and "my_return" in g.view("S")["tribute"]
    assert "my_return" not in g.view("N")["tribute"] and "my_return" not in g.view("W")["tribute"]


# ---- play ---------------------------------------------------------------------------------

E_FAST = "3D 3D 3C 3C 3H 3H 3S 3S 4D 4D 4C 4C 4H 4H 4S 4S 5D 5D 5C 5C 5H 5H 5S 5S 6D 6D 6C"
W_FAST = "7D 7D 7C 7C 7H 7H 7S 7S 8D 8D 8C 8C 8H 8H 8S 8S 9D 9D 9C 9C 9H 9H 9S 9S TD TD TC"


E_GROUPS = ["3D 3D 3C 3C 3H 3H 3S 3S", "4D 4D 4C 4C 4H 4H 4S 4S", "5D 5D 5C 5C 5H 5H 5S 5S", "6D 6D 6C"]
W_GROUPS = ["7D 7D 7C 7C 7H 7H 7S 7S", "8D 8D 8C 8C 8H 8H 8S 8S", "9D 9D 9C 9C 9H 9H 9S 9S", "TD TD TC"]


def go_out(g, seat, groups):
    """``seat`` plays ``groups`` in turn (bombs first, so each beats what it meets); the
    others lead their smallest single or pass."""
    groups = list(groups)
    while groups and g.phase == "play":
        s = g.to_act()[0]
        if s == seat:
            g.apply(Action.play(seat, groups.pop(0)))
        elif g.to_beat is None:
            g.apply(g.default_action(s))
        else:
            g.apply(Action.pass_(s))


def run_fast(g):
    """E goes out in four plays, then W (接风) in four."""
    go_out(g, "E", E_GROUPS)
    go_out(g, "W", W_GROUPS)


def test_jiefeng_partner_leads_after_the_last_player_goes_out():
    g = game({"E": E_FAST, "W": W_FAST})
    for cards in ("3D 3D 3C 3C 3H 3H 3S 3S", "4D 4D 4C 4C 4H 4H 4S 4S", "5D 5D 5C 5C 5H 5H 5S 5S"):
        g.apply(Action.play("E", cards))
        play_out(g, [("N", None), ("W", None), ("S", None)])
        assert g.to_act() == ("E",)
    ev = g.apply(Action.play("E", "6D 6D 6C"))
    assert {"type": "out", "seat": "E", "place": 1} in ev
    assert {"type": "report", "seat": "E", "left": 0} in ev
    play_out(g, [("N", None), ("W", None)])
    ev = g.apply(Action.pass_("S"))
    assert {"type": "round_end", "leader": "W", "jiefeng": True} in ev
    assert g.to_act() == ("W",) and g.view("N")["places"] == ["E"]


def test_deal_ends_when_both_of_a_side_are_out_and_levels_move_by_three():
    g = game({"E": E_FAST, "W": W_FAST})
    run_fast(g)
    assert g.phase == "over"
    r = g.result()
    assert r["places"][:2] == ["E", "W"] and sorted(r["places"][2:]) == ["N", "S"]
    assert r["level_change"] == 3 and r["levels_after"] == {"EW": "5", "NS": "2"}


def test_report_counts_at_ten_cards_or_fewer():
    g = game({"E": E_FAST})
    g.apply(Action.play("E", "3D 3D 3C 3C 3H 3H 3S 3S"))
    assert g.view("N")["reports"] == {}
    play_out(g, [("N", None), ("W", None), ("S", None)])
    ev = g.apply(Action.play("E", "4D 4D 4C 4C 4H 4H 4S 4S"))
    assert {"type": "report", "seat": "E", "left": 11} not in ev
    play_out(g, [("N", None), ("W", None), ("S", None)])
    ev = g.apply(Action.play("E", "5D 5D 5C"))
    assert {"type": "report", "seat": "E", "left": 8} in ev
    assert g.view("S")["reports"] == {"E": 8}


def test_ambiguous_wild_play_needs_a_meaning_and_lists_them():
    g = game({"E": "3H 4H 5H 6H 7H"}, levels={"EW": 5, "NS": 5})
    with pytest.raises(IllegalActionError) as e:
        g.verify(Action.play("E", "3H 4H 5H 6H 7H"))
    assert e.value.code == "ambiguous"
    assert "straight:7" in e.value.en and "straight_flush:7" in e.value.en and "同花顺" in e.value.zh
    with pytest.raises(IllegalActionError) as e:
        g.verify(Action.play("E", "3H 4H 5H 6H 7H", meaning="bomb:7"))
    assert e.value.code == "bad_meaning"
    ev = g.apply(Action.play("E", "3H 4H 5H 6H 7H", meaning="straight:7"))
    assert ev[0]["meaning"] == "straight:7" and ev[0]["stands"] == ["5S"]
    assert g.record()["actions"][0]["meaning"] == "straight:7"
    # N may follow with a higher straight; a pair does not beat it
    assert not g.can(Action.play("N", g.view("N")["hand"][:1]))


def test_first_lead_clock_and_defaults():
    g = game({})
    assert g.time_limit() == 40
    lead = g.default_action("E")
    assert lead.auto and len(lead.cards) == 1 and lead.to_dict()["cards"] == ["3D"]  # 2s are level cards
    g.apply(lead)
    assert g.time_limit() == 20 and g.default_action("N").type == "pass"
    assert Rules(first_lead_seconds=60).first_lead_seconds == 60


def test_bad_input_is_refused_in_both_languages():
    g = game({})
    for bad in ({"type": "fly", "seat": "E"}, {"type": "play", "seat": "X", "cards": ["3D"]},
                {"type": "play", "seat": "E", "cards": ["ZZ"]}, {"type": "tribute", "seat": "E", "cards": ["3D", "4D"]},
                {"type": "pass", "seat": "E", "extra": 1}, "pass"):
        with pytest.raises(IllegalActionError) as e:
            g.apply(Action.from_dict(bad))
        assert e.value.code and e.value.zh
    for bad in (Action.pass_("E"), Action.play("N", "3D"), Action.tribute("E", "3D"), Action.play("E", "RJ")):
        with pytest.raises(IllegalActionError):
            g.apply(bad)
    assert g.actions == []


# ---- levels and the match -------------------------------------------------------------------

@pytest.mark.parametrize("places, change", [
    (["E", "W", "N", "S"], 3), (["E", "N", "W", "S"], 2), (["E", "N", "S", "W"], 1),
    (["N", "S", "E", "W"], 3), (["S", "E", "N", "W"], 2), (["N", "W", "E", "S"], 1)])
def test_level_change_table(places, change):
    new, step, passed = next_levels({"EW": 4, "NS": 4}, "EW", places)
    winner = "EW" if places[0] in "EW" else "NS"
    assert step == change and new[winner] == 4 + change and not passed
    assert new["NS" if winner == "EW" else "EW"] == 4


def test_levels_stop_at_a():
    assert next_levels({"EW": 12, "NS": 2}, "EW", ["E", "W", "N", "S"])[0]["EW"] == 14


@pytest.mark.parametrize("places, passed, level", [
    (["E", "W", "N", "S"], True, 15), (["E", "N", "W", "S"], True, 15), (["E", "N", "S", "W"], False, 14),
    (["N", "E", "W", "S"], False, 14)])
def test_a_rule(places, passed, level):
    new, _, did = next_levels({"EW": 14, "NS": 9}, "EW", places)
    assert did is passed and new["EW"] == level


def test_match_is_won_by_passing_a_and_scored():
    m = Match(levels={"EW": 14, "NS": 7}, playing="EW")  # a match resumed at A
    g = m.start(Deal.from_dict(fill({"E": E_FAST, "W": W_FAST})))
    assert g.view("E")["level"] == "A"
    run_fast(g)
    m.finish(g)
    r = m.result()
    assert m.over and r["winner"] == "EW" and r["levels"] == {"EW": "A+", "NS": "7"}
    assert r["diff"] == 8 and r["jichafen"] == {"EW": 21, "NS": 5} and r["changfen"] == {"EW": 2, "NS": 0}
    assert Match.from_record(json.loads(json.dumps(m.record()))).result() == r


def test_a_attempts_house_rule_sends_a_side_back_to_2():
    rnd = random.Random(1)
    m = Match(Rules(a_attempts=1), levels={"EW": 14, "NS": 7}, playing="NS")
    g = m.start(Deal.from_dict(fill({"E": E_FAST})))
    go_out(g, "E", E_GROUPS)
    run_deal_randomly(g, rnd)
    m.finish(g)
    # E 上游 in a deal played at NS's level: EW stays at A (no attempt used) and now plays it
    assert m.levels["EW"] == 14 and m.playing == "EW" and not m.over and m.failures["EW"] == 0
    m.previous = None  # no tribute, to keep the hand-made layout
    g = m.start(Deal.from_dict(fill({"N": E_FAST})))
    go_out(g, "N", E_GROUPS)
    run_deal_randomly(g, rnd)
    m.finish(g)
    assert m.levels["EW"] == 2 and m.playing == "NS"  # one failed attempt at A: back to 2


def run_deal_randomly(g, rnd, first=None):
    if first:
        first(g)
    while g.phase != "over":
        seat = rnd.choice(g.to_act())
        g.apply(rnd.choice(g.legal_actions(seat)))


def test_max_deals_and_the_tiebreak_deal():
    rnd = random.Random(5)
    m = Match(Rules(max_deals=1, tiebreak_deal=True))
    g = m.start(Deal.from_permutation(rnd.sample(range(108), 108)))
    run_deal_randomly(g, rnd)
    m.finish(g)
    assert m.over and m.winner == g.result()["winner"] and m.result()["deals"] == 1
    m = Match(Rules(tiebreak_deal=True))
    m.time_up()  # before any deal: levels equal, so one deal decides
    assert not m.over and m.tiebreak
    g = m.start(Deal.from_permutation(rnd.sample(range(108), 108)))
    run_deal_randomly(g, rnd)
    m.finish(g)
    assert m.over and m.winner == g.result()["winner"] and m.result()["tiebreak"]
    m = Match()
    m.time_up()
    assert m.over and m.result()["winner"] is None and m.result()["changfen"] == {"EW": 1, "NS": 1}


def test_whole_match_played_by_random_legal_actions():
    rnd = random.Random(2026)
    m = Match()
    while not m.over:
        g = m.start(Deal.from_permutation(rnd.sample(range(108), 108), board=len(m.deals) + 1))
        while g.phase != "over":
            seat = rnd.choice(g.to_act())
            legal = g.legal_actions(seat)
            g.apply(rnd.choice(legal) if rnd.random() < 0.8 else g.default_action(seat))
        m.finish(g)
        assert len(m.deals) < 400
    r = m.result()
    assert "A+" in r["levels"].values() and r["changfen"][r["winner"]] == 2
    assert r["jichafen"][r["winner"]] == 13 + min(13, r["diff"])
    replay = Match.from_record(json.loads(json.dumps(m.record())))
    assert replay.result() == r
