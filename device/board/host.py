"""Host drivers: the same firmware on the MicroPython unix port, with a simulated panel,
touch fed by a test, and a pty as the USB serial link.

- :class:`HostDisplay` is a :class:`~board.band.BandDisplay` whose "panel memory" is a file
  (``screen.raw`` in the frames folder, 480×320 big-endian RGB565, 307200 bytes, rows top
  to bottom — the bytes an SPI panel receives).  Bands are written into it in place, so a
  partial refresh (the clock) changes only its rows.  After each refresh the file is copied
  to ``f00001.raw``, ``f00002.raw``, … and the frame is announced on the control channel;
  ``frames_keep`` > 0 keeps only that many of the newest.
- :class:`HostBoard` reads the control channel (stdin): one command per line,
  ``tap X Y`` (a finger down and up at screen pixel X, Y), ``drag X Y X1 Y1`` (down at
  X, Y, lifted at X1, Y1).  End of input stops the firmware,
  so a firmware process never outlives the test that drives it.
- :meth:`HostBoard.open_port` opens the seat end of a pty pair.  The unix port's ``os`` has no
  ``read``/``write`` on descriptors and ``FileIO.readinto`` waits until the buffer is full,
  so the terminal is put in non-canonical mode with VMIN=0, VTIME=0: a read then returns
  what is there (measured: each poll wake-up reads one whole line the hub wrote).  A read of
  0 bytes after ``poll`` said "readable" means the other end hung up.
- :func:`emit` writes a control line to stdout (``ui …``, ``frame …``, ``mem …``, ``link …``),
  :func:`emit_part` a piece of one.
"""

import os
import sys
import select
import termios

from board.band import BandDisplay

WIDTH = 480
HEIGHT = 320
_VMIN = 6  # indices into termios' cc list on Linux
_VTIME = 5


def emit(line):
    """One control line for the driver (tests, the simulator); never sent to the hub."""
    sys.stdout.write(line)
    sys.stdout.write("\n")


def emit_part(part):
    """Part of a control line (the caller ends it with a newline)."""
    sys.stdout.write(part)


class HostDisplay(BandDisplay):
    """A 480×320 panel simulated by a file; see the module doc for the file format."""

    def __init__(self, folder, rows=8, keep=0):
        super().__init__(WIDTH, HEIGHT, rows)
        self.folder = folder
        self.keep = keep
        self.count = 0
        try:
            os.mkdir(folder)
        except OSError:
            pass  # exists
        self.screen_path = folder + "/screen.raw"
        gram = open(self.screen_path, "wb")
        self._rgb_fb.fill(0)
        for _ in range(HEIGHT * WIDTH * 2 // len(self._rgb)):
            gram.write(self._rgb)  # a black panel, as after power-up
        gram.close()
        self._gram = open(self.screen_path, "r+b")

    def _begin(self, y, nrows):
        self._gram.seek(y * WIDTH * 2)

    def _write(self, buf):
        self._gram.write(buf)

    def frame_done(self):
        """Copy the panel memory to the next numbered frame file; return its path."""
        self._gram.flush()
        self.count += 1
        path = "%s/f%05d.raw" % (self.folder, self.count)
        out = open(path, "wb")
        self._gram.seek(0)
        while True:
            n = self._gram.readinto(self._rgb)
            if not n:
                break
            out.write(self._rgb_mv[:n])
        out.close()
        if self.keep and self.count > self.keep:
            try:
                os.remove("%s/f%05d.raw" % (self.folder, self.count - self.keep))
            except OSError:
                pass
        return path


class HostBoard:
    """What the app needs from a board, on the unix port: the display, taps from the
    control channel (stdin lines ``tap X Y``; ``touch`` is the board itself), the pty link
    (``open_port()`` opens it and returns the board, which is then the port: one link at a
    time), control lines, and ``wait(ms)``.  One class rather than three: each costs heap."""

    name = "host"

    def __init__(self, cfg):
        self.cfg = cfg
        self.display = HostDisplay(cfg.frames, cfg.rows, cfg.frames_keep)
        self.touch = self
        self.emit = emit
        self.emit_part = emit_part
        self.ended = False  # the control channel closed: the firmware stops
        self._in = sys.stdin.buffer
        self._poll = select.poll()  # stdin, and the pty while it is open
        self._poll.register(self._in, select.POLLIN)
        self.stream = None

    def wait(self, ms):
        """Sleep until the control channel or the link has something, at most ``ms``."""
        for _ in self._poll.ipoll(ms):
            break

    def poll(self):
        """The tap ``(x, y)`` of a control line that has arrived, or None (``ended`` is set
        when the control channel closed)."""
        if not self._readable(self._in):
            return None
        line = self._in.readline()  # the driver writes whole lines
        if not line:
            self.ended = True
            return None
        parts = line.split()
        if (len(parts) == 3 and parts[0] == b"tap") or (len(parts) == 5 and parts[0] == b"drag"):
            try:
                return tuple(int(p) for p in parts[1:])  # a drag: where the finger went down, then lifted
            except ValueError:
                pass
        emit("error control line not understood (use: tap X Y, drag X Y X1 Y1): %r" % (line,))
        return None

    def _readable(self, stream):
        """The poll events of ``stream`` now (0: nothing); ``ipoll`` allocates nothing."""
        ev = 0
        for item in self._poll.ipoll(0):
            if item[0] is stream:
                ev = item[1]
        return ev

    # ---- the link: the seat end of a pty (host stand-in for the USB CDC serial link) ----

    def open_port(self):
        """Open the link; OSError if the pty is not there (yet)."""
        stream = open(self.cfg.port, "r+b")
        fd = stream.fileno()
        termios.setraw(fd)
        attrs = termios.tcgetattr(fd)
        attrs[6][_VMIN] = 0
        attrs[6][_VTIME] = 0
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        self.stream = stream
        self._poll.register(stream, select.POLLIN)
        return self

    def readinto(self, buf):
        """The number of bytes read now (0: none yet); OSError when the link is gone."""
        n = self.stream.readinto(buf)
        if n:
            return n
        # Nothing to read: the peer may have hung up (a read of a hung-up pty returns 0 too).
        if self._readable(self.stream) & (select.POLLHUP | select.POLLERR):
            raise OSError("link lost: %s hung up" % self.cfg.port)
        return 0

    def write(self, data):
        self.stream.write(data)

    def close(self):
        if self.stream is not None:
            self._poll.unregister(self.stream)
            try:
                self.stream.close()
            except OSError:
                pass
            self.stream = None


def setup(cfg):
    return HostBoard(cfg)
