"""An aggregate frame's ``attrs["labels_as_served"]`` is shared by its copies, not copied.

An audit of issue 8 found ``client.private.aggregate("ev_revenue", "month",
date_from="0001-01-01", date_to="9999-12-31")`` taking ~30 s where the raw answer takes under
a second: each of its ~120,000 labels was read through the argument-checking decorator, one
``pandas.Period`` each, and pandas deep-copied the 120,000-entry list of labels as served on
every frame operation. The labels are now a read-only list (``LabelsAsServed``) that a deep
copy shares, and the labels in the usual form are read at once; what they mean (one label a
row, as the service wrote it) is unchanged.
"""

from __future__ import annotations

import copy
import pickle

import pandas as pd
import pytest

import dealframe
import dealframe.sandbox
from dealframe.frames.private import aggregate_frame, bucket_period


@pytest.fixture(scope="module")
def client():
    with dealframe.sandbox.run(scale=0.02, seed=5) as sb, dealframe.Client.for_sandbox(sb) as c:
        yield c


def test_the_labels_of_an_answer_are_shared_by_the_frames_copies(client):
    frame = client.private.aggregate(
        "ev_revenue", "month", date_from="2020-01-01", date_to="2021-12-31"
    )
    labels = frame.attrs["labels_as_served"]
    assert labels == frame["bucket"].tolist()  # one a row, as served (a list still)
    assert isinstance(labels, list) and len(labels) == 24
    assert copy.deepcopy(frame.attrs)["labels_as_served"] is labels
    assert frame.copy().attrs["labels_as_served"] is labels
    assert frame[frame["n"] >= 0].attrs["labels_as_served"] is labels
    with pytest.raises(TypeError, match="read only"):
        labels.append("2022-01")
    with pytest.raises(TypeError, match="read only"):
        labels[0] = "x"
    assert labels == frame["bucket"].tolist()


def test_labels_read_only_list_keeps_list_behaviour():
    from dealframe.frames.private import LabelsAsServed

    labels = LabelsAsServed(["2024-Q1", "Q2 2024", None, 2024])
    assert labels == ["2024-Q1", "Q2 2024", None, 2024] and labels[1:3] == ["Q2 2024", None]
    assert pickle.loads(pickle.dumps(labels)) == labels
    assert type(pickle.loads(pickle.dumps(labels))) is LabelsAsServed
    copied = list(labels)
    copied.append("more")  # list() gives one to change
    assert len(labels) == 4
    odd = LabelsAsServed([{"q": 1}])  # an object a service wrote: copied, as before
    assert copy.deepcopy(odd) is not odd and copy.deepcopy(odd)[0] is not odd[0]


@pytest.mark.parametrize("kind", ["month", "quarter", "year"])
def test_the_frames_bounds_are_the_calendars(kind):
    freq = {"month": "M", "quarter": "Q", "year": "Y"}[kind]
    years = [1, 999, 1000, 1900, 2000, 2023, 2024, 2100, 9999]
    periods = [p for y in years for p in pd.period_range(f"{y:04d}-01", f"{y:04d}-12", freq=freq)]
    written = {
        "month": lambda p: f"{p.year:04d}-{p.month:02d}",
        "quarter": lambda p: f"{p.year:04d}-Q{p.quarter}",
        "year": lambda p: f"{p.year:04d}",
    }[kind]
    served = [written(p) for p in periods] + ["0000-01", "Q5 2024", None, "2024-13"]
    frame = aggregate_frame([{"bucket": b, "n": 0} for b in served], {"time_bucket": kind})
    for i, p in enumerate(periods):
        expected = (written(p), p.start_time.date().isoformat(), p.end_time.date().isoformat())
        assert bucket_period(served[i], kind) == expected
        got = frame.loc[i, ["bucket", "period_start", "period_end"]].tolist()
        assert [got[0], str(got[1].date()), str(got[2].date())] == list(expected)
    assert frame["period_start"].iloc[len(periods) :].isna().all()
    assert frame.attrs["labels_as_served"] == served
