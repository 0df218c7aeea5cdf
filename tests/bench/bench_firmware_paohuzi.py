"""Benchmark: the seat firmware's Paohuzi screens under the MicroPython unix port (issue #14):
per screen the heap's low-water mark, the time from a hub message to the screen built, the
draw time of its full-screen refresh, what the draw loop allocated, and a touch's time to
the redrawn frame.  Picked up by tests/bench/run.py; run alone with
``python tests/bench/bench_firmware_paohuzi.py [--quick]``.

Two workloads, each on the real firmware process on a pty link to the test hub:

- the fixed scenes of ``tests/firmware/pzscenes.py`` (the discard, a claim with 胡 碰 吃, the
  吃 chooser with 比牌, a claim the seat is not asked in, the result, the deal's 21 cards
  rearranged by touch), each on a fresh seat so its low-water mark is its own, reached the
  usual way (the session opens on a discard); and a claim and the result as the session's
  first message, as a seat that rejoins meets them (the game's module not loaded yet);
- whole deals played by the engine (``paizhuo.rules.paohuzi``) and three bots, every message
  fed to seat E as hub/table/runtime.py sends it (a ``state`` at the start, an ``event`` for
  every action with a public event or by E, the result screen last; the ``turn`` is the
  number of actions, the clock the view's seats with the whole time limit).

The seat's ``error`` lines (an out-of-memory frame, recovered by a resync) are counted per
screen and listed, not fatal; a firmware that dies or writes to stderr stops the run.

Times are host-side (``time.perf_counter``) from writing the message (or the ``tap`` line) to
reading the seat's control line: ``ui …`` (the screen built, the link and parsing included)
and ``frame … ms=T`` (the refresh finished).  The draw time is the firmware's own ``ms=T``
(first band to last, in whole ms).
"""

import os
import random
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "firmware"))

import pzscenes  # noqa: E402
from rig import Rig  # noqa: E402

sys.path.insert(0, HERE)
from timing import percentile  # noqa: E402

from paizhuo.bots.paohuzi import PaohuziBot  # noqa: E402
from paizhuo.rules.paohuzi import Deal, Paohuzi  # noqa: E402
from paizhuo.sim.firmware import DATA_HEAP, build  # noqa: E402

SEATS = ("E", "N", "W")
MARGIN = 8 * 1024  # the aims every firmware section keeps: this much heap free at the lowest,
ALLOC = 0  # nothing allocated by the draw loop,
TOUCH_MS = 50  # and a touch redrawn within 50 ms


class Screen:
    """The figures of one screen: message (or tap) → built, the refresh's draw time, the
    draw loop's allocation, touch → redrawn frame."""

    def __init__(self, label):
        self.label = label
        self.built = []  # ms, host-side
        self.draw = []  # ms, the firmware's
        self.alloc = set()
        self.touch_built = []  # ms, host-side: a tap to the screen rebuilt
        self.touch = []  # ms, host-side: a tap to the frame redrawn
        self.low = None  # the seat's low-water mark (bytes free) after this screen's workload
        self.trouble = []  # the seat's error and drop lines meanwhile (each one recovered, or the run stops)


def _frame(seat, n):
    return [f for f in seat.frames if f[0] == n][0]


def _change(seat, act, screen, fig, where=None, touch=False):
    """Do ``act()`` (send a message or tap) and wait for ``screen`` built and drawn; add the
    figures to ``fig``; return the hit map."""
    mark = seat.mark()
    t0 = time.perf_counter()
    act()
    ui = seat.wait_screen(screen, after=mark, where=where)
    t1 = time.perf_counter()
    n, _ = seat.settle()
    t2 = time.perf_counter()
    f = _frame(seat, n)
    fig.draw.append(f[3])
    fig.alloc.add(f[2])
    if touch:
        fig.touch_built.append((t1 - t0) * 1000)
        fig.touch.append((t2 - t0) * 1000)
    else:
        fig.built.append((t1 - t0) * 1000)
    return ui


def _send(rig, msg):
    return lambda: rig.hub.send(msg)


def _tap(seat, wid):
    return lambda: seat.tap_widget(wid)


