"""A referee's corrections of results: a deal as a whole, checked, and marked wherever it shows.

A correction is of one deal at one table (round, table, board): the referee gives every seat's
score (or only the seats that change), or the deal's corrected record (its actions: the venue
replays them through the game's engine from its own copy of the deal, :func:`replayed_scores`),
and a reason.  The deal's scores must still add up to
what they added up to as played (zero in a zero-sum game: the venue never assumes a game's
arithmetic, it keeps the total the hub's replayed record had); a correction that changes the
total is refused unless the referee also says why (``unbalanced``).  When a later round was
already seated from the standings the correction changes, the answer warns, and says whether
that round can still be seated again (:meth:`Venue.reseat_round`: only before it starts).

Every view of a result shows the corrected value marked as corrected, with its reason: the hand
records (:func:`paizhuo.venue.records.build` takes :func:`by_result`), the standings and their
CSV and JSON (:func:`mark_standings`), the console (:func:`table_results`).

>>> plan([{"seat": "E", "score": 56, "result_id": "a"}, {"seat": "N", "score": -56, "result_id": "b"}],
...      {"E": 200, "N": -200})
([('a', 56, 200), ('b', -56, -200)], 0, 0)
>>> balance(0, 144, None)
Traceback (most recent call last):
...
paizhuo.venue.adjust.AdjustError: the deal's scores would add up to +144, not 0 as the deal was played: correct the other seats too, or give the reason the total may change (unbalanced)
>>> balance(0, 144, "掉牌罚分 penalty for a dropped card") is None
True
"""

from ..errors import CodedError
from .. import rules as rules_

__all__ = ["AdjustError", "by_result", "plan", "balance", "table_results", "deal_rows", "later_rounds",
           "marks", "mark_standings", "replayed_scores"]

MAX_ACTIONS = 2000   # a corrected record's actions (a deal has a few hundred at most)


class AdjustError(CodedError):
    """A correction refused before anything changed: ``unknown_deal``, ``bad_request``,
    ``no_change``, ``not_balanced``."""


def by_result(store, event):
    """Every adjustment of the event by result id, oldest first: ``{rid: [{"field", "old", "new",
    "who", "at", "why"}]}``."""
    out = {}
    for a in store.adjustments(event=event):
        out.setdefault(a["result_id"], []).append({k: a[k] for k in ("field", "old", "new", "who", "at", "why")})
    return out


def _group(g):
    return int(g) if isinstance(g, int) or (isinstance(g, str) and g.isdigit()) else 1


def deal_rows(results, rnd, table, board=None):
    """The stored rows (``Store.results(detail=True)``) of one table's deals in round ``rnd``
    (of one ``board``, or all), in board and seat order as the store keeps them."""
    table = str(table)
    return [r for r in results if r["round"] == rnd and str(r["table"]) == table
            and (board is None or r["board"] == board)]


def plan(rows, scores):
    """The changes ``[(result_id, old, new)]`` that give the deal's ``rows`` the seat
    ``scores`` (seats left out keep theirs), the deal's total before and after.

    >>> plan([{"seat": "E", "score": 5, "result_id": "a"}], {"W": 1})
    Traceback (most recent call last):
    ...
    paizhuo.venue.adjust.AdjustError: the deal has no seat W (seats: E)
    """
    by_seat = {r["seat"]: r for r in rows}
    if not isinstance(scores, dict) or not scores:
        raise AdjustError("bad_request", "give the new score of at least one seat, as {\"E\": 10, ...}",
                          "请至少给出一个座位的新分数，如 {\"E\": 10, ...}")
    for seat, v in scores.items():
        if seat not in by_seat:
            raise AdjustError("bad_request", "the deal has no seat %s (seats: %s)" % (seat, ", ".join(by_seat)),
                              "该副牌没有座位 %s（座位：%s）" % (seat, "、".join(by_seat)))
        if type(v) is not int or abs(v) > 2 ** 31:
            raise AdjustError("bad_request", "the score of %s must be a whole number, not %.20r" % (seat, v),
                              "%s 的分数必须是整数" % seat)
    changes = [(r["result_id"], r["score"], scores[s]) for s, r in by_seat.items()
               if s in scores and scores[s] != r["score"]]
    before = sum(r["score"] for r in rows)
    after = before + sum(new - old for _, old, new in changes)
    return changes, before, after


