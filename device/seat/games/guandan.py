"""Guandan's seat screens (掼蛋): the tribute and the return (one screen), play, and the
deal's result with the match's progress.  Found through ``seat.games`` by the view's
``game``; the screens every game shares are ``seat/screens.py``'s.

27 cards on 480×320: **two rows** (14 and 13) of 34×52 px cards, 33 px apart.  One row
would leave each card a strip of (480 − 8 − 34) / 26 = 16 px: on the reference 3.5" panel
(73.4 mm across 480 px, 0.153 mm a pixel) 2.5 mm wide, a quarter of a fingertip and below
every touch-target guideline (7–9 mm); scrolling would make a 27-card selection a series of
swipes.  Two rows give each card 33 × 52 px = 5.0 × 8.0 mm, the whole hand at once.

Layout (rows): top bar 0-23; the level line 26-42 (the level played, both sides' levels,
the match's deal); the other seats' panels 46-107 (上家/对家/下家 — 对家 is the partner — and name, 报牌 counts
of 10 or fewer, the place once out, the last play or 过); the hint 112-128; the seat's own
row 134-165 (its last play or the cards it may give, and the buttons); the hand 184-306
(a picked card rises 13 px).  The meaning chooser (wild cards: a selection with more than
one legal meaning) is a box over the middle with one button per meaning.

No classifier here (``paizhuo_shared.guandan`` would take a large part of the heap): every
change of the selection asks the hub (``describe``, one round trip); 出牌 lights when the
answer has a meaning, and with more than one the player chooses.

Tap ids: ``card:3D`` (the second of two: ``card:3D+``), ``btn:play``, ``btn:pass``,
``btn:give`` (进贡 or 还牌), ``mean:0`` … (the chooser), ``btn:cancel``.
"""

import time

from micropython import const

from seat import games, gfx, screens, state, text

# Words of this game's views no code names, made qstrs when the module loads (the list itself
# is not kept): the JSON parser then returns them instead of new strings (see seat/state.py).
["guandan", "leader", "anti_tribute", "playing"]

_WHITE = const(1)
_BLACK = const(2)
_BLUE = const(7)
_LIGHT = const(8)
_ORANGE = const(9)
_GREEN = const(10)
_YELLOW = const(6)
_MAROON = const(13)

_GIVE = const(8)  # the tribute and the return (screens.GAME is 8)
_PLAY = const(9)
_RESULT = const(10)
_W = const(480)
_PANEL_Y = const(46)
_PANEL_W = const(152)
_PANEL_H = const(62)
_HINT_Y = const(112)
_ROW_Y = const(134)
_HAND_Y = const(197)
_CARD_H = const(52)
_PER_ROW = const(14)
_choosing = None  # the meanings the player is choosing between (the chooser is up), or None
_asked = None  # (turn, selection) the hub was last asked about (describe)


def pick(m):
    """The screen kind: the result, the tribute/return, or play; None: waiting."""
    phase = games.deal_phase(m)
    if phase == "over":
        return _RESULT
    if phase == "tribute" or phase == "return":
        return _GIVE
    return _PLAY if phase == "play" else None


def name(ui):
    if ui.kind == _GIVE:
        return ui.m.view.get("phase")
    if ui.kind == _PLAY:
        return "choose" if _choosing else "play"
    return "result"


def prune(buf, n):
    """Before a frame is parsed (``seat.games.prune``): of the view's members, and of its
    ``tribute``'s, only those the screens show stay; the others become spaces (``seat``,
    ``playing``, ``turn``, ``leader``, ``first_lead``, ``time_limit``; the tribute's payers,
    paid, returned and rule text) — and in the play phase the whole ``tribute`` (1.3 KB parsed
    on the unix port, shown nowhere then).  The first state of a deal with its tribute is
    the seat's lowest heap moment in Guandan: 0.6 KB less parsed."""
    i = buf.find(b'"view":{', 0, n)
    if i < 0:
        return
    j = state._skip(buf, i + 7, n)
    if j > 0:
        # "tribute" is the first word: the play phase's search starts after it
        _only(buf, i + 7, j, _KEEP, 9 if buf.find(b'"phase":"play"', i, j) >= 0 else 0)
        t = buf.find(b'"tribute":{', i, j)
        if t >= 0:
            _only(buf, t + 10, j, _KEEP, 0)


# The view's members kept, then its tribute's (one constant: each module global is a slot of
# its table on the heap, and neither object has a key of the other's).
_KEEP = (b'"tribute""game""board""phase""level""levels""to_act""reports""places""to_beat""trick""hand"'
         b'"result""anti_tribute""tributes""eligible""my_tribute""my_return"')


