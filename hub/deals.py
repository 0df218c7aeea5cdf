"""Seeded, auditable duplicate deals (复式发牌): every table of a group plays the same cards.

A deal is a pure function of the event secret and its place in the event::

    event secret ──HMAC(round)──► round key ──HMAC(game, group, board, counter)──► byte stream
                                                 ──Fisher–Yates──► shuffled deck ──► hands

- **No deal travels before its round.**  The venue keeps the event secret.  When a round
  starts it releases that round's key (:func:`round_key`) to the table hubs, which derive
  every deal of the round from it (:func:`deal_from_round_key`).  A round key says nothing
  about any other round's deals (HMAC is one-way), so a hub, or anyone listening to it,
  learns round 3's cards only when round 3 starts.
- **Every table of a group gets the same deal.**  The group and board number are inputs of
  the shuffle and the table number is not; a different group gets a different deal.
- **Uniform.**  The shuffle is Fisher–Yates over a byte stream from HMAC-SHA256; each index
  is drawn with rejection sampling, so every permutation of the deck is equally likely and
  every card is equally likely to land in every seat.
- **Auditable.**  Each deal has a SHA-256 ``hash`` over a canonical text of the cards
  (:meth:`DealRecord.canonical_text`).  Each table's result carries the hash of the deal it
  played, so the venue can prove that all tables of a group played the same cards; the
  hashes (and, after the round, the deals and round key themselves) are published once the
  round is over, so anyone can recompute them with ``paizhuo deals``.

- **Matches.**  A match game's board is a match of several deals: deal ``n`` of a board
  (``deal_from_round_key(..., deal=n)``) is its own HMAC context, so deal 1 is exactly the
  board's one deal of a one-deal game and every later deal derives from the same round key.

How a shuffled deck is dealt (the deck, the seats in dealing order, the hand size, a card
turned up for the dealer) is each game's: the registry (``paizhuo.rules.DEALING``) has it.

>>> secret = b"example event secret, use 32 random bytes in an event"
>>> game = rules_.DEFAULT_GAME
>>> d = deal(secret, game, round=1, group=1, board=1)
>>> sorted(d.hands) == sorted(GAMES[game].seats), {len(h) for h in d.hands.values()} == {GAMES[game].hand}
(True, True)
>>> d == deal_from_round_key(round_key(secret, 1), game, 1, 1, round=1)
True
>>> d.hash == deal(secret, game, 1, 2, 1).hash     # another group, another deal
False
>>> DealRecord.from_dict(d.to_dict()) == d
True
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

from paizhuo_shared import cards as cards_
from . import rules as rules_
from .errors import CodedError

__all__ = [
    "VERSION", "GAMES", "DealError", "DealRecord", "HmacStream", "round_key", "deal_from_round_key",
    "deal", "deals", "parse_boards", "parse_secret", "shuffle",
]

VERSION = "paizhuo-deal-v1"  # in every shuffle context and every hash: a new generator gets a new tag
MAX_BOARDS = 10000  # one `paizhuo deals` call; an event has tens of boards per round


# How each game's deck is dealt comes from the one registry of games (paizhuo.rules): its
# engine declares the deck, the seats and the hand size; a game that has no engine yet is
# registered there for dealing only.  ``GAMES`` is that table under this module's old name.
GAMES = rules_.DEALING


class DealError(CodedError):
    """Bad input for a deal, or a deal record that does not hold together.

    ``code`` is stable for programs; ``en``/``zh`` are for people (referees read ``zh``).
    """

    def __init__(self, en, zh=None, code="bad_deal"):
        super().__init__(code, en, zh)


# ---- inputs ---------------------------------------------------------------------------

def _positive(name, value, zh):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise DealError("%s must be a whole number from 1, not %r" % (name, value),
                        "%s必须是从 1 开始的整数，而不是 %r" % (zh, value), "bad_" + name)
    if value >= 1 << 31:
        raise DealError("%s %d is too large" % (name, value), "%s %d 太大" % (zh, value), "bad_" + name)
    return value


def _game(name):
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise DealError("unknown game %r; games are: %s" % (name, ", ".join(sorted(GAMES))),
                        "未知的项目 %r；可选：%s" % (name, "、".join(sorted(GAMES))), "unknown_game") from None


def _secret(secret, what="event secret"):
    if not isinstance(secret, (bytes, bytearray)):
        raise DealError("the %s must be bytes, not %s" % (what, type(secret).__name__),
                        "密钥必须是字节串", "bad_secret")
    if not secret:
        raise DealError("the %s is empty; an event needs 32 random bytes" % what,
                        "密钥为空；比赛需要 32 个随机字节", "empty_secret")
    return bytes(secret)


def parse_secret(text):
    """The secret bytes a person typed: ``hex:…`` or ``text:…`` say which; without a prefix,
    an even number of hex digits is hex and anything else is UTF-8 text.

    >>> parse_secret("00ff"), parse_secret("text:00ff"), parse_secret("hex:00FF"), parse_secret("event 7")
    (b'\\x00\\xff', b'00ff', b'\\x00\\xff', b'event 7')
    >>> parse_secret("hex:0g")
    Traceback (most recent call last):
    ...
    paizhuo.deals.DealError: secret 'hex:0g' is not hex: write an even number of digits 0-9 a-f
    """
    if not isinstance(text, str):
        raise DealError("a secret must be text, not %r" % (text,), "密钥必须是文本", "bad_secret")
    if text.startswith("text:"):
        out = text[5:].encode("utf-8")
    elif text.startswith("hex:") or (len(text) % 2 == 0 and text and all(c in "0123456789abcdefABCDEF" for c in text)):
        body = text[4:] if text.startswith("hex:") else text
        try:
            out = bytes.fromhex(body)
        except ValueError:
            raise DealError("secret %r is not hex: write an even number of digits 0-9 a-f" % text,
                            "密钥 %r 不是十六进制：需要偶数个 0-9 a-f 数字" % text, "bad_secret") from None
    else:
        out = text.encode("utf-8")
    if not out:
        raise DealError("the secret is empty; give the event secret (hex, or text)",
                        "密钥为空；请给出比赛密钥（十六进制或文本）", "empty_secret")
    return out


def parse_boards(text):
    """Board numbers from ``"1-8"``, ``"3"`` or ``"1,4,7-9"``: ascending, each once.

    >>> parse_boards("1,4,7-9")
    [1, 4, 7, 8, 9]
    >>> parse_boards("8-1")
    Traceback (most recent call last):
    ...
    paizhuo.deals.DealError: boards '8-1': the range 8-1 runs backwards; write 1-8
    """
    if not isinstance(text, str) or not text.strip():
        raise DealError("no boards given; write them like 1-8, 3 or 1,4,7-9",
                        "没有给出牌号；写法如 1-8、3 或 1,4,7-9", "bad_boards")
    out = []
    seen = set()
    for part in text.split(","):
        part = part.strip()
        lo_text, dash, hi_text = part.partition("-")
        lo_text, hi_text = lo_text.strip(), hi_text.strip()
        if not lo_text.isdigit() or (dash and not hi_text.isdigit()) or not lo_text.isascii() or not hi_text.isascii():
            raise DealError("boards %r: %r is not a board number or range; write them like 1-8, 3 or 1,4,7-9"
                            % (text, part),
                            "牌号 %r：%r 不是牌号或范围；写法如 1-8、3 或 1,4,7-9" % (text, part), "bad_boards")
        lo = int(lo_text)
        hi = int(hi_text) if dash else lo
        if lo < 1:
            raise DealError("boards %r: boards are numbered from 1" % text, "牌号 %r：牌号从 1 开始" % text,
                            "bad_boards")
        if hi < lo:
            raise DealError("boards %r: the range %d-%d runs backwards; write %d-%d" % (text, lo, hi, hi, lo),
                            "牌号 %r：范围 %d-%d 颠倒了；应写 %d-%d" % (text, lo, hi, hi, lo), "bad_boards")
        if hi - lo + 1 + len(out) > MAX_BOARDS:
            raise DealError("boards %r: more than %d boards in one call" % (text, MAX_BOARDS),
                            "牌号 %r：一次最多 %d 副" % (text, MAX_BOARDS), "bad_boards")
        for b in range(lo, hi + 1):
            if b in seen:
                raise DealError("boards %r: board %d is named twice" % (text, b),
                                "牌号 %r：第 %d 副重复了" % (text, b), "bad_boards")
            seen.add(b)
            out.append(b)
    out.sort()
    _positive("board", out[-1], "牌号")
    return out


# ---- the generator --------------------------------------------------------------------

# For a bound k <= 256, a byte v is kept when v < 256 - 256 % k (a whole number of k-blocks).
_BYTE_LIMITS = tuple(256 - 256 % k if k else 0 for k in range(257))


class HmacStream:
    """An endless byte stream HMAC-SHA256(key, context ‖ counter) for counter = 0, 1, 2, …
    (counter as 4 bytes, big-endian), and unbiased whole numbers drawn from it.

    >>> s = HmacStream(b"key", b"ctx")
    >>> [s.below(6) for _ in range(8)]
    [0, 3, 1, 2, 2, 0, 4, 4]
    """

    __slots__ = ("_key", "_context", "_counter", "_buf", "_pos")

    def __init__(self, key, context):
        self._key = bytes(key)
        self._context = bytes(context)
        self._counter = 0
        self._buf = b""
        self._pos = 0

    def _take(self, n):
        out = b""
        while len(out) < n:
            if self._pos == len(self._buf):
                self._buf = hmac.digest(self._key, self._context + self._counter.to_bytes(4, "big"), "sha256")
                self._counter += 1
                self._pos = 0
            k = min(n - len(out), len(self._buf) - self._pos)
            out += self._buf[self._pos:self._pos + k]
            self._pos += k
        return out

    def below(self, k):
        """A whole number in ``range(k)``, every value equally likely (rejection sampling:
        draws at or above the largest multiple of ``k`` are thrown away, never folded in)."""
        if k < 1:
            raise ValueError("below() needs k >= 1")
        if k == 1:
            return 0
        nbytes = ((k - 1).bit_length() + 7) // 8
        space = 1 << (8 * nbytes)
        limit = space - space % k
        while True:
            v = int.from_bytes(self._take(nbytes), "big")
            if v < limit:
                return v % k

    def shuffle(self, items):
        """Fisher–Yates (Durstenfeld) shuffle of a copy of ``items``: from the last place down,
        swap each place with a uniformly drawn place at or below it."""
        a = list(items)
        if len(a) > 256:
            for i in range(len(a) - 1, 0, -1):
                j = self.below(i + 1)
                a[i], a[j] = a[j], a[i]
            return a
        # Every bound is at most 256, so one byte per draw: the same draws as below(), inlined
        # because this loop is the whole cost of a deal (10,000 deals a second is the aim).
        key, context, digest, limits = self._key, self._context, hmac.digest, _BYTE_LIMITS
        buf, pos, counter = self._buf, self._pos, self._counter
        end = len(buf)
        for i in range(len(a) - 1, 0, -1):
            k = i + 1
            limit = limits[k]
            while True:
                if pos == end:
                    buf = digest(key, context + counter.to_bytes(4, "big"), "sha256")
                    counter += 1
                    pos = 0
                    end = 32
                v = buf[pos]
                pos += 1
                if v < limit:
                    break
            j = v % k
            a[i], a[j] = a[j], a[i]
        self._buf, self._pos, self._counter = buf, pos, counter
        return a


def round_key(event_secret, round):
    """The key of one round, derived from the event secret; the venue sends it to the hubs
    when the round starts, and every deal of that round (all groups, all boards) derives
    from it.

    >>> round_key(b"secret", 1).hex()[:16]
    '9f3a196528561831'
    """
    secret = _secret(event_secret)
    _positive("round", round, "轮次")
    return hmac.digest(secret, ("%s|round-key|%d" % (VERSION, round)).encode("ascii"), "sha256")


def shuffle_context(game, group, board, deal=1):
    """The bytes that name one deal inside a round (the round is in the key).  Deal 1 of a
    board is the context every board has always had; a match's later deals add ``deal=n``."""
    text = "%s|deal|%s|group=%d|board=%d|" % (VERSION, game, group, board)
    if deal != 1:
        text += "deal=%d|" % deal
    return text.encode("ascii")


