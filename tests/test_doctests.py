"""Every docstring example in the engines and shared code is true (they are the first docs people read)."""

import doctest
import importlib

import pytest

MODULES = [
    "paizhuo_shared.cards",
    "paizhuo_shared.bigtwo",
    "paizhuo.rules.bigtwo",
    "paizhuo.rules.oracle",
    "paizhuo.bots.bigtwo",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0
    assert attempted > 0, "%s has no docstring examples" % name