def _only(buf, i, n, keep, start):
    """Blank (spaces) every member of the JSON object at ``buf[i]`` whose quoted key is not
    in ``keep`` from ``start`` on, commas included, so the JSON stays valid; anything
    unexpected stops it (the rest is parsed as sent)."""
    i += 1
    kept = -1  # where the comma after the last member kept is
    while i < n and buf[i] == 34:  # '"': a member's key (the view's keys have no escapes)
        k = buf.find(b'"', i + 1, n)
        if k < 0 or k + 1 >= n or buf[k + 1] != 58:  # ':'
            return
        end = state._skip(buf, k + 2, n)
        if end < 0 or end >= n:
            return
        comma = buf[end] == 44  # ','
        if keep.find(buf[i:k + 1], start) >= 0:
            kept = end
        elif comma:
            state._blank(buf, i, end + 1)  # the member and its comma
        elif kept >= 0:
            state._blank(buf, kept, end)  # the last member and the comma before it
        else:
            state._blank(buf, i, end)  # the only member
        i = end + 1 if comma else end


def _meaning(name, lang):
    """``straight:7`` as the player reads it: 顺子 7."""
    kind, _, rank = name.partition(":")
    kinds = text.t("gkw", 0)  # the kinds' names in the table, read when wanted: no module constant
    i = kinds.find(" " + kind + " ")
    out = text.t("gk", lang, kinds.count(" ", 0, i)) if i >= 0 else kind
    return out + " " + text.rank_face(rank) if rank else out


def _selection(m):
    return [gfx.CODES[n] for n in gfx.card_bytes(m.selected)]


