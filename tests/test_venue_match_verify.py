"""The venue's replay of a match result (verify.check_match): a match record is counted only when
every deal is the venue's own deal n of the board, it replays from the start of a match under the
event's rules to its end, and every figure the message claims is the replay's."""

import copy
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from paizhuo import deals, rules
from paizhuo.venue import verify

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from match_hubs import MatchHub  # noqa: E402

GAME = next(g for g in sorted(rules.GAMES) if rules.game(g).match)
SECRET = "hex:" + "7c" * 32
RULES = rules.engine(GAME).Rules(max_deals=2).to_dict()
KEY = deals.round_key(deals.parse_secret(SECRET), 1)


def spec():
    d1 = deals.deal_from_round_key(KEY, GAME, 1, 1, round=1)
    players = {s: {"id": "P%s" % s, "name": s, "no": i + 1} for i, s in enumerate("ENWS")}
    return {"v": 1, "id": "s1", "round": 1, "group": 1, "game": GAME, "table": "1", "boards": [1],
            "deal_hashes": {"1": d1.hash}, "players": players, "moves": None, "rules": RULES}


def deal_of(n):
    return deals.deal_from_round_key(KEY, GAME, 1, 1, round=1, deal=n)


def message(forge=None):
    return MatchHub("T01", "1", "cup", SECRET).result(spec(), seed=3, forge=forge)


def check(msg, rules_=RULES):
    return verify.check_match(GAME, rules_, deal_of, msg)


def test_a_true_match_result_replays_to_its_levels():
    finding, res = check(message())
    assert finding is None and res["deals"] == 2 and set(res["levels"]) == {"EW", "NS"}
    assert res["jichafen"]["EW"] + res["jichafen"]["NS"] == 26


def test_deal_1_of_a_board_is_the_deal_of_today_and_deal_2_another():
    one = deals.deal_from_round_key(KEY, GAME, 1, 1, round=1)
    assert deal_of(1).hash == one.hash and deal_of(2).hash != one.hash and deal_of(2).hash == deal_of(2).hash


def _held(msg, code):
    finding, res = check(msg)
    assert res is None and finding is not None and finding.code == code, finding and finding.to_dict()
    assert finding.en and finding.zh and finding.en != finding.zh
    return finding


def test_claimed_levels_the_record_does_not_replay_to_are_held():
    def forge(record, rows):
        record["result"] = dict(record["result"], levels={"EW": "A+", "NS": "2"})
    f = _held(message(forge), "result_mismatch")
    assert "levels" in f.detail["fields"]


def test_a_row_score_other_than_the_sides_jichafen_is_held():
    def forge(record, rows):
        rows[0]["score"] += 1
    f = _held(message(forge), "score_mismatch")
    assert f.detail["seat"] == "E"


def test_a_match_played_from_other_cards_or_rules_or_levels_or_cut_short_is_held():
    msg = message()
    other = copy.deepcopy(msg)
    other["record"]["deals"][1]["deal"] = deals.deal_from_round_key(KEY, GAME, 1, 2, round=1).to_engine_deal().to_dict()
    assert _held(other, "record_deal_mismatch").detail == {"deal": 2}
    f, _ = check(msg, dict(RULES, max_deals=3))
    assert f.code == "rules_mismatch" and "max_deals" in f.detail["fields"]
    late = copy.deepcopy(msg)
    late["record"]["start"] = dict(late["record"]["start"], levels={"EW": 14, "NS": 2})
    _held(late, "bad_record")
    short = copy.deepcopy(msg)
    short["record"]["deals"] = short["record"]["deals"][:1]
    short["record"].pop("result")
    _held(short, "unfinished_record")
    swapped = copy.deepcopy(msg)
    acts = swapped["record"]["deals"][0]["actions"]
    acts[0], acts[1] = acts[1], acts[0]
    assert check(swapped)[0].code in ("illegal_action", "bad_record")


_BASE = None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.tuples(hs.integers(0, 10 ** 6), hs.sampled_from(["drop", "junk", "none", "num"])), max_size=4))
def test_any_damage_to_a_match_record_is_a_finding_never_a_crash(cuts):
    global _BASE
    _BASE = _BASE or message()
    msg = copy.deepcopy(_BASE)
    for where, how in cuts:
        node, path = msg["record"], []
        while isinstance(node, (dict, list)) and node and where % 3:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            k = keys[where % len(keys)]
            path.append((node, k))
            node = node[k]
            where //= 3
        if not path:
            continue
        parent, k = path[-1]
        if how == "drop" and isinstance(parent, dict):
            del parent[k]
        else:
            parent[k] = {"junk": ["x"], "none": None, "num": 7}.get(how, None)
    finding, res = check(msg)
    assert (finding is None) != (res is None)
    if finding is not None:
        assert finding.code and finding.en and finding.zh
