"""Helper of the sandbox changes tests: a module's sandbox with the admin endpoint on, reset
around each test that changes it, and the admin endpoint's calls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

import dealframe.sandbox

__all__ = ["ADMIN", "admin", "admin_ok", "sandbox_fixtures"]

#: The admin token of the sandboxes these fixtures start.
ADMIN = "changes-admin"


def sandbox_fixtures(seed: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The fixtures ``sb`` (a sandbox at scale 0.02 seeded ``seed``, admin endpoint on, one per
    test module) and ``fresh`` (``sb`` reset before and after the test), to assign as
    ``sb, fresh = sandbox_fixtures(seed)`` in a test module."""

    @pytest.fixture(scope="module")
    def sb() -> Iterator[Any]:
        with dealframe.sandbox.run(scale=0.02, seed=seed, admin_token=ADMIN) as sandbox:
            yield sandbox

    @pytest.fixture
    def fresh(sb: Any) -> Iterator[Any]:
        sb.reset()
        yield sb
        sb.reset()

    return sb, fresh


def admin(sb: Any, body: dict) -> requests.Response:
    """``POST /admin/v1/changes`` with ``body``: the answer, whatever its status."""
    return requests.post(
        f"{sb.url}/admin/v1/changes",
        json=body,
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=60,
    )


def admin_ok(sb: Any, body: dict) -> dict:
    """``POST /admin/v1/changes`` with ``body``, asserted a 200: its ``data``."""
    answer = admin(sb, body)
    assert answer.status_code == 200, (body, answer.text[:300])
    return answer.json()["data"]
