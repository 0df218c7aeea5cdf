"""Guandan (竞技掼蛋) plays: every meaning a set of cards has, what beats what, every legal play.

Pure code shared by the hub's engine and the seat board (a seat may pre-check a selection
with ``classify`` and ``beats``; the hub lists and decides).  Two 54-card decks: a card code
is the same text in both, so a hand may hold a code twice.  Cards are small integers:

    card = rank * 4 + suit,  rank 0..12 = 2 3 4 5 6 7 8 9 T J Q K A (natural order),
    suit 0..3 = ♦ ♣ ♥ ♠;  小王 BJ = 52, 大王 RJ = 53

A hand or a set of cards is a sorted tuple of them, duplicates allowed (``cards()``).  The
level (``Rules(level=...)``) sets the single order — 大王 > 小王 > level card > A > … > 2 —
and the two wild cards: the hearts of the level rank (逢人配), each standing for any card
but a joker.  In 三连对, 钢板, 顺子 and 同花顺 every card counts at its natural value and
A may also count as 1.

``classify`` gives every meaning a set of cards can have (a :class:`Play` each; with wild
cards there can be several, and the player chooses), ``beats`` compares two meanings,
``plays`` lists every legal play of a hand (every set of cards and meaning, once), and
``plays_by_kind`` one play for each kind, size and rank (fast, for bots).

>>> r = Rules(level="5")                           # ♥5 is wild
>>> [p.name for p in classify(cards("3H 4H 5H 6H 7H"), r)]
['straight:7', 'straight_flush:7']
>>> [p.name for p in classify(cards("3S 3D 3C 5H 5H"), r)]   # the seat asks which one
['full_house:3', 'bomb:3']
>>> [p.name for p in classify(cards("JD QD KS AS 2C"), r)]   # JQKA2 is no straight
[]
>>> sf, bomb = classify(cards("3H 4H 5H 6H 7H"), r)[1], classify(cards("8S 8D 8C 8H 8S"), r)[0]
>>> beats(sf, bomb, r), beats(bomb, sf, r)          # 同花顺 > 5-card bomb
(True, False)
"""

import gc
import sys

from .cards import DECK108, InvalidCardError, in_deck, parse, suit_first

RANKS = "23456789TJQKA"  # natural order, rank 0..12
SUITS = "DCHS"  # ♦ ♣ ♥ ♠
HEART = 2
BJ = 52  # 小王
RJ = 53  # 大王
LEVEL_VALUE = 13  # single-order value of a level card: above A (12), below the jokers (14, 15)
BJ_KEY = 14 * 16 + 13  # group keys are value * 16 + rank (13 and 14 name the jokers)
RJ_KEY = 15 * 16 + 14

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
FULL_HOUSE = "full_house"  # 三带对
PAIR_RUN = "pair_run"  # 三连对
TRIPLE_RUN = "triple_run"  # 钢板
STRAIGHT = "straight"  # 顺子
BOMB = "bomb"  # 炸弹, 4 to 10 cards of one rank
STRAIGHT_FLUSH = "straight_flush"  # 同花顺
JOKER_BOMB = "joker_bomb"  # 四大天王
KINDS = (SINGLE, PAIR, TRIPLE, FULL_HOUSE, PAIR_RUN, TRIPLE_RUN, STRAIGHT, BOMB, STRAIGHT_FLUSH,
         JOKER_BOMB)
GROUPS = (None, SINGLE, PAIR, TRIPLE)  # the kind of 1, 2, 3 cards of one rank
KIND_NAMES_ZH = {
    SINGLE: "单张", PAIR: "对子", TRIPLE: "三同张", FULL_HOUSE: "三带对", PAIR_RUN: "三连对",
    TRIPLE_RUN: "钢板", STRAIGHT: "顺子", BOMB: "炸弹", STRAIGHT_FLUSH: "同花顺", JOKER_BOMB: "四大天王",
}

# The bomb ladder as one integer, Play.power: a non-bomb's power is its key (< 256); a bomb's
# is tier * 256 + key.  四大天王 > 6+-card bombs (by size) > 同花顺 > 5-card bomb > 4-card bomb.
BOMB_POWER = 256
SF_TIER = 3
JOKER_TIER = 9

LONE_WILDS = (
    "level",  # [decision] wild cards played alone (a single, a pair of both) are level cards
    "any",  # a wild card alone may stand for any card but a joker (♥level as a single 3)
)


