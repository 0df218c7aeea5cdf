"""Card codes of every game's deck, parsing with clear errors, and decks.

A card is written as text everywhere outside an engine:

- French cards: rank then suit, ``3D`` ``TS`` ``2S`` (ranks ``23456789TJQKA``,
  suits ``S H C D`` = ♠♥♣♦).  ``10`` is accepted for ``T`` and lower case is accepted.
- Jokers: ``BJ`` 小王 (black/small) and ``RJ`` 大王 (red/big).
- Word cards (字牌): ``x1``..``x10`` 小字 一..十 and ``d1``..``d10`` 大字 壹..拾.

Each engine turns codes into its own small integers for speed; this module only
knows what a valid code is and which deck it belongs to.

>>> parse("10s")
'TS'
>>> parse_many("3D 3S", deck=DECK52)
['3D', '3S']
>>> pretty("3D")
'♦3'
"""

RANKS = "23456789TJQKA"
SUITS = "DCHS"  # ascending suit order: ♦ < ♣ < ♥ < ♠
SUIT_SYMBOLS = {"D": "♦", "C": "♣", "H": "♥", "S": "♠"}
JOKERS = ("BJ", "RJ")
JOKER_NAMES = {"BJ": "小王", "RJ": "大王"}
WORDS_SMALL = "一二三四五六七八九十"  # 小字
WORDS_BIG = "壹贰叁肆伍陆柒捌玖拾"  # 大字

# Deck names: which codes exist, and how many copies of each.
DECK52 = "52"  # one deck without jokers
DECK108 = "108"  # two decks with jokers
DECK80 = "80"  # word cards: x1..x10, d1..d10, four of each


class InvalidCardError(ValueError):
    """A card code that is not a card of the deck in use.

    ``code`` is a stable machine-readable reason, ``zh``/``en`` the text a seat shows.
    """

    def __init__(self, en, zh=None, code="invalid_card"):
        super().__init__(en)
        self.code = code
        self.en = en
        self.zh = zh or en


def french_deck():
    """The 52 codes of one deck, in rank then suit order (2D, 2C, … AS)."""
    return [r + s for r in RANKS for s in SUITS]


def deck(name):
    """Every card of a deck as a list of codes, duplicates included.

    >>> len(deck(DECK52)), len(deck(DECK108)), len(deck(DECK80))
    (52, 108, 80)
    """
    if name == DECK52:
        return french_deck()
    if name == DECK108:
        one = french_deck() + list(JOKERS)
        return one + one
    if name == DECK80:
        out = []
        for n in range(1, 11):
            for _ in range(4):
                out.append("x" + str(n))
                out.append("d" + str(n))
        return out
    raise ValueError("unknown deck %r: use %r, %r or %r" % (name, DECK52, DECK108, DECK80))


def copies(name):
    """How many copies of each code a deck holds."""
    if name == DECK52:
        return 1
    if name == DECK108:
        return 2
    if name == DECK80:
        return 4
    raise ValueError("unknown deck %r" % (name,))


def parse(text):
    """Normalise one card code, or raise InvalidCardError saying what is wrong.

    >>> parse("ah"), parse("rj"), parse("D10")
    ('AH', 'RJ', 'd10')
    """
    if not isinstance(text, str):
        raise InvalidCardError(
            "a card must be a text code like '3D', not %r" % (text,),
            "牌必须写成代码，例如 3D",
        )
    t = text.strip()
    if not t:
        raise InvalidCardError("empty card code; write a card like '3D'", "牌代码为空，例如 3D")
    up = t.upper()
    if up in JOKERS:
        return up
    if up[0] in "XD" and len(up) >= 2 and up[1:].isdigit():
        n = int(up[1:])
        if 1 <= n <= 10:
            return up[0].lower() + str(n)
        raise InvalidCardError(
            "word card (字牌) %r: the number must be 1 to 10" % (text,),
            "字牌 %s：数字必须是 1 到 10" % (text,),
        )
    if up.startswith("10"):
        up = "T" + up[2:]
    if len(up) == 2 and up[0] in RANKS and up[1] in SUITS:
        return up
    hint = suit_first(text)
    if hint:
        raise hint
    raise InvalidCardError(
        "%r is not a card: write rank (2-9, T, J, Q, K, A) then suit (S, H, C, D), like '3D' or 'TS'"
        % (text,),
        "%s 不是牌：先写点数（2-9、T、J、Q、K、A）再写花色（S、H、C、D），例如 3D、TS" % (text,),
    )


