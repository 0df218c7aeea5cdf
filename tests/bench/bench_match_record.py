"""How big a Guandan match's result message gets (the venue link's payload limit).

Bots play whole matches with no deal limit (``max_deals`` None: until a side passes A) and
every action carries a 5-digit think time (a 20 s clock used almost to the end), the longest
the hub writes for a default clock.  Prints deals per match, the record's bytes per deal and
the whole result message's bytes, and how many deals fit under each payload limit.

    .venv/bin/python tests/bench/bench_match_record.py [matches]
"""

import os
import random
import statistics
import sys

from paizhuo import rules
from paizhuo.mqtt import wire

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from test_match_record_size import result_message as message  # noqa: E402


def one_match(seed):
    g = rules.game("guandan")
    m = g.new_board(g.engine.Rules())
    bots = {s: g.new_bot(seed=seed * 10 + i, whim=0.2) for i, s in enumerate(g.seats)}
    rnd = random.Random(seed)
    while not m.over:
        st = m.start(g.engine.Deal.from_permutation(rnd.sample(range(108), 108)))
        while st.phase != "over":
            seat = st.to_act()[0]
            a = bots[seat].choose(st.view(seat), None)
            st.apply(a.with_meta(think_ms=19000 + rnd.randrange(1000)))
        m.finish(st)
    return m


def size(msg):
    import json
    return len(json.dumps(msg, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def worst_deal_bytes(board):
    """Bytes of a deal record at the most actions a deal can have: 108 single plays, each
    followed by 3 passes (a trick of singles ends after 3 passes), 4 tributes and returns,
    every action a 5-digit think time, added to one real deal record."""
    import json
    rec = dict(board.deals[0])
    play = {"type": "play", "seat": "E", "cards": ["TD"], "meaning": "single:T", "auto": False, "think_ms": 19999}
    pas = {"type": "pass", "seat": "N", "auto": False, "think_ms": 19999}
    gift = {"type": "tribute", "seat": "W", "cards": ["BJ"], "auto": False, "think_ms": 19999}
    rec["actions"] = [play] * 108 + [pas] * 324 + [gift] * 4
    return len(json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def measure(n=30):
    """The figures as lines of text (``main`` prints them, ``section`` makes the table)."""
    deals, per, whole, actions = [], [], [], []
    for seed in range(n):
        m = one_match(seed)
        b = size(message(m))
        deals.append(len(m.deals))
        whole.append(b)
        per.append(b / len(m.deals))
        actions.extend(len(d["actions"]) for d in m.deals)
    seen = max(per)
    worst = worst_deal_bytes(m)
    lines = ["matches %d: deals median %d, max %d" % (n, statistics.median(deals), max(deals)),
             "actions per deal: median %d, max %d" % (statistics.median(actions), max(actions)),
             "result message: median %d B, max %d B; per deal median %d B, max %d B"
             % (statistics.median(whole), max(whole), statistics.median(per), seen),
             "a deal at the most actions it can have (436): %d B" % worst]
    for name, limit in (("MAX_PAYLOAD", wire.MAX_PAYLOAD), ("MAX_RESULT_PAYLOAD", wire.MAX_RESULT_PAYLOAD)):
        lines.append("%s %d B: %d deals as played, %d deals of the longest possible"
                     % (name, limit, limit // seen, limit // worst))
    return lines


def section(quick=False):
    """``make bench``'s section (tests/bench/run.py): a few matches when ``quick``."""
    lines = measure(3 if quick else 30)
    return "\n".join(["## The size of a match's result message", "",
                      "Bots play whole matches to a side passing A, every action with a 5-digit think time; "
                      "the venue link's payload limits against the bytes per deal.", ""]
                     + ["- " + line for line in lines] + [""])


def main(n=30):
    for line in measure(n):
        print(line)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
