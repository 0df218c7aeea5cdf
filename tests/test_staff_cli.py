"""What venue staff see at the terminal: every message in Chinese and English (issue 12)."""

import argparse
import re

import pytest

from paizhuo import cli
from paizhuo.table import config as table_config

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]{3}")


def _helps(parser, path):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for choice in a._choices_actions:
                yield " ".join(path + [choice.dest]), choice.help
            for name, sub in a.choices.items():
                yield from _helps(sub, path + [name])
        elif a.help not in (None, argparse.SUPPRESS):
            yield " ".join(path + ["/".join(a.option_strings) or a.dest]), a.help


def test_every_help_text_of_every_command_is_in_chinese_and_english():
    helps = list(_helps(cli.build_parser(), ["paizhuo"]))
    assert len(helps) > 100
    english_only = [(where, text) for where, text in helps if not (CJK.search(text) and LATIN.search(text))]
    assert english_only == []


def test_help_headings_are_bilingual(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["provision", "table", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "usage 用法:" in out and "options 选项:" in out and "显示本帮助并退出" in out
    assert "桌号或桌名" in re.sub(r"\s+", "", out)


def run(capsys, *argv):
    with pytest.raises(SystemExit) as e:
        cli.main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return e.value.code, err


def test_provision_without_a_subcommand_says_what_to_do(capsys):
    code, err = run(capsys, "provision")
    assert code == 2
    assert "provision_command" not in err
    assert "say what to do: paizhuo provision board|table|check" in err
    assert "请给出要做的事：paizhuo provision board|table|check" in err


@pytest.mark.parametrize("argv, en, zh", [
    (["demo", "--seed", "abc"], "argument --seed: invalid int value: 'abc'", "参数 --seed：无效的整数值 'abc'"),
    (["hub", "verify"], "the following arguments are required: --log", "缺少必需的参数：--log"),
    (["venue", "check"], "the following arguments are required: --event", "缺少必需的参数：--event"),
    (["broker"], "say what to do: paizhuo broker config|check", "请给出要做的事：paizhuo broker config|check"),
    (["rules"], "say what to do: paizhuo rules serve|classify", "请给出要做的事：paizhuo rules serve|classify"),
    (["score", "--format", "xml"], "argument --format: invalid choice: 'xml'", "参数 --format：无效的选项 'xml'"),
    (["provision", "table", "--round", "x"], "--round must be a whole number from 1 to 999",
     "--round 必须是 1 到 999 的整数"),
    (["demo", "--nonsense"], "unrecognized arguments: --nonsense", "无法识别的参数：--nonsense"),
    (["demo", "--tables", "9"], "--tables must be 2 to 5, not 9", "--tables 必须在 2 到 5 之间"),
    (["demo", "--board", "0"], "--board must be 1 or more", "--board 至少为 1"),
])
def test_argument_errors_are_told_in_both_languages_with_exit_2(capsys, argv, en, zh):
    code, err = run(capsys, *argv)
    assert code == 2
    assert en in err and zh in err


def test_a_chinese_table_name_is_a_table_name(tmp_path, capsys):
    rc = cli.main(["provision", "table", "--table", "第8桌", "--hub", "T08", "--devices",
                   "S-0001:E,S-0002:N,S-0003:W,S-0004:S", "--ports", "/dev/a,/dev/b,/dev/c,/dev/d",
                   "--out-dir", str(tmp_path / "t8")])
    assert rc == 0, capsys.readouterr().err
    cfg = table_config.load(str(tmp_path / "t8" / "table.toml"))
    assert cfg.table == "第8桌" and cfg.log.endswith("table-第8桌.sqlite")
    capsys.readouterr()
    rc = cli.main(["provision", "table", "--table", "第 8 桌", "--hub", "T08", "--devices",
                   "S-0001:E,S-0002:N,S-0003:W,S-0004:S", "--ports", "/dev/a,/dev/b,/dev/c,/dev/d",
                   "--out-dir", str(tmp_path / "t9")])
    err = capsys.readouterr().err
    assert rc == 2 and "is not a table name" in err and "不是桌名" in err
    assert not (tmp_path / "t9").exists()


def test_the_hub_says_which_serial_ports_are_missing(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    text = table_config.example_text().replace('"/dev/ttyACM0", ', '"%s", ' % (tmp_path / "ttyA"))
    (tmp_path / "ttyA").write_text("")
    (tmp_path / "t.toml").write_text(text)
    out = tmp_path / "hub.txt"
    with open(out, "wb") as f:
        hub = subprocess.Popen([sys.executable, "-m", "paizhuo.cli", "hub", "--config", str(tmp_path / "t.toml")],
                               stdout=f, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "日志" not in out.read_text() and time.monotonic() < deadline and hub.poll() is None:
            time.sleep(0.05)
    finally:
        hub.send_signal(signal.SIGTERM)
        hub.wait(30)
    said = out.read_text()
    assert "serving 4 port(s)" not in said
    assert "4 serial ports: %s present; MISSING /dev/ttyACM1, /dev/ttyACM2, /dev/ttyACM3" % (tmp_path / "ttyA") in said
    assert "缺少 /dev/ttyACM1、/dev/ttyACM2、/dev/ttyACM3" in said
    assert os.path.exists(tmp_path / "table7.sqlite")


def test_match_events_have_a_generic_command_and_the_match_games_name(tmp_path, capsys):
    """`paizhuo matches` runs a match game's events; the game's own name (`paizhuo guandan`, as it
    always was) is the same command, read from the venue module that scores it."""
    import json
    from paizhuo.venue import matches
    from paizhuo import rules
    assert rules.game(matches.GAME).match
    doc = [{"round": 1, "a": "P1", "b": "P2", "a_level": "K", "b_level": "7"}]
    (tmp_path / "m.json").write_text(json.dumps(doc), encoding="utf-8")
    outs = []
    for name in ("matches", matches.GAME):
        assert cli.main([name, "standings", "--input", str(tmp_path / "m.json")]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0]["standings"][0]["side"] == "P1"
    (tmp_path / "bad.json").write_text(json.dumps([dict(doc[0], a_level="Z")]), encoding="utf-8")
    assert cli.main(["matches", "standings", "--input", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert "paizhuo matches: matches row 1: level 'Z' is not a level" in err and "级数 'Z' 不对" in err


def test_the_rules_help_shows_every_games_examples_from_the_registry(capsys):
    from paizhuo import rules
    with pytest.raises(SystemExit) as e:
        cli.main(["rules", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for name in rules.GAMES:
        examples = rules.game(name).examples
        assert examples
        for args, en, zh in examples:
            op, _, rest = args.partition(" ")
            assert "paizhuo rules %s %s %s" % (op, name, rest) in out and "%s / %s" % (en, zh) in out
    with pytest.raises(SystemExit):
        cli.main(["rules", "classify", "--help"])
    assert "the game: %s" % ", ".join(sorted(rules.GAMES)) in " ".join(capsys.readouterr().out.split())
