"""The table's event log: durable, hash-chained, and checked from the outside by replay."""

import asyncio
import json
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import os

from paizhuo.rules.bigtwo import BigTwo
from paizhuo.table import config as config_
from paizhuo.table.runtime import Table, TableError
from paizhuo.table import eventlog
from paizhuo.table.eventlog import EventLog, verify_chain, entry_hash, GENESIS
from paizhuo.table.history import TableHistory, HistoryError, audit

from table_seat import Rig, play_deal, PAIZHUO


def fresh(tmp_path, name="t.sqlite", table="7"):
    ticks = iter(range(1000, 10 ** 9, 7))
    return EventLog(str(tmp_path / name), table, now_ms=lambda: next(ticks))


def test_durability_settings_and_schema(tmp_path):
    log = fresh(tmp_path)
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    cols = [r[1] for r in log.db.execute("PRAGMA table_info(events)")]
    assert cols == ["table_id", "seq", "at_ms", "kind", "body_json", "prev_hash", "hash"]
    pk = sorted((r[5], r[1]) for r in log.db.execute("PRAGMA table_info(events)") if r[5])
    assert [c for _, c in pk] == ["table_id", "seq"]
    log.close()


def test_chain_links_and_survives_reopening(tmp_path):
    log = fresh(tmp_path)
    a = log.append("hub_start", {"hub": "T07"})
    b, c = log.append_many([("seat", {"seat": "E", "name": "张三"}), ("seat", {"seat": "N"})])
    assert (a.seq, b.seq, c.seq) == (1, 2, 3)
    assert a.prev_hash == GENESIS and b.prev_hash == a.hash and c.prev_hash == b.hash
    assert b.at_ms == c.at_ms  # one transaction, one time
    assert entry_hash(a.hash, "7", 2, b.at_ms, "seat", {"seat": "E", "name": "张三"}) == b.hash
    log.close()
    again = EventLog(log.path, "7")
    assert (again.last_seq, again.last_hash) == (3, c.hash)
    d = again.append("x", {})
    assert d.seq == 4 and d.prev_hash == c.hash
    other = EventLog(log.path, "8")  # a second table in the same file has its own chain
    assert other.append("x", {}).prev_hash == GENESIS
    assert [e.table_id for e in again.since(0)] == ["7", "7", "7", "7", "8"]
    report = verify_chain(log.path)
    assert report.ok and report.counts == {"7": 4, "8": 1}, str(report)
    again.close()
    other.close()


def test_a_duplicate_seq_is_a_database_error(tmp_path):
    log = fresh(tmp_path)
    e = log.append("x", {})
    with pytest.raises(sqlite3.IntegrityError):
        log.db.execute("INSERT INTO events VALUES (?,?,?,?,?,?,?)", ("7", 1, 0, "x", "{}", GENESIS, e.hash))
    log.close()


def test_a_failed_append_writes_nothing(tmp_path):
    log = fresh(tmp_path)
    log.append("x", {"n": 1})
    with pytest.raises(TypeError):
        log.append_many([("action", {"n": 2}), ("clock", {"bad": object()})])
    assert [e.seq for e in log.entries()] == [1]
    assert log.append("x", {}).seq == 2
    log.close()


def tamper(path, sql, *args):
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


# (what, SQL, args, the seq the report names)
TAMPERING = [
    ("body edited", "UPDATE events SET body_json = ? WHERE seq = 3", ('{"n":999}',), 3),
    ("time edited", "UPDATE events SET at_ms = at_ms + 1 WHERE seq = 2", (), 2),
    ("kind edited", "UPDATE events SET kind = 'other' WHERE seq = 4", (), 4),
    ("entry deleted", "DELETE FROM events WHERE seq = 3", (), 4),
    ("hash replaced", "UPDATE events SET hash = ? WHERE seq = 2", ("f" * 64,), 2),
    ("body re-spaced", "UPDATE events SET body_json = '{\"n\": 2}' WHERE seq = 2", (), 2),
    ("prev_hash edited", "UPDATE events SET prev_hash = ? WHERE seq = 5", ("0" * 64,), 5),
]


@pytest.mark.parametrize("what,sql,args,seq", TAMPERING, ids=[t[0] for t in TAMPERING])
def test_tampering_is_found_at_the_first_broken_link(tmp_path, what, sql, args, seq):
    log = fresh(tmp_path)
    for n in range(1, 6):
        log.append("x", {"n": n})
    log.close()
    assert verify_chain(log.path).ok
    tamper(log.path, sql, *args)
    report = verify_chain(log.path)
    assert not report.ok and (report.table_id, report.seq) == ("7", seq), str(report)
    assert "broken" in str(report)


bodies = st.dictionaries(st.text(min_size=1, max_size=8),
                         st.one_of(st.integers(-10 ** 12, 10 ** 12), st.text(max_size=20), st.booleans(), st.none(),
                                   st.lists(st.integers(0, 60), max_size=5)), max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(bodies, min_size=1, max_size=12), data=st.data())
def test_any_edit_of_any_body_breaks_the_chain_there(tmp_path_factory, items, data):
    path = tmp_path_factory.mktemp("chain")
    log = fresh(path)
    for b in items:
        log.append("x", b)
    log.close()
    assert verify_chain(log.path).ok
    k = data.draw(st.integers(1, len(items)))
    new = data.draw(bodies.filter(lambda b: eventlog.canonical(b) != eventlog.canonical(items[k - 1])))
    tamper(log.path, "UPDATE events SET body_json = ? WHERE seq = ?", eventlog.canonical(new), k)
    report = verify_chain(log.path)
    assert not report.ok and report.seq == k


