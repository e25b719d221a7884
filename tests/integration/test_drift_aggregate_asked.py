"""An aggregate answer whose ``meta`` names another metric or time bucket than the one asked,
over the drift proxy.

The interface document's aggregate ``meta`` holds ``metric`` and ``time_bucket``. One that is
not what the request asked is said (``wrong_entity``, naming both), ``attrs`` hold what was
asked, and the labels are read as the bucket asked: a ``meta.time_bucket`` of ``month`` on
quarter labels made every period null and a false warning that valid quarters "could not be
read as quarters" (which the doctor then reported as a break), and a ``meta.metric`` of
another metric passed silently into ``attrs["metric"]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _doctor import by_name, run_doctor
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    fresh_rules,
    meta_set,
    outcome,
    proxy,
    via,
)

from dealframe.doctor import BREAKS
from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

AGGREGATE = "^/api/private/v1/transactions/aggregate$"


@pytest.mark.parametrize(
    ("served", "said"),
    [
        ({"metric": "ev_ebitda"}, "meta.metric is 'ev_ebitda', not the 'ev_revenue' asked"),
        ({"time_bucket": "month"}, "meta.time_bucket is 'month', not the 'quarter' asked"),
    ],
    ids=["metric", "time_bucket"],
)
def test_meta_not_of_the_aggregate_asked_is_said_and_the_labels_read_as_asked(
    direct, via, proxy, served, said
):
    ref = direct.private.aggregate("ev_revenue", "quarter")
    proxy.add(AGGREGATE, meta_set(**served))
    got = outcome(lambda: via.private.aggregate("ev_revenue", "quarter"))
    assert got.error is None, repr(got.error)
    frame = got.value
    warned = got.warned(ServiceContractWarning)
    assert len(warned) == 1 and said in warned[0], warned
    assert "could not be read" not in warned[0]
    assert [f["kind"] for f in frame.attrs["findings"]] == ["wrong_entity"]
    assert frame.attrs["metric"] == "ev_revenue" and frame.attrs["time_bucket"] == "quarter"
    assert frame["period_start"].notna().all() and len(frame) > 4
    assert_same(frame, ref)
    with pytest.raises(ServiceContractError, match="not the '.*' asked"):
        via.private.aggregate("ev_revenue", "quarter", strict=True)


def test_meta_written_in_another_case_is_the_one_asked(via, proxy):
    """``QUARTER`` / ``EV_Revenue `` are the words asked: no finding."""
    proxy.add(AGGREGATE, meta_set(metric="EV_Revenue ", time_bucket="QUARTER"))
    got = outcome(lambda: via.private.aggregate("ev_revenue", "quarter"))
    assert got.error is None, repr(got.error)
    assert got.warned(ServiceContractWarning) == [], got.caught
    assert got.value["period_start"].notna().all()


def test_the_doctor_says_the_meta_bucket_not_a_false_break_of_the_labels(sandbox, proxy):
    """``dealframe doctor``: the quarter labels are read (no break quoting "could not be read
    as quarters"); what it says is the client's warning of the meta's bucket."""
    proxy.add(AGGREGATE, meta_set(time_bucket="month"))
    found = outcome(lambda: run_doctor(sandbox, proxy, family="B"))
    assert found.error is None, repr(found.error)
    check = by_name(found.value)["B.aggregate.labels.quarter"]
    assert check.verdict != BREAKS, check
    assert "could not be read" not in check.observed, check
    assert "meta.time_bucket is 'month', not the 'quarter' asked" in check.observed, check
