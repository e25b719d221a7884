"""Aggregate buckets that disagree with the ``small_n_threshold`` the answer reports.

Section 4.3 rule 3 of the interface document: buckets with fewer deals than
``small_n_threshold`` are suppressed; rule 9: the value the service returns at run time is
authoritative. The drift proxy rewrites ``meta.methodology.small_n_threshold`` of the
sandbox's aggregate answer (which suppresses below 5) and leaves the buckets alone: to 10,
buckets of 5 to 9 deals carry statistics below it; to 3, buckets of 3 and 4 deals are
suppressed at or above it. ``client.private.aggregate`` says so (``threshold_mismatch``,
naming buckets and their ``n``), ``dealframe doctor``'s ``B.aggregate.suppression`` breaks with
those words, and ``analytics.reconcile`` says which of its mismatches they explain. (They used
to say nothing: the doctor's row said ``holds``, and reconcile gave a bare match count.)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
)

from dealframe import Client, analytics
from dealframe.doctor.checks import BREAKS, HOLDS, diagnose
from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox import run

HANG_LIMIT = 120
AGGREGATE = "^/api/private/v1/transactions/aggregate$"
KIND = "threshold_mismatch"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A sandbox of its own, suppressing below 5, whose month buckets hold 3 and 4 deals (null
    statistics) and 5 to 9 (statistics): both rewrites below have buckets to disagree."""
    with run(scale=0.05, seed=11) as served:
        yield served


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (nothing learned is shared between tests)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def _reported(value: int) -> Any:
    """Set ``meta.methodology.small_n_threshold`` of the aggregate answer, buckets unchanged."""

    def apply(doc: Any) -> Any:
        doc["meta"]["methodology"]["small_n_threshold"] = value
        return doc

    return edit(apply, f"small_n_threshold={value}")


@pytest.fixture(scope="module")
def served(direct: Client) -> pd.DataFrame:
    """The month buckets as the sandbox serves them (suppressed below its own 5)."""
    frame = direct.private.aggregate("ev_revenue", "month")
    assert frame.attrs["methodology"]["small_n_threshold"] == 5
    assert not frame.attrs["findings"]
    held = set(frame["n"].astype(int))
    assert {3, 4} <= held and held & {5, 6, 7, 8, 9}, sorted(held)
    return frame


def _disagreeing(served: pd.DataFrame, threshold: int) -> pd.DataFrame:
    """The buckets that disagree with ``threshold``, read from the undisturbed frame."""
    n, stated = served["n"].astype("float64"), served["median"].notna()
    below = (n > 0) & (n < threshold) & stated
    above = (n >= threshold) & ~stated
    return served.loc[below | above]


@pytest.mark.parametrize(
    ("threshold", "words"),
    [(10, "below it carry statistics"), (3, "at or above it have null statistics")],
    ids=["10-medians-below", "3-suppressed-above"],
)
def test_the_aggregate_says_which_buckets_disagree(threshold, words, client, proxy, served):
    off = _disagreeing(served, threshold)
    assert len(off) > 1, "the sandbox's data must hold buckets that disagree"
    proxy.add(AGGREGATE, _reported(threshold))
    o = outcome(lambda: client.private.aggregate("ev_revenue", "month"))
    assert o.error is None, repr(o.error)
    found = [f for f in o.value.attrs["findings"] if f["kind"] == KIND]
    assert len(found) == 1, o.value.attrs["findings"]
    message = found[0]["message"]
    first = off.iloc[0]
    assert f"small_n_threshold is {threshold}, but {len(off)} buckets {words}" in message
    assert f"({first['bucket']} n={int(first['n'])}," in message
    assert "they follow a threshold of 5" in message
    assert [w for w in o.warned(ServiceContractWarning) if message in w]
    # the frame is the service's buckets as served: only the finding is new
    assert o.value[["bucket", "n", "median"]].equals(served[["bucket", "n", "median"]])
    with pytest.raises(ServiceContractError) as caught:
        client.private.aggregate("ev_revenue", "month", strict=True)
    assert caught.value.finding == KIND and f"{first['bucket']} n=" in str(caught.value)


def test_buckets_that_agree_say_nothing(client, proxy, served):
    """The threshold the buckets were cut by, reported as such: no finding (a threshold of
    the sandbox's is not the client's: 5 here is only what this answer says)."""
    proxy.add(AGGREGATE, _reported(5))
    o = outcome(lambda: client.private.aggregate("ev_revenue", "month"))
    assert o.error is None and not o.value.attrs["findings"], o.value.attrs["findings"]
    assert not o.warned(Warning)


@pytest.mark.parametrize("threshold", [10, 3])
def test_the_doctor_suppression_row_breaks_naming_the_buckets(threshold, client, proxy, served):
    off = _disagreeing(served, threshold)
    proxy.add(AGGREGATE, _reported(threshold))
    checks = {c.name: c for c in diagnose(client, family="B").checks}
    row = checks["B.aggregate.suppression"]
    assert row.verdict == BREAKS, row
    first = off.iloc[0]
    assert f"small_n_threshold is {threshold}, but {len(off)} buckets" in row.observed, row
    assert f"{first['bucket']} n={int(first['n'])}" in row.observed, row
    # the label checks are not about the threshold: they say nothing of it
    for name in ("B.aggregate.labels.month", "B.aggregate.labels.quarter"):
        assert checks[name].verdict == HOLDS, checks[name]


def test_the_doctor_suppression_row_holds_when_the_buckets_agree(client, proxy):
    row = {c.name: c for c in diagnose(client, family="B").checks}["B.aggregate.suppression"]
    assert row.verdict == HOLDS, row
    assert "below 5 deals returned with null statistics" in row.observed, row


@pytest.mark.parametrize("threshold", [10, 3])
def test_reconcile_says_the_mismatches_are_the_thresholds(threshold, client, proxy, served):
    off = _disagreeing(served, threshold)
    proxy.add(AGGREGATE, _reported(threshold))
    o = outcome(lambda: analytics.reconcile(client, "ev_revenue", "month"))
    assert o.error is None, repr(o.error)
    rec = o.value
    mismatched = int((~rec.frame["match"]).sum())
    assert mismatched >= len(off) > 0
    assert rec.frame.attrs["off_threshold"] == len(off)
    assert rec.frame.attrs["threshold_followed"] == [5, 5]
    said = (
        f"{len(off)} of {mismatched} mismatched buckets are suppressed by the service as a "
        f"threshold of 5 would, not {threshold}"
    )
    assert said in rec.summary, rec.summary
    # the aggregate call's own warning says which buckets, once
    said_by_aggregate = [
        w for w in o.warned(ServiceContractWarning) if f"small_n_threshold is {threshold}, but" in w
    ]
    assert len(said_by_aggregate) == 1, o.warned(Warning)
