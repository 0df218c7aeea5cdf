"""Match events of the match game played in levels (升级; :data:`GAME`): match scoring, standings with the tie-break chain, Swiss pairing
(积分编排) of pairs and teams, and team duplicate (开室/闭室).  Pure: no clock, no I/O.

Sources: ``../shared/RULES.md`` (the game's "Match scoring", "Event formats") and seed 002
第十七、二十六、二十九、三十四、三十五、四十九、五十一条.  Decisions where the texts are silent
are marked **[decision]** here and listed in the game's match document (``docs/<GAME>-matches.md``).

The game comes from the registry (the match game whose engine keeps the level arithmetic), so
this module names none; ``paizhuo matches`` runs it, also under the game's name.

A match ends with each side at a level (2..A; a side that passed A is at ``"A+"``).  The
level difference d gives the 级差分 (winner 13 + d, loser 13 − d, d capped at 13) and the
场分 (win 2, draw 1, loss 0):

>>> m = MatchResult.played(1, "P1", "P2", "K", "7")
>>> m.diff, m.jichafen_a, m.jichafen_b, m.changfen_a, m.changfen_b
(6, 19, 7, 2, 0)
>>> MatchResult.bye(2, "P3").score_of("P3")              # 轮空: 场分 1.5, 级差分 17
(1.5, 17)
>>> MatchResult.forfeit(2, "P1", "P2", "P2").score_of("P1")   # 弃权: 2:0, 17:0
(2, 17)

Team duplicate: the home team sits E–W in the open room and N–S in the closed room; the
level differences of the two rooms are added and the sum is scored like one match:

>>> t = MatchResult.team(1, "T1", "T2", Room("K", "7"), Room("5", "9"))
>>> t.diff, t.jichafen_a, t.changfen_a          # open +6 (T1 at K), closed +4 (T1 at 9)
(10, 23, 2)

Standings rank by 场分, then the tie-break chain of seed 第四十九条:

>>> ms = [MatchResult.played(1, "P1", "P2", "K", "7"), MatchResult.played(1, "P3", "P4", "5", "5")]
>>> [(r.rank, r.side, r.changfen, r.jichafen, r.decided_by) for r in standings(ms).rows]
[(1, 'P1', 2, 19, None), (2, 'P3', 1, 13, 'changfen'), (2, 'P4', 1, 13, 'tie'), (4, 'P2', 0, 7, 'changfen')]

Pairing: round 1 from the event secret, later rounds by standings, never a repeat.  P3 and
P4 stay tied after every step; in an even round ties go by side number, larger first, and
the larger number is the home side (主队):

>>> p = pair_round(2, ["P1", "P2", "P3", "P4"], ms)
>>> p.ranking, p.tables, p.bye
(('P1', 'P4', 'P3', 'P2'), (('P4', 'P1'), ('P3', 'P2')), None)
"""

import csv
import hashlib
import hmac
import io
import json
import sys
from dataclasses import dataclass
from ..errors import CodedError
from ..inputs import InputError, parse_json, whole_number
from .. import rules as rules_

# The match game whose levels this module scores (the CLI's `paizhuo <GAME>` alias too): the one
# whose engine has the level arithmetic.  过A (15), the 级差分 table (13 ± d, d capped at 13) and
# the 场分 belong to that engine.
GAME = [n for n in sorted(rules_.GAMES) if rules_.game(n).match and hasattr(rules_.engine(n), "level_points")][0]
_ENGINE = rules_.engine(GAME)
PASSED_A, DIFF_CAP, BASE, level_points = _ENGINE.PASSED_A, _ENGINE.DIFF_CAP, _ENGINE.BASE, _ENGINE.level_points
WIN, DRAW, LOSS = _ENGINE.WIN, _ENGINE.DRAW, _ENGINE.LOSS

__all__ = [
    "MatchError", "PairingError", "MatchResult", "Room", "Penalty", "SideRecord", "StandingsRow",
    "Standings", "Pairing", "standings", "pair_round", "parse_level", "level_text", "jichafen",
    "parse_matches", "parse_penalties", "parse_sides", "STEPS", "DEFAULT_STEPS",
]

LEVEL_RANKS = "23456789TJQKA"
BYE_CHANGFEN, BYE_JICHAFEN = 1.5, 17  # seed 第二十六条 6
FORFEIT_JICHAFEN = 17  # seed 第三十四条 六, 第三十五条

PLAYED, BYE, FORFEIT, ABANDONED, EXCUSED, TEAM = "played", "bye", "forfeit", "abandoned", "excused", "team"
KINDS = (PLAYED, BYE, FORFEIT, ABANDONED, EXCUSED, TEAM)
ABSENCES = (FORFEIT, ABANDONED, EXCUSED)  # the match-file keys of a match not (fully) played

# The tie-break chain for equal 场分 (seed 第四十九条 一).  Names are stable (they appear in the
# standings as ``decided_by``); an organiser may pass another order (第四十九条 三).
STEPS = {
    "changfen": "场分 match points",
    "jichafen": "级差分 level-difference points",
    "head_to_head": "相遇胜者 head-to-head (only when exactly two are tied)",
    "wins": "获胜轮数 wins",
    "draws": "平局轮数 draws",
    "level_diff": "级差 level difference (for − against)",
    "opponents_changfen": "对手分 opponents' 场分",
    "previous_rank": "前一轮排名 previous-round rank",
}
DEFAULT_STEPS = ("jichafen", "head_to_head", "wins", "draws", "level_diff", "opponents_changfen", "previous_rank")

_PAIR_DOMAIN = b"paizhuo/%s/pair/v1|" % GAME.encode()  # the draw's domain: the same bytes as it always was


class MatchError(CodedError):
    """Match input the venue refuses.  ``code`` is stable for machines; ``en``/``zh`` are for people.

    >>> try:
    ...     parse_level("Z")
    ... except MatchError as e:
    ...     print(e.code, "|", e.zh)
    bad_level | 级数 'Z' 不对：级数是 2–9、T(10)、J、Q、K、A，过A 写 A+
    """



class PairingError(MatchError):
    """No pairing satisfies the rules (no repeat meetings, one bye per side)."""


