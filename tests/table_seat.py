"""A CPython test seat and a table rig for the table hub's tests and benchmark.

:class:`TestSeat` stands in for the seat firmware: it opens the seat end of a pty link and
speaks the link contract with :mod:`paizhuo_shared.link` (challenge → hello → welcome,
sealed frames, heartbeat ``ack``, re-handshake on a new challenge or a ``no_session`` /
``bad_tag`` / ``seq_gap`` reject).  It records every frame the hub sends it (for the privacy
test) and can send anything, well-formed or hostile.

:class:`Rig` starts four pty links, writes a ``table.toml`` for them, and runs the hub either
in this process (a :class:`paizhuo.table.runtime.Table` task) or as a ``paizhuo hub``
subprocess (for the SIGKILL test and the benchmark).

Venue mode (issue #5): ``Rig(..., venue={...})`` writes a ``[venue]`` table and no ``[deals]``
(round specs from :func:`round_spec` bring them), ``bots`` puts seats in ``[seats] bots``
(they get no board), ``spares`` adds spare boards (``seat = "spare"``).  A test seat can
check in (:meth:`TestSeat.checkin`) and records the referee's notes (:attr:`TestSeat.notes`).
"""

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import time

from paizhuo import rules as rules_
from paizhuo.bots.bigtwo import BigTwoBot
from paizhuo.rules import bigtwo
from paizhuo.sim.links import PtyLink
from paizhuo.table import config as config_
from paizhuo.table import eventlog
from paizhuo.table.runtime import Table
from paizhuo_shared import bigtwo as plays_
from paizhuo_shared import link

SEATS = ("E", "N", "W", "S")
DEVICES = {"E": "S-0001", "N": "S-0002", "W": "S-0003", "S": "S-0004"}
# (+ 1: never bytes(range(32)), the published example key `paizhuo hub` refuses)
KEYS = {s: bytes((i * 37 + k + 1) % 256 for k in range(32)) for i, s in enumerate(SEATS)}
SPARE = "S-0099"  # the spare board of venue-mode rigs
SPARE_KEY = bytes((200 + 3 * k) % 256 for k in range(32))
# The players of round specs in tests: numbers 11-14 in round 1 (PLAYERS), a shuffled
# seating in round 2 (PLAYERS_2), as the venue's movement would send them.
PLAYERS = {"E": {"id": "P011", "name": "李四", "no": 11, "bot": False},
           "N": {"id": "P012", "name": "王五", "no": 12, "bot": False},
           "W": {"id": "P013", "name": "赵六", "no": 13, "bot": False},
           "S": {"id": "P014", "name": "钱七", "no": 14, "bot": False}}
PLAYERS_2 = {"E": PLAYERS["S"], "N": PLAYERS["W"], "W": PLAYERS["E"], "S": PLAYERS["N"]}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIZHUO = os.path.join(os.path.dirname(sys.executable), "paizhuo")

# A hand-made deal where every phase is easy to reach on purpose (E holds ♦3).
DEAL = {
    "E": "3D 4D 5D 6D 7D 3C 4C 5C 6C 7C 3H 4H 5H",
    "N": "8D 9D TD JD QD 8C 9C TC JC QC 8H 9H TH",
    "W": "KD AD 2D KC AC 2C KH AH 2H 6H 7H JH QH",
    "S": "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S",
}


def _toml_value(v):
    if isinstance(v, str):
        return '"%s"' % v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[%s]" % ", ".join(_toml_value(x) for x in v)
    return repr(v)


