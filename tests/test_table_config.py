"""Table configuration (table.toml): every mistake names the file, the key and what to do."""

import doctest
import importlib
import os
import subprocess
import sys

import pytest

from paizhuo.table import config as config_
from paizhuo.venue import deals as venue_deals

KEY_E = "00" * 32
KEY_N = "11" * 32


def toml(table=None, clock="", link=None, devices=None, deals=None, extra=""):
    table = table if table is not None else 'hub = "T07"\nid = "7"\nevent = "demo"\n'
    link = link if link is not None else 'ports = ["/dev/ttyACM0", "/dev/ttyACM1"]\n'
    devices = devices if devices is not None else (
        '[devices.S-0001]\nkey = "%s"\nseat = "E"\n[devices.S-0002]\nkey = "%s"\nseat = "N"\n' % (KEY_E, KEY_N))
    deals = deals if deals is not None else 'secret = "text:a table test secret"\nboards = [1, 2]\n'
    return "[table]\n%s\n[clock]\n%s\n[link]\n%s\n%s\n[deals]\n%s\n%s" % (table, clock, link, devices, deals, extra)


@pytest.mark.parametrize("name", ["paizhuo.table.config", "paizhuo.table.eventlog", "paizhuo.table.runtime"])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0
    assert attempted > 0


def test_example_loads_with_defaults_from_the_rules():
    cfg = config_.load_text(config_.EXAMPLE, "example.toml", base="/srv/t7")
    assert (cfg.hub, cfg.table, cfg.game, cfg.lang) == ("T07", "7", "bigtwo", "zh")
    assert cfg.log == "/srv/t7/table7.sqlite"
    assert [cfg.device("S-000%d" % i).seat for i in range(1, 5)] == ["E", "N", "W", "S"]
    assert cfg.device("S-9999") is None
    assert cfg.seat_device("W").id == "S-0003"
    # The clocks are the engine's (RULES.md): 15 s 明牌, 15 s 加倍, 25 s per turn.
    assert (cfg.rules.show_seconds, cfg.rules.double_seconds, cfg.rules.turn_seconds) == (15, 15, 25)
    assert cfg.clocks.limit_ms(25) == 25000
    assert (cfg.clocks.grace_ms, cfg.clocks.offline_ms) == (30000, 5000)
    assert [r.board for r in cfg.deals.records] == [1, 2, 3, 4]
    assert cfg.player("E") == {"id": "P001", "name": "张三"} and cfg.player("N") is None
    assert "000102" not in repr(cfg.device("S-0001"))  # keys never print


def test_generated_deals_are_the_venues():
    cfg = config_.load_text(toml(deals='secret = "text:event secret, long enough"\nround = 2\ngroup = 3\nboards = "4-5"\n'), "t.toml")
    want = venue_deals.deals(b"event secret, long enough", "bigtwo", 2, 3, [4, 5])
    assert [r.hash for r in cfg.deals.records] == [r.hash for r in want]
    key = venue_deals.round_key(b"event secret, long enough", 2).hex()
    cfg2 = config_.load_text(toml(deals='round_key = "%s"\nround = 2\ngroup = 3\nboards = [4, 5]\n' % key), "t.toml")
    assert [r.hash for r in cfg2.deals.records] == [r.hash for r in want]


def test_inline_deals_and_clock_scale():
    hands = {"E": "3D 4D 5D 6D 7D 3C 4C 5C 6C 7C 3H 4H 5H", "N": "8D 9D TD JD QD 8C 9C TC JC QC 8H 9H TH",
             "W": "KD AD 2D KC AC 2C KH AH 2H 6H 7H JH QH", "S": "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S"}
    deals = "[[deals.inline]]\nboard = 9\n" + "".join('%s = "%s"\n' % kv for kv in hands.items())
    cfg = config_.load_text(toml(clock="scale = 0.01\ngrace_seconds = 0.5\n", deals=deals), "t.toml")
    rec = cfg.deals.records[0]
    assert rec.board == 9 and cfg.deals.source == "inline"
    assert rec.to_engine_deal().first_seat == "E"
    assert cfg.clocks.limit_ms(25) == 250 and cfg.clocks.grace_ms == 500


