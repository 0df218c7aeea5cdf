"""One seat on a bench: a pty link, the test hub on one end, the firmware on the other."""

import os

from paizhuo.sim.firmware import DATA_HEAP, SeatProcess
from paizhuo.sim.links import PtyLink
from testhub import TestHub

DEV = "S-0007"
KEY_HEX = "5a" * 32
KEY = bytes.fromhex(KEY_HEX)


class Rig:
    """``Rig(firmware, folder)``: start with :meth:`start`; ``hub``, ``seat``, ``link``."""

    def __init__(self, firmware, folder, lang="zh", welcome=None, data_heap=None, open_hub=True, rows=8,
                 frames_keep=0):
        self.folder = str(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.firmware = firmware
        self.link = PtyLink(self.folder, "seat")
        self.hub = TestHub(self.link.hub_path, {DEV: KEY}, welcome=welcome)
        kwargs = {} if data_heap is None else {"data_heap": data_heap}
        self.seat = SeatProcess(firmware, DEV, KEY_HEX, self.link.seat_path, os.path.join(self.folder, "frames"),
                                lang=lang, rows=rows, frames_keep=frames_keep, **kwargs)
        if open_hub:
            self.hub.open()
            self.hub.challenge()

    def close(self):
        try:
            self.seat.stop()
        finally:
            self.hub.close()
            self.link.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def assert_clean_and_within(seat, margin, what):
    """The closing check of a heap test, once the seat's last screen is settled: no error,
    drop or lost link, nothing on stderr, the draw loop allocation-free, and the lowest free
    heap at least ``margin`` bytes (printed: ``pytest -s`` shows it).  Returns (free, low)."""
    seat.wait_for(lambda s: s.mem is not None, 5, "a heap figure")
    trouble = [ln for ln in seat.lines if ln.startswith(("error", "drop", "link down", "link lost"))]
    assert trouble == [] and seat.alive() and seat.stderr == []
    assert seat.frames and all(f[2] == 0 for f in seat.frames), "the draw loop allocated"
    free, low = seat.mem
    print("%s heap: free %d, low %d of %d" % (what, free, low, DATA_HEAP))
    assert low >= margin, "lowest free heap, %s: %d bytes (at least %d wanted)" % (what, low, margin)
    return free, low

