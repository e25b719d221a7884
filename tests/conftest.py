"""Shared test configuration: the session sandbox comes from dealframe's pytest plugin."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_SNAPSHOTS: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Sandbox start-up snapshots go to a folder of this run, removed at its end (the suite
    leaves the user's ~/.cache alone); child processes inherit it. A folder given in
    DEALFRAME_SANDBOX_CACHE is used as it is."""
    if "DEALFRAME_SANDBOX_CACHE" not in os.environ:
        _SNAPSHOTS.append(tempfile.mkdtemp(prefix="dealframe-test-snapshots-"))
        os.environ["DEALFRAME_SANDBOX_CACHE"] = _SNAPSHOTS[0]


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _SNAPSHOTS:
        if os.environ.get("DEALFRAME_SANDBOX_CACHE") == folder:
            del os.environ["DEALFRAME_SANDBOX_CACHE"]
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def sandbox(dealframe_sandbox):
    """The session sandbox (scale 0.1 unless --dealframe-sandbox-scale says otherwise)."""
    return dealframe_sandbox
