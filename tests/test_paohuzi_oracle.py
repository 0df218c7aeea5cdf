"""The rules oracle's Paohuzi ops (hub/rules/paohuzi_oracle.py): huxi, win, score in the shapes of
issue #14, and every bad request refused with a code and a reason in Chinese and English.

``answer(request, op)`` is called directly: the registry line that routes ``"game": "paohuzi"`` to
it comes with the engine.  The answers agree with the vectors (tests/vectors/paohuzi_win.jsonl,
paohuzi_score.jsonl), read here a second way.
"""

import json
from pathlib import Path

import pytest

from paizhuo.errors import CodedError
from paizhuo.rules import oracle
from paizhuo.rules import paohuzi_oracle as O

VECTORS = Path(__file__).resolve().parent / "vectors"


def G(kind, cards):
    return {"kind": kind, "cards": cards.split()}


PAO_HAND = "x1 x2 x3 x4 x5 x6 x7 x8 x9 d2 d7 d10 d4 d5 d6 d1 d1".split()
PAO = G("pao", "d8 d8 d8 d8")


def _refused(req, op):
    with pytest.raises(CodedError) as e:
        O.answer(req, op)
    err = e.value
    assert err.en and err.zh and err.zh != err.en, "a reason in English and in Chinese"
    return err


def test_huxi_sums_the_groups():
    groups = [G("ti", "d10 d10 d10 d10"), G("pao", "x1 x1 x1 x1"), G("wei", "d3 d3 d3"), G("peng", "x5 x5 x5"),
              G("chi", "d1 d2 d3"), G("chi", "x4 x4 d4"), G("kan", "x9 x9 x9"), G("ju", "x2 x7 x10"),
              G("jiao", "x6 d6 d6"), G("jiang", "d8 d8")]
    assert O.answer({"groups": groups}, "huxi") == {"huxi": 12 + 6 + 6 + 1 + 6 + 0 + 3 + 3 + 0 + 0}
    assert O.answer({"groups": []}, "huxi") == {"huxi": 0}


@pytest.mark.parametrize("group,code,words", [
    (G("ju", "x1 x2 d3"), "not_a_group", ("not a ju", "不是句")),
    (G("peng", "x5 x5 x6"), "not_a_group", ("not a peng", "不是碰")),
    (G("chi", "x1 x1 x1"), "not_a_group", ("not a chi", "不是吃")),
    (G("pao", "x5 x5 x5"), "not_a_group", ("not a pao", "不是跑")),
    (G("shun", "x1 x2 x3"), "unknown_kind", ("shun", "shun")),
    (G("ju", "x1 x2 x11"), "invalid_card", ("groups[0]", "groups[0]")),
    ({"kind": "ju"}, "bad_group", ("groups[0]", "groups[0]")),
    ({"kind": "wei", "cards": None}, "hidden_cards", ("face-down", "扣着")),
    ({"kind": "ju", "cards": "x1 x2 x3"}, "bad_field", ("list", "列表")),
])
def test_huxi_refuses_a_group_that_is_not_its_kind(group, code, words):
    err = _refused({"groups": [G("peng", "d5 d5 d5"), group][1:]}, "huxi")
    assert err.code == code
    assert words[0] in err.en and words[1] in err.zh


def test_win_gives_the_best_arrangement():
    ans = O.answer({"hand": PAO_HAND, "open": [PAO]}, "win")
    assert ans["wins"] is True and ans["huxi"] == 18
    assert ans["groups"][0] == PAO
    assert sorted(c for g in ans["groups"][1:] for c in g["cards"]) == sorted(PAO_HAND)
    assert {"kind": "jiang", "cards": ["d1", "d1"]} in ans["groups"]
    assert sum(O.answer({"groups": [g]}, "huxi")["huxi"] for g in ans["groups"]) == 18


