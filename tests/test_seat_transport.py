"""The seat link's transport: a seat that stops reading, a junk flood, a hang-up.

The end-to-end tests run the real ``paizhuo hub`` process over socat pty links (the rig of
``table_seat.py``).  What a player would notice: after a seat's output backed up, or after
someone flooded a port, the hub is idle again (it once spun at 100 % CPU printing an
AssertionError per loop turn, for ever), says nothing alarming, and every seat still plays.
The unit tests drive :class:`SerialTransport` over a pty pair of its own.
"""

import asyncio
import os
import pty
import time
import tty

import pytest

from paizhuo.table import transport as transport_
from paizhuo.table.transport import SerialTransport, TransportError
from paizhuo_shared import link

from table_seat import Rig, TestSeat, DEVICES, KEYS, log_entries, play_deal

IDLE_SECONDS = 3.0
MAX_IDLE_CPU = 0.10  # share of one core the hub may use while the table waits


def cpu_seconds(pid):
    """User + system CPU time of process ``pid`` so far, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def idle_cpu(pid, seconds=IDLE_SECONDS):
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def write_all(fd, data):
    """Write all of ``data`` before anything else gets to the port (no junk line cut in two:
    half a junk line would swallow the seat's next real frame)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            time.sleep(0.001)


def rig_log(folder):
    return os.path.join(str(folder), "table.sqlite")


def hub_said(rig):
    with open(rig.hub_output, encoding="utf-8", errors="replace") as f:
        return f.read()


async def check_hub_is_well(rig):
    """Idle CPU, no traceback, and a deal the four seats can finish."""
    await rig.all_online(timeout=20, screen=None)
    share = await idle_cpu(rig.proc.pid)
    out = hub_said(rig)
    assert "Traceback" not in out and "AssertionError" not in out, out[-3000:]
    assert share < MAX_IDLE_CPU, "the idle hub used %.0f %% of a core" % (share * 100)
    await play_deal(rig, timeout=90)
    assert all(s.result is not None for s in rig.seats.values())
    assert "Traceback" not in hub_said(rig)
    assert rig.proc.poll() is None
    return share


def test_a_seat_that_stops_reading_comes_back_and_the_hub_stays_idle(tmp_path):
    async def main():
        rig = Rig(str(tmp_path))
        loop = asyncio.get_running_loop()
        try:
            await rig.start_seats()
            rig.spawn_hub()
            await rig.all_online(timeout=20)
            E = rig.seats["E"]
            welcomes = E.welcomes
            # E stops reading for 2 s and asks for its state 400 times meanwhile: the hub
            # writes 400 full states (far more than a pty holds) to a seat that does not read.
            loop.remove_reader(E.fd)
            for _ in range(400):
                E.send({"t": "resync"})
                await asyncio.sleep(0.005)
            await asyncio.sleep(2.0)
            loop.add_reader(E.fd, E._readable)
            # E reads the backlog, then finds its session gone (no_session) and handshakes
            # again: a full state, the same deal.
            await E.wait_for(lambda: E.welcomes > welcomes and E.online and E.state is not None, 20,
                             "E back in a new session")
            return await check_hub_is_well(rig), E
        finally:
            await rig.close()

    share, E = asyncio.run(asyncio.wait_for(main(), 180))
    # The hub gave up on the session when E's queue was full (it queues no more than
    # MAX_QUEUED for a seat), said why, and E came back online.
    seat_log = [e.body for e in log_entries(rig_log(tmp_path)) if e.kind == "seat" and e.body["seat"] == "E"]
    assert {"online": False, "reason": "not reading (output backed up)"}.items() <= seat_log[-2].items(), seat_log
    assert seat_log[-1]["online"] is True
    print("idle hub after a stalled seat: %.1f %% CPU" % (share * 100))


def test_a_junk_flood_on_a_seat_port_leaves_the_hub_idle(tmp_path):
    async def main():
        rig = Rig(str(tmp_path), seats=("E", "N", "W"))  # S's port: a stranger first
        junk = b"".join(b"junk %05d\t%s\n" % (i, b"0" * 64) for i in range(100))

        async def flood(fd):
            # 10 000 junk lines in a second on S's port, whose writer never reads (the hub answers
            # a few, outside a session), and junk on E's live session: dropped, E keeps its session.
            E = rig.seats["E"]
            started, welcomes = time.monotonic(), E.welcomes
            for _ in range(100):
                write_all(fd, junk)
                write_all(E.fd, junk)
                await asyncio.sleep(0.01)
            flood_s = time.monotonic() - started
            await asyncio.sleep(1.0)
            return flood_s, welcomes
        try:
            await rig.start_seats()
            flood_s, welcomes = await stranger_then_board(rig, flood)
            share = await check_hub_is_well(rig)
            E = rig.seats["E"]
            assert E.welcomes == welcomes  # junk on the wire did not cost E its session
            return share, flood_s
        finally:
            await rig.close()

    share, flood_s = asyncio.run(asyncio.wait_for(main(), 180))
    print("idle hub after 10 000 junk lines on each of two ports in %.1f s: %.1f %% CPU" % (flood_s, share * 100))


async def stranger_then_board(rig, flood):
    """Start the hub with E, N, W online and S's port held by a stranger: ``await flood(fd)``
    (its port opened non-blocking), then the real S board on that port must get its session."""
    rig.spawn_hub()
    await rig.all_online(timeout=20, screen=None)
    fd = os.open(rig.links["S"].seat_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        got = await flood(fd)
    finally:
        os.close(fd)
    S = TestSeat(rig.links["S"].seat_path, DEVICES["S"], KEYS["S"])
    rig.seats["S"] = S
    await S.start()
    await S.wait_for(lambda: S.online, 20, "S welcomed after the flood")
    return got


def test_a_flood_outside_a_session_gets_few_answers_and_the_board_still_gets_in(tmp_path):
    """Junk on a port without a session: the hub answers at most a few lines a second (it once
    answered every line, reject and challenge: writes and CPU at a stranger's say), and the real
    board on that port still gets its session straight after."""
    from paizhuo.table.runtime import PLAIN_REPLY_BURST, PLAIN_REPLY_RATE
    # Junk lines and well-formed frames of no session (once answered with a reject and a challenge).
    junk = b"".join(b"junk %05d\t%s\n" % (i, b"0" * 64) for i in range(50))
    frames = b"".join(link.encode({"t": "ack", "s": i + 1}, b"\0" * 32) for i in range(50))

    async def flood(fd):
        answers = bytearray()
        cpu0, started = cpu_seconds(rig.proc.pid), time.monotonic()
        for _ in range(100):
            view = memoryview(junk + frames)
            while view:     # write it all, reading the answers meanwhile (they would block the hub)
                assert time.monotonic() - started < 60, "the hub stopped reading the flood"
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    await asyncio.sleep(0.001)
                try:
                    answers += os.read(fd, 1 << 20)
                except BlockingIOError:
                    pass
            await asyncio.sleep(0.01)
        await asyncio.sleep(1.0)
        try:
            answers += os.read(fd, 1 << 20)
        except BlockingIOError:
            pass
        return answers.count(b"\n"), time.monotonic() - started, cpu_seconds(rig.proc.pid) - cpu0

    async def main():
        try:
            await rig.start_seats()
            got = await stranger_then_board(rig, flood)
            assert "Traceback" not in hub_said(rig)
            return got
        finally:
            await rig.close()

    rig = Rig(str(tmp_path), seats=("E", "N", "W"))
    replies, elapsed, cpu = asyncio.run(asyncio.wait_for(main(), 120))
    # A reject and a challenge per answered frame, PLAIN_REPLY_RATE answered a second after a burst.
    assert replies <= 2 * (PLAIN_REPLY_BURST + PLAIN_REPLY_RATE * elapsed) + 4, replies
    print("10 000 lines outside a session in %.1f s: %d lines answered, %.2f s of hub CPU" % (elapsed, replies, cpu))


# ---- the transport itself, over a pty pair --------------------------------------------------

class Pty:
    """A pty pair: the transport opens the slave by its path, the test plays the seat on the master."""

    def __init__(self):
        self.master, slave = pty.openpty()
        tty.setraw(self.master)
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave  # kept open so the pair survives the transport's close
        os.set_blocking(self.master, False)

    def read_all(self):
        out = bytearray()
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except (BlockingIOError, OSError):
                return bytes(out)
            if not chunk:
                return bytes(out)
            out += chunk

    def close(self):
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass


def on_pty(body, **kw):
    """Run ``await body(pty, transport, received)`` with a transport open on a fresh pty pair."""
    async def main():
        p = Pty()
        try:
            got = bytearray()
            t = SerialTransport(p.path, **kw)
            await t.open(got.extend)
            try:
                await body(p, t, got)
            finally:
                t.close()
        finally:
            p.close()

    asyncio.run(main())


def test_writes_larger_than_the_port_are_queued_in_order_and_drain():
    async def body(p, t, _):
        data = bytes(range(256)) * 200  # 51 200 bytes: several times what a pty holds
        assert t.write(data) is True
        assert 0 < t.queued < len(data)  # a partial write: the rest waits for the port
        assert t.write(b"tail\n") is True
        received = bytearray()
        deadline = time.monotonic() + 10
        while len(received) < len(data) + 5 and time.monotonic() < deadline:
            received += p.read_all()
            await asyncio.sleep(0.01)
        assert bytes(received) == data + b"tail\n"
        assert t.queued == 0
        # Drained: nothing wakes the loop now (the old library kept its writer for ever).
        before = time.process_time()
        await asyncio.sleep(1.0)
        assert time.process_time() - before < 0.2
        t.close()
        await asyncio.wait_for(t.closed(), 2)

    on_pty(body)


def test_a_seat_that_does_not_read_gets_a_bounded_queue():
    async def body(p, t, _):
        line = b"x" * 999 + b"\n"
        results = [t.write(line) for _ in range(100)]
        assert results[0] is True and results[-1] is False  # the rest was dropped
        assert t.queued <= 8192 and t.dropped > 0
        received = bytearray()
        for _ in range(50):
            received += p.read_all()
            await asyncio.sleep(0.01)
        assert t.queued == 0
        assert received == line * results.count(True)  # whole frames, in order, none cut
        assert t.write(line) is True  # it reads again: writes go through again

    on_pty(body, max_queued=8192)


def test_reads_arrive_in_order_and_close_ends_the_link():
    async def body(p, t, got):
        os.write(p.master, b"one\n")
        os.write(p.master, b"two\n")
        deadline = time.monotonic() + 5
        while bytes(got) != b"one\ntwo\n" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert bytes(got) == b"one\ntwo\n"
        assert t.write(b"x" * 60000) is True  # queued when it closes: not waited for
        t.close()
        await asyncio.wait_for(t.closed(), 2)
        assert t.write(b"late\n") is None and t.queued == 0  # closed: nothing to drop
        t.close()  # twice is fine

    on_pty(body)


def test_a_hang_up_ends_the_link_without_spinning():
    async def body(p, t, _):
        t.write(b"y" * 60000)  # a writer is waiting when the other end goes
        assert t.queued > 0
        os.close(p.master)  # the cable is pulled: the slave reads EIO
        p.master = -1
        exc = await asyncio.wait_for(t.closed(), 5)
        assert exc is None or isinstance(exc, OSError)
        assert t.write(b"z") is None
        before = time.process_time()
        await asyncio.sleep(0.5)
        assert time.process_time() - before < 0.2

    on_pty(body)


def test_a_missing_port_is_a_clear_error():
    async def main():
        t = SerialTransport("/dev/nonexistent-seat")
        with pytest.raises(TransportError, match="/dev/nonexistent-seat"):
            await t.open(lambda data: None)

    asyncio.run(main())


def test_the_bound_holds_a_burst_a_seat_needs():
    # A welcome, a full state and a burst of events must fit: about 16 frames of the largest size.
    assert transport_.MAX_QUEUED >= 16 * link.MAX_FRAME
