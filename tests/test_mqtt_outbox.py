"""The hub's persistent outbox: cursors, epochs, idempotent puts, acks, restarts and crashes."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from paizhuo.mqtt.outbox import Outbox, OutboxError
from paizhuo.mqtt.wire import MAX_PAYLOAD, WireError

TOPIC = "paizhuo/v1/demo/hub/T07/result"


@pytest.fixture
def box(tmp_path):
    b = Outbox(tmp_path / "out.sqlite")
    yield b
    b.close()


def test_epoch_is_16_hex_made_once_per_file(tmp_path):
    a = Outbox(tmp_path / "a.sqlite")
    b = Outbox(tmp_path / "b.sqlite")
    assert len(a.epoch) == 16 and int(a.epoch, 16) >= 0 and a.epoch == a.epoch.lower()
    assert a.epoch != b.epoch
    epoch = a.epoch
    a.close()
    with Outbox(tmp_path / "a.sqlite") as again:
        assert again.epoch == epoch
    b.close()


def test_messages_carry_epoch_and_n(box):
    assert box.put("r1", TOPIC, {"v": 1, "kind": "result", "zh": "李四"}) == 1
    assert box.put("a1", TOPIC.replace("result", "alert"), {"v": 1, "kind": "alert"}) == 2
    (n1, t1, p1), (n2, t2, p2) = box.pending()
    assert (n1, t1) == (1, TOPIC) and n2 == 2
    assert json.loads(p1) == {"v": 1, "kind": "result", "zh": "李四", "epoch": box.epoch, "n": 1}
    assert "李四".encode() in p1          # UTF-8, as sent on the wire
    assert box.message(2)["kind"] == "alert" and box.message(3) is None
    assert box.get("r1")[:2] == (1, TOPIC) and box.get("nope") is None


def test_put_is_idempotent_by_key(box):
    assert box.put("r1", TOPIC, {"v": 1, "score": 1}) == 1
    assert box.put("r1", TOPIC, {"v": 1, "score": 999}) is None     # the first one stands
    assert box.put("r2", TOPIC, {"v": 1}) == 2
    assert box.unacked == 2 and json.loads(box.pending()[0][2])["score"] == 1
    box.ack(box.epoch, 2)
    assert box.put("r1", TOPIC, {"v": 1}) is None                    # acked keys stay known
    assert box.unacked == 0


# (puts, acks as (epoch or None for ours, upto), expected counts, expected unacked, expected acked_upto)
ACKS = [
    (3, [(None, 0)], [0], 3, 0),
    (3, [(None, 2)], [2], 1, 2),
    (3, [(None, 2), (None, 1)], [2, 0], 1, 2),           # a stale ack changes nothing
    (3, [(None, 2), (None, 2)], [2, 0], 1, 2),           # a repeated ack changes nothing
    (3, [(None, 3)], [3], 0, 3),
    (3, [("0000000000000000", 3)], [0], 3, 0),          # another epoch's ack is ignored
    (0, [(None, 0)], [0], 0, 0),
]


@pytest.mark.parametrize("puts,acks,counts,unacked,upto", ACKS)
def test_ack_semantics(box, puts, acks, counts, unacked, upto):
    for i in range(puts):
        box.put("k%d" % i, TOPIC, {"v": 1})
    got = [box.ack(epoch or box.epoch, u) for epoch, u in acks]
    assert got == counts and box.unacked == unacked and box.acked_upto == upto
    assert [n for n, _, _ in box.pending()] == list(range(upto + 1, puts + 1))


@pytest.mark.parametrize("upto,code", [(4, "ack_ahead"), (-1, "bad_ack"), ("2", "bad_ack"), (True, "bad_ack"),
                                       (None, "bad_ack")])
def test_bad_acks_change_nothing(box, upto, code):
    for i in range(3):
        box.put("k%d" % i, TOPIC, {"v": 1})
    with pytest.raises(OutboxError) as e:
        box.ack(box.epoch, upto)
    assert e.value.code == code and e.value.zh
    assert box.unacked == 3


@pytest.mark.parametrize("key,topic,payload", [
    ("", TOPIC, {"v": 1}), (None, TOPIC, {"v": 1}), ("k", "", {"v": 1}), ("k", TOPIC, [1]),
    ("k", TOPIC, {"v": 1, "n": 5}), ("k", TOPIC, {"v": 1, "epoch": "x"}),
])
def test_bad_puts_refused(box, key, topic, payload):
    with pytest.raises(OutboxError) as e:
        box.put(key, topic, payload)
    assert e.value.code == "bad_message"
    assert box.last == 0


def test_too_big_or_unencodable_stores_nothing_and_leaves_no_gap(box):
    with pytest.raises(WireError):
        box.put("big", TOPIC, {"v": 1, "x": "x" * MAX_PAYLOAD})
    with pytest.raises(WireError):
        box.put("obj", TOPIC, {"v": 1, "x": object()})
    assert box.last == 0 and box.get("big") is None
    assert box.put("ok", TOPIC, {"v": 1}) == 1


def test_restart_keeps_everything(tmp_path):
    path = tmp_path / "out.sqlite"
    with Outbox(path) as b:
        epoch = b.epoch
        for i in range(5):
            b.put("k%d" % i, TOPIC, {"v": 1, "i": i})
        b.ack(epoch, 2)
        before = b.pending()
    with Outbox(path) as b:
        assert b.epoch == epoch and b.pending() == before and b.acked_upto == 2 and b.last == 5
        assert b.put("k1", TOPIC, {"v": 1}) is None
        assert b.put("k5", TOPIC, {"v": 1}) == 6


def test_a_killed_process_loses_nothing_it_was_told_was_stored(tmp_path):
    path = tmp_path / "out.sqlite"
    # The child puts and acks, prints what it was told, and dies without closing anything.
    code = (
        "import os, sys\n"
        "from paizhuo.mqtt.outbox import Outbox\n"
        "b = Outbox(sys.argv[1])\n"
        "ns = [b.put('k%d' % i, 't', {'v': 1, 'i': i}) for i in range(20)]\n"
        "b.ack(b.epoch, 7)\n"
        "print(b.epoch, ns[-1], flush=True)\n"
        "os._exit(9)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 9, out.stderr
    epoch, last = out.stdout.split()
    with Outbox(path) as b:
        assert b.epoch == epoch and b.last == int(last) == 20 and b.acked_upto == 7 and b.unacked == 13


def test_other_sqlite_files_are_refused(tmp_path):
    other = tmp_path / "table-7.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE entries (seq INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(OutboxError) as e:
        Outbox(other)
    assert e.value.code == "not_outbox"
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(OutboxError) as e:
        Outbox(junk)
    assert e.value.code == "bad_outbox"
    wrong = tmp_path / "wrong.sqlite"
    db = sqlite3.connect(wrong)
    db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('kind', 'something-else')")
    db.commit()
    db.close()
    with pytest.raises(OutboxError) as e:
        Outbox(wrong)
    assert e.value.code == "not_outbox"


# ---- random put/ack/restart sequences against a model -------------------------------------------

class OutboxModel(RuleBasedStateMachine):
    """The outbox behaves like a list of (key, payload) with an acked prefix, across restarts."""

    def __init__(self):
        super().__init__()
        import tempfile
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "o.sqlite")
        self.box = Outbox(self.path)
        self.keys = []          # in order of first put: the model's cursors are index + 1
        self.acked = 0

    @initialize()
    def start(self):
        self.epoch = self.box.epoch

    @rule(key=st.sampled_from(["r%d" % i for i in range(12)]), value=st.integers(0, 9))
    def put(self, key, value):
        n = self.box.put(key, TOPIC, {"v": 1, "value": value})
        if key in self.keys:
            assert n is None
        else:
            self.keys.append(key)
            assert n == len(self.keys)

    @rule(upto=st.integers(0, 14), ours=st.booleans())
    def ack(self, upto, ours):
        epoch = self.epoch if ours else "f" * 16
        if not ours:
            assert self.box.ack(epoch, upto) == 0
            return
        if upto > len(self.keys):
            with pytest.raises(OutboxError):
                self.box.ack(epoch, upto)
            return
        assert self.box.ack(epoch, upto) == max(0, upto - self.acked)
        self.acked = max(self.acked, upto)

    @rule()
    def restart(self):
        self.box.close()
        self.box = Outbox(self.path)
        assert self.box.epoch == self.epoch

    @invariant()
    def matches_model(self):
        pending = self.box.pending()
        assert [n for n, _, _ in pending] == list(range(self.acked + 1, len(self.keys) + 1))
        for n, _, payload in pending:
            body = json.loads(payload)
            assert body["n"] == n and body["epoch"] == self.epoch
        assert self.box.unacked == len(self.keys) - self.acked
        assert self.box.acked_upto == self.acked and self.box.last == len(self.keys)

    def teardown(self):
        self.box.close()
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)


OutboxModel.TestCase.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
TestOutboxModel = OutboxModel.TestCase
