"""A whole event on one machine: the venue service with its embedded broker and web pages,
and several table hubs that report to it over MQTT.

- ``paizhuo venue`` runs as its own process: an embedded amqtt broker on a free loopback port
  (logins from ``broker/``, which this class writes with ``paizhuo broker config``'s code, so
  every hub logs in with its own password as at a real event), the venue service (results, standings, movement, hand records) and the web pages (public
  standings and the PIN-protected referee console).
- Table 1 is a real table (:class:`paizhuo.sim.table.SimTable`): the ``paizhuo hub`` process and
  a seat board per seat of the game running the firmware under the MicroPython unix port on pty links.  Its
  simulated players type their player number on the check-in keypad each round and play by
  touching the screens.
- The other tables are hubs whose seats (the game's: four, or three) the hub's bot plays
  (``[seats] bots``), standing in for players so a small field can move between rounds.

Every hub is a separate ``paizhuo hub`` process with its own event log and outbox; nothing is
shared but the broker.  The venue process runs with ``--stay``; :meth:`close` stops it after the
caller has read the final standings (the demo keeps it up until Ctrl-C when asked to stay).

    >>> with SimEvent("/tmp/ev", tables=3, rounds=2, boards=2) as ev:   # doctest: +SKIP
    ...     ev.start()
    ...     ev.run()
    ...     ev.standings()["players"][0]
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ..mqtt.mosquitto import write_config
from ..provision import toml_str
from .. import rules as rules_
from ..venue.event import check_pin
from ..venue.store import hash_secret
from . import lifeline
from .table import SimTable

NAMES = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏", "黄涛", "周杰", "吴婷", "徐鹏", "孙丽",
         "马超", "朱琳", "胡斌", "郭霞", "何军", "林颖", "高翔", "罗兰"]


# How often a simulated player makes an offhand choice: enough that the tables of a group,
# which play the same cards, come out differently, so the standings have something to rank.
WHIM = 0.2


class EventSimError(RuntimeError):
    """The simulated event did not do what was awaited (the message says what, with output)."""


def _toml_value(v):
    """A rule option's value as TOML (true/false, a number, a string)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return toml_str(str(v))


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SimEvent:
    """The venue, table 1 with firmware seats (unless ``firmware_table`` is false) and
    ``tables - 1`` bot tables, all under ``folder``.

    ``rounds`` and ``boards`` (per round) shape the event; ``pin`` is the referee console's
    PIN (only its hash is written to event.toml); ``web_port`` 0 picks a free port.

    ``game`` (default: the registry's default game) is any game the table hubs play.  A game
    whose board is a match (the registry's ``Game.match``) runs as a ``format`` ``"pairs"``
    (default) or ``"teams"`` event of ``sides`` sides (default: enough to fill the tables; one
    more than an even number gives a bye), one match per round, under ``rules`` (the engine's
    options, e.g. ``{"max_deals": 2}``, written as event.toml ``[rules]``); ``tables_per_group``
    as event.toml's (1: each pairs table its own deals).
    """

    def __init__(self, folder, tables=4, rounds=2, boards=2, seed=2026, pin="246810", firmware_table=True,
                 web_port=0, bot_think_seconds=0.15, clock_scale=1.0, event_id="demo",
                 auto_start=True, game=None, format=None, sides=None, rules=None, tables_per_group=None):
        self.game = game or rules_.DEFAULT_GAME
        self.seats = rules_.game(self.game).seats  # the game's seats, in play order (three or four)
        if not 2 <= tables <= len(NAMES) // len(self.seats):
            raise ValueError("tables must be 2 to %d" % (len(NAMES) // len(self.seats)))
        check_pin(pin)  # the rule `paizhuo venue pin` applies: the demo's PIN is one staff could choose
        self.match = rules_.game(self.game).match
        self.format = (format or "pairs") if self.match else None
        self.rules = rules
        self.tables_per_group = tables_per_group
        self.size = {"pairs": 2, "teams": 4}.get(self.format)
        if self.match:
            rooms = 2 if self.format == "teams" else 1
            self.sides = sides or tables // rooms * 2
            if not 2 <= self.sides <= len(NAMES) // self.size or self.sides // 2 * rooms > tables:
                raise ValueError("%d %s need %d tables (of %d) and %d players (of %d names)"
                                 % (self.sides, self.format, self.sides // 2 * rooms, tables, self.sides * self.size,
                                    len(NAMES)))
            boards = 1  # a round of a match event is one match
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.tables = tables
        self.rounds = rounds
        self.boards = boards
        self.seed = seed
        self.pin = pin
        self.firmware_table = firmware_table
        self.web_port = web_port or free_port()
        self.broker_port = free_port()
        self.bot_think_seconds = bot_think_seconds
        self.clock_scale = clock_scale
        self.event_id = event_id
        self.auto_start = auto_start
        self.venue = None
        self.hubs = {}  # hub id -> Popen (bot tables)
        self.sim = None  # the firmware table
        self.urls = None
        self.event_path = self.folder / "event.toml"
        self.credentials = self.folder / "broker"   # the embedded broker's logins: <hub>.pass per hub
        self.venue_output = self.folder / "venue.txt"

    # ---- configuration ---------------------------------------------------------------------

    def hub_id(self, n):
        return "T%02d" % n

    def players(self):
        n = self.sides * self.size if self.match else self.tables * len(self.seats)
        return [("P%03d" % (i + 1), NAMES[i], i + 1) for i in range(n)]

    def side_rows(self):
        """The sides of a match event: (id, name, player ids), players in order."""
        ids = [pid for pid, _, _ in self.players()]
        word = "对" if self.format == "pairs" else "队"
        return [("S%d" % (k + 1), "第%d%s" % (k + 1, word), ids[k * self.size:(k + 1) * self.size])
                for k in range(self.sides)]

    def password_file(self, hub):
        """The hub's broker password file (written by :meth:`write_event`)."""
        return str(self.credentials / ("%s.pass" % hub))

    def write_event(self):
        if not (self.credentials / "passwd").exists():
            write_config(str(self.credentials), self.event_id, [self.hub_id(n) for n in range(1, self.tables + 1)],
                         bind="127.0.0.1")
        secret = "text:paizhuo demo event %d" % self.seed
        lines = ["[event]", "id = %s" % toml_str(self.event_id), 'name = "paizhuo 演示赛 demo"',
                 "game = %s" % toml_str(self.game)] + (["format = %s" % toml_str(self.format)] if self.match else []) + [
                 "secret = %s" % toml_str(secret), "rounds = %d" % self.rounds,
                 "boards_per_round = %d" % self.boards] + (
                    ["tables_per_group = %d" % self.tables_per_group] if self.tables_per_group else []) + [ "auto_start = %s" % ("true" if self.auto_start else "false"), "",
                 "[web]", 'host = "127.0.0.1"', "port = %d" % self.web_port,
                 "referee_pin_hash = %s" % toml_str(hash_secret(self.pin)), "",
                 "[embedded_broker]", 'credentials = "broker"', "",
                 "[store]", 'path = "venue.sqlite"', ""]
        for n in range(1, self.tables + 1):
            lines += ["[[tables]]", 'table = "%d"' % n, "hub = %s" % toml_str(self.hub_id(n)), ""]
        for pid, name, no in self.players():
            lines += ["[[players]]", "id = %s" % toml_str(pid), "name = %s" % toml_str(name), "no = %d" % no, ""]
        for sid, name, ids in (self.side_rows() if self.match else ()):
            lines += ["[[sides]]", "id = %s" % toml_str(sid), "name = %s" % toml_str(name),
                      "players = [%s]" % ", ".join(toml_str(p) for p in ids), ""]
        if self.rules:
            lines += ["[rules]"] + ["%s = %s" % (k, _toml_value(v)) for k, v in sorted(self.rules.items())] + [""]
        self.event_path.write_text("\n".join(lines), encoding="utf-8")

    def write_bot_table(self, n):
        folder = self.folder / ("table-%d" % n)
        folder.mkdir(exist_ok=True)
        lines = ["[table]", "hub = %s" % toml_str(self.hub_id(n)), 'id = "%d"' % n, 'event = "paizhuo demo"',
                 'log = "table.sqlite"', "game = %s" % toml_str(self.game), "",
                 "[venue]", 'broker = "127.0.0.1:%d"' % self.broker_port, "event = %s" % toml_str(self.event_id),
                 "password_file = %s" % toml_str(self.password_file(self.hub_id(n))), "keepalive_seconds = 5", "",
                 "[seats]", "bots = [%s]" % ", ".join(toml_str(s) for s in self.seats),
                 "bot_think_seconds = %s" % self.bot_think_seconds,
                 "bot_whim = %s" % WHIM, "",
                 "[clock]", "next_deal_seconds = 1", ""]
        path = folder / "table.toml"
        path.write_text("\n".join(lines), encoding="utf-8")
        return path

    # ---- life ------------------------------------------------------------------------------

    def start(self, on_step=None):
        """The venue, then every hub; returns the (standings, console) URLs."""
        say = on_step or (lambda text: None)
        self.write_event()
        say("starting the venue (embedded MQTT broker on 127.0.0.1:%d, web pages on port %d)"
            % (self.broker_port, self.web_port))
        with open(self.venue_output, "wb") as out:
            cmd = [sys.executable, "-m", "paizhuo.cli", "venue", "--event", str(self.event_path),
                   "--broker-port", str(self.broker_port), "--stay"]  # this object decides when it stops
            self.venue = lifeline.popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.urls = self._wait_urls()
        first_bot = 1
        if self.firmware_table:
            first_bot = 2
            say("table 1: the hub and %d seat boards (MicroPython firmware) on pty serial links" % len(self.seats))
            self.sim = SimTable(self.folder / "table-1", game=self.game, clock_scale=self.clock_scale,
                                clock={"next_deal_seconds": 1},
                                venue={"broker": "127.0.0.1:%d" % self.broker_port, "event": self.event_id,
                                       "hub": self.hub_id(1), "table": "1",
                                       "password_file": self.password_file(self.hub_id(1))},
                                names="".join(name for _, name, _ in self.players()))
            self.sim.start()
        for n in range(first_bot, self.tables + 1):
            path = self.write_bot_table(n)
            out = open(path.parent / "hub.txt", "wb")
            self.hubs[self.hub_id(n)] = lifeline.popen(
                [sys.executable, "-m", "paizhuo.cli", "hub", "--config", str(path)],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            out.close()
        say("tables %d-%d: hubs whose bots play all %d seats" % (first_bot, self.tables, len(self.seats)))
        return self.urls

    def _wait_urls(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.venue_text()
            urls = {}
            for line in text.splitlines():
                for key in ("standings", "referee console"):
                    if key in line and "http://" in line:
                        urls[key] = line[line.index("http://"):].split()[0]
            if len(urls) == 2:
                return urls["standings"], urls["referee console"]
            if self.venue.poll() is not None:
                raise EventSimError("the venue exited (%s):\n%s" % (self.venue.returncode, text[-4000:]))
            time.sleep(0.05)
        raise EventSimError("the venue did not serve its pages within %.0f s:\n%s" % (timeout, self.venue_text()[-4000:]))

    def venue_text(self):
        try:
            return self.venue_output.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def finished(self):
        """The venue says the last round is complete."""
        return "the last round is complete" in self.venue_text()

    def run(self, timeout=600.0, on_checkin=None, on_action=None):
        """Play until the venue has the whole event; the firmware table's bots check in and touch."""
        deadline = time.monotonic() + timeout
        if self.sim is not None:
            self.sim.play(seed=self.seed, timeout=timeout, until=lambda h: self._done_or_failed(),
                          on_checkin=on_checkin, on_action=on_action, whim=WHIM)
        while not self._done_or_failed():
            if time.monotonic() > deadline:
                raise EventSimError("the event did not finish within %.0f s\n--- venue ---\n%s"
                                    % (timeout, self.venue_text()[-4000:]))
            time.sleep(0.1)

    def _done_or_failed(self):
        if self.finished():
            return True
        if self.venue.poll() is not None:
            raise EventSimError("the venue exited (%s) before the event finished:\n%s"
                                % (self.venue.returncode, self.venue_text()[-4000:]))
        for hub, proc in self.hubs.items():
            if proc.poll() is not None:
                text = (self.folder / ("table-%s" % int(hub[1:])) / "hub.txt").read_text(errors="replace")
                raise EventSimError("hub %s exited (%s):\n%s" % (hub, proc.returncode, text[-4000:]))
        return False

    def get_json(self, path):
        """A JSON document from the venue's web server (``/standings.json``, ``/records/1.json``)."""
        base = self.urls[0].rstrip("/")
        with urllib.request.urlopen(base + path, timeout=10) as r:
            return json.loads(r.read().decode("utf-8"))

    def standings(self):
        return self.get_json("/standings.json")

    def close(self):
        """Stop every process this event started: the firmware table (hub, seats, socat), the bot
        tables' hubs and the venue — the rest even when one of them fails to stop."""
        try:
            if self.sim is not None:
                self.sim.close()
        finally:
            self._stop_processes()

    def _stop_processes(self):
        for proc in list(self.hubs.values()) + ([self.venue] if self.venue else []):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in list(self.hubs.values()) + ([self.venue] if self.venue else []):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
