"""What every rules engine does the same way: seats, the action wire format, deals from
codes, ``can``, the per-seat tallies of a result and replaying a record.  Each helper takes
the engine's own error class, so refusals keep the engine's type and texts."""

import unicodedata

from ..errors import CodedError

SEATS = ("E", "N", "W", "S")  # play order, counter-clockwise: each seat's 下家 is the next one
SEAT_NAMES_ZH = {"E": "东", "S": "南", "W": "西", "N": "北"}
PLAY, PASS, OVER = "play", "pass", "over"  # the phases and actions every card game has


def pad(text, width):
    """Left-align ``text`` in ``width`` terminal columns (Chinese characters take two): the
    terminal narrations of the demo and of each game line up with it."""
    cols = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - cols)


def seat_index(seats, seat, error):
    """The index of ``seat`` in ``seats``, or ``error`` (code ``unknown_seat``)."""
    try:
        return seats.index(seat)
    except ValueError:
        raise error("unknown_seat", "Unknown seat %r: seats are E, S, W, N" % (seat,),
                    "没有座位 %r：座位是 E 东、S 南、W 西、N 北" % (seat,)) from None


def check_think_ms(think_ms, error):
    """Refuse a ``think_ms`` that is not a whole number of milliseconds >= 0 (None is fine)."""
    if think_ms is not None and (not isinstance(think_ms, int) or isinstance(think_ms, bool) or think_ms < 0):
        raise error("bad_action", "think_ms must be a whole number of milliseconds", "think_ms 必须是毫秒整数")


def action_fields(d, fields, error):
    """Check the shape of an action from the wire or a log: a mapping with only ``fields``
    and a boolean ``auto``; returns ``auto``."""
    if not isinstance(d, dict):
        raise error("bad_action", "An action must be an object like {\"type\": \"pass\", \"seat\": \"E\"}",
                    "操作格式错误")
    unknown = set(d) - set(fields)
    if unknown:
        raise error("bad_action", "Unknown action fields: %s" % ", ".join(sorted(unknown)),
                    "操作含有未知字段：%s" % ", ".join(sorted(unknown)))
    auto = d.get("auto", False)
    if auto is not True and auto is not False:
        raise error("bad_action", "auto must be true or false", "auto 必须是 true 或 false")
    return auto


def hands_from_dict(data, board, parse, bad_card):
    """``(hands, board)`` from ``{"E": codes, ...}`` or ``{"board": 1, "hands": {...}}``;
    ``parse`` turns one seat's codes into cards and raises ``bad_card`` on a bad one."""
    if not isinstance(data, dict):
        raise ValueError("a deal must be a mapping of seats to cards, not %r" % (data,))
    if "hands" in data:
        return hands_from_dict(data["hands"], data.get("board", board), parse, bad_card)
    hands = {}
    for seat, hand in data.items():
        try:
            hands[seat] = parse(hand)
        except bad_card as e:
            raise ValueError("seat %s: %s" % (seat, e)) from None
    return hands, board


def can(state, action, error):
    """True if ``state.verify(action)`` accepts ``action``."""
    try:
        state.verify(action)
    except error:
        return False
    return True


def tallies(actions, seats):
    """``(auto moves, think ms)`` per seat over a deal's actions."""
    auto = {s: 0 for s in seats}
    think = {s: 0 for s in seats}
    for a in actions:
        if a.auto:
            auto[a.seat] += 1
        if a.think_ms is not None:
            think[a.seat] += a.think_ms
    return auto, think


def replay_actions(state, actions, parse, error):
    """Apply logged actions to a fresh ``state``; an illegal one raises ``error`` with its index."""
    if not isinstance(actions, list):
        raise ValueError("\"actions\" must be a list of actions")
    for n, a in enumerate(actions):
        try:
            state.apply(parse(a))
        except error as e:
            raise error(e.code, "action %d: %s" % (n, e.en), "第 %d 个操作：%s" % (n, e.zh)) from None
    return state


def check_record(record, game, title):
    """Refuse a record that is not a ``game`` deal record with its deal."""
    if not isinstance(record, dict) or record.get("game") != game:
        raise ValueError("not a %s record: it needs \"game\": \"%s\"" % (title, game))
    if "deal" not in record:
        raise ValueError("the record has no \"deal\": it needs the four hands the deal started from")


