"""event.toml: the example loads; every mistake names the file and the key, in English and Chinese,
and nothing is started from a bad file; `paizhuo venue example|check|pin` on the command line."""

import doctest
import json
import os
import re
import subprocess
import sys

import pytest

from paizhuo.venue import event as event_mod
from paizhuo.venue.event import EXAMPLE as PUBLISHED, EventError, example_text, load, load_text
from paizhuo.venue.store import Store, check_secret

GOOD_PIN_HASH = "pbkdf2-sha256$200000$00112233445566778899aabbccddeeff$" + "ab" * 32
PAIZHUO = [sys.executable, "-m", "paizhuo.cli"]
# The example with a secret and a PIN hash of its own: the venue refuses the published ones.
EXAMPLE = example_text(secret="hex:8f1c" + "5a" * 30, pin_hash=GOOD_PIN_HASH)


def minimal(**over):
    """A small valid event as TOML text; ``over`` replaces whole sections by name."""
    parts = {
        "event": '[event]\nid = "cup"\nname = "杯赛"\ngame = "bigtwo"\nsecret = "text:sixteen chars secret"\nrounds = 2\n'
                 'boards_per_round = 3\n',
        "web": '[web]\nport = 8081\nreferee_pin_hash = "%s"\n' % GOOD_PIN_HASH,
        "tables": '[[tables]]\ntable = "1"\nhub = "T01"\n[[tables]]\ntable = "2"\nhub = "T02"\n',
        "players": "".join('[[players]]\nid = "P%d"\nname = "选手%d"\nno = %d\n' % (i, i, i) for i in range(1, 8)),
    }
    parts.update(over)
    return "\n".join(v for v in parts.values() if v)


def test_docstring_examples():
    failed, attempted = doctest.testmod(event_mod)
    assert failed == 0 and attempted >= 3


def test_example_loads_with_everything_it_shows():
    cfg = load_text(EXAMPLE, "event.toml", base="/srv")
    assert (cfg.id, cfg.name, cfg.game, cfg.rounds, cfg.boards_per_round) == ("demo", "2026 演示赛", "bigtwo", 2, 4)
    assert cfg.broker is None and cfg.web.port == 8080 and cfg.web.pin_hash.startswith("pbkdf2-sha256$")
    assert [t.hub for t in cfg.tables] == ["T01", "T02"] and cfg.store_path == "/srv/demo-venue.sqlite"
    assert cfg.bot_ids() == {"AI-1"} and cfg.player("P002").name == "李四" and cfg.player("P002").no == 2
    assert len(cfg.secret) == 32 and cfg.seats == ("E", "N", "W", "S") and not cfg.auto_start


def test_minimal_defaults():
    cfg = load_text(minimal(), "e.toml", base="/x")
    assert cfg.tables_per_group is None and cfg.vs_ai is False and cfg.human_seat == "E"
    assert cfg.web.host == "127.0.0.1" and cfg.store_path == "/x/cup-venue.sqlite" and cfg.tables_needed() == 2
    assert cfg.secret == b"sixteen chars secret" and cfg.secret_text() == b"sixteen chars secret".hex()
    # The store keeps only a hash of the secret text the venue gives it.
    s = Store(":memory:")
    s.add_event(cfg.id, cfg.name, cfg.game, secret=cfg.secret_text())
    assert s.check_secret(cfg.id, cfg.secret_text())


EV = '[event]\nid = "cup"\nname = "杯赛"\ngame = "bigtwo"\nsecret = "text:sixteen chars secret"\nrounds = 2\nboards_per_round = 3\n'