def _signed(n):
    return "%+d" % n if n else "0"


def balance(played, after, unbalanced):
    """Refuse (``not_balanced``) a deal whose total ``after`` differs from its total as
    ``played`` unless the referee gave the reason (``unbalanced``)."""
    if after == played or (isinstance(unbalanced, str) and unbalanced.strip()):
        return None
    raise AdjustError("not_balanced", "the deal's scores would add up to %s, not %s as the deal was played: correct the "
                      "other seats too, or give the reason the total may change (unbalanced)"
                      % (_signed(after), _signed(played)),
                      "该副牌各座位分数合计将为 %s，而非打牌时的 %s：请一并更正其他座位，或写明合计可以改变的理由"
                      % (_signed(after), _signed(played)))


def played_total(rows, adjs):
    """A deal's total as received (before any correction)."""
    total = 0
    for r in rows:
        first = next((a for a in adjs.get(r["result_id"], ()) if a["field"] == "score"), None)
        total += first["old"] if first is not None else r["score"]
    return total


def table_results(results, adjs, rnd, table, players=None):
    """One table's results of round ``rnd`` for the console: ``[{"round", "group", "board",
    "table", "sum", "played_sum", "adjusted", "held", "rows": [{"seat", "player", "name",
    "score", "received", "think_ms", "status", "held_why", "result_id", "adjustments"}]}]`` by
    board; ``players``: seat → spec player (for the names)."""
    deals = {}
    for r in deal_rows(results, rnd, table):
        deals.setdefault(r["board"], []).append(r)
    out = []
    for board, rows in sorted(deals.items()):
        view = []
        for r in rows:
            a = adjs.get(r["result_id"], [])
            first = next((x for x in a if x["field"] == "score"), None)
            p = (players or {}).get(r["seat"]) or {}
            view.append({"seat": r["seat"], "player": r["player"], "name": p.get("name") if p.get("id") == r["player"] else None,
                         "score": r["score"], "received": first["old"] if first else r["score"],
                         "think_ms": r["think_ms"], "status": r["status"], "held_why": r["held_why"],
                         "result_id": r["result_id"], "adjustments": a})
        out.append({"round": rnd, "group": _group(rows[0].get("group")), "board": board, "table": str(table),
                    "sum": sum(r["score"] for r in rows), "played_sum": played_total(rows, adjs),
                    "adjusted": any(v["adjustments"] for v in view), "held": any(v["status"] == "held" for v in view),
                    "rows": view})
    return out


def later_rounds(rounds, rnd):
    """The warning for a correction of round ``rnd`` when a later round was seated from the
    standings it changes (None: none was): ``{"code": "next_round_seated", "round", "can_reseat",
    "en", "zh"}``.  ``rounds``: :meth:`Venue.rounds`.  Only the last round seated, not started,
    can be seated again."""
    later = [r for r in rounds if r["round"] > rnd]
    if not later:
        return None
    nxt = later[-1]
    n = nxt["round"]
    can = len(later) == 1 and not nxt["started"] and not nxt["boards_done"]
    if can:
        en = ("round %d was already seated from the standings before this correction; no deal of it has started: "
              "seat it again (re-seat) so that the movement follows the corrected standings" % n)
        zh = "第 %d 轮已按更正前的排名安排座位；该轮尚未开始：可重新安排座位，使之依据更正后的排名" % n
    else:
        en = ("round %d was already seated from the standings before this correction and has started: its seating stays "
              "as it is; the correction counts in the standings from now on" % n)
        zh = "第 %d 轮已按更正前的排名安排座位且已开始：座位保持不变；更正自此计入排名" % n
    return {"code": "next_round_seated", "round": n, "can_reseat": can, "en": en, "zh": zh}


