"""A rule-based, always-legal Paohuzi (跑胡子) player (托管, 人机赛, demos), deciding from its seat's view.

The bot reads only what its seat sees (its hand, every seat's open groups as far as shown, the
piles, the card out, ``may``) and weighs holdings by their *worth*:

- 门子 made (open groups, 坎, 句 and 绞 in hand, the 将 when a 跑 or 提 needs one), then partial
  groups (a pair, two cards of a 句 or 绞) by how many of the cards that complete them are still
  unseen; the 胡息 of it all (6 are needed to win), with a penalty for each one short;
- once the holding is one card from a win (听牌): how many unseen cards would win it, by the
  win check of :mod:`paizhuo_shared.paohuzi` itself.

Decisions:

- 胡 whenever ``may`` allows it;
- 碰 or 吃 (with its 比牌) when the holding after the claim and the best discard that follows is
  worth more than the holding kept; pass otherwise;
- discard: the card whose loss costs the least worth; of equal ones, the card its 下家 is least
  likely to 吃 (one it let go by before) and the others to 碰 or 跑 (few copies unseen), then the
  seed chooses.  Cards of a 坎 are kept (the rules allow them only when nothing else is left).

``seed`` picks among equally good choices, and ``whim`` (0 to 1) is how often it makes an offhand
choice instead (any card it may discard, any claim or a pass; never a 胡 missed): tables on the
same deals then play different deals, each the same for the same seed.  The rules' defaults are
assumed (7 门子, 6 胡息): the view does not carry the rules, and only the worth depends on them;
a 胡 is claimed exactly when ``may`` says so.

>>> from paizhuo.rules.paohuzi import Deal, Paohuzi
>>> import random
>>> order = list(range(80)); random.Random(5).shuffle(order)
>>> game = Paohuzi(Deal.from_permutation(order))
>>> bots = {seat: PaohuziBot(seed=i) for i, seat in enumerate("ENW")}
>>> while game.phase != "over":
...     seat = game.to_act()[0]
...     _ = game.apply(bots[seat].choose(game.view(seat)))
>>> sum(game.result().scores.values())
0
"""

from paizhuo_shared import paohuzi as pz
from paizhuo.rules.paohuzi import SEATS, Action
from .common import Seeded

MEN = 7  # the 门子 of a win and the 胡息 it needs: RULES.md's defaults (the view has no rules)
MIN_HUXI = 6

# Worth, in points: a 门子 made is worth far more than a partial group, and a 听牌 more than any
# holding one card further away.  The weights were tuned by seeded deals of one bot against two
# of the previous weights (its seat going round, 300 deals each): partial groups valued higher,
# or 胡息 weighed more, won fewer deals.
GROUP = 28  # a 门子: open group, 坎, 句 or 绞 in hand
JIANG = 20  # the 将 a 跑 or 提 needs (one)
PART = 2  # a partial group, plus PART_LIVE per unseen card that completes it (up to LIVE_CAP)
PART_LIVE = 1
LIVE_CAP = 3
PAIR = 4  # a pair: also a 碰 or 偎 (胡息) to come, or the 将
HUXI = 1  # per 胡息 made (or, for a pair, to be made by its 碰)
SHORT = 4  # per 胡息 short of MIN_HUXI
READY = 60  # 听牌
OUT = 2  # per third of an unseen card that wins a 听牌 (ANYONE: a whole card)
ANYONE, OWN = 3, 1  # a winning card turned up by any seat, or only by the seat itself (in thirds)
CLAIM_MARGIN = 0  # a claim must gain more than this over the holding kept
# Feeding the others, for a discard (small: they only break ties of worth).
FEED_CHI = 2  # the 下家 may 吃 it: not a card it let go by before
FEED_PAIR = 1  # two or more copies unseen: someone may 碰 it
FEED_KAN = 1  # three copies unseen: someone may hold a 坎 of it and 跑


def _other(c):
    """The same number in the other case (小字 <-> 大字)."""
    return c + pz.BIG if c < pz.BIG else c - pz.BIG


