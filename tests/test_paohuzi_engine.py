"""The Paohuzi engine (paizhuo.rules.paohuzi): hand-made deals for every claim conflict (two seats
wanting one card, 胡 over 碰, a compulsory 跑 over an optional 吃, 吃 by the turner before their
下家, 胡 by the turner first), 比牌 refusals, 臭牌 and 臭偎, 提 at the deal, 重跑 without a
discard, the winning card that makes three of a kind with a pair in hand, 荒庄, scores, the
privacy of views and events, rules and deals from outside, records."""

import random

import pytest

from paizhuo.rules import common
from paizhuo.rules.paohuzi import Action, Deal, IllegalActionError, Paohuzi, Rules, fill

# A hand of 6 groups and a pair of 十 (x10 x10): 一二三 (3) and 壹贰叁 (6) make 9 胡息; the
# pair waits for 拾 (a 绞) or a third 十.
READY = "x1 x2 x3 d1 d2 d3 x4 x5 x6 x7 x8 x9 d4 d5 d6 d7 d8 d9 x10 x10"


def new(partial, stock="", shown=None, **options):
    return Paohuzi(Deal.from_dict(fill(partial, stock, shown)), Rules(**options))


def refused(g, action, code):
    with pytest.raises(IllegalActionError) as e:
        g.verify(action)
    assert e.value.code == code, (e.value.code, e.value.en)
    assert e.value.zh and e.value.zh != e.value.en
    return e.value


def pass_all(g, but=()):
    """Every asked seat not in ``but`` passes; the events of the last pass."""
    ev = []
    for s in g.to_act():
        if s not in but:
            ev = g.apply(Action.pass_(s))
    return ev


def types(events):
    return [e["type"] for e in events]


def to_stock_turn(g, discard):
    """E discards ``discard``, everybody asked passes: N turns up the top stock card."""
    ev = g.apply(Action.discard("E", discard))
    return ev + (pass_all(g) if g.phase == "claim" else [])


# ---- claim conflicts -------------------------------------------------------------------------

def test_two_seats_wanting_one_card_are_asked_at_once_and_peng_beats_chi():
    g = new({"E": "x5", "N": "x4 x6", "W": "x5 x5"}, stock="d9 x5")
    ev = g.apply(Action.discard("E", "x5"))
    assert types(ev) == ["discard", "claim"] and ev[-1] == {"type": "claim", "card": "x5", "by": "E",
                                                            "from": "discard"}
    assert g.phase == "claim" and g.to_act() == ("N", "W") and g.time_limit("N") == 10
    assert g.view("W")["may"] == {"hu": False, "peng": True, "chi": []}
    assert [["x4", "x5", "x6"]] in g.view("N")["may"]["chi"] and not g.view("N")["may"]["peng"]
    # nobody learns who else is asked: each asked seat sees itself, the others nothing
    assert g.view("N")["to_act"] == ["N"] and g.view("W")["to_act"] == ["W"]
    assert g.view("E")["to_act"] == [] and g.view(None)["to_act"] == [] and "may" not in g.view("E")
    assert g.apply(Action.chi("N", [["x4", "x5", "x6"]])) == []  # W's 碰 is ahead: no event, no news
    assert g.to_act() == ("W",) and "may" not in g.view("N") and g.view("N")["to_act"] == []
    ev = g.apply(Action.peng("W"))
    assert types(ev) == ["peng", "turn"] and ev[0]["cards"] == ["x5", "x5", "x5"] and ev[0]["by"] == "E"
    assert g.phase == "discard" and g.to_act() == ("W",) and g.time_limit("W") == 20
    assert g.view(None)["open"]["W"] == [{"kind": "peng", "cards": ["x5", "x5", "x5"]}]
    assert g.view(None)["open"]["N"] == [] and g.view("N")["stale"] == []  # N chose 吃: no 臭牌
    assert g.view(None)["huxi"]["W"] == 1