# (what, the TOML's changed sections, the key named, the code, a piece of the English text)
CASES = [
    ("not TOML", {"event": "[event\n"}, "", "bad_toml", "not valid TOML"),
    ("no [event]", {"event": ""}, "event", "missing", "is missing"),
    ("id with a slash", {"event": EV.replace('id = "cup"', 'id = "a/b"')}, "event.id", "bad_id", "MQTT topic"),
    ("id too long", {"event": EV.replace('id = "cup"', 'id = "%s"' % ("x" * 33))}, "event.id", "bad_id", "1-32"),
    ("id a number", {"event": EV.replace('id = "cup"', "id = 7")}, "event.id", "bad_type", "must be a string"),
    ("no name", {"event": EV.replace('name = "杯赛"\n', "")}, "event.name", "missing", "is missing"),
    ("blank name", {"event": EV.replace('name = "杯赛"', 'name = "  "')}, "event.name", "bad_event", "event's name"),
    # a game no table hub plays (a match game at the table: test_venue_match_event.py)
    ("unknown game", {"event": EV.replace('"bigtwo"', '"nosuchgame"')}, "event.game", "unknown_game", "table hubs can play"),
    ("no secret", {"event": EV.replace('secret = "text:sixteen chars secret"\n', "")}, "event.secret", "missing",
     "token_hex(32)"),
    ("short secret", {"event": EV.replace("text:sixteen chars secret", "text:short")}, "event.secret", "short_secret",
     "at least 16"),
    ("bad hex secret", {"event": EV.replace("text:sixteen chars secret", "hex:zz")}, "event.secret", "bad_secret", "not hex"),
    ("secret twice", {"event": EV + 'secret_file = "s.txt"\n'}, "event.secret_file", "no_file", "cannot read"),
    ("no rounds", {"event": EV.replace("rounds = 2\n", "")}, "event.rounds", "missing", "is missing"),
    ("zero rounds", {"event": EV.replace("rounds = 2", "rounds = 0")}, "event.rounds", "out_of_range", "between 1 and 99"),
    ("rounds as text", {"event": EV.replace("rounds = 2", 'rounds = "2"')}, "event.rounds", "bad_type", "whole number"),
    ("65 boards", {"event": EV.replace("boards_per_round = 3", "boards_per_round = 65")}, "event.boards_per_round",
     "out_of_range", "between 1 and 64"),
    ("auto_start yes", {"event": EV + 'auto_start = "yes"\n'}, "event.auto_start", "bad_type", "true or false"),
    ("one table per group", {"event": EV + "tables_per_group = 1\n"}, "event.tables_per_group", "out_of_range", "between 2"),
    ("human seat without vs_ai", {"event": EV + 'human_seat = "N"\n'}, "event.human_seat", "bad_event", "人机赛"),
    ("human seat X", {"event": EV + 'vs_ai = true\nhuman_seat = "X"\n'}, "event.human_seat", "bad_seat", "one of E, N, W, S"),
    ("typo in [event]", {"event": EV + "round = 3\n"}, "event.round", "unknown_key", "unknown key"),
    ("unknown section", {"tables": '[[tables]]\ntable = "1"\nhub = "T01"\n[[tables]]\ntable = "2"\nhub = "T02"\n[extra]\nx = 1\n'},
     "extra", "unknown_key", "unknown key"),
    ("broker port 0", {"web": '[broker]\nport = 0\n'}, "broker.port", "out_of_range", "between 1 and 65535"),
    ("broker password without user", {"web": '[broker]\npassword_file = "nope.pass"\n'}, "broker.password_file", "no_file",
     "cannot read"),
    ("broker username with space", {"web": '[broker]\nusername = "a b"\n'}, "broker.username", "bad_id", "A-Z"),
    ("web without a PIN hash", {"web": "[web]\nport = 8080\n"}, "web.referee_pin_hash", "missing", "paizhuo venue pin"),
    ("web with the PIN itself", {"web": '[web]\nreferee_pin_hash = "123456"\n'}, "web.referee_pin_hash", "bad_pin_hash",
     "never write the PIN itself"),
    ("web port too big", {"web": '[web]\nport = 70000\nreferee_pin_hash = "%s"\n' % GOOD_PIN_HASH}, "web.port",
     "out_of_range", "between 0 and 65535"),
    ("no tables", {"tables": ""}, "tables", "missing", "is missing"),
    ("empty tables", {"event": "tables = []\n" + EV, "tables": ""}, "tables", "missing", "is empty"),
    ("table without hub", {"tables": '[[tables]]\ntable = "1"\n'}, "tables[0].hub", "missing", "is missing"),
    ("hub id with a dot", {"tables": '[[tables]]\ntable = "1"\nhub = "T.1"\n[[tables]]\ntable = "2"\nhub = "T02"\n'},
     "tables[0].hub", "bad_id", "MQTT username"),
    ("table number as integer", {"tables": '[[tables]]\ntable = 1\nhub = "T01"\n'}, "tables[0].table", "bad_type",
     "must be a string"),
    ("hub twice", {"tables": '[[tables]]\ntable = "1"\nhub = "T01"\n[[tables]]\ntable = "2"\nhub = "T01"\n'},
     "tables[1].hub", "duplicate", "listed twice"),
    ("table twice", {"tables": '[[tables]]\ntable = "1"\nhub = "T01"\n[[tables]]\ntable = "1"\nhub = "T02"\n'},
     "tables[1].table", "duplicate", "listed twice"),
    ("too few tables", {"tables": '[[tables]]\ntable = "1"\nhub = "T01"\n'}, "tables", "too_few_tables", "need 2 tables"),
    ("no players", {"players": ""}, "players", "missing", "is missing"),
    ("player without number", {"players": '[[players]]\nid = "P1"\nname = "A"\n'}, "players[0].no", "missing", "is missing"),
    ("player number 0", {"players": '[[players]]\nid = "P1"\nname = "A"\nno = 0\n'}, "players[0].no", "out_of_range",
     "between 1"),
    ("player number twice", {"players": '[[players]]\nid = "P1"\nname = "A"\nno = 1\n[[players]]\nid = "P2"\nname = "B"\nno = 1\n'},
     "players[1].no", "duplicate", "given twice"),
    ("player id twice", {"players": '[[players]]\nid = "P1"\nname = "A"\nno = 1\n[[players]]\nid = "P1"\nname = "B"\nno = 2\n'},
     "players[1].id", "duplicate", "given twice"),
    ("reserved bot id", {"players": '[[players]]\nid = "bot:1:E"\nname = "A"\nno = 1\n'}, "players[0].id", "reserved_id",
     "must not start"),
    ("bot as text", {"players": '[[players]]\nid = "P1"\nname = "A"\nno = 1\nbot = "no"\n'}, "players[0].bot", "bad_type",
     "true or false"),
    ("only bots", {"players": '[[players]]\nid = "A1"\nname = "A"\nno = 1\nbot = true\n'}, "players", "no_players",
     "every player is a bot"),
    ("typo in a player", {"players": '[[players]]\nid = "P1"\nname = "A"\nnumber = 1\nno = 1\n'}, "players[0].number",
     "unknown_key", "unknown key"),
]


