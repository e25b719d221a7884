"""Family A time series with months outside the window sent, over the drift proxy.

A service that ignores ``dateFrom``/``dateTo`` (or reads them otherwise) answers with months
outside the window. The wide frame's index is the window, so they were dropped without a
word, and they counted as values of the fields asked for: an answer holding months outside
alone gave a silent empty frame (``data: {field: {}}`` did warn), months outside beside real
ones vanished silently, the long shape returned them, and a group series whose periods all lay
outside gave 0 rows and no word of them. Family B says list rows outside the filters sent;
Family A now does too: one ``unrequested`` finding naming ``dateFrom``/``dateTo`` and how many
months were dropped, both shapes alike, and only months inside count as values.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    edit,
    fresh_rules,
    items_edit,
    outcome,
    proxy,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import MissingDataWarning, ServiceContractWarning

SERIES = "^/api/v2/companies/time-series$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
OUTSIDE = "outside the window sent (dateFrom 2022-01)"


def _skus(client: Any) -> list[str]:
    return list(client.public.search(countries=["GBR"]).index[:3])


def _kinds(frame: pd.DataFrame) -> list[str]:
    return [f["kind"] for f in frame.attrs["findings"]]


@pytest.mark.parametrize("shape", ["wide", "long"])
def test_months_all_outside_are_said_not_a_silent_empty_frame(via, proxy, shape):
    skus = _skus(via)
    proxy.add(
        SERIES, items_edit(lambda it: it.update(data={k: {"2001-01": 1.0} for k in it["data"]}))
    )
    got = outcome(
        lambda: via.public.time_series(
            skus, fields=["evRevenueLtm"], date_from="2022-01", shape=shape
        )
    )
    assert got.error is None, got.error
    said = [m for m in got.warned(ServiceContractWarning) if OUTSIDE in m]
    assert said == [
        f"POST /api/v2/companies/time-series: 1 month (2001-01) {OUTSIDE}: 3 values of 3 SKUs "
        "dropped (does the service read dateFrom/dateTo?)"
    ], got.warned(Warning)
    assert "unrequested" in _kinds(got.value)
    assert got.value.empty  # nothing inside the window: the months outside are not rows
    # the months outside are no value of the field asked for: missing data in this window
    assert any("in this window" in m for m in got.warned(MissingDataWarning))
    assert got.value.attrs["missing_skus"] == []  # the SKUs came back

    strict = outcome(
        lambda: via.public.time_series(
            skus, fields=["evRevenueLtm"], date_from="2022-01", shape=shape, strict=True
        )
    )
    assert isinstance(strict.error, ServiceContractError), strict.error
    assert OUTSIDE in str(strict.error)


def test_months_outside_beside_real_ones_are_said_and_dropped(via, proxy):
    skus = _skus(via)
    plain = via.public.time_series(skus, fields=["evRevenueLtm"], date_from="2022-01")
    assert not plain.attrs["findings"]

    def add_old(item: dict[str, Any]) -> None:
        for series in item["data"].values():
            series["2001-01"] = 1.0
            series["2001-02-01"] = 2.0  # a month written with its day is that month

    proxy.add(SERIES, items_edit(add_old))
    for shape in ("wide", "long"):
        got = outcome(
            lambda shape=shape: via.public.time_series(
                skus, fields=["evRevenueLtm"], date_from="2022-01", shape=shape
            )
        )
        assert got.error is None, got.error
        said = [m for m in got.warned(ServiceContractWarning) if OUTSIDE in m]
        assert len(said) == 1 and "2 months (2001-01 ... 2001-02)" in said[0], said
        assert "6 values of 3 SKUs dropped" in said[0]
        if shape == "wide":
            pd.testing.assert_frame_equal(got.value, plain, check_freq=False)
        else:
            months = got.value["month"]
            assert len(months) and (months >= pd.Period("2022-01", "M")).all()


@pytest.mark.parametrize("shape", ["wide", "long"])
def test_months_outside_are_counted_once_and_nulls_are_no_values(via, proxy, shape):
    """A month in two spellings is one month; a null outside the window is no value."""
    skus = _skus(via)

    def add_old(item: dict[str, Any]) -> None:
        for series in item["data"].values():
            series["2030-01"] = 1.0
            series["2030-01-01"] = 1.0  # the same month, with its day
            series["2030-02"] = None  # a month outside holding no value

    proxy.add(SERIES, items_edit(add_old))
    got = outcome(
        lambda: via.public.time_series(
            skus, fields=["evRevenueLtm"], date_to="2024-06", shape=shape
        )
    )
    assert got.error is None, got.error
    said = [m for m in got.warned(ServiceContractWarning) if "outside the window sent" in m]
    assert len(said) == 1, got.warned(Warning)
    assert "2 months (2030-01 ... 2030-02) outside the window sent (dateTo 2024-06)" in said[0]
    assert "6 values of 3 SKUs dropped" in said[0], said  # 2 per SKU: the nulls are none


def test_months_outside_holding_only_nulls_say_no_value_was_dropped(via, proxy):
    """The service ignored the window (said), but dropped nothing: no "0 values of 0 SKUs"."""
    skus = _skus(via)

    def add_null(item: dict[str, Any]) -> None:
        for series in item["data"].values():
            series["2030-02"] = None

    proxy.add(SERIES, items_edit(add_null))
    got = outcome(lambda: via.public.time_series(skus, fields=["evRevenueLtm"], date_to="2024-06"))
    assert got.error is None, got.error
    said = [m for m in got.warned(ServiceContractWarning) if "outside the window sent" in m]
    assert len(said) == 1, got.warned(Warning)
    assert (
        "1 month (2030-02) outside the window sent (dateTo 2024-06): no value (only nulls) "
        "dropped" in said[0]
    ), said


def test_a_window_the_answer_keeps_is_not_said(via, proxy):
    skus = _skus(via)
    got = outcome(
        lambda: via.public.time_series(
            skus, fields=["evRevenueLtm"], date_from="2022-01", date_to="2022-06", shape="long"
        )
    )
    assert got.error is None, got.error
    assert not got.caught, [str(w.message) for w in got.caught]
    months = got.value["month"]
    assert (
        len(months) and months.between(pd.Period("2022-01", "M"), pd.Period("2022-06", "M")).all()
    )


def _periods_outside(doc: Any) -> Any:
    for i, period in enumerate(doc["data"]):
        period["period"] = f"{1990 + i // 12}-{i % 12 + 1:02d}"
    return doc


def test_group_periods_all_outside_are_said(via, proxy):
    proxy.add(GROUP_SERIES, edit(_periods_outside, "periods outside"))
    got = outcome(
        lambda: via.public.group_time_series(
            countries=["GBR"], fields=["evRevenueLtm"], date_from="2022-01"
        )
    )
    assert got.error is None, got.error
    said = [m for m in got.warned(ServiceContractWarning) if OUTSIDE in m]
    assert len(said) == 1, got.warned(Warning)
    assert "months (1990-01 ... " in said[0] and " periods dropped" in said[0]
    assert got.value.empty
    assert "unrequested" in _kinds(got.value)
    # the periods the service counts are those it sent: no rows said lost for them
    assert "count_mismatch" not in _kinds(got.value)
