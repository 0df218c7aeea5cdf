"""A demo killed outright (SIGKILL: no handler runs) leaves no process behind: every process the
simulations start gets SIGTERM from the kernel when the starter dies (hub/sim/lifeline.py)."""

import os
import signal
import subprocess
import sys
import time

from test_staff_demo import PAIZHUO, kinds, started_by, wait_for_line

CHILD_OF_A_SHORT_THREAD = """
import sys, threading, time
from paizhuo.sim.links import PtyLink
links = []
t = threading.Thread(target=lambda: links.append(PtyLink(sys.argv[1], "E")))
t.start(); t.join()
time.sleep(0.5)     # the thread that asked for it has ended; the link must not have
print("alive" if links[0].alive else "dead", flush=True)
time.sleep(60)
"""


def left_behind(folder, seconds):
    """What still runs of ``folder``'s processes after waiting up to ``seconds`` for them to end."""
    deadline = time.monotonic() + seconds
    while started_by(folder) and time.monotonic() < deadline:
        time.sleep(0.1)
    return started_by(folder)


def clean_up(folder, proc):
    """Never leave a failed run's processes on the machine."""
    for pid in started_by(folder):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_a_sigkilled_demo_leaves_no_seat_socat_hub_or_venue(tmp_path):
    run = tmp_path / "run"
    out = tmp_path / "demo.txt"
    with open(out, "wb") as f:
        demo = subprocess.Popen([PAIZHUO, "demo", "--tables", "2", "--rounds", "1", "--boards", "1", "--pace", "1",
                                 "--out", str(run)], stdout=f, stderr=subprocess.STDOUT)
    try:
        wait_for_line(out, r"tables \d+-\d+: hubs", demo, 120)
        deadline = time.monotonic() + 30
        while not {"venue", "hub", "socat", "micropython"} <= kinds(started_by(run)):
            assert time.monotonic() < deadline and demo.poll() is None, started_by(run)
            time.sleep(0.1)
        demo.kill()
        demo.wait(10)
        assert left_behind(run, 20) == {}, "still running after the demo was SIGKILLed"
    finally:
        clean_up(run, demo)


def test_a_child_started_from_a_thread_that_ends_lives_on_and_dies_with_its_process(tmp_path):
    """Linux's parent-death signal follows the forking *thread*: a link asked for by a worker
    thread must outlive that thread, and still end when its process is killed."""
    starter = subprocess.Popen([sys.executable, "-c", CHILD_OF_A_SHORT_THREAD, str(tmp_path)], stdout=subprocess.PIPE,
                               text=True)
    try:
        assert starter.stdout.readline().strip() == "alive"
        procs = {pid: cmd for pid, cmd in started_by(tmp_path).items() if pid != starter.pid}
        assert procs and all("socat" in cmd for cmd in procs.values()), procs
        starter.kill()
        starter.wait(10)
        assert left_behind(tmp_path, 10) == {}
    finally:
        clean_up(tmp_path, starter)