class Rules:
    """The rule options of Guandan's plays.  Each is a decision of RULES.md; defaults are the project's.

    - ``level``: the rank being played, ``"2"`` … ``"A"`` (``"10"`` is accepted for ``"T"``).
      Its 8 cards are 级牌; its two hearts are wild.
    - ``lone_wild``: ``"level"`` (a wild card played alone, or the two as a pair, is what it
      is: level cards; seed 002 第二条14 — they stand in "参与…组合") or ``"any"`` (even alone
      a wild card may stand for any card but a joker).
    - ``wild_breaks_flush``: ``True`` (a wild card may stand for a card of another suit, so four
      suited cards and a wild are a 顺子 as well as a 同花顺; the player says which) or ``False``
      (such a set is only a 同花顺).
    - ``joker_pair_full_house``: ``True`` (三带对 may carry two jokers of one colour, which seed 002
      第三条 counts as a pair) or ``False``.

    >>> Rules(level="10").level, Rules(level="A").wild == card("AH")
    ('T', True)
    >>> Rules(level="1")
    Traceback (most recent call last):
    ...
    ValueError: level must be a rank 2..9, T (or 10), J, Q, K or A, not '1'
    """

    OPTIONS = ("level", "lone_wild", "wild_breaks_flush", "joker_pair_full_house")

    def __init__(self, level="2", lone_wild="level", wild_breaks_flush=True, joker_pair_full_house=True):
        lv = level.upper() if isinstance(level, str) else level
        if lv == "10":
            lv = "T"
        if not isinstance(lv, str) or len(lv) != 1 or lv not in RANKS:
            raise ValueError("level must be a rank 2..9, T (or 10), J, Q, K or A, not %r" % (level,))
        if lone_wild not in LONE_WILDS:
            raise ValueError("lone_wild must be one of %s, not %r" % (", ".join(repr(o) for o in LONE_WILDS), lone_wild))
        for name, value in (("wild_breaks_flush", wild_breaks_flush), ("joker_pair_full_house", joker_pair_full_house)):
            if value is not True and value is not False:
                raise ValueError("%s must be true or false, not %r" % (name, value))
        self.level = lv
        self.lone_wild = lone_wild
        self.wild_breaks_flush = wild_breaks_flush
        self.joker_pair_full_house = joker_pair_full_house
        self.rank = RANKS.index(lv)  # the level rank, 0..12
        self.wild = self.rank * 4 + HEART  # the card number of both wild cards

    @classmethod
    def from_dict(cls, data):
        """Build from a mapping (a rules file or a log), refusing unknown option names."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("rules must be a mapping of option names to values, not %r" % (data,))
        for key in data:
            if key not in cls.OPTIONS:
                raise ValueError("unknown Guandan rule option %r; options are %s" % (key, ", ".join(cls.OPTIONS)))
        return cls(**data)

    def to_dict(self):
        return {name: getattr(self, name) for name in self.OPTIONS}

    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()

    def key(self, rank):
        """The key of a group (single, pair, triple, 三带对, bomb) of rank 0..12: value * 16 + rank,
        where the value is the rank itself, or 13 for the level rank (above A, below the jokers)."""
        return (LEVEL_VALUE if rank == self.rank else rank) * 16 + rank


# ---- cards -------------------------------------------------------------------------

def card(code):
    """The integer of a card code: ``card("2D") == 0``, ``card("AS") == 51``, ``card("RJ") == 53``."""
    if isinstance(code, int) and not isinstance(code, bool):
        if 0 <= code <= RJ:
            return code
        raise InvalidCardError("%r is not a card number 0..53" % (code,), "%r 不是牌号（0..53）" % (code,))
    if isinstance(code, str) and len(code) == 2:  # fast path for canonical codes
        r = RANKS.find(code[0])
        s = SUITS.find(code[1])
        if r >= 0 and s >= 0:
            return r * 4 + s
        if code == "BJ":
            return BJ
        if code == "RJ":
            return RJ
    c = parse(code)
    if not in_deck(c, DECK108):
        if suit_first(code):
            raise suit_first(code)
        raise InvalidCardError("%s is not a card of the two Guandan decks" % (c,), "%s 不是掼蛋的牌（两副 54 张）" % (c,))
    if c == "BJ":
        return BJ
    if c == "RJ":
        return RJ
    return RANKS.index(c[0]) * 4 + SUITS.index(c[1])


def code(c):
    """The text code of a card integer: ``code(0) == "2D"``, ``code(52) == "BJ"``."""
    if c >= BJ:
        return "BJ" if c == BJ else "RJ"
    return RANKS[c >> 2] + SUITS[c & 3]


def cards(items):
    """Parse codes or card numbers (a list, or one string separated by spaces or commas) into a sorted tuple.

    Two decks: a code may appear twice, not three times.

    >>> cards("RJ 2D 2D")
    (0, 0, 53)
    >>> cards("2D 2D 2D")
    Traceback (most recent call last):
    ...
    paizhuo_shared.cards.InvalidCardError: 2D appears 3 times; the two decks hold each card twice
    """
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    elif not isinstance(items, (list, tuple)):
        raise InvalidCardError("cards must be a list of codes like ['3D', '3S'], not %r" % (items,),
                               "牌必须是代码列表，例如 ['3D', '3S']")
    out = sorted(card(x) for x in items)
    for i in range(2, len(out)):
        if out[i] == out[i - 2]:
            raise InvalidCardError("%s appears 3 times; the two decks hold each card twice" % code(out[i]),
                                   "%s 出现了 3 次；两副牌每张牌只有两张" % code(out[i]), "duplicate_card")
    return tuple(out)


def codes(cs):
    """Text codes of card integers, in the given order."""
    return [code(c) for c in cs]


# ---- one meaning of a set of cards ----------------------------------------------------

class Play:
    """One meaning of a set of cards: kind, key, the cards, what each wild card stands for.

    - ``kind``: one of ``KINDS``; ``size``: the number of cards.
    - ``key``: an integer ordering plays of one kind (and, for bombs, one size); higher beats
      lower.  Singles, pairs, triples, 三带对 (by the triple) and bombs: value * 16 + rank, the
      value in single order (2 = 0 … A = 12, level 13, 小王 14, 大王 15; ``Rules.key``).  Runs:
      the natural value of the top card (A2345 → 5, TJQKA → 14).  四大天王: 0.
    - ``cards``: the card numbers: the natural cards ascending, then the wild cards (one order
      for every set, so equal sets compare equal; ``sorted(play.cards)`` is the ``cards()`` order).
    - ``stands``: the cards the wild cards stand for, sorted (one per wild card in ``cards``;
      a wild card used as itself stands for itself).  Where the suit cannot matter it is ♥,
      the wild card's own (♠ in a 顺子 of hearts, which must not turn into a flush).
    - ``power`` (computed): ``key`` for a non-bomb; tier * 256 + key for a bomb (the bomb
      ladder: 4-card 1, 5-card 2, 同花顺 3, 6 to 10 cards 4 to 8, 四大天王 9).

    Two plays are equal when kind, key and cards are: ``stands`` follows from them except
    where it cannot matter (the pair of a 三带对 made of two wild cards).
    """

    __slots__ = ("kind", "key", "cards", "stands")

    def __init__(self, kind, key, cs, stands):  # _play() below makes plays without it: keep them alike
        self.kind = kind
        self.key = key
        self.cards = cs
        self.stands = stands

    @property
    def power(self):
        """The place on the bomb ladder (a property: a MicroPython instance is a third
        smaller with one attribute less, and listings make many)."""
        kind = self.kind
        if kind == BOMB:
            return _bomb_power(len(self.cards), self.key)
        if kind == STRAIGHT_FLUSH:
            return SF_TIER * BOMB_POWER + self.key
        if kind == JOKER_BOMB:
            return JOKER_TIER * BOMB_POWER
        return self.key

    @property
    def size(self):
        return len(self.cards)

    @property
    def rank(self):
        """The deciding rank as text: the rank (or ``BJ``/``RJ``) of a group, the top card of a run."""
        k = self.key
        if self.kind == JOKER_BOMB:
            return None
        if self.kind in (PAIR_RUN, TRIPLE_RUN, STRAIGHT, STRAIGHT_FLUSH):
            return RANKS[k - 2]
        k &= 15
        if k <= 12:
            return RANKS[k]
        return "BJ" if k == 13 else "RJ"

    @property
    def name(self):
        """``kind:rank``, e.g. ``straight:7``, ``bomb:K``; ``joker_bomb`` alone."""
        if self.kind == JOKER_BOMB:
            return JOKER_BOMB
        return self.kind + ":" + self.rank

    def to_dict(self):
        return {"kind": self.kind, "rank": self.rank, "cards": codes(self.cards), "stands": codes(self.stands)}

    def __eq__(self, other):
        return (isinstance(other, Play) and self.kind == other.kind and self.key == other.key
                and self.cards == other.cards)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.kind, self.key, self.cards))

    def __repr__(self):
        return "Play(%r, %r)" % (self.name, " ".join(codes(self.cards)))


def _play(kind, key, cs, stands, new=object.__new__):
    """``Play(kind, key, cs, stands)``, a sixth faster on CPython (no interpreter frame entered
    from C for ``__init__``): ``plays()`` makes thousands."""
    p = new(Play)
    p.kind = kind
    p.key = key
    p.cards = cs
    p.stands = stands
    return p


def _bomb_power(size, key):
    return ((size - 3) if size < 6 else (size - 2)) * BOMB_POWER + key


def beats(play, over, rules=None):
    """True if the meaning ``play`` may be played over the meaning ``over``.

    A bomb beats every non-bomb and every lower bomb on the ladder (四大天王 > bombs of 6 to
    10 cards, larger first > 同花顺 > 5-card bomb > 4-card bomb); a non-bomb beats only the
    same kind with a higher key.  Suits never matter; ``rules`` is not needed (the level
    is already in the keys) and is accepted for symmetry with ``classify``.

    >>> r = Rules()
    >>> pair, bomb = classify(cards("AS AS"), r)[0], classify(cards("3D 3D 3C 3C"), r)[0]
    >>> beats(bomb, pair), beats(pair, bomb), beats(classify(cards("RJ RJ"), r)[0], pair)
    (True, False, True)
    """
    if play.power >= BOMB_POWER:
        return play.power > over.power
    return play.kind == over.kind and play.key > over.key and len(play.cards) == len(over.cards)


def _sort_meanings(out):
    out.sort(key=lambda p: (p.power, KINDS.index(p.kind)))
    return out


# ---- classification --------------------------------------------------------------------

def _window(start, length):
    """Natural ranks of the run positions start .. start+length-1 (position 1 is A, 2..14 are 2..A)."""
    return [12 if p == 1 else p - 2 for p in range(start, start + length)]


# CPython keeps a few small tables the listings ask for again and again; MicroPython makes
# them per call (a 64 KB heap would hold them for good) and keeps its collector running.
_CPYTHON = sys.implementation.name != "micropython"
_WINDOWS = {}


def _windows(length):
    """[(top, ranks ascending)] of every run of ``length`` ranks, made once (listings ask often)."""
    found = _WINDOWS.get(length)
    if found is None:
        found = [(start + length - 1, tuple(sorted(_window(start, length)))) for start in range(1, 16 - length)]
        if _CPYTHON:
            _WINDOWS[length] = found
    return found


def classify(cs, rules):
    """Every meaning of a set of cards (sorted, as ``cards()`` returns): a list of :class:`Play`,
    weakest first, empty if the cards are no play.  More than one meaning only with wild cards.

    >>> r = Rules(level="2")                     # ♥2 is wild
    >>> [p.name for p in classify(cards("3S 4D 5C 2H 2H"), r)]   # A2345, 23456 or 34567
    ['straight:5', 'straight:6', 'straight:7']
    >>> [p.name for p in classify(cards("BJ 2H"), r)]           # a wild card is never a joker
    []
    """
    n = len(cs)
    out = []
    if n == 0 or n > 10:
        return out
    W = rules.wild
    lv = rules.rank
    cnt = [0] * 13
    nb = nr = w = 0
    suits = 0
    for c in cs:
        if c == W:
            w += 1
        elif c >= BJ:
            if c == BJ:
                nb += 1
            else:
                nr += 1
        else:
            cnt[c >> 2] += 1
            suits |= 1 << (c & 3)
    jk = nb + nr
    nat = n - w - jk
    if w and nat + jk:  # the canonical order: natural cards, then the wild cards
        cs = tuple(c for c in cs if c != W) + (W,) * w
    if nat == 0:
        if jk == 0:  # wild cards alone
            _lone_wilds(n, rules, out)
        elif w == 0:  # jokers alone
            v = BJ_KEY if nb else RJ_KEY
            if n == 1:
                out.append(Play(SINGLE, v, cs, ()))
            elif n == 2 and (nb == 2 or nr == 2):
                out.append(Play(PAIR, v, cs, ()))
            elif n == 4 and nb == 2 and nr == 2:
                out.append(Play(JOKER_BOMB, 0, cs, ()))
        return out
    ranks = [r for r in range(13) if cnt[r]]
    if jk:
        # Jokers beside other cards: only the pair of a 三带对.
        if (rules.joker_pair_full_house and n == 5 and (nb == 2 or nr == 2) and jk == 2
                and len(ranks) == 1):
            t = ranks[0]
            v = rules.key(t)
            out.append(Play(FULL_HOUSE, v, cs, (t * 4 + HEART,) * w))
        return out
    if len(ranks) == 1:
        t = ranks[0]
        v = rules.key(t)
        st = (t * 4 + HEART,) * w
        if n == 1:
            out.append(Play(SINGLE, v, cs, st))
        elif n == 2:
            out.append(Play(PAIR, v, cs, st))
        elif n == 3:
            out.append(Play(TRIPLE, v, cs, st))
        else:
            out.append(Play(BOMB, v, cs, st))
            if n == 5 and w == 2:  # three of a rank and two wild cards: also 三带对 with a wild pair
                p = lv if lv != t else (1 if t == 0 else 0)
                out.append(Play(FULL_HOUSE, v, cs, (p * 4 + HEART,) * 2))
        return _sort_meanings(out)
    if n == 5:
        if len(ranks) == 2:
            for t, p in ((ranks[0], ranks[1]), (ranks[1], ranks[0])):
                if cnt[t] <= 3 and cnt[p] <= 2:
                    v = rules.key(t)
                    st = (t * 4 + HEART,) * (3 - cnt[t]) + (p * 4 + HEART,) * (2 - cnt[p])
                    out.append(Play(FULL_HOUSE, v, cs, _sorted(st)))
        _runs(cs, cnt, nat, suits, w, 5, 1, rules, out)
    elif n == 6:
        _runs(cs, cnt, nat, suits, w, 3, 2, rules, out)
        _runs(cs, cnt, nat, suits, w, 2, 3, rules, out)
    return _sort_meanings(out)


def _sorted(t):
    return t if len(t) < 2 or t[0] <= t[1] else (t[1], t[0])


def _lone_wilds(n, rules, out):
    """Meanings of one wild card alone, or the two as a pair."""
    W = rules.wild
    kind = SINGLE if n == 1 else PAIR
    if n > 2:
        return
    cs = (W,) * n
    if rules.lone_wild == "level":
        v = rules.key(rules.rank)
        out.append(Play(kind, v, cs, cs))
        return
    for r in range(13):
        v = rules.key(r)
        out.append(Play(kind, v, cs, (r * 4 + HEART,) * n))
    _sort_meanings(out)


def _runs(cs, cnt, nat, suits, w, length, width, rules, out):
    """Runs of ``length`` ranks, ``width`` cards each (顺子/同花顺 5×1, 三连对 3×2, 钢板 2×3)."""
    flush = suits & (suits - 1) == 0  # the natural cards share one suit
    for start in range(1, 16 - length):
        ranks = _window(start, length)
        inside = 0
        fits = True
        for r in ranks:
            k = cnt[r]
            if k > width:
                fits = False
                break
            inside += k
        if not fits or inside != nat:
            continue  # a card outside the window, or too many of one rank
        top = start + length - 1
        missing = []
        for r in ranks:
            for _ in range(width - cnt[r]):
                missing.append(r)
        if width == 3:
            out.append(Play(TRIPLE_RUN, top, cs, _sorted(tuple(r * 4 + HEART for r in missing))))
        elif width == 2:
            out.append(Play(PAIR_RUN, top, cs, _sorted(tuple(r * 4 + HEART for r in missing))))
        else:
            if not flush or (w and rules.wild_breaks_flush):
                suit = 3 if flush and suits == 1 << HEART else HEART
                out.append(Play(STRAIGHT, top, cs, _sorted(tuple(r * 4 + suit for r in missing))))
            if flush:
                suit = 0
                while not suits >> suit & 1:
                    suit += 1
                out.append(Play(STRAIGHT_FLUSH, top, cs, _sorted(tuple(r * 4 + suit for r in missing))))


# ---- every legal play ---------------------------------------------------------------------

def _split(hand, W):
    """(natural cards by rank, 小王 count, 大王 count, wild count) of a sorted hand."""
    groups = [[] for _ in range(13)]
    nb = nr = w = 0
    for c in hand:
        if c == W:
            w += 1
        elif c < BJ:
            groups[c >> 2].append(c)
        elif c == BJ:
            nb += 1
        else:
            nr += 1
    return groups, nb, nr, w


def _parts(group, w):
    """The distinct ways to take cards of one rank: ``parts[m]`` lists ``(k, naturals)`` for
    every distinct non-empty sub-multiset of ``group`` (sorted, one rank) and every number
    ``k`` <= ``w`` of wild cards beside it, m cards in all."""
    subs = [()]
    i = 0
    n = len(group)
    while i < n:  # distinct codes with their counts (1 or 2)
        c = group[i]
        j = i + 1
        while j < n and group[j] == c:
            j += 1
        grown = []
        for s in subs:
            grown.append(s)
            for _ in range(j - i):
                s = s + (c,)
                grown.append(s)
        subs = grown
        i = j
    parts = [[] for _ in range(n + w + 1)]
    for s in subs:
        if s:
            m = len(s)
            for k in range(w + 1):
                parts[m + k].append((k, s))
    return parts


_HEARTS = []


def _hearts(r):
    """What 0, 1 or 2 wild cards stand for in a group of rank r (the heart: suits never matter)."""
    if _HEARTS:
        return _HEARTS[r]
    h = r * 4 + HEART
    if not _CPYTHON:
        return ((), (h,), (h, h))
    for rank in range(13):
        h = rank * 4 + HEART
        _HEARTS.append(((), (h,), (h, h)))
    return _HEARTS[r]


def plays(hand, rules, over=None):
    """Every legal play of ``hand`` (sorted, as ``cards()`` returns): a list of :class:`Play`,
    each set of cards with each of its meanings exactly once.  ``over``: the play to beat
    (a :class:`Play`), or None when leading.

    Complete by construction: groups (singles, pairs, triples, bombs) from every distinct
    choice of cards of a rank with 0, 1 or 2 wild cards; 三带对 from every triple and pair of
    different ranks; runs from every choice per rank of each window, a wild card standing
    for any card (one the hand holds too).  So a 同花顺 made with a wild card is listed even
    when the same wild card also makes a bomb.  The order is fixed (by kind, then rank, for
    a given hand and rules) but not by strength: sort by ``power`` if needed.

    >>> r = Rules(level="2")                          # ♥2 is wild
    >>> hand = cards("3S 4S 5S 6S 7D 7C 7H 2H")
    >>> len(plays(hand, r))
    49
    >>> [p.name for p in plays(hand, r, over=classify(cards("8D 8C 8S 8H"), r)[0])]
    ['straight_flush:6', 'straight_flush:7']
    """
    # Thousands of small objects that all live until the list is returned: CPython's cycle
    # collector would walk them again and again (40% of the time, measured) though none can
    # be part of a cycle.  MicroPython keeps collecting: on a small heap it must.
    if _CPYTHON and gc.isenabled():
        gc.disable()
        try:
            return _plays(hand, rules, over)
        finally:
            gc.enable()
    return _plays(hand, rules, over)




def _plays(hand, rules, over):
    W = rules.wild
    groups, nb, nr, w = _split(hand, W)
    parts = [_parts(g, w) if g else None for g in groups]
    keys = [rules.key(r) for r in range(13)]
    WS = ((), (W,), (W, W))
    out = []
    want, above, floor = _target(over)
    lead = want is None
    # Groups of one rank: singles, pairs, triples, bombs.
    for r in range(13):
        ps = parts[r]
        if ps is None:
            continue
        v = keys[r]
        hs = _hearts(r)
        for m in range(1, len(ps)):
            kind = _group_kind(m, v, want, above, floor)
            if kind is None:
                continue
            for k, s in ps[m]:
                out.append(_play(kind, v, s + WS[k] if k else s, hs[k]))
    _specials(nb, nr, w, rules, want, above, floor, None, out)
    if lead or want == FULL_HOUSE:
        _full_houses(parts, keys, nb, nr, w, WS, above, rules, out)
    if lead or want == PAIR_RUN:
        _group_runs(parts, 3, 2, w, WS, above, PAIR_RUN, out)
    if lead or want == TRIPLE_RUN:
        _group_runs(parts, 2, 3, w, WS, above, TRIPLE_RUN, out)
    # 同花顺 always (a bomb); 顺子 when leading or following one.
    _straights(parts, w, WS, above if lead or want == STRAIGHT else 99, floor, rules, out)
    return out


def _target(over):
    """What a listing must beat: (the kind to follow: None when leading, "" over a bomb;
    the key to exceed in that kind; the bomb power to exceed)."""
    if over is None:
        return None, -1, 0
    if over.power >= BOMB_POWER:
        return "", -1, over.power
    return over.kind, over.key, 0


def _group_kind(m, v, want, above, floor):
    """The kind of m cards of one rank with key v, or None if it is not to be listed."""
    if m > 3:
        return BOMB if _bomb_power(m, v) > floor else None
    kind = GROUPS[m]
    return kind if (want is None or want == kind) and v > above else None


def _specials(nb, nr, w, rules, want, above, floor, held, out):
    """Wild cards alone, jokers and 四大天王.  ``held``: natural cards by rank, to list a
    lone wild card only for a rank the hand lacks (plays_by_kind), or None (every one)."""
    lead = want is None
    if w and (lead or want == SINGLE or want == PAIR):
        lone = []
        _lone_wilds(1, rules, lone)
        if w == 2:
            _lone_wilds(2, rules, lone)
        for p in lone:
            if (lead or want == p.kind) and p.key > above and not (held and held[p.stands[0] >> 2]):
                out.append(p)
    for c, n, v in ((BJ, nb, BJ_KEY), (RJ, nr, RJ_KEY)):
        if n and (lead or want == SINGLE) and v > above:
            out.append(Play(SINGLE, v, (c,), ()))
        if n == 2 and (lead or want == PAIR) and v > above:
            out.append(Play(PAIR, v, (c, c), ()))
    if nb == 2 and nr == 2 and JOKER_TIER * BOMB_POWER > floor:
        out.append(Play(JOKER_BOMB, 0, (BJ, BJ, RJ, RJ), ()))


def _full_houses(parts, keys, nb, nr, w, WS, above, rules, out):
    pairs0 = []  # pairs of natural cards: (rank, cards), in rank order; the jokers' ranks are 13 and 14
    pairs1 = []  # one natural card and a wild card: (rank, the natural card)
    for p in range(13):
        ps = parts[p]
        if ps is not None and len(ps) > 2:
            for k, s in ps[2]:
                if k:
                    pairs1.append((p, s))
                else:
                    pairs0.append((p, s))
    if rules.joker_pair_full_house:
        if nb == 2:
            pairs0.append((13, (BJ, BJ)))
        if nr == 2:
            pairs0.append((14, (RJ, RJ)))
    lv = rules.rank
    # Loops, not comprehensions, below: the lists are short.  Made once, not per triple, so
    # that each play costs one concatenation: a pair below the triple comes first (then the
    # triple and the wild cards), a pair above it after the triple, followed by the wild
    # cards (kept for each count of them); a pair with a wild card carries what it stands for.
    ranks0 = [p for p, _ in pairs0]
    cards0 = [pn for _, pn in pairs0]
    tails0 = [[pn + ws for pn in cards0] for ws in WS[:w + 1]]
    ranks1 = [p for p, _ in pairs1]
    one1 = [(pn, (p * 4 + HEART,)) for p, pn in pairs1]
    add = out.append
    hi0 = hi1 = 0
    for t in range(13):
        lo0, lo1 = hi0, hi1  # pairs0[:lo0] rank below t, pairs0[hi0:] above; pairs1 likewise
        hi0 += ranks0.count(t)
        hi1 += ranks1.count(t)
        ps = parts[t]
        v = keys[t]
        if ps is None or len(ps) < 4 or v <= above:
            continue
        hs = _hearts(t)
        below0 = cards0[:lo0]
        below1 = one1[:lo1]
        for kt, tn in ps[3]:
            st = hs[kt]
            tw = tn + WS[kt]
            for pn in below0:
                add(_play(FULL_HOUSE, v, pn + tw, st))
            for pw in tails0[kt][hi0:]:
                add(_play(FULL_HOUSE, v, tn + pw, st))
            if kt < w:
                tw = tw + WS[1]
                for pn, h in below1:
                    add(_play(FULL_HOUSE, v, pn + tw, h + st))
                ws = WS[kt + 1]
                for pn, h in one1[hi1:]:
                    add(_play(FULL_HOUSE, v, tn + (pn + ws), st + h))
                if kt + 2 == w:  # the pair made of both wild cards: any rank, so one meaning
                    p = lv if lv != t else (1 if t == 0 else 0)
                    out.append(_play(FULL_HOUSE, v, tn + WS[2], (p * 4 + HEART,) * 2))


_NO_RANK = ((((),), (), ()), ((), (), ()))  # a rank of no cards and no wild cards


def _group_runs(parts, length, width, w, WS, above, kind, out):
    """三连对 (3 ranks × 2) or 钢板 (2 ranks × 3): every choice per rank, wild cards anywhere.

    Per window, the wild cards are spread over its ranks (the first rank's count changing
    slowest; up to two on one rank: one card of it, or none in a pair), and each spread
    lists the product of every rank's choices beside its wild cards."""
    # Per rank: the natural parts beside 0, 1, 2 wild cards (both wild cards as a rank's pair:
    # the empty part).  One shared value for a rank with none: a 64 KB MicroPython heap
    # would feel 13 sets of empty lists.
    none = ((), (), ((),)) if width == 2 else ((), (), ())
    opts = []
    for r in range(13):
        ps = parts[r]
        if ps is None or len(ps) <= width:
            opts.append(none)
            continue
        by_k = [[], [], []]
        for k, pn in ps[width]:
            by_k[k].append(pn)
        if width == 2:
            by_k[2].append(())
        opts.append(by_k)
    lack = [width - (len(ps) - 1 - w) if ps is not None else width for ps in parts]
    for top, ranks in _windows(length):
        if top <= above:
            continue
        short = 0  # wild cards needed at least
        for r in ranks:
            if lack[r] > 0:
                short += lack[r]
        if short > w:
            continue
        if length == 2:  # as three ranks, the first of them empty
            o0, h0 = _NO_RANK
            r1, r2 = ranks
        else:
            r0, r1, r2 = ranks
            o0, h0 = opts[r0], _hearts(r0)
        o1, o2, h1, h2 = opts[r1], opts[r2], _hearts(r1), _hearts(r2)
        # Loops, not comprehensions: most products here are of one to three plays.
        add = out.append
        for k0 in range(w + 1):
            a = o0[k0]
            if not a:
                continue
            for k1 in range(w + 1 - k0):
                b = o1[k1]
                if not b:
                    continue
                ab = []
                for x in a:
                    for y in b:
                        ab.append(x + y)
                for k2 in range(w + 1 - k0 - k1):
                    c = o2[k2]
                    if c:
                        st = h0[k0] + h1[k1] + h2[k2]
                        ws = WS[k0 + k1 + k2]
                        for x in ab:
                            for z in c:
                                add(_play(kind, top, x + z + ws, st))


