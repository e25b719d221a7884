"""The wide time series has a column for every field and SKU asked (issue 3's 0/1/N contract).

Before, ``time_series(["NOPE-USA"], fields=["evRevenueLtm"], date_from="2024-01",
date_to="2024-03")`` was a (3, 0) frame, so ``ts["evRevenueLtm"]`` was a ``KeyError``, while
one or two known SKUs gave months x SKUs; an unknown SKU among known ones got no column
(``ts[field][my_skus]`` was a ``KeyError``). Now the columns are (every field asked) x (every
distinct SKU asked, in the caller's order): a SKU the service did not return has all-NaN
float64 columns, and stays in ``attrs["missing_skus"]`` with its warning. Over HTTP against
the session sandbox, the values compared with its raw JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
import requests

from dealframe import analytics
from dealframe.client import Client
from dealframe.errors import IncompleteResultError
from dealframe.notices import MissingDataWarning

FIELDS = ["evRevenueLtm", "marginEbitdaLtm"]
WINDOW = {"date_from": "2024-01", "date_to": "2024-03"}
UNKNOWN = {"v1": "NOWHERE_NOPE", "v2": "NOPE-USA"}


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as c:
        yield c


def _known(sandbox: Any, version: str, n: int) -> list[str]:
    """The first ``n`` SKUs of the sandbox's search, read with plain requests."""
    resp = requests.post(
        f"{sandbox.url}/api/{version}/companies",
        json={},
        headers={"Authorization": f"Bearer {sandbox.public_token}"},
        timeout=30,
    )
    assert resp.status_code == 200
    return [item["sku"] for item in resp.json()["data"][:n]]


def _raw(sandbox: Any, version: str, skus: list[str]) -> dict[str, dict[str, Any]]:
    """The time-series items of ``skus`` (fields and window of this module), by SKU."""
    body = {"skus": skus, "fields": FIELDS, "dateFrom": "2024-01", "dateTo": "2024-03"}
    resp = requests.post(
        f"{sandbox.url}/api/{version}/companies/time-series",
        json=body,
        headers={"Authorization": f"Bearer {sandbox.public_token}"},
        timeout=30,
    )
    assert resp.status_code == 200
    return {item["sku"]: item["data"] for item in resp.json()["data"]}


def _series(api: Any, skus: list[str], **kwargs: Any) -> tuple[pd.DataFrame, list[str]]:
    """``api.time_series`` of ``skus`` (wide), and the messages of its missing-data warnings."""
    with pytest.warns() as seen:
        frame = api.time_series(skus, fields=FIELDS, **WINDOW, **kwargs)
    return frame, [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_an_unknown_sku_alone_has_its_columns_all_nan(client, version):
    api = client.public if version == "v2" else client.public_v1
    nope = UNKNOWN[version]
    frame, said = _series(api, [nope])
    assert frame.shape == (3, len(FIELDS))
    assert frame.columns.tolist() == [(field, nope) for field in FIELDS]
    assert frame["evRevenueLtm"].columns.tolist() == [nope]  # was a KeyError
    assert frame.isna().all().all() and (frame.dtypes == np.float64).all()
    assert frame.index.astype(str).tolist() == ["2024-01", "2024-02", "2024-03"]
    assert frame.attrs["missing_skus"] == [nope]
    assert any(nope in message for message in said), said


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_the_columns_are_the_fields_and_skus_asked_for_0_1_or_n_returned(client, sandbox, version):
    api = client.public if version == "v2" else client.public_v1
    a, b = _known(sandbox, version, 2)
    nope = UNKNOWN[version]
    asked = [b, nope, a, b]  # a repeat is one column, at its first place
    distinct = [b, nope, a]
    frames = {
        0: _series(api, [nope])[0],
        1: api.time_series([a], fields=FIELDS, **WINDOW),
        "n": _series(api, asked)[0],
    }
    for n, frame in frames.items():
        skus = [nope] if n == 0 else [a] if n == 1 else distinct
        want = pd.MultiIndex.from_product([FIELDS, skus], names=["field", "sku"])
        assert frame.columns.equals(want), (n, frame.columns.tolist())
        assert (frame.dtypes == np.float64).all() and frame.columns.names == ["field", "sku"]
    wide = frames["n"]
    assert wide.attrs["missing_skus"] == [nope]
    assert wide["marginEbitdaLtm"][distinct].shape == (3, 3)  # ts[field][my_skus]: was KeyError
    assert wide.xs(nope, axis=1, level="sku").isna().all().all()
    served = _raw(sandbox, version, [a, b])
    for sku in (a, b):
        for field in FIELDS:
            got = wide[(field, sku)].dropna()
            want_values = {m: v for m, v in served[sku][field].items() if v is not None}
            assert dict(zip(got.index.astype(str), got.tolist())) == want_values


def test_strict_raises_with_the_frame_of_every_column(client, sandbox):
    (a,) = _known(sandbox, "v2", 1)
    with pytest.raises(IncompleteResultError) as info:
        client.public.time_series([a, "NOPE-USA"], fields=FIELDS, **WINDOW, strict=True)
    partial = info.value.partial
    assert partial.columns.get_level_values("sku").unique().tolist() == [a, "NOPE-USA"]
    assert info.value.failed == ["NOPE-USA"]


def test_the_local_group_medians_ignore_a_column_all_nan(client, sandbox):
    """``analytics.group_time_series`` of the wide frame: an unknown SKU's all-NaN columns
    change no median, no month and no count of companies; all are those of the known SKUs."""
    known = _known(sandbox, "v2", 5)
    with_nope = _series(client.public, [*known[:2], "NOPE-USA", *known[2:]])[0]
    without = client.public.time_series(known, fields=FIELDS, **WINDOW)
    got, want = analytics.group_time_series(with_nope), analytics.group_time_series(without)
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs == want.attrs  # NOPE-USA is no company of the group
    assert got.attrs["companies"] == len(known)
