"""Issue #12: names are data.  The board's font holds every hanzi of GBK (20,902, beyond the
8,105 of the 通用规范汉字表 in the BMP), in the ROMFS image, never the data heap; the
firmware's own reader draws the given names that were boxes (王鑫 → 王□, 昊, 淼); and
``paizhuo venue check`` lists a player name the board font still cannot draw."""

import json

import pytest

from paizhuo.sim import glyphs
from paizhuo.sim.firmware import build, run_snippet
from paizhuo.venue import event as event_
from paizhuo.venue.store import hash_secret

from staff_cli_run import paizhuo  # noqa: F401 (a fixture)

NAMES = "王鑫昊淼喆赟璟彧翀犇"  # given-name characters outside GB 2312 level 1


def test_the_board_font_holds_the_common_set_and_the_names_that_were_boxes():
    have = glyphs.board_chars()
    assert len(glyphs.board_hanzi()) >= 8105
    assert all(c in have for c in NAMES)
    assert glyphs.common_hanzi() <= have, "every GB 2312 level-1 character still"


@pytest.mark.micropython
def test_the_firmware_draws_them_from_flash(tmp_path):
    fw = build(tmp_path / "fw")  # the board's build: the whole font
    size = fw.size_of("lib/seat/font16.mpy")
    assert 600 * 1024 < size < 1024 * 1024  # in the image (flash), see tests/bench/bench_font.py
    code = ("import gc, json\n"
            "from seat import gfx\n"
            "gc.collect(); a = gc.mem_free()\n"
            "from seat import font16\n"
            "f = gfx.Font(font16)\n"
            "gc.collect()\n"
            "print(json.dumps([[f.has(c) for c in %r], a - gc.mem_free()]))\n" % NAMES)
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    has, heap = json.loads(out.stdout.strip().splitlines()[-1])
    assert all(has)
    assert heap < 2048, "the font's %d bytes are read in place: %d bytes of heap" % (size, heap)


def test_venue_check_lists_names_the_boards_cannot_draw(tmp_path, paizhuo):
    text = event_.example_text(pin_hash=hash_secret("135790")).replace('name = "李四"', 'name = "李\U0002A6A5"')
    (tmp_path / "event.toml").write_text(text)
    out = paizhuo("venue", "check", "--event", str(tmp_path / "event.toml"))
    assert out.returncode == 0, out.stderr
    assert "cannot draw \U0002A6A5 in the name '李\U0002A6A5'" in out.stdout and "座位板无法显示" in out.stdout
    assert "张三" not in out.stdout.split("warning")[-1]
    (tmp_path / "event.toml").write_text(event_.example_text(pin_hash=hash_secret("135790")))
    assert "cannot draw" not in paizhuo("venue", "check", "--event", str(tmp_path / "event.toml")).stdout
