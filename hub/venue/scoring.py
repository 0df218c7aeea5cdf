"""Duplicate MP scoring and standings for individual events (复式 MP 计分与排名).

Every one-deal game's individual events are scored the same way (seed 004, Appendix 2; ``RULES.md`` "Duplicate scoring, ranking and movement"):

* every result is compared with every other result of the same deal, seat and group: **2 MP for
  each worse score, 1 for each equal score, 0 for each better**; top = 2(N − 1); rate r = MP / top;
* deal places (单副排名) by r: equal r share a place and the next place skips (1, 1, 3);
* final score R = mean of the player's r, to one decimal of a percent (最终成绩 R 保留小数点后1位);
* equal R is broken by, in order: (1) the mean final R of the opponents beaten, (2) more deal
  firsts, then more seconds, …, (3) less total thinking time, (4) less mean time after dropping the
  slowest and the fastest deal, (5) still equal: the players share the rank and need a play-off (加赛).

Decisions (each documented in ``docs/scoring.md``):

* **Neuberg.**  A deal with n results where N were expected (a table did not finish it) is scaled
  to the full field: M′ = (M + 1)·N/n − 1, so every deal keeps the same weight in R.
* **N = 1.**  A group of one table has nobody to compare with: top = 0 and r = 1/2 (50 %), which is
  also what Neuberg gives a lone result in a larger field.
* **Ties in R are judged on the official one-decimal R** (the seed defines R to one decimal); pass
  ``exact_ties=True`` to judge on the exact fraction instead.  Tie-break 1 averages the opponents'
  official R the same way.  A player who beat nobody scores 0 on tie-break 1.
* **Tie-break 4 with ≤ 2 deals**: dropping the slowest and the fastest deal would leave nothing, so
  the plain mean of all the player's deals is used.
* **Rounding for display** is half-up on the exact fraction (never float ``round()``).
* **Deals across rounds.**  A deal is (round, group, board): with a ``round`` in the rows, board 1 of
  round 2 is a different deal from board 1 of round 1.  Either every row has a round or none does.

Input rows are plain dicts, the shape ``paizhuo score`` reads and the venue store returns::

    {"player": "p7" | 7, "board": 3, "seat": "E", "table": 12, "score": -20, "think_ms": 81500,
     "group": "A" (optional, default 1), "round": 2 (optional)}

Other keys (a result id, a deal hash) are ignored.  Anything wrong raises `ScoringInputError`
naming the row (1-based) and what to do; nothing is scored from bad input.

The seed's worked example (three players held seat E of three deals at three tables):

>>> rows = []
>>> scores = {1: (15, 11, 18), 2: (7, 11, 51), 3: (21, -3, 18)}
>>> for p, (a, b, c) in scores.items():
...     for board, s in ((1, a), (2, b), (3, c)):
...         rows.append({"player": p, "board": board, "seat": "E", "table": p, "score": s, "think_ms": 0})
>>> st = standings(rows)
>>> [(e.player, e.rank, e.R_display) for e in st]
[(2, 1, '58.3'), (1, 2, '50.0'), (3, 3, '41.7')]
>>> [(d.board, d.mp_display, d.rate_display, d.place) for d in st.entry(1).deals]
[(1, '2', '50.0', 2), (2, '3', '75.0', 1), (3, '1', '25.0', 2)]

``Standings.to_dict()`` is the stable JSON shape other parts read (``movement`` takes the players'
``rank`` and ``R``)::

    {"format": "paizhuo.standings/1",
     "exact_ties": false,
     "fields": [{"round": null, "group": 1, "tables": 3, "expected": 3}, ...],
     "playoffs": [["p4", "p9"], ...],          # players sharing a rank after every tie-break
     "players": [                               # in rank order
       {"player": 2, "rank": 1, "R": 58.3, "R_exact": "175/3",   # R in percent; exact as p/q
        "playoff": false, "decided_by": "R",    # see STEPS
        "deals": 3,
        "boards": {"1": {"round": null, "board": 1, "group": 1, "seat": "E", "table": 2,
                         "score": 7, "think_ms": 0, "mp": 0, "mp_exact": "0", "top": 4,
                         "rate": 0.0, "rate_exact": "0", "place": 3, "results": 3, "expected": 3},
                   ...},                        # key: "3" (board), or "r2b3" when rows have rounds
        "places": [2, 0, 1],                    # deal firsts, seconds, thirds, ...
        "firsts": 2,
        "opponents_beaten": {"count": 0, "mean_R": null, "mean_R_exact": "0"},
        "think_ms": 0, "think_trimmed_ms": 0.0, "think_trimmed_ms_exact": "0"}, ...]}

Numbers shown with one decimal (``R``, ``rate``) are half-up from the exact value; ``mp`` is an
integer when whole, otherwise rounded half-up to two decimals (``mp_exact`` is exact).
"""

