"""A table log's finished deals as result rows: what the venue scores.

One row per seat per finished deal, in the shape ``paizhuo score`` and the venue store take
(``player``, ``board``, ``seat``, ``table``, ``score``, ``think_ms``, ``group``, ``round``)
plus ``result_id`` (stable, so a row sent twice is stored once), ``deal_hash`` (the venue
checks every table of a group played the same cards) and ``auto_moves`` (moves the clock or
the bot made for that seat).  Players come from the table configuration's ``[players]``;
a seat without a player is refused, because a result nobody owns cannot be ranked.

Issue #5 sends these rows over MQTT; until then staff export them from each hub's log:

    paizhuo hub results --config table7.toml > table7-results.json
    paizhuo score --input all-results.json
"""

from ..errors import CodedError
from . import eventlog

__all__ = ["ResultsError", "result_rows", "rows_from_log"]


class ResultsError(CodedError):
    """The log cannot be exported as result rows (the texts say what to fix)."""


def result_id(hub, table, rnd, group, board, seat):
    """``T07/7/r1/g1/b3/E``: one result's id, the same every time the log is exported."""
    return "%s/%s/r%s/g%s/b%s/%s" % (hub, table, rnd, group, board, seat)


def result_rows(entries, cfg):
    """Rows for every finished deal in ``entries`` (a table log), players from ``cfg``."""
    starts = {}
    rows = []
    for e in entries:
        if e.kind == "deal_start":
            starts[e.body["deal"]] = e.body
        elif e.kind == "result":
            b = e.body
            start = starts.get(b["deal"])
            if start is None:
                raise ResultsError("no_start", "entry %d: a result for deal %s with no deal start in the log"
                                   % (e.seq, b["deal"]), "第 %d 条：第 %s 副有结果却没有开始记录" % (e.seq, b["deal"]))
            rec = start.get("deal_record") or {}
            rnd, group = rec.get("round", 1), rec.get("group", 1)
            res = b["result"]
            for seat in sorted(res["scores"]):
                player = cfg.players.get(seat)
                if not player:
                    raise ResultsError(
                        "no_player", "%s: no player for seat %s; add [players.%s] with id and name, then export again"
                        % (cfg.path or "table.toml", seat, seat),
                        "座位 %s 没有选手：请在 [players.%s] 写上选手编号和姓名后重新导出" % (seat, seat))
                rows.append({
                    "result_id": result_id(cfg.hub, cfg.table, rnd, group, b["board"], seat),
                    "round": rnd, "group": group, "board": b["board"], "table": cfg.table, "seat": seat,
                    "player": player["id"], "score": res["scores"][seat], "think_ms": res["think_ms"][seat],
                    "auto_moves": res.get("auto_moves", {}).get(seat, 0), "deal_hash": b["deal_hash"],
                })
    return rows


def rows_from_log(path, cfg):
    """Open a table log read-only and export its results (see :func:`result_rows`)."""
    db = eventlog.open_readonly(path)
    try:
        return result_rows(eventlog.read_entries(db, cfg.table), cfg)
    finally:
        db.close()