def build(ui, now, ws):
    """Append the widgets of the Guandan screen ``ui.kind`` to ``ws``."""
    global _choosing, _asked
    m = ui.m
    f = ui.f16
    lang = m.lang
    v = m.view or {}
    mine = m.my_turn()
    me = m.seat
    side = "EW" if me == "E" or me == "W" else "NS"
    levels = v.get("levels") or {}
    # A timed match's time left (剩23分, orange from 5 minutes; 比赛时间到 at zero), shown after
    # the levels: on the play screens and between deals (the seat counts it down: seat/ui.py).
    left = m.match_left(now)
    mins = -1 if left is None else (left + 59999) // 60000
    clock = "" if mins < 0 else " · " + (text.t("match_left", lang, 0) % mins if mins else text.t("match_left", lang, 1))
    colour = _ORANGE if 0 <= mins <= 5 else _LIGHT
    if ui.kind == _RESULT:
        screens._top_bar(ui, ws, None, False)
        title = text.t("gd", lang, 21)
        if isinstance(v.get("board"), int):
            title = title + "  " + text.t("board", lang) % v.get("board")
        ws.append(gfx.text(f, 0, 32, title, _YELLOW, _W))
        places = (m.result or {}).get("places") or v.get("places") or []
        y = 62
        for i in range(len(places)):
            s = places[i]
            p = m.players.get(s)
            line = "%s  %s %s" % (text.t("gd", lang, 3 + i), text.seat_name(s, lang), p or "")
            ws.append(gfx.text(f, 60, y, screens.fit(f, line, 360), _YELLOW if s == me else _WHITE))
            y += 24
        pm = m.match or {}
        lv = (m.result or {}).get("levels_after") or pm.get("levels") or levels  # after this deal
        line = text.t("gd", lang, 28) % (text.rank_face(lv.get("EW", "-")), text.rank_face(lv.get("NS", "-")))
        ws.append(gfx.text(f, 0, 170, screens.fit(f, line + clock, 470), colour, _W))
        if pm.get("over"):
            won = pm.get("winner")
            line = text.t("gd", lang, 22) + ("  " + text.t("gd", lang, 23) % text.t("gd", lang, 29 if won == "EW" else 30) if won else "")
            ws.append(gfx.text(f, 0, 194, line, _ORANGE, _W))
        elif pm.get("forfeited"):  # a referee ended the match
            ws.append(gfx.text(f, 0, 194, screens.fit(f, text.t("forfeited", lang, 0), 470), _ORANGE, _W))
        games.next_seat(ui, ws, 230)
        return
    phase = v.get("phase")
    to_act = v.get("to_act") or []
    screens._top_bar(ui, ws, games.status(ui, mine), True)
    line = text.t("gd", lang, 0) % (text.rank_face(v.get("level", "-")), text.rank_face(levels.get(side, "-")),
                           text.rank_face(levels.get("NS" if side == "EW" else "EW", "-")))
    if m.match and isinstance(m.match.get("deal"), int):
        line = line + " · " + text.t("gd", lang, 19) % m.match["deal"]
    # centred left of 叫裁判 (x 412-478, rows 0-45), whose row this is
    ws.append(gfx.text(f, 0, 26, screens.fit(f, line + clock, 400), colour, 408))
    reports = v.get("reports") or {}
    out = v.get("places") or []
    trib = v.get("tribute") or {}
    paid = {}
    for tr in trib.get("tributes") or ():
        paid[tr.get("from")] = tr.get("card")
    for slot in range(3):  # 上家 left, 对家 (the partner) middle, 下家 right
        seat, x = games.panel(ui, ws, v, slot, _PANEL_Y, _PANEL_W, _PANEL_H)
        tx = x + 4  # (对家 is the partner: its header says so, no 队友 widget on the heap)
        if seat in out:
            ws.append(gfx.text(f, tx, _PANEL_Y + 22, text.t("gd", lang, 3 + out.index(seat)), _YELLOW))
        elif seat in reports:  # 报牌: 10 cards or fewer, shown to all
            ws.append(gfx.text(f, tx, _PANEL_Y + 22, text.t("gd", lang, 2) % reports[seat], _ORANGE))
        if phase == "play":
            play = 0
            for e in v.get("trick") or ():
                if e.get("seat") == seat:
                    play = e.get("cards")
            if play is None:
                ws.append(gfx.text(f, x + 4, _PANEL_Y + 41, text.t("passed", lang), _LIGHT))
            elif play:
                ws.append(gfx.cardrow(f, x + 4, _PANEL_Y + 40, _PANEL_W - 8, gfx.card_bytes(play)))
        elif seat in paid and paid[seat]:  # the tribute it gave (public once every payer has paid)
            ws.append(gfx.cardrow(f, x + 4, _PANEL_Y + 40, _PANEL_W - 8, gfx.card_bytes([paid[seat]])))
    # The hint line and the seat's own row.
    hint, colour = games.held(m, now, mine)
    can = m.can_act(now)
    sel = _selection(m) if m.selected else []
    eligible = trib.get("eligible") or []
    if ui.kind == _GIVE:
        tribute = phase == "tribute"
        if hint is None:
            if trib.get("anti_tribute"):
                hint = text.t("gd", lang, 13)
            elif mine:
                hint, colour = text.t("gd", lang, 7 if tribute else 8), _YELLOW
            elif to_act:
                hint = text.t("gd", lang, 11 if tribute else 12) % "、".join([text.seat_name(s, lang) for s in to_act])
        ws.append(gfx.text(f, 4, _ROW_Y + 8, text.t("you", lang), _LIGHT))
        mine_card = trib.get("my_return") or trib.get("my_tribute") or paid.get(me)
        shown = eligible if mine else ([mine_card] if mine_card else [])
        if shown:
            ws.append(gfx.cardrow(f, 28, _ROW_Y + 7, 260, gfx.card_bytes(shown)))
        if mine:
            ok = can and len(sel) == 1 and sel[0] in eligible
            ws.append(gfx.button(f, 300, _ROW_Y, 176, 32, text.t("gd", lang, 9 if tribute else 10), "btn:give", _GREEN, ok))
    else:
        if mine and sel and m.pending is None and _asked != (m.turn, sel):
            # Ask the hub about this selection now that it is the seat's to play (also after
            # a selection made while waiting, or a resync): one round trip.
            _asked = (m.turn, sel)
            ui.app.describe(sel)
        answer = m.meanings
        meanings = answer[1] if answer and answer[0] == sel else None
        if hint is None and mine:
            if sel and meanings is None:
                hint = text.t("gd", lang, 15)
            elif sel and not meanings:
                hint, colour = text.t("gd", lang, 18), _ORANGE
            elif sel:
                hint = text.t("gd", lang, 16) % " / ".join([_meaning(n, lang) for n in meanings])
            elif (not v.get("trick") and m.round_end and m.round_end.get("jiefeng")
                  and m.round_end.get("leader") == me):
                hint, colour = text.t("gd", lang, 14), _YELLOW
            elif not v.get("to_beat"):
                hint = text.t("gd", lang, 24)
            else:
                hint = text.t("gd", lang, 25)
        ws.append(gfx.text(f, 4, _ROW_Y + 8, text.t("you", lang), _LIGHT))
        if me in out:
            ws.append(gfx.text(f, 28, _ROW_Y + 8, text.t("gd", lang, 3 + out.index(me)), _YELLOW))
        else:
            for e in v.get("trick") or ():
                if e.get("seat") == me:
                    if e.get("cards"):
                        ws.append(gfx.cardrow(f, 28, _ROW_Y + 7, 260, gfx.card_bytes(e.get("cards"))))
                    else:
                        ws.append(gfx.text(f, 28, _ROW_Y + 8, text.t("passed", lang), _LIGHT))
        ok = can and not _choosing  # under the chooser only its own buttons take a finger
        ws.append(gfx.button(f, 300, _ROW_Y, 84, 32, text.t("play", lang), "btn:play", _GREEN, ok and bool(meanings)))
        ws.append(gfx.button(f, 392, _ROW_Y, 84, 32, text.t("pass", lang), "btn:pass", _BLUE,
                         ok and v.get("to_beat") is not None))
    if hint:
        ws.append(gfx.text(f, 0, _HINT_Y, screens.fit(f, hint, 470), colour, _W))
    # The hand: level cards framed orange (the heart ones are wild).
    lv = v.get("level")
    marks = "3456789TJQKA2".find(lv[0] if lv != "10" else "T") if isinstance(lv, str) and lv else -1
    ws.append(gfx.hand(_HAND_Y, _sorted(m.hand(), marks), gfx.card_flags(m.selected),
                       (ui.kind == _PLAY or mine) and not _choosing, _W,
                          _PER_ROW, _CARD_H, marks))
    if ui.kind == _PLAY and _choosing:
        if not (mine and can):
            _choosing = None
            return
        n = len(_choosing)
        h = 72 + ((n + 1) // 2) * 40
        ws.append((gfx.BOX, 40, 60, 400, h, _WHITE, _BLACK))
        ws.append((gfx.BOX, 40, 60, 400, 24, _MAROON, -1))
        ws.append(gfx.text(f, 40, 64, text.t("gd", lang, 17), _WHITE, 400))
        for i in range(n):
            ws.append(gfx.button(f, 52 + (i % 2) * 192, 92 + (i // 2) * 40, 184, 32, _meaning(_choosing[i], lang),
                             "mean:%d" % i, _BLUE))
        ws.append(gfx.button(f, 190, 60 + h - 40, 100, 32, text.t("gd", lang, 20), "btn:cancel", _GREEN))


def _sorted(hand, level):
    """The hand's card numbers in Guandan's single order, low to high: 2 … A, the level
    rank beside the jokers (its heart, the wild card, last of them), 小王, 大王.  The numbers
    are Big Two's (rank * 4 + suit, ranks 3 … A 2), so 2 moves to the front."""
    def key(n):
        if n >= 52:
            return n * 5  # after every level card (13 * 5 + 4 < 52 * 5)
        suit = n & 3
        if n >> 2 == level:
            return 13 * 5 + (4 if suit == 2 else suit)
        return (((n >> 2) + 1) % 13) * 5 + suit
    return bytearray(sorted(gfx.card_bytes(hand), key=key))


def on_tap(ui, tap):
    """A tap on an enabled widget of a Guandan screen."""
    global _choosing
    m = ui.m
    if _choosing:
        if tap.startswith("mean:"):
            chosen = _choosing[int(tap[5:])]
            _choosing = None
            if m.can_act(time.ticks_ms()):
                ui.app.send_intent({"type": "play", "cards": _selection(m), "meaning": chosen})
                return
        elif tap == "btn:cancel":
            _choosing = None
        ui.update()
        return
    if tap.startswith("card:"):
        code = tap[5:].rstrip("+")
        k = m.selected.count(code)
        if ui.kind == _GIVE:  # one card: a tap picks it (or puts it back)
            m.selected = [] if k else [code]
        elif (1 if tap.endswith("+") else 0) < k:  # a raised copy (the first k are) goes down
            m.selected.remove(code)
        else:
            m.selected.append(code)
        ui.update()  # (build asks the hub about the new selection)
        return
    if not m.can_act(time.ticks_ms()):
        return
    if tap == "btn:give":
        ui.app.send_intent({"type": m.view.get("phase"), "cards": _selection(m)})
    elif tap == "btn:pass":
        ui.app.send_intent({"type": "pass"})
    elif tap == "btn:play" and m.meanings and m.meanings[0] == _selection(m):
        meanings = m.meanings[1]
        if len(meanings) == 1:
            ui.app.send_intent({"type": "play", "cards": _selection(m), "meaning": meanings[0]})
        elif meanings:
            _choosing = list(meanings)
            ui.update()
