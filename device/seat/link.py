"""The seat's end of the hub link (contract: docs/protocol.md; codec: paizhuo_shared.link).

- Handshake: the hub starts with ``challenge`` (tagged with the empty key); the seat answers
  ``hello`` (tagged with its device key) at once and re-sends it, with a new nonce, every
  1000 ms until ``welcome`` arrives tagged with the session key.  A hello sent before any
  challenge carries ``hn: ""`` and makes the hub (re)send its challenge.
- Session: :class:`paizhuo_shared.link.Session` numbers frames; a frame from the hub that
  skips a number (``seq_gap``) means this seat missed something, so it starts a new
  handshake — which ends with a full ``state``: that is the resync.  A replayed or
  malformed frame is dropped and counted.
- In the session, the hub's sealed rejects ``seq_gap`` and ``no_session`` restart the
  handshake.  A frame that fails its tag is dropped and counted, nothing more: anyone on
  the wire can send one, and it must not cost a good session.
- Outside the session's key are ``challenge`` and the pre-session rejects (``no_session``,
  ``bad_tag``, ``seq_gap``): a hub that restarted sends them, but so could a stranger.  With
  a session up they only make the seat ask (``resync``, sealed): an answer in the session
  within ``_PROBE_MS`` proves the session good and the plain frame is forgotten; none, and
  the seat starts a new handshake (with the nonce of the last challenge).
- Heartbeat: ``ack`` whenever nothing was sent for ``_ACK_MS`` = 500 ms (the contract asks
  for a frame at least every 2000 ms; the hub marks a seat offline after 5 s of silence by
  default, but a table may set as little as 1 s, and an ack due at 1000 ms came late for
  that about once a second: the seat went down and up all deal).
- Link loss (the port reports an error or hang-up): close it, tell the app, reopen it
  every ``_REOPEN_MS``.
- A frame that cannot be handled (out of memory, a firmware bug) is dropped and the seat
  sends ``resync`` (or starts a new session if the frame could not even be read): the hub
  answers with a full ``state``.  The link task never dies.
- Memory: frames are parsed in place — the line reader hands each complete line over as a
  view of its own 4 KB buffer (allocated once, at start-up), and JSON is read from there.

The port comes from the board (``open_port()``): ``readinto(buf)`` returns the bytes read
now (0: none yet) or raises OSError when the link is gone; ``write(data)``; ``close()``.
Nothing here blocks: the app's loop calls :meth:`SeatLink.poll` and :meth:`SeatLink.tick`.
"""

import binascii
import gc
import os
import sys
import time

from micropython import const

from paizhuo_shared import link as codec
from seat.state import prune

FIRMWARE = "0.2.0"
_HELLO_MS = const(1000)
_ACK_MS = const(500)  # the hub may mark a seat offline after as little as 1 s of silence
_REOPEN_MS = const(500)
_PROBE_MS = const(2000)  # how long the hub has to answer in the session after a plain challenge (1 s
# was too short for a hub or a seat slowed by a busy machine: a good session was dropped)


def _restarts(code):
    """The hub (in our session) says it lost frames or the session: a new handshake is the way back."""
    return code == "seq_gap" or code == "no_session"