import csv
import html
import io
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import NamedTuple
from ..errors import CodedError

SEATS = ("E", "N", "W", "S")  # a three-seat game uses E, N, W (a subset, so the default accepts both)
SEAT_ZH = {"E": "东", "N": "北", "W": "西", "S": "南"}
REQUIRED = ("player", "board", "seat", "table", "score", "think_ms")
DEFAULT_GROUP = 1
FORMAT = "paizhuo.standings/1"

# The tie-break steps, in the order they are tried; ``decided_by`` names one of them.
STEPS = ("R", "opponents_beaten", "places", "think_total", "think_trimmed", "playoff")
STEP_TEXT = {
    "R": ("final score R", "最终成绩 R"),
    "opponents_beaten": ("mean R of opponents beaten", "所胜对手平均成绩"),
    "places": ("deal firsts, seconds, …", "单副第一名、第二名……个数"),
    "think_total": ("total thinking time", "打牌总用时"),
    "think_trimmed": ("mean time without slowest and fastest deal", "去掉最多最少用时后的平均用时"),
    "playoff": ("play-off needed", "需加赛"),
}
MAX_NAME = 64  # player, table and group names: longer text is almost certainly a wrong column


class ScoringInputError(CodedError):
    """Results that cannot be scored.  ``code`` is stable for machines; ``en``/``zh`` are for people.

    ``row`` is the 1-based index of the offending row in the input (None when the problem is not one
    row's, e.g. a bad ``expected``).  ``str(error)`` is the English text.

    >>> try:
    ...     standings([{"player": 1, "board": 1, "seat": "E", "table": 1, "score": 3.5, "think_ms": 0}])
    ... except ScoringInputError as e:
    ...     print(e.code, e.row); print(e)
    not_integer 1
    row 1 (player 1, board 1): score must be a whole number (an integer), not 3.5; correct the result and score again
    """

    def __init__(self, code, en, zh, row=None):
        super().__init__(code, en, zh)
        self.row = row

    def to_dict(self):
        return dict(super().to_dict(), row=self.row)


# ---------------------------------------------------------------- exact numbers for display

def half_up(value, places):
    """``value`` (a Fraction or int) rounded half-up to ``places`` decimals, as text.

    >>> half_up(Fraction(175, 3), 1), half_up(Fraction(125, 3), 1), half_up(Fraction(1, 20), 1)
    ('58.3', '41.7', '0.1')
    >>> half_up(Fraction(-1, 20), 1), half_up(Fraction(199, 10), 2), half_up(7, 0)
    ('-0.1', '19.90', '7')
    """
    value = Fraction(value)
    scale = 10 ** places
    sign = "-" if value < 0 else ""
    units = (abs(value) * scale * 2 + 1) // 2  # half away from zero == half-up for the magnitude
    if units == 0:
        sign = ""
    whole, frac = divmod(int(units), scale)
    if places == 0:
        return "%s%d" % (sign, whole)
    return "%s%d.%0*d" % (sign, whole, places, frac)


def _short(value):
    """Half-up to two decimals without trailing zeros: 19.9, 5.83, 4."""
    text = half_up(value, 2)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _number(text):
    """A display text as a JSON number (int when whole)."""
    return int(text) if "." not in text else float(text)


def _exact(value):
    return str(Fraction(value))


# ---------------------------------------------------------------- input rows

class Result(NamedTuple):
    """One validated input row.  ``row`` is its 1-based position in the input."""
    row: int
    player: object
    board: int
    seat: str
    table: object
    score: int
    think_ms: int
    group: object
    round: object  # int or None


