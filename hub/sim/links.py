"""Serial links between a hub and a simulated seat: a pty pair joined by ``socat``.

A seat board is a USB CDC serial device; on one machine the same thing is two ptys
joined back to back.  The hub opens ``hub_path`` with pyserial exactly as it opens
``/dev/ttyACM0`` on a Raspberry Pi; the firmware opens ``seat_path``.  Both ends are
raw (no echo, no line editing), so bytes pass through unchanged.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d, PtyLink(d, "E") as link:
    ...     link.hub_path.endswith("E.hub"), link.seat_path.endswith("E.seat")
    (True, True)
"""

import os
import shutil
import signal
import subprocess
import time

from . import lifeline


class LinkStartError(RuntimeError):
    """socat is missing or did not create the pty pair (the message says which)."""


class PtyLink:
    """One hub ↔ seat serial link: ``<folder>/<name>.hub`` and ``<folder>/<name>.seat``."""

    def __init__(self, folder, name, timeout=5.0):
        exe = shutil.which("socat")
        if exe is None:
            raise LinkStartError("socat not found: install the Debian package socat (make test does)")
        self.hub_path = os.path.join(folder, name + ".hub")
        self.seat_path = os.path.join(folder, name + ".seat")
        for p in (self.hub_path, self.seat_path):
            if os.path.lexists(p):
                os.unlink(p)
        self._proc = lifeline.popen(
            [exe, "pty,raw,echo=0,link=" + self.hub_path, "pty,raw,echo=0,link=" + self.seat_path],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not (os.path.exists(self.hub_path) and os.path.exists(self.seat_path)):
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace").strip()
                raise LinkStartError("socat exited (%s) before creating %s: %s" % (self._proc.returncode, name, err))
            if time.monotonic() > deadline:
                self.close()
                raise LinkStartError("socat did not create %s within %.1f s" % (name, timeout))
            time.sleep(0.01)

    def close(self):
        """Stop socat; both ends see the link drop (EOF / I/O error), like a pulled cable."""
        if self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait()
        if self._proc.stderr:
            self._proc.stderr.close()

    @property
    def alive(self):
        return self._proc.poll() is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
