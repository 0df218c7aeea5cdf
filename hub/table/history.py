"""What a table's event log says happened: deals, actions, clocks, results — rebuilt by replay.

The hub uses :class:`TableHistory` to resume after a restart (the deal in progress, its
turn, its clock); ``paizhuo hub verify`` uses :func:`audit` to check a log from the outside:
the hash chain, each deal's hash against its cards, and each logged result against the
result the engine computes by replaying the logged actions.

Entry kinds and their bodies (all written by :mod:`paizhuo.table.runtime`):

============  =========================================================================
kind          body
============  =========================================================================
hub_start     ``hub``, ``config`` (sha256 of the config text), ``resumed`` (deal or null)
deal_start    ``deal`` (0-based index in the plan), ``board``, ``deal_hash``,
              ``deal_record`` (the venue's deal record), ``engine`` (game, rules, deal);
              for a match game also ``n``, the deal's number in the board's match (from 1:
              a board's later deals have their own deal_start with the same ``deal``)
deal_end      a match game's deal ended: ``deal``, ``n``, ``board``, ``deal_hash`` (of that
              deal), ``result`` (the deal's result), ``progress`` (the match after it)
clock         ``deal``, ``key`` (the decision: a phase in which several seats decide at once,
              like ``"show"``, or ``"t"`` and the turn number; a match game prefixes ``n:``),
              ``turn`` (turn when it started), ``seats``, ``limit_ms``, ``remaining_ms``,
              ``why`` (``start``, ``resume``, ``restart``)
action        ``deal``, ``turn`` (actions before it), ``action`` (with ``seat``, ``auto``,
              ``think_ms``), ``by`` (``seat``, ``clock`` or ``bot``)
pause         ``deal``, ``key``, ``remaining_ms``, ``by``, ``reason``
time_up       a timed board's time is reached (a match's ``match_minutes``): ``deal``, ``n``
              (the deal in progress, or the last one between deals), ``limit_ms``,
              ``board_ms``; no new deal of the board starts after it (a ``result`` follows
              at once when the board is over then)
(board_ms)    a timed board's elapsed time on the hub's clock, in ``deal_start``, ``clock``,
              ``pause``, ``deal_end`` and ``time_up`` (pauses and hub downtime not counted)
result        the board ended: ``deal``, ``board``, ``deal_hash`` (of its first deal),
              ``result`` (the board's result: scores, think_ms per seat, auto_moves, ...),
              ``actions`` (count, every deal's); a match game's also ``record`` (the board's)
seat          ``seat``, ``dev``, ``port``, ``online``, ``reason`` (and ``fw``, ``board``)
call          ``seat``, ``dev``, ``why``, ``deal``, ``turn`` (叫裁判)
rejects       ``counts`` ({seat or port: {code: n}}), ``deal``
waiting       ``reason`` (every planned deal is played)
hub_stop      ``reason``
round         a venue round spec loaded (venue mode): ``id``, ``round``, ``group``, ``game``,
              ``table``, ``boards``, ``deal_hashes`` ({board as text: the deal's hash}),
              ``players`` ({seat: id, name, no, bot}), ``moves``, ``start`` (the plan index
              of its first deal).  No cards: the round key comes with the start.  A second
              ``round`` entry with the same number replaces the last one (allowed only
              before that round has started)
round_start   ``round``, ``id``, ``deals`` (the deal records the hub derived from the round
              key in the venue's start, each matching its board's hash in the ``round``
              entry): the venue's start for that round; for a match game also ``key`` (the
              round key, hex: a match's later deals derive from it)
checkin       ``round``, ``seat``, ``no``, ``player``, ``dev``: a player checked in
unchecked     ``round``, ``seats``: seats that played the round's first deal without a
              check-in (written with that ``deal_start``)
replace       ``seat``, ``dev`` (the board from now on), ``old``, ``by``, ``reason``
board_end     ``round``, ``deals`` (the plan indices of its boards not finished), ``by``,
              ``reason`` (and ``n``, ``turn`` when a deal of them was being played): the
              venue's referee forfeited the round's match, so these boards end unplayed (the
              one in progress stops where it is, no result follows, none starts later)
ack_call      ``seat``, ``by``: a referee acknowledged a call
note          ``seat`` (or null: every seat), ``en``, ``zh``: a referee's message
log_override  ``reason``, ``by``, ``problems`` (what the start-up check found: a broken
              chain, a log shorter than the hub's kept head), ``kept`` (that head or null):
              a referee started the hub on this log anyway (``--override-log``)
============  =========================================================================

The plan a table plays is the configuration's ``[deals]`` (if any) followed by every
``round`` entry's boards (:class:`Plan`); the deal index in ``deal_start`` is the index in
that whole plan, so it stays unique across rounds.  A venue round's place in the plan is
fixed by its boards when it is loaded; its cards fill that place when it starts (no deal
exists at the table before its round: docs/movement-and-deals.md).
"""

