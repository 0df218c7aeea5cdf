"""The venue's SQLite store: idempotent results, held results, referee adjustments with an audit
trail, standings snapshots, Guandan matches, schema versions — on real SQLite files."""

import doctest
import hashlib
import itertools
import json
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paizhuo.venue import matches as gm
from paizhuo.venue import store as store_mod
from paizhuo.venue.store import SCHEMA_VERSION, Store, StoreError

EVENT = "cup"
HASH = {1: "a1" * 32, 2: "b2" * 32, 3: "c3" * 32}


class Clock:
    """A test clock: every call is one second later, so rows have known, distinct times."""

    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1
        return "2025-05-01T10:%02d:%02d.000+00:00" % divmod(self.n, 60)


def row(board=1, table=1, seat="E", player="p1", score=10, think_ms=1000, rnd=1, group=None, rid=None, deal_hash=None, **extra):
    r = {"event": EVENT, "result_id": rid or "r%d-b%d-t%s-%s" % (rnd, board, table, seat), "round": rnd, "board": board,
         "table": table, "seat": seat, "player": player, "score": score, "think_ms": think_ms,
         "deal_hash": deal_hash or HASH[board]}
    if group is not None:
        r["group"] = group
    r.update(extra)
    return r


def fresh(path=":memory:", boards=(1, 2, 3), groups=(None,)):
    s = Store(path, clock=Clock())
    s.add_event(EVENT, "Spring cup", "bigtwo")
    for g in groups:
        for b in boards:
            s.add_board(EVENT, 1, b, HASH[b], group=g)
    return s


def count(s, table):
    return s._db.execute("SELECT count(*) FROM %s" % table).fetchone()[0]


