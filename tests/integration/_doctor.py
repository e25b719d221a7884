"""Helpers of the ``dealframe doctor`` tests that run it through the drift proxy: an answer
the proxy serves in the service's place, a run of the doctor by a client of its own, its
checks by name, and the command pointed at the proxy (``cli``, a fixture: import it by name).

This module is test code: nothing under ``src/`` imports it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from _drift_proxy import Action, Exchange, Proxy

import dealframe
from dealframe.doctor import Check, Diagnosis

__all__ = ["answer", "by_name", "cli", "run_doctor"]


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Action:
    """Answer without forwarding: ``status``, ``body`` as JSON (an error body saying the
    status when None), ``headers``."""
    if body is None:
        body = {"error": {"code": "DOWN", "message": f"answered {status}"}}

    def apply(ex: Exchange) -> None:
        ex.forward, ex.status, ex._doc = False, status, None
        ex.headers = {"Content-Type": "application/json", **(headers or {})}
        ex.content = orjson.dumps(body)

    return Action(f"answer({status})", on_request=apply)


def run_doctor(
    sandbox: Any,
    proxy: Proxy,
    *,
    said: list[str] | None = None,
    family: str | None = None,
    max_requests: int = 60,
    **settings: Any,
) -> Diagnosis:
    """The doctor through the proxy, by a client of its own (``settings``: the client's),
    the lines it says before long waits appended to ``said``."""
    with dealframe.Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=False,
        progress=False,
        **settings,
    ) as client:
        say = None if said is None else said.append
        return dealframe.doctor(client, say=say, family=family, max_requests=max_requests)


def by_name(found: Diagnosis) -> dict[str, Check]:
    """The checks of a run by their names."""
    return {c.name: c for c in found.checks}


@pytest.fixture
def cli(sandbox: Any, proxy: Proxy, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``dealframe doctor`` through the proxy (its settings in the environment)."""
    for key, value in (
        ("DEALFRAME_BASE_URL", proxy.url),
        ("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token),
        ("DEALFRAME_PRIVATE_KEY", sandbox.private_key),
    ):
        monkeypatch.setenv(key, value)
    yield
