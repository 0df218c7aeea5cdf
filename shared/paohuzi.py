"""Paohuzi (竞技跑胡子) groups, 胡息, the win check with the best arrangement, and scores.

Pure code shared by the hub's engine and the seat board (a seat shows the 胡息 of the
player's own groups; the hub decides).  80 word cards (字牌), four of each; a card is an int:

    x1..x10 (小字 一..十) -> 0..9,   d1..d10 (大字 壹..拾) -> 10..19

so ``c % 10`` is the number less one and ``c >= 10`` says 大字.  Red cards are 二七十 and
贰柒拾.  A group is a ``(kind, cards)`` tuple, ``cards`` a sorted tuple of ints.  Kinds in
hand: 坎 ``kan`` (three identical held), 句 ``ju`` (three consecutive of one case, or
二七十 / 贰柒拾), 绞 ``jiao`` (two of one case and one of the other, one number), 将
``jiang`` (a pair).  Open kinds: ``chi`` (a 句 or 绞 made by 吃), ``peng``, ``wei``,
``pao`` and ``ti`` (four cards).

``arrange`` finds the arrangement of a hand with the most 胡息 by an exact search (counts
of the 20 cards, recursion on the lowest card, memo of the counts left; a holding is decided
in well under a millisecond on CPython, tests/bench/bench_paohuzi.py); ``win`` is the RULES.md
win check, ``win_on`` the same for a stock card turned up (with the 提, 跑, 偎 or 碰 it makes
first), ``chi_choices`` every 吃 with its 比牌, ``score`` gives 囤, 番 and the 名堂, ``settle``
the zero-sum scores.  ``Rules`` holds the win and score options (docs/rules-options.md).

>>> huxi("ju", cards("d1 d2 d3")), huxi("peng", cards("x5 x5 x5")), huxi("ti", cards("d7 d7 d7 d7"))
(6, 1, 12)
>>> h, groups = win(cards("x1 x2 x3 x2 x7 x10 d5 d5 d5 x4 x5 x6 d8 d9 d10"),
...                 [("peng", cards("x9 x9 x9")), ("chi", cards("d2 d7 d10"))])
>>> h, [k for k, cs in groups]
(19, ['peng', 'chi', 'kan', 'ju', 'ju', 'ju', 'ju'])
>>> score(groups)
(5, 1, [])
>>> settle("N", 5, 1)
{'E': -5, 'N': 10, 'W': -5}
"""

from .cards import InvalidCardError, parse

SEATS = ("E", "N", "W")  # play order E -> N -> W -> E
BIG = 10  # d1 is card 10
RED = (1, 6, 9)  # c % 10 of 二 七 十

KAN = "kan"  # 坎: three identical cards held in hand
JU = "ju"  # 句: three consecutive of one case, or 二七十 / 贰柒拾
JIAO = "jiao"  # 绞: two of one case and one of the other, one number
JIANG = "jiang"  # 将: a pair
CHI = "chi"  # a 句 or 绞 made by 吃
PENG = "peng"  # 碰
WEI = "wei"  # 偎 (臭偎 too)
PAO = "pao"  # 跑
TI = "ti"  # 提
HAND_KINDS = (KAN, JU, JIAO, JIANG)
OPEN_KINDS = (CHI, PENG, WEI, PAO, TI)
KINDS = HAND_KINDS + OPEN_KINDS
KIND_NAMES_ZH = {KAN: "坎", JU: "句", JIAO: "绞", JIANG: "将", CHI: "吃", PENG: "碰", WEI: "偎",
                 PAO: "跑", TI: "提"}

# 胡息 (small, big) per kind; 句 and 吃 only for 一二三 and 二七十 (SCORING_RUNS), others 0.
HUXI = {KAN: (3, 6), WEI: (3, 6), PENG: (1, 3), PAO: (6, 9), TI: (9, 12), JU: (3, 6), CHI: (3, 6),
        JIAO: (0, 0), JIANG: (0, 0)}

# 名堂 (stable ids) and their Chinese names, in the order ``score`` lists them.
HONG_HU = "hong_hu"  # 红胡: 10..12 red cards
HONG_WU = "hong_wu"  # 红乌: 13 or more red cards
DIAN_HU = "dian_hu"  # 点胡: exactly one red card
WU_HU = "wu_hu"  # 乌胡: no red card
DUIZI_HU = "duizi_hu"  # 对子胡: no 句 and no 绞
NAMES = (HONG_HU, HONG_WU, DIAN_HU, WU_HU, DUIZI_HU)
NAMES_ZH = {HONG_HU: "红胡", HONG_WU: "红乌", DIAN_HU: "点胡", WU_HU: "乌胡", DUIZI_HU: "对子胡"}


