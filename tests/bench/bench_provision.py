"""Benchmark: firmware updates over the seats' own links (issue #13).  Picked up by
tests/bench/run.py; run alone with ``python tests/bench/bench_provision.py [--quick]``.

Boards are simulated (tests/firmware/simboard.py: the real firmware on the MicroPython unix
port, flash slots in a folder, a reset that restarts it), each on its own pty pair.  The image
is the one a release ships (``make firmware``: with the 3,755 common hanzi; ``--quick``: without,
and one board at USB speed only).  "115200 baud":
the staff tool spaces what it writes as a 115200 baud 8N1 line would (11,520 bytes/s; the board's
short answers are not slowed); "USB CDC": the pty as fast as it goes (a board's native USB is
at least as fast as the Python on either end).

- one board: the image sent, chunk by chunk, and committed (``BoardLink.push``);
- a table: ``paizhuo provision push`` for four boards at once — into service mode, the image,
  commit, the trial boot, the hub's welcome, the check that the board kept it, back to its game.
"""

import hashlib
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "firmware"))

from simboard import SimBoard  # noqa: E402

from paizhuo.provision import staff  # noqa: E402
from paizhuo.provision.boardlink import BAUD_115200, BoardLink  # noqa: E402
from paizhuo.provision.release import build_release, load_release  # noqa: E402
from paizhuo.sim.firmware import build  # noqa: E402
from paizhuo.sim.links import PtyLink  # noqa: E402

KEY = bytes(range(32))


class _Quiet:
    def write(self, text):
        return len(text)

    def flush(self):
        pass


def _one_board(fw, image, manifest, folder, pace):
    os.makedirs(folder, exist_ok=True)
    with PtyLink(folder, "one") as pty:
        board = SimBoard(fw, os.path.join(folder, "one-board"), pty.seat_path, dev="S-0001", key=KEY)
        try:
            board.wait_line("link open", timeout=30)
            with BoardLink(pty.hub_path, pace=pace, timeout=20) as tool:
                tool.open_service(KEY)
                t = time.perf_counter()
                tool.push(image, manifest)
                return time.perf_counter() - t
        finally:
            board.stop()


def _table(fw, rel, folder, pace):
    """Seconds for `paizhuo provision push` of ``rel`` to a freshly assigned table of four."""
    links, boards = [], []
    os.makedirs(folder, exist_ok=True)
    try:
        for s in "ENWS":
            links.append(PtyLink(folder, s))
            boards.append(SimBoard(fw, os.path.join(folder, "board-" + s), links[-1].seat_path))
        for b in boards:
            b.wait_line("service mode", timeout=30)
        rc = staff.assign("7", "T07", ",".join(link.hub_path for link in links), os.path.join(folder, "t7"),
                          event="bench", out=_Quiet())
        assert rc == 0, "assign failed"
        t = time.perf_counter()
        rc = staff.push(os.path.join(folder, "t7", "table.toml"), str(rel.folder), pace=pace, out=_Quiet())
        took = time.perf_counter() - t
        assert rc == 0, "push failed"
        kept = all(b.boot_state()["img"].get(b.boot_state()["active"], {}).get("sha") == rel.sha for b in boards)
        return took, kept
    finally:
        for b in boards:
            b.stop()
        for link in links:
            link.close()


def section(quick):
    with tempfile.TemporaryDirectory() as tmp:
        fw = build(os.path.join(tmp, "fw"), common_hanzi=False)  # the factory image the boards start with
        # --quick (the suite's check that the bench runs): a small image and one board only
        rel = load_release(build_release(os.path.join(tmp, "rel"), common_hanzi=not quick))
        image = rel.image
        wire = 0  # bytes the tool writes for the image: chunk frames of base64
        for o in range(0, len(image), 1024):
            wire += len(json.dumps({"t": "chunk", "s": 99, "o": o, "h": "0" * 16,
                                    "d": "x" * (4 * ((min(1024, len(image) - o) + 2) // 3))})) + 66
        one_cdc = _one_board(fw, image, rel.manifest, os.path.join(tmp, "a"), None)
        one_slow = None if quick else _one_board(fw, image, rel.manifest, os.path.join(tmp, "b"), BAUD_115200)
        table_cdc, kept_cdc = (None, None) if quick else _table(fw, rel, os.path.join(tmp, "c"), None)
        table_slow, kept_slow = (None, None) if quick else _table(fw, rel, os.path.join(tmp, "d"), BAUD_115200)
    lines = ["## Firmware updates over the seat link (simulated boards)", "",
             "The release image (%d bytes, sha256 %s…) goes as %d chunk frames of 1 KB (%d bytes on the wire, "
             "%.2f× the image: base64, JSON, tags)." % (len(image), hashlib.sha256(image).hexdigest()[:12],
                                                       (len(image) + 1023) // 1024, wire, wire / len(image)),
             "115200 baud is the staff tool's writes spaced to 11,520 bytes/s on the pty; USB CDC is the pty as fast "
             "as it goes.", "",
             "| what | USB CDC | 115200 baud |", "|---|---|---|",
             "| one board: the image sent and committed | %.1f s | %s |" % (
                 one_cdc, "-" if one_slow is None else "%.1f s" % one_slow),
             "| a table of four at once: `paizhuo provision push` (service mode, image, trial boot, welcome, "
             "check, back to the game) | %s | %s |" % ("-" if table_cdc is None else "%.1f s" % table_cdc, "-" if table_slow is None else "%.1f s" % table_slow),
             "| every board kept the new image | %s | %s |" % ("-" if kept_cdc is None else ("yes" if kept_cdc else "NO"),
                                                              "-" if kept_slow is None else ("yes" if kept_slow else "NO")),
             "", "Aim (issue #13): a table's four seats in under two minutes at 115200 baud, in parallel.", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(section("--quick" in sys.argv))