def test_relative_ports_and_log_are_relative_to_the_file(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(toml(table='hub = "T07"\nid = "7"\nevent = "demo"\nlog = "logs/t7.sqlite"\n',
                         link='ports = ["E.hub", "/dev/ttyACM1"]\n'), encoding="utf-8")
    cfg = config_.load(str(path))
    assert cfg.ports == [str(tmp_path / "E.hub"), "/dev/ttyACM1"]
    assert cfg.log == str(tmp_path / "logs" / "t7.sqlite")


FULL_HANDS = ('E = "3D 4D 5D 6D 7D 3C 4C 5C 6C 7C 3H 4H 5H"\nN = "8D 9D TD JD QD 8C 9C TC JC QC 8H 9H TH"\n'
              'W = "KD AD 2D KC AC 2C KH AH 2H 6H 7H JH QH"\nS = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S"\n')
HEX_DEAL = "[[deals.inline]]\nboard = 1\nE = \"3D\"\nN = \"\"\nW = \"\"\nS = \"\"\n"

# (what is wrong, the TOML, the key the error names, the error code)
BAD = [
    ("not TOML", "[table\n", "", "bad_toml"),
    ("no [table]", toml().replace("[table]\n", "[tablex]\n"), "table", "missing"),
    ("missing hub id", toml(table='id = "7"\nevent = "demo"\n'), "table.hub", "missing"),
    ("hub id with a space", toml(table='hub = "T 07"\nid = "7"\nevent = "demo"\n'), "table.hub", "bad_hub_id"),
    ("table id not text", toml(table='hub = "T07"\nid = 7\nevent = "demo"\n'), "table.id", "bad_type"),
    ("unknown game", toml(table='hub = "T07"\nid = "7"\nevent = "x"\ngame = "poker"\n'), "table.game", "unknown_game"),
    ("bad language", toml(table='hub = "T07"\nid = "7"\nevent = "x"\nlang = "fr"\n'), "table.lang", "bad_config"),
    ("misspelt key", toml(table='hub = "T07"\nid = "7"\nevent = "x"\nlogg = "a"\n'), "table.logg", "unknown_key"),
    ("bad rule option", toml(extra='[rules]\nturn_seconds = 0\n'), "rules", "bad_rules"),
    ("unknown rule option", toml(extra='[rules]\nturbo = true\n'), "rules", "bad_rules"),
    ("clock scale zero", toml(clock="scale = 0\n"), "clock.scale", "out_of_range"),
    ("negative grace", toml(clock="grace_seconds = -1\n"), "clock.grace_seconds", "out_of_range"),
    ("grace as text", toml(clock='grace_seconds = "30"\n'), "clock.grace_seconds", "bad_type"),
    ("no ports", toml(link="ports = []\n"), "link.ports", "bad_config"),
    ("port twice", toml(link='ports = ["/dev/a", "/dev/a"]\n'), "link.ports", "bad_config"),
    ("no [link]", toml().replace("[link]\n", "[linkx]\n"), "link", "missing"),
    ("short key", toml(devices='[devices.S-0001]\nkey = "00"\nseat = "E"\n'), "devices.S-0001.key", "bad_key"),
    ("non-hex key", toml(devices='[devices.S-0001]\nkey = "%s"\nseat = "E"\n' % ("zz" * 32)), "devices.S-0001.key",
     "bad_key"),
    ("bad seat", toml(devices='[devices.S-0001]\nkey = "%s"\nseat = "X"\n' % KEY_E), "devices.S-0001.seat", "bad_seat"),
    ("no seat", toml(devices='[devices.S-0001]\nkey = "%s"\n' % KEY_E), "devices.S-0001.seat", "missing"),
    ("bad device id", toml(devices='[devices."S 1"]\nkey = "%s"\nseat = "E"\n' % KEY_E), "devices.S 1", "bad_device_id"),
    ("seat twice", toml(devices='[devices.A]\nkey = "%s"\nseat = "E"\n[devices.B]\nkey = "%s"\nseat = "E"\n'
                        % (KEY_E, KEY_N)), "devices", "seat_twice"),
    ("key twice", toml(devices='[devices.A]\nkey = "%s"\nseat = "E"\n[devices.B]\nkey = "%s"\nseat = "N"\n'
                       % (KEY_E, KEY_E)), "devices", "key_twice"),
    ("no devices", toml(devices="[devices]\n"), "devices", "no_devices"),
    ("player on a bad seat", toml(extra='[players.X]\nid = "P1"\nname = "A"\n'), "players.X", "bad_seat"),
    ("player without name", toml(extra='[players.E]\nid = "P1"\n'), "players.E.name", "missing"),
    ("two deal sources", toml(deals='secret = "a"\nround_key = "%s"\nboards = [1]\n' % KEY_E), "deals", "bad_deals"),
    ("no deal source", toml(deals='boards = [1]\n'), "deals", "bad_deals"),
    ("no boards", toml(deals='secret = "a"\n'), "deals.boards", "bad_boards"),
    ("backwards boards", toml(deals='secret = "a"\nboards = "8-1"\n'), "deals.boards", "bad_boards"),
    ("board twice", toml(deals='secret = "a"\nboards = [1, 1]\n'), "deals.boards", "bad_boards"),
    ("short round key", toml(deals='round_key = "00"\nboards = [1]\n'), "deals.round_key", "bad_round_key"),
    ("inline with too few cards", toml(deals=HEX_DEAL), "deals.inline[0]", "bad_deal"),
    ("inline with boards", toml(deals='boards = [1]\n' + HEX_DEAL), "deals.boards", "bad_config"),
    ("inline board twice", toml(deals="[[deals.inline]]\nboard = 1\n%s[[deals.inline]]\nboard = 1\n%s" % (
        FULL_HANDS, FULL_HANDS)), "deals.inline[1]", "bad_boards"),
    ("round zero", toml(deals='secret = "a"\nround = 0\nboards = [1]\n'), "deals.round", "out_of_range"),
]


@pytest.mark.parametrize("what,text,key,code", BAD, ids=[b[0] for b in BAD])
def test_bad_configurations_say_where_and_what(what, text, key, code):
    with pytest.raises(config_.ConfigError) as info:
        config_.load_text(text, "t7.toml")
    e = info.value
    assert (e.key, e.code) == (key, code), str(e)
    assert str(e).startswith("t7.toml: " + (key + ": " if key else "")), str(e)
    assert e.zh.startswith("t7.toml") and e.en


def test_missing_file_and_not_utf8(tmp_path):
    with pytest.raises(config_.ConfigError) as info:
        config_.load(str(tmp_path / "nope.toml"))
    assert info.value.code == "no_file" and "--config" in str(info.value)
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b"[table]\nhub = \"\xe9\"\n")
    with pytest.raises(config_.ConfigError) as info:
        config_.load(str(bad))
    assert info.value.code == "not_utf8"


def test_the_digest_follows_the_text():
    a = config_.load_text(toml(), "t.toml")
    b = config_.load_text(toml() + "\n# a comment\n", "t.toml")
    assert a.digest != b.digest and len(a.digest) == 64
    assert os.path.isabs(a.log)


PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")


def test_the_hub_command_refuses_a_bad_configuration_and_prints_an_example(tmp_path):
    example = subprocess.run([PAIZHUO, "hub", "example"], capture_output=True, text=True)
    assert example.returncode == 0
    assert config_.load_text(example.stdout, "example.toml").table == "7"
    bad = tmp_path / "bad.toml"
    bad.write_text(example.stdout.replace('seat = "W"', 'seat = "E"'), encoding="utf-8")
    out = subprocess.run([PAIZHUO, "hub", "--config", str(bad)], capture_output=True, text=True)
    assert out.returncode == 2 and "bad.toml: devices: seat E is given to both" in out.stderr
    none = subprocess.run([PAIZHUO, "hub"], capture_output=True, text=True)
    assert none.returncode == 2 and "--config" in none.stderr
