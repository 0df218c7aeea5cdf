"""A whole event over the production broker setup: mosquitto with per-hub passwords and ACLs
(written by ``paizhuo broker config``), the ``paizhuo venue`` process and three ``paizhuo hub``
processes whose bots play every seat — every part a real process, every byte through the broker.

What a venue's staff and referees rely on, checked here:

- every result of every table reaches the standings exactly once, while the broker is stopped
  and restarted mid-round, the venue is SIGKILLed and restarted, and a hub is SIGKILLed and
  restarted;
- the hub that disappears is reported offline (its will) and back online;
- the venue's standings equal the standings recomputed from the hubs' own logs
  (``paizhuo hub results`` → ``paizhuo score``): every figure can be recomputed from the logs;
- the venue's hand records hold every deal with the same deal hash at every table.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brokers import Mosquitto, free_port

from paizhuo.table import eventlog
from paizhuo.venue.store import hash_secret

PAIZHUO = [sys.executable, "-m", "paizhuo.cli"]
HUBS = ["T01", "T02", "T03"]
ROUNDS, BOARDS = 2, 2
NAMES = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏", "黄涛", "周杰", "吴婷", "徐鹏", "孙丽"]


def run(*args, **kw):
    return subprocess.run(PAIZHUO + list(args), capture_output=True, text=True, timeout=120, **kw)


class Proc:
    """A paizhuo process with its output in a file (a chatty process never blocks on a pipe)."""

    def __init__(self, folder, name, args):
        self.folder, self.name, self.args = Path(folder), name, args
        self.runs = 0
        self.proc = None

    def start(self):
        self.runs += 1
        self.out = self.folder / ("%s-%d.txt" % (self.name, self.runs))
        with open(self.out, "wb") as f:
            self.proc = subprocess.Popen(PAIZHUO + self.args, stdout=f, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        return self

    def text(self):
        return "".join((self.folder / ("%s-%d.txt" % (self.name, i))).read_text(errors="replace")
                       for i in range(1, self.runs + 1))

    def kill(self, sig=signal.SIGKILL):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=15)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


def wait(cond, timeout, what, procs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        for p in procs:
            if p.proc is not None and p.proc.poll() is not None and p.proc.returncode not in (0, -9, -15):
                raise AssertionError("%s exited %s while waiting for %s:\n%s"
                                     % (p.name, p.proc.returncode, what, p.text()[-3000:]))
        time.sleep(0.1)
    raise AssertionError("timed out after %.0f s waiting for %s\n%s" % (
        timeout, what, "\n".join("--- %s ---\n%s" % (p.name, p.text()[-2500:]) for p in procs)))


def query(db_path, sql, args=()):
    if not Path(db_path).exists():
        return []
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True, timeout=5)
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # the venue has not made its tables yet
        return []
    finally:
        db.close()


@pytest.fixture
def event(tmp_path):
    port = free_port()
    out = run("broker", "config", "--event", "e2e", "--hubs", ",".join(HUBS), "--out", str(tmp_path / "broker"),
              "--port", str(port))
    assert out.returncode == 0, out.stdout + out.stderr
    broker = Mosquitto(tmp_path / "broker", conf=tmp_path / "broker" / "mosquitto.conf", port=port)
    broker.start()
    web_port = free_port()
    lines = ["[event]", 'id = "e2e"', 'name = "端到端 e2e"', 'game = "bigtwo"',
             'secret = "text:paizhuo end to end test secret"', "rounds = %d" % ROUNDS,
             "boards_per_round = %d" % BOARDS, "auto_start = true", "",
             "[broker]", 'host = "127.0.0.1"', "port = %d" % port, 'username = "venue"',
             'password_file = "%s"' % (tmp_path / "broker" / "venue.pass"), "keepalive_seconds = 2", "",
             "[web]", 'host = "127.0.0.1"', "port = %d" % web_port,
             'referee_pin_hash = "%s"' % hash_secret("7319"), "",
             "[store]", 'path = "venue.sqlite"', ""]
    for i, hub in enumerate(HUBS, 1):
        lines += ["[[tables]]", 'table = "%d"' % i, 'hub = "%s"' % hub, ""]
    for i, name in enumerate(NAMES, 1):
        lines += ["[[players]]", 'id = "P%03d"' % i, 'name = "%s"' % name, "no = %d" % i, ""]
    (tmp_path / "event.toml").write_text("\n".join(lines), encoding="utf-8")
    check = run("venue", "check", "--event", str(tmp_path / "event.toml"))
    assert check.returncode == 0, check.stdout + check.stderr
    hubs = {}
    for i, hub in enumerate(HUBS, 1):
        folder = tmp_path / hub
        folder.mkdir()
        (folder / "table.toml").write_text("\n".join([
            "[table]", 'hub = "%s"' % hub, 'id = "%d"' % i, 'event = "e2e"', 'log = "table.sqlite"', "",
            "[venue]", 'broker = "127.0.0.1:%d"' % port, 'event = "e2e"',
            'password_file = "%s"' % (tmp_path / "broker" / ("%s.pass" % hub)), "keepalive_seconds = 2", "",
            "[seats]", 'bots = ["E", "N", "W", "S"]', "bot_think_seconds = 0.05", "",
            "[clock]", "next_deal_seconds = 1", ""]), encoding="utf-8")
        hubs[hub] = Proc(folder, "hub", ["hub", "--config", str(folder / "table.toml")])
    venue = Proc(tmp_path, "venue", ["venue", "--event", str(tmp_path / "event.toml"), "--stay"])
    try:
        yield tmp_path, broker, venue, hubs
    finally:
        for p in list(hubs.values()) + [venue]:
            p.kill(signal.SIGTERM)
        broker.stop()


def test_an_event_survives_broker_venue_and_hub_failures_and_scores_every_result_once(event):
    folder, broker, venue, hubs = event
    store = folder / "venue.sqlite"
    procs = [venue] + list(hubs.values())
    venue.start()
    wait(lambda: "referee console" in venue.text(), 60, "the venue to serve its pages", procs)
    for h in hubs.values():
        h.start()
    stored = lambda: query(store, "SELECT count(*) FROM results")[0][0] if query(store, "SELECT 1 FROM results LIMIT 1") else 0

    # The broker goes down mid-round: the hubs keep playing and keep their results in the outbox.
    wait(lambda: stored() >= 4, 120, "the first result at the venue", procs)
    broker.stop()
    time.sleep(3)  # the tables play on without the broker
    broker.start()

    # The venue dies (power cut) and comes back: nothing it acknowledged is lost.
    wait(lambda: stored() >= 12, 120, "results after the broker restart", procs)
    venue.kill()
    venue.start()

    # A hub dies: the venue learns it from the will, then the hub comes back and finishes.
    wait(lambda: "referee console" in venue.text().split("paizhuo venue: event")[-1], 60, "the venue again", procs)
    hubs["T02"].kill()
    wait(lambda: query(store, "SELECT 1 FROM alerts WHERE hub = 'T02' AND kind IN ('hub_offline', 'offline')"),
         30, "T02's offline alert", procs)
    hubs["T02"].start()

    total = len(NAMES) * ROUNDS * BOARDS
    wait(lambda: stored() >= total and "the last round is complete" in venue.text(), 300,
         "every result of the event", procs)

    rows = query(store, "SELECT result_id, status FROM results")
    assert len(rows) == total == len({r[0] for r in rows}), "each result stored exactly once"
    assert all(status == "ok" for _, status in rows), rows
    assert not query(store, "SELECT reason FROM refusals WHERE reason LIKE '%conflict%'")

    # Every figure recomputed from the hubs' own logs: export, score, compare with the venue.
    exported = []
    for hub, h in hubs.items():
        out = run("hub", "results", "--config", str(h.folder / "table.toml"))
        assert out.returncode == 0, out.stderr
        exported += json.loads(out.stdout)
    assert len(exported) == total
    (folder / "all.json").write_text(json.dumps(exported), encoding="utf-8")
    scored = run("score", "--input", str(folder / "all.json"), "--format", "json")
    assert scored.returncode == 0, scored.stderr
    mine = {p["player"]: (p["rank"], p["R"]) for p in json.loads(scored.stdout)["players"]}
    latest = json.loads(query(store, "SELECT data FROM standings ORDER BY id DESC LIMIT 1")[0][0])
    theirs = {p["player"]: (p["rank"], p["R"]) for p in latest["players"]}
    assert theirs == mine

    # Every table of a board's group played the same cards, and the hand records say so.
    hashes = {}
    for (rid,) in query(store, "SELECT raw FROM results"):
        r = json.loads(rid)
        hashes.setdefault((r["round"], r["board"]), set()).add(r["deal_hash"])
    assert len(hashes) == ROUNDS * BOARDS and all(len(v) == 1 for v in hashes.values())
    for h in hubs.values():
        verify = run("hub", "verify", "--log", str(h.folder / "table.sqlite"))
        assert verify.returncode == 0, verify.stdout + verify.stderr

    # No deal exists at a table before its round starts: a round entry holds the boards' hashes
    # and no cards; the round's start (which brought the key) holds the deals; every deal of a
    # round begins after that start.  The venue's stored specs hold no round key either.
    for h in hubs.values():
        db = eventlog.open_readonly(str(h.folder / "table.sqlite"))
        try:
            log = [e for tid in eventlog.table_ids(db) for e in eventlog.read_entries(db, tid)]
        finally:
            db.close()
        started = set()
        for e in log:
            b = e.body
            if e.kind == "round":
                assert "deals" not in b and "hands" not in json.dumps(b) and len(b["deal_hashes"]) == BOARDS
            elif e.kind == "round_start":
                started.add(b["round"])
                assert [d["board"] for d in b["deals"]] == list(range(1, BOARDS + 1))
            elif e.kind == "deal_start":
                assert b["deal_record"]["round"] in started, "deal %s before its round's start" % b["deal"]
        assert sorted(started) == list(range(1, ROUNDS + 1))
    for (spec,) in query(store, "SELECT spec FROM round_specs"):
        assert "round_key" not in json.loads(spec)
