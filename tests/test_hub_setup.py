"""Issue #13: the Raspberry Pi OS set-up files (hub/setup/) are what the docs say."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "hub" / "setup"


def test_the_unit_restarts_the_hub_after_time_sync_and_the_network(tmp_path):
    text = (SETUP / "paizhuo-hub.service").read_text()
    assert re.search(r"^After=.*network-online\.target.*time-sync\.target", text, re.M)
    assert "Restart=on-failure" in text and "paizhuo hub --config /etc/paizhuo/table.toml" in text
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here")
    unit = tmp_path / "paizhuo-hub.service"  # the same unit, its program replaced by one that exists here
    unit.write_text(text.replace("/opt/paizhuo/.venv/bin/paizhuo", shutil.which("true")))
    r = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    problems = [ln for ln in (r.stdout + r.stderr).splitlines() if "paizhuo-hub.service" in ln]
    assert problems == [], problems


def test_udev_names_each_seat_socket_once():
    text = (SETUP / "99-paizhuo-seats.rules").read_text()
    rules = re.findall(r'^KERNELS=="([^"]+)", SYMLINK\+="paizhuo/seat-(\w+)"', text, re.M)
    seats = [s for _, s in rules]
    assert seats[:4] == ["E", "N", "W", "S"] and len(set(k for k, _ in rules)) == len(rules)
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in text and 'ATTRS{idVendor}!="303a"' in text


def test_log_rotation_never_touches_the_event_log():
    text = (SETUP / "paizhuo.logrotate").read_text()
    paths = re.findall(r"^(/\S+) \{", text, re.M)
    assert paths == ["/var/log/paizhuo/*.log"] and "copytruncate" in text
