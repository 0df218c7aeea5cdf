"""Pinned frame hashes of fixed scenes (``frames.json`` beside this file).

A pin is the sha256 of the raw frame (big-endian RGB565).  A frame depends only on the
bitmaps of the glyphs it draws, so a glyph subset that grew (a new Chinese string anywhere
the build collects them) leaves every pin valid.  The file also records the digest of the
fonts the pins were made with: when a frame differs *and* the fonts differ, the message
says the glyph rendering may have changed (another Pillow, FreeType or font version)
instead of a bare hash mismatch.  To re-pin after looking at the PNGs the test wrote:

    PAIZHUO_PIN_FRAMES=1 .venv/bin/python -m pytest -q tests/test_firmware.py
"""

import hashlib
import json
import os
from pathlib import Path

from paizhuo.sim import glyphs
from paizhuo.sim.screenshot import HEIGHT, WIDTH, frame_hash, save_png

PIN_FILE = Path(__file__).with_name("frames.json")
ENV = "PAIZHUO_PIN_FRAMES"


def font_digest(firmware):
    """sha256 over the glyph tables the firmware draws with (not their build metadata)."""
    h = hashlib.sha256()
    for name in ("font16", "font24"):
        codes, widths, data, height, row = glyphs.read_module(firmware.folder / "gen" / (name + ".py"))
        h.update(repr((codes, height, row)).encode())
        h.update(widths)
        h.update(data)
    return h.hexdigest()


# The move clock's box in the top bar (seat/screens.py: CLOCK at 332, 2, 68 x 20).  Its
# seconds count down from the hub's figure in real time, so on a slow or loaded machine a
# scene drawn a second later shows 24 instead of 25: a running clock is blanked before the
# hash (the layout is pinned, not the machine's speed).  A stopped clock is drawn the same
# every time, so the paused scene pins its digits (``clock=True``).
CLOCK_BOX = (332, 2, 68, 20)


def without_clock(frame_path):
    """The frame's bytes with the clock box blanked (black, as the top bar behind it is not:
    any fixed value will do, it is only hashed)."""
    data = bytearray(Path(frame_path).read_bytes())
    x, y, w, h = CLOCK_BOX
    for row in range(y, min(y + h, HEIGHT)):
        at = (row * WIDTH + x) * 2
        data[at:at + 2 * min(w, WIDTH - x)] = bytes(2 * min(w, WIDTH - x))
    return bytes(data)


def check(firmware, name, frame_path, png_dir, clock=False):
    """Compare a frame with its pin (or record it when $PAIZHUO_PIN_FRAMES is set).

    ``clock``: the scene's clock is stopped (paused), so its digits are part of the pin;
    otherwise the running clock's box is left out of the hash (see :data:`CLOCK_BOX`)."""
    got = frame_hash(frame_path if clock else without_clock(frame_path))
    png = save_png(frame_path, Path(png_dir) / (name + ".png"))
    pins = json.loads(PIN_FILE.read_text()) if PIN_FILE.exists() else {"font": None, "scenes": {}}
    fonts = font_digest(firmware)
    if os.environ.get(ENV):
        if pins.get("font") != fonts:
            pins = {"font": fonts, "scenes": {}}
        pins["scenes"][name] = got
        PIN_FILE.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
        return
    assert name in pins["scenes"], "no pin for scene %r: look at %s and pin it with %s=1" % (name, png, ENV)
    if pins["scenes"][name] == got:
        return
    assert pins.get("font") == fonts, (
        "scene %r drew a different frame, and the glyph tables differ from the ones the pins were made "
        "with (new UI strings, or another Pillow, FreeType or font version?): look at %s and re-pin "
        "with %s=1" % (name, png, ENV))
    raise AssertionError("scene %r drew a different frame: see %s" % (name, png))