import sqlite3

from .. import deals as deals_
from .. import rules as rules_
from ..errors import SQLITE_READ_ERRORS, CodedError
from . import eventlog

__all__ = ["DealHistory", "TableHistory", "HistoryError", "audit", "AuditReport", "RoundPlan", "Plan"]



class HistoryError(CodedError):
    """The log does not replay: an illegal or out-of-order action, a missing deal start, …"""

    def __init__(self, seq, en, zh=None):
        super().__init__("bad_history", "entry %s: %s" % (seq, en), "第 %s 条：%s" % (seq, zh or en))
        self.seq = seq


class DealHistory:
    """One board as logged (one plan index): its start, the replayed board and engine, its
    last clock, its result.  A match game's board holds several deals: ``parts`` lists each
    one's ``(deal record, deal hash, engine state)``; ``game`` is the last one's state."""

    __slots__ = ("index", "board", "deal_hash", "deal_record", "game", "engine", "clock", "paused", "result",
                 "start_seq", "match", "n", "ended", "parts", "deal_result", "board_ms", "board_ms_seq",
                 "forfeit")

    def __init__(self, index, board, deal_hash, deal_record, game, start_seq, engine=None, match=None):
        self.index = index
        self.board = board
        self.deal_hash = deal_hash  # of the board's first deal: the hash the venue's spec gave
        self.deal_record = deal_record
        self.game = game  # the engine state of the board's current (last) deal, replayed to the last logged action
        self.engine = engine  # its rules module (from the registry): how a logged action is read
        self.match = match  # the board object (registry's new_board), replayed deal by deal
        self.n = 1  # the number of the current deal in the board
        self.ended = False  # the current deal's end is logged (a deal_end entry, or the board's result)
        self.parts = [(deal_record, deal_hash, game)]
        self.deal_result = None  # the last logged deal_end's result (a match between deals)
        self.clock = None  # the last clock entry's body, plus "seq"
        self.paused = None  # the pause entry's body if the table is paused, else None
        self.board_ms = None  # a timed board's elapsed time, as last logged ...
        self.board_ms_seq = None  # ... in the entry of this seq
        self.forfeit = None  # the board_end entry's body when a referee ended the board unplayed
        self.result = None  # the logged result body, when the board ended
        self.start_seq = start_seq

    @property
    def finished(self):
        return self.result is not None or self.forfeit is not None


