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
              ``deal_record`` (the venue's deal record), ``engine`` (game, rules, deal)
clock         ``deal``, ``key`` (the decision: ``"show"`` or the turn number as text),
              ``turn`` (turn when it started), ``seats``, ``limit_ms``, ``remaining_ms``,
              ``why`` (``start``, ``resume``, ``restart``)
action        ``deal``, ``turn`` (actions before it), ``action`` (with ``seat``, ``auto``,
              ``think_ms``), ``by`` (``seat``, ``clock`` or ``bot``)
pause         ``deal``, ``key``, ``remaining_ms``, ``by``, ``reason``
result        ``deal``, ``board``, ``deal_hash``, ``result`` (the engine's result:
              scores, think_ms per seat, auto_moves, ...), ``actions`` (count)
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
              entry): the venue's start for that round
checkin       ``round``, ``seat``, ``no``, ``player``, ``dev``: a player checked in
unchecked     ``round``, ``seats``: seats that played the round's first deal without a
              check-in (written with that ``deal_start``)
replace       ``seat``, ``dev`` (the board from now on), ``old``, ``by``, ``reason``
ack_call      ``seat``, ``by``: a referee acknowledged a call
note          ``seat`` (or null: every seat), ``en``, ``zh``: a referee's message
============  =========================================================================

The plan a table plays is the configuration's ``[deals]`` (if any) followed by every
``round`` entry's boards (:class:`Plan`); the deal index in ``deal_start`` is the index in
that whole plan, so it stays unique across rounds.  A venue round's place in the plan is
fixed by its boards when it is loaded; its cards fill that place when it starts (no deal
exists at the table before its round: docs/movement-and-deals.md).
"""

from ..errors import CodedError
from ..rules import bigtwo
from ..venue import deals as deals_
from . import eventlog

__all__ = ["DealHistory", "TableHistory", "HistoryError", "audit", "AuditReport", "RoundPlan", "Plan"]

SEATS = bigtwo.SEATS

_STATES = {"bigtwo": bigtwo.BigTwo}


class HistoryError(CodedError):
    """The log does not replay: an illegal or out-of-order action, a missing deal start, …"""

    def __init__(self, seq, en, zh=None):
        super().__init__("bad_history", "entry %s: %s" % (seq, en), "第 %s 条：%s" % (seq, zh or en))
        self.seq = seq


def state_class(game):
    try:
        return _STATES[game]
    except KeyError:
        raise ValueError("no table runtime for game %r yet; games: %s" % (game, ", ".join(sorted(_STATES)))) from None


class DealHistory:
    """One deal as logged: its start, the replayed engine, its last clock, its result."""

    __slots__ = ("index", "board", "deal_hash", "deal_record", "game", "clock", "paused", "result", "start_seq")

    def __init__(self, index, board, deal_hash, deal_record, game, start_seq):
        self.index = index
        self.board = board
        self.deal_hash = deal_hash
        self.deal_record = deal_record
        self.game = game  # the engine state, replayed to the last logged action
        self.clock = None  # the last clock entry's body, plus "seq"
        self.paused = None  # the pause entry's body if the table is paused, else None
        self.result = None  # the logged result body, when the deal ended
        self.start_seq = start_seq

    @property
    def finished(self):
        return self.result is not None


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
                 "start", "venue", "started", "checked")

    def __init__(self, round, group, records, players, venue=True, id=None, game="bigtwo", table=None,
                 boards=None, moves=None, start=0, hashes=None):
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

        >>> from paizhuo.venue import deals
        >>> key = deals.round_key(b"event", 2)
        >>> recs = [deals.deal_from_round_key(key, "bigtwo", 1, b, round=2) for b in (1, 2)]
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
        return {"id": self.id, "round": self.round, "group": self.group, "game": self.game, "table": self.table,
                "boards": list(self.boards), "deal_hashes": {str(b): self.hashes[b] for b in self.boards},
                "players": self.players, "moves": self.moves, "start": self.start}

    def start_body(self, records):
        """The ``round_start`` log entry's body: the round and the deals derived at the start."""
        return {"round": self.round, "id": self.id, "deals": [r.to_dict() for r in records]}

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
                    hashes={b: hashes[str(b)] for b in boards})
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
        h = cls()
        for e in entries:
            h.entries += 1
            b = e.body
            if e.kind == "deal_start":
                if h.current is not None:
                    raise HistoryError(e.seq, "deal %s starts before deal %s has a result" % (b.get("deal"), h.current.index))
                if b.get("deal") != len(h.deals):
                    raise HistoryError(e.seq, "deal number %r out of order (expected %d)" % (b.get("deal"), len(h.deals)))
                try:
                    rec = b["engine"]
                    game = state_class(rec["game"]).from_record(rec)
                except (KeyError, TypeError, ValueError) as err:
                    raise HistoryError(e.seq, "the deal does not load: %s" % err) from None
                rnd = next((r for r in h.rounds if r.covers(b["deal"])), None)
                if rnd is not None and not rnd.started:
                    raise HistoryError(e.seq, "deal %s of round %s starts before the venue's start of that round"
                                       % (b["deal"], rnd.round))
                h.deals.append(DealHistory(b["deal"], b.get("board"), b.get("deal_hash"), b.get("deal_record"), game, e.seq))
            elif e.kind in ("action", "clock", "pause", "result"):
                d = h.current
                if d is None or b.get("deal") != d.index:
                    raise HistoryError(e.seq, "%s for deal %r, but the deal in progress is %r"
                                       % (e.kind, b.get("deal"), None if d is None else d.index))
                if e.kind == "action":
                    if b.get("turn") != len(d.game.actions):
                        raise HistoryError(e.seq, "action logged for turn %r, but the deal is at turn %d"
                                           % (b.get("turn"), len(d.game.actions)))
                    try:
                        d.game.apply(bigtwo.Action.from_dict(b.get("action")))
                    except bigtwo.IllegalActionError as err:
                        raise HistoryError(e.seq, "the logged action is illegal: %s" % err.en, err.zh) from None
                elif e.kind == "clock":
                    d.clock = dict(b, seq=e.seq)
                    d.paused = None
                elif e.kind == "pause":
                    d.paused = dict(b, seq=e.seq)
                else:
                    if d.game.phase != "over":
                        raise HistoryError(e.seq, "a result is logged but the replayed deal is not over")
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
        return h

    def venue_round(self, number):
        for r in self.rounds:
            if r.round == number:
                return r
        return None


