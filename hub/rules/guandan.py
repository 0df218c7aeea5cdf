"""竞技掼蛋 (Guandan): the authoritative rules engine for one deal, and a match of deals.

Pure state machines: the deal, its setup (levels, the previous deal's places) and the actions
are the only inputs; no clock, randomness or I/O (the hub owns those and asks
:meth:`GuandanDeal.default_action` what a clock expiry does).  Classification, comparison and
listing of plays live in :mod:`paizhuo_shared.guandan`, which the seat boards run too.

A deal goes through up to three phases (RULES.md, seed 002 第九、十、十一条):

1. ``tribute`` (进贡, from the second deal of a match): the previous 下游 — both players of a
   side after 双下 — give their highest card (not a heart level card) to the 上游's side;
   none if the payers hold both big jokers (抗贡).
2. ``return`` (还牌): each receiver gives back a card of rank 10 or lower (the lowest card
   if it has none) to the player who paid it.
3. ``play``: counter-clockwise, E N W S; a follower beats the last unbeaten play or passes;
   when everyone still holding cards has passed, the last player leads again, or that
   player's partner if the last player has gone out (接风).  The deal ends when both
   players of a side, or three players, have gone out: places 上游, 二游, 三游, 下游.

A short deal from a hand-made layout (the first deal of a match: level 2, E leads):

>>> hands = {"E": "3D " * 2 + "3C " * 2 + "AS " * 2 + "RJ", "N": "4D", "W": "5D", "S": "6D"}
>>> deal = Deal.from_dict(fill(hands))
>>> game = GuandanDeal(deal)
>>> game.phase, game.to_act(), game.view("E")["level"], game.time_limit()
('play', ('E',), '2', 40)
>>> game.verify(Action.play("E", "3D 3D 3C"))
>>> game.verify(Action.play("E", "3D AS"))
Traceback (most recent call last):
...
paizhuo.rules.guandan.IllegalActionError: ♦3 ♠A is not a Guandan play
>>> [e["type"] for e in game.apply(Action.play("E", "3D 3D 3C 3C"))]   # a bomb of four 3s
['play', 'turn']
>>> game.can(Action.pass_("N")), game.can(Action.play("E", "AS"))
(True, False)
>>> while game.phase != "over":   # every clock runs out: leaders shed singles, followers pass
...     _ = game.apply(game.default_action(game.to_act()[0]))
>>> r = game.result()             # E went out first, then W on 接风: E–W up three levels
>>> r["places"][:2], r["level_change"], r["levels_after"]
(['E', 'W'], 3, {'EW': '5', 'NS': '2'})
"""

from paizhuo_shared import guandan as plays_
from paizhuo_shared.cards import DECK108, InvalidCardError, pretty
from ..errors import CodedError
from . import common

__all__ = ["Rules", "Deal", "Action", "IllegalActionError", "GuandanDeal", "Match", "SEATS", "SIDES",
           "level_points", "next_levels"]

GAME = "guandan"
SEATS, SEAT_NAMES_ZH = common.SEATS, common.SEAT_NAMES_ZH
SIDES = ("EW", "NS")  # partners sit opposite
HAND_SIZE = 27
DECK = DECK108  # two decks with jokers; E, N, W, S take 27 each
LEVELS = "23456789TJQKA"  # level n (2..14) is LEVELS[n - 2]
LOWEST, HIGHEST = 2, 14
PASSED_A = 15  # 过A: one step beyond A (the venue's level encoding too)

# Match scoring (RULES.md "Match scoring", Jiangsu 2023 表2); hub/venue/matches.py scores with these.
DIFF_CAP = 13
BASE = 13
WIN, DRAW, LOSS = 2, 1, 0

TRIBUTE = "tribute"  # 进贡
RETURN = "return"  # 还牌
PLAY, PASS, OVER = common.PLAY, common.PASS, common.OVER
PHASES = (TRIBUTE, RETURN, PLAY, OVER)
SIMULTANEOUS = (TRIBUTE, RETURN)  # both payers (both receivers) decide at once, on one clock


def level_points(d):
    """级差分 (winner, loser) for a level difference ``d`` >= 0, capped at 13.

    >>> level_points(0), level_points(5), level_points(20)
    ((13, 13), (18, 8), (26, 0))
    """
    d = min(d, DIFF_CAP)
    return BASE + d, BASE - d


def level_text(level):
    """``2`` .. ``14`` as ``"2"`` .. ``"A"``; 15 (passed A) as ``"A+"``."""
    return "A+" if level == PASSED_A else LEVELS[level - 2]


def side_of(seat):
    """The side (``"EW"`` or ``"NS"``) of a seat letter."""
    return SIDES[SEATS.index(seat) % 2]


def partner(seat):
    return SEATS[(SEATS.index(seat) + 2) % 4]


class IllegalActionError(CodedError):
    """An action the rules refuse.  ``code`` is stable for machines; ``en``/``zh`` are for people."""


# ---- rule options --------------------------------------------------------------------

_PLAY_OPTIONS = ("lone_wild", "wild_breaks_flush", "joker_pair_full_house")


