"""Family A answers in variants a real service may write and the sandbox does not: a month in
two spellings, booleans and null series, SKUs in another case, ``meta.count`` of current data
and time series, items without a SKU.

Through the drift proxy the client adapts where it can and says so, or names the field and
value it cannot read: never a silently different value.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Outcome,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    recount,
    refuse,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import MissingDataWarning, ServiceContractWarning

CURRENT = "^/api/v2/companies/current$"
SERIES = "^/api/v2/companies/time-series$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
SKUS = ["BRI-GBR", "GRO-GBR", "MIK-GBR"]
WINDOW = {"fields": ["evRevenueNtm"], "date_from": "2023-01", "date_to": "2023-06"}


def ok(o: Outcome) -> pd.DataFrame:
    assert o.error is None, f"raised {o.error!r}"
    assert isinstance(o.value, pd.DataFrame)
    return o.value


def kinds(frame: pd.DataFrame) -> list[str]:
    return [f["kind"] for f in frame.attrs.get("findings", [])]


def messages(o: Outcome) -> list[str]:
    return o.warned(MissingDataWarning)


def each_item(fn: Any) -> Any:
    """An ``edit`` that applies ``fn`` to every item of ``data``."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            fn(item)
        return doc

    return edit(apply)


# ----------------------------------------------------------------- 1. a month in two spellings


def _respelled(value: float | None) -> Any:
    """Every series of every item with its first month written again as ``YYYY-MM-01``
    (``value``: that value; None: the same value)."""

    def apply(item: dict[str, Any]) -> None:
        for name, series in item["data"].items():
            if series:
                month, first = next(iter(series.items()))
                item["data"][name] = {
                    **series,
                    f"{month}-01": first if value is None else value,
                }

    return each_item(apply)


@pytest.mark.parametrize("shape", ["wide", "long"])
def test_time_series_month_in_two_spellings_with_another_value_keeps_the_first(
    direct, via, proxy, shape
):
    ref = direct.public.time_series(SKUS, shape=shape, **WINDOW)
    proxy.add(SERIES, _respelled(999.0))
    got = ok(o := outcome(lambda: via.public.time_series(SKUS, shape=shape, **WINDOW)))
    assert_same(got, ref)
    assert "conflicting_rows" in kinds(got)
    assert any("different content: kept the first" in m for m in messages(o)), messages(o)


def test_time_series_month_in_two_spellings_with_the_same_value_is_a_repeat(direct, via, proxy):
    ref = direct.public.time_series(SKUS, shape="long", **WINDOW)
    proxy.add(SERIES, _respelled(None))
    got = ok(o := outcome(lambda: via.public.time_series(SKUS, shape="long", **WINDOW)))
    assert_same(got, ref)
    assert kinds(got) == ["repeated_rows"], messages(o)


def test_group_time_series_period_in_two_spellings_keeps_the_first(direct, via, proxy):
    group = {"countries": ["GBR"], **WINDOW}
    ref = direct.public.group_time_series(**group)

    def respell(doc: Any) -> Any:
        again = copy.deepcopy(doc["data"][0])
        again["period"] += "-01"
        again["median"] = {name: 999.0 for name in again["median"]}
        doc["data"].append(again)
        return doc

    proxy.add(GROUP_SERIES, edit(respell), recount())
    got = ok(o := outcome(lambda: via.public.group_time_series(**group)))
    assert_same(got, ref)
    assert "conflicting_rows" in kinds(got), messages(o)


# ------------------------------------------------------------- 2. booleans and null series


def test_time_series_boolean_month_value_is_refused_naming_field_and_value(via, proxy):
    def true_everywhere(item: dict[str, Any]) -> None:
        item["data"] = {name: dict.fromkeys(series, True) for name, series in item["data"].items()}

    proxy.add(SERIES, each_item(true_everywhere))
    o = outcome(lambda: via.public.time_series(SKUS[:1], **WINDOW))
    assert isinstance(o.error, ServiceContractError), o.error
    assert "evRevenueNtm" in str(o.error) and "got true (" in str(o.error)  # as JSON


def test_time_series_requested_field_served_as_null_is_said_as_missing_data(via, proxy):
    """A documented field the service holds with no value: its column is all null, said as
    missing data (the service answered it; no values is no fault of its)."""
    proxy.add(SERIES, each_item(lambda item: item.update(data={"evRevenueNtm": None})))
    got = ok(o := outcome(lambda: via.public.time_series(SKUS[:1], **WINDOW)))
    assert got.notna().sum().sum() == 0
    assert "missing_field" not in kinds(got)
    said = o.warned(MissingDataWarning)
    assert any("no value for evRevenueNtm" in m for m in said), messages(o)


# ----------------------------------------------------------------- 3. SKUs in another case


def _lower_skus(item: dict[str, Any]) -> None:
    item["sku"] = item["sku"].lower()


@pytest.mark.parametrize(
    ("path", "method", "kwargs"),
    [(CURRENT, "current", {}), (SERIES, "time_series", WINDOW)],
    ids=["current", "time_series"],
)
def test_skus_served_in_another_case_are_read_as_asked_and_said_once(
    direct, via, proxy, path, method, kwargs
):
    ref = getattr(direct.public, method)(SKUS, **kwargs)
    proxy.add(path, each_item(_lower_skus))
    got = ok(o := outcome(lambda: getattr(via.public, method)(SKUS, **kwargs)))
    assert_same(got, ref)
    assert got.attrs["missing_skus"] == []
    assert kinds(got) == ["respelled_sku"]
    said = [m for m in messages(o) if "another case" in m]
    assert len(said) == 1 and f"{len(SKUS)} items" in said[0], messages(o)


