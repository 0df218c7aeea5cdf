"""The games' seat screens: one module per game, ``seat/games/<game>.py``, found by the
``game`` of the hub's view and imported only when that game is on screen.  The module of
the game before is dropped (read again from the image when it is wanted): the heap holds
one game's screens at a time, and a game's words (qstrs, for good) only once it is played.

A game module has, at module level:

- ``pick(m)``: the screen kind (``screens.GAME`` or more) for the mirror ``m``, or None
  (then the seat waits);
- ``name(ui)``: the screen's name on the control channel (``play``, ``tribute``, …);
- ``build(ui, now, ws)``: append the screen's widgets to ``ws``;
- ``on_tap(ui, tap)``: a tap on one of its enabled widgets;
- optionally ``prune(buf, n)``: blank, in the JSON bytes of a frame about to be parsed,
  what its screens never show (the game of the view on screen is asked: see :func:`prune`).

Nothing outside a game's own modules names a game: this registry knows them only as the
words of ``_GAMES`` (the modules the image holds).  Below the registry: the pieces the
games' screens share (the phase on screen, the status, a seat's panel, …) — here and not
in ``seat/screens.py`` so that a seat carries them only once a deal is on screen.
"""

import sys

from micropython import const

from seat import screens, text
from seat.gfx import BOX, text as label

# Palette indices of board/band.py (private: folded into the code, no heap).
_WHITE = const(1)
_YELLOW = const(6)
_ORANGE = const(9)
_PANEL = const(12)
_W = const(480)
SEATS = "ENWS"

_GAMES = " bigtwo guandan paohuzi "  # space-separated, one string: a tuple of str would be heap
_name = None  # the game whose module is loaded,
_mod = None  # and the module


def load(name):
    """The seat module of game ``name`` (a view's ``game``), or None if this firmware has
    no screens for it.  Switching games drops the previous game's module."""
    global _name, _mod
    if name == _name:
        return _mod
    if not isinstance(name, str) or not name or " " in name or _GAMES.find(" " + name + " ") < 0:
        return None
    import seat.games as pkg
    if _name is not None:
        old = "seat.games." + _name
        if old in sys.modules:
            del sys.modules[old]
        if hasattr(pkg, _name):
            delattr(pkg, _name)
    _name = _mod = None
    __import__("seat.games." + name)
    _mod = getattr(pkg, name)
    _name = name
    return _mod


def prune(buf, n):
    """The game's ``prune`` on a frame's JSON bytes before they are parsed (the seat's heap
    cannot hold what no screen shows).  The game is the view's: a deal's first frame of a
    session (a seat that rejoins in a claim or at a result) comes before any screen loaded
    the game's module, and parsed unpruned it ran the heap out, so it is loaded here first."""
    i = buf.find(b'"game":"', 0, n)
    j = buf.find(b'"', i + 8, n) if i >= 0 else -1
    if i + 8 < j <= i + 24:
        name = bytes(buf[i + 8:j]).decode()
        if name != _name:
            load(name)  # an unknown name loads nothing and keeps what is loaded
    f = getattr(_mod, "prune", None) if _mod is not None else None
    if f is not None:
        f(buf, n)


# ---- pieces the games' screens share ---------------------------------------------------------

def deal_phase(m):
    """The phase of the deal a game's screen shows: ``over`` once the deal is over (or the
    hub shows its result), the view's phase while the hub shows the deal (or pauses it),
    else None (the seat waits)."""
    v = m.view
    phase = v.get("phase") if v else None
    if m.screen == "result" or phase == "over":
        return "over"
    return phase if m.screen == "deal" or m.screen == "paused" else None


def status(ui, mine):
    """The top bar's status of a deal: your turn, or whom the table waits for."""
    lang = ui.m.lang
    to_act = (ui.m.view or {}).get("to_act")
    if mine:
        return text.t("your_turn", lang)
    return text.t("wait_for", lang) % text.seat_name(to_act[0], lang) if to_act else None


def held(m, now, mine):
    """(hint, colour) when the player cannot act for a reason the hint line says first —
    paused, an intent on its way, time up — else (None, white)."""
    lang = m.lang
    if m.paused():
        return text.t("paused_long", lang), _ORANGE
    if m.pending is not None:
        return text.t("sent", lang), _WHITE
    if mine and m.my_clock() and m.clock_left(now) == 0:
        return text.t("time_up", lang), _ORANGE
    return None, _WHITE


def cell(by_seat, seat):
    """A table cell: ``by_seat[seat]`` as UTF-8 bytes, ``-`` when there is none."""
    value = (by_seat or {}).get(seat)
    return b"-" if value is None else str(value).encode()


def panel(ui, ws, v, slot, y, w, h, seats=SEATS):
    """Append one other seat's panel — slot 0 上家 (left), 1 对家 (middle), 2 下家 (right) —
    its box, framed yellow while the seat acts, labelled 上家/对家/下家, and its player's name
    and seat; return (seat, x).  ``seats``: the game's seats in play order (four, ``ENWS``,
    or three, ``ENW``: no 对家, and the 下家's panel at the right edge)."""
    m = ui.m
    f = ui.f16
    n = len(seats)
    me = seats.find(m.seat) if isinstance(m.seat, str) and len(m.seat) == 1 else -1
    if me < 0:
        me = 0
    seat = seats[(me + n + (2 if slot == 1 else slot - 1)) % n]  # 上家 the one before, 下家 the next
    if n == 3 and slot:
        x = _W - 4 - w
    else:
        x = 4 + slot * (w + 4 if w < 152 else 160)  # narrow panels stay clear of 叫裁判 (x 412-478)
    who = text.seat_name(seat, m.lang)
    p = m.players.get(seat)
    if p:
        who = p + " " + who
    # 上家 / 对家 / 下家 first (issue #12): where a seat plays from you, then who
    # (one widget with the box: each is heap on the busiest screen), cut to the panel's measured width
    ws.append((BOX, x, y, w, h, _PANEL, _YELLOW if seat in v.get("to_act", ()) else -1,
               screens.fit(f, text.t("seat_" + str(slot), m.lang) + " " + who, w - 8), _WHITE))
    return seat, x


def next_seat(ui, ws, y):
    """Append the line under a deal's result: where this seat's player goes next, or stay."""
    m = ui.m
    f = ui.f16
    nxt = (m.seatmap or {}).get("next")
    if nxt:
        line = text.t("next_seat", m.lang) % (nxt.get("table"), text.seat_name(nxt.get("seat"), m.lang))
    else:
        line = text.t("stay", m.lang)
    ws.append(label(f, 0, y, screens.fit(f, line, 470), _YELLOW if nxt else _WHITE, _W))