class Rules:
    """The engine's rule options; each is a decision of RULES.md, defaults are the project's.

    The plays' options (``lone_wild``, ``wild_breaks_flush``, ``joker_pair_full_house``) are
    those of :class:`paizhuo_shared.guandan.Rules`; the level is not an option but each deal's
    setup.  The deal and match options:

    - ``tribute_seconds`` 20, ``return_seconds`` 40, ``first_lead_seconds`` 40,
      ``turn_seconds`` 20: the clocks (Jiangsu 2023).
    - ``return_max_rank``: ``"T"``: the return is a card of rank 10 or lower.
    - ``return_level_cards``: ``True``: a level card counts at its own rank for that limit
      (its 牌点 is the level, seed 第二条14); ``False``: level cards are never "10 or lower".
    - ``equal_tribute``: ``"clockwise"``: in a double tribute of equal cards each payer gives
      to the opponent on their clockwise side (their 上家); ``"counter_clockwise"``: to their 下家.
    - ``report_at``: 10: a player with this many cards or fewer has the count shown (报牌).
    - ``first_leader``: ``"E"`` leads the first deal of a match (duplicated boards, 第七条二).
    - ``a_attempts``: 0: no limit on deals played at A; n > 0: a side that fails n times at its
      A falls back to 2 (a house rule).
    - ``max_deals``: None: a match runs until a side passes A; n: it ends after n deals.
    - ``match_minutes``: None: no time limit; n: once the match has run n minutes (the hub's
      clock: from its first deal's start, pauses and hub downtime not counted) no new deal
      starts after the current one (seed 第十二条; the hub calls :meth:`Match.time_up`).
    - ``tiebreak_deal``: ``False``: equal levels at the end are a draw; ``True``: one extra deal
      decides by 上游 only (when a winner is needed).

    >>> Rules(turn_seconds=0)
    Traceback (most recent call last):
    ...
    ValueError: turn_seconds must be a whole number of seconds 1..600, not 0
    """

    OPTIONS = _PLAY_OPTIONS + (
        "tribute_seconds", "return_seconds", "first_lead_seconds", "turn_seconds", "return_max_rank",
        "return_level_cards", "equal_tribute", "report_at", "first_leader", "a_attempts", "max_deals",
        "tiebreak_deal", "match_minutes")

    def __init__(self, lone_wild="level", wild_breaks_flush=True, joker_pair_full_house=True,
                 tribute_seconds=20, return_seconds=40, first_lead_seconds=40, turn_seconds=20,
                 return_max_rank="T", return_level_cards=True, equal_tribute="clockwise", report_at=10,
                 first_leader="E", a_attempts=0, max_deals=None, tiebreak_deal=False,
                 match_minutes=None):
        plays_.Rules(lone_wild=lone_wild, wild_breaks_flush=wild_breaks_flush,
                     joker_pair_full_house=joker_pair_full_house)  # validates them
        self.lone_wild = lone_wild
        self.wild_breaks_flush = wild_breaks_flush
        self.joker_pair_full_house = joker_pair_full_house
        for name, value in (("tribute_seconds", tribute_seconds), ("return_seconds", return_seconds),
                            ("first_lead_seconds", first_lead_seconds), ("turn_seconds", turn_seconds)):
            if not _whole(value) or not 1 <= value <= 600:
                raise ValueError("%s must be a whole number of seconds 1..600, not %r" % (name, value))
            setattr(self, name, value)
        if return_max_rank == "10":
            return_max_rank = "T"
        if return_max_rank not in tuple(LEVELS):
            raise ValueError("return_max_rank must be a rank 2..A, not %r" % (return_max_rank,))
        for name, value in (("return_level_cards", return_level_cards), ("tiebreak_deal", tiebreak_deal)):
            if value is not True and value is not False:
                raise ValueError("%s must be true or false, not %r" % (name, value))
        if equal_tribute not in ("clockwise", "counter_clockwise"):
            raise ValueError("equal_tribute must be 'clockwise' or 'counter_clockwise', not %r" % (equal_tribute,))
        if not _whole(report_at) or not 0 <= report_at <= HAND_SIZE:
            raise ValueError("report_at must be a card count 0..27, not %r" % (report_at,))
        if first_leader not in SEATS:
            raise ValueError("first_leader must be a seat E, N, W or S, not %r" % (first_leader,))
        if not _whole(a_attempts) or a_attempts < 0:
            raise ValueError("a_attempts must be 0 (no limit) or a whole number of attempts, not %r" % (a_attempts,))
        if max_deals is not None and (not _whole(max_deals) or max_deals < 1):
            raise ValueError("max_deals must be None (until a side passes A) or a whole number >= 1, not %r"
                             % (max_deals,))
        if match_minutes is not None and (not _whole(match_minutes) or not 1 <= match_minutes <= 1440):
            raise ValueError("match_minutes must be None (no time limit) or a whole number of minutes 1..1440, not %r"
                             % (match_minutes,))
        self.match_minutes = match_minutes
        self.return_max_rank = return_max_rank
        self.return_level_cards = return_level_cards
        self.equal_tribute = equal_tribute
        self.report_at = report_at
        self.first_leader = first_leader
        self.a_attempts = a_attempts
        self.max_deals = max_deals
        self.tiebreak_deal = tiebreak_deal

    def plays(self, level):
        """The :class:`paizhuo_shared.guandan.Rules` of a deal played at ``level`` (2..14)."""
        return plays_.Rules(level=level_text(level), lone_wild=self.lone_wild,
                            wild_breaks_flush=self.wild_breaks_flush,
                            joker_pair_full_house=self.joker_pair_full_house)

    @classmethod
    def from_dict(cls, data):
        """Build from a mapping (a rules file, a round spec or a log); anything else, an unknown
        option or a bad value raises :class:`common.RulesError` (a ValueError) naming it."""
        return common.rules_from_dict(cls, data, ("Guandan", "掼蛋"), _ALLOWED)

    to_dict = plays_.Rules.to_dict

    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()


def _whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


_SECONDS, _YES_NO = common.CLOCK_OPTION, common.YES_NO_OPTION
_ALLOWED = {     # what each option of Rules may be, for refusals (common.rules_from_dict)
    "lone_wild": ("'level' or 'any'", "'level'（单出的逢人配按级牌算）或 'any'（可当任意牌）"),
    "wild_breaks_flush": _YES_NO, "joker_pair_full_house": _YES_NO,
    "tribute_seconds": _SECONDS, "return_seconds": _SECONDS, "first_lead_seconds": _SECONDS,
    "turn_seconds": _SECONDS,
    "return_max_rank": ("a rank 2..9, T (or 10), J, Q, K or A", "点数 2..9、T（或 10）、J、Q、K 或 A"),
    "return_level_cards": _YES_NO,
    "equal_tribute": ("'clockwise' or 'counter_clockwise'", "'clockwise'（顺时针）或 'counter_clockwise'（逆时针）"),
    "report_at": ("a card count from 0 to 27", "0 到 27 的张数"),
    "first_leader": ("a seat E, N, W or S", "座位 E、N、W 或 S"),
    "a_attempts": ("0 (no limit) or a whole number of attempts", "0（不限）或整数次数"),
    "max_deals": ("none (until a side passes A) or a whole number from 1", "不设（直到一方过 A）或不小于 1 的整数"),
    "tiebreak_deal": _YES_NO,
    "match_minutes": ("none (no time limit) or a whole number of minutes from 1 to 1440",
                      "不设（不限时）或 1 到 1440 的整数分钟"),
}


# ---- chance as data -----------------------------------------------------------------

class Deal(common.Deal):
    """The four 27-card hands of one deal (two decks, 108 cards), before any action.

    Hands are sorted tuples of card integers (see :mod:`paizhuo_shared.guandan`); ``board``
    numbers the deal in an event.
    """

    __slots__ = ()
    seats = SEATS
    size = HAND_SIZE
    copies = 2
    positions = 108
    title = "Guandan"
    bad_card = InvalidCardError
    parse = staticmethod(plays_.cards)
    code = staticmethod(plays_.code)

    @staticmethod
    def card_at(p):
        return p % 54  # the two decks one after the other


