"""The venue's web pages: public standings, hand records, and the referee console behind a PIN.

An aiohttp application made by :func:`make_app` from a running :class:`~paizhuo.venue.service.Venue`
and the referee PIN's pbkdf2 hash.  The pages are plain HTML, CSS and JavaScript files in
``static/`` (no build step, nothing fetched from outside); the data comes as JSON, and live
changes come by server-sent events (SSE):

======================================  ==========================================================
``/``                                   public standings and tables, live (``/live/standings``)
``/standings.json``, ``/standings.csv`` the public standings (finished boards only) / one line per player
``/tables.json``                        the public table feed (online, boards done, in play / waiting)
``/records/<round>``, ``.json``         a finished round's hand records (page and JSON)
``/boards.json?round=R``                every public board across its tables (scores, MP, places)
``/live/standings``                     the public SSE stream (``standings``, ``tables``)
``/referee/login``                      the PIN form (GET), the login (POST: ``who`` + ``pin``)
``/referee/logout``                     POST (with ``X-CSRF``): end the session
``/referee``                            the console: every table, alerts, actions, audit log
``/referee/table/<table>``              the console opened on one table (``.json``: its detail)
``/referee/glance.json`` (``alerts``,   the console's data as JSON; ``session.json`` gives the
``audit``, ``session``, ``standings``)  referee's name and the CSRF token; ``standings.json``
                                        every counted result, boards still in play too
``/referee/results.json?round&table``   one table's results of a round, with every correction
``/referee/boards.json?round=R``        every board across tables, boards still in play too
``/referee/live``                       the console's SSE stream (``glance``, ``table``, ``alerts``, ``audit``)
``/referee/api/<action>``               POST JSON :data:`ACTIONS`; needs the session and ``X-CSRF``
======================================  ==========================================================

Security (docs/venue.md § "Web pages and the referee console"): the PIN is checked against a
pbkdf2 hash in constant time, one check at a time, off the event loop; five wrong PINs within
60 s from one client (its address and the random ``paizhuo_browser`` cookie the login page sets)
lock that client alone for 60 s, doubled at each further lock up to an hour; a burst of wrong
PINs venue-wide slows every check down and alerts the referees (``login_burst``), but never
refuses a right PIN from a client that has not failed itself; a session is a random token
(``secrets.token_urlsafe``) in an HttpOnly, SameSite=Strict cookie (Secure when the venue is served
over HTTPS), it expires after 12 h; every POST action needs the session's CSRF token in the
``X-CSRF`` header; every action is recorded with the referee's typed name.  No page or stream
shows a hand of an unfinished deal: the Venue API never gives one.  Nothing public (no page,
stream or file outside ``/referee``) shows anything of a board — plays, scores, MP, places —
before every table of its group has finished it or a referee closed it (docs/venue.md § What
is public when): the public routes read only :meth:`Venue.public_standings` and
:meth:`Venue.public_tables`.

    >>> _sse("standings", {"round": 1})
    b'event: standings\\ndata: {"round":1}\\n\\n'
    >>> _public_player({"player": "P1", "rank": 1, "R": 58.3, "decided_by": "R", "playoff": False,
    ...                 "deals": 2, "boards": {"r1b1": {"mp_exact": "3/2"}, "r1b2": {"mp_exact": "2"}}})["mp"]
    '3.50'
"""

import asyncio
import csv
import hmac
import html
import io
import json
import logging
import re
import secrets
import time
from collections import deque
from fractions import Fraction
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web

from .. import rules as rules_
from ..errors import CodedError
from ..inputs import InputError, check_text, parse_json
from . import console as console_mod
from . import records as records_mod
from .scoring import STEP_TEXT, _csv_text, half_up
from .store import check_secret

__all__ = ["make_app", "WebError", "SESSION_COOKIE", "SESSION_SECONDS", "ACTIONS"]

log = logging.getLogger("paizhuo.venue.web")

STATIC = Path(__file__).with_name("static")
SESSION_COOKIE = "paizhuo_referee"
SESSION_SECONDS = 12 * 3600      # a referee's day; a stolen cookie is worthless by tomorrow
LOCK_AFTER = 5                   # wrong PINs of one client ...
LOCK_WINDOW = 60.0               # ... within this many seconds ...
LOCK_SECONDS = 60.0              # ... lock that client this long, doubled at each further lock ...
LOCK_MAX = 3600.0                # ... up to an hour
FORGET_AFTER = 24 * 3600.0       # a client's locks are forgotten a day after its last wrong PIN
MAX_CLIENTS = 10000              # clients remembered (memory bound)
BURST_FAILS = 20                 # wrong PINs venue-wide within LOCK_WINDOW: a burst (alert, slow down)
BURST_QUIET = 600.0              # at most one burst alert per ten minutes
MAX_PENDING = 4                  # PIN checks one address may have waiting at once
BURST_SLOW = 1.0                 # seconds each PIN check takes during a burst (≤ 1 guess/s venue-wide)
BROWSER_COOKIE = "paizhuo_browser"   # a random id per browser, set by the login page
BROWSER_SECONDS = 365 * 24 * 3600
_BROWSER = re.compile(r"[A-Za-z0-9_-]{16,64}\Z")
MAX_BODY = 64 * 1024             # a console action is a few hundred bytes
MAX_WHO = 40
MAX_TEXT = 500                   # a reason or a corrected value
HEARTBEAT_S = 15.0               # an SSE comment this often finds dead connections
AUDIT_TAIL = 200                 # audit rows the console keeps on screen
ALERT_TAIL = 200
SEATS = ("E", "N", "W", "S")
_ID = re.compile(r"[A-Za-z0-9_-]{1,32}\Z")
_TEXT = re.compile(r"[^\x00-\x1f\x7f]+\Z")

_CSP_PAGE = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
             "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