class SeatLink:
    """Runs the link for one seat of ``app``: hands every accepted hub message to
    ``app.on_message(msg)`` and reports session changes to ``app.on_link(up, why)``."""

    def __init__(self, dev, key, board, app, _reader=None):
        self.dev = dev
        self.key = key
        self.board = board
        self.app = app
        self.emit = board.emit
        self.port = None
        self.session = None
        self.hub_nonce = ""  # the last challenge's nonce (hello's "hn")
        self.pending_key = None  # the session key our last hello would open
        self.last_hello = 0
        self.last_tx = 0
        self.dropped = 0  # frames refused (replay, bad tag, malformed) since start
        self._buf = bytearray(256)  # what one read takes from the port
        self._mv = memoryview(self._buf)
        # Allocated once, at start-up: the 4 KB line buffer before the heap fragments, and
        # the bound method the reader calls (a bound method is an object on every access).
        self._reader = _reader or codec.LineReader()  # made by app.main before anything else
        self._handle = self._line
        self._prune = self._cut
        self._dropped_view = False  # _cut let the old view go for the frame being opened
        self._reopen_at = 0  # ticks_ms when the port may be tried again
        # ticks_ms when a plain frame said the session is gone and the seat asked the hub
        # in the session (resync); None: not asking.  One attribute: each name is a qstr.
        self._probe_at = None

    # ---- driven by the app's loop -----------------------------------------------------

    def poll(self):
        """Open the port when it is time, read what it has and handle each complete frame;
        close it when it fails (and reopen it ``_REOPEN_MS`` later).  Never blocks."""
        port = self.port
        try:
            if port is None:
                now = time.ticks_ms()
                if time.ticks_diff(now, self._reopen_at) < 0:
                    return
                try:
                    port = self.board.open_port()
                except OSError:
                    self._reopen_at = time.ticks_add(now, _REOPEN_MS)
                    return
                self.port = port
                self._log("link open")
                self._reader.reset()  # a new connection: no half line from the last one
                self.hello()
            n = port.readinto(self._buf)
        except OSError as e:
            self._log("link lost %s" % (e,))
            port.close()
            self.port = None
            self._down("link lost")
            self._reopen_at = time.ticks_add(time.ticks_ms(), _REOPEN_MS)
            return
        if not n:
            return
        try:
            # Each complete line goes to _line in place, as a view of the reader's buffer:
            # a 4 KB frame is never copied, and it is parsed straight from there.
            self._reader.feed(self._buf if n == len(self._buf) else self._mv[:n], self._handle)
        except MemoryError:
            # The reader may have lost its place: start a new session (hello is re-sent
            # until welcome), which brings a full state.
            self._reader.reset()
            self.trouble("out of memory reading a frame", True)

    def tick(self, now):
        """Called by the app's loop every 100 ms: hello until welcomed, then the heartbeat."""
        if self.port is None:
            return
        try:
            if self.session is None:
                if time.ticks_diff(now, self.last_hello) >= _HELLO_MS:
                    self.hello()
            elif self._probe_at is not None and time.ticks_diff(now, self._probe_at) >= _PROBE_MS:
                self.poll()  # an answer already on the wire but not read yet still counts
                if self._probe_at is not None:
                    self.restart("no_session")  # no answer in the session: the hub lost it
            elif time.ticks_diff(now, self.last_tx) >= _ACK_MS:
                self.send({"t": "ack", "upto": self.session.last_in})
        except OSError:
            pass  # the reader sees the failure and reopens

    # ---- sending ------------------------------------------------------------------------

    def hello(self):
        n = binascii.hexlify(os.urandom(16)).decode()  # the seat nonce: 16 random bytes as 32 hex
        msg = {"t": "hello", "s": 0, "dev": self.dev, "fw": FIRMWARE, "board": self.board.name,
               "n": n, "hn": self.hub_nonce}
        self.pending_key = codec.session_key(self.key, self.hub_nonce, n) if self.hub_nonce else None
        self.last_hello = time.ticks_ms()
        self.send(msg, self.key)

    def send(self, msg, key=None):
        """Seal and send a message in the session; return its ``s`` (None: no session).
        With ``key`` the message goes outside any session, tagged with that key (hello)."""
        if self.port is None:
            return None
        if key is not None:
            line = codec.encode(msg, key)
        elif self.session is None:
            return None
        else:
            line = self.session.seal(msg)
        self.port.write(line)
        self.last_tx = time.ticks_ms()
        return msg["s"]

    # ---- receiving ----------------------------------------------------------------------

    def _line(self, line):
        """A complete line from the reader (a view of its buffer, valid during this call)."""
        try:
            if self._reader.buf.find(b'{"t":"svc', 0, 9) == 0:
                from seat import svcgate  # a staff tool asks for service mode: loaded only for it
                svcgate.main(self.app, line)
                return
            if self.session is not None:
                self._dropped_view = False
                try:
                    msg = self.session.open(line, self._prune)
                except codec.LinkError as e:
                    if e.code == "seq_gap":
                        self.restart("seq_gap")  # we missed frames: a new session brings a full state
                    elif not self._plain(line):
                        self.dropped += 1
                        self._log("drop %s" % e.code)
                        if self._dropped_view:  # the screen lost its view for nothing: get it back
                            self.send({"t": "resync"})
                    return
                self._probe_at = None  # the hub answered in the session: it stands
                if msg["t"] == "reject":
                    if _restarts(msg["code"]):
                        self.restart(msg["code"])
                        return
                    if msg["code"] == "bad_tag":
                        return  # a stranger's frame in our name (an older hub said so): not ours to show
                self.app.on_message(msg)
                return
            if self._plain(line) or self.pending_key is None:
                return
            session = codec.Session(self.pending_key, "hub")
            try:
                msg = session.open(line, self._prune)
            except codec.LinkError:
                self.dropped += 1
                return
            if msg["t"] != "welcome":
                return  # a late frame of an old session
            self.session = session
            self.pending_key = None
            self._log("link up %s" % msg["seat"])
            self.app.on_link(True, "welcome")
            self.app.on_message(msg)
        except MemoryError:
            self.trouble("out of memory handling a frame")
        except Exception as e:  # a firmware bug must not end the link
            self.trouble("%s handling a frame: %s" % (type(e).__name__, e))

    def _cut(self, body):
        """The session's ``prune`` (the tag has checked out, nothing is parsed yet; the body
        is the start of the reader's buffer): blank what the seat never shows, and let the
        old view and screen go before a ``state`` or ``event`` brings new ones — the parser
        then never has both on the heap.  The hub writes ``"t"`` first (its messages are
        dicts made with ``"t"`` first); if a body does not start so, nothing is let go."""
        buf = self._reader.buf
        n = len(body)
        prune(buf, n)
        games = sys.modules.get("seat.games")  # a game's own (once a deal was on screen)
        if games is None and buf.find(b'"game":"', 0, n) >= 0:
            import seat.games as games  # a deal's first frame: its game's prune runs before the parse
        if games is not None:
            games.prune(buf, n)
        whole = buf.find(b'{"t":"state",', 0, 13) == 0
        if whole or buf.find(b'{"t":"event",', 0, 13) == 0:
            self.app.drop_view(whole)
            self._dropped_view = True

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
            if self.session is None:
                self.hello()
                return True
        elif t == "reject":
            code = msg["code"]
            if not (_restarts(code) or code == "bad_tag"):  # not "no session for you"
                if self.session is None:
                    self.app.on_message(msg)  # e.g. unknown_device: the connecting screen says so
                return True
        else:
            return True
        # "You have no session", with a session up: the hub restarted, or a stranger says so.
        # Ask in the session (tick restarts the handshake if no answer comes); one at a time.
        if self.session is not None and self._probe_at is None:
            self._probe_at = time.ticks_ms()
            self.send({"t": "resync"})
        return True

    def trouble(self, what, restart=False):
        """A frame could not be handled: count it, say so, and get a full state back —
        ``resync`` in the session, or a new session when the reader lost its place."""
        self.app.ui.release()  # what can be rebuilt goes first
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
        self._probe_at = None
        if self.session is not None:
            self.session = None
            self._log("link down %s" % why)
            self.app.on_link(False, why)

    def _log(self, line):
        if self.emit:
            self.emit(line)