def shuffle(key, game, group, board):
    """The shuffled deck of one deal (a list of codes), from a round key."""
    g = _game(game)
    return HmacStream(key, shuffle_context(g.name, group, board)).shuffle(_DECKS[g.name])


_DECKS = {name: tuple(cards_.deck(g.deck)) for name, g in GAMES.items()}
_ORDER = {code: cards_.sort_key(code) for g in GAMES.values() for code in cards_.deck(g.deck)}


def deal_from_round_key(round_key, game, group, board, *, round, deal=1):
    """One deal of a round from that round's key: what a table hub runs when the round starts.

    ``round`` is not an input of the shuffle (the key already is the round's); it is
    recorded and covered by the hash, so a record says which round it belongs to.  ``deal``
    numbers the deals of a match game's board (1 is the board's first deal, and the only
    one of a one-deal game); it is recorded and hashed from 2 on.

    >>> key, game = round_key(b"secret", 1), [n for n in sorted(rules_.GAMES) if rules_.game(n).match][0]
    >>> deal_from_round_key(key, game, 1, 4, round=1, deal=1) == deal_from_round_key(key, game, 1, 4, round=1)
    True
    >>> later = deal_from_round_key(key, game, 1, 4, round=1, deal=2)
    >>> later.deal, later.to_dict()["deal"], later.hash == deal_from_round_key(key, game, 1, 4, round=1).hash
    (2, 2, False)
    """
    key = _secret(round_key, "round key")
    g = _game(game)
    _positive("round", round, "轮次")
    _positive("group", group, "组号")
    _positive("board", board, "牌号")
    _positive("deal", deal, "副数")
    order = HmacStream(key, shuffle_context(g.name, group, board, deal)).shuffle(_DECKS[g.name])
    hands = {}
    for i, seat in enumerate(g.seats):
        hands[seat] = order[i * g.hand:(i + 1) * g.hand]
    shown = None
    stock = ()
    if g.shown:
        at = g.hand * len(g.seats)
        shown = order[at]
        hands[g.dealer] = hands[g.dealer] + [shown]
        stock = tuple(order[at + 1:])
    return DealRecord(g.name, round, group, board, hands, shown, stock, deal)


