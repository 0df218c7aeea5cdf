"""The venue's SQLite store: events, players, rounds, seatings, boards, results, adjustments,
standings snapshots, a match game's matches and penalties, and an audit log.

One file per venue, standard-library :mod:`sqlite3`, WAL journal with ``synchronous=FULL``
(an acknowledged result survives a power cut), explicit ``BEGIN IMMEDIATE`` transactions (a
refused call changes nothing).  One :class:`Store` per thread.

Results are stored idempotently by ``result_id``: the hub's outbox re-sends until the venue
acknowledges, so the same result may arrive many times.

>>> st = Store(":memory:", clock=lambda: "2025-05-01T10:00:00.000+00:00")
>>> from paizhuo.rules import DEFAULT_GAME
>>> st.add_event("demo", "Demo cup", DEFAULT_GAME)
'added'
>>> st.add_board("demo", 1, 1, "ab12")
'added'
>>> row = {"event": "demo", "result_id": "T1-r1-b1-E", "round": 1, "board": 1, "table": 1, "seat": "E",
...        "player": "p01", "score": 136, "think_ms": 41000, "deal_hash": "ab12"}
>>> st.add_result(row), st.add_result(row)
('added', 'duplicate')
>>> st.results("demo")
[{'player': 'p01', 'board': 1, 'seat': 'E', 'table': 1, 'score': 136, 'think_ms': 41000, 'group': None, 'round': 1}]
>>> st.add_result(dict(row, score=135))
Traceback (most recent call last):
...
paizhuo.venue.store.StoreError: result T1-r1-b1-E is already stored with different content (score: 136 ≠ 135); nothing was changed — a corrected result needs a new result_id or a referee adjustment
>>> _ = st.adjust("T1-r1-b1-E", "score", 140, who="referee Li", why="score slip signed by all four")
>>> st.results("demo")[0]["score"]
140
"""

import hashlib
import hmac
import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone

from . import matches as matches_mod
from .. import rules as rules_
from ..errors import SQLITE_READ_ERRORS, CodedError

__all__ = ["Store", "StoreError", "SCHEMA_VERSION", "SEATS", "GAMES", "ADJUSTABLE", "read_anchors"]

SCHEMA_VERSION = 3
SEATS = ("E", "N", "W", "S")
GAMES = tuple(sorted(rules_.DEALING))  # every game the registry deals, engine or not
ADJUSTABLE = ("score", "think_ms", "player")  # what a referee may correct on a stored result
OK, HELD = "ok", "held"
MAX_RAW = 16 * 1024  # a result row larger than this is refused (a real one is ~300 bytes)
PBKDF2_ROUNDS = 200_000
MAX_REFUSAL_BYTES = 64 * 1024  # a refused payload is kept up to this size (the wire limit is 256 KB)

_SCHEMA_V1 = """
CREATE TABLE schema_version (
    version     INTEGER PRIMARY KEY,
    applied_at  TEXT NOT NULL
);
CREATE TABLE events (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    game        TEXT NOT NULL,
    secret_hash TEXT,            -- pbkdf2-sha256$rounds$salt$hash of the deal secret, never the secret
    created_at  TEXT NOT NULL
);
CREATE TABLE players (
    event       TEXT NOT NULL REFERENCES events(id),
    id          TEXT NOT NULL,
    name        TEXT NOT NULL,
    side        TEXT,            -- a match game: the pair or team the player belongs to
    PRIMARY KEY (event, id)
);
CREATE TABLE rounds (
    event       TEXT NOT NULL REFERENCES events(id),
    round       INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    opened_at   TEXT NOT NULL,
    closed_at   TEXT,
    PRIMARY KEY (event, round)
);
CREATE TABLE tables (            -- the seating of a round: table → seat → player
    event       TEXT NOT NULL,
    round       INTEGER NOT NULL,
    grp         TEXT NOT NULL,   -- '' is the single group
    table_no    TEXT NOT NULL,
    seat        TEXT NOT NULL,
    player      TEXT NOT NULL,
    PRIMARY KEY (event, round, table_no, seat),
    UNIQUE (event, round, player),
    FOREIGN KEY (event, round) REFERENCES rounds(event, round)
);
CREATE TABLE boards (            -- the deal hash of each board, per group
    event       TEXT NOT NULL,
    round       INTEGER NOT NULL,
    grp         TEXT NOT NULL,
    board       INTEGER NOT NULL,
    deal_hash   TEXT NOT NULL,
    added_at    TEXT NOT NULL,
    PRIMARY KEY (event, round, grp, board),
    FOREIGN KEY (event, round) REFERENCES rounds(event, round)
);
CREATE TABLE results (
    result_id   TEXT PRIMARY KEY,
    event       TEXT NOT NULL REFERENCES events(id),
    round       INTEGER NOT NULL,
    grp         TEXT NOT NULL,
    board       INTEGER NOT NULL,
    table_no    TEXT NOT NULL,
    seat        TEXT NOT NULL,
    player      TEXT NOT NULL,
    score       INTEGER NOT NULL,
    think_ms    INTEGER NOT NULL,
    deal_hash   TEXT NOT NULL,
    received_at TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('ok', 'held')),
    held_why    TEXT,            -- unknown_board, deal_hash_mismatch, seat_taken, or a referee's words
    released_by TEXT,            -- a referee who released it: automatic holds leave it alone
    raw         TEXT NOT NULL    -- the row as received (canonical JSON)
);
CREATE INDEX results_slot ON results (event, round, grp, board, table_no, seat);
CREATE TABLE adjustments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id   TEXT NOT NULL REFERENCES results(result_id),
    field       TEXT NOT NULL,
    old         TEXT NOT NULL,   -- JSON values
    new         TEXT NOT NULL,
    who         TEXT NOT NULL,
    at          TEXT NOT NULL,
    why         TEXT NOT NULL CHECK (length(trim(why)) > 0)
);
CREATE TABLE standings (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event       TEXT NOT NULL REFERENCES events(id),
    round       INTEGER NOT NULL,
    taken_at    TEXT NOT NULL,
    data        TEXT NOT NULL
);
CREATE TABLE matches (           -- a match game's match results (pairs and teams)
    event       TEXT NOT NULL REFERENCES events(id),
    match_id    TEXT NOT NULL,
    round       INTEGER NOT NULL,
    side_a      TEXT NOT NULL,
    side_b      TEXT,            -- NULL for a bye
    received_at TEXT NOT NULL,
    raw         TEXT NOT NULL,
    PRIMARY KEY (event, match_id)
);
CREATE TABLE penalties (         -- deductions from a side's stage total (seed 002 第五十一条)
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event       TEXT NOT NULL REFERENCES events(id),
    raw         TEXT NOT NULL,
    at          TEXT NOT NULL
);
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event       TEXT,
    who         TEXT NOT NULL,
    at          TEXT NOT NULL,
    action      TEXT NOT NULL,
    detail      TEXT NOT NULL    -- JSON
);
"""

