"""`paizhuo score`: results in, standings out, run as a real process on real files.

Good input in JSON, CSV and HTML; every kind of bad input is refused with a message naming the
row, exit code 2, and no output file (an existing one is left as it was).
"""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = json.loads((ROOT / "tests" / "vectors" / "scoring_cases.json").read_text(encoding="utf-8"))
KEYS = ("player", "board", "seat", "table", "score", "think_ms")


def rows_of(name):
    case = next(c for c in CASES["valid"] if c["name"] == name)
    return [dict(zip(KEYS, r)) if isinstance(r, list) else r for r in case["rows"]]


def paizhuo(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "paizhuo.cli", "score", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.fixture
def seed_file(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows_of("seed_example")), encoding="utf-8")
    return path


def test_json_to_stdout(seed_file):
    proc = paizhuo("--input", str(seed_file))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [(p["player"], p["rank"], p["R"]) for p in out["players"]] == [(2, 1, 58.3), (1, 2, 50.0), (3, 3, 41.7)]
    p1 = out["players"][1]
    assert {b: (v["mp"], v["rate"], v["place"]) for b, v in p1["boards"].items()} == \
        {"1": (2, 50.0, 2), "2": (3, 75.0, 1), "3": (1, 25.0, 2)}


def test_results_object_and_stdin(seed_file):
    text = json.dumps({"event": "demo", "results": rows_of("seed_example")})
    proc = paizhuo("--input", "-", stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(paizhuo("--input", str(seed_file)).stdout)


def test_csv_to_file(seed_file, tmp_path):
    out = tmp_path / "standings.csv"
    proc = paizhuo("--input", str(seed_file), "--format", "csv", "--output", str(out))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    lines = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["player"], r["rank"], r["R"]) for r in lines] == [("2", "1", "58.3"), ("1", "2", "50.0"),
                                                                  ("3", "3", "41.7")]
    assert (lines[0]["3_mp"], lines[0]["3_rate"], lines[0]["3_place"]) == ("4", "100.0", "1")
    assert out.stat().st_mode & 0o777 != 0o600  # written like any file, not with mkstemp's private mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json", "standings.csv"]  # no temporary left


def test_html_to_file(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows_of("tiebreak_trimmed_time_then_playoff")), encoding="utf-8")
    out = tmp_path / "standings.html"
    proc = paizhuo("--input", str(path), "--format", "html", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert "需加赛 play-off needed: A、B" in page
    assert "<td>50.0</td>" in page


def test_expected_applies_neuberg(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows_of("neuberg_sole_top")), encoding="utf-8")
    for arg in ("11", "1=11"):
        proc = paizhuo("--input", str(path), "--expected", arg)
        assert proc.returncode == 0, proc.stderr
        top = json.loads(proc.stdout)["players"][0]["boards"]["1"]
        assert (top["mp"], top["mp_exact"], top["top"], top["rate"]) == (19.9, "199/10", 20, 99.5)
    proc = paizhuo("--input", str(path))
    assert json.loads(proc.stdout)["players"][0]["boards"]["1"]["top"] == 18


BAD = [
    ("score 3.5", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 0, "think_ms": 0},
                   {"player": 2, "board": 1, "seat": "E", "table": 2, "score": 3.5, "think_ms": 0}],
     "row 2 (player 2, board 1): score must be a whole number"),
    ("score 3.0", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 3.0, "think_ms": 0}],
     "row 1 (player 1, board 1): score must be a whole number"),
    ("unknown seat", [{"player": 1, "board": 1, "seat": "东", "table": 1, "score": 0, "think_ms": 0}],
     "row 1 (player 1, board 1): unknown seat '东'"),
    ("seat taken twice", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 0, "think_ms": 0},
                          {"player": 2, "board": 1, "seat": "E", "table": 1, "score": 0, "think_ms": 0}],
     "row 2 (player 2, board 1): table 1 seat E already has a result on board 1 in row 1"),
    ("player twice", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 0, "think_ms": 0},
                      {"player": 1, "board": 1, "seat": "N", "table": 1, "score": 0, "think_ms": 0}],
     "row 2 (player 1, board 1): player 1 already has a result on board 1 in row 1"),
    ("missing think time", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 0}],
     "row 1 (player 1, board 1): missing field 'think_ms'"),
    ("negative think time", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 0, "think_ms": -5}],
     "row 1 (player 1, board 1): think_ms must be at least 0"),
    ("not a row", [{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 0, "think_ms": 0}, 17],
     "row 2: a result row must be an object"),
]


