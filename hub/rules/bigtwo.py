"""竞技锄大地 (Big Two): the authoritative rules engine, a pure state machine.

The deal and the actions are its only inputs; there is no clock, randomness or I/O here
(the hub owns the clocks and asks :meth:`BigTwo.default_action` what an expiry does).
Card classification and comparison live in :mod:`paizhuo_shared.bigtwo`, which the seat
boards run too.

A deal goes through three phases (RULES.md, seed 004 第六、七条):

1. ``show`` (明牌): all four decide at once; the choices are revealed together.
2. ``double`` (加倍): one by one from the holder of ♦3 (首家), counter-clockwise.
3. ``play``: ♦3's holder leads a play containing ♦3; others follow with the same size
   and a higher value, or pass; three passes in a row end the round and the last player
   to play leads (引牌).  The deal ends when someone has no cards.

A short deal, with a hand-made layout in which E holds the ♦3 and can go out in one play:

>>> deal = Deal.from_dict({
...     "E": "3D 4D 5D 6D 7D 3C 4C 5C 6C 7C 3H 4H 5H",
...     "N": "8D 9D TD JD QD 8C 9C TC JC QC 8H 9H TH",
...     "W": "KD AD 2D KC AC 2C KH AH 2H 6H 7H JH QH",
...     "S": "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S"})
>>> game = BigTwo(deal)
>>> for seat in "ENWS":
...     _ = game.apply(Action.show(seat, False))
>>> game.phase, game.to_act()
('double', ('E',))
>>> for seat in "ENWS":
...     _ = game.apply(Action.double(seat, seat == "E"))
>>> game.verify(Action.play("E", "4D 5D 6D 7D 8D"))
Traceback (most recent call last):
...
paizhuo.rules.bigtwo.IllegalActionError: You do not hold ♦8
>>> _ = game.apply(Action.play("E", "3D 4D 5D 6D 7D"))   # straight flush, with ♦3
>>> game.can(Action.pass_("N")), game.can(Action.play("N", "8C 9C TC JC QC")), game.can(Action.play("N", "QD"))
(True, True, False)
>>> game.verify(Action.play("N", "QD"))
Traceback (most recent call last):
...
paizhuo.rules.bigtwo.IllegalActionError: You must follow with a five-card hand (or pass)
"""

from paizhuo_shared import bigtwo as plays_
from paizhuo_shared.bigtwo import codes, classify, card_points, scores
from paizhuo_shared.cards import DECK52, InvalidCardError, pretty
from ..errors import CodedError
from . import common

__all__ = ["Rules", "Deal", "Action", "IllegalActionError", "BigTwo", "Result", "SEATS"]

GAME = "bigtwo"
SEATS, SEAT_NAMES_ZH = common.SEATS, common.SEAT_NAMES_ZH
HAND_SIZE = 13
DECK = DECK52  # one deck without jokers; E, N, W, S take 13 each

SHOW = "show"  # 明牌
DOUBLE = "double"  # 加倍
PLAY, PASS, OVER = common.PLAY, common.PASS, common.OVER
PHASES = (SHOW, DOUBLE, PLAY, OVER)
SIMULTANEOUS = (SHOW,)  # 明牌: the four decide at once, on one clock


class IllegalActionError(CodedError):
    """An action the rules refuse.  ``code`` is stable for machines; ``en``/``zh`` are for people.

    ``str(error)`` is the English text; a seat shows ``zh`` or ``en`` by its language setting.
    """



def _seat_index(seat):
    return common.seat_index(SEATS, seat, IllegalActionError)


def _card_tuple(cards):
    """Cards of an action as a sorted tuple of ints, from codes or ints; bad input raises IllegalActionError."""
    try:
        return plays_.cards(cards)
    except InvalidCardError as e:
        raise IllegalActionError(e.code, str(e), e.zh) from None


def _check_think_ms(think_ms):
    common.check_think_ms(think_ms, IllegalActionError)


def _show(cs):
    return " ".join(pretty(c) for c in codes(cs))


# ---- chance as data -----------------------------------------------------------------

