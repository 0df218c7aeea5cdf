"""Big Two (竞技锄大地) plays: what a set of cards is, what beats what, every legal play, and scores.

Pure code shared by the hub's engine and the seat board (which pre-checks a selection
to guide the player; the hub decides).  Cards are small integers here, chosen so that
a plain integer comparison is the single-card order:

    card = rank * 4 + suit,  rank 0..12 = 3 4 5 6 7 8 9 T J Q K A 2,  suit 0..3 = ♦ ♣ ♥ ♠

so ♦3 is 0 and ♠2 is 51.  A play is a sorted tuple of cards; its *value* is an integer
that orders plays of the same size (1, 2, 3 or 5 cards), which is all Big Two compares:
a pair never beats a single, and every five-card hand competes with every other.

>>> r = Rules()
>>> classify(cards("3D 3S"), r)
('pair', 3)
>>> beats(cards("2D"), cards("AS"), r)
True
>>> beats(cards("AD 2C 3H 4S 5D"), cards("3D 4D 5C 6H 7S"), r)   # A2345 is the lowest straight
False
"""

from .cards import InvalidCardError, parse, suit_first

RANKS = "3456789TJQKA2"  # Big Two order, low to high
SUITS = "DCHS"  # ♦ < ♣ < ♥ < ♠
DIAMOND_THREE = 0  # ♦3: its holder makes the first play (首攻)
SPADE_TWO = 51  # ♠2: doubles its holder's card points

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
STRAIGHT = "straight"  # 顺子
FLUSH = "flush"  # 同花
FULL_HOUSE = "full_house"  # 葫芦
FOUR_OF_A_KIND = "four_of_a_kind"  # 铁枝
STRAIGHT_FLUSH = "straight_flush"  # 同花顺
FIVE_CARD_ORDER = (STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH)
KINDS = (SINGLE, PAIR, TRIPLE) + FIVE_CARD_ORDER
KIND_NAMES_ZH = {
    SINGLE: "单张", PAIR: "对子", TRIPLE: "三张", STRAIGHT: "顺子", FLUSH: "同花",
    FULL_HOUSE: "葫芦", FOUR_OF_A_KIND: "铁枝", STRAIGHT_FLUSH: "同花顺",
}

# Straight presets: the rank windows that are straights, lowest first.  Ranks are
# written in natural order; index in the tuple is the straight's order.
STRAIGHTS = {
    # [decision, seed 004 第九条] A may be first or last, never in the middle; 2 follows A:
    # A2345 < 34567 < … < TJQKA < 23456.  JQKA2, QKA23, KA234 are not straights.
    "seed": ("A2345", "34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK",
             "TJQKA", "23456"),
    # House variant: a 2 never stands in a straight; 34567 lowest, TJQKA highest.
    "no_two": ("34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA"),
}
# Flush comparison presets.
FLUSH_ORDERS = (
    "top_card",  # [decision] highest card by single order, then that card's suit
    "suit_first",  # house variant: suit of the flush first, then its highest card
)
REPORT_DUTIES = (
    "highest_single",  # [decision, seed 第七条] while 下家 has one card, a single must be your highest
    "off",  # no duty (friendly games)
)