def test_a_claim_is_settled_as_soon_as_the_first_in_priority_decides():
    g = new({"E": "x5", "N": "x4 x6", "W": "x5 x5"}, stock="d9 x5")
    g.apply(Action.discard("E", "x5"))
    assert types(g.apply(Action.peng("W"))) == ["peng", "turn"]  # N never decided: it does not matter
    assert g.to_act() == ("W",) and "x5" not in g.view("N")["stale"]
    refused(g, Action.chi("N", [["x4", "x5", "x6"]]), "nothing_to_claim")


def test_hu_beats_peng_and_chi_and_waits_for_nobody_behind_it():
    # N turns up 拾: W wins with it (十十拾 绞); E holds 拾拾 and may 碰; N may 吃 (玖 拾 with 捌)
    g = new({"W": READY, "E": "d10 d10 x10", "N": "d8 d9"}, stock="d10 d10")
    to_stock_turn(g, "x10")
    assert g.phase == "claim" and g.view(None)["out"] == {"card": "d10", "by": "N", "from": "stock"}
    assert g.view("W")["may"]["hu"] and g.view("E")["may"]["peng"]
    assert g.apply(Action.peng("E")) == []  # W's 胡 comes first
    ev = g.apply(Action.hu("W"))
    assert types(ev) == ["hu", "deal_end"] and g.phase == "over" and g.to_act() == ()
    r = g.result().to_dict()
    assert r["winner"] == "W" and not r["self_drawn"] and r["card"] == "d10"
    assert {"kind": "jiao", "cards": ["x10", "x10", "d10"]} in r["groups"]
    assert (r["huxi"], r["tun"], r["fan"], r["names"]) == (9, 2, 1, [])
    assert r["scores"] == {"E": -2, "N": -2, "W": 4} and sum(r["scores"].values()) == 0
    assert r["places"] == {"E": 2, "N": 2, "W": 1}


def test_hu_by_the_turner_comes_first_then_counter_clockwise():
    # N and W both wait for 拾; N turns it up: N's 胡 is first
    g = new({"N": READY, "W": READY}, stock="d10")
    to_stock_turn(g, g.view("E")["hand"][-1])
    assert set(g.to_act()) >= {"N", "W"} and g.view("N")["may"]["hu"] and g.view("W")["may"]["hu"]
    assert g.apply(Action.hu("W")) == []  # W waits for N, the turner
    assert "N" in g.to_act()
    ev = g.apply(Action.pass_("N"))  # N declines: W's 胡 stands
    assert types(ev)[-2:] == ["hu", "deal_end"] and g.result().winner == "W"
    g2 = new({"N": READY, "W": READY}, stock="d10")
    to_stock_turn(g2, g2.view("E")["hand"][-1])
    g2.apply(Action.hu("N"))
    r = g2.result()
    assert r.winner == "N" and r.self_drawn and r.tun == 3  # 自摸: one 囤 more
    assert r.scores == {"E": -3, "N": 6, "W": -3}


def test_a_compulsory_pao_happens_without_asking_and_beats_an_optional_chi():
    g = new({"E": "x5", "N": "x4 x6", "W": "x5 x5 x5"}, stock="d9")
    ev = g.apply(Action.discard("E", "x5"))
    assert types(ev) == ["discard", "pao", "turn"]
    assert ev[1] == {"type": "pao", "seat": "W", "cards": ["x5"] * 4, "card": "x5", "by": "E", "from": "kan"}
    assert g.phase == "discard" and g.to_act() == ("W",)  # W's first 跑: W discards
    assert g.view("N")["stale"] == [] and g.view(None)["open"]["W"] == [{"kind": "pao", "cards": ["x5"] * 4}]


