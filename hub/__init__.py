"""paizhuo: the table hub and venue side of the competition system (CPython).

- ``paizhuo.rules``: one pure rules engine per game, the registry of games, plus the rules oracle.
- ``paizhuo.bots``: seeded, legal computer players (demo, 托管 and 人机赛).
- ``paizhuo.cli``: the ``paizhuo`` command.
"""
__version__ = "0.1.0"
