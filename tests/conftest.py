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


@pytest.fixture(scope="session")
def sandbox(dealframe_sandbox):
    """The session sandbox (scale 0.1 unless --dealframe-sandbox-scale says otherwise)."""
    return dealframe_sandbox