def test_chi_by_the_turner_comes_before_their_xiajia():
    # N turns up 五: N (x4 x6) and W (x6 x7) may both 吃 it
    g = new({"N": "x4 x6", "W": "x6 x7"}, stock="x5 x5 x5 x5")
    to_stock_turn(g, g.view("E")["hand"][-1])
    assert g.view(None)["out"] == {"card": "x5", "by": "N", "from": "stock"}
    assert g.view("N")["may"]["chi"] and g.view("W")["may"]["chi"]
    assert g.apply(Action.chi("W", [["x5", "x6", "x7"]])) == []  # waits for N, the turner
    ev = g.apply(Action.chi("N", [["x4", "x5", "x6"]]))
    assert types(ev) == ["chi", "turn"] and ev[0]["seat"] == "N" and g.to_act() == ("N",)
    g = new({"N": "x4 x6", "W": "x6 x7"}, stock="x5 x5 x5 x5")
    to_stock_turn(g, g.view("E")["hand"][-1])
    g.apply(Action.chi("W", [["x5", "x6", "x7"]]))
    ev = g.apply(Action.pass_("N"))  # the turner declines: its 下家's 吃 stands
    assert types(ev) == ["chi", "turn"] and ev[0]["seat"] == "W" and "x5" in g.view("N")["stale"]


def test_only_the_discarders_xiajia_may_chi_a_discard():
    g = new({"E": "x5", "N": "x9", "W": "x4 x6 x5 x5"}, stock="d9")
    g.apply(Action.discard("E", "x5"))
    e = refused(g, Action.chi("W", [["x4", "x5", "x6"], ["x5", "x5", "x5"]]), "not_your_chi")
    assert "下家" in e.en and "N" in e.en


# ---- 比牌 and the other refusals -------------------------------------------------------------

def test_bipai_every_copy_of_the_card_goes_down_in_the_same_chi():
    g = new({"E": "x5", "N": "x4 x6 x5 d5 d5 x3 x3 x3 x8"}, stock="d9 x5 x5")
    g.apply(Action.discard("E", "x5"))
    e = refused(g, Action.chi("N", [["x4", "x5", "x6"]]), "bipai")
    assert "比牌" in e.en and "1 more x5" in e.en and "比牌" in e.zh
    refused(g, Action.chi("N", [["x3", "x4", "x5"], ["x5", "d5", "d5"]]), "kan_split")  # x3 is a 坎
    refused(g, Action.chi("N", [["x4", "x5", "x6"], ["x5", "x5", "d5"]]), "not_in_hand")
    refused(g, Action.chi("N", [["x4", "x5", "x8"]]), "not_a_group")
    refused(g, Action.chi("N", [["x4", "x6", "d5"]]), "no_card_out")
    refused(g, Action.chi("N", [["d5", "d5", "x5"]]), "bipai")  # uses the card out, not N's own 五
    refused(g, Action.peng("N"), "no_pair")
    refused(g, Action.hu("N"), "no_win_on_discard")
    refused(g, Action.discard("N", "x8"), "wrong_phase")
    refused(g, Action.pass_("W"), "not_your_claim")
    refused(g, Action.pass_("E"), "not_your_claim")
    ok = Action.chi("N", [["x5", "d5", "d5"], ["x4", "x5", "x6"]])  # any order: the engine finds the card out
    assert g.can(ok)
    ev = g.apply(ok)
    assert ev[0]["groups"] == [["x4", "x5", "x6"], ["x5", "d5", "d5"]]
    assert g.actions[-1].to_dict()["groups"] == [["x4", "x5", "x6"], ["x5", "d5", "d5"]]
    assert [o["kind"] for o in g.view(None)["open"]["N"]] == ["chi", "chi"]
    refused(g, Action.discard("N", "x3"), "kan_split")
    refused(g, Action.discard("N", "x5"), "not_in_hand")
    refused(g, Action.discard("E", "x9"), "not_your_turn")


def test_refusals_of_malformed_actions_are_coded_in_both_languages():
    for d, code in (({"type": "chi", "seat": "N"}, "bad_action"),
                    ({"type": "chi", "seat": "N", "groups": [["x1", "x2"]]}, "not_a_group"),
                    ({"type": "discard", "seat": "N"}, "no_cards"),
                    ({"type": "discard", "seat": "S", "card": "x1"}, "unknown_seat"),
                    ({"type": "discard", "seat": "N", "card": "3D"}, None),
                    ({"type": "gang", "seat": "N"}, "bad_action"),
                    ({"type": "pass", "seat": "N", "extra": 1}, "bad_action")):
        with pytest.raises(IllegalActionError) as e:
            Action.from_dict(d)
        assert e.value.zh and (code is None or e.value.code == code), (d, e.value.code)


