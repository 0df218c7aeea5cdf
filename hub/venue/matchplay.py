"""A match event on the venue service: sides (pairs or teams) at tables, and their matches.

For a game whose board is a match (:func:`paizhuo.venue.event.board_is_match`) the venue
pairs sides, not players: :func:`paizhuo.venue.matches.pair_round` (积分编排: round 1 from the
event secret, later rounds by 场分 and the tie-break chain, no repeat meetings, one bye per
side) gives each round's matches, and this module seats them and reads their results back.
Pure: no clock, no I/O (the service stores and publishes).

Seating (``[[tables]]`` in order; match k of the pairing takes the next table, or two in a
teams event).  Partners sit opposite, E–W and N–S; the home side (主队) is the pairing's first:

- pairs: the home pair E–W, the away pair N–S;
- teams: the open room (开室) seats the home team's first pair E–W and the away team's first
  pair N–S; the closed room (闭室), on the same deals (same group and boards), the home team's
  second pair N–S and the away team's second pair E–W — the seats swapped.

Everything else is read back from the stored seating, so a restarted venue needs nothing more:
which tables play which match, who is home, which side had the bye.

>>> from paizhuo.venue.event import Side
>>> sides = {s.id: s for s in (Side("A", "A", 1, ("a1", "a2", "a3", "a4")), Side("B", "B", 2, ("b1", "b2", "b3", "b4")))}
>>> rows = seat_rows("teams", ["1", "2"], sides, [("A", "B")], None)
>>> [(r["table"], r["seat"], r["player"]) for r in rows if r["seat"] in "EN"]
[('1', 'E', 'a1'), ('1', 'N', 'b1'), ('2', 'E', 'b3'), ('2', 'N', 'a3')]
>>> m = slots("teams", ["1", "2"], {s.id: s for s in sides.values()}, rows)[0]
>>> m.home, m.away, m.rooms
('A', 'B', (('1', 'open'), ('2', 'closed')))
"""

from . import matches as matches_

__all__ = ["Slot", "seat_rows", "slots", "bye_of", "match_result", "summary", "MATCH_FORMAT", "EW", "NS"]

MATCH_FORMAT = "paizhuo.matches/1"  # the standings dict of a match event (docs/venue.md)
EW, NS = ("E", "W"), ("N", "S")  # partners sit opposite
OPEN, CLOSED = "open", "closed"


class Slot:
    """One match of a round: its number (from 1), home and away sides, group, and its rooms
    ``((table, "open"|"closed"), ...)`` (one room, ``"open"``, in a pairs event)."""

    __slots__ = ("round", "number", "home", "away", "group", "rooms")

    def __init__(self, round, number, home, away, group, rooms):
        self.round, self.number, self.home, self.away, self.group, self.rooms = round, number, home, away, group, tuple(rooms)

    @property
    def match_id(self):
        return "r%d:m%d" % (self.round, self.number)

    @property
    def tables(self):
        return [t for t, _ in self.rooms]

    def to_dict(self):
        return {"round": self.round, "match": self.number, "match_id": self.match_id, "home": self.home,
                "away": self.away, "group": self.group, "rooms": [{"table": t, "room": r} for t, r in self.rooms]}


def _group(k, rooms, tables_per_group):
    """Group of match k (from 0): a group holds whole matches; None: the whole field is one."""
    return 1 if not tables_per_group else k // max(1, tables_per_group // rooms) + 1


