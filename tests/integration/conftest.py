"""Fixtures shared by the Family B conformance tests: an HTTP caller and ground truth."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _private_api import Api, Truth


@pytest.fixture(scope="module")
def api(sandbox) -> Api:
    """Family B caller with the sandbox's private key (test_sandbox_public.py overrides it)."""
    return Api(sandbox.url, sandbox.private_key)


@pytest.fixture(scope="session")
def truth(sandbox) -> Truth:
    """Ground truth computed from the sandbox's raw records (once: a test that changes the
    session sandbox resets it, so its records are always the generated ones here)."""
    return Truth(sandbox.state.dataset)
