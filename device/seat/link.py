"""The seat's end of the hub link (contract: docs/protocol.md; codec: paizhuo_shared.link).

- Handshake: the hub starts with ``challenge`` (tagged with the empty key); the seat answers
  ``hello`` (tagged with its device key) at once and re-sends it, with a new nonce, every
  1000 ms until ``welcome`` arrives tagged with the session key.  A hello sent before any
  challenge carries ``hn: ""`` and makes the hub (re)send its challenge.
- Session: :class:`paizhuo_shared.link.Session` numbers frames; a frame from the hub that
  skips a number (``seq_gap``) means this seat missed something, so it starts a new
  handshake — which ends with a full ``state``: that is the resync.  A replayed or
  malformed frame is dropped and counted.
- The hub's rejects ``seq_gap``, ``no_session`` and ``bad_tag`` (it lost our session)
  and a fresh ``challenge`` (the hub restarted) also restart the handshake.
- Heartbeat: ``ack`` whenever nothing was sent for ``ACK_MS`` (the hub marks a seat
  offline after 5000 ms of silence; the contract asks for at least one frame per 2000 ms).
- Link loss (the port reports an error or hang-up): close it, tell the app, reopen it
  every ``REOPEN_MS``.
- A frame that cannot be handled (out of memory, a firmware bug) is dropped and the seat
  sends ``resync`` (or starts a new session if the frame could not even be read): the hub
  answers with a full ``state``.  The link task never dies.

The port comes from the board (``open_port()``): ``await readinto(buf)`` returns a count
> 0 or raises OSError when the link is gone; ``write(data)``; ``close()``.
"""

import binascii
import gc
import os
import time

import asyncio
from micropython import const

from paizhuo_shared import link as codec

FIRMWARE = "0.2.0"
HELLO_MS = const(1000)
ACK_MS = const(1000)
REOPEN_MS = const(500)
TICK_MS = const(100)
_RESTART = ("seq_gap", "no_session", "bad_tag")


def nonce():
    """16 random bytes as 32 lowercase hex chars."""
    return binascii.hexlify(os.urandom(16)).decode()


