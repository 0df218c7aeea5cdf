"""The hub's outbox: results and alerts kept on disk until the venue acknowledges them.

Each message gets a cursor ``n`` (1, 2, 3, … with no gaps, shared by results and alerts) and the
outbox file's ``epoch`` (16 hex digits made once when the file is created).  The venue stores
what it receives and acknowledges the highest **contiguous** ``n`` for ``(hub, epoch)``; the hub
marks everything up to there as done and re-sends the rest on every reconnect.  A new outbox file
(a replaced SD card, a fresh hub) has a new epoch, so the venue's cursor for the old file can
never swallow the new file's messages.

Messages are put under a caller's ``key`` (a result id, an alert id): putting the same key again
changes nothing, which is what lets the hub rescan its event log after a crash and put every
result again without sending any twice.

SQLite in WAL mode with ``synchronous=FULL``: a message ``put`` has returned is on disk.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "T07-outbox.sqlite")
    >>> box = Outbox(path)
    >>> box.put("T07/7/r1/g1/b1", "paizhuo/v1/demo/hub/T07/result", {"v": 1, "kind": "result"})
    1
    >>> box.put("T07/7/r1/g1/b1", "paizhuo/v1/demo/hub/T07/result", {"v": 1, "kind": "result"}) is None
    True
    >>> box.put("alert-1", "paizhuo/v1/demo/hub/T07/alert", {"v": 1, "kind": "alert"})
    2
    >>> [(n, topic.rsplit("/", 1)[1]) for n, topic, payload in box.pending()]
    [(1, 'result'), (2, 'alert')]
    >>> box.ack(box.epoch, 1), box.unacked
    (1, 1)
    >>> box.ack("ffffffffffffffff", 2), box.unacked      # another outbox's ack: ignored
    (0, 1)
    >>> box.close()
"""

import json
import os
import sqlite3

from ..errors import CodedError
from . import wire

__all__ = ["Outbox", "OutboxError"]