class AuditReport:
    """Outcome of :func:`audit`: ``ok`` and a line per finding (problems start with ``FAIL``)."""

    def __init__(self):
        self.lines = []
        self.ok = True
        self.deals = 0

    def fail(self, text):
        self.ok = False
        self.lines.append("FAIL " + text)

    def note(self, text):
        self.lines.append("ok   " + text)

    def __str__(self):
        return "\n".join(self.lines)


def audit(path):
    """Check a log file from the outside: chain, deal hashes, and every result by replay."""
    report = AuditReport()
    chain = eventlog.verify_chain(path)
    if not chain.ok:
        report.fail(str(chain))
        return report
    report.note(str(chain))
    db = eventlog.open_readonly(path)
    try:
        for tid in eventlog.table_ids(db):
            try:
                h = TableHistory.from_entries(eventlog.read_entries(db, tid))
            except HistoryError as e:
                report.fail("table %s: %s" % (tid, e))
                continue
            for d in h.deals:
                where = "table %s deal %d (board %s)" % (tid, d.index, d.board)
                try:
                    rec = deals_.DealRecord.from_dict(d.deal_record)
                except (deals_.DealError, TypeError) as e:
                    report.fail("%s: the deal record does not check: %s" % (where, e))
                    continue
                if rec.hash != d.deal_hash:
                    report.fail("%s: logged deal hash %s is not the cards' hash %s" % (where, d.deal_hash, rec.hash))
                    continue
                if rec.to_engine_deal() != d.game.deal:
                    report.fail("%s: the engine was started with other cards than the deal record" % where)
                    continue
                rnd = next((r for r in h.rounds if r.covers(d.index)), None)
                if rnd is not None and rnd.hashes.get(rnd.boards[d.index - rnd.start]) != rec.hash:
                    report.fail("%s: the deal is not board %s of round %s as the venue's spec gave it"
                                % (where, rnd.boards[d.index - rnd.start], rnd.round))
                    continue
                if not d.finished:
                    report.note("%s: in progress at turn %d" % (where, len(d.game.actions)))
                    continue
                replayed = d.game.result().to_dict()
                logged = d.result.get("result")
                if replayed != logged:
                    diff = sorted(k for k in replayed if logged is None or replayed[k] != logged.get(k))
                    report.fail("%s: logged result differs from the replay in %s" % (where, ", ".join(diff)))
                    continue
                if d.result.get("deal_hash") != rec.hash:
                    report.fail("%s: the result carries deal hash %s, the deal is %s" % (where, d.result.get("deal_hash"), rec.hash))
                    continue
                report.deals += 1
                report.note("%s: result matches the replay; scores %s" % (
                    where, " ".join("%s %+d" % (s, replayed["scores"][s]) for s in bigtwo.SEATS)))
    finally:
        db.close()
    return report
