"""A sandbox of a test module's own (its tests change its data), reset around every test, and a
client that talks to it through the module's drift proxy.

A module sets ``OWN_SANDBOX = {"scale": ..., "seed": ...}`` and imports ``sandbox``, ``sb``
and ``client`` by name, with ``proxy`` from ``_drift_proxy`` (the proxy is put in front of
``sandbox``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _drift_proxy import FAST

import dealframe.sandbox
from dealframe.client import Client

__all__ = ["client", "sandbox", "sb"]


@pytest.fixture(scope="module")
def sandbox(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A sandbox of the module's own (``OWN_SANDBOX``: its scale and seed)."""
    with dealframe.sandbox.run(**request.module.OWN_SANDBOX) as served:
        yield served


@pytest.fixture()
def sb(sandbox: Any) -> Iterator[Any]:
    """The module's sandbox, its data as generated before and after the test."""
    sandbox.reset()
    yield sandbox
    sandbox.reset()


@pytest.fixture()
def client(sb: Any, proxy: Any) -> Iterator[Client]:
    """A client of the sandbox through the drift proxy (no cache, quick retries)."""
    with Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST) as c:
        yield c