_WILD_SPOTS = {}


def _wild_spots(w):
    """[(mask, natural positions, wild positions)] for every choice of at most ``w`` of five
    positions to hold a wild card (made once)."""
    found = _WILD_SPOTS.get(w)
    if found is None:
        found = []
        if _CPYTHON:
            _WILD_SPOTS[w] = found
        for mask in range(32):
            wild = tuple(i for i in range(5) if mask >> i & 1)
            if len(wild) <= w:
                found.append((mask, tuple(i for i in range(5) if not mask >> i & 1), wild))
    return found


def _straights(parts, w, WS, above, floor, rules, out):
    """顺子 with a key above ``above`` and 同花顺 with a power above ``floor``, every window.

    For each window and each choice of positions for the wild cards (at most two: three
    positions or more hold natural cards), the 顺子 are the product of the natural cards of
    the other positions, made by nested loops (a tuple per play, nothing in between; loops
    beat comprehensions on products this short).  Written out per number of wild cards: the
    choices loop runs 160 times a hand, and its overhead was most of the cost."""
    breaks = rules.wild_breaks_flush
    W = WS[1][0]
    singles = []  # per rank: the distinct natural cards, and a bit per suit held
    suits = []
    for ps in parts:
        if ps is None:
            singles.append(None)
            suits.append(0)
        else:
            ones = [pc[0] for _, pc in ps[1]]
            m = 0
            for c in ones:
                m |= 1 << (c & 3)
            singles.append(ones)
            suits.append(m)
    spots = _wild_spots(w)
    add = out.append
    for top, ranks in _windows(5):
        plain = top > above
        flushes = SF_TIER * BOMB_POWER + top > floor
        if not plain and not flushes:
            continue
        sets = [singles[r] for r in ranks]
        need = 0  # positions of ranks the hand lacks: a wild card must stand for each
        for i in range(5):
            if sets[i] is None:
                need |= 1 << i
        held = [suits[r] for r in ranks]
        hp = [r * 4 + HEART for r in ranks]
        for mask, nat, wild in spots:
            if mask & need != need:
                continue
            k = len(wild)
            if k == 0:
                common = held[0] & held[1] & held[2] & held[3] & held[4]
                st = ()
            elif k == 1:
                i, j, l, m = nat
                common = held[i] & held[j] & held[l] & held[m]
                st = (hp[wild[0]],)
            else:
                i, j, l = nat
                common = held[i] & held[j] & held[l]
                st = (hp[wild[0]], hp[wild[1]])
            flush = ()  # (suit, cards) of each flush among them
            if common:
                flush = []
                ws = WS[k]
                for s in range(4):
                    if common >> s & 1:
                        flush.append((s, tuple(ranks[i] * 4 + s for i in nat) + ws))
            if plain:
                start = len(out)
                if k == 0:
                    a, b, c, d, e = sets
                    for x in a:
                        for y in b:
                            for z in c:
                                for u in d:
                                    for v in e:
                                        add(_play(STRAIGHT, top, (x, y, z, u, v), st))
                elif k == 1:
                    a, b, c, d = sets[i], sets[j], sets[l], sets[m]
                    for x in a:
                        for y in b:
                            for z in c:
                                for u in d:
                                    add(_play(STRAIGHT, top, (x, y, z, u, W), st))
                else:
                    a, b, c = sets[i], sets[j], sets[l]
                    for x in a:
                        for y in b:
                            for z in c:
                                add(_play(STRAIGHT, top, (x, y, z, W, W), st))
                if common and not (k and breaks and not common >> HEART & 1):
                    # the flushes are no 顺子 with ♥ wild cards: take them out of the block
                    for s, cs in flush:
                        i = start
                        while out[i].cards != cs:
                            i += 1
                        del out[i]
                    if k and breaks:  # the flushes as plain 顺子: a wild card of another suit
                        for s, cs in flush:
                            add(_play(STRAIGHT, top, cs, tuple(ranks[i] * 4 + (3 if s == HEART else HEART)
                                                               for i in wild)))
            if flushes:
                for s, cs in flush:
                    add(_play(STRAIGHT_FLUSH, top, cs, tuple(ranks[i] * 4 + s for i in wild)))


