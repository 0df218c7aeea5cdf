"""Every ``paizhuo`` command that reads a file or an argument, fed hostile JSON, TOML, text and
numbers: each must exit 2 with a message in English and Chinese, print no traceback and nothing
on standard output, and leave its files as they were.

The property tests run the real command line in-process (``paizhuo.cli.main``); the regression
tests of the reported faults run the installed ``paizhuo`` as a subprocess.
"""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paizhuo.cli import main
from paizhuo.rules import GAMES, oracle

PAIZHUO = str(Path(sys.executable).with_name("paizhuo"))
CJK = re.compile(r"[\u4e00-\u9fff]")
LONG_SECRET = "text:a secret of sixteen bytes or more"


def cli(*argv):
    """Run ``paizhuo ARGV`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def assert_refused(rc, out, err, want=2):
    assert rc == want, (rc, out, err)
    assert "Traceback" not in err and "Error:" not in err, err
    assert CJK.search(err) and re.search(r"[a-z]{3} [a-z]{3}", err), err    # both languages
    assert out == "" or want != 2, out


# ---- hostile documents ----------------------------------------------------------------------------

def _nest(n, kind):
    return ("[" * n + "]" * n) if kind == "list" else ('{"a":' * n + "1" + "}" * n)


BAD_STRINGS = ["\\u0000", "\\ud800", "a\\udfffb", "\\udc80x"]

HOSTILE_JSON = st.one_of(
    st.builds(_nest, st.integers(33, 30000), st.sampled_from(["list", "dict"])),
    st.builds(lambda s: '["P1", "P2", "%s"]' % s, st.sampled_from(BAD_STRINGS)),
    st.builds(lambda s: '[{"player": "%s", "board": 1}]' % s, st.sampled_from(BAD_STRINGS)),
    st.builds(lambda n: '[{"player": 1, "score": %s}]' % n,
              st.sampled_from(["1e400", "-1e999", "NaN", "Infinity", "1" + "0" * 400, "9007199254740993"])),
    st.builds(lambda n: '{"players": [1, 2], "x": %s}' % _nest(n, "list"), st.integers(33, 5000)),
).map(lambda t: t.encode("utf-8")) | st.sampled_from([b"\xff\xfe[1]", b'["\xc3"]', b"[1, 2,"])

HOSTILE_TOML = st.one_of(
    st.builds(lambda n: "a = " + "[" * n + "]" * n, st.integers(33, 30000)),
    st.builds(lambda n: "a = " + "{b = " * n + "1" + "}" * n, st.integers(33, 3000)),
    st.builds(lambda n: "[" + ".".join(["k"] * n) + "]\nx = 1", st.integers(33, 400)),
    st.builds(lambda s: '[table]\nid = "7"\nname = "%s"\n' % s, st.sampled_from(BAD_STRINGS)),
    st.builds(lambda n: "[table]\nx = %s\n" % n, st.sampled_from(["inf", "-inf", "nan", "1e999", "1" + "0" * 400])),
).map(lambda t: t.encode("utf-8")) | st.sampled_from([b"\xff = 1", b'a = "\xc3"'])


class Files:
    """A folder with good files to combine with one hostile one."""

    def __init__(self, root):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.players = self.write("players.json", b'["P1", "P2", "P3", "P4"]')
        self.matches = self.write("matches.json", b"[]")
        self.sides = self.write("sides.json", json.dumps([{"side": i, "name": "S%d" % i} for i in range(1, 5)]).encode())
        self.table = self.root / "table.toml"
        if not self.table.exists():
            rc, out, err = cli("provision", "table", "--table", "7", "--hub", "T07", "--devices",
                               "S-0001:E,S-0002:N,S-0003:W,S-0004:S", "--ports", "/dev/a,/dev/b,/dev/c,/dev/d",
                               "--out-dir", self.root)
            assert rc == 0, err

    def write(self, name, data):
        p = self.root / name
        p.write_bytes(data)
        return p

    def snapshot(self):
        return {str(p): p.read_bytes() for p in sorted(self.root.rglob("*")) if p.is_file()}


FILES = {}


def files(tmp_path_factory):
    if "f" not in FILES:
        FILES["f"] = Files(tmp_path_factory.mktemp("inputs_cli"))
    return FILES["f"]


def JSON_COMMANDS(f, bad):
    return [
        ("score", "--input", bad),
        ("score", "--input", bad, "--output", f.root / "standings.json"),
        ("movement", "--round", "1", "--players", bad, "--secret", LONG_SECRET),
        ("movement", "--round", "2", "--players", f.players, "--standings", bad),
        ("movement", "--round", "2", "--players", f.players, "--standings", f.players, "--history", bad),
        ("guandan", "standings", "--input", bad),
        ("guandan", "pair", "--round", "1", "--input", bad, "--sides", f.sides, "--secret", LONG_SECRET),
        ("guandan", "pair", "--round", "1", "--input", f.matches, "--sides", bad, "--secret", LONG_SECRET),
    ]


def TOML_COMMANDS(f, bad):
    return [
        ("hub", "--config", bad),
        ("hub", "results", "--config", bad),
        ("venue", "--event", bad),
        ("venue", "check", "--event", bad),
        ("provision", "check", "--config", bad, "--board", f.root / "S-0001" / "seat.json"),
    ]


HOSTILE_FILES = st.one_of(st.tuples(st.just(("hostile.json", JSON_COMMANDS)), HOSTILE_JSON, st.integers(0, 7)),
                          st.tuples(st.just(("hostile.toml", TOML_COMMANDS)), HOSTILE_TOML, st.integers(0, 4)))


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(case=HOSTILE_FILES)
def test_commands_reading_a_file_refuse_hostile_ones(tmp_path_factory, case):
    (name, commands), data, which = case
    f = files(tmp_path_factory)
    bad = f.write(name, data)
    before = f.snapshot()
    assert_refused(*cli(*commands(f, bad)[which]))
    assert f.snapshot() == before         # nothing written (not even score's --output)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=HOSTILE_JSON)
def test_a_hostile_board_file_is_a_mismatch_with_both_languages(tmp_path_factory, data):
    f = files(tmp_path_factory)
    bad = f.write("seat-hostile.json", data)
    rc, out, err = cli("provision", "check", "--config", f.table, "--board", bad)
    assert rc == 1 and "MISMATCH" in out and CJK.search(out) and "Traceback" not in err, (out, err)


NUMBERS = st.one_of(st.integers(10 ** 6, 10 ** 40).map(str), st.sampled_from(["1e30", "0", "-1", "1.5", "x", "", "١"]))


@settings(max_examples=40, deadline=None)
@given(value=NUMBERS, which=st.integers(0, 3))
def test_round_and_group_options_refuse_absurd_numbers(value, which):
    f = FILES.get("f")
    players = str(f.players) if f else "players.json"
    argv = [("movement", "--round", value, "--players", players),
            ("guandan", "pair", "--round", value, "--input", "m.json", "--sides", "s.json"),
            ("provision", "table", "--table", "7", "--hub", "T07", "--devices", "S-1:E", "--ports", "/dev/a",
             "--out-dir", "/nonexistent", "--round", value),
            ("movement", "--round", "1", "--players", players, "--tables-per-group", value)][which]
    rc, out, err = cli(*argv)
    assert rc == 2 and out == "" and "Traceback" not in err
    assert "must be a whole number" in err and "整数" in err, err


SURROGATE_ARGS = st.builds(lambda a, b: a + b, st.text(max_size=5), st.sampled_from(["\udcff", "\udc80", "\ud800"]))


@settings(max_examples=30, deadline=None)
@given(text=SURROGATE_ARGS, which=st.integers(0, 4))
def test_arguments_that_are_not_utf8_are_refused(text, which):
    # a byte that is not UTF-8 in argv reaches Python as a lone surrogate
    argv = [("movement", "--round", "1", "--players", "p.json", "--secret", text),
            ("deals", "--secret", text, "--game", "bigtwo", "--boards", "1"),
            ("rules", "classify", "bigtwo", text),
            ("guandan", "pair", "--round", "1", "--input", "m.json", "--sides", "s.json", "--secret", text),
            ("provision", "board", "--dev", text, "--out", "/nonexistent/seat.json")][which]
    assert_refused(*cli(*argv))


@settings(max_examples=40, deadline=None)
@given(text=st.one_of(st.builds(_nest, st.integers(33, 20000), st.sampled_from(["list", "dict"])),
                      st.sampled_from(['{"a": 1e400}', '{"a": NaN}', '{"a": "\\u0000"}', '{"a": "\\ud800"}',
                                       '{"a": 1%s}' % ("0" * 400)])))
def test_rules_option_refuses_hostile_json(text):
    assert_refused(*cli("rules", "classify", "bigtwo", "3D", "--rules", text))


# ---- rules serve -------------------------------------------------------------------------------------

HOSTILE_LINES = st.one_of(
    st.builds(_nest, st.integers(33, 30000), st.sampled_from(["list", "dict"])).map(str.encode),
    st.builds(lambda s: ('{"op": "classify", "game": "bigtwo", "cards": ["%s"]}' % s).encode(), st.sampled_from(BAD_STRINGS)),
    st.builds(lambda s: ('{"op": "%s"}' % s).encode(), st.sampled_from(BAD_STRINGS)),
    st.builds(lambda n: ('{"op": "games", "x": %s}' % n).encode(), st.sampled_from(["1e400", "NaN", "1" + "0" * 400])),
    st.binary(max_size=30).filter(lambda b: b"\n" not in b and b.strip()),
)


@settings(max_examples=80, deadline=None)
@given(lines=st.lists(HOSTILE_LINES, min_size=1, max_size=4))
def test_rules_serve_answers_every_hostile_line_and_carries_on(lines):
    inp = io.BytesIO(b"".join(line + b"\n" for line in lines) + b'{"op": "games"}\n')
    out = io.StringIO()
    oracle.serve(inp, out)
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert len(answers) == len(lines) + 1
    assert answers[-1] == {"ok": True, "games": sorted(GAMES)}
    for a in answers[:-1]:
        assert a["ok"] is False and a["error"]
        json.dumps(a).encode("utf-8")      # the answer itself is writable UTF-8 (no lone surrogate echoed)
        out.getvalue().encode("utf-8")


# ---- the reported faults, as subprocesses ---------------------------------------------------------------

def run(*argv, stdin=None):
    return subprocess.run([PAIZHUO, *map(str, argv)], input=stdin, capture_output=True, timeout=60)


DEEP = "[" * 30000 + "]" * 30000


def test_deep_json_in_score_and_movement_is_refused_without_a_traceback(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    for argv in (("score", "--input", deep), ("movement", "--round", "1", "--players", deep)):
        p = run(*argv)
        err = p.stderr.decode()
        assert p.returncode == 2 and "Traceback" not in err and "nested" in err and "嵌套" in err, err


def test_rules_serve_survives_a_deep_line():
    p = run("rules", "serve", stdin=(DEEP + "\n" + '{"op": "games"}\n').encode())
    answers = [json.loads(a) for a in p.stdout.decode().splitlines()]
    assert p.returncode == 0 and len(answers) == 2, p.stderr
    assert answers[0]["ok"] is False and answers[1]["ok"] is True


def test_a_deep_array_in_table_toml_is_refused(tmp_path):
    cfg = tmp_path / "table.toml"
    cfg.write_text("a = " + DEEP + "\n")
    p = run("hub", "--config", cfg)
    err = p.stderr.decode()
    assert p.returncode == 2 and "Traceback" not in err and "嵌套" in err, err


def test_a_one_byte_secret_in_table_toml_is_refused(tmp_path):
    cfg = tmp_path / "table.toml"
    rc, out, err = cli("hub", "example")
    cfg.write_text(re.sub(r'secret = ".*"', 'secret = "text:x"', out))
    p = run("hub", "--config", cfg)
    err = p.stderr.decode()
    assert p.returncode == 2 and "deals.secret" in err and "16" in err and "密钥" in err, err


def test_movement_refuses_a_weak_secret_and_an_absurd_round(tmp_path):
    players = tmp_path / "players.json"
    players.write_text('["P1", "P2", "P3", "P4"]')
    p = run("movement", "--round", "1", "--players", players, "--secret", "text:ab")
    assert p.returncode == 2 and p.stdout == b"" and "16" in p.stderr.decode() and "密钥" in p.stderr.decode()
    p = run("movement", "--round", "1e30", "--players", players)
    assert p.returncode == 2 and p.stdout == b"" and "整数" in p.stderr.decode()
    p = run("movement", "--round", "1" + "0" * 30, "--players", players)
    assert p.returncode == 2 and p.stdout == b"" and "整数" in p.stderr.decode()


def test_a_score_of_ten_to_the_400_is_refused(tmp_path):
    rows = tmp_path / "results.json"
    rows.write_text('[{"player": "P1", "board": 1, "seat": "E", "table": 1, "score": 1%s, "think_ms": 0}]' % ("0" * 400))
    p = run("score", "--input", rows)
    err = p.stderr.decode()
    assert p.returncode == 2 and p.stdout == b"" and "401 digits" in err and "数字" in err, err


def test_a_player_name_with_nul_is_refused(tmp_path):
    rc, out, err = cli("venue", "example")
    event = tmp_path / "event.toml"
    event.write_text(out + '\n[[players]]\nid = "P9"\nname = "bad\\u0000name"\n')
    p = run("venue", "check", "--event", event)
    err = p.stderr.decode()
    assert p.returncode == 2 and "NUL" in err and "NUL 字符" in err, err


@pytest.mark.parametrize("name", ["passwd", "acl", "mosquitto.conf", "venue.pass"])
def test_broker_check_refuses_a_file_that_is_not_utf8(tmp_path, name):
    rc, out, err = cli("broker", "config", "--event", "demo", "--hubs", "T01,T02", "--out", tmp_path / "b")
    assert rc == 0, err
    path = tmp_path / "b" / name
    path.write_bytes(b"\xff\xfe" + path.read_bytes())
    before = path.read_bytes()
    p = run("broker", "check", "--dir", tmp_path / "b")
    err = p.stderr.decode()
    assert p.returncode == 2 and "Traceback" not in err and "UTF-8" in err and CJK.search(err), err
    assert path.read_bytes() == before


def test_venue_pin_refuses_a_pin_that_is_not_text():
    for pin in (b"\xff\xfe123456\n", b"12\x003456\n"):
        p = run("venue", "pin", "--pin-stdin", stdin=pin)
        err = p.stderr.decode()
        assert p.returncode == 2 and p.stdout == b"" and "Traceback" not in err and "PIN" in err, err
