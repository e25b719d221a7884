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

Null statistics at or above the threshold are no threshold mismatch when the bucket's
``warning`` gives another reason, and no one threshold is said as both readings (another
threshold, or n counting deals without a value), the doctor not breaking. A service leaving
buckets out by a higher threshold than it reports is said so in its ``count_mismatch``.
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
from dealframe.doctor.checks import ADAPTED, BREAKS, HOLDS, diagnose
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


# --- null statistics for another reason than the threshold ------------------------------
#
# The document says only "n (deal count)" (rule 1) and does not show warning values (rule
# 8): a service whose n counts every deal nulls the statistics of a bucket of many deals with
# few values. The buckets of 8 deals or more below are given null statistics, the threshold
# the answer reports (5) left as it is.

UNEXPLAINED = "suppression_unexplained"
MANY = 8


def _nulled_from(n: int, warning: str | None) -> Any:
    """Null median, q1 and q3 of the buckets of ``n`` deals or more, with ``warning``."""

    def apply(doc: Any) -> Any:
        for bucket in doc["data"]:
            if bucket["n"] >= n:
                bucket.update(median=None, q1=None, q3=None, warning=warning)
        return doc

    return edit(apply, f"null statistics from n={n}, warning {warning!r}")


def test_null_statistics_with_another_warning_are_no_threshold_mismatch(client, proxy, served):
    """``warning: "no_values"`` (a value the suppressed buckets below 5 do not carry) gives
    another reason: no finding, no strict raise, the doctor's row holds. (It used to be a
    threshold_mismatch of 18 buckets "no one threshold" explained, and the doctor broke.)"""
    many = int((served["n"] >= MANY).sum())
    assert many > 1, "the sandbox's data must hold buckets of 8 deals or more"
    proxy.add(AGGREGATE, _nulled_from(MANY, "no_values"))
    o = outcome(lambda: client.private.aggregate("ev_revenue", "month"))
    assert o.error is None, repr(o.error)
    assert not o.value.attrs["findings"], o.value.attrs["findings"]
    assert not o.warned(ServiceContractWarning)
    assert int(o.value["median"].isna().sum()) >= many  # the answer was changed
    strict = client.private.aggregate("ev_revenue", "month", strict=True)
    assert (strict["warning"] == "no_values").sum() == many
    row = {c.name: c for c in diagnose(client, family="B").checks}["B.aggregate.suppression"]
    assert row.verdict == HOLDS, row
    assert "below 5 deals returned with null statistics" in row.observed, row
    rec = outcome(lambda: analytics.reconcile(client, "ev_revenue", "month"))
    assert rec.error is None, repr(rec.error)
    assert rec.value.frame.attrs["off_threshold"] == 0
    assert "mismatched buckets are suppressed" not in rec.value.summary, rec.value.summary


def test_no_one_threshold_is_said_as_both_readings(client, proxy, served):
    """``warning`` null at 8 deals or more while buckets of 5 to 7 carry statistics: no one
    threshold gives it. Not a threshold_mismatch: a ``suppression_unexplained`` finding naming
    both readings (another threshold, or n counting deals without a value); the doctor's row
    is adapted, not broken; reconcile says both."""
    many = served.loc[served["n"] >= MANY]
    proxy.add(AGGREGATE, _nulled_from(MANY, None))
    o = outcome(lambda: client.private.aggregate("ev_revenue", "month"))
    assert o.error is None, repr(o.error)
    kinds = [f["kind"] for f in o.value.attrs["findings"]]
    assert kinds == [UNEXPLAINED], o.value.attrs["findings"]
    message = o.value.attrs["findings"][0]["message"]
    first = many.iloc[0]
    assert (
        f"small_n_threshold is 5, and {len(many)} buckets at or above it have null statistics "
        f"({first['bucket']} n={int(first['n'])}," in message
    ), message
    assert "no one threshold gives this suppression" in message, message
    assert "another threshold than it reports, or its n counts deals without a value" in message
    assert [w for w in o.warned(ServiceContractWarning) if message in w]
    checks = {c.name: c for c in diagnose(client, family="B").checks}
    row = checks["B.aggregate.suppression"]
    assert row.verdict == ADAPTED, row
    assert "n counts deals without a value" in row.observed, row
    rec = outcome(lambda: analytics.reconcile(client, "ev_revenue", "month"))
    assert rec.error is None, repr(rec.error)
    assert rec.value.frame.attrs["off_threshold"] == len(many)
    assert rec.value.frame.attrs["threshold_followed"] is None
    mismatched = int((~rec.value.frame["match"]).sum())
    said = (
        f"{len(many)} of {mismatched} mismatched buckets are suppressed by the service "
        "otherwise than a threshold of 5 would, and no one threshold gives it: the threshold "
        "differs, or n counts deals without a value"
    )
    assert said in rec.value.summary, rec.value.summary
    assert "by no one threshold, not" not in rec.value.summary


# --- left out by a higher threshold than reported ----------------------------------------


@pytest.fixture(scope="module")
def omitting(sandbox: Any) -> Iterator[tuple[Any, Proxy]]:
    """A sandbox that leaves suppressed buckets (below 5) out (``small-n-omitted``), behind a
    drift proxy of its own."""
    with run(scale=0.05, seed=11, profile="small-n-omitted") as served, Proxy(served.url) as p:
        yield served, p


def test_left_out_buckets_beyond_the_reported_threshold_say_the_higher_cut(omitting):
    """Buckets of 3 and 4 deals left out while the answer reports 3: the count_mismatch
    says the left-out buckets may hold 3 deals or more (the service leaving them out by a
    higher threshold than it reports), not only that deals are more than they can hold."""
    served, p = omitting
    p.reset()
    p.add(AGGREGATE, _reported(3))
    with Client(p.url, served.public_token, served.private_key, cache_enabled=False, **FAST) as c:
        o = outcome(lambda: c.private.aggregate("ev_revenue", "month"))
    assert o.error is None, repr(o.error)
    found = [f for f in o.value.attrs["findings"] if f["kind"] == "count_mismatch"]
    assert len(found) == 1, o.value.attrs["findings"]
    message = found[0]["message"]
    left = len(o.value.attrs["buckets_left_out"])
    assert "left-out bucket(s) below small_n_threshold 3 can hold" in message, message
    assert f"{left} left-out" in message and left > 1, message
    assert (
        "or the left-out ones hold 3 deals or more each, the service leaving out buckets by a "
        "higher threshold than the one it reports" in message
    ), message
    p.reset()
