"""竞技跑胡子 (Paohuzi): the authoritative rules engine for one deal, a pure state machine.

The deal (three hands, the 亮张 and the ordered stock) and the seats' decisions are its only
inputs; no clock, randomness or I/O (the hub owns those and asks :meth:`Paohuzi.default_action`
what a clock expiry does).  Groups, 胡息, the 吃 choices with 比牌, the best arrangement and
the score live in :mod:`paizhuo_shared.paohuzi`, which the seat boards run too.

A deal (RULES.md, seed 003 第五至十条) has two kinds of decision:

- ``discard``: one seat discards a card from its hand (the dealer first, with 21 cards);
- ``claim``: a card is out (discarded, or turned up from the stock by the engine) and every
  seat that may 胡, 碰 or 吃 it is asked at once, on one clock.  The engine resolves by
  priority as soon as the decided claims settle it: 提/偎 > 胡 > 跑/碰 > 吃 (胡 by the turner
  first, then counter-clockwise; 吃 by the turner, then their 下家).

Compulsory moves (提 at the deal and on one's own turned card, 偎, 跑) and turning up the
stock are the engine's own, made inside :meth:`Paohuzi.apply` as events; they are never asked
and never logged, so a record is the seats' decisions only; a compulsory 提 or 偎 that
completes a winning hand wins at once (RULES.md).  A seat learns only what it may: a 偎 (and a
提 made from it) is face down to the others, a turned-up card that goes into one is never
shown, and nobody is told who else is asked about a card (a decision that does not settle the
claim causes no event).

What the engine decides where RULES.md is silent (said here so the seats and bots agree):
a seat dealt two or more 提 skips one discard for each 提 beyond the first (the 重跑 rule
applied to the deal, which keeps its card count right for 7 门子); a card of a 坎 may be
discarded only when the hand holds nothing else; a 吃 or 碰 must leave a card to discard;
a 碰 of a discarded card is not 跑 (only a turned-up card joins a 碰, as RULES.md says).

A short deal from a hand-made layout: E (the dealer) discards 五, N may 吃 it and does.

>>> deal = Deal.from_dict(fill({"E": "x5", "N": "x4 x6"}, stock="d9 x5 x5 x5"))
>>> game = Paohuzi(deal)
>>> game.phase, game.to_act(), len(game.view("E")["hand"]), game.time_limit("E")
('discard', ('E',), 21, 20)
>>> [e["type"] for e in game.apply(Action.discard("E", "x5"))]
['discard', 'claim']
>>> game.phase, game.view("N")["may"]["chi"], game.view("W")["to_act"]
('claim', [[['x3', 'x4', 'x5']], [['x4', 'x5', 'x6']], [['x5', 'x6', 'x7']], [['x5', 'd5', 'd5']]], [])
>>> game.verify(Action.peng("N"))
Traceback (most recent call last):
...
paizhuo.rules.paohuzi.IllegalActionError: You hold no pair of x5 to 碰
>>> [e["type"] for e in game.apply(Action.chi("N", [["x4", "x5", "x6"]]))]
['chi', 'turn']
>>> game.view(None)["open"]["N"]
[{'kind': 'chi', 'cards': ['x4', 'x5', 'x6']}]
>>> while game.phase != "over":          # every clock runs out: pass on claims, a fixed discard
...     _ = game.apply(game.default_action(game.to_act()[0]))
>>> r = game.result().to_dict()
>>> sum(r["scores"].values())
0
"""

from paizhuo_shared import cards as cards_
from paizhuo_shared import paohuzi as pz
from paizhuo_shared.cards import DECK80, InvalidCardError
from ..errors import CodedError
from . import common

__all__ = ["Rules", "Deal", "Action", "IllegalActionError", "Paohuzi", "Result", "SEATS", "fill"]

GAME = "paohuzi"
SEATS = ("E", "N", "W")  # play order: each seat's 下家 is the next one
SEAT_NAMES_ZH = common.SEAT_NAMES_ZH
HAND_SIZE = 20
DECK = DECK80  # 80 word cards; E, N, W take 20 each, the 亮张 goes to the dealer E
SHOWN = True  # one more card is turned up for the dealer (亮张); the rest is the stock
STOCK_SIZE = 80 - 3 * HAND_SIZE - 1
DEALER = 0  # E: the first seat in dealing order

DISCARD, CLAIM, OVER = "discard", "claim", common.OVER
PHASES = (DISCARD, CLAIM, OVER)
SIMULTANEOUS = (CLAIM,)  # every seat asked about the card out decides at once, on one clock
CHI, PENG, HU, PASS = "chi", "peng", "hu", common.PASS
WEI, PAO, TI = pz.WEI, pz.PAO, pz.TI
STOCK, DISCARDED = "stock", "discard"  # where the card out came from

class IllegalActionError(CodedError):
    """An action the rules refuse.  ``code`` is stable for machines; ``en``/``zh`` are for people."""


def _seat_index(seat):
    try:
        return SEATS.index(seat)
    except ValueError:
        raise IllegalActionError("unknown_seat", "Unknown seat %r: seats are E, N, W" % (seat,),
                                 "没有座位 %r：座位是 E 东、N 北、W 西" % (seat,)) from None


def _check_think_ms(think_ms):
    common.check_think_ms(think_ms, IllegalActionError)


def _name(c):
    return pz.code(c)


def _zh(seat):
    return SEAT_NAMES_ZH[seat] + "家"


# ---- rule options --------------------------------------------------------------------

_SECONDS = common.CLOCK_OPTION
_ALLOWED = dict({name: ("a whole number from %d to %d" % pz.Rules.LIMITS[name], "%d 到 %d 的整数" % pz.Rules.LIMITS[name])
                 for name in pz.Rules.OPTIONS}, **{
    "claim_seconds": _SECONDS, "discard_seconds": _SECONDS,
    "win_card": ("'stock' (a stock card only) or 'any' (a discard too)", "'stock'（只胡底牌）或 'any'（打出的牌也可胡）"),
    "hong_hu_reds": ("a whole number from 2 to 24, below hong_wu_reds", "2 到 24 的整数，且小于 hong_wu_reds"),
    "hong_wu_reds": ("a whole number from 2 to 25, above hong_hu_reds", "2 到 25 的整数，且大于 hong_hu_reds"),
    "pair_win": ("'wei_peng' (偎 when self-drawn, 碰 otherwise) or 'kan' (a 坎 in hand)",
                 "'wei_peng'（自摸算偎，否则算碰）或 'kan'（算手中的坎）"),
})