def deal(event_secret, game, round, group, board):
    """One deal of the event: ``deal_from_round_key(round_key(event_secret, round), …)``."""
    return deal_from_round_key(round_key(event_secret, round), game, group, board, round=round)


def deals(event_secret, game, round, group, boards):
    """The deals of several boards of one round and group (a list of :class:`DealRecord`)."""
    key = round_key(event_secret, round)
    return [deal_from_round_key(key, game, group, b, round=round) for b in boards]


# ---- the record -----------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class DealRecord:
    """One deal as the venue records it: where it belongs, every hand, the card turned up for
    the dealer (亮张) and the stock of a game that has them, and the hash that each table's result carries.

    ``hands`` maps each seat to its cards sorted by :func:`paizhuo_shared.cards.sort_key`
    (the order of a hand does not matter); ``stock`` keeps its order (it is turned up in
    that order).  Build records with :func:`deal`; :meth:`from_dict` checks one from outside.
    """

    game: str
    round: int
    group: int
    board: int
    hands: dict
    shown: str | None = None
    stock: tuple = ()
    deal: int = 1  # the deal's number in its board (a match game's board has several)
    hash: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "hands", {s: tuple(sorted(h, key=_ORDER.__getitem__))
                                           for s, h in self.hands.items()})
        object.__setattr__(self, "stock", tuple(self.stock))
        object.__setattr__(self, "hash", hashlib.sha256(self.canonical_text().encode("utf-8")).hexdigest())

    @property
    def extra(self):
        """Game-specific parts: ``shown`` (亮张, the dealer's card turned up) and ``stock`` (底牌, in
        order) of a game whose :data:`GAMES` entry has ``shown``."""
        if self.shown is None:
            return {}
        return {"shown": self.shown, "stock": list(self.stock)}

    def canonical_text(self):
        """The exact text the hash covers: one ``name value`` line each, seats in play order,
        hand codes sorted (2..A, ♦♣♥♠ within a rank, then 小王 大王; 一..十 then 壹..拾),
        the stock in dealing order, lines ending in a newline.  Anyone can rebuild it from a
        published deal and check the hash with any SHA-256 tool.

        >>> game = [n for n, g in sorted(GAMES.items()) if g.shown][0]  # a game that turns a card up
        >>> print(deal(b"secret", game, 1, 1, 1).canonical_text())  # doctest: +ELLIPSIS
        paizhuo-deal-v1
        game ...
        round 1
        group 1
        board 1
        E ...
        N ...
        W ...
        shown ...
        stock ...
        <BLANKLINE>
        """
        lines = [VERSION, "game " + self.game, "round %d" % self.round, "group %d" % self.group,
                 "board %d" % self.board]
        if self.deal != 1:  # a match's later deal; a board's first deal keeps the text it always had
            lines.append("deal %d" % self.deal)
        for seat in GAMES[self.game].seats:
            lines.append(seat + " " + " ".join(self.hands[seat]))
        if self.shown is not None:
            lines.append("shown " + self.shown)
            lines.append("stock " + " ".join(self.stock))
        return "\n".join(lines) + "\n"

    def to_dict(self):
        seats = GAMES[self.game].seats
        d = {
            "version": VERSION, "game": self.game, "round": self.round, "group": self.group,
            "board": self.board, "hands": {s: list(self.hands[s]) for s in seats}, "extra": self.extra,
            "hash": self.hash,
        }
        if self.deal != 1:
            d["deal"] = self.deal
        return d

    @classmethod
    def from_dict(cls, data):
        """A record from its ``to_dict()`` form, checked: a known version and game, the right
        seats and hand sizes, exactly the game's deck between the hands and the stock, and
        the hash matching the cards.  Raises :class:`DealError` saying what is wrong."""
        if not isinstance(data, dict):
            raise DealError("a deal record must be a JSON object, not %r" % (data,), "牌局记录必须是 JSON 对象")
        if data.get("version") != VERSION:
            raise DealError("deal record version %r is not %r" % (data.get("version"), VERSION),
                            "牌局记录版本 %r 不是 %r" % (data.get("version"), VERSION), "bad_version")
        g = _game(data.get("game"))
        numbers = {}
        for name, zh in (("round", "轮次"), ("group", "组号"), ("board", "牌号")):
            numbers[name] = _positive(name, data.get(name), zh)
        numbers["deal"] = _positive("deal", data.get("deal", 1), "副数")
        hands = data.get("hands")
        if not isinstance(hands, dict) or sorted(hands) != sorted(g.seats):
            raise DealError("%s deal: hands must name exactly the seats %s" % (g.name, ", ".join(g.seats)),
                            "%s：手牌必须正好对应座位 %s" % (g.name, "、".join(g.seats)), "bad_seats")
        parsed = {}
        for seat in g.seats:
            try:
                hand = cards_.parse_many(hands[seat], g.deck)
            except cards_.InvalidCardError as e:
                raise DealError("seat %s: %s" % (seat, e.en), "%s家：%s" % (seat, e.zh), e.code) from None
            want = g.hand + (1 if g.shown and seat == g.dealer else 0)
            if len(hand) != want:
                raise DealError("seat %s holds %d cards; a %s deal gives it %d" % (seat, len(hand), g.name, want),
                                "%s家有 %d 张牌；应为 %d 张" % (seat, len(hand), want), "bad_hand_size")
            parsed[seat] = hand
        extra = data.get("extra", {})
        if not isinstance(extra, dict):
            raise DealError("extra must be a JSON object", "extra 必须是 JSON 对象")
        shown, stock = None, []
        if g.shown:
            try:
                shown = cards_.parse(extra.get("shown", ""))
                stock = cards_.parse_many(extra.get("stock", []), g.deck)
            except cards_.InvalidCardError as e:
                raise DealError("extra: %s" % e.en, "extra：%s" % e.zh, e.code) from None
            if shown not in parsed[g.dealer]:
                raise DealError("the shown card (亮张) %s is not in the dealer %s's hand" % (shown, g.dealer),
                                "亮张 %s 不在庄家 %s 的手牌中" % (shown, g.dealer), "bad_shown")
            if len(stock) != g.stock:
                raise DealError("the stock holds %d cards; a %s deal leaves %d" % (len(stock), g.name, g.stock),
                                "底牌 %d 张；应为 %d 张" % (len(stock), g.stock), "bad_stock")
        elif extra:
            raise DealError("a %s deal has no extra parts, got %s" % (g.name, ", ".join(sorted(extra))),
                            "%s 没有额外部分" % g.name)
        everything = sorted([c for h in parsed.values() for c in h] + list(stock), key=_ORDER.__getitem__)
        if everything != sorted(_DECKS[g.name], key=_ORDER.__getitem__):
            raise DealError("the hands and stock are not exactly one %s deck (a card is missing or dealt twice)"
                            % g.name, "手牌与底牌不是完整的一副 %s 牌（缺牌或重复）" % g.name, "not_a_partition")
        rec = cls(g.name, numbers["round"], numbers["group"], numbers["board"], parsed, shown, tuple(stock),
                  numbers["deal"])
        if "hash" in data and data["hash"] != rec.hash:
            raise DealError("the hash %r does not match these cards (it should be %s)" % (data["hash"], rec.hash),
                            "哈希 %r 与牌不符（应为 %s）" % (data["hash"], rec.hash), "hash_mismatch")
        return rec

    def to_engine_deal(self):
        """The deal as its game's engine takes it (the registry's ``deal_for``), or a
        ``no_engine`` DealError for a game that has no engine yet."""
        from . import rules
        try:
            game = rules.game(self.game)
        except ValueError:
            raise DealError("no rules engine for %s yet; games with an engine: %s"
                            % (self.game, ", ".join(sorted(rules.GAMES))),
                            "%s 尚无规则引擎" % self.game, "no_engine") from None
        return game.deal_for(self)

    def __eq__(self, other):
        return isinstance(other, DealRecord) and self.hash == other.hash

    def __hash__(self):
        return hash(self.hash)