# ---- one play per kind, size and rank (bots) ----------------------------------------------

def plays_by_kind(hand, rules, over=None):
    """One legal play for each kind, size and key ``hand`` can make (over ``over``, a
    :class:`Play`, or None when leading): the same kinds, sizes and keys as ``plays``, each
    once, with the fewest wild cards and then the lowest cards of each rank.  For bots,
    which choose a kind and rank first; ``plays`` has every card-level alternative.

    >>> r = Rules(level="2")
    >>> [p.name for p in plays_by_kind(cards("3S 4S 5S 6S 7D 7C 7H 2H"), r) if p.size == 5]
    ['full_house:7', 'straight:6', 'straight_flush:6', 'straight:7', 'straight_flush:7', 'straight:8']
    """
    W = rules.wild
    lv = rules.rank
    groups, nb, nr, w = _split(hand, W)
    WS = ((), (W,), (W, W))
    want, above, floor = _target(over)
    lead = want is None
    out = []
    for r in range(13):
        g = groups[r]
        n = len(g)
        if not n:
            continue
        v = (LEVEL_VALUE if r == lv else r) * 16 + r
        hs = _hearts(r)
        for m in range(1, n + w + 1):
            if m < 4:  # single, pair, triple: only when leading or following that kind
                kind = GROUPS[m]
                if v <= above or not (lead or want == kind):
                    continue
            else:
                kind = BOMB
                if _bomb_power(m, v) <= floor:
                    continue
            if m <= n:
                out.append(Play(kind, v, tuple(g[:m]), ()))
            else:
                out.append(Play(kind, v, tuple(g) + WS[m - n], hs[m - n]))
    _specials(nb, nr, w, rules, want, above, floor, groups, out)
    for kind, length, width in ((PAIR_RUN, 3, 2), (TRIPLE_RUN, 2, 3)):
        if lead or want == kind:
            _kind_group_runs(groups, length, width, w, WS, above, kind, out)
    if lead or want == FULL_HOUSE:
        _kind_full_houses(groups, nb, nr, w, WS, above, rules, out)
    _kind_straights(groups, w, WS, above if lead or want == STRAIGHT else 99, floor, rules, out)
    return out


