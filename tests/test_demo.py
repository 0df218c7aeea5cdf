"""`make demo` today: four bots play one seeded deal and the terminal shows all of it."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from paizhuo.table import eventlog

PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")


def run_demo(*args):
    out = subprocess.run([PAIZHUO, "demo", "--terminal", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_demo_shows_the_deal_every_choice_every_play_and_the_scored_result():
    text = run_demo("--seed", "2026")
    # The deal: four hands of 13 cards.
    hands = re.findall(r"^  \S+ ([ENWS])  ((?:\S+ ){12}\S+)$", text, re.M)
    assert [seat for seat, _ in hands] == ["E", "N", "W", "S"]
    assert len({c for _, h in hands for c in h.split()}) == 52
    # 明牌 for all four, 加倍 for all four.
    assert len(re.findall(r"明牌 shows|不明牌 keeps it hidden", text)) == 4
    assert len(re.findall(r"加倍 doubles|不加倍 does not double", text)) == 4
    # The first play holds ♦3, and someone goes out.
    first_play = text.split("Play (")[1].splitlines()[1]
    assert "♦3" in first_play
    assert re.search(r"Result: \S+ [ENWS] went out\.", text)
    # The result table: four seats whose scores sum to zero, as the last line says.
    rows = re.findall(r"^  \S+ ([ENWS])\s+(\d+)\s.*?(-?\d+)\s+(\d)$", text, re.M)
    assert len(rows) == 4
    assert sum(int(score) for _, _, score, _ in rows) == 0
    assert "scores sum to 0" in text


def test_demo_is_reproducible_from_its_seed_and_differs_between_seeds():
    assert run_demo("--seed", "5") == run_demo("--seed", "5")
    assert run_demo("--seed", "5") != run_demo("--seed", "6")


def test_demo_refuses_a_bad_seed_with_a_clear_message():
    out = subprocess.run([PAIZHUO, "demo", "--seed", "abc"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "invalid int value: 'abc'" in out.stderr


def test_the_table_demo_plays_a_table_by_touch_and_names_its_screenshot_folder(tmp_path):
    """`paizhuo demo --table`: the hub and four firmware seats, from a relative run folder."""
    out = subprocess.run([PAIZHUO, "demo", "--table", "--seed", "3", "--out", "run"], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    text = out.stdout
    assert "all four seats linked" in text
    assert "the same as this replay" in text
    shots = re.search(r"^Screenshots \((\d+) PNG files, one per seat per moment\): (\S+)$", text, re.M)
    assert shots and int(shots.group(1)) >= 16
    folder = Path(shots.group(2))
    assert sorted(p.name for p in folder.glob("result-*.png")) == ["result-E.png", "result-N.png",
                                                                   "result-S.png", "result-W.png"]
    assert (tmp_path / "run" / "table.sqlite").exists()
    verify = subprocess.run([PAIZHUO, "hub", "verify", "--log", str(tmp_path / "run" / "table.sqlite")],
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_make_demo_runs_a_small_event_and_ends_by_itself(tmp_path):
    """What `make demo` runs (smaller): the venue with its embedded broker and pages, a firmware
    table and a bot table, two rounds with movement; it prints where the pages are, ends by
    itself, and every hub's log verifies."""
    out = subprocess.run([PAIZHUO, "demo", "--tables", "2", "--rounds", "2", "--boards", "1", "--out", "run"],
                         capture_output=True, text=True, timeout=400, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    text = out.stdout
    assert re.search(r"public standings 成绩公告:\s+http://127\.0\.0\.1:\d+/$", text, re.M)
    assert re.search(r"referee console 裁判台:\s+http://127\.0\.0\.1:\d+/referee\s+\(demo PIN 246810\)$", text, re.M)
    checkins = re.findall(r"^  round (\d), table 1 .*typed player number \d+ on the seat's keypad — checked in$", text, re.M)
    assert sorted(checkins) == ["1"] * 4 + ["2"] * 4, "four players check in at table 1 in each round"
    assert "The event is complete" in text
    ranks = re.findall(r"^\s+(\d+)  P\d{3}\s", text, re.M)
    assert [int(r) for r in ranks] == list(range(1, 9)), "eight players ranked"
    # Without --stay the pages stop with the demo: no addresses of records, but the records saved
    assert "Hand records of round" not in text and "records/1" not in text.split("The event is complete")[1]
    for rnd in (1, 2):
        assert json.loads((tmp_path / "run" / "records" / ("round-%d.json" % rnd)).read_text())
    assert re.search(r"^Run folder 运行文件夹: %s$" % re.escape(str(tmp_path / "run")), text, re.M)
    assert "venue store 场地数据库:   venue.sqlite" in text
    shots = sorted(p.name for p in (tmp_path / "run" / "screenshots").glob("*.png"))
    assert shots == ["round1-checkin-after-E.png", "round1-checkin-before-E.png",
                     "round2-checkin-after-E.png", "round2-checkin-before-E.png"]
    for table in ("table-1", "table-2"):
        verify = subprocess.run([PAIZHUO, "hub", "verify", "--log", str(tmp_path / "run" / table / "table.sqlite")],
                                capture_output=True, text=True, timeout=60)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        # The round key came with each round's start: its deals are logged there, not before.
        db = eventlog.open_readonly(str(tmp_path / "run" / table / "table.sqlite"))
        try:
            kinds = [(e.kind, e.body) for tid in eventlog.table_ids(db) for e in eventlog.read_entries(db, tid)]
        finally:
            db.close()
        order = [(k, b["round"]) for k, b in kinds if k in ("round", "round_start")]
        assert order == [("round", 1), ("round_start", 1), ("round", 2), ("round_start", 2)], order
        firsts = [i for i, (k, b) in enumerate(kinds) if k == "deal_start"]
        starts = [i for i, (k, b) in enumerate(kinds) if k == "round_start"]
        assert firsts[0] > starts[0] and firsts[1] > starts[1]
        assert all("deals" not in b and "hands" not in str(b) for k, b in kinds if k == "round")
