"""Issue #13: seat firmware releases (``make firmware``) are reproducible, complete and load on
the MicroPython unix port.

The two builds here leave out the 3,755 common hanzi of a shipped font (``common_hanzi``) to
keep the test fast: the code path is the same, only the font is smaller.
"""

import json
import subprocess

import pytest

from paizhuo.provision.release import BOOT_FILES, ReleaseError, build_release, load_release
from paizhuo.sim.firmware import DEVICE, Firmware, find_tool, run_snippet

pytestmark = pytest.mark.micropython


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    a = build_release(tmp_path_factory.mktemp("a"), common_hanzi=False, rev="f" * 40)
    b = build_release(tmp_path_factory.mktemp("b"), common_hanzi=False, rev="f" * 40)
    return a, b


def test_two_builds_of_one_commit_are_byte_identical(two):
    a, b = two
    assert a.name == b.name == "paizhuo-seat-%s-ffffffffffff" % json.loads((a / "manifest.json").read_text())["version"]
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    assert (a / "seat.romfs").read_bytes() == (b / "seat.romfs").read_bytes()


def test_the_manifest_names_every_file_with_its_checksum(two):
    a, _ = two
    m = json.loads((a / "manifest.json").read_text())
    listed = {f["path"] for f in m["files"]}
    on_disk = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file() and p.name != "manifest.json"}
    assert listed == on_disk
    assert {"seat.romfs", "rom/main.mpy", "rom/lib/seat/app.mpy", "boot/updater.py"} <= listed
    assert m["commit"] == "f" * 40 and m["micropython"] == "1.29" and m["mpy"] == 6 and "ref-s3" in m["boards"]
    assert load_release(a).sha == m["image"]["sha256"]


def test_a_damaged_release_is_refused_before_anything_is_sent(two, tmp_path):
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(two[0], copy)
    data = bytearray((copy / "seat.romfs").read_bytes())
    data[1000] ^= 1
    (copy / "seat.romfs").write_bytes(bytes(data))
    with pytest.raises(ReleaseError) as e:
        load_release(copy)
    assert e.value.code == "release_damaged" and "checksum" in e.value.en and "校验" in e.value.zh
    with pytest.raises(ReleaseError) as e:
        load_release(tmp_path)
    assert e.value.code == "not_release" and "make firmware" in e.value.en


def test_every_release_file_loads_under_the_unix_port(two, tmp_path):
    a, _ = two
    tool = find_tool("mpy-cross")
    # The unix port's loader, beside the release as on a test machine (it is no release file).
    subprocess.run([tool, "-o", str(tmp_path / "hostboot.mpy"), str(DEVICE / "hostboot.py")], check=True)
    fw = Firmware(a, a / "seat.romfs", tmp_path / "hostboot.mpy", {})
    modules = []
    for p in sorted((a / "rom" / "lib").rglob("*.mpy")):
        name = p.relative_to(a / "rom" / "lib").with_suffix("").as_posix().replace("/", ".")
        modules.append(name[:-len(".__init__")] if name.endswith(".__init__") else name)
    # One module at a time, each dropped again (they would not all fit one heap at once);
    # the reference board's drivers need its machine.Pin/SPI/I2C, absent on the unix port.
    code = ("import sys\nfor m in %r:\n    try:\n        __import__(m)\n        print('loaded', m)\n"
            "    except ImportError as e:\n        print('needs', m, e)\n"
            "    for k in list(sys.modules):\n        if k.startswith('seat') or k.startswith('board'):\n"
            "            del sys.modules[k]\n" % modules)
    out = run_snippet(fw, code, data_heap=512 * 1024)
    assert out.returncode == 0, out.stdout + out.stderr
    loaded = {ln.split()[1] for ln in out.stdout.splitlines() if ln.startswith("loaded ")}
    needs = {ln.split()[1] for ln in out.stdout.splitlines() if ln.startswith("needs ")}
    assert needs <= {"board.ref_s3", "board.st7796", "board.ft6206"}, out.stdout
    assert loaded | needs == set(modules) and "seat.service" in loaded and "seat.app" in loaded
    for f in BOOT_FILES:  # the files that stay on a board's filesystem compile for MicroPython
        r = subprocess.run([tool, "-o", str(tmp_path / (f + ".mpy")), str(a / "boot" / f)], capture_output=True)
        assert r.returncode == 0, r.stderr


def test_a_cached_build_is_the_release_image_byte_for_byte(two, tmp_path):
    # The tests' builds reuse compiled modules and fonts (build/mpycache); a release never
    # does.  Both must give the same image, or the tests would be testing something else.
    from paizhuo.sim.firmware import build
    build(tmp_path / "warm", common_hanzi=False)  # fills the cache if it was empty
    cached = build(tmp_path / "cached", common_hanzi=False)
    assert cached.image.read_bytes() == (two[0] / "seat.romfs").read_bytes()