def test_deal_over_and_not_over():
    g = new({"W": READY}, stock="x10")
    refused(g, Action.pass_("E"), "nothing_to_claim")
    with pytest.raises(IllegalActionError) as e:
        g.result()
    assert e.value.code == "not_over"


# ---- 臭牌 and 臭偎 -------------------------------------------------------------------------------

def test_a_declined_card_is_stale_for_that_seat_for_the_rest_of_the_deal():
    g = new({"E": "x5", "N": "x4 x6", "W": "x6 x7"}, stock="x5 x5 x5")
    g.apply(Action.discard("E", "x5"))
    assert g.to_act() == ("N",)
    ev = g.apply(Action.pass_("N"))  # N declines to 吃 五: 臭牌
    assert types(ev)[:2] == ["pile", "turn_up"] and g.view(None)["piles"]["E"] == ["x5"]
    assert g.view("N")["stale"] == ["x5"] and g.view("E")["stale"] == []
    # N turns up another 五: N may not 吃 it now, and is not asked for it
    assert g.view(None)["out"] == {"card": "x5", "by": "N", "from": "stock"}
    assert g.to_act() == ("W",)  # W may 吃 it; N may not, and is not asked
    e = refused(g, Action.chi("N", [["x4", "x5", "x6"]]), "stale")
    assert "臭牌" in e.en and "臭牌" in e.zh


def test_a_wei_after_declining_to_peng_is_a_chou_wei_shown_to_all():
    # W declines to 碰 E's 五; later W turns up a 五 onto its pair: a 臭偎, face up
    g = new({"E": "x5", "W": "x5 x5"}, stock="d9 x5")
    g.apply(Action.discard("E", "x5"))
    for s in g.to_act():
        g.apply(Action.pass_(s))
    assert g.view("W")["stale"] == ["x5"]
    # N turned up 玖; pass it on until W turns up the 五
    while g.view(None)["stock"] == 18:
        if g.phase == "claim":
            pass_all(g)
        else:
            g.apply(g.default_action(g.to_act()[0]))
    opened = [o for o in g.view("E")["open"]["W"] if o["kind"] == "wei"]
    assert opened == [{"kind": "wei", "cards": ["x5", "x5", "x5"]}]


def test_a_wei_is_face_down_to_the_others_and_out_of_their_huxi():
    g = new({"N": "x10 x10"}, stock="x10")
    ev = to_stock_turn(g, g.view("E")["hand"][-1])
    up = [e for e in ev if e["type"] == "turn_up"][0]
    assert up == {"type": "turn_up", "seat": "N", "card": None, "stock": 18}  # a hidden card never shows
    wei = [e for e in ev if e["type"] == "wei"][0]
    assert wei == {"type": "wei", "seat": "N", "cards": None, "chou": False}
    assert g.view("N")["open"]["N"] == [{"kind": "wei", "cards": ["x10", "x10", "x10"]}]
    for seat in ("E", "W", None):
        assert g.view(seat)["open"]["N"] == [{"kind": "wei", "cards": None}]
        assert g.view(seat)["huxi"]["N"] == 0
    assert g.view("N")["huxi"]["N"] == 3
    assert g.phase == "discard" and g.to_act() == ("N",)  # after a 偎, a discard


def test_a_ti_made_from_a_hidden_wei_stays_face_down():
    # N 偎s 十 face down, then turns up the last 十: a 提, still hidden; 玖 and 捌 nobody can 碰
    g = new({"E": "d9 d8", "N": "x10 x10 d9 d8", "W": "d9 d8"}, stock="x10 d9 d8 x10")
    to_stock_turn(g, g.view("E")["hand"][0])
    seen = []
    while g.view(None)["stock"] > 15:
        assert g.phase != "over"
        seen += g.apply(g.default_action(g.to_act()[0]))
    ti = [e for e in seen if e["type"] == "ti"]
    assert ti == [{"type": "ti", "seat": "N", "cards": None, "from": "wei"}]
    k = seen.index(ti[0])
    assert seen[k - 1] == {"type": "turn_up", "seat": "N", "card": None, "stock": 15}
    assert g.view("E")["open"]["N"] == [{"kind": "ti", "cards": None}] and g.view("E")["huxi"]["N"] == 0
    assert g.view("N")["open"]["N"] == [{"kind": "ti", "cards": ["x10"] * 4}] and g.view("N")["huxi"]["N"] == 9


