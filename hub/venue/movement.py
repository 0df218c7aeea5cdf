"""Swiss movement for individual duplicate events (瑞士移位法, seed 004 Appendix 3; RULES.md).

Who sits where in the next round: for each table, each seat's player (or a bot), and the
group of tables that plays the same deals.  Players holding the same seat at different tables
of a group are compared with each other (复式), so the movement decides who is compared with
whom.

**Round 1** — a seeded random draw: the players (in player-number order, fixed for the event,
牌手序号) are shuffled by the HMAC generator of :mod:`paizhuo.venue.deals`, keyed by the event
secret (never Python's ``random``), then laid out like any other round.  The draw is
reproducible by anyone holding the secret and the player list.

**Later rounds** — by the cumulative ranking (严格排名): the ranking is cut into groups of
consecutive players, ``T × seats`` each (``T`` = tables per group).  Within a group of ``t``
tables the players sit by snake (蛇形排位), so players of similar rank hold the same seat at
different tables and are compared with each other:

    ranks 1..t      sit E at tables 1..t
    ranks t+1..2t   sit N at tables t..1
    ranks 2t+1..3t  sit W at tables 1..t
    ranks 3t+1..4t  sit S at tables t..1     (3-seat games stop after W)

Decisions (``docs/movement-and-deals.md`` explains each):

- **Groups.**  Groups of exactly ``T`` tables from the top; the players left over form a last,
  smaller group of ``ceil(left / seats)`` tables.  A last group of a single table (it would
  have nobody to be compared with) joins the group above it, which then has ``T + 1`` tables.
  Without ``T`` the whole field is one group.
- **Bots.**  Only the last group can be short.  Its empty seats are the last seats of the
  snake — the lowest ranks' places — and are filled with bots (``bot: true``); there are
  fewer bots than seats at a table in the whole round, and every table has a human.
- **Repeat table-mates.**  After the snake, players whose cumulative R is equal (so either
  order is an equally true ranking) may exchange places to avoid sitting with someone they
  sat with in an earlier round.  Exactly: the *cost* of a seating is the sum, over every two
  humans at one table, of the number of earlier rounds in which they shared a table.  Going
  down the ranking, for each player ``x`` who has such a repeat, try the players ``y`` of
  x's equal-R run at another table, nearest rank first (the higher rank on a tie of
  distance), and make the first exchange of places (table, seat and group) that lowers the
  cost; repeat the whole pass until a pass changes nothing.  Every exchange lowers the cost,
  so this ends; every exchange is reported.  Players ranked without an R (a plain list of
  ids) are all distinct ranks and never exchanged; players without any ranking (new to the
  event) share one run at the bottom, in player-number order.
- **人机赛** (``vs_ai``): every human sits the same seat (default E) at a table of their own
  and bots hold the other seats; groups of ``T`` tables (default: one group) play the same
  deals, so the humans are compared with each other.  Round 1 orders the tables by the draw,
  later rounds by the ranking.

>>> players = ["p%d" % i for i in range(1, 9)]
>>> r = seat_round(players, 2, standings=players, seats=4)
>>> [[t.seats[s] for s in "ENWS"] for t in r.tables]
[['p1', 'p4', 'p5', 'p8'], ['p2', 'p3', 'p6', 'p7']]
>>> r.instruction("p4"), r.instruction("p4", "zh")
('table 1, North', '第1桌 北家')
>>> first = seat_round(players, 1, secret=b"event secret")
>>> sorted(p for t in first.tables for p in t.players) == sorted(players)
True
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from .deals import HmacStream
from ..errors import CodedError
from ..inputs import InputError, parse_json, whole_number

__all__ = ["MovementError", "Table", "Swap", "Round", "seat_round", "draw", "instruction", "parse_players",
           "parse_standings", "parse_history", "SEAT_NAMES_EN", "SEAT_NAMES_ZH", "VERSION"]

VERSION = "paizhuo-movement-v1"  # in the round-1 draw key: a new draw method gets a new tag
SEATS = {4: ("E", "N", "W", "S"), 3: ("E", "N", "W")}  # play order; a three-seat game uses the first three
SEAT_NAMES_EN = {"E": "East", "N": "North", "W": "West", "S": "South"}
SEAT_NAMES_ZH = {"E": "东", "N": "北", "W": "西", "S": "南"}
MAX_PLAYERS = 100000
MAX_ID = 64  # longer ids are almost certainly a wrong column
MAX_ROUND = 999


def _seats_of_games(word):
    """``4 (g1, g2) or 3 (g3)``: the seats per table of every game the registry deals."""
    from .. import rules
    by = {}
    for name, dealing in sorted(rules.DEALING.items()):
        by.setdefault(len(dealing.seats), []).append(name)
    return word.join("%d (%s)" % (n, ", ".join(by[n])) for n in sorted(by, reverse=True))


class MovementError(CodedError):
    """Input the movement cannot use.  ``code`` is stable; ``en``/``zh`` say what to fix."""



# ---- value types ----------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    """One table of a round: ``seats`` maps each seat to a player id, or ``None`` for a bot."""

    number: int
    group: int
    seats: dict

    @property
    def players(self):
        """The humans at the table, in seat order."""
        return [p for p in self.seats.values() if p is not None]

    @property
    def bot_seats(self):
        return [s for s, p in self.seats.items() if p is None]

    def to_dict(self):
        return {"table": self.number, "group": self.group,
                "seats": {s: ({"player": None, "bot": True} if p is None else {"player": p, "bot": False})
                          for s, p in self.seats.items()}}


@dataclass(frozen=True)
class Swap:
    """Two equal-R players who exchanged places to avoid repeat table-mates."""

    players: tuple  # (x, y): x had the repeat
    tables: tuple   # their tables before the exchange
    tie: object     # the R (or marker) they share
    cost_before: int
    cost_after: int

    def to_dict(self):
        return {"players": list(self.players), "tables": list(self.tables), "R": self.tie,
                "repeats_before": self.cost_before, "repeats_after": self.cost_after}


@dataclass(frozen=True)
class Round:
    """The seating of one round.

    ``method`` is ``"draw"`` (round 1, seeded random) or ``"ranking"`` (snake by the
    cumulative ranking); ``swaps`` the exchanges made to avoid repeats; ``repeats`` the
    table-mate repeats that remain, as ``(a, b, table, rounds together before)``;
    ``unranked`` players seated without a ranking (at the bottom); ``absent`` ranked players
    not in this round's player list.
    """

    number: int
    seats: tuple
    tables: tuple
    method: str
    vs_ai: bool = False
    swaps: tuple = ()
    repeats: tuple = ()
    unranked: tuple = ()
    absent: tuple = ()

    @property
    def groups(self):
        return max((t.group for t in self.tables), default=0)

    @property
    def bots(self):
        return sum(len(t.bot_seats) for t in self.tables)

    def place(self, player):
        """``(table, seat, group)`` of a player; KeyError if the player does not play."""
        for t in self.tables:
            for s, p in t.seats.items():
                if p == player and type(p) is type(player):
                    return t.number, s, t.group
        raise KeyError(player)

    def places(self):
        """{player: (table, seat, group)} for every human."""
        out = {}
        for t in self.tables:
            for s, p in t.seats.items():
                if p is not None:
                    out[p] = (t.number, s, t.group)
        return out

    def instruction(self, player, lang="en"):
        """What the player's seat board shows: ``table 7, East`` / ``第7桌 东家``."""
        table, seat, _ = self.place(player)
        return instruction(table, seat, lang)

    def to_dict(self):
        places = self.places()
        return {
            "format": "paizhuo.seating/1", "round": self.number, "method": self.method, "vs_ai": self.vs_ai,
            "seats": list(self.seats), "groups": self.groups, "bots": self.bots,
            "tables": [t.to_dict() for t in self.tables],
            "players": [{"player": p, "table": places[p][0], "seat": places[p][1], "group": places[p][2],
                         "en": instruction(*places[p][:2]), "zh": instruction(*places[p][:2], lang="zh")}
                        for p in sorted(places, key=lambda p: (places[p][0], self.seats.index(places[p][1])))],
            "swaps": [s.to_dict() for s in self.swaps],
            "repeats": [{"players": [a, b], "table": t, "before": n} for a, b, t, n in self.repeats],
            "unranked": list(self.unranked), "absent": list(self.absent),
        }

    def text(self):
        """The seating for people: tables, then one line per player."""
        head = "Round %d: %d players, %d tables in %d group%s, %s%s" % (
            self.number, len(self.places()), len(self.tables), self.groups, "" if self.groups == 1 else "s",
            "drawn at random (seeded)" if self.method == "draw" else "Swiss, snake by ranking",
            ", 人机赛 (vs AI)" if self.vs_ai else "")
        lines = [head, "", ("table group " + " ".join(_pad(s, 10) for s in self.seats)).rstrip()]
        for t in self.tables:
            cells = [_pad("(bot)" if t.seats[s] is None else str(t.seats[s]), 10) for s in self.seats]
            lines.append("%5d %5d %s" % (t.number, t.group, " ".join(cells).rstrip()))
        if self.vs_ai:
            lines.append("(bot) = an AI player (人机赛: every human holds %s)" % "/".join(
                sorted({s for t in self.tables for s, p in t.seats.items() if p is not None})))
        elif self.bots:
            lines.append("(bot) = a computer player in a seat the field cannot fill (%d in all)" % self.bots)
        for s in self.swaps:
            lines.append("swap: %s and %s (equal R %s) exchanged places: table-mate repeats %d -> %d" % (
                s.players[0], s.players[1], s.tie, s.cost_before, s.cost_after))
        for a, b, t, n in self.repeats:
            lines.append("repeat: %s and %s sit together again at table %d (%d time%s before)" % (
                a, b, t, n, "" if n == 1 else "s"))
        if self.unranked:
            lines.append("unranked, seated last: %s" % ", ".join(map(str, self.unranked)))
        if self.absent:
            lines.append("ranked but not playing: %s" % ", ".join(map(str, self.absent)))
        lines += ["", "player     goes to"]
        places = self.places()
        for p in sorted(places, key=lambda p: (places[p][0], self.seats.index(places[p][1]))):
            lines.append("%s %s  %s" % (_pad(str(p), 10), _pad(instruction(*places[p][:2]), 16),
                                        instruction(*places[p][:2], lang="zh")))
        return "\n".join(lines) + "\n"