class Rules:
    """The engine's rule options; each is a decision of RULES.md, defaults are the project's.

    - the win and score options of :class:`paizhuo_shared.paohuzi.Rules` (``men`` 7,
      ``min_huxi`` 6, ``tun_step`` 3, ``self_drawn_tun`` 1, the 名堂 values and red thresholds);
    - ``claim_seconds`` 10, ``discard_seconds`` 20: the clocks (a timeout passes on a claim and
      discards by the fixed rule);
    - ``win_card``: ``"stock"``: the winning card is a stock card, never a discard (seed 003
      第八条 "所胡牌为底牌"); ``"any"``: a discard wins too (the discarder's 下家 first);
    - ``pair_win``: ``"wei_peng"``: a winning card that makes three of a kind with a pair in hand
      counts as a 偎 when the winner turned it up, as a 碰 otherwise; ``"kan"``: as a 坎 in hand.

    >>> Rules(claim_seconds=0)
    Traceback (most recent call last):
    ...
    ValueError: claim_seconds must be a whole number of seconds 1..600, not 0
    >>> Rules.from_dict({"win_card": "all"}).win_card
    Traceback (most recent call last):
    ...
    paizhuo.rules.common.RulesError: the Paohuzi rule option win_card cannot be 'all': it must be 'stock' (a stock card only) or 'any' (a discard too)
    """

    OPTIONS = pz.Rules.OPTIONS + ("claim_seconds", "discard_seconds", "win_card", "pair_win")

    def __init__(self, claim_seconds=10, discard_seconds=20, win_card="stock", pair_win="wei_peng", **cards_rules):
        self.cards = pz.Rules(**cards_rules)  # validates the win and score options
        for name, value in (("claim_seconds", claim_seconds), ("discard_seconds", discard_seconds)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 600:
                raise ValueError("%s must be a whole number of seconds 1..600, not %r" % (name, value))
        if win_card not in ("stock", "any"):
            raise ValueError("win_card must be 'stock' or 'any', not %r" % (win_card,))
        if pair_win not in ("wei_peng", "kan"):
            raise ValueError("pair_win must be 'wei_peng' or 'kan', not %r" % (pair_win,))
        self.claim_seconds = claim_seconds
        self.discard_seconds = discard_seconds
        self.win_card = win_card
        self.pair_win = pair_win

    def __getattr__(self, name):  # the win and score options read like the others: rules.min_huxi
        if name in pz.Rules.OPTIONS and "cards" in self.__dict__:
            return getattr(self.cards, name)
        raise AttributeError(name)

    @classmethod
    def from_dict(cls, data):
        """Build from a mapping (a rules file, a round spec or a log); anything else, an unknown
        option or a bad value raises :class:`common.RulesError` (a ValueError) naming it."""
        return common.rules_from_dict(cls, data, ("Paohuzi", "跑胡子"), _ALLOWED)

    def to_dict(self):
        d = self.cards.to_dict()
        d.update(claim_seconds=self.claim_seconds, discard_seconds=self.discard_seconds, win_card=self.win_card,
                 pair_win=self.pair_win)
        return d

    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()


# ---- chance as data -------------------------------------------------------------------

_DECK = tuple(pz.card(c) for c in cards_.deck(DECK80))  # a shuffled deck's positions 0..79


def _parse_cards(items, what):
    try:
        return list(pz.cards(list(items) if not isinstance(items, str) else items))
    except (InvalidCardError, TypeError) as e:
        raise ValueError("%s: %s" % (what, e)) from None


class Deal:
    """Chance as data: the three hands (the dealer E's 21 with the 亮张 ``shown``), the 19-card
    stock in order (top first) and ``board``.  Hands are sorted lists of card ints.

    >>> d = Deal.from_permutation(range(80))
    >>> len(d.hands["E"]), len(d.hands["N"]), len(d.stock), d.shown in d.hands["E"]
    (21, 20, 19, True)
    >>> Deal.from_dict(d.to_dict()) == d
    True
    """

    __slots__ = ("hands", "shown", "stock", "board")
    seats = SEATS

    def __init__(self, hands, shown, stock, board=None):
        if not isinstance(hands, dict) or sorted(hands) != sorted(SEATS):
            raise ValueError("a deal needs exactly the seats E, N, W, not %r"
                             % (sorted(hands) if isinstance(hands, dict) else hands,))
        out = {}
        for i, seat in enumerate(SEATS):
            if isinstance(hands[seat], str):
                raise ValueError("seat %s: Deal takes card numbers; use Deal.from_dict for codes like 'x3'" % seat)
            hand = _parse_cards(hands[seat], "seat %s" % seat)
            want = HAND_SIZE + (1 if i == DEALER else 0)
            if len(hand) != want:
                raise ValueError("seat %s holds %d cards; it is dealt %d" % (seat, len(hand), want))
            out[seat] = hand
        try:
            shown = pz.card(shown)
        except (InvalidCardError, TypeError) as e:
            raise ValueError("the shown card (亮张): %s" % e) from None
        if shown not in out[SEATS[DEALER]]:
            raise ValueError("the shown card (亮张) %s is not in the dealer E's hand" % _name(shown))
        if isinstance(stock, str):
            raise ValueError("the stock: Deal takes card numbers; use Deal.from_dict for codes")
        try:
            stock = [pz.card(c) for c in stock]
        except (InvalidCardError, TypeError) as e:
            raise ValueError("the stock: %s" % e) from None
        if len(stock) != STOCK_SIZE:
            raise ValueError("the stock holds %d cards; a deal leaves %d" % (len(stock), STOCK_SIZE))
        seen = pz.counts(stock + [c for s in SEATS for c in out[s]])
        for c in range(20):
            if seen[c] != 4:
                raise ValueError("%s is dealt %d times; the deck holds each card four times" % (_name(c), seen[c]))
        self.hands = out
        self.shown = shown
        self.stock = stock
        self.board = common.check_board(board)

    @classmethod
    def from_permutation(cls, order, board=None):
        """Deal a shuffled deck as :mod:`paizhuo.deals` does: ``order`` lists the 80 positions
        once; 20 each to E, N, W, the next card (亮张) to E, the rest is the stock in order."""
        order = list(order)
        if sorted(order) != list(range(80)):
            raise ValueError("a Paohuzi deal is a permutation of the 80 card positions 0..79")
        cs = [_DECK[p] for p in order]
        hands = {seat: cs[HAND_SIZE * i:HAND_SIZE * (i + 1)] for i, seat in enumerate(SEATS)}
        at = HAND_SIZE * len(SEATS)
        hands[SEATS[DEALER]] = hands[SEATS[DEALER]] + [cs[at]]
        return cls(hands, cs[at], cs[at + 1:], board)

    @classmethod
    def from_dict(cls, data, board=None):
        """From ``{"board": 1, "hands": {"E": [21 codes], ...}, "shown": "x3", "stock": [19 codes]}``
        (codes may be one string); a malformed deal raises ValueError."""
        if not isinstance(data, dict) or "hands" not in data:
            raise ValueError("a Paohuzi deal is {\"hands\": {...}, \"shown\": ..., \"stock\": [...]}, not %r" % (data,))
        hands = data["hands"]
        if not isinstance(hands, dict):
            raise ValueError("hands must map the seats E, N, W to cards, not %r" % (hands,))
        parsed = {s: _parse_cards(h, "seat %s" % s) for s, h in hands.items()}
        stock = data.get("stock", ())
        stock = stock.replace(",", " ").split() if isinstance(stock, str) else stock
        if not isinstance(stock, (list, tuple)):
            raise ValueError("the stock must be a list of codes, not %r" % (stock,))
        try:
            stock = [pz.card(c) for c in stock]
        except (InvalidCardError, TypeError) as e:
            raise ValueError("the stock: %s" % e) from None
        return cls(parsed, data.get("shown"), stock, data.get("board", board))

    def to_dict(self):
        return {"board": self.board, "hands": {s: pz.codes(self.hands[s]) for s in SEATS},
                "shown": _name(self.shown), "stock": pz.codes(self.stock)}

    def __eq__(self, other):
        return (type(other) is type(self) and self.hands == other.hands and self.shown == other.shown
                and self.stock == other.stock and self.board == other.board)

    def __repr__(self):
        return "Deal(%s, shown=%s, stock=%s)" % (
            ", ".join("%s=%s" % (s, " ".join(pz.codes(self.hands[s]))) for s in SEATS), _name(self.shown),
            " ".join(pz.codes(self.stock)))


def fill(partial, stock="", shown=None):
    """A legal deal (``Deal.from_dict``'s mapping) from hand-made parts: ``partial`` names some
    cards of each seat, ``stock`` the top of the stock in order, ``shown`` the 亮张 (default: the
    dealer's last card).  Every other card fills the seats short of their count (no seat gets a
    third copy of a card it was not given, so no 坎 or 提 it was not meant to have), then the rest
    of the stock, one of each card in turn.  For examples and tests.

    >>> d = Deal.from_dict(fill({"N": "x1 x1 x1 x1"}, stock="d5"))
    >>> d.hands["N"][:5], d.stock[0], len(d.stock), max(d.hands["W"].count(c) for c in range(20))
    ([0, 0, 0, 0, 1], 14, 19, 2)
    """
    hands = {s: list(pz.cards(partial.get(s, ""))) for s in SEATS}
    top = [pz.card(c) for c in (stock.split() if isinstance(stock, str) else stock)]
    if shown is not None:
        hands["E"].append(pz.card(shown))
    left = [4] * 20
    for c in [c for s in SEATS for c in hands[s]] + top:
        left[c] -= 1
    if min(left) < 0:
        raise ValueError("a card is named more than four times")
    need = {s: HAND_SIZE + (1 if s == "E" else 0) - len(hands[s]) for s in SEATS}
    if min(need.values()) < 0:
        raise ValueError("a seat is given too many cards")
    rest = []
    for c in range(20):
        for _ in range(left[c]):
            ok = [s for s in SEATS if need[s] > 0 and hands[s].count(c) < 2]
            if not ok:
                rest.append(c)
                continue
            s = min(ok, key=lambda s: (hands[s].count(c), -need[s], SEATS.index(s)))
            hands[s].append(c)
            need[s] -= 1
    for s in SEATS:  # short only if the hand-made parts crowd the deck: then any card
        while need[s] > 0:
            hands[s].append(rest.pop())
            need[s] -= 1
    n = pz.counts(rest)
    rest = [c for k in range(4) for c in range(20) if n[c] > k]  # the stock spread: one of each in turn
    if shown is None:
        shown = hands["E"][-1]
    return {"hands": {s: pz.codes(sorted(hands[s])) for s in SEATS}, "shown": _name(pz.card(shown)),
            "stock": pz.codes(top + rest)}


# ---- actions --------------------------------------------------------------------------

class Action(common.ActionBase):
    """One decision of one seat: ``discard`` (a card), ``chi`` (the groups it lays down: the first
    holds the card out, the rest are the 比牌), ``peng``, ``hu`` or ``pass`` (decline every claim
    on the card out; it becomes 臭牌 for that seat).

    ``auto`` marks an action the hub made for the seat (clock expiry, 托管) and ``think_ms`` is
    the thinking time it measured; neither changes the game, and equality ignores them.

    >>> Action.from_dict({"type": "chi", "seat": "N", "groups": [["x6", "x4", "x5"]]})
    Action.chi('N', [['x4', 'x5', 'x6']])
    >>> Action.discard("E", "d10").to_dict()
    {'type': 'discard', 'seat': 'E', 'card': 'd10'}
    """

    __slots__ = ("type", "seat", "card", "groups", "auto", "think_ms")
    TYPES = (DISCARD, CHI, PENG, HU, PASS)

    def __init__(self, type, seat, card=None, groups=(), auto=False, think_ms=None):
        if type not in self.TYPES:
            raise IllegalActionError("bad_action", "Unknown action %r: use discard, chi, peng, hu or pass" % (type,),
                                     "未知操作 %r：可用 discard（出牌）、chi（吃）、peng（碰）、hu（胡）、pass（过）" % (type,))
        _seat_index(seat)
        _check_think_ms(think_ms)
        self.type = type
        self.seat = seat
        self.card = None
        self.groups = ()
        if type == DISCARD:
            if card is None:
                raise IllegalActionError("no_cards", "Choose the card to discard", "请选择要打出的牌")
            try:
                self.card = pz.card(card)
            except (InvalidCardError, TypeError) as e:
                raise IllegalActionError(getattr(e, "code", "bad_card"), str(e), getattr(e, "zh", str(e))) from None
        elif type == CHI:
            self.groups = _parse_groups(groups)
        self.auto = bool(auto)
        self.think_ms = think_ms

    @classmethod
    def _trusted(cls, type, seat, card=None, groups=(), auto=False, think_ms=None):
        """Build without validation: only for actions the engine made from checked data."""
        a = object.__new__(cls)
        a.type, a.seat, a.card, a.groups, a.auto, a.think_ms = type, seat, card, groups, auto, think_ms
        return a

    @classmethod
    def discard(cls, seat, card):
        return cls(DISCARD, seat, card=card)

    @classmethod
    def chi(cls, seat, groups):
        return cls(CHI, seat, groups=groups)

    @classmethod
    def peng(cls, seat):
        return cls(PENG, seat)

    @classmethod
    def hu(cls, seat):
        return cls(HU, seat)

    @classmethod
    def pass_(cls, seat):
        return cls(PASS, seat)

    def with_meta(self, auto=False, think_ms=None):
        """The same action marked as automatic and/or with the measured thinking time."""
        _check_think_ms(think_ms)
        return Action._trusted(self.type, self.seat, self.card, self.groups, bool(auto), think_ms)

    def to_dict(self):
        d = {"type": self.type, "seat": self.seat}
        if self.type == DISCARD:
            d["card"] = _name(self.card)
        elif self.type == CHI:
            d["groups"] = [pz.codes(g) for g in self.groups]
        return common.with_marks(d, self)

    @classmethod
    def from_dict(cls, d):
        """Parse an action from the wire or a log; anything malformed raises IllegalActionError."""
        auto = common.action_fields(d, ("type", "seat", "card", "groups", "auto", "think_ms"), IllegalActionError)
        return cls(d.get("type"), d.get("seat"), d.get("card"), d.get("groups", ()), auto, d.get("think_ms"))

    def _key(self):
        return self.type, self.seat, self.card, tuple(sorted(self.groups))

    def __repr__(self):
        if self.type == DISCARD:
            return "Action.discard(%r, %r)" % (self.seat, _name(self.card))
        if self.type == CHI:
            return "Action.chi(%r, %r)" % (self.seat, [pz.codes(g) for g in self.groups])
        return "Action.%s(%r)" % ("pass_" if self.type == PASS else self.type, self.seat)


def _parse_groups(groups):
    """A 吃's groups from the wire: a non-empty list of three-card groups, each a sorted tuple."""
    if not isinstance(groups, (list, tuple)) or not groups or len(groups) > 4:
        raise IllegalActionError("bad_action", "chi needs groups: the group with the card out, then the 比牌 groups",
                                 "吃牌需要给出组合：含所吃牌的一组，以及比牌的各组")
    out = []
    for g in groups:
        try:
            cs = pz.cards(g)
        except (InvalidCardError, TypeError) as e:
            raise IllegalActionError(getattr(e, "code", "bad_card"), str(e), getattr(e, "zh", str(e))) from None
        if len(cs) != 3:
            raise IllegalActionError("not_a_group", "A group of a 吃 is three cards, not %s" % " ".join(pz.codes(cs)),
                                     "吃的每组是三张牌，而不是 %s" % " ".join(pz.codes(cs)))
        out.append(cs)
    return tuple(out)


# ---- the outcome ----------------------------------------------------------------------

class Result:
    """What a finished deal yields (data): the winner (None: 荒庄), how it won, its groups, 胡息,
    囤, 番 and 名堂, the zero-sum scores, places (equal scores share one), the hands left, and
    the hub's tallies (auto moves, think times)."""

    __slots__ = ("winner", "self_drawn", "card", "huxi", "tun", "fan", "names", "groups", "scores", "places",
                 "hands_left", "auto_moves", "think_ms")

    def __init__(self, **fields):
        for name in self.__slots__:
            setattr(self, name, fields[name])

    def to_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}


