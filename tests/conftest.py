"""Shared test configuration: the session sandbox comes from dealframe's pytest plugin."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sandbox(dealframe_sandbox):
    """The session sandbox (scale 0.1 unless --dealframe-sandbox-scale says otherwise)."""
    return dealframe_sandbox