def _num(x):
    """Points as the smallest exact type: ``2.0`` → ``2``, ``1.5`` stays (场分 moves in halves)."""
    return int(x) if x == int(x) else x


def parse_level(value):
    """A level as an int 2..14 (A), or 15 for a side that passed A (过A).

    >>> [parse_level(v) for v in ("2", "10", "T", "a", "A+", 14, 15)]
    [2, 10, 10, 14, 15, 14, 15]
    """
    if isinstance(value, bool):
        value = None
    if isinstance(value, int):
        if 2 <= value <= PASSED_A:
            return value
    elif isinstance(value, str):
        v = value.strip().upper()
        if v == "10":
            return 10
        if v in ("A+", "过A", "過A"):
            return PASSED_A
        if len(v) == 1 and v in LEVEL_RANKS:
            return LEVEL_RANKS.index(v) + 2
    raise MatchError(
        "bad_level",
        "level %r is not a level: levels are 2-9, T (10), J, Q, K, A (or 2..14), and A+ (15) for a side that passed A" % (value,),
        "级数 %r 不对：级数是 2–9、T(10)、J、Q、K、A，过A 写 A+" % (value,))


def level_text(level):
    """A level as text.

    >>> level_text(10), level_text(14), level_text(15)
    ('T', 'A', 'A+')
    """
    return "A+" if level == PASSED_A else LEVEL_RANKS[level - 2]


def jichafen(d):
    """级差分 (winner, loser) for a level difference d ≥ 0, capped at 13.

    >>> jichafen(0), jichafen(5), jichafen(13), jichafen(20)
    ((13, 13), (18, 8), (26, 0), (26, 0))
    """
    if not isinstance(d, int) or isinstance(d, bool) or d < 0:
        raise MatchError("bad_diff", "level difference must be an integer ≥ 0, not %r" % (d,),
                         "级差必须是不小于 0 的整数，不能是 %r" % (d,))
    return level_points(d)


def _side(value, what):
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise MatchError("bad_side", "%s must be a side name (a pair or team id like \"P1\"), not %r" % (what, value),
                         "%s 必须是参赛方编号（如 \"P1\"），不能是 %r" % (what, value))
    return value.strip()


