"""Rules engines, one module per game, all with the same public shape.

Each engine module exposes: ``Rules`` (the named rule options), ``Deal`` (chance as data),
``Action`` (an intent), ``IllegalActionError`` (a refusal with code, zh and en text) and a
state class with ``to_act()``, ``legal_actions(seat)``, ``verify(action)``, ``can(action)``,
``apply(action)``, ``default_action(seat)``, ``time_limit(seat)``, ``view(seat)``,
``result()`` and ``record()``/``from_record()`` for exact replay.  No clock, no randomness,
no I/O inside: the hub owns those.
"""

from . import bigtwo

GAMES = {"bigtwo": bigtwo}


def engine(game):
    """The engine module of a game name, or a ValueError naming the games there are."""
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise ValueError("unknown game %r; games are: %s" % (game, ", ".join(sorted(GAMES)))) from None
