"""Hand records of a finished round (牌谱): every deal with all hands, every table's play, the results.

Published once a round is over (never before: the hands of a deal some table still plays
must stay hidden), as JSON (``venue/records/<round>`` and ``/records/<round>.json``) and as a
self-contained HTML page (``/records/<round>``: no scripts, no outside files, Chinese first).

The deals come from the venue's own derivation (event secret → round key → deal), not from
what the hubs sent; each table's record says whether the deal it played has the same hash
(``same_deal``).  With the round key published, anyone can regenerate the deals with
``paizhuo deals --round-key … --round N`` and check the hashes.

>>> from paizhuo.venue import deals
>>> secret = b"example secret for the records doctest"
>>> from paizhuo.rules import DEFAULT_GAME
>>> rec = deals.deal(secret, DEFAULT_GAME, 1, 1, 1)
>>> spec = {"group": 1, "players": {s: {"id": "P%s" % s, "name": "选手" + s, "no": i + 1, "bot": False}
...                               for i, s in enumerate("ENWS")}}
>>> rows = [{"seat": s, "player": "P%s" % s, "score": 0, "think_ms": 0, "auto_moves": 0, "result_id": "T1/1/r1/g1/b1/" + s}
...         for s in "ENWS"]
>>> play = {"group": 1, "board": 1, "table": "1", "hub": "T1",
...         "record": {"deal_hash": rec.hash, "rows": rows, "record": {"actions": [], "result": {"scores": {}}}}}
>>> r = build("demo", "Demo", DEFAULT_GAME, secret, 1, [1], [{"hub": "T1", "table": "1", "spec": spec}], [play])
>>> r["format"], len(r["deals"]), r["deals"][0]["tables"][0]["same_deal"]
('paizhuo.records/1', 1, True)
>>> page = render_html(r)
>>> page.startswith("<!DOCTYPE html>") and "<script" not in page and "第 1 轮" in page
True
"""

import html
import json

from paizhuo_shared import cards as cards_
from . import deals as deals_
from ..mqtt import wire

__all__ = ["FORMAT", "build", "render_html", "for_wire", "card_text"]

FORMAT = "paizhuo.records/1"
SEAT_ZH = {"E": "东", "N": "北", "W": "西", "S": "南"}
SEAT_EN = {"E": "East", "N": "North", "W": "West", "S": "South"}