def _round(value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise MatchError("bad_round", "round must be an integer ≥ 1, not %r" % (value,),
                         "轮次必须是不小于 1 的整数，不能是 %r" % (value,))
    return value


@dataclass(frozen=True)
class Room:
    """One room of a team match: the final levels of the E–W pair and of the N–S pair.

    >>> Room("K", "7")
    Room(ew=13, ns=7)
    """

    ew: int
    ns: int

    def __init__(self, ew, ns):
        object.__setattr__(self, "ew", parse_level(ew))
        object.__setattr__(self, "ns", parse_level(ns))

    def to_dict(self):
        return {"EW": level_text(self.ew), "NS": level_text(self.ns)}


@dataclass(frozen=True)
class MatchResult:
    """The scored result of one match (or bye) in one round.

    ``a`` is the home side (主队: E–W in the open room) and ``b`` the away side; ``b`` is None
    for a bye.  ``diff`` is the signed level difference a − b (uncapped, 0 for byes and
    forfeits) used by the 级差 tie-break; the 级差分 use it capped at 13.
    """

    round: int
    a: str
    b: object  # str, or None for a bye
    kind: str
    changfen_a: object
    changfen_b: object
    jichafen_a: int
    jichafen_b: int
    diff: int = 0
    level_a: object = None
    level_b: object = None
    rooms: object = None  # (open Room, closed Room) for a team match
    by: object = None  # the side that forfeited / abandoned / was excused ("both" when both)
    match_id: object = None

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def played(cls, round, a, b, level_a, level_b, match_id=None):
        """A pair match from its final levels.  Equal levels are a draw (13/13, 1/1)."""
        la, lb = parse_level(level_a), parse_level(level_b)
        return cls._from_diff(round, a, b, la - lb, PLAYED, level_a=la, level_b=lb, match_id=match_id)

    @classmethod
    def team(cls, round, home, away, open_room, closed_room, match_id=None):
        """A team duplicate match.  The home team sits E–W in the open room and N–S in the
        closed room (seed 第二十九条 二), so its level difference is
        (open E–W − open N–S) + (closed N–S − closed E–W); the sum is scored like one match
        **[decision: the seed only says the team's result is the sum of both rooms]**.

        >>> MatchResult.team(1, "T1", "T2", Room("K", "7"), Room("9", "5")).diff   # E–W won both rooms
        2
        """
        if not isinstance(open_room, Room) or not isinstance(closed_room, Room):
            raise MatchError("bad_room", "a team match needs an open and a closed Room",
                             "团体赛需要开室和闭室两个结果")
        d = (open_room.ew - open_room.ns) + (closed_room.ns - closed_room.ew)
        return cls._from_diff(round, home, away, d, TEAM, rooms=(open_room, closed_room), match_id=match_id)

    @classmethod
    def _from_diff(cls, round, a, b, d, kind, **extra):
        round, a, b = _round(round), _side(a, "side a"), _side(b, "side b")
        if a == b:
            raise MatchError("same_side", "a side cannot meet itself (%s)" % a, "参赛方不能与自己比赛（%s）" % a)
        win, lose = jichafen(abs(d))
        if d > 0:
            ca, cb, ja, jb = WIN, LOSS, win, lose
        elif d < 0:
            ca, cb, ja, jb = LOSS, WIN, lose, win
        else:
            ca, cb, ja, jb = DRAW, DRAW, BASE, BASE
        return cls(round, a, b, kind, ca, cb, ja, jb, diff=d, **extra)

    @classmethod
    def bye(cls, round, side, match_id=None):
        """轮空: 场分 1.5, 级差分 17 (seed 第二十六条 6)."""
        return cls(_round(round), _side(side, "bye side"), None, BYE, BYE_CHANGFEN, 0, BYE_JICHAFEN, 0, match_id=match_id)

    @classmethod
    def forfeit(cls, round, a, b, by, abandoned=False, match_id=None):
        """弃权 (第三十四条 六) or 中途退出 (第三十五条, ``abandoned=True``): the other side
        scores 场分 2 and 级差分 17, the side that forfeited 0 and 0; ``by="both"`` gives
        both sides 0.  Levels reached before an abandonment do not count."""
        round, a, b, by = cls._absent_side(round, a, b, by)
        ca = WIN if by == b else LOSS
        cb = WIN if by == a else LOSS
        ja = FORFEIT_JICHAFEN if by == b else 0
        jb = FORFEIT_JICHAFEN if by == a else 0
        return cls(round, a, b, ABANDONED if abandoned else FORFEIT, ca, cb, ja, jb, by=by, match_id=match_id)

    @classmethod
    def excused(cls, round, a, b, by, match_id=None):
        """免予处分 (第三十六条): a side kept away by force majeure, with the organiser's
        consent, and no make-up match: it scores a draw (场分 1, 级差分 13), its opponent
        scores as against a forfeit (2, 17).  ``by="both"``: both score the draw.

        >>> m = MatchResult.excused(3, "P1", "P2", "b")
        >>> m.score_of("P1"), m.score_of("P2"), m.outcome_of("P2")
        ((2, 17), (1, 13), 'draw')
        """
        round, a, b, by = cls._absent_side(round, a, b, by)
        ca = DRAW if by in (a, "both") else WIN
        cb = DRAW if by in (b, "both") else WIN
        ja = BASE if by in (a, "both") else FORFEIT_JICHAFEN
        jb = BASE if by in (b, "both") else FORFEIT_JICHAFEN
        return cls(round, a, b, EXCUSED, ca, cb, ja, jb, by=by, match_id=match_id)

    @staticmethod
    def _absent_side(round, a, b, by):
        round, a, b = _round(round), _side(a, "side a"), _side(b, "side b")
        if a == b:
            raise MatchError("same_side", "a side cannot meet itself (%s)" % a, "参赛方不能与自己比赛（%s）" % a)
        if by == "a":
            by = a
        elif by == "b":
            by = b
        if by not in (a, b, "both"):
            raise MatchError("bad_forfeit", "forfeit/abandoned/excused must name side a, side b or \"both\", not %r" % (by,),
                             "弃权/退赛/免予处分方必须是 a、b 或 \"both\"，不能是 %r" % (by,))
        return round, a, b, by

    @classmethod
    def from_dict(cls, d):
        """Parse one match record (the ``matches.json`` row format, see the game's match document).

        >>> MatchResult.from_dict({"round": 1, "a": "P1", "b": "P2", "a_level": "A+", "b_level": "2"}).jichafen_a
        26
        >>> MatchResult.from_dict({"round": 1, "a": "P1", "bye": True}).changfen_a
        1.5
        """
        if not isinstance(d, dict):
            raise MatchError("bad_match", "a match must be a JSON object, not %r" % (d,), "每场比赛必须是 JSON 对象")
        known = {"round", "a", "b", "a_level", "b_level", "bye", "open", "closed", "match_id"} | set(ABSENCES)
        extra = sorted(set(d) - known)
        if extra:
            raise MatchError("bad_match", "unknown field(s) %s (known: %s)" % (", ".join(extra), ", ".join(sorted(known))),
                             "未知字段 %s" % ", ".join(extra))
        for name in ("round", "a"):
            if name not in d:
                raise MatchError("bad_match", "missing field %r" % name, "缺少字段 %r" % name)
        mid = d.get("match_id")
        if mid is not None and (not isinstance(mid, str) or not mid):
            raise MatchError("bad_match", "match_id must be a non-empty string", "match_id 必须是非空字符串")
        if d.get("bye"):
            if d.get("bye") is not True or set(d) - {"round", "a", "bye", "match_id"}:
                raise MatchError("bad_match", "a bye has only round, a and \"bye\": true", "轮空只有 round、a 和 \"bye\": true")
            return cls.bye(d["round"], d["a"], match_id=mid)
        if "b" not in d:
            raise MatchError("bad_match", "missing field 'b' (or \"bye\": true)", "缺少字段 'b'（或 \"bye\": true）")
        modes = [k for k in ABSENCES if k in d]
        has_levels = "a_level" in d or "b_level" in d
        has_rooms = "open" in d or "closed" in d
        if len(modes) + has_levels + has_rooms != 1:
            raise MatchError("bad_match", "give exactly one of: a_level and b_level; open and closed rooms; forfeit; abandoned; excused",
                             "只能给出一种结果：a_level 和 b_level；开室和闭室；forfeit；abandoned；excused")
        if modes:
            if modes[0] == EXCUSED:
                return cls.excused(d["round"], d["a"], d["b"], d[EXCUSED], match_id=mid)
            return cls.forfeit(d["round"], d["a"], d["b"], d[modes[0]], abandoned=modes[0] == ABANDONED, match_id=mid)
        if has_levels:
            if "a_level" not in d or "b_level" not in d:
                raise MatchError("bad_match", "a played match needs both a_level and b_level", "比赛需要 a_level 和 b_level")
            return cls.played(d["round"], d["a"], d["b"], d["a_level"], d["b_level"], match_id=mid)
        rooms = []
        for name in ("open", "closed"):
            r = d.get(name)
            if not isinstance(r, dict) or sorted(r) != ["EW", "NS"]:
                raise MatchError("bad_match", "%s must be an object {\"EW\": level, \"NS\": level}" % name,
                                 "%s 必须是 {\"EW\": 级数, \"NS\": 级数}" % name)
            rooms.append(Room(r["EW"], r["NS"]))
        return cls.team(d["round"], d["a"], d["b"], rooms[0], rooms[1], match_id=mid)

    def to_dict(self):
        """The input form plus the computed scores (``from_dict`` reads the input part back)."""
        out = {"round": self.round, "a": self.a}
        if self.match_id is not None:
            out["match_id"] = self.match_id
        if self.kind == BYE:
            out["bye"] = True
        else:
            out["b"] = self.b
        if self.kind == PLAYED:
            out.update(a_level=level_text(self.level_a), b_level=level_text(self.level_b))
        elif self.kind == TEAM:
            out.update(open=self.rooms[0].to_dict(), closed=self.rooms[1].to_dict())
        elif self.kind in ABSENCES:
            out[self.kind] = "both" if self.by == "both" else ("a" if self.by == self.a else "b")
        out["score"] = {"kind": self.kind, "diff": self.diff,
                        "changfen": [_num(self.changfen_a), _num(self.changfen_b)],
                        "jichafen": [self.jichafen_a, self.jichafen_b]}
        return out

    # -- per side -----------------------------------------------------------------------------
    def sides(self):
        return (self.a,) if self.b is None else (self.a, self.b)

    def opponent(self, side):
        return self.b if side == self.a else self.a

    def score_of(self, side):
        """(场分, 级差分) of one side."""
        if side == self.a:
            return _num(self.changfen_a), self.jichafen_a
        if side == self.b:
            return _num(self.changfen_b), self.jichafen_b
        raise KeyError(side)

    def diff_of(self, side):
        return self.diff if side == self.a else -self.diff

    def outcome_of(self, side):
        """``win``, ``draw``, ``loss`` or ``bye``.  A forfeit counts as a win for the side that
        turned up **[decision]**; a bye is neither a win nor a draw."""
        if self.kind == BYE:
            return "bye"
        c = self.score_of(side)[0]
        return "win" if c == WIN else ("draw" if c == DRAW else "loss")


@dataclass(frozen=True)
class Penalty:
    """A deduction from a side's stage total (seed 第五十一条 3: 罚分在阶段总得分中扣除).

    ``unit`` is ``"changfen"`` (场分) or ``"jichafen"`` (级差分); ``points`` is the positive
    amount deducted, in halves (第三十三条 二 halves the overtime penalties).  ``round``
    (optional) is the round from which the penalty counts; without it it counts in every
    standings.  ``who``, ``at`` and ``reason`` are kept for the record.

    >>> Penalty.from_dict({"side": "P1", "unit": "级差分", "points": 3, "reason": "第二类判罚 first offence",
    ...                    "who": "referee Li", "at": "2025-05-01T10:00:00+08:00"}).unit
    'jichafen'
    """

    side: str
    unit: str
    points: object
    reason: str
    who: str
    at: str
    round: object = None

    UNITS = {"changfen": "changfen", "场分": "changfen", "jichafen": "jichafen", "级差分": "jichafen"}

    @classmethod
    def from_dict(cls, d):
        if not isinstance(d, dict):
            raise MatchError("bad_penalty", "a penalty must be a JSON object", "罚分必须是 JSON 对象")
        known = {"side", "unit", "points", "reason", "who", "at", "round"}
        extra = sorted(set(d) - known)
        if extra:
            raise MatchError("bad_penalty", "unknown field(s) %s (known: %s)" % (", ".join(extra), ", ".join(sorted(known))),
                             "未知字段 %s" % ", ".join(extra))
        for name in ("side", "unit", "points", "reason", "who", "at"):
            if name not in d:
                raise MatchError("bad_penalty", "missing field %r (a penalty records side, unit, points, reason, who, at)" % name,
                                 "缺少字段 %r（罚分要记录 side、unit、points、reason、who、at）" % name)
        unit = cls.UNITS.get(d["unit"])
        if unit is None:
            raise MatchError("bad_penalty", "unit must be \"changfen\" (场分) or \"jichafen\" (级差分), not %r" % (d["unit"],),
                             "unit 必须是 场分 或 级差分，不能是 %r" % (d["unit"],))
        pts = d["points"]
        if isinstance(pts, bool) or not isinstance(pts, (int, float)) or pts <= 0 or pts * 2 != int(pts * 2):
            raise MatchError("bad_penalty", "points must be a positive multiple of 0.5, not %r" % (pts,),
                             "罚分必须是 0.5 的正整数倍，不能是 %r" % (pts,))
        for name in ("reason", "who", "at"):
            if not isinstance(d[name], str) or not d[name].strip():
                raise MatchError("bad_penalty", "%s must be a non-empty string (every deduction says why, who and when)" % name,
                                 "%s 不能为空（每次扣分都要写明原因、裁判和时间）" % name)
        rnd = d.get("round")
        if rnd is not None:
            rnd = _round(rnd)
        return cls(_side(d["side"], "penalty side"), unit, _num(pts), d["reason"].strip(), d["who"].strip(), d["at"].strip(), rnd)

    def to_dict(self):
        out = {"side": self.side, "unit": self.unit, "points": self.points, "reason": self.reason,
               "who": self.who, "at": self.at}
        if self.round is not None:
            out["round"] = self.round
        return out


# -- input lists ---------------------------------------------------------------------------------

def _row_error(kind, i, e):
    return type(e)(e.code, "%s row %d: %s" % (kind, i + 1, e.en), "%s 第 %d 行：%s" % (kind, i + 1, e.zh))


def parse_matches(rows):
    """Parse and cross-check a list of match records: each side plays at most once per round and
    ``match_id`` values are unique.  Errors name the row (1-based)."""
    if not isinstance(rows, list):
        raise MatchError("bad_input", "matches must be a JSON list of match objects", "比赛结果必须是 JSON 列表")
    out, seen, ids = [], {}, {}
    for i, row in enumerate(rows):
        try:
            m = row if isinstance(row, MatchResult) else MatchResult.from_dict(row)
        except MatchError as e:
            raise _row_error("matches", i, e) from None
        for s in m.sides():
            if (m.round, s) in seen:
                raise MatchError("side_twice", "matches row %d: %s already plays in round %d (row %d)" % (i + 1, s, m.round, seen[m.round, s] + 1),
                                 "matches 第 %d 行：%s 在第 %d 轮已有比赛（第 %d 行）" % (i + 1, s, m.round, seen[m.round, s] + 1))
            seen[m.round, s] = i
        if m.match_id is not None:
            if m.match_id in ids:
                raise MatchError("duplicate_id", "matches row %d: match_id %r repeats row %d" % (i + 1, m.match_id, ids[m.match_id] + 1),
                                 "matches 第 %d 行：match_id %r 与第 %d 行重复" % (i + 1, m.match_id, ids[m.match_id] + 1))
            ids[m.match_id] = i
        out.append(m)
    return out


def parse_penalties(rows):
    if not isinstance(rows, list):
        raise MatchError("bad_input", "penalties must be a JSON list", "罚分必须是 JSON 列表")
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(row if isinstance(row, Penalty) else Penalty.from_dict(row))
        except MatchError as e:
            raise _row_error("penalties", i, e) from None
    return out


def parse_sides(rows):
    """Sides of a round, in side-number order (号: the first is number 1).  Each row is a name,
    or ``{"id": name, "seed": n}``; when every side has a seed, round 1 pairs strong against
    weak (seed 第二十六条 3).  Returns (names, seeds or None).

    >>> parse_sides(["P1", {"id": "P2"}, 3])
    (['P1', 'P2', '3'], None)
    """
    if not isinstance(rows, list) or not rows:
        raise MatchError("bad_input", "sides must be a non-empty JSON list", "参赛方名单必须是非空 JSON 列表")
    names, seeds = [], {}
    for i, row in enumerate(rows):
        try:
            if isinstance(row, dict):
                extra = sorted(set(row) - {"id", "name", "seed"})
                if extra or "id" not in row:
                    raise MatchError("bad_side", "a side object has \"id\" and optional \"name\", \"seed\"",
                                     "参赛方对象包含 \"id\"，可选 \"name\"、\"seed\"")
                name = _side(row["id"], "id")
                if "seed" in row:
                    s = row["seed"]
                    if not isinstance(s, int) or isinstance(s, bool) or s < 1:
                        raise MatchError("bad_side", "seed must be an integer ≥ 1, not %r" % (s,), "种子号必须是不小于 1 的整数")
                    seeds[name] = s
            else:
                name = _side(row, "side")
        except MatchError as e:
            raise _row_error("sides", i, e) from None
        if name in names:
            raise MatchError("side_twice", "sides row %d: %s is listed twice" % (i + 1, name),
                             "sides 第 %d 行：%s 重复" % (i + 1, name))
        names.append(name)
    if seeds and len(seeds) != len(names):
        raise MatchError("bad_side", "either every side has a seed or none has", "要么全部参赛方都有种子号，要么都没有")
    if seeds and len(set(seeds.values())) != len(seeds):
        raise MatchError("bad_side", "seeds must be distinct", "种子号不能重复")
    return names, (seeds or None)


# -- standings -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class SideRecord:
    """A side's totals over the stage, penalties deducted."""

    side: str
    changfen: object
    jichafen: object
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    level_diff: int
    opponents: tuple
    opponents_changfen: object
    penalties: tuple
    previous_rank: object  # rank after the previous round, or None

    def to_dict(self):
        return {"side": self.side, "changfen": _num(self.changfen), "jichafen": _num(self.jichafen),
                "played": self.played, "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "byes": self.byes, "level_diff": self.level_diff, "opponents": list(self.opponents),
                "opponents_changfen": _num(self.opponents_changfen), "previous_rank": self.previous_rank,
                "penalties": [p.to_dict() for p in self.penalties]}


@dataclass(frozen=True)
class StandingsRow:
    """One line of the standings.  ``decided_by`` names the step that put this row below the
    row above it (``None`` on the first row, ``"tie"`` when the two share the rank)."""

    rank: int
    record: SideRecord
    decided_by: object

    @property
    def side(self):
        return self.record.side

    @property
    def changfen(self):
        return _num(self.record.changfen)

    @property
    def jichafen(self):
        return _num(self.record.jichafen)


@dataclass(frozen=True)
class Standings:
    round: int  # the last round counted (0 before any match)
    rows: tuple
    steps: tuple

    def rank_of(self, side):
        for r in self.rows:
            if r.side == side:
                return r.rank
        raise KeyError(side)

    def order(self):
        return [r.side for r in self.rows]

    def to_dict(self):
        return {"round": self.round, "steps": ["changfen"] + list(self.steps),
                "standings": [dict(rank=r.rank, decided_by=r.decided_by, **r.record.to_dict()) for r in self.rows]}

    CSV_COLUMNS = ("rank", "side", "changfen", "jichafen", "played", "wins", "draws", "losses", "byes",
                   "level_diff", "opponents_changfen", "previous_rank", "penalties", "decided_by")

    def to_csv(self):
        """Standings as CSV (one row per side; ``penalties`` counts the deductions).

        >>> print(standings([MatchResult.bye(1, "P1")]).to_csv().strip())
        rank,side,changfen,jichafen,played,wins,draws,losses,byes,level_diff,opponents_changfen,previous_rank,penalties,decided_by
        1,P1,1.5,17,0,0,0,0,1,0,0,,0,
        """
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.CSV_COLUMNS)
        for r in self.rows:
            d = r.record.to_dict()
            d.update(rank=r.rank, decided_by=r.decided_by, penalties=len(r.record.penalties))
            w.writerow(["" if d[c] is None else d[c] for c in self.CSV_COLUMNS])
        return buf.getvalue()