# Version 2 (issue #5, the venue service): what the MQTT link needs to lose nothing and to
# show referees what happened.  Hub messages are stored by their outbox cursor (hub, epoch, n)
# so a re-sent message is recognised before anything else is looked at, and the highest
# contiguous n is the acknowledgement the hub waits for.  No statement may contain a
# semicolon inside a comment: the migration is split on them.
_SCHEMA_V2 = """
CREATE TABLE hub_cursors (       -- per hub outbox file (epoch): the highest contiguous n stored
    event       TEXT NOT NULL REFERENCES events(id),
    hub         TEXT NOT NULL,
    epoch       TEXT NOT NULL,
    upto        INTEGER NOT NULL,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (event, hub, epoch)
);
CREATE TABLE inbox (             -- every outbox message (result or alert) received, once
    event       TEXT NOT NULL REFERENCES events(id),
    hub         TEXT NOT NULL,
    epoch       TEXT NOT NULL,
    n           INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('stored', 'refused')),
    received_at TEXT NOT NULL,
    raw         TEXT NOT NULL,   -- the message as received (canonical JSON)
    PRIMARY KEY (event, hub, epoch, n)
);
CREATE TABLE alerts (            -- from hubs (call, seat_offline, ...) and from the venue itself
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event       TEXT NOT NULL REFERENCES events(id),
    hub         TEXT,
    table_no    TEXT,
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,   -- JSON: the alert's fields
    at          TEXT NOT NULL,
    acked_by    TEXT,
    acked_at    TEXT
);
CREATE INDEX alerts_open ON alerts (event, acked_at);
CREATE TABLE refusals (          -- messages the venue refused: kept, never acted on
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    event       TEXT,
    hub         TEXT,
    topic       TEXT NOT NULL,
    payload     BLOB NOT NULL,   -- the raw bytes (the first MAX_REFUSAL_BYTES of them)
    size        INTEGER NOT NULL,
    reason      TEXT NOT NULL,   -- JSON: code, en, zh
    at          TEXT NOT NULL
);
CREATE TABLE hub_status (        -- the last status message of each hub (online, or its will)
    event       TEXT NOT NULL REFERENCES events(id),
    hub         TEXT NOT NULL,
    table_no    TEXT,
    online      INTEGER NOT NULL,
    body        TEXT NOT NULL,
    at          TEXT NOT NULL,
    PRIMARY KEY (event, hub)
);
CREATE TABLE plays (             -- each table's record of a deal: the deal, every action, the result
    event       TEXT NOT NULL REFERENCES events(id),
    round       INTEGER NOT NULL,
    grp         TEXT NOT NULL,
    board       INTEGER NOT NULL,
    table_no    TEXT NOT NULL,
    hub         TEXT NOT NULL,
    record      TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (event, round, grp, board, table_no)
);
CREATE TABLE round_specs (       -- the round spec published (retained) to each hub
    event       TEXT NOT NULL REFERENCES events(id),
    round       INTEGER NOT NULL,
    hub         TEXT NOT NULL,
    table_no    TEXT NOT NULL,
    spec        TEXT NOT NULL,
    saved_at    TEXT NOT NULL,
    PRIMARY KEY (event, round, hub)
);
CREATE TABLE controls (          -- control operations sent to hubs, and their replies
    id          TEXT PRIMARY KEY,
    event       TEXT NOT NULL REFERENCES events(id),
    hub         TEXT NOT NULL,
    op          TEXT NOT NULL,
    body        TEXT NOT NULL,
    sent_at     TEXT NOT NULL,
    reply       TEXT,
    replied_at  TEXT
);
ALTER TABLE rounds ADD COLUMN started_at TEXT;
ALTER TABLE rounds ADD COLUMN started_by TEXT
"""

# Version 3 (the venue trusts no hub's arithmetic): a result the venue's replay disagrees with
# is held with its reason in both languages, and the head of each hub's hash-chained event log
# that came with its messages is kept (with each message, and the highest per hub: the anchor
# ``paizhuo venue anchors`` exports for ``paizhuo hub verify --anchor``).
_SCHEMA_V3 = """
ALTER TABLE results ADD COLUMN held_reason TEXT;
ALTER TABLE inbox ADD COLUMN chain TEXT;
CREATE TABLE hub_anchors (       -- per hub: the highest log head acknowledged
    event       TEXT NOT NULL REFERENCES events(id),
    hub         TEXT NOT NULL,
    log_table   TEXT NOT NULL,   -- the table id inside the hub's log
    seq         INTEGER NOT NULL,
    hash        TEXT NOT NULL,   -- 64 lowercase hex
    epoch       TEXT NOT NULL,   -- the outbox message that brought it
    n           INTEGER NOT NULL,
    at          TEXT NOT NULL,
    PRIMARY KEY (event, hub)
)
"""

# Migrations from version v-1 to v, applied in order inside one transaction.  Version 1 is the
# schema above; a later version appends its DDL here and bumps SCHEMA_VERSION.
_MIGRATIONS = {1: _SCHEMA_V1, 2: _SCHEMA_V2, 3: _SCHEMA_V3}


class StoreError(CodedError):
    """A call the store refuses; nothing was changed.  ``code`` is stable for machines.

    Codes: ``bad_row`` (a field is missing or has the wrong type), ``unknown_event``,
    ``conflict`` (the id is stored with other content), ``side_busy``, ``not_found``,
    ``no_reason`` (an adjustment or decision without a why), ``no_change``, ``bad_state``,
    ``seat_taken``, ``newer_schema``, ``not_a_store``.
    """



def _utc_now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _canon(obj):
    """One JSON text per value: key order and whitespace never make two rows differ."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _utf8(text):
    """``text`` as SQLite can store it: a lone surrogate (which UTF-8 cannot encode) becomes U+FFFD."""
    if isinstance(text, str):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _audit_json(detail):
    """An audit line's detail as JSON text: canonical, and with \\u escapes when it holds text
    UTF-8 cannot encode (the line is written, not lost to an encoding error).

    >>> _audit_json({"why": "\\ud800"})
    '{"why":"\\\\ud800"}'
    """
    text = _canon(detail)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(detail, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return text


def _gkey(group):
    return "" if group is None else str(group)


def _tkey(table):
    return str(table)


def _natural(text):
    """Sort key: table "2" before "10", numbers before names."""
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def _bad(field, what, value, zh_what):
    return StoreError("bad_row", "field %r %s, not %r" % (field, what, value), "字段 %r %s，不能是 %r" % (field, zh_what, value))


def _int(row, name, minimum=None):
    v = row.get(name)
    if not isinstance(v, int) or isinstance(v, bool) or (minimum is not None and v < minimum):
        if minimum is None:
            raise _bad(name, "must be an integer", v, "必须是整数")
        raise _bad(name, "must be an integer ≥ %d" % minimum, v, "必须是不小于 %d 的整数" % minimum)
    return v


def _text(row, name, limit=128):
    v = row.get(name)
    if not isinstance(v, str) or not v.strip() or len(v) > limit:
        raise _bad(name, "must be a non-empty string of at most %d characters" % limit, v, "必须是非空字符串（最多 %d 字）" % limit)
    return v


def validate_result(row):
    """Check a result row (the scoring input shape plus ``event``, ``result_id``, ``round``,
    ``deal_hash``); return it unchanged or raise :class:`StoreError` naming the field."""
    if not isinstance(row, dict):
        raise StoreError("bad_row", "a result must be a JSON object", "结果必须是 JSON 对象")
    missing = [k for k in ("event", "result_id", "round", "board", "table", "seat", "player", "score", "think_ms", "deal_hash")
               if k not in row]
    if missing:
        raise StoreError("bad_row", "missing field(s) %s" % ", ".join(missing), "缺少字段 %s" % ", ".join(missing))
    _text(row, "event", 64)
    _text(row, "result_id")
    _int(row, "round", 1)
    _int(row, "board", 1)
    t = row["table"]
    if not ((isinstance(t, int) and not isinstance(t, bool) and t >= 1) or (isinstance(t, str) and t.strip() and len(t) <= 32)):
        raise _bad("table", "must be a table number ≥ 1 or a short name", t, "必须是桌号")
    if row["seat"] not in SEATS:
        raise _bad("seat", "must be one of E, N, W, S", row["seat"], "必须是 E、N、W、S 之一")
    _text(row, "player", 64)
    _int(row, "score")
    _int(row, "think_ms", 0)
    _text(row, "deal_hash")
    g = row.get("group")
    if g is not None and not ((isinstance(g, int) and not isinstance(g, bool) and g >= 0) or (isinstance(g, str) and g.strip() and len(g) <= 32)):
        raise _bad("group", "must be a group number or a short name (or be left out for one group)", g, "必须是组号")
    return row


def hash_secret(secret, salt=None, rounds=PBKDF2_ROUNDS):
    """The stored form of an event's deal secret: ``pbkdf2-sha256$rounds$salt$hash``.  The store
    never holds the secret itself, so a copied database cannot predict the next round's deals."""
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode("utf-8"), salt, rounds)
    return "pbkdf2-sha256$%d$%s$%s" % (rounds, salt.hex(), digest.hex())


def check_secret(secret, stored):
    try:
        _, rounds, salt, digest = stored.split("$")
        again = hash_secret(secret, bytes.fromhex(salt), int(rounds)).split("$")[3]
    except (ValueError, AttributeError):
        return False
    return hmac.compare_digest(again, digest)


def _anchors(db, event):
    return {r[0]: {"table": r[1], "seq": r[2], "hash": r[3], "epoch": r[4], "n": r[5], "at": r[6]}
            for r in db.execute("SELECT hub, log_table, seq, hash, epoch, n, at FROM hub_anchors WHERE event = ? "
                                "ORDER BY hub", (event,))}


