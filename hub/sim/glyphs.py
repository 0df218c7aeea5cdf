"""Build the seat firmware's bitmap fonts: a Chinese glyph subset cut from a TrueType font.

MicroPython's ``framebuf`` only knows an 8×8 ASCII font, so the firmware carries generated
modules of ``bytes`` (the shape of peterhinch's font-to-py output) that it reads through
``memoryview`` and ``io.BytesIO`` without allocating:

- ``font16`` — UI text, a 16-row cell (the font drawn at 15 px so descenders fit): every
  character of ``device/seat/text.py``, of the refusal texts the hub can send (string
  literals of the engine, the link codec and the table hub), printable ASCII, the 20,902
  hanzi of GBK (:func:`board_hanzi`: players' names arrive from the venue at run time,
  after the boards are flashed), any ``extra`` text (a rarer name known at build time) and
  U+FFFD, drawn as a box for anything missing.
- ``font24`` — card faces, a 24-row cell: ``0-9 J Q K A`` and the four suit symbols.

Module layout (one glyph = HEIGHT rows of ROW bytes, MONO_HLSB: bit 7 is the left pixel)::

    HEIGHT = 16; ROW = 2
    CODES = b"..."    # an index, then 2 bytes per glyph: big-endian code points, ascending.
                      # The index (the first 514 bytes): 257 big-endian glyph numbers, the
                      # first glyph of each code point high byte (so a lookup searches one
                      # bucket); one object, not two, because every name is a qstr on the seat
    WIDTHS = b"..."   # the advance in pixels per glyph
    DATA = b"..."     # HEIGHT * ROW bytes per glyph
    SOURCE = "..."    # sha256 of the inputs: a stale module is detectable

The font is Debian's ``fonts-wqy-microhei`` (``make test`` installs it), rendered with
Pillow without anti-aliasing.

    >>> sorted(card_chars())[:3]
    ['0', '1', '2']
"""

import ast
import os
import hashlib
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FONT_FILE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
TEXT_MODULE = ROOT / "device" / "seat" / "text.py"
# Where the texts the hub may send to a seat live (refusals, seat names, card symbols).
HUB_TEXT_SOURCES = ("shared/*.py", "hub/rules/*.py", "hub/table/*.py")
GENERATOR = "glyphs-2"  # bump when the output format or rendering changes
INDEX_BYTES = 514  # the bucket index at the front of CODES: 257 two-byte glyph numbers
MISSING = 0xFFFD

# The number cards' faces, 小字 一..十 then 大字 壹..拾 (card numbers 0..19): in the card font
# and, through the seat's texts (text.all_texts), the UI font.
NUMBER_FACES = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"
# (module name, pixel size, cell height, rows cut off the top of the rendering, cell width)
UI = ("font16", 15, 16, 3, 16)
CARDS = ("font24", 24, 24, 4, 24)


class GlyphError(RuntimeError):
    """The font cannot be built (font file missing, Pillow missing, glyph too wide)."""