def _partials(c):
    """The two-card partial groups whose lower card is ``c``: ``(partner, cards that complete it,
    胡息 of the completed 句)`` each, the pair first (completed by a third copy: a 碰 or 偎, 1 / 3
    胡息 at least, or a 绞 with the other case)."""
    r = c % 10
    small = c < pz.BIG
    run = 3 if small else 6  # 一二三 / 二七十 small, big
    out = [(c, (c, _other(c)), 1 if small else 3)]
    if r <= 8:  # two in a row: the card below and the card above
        wants = tuple(x for x in (c - 1 if r >= 1 else None, c + 2 if r <= 7 else None) if x is not None)
        out.append((c + 1, wants, run if r == 0 else 0))
    if r <= 7:  # one between
        out.append((c + 2, (c + 1,), run if r == 0 else 0))
    if r == 1:  # 二七 and 二十 of 二七十
        out.append((c + 5, (c + 8,), run))
        out.append((c + 8, (c + 5,), run))
    if r == 6:  # 七十
        out.append((c + 3, (c - 5,), run))
    if small:  # 绞: one of each case, either completes it
        out.append((c + pz.BIG, (c, c + pz.BIG), 0))
    return tuple(out)


def _groups(c):
    """The 句 and 绞 whose lowest card is ``c``: ``(second card, third card, 胡息)`` each."""
    out = []
    r = c % 10
    if r <= 7:
        out.append((c + 1, c + 2, (6 if c >= pz.BIG else 3) if r == 0 else 0))
    if r == 1:
        out.append((c + 5, c + 8, 6 if c >= pz.BIG else 3))
    if c < pz.BIG:
        out.append((c, c + pz.BIG, 0))
        out.append((c + pz.BIG, c + pz.BIG, 0))
    return tuple(out)


_PARTIALS = tuple(_partials(c) for c in range(20))
_GROUPS = tuple(_groups(c) for c in range(20))


_NOTHING = (0, 0, 0)