class GroupError(ValueError):
    """Cards that are not the group their kind says (``code``, ``en``, ``zh`` like InvalidCardError)."""

    def __init__(self, en, zh=None, code="not_a_group"):
        super().__init__(en)
        self.code = code
        self.en = en
        self.zh = zh or en


class Rules:
    """The rule options of Paohuzi's win and score.  Each is a decision of RULES.md; defaults
    are the project's (the 6-胡息 Hunan family, the 红黑点 preset of 名堂).

    - ``men``: the 门子 a winning holding forms (7; a 将 counts as one).
    - ``min_huxi``: the least 胡息 to win (6); 囤 = 1 + (胡息 − min_huxi) // ``tun_step`` (3),
      plus ``self_drawn_tun`` (1) for 自摸.
    - 名堂 values (番; 0 turns one off): ``hong_hu`` 2, ``hong_wu`` 4, ``dian_hu`` 3, ``wu_hu`` 5,
      ``duizi_hu`` 4.  ``fan`` is their sum, or 1 if none applies.
    - red thresholds: 红胡 from ``hong_hu_reds`` (10) red cards, 红乌 from ``hong_wu_reds`` (13).

    >>> Rules(min_huxi=10).to_dict()["min_huxi"]
    10
    >>> Rules(hong_hu_reds=14)
    Traceback (most recent call last):
    ...
    ValueError: hong_hu_reds (14) must be below hong_wu_reds (13)
    """

    OPTIONS = ("men", "min_huxi", "tun_step", "self_drawn_tun", "hong_hu", "hong_wu", "dian_hu",
               "wu_hu", "duizi_hu", "hong_hu_reds", "hong_wu_reds")
    LIMITS = {"men": (1, 10), "min_huxi": (0, 100), "tun_step": (1, 100), "self_drawn_tun": (0, 100),
              "hong_hu": (0, 100), "hong_wu": (0, 100), "dian_hu": (0, 100), "wu_hu": (0, 100),
              "duizi_hu": (0, 100), "hong_hu_reds": (2, 24), "hong_wu_reds": (2, 25)}

    def __init__(self, men=7, min_huxi=6, tun_step=3, self_drawn_tun=1, hong_hu=2, hong_wu=4, dian_hu=3,
                 wu_hu=5, duizi_hu=4, hong_hu_reds=10, hong_wu_reds=13):
        values = (men, min_huxi, tun_step, self_drawn_tun, hong_hu, hong_wu, dian_hu, wu_hu, duizi_hu,
                  hong_hu_reds, hong_wu_reds)
        for name, value in zip(self.OPTIONS, values):
            low, high = self.LIMITS[name]
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ValueError("%s must be a whole number from %d to %d, not %r" % (name, low, high, value))
            setattr(self, name, value)
        if hong_hu_reds >= hong_wu_reds:
            raise ValueError("hong_hu_reds (%d) must be below hong_wu_reds (%d)" % (hong_hu_reds, hong_wu_reds))

    @classmethod
    def from_dict(cls, data):
        """Build from a mapping (a rules file or a log), refusing unknown option names."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("rules must be a mapping of option names to values, not %r" % (data,))
        for key in data:
            if key not in cls.OPTIONS:
                raise ValueError("unknown Paohuzi rule option %r; options are %s" % (key, ", ".join(cls.OPTIONS)))
        return cls(**data)

    def to_dict(self):
        return {name: getattr(self, name) for name in self.OPTIONS}

    def __eq__(self, other):
        return isinstance(other, Rules) and self.to_dict() == other.to_dict()


# ---- cards -------------------------------------------------------------------------

def card(code):
    """The integer of a card code: ``card("x1") == 0``, ``card("d1") == 10``, ``card("d10") == 19``."""
    if isinstance(code, int) and not isinstance(code, bool):
        if 0 <= code < 20:
            return code
        raise InvalidCardError("%r is not a card number 0..19" % (code,), "%r 不是牌号（0..19）" % (code,))
    if isinstance(code, str) and 2 <= len(code) <= 3 and code[0] in "xd" and code[1:].isdigit():
        n = int(code[1:])  # fast path for canonical codes
        if 1 <= n <= 10 and code[1] != "0":
            return n - 1 if code[0] == "x" else n + 9
    c = parse(code)
    if c[0] not in "xd" or not c[1:].isdigit():
        raise InvalidCardError("%s is not a word card (字牌): write x1..x10 or d1..d10" % (c,),
                               "%s 不是字牌：写 x1..x10 或 d1..d10" % (c,))
    return card(c)


def code(c):
    """The text code of a card integer: ``code(0) == "x1"``, ``code(19) == "d10"``."""
    return ("x" + str(c + 1)) if c < BIG else ("d" + str(c - 9))


def cards(items):
    """Parse codes or card numbers (a list or tuple, or one string separated by spaces or commas)
    into a sorted tuple of ints.  Four copies of each card at most.

    >>> cards("d2 x1 X10")
    (0, 9, 11)
    >>> cards(["x5"] * 5)
    Traceback (most recent call last):
    ...
    paizhuo_shared.cards.InvalidCardError: x5 appears 5 times; the deck holds each card four times
    """
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    elif not isinstance(items, (list, tuple)):
        raise InvalidCardError("cards must be a list of codes like ['x1', 'd2'], not %r" % (items,),
                               "牌必须是代码列表，例如 ['x1', 'd2']")
    out = sorted(card(x) for x in items)
    for i in range(4, len(out)):
        if out[i] == out[i - 4]:
            raise InvalidCardError("%s appears 5 times; the deck holds each card four times" % code(out[i]),
                                   "%s 出现了 5 次；每张牌只有四张" % code(out[i]), "duplicate_card")
    return tuple(out)


def codes(cs):
    """Text codes of card integers, in the given order."""
    return [code(c) for c in cs]


def is_red(c):
    """True for 二七十 and 贰柒拾."""
    return c % 10 in RED


def red_count(cs):
    """How many red cards: ``red_count(cards("x2 x3 d7 d10")) == 3``."""
    n = 0
    for c in cs:
        if c % 10 in RED:
            n += 1
    return n


def counts(cs):
    """A list of 20: how many of each card."""
    n = [0] * 20
    for c in cs:
        n[c] += 1
    return n


# ---- groups ------------------------------------------------------------------------

def _is_run(cs):
    """A 句: three consecutive of one case (c, c+1, c+2 inside 1..10) or 二七十 of one case."""
    a, b, c = cs
    if a // 10 != c // 10:
        return False
    if b == a + 1 and c == a + 2:
        return True
    return a % 10 == 1 and b == a + 5 and c == a + 8


def _is_jiao(cs):
    a, b, c = cs
    return a < BIG <= c and a % 10 == c % 10 and b % 10 == a % 10


def _scoring_run(cs):
    """一二三 / 壹贰叁 or 二七十 / 贰柒拾: the 句 with 胡息 (``cs`` a 句 or 绞)."""
    a, b, c = cs
    if a // 10 != c // 10:
        return False  # a 绞
    return (a % 10 == 0 and b == a + 1) or (a % 10 == 1 and b == a + 5)


def _shape(kind, cs):
    """True if the sorted tuple of ints ``cs`` is a group of ``kind`` (no checks on ``kind``)."""
    n = len(cs)
    if kind in (KAN, PENG, WEI):
        return n == 3 and cs[0] == cs[2]
    if kind in (PAO, TI):
        return n == 4 and cs[0] == cs[3]
    if kind == JIANG:
        return n == 2 and cs[0] == cs[1]
    if n != 3:
        return False
    if kind == JU:
        return _is_run(cs)
    if kind == JIAO:
        return _is_jiao(cs)
    return _is_run(cs) or _is_jiao(cs)  # CHI


def _kind_of(kind):
    if kind not in KINDS:
        raise GroupError("unknown group kind %r; kinds are %s" % (kind, ", ".join(KINDS)),
                         "没有这种组合 %r；可用的有 %s" % (kind, "、".join(KINDS)), "unknown_kind")
    return kind


def is_group(kind, cs):
    """True if the cards (codes or ints) are a group of ``kind``; GroupError for a kind that is
    none of ``KINDS``, InvalidCardError for a bad card.

    >>> is_group("ju", "x2 x7 x10"), is_group("ju", "x2 d7 x10"), is_group("jiao", "x5 d5 d5")
    (True, False, True)
    >>> is_group("chi", "x8 x9 x10"), is_group("chi", "x9 x10 d1"), is_group("kan", "d3 d3 d3")
    (True, False, True)
    """
    return _shape(_kind_of(kind), cards(cs))


def _huxi(kind, cs):
    small, big = HUXI[kind]
    if kind in (JU, CHI) and not _scoring_run(cs):
        return 0  # any other 句, and every 绞 made by 吃
    return big if cs[0] >= BIG else small


def huxi(kind, cs):
    """The 胡息 of one group (RULES.md): 碰 1 / 3, 坎 and 偎 3 / 6, 跑 6 / 9, 提 9 / 12,
    一二三 or 二七十 (in hand or by 吃) 3 / 6, every other group and the 将 0.

    >>> huxi("kan", "x3 x3 x3"), huxi("wei", "d3 d3 d3"), huxi("pao", "x1 x1 x1 x1"), huxi("chi", "x2 x7 x10")
    (3, 6, 6, 3)
    >>> huxi("ju", "x2 x3 x4"), huxi("jiao", "x1 x1 d1"), huxi("jiang", "d10 d10")
    (0, 0, 0)
    >>> huxi("ju", "x1 x2 d3")
    Traceback (most recent call last):
    ...
    paizhuo_shared.paohuzi.GroupError: x1 x2 d3 is not a ju (句)
    """
    cs = cards(cs)
    if not _shape(_kind_of(kind), cs):
        text = " ".join(codes(cs)) or "nothing"
        raise GroupError("%s is not a %s (%s)" % (text, kind, KIND_NAMES_ZH[kind]),
                         "%s 不是%s" % (" ".join(codes(cs)) or "空", KIND_NAMES_ZH[kind]))
    return _huxi(kind, cs)


def group(kind, cs):
    """A checked group ``(kind, sorted tuple of ints)``; GroupError if the cards are not that kind."""
    cs = cards(cs)
    huxi(kind, cs)
    return kind, cs


# ---- the best arrangement ----------------------------------------------------------

def _candidates(n, c):
    """The 3-card groups of hand cards whose lowest card is ``c`` (every card below ``c`` gone),
    in the fixed order that breaks ties: 句, 二七十, then 绞 (two small, then two big)."""
    out = []
    r = c % 10
    if r <= 7 and n[c + 1] and n[c + 2]:
        out.append((JU, (c, c + 1, c + 2), (6 if c >= BIG else 3) if r == 0 else 0))
    if r == 1 and n[c + 5] and n[c + 8]:
        out.append((JU, (c, c + 5, c + 8), 6 if c >= BIG else 3))
    if c < BIG:
        if n[c] >= 2 and n[c + BIG]:
            out.append((JIAO, (c, c, c + BIG), 0))
        if n[c + BIG] >= 2:
            out.append((JIAO, (c, c + BIG, c + BIG), 0))
    return out


def _best(n, c, jiang, memo):
    """The most 胡息 of the cards counted in ``n`` (none below ``c``), with one 将 if ``jiang``:
    ``(huxi, chain)`` with chain ``(group, chain)`` or None; None if they cannot be arranged."""
    while c < 20 and not n[c]:
        c += 1
    if c == 20:
        return None if jiang else (0, None)
    key = jiang
    for i in range(c, 20):
        key = key * 3 + n[i]
    key = key * 20 + c
    if key in memo:
        return memo[key]
    best = None
    for kind, cs, h in _candidates(n, c):
        for x in cs:
            n[x] -= 1
        r = _best(n, c, jiang, memo)
        for x in cs:
            n[x] += 1
        if r is not None and (best is None or r[0] + h > best[0]):
            best = (r[0] + h, ((kind, cs), r[1]))
    if jiang and n[c] >= 2:
        n[c] -= 2
        r = _best(n, c, False, memo)
        n[c] += 2
        if r is not None and (best is None or r[0] > best[0]):
            best = (r[0], ((JIANG, (c, c)), r[1]))
    memo[key] = best
    return best


def arrange(hand, jiang=False):
    """The best arrangement of ALL the hand's cards into groups in hand: ``(huxi, groups)``, or None.

    Three identical cards are a 坎 and are never split; four identical cannot be in a hand (they
    are a 提).  The rest go into 句 and 绞, with exactly one 将 if ``jiang`` (else none).  The
    search is exact (every arrangement is weighed); of equal ones the first in a fixed order is
    kept.  Groups: the 坎 by card, then the others by their lowest card.

    >>> arrange(cards("x1 x2 x3 x1 x2 x3"))              # 一二三 twice beats 绞-less pairs
    (6, (('ju', (0, 1, 2)), ('ju', (0, 1, 2))))
    >>> arrange(cards("x2 x2 x2 x3 x4"))                  # the 坎 of 二 may not lend a card
    >>> arrange(cards("x1 x1 x2 x2 x3 x3 x4 x4"), jiang=True)   # 将 四四 (6 胡息), not 一一 (0)
    (6, (('ju', (0, 1, 2)), ('ju', (0, 1, 2)), ('jiang', (3, 3))))
    """
    n = counts(cards(hand))
    groups = []
    h = 0
    for c in range(20):
        if n[c] == 4:
            return None
        if n[c] == 3:
            groups.append((KAN, (c, c, c)))
            h += 6 if c >= BIG else 3
            n[c] = 0
    r = _best(n, 0, bool(jiang), {})
    if r is None:
        return None
    chain = r[1]
    while chain is not None:
        groups.append(chain[0])
        chain = chain[1]
    return h + r[0], tuple(groups)


def open_huxi(open_groups):
    """The 胡息 of open groups (``(kind, cards)`` each, checked)."""
    h = 0
    for kind, cs in open_groups:
        h += huxi(kind, cs)
    return h


def win(hand, open_groups=(), men=7, min_huxi=6):
    """The RULES.md win check: None, or ``(huxi, groups)`` — the open groups (checked, as given)
    then the best arrangement of the hand.

    All the cards, in hand and on the table, form ``men`` 门子 (a 将 counts as one, and is
    needed exactly when the player has a 跑 or 提), with at least ``min_huxi`` 胡息.  ``hand``
    holds every card in hand, the winning card too.

    >>> win(cards("x1 x2 x3 d1 d2 d3 x2 x7 x10 d2 d7 d10 x4 x5 x6 d4 d5 d6 x8 x9 x10")) is not None
    True
    >>> hand = cards("x1 x2 x3 x4 x5 x6 x7 x8 x9 d2 d7 d10 d4 d5 d6 d1 d1")
    >>> win(hand, [("pao", cards("d8 d8 d8 d8"))])[0]          # 9 + 3 + 6; the 跑 needs the 将 d1 d1
    18
    >>> win(hand, [("peng", cards("d8 d8 d8"))])                # no 跑 or 提: no 将 allowed
    """
    opened = []
    jiang = False
    h = 0
    for kind, cs in open_groups:
        g = group(kind, cs)
        if g[0] not in OPEN_KINDS:
            raise GroupError("%s is a kind in hand, not an open group" % kind, "%s 不是亮出的组合" % KIND_NAMES_ZH[kind],
                             "not_open")
        opened.append(g)
        h += _huxi(g[0], g[1])
        if g[0] in (PAO, TI):
            jiang = True
    hand = cards(hand)
    n = counts(hand)
    for g in opened:
        for c in g[1]:
            n[c] += 1
            if n[c] > 4:
                raise InvalidCardError("%s appears more than four times in hand and open groups" % code(c),
                                       "%s 在手牌和亮出的组合中出现超过四次" % code(c), "duplicate_card")
    r = arrange(hand, jiang)
    if r is None or len(opened) + len(r[1]) != men or h + r[0] < min_huxi:
        return None
    return h + r[0], tuple(opened) + r[1]


def win_on(c, hand, open_groups=(), self_drawn=False, men=7, min_huxi=6):
    """``win`` for a stock card ``c`` turned up (by the player: ``self_drawn``; or by another), with
    the moves the card makes first (RULES.md): onto a 坎 in hand it is a 提 (own card) or 跑;
    onto an open 偎 a 提 or 跑, onto an open 碰 a 跑; with a pair in hand it counts as a 偎 (own
    card, 3 / 6) or a 碰 (1 / 3) **[decision]**; else it joins the hand.  ``hand`` is without ``c``.

    >>> hand = cards("x1 x2 x3 x4 x5 x6 x7 x8 x9 d2 d7 d10 d4 d5 d6 d1 d1 d8 d8 d8")
    >>> win_on(card("d8"), hand, (), self_drawn=True)[0], win_on(card("d8"), hand)[0]   # 提 12 or 跑 9
    (21, 18)
    >>> pair = cards("x1 x2 x3 x4 x5 x6 x7 x8 x9 d2 d7 d10 d4 d5 d6 d1 d1 x10 x10 d10")
    >>> win_on(card("d1"), pair, (), self_drawn=True)[0], win_on(card("d1"), pair)[0]   # 偎 6 or 碰 3
    (15, 12)
    """
    hand = list(cards(hand))
    opened = [group(k, cs) for k, cs in open_groups]
    held = hand.count(c)
    if held == 4:
        raise InvalidCardError("%s appears five times with the card turned up" % code(c),
                               "加上翻出的牌，%s 出现了五次" % code(c), "duplicate_card")
    for i in range(len(opened)):
        kind, cs = opened[i]
        if cs[0] == c and kind in (WEI, PENG):
            opened[i] = (TI if kind == WEI and self_drawn else PAO, (c, c, c, c))
            return win(hand, opened, men, min_huxi)
    if held >= 2:
        for _ in range(held):
            hand.remove(c)
        if held == 3:
            opened.append((TI if self_drawn else PAO, (c, c, c, c)))
        else:
            opened.append((WEI if self_drawn else PENG, (c, c, c)))
        return win(hand, opened, men, min_huxi)
    return win(hand + [c], opened, men, min_huxi)


# ---- 吃 and 比牌 ---------------------------------------------------------------------

def _groups_with(c, n):
    """Every 句 and 绞 that holds card ``c`` once and two cards counted in ``n`` (sorted tuples)."""
    out = []
    r = c % 10
    base = c - r
    for lo in range(max(0, r - 2), min(7, r) + 1):  # windows lo..lo+2 holding r
        cs = (base + lo, base + lo + 1, base + lo + 2)
        if _takes(n, cs, c):
            out.append(cs)
    if r in RED:
        cs = (base + 1, base + 6, base + 9)
        if _takes(n, cs, c):
            out.append(cs)
    other = c + BIG if c < BIG else c - BIG
    for cs in ((c, c, other), (c, other, other)):
        if _takes(n, cs, c):
            out.append(tuple(sorted(cs)))
    return out


def _takes(n, cs, c):
    """True if ``cs`` less one ``c`` is in ``n``."""
    need = counts(cs)
    need[c] -= 1
    for x in cs:
        if n[x] < need[x]:
            return False
    return True


def chi_choices(claimed, hand):
    """Every way to 吃 ``claimed`` with ``hand`` (the claimer's cards, without the claimed one): a
    list of choices, each a tuple of 3-card groups.  The first group holds the claimed card and
    makes a 句 or 绞 with it; every copy of that card still in hand goes down too, each in a
    further 句 or 绞 of hand cards (比牌: the groups after the first, sorted), or the 吃 is not
    allowed.  Cards of a 坎 are never used (a 坎 of the card itself means 跑, not 吃).  Sorted;
    the same groups are listed once (which of two groups holding the card took it changes
    nothing on the table): ``chi_choice`` finds a choice given in any order.

    >>> [[codes(g) for g in ch] for ch in chi_choices(card("x5"), cards("x4 x6 x7 d3"))]
    [[['x4', 'x5', 'x6']], [['x5', 'x6', 'x7']]]
    >>> [[codes(g) for g in ch] for ch in chi_choices(card("x5"), cards("x4 x6 x5 d5 d5"))]
    [[['x4', 'x5', 'x6'], ['x5', 'd5', 'd5']], [['x5', 'x5', 'd5']]]
    >>> chi_choices(card("x5"), cards("x4 x6 x5"))       # the other 五 cannot go down: no 吃
    []
    """
    n = counts(cards(hand))
    if n[claimed] >= 3:
        return []  # a 坎 of the card: the holder must 跑
    for x in range(20):
        if n[x] >= 3:
            n[x] = 0  # 坎 (and 提) cards are never used
    found = []
    for first in _groups_with(claimed, n):
        _take(n, first, claimed, -1)
        for rest in _bipai(claimed, n):
            found.append((first,) + rest)
        _take(n, first, claimed, 1)
    found.sort()
    out = []
    seen = []
    for choice in found:
        key = tuple(sorted(choice))
        if key not in seen:
            seen.append(key)
            out.append(choice)
    return out


def chi_choice(claimed, hand, groups):
    """The choice of ``chi_choices(claimed, hand)`` that lays down ``groups`` (cards as codes or
    ints, in any order, the group holding the claimed card anywhere), or None.

    >>> chi_choice(card("x5"), cards("x4 x6 x5 d5 d5"), [["x5", "d5", "d5"], ["x4", "x5", "x6"]])
    ((3, 4, 5), (4, 14, 14))
    >>> chi_choice(card("x5"), cards("x4 x6 x5 d5 d5"), [["x4", "x5", "x6"]]) is None   # 比牌 missing
    True
    """
    try:
        key = tuple(sorted(cards(g) for g in groups))
    except (TypeError, ValueError):
        return None
    for choice in chi_choices(claimed, hand):
        if tuple(sorted(choice)) == key:
            return choice
    return None


def _take(n, cs, c, sign):
    """Remove (sign -1) or put back (+1) the cards of ``cs`` but one ``c``."""
    skip = True
    for x in cs:
        if x == c and skip:
            skip = False
            continue
        n[x] += sign


def _bipai(c, n):
    """The ways to lay down every copy of ``c`` counted in ``n`` in groups of hand cards: a list of
    tuples of groups (sorted groups, so each way once)."""
    if n[c] == 0:
        return [()]
    out = []
    n[c] -= 1
    for g in _groups_with(c, n):
        _take(n, g, c, -1)
        for rest in _bipai(c, n):
            way = tuple(sorted((g,) + rest))
            if way not in out:
                out.append(way)
        _take(n, g, c, 1)
    n[c] += 1
    return out


# ---- score --------------------------------------------------------------------------

def names(groups, rules=None):
    """The 名堂 of a winner's groups (all of them, open and in hand), in ``NAMES`` order; a 名堂
    whose value is 0 in ``rules`` is left out.

    >>> names([("peng", cards("x2 x2 x2")), ("kan", cards("d3 d3 d3"))])
    ['duizi_hu']
    """
    rules = rules or Rules()
    reds = 0
    runs = False
    for kind, cs in groups:
        reds += red_count(cs)
        if kind in (JU, JIAO, CHI):
            runs = True
    out = []
    if rules.hong_hu and rules.hong_hu_reds <= reds < rules.hong_wu_reds:
        out.append(HONG_HU)
    if rules.hong_wu and reds >= rules.hong_wu_reds:
        out.append(HONG_WU)
    if rules.dian_hu and reds == 1:
        out.append(DIAN_HU)
    if rules.wu_hu and reds == 0:
        out.append(WU_HU)
    if rules.duizi_hu and not runs:
        out.append(DUIZI_HU)
    return out


def score(groups, self_drawn=False, rules=None):
    """``(tun, fan, names)`` of a win with these groups (the winner's open groups and the
    arrangement of the hand, as ``win`` gives them).

    囤 = 1 + (胡息 − 6) // 3, plus 1 for 自摸; 番 = the sum of the 名堂's values, or 1 if none.

    >>> gs = win(cards("x1 x2 x3 d1 d2 d3 x4 x5 x6 d4 d5 d6 x7 x8 x9 d7 d8 d9 x10 x10 d10"))[1]
    >>> score(gs), score(gs, self_drawn=True)              # 3 + 6 胡息, 7 red cards
    ((2, 1, []), (3, 1, []))
    """
    rules = rules or Rules()
    h = 0
    for kind, cs in groups:
        h += huxi(kind, cs)
    if h < rules.min_huxi:
        raise ValueError("%d 胡息 is below the %d a win needs" % (h, rules.min_huxi))
    tun = 1 + (h - rules.min_huxi) // rules.tun_step
    if self_drawn:
        tun += rules.self_drawn_tun
    found = names(groups, rules)
    fan = 0
    for name in found:
        fan += getattr(rules, name)
    return tun, fan or 1, found


def settle(winner, tun, fan, seats=SEATS):
    """The zero-sum scores: the winner receives 囤 × 番 from each other seat; 荒庄 (``winner``
    None) scores 0 for all.

    >>> settle(None, 0, 0)
    {'E': 0, 'N': 0, 'W': 0}
    """
    out = {}
    for s in seats:
        out[s] = 0
    if winner is None:
        return out
    if winner not in out:
        raise ValueError("unknown seat %r; seats are %s" % (winner, ", ".join(seats)))
    for s in seats:
        if s != winner:
            out[s] = -tun * fan
            out[winner] += tun * fan
    return out