def _check_steps(steps):
    steps = tuple(steps)
    for s in steps:
        if s not in STEPS or s == "changfen":
            raise MatchError("bad_step", "unknown tie-break step %r (known: %s)" % (s, ", ".join(DEFAULT_STEPS)),
                             "未知的同分排名规则 %r" % (s,))
    if len(set(steps)) != len(steps):
        raise MatchError("bad_step", "a tie-break step is listed twice", "同分排名规则重复")
    return steps


def _records(matches, penalties, sides, upto, previous):
    names = list(sides or ())
    for m in matches:
        if m.round <= upto:
            names.extend(m.sides())
    acc = {}
    for s in names:
        if s not in acc:
            acc[s] = dict(changfen=0, jichafen=0, played=0, wins=0, draws=0, losses=0, byes=0, level_diff=0,
                          opponents=[], penalties=[])
    for m in matches:
        if m.round > upto:
            continue
        for s in m.sides():
            a = acc[s]
            c, j = m.score_of(s)
            a["changfen"] += c
            a["jichafen"] += j
            out = m.outcome_of(s)
            if out == "bye":
                a["byes"] += 1
                continue
            a["played"] += 1
            a[{"win": "wins", "draw": "draws", "loss": "losses"}[out]] += 1
            a["level_diff"] += m.diff_of(s)
            a["opponents"].append(m.opponent(s))
    for p in penalties:
        if p.round is not None and p.round > upto:
            continue
        if p.side not in acc:
            continue  # a penalty for a side outside this standings (withdrawn before it played)
        a = acc[p.side]
        a[p.unit] -= p.points
        a["penalties"].append(p)
    out = {}
    for s, a in acc.items():
        opp = sum(acc[o]["changfen"] for o in a["opponents"])
        out[s] = SideRecord(s, _num(a["changfen"]), _num(a["jichafen"]), a["played"], a["wins"], a["draws"], a["losses"],
                            a["byes"], a["level_diff"], tuple(a["opponents"]), _num(opp), tuple(a["penalties"]),
                            previous.get(s) if previous else None)
    return out