def deal_hands(hands, seats, size, parse, bad_card, copies, code):
    """Check a deal's hands (card numbers per seat): exactly ``seats``, ``size`` cards each,
    no card more often than ``copies`` in the whole deal; returns them parsed by ``parse``."""
    if not isinstance(hands, dict) or sorted(hands) != sorted(seats):
        raise ValueError("a deal needs exactly the seats %s, not %r" % (
            ", ".join(seats), sorted(hands) if isinstance(hands, dict) else hands))
    seen = {}
    out = {}
    for seat in seats:
        if isinstance(hands[seat], str):
            raise ValueError("seat %s: Deal takes card numbers; use Deal.from_dict for codes like '3D'" % seat)
        try:
            hand = parse(list(hands[seat]))
        except (bad_card, TypeError) as e:
            raise ValueError("seat %s: %s" % (seat, e)) from None
        if len(hand) != size:
            raise ValueError("seat %s holds %d cards; every seat is dealt %d" % (seat, len(hand), size))
        for c in hand:
            seen[c] = seen.get(c, 0) + 1
            if seen[c] > copies:
                raise ValueError("%s is dealt %s (seat %s)" % (
                    code(c), "twice" if copies == 1 else "%d times" % seen[c], seat))
        out[seat] = hand
    return out


def check_board(board):
    """A deal's board number: None or a whole number >= 1."""
    if board is not None and (not isinstance(board, int) or isinstance(board, bool) or board < 1):
        raise ValueError("board must be a positive whole number, not %r" % (board,))
    return board


class Deal:
    """Chance as data: each seat's hand of one deal, before any action; ``board`` numbers it.

    An engine subclasses it with its ``seats``, ``size`` (cards per seat), ``copies`` (of each
    card in the deck), ``positions`` (of a shuffled deck), ``card_at`` (the card at a
    position), ``parse``/``code`` (codes to cards and back), ``bad_card`` and ``title``.
    """

    __slots__ = ("hands", "board")

    def __init__(self, hands, board=None):
        self.hands = deal_hands(hands, self.seats, self.size, self.parse, self.bad_card, self.copies, self.code)
        self.board = check_board(board)

    @classmethod
    def from_permutation(cls, order, board=None):
        """Deal a shuffled deck: ``order`` lists every position once; ``size`` each, seats in order."""
        order = list(order)
        if sorted(order) != list(range(cls.positions)):
            raise ValueError("a %s deal is a permutation of the %d card positions 0..%d"
                             % (cls.title, cls.positions, cls.positions - 1))
        n = cls.size
        return cls({seat: [cls.card_at(p) for p in order[n * i:n * i + n]] for i, seat in enumerate(cls.seats)},
                   board)

    @classmethod
    def from_dict(cls, data, board=None):
        """From ``{"E": ["3D", ...], ...}`` or ``{"board": 1, "hands": {...}}``; codes may be a string."""
        return cls(*hands_from_dict(data, board, cls.parse, cls.bad_card))

    def to_dict(self):
        return {"board": self.board, "hands": {s: [self.code(c) for c in self.hands[s]] for s in self.seats}}

    def __eq__(self, other):
        return type(other) is type(self) and self.hands == other.hands and self.board == other.board


def with_marks(d, action):
    """An action's wire mapping ``d`` with the hub's marks (``auto``, ``think_ms``) when set."""
    if action.auto:
        d["auto"] = True
    if action.think_ms is not None:
        d["think_ms"] = action.think_ms
    return d


class ActionBase:
    """Equality and hashing of actions by what they mean (``_key()``), never by the hub's marks."""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def acting_seat(state, action, action_cls, error):
    """The first checks of every ``verify``: an action of this engine, a known seat, a deal
    not over; returns the seat's index."""
    if not isinstance(action, action_cls):
        raise error("bad_action", "Not an action: %r" % (action,), "不是有效操作")
    i = seat_index(state.seats, action.seat, error)
    if state.phase == OVER:
        raise error("deal_over", "This deal is over", "本副牌已结束")
    return i


def result_dict(state):
    """A finished deal's result as plain data (an engine may return an object with ``to_dict``)."""
    r = state.result()
    return r.to_dict() if hasattr(r, "to_dict") else r


