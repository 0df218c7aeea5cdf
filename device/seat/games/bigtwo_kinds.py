"""The selection pre-check: what kind of Big Two play the selected cards are, or None.

Guidance only — the Play button is greyed for a selection that is no combination at all;
the hub's engine decides every play.  This is ``paizhuo_shared.bigtwo.classify`` reduced to
the kind under the default rules (straights as seed 004 第九条: A2345 < 34567 < … < TJQKA
< 23456), written for the seat's heap: two functions (about 450 bytes of heap), where
importing ``paizhuo_shared.bigtwo`` and building its ``Rules`` costs about 17 KB on the
64-bit unix port (more than a quarter of a seat's 64 KB).  The seat knows the default
rules only, as it did with ``Rules()``; an event under other straights would see the
pre-check wrong on those (the hub still decides).  ``tests/test_firmware_kinds.py``
checks that it agrees with ``classify`` on every kind-distinct selection of 1, 2, 3 and 5
cards, and under MicroPython on the classify vectors.

Plain Python (no MicroPython imports), so CPython tests import it as it is.

Cards are numbers rank * 4 + suit, sorted ascending (``seat.gfx.card_bytes``); ranks 0..12
are 3 4 5 6 7 8 9 T J Q K A 2.

>>> kind(bytes([0, 3])), kind(bytes([0, 5])), kind(bytes([0, 4, 8, 12, 17]))
('pair', None, 'straight')
"""


def straight(mask):
    """True if ``mask`` (bit r set for each rank r present) is a straight: five ranks in a
    row from 3 … T (34567 … TJQKA), A2345 or 23456 (the row wraps 2 → 3); JQKA2, QKA23 and
    KA234 are none.  Computed, not tabled: a table is heap, and this runs once per tap."""
    for start in range(13):
        if start < 8 or start > 10:
            m = 0
            for i in range(5):
                m |= 1 << ((start + i) % 13)
            if m == mask:
                return True
    return False


def kind(cs):
    """``"single"``, ``"pair"``, ``"triple"``, ``"straight"``, ``"flush"``, ``"full_house"``,
    ``"four_of_a_kind"``, ``"straight_flush"`` or None, for sorted distinct card numbers."""
    n = len(cs)
    if n == 1:
        return "single"
    if n == 2:
        return "pair" if cs[0] >> 2 == cs[1] >> 2 else None
    if n == 3:
        return "triple" if cs[0] >> 2 == cs[2] >> 2 else None
    if n != 5:
        return None
    suit = cs[0] & 3
    flush = True
    mask = 0
    for c in cs:
        mask |= 1 << (c >> 2)
        if c & 3 != suit:
            flush = False
    if straight(mask):
        return "straight_flush" if flush else "straight"
    if flush:
        return "flush"
    r0, r1, r2, r3, r4 = cs[0] >> 2, cs[1] >> 2, cs[2] >> 2, cs[3] >> 2, cs[4] >> 2
    # Sorted, so a full house is AAABB or AABBB and 铁枝 is AAAAB or ABBBB.
    if r0 == r1 and r3 == r4 and r1 != r3 and (r2 == r0 or r2 == r4):
        return "full_house"
    if r1 == r2 == r3 and (r0 == r1 or r4 == r1):
        return "four_of_a_kind"
    return None