class RoundPlan:
    """One round of a table's plan: its boards, their deals, its players and where it stands.

    ``venue`` rounds come from the venue's round spec and need the venue's start and every
    player's check-in before their first deal; the configuration's ``[deals]`` form a round
    with ``venue=False`` that starts as soon as the seats are there (as a standalone hub).

    A venue round is loaded with its boards and their deal hashes (``hashes``, board → hash)
    but no cards: ``records`` is None until the start brings the round key and the hub has
    derived the deals (:meth:`mismatches` checks them against the hashes first).

    >>> r = RoundPlan(1, 1, [], {"E": {"id": "P1", "name": "A", "no": 1, "bot": False}}, venue=False)
    >>> r.player("E")["no"], r.player("N"), r.started
    (1, None, True)
    >>> v = RoundPlan(2, 1, None, {}, boards=[3, 4], hashes={3: "a" * 64, 4: "b" * 64}, start=5)
    >>> v.dealt, v.covers(6), v.covers(7), v.body()["deal_hashes"]["4"][:3]
    (False, True, False, 'bbb')
    """

    __slots__ = ("id", "round", "group", "game", "table", "boards", "hashes", "players", "moves", "records",
                 "start", "venue", "started", "checked", "key", "rules")

    def __init__(self, round, group, records, players, venue=True, id=None, game=rules_.DEFAULT_GAME, table=None,
                 boards=None, moves=None, start=0, hashes=None, key=None, rules=None):
        self.id = id
        self.round = round
        self.group = group
        self.game = game
        self.table = table
        self.records = list(records) if records is not None else None  # None: the round key has not come
        self.boards = list(boards) if boards is not None else [r.board for r in self.records]
        self.hashes = dict(hashes) if hashes is not None else {r.board: r.hash for r in self.records}
        self.players = dict(players)
        self.moves = moves
        self.start = start  # the plan index of its first deal
        self.venue = venue
        self.started = not venue  # the venue's start has arrived (a configured round needs none)
        self.checked = {}  # seat -> the checkin body
        self.key = key  # the round key (bytes) a match's later deals derive from, once known
        self.rules = rules  # the venue's rules for the round (the engine's Rules.to_dict()), or None

    @property
    def dealt(self):
        """True once the round's deals are known (a configured round, or a started venue round)."""
        return self.records is not None

    def player(self, seat):
        return self.players.get(seat)

    def is_bot(self, seat):
        """True if the round's player at ``seat`` is the computer (人机赛)."""
        p = self.players.get(seat)
        return bool(p and p.get("bot"))

    def covers(self, index):
        return self.start <= index < self.start + len(self.boards)

    def mismatches(self, records):
        """The boards whose deal in ``records`` (one per board, in order) is not the one the
        round was given: another hash, board, round, group or game.  Empty when all agree.

        >>> from paizhuo import deals
        >>> key = deals.round_key(b"event", 2)
        >>> recs = [deals.deal_from_round_key(key, rules_.DEFAULT_GAME, 1, b, round=2) for b in (1, 2)]
        >>> r = RoundPlan(2, 1, None, {}, boards=[1, 2], hashes={1: recs[0].hash, 2: recs[1].hash})
        >>> r.mismatches(recs), r.mismatches(recs[::-1]), r.mismatches(recs[:1])
        ([], [1, 2], [2])
        """
        out = []
        for i, board in enumerate(self.boards):
            rec = records[i] if i < len(records) else None
            if rec is None or (rec.board, rec.hash, rec.round, rec.group, rec.game) != (
                    board, self.hashes.get(board), self.round, self.group, self.game):
                out.append(board)
        return out

    def body(self):
        """The ``round`` log entry's body (no cards: those come with the start)."""
        body = {"id": self.id, "round": self.round, "group": self.group, "game": self.game, "table": self.table,
                "boards": list(self.boards), "deal_hashes": {str(b): self.hashes[b] for b in self.boards},
                "players": self.players, "moves": self.moves, "start": self.start}
        if self.rules is not None:
            body["rules"] = self.rules
        return body

    def start_body(self, records, key=None):
        """The ``round_start`` log entry's body: the round and the deals derived at the start
        (and the round key, when a match's later deals will need it)."""
        body = {"round": self.round, "id": self.id, "deals": [r.to_dict() for r in records]}
        if key is not None:
            body["key"] = key.hex()
        return body

    @classmethod
    def from_body(cls, body, seq="?"):
        """The round of a logged ``round`` entry (not dealt yet); HistoryError if it does not check."""
        try:
            boards = body["boards"]
            hashes = body["deal_hashes"]
            if not isinstance(hashes, dict) or set(hashes) != {str(b) for b in boards}:
                raise ValueError("deal_hashes must give one hash for each board %s" % (boards,))
            r = cls(body["round"], body["group"], None, body["players"], id=body["id"], game=body["game"],
                    table=body["table"], boards=boards, moves=body.get("moves"), start=body["start"],
                    hashes={b: hashes[str(b)] for b in boards}, rules=body.get("rules"))
        except (KeyError, TypeError, ValueError) as e:
            raise HistoryError(seq, "the round entry does not load: %s" % (getattr(e, "en", None) or repr(e))) from None
        return r

    def deal_from_body(self, body, seq="?"):
        """Set the deals of a logged ``round_start`` entry, checked against the round's hashes."""
        try:
            records = [deals_.DealRecord.from_dict(d) for d in body["deals"]]
        except (KeyError, TypeError, deals_.DealError) as e:
            raise HistoryError(seq, "the deals of round %s's start do not load: %s"
                               % (self.round, getattr(e, "en", None) or repr(e))) from None
        bad = self.mismatches(records)
        if bad or len(records) != len(self.boards):
            raise HistoryError(seq, "the deals of round %s's start are not the boards the round was given (%s)"
                               % (self.round, ", ".join(map(str, bad)) or "too many deals"))
        if body.get("key") is not None:
            try:
                key = bytes.fromhex(body["key"])
                given = [deals_.deal_from_round_key(key, r.game, r.group, r.board, round=r.round) for r in records]
            except (TypeError, ValueError, deals_.DealError):
                raise HistoryError(seq, "the round key of round %s's start is not a round key" % self.round) from None
            if given != records:  # the key a match's later deals come from must be the one that gave its first
                raise HistoryError(seq, "the round key of round %s's start does not give its deals" % self.round)
            self.key = key
        self.records = records