def _natural(text):
    text = str(text)
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def build(event, name, game, secret, rnd, boards, specs, plays, results=(), adjustments=None):
    """The hand records of round ``rnd`` as a JSON-ready dict.

    ``boards``: the round's board numbers; ``specs``: the round's specs as the store keeps
    them (``[{"hub", "table", "spec"}]``); ``plays``: the store's plays of the round
    (``[{"group", "board", "table", "hub", "record": {"deal_hash", "rows", "record"}}]``);
    ``results``: the store's detailed results (``results(event, include_held=True,
    detail=True)``), which add each row's ``status`` and ``held_why`` and give its score as a
    referee corrected it; ``adjustments``: ``{result_id: [{"field", "old", "new", "who", "at",
    "why"}]}`` (:func:`paizhuo.venue.adjust.by_result`), shown with the row they corrected.

    Shape::

        {"v": 1, "format": "paizhuo.records/1", "event", "name", "game", "round", "round_key",
         "deals": [{"group", "board", "hash", "deal": DealRecord.to_dict(),
                    "tables": [{"table", "hub", "players": {seat: {"id", "name", "no", "bot"}},
                                "deal_hash", "same_deal", "actions": [...], "result": {...},
                                "rows": [{"seat", "player", "score", "think_ms", "auto_moves",
                                          "result_id", "status", "held_why", "received_score",
                                          "adjusted": [{"field", "old", "new", "who", "at", "why"}]}]}],
                    "missing": [tables of the group with no record of this board]}]}
    """
    key = deals_.round_key(secret, rnd)
    status = {r["result_id"]: (r["status"], r["held_why"]) for r in results if r.get("round") == rnd}
    now = {r["result_id"]: r for r in results if r.get("round") == rnd}   # as corrected
    adjustments = adjustments or {}
    tables_of = {}
    spec_of = {}
    for s in specs:
        spec_of[str(s["table"])] = s
        tables_of.setdefault(s["spec"]["group"], []).append(str(s["table"]))
    by_deal = {}
    for p in plays:
        by_deal.setdefault((int(p["group"] or 1), p["board"]), []).append(p)
    out = []
    for group in sorted(tables_of):
        for board in boards:
            rec = deals_.deal_from_round_key(key, game, group, board, round=rnd)
            entry = {"group": group, "board": board, "hash": rec.hash, "deal": rec.to_dict(), "tables": [], "missing": []}
            seen = set()
            for p in sorted(by_deal.get((group, board), ()), key=lambda p: _natural(p["table"])):
                body = p["record"] if isinstance(p["record"], dict) else {}
                inner = body.get("record") if isinstance(body.get("record"), dict) else {}
                spec = spec_of.get(str(p["table"]), {}).get("spec", {})
                rows = []
                for r in body.get("rows") or ():
                    if not isinstance(r, dict):
                        continue
                    st, why = status.get(r.get("result_id"), (None, None))
                    cur = now.get(r.get("result_id"), r)
                    rows.append({"seat": r.get("seat"), "player": cur.get("player"), "score": cur.get("score"),
                                 "think_ms": cur.get("think_ms"), "auto_moves": r.get("auto_moves"),
                                 "result_id": r.get("result_id"), "status": st, "held_why": why,
                                 "received_score": r.get("score"), "adjusted": adjustments.get(r.get("result_id"), [])})
                entry["tables"].append({
                    "table": str(p["table"]), "hub": p["hub"], "players": spec.get("players", {}),
                    "deal_hash": body.get("deal_hash"), "same_deal": body.get("deal_hash") == rec.hash,
                    "actions": inner.get("actions") if isinstance(inner.get("actions"), list) else [],
                    "result": inner.get("result") if isinstance(inner.get("result"), dict) else {},
                    "rows": rows})
                if inner.get("match") is True and isinstance(inner.get("deals"), list):
                    # A board that is a match: every deal of it, its levels, its hands and its actions.
                    entry["tables"][-1]["match"] = [
                        {"deal": n, "setup": d.get("setup"), "hands": (d.get("deal") or {}).get("hands"),
                         "actions": d.get("actions") if isinstance(d.get("actions"), list) else []}
                        for n, d in enumerate(inner["deals"], 1) if isinstance(d, dict)]
                seen.add(str(p["table"]))
            entry["missing"] = [t for t in sorted(tables_of[group], key=_natural) if t not in seen]
            out.append(entry)
    return {"v": 1, "format": FORMAT, "event": event, "name": name, "game": game, "round": rnd,
            "round_key": key.hex(), "boards": list(boards), "deals": out}


def for_wire(records, limit=wire.MAX_PAYLOAD):
    """The records as MQTT can carry them (≤ 256 KB): whole when they fit; else without each
    table's actions (``"plays_omitted": true``); else the deals and hashes alone
    (``"tables_omitted": true``).  The web page and ``/records/<round>.json`` always have all."""
    if _size(records) <= limit:
        return records
    slim = dict(records, plays_omitted=True,
                deals=[dict(d, tables=[dict(t, actions=[], **({"match": []} if "match" in t else {})) for t in d["tables"]])
                       for d in records["deals"]])
    if _size(slim) <= limit:
        return slim
    return dict(records, plays_omitted=True, tables_omitted=True, deals=[dict(d, tables=[]) for d in records["deals"]])


def _size(obj):
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


# ---- the page -----------------------------------------------------------------------------

def card_text(code):
    """A card for people: ``♠10``, ``大王``, ``壹``; an unknown code is shown as it is."""
    try:
        return cards_.pretty(code)
    except (KeyError, IndexError, ValueError, TypeError):
        return str(code)


def _cards(codes):
    if not isinstance(codes, (list, tuple)):
        return html.escape(str(codes))
    parts = []
    for c in codes:
        t = card_text(c)
        red = isinstance(c, str) and len(c) == 2 and c[1] in "DH"
        parts.append('<span class="c%s">%s</span>' % (" r" if red else "", html.escape(t)))
    return " ".join(parts) or "—"


