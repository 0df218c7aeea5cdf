"""Hypothesis fuzzing of the hub's frame handling: garbage never crashes the hub, never changes
the game, and everything the hub answers is a well-formed frame.

The hub's frame handling is driven directly through an in-memory transport (the same
``Transport`` interface the serial ports implement), so hundreds of cases run in seconds;
the pty tests (test_table_hub.py) cover the same paths over real serial links.
"""

import asyncio
import os

from hypothesis import given, settings, strategies as st, HealthCheck

from paizhuo.rules.bigtwo import BigTwo
from paizhuo.table import config as config_
from paizhuo.table.eventlog import verify_chain
from paizhuo.table.runtime import Table
from paizhuo.table.transport import Transport
from paizhuo_shared import link

from table_seat import DEAL, DEVICES, KEYS, write_config


class MemoryTransport(Transport):
    """Bytes to and from a seat, in memory: what the hub wrote is in :attr:`out`."""

    def __init__(self, name):
        self.name = name
        self.out = bytearray()

    async def open(self, on_data):
        self.on_data = on_data

    def write(self, data):
        self.out += data

    async def closed(self):
        await asyncio.Event().wait()

    def close(self):
        pass


class Harness:
    """A table with four seats handshaken over memory transports and a deal running."""

    def __init__(self, folder):
        path = write_config(folder, ["mem-%s" % s for s in "ENWS"], deals=[DEAL])
        self.cfg = config_.load(path)
        self.ports = {s: MemoryTransport("mem-" + s) for s in "ENWS"}
        self.table = Table(self.cfg, transports=[self.ports[s] for s in "ENWS"])
        self.table._restore()
        self.conns = {s: c for s, c in zip("ENWS", self.table.conns)}
        self.keys = {}
        for s in "ENWS":
            self._handshake(s)
        self.table._tick(self.table.now())  # everyone is here: the deal starts
        assert self.table.game is not None and self.table.screen == "deal"
        self.seat_session = {}
        for s in "ENWS":
            sess = link.Session(self.keys[s], "hub")
            for line in self._lines(s):
                try:
                    sess.open(line)
                except link.LinkError:
                    pass
            self.seat_session[s] = sess

    def _lines(self, seat):
        data = bytes(self.ports[seat].out)
        self.ports[seat].out.clear()
        return [ln for ln in data.split(b"\n") if ln]

    def _handshake(self, seat):
        conn = self.conns[seat]
        self.table._challenge(conn)
        challenge = link.decode(self._lines(seat)[-1], b"")
        n = os.urandom(16).hex()
        hello = {"t": "hello", "s": 0, "dev": DEVICES[seat], "fw": "fuzz", "board": "host", "n": n, "hn": challenge["n"]}
        self.table._on_data(conn, link.encode(hello, KEYS[seat]))
        self.keys[seat] = link.session_key(KEYS[seat], challenge["n"], n)

    def feed(self, seat, data):
        self.table._on_data(self.conns[seat], data)

    def replies(self, seat):
        """Every frame the hub sent the seat since the last call, decoded and checked."""
        out = []
        for line in self._lines(seat):
            try:
                msg = self.seat_session[seat].open(line)
            except link.LinkError:
                msg = link.decode(line, b"")  # a frame outside the session: challenge or reject
            link.check_message(msg, "hub")
            out.append(msg)
        return out

    def close(self):
        self.table.log.close()


def replayed(table):
    record = table.game.record()
    return BigTwo.from_record(record).snapshot()


garbage = st.one_of(
    st.binary(max_size=300),
    st.binary(max_size=300).map(lambda b: b + b"\n"),
    st.text(max_size=200).map(lambda t: (t + "\t" + "0" * 64 + "\n").encode("utf-8", "surrogatepass")),
    st.integers(4000, 6000).map(lambda n: b"x" * n + b"\n"),
    st.just(b"\n\n\n"),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks=st.lists(garbage, min_size=1, max_size=6))
def test_garbage_never_crashes_the_hub_or_changes_the_game(tmp_path_factory, chunks):
    h = Harness(str(tmp_path_factory.mktemp("fuzz")))
    try:
        before = h.table.game.snapshot()
        conn = h.conns["E"]
        session = conn.session
        counters = (session.last_in, session.next_out)
        for c in chunks:
            h.feed("E", c)
        h.feed("E", b"\n")
        assert h.table.internal_errors == 0
        assert h.table.game.snapshot() == before
        # Nothing in it is authenticated: no answer, and the session is untouched.
        assert h.replies("E") == []
        assert conn.session is session and (session.last_in, session.next_out) == counters
    finally:
        h.close()


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.text(max_size=12),
              st.sampled_from(["3D", "4D", "2S", "show", "double", "play", "pass", "E", "N"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)

messages = st.fixed_dictionaries(
    {"t": st.sampled_from(["intent", "resync", "call", "ack", "hello", "state", "x"])},
    optional={"turn": st.one_of(st.integers(-2, 12), json_values),
              "a": st.one_of(
                  st.fixed_dictionaries({"type": st.sampled_from(["show", "double", "play", "pass", "bid"])},
                                        optional={"yes": json_values, "cards": st.one_of(
                                            st.lists(st.sampled_from(DEAL["E"].split() + ["2S", "ZZ", ""]), max_size=6),
                                            json_values), "seat": json_values, "auto": json_values}),
                  json_values),
              "why": json_values, "upto": json_values, "dev": json_values})


# Some frames that the engine may well accept, so accepted and refused intents mix.
plausible = st.builds(lambda kind, yes, turn: {"t": "intent", "turn": turn, "a": {"type": kind, "yes": yes}},
                      st.sampled_from(["show", "double"]), st.booleans(), st.integers(0, 5))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(msgs=st.lists(st.one_of(messages, plausible), min_size=1, max_size=8), seat=st.sampled_from("ENWS"))
def test_well_tagged_odd_messages_keep_the_game_equal_to_its_log(tmp_path_factory, msgs, seat):
    """Frames with a valid tag and sequence but any content: refused with a reject, or accepted
    as a legal action — and either way the engine equals the replay of what the log holds."""
    h = Harness(str(tmp_path_factory.mktemp("fuzz")))
    try:
        sess = link.Session(h.keys[seat], "seat")
        for m in msgs:
            m = dict(m)
            m["s"] = sess.next_out
            try:
                line = link.encode(m, h.keys[seat])
            except link.LinkError:
                continue  # too long to send at all
            sess.next_out += 1
            h.feed(seat, line)
            replies = h.replies(seat)
            assert h.table.internal_errors == 0
            try:
                link.check_message(m, "seat")
                valid = m["t"] != "hello"
            except link.LinkError:
                valid = False
            if m["t"] == "hello":
                sess.next_out -= 1  # a hello is outside the session's numbering (and its tag is wrong)
                assert replies == [], (m, replies)  # not the board's hello: no answer in a session
            elif not valid:
                assert [r["t"] for r in replies] == ["reject"] and replies[0]["code"] == "bad_message", (m, replies)
                sess.next_out -= 1  # the hub did not take the number: the next frame reuses it
        assert h.table.game.snapshot() == replayed(h.table)
        actions = [e.body["action"] for e in h.table.log.entries() if e.kind == "action"]
        assert actions == [a.to_dict() for a in h.table.game.actions]
        assert all(a["seat"] == seat and "auto" not in a for a in actions)
        assert verify_chain(h.cfg.log).ok
    finally:
        h.close()
