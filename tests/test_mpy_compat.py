"""Every .py file under shared/ and device/ compiles with mpy-cross (the MicroPython compiler).

One test per file: the files git tracks there plus any present on disk (new, not yet added).
"""

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("shared", "device")

_spec = importlib.util.spec_from_file_location("mpy_build", ROOT / "tests" / "mpy" / "build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


def _python_files():
    found = set()
    try:
        out = subprocess.run(["git", "ls-files", "--", *FOLDERS], cwd=ROOT, capture_output=True,
                             text=True, timeout=30)
        if out.returncode == 0:
            found.update(p for p in out.stdout.splitlines() if p.endswith(".py") and (ROOT / p).exists())
    except OSError:
        pass  # no git: the files on disk are enough
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if "__pycache__" not in path.parts:
                found.add(path.relative_to(ROOT).as_posix())
    return sorted(found)


FILES = _python_files()


def test_shared_files_are_found():
    assert "shared/bigtwo.py" in FILES


@pytest.mark.parametrize("rel", FILES)
def test_compiles_with_mpy_cross(rel, tmp_path):
    build.compile_file(ROOT / rel, tmp_path / (Path(rel).stem + ".mpy"))
