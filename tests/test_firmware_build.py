"""Building the firmware image, the seat's provisioning file (under MicroPython), the text
table, and the screenshot helpers."""

import doctest
import importlib
import importlib.util
import json
from pathlib import Path

import pytest

from paizhuo.sim import screenshot
from paizhuo.sim.firmware import DATA_HEAP, build, run_snippet

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return build(tmp_path_factory.mktemp("firmware"))


def test_image_layout_and_heap(fw):
    rom = fw.folder / "rom"
    names = {p.relative_to(rom).as_posix() for p in rom.rglob("*.mpy")}
    assert "main.mpy" in names
    for must in ("lib/seat/app.mpy", "lib/seat/font16.mpy", "lib/board/host.mpy", "lib/board/st7796.mpy",
                 "lib/paizhuo_shared/link.mpy", "lib/paizhuo_shared/bigtwo.mpy"):
        assert must in names
    assert "lib/hostboot.mpy" not in names and fw.hostboot.exists()
    assert fw.image.read_bytes()[:3] == b"\xd2\xcd\x31", "a ROMFS image"
    assert DATA_HEAP == 64 * 1024, "issue #4: the seat runs in a 64 KB data heap"
    # On top of image + data heap: only the image's share of the allocation tables (12 bytes
    # per KB on the 64-bit port) and less than a table byte (test_firmware_heap holds the pool).
    tables = fw.image_size * 12 // 1024
    assert fw.image_size + DATA_HEAP <= fw.heapsize() < fw.image_size + DATA_HEAP + tables + 256


@pytest.mark.micropython
@pytest.mark.parametrize("data_heap", [64 * 1024, 96 * 1024])
def test_the_data_heap_is_what_a_board_would_give(fw, data_heap):
    """With the image mounted, the heap left is the data heap: the image's buffer and its
    share of the allocation tables ride on top (hostboot's own objects take about 2 KB)."""
    out = run_snippet(fw, "import gc\ngc.collect()\nprint(gc.mem_free())", data_heap=data_heap)
    assert out.returncode == 0, out.stdout + out.stderr
    free = int(out.stdout.split()[-1])
    assert data_heap - 3072 < free <= data_heap


def test_drawing_modules_name_the_palette_as_band_does():
    """``const()`` does not cross modules, so gfx.py, screens.py and checkin.py name the palette indices
    privately; they must be board/band.py's (its comment table) and its 16 colours."""
    import re
    band = (ROOT / "device" / "board" / "band.py").read_text(encoding="utf-8")
    table = dict((name, int(i)) for i, name in re.findall(r"^#\s+(\d+) ([A-Z]+)\b", band, re.M))
    table.update((name, int(i)) for i, name in re.findall(r"\s(\d+) ([A-Z]+)\s", " ".join(
        line for line in band.splitlines() if line.startswith("#   "))))
    assert len(table) == 14 and table["FELT"] == 0 and table["MAROON"] == 13
    hexes = re.search(r"COLOURS = bytes\.fromhex\(\n\s+\"([0-9a-f ]+)\"[^\n]*\n\s+\"([0-9a-f ]+)\"", band)
    assert len(bytes.fromhex(hexes.group(1) + hexes.group(2))) == 48
    for name in ("gfx", "screens", "checkin"):
        src = (ROOT / "device" / "seat" / (name + ".py")).read_text(encoding="utf-8")
        consts = dict((n, int(v)) for n, v in re.findall(r"^_([A-Z]+) = const\((\d+)\)", src, re.M) if n in table)
        assert consts and all(table[n] == v for n, v in consts.items()), (name, consts)


@pytest.mark.parametrize("name", ["paizhuo.sim.glyphs", "paizhuo.sim.screenshot"])
def test_docstring_examples(name):
    failed, attempted = doctest.testmod(importlib.import_module(name))
    assert failed == 0 and attempted > 0


def test_text_table_examples():
    spec = importlib.util.spec_from_file_location("seat_text", ROOT / "device" / "seat" / "text.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    failed, attempted = doctest.testmod(mod)
    assert failed == 0 and attempted > 0
    with pytest.raises(KeyError):
        mod.t("no_such_text", mod.ZH)


def test_screenshot_colours_and_size():
    raw = bytearray(screenshot.FRAME_BYTES)
    raw[0:2] = b"\xf8\x00"  # pixel (0, 0) red, big-endian
    raw[2:4] = b"\x07\xe0"  # pixel (1, 0) green
    img = screenshot.to_image(bytes(raw))
    assert img.getpixel((0, 0)) == (255, 0, 0) and img.getpixel((1, 0)) == (0, 255, 0)
    assert screenshot.pixel(bytes(raw), 0, 0) == (248, 0, 0)
    with pytest.raises(screenshot.FrameError, match="307200"):
        screenshot.frame_hash(b"short")


CONFIGS = [
    ({"dev": "S-0001", "key": "ab" * 32}, None),
    ({"dev": "S-0001", "key": "AB" * 32, "lang": "en", "board": "ref-s3"}, None),
    ({"dev": "S 1", "key": "ab" * 32}, "seat config: dev must be the device id"),
    ({"dev": "S-0001", "key": "ab" * 31}, "seat config: key must be the 32-byte device key"),
    ({"dev": "S-0001", "key": "ab" * 32, "lang": "fr"}, "seat config: lang must be"),
    ({"dev": "S-0001", "key": "ab" * 32, "board": "host"}, "seat config: port must be the path"),
    ({"dev": "S-0001", "key": "ab" * 32, "board": "host", "port": "/x"}, "seat config: frames must be"),
    ({"dev": "S-0001", "key": "ab" * 32, "rows": 24}, "seat config: rows must be 8, 16 or 32"),
    ({"dev": "S-0001", "key": "ab" * 32, "frames_keep": -1}, "seat config: frames_keep must be"),
    ({"dev": "S-0001", "key": "ab" * 32, "colour": "red"}, "seat config: colour is not a setting"),
    ([1, 2], "seat config: file must hold a JSON object"),
]


@pytest.mark.micropython
def test_provisioning_file_checks_under_micropython(fw, tmp_path):
    paths = []
    for i, (data, _) in enumerate(CONFIGS):
        p = tmp_path / ("seat%d.json" % i)
        p.write_text(json.dumps(data))
        paths.append(str(p))
    paths.append(str(tmp_path / "missing.json"))
    (tmp_path / "broken.json").write_text("{not json")
    paths.append(str(tmp_path / "broken.json"))
    code = (
        "import json\n"
        "from seat import config\n"
        "for p in %r:\n"
        "    try:\n"
        "        c = config.load(p)\n"
        "        print(json.dumps(['ok', c.dev, len(c.key), c.lang, c.board, c.rows]))\n"
        "    except config.ConfigError as e:\n"
        "        print(json.dumps(['error', e.en, e.zh]))\n" % paths)
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == len(CONFIGS) + 2
    for (data, expect), got in zip(CONFIGS, results):
        if expect is None:
            assert got[0] == "ok" and got[2] == 32, got
        else:
            assert got[0] == "error" and got[1].startswith(expect), (data, got)
            assert got[2].startswith("座位配置："), "a Chinese text for the staff too"
    assert results[1][3:] == ["en", "ref-s3", 8]
    assert "cannot read" in results[-2][1] and "not valid JSON" in results[-1][1]