def suit_first(text):
    """The error for a French card written suit first (``S3``, ``D3``), or None.

    ``D3`` is also the word card 大字 3, so decks with French cards check this before saying
    the code is not in the deck.
    """
    up = text.strip().upper() if isinstance(text, str) else ""
    if len(up) == 2 and up[1] in RANKS and up[0] in SUITS:
        return InvalidCardError(
            "card %r: write the rank first, like %r" % (text, up[1] + up[0]),
            "牌 %s：点数在前，例如 %s" % (text, up[1] + up[0]),
        )
    return None


def in_deck(code, name):
    """True if ``code`` (already normalised) is a card of deck ``name``."""
    if name == DECK52:
        return len(code) == 2 and code[0] in RANKS and code[1] in SUITS
    if name == DECK108:
        return code in JOKERS or (len(code) == 2 and code[0] in RANKS and code[1] in SUITS)
    if name == DECK80:
        return code[0] in "xd" and code[1:].isdigit() and 1 <= int(code[1:]) <= 10
    raise ValueError("unknown deck %r" % (name,))


def parse_many(items, deck=DECK52):
    """Parse a list of codes (or one space/comma separated string) for a deck.

    Refuses codes that are not in the deck and more copies of a card than the deck has.

    >>> parse_many("3d,3s")
    ['3D', '3S']
    >>> parse_many(["3D", "3D"])
    Traceback (most recent call last):
    ...
    paizhuo_shared.cards.InvalidCardError: 3D appears 2 times, but the deck has only 1
    """
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    elif not isinstance(items, (list, tuple)):
        raise InvalidCardError(
            "cards must be a list of codes like ['3D', '3S'], not %r" % (items,),
            "牌必须是代码列表，例如 ['3D', '3S']",
        )
    limit = copies(deck)
    out = []
    seen = {}
    for item in items:
        code = parse(item)
        if not in_deck(code, deck):
            if deck != DECK80 and suit_first(item):
                raise suit_first(item)
            raise InvalidCardError(
                "%s is not a card of the %s-card deck" % (code, deck),
                "%s 不是这副 %s 张牌中的牌" % (code, deck),
            )
        n = seen.get(code, 0) + 1
        if n > limit:
            raise InvalidCardError(
                "%s appears %d times, but the deck has only %d" % (code, n, limit),
                "%s 出现了 %d 次，但这副牌只有 %d 张" % (code, n, limit),
                "duplicate_card",
            )
        seen[code] = n
        out.append(code)
    return out


def sort_key(code):
    """A natural display order for any deck: 2..A with ♦♣♥♠ inside a rank, then 小王, 大王;
    小字 一..十, then 大字 壹..拾.  Games with their own order (3..2, say) sort by it.

    >>> sorted(["RJ", "AS", "2D", "BJ", "TD"], key=sort_key)
    ['2D', 'TD', 'AS', 'BJ', 'RJ']
    """
    if code in JOKERS:
        return 100 + JOKERS.index(code)
    if code[0] == "x":
        return 200 + int(code[1:])
    if code[0] == "d":
        return 300 + int(code[1:])
    return RANKS.index(code[0]) * 4 + SUITS.index(code[1])


def sort_codes(codes):
    """Codes sorted by :func:`sort_key` (a new list)."""
    return sorted(codes, key=sort_key)


def pretty(code):
    """How a card is printed for people: suit symbol then rank (``♠T``), 小王/大王, 一/壹.

    >>> pretty("TS"), pretty("RJ"), pretty("x2"), pretty("d10")
    ('♠10', '大王', '二', '拾')
    """
    if code in JOKER_NAMES:
        return JOKER_NAMES[code]
    if code[0] == "x":
        return WORDS_SMALL[int(code[1:]) - 1]
    if code[0] == "d":
        return WORDS_BIG[int(code[1:]) - 1]
    rank = "10" if code[0] == "T" else code[0]
    return SUIT_SYMBOLS[code[1]] + rank