_KIND = "paizhuo-outbox"
_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    n INTEGER PRIMARY KEY,            -- the cursor: 1, 2, 3, … never reused, never skipped
    key TEXT NOT NULL UNIQUE,         -- the caller's id: a second put of the same key is ignored
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,            -- exactly the bytes sent (with "epoch" and "n")
    acked INTEGER NOT NULL DEFAULT 0  -- 1 once the venue acknowledged it (kept for the record)
);
CREATE INDEX IF NOT EXISTS messages_unacked ON messages (acked, n);
"""


class OutboxError(CodedError):
    """The outbox cannot do what was asked (the file is not an outbox, a bad message, an ack ahead of it)."""


class Outbox:
    """A persistent outbox at ``path`` (created if missing).  See the module docstring."""

    def __init__(self, path):
        self.path = str(path)
        self._db = None
        try:
            # isolation_level=None: we write BEGIN/COMMIT ourselves, so a put is one explicit transaction
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self.epoch = self._open()
        except sqlite3.DatabaseError as e:
            if self._db is not None:
                self._db.close()
            raise OutboxError("bad_outbox", "%s is not a usable outbox file: %s — move it aside and restart the hub "
                              "(unsent results are also in the table log)" % (self.path, e),
                              "%s 不是可用的发件箱文件：%s —— 请移开该文件后重启 hub（未发送的成绩仍在牌桌日志中）"
                              % (self.path, e)) from None

    def _open(self):
        db = self._db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            self._db.close()
            raise OutboxError("not_outbox", "%s holds other tables (%s), not an outbox: give the outbox its own file"
                              % (self.path, ", ".join(sorted(tables))),
                              "%s 中是其他数据表（%s），不是发件箱：请为发件箱使用单独的文件"
                              % (self.path, ", ".join(sorted(tables))))
        db.execute("BEGIN IMMEDIATE")
        try:
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    db.execute(stmt)
            meta = dict(db.execute("SELECT name, value FROM meta"))
            if not meta:
                meta = {"kind": _KIND, "version": _VERSION, "epoch": os.urandom(8).hex()}
                db.executemany("INSERT INTO meta (name, value) VALUES (?, ?)", sorted(meta.items()))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if meta.get("kind") != _KIND or meta.get("version") != _VERSION:
            self._db.close()
            raise OutboxError("not_outbox", "%s is not a version-%s paizhuo outbox (kind %r, version %r)"
                              % (self.path, _VERSION, meta.get("kind"), meta.get("version")),
                              "%s 不是第 %s 版 paizhuo 发件箱" % (self.path, _VERSION))
        return meta["epoch"]

    # ---- writing ---------------------------------------------------------------------------

    def put(self, key, topic, payload):
        """Store ``payload`` (a dict) for ``topic`` under ``key``; returns its cursor ``n``, or
        ``None`` when ``key`` is already in the outbox (nothing changes).  The stored body is
        ``payload`` plus ``"epoch"`` and ``"n"``."""
        if not isinstance(key, str) or not key:
            raise OutboxError("bad_message", "an outbox key must be non-empty text, not %r" % (key,),
                              "发件箱键必须是非空文本")
        if not isinstance(topic, str) or not topic:
            raise OutboxError("bad_message", "an outbox topic must be non-empty text, not %r" % (topic,),
                              "发件箱主题必须是非空文本")
        if not isinstance(payload, dict) or "epoch" in payload or "n" in payload:
            raise OutboxError("bad_message", "an outbox message is a dict without 'epoch' and 'n' (the outbox adds "
                              "them), not %.80r" % (payload,), "发件箱消息必须是不含 epoch 和 n 的字典（由发件箱添加）")
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT 1 FROM messages WHERE key = ?", (key,)).fetchone():
                db.execute("ROLLBACK")
                return None
            n = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM messages").fetchone()[0]
            data = wire.dumps(dict(payload, epoch=self.epoch, n=n))   # WireError (too big, not JSON): nothing stored
            db.execute("INSERT INTO messages (n, key, topic, payload) VALUES (?, ?, ?, ?)", (n, key, topic, data))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return n

    def ack(self, epoch, upto):
        """The venue has everything of ``epoch`` up to ``upto``: mark it done; returns how many
        messages this ack newly covered.  Another epoch's ack is ignored (0); an ack beyond the
        last message raises :class:`OutboxError` and changes nothing."""
        if type(upto) is not int or upto < 0:
            raise OutboxError("bad_ack", "ack upto must be an integer of 0 or more, not %r" % (upto,),
                              "确认游标必须是不小于 0 的整数，而不是 %r" % (upto,))
        if epoch != self.epoch:
            return 0
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            last = db.execute("SELECT COALESCE(MAX(n), 0) FROM messages").fetchone()[0]
            if upto > last:
                raise OutboxError("ack_ahead", "the venue acknowledged up to %d but this outbox (epoch %s) has only "
                                  "%d messages: ignored — is another hub using this outbox's epoch?"
                                  % (upto, self.epoch, last),
                                  "场馆确认到第 %d 条，但本发件箱（epoch %s）只有 %d 条：已忽略"
                                  % (upto, self.epoch, last))
            count = db.execute("UPDATE messages SET acked = 1 WHERE n <= ? AND acked = 0", (upto,)).rowcount
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return count

    # ---- reading ---------------------------------------------------------------------------

    def pending(self):
        """``[(n, topic, payload_bytes)]`` of every unacknowledged message, oldest first."""
        return [(n, topic, bytes(payload)) for n, topic, payload in
                self._db.execute("SELECT n, topic, payload FROM messages WHERE acked = 0 ORDER BY n")]

    def get(self, key):
        """``(n, topic, payload_bytes, acked)`` stored under ``key``, or ``None``."""
        row = self._db.execute("SELECT n, topic, payload, acked FROM messages WHERE key = ?", (key,)).fetchone()
        return None if row is None else (row[0], row[1], bytes(row[2]), bool(row[3]))

    @property
    def unacked(self):
        """How many messages wait for the venue's acknowledgement."""
        return self._db.execute("SELECT COUNT(*) FROM messages WHERE acked = 0").fetchone()[0]

    @property
    def last(self):
        """The highest cursor given out (0 for an empty outbox)."""
        return self._db.execute("SELECT COALESCE(MAX(n), 0) FROM messages").fetchone()[0]

    @property
    def acked_upto(self):
        """The highest ``n`` with everything up to it acknowledged."""
        row = self._db.execute("SELECT MIN(n) FROM messages WHERE acked = 0").fetchone()[0]
        return self.last if row is None else row - 1

    def message(self, n):
        """The stored body of message ``n`` as a dict (for logs and tests), or ``None``."""
        row = self._db.execute("SELECT payload FROM messages WHERE n = ?", (n,)).fetchone()
        return None if row is None else json.loads(bytes(row[0]))

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
