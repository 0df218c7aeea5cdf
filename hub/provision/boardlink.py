"""The staff tool's end of a seat board's service mode, over the board's own serial link.

The board's side is ``device/seat/service.py`` (its module doc is the contract); the frames are
the seat link's (:mod:`paizhuo_shared.link`: JSON, a tab, an HMAC-SHA256 tag).  One
:class:`BoardLink` drives one port:

    b = BoardLink("/dev/paizhuo/seat-E")
    hi = b.probe()                       # what the board says about itself (no key needed)
    b.open_service(key, pin=None)        # a session under its device key (restarts a game board)
    b.push(image, manifest, progress)    # begin, checksummed chunks, commit (then reboot)
    b.confirm_as_hub(...)                # the trial boot's welcome, as the table hub gives it

Refusals are :class:`BoardError` (a :class:`~paizhuo.errors.CodedError`: code, en, zh).
``pace`` (bytes per second) spaces what the tool writes as a serial line of that speed would
(115200 baud ≈ 11520 bytes/s); a pty or USB CDC link is otherwise as fast as the machine.
"""

import base64
import hashlib
import os
import time

from paizhuo_shared import link

from ..errors import CodedError

ZERO = bytes(32)
CHUNK = 1024  # image bytes per chunk frame: about 1.5 KB of base64 and JSON (the board's service buffer is 2 KB)
RETRIES = 3  # a refused (corrupted) chunk is sent again this many times
BAUD_115200 = 11520  # bytes per second of a 115200 baud 8N1 line


class BoardError(CodedError):
    """A board refused, went away, or answered what the tool cannot accept."""

    def __init__(self, code, en, zh, dev=None):
        super().__init__(code, en, zh)
        self.dev = dev


def nonce():
    return os.urandom(16).hex()


def chunk_hash(data):
    """What a chunk frame's ``h`` holds: the first 8 bytes of sha256(data), hex."""
    return hashlib.sha256(data).digest()[:8].hex()


def pin_verifier(key, pin):
    """What the board keeps of the referee PIN: HMAC-SHA256(device key, b"paizhuo-pin|" + PIN), hex."""
    return link.hmac_sha256(key, b"paizhuo-pin|" + pin.encode("utf-8")).hex()


# What the board's refusal codes mean for staff (en, zh); ``%(dev)s`` is the board.
REFUSALS = {
    "in_deal": ("%(dev)s is playing a running deal: pause the table at the referee console first, or give "
                "the referee PIN (--pin-stdin)",
                "%(dev)s 正在进行牌局：请先在裁判控制台暂停本桌，或提供裁判 PIN（--pin-stdin）"),
    "bad_pin": ("%(dev)s is playing a running deal and the referee PIN given is not its PIN",
                "%(dev)s 正在进行牌局，所给裁判 PIN 不正确"),
    "needs_key": ("%(dev)s has an identity already and takes this only under its device key: give the "
                  "table.toml that holds its key (--config), or hold its BOOT button through a reset to give it "
                  "a new identity",
                  "%(dev)s 已有身份，只接受其设备密钥下的操作：请提供含其密钥的 table.toml（--config），"
                  "或按住 BOOT 键复位后重新分配身份"),
    "wrong_board": ("this release is not for %(dev)s's board model: use a release built for it",
                    "此固件版本不适用于 %(dev)s 的板型：请使用为该板构建的版本"),
    "wrong_mpy": ("%(dev)s runs a MicroPython whose bytecode version differs from this release's: flash the "
                  "MicroPython the release names first (hardware/README.md)",
                  "%(dev)s 的 MicroPython 字节码版本与此固件不符：请先刷入固件清单要求的 MicroPython"),
    "too_big": ("the image does not fit %(dev)s's image slot", "固件映像放不下 %(dev)s 的映像分区"),
    "bad_sha": ("%(dev)s received an image whose sha256 is not the release's: nothing was changed, its "
                "firmware stays; push again",
                "%(dev)s 收到的映像 sha256 与版本不符：未做任何更改，原固件保留；请重新推送"),
    "bad_chunk": ("%(dev)s refused a chunk %(n)d times (checksum mismatch): check the cable",
                  "%(dev)s 连续 %(n)d 次拒收数据块（校验不符）：请检查数据线"),
    "no_previous": ("%(dev)s has no earlier firmware to go back to", "%(dev)s 没有可回退的旧固件"),
    "bad_tag": ("%(dev)s refused the frames' tag: the key given is not this board's (wrong table.toml?)",
                "%(dev)s 拒绝了数据帧校验码：所给密钥不是此板的（table.toml 用错了？）"),
    "bad_ident": ("%(dev)s refused the identity: %(detail)s", "%(dev)s 拒绝了身份信息：%(detail)s"),
}