def test_not_a_log_is_refused_clearly(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(eventlog.LogError) as info:
        verify_chain(str(junk))
    assert "not a paizhuo event log" in info.value.en
    with pytest.raises(eventlog.LogError):
        EventLog(str(junk), "7")


# ---- a real deal's log: played by the hub over pty links --------------------------------

@pytest.fixture(scope="module")
def played_log(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("played"))

    async def main():
        rig = Rig(folder)
        try:
            await rig.start_seats()
            await rig.start_hub()
            await rig.all_online()
            await play_deal(rig)
            scores = {s: seat.result["scores"] for s, seat in rig.seats.items()}
        finally:
            await rig.close()
        return scores

    scores = asyncio.run(main())
    return folder + "/table.sqlite", scores


def copy(played_log, tmp_path):
    dst = str(tmp_path / "copy.sqlite")
    shutil.copy(played_log[0], dst)
    return dst


def test_a_played_deal_replays_to_the_logged_result(played_log):
    path, scores = played_log
    report = audit(path)
    assert report.ok and report.deals == 1, str(report)
    db = eventlog.open_readonly(path)
    entries = eventlog.read_entries(db, "7")
    db.close()
    h = TableHistory.from_entries(entries)
    deal = h.deals[0]
    # What every seat was shown as the result is what the engine's replay of the log gives.
    start = next(e for e in entries if e.kind == "deal_start").body
    record = dict(start["engine"], actions=[e.body["action"] for e in entries if e.kind == "action"])
    replay = BigTwo.from_record(record).result().to_dict()
    assert all(s == replay["scores"] for s in scores.values())
    assert deal.result["result"] == replay
    # Every action carries the hub's measured thinking time; results carry each seat's total.
    actions = [e.body["action"] for e in entries if e.kind == "action"]
    assert all(isinstance(a["think_ms"], int) for a in actions)
    for seat in "ENWS":
        assert replay["think_ms"][seat] == sum(a["think_ms"] for a in actions if a["seat"] == seat)
    assert deal.result["deal_hash"] == start["deal_hash"] == start["deal_record"]["hash"]
    kinds = [e.kind for e in entries]
    assert kinds[0] == "hub_start" and kinds.count("deal_start") == 1 and kinds.count("result") == 1
    assert kinds.count("seat") >= 4


def rechain(path, edit):
    """Edit bodies and recompute every hash after them: a forger who rewrites the whole chain."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, at_ms, kind, body_json FROM events WHERE table_id='7' ORDER BY seq").fetchall()
    prev = GENESIS
    for seq, at, kind, text in rows:
        body = edit(kind, json.loads(text))
        h = entry_hash(prev, "7", seq, at, kind, body)
        db.execute("UPDATE events SET body_json=?, prev_hash=?, hash=? WHERE table_id='7' AND seq=?",
                   (eventlog.canonical(body), prev, h, seq))
        prev = h
    db.commit()
    db.close()


def test_a_forged_result_is_caught_by_replay_even_with_a_rebuilt_chain(played_log, tmp_path):
    path = copy(played_log, tmp_path)

    def edit(kind, body):
        if kind == "result":
            body["result"]["scores"]["E"] += 10
            body["result"]["scores"]["N"] -= 10
        return body

    rechain(path, edit)
    assert verify_chain(path).ok
    report = audit(path)
    assert not report.ok and "differs from the replay in scores" in str(report), str(report)


def test_a_forged_deal_hash_is_caught(played_log, tmp_path):
    path = copy(played_log, tmp_path)

    def edit(kind, body):
        if kind in ("deal_start", "result"):
            body["deal_hash"] = "a" * 64
        return body

    rechain(path, edit)
    report = audit(path)
    assert not report.ok and "is not the cards' hash" in str(report), str(report)


def test_an_illegal_logged_action_does_not_replay(played_log, tmp_path):
    path = copy(played_log, tmp_path)
    state = {"done": False}

    def edit(kind, body):
        if kind == "action" and body["action"]["type"] == "play" and not state["done"]:
            body["action"]["cards"] = ["2S"] if "2S" not in body["action"]["cards"] else ["3D"]
            state["done"] = True
        return body

    rechain(path, edit)
    report = audit(path)
    assert not report.ok and "illegal" in str(report), str(report)
    db = eventlog.open_readonly(path)
    with pytest.raises(HistoryError):
        TableHistory.from_entries(eventlog.read_entries(db, "7"))
    db.close()
    # A hub given this log refuses to start rather than resume from it.
    cfg = config_.load(os.path.join(os.path.dirname(played_log[0]), "table.toml"))
    cfg.log = path
    with pytest.raises(TableError) as info:
        asyncio.run(Table(cfg, transports=[]).run())
    assert info.value.code == "log_broken" and "paizhuo hub verify" in info.value.en


def test_verify_command(played_log, tmp_path):
    ok = subprocess.run([PAIZHUO, "hub", "verify", "--log", played_log[0]], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "result matches the replay" in ok.stdout and "1 deal(s) recomputed, all match" in ok.stdout
    path = copy(played_log, tmp_path)
    tamper(path, "UPDATE events SET at_ms = at_ms - 1 WHERE seq = 10")
    bad = subprocess.run([PAIZHUO, "hub", "verify", "--log", path], capture_output=True, text=True)
    assert bad.returncode == 1 and "broken at table 7 entry 10" in bad.stdout
    missing = subprocess.run([PAIZHUO, "hub", "verify", "--log", str(tmp_path / "none.sqlite")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "cannot open the event log" in missing.stderr
