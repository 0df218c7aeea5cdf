"""Guandan for bots, fastest: the (kind, size, key) of every play ``guandan.plays_by_kind``
lists, counted from ranks and suits alone, and the one play of a chosen key.

A bot asks "what can I play?" every turn: ``play_keys`` answers with plain tuples, several
times faster than building a :class:`~paizhuo_shared.guandan.Play` for each, and ``play_for``
makes the play of the key chosen.  ``play_keys(hand, rules, over)`` lists exactly the set
``{(p.kind, p.size, p.key) for p in plays_by_kind(hand, rules, over)}`` (tests pin it).

A module of its own, beside ``guandan``: the seat boards (a 64 KB heap) never load it.
"""

from .guandan import (BJ, BJ_KEY, BOMB, BOMB_POWER, FULL_HOUSE, JOKER_BOMB, JOKER_TIER, LEVEL_VALUE, PAIR,
                      PAIR_RUN, RJ, RJ_KEY, SF_TIER, SINGLE, STRAIGHT, STRAIGHT_FLUSH, TRIPLE, TRIPLE_RUN,
                      Rules, _CPYTHON, _POP5, _bomb_power, _target, cards, plays_by_kind)

_KEY_ROWS = {}  # level rank → the answers of _key_rows
_RANK_BIT = tuple([1 << (c >> 2) for c in range(54)])  # card → the bit of its rank (the jokers' is 1 << 13)


def _key_rows(lv):
    """The (kind, size, key) answers at level rank ``lv``, made once per level on CPython:
    (keys, singles, pairs, triples, 三带对 by rank, bombs by rank and size, 三连对 / 钢板 /
    顺子 / 同花顺 by run position)."""
    rows = _KEY_ROWS.get(lv)
    if rows is None:
        keys = [(LEVEL_VALUE if r == lv else r) * 16 + r for r in range(13)]
        rows = (keys, [(SINGLE, 1, v) for v in keys], [(PAIR, 2, v) for v in keys],
                [(TRIPLE, 3, v) for v in keys], [(FULL_HOUSE, 5, v) for v in keys],
                [[None] * 4 + [(BOMB, m, v) for m in range(4, 11)] for v in keys],
                [(PAIR_RUN, 6, i + 3) for i in range(12)], [(TRIPLE_RUN, 6, i + 2) for i in range(13)],
                [(STRAIGHT, 5, i + 5) for i in range(10)], [(STRAIGHT_FLUSH, 5, i + 5) for i in range(10)])
        if _CPYTHON:
            _KEY_ROWS[lv] = rows
    return rows