# ---- 提, 跑 and 重跑 ---------------------------------------------------------------------------

def test_ti_at_the_deal_and_a_dealer_with_two_ti_skips_the_first_discard():
    g = new({"N": "x1 x1 x1 x1"})
    assert types(g.opening) == ["deal", "ti", "turn"] and g.opening[1] == {
        "type": "ti", "seat": "N", "cards": ["x1"] * 4, "from": "deal"}
    assert g.view("E")["open"]["N"] == [{"kind": "ti", "cards": ["x1"] * 4}] and g.view("E")["counts"]["N"] == 16
    assert g.phase == "discard" and g.to_act() == ("E",)
    g = new({"E": "x1 x1 x1 x1 d1 d1 d1 d1"}, stock="x9")
    assert types(g.opening)[:5] == ["deal", "ti", "ti", "no_discard", "turn_up"]
    assert g.view(None)["counts"]["E"] == 13 and g.view(None)["stock"] == 18
    assert g.view(None)["out"] is None or g.view(None)["out"]["by"] == "N"  # N turned up the top card


def test_a_second_pao_is_chongpao_no_discard_and_the_next_seat_turns_up():
    g = new({"E": "x5", "W": "x5 x5 x5 x8 x8 x8"}, stock="x8 d9")
    ev = g.apply(Action.discard("E", "x5"))
    assert types(ev) == ["discard", "pao", "turn"] and g.to_act() == ("W",)  # the first: W discards
    ev = g.apply(g.default_action("W"))
    if g.phase == "claim":
        ev = pass_all(g)
    # E turns up 八: W holds 八八八, must 跑 it (its second 跑: no discard), W's 下家 E turns up next
    k = types(ev).index("pao")
    assert ev[k - 1:k + 1] == [
        {"type": "turn_up", "seat": "E", "card": "x8", "stock": 18},
        {"type": "pao", "seat": "W", "cards": ["x8"] * 4, "card": "x8", "by": "E", "from": "kan"}]
    assert ev[k + 1] == {"type": "turn_up", "seat": "E", "card": "d9", "stock": 17}
    assert g.view(None)["counts"]["W"] == 20 - 3 - 1 - 3 and len(g.view(None)["open"]["W"]) == 2


def test_a_turned_up_card_joins_ones_own_kan_as_ti_then_a_discard():
    g = new({"N": "x7 x7 x7"}, stock="x7")
    ev = to_stock_turn(g, g.view("E")["hand"][-1])
    assert {"type": "ti", "seat": "N", "cards": ["x7"] * 4, "from": "kan"} in ev
    assert g.phase == "discard" and g.to_act() == ("N",)  # N's first 提: N discards


def test_a_turned_up_card_joins_a_peng_as_pao():
    g = new({"E": "x5", "W": "x5 x5"}, stock="x5")
    g.apply(Action.discard("E", "x5"))
    g.apply(Action.peng("W"))
    ev = g.apply(g.default_action("W"))
    if g.phase == "claim":
        ev = pass_all(g)
    assert {"type": "pao", "seat": "W", "cards": ["x5"] * 4, "card": "x5", "by": "E", "from": "peng"} in ev
    assert g.view(None)["open"]["W"] == [{"kind": "pao", "cards": ["x5"] * 4}]
    assert g.phase == "discard" and g.to_act() == ("W",)  # W's first 跑: a discard


# ---- the winning card with a pair in hand --------------------------------------------------