class Rules:
    """The rule options of Big Two.  Each is a decision of RULES.md; defaults are the project's.

    - ``straights``: which windows are straights and their order (``"seed"`` or ``"no_two"``).
    - ``flush_order``: ``"top_card"`` (highest card, then its suit) or ``"suit_first"``.
    - ``report_duty``: ``"highest_single"`` (报单: while your 下家 holds one card, a single you
      play must be your highest) or ``"off"``.
    - ``report_may_pass``: under the 报单 duty a follower may still pass (seed: "必须出单张最大的牌或
      一张以上的牌组" restricts singles only).  ``False`` makes passing illegal while a legal play exists.
    - ``spade_two_doubles``: holding ♠2 at the end doubles the card points (Appendix 1 as printed).
    - ``show_seconds``, ``double_seconds``, ``turn_seconds``: the decision clocks (15, 15, 25 s).

    >>> Rules(straights="no_two").to_dict()["straights"]
    'no_two'
    >>> Rules(turn_seconds=0)
    Traceback (most recent call last):
    ...
    ValueError: turn_seconds must be a whole number of seconds from 1 to 600, not 0
    """

    OPTIONS = ("straights", "flush_order", "report_duty", "report_may_pass",
               "spade_two_doubles", "show_seconds", "double_seconds", "turn_seconds")

    def __init__(self, straights="seed", flush_order="top_card", report_duty="highest_single",
                 report_may_pass=True, spade_two_doubles=True, show_seconds=15,
                 double_seconds=15, turn_seconds=25):
        if straights not in STRAIGHTS:
            raise ValueError("straights must be one of %s, not %r" % (_names(STRAIGHTS), straights))
        if flush_order not in FLUSH_ORDERS:
            raise ValueError("flush_order must be one of %s, not %r" % (_names(FLUSH_ORDERS), flush_order))
        if report_duty not in REPORT_DUTIES:
            raise ValueError("report_duty must be one of %s, not %r" % (_names(REPORT_DUTIES), report_duty))
        for name, value in (("report_may_pass", report_may_pass), ("spade_two_doubles", spade_two_doubles)):
            if value is not True and value is not False:
                raise ValueError("%s must be true or false, not %r" % (name, value))
        for name, value in (("show_seconds", show_seconds), ("double_seconds", double_seconds),
                            ("turn_seconds", turn_seconds)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 600:
                raise ValueError("%s must be a whole number of seconds from 1 to 600, not %r" % (name, value))
        self.straights = straights
        self.flush_order = flush_order
        self.report_duty = report_duty
        self.report_may_pass = report_may_pass
        self.spade_two_doubles = spade_two_doubles
        self.show_seconds = show_seconds
        self.double_seconds = double_seconds
        self.turn_seconds = turn_seconds
        # Precomputed tables: rank mask of a window -> (order, top rank by single order).
        self.windows = []
        self.window_of = {}
        for order, text in enumerate(STRAIGHTS[straights]):
            ranks = [RANKS.index(ch) for ch in text]
            top = max(ranks)  # the 2 in A2345 and 23456, the A in TJQKA
            mask = 0
            for rk in ranks:
                mask |= 1 << rk
            self.windows.append((ranks, order, top))
            self.window_of[mask] = (order, top)

    @classmethod
    def from_dict(cls, data):
        """Build from a mapping (a rules file or a log), refusing unknown option names."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("rules must be a mapping of option names to values, not %r" % (data,))
        for key in data:
            if key not in cls.OPTIONS:
                raise ValueError("unknown Big Two rule option %r; options are %s" % (key, ", ".join(cls.OPTIONS)))
        return cls(**data)

    def to_dict(self):
        return {name: getattr(self, name) for name in self.OPTIONS}

    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()


def _names(options):
    return ", ".join(repr(o) for o in options)


# ---- cards -------------------------------------------------------------------------

def card(code):
    """The integer of a card code: ``card("3D") == 0``, ``card("2S") == 51``; a card number passes through."""
    if isinstance(code, int) and not isinstance(code, bool):
        if 0 <= code < 52:
            return code
        raise InvalidCardError("%r is not a card number 0..51" % (code,), "%r 不是牌号（0..51）" % (code,))
    if isinstance(code, str) and len(code) == 2:  # fast path for canonical codes (no table: heap)
        r = RANKS.find(code[0])
        s = SUITS.find(code[1])
        if r >= 0 and s >= 0:
            return r * 4 + s
    c = parse(code)
    if len(c) != 2 or c[0] not in RANKS or c[1] not in SUITS:
        if suit_first(code):
            raise suit_first(code)
        raise InvalidCardError("%s is not a card of the 52-card Big Two deck" % (c,),
                               "%s 不是锄大地的牌（52 张，无王）" % (c,))
    return RANKS.index(c[0]) * 4 + SUITS.index(c[1])


def code(c):
    """The text code of a card integer: ``code(0) == "3D"``."""
    return RANKS[c >> 2] + SUITS[c & 3]


def cards(codes):
    """Parse codes or card numbers (a list, or one string separated by spaces or commas) into a sorted tuple.

    Refuses duplicates: a Big Two deck holds each card once.

    >>> cards("2S 3D")
    (0, 51)
    """
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    elif not isinstance(codes, (list, tuple)):
        raise InvalidCardError("cards must be a list of codes like ['3D', '3S'], not %r" % (codes,),
                               "牌必须是代码列表，例如 ['3D', '3S']")
    out = sorted(card(x) for x in codes)
    for i in range(1, len(out)):
        if out[i] == out[i - 1]:
            raise InvalidCardError("%s appears twice; a Big Two deck holds each card once" % code(out[i]),
                                   "%s 出现了两次；锄大地每张牌只有一张" % code(out[i]), "duplicate_card")
    return tuple(out)


def codes(cs):
    """Text codes of card integers, in the given order."""
    return [code(c) for c in cs]


def sort_hand(cs):
    """A hand in display order: low to high by single-card order."""
    return tuple(sorted(cs))


# ---- classification and comparison ------------------------------------------------

def classify(cs, rules):
    """The kind and value of a play, or ``None`` if the cards are not a legal combination.

    ``cs`` must be sorted ascending (as ``cards()`` returns).  The value orders plays of the
    same size; five-card kinds share one scale (同花顺 > 铁枝 > 葫芦 > 同花 > 顺子).

    >>> r = Rules()
    >>> classify(cards("3D 4C 5H 6S 7D"), r)[0], classify(cards("JD QC KD AD 2D"), r)   # JQKA2 is no straight
    ('straight', None)
    """
    n = len(cs)
    if n == 1:
        return SINGLE, cs[0]
    if n == 2:
        if cs[0] >> 2 == cs[1] >> 2:
            return PAIR, cs[1]
        return None
    if n == 3:
        if cs[0] >> 2 == cs[2] >> 2:
            return TRIPLE, cs[2]
        return None
    if n != 5:
        return None
    c0, c1, c2, c3, c4 = cs
    suit = c0 & 3
    flush = (c1 & 3) == suit and (c2 & 3) == suit and (c3 & 3) == suit and (c4 & 3) == suit
    mask = (1 << (c0 >> 2)) | (1 << (c1 >> 2)) | (1 << (c2 >> 2)) | (1 << (c3 >> 2)) | (1 << (c4 >> 2))
    win = rules.window_of.get(mask)
    if win is not None:
        order, top = win
        for c in cs:
            if c >> 2 == top:
                key = order * 4 + (c & 3)
                break
        if flush:
            return STRAIGHT_FLUSH, 256 + key
        return STRAIGHT, key
    if flush:
        return FLUSH, 64 + _flush_key(c4, rules)
    r0, r2, r4 = c0 >> 2, c2 >> 2, c4 >> 2
    # Sorted, so a full house is AAABB or AABBB and a 铁枝 is AAAAB or ABBBB.
    r1, r3 = c1 >> 2, c3 >> 2
    if r0 == r1 and r3 == r4 and r1 != r3 and (r2 == r0 or r2 == r4):
        return FULL_HOUSE, 128 + r2  # the middle card always belongs to the triple
    if r1 == r2 == r3 and (r0 == r1 or r4 == r1):
        return FOUR_OF_A_KIND, 192 + r2
    return None


def _flush_key(top_card, rules):
    if rules.flush_order == "suit_first":
        return (top_card & 3) * 13 + (top_card >> 2)
    return top_card


def beats(play, over, rules):
    """True if ``play`` may be played over ``over``: same size, higher value.

    >>> r = Rules()
    >>> beats(cards("3D 3S"), cards("2S"), r)   # a pair never beats a single
    False
    """
    if len(play) != len(over):
        return False
    a = classify(play, rules)
    b = classify(over, rules)
    return a is not None and b is not None and a[1] > b[1]


def kind_of(cs, rules):
    """The kind name of a play, or ``None``."""
    k = classify(cs, rules)
    return None if k is None else k[0]


# ---- every legal play ---------------------------------------------------------------

def plays(hand, rules, size=0, above=-1, must_hold=-1, top_single_only=False):
    """Every play that ``hand`` (sorted, as ``cards()`` returns) can make, as ``(cards, kind, value)``,
    sorted by size, value, cards.

    - ``size``/``above``: when following, only plays of that size with a value above ``above``
      (``size=0`` lists every size: a lead).
    - ``must_hold``: a card every play must contain (♦3 on the first play), or -1.
    - ``top_single_only``: the 报单 duty — the only single allowed is the hand's highest card.

    Complete by construction: singles, pairs, triples from rank groups; straights from the
    rank windows; flushes from 5-subsets of each suit; full houses and 铁枝 from rank groups.

    >>> len(plays(cards("3D 3C 4D 5D 6D 7D"), Rules()))   # 6 singles, 1 pair, 1 straight flush, 1 straight
    9
    """
    by_rank = [[] for _ in range(13)]
    for c in hand:
        by_rank[c >> 2].append(c)
    out = []
    if size == 0 or size == 1:
        if top_single_only:
            top = max(hand) if hand else -1
            if top > above:
                out.append(((top,), SINGLE, top))
        else:
            for c in hand:
                if c > above:
                    out.append(((c,), SINGLE, c))
    if size == 0 or size == 2:
        for group in by_rank:
            g = len(group)
            if g >= 2:
                for i in range(g - 1):
                    for j in range(i + 1, g):
                        v = group[j]
                        if v > above:
                            out.append(((group[i], v), PAIR, v))
    if size == 0 or size == 3:
        for group in by_rank:
            g = len(group)
            if g == 3:
                if group[2] > above:
                    out.append((tuple(group), TRIPLE, group[2]))
            elif g == 4:
                for skip in range(3, -1, -1):
                    t = tuple(group[:skip] + group[skip + 1:])
                    if t[2] > above:
                        out.append((t, TRIPLE, t[2]))
    if (size == 0 or size == 5) and len(hand) >= 5:
        _five_card_plays(hand, by_rank, rules, above, out)
    if must_hold >= 0:
        out = [p for p in out if must_hold in p[0]]
    out.sort(key=_play_order)
    return out


def _play_order(p):
    return (len(p[0]), p[2], p[0])


def _five_card_plays(hand, by_rank, rules, above, out):
    # Straights and straight flushes: one card from each rank of each window.
    for ranks, order, top in rules.windows:
        g0 = by_rank[ranks[0]]
        g1 = by_rank[ranks[1]]
        g2 = by_rank[ranks[2]]
        g3 = by_rank[ranks[3]]
        g4 = by_rank[ranks[4]]
        if not (g0 and g1 and g2 and g3 and g4):
            continue
        base = order * 4
        ti = ranks.index(top)
        for a in g0:
            for b in g1:
                for c in g2:
                    for d in g3:
                        for e in g4:
                            combo = (a, b, c, d, e)
                            key = base + (combo[ti] & 3)
                            s = a & 3
                            if (b & 3) == s and (c & 3) == s and (d & 3) == s and (e & 3) == s:
                                value, kind = 256 + key, STRAIGHT_FLUSH
                            else:
                                value, kind = key, STRAIGHT
                            if value > above:
                                out.append((tuple(sorted(combo)), kind, value))
    # Flushes: every 5-subset of a suit that is not a straight (those are straight flushes).
    if above < 128:
        by_suit = [[], [], [], []]
        for c in hand:
            by_suit[c & 3].append(c)
        window_of = rules.window_of
        for suited in by_suit:
            n = len(suited)
            if n < 5:
                continue
            for i in range(n - 4):
                a = suited[i]
                for j in range(i + 1, n - 3):
                    b = suited[j]
                    for k in range(j + 1, n - 2):
                        c = suited[k]
                        for m in range(k + 1, n - 1):
                            d = suited[m]
                            for q in range(m + 1, n):
                                e = suited[q]
                                mask = (1 << (a >> 2)) | (1 << (b >> 2)) | (1 << (c >> 2)) | (1 << (d >> 2)) | (1 << (e >> 2))
                                if mask in window_of:
                                    continue
                                value = 64 + _flush_key(e, rules)
                                if value > above:
                                    out.append(((a, b, c, d, e), FLUSH, value))
    # Full houses (葫芦) and 铁枝: rank groups.
    if above < 256:
        triples = []
        pairs = []
        for group in by_rank:
            g = len(group)
            if g >= 2:
                for i in range(g - 1):
                    for j in range(i + 1, g):
                        pairs.append((group[i], group[j]))
            if g == 3:
                triples.append(group)
            elif g == 4:
                for skip in range(4):
                    triples.append(group[:skip] + group[skip + 1:])
                value = 192 + (group[0] >> 2)
                if value > above:
                    for kicker in hand:
                        if kicker >> 2 != group[0] >> 2:
                            # Built directly, not via sorted(): a 64 KB MicroPython heap runs out
                            # (fragments) on the temporaries with 150+ plays (AAAA KKKK 2222 hands).
                            g0, g1, g2, g3 = group
                            five = (kicker, g0, g1, g2, g3) if kicker < g0 else (g0, g1, g2, g3, kicker)
                            out.append((five, FOUR_OF_A_KIND, value))
        for t in triples:
            rank = t[0] >> 2
            value = 128 + rank
            if value <= above:
                continue
            t0, t1, t2 = t
            for p0, p1 in pairs:
                pair_rank = p0 >> 2
                if pair_rank != rank:  # sorted order without temporaries (see 铁枝 above)
                    five = (p0, p1, t0, t1, t2) if pair_rank < rank else (t0, t1, t2, p0, p1)
                    out.append((five, FULL_HOUSE, value))


# ---- card points and scores (Appendix 1) ----------------------------------------------

def card_points(left, holds_spade_two, rules):
    """牌分 of a player with ``left`` cards at the end (Appendix 1 as printed in seed 000).

    n < 8 → n; 8 ≤ n < 10 → 2n; 10 ≤ n < 13 → 3n; 13 → 4n; doubled when holding ♠2
    (if ``rules.spade_two_doubles``).

    >>> r = Rules()
    >>> card_points(5, False, r), card_points(8, False, r), card_points(12, False, r), card_points(13, True, r)
    (5, 16, 36, 104)
    """
    if not isinstance(left, int) or isinstance(left, bool) or not 0 <= left <= 13:
        raise ValueError("cards left must be a whole number from 0 to 13, not %r" % (left,))
    if left < 8:
        points = left
    elif left < 10:
        points = 2 * left
    elif left < 13:
        points = 3 * left
    else:
        points = 4 * left
    if holds_spade_two and rules.spade_two_doubles:
        points *= 2
    return points


def scores(points, shown, doubled):
    """Each player's score from card points and the 明牌/加倍 choices (lists, one per seat).

    Score of A = Σ over each other X of (points_X − points_A) × show_A × show_X × double_A × double_X,
    show = 3 if shown else 1, double = 2 if doubled else 1.  The scores sum to zero.

    The seed's worked example (A and D double; 5, 8, 0, 12 cards left):

    >>> scores([5, 16, 0, 36], [False] * 4, [True, False, False, True])
    [136, 2, 98, -236]
    """
    n = len(points)
    factor = [(3 if shown[i] else 1) * (2 if doubled[i] else 1) for i in range(n)]
    out = []
    for a in range(n):
        total = 0
        for x in range(n):
            if x != a:
                total += (points[x] - points[a]) * factor[a] * factor[x]
        out.append(total)
    return out