def instruction(table, seat, lang="en"):
    """``table 7, East`` (``lang="en"``) or ``第7桌 东家`` (``lang="zh"``)."""
    if lang == "zh":
        return "第%d桌 %s家" % (table, SEAT_NAMES_ZH[seat])
    return "table %d, %s" % (table, SEAT_NAMES_EN[seat])


def _pad(text, width):
    return text + " " * max(0, width - len(text))


# ---- reading inputs -------------------------------------------------------------------

def _id(value, where):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise MovementError("bad_player", "%s: a player id must be text or a whole number, not %r" % (where, value),
                            "%s：选手编号必须是文字或整数，而不是 %r" % (where, value))
    if isinstance(value, str) and (not value.strip() or len(value) > MAX_ID):
        raise MovementError("bad_player", "%s: a player id must be 1 to %d characters, not %r" % (where, MAX_ID, value),
                            "%s：选手编号必须是 1 到 %d 个字符" % (where, MAX_ID))
    return value


def parse_players(data):
    """The player list: ids (text or numbers) in player-number order, or objects with ``id``
    or ``player``, or ``{"players": [...]}``.  Refuses an empty list and repeated ids
    (``7`` and ``"7"`` count as the same id).

    >>> parse_players([1, 2, {"id": "p3"}])
    [1, 2, 'p3']
    """
    if isinstance(data, dict) and "players" in data:
        data = data["players"]
    if not isinstance(data, list):
        raise MovementError("bad_players", "players must be a list of player ids (or {\"players\": [...]})",
                            "选手名单必须是选手编号的列表")
    if not data:
        raise MovementError("no_players", "the player list is empty", "选手名单为空")
    if len(data) > MAX_PLAYERS:
        raise MovementError("bad_players", "more than %d players" % MAX_PLAYERS, "选手超过 %d 人" % MAX_PLAYERS)
    out = []
    seen = {}
    for i, item in enumerate(data, 1):
        where = "players entry %d" % i
        if isinstance(item, dict):
            key = "id" if "id" in item else "player"
            if key not in item:
                raise MovementError("bad_players", "%s: an object needs an \"id\" (or \"player\")" % where,
                                    "第 %d 项：对象需要 id 字段" % i)
            item = item[key]
        pid = _id(item, where)
        if str(pid) in seen:
            raise MovementError("duplicate_player", "%s: player %r is listed twice (first at entry %d)"
                                % (where, pid, seen[str(pid)]), "第 %d 项：选手 %r 重复（首次在第 %d 项）"
                                % (i, pid, seen[str(pid)]))
        seen[str(pid)] = i
        out.append(pid)
    return out