def _seat(s):
    return "%s %s" % (SEAT_ZH.get(s, s), SEAT_EN.get(s, s)) if s in SEAT_ZH else html.escape(str(s))


def _level(v):
    """A level of a match's setup (2..14, 15 past A) as people write it: 2..10, J, Q, K, A, A+."""
    names = {11: "J", 12: "Q", 13: "K", 14: "A", 15: "A+"}
    return names.get(v, str(v)) if isinstance(v, int) else str(v)


def _player(p):
    if not isinstance(p, dict):
        return html.escape(str(p))
    text = "%s (%s)" % (p.get("name", ""), p.get("id", ""))
    if p.get("bot"):
        text += " 电脑 bot"
    return html.escape(text)


def _action(a):
    if not isinstance(a, dict):
        return "<li>%s</li>" % html.escape(json.dumps(a, ensure_ascii=False))
    kind = a.get("type")
    seat = _seat(a.get("seat"))
    if kind == "play":
        what = "出 play %s" % _cards(a.get("cards", []))
    elif kind == "pass":
        what = "不出 pass"
    elif kind == "show":
        what = "明牌 show" if a.get("yes") else "不明牌 no show"
    elif kind == "double":
        what = "加倍 double" if a.get("yes") else "不加倍 no double"
    elif kind == "tribute":
        what = "进贡 tribute %s" % _cards([a.get("card")] if "card" in a else a.get("cards", []))
    elif kind == "return":
        what = "还牌 return %s" % _cards([a.get("card")] if "card" in a else a.get("cards", []))
    elif kind == "discard":
        what = "打出 discard %s" % _cards([a.get("card")])
    elif kind == "chi":  # the group with the card taken, then the 比牌 groups
        what = "吃 chi %s" % " · ".join(_cards(g) for g in a.get("groups") or ())
    elif kind in ("peng", "hu"):
        what = "碰 peng" if kind == "peng" else "胡 hu"
    else:
        what = html.escape(json.dumps(a, ensure_ascii=False))
    if a.get("auto"):
        what += ' <span class="auto">托管 auto</span>'
    return "<li><b>%s</b> %s</li>" % (seat, what)


STYLE = """
body{font-family:"Noto Sans CJK SC","WenQuanYi Micro Hei",sans-serif;margin:1.5em;color:#111;max-width:70em}
h1{font-size:1.5em}h2{font-size:1.2em;border-top:2px solid #333;padding-top:.6em;margin-top:2em}
h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #999;padding:.2em .5em;text-align:left}
.c{font-family:monospace;font-size:1.05em}.r{color:#c00}.hash{font-family:monospace;font-size:.8em;word-break:break-all}
.bad{background:#fdd;font-weight:bold}.auto{color:#666;font-size:.85em}ol{columns:3;font-size:.95em}
.held{background:#ffd}.adj{background:#e6f0fb}.was{color:#666;text-decoration:line-through;margin-left:.3em}
.why{color:#14324f;font-size:.9em}
"""


def _adjusted(row):
    """The score cell and the status note of a corrected row (empty when it was not corrected)."""
    esc = html.escape
    adj = [a for a in row.get("adjusted") or () if isinstance(a, dict)]
    if not adj:
        return esc(str(row.get("score"))), ""
    cell = esc(str(row.get("score")))
    if row.get("received_score") != row.get("score"):
        cell += '<span class="was">%s</span>' % esc(str(row.get("received_score")))
    notes = "；".join("%s %s → %s：%s（%s）" % (esc(str(a.get("field"))), esc(json.dumps(a.get("old"), ensure_ascii=False)),
                                             esc(json.dumps(a.get("new"), ensure_ascii=False)), esc(str(a.get("why"))),
                                             esc(str(a.get("who")))) for a in adj)
    return cell, ' · <span class="why">裁判已更正 adjusted: %s</span>' % notes