def _load_text_module():
    spec = importlib.util.spec_from_file_location("seat_text", TEXT_MODULE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SELF = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
_LITERALS = {}  # (path, size, mtime) -> literals: parsing every hub module was 3 s of each build


def _literals(path):
    """Every string literal of a Python file except docstrings (remembered while the file
    is unchanged)."""
    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _LITERALS:
        _LITERALS[key] = tuple(_parse_literals(path))
    return _LITERALS[key]


def _parse_literals(path):
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value


def hub_texts(root=ROOT):
    """The non-ASCII characters of every string literal the hub side may send to a seat."""
    chars = set()
    for pattern in HUB_TEXT_SOURCES:
        for path in sorted(Path(root).glob(pattern)):
            for s in _literals(path):
                chars.update(ch for ch in s if ord(ch) > 126)
    return chars


def common_hanzi():
    """GB 2312 level 1 (一级常用汉字), 3,755 characters: the rows 0xB0–0xD7 of the code, which
    cover nearly every name on an entry list.  About 120 KB of glyphs in the board's flash.

    >>> h = common_hanzi(); len(h), "张" in h, "李" in h, "王" in h
    (3755, True, True, True)
    """
    chars = set()
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            if hi == 0xD7 and lo > 0xF9:  # the last row of level 1 ends at D7F9
                break
            chars.add(bytes((hi, lo)).decode("gb2312"))
    return chars


def board_hanzi():
    """The hanzi a board's font holds: every ideograph of GBK's two-byte code (GB 18030's
    two-byte set, the CJK Unified Ideographs U+4E00–U+9FA5: 20,902), which holds the 8,105 of
    the 通用规范汉字表 that are in the Basic Multilingual Plane and every GB 2312 character;
    Debian's wqy-microhei draws all of them.  The 通用规范汉字表 itself is not in a Debian
    package, so the set is the larger one that is (``venue check`` lists any name it misses).
    About 650 KB of glyphs in the board's flash (``tests/bench/bench_font.py``).

    >>> h = board_hanzi(); len(h), all(c in h for c in "王鑫昊淼张李")
    (20902, True)
    """
    chars = set()
    for hi in range(0x81, 0xFF):
        for lo in range(0x40, 0xFF):
            if lo == 0x7F:
                continue
            try:
                ch = bytes((hi, lo)).decode("gbk")
            except UnicodeDecodeError:
                continue
            if 0x3400 <= ord(ch) < 0xA000:
                chars.add(ch)
    return chars


def board_chars():
    """Every character the font of a shipped board (``make firmware``) draws."""
    return ui_chars("", True)


def undrawable(names):
    """``[(name, missing characters)]`` for each of ``names`` (players' names) with characters
    a board's font cannot draw (they would show as □); the characters in order, once each.

    >>> undrawable(["王鑫", "张\U0002A6A5"])
    [('张𪚥', ['𪚥'])]
    """
    have = board_chars()
    out = []
    for name in names:
        missing = []
        for ch in name:
            if ch not in have and ch not in missing:
                missing.append(ch)
        if missing:
            out.append((name, missing))
    return out


def ui_chars(extra="", common=True):
    """The characters of ``font16``: UI texts, hub texts, printable ASCII, the common hanzi
    (unless ``common`` is false), ``extra``, U+FFFD."""
    chars = set(chr(c) for c in range(32, 127))
    if common:
        chars.update(board_hanzi())
    for s in _load_text_module().all_texts():
        chars.update(s)
    chars.update(hub_texts())
    chars.update(extra)
    chars.add(chr(MISSING))
    return {ch for ch in chars if ch not in "\n\r\t" and ord(ch) < 0x10000}


def card_chars():
    """The characters of ``font24``: ranks as drawn (10 for T), the suit symbols, the
    jokers' faces (小 / 大 over 王) and the number cards' (一..十, 壹..拾)."""
    mod = _load_text_module()
    chars = set(mod.SUIT_FACES) | set(mod.JOKER_FACES) | set(NUMBER_FACES)
    for rank in "3456789TJQKA2":
        chars.update(mod.rank_face(rank))
    return chars


def _pillow():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise GlyphError("Pillow is not installed: pip install 'pillow>=11,<14'") from None
    if not FONT_FILE.exists():
        raise GlyphError("%s is missing: install the Debian package fonts-wqy-microhei (make test does)" % FONT_FILE)
    return Image, ImageDraw, ImageFont


def render(chars, spec):
    """``{code point: (advance, rows)}`` for ``chars``; rows are HEIGHT ints of cell-width bits."""
    Image, ImageDraw, ImageFont = _pillow()
    _, px, height, top, cell = spec
    font = ImageFont.truetype(str(FONT_FILE), px)
    out = {}
    for ch in sorted(chars):
        cp = ord(ch)
        if cp == MISSING:
            out[cp] = _box(height, cell)
            continue
        img = Image.new("1", (cell * 2, height + top + 8), 0)
        draw = ImageDraw.Draw(img)
        draw.fontmode = "1"  # no anti-aliasing: 1-bit glyphs
        draw.text((0, 0), ch, font=font, fill=1)
        box = img.getbbox()
        if box is not None and box[2] > cell:
            raise GlyphError("glyph %r (U+%04X) is %d px wide; the %d px cell holds %d" % (ch, cp, box[2], px, cell))
        advance = cell if cp >= 0x2E80 else max(1, int(-(-font.getlength(ch) // 1)))  # CJK: full cell
        if ch in "♠♥♣♦":
            advance = cell
        rows = []
        for y in range(top, top + height):
            bits = 0
            for x in range(cell):
                bits = (bits << 1) | (1 if img.getpixel((x, y)) else 0)
            rows.append(bits)
        out[cp] = (advance, rows)
    return out


def _box(height, cell):
    """The glyph drawn for a missing character: a hollow box."""
    w = cell - 4
    rows = []
    for y in range(height):
        if y < 2 or y >= height - 2:
            rows.append(0)
        elif y in (2, height - 3):
            rows.append(((1 << w) - 1) << (cell - w - 1))
        else:
            rows.append((1 << (cell - 2)) | (1 << (cell - w)))
    return cell, rows


def module_source(glyphs, spec, digest):
    """The Python source of a font module for ``glyphs`` (see the module doc)."""
    name, px, height, _, cell = spec
    row = cell // 8
    codes = bytearray()
    widths = bytearray()
    data = bytearray()
    order = sorted(glyphs)
    for cp in order:
        advance, rows = glyphs[cp]
        codes += cp.to_bytes(2, "big")
        widths.append(advance)
        for bits in rows:
            data += bits.to_bytes(row, "big")
    # The index in front of the codes: for each high byte h of a code point, the first glyph
    # whose code is >= h << 8 (257 entries, 2 bytes each): a lookup searches one bucket of
    # about 50 glyphs, not all 4,000 of the common-hanzi font (renders measured 40-60 % slower
    # without it).
    index = bytearray()
    g = 0
    for h in range(257):
        while g < len(order) and order[g] < h << 8:
            g += 1
        index += g.to_bytes(2, "big")
    return (
        "# %s: generated by paizhuo.sim.glyphs from %s at %d px, %d glyphs.\n"
        "# Do not edit: rebuild the firmware (python -m paizhuo.sim.firmware).\n"
        "HEIGHT = %d\nROW = %d\nSOURCE = %r\nCODES = %r\nWIDTHS = %r\nDATA = %r\n"
        % (name, FONT_FILE.name, px, len(glyphs), height, row, digest, bytes(index + codes), bytes(widths),
           bytes(data)))


def digest(chars, spec):
    """sha256 over everything a font module depends on."""
    h = hashlib.sha256()
    h.update(GENERATOR.encode())
    h.update(repr(spec).encode())
    h.update("".join(sorted(chars)).encode())
    if FONT_FILE.exists():
        h.update(str(FONT_FILE.stat().st_size).encode())
    return h.hexdigest()


def build_fonts(dest, extra="", common=True, cache=None):
    """Write ``font16.py`` and ``font24.py`` into ``dest`` (only when their inputs changed);
    ``common``: with every GBK hanzi (:func:`board_hanzi`, what a board ships with).  ``cache``: a
    folder of fonts rendered before, by digest of their inputs (rendering the common hanzi
    takes seconds, and the tests build into many folders).

    Returns the two paths.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    paths = []
    for spec, chars in ((UI, ui_chars(extra, common)), (CARDS, card_chars())):
        path = dest / (spec[0] + ".py")
        d = digest(chars, spec)
        if not (path.exists() and ("SOURCE = %r" % d) in path.read_text(encoding="utf-8")):
            # keyed by this generator's own source too: a change to the rendering is a new font
            kept = Path(cache) / ("%s-%s-%s.py" % (spec[0], d[:32], _SELF[:16])) if cache is not None else None
            if kept is not None and kept.exists():
                text = kept.read_text(encoding="utf-8")
            else:
                text = module_source(render(chars, spec), spec, d)
                if kept is not None:
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    tmp = kept.with_suffix(".tmp%d" % os.getpid())
                    tmp.write_text(text, encoding="utf-8")
                    os.replace(tmp, kept)
            path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def read_module(path):
    """``(codes, widths, data, height, row)`` of a generated font module (for tests and checks)."""
    ns = {}
    exec(compile(Path(path).read_text(encoding="utf-8"), str(path), "exec"), ns)
    raw = ns["CODES"][INDEX_BYTES:]  # past the bucket index
    codes = [int.from_bytes(raw[i:i + 2], "big") for i in range(0, len(raw), 2)]
    return codes, ns["WIDTHS"], ns["DATA"], ns["HEIGHT"], ns["ROW"]