def _head_to_head(matches, upto):
    """(x, y) → 场分 x took off y in their meetings up to round ``upto``."""
    h2h = {}
    for m in matches:
        if m.round <= upto and m.b is not None:
            for s in m.sides():
                key = (s, m.opponent(s))
                h2h[key] = h2h.get(key, 0) + m.score_of(s)[0]
    return h2h


def _rank_blocks(records, steps, h2h, final_key):
    """Order records into blocks of ties; each block carries the step that split it from the
    block above.  The chain is applied to each tied group; a group split by one step goes on
    with the next step (it does not restart); head-to-head applies only to a group of exactly
    two **[decision: seed 第四十九条 一 1 (two tied) and 2 (three or more: no head-to-head)]**."""

    def key_of(step, group):
        if step == "head_to_head":
            x, y = group
            return {x.side: h2h.get((x.side, y.side), 0), y.side: h2h.get((y.side, x.side), 0)}
        if step == "previous_rank":
            worst = len(records) + 1  # a side new to the stage counts below every ranked side
            return {r.side: -(r.previous_rank if r.previous_rank is not None else worst) for r in group}
        return {r.side: getattr(r, step) for r in group}

    def split(group, i):
        if len(group) == 1:
            return [(group, None)]
        if i == len(steps):
            return [(sorted(group, key=final_key), None)]
        step = steps[i]
        if step == "head_to_head" and len(group) != 2:
            return split(group, i + 1)
        keys = key_of(step, group)
        values = sorted(set(keys.values()), reverse=True)
        out = []
        for k, v in enumerate(values):
            sub = split([r for r in group if keys[r.side] == v], i + 1)
            if k > 0:
                sub[0] = (sub[0][0], step)
            out.extend(sub)
        return out

    return split(list(records), 0)


