"""Run the rule and seat-link vectors (tests/vectors/*.jsonl) under MicroPython or CPython.

    python tests/mpy/build.py build/mpy
    MICROPYPATH=build/mpy:.frozen micropython -X heapsize=64k tests/mpy/run_vectors.py tests/vectors
    python tests/mpy/run_vectors.py tests/vectors

Each file is read one line at a time (a 64 KB heap cannot hold a whole file).
Every failure prints ``path:line: note: what went wrong``; the last line is
``vectors: N passed, M failed`` and the exit status is 1 if anything failed.
tests/test_vectors.py imports ``check`` and ``cases`` from here, so CPython and
MicroPython run the same checks.  Keep this file plain: no f-string specs, no
rjust/ljust, no itertools/typing/dataclasses.

The checks themselves live beside the vectors, one module per family:
tests/vectors/game_checks.py (cards_*, bigtwo_*), tests/vectors/guandan_checks.py
(guandan_*), tests/vectors/paohuzi_checks.py (paohuzi_*) and tests/vectors/link_checks.py (link_*).  build.py precompiles them; MicroPython finds only those .mpy files (this
folder, first on its path, holds no checks to compile).  Under MicroPython main()
loads one family at a time and drops the other: a 64 KB heap on the 64-bit unix port
holds the Big Two modules, the Guandan module or the link codec with 4 KB frames in
flight, not two of them.
"""

import gc
import json
import os
import sys

FAMILIES = (("link_", "link_checks", ("paizhuo_shared.link",)),
            ("guandan_", "guandan_checks", ("paizhuo_shared.guandan", "paizhuo_shared.cards")),
            ("paohuzi_", "paohuzi_checks", ("paizhuo_shared.paohuzi", "paizhuo_shared.cards")),
            ("", "game_checks", ("paizhuo_shared.bigtwo", "paizhuo_shared.cards")))


def _family(name):
    for prefix, module, uses in FAMILIES:
        if name.startswith(prefix):
            return module, uses


def _checks(module):
    """The checks module of a family, imported on first use."""
    try:
        return __import__(module)
    except ImportError:  # CPython loaded this file by path (tests/test_vectors.py)
        sys.path.append(__file__.rsplit("/", 2)[0] + "/vectors")
        return __import__(module)


def _switch(name):
    """main(), MicroPython only: drop the other families' modules before a file runs.

    Not on CPython: a second copy of a module in a test process would break other
    tests' exception classes.
    """
    if sys.implementation.name != "micropython":
        return
    keep = _family(name)[0]
    for prefix, module, uses in FAMILIES:
        if module != keep:
            for m in (module,) + uses:
                sys.modules.pop(m, None)
    import paizhuo_shared  # it holds its submodules as attributes too
    for m in dir(paizhuo_shared):
        if type(getattr(paizhuo_shared, m)) is type(sys) and "paizhuo_shared." + m not in sys.modules:
            delattr(paizhuo_shared, m)
    gc.collect()
    _checks(keep)  # now, in one piece, before the cases scatter small objects


def _order(names):
    """Link files first: they need the largest free blocks (4 KB frames).  Then the Guandan
    listing (a list of plays in flight), before other cases scatter strings over the heap."""
    def rank(n):
        if n.startswith("link_"):
            return 0
        if n == "guandan_plays.jsonl":
            return 1
        if n.startswith("guandan_"):
            return 2
        return 3
    return [n for r in range(4) for n in names if rank(n) == r]


def check(name, case):
    """None if the case holds, else what went wrong (a short text)."""
    try:
        return _checks(_family(name)[0]).check(name, case)
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)
    finally:
        gc.collect()


def files(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))


def cases(folder, name):
    """Yield (line number, case or None, error) for each non-blank line of a file."""
    f = open(folder + "/" + name)
    try:
        n = 0
        while True:
            line = f.readline()
            if not line:
                break
            n += 1
            line = line.strip()
            if not line:
                continue
            try:
                case = json.loads(line)
            except ValueError as e:
                case = None
                err = "bad JSON: %s" % (e,)
            line = None  # free the text before the case runs
            if case is None:
                yield n, None, err
            else:
                yield n, case, None
    finally:
        f.close()


def main(argv):
    """``run_vectors.py VECTOR_DIR [FAMILY]``: every file, or only those of one family (its
    checks module's name, e.g. ``link_checks``).  tests/test_vectors.py runs each family in
    its own process: the qstrs a family interns stay for good (MicroPython never frees
    them), so a family run first in the same process shrinks the heap of the next."""
    if len(argv) not in (2, 3):
        print("usage: run_vectors.py VECTOR_DIR [FAMILY]")
        return 2
    folder = argv[1]
    names = _order(files(folder))
    if len(argv) == 3:
        names = [n for n in names if _family(n)[0] == argv[2]]
        if not names:
            print("no vectors of family %s in %s" % (argv[2], folder))
            return 2
    ok = bad = 0
    for name in names:
        _switch(name)
        for n, case, err in cases(folder, name):
            note = ""
            if case is not None:
                note = case.get("note", "")
                err = check(name, case)
            if err is None:
                ok += 1
            else:
                bad += 1
                print("%s/%s:%d: %s: %s" % (folder, name, n, note, err))
    if ok + bad == 0:
        print("no .jsonl vectors in %s" % folder)
        bad = 1
    print("vectors: %d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
