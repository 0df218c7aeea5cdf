"""`paizhuo demo` ends every process it started, whatever signal ends it (issue 12)."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest

PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")


def started_by(folder):
    """{pid: command} of every process (but this one) whose command line or working folder is in ``folder``."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink("/proc/%s/cwd" % pid)
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (str(folder) in cmd or cwd.startswith(str(folder))):
            found[int(pid)] = cmd
    return found


def kinds(procs):
    out = set()
    for cmd in procs.values():
        for kind in ("venue", "hub", "socat", "micropython", "demo"):
            if re.search(r"\b%s\b" % kind, cmd):
                out.add(kind)
    return out


def wait_for_line(path, pattern, proc, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        if re.search(pattern, text, re.M):
            return text
        assert proc.poll() is None, text[-3000:]
        time.sleep(0.1)
    raise AssertionError("no %r within %s s:\n%s" % (pattern, timeout, text[-3000:]))


@pytest.mark.parametrize("args, when, sig, code", [
    (["--stay"], r"^Staying up \(--stay\)", signal.SIGTERM, 0),      # the reported case: --stay ended by SIGTERM
])
def test_the_demo_ended_by_a_signal_leaves_no_process_behind(tmp_path, args, when, sig, code):
    run = tmp_path / "run"
    out = tmp_path / "demo.txt"
    with open(out, "wb") as f:
        demo = subprocess.Popen([PAIZHUO, "demo", "--tables", "2", "--rounds", "1", "--boards", "1", "--out", str(run)]
                                + args, stdout=f, stderr=subprocess.STDOUT)
    try:
        text = wait_for_line(out, when, demo, 300)
        time.sleep(0.5)
        before = started_by(run)
        assert {"venue", "hub", "socat", "micropython"} <= kinds(before), before
        demo.send_signal(sig)
        rc = demo.wait(60)
        deadline = time.monotonic() + 20
        while started_by(run) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert kinds(started_by(run)) == set(), "still running after the demo ended"
        assert rc == code, out.read_text()[-3000:]
    finally:
        for pid in started_by(run):   # never leave a failed run's processes on the machine
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    text = out.read_text()
    if args:   # --stay: the pages were up, so their addresses are given, with tie-breaks beside equal R
        assert re.search(r"^Hand records of round 1: http://127\.0\.0\.1:\d+/records/1 ", text, re.M)
        rows = re.findall(r"^\s+\d+  P\d{3}\s.*?R ([\d.]+)  MP \S+(.*)$", text, re.M)
        assert len(rows) == 8
        for r, rest in rows:
            if [x for x, _ in rows].count(r) > 1:
                assert "tie-break 同分决胜:" in rest
    assert re.search(r"(?im)^\s*run folder 运行文件夹: %s$" % re.escape(str(run)), text)


# What the demo does for every end signal, on one real link (socat, the process that survived):
# the signal unwinds the `with` that stops it.
LINK_UNDER_A_DEMO = """
import sys, time
from paizhuo import demo
from paizhuo.sim.links import PtyLink
demo._end_on_signals()
try:
    with PtyLink(sys.argv[1], "E"):
        print("ready", flush=True)
        time.sleep(60)
except demo.Ended as e:
    sys.exit(128 + e.signum)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_every_end_signal_stops_what_the_demo_started(tmp_path, sig):
    proc = subprocess.Popen([sys.executable, "-c", LINK_UNDER_A_DEMO, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "ready\n"
        assert any(cmd.startswith("/usr/bin/socat") or " pty," in cmd for cmd in started_by(tmp_path).values())
        proc.send_signal(sig)
        assert proc.wait(20) == 128 + sig
        deadline = time.monotonic() + 10
        while started_by(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started_by(tmp_path) == {}
    finally:
        for pid in started_by(tmp_path):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