def read_anchors(path, event):
    """:meth:`Store.anchors` of the store file at ``path``, opened read-only (the venue may be
    running on it; nothing is migrated or written).  A store from before schema 3 has none
    (``{}``).  Raises :class:`StoreError` ``not_a_store`` for a missing or foreign file."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    except sqlite3.Error as e:
        raise StoreError("not_a_store", "cannot open the store %s: %s" % (path, e), "无法打开数据库 %s：%s" % (path, e)) from None
    try:
        db.execute("PRAGMA busy_timeout = 5000")
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_version" not in names:
            raise StoreError("not_a_store", "%s is not a paizhuo venue store" % path, "%s 不是 paizhuo 赛场数据库" % path)
        return _anchors(db, event) if "hub_anchors" in names else {}
    except SQLITE_READ_ERRORS as e:
        raise StoreError("not_a_store", "%s is not a paizhuo venue store (%s)" % (path, e),
                         "%s 不是 paizhuo 赛场数据库（%s）" % (path, e)) from None
    finally:
        db.close()


class Store:
    """The venue store.  ``path`` is a file (or ``":memory:"`` for tests); ``clock`` returns the
    time stamp written into rows (ISO 8601, UTC by default)."""

    def __init__(self, path, clock=None):
        self.path = str(path)
        self._clock = clock or _utc_now
        self._db = sqlite3.connect(self.path, isolation_level=None)  # autocommit: we BEGIN ourselves
        try:
            self._db.execute("PRAGMA busy_timeout = 5000")
            self._journal = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._open_schema()
        except SQLITE_READ_ERRORS as e:
            self._db.close()
            raise StoreError("not_a_store", "%s is not a paizhuo venue store: %s" % (self.path, e),
                             "%s 不是 paizhuo 赛场数据库：%s" % (self.path, e)) from None
        except BaseException:
            self._db.close()
            raise

    # -- lifecycle ----------------------------------------------------------------------------
    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def journal_mode(self):
        return self._db.execute("PRAGMA journal_mode").fetchone()[0]

    def schema_version(self):
        return self._db.execute("SELECT max(version) FROM schema_version").fetchone()[0]

    @contextmanager
    def _tx(self):
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _open_schema(self):
        names = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if names and "schema_version" not in names:
            raise StoreError("not_a_store", "%s is an SQLite database but not a paizhuo venue store (no schema_version table)" % self.path,
                             "%s 不是 paizhuo 赛场数据库" % self.path)
        have = 0
        if names:
            have = self._db.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0
        if have > SCHEMA_VERSION:
            raise StoreError(
                "newer_schema",
                "%s has store schema version %d, newer than this paizhuo understands (%d): upgrade paizhuo; the file was not touched"
                % (self.path, have, SCHEMA_VERSION),
                "%s 的数据库版本 %d 比本程序支持的版本 %d 新：请升级 paizhuo；文件未被改动" % (self.path, have, SCHEMA_VERSION))
        if have < SCHEMA_VERSION:
            with self._tx() as db:
                for v in range(have + 1, SCHEMA_VERSION + 1):
                    for stmt in _MIGRATIONS[v].split(";"):
                        if stmt.strip():
                            db.execute(stmt)
                    db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (v, self._clock()))

    # -- audit --------------------------------------------------------------------------------
    def _audit(self, db, who, action, detail, event=None):
        db.execute("INSERT INTO audit (event, who, at, action, detail) VALUES (?, ?, ?, ?, ?)",
                   (event, _utf8(who), self._clock(), _utf8(action), _audit_json(detail)))

    def audit(self, who, action, detail=None, event=None):
        """Write one line to the audit log (who did what, when, with details as JSON)."""
        if not isinstance(who, str) or not who.strip() or not isinstance(action, str) or not action.strip():
            raise StoreError("bad_row", "an audit entry needs who and action", "审计记录需要操作人和操作")
        with self._tx() as db:
            self._audit(db, who, action, detail if detail is not None else {}, event)

    def audit_log(self, event=None):
        q = "SELECT id, event, who, at, action, detail FROM audit"
        args = ()
        if event is not None:
            q += " WHERE event = ?"
            args = (event,)
        return [{"id": r[0], "event": r[1], "who": r[2], "at": r[3], "action": r[4], "detail": json.loads(r[5])}
                for r in self._db.execute(q + " ORDER BY id", args)]

    # -- events, players, rounds, seatings, boards --------------------------------------------
    def _need_event(self, db, event):
        if db.execute("SELECT 1 FROM events WHERE id = ?", (event,)).fetchone() is None:
            raise StoreError("unknown_event", "no event %r in this store: create it first (add_event)" % (event,),
                             "没有赛事 %r：请先创建赛事" % (event,))

    def add_event(self, event, name, game, secret=None, who="venue"):
        """Create an event; the same call again is a no-op (``"duplicate"``).  Only a hash of
        ``secret`` is kept (:meth:`check_secret` compares a secret typed in later)."""
        row = {"event": event, "name": name}
        _text(row, "event", 64)
        _text(row, "name", 200)
        if game not in GAMES:
            raise StoreError("bad_row", "game must be one of %s, not %r" % (", ".join(GAMES), game), "项目必须是 %s 之一" % "、".join(GAMES))
        if secret is not None and (not isinstance(secret, str) or len(secret) < 16):
            raise StoreError("bad_row", "the event secret must be a string of at least 16 characters (it decides every deal)",
                             "赛事密钥至少 16 个字符（它决定每一副牌）")
        with self._tx() as db:
            old = db.execute("SELECT name, game, secret_hash FROM events WHERE id = ?", (event,)).fetchone()
            if old is not None:
                same = old[0] == name and old[1] == game and (
                    (secret is None and old[2] is None) or (secret is not None and old[2] is not None and check_secret(secret, old[2])))
                if same:
                    return "duplicate"
                raise StoreError("conflict", "event %r already exists with other details; nothing was changed" % event,
                                 "赛事 %r 已存在且内容不同；未做任何改动" % event)
            db.execute("INSERT INTO events (id, name, game, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                       (event, name, game, hash_secret(secret) if secret is not None else None, self._clock()))
            self._audit(db, who, "add_event", {"name": name, "game": game, "secret": secret is not None}, event)
        return "added"

    def event(self, event):
        r = self._db.execute("SELECT id, name, game, secret_hash IS NOT NULL, created_at FROM events WHERE id = ?", (event,)).fetchone()
        if r is None:
            raise StoreError("not_found", "no event %r" % (event,), "没有赛事 %r" % (event,))
        return {"id": r[0], "name": r[1], "game": r[2], "has_secret": bool(r[3]), "created_at": r[4]}

    def check_secret(self, event, secret):
        """True when ``secret`` is the one the event was created with."""
        r = self._db.execute("SELECT secret_hash FROM events WHERE id = ?", (event,)).fetchone()
        return bool(r and r[0] and isinstance(secret, str) and check_secret(secret, r[0]))

    def add_player(self, event, player, name, side=None):
        row = {"player": player, "name": name}
        _text(row, "player", 64)
        _text(row, "name", 200)
        if side is not None:
            _text({"side": side}, "side", 64)
        with self._tx() as db:
            self._need_event(db, event)
            old = db.execute("SELECT name, side FROM players WHERE event = ? AND id = ?", (event, player)).fetchone()
            if old is not None:
                if tuple(old) == (name, side):
                    return "duplicate"
                raise StoreError("conflict", "player %r is already registered as %r (side %r); nothing was changed" % (player, old[0], old[1]),
                                 "选手 %r 已登记为 %r；未做任何改动" % (player, old[0]))
            db.execute("INSERT INTO players (event, id, name, side) VALUES (?, ?, ?, ?)", (event, player, name, side))
        return "added"

    def players(self, event):
        return [{"id": r[0], "name": r[1], "side": r[2]}
                for r in self._db.execute("SELECT id, name, side FROM players WHERE event = ? ORDER BY id", (event,))]

    def _ensure_round(self, db, event, rnd):
        db.execute("INSERT OR IGNORE INTO rounds (event, round, status, opened_at) VALUES (?, ?, 'open', ?)",
                   (event, rnd, self._clock()))

    def close_round(self, event, rnd, who):
        with self._tx() as db:
            cur = db.execute("UPDATE rounds SET status = 'closed', closed_at = ? WHERE event = ? AND round = ? AND status = 'open'",
                             (self._clock(), event, rnd))
            if cur.rowcount != 1:
                raise StoreError("bad_state", "round %r of %r is not open" % (rnd, event), "第 %r 轮未开放" % (rnd,))
            self._audit(db, who, "close_round", {"round": rnd}, event)

    def rounds(self, event):
        """Every round with its ``status`` (``open``/``closed``), when it was opened and closed,
        and when and by whom it was started (``started_at``/``started_by``, None until then)."""
        return [{"round": r[0], "status": r[1], "opened_at": r[2], "closed_at": r[3], "started_at": r[4], "started_by": r[5]}
                for r in self._db.execute("SELECT round, status, opened_at, closed_at, started_at, started_by FROM rounds "
                                          "WHERE event = ? ORDER BY round", (event,))]

    def start_round(self, event, rnd, who):
        """Mark a round started (its deals may begin at the tables).  Returns ``"started"``, or
        ``"duplicate"`` when it already was (then nothing changes); the first start writes an audit line."""
        _int({"round": rnd}, "round", 1)
        with self._tx() as db:
            self._need_event(db, event)
            self._ensure_round(db, event, rnd)
            cur = db.execute("UPDATE rounds SET started_at = ?, started_by = ? WHERE event = ? AND round = ? AND started_at IS NULL",
                             (self._clock(), who, event, rnd))
            if cur.rowcount == 0:
                return "duplicate"
            self._audit(db, who, "start_round", {"round": rnd}, event)
        return "started"

    def set_seating(self, event, rnd, seats, who="venue"):
        """Store a round's seating: rows ``{"table", "seat", "player", "group"?}``.  The same
        seating again is a no-op; a different one for a round that has one is refused."""
        _int({"round": rnd}, "round", 1)
        norm = []
        for i, s in enumerate(seats):
            try:
                if not isinstance(s, dict):
                    raise StoreError("bad_row", "a seat must be an object", "座位必须是对象")
                validate_result(dict(s, event=event, result_id="-", round=rnd, board=1, score=0, think_ms=0, deal_hash="-"))
            except StoreError as e:
                raise StoreError(e.code, "seating row %d: %s" % (i + 1, e.en), "座位表第 %d 行：%s" % (i + 1, e.zh)) from None
            norm.append((_gkey(s.get("group")), _tkey(s["table"]), s["seat"], s["player"]))
        norm.sort()
        with self._tx() as db:
            self._need_event(db, event)
            old = sorted(tuple(r) for r in db.execute(
                "SELECT grp, table_no, seat, player FROM tables WHERE event = ? AND round = ?", (event, rnd)))
            if old:
                if old == norm:
                    return "duplicate"
                raise StoreError("conflict", "round %d already has a different seating; nothing was changed" % rnd,
                                 "第 %d 轮已有不同的座位表；未做任何改动" % rnd)
            self._ensure_round(db, event, rnd)
            try:
                db.executemany("INSERT INTO tables (event, round, grp, table_no, seat, player) VALUES (?, ?, ?, ?, ?, ?)",
                               [(event, rnd) + n for n in norm])
            except sqlite3.IntegrityError as e:
                raise StoreError("bad_row", "seating of round %d seats a player twice or fills a seat twice (%s)" % (rnd, e),
                                 "第 %d 轮座位表有重复的选手或座位" % rnd) from None
            self._audit(db, who, "set_seating", {"round": rnd, "seats": len(norm)}, event)
        return "added"

    def seating(self, event, rnd):
        return [{"group": r[0] or None, "table": r[1], "seat": r[2], "player": r[3]} for r in self._db.execute(
            "SELECT grp, table_no, seat, player FROM tables WHERE event = ? AND round = ? ORDER BY grp, table_no, seat", (event, rnd))]

    def add_board(self, event, rnd, board, deal_hash, group=None, who="venue"):
        """Register a board's deal hash.  Results that arrived before it (held as
        ``unknown_board``) are checked again at once."""
        validate_result({"event": event, "result_id": "-", "round": rnd, "board": board, "table": 1, "seat": "E",
                         "player": "-", "score": 0, "think_ms": 0, "deal_hash": deal_hash, "group": group})
        g = _gkey(group)
        with self._tx() as db:
            self._need_event(db, event)
            old = db.execute("SELECT deal_hash FROM boards WHERE event = ? AND round = ? AND grp = ? AND board = ?",
                             (event, rnd, g, board)).fetchone()
            if old is not None:
                if old[0] == deal_hash:
                    return "duplicate"
                raise StoreError("conflict", "board %d of round %d (group %r) already has deal hash %s; nothing was changed"
                                 % (board, rnd, g, old[0]), "第 %d 轮第 %d 副牌已有不同的牌型哈希" % (rnd, board))
            self._ensure_round(db, event, rnd)
            db.execute("INSERT INTO boards (event, round, grp, board, deal_hash, added_at) VALUES (?, ?, ?, ?, ?, ?)",
                       (event, rnd, g, board, deal_hash, self._clock()))
            waiting = db.execute("SELECT result_id, deal_hash, table_no, seat FROM results WHERE event = ? AND round = ? AND grp = ? "
                                 "AND board = ? AND status = 'held' AND held_why = 'unknown_board' ORDER BY result_id",
                                 (event, rnd, g, board)).fetchall()
            for rid, h, table_no, seat in waiting:
                if h != deal_hash:
                    db.execute("UPDATE results SET held_why = 'deal_hash_mismatch' WHERE result_id = ?", (rid,))
                    self._audit(db, who, "hold", {"result_id": rid, "why": "deal_hash_mismatch"}, event)
                elif self._slot_count(db, event, rnd, g, board, table_no, seat) > 1:
                    db.execute("UPDATE results SET held_why = 'seat_taken' WHERE result_id = ?", (rid,))
                    self._audit(db, who, "hold", {"result_id": rid, "why": "seat_taken"}, event)
                else:
                    db.execute("UPDATE results SET status = 'ok', held_why = NULL WHERE result_id = ?", (rid,))
                    self._audit(db, who, "release", {"result_id": rid, "why": "board registered, deal hash matches"}, event)
        return "added"

    def boards(self, event, rnd=None):
        q, args = "SELECT round, grp, board, deal_hash FROM boards WHERE event = ?", [event]
        if rnd is not None:
            q += " AND round = ?"
            args.append(rnd)
        return [{"round": r[0], "group": r[1] or None, "board": r[2], "deal_hash": r[3]}
                for r in self._db.execute(q + " ORDER BY round, grp, board", args)]

    # -- results ------------------------------------------------------------------------------
    @staticmethod
    def _slot_count(db, event, rnd, g, board, table_no, seat):
        return db.execute("SELECT count(*) FROM results WHERE event = ? AND round = ? AND grp = ? AND board = ? "
                          "AND table_no = ? AND seat = ?", (event, rnd, g, board, table_no, seat)).fetchone()[0]

    def add_result(self, row):
        """Store one result.  Returns ``"added"``, ``"held"`` (stored, kept out of the standings
        until a referee releases it) or ``"duplicate"`` (this result id is already stored with
        the same content).  The same id with other content raises ``StoreError("conflict")``.

        A result is held when its board is not registered (``unknown_board``; checked again when
        the board is added), when its deal hash differs from the board's (``deal_hash_mismatch``),
        or when another result id claims the same round, group, board, table and seat
        (``seat_taken``: then every result of that seat is held, whatever the arrival order,
        except one a referee has already released).
        """
        raw = self._checked_raw(row)
        with self._tx() as db:
            return self._insert_result(db, row, raw)

    @staticmethod
    def _checked_raw(row):
        validate_result(row)
        raw = _canon(row)
        if len(raw.encode("utf-8")) > MAX_RAW:
            raise StoreError("bad_row", "result row is larger than %d bytes" % MAX_RAW, "结果数据过大")
        return raw

    def _insert_result(self, db, row, raw, hold=None):
        """:meth:`add_result` inside a transaction the caller holds.  ``hold``: the caller's
        reason to hold it (a code or ``{"code", "en", "zh", ...}``); such a row is held with that
        reason and never holds the other results of its seat (a result the venue found wrong
        must not take a counted one out of the standings)."""
        event, rid, rnd, board = row["event"], row["result_id"], row["round"], row["board"]
        g, t, seat = _gkey(row.get("group")), _tkey(row["table"]), row["seat"]
        old = db.execute("SELECT raw FROM results WHERE result_id = ?", (rid,)).fetchone()
        if old is not None:
            if old[0] == raw:
                return "duplicate"
            before = json.loads(old[0])
            diff = sorted(k for k in set(before) | set(row) if before.get(k, None) != row.get(k, None) or (k in before) != (k in row))
            shown = ", ".join("%s: %s ≠ %s" % (k, json.dumps(before.get(k), ensure_ascii=False), json.dumps(row.get(k), ensure_ascii=False))
                              for k in diff[:3])
            raise StoreError(
                "conflict",
                "result %s is already stored with different content (%s); nothing was changed — a corrected result needs "
                "a new result_id or a referee adjustment" % (rid, shown),
                "结果 %s 已存储且内容不同（%s）；未做任何改动——更正结果请使用新的 result_id 或由裁判调整" % (rid, shown))
        self._need_event(db, event)
        known = db.execute("SELECT deal_hash FROM boards WHERE event = ? AND round = ? AND grp = ? AND board = ?",
                           (event, rnd, g, board)).fetchone()
        why = None
        if known is None:
            why = "unknown_board"
        elif known[0] != row["deal_hash"]:
            why = "deal_hash_mismatch"
        reason = None
        if hold:
            code = hold["code"] if isinstance(hold, dict) else hold
            # The caller's reason wins: an ``unknown_board`` would be released once its board came.
            why, reason = code, _canon(hold) if isinstance(hold, dict) else None
            others = ()
        else:
            others = db.execute("SELECT result_id, status, released_by FROM results WHERE event = ? AND round = ? AND grp = ? "
                                "AND board = ? AND table_no = ? AND seat = ?", (event, rnd, g, board, t, seat)).fetchall()
        if others and why is None:
            why = "seat_taken"
        for oid, status, released_by in others:
            if status == OK and released_by is None:
                db.execute("UPDATE results SET status = 'held', held_why = 'seat_taken' WHERE result_id = ?", (oid,))
                self._audit(db, "venue", "hold", {"result_id": oid, "why": "seat_taken", "by": rid}, event)
        self._ensure_round(db, event, rnd)
        db.execute(
            "INSERT INTO results (result_id, event, round, grp, board, table_no, seat, player, score, think_ms, deal_hash, "
            "received_at, status, held_why, held_reason, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (rid, event, rnd, g, board, t, seat, row["player"], row["score"], row["think_ms"], row["deal_hash"],
             self._clock(), HELD if why else OK, why, reason, raw))
        if why:
            self._audit(db, "venue", "hold", {"result_id": rid, "why": why}, event)
        return "held" if why else "added"

    def _effective(self, db, rid):
        r = db.execute("SELECT raw, status, held_why, event, received_at FROM results WHERE result_id = ?", (rid,)).fetchone()
        if r is None:
            raise StoreError("not_found", "no result %r" % (rid,), "没有结果 %r" % (rid,))
        row = json.loads(r[0])
        for field, new in db.execute("SELECT field, new FROM adjustments WHERE result_id = ? ORDER BY id", (rid,)):
            row[field] = json.loads(new)
        return row, r[1], r[2], r[3], r[4]

    def result(self, result_id):
        """One stored result with adjustments applied, plus ``status``, ``held_why``,
        ``held_reason`` (``{"code", "en", "zh", ...}`` when the venue said why, else None) and
        ``received_at``."""
        row, status, why, _, at = self._effective(self._db, result_id)
        reason = self._db.execute("SELECT held_reason FROM results WHERE result_id = ?", (result_id,)).fetchone()[0]
        return dict(row, status=status, held_why=why, held_reason=None if reason is None else json.loads(reason), received_at=at)

    def results(self, event, include_held=False, detail=False):
        """Rows for scoring: ``player, board, seat, table, score, think_ms, group, round`` with
        adjustments applied (``group`` is None for the single group).  Held results are left out
        unless ``include_held``; ``detail`` adds ``result_id``, ``status``, ``held_why``,
        ``held_reason`` (``{"code", "en", "zh", ...}`` or None), ``deal_hash``.  The order is
        fixed (round, group, board, table, seat, result id), never
        the arrival order."""
        q = "SELECT result_id, raw, status, held_why, held_reason FROM results WHERE event = ?"
        if not include_held:
            q += " AND status = 'ok'"
        adj = {}
        for rid, field, new in self._db.execute(
                "SELECT a.result_id, a.field, a.new FROM adjustments a JOIN results r USING (result_id) WHERE r.event = ? ORDER BY a.id",
                (event,)):
            adj.setdefault(rid, []).append((field, json.loads(new)))
        out = []
        for rid, raw, status, why, reason in self._db.execute(q, (event,)):
            src = json.loads(raw)
            for field, new in adj.get(rid, ()):
                src[field] = new
            row = {k: src.get(k) for k in ("player", "board", "seat", "table", "score", "think_ms", "group", "round")}
            if detail:
                row.update(result_id=rid, status=status, held_why=why, deal_hash=src["deal_hash"],
                           held_reason=None if reason is None else json.loads(reason))
            out.append((rid, row))

        def order(item):
            rid, r = item
            t = r["table"]
            g = r["group"]
            return (r["round"], (0, g, "") if isinstance(g, int) else (1, 0, _gkey(g)), r["board"],
                    (0, t, "") if isinstance(t, int) else (1, 0, t), SEATS.index(r["seat"]), rid)

        return [r for _, r in sorted(out, key=order)]

    def scoring_rows(self, event):
        """The counted results (held ones left out) as :mod:`paizhuo.venue.scoring` takes them,
        read from the columns (adjustments are written into them) instead of each row's JSON:
        several times faster than :meth:`results`, for the venue's live standings.  ``table``
        comes back as text, ``group`` as a number when it is one (None for the single group);
        the order is fixed (round, group, board, table, seat, result id; groups and tables as text)."""
        out = []
        for player, board, seat, table, score, think, grp, rnd in self._db.execute(
                "SELECT player, board, seat, table_no, score, think_ms, grp, round FROM results "
                "WHERE event = ? AND status = 'ok' ORDER BY round, grp, board, table_no, seat, result_id", (event,)):
            group = None if grp == "" else (int(grp) if grp.isdigit() else grp)
            out.append({"player": player, "board": board, "seat": seat, "table": table, "score": score, "think_ms": think,
                        "group": group, "round": rnd})
        return out

    # -- referee decisions --------------------------------------------------------------------
    @staticmethod
    def _why(who, why):
        if not isinstance(who, str) or not who.strip():
            raise StoreError("no_reason", "say who decides (a referee's name)", "请写明作出决定的裁判")
        if not isinstance(why, str) or not why.strip():
            raise StoreError("no_reason", "every referee decision needs a reason (why); nothing was changed",
                             "裁判的每个决定都必须写明原因；未做任何改动")

    def adjust(self, result_id, field, new, who, why):
        """A referee corrects one field of a stored result (``score``, ``think_ms`` or
        ``player``).  The original row is kept; the adjustment records old, new, who, when and
        why, and the audit log gets a line.  Returns the adjustment id."""
        return self.adjust_many([(result_id, field, new)], who, why)[0]

    def adjust_many(self, items, who, why, detail=None):
        """:meth:`adjust` for many ``(result_id, field, new)`` in one transaction (all or none):
        a deal corrected as a whole.  ``detail`` is added to each audit line.  Returns the ids."""
        self._why(who, why)
        for _, field, new in items:
            if field not in ADJUSTABLE:
                raise StoreError("bad_row", "only %s can be adjusted, not %r" % (", ".join(ADJUSTABLE), field),
                                 "只能调整 %s，不能调整 %r" % ("、".join(ADJUSTABLE), field))
            if field == "player":
                _text({field: new}, field, 64)
            else:
                _int({field: new}, field, 0 if field == "think_ms" else None)
        ids = []
        with self._tx() as db:
            for result_id, field, new in items:
                row, _, _, event, _ = self._effective(db, result_id)
                old = row[field]
                if old == new:
                    raise StoreError("no_change", "%s of %s is already %r" % (field, result_id, new),
                                     "%s 已经是 %r" % (field, new))
                cur = db.execute("INSERT INTO adjustments (result_id, field, old, new, who, at, why) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (result_id, field, json.dumps(old), json.dumps(new), who.strip(), self._clock(), why.strip()))
                db.execute("UPDATE results SET %s = ? WHERE result_id = ?" % field, (new, result_id))
                self._audit(db, who.strip(), "adjust", dict(detail or {}, result_id=result_id, field=field, old=old, new=new,
                                                            why=why.strip(), adjustment=cur.lastrowid), event)
                ids.append(cur.lastrowid)
        return ids

    def clear_seating(self, event, rnd, who, why):
        """Forget the seating and the round specs of round ``rnd`` so that it can be seated again
        (a referee's re-seat after a correction).  Refused once the round has started or has a
        result: then its seating is what the tables played."""
        self._why(who, why)
        with self._tx() as db:
            r = db.execute("SELECT started_at FROM rounds WHERE event = ? AND round = ?", (event, rnd)).fetchone()
            played = db.execute("SELECT count(*) FROM results WHERE event = ? AND round = ?", (event, rnd)).fetchone()[0]
            if r is not None and r[0] is not None or played:
                raise StoreError("bad_state", "round %d has started: its seating cannot change now" % rnd,
                                 "第 %d 轮已开始，座位不能再更改" % rnd)
            db.execute("DELETE FROM tables WHERE event = ? AND round = ?", (event, rnd))
            db.execute("DELETE FROM round_specs WHERE event = ? AND round = ?", (event, rnd))
            self._audit(db, who.strip(), "clear_seating", {"round": rnd, "why": why.strip()}, event)

    def adjustments(self, result_id=None, event=None):
        q = ("SELECT a.id, a.result_id, a.field, a.old, a.new, a.who, a.at, a.why FROM adjustments a "
             "JOIN results r USING (result_id)")
        cond, args = [], []
        if result_id is not None:
            cond.append("a.result_id = ?")
            args.append(result_id)
        if event is not None:
            cond.append("r.event = ?")
            args.append(event)
        if cond:
            q += " WHERE " + " AND ".join(cond)
        return [{"id": r[0], "result_id": r[1], "field": r[2], "old": json.loads(r[3]), "new": json.loads(r[4]),
                 "who": r[5], "at": r[6], "why": r[7]} for r in self._db.execute(q + " ORDER BY a.id", args)]

    def hold(self, result_id, why, who="venue"):
        """Keep a result out of the standings until a referee releases it."""
        self._why(who, why)
        with self._tx() as db:
            _, status, _, event, _ = self._effective(db, result_id)
            if status == HELD:
                raise StoreError("bad_state", "result %s is already held" % result_id, "结果 %s 已被暂扣" % result_id)
            db.execute("UPDATE results SET status = 'held', held_why = ?, released_by = NULL WHERE result_id = ?", (why.strip(), result_id))
            self._audit(db, who.strip(), "hold", {"result_id": result_id, "why": why.strip()}, event)

    def release(self, result_id, who, why):
        """A referee accepts a held result (it counts in the standings from now on).  Refused
        while another counted result holds the same seat of the same board and table."""
        self._why(who, why)
        with self._tx() as db:
            _, status, held_why, event, _ = self._effective(db, result_id)
            if status != HELD:
                raise StoreError("bad_state", "result %s is not held" % result_id, "结果 %s 未被暂扣" % result_id)
            r = db.execute("SELECT round, grp, board, table_no, seat FROM results WHERE result_id = ?", (result_id,)).fetchone()
            clash = db.execute("SELECT result_id FROM results WHERE event = ? AND round = ? AND grp = ? AND board = ? AND table_no = ? "
                               "AND seat = ? AND status = 'ok' AND result_id != ?", (event,) + tuple(r) + (result_id,)).fetchone()
            if clash:
                raise StoreError("seat_taken", "result %s counts for the same seat of that board and table; hold it first" % clash[0],
                                 "结果 %s 已计入同一桌同一座位同一副牌；请先暂扣它" % clash[0])
            db.execute("UPDATE results SET status = 'ok', released_by = ? WHERE result_id = ?", (who.strip(), result_id))
            self._audit(db, who.strip(), "release", {"result_id": result_id, "held_why": held_why, "why": why.strip()}, event)

    # -- standings snapshots ------------------------------------------------------------------
    def save_standings(self, event, rnd, data, who="venue"):
        """Keep a snapshot of the standings after round ``rnd`` (any JSON value); returns its id."""
        _int({"round": rnd}, "round", 0)
        text = _canon(data)
        with self._tx() as db:
            self._need_event(db, event)
            at = self._clock()
            cur = db.execute("INSERT INTO standings (event, round, taken_at, data) VALUES (?, ?, ?, ?)", (event, rnd, at, text))
            self._audit(db, who, "save_standings", {"round": rnd, "snapshot": cur.lastrowid}, event)
            return cur.lastrowid

    def latest_standings(self, event):
        r = self._db.execute("SELECT id, round, taken_at, data FROM standings WHERE event = ? ORDER BY id DESC LIMIT 1", (event,)).fetchone()
        if r is None:
            return None
        return {"id": r[0], "round": r[1], "taken_at": r[2], "data": json.loads(r[3])}

    def standings_history(self, event):
        return [{"id": r[0], "round": r[1], "taken_at": r[2]} for r in self._db.execute(
            "SELECT id, round, taken_at FROM standings WHERE event = ? ORDER BY id", (event,))]

    # -- a match game's matches and penalties --------------------------------------------------------
    def add_match(self, event, match):
        """Store one match record (the ``matches.json`` row format) idempotently by its
        ``match_id`` (default ``r<round>:<a>:<b>``, or ``r<round>:<a>:bye``).  Returns
        ``"added"`` or ``"duplicate"``; other content under the same id is a ``conflict``, and a
        side that already has another match in that round is ``side_busy``."""
        try:
            m = matches_mod.MatchResult.from_dict(match)
        except matches_mod.MatchError as e:
            raise StoreError("bad_row", "match: %s" % e.en, "比赛：%s" % e.zh) from None
        mid = m.match_id or "r%d:%s:%s" % (m.round, m.a, m.b if m.b is not None else "bye")
        raw = _canon(dict(match, match_id=mid))
        with self._tx() as db:
            self._need_event(db, event)
            old = db.execute("SELECT raw FROM matches WHERE event = ? AND match_id = ?", (event, mid)).fetchone()
            if old is not None:
                if old[0] == raw:
                    return "duplicate"
                raise StoreError("conflict", "match %s is already stored with different content; nothing was changed" % mid,
                                 "比赛 %s 已存储且内容不同；未做任何改动" % mid)
            for s in m.sides():
                busy = db.execute("SELECT match_id FROM matches WHERE event = ? AND round = ? AND (side_a = ? OR side_b = ?)",
                                  (event, m.round, s, s)).fetchone()
                if busy:
                    raise StoreError("side_busy", "%s already has match %s in round %d; nothing was changed" % (s, busy[0], m.round),
                                     "%s 在第 %d 轮已有比赛 %s；未做任何改动" % (s, m.round, busy[0]))
            db.execute("INSERT INTO matches (event, match_id, round, side_a, side_b, received_at, raw) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (event, mid, m.round, m.a, m.b, self._clock(), raw))
        return "added"

    def matches(self, event):
        """Match records in the ``matches.json`` format (each with its ``match_id``), by round."""
        return [json.loads(r[0]) for r in self._db.execute(
            "SELECT raw FROM matches WHERE event = ? ORDER BY round, match_id", (event,))]

    def add_penalty(self, event, penalty):
        """Record a deduction (``{"side", "unit", "points", "reason", "who", "at", "round"?}``);
        returns its id.  The audit log gets a line."""
        try:
            p = matches_mod.Penalty.from_dict(penalty)
        except matches_mod.MatchError as e:
            raise StoreError("bad_row", "penalty: %s" % e.en, "罚分：%s" % e.zh) from None
        with self._tx() as db:
            self._need_event(db, event)
            cur = db.execute("INSERT INTO penalties (event, raw, at) VALUES (?, ?, ?)", (event, _canon(p.to_dict()), self._clock()))
            self._audit(db, p.who, "penalty", dict(p.to_dict(), penalty=cur.lastrowid), event)
            return cur.lastrowid

    def penalties(self, event):
        return [json.loads(r[0]) for r in self._db.execute("SELECT raw FROM penalties WHERE event = ? ORDER BY id", (event,))]

    # -- the venue link (schema 2): hub messages, cursors, alerts, refusals, status ----------
    def ingest(self, event, hub, epoch, n, kind, message, topic, payload, rows=(), play=None, alert=None, refuse=None,
               holds=None, chain=None):
        """Store one hub outbox message (``kind`` ``result`` or ``alert``) and what it carries,
        all in one transaction, and advance the hub's cursor for ``epoch``.

        ``rows``: result rows for :meth:`add_result` (each with ``event``); ``play``: the
        table's record of the deal, ``{"round", "group", "board", "table", "record"}``;
        ``alert``: ``{"table", "kind", "body"}`` (with result rows it is stored only when some
        row is new: a result re-sent under another epoch raises no second alert).  ``holds``:
        ``{result_id: why}`` results to hold at once (the venue found something wrong, e.g. a
        player who is not the seat's, or its replay of the record disagrees); ``why`` is a code
        or ``{"code", "en", "zh", ...}`` (kept as the result's ``held_reason``).  ``chain``: the
        head of the hub's event log the message carried, ``{"table", "seq", "hash"}`` (already
        checked): kept with the message, and (unless the message is refused) as the hub's
        anchor when it is the highest seq seen; a different hash at the anchor's seq raises a
        ``chain_fork`` alert (the hub's log was rewritten).  ``refuse``: a :class:`CodedError`
        the caller found (unknown table, ...): the message is then kept as refused, nothing
        else is stored.
        A row the store refuses (``bad_row``, ``conflict``) refuses the whole message the same
        way.  A refused message is logged in :meth:`refusals` and still counts for the cursor:
        resending it would not help, and the hub must be able to move on.

        Returns ``{"status": "stored" | "refused" | "duplicate", "upto": n, "results":
        {result_id: "added" | "held" | "duplicate"}, "alert": id | None, "refusal": id | None,
        "same": bool, "fork": alert id | None}``; ``upto`` is the highest contiguous n stored for
        (hub, epoch), the acknowledgement to send (also for a duplicate: the hub is waiting for it).
        ``same`` (duplicates only) says whether the content equals the first copy.
        """
        _int({"n": n}, "n", 1)
        raw = _canon(message)
        if refuse is None:
            try:
                raws = [self._checked_raw(r) for r in rows]
            except StoreError as e:
                refuse, raws = e, []
        out = {"status": None, "upto": 0, "results": {}, "alert": None, "refusal": None, "same": True, "fork": None}
        with self._tx() as db:
            self._need_event(db, event)
            old = db.execute("SELECT raw FROM inbox WHERE event = ? AND hub = ? AND epoch = ? AND n = ?",
                             (event, hub, epoch, n)).fetchone()
            if old is not None:
                out.update(status="duplicate", same=old[0] == raw, upto=self._cursor(db, event, hub, epoch))
                return out
            if refuse is None:
                db.execute("SAVEPOINT message")
                try:
                    for r, rr in zip(rows, raws):
                        rid = r["result_id"]
                        out["results"][rid] = self._insert_result(db, r, rr, hold=(holds or {}).get(rid))
                except StoreError as e:
                    db.execute("ROLLBACK TO message")
                    refuse = e
                    out["results"] = {}
                db.execute("RELEASE message")
            if refuse is not None:
                out["refusal"] = self._refusal(db, event, hub, topic, payload, refuse)
            else:
                if play is not None:
                    db.execute("INSERT OR IGNORE INTO plays (event, round, grp, board, table_no, hub, record, received_at) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               (event, play["round"], _gkey(play.get("group")), play["board"], _tkey(play["table"]), hub,
                                _canon(play["record"]), self._clock()))
                fresh = not rows or any(v != "duplicate" for v in out["results"].values())
                if alert is not None and fresh:
                    out["alert"] = self._alert(db, event, hub, alert.get("table"), alert["kind"], alert.get("body", {}))
            out["status"] = "refused" if refuse is not None else "stored"
            db.execute("INSERT INTO inbox (event, hub, epoch, n, kind, status, received_at, raw, chain) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (event, hub, epoch, n, kind, out["status"], self._clock(), raw, None if chain is None else _canon(chain)))
            if chain is not None and refuse is None:  # a refused message changes nothing else
                out["fork"] = self._anchor(db, event, hub, epoch, n, chain)
            out["upto"] = self._advance(db, event, hub, epoch)
        return out

    def _anchor(self, db, event, hub, epoch, n, chain):
        """Keep ``chain`` as the hub's anchor when it is further on; returns the id of a
        ``chain_fork`` alert when it contradicts the anchor at the same seq (else None)."""
        old = db.execute("SELECT log_table, seq, hash FROM hub_anchors WHERE event = ? AND hub = ?", (event, hub)).fetchone()
        t, seq, h = chain["table"], chain["seq"], chain["hash"]
        if old is not None and old[0] == t and old[1] == seq and old[2] != h:
            return self._alert(db, event, hub, t, "chain_fork", {"table": t, "seq": seq, "hash": h, "anchored": old[2],
                                                               "epoch": epoch, "n": n})
        # A hub runs one table: another table id is a new log (the hub was set up again).
        if old is None or old[0] != t or seq > old[1]:
            db.execute("INSERT INTO hub_anchors (event, hub, log_table, seq, hash, epoch, n, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (event, hub) DO UPDATE SET log_table = excluded.log_table, seq = excluded.seq, "
                       "hash = excluded.hash, epoch = excluded.epoch, n = excluded.n, at = excluded.at",
                       (event, hub, t, seq, h, epoch, n, self._clock()))
        return None

    def anchors(self, event):
        """``{hub: {"table", "seq", "hash", "epoch", "n", "at"}}``: per hub, the highest head of its
        event log the venue has acknowledged (what ``paizhuo hub verify --anchor`` checks the
        log against)."""
        return _anchors(self._db, event)

    def seen(self, event, hub, epoch, n):
        """Whether the outbox message (hub, epoch, n) is stored already (a re-send)."""
        return self._db.execute("SELECT 1 FROM inbox WHERE event = ? AND hub = ? AND epoch = ? AND n = ?",
                                (event, hub, epoch, n)).fetchone() is not None

    @staticmethod
    def _cursor(db, event, hub, epoch):
        r = db.execute("SELECT upto FROM hub_cursors WHERE event = ? AND hub = ? AND epoch = ?", (event, hub, epoch)).fetchone()
        return r[0] if r else 0

    def _advance(self, db, event, hub, epoch):
        upto = self._cursor(db, event, hub, epoch)
        start = upto
        for (n,) in db.execute("SELECT n FROM inbox WHERE event = ? AND hub = ? AND epoch = ? AND n > ? ORDER BY n",
                               (event, hub, epoch, upto)):
            if n != upto + 1:
                break
            upto = n
        if upto != start or start == 0:
            db.execute("INSERT INTO hub_cursors (event, hub, epoch, upto, updated_at) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (event, hub, epoch) DO UPDATE SET upto = excluded.upto, updated_at = excluded.updated_at",
                       (event, hub, epoch, upto, self._clock()))
        return upto

    def cursor(self, event, hub, epoch):
        """The highest contiguous n stored from this hub's outbox ``epoch`` (0: nothing yet)."""
        return self._cursor(self._db, event, hub, epoch)

    def cursors(self, event):
        """``[{"hub", "epoch", "upto", "updated_at"}]`` for every hub outbox seen."""
        return [{"hub": r[0], "epoch": r[1], "upto": r[2], "updated_at": r[3]} for r in self._db.execute(
            "SELECT hub, epoch, upto, updated_at FROM hub_cursors WHERE event = ? ORDER BY hub, updated_at", (event,))]

    def inbox(self, event, hub=None):
        """Every hub message stored, by hub, epoch and n: ``{"hub", "epoch", "n", "kind", "status",
        "received_at", "message", "chain"}`` (``chain``: the hub's log head it carried, or None)."""
        q, args = "SELECT hub, epoch, n, kind, status, received_at, raw, chain FROM inbox WHERE event = ?", [event]
        if hub is not None:
            q += " AND hub = ?"
            args.append(hub)
        return [{"hub": r[0], "epoch": r[1], "n": r[2], "kind": r[3], "status": r[4], "received_at": r[5],
                 "message": json.loads(r[6]), "chain": None if r[7] is None else json.loads(r[7])}
                for r in self._db.execute(q + " ORDER BY hub, epoch, n", args)]

    # alerts
    def _alert(self, db, event, hub, table, kind, body):
        cur = db.execute("INSERT INTO alerts (event, hub, table_no, kind, body, at) VALUES (?, ?, ?, ?, ?, ?)",
                         (event, hub, None if table is None else _tkey(table), kind, _canon(body), self._clock()))
        return cur.lastrowid

    def add_alert(self, event, kind, body=None, hub=None, table=None):
        """Record an alert the venue raises itself (``deal_hash_mismatch``, ``hub_offline``, ...);
        returns its id."""
        _text({"kind": kind}, "kind", 64)
        with self._tx() as db:
            self._need_event(db, event)
            return self._alert(db, event, hub, table, kind, body if body is not None else {})

    @staticmethod
    def _alert_row(r):
        return {"id": r[0], "hub": r[1], "table": r[2], "kind": r[3], "fields": json.loads(r[4]), "at": r[5],
                "acked_by": r[6], "acked_at": r[7]}

    _ALERT_COLS = "id, hub, table_no, kind, body, at, acked_by, acked_at"

    def alerts(self, event, open_only=False):
        """Alerts, oldest first: ``{"id", "hub", "table", "kind", "fields", "at", "acked_by",
        "acked_at"}``; ``open_only`` leaves out the acknowledged ones."""
        q = "SELECT %s FROM alerts WHERE event = ?" % self._ALERT_COLS
        if open_only:
            q += " AND acked_at IS NULL"
        return [self._alert_row(r) for r in self._db.execute(q + " ORDER BY id", (event,))]

    def alert(self, alert_id):
        r = self._db.execute("SELECT %s FROM alerts WHERE id = ?" % self._ALERT_COLS, (alert_id,)).fetchone()
        if r is None:
            raise StoreError("not_found", "no alert %r" % (alert_id,), "没有提醒 %r" % (alert_id,))
        return self._alert_row(r)

    def ack_alert(self, alert_id, who):
        """A referee acknowledges an alert (once); the audit log gets a line."""
        if not isinstance(who, str) or not who.strip():
            raise StoreError("no_reason", "say who acknowledges the alert (a referee's name)", "请写明确认提醒的裁判")
        with self._tx() as db:
            r = db.execute("SELECT event, acked_by, kind FROM alerts WHERE id = ?", (alert_id,)).fetchone()
            if r is None:
                raise StoreError("not_found", "no alert %r" % (alert_id,), "没有提醒 %r" % (alert_id,))
            if r[1] is not None:
                raise StoreError("bad_state", "alert %s was already acknowledged by %s" % (alert_id, r[1]),
                                 "提醒 %s 已由 %s 确认" % (alert_id, r[1]))
            db.execute("UPDATE alerts SET acked_by = ?, acked_at = ? WHERE id = ?", (who.strip(), self._clock(), alert_id))
            self._audit(db, who.strip(), "ack_alert", {"alert": alert_id, "kind": r[2]}, r[0])

    # refusals
    def _refusal(self, db, event, hub, topic, payload, reason):
        if isinstance(payload, str):
            payload = payload.encode("utf-8", "surrogateescape")
        payload = bytes(payload)
        why = reason.to_dict() if isinstance(reason, CodedError) else dict(reason)
        cur = db.execute("INSERT INTO refusals (event, hub, topic, payload, size, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (event, hub, str(topic), payload[:MAX_REFUSAL_BYTES], len(payload), _canon(why), self._clock()))
        return cur.lastrowid

    def add_refusal(self, event, hub, topic, payload, reason):
        """Keep a message the venue refused: the topic, the raw payload (bytes, first
        ``MAX_REFUSAL_BYTES``), its size and why (a :class:`CodedError` or ``{"code", "en", "zh"}``).
        Works for an event not in the store too (a message for another event id)."""
        with self._tx() as db:
            return self._refusal(db, event, hub, topic, payload, reason)

    def refusals(self, event=None):
        """``[{"id", "event", "hub", "topic", "payload" (text, undecodable bytes replaced), "size",
        "reason", "at"}]``, oldest first."""
        q, args = "SELECT id, event, hub, topic, payload, size, reason, at FROM refusals", ()
        if event is not None:
            q += " WHERE event = ?"
            args = (event,)
        return [{"id": r[0], "event": r[1], "hub": r[2], "topic": r[3], "payload": bytes(r[4]).decode("utf-8", "replace"),
                 "size": r[5], "reason": json.loads(r[6]), "at": r[7]} for r in self._db.execute(q + " ORDER BY id", args)]

    # hub status
    def set_hub_status(self, event, hub, table, online, body):
        """Keep a hub's latest status; returns the previous ``online`` (None: never seen)."""
        with self._tx() as db:
            self._need_event(db, event)
            old = db.execute("SELECT online FROM hub_status WHERE event = ? AND hub = ?", (event, hub)).fetchone()
            db.execute("INSERT INTO hub_status (event, hub, table_no, online, body, at) VALUES (?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (event, hub) DO UPDATE SET table_no = excluded.table_no, online = excluded.online, "
                       "body = excluded.body, at = excluded.at",
                       (event, hub, None if table is None else _tkey(table), 1 if online else 0, _canon(body), self._clock()))
        return None if old is None else bool(old[0])

    def hub_status(self, event):
        """``{hub: {"table", "online", "body", "at"}}`` (``at``: when the venue received it)."""
        return {r[0]: {"table": r[1], "online": bool(r[2]), "body": json.loads(r[3]), "at": r[4]} for r in self._db.execute(
            "SELECT hub, table_no, online, body, at FROM hub_status WHERE event = ? ORDER BY hub", (event,))}

    # deal records
    def plays(self, event, rnd=None):
        """Each table's record of each deal: ``{"round", "group", "board", "table", "hub", "record",
        "received_at"}`` in (round, group, board, table) order."""
        q, args = "SELECT round, grp, board, table_no, hub, record, received_at FROM plays WHERE event = ?", [event]
        if rnd is not None:
            q += " AND round = ?"
            args.append(rnd)
        rows = [{"round": r[0], "group": r[1] or None, "board": r[2], "table": r[3], "hub": r[4], "record": json.loads(r[5]),
                 "received_at": r[6]} for r in self._db.execute(q, args)]
        rows.sort(key=lambda p: (p["round"], _natural(_gkey(p["group"])), p["board"], _natural(p["table"])))
        return rows

    # round specs
    def save_round_spec(self, event, rnd, hub, table, spec):
        """Keep the round spec published to a hub: ``"added"``, ``"duplicate"`` (the same again),
        or ``StoreError("conflict")`` (another spec for that round and hub: a round spec, once
        published, never changes)."""
        return self.save_round_specs(event, rnd, [(hub, table, spec)])[0]

    def save_round_specs(self, event, rnd, items):
        """:meth:`save_round_spec` for many ``(hub, table, spec)`` in one transaction (all or none)."""
        _int({"round": rnd}, "round", 1)
        out = []
        with self._tx() as db:
            self._need_event(db, event)
            self._ensure_round(db, event, rnd)
            for hub, table, spec in items:
                text = _canon(spec)
                old = db.execute("SELECT spec FROM round_specs WHERE event = ? AND round = ? AND hub = ?",
                                 (event, rnd, hub)).fetchone()
                if old is not None:
                    if old[0] != text:
                        raise StoreError("conflict", "round %d already has another spec for hub %s; nothing was changed"
                                         % (rnd, hub), "第 %d 轮已为 %s 保存了不同的轮次设置；未做任何改动" % (rnd, hub))
                    out.append("duplicate")
                    continue
                db.execute("INSERT INTO round_specs (event, round, hub, table_no, spec, saved_at) VALUES (?, ?, ?, ?, ?, ?)",
                           (event, rnd, hub, _tkey(table), text, self._clock()))
                out.append("added")
        return out

    def round_specs(self, event, rnd=None):
        """``[{"round", "hub", "table", "spec"}]`` by round and hub."""
        q, args = "SELECT round, hub, table_no, spec FROM round_specs WHERE event = ?", [event]
        if rnd is not None:
            q += " AND round = ?"
            args.append(rnd)
        return [{"round": r[0], "hub": r[1], "table": r[2], "spec": json.loads(r[3])}
                for r in self._db.execute(q + " ORDER BY round, hub", args)]

    # control operations
    def add_control(self, control_id, event, hub, op, body):
        """Record a control operation before it is sent to a hub."""
        with self._tx() as db:
            self._need_event(db, event)
            db.execute("INSERT INTO controls (id, event, hub, op, body, sent_at) VALUES (?, ?, ?, ?, ?, ?)",
                       (control_id, event, hub, op, _canon(body), self._clock()))

    def set_control_reply(self, control_id, reply):
        """Keep a hub's reply to a control operation; returns False for an unknown id or one
        already answered (a repeated reply changes nothing)."""
        with self._tx() as db:
            cur = db.execute("UPDATE controls SET reply = ?, replied_at = ? WHERE id = ? AND reply IS NULL",
                             (_canon(reply), self._clock(), control_id))
            return cur.rowcount == 1

    def controls(self, event, hub=None):
        """``[{"id", "hub", "op", "body", "sent_at", "reply", "replied_at"}]``, oldest first."""
        q, args = "SELECT id, hub, op, body, sent_at, reply, replied_at FROM controls WHERE event = ?", [event]
        if hub is not None:
            q += " AND hub = ?"
            args.append(hub)
        return [{"id": r[0], "hub": r[1], "op": r[2], "body": json.loads(r[3]), "sent_at": r[4],
                 "reply": None if r[5] is None else json.loads(r[5]), "replied_at": r[6]}
                for r in self._db.execute(q + " ORDER BY sent_at, rowid", args)]
