"""Seeded computer players.  A bot sees only what its seat may see: the seat's view and its legal actions."""

import random


class SeededBot:
    """What every bot starts from: ``rng``, seeded by ``seed`` (it breaks ties, so bots of
    different seeds differ), and ``whim`` (0 to 1), how often it makes a person's offhand choice
    instead of its best one (simulated fields: the tables of a group then differ).

    >>> SeededBot(whim=1.5)
    Traceback (most recent call last):
    ...
    ValueError: whim must be from 0 to 1, not 1.5
    """

    def __init__(self, seed=0, whim=0.0):
        if not 0.0 <= whim <= 1.0:
            raise ValueError("whim must be from 0 to 1, not %r" % (whim,))
        self.rng = random.Random(seed)
        self.whim = whim

    def _offhand(self):
        """True when this decision is an offhand one (``whim`` of the time)."""
        return bool(self.whim) and self.rng.random() < self.whim
