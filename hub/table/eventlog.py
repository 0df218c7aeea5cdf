"""The table's event log: SQLite, hash-chained, written before anything is announced.

Every accepted action, every clock start, every deal's start and result, seat connects and
drops, calls to the referee and reject summaries go into one table::

    events(table_id, seq, at_ms, kind, body_json, prev_hash, hash)   PRIMARY KEY (table_id, seq)

- The database runs in WAL mode with ``synchronous=FULL``: a committed entry survives a
  power cut or ``kill -9``.  Each append is one explicit transaction (``BEGIN IMMEDIATE``),
  so a duplicate ``seq`` is a database error, never a silent overwrite.
- Entries are chained: ``hash = sha256(prev_hash + canonical(entry))`` where ``canonical`` is
  sorted-key compact JSON of ``{"table", "seq", "at_ms", "kind", "body"}`` — the header is
  covered too, so a changed time or kind breaks the chain like a changed body.  The first
  entry's ``prev_hash`` is 64 zeros.  :func:`verify_chain` walks it and names the first
  broken link.
- ``rowid`` is the global cursor a later uplink reads from (:meth:`EventLog.since`).
- A second small table, ``clock_marks``, holds the running clock's remaining time, saved
  every ``checkpoint_seconds``.  It is operational state outside the chain: it only tells a
  restarted hub how much time the player had left when the hub died.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> log = EventLog(os.path.join(d, "t.sqlite"), "7", now_ms=lambda: 1000)
>>> log.append("hub_start", {"hub": "T07"}).seq
1
>>> [e.kind for e in log.entries()]
['hub_start']
>>> verify_chain(log.path).ok
True
>>> log.close()
"""

import hashlib
import json
import sqlite3
import time

from ..errors import CodedError

__all__ = ["EventLog", "Entry", "ChainReport", "verify_chain", "entry_hash", "GENESIS", "LogError"]

GENESIS = "0" * 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id  TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    at_ms     INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    body_json TEXT    NOT NULL,
    prev_hash TEXT    NOT NULL,
    hash      TEXT    NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS clock_marks (
    table_id     TEXT    PRIMARY KEY,
    clock_seq    INTEGER NOT NULL,
    at_ms        INTEGER NOT NULL,
    remaining_ms INTEGER NOT NULL
);
"""


class LogError(CodedError):
    """The log file cannot be used (not a paizhuo log, unreadable, a broken chain on open)."""

    def __init__(self, en, zh, code="bad_log"):
        super().__init__(code, en, zh)


def canonical(obj):
    """Sorted-key compact JSON, UTF-8 kept: the exact text the hash covers."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(prev_hash, table_id, seq, at_ms, kind, body):
    """``sha256(prev_hash + canonical({"table", "seq", "at_ms", "kind", "body"}))`` as hex.

    Anyone can recompute it with any SHA-256 tool:

    >>> doc = '{"at_ms":0,"body":{},"kind":"x","seq":1,"table":"7"}'
    >>> entry_hash(GENESIS, "7", 1, 0, "x", {}) == hashlib.sha256((GENESIS + doc).encode()).hexdigest()
    True
    """
    doc = canonical({"table": table_id, "seq": seq, "at_ms": at_ms, "kind": kind, "body": body})
    return hashlib.sha256((prev_hash + doc).encode("utf-8")).hexdigest()


class Entry:
    """One logged event.  ``body`` is the parsed JSON; ``rowid`` is the global cursor."""

    __slots__ = ("rowid", "table_id", "seq", "at_ms", "kind", "body", "prev_hash", "hash")

    def __init__(self, rowid, table_id, seq, at_ms, kind, body, prev_hash, hash):
        self.rowid = rowid
        self.table_id = table_id
        self.seq = seq
        self.at_ms = at_ms
        self.kind = kind
        self.body = body
        self.prev_hash = prev_hash
        self.hash = hash

    def to_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return "Entry(%s#%d %s)" % (self.table_id, self.seq, self.kind)


def _connect(path, readonly=False):
    if readonly:
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, isolation_level=None)
        except sqlite3.OperationalError as e:
            raise LogError("cannot open the event log %s: %s" % (path, e),
                           "无法打开事件日志 %s：%s" % (path, e), "no_log") from None
    else:
        # Autocommit: every transaction is explicit.  Nothing else should write a table's log;
        # if something holds it locked, a write fails after 1 s rather than stall the table.
        db = sqlite3.connect(path, isolation_level=None, timeout=1.0)
    return db