def _kind_full_houses(groups, nb, nr, w, WS, above, rules, out):
    lv = rules.rank
    order = [r for r in range(13) if r != lv] + [lv]  # ranks by single order: lowest pair first
    pair0 = [r for r in order if len(groups[r]) >= 2]
    pair1 = [r for r in order if len(groups[r]) == 1]
    jokers = ()
    if rules.joker_pair_full_house:
        jokers = (BJ, BJ) if nb == 2 else (RJ, RJ) if nr == 2 else ()
    for t in range(13):
        g = groups[t]
        n = len(g)
        kt = 3 - n if n < 3 else 0
        v = (LEVEL_VALUE if t == lv else t) * 16 + t
        if not n or kt > w or v <= above:
            continue
        tn = tuple(g[:3 - kt])
        st = _hearts(t)[kt]
        pn = pst = None
        for p in pair0:
            if p != t:
                pn = tuple(groups[p][:2])
                pst = ()
                kp = 0
                break
        if pn is None and jokers:
            pn, pst, kp = jokers, (), 0
        if pn is None and kt < w:
            for p in pair1:
                if p != t:
                    pn = tuple(groups[p])
                    pst = (p * 4 + HEART,)
                    kp = 1
                    break
        if pn is None and kt + 2 == w:
            p = lv if lv != t else (1 if t == 0 else 0)
            pn, pst, kp = (), (p * 4 + HEART,) * 2, 2
        if pn is None:
            continue
        if not pn or pn[0] > tn[0]:
            cs, stands = tn + pn, st + pst
        else:
            cs, stands = pn + tn, pst + st
        out.append(Play(FULL_HOUSE, v, cs + WS[kt + kp], stands))


