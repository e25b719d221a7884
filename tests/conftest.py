"""Shared test configuration: the session sandbox comes from dealframe's pytest plugin."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

#: ``pytester`` runs pytest sessions inside a test (the sandbox plugin's own tests).
pytest_plugins = ("pytester",)

_RUN_CACHE: list[str] = []
_SAVED: dict[str, str | None] = {}


def pytest_configure(config: pytest.Config) -> None:
    """The suite leaves the user's ~/.cache alone: caches (the HTTP cache of a default client,
    the sandbox's start-up snapshots, matplotlib's fonts) go to a folder of this run, removed
    at its end; child processes and xdist workers inherit it. A snapshot folder given in
    DEALFRAME_SANDBOX_CACHE is used as it is (reusing snapshots makes the suite quicker)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller chose the folder
    folder = tempfile.mkdtemp(prefix="dealframe-test-cache-")
    _RUN_CACHE.append(folder)
    _SAVED["XDG_CACHE_HOME"] = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _RUN_CACHE:
        if os.environ.get("XDG_CACHE_HOME") == folder:
            if _SAVED["XDG_CACHE_HOME"] is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = _SAVED["XDG_CACHE_HOME"]
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files marked ``slow`` (soak, crash tests, wheel, notebooks) first, the others after
    them in the order collected: integration, properties, then the quick unit files.

    pytest-xdist hands files (``--dist loadfile``) to its workers in this order
    (``--no-loadscope-reorder`` in pyproject.toml). Its own order, most tests first, put the
    long few-test files last (the wheel and the mirror's exit runs among the last seven), so a
    run could end with one worker on a long file and the other idle; longest first, the small
    files fill both workers to the end. The sort is stable and per file, so every file's tests
    keep their order."""
    items.sort(key=lambda item: _module_marker(item, "slow") is None)


def _module_marker(item: pytest.Item, name: str) -> pytest.Mark | None:
    module = item.getparent(pytest.Module)
    return None if module is None else module.get_closest_marker(name)


@pytest.fixture(scope="session")
def sandbox(dealframe_sandbox):
    """The session sandbox (scale 0.1 unless --dealframe-sandbox-scale says otherwise)."""
    return dealframe_sandbox
