"""Every Examples section in the package runs and prints what it says (doctest).

The modules whose examples use a ``client`` get one, connected to the suite's session
sandbox (cache off), so the client's examples run and cannot drift either. An example may
start a small sandbox of its own and draw into a figure of its own: dealframe.plot's does
both (scale 0.02, ``dplot.figure``), and runs. Examples that cannot run here, or would only
be shown (a real service's URL and token, a server left serving, data or a sandbox they do
not make, a figure drawn by pandas' ``.plot()`` without one of its own), are marked
``# doctest: +SKIP`` where they are written; everything else must hold, so a docstring
cannot drift from the code it documents.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

import dealframe

#: Modules whose import has side effects on pytest itself.
_SKIP = {"dealframe.sandbox.pytest_plugin", "dealframe.__main__"}
MODULES = sorted(
    m.name for m in pkgutil.walk_packages(dealframe.__path__, "dealframe.") if m.name not in _SKIP
)
#: Modules whose examples use a ``client``: one client per module, on the session sandbox.
WITH_CLIENT = {
    "dealframe.analytics.reconcile",
    "dealframe.client",
    "dealframe.comparison",
    "dealframe.link",
    "dealframe.private.api",
    "dealframe.public.api",
}


@pytest.mark.parametrize("name", MODULES)
def test_examples_in_docstrings_hold(
    name: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the examples' temporary folders (tempfile.mkdtemp) go to pytest's, which it removes
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    extraglobs: dict[str, Any] = {}
    if name in WITH_CLIENT:  # the sandbox starts only when a module asks for it
        sandbox = request.getfixturevalue("sandbox")
        client = dealframe.Client.for_sandbox(sandbox, cache_enabled=False, progress=False)
        request.addfinalizer(client.close)
        extraglobs = {"client": client, "dealframe": dealframe}
    result = doctest.testmod(
        module, extraglobs=extraglobs, optionflags=flags, report=True, verbose=False
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_modules_are_found() -> None:
    assert "dealframe.transport.session" in MODULES and len(MODULES) > 50
    assert WITH_CLIENT <= set(MODULES)
