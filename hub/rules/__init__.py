"""Rules engines, one module per game, all with the same public shape.

Each engine module exposes: ``Rules`` (the named rule options), ``Deal`` (chance as data),
``Action`` (an intent), ``IllegalActionError`` (a refusal with code, zh and en text),
``DECK`` and ``HAND_SIZE`` (how its deck is dealt), ``SIMULTANEOUS`` (the phases in which
several seats decide at once, on one clock) and a state class with ``to_act()``,
``legal_actions(seat)``, ``verify(action)``, ``can(action)``, ``apply(action)``,
``default_action(seat)``, ``time_limit(seat)``, ``view(seat)``, ``result()`` and
``record()``/``from_record()`` for exact replay.  No clock, no randomness, no I/O inside:
the hub owns those.

A **board** is what the venue scores: one deal for a one-deal game, a match of deals for a
match game.  :meth:`Game.new_board` gives the board object the table plays (``over``,
``start(deal)``, ``finish(state)``, ``result()``, ``record()``, ``progress()``, ``deals``)
and :func:`replay` turns a board's record back into one.

This package is also the one registry of games (docs/architecture.md): for a game name,
:func:`game` gives a :class:`Game` with its engine module, state class, board, bot class
(looked up lazily: bots import rules, not the other way round), oracle, seats, default
``Rules`` and how a deal record becomes the engine's deal.  :data:`DEALING` says how every
game's deck is dealt, including games that have no engine yet, and :func:`title` how a game is
called.  Code outside a game's own modules asks here and never names a game: not in an
import, an example or a help text (``tests/test_game_registry.py``).

>>> g = game("bigtwo")
>>> g.seats, g.state.__name__, g.bot.__name__, type(g.rules).__name__, g.match
(('E', 'N', 'W', 'S'), 'BigTwo', 'BigTwoBot', 'Rules', False)
>>> sorted(GAMES), sorted(DEALING)
(['bigtwo', 'guandan', 'paohuzi'], ['bigtwo', 'guandan', 'paohuzi'])
>>> game("guandan").match, DEALING["guandan"].hand
(True, 27)
>>> d = DEALING["paohuzi"]
>>> d.seats, d.hand, d.shown, d.stock, game("paohuzi").at_table
(('E', 'N', 'W'), 20, True, 19, True)
"""

import importlib

from paizhuo_shared import cards as cards_

from . import bigtwo, common, guandan, paohuzi


class Dealing:
    """How one game's deck is dealt: the deck (a :mod:`paizhuo_shared.cards` deck), the seats
    in dealing order, the hand size, and whether one more card is turned up for the dealer
    (Paohuzi's 亮张), who is ``dealer`` (庄家: the first seat in dealing order)."""

    __slots__ = ("name", "deck", "seats", "hand", "shown", "dealer")

    def __init__(self, name, deck, seats, hand, shown=False):
        self.name = name
        self.deck = deck
        self.seats = tuple(seats)
        self.hand = hand
        self.shown = shown
        self.dealer = self.seats[0]  # holds the card turned up (a game with ``shown``)

    @property
    def size(self):
        return len(cards_.deck(self.deck))

    @property
    def stock(self):
        """Cards left over after the deal (Paohuzi's 底牌)."""
        return self.size - self.hand * len(self.seats) - (1 if self.shown else 0)


def _lazy(spec):
    """``"module:name"`` under this package, imported on first use."""
    module, name = spec.split(":")
    return getattr(importlib.import_module(module, __package__), name)