class Deal(common.Deal):
    """The four 13-card hands of one deal, before any action; ``board`` numbers it in an event.

    Hands are sorted tuples of card integers (see :mod:`paizhuo_shared.bigtwo`).

    >>> Deal.from_permutation(list(range(52))).first_seat
    'E'
    """

    __slots__ = ()
    seats = SEATS
    size = HAND_SIZE
    copies = 1
    positions = 52
    title = "Big Two"
    bad_card = InvalidCardError
    parse = staticmethod(plays_.cards)
    code = staticmethod(plays_.code)
    card_at = staticmethod(int)

    @property
    def first_seat(self):
        """The holder of ♦3, who doubles first and makes the first play (首家)."""
        for seat in SEATS:
            if plays_.DIAMOND_THREE in self.hands[seat]:
                return seat

    def __repr__(self):
        return "Deal(%s)" % ", ".join("%s=%s" % (s, " ".join(codes(self.hands[s]))) for s in SEATS)


# ---- actions ------------------------------------------------------------------------

class Action(common.ActionBase):
    """One intent of one seat: ``show``/``double`` (yes or no), ``play`` (cards) or ``pass``.

    ``auto`` marks an action the hub made for the seat (clock expiry, 托管) and ``think_ms``
    is the thinking time the hub measured; both are carried to the result but never change
    the game, and equality ignores them.

    >>> Action.play("E", "3S 3D")
    Action.play('E', '3D 3S')
    >>> Action.from_dict({"type": "pass", "seat": "N", "auto": True}).auto
    True
    """

    __slots__ = ("type", "seat", "yes", "cards", "auto", "think_ms")
    TYPES = (SHOW, DOUBLE, PLAY, PASS)

    def __init__(self, type, seat, yes=None, cards=(), auto=False, think_ms=None):
        if type not in self.TYPES:
            raise IllegalActionError("bad_action", "Unknown action %r: use show, double, play or pass" % (type,),
                                     "未知操作 %r：可用 show、double、play、pass" % (type,))
        _seat_index(seat)
        if type in (SHOW, DOUBLE) and yes is not True and yes is not False:
            raise IllegalActionError("bad_action", "%s needs yes (true) or no (false)" % type,
                                     "%s 需要选择是或否" % type)
        _check_think_ms(think_ms)
        self.type = type
        self.seat = seat
        self.yes = yes if type in (SHOW, DOUBLE) else None
        if type == PLAY:
            self.cards = _card_tuple(cards)
            if not self.cards:
                raise IllegalActionError("no_cards", "Select the cards to play, or pass", "请选择要出的牌，或选择过牌")
        else:
            self.cards = ()
        self.auto = bool(auto)
        self.think_ms = think_ms

    @classmethod
    def _trusted(cls, type, seat, yes, cards, auto=False, think_ms=None):
        """Build without validation: only for actions the engine itself made from checked data."""
        a = object.__new__(cls)
        a.type, a.seat, a.yes, a.cards, a.auto, a.think_ms = type, seat, yes, cards, auto, think_ms
        return a

    @classmethod
    def show(cls, seat, yes):
        return cls(SHOW, seat, yes=yes)

    @classmethod
    def double(cls, seat, yes):
        return cls(DOUBLE, seat, yes=yes)

    @classmethod
    def play(cls, seat, cards):
        return cls(PLAY, seat, cards=cards)

    @classmethod
    def pass_(cls, seat):
        return cls(PASS, seat)

    def with_meta(self, auto=False, think_ms=None):
        """The same action marked as automatic and/or with the measured thinking time."""
        _check_think_ms(think_ms)
        return Action._trusted(self.type, self.seat, self.yes, self.cards, bool(auto), think_ms)

    def to_dict(self):
        d = {"type": self.type, "seat": self.seat}
        if self.type in (SHOW, DOUBLE):
            d["yes"] = self.yes
        elif self.type == PLAY:
            d["cards"] = codes(self.cards)
        return common.with_marks(d, self)

    @classmethod
    def from_dict(cls, d):
        """Parse an action from the wire or a log; anything malformed raises IllegalActionError."""
        auto = common.action_fields(d, ("type", "seat", "yes", "cards", "auto", "think_ms"), IllegalActionError)
        return cls(d.get("type"), d.get("seat"), d.get("yes"), d.get("cards", ()), auto, d.get("think_ms"))

    def _key(self):
        return self.type, self.seat, self.yes, self.cards

    def __repr__(self):
        if self.type == PLAY:
            return "Action.play(%r, %r)" % (self.seat, " ".join(codes(self.cards)))
        if self.type == PASS:
            return "Action.pass_(%r)" % (self.seat,)
        return "Action.%s(%r, %r)" % (self.type, self.seat, self.yes)


