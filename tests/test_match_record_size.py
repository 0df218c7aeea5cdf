"""A long match's result fits the venue link: a result message (its board's whole record) may be
up to wire.MAX_RESULT_PAYLOAD, and both brokers (the production mosquitto with the files of
`paizhuo broker config`, and the embedded one) carry it to the venue intact; everything else
keeps the 256 KB limit."""

import asyncio
import copy
import random

import pytest

from paizhuo import rules
from paizhuo.mqtt import wire
from paizhuo.mqtt.outbox import Outbox

from test_mosquitto_acl import EV, Inbox, broker, hub, started, stopped  # noqa: F401  (the fixture)
from brokers import login, wait_for

DEALS = 36  # with 5-digit think times: well over 256 KB


def long_match():
    """A real match of DEALS deals (no side passes A: a deal that would end it is dealt again)."""
    g = rules.game("guandan")
    m = g.new_board(g.engine.Rules(max_deals=DEALS))
    rnd = random.Random(7)
    while not m.over:
        trial = copy.deepcopy(m)
        bots = {s: g.new_bot(seed=rnd.randrange(1 << 30)) for s in g.seats}
        st = trial.start(g.engine.Deal.from_permutation(rnd.sample(range(108), 108)))
        while st.phase != "over":
            seat = st.to_act()[0]
            st.apply(bots[seat].choose(st.view(seat), None).with_meta(think_ms=19000 + rnd.randrange(1000)))
        trial.finish(st)
        if not trial.over or len(trial.deals) == DEALS:
            m = trial
    return m


def result_message(board):
    rows = [{"result_id": "T01/1/r1/g1/b1/%s" % s, "round": 1, "group": 1, "board": 1, "table": "1", "seat": s,
             "player": "P%s" % s, "score": board.result()["scores"][s], "think_ms": board.result()["think_ms"][s],
             "auto_moves": 0, "deal_hash": "ab" * 32, "bot": False} for s in "ENWS"]
    return {"v": 1, "kind": "result", "hub": "T01", "table": "1", "epoch": "0123456789abcdef", "n": 1, "at": 0,
            "round": 1, "group": 1, "board": 1, "deal": 0, "deal_hash": "ab" * 32, "rows": rows,
            "record": board.record()}


@pytest.fixture(scope="module")
def long_result():
    board = long_match()
    return board, result_message(board)


def test_a_long_match_result_goes_through_both_brokers_intact(broker, long_result, tmp_path):  # noqa: F811
    board, msg = long_result
    data = wire.dumps(msg)
    assert len(board.deals) == DEALS and wire.MAX_PAYLOAD < len(data) < wire.MAX_RESULT_PAYLOAD
    with Outbox(str(tmp_path / "outbox.sqlite")) as box:  # the hub keeps it until the venue acks it
        box.put("r1", hub("result"), {k: v for k, v in msg.items() if k not in ("epoch", "n")})
        assert box.get("r1") is not None

    async def main():
        clients = {"venue": login(broker, "venue", on_message=Inbox()), "T01": login(broker, "T01")}
        await started(*clients.values())
        try:
            clients["venue"].subscribe(wire.hub_filter(EV))
            await asyncio.sleep(0.3)  # the subscription is live
            await clients["T01"].published(clients["T01"].publish(hub("result"), data), 20)
            await wait_for(lambda: clients["venue"].on_message.got, 20, "the long result at the venue")
        finally:
            await stopped(*clients.values())
        return clients["venue"].on_message.got

    got = asyncio.run(asyncio.wait_for(main(), 60))
    assert got[0] == (hub("result"), data)
    checked = wire.check_result(got[0][1])
    assert rules.replay("guandan", checked["record"]).result() == board.result()


def test_only_a_result_may_pass_256_kb_and_nothing_past_its_own_limit(long_result):
    _, msg = long_result
    big = {"v": 1, "kind": "alert", "pad": "x" * (len(wire.dumps(msg)))}
    for bad in (big, dict(msg, pad="x" * wire.MAX_RESULT_PAYLOAD)):
        with pytest.raises(wire.WireError) as e:
            wire.dumps(bad)
        assert e.value.code == "too_big" and e.value.zh
    with pytest.raises(wire.WireError, match="over the 262144-byte limit"):
        wire.check_live(wire.dumps(msg).replace(b'"kind":"result"', b'"kind":"live00"'))
