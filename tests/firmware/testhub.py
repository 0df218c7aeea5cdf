"""A small hub for firmware tests: the real link codec (paizhuo_shared.link) on the hub end
of a pty pair, in a thread.  It is not the table hub (hub/table/ is tested end to end
elsewhere); it lets a test say exactly what the hub sends and see exactly what the seat
sends back.

    hub = TestHub(link.hub_path, {"S-0001": key})
    hub.on_session = lambda h: h.send(state_msg(...))
    hub.open(); hub.challenge()
    hub.wait_msg("intent")

``on_message(hub, msg)``, if set, is called (in the hub's thread) with every message accepted
in a session: a test can answer like a hub would (e.g. a ``checkin`` with a new state).
"""

import os
import select
import termios
import threading
import time
import tty

from paizhuo_shared import link


class HubTimeout(AssertionError):
    pass


class TestHub:
    """The hub end of one seat link.

    With ``auto`` (default) it answers hellos like the real hub: a hello for an old challenge
    gets the current challenge again; a good hello opens a session, gets ``welcome`` and
    then ``on_session(hub)`` is called (send the first state there).
    """

    __test__ = False  # not a pytest class

    def __init__(self, path, devices, welcome=None, hub_id="T-test", auto=True):
        self.path = path
        self.devices = devices  # dev -> 32-byte key
        self.welcome = dict(welcome or {"seat": "E", "table": "7", "event": "test", "lang": "zh", "player": None})
        self.hub_id = hub_id
        self.auto = auto
        self.on_session = None
        self.on_message = None
        self.fd = None
        self.nonce = None
        self.session = None
        self.sessions = 0
        self.hellos = []  # (monotonic time, hello message) of every hello with a good tag
        self.received = []  # every message accepted in a session
        self.errors = []  # LinkError codes of refused seat frames
        self.sent = []  # every message sent (after sealing)
        self.last_state = None  # sent again on the seat's resync
        self._reader = link.LineReader()
        self._cond = threading.Condition()
        self._stop = False
        self._thread = None

    # ---- port -------------------------------------------------------------------------

    def open(self, flush=True):
        self.fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        if flush:  # like pyserial opening a port: what was written before is gone
            termios.tcflush(self.fd, termios.TCIFLUSH)
        self._stop = False
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def close(self):
        self._stop = True
        if self._thread:
            self._thread.join(2)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def write(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            view = view[n:]

    # ---- sending ----------------------------------------------------------------------

    def challenge(self, fresh=True):
        if fresh or self.nonce is None:
            self.nonce = os.urandom(16).hex()
        self.send_plain({"t": "challenge", "n": self.nonce, "hub": self.hub_id, "v": link.VERSION})

    def send_plain(self, msg):
        msg = dict(msg, s=0)
        self.write(link.encode(msg, b""))
        self.sent.append(msg)

    def send(self, msg):
        """Seal ``msg`` in the session and send it; return its ``s``."""
        msg = dict(msg)
        if msg.get("t") == "state":
            self.last_state = dict(msg)
        line = self.session.seal(msg)
        self.write(line)
        with self._cond:
            self.sent.append(msg)
        return msg["s"]

    def skip(self, n=1):
        """Use up sequence numbers without sending (the seat sees a gap)."""
        self.session.next_out += n

    # ---- receiving ----------------------------------------------------------------------

    def _loop(self):
        while not self._stop:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                return
            for line in self._reader.feed(data):
                self._line(line)

    def _line(self, line):
        try:
            head = link.peek(line)
        except link.LinkError as e:
            self._error(e.code)
            return
        if head.get("t") == "hello":
            key = self.devices.get(head.get("dev"))
            if key is None and self.auto:
                self.send_plain(link.reject_message(link.LinkError(
                    "unknown_device", "Device %s is not registered at table 7; call a referee" % head.get("dev"),
                    "设备 %s 未在 7 号桌登记，请叫裁判" % head.get("dev")), head.get("s")))
                self._error("unknown_device")
                return
            try:
                msg = link.decode(line, key if key is not None else b"\0" * 32)
                link.check_message(msg, "seat")
            except link.LinkError as e:
                self._error(e.code)
                return
            with self._cond:
                self.hellos.append((time.monotonic(), msg))
                self._cond.notify_all()
            if self.auto:
                if msg["hn"] != self.nonce:
                    self.challenge(fresh=False)
                    return
                self.session = link.Session(link.session_key(key, self.nonce, msg["n"]), "seat")
                self.nonce = os.urandom(16).hex()
                with self._cond:
                    self.sessions += 1
                self.send(dict(self.welcome, t="welcome"))
                if self.on_session:
                    self.on_session(self)
                with self._cond:
                    self._cond.notify_all()
            return
        if self.session is None:
            self._error("no_session")
            return
        try:
            msg = self.session.open(line)
        except link.LinkError as e:
            self._error(e.code)
            return
        with self._cond:
            self.received.append(msg)
            self._cond.notify_all()
        if msg["t"] == "resync" and self.auto and self.last_state is not None:
            self.send(self.last_state)  # what the real hub does: a full state
        if self.on_message:
            self.on_message(self, msg)

    def _error(self, code):
        with self._cond:
            self.errors.append(code)
            self._cond.notify_all()

    def wait(self, predicate, timeout=10.0, what="condition"):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate(self)
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HubTimeout("hub: timed out waiting for %s; received %r, errors %r" % (
                        what, [m.get("t") for m in self.received[-10:]], self.errors[-10:]))
                self._cond.wait(min(left, 0.1))

    def wait_msg(self, t, after=0, timeout=10.0):
        """The first message of type ``t`` at index >= ``after`` in :attr:`received`."""
        def find(h):
            for m in h.received[after:]:
                if m["t"] == t:
                    return m
            return None
        return self.wait(find, timeout, "a %r message" % t)

    def wait_session(self, count=1, timeout=10.0):
        return self.wait(lambda h: h.sessions >= count, timeout, "session %d" % count)

    def mark(self):
        with self._cond:
            return len(self.received)

    def messages(self, t):
        with self._cond:
            return [m for m in self.received if m["t"] == t]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
