"""An aggregate answer whose ``meta`` names another metric or time bucket than the one asked,
over the drift proxy.

The interface document's aggregate ``meta`` holds ``metric`` and ``time_bucket``. One that is
not what the request asked is said (``wrong_entity``, naming both), ``attrs`` hold what was
asked, and the labels are read as the bucket asked: a ``meta.time_bucket`` of ``month`` on
quarter labels made every period null and a false warning that valid quarters "could not be
read as quarters" (which the doctor then reported as a break), and a ``meta.metric`` of
another metric passed silently into ``attrs["metric"]``.

Only another *documented* word is ``wrong_entity``. Any other spelling (``Q``,
``EV/Revenue``) is an ``unknown_value``, kept in the HTTP cache; a plain synonym
(``quarterly``) is the word asked, silently. The words served stay visible in
``attrs["meta_metric"]`` / ``attrs["meta_time_bucket"]``, and labels read in their own form
name the bucket they are read as in ``attrs["labels_read_as"]`` (``attrs["time_bucket"]``
is what was asked).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _doctor import by_name, run_doctor
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    assert_same,
    direct,
    edit,
    fresh_rules,
    meta_set,
    outcome,
    proxy,
    via,
)

from dealframe import Client
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
    """``QUARTER`` / ``EV_Revenue `` are the words asked: no finding. A guard (it passes on
    the code before the meta was compared, which never compared it): comparing the words
    must not turn case and spaces into a finding."""
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


def _cached(sandbox: Any, proxy: Any, tmp_path: Path) -> Client:
    """A client through the proxy with its HTTP cache on."""
    return Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=True,
        cache_path=tmp_path / "http.sqlite",
        **FAST,
    )


@pytest.mark.parametrize(
    ("served", "kinds"),
    [
        ({"time_bucket": "quarterly"}, []),
        ({"time_bucket": " Annual"}, None),  # asked "year" below: a synonym of it
        ({"time_bucket": "Q"}, ["unknown_value"]),
        ({"metric": "EV/Revenue"}, ["unknown_value"]),
        ({"metric": "ev_revenue_median"}, ["unknown_value"]),
    ],
    ids=["quarterly", "annual", "Q", "EV/Revenue", "ev_revenue_median"],
)
def test_meta_in_another_spelling_is_no_other_aggregate_and_stays_cached(
    sandbox, proxy, tmp_path, served, kinds
):
    """A ``meta`` word that is no other documented word is not ``wrong_entity`` (it was: a
    false "may be of another aggregate" warning, ``strict=True`` failing, the cache entry
    dropped on every call): a plain synonym is silent, any other spelling an
    ``unknown_value``, kept in the cache; the word served is in ``attrs``."""
    bucket = "year" if kinds is None else "quarter"
    kinds = kinds or []
    proxy.add(AGGREGATE, meta_set(**served))
    with _cached(sandbox, proxy, tmp_path) as client:
        got = outcome(lambda: client.private.aggregate("ev_revenue", bucket))
        assert got.error is None, repr(got.error)
        frame = got.value
        assert [f["kind"] for f in frame.attrs["findings"]] == kinds
        warned = got.warned(ServiceContractWarning)
        assert len(warned) == len(kinds), warned
        assert all("another aggregate" not in w for w in warned), warned
        (name, word), *_ = served.items()
        assert frame.attrs[f"meta_{name}"] == word
        assert frame.attrs["metric"] == "ev_revenue" and frame.attrs["time_bucket"] == bucket
        assert "labels_read_as" not in frame.attrs
        assert frame["period_start"].notna().all() and len(frame) > 4
        again = outcome(lambda: client.private.aggregate("ev_revenue", bucket))
        assert again.error is None, repr(again.error)
        assert again.value.attrs["from_cache"] is True
        assert proxy.count(AGGREGATE) == 1
        strict = outcome(lambda: client.private.aggregate("ev_revenue", bucket, strict=True))
        if kinds:
            assert isinstance(strict.error, ServiceContractError), repr(strict.error)
            assert "another aggregate" not in str(strict.error)
        else:
            assert strict.error is None, repr(strict.error)


def test_labels_read_in_their_own_form_keep_the_bucket_asked_in_attrs(direct, via, proxy):
    """``aggregate("ev_revenue", "year")`` answered with ``meta.time_bucket`` ``month`` and
    month labels: the labels are read as months, which ``attrs["labels_read_as"]`` says,
    while ``attrs["time_bucket"]`` holds the ``year`` asked, as the warning says (it held
    the served ``month``)."""
    labels = direct.private.aggregate("ev_revenue", "month").attrs["labels_as_served"][:3]
    served = {
        "data": [
            {"bucket": label, "n": 1, "median": 1.0, "q1": 1.0, "q3": 1.0, "warning": None}
            for label in labels
        ],
        "meta": {"metric": "ev_revenue", "time_bucket": "month", "total_deals": 3},
    }
    proxy.add(AGGREGATE, edit(lambda doc: served, "month answer"))
    got = outcome(lambda: via.private.aggregate("ev_revenue", "year"))
    assert got.error is None, repr(got.error)
    frame = got.value
    assert frame["bucket"].tolist() == labels
    assert frame["period_start"].notna().all()
    assert frame["period_end"].dt.month.tolist() == frame["period_start"].dt.month.tolist()
    assert frame.attrs["time_bucket"] == "year"
    assert frame.attrs["labels_read_as"] == "month"
    assert frame.attrs["meta_time_bucket"] == "month"
    said = [w for w in got.warned(ServiceContractWarning) if "meta.time_bucket" in w]
    assert len(said) == 1, got.caught
    assert "meta.time_bucket is 'month', not the 'year' asked" in said[0]
    assert "attrs['time_bucket'] hold what was asked" in said[0]
    assert "attrs['labels_read_as']" in said[0]