def write_config(folder, ports, deals=None, clock=None, devices=None, log="table.sqlite", extra="", boards="1-4",
                 venue=None, seats=None, players=True, game=None):
    """Write ``folder/table.toml`` for these ports (listed in the given order) and return its path.

    ``deals``: None for generated ``boards``, a list of ``{seat: "codes"}`` dicts, or False for
    no ``[deals]`` (venue mode: the round specs bring them).
    ``clock``: the [clock] options (e.g. ``{"scale": 0.01, "grace_seconds": 1}``).
    ``venue``, ``seats``: the ``[venue]`` and ``[seats]`` options, when given.
    """
    devices = devices if devices is not None else {DEVICES[s]: (KEYS[s].hex(), s) for s in SEATS}
    lines = ['[table]', 'hub = "T07"', 'id = "7"', 'event = "test event"', 'log = "%s"' % log]
    lines += ['game = "%s"' % game] if game else []
    lines += ['']
    lines += ['[clock]'] + ['%s = %s' % (k, v) for k, v in (clock or {}).items()] + ['']
    if venue is not None:
        lines += ['[venue]'] + ['%s = %s' % (k, _toml_value(v)) for k, v in venue.items()] + ['']
    if seats is not None:
        lines += ['[seats]'] + ['%s = %s' % (k, _toml_value(v)) for k, v in seats.items()] + ['']
    lines += ['[link]', 'ports = [%s]' % ", ".join('"%s"' % p for p in ports), '']
    for dev, (key, seat) in devices.items():
        lines += ['[devices.%s]' % dev, 'key = "%s"' % key, 'seat = "%s"' % seat, '']
    if players:
        lines += ['[players.E]', 'id = "P001"', 'name = "张三"', '']
    if deals is False:
        pass
    elif deals is None:
        lines += ['[deals]', 'secret = "text:table hub tests, long enough"', 'boards = "%s"' % boards, '']
    else:
        lines += ['[deals]']
        for i, d in enumerate(deals):
            lines += ['[[deals.inline]]', 'board = %d' % (i + 1)] + ['%s = "%s"' % (s, d[s]) for s in SEATS]
    path = os.path.join(folder, "table.toml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n" + extra)
    return path


def legal_from_view(view, rules=None):
    """The seat's legal actions worked out from its own view (as a seat board pre-checks)."""
    rules = rules or plays_.Rules()
    if view is None or view["seat"] not in view["to_act"]:
        return []
    seat = view["seat"]
    phase = view["phase"]
    if phase in ("show", "double"):
        return [bigtwo.Action(phase, seat, yes=False), bigtwo.Action(phase, seat, yes=True)]
    hand = plays_.cards(view["hand"])
    tb = view["to_beat"]
    size, above = 0, -1
    if tb is not None:
        beat = plays_.cards(tb["cards"])
        size, above = len(beat), plays_.classify(beat, rules)[1]
    found = plays_.plays(hand, rules, size=size, above=above,
                         must_hold=plays_.DIAMOND_THREE if view["first_play"] else -1,
                         top_single_only=bool(view.get("duty")))
    out = [bigtwo.Action("play", seat, cards=p[0]) for p in found]
    if tb is not None:
        out.append(bigtwo.Action.pass_(seat))
    return out


def intent_of(action):
    """The intent's ``a`` for an engine Action (its to_dict without the seat)."""
    d = action.to_dict()
    d.pop("seat")
    d.pop("auto", None)
    d.pop("think_ms", None)
    return d