class SeatLink:
    """Runs the link for one seat; hands every accepted hub message to ``on_message(msg)``
    and reports session changes to ``on_link(up, why)``."""

    def __init__(self, dev, key, board, open_port, on_message, on_link, emit=None, on_low_memory=None):
        self.dev = dev
        self.key = key
        self.board = board
        self.open_port = open_port
        self.on_message = on_message
        self.on_link = on_link
        self.emit = emit
        self.on_low_memory = on_low_memory  # called to free what can be rebuilt (the screen's widgets)
        self.port = None
        self.session = None
        self.hub_nonce = ""  # the last challenge's nonce (hello's "hn")
        self.pending_key = None  # the session key our last hello would open
        self.last_hello = 0
        self.last_tx = 0
        self.dropped = 0  # frames refused (replay, bad tag, malformed) since start
        self._buf = bytearray(256)
        self._reader = codec.LineReader()

    # ---- the task -----------------------------------------------------------------------

    async def run(self):
        """Open the port, serve it until it fails, reopen; forever."""
        while True:
            try:
                self.port = self.open_port()
            except OSError:
                await asyncio.sleep_ms(REOPEN_MS)
                continue
            self._log("link open")
            ticker = asyncio.create_task(self._tick())
            try:
                self._reader = codec.LineReader()
                self.hello()
                while True:
                    n = await self.port.readinto(self._buf)
                    try:
                        lines = self._reader.feed(self._buf if n == len(self._buf) else self._buf[:n])
                    except MemoryError:
                        # The frame is lost and the reader may hold half of it: start a
                        # new session (hello is re-sent until welcome), which brings a full state.
                        self._trouble("out of memory reading a frame", True)
                        continue
                    for line in lines:
                        try:
                            self._line(line)
                        except MemoryError:
                            self._trouble("out of memory handling a frame")
                        except Exception as e:  # a firmware bug must not end the link
                            self._trouble("%s handling a frame: %s" % (type(e).__name__, e))
            except OSError as e:
                self._log("link lost %s" % (e,))
            finally:
                ticker.cancel()
                self.port.close()
                self.port = None
                self._down("link lost")
            await asyncio.sleep_ms(REOPEN_MS)

    async def _tick(self):
        while True:
            await asyncio.sleep_ms(TICK_MS)
            now = time.ticks_ms()
            try:
                if self.session is None:
                    if time.ticks_diff(now, self.last_hello) >= HELLO_MS:
                        self.hello()
                elif time.ticks_diff(now, self.last_tx) >= ACK_MS:
                    self.send({"t": "ack", "upto": self.session.last_in})
            except OSError:
                pass  # the reader sees the failure and reopens

    # ---- sending ------------------------------------------------------------------------

    def hello(self):
        n = nonce()
        msg = {"t": "hello", "s": 0, "dev": self.dev, "fw": FIRMWARE, "board": self.board,
               "n": n, "hn": self.hub_nonce}
        self.pending_key = codec.session_key(self.key, self.hub_nonce, n) if self.hub_nonce else None
        self.last_hello = time.ticks_ms()
        self._write(codec.encode(msg, self.key))

    def send(self, msg):
        """Seal and send a message in the session; return its ``s`` (None: no session)."""
        if self.session is None or self.port is None:
            return None
        line = self.session.seal(msg)
        self._write(line)
        return msg["s"]

    def _write(self, line):
        if self.port is not None:
            self.port.write(line)
            self.last_tx = time.ticks_ms()

    # ---- receiving ----------------------------------------------------------------------

    def _line(self, line):
        if self.session is not None:
            try:
                msg = self.session.open(line)
            except codec.LinkError as e:
                if e.code == "seq_gap":
                    self.restart("seq_gap")  # we missed frames: a new session brings a full state
                elif not self._plain(line):
                    self.dropped += 1
                    self._log("drop %s" % e.code)
                return
            if msg["t"] == "reject" and msg["code"] in _RESTART:
                self.restart(msg["code"])
                return
            self.on_message(msg)
            return
        if self._plain(line) or self.pending_key is None:
            return
        session = codec.Session(self.pending_key, "hub")
        try:
            msg = session.open(line)
        except codec.LinkError:
            self.dropped += 1
            return
        if msg["t"] != "welcome":
            return  # a late frame of an old session
        self.session = session
        self.pending_key = None
        self._log("link up %s" % msg["seat"])
        self.on_link(True, "welcome")
        self.on_message(msg)

    def _plain(self, line):
        """Handle a frame tagged with the empty key (challenge, pre-session reject); True if it was one."""
        try:
            msg = codec.decode(line, b"")
            codec.check_message(msg, "hub")
        except codec.LinkError:
            return False
        t = msg["t"]
        if t == "challenge":
            self.hub_nonce = msg["n"]
            if self.session is not None:
                self._down("hub restarted")
            self.hello()
        elif t == "reject":
            if msg["code"] in _RESTART:
                if self.session is not None:
                    self.restart(msg["code"])
            else:
                self.on_message(msg)  # e.g. unknown_device: the connecting screen says so
        return True

    def _trouble(self, what, restart=False):
        """A frame could not be handled: count it, say so, and get a full state back —
        ``resync`` in the session, or a new session when the reader lost its place."""
        if self.on_low_memory:
            self.on_low_memory()
        gc.collect()
        self.dropped += 1
        self._log("error %s" % what)
        try:
            if restart:
                self.restart("error")
            else:
                self.send({"t": "resync"})
        except (MemoryError, OSError, codec.LinkError):
            pass  # hello is re-sent every second; a later gap also restarts

    def restart(self, why):
        """Drop the session and start a new handshake at once."""
        self._down(why)
        self.hello()

    def _down(self, why):
        if self.session is not None:
            self.session = None
            self._log("link down %s" % why)
            self.on_link(False, why)

    def _log(self, line):
        if self.emit:
            self.emit(line)
