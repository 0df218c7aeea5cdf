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
============  =========================================================================
"""

from ..errors import CodedError
from ..rules import bigtwo
from ..venue import deals as deals_
from . import eventlog

__all__ = ["DealHistory", "TableHistory", "HistoryError", "audit", "AuditReport"]

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


class TableHistory:
    """Every deal of one table's log, replayed through the engine."""

    def __init__(self):
        self.deals = []
        self.waiting = False
        self.entries = 0

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
        return h


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