def _shown(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _where(i, raw):
    """'row 5 (player 'p7', board 3)' — as much as the raw row tells us."""
    parts = []
    if isinstance(raw, dict):
        p, b = raw.get("player"), raw.get("board")
        if isinstance(p, (str, int)) and not isinstance(p, bool):
            parts.append("player %s" % _shown(p))
        if _is_int(b):
            parts.append("board %d" % b)
    where = "row %d" % i
    return where + (" (%s)" % ", ".join(parts) if parts else "")


def _where_zh(i, raw):
    parts = []
    if isinstance(raw, dict):
        p, b = raw.get("player"), raw.get("board")
        if isinstance(p, (str, int)) and not isinstance(p, bool):
            parts.append("选手 %s" % _shown(p))
        if _is_int(b):
            parts.append("第 %d 副" % b)
    where = "第 %d 行" % i
    return where + ("（%s）" % "，".join(parts) if parts else "")


def _fail(code, i, raw, en, zh):
    raise ScoringInputError(code, "%s: %s" % (_where(i, raw), en), "%s：%s" % (_where_zh(i, raw), zh), row=i)


def _name(value, field, i, raw):
    """A player, table or group id: an integer or a short printable text."""
    if _is_int(value):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text and text == value and len(text) <= MAX_NAME and text.isprintable():
            return value
        _fail("bad_name", i, raw,
              "%s must be a number or a short printable text (1-%d characters, no spaces at the ends), "
              "not %s; fix the %s in the input" % (field, MAX_NAME, _shown(value), field),
              "%s 必须是数字或 1-%d 个可打印字符（两端不得有空格），而不是 %s；请改正" % (field, MAX_NAME, _shown(value)))
    _fail("bad_type", i, raw,
          "%s must be a number or a text, not %s; fix the %s in the input" % (field, _shown(value), field),
          "%s 必须是数字或文字，而不是 %s；请改正" % (field, _shown(value)))


def _whole(value, field, i, raw, minimum=None):
    if not _is_int(value):
        _fail("not_integer", i, raw,
              "%s must be a whole number (an integer), not %s; correct the result and score again"
              % (field, _shown(value)),
              "%s 必须是整数，而不是 %s；请改正成绩后重新计分" % (field, _shown(value)))
    if minimum is not None and value < minimum:
        _fail("out_of_range", i, raw,
              "%s must be at least %d, not %d; correct the result and score again" % (field, minimum, value),
              "%s 不能小于 %d（现为 %d）；请改正成绩后重新计分" % (field, minimum, value))
    return value


def _new_id(value, field, i, raw, known, texts):
    """Check an id seen for the first time: its type and text, and that it is not 7 here and "7" elsewhere."""
    _name(value, field, i, raw)
    seen = texts[field].setdefault(str(value), value)
    if type(seen) is not type(value):
        _fail("mixed_id", i, raw,
              "%s %s is written as %s here and as %s in another row; write each %s the same way%s"
              % (field, _shown(value), _is_int(value) and "a number" or "text",
                 _is_int(seen) and "a number" or "text", field,
                 " (a row without a group is in group %d)" % DEFAULT_GROUP if field == "group" else ""),
              "%s %s 本行与其他行的写法不同（数字与文字）；请统一写法" % (field, _shown(value)))
    known.add(value)


def validate(rows, seats=SEATS):
    """Check every row and return them as `Result` records, in input order.

    Refused (``ScoringInputError`` naming the row): a row that is not an object, a missing field,
    a wrong type (a score or think time that is not an integer: ``3.5``, ``3.0``, ``"3"``, ``true``),
    a seat not in ``seats``, a negative think time, a board or round below 1, two results for one
    seat at one table on one deal, two results of one player on one deal, the same id written both
    as a number and as text (``7`` and ``"7"``), and rows that mix having a round with not having one.

    >>> validate([{"player": "a", "board": 1, "seat": "X", "table": 1, "score": 0, "think_ms": 0}])
    Traceback (most recent call last):
    ...
    paizhuo.venue.scoring.ScoringInputError: row 1 (player 'a', board 1): unknown seat 'X': seats are E, N, W, S; correct the seat
    """
    return [Result._make(r) for r in _checked(rows, seats)]


def _checked(rows, seats):
    """`validate` without the record type: plain tuples in `Result` field order (faster to build)."""
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise ScoringInputError("not_a_list", "results must be a list of result rows",
                                "成绩必须是成绩行的列表")
    seats = tuple(seats)
    seat_set = frozenset(seats)
    out = []
    by_seat = {}     # (round, group, board, table, seat) -> row index: one result per seat
    by_player = {}   # (round, board, player) -> row index: one result per player per deal
    known_players, known_tables, known_groups = set(), set(), set()  # ids already checked
    texts = {"player": {}, "table": {}, "group": {}}  # str(id) -> id: 7 and "7" are not both allowed
    with_round = without_round = None
    # The common case (a plain int or an id already seen) is checked inline: 48,000 rows must
    # validate in a fraction of a second; anything unusual takes the slow path with the messages.
    for i, raw in enumerate(rows, 1):
        if not isinstance(raw, dict):
            _fail("not_an_object", i, raw, "a result row must be an object with the fields %s, not %s"
                  % (", ".join(REQUIRED), _shown(raw)),
                  "成绩行必须是含有 %s 的对象，而不是 %s" % (", ".join(REQUIRED), _shown(raw)))
        try:
            player, board, seat = raw["player"], raw["board"], raw["seat"]
            table, score, think = raw["table"], raw["score"], raw["think_ms"]
        except KeyError:
            f = next(f for f in REQUIRED if f not in raw)
            _fail("missing_field", i, raw, "missing field %r; every row needs %s"
                  % (f, ", ".join(REQUIRED)), "缺少字段 %r；每行都需要 %s" % (f, ", ".join(REQUIRED)))
        group = raw.get("group")
        if group is None:
            group = DEFAULT_GROUP
        tp = type(player)
        if not ((tp is int or tp is str) and player in known_players):
            _new_id(player, "player", i, raw, known_players, texts)
        tp = type(table)
        if not ((tp is int or tp is str) and table in known_tables):
            _new_id(table, "table", i, raw, known_tables, texts)
        tp = type(group)
        if not ((tp is int or tp is str) and group in known_groups):
            _new_id(group, "group", i, raw, known_groups, texts)
        if type(board) is not int or board < 1:
            _whole(board, "board", i, raw, minimum=1)
        if type(seat) is not str or seat not in seat_set:
            zh_seats = "、".join("%s %s" % (s, SEAT_ZH.get(s, s)) for s in seats)
            _fail("unknown_seat", i, raw, "unknown seat %s: seats are %s; correct the seat"
                  % (_shown(seat), ", ".join(seats)),
                  "没有座位 %s：座位是 %s；请改正座位" % (_shown(seat), zh_seats))
        if type(score) is not int:
            _whole(score, "score", i, raw)
        if type(think) is not int or think < 0:
            _whole(think, "think_ms", i, raw, minimum=0)
        rnd = raw.get("round")
        if rnd is None:
            without_round = without_round or i
        else:
            if type(rnd) is not int or rnd < 1:
                _whole(rnd, "round", i, raw, minimum=1)
            with_round = with_round or i
        if with_round and without_round:
            other = with_round if with_round != i else without_round
            _fail("mixed_rounds", i, raw,
                  "this row %s a round but row %d %s; give every row a round or none"
                  % ("has" if rnd is not None else "has no", other, "does not" if rnd is not None else "does"),
                  "本行%s轮次而第 %d 行%s；请所有行都写轮次或都不写" % ("有" if rnd is not None else "没有", other,
                                                          "没有" if rnd is not None else "有"))
        first = by_seat.setdefault((rnd, group, board, table, seat), i)
        if first != i:
            _fail("duplicate_seat", i, raw,
                  "table %s seat %s already has a result on board %d%s in row %d; a seat takes one "
                  "result per board: remove the wrong row" % (_shown(table), seat, board,
                                                              "" if rnd is None else " of round %d" % rnd, first),
                  "第 %d 行已有 %s 桌 %s 座位第 %d 副的成绩；每个座位每副只有一个成绩，请删去错误的一行"
                  % (first, _shown(table), SEAT_ZH.get(seat, seat), board))
        first = by_player.setdefault((rnd, board, player), i)
        if first != i:
            _fail("duplicate_player", i, raw,
                  "player %s already has a result on board %d%s in row %d; a player plays each board once: "
                  "remove the wrong row" % (_shown(player), board, "" if rnd is None else " of round %d" % rnd, first),
                  "第 %d 行已有选手 %s 第 %d 副的成绩；每位选手每副只打一次，请删去错误的一行"
                  % (first, _shown(player), board))
        out.append((i, player, board, seat, table, score, think, group, rnd))
    return out


# ---------------------------------------------------------------- scored deals and standings

class Mark(NamedTuple):
    """What a result earns on its deal: the same for every result with the same M, n and N, so it is
    computed once per distinct (M, n, N) and shared (thousands of deals reuse a few dozen marks).

    ``mp`` is the (Neuberg-scaled) MP, ``rate`` the MP rate in [0, 1]; the texts are for display.
    """
    mp: Fraction
    rate: Fraction
    mp_display: str
    rate_display: str
    mp_exact: str
    rate_exact: str

    @classmethod
    def of(cls, m, n, big_n):
        """The mark of raw MP ``m`` on a deal with ``n`` results where ``big_n`` were expected."""
        if big_n == 1:
            mp, rate = Fraction(0), Fraction(1, 2)  # [decision] nobody to compare with: 50 %
        else:
            mp = Fraction((m + 1) * big_n, n) - 1  # Neuberg; equals m when n == N
            rate = mp / (2 * (big_n - 1))
        return cls(mp, rate, _short(mp), half_up(rate * 100, 1), _exact(mp), _exact(rate * 100))


class DealScore(NamedTuple):
    """One player's result on one deal, scored against the same seat of the same deal in the group.

    ``results`` is the n results the deal had at this seat, ``expected`` the N it should have had,
    ``top`` = 2(N − 1), ``beaten`` the players at the same table who scored less (tie-break 1).
    """
    round: object
    board: int
    group: object
    seat: str
    table: object
    score: int
    think_ms: int
    mark: Mark
    top: int
    place: int
    results: int
    expected: int
    beaten: tuple

    @property
    def mp(self):
        return self.mark.mp

    @property
    def rate(self):
        return self.mark.rate

    @property
    def mp_display(self):
        return self.mark.mp_display

    @property
    def rate_display(self):
        return self.mark.rate_display

    @property
    def label(self):
        """The key of this deal in ``Entry.boards``: ``"3"``, or ``"r2b3"`` when rows carry rounds."""
        return "%d" % self.board if self.round is None else "r%db%d" % (self.round, self.board)

    def to_dict(self):
        m = self.mark
        return {"round": self.round, "board": self.board, "group": self.group, "seat": self.seat,
                "table": self.table, "score": self.score, "think_ms": self.think_ms,
                "mp": _number(m.mp_display), "mp_exact": m.mp_exact, "top": self.top,
                "rate": float(m.rate_display), "rate_exact": m.rate_exact,
                "place": self.place, "results": self.results, "expected": self.expected}


@dataclass(frozen=True)
class Entry:
    """One player's line in the standings.

    ``R`` is the exact mean MP rate in [0, 1]; ``R_official`` the final score as the rules define it
    (percent, one decimal, half-up — or exact with ``exact_ties``); ``places`` counts deal places
    (``places[0]`` = deal firsts); ``opponents_R`` the mean official R (percent) of the opponents
    beaten, 0 when ``beaten_count`` is 0; ``think_trimmed_ms`` the mean think time per deal without
    the slowest and the fastest deal (all deals when there are two or fewer).
    """
    player: object
    rank: int
    R: Fraction
    R_official: Fraction
    deals: tuple
    places: tuple
    beaten_count: int
    opponents_R: Fraction
    think_ms: int
    think_trimmed_ms: Fraction
    playoff: bool
    decided_by: object  # one of STEPS, None when the player is alone

    @property
    def R_display(self):
        """R in percent to one decimal, half-up: ``'58.3'``."""
        return half_up(self.R * 100, 1)

    @property
    def firsts(self):
        return self.places[0] if self.places else 0

    @property
    def boards(self):
        """{deal label: DealScore}."""
        return {d.label: d for d in self.deals}

    def to_dict(self):
        return {
            "player": self.player, "rank": self.rank,
            "R": float(self.R_display), "R_exact": _exact(self.R * 100),
            "playoff": self.playoff, "decided_by": self.decided_by,
            "deals": len(self.deals),
            "boards": {d.label: d.to_dict() for d in self.deals},
            "places": list(self.places), "firsts": self.firsts,
            "opponents_beaten": {
                "count": self.beaten_count,
                "mean_R": _number(_short(self.opponents_R)) if self.beaten_count else None,
                "mean_R_exact": _exact(self.opponents_R)},
            "think_ms": self.think_ms,
            "think_trimmed_ms": float(half_up(self.think_trimmed_ms, 1)),
            "think_trimmed_ms_exact": _exact(self.think_trimmed_ms),
        }


@dataclass(frozen=True)
class Standings:
    """The ranked field: `Entry` per player in rank order, plus the field sizes used.

    ``fields`` holds one ``(round, group, tables, expected)`` per round and group.
    """
    entries: tuple
    fields: tuple
    exact_ties: bool = False

    def __iter__(self):
        return iter(self.entries)

    def __len__(self):
        return len(self.entries)

    def entry(self, player):
        """The entry of one player (``KeyError`` if they have no result)."""
        index = self.__dict__.get("_index")
        if index is None:  # built on first use; the value stays immutable to its users
            index = {(type(e.player), e.player): e for e in self.entries}
            object.__setattr__(self, "_index", index)
        return index[(type(player), player)]

    @property
    def playoffs(self):
        """Groups of players who share a rank after every tie-break (加赛), best first."""
        out = []
        for e in self.entries:
            if e.playoff:
                if out and out[-1][0].rank == e.rank:
                    out[-1].append(e)
                else:
                    out.append([e])
        return [[e.player for e in grp] for grp in out]

    def to_dict(self):
        """The JSON shape documented in the module docstring (stable: other parts read it)."""
        return {"format": FORMAT, "exact_ties": self.exact_ties,
                "fields": [{"round": r, "group": g, "tables": t, "expected": n} for r, g, t, n in self.fields],
                "playoffs": self.playoffs,
                "players": [e.to_dict() for e in self.entries]}

    def _labels(self):
        seen = {}
        for e in self.entries:
            for d in e.deals:
                seen[(d.round or 0, d.board)] = d.label
        return [seen[k] for k in sorted(seen)]

    def to_csv(self):
        """One line per player in rank order; per deal ``<label>_mp``, ``_rate``, ``_place`` columns."""
        labels = self._labels()
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        head = ["rank", "player", "R", "playoff", "decided_by", "deals", "opponents_beaten", "opponents_R",
                "firsts", "places", "think_ms", "think_trimmed_ms"]
        for lab in labels:
            head += ["%s_mp" % lab, "%s_rate" % lab, "%s_place" % lab]
        w.writerow(head)
        for e in self.entries:
            line = [e.rank, _csv_text(e.player), e.R_display, "yes" if e.playoff else "", e.decided_by or "",
                    len(e.deals), e.beaten_count, _short(e.opponents_R) if e.beaten_count else "",
                    e.firsts, " ".join(str(c) for c in e.places), e.think_ms, half_up(e.think_trimmed_ms, 1)]
            boards = e.boards
            for lab in labels:
                d = boards.get(lab)
                line += [d.mp_display, d.rate_display, d.place] if d else ["", "", ""]
            w.writerow(line)
        return buf.getvalue()

    def to_html(self, title="Standings 成绩排名"):
        """A complete, self-contained HTML page (no scripts, no outside files); every text is escaped."""
        labels = self._labels()
        esc = html.escape
        head = ["名次<br>Rank", "选手<br>Player", "成绩 R<br>R %"]
        for lab in labels:
            head.append("第 %s 副<br>Board %s" % (esc(lab), esc(lab)))
        head += ["所胜对手平均 R<br>Opponents beaten R", "单副名次<br>Deal places",
                 "总用时 (s)<br>Think total (s)", "去头尾平均 (s)<br>Trimmed mean (s)", "决定于<br>Decided by",
                 "备注<br>Note"]
        out = ["<!DOCTYPE html>", '<html lang="zh-CN">', "<head>", '<meta charset="utf-8">',
               "<title>%s</title>" % esc(title),
               "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
               "th,td{border:1px solid #999;padding:2px 6px;text-align:right;white-space:nowrap}"
               "th{background:#eee;text-align:center}td.p{text-align:left}tr.playoff td{background:#fff3c4}"
               "small{color:#555}</style>",
               "</head>", "<body>", "<h1>%s</h1>" % esc(title),
               "<p>MP: 2 / 1 / 0 · R = 平均 MP 得分率 mean MP rate · 单元格 cell: MP / 得分率 rate % (名次 place)</p>",
               '<table class="standings">', "<thead><tr>%s</tr></thead>" % "".join("<th>%s</th>" % h for h in head),
               "<tbody>"]
        for e in self.entries:
            boards = e.boards
            cells = ["<td>%d</td>" % e.rank, '<td class="p">%s</td>' % esc(str(e.player)),
                     "<td>%s</td>" % esc(e.R_display)]
            for lab in labels:
                d = boards.get(lab)
                cells.append("<td>%s / %s <small>(%d)</small></td>" % (esc(d.mp_display), esc(d.rate_display), d.place)
                             if d else "<td>—</td>")
            step = STEP_TEXT.get(e.decided_by)
            texts = [_short(e.opponents_R) if e.beaten_count else "—",
                     " ".join(str(c) for c in e.places),
                     half_up(Fraction(e.think_ms, 1000), 1),
                     half_up(e.think_trimmed_ms / 1000, 1),
                     "%s %s" % step[::-1] if step else "",
                     "需加赛 play-off needed" if e.playoff else ""]
            cells += ["<td>%s</td>" % esc(t) for t in texts]
            out.append("<tr%s>%s</tr>" % (' class="playoff"' if e.playoff else "", "".join(cells)))
        out += ["</tbody>", "</table>"]
        for group in self.playoffs:
            out.append("<p>需加赛 play-off needed: %s</p>" % esc("、".join(str(p) for p in group)))
        out += ["</body>", "</html>", ""]
        return "\n".join(out)


def _csv_text(value):
    # A spreadsheet runs a cell that starts with = + - @ as a formula; a leading apostrophe
    # keeps a hostile player name as text.  Numbers are written as they are.
    text = str(value)
    if isinstance(value, str) and text[:1] in ("=", "+", "-", "@"):
        return "'" + text
    return text


def _id_order(value):
    """Sort key for ids that may be int or str (deterministic, independent of input order)."""
    return (0, value, "") if _is_int(value) else (1, 0, value)


def _expected_of(expected, fields_seen):
    """{(round, group): N} from the ``expected`` argument and the tables seen."""
    groups = {g for (_, g) in fields_seen}
    if expected is None:
        return {k: len(t) for k, t in fields_seen.items()}
    if _is_int(expected):
        per = {g: expected for g in groups}
    elif isinstance(expected, dict):
        per = dict(expected)
        for g in per:
            if g not in groups:
                raise ScoringInputError(
                    "unknown_group", "expected names group %s, which has no results; the groups are %s"
                    % (_shown(g), ", ".join(_shown(x) for x in sorted(groups, key=_id_order))),
                    "expected 中的组 %s 没有成绩；现有的组是 %s" % (_shown(g), "、".join(_shown(x) for x in
                                                                    sorted(groups, key=_id_order))))
    else:
        raise ScoringInputError("bad_expected", "expected must be a whole number or {group: number}, not %s"
                                % _shown(expected), "expected 必须是整数或 {组: 整数}，而不是 %s" % _shown(expected))
    for g, n in per.items():
        if not _is_int(n) or n < 1:
            raise ScoringInputError("bad_expected", "expected results for group %s must be a whole number of "
                                    "at least 1, not %s" % (_shown(g), _shown(n)),
                                    "组 %s 的应有成绩数必须是不小于 1 的整数，而不是 %s" % (_shown(g), _shown(n)))
    return {k: per.get(k[1], len(t)) for k, t in fields_seen.items()}


def standings(rows, *, expected=None, seats=SEATS, exact_ties=False):
    """Score every result and rank the field.

    ``rows``: input rows (see the module docstring); they are checked with `validate` first.
    ``expected``: N, the results each (group, deal, seat) should have — an int for every group or
    ``{group: N}``; by default the number of tables seen in that group (and round).
    ``seats``: the seats a row may name (``("E", "N", "W")`` for a three-seat game; the default allows all four).
    ``exact_ties``: judge equal R on the exact fraction instead of the official one-decimal R.

    Neuberg: a sole top with 10 of 11 expected results scores 19.9 on a top of 20.

    >>> rows = [{"player": p, "board": 1, "seat": "E", "table": p, "score": -p, "think_ms": 0} for p in range(1, 11)]
    >>> d = standings(rows, expected=11).entry(1).deals[0]
    >>> d.mp, d.top, d.rate_display
    (Fraction(199, 10), 20, '99.5')
    """
    results = _checked(rows, seats)
    if not results:
        return Standings((), (), exact_ties)
    count = len(results)
    # Columns instead of attribute access: the loops below run once per result (48,000 in the
    # benchmark field) and plain list indexing is what keeps the whole under a second.
    _, player_of, board_of, seat_of, table_of, score_of, think_of, group_of, round_of = zip(*results)

    # --- players and the field (tables per round and group)
    pindex = {}
    players = []
    pid = [0] * count  # player index of each result
    for k, p in enumerate(player_of):
        i = pindex.get(p)
        if i is None:
            i = pindex[p] = len(players)
            players.append(p)
        pid[k] = i
    fields_seen = {}
    for k in range(count):
        fields_seen.setdefault((round_of[k], group_of[k]), set()).add(table_of[k])
    field_n = _expected_of(expected, fields_seen)

    # --- MP per (round, group, board, seat): sort once, count worse and equal from the order,
    # so a deal with n results costs n log n, not n² comparisons.
    cells = {}
    for k, key in enumerate(zip(round_of, group_of, board_of, seat_of)):
        cells.setdefault(key, []).append(k)
    marks = [None] * count
    place = [0] * count
    size = [0] * count
    cache = {}
    for key, ks in cells.items():
        n = len(ks)
        big_n = field_n[(key[0], key[1])]
        if n > big_n:
            raw = Result._make(results[sorted(ks)[big_n]])
            raise ScoringInputError(
                "too_many_results",
                "row %d (player %s, board %d): seat %s of board %d in group %s has %d results but %d were "
                "expected; check the tables or the expected number" % (raw.row, _shown(raw.player), raw.board,
                                                                       raw.seat, raw.board, _shown(raw.group), n, big_n),
                "第 %d 行（选手 %s，第 %d 副）：组 %s 第 %d 副 %s 座位有 %d 个成绩，但应有 %d 个；请检查桌号或应有成绩数"
                % (raw.row, _shown(raw.player), raw.board, _shown(raw.group), raw.board,
                   SEAT_ZH.get(raw.seat, raw.seat), n, big_n), row=raw.row)
        ks.sort(key=score_of.__getitem__)
        i = 0
        while i < n:
            s = score_of[ks[i]]
            j = i + 1
            while j < n and score_of[ks[j]] == s:
                j += 1
            m = 2 * i + (j - i - 1)  # 2 per worse score (all before i), 1 per other equal score
            mark = cache.get((m, n, big_n))
            if mark is None:
                mark = cache[(m, n, big_n)] = Mark.of(m, n, big_n)
            p = n - j + 1  # 1 + the number of strictly better results
            for k in ks[i:j]:
                marks[k] = mark
                place[k] = p
                size[k] = n
            i = j

    # --- opponents beaten: same deal, same table, lower score (once per deal)
    tables = {}
    for k, key in enumerate(zip(round_of, group_of, board_of, table_of)):
        tables.setdefault(key, []).append(k)
    beaten = [()] * count       # player indices beaten on this deal
    beaten_ids = [()] * count   # the same as player ids, for the record
    for ks in tables.values():
        if len(ks) > 1:
            for k in ks:
                s = score_of[k]
                lower = [pid[o] for o in ks if score_of[o] < s]
                if lower:
                    beaten[k] = tuple(lower)
                    beaten_ids[k] = tuple([players[q] for q in lower])

    # --- R per player: sum the exact rates by denominator, so a player costs a few Fraction additions
    per = [[] for _ in players]
    # Each player's deals in (round, board) order; rows usually arrive in that order already.
    for k in sorted(range(count), key=lambda k: (round_of[k] or 0, board_of[k])):
        per[pid[k]].append(k)
    # Numerator and denominator of each distinct mark's rate, looked up by identity: Fraction's
    # properties are slow to read 48,000 times, and every mark lives on in ``cache``.
    rate_parts = {id(m): (m.rate.numerator, m.rate.denominator) for m in cache.values()}
    R = []
    official = []  # the final R the rules rank by, in percent
    tenths = []    # the same in tenths of a percent (an int) when ties are judged on one decimal
    for ks in per:
        sums = {}
        for k in ks:
            a, b = rate_parts[id(marks[k])]
            sums[b] = sums.get(b, 0) + a
        # Σ a/b over a common denominator in plain integers, then one Fraction for the mean.
        common = lcm(*sums)
        num = sum([a * (common // b) for b, a in sums.items()])
        den = common * len(ks)
        R.append(Fraction(num, den))
        if exact_ties:
            official.append(Fraction(num * 100, den))
        else:
            t = (num * 2000 + den) // (2 * den)  # tenths of a percent, half-up
            tenths.append(t)
            official.append(Fraction(t, 10))

    keys = []
    extras = []
    sentinel = (1 << 62,)
    for p, ks in enumerate(per):
        beat = [q for k in ks for q in beaten[k]]
        if not beat:
            opp = Fraction(0)
        elif exact_ties:
            sums = {}
            for q in beat:
                v = official[q]
                sums[v.denominator] = sums.get(v.denominator, 0) + v.numerator
            opp = sum((Fraction(a, b) for b, a in sums.items()), Fraction(0)) / len(beat)
        else:
            opp = Fraction(sum([tenths[q] for q in beat]), 10 * len(beat))
        places = sorted([place[k] for k in ks])
        counts = [0] * places[-1]
        for x in places:
            counts[x - 1] += 1
        times = sorted([think_of[k] for k in ks])
        total_ms = sum(times)
        trimmed = Fraction(sum(times[1:-1]), len(times) - 2) if len(times) > 2 else Fraction(total_ms, len(times))
        # Smaller key is better.  Deal places: the sorted places plus a sentinel compare exactly like
        # "more firsts, then more seconds, …" (a missing place counts as worse than any place).
        first = official[p] if exact_ties else tenths[p]
        keys.append((-first, -opp, tuple(places) + sentinel, total_ms, trimmed))
        extras.append((len(beat), opp, tuple(counts), total_ms, trimmed))

    order = sorted(range(len(players)), key=lambda p: (keys[p], _id_order(players[p])))

    def step(a, b):
        for s in range(5):
            if keys[a][s] != keys[b][s]:
                return s
        return 5

    steps = [step(order[i - 1], order[i]) for i in range(1, len(order))]  # steps[i-1]: between i-1 and i
    tops = {k: 2 * (n - 1) for k, n in field_n.items()}
    make = tuple.__new__  # what DealScore._make does, without a Python-level call per deal
    deal_of = [make(DealScore, (round_of[k], board_of[k], group_of[k], seat_of[k], table_of[k], score_of[k], think_of[k],
                     marks[k], tops[(round_of[k], group_of[k])], place[k], size[k],
                     field_n[(round_of[k], group_of[k])], beaten_ids[k])) for k in range(count)]
    entries = []
    rank = 0
    for pos, p in enumerate(order):
        above = steps[pos - 1] if pos > 0 else None
        below = steps[pos] if pos < len(steps) else None
        if above != 5:
            rank = pos + 1
        known = [s for s in (above, below) if s is not None]
        n_beat, opp, counts, total_ms, trimmed = extras[p]
        entries.append(Entry(players[p], rank, R[p], official[p], tuple([deal_of[k] for k in per[p]]), counts,
                             n_beat, opp, total_ms, trimmed, 5 in known, STEPS[max(known)] if known else None))
    fields = tuple((r, g, len(fields_seen[(r, g)]), field_n[(r, g)])
                   for (r, g) in sorted(fields_seen, key=lambda k: (k[0] or 0, _id_order(k[1]))))
    return Standings(tuple(entries), fields, exact_ties)