# A hand-record page is rendered HTML with its own <style> and no scripts at all.
_CSP_RECORDS = ("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


class WebError(CodedError):
    """A request the web layer refuses before anything is done; ``status`` is the HTTP status.

    >>> e = WebError(400, "missing_field", "reason is missing", "缺少 reason")
    >>> e.status, e.to_dict()
    (400, {'code': 'missing_field', 'en': 'reason is missing', 'zh': '缺少 reason'})
    """

    def __init__(self, status, code, en, zh=None):
        super().__init__(code, en, zh)
        self.status = status


# ---- sessions and the login guard ---------------------------------------------------------------

class Session:
    """A logged-in referee: ``who`` (typed at login), the cookie ``token``, the ``csrf`` token the
    console sends back in ``X-CSRF``, and the monotonic time it ``expires``."""

    __slots__ = ("token", "csrf", "who", "expires")

    def __init__(self, token, csrf, who, expires):
        self.token, self.csrf, self.who, self.expires = token, csrf, who, expires


class Sessions:
    """The open sessions, by token.  Nothing is written to disk: a venue restart logs referees out.

    >>> s = Sessions(clock=lambda: 100.0)
    >>> a = s.open("Li")
    >>> s.get(a.token) is a, s.get("forged") is None, s.get(None) is None
    (True, True, True)
    >>> s.clock = lambda: 100.0 + SESSION_SECONDS
    >>> s.get(a.token) is None
    True
    """

    def __init__(self, clock, seconds=SESSION_SECONDS):
        self.clock = clock
        self.seconds = seconds
        self._by_token = {}

    def open(self, who):
        self.sweep()
        s = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), who, self.clock() + self.seconds)
        self._by_token[s.token] = s
        return s

    def get(self, token):
        s = self._by_token.get(token) if isinstance(token, str) else None
        if s is None:
            return None
        if self.clock() >= s.expires:
            del self._by_token[token]
            return None
        return s

    def close(self, token):
        self._by_token.pop(token, None)

    def sweep(self):
        now = self.clock()
        for t in [t for t, s in self._by_token.items() if now >= s.expires]:
            del self._by_token[t]

    def __len__(self):
        return len(self._by_token)


class _Client:
    """One login client's wrong PINs: their times in the window, the lock's end, locks so far."""

    __slots__ = ("fails", "until", "locks", "last")

    def __init__(self):
        self.fails, self.until, self.locks, self.last = deque(), None, 0, 0.0


