"""A table log's finished boards as result rows: what the venue scores.

One row per seat per finished deal, in the shape ``paizhuo score`` and the venue store take
(``player``, ``board``, ``seat``, ``table``, ``score``, ``think_ms``, ``group``, ``round``)
plus ``result_id`` (stable, so a row sent twice is stored once), ``deal_hash`` (the venue
checks every table of a group played the same cards), ``auto_moves`` (moves the clock or
the bot made for that seat) and ``bot`` (the player is the computer: a 人机赛 AI).

Players come from the round the deal belongs to: the venue's round spec (a ``round`` entry
of the log) or, for the configuration's own ``[deals]``, its ``[players]``; a seat without a
player is refused, because a result nobody owns cannot be ranked.

The venue uplink sends each finished deal as a ``result`` message (:class:`ResultBuilder`:
the rows with the deal record, every action and the result); staff can also export them
from each hub's log:

    paizhuo hub results --config table7.toml > table7-results.json
    paizhuo score --input all-results.json
"""

from ..errors import CodedError
from . import eventlog
from .history import HistoryError, RoundPlan

__all__ = ["ResultsError", "ResultBuilder", "result_id", "result_rows", "rows_from_log"]


class ResultsError(CodedError):
    """The log cannot be exported as result rows (the texts say what to fix)."""


def result_id(hub, table, rnd, group, board, seat):
    """``T07/7/r1/g1/b3/E``: one result's id, the same every time the log is exported."""
    return "%s/%s/r%s/g%s/b%s/%s" % (hub, table, rnd, group, board, seat)


class ResultBuilder:
    """Reads a table log entry by entry (in order) and makes each finished board's result.

    :meth:`feed` returns, for a ``result`` entry, ``{"round", "group", "board", "deal",
    "deal_hash", "rows": [4 rows], "record"}`` — the body of the uplink's ``result`` message —
    and None for any other entry.  ``record`` is the board's: a one-deal board's ``{"deal",
    "actions", "result"}``, a match game's ``Match.record()``; each row's score is the board
    result's ``scores`` (docs/protocol.md § Boards and matches).  It keeps only the
    rounds and the deal in progress, so the uplink can feed it live from ``on_entry``.
    """

    def __init__(self, cfg):
        self.cfg = cfg
        self.rounds = []  # the venue rounds logged so far (a replaced one swapped)
        self._start = None  # the deal_start body of the deal in progress
        self._actions = []

    def feed(self, e):
        b = e.body
        if e.kind == "round":
            try:
                rnd = RoundPlan.from_body(b, e.seq)
            except HistoryError as err:
                raise ResultsError("bad_round", err.en, err.zh) from None
            if self.rounds and self.rounds[-1].round == rnd.round:
                self.rounds[-1] = rnd
            else:
                self.rounds.append(rnd)
        elif e.kind == "deal_start" and b.get("n", 1) == 1:  # a board's start (a match's later deals are in it)
            self._start = b
            self._actions = []
        elif e.kind == "action":
            if self._start is not None and self._start.get("deal") == b.get("deal"):
                self._actions.append(b["action"])
        elif e.kind == "result":
            return self._result(e)
        return None

    def _players(self, index):
        """(players, bot seats) of the round holding plan index ``index``."""
        for rnd in self.rounds:
            if rnd.covers(index):
                return rnd.players, {s for s in rnd.players if rnd.is_bot(s)}
        return self.cfg.players, set(self.cfg.bots)

    def _result(self, e):
        b = e.body
        start = self._start
        if start is None or start.get("deal") != b["deal"]:
            raise ResultsError("no_start", "entry %d: a result for deal %s with no deal start in the log"
                               % (e.seq, b["deal"]), "第 %d 条：第 %s 副有结果却没有开始记录" % (e.seq, b["deal"]))
        rec = start.get("deal_record") or {}
        rnd, group = rec.get("round", 1), rec.get("group", 1)
        res = b["result"]
        players, bots = self._players(b["deal"])
        rows = []
        for seat in sorted(res["scores"]):
            player = players.get(seat)
            if not player:
                cfg = self.cfg
                raise ResultsError(
                    "no_player", "%s: no player for seat %s; add [players.%s] with id and name, then export again"
                    % (cfg.path or "table.toml", seat, seat),
                    "座位 %s 没有选手：请在 [players.%s] 写上选手编号和姓名后重新导出" % (seat, seat))
            rows.append({
                "result_id": result_id(self.cfg.hub, self.cfg.table, rnd, group, b["board"], seat),
                "round": rnd, "group": group, "board": b["board"], "table": self.cfg.table, "seat": seat,
                "player": player["id"], "score": res["scores"][seat], "think_ms": res["think_ms"][seat],
                "auto_moves": res.get("auto_moves", {}).get(seat, 0), "deal_hash": b["deal_hash"],
                "bot": seat in bots,
            })
        self._start = None
        # The board's record: a match game logs it with the result; a one-deal board's is its deal's.
        record = b.get("record") or {"deal": rec, "actions": list(self._actions), "result": res}
        return {"round": rnd, "group": group, "board": b["board"], "deal": b["deal"], "deal_hash": b["deal_hash"],
                "rows": rows, "record": record}


def result_rows(entries, cfg):
    """Rows for every finished deal in ``entries`` (a table log), players from each deal's
    round (or ``cfg``'s ``[players]``)."""
    builder = ResultBuilder(cfg)
    rows = []
    for e in entries:
        msg = builder.feed(e)
        if msg is not None:
            rows.extend(msg["rows"])
    return rows


def rows_from_log(path, cfg):
    """Open a table log read-only and export its results (see :func:`result_rows`)."""
    db = eventlog.open_readonly(path)
    try:
        return result_rows(eventlog.read_entries(db, cfg.table), cfg)
    finally:
        db.close()