class Plan:
    """The rounds a table plays, in order, and the deals they add up to (``records``: one
    per plan index, None where a venue round has not started yet; ``boards``: the board
    number of each index).

    >>> p = Plan()
    >>> p.add(RoundPlan(1, 1, [], {}, id="a"))
    >>> p.add(RoundPlan(2, 1, [], {}, id="b")); [r.id for r in p.rounds]
    ['a', 'b']
    >>> p.add(RoundPlan(2, 1, [], {}, id="c")); [r.id for r in p.rounds]  # round 2 again: replaced
    ['a', 'c']
    >>> p.add(RoundPlan(3, 1, None, {}, id="d", boards=[7, 8], hashes={7: "", 8: ""})); p.records, p.boards
    ([None, None], [7, 8])
    """

    def __init__(self, base=None):
        self.rounds = [base] if base is not None else []
        self.records = []
        self.boards = []
        self._index()

    def _index(self):
        """Lay the rounds out one after another (call again when a round gets its deals)."""
        self.records = []
        self.boards = []
        for r in self.rounds:
            r.start = len(self.records)
            self.records.extend(r.records if r.records is not None else [None] * len(r.boards))
            self.boards.extend(r.boards)

    def add(self, rnd):
        """Append ``rnd``, or replace the last round if it has the same number (a corrected spec)."""
        last = self.rounds[-1] if self.rounds else None
        if last is not None and last.venue and rnd.venue and last.round == rnd.round:
            self.rounds[-1] = rnd
        else:
            self.rounds.append(rnd)
        self._index()

    def set_deals(self, rnd, records):
        """Give a loaded round its deals (at its start) and lay the plan out again."""
        rnd.records = list(records)
        self._index()

    def round_at(self, index):
        """The round holding plan index ``index``, or None (past the end)."""
        for r in self.rounds:
            if r.covers(index):
                return r
        return None

    def venue_round(self, number):
        """The loaded venue round with this number, or None."""
        for r in self.rounds:
            if r.venue and r.round == number:
                return r
        return None

    @property
    def last_venue(self):
        for r in reversed(self.rounds):
            if r.venue:
                return r
        return None