def test_docstring_examples():
    failed, attempted = doctest.testmod(store_mod, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and attempted > 5


# -- the file -------------------------------------------------------------------------------------

def test_wal_and_reopen_keeps_everything(tmp_path):
    path = tmp_path / "venue.db"
    s = fresh(path)
    assert s.journal_mode() == "wal" and s.schema_version() == SCHEMA_VERSION
    assert s._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    s.add_player(EVENT, "p1", "张三")
    s.set_seating(EVENT, 1, [{"table": 1, "seat": "E", "player": "p1"}, {"table": 1, "seat": "N", "player": "p2"}])
    s.add_result(row())
    s.add_result(row(seat="N", player="p2", score=-10))
    s.add_result(row(board=2, deal_hash="ff" * 32))  # held
    s.adjust("r1-b1-t1-E", "score", 12, who="referee Li", why="slip")
    s.save_standings(EVENT, 1, {"R": [1, 2]})
    s.add_match(EVENT, {"round": 1, "a": "P1", "b": "P2", "a_level": "K", "b_level": "2"})
    s.add_penalty(EVENT, {"side": "P1", "unit": "场分", "points": 1, "reason": "late", "who": "Li", "at": "10:00"})
    before = (s.results(EVENT, include_held=True, detail=True), s.adjustments(), s.audit_log(), s.latest_standings(EVENT),
              s.matches(EVENT), s.penalties(EVENT), s.players(EVENT), s.seating(EVENT, 1), s.boards(EVENT), s.rounds(EVENT),
              s.event(EVENT))
    s.close()
    s2 = Store(path)
    after = (s2.results(EVENT, include_held=True, detail=True), s2.adjustments(), s2.audit_log(), s2.latest_standings(EVENT),
             s2.matches(EVENT), s2.penalties(EVENT), s2.players(EVENT), s2.seating(EVENT, 1), s2.boards(EVENT), s2.rounds(EVENT),
             s2.event(EVENT))
    assert after == before
    assert s2.add_result(row()) == "duplicate"
    s2.close()


def test_a_second_connection_reads_committed_rows(tmp_path):
    path = tmp_path / "venue.db"
    writer = fresh(path)
    reader = Store(path)
    writer.add_result(row())
    assert len(reader.results(EVENT)) == 1
    writer.close()
    reader.close()


def test_newer_schema_is_refused_and_untouched(tmp_path):
    path = tmp_path / "venue.db"
    fresh(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, 'later')", (SCHEMA_VERSION + 1,))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreError) as e:
        Store(path)
    assert e.value.code == "newer_schema"
    assert "version %d" % (SCHEMA_VERSION + 1) in e.value.en and "upgrade paizhuo" in e.value.en
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    with pytest.raises(StoreError) as e:
        Store(path)
    assert e.value.code == "not_a_store"
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, just some words " * 100)
    with pytest.raises(StoreError) as e:
        Store(text)
    assert e.value.code == "not_a_store"


# -- results: validation and idempotency ----------------------------------------------------------

def test_same_result_twice_is_stored_once():
    s = fresh()
    r = row()
    assert s.add_result(r) == "added"
    assert s.add_result(dict(r)) == "duplicate"
    assert s.add_result(dict(reversed(list(r.items())))) == "duplicate"  # key order does not matter
    assert count(s, "results") == 1 and len(s.results(EVENT)) == 1


@pytest.mark.parametrize("change", [{"score": 11}, {"think_ms": 999}, {"player": "p9"}, {"seat": "W"}, {"group": 2},
                                    {"note": "resent"}, {"deal_hash": "00" * 32}])
def test_conflicting_content_is_refused_and_changes_nothing(change):
    s = fresh()
    s.add_result(row())
    snapshot = (s.results(EVENT, include_held=True, detail=True), s.audit_log(), count(s, "results"))
    with pytest.raises(StoreError) as e:
        s.add_result(dict(row(), **change))
    assert e.value.code == "conflict" and "r1-b1-t1-E" in e.value.en and "nothing was changed" in e.value.en
    assert (s.results(EVENT, include_held=True, detail=True), s.audit_log(), count(s, "results")) == snapshot


BAD_ROWS = [
    ({"score": 1.5}, "score"),
    ({"score": "10"}, "score"),
    ({"score": True}, "score"),
    ({"think_ms": -1}, "think_ms"),
    ({"seat": "X"}, "seat"),
    ({"board": 0}, "board"),
    ({"round": 0}, "round"),
    ({"table": 0}, "table"),
    ({"table": ""}, "table"),
    ({"player": ""}, "player"),
    ({"group": ""}, "group"),
    ({"group": True}, "group"),
    ({"result_id": ""}, "result_id"),
    ({"deal_hash": 7}, "deal_hash"),
    ({"event": None}, "event"),
]


@pytest.mark.parametrize("change,field", BAD_ROWS)
def test_bad_rows_are_refused_naming_the_field(change, field):
    s = fresh()
    with pytest.raises(StoreError) as e:
        s.add_result(dict(row(), **change))
    assert e.value.code == "bad_row" and repr(field) in e.value.en
    assert count(s, "results") == 0


def test_missing_fields_and_unknown_event():
    s = fresh()
    r = row()
    del r["think_ms"], r["deal_hash"]
    with pytest.raises(StoreError) as e:
        s.add_result(r)
    assert e.value.code == "bad_row" and "think_ms" in e.value.en and "deal_hash" in e.value.en
    with pytest.raises(StoreError) as e:
        s.add_result(dict(row(), event="nope"))
    assert e.value.code == "unknown_event"
    assert count(s, "results") == 0 and count(s, "rounds") == 1


def test_results_have_the_scoring_shape():
    s = fresh()
    assert s.add_result(row(group="A", table="T7", note="extra fields stay in the raw row")) == "held"  # group A's board unknown
    s.add_board(EVENT, 1, 1, HASH[1], group="A")
    (r,) = s.results(EVENT)
    assert r == {"player": "p1", "board": 1, "seat": "E", "table": "T7", "score": 10, "think_ms": 1000, "group": "A", "round": 1}
    assert json.loads(s._db.execute("SELECT raw FROM results").fetchone()[0])["note"].startswith("extra")


def test_results_feed_the_scoring_module():
    scoring = pytest.importorskip("paizhuo.venue.scoring")
    s = fresh()
    for p, (s1, s2, s3) in zip(("p1", "p2", "p3"), ((15, 11, 18), (7, 11, 51), (21, -3, 18))):
        for board, score in zip((1, 2, 3), (s1, s2, s3)):
            s.add_result(row(board=board, table=int(p[1]), player=p, score=score))
    st_ = scoring.standings(s.results(EVENT))
    data = st_.to_dict()
    got = {p["player"]: p["R"] for p in data["players"]}
    assert got == {"p1": 50.0, "p2": 58.3, "p3": 41.7}   # the seed's worked example


# -- held results ----------------------------------------------------------------------------------

def test_deal_hash_mismatch_is_held_until_released():
    s = fresh()
    assert s.add_result(row(deal_hash="ee" * 32)) == "held"
    assert s.results(EVENT) == [] and len(s.results(EVENT, include_held=True)) == 1
    assert s.result("r1-b1-t1-E")["held_why"] == "deal_hash_mismatch"
    with pytest.raises(StoreError) as e:
        s.release("r1-b1-t1-E", who="referee Li", why="")
    assert e.value.code == "no_reason"
    s.release("r1-b1-t1-E", who="referee Li", why="table 1 replayed the right cards; hash typo in the hub config")
    assert len(s.results(EVENT)) == 1
    s.hold("r1-b1-t1-E", why="player appeal", who="referee Wang")
    assert s.results(EVENT) == []
    actions = [(a["who"], a["action"]) for a in s.audit_log(EVENT)]
    assert actions[-3:] == [("venue", "hold"), ("referee Li", "release"), ("referee Wang", "hold")]


def test_results_before_their_board_wait_for_it():
    s = fresh(boards=(1,))
    assert s.add_result(row(board=2)) == "held"
    assert s.add_result(row(board=3, deal_hash="00" * 32)) == "held"
    assert s.result("r1-b2-t1-E")["held_why"] == "unknown_board"
    s.add_board(EVENT, 1, 2, HASH[2])
    s.add_board(EVENT, 1, 3, HASH[3])
    assert s.result("r1-b2-t1-E")["status"] == "ok"
    assert s.result("r1-b3-t1-E")["held_why"] == "deal_hash_mismatch"


def test_two_results_for_one_seat_are_both_held():
    s = fresh()
    assert s.add_result(row(rid="x1")) == "added"
    assert s.add_result(row(rid="x2", score=99)) == "held"
    assert s.results(EVENT) == []
    assert {s.result(r)["held_why"] for r in ("x1", "x2")} == {"seat_taken"}
    s.release("x2", who="referee Li", why="x1 was the hub's pre-crash copy")
    with pytest.raises(StoreError) as e:
        s.release("x1", who="referee Li", why="both?")
    assert e.value.code == "seat_taken"
    assert [r["score"] for r in s.results(EVENT)] == [99]
    # a third copy later does not unseat the referee's decision
    assert s.add_result(row(rid="x3", score=5)) == "held"
    assert [r["score"] for r in s.results(EVENT)] == [99]


def test_hold_and_release_check_state():
    s = fresh()
    s.add_result(row())
    with pytest.raises(StoreError) as e:
        s.release("r1-b1-t1-E", who="Li", why="x")
    assert e.value.code == "bad_state"
    s.hold("r1-b1-t1-E", why="appeal")
    with pytest.raises(StoreError) as e:
        s.hold("r1-b1-t1-E", why="appeal again")
    assert e.value.code == "bad_state"
    with pytest.raises(StoreError) as e:
        s.hold("nope", why="x")
    assert e.value.code == "not_found"


# -- adjustments -----------------------------------------------------------------------------------

def test_adjustment_records_who_when_why():
    s = fresh()
    s.add_result(row(score=10, think_ms=5000))
    a1 = s.adjust("r1-b1-t1-E", "score", 14, who="referee Li", why="score slip signed by all four players")
    a2 = s.adjust("r1-b1-t1-E", "score", 16, who="chief referee", why="appeal upheld")
    s.adjust("r1-b1-t1-E", "think_ms", 4000, who="referee Li", why="clock paused during a call")
    adj = s.adjustments(result_id="r1-b1-t1-E")
    assert [(a["id"], a["field"], a["old"], a["new"], a["who"]) for a in adj] == [
        (a1, "score", 10, 14, "referee Li"), (a2, "score", 14, 16, "chief referee"), (a1 + 2, "think_ms", 5000, 4000, "referee Li")]
    assert all(a["at"].startswith("2025-05-01T10:") and a["why"] for a in adj)
    assert s.results(EVENT)[0]["score"] == 16 and s.results(EVENT)[0]["think_ms"] == 4000
    # the original row is kept as received
    assert json.loads(s._db.execute("SELECT raw FROM results").fetchone()[0])["score"] == 10
    audit = [a for a in s.audit_log(EVENT) if a["action"] == "adjust"]
    assert [(a["who"], a["detail"]["old"], a["detail"]["new"], a["detail"]["why"]) for a in audit] == [
        ("referee Li", 10, 14, "score slip signed by all four players"), ("chief referee", 14, 16, "appeal upheld"),
        ("referee Li", 5000, 4000, "clock paused during a call")]


@pytest.mark.parametrize("field,new,who,why,code", [
    ("score", 12, "Li", "", "no_reason"),
    ("score", 12, "Li", "   ", "no_reason"),
    ("score", 12, "", "ok", "no_reason"),
    ("score", 1.5, "Li", "ok", "bad_row"),
    ("think_ms", -5, "Li", "ok", "bad_row"),
    ("seat", "W", "Li", "ok", "bad_row"),
    ("score", 10, "Li", "ok", "no_change"),
])
def test_bad_adjustments_change_nothing(field, new, who, why, code):
    s = fresh()
    s.add_result(row(score=10))
    before = (s.results(EVENT), s.audit_log(), s.adjustments())
    with pytest.raises(StoreError) as e:
        s.adjust("r1-b1-t1-E", field, new, who=who, why=why)
    assert e.value.code == code
    assert (s.results(EVENT), s.audit_log(), s.adjustments()) == before


def test_adjusting_an_unknown_result():
    with pytest.raises(StoreError) as e:
        fresh().adjust("nope", "score", 1, who="Li", why="x")
    assert e.value.code == "not_found"


# -- events, seatings, boards, snapshots ------------------------------------------------------------

def test_event_secret_is_kept_only_as_a_hash(tmp_path):
    path = tmp_path / "venue.db"
    s = Store(path)
    secret = "correct horse battery staple 2025"
    assert s.add_event("gd", "Guandan open", "guandan", secret=secret) == "added"
    assert s.add_event("gd", "Guandan open", "guandan", secret=secret) == "duplicate"
    with pytest.raises(StoreError) as e:
        s.add_event("gd", "Guandan open", "guandan", secret="another secret of some length")
    assert e.value.code == "conflict"
    assert s.check_secret("gd", secret) and not s.check_secret("gd", secret + "x")
    s.close()
    for f in tmp_path.iterdir():
        assert secret.encode() not in f.read_bytes()
    with pytest.raises(StoreError):
        Store(":memory:").add_event("x", "x", "guandan", secret="short")
    with pytest.raises(StoreError):
        Store(":memory:").add_event("x", "x", "chess")


def test_seating_is_atomic_and_idempotent():
    s = fresh()
    seats = [{"table": t, "seat": seat, "player": "p%d%s" % (t, seat)} for t in (1, 2) for seat in "ENWS"]
    assert s.set_seating(EVENT, 2, seats) == "added"
    assert s.set_seating(EVENT, 2, list(reversed(seats))) == "duplicate"
    with pytest.raises(StoreError) as e:
        s.set_seating(EVENT, 2, seats[:-1])
    assert e.value.code == "conflict"
    # a player seated twice: refused, and the round is not even created
    with pytest.raises(StoreError) as e:
        s.set_seating(EVENT, 3, [{"table": 1, "seat": "E", "player": "a"}, {"table": 2, "seat": "E", "player": "a"}])
    assert e.value.code == "bad_row"
    assert [r["round"] for r in s.rounds(EVENT)] == [1, 2]
    with pytest.raises(StoreError) as e:
        s.set_seating(EVENT, 3, [{"table": 1, "seat": "Q", "player": "a"}])
    assert "seating row 1" in e.value.en
    assert len(s.seating(EVENT, 2)) == 8


def test_board_hash_cannot_change():
    s = fresh()
    assert s.add_board(EVENT, 1, 1, HASH[1]) == "duplicate"
    with pytest.raises(StoreError) as e:
        s.add_board(EVENT, 1, 1, "00" * 32)
    assert e.value.code == "conflict"


def test_standings_snapshots():
    s = fresh()
    assert s.latest_standings(EVENT) is None
    s.save_standings(EVENT, 1, {"players": ["a", "b"]})
    s.save_standings(EVENT, 2, {"players": ["b", "a"]})
    latest = s.latest_standings(EVENT)
    assert latest["round"] == 2 and latest["data"] == {"players": ["b", "a"]}
    assert [h["round"] for h in s.standings_history(EVENT)] == [1, 2]
    s.close_round(EVENT, 1, who="chief referee")
    assert s.rounds(EVENT)[0]["status"] == "closed"
    with pytest.raises(StoreError):
        s.close_round(EVENT, 1, who="chief referee")


# -- Guandan matches ----------------------------------------------------------------------------------

def test_matches_are_idempotent_and_feed_the_standings():
    s = Store(":memory:")
    s.add_event("gd", "Guandan pairs", "guandan")
    m1 = {"round": 1, "a": "P1", "b": "P2", "a_level": "K", "b_level": "7"}
    assert s.add_match("gd", m1) == "added"
    assert s.add_match("gd", dict(m1)) == "duplicate"
    with pytest.raises(StoreError) as e:
        s.add_match("gd", dict(m1, b_level="8"))
    assert e.value.code == "conflict"
    with pytest.raises(StoreError) as e:
        s.add_match("gd", {"round": 1, "a": "P3", "b": "P1", "a_level": "2", "b_level": "3"})
    assert e.value.code == "side_busy"
    with pytest.raises(StoreError) as e:
        s.add_match("gd", {"round": 1, "a": "P3", "b": "P4", "a_level": "Z", "b_level": "3"})
    assert e.value.code == "bad_row" and "level 'Z'" in e.value.en
    s.add_match("gd", {"round": 1, "a": "P3", "bye": True})
    s.add_penalty("gd", {"side": "P1", "unit": "级差分", "points": 2, "reason": "第三类判罚", "who": "Li", "at": "10:00"})
    table = gm.standings(s.matches("gd"), s.penalties("gd"))
    assert [(r.side, r.changfen, r.jichafen) for r in table.rows] == [("P1", 2, 17), ("P3", 1.5, 17), ("P2", 0, 7)]
    assert [a["action"] for a in s.audit_log("gd")][-1] == "penalty"
    with pytest.raises(StoreError) as e:
        s.add_penalty("gd", {"side": "P1", "unit": "场分", "points": 1, "reason": "", "who": "Li", "at": "10:00"})
    assert e.value.code == "bad_row"


# -- insertion order never matters -------------------------------------------------------------------

slot = st.tuples(st.integers(1, 3), st.integers(1, 3), st.sampled_from("ENWS"))   # board, table, seat


@st.composite
def result_sets(draw):
    """Distinct result ids, some sharing a seat, some with a wrong deal hash; then each sent
    1–3 times in a random order."""
    n = draw(st.integers(1, 14))
    rows = []
    for k in range(n):
        board, table, seat = draw(slot)
        wrong = draw(st.booleans()) and draw(st.booleans())
        rows.append(row(board=board, table=table, seat=seat, player="p%d" % draw(st.integers(1, 9)),
                        score=draw(st.integers(-300, 300)), think_ms=draw(st.integers(0, 10**6)), rid="id%d" % k,
                        deal_hash="de" * 32 if wrong else None, group=draw(st.sampled_from([None, 1, "B"]))))
    sends = [r for r in rows for _ in range(draw(st.integers(1, 3)))]
    return rows, sends


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result_sets(), st.randoms(use_true_random=False))
def test_any_insertion_order_gives_the_same_results(data, rnd):
    rows, sends = data
    s1 = fresh(groups=(None, 1, "B"))
    for r in sends:
        s1.add_result(r)
    shuffled = list(sends)
    rnd.shuffle(shuffled)
    s2 = fresh(groups=(None, 1, "B"))
    for r in shuffled:
        s2.add_result(r)
    assert s1.results(EVENT) == s2.results(EVENT)
    assert s1.results(EVENT, include_held=True, detail=True) == s2.results(EVENT, include_held=True, detail=True)
    assert count(s1, "results") == len(rows)
    # a seat with two result ids never counts; a wrong hash never counts
    counted = s1.results(EVENT, detail=True)
    keys = [(r["group"] if r["group"] is not None else "", r["board"], r["table"], r["seat"]) for r in counted]
    assert len(keys) == len(set(keys))
    assert all(r["deal_hash"] == HASH[r["board"]] for r in counted)


def test_results_order_is_fixed():
    s = fresh()
    rows = [row(board=b, table=t, seat=seat, rid="%d%d%s" % (b, t, seat)) for b, t, seat in
            itertools.product((2, 1), (10, 2), "SWNE")]
    for r in rows:
        s.add_result(r)
    got = [(r["board"], r["table"], r["seat"]) for r in s.results(EVENT)]
    assert got == [(b, t, seat) for b, t, seat in itertools.product((1, 2), (2, 10), "ENWS")]
