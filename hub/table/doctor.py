"""``paizhuo hub doctor --config table.toml``: is this hub ready for a table?  What is wrong, what to do.

Checks, in order (each one line: ``ok``, ``WARN`` or ``FAIL``, then English and Chinese, and
what to do):

- **ports**: each ``[link] ports`` path exists and is a terminal (a seat board's USB port by
  its physical position, ``/dev/paizhuo/seat-E`` from the udev rules in hub/setup/);
  a port another process holds (a running ``paizhuo hub``) is named with that process;
- **boards**: on each free port the doctor is the board's hub for a moment: it challenges, and
  the board's ``hello`` says who it is (device id, firmware, board); its tag is checked with
  table.toml's key for that device — a board not in table.toml or with another key is named;
- **broker** (venue mode): a login with the hub's own username and password file;
- **clock**: the system clock is synchronised (systemd-timesyncd / chrony via timedatectl);
- **disk**: free space where the event log lives;
- **log**: the event log (if it exists) passes SQLite's quick check and its folder is writable.

The doctor changes nothing: it opens the ports for a moment (stop the hub first to check the
boards: ``systemctl stop paizhuo-hub``).  Exit status 0 when nothing FAILs, 1 otherwise.
"""

import collections
import os
import sqlite3
import stat
import subprocess
import sys
import time

from paizhuo_shared import link

OK, WARN, FAIL = "ok", "WARN", "FAIL"
MIN_FREE = 200 * 1024 * 1024  # below this the log (WAL, synchronous) may run out of room during an event
MIN_FREE_SHARE = 0.05


# One check's verdict: ``level`` (ok / WARN / FAIL), ``what`` (the check), ``en``/``zh``.
Finding = collections.namedtuple("Finding", "level what en zh")


def _holders(path):
    """Pids of other processes that have ``path`` open (Linux /proc; empty where unreadable)."""
    try:
        real = os.path.realpath(path)
    except OSError:
        return []
    out = []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        fd_dir = "/proc/%s/fd" % pid
        try:
            for fd in os.listdir(fd_dir):
                try:
                    if os.readlink(os.path.join(fd_dir, fd)) == real:
                        out.append(int(pid))
                        break
                except OSError:
                    continue
        except OSError:
            continue
    return out


def _name(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:60]
    except OSError:
        return "?"


def users(path):
    """Pids of the other processes using a serial port (a running hub, ModemManager, a terminal)."""
    # socat holds both ends of a simulated cable (hub/sim/links.py): it is the cable, not a user.
    return [p for p in _holders(path) if not _name(p).startswith(("socat", "/usr/bin/socat"))]


def check_port(path):
    """(Finding, free): is the port there, a terminal, and free for the doctor?"""
    if not os.path.exists(path):
        return Finding(FAIL, "port", "%s is missing: the seat board on that USB position is unplugged, its cable is "
                       "charge-only, or the udev rules are not installed (hub/setup/README.md)" % path,
                       "%s 不存在：该 USB 位置的座位板未插好、数据线只能充电，或未安装 udev 规则（hub/setup/README.md）"
                       % path), False
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return Finding(FAIL, "port", "%s cannot be read (%s)" % (path, e.strerror),
                       "%s 无法读取（%s）" % (path, e.strerror)), False
    if not stat.S_ISCHR(mode):
        return Finding(FAIL, "port", "%s is not a serial port: fix [link] ports in table.toml" % path,
                       "%s 不是串口：请修改 table.toml 的 [link] ports" % path), False
    holders = users(path)
    if holders:
        who = ", ".join("%d (%s)" % (p, _name(p)) for p in holders)
        return Finding(WARN, "port", "%s is present, in use by process %s: the hub is running; stop it "
                       "(systemctl stop paizhuo-hub) to let the doctor check the board" % (path, who),
                       "%s 已连接，正被进程 %s 使用：主机正在运行；请先停止（systemctl stop paizhuo-hub）再检查座位板"
                       % (path, who)), False
    return Finding(OK, "port", "%s is present" % path, "%s 已连接" % path), True