def render_html(records):
    """One self-contained HTML page of the records (no scripts, no outside files)."""
    esc = html.escape
    r = records
    title = "%s — 第 %s 轮牌谱 Round %s hand records" % (r.get("name", r.get("event")), r.get("round"), r.get("round"))
    out = ["<!DOCTYPE html>", '<html lang="zh"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>%s</title><style>%s</style></head><body>" % (esc(title), STYLE),
           "<h1>%s</h1>" % esc(title),
           '<p>项目 game: %s · 轮次密钥 round key: <span class="hash">%s</span></p>' % (esc(str(r.get("game"))),
                                                                                     esc(str(r.get("round_key")))),
           "<p>每副牌的哈希可用 <code>paizhuo deals --round-key … --round %s --game %s --group G --boards B</code> 复核。"
           " Every deal can be regenerated and its hash checked with that command.</p>" % (esc(str(r.get("round"))),
                                                                                       esc(str(r.get("game"))))]
    if r.get("plays_omitted"):
        out.append("<p>（此版本省略了出牌过程 plays omitted）</p>")
    for d in r.get("deals", ()):
        out.append("<h2>第 %s 组 第 %s 副 · group %s board %s</h2>" % (esc(str(d["group"])), esc(str(d["board"])),
                                                                   esc(str(d["group"])), esc(str(d["board"]))))
        out.append('<p>哈希 hash: <span class="hash">%s</span></p>' % esc(str(d.get("hash"))))
        deal = d.get("deal", {})
        out.append("<table><tr><th>座位 seat</th><th>手牌 hand</th></tr>")
        for seat, hand in (deal.get("hands") or {}).items():
            out.append("<tr><td>%s</td><td>%s</td></tr>" % (_seat(seat), _cards(hand)))
        extra = deal.get("extra") or {}
        if extra.get("shown"):
            out.append("<tr><td>亮张 shown</td><td>%s</td></tr>" % _cards([extra["shown"]]))
        if extra.get("stock"):
            out.append("<tr><td>底牌 stock</td><td>%s</td></tr>" % _cards(extra["stock"]))
        out.append("</table>")
        for t in d.get("tables", ()):
            out.append("<h3>第 %s 桌 table %s <small>(%s)</small></h3>" % (esc(t["table"]), esc(t["table"]), esc(str(t.get("hub")))))
            if not t.get("same_deal"):
                out.append('<p class="bad">此桌的牌局哈希与本副不符 — this table played another deal (hash %s); '
                           "其成绩已暂扣，由裁判处理 its results are held for the referees.</p>" % esc(str(t.get("deal_hash"))))
            out.append("<table><tr><th>座位 seat</th><th>选手 player</th><th>得分 score</th><th>用时 time</th>"
                       "<th>托管 auto</th><th>状态 status</th></tr>")
            players = t.get("players") or {}
            for row in t.get("rows", ()):
                held = row.get("status") == "held"
                secs = row.get("think_ms")
                score, note = _adjusted(row)
                cls = "held" if held else ("adj" if note else "")
                out.append("<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s%s</td></tr>" % (
                    ' class="%s"' % cls if cls else "", _seat(row.get("seat")),
                    _player(players.get(row.get("seat"), row.get("player"))), score,
                    esc("%.1f s" % (secs / 1000) if isinstance(secs, int) else str(secs)), esc(str(row.get("auto_moves"))),
                    esc("暂扣 held: %s" % row.get("held_why")) if held else "计入 counted", note))
            out.append("</table>")
            if t.get("actions"):
                out.append("<ol>%s</ol>" % "".join(_action(a) for a in t["actions"]))
            for m in t.get("match") or ():
                levels = (m.get("setup") or {}).get("levels") or {}
                shown = " · ".join("%s %s" % (esc(str(k)), esc(_level(v))) for k, v in sorted(levels.items()))
                out.append("<h4>第 %s 局 deal %s <small>%s</small></h4>" % (esc(str(m.get("deal"))), esc(str(m.get("deal"))),
                                                                         shown))
                out.append("<table>%s</table>" % "".join("<tr><td>%s</td><td>%s</td></tr>" % (_seat(seat), _cards(hand))
                                                         for seat, hand in (m.get("hands") or {}).items()))
                if m.get("actions"):
                    out.append("<ol>%s</ol>" % "".join(_action(a) for a in m["actions"]))
        if d.get("missing"):
            out.append("<p>无记录的桌 no record from table(s): %s</p>" % esc(", ".join(d["missing"])))
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