def _kind_group_runs(groups, length, width, w, WS, above, kind, out):
    for top, ranks in _windows(length):
        if top <= above:
            continue
        k = 0
        cs = ()
        st = ()
        for r in ranks:
            g = groups[r]
            n = len(g)
            if n >= width:
                cs = cs + tuple(g[:width])
            else:
                k += width - n
                if k > w:
                    break
                cs = cs + tuple(g)
                st = st + _hearts(r)[width - n]
        if k <= w:
            out.append(Play(kind, top, cs + WS[k], st))


_POP5 = bytes(bin(x).count("1") for x in range(32))  # the bits set in a 5-bit number


def _kind_straights(groups, w, WS, above, floor, rules, out):
    breaks = rules.wild_breaks_flush
    have = [0, 0, 0, 0]  # per suit: a bit per rank held in it
    for r in range(13):
        for c in groups[r]:
            have[c & 3] |= 1 << r
    # bit i of a position mask is run position i (A as 1, then 2 … A): the window topped
    # by position i + 4 is (mask >> i) & 31
    pos = [m << 1 | (m >> 12 & 1) for m in have]
    held = pos[0] | pos[1] | pos[2] | pos[3]
    pop = _POP5
    i = -1
    for top, ranks in _windows(5):
        i += 1
        plain = top > above
        sf_power = SF_TIER * BOMB_POWER + top
        if not plain and sf_power <= floor:
            continue
        missing = 5 - pop[held >> i & 31]
        if missing > w:
            continue
        if plain:
            wm = 0
            for r in ranks:
                wm |= 1 << r
            _kind_straight(groups, ranks, have, wm, missing, w, breaks, WS, top, out)
        if sf_power > floor:
            best = -1
            fewest = w + 1
            for s in range(4):
                lack = 5 - pop[pos[s] >> i & 31]
                if lack < fewest:
                    best, fewest = s, lack
            if best >= 0:
                cs = ()
                st = ()
                hb = have[best]
                for r in ranks:
                    if hb >> r & 1:
                        cs = cs + (r * 4 + best,)
                    else:
                        st = st + (r * 4 + best,)
                out.append(Play(STRAIGHT_FLUSH, top, cs + WS[fewest], st))


