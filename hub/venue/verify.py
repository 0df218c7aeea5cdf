"""Checking a hub's result against the venue's own replay of it: the venue trusts no hub's arithmetic.

A result message carries the deal record (the deal, every action, the engine's result) and one
score row per seat.  The venue knows the deal itself (it derives it from the event secret, see
:mod:`paizhuo.venue.deals`), so it replays the actions through the same rules engine the hubs
run (reached by the event's game name: :func:`paizhuo.rules.replay`) and counts the result only
when everything agrees:

1. the record's deal is the board's deal (``record_deal_mismatch``: the record is of another
   deal, or its hands were changed);
2. every action is legal in turn (``illegal_action``, naming the action's index; a record that
   cannot be read at all, or an action not written as the engine writes it, is ``bad_record``)
   and the deal is over after the last one (``unfinished_record``);
3. every row's ``score``, ``think_ms`` and ``auto_moves`` are the replay's for its seat
   (``score_mismatch``, ``row_mismatch``);
4. every figure of the record's result (card points, scores, places, cards left, shown and
   doubled hands, auto moves, think times) is the replay's (``result_mismatch``).

:func:`check_result` returns None or a :class:`Finding` (code, en, zh, detail): the venue holds
the result for a referee with that reason.  It never raises for anything in the message.

A board that is a match (:func:`paizhuo.venue.event.board_is_match`) is checked by
:func:`check_match`: every deal of the match record must be the venue's own deal n of the
board, the record must replay through the engine's ``Match`` from the start of a match under
the event's rules to its end (:func:`paizhuo.rules.replay` gives the board), and the figures
the message claims (each row's ``score``, ``think_ms`` and ``auto_moves``: the board result's
``scores`` — the seat's side's 场分 —, ``think_ms`` and ``auto_moves``; the record's
``result`` when it has one) must be the replay's.
"""

import json

from ..errors import CodedError
from .. import rules as rules_

__all__ = ["Finding", "check_result", "check_match", "ROW_FIGURES"]

# Row field → the engine result's per-seat figure it must equal (results.py builds rows so).
ROW_FIGURES = (("score", "scores"), ("think_ms", "think_ms"), ("auto_moves", "auto_moves"))


class Finding(CodedError):
    """Why a result is held: ``code``, ``en``, ``zh`` and ``detail`` (a JSON-able dict)."""

    def __init__(self, code, en, zh, detail=None):
        super().__init__(code, en, zh)
        self.detail = detail or {}

    def to_dict(self):
        return dict(super().to_dict(), **({"detail": self.detail} if self.detail else {}))


def _plain(value):
    """The JSON form of a value (tuples become lists), as a hub's message carries it."""
    return json.loads(json.dumps(value))


def _short(value):
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_rows(msg, want):
    """The first row whose score, think time or auto moves are not the replayed board's."""
    for row in msg.get("rows") or ():
        seat = row.get("seat")
        for field, figure in ROW_FIGURES:
            expected = (want.get(figure) or {}).get(seat, 0 if field == "auto_moves" else None)
            if row.get(field) != expected:
                code = "score_mismatch" if field == "score" else "row_mismatch"
                return Finding(code, "seat %s: %s is %s but the record replays to %s" % (seat, field, _short(row.get(field)), _short(expected)),
                               "座位 %s：%s 为 %s，但按牌谱重放应为 %s" % (seat, field, _short(row.get(field)), _short(expected)),
                               {"seat": seat, "field": field, "got": row.get(field), "expected": expected})
    return None


def check_result(game, rules, deal, msg):
    """Replay ``msg`` (a checked result message: ``record`` and ``rows``) under ``rules`` (the
    event's rule options, a dict; None: the engine's defaults) from ``deal`` (the venue's
    :class:`~paizhuo.venue.deals.DealRecord` of the board).  Returns None when the rows and
    the record agree with the replay, else the first :class:`Finding`."""
    record = msg.get("record") or {}
    if record.get("deal") != deal.to_dict():
        return Finding("record_deal_mismatch",
                       "the record is not of board %d's deal (hash %s…): it was played from other cards"
                       % (deal.board, deal.hash[:12]),
                       "牌谱不是第 %d 副牌（哈希 %s…）的牌局：所用的牌不同" % (deal.board, deal.hash[:12]))
    try:
        engine_deal = deal.to_engine_deal().to_dict()
        state = rules_.replay(game, {"game": game, "rules": rules, "deal": engine_deal,
                                     "actions": record.get("actions")})
    except CodedError as e:  # the engine's IllegalActionError: "action n: why"
        return Finding("illegal_action", "the record does not replay: %s" % e.en, "牌谱无法重放：%s" % e.zh,
                       {"engine_code": e.code})
    except Exception as e:  # a record shaped wrongly in any way: never a crash of the venue
        return Finding("bad_record", "the record cannot be replayed: %s" % (str(e)[:200] or type(e).__name__),
                       "牌谱无法重放：%s" % (str(e)[:200] or type(e).__name__))
    # Fields the engine ignores (a "yes" on a play, cards on a pass) or writes otherwise (card
    # order): the record must be the engine's own, so that what is published is what was played.
    written = _plain(state.record()["actions"])
    for n, (a, b) in enumerate(zip(record["actions"], written)):
        if a != b:
            return Finding("bad_record", "action %d is %s but the engine writes it %s" % (n, _short(a), _short(b)),
                           "第 %d 个操作写作 %s，但引擎记为 %s" % (n, _short(a), _short(b)), {"action": n})
    try:
        want = _plain(state.result().to_dict())
    except CodedError:
        return Finding("unfinished_record", "the record ends before the deal is over (%d actions)" % len(record["actions"]),
                       "牌谱在本副牌结束前就终止了（%d 个操作）" % len(record["actions"]))
    finding = _check_rows(msg, want)
    if finding is not None:
        return finding
    got = record.get("result")
    if got != want:
        keys = sorted(k for k in set(want) | set(got or {}) if (got or {}).get(k) != want.get(k))
        shown = "; ".join("%s: %s ≠ %s" % (k, _short((got or {}).get(k)), _short(want.get(k))) for k in keys[:3])
        return Finding("result_mismatch", "the record's result differs from its replay (%s)" % shown,
                       "牌谱中的结果与重放不符（%s）" % shown, {"fields": keys})
    return None