def parse_standings(data):
    """The cumulative ranking: a list of player ids in rank order, or standings entries
    (``player``, ``rank``, ``R``), or the ``Standings.to_dict()`` of
    :mod:`paizhuo.venue.scoring` (its ``players``).  Returns ``[(player, tie), ...]`` in rank
    order, where ``tie`` is the R players must share to be exchanged (``None``: never).

    Entries are ordered by ``rank`` (the list order breaks equal ranks); R must not rise
    down the ranking.

    >>> parse_standings({"players": [{"player": "b", "rank": 2, "R": 50.0}, {"player": "a", "rank": 1, "R": 50.0}]})
    [('a', 50.0), ('b', 50.0)]
    >>> parse_standings(["a", "b"])
    [('a', None), ('b', None)]
    """
    if isinstance(data, dict):
        if "players" not in data:
            raise MovementError("bad_standings", "standings must be a list, or an object with \"players\" "
                                "(the output of paizhuo score)", "排名必须是列表，或含 players 的对象")
        data = data["players"]
    if not isinstance(data, list):
        raise MovementError("bad_standings", "standings must be a list of player ids or entries",
                            "排名必须是选手编号或排名项的列表")
    rows = []
    seen = {}
    for i, item in enumerate(data, 1):
        where = "standings entry %d" % i
        if isinstance(item, dict):
            if "player" not in item:
                raise MovementError("bad_standings", "%s has no \"player\"" % where, "排名第 %d 项缺少 player" % i)
            pid = _id(item["player"], where)
            rank = item.get("rank", i)
            if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
                raise MovementError("bad_standings", "%s: rank must be a whole number from 1, not %r" % (where, rank),
                                    "排名第 %d 项：名次必须是从 1 开始的整数" % i)
            r = item.get("R")
            if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not 0 <= r <= 100):
                raise MovementError("bad_standings", "%s: R must be a percentage from 0 to 100, not %r" % (where, r),
                                    "排名第 %d 项：R 必须是 0 到 100 的百分数" % i)
            tie = None if r is None else float(r)
        else:
            pid, rank, tie = _id(item, where), i, None
        if str(pid) in seen:
            raise MovementError("duplicate_player", "%s: player %r is ranked twice (first at entry %d)"
                                % (where, pid, seen[str(pid)]), "排名第 %d 项：选手 %r 重复" % (i, pid))
        seen[str(pid)] = i
        rows.append((rank, i, pid, tie))
    rows.sort(key=lambda row: (row[0], row[1]))
    for (_, _, pa, ra), (_, j, pb, rb) in zip(rows, rows[1:]):
        if ra is not None and rb is not None and rb > ra:
            raise MovementError("standings_order", "standings entry %d: %r has R %s, above %r ranked higher with %s; "
                                "the standings are out of order" % (j, pb, rb, pa, ra),
                                "排名第 %d 项：%r 的 R %s 高于名次更前的 %r（%s）；排名顺序有误" % (j, pb, rb, pa, ra))
    return [(pid, tie) for _, _, pid, tie in rows]


