"""Shared test configuration: the session sandbox comes from dealframe's pytest plugin."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable

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


class SandboxStarted(Exception):
    """Raised by :func:`sandbox_starts`'s tripwires: a sandbox began to start."""


@pytest.fixture
def sandbox_starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every step of a sandbox start-up in this process: a test asserts the list is empty
    where options must be refused before anything starts (not by how long the refusal took,
    which a loaded machine stretches).

    Tripwires on the serving layer's loading (``http_layer``, through which ``--sandbox``'s
    ``embedded`` and ``sandbox serve`` pass) and on the data's loading or generation
    (``SandboxState.build``, every server's first step): each notes its step, then raises
    :class:`SandboxStarted`, so a command that would have started a sandbox stops there.
    """
    import dealframe.sandbox
    import dealframe.sandbox.launch
    from dealframe.sandbox.models import SandboxState

    steps: list[str] = []

    def tripwire(step: str) -> Callable[..., None]:
        def tripped(*args: object, **kwargs: object) -> None:
            steps.append(step)
            raise SandboxStarted(f"a sandbox started ({step})")

        return tripped

    for module in (dealframe.sandbox, dealframe.sandbox.launch):
        monkeypatch.setattr(module, "http_layer", tripwire("the serving layer loaded"))
    monkeypatch.setattr(SandboxState, "build", tripwire("the data built"))
    return steps


@pytest.fixture(scope="session")
def sandbox(dealframe_sandbox):
    """The session sandbox (scale 0.1 unless --dealframe-sandbox-scale says otherwise)."""
    return dealframe_sandbox