def check_match(game, rules, deal_of, msg):
    """Replay a match result ``msg`` (its ``record`` is the engine's match record) under
    ``rules`` (the event's, a dict; None: the engine's defaults).  ``deal_of(n)`` is the
    venue's :class:`~paizhuo.deals.DealRecord` of the board's deal n (from 1).  Returns
    ``(None, result)`` with the replay's match result (levels, winner, 级差分, 场分) when all
    agree, else ``(Finding, None)``."""
    g = rules_.game(game)
    record = msg.get("record") or {}
    deals = record.get("deals")
    if record.get("match") is not True or not isinstance(deals, list) or not deals:
        return Finding("bad_record", "the record is not a match record (a list of deals)", "牌谱不是整场比赛的记录"), None
    try:
        fresh = g.new_board(g.engine.Rules.from_dict(rules) if rules is not None else None)
    except (ValueError, TypeError) as e:  # the event's rules were checked when it was loaded
        return Finding("bad_record", "the event's rules are not the engine's: %s" % e, "赛事规则有误：%s" % e), None
    theirs, ours = record.get("rules"), _plain(fresh.rules.to_dict())
    if _plain(theirs) != ours:
        keys = sorted(k for k in ours if not isinstance(theirs, dict) or theirs.get(k) != ours[k])
        return Finding("rules_mismatch", "the match was played under other rules than the event's [rules] (%s)"
                       % ", ".join(keys[:5]), "该场比赛所用规则与赛事 [rules] 不同（%s）" % "、".join(keys[:5]),
                       {"fields": keys}), None
    if _plain(record.get("start")) != _plain(fresh.setup()):
        return Finding("bad_record", "the match does not start from the start of a match (%s)" % _short(record.get("start")),
                       "该场比赛不是从开局开始的（%s）" % _short(record.get("start"))), None
    for n, rec in enumerate(deals, 1):
        try:
            mine = deal_of(n)
            want_deal = mine.to_engine_deal().to_dict()
        except CodedError as e:
            return Finding("record_deal_mismatch", "deal %d of board %s cannot be dealt by the venue: %s"
                           % (n, msg.get("board"), e.en), "第 %s 副牌的第 %d 局场地无法发出：%s" % (msg.get("board"), n, e.zh)), None
        if not isinstance(rec, dict) or _plain(rec.get("deal")) != _plain(want_deal):
            return Finding("record_deal_mismatch", "deal %d of the match is not board %s's deal %d (hash %s…): it was played "
                           "from other cards" % (n, msg.get("board"), n, mine.hash[:12]),
                           "比赛第 %d 局不是第 %s 副牌的第 %d 局（哈希 %s…）：所用的牌不同" % (n, msg.get("board"), n, mine.hash[:12]),
                           {"deal": n}), None
    try:
        match = rules_.replay(game, record)  # the board: the engine's Match
    except CodedError as e:
        return Finding("illegal_action", "the record does not replay: %s" % e.en, "牌谱无法重放：%s" % e.zh,
                       {"engine_code": e.code}), None
    except Exception as e:
        return Finding("bad_record", "the record cannot be replayed: %s" % (str(e)[:200] or type(e).__name__),
                       "牌谱无法重放：%s" % (str(e)[:200] or type(e).__name__)), None
    if not match.over:
        return Finding("unfinished_record", "the record ends before the match is over (%d deals)" % len(deals),
                       "牌谱在本场比赛结束前就终止了（%d 局）" % len(deals)), None
    written = _plain(match.record())
    for key in ("deals", "time_up"):
        if _plain(record.get(key)) != written[key]:
            return Finding("bad_record", "the record's %s are not as the engine writes them" % key,
                           "牌谱的 %s 与引擎所记不同" % key, {"field": key}), None
    want = _plain(match.result())
    want.pop("records", None)
    finding = _check_rows(msg, want)
    if finding is not None:
        return finding, None
    got = record.get("result")
    if got is not None:
        got = {k: v for k, v in got.items() if k != "records"} if isinstance(got, dict) else got
        if got != want:
            keys = sorted(k for k in set(want) | set(got if isinstance(got, dict) else {})
                          if (got if isinstance(got, dict) else {}).get(k) != want.get(k))
            shown = "; ".join("%s: %s ≠ %s" % (k, _short((got if isinstance(got, dict) else {}).get(k)), _short(want.get(k)))
                              for k in keys[:3])
            return Finding("result_mismatch", "the record's result differs from its replay (%s)" % shown,
                           "牌谱中的结果与重放不符（%s）" % shown, {"fields": keys}), None
    return None, want
