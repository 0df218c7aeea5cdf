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
- A chain cannot see its own tail cut off, so its head is **anchored** outside the file: the
  hub keeps the head it last reached at a milestone (a result, a start, a stop) or sent to
  the venue in a small JSON file beside the log (:func:`head_path`, written atomically after
  the entry is committed, so it never runs ahead of the log), and every outbox message carries
  the head too, so the venue holds one as well.  :func:`check_head` says whether a log still
  reaches a kept head; :func:`check_database` runs SQLite's own integrity check.

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
import os
import re
import sqlite3
import time
import urllib.parse

from ..errors import SQLITE_READ_ERRORS, CodedError

__all__ = ["EventLog", "Entry", "ChainReport", "verify_chain", "entry_hash", "GENESIS", "LogError", "head_path",
           "read_head", "write_head", "check_head", "check_database", "open_checked"]

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


def _no_log(path, why):
    return LogError("cannot open the event log %s: %s" % (path, why), "无法打开事件日志 %s：%s" % (path, why), "no_log")


def _connect(path, readonly=False):
    if os.path.isdir(path):  # SQLite says only "disk I/O error" or "unable to open" here
        raise _no_log(path, "it is a folder, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise LogError("cannot open the event log %s: its folder %s does not exist (create it, or give another "
                       "file in [table] log)" % (path, folder),
                       "无法打开事件日志 %s：文件夹 %s 不存在（请先创建，或在 [table] log 中换一个文件）" % (path, folder),
                       "no_log")
    try:
        if readonly:
            # A URI so that mode=ro applies; the path is quoted, so '?' or '#' in a name stay in the name.
            db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path)), uri=True,
                                 isolation_level=None)
            # Damaged text must reach the chain check (whose hashes then differ), not stop the reading.
            db.text_factory = lambda b: b.decode("utf-8", "replace")
        else:
            # Autocommit: every transaction is explicit.  Nothing else should write a table's log;
            # if something holds it locked, a write fails after 1 s rather than stall the table.
            db = sqlite3.connect(path, isolation_level=None, timeout=1.0)
    except sqlite3.Error as e:
        raise _no_log(path, e) from None
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
        except SQLITE_READ_ERRORS as e:
            self.db.close()
            raise LogError("%s is not a usable event log (%s): give a new file name in [table] log"
                           % (path, e), "%s 不是可用的事件日志（%s）：请在 [table] log 中换一个新文件名" % (path, e)) from None
        row = self.db.execute("SELECT seq, hash FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                              (table_id,)).fetchone()
        self.last_seq, self.last_hash = row if row else (0, GENESIS)

    def now_ms(self):
        return self._now_ms()

    @property
    def head(self):
        """The head of this table's chain, as outbox messages carry it: ``{"table", "seq", "hash"}``."""
        return {"table": self.table_id, "seq": self.last_seq, "hash": self.last_hash}

    def problems(self):
        """What makes this table's log unsafe to append to: SQLite's quick check of the file and
        this table's hash chain.  ``[(en, zh)]``, empty when both are sound."""
        try:
            bad = [str(r[0]) for r in self.db.execute("PRAGMA quick_check").fetchall() if r[0] != "ok"]
            if bad:
                return [("SQLite finds the file damaged: %s" % "; ".join(bad[:3]),
                         "SQLite 发现文件已损坏：%s" % "；".join(bad[:3]))]
            n, seq, problem = _walk(self.db, self.table_id)
        except SQLITE_READ_ERRORS as e:
            return [("SQLite cannot read the file: %s" % e, "SQLite 无法读取该文件：%s" % e)]
        if problem is not None:
            return [("the hash chain of table %s is broken at entry %s: %s" % (self.table_id, seq, problem),
                     "牌桌 %s 的哈希链在第 %s 条断开：%s" % (self.table_id, seq, problem))]
        return []

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


def read_entries(db, table_id, after_seq=None):
    """The table's entries in order (``after_seq``: only those after that seq, for a reader
    that follows the log)."""
    rows = db.execute(
        "SELECT rowid, table_id, seq, at_ms, kind, body_json, prev_hash, hash FROM events "
        "WHERE table_id = ? AND seq > ? ORDER BY seq", (table_id, -1 if after_seq is None else after_seq)).fetchall()
    return [_entry(r) for r in rows]


SQLITE_MAGIC = b"SQLite format 3\x00"
_COLUMNS = ("table_id", "seq", "at_ms", "kind", "body_json", "prev_hash", "hash")
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")


def _sniff(path):
    """LogError unless ``path`` is a file that is an SQLite database, or one whose header a bit or
    two of damage changed (that is a damaged log, for :func:`check_database` to report)."""
    if os.path.isdir(path):
        raise _no_log(path, "it is a folder, not a file")
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise _no_log(path, "no such file") from None
    except OSError as e:
        raise _no_log(path, e.strerror or e) from None
    if not head:  # SQLite would take an empty file for an empty database
        raise LogError("%s is empty: it is not a paizhuo event log" % path, "%s 是空文件，不是 paizhuo 事件日志" % path,
                       "not_log")
    flipped = sum(bin(a ^ b).count("1") for a, b in zip(head, SQLITE_MAGIC)) + 8 * (len(SQLITE_MAGIC) - len(head))
    if flipped > 2:
        raise LogError("%s is not an SQLite database, so not a paizhuo event log" % path,
                       "%s 不是 SQLite 数据库，因此不是 paizhuo 事件日志" % path, "not_log")
    return flipped == 0


def open_readonly(path):
    """Open a log file for reading (verify, audit); LogError if it is not one (another file, an
    SQLite file of another shape)."""
    _sniff(path)
    db = _connect(path, readonly=True)
    try:
        cols = {r[1] for r in db.execute("PRAGMA table_info(events)")}
        if not cols:
            raise LogError("%s is not a paizhuo event log (it has no events table)" % path,
                           "%s 不是 paizhuo 事件日志（没有 events 表）" % path, "not_log")
        missing = [c for c in _COLUMNS if c not in cols]
        if missing:
            raise LogError("%s is not a paizhuo event log (its events table has no %s)" % (path, ", ".join(missing)),
                           "%s 不是 paizhuo 事件日志（其 events 表缺少 %s）" % (path, "、".join(missing)), "not_log")
        db.execute("SELECT 1 FROM events LIMIT 1").fetchall()
    except SQLITE_READ_ERRORS as e:
        db.close()
        raise LogError("%s is not a paizhuo event log (%s)" % (path, e), "%s 不是 paizhuo 事件日志（%s）" % (path, e),
                       "not_log") from None
    except LogError:
        db.close()
        raise
    return db


def check_database(path):
    """SQLite's own ``PRAGMA integrity_check`` of the file: a list of what it found wrong,
    empty when the file is sound.  A header damaged past reading is one finding too; a file
    that is no SQLite database at all (or missing) is a LogError."""
    if not _sniff(path):
        return ["the file's SQLite header is damaged"]
    db = _connect(path, readonly=True)
    try:
        rows = db.execute("PRAGMA integrity_check").fetchall()
    except SQLITE_READ_ERRORS as e:
        return ["SQLite cannot read the file: %s" % e]
    finally:
        db.close()
    return [str(r[0]) for r in rows if r[0] != "ok"]


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


def _walk(db, tid):
    """Walk one table's chain: ``(entries, None, None)`` when intact, else ``(n, seq, problem)``
    at the first broken link.  Damage may give any column any type: each is checked first."""
    prev = GENESIS
    n = 0
    if not isinstance(tid, str):
        return n, None, "a table id is not text (%.40r): the file is damaged" % (tid,)
    for row in db.execute("SELECT seq, at_ms, kind, body_json, prev_hash, hash FROM events "
                          "WHERE table_id = ? ORDER BY seq", (tid,)):
        seq, at, kind, text, prev_hash, h = row
        n += 1
        if type(seq) is not int or type(at) is not int or not all(isinstance(v, str) for v in (kind, text, prev_hash, h)):
            return n, seq, "a field has the wrong type (%s): the file is damaged" % ", ".join(
                "%s %s" % (name, type(v).__name__) for name, v in zip(("seq", "at_ms", "kind", "body", "prev_hash",
                                                                      "hash"), row))
        if seq != n:
            return n, seq, "sequence jumps from %d to %d (an entry is missing)" % (n - 1, seq)
        if prev_hash != prev:
            return n, seq, "prev_hash does not match the hash of entry %d" % (seq - 1)
        try:
            body = json.loads(text)
        except ValueError:
            return n, seq, "the body is not JSON"
        if canonical(body) != text:
            return n, seq, "the body is not in canonical form (it was edited)"
        if entry_hash(prev, tid, seq, at, kind, body) != h:
            return n, seq, "the hash does not match the entry (it was edited)"
        prev = h
    return n, None, None


def verify_chain(path):
    """Walk every table's chain in ``path``; report the first broken link (or ``ok``).  A file
    SQLite cannot read to the end is a broken chain too, never an exception."""
    db = open_readonly(path)
    counts = {}
    tid = None
    try:
        for tid in table_ids(db):
            n, seq, problem = _walk(db, tid)
            if problem is not None:
                return ChainReport(False, counts, tid, seq, problem)
            counts[tid] = n
        return ChainReport(True, counts)
    except SQLITE_READ_ERRORS as e:
        return ChainReport(False, counts, tid, None, "SQLite cannot read the log: %s" % e)
    finally:
        db.close()


# ---- the anchored head ----------------------------------------------------------------------

def head_path(log_path):
    """Where a hub keeps the head of its log: ``<log without extension>-head.json`` beside it."""
    return os.path.splitext(str(log_path))[0] + "-head.json"


def check_head_fields(obj, where):
    """``(table, seq, hash)`` of a head ``{"table", "seq", "hash"}`` (the form of the kept head,
    the ``chain`` of an outbox message and the venue's anchors); LogError naming ``where``."""
    ok = (isinstance(obj, dict) and isinstance(obj.get("table"), str) and obj["table"]
          and type(obj.get("seq")) is int and obj["seq"] >= 0 and isinstance(obj.get("hash"), str)
          and _HEX64.match(obj["hash"]))
    if not ok:
        raise LogError("%s is not a log head {\"table\": text, \"seq\": n, \"hash\": 64 hex}: %.80r" % (where, obj),
                       "%s 不是日志链头 {\"table\", \"seq\", \"hash\"}：%.80r" % (where, obj), "bad_head")
    return obj["table"], obj["seq"], obj["hash"]


def _read_json(path, what_en, what_zh):
    try:
        with open(path, "rb") as f:
            data = f.read(4 * 1024 * 1024)
    except OSError as e:
        raise LogError("cannot read the %s %s: %s" % (what_en, path, e.strerror or e),
                       "无法读取%s %s：%s" % (what_zh, path, e.strerror or e), "bad_head") from None
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError as e:
        raise LogError("the %s %s is not JSON: %s" % (what_en, path, e),
                       "%s %s 不是 JSON：%s" % (what_zh, path, e), "bad_head") from None


def read_head(path):
    """The head kept in ``path`` as ``{"v", "hub", "table", "seq", "hash"}``, or None when there
    is no such file; LogError when it cannot be read or is not a head."""
    if not os.path.lexists(path):
        return None
    obj = _read_json(path, "kept log head", "日志链头文件")
    if not isinstance(obj, dict) or obj.get("v") != 1:
        raise LogError("the kept log head %s is not a version-1 head file" % path,
                       "日志链头文件 %s 不是第 1 版格式" % path, "bad_head")
    check_head_fields(obj, "the kept log head %s" % path)
    return obj


def write_head(path, hub, table, seq, hash):
    """Keep ``(table, seq, hash)`` in ``path`` atomically: a whole new file or the old one,
    never half of one, on disk before this returns."""
    data = json.dumps({"v": 1, "hub": hub, "table": table, "seq": seq, "hash": hash}, ensure_ascii=False,
                      sort_keys=True).encode("utf-8") + b"\n"
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a power cut
    finally:
        os.close(folder)


def read_anchors(path):
    """The venue's anchors export ``{"v": 1, "event", "hubs": {hub: {"table", "seq", "hash"}}}``
    as ``{hub: (table, seq, hash)}``; LogError when it is not one."""
    obj = _read_json(path, "anchor file", "锚点文件")
    if not isinstance(obj, dict) or obj.get("v") != 1 or not isinstance(obj.get("hubs"), dict):
        raise LogError("the anchor file %s is not the venue's anchors export {\"v\": 1, \"event\", \"hubs\": {…}} "
                       "(paizhuo venue anchors)" % path,
                       "锚点文件 %s 不是场馆导出的锚点格式（paizhuo venue anchors）" % path, "bad_anchor")
    return {str(hub): check_head_fields(head, "hub %s in the anchor file %s" % (hub, path))
            for hub, head in obj["hubs"].items()}


def check_head(db, table, seq, hash, what, what_zh):
    """Does the log in ``db`` still reach the head ``(seq, hash)`` of ``table``?  None if it does,
    else ``(en, zh)`` saying where it stops short or differs.  ``what``/``what_zh`` say who
    holds the head (e.g. ``"published (the hub's kept head x-head.json)"``)."""
    if seq == 0:
        return None
    row = db.execute("SELECT hash FROM events WHERE table_id = ? AND seq = ?", (table, seq)).fetchone()
    last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?", (table,)).fetchone()[0]
    if row is None and type(last) is int and last < seq:
        return ("the log of table %s ends at seq %d, but seq %d with hash %s was %s: the end of the log is missing"
                % (table, last, seq, hash, what),
                "牌桌 %s 的日志止于第 %d 条，但第 %d 条（哈希 %s）已经%s：日志的末尾缺失"
                % (table, last, seq, hash, what_zh))
    if row is None or row[0] != hash:
        return ("entry %d of table %s has hash %s, but seq %d was %s with hash %s: the log was rewritten after that"
                % (seq, table, None if row is None else row[0], seq, what, hash),
                "牌桌 %s 第 %d 条的哈希为 %s，但已%s的第 %d 条哈希为 %s：日志在此之后被改写"
                % (table, seq, None if row is None else row[0], what_zh, seq, hash))
    return None