class EventLog:
    """The event log of one table in one SQLite file (several tables may share a file).

    ``now_ms`` gives the wall time in milliseconds (tests pass a fixed one).
    """

    def __init__(self, path, table_id, now_ms=None):
        self.path = path
        self.table_id = table_id
        self._now_ms = now_ms or (lambda: int(time.time() * 1000))
        self.db = _connect(path)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise LogError("%s is not a usable event log (%s): give a new file name in [table] log"
                           % (path, e), "%s 不是可用的事件日志（%s）：请在 [table] log 中换一个新文件名" % (path, e)) from None
        row = self.db.execute("SELECT seq, hash FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                              (table_id,)).fetchone()
        self.last_seq, self.last_hash = row if row else (0, GENESIS)

    def now_ms(self):
        return self._now_ms()

    def append(self, kind, body):
        """Write one entry durably (one transaction) and return it."""
        return self.append_many([(kind, body)])[-1]

    def append_many(self, items):
        """Write several entries in **one** transaction (all or none) and return them.

        The hub writes an action together with the clock of the next decision (and the
        result when the deal ends), so a crash can never leave half of that step logged.
        """
        at = self.now_ms()
        out = []
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT seq, hash FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                             (self.table_id,)).fetchone()
            seq, prev = row if row else (0, GENESIS)
            for kind, body in items:
                seq += 1
                text = canonical(body)
                h = entry_hash(prev, self.table_id, seq, at, kind, json.loads(text))
                cur = db.execute(
                    "INSERT INTO events (table_id, seq, at_ms, kind, body_json, prev_hash, hash) VALUES (?,?,?,?,?,?,?)",
                    (self.table_id, seq, at, kind, text, prev, h))
                out.append(Entry(cur.lastrowid, self.table_id, seq, at, kind, json.loads(text), prev, h))
                prev = h
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.last_seq, self.last_hash = seq, prev
        return out

    def mark_clock(self, clock_seq, remaining_ms):
        """Save the running clock's remaining time (outside the chain; see the module doc)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(
                "INSERT INTO clock_marks (table_id, clock_seq, at_ms, remaining_ms) VALUES (?,?,?,?) "
                "ON CONFLICT(table_id) DO UPDATE SET clock_seq=excluded.clock_seq, at_ms=excluded.at_ms, "
                "remaining_ms=excluded.remaining_ms",
                (self.table_id, clock_seq, self.now_ms(), int(remaining_ms)))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def clock_mark(self):
        """``(clock_seq, at_ms, remaining_ms)`` of the last saved clock, or None."""
        return self.db.execute("SELECT clock_seq, at_ms, remaining_ms FROM clock_marks WHERE table_id = ?",
                               (self.table_id,)).fetchone()

    def entries(self):
        """This table's entries in order."""
        return read_entries(self.db, self.table_id)

    def since(self, rowid, limit=1000):
        """Entries of every table after the global cursor ``rowid`` (for an uplink)."""
        rows = self.db.execute(
            "SELECT rowid, table_id, seq, at_ms, kind, body_json, prev_hash, hash FROM events "
            "WHERE rowid > ? ORDER BY rowid LIMIT ?", (rowid, limit)).fetchall()
        return [_entry(r) for r in rows]

    def close(self):
        self.db.close()


def _entry(r):
    try:
        body = json.loads(r[5])
    except ValueError:
        body = {"unreadable": r[5]}
    return Entry(r[0], r[1], r[2], r[3], r[4], body, r[6], r[7])


def read_entries(db, table_id):
    rows = db.execute(
        "SELECT rowid, table_id, seq, at_ms, kind, body_json, prev_hash, hash FROM events "
        "WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
    return [_entry(r) for r in rows]


def open_readonly(path):
    """Open a log file for reading (verify, audit); LogError if it is not one."""
    db = _connect(path, readonly=True)
    try:
        db.execute("SELECT 1 FROM events LIMIT 1").fetchall()
    except sqlite3.DatabaseError as e:
        db.close()
        raise LogError("%s is not a paizhuo event log (%s)" % (path, e), "%s 不是 paizhuo 事件日志（%s）" % (path, e)) from None
    return db


def table_ids(db):
    return [r[0] for r in db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")]


class ChainReport:
    """The outcome of walking a log's hash chains: ``ok``, entries per table, the first break."""

    __slots__ = ("ok", "counts", "table_id", "seq", "problem")

    def __init__(self, ok, counts, table_id=None, seq=None, problem=None):
        self.ok = ok
        self.counts = counts
        self.table_id = table_id
        self.seq = seq
        self.problem = problem

    def __str__(self):
        if self.ok:
            return "hash chain intact: %s" % ", ".join("table %s %d entries" % kv for kv in sorted(self.counts.items()))
        return "hash chain broken at table %s entry %s: %s" % (self.table_id, self.seq, self.problem)


def verify_chain(path):
    """Walk every table's chain in ``path``; report the first broken link (or ``ok``)."""
    db = open_readonly(path)
    try:
        counts = {}
        for tid in table_ids(db):
            prev = GENESIS
            n = 0
            for row in db.execute("SELECT seq, at_ms, kind, body_json, prev_hash, hash FROM events "
                                  "WHERE table_id = ? ORDER BY seq", (tid,)):
                seq, at, kind, text, prev_hash, h = row
                n += 1
                if seq != n:
                    return ChainReport(False, counts, tid, seq, "sequence jumps from %d to %d (an entry is missing)"
                                       % (n - 1, seq))
                if prev_hash != prev:
                    return ChainReport(False, counts, tid, seq, "prev_hash does not match the hash of entry %d" % (seq - 1))
                try:
                    body = json.loads(text)
                except ValueError:
                    return ChainReport(False, counts, tid, seq, "the body is not JSON")
                if canonical(body) != text:
                    return ChainReport(False, counts, tid, seq, "the body is not in canonical form (it was edited)")
                if entry_hash(prev, tid, seq, at, kind, body) != h:
                    return ChainReport(False, counts, tid, seq, "the hash does not match the entry (it was edited)")
                prev = h
            counts[tid] = n
        return ChainReport(True, counts)
    finally:
        db.close()