def _standings_once(matches, penalties, sides, upto, steps, previous, final_key):
    recs = _records(matches, penalties, sides, upto, previous)
    chain = ("changfen",) + steps
    blocks = _rank_blocks(sorted(recs.values(), key=final_key), chain, _head_to_head(matches, upto), final_key)
    rows, count = [], 0
    for block, dec in blocks:
        rank = count + 1
        for j, r in enumerate(block):
            rows.append(StandingsRow(rank, r, (dec if count else None) if j == 0 else "tie"))
            count += 1
    return rows


def standings(matches, penalties=(), sides=None, upto=None, steps=DEFAULT_STEPS, final_key=None):
    """Standings after round ``upto`` (default: the last round in ``matches``).

    ``matches`` are :class:`MatchResult` (or match dicts); ``penalties`` :class:`Penalty` (or
    dicts); ``sides`` lists sides to show even without a match.  ``steps`` is the tie-break
    chain after 场分 (default seed 第四十九条).  A tie that survives every step shares the rank;
    within it sides are listed by ``final_key`` (default: by name).

    The previous-round rank (last step) is the rank in the standings after round ``upto − 1``,
    computed the same way.
    """
    matches = parse_matches(list(matches))
    penalties = parse_penalties(list(penalties))
    if sides is not None:
        sides = [_side(s, "side") for s in sides]
    steps = _check_steps(steps)
    last = max((m.round for m in matches), default=0)
    upto = last if upto is None else upto
    if final_key is None:
        final_key = lambda r: r.side  # noqa: E731  (a stable, visible order for shared ranks)
    previous, rows = None, []
    # Each round's standings needs the one before it (previous-round rank), so build them up.
    for r in range(1, upto + 1) if upto else [0]:
        rows = _standings_once(matches, penalties, sides, r, steps, previous, final_key)
        previous = {row.side: row.rank for row in rows}
    return Standings(upto, tuple(rows), steps)


# -- pairing (积分编排) ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Pairing:
    """A round's pairing.  ``tables`` lists (home, away) pairs, table 1 first; the home side
    (主队) sits E–W in the open room and N–S in the closed room."""

    round: int
    tables: tuple
    bye: object
    ranking: tuple  # the order the pairing was built from (best first)
    method: str  # "seeded" (round 1 by seeds), "secret" (round 1 by the event secret) or "standings"
    absent: tuple = ()  # sides with earlier results that are not in this round's list (withdrawn?)

    def to_dict(self):
        return {"round": self.round, "method": self.method, "bye": self.bye,
                "tables": [{"table": i + 1, "home": h, "away": a} for i, (h, a) in enumerate(self.tables)],
                "ranking": list(self.ranking), "absent": list(self.absent)}


def _secret_order(secret, names):
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, bytes) or not secret:
        raise PairingError("no_secret", "round 1 needs the event secret (or a seed for every side)",
                           "第一轮编排需要赛事密钥（或每个参赛方的种子号）")
    # Order by an HMAC of each name: reproducible from the secret, unpredictable without it.
    return sorted(names, key=lambda s: (hmac.new(secret, _PAIR_DOMAIN + s.encode("utf-8"), hashlib.sha256).digest(), s))


