"""The log's end is anchored; damage is a finding, never a traceback.

A hash chain cannot see its own tail cut off.  The hub keeps the head of its log beside it
(``<log>-head.json``) and every outbox message carries it (``chain``), so the venue keeps one
too (``paizhuo venue anchors``).  ``paizhuo hub verify`` checks the log's end against both, runs
SQLite's own integrity check first, and a hub refuses to start on a log that is broken or
shorter than its kept head unless a referee overrides it (``--override-log``, logged).
"""

import argparse
import asyncio
import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from paizhuo.mqtt import wire
from paizhuo.table import cli as hub_cli
from paizhuo.table import config as config_
from paizhuo.table import eventlog
from paizhuo.table.runtime import Table, TableError

from table_seat import PAIZHUO, log_entries

BOTS_TOML = """[table]
hub = "T07"
id = "7"
event = "test event"
log = "table.sqlite"

[clock]
next_deal_seconds = 0.05

[seats]
bots = ["E", "N", "W", "S"]
bot_think_seconds = 0

[deals]
secret = "text:paizhuo table hub tests"
boards = "1-2"
"""


async def serve(cfg, until="waiting", override_log=None, timeout=30):
    """Run a hub in this process on ``cfg`` until an entry of kind ``until`` is logged."""
    stop = asyncio.Event()

    def on_entry(e):
        if e.kind == until:  # stop from the loop, not from inside the table's own append
            asyncio.get_running_loop().call_soon(stop.set)

    kw = {} if override_log is None else {"override_log": override_log}
    table = Table(cfg, transports=[], on_entry=on_entry, **kw)
    await asyncio.wait_for(table.run(stop), timeout)
    return table


def play(folder, text=BOTS_TOML):
    """A finished log of two deals played by four bots: ``folder``'s table.toml, log and kept head."""
    path = os.path.join(folder, "table.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    cfg = config_.load(path)
    asyncio.run(serve(cfg))
    db = sqlite3.connect(cfg.log)  # everything in the main file: a copy of it is the whole log
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return cfg


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("finished"))
    return play(folder)


@pytest.fixture
def table(finished, tmp_path):
    """A copy of the finished table (config, log, kept head) to change."""
    for name in ("table.toml", "table.sqlite", "table-head.json"):
        if os.path.exists(os.path.join(os.path.dirname(finished.log), name)):
            shutil.copy(os.path.join(os.path.dirname(finished.log), name), str(tmp_path / name))
    return config_.load(str(tmp_path / "table.toml"))


def cut_after_last_result(path, keep_result=False):
    """What a power cut after the last deal's result and a deleted result leave: the log ends
    just before (or at) the last ``result`` entry.  Returns that entry's (seq, hash)."""
    db = sqlite3.connect(path)
    seq, h = db.execute("SELECT seq, hash FROM events WHERE kind = 'result' ORDER BY seq DESC LIMIT 1").fetchone()
    db.execute("DELETE FROM events WHERE seq %s ?" % (">" if keep_result else ">="), (seq,))
    db.commit()
    db.close()
    return seq, h


def verify(*args):
    return subprocess.run([PAIZHUO, "hub", "verify"] + list(args), capture_output=True, text=True)


# ---- the kept head and the venue's anchors --------------------------------------------------------

def test_the_hub_keeps_its_head_beside_the_log_at_every_milestone(finished):
    kept = eventlog.read_head(eventlog.head_path(finished.log))
    last = log_entries(finished.log)[-1]
    assert last.kind == "hub_stop"
    assert (kept["hub"], kept["table"], kept["seq"], kept["hash"]) == ("T07", "7", last.seq, last.hash)


def test_a_cut_end_is_found_by_verify_with_the_hubs_kept_head(table):
    ok = verify("--log", table.log)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "reaches the hub's kept head" in ok.stdout
    kept = eventlog.read_head(eventlog.head_path(table.log))
    cut_after_last_result(table.log)
    last = log_entries(table.log)[-1].seq
    bad = verify("--log", table.log)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert ("FAIL the log of table 7 ends at seq %d, but seq %d with hash %s was published"
            % (last, kept["seq"], kept["hash"])) in bad.stdout
    assert "Traceback" not in bad.stderr


