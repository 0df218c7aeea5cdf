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

import random

from paizhuo_shared import paohuzi as pz
from paizhuo.rules.paohuzi import SEATS, Action

MEN = 7  # the 门子 of a win and the 胡息 it needs: RULES.md's defaults (the view has no rules)
MIN_HUXI = 6

# Worth, in points: a 门子 made is worth more than the best partial group, and a 听牌 more than any
# holding one card further away.
GROUP = 20  # a 门子: open group, 坎, 句 or 绞 in hand
JIANG = 16  # the 将 a 跑 or 提 needs (one)
PART = 4  # a partial group, plus PART_LIVE per unseen card that completes it (up to LIVE_CAP)
PART_LIVE = 2
LIVE_CAP = 3
PAIR = 6  # a pair: also a 碰 or 偎 (胡息) to come, or the 将
HUXI = 2  # per 胡息 made (or, for a pair, to be made by its 碰)
SHORT = 4  # per 胡息 short of MIN_HUXI
READY = 60  # 听牌
OUT = 6  # per unseen card that wins a 听牌
# Feeding the others, for a discard (small: they only break ties of worth).
FEED_CHI = 2  # the 下家 may 吃 it: not a card it let go by before
FEED_PAIR = 1  # two or more copies unseen: someone may 碰 it
FEED_KAN = 1  # three copies unseen: someone may hold a 坎 of it and 跑


def _other(c):
    """The same number in the other case (小字 <-> 大字)."""
    return c + pz.BIG if c < pz.BIG else c - pz.BIG


def _partials(c):
    """The two-card partial groups whose lower card is ``c``: ``(partner, cards that complete it,
    胡息 of the completed 句)`` each (a pair is weighed apart)."""
    r = c % 10
    small = c < pz.BIG
    run = 3 if small else 6  # 一二三 / 二七十 small, big
    out = []
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


_PARTIALS = tuple(_partials(c) for c in range(20))


def _groups(m, c):
    """The 句 and 绞 of the counts ``m`` whose lowest card is ``c``: ``(cards, 胡息)`` each."""
    out = []
    r = c % 10
    if r <= 7 and m[c + 1] and m[c + 2]:
        out.append(((c, c + 1, c + 2), pz.huxi(pz.JU, (c, c + 1, c + 2)) if r == 0 else 0))
    if r == 1 and m[c + 5] and m[c + 8]:
        out.append(((c, c + 5, c + 8), 6 if c >= pz.BIG else 3))
    if c < pz.BIG:
        if m[c] >= 2 and m[c + pz.BIG]:
            out.append(((c, c, c + pz.BIG), 0))
        if m[c + pz.BIG] >= 2:
            out.append(((c, c + pz.BIG, c + pz.BIG), 0))
    return out