class _Matcher:
    """Perfect matchings of the "have not met" graph (the complement of the meetings so far),
    by Edmonds' blossom algorithm on augmenting paths.  Vertices are indices in ranking order.

    The pairing is built top-down: the best unpaired side takes the nearest-ranked side it may
    still meet *such that the rest can still be paired*.  That is exactly the first answer a
    backtracking search from the top of the ranking would find, but each choice costs one
    augmenting-path search instead of a search tree: keep a perfect matching M of the unpaired
    sides; fixing (i, j) ∉ M leaves M[i] and M[j] exposed, and the rest can be paired iff an
    augmenting path joins them (Berge).
    """

    def __init__(self, n, met):
        self.n = n
        self.met = met  # list of sets of indices
        self.alive = [True] * n
        self.mate = [-1] * n

    def _neighbours(self, v):
        met, alive = self.met[v], self.alive
        return [u for u in range(self.n) if alive[u] and u != v and u not in met]

    def _augment_from(self, root):
        """Find an augmenting path from the exposed ``root`` and apply it; False if none."""
        n, mate, alive = self.n, self.mate, self.alive
        parent = [-1] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = [root]

        def lca(a, b):
            seen = [False] * n
            while True:
                a = base[a]
                seen[a] = True
                if mate[a] == -1:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[mate[b]]

        def mark(v, b, child, blossom):
            while base[v] != b:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        qi = 0
        while qi < len(queue):
            v = queue[qi]
            qi += 1
            for to in self._neighbours(v):
                if base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                    cur = lca(v, to)
                    blossom = [False] * n
                    mark(v, cur, to, blossom)
                    mark(to, cur, v, blossom)
                    for i in range(n):
                        if alive[i] and blossom[base[i]]:
                            base[i] = cur
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if mate[to] == -1:
                        # flip the path root … v → to
                        while to != -1:
                            pv = parent[to]
                            nxt = mate[pv]
                            mate[to], mate[pv] = pv, to
                            to = nxt
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False

    def perfect(self):
        """Complete ``mate`` to a perfect matching of the alive vertices; False if none exists."""
        for v in range(self.n):  # greedy start: nearest ranks first, most are already right
            if self.alive[v] and self.mate[v] == -1:
                for u in range(v + 1, self.n):
                    if self.alive[u] and self.mate[u] == -1 and u not in self.met[v]:
                        self.mate[v], self.mate[u] = u, v
                        break
        for v in range(self.n):
            # A vertex with no augmenting path now never gets one later (Edmonds), so one
            # failure proves that no perfect matching exists.
            if self.alive[v] and self.mate[v] == -1 and not self._augment_from(v):
                return False
        return True

    def fix(self, i, j):
        """Pair i with j if the rest can still be paired; keeps ``mate`` perfect."""
        mi, mj = self.mate[i], self.mate[j]
        if mi == j:
            self.alive[i] = self.alive[j] = False
            return True
        saved = list(self.mate)
        self.alive[i] = self.alive[j] = False
        self.mate[mi] = self.mate[mj] = -1
        self.mate[i], self.mate[j] = j, i
        if mj not in self.met[mi]:
            self.mate[mi], self.mate[mj] = mj, mi
            return True
        # A path of length 3 (mi – x = mate[x] – mj) almost always exists when few have met;
        # finding it costs one scan, where the general search builds blossoms in a dense graph.
        mate, met_j = self.mate, self.met[mj]
        for x in self._neighbours(mi):
            y = mate[x]  # alive and matched, so neither mi nor mj (both exposed)
            if y not in met_j:
                mate[mi], mate[x], mate[y], mate[mj] = x, mi, mj, y
                return True
        if self._augment_from(mi):
            return True
        self.mate = saved
        self.alive[i] = self.alive[j] = True
        return False


def _perfect_pairing(order, met_names):
    """Pair ``order`` (best first) top-down, nearest rank first, no repeat; None if impossible."""
    idx = {s: k for k, s in enumerate(order)}
    met = [{idx[o] for o in met_names.get(s, ()) if o in idx} for s in order]
    mt = _Matcher(len(order), met)
    if not mt.perfect():
        return None
    pairs = []
    for i in range(len(order)):
        if not mt.alive[i]:
            continue
        for j in range(i + 1, len(order)):
            if mt.alive[j] and j not in met[i] and mt.fix(i, j):
                pairs.append((order[i], order[j]))
                break
        else:  # cannot happen: mate[i] is always a valid choice
            raise AssertionError("pairing lost its perfect matching")
    return pairs


def pair_round(round, sides, matches=(), penalties=(), secret=None, seeds=None, steps=DEFAULT_STEPS):
    """Pair round ``round`` of a Swiss (积分编排) stage.

    ``sides``: the sides that play this round, in side-number order (号; the first is 1);
    sides that met before, byes and scores come from ``matches`` of earlier rounds.

    - Round 1 (no earlier matches): with ``seeds`` (name → seed, 1 strongest) strong meets weak,
      seed k against seed k + n/2 (seed 第二十六条 3); otherwise the sides are ordered by an HMAC
      of the event ``secret`` and paired the same way.
    - Later rounds: by the standings (场分 and the full tie-break chain); ties that survive it
      are ordered by side number, ascending in odd rounds and descending in even rounds
      (第二十六条 5).  Each side meets the nearest-ranked side it has not met, top down, such
      that the rest can still be paired without repeats (第二十六条 1).
    - An odd field: the lowest-ranked side that has not had a bye gets it (once per side,
      第二十六条 6); if the rest cannot be paired without a repeat, the next lowest is tried.

    Raises :class:`PairingError` when no pairing without a repeat exists.
    """
    round = _round(round)
    names = [_side(s, "side") for s in sides]
    if len(set(names)) != len(names):
        raise MatchError("side_twice", "a side is listed twice", "参赛方重复")
    if len(names) < 2:
        raise PairingError("too_few", "pairing needs at least two sides", "编排至少需要两个参赛方")
    matches = parse_matches(list(matches))
    later = [m for m in matches if m.round >= round]
    if later:
        raise PairingError("round_has_results", "round %d already has results (%s); pair a round before its results arrive"
                           % (round, " v ".join(later[0].sides())), "第 %d 轮已有比赛结果" % round)
    number = {s: k for k, s in enumerate(names)}
    met, had_bye = {}, set()
    for m in matches:
        if m.b is None:
            had_bye.add(m.a)
        else:
            met.setdefault(m.a, set()).add(m.b)
            met.setdefault(m.b, set()).add(m.a)

    if not matches:
        if seeds:
            missing = [s for s in names if s not in seeds]
            if missing:
                raise PairingError("no_seed", "side(s) %s have no seed" % ", ".join(missing), "参赛方 %s 没有种子号" % ", ".join(missing))
            order, method = sorted(names, key=lambda s: seeds[s]), "seeded"
        else:
            order, method = _secret_order(secret, names), "secret"
    else:
        sign = 1 if round % 2 else -1
        table = standings(matches, penalties, sides=names, upto=round - 1, steps=steps,
                          final_key=lambda r: (sign * number.get(r.side, len(names)), r.side))
        order, method = [s for s in table.order() if s in number], "standings"

    bye = None
    playing = list(order)
    if len(playing) % 2:
        for cand in reversed(order):
            if cand in had_bye:
                continue
            rest = [s for s in order if s != cand]
            if _perfect_pairing_exists(rest, met):
                bye = cand
                break
        if bye is None:
            if all(s in had_bye for s in order):
                raise PairingError("no_bye_left", "every side has had its bye; an odd field cannot be paired in round %d" % round,
                                   "所有参赛方都已轮空过，第 %d 轮单数队无法编排" % round)
            raise PairingError("no_pairing", "no pairing of round %d avoids a repeat meeting with one bye per side" % round,
                               "第 %d 轮无法编排：无论谁轮空都会出现重复相遇" % round)
        playing.remove(bye)
    if method != "standings":
        # Round 1: strong against weak, k against k + n/2 (seed 第二十六条 3); nobody has met yet.
        half = len(playing) // 2
        pairs = [(playing[k], playing[k + half]) for k in range(half)]
    else:
        pairs = _perfect_pairing(playing, met)
        if pairs is None:
            raise PairingError("no_pairing", "no pairing of round %d avoids a repeat meeting" % round,
                               "第 %d 轮无法编排：无法避免重复相遇" % round)
    tables = []
    for x, y in pairs:
        # 主队: the smaller side number in odd rounds, the larger in even rounds (第二十九条 一(二)).
        lo, hi = (x, y) if number[x] < number[y] else (y, x)
        tables.append((lo, hi) if round % 2 else (hi, lo))
    absent = sorted({s for m in matches for s in m.sides()} - set(names))
    return Pairing(round, tuple(tables), bye, tuple(order), method, tuple(absent))


