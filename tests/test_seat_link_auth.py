"""A stranger's bytes on a live seat link cost the session nothing.

Anyone with a wire on the seat's USB link can add lines.  A line that fails its tag (either
direction) is dropped and counted; the hub does not answer it, so the seat never takes a
sealed ``reject bad_tag`` for its own; and the frames outside the session's key (a
``challenge``, a pre-session ``reject``) only make the seat ask the hub in the session
(``resync``): a hub that still knows the session answers and nothing else happens.

The real seat firmware runs under the MicroPython unix port, on a pty link to the test hub
(``tests/firmware``) and, at the end, in a whole table with the real ``paizhuo hub``.
"""

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware"))

import scenes  # noqa: E402
from rig import Rig  # noqa: E402

from paizhuo.sim import firmware as firmware_  # noqa: E402
from paizhuo.sim.table import SimTable  # noqa: E402
from paizhuo_shared import link  # noqa: E402

pytestmark = pytest.mark.micropython

WELCOME = {"seat": scenes.SEAT, "table": "7", "event": "demo", "lang": "zh", "player": scenes.PLAYERS[scenes.SEAT]}
SEATMAP = {"t": "seatmap", "seatmap": {"table": "7", "seat": scenes.SEAT, "player": None, "next": None}}
QUIET = 3.0  # seconds to see that nothing happens (more than the seat's 1 s hello and 2 s probe times)


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return firmware_.build(tmp_path_factory.mktemp("firmware"))


@pytest.fixture
def bench(fw, tmp_path):
    r = Rig(fw, tmp_path / "seat", welcome=WELCOME)
    r.hub.on_session = lambda hub: hub.send(scenes.state(scenes.play_phase()))
    try:
        r.seat.wait_screen("play")
        r.hub.wait_session(1)
        yield r
    finally:
        r.close()


def still_in_session(r, mark, hellos):
    """No new handshake, and the session still carries frames both ways."""
    time.sleep(QUIET)
    assert r.hub.sessions == 1 and len(r.hub.hellos) == hellos, r.seat.output()
    assert not [line for line in r.seat.lines[mark:] if line.startswith("link ")], r.seat.output()
    before = r.hub.mark()
    last = r.hub.send(SEATMAP)
    r.hub.wait(lambda h: [m for m in h.received[before:] if m["t"] == "ack" and m["upto"] >= last], 5, "an ack")


def test_a_sealed_bad_tag_reject_does_not_restart_the_session(bench):
    # The hub says a frame "from this seat" failed its tag: someone else sent it.  The seat
    # shows nothing and keeps its session (it used to start a new handshake).
    mark, hellos = bench.seat.mark(), len(bench.hub.hellos)
    bench.hub.send(link.reject_message(link.LinkError("bad_tag"), 3))
    still_in_session(bench, mark, hellos)
    assert bench.seat.wait_screen("play").get("screen") == "play"  # no refusal shown for it


@pytest.mark.parametrize("forged", ["challenge", "no_session", "bad_tag", "seq_gap"])
def test_a_forged_plain_frame_is_checked_in_the_session_not_obeyed(bench, forged):
    mark, before, hellos = bench.seat.mark(), bench.hub.mark(), len(bench.hub.hellos)
    if forged == "challenge":
        bench.hub.send_plain({"t": "challenge", "n": os.urandom(16).hex(), "hub": "T-evil", "v": link.VERSION})
    else:
        bench.hub.send_plain(link.reject_message(link.LinkError(forged), 1))
    # The seat asks in the session; the hub, which knows the session, answers with the state.
    bench.hub.wait_msg("resync", after=before, timeout=5)
    bench.seat.wait_screen("play", after=mark)
    still_in_session(bench, mark, hellos)


def test_a_hub_that_really_lost_the_session_gets_a_new_handshake(bench):
    mark = bench.seat.mark()
    bench.hub.session = None  # the hub restarted: the seat's resync gets no answer in the session
    started = time.monotonic()
    bench.hub.challenge()
    bench.hub.wait_session(2, timeout=10)
    bench.seat.wait_line("link up", after=mark)
    assert time.monotonic() - started < 5
    bench.seat.wait_screen("play", after=mark)


def test_bad_tag_lines_on_a_real_tables_wire_cost_no_session(fw, tmp_path):
    """The real hub and four firmware seats: lines with bad tags injected into seat E's link in
    both directions (and a forged challenge towards the seat) mid-deal; no seat re-handshakes
    and the deal is played to its end."""
    with SimTable(tmp_path / "t", boards="1", secret="paizhuo link auth test", firmware=fw) as table:
        table.start()
        table.play(seed=3, until_actions=3)
        marks = {s: sp.mark() for s, sp in table.seats.items()}
        seat_entries = len([e for e in table.entries() if e.kind == "seat"])
        to_hub = os.open(table.links["E"].seat_path, os.O_WRONLY | os.O_NOCTTY)
        to_seat = os.open(table.links["E"].hub_path, os.O_WRONLY | os.O_NOCTTY)
        try:
            for s in (1, 5, 50):
                os.write(to_hub, link.encode({"t": "resync", "s": s}, b"a stranger"))
                os.write(to_seat, link.encode({"t": "clock", "s": s, "clock": None}, b"a stranger"))
            os.write(to_seat, link.encode({"t": "challenge", "s": 0, "n": os.urandom(16).hex(), "hub": "T-evil",
                                           "v": link.VERSION}, b""))
        finally:
            os.close(to_hub)
            os.close(to_seat)
        E = table.seats["E"]
        E.wait_line("drop bad_tag", after=marks["E"], timeout=10)
        time.sleep(QUIET)
        for s, sp in table.seats.items():
            assert not [line for line in sp.lines[marks[s]:] if line.startswith("link ")], (s, sp.output())
        assert len([e for e in table.entries() if e.kind == "seat"]) == seat_entries, table.hub_text()
        history = table.play(seed=3)
        assert len(history.played) == 1
        assert "Traceback" not in table.hub_text()
        # The hub logs the deal's refusal counts right after its result, and play() returns
        # at the result: give it a moment.
        deadline = time.monotonic() + 10
        while True:
            counted = [e.body["counts"] for e in table.entries() if e.kind == "rejects"]
            if counted or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    assert counted and counted[-1].get("E", {}).get("bad_tag", 0) >= 3