def test_a_winning_card_with_a_pair_is_a_wei_when_self_drawn():
    # N holds 十十 and turns up 十: the compulsory 偎 completes the hand: N wins at once
    g = new({"N": READY, "E": "d10 d10", "W": "d10 d10"}, stock="x10")
    ev = to_stock_turn(g, g.view("E")["hand"][0])
    assert types(ev)[-4:] == ["turn_up", "wei", "hu", "deal_end"]
    assert ev[-2] == {"type": "hu", "seat": "N", "card": "x10", "by": "N", "self_drawn": True, "compulsory": True}
    r = g.result()
    assert r.winner == "N" and r.self_drawn
    assert {"kind": "wei", "cards": ["x10"] * 3} in r.groups
    assert (r.huxi, r.tun) == (12, 4)  # 9 + 偎 3; 囤 1 + 2 + 1 for 自摸
    assert r.scores == {"E": -4, "N": 8, "W": -4}


def test_a_winning_card_with_a_pair_is_a_peng_when_another_seat_turned_it_up():
    g = new({"W": READY, "E": "d10 d10", "N": "d10 d10"}, stock="x10")
    to_stock_turn(g, g.view("E")["hand"][0])
    assert g.view("W")["may"] == {"hu": True, "peng": True, "chi": g.view("W")["may"]["chi"]}
    g.apply(Action.hu("W"))
    r = g.result()
    assert r.winner == "W" and not r.self_drawn and {"kind": "peng", "cards": ["x10"] * 3} in r.groups
    assert (r.huxi, r.tun, r.fan) == (10, 2, 1)
    g = new({"W": READY, "E": "d10 d10", "N": "d10 d10"}, stock="x10", pair_win="kan")
    to_stock_turn(g, g.view("E")["hand"][0])
    g.apply(Action.hu("W"))
    assert {"kind": "kan", "cards": ["x10"] * 3} in g.result().groups and g.result().huxi == 12


def test_nobody_wins_on_a_discard_unless_the_option_says_so():
    g = new({"E": "d10", "N": READY}, stock="d9")
    g.apply(Action.discard("E", "d10"))
    assert "N" not in g.to_act() or not g.view("N")["may"]["hu"]
    g = new({"E": "d10", "N": READY}, stock="d9", win_card="any")
    g.apply(Action.discard("E", "d10"))
    assert g.view("N")["may"]["hu"]
    g.apply(Action.hu("N"))
    assert g.result().winner == "N" and not g.result().self_drawn


# ---- 荒庄, defaults, records -----------------------------------------------------------------

def _defaults(g):
    while g.phase != "over":
        g.apply(g.default_action(g.to_act()[0]))
    return g


def test_huangzhuang_when_the_stock_runs_out_everyone_scores_zero():
    for seed in range(50):
        order = list(range(80))
        random.Random(seed).shuffle(order)
        g = _defaults(Paohuzi(Deal.from_permutation(order, board=seed + 1)))
        if g.result().winner is None:
            break
    r = g.result().to_dict()
    assert r["winner"] is None and g.view(None)["stock"] == 0
    assert r["scores"] == {"E": 0, "N": 0, "W": 0} and r["places"] == {"E": 1, "N": 1, "W": 1}
    assert r["tun"] == 0 and r["groups"] == [] and sum(len(h) for h in r["hands_left"].values()) > 0
    assert g.view("E")["result"] == r and g.view("E")["phase"] == "over" and g.time_limit() == 0


def test_default_actions_pass_claims_and_discard_by_the_fixed_rule():
    g = new({"E": "x5 x9 x9 x9 d1 d2 d3", "N": "x4 x6"}, stock="d9")
    a = g.default_action("E")
    assert a.auto and a.type == "discard" and g.can(a)
    assert a.card not in (8,)  # never a card of the 坎 九九九
    with pytest.raises(IllegalActionError):
        g.default_action("N")
    g.apply(Action.discard("E", "x5"))
    assert g.default_action("N").to_dict() == {"type": "pass", "seat": "N", "auto": True}