def _occupant(value, where):
    if value is None:
        return None
    if isinstance(value, dict):
        if value.get("bot"):
            return None
        if "player" not in value:
            raise MovementError("bad_history", "%s: a seat needs \"player\" or \"bot\": true" % where,
                                "%s：座位需要 player 或 bot" % where)
        return None if value["player"] is None else _id(value["player"], where)
    return _id(value, where)


def parse_history(data):
    """Earlier rounds' seatings: a list of rounds (or ``{"rounds": [...]}``, or one round).
    A round is a ``Round.to_dict()`` (``{"round": 1, "tables": [...]}``) or a plain list of
    tables; a table is ``{"seats": {"E": ..., ...}}`` or a list of its players; a seat holds a
    player id, ``null``, or ``{"player": id, "bot": false}``.  Returns
    ``[(round number or None, [[player, ...] per table]), ...]``.

    >>> parse_history([[["a", "b", "c", "d"], ["e", "f", "g", None]]])
    [(None, [['a', 'b', 'c', 'd'], ['e', 'f', 'g']])]
    """
    if isinstance(data, dict):
        if "rounds" in data:
            data = data["rounds"]
        elif "tables" in data:
            data = [data]
        else:
            raise MovementError("bad_history", "history must be a list of rounds, {\"rounds\": [...]}, or one round "
                                "with \"tables\"", "历史座位必须是轮次的列表")
    if not isinstance(data, list):
        raise MovementError("bad_history", "history must be a list of rounds", "历史座位必须是轮次的列表")
    out = []
    numbers = {}
    for ri, rnd in enumerate(data, 1):
        number = None
        if isinstance(rnd, dict):
            number = rnd.get("round")
            if number is not None:
                if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                    raise MovementError("bad_history", "history round %d: \"round\" must be a whole number from 1, "
                                        "not %r" % (ri, number), "历史第 %d 轮：round 必须是正整数" % ri)
                if number in numbers:
                    raise MovementError("bad_history", "history rounds %d and %d are both round %d"
                                        % (numbers[number], ri, number), "历史中第 %d 轮重复" % number)
                numbers[number] = ri
            tables = rnd.get("tables")
        else:
            tables = rnd
        if not isinstance(tables, list):
            raise MovementError("bad_history", "history round %d: tables must be a list" % ri,
                                "历史第 %d 轮：tables 必须是列表" % ri)
        seen = {}
        round_tables = []
        for ti, table in enumerate(tables, 1):
            where = "history round %d, table %d" % (ri, ti)
            if isinstance(table, dict):
                seats = table.get("seats")
                if not isinstance(seats, dict):
                    raise MovementError("bad_history", "%s: \"seats\" must map seats to players" % where,
                                        "%s：seats 必须是座位到选手的对应" % where)
                occupants = [_occupant(v, "%s, seat %s" % (where, s)) for s, v in seats.items()]
                label = table.get("table", ti)
            elif isinstance(table, list):
                occupants = [_occupant(v, where) for v in table]
                label = ti
            else:
                raise MovementError("bad_history", "%s: a table is an object with \"seats\" or a list of players"
                                    % where, "%s：桌必须是对象或选手列表" % where)
            humans = [p for p in occupants if p is not None]
            for p in humans:
                if str(p) in seen:
                    raise MovementError("bad_history", "%s: player %r is seated twice in that round (also at %s)"
                                        % (where, p, seen[str(p)]),
                                        "历史第 %d 轮：选手 %r 同一轮坐了两次" % (ri, p))
                seen[str(p)] = "table %s" % (label,)
            round_tables.append(humans)
        out.append((number, round_tables))
    return out


