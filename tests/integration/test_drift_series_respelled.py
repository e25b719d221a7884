"""Time-series fields served under another spelling of the name asked, over the drift proxy.

``current()`` reads a member written in another case or with separators as the documented
field (``respelled_field``). A time series asked for ``fields=["evRevenueNtm"]`` whose
answer keys its data ``EVREVENUENTM`` was read as no value at all: a frame of no row and a
``missing_field`` naming the field asked, not the member its values came under. Both time
series now read such a member as the field asked, and say so once.

A spelling served beside the field itself (``evRevenueNtm`` holding some months,
``EVREVENUENTM`` the others) was dropped without a word: its months were missing from the
frame. It now fills the months the field lacks (the field's own value kept where both hold
one, said with the SKU and month). Two spellings without the field were said as "extra
columns" of "item 1": a time series makes no such column; they are now said as left out,
naming the SKUs (periods).

Review of that (fix-d3): a month the spelling writes with its day (``2023-03-01`` beside the
field's null ``2023-03``) was counted read and lost to the null; a field null for the whole
item was not filled; a spelling repeating the field said "0 value(s)"; and the spellings said
left out were rows of ``shape="long"`` (a spelling of one value beside months: refused).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

SERIES = "^/api/v2/companies/time-series$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
WINDOW = {"fields": ["evRevenueNtm"], "date_from": "2023-01", "date_to": "2023-12"}


def _upper(member: str) -> Any:
    """Every answer with the keys of each item's ``member`` written in capitals."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            if isinstance(item.get(member), dict):
                item[member] = {key.upper(): value for key, value in item[member].items()}
        return doc

    return edit(apply, f"upper({member})")


def _skus(client: Any) -> list[str]:
    return list(client.public.search(countries=["GBR"]).index[:5])