def fill(partial):
    """Complete hand-made partial hands (codes per seat) to a legal 108-card deal: every card
    not named goes, lowest first, to the seats short of 27 in E, N, W, S order.  For examples
    and tests.

    >>> d = Deal.from_dict(fill({"E": "RJ RJ"}))
    >>> d.hands["E"][-2:], len(d.hands["S"])
    ((53, 53), 27)
    """
    hands = {s: list(plays_.cards(partial.get(s, ""))) for s in SEATS}
    left = [0] * 54
    for c in range(54):
        left[c] = 2
    for s in SEATS:
        for c in hands[s]:
            left[c] -= 1
    pool = [c for c in range(54) for _ in range(left[c])]
    for s in SEATS:
        need = HAND_SIZE - len(hands[s])
        hands[s] += pool[:need]
        pool = pool[need:]
    return {s: plays_.codes(sorted(hands[s])) for s in SEATS}


# ---- actions ------------------------------------------------------------------------

class Action(common.ActionBase):
    """One intent of one seat: ``play`` (cards, and the meaning when wild cards make it
    ambiguous), ``pass``, ``tribute`` (one card) or ``return`` (one card).

    ``meaning`` is a play's name as :attr:`paizhuo_shared.guandan.Play.name` gives it
    (``"straight:7"``, ``"bomb:3"``).  ``auto`` and ``think_ms`` are the hub's marks and never
    change the game; equality ignores them.

    >>> Action.play("E", "3S 3D")
    Action.play('E', '3D 3S')
    >>> Action.from_dict({"type": "tribute", "seat": "N", "cards": ["RJ"]})
    Action.tribute('N', 'RJ')
    """

    __slots__ = ("type", "seat", "cards", "meaning", "auto", "think_ms")
    TYPES = (PLAY, PASS, TRIBUTE, RETURN)

    def __init__(self, type, seat, cards=(), meaning=None, auto=False, think_ms=None):
        if type not in self.TYPES:
            raise IllegalActionError("bad_action", "Unknown action %r: use play, pass, tribute or return" % (type,),
                                     "未知操作 %r：可用 play、pass、tribute、return" % (type,))
        _seat_index(seat)
        _check_think_ms(think_ms)
        if meaning is not None and (not isinstance(meaning, str) or type != PLAY):
            raise IllegalActionError("bad_action", "meaning is a play's name like \"straight:7\", only for play",
                                     "meaning 是牌型名称（如 \"straight:7\"），只用于出牌")
        self.type = type
        self.seat = seat
        self.meaning = meaning
        if type == PASS:
            self.cards = ()
        else:
            try:
                self.cards = plays_.cards(cards)
            except InvalidCardError as e:
                raise IllegalActionError(e.code, str(e), e.zh) from None
            if not self.cards:
                raise IllegalActionError("no_cards", "Select the cards first", "请先选择牌")
            if type != PLAY and len(self.cards) != 1:
                raise IllegalActionError("one_card", "A %s is exactly one card" % type,
                                         "%s只能是一张牌" % _PHASE_ZH[type])
        self.auto = bool(auto)
        self.think_ms = think_ms

    @classmethod
    def _trusted(cls, type, seat, cards, meaning=None, auto=False, think_ms=None):
        """Build without validation: only for actions the engine made from checked data."""
        a = object.__new__(cls)
        a.type, a.seat, a.cards, a.meaning, a.auto, a.think_ms = type, seat, cards, meaning, auto, think_ms
        return a

    @classmethod
    def play(cls, seat, cards, meaning=None):
        return cls(PLAY, seat, cards=cards, meaning=meaning)

    @classmethod
    def pass_(cls, seat):
        return cls(PASS, seat)

    @classmethod
    def tribute(cls, seat, card):
        return cls(TRIBUTE, seat, cards=[card] if not isinstance(card, (list, tuple)) else card)

    @classmethod
    def return_(cls, seat, card):
        return cls(RETURN, seat, cards=[card] if not isinstance(card, (list, tuple)) else card)

    def with_meta(self, auto=False, think_ms=None):
        """The same action marked as automatic and/or with the measured thinking time."""
        _check_think_ms(think_ms)
        return Action._trusted(self.type, self.seat, self.cards, self.meaning, bool(auto), think_ms)

    def to_dict(self):
        d = {"type": self.type, "seat": self.seat}
        if self.cards:
            d["cards"] = plays_.codes(self.cards)
        if self.meaning is not None:
            d["meaning"] = self.meaning
        return common.with_marks(d, self)

    @classmethod
    def from_dict(cls, d):
        """Parse an action from the wire or a log; anything malformed raises IllegalActionError."""
        auto = common.action_fields(d, ("type", "seat", "cards", "meaning", "auto", "think_ms"), IllegalActionError)
        return cls(d.get("type"), d.get("seat"), d.get("cards", ()), d.get("meaning"), auto, d.get("think_ms"))

    def _key(self):
        return self.type, self.seat, self.cards, self.meaning

    def __repr__(self):
        if self.type == PASS:
            return "Action.pass_(%r)" % (self.seat,)
        name = {PLAY: "play", TRIBUTE: "tribute", RETURN: "return_"}[self.type]
        extra = ", %r" % self.meaning if self.meaning is not None else ""
        return "Action.%s(%r, %r%s)" % (name, self.seat, " ".join(plays_.codes(self.cards)), extra)


def _seat_index(seat):
    return common.seat_index(SEATS, seat, IllegalActionError)


def _check_think_ms(think_ms):
    common.check_think_ms(think_ms, IllegalActionError)


def _show(cs):
    return " ".join(pretty(c) for c in plays_.codes(cs))


def _zh_meaning(name):
    kind, _, rank = name.partition(":")
    return plays_.KIND_NAMES_ZH.get(kind, kind) + (rank and " " + rank)


def _remove(hand, cs):
    for c in cs:
        hand.remove(c)


def _held(hand, cs):
    """True if the multiset ``cs`` is inside ``hand``."""
    left = list(hand)
    for c in cs:
        if c not in left:
            return False
        left.remove(c)
    return True


def next_levels(levels, playing, places):
    """The levels after a deal: ``(new levels, level change, passed A)``.

    ``levels`` maps ``"EW"``/``"NS"`` to 2..14, ``playing`` is the side whose level was
    played (None for a match's first deal), ``places`` the four seats 上游 first.  Only the
    上游's side moves: partner 二游 +3, 三游 +2, 下游 +1, never past A.  A side at A passes
    (level 15, 过A) by taking 上游 in a deal played at its own A with the partner not 下游.

    >>> next_levels({"EW": 2, "NS": 2}, None, ["E", "W", "N", "S"])
    ({'EW': 5, 'NS': 2}, 3, False)
    >>> next_levels({"EW": 14, "NS": 9}, "EW", ["W", "N", "E", "S"])
    ({'EW': 15, 'NS': 9}, 1, True)
    >>> next_levels({"EW": 14, "NS": 9}, "NS", ["W", "N", "E", "S"])   # not at its own A
    ({'EW': 14, 'NS': 9}, 0, False)
    """
    up = places[0]
    side = side_of(up)
    step = 3 - places.index(partner(up)) + 1  # partner 二游 (index 1) → 3, 三游 → 2, 下游 → 1
    out = dict(levels)
    if levels[side] == HIGHEST:
        if playing == side and step >= 2:
            out[side] = PASSED_A
            return out, 1, True
        return out, 0, False
    out[side] = min(HIGHEST, levels[side] + step)
    return out, out[side] - levels[side], False