def test_a_cut_end_is_found_by_verify_with_the_venues_anchor_file(table, tmp_path):
    # Only the log, without the hub's kept head (lost with the SD card): the venue's anchor speaks.
    log = str(tmp_path / "copy.sqlite")
    shutil.copy(table.log, log)
    entries = log_entries(log)
    result = [e for e in entries if e.kind == "result"][-1]
    anchors = tmp_path / "anchors.json"
    anchors.write_text(json.dumps({"v": 1, "event": "test event", "hubs": {
        "T07": {"table": "7", "seq": result.seq, "hash": result.hash},
        "T08": {"table": "8", "seq": 99, "hash": "f" * 64}}}), encoding="utf-8")
    ok = verify("--log", log, "--anchor", str(anchors))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "reaches the venue's anchor for hub T07: seq %d" % result.seq in ok.stdout
    cut_after_last_result(log)
    bad = verify("--log", log, "--anchor", str(anchors))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert ("FAIL the log of table 7 ends at seq %d, but seq %d with hash %s was acknowledged by the venue"
            % (result.seq - 1, result.seq, result.hash)) in bad.stdout
    # A forger who writes new entries over the cut: the same seq, another hash.
    forged = eventlog.EventLog(log, "7")
    forged.append_many([("note", {"seat": None, "en": "x", "zh": "x"})] * 3)
    forged.close()
    again = verify("--log", log, "--anchor", str(anchors))
    assert again.returncode == 1 and "the log was rewritten after that" in again.stdout, again.stdout
    # Anchors of other hubs only: nothing was checked, and verify says so.
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"v": 1, "event": "e", "hubs": {"T08": {"table": "8", "seq": 1, "hash": "0" * 64}}}))
    none = verify("--log", table.log, "--anchor", str(other))
    assert none.returncode == 1 and "has no head for this log" in none.stdout


@pytest.mark.parametrize("text, says", [
    ("not json", "is not JSON"),
    ('{"v": 1, "event": "e"}', "is not the venue's anchors export"),
    ('{"v": 1, "event": "e", "hubs": {"T07": {"table": "7", "seq": -1, "hash": "00"}}}', "is not a log head"),
])
def test_a_bad_anchor_file_is_refused_with_exit_2(table, tmp_path, text, says):
    anchors = tmp_path / "anchors.json"
    anchors.write_text(text, encoding="utf-8")
    out = verify("--log", table.log, "--anchor", str(anchors))
    assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert any("\u4e00" <= ch <= "\u9fff" for ch in out.stderr)  # the Chinese line too


# ---- the hub's start ---------------------------------------------------------------------------

