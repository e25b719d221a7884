"""Property tests: the selection path of bucket_medians equals the sorted path.

``bucket_medians(explain=False)`` only partitions each bucket around the ranks its quantiles
read; ``explain=True`` sorts every bucket. Both must give the same counts, bounds and
statistics, bit for bit (``-0.0`` and ``0.0`` aside, which compare equal), for every
convention, with NaN values, empty and tiny buckets, ties, all-equal buckets and values
large enough for the IQR to overflow.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealframe.analytics import Conventions, bucket_medians
from dealframe.analytics import buckets as buckets_module
from dealframe.analytics.conventions import QUANTILE_METHODS

FIELDS = (
    "counts",
    "kept_counts",
    "suppressed",
    "stat_counts",
    "lower",
    "upper",
    "q1",
    "median",
    "q3",
)

conventions = st.builds(
    Conventions,
    quantile_method=st.sampled_from(QUANTILE_METHODS),
    trim_scope=st.sampled_from(("bucket", "window")),
    n_counted=st.sampled_from(("before", "after")),
    stats_on=st.sampled_from(("kept", "all")),
    inclusive_bounds=st.booleans(),
    iqr_multiplier=st.sampled_from((0.0, 0.5, 1.5, 3.0)),
)

special = st.sampled_from((0.0, -0.0, 1.0, 1.0, 2.5, -3.0, 1e308, -1e308, 5e-324, np.nan))
value = st.one_of(
    special,
    st.integers(-4, 4).map(float),  # many ties
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)


@st.composite
def bucketed(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    """(bucket, values, n_buckets) as bucket_medians builds them: unused rows last bucket."""
    n_buckets = draw(st.integers(1, 6))
    n = draw(st.integers(0, 60))
    bucket = np.array(draw(st.lists(st.integers(0, n_buckets), min_size=n, max_size=n)),
                      dtype=np.int64)
    if draw(st.booleans()):  # a bucket of all-equal values
        values_list = [draw(special) if b else 7.0 for b in bucket.tolist()]
    else:
        values_list = draw(st.lists(value, min_size=n, max_size=n))
    values = np.array(values_list, dtype=np.float64)
    bucket[~np.isfinite(values)] = n_buckets
    return bucket.astype(np.int16), values, n_buckets


def assert_same(fast: buckets_module._Aggregate, slow: buckets_module._Aggregate) -> None:
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(fast, field), getattr(slow, field), err_msg=field)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=bucketed(), conv=conventions, threshold=st.integers(0, 6))
def test_selection_equals_sorting(data, conv, threshold):
    bucket, values, n_buckets = data
    fast = buckets_module._aggregate(
        bucket, values.copy(), n_buckets, threshold, conv, sort=False
    )
    slow = buckets_module._aggregate(bucket, values.copy(), n_buckets, threshold, conv, sort=True)
    assert_same(fast, slow)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 1000, 20_000])
@pytest.mark.parametrize("conv", list(Conventions.variants(quantile_methods=QUANTILE_METHODS,
                                                           max_changes=1)))
def test_selection_equals_sorting_on_lognormal_buckets(size, conv):
    rng = np.random.default_rng(size)
    values = rng.lognormal(1.0, 0.8, 4 * size)
    values[rng.random(len(values)) < 0.01] *= 30
    values[rng.random(len(values)) < 0.02] = np.nan
    values[: size // 2] = np.round(values[: size // 2])  # ties
    bucket = rng.integers(0, 5, len(values)).astype(np.int16)  # bucket 4: unused rows
    bucket[~np.isfinite(values)] = 4
    fast = buckets_module._aggregate(bucket, values.copy(), 4, 5, conv, sort=False)
    slow = buckets_module._aggregate(bucket, values.copy(), 4, 5, conv, sort=True)
    assert_same(fast, slow)


@pytest.mark.parametrize("conv", list(Conventions.variants(quantile_methods=("linear", "hazen",
                                                                             "inverted_cdf"))))
def test_bucket_medians_frame_is_the_sorted_paths(conv, monkeypatch):
    rng = np.random.default_rng(7)
    n = 3000
    days = np.datetime64("2022-01-01") + rng.integers(0, 800, n).astype("timedelta64[D]")
    values = np.round(rng.lognormal(1.0, 1.0, n), 1)
    values[rng.random(n) < 0.05] = np.nan
    days[:40] = np.datetime64("2023-05-02")  # a small bucket of its own month
    deals = pd.DataFrame({"deal_date": days, "ev_revenue": values})
    deals = deals[(deals["deal_date"] < "2023-05-01") | (deals["deal_date"] > "2023-05-31")
                  | (deals.index < 3)]
    args = ("ev_revenue", "month", "2022-01-01", "2024-03-31")
    fast = bucket_medians(deals, *args, small_n_threshold=5, conventions=conv)
    sorting = buckets_module._aggregate

    def always_sort(*a, sort, **k):
        return sorting(*a, sort=True, **k)

    monkeypatch.setattr(buckets_module, "_aggregate", always_sort)
    slow = bucket_medians(deals, *args, small_n_threshold=5, conventions=conv)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert fast.attrs == slow.attrs