def _kind_straight(groups, ranks, have, wm, missing, w, breaks, WS, top, out):
    """The 顺子 example of one window: the lowest card of each rank held; if those share a
    suit, a card of another suit where the hand has one, else a wild card of another suit
    (if ``breaks``)."""
    picks = [groups[r][0] if groups[r] else -1 for r in ranks]
    suit = -1  # the one suit of the picks, or -1 when they are mixed already
    for c in picks:
        if c >= 0:
            if suit == -2 or suit == c & 3:
                continue
            suit = c & 3 if suit == -1 else -2
    k = missing
    if suit >= 0:  # the picks are one suit: take another suit at the first rank that has one
        other = 0  # ranks of the window held in another suit
        for a in range(4):
            if a != suit:
                other |= have[a]
        other &= wm
        if other:
            for i in range(5):
                if other >> ranks[i] & 1:
                    for c in groups[ranks[i]]:
                        if c & 3 != suit:
                            picks[i] = c
                            break
                    break
            suit = -2
        elif not breaks or not (k or w):
            return  # only a flush: a 同花顺, no 顺子
        elif not k:
            picks[0] = -1  # a wild card of another suit in place of the lowest card
            k = 1
    ws = 3 if suit == HEART else HEART  # a wild card never makes a 顺子 of hearts a flush
    cs = ()
    st = ()
    for i in range(5):
        if picks[i] < 0:
            st = st + (ranks[i] * 4 + ws,)
        else:
            cs = cs + (picks[i],)
    out.append(Play(STRAIGHT, top, cs + WS[k], st))