def test_the_hub_refuses_to_start_on_a_cut_log_and_a_logged_override_starts_it(table):
    kept = eventlog.read_head(eventlog.head_path(table.log))
    cut_after_last_result(table.log)  # board 2's result is gone: the old hub went on as if board 2 were unplayed
    before = open(table.log, "rb").read()
    out = subprocess.run([PAIZHUO, "hub", "--config", table.path], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "cannot be trusted, so the hub does not start" in out.stderr and "--override-log" in out.stderr
    assert "不可信，主机不启动" in out.stderr and "Traceback" not in out.stderr
    assert open(table.log, "rb").read() == before  # nothing was written
    with pytest.raises(TableError) as info:
        asyncio.run(serve(table))
    assert info.value.code == "log_refused"
    # A referee's override: logged first, with the reason and the finding; then the hub plays on.
    asyncio.run(serve(table, until="result", override_log="power cut at table 7, checked by referee Li"))
    entries = log_entries(table.log)
    override = next(e for e in entries if e.kind == "log_override")
    assert override.body["reason"] == "power cut at table 7, checked by referee Li"
    assert override.body["kept"]["seq"] == kept["seq"]
    assert "seq %d with hash %s was published" % (kept["seq"], kept["hash"]) in override.body["problems"][0]
    kinds = [e.kind for e in entries[override.seq - 1:]]
    assert kinds[:3] == ["log_override", "hub_start", "result"]  # board 2's result, recomputed from its actions
    report = verify("--log", table.log)
    assert report.returncode == 0, report.stdout
    assert "a referee started the hub on this log anyway (power cut at table 7" in report.stdout
    assert "2 deal(s) recomputed, all match" in report.stdout
    # The override is spent: the next start needs none.
    asyncio.run(serve(table, until="hub_start"))


def test_the_hub_refuses_to_start_on_a_broken_chain(table):
    db = sqlite3.connect(table.log)
    db.execute("UPDATE events SET at_ms = at_ms + 1 WHERE seq = 5")
    db.commit()
    db.close()
    with pytest.raises(TableError) as info:
        asyncio.run(serve(table))
    assert info.value.code == "log_refused" and "hash chain of table 7 is broken at entry 5" in info.value.en
    assert "哈希链在第 5 条断开" in info.value.zh
    asyncio.run(serve(table, until="hub_start", override_log="edited by the test"))
    override = [e for e in log_entries(table.log) if e.kind == "log_override"]
    assert len(override) == 1 and "broken at entry 5" in override[0].body["problems"][0]
    assert verify("--log", table.log).returncode == 1  # the override does not mend the chain


def test_a_cut_log_is_refused_even_without_a_result_missing(table):
    """Only the stop entry gone (what a referee's hand, not a power cut, does): still short."""
    db = sqlite3.connect(table.log)
    db.execute("DELETE FROM events WHERE seq = (SELECT MAX(seq) FROM events)")
    db.commit()
    db.close()
    with pytest.raises(TableError) as info:
        asyncio.run(serve(table))
    assert "the end of the log is missing" in info.value.en


# ---- the chain on the wire -------------------------------------------------------------------------

def test_outbox_messages_carry_the_log_head_and_the_wire_checks_its_shape(tmp_path):
    from paizhuo.table.uplink import Uplink
    players = "".join('\n[players.%s]\nid = "P%d"\nname = "P%d"\n' % (s, i, i) for i, s in enumerate("ENWS"))
    text = BOTS_TOML + '\n[venue]\nbroker = "127.0.0.1:1"\nevent = "test"\n' + players
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    cfg = config_.load(str(path))

    async def main():
        stop = asyncio.Event()
        table = Table(cfg, transports=[])
        uplink = Uplink(cfg, table)  # never connects (no broker): the outbox keeps what it would send
        seen = []

        def on_entry(e, chained=table.on_entry):
            chained(e)
            if e.kind == "waiting":
                asyncio.get_running_loop().call_soon(stop.set)
            seen.append(e)
        table.on_entry = on_entry
        table._alert("call", seat="E", dev="S-0001", why="test")
        await asyncio.wait_for(table.run(stop), 30)
        msgs = [uplink.outbox.message(n) for n in range(1, uplink.outbox.last + 1)]
        uplink.outbox.close()
        return msgs

    msgs = asyncio.run(main())
    heads = {e.seq: e.hash for e in log_entries(cfg.log)}
    kept = eventlog.read_head(eventlog.head_path(cfg.log))
    kinds = [m["kind"] for m in msgs]
    assert kinds.count("result") == 2 and "alert" in kinds
    for m in msgs:
        chain = m["chain"]
        assert chain["table"] == "7" and (chain["seq"] == 0 or heads[chain["seq"]] == chain["hash"])
        assert chain["seq"] <= kept["seq"]  # the hub's own head is never behind what it sent
        check = wire.check_result if m["kind"] == "result" else wire.check_alert
        assert check(wire.dumps(m))["chain"] == chain
    result = next(m for m in msgs if m["kind"] == "result")
    for bad in ({"table": "7", "seq": 1}, {"table": "7", "seq": -1, "hash": "a" * 64},
                {"table": "7", "seq": 1, "hash": "A" * 64}, {"table": "", "seq": 1, "hash": "a" * 64},
                {"table": "7", "seq": 1, "hash": "a" * 64, "x": 1}, "head", None):
        with pytest.raises(wire.WireError) as info:
            wire.check_result(wire.dumps(dict(result, chain=bad)))
        assert info.value.field.startswith("chain")


# ---- damage: a FAIL line, never a traceback ---------------------------------------------------------

@pytest.fixture(scope="module")
def one_deal(tmp_path_factory):
    """A finished log of one deal: the sweep verifies it hundreds of times."""
    return play(str(tmp_path_factory.mktemp("one")), BOTS_TOML.replace('boards = "1-2"', 'boards = "1"'))


def _run_verify(path):
    """``paizhuo hub verify --log path`` in this process (the command's own code, past its
    argument parsing): (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hub_cli.run(argparse.Namespace(hub_command="verify", log=path, anchor=None))
    return code, out.getvalue(), err.getvalue()


def _rows(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return db.execute("SELECT * FROM events ORDER BY table_id, seq").fetchall()
    finally:
        db.close()


def _intact(path, rows):
    """What SQLite itself says: the file passes integrity_check and holds the same entries."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        try:
            sound = db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return False, False
    try:
        return sound, sound and _rows(path) == rows
    except sqlite3.DatabaseError:  # e.g. text that is no longer UTF-8
        return sound, False


def _clean(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def test_300_bit_flips_each_give_a_verdict_and_every_corrupt_file_fails(one_deal, tmp_path):
    original = open(one_deal.log, "rb").read()
    rows = _rows(one_deal.log)
    rng = random.Random(20261201)
    path = str(tmp_path / "flip.sqlite")
    verdicts = {"intact": 0, "corrupt": 0, "changed": 0}
    for i in range(300):
        bit = rng.randrange(len(original) * 8)
        data = bytearray(original)
        data[bit // 8] ^= 1 << (bit % 8)
        _clean(path)
        with open(path, "wb") as f:
            f.write(data)
        sound, same = _intact(path, rows)
        code, out, err = _run_verify(path)
        where = "flip %d at byte %d bit %d: exit %s\n%s%s" % (i, bit // 8, bit % 8, code, out, err)
        assert code in (0, 1), where  # never "not a log" (2) for a damaged log, never an exception
        if same:
            verdicts["intact"] += 1
            assert code == 0, where
        else:
            verdicts["corrupt" if not sound else "changed"] += 1
            assert code == 1 and "FAIL " in out, where
            if not sound:
                assert "FAIL the database file is damaged (SQLite integrity_check)" in out, where
    # The sweep reaches every kind of outcome, or it tests less than it says.
    print("bit-flip verdicts:", verdicts)
    assert all(verdicts.values()), verdicts


def test_a_raw_byte_in_the_logs_schema_is_a_damaged_file_not_a_traceback(one_deal, tmp_path):
    """SQLite's error then quotes the raw byte, which CPython's sqlite3 cannot decode (found by
    the property test below: UnicodeDecodeError in place of a verdict)."""
    original = open(one_deal.log, "rb").read()
    at = original.index(b"NOT NULL")
    path = str(tmp_path / "schema.sqlite")
    with open(path, "wb") as f:
        f.write(original[:at + 4] + b"\x80" + original[at + 5:])
    code, out, err = _run_verify(path)
    assert code == 1 and "FAIL the database file is damaged" in out, (code, out, err)
    assert "Traceback" not in out + err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_or_truncation_of_a_log_gives_a_verdict_not_a_traceback(one_deal, tmp_path, data):
    original = open(one_deal.log, "rb").read()
    rows = _rows(one_deal.log)
    damaged = bytearray(original)
    if data.draw(st.booleans(), "truncate"):
        damaged = damaged[:data.draw(st.integers(0, len(original) - 1), "length")]
    for _ in range(data.draw(st.integers(0, 4), "edits")):
        if not damaged:
            break
        pos = data.draw(st.integers(0, len(damaged) - 1), "position")
        damaged[pos] = data.draw(st.integers(0, 255), "byte")
    path = str(tmp_path / "damaged.sqlite")
    _clean(path)
    with open(path, "wb") as f:
        f.write(damaged)
    code, out, err = _run_verify(path)
    assert code in (0, 1, 2), (code, out, err)
    if code == 0:
        assert _intact(path, rows) == (True, True), out
    if code == 2:  # nothing left of an SQLite file: refused as not a log, in both languages
        assert "paizhuo hub verify:" in err and any("\u4e00" <= ch <= "\u9fff" for ch in err), err


# ---- inputs that are no log ----------------------------------------------------------------------

def _other_sqlite(path, sql):
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.close()


@pytest.mark.parametrize("make, says", [
    (lambda p: _other_sqlite(p, "CREATE TABLE events (a, b); INSERT INTO events VALUES (1, 2);"),
     "its events table has no table_id"),
    (lambda p: _other_sqlite(p, "CREATE TABLE foo (a);"), "it has no events table"),
    (lambda p: open(p, "w").write("hello, not a database\n" * 40), "is not an SQLite database"),
    (lambda p: open(p, "w").close(), "is empty"),
    (lambda p: os.mkdir(p), "it is a folder"),
    (lambda p: None, "no such file"),
], ids=["another events table", "another sqlite", "text", "empty", "folder", "missing"])
def test_verify_on_something_that_is_no_log_exits_2_in_both_languages(tmp_path, make, says):
    path = str(tmp_path / "x.sqlite")
    make(path)
    out = verify("--log", path)
    assert out.returncode == 2, out.stdout + out.stderr
    assert says in out.stderr and "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 2 and any("\u4e00" <= ch <= "\u9fff" for ch in lines[1]), out.stderr


@pytest.mark.parametrize("log, says, zh", [
    ("logs", "table.log: is a folder", "是一个文件夹"),
    ("missing/table.sqlite", "does not exist", "不存在"),
], ids=["folder", "missing folder"])
def test_a_log_that_is_a_folder_or_in_a_missing_folder_exits_2(tmp_path, log, says, zh):
    (tmp_path / "logs").mkdir()
    path = tmp_path / "table.toml"
    path.write_text(BOTS_TOML.replace('log = "table.sqlite"', 'log = "%s"' % log), encoding="utf-8")
    out = subprocess.run([PAIZHUO, "hub", "--config", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert says in out.stderr and zh in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert not (tmp_path / "missing").exists()
