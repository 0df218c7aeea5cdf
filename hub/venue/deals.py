"""The deal generator moved to :mod:`paizhuo.deals` (below both the table and the venue).

This name stays so the venue's and users' imports keep working: it is the same module
object, so a change made through either name is seen through both.
"""

import sys

from .. import deals as _deals

sys.modules[__name__] = _deals