# ---- the state machine of one deal ------------------------------------------------------

class GuandanDeal:
    """The state of one Guandan deal.

    ``deal``: the :class:`Deal`; ``levels``: ``{"EW": 2..14, "NS": 2..14}`` before the deal;
    ``playing``: the side whose level is played (the side of the previous 上游; None for a
    match's first deal, when both sides must be at the same level); ``previous``: the
    previous deal's places (four seats, 上游 first), which decide the tribute, or None.
    """

    game = GAME
    seats = SEATS

    def __init__(self, deal, rules=None, levels=None, playing=None, previous=None):
        if not isinstance(deal, Deal):
            raise TypeError("GuandanDeal needs a Deal, not %r" % (deal,))
        self.rules = rules if rules is not None else Rules()
        levels = dict(levels) if levels is not None else {"EW": LOWEST, "NS": LOWEST}
        if sorted(levels) != sorted(SIDES) or not all(_whole(v) and LOWEST <= v <= HIGHEST for v in levels.values()):
            raise ValueError("levels must map EW and NS to 2..14, not %r" % (levels,))
        if playing is None:
            if levels["EW"] != levels["NS"]:
                raise ValueError("say which side's level is played (playing='EW' or 'NS') when levels differ")
            playing_level = levels["EW"]
        elif playing in SIDES:
            playing_level = levels[playing]
        else:
            raise ValueError("playing must be 'EW', 'NS' or None, not %r" % (playing,))
        if previous is not None:
            previous = list(previous)
            if sorted(previous) != sorted(SEATS):
                raise ValueError("previous places must list the four seats, 上游 first, not %r" % (previous,))
        self.deal = deal
        self.levels = levels
        self.playing = playing
        self.previous = previous
        self.level = playing_level
        self.prules = self.rules.plays(playing_level)
        self.hands = [list(deal.hands[s]) for s in SEATS]
        self.phase = PLAY
        self.payers = []  # seat indexes paying tribute
        self.paid = {}  # payer -> card (held aside until every payer has paid)
        self.gives = {}  # payer -> receiver, once every payer has paid
        self.returned = {}  # receiver -> card
        self.anti_tribute = False  # 抗贡
        self.turn = None
        self.to_beat = None  # (seat index, Play) of the last unbeaten play
        self.passes = 0
        self.trick = []  # this round: [(seat index, Play or None for a pass)]
        self.out = []  # seat indexes in the order they went out
        self.places = None  # the four seats at the end, 上游 first
        self.first_lead = True
        self.actions = []
        if previous is None:
            self.leader = SEATS.index(self.rules.first_leader)
        else:
            idx = [SEATS.index(s) for s in previous]
            up = idx[0]
            if idx[2] % 2 == idx[3] % 2:  # 双下: both of a side last
                self.payers = sorted((idx[2], idx[3]))
            else:
                self.payers = [idx[3]]
            big = sum(self.hands[p].count(plays_.RJ) for p in self.payers)
            if big == 2:
                self.anti_tribute = True
                self.leader = up
            else:
                self.phase = TRIBUTE
                self.leader = None
        if self.phase == PLAY:
            self.turn = self.leader

    # -- card values ----------------------------------------------------------------------

    def _value(self, c):
        """A card's single-order value: 2 .. A, the level, 小王, 大王."""
        if c >= plays_.BJ:
            return plays_.BJ_KEY if c == plays_.BJ else plays_.RJ_KEY
        return self.prules.key(c >> 2)

    def tribute_choices(self, i):
        """The cards seat ``i`` may pay: its highest, the heart level cards excepted."""
        hand = [c for c in self.hands[i] if c != self.prules.wild]
        if not hand:
            return []
        top = max(self._value(c) for c in hand)
        return sorted(set(c for c in hand if self._value(c) == top))

    def return_choices(self, i):
        """The cards seat ``i`` may return: rank 10 or lower, or its lowest if it has none."""
        limit = LEVELS.index(self.rules.return_max_rank)
        hand = self.hands[i]
        ok = sorted(set(c for c in hand if c < plays_.BJ and (c >> 2) <= limit
                        and (self.rules.return_level_cards or (c >> 2) != self.prules.rank)))
        if ok:
            return ok
        low = min(self._value(c) for c in hand)
        return sorted(set(c for c in hand if self._value(c) == low))

    # -- who acts, and what may they do ---------------------------------------------------

    def to_act(self):
        """The seats whose decision the game waits for (payers and receivers decide at once)."""
        if self.phase == TRIBUTE:
            return tuple(SEATS[p] for p in self.payers if p not in self.paid)
        if self.phase == RETURN:
            return tuple(SEATS[r] for r in sorted(self.gives.values()) if r not in self.returned)
        if self.phase == PLAY:
            return (SEATS[self.turn],)
        return ()

    def _over(self):
        return self.to_beat[1] if self.to_beat is not None else None

    def legal_actions(self, seat):
        """Every legal action of ``seat`` now: each play with its meaning (``plays`` order), then
        pass; one per eligible card in the tribute and return phases.  Empty when it is not the
        seat's decision."""
        i = _seat_index(seat)
        if seat not in self.to_act():
            return []
        if self.phase == TRIBUTE:
            return [Action._trusted(TRIBUTE, seat, (c,)) for c in self.tribute_choices(i)]
        if self.phase == RETURN:
            return [Action._trusted(RETURN, seat, (c,)) for c in self.return_choices(i)]
        found = plays_.plays(tuple(self.hands[i]), self.prules, self._over())
        out = [Action._trusted(PLAY, seat, tuple(sorted(p.cards)), p.name) for p in found]
        if self.to_beat is not None:
            out.append(Action._trusted(PASS, seat, ()))
        return out

    def _meaning(self, action):
        """The :class:`Play` an action's cards mean now, or IllegalActionError saying why not."""
        cs = action.cards
        meanings = plays_.classify(cs, self.prules)
        if not meanings:
            raise IllegalActionError("not_a_combination", "%s is not a Guandan play" % _show(cs),
                                     "%s 不是合法牌型" % _show(cs))
        if action.meaning is not None:
            chosen = [p for p in meanings if p.name == action.meaning]
            if not chosen:
                raise IllegalActionError(
                    "bad_meaning", "%s cannot mean %s; it can be: %s" % (
                        _show(cs), action.meaning, ", ".join(p.name for p in meanings)),
                    "%s 不能当作 %s；可以是：%s" % (_show(cs), action.meaning,
                                                  "、".join(_zh_meaning(p.name) for p in meanings)))
            meanings = chosen[:1]
        over = self._over()
        fit = [p for p in meanings if over is None or plays_.beats(p, over, self.prules)]
        if not fit:
            k, prev = self.to_beat
            raise IllegalActionError(
                "too_low", "%s does not beat %s (%s): play a higher %s or a bomb, or pass" % (
                    _show(cs), _show(prev.cards), prev.name, prev.kind),
                "%s 大不过 %s（%s）：请出更大的%s或炸弹，或者过牌" % (
                    _show(cs), _show(prev.cards), _zh_meaning(prev.name), plays_.KIND_NAMES_ZH[prev.kind]))
        if len(fit) > 1:
            raise IllegalActionError(
                "ambiguous", "%s can be played as %s: say which (meaning)" % (
                    _show(cs), ", ".join(p.name for p in fit)),
                "%s 可以当作：%s；请选择一种" % (_show(cs), "、".join(_zh_meaning(p.name) for p in fit)))
        return fit[0]

    def verify(self, action):
        """Raise :class:`IllegalActionError` with the precise reason if ``action`` is illegal now."""
        i = common.acting_seat(self, action, Action, IllegalActionError)
        want = PLAY if action.type == PASS else action.type
        if want != self.phase:
            raise IllegalActionError("wrong_phase", "Not now: this is the %s phase" % _PHASE_EN[self.phase],
                                     "现在是%s阶段，不能进行此操作" % _PHASE_ZH[self.phase])
        if action.seat not in self.to_act():
            waiting = ", ".join(self.to_act())
            raise IllegalActionError(
                "not_your_turn", "It is not your decision: waiting for %s" % waiting,
                "还没轮到你：等待%s" % "、".join(SEAT_NAMES_ZH[s] + "家" for s in self.to_act()))
        if action.type == PASS:
            if self.to_beat is None:
                raise IllegalActionError("leader_cannot_pass", "You lead this round and may not pass",
                                         "你是本圈领出牌者，不能过牌")
            return
        if not _held(self.hands[i], action.cards):
            missing = list(action.cards)
            for c in self.hands[i]:
                if c in missing:
                    missing.remove(c)
            raise IllegalActionError("not_in_hand", "You do not hold %s" % _show(missing),
                                     "你没有这张牌：%s" % _show(missing))
        if action.type == TRIBUTE:
            ok = self.tribute_choices(i)
            if action.cards[0] not in ok:
                raise IllegalActionError(
                    "tribute_not_highest", "The tribute is your highest card (not a heart level card): %s" % _show(ok),
                    "进贡必须是你最大的一张牌（红桃级牌除外）：%s" % _show(ok))
            return
        if action.type == RETURN:
            ok = self.return_choices(i)
            if action.cards[0] not in ok:
                raise IllegalActionError(
                    "return_too_high", "Return a card of rank %s or lower (your lowest if you have none): %s" % (
                        self.rules.return_max_rank, _show(ok)),
                    "还牌必须是不超过 %s 的牌（没有则还最小的牌）：%s" % (
                        "10" if self.rules.return_max_rank == "T" else self.rules.return_max_rank, _show(ok)))
            return
        self._meaning(action)

    def describe(self, seat, cards):
        """The meanings (``kind:rank`` names, classify's order) that ``seat`` may play the
        cards ``cards`` (codes) as now: every meaning that beats the last unbeaten play (any,
        when leading).  [] when it is not the seat's turn to play, the cards are not all in
        its hand, or they are no play that fits.  The seat's pre-check asks this (the hub's
        ``describe`` frame, docs/protocol.md): more than one meaning means the player chooses.

        >>> g = GuandanDeal(Deal.from_dict(fill({"E": "2H 3D 4D 5D 6D AS"})))
        >>> g.describe("E", ["2H", "3D", "4D", "5D", "6D"])
        ['straight:6', 'straight:7', 'straight_flush:6', 'straight_flush:7']
        >>> g.describe("E", ["3D", "AS"]), g.describe("N", ["3D"])
        ([], [])
        """
        if self.phase != PLAY or seat not in self.to_act():
            return []
        try:
            cs = tuple(plays_.cards(list(cards)))
        except (InvalidCardError, TypeError, ValueError):
            return []
        if not cs or not _held(self.hands[_seat_index(seat)], cs):
            return []
        over = self._over()
        return [p.name for p in plays_.classify(cs, self.prules) if over is None or plays_.beats(p, over, self.prules)]

    def can(self, action):
        """True if ``action`` is legal now."""
        return common.can(self, action, IllegalActionError)

    def default_action(self, seat):
        """What the rules do for ``seat`` when its clock runs out (RULES.md timers): the tribute
        is the largest eligible card, the return the smallest eligible card, a leader plays
        the smallest single, a follower passes.  Marked ``auto``."""
        i = _seat_index(seat)
        if seat not in self.to_act():
            raise IllegalActionError("not_your_turn", "Seat %s has no decision to make now" % seat,
                                     "%s家现在无需操作" % SEAT_NAMES_ZH[seat])
        if self.phase == TRIBUTE:
            return Action._trusted(TRIBUTE, seat, (self.tribute_choices(i)[-1],), auto=True)
        if self.phase == RETURN:
            ok = self.return_choices(i)
            low = min(self._value(c) for c in ok)
            return Action._trusted(RETURN, seat, (min(c for c in ok if self._value(c) == low),), auto=True)
        if self.to_beat is not None:
            return Action._trusted(PASS, seat, (), auto=True)
        hand = self.hands[i]
        # the wild card last among equals: as a single it is only a level card
        c = min(hand, key=lambda c: (self._value(c), c == self.prules.wild, c))
        return Action._trusted(PLAY, seat, (c,), plays_.classify((c,), self.prules)[0].name, auto=True)

    def time_limit(self, seat=None):
        """Seconds allowed for the current decision (the hub's clock; the engine has none)."""
        if self.phase == TRIBUTE:
            return self.rules.tribute_seconds
        if self.phase == RETURN:
            return self.rules.return_seconds
        if self.phase == PLAY:
            return self.rules.first_lead_seconds if self.first_lead else self.rules.turn_seconds
        return 0

    # -- applying -------------------------------------------------------------------------

    def apply(self, action):
        """Verify and apply ``action``; return the public events it caused (a list of dicts).

        Events never carry hidden cards: a tribute is announced as paid and the cards are
        revealed together once every payer has paid; a return is face down (only the two
        seats concerned see it, in their ``view``).
        """
        self.verify(action)
        i = SEATS.index(action.seat)
        seat = action.seat
        events = []
        if action.type == TRIBUTE:
            self.actions.append(action)
            c = action.cards[0]
            self.hands[i].remove(c)
            self.paid[i] = c
            events.append({"type": TRIBUTE, "seat": seat})
            if len(self.paid) == len(self.payers):
                self._assign_tribute()
                for p in self.payers:
                    self.hands[self.gives[p]].append(self.paid[p])
                    self.hands[self.gives[p]].sort()
                events.append({"type": "tributes", "tributes": [
                    {"from": SEATS[p], "to": SEATS[self.gives[p]], "card": plays_.code(self.paid[p])}
                    for p in self.payers]})
                self.phase = RETURN
                events.append({"type": "phase", "phase": RETURN, "to_act": list(self.to_act())})
            return events
        if action.type == RETURN:
            self.actions.append(action)
            c = action.cards[0]
            payer = [p for p in self.payers if self.gives[p] == i][0]
            self.hands[i].remove(c)
            self.hands[payer].append(c)
            self.hands[payer].sort()
            self.returned[i] = c
            events.append({"type": RETURN, "seat": seat, "to": SEATS[payer]})
            if len(self.returned) == len(self.payers):
                self.phase = PLAY
                self.turn = self.leader
                events.append({"type": "phase", "phase": PLAY, "turn": SEATS[self.turn]})
            return events
        if action.type == PLAY:
            p = self._meaning(action)
            self.actions.append(Action._trusted(PLAY, seat, action.cards, p.name, action.auto, action.think_ms))
            hand = self.hands[i]
            _remove(hand, action.cards)
            self.first_lead = False
            self.to_beat = (i, p)
            self.passes = 0
            self.trick.append((i, p))
            events.append({"type": PLAY, "seat": seat, "cards": plays_.codes(action.cards), "meaning": p.name,
                           "kind": p.kind, "stands": plays_.codes(p.stands)})
            if len(hand) <= self.rules.report_at:
                events.append({"type": "report", "seat": seat, "left": len(hand)})  # 报牌
            if not hand:
                self.out.append(i)
                events.append({"type": "out", "seat": seat, "place": len(self.out)})
                if self._finished():
                    return events + self._end()
            self.turn = self._next(i)
        else:  # PASS
            self.actions.append(action)
            self.passes += 1
            self.trick.append((i, None))
            events.append({"type": PASS, "seat": seat})
            owner = self.to_beat[0]
            active = sum(1 for k in range(4) if self.hands[k])
            if self.passes >= active - (1 if self.hands[owner] else 0):
                jiefeng = not self.hands[owner]
                leader = (owner + 2) % 4 if jiefeng else owner  # 接风: the partner of a player gone out
                self.to_beat = None
                self.passes = 0
                self.trick = []
                self.turn = leader
                events.append({"type": "round_end", "leader": SEATS[leader], "jiefeng": jiefeng})
            else:
                self.turn = self._next(i)
        events.append({"type": "turn", "seat": SEATS[self.turn]})
        return events

    def _assign_tribute(self):
        """Who receives each tribute card (and so who leads): RULES.md / seed 第十条."""
        up = SEATS.index(self.previous[0])
        if len(self.payers) == 1:
            self.gives = {self.payers[0]: up}
            self.leader = self.payers[0]
            return
        a, b = self.payers
        va, vb = self._value(self.paid[a]), self._value(self.paid[b])
        if va != vb:
            hi, lo = (a, b) if va > vb else (b, a)
            self.gives = {hi: up, lo: (up + 2) % 4}
        else:  # equal cards: each payer gives to the opponent beside them in the rule's direction
            step = 3 if self.rules.equal_tribute == "clockwise" else 1
            self.gives = {a: (a + step) % 4, b: (b + step) % 4}
        self.leader = [p for p in self.payers if self.gives[p] == up][0]

    def _next(self, i):
        """The next seat after ``i`` still holding cards."""
        for k in range(1, 5):
            j = (i + k) % 4
            if self.hands[j]:
                return j
        return i

    def _finished(self):
        return len(self.out) >= 3 or (len(self.out) == 2 and self.out[0] % 2 == self.out[1] % 2)

    def _end(self):
        """Close the deal: the places, then the result."""
        last = self.out[-1]
        rest = [(last + k) % 4 for k in range(1, 4) if (last + k) % 4 not in self.out]
        # after 双下 both are 下游 (the order is no rule's concern): fewer cards first, then play order
        rest.sort(key=lambda k: (len(self.hands[k]), (k - last) % 4))
        self.places = [SEATS[k] for k in self.out + rest]
        self.phase = OVER
        self.turn = None
        self.to_beat = None
        return [{"type": "deal_end", "result": self.result()}]

    # -- what each seat may see -------------------------------------------------------------

    def view(self, seat=None):
        """Everything ``seat`` may see, as plain data; ``seat=None`` is the public view.

        Own hand; partner; the level played and both sides' levels; the last unbeaten play and
        who made it; 报牌 (the card counts of players with 10 or fewer); places so far; phase,
        whose turn and the clock; the tribute and return state with the seat's own eligible
        cards.  Nobody sees another seat's cards, nor a return card it neither gave nor got.
        """
        me = None if seat is None else _seat_index(seat)
        v = {
            "game": GAME,
            "board": self.deal.board,
            "phase": self.phase,
            "seat": seat,
            "partner": partner(seat) if seat is not None else None,
            "level": level_text(self.level),
            "levels": {s: level_text(self.levels[s]) for s in SIDES},
            "playing": self.playing,
            "to_act": list(self.to_act()),
            "turn": SEATS[self.turn] if self.turn is not None else None,
            "leader": SEATS[self.leader] if self.leader is not None else None,
            "reports": {SEATS[k]: len(self.hands[k]) for k in range(4) if len(self.hands[k]) <= self.rules.report_at},
            "places": [SEATS[k] for k in self.out] if self.places is None else list(self.places),
            "to_beat": None,
            "trick": [{"seat": SEATS[k], "cards": plays_.codes(p.cards) if p else None,
                       "meaning": p.name if p else None} for k, p in self.trick],
            "first_lead": self.phase == PLAY and self.first_lead,
            "time_limit": self.time_limit(),
            "tribute": self._tribute_view(me),
        }
        if self.to_beat is not None:
            k, p = self.to_beat
            v["to_beat"] = {"seat": SEATS[k], "cards": plays_.codes(p.cards), "meaning": p.name, "kind": p.kind}
        if me is not None:
            v["hand"] = plays_.codes(self.hands[me])
        if self.phase == OVER:
            v["result"] = self.result()
        return v

    def _tribute_view(self, me):
        if self.previous is None:
            return None
        t = {
            "payers": [SEATS[p] for p in self.payers],
            "anti_tribute": self.anti_tribute,
            "paid": [SEATS[p] for p in self.payers if p in self.paid],
            "tributes": None,
            "returned": [SEATS[r] for r in sorted(self.returned)],
        }
        if self.gives:
            t["tributes"] = [{"from": SEATS[p], "to": SEATS[self.gives[p]], "card": plays_.code(self.paid[p])}
                             for p in self.payers]
        if me is not None:
            if me in self.paid and not self.gives:
                t["my_tribute"] = plays_.code(self.paid[me])
            for r, c in self.returned.items():
                if me == r or self.gives.get(me) == r:
                    t["my_return"] = plays_.code(c)  # face down: only giver and receiver see it
            if self.phase == TRIBUTE and me in self.payers and me not in self.paid:
                t["eligible"] = plays_.codes(self.tribute_choices(me))
                t["constraint"] = "highest card, not a heart level card"
            if self.phase == RETURN and SEATS[me] in self.to_act():
                t["eligible"] = plays_.codes(self.return_choices(me))
                t["constraint"] = "rank %s or lower; your lowest if none" % self.rules.return_max_rank
        return t

    # -- the outcome ------------------------------------------------------------------------

    def result(self):
        """A finished deal's outcome as plain data: places, the level change and new levels,
        the tribute, cards left, auto moves and think times."""
        if self.phase != OVER:
            raise IllegalActionError("not_over", "The deal is not over yet", "本副牌尚未结束")
        new, step, passed = next_levels(self.levels, self.playing, self.places)
        auto, think = common.tallies(self.actions, SEATS)
        return {
            "board": self.deal.board,
            "places": list(self.places),
            "winner": side_of(self.places[0]),
            "level": level_text(self.level),
            "levels_before": {s: level_text(self.levels[s]) for s in SIDES},
            "levels_after": {s: level_text(new[s]) for s in SIDES},
            "level_change": step,
            "passed_a": passed,
            "anti_tribute": self.anti_tribute,
            "tributes": [{"from": SEATS[p], "to": SEATS[self.gives[p]], "card": plays_.code(self.paid[p]),
                          "returned": plays_.code(self.returned[self.gives[p]])} for p in self.payers
                         if p in self.gives],
            "hands_left": {SEATS[k]: plays_.codes(self.hands[k]) for k in range(4)},
            "auto_moves": auto,
            "think_ms": think,
        }

    # -- logs and replay --------------------------------------------------------------------

    def setup(self):
        return {"levels": dict(self.levels), "playing": self.playing, "previous": self.previous}

    def record(self):
        """The deal's log as plain data: rules, setup, deal and every action (plays with their
        meanings).  ``from_record`` replays it."""
        return {"game": GAME, "rules": self.rules.to_dict(), "setup": self.setup(), "deal": self.deal.to_dict(),
                "actions": [a.to_dict() for a in self.actions]}

    @classmethod
    def from_record(cls, record):
        """Replay a logged deal through the engine; an illegal logged action raises with its index."""
        common.check_record(record, GAME, "Guandan")
        setup = record.get("setup") or {}
        state = cls(Deal.from_dict(record["deal"]), Rules.from_dict(record.get("rules")),
                    setup.get("levels"), setup.get("playing"), setup.get("previous"))
        return common.replay_actions(state, record.get("actions", []), Action.from_dict, IllegalActionError)

    def snapshot(self):
        """The complete state (hidden cards included) for equality checks; never send it to a seat."""
        return {
            "phase": self.phase, "hands": [plays_.codes(h) for h in self.hands], "turn": self.turn,
            "leader": self.leader, "passes": self.passes, "out": list(self.out), "places": self.places,
            "to_beat": None if self.to_beat is None else [self.to_beat[0], self.to_beat[1].name,
                                                          plays_.codes(self.to_beat[1].cards)],
            "paid": sorted(self.paid.items()), "gives": sorted(self.gives.items()),
            "returned": sorted(self.returned.items()), "actions": [a.to_dict() for a in self.actions],
        }