def test_time_series_reads_a_respelled_field_as_the_field_asked(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    assert len(ref) and ref["evRevenueNtm"].notna().any().any()
    proxy.add(SERIES, _upper("data"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert o.value.attrs["fields_not_held"] == []
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "EVREVENUENTM as evRevenueNtm" in said[0] and "read as the field asked" in said[0]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["respelled_field"]


def test_group_time_series_reads_a_respelled_field_as_the_field_asked(direct, via, proxy):
    ref = direct.public.group_time_series(countries=["GBR"], **WINDOW)
    assert len(ref) and ref["evRevenueNtm"].notna().any()
    proxy.add(GROUP_SERIES, _upper("median"))
    o = outcome(lambda: via.public.group_time_series(countries=["GBR"], **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "EVREVENUENTM as evRevenueNtm" in said[0], said


def test_without_fields_the_service_names_are_kept_as_served(direct, via, proxy):
    skus = _skus(direct)
    proxy.add(SERIES, _upper("data"))
    o = outcome(lambda: via.public.time_series(skus, date_from="2023-01", date_to="2023-12"))
    assert o.error is None, repr(o.error)
    assert "EVREVENUENTM" in o.value.columns.get_level_values(0)
    assert not [m for m in o.warned(ServiceContractWarning) if "another case" in m]


def _split(member: str, spellings: tuple[str, ...], *, keep_own: bool, bump: float = 0.0) -> Any:
    """Every answer with the ``evRevenueNtm`` months of each item's ``member`` dealt in turn
    to the field itself (when ``keep_own``, its first six months) and to ``spellings``;
    with ``bump``, the spellings also hold the field's own months, ``bump`` added."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            held = item.get(member)
            if not isinstance(held, dict) or not isinstance(held.get("evRevenueNtm"), dict):
                continue
            months = sorted(held.pop("evRevenueNtm").items())
            own = dict(months[:6]) if keep_own else {}
            rest = months[6:] if keep_own else months
            if keep_own:
                held["evRevenueNtm"] = own
            for at, spelt in enumerate(spellings):
                part = dict(rest[at :: len(spellings)])
                if bump:
                    part.update({m: v + bump for m, v in own.items() if v is not None})
                held[spelt] = part
        return doc

    return edit(apply, f"split({member}, {spellings})")


def _respelled(o: Any) -> list[str]:
    return [f["message"] for f in o.value.attrs["findings"] if f["kind"] == "respelled_field"]


def test_a_spelling_beside_the_field_fills_the_months_it_lacks(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    proxy.add(SERIES, _split("data", ("EVREVENUENTM",), keep_own=True))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)  # before: the spelling's months were dropped without a word
    assert o.value.attrs["fields_not_held"] == []
    said = _respelled(o)
    assert len(said) == 1, said
    assert "EVREVENUENTM beside evRevenueNtm" in said[0] and "where it has no value" in said[0]
    assert "differing" not in said[0]


def test_a_month_both_hold_keeps_the_field_s_own_and_says_it(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    proxy.add(SERIES, _split("data", ("EVREVENUENTM",), keep_own=True, bump=1000.0))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = _respelled(o)
    assert len(said) == 1 and "is the field's own" in said[0], said
    assert any(sku in said[0].split("is the field's own")[1] for sku in skus), said


def test_group_series_a_spelling_beside_the_field_fills_its_periods(direct, via, proxy):
    ref = direct.public.group_time_series(countries=["GBR"], **WINDOW)
    proxy.add(GROUP_SERIES, _split_periods())
    o = outcome(lambda: via.public.group_time_series(countries=["GBR"], **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = _respelled(o)
    assert len(said) == 1 and "EVREVENUENTM beside evRevenueNtm" in said[0], said


def _split_periods() -> Any:
    """Every group answer with ``evRevenueNtm`` of every other period's ``median`` served
    as ``EVREVENUENTM`` beside a null ``evRevenueNtm`` (a period's median holds one value
    a field, not a map of months)."""

    def apply(doc: Any) -> Any:
        for at, item in enumerate(doc["data"]):
            median = item.get("median")
            if at % 2 and isinstance(median, dict) and "evRevenueNtm" in median:
                median["EVREVENUENTM"] = median["evRevenueNtm"]
                median["evRevenueNtm"] = None
        return doc

    return edit(apply, "split periods")


def test_two_spellings_without_the_field_are_named_by_sku_not_as_columns(direct, via, proxy):
    skus = _skus(direct)
    proxy.add(SERIES, _split("data", ("EVREVENUENTM", "ev_revenue_ntm"), keep_own=False))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    said = _respelled(o)
    assert len(said) == 1, said
    assert "neither read" in said[0] and "extra columns" not in said[0], said
    assert "item 1" not in said[0] and skus[0] in said[0], said


def _each_item(change: Any, name: str) -> Any:
    """Every time-series answer with ``change(item)`` applied to each item's ``data``
    (``change`` given the SKU too)."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            if isinstance(item.get("data"), dict):
                change(item["sku"], item["data"])
        return doc

    return edit(apply, name)


def _cell(frame: Any, sku: str, month: str) -> float:
    return float(frame[("evRevenueNtm", sku)].loc[month])


def _holding(frame: Any, skus: list[str], *months: str) -> str:
    """The first of ``skus`` whose ``evRevenueNtm`` has a value in each of ``months``."""
    return next(s for s in skus if not any(pd.isna(_cell(frame, s, m)) for m in months))


def test_a_month_the_spelling_writes_with_its_day_fills_the_field_s_null(direct, via, proxy):
    # the field's "2023-03" null, the spelling's "2023-03-01": one month to the frames. Before,
    # the fill compared the keys as text: the value said read was lost to the null kept first
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    one = _holding(ref, skus, "2023-03")

    def change(sku: str, data: dict[str, Any]) -> None:
        if sku == one:
            data["EVREVENUENTM"] = {"2023-03-01": data["evRevenueNtm"]["2023-03"]}
            data["evRevenueNtm"]["2023-03"] = None

    proxy.add(SERIES, _each_item(change, "March with its day"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = _respelled(o)
    assert len(said) == 1 and "1 value(s)" in said[0], said
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["respelled_field"]


def test_a_month_with_its_day_both_hold_differing_is_said_not_counted(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    one = _holding(ref, skus, "2023-03")

    def change(sku: str, data: dict[str, Any]) -> None:
        if sku == one:
            data["EVREVENUENTM"] = {"2023-03-01": data["evRevenueNtm"]["2023-03"] + 1000.0}

    proxy.add(SERIES, _each_item(change, "March differing"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = _respelled(o)
    assert len(said) == 1, said
    assert "value(s)" not in said[0] and f"{one} 2023-03-01" in said[0], said


def test_a_sku_served_twice_is_read_from_its_first_item_only(direct, via, proxy):
    # item 1: the field's January, a spelling's February; item 2 (the same SKU): the field's
    # February. The repeat is left out whole (conflicting_rows) before any spelling is read, so
    # the first item's spelling fills its February: as docs/real-service.md says
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    one = _holding(ref, skus, "2023-01", "2023-02")
    jan, feb = _cell(ref, one, "2023-01"), _cell(ref, one, "2023-02")

    def apply(doc: Any) -> Any:
        at = next(i for i, item in enumerate(doc["data"]) if item["sku"] == one)
        doc["data"][at]["data"] = {
            "evRevenueNtm": {"2023-01": jan},
            "EVREVENUENTM": {"2023-02": feb + 1000.0},
        }
        second = {"sku": one, "data": {"evRevenueNtm": {"2023-02": feb}}}
        doc["data"].insert(at + 1, second)
        return doc

    proxy.add(SERIES, edit(apply, "SKU twice"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    got = (_cell(o.value, one, "2023-01"), _cell(o.value, one, "2023-02"))
    assert got == (jan, feb + 1000.0)
    kinds = [f["kind"] for f in o.value.attrs["findings"]]
    assert "conflicting_rows" in kinds and "respelled_field" in kinds, kinds


def test_a_null_field_is_filled_from_a_spelling_beside_it(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)

    def change(sku: str, data: dict[str, Any]) -> None:
        data["EVREVENUENTM"], data["evRevenueNtm"] = data["evRevenueNtm"], None

    proxy.add(SERIES, _each_item(change, "field null"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)  # before: "not read", every value NaN
    said = _respelled(o)
    assert len(said) == 1 and "EVREVENUENTM beside evRevenueNtm" in said[0], said
    assert "not read" not in said[0], said


def test_a_spelling_that_only_repeats_the_field_is_not_said(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)

    def change(sku: str, data: dict[str, Any]) -> None:
        data["EVREVENUENTM"] = dict(data["evRevenueNtm"])

    proxy.add(SERIES, _each_item(change, "a copy"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert _respelled(o) == []  # before: "0 value(s) ... read where it has no value"


def test_long_shape_leaves_out_the_spellings_not_read(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, shape="long", **WINDOW)
    proxy.add(SERIES, _split("data", ("EVREVENUENTM", "ev_revenue_ntm"), keep_own=False))
    o = outcome(lambda: via.public.time_series(skus, shape="long", **WINDOW))
    assert o.error is None, repr(o.error)
    # said as left out: before, every spelling became rows of its own field
    assert set(o.value["field"]) <= {"evRevenueNtm"} and len(o.value) < len(ref), o.value
    said = _respelled(o)
    assert len(said) == 1 and "left out" in said[0], said


def test_long_shape_leaves_out_a_spelling_no_map_beside_a_map(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, shape="long", **WINDOW)

    def change(sku: str, data: dict[str, Any]) -> None:
        data["EVREVENUENTM"] = 1.5

    proxy.add(SERIES, _each_item(change, "one value beside months"))
    o = outcome(lambda: via.public.time_series(skus, shape="long", **WINDOW))
    assert o.error is None, repr(o.error)  # before: no object of months, refused
    assert_same(o.value, ref)
    said = _respelled(o)
    assert len(said) == 1 and "not read (left out)" in said[0], said