class TableHistory:
    """Every deal of one table's log, replayed through the engine, and the venue's rounds,
    starts, check-ins and board replacements as logged."""

    def __init__(self):
        self.deals = []
        self.waiting = False
        self.entries = 0
        self.rounds = []  # RoundPlan per loaded venue round, in plan order (a replaced one swapped)
        self.round_starts = set()  # round numbers the venue started
        self.devices = {}  # seat -> device id, from replace entries (the last one wins)
        self.ended = {}  # plan index -> the board_end body that ended that board unplayed

    @property
    def current(self):
        """The deal in progress (started, no result), or None."""
        if self.deals and not self.deals[-1].finished:
            return self.deals[-1]
        return None

    @property
    def played(self):
        return [d for d in self.deals if d.finished]

    @classmethod
    def from_entries(cls, entries):
        return cls().extend(entries)

    def extend(self, entries):
        """Replay ``entries``: the log's entries after those replayed already (a reader that
        follows a growing log replays each entry once).  Returns the history."""
        h = self
        for e in entries:
            h.entries += 1
            b = e.body
            if e.kind == "deal_start" and b.get("n", 1) != 1:
                h._next_deal(e)
            elif e.kind == "deal_start":
                if h.current is not None:
                    raise HistoryError(e.seq, "deal %s starts before deal %s has a result" % (b.get("deal"), h.current.index))
                if b.get("deal") in h.ended:
                    raise HistoryError(e.seq, "deal %s starts after a referee ended its board" % b.get("deal"))
                expected = h.deals[-1].index + 1 if h.deals else 0
                while expected in h.ended:  # boards a referee ended before they started are skipped
                    expected += 1
                if b.get("deal") != expected:
                    raise HistoryError(e.seq, "deal number %r out of order (expected %d)" % (b.get("deal"), expected))
                try:
                    rec = b["engine"]
                    g = rules_.game(rec["game"])
                    board = g.new_board(g.engine.Rules.from_dict(rec.get("rules")))
                    game = _start(board, g.engine, rec, e.seq)
                except (KeyError, TypeError, ValueError) as err:
                    raise HistoryError(e.seq, "the deal does not load: %s" % err) from None
                rnd = next((r for r in h.rounds if r.covers(b["deal"])), None)
                if rnd is not None and not rnd.started:
                    raise HistoryError(e.seq, "deal %s of round %s starts before the venue's start of that round"
                                       % (b["deal"], rnd.round))
                h.deals.append(DealHistory(b["deal"], b.get("board"), b.get("deal_hash"), b.get("deal_record"), game, e.seq,
                                           g.engine, board))
            elif e.kind in ("action", "clock", "pause", "result", "deal_end", "time_up"):
                d = h.current
                if d is None or b.get("deal") != d.index:
                    raise HistoryError(e.seq, "%s for deal %r, but the deal in progress is %r"
                                       % (e.kind, b.get("deal"), None if d is None else d.index))
                if e.kind == "action":
                    if d.ended:
                        raise HistoryError(e.seq, "an action is logged after the deal's end")
                    if b.get("turn") != len(d.game.actions):
                        raise HistoryError(e.seq, "action logged for turn %r, but the deal is at turn %d"
                                           % (b.get("turn"), len(d.game.actions)))
                    try:
                        d.game.apply(d.engine.Action.from_dict(b.get("action")))
                    except d.engine.IllegalActionError as err:
                        raise HistoryError(e.seq, "the logged action is illegal: %s" % err.en, err.zh) from None
                elif e.kind == "clock":
                    d.clock = dict(b, seq=e.seq)
                    d.paused = None
                elif e.kind == "pause":
                    d.paused = dict(b, seq=e.seq)
                elif e.kind == "deal_end":
                    h._end_deal(d, e)
                elif e.kind == "time_up":
                    limit = getattr(d.match, "time_limit_ms", None)
                    if limit is None or limit() is None or d.match.over:
                        raise HistoryError(e.seq, "a time-up is logged for a board that has no time limit or is over")
                    d.match.time_up()
                else:
                    if d.match.multi and not d.ended:
                        raise HistoryError(e.seq, "a match's result is logged before its last deal's end")
                    if not d.ended:
                        h._end_deal(d, e)
                    if not d.match.over:
                        raise HistoryError(e.seq, "a result is logged but the replayed board is not over")
                    d.result = b
            elif e.kind == "waiting":
                h.waiting = True
            elif e.kind == "round":
                rnd = RoundPlan.from_body(b, e.seq)
                if h.rounds and h.rounds[-1].round == rnd.round:
                    if h.rounds[-1].round in h.round_starts:
                        raise HistoryError(e.seq, "round %s is replaced after it started" % rnd.round)
                    h.rounds[-1] = rnd
                elif h.rounds and rnd.round < h.rounds[-1].round:
                    raise HistoryError(e.seq, "round %s is loaded after round %s" % (rnd.round, h.rounds[-1].round))
                else:
                    h.rounds.append(rnd)
            elif e.kind in ("round_start", "checkin"):
                rnd = h.venue_round(b.get("round"))
                if rnd is None:
                    raise HistoryError(e.seq, "%s for round %r, which was never loaded" % (e.kind, b.get("round")))
                if e.kind == "round_start":
                    if rnd.started:
                        raise HistoryError(e.seq, "round %s is started twice" % rnd.round)
                    rnd.deal_from_body(b, e.seq)
                    h.round_starts.add(rnd.round)
                    rnd.started = True
                else:
                    rnd.checked[b.get("seat")] = b
            elif e.kind == "replace":
                h.devices[b.get("seat")] = b.get("dev")
            elif e.kind == "board_end":
                d = h.current
                if d is not None and d.index in (b.get("deals") or ()):
                    d.forfeit = b
                h.ended.update((i, b) for i in b.get("deals") or ())
            if isinstance(b, dict) and "board_ms" in b and h.deals and e.kind != "result":
                h.deals[-1].board_ms, h.deals[-1].board_ms_seq = b["board_ms"], e.seq
        return h

    def venue_round(self, number):
        for r in self.rounds:
            if r.round == number:
                return r
        return None

    def _end_deal(self, d, e):
        """The current deal of board ``d`` ended (a ``deal_end`` entry, or a one-deal board's result)."""
        if d.ended or d.game.phase != d.engine.OVER:
            raise HistoryError(e.seq, "a deal's end is logged but the replayed deal is not over")
        if e.kind == "deal_end" and e.body.get("n") != d.n:
            raise HistoryError(e.seq, "the end of deal %r is logged, but the board is at deal %d" % (e.body.get("n"), d.n))
        d.deal_result = d.match.finish(d.game)
        d.ended = True

    def _next_deal(self, e):
        """A match's next deal starts (a ``deal_start`` with ``n`` >= 2): in the board in progress,
        after its last deal's end, from the match's own setup."""
        b = e.body
        d = self.current
        if d is None or b.get("deal") != d.index or not d.ended or b.get("n") != d.n + 1 or d.match.over:
            raise HistoryError(e.seq, "deal %r of board %r starts out of order (the board in progress is %r at deal %s%s)"
                               % (b.get("n"), b.get("deal"), None if d is None else d.index,
                                  None if d is None else d.n, "" if d is None or d.ended else ", not ended"))
        try:
            game = _start(d.match, d.engine, b["engine"], e.seq)
        except (KeyError, TypeError, ValueError) as err:
            raise HistoryError(e.seq, "the deal does not load: %s" % err) from None
        d.game = game
        d.n = b["n"]
        d.ended = False
        d.clock = None
        d.paused = None
        d.parts.append((b.get("deal_record"), b.get("deal_hash"), game))


