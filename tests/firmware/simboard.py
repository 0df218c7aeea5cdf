"""A seat board with flash and a reset, on the MicroPython unix port: for provisioning and updates.

``SimBoard(fw, folder, port)`` is one board: its flash is ``folder/flash`` (seat.json,
ident.json, the image slots ``fw/a.romfs`` / ``fw/b.romfs`` and the boot record), it was
"flashed at the factory" with ``fw``'s image in slot a, and it runs ``hostflash`` with
``$PAIZHUO_FLASH`` (the board's main.py: device/updater.py picks the slot).  When the
firmware resets itself (exit status 75) or dies, the board starts again, as a board does
after a reset or its watchdog; :meth:`power_cycle` is a plug pulled and put back.
"""

import hashlib
import json
import os
import shutil
import subprocess
import threading
import time

from paizhuo.sim.firmware import DATA_HEAP, build, find_tool

RESET = 75
_BUILT = []


def shared_firmware():
    """One firmware build (the simulations' font) for every provisioning test of this process:
    each build takes seconds, and they would all be the same."""
    if not _BUILT:
        import atexit
        import tempfile
        folder = tempfile.mkdtemp(prefix="paizhuo-fw-")
        atexit.register(shutil.rmtree, folder, True)
        _BUILT.append(build(os.path.join(folder, "fw"), common_hanzi=False))
    return _BUILT[0]


def heapsize(image_bytes, data_heap=DATA_HEAP + 24 * 1024):
    """-X heapsize for an image of ``image_bytes`` read into the heap plus the data heap (as
    Firmware.heapsize).  24 KB more than a game seat's: on the unix port the boot selector
    (device/updater.py) runs in the same heap as the image and leaves it more fragmented
    than a plain start (with 8 KB more, the game's 4 KB line buffer or the service request's
    module still failed now and then); on a board the image is in flash.  The game's own
    heap is held to 64 KB by tests/test_firmware_heap.py, without the selector."""
    image = 32 + (image_bytes + 31) // 32 * 32
    return (image + image * 12 // 1024 + 1 + data_heap + 1023) // 1024 * 1024


def boot_record(image, ver="factory"):
    return {"active": "a", "trial": None, "tried": False, "limit": 120000, "rolled": None,
            "img": {"a": {"sha": hashlib.sha256(image).hexdigest(), "ver": ver, "size": len(image)}}}


class SimBoard:
    """One simulated board; see the module doc.  ``dev``/``key``: provisioned (None: blank)."""

    def __init__(self, fw, folder, port, dev=None, key=None, button=False, restarts=True):
        self.fw = fw
        self.flash = os.path.join(str(folder), "flash")
        os.makedirs(os.path.join(self.flash, "fw"), exist_ok=True)
        self.port = port
        self.button = button
        self.auto_restart = restarts
        image = fw.image.read_bytes()
        shutil.copyfile(fw.image, os.path.join(self.flash, "fw", "a.romfs"))
        with open(os.path.join(self.flash, "fw", "boot.json"), "w") as f:
            json.dump(boot_record(image), f)
        cfg = {"board": "host", "port": str(port), "frames": os.path.join(self.flash, "frames"), "frames_keep": 2}
        if dev is not None:
            cfg.update({"dev": dev, "key": key.hex(), "lang": "zh"})
        self.seat_json = os.path.join(self.flash, "seat.json")
        with open(self.seat_json, "w") as f:
            json.dump(cfg, f)
        self.lines = []
        self.exits = []  # exit status of every run
        self.boots = 0
        self.proc = None
        self._cond = threading.Condition()
        self._stop = False
        self._thread = threading.Thread(target=self._life, daemon=True)
        self._thread.start()

    # ---- life -------------------------------------------------------------------------------

    def _cmd(self):
        sizes = [os.path.getsize(os.path.join(self.flash, "fw", s + ".romfs"))
                 for s in "ab" if os.path.exists(os.path.join(self.flash, "fw", s + ".romfs"))]
        exe = find_tool("micropython")
        return [exe, "-X", "heapsize=%d" % heapsize(max(sizes + [self.fw.image_size])), "-m", "hostflash"]

    def _env(self):
        env = dict(os.environ)
        env["MICROPYPATH"] = "%s:.frozen" % self.fw.hostboot.parent
        env["PAIZHUO_ROMFS"] = str(self.fw.image)
        env["PAIZHUO_FLASH"] = self.flash
        env["PAIZHUO_SEAT"] = self.seat_json
        env["PAIZHUO_BUTTON"] = "1" if self.button else "0"
        return env

    def _life(self):
        while not self._stop:
            with self._cond:
                self.boots += 1
                self.lines.append("== boot %d" % self.boots)
                self.proc = subprocess.Popen(self._cmd(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, env=self._env(), cwd=self.flash)
                proc = self.proc
            for raw in proc.stdout:
                with self._cond:
                    self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                    self._cond.notify_all()
            code = proc.wait()
            with self._cond:
                self.exits.append(code)
                self.lines.append("== exit %d" % code)
                self._cond.notify_all()
            if not self.auto_restart or len(self.exits) > 30:
                break
            time.sleep(0.1)

    def power_cycle(self, button=None):
        """Pull the plug and put it back (``button``: the service button held this time)."""
        if button is not None:
            self.button = button
        with self._cond:
            proc = self.proc
        if proc and proc.poll() is None:
            proc.kill()

    def stop(self):
        self._stop = True
        with self._cond:
            proc = self.proc
        if proc and proc.poll() is None:
            try:
                proc.stdin.close()  # the host board stops when its control channel closes
                proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        self._thread.join(10)

    # ---- output -------------------------------------------------------------------------

    def mark(self):
        with self._cond:
            return len(self.lines)

    def wait_line(self, prefix, after=0, timeout=20.0):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[after:]:
                    if line.startswith(prefix):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no line %r within %.0f s:\n%s" % (prefix, timeout, self.output()))
                self._cond.wait(min(left, 0.2))

    def output(self):
        with self._cond:
            return "\n".join(self.lines[-80:])

    def boot_state(self):
        with open(os.path.join(self.flash, "fw", "boot.json")) as f:
            return json.load(f)

    def seat_file(self):
        with open(self.seat_json) as f:
            return json.load(f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
