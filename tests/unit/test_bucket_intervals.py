"""Bootstrap confidence intervals of bucket medians (``bucket_medians(..., ci=...)``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dealframe.analytics import Conventions, bucket_medians
from dealframe.analytics.intervals import median_intervals
from dealframe.errors import ValidationError

WINDOW = ("2024-01-01", "2024-12-31")


def quarterly(sizes, seed=0):
    """Log-normal values, ``sizes[i]`` deals in quarter i of 2024."""
    rng = np.random.default_rng(seed)
    dates = np.concatenate(
        [np.full(n, np.datetime64(f"2024-{3 * i + 1:02d}-15")) for i, n in enumerate(sizes)]
    )
    return pd.DataFrame({"deal_date": dates, "ev_revenue": rng.lognormal(1.0, 0.6, sum(sizes))})


def test_interval_columns_contain_the_median_and_are_nan_where_it_is():
    out = bucket_medians(
        quarterly([8, 3, 0, 40]), "ev_revenue", "quarter", *WINDOW, ci=0.9, ci_resamples=999, rng=1
    )
    assert list(out.columns[-2:]) == ["median_low", "median_high"]
    shown = out[out["median"].notna()]
    assert len(shown) == 2
    assert (shown["median_low"] <= shown["median"]).all()
    assert (shown["median"] <= shown["median_high"]).all()
    assert (shown["median_low"] < shown["median_high"]).all()
    hidden = out[out["median"].isna()]  # small_n and empty quarters
    assert hidden["warning"].tolist() == ["small_n", "empty"]
    assert hidden[["median_low", "median_high"]].isna().all().all()
    assert out.attrs["ci"] == {
        "confidence": 0.9,
        "method": "percentile bootstrap",
        "resamples": 999,
    }


@pytest.mark.parametrize("method", ["linear", "inverted_cdf", "hazen"])
def test_interval_contains_the_median_for_many_samples(method):
    conv = Conventions(quantile_method=method)
    for seed in range(20):
        out = bucket_medians(
            quarterly([5, 6, 9, 17], seed),
            "ev_revenue",
            "quarter",
            *WINDOW,
            conventions=conv,
            ci=0.8,
            ci_resamples=499,
            rng=seed,
        )
        assert (out["median_low"] <= out["median"]).all(), (seed, out)
        assert (out["median"] <= out["median_high"]).all(), (seed, out)


def test_interval_narrows_as_n_grows():
    out = bucket_medians(
        quarterly([10, 100, 1000, 5]),
        "ev_revenue",
        "quarter",
        *WINDOW,
        ci=0.9,
        ci_resamples=999,
        rng=3,
    )
    width = (out["median_high"] - out["median_low"]).tolist()
    assert width[0] > width[1] > width[2] > 0


def test_same_seed_same_interval_and_a_generator_is_accepted():
    deals = quarterly([12, 7, 30, 9])
    args = ("ev_revenue", "quarter", *WINDOW)
    first = bucket_medians(deals, *args, ci=0.9, ci_resamples=499, rng=42)
    again = bucket_medians(deals, *args, ci=0.9, ci_resamples=499, rng=42)
    pd.testing.assert_frame_equal(first, again)
    # the seed is used: with few resamples, other seeds move some interval end
    ends = [
        tuple(
            bucket_medians(deals, *args, ci=0.9, ci_resamples=49, rng=seed)[
                ["median_low", "median_high"]
            ]
            .to_numpy()
            .ravel()
        )
        for seed in range(5)
    ]
    assert len(set(ends)) > 1
    generated = bucket_medians(
        deals, *args, ci=0.9, ci_resamples=499, rng=np.random.default_rng(42)
    )
    assert generated["median_low"].notna().all()
    # the columns the service returns are untouched by ci
    plain = bucket_medians(deals, *args)
    pd.testing.assert_frame_equal(first[plain.columns], plain)


def test_all_equal_values_give_a_point_interval():
    deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-01"] * 6), "ev_revenue": [2.5] * 6})
    out = bucket_medians(deals, "ev_revenue", "none", *WINDOW, ci=0.95, rng=0)
    assert out.loc[0, ["median_low", "median", "median_high"]].tolist() == [2.5, 2.5, 2.5]


def test_interval_is_over_the_kept_values():
    # the 1000 is trimmed: an interval over every value would reach it at high confidence
    values = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 1000.0]
    deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-02-01"] * 8), "ev_revenue": values})
    out = bucket_medians(deals, "ev_revenue", "none", *WINDOW, ci=0.999, ci_resamples=999, rng=0)
    assert out.attrs["outliers_trimmed"] == 1
    assert out.loc[0, "median_high"] <= 4.0


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"ci": 1.0}, "ci"),
        ({"ci": 0}, "ci"),
        ({"ci": float("nan")}, "ci"),
        ({"ci": True}, "ci"),
        ({"ci": "0.9"}, "ci"),
        ({"ci": 0.9, "explain": True}, "ci"),
        ({"ci": 0.9, "ci_resamples": 0}, "ci_resamples"),
        ({"ci": 0.9, "ci_resamples": 10**30}, "ci_resamples"),
        ({"ci": 0.9, "ci_resamples": 9.5}, "ci_resamples"),
        ({"ci": 0.9, "rng": -1}, "rng"),
        ({"ci": 0.9, "rng": "seed"}, "rng"),
    ],
)
def test_bad_interval_arguments_are_named(kwargs, argument):
    with pytest.raises(ValidationError) as caught:
        bucket_medians(quarterly([6]), "ev_revenue", "quarter", *WINDOW, **kwargs)
    assert caught.value.argument == argument


def test_no_thread_is_started(monkeypatch):
    import threading

    started = []
    monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name))
    out = bucket_medians(
        quarterly([30, 12, 0, 7]), "ev_revenue", "quarter", *WINDOW, ci=0.9, ci_resamples=199, rng=0
    )
    assert out["median_low"].notna().sum() == 3
    assert started == []


def test_the_interval_does_not_depend_on_the_order_of_the_values():
    values = np.random.default_rng(3).lognormal(1.0, 0.8, 40)
    one = median_intervals([values], 0.9, n_resamples=999, rng=np.random.default_rng(0))
    other = median_intervals([values[::-1]], 0.9, n_resamples=999, rng=np.random.default_rng(0))
    assert np.array_equal(np.asarray(one), np.asarray(other))
