"""What the referee console shows of the tables, alerts and standings (no I/O; the Venue and the
web layer call these).  Game-neutral: a table's cards left, seat to act and clock come from the
fields of its live snapshot, never from a game's rules.

A table's **state** (:func:`table_state`), one of :data:`STATES`:

======== ================================================================================
offline  the hub is offline
idle     the table plays no part in the current round
checkin  a seat is not checked in yet (签到中 only then)
ready    every seat checked in, the round not started (等待开始)
waiting  the round started, the table waits for its next deal
playing  a deal is being played (or its result is on the screens)
paused   a referee paused the table
finished every board of the round has a result at the venue
======== ================================================================================

>>> table_state({"online": True, "seated": True, "boards": [1, 2], "boards_done": 0, "paused": None,
...              "started": False, "seats": {"E": {"checked": True}, "N": {"checked": True}}},
...             {"screen": "checkin"})
'ready'
>>> tiebreak({"decided_by": "opponents_beaten", "R": 58.3, "opponents_beaten": {"mean_R": 44.63}})["value"]
'44.63'
"""

from datetime import datetime

__all__ = ["STATES", "table_state", "pause_refusal", "summary", "alert_context", "alerts_view", "tiebreak",
           "board_breakdown", "public_state"]

STATES = ("offline", "idle", "checkin", "ready", "waiting", "playing", "paused", "finished")
# The public feed's states (paizhuo.mqtt.wire.TABLE_STATES) of the console's.
_PUBLIC = {"offline": "offline", "idle": "idle", "checkin": "checkin", "ready": "waiting", "waiting": "waiting",
           "playing": "playing", "paused": "paused", "finished": "done"}


def table_state(row, live):
    """The state of a :meth:`Venue.glance` row (``live``: the table's last snapshot or None)."""
    if row.get("online") is False:
        return "offline"
    if not row.get("seated"):
        return "idle"
    boards = row.get("boards") or []
    if boards and (row.get("boards_done") or 0) >= len(boards):
        return "finished"
    screen = (live or {}).get("screen")
    if row.get("paused") or screen == "paused":
        return "paused"
    if screen in ("deal", "result"):
        return "playing"
    if live is None or (live.get("round") is not None and live.get("round") != row.get("round")):
        return "checkin" if not row.get("started") else "waiting"
    seats = row.get("seats") or {}
    if any(not (v or {}).get("checked") and not (v or {}).get("bot") for v in seats.values()):
        return "checkin"
    return "waiting" if row.get("started") else "ready"


def public_state(state):
    """The public table feed's word for a console state."""
    return _PUBLIC.get(state, "waiting")


def pause_refusal(row, live, event_over):
    """Why a table cannot be paused now, as ``(code, en, zh)`` (None: it can, or the venue has no
    snapshot of it and the hub decides).  The hub pauses a deal's clocks; between deals and
    between rounds there is no clock to stop, and the referee is told what the table is doing
    instead of the hub's bare refusal."""
    state = row.get("state")
    t = row.get("table")
    if state in ("playing", "paused") or (live is None and state != "offline"):
        return None
    if state == "offline":
        return ("hub_offline", "table %s's hub is offline: nothing can be paused from here; go to the table" % t,
                "第 %s 桌主机离线：无法远程暂停；请到桌前处理" % t)
    if event_over:
        why = ("the event is over", "比赛已全部结束")
    elif state == "finished":
        why = ("the round is over at this table (every board has a result); the next round starts only when a referee "
               "starts it", "本桌本轮已全部打完；下一轮须由裁判开始后才会开始")
    elif state in ("checkin", "ready"):
        why = ("the round has not started at this table (check-in); no deal begins before the round is started",
               "本桌本轮尚未开始（签到中）；开始本轮之前不会开始任何牌局")
    else:
        why = ("no deal is being played at this table right now: it waits for its next deal to begin",
               "本桌此刻没有进行中的牌局，正等待下一副开始")
    return ("no_deal", "table %s cannot be paused: %s; pause stops a deal's clocks, so pause once the deal has begun"
            % (t, why[0]), "第 %s 桌无法暂停：%s；暂停是停止牌局计时，请在牌局开始后再暂停" % (t, why[1]))


