"""Family A answers with nothing in them are said, and nothing an item carries is dropped.

The audit of issue 3 found frames of nothing returned in silence, where frames.md promises an
empty window is said, never a silent empty frame: ``time_series`` without ``fields`` over a
window with no month of data (all-NaN wide, no row long), ``group_time_series`` without
``fields`` of an answer with no period (no column), ``group_current`` of a group that
matches no company (every value NaN; only an industries/themes hint warned). With ``fields``
the first two warned already. It also found the members of time-series items the document
does not name (the ``extra-fields`` profile's ``extraField``) dropped without a trace, where
``current``, ``search`` and ``groups/current`` keep theirs. All over HTTP to the sandbox.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import pytest

import dealframe.sandbox
from dealframe.client import Client
from dealframe.notices import MissingDataWarning

SETTINGS: dict[str, Any] = {"progress": False, "cache_enabled": False}
EXTRA = "served by the extra-fields profile"


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with dealframe.sandbox.run(scale=0.1, seed=7) as sb:
        with Client(sb.url, sb.public_token, sb.private_key, **SETTINGS) as c:
            yield c


@pytest.fixture(scope="module")
def extra_client() -> Iterator[Client]:
    with dealframe.sandbox.run(scale=0.1, seed=7, profile="extra-fields") as sb:
        with Client(sb.url, sb.public_token, sb.private_key, **SETTINGS) as c:
            yield c


def _said(call: Callable[[], pd.DataFrame]) -> tuple[pd.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        frame = call()
    return frame, [str(w.message) for w in record if issubclass(w.category, MissingDataWarning)]


@pytest.mark.parametrize("shape", ["wide", "long"])
@pytest.mark.parametrize(
    "window", [("1990-01", "1990-12"), ("2030-01", None)], ids=["before", "after"]
)
def test_a_series_window_with_no_value_is_said_without_fields(client, shape, window):
    skus = client.public.search().index[:2].tolist()
    frame, said = _said(
        lambda: client.public.time_series(skus, date_from=window[0], date_to=window[1], shape=shape)
    )
    assert frame.isna().all(axis=None) if shape == "wide" else len(frame) == 0
    assert len(said) == 1, said
    assert said[0].startswith("no value in data of any of the 2 items in this window"), said
    assert frame.attrs["missing_skus"] == []  # the SKUs were returned: no value, no SKU lost


def test_a_series_window_with_values_says_nothing(client):
    skus = client.public.search().index[:2].tolist()
    frame, said = _said(lambda: client.public.time_series(skus, date_from="2024-01"))
    assert frame.notna().any(axis=None) and said == []


@pytest.mark.parametrize(
    "group",
    [
        {"regions": ["Oceania"], "date_from": "1990-01", "date_to": "1990-03"},
        {"countries": ["ATA"]},
    ],
    ids=["window-before", "no-company"],
)
def test_a_group_series_with_no_period_is_said_without_fields(client, group):
    frame, said = _said(lambda: client.public.group_time_series(**group))
    assert frame.shape[1] > 0 and frame.isna().all(axis=None)  # the fields known, all null
    assert len(said) == 1, said
    assert "the answer holds no period" in said[0]
    assert "name fields" in said[0] or "the fields served before" in said[0]


@pytest.mark.parametrize(
    "group",
    [{"countries": ["ATA"]}, {"regions": ["Oceania"], "enterprise_value_above": 1e9}],
    ids=["no-country", "none-that-large"],
)
def test_a_group_of_no_company_is_said(client, group):
    frame, said = _said(lambda: client.public.group_current(**group))
    assert frame.attrs["companies"] == 0 and frame.isna().all(axis=None)
    assert said == ["no value: the group matches no company, every sum and median is NaN"]


def test_a_group_of_companies_says_nothing(client):
    frame, said = _said(lambda: client.public.group_current(regions=["Oceania"]))
    assert frame.attrs["companies"] > 0 and said == []


@pytest.mark.parametrize("shape", ["wide", "long"])
def test_unknown_members_of_series_items_are_kept_by_sku(extra_client, client, shape):
    for c, kept in ((extra_client, {"extraField": EXTRA}), (client, None)):
        skus = c.public.search().index[:3].tolist()
        frame = c.public.time_series(skus, date_from="2025-01", date_to="2025-02", shape=shape)
        expected = {} if kept is None else dict.fromkeys(skus, kept)
        assert frame.attrs["item_extras"] == expected


def test_unknown_members_of_group_series_periods_are_kept_by_period(extra_client, client):
    for c, extra in ((extra_client, True), (client, False)):
        frame = c.public.group_time_series(
            regions=["Oceania"], date_from="2025-01", date_to="2025-02"
        )
        months = ["2025-01", "2025-02"]
        assert [str(p) for p in frame.index] == months
        expected = {m: {"extraField": EXTRA} for m in months} if extra else {}
        assert frame.attrs["item_extras"] == expected