def test_a_record_replays_to_the_same_state_and_an_illegal_one_names_its_index():
    g = new({"E": "x5", "N": "x4 x6", "W": "x5 x5"}, stock="d9 x5")
    g.apply(Action.discard("E", "x5").with_meta(think_ms=1200))
    g.apply(Action.peng("W").with_meta(auto=True))
    _defaults(g)
    rec = g.record()
    again = Paohuzi.from_record(rec)
    assert again.snapshot() == g.snapshot() and again.result().to_dict() == g.result().to_dict()
    assert g.result().auto_moves["W"] >= 1 and g.result().think_ms["E"] == 1200
    rec["actions"][1] = {"type": "peng", "seat": "N"}
    with pytest.raises(IllegalActionError) as e:
        Paohuzi.from_record(rec)
    assert e.value.en.startswith("action 1:") and "第 1 个操作" in e.value.zh
    with pytest.raises(ValueError):
        Paohuzi.from_record({"game": "other", "deal": {}})


# ---- rules and deals from outside ------------------------------------------------------------

def test_rules_options_and_their_refusals_in_both_languages():
    r = Rules()
    assert (r.claim_seconds, r.discard_seconds, r.win_card, r.pair_win, r.min_huxi, r.men) == (
        10, 20, "stock", "wei_peng", 6, 7)
    assert Rules.from_dict(r.to_dict()) == r and Rules.from_dict(None) == r
    for bad in ({"claim_seconds": 0}, {"win_card": "all"}, {"pair_win": 1}, {"min_huxi": -1}, {"nope": 1}, [1]):
        with pytest.raises(common.RulesError) as e:
            Rules.from_dict(bad)
        assert e.value.code == "bad_rules" and "Paohuzi" in e.value.en and "跑胡子" in e.value.zh
    assert Rules(min_huxi=10).min_huxi == 10


def test_deals_are_checked():
    good = fill({})
    d = Deal.from_dict(dict(good, board=3))
    assert d.board == 3 and Deal.from_dict(d.to_dict()) == d
    for change, text in ((lambda x: x["stock"].pop(), "stock holds 18"),
                         (lambda x: x.update(shown="d10" if "d10" not in x["hands"]["E"] else "zz"), "shown"),
                         (lambda x: x["hands"]["N"].pop(), "seat N holds 19"),
                         (lambda x: x["hands"].pop("W"), "exactly the seats"),
                         (lambda x: x["stock"].__setitem__(0, x["stock"][1]), "times")):
        bad = {"hands": {s: list(h) for s, h in good["hands"].items()}, "shown": good["shown"],
               "stock": list(good["stock"])}
        change(bad)
        with pytest.raises(ValueError, match=text):
            Deal.from_dict(bad)
    with pytest.raises(ValueError):
        Deal.from_permutation(range(79))


def test_the_registry_deals_and_boards_a_paohuzi_deal():
    from paizhuo import deals, rules
    g = rules.game("paohuzi")
    assert (g.seats, g.dealing.hand, g.dealing.shown, g.dealing.stock, g.at_table) == (("E", "N", "W"), 20, True,
                                                                                        19, True)
    rec = deals.deal(b"paohuzi engine test secret 32 by", "paohuzi", 1, 1, 2)
    deal = g.deal_for(rec)
    assert deal.board == 2 and deal.to_dict()["shown"] == rec.shown and deal.to_dict()["stock"] == list(rec.stock)
    board = g.new_board()
    state = _defaults(board.start(deal))
    res = board.finish(state)
    assert sum(res["scores"].values()) == 0 and board.over
    assert rules.replay("paohuzi", board.record()).result().to_dict() == res


def test_a_seat_dealt_two_ti_skips_its_first_discard_after_a_claim():
    g = new({"E": "x5", "N": "x1 x1 x1 x1 x2 x2 x2 x2 x4 x6"}, stock="d9 x5 x5 x5")
    assert [e["seat"] for e in g.opening if e["type"] == "ti"] == ["N", "N"] and g.to_act() == ("E",)
    g.apply(Action.discard("E", "x5"))
    ev = g.apply(Action.chi("N", [["x4", "x5", "x6"]]))
    assert types(ev)[:3] == ["chi", "no_discard", "turn_up"] and ev[2]["seat"] == "W"
    assert g.view(None)["counts"]["N"] == 12 - 2  # 20 - 8 (two 提) - 2 (吃): no card discarded
