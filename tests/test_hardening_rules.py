"""Rule options from outside (table.toml [rules], event.toml, a round spec, a log): any mapping
gives a Rules or a refusal in Chinese and English naming the option, never another exception."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paizhuo.errors import CodedError
from paizhuo.rules import bigtwo, guandan, paohuzi

ENGINES = {"bigtwo": bigtwo, "guandan": guandan, "paohuzi": paohuzi}

VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12),
              st.sampled_from(["seed", "no_two", "suit_first", "off", "any", "level", "T", "10", "E", "clockwise",
                               "stock", "wei_peng", "kan"]),
              st.integers(min_value=0, max_value=700), st.builds(lambda k: 10 ** (4300 + k), st.integers(0, 9))),   # past str()'s digit limit
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=6)


def option_maps(engine):
    names = st.one_of(st.sampled_from(engine.Rules.OPTIONS), st.text(max_size=12))
    return st.one_of(st.dictionaries(names, VALUES, max_size=4), VALUES)


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_any_mapping_gives_rules_or_a_clear_refusal(game):
    engine = ENGINES[game]

    @settings(max_examples=150, deadline=None)
    @given(option_maps(engine))
    def check(data):
        try:
            rules = engine.Rules.from_dict(data)
        except CodedError as e:
            assert e.code == "bad_rules" and e.en and e.zh and e.en != e.zh
            assert len(e.en) < 400 and len(e.zh) < 400
            return
        assert engine.Rules.from_dict(rules.to_dict()) == rules   # what it took, it takes back
    check()


@pytest.mark.parametrize("game,data,en,zh", [
    ("bigtwo", {"turbo": True}, "unknown Big Two rule option 'turbo'; options are straights", "没有锄大地规则选项 'turbo'"),
    ("bigtwo", {"straights": "all"}, "straights cannot be 'all': it must be 'seed' or 'no_two'", "锄大地规则选项 straights 不能是 'all'"),
    ("bigtwo", {"turn_seconds": 0}, "turn_seconds cannot be 0: it must be a whole number of seconds from 1 to 600",
     "应为 1 到 600 的整数秒"),
    ("bigtwo", ["seed"], "the Big Two rules must be a table", "锄大地规则必须是"),
    ("guandan", {"equal_tribute": "left"}, "equal_tribute cannot be 'left': it must be 'clockwise' or 'counter_clockwise'",
     "掼蛋规则选项 equal_tribute 不能是 'left'"),
    ("guandan", {"max_deals": 0}, "max_deals cannot be 0", "不小于 1 的整数"),
    ("guandan", {"level": "5"}, "unknown Guandan rule option 'level'", "没有掼蛋规则选项 'level'"),
    ("paohuzi", {"win_card": "discard"}, "win_card cannot be 'discard': it must be 'stock'", "跑胡子规则选项 win_card 不能是"),
    ("paohuzi", {"claim_seconds": 601}, "claim_seconds cannot be 601", "应为 1 到 600 的整数秒"),
    ("paohuzi", {"min_huxi": 101}, "min_huxi cannot be 101: it must be a whole number from 0 to 100", "0 到 100 的整数"),
    ("paohuzi", {"hong_hu_reds": 13}, "below hong_wu_reds", "小于 hong_wu_reds"),
    ("paohuzi", {"level": 2}, "unknown Paohuzi rule option 'level'", "没有跑胡子规则选项 'level'"),
])
def test_a_bad_option_is_named_in_both_languages(game, data, en, zh):
    with pytest.raises(CodedError) as e:
        ENGINES[game].Rules.from_dict(data)
    assert e.value.code == "bad_rules" and en in e.value.en and zh in e.value.zh


def test_table_toml_shows_the_chinese_of_a_bad_rule():
    """The hub's configuration error carries the option's refusal in Chinese, not the English one."""
    from paizhuo.table import config
    text = config.example_text().replace("\n[rules]", '\n[rules]\nstraights = "all"\n#', 1)
    with pytest.raises(config.ConfigError) as e:
        config.load_text(text)
    assert e.value.code == "bad_rules"
    assert "锄大地规则选项 straights 不能是 'all'" in e.value.zh and "cannot be" not in e.value.zh