def _card(ui, code=None, column=None, rng=None):
    ids = sorted(w for w in ui["widgets"] if w.startswith("card:") and not w.startswith("card:@")
                 and (code is None or w.startswith("card:%s@" % code))
                 and (column is None or w.split("@")[1].split(".")[0] == str(column)))
    return rng.choice(ids) if rng else ids[0]


def _column(wid):
    return wid.split("@")[1].split(".")[0]


def _low(seat):
    seat.wait_for(lambda s: s.mem is not None, 5, "a heap figure")
    return seat.mem[1]


def _trouble(seat, label):
    """The seat's error and drop lines: recovered (the seat resyncs) and reported; a firmware
    that died or wrote to stderr stops the run."""
    if not seat.alive() or seat.stderr:
        raise RuntimeError("%s: the firmware failed:\n%s" % (label, seat.output()))
    return [ln for ln in seat.lines if ln.startswith(("error", "drop", "link down", "link lost"))]


def _scenes(fw, tmp, rounds, taps):
    """The fixed scenes, each on a fresh seat."""
    rng = random.Random(14)
    out = []

    def seat_for(name, first):
        welcome = {"seat": pzscenes.SEAT, "table": "7", "event": "bench", "lang": "zh",
                   "player": pzscenes.PLAYERS[pzscenes.SEAT]}
        rig = Rig(fw, os.path.join(tmp, name), welcome=welcome)
        rig.hub.on_session = lambda hub: hub.send(first)
        return rig

    def run(label, name, first, screen, body):
        fig = Screen(label)
        rig = seat_for(name, first)
        try:
            rig.seat.wait_screen(screen, timeout=20)
            rig.seat.settle()
            body(rig, fig)
            rig.seat.settle()
            fig.low = _low(rig.seat)
            fig.trouble = _trouble(rig.seat, label)
        finally:
            rig.close()
        out.append(fig)

    def discard(rig, fig):
        seat = rig.seat
        for k in range(rounds):
            ui = _change(seat, _send(rig, pzscenes.state(pzscenes.discard(), turn=10 + k)), "discard", fig)
        wid = _card(ui, "x6")
        for k in range(taps):  # pick 六, put it back: the frame and 出牌 follow the finger
            _change(seat, _tap(seat, wid), "discard", fig, where=lambda u: (u["widgets"]["btn:discard"][4] == 1)
                    == (k % 2 == 0), touch=True)

    def claim(rig, fig):
        seat = rig.seat
        turned = [{"type": "turn_up", "seat": "W", "card": "x4"}]
        for k in range(rounds):
            _change(seat, _send(rig, pzscenes.event(pzscenes.claim(), turned, turn=11 + k)), "claim", fig,
                    where=lambda u: u["widgets"]["btn:claim_hu"][4] == 1)

    def chooser(rig, fig):
        seat = rig.seat
        _change(seat, _send(rig, pzscenes.state(pzscenes.chi_choice(), turn=12)), "claim", fig)
        for k in range(max(rounds, taps // 2)):  # 吃 opens the chooser (5 ways, one with 比牌), 取消 shuts it
            _change(seat, _tap(seat, "btn:claim_chi"), "chi", fig, touch=True)
            _change(seat, _tap(seat, "btn:ok"), "claim", fig, touch=True)

    def waiting(rig, fig):
        seat = rig.seat
        for k in range(rounds):
            _change(seat, _send(rig, pzscenes.event(pzscenes.waiting(), [{"type": "pass", "seat": "E"}],
                                                    turn=13 + k)), "claim", fig)

    def result(rig, fig):
        seat = rig.seat
        for k in range(rounds):
            _change(seat, _send(rig, pzscenes.state(pzscenes.over(), result=pzscenes.RESULT)), "result", fig)

    def rearrange(rig, fig):
        """Pick a card, then a card of another column (or the free place of a new one): moved."""
        seat = rig.seat
        ui = seat.ui
        for _ in range(taps):
            wid = _card(ui, rng=rng)
            ui = _change(seat, _tap(seat, wid), "discard", fig, touch=True)
            free = [w for w in ui["widgets"] if w.startswith("card:@")]
            others = [w for w in ui["widgets"] if w.startswith("card:") and not w.startswith("card:@")
                      and _column(w) != _column(wid)]
            ui = _change(seat, _tap(seat, rng.choice(free + others)), "discard", fig, touch=True)

    run("discard, 17 cards and 出牌", "discard", pzscenes.state(pzscenes.discard()), "discard", discard)
    run("claim: 胡 碰 吃 过 on a turned-up card", "claim", pzscenes.state(pzscenes.discard()), "discard", claim)
    run("claim, the session's first message (a seat rejoining)", "rejoin", pzscenes.state(pzscenes.claim()),
        "claim", claim)
    run("吃 chooser, 5 ways with 比牌", "chooser", pzscenes.state(pzscenes.discard()), "discard", chooser)
    run("waiting (a claim the seat is not asked in)", "waiting", pzscenes.state(pzscenes.waiting()), "claim", waiting)
    run("result", "result", pzscenes.state(pzscenes.discard()), "discard", result)
    run("result, the session's first message (a seat rejoining)", "rejoin_result",
        pzscenes.state(pzscenes.over(), result=pzscenes.RESULT), "result", result)
    run("the deal's 21 cards, rearranged by touch", "arranged", pzscenes.state(pzscenes.start()), "discard",
        rearrange)
    return out


def _clock(g, view):
    if g.phase == "over":
        return {"seats": [], "ms": 0, "paused": False}
    return {"seats": [s for s in g.to_act() if s in view["to_act"]], "ms": g.time_limit() * 1000, "paused": False}


def _deals(fw, tmp, n, seed=14):
    """Whole deals by the engine and three bots, fed to seat E; figures by what E sees."""
    figs = {}
    kinds = (("discard", "deal: E to discard"), ("discard_other", "deal: another seat to discard"),
             ("claim", "deal: a claim E is asked in"), ("waiting", "deal: a claim E is not asked in"),
             ("result", "deal: the result"))
    for key, label in kinds:
        figs[key] = Screen(label)
    rng = random.Random(seed)
    welcome = {"seat": "E", "table": "7", "event": "bench", "lang": "zh", "player": pzscenes.PLAYERS["E"]}
    messages = 0
    lows = []
    firsts = []  # the low-water mark once the first view is drawn (the game's module loaded)
    trouble = []
    for k in range(n):
        order = list(range(80))
        rng.shuffle(order)
        g = Paohuzi(Deal.from_permutation(order, board=k + 1))
        bots = {s: PaohuziBot(seed=3 * k + i) for i, s in enumerate(SEATS)}
        rig = Rig(fw, os.path.join(tmp, "deal%d" % k), welcome=welcome)
        try:
            seat = rig.seat

            def msg_for(view, events=None):
                if events is None:
                    return {"t": "state", "screen": "deal", "view": view, "turn": len(g.actions),
                            "clock": _clock(g, view), "players": pzscenes.PLAYERS, "result": None, "seatmap": None}
                return {"t": "event", "events": events, "view": view, "turn": len(g.actions),
                        "clock": _clock(g, view)}

            def kind(view):
                if view["phase"] == "over":
                    return "result", "result"
                if view["phase"] == "claim":
                    return ("claim", "claim") if view["to_act"] else ("waiting", "claim")
                return ("discard" if view["to_act"] == ["E"] else "discard_other"), "discard"

            first = msg_for(g.view("E"))
            rig.hub.on_session = lambda hub: hub.send(first)
            seat.wait_screen(kind(first["view"])[1], timeout=20)
            seat.settle()
            firsts.append(_low(seat))
            while g.phase != "over":
                actor = g.to_act()[0]
                a = bots[actor].choose(g.view(actor))
                events = g.apply(a)
                if not events and a.seat != "E":
                    continue  # another seat's answer to a claim: told to that seat only
                view = g.view("E")
                key, screen = kind(view)
                _change(seat, _send(rig, msg_for(view, events)), screen, figs[key])
                messages += 1
            v = g.view("E")
            _change(seat, _send(rig, {"t": "state", "screen": "result", "view": v, "turn": len(g.actions),
                                      "clock": None, "players": pzscenes.PLAYERS, "result": v["result"],
                                      "seatmap": None}), "result", figs["result"])
            messages += 1
            lows.append(_low(seat))
            trouble += _trouble(seat, "deal %d" % k)
        finally:
            rig.close()
    for f in figs.values():
        f.low = min(lows)
    figs["discard"].trouble = trouble  # (the deals' troubles, all counted on one row)
    return [f for f in figs.values() if f.draw], messages, (firsts, lows)


def _ms(values):
    if not values:
        return "—"
    return "%.1f / %.1f / %.1f" % (statistics.median(values), percentile(values, 0.99), max(values))


def _row(f):
    return "| %s | %.1f | %s | %s | %s | %s | %s | %d | %d |" % (
        f.label, f.low / 1024, _ms(f.built), _ms(f.draw), ", ".join(str(a) for a in sorted(f.alloc)),
        _ms(f.touch_built), _ms(f.touch), len(f.draw), len(f.trouble))


def section(quick):
    rounds, taps, deals = (3, 6, 1) if quick else (20, 40, 4)
    with tempfile.TemporaryDirectory() as tmp:
        fw = build(os.path.join(tmp, "fw"), common_hanzi=False, extra_text="王明")
        scenes = _scenes(fw, tmp, rounds, taps)
        played, messages, lows = _deals(fw, tmp, deals)
    figs = scenes + played
    low = min(f.low for f in figs)
    allocs = set().union(*(f.alloc for f in figs))
    touches = [t for f in figs for t in f.touch]
    rebuilt = [t for f in figs for t in f.touch_built]
    lines = [
        "## Seat firmware: Paohuzi screens (MicroPython unix port)", "",
        "The firmware process with a %d KB data heap on a pty link to the test hub, as above.  The fixed" % (
            DATA_HEAP // 1024),
        "scenes (`tests/firmware/pzscenes.py`) each on a fresh seat, %d messages or %d taps each; then %d" % (
            rounds, taps, deals),
        "whole deals by the engine and three bots, %d messages fed to seat E as the table's hub sends them." % (
            messages),
        "Times in ms as median / p99 / worst: *message → built* is the hub's message to the seat's `ui`",
        "line (the link, parsing and the screen's build), *draw* the firmware's own time for the full-screen",
        "refresh in 8-row bands (whole ms), *touch → built* a `tap` to the `ui` line, *touch → redrawn*",
        "a `tap` to the refresh's `frame` line (build and draw).  *low* is the seat's",
        "heap low-water mark (free at the busiest moment: a message, the mirror and the screen alive)",
        "after that screen's workload; for the deals, the lowest of the %d deals." % deals, "",
        "| screen | low (KB free) | message → built | draw | draw loop allocation (bytes) | touch → built "
        "| touch → redrawn | frames | errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(f) for f in figs]
    lines += [
        "",
        "| aim (as for every game's screens) | measured | |", "|---|---|---|",
        "| at least %d KB free at the lowest | %.1f KB (%d bytes) | %s |" % (
            MARGIN // 1024, low / 1024, low, "met" if low >= MARGIN else "NOT met"),
        "| %d bytes allocated by the draw loop | %s | %s |" % (
            ALLOC, ", ".join(str(a) for a in sorted(allocs)), "met" if allocs == {ALLOC} else "NOT met"),
        "| touch → redrawn within %d ms (p99 of %d) | %.1f ms | %s |" % (
            TOUCH_MS, len(touches), percentile(touches, 0.99),
            "met" if percentile(touches, 0.99) <= TOUCH_MS else "NOT met"),
        "| touch → screen rebuilt within %d ms (p99 of %d; the figure the other sections give) | %.1f ms | %s |" % (
            TOUCH_MS, len(rebuilt), percentile(rebuilt, 0.99),
            "met" if percentile(rebuilt, 0.99) <= TOUCH_MS else "NOT met"),
        "| the deals' low-water marks, once the first view is drawn → after the whole deal | %s bytes | |" % (
            ", ".join("%d → %d" % fl for fl in zip(*lows))),
        "| the seat's error lines (each recovered by a resync) | %s | %s |" % (
            "; ".join(sorted(set("%s: %s" % (f.label, t) for f in figs for t in f.trouble))) or "none",
            "met" if not any(f.trouble for f in figs) else "NOT met"),
        "",
        "Unix-port figures on this x86-64 machine: the board's 32-bit objects are about half the size",
        "(device/README.md, 'Heap'), and its CPU is slower; board figures come at bring-up.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
