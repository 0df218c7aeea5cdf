"""Examples that are unsafe when used unchanged (issue 12): fresh secrets and keys, and the
published ones refused by `check` and at the start, in both languages."""

import pytest

from paizhuo.errors import CodedError
from paizhuo.table import config as table_config
from paizhuo.venue import event as event_
from paizhuo.venue.store import hash_secret

from staff_cli_run import paizhuo  # noqa: F401 (a fixture)


def test_venue_example_has_a_fresh_secret_and_no_pin_hash_until_staff_make_one(tmp_path, paizhuo):
    a, b = paizhuo("venue", "example").stdout, paizhuo("venue", "example").stdout
    assert a != b and event_._EXAMPLE_SECRET not in a + b
    (tmp_path / "event.toml").write_text(a)
    chk = paizhuo("venue", "check", "--event", str(tmp_path / "event.toml"))
    assert chk.returncode == 2 and "paizhuo venue pin" in chk.stderr and "裁判" not in chk.stdout
    start = paizhuo("venue", "--event", str(tmp_path / "event.toml"), "--broker-port", "0")
    assert start.returncode == 2 and not (tmp_path / "demo-venue.sqlite").exists()


def test_the_published_example_secret_and_pin_hash_are_refused_by_check_and_the_start(tmp_path, paizhuo):
    (tmp_path / "event.toml").write_text(event_.EXAMPLE.replace("port = 8080", "port = 0"))
    for args in (["venue", "check", "--event"], ["venue", "--broker-port", "0", "--event"]):
        out = paizhuo(*args, str(tmp_path / "event.toml"))
        assert out.returncode == 2, out.stdout
        assert "event.secret: is the published example's secret" in out.stderr and "公开示例中的密钥" in out.stderr
        assert "web.referee_pin_hash: is the published example's PIN hash" in out.stderr
        assert "PIN hash set" not in out.stdout
    assert not (tmp_path / "demo-venue.sqlite").exists()
    # its own secret and PIN hash: check says the PIN hash is set
    (tmp_path / "event.toml").write_text(event_.example_text(pin_hash=hash_secret("135790")))
    out = paizhuo("venue", "check", "--event", str(tmp_path / "event.toml"))
    assert out.returncode == 0 and "PIN hash set" in out.stdout, out.stderr


def test_hub_example_has_fresh_keys_and_secret_and_the_published_ones_do_not_start(tmp_path, paizhuo):
    for venue in ([], ["--venue"]):
        a = paizhuo("hub", "example", *venue).stdout
        b = paizhuo("hub", "example", *venue).stdout
        assert a != b and "000102030405" not in a and "demo event secret" not in a
        cfg = table_config.load_text(a, "t.toml", base=str(tmp_path))
        assert table_config.example_leftovers(cfg) == []
        assert len({d.key for d in cfg.devices.values()}) == len(cfg.devices) >= 4
    (tmp_path / "table.toml").write_text(table_config.EXAMPLE)
    out = paizhuo("hub", "--config", str(tmp_path / "table.toml"))
    assert out.returncode == 2
    for dev in ("S-0001", "S-0002", "S-0003", "S-0004"):
        assert "devices.%s.key: is the published example's key" % dev in out.stderr
    assert "deals.secret: is the published example's secret" in out.stderr and "公开示例中的密钥" in out.stderr
    assert not (tmp_path / "table7.sqlite").exists()


def test_one_pin_rule_for_venue_pin_and_the_demo(tmp_path, paizhuo):
    from paizhuo.sim.event import SimEvent
    assert paizhuo("venue", "pin", "--pin-stdin", stdin="2468\n").returncode == 2
    with pytest.raises(CodedError) as e:
        SimEvent(str(tmp_path / "ev"), pin="2468")
    assert e.value.code == "bad_pin" and "至少 6 个" in e.value.zh
    import inspect
    from paizhuo import demo
    pin = inspect.signature(demo.event_demo).parameters["pin"].default
    assert event_.check_pin(pin) == pin
    assert paizhuo("venue", "pin", "--pin-stdin", stdin=pin + "\n").returncode == 0