# ---- rule options -------------------------------------------------------------------

_SECONDS, _YES_NO = common.CLOCK_OPTION, common.YES_NO_OPTION
_ALLOWED = {
    "straights": ("'seed' or 'no_two'", "'seed'（种子规则）或 'no_two'（2 不入顺子）"),
    "flush_order": ("'top_card' or 'suit_first'", "'top_card'（先比最大牌）或 'suit_first'（先比花色）"),
    "report_duty": ("'highest_single' or 'off'", "'highest_single'（报单须出最大单张）或 'off'（关闭）"),
    "report_may_pass": _YES_NO, "spade_two_doubles": _YES_NO,
    "show_seconds": _SECONDS, "double_seconds": _SECONDS, "turn_seconds": _SECONDS,
}


class Rules(plays_.Rules):
    """:class:`paizhuo_shared.bigtwo.Rules` (the options the seats share), with a refusal in
    Chinese and English (:class:`common.RulesError`) for options from outside."""

    @classmethod
    def from_dict(cls, data):
        """Build from a mapping (a rules file, a round spec or a log); anything else, an unknown
        option or a bad value raises :class:`common.RulesError` (a ValueError) naming it."""
        return common.rules_from_dict(cls, data, ("Big Two", "锄大地"), _ALLOWED)


# ---- outcome ------------------------------------------------------------------------

class Result:
    """What a finished deal yields (data, not a printout): everything the venue needs.

    ``places`` rank the seats by score (equal scores share a place); ``auto_moves`` counts the
    actions the hub made for each seat; ``think_ms`` sums each seat's measured thinking time.
    """

    __slots__ = ("winner", "cards_left", "hands_left", "points", "scores", "shown", "doubled",
                 "places", "auto_moves", "think_ms")

    def __init__(self, **fields):
        for name in self.__slots__:
            setattr(self, name, fields[name])

    def to_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}


# ---- the state machine ----------------------------------------------------------------