def _start(board, engine, rec, seq):
    """Start ``board``'s next deal from a logged engine record; the board's own setup (levels,
    tribute) must give exactly that record, so a log cannot put a deal where it does not belong."""
    game = board.start(engine.Deal.from_dict(rec["deal"]))
    if game.record() != rec:
        raise HistoryError(seq, "the logged deal start is not what its board gives (rules, setup or cards differ)")
    return game


class AuditReport:
    """Outcome of :func:`audit`: ``ok`` and a line per finding (problems start with ``FAIL``,
    things a referee should know that are not failures with ``note``)."""

    def __init__(self):
        self.lines = []
        self.ok = True
        self.deals = 0

    def fail(self, text):
        self.ok = False
        self.lines.append("FAIL " + text)

    def note(self, text):
        self.lines.append("ok   " + text)

    def remark(self, text):
        self.lines.append("note " + text)

    def __str__(self):
        return "\n".join(self.lines)


def audit(path, anchors=None):
    """Check a log file from the outside: SQLite's integrity check, the hash chain, its end
    against the heads published for it, deal hashes, and every result by replay.

    ``anchors``: the venue's anchors export (``paizhuo venue anchors``), whose heads for this
    log's table must still be in the log; the hub's own kept head beside the log
    (:func:`~paizhuo.table.eventlog.head_path`) is checked too when it is there.  Raises
    :class:`~paizhuo.table.eventlog.LogError` only for a file that is no event log at all or an
    unreadable anchor file; everything wrong with a log is a ``FAIL`` line.
    """
    report = AuditReport()
    heads = eventlog.read_anchors(anchors) if anchors else None
    damage = eventlog.check_database(path)
    if damage:
        report.fail("the database file is damaged (SQLite integrity_check): %s" % "; ".join(damage[:5]))
        return report
    report.note("SQLite integrity_check: the file is sound")
    db = eventlog.open_readonly(path)
    try:
        _audit(report, path, db, anchors, heads)
    except SQLITE_READ_ERRORS as e:  # damage integrity_check did not see, met while reading
        report.fail("SQLite cannot read the log: %s" % e)
    finally:
        db.close()
    return report