def test_win_that_fails_still_shows_the_best_arrangement():
    hand = "d2 d3 d4 d5 d6 d7 d8 d9 d10 x1 x1 d1".split()
    opened = [G("wei", "x4 x4 x4"), G("peng", "x5 x5 x5"), G("peng", "x6 x6 x6")]
    ans = O.answer({"hand": hand, "open": opened}, "win")
    assert ans == {"wins": False, "huxi": 5, "groups": opened + [G("jiao", "x1 x1 d1"), G("ju", "d2 d3 d4"),
                                                                 G("ju", "d5 d6 d7"), G("ju", "d8 d9 d10")]}
    assert O.answer({"hand": hand, "open": opened, "rules": {"min_huxi": 5}}, "win")["wins"] is True
    # no arrangement at all: the open groups alone
    ans = O.answer({"hand": ["x1", "x3"], "open": opened}, "win")
    assert ans == {"wins": False, "huxi": 5, "groups": opened}
    # the 跑 wants a 将 the hand lacks
    ans = O.answer({"hand": PAO_HAND[:-2] + ["d1", "d1", "d1"], "open": [PAO]}, "win")
    assert ans["wins"] is False and ans["groups"] == [PAO]


def test_the_win_vectors_through_the_oracle():
    n = 0
    for line in (VECTORS / "paohuzi_win.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if "card" in case:
            continue  # a turned-up card's moves (win_on) are the engine's, not an op
        req = {"hand": case["hand"].split(), "open": case["open"], "rules": case.get("rules")}
        if "error" in case:
            assert _refused(req, "win").code == case["error"], case["note"]
            continue
        ans = O.answer(req, "win")
        assert ans["wins"] == case["wins"], case["note"]
        if case["wins"]:
            assert ans["huxi"] == case["huxi"], case["note"]
        n += 1
    assert n >= 20


def test_the_score_vectors_through_the_oracle():
    for line in (VECTORS / "paohuzi_score.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["winner"] is None:
            ans = O.answer({"winner": None}, "score")
            assert ans == {"scores": case["scores"], "tun": 0, "fan": 0, "names": []}
            continue
        req = {"winner": case["winner"], "hand": case["hand"].split(), "open": case["open"],
               "self_drawn": case["self_drawn"], "rules": case.get("rules")}
        ans = O.answer(req, "score")
        assert ans == {"scores": case["scores"], "tun": case["tun"], "fan": case["fan"], "names": case["names"]}, \
            case["note"]


@pytest.mark.parametrize("req,op,code", [
    ({"open": []}, "win", "missing_field"),
    ({"hand": "x1 x2 x3"}, "win", "bad_field"),
    ({"hand": ["x1"] * 5}, "win", "duplicate_card"),
    ({"hand": ["x3"], "open": [G("pao", "x3 x3 x3 x3")]}, "win", "duplicate_card"),
    ({"hand": ["x1"] * 22}, "win", "too_many_cards"),
    ({"hand": [], "open": [G("kan", "x3 x3 x3")]}, "win", "not_open"),
    ({"hand": [], "open": [G("shun", "x3 x4 x5")]}, "win", "unknown_kind"),
    ({"hand": [], "open": [G("peng", "x3 x3 x3")] * 11}, "win", "too_many_groups"),
    ({"hand": [], "open": {"kind": "peng"}}, "win", "bad_field"),
    ({"hand": [], "rules": {"men": 0}}, "win", "bad_rules"),
    ({"hand": [], "rules": {"dealer": "E"}}, "win", "bad_rules"),
    ({"hand": [], "rules": [1]}, "win", "bad_rules"),
    ({"hand": PAO_HAND, "open": [PAO]}, "score", "missing_field"),
    ({"winner": "S", "hand": PAO_HAND, "open": [PAO]}, "score", "bad_seat"),
    ({"winner": "E", "hand": PAO_HAND, "open": [PAO], "self_drawn": "yes"}, "score", "bad_field"),
    ({"winner": "E", "hand": PAO_HAND, "open": [G("peng", "d8 d8 d8")]}, "score", "no_win"),
    ({"groups": []}, "legal", "unknown_op"),
    ({}, "huxi", "missing_field"),
])
def test_bad_requests_are_refused_with_a_code_in_both_languages(req, op, code):
    assert _refused(req, op).code == code


def test_score_of_a_win_and_of_a_drawn_deal():
    ans = O.answer({"winner": "N", "hand": PAO_HAND, "open": [PAO], "self_drawn": True}, "score")
    # 18 胡息: 1 + 12 // 3 = 5 囤, +1 自摸; 红: x2 x7 d2 d7 d10 = 5: no 名堂
    assert ans == {"scores": {"E": -6, "N": 12, "W": -6}, "tun": 6, "fan": 1, "names": []}
    assert O.answer({"winner": None, "hand": "anything"}, "score")["scores"] == {"E": 0, "N": 0, "W": 0}


def test_the_oracle_knows_the_ops_and_refusals_keep_their_code():
    assert set(O.OPS) <= set(oracle.OPS)
    ans = oracle._refusal(_refused({"groups": [G("ju", "x1 x2 d3")]}, "huxi"))
    assert ans["ok"] is False and ans["code"] == "not_a_group" and "不是句" in ans["zh"]
    assert O.EXAMPLES and all(len(e) == 3 for e in O.EXAMPLES)


# ---- `paizhuo rules huxi | win | score GAME ...` build these requests --------------------------

@pytest.fixture
def sent(monkeypatch):
    """The requests the command line hands to the oracle, answered by the Paohuzi oracle itself."""
    from paizhuo import cli
    out = []

    def answer(req):
        out.append(req)
        fields = O.answer(dict(req), req["op"])
        return dict({"ok": True}, **fields)

    monkeypatch.setattr(cli.oracle, "answer", answer)
    return cli, out


def test_the_command_line_asks_in_the_oracles_shapes(sent, capsys):
    cli, out = sent
    assert cli.main(["rules", "huxi", "paohuzi", "--group", "ju:x1,x2,x3", "--group", "peng:d5 d5 d5"]) == 0
    assert out[-1] == {"op": "huxi", "game": "paohuzi", "groups": [G("ju", "x1 x2 x3"), G("peng", "d5 d5 d5")]}
    assert json.loads(capsys.readouterr().out) == {"ok": True, "huxi": 6}
    assert cli.main(["rules", "win", "paohuzi"] + PAO_HAND + ["--open", "pao:d8,d8,d8,d8"]) == 0
    assert out[-1]["hand"] == PAO_HAND and out[-1]["open"] == [PAO]
    assert json.loads(capsys.readouterr().out)["huxi"] == 18
    assert cli.main(["rules", "score", "paohuzi", "--winner", "W", "--hand"] + PAO_HAND
                    + ["--open", "pao:d8,d8,d8,d8", "--self-drawn", "--rules", '{"tun_step": 2}']) == 0
    assert out[-1]["self_drawn"] is True and out[-1]["rules"] == {"tun_step": 2}
    assert json.loads(capsys.readouterr().out)["tun"] == 1 + 12 // 2 + 1
    assert cli.main(["rules", "score", "paohuzi", "--winner", "none"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == {"E": 0, "N": 0, "W": 0}


def test_the_command_line_refuses_a_group_without_its_kind(sent, capsys):
    cli, out = sent
    with pytest.raises(SystemExit) as e:
        cli.main(["rules", "huxi", "paohuzi", "--group", "x1,x2,x3"])
    assert e.value.code == 2 and not out
    err = capsys.readouterr().err
    assert "KIND:CARDS" in err and "组合:牌" in err


def test_the_engines_own_rule_options_are_accepted_and_change_nothing():
    engine = pytest.importorskip("paizhuo.rules.paohuzi")  # merged in with the engine
    from paizhuo_shared import paohuzi as P
    defaults = engine.Rules().to_dict()
    own = {k: defaults[k] for k in engine.Rules.OPTIONS if k not in P.Rules.OPTIONS}
    req = {"hand": PAO_HAND, "open": [PAO]}
    assert O.answer(dict(req, rules=own), "win") == O.answer(req, "win")