def summary(rows, alerts):
    """The glance's counts: ``{"tables", state: n for every state, "calls"}`` (``calls``: open
    calls for a referee)."""
    out = dict({s: 0 for s in STATES}, tables=len(rows))
    for r in rows:
        out[r.get("state") or "idle"] = out.get(r.get("state") or "idle", 0) + 1
    out["calls"] = sum(1 for a in alerts if a.get("kind") == "call" and not a.get("acked_at"))
    return out


def alert_context(body, live, spec):
    """Add to an alert's ``body`` (in place) the context a referee needs when the hub did not say:
    the ``round`` and ``board`` the table was playing and the seat's ``player`` (id and name)."""
    live = live or {}
    if body.get("board") is None and live.get("board") is not None:
        body["board"] = live["board"]
    if body.get("round") is None and live.get("round") is not None:
        body["round"] = live["round"]
    seat = body.get("seat")
    p = ((spec or {}).get("players") or {}).get(seat) if isinstance(seat, str) else None
    if isinstance(p, dict) and "player" not in body:
        body["player"] = {"id": p.get("id"), "name": p.get("name")}
    return body


def _ms(at):
    try:
        return int(datetime.fromisoformat(str(at)).timestamp() * 1000)
    except (TypeError, ValueError):
        return None


def alerts_view(alerts, now_ms):
    """The alerts with ``waiting_ms`` (how long an open one has waited, on the venue's clock)."""
    out = []
    for a in alerts:
        at = _ms(a.get("at"))
        out.append(dict(a, waiting_ms=None if a.get("acked_at") or at is None else max(0, now_ms - at)))
    return out


def _secs(ms):
    return "%.1f s" % (ms / 1000.0) if isinstance(ms, (int, float)) else None


def tiebreak(p):
    """The value of the step that decided a player's place: ``{"step", "value"}`` (None: alone
    on its R, or a play-off).  R itself when R decided; the opponents' mean R, the deal places,
    or a thinking time when a tie-break did."""
    step = p.get("decided_by")
    value = None
    if step == "R":
        value = None if p.get("R") is None else "%.1f" % p["R"]
    elif step == "opponents_beaten":
        mean = (p.get("opponents_beaten") or {}).get("mean_R")
        value = "0" if mean is None else str(mean)
    elif step == "places":
        value = "-".join(str(c) for c in p.get("places") or ())
    elif step == "think_total":
        value = _secs(p.get("think_ms"))
    elif step == "think_trimmed":
        value = _secs(p.get("think_trimmed_ms"))
    if step is None or step == "playoff" or value is None:
        return None
    return {"step": step, "value": value}


def board_breakdown(st, rnd=None):
    """Every board of a standings dict (full, with ``boards``) across its tables: ``[{"round",
    "group", "board", "tables": [{"table", "rows": [{"seat", "player", "name", "score", "mp",
    "rate", "place", "adjusted"}]}]}]``.  From the public standings it shows public boards only."""
    deals = {}
    for p in st.get("players") or ():
        for b in (p.get("boards") or {}).values():
            if rnd is not None and b.get("round") != rnd:
                continue
            key = (b.get("round") or 0, b.get("group") or 1, b.get("board"))
            tables = deals.setdefault(key, {})
            tables.setdefault(str(b.get("table")), []).append({
                "seat": b.get("seat"), "player": p.get("player"), "name": p.get("name"), "score": b.get("score"),
                "mp": b.get("mp"), "rate": b.get("rate"), "place": b.get("place"), "adjusted": bool(b.get("adjusted"))})
    order = "ENWS"
    out = []
    for (r, g, board), tables in sorted(deals.items(), key=lambda kv: (kv[0][0], str(kv[0][1]), kv[0][2] or 0)):
        out.append({"round": r, "group": g, "board": board, "tables": [
            {"table": t, "rows": sorted(rows, key=lambda x: order.find(str(x["seat"])))}
            for t, rows in sorted(tables.items(), key=lambda kv: (0, int(kv[0]), "") if kv[0].isdigit() else (1, 0, kv[0]))]})
    return out