def _audit(report, path, db, anchors, heads):
    chain = eventlog.verify_chain(path)
    if chain.ok:
        report.note(str(chain))
    else:
        report.fail(str(chain))
    tables = {}
    for tid in eventlog.table_ids(db):
        entries = eventlog.read_entries(db, tid)
        tables[tid] = entries
        for e in entries:
            if e.kind == "log_override" and isinstance(e.body, dict):
                report.remark("table %s entry %d: a referee started the hub on this log anyway (%s): %s"
                              % (tid, e.seq, e.body.get("reason"), "; ".join(map(str, e.body.get("problems") or ()))))
    _check_heads(report, path, db, tables, anchors, heads)
    if not chain.ok:
        return
    for tid, entries in tables.items():
        try:
            _replay(report, tid, entries)
        except HistoryError as e:
            report.fail("table %s: %s" % (tid, e))
        except Exception as e:  # a log of outside origin may hold anything: a finding, never a traceback
            report.fail("table %s: the log does not replay: %r" % (tid, e))


def _check_heads(report, path, db, tables, anchors, heads):
    """The end of each chain against the hub's kept head and the venue's anchors."""
    kept_path = eventlog.head_path(path)
    try:
        kept = eventlog.read_head(kept_path)
    except eventlog.LogError as e:
        report.fail(e.en)
        kept = None
    if kept is not None:
        short = eventlog.check_head(db, kept["table"], kept["seq"], kept["hash"],
                                    "published (the hub's kept head %s)" % kept_path, "发布")
        if short:
            report.fail(short[0])
        else:
            report.note("table %s reaches the hub's kept head %s: seq %d" % (kept["table"], kept_path, kept["seq"]))
    elif heads is None:
        report.remark("no kept head beside the log (%s) and no --anchor: a cut end of the log cannot be seen"
                      % kept_path)
    if heads is None:
        return
    matched = 0
    for hub, (table, seq, h) in sorted(heads.items()):
        if table not in tables:
            continue
        hubs = {e.body.get("hub") for e in tables[table] if e.kind == "hub_start" and isinstance(e.body, dict)}
        if hubs and hub not in hubs:
            continue
        matched += 1
        short = eventlog.check_head(db, table, seq, h, "acknowledged by the venue (hub %s in %s)" % (hub, anchors),
                                    "被场馆确认")
        if short:
            report.fail(short[0])
        else:
            report.note("table %s reaches the venue's anchor for hub %s: seq %d" % (table, hub, seq))
    if not matched:
        report.fail("the anchor file %s has no head for this log (its tables: %s): is it the right log and event?"
                    % (anchors, ", ".join(sorted(map(str, tables))) or "none"))