def seat_rows(fmt, tables, sides, pairing_tables, tables_per_group):
    """The seating rows (``{"table", "seat", "group", "player"}``, as the store keeps them) of a
    round's pairing: ``tables`` the event's table names in order, ``sides`` id → Side,
    ``pairing_tables`` the (home, away) pairs of :class:`paizhuo.venue.matches.Pairing`."""
    rooms = 2 if fmt == "teams" else 1
    rows = []

    def sit(table, group, ew, ns):
        for seats, pair in ((EW, ew), (NS, ns)):
            for seat, player in zip(seats, pair):
                rows.append({"table": table, "seat": seat, "group": group, "player": player})

    for k, (home, away) in enumerate(pairing_tables):
        group = _group(k, rooms, tables_per_group)
        h, a = sides[home].players, sides[away].players
        sit(tables[k * rooms], group, h[:2], a[:2])
        if rooms == 2:
            sit(tables[k * rooms + 1], group, a[2:4], h[2:4])  # the closed room: the seats swapped
    return rows


def slots(fmt, tables, sides, seating, rnd=0):
    """The round's matches from its stored seating (a list of :class:`Slot`, match 1 first)."""
    rooms = 2 if fmt == "teams" else 1
    side_of = {p: s.id for s in sides.values() for p in s.players}
    at = {}
    for r in seating:
        at.setdefault(str(r["table"]), {})[r["seat"]] = (r["player"], int(r["group"] or 1))
    out = []
    seated = [t for t in tables if t in at]
    for k in range(0, len(seated) - rooms + 1, rooms):
        first = at[seated[k]]
        home, away = side_of.get(first["E"][0]), side_of.get(first["N"][0])
        names = [(seated[k], OPEN)] + ([(seated[k + 1], CLOSED)] if rooms == 2 else [])
        out.append(Slot(rnd, k // rooms + 1, home, away, first["E"][1], names))
    return out


def bye_of(sides, seating):
    """The side of a round that sits out (轮空): listed but not seated; None in an even field."""
    seated = {r["player"] for r in seating}
    out = [s.id for s in sides.values() if not seated & set(s.players)]
    return out[0] if out else None


def match_result(slot, levels):
    """The :class:`~paizhuo.venue.matches.MatchResult` of a played match from each room's replayed
    final levels (``levels[table] = {"EW": level, "NS": level}``), or None while a room is missing.
    In the open room the home side sits E–W, in the closed room N–S."""
    if any(t not in levels for t in slot.tables):
        return None
    rooms = [matches_.Room(levels[t]["EW"], levels[t]["NS"]) for t in slot.tables]
    if len(rooms) == 1:
        return matches_.MatchResult.played(slot.round, slot.home, slot.away, rooms[0].ew, rooms[0].ns,
                                           match_id=slot.match_id)
    return matches_.MatchResult.team(slot.round, slot.home, slot.away, rooms[0], rooms[1], match_id=slot.match_id)


def summary(st, sides, players):
    """The standings of a match event as the pages and ``venue/standings`` show them:
    ``{"format", "steps": {step: {"zh", "en"}}, "sides": [{"rank", "side", "name", "no",
    "players": [names], "changfen", "jichafen", "played", "wins", "draws", "losses", "byes",
    "level_diff", "opponents_changfen", "decided_by", "penalties"}], "players": []}``
    (``players`` stays empty: a match event ranks sides)."""
    steps = {}
    for name, text in matches_.STEPS.items():
        zh, _, en = text.partition(" ")
        steps[name] = {"zh": zh, "en": en}
    rows = []
    for r in st.to_dict()["standings"]:
        s = sides.get(r["side"])
        rows.append({"rank": r["rank"], "side": r["side"], "name": s.name if s else r["side"], "no": s.no if s else None,
                     "players": [players[p].name if p in players else p for p in (s.players if s else ())],
                     "changfen": r["changfen"], "jichafen": r["jichafen"], "played": r["played"], "wins": r["wins"],
                     "draws": r["draws"], "losses": r["losses"], "byes": r["byes"], "level_diff": r["level_diff"],
                     "opponents_changfen": r["opponents_changfen"], "decided_by": r["decided_by"],
                     "penalties": len(r["penalties"])})
    return {"format": MATCH_FORMAT, "steps": steps, "chain": ["changfen"] + list(st.steps), "sides": rows,
            "players": []}