def play_keys(hand, rules, over=None):
    """The (kind, size, key) of every play ``plays_by_kind`` lists, each once, in no set order:
    counted from ranks and suits alone, no :class:`Play` built (a bot's first question, several
    times faster).  ``play_for`` makes the play of one of them.  The tuples are shared: do not
    change them.

    >>> r = Rules(level="2")
    >>> sorted(k for k in play_keys(cards("3S 4S 5S 6S 7D 7C 7H 2H"), r) if k[1] == 5)
    [('full_house', 5, 85), ('straight', 5, 6), ('straight', 5, 7), ('straight', 5, 8), ('straight_flush', 5, 6), ('straight_flush', 5, 7)]
    """
    W = rules.wild
    lv = rules.rank
    # Count without a branch per card: the jokers land on rank 13 (dropped by the masks), the
    # wild cards on the level rank's hearts (taken out after: no other card is a ♥ of it).
    cnt = [0] * 14
    have = [0, 0, 0, 0]  # per suit: a bit per rank held in it
    bit = _RANK_BIT
    for c in hand:
        cnt[c >> 2] += 1
        have[c & 3] |= bit[c]
    w = hand.count(W)
    nb = hand.count(BJ)
    nr = hand.count(RJ)
    cnt[lv] -= w
    cnt.pop()
    have[0] &= 8191
    have[1] &= 8191
    have[2] &= ~(1 << lv)
    want, above, floor = _target(over)
    lead = want is None
    keys, ones, twos, threes, fulls, bombs, pruns, truns, strs, flushes = _key_rows(lv)
    out = []
    fh = []  # the 三带对 by triple, when any pair will do
    many = 0  # ranks with two natural cards or more
    if lead:  # the common question, in one pass
        add = out.append
        for r in range(13):
            n = cnt[r]
            if n:
                add(ones[r])
                m = n + w
                if m > 1:
                    add(twos[r])
                    if n > 1:
                        many += 1
                    if m > 2:
                        add(threes[r])
                        fh.append(fulls[r])
                        if m > 3:
                            out += bombs[r][4:m + 1]
        present = None
    else:
        present = [r for r in range(13) if cnt[r]]
        for r in present:
            m = cnt[r] + w
            if cnt[r] > 1:
                many += 1
            if m > 2:
                if keys[r] > above:
                    fh.append(fulls[r])
                if m > 3:
                    out += [b for b in bombs[r][4:m + 1] if _bomb_power(b[1], b[2]) > floor]
        if want == SINGLE:
            out += [ones[r] for r in present if keys[r] > above]
        elif want == PAIR:
            out += [twos[r] for r in present if cnt[r] + w > 1 and keys[r] > above]
        elif want == TRIPLE:
            out += [threes[r] for r in present if cnt[r] + w > 2 and keys[r] > above]
    singles = lead or want == SINGLE
    pairs = lead or want == PAIR
    if w and (singles or pairs):  # a wild card alone, or the two, for a rank the hand lacks
        for r in ((lv,) if rules.lone_wild == "level" else range(13)):
            if not cnt[r] and keys[r] > above:
                if singles:
                    out.append(ones[r])
                if pairs and w == 2:
                    out.append(twos[r])
    for n, v in ((nb, BJ_KEY), (nr, RJ_KEY)):
        if n and v > above:
            if singles:
                out.append((SINGLE, 1, v))
            if n == 2 and pairs:
                out.append((PAIR, 2, v))
    if nb == 2 and nr == 2 and JOKER_TIER * BOMB_POWER > floor:
        out.append((JOKER_BOMB, 4, 0))
    if lead or want == FULL_HOUSE:
        if many > 1 or (rules.joker_pair_full_house and (nb == 2 or nr == 2)):
            out += fh  # a pair beside any triple: two cards of another rank, or the jokers
        else:  # look at each triple: the one rank with a pair may be the triple's own
            ranks = 13 - cnt.count(0)
            for t in range(13):
                n = cnt[t]
                kt = 3 - n if n < 3 else 0
                if n and kt <= w and keys[t] > above and (many - (n > 1) or (kt < w and ranks > 1) or kt + 2 == w):
                    out.append(fulls[t])
    # Runs by position: 0 is A as 1, then 2 … A; a window is a slice of them.
    if lead or want == PAIR_RUN:
        short = [2 - n if n < 2 else 0 for n in cnt]  # wild cards a rank needs for its pair
        short.insert(0, short[12])
        first = above - 2 if above > 2 else 0
        out += [pruns[i] for i in range(first, 12) if short[i] + short[i + 1] + short[i + 2] <= w]
    if lead or want == TRIPLE_RUN:
        short = [3 - n if n < 3 else 0 for n in cnt]
        short.insert(0, short[12])
        first = above - 1 if above > 1 else 0
        out += [truns[i] for i in range(first, 13) if short[i] + short[i + 1] <= w]
    # 顺子 and 同花顺: bit i of a position mask is run position i, so the window topped by
    # position i + 4 is (mask >> i) & 31.
    pop = _POP5
    h0, h1, h2, h3 = [m << 1 | (m >> 12 & 1) for m in have]
    hu = h0 | h1 | h2 | h3
    need = 5 - w
    plain = lead or want == STRAIGHT
    mixed = not (rules.wild_breaks_flush and w)  # without a wild card to break it, one suit is a flush alone
    first = floor - SF_TIER * BOMB_POWER - 4 if floor > SF_TIER * BOMB_POWER + 4 else 0
    add = out.append
    for i in range(10):
        if pop[hu >> i & 31] < need:
            continue
        a = h0 >> i & 31
        b = h1 >> i & 31
        c = h2 >> i & 31
        d = h3 >> i & 31
        if plain and i + 5 > above and (not mixed or (a != 0) + (b != 0) + (c != 0) + (d != 0) > 1):
            add(strs[i])
        if i >= first and (pop[a] >= need or pop[b] >= need or pop[c] >= need or pop[d] >= need):
            add(flushes[i])
    return out


def play_for(hand, rules, kind, size, key, over=None):
    """The play ``plays_by_kind`` lists for (kind, size, key) of ``hand``, or None if it lists
    none: what a bot plays after choosing from ``play_keys``."""
    for p in plays_by_kind(hand, rules, over):
        if p.key == key and p.kind == kind and len(p.cards) == size:
            return p
    return None