class Game:
    """One registered game: what the table, uplink, venue and simulations need of it.

    ``name``, ``engine`` (the rules module), ``state`` (the engine's state class, with
    ``from_record``), ``seats`` (in play order), ``rules`` (a default ``Rules``), ``at_table``
    (the table hub can run it), ``match`` (a board is a match of deals), ``dealing`` (its
    :class:`Dealing`), ``bot`` (the bot class, imported on first use), ``oracle`` (its
    ``paizhuo rules serve`` answers), ``touch`` (how a simulated player enters the game's
    actions on a seat's screen: None, the simulator's own taps by action type), :meth:`new_board`,
    :meth:`new_bot` and :meth:`deal_for` (a deal record of :mod:`paizhuo.deals` as the engine's ``Deal``).
    """

    __slots__ = ("name", "engine", "state", "seats", "at_table", "match", "dealing", "_board", "_bot", "_bot_view",
                 "_oracle", "_narrator", "_touch", "_cache")

    def __init__(self, engine, state, bot, oracle, board=None, at_table=True, bot_view_only=False, narrator=None,
                 touch=None):
        self.name = engine.GAME
        self.at_table = at_table  # False: the engine exists but the table hub cannot run it yet
        self.engine = engine
        self.state = state
        self.seats = tuple(engine.SEATS)
        self.match = board is not None
        self._board = board  # the match class; None: a board is one deal (common.OneDeal)
        # SHOWN: the engine deals one more card to the dealer, turned up (亮张), and keeps a stock
        self.dealing = Dealing(self.name, engine.DECK, self.seats, engine.HAND_SIZE,
                               shown=getattr(engine, "SHOWN", False))
        self._bot = bot  # "module:Class" under paizhuo.bots; imported on first use (no cycle)
        self._bot_view = bot_view_only  # its choose() takes the view alone (and the seed, whim)
        self._oracle = oracle
        self._narrator = narrator  # "module:Class" telling a deal on the terminal; None: the game has none
        self._touch = touch  # "module:Class" under paizhuo.sim (imported on first use: sim imports rules)
        self._cache = {}

    def _get(self, spec):
        if spec not in self._cache:
            self._cache[spec] = _lazy(spec)
        return self._cache[spec]

    @property
    def rules(self):
        """A fresh default ``Rules`` of the game (fresh: callers may not share a mutable one)."""
        return self.engine.Rules()

    @property
    def bot(self):
        """The game's computer player class."""
        return self._get(self._bot)

    @property
    def oracle(self):
        """``answer(request, op)`` of the game's rules oracle: the answer's fields, or a ValueError."""
        return self._get(self._oracle)

    @property
    def examples(self):
        """``paizhuo rules`` examples of the game, from its oracle module: ``(arguments after the
        game name, what it asks in English, in Chinese)`` each."""
        return self._get(self._oracle.split(":")[0] + ":EXAMPLES")

    @property
    def title(self):
        """``(English, Chinese)``: how the game is called to people."""
        return title(self.name)

    @property
    def touch(self):
        """The class that enters the game's actions on a simulated seat by touch (``TYPES``, the
        action types it enters, and ``enter(table, seat, action, state)``), or None: the
        simulator's own taps (:mod:`paizhuo.sim.table`) enter them."""
        return self._get(self._touch) if self._touch else None

    def narrator(self, out=print):
        """The game's terminal narrator (``opening(state, deal)``, ``action(action, events)``,
        ``result(result)``, each line through ``out``), or None when the game has none."""
        return self._get(self._narrator)(out) if self._narrator else None

    def new_bot(self, seed=0, whim=0.0):
        """A computer player with one face for every game: ``choose(view, legal)`` is one legal
        action (``legal``: the seat's legal actions; a bot that decides from the view alone
        ignores it).  A bot whose ``needs_legal`` is
        False may be given None for ``legal``."""
        if self._bot_view:
            return _ViewBot(self.bot(seed=seed, whim=whim))
        return self.bot(seed=seed, whim=whim)

    def new_board(self, rules=None):
        """A fresh board under ``rules`` (a ``Rules``; None: the default): a ``Match`` for a match
        game, a :class:`~paizhuo.rules.common.OneDeal` otherwise."""
        rules = rules if rules is not None else self.rules
        if self._board is not None:
            return self._board(rules)
        return common.OneDeal(self.state, rules)

    def board_from_record(self, record):
        """The board a board's record (``record()`` of :meth:`new_board`'s object) replays to."""
        if self._board is not None:
            return self._board.from_record(record)
        return common.OneDeal.from_record(self.state, record)

    def deal_for(self, record):
        """The engine's ``Deal`` of a :class:`paizhuo.deals.DealRecord`: its board and hands, and
        the game-specific parts of a game that has them (``record.extra``: the 亮张 and the stock)."""
        data = {"board": record.board, "hands": {s: list(h) for s, h in record.hands.items()}}
        data.update(record.extra)
        return self.engine.Deal.from_dict(data)

    def __repr__(self):
        return "Game(%r)" % self.name


class _ViewBot:
    """The common bot face over a bot whose ``choose`` takes the seat's view alone."""

    __slots__ = ("bot",)
    needs_legal = False  # callers need not list the legal actions for it (None is fine)

    def __init__(self, bot):
        self.bot = bot

    def choose(self, view, legal=None):
        return self.bot.choose(view)


_REGISTRY = {g.name: g for g in (
    Game(bigtwo, bigtwo.BigTwo, "..bots.bigtwo:BigTwoBot", ".bigtwo_oracle:answer", narrator=".bigtwo_narrator:Narrator"),
    Game(guandan, guandan.GuandanDeal, "..bots.guandan:GuandanBot", ".guandan_oracle:answer", board=guandan.Match,
         bot_view_only=True),
    Game(paohuzi, paohuzi.Paohuzi, "..bots.paohuzi:PaohuziBot", ".paohuzi_oracle:answer",
         bot_view_only=True, touch="..sim.paohuzi:Touch"),
)}
GAMES = {name: g.engine for name, g in _REGISTRY.items()}
DEFAULT_GAME = "bigtwo"  # what a table plays when its configuration names no game
# How each game's deck is dealt: the engines' own (a game dealt before its engine exists would be
# added here by hand, as Paohuzi was).
DEALING = {name: g.dealing for name, g in _REGISTRY.items()}
# How each game is called: (English, Chinese); every game of DEALING has one.
TITLES = {"bigtwo": ("Big Two", "锄大地"), "guandan": ("Guandan", "掼蛋"), "paohuzi": ("Paohuzi", "跑胡子")}


def title(name):
    """``(English, Chinese)`` of a game name (any game of :data:`DEALING`), or a ValueError."""
    try:
        return TITLES[name]
    except (KeyError, TypeError):
        raise ValueError("unknown game %r; games are: %s" % (name, ", ".join(sorted(DEALING)))) from None


def game(name):
    """The registered :class:`Game` of a game name, or a ValueError naming the games there are."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError("unknown game %r; games are: %s" % (name, ", ".join(sorted(GAMES)))) from None


def engine(name):
    """The engine module of a game name, or a ValueError naming the games there are."""
    return game(name).engine


def replay(name, record):
    """Replay a record through the game's engine.

    A deal's record (``{"game", "rules", "deal", "actions"}``, as a state's ``record()`` makes
    it) gives the state after its last action; a board's record of a match game (``"match":
    true``, as ``Match.record()`` makes it) gives the board, whose ``result()`` the venue
    scores.  An illegal action raises the engine's ``IllegalActionError`` naming its index; a
    record that is not one raises ValueError (an unknown game too)."""
    g = game(name)
    if g.match and isinstance(record, dict) and record.get("match"):
        return g.board_from_record(record)
    return g.state.from_record(record)