def _secret(secret):
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, (bytes, bytearray)) or not secret:
        raise MovementError("no_secret", "round 1 is drawn at random from the event secret: give the secret",
                            "第一轮由比赛密钥随机抽签：请提供密钥")
    return bytes(secret)


# ---- the movement ---------------------------------------------------------------------

def draw(players, secret):
    """Round 1's seeded random order of the players (a new list)."""
    key = hmac.digest(_secret(secret), ("%s|draw|round=1" % VERSION).encode("ascii"), "sha256")
    return HmacStream(key, b"order").shuffle(players)


def _groups(n, per, per_group):
    """Sizes (in players) of the groups for ``n`` players, ``per`` seats per table and
    ``per_group`` tables per group (None: one group)."""
    if per_group is None:
        return [n]
    size = per_group * per
    sizes = [size] * (n // size)
    left = n - sum(sizes)
    if left:
        if sizes and per_group >= 2 and left <= per:
            sizes[-1] += left  # a lone last table would have nobody to be compared with
        else:
            sizes.append(left)
    return sizes


def _snake(members, seats):
    """Seat ``members`` (in rank order) by snake over ``ceil(len / seats)`` tables:
    a list of {seat: player or None}."""
    t = -(-len(members) // len(seats))
    tables = [dict.fromkeys(seats) for _ in range(t)]
    for p, player in enumerate(members):
        row, col = divmod(p, t)
        tables[col if row % 2 == 0 else t - 1 - col][seats[row]] = player
    return tables


def seat_round(players, round, *, seats=4, tables_per_group=None, secret=None, standings=None, history=(),
               vs_ai=False, human_seat="E"):
    """The seating of round ``round`` (a :class:`Round`).

    ``players``: ids in player-number order (see :func:`parse_players`).  ``seats``: 4 or 3, as
    the event's game deals (the registry's ``DEALING``).  ``tables_per_group``: tables that play the same deals (None: all).
    ``secret``: the event secret, for round 1's draw.  ``standings``: the cumulative ranking,
    for later rounds (see :func:`parse_standings`).  ``history``: earlier rounds' seatings (see
    :func:`parse_history`).  ``vs_ai``/``human_seat``: the 人机赛 layout.
    """
    players = parse_players(players)
    if isinstance(round, bool) or not isinstance(round, int) or round < 1:
        raise MovementError("bad_round", "round must be a whole number from 1, not %r" % (round,),
                            "轮次必须是从 1 开始的整数")
    if seats not in SEATS:
        raise MovementError("bad_seats", "seats per table must be %s, not %r" % (_seats_of_games(" or "), seats),
                            "每桌座位数必须是 %s" % _seats_of_games(" 或 "))
    seat_names = SEATS[seats]
    if tables_per_group is not None and (isinstance(tables_per_group, bool) or not isinstance(tables_per_group, int)
                                         or tables_per_group < 2):
        raise MovementError("bad_tables_per_group",
                            "tables per group must be a whole number of at least 2 (a group compares its tables' "
                            "results), not %r" % (tables_per_group,), "每组桌数必须是不小于 2 的整数")
    if vs_ai and human_seat not in seat_names:
        raise MovementError("bad_human_seat", "the humans' seat must be one of %s, not %r"
                            % (", ".join(seat_names), human_seat), "人类选手的座位必须是 %s 之一" % "、".join(seat_names))
    by_text = {str(p): p for p in players}
    if isinstance(history, (list, tuple)):
        history = [h.to_dict() if isinstance(h, Round) else h for h in history]
    history = parse_history(history) if history else []
    unranked, absent = (), ()
    if round == 1:
        if standings is not None:
            raise MovementError("standings_in_round_1", "round 1 is drawn at random; standings apply from round 2",
                                "第一轮随机抽签；排名从第二轮起使用")
        if history:
            raise MovementError("history_in_round_1", "round 1 has no earlier rounds; remove the history",
                                "第一轮没有之前的轮次；请去掉历史座位")
        order = draw(players, secret)
        ties = {}
        method = "draw"
    else:
        if standings is None:
            raise MovementError("no_standings", "round %d is seated by the cumulative ranking: give the standings "
                                "after round %d" % (round, round - 1),
                                "第 %d 轮按累计排名移位：请提供第 %d 轮后的排名" % (round, round - 1))
        ranking = parse_standings(standings)
        for n, _ in history:
            if n is not None and n >= round:
                raise MovementError("bad_history", "the history holds round %d, which is not before round %d"
                                    % (n, round), "历史座位中有第 %d 轮，不在第 %d 轮之前" % (n, round))
        order, ties, ranked = [], {}, set()
        for pid, tie in ranking:
            p = by_text.get(str(pid))
            if p is None:
                absent += (pid,)
                continue
            order.append(p)
            ranked.add(str(p))
            if tie is not None:
                ties[str(p)] = ("R", tie)
        unranked = tuple(p for p in players if str(p) not in ranked)
        for p in unranked:
            order.append(p)
            ties[str(p)] = ("unranked", None)
        method = "ranking"

    # Lay out groups and tables.
    tables = []
    if vs_ai:
        for gi, size in enumerate(_groups(len(order), 1, tables_per_group), 1):
            start = sum(len(t.players) for t in tables)
            for p in order[start:start + size]:
                seat_map = dict.fromkeys(seat_names)
                seat_map[human_seat] = p
                tables.append(Table(len(tables) + 1, gi, seat_map))
        return Round(round, seat_names, tuple(tables), method, True, unranked=unranked, absent=absent)
    start = 0
    for gi, size in enumerate(_groups(len(order), seats, tables_per_group), 1):
        for seat_map in _snake(order[start:start + size], seat_names):
            tables.append([gi, seat_map])
        start += size

    swaps, repeats = _avoid_repeats(tables, order, ties, history, by_text)
    out = tuple(Table(i, g, m) for i, (g, m) in enumerate(tables, 1))
    return Round(round, seat_names, out, method, False, tuple(swaps), tuple(repeats), unranked, absent)


def _avoid_repeats(tables, order, ties, history, by_text):
    """Exchange equal-R players to lower the table-mate repeat cost (rule in the module
    docstring).  ``tables`` is a list of ``[group, {seat: player}]``, changed in place.
    Returns (swaps, repeats left)."""
    met = {}  # player text -> {player text: rounds together before}
    for _, round_tables in history:
        for humans in round_tables:
            here = [str(p) for p in humans if str(p) in by_text]
            for a in here:
                row = met.setdefault(a, {})
                for b in here:
                    if a != b:
                        row[b] = row.get(b, 0) + 1
    where = {}  # player text -> (table index, seat)
    members = []  # table index -> set of player texts
    for ti, (_, seat_map) in enumerate(tables):
        members.append(set())
        for s, p in seat_map.items():
            if p is not None:
                where[str(p)] = (ti, s)
                members[ti].add(str(p))

    def cost(x, ti, without=None):
        row = met.get(x)
        if not row:
            return 0
        return sum(row.get(q, 0) for q in members[ti] if q != x and q != without)

    swaps = []
    if met:
        texts = [str(p) for p in order]
        rank = {x: i for i, x in enumerate(texts)}
        run_of = {}  # player text -> (first, last) index of its run of equal tie in the ranking
        i = 0
        while i < len(texts):
            j = i
            tie = ties.get(texts[i])
            while tie is not None and j + 1 < len(texts) and ties.get(texts[j + 1]) == tie:
                j += 1
            for k in range(i, j + 1):
                run_of[texts[k]] = (i, j)
            i = j + 1

        def partners(x):
            """x's equal-R run, nearest rank first, the higher rank first at equal distance."""
            at = rank[x]
            first, last = run_of[x]
            for d in range(1, max(at - first, last - at) + 1):
                if at - d >= first:
                    yield texts[at - d]
                if at + d <= last:
                    yield texts[at + d]

        changed = True
        while changed:
            changed = False
            for x in texts:
                tx = where[x][0]
                before_x = cost(x, tx)
                if before_x == 0:
                    continue
                for y in partners(x):
                    ty = where[y][0]
                    if ty == tx:
                        continue
                    before = before_x + cost(y, ty)
                    after = cost(x, ty, without=y) + cost(y, tx, without=x)
                    if after < before:
                        # The places stay (table, seat, group); the two players exchange them.
                        sx, sy = where[x][1], where[y][1]
                        tables[tx][1][sx], tables[ty][1][sy] = by_text[y], by_text[x]
                        members[tx].discard(x)
                        members[tx].add(y)
                        members[ty].discard(y)
                        members[ty].add(x)
                        where[x], where[y] = (ty, sy), (tx, sx)
                        swaps.append(Swap((by_text[x], by_text[y]), (tx + 1, ty + 1), ties[x][1], before, after))
                        changed = True
                        break
    repeats = []
    for ti in range(len(tables)):
        people = [str(p) for p in tables[ti][1].values() if p is not None]
        for a_i, a in enumerate(people):
            for b in people[a_i + 1:]:
                n = met.get(a, {}).get(b, 0)
                if n:
                    repeats.append((by_text[a], by_text[b], ti + 1, n))
    return swaps, repeats


# ---- `paizhuo movement` ---------------------------------------------------------------

def add_arguments(p):
    """The arguments of ``paizhuo movement``."""
    p.add_argument("--round", type=whole_number("--round", 1, MAX_ROUND), required=True,
                   help="the round to seat (1 = seeded random draw)")
    p.add_argument("--players", required=True, metavar="FILE",
                   help="JSON list of player ids in player-number order")
    p.add_argument("--standings", metavar="FILE",
                   help="cumulative standings (paizhuo score output, or a JSON list of ids in rank order); "
                        "needed from round 2")
    p.add_argument("--history", metavar="FILE", help="earlier rounds' seatings (JSON list of this command's outputs)")
    p.add_argument("--seats", type=whole_number("--seats", 0, 99), default=4, help="seats per table: 4, or 3 for a three-seat game; default 4")
    p.add_argument("--tables-per-group", type=whole_number("--tables-per-group", 0, MAX_PLAYERS), metavar="T",
                   help="tables that play the same deals (default: all tables are one group)")
    p.add_argument("--secret", metavar="HEX_OR_TEXT", help="the event secret, for round 1's draw")
    p.add_argument("--vs-ai", action="store_true", help="人机赛: every human at a table of their own, bots elsewhere")
    p.add_argument("--human-seat", default="E", help="the humans' seat with --vs-ai (default E)")
    p.add_argument("--format", choices=("json", "text"), default="json", help="json (default) or text")


def _read_json(option, path):
    try:
        with open(path, "rb") as f:
            return parse_json(f.read(), "%s %s" % (option, path))
    except FileNotFoundError:
        raise MovementError("no_file", "%s %s: no such file" % (option, path), "%s %s：文件不存在" % (option, path))
    except OSError as e:
        raise MovementError("no_file", "%s %s: cannot read it: %s" % (option, path, e.strerror),
                            "%s %s：无法读取" % (option, path))
    except InputError as e:
        raise MovementError(e.code, e.en, e.zh) from None


def command(args, out=None, err=None):
    """Run ``paizhuo movement``: print the round's seating; 2 on bad input."""
    import json
    import sys

    from .deals import SHORT_SECRET as MIN_SECRET
    from .deals import DealError, parse_secret
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        data = _read_json("--players", args.players)
        try:
            players = parse_players(data)
        except MovementError as e:
            raise MovementError(e.code, "--players %s: %s" % (args.players, e.en), e.zh) from None
        standings = history = None
        if args.standings is not None:
            standings = _read_json("--standings", args.standings)
        if args.history is not None:
            history = _read_json("--history", args.history)
        secret = None
        if args.secret is not None:
            try:
                secret = parse_secret(args.secret)
            except DealError as e:
                raise MovementError(e.code, "--secret: %s" % e.en, e.zh) from None
            if len(secret) < MIN_SECRET:
                raise MovementError("short_secret", "--secret: the secret is %d bytes; an event secret has at least "
                                    "%d (a short one can be guessed from the published draw): give the event's secret"
                                    % (len(secret), MIN_SECRET), "--secret：密钥只有 %d 字节；比赛密钥至少 %d 字节"
                                    "（过短的密钥可从公布的抽签结果猜出）：请给出比赛的密钥" % (len(secret), MIN_SECRET))
        if args.round != 1 and secret is not None:
            print("paizhuo movement: note: --secret is used only for round 1's draw; round %d follows the ranking"
                  % args.round, file=err)
            secret = None
        seating = seat_round(players, args.round, seats=args.seats, tables_per_group=args.tables_per_group,
                             secret=secret, standings=standings, history=history or (), vs_ai=args.vs_ai,
                             human_seat=args.human_seat)
    except MovementError as e:
        print("paizhuo movement: %s" % e.en, file=err)
        print("paizhuo movement: %s" % e.zh, file=err)
        return 2
    if args.format == "text":
        out.write(seating.text())
    else:
        out.write(json.dumps(seating.to_dict(), ensure_ascii=False, indent=1) + "\n")
    return 0
