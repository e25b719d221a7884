"""``client.private.aggregate`` over windows of the years 1 to 999, over HTTP.

The interface document's dates are ``YYYY-MM-DD`` and the client reads the window's dates of
the years 1 to 9999 (docs/aggregates.md). A correct answer whose buckets are ``0001`` or
``0999-Q4`` was refused as a ``ServiceContractError`` ("period_start: expected YYYY-MM-DD
dates (time data "1-01-01" ...)"): the bucket's first and last days were written with
``strftime("%Y-%m-%d")``, whose ``%Y`` glibc does not pad to four digits below the year 1000.
The sandbox answers these windows itself; the drift proxy serves the other label forms the
client reads (``Q4 0999``, a month's first day), so each is checked too.
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

from dealframe.analytics import bucket_medians

AGGREGATE = "^/api/private/v1/transactions/aggregate$"

#: (time bucket, window, the first two buckets: label, first day, last day)
CASES = [
    (
        "year",
        ("0001-01-01", "0003-12-31"),
        [("0001", "0001-01-01", "0001-12-31"), ("0002", "0002-01-01", "0002-12-31")],
    ),
    (
        "year",
        ("0999-12-01", "1000-01-31"),
        [("0999", "0999-01-01", "0999-12-31"), ("1000", "1000-01-01", "1000-12-31")],
    ),
    (
        "quarter",
        ("0001-01-01", "0001-12-31"),
        [("0001-Q1", "0001-01-01", "0001-03-31"), ("0001-Q2", "0001-04-01", "0001-06-30")],
    ),
    (
        "quarter",
        ("0999-12-01", "1000-01-31"),
        [("0999-Q4", "0999-10-01", "0999-12-31"), ("1000-Q1", "1000-01-01", "1000-03-31")],
    ),
    (
        "month",
        ("0099-01-01", "0099-03-31"),
        [("0099-01", "0099-01-01", "0099-01-31"), ("0099-02", "0099-02-01", "0099-02-28")],
    ),
    (
        "month",
        ("0999-12-01", "1000-01-31"),
        [("0999-12", "0999-12-01", "0999-12-31"), ("1000-01", "1000-01-01", "1000-01-31")],
    ),
]


def _days(column: pd.Series) -> list[str]:
    return [pd.Timestamp(day).date().isoformat() for day in column]


def _first_two(frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    head = frame.head(2)
    return list(
        zip(
            head["bucket"].astype(str),
            _days(head["period_start"]),
            _days(head["period_end"]),
            strict=True,
        )
    )


@pytest.mark.parametrize(("time_bucket", "window", "expected"), CASES)
def test_buckets_of_the_first_millennium_are_read(direct, time_bucket, window, expected):
    got = direct.private.aggregate(
        "ev_revenue", time_bucket, date_from=window[0], date_to=window[1]
    )
    assert _first_two(got) == expected
    assert (got["n"] == 0).all()  # no deal is that old
    # the local recomputation has the same buckets on the same days
    local = bucket_medians(
        pd.DataFrame({"deal_date": [], "ev_revenue": []}),
        "ev_revenue",
        time_bucket,
        window[0],
        window[1],
    )
    assert _first_two(local) == expected
    assert local["bucket"].astype(str).tolist() == got["bucket"].astype(str).tolist()


def _relabel_text(time_bucket: str, text: str) -> str:
    """A label in another form the client reads: ``Q4 0999`` for a quarter, the first day
    ``0999-12-01`` for a month, ``0999-01-01`` for a year."""
    if time_bucket == "quarter":
        year, quarter = text.split("-")
        return f"{quarter} {year}"
    return f"{text}-01" if time_bucket == "month" else f"{text}-01-01"


def _relabel(time_bucket: str) -> Any:
    """The service's answer with its labels as :func:`_relabel_text` writes them."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            item["bucket"] = _relabel_text(time_bucket, item["bucket"])
        return doc

    return edit(apply, f"relabel {time_bucket}")


@pytest.mark.parametrize(("time_bucket", "window", "expected"), CASES)
def test_other_label_forms_of_the_first_millennium_are_read(
    direct, via, proxy, time_bucket, window, expected
):
    proxy.add(AGGREGATE, _relabel(time_bucket))
    o = outcome(
        lambda: via.private.aggregate(
            "ev_revenue", time_bucket, date_from=window[0], date_to=window[1]
        )
    )
    assert o.error is None, repr(o.error)
    assert proxy.count(AGGREGATE) >= 1
    assert _first_two(o.value) == expected  # the client's canonical labels and the days
    served = o.value.attrs["labels_as_served"][:2]
    assert served == [_relabel_text(time_bucket, label) for label, _, _ in expected]