class BigTwo:
    """The state of one Big Two deal.  Create it from a :class:`Deal` and optional :class:`Rules`."""

    game = GAME
    seats = SEATS

    def __init__(self, deal, rules=None):
        if not isinstance(deal, Deal):
            raise TypeError("BigTwo needs a Deal, not %r" % (deal,))
        self.rules = rules if rules is not None else Rules()
        self.deal = deal
        self.hands = [list(deal.hands[s]) for s in SEATS]
        self.first = SEATS.index(deal.first_seat)
        self.phase = SHOW
        self.shows = [None] * 4
        self.doubles = [None] * 4
        self.turn = None  # seat index whose decision it is (double and play phases)
        self.to_beat = None  # (seat index, cards, kind, value) of the last unbeaten play, None when leading
        self.passes = 0  # passes in a row since the last play
        self.first_play = True  # the 首攻 must contain ♦3
        self.trick = []  # this round: [(seat index, cards or None for a pass)]
        self.winner = None
        self.actions = []  # every applied Action, in order: the deal's log

    # -- who acts, and what may they do --------------------------------------------

    def to_act(self):
        """The seats whose decision the game waits for (all undecided seats while showing)."""
        if self.phase == SHOW:
            return tuple(SEATS[i] for i in range(4) if self.shows[i] is None)
        if self.phase in (DOUBLE, PLAY):
            return (SEATS[self.turn],)
        return ()

    def _duty(self, i):
        """报单 duty: True if seat ``i``'s 下家 holds one card and a single must be the highest."""
        return self.rules.report_duty == "highest_single" and len(self.hands[(i + 1) % 4]) == 1

    def _plays(self, i):
        beat = self.to_beat
        return plays_.plays(
            self.hands[i], self.rules,
            size=len(beat[1]) if beat else 0,
            above=beat[3] if beat else -1,
            must_hold=plays_.DIAMOND_THREE if self.first_play else -1,
            top_single_only=self._duty(i))

    def _may_pass(self, i, plays=None):
        if self.to_beat is None:
            return False  # a leader may not pass
        if self._duty(i) and not self.rules.report_may_pass:
            return not (plays if plays is not None else self._plays(i))
        return True

    def legal_actions(self, seat):
        """Every legal action of ``seat`` now, sorted: plays by size then value, pass last.

        Empty when it is not the seat's decision.
        """
        i = _seat_index(seat)
        if self.phase == SHOW:
            return [Action.show(seat, False), Action.show(seat, True)] if self.shows[i] is None else []
        if self.phase == DOUBLE:
            return [Action.double(seat, False), Action.double(seat, True)] if self.turn == i else []
        if self.phase != PLAY or self.turn != i:
            return []
        found = self._plays(i)
        out = [Action._trusted(PLAY, seat, None, p[0]) for p in found]
        if self._may_pass(i, found):
            out.append(Action.pass_(seat))
        return out

    def verify(self, action):
        """Raise :class:`IllegalActionError` with the precise reason if ``action`` is illegal now."""
        i = common.acting_seat(self, action, Action, IllegalActionError)
        if action.type != self.phase and not (self.phase == PLAY and action.type == PASS):
            raise IllegalActionError(
                "wrong_phase", "Not now: this is the %s phase" % _PHASE_EN[self.phase],
                "现在是%s阶段，不能进行此操作" % _PHASE_ZH[self.phase])
        if self.phase == SHOW:
            if self.shows[i] is not None:
                raise IllegalActionError("already_decided", "You have already decided whether to show your hand",
                                         "你已经选择过是否明牌")
            return
        if self.turn != i:
            raise IllegalActionError(
                "not_your_turn", "It is not your turn: waiting for %s" % SEATS[self.turn],
                "还没轮到你：等待%s家" % SEAT_NAMES_ZH[SEATS[self.turn]])
        if self.phase == DOUBLE:
            return
        hand = self.hands[i]
        duty = self._duty(i)
        if action.type == PASS:
            if self.to_beat is None:
                raise IllegalActionError("leader_cannot_pass", "You lead this round and may not pass",
                                         "你是本圈引牌者，不能过牌")
            if not self._may_pass(i):
                raise IllegalActionError(
                    "must_play", "Your next player has one card left and you can play: you may not pass",
                    "下家报单且你有牌可出，不能过牌")
            return
        cs = action.cards
        missing = [c for c in cs if c not in hand]
        if missing:
            raise IllegalActionError("not_in_hand", "You do not hold %s" % _show(missing),
                                     "你没有这张牌：%s" % _show(missing))
        kind = classify(cs, self.rules)
        if kind is None:
            raise IllegalActionError(
                "not_a_combination",
                "%s is not a legal combination: play a single, pair, triple or five-card hand" % _show(cs),
                "%s 不是合法牌型：可出单张、对子、三张或五张牌型" % _show(cs))
        if self.first_play and plays_.DIAMOND_THREE not in cs:
            raise IllegalActionError("must_contain_d3", "The first play must contain ♦3",
                                     "首攻必须包含方块3")
        beat = self.to_beat
        if beat is not None:
            if len(cs) != len(beat[1]):
                need = _SIZE_EN[len(beat[1])]
                raise IllegalActionError(
                    "wrong_kind", "You must follow with %s (or pass)" % need,
                    "必须出相同牌型：%s（或过牌）" % _SIZE_ZH[len(beat[1])])
            if kind[1] <= beat[3]:
                raise IllegalActionError(
                    "too_low", "%s does not beat %s" % (_show(cs), _show(beat[1])),
                    "%s 大不过 %s" % (_show(cs), _show(beat[1])))
        if duty and len(cs) == 1 and cs[0] != max(hand):
            raise IllegalActionError(
                "report_duty",
                "Your next player has one card left: a single must be your highest, %s" % _show([max(hand)]),
                "下家报单：出单张必须出最大的单张 %s" % _show([max(hand)]))

    def can(self, action):
        """True if ``action`` is legal now."""
        return common.can(self, action, IllegalActionError)

    def default_action(self, seat):
        """What the rules do for ``seat`` when its clock runs out (the hub applies it, marked auto).

        明牌 and 加倍: no.  Leading (including the 首攻): the smallest single, or the highest
        single under the 报单 duty.  Following: pass (or, where passing is not allowed, the
        lowest legal play).
        """
        i = _seat_index(seat)
        if seat not in self.to_act():
            raise IllegalActionError("not_your_turn", "Seat %s has no decision to make now" % seat,
                                     "%s家现在无需操作" % SEAT_NAMES_ZH[seat])
        if self.phase == SHOW:
            return Action.show(seat, False).with_meta(auto=True)
        if self.phase == DOUBLE:
            return Action.double(seat, False).with_meta(auto=True)
        hand = self.hands[i]
        if self.to_beat is None:
            card = max(hand) if self._duty(i) else min(hand)
            return Action(PLAY, seat, cards=(card,), auto=True)
        found = self._plays(i)
        if self._may_pass(i, found):
            return Action.pass_(seat).with_meta(auto=True)
        return Action(PLAY, seat, cards=found[0][0], auto=True)

    def time_limit(self, seat=None):
        """Seconds allowed for the current decision (the hub's clock; the engine has none)."""
        if self.phase == SHOW:
            return self.rules.show_seconds
        if self.phase == DOUBLE:
            return self.rules.double_seconds
        if self.phase == PLAY:
            return self.rules.turn_seconds
        return 0

    # -- applying ---------------------------------------------------------------------

    def apply(self, action):
        """Verify and apply ``action``; return the public events it caused (a list of dicts).

        Events never carry hidden cards: a 明牌 choice is announced only as ``decided`` until
        all four have chosen, then the shown hands are revealed together.
        """
        self.verify(action)
        i = SEATS.index(action.seat)
        seat = action.seat
        events = []
        self.actions.append(action)
        if action.type == SHOW:
            self.shows[i] = action.yes
            events.append({"type": "decided", "phase": SHOW, "seat": seat})
            if None not in self.shows:
                shown = {SEATS[k]: codes(self.hands[k]) for k in range(4) if self.shows[k]}
                events.append({"type": "shown", "hands": shown})  # 明牌, revealed together
                self.phase = DOUBLE
                self.turn = self.first
                events.append({"type": "phase", "phase": DOUBLE, "turn": SEATS[self.turn]})
        elif action.type == DOUBLE:
            self.doubles[i] = action.yes
            events.append({"type": DOUBLE, "seat": seat, "yes": action.yes})
            if None in self.doubles:
                self.turn = (i + 1) % 4
            else:
                self.phase = PLAY
                self.turn = self.first
                events.append({"type": "phase", "phase": PLAY, "turn": SEATS[self.turn]})
        elif action.type == PLAY:
            cs = action.cards
            kind, value = classify(cs, self.rules)
            hand = self.hands[i]
            for c in cs:
                hand.remove(c)
            self.first_play = False
            self.to_beat = (i, cs, kind, value)
            self.passes = 0
            self.trick.append((i, cs))
            events.append({"type": PLAY, "seat": seat, "cards": codes(cs), "kind": kind, "left": len(hand)})
            if len(hand) == 1:
                events.append({"type": "report", "seat": seat})  # 报单: everyone is told
            if not hand:
                self.phase = OVER
                self.winner = i
                self.turn = None
                events.append({"type": "deal_end", "result": self.result().to_dict()})
            else:
                self.turn = (i + 1) % 4
        else:  # PASS
            self.passes += 1
            self.trick.append((i, None))
            events.append({"type": PASS, "seat": seat})
            if self.passes == 3:  # three passes in a row end the round; the last player leads
                leader = self.to_beat[0]
                self.to_beat = None
                self.passes = 0
                self.trick = []
                self.turn = leader
                events.append({"type": "round_end", "leader": SEATS[leader]})
            else:
                self.turn = (i + 1) % 4
        if self.phase in (DOUBLE, PLAY) and events[-1]["type"] != "phase":
            events.append({"type": "turn", "seat": SEATS[self.turn]})
        return events

    # -- what each seat may see ---------------------------------------------------------

    def view(self, seat=None):
        """Everything ``seat`` may see, as plain data; ``seat=None`` is the public (referee) view.

        A seat sees its own hand, every hand that was shown (明牌, after the reveal), card
        counts, the doubles, the current round and whose turn it is.  Nobody sees another
        seat's unshown cards before the deal is over; then the result lists every hand left.
        """
        me = None if seat is None else _seat_index(seat)
        revealed = self.phase != SHOW
        v = {
            "game": GAME,
            "board": self.deal.board,
            "phase": self.phase,
            "seat": seat,
            "first": SEATS[self.first],
            "to_act": list(self.to_act()),
            "turn": SEATS[self.turn] if self.turn is not None else None,
            "counts": {SEATS[k]: len(self.hands[k]) for k in range(4)},
            "shown": {SEATS[k]: codes(self.hands[k]) for k in range(4) if revealed and self.shows[k]},
            "doubled": {SEATS[k]: self.doubles[k] for k in range(4) if self.doubles[k] is not None},
            "reports": [SEATS[k] for k in range(4) if len(self.hands[k]) == 1],
            "first_play": self.first_play,
            "to_beat": None,
            "trick": [{"seat": SEATS[k], "cards": codes(cs) if cs is not None else None} for k, cs in self.trick],
            "time_limit": self.time_limit(),
        }
        if self.to_beat is not None:
            k, cs, kind, _ = self.to_beat
            v["to_beat"] = {"seat": SEATS[k], "cards": codes(cs), "kind": kind}
        if self.phase == SHOW:
            v["decided"] = [SEATS[k] for k in range(4) if self.shows[k] is not None]
        if me is not None:
            v["hand"] = codes(self.hands[me])
            v["my_show"] = self.shows[me]
            v["duty"] = self.phase == PLAY and self._duty(me)  # 报单: my 下家 has one card
        if self.phase == OVER:
            v["result"] = self.result().to_dict()
        return v

    # -- the outcome --------------------------------------------------------------------

    def result(self):
        """The :class:`Result` of a finished deal (card points, scores, places, auto moves, think times)."""
        if self.phase != OVER:
            raise IllegalActionError("not_over", "The deal is not over yet", "本副牌尚未结束")
        points = [card_points(len(h), plays_.SPADE_TWO in h, self.rules) for h in self.hands]
        shown = [bool(s) for s in self.shows]
        doubled = [bool(d) for d in self.doubles]
        sc = scores(points, shown, doubled)
        auto, think = common.tallies(self.actions, SEATS)
        return Result(
            winner=SEATS[self.winner],
            cards_left={SEATS[k]: len(self.hands[k]) for k in range(4)},
            hands_left={SEATS[k]: codes(self.hands[k]) for k in range(4)},
            points={SEATS[k]: points[k] for k in range(4)},
            scores={SEATS[k]: sc[k] for k in range(4)},
            shown={SEATS[k]: shown[k] for k in range(4)},
            doubled={SEATS[k]: doubled[k] for k in range(4)},
            places={SEATS[k]: 1 + sum(1 for x in sc if x > sc[k]) for k in range(4)},
            auto_moves=auto,
            think_ms=think,
        )

    # -- logs and replay ----------------------------------------------------------------

    def record(self):
        """The deal's log as plain data: rules, deal and every action.  ``from_record`` replays it."""
        return {"game": GAME, "rules": self.rules.to_dict(), "deal": self.deal.to_dict(),
                "actions": [a.to_dict() for a in self.actions]}

    @classmethod
    def from_record(cls, record):
        """Replay a logged deal through the engine; an illegal logged action raises with its index."""
        common.check_record(record, GAME, "Big Two")
        state = cls(Deal.from_dict(record["deal"]), Rules.from_dict(record.get("rules")))
        return common.replay_actions(state, record.get("actions", []), Action.from_dict, IllegalActionError)

    def snapshot(self):
        """The complete state (hidden cards included) for equality checks; never send it to a seat."""
        return {
            "phase": self.phase, "hands": [codes(h) for h in self.hands], "shows": list(self.shows),
            "doubles": list(self.doubles), "turn": self.turn, "passes": self.passes,
            "to_beat": None if self.to_beat is None else [self.to_beat[0], codes(self.to_beat[1])],
            "first_play": self.first_play, "trick": [[k, None if c is None else codes(c)] for k, c in self.trick],
            "winner": self.winner, "actions": [a.to_dict() for a in self.actions],
        }


_PHASE_EN = {SHOW: "show-hand (明牌)", DOUBLE: "double (加倍)", PLAY: "play", OVER: "finished"}
_PHASE_ZH = {SHOW: "明牌", DOUBLE: "加倍", PLAY: "出牌", OVER: "结束"}
_SIZE_EN = {1: "a single", 2: "a pair", 3: "a triple", 5: "a five-card hand"}
_SIZE_ZH = {1: "单张", 2: "对子", 3: "三张", 5: "五张牌型"}