# ---- the state machine ------------------------------------------------------------------

class _Group:
    """An open group: ``kind`` (chi peng wei pao ti), its cards, and whether it is face down to
    the other seats (a 偎, and a 提 made from one; a 臭偎 is shown)."""

    __slots__ = ("kind", "cards", "hidden")

    def __init__(self, kind, cards, hidden=False):
        self.kind, self.cards, self.hidden = kind, tuple(cards), hidden

    def seen(self, owner):
        return owner or not self.hidden

    def to_view(self, owner):
        return {"kind": self.kind, "cards": pz.codes(self.cards) if self.seen(owner) else None}

    def pair(self):
        return self.kind, self.cards


def _count(hand, c):
    n = 0
    for x in hand:
        if x == c:
            n += 1
    return n


def _remove(hand, c, n):
    for _ in range(n):
        hand.remove(c)


class Paohuzi:
    """The state of one Paohuzi deal.  Create it from a :class:`Deal` and optional :class:`Rules`;
    the 提 at the deal are made at once (:attr:`opening` holds their events)."""

    game = GAME
    seats = SEATS

    def __init__(self, deal, rules=None):
        if not isinstance(deal, Deal):
            raise TypeError("Paohuzi needs a Deal, not %r" % (deal,))
        self.rules = rules if rules is not None else Rules()
        self.deal = deal
        self.hands = [list(deal.hands[s]) for s in SEATS]
        self.open = [[] for _ in SEATS]  # _Group each, in the order made
        self.piles = [[] for _ in SEATS]  # cards nobody took, before the seat that discarded/turned them
        self.stock = list(deal.stock)
        self.stale = [set() for _ in SEATS]  # 臭牌: cards the seat declined to 吃 or 碰
        self.refused_peng = [set() for _ in SEATS]  # declined 碰: a later 偎 of it is a 臭偎 (shown)
        self.moves = [0] * 3  # 跑 and 提 made: from the second on, no discard follows (重跑)
        self.skips = [0] * 3  # discards a seat dealt several 提 does not make
        self.phase = DISCARD
        self.turn = DEALER
        self.out = None  # (card, seat index, STOCK or DISCARDED): the card in the middle
        self.may = {}  # in a claim: seat index -> {"hu": win or None, "peng": bool, "chi": [choices]}
        self.pao = None  # in a claim: the seat that must 跑 the card if nobody wins with it
        self.decided = {}  # in a claim: seat index -> Action
        self.winner = None
        self.win = None  # (huxi, groups, self_drawn, card) of the win
        self.actions = []
        self.opening = [{"type": "deal", "dealer": SEATS[DEALER], "shown": _name(deal.shown), "stock": len(self.stock)}]
        ev = self.opening
        for i in range(3):
            n = 0
            for c in range(20):
                if _count(self.hands[i], c) == 4:  # 提 at the deal
                    _remove(self.hands[i], c, 4)
                    self.open[i].append(_Group(TI, (c,) * 4))
                    ev.append({"type": TI, "seat": SEATS[i], "cards": pz.codes((c,) * 4), "from": "deal"})
                    n += 1
            self.moves[i] = n
            self.skips[i] = max(0, n - 1)
        self._discard_turn(DEALER, ev)

    # -- who acts, and what may they do ----------------------------------------------------

    def to_act(self):
        """The seats whose decision the game waits for: the discarder, or the undecided asked seats."""
        if self.phase == DISCARD:
            return (SEATS[self.turn],)
        if self.phase == CLAIM:
            return tuple(SEATS[j] for j in sorted(self.may) if j not in self.decided)
        return ()

    def _discardable(self, i):
        """The cards seat ``i`` may discard: any card not of a 坎, or any card if it holds only 坎."""
        hand = self.hands[i]
        free = sorted(set(c for c in hand if _count(hand, c) < 3))
        return free if free else sorted(set(hand))

    def legal_actions(self, seat):
        """Every legal action of ``seat`` now: the cards it may discard (lowest first); or in a claim
        胡, 碰, each 吃 choice, then pass.  Empty when it is not the seat's decision."""
        i = _seat_index(seat)
        if seat not in self.to_act():
            return []
        if self.phase == DISCARD:
            return [Action._trusted(DISCARD, seat, c) for c in self._discardable(i)]
        m = self.may[i]
        out = []
        if m["hu"]:
            out.append(Action._trusted(HU, seat))
        if m["peng"]:
            out.append(Action._trusted(PENG, seat))
        for choice in m["chi"]:
            out.append(Action._trusted(CHI, seat, None, choice))
        out.append(Action._trusted(PASS, seat))
        return out

    def verify(self, action):
        """Raise :class:`IllegalActionError` with the precise reason if ``action`` is illegal now."""
        if not isinstance(action, Action):
            raise IllegalActionError("bad_action", "Not an action: %r" % (action,), "不是有效操作")
        i = _seat_index(action.seat)
        if self.phase == OVER:
            raise IllegalActionError("deal_over", "This deal is over", "本副牌已结束")
        if self.phase == DISCARD:
            self._verify_discard(i, action)
        else:
            self._verify_claim(i, action)

    def _verify_discard(self, i, action):
        whose = SEATS[self.turn]
        if action.type != DISCARD:
            raise IllegalActionError("nothing_to_claim", "No card is out to claim: %s is to discard" % whose,
                                     "现在没有可以进的牌：等待%s出牌" % _zh(whose))
        if i != self.turn:
            raise IllegalActionError("not_your_turn", "It is not your turn: %s is to discard" % whose,
                                     "还没轮到你：等待%s出牌" % _zh(whose))
        hand = self.hands[i]
        c = action.card
        if c not in hand:
            raise IllegalActionError("not_in_hand", "You do not hold %s" % _name(c), "你没有这张牌：%s" % _name(c))
        if c not in self._discardable(i):
            raise IllegalActionError("kan_split", "%s is one of your 坎 of three, which may not be split" % _name(c),
                                     "%s 是你的坎，坎不能拆开打出" % _name(c))

    def _verify_claim(self, i, action):
        c, by, src = self.out
        if action.type == DISCARD:
            raise IllegalActionError("wrong_phase", "Not now: %s is out, decide on it first" % _name(c),
                                     "现在不能出牌：请先对 %s 作出选择" % _name(c))
        if i in self.decided:
            raise IllegalActionError("already_decided", "You have already decided on %s" % _name(c),
                                     "你已经对 %s 作出了选择" % _name(c))
        m = self.may.get(i)
        if action.type == PASS:
            if m is None:
                raise IllegalActionError("not_your_claim", "You have nothing to decide on %s" % _name(c),
                                         "你对 %s 无需作出选择" % _name(c))
            return
        if action.type == HU:
            if m is not None and m["hu"]:
                return
            if src == DISCARDED and self.rules.win_card == "stock":
                raise IllegalActionError("no_win_on_discard", "Nobody may win on a discarded card (所胡牌为底牌)",
                                         "打出的牌不能胡：所胡牌必须是底牌")
            raise IllegalActionError("not_a_win", "%s does not complete a winning hand for you (7 门子, %d 胡息)"
                                     % (_name(c), self.rules.min_huxi),
                                     "%s 不能让你胡牌（需 7 门子、至少 %d 胡息）" % (_name(c), self.rules.min_huxi))
        hand = self.hands[i]
        if c in self.stale[i]:
            raise IllegalActionError("stale", "You declined %s before: it is 臭牌 for you this deal" % _name(c),
                                     "%s 是你放弃过的牌（臭牌），本副不能再吃或碰" % _name(c))
        if action.type == PENG:
            if m is not None and m["peng"]:
                return
            if i == by:
                raise IllegalActionError("own_card", "You cannot 碰 a card you %s yourself"
                                         % ("turned up" if src == STOCK else "discarded"),
                                         "不能碰自己%s的牌" % ("翻出" if src == STOCK else "打出"))
            if _count(hand, c) != 2:
                raise IllegalActionError("no_pair", "You hold no pair of %s to 碰" % _name(c),
                                         "你没有一对 %s，不能碰" % _name(c))
            if len(hand) > 2:
                raise IllegalActionError("not_your_claim", "You may not 碰 %s now" % _name(c), "你现在不能碰 %s" % _name(c))
            raise IllegalActionError("no_card_left", "After a 碰 you would hold no card to discard",
                                     "碰牌后手中无牌可打，不能碰")
        # CHI
        self._verify_chi(i, action.groups, m)

    def _verify_chi(self, i, groups, m):
        c, by, src = self.out
        hand = self.hands[i]
        if not (i == (by + 1) % 3 or (src == STOCK and i == by)):
            if src == STOCK:
                raise IllegalActionError("not_your_chi", "Only %s, who turned %s up, and their 下家 may 吃 it"
                                         % (SEATS[by], _name(c)),
                                         "只有翻牌的%s及其下家可以吃 %s" % (_zh(SEATS[by]), _name(c)))
            raise IllegalActionError("not_your_chi", "Only the discarder's 下家 (%s) may 吃 %s"
                                     % (SEATS[(by + 1) % 3], _name(c)),
                                     "只有出牌者的下家（%s）可以吃 %s" % (_zh(SEATS[(by + 1) % 3]), _name(c)))
        if self.pao is not None:
            raise IllegalActionError("outranked", "%s must be 跑 by the seat that holds three of it" % _name(c),
                                     "%s 必须由持有三张的一家跑牌，不能吃" % _name(c))
        laid = [x for g in groups for x in g]
        if _count(laid, c) < 1:
            raise IllegalActionError("no_card_out", "A 吃 must use %s, the card out" % _name(c),
                                     "吃牌必须用上 %s" % _name(c))
        for g in groups:
            if not pz.is_group("chi", g):
                raise IllegalActionError("not_a_group", "%s is neither a 句 nor a 绞" % " ".join(pz.codes(g)),
                                         "%s 既不是句也不是绞" % " ".join(pz.codes(g)))
        need = list(laid)
        need.remove(c)
        left = list(hand)
        missing = []
        for x in need:
            if x in left:
                left.remove(x)
            else:
                missing.append(x)
        if missing:
            raise IllegalActionError("not_in_hand", "You do not hold %s" % " ".join(pz.codes(missing)),
                                     "你没有这些牌：%s" % " ".join(pz.codes(missing)))
        kan = [x for x in set(need) if _count(hand, x) >= 3]
        if kan:
            raise IllegalActionError("kan_split", "%s is one of your 坎 of three, which may not be split"
                                     % _name(kan[0]), "%s 是你的坎，坎不能拆开吃牌" % _name(kan[0]))
        copies = _count(hand, c)
        if _count(laid, c) != copies + 1:
            raise IllegalActionError(
                "bipai", "比牌: you hold %d more %s; every copy must go down in groups in the same 吃"
                % (copies, _name(c)),
                "比牌：你手中还有 %d 张 %s，必须在同一次吃牌时全部组成句或绞亮出" % (copies, _name(c)))
        choice = pz.chi_choice(c, hand, groups)
        if choice is None:
            raise IllegalActionError("not_a_chi", "These groups are not a 吃 of %s" % _name(c),
                                     "这些组合不能吃 %s" % _name(c))
        if not left:
            raise IllegalActionError("no_card_left", "After this 吃 you would hold no card to discard",
                                     "吃牌后手中无牌可打，不能这样吃")
        if m is None or not m["chi"]:  # every other reason is above
            raise IllegalActionError("not_your_claim", "You may not 吃 %s" % _name(c), "你不能吃 %s" % _name(c))

    def can(self, action):
        """True if ``action`` is legal now."""
        return common.can(self, action, IllegalActionError)

    def default_action(self, seat):
        """What the rules do for ``seat`` when its clock runs out (RULES.md timers), marked ``auto``:
        in a claim, pass (compulsory moves were made already); on a discard, the card that breaks
        the fewest groups in hand (:meth:`fewest_broken`)."""
        i = _seat_index(seat)
        if seat not in self.to_act():
            raise IllegalActionError("not_your_turn", "Seat %s has no decision to make now" % seat,
                                     "%s现在无需操作" % _zh(seat))
        if self.phase == CLAIM:
            return Action._trusted(PASS, seat, auto=True)
        return Action._trusted(DISCARD, seat, self.fewest_broken(i), auto=True)

    def fewest_broken(self, i):
        """The fixed discard rule: of the cards seat ``i`` may discard, the one in the fewest
        possible groups with its other hand cards (pairs, 句, 绞; 坎 cards not counted), then a
        small card before a big one, then the lowest."""
        hand = self.hands[i]
        n = pz.counts(hand)
        for x in range(20):
            if n[x] >= 3:
                n[x] = 0
        best = None
        for c in self._discardable(i):
            k = _groups_of(c, n)
            key = (k, c >= pz.BIG, c)
            if best is None or key < best[0]:
                best = (key, c)
        return best[1]

    def time_limit(self, seat=None):
        """Seconds allowed for the current decision (the hub's clock; the engine has none)."""
        if self.phase == CLAIM:
            return self.rules.claim_seconds
        if self.phase == DISCARD:
            return self.rules.discard_seconds
        return 0

    # -- applying -----------------------------------------------------------------------------

    def apply(self, action):
        """Verify and apply ``action``; return the public events it caused (a list of dicts).

        Events never carry a hidden card (a 偎's) nor who is asked about a card: a claim decision
        that does not settle the claim causes no event at all.
        """
        self.verify(action)
        i = SEATS.index(action.seat)
        ev = []
        if action.type == DISCARD:
            self.actions.append(action)
            c = action.card
            self.hands[i].remove(c)
            ev.append({"type": DISCARD, "seat": action.seat, "card": _name(c)})
            self.out = (c, i, DISCARDED)
            self._open_claims(ev)
            return ev
        if action.type == CHI:  # logged with the groups in the engine's order (the card out's group first)
            action = Action._trusted(CHI, action.seat, None, pz.chi_choice(self.out[0], self.hands[i], action.groups),
                                     action.auto, action.think_ms)
        self.actions.append(action)
        self.decided[i] = action
        if action.type == PASS:
            c = self.out[0]
            m = self.may[i]
            if m["peng"] or m["chi"]:
                self.stale[i].add(c)  # 臭牌
            if m["peng"]:
                self.refused_peng[i].add(c)
        self._resolve(ev)
        return ev

    def _discard_turn(self, i, ev):
        """Seat ``i`` is to discard; a seat that owes no discard (several 提 at the deal) or holds
        nothing lets its 下家 turn up instead."""
        if self.skips[i] > 0 or not self.hands[i]:
            if self.skips[i] > 0:
                self.skips[i] -= 1
            ev.append({"type": "no_discard", "seat": SEATS[i]})
            self._turn_up((i + 1) % 3, ev)
            return
        self.phase = DISCARD
        self.turn = i
        self.out = None
        ev.append({"type": "turn", "seat": SEATS[i]})

    def _after_four(self, i, ev):
        """After a 跑 or 提 of seat ``i``: its first is followed by a discard, a later one (重跑) not."""
        self.moves[i] += 1
        if self.moves[i] >= 2:
            self._turn_up((i + 1) % 3, ev)
        else:
            self._discard_turn(i, ev)

    def _turn_up(self, i, ev):
        """Seat ``i`` turns up the top stock card: its own 提 or 偎 first, else the card is out."""
        self.out = None
        self.may, self.decided, self.pao = {}, {}, None
        if not self.stock:
            self._end(ev)  # 荒庄
            return
        c = self.stock.pop(0)
        self.turn = i
        seat = SEATS[i]
        hand = self.hands[i]
        wei = [g for g in self.open[i] if g.kind == WEI and g.cards[0] == c]
        if _count(hand, c) == 3:  # 提 onto a 坎 in hand
            _remove(hand, c, 3)
            self.open[i].append(_Group(TI, (c,) * 4))
            ev.append({"type": "turn_up", "seat": seat, "card": _name(c), "stock": len(self.stock)})
            ev.append({"type": TI, "seat": seat, "cards": pz.codes((c,) * 4), "from": "kan"})
        elif wei:  # 提 onto one's 偎: face down as the 偎 was
            g = wei[0]
            g.kind, g.cards = TI, (c,) * 4
            shown = None if g.hidden else _name(c)
            ev.append({"type": "turn_up", "seat": seat, "card": shown, "stock": len(self.stock)})
            ev.append({"type": TI, "seat": seat, "cards": None if g.hidden else pz.codes(g.cards), "from": "wei"})
        elif _count(hand, c) == 2:  # 偎 onto a pair; 臭偎 (shown) after declining to 碰 it
            _remove(hand, c, 2)
            chou = c in self.refused_peng[i]
            self.open[i].append(_Group(WEI, (c,) * 3, hidden=not chou))
            ev.append({"type": "turn_up", "seat": seat, "card": _name(c) if chou else None, "stock": len(self.stock)})
            ev.append({"type": WEI, "seat": seat, "cards": pz.codes((c,) * 3) if chou else None, "chou": chou})
        else:
            ev.append({"type": "turn_up", "seat": seat, "card": _name(c), "stock": len(self.stock)})
            self.out = (c, i, STOCK)
            self._open_claims(ev)
            return
        # a compulsory 提 or 偎 that completes a winning hand wins (自摸)
        w = pz.win(tuple(hand), [g.pair() for g in self.open[i]], self.rules.men, self.rules.min_huxi)
        if w is not None:
            self.winner = i
            self.win = (w[0], w[1], True, c)
            ev.append({"type": HU, "seat": seat, "card": _name(c), "by": seat, "self_drawn": True, "compulsory": True})
            self._end(ev)
        elif self.open[i][-1].kind == TI or wei:  # the group made is the last one, or the 偎 turned 提
            self._after_four(i, ev)
        else:
            self._discard_turn(i, ev)

    def _win_with(self, j, c, by, src):
        """``(huxi, groups)`` if seat ``j`` wins with the card out ``c``, else None (RULES.md: a card
        joining a 坎, 偎 or 碰 is a 跑; one making three of a kind with a pair is a 偎 for the turner,
        a 碰 for another seat — option ``pair_win``)."""
        if src == DISCARDED and (self.rules.win_card == "stock" or j == by):
            return None
        opened = [g.pair() for g in self.open[j]]
        men, least = self.rules.men, self.rules.min_huxi
        if src == STOCK and self.rules.pair_win == "wei_peng":  # the default: the shared check as it is
            return pz.win_on(c, self.hands[j], opened, j == by, men, least)
        # a discard (win_card "any": it never joins a 碰), or a pair that stays a 坎 in hand (pair_win "kan")
        hand = list(self.hands[j])
        n = _count(hand, c)
        onto = [k for k, g in enumerate(self.open[j]) if g.kind in (WEI, pz.PENG) and g.cards[0] == c]
        if n == 3:
            _remove(hand, c, 3)
            opened.append((PAO, (c,) * 4))
        elif onto and (src == STOCK or self.open[j][onto[0]].kind == WEI):
            opened[onto[0]] = (PAO, (c,) * 4)
        elif n == 2 and self.rules.pair_win == "wei_peng":
            _remove(hand, c, 2)
            opened.append((pz.PENG, (c,) * 3))
        else:
            hand.append(c)
        return pz.win(tuple(sorted(hand)), opened, men, least)

    def _open_claims(self, ev):
        """The card out may be claimed: ask every seat that may act, all at once; or settle it now."""
        c, by, src = self.out
        self.may, self.decided, self.pao = {}, {}, None
        for j in range(3):
            if j == by:
                continue
            hand = self.hands[j]
            if _count(hand, c) == 3 or any(g.kind == WEI and g.cards[0] == c for g in self.open[j]):
                self.pao = j  # a 坎 or 偎 of it: 跑
        for j in range(3):
            if src == STOCK and any(g.kind == pz.PENG and g.cards[0] == c for g in self.open[j]):
                self.pao = j  # a 碰 of a turned-up card: 跑 (never of a discard)
        for k in range(3):
            j = (by + k) % 3
            w = self._win_with(j, c, by, src)
            peng = (self.pao is None and j != by and c not in self.stale[j] and _count(self.hands[j], c) == 2
                    and len(self.hands[j]) > 2)
            chi = []
            if self.pao is None and c not in self.stale[j] and (j == (by + 1) % 3 or (src == STOCK and j == by)):
                left = len(self.hands[j])
                chi = [ch for ch in pz.chi_choices(c, self.hands[j]) if left - 3 * len(ch) + 1 > 0]
            if w is not None or peng or chi:
                self.may[j] = {"hu": w, "peng": peng, "chi": chi}
        if self.may:
            self.phase = CLAIM
            self.turn = by
            ev.append({"type": "claim", "card": _name(c), "by": SEATS[by], "from": src})
            return
        self._settle(ev)

    def _order(self):
        """The claims on the card out in priority order: ``(seat index, type)``."""
        c, by, src = self.out
        seats = [(by + k) % 3 for k in range(3)]
        out = [(j, HU) for j in seats if j in self.may and self.may[j]["hu"]]
        out += [(j, PENG) for j in seats if j in self.may and self.may[j]["peng"]]
        out += [(j, CHI) for j in seats if j in self.may and self.may[j]["chi"]]
        return out

    def _resolve(self, ev):
        """Settle the claim once the decided claims decide it: the first claim in priority order
        whose seat chose it wins; an undecided seat ahead of it keeps the claim open."""
        for j, kind in self._order():
            if j not in self.decided:
                return
            if self.decided[j].type == kind:
                self._take(j, self.decided[j], ev)
                return
        self._settle(ev)

    def _settle(self, ev):
        """Nobody claimed the card out: the compulsory 跑, or the card goes to the pile."""
        c, by, src = self.out
        self.may, self.decided = {}, {}
        if self.pao is not None:
            j = self.pao
            self.pao = None
            self._pao(j, c, by, ev)
            return
        self.piles[by].append(c)
        self.out = None
        ev.append({"type": "pile", "seat": SEATS[by], "card": _name(c)})
        self._turn_up((by + 1) % 3, ev)

    def _pao(self, j, c, by, ev):
        hand = self.hands[j]
        seat = SEATS[j]
        self.out = None
        if _count(hand, c) == 3:
            _remove(hand, c, 3)
            self.open[j].append(_Group(PAO, (c,) * 4))
            source = "kan"
        else:
            g = [g for g in self.open[j] if g.kind in (WEI, pz.PENG) and g.cards[0] == c][0]
            source = g.kind
            g.kind, g.cards, g.hidden = PAO, (c,) * 4, False  # a 跑 is shown
        ev.append({"type": PAO, "seat": seat, "cards": pz.codes((c,) * 4), "card": _name(c), "by": SEATS[by],
                   "from": source})
        self._after_four(j, ev)

    def _take(self, j, action, ev):
        """Seat ``j``'s claim of the card out wins: 胡, 碰 or 吃."""
        c, by, src = self.out
        seat = SEATS[j]
        if action.type == HU:
            w = self.may[j]["hu"]
            self.winner = j
            self.win = (w[0], w[1], src == STOCK and j == by, c)
            self.out = None
            ev.append({"type": HU, "seat": seat, "card": _name(c), "by": SEATS[by], "self_drawn": self.win[2],
                       "compulsory": False})
            self._end(ev)
            return
        self.may, self.decided, self.pao = {}, {}, None
        self.out = None
        hand = self.hands[j]
        if action.type == PENG:
            _remove(hand, c, 2)
            self.open[j].append(_Group(pz.PENG, (c,) * 3))
            ev.append({"type": PENG, "seat": seat, "cards": pz.codes((c,) * 3), "card": _name(c), "by": SEATS[by]})
        else:
            laid = [x for g in action.groups for x in g]
            laid.remove(c)
            for x in laid:
                hand.remove(x)
            for g in action.groups:
                self.open[j].append(_Group(CHI, g))
            ev.append({"type": CHI, "seat": seat, "groups": [pz.codes(g) for g in action.groups], "card": _name(c),
                       "by": SEATS[by]})
        self._discard_turn(j, ev)

    def _end(self, ev):
        self.phase = OVER
        self.out = None
        self.may, self.decided, self.pao = {}, {}, None
        ev.append({"type": "deal_end", "result": self.result().to_dict()})

    # -- what each seat may see -----------------------------------------------------------------

    def _may_view(self, i):
        m = self.may[i]
        return {"hu": m["hu"] is not None, "peng": m["peng"], "chi": [[pz.codes(g) for g in ch] for ch in m["chi"]]}

    def view(self, seat=None):
        """Everything ``seat`` may see, as plain data; ``seat=None`` is the public (referee) view.

        Own hand, what it may claim on the card out and its 臭牌; every seat's card count, open
        groups (another seat's 偎 face down: ``"cards": null``) and their 胡息 as far as seen,
        the piles, the card out and who turned up or discarded it, the stock count.  In a claim
        ``to_act`` is ``[seat]`` if the seat is asked and undecided, else ``[]``: nobody learns
        who else is asked.
        """
        me = None if seat is None else _seat_index(seat)
        if self.phase == CLAIM:
            to_act = [seat] if me is not None and me in self.may and me not in self.decided else []
        else:
            to_act = list(self.to_act())
        v = {
            "game": GAME,
            "board": self.deal.board,
            "phase": self.phase,
            "seat": seat,
            "dealer": SEATS[DEALER],
            "shown": _name(self.deal.shown),
            "turn": SEATS[self.turn] if self.phase != OVER else None,
            "to_act": to_act,
            "counts": {SEATS[k]: len(self.hands[k]) for k in range(3)},
            "open": {SEATS[k]: [g.to_view(k == me) for g in self.open[k]] for k in range(3)},
            "huxi": {SEATS[k]: sum(pz.huxi(g.kind, g.cards) for g in self.open[k] if g.seen(k == me))
                     for k in range(3)},
            "piles": {SEATS[k]: pz.codes(self.piles[k]) for k in range(3)},
            "out": None,
            "stock": len(self.stock),
            "time_limit": self.time_limit(),
        }
        if self.out is not None:
            c, by, src = self.out
            v["out"] = {"card": _name(c), "by": SEATS[by], "from": src}
        if me is not None:
            v["hand"] = pz.codes(sorted(self.hands[me]))
            v["stale"] = pz.codes(sorted(self.stale[me]))
            if self.phase == CLAIM and me in self.may and me not in self.decided:
                v["may"] = self._may_view(me)
        if self.phase == OVER:
            v["result"] = self.result().to_dict()
        return v

    # -- the outcome --------------------------------------------------------------------------

    def result(self):
        """The :class:`Result` of a finished deal: 荒庄 scores 0 for all; a winner receives 囤 × 番
        from each of the two others."""
        if self.phase != OVER:
            raise IllegalActionError("not_over", "The deal is not over yet", "本副牌尚未结束")
        auto, think = common.tallies(self.actions, SEATS)
        hands_left = {SEATS[k]: pz.codes(sorted(self.hands[k])) for k in range(3)}
        if self.winner is None:
            scores = pz.settle(None, 0, 0, SEATS)
            return Result(winner=None, self_drawn=False, card=None, huxi=0, tun=0, fan=0, names=[], groups=[],
                          scores=scores, places={s: 1 for s in SEATS}, hands_left=hands_left, auto_moves=auto,
                          think_ms=think)
        huxi, groups, self_drawn, c = self.win
        tun, fan, names = pz.score(groups, self_drawn, self.rules.cards)
        scores = pz.settle(SEATS[self.winner], tun, fan, SEATS)
        return Result(winner=SEATS[self.winner], self_drawn=self_drawn, card=_name(c), huxi=huxi, tun=tun, fan=fan,
                      names=list(names), groups=[{"kind": k, "cards": pz.codes(cs)} for k, cs in groups],
                      scores=scores,
                      places={s: 1 + sum(1 for x in scores.values() if x > scores[s]) for s in SEATS},
                      hands_left=hands_left, auto_moves=auto, think_ms=think)

    # -- logs and replay ----------------------------------------------------------------------

    def record(self):
        """The deal's log as plain data: rules, deal and every decision.  ``from_record`` replays it."""
        return {"game": GAME, "rules": self.rules.to_dict(), "deal": self.deal.to_dict(),
                "actions": [a.to_dict() for a in self.actions]}

    @classmethod
    def from_record(cls, record):
        """Replay a logged deal through the engine; an illegal logged action raises with its index."""
        common.check_record(record, GAME, "Paohuzi")
        state = cls(Deal.from_dict(record["deal"]), Rules.from_dict(record.get("rules")))
        return common.replay_actions(state, record.get("actions", []), Action.from_dict, IllegalActionError)

    def snapshot(self):
        """The complete state (hidden cards included) for equality checks; never send it to a seat."""
        return {
            "phase": self.phase, "turn": self.turn, "hands": [pz.codes(sorted(h)) for h in self.hands],
            "open": [[[g.kind, pz.codes(g.cards), g.hidden] for g in gs] for gs in self.open],
            "piles": [pz.codes(p) for p in self.piles], "stock": pz.codes(self.stock),
            "stale": [pz.codes(sorted(s)) for s in self.stale],
            "refused_peng": [pz.codes(sorted(s)) for s in self.refused_peng],
            "moves": list(self.moves), "skips": list(self.skips),
            "out": None if self.out is None else [_name(self.out[0]), self.out[1], self.out[2]],
            "may": sorted([j, self._may_view(j)] for j in self.may) if self.may else [],
            "pao": self.pao, "decided": sorted([j, a.to_dict()] for j, a in self.decided.items()),
            "winner": self.winner, "actions": [a.to_dict() for a in self.actions],
        }


def _groups_of(c, n):
    """How many possible groups of hand cards (counts ``n``) hold ``c``: its pair, 绞 and 句."""
    k = 0
    other = c + pz.BIG if c < pz.BIG else c - pz.BIG
    if n[c] >= 2:
        k += 1  # a pair (a 将, or a 碰 or 偎 to come)
        if n[other] >= 1:
            k += 1  # 绞 of two of c
    if n[other] >= 2:
        k += 1  # 绞 of two of the other case
    r = c % 10
    base = c - r
    for lo in range(max(0, r - 2), min(7, r) + 1):
        if all(n[base + x] for x in (lo, lo + 1, lo + 2) if base + x != c):
            k += 1
    if r in pz.RED and all(n[base + x] for x in (1, 6, 9) if base + x != c):
        k += 1
    return k
