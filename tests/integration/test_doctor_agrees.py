"""``dealframe doctor`` agrees with the client: each test plays one service variant with the
drift proxy, runs the doctor and the client's own call on it, and checks that the verdict says
what the client does (a frame it cannot fill is ``breaks``; a warning it gives on every call is
never ``holds``; a refusal it adapts to is never ``breaks``; no token it blanks is printed).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    edit,
    fresh_rules,
    outcome,
    proxy,
)

from dealframe import Client
from dealframe.doctor.checks import BREAKS, Diagnosis, diagnose
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
AGGREGATE = f"^{P}/transactions/aggregate$"


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (nothing learned is shared between tests)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def _doctor(client: Client, family: str | None = None) -> dict[str, Any]:
    """The doctor's checks by name."""
    diagnosis: Diagnosis = diagnose(client, family=family)
    return {c.name: c for c in diagnosis.checks}


def _wrap_buckets(doc: Any) -> Any:
    doc["data"] = {"buckets": doc["data"]}
    return doc


def _no_buckets(doc: Any) -> Any:
    doc["data"] = []
    return doc


@pytest.mark.parametrize("change", [_wrap_buckets, _no_buckets], ids=["wrapped", "empty"])
def test_aggregate_the_client_reads_as_no_rows_breaks(
    client: Client, proxy: Proxy, change: Callable[[Any], Any]
) -> None:
    proxy.add(AGGREGATE, edit(change))
    got = outcome(lambda: client.private.aggregate("ev_revenue", "month"))
    assert got.error is None and len(got.value) == 0
    warned = got.warned(ServiceContractWarning)
    assert any("total_deals" in w for w in warned)
    checks = _doctor(client, "B")
    for name in ("B.aggregate.labels.quarter", "B.aggregate.labels.month"):
        assert checks[name].verdict == BREAKS, checks[name]
        assert "meta.total_deals" in checks[name].observed
    assert checks["B.aggregate.suppression"].verdict == BREAKS
    # the client's own words
    said = warned[-1].split(": ", 1)[1]
    assert said in checks["B.aggregate.labels.month"].observed