def check_board(path, cfg, timeout=3.0):
    """The board on ``path``: challenge it as its hub would and check its hello against table.toml."""
    import serial
    try:
        port = serial.Serial(path, 115200, timeout=0.1)
    except (serial.SerialException, OSError, ValueError) as e:
        return Finding(FAIL, "board", "%s cannot be opened (%s)" % (path, e), "%s 无法打开（%s）" % (path, e))
    reader = link.LineReader()
    try:
        deadline = time.monotonic() + timeout
        next_challenge = 0
        while time.monotonic() < deadline:
            if time.monotonic() >= next_challenge:
                hn = os.urandom(16).hex()
                port.write(link.encode({"t": "challenge", "s": 0, "n": hn, "hub": cfg.hub, "v": link.VERSION}, b""))
                next_challenge = time.monotonic() + 1.0
            for line in reader.feed(port.read(4096)):
                try:
                    hello = link.peek(line)
                except link.LinkError:
                    continue
                if hello.get("t") != "hello" or not isinstance(hello.get("dev"), str):
                    continue
                return _judge(path, cfg, line, hello)
    finally:
        port.close()
    return Finding(FAIL, "board", "%s: no seat board answered within %.0f s: is a board plugged in and running the "
                   "firmware (its screen shows 正在连接…)? Power it off and on" % (path, timeout),
                   "%s：%.0f 秒内没有座位板应答：板子插好了吗？固件在运行吗（屏幕显示“正在连接…”）？请断电重启"
                   % (path, timeout))


def _judge(path, cfg, line, hello):
    dev = hello["dev"]
    d = cfg.device(dev)
    about = "%s (firmware %s, board %s)" % (dev, hello.get("fw"), hello.get("board"))
    if d is None:
        return Finding(FAIL, "board", "%s: board %s is not in this table's [devices]: the hub would refuse it "
                       "(unknown_device); wrong table, or add it (paizhuo provision)" % (path, about),
                       "%s：板 %s 不在本桌 [devices] 中：主机会拒绝（unknown_device）；放错了桌，或请登记"
                       % (path, about))
    try:
        link.decode(line, d.key)
    except link.LinkError:
        return Finding(FAIL, "board", "%s: board %s answers under another key than table.toml's for it: the hub "
                       "would refuse it (bad_tag); give it its identity again (paizhuo provision assign) or fix "
                       "table.toml" % (path, about),
                       "%s：板 %s 的密钥与 table.toml 中的不同：主机会拒绝（bad_tag）；请重新分配身份或修改 table.toml"
                       % (path, about))
    return Finding(OK, "board", "%s: %s, seat %s, key matches" % (path, about, d.seat),
                   "%s：%s，%s 座，密钥匹配" % (path, about, d.seat))


def check_broker(cfg, timeout=5.0, hub_running=False):
    """Log in to the venue's broker with the hub's own credentials (venue mode only).  Not while
    the hub runs: the brokers give each login one client id (its username), so the doctor's
    login would take the hub's connection over."""
    v = cfg.venue
    if v is None:
        return Finding(OK, "broker", "no [venue]: this table runs on its own (no broker to check)",
                       "没有 [venue]：本桌独立运行（无需检查代理）")
    if hub_running:
        return Finding(WARN, "broker", "not checked while the hub runs (the broker allows one connection per login: "
                       "the doctor's would disconnect the hub); the console shows whether the hub is online",
                       "主机运行时不检查代理（每个登录只能有一个连接，医生的登录会把主机挤下线）；主机是否在线请看裁判台")
    from ..mqtt.client import MqttError
    where = "%s:%d as %s" % (v.host, v.port, v.username)
    try:
        # The CONNACK only: a client would acknowledge (and so take from the stopped hub) what
        # the venue queued in the hub's session (Broker.check_login).
        v.check_login(timeout)
    except MqttError as e:
        if e.code == "broker_refused":
            return Finding(FAIL, "broker", "the broker at %s refuses the hub's login (%s): the password in %s is not "
                           "the broker's for this hub; copy the hub's .pass file from `paizhuo broker config` again"
                           % (where, e.en, v.password_file),
                           "代理 %s 拒绝了本主机的登录（%s）：%s 中的密码不是代理为本主机设的；请重新复制 "
                           "paizhuo broker config 生成的 .pass 文件" % (where, e.zh, v.password_file))
        return Finding(FAIL, "broker", "the broker at %s cannot be reached (%s): check the network and that the "
                       "venue's broker runs" % (where, e.en),
                       "无法连接代理 %s（%s）：请检查网络以及场地代理是否在运行" % (where, e.zh))
    except OSError as e:
        return Finding(FAIL, "broker", "the broker at %s cannot be reached (%s)" % (where, e),
                       "无法连接代理 %s（%s）" % (where, e))
    return Finding(OK, "broker", "the broker at %s accepts the hub's login" % where, "代理 %s 接受本主机的登录" % where)


def clock_synced():
    """True / False when timedatectl knows whether the clock is synchronised, None if unknown."""
    try:
        r = subprocess.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"], capture_output=True,
                           text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    value = r.stdout.strip()
    return {"yes": True, "no": False}.get(value)


