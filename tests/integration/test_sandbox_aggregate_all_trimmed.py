"""A bucket whose values are all trimmed: the sandbox answers it, as the local code does.

An audit of issue 8 found the sandbox's aggregate crashing with a bare ``IndexError`` (a 500
over HTTP) when the IQR rule trims every value of a bucket: values near the float limit
(``-1e308`` twice, ``1e308`` three times) make the interpolation ``x + inf * 0``, a NaN
bound that keeps nothing. ``dealframe.analytics.bucket_medians`` gives such a bucket its
``n``, NaN statistics and ``warning="all_trimmed"``; the sandbox (its own code, not the
client's analytics) now answers the same (docs/sandbox.md, "Transactions aggregate").
"""

from __future__ import annotations

import datetime as dt
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import requests

import dealframe
from dealframe.analytics import bucket_medians
from dealframe.sandbox.changes import Changes
from dealframe.sandbox.models.aggregate import compute_aggregate

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api
from _sandbox_changes import sandbox_fixtures

sb, fresh = sandbox_fixtures(seed=11)

#: Five values the IQR rule trims all of (a NaN bound), and the month they are put in: one
#: long before any generated deal.
EXTREME = [-1e308, -1e308, 1e308, 1e308, 1e308]
MONTH = "1990-03"


def _aggregate(sb, **filters) -> requests.Response:
    return requests.post(
        f"{sb.url}/api/private/v1/transactions/aggregate",
        json={"metric": "ev_revenue", "time_bucket": "month", "filters": filters},
        headers={"Authorization": f"Bearer {sb.private_key}"},
        timeout=60,
    )


def test_compute_aggregate_of_an_all_trimmed_bucket():
    dates = np.array([f"{MONTH}-0{i + 1}" for i in range(len(EXTREME))], dtype="datetime64[D]")
    data, meta = compute_aggregate(
        dates,
        np.array(EXTREME),
        metric="ev_revenue",
        time_bucket="month",
        date_from=dt.date(1990, 3, 1),
        date_to=dt.date(1990, 4, 30),
        as_of=dt.date(2026, 6, 30),
    )
    assert data[0] == {
        "bucket": MONTH,
        "n": 5,
        "median": None,
        "q1": None,
        "q3": None,
        "warning": "all_trimmed",
    }
    assert data[1]["warning"] == "empty"
    assert meta["total_deals"] == 5 and meta["outliers_trimmed"] == 5


def test_sandbox_answers_an_all_trimmed_bucket_as_the_local_code(fresh):
    api = Api(fresh.url, fresh.private_key)
    ids = [d["id"] for d in api.pull("transactions")][: len(EXTREME)]
    for i, (deal, value) in enumerate(zip(ids, EXTREME)):

        def change(record, value=value, day=i + 1):
            record["deal_date"] = f"{MONTH}-{day:02d}"
            record["deal_multiples"] = {**(record.get("deal_multiples") or {}), "ev_revenue": value}

        Changes(fresh.state, seed=1).edit("deals", [deal], change)

    answer = _aggregate(fresh, date_from=f"{MONTH}-01", date_to=f"{MONTH}-31")
    assert answer.status_code == 200, answer.text[:300]
    served = answer.json()
    [bucket] = served["data"]
    assert bucket == {
        "bucket": MONTH,
        "n": 5,
        "median": None,
        "q1": None,
        "q3": None,
        "warning": "all_trimmed",
    }
    assert served["meta"]["outliers_trimmed"] == 5
    with dealframe.Client.for_sandbox(fresh) as client, warnings.catch_warnings():
        warnings.simplefilter("error")  # the client reads the bucket without a finding
        frame = client.private.aggregate(
            "ev_revenue", "month", date_from=f"{MONTH}-01", date_to=f"{MONTH}-31"
        )
    assert frame[["bucket", "n", "warning"]].values.tolist() == [[MONTH, 5, "all_trimmed"]]

    deals = pd.DataFrame(
        {
            "deal_date": pd.to_datetime([f"{MONTH}-{d:02d}" for d in range(1, 6)]),
            "ev_revenue": EXTREME,
        }
    )
    local = bucket_medians(deals, "ev_revenue", "month", f"{MONTH}-01", f"{MONTH}-31")
    row = local.iloc[0]
    assert (row["bucket"], int(row["n"]), row["warning"]) == (
        bucket["bucket"],
        bucket["n"],
        bucket["warning"],
    )
    assert row[["median", "q1", "q3"]].isna().all()
    assert local.attrs["outliers_trimmed"] == served["meta"]["outliers_trimmed"]


@pytest.mark.parametrize(
    "values", [[0.0, 1.0, 2.0, 3.0, 1e308], [-1e308, 0.0, 0.0, 1e308, 1.7e308]]
)
def test_sandbox_and_local_agree_near_the_float_limit(values):
    """Buckets near the limit that keep some values: the same statistics both ways."""
    dates = np.array([f"{MONTH}-0{i + 1}" for i in range(len(values))], dtype="datetime64[D]")
    data, _ = compute_aggregate(
        dates,
        np.array(values),
        metric="ev_revenue",
        time_bucket="month",
        date_from=dt.date(1990, 3, 1),
        date_to=dt.date(1990, 3, 31),
        as_of=dt.date(2026, 6, 30),
    )
    deals = pd.DataFrame({"deal_date": pd.to_datetime(dates), "ev_revenue": values})
    local = bucket_medians(deals, "ev_revenue", "month", "1990-03-01", "1990-03-31").iloc[0]
    assert data[0]["warning"] is None and pd.isna(local["warning"])
    for stat in ("median", "q1", "q3"):
        assert data[0][stat] == local[stat], stat
