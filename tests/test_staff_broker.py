"""The production broker's files work with the real mosquitto as it is started (issue 12): the
printed start line runs as root, and `paizhuo broker check` refuses what mosquitto would."""

import os
import re
import shlex
import signal
import socket
import struct
import subprocess
import time

import pytest

from brokers import free_port
from staff_cli_run import paizhuo  # noqa: F401 (a fixture)

AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="mosquitto drops to its own user only when started as root")


def connack(port, user, password):
    """The return code of mosquitto's CONNACK to an MQTT 3.1.1 CONNECT with this login (0: accepted)."""
    def s(text):
        b = text.encode()
        return struct.pack("!H", len(b)) + b
    body = s("MQTT") + bytes([4, 0xC2]) + struct.pack("!H", 30) + s("staff-test") + s(user) + s(password)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
        c.sendall(bytes([0x10, len(body)]) + body)
        reply = c.recv(4)
    return reply[3]


def configure(paizhuo, folder, port):
    out = paizhuo("broker", "config", "--event", "demo", "--hubs", "T01,T02", "--out", str(folder), "--port", str(port),
                  "--bind", "127.0.0.1")
    assert out.returncode == 0, out.stderr
    return out.stdout


def start_line(text):
    return shlex.split(re.search(r"^run the broker / 启动代理:\s+(.*)$", text, re.M).group(1))


def printed_fixes(text):
    """The commands `broker config` says to run before mosquitto starts."""
    if "执行:\n" not in text:
        return []
    return [line.strip() for line in text.split("执行:\n")[1].split("\n    #")[0].splitlines()]


def run_broker(argv, port, folder):
    """Start mosquitto exactly as printed; (process, None) once it listens, or (None, its log) when it exits."""
    log = open(os.path.join(str(folder), "..", "mosquitto-%d.log" % port), "w+b")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            return None, log.read().decode(errors="replace")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, None
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("mosquitto neither listened nor exited")


def test_the_printed_start_line_runs_mosquitto_with_the_printed_commands_done_first(tmp_path, paizhuo):
    port = free_port()
    folder = tmp_path / "broker"
    text = configure(paizhuo, folder, port)
    # pytest's folders are closed to other users: the output says so, with the exact commands
    fixes = printed_fixes(text)
    if os.geteuid() == 0:
        assert any(re.fullmatch(r"chmod o\+x .+", f) for f in fixes), text
        assert paizhuo("broker", "check", "--dir", str(folder)).returncode == 2
    for fix in fixes:
        subprocess.run(fix, shell=True, check=True)
    ok = paizhuo("broker", "check", "--dir", str(folder))
    assert ok.returncode == 0 and "ok: event demo" in ok.stdout and "正常" in ok.stdout, ok.stderr
    proc, log = run_broker(start_line(text), port, folder)
    assert proc is not None, log
    try:
        password = (folder / "T01.pass").read_text()
        assert connack(port, "T01", password) == 0
        assert connack(port, "T01", "wrong" + password) == 5
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    assert (folder / "data" / "mosquitto.db").exists(), "mosquitto saved its sessions as its own user"


def _passwd_root_only(folder):
    os.chown(folder / "passwd", 0, 0)
    os.chmod(folder / "passwd", 0o600)


def _closed_folder(folder):
    os.chmod(folder, 0o700)


@AS_ROOT
@pytest.mark.parametrize("tamper, needle", [
    (None, None),
    (_passwd_root_only, "cannot read %s/passwd"),
    (_closed_folder, "cannot reach %s/passwd"),
])
def test_broker_check_refuses_exactly_what_mosquitto_refuses(tmp_path, paizhuo, tamper, needle):
    port = free_port()
    folder = tmp_path / "broker"
    text = configure(paizhuo, folder, port)
    for fix in printed_fixes(text):
        subprocess.run(fix, shell=True, check=True)
    if tamper is not None:
        tamper(folder)
    verdict = paizhuo("broker", "check", "--dir", str(folder))
    proc, log = run_broker(start_line(text), port, folder)
    if proc is not None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    if tamper is None:
        assert verdict.returncode == 0 and proc is not None, verdict.stderr + (log or "")
    else:
        assert verdict.returncode == 2 and needle % folder in verdict.stderr and "解决：" in verdict.stderr
        assert proc is None and "Error" in log, "mosquitto refuses it too"


def test_every_problem_broker_check_finds_is_told_in_chinese_too(tmp_path, paizhuo):
    folder = tmp_path / "broker"
    configure(paizhuo, folder, free_port())
    (folder / "acl").write_text((folder / "acl").read_text().replace("user T02", "user T03"))
    (folder / "T01.pass").write_text("another password of enough length")
    out = paizhuo("broker", "check", "--dir", str(folder))
    assert out.returncode == 2
    zh = out.stderr[out.stderr.index("发现"):]
    for text in ("acl 中有用户没有密码（无法登录）：T03", "passwd 中有用户没有 ACL", "T01.pass 与 passwd 中 T01 的条目不符"):
        assert text in zh
    assert "does not match" not in zh and "has users with no ACL" not in zh