# ---- `paizhuo deals` ------------------------------------------------------------------

SHORT_SECRET = 16  # bytes; below this a published deal lets someone guess the secret


def add_arguments(p):
    """The arguments of ``paizhuo deals``."""
    p.add_argument("--secret", metavar="HEX_OR_TEXT",
                   help="the event secret: hex digits, or text (prefix hex: or text: to say which)")
    p.add_argument("--round-key", metavar="HEX", help="a round's key as a hub receives it, instead of --secret")
    p.add_argument("--game", required=True, help="the game: %s" % ", ".join(sorted(GAMES)))
    p.add_argument("--round", type=int, default=1, help="round number (default 1)")
    p.add_argument("--group", type=int, default=1, help="group number (default 1)")
    p.add_argument("--boards", help="boards, like 1-8, 3 or 1,4,7-9")
    p.add_argument("--print-round-key", action="store_true",
                   help="print only the round's key (what the venue releases to the hubs when the round starts)")


def command(args, out=None, err=None):
    """Run ``paizhuo deals``: print the deal records as a JSON array; 2 on bad input."""
    import json
    import sys
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if (args.secret is None) == (args.round_key is None):
            raise DealError("give exactly one of --secret (the event secret) or --round-key (a round's key, hex)",
                            "请只给出 --secret（比赛密钥）或 --round-key（轮次密钥）之一", "bad_secret")
        game = _game(args.game).name
        for name, value, zh in (("round", args.round, "轮次"), ("group", args.group, "组号")):
            _positive(name, value, zh)
        if args.print_round_key and args.secret is None:
            raise DealError("--print-round-key derives the round key from the event secret: give --secret",
                            "--print-round-key 需要比赛密钥：请给出 --secret", "bad_secret")
        if args.boards is None and not args.print_round_key:
            raise DealError("give the boards, like --boards 1-8 (or --print-round-key for the round's key alone)",
                            "请给出牌号，例如 --boards 1-8", "bad_boards")
        boards = parse_boards(args.boards) if args.boards is not None else []
        if args.secret is not None:
            secret = parse_secret(args.secret)
            if len(secret) < SHORT_SECRET:
                print("paizhuo deals: warning: the secret is %d byte%s; fine for tests, but an event needs 32 random "
                      "bytes (once deals are published, a short secret can be guessed and later rounds foreseen)"
                      % (len(secret), "" if len(secret) == 1 else "s"), file=err)
            key = round_key(secret, args.round)
        else:
            try:
                key = bytes.fromhex(args.round_key)
            except ValueError:
                raise DealError("--round-key must be hex digits (the 64 a hub receives), not %r" % args.round_key,
                                "--round-key 必须是十六进制数字", "bad_secret") from None
            if len(key) != 32:
                raise DealError("--round-key must be 32 bytes (64 hex digits), not %d bytes" % len(key),
                                "--round-key 必须是 32 字节（64 个十六进制数字）", "bad_secret")
        if args.print_round_key:
            out.write(json.dumps({"round": args.round, "round_key": key.hex()}) + "\n")
            return 0
        records = [deal_from_round_key(key, game, args.group, b, round=args.round).to_dict() for b in boards]
    except DealError as e:
        print("paizhuo deals: %s" % e.en, file=err)
        return 2
    out.write(json.dumps(records, ensure_ascii=False, indent=1) + "\n")
    return 0
