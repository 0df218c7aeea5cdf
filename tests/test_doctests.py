"""Every docstring example in the package is true (they are the first docs people read).

Every module of ``paizhuo`` and ``paizhuo_shared`` is collected, so a new module's examples
run without editing this file; the modules listed in ``MUST_HAVE_EXAMPLES`` must keep some.
"""

import doctest
import importlib
import pkgutil

import pytest

import paizhuo
import paizhuo_shared

MUST_HAVE_EXAMPLES = {
    "paizhuo_shared.cards",
    "paizhuo_shared.bigtwo",
    "paizhuo_shared.link",
    "paizhuo.errors",
    "paizhuo.rules.bigtwo",
    "paizhuo.rules.guandan",
    "paizhuo.bots.guandan",
    "paizhuo.bots.paohuzi",
    "paizhuo.rules.oracle",
    "paizhuo.bots.bigtwo",
    "paizhuo.deals",
    "paizhuo.venue.scoring",
    "paizhuo.venue.movement",
    "paizhuo.venue.matches",
    "paizhuo.sim.links",
}


def all_modules():
    names = []
    for pkg in (paizhuo, paizhuo_shared):
        names.append(pkg.__name__)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
    return sorted(names)


def test_the_listed_modules_exist():
    assert MUST_HAVE_EXAMPLES <= set(all_modules())


@pytest.mark.parametrize("name", all_modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0
    if name in MUST_HAVE_EXAMPLES:
        assert attempted > 0, "%s has no docstring examples" % name
