"""Only dealframe errors leave the public analytics functions, whatever their arguments.

Each call starts from valid arguments and replaces some of them with junk: wrong types, huge
integers, NaN and infinities, strings, None, containers, frames of the wrong shape. The call
may succeed or raise a :class:`~dealframe.errors.DealframeError`; a TypeError, ValueError,
KeyError or any other foreign exception fails the test. Functions that need a service get a
client whose every request fails at once (a closed local port, no retries), so a call that
passes every check ends in a TransportError.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dealframe
from dealframe import analytics
from dealframe.errors import DealframeError

DEALS = pd.DataFrame(
    {
        "deal_date": pd.to_datetime(
            [
                "2024-01-05",
                "2024-02-01",
                "2024-02-20",
                "2024-03-03",
                "2024-03-30",
                "2024-05-14",
                "2024-05-20",
            ]
        ),
        "ev_revenue": [1.0, 2.0, 3.0, 4.0, 5.0, 100.0, 7.0],
        "id": list("abcdefg"),
    }
)
CURRENT = pd.DataFrame(
    {"marketCap": [10.0, 30.0, None], "evRevenueLtm": [5.0, None, 7.0], "region": ["A", "A", "B"]},
    index=pd.Index(["A-USA", "B-USA", "C-GBR"]),
)
WIDE = pd.DataFrame(
    [[1.0, 2.0], [None, 4.0]],
    index=pd.period_range("2024-01", periods=2, freq="M", name="month"),
    columns=pd.MultiIndex.from_product([["evRevenueLtm"], ["A", "B"]]),
)
SERVICE = analytics.bucket_medians(DEALS, "ev_revenue", "quarter", "2024-01-01", "2024-06-30")

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**64, -(2**63) - 1, 10**30, -1, 0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "quarter",
            "ev_revenue",
            "2024-13-45",
            "0001-01-01",
            "9999-12-31",
            "deal_date",
            "linear",
            "NaT",
        ]
    ),
    st.binary(max_size=4),
    st.lists(st.one_of(st.integers(), st.text(max_size=3)), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.sampled_from(
        [
            np.array([1.0, np.nan]),
            np.array([["a"]]),
            pd.NA,
            pd.NaT,
            np.datetime64("NaT"),
            np.float64("nan"),
            np.int64(-5),
            object(),
            ([1],),
            pd.DataFrame({"x": [1]}),
            pd.Series([1, 2]),
            pd.DataFrame(),
        ]
    ),
)


@pytest.fixture(scope="module")
def dead_client():
    with dealframe.Client(
        "http://127.0.0.1:9", "token-a", "token-b", cache_enabled=False, retries=0
    ) as client:
        yield client


def _variants(**kwargs: Any) -> list[Any]:
    return list(itertools.islice(analytics.Conventions.variants(**kwargs), 3))


def _cases(client: Any) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Per function: the callable and valid keyword arguments."""
    return {
        "bucket_medians": (
            analytics.bucket_medians,
            dict(
                deals=DEALS,
                metric="ev_revenue",
                time_bucket="quarter",
                date_from="2024-01-01",
                date_to="2024-06-30",
                as_of=None,
                small_n_threshold=3,
                conventions=None,
                explain=False,
                date_column="deal_date",
                value_column=None,
                include_deleted=False,
                client=None,
                ci=None,
                ci_resamples=99,
                rng=0,
            ),
        ),
        "resolve_window": (
            analytics.resolve_window,
            dict(
                date_from=None,
                date_to=None,
                as_of="2024-02-29",
                time_bucket="quarter",
                conventions=None,
            ),
        ),
        "bucket_labels": (analytics.bucket_labels, dict(codes=[218, 219], time_bucket="month")),
        "Conventions": (analytics.Conventions, analytics.Conventions().to_dict()),
        "Conventions.variants": (
            _variants,
            dict(base=None, quantile_methods=("linear",), max_changes=1),
        ),
        "compare_buckets": (
            analytics.compare_buckets,
            dict(service=SERVICE, local=SERVICE, tolerance=1e-9),
        ),
        "current_fields": (analytics.current_fields, dict(current=CURRENT)),
        "group_current": (analytics.group_current, dict(current=CURRENT, by="region")),
        "group_time_series": (analytics.group_time_series, dict(wide=WIDE, counts=True)),
        "reconcile": (
            analytics.reconcile,
            dict(
                client=client,
                metric="ev_revenue",
                time_bucket="year",
                filters=None,
                conventions=None,
                tolerance=1e-9,
                progress=False,
            ),
        ),
        "calibrate": (
            analytics.calibrate,
            dict(
                client=client,
                metric="ev_revenue",
                time_bucket="year",
                filters=None,
                variants=[analytics.Conventions()],
                tolerance=1e-9,
                progress=False,
            ),
        ),
        "reconcile_groups": (
            analytics.reconcile_groups,
            dict(
                client=client,
                industries=None,
                themes=None,
                regions=["Western Europe"],
                countries=None,
                enterprise_value_above=None,
                fields=None,
                date_from=None,
                date_to=None,
                version="v2",
                tolerance=1e-9,
            ),
        ),
    }


NAMES = list(_cases(None))


@pytest.mark.parametrize("name", NAMES)
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_only_dealframe_errors_leave(name, dead_client, data):
    function, valid = _cases(dead_client)[name]
    replaced = data.draw(
        st.lists(st.sampled_from(sorted(valid)), min_size=1, max_size=3, unique=True),
        label="replaced",
    )
    kwargs = {**valid, **{key: data.draw(junk, label=key) for key in replaced}}
    try:
        function(**kwargs)
    except DealframeError:
        pass


def test_the_valid_arguments_are_valid(dead_client):
    # the junk test means something only if the untouched call gets past the checks
    for name, (function, valid) in _cases(dead_client).items():
        try:
            function(**valid)
        except dealframe.errors.TransportError:
            assert name in ("reconcile", "calibrate", "reconcile_groups"), name
