"""Every Examples section in the package runs and prints what it says (doctest).

Examples that need a live service are marked ``# doctest: +SKIP`` where they are written;
everything else must hold, so a docstring cannot drift from the code it documents.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dealframe

#: Modules whose import has side effects on pytest itself.
_SKIP = {"dealframe.sandbox.pytest_plugin", "dealframe.__main__"}
MODULES = sorted(
    m.name for m in pkgutil.walk_packages(dealframe.__path__, "dealframe.") if m.name not in _SKIP
)


@pytest.mark.parametrize("name", MODULES)
def test_examples_in_docstrings_hold(name: str) -> None:
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_modules_are_found() -> None:
    assert "dealframe.transport.session" in MODULES and len(MODULES) > 50