class LoginGuard:
    """Counts wrong PINs per client (an address and the browser's ``paizhuo_browser`` cookie):
    ``LOCK_AFTER`` within ``LOCK_WINDOW`` seconds lock that client alone, for ``LOCK_SECONDS``,
    doubled at each further lock up to ``LOCK_MAX``; a client forgets its locks ``FORGET_AFTER``
    seconds after its last wrong PIN, or at its right PIN.  So a guesser locks out only itself:
    a referee's browser that has not failed is never refused.

    Venue-wide, ``BURST_FAILS`` wrong PINs within the window are a burst (a guesser that changes
    cookies or addresses): :meth:`slow` is then true (the login slows every check down, which
    bounds the guesses per second without refusing anyone), and :meth:`burst_alert` gives the
    count once per ``BURST_QUIET`` seconds, for an alert to the referees.

    >>> now = [0.0]
    >>> g = LoginGuard(clock=lambda: now[0])
    >>> [g.failed("a") for _ in range(5)], g.locked_for("a"), g.locked_for("b")
    ([0, 0, 0, 0, 60], 60, 0)
    >>> now[0] = 60.5
    >>> g.locked_for("a"), [g.failed("a") for _ in range(5)][-1]    # the second lock is twice as long
    (0, 120)
    """

    def __init__(self, clock, after=LOCK_AFTER, window=LOCK_WINDOW, seconds=LOCK_SECONDS, longest=LOCK_MAX,
                 burst=BURST_FAILS):
        self.clock = clock
        self.after, self.window, self.seconds, self.longest, self.burst = after, window, seconds, longest, burst
        self._clients = {}
        self._all = deque()            # times of every client's wrong PINs in the window
        self._quiet_until = None       # no new burst alert before this

    def _client(self, key, create=False):
        c = self._clients.get(key)
        now = self.clock()
        if c is not None and c.until is None and now - c.last >= FORGET_AFTER:
            del self._clients[key]
            c = None
        if c is None and create:
            if len(self._clients) >= MAX_CLIENTS:    # a flood of made-up cookies must not fill the memory
                self._sweep(now)
            c = self._clients[key] = _Client()
        return c

    def _sweep(self, now):
        old = sorted(self._clients.items(), key=lambda kv: kv[1].last)
        for key, c in old[:max(1, len(old) // 10)]:
            if c.until is None or c.until <= now:
                del self._clients[key]

    def locked_for(self, key):
        """Whole seconds client ``key`` stays locked (0: it may try)."""
        c = self._client(key)
        if c is None or c.until is None:
            return 0
        left = c.until - self.clock()
        if left <= 0:
            c.until = None
            c.fails.clear()   # a fresh window after a lock: five more wrong PINs lock again, for longer
            return 0
        return int(left + 0.999)

    def failed(self, key):
        """Count one wrong PIN of client ``key``; the seconds it is now locked for (0: not locked)."""
        now = self.clock()
        c = self._client(key, create=True)
        c.last = now
        for q in (c.fails, self._all):
            q.append(now)
            while q and now - q[0] >= self.window:
                q.popleft()
        if len(c.fails) >= self.after:
            c.locks += 1
            lock = min(self.seconds * 2 ** min(c.locks - 1, 20), self.longest)
            c.until = now + lock
            c.fails.clear()
            return int(lock)
        return 0

    def succeeded(self, key):
        """Client ``key`` typed the right PIN: it knows it, its wrong PINs no longer count."""
        self._clients.pop(key, None)

    def _recent(self):
        now = self.clock()
        while self._all and now - self._all[0] >= self.window:
            self._all.popleft()
        return len(self._all)

    def slow(self):
        """True during a burst of wrong PINs venue-wide."""
        return self._recent() >= self.burst

    def burst_alert(self):
        """The number of wrong PINs in the window when a burst deserves a new alert, else None."""
        n = self._recent()
        now = self.clock()
        if n < self.burst or (self._quiet_until is not None and now < self._quiet_until):
            return None
        self._quiet_until = now + BURST_QUIET
        return n


# ---- what the pages show ------------------------------------------------------------------------

def _mp_total(boards):
    total = Fraction(0)
    for b in (boards or {}).values():
        exact = b.get("mp_exact") if isinstance(b, dict) else None
        if exact is not None:
            total += Fraction(exact)
        elif isinstance(b, dict) and isinstance(b.get("mp"), (int, float)):
            total += Fraction(str(b["mp"]))
    return half_up(total, 0 if total.denominator == 1 else 2)


def _public_player(p):
    """One standings line as the public page shows it: rank, player, R, total MP, marks."""
    mp = _mp_total(p.get("boards")) if "boards" in p else p.get("mp")  # a summary line has its total
    out = {"rank": p.get("rank"), "player": p.get("player"), "R": p.get("R"), "mp": mp,
           "deals": p.get("deals"), "decided_by": p.get("decided_by"), "playoff": bool(p.get("playoff")),
           "tiebreak": console_mod.tiebreak(p), "adjusted": p.get("adjusted") or []}
    for k in ("name", "no"):
        if k in p:
            out[k] = p[k]
    return out


def public_standings(st):
    """The standings the public page and its stream carry: the venue's standings without the
    per-deal detail (2,000 players × 24 deals is megabytes; the page shows one line per player).
    ``/standings.json`` has everything.

    >>> public_standings({"name": "演示赛", "round": 1, "complete": False, "players": []})["event"]
    '演示赛'
    """
    st = st or {}
    out = {"event": st.get("name") or st.get("event"), "round": st.get("round"), "complete": st.get("complete"),
           "rounds": st.get("rounds"), "round_started": st.get("round_started"), "round_closed": st.get("round_closed"),
           "playoffs": st.get("playoffs", []), "players": [_public_player(p) for p in st.get("players", [])],
           "steps": {k: {"en": v[0], "zh": v[1]} for k, v in STEP_TEXT.items()}}
    if "sides" in st:  # a match event: sides by 场分 and the tie-break chain (one line each, already small)
        out.update(format=st.get("format"), sides=st["sides"], chain=st.get("chain", []), steps=st.get("steps", {}))
    return out


SIDE_COLUMNS = ("rank", "side", "name", "changfen", "jichafen", "played", "wins", "draws", "losses", "byes",
                "level_diff", "opponents_changfen", "penalties", "decided_by")


def sides_csv(st):
    """A match event's standings as CSV, one line per side (the columns of
    ``paizhuo matches standings --format csv`` with the side's name); formula-like text quoted."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SIDE_COLUMNS + ("players",))
    for r in (st or {}).get("sides", []):
        w.writerow([_csv_text(r.get(c)) if c in ("side", "name") else ("" if r.get(c) is None else r.get(c))
                    for c in SIDE_COLUMNS] + [_csv_text(" / ".join(r.get("players") or ()))])
    return buf.getvalue()


def standings_csv(st):
    """The venue's standings as CSV: one line per player, per deal ``<label>_mp/_rate/_place``
    columns (the columns of ``paizhuo score --format csv`` plus ``name`` and ``mp``).  Text cells
    that a spreadsheet would run as a formula get a leading apostrophe."""
    players = (st or {}).get("players", [])
    labels = {}
    for p in players:
        for label, b in (p.get("boards") or {}).items():
            labels[label] = ((b.get("round") or 0), b.get("board") or 0, label)
    order = [k for k, _ in sorted(labels.items(), key=lambda kv: kv[1])]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    head = ["rank", "player", "name", "R", "mp", "playoff", "decided_by", "tiebreak", "deals", "opponents_beaten",
            "opponents_R", "firsts", "places", "think_ms", "think_trimmed_ms", "adjusted"]
    for lab in order:
        head += ["%s_mp" % lab, "%s_rate" % lab, "%s_place" % lab]
    w.writerow(head)
    for p in players:
        ob = p.get("opponents_beaten") or {}
        tb = console_mod.tiebreak(p)
        line = [p.get("rank"), _csv_text(p.get("player")), _csv_text(p.get("name", "")), p.get("R"),
                _mp_total(p.get("boards")), "yes" if p.get("playoff") else "", p.get("decided_by") or "",
                tb["value"] if tb else "",
                p.get("deals"), ob.get("count", ""), "" if ob.get("mean_R") is None else ob.get("mean_R"),
                p.get("firsts"), " ".join(str(c) for c in p.get("places", ())), p.get("think_ms"),
                p.get("think_trimmed_ms"), _csv_text(_adjusted_text(p.get("adjusted")))]
        boards = p.get("boards") or {}
        for lab in order:
            d = boards.get(lab)
            line += [d.get("mp"), d.get("rate"), d.get("place")] if d else ["", "", ""]
        w.writerow(line)
    return buf.getvalue()


def _adjusted_text(notes):
    """A player's corrections in one CSV cell: ``r1b2 score 56→200 (reason); …``."""
    return "; ".join("%s %s %s→%s (%s)" % (n.get("label"), n.get("field"), n.get("old"), n.get("new"), n.get("why"))
                     for n in notes or ())


def _dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)


def _sse(event, data):
    """One server-sent event; ``data`` is JSON on one line (JSON never holds a raw newline)."""
    text = data if isinstance(data, str) else _dumps(data)
    return ("event: %s\ndata: %s\n\n" % (event, text)).encode("utf-8")


# ---- checking a console action ------------------------------------------------------------------

def _need_text(name, limit=MAX_TEXT):
    def check(v):
        if not isinstance(v, str) or not v.strip():
            raise WebError(400, "bad_field", "%s must be text that is not empty" % name, "%s 必须是非空文字" % name)
        v = v.strip()
        if len(v) > limit or not _TEXT.match(v):
            raise WebError(400, "bad_field", "%s must be at most %d characters without control characters"
                           % (name, limit), "%s 最多 %d 个字符，且不能含控制字符" % (name, limit))
        return v
    return check


def _reason(v):
    if not isinstance(v, str) or not v.strip():
        raise WebError(400, "no_reason", "give a reason: every referee action is recorded with its reason",
                       "请填写理由：每项裁判操作都连同理由记录在案")
    return _need_text("reason")(v)


def _seat(v):
    if v not in SEATS:
        raise WebError(400, "bad_field", "seat must be one of E, N, W, S, not %.20r" % (v,),
                       "座位必须是 E、N、W、S（东、北、西、南）之一")
    return v


def _device(v):
    if not isinstance(v, str) or not _ID.match(v):
        raise WebError(400, "bad_field", "dev must be a device id of 1-32 letters, digits, - or _ (as on the "
                       "board's label, e.g. S-0099), not %.40r" % (v,),
                       "dev 必须是设备编号（1–32 个字母、数字、- 或 _，如 S-0099）")
    return v


def _round(v):
    if type(v) is not int or v < 1:
        raise WebError(400, "bad_field", "round must be a whole number of at least 1, not %.20r" % (v,),
                       "round 必须是不小于 1 的整数")
    return v


def _number(name):
    def check(v):
        if type(v) is not int or not 1 <= v <= 100000:
            raise WebError(400, "bad_field", "%s must be a whole number of at least 1, not %.20r" % (name, v),
                           "%s 必须是不小于 1 的整数" % name)
        return v
    return check


def _alert_id(v):
    if (type(v) is int and v >= 1) or (isinstance(v, str) and _TEXT.match(v) and len(v) <= 64):
        return v
    raise WebError(400, "bad_field", "alert must be an alert id from the alerts list, not %.20r" % (v,),
                   "alert 必须是警报列表中的编号")


def _seat_or_all(v):
    return None if v is None else _seat(v)


def _note_text(name):
    return _need_text(name, 80)    # a banner on a seat's screen: one short line


def _value(v):
    # A corrected score or think time is a whole number; a corrected player is an id (text).
    if type(v) is int or (isinstance(v, str) and v.strip() and len(v) <= 64 and _TEXT.match(v)):
        return v
    raise WebError(400, "bad_field", "value must be a whole number (score, think_ms) or a player id, not %.40r"
                   % (v,), "value 必须是整数（分数、用时）或选手编号")


def _scores(v):
    if not isinstance(v, dict) or not v or len(v) > len(SEATS):
        raise WebError(400, "bad_field", "scores must be an object of seat → whole number, like {\"E\": 10, \"N\": -10}",
                       "scores 必须是 座位 → 整数 的对象，如 {\"E\": 10, \"N\": -10}")
    for seat, score in v.items():
        _seat(seat)
        if type(score) is not int or abs(score) > 2 ** 31:
            raise WebError(400, "bad_field", "the score of %s must be a whole number, not %.20r" % (seat, score),
                           "%s 的分数必须是整数" % seat)
    return dict(v)


def _actions(v):
    if v is None:
        return None
    if not isinstance(v, list) or not v or len(v) > 2000 or not all(isinstance(a, dict) for a in v):
        raise WebError(400, "bad_field", "actions must be the deal's corrected record: a list of 1 to 2000 actions "
                       "(objects, as the hand records write them)", "actions 必须是更正后的牌谱：1 到 2000 个操作（对象）的列表")
    return v


def _adjust_deal(venue, who, a):
    if (a["scores"] is None) == (a["actions"] is None):
        raise WebError(400, "bad_field", "give either scores (seat → score) or actions (the corrected record), not both "
                       "or neither", "请给出 scores（各座位分数）或 actions（更正的牌谱）之一")
    return venue.adjust_deal(a["round"], a["table"], a["board"], a["scores"], who, a["reason"], a["unbalanced"],
                             actions=a["actions"])


def _optional_text(name):
    def check(v):
        return None if v is None or (isinstance(v, str) and not v.strip()) else _need_text(name)(v)
    return check


async def _ack_all(venue, who):
    """Acknowledge every open alert (each one audited as its own acknowledgement; the seats that
    called are told, all at once).  Returns ``{"ok": True, "acked": n, "hub_errors": n}``."""
    ids = [a["id"] for a in venue.alerts(open_only=True)]
    venue.audit_event(who, "ack_all_requested", {"alerts": len(ids)})
    replies = await asyncio.gather(*(venue.ack_alert(i, who) for i in ids), return_exceptions=True)
    done = [r for r in replies if isinstance(r, dict)]
    return {"ok": True, "acked": len(done), "hub_errors": sum(1 for r in done if r.get("hub_error")),
            "refused": len(replies) - len(done)}


class Action:
    """A console action: its JSON ``fields`` (name → checker), the ones that may be left out
    (``optional``, given to the checker as None), and the Venue call it makes."""

    def __init__(self, fields, call, zh, optional=()):
        self.fields = fields
        self.call = call
        self.zh = zh
        self.optional = optional


ACTIONS = {
    "pause": Action({"table": _need_text("table", 64), "reason": _reason},
                    lambda v, who, a: v.pause(a["table"], who, a["reason"]), "暂停"),
    "resume": Action({"table": _need_text("table", 64)},
                     lambda v, who, a: v.resume(a["table"], who), "恢复"),
    "ack_alert": Action({"alert": _alert_id},
                        lambda v, who, a: v.ack_alert(a["alert"], who), "确认呼叫/警报"),
    "replace": Action({"table": _need_text("table", 64), "seat": _seat, "dev": _device, "reason": _reason},
                      lambda v, who, a: v.replace(a["table"], a["seat"], a["dev"], who, a["reason"]), "更换座位板"),
    "adjust": Action({"result_id": _need_text("result_id", 200), "field": _need_text("field", 32),
                      "value": _value, "reason": _reason, "unbalanced": _optional_text("unbalanced")},
                     lambda v, who, a: v.adjust(a["result_id"], a["field"], a["value"], who, a["reason"],
                                                a["unbalanced"]),
                     "更正成绩", optional=("unbalanced",)),
    # A deal corrected as a whole (scores: seat → score); a changed total needs its own reason.
    # or recomputed from its corrected record (actions), replayed by the venue.
    "adjust_deal": Action({"round": _round, "table": _need_text("table", 64), "board": _number("board"),
                           "scores": lambda v: None if v is None else _scores(v), "actions": _actions,
                           "reason": _reason, "unbalanced": _optional_text("unbalanced")},
                          lambda v, who, a: _adjust_deal(v, who, a), "更正整副成绩",
                          optional=("scores", "actions", "unbalanced")),
    "reseat_round": Action({"round": _round, "reason": _reason},
                           lambda v, who, a: v.reseat_round(a["round"], who, a["reason"]), "重新安排座位"),
    "ack_all": Action({}, lambda v, who, a: _ack_all(v, who), "确认全部警报"),
    "release": Action({"result_id": _need_text("result_id", 200), "reason": _reason},
                      lambda v, who, a: v.release(a["result_id"], who, a["reason"]), "放行成绩"),
    "start_round": Action({"round": _round}, lambda v, who, a: v.start_round(a["round"], who), "开始本轮"),
    # A match event: a side (or both) did not play its match (弃权); the other scores 2 and 17.
    "forfeit": Action({"round": _round, "table": _need_text("table", 64), "side": _need_text("side", 64), "reason": _reason},
                      lambda v, who, a: v.forfeit(a["round"], a["table"], a["side"], who, a["reason"]), "判弃权"),
    # Publish a board before every table has played it (a table cannot finish it).
    "close_board": Action({"round": _round, "group": _number("group"), "board": _number("board"), "reason": _reason},
                          lambda v, who, a: v.close_board(a["round"], a["group"], a["board"], who, a["reason"]),
                          "公开本副牌"),
    # A referee's message on one seat (or every seat: no seat) of a table; English defaults to the Chinese.
    "note": Action({"table": _need_text("table", 64), "seat": _seat_or_all, "zh": _note_text("zh"),
                    "en": lambda v: None if v is None or (isinstance(v, str) and not v.strip()) else _note_text("en")(v)},
                   lambda v, who, a: v.note(a["table"], a["seat"], a["en"] or a["zh"], a["zh"], who), "发送提示",
                   optional=("seat", "en")),
}


def check_action(name, body):
    """The checked arguments of action ``name`` from the parsed JSON ``body``; refuses an unknown
    action, a body that is not an object, a missing, unknown or malformed field.

    >>> check_action("pause", {"table": "7", "reason": " phone rang "})
    {'table': '7', 'reason': 'phone rang'}
    >>> check_action("pause", {"table": "7"})
    Traceback (most recent call last):
    ...
    paizhuo.venue.web.WebError: reason is missing: give it (pause needs table, reason)
    """
    act = ACTIONS.get(name)
    if act is None:
        raise WebError(404, "unknown_action", "there is no action %.40r; the actions are %s"
                       % (name, ", ".join(ACTIONS)), "没有操作 %.40r；可用的操作是 %s" % (name, "、".join(ACTIONS)))
    if not isinstance(body, dict):
        raise WebError(400, "not_object", "the body must be a JSON object like {\"table\": \"7\", ...}",
                       "请求体必须是 JSON 对象")
    extra = sorted(set(body) - set(act.fields))
    if extra:
        raise WebError(400, "unknown_field", "%s does not take %s; it takes %s" % (name, ", ".join(extra),
                       ", ".join(act.fields)), "%s 不接受字段 %s；应为 %s" % (name, "、".join(extra), "、".join(act.fields)))
    out = {}
    for field, checker in act.fields.items():
        if field not in body and field in act.optional:
            out[field] = checker(None)
            continue
        if field not in body:
            if field == "reason":
                raise WebError(400, "no_reason", "reason is missing: give it (%s needs %s)"
                               % (name, ", ".join(act.fields)), "缺少理由 reason：每项裁判操作都必须写明理由")
            raise WebError(400, "missing_field", "%s is missing: give it (%s needs %s)"
                           % (field, name, ", ".join(act.fields)),
                           "缺少字段 %s（%s 需要 %s）" % (field, name, "、".join(act.fields)))
        out[field] = checker(body[field])
    return out


# ---- live streams ---------------------------------------------------------------------------------

class _Listener:
    """One SSE connection's pending messages, keyed so that a newer message for the same key
    replaces an older one not yet sent: a slow browser gets the latest state, never a backlog."""

    def __init__(self, referee):
        self.referee = referee
        self.pending = {}
        self.wake = asyncio.Event()

    def put(self, key, event, text):
        self.pending[key] = (event, text)
        self.wake.set()

    async def take(self):
        await self.wake.wait()
        self.wake.clear()
        items, self.pending = list(self.pending.values()), {}
        return items


class Live:
    """The one subscription to the venue that every SSE stream shares: each change is turned
    into JSON once (one standings text for every viewer on the projector and the phones), then
    handed to the listeners."""

    def __init__(self, venue):
        self.venue = venue
        self.listeners = set()

    # What a stream starts with, and what it is sent after each change.  ``now`` is the venue's
    # clock, the clock of each row's ``last_seen``: the console counts a clock down from the
    # snapshot's age without comparing two machines' clocks.
    def standings_text(self):
        return _dumps(public_standings(self.venue.public_standings()))

    def tables_text(self):
        return _dumps({"tables": self.venue.public_tables()})

    def seatmap_text(self):
        return _dumps(self.venue.seat_map())

    def scores_text(self):
        """A match event's referee standings (one line per side, small) for the console's stream;
        None for a duplicate event (the console fetches /referee/standings.json, megabytes at
        2,000 players, when it needs them)."""
        st = self.venue.standings_summary()
        return _dumps(public_standings(st)) if "sides" in st else None

    def glance_text(self):
        return _dumps(glance_data(self.venue))

    def alerts_text(self):
        now = self.venue.now_ms()
        return _dumps({"now": now, "alerts": console_mod.alerts_view(self.venue.alerts()[-ALERT_TAIL:], now)})

    def audit_text(self):
        return _dumps({"audit": self.venue.audit()[-AUDIT_TAIL:]})

    def initial(self, referee):
        if not referee:
            return [("standings", self.standings_text()), ("tables", self.tables_text()), ("seatmap", self.seatmap_text())]
        scores = self.scores_text()
        return [("glance", self.glance_text()), ("alerts", self.alerts_text()), ("audit", self.audit_text()),
                ("seatmap", self.seatmap_text())] + ([("standings", scores)] if scores else [])

    def dispatch(self, batch):
        """Send one batch of venue notices (``{"type": "table"|"standings"|"tables"|"alert"|"audit"|"round", ...}``);
        a new round changes every table and the standings' round."""
        if not self.listeners:
            return
        kinds = set()
        tables = []
        for ev in batch:
            kind = ev.get("type") if isinstance(ev, dict) else None
            if kind == "table":
                if ev.get("table") not in tables:
                    tables.append(ev.get("table"))
            elif kind in ("standings", "tables", "alert", "audit", "scores"):
                kinds.add(kind)
            elif kind == "round":
                kinds.update(("standings", "glance", "seatmap", "scores"))
        refs = [lis for lis in self.listeners if lis.referee]
        public = [lis for lis in self.listeners if not lis.referee]
        if "standings" in kinds and public:
            text = self.standings_text()
            for lis in public:
                lis.put("standings", "standings", text)
        if "tables" in kinds and public:
            text = self.tables_text()
            for lis in public:
                lis.put("tables", "tables", text)
        if "seatmap" in kinds:  # who sits where: public from the moment a round is seated
            text = self.seatmap_text()
            for lis in self.listeners:
                lis.put("seatmap", "seatmap", text)
        if not refs:
            return
        text = self.scores_text() if ("scores" in kinds or "standings" in kinds) else None
        for lis in refs if text else ():  # a match event's referee standings: every counted match
            lis.put("standings", "standings", text)
        if "glance" in kinds:
            text = self.glance_text()
            for lis in refs:
                lis.put("glance", "glance", text)
        elif tables:
            now = self.venue.now_ms()
            rows = {r.get("table"): r for r in self.venue.glance(tables)}
            for t in tables:
                if t in rows:
                    text = _dumps({"now": now, "table": rows[t]})
                    for lis in refs:
                        lis.put(("table", t), "table", text)
        for kind, name, make in (("alert", "alerts", self.alerts_text), ("audit", "audit", self.audit_text)):
            if kind in kinds:
                text = make()
                for lis in refs:
                    lis.put(name, name, text)

    async def run(self):
        """Follow the venue until cancelled (the app's cleanup cancels it)."""
        queue = self.venue.subscribe()
        try:
            while True:
                batch = [await queue.get()]
                while not queue.empty():     # everything already queued goes out as one batch
                    batch.append(queue.get_nowait())
                if queue.maxsize and len(batch) >= queue.maxsize:
                    # The venue drops notices for a full queue: some changes may be lost, so
                    # every page gets everything again.
                    batch.append({"type": "round"})
                    batch.append({"type": "alert"})
                    batch.append({"type": "audit"})
                try:
                    self.dispatch(batch)
                except Exception:            # a bad notice must not end every live page
                    log.exception("live update failed for %r", batch[:3])
        finally:
            self.venue.unsubscribe(queue)


# ---- the application ------------------------------------------------------------------------------

K_VENUE = web.AppKey("venue", object)
K_STATE = web.AppKey("state", object)


class _State:
    def __init__(self, venue, pin_hash, secure_cookies, clock):
        self.venue = venue
        self.pin_hash = pin_hash
        self.secure = secure_cookies
        self.sessions = Sessions(clock)
        self.guard = LoginGuard(clock)
        self.slow_seconds = BURST_SLOW
        self.pin_lock = asyncio.Lock()
        self.pending = {}              # address -> PIN checks waiting for pin_lock
        self.live = Live(venue)
        self.tasks = []
        self.streams = set()


def _json(data, status=200, headers=None):
    return web.Response(text=_dumps(data), status=status, content_type="application/json",
                        charset="utf-8", headers=headers)


def _refusal(err, status):
    return _json(dict(err.to_dict(), ok=False), status=status)


def _page(name):
    return web.FileResponse(STATIC / name, headers={"Content-Type": "text/html; charset=utf-8"})


def _text_page(title_zh, title_en, message_zh, message_en, status):
    esc = html.escape
    body = ('<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><title>%s %s</title>'
            '<link rel="stylesheet" href="/static/common.css"></head><body class="notice"><main>'
            '<h1>%s <span class="en">%s</span></h1><p>%s</p><p class="en">%s</p>'
            '<p><a href="/">成绩排名 Standings</a></p></main></body></html>'
            % (esc(title_zh), esc(title_en), esc(title_zh), esc(title_en), esc(message_zh), esc(message_en)))
    return web.Response(text=body, status=status, content_type="text/html", charset="utf-8")


def _session(request):
    st = request.app[K_STATE]
    return st.sessions.get(request.cookies.get(SESSION_COOKIE))


def _audit(st, who, action, detail):
    """Write one audit row for something the web itself decided (logins); the venue's own
    actions audit themselves."""
    try:
        st.venue.audit_event(who, action, detail)
    except Exception:
        # The login answer must not depend on the audit write; the log says it was lost.
        log.exception("audit %s by %r not written", action, who)


def _alert(st, kind, fields):
    """Raise a venue alert for the referees' console (a burst of wrong PINs)."""
    try:
        st.venue.alert_event(kind, fields)
    except Exception:
        log.exception("alert %s not written", kind)


def _clean(text):
    try:
        check_text(text)
    except InputError:
        return False
    return True


def _origin_ok(request):
    """A POST that says where it comes from must come from this site (CSRF defence in depth,
    beside SameSite=Strict and the X-CSRF header)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.host


async def _on_prepare(request, response):
    h = response.headers
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "same-origin")
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("Content-Security-Policy", _CSP_PAGE)
    if request.path.startswith("/referee"):
        h["Cache-Control"] = "no-store"
    elif "Cache-Control" not in h:
        h["Cache-Control"] = "no-cache"


# -- public

async def index(request):
    return _page("standings.html")


async def standings_json(request):
    return _json(request.app[K_VENUE].public_standings())


async def tables_json(request):
    return _json({"tables": request.app[K_VENUE].public_tables()})


async def seatmap_json(request):
    return _json(request.app[K_VENUE].seat_map())


async def standings_csv_route(request):
    st = request.app[K_VENUE].public_standings()
    return web.Response(text=sides_csv(st) if "sides" in st else standings_csv(st), content_type="text/csv",
                        charset="utf-8", headers={"Content-Disposition": 'attachment; filename="standings.csv"'})


def _round_of(text):
    if not re.fullmatch(r"[1-9][0-9]{0,3}", text):
        raise WebError(404, "not_found", "there is no round %.20r: rounds are numbered 1, 2, 3, …" % text,
                       "没有第 %.20r 轮：轮次为 1、2、3……" % text)
    return int(text)


async def records(request):
    name = request.match_info["round"]
    as_json = name.endswith(".json")
    venue = request.app[K_VENUE]
    try:
        rnd = _round_of(name[:-5] if as_json else name)
        data = venue.records(rnd)
    except CodedError as e:
        if as_json:
            return _refusal(e, _status_of(e))
        return _text_page("没有牌谱", "No hand records", e.zh, e.en, _status_of(e))
    if as_json:
        return _json(data)
    return web.Response(text=records_mod.render_html(data), content_type="text/html", charset="utf-8",
                        headers={"Content-Security-Policy": _CSP_RECORDS})


async def _stream(request, referee):
    """An SSE stream: the current state at once, then every change, a comment every 15 s."""
    st = request.app[K_STATE]
    session = _session(request) if referee else None
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8",
                                       "Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    await resp.prepare(request)
    listener = _Listener(referee)
    st.live.listeners.add(listener)       # before the first state: no change can fall in between
    task = asyncio.current_task()
    st.streams.add(task)
    try:
        await resp.write(b"retry: 2000\n\n")
        for event, text in st.live.initial(referee):
            await resp.write(_sse(event, text))
        while True:
            items = None
            try:   # not wait_for: on Python 3.11 it can swallow the shutdown's cancel of this stream
                async with asyncio.timeout(HEARTBEAT_S):
                    items = await listener.take()
            except TimeoutError:
                pass
            if referee and st.sessions.get(session.token) is None:
                await resp.write(_sse("logout", {"code": "login_needed", "en": "the session ended; log in again",
                                                 "zh": "登录已过期，请重新登录"}))
                break
            if items is None:
                await resp.write(b": keep-alive\n\n")
                continue
            for event, text in items:
                await resp.write(_sse(event, text))
    except ConnectionResetError:      # the browser went away
        pass
    finally:                          # (cancelled: the server is stopping)
        st.live.listeners.discard(listener)
        st.streams.discard(task)
    return resp


async def live_standings(request):
    return await _stream(request, referee=False)


# -- referee: login

def _browser(request):
    """The browser's login-client id from its cookie (None: it has none, or a malformed one)."""
    value = request.cookies.get(BROWSER_COOKIE)
    return value if isinstance(value, str) and _BROWSER.match(value) else None


def _set_browser(request, resp):
    if _browser(request) is None:
        resp.set_cookie(BROWSER_COOKIE, secrets.token_urlsafe(24), max_age=BROWSER_SECONDS, path="/referee",
                        httponly=True, samesite="Strict", secure=request.app[K_STATE].secure)
    return resp


async def login_page(request):
    if _session(request) is not None:
        raise web.HTTPSeeOther("/referee")
    # The page gives the browser its own id: wrong PINs from other browsers never lock it out.
    text = (STATIC / "login.html").read_text(encoding="utf-8")
    return _set_browser(request, web.Response(text=text, content_type="text/html", charset="utf-8"))


def _login_answer(request, as_json, err):
    if as_json:
        return _refusal(err, err.status)
    text = (STATIC / "login.html").read_text(encoding="utf-8")
    msg = "%s<br><span class=\"en\">%s</span>" % (html.escape(err.zh), html.escape(err.en))
    text = text.replace("<!--message-->", msg)
    return web.Response(text=text, status=err.status, content_type="text/html", charset="utf-8")


async def _body(request):
    """The request's JSON body, checked (size, nesting, text, numbers) by :mod:`paizhuo.inputs`."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise WebError(413, "too_big", "the body is larger than %d bytes; a console action is a few hundred"
                       % MAX_BODY, "请求体超过 %d 字节；控制台操作只有几百字节" % MAX_BODY) from None
    try:
        return parse_json(raw, "the body", max_bytes=MAX_BODY)
    except InputError as e:
        raise WebError(400, "bad_json", "%s; send a JSON object like {\"table\": \"7\", \"reason\": \"…\"}" % e.en,
                       "%s；请发送 JSON 对象" % e.zh) from None


async def _check_pin(st, who, pin, remote, client):
    """One PIN check under ``pin_lock`` (the counts cannot be raced): ``(good, slow)``, or WebError
    when this browser is locked.  ``slow``: a wrong PIN during a burst venue-wide."""
    async with st.pin_lock:
        left = st.guard.locked_for(client)
        if left:
            _audit(st, who, "login_locked", {"remote": remote, "seconds": left})
            raise WebError(429, "locked", "too many wrong PINs from this browser: it may try again in %d s; "
                           "other browsers and referees already logged in are not affected" % left,
                           "本浏览器 PIN 码错误次数过多，已锁定：请 %d 秒后再试；其他浏览器和已登录的裁判不受影响" % left)
        loop = asyncio.get_running_loop()
        good = await loop.run_in_executor(None, check_secret, pin, st.pin_hash)
        if good:
            st.guard.succeeded(client)
            return True, False
        locked = st.guard.failed(client)
        # The typed PIN is never written down: a near miss would tell a reader the real one.
        _audit(st, who, "login_failed", {"remote": remote, "locked": bool(locked), "lock_seconds": locked})
        burst = st.guard.burst_alert()
        if burst is not None:
            _alert(st, "login_burst", {"wrong_pins": burst, "seconds": int(LOCK_WINDOW), "remote": remote})
        return False, st.guard.slow()


async def login(request):
    st = request.app[K_STATE]
    as_json = request.content_type == "application/json"
    try:
        if not _origin_ok(request):
            raise WebError(403, "bad_origin", "this form must be sent from the venue's own page",
                           "请从本赛场的登录页面提交")
        if as_json:
            body = await _body(request)
            if not isinstance(body, dict):
                raise WebError(400, "not_object", "send {\"who\": …, \"pin\": …}", "请发送 {\"who\": …, \"pin\": …}")
        else:
            body = dict(await request.post())
        who, pin = body.get("who"), body.get("pin")
        if not isinstance(who, str) or not who.strip() or len(who.strip()) > MAX_WHO or not _TEXT.match(who.strip()) \
                or not _clean(who):
            raise WebError(400, "bad_name", "type your name (1-%d characters): it is recorded with every action"
                           % MAX_WHO, "请输入您的姓名（1–%d 个字）：每项操作都会记录操作人" % MAX_WHO)
        who = who.strip()
        if not isinstance(pin, str) or not pin or len(pin) > 64 or not _clean(pin):
            raise WebError(400, "bad_pin", "type the referee PIN", "请输入裁判 PIN 码")
        remote = request.remote or ""
        client = (remote, _browser(request))
        if st.pending.get(remote, 0) >= MAX_PENDING:
            # Checks run one at a time; an address that floods them would make everyone else wait.
            raise WebError(429, "busy", "too many PIN checks from this address are waiting; send one at a time",
                           "本地址等待校验的 PIN 码过多：请逐次提交")
        st.pending[remote] = st.pending.get(remote, 0) + 1
        try:
            good, slow = await _check_pin(st, who, pin, remote, client)
        finally:
            st.pending[remote] -= 1
            if not st.pending[remote]:
                del st.pending[remote]
        if not good:
            if slow:
                # A burst (many browsers or addresses): each wrong answer comes late, outside the
                # lock, so guesses are slow while the right PIN of another browser is not kept waiting.
                await asyncio.sleep(st.slow_seconds)
            raise WebError(403, "wrong_pin", "wrong PIN; the attempt is recorded",
                           "PIN 码错误；本次尝试已记录")
    except WebError as e:
        return _login_answer(request, as_json, e)
    session = st.sessions.open(who)
    _audit(st, who, "login", {"remote": remote})
    if as_json:
        resp = _json({"ok": True, "who": who, "csrf": session.csrf})
    else:
        resp = web.Response(status=303, headers={"Location": "/referee"})
    resp.set_cookie(SESSION_COOKIE, session.token, max_age=SESSION_SECONDS, path="/referee", httponly=True,
                    samesite="Strict", secure=st.secure)
    return resp


# -- referee: pages, data, actions

def _need_page_session(request):
    s = _session(request)
    if s is None:
        raise web.HTTPSeeOther("/referee/login")
    return s


def _need_api_session(request):
    s = _session(request)
    if s is None:
        raise WebError(401, "login_needed", "log in at /referee/login first (or the session has expired)",
                       "请先在 /referee/login 登录（或登录已过期）")
    return s


# The HTTP status of a venue refusal: the request itself is wrong (400), the thing named does not
# exist (404), the hub cannot be reached now (503) or did not answer in time (504); anything else
# the venue or a hub refused in the state things are in is 409.
_BAD = ("bad_row", "bad_request", "bad_record", "no_reason", "no_who")
_NOT_FOUND = ("unknown_table", "unknown_alert", "unknown_round", "unknown_board", "unknown_deal", "not_found",
              "not_finished")
_STATUS = dict({c: 400 for c in _BAD}, **{c: 404 for c in _NOT_FOUND}, hub_offline=503, no_reply=504)


def _status_of(err):
    return getattr(err, "status", None) or _STATUS.get(err.code, 409)


def _api(handler):
    """A JSON route of the console: needs a session; WebError and venue refusals answer as JSON
    ``{"ok": false, "code", "en", "zh"}``."""
    async def wrapped(request):
        try:
            return await handler(request, _need_api_session(request))
        except CodedError as e:
            return _refusal(e, _status_of(e))
    wrapped.__name__ = handler.__name__
    return wrapped


async def console(request):
    _need_page_session(request)
    return _page("console.html")


async def table_route(request):
    name = request.match_info["table"]
    if name.endswith(".json"):
        return await _table_json(request)
    _need_page_session(request)
    return _page("console.html")


@_api
async def _table_json(request, session):
    table = request.match_info["table"][:-5]
    venue = request.app[K_VENUE]
    return _json({"now": venue.now_ms(), "table": venue.table(table)})


@_api
async def session_json(request, session):
    st = request.app[K_STATE]
    return _json({"who": session.who, "csrf": session.csrf, "event": st.venue.event_name,
                  "actions": {k: {"fields": list(a.fields), "zh": a.zh} for k, a in ACTIONS.items()},
                  "games": {name: "%s %s" % title[::-1] for name, title in rules_.TITLES.items()},
                  "seats": list(st.venue.seats)})  # the event's game's seats: the seat choices of the forms


def glance_data(venue):
    """The console's glance: every table, the counts, the rounds and whether the event is over."""
    rows = venue.glance()
    return {"now": venue.now_ms(), "tables": rows, "summary": console_mod.summary(rows, venue.alerts(open_only=True)),
            "rounds": venue.rounds(), "round": venue.round, "finished": venue.finished.is_set()}


@_api
async def glance_json(request, session):
    return _json(glance_data(request.app[K_VENUE]))


def _query_round(request, default=None):
    text = request.query.get("round")
    if text is None:
        return default
    try:
        return _round_of(text)
    except WebError:
        raise WebError(400, "bad_field", "round must be a round number (1, 2, …), not %.20r" % text,
                       "round 必须是轮次（1、2……）") from None


@_api
async def results_json(request, session):
    """``/referee/results.json?round=R&table=T``: one table's results of any round so far."""
    venue = request.app[K_VENUE]
    table = request.query.get("table")
    if not table:
        raise WebError(400, "missing_field", "give ?table=… (and ?round=…)", "请给出 ?table=…（及 ?round=…）")
    return _json(venue.table_results(_query_round(request, venue.round), table))


@_api
async def referee_boards_json(request, session):
    """Every board across tables from the referees' standings (boards still in play too)."""
    venue = request.app[K_VENUE]
    return _json({"boards": console_mod.board_breakdown(venue.standings(), _query_round(request))})


async def boards_json(request):
    """The public per-board breakdown: public boards only (every table of the group has finished them)."""
    venue = request.app[K_VENUE]
    try:
        rnd = _query_round(request)
    except WebError as e:
        return _refusal(e, e.status)
    return _json({"boards": console_mod.board_breakdown(venue.public_standings(), rnd)})


@_api
async def referee_standings_json(request, session):
    return _json(request.app[K_VENUE].standings())


@_api
async def alerts_json(request, session):
    venue = request.app[K_VENUE]
    now = venue.now_ms()
    return _json({"now": now, "alerts": console_mod.alerts_view(venue.alerts(), now)})


@_api
async def audit_json(request, session):
    return _json({"audit": request.app[K_VENUE].audit()})


def _check_csrf(request, session):
    sent = request.headers.get("X-CSRF", "")
    if not _origin_ok(request) or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
        raise WebError(403, "csrf", "the request lacks the console's X-CSRF token; reload the console page",
                       "请求缺少控制台的 X-CSRF 令牌；请刷新控制台页面")


@_api
async def action(request, session):
    _check_csrf(request, session)
    name = request.match_info["action"]
    if name not in ACTIONS:
        check_action(name, {})
    args = check_action(name, await _body(request))
    reply = await ACTIONS[name].call(request.app[K_VENUE], session.who, args)
    return _json({"ok": True, "action": name, "reply": reply})


@_api
async def logout(request, session):
    _check_csrf(request, session)
    st = request.app[K_STATE]
    st.sessions.close(session.token)
    _audit(st, session.who, "logout", {})
    resp = _json({"ok": True})
    resp.del_cookie(SESSION_COOKIE, path="/referee")
    return resp


async def referee_live(request):
    if _session(request) is None:
        return _refusal(WebError(401, "login_needed", "log in at /referee/login first", "请先登录"), 401)
    return await _stream(request, referee=True)


# -- lifecycle

async def _start(app):
    st = app[K_STATE]
    st.tasks.append(asyncio.create_task(st.live.run(), name="paizhuo-web-live"))


async def _shutdown(app):
    # Open SSE streams never end by themselves: end them so the server can stop.
    for task in list(app[K_STATE].streams):
        task.cancel()


async def _cleanup(app):
    st = app[K_STATE]
    for task in st.tasks:
        task.cancel()
    for task in st.tasks:
        try:
            await task
        except asyncio.CancelledError:
            pass
    st.tasks.clear()


def make_app(venue, pin_hash, *, secure_cookies=False, clock=time.monotonic):
    """The venue's web application.

    ``venue`` is the running :class:`~paizhuo.venue.service.Venue`; ``pin_hash`` the referee PIN's
    ``pbkdf2-sha256$rounds$salt$hash`` (``paizhuo venue pin``); ``secure_cookies`` marks the
    session cookie Secure (set it when the pages are served over HTTPS); ``clock`` (monotonic
    seconds) times sessions and the login lock — tests pass their own.

    >>> make_app(None, "1234")
    Traceback (most recent call last):
    ...
    ValueError: the referee PIN must be given as its pbkdf2-sha256 hash (from `paizhuo venue pin`), not as the PIN itself
    """
    if not isinstance(pin_hash, str) or not re.fullmatch(r"pbkdf2-sha256\$[0-9]+\$[0-9a-f]+\$[0-9a-f]{64}", pin_hash):
        raise ValueError("the referee PIN must be given as its pbkdf2-sha256 hash (from `paizhuo venue pin`), "
                         "not as the PIN itself")
    app = web.Application(client_max_size=MAX_BODY)
    app[K_VENUE] = venue
    app[K_STATE] = _State(venue, pin_hash, secure_cookies, clock)
    app.on_response_prepare.append(_on_prepare)
    app.on_startup.append(_start)
    app.on_shutdown.append(_shutdown)
    app.on_cleanup.append(_cleanup)
    r = app.router
    r.add_get("/", index)
    r.add_get("/standings.json", standings_json)
    r.add_get("/standings.csv", standings_csv_route)
    r.add_get("/tables.json", tables_json)
    r.add_get("/seatmap.json", seatmap_json)
    r.add_get("/records/{round}", records)
    r.add_get("/live/standings", live_standings)
    r.add_get("/referee/login", login_page)
    r.add_post("/referee/login", login)
    r.add_post("/referee/logout", logout)
    r.add_get("/referee", console)
    r.add_get("/referee/", console)
    r.add_get("/referee/session.json", session_json)
    r.add_get("/referee/glance.json", glance_json)
    r.add_get("/referee/alerts.json", alerts_json)
    r.add_get("/referee/audit.json", audit_json)
    r.add_get("/referee/standings.json", referee_standings_json)
    r.add_get("/referee/results.json", results_json)
    r.add_get("/referee/boards.json", referee_boards_json)
    r.add_get("/boards.json", boards_json)
    r.add_get("/referee/table/{table}", table_route)
    r.add_get("/referee/live", referee_live)
    r.add_post("/referee/api/{action}", action)
    r.add_static("/static/", STATIC, follow_symlinks=False)
    return app