def test_a_sku_that_matches_two_asked_skus_up_to_case_stays_dropped(direct, via, proxy):
    sku = direct.public_v1.search(countries=["GBR"]).index[0]
    asked = [sku, sku.lower()]
    only_one = Action("only_one", on_request=lambda ex: ex.set_param("skus", [sku]))
    proxy.add(
        "^/api/v1/companies/current$",
        only_one,
        each_item(lambda it: it.update(sku=sku.title())),
    )
    got = ok(o := outcome(lambda: via.public_v1.current(asked)))
    assert len(got) == 0 and got.attrs["missing_skus"] == asked
    assert "respelled_sku" not in kinds(got)
    assert any("not asked for" in m for m in messages(o)), messages(o)


# ------------------------------------------------- 4. meta.count of current data and series


def _count(value: Any) -> Any:
    def apply(doc: Any) -> Any:
        doc["meta"]["count"] = value
        return doc

    return edit(apply)


@pytest.mark.parametrize(
    ("path", "method", "kwargs"),
    [(CURRENT, "current", {}), (SERIES, "time_series", WINDOW)],
    ids=["current", "time_series"],
)
@pytest.mark.parametrize(
    ("count", "kind", "words"),
    [("x", "bad_meta", "'x'"), (7, "count_mismatch", "says 7 items, data holds 3")],
    ids=["garbage", "more"],
)
def test_meta_count_of_skus_answers_is_read(
    direct, via, proxy, path, method, kwargs, count, kind, words
):
    ref = getattr(direct.public, method)(SKUS, **kwargs)
    proxy.add(path, _count(count))
    got = ok(o := outcome(lambda: getattr(via.public, method)(SKUS, **kwargs)))
    assert_same(got, ref)
    assert kinds(got) == [kind], messages(o)
    assert any(words in m for m in messages(o)), messages(o)


def test_meta_count_as_text_in_every_chunk_is_said_once(direct, fresh, proxy):
    ref = direct.public.current(SKUS)
    one_each = {"error": {"code": "BAD_REQUEST", "message": "skus: at most 1 SKU per request"}}
    proxy.add(CURRENT, refuse(400, lambda sent: one_each, 1, "skus"), _count("1"))
    got = ok(o := outcome(lambda: fresh.public.current(SKUS)))
    assert_same(got, ref)
    assert proxy.count(CURRENT) == 1 + len(SKUS)
    assert kinds(got) == ["bad_meta"], messages(o)


# ---------------------------------------------------------------- 5. an item without its SKU


@pytest.mark.parametrize(
    ("path", "method", "kwargs"),
    [(CURRENT, "current", {}), (SERIES, "time_series", WINDOW)],
    ids=["current", "time_series"],
)
def test_an_item_without_sku_is_said_once_as_dropped(via, proxy, path, method, kwargs):
    def nameless(doc: Any) -> Any:
        doc["data"][0].pop("sku")
        return doc

    proxy.add(path, edit(nameless))
    got = ok(o := outcome(lambda: getattr(via.public, method)(SKUS, **kwargs)))
    assert got.attrs["missing_skus"] == SKUS[:1]
    contract = [f["message"] for f in got.attrs["findings"]]
    assert contract == ["1 of 3 items have no 'sku': dropped"], contract
    assert not any("kept" in m for m in messages(o)), messages(o)


# ------------------------------------------------------------- 5. numbers written as text


def test_current_numbers_written_as_text_are_read_and_said_naming_the_sku(direct, via, proxy):
    """``"enterpriseValue": "1.5"`` was read as 1.5 without a word (``"12x"`` raised)."""
    want = direct.public.current(SKUS)
    first = want.index[0]

    def spell(item: dict[str, Any]) -> None:
        if item["sku"] == first:
            item["enterpriseValue"] = "1.5"

    proxy.add(CURRENT, each_item(spell))
    got = ok(o := outcome(lambda: via.public.current(SKUS)))
    assert got.loc[first, "enterpriseValue"] == 1.5
    assert_same(got.drop(columns="enterpriseValue"), want.drop(columns="enterpriseValue"))
    assert o.warned(ServiceContractWarning) == [
        f"POST /api/v2/companies/current: "
        f"enterpriseValue: numbers written as text in 1 of 3 values (such as '1.5'; sku "
        f"{first}): read as numbers"
    ]


def test_time_series_numbers_written_as_text_are_read_and_said_naming_the_skus(direct, via, proxy):
    """A month's value written as ``"1.5"`` was read as 1.5 without a word."""
    want = direct.public.time_series(SKUS, shape="long", **WINDOW)

    def spell(item: dict[str, Any]) -> None:
        series = item["data"]["evRevenueNtm"]
        month = next(iter(series))
        series[month] = str(series[month])

    proxy.add(SERIES, each_item(spell))
    got = ok(o := outcome(lambda: via.public.time_series(SKUS, shape="long", **WINDOW)))
    assert_same(got, want)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert said[0].startswith(
        "POST /api/v2/companies/time-series: evRevenueNtm: numbers written as text in 3 of "
    ), said
    assert said[0].endswith(f"sku {', '.join(SKUS)}): read as numbers"), said