class TestSeat:
    """A seat board stand-in on the seat end of a pty link (see the module doc)."""

    __test__ = False  # not a pytest test class

    def __init__(self, path, dev, key, fw="test-1", heartbeat=1.0, auto_hello=True):
        self.path = path
        self.dev = dev
        self.key = key
        self.fw = fw
        self.heartbeat = heartbeat
        self.auto_hello = auto_hello
        self.fd = None
        self.reader = link.LineReader()
        self.hub_nonce = ""
        self.session = None
        self.welcome = None
        self.frames = []  # every message the hub sent, in order (decoded)
        self.raw = []  # every line received, as bytes
        self.rejects = []
        self.state = None
        self.view = None
        self.turn = None
        self.clock = None
        self.clock_at = None  # monotonic time the clock message arrived
        self.screen = None
        self.result = None
        self.results = 0  # result frames received: a count, so a result screen missed (passed in a moment) still counts
        self.welcomes = 0
        self.notes = []  # the referee's notes (note messages) received, in order
        self.seatmap = None  # the seat map of the last state / seatmap message
        self.turn_times = {}  # turn -> perf_counter() when this seat first heard of it
        self._changed = asyncio.Event()
        self._tasks = []
        self._hello_due = time.monotonic() + 0.3  # give the hub's challenge a moment first
        self.session_key = None

    # -- life cycle --------------------------------------------------------------------
    async def start(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        loop = asyncio.get_running_loop()
        loop.add_reader(self.fd, self._readable)
        self._tasks = [asyncio.create_task(self._ticker())]

    async def stop(self):
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self.fd is not None:
            asyncio.get_running_loop().remove_reader(self.fd)
            os.close(self.fd)
            self.fd = None
        self.session = None

    async def _ticker(self):
        last_ack = 0.0
        while True:
            await asyncio.sleep(0.05)
            now = time.monotonic()
            # Like the firmware: until welcomed, hello every second (hn "" before any challenge).
            if self.session is None and self.auto_hello and now >= self._hello_due:
                self.hello()
            if self.session is not None and self.heartbeat and now - last_ack >= self.heartbeat:
                last_ack = now
                self.send({"t": "ack", "upto": 0})

    # -- sending -------------------------------------------------------------------------
    def write(self, data):
        os.write(self.fd, data)

    def hello(self, dev=None, key=None, hn=None):
        self._seat_nonce = os.urandom(16).hex()
        msg = {"t": "hello", "s": 0, "dev": dev or self.dev, "fw": self.fw, "board": "host",
               "n": self._seat_nonce, "hn": self.hub_nonce if hn is None else hn}
        self.write(link.encode(msg, key or self.key))
        self._hello_due = time.monotonic() + 1.0
        self._pending_key = key or self.key

    def send(self, msg):
        """Seal and send a message in the session; returns its ``s``."""
        line = self.session.seal(msg)
        self.write(line)
        return msg["s"]

    def intent(self, a, turn=None):
        return self.send({"t": "intent", "turn": self.turn if turn is None else turn, "a": a})

    def checkin(self, no):
        """The player types their number on the check-in keypad and confirms."""
        return self.send({"t": "checkin", "no": no})

    # -- receiving ------------------------------------------------------------------------
    def _readable(self):
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            asyncio.get_running_loop().remove_reader(self.fd)
            return
        for line in self.reader.feed(data):
            if line is link.TOO_LONG:
                continue
            self.raw.append(line)
            self._on_line(line)
        self._changed.set()

    def _on_line(self, line):
        msg = None
        if self.session is not None:
            try:
                msg = self.session.open(line)
            except link.LinkError:
                msg = None
        if msg is None:
            try:
                msg = link.decode(line, b"")
            except link.LinkError:
                msg = None
            if msg is None and getattr(self, "_seat_nonce", None) and self.hub_nonce:
                # The welcome: the first frame of a new session, under the new K.
                k = link.session_key(self._pending_key, self.hub_nonce, self._seat_nonce)
                s = link.Session(k, "hub")
                try:
                    msg = s.open(line)
                except link.LinkError:
                    return
                if msg["t"] != "welcome":
                    return
                self.session = s
                self.session_key = k  # tests seal hand-made frames with it
                self.welcome = msg
                self.welcomes += 1
                self.frames.append(msg)
                return
            if msg is None:
                return
        self.frames.append(msg)
        t = msg["t"]
        if t in ("event", "state") and msg["turn"] is not None:
            self.turn_times.setdefault(msg["turn"], time.perf_counter())  # the benchmark reads these
        if t == "challenge":
            self.hub_nonce = msg["n"]
            self.session = None
            if self.auto_hello:
                self.hello()
        elif t == "reject":
            self.rejects.append(msg)
            if msg["code"] in ("no_session", "bad_tag", "seq_gap") and self.session is not None and self.auto_hello:
                self.session = None
                self.hello()
        elif t == "note":
            self.notes.append(msg)
        elif t == "seatmap":
            self.seatmap = msg["seatmap"]
        elif t == "state":
            self.state = msg
            self.seatmap = msg["seatmap"]
            self.screen = msg["screen"]
            self.view = msg["view"]
            self.turn = msg["turn"]
            self._set_clock(msg["clock"])
            if msg["result"] is not None:
                self.result = msg["result"]
        elif t == "event":
            self.view = msg["view"]
            self.turn = msg["turn"]
            self._set_clock(msg["clock"])
        elif t == "clock":
            self._set_clock(msg["clock"])
        elif t == "result":
            self.result = msg["result"]
            self.results += 1
            self.screen = "result"

    def _set_clock(self, clock):
        self.clock = clock
        self.clock_at = time.monotonic()

    async def wait_for(self, predicate, timeout=10.0, what="condition"):
        """Wait until ``predicate()`` holds (re-checked on every frame); TimeoutError names ``what``."""
        deadline = time.monotonic() + timeout
        while True:
            self._changed.clear()  # frames arrive only while we await, so nothing is missed
            if predicate():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("seat %s: timed out waiting for %s" % (self.dev, what))
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.1))
            except asyncio.TimeoutError:
                pass

    async def wait_frame(self, t, since, timeout=5.0):
        """The first frame of type ``t`` received after index ``since`` of :attr:`frames`."""
        found = []

        def got():
            found[:] = [m for m in self.frames[since:] if m["t"] == t]
            return bool(found)

        await self.wait_for(got, timeout, "a %s frame" % t)
        return found[0]

    @property
    def online(self):
        return self.session is not None

    def my_turn(self):
        v = self.view
        return v is not None and self.screen == "deal" and v["seat"] in v["to_act"] and \
            v["phase"] != "over" and not (v["phase"] == "show" and v.get("my_show") is not None)