def marks(results, adjs, boards=None):
    """``{(round, group, board, table, seat): [adjustment, ...]}`` of the corrected results
    (of the ``(round, group, board)`` in ``boards`` only, when given: the public ones)."""
    out = {}
    for r in results:
        a = adjs.get(r["result_id"])
        if not a:
            continue
        key = (r["round"], _group(r.get("group")), r["board"])
        if boards is not None and key not in boards:
            continue
        out[key + (str(r["table"]), r["seat"])] = a
    return out


def mark_standings(st, found):
    """A copy of the standings dict ``st`` whose corrected boards carry ``adjusted`` (the list of
    adjustments) and whose players carry ``adjusted`` (``[{"label", "field", "old", "new",
    "why"}]``, the last correction of each field); ``st`` itself is left as it is (it is cached)."""
    if not found:
        return st
    players = []
    for p in st.get("players") or ():
        boards = p.get("boards")
        if not isinstance(boards, dict):
            players.append(p)
            continue
        marked, notes = {}, []
        for label, b in boards.items():
            a = found.get((b.get("round"), _group(b.get("group")), b.get("board"), str(b.get("table")), b.get("seat")))
            if a:
                marked[label] = dict(b, adjusted=a)
                last = {}
                for x in a:
                    last[x["field"]] = x
                notes += [{"label": label, "field": x["field"], "old": a_first(a, x["field"]), "new": x["new"],
                           "why": x["why"]} for x in last.values()]
        players.append(dict(p, boards=dict(boards, **marked), adjusted=notes) if marked else p)
    return dict(st, players=players)


def a_first(adjs, field):
    """The value of ``field`` as received: the ``old`` of its first adjustment."""
    return next(x["old"] for x in adjs if x["field"] == field)


def replayed_scores(game, rules, deal, actions):
    """Every seat's score of ``deal`` (the venue's :class:`~paizhuo.deals.DealRecord`) played as
    the corrected record's ``actions`` say, through the game's engine (by its registry name).
    Refuses (``bad_record``) actions that are not legal in turn or end before the deal does."""
    if not isinstance(actions, list) or not actions or len(actions) > MAX_ACTIONS:
        raise AdjustError("bad_record", "the corrected record must be a list of 1 to %d actions" % MAX_ACTIONS,
                          "更正的牌谱必须是 1 到 %d 个操作的列表" % MAX_ACTIONS)
    try:
        state = rules_.replay(game, {"game": game, "rules": rules, "deal": deal.to_engine_deal().to_dict(),
                                     "actions": actions})
    except CodedError as e:
        raise AdjustError("bad_record", "the corrected record does not replay: %s" % e.en,
                          "更正的牌谱无法重放：%s" % e.zh) from None
    except Exception as e:   # a record shaped wrongly in any way: a refusal, never a crash
        raise AdjustError("bad_record", "the corrected record cannot be replayed: %s" % (str(e)[:200] or type(e).__name__),
                          "更正的牌谱无法重放：%s" % (str(e)[:200] or type(e).__name__)) from None
    try:
        scores = state.result().to_dict().get("scores")
    except CodedError:
        raise AdjustError("bad_record", "the corrected record ends before the deal is over (%d actions)" % len(actions),
                          "更正的牌谱在本副牌结束前就终止了（%d 个操作）" % len(actions)) from None
    if not isinstance(scores, dict):
        raise AdjustError("bad_record", "this game's record gives no score per seat: correct the scores instead",
                          "该项目的牌谱不给出各座位分数：请直接更正分数")
    return {s: v for s, v in scores.items()}