def refusal(code, dev, **more):
    """The :class:`BoardError` for a board's refusal ``code``."""
    en, zh = REFUSALS.get(code, ("%(dev)s refused: " + code, "%(dev)s 拒绝：" + code))
    args = dict({"dev": dev or "the board", "n": RETRIES, "detail": ""}, **more)
    return BoardError(code, en % args, zh % args, dev)


def gone(dev, what):
    return BoardError("link_lost", "the link to %s was lost %s: the board keeps the firmware it had (a half-sent "
                      "image is never booted); plug it back in and run the command again" % (dev or "the board", what),
                      "与 %s 的连接在%s中断：板子保留原固件（未传完的映像不会启动）；请重新插好后再运行一次"
                      % (dev or "板子", what), dev)


class BoardLink:
    """The service-mode session with one board on ``path`` (a serial port or a pty)."""

    def __init__(self, path, pace=None, timeout=5.0):
        import serial
        from ..table.doctor import users
        self.path = path
        self.pace = pace
        self.timeout = timeout
        busy = users(path) if os.path.exists(path) else []
        if busy:  # two programs reading one board's link would each get half of its frames
            raise BoardError("port_busy", "%s is in use by process %s: a board at a running table; stop the table hub "
                             "first (systemctl stop paizhuo-hub), then run this again" % (path, busy[0]),
                             "%s 正被进程 %s 使用：该板属于正在运行的牌桌；请先停止牌桌主机（systemctl stop "
                             "paizhuo-hub）再运行" % (path, busy[0]))
        try:
            self.ser = serial.Serial(path, 115200, timeout=0.05, write_timeout=10)
        except (serial.SerialException, OSError, ValueError) as e:
            raise BoardError("no_port", "cannot open %s (%s): is the board plugged in, and is the table hub stopped "
                             "(systemctl stop paizhuo-hub)?" % (path, getattr(e, "strerror", None) or e),
                             "无法打开 %s（%s）：板子插好了吗？牌桌主机已停止了吗（systemctl stop paizhuo-hub）？"
                             % (path, getattr(e, "strerror", None) or e)) from None
        self.reader = link.LineReader()
        self.lines = []
        self.key = None
        self.k = None
        self.out = 1
        self.inn = 0
        self.hi = None
        self.dev = None
        self.hub = None  # the link Session of confirm_as_hub's handshake
        self.received = bytearray()  # every byte the board sent (tests: no key ever comes back)

    def close(self):
        try:
            self.ser.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- bytes --------------------------------------------------------------------------

    def write(self, data):
        try:
            if not self.pace:
                self.ser.write(data)
                return
            start = time.monotonic()
            step = max(64, self.pace // 50)
            for i in range(0, len(data), step):
                piece = data[i:i + step]
                self.ser.write(piece)
                due = start + (i + len(piece)) / self.pace
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
        except OSError:
            raise gone(self.dev, "while sending") from None

    def _next_line(self, deadline):
        while not self.lines:
            if time.monotonic() > deadline:
                return None
            try:
                data = self.ser.read(1)  # returns at the first byte (or after the port's timeout)
                if data and self.ser.in_waiting:
                    data += self.ser.read(self.ser.in_waiting)
            except OSError:
                raise gone(self.dev, "while waiting for an answer") from None
            if data:
                self.received += data
                self.lines.extend(self.reader.feed(data))
        return self.lines.pop(0)

    def wait(self, accept, timeout=None, what="an answer"):
        """The first frame line for which ``accept(line)`` returns a value; BoardError on timeout."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            line = self._next_line(deadline)
            if line is None:
                raise BoardError("no_answer", "%s did not answer (%s) within %.0f s: is it a seat board with this "
                                 "firmware, and is the cable a data cable?" % (self.dev or self.path, what,
                                                                               self.timeout if timeout is None else timeout),
                                 "%s 在 %.0f 秒内没有应答（%s）：它是装有本固件的座位板吗？数据线能传数据吗？"
                                 % (self.dev or self.path, self.timeout if timeout is None else timeout, what),
                                 self.dev)
            if line is link.TOO_LONG:
                continue
            got = accept(line)
            if got is not None:
                return got

    # ---- the handshake -------------------------------------------------------------------

    def _svc_hi(self, tn):
        def accept(line):
            try:
                msg = link.peek(line)
            except link.LinkError:
                return None
            if msg.get("t") == "svc_hi" and msg.get("hn") == tn:
                return line, msg
            return None
        return accept

    def ask(self, timeout=None):
        """(line, svc_hi) of the board: ``svc`` is sent again every 0.4 s until it answers (a
        board that is starting or reopening its port misses what came before)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            tn = nonce()
            self.write(link.encode({"t": "svc", "s": 0, "n": tn}, b""))
            try:
                # A board answers at once; asking again soon covers one that was (re)starting.
                got = self.wait(self._svc_hi(tn), min(0.4, max(0.05, deadline - time.monotonic())), "svc")
            except BoardError:
                if time.monotonic() >= deadline:
                    raise
                continue
            self.dev = got[1].get("dev") or self.dev
            self.tn = tn
            return got

    def probe(self, timeout=None):
        """Ask the board who it is (``svc_hi``: device id, firmware, board, identity without the
        key, images, free flash, mode); nothing on the board changes.  Its tag is not checked."""
        return self.ask(timeout)[1]

    def key_matches(self, key, timeout=None):
        """(hi, True/False): does the board's answer carry ``key``'s tag?"""
        line, hi = self.ask(timeout)
        try:
            link.decode(line, key)
            return hi, True
        except link.LinkError:
            return hi, False

    def open_service(self, key=None, pin=None, restart_timeout=20.0):
        """A service session under ``key`` (None: the zero key of a board without one).  A board
        in its game is asked to restart in service mode first (with ``pin`` if it is in a deal)."""
        for _ in range(2):
            line, hi = self.ask()
            tn = self.tn
            use = ZERO if (key is None or hi.get("zero")) else key
            if hi.get("zero") and key is not None and hi.get("mode") == "service" and not hi.get("keyed"):
                use = ZERO
            try:
                link.decode(line, use)
            except link.LinkError:
                if key is None:
                    raise refusal("needs_key", self.dev) from None
                raise refusal("bad_tag", self.dev) from None
            k = link.session_key(use, tn, hi["n"])
            if hi.get("mode") == "service":
                self.k, self.key, self.out, self.inn, self.hi = k, use, 1, 0, hi
                return hi
            go = {"t": "svc_go", "s": 1}
            if pin is not None:
                go["pin"] = pin
            self.write(link.encode(go, k))

            def answer(line):
                try:
                    msg = link.decode(line, k)
                except link.LinkError:
                    return None
                return msg if msg.get("t") in ("svc_ok", "svc_no") else None
            msg = self.wait(answer, None, "svc_go")
            if msg["t"] == "svc_no":
                raise refusal(msg.get("code"), self.dev)
            self._await_restart(restart_timeout)
        raise BoardError("no_service", "%s did not come back in service mode" % self.dev,
                         "%s 没有进入维护模式" % self.dev, self.dev)

    def _await_restart(self, timeout):
        # The board resets: its port goes away and comes back (a pty: the same path).  Its
        # first words in service mode come when it is asked, so keep asking.
        time.sleep(0.3)
        self.lines = []
        self.reader.reset()
        try:
            self.ask(timeout)
        except BoardError:
            raise BoardError("no_service", "%s did not restart in service mode within %.0f s" % (self.dev, timeout),
                             "%s 在 %.0f 秒内没有重启进入维护模式" % (self.dev, timeout), self.dev) from None

    # ---- calls in the session --------------------------------------------------------------

    def send(self, t, **fields):
        msg = dict(fields, t=t, s=self.out)
        self.out += 1
        self.write(link.encode(msg, self.k))

    def answer(self, t, timeout=None):
        """The board's ``ok`` for call ``t`` (a dict); BoardError for its ``no``."""
        k = self.k

        def accept(line):
            try:
                msg = link.decode(line, k)
            except link.LinkError:
                try:
                    msg = link.decode(line, b"")  # the board's plain refusals: no session, bad tag
                except link.LinkError:
                    return None
                return msg if msg.get("t") == "no" else None
            return msg if msg.get("t") in ("ok", "no") and msg.get("re") in (t, "?") else None
        msg = self.wait(accept, timeout, t)
        if msg["t"] == "no":
            raise refusal(msg.get("code"), self.dev, detail=msg.get("en") or msg.get("field") or "", reply=msg)
        return msg

    def call(self, t, timeout=None, **fields):
        self.send(t, **fields)
        return self.answer(t, timeout)

    def info(self):
        return self.call("info")

    def ident(self, dev, key, lang, event, table, seat, hub, pin=None):
        """Write the board's identity and device key; the session ends (the next one is under ``key``)."""
        fields = {"dev": dev, "key": key.hex(), "lang": lang, "event": event, "table": table, "seat": seat,
                  "hub": hub}
        if pin is not None:
            fields["pin"] = pin_verifier(key, pin)
        got = self.call("ident", **fields)
        self.k = None
        return got

    def push(self, image, manifest, progress=None, limit_ms=120000, tamper=None):
        """Send ``image`` (bytes) into the board's spare slot and commit it as its trial.

        ``progress(sent, size)`` is called after each chunk.  ``tamper(offset, data)`` (tests)
        may return other bytes to send instead, once per chunk: the board refuses a chunk
        whose checksum does not match, and the chunk is sent again as it is."""
        size = len(image)
        sha = hashlib.sha256(image).hexdigest()
        self.call("begin", size=size, sha=sha, ver=manifest["version"], boards=manifest["boards"],
                  mpy=manifest["mpy"])
        o = 0
        refused = 0
        while o < size:
            data = image[o:o + CHUNK]
            sent = data
            if tamper is not None and refused == 0:
                sent = tamper(o, data) or data
            try:
                self.send("chunk", o=o, h=chunk_hash(data), d=base64.b64encode(sent).decode())
                got = self.answer("chunk")
            except BoardError as e:
                if e.code == "bad_chunk" and refused < RETRIES:
                    refused += 1
                    continue
                if e.code in ("no_answer", "link_lost"):
                    raise gone(self.dev, "at %d%% of the image" % (100 * o // size)) from None
                raise
            refused = 0
            o = got["o"]
            if progress:
                progress(o, size)
        self.call("commit", limit=limit_ms, timeout=30.0)
        return sha

    def reboot(self):
        try:
            self.call("reboot")
        except BoardError as e:
            if e.code not in ("no_answer", "link_lost"):
                raise
        self.k = None

    def hub_send(self, msg):
        """Send a hub message in the session confirm_as_hub opened (tests: a ``state``)."""
        self.write(self.hub.seal(dict(msg)))

    # ---- the table hub's welcome (confirms a trial boot) -------------------------------------

    def confirm_as_hub(self, key, hub, seat, table, event, lang="zh", timeout=30.0):
        """Be the board's hub for one handshake: challenge, its hello, welcome.  A trial boot
        that reaches this welcome keeps its new image.  Returns the board's hello."""
        deadline = time.monotonic() + timeout
        self.lines = []
        self.reader.reset()
        while time.monotonic() < deadline:
            hn = nonce()
            try:
                self.write(link.encode({"t": "challenge", "s": 0, "n": hn, "hub": hub, "v": link.VERSION}, b""))
            except BoardError:
                time.sleep(0.3)
                continue

            def accept(line):
                try:
                    msg = link.decode(line, key)
                except link.LinkError:
                    return None
                return msg if msg.get("t") == "hello" and msg.get("hn") == hn else None
            try:
                hello = self.wait(accept, 0.6, "hello")  # a seat answers a challenge at once
            except BoardError:
                continue
            s = link.Session(link.session_key(key, hn, hello["n"]), "seat")
            self.write(s.seal({"t": "welcome", "seat": seat, "table": table, "event": event, "lang": lang,
                               "player": None}))
            self.hub = s
            time.sleep(0.3)  # the board confirms its image as it takes the welcome
            return hello
        raise BoardError("no_hello", "%s sent no hello within %.0f s after its restart: its new firmware did not "
                         "start; it goes back to the old one by itself" % (self.dev, timeout),
                         "%s 重启后 %.0f 秒内没有发出 hello：新固件未能启动，板子会自行回到旧固件"
                         % (self.dev, timeout), self.dev)
