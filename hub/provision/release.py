"""Seat firmware releases (``make firmware``): a folder with the image, its files and a manifest.

    python -m paizhuo.provision.release [OUT]      # default build/release → OUT/paizhuo-seat-<version>-<commit>/

A release folder holds:

- ``seat.romfs``: the ROMFS image staff push to boards (``paizhuo provision push``);
- ``rom/``: every file inside the image (the ``.mpy`` files and the generated fonts), for reading;
- ``boot/``: the files that stay on a board's filesystem and are never replaced by an update
  (``main.py``, ``boot.py``, ``updater.py``: copied once at bring-up, hardware/README.md);
- ``manifest.json``: the version (the firmware's ``FIRMWARE``), the git commit, the boards it
  runs on, the MicroPython version and ``.mpy`` bytecode version it needs, and every file
  above with its size and sha256 (the image too).

Reproducible: the same commit builds byte-identical manifests and images (no times, sorted
names, mpy-cross and the ROMFS writer are deterministic; ``tests/test_release.py`` builds twice).
"""

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import CodedError
from ..sim import firmware

ROOT = firmware.ROOT
FORMAT = 1
MICROPYTHON = "1.29"  # the MicroPython the firmware is tested with (tests: the unix port's wheel)
BOARDS = ["ref-s3", "host"]  # the image holds both board layers (seat.json's "board" picks one)
BOOT_FILES = ("main.py", "boot.py", "updater.py")
DEFAULT_OUT = ROOT / "build" / "release"


class ReleaseError(CodedError):
    """A release that cannot be built or used (damaged, incomplete, not a release)."""


def version():
    """The firmware's version: ``FIRMWARE`` in device/seat/link.py (what a seat's hello reports)."""
    m = re.search(r'^FIRMWARE = "([^"]+)"', (ROOT / "device" / "seat" / "link.py").read_text(), re.M)
    return m.group(1)


def commit():
    """The git commit of the checkout (``-dirty`` if device/ or shared/ differ from it); "unknown" outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "device", "shared"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("-dirty" if dirty and head else "")


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def mpy_version(path):
    """The bytecode version of an .mpy file (its second byte)."""
    return Path(path).read_bytes()[1]


def build_release(out=None, common_hanzi=True, rev=None):
    """Build the firmware and write a release folder under ``out``; return its path."""
    out = Path(out or DEFAULT_OUT)
    rev = rev or commit()
    ver = version()
    name = "paizhuo-seat-%s-%s" % (ver, rev[:12])
    with tempfile.TemporaryDirectory(prefix="fw-", dir=str(out.parent) if out.parent.exists() else None) as tmp:
        fw = firmware.build(Path(tmp) / "fw", common_hanzi=common_hanzi, cache=False)  # from nothing
        dest = out / name
        if dest.exists():
            shutil.rmtree(dest)
        (dest / "boot").mkdir(parents=True)
        shutil.copytree(fw.folder / "rom", dest / "rom")
        shutil.copyfile(fw.image, dest / "seat.romfs")
        for f in BOOT_FILES:
            shutil.copyfile(ROOT / "device" / f, dest / "boot" / f)
        mpy = mpy_version(fw.folder / "rom" / "main.mpy")
    files = []
    for p in sorted(dest.rglob("*")):
        if p.is_file() and p.name != "manifest.json":
            data = p.read_bytes()
            files.append({"path": p.relative_to(dest).as_posix(), "size": len(data), "sha256": _sha(data)})
    image = (dest / "seat.romfs").read_bytes()
    manifest = {"format": FORMAT, "name": "paizhuo-seat", "version": ver, "commit": rev, "boards": BOARDS,
                "micropython": MICROPYTHON, "mpy": mpy,
                "image": {"path": "seat.romfs", "size": len(image), "sha256": _sha(image)},
                "boot": ["boot/" + f for f in BOOT_FILES], "files": files}
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return dest


class Release:
    """A checked release folder: ``folder``, ``manifest``, ``image`` (bytes)."""

    def __init__(self, folder, manifest, image):
        self.folder = folder
        self.manifest = manifest
        self.image = image

    @property
    def version(self):
        return self.manifest["version"]

    @property
    def sha(self):
        return self.manifest["image"]["sha256"]


def _entry_ok(e):
    """A file entry: a relative path inside the release, a size, a sha256."""
    return (isinstance(e, dict) and isinstance(e.get("path"), str) and e["path"] and not e["path"].startswith("/")
            and ".." not in e["path"].split("/") and type(e.get("size")) is int and e["size"] >= 0
            and isinstance(e.get("sha256"), str) and len(e["sha256"]) == 64)


def _shape_ok(m):
    return (isinstance(m, dict) and m.get("format") == FORMAT and isinstance(m.get("version"), str)
            and isinstance(m.get("commit"), str) and type(m.get("mpy")) is int
            and isinstance(m.get("boards"), list) and all(isinstance(b, str) for b in m["boards"])
            and _entry_ok(m.get("image")) and isinstance(m.get("files"), list) and all(_entry_ok(e) for e in m["files"]))


def load_release(folder):
    """Read and check a release folder: the manifest's shape, and every file's size and sha256
    (the image's too).  ReleaseError (en + zh) otherwise."""
    folder = Path(folder)
    path = folder / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReleaseError("not_release", "%s is not a firmware release (no readable manifest.json: %s): give the "
                           "folder `make firmware` made, like build/release/paizhuo-seat-…" % (folder, e),
                           "%s 不是固件版本文件夹（无法读取 manifest.json：%s）：请给出 make firmware 生成的文件夹"
                           % (folder, e)) from None
    if not _shape_ok(manifest):
        raise ReleaseError("not_release", "%s is not a release manifest of format %d" % (path, FORMAT),
                           "%s 不是格式 %d 的固件清单" % (path, FORMAT))
    for entry in manifest["files"] + [manifest["image"]]:
        p = folder / entry["path"]
        try:
            data = p.read_bytes()
        except OSError:
            raise ReleaseError("release_damaged", "release file %s is missing: copy the whole release folder again"
                               % p, "版本文件 %s 缺失：请重新复制整个版本文件夹" % p) from None
        if len(data) != entry["size"] or _sha(data) != entry["sha256"]:
            raise ReleaseError("release_damaged", "release file %s does not match its manifest (checksum mismatch): "
                               "copy the release again; nothing was sent to any board" % p,
                               "版本文件 %s 与清单不符（校验不符）：请重新复制版本；未向任何板子发送" % p)
    image = (folder / manifest["image"]["path"]).read_bytes()
    return Release(folder, manifest, image)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        dest = build_release(argv[0] if argv else None)
    except (firmware.FirmwareError, OSError) as e:
        print("release: %s" % e, file=sys.stderr)
        return 1
    m = json.loads((dest / "manifest.json").read_text())
    print("%s\n  version %s, commit %s, image %d bytes sha256 %s, %d files" % (
        dest, m["version"], m["commit"][:12], m["image"]["size"], m["image"]["sha256"][:16], len(m["files"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
