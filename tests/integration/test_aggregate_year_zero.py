"""A bucket label of the year 0000 is a label the client cannot read, over HTTP.

There is no year 0 in the calendar the interface document's ``YYYY-MM-DD`` dates count (the
years 1 to 9999), and pandas cannot hold a period of it. A changed service that labelled a
bucket ``0000``, ``0000-Q1`` or ``0000-01`` made ``client.private.aggregate`` raise pandas'
``NotImplementedError`` (not a dealframe error) from the label's reading. Such a label is now
one that cannot be read: the bucket keeps its text and null bounds, as any unreadable label
(docs/aggregates.md).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

AGGREGATE = "^/api/private/v1/transactions/aggregate$"

#: (time bucket, window, the label the changed service writes for the first bucket)
CASES = [
    ("year", ("2021-01-01", "2022-12-31"), "0000"),
    ("quarter", ("2021-01-01", "2021-12-31"), "0000-Q1"),
    ("month", ("2021-01-01", "2021-03-31"), "0000-01"),
]


def _first_label(label: str) -> Any:
    def apply(doc: Any) -> Any:
        doc["data"][0]["bucket"] = label
        return doc

    return edit(apply, f"first bucket {label}")


@pytest.mark.parametrize(("time_bucket", "window", "label"), CASES)
def test_a_bucket_of_the_year_0000_keeps_its_text_and_no_bounds(
    via, proxy, time_bucket, window, label
):
    proxy.add(AGGREGATE, _first_label(label))
    o = outcome(
        lambda: via.private.aggregate(
            "ev_revenue", time_bucket, date_from=window[0], date_to=window[1]
        )
    )
    assert o.error is None, repr(o.error)
    assert proxy.count(AGGREGATE) >= 1
    frame = o.value
    assert frame.loc[0, "bucket"] == label
    assert pd.isna(frame.loc[0, "period_start"]) and pd.isna(frame.loc[0, "period_end"])
    assert frame.attrs["labels_as_served"][0] == label
    # the other buckets are read as before
    assert frame["period_start"].iloc[1:].notna().all()
    assert len(frame) >= 2
    assert any(label in str(w.message) for w in o.caught), [str(w.message) for w in o.caught]