def _check_parts(report, where, d, key=None):
    """Each deal of a board: its record checks, its hash is its cards', the engine got those
    cards, and it is deal n of the board (the first deal's board, round and group) — the deal
    the round key gives, when the log holds the key.  The first deal's record, or None after a
    FAIL line."""
    first = None
    for n, (record, deal_hash, game) in enumerate(d.parts, 1):
        at = where if len(d.parts) == 1 and not d.match.multi else "%s deal %d of the match" % (where, n)
        try:
            rec = deals_.DealRecord.from_dict(record)
        except (deals_.DealError, TypeError) as e:
            report.fail("%s: the deal record does not check: %s" % (at, e))
            return None
        if rec.hash != deal_hash:
            report.fail("%s: logged deal hash %s is not the cards' hash %s" % (at, deal_hash, rec.hash))
            return None
        if rec.to_engine_deal() != game.deal:
            report.fail("%s: the engine was started with other cards than the deal record" % at)
            return None
        first = first or rec
        if (rec.deal, rec.board, rec.round, rec.group, rec.game) != (n, first.board, first.round, first.group,
                                                                        first.game):
            report.fail("%s: the deal record is not deal %d of board %s" % (at, n, first.board))
            return None
        if key is not None and deals_.deal_from_round_key(key, rec.game, rec.group, rec.board, round=rec.round,
                                                          deal=n) != rec:
            report.fail("%s: the cards are not deal %d of board %s as the round key gives it" % (at, n, rec.board))
            return None
    return first


def _replay(report, tid, entries):
    """Every board of one table: each deal's record and hash, the spec's board, the result by replay."""
    h = TableHistory.from_entries(entries)
    for d in h.deals:
        where = "table %s deal %d (board %s)" % (tid, d.index, d.board)
        rnd = next((r for r in h.rounds if r.covers(d.index)), None)
        rec = _check_parts(report, where, d, rnd.key if rnd is not None else None)
        if rec is None:
            continue
        if rec.hash != d.deal_hash:
            report.fail("%s: the board's first deal %s is not the logged deal hash %s" % (where, rec.hash, d.deal_hash))
            continue
        if rnd is not None and rnd.hashes.get(rnd.boards[d.index - rnd.start]) != rec.hash:
            report.fail("%s: the deal is not board %s of round %s as the venue's spec gave it"
                        % (where, rnd.boards[d.index - rnd.start], rnd.round))
            continue
        if not d.finished:
            report.note("%s: in progress at turn %d" % (where, len(d.game.actions)))
            continue
        if d.forfeit is not None:
            report.note("%s: ended unplayed by %s (forfeit: %s)" % (where, d.forfeit.get("by"), d.forfeit.get("reason")))
            continue
        replayed = d.match.result()
        logged = d.result.get("result")
        if replayed != logged:
            diff = sorted(k for k in replayed if not isinstance(logged, dict) or replayed[k] != logged.get(k))
            report.fail("%s: logged result differs from the replay in %s" % (where, ", ".join(diff)))
            continue
        if d.result.get("deal_hash") != rec.hash:
            report.fail("%s: the result carries deal hash %s, the deal is %s" % (where, d.result.get("deal_hash"), rec.hash))
            continue
        if "record" in d.result and d.result["record"] != d.match.record():
            report.fail("%s: the logged board record differs from the replay" % where)
            continue
        report.deals += 1
        report.note("%s: result matches the replay; scores %s" % (
            where, " ".join("%s %+d" % (s, replayed["scores"][s]) for s in rules_.game(rec.game).seats)))