class OneDeal:
    """The board of a one-deal game: one deal, whose result is the board's.

    The same face as a match game's ``Match`` (``over``, ``start``, ``finish``, ``result``,
    ``record``, ``progress``, ``deals``), so the table plays either without asking which.
    Its record is the deal's record, unchanged.

    >>> from paizhuo import rules
    >>> g = rules.game(rules.DEFAULT_GAME)
    >>> b = OneDeal(g.state, g.rules)
    >>> b.over, b.multi, b.number, b.progress()
    (False, False, 1, None)
    """

    multi = False  # never more than one deal: nothing about deal numbers goes in its logs

    def __init__(self, state_cls, rules):
        self.state_cls = state_cls
        self.rules = rules
        self.current = None
        self.deals = []  # the finished deal's record (one at most)
        self._result = None

    @property
    def over(self):
        return self._result is not None

    @property
    def number(self):
        """The number (from 1) of the deal in progress, or of the next one."""
        return len(self.deals) + 1  # finished deals are in self.deals, the current one not yet

    def start(self, deal):
        """The state of the board's deal, dealt ``deal``."""
        if self.over or self.current is not None:
            raise ValueError("a one-deal board has one deal")
        self.current = self.state_cls(deal, self.rules)
        return self.current

    def finish(self, state):
        """Close the finished deal; returns its result (plain data), the board's too."""
        if state is not self.current or state.phase != OVER:
            raise ValueError("finish the board's own deal once it is over")
        self.current = None
        self.deals.append(state.record())
        self._result = result_dict(state)
        return self._result

    def result(self):
        if self._result is None:
            raise ValueError("the board is not over yet")
        return self._result

    def record(self):
        """The deal's record (as the engine's ``record()`` makes it)."""
        return self.deals[0] if self.deals else None

    def progress(self):
        """What a snapshot shows of the board between and during deals: nothing for one deal."""
        return None

    @classmethod
    def from_record(cls, state_cls, record):
        state = state_cls.from_record(record)
        board = cls(state_cls, state.rules)
        board.current = state
        if state.phase == OVER:
            board.finish(state)
        return board


# ---- rule options from outside -----------------------------------------------------------

# What the usual kinds of option may be, (en, zh), for the ``allowed`` of rules_from_dict.
CLOCK_OPTION = ("a whole number of seconds from 1 to 600", "1 到 600 的整数秒")
YES_NO_OPTION = ("true or false", "true 或 false")


class RulesError(CodedError):
    """A ``[rules]`` table (a table.toml, event.toml, round spec or log) the engine cannot take:
    ``code`` is ``bad_rules``; the texts name the option and what it may be."""


def rules_from_dict(cls, data, title, allowed):
    """``cls(**data)`` for a mapping of rule options from outside, or a :class:`RulesError`.

    ``title`` is ``(en, zh)``, the game's name; ``allowed`` maps each option of ``cls.OPTIONS``
    to ``(en, zh)`` saying what it may be.  Each option is tried on its own first (every engine's
    options are checked independently), so the refusal names the one that is wrong, not only the
    constructor's English.

    >>> class R:
    ...     OPTIONS = ("n",)
    ...     def __init__(self, n=1):
    ...         if n not in (1, 2): raise ValueError("n")
    >>> e = None
    >>> try: rules_from_dict(R, {"n": 3}, ("Test", "测试"), {"n": ("1 or 2", "1 或 2")})
    ... except RulesError as err: e = err
    >>> e.en, e.zh
    ('the Test rule option n cannot be 3: it must be 1 or 2', '测试规则选项 n 不能是 3：应为 1 或 2')
    """
    en_title, zh_title = title
    show = _shown
    if data is None:
        return cls()
    if not isinstance(data, dict):
        raise RulesError("bad_rules", "the %s rules must be a table of option names and values, not %s"
                         % (en_title, show(data)), "%s规则必须是“选项名 = 值”的表，而不是 %s" % (zh_title, show(data)))
    names = ", ".join(cls.OPTIONS)
    for key in data:
        if key not in cls.OPTIONS:
            raise RulesError("bad_rules", "unknown %s rule option %s; options are %s" % (en_title, show(key), names),
                             "没有%s规则选项 %s；可用的选项：%s" % (zh_title, show(key), names))
    for key, value in data.items():
        try:
            cls(**{key: value})
        except (ValueError, TypeError):
            en, zh = allowed[key]
            raise RulesError("bad_rules", "the %s rule option %s cannot be %s: it must be %s"
                             % (en_title, key, show(value), en),
                             "%s规则选项 %s 不能是 %s：应为 %s" % (zh_title, key, show(value), zh)) from None
    try:
        return cls(**data)
    except (ValueError, TypeError) as e:    # options that only clash together (none today)
        raise RulesError("bad_rules", "the %s rule options do not go together: %s" % (en_title, e),
                         "%s规则选项互相矛盾：%s" % (zh_title, e)) from None


def _shown(value, limit=60):
    """``repr(value)`` cut to ``limit`` characters (a value from outside may be huge)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):    # an int past Python's digit limit, a deep nesting
        return "<%s, %d bits>" % (type(value).__name__, value.bit_length()) if isinstance(value, int) \
            else "<%s>" % type(value).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."
