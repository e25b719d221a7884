"""Counts of a Family A ``meta`` (``count``, ``companies``, ``total``) as the group frames read
them: :func:`dealframe.contract.as_count` and :func:`dealframe.frames.public.read_meta`.

A numpy integer is a count: a ``meta`` built with pandas or numpy (``np.int64(3)``) gave
``attrs["count"] is None``, silently. A value that is no count (``3.5``, ``-1``, ``True``)
becomes None, and is said: to the call's findings, or in a warning when the frame is built
from a ``meta`` at hand (it was dropped without a word).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dealframe.contract import Findings, as_count
from dealframe.frames.public import group_current_frame, group_time_series_frame, read_meta
from dealframe.notices import ServiceContractWarning

DATA = {"sum": {"marketCap": 1.0}, "median": {"evRevenueLtm": 2.0}}
SERIES = [{"period": "2024-01", "median": {"marketCap": 3.0}}]
NUMPY = [np.int64(3), np.int32(3), np.uint8(3), np.int16(3)]


@pytest.mark.parametrize("value", NUMPY, ids=lambda v: type(v).__name__)
def test_a_numpy_integer_is_a_count(value):
    assert as_count(value) == 3 and type(as_count(value)) is int


@pytest.mark.parametrize("value", [np.int64(-1), np.bool_(True), True, 3.5, np.float64(3.5)])
def test_what_is_no_count_stays_none(value):
    assert as_count(value) is None


@pytest.mark.parametrize(
    "build",
    [
        lambda meta: group_current_frame(DATA, meta),
        lambda meta: group_time_series_frame(SERIES, meta),
    ],
    ids=["group_current_frame", "group_time_series_frame"],
)
def test_numpy_counts_are_integers_in_attrs_without_a_word(build):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = build({"count": np.int64(3), "companies": np.int64(4)})
    assert frame.attrs["count"] == 3 and frame.attrs["companies"] == 4
    assert type(frame.attrs["count"]) is int and type(frame.attrs["companies"]) is int


def test_numpy_counts_are_not_said_to_be_text():
    found = Findings("POST /api/v2/groups/current")
    assert read_meta({"count": np.int64(3), "companies": "4"}, found) == {
        "count": 3,
        "companies": 4,
    }
    assert [f.message.split(" written")[0] for f in found] == ["meta.companies"]


@pytest.mark.parametrize("value", [3.5, -1, True, "many"])
def test_a_count_at_hand_that_is_none_is_warned_of(value):
    with pytest.warns(ServiceContractWarning, match=rf"meta\.count is {value!r}, not a count"):
        frame = group_current_frame(DATA, {"count": value, "companies": 2})
    assert frame.attrs["count"] is None and frame.attrs["companies"] == 2


@pytest.mark.parametrize("value", [3.5, -1, True])
def test_a_count_that_is_none_is_said_to_the_findings(value):
    found = Findings("POST /api/v1/groups/time-series")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_meta({"count": value}, found) == {"count": None}
    assert [f.message for f in found] == [f"meta.count is {value!r}, not a count: ignored"]
