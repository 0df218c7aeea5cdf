"""What every bot does the same way: its seed and its whim.

>>> bot = Seeded(seed=3, whim=0.0)
>>> bot._offhand()
False
>>> Seeded(whim=2)
Traceback (most recent call last):
...
ValueError: whim must be from 0 to 1, not 2
"""

import random


class Seeded:
    """A bot deterministic for its ``seed`` (``rng`` breaks its ties), with ``whim`` (0 to 1): how
    often it makes a person's offhand choice instead of its best one, so that tables playing the
    same deals do not all come out the same."""

    def __init__(self, seed=0, whim=0.0):
        if not 0.0 <= whim <= 1.0:
            raise ValueError("whim must be from 0 to 1, not %r" % (whim,))
        self.rng = random.Random(seed)
        self.whim = whim

    def _offhand(self):
        """True when this choice is an offhand one (never without a whim: the seed stays unused)."""
        return bool(self.whim) and self.rng.random() < self.whim
