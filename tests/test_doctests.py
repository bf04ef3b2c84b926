"""The Examples in the package's docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import trimsa

MODULES = sorted(m.name for m in pkgutil.walk_packages(trimsa.__path__, "trimsa.")
                 if m.name != "trimsa.__main__")   # importing it runs the command line


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