@pytest.mark.parametrize("what,over,key,code,text", CASES, ids=[c[0] for c in CASES])
def test_every_mistake_names_the_key(what, over, key, code, text):
    with pytest.raises(EventError) as e:
        load_text(minimal(**over), "cup.toml", base="/nonexistent")
    err = e.value
    assert (err.key, err.code) == (key, code), err.en
    assert text in err.en, err.en
    assert err.en.startswith("cup.toml") and err.zh.startswith("cup.toml")
    assert err.zh != err.en  # a Chinese text, not a copy


def test_secret_file_and_pin_file_must_be_private(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("hex:" + "ab" * 32 + "\n")
    pin = tmp_path / "pin.txt"
    pin.write_text(GOOD_PIN_HASH + "\n")
    text = minimal(event=EV.replace('secret = "text:sixteen chars secret"', 'secret_file = "secret.txt"'),
                   web='[web]\nreferee_pin_file = "pin.txt"\n')
    for f in (secret, pin):
        f.chmod(0o644)
    with pytest.raises(EventError) as e:
        load_text(text, "e.toml", base=str(tmp_path))
    assert e.value.key == "event.secret_file" and e.value.code == "file_mode" and "chmod 600" in e.value.en
    secret.chmod(0o600)
    with pytest.raises(EventError) as e:
        load_text(text, "e.toml", base=str(tmp_path))
    assert e.value.key == "web.referee_pin_file" and e.value.code == "file_mode"
    pin.chmod(0o600)
    cfg = load_text(text, "e.toml", base=str(tmp_path))
    assert cfg.secret == bytes.fromhex("ab" * 32) and cfg.web.pin_hash == GOOD_PIN_HASH


def test_broker_password_file(tmp_path):
    pw = tmp_path / "venue.pass"
    pw.write_text("s3cret\n")
    pw.chmod(0o600)
    cfg = load_text(minimal(web='[broker]\nhost = "10.0.0.2"\nport = 8883\nusername = "venue"\npassword_file = "venue.pass"\n'),
                    "e.toml", base=str(tmp_path))
    assert (cfg.broker.host, cfg.broker.port, cfg.broker.username, cfg.broker.keepalive) == ("10.0.0.2", 8883, "venue", 5)
    assert cfg.broker.password() == "s3cret" and cfg.web is None
    with pytest.raises(EventError) as e:
        load_text(minimal(web='[broker]\npassword_file = "venue.pass"\n'), "e.toml", base=str(tmp_path))
    assert e.value.key == "broker.username" and "password_file needs the username" in e.value.en


def test_vs_ai_needs_a_table_per_player():
    text = minimal(event=EV + "vs_ai = true\n")
    with pytest.raises(EventError) as e:
        load_text(text, "e.toml")
    assert e.value.code == "too_few_tables" and "人机赛" in e.value.en and "7 players need 7 tables" in e.value.en
    tables = "".join('[[tables]]\ntable = "%d"\nhub = "T%02d"\n' % (i, i) for i in range(1, 8))
    with pytest.raises(EventError) as e:
        load_text(minimal(event=EV + "vs_ai = true\n", tables=tables,
                          players=minimal().split("[[players]]", 1)[1].join(["[[players]]", ""]) + "bot = true\n"), "e.toml")
    assert e.value.code == "bot_in_vs_ai"
    cfg = load_text(minimal(event=EV + 'vs_ai = true\nhuman_seat = "S"\n', tables=tables), "e.toml")
    assert cfg.vs_ai and cfg.human_seat == "S" and cfg.tables_needed() == 7


def test_load_reads_files_and_refuses_non_utf8(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text(minimal(), encoding="utf-8")
    assert load(str(f)).store_path == str(tmp_path / "cup-venue.sqlite")
    f.write_bytes(minimal().encode("gbk"))
    with pytest.raises(EventError) as e:
        load(str(f))
    assert e.value.code == "not_utf8"
    with pytest.raises(EventError) as e:
        load(str(tmp_path / "missing.toml"))
    assert e.value.code == "no_file" and "--event" in e.value.en


# ---- the command line --------------------------------------------------------------------------

def run_cli(*args, stdin=None, cwd=None):
    return subprocess.run(PAIZHUO + ["venue", *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=60)


def test_cli_example_check_and_pin(tmp_path):
    out = run_cli("example")
    assert out.returncode == 0 and out.stdout != PUBLISHED  # a fresh secret each time, and no PIN hash yet
    (tmp_path / "event.toml").write_text(out.stdout)
    chk = run_cli("check", "--event", str(tmp_path / "event.toml"))
    assert chk.returncode == 2 and "paizhuo venue pin" in chk.stderr
    pin = run_cli("pin", "--pin-stdin", stdin="246810\n")
    assert pin.returncode == 0
    digest = pin.stdout.strip()
    assert check_secret("246810", digest) and not check_secret("246811", digest)
    # the hash goes straight into [web]
    text = out.stdout.replace(event_mod._NO_PIN_HASH, digest)
    assert load_text(text).web.pin_hash == digest
    (tmp_path / "event.toml").write_text(text)
    chk = run_cli("check", "--event", str(tmp_path / "event.toml"))
    assert chk.returncode == 0, chk.stderr
    assert "bigtwo, 2 round(s) × 4 board(s)" in chk.stdout and "players: 8 (1 bot)" in chk.stdout
    assert "store: %s (new" % (tmp_path / "demo-venue.sqlite") in chk.stdout


def test_cli_check_looks_into_the_store_without_writing(tmp_path):
    (tmp_path / "event.toml").write_text(EXAMPLE)
    cfg = load(str(tmp_path / "event.toml"))
    s = Store(cfg.store_path)
    s.add_event(cfg.id, cfg.name, cfg.game, secret=cfg.secret_text())
    s.close()
    before = os.stat(cfg.store_path).st_mtime_ns
    chk = run_cli("check", "--event", str(tmp_path / "event.toml"))
    assert chk.returncode == 0 and "event demo, 0 round(s) seated, 0 result(s)" in chk.stdout, chk.stdout + chk.stderr
    assert os.stat(cfg.store_path).st_mtime_ns == before
    # another secret for the same store is refused
    other = EXAMPLE.replace("hex:8f1c", "hex:9f1c")
    (tmp_path / "event.toml").write_text(other)
    chk = run_cli("check", "--event", str(tmp_path / "event.toml"))
    assert chk.returncode == 2 and "another name, game or secret" in chk.stderr


@pytest.mark.parametrize("args,stdin,text", [
    (("check", "--event", "nope.toml"), None, "cannot read the file"),
    (("pin", "--pin-stdin"), "123\n", "at least 6 printable characters"),
    (("pin", "--pin-stdin"), " 1234567\n", "no spaces"),
    ((), None, "give the event configuration"),
    (("--event", "nope.toml"), None, "cannot read the file"),
])
def test_cli_refusals_exit_2(tmp_path, args, stdin, text):
    out = run_cli(*args, stdin=stdin, cwd=str(tmp_path))
    assert out.returncode == 2 and text in out.stderr and out.stdout == ""


def test_cli_bad_event_file_names_the_key_in_both_languages(tmp_path):
    (tmp_path / "event.toml").write_text(EXAMPLE.replace("rounds = 2", "rounds = 0"))
    out = run_cli("--event", str(tmp_path / "event.toml"))
    assert out.returncode == 2
    assert "event.rounds: must be between 1 and 99" in out.stderr and "必须在 1 到 99 之间" in out.stderr
    assert not (tmp_path / "demo-venue.sqlite").exists()  # nothing was started


def test_cli_serves_the_pages_with_its_embedded_broker_and_stops_on_sigterm(tmp_path):
    import signal
    import time
    import urllib.request
    (tmp_path / "event.toml").write_text(EXAMPLE.replace("port = 8080", "port = 0"))
    log = open(tmp_path / "out.txt", "wb")
    proc = subprocess.Popen(PAIZHUO + ["venue", "--event", str(tmp_path / "event.toml"), "--broker-port", "0"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        text = ""
        while "referee console" not in text:
            assert proc.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.05)
            text = (tmp_path / "out.txt").read_text()
        url = re.search(r"standings 成绩: (\S+)", text).group(1)
        assert "embedded broker on 127.0.0.1:" in text and "round 1 seated" in text
        with urllib.request.urlopen(url + "standings.json", timeout=10) as r:
            assert r.status == 200 and json.loads(r.read())["event"] == "demo"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(30)
        except subprocess.TimeoutExpired:  # never leave a venue running behind a failed test
            proc.kill()
            proc.wait()
            rc = "still running 30 s after SIGTERM"
        log.close()
    assert rc == 0, (rc, (tmp_path / "out.txt").read_text()[-2000:])
    # the store holds the seated round; another secret for it is refused before anything starts
    (tmp_path / "event.toml").write_text(EXAMPLE.replace("hex:8f1c", "hex:9f1c").replace("port = 8080", "port = 0"))
    out = run_cli("--event", str(tmp_path / "event.toml"), "--broker-port", "0")
    assert out.returncode == 2 and "already holds event 'demo' with other details" in out.stderr


def test_secure_cookies_is_a_web_setting_and_defaults_to_off():
    from paizhuo.venue.event import EXAMPLE, load_text
    assert load_text(EXAMPLE, "event.toml", base="/srv").web.secure_cookies is False
    text = EXAMPLE.replace("[web]\n", "[web]\nsecure_cookies = true\n")
    assert load_text(text, "event.toml", base="/srv").web.secure_cookies is True
    import pytest as _pytest
    from paizhuo.venue.event import EventError
    with _pytest.raises(EventError) as e:
        load_text(EXAMPLE.replace("[web]\n", '[web]\nsecure_cookies = "yes"\n'), "event.toml", base="/srv")
    assert "web.secure_cookies" in str(e.value)