class Rig:
    """A pty link per seat of the game (four for the default game), a table.toml, the test
    seats, and the hub (in process or a subprocess)."""

    def __init__(self, folder, order=SEATS, deals=None, clock=None, seats=SEATS, extra="", boards="1-4",
                 venue=None, bots=(), spares=(), bot_think_seconds=None, players=True, game=None):
        self.folder = folder
        # the game's seats (a three-seat game drops S from the defaults)
        game_seats = rules_.game(game or rules_.DEFAULT_GAME).seats
        order = [s for s in order if s in game_seats]
        seats = [s for s in seats if s in game_seats]
        self.links = {s: PtyLink(folder, s) for s in game_seats if s not in bots}
        ports = [self.links[s].hub_path for s in order if s not in bots]  # config port order, on purpose not E N W S
        devices = {DEVICES[s]: (KEYS[s].hex(), s) for s in game_seats if s not in bots}
        for dev in spares:
            devices[dev] = (SPARE_KEY.hex() if dev == SPARE else bytes(32 - len(dev)).hex() + dev.encode().hex(),
                            "spare")
        seat_opts = None
        if bots or bot_think_seconds is not None:
            seat_opts = {"bots": list(bots)}
            if bot_think_seconds is not None:
                seat_opts["bot_think_seconds"] = bot_think_seconds
        if venue is True:
            venue = {"broker": "127.0.0.1:1", "event": "test"}  # in-process tests run no uplink
        self.config_path = write_config(folder, ports, deals=False if venue is not None and deals is None else deals,
                                        clock=clock, extra=extra, boards=boards, venue=venue, seats=seat_opts,
                                        devices=devices, players=players, game=game)
        self.config = config_.load(self.config_path)
        self.seats = {s: TestSeat(self.links[s].seat_path, DEVICES[s], KEYS[s]) for s in seats if s not in bots}
        self.table = None
        self.proc = None
        self.spawned = 0
        self.hub_output = None
        self.alerts = []
        self._stop = None
        self._task = None

    async def start_seats(self):
        for seat in self.seats.values():
            await seat.start()

    async def start_hub(self, **kw):
        self._stop = asyncio.Event()
        kw.setdefault("on_alert", self.alerts.append)
        self.table = Table(self.config, **kw)
        self._task = asyncio.create_task(self.table.run(self._stop))
        await self.table.started.wait()
        return self.table

    async def stop_hub(self):
        if self._task is not None:
            self._stop.set()
            await self._task
            self._task = None

    def spawn_hub(self):
        """Run ``paizhuo hub --config …`` as a subprocess (its own session, so it can be killed)."""
        self.hub_output = os.path.join(self.folder, "hub-%d.txt" % self.spawned)
        self.spawned += 1
        with open(self.hub_output, "wb") as out:  # a file, not a pipe: a chatty hub never blocks
            self.proc = subprocess.Popen([PAIZHUO, "hub", "--config", self.config_path], stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        return self.proc

    def kill_hub(self, sig=signal.SIGKILL):
        """Signal the hub subprocess and wait for it; returns what it printed."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=10)
        self.proc = None
        with open(self.hub_output, encoding="utf-8", errors="replace") as f:
            return f.read()

    async def all_online(self, timeout=10.0, screen="deal"):
        """Every seat is welcomed and (unless ``screen`` is None) shows that screen."""
        for seat in self.seats.values():
            await seat.wait_for(lambda s=seat: s.online and s.state is not None and screen in (None, s.screen),
                                timeout, "welcome and the %s screen" % screen)

    async def close(self):
        await self.stop_hub()
        if self.proc is not None:
            self.kill_hub()
        for seat in self.seats.values():
            await seat.stop()
        for ln in self.links.values():
            ln.close()


async def play_deal(rig, bots=None, timeout=60.0, on_intent=None):
    """Every seat answers its decisions with the bot's choice from its own view until the result.

    ``on_intent(seat, action)`` is called before each intent is sent (the benchmark times it).
    """
    bots = bots or {s: BigTwoBot(seed=10 + i) for i, s in enumerate(SEATS)}
    seats = rig.seats
    deadline = time.monotonic() + timeout
    sent = {}
    before = {name: s.results for name, s in seats.items()}
    while True:
        for s in seats.values():
            s._changed.clear()  # frames arrive only while we await, so no wake-up is lost
        # The result screen lasts next_deal_seconds only: a busy machine may read a seat's result
        # and the next deal's state in one go, so the result frames are counted, not looked for.
        if all(s.screen == "result" for s in seats.values()) or all(
                s.results > before[name] for name, s in seats.items()):
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the deal did not finish within %.0f s" % timeout)
        acted = False
        for name, seat in seats.items():
            # 明牌 is one decision for all four while the turn counts the others' answers: a
            # seat answers it once (a second answer, sent while the first is on the wire, would
            # be refused stale_turn once the 加倍 has begun).
            key = (None if seat.view and seat.view["phase"] == "show" else seat.turn,
                   seat.view["phase"] if seat.view else None)
            if seat.online and seat.my_turn() and sent.get(name) != key:
                # a bot that decides from the view alone (the registry's new_bot) needs no listing
                legal = legal_from_view(seat.view) if getattr(bots[name], "needs_legal", True) else None
                if legal is not None and not legal:
                    continue
                choice = bots[name].choose(seat.view, legal)
                if on_intent is not None:
                    on_intent(name, choice)
                sent[name] = key
                seat.intent(intent_of(choice))
                acted = True
        if not acted:
            waiters = [asyncio.ensure_future(s._changed.wait()) for s in seats.values()]
            await asyncio.wait(waiters, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
            for w in waiters:
                w.cancel()
        else:
            await asyncio.sleep(0)


async def play_until(rig, turn, bots=None, timeout=30.0):
    """Seats answer with the bot's choice until every seat has seen ``turn`` actions applied."""
    bots = bots or {s: BigTwoBot(seed=i) for i, s in enumerate(SEATS)}
    sent = {}
    deadline = time.monotonic() + timeout
    while not all((s.turn or 0) >= turn for s in rig.seats.values()):
        if time.monotonic() > deadline:
            raise TimeoutError("the deal did not reach turn %d" % turn)
        for name, seat in rig.seats.items():
            key = "show" if seat.view and seat.view["phase"] == "show" else seat.turn  # 明牌: answered once
            if (seat.turn or 0) < turn and seat.my_turn() and sent.get(name) != key:
                sent[name] = key
                seat.intent(intent_of(bots[name].choose(seat.view, legal_from_view(seat.view))))
        await asyncio.sleep(0.01)


SECRET = b"paizhuo venue tests"  # the test venue's event secret


def round_key(rnd=1, secret=SECRET):
    """The round key (64 hex) the venue's start of round ``rnd`` carries."""
    from paizhuo.venue import deals as deals_
    return deals_.round_key(secret, rnd).hex()


def round_spec(rnd=1, boards=(1, 2), players=None, moves=None, id=None, secret=SECRET, group=1, table="7",
               game="bigtwo"):
    """A venue round spec for table 7 (docs/protocol.md § Round spec): the boards' deal hashes
    from ``secret``, never the round key (that comes with the start: :func:`round_key`).  The
    players default to :data:`PLAYERS` on the game's seats."""
    from paizhuo.venue import deals as deals_
    key = deals_.round_key(secret, rnd)
    hashes = {str(b): deals_.deal_from_round_key(key, game, group, b, round=rnd).hash for b in boards}
    players = players or {s: PLAYERS[s] for s in rules_.game(game).seats}
    return {"v": 1, "id": id or "spec-r%d" % rnd, "round": rnd, "group": group, "game": game, "table": table,
            "boards": list(boards), "deal_hashes": hashes, "players": players, "moves": moves}


async def check_in_all(rig, players=PLAYERS, timeout=10.0):
    """Every test seat checks in with its round player's number and waits until it is checked."""
    for s, seat in rig.seats.items():
        await seat.wait_for(lambda seat=seat: seat.screen == "checkin", timeout, "the check-in screen")
        seat.checkin(players[s]["no"])
    for seat in rig.seats.values():
        await seat.wait_for(lambda seat=seat: seat.seatmap and seat.seatmap.get("checked"), timeout, "checked in")


async def in_round_one(rig, moves):
    """Seats and hub started, round 1 (board 1) loaded, started and checked in, ``moves`` played; the table."""
    await rig.start_seats()
    table = await rig.start_hub()
    table.load_round(round_spec(1, boards=[1]))
    table.start_round(1, round_key(1))
    await check_in_all(rig)
    await rig.all_online(screen="deal")
    await play_until(rig, moves)
    return table


def random_bytes(n, seed):
    return bytes(random.Random(seed).randrange(256) for _ in range(n))


# ---- reading what the hub did ------------------------------------------------------------------

def log_entries(path, table="7", kind=None):
    """A table log's entries (or only those of ``kind``), read with the log's own reader; the
    hub may be writing it (WAL)."""
    db = eventlog.open_readonly(str(path))
    try:
        return [e for e in eventlog.read_entries(db, table) if kind is None or e.kind == kind]
    finally:
        db.close()


CARD = re.compile(r"^[2-9TJQKA][DCHS]$")


def card_strings(obj):
    """Every card code anywhere in a message (privacy checks: no hidden card may appear)."""
    if isinstance(obj, str):
        if CARD.match(obj):
            yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from card_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from card_strings(v)