class _Weigher:
    """The worth of holdings of one seat at one decision: ``unseen`` (copies of each card the seat
    cannot see anywhere) is fixed for the decision, so the partial groups are valued once and
    sub-holdings are remembered across the holdings compared."""

    __slots__ = ("unseen", "parts", "memo", "wins")

    def __init__(self, unseen):
        self.unseen = unseen
        self.parts = []  # per lower card: (partner, worth, 胡息 to come) of its partial groups
        for c in range(20):
            row = []
            for partner, wants, h in _PARTIALS[c]:
                live = 0
                for w in wants:
                    live += unseen[w]
                if partner == c:  # a pair: a 碰 of it to come if the third copy is unseen
                    h = h if unseen[c] else 0
                    row.append((c, PAIR + PART_LIVE * min(live, LIVE_CAP) + HUXI * h, h))
                else:
                    row.append((partner, PART + PART_LIVE * min(live, LIVE_CAP) + (HUXI * h // 2 if live else 0), 0))
            self.parts.append(tuple(row))
        self.memo = ({}, {})  # without, with a 将 to find
        self.wins = {}

    def worth(self, n, opened):
        """The worth of holding the counts ``n`` in hand with the open groups ``opened`` (an
        :class:`_Open`)."""
        m = list(n)
        made = len(opened.groups)
        huxi = opened.huxi
        for c in range(20):
            if m[c] >= 3:  # a 坎: never split
                made += 1
                huxi += 6 if c >= pz.BIG else 3
                m[c] = 0
        value, groups, h = self._best(m, 0, opened.jiang)
        score = value + GROUP * made + HUXI * huxi
        made += groups
        huxi += h
        if huxi < MIN_HUXI:
            score -= SHORT * (MIN_HUXI - huxi)
        if made >= MEN - 1:  # a 听牌 lacks one 门子 at the most (the card completes a partial group)
            outs = self._outs(n, opened)
            if outs:
                score += READY + OUT * outs
        return score

    def _best(self, m, c, jiang):
        """The best split of the counts ``m`` (no 坎, nothing below ``c``) into groups, partial
        groups and single cards: ``(worth, 门子 made, 胡息)``."""
        while c < 20 and not m[c]:
            c += 1
        if c == 20:
            return _NOTHING
        memo = self.memo[jiang]
        key = bytes(m)
        best = memo.get(key)
        if best is not None:
            return best
        m[c] -= 1  # c is used below, or alone
        best = self._best(m, c, jiang)
        for a, b, h in _GROUPS[c]:
            if m[a] and m[b] and (a != b or m[a] >= 2):
                m[a] -= 1
                m[b] -= 1
                r = self._best(m, c, jiang)
                m[a] += 1
                m[b] += 1
                v = r[0] + GROUP + HUXI * h
                if v > best[0]:
                    best = (v, r[1] + 1, r[2] + h)
        for partner, worth, h in self.parts[c]:
            if m[partner]:
                m[partner] -= 1
                if jiang and partner == c:
                    r = self._best(m, c, False)
                    if r[0] + JIANG > best[0]:
                        best = (r[0] + JIANG, r[1] + 1, r[2])
                r = self._best(m, c, jiang)
                m[partner] += 1
                if r[0] + worth > best[0]:
                    best = (r[0] + worth, r[1], r[2] + h)
        m[c] += 1
        memo[key] = best
        return best

    def _outs(self, n, opened):
        """How many unseen cards would win, in thirds (a card that wins only when the seat turns it
        up itself counts a third): with each, the win check as the engine makes it (a card
        joining a 坎, 偎 or 碰 is a 跑; one making three of a kind with a pair a 碰, or a 偎 when
        the seat turns it up itself)."""
        key = (bytes(n), opened.key)
        if key in self.wins:
            return self.wins[key]
        outs = 0
        hand = [x for x in range(20) for _ in range(n[x])]
        for c in range(20):
            if self.unseen[c] and (_touches(n, c) or c in opened.joins):
                outs += self.unseen[c] * _wins_with(hand, n, opened, c)
        self.wins[key] = outs
        return outs


class _Open:
    """A seat's open groups as the weigher takes them: ``groups`` (``(kind, cards)`` each), their
    胡息, whether a 将 is needed (a 跑 or 提 among them), the cards that would 跑 onto them, and a
    key for remembering."""

    __slots__ = ("groups", "huxi", "jiang", "joins", "key")

    def __init__(self, groups):
        self.groups = list(groups)
        self.huxi = sum(pz.huxi(kind, cs) for kind, cs in self.groups)
        self.jiang = any(kind in (pz.PAO, pz.TI) for kind, _ in self.groups)
        self.joins = set(cs[0] for kind, cs in self.groups if kind in (pz.WEI, pz.PENG))  # a 跑 onto them
        self.key = tuple(self.groups)

    def plus(self, groups):
        return _Open(self.groups + list(groups))


def _touches(n, c):
    """True if card ``c`` could join the hand counted in ``n`` in some group (a card that joins
    none cannot win)."""
    if n[c] or n[_other(c)]:
        return True
    r = c % 10
    base = c - r
    for x in (r - 2, r - 1, r + 1, r + 2):
        if 0 <= x <= 9 and n[base + x]:
            return True
    return r in pz.RED and any(n[base + x] for x in pz.RED)


def _wins_with(hand, n, opened, c):
    """How often the hand (``hand`` its cards, ``n`` their counts) with the open groups wins on
    ``c`` (the engine's win check for a card from the stock): ANYONE (whoever turns it up), OWN
    (only when the seat turns it up itself: 偎 with a pair), or 0."""
    big = c >= pz.BIG
    men = len(opened.groups)
    huxi = opened.huxi
    jiang = opened.jiang
    if n[c] == 3:  # 跑 onto the 坎
        hand = [x for x in hand if x != c]
        men, huxi, jiang = men + 1, huxi + (9 if big else 6), True
    elif c in opened.joins:  # 跑 onto the 偎 or 碰
        was = [kind for kind, cs in opened.groups if kind in (pz.WEI, pz.PENG) and cs[0] == c][0]
        huxi += (9 if big else 6) - pz.HUXI[was][1 if big else 0]
        jiang = True
    elif n[c] == 2:  # three of a kind with the pair: a 碰 (another seat's card) or a 偎 (one's own)
        hand = [x for x in hand if x != c]
        if _wins(hand, men + 1, huxi + (3 if big else 1), jiang):
            return ANYONE
        return OWN if _wins(hand, men + 1, huxi + (6 if big else 3), jiang) else 0
    else:
        hand = sorted(hand + [c])
    return ANYONE if _wins(hand, men, huxi, jiang) else 0


def _wins(hand, men, huxi, jiang):
    """The RULES.md win check (:func:`paizhuo_shared.paohuzi.win`) of ``hand`` beside ``men`` open
    groups of ``huxi`` 胡息, with the cheap refusals first."""
    left = MEN - men
    if len(hand) != 3 * left - (1 if jiang else 0):
        return False  # the cards cannot make the 门子 left
    r = pz.arrange(hand, jiang)
    return r is not None and len(r[1]) == left and huxi + r[0] >= MIN_HUXI


class PaohuziBot(Seeded):
    """A computer player, deterministic for its ``seed``: ``choose(view)`` is one legal
    :class:`~paizhuo.rules.paohuzi.Action` of the seat whose ``view`` it is given."""

    def _pick(self, options):
        """The best of ``(worth, choice)`` options, the seed choosing among equals."""
        top = max(w for w, _ in options)
        best = [x for w, x in options if w == top]
        return best[self.rng.randrange(len(best))] if len(best) > 1 else best[0]

    def choose(self, view):
        seat = view.get("seat")
        if seat not in SEATS or seat not in view.get("to_act", ()):
            raise ValueError("the bot was asked to act for seat %r, which has no decision to make" % (seat,))
        hand = pz.cards(view["hand"])
        n = pz.counts(hand)
        opened = _Open((g["kind"], pz.cards(g["cards"])) for g in view["open"][seat])
        weigher = _Weigher(_unseen(view, n))
        if view["phase"] == "claim":
            return self._claim(view, seat, n, opened, weigher)
        free = _discardable(n)
        if self._offhand():
            return Action.discard(seat, pz.code(free[self.rng.randrange(len(free))]))
        safe = _passed_by_next(view, seat)
        options = []
        for c in free:
            n[c] -= 1
            w = weigher.worth(n, opened)
            n[c] += 1
            options.append((w - _feed(c, safe, weigher.unseen), c))
        return Action.discard(seat, pz.code(self._pick(options)))

    def _claim(self, view, seat, n, opened, weigher):
        may = view["may"]
        if may["hu"]:
            return Action.hu(seat)
        c = pz.card(view["out"]["card"])
        claims = []
        if may["peng"]:
            claims.append(("peng", None))
        for choice in may["chi"]:
            claims.append(("chi", choice))
        if self._offhand():
            k = self.rng.randrange(len(claims) + 1)
            return self._action(seat, claims[k]) if k < len(claims) else Action.pass_(seat)
        options = [(weigher.worth(n, opened), ("pass", None))]
        safe = _passed_by_next(view, seat)
        for claim in claims:
            m = list(n)
            if claim[0] == "peng":
                m[c] -= 2
                made = opened.plus([(pz.PENG, (c, c, c))])
            else:
                groups = [pz.cards(g) for g in claim[1]]
                for g in groups:
                    for x in g:
                        m[x] -= 1
                m[c] += 1  # the card out is not from the hand
                made = opened.plus((pz.CHI, g) for g in groups)
            best = None
            for d in _discardable(m):  # a discard follows the claim
                m[d] -= 1
                w = weigher.worth(m, made) - _feed(d, safe, weigher.unseen)
                m[d] += 1
                best = w if best is None else max(best, w)
            if best is None:
                best = weigher.worth(m, made)
            options.append((best, claim))
        top = max(w for w, _ in options)
        if options[0][0] + CLAIM_MARGIN >= top:  # keeping the holding is as good: pass
            return Action.pass_(seat)
        return self._action(seat, self._pick(options[1:]))

    @staticmethod
    def _action(seat, claim):
        if claim[0] == "peng":
            return Action.peng(seat)
        return Action.chi(seat, claim[1])


def _discardable(n):
    """The cards that may be discarded from the counts ``n``: any not of a 坎, or any at all when
    the hand holds only 坎 (the engine's rule)."""
    free = [c for c in range(20) if 0 < n[c] < 3]
    return free or [c for c in range(20) if n[c]]


def _unseen(view, n):
    """Copies of each card the seat cannot see: not in its hand (counts ``n``), an open group as
    shown, a pile, nor out."""
    seen = list(n)
    for groups in view["open"].values():
        for g in groups:
            for c in pz.cards(g["cards"] or ()):
                seen[c] += 1
    for pile in view["piles"].values():
        for c in pz.cards(pile):
            seen[c] += 1
    if view.get("out"):
        seen[pz.card(view["out"]["card"])] += 1
    return [max(0, 4 - k) for k in seen]


def _passed_by_next(view, seat):
    """Cards the seat's 下家 let go by when it could have 吃 them, or threw away: those in the
    seat's own pile (discarded or turned up by the seat) and in the 下家's (turned up or discarded
    by it).  A card declined once is 臭牌 for good, and one it could not use then is likely no
    use now."""
    nxt = SEATS[(SEATS.index(seat) + 1) % len(SEATS)]
    return set(pz.cards(view["piles"][seat])) | set(pz.cards(view["piles"][nxt]))


def _feed(c, safe, unseen):
    """How much discarding ``c`` may feed the others (small; it breaks ties of worth)."""
    k = 0 if c in safe else FEED_CHI
    if unseen[c] >= 2:
        k += FEED_PAIR
    if unseen[c] >= 3:
        k += FEED_KAN
    return k