def _perfect_pairing_exists(order, met_names):
    idx = {s: k for k, s in enumerate(order)}
    met = [{idx[o] for o in met_names.get(s, ()) if o in idx} for s in order]
    return _Matcher(len(order), met).perfect()


# -- the command line: `paizhuo matches standings|pair` (also `paizhuo <GAME> ...`) ----------------
# File reading lives here, at the edge; everything above stays pure.

EXIT_BAD_INPUT = 2
MIN_SECRET = 16  # bytes, as event.toml demands


def _load_json(path, what, stdin):
    try:
        if path == "-":
            text = (stdin or sys.stdin).read()
        else:
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise MatchError("bad_file", "cannot read the %s file %s: %s" % (what, path, e), "无法读取%s文件 %s" % (what, path)) from None
    try:
        return parse_json(text, "the %s file %s" % (what, path))
    except InputError as e:   # not JSON, too deep, bad text or numbers
        raise MatchError(e.code, e.en, e.zh) from None


def load_input(data):
    """Split a ``matches.json`` document: a list of match rows, or an object with ``matches``
    and optional ``penalties`` and ``sides``.  Returns (matches, penalties, sides or None)."""
    if isinstance(data, list):
        return parse_matches(data), [], None
    if not isinstance(data, dict) or "matches" not in data:
        raise MatchError("bad_input", "matches.json must be a list of matches or {\"matches\": [...], \"penalties\": [...]}",
                         "matches.json 必须是比赛列表，或 {\"matches\": [...], \"penalties\": [...]}")
    extra = sorted(set(data) - {"matches", "penalties", "sides"})
    if extra:
        raise MatchError("bad_input", "matches.json: unknown key(s) %s" % ", ".join(extra), "matches.json：未知字段 %s" % ", ".join(extra))
    sides = parse_sides(data["sides"])[0] if "sides" in data else None
    return parse_matches(data["matches"]), parse_penalties(data.get("penalties", [])), sides


def add_arguments(parser):
    """The ``paizhuo matches`` sub-commands on their argparse sub-parser."""
    sub = parser.add_subparsers(dest="matches_command", required=True)
    s = sub.add_parser("standings", help="match standings (场分, 级差分, tie-breaks) from match results")
    s.add_argument("--input", required=True, metavar="FILE", help="matches.json (- reads standard input)")
    s.add_argument("--format", default="json", choices=("json", "csv"), help="output format (default json)")
    p = sub.add_parser("pair", help="Swiss pairing (积分编排) of the next round")
    p.add_argument("--round", type=whole_number("--round", 1, 999), required=True, help="the round to pair")
    p.add_argument("--input", required=True, metavar="FILE", help="matches.json of the earlier rounds (- reads standard input)")
    p.add_argument("--sides", required=True, metavar="FILE", help="sides.json: the sides that play this round, by side number")
    p.add_argument("--secret", help="the event secret (round 1 without seeds)")


def command(args, stdin=None, stdout=None, stderr=None):
    """Run ``paizhuo matches ...`` (or ``paizhuo <GAME> ...``); returns the exit code (2 for bad
    input, nothing printed)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    try:
        ms, pens, listed = load_input(_load_json(args.input, "matches", stdin))
        if args.matches_command == "standings":
            st = standings(ms, pens, sides=listed)
            out = st.to_csv() if args.format == "csv" else json.dumps(st.to_dict(), ensure_ascii=False, indent=1) + "\n"
        else:
            names, seeds = parse_sides(_load_json(args.sides, "sides", stdin))
            if args.secret is not None and len(args.secret.encode("utf-8")) < MIN_SECRET:
                raise MatchError("short_secret", "--secret is %d bytes; an event secret has at least %d (a short one "
                                 "can be guessed from the published pairing)" % (len(args.secret.encode("utf-8")), MIN_SECRET),
                                 "--secret 只有 %d 字节；比赛密钥至少 %d 字节（过短的密钥可从公布的编排猜出）"
                                 % (len(args.secret.encode("utf-8")), MIN_SECRET))
            pairing = pair_round(args.round, names, ms, pens, secret=args.secret, seeds=seeds)
            out = json.dumps(pairing.to_dict(), ensure_ascii=False, indent=1) + "\n"
    except MatchError as e:
        said = "paizhuo %s:" % getattr(args, "command", GAME)  # the command's name as the user typed it
        print("%s %s" % (said, e.en), file=stderr)
        print("%s %s" % (said, e.zh), file=stderr)
        return EXIT_BAD_INPUT
    stdout.write(out)
    return 0
