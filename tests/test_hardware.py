"""Issue #13: the pinout is one data file (hardware/pinout.csv) that the board layer reads and the
wiring table in hardware/README.md agrees with."""

import json
import re
import sys
from pathlib import Path

import pytest

from paizhuo.sim.firmware import run_snippet

ROOT = Path(__file__).resolve().parents[1]


def csv_rows():
    rows = []
    for line in (ROOT / "hardware" / "pinout.csv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, gpio, signal, module_pin, note = line.split(",", 4)
        rows.append((name, int(gpio), signal, module_pin))
    return rows


def test_the_readme_wiring_table_is_the_data_file():
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    table = {}
    for m in re.finditer(r"^\| ([^|]+) \| (\d+) \| ([^|]+) \|", text, re.M):
        table[m.group(1).strip()] = (int(m.group(2)), m.group(3).strip())
    for name, gpio, signal, module_pin in csv_rows():
        assert table.get(signal) == (gpio, module_pin), "%s (%s): README says %r" % (signal, name, table.get(signal))
    assert len(table) == len(csv_rows())


def test_the_board_layer_names_only_pins_of_the_data_file():
    used = set(re.findall(r'p\["([A-Z_]+)"\]', (ROOT / "device" / "board" / "ref_s3.py").read_text()))
    assert used and used <= {r[0] for r in csv_rows()}
    assert "PIN_" not in (ROOT / "device" / "board" / "ref_s3.py").read_text(), "no pin numbers left in the code"


@pytest.mark.micropython
def test_the_firmware_reads_the_pinout_from_its_image(tmp_path):
    sys.path.insert(0, str(ROOT / "tests" / "firmware"))
    from simboard import shared_firmware
    fw = shared_firmware()
    out = run_snippet(fw, "import json\nfrom board import pinout\nprint(json.dumps(pinout.load()))")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {r[0]: r[1] for r in csv_rows()}