class _Weigher:
    """The worth of holdings of one seat at one decision: ``unseen`` (copies of each card the seat
    cannot see anywhere) is fixed for the decision, so sub-holdings are remembered across the
    holdings compared."""

    __slots__ = ("unseen", "memo", "wins")

    def __init__(self, unseen):
        self.unseen = unseen
        self.memo = {}
        self.wins = {}

    def worth(self, n, opened):
        """The worth of holding the counts ``n`` in hand with the open groups ``opened``."""
        jiang = False
        huxi = 0
        for kind, cs in opened:
            huxi += pz.huxi(kind, cs)
            if kind in (pz.PAO, pz.TI):
                jiang = True
        m = list(n)
        made = len(opened)
        for c in range(20):
            if m[c] >= 3:  # a 坎: never split
                made += 1
                huxi += 6 if c >= pz.BIG else 3
                m[c] = 0
        value, groups, h = self._best(m, 0, jiang)
        made += groups
        huxi += h
        score = value + GROUP * (made - groups) + HUXI * (huxi - h)
        if huxi < MIN_HUXI:
            score -= SHORT * (MIN_HUXI - huxi)
        if made >= MEN - 2:  # close enough to look for 听牌
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
            return 0, 0, 0
        key = (bytes(m), jiang)
        got = self.memo.get(key)
        if got is not None:
            return got
        unseen = self.unseen
        m[c] -= 1  # c alone
        best = self._best(m, c, jiang)
        m[c] += 1
        for cs, h in _groups(m, c):
            for x in cs:
                m[x] -= 1
            r = self._best(m, c, jiang)
            for x in cs:
                m[x] += 1
            v = r[0] + GROUP + HUXI * h
            if v > best[0]:
                best = (v, r[1] + 1, r[2] + h)
        if m[c] >= 2:
            m[c] -= 2
            if jiang:
                r = self._best(m, c, False)
                if r[0] + JIANG > best[0]:
                    best = (r[0] + JIANG, r[1] + 1, r[2])
            r = self._best(m, c, jiang)
            m[c] += 2
            live = unseen[c] + unseen[_other(c)]
            h = (3 if c >= pz.BIG else 1) if unseen[c] else 0  # a 碰 of it to come
            v = r[0] + PAIR + PART_LIVE * min(live, LIVE_CAP) + HUXI * h
            if v > best[0]:
                best = (v, r[1], r[2] + h)
        for partner, wants, h in _PARTIALS[c]:
            if not m[partner]:
                continue
            live = 0
            for w in wants:
                live += unseen[w]
            m[c] -= 1
            m[partner] -= 1
            r = self._best(m, c, jiang)
            m[c] += 1
            m[partner] += 1
            v = r[0] + PART + PART_LIVE * min(live, LIVE_CAP) + (HUXI * h // 2 if live else 0)
            if v > best[0]:
                best = (v, r[1], r[2])
        self.memo[key] = best
        return best

    def _outs(self, n, opened):
        """How many unseen cards would win: with each, the win check as the engine makes it
        (a card joining a 坎, 偎 or 碰 is a 跑; one making three of a kind with a pair a 碰, or a
        偎 when the seat turns it up itself)."""
        key = (bytes(n), tuple(opened))
        if key in self.wins:
            return self.wins[key]
        outs = 0
        for c in range(20):
            if self.unseen[c] and self._wins_with(n, opened, c):
                outs += self.unseen[c]
        self.wins[key] = outs
        return outs

    @staticmethod
    def _wins_with(n, opened, c):
        hand = [x for x in range(20) for _ in range(n[x])]
        groups = list(opened)
        onto = [k for k, (kind, cs) in enumerate(opened) if kind in (pz.WEI, pz.PENG) and cs[0] == c]
        if n[c] == 3:
            for _ in range(3):
                hand.remove(c)
            groups.append((pz.PAO, (c,) * 4))
        elif onto:
            groups[onto[0]] = (pz.PAO, (c,) * 4)
        elif n[c] == 2:
            hand.remove(c)
            hand.remove(c)
            for kind in (pz.PENG, pz.WEI):
                if pz.win(hand, groups + [(kind, (c,) * 3)], MEN, MIN_HUXI) is not None:
                    return True
            return False
        else:
            hand.append(c)
        return pz.win(hand, groups, MEN, MIN_HUXI) is not None


class PaohuziBot:
    """A computer player, deterministic for its ``seed``: ``choose(view)`` is one legal
    :class:`~paizhuo.rules.paohuzi.Action` of the seat whose ``view`` it is given."""

    def __init__(self, seed=0, whim=0.0):
        if not 0.0 <= whim <= 1.0:
            raise ValueError("whim must be from 0 to 1, not %r" % (whim,))
        self.rng = random.Random(seed)
        self.whim = whim

    def _offhand(self):
        return self.whim and self.rng.random() < self.whim

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
        opened = [(g["kind"], pz.cards(g["cards"])) for g in view["open"][seat]]
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
                made = opened + [(pz.PENG, (c, c, c))]
            else:
                groups = [pz.cards(g) for g in claim[1]]
                for g in groups:
                    for x in g:
                        m[x] -= 1
                m[c] += 1  # the card out is not from the hand
                made = opened + [(pz.CHI, g) for g in groups]
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
        if options[0][0] == top:  # keeping the holding is as good: pass, the card stays free for others
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
    """Cards the seat's 下家 let go by when it could have 吃 them (those in the seat's own pile and
    the 下家's: discarded or turned up by the seat, turned up by the 下家); a card 吃 once
    declined is 臭牌 for good, and one it could not use then is likely no use now."""
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