def check_clock(synced=None, now=None):
    """``synced``: what :func:`clock_synced` says (given, in tests); ``now``: the time (seconds)."""
    now = time.time() if now is None else now
    if now < 1735689600:  # 2025-01-01: a Pi without its real-time clock and no network starts in the past
        return Finding(FAIL, "clock", "the clock says %s: it was never set; connect the network (time sync) or set "
                       "it, before the event (log times and clocks would be wrong)" % time.strftime("%Y-%m-%d", time.gmtime(now)),
                       "系统时间为 %s：从未设置；请连接网络（自动对时）或手动设置后再开始比赛"
                       % time.strftime("%Y-%m-%d", time.gmtime(now)))
    if synced is False:
        return Finding(WARN, "clock", "the clock is not synchronised (timedatectl: NTPSynchronized=no): check the "
                       "network and `systemctl status systemd-timesyncd`",
                       "系统时间未同步（timedatectl：NTPSynchronized=no）：请检查网络和 systemd-timesyncd")
    if synced is None:
        return Finding(WARN, "clock", "cannot tell whether the clock is synchronised (no timedatectl): check it by hand",
                       "无法判断系统时间是否同步（没有 timedatectl）：请手动检查")
    return Finding(OK, "clock", "the clock is synchronised", "系统时间已同步")


def check_disk(folder, statvfs=os.statvfs):
    """Free space in ``folder`` (where the log lives); ``statvfs`` is given in tests."""
    try:
        st = statvfs(folder)
    except OSError as e:
        return Finding(FAIL, "disk", "%s cannot be checked (%s)" % (folder, e.strerror),
                       "%s 无法检查（%s）" % (folder, e.strerror))
    free = st.f_bavail * st.f_frsize
    total = st.f_blocks * st.f_frsize
    share = free / total if total else 0
    mb = free // (1024 * 1024)
    if free < MIN_FREE or share < MIN_FREE_SHARE:
        return Finding(FAIL, "disk", "only %d MB (%.0f%%) free where the log lives (%s): the event log needs room for "
                       "the whole event; delete old logs and demo output, or use a bigger card" % (mb, 100 * share, folder),
                       "日志所在位置（%s）仅剩 %d MB（%.0f%%）：事件日志需要容纳整场比赛；请删除旧日志和演示输出，或换更大的存储卡"
                       % (folder, mb, 100 * share))
    return Finding(OK, "disk", "%d MB free where the log lives (%s)" % (mb, folder),
                   "日志所在位置（%s）剩余 %d MB" % (folder, mb))


def check_log(path):
    """The event log: SQLite's quick check if it exists; its folder writable either way."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.access(folder, os.W_OK):
        return Finding(FAIL, "log", "the log's folder %s is not writable by this user: the hub could not log" % folder,
                       "日志文件夹 %s 对当前用户不可写：主机无法记录" % folder)
    if not os.path.exists(path):
        return Finding(OK, "log", "%s does not exist yet: the hub creates it" % path, "%s 尚不存在：主机会创建" % path)
    try:
        con = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=5)
        try:
            res = con.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as e:
        res = str(e)
    if res != "ok":
        return Finding(FAIL, "log", "%s fails SQLite's check (%s): keep a copy, then `paizhuo hub verify --log %s` "
                       "and call the referee" % (path, res, path),
                       "%s 未通过 SQLite 检查（%s）：请先备份，再运行 paizhuo hub verify 并联系裁判" % (path, res))
    return Finding(OK, "log", "%s passes SQLite's quick check" % path, "%s 通过 SQLite 快速检查" % path)


def diagnose(cfg, synced=None, statvfs=os.statvfs, board_timeout=3.0):
    """Every finding for table configuration ``cfg`` (see the module doc)."""
    found = []
    running = False
    for p in cfg.ports:
        f, free = check_port(p)
        found.append(f)
        running = running or (f.level == WARN and not free)   # a process (the hub) holds the port
        if free:
            found.append(check_board(p, cfg, board_timeout))
    found.append(check_broker(cfg, hub_running=running))
    found.append(check_clock(clock_synced() if synced is None else synced))
    found.append(check_disk(os.path.dirname(os.path.abspath(cfg.log)), statvfs))
    found.append(check_log(cfg.log))
    return found


def report(found, out=None):
    """Print the findings; the exit status (0: nothing failed)."""
    out = out or sys.stdout
    for f in found:
        print("%-4s  %-6s %s" % (f.level, f.what, f.en), file=out)
        print("              %s" % f.zh, file=out)
    fails = sum(1 for f in found if f.level == FAIL)
    warns = sum(1 for f in found if f.level == WARN)
    print("%d problem(s), %d warning(s) / %d 个问题，%d 个警告" % (fails, warns, fails, warns), file=out)
    return 1 if fails else 0
