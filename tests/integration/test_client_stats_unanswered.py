"""``client.stats`` counts a request that got no HTTP answer as an attempt sent to the network,
as it counts an answered one (a drop, a body cut short, an answer slower than
``read_timeout``): each such call sent two requests, and says so.

Over HTTP: a sandbox of this module's own whose :class:`FaultPlan` scripts one fault on the
next request of the search.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import dealframe.sandbox
from dealframe.client import Client
from dealframe.sandbox.faults import FaultPlan

SEARCH = r"/api/v2/companies$"
QUICK = {"backoff_base": 0.01, "backoff_cap": 0.02, "progress": False}


@pytest.fixture(scope="module")
def plan() -> FaultPlan:
    return FaultPlan(slow_seconds=2.0)


@pytest.fixture(scope="module")
def faulty(plan: FaultPlan) -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=7, faults=plan) as sb:
        yield sb


@pytest.mark.parametrize("kind", ["drop", "truncate", "slow"])
def test_an_unanswered_attempt_counts_as_sent(faulty: Any, plan: FaultPlan, kind: str) -> None:
    plan.script(SEARCH, [kind])
    with Client.for_sandbox(faulty, read_timeout=0.5, **QUICK) as client:
        rows = client.public.search()
        stats = client.stats.snapshot()
    assert len(rows) > 0
    assert stats["retries"] == 1, stats
    # the faulted request and the one sent again: both went to the service
    assert (stats["attempts"], stats["network"]) == (2, 2), stats


def test_a_call_that_gives_up_counts_every_attempt(faulty: Any, plan: FaultPlan) -> None:
    plan.script(SEARCH, ["drop", "drop", "drop"])
    with Client.for_sandbox(faulty, retries=2, **QUICK) as client:
        with pytest.raises(dealframe.TransportError, match="gave up after 3 attempts"):
            client.public.search()
        stats = client.stats.snapshot()
    assert (stats["attempts"], stats["network"], stats["retries"]) == (3, 3, 2), stats
    assert stats["failures"] == 1