@pytest.mark.parametrize("name,rows,says", BAD, ids=[b[0] for b in BAD])
def test_bad_rows_are_refused(tmp_path, name, rows, says):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    out = tmp_path / "standings.json"
    proc = paizhuo("--input", str(path), "--output", str(out))
    assert proc.returncode == 2
    assert says in proc.stderr
    assert "第 " in proc.stderr  # the Chinese line too
    assert proc.stdout == ""
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]  # no temporary file left either


def test_bad_input_leaves_an_existing_output_alone(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('[{"player": 1, "board": 1, "seat": "E", "table": 1, "score": "7", "think_ms": 0}]')
    out = tmp_path / "standings.csv"
    out.write_text("yesterday's standings\n")
    proc = paizhuo("--input", str(path), "--format", "csv", "--output", str(out))
    assert proc.returncode == 2 and "row 1" in proc.stderr
    assert out.read_text() == "yesterday's standings\n"


@pytest.mark.parametrize("text,says", [
    ("[1, 2", "not valid JSON"),
    ('{"rows": []}', "without \"results\""),
    ('"results"', "JSON array"),
    ('[{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 1, "score": 2, "think_ms": 0}]',
     "row 1: the key 'score' is given twice"),
    ('[{"player": 1, "board": 1, "seat": "E", "table": 1, "score": NaN, "think_ms": 0}]',
     "NaN is not JSON"),
])
def test_bad_files_are_refused(tmp_path, text, says):
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    proc = paizhuo("--input", str(path))
    assert proc.returncode == 2 and says in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("args,says", [
    (["--expected", "0"], "at least 1"),
    (["--expected", "x"], "at least 1"),
    (["--expected", "Z=3"], "group 'Z'"),
    (["--expected", "3", "--expected", "4"], "given twice"),
])
def test_bad_expected_is_refused(seed_file, args, says):
    proc = paizhuo("--input", str(seed_file), *args)
    assert proc.returncode == 2 and says in proc.stderr


def test_exact_ties_option(tmp_path):
    # X: R 7/12 exactly in group "a" (rates 50, 75, 50); Y: 58.26 % in group "b" (11 deals, 12 tables):
    # equal to one decimal, so by default Y's six deal firsts put Y first; --exact-ties puts X first.
    rows = []
    for b, scores in enumerate(((0, 1, -1), (5, 5, 0), (0, 1, -1)), 1):
        for t, s in enumerate(scores, 1):
            rows.append({"player": "X" if t == 1 else "a%d" % t, "board": b, "seat": "E", "table": t,
                         "score": s, "think_ms": 0, "group": "a"})
    for b, m in enumerate([22] * 6 + [9] + [0] * 4, 1):
        y, others = {22: (1, [0] * 11), 9: (0, [-1] * 4 + [0] + [1] * 6), 0: (-1, [0] * 11)}[m]
        for t, s in enumerate([y] + others, 1):
            rows.append({"player": "Y" if t == 1 else "b%d" % t, "board": b, "seat": "E", "table": t,
                         "score": s, "think_ms": 0, "group": "b"})
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")

    def near_tie(*args):
        proc = paizhuo("--input", str(path), *args)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        return out["exact_ties"], [(p["player"], p["R"], p["decided_by"]) for p in out["players"] if p["R"] == 58.3]

    assert near_tie() == (False, [("Y", 58.3, "places"), ("X", 58.3, "places")])
    assert near_tie("--exact-ties") == (True, [("X", 58.3, "R"), ("Y", 58.3, "R")])


def test_missing_input_file(tmp_path):
    proc = paizhuo("--input", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "cannot read the input" in proc.stderr


def test_unwritable_output(seed_file, tmp_path):
    proc = paizhuo("--input", str(seed_file), "--output", str(tmp_path / "no-such-folder" / "x.json"))
    assert proc.returncode == 2 and "cannot write" in proc.stderr


def test_output_over_the_input_is_refused(seed_file):
    before = seed_file.read_text()
    proc = paizhuo("--input", str(seed_file), "--output", str(seed_file))
    assert proc.returncode == 2 and "is the input file" in proc.stderr
    assert seed_file.read_text() == before


def test_json_output_is_one_player_per_line(seed_file):
    proc = paizhuo("--input", str(seed_file))
    lines = proc.stdout.splitlines()
    assert lines[0].startswith('{"format": "paizhuo.standings/1"') and lines[-1] == "]}"
    assert [json.loads(line.rstrip(","))["player"] for line in lines[1:-1]] == [2, 1, 3]