_PHASE_EN = {TRIBUTE: "tribute (进贡)", RETURN: "return (还牌)", PLAY: "play", OVER: "finished"}
_PHASE_ZH = {TRIBUTE: "进贡", RETURN: "还牌", PLAY: "出牌", OVER: "结束"}


# ---- a match: deals from level 2 until a side passes A ------------------------------------

def _clock_ms(actions):
    """The clock time a deal's logged actions used: each play's think time, and once per
    simultaneous phase (the payers of a tribute, the receivers of a return share one clock)."""
    shared = {}
    total = 0
    for a in actions:
        ms = a.get("think_ms") or 0
        if a.get("type") in (TRIBUTE, RETURN):
            shared[a.get("type")] = max(shared.get(a.get("type"), 0), ms)
        else:
            total += ms
    return total + sum(shared.values())


class Match:
    """A match: the sequence of deals from level 2 until a side passes A, or ``max_deals``
    deals are played, or the hub calls :meth:`time_up` (then the higher level wins; equal
    levels are a draw, or with ``tiebreak_deal`` one more deal decides by 上游).

    The hub supplies each deal's cards; the match carries the levels and the places across
    deals.  Use: ``while not m.over: game = m.start(deal); ...play it...; m.finish(game)``.

    It is the board of Guandan (the registry's ``new_board``): ``over``, ``start``, ``finish``,
    ``result``, ``record``, ``progress`` and ``deals``, the same face as a one-deal board.

    >>> m = Match(Rules(max_deals=1))
    >>> m.setup()
    {'levels': {'EW': 2, 'NS': 2}, 'playing': None, 'previous': None}
    >>> m.progress()
    {'deal': 1, 'deals_done': 0, 'levels': {'EW': '2', 'NS': '2'}, 'playing': None, 'max_deals': 1}
    """

    multi = True  # a board of several deals: the table logs each deal's end and numbers them

    def __init__(self, rules=None, levels=None, playing=None, previous=None):
        self.rules = rules if rules is not None else Rules()
        self.levels = dict(levels) if levels is not None else {"EW": LOWEST, "NS": LOWEST}
        self.playing = playing
        self.previous = list(previous) if previous is not None else None
        self.start_setup = self.setup()  # a match may be resumed from a later point (its record says so)
        GuandanDeal(Deal.from_dict(fill({})), self.rules, **self.start_setup)  # validates the setup
        self.failures = {"EW": 0, "NS": 0}  # deals played at the side's own A without passing it
        self.deals = []  # each finished deal's record
        self.results = []
        self.over = False
        self.winner = None
        self.tiebreak = False  # the next (current) deal is the tie-break deal
        self.out_of_time = False
        self.time_up_after = None  # deals after which the match closed for time (set by time_up)
        self.current = None

    @property
    def number(self):
        """The number (from 1) of the deal in progress, or of the next one."""
        return len(self.deals) + 1  # finished deals are in self.deals, the current one not yet

    def progress(self):
        """Where the match stands, for the live snapshot and the seats between deals: the deal
        number (in progress, or next; the last once the match is over), deals finished, both sides' levels, the side whose level
        is played, the deal limit; and the winner once it is over."""
        p = {"deal": len(self.deals) if self.over else self.number, "deals_done": len(self.deals),
             "levels": {s: level_text(self.levels[s]) for s in SIDES}, "playing": self.playing,
             "max_deals": self.rules.max_deals}
        if self.rules.match_minutes is not None:
            p["match_minutes"] = self.rules.match_minutes
        if self.out_of_time:
            p["time_up"] = True
        if self.tiebreak:
            p["tiebreak"] = True
        if self.over:
            p["over"], p["winner"] = True, self.winner
        return p

    def setup(self):
        """The next deal's setup: both sides' levels, the side whose level is played, the
        previous deal's places (for the tribute)."""
        return {"levels": dict(self.levels), "playing": self.playing, "previous": self.previous}

    def start(self, deal):
        """The :class:`GuandanDeal` of the next deal, dealt ``deal``."""
        if self.over:
            raise IllegalActionError("match_over", "The match is over", "本场比赛已结束")
        if self.current is not None:
            raise IllegalActionError("deal_running", "Finish the current deal first", "请先打完当前这副牌")
        self.current = GuandanDeal(deal, self.rules, **self.setup())
        return self.current

    def time_limit_ms(self):
        """The match's time limit in ms (``match_minutes``), or None: the hub measures it."""
        return None if self.rules.match_minutes is None else self.rules.match_minutes * 60000

    def time_up(self):
        """The match's time is reached: no deal starts after the current one (seed 第十二条)."""
        if self.over or self.out_of_time:
            return
        self.out_of_time = True
        self.time_up_after = len(self.deals) + (0 if self.current is None else 1)
        if self.current is None and not self.tiebreak:
            self._close()

    def finish(self, game):
        """Record a finished deal and move the levels; returns the deal's result."""
        if game is not self.current or game.phase != OVER:
            raise IllegalActionError("not_over", "Finish the match's current deal first", "本副牌尚未结束")
        res = game.result()
        self.current = None
        self.deals.append(game.record())
        self.results.append(res)
        new, _, passed = next_levels(self.levels, self.playing, res["places"])
        side = res["winner"]
        if self.rules.a_attempts:
            for s in SIDES:
                if self.levels[s] == HIGHEST and self.playing == s and not passed:
                    self.failures[s] += 1
                    if self.failures[s] >= self.rules.a_attempts:
                        new[s] = LOWEST  # the house rule: back to 2 after n failures at A
                        self.failures[s] = 0
        self.levels = new
        self.playing = side
        self.previous = res["places"]
        if passed:
            self.over, self.winner = True, side
        elif self.tiebreak:
            self.over, self.winner = True, side  # the tie-break deal goes by 上游 only
        elif self.out_of_time or (self.rules.max_deals is not None and len(self.deals) >= self.rules.max_deals):
            self._close()
        return res

    def _close(self):
        a, b = self.levels["EW"], self.levels["NS"]
        if a != b:
            self.over, self.winner = True, "EW" if a > b else "NS"
        elif self.rules.tiebreak_deal and not self.tiebreak:
            self.tiebreak = True
        else:
            self.over, self.winner = True, None

    def result(self):
        """The match result: final levels, the winner (None for a draw), 级差分 and 场分 per
        side, the number of deals and each deal's record; and the face of every board's
        result: ``scores`` (each seat's side's 场分), ``auto_moves`` and ``think_ms`` per seat
        over the whole match."""
        if not self.over:
            raise IllegalActionError("not_over", "The match is not over yet", "本场比赛尚未结束")
        a, b = self.levels["EW"], self.levels["NS"]
        d = abs(a - b)
        win, lose = level_points(d)
        if self.winner is None:
            jc = {"EW": BASE, "NS": BASE}
            cf = {"EW": DRAW, "NS": DRAW}
        else:
            other = "NS" if self.winner == "EW" else "EW"
            jc = {self.winner: win, other: lose}
            cf = {self.winner: WIN, other: LOSS}
        auto = {s: sum(r["auto_moves"][s] for r in self.results) for s in SEATS}
        think = {s: sum(r["think_ms"][s] for r in self.results) for s in SEATS}
        return {"levels": {s: level_text(self.levels[s]) for s in SIDES}, "winner": self.winner,
                "diff": d, "jichafen": jc, "changfen": cf, "deals": len(self.deals),
                "tiebreak": self.tiebreak, "records": list(self.deals),
                # the face every board's result has: a seat's score is its side's 场分
                "scores": {s: cf[side_of(s)] for s in SEATS}, "auto_moves": auto, "think_ms": think}

    def record(self):
        """The match's log: rules, the time-up mark and every finished deal's record.

        ``time_up`` is False, or the number of deals after which the match closed because its
        time was reached (the deal in progress then counts; a tie-break deal may follow)."""
        return {"game": GAME, "match": True, "rules": self.rules.to_dict(), "start": self.start_setup,
                "time_up": False if self.time_up_after is None else self.time_up_after, "deals": list(self.deals)}

    @classmethod
    def from_record(cls, record):
        """Replay a logged match deal by deal (each deal's setup is checked against the match's).

        A ``time_up`` mark is replayed where it says (after that many deals) and must be
        consistent: the rules have a time limit, it falls within the deals played, and the
        clock time of the deals before the one in which it was reached (the seats' think
        times, which the hub measures on the same clock) is under that limit.  Nobody can
        re-measure the time itself from a record."""
        if not isinstance(record, dict) or record.get("game") != GAME or not record.get("match"):
            raise ValueError("not a Guandan match record")
        m = cls(Rules.from_dict(record.get("rules")), **(record.get("start") or {}))
        deals = record.get("deals", [])
        at = record.get("time_up", False)
        if at is True:  # a record of before the mark said where: after its last deal
            at = len(deals)
        if at is not False and (not _whole(at) or not 0 <= at <= len(deals)):
            raise ValueError("time_up must be false or a number of deals 0..%d, not %r" % (len(deals), at))
        if at is not False and m.rules.match_minutes is None:
            raise ValueError("the record's time is up, but its rules set no match_minutes")
        if at is not False:
            used = sum(_clock_ms(rec.get("actions", [])) for rec in deals[:max(0, at - 1)])
            if used >= m.time_limit_ms():
                raise ValueError("the deals before deal %d used %d ms of clock time, past the %d-minute limit: "
                                 "the time was reached earlier" % (at, used, m.rules.match_minutes))
        if at is not False and at == 0:
            m.time_up()
        for n, rec in enumerate(deals):
            if rec.get("setup") != m.setup():
                raise ValueError("deal %d: its setup %r is not the match's %r" % (n, rec.get("setup"), m.setup()))
            game = m.start(Deal.from_dict(rec["deal"]))
            for a in rec.get("actions", []):
                game.apply(Action.from_dict(a))
            m.finish(game)
            if at is not False and n + 1 == at:
                m.time_up()
        return m
