"""The seat's glyph fonts: they cover every text the seat can show, and a build is current.

The fonts are built, not committed (``paizhuo.sim.glyphs``, run by every firmware build):
these tests check that what a build produces covers the UI table, the refusal texts the
real engine and link produce, and the card faces — on CPython and through the firmware's
own font reader under MicroPython.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from paizhuo.rules import bigtwo as engine
from paizhuo.sim import glyphs
from paizhuo.sim.firmware import build, run_snippet
from paizhuo_shared import link

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("seat_text", ROOT / "device" / "seat" / "text.py")
text = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(text)


@pytest.fixture(scope="module")
def fw(tmp_path_factory):
    return build(tmp_path_factory.mktemp("firmware"))


@pytest.fixture(scope="module")
def ui_font(fw):
    codes, widths, data, height, row = glyphs.read_module(fw.folder / "gen" / "font16.py")
    return {chr(c) for c in codes}


def engine_refusals():
    """The zh texts of real engine refusals: a table of illegal actions at fixed points."""
    import random
    order = list(range(52))
    random.Random(3).shuffle(order)
    g = engine.BigTwo(engine.Deal.from_permutation(order))
    tries = [engine.Action.double("E", True), engine.Action.play("E", "3D")]
    for seat in "ENWS":
        g.apply(engine.Action.show(seat, False))
    first = g.to_act()[0]
    other = engine.SEATS[(engine.SEATS.index(first) + 1) % 4]
    tries += [engine.Action.show(first, True), engine.Action.double(other, True)]
    for seat in engine.SEATS:
        g.apply(engine.Action.double(g.to_act()[0], False))
    hand = g.view(first)["hand"]
    tries += [engine.Action.play(first, hand[1:2]), engine.Action.pass_(first),
              engine.Action.play(first, [c for c in engine.plays_.codes(range(52)) if c not in hand][:1]),
              engine.Action.play(first, hand[:2] if hand[0][0] != hand[1][0] else hand[:1] + hand[2:3])]
    out = []
    for a in tries:
        try:
            g.verify(a)
        except engine.IllegalActionError as e:
            out.append(e.zh)
    return out


def test_every_ui_text_is_in_the_font(ui_font):
    missing = {ch for s in text.all_texts() for ch in s if ch not in ui_font}
    assert not missing, "not in font16: %r" % sorted(missing)


def test_refusal_texts_of_the_engine_and_the_link_are_in_the_font(ui_font):
    refusals = engine_refusals()
    assert len(refusals) >= 6
    codes = ("too_long", "not_frame", "bad_tag", "bad_json", "bad_message", "replay", "seq_gap",
             "unknown_device", "no_session", "stale_turn", "paused", "no_deal")
    texts = refusals + [link.LinkError(c).zh for c in codes] + list(engine.SEAT_NAMES_ZH.values())
    missing = {ch for s in texts for ch in s if ch not in ui_font}
    assert not missing, "refusal texts the seat could not draw: %r" % sorted(missing)


def test_card_font_holds_every_face(fw):
    codes, widths, data, height, row = glyphs.read_module(fw.folder / "gen" / "font24.py")
    assert {chr(c) for c in codes} >= set("234567891JQKA0") | set(text.SUIT_FACES) | set(glyphs.NUMBER_FACES)
    assert height == 24 and row == 3


def test_glyphs_have_ink_and_fit_their_cell(fw):
    codes, widths, data, height, row = glyphs.read_module(fw.folder / "gen" / "font16.py")
    size = height * row
    glyph = {chr(c): data[i * size:(i + 1) * size] for i, c in enumerate(codes)}
    assert any(glyph["牌"]) and any(glyph["A"]) and not any(glyph[" "])
    assert all(1 <= w <= 16 for w in widths)
    assert widths[codes.index(ord("牌"))] == 16 and widths[codes.index(ord("i"))] < 8


def test_a_build_is_current_and_rebuilds_when_texts_change(tmp_path):
    # Without the board's 20,902 hanzi: the rebuild logic is the same, and rendering them
    # twice was 30 s of the suite.
    first = glyphs.build_fonts(tmp_path, common=False)
    stamp = [p.stat().st_mtime_ns for p in first]
    again = glyphs.build_fonts(tmp_path, common=False)
    assert [p.stat().st_mtime_ns for p in again] == stamp, "unchanged inputs: nothing rewritten"
    rare = "䶮"  # a name character outside GB 2312 level 1 (刘䶮): only an extra text brings it
    assert ord(rare) not in glyphs.read_module(tmp_path / "font16.py")[0]
    glyphs.build_fonts(tmp_path, extra=rare, common=False)
    codes = glyphs.read_module(tmp_path / "font16.py")[0]
    assert ord(rare) in codes
    src = (tmp_path / "font16.py").read_text()
    assert "SOURCE = %r" % glyphs.digest(glyphs.ui_chars(rare, common=False), glyphs.UI) in src


def test_a_board_carries_the_common_hanzi_and_a_simulation_the_names_it_knows(tmp_path):
    """Names arrive from the venue after the boards are flashed: the board's font holds all
    3,755 GB 2312 level-1 characters.  The simulations build with the names they know."""
    from paizhuo.sim.firmware import MPY_CACHE  # the board font the default builds rendered
    board = set(glyphs.read_module(glyphs.build_fonts(tmp_path / "board", cache=MPY_CACHE)[0])[0])
    assert {ord(c) for c in glyphs.common_hanzi()} <= board
    sim = set(glyphs.read_module(glyphs.build_fonts(tmp_path / "sim", extra="赵钱", common=False)[0])[0])
    assert ord("赵") in sim and ord("钱") in sim and ord("孙") not in sim
    assert len(sim) < len(board) // 4


def test_the_board_image_draws_any_common_name(fw):
    """Under MicroPython, the board image (the default build) finds every glyph of names it
    was never told about, through the bucket index."""
    code = (
        "import json\n"
        "from seat import font16, gfx\n"
        "f = gfx.Font(font16)\n"
        "names = ['欧阳娜娜', '诸葛亮', '司马光', '赵钱孙李', '周吴郑王', '龚', '鲍']\n"
        "print(json.dumps([[ch for n in names for ch in n if not f.has(ch)], f.misses]))\n")
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    missing, misses = json.loads(out.stdout.strip().splitlines()[-1])
    assert missing == [] and misses == 0


def test_every_text_key_is_used_and_every_used_key_exists():
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "device" / "seat").rglob("*.py"))
    used = set(re.findall(r"""\bt\(\s*"([a-z_]+)"\s*[,)]""", source))
    used |= {"seat_" + s for s in "ESWN"}  # seat_name()
    used |= {"seat_%d" % i for i in range(3)}  # games.panel: 上家 / 对家 / 下家
    used |= {"kind_" + k for k in engine.plays_.KINDS}  # the pre-check hint
    used |= {k for k in re.findall(r'"([a-z_]+)"', source) if k in text.keys()}  # keys picked in tuples
    keys = set(text.keys())
    assert used - keys == set(), "used but missing from the table"
    assert keys - used == set(), "in the table but never shown"


def test_the_firmware_reads_every_text_from_its_font(fw):
    """Under MicroPython, through gfx.Font (memoryview look-ups): no text falls back to the box."""
    code = (
        "import json\n"
        "from seat import text, font16, gfx\n"
        "f = gfx.Font(font16)\n"
        "bad = [ch for s in text.all_texts() for ch in s if not f.has(ch)]\n"
        "w = f.width('牌桌'.encode())\n"
        "print(json.dumps([bad, w, f.width(b'Ag')]))\n")
    out = run_snippet(fw, code)
    assert out.returncode == 0, out.stdout + out.stderr
    bad, wide, narrow = json.loads(out.stdout.strip().splitlines()[-1])
    assert bad == [] and wide == 32 and 10 < narrow < 24
