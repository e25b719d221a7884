"""Family A answers rewritten by the drift proxy: search, current data (SKU chunks), time
series and group series (issue 12, cases 1, 4 and 5 for the public interface).

As in test_drift.py: through the proxy the result equals the undisturbed one (read directly
from the sandbox), or a ``MissingDataWarning`` names what and where, or a typed error is
raised; ``strict=True`` raises the typed error with ``partial`` holding what arrived.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Outcome,
    assert_same,
    data_null,
    direct,
    drop_field,
    drop_rows,
    edit,
    fresh,
    fresh_rules,
    html,
    meta_delete,
    meta_set,
    no_hang,
    non_objects,
    outcome,
    proxy,
    recount,
    refuse,
    repeat_rows,
    set_field,
    via,
)

from dealframe import doctor
from dealframe.errors import (
    BadRequestError,
    DealframeError,
    IncompleteResultError,
    ServerError,
    ServiceContractError,
    ValidationError,
)
from dealframe.notices import MissingDataWarning

SEARCH = "^/api/v2/companies$"
CURRENT = "^/api/v2/companies/current$"
SERIES = "^/api/v2/companies/time-series$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
GROUP_CURRENT = "^/api/v2/groups/current$"
WINDOW = {
    "fields": ["evRevenueLtm", "marginEbitdaLtm"],
    "date_from": "2024-01",
    "date_to": "2025-12",
}


# ---------------------------------------------------------------------------- fixtures and helpers


@pytest.fixture(scope="module")
def search_ref(direct: Any) -> pd.DataFrame:
    return direct.public.search()


@pytest.fixture(scope="module")
def skus(search_ref: pd.DataFrame) -> list[str]:
    found = search_ref.index.tolist()[:100]
    assert len(found) >= 20
    return found


@pytest.fixture(scope="module")
def current_ref(direct: Any, skus: list[str]) -> pd.DataFrame:
    return direct.public.current(skus)


@pytest.fixture(scope="module")
def series_ref(direct: Any, skus: list[str]) -> pd.DataFrame:
    return direct.public.time_series(skus, shape="long", **WINDOW)


def ok(o: Outcome) -> pd.DataFrame:
    assert o.error is None, f"raised {o.error!r}"
    assert isinstance(o.value, pd.DataFrame)
    return o.value


def warned(o: Outcome, *fragments: str) -> None:
    messages = o.warned(MissingDataWarning)
    assert messages, "no MissingDataWarning was raised"
    assert any(all(f in m for f in fragments) for m in messages), messages


def kinds(frame: pd.DataFrame) -> set[str]:
    return {f["kind"] for f in frame.attrs.get("findings", [])}


def incomplete(o: Outcome) -> IncompleteResultError:
    assert isinstance(o.error, IncompleteResultError), (
        f"expected IncompleteResultError, got {o.error!r}"
    )
    return o.error


def call(client: Any, method: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: getattr(client.public, method)(*args, **kwargs)


def refusal(message: Callable[[int], str]) -> Callable[[int], Any]:
    """A 400 body whose message is ``message(SKUs sent)``."""
    return lambda sent: {"error": {"code": "BAD_REQUEST", "message": message(sent)}}


def without(member: str, name: str) -> Callable[[Any], Any]:
    """Every item's ``member`` (``data``, ``median``) without ``name``."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            item[member].pop(name, None)
        return doc

    return apply


# ------------------------------------------------------------------------------------------ search


def test_search_cut_by_two_rows_is_warned_and_strict_keeps_the_rest(via, proxy, search_ref):
    proxy.add(SEARCH, drop_rows(2))
    got = ok(o := outcome(call(via, "search")))
    assert_same(got, search_ref.iloc[:-2])
    warned(o, "/api/v2/companies")
    assert got.attrs["rows_expected"] == len(search_ref)
    error = incomplete(outcome(call(via, "search", strict=True)))
    assert_same(error.partial, search_ref.iloc[:-2])
    assert (error.expected, error.received) == (len(search_ref), len(search_ref) - 2)


def test_search_repeated_rows_are_removed_and_warned(via, proxy, search_ref):
    proxy.add(SEARCH, repeat_rows(3))
    got = ok(o := outcome(call(via, "search")))
    assert_same(got, search_ref)
    warned(o, "/api/v2/companies")
    assert "repeated_rows" in kinds(got)


def test_search_data_null_is_warned(via, proxy, search_ref):
    proxy.add(SEARCH, data_null())
    got = ok(o := outcome(call(via, "search")))
    assert len(got) == 0 and list(got.columns) == list(search_ref.columns)
    warned(o, "/api/v2/companies")
    error = incomplete(outcome(call(via, "search", strict=True)))
    assert len(error.partial) == 0


def test_search_rows_without_sku_are_kept_apart_and_warned(via, proxy, search_ref):
    proxy.add(SEARCH, drop_field("sku"))
    got = ok(o := outcome(call(via, "search")))
    assert len(got) == len(search_ref)
    assert got.index.isna().all() or got.get("sku", pd.Series([None])).isna().all()
    assert_same(got.reset_index(drop=True), search_ref.reset_index(drop=True))
    warned(o, "'sku'")


def test_search_documented_field_absent_is_warned(via, proxy):
    proxy.add(SEARCH, drop_field("shortName"))
    o = outcome(call(via, "search"))
    ok(o)
    warned(o, "absent", "shortName")


def test_search_without_meta_count_is_whole(via, proxy, search_ref):
    proxy.add(SEARCH, meta_delete("count"))
    got = ok(outcome(call(via, "search")))
    assert_same(got, search_ref)


@pytest.mark.parametrize("said", ["total", "has_more"])
def test_search_that_says_it_is_cut_short_is_warned_and_strict_raises(said, via, proxy, search_ref):
    """A service that serves the first 20 companies and says there are more (``meta.total``
    or ``has_more: true``, ``count`` agreeing with ``data``): the 20 rows with a
    ``count_mismatch`` warning saying the rest cannot be asked for (no paging is described
    for Family A), ``IncompleteResultError`` under strict=True. It used to be silent."""
    kept = 20
    meta = {"total": len(search_ref)} if said == "total" else {"has_more": True}
    proxy.add(SEARCH, drop_rows(len(search_ref) - kept), recount(), meta_set(**meta))
    got = ok(o := outcome(call(via, "search")))
    assert_same(got, search_ref.iloc[:kept])
    warned(o, "/api/v2/companies", f"meta.{said}", "no paging")
    assert [f["kind"] for f in got.attrs["findings"]] == ["count_mismatch"]
    error = incomplete(outcome(call(via, "search", strict=True)))
    assert_same(error.partial, search_ref.iloc[:kept])
    assert error.expected == (len(search_ref) if said == "total" else None)


def test_search_whose_meta_says_it_is_whole_is_not_warned(via, proxy, search_ref):
    proxy.add(SEARCH, meta_set(total=len(search_ref), has_more=False))
    got = ok(o := outcome(call(via, "search")))
    assert_same(got, search_ref)
    assert not o.warned(Warning) and not got.attrs["findings"]


def test_group_time_series_that_says_it_is_cut_short_is_warned(direct, via, proxy):
    ask = {"regions": ["North America"], "fields": ["evRevenueLtm"]}
    ref = direct.public.group_time_series(**ask)
    proxy.add(GROUP_SERIES, drop_rows(5), recount(), meta_set(has_more=True))
    o = outcome(call(via, "group_time_series", **ask))
    assert_same(ok(o), ref.iloc[:-5])
    warned(o, "/groups/time-series", "meta.has_more is true", "periods")


# ---------------------------------------------------------------------------- current (SKU chunks)


def test_current_cut_items_are_missing_skus_and_strict_keeps_the_rest(
    via, proxy, skus, current_ref
):
    proxy.add(CURRENT, drop_rows(3))
    got = ok(o := outcome(call(via, "current", skus)))
    lost = [s for s in skus if s not in got.index]
    assert len(lost) == 3
    assert_same(got, current_ref.drop(index=lost))
    assert got.attrs["missing_skus"] == lost
    warned(o, *lost[:1])
    error = incomplete(outcome(call(via, "current", skus, strict=True)))
    assert_same(error.partial, current_ref.drop(index=lost))
    assert (error.expected, error.received) == (len(skus), len(skus) - 3)


def test_current_repeated_items_are_removed_and_warned(via, proxy, skus, current_ref):
    proxy.add(CURRENT, repeat_rows(2))
    got = ok(o := outcome(call(via, "current", skus)))
    assert_same(got, current_ref)
    warned(o, "/companies/current")


def test_current_data_null_is_warned_and_strict_raises(via, proxy, skus, current_ref):
    proxy.add(CURRENT, data_null())
    got = ok(o := outcome(call(via, "current", skus)))
    assert len(got) == 0 and got.attrs["missing_skus"] == skus
    warned(o, "/companies/current")
    error = incomplete(outcome(call(via, "current", skus, strict=True)))
    assert isinstance(error.partial, pd.DataFrame) and len(error.partial) == 0


def test_current_items_without_sku_are_warned(via, proxy, skus, current_ref):
    proxy.add(CURRENT, drop_field("sku", first=3))
    got = ok(o := outcome(call(via, "current", skus)))
    assert_same(got, current_ref.drop(index=skus[:3]))
    warned(o, "'sku'")
    assert got.attrs["missing_skus"] == skus[:3]


def test_current_items_for_skus_not_asked_are_dropped_and_warned(via, proxy, skus, current_ref):
    proxy.add(CURRENT, set_field("sku", "ZZZZ-USA", first=1))
    got = ok(o := outcome(call(via, "current", skus)))
    assert "ZZZZ-USA" not in got.index
    assert_same(got, current_ref.drop(index=skus[:1]))
    warned(o, "not asked for")


def test_current_non_object_items_are_warned(via, proxy, skus, current_ref):
    proxy.add(CURRENT, non_objects(("oops", 7)))
    got = ok(o := outcome(call(via, "current", skus)))
    assert_same(got, current_ref.drop(index=skus[:2]))
    warned(o, "/companies/current")


def test_current_documented_field_absent_is_warned(via, proxy, skus):
    proxy.add(CURRENT, drop_field("currency"))
    o = outcome(call(via, "current", skus))
    ok(o)
    warned(o, "absent", "currency")


def test_current_chunk_that_fails_raises_with_a_partial_frame(via, proxy, skus, search_ref):
    """One request that fails is that request's error (as a list's first page); a chunk of
    several that fails is an IncompleteResultError holding the chunks that arrived."""
    proxy.add(CURRENT, html(502))
    alone = outcome(call(via, "current", skus))
    assert isinstance(alone.error, ServerError) and alone.error.status == 502, alone.error
    real = search_ref.index.tolist()
    unknown = [f"ZQ{chr(65 + i // 26)}{chr(65 + i % 26)}-USA" for i in range(50)]
    more = real[:50] + unknown + real[50:]  # chunk 1: 50 known + 50 unknown; chunk 2: the rest
    assert len(real) > 50
    proxy.reset()
    first = set(more[:100])  # the first chunk fails, the second arrives
    proxy.add(CURRENT, html(502), when=lambda ex: bool(first & set(ex.body.get("skus", []))))
    error = incomplete(outcome(call(via, "current", more)))
    assert isinstance(error.partial, pd.DataFrame) and 0 < len(error.partial) < len(more)
    assert error.expected == len(more)


def test_current_v1_cut_items_are_missing_skus(direct, via, proxy):
    skus = direct.public_v1.search().index.tolist()[:50]
    ref = direct.public_v1.current(skus)
    proxy.add("^/api/v1/companies/current$", drop_rows(1))
    got = ok(o := outcome(lambda: via.public_v1.current(skus)))
    assert_same(got, ref.drop(index=[s for s in skus if s not in got.index]))
    assert len(got) == len(ref) - 1
    warned(o)


# ------------------------------------------------------------------------------------- time series


def test_time_series_cut_items_are_warned_and_strict_keeps_the_rest(via, proxy, skus, series_ref):
    proxy.add(SERIES, drop_rows(2))
    got = ok(o := outcome(call(via, "time_series", skus, shape="long", **WINDOW)))
    lost = sorted(set(series_ref["sku"]) - set(got["sku"]))
    assert len(lost) == 2
    assert_same(
        got.reset_index(drop=True), series_ref[~series_ref["sku"].isin(lost)].reset_index(drop=True)
    )
    warned(o)
    assert (got.attrs["rows_expected"], got.attrs["rows_received"]) == (len(skus), len(skus) - 2)
    error = incomplete(outcome(call(via, "time_series", skus, shape="long", strict=True, **WINDOW)))
    assert_same(error.partial.reset_index(drop=True), got.reset_index(drop=True))


def test_time_series_repeated_items_are_removed_and_warned(via, proxy, skus, series_ref):
    proxy.add(SERIES, repeat_rows(2))
    got = ok(o := outcome(call(via, "time_series", skus, shape="long", **WINDOW)))
    assert_same(got, series_ref)
    warned(o, "/companies/time-series")


def test_time_series_wide_data_null_is_warned(direct, via, proxy, skus):
    ref = direct.public.time_series(skus, **WINDOW)
    proxy.add(SERIES, data_null())
    got = ok(o := outcome(call(via, "time_series", skus, **WINDOW)))
    assert got.notna().sum().sum() == 0 and ref.notna().sum().sum() > 0
    warned(o, "/companies/time-series")
    assert isinstance(
        outcome(call(via, "time_series", skus, strict=True, **WINDOW)).error, IncompleteResultError
    )


def test_time_series_items_without_sku_are_warned(via, proxy, skus):
    proxy.add(SERIES, drop_field("sku", first=2))
    got = ok(o := outcome(call(via, "time_series", skus, shape="long", **WINDOW)))
    assert set(skus[:2]).isdisjoint(got["sku"])
    warned(o, "'sku'")


def test_time_series_documented_field_absent_is_warned(via, proxy, skus):
    proxy.add(SERIES, drop_field("exchange"))
    o = outcome(call(via, "time_series", skus, shape="long", **WINDOW))
    ok(o)
    warned(o, "absent", "exchange")


@pytest.mark.parametrize(
    "value",
    [
        [1, 2],
        "monthly",
        {"evRevenueLtm": [1.0]},
        {"evRevenueLtm": {"not-a-month": 1.0}},
        {"evRevenueLtm": {"2024-01": "high"}},
    ],
    ids=["list", "string", "series-list", "bad-month", "bad-number"],
)
def test_time_series_malformed_data_is_a_contract_error_or_warned(
    value, via, proxy, skus, series_ref
):
    proxy.add(SERIES, set_field("data", value, first=1))
    o = outcome(call(via, "time_series", skus, shape="long", **WINDOW))
    if o.error is not None:
        assert isinstance(o.error, ServiceContractError), repr(o.error)
        assert not isinstance(o.error, ValidationError)
        return
    got = o.value
    same = got.reset_index(drop=True).equals(series_ref.reset_index(drop=True))
    assert same or o.warned(MissingDataWarning), "a malformed item changed the frame silently"


@pytest.mark.parametrize("shape", ["wide", "long"])
def test_time_series_requested_field_absent_from_every_item_is_warned(
    shape, direct, via, proxy, skus
):
    """A service that leaves a requested field out of every item's ``data``: its columns
    are all null (no rows in long shape), and a ``missing_field`` warning names the field
    (``ServiceContractError`` under strict=True). It used to be silent."""
    ref = direct.public.time_series(skus, shape=shape, **WINDOW)
    proxy.add(SERIES, edit(without("data", "evRevenueLtm")))
    got = ok(o := outcome(call(via, "time_series", skus, shape=shape, **WINDOW)))
    if shape == "wide":
        assert got["evRevenueLtm"].isna().all().all() and ref["evRevenueLtm"].notna().any().any()
        assert_same(got["marginEbitdaLtm"], ref["marginEbitdaLtm"])
    else:
        assert_same(got, ref[ref["field"] != "evRevenueLtm"], ignore_index=True)
    warned(o, "/companies/time-series", "requested", "evRevenueLtm")
    assert "marginEbitdaLtm" not in " ".join(o.warned(MissingDataWarning))
    assert kinds(got) == {"missing_field"}
    strict = outcome(call(via, "time_series", skus, shape=shape, strict=True, **WINDOW))
    assert isinstance(strict.error, ServiceContractError), repr(strict.error)
    assert "evRevenueLtm" in str(strict.error)


@pytest.mark.parametrize(
    "rewrite",
    [set_field("data", None, first=2), drop_field("data", first=2)],
    ids=["null", "absent"],
)
def test_time_series_item_without_data_counts_its_sku_as_missing(
    rewrite, direct, via, proxy, skus, series_ref
):
    """An item whose ``data`` is null (or absent): its SKU is not returned, as a SKU the
    service left out (all-NaN columns, ``attrs["missing_skus"]``, the warning, strict
    raises)."""
    ref = direct.public.time_series(skus, **WINDOW)
    lost = skus[:2]  # the sandbox answers in the order asked
    proxy.add(SERIES, rewrite)
    got = ok(o := outcome(call(via, "time_series", skus, **WINDOW)))
    want = ref.copy()
    want.loc[:, (slice(None), lost)] = float("nan")  # the columns of every SKU asked
    assert_same(got, want)
    assert got.attrs["missing_skus"] == lost
    warned(o, *lost)
    warned(o, "data is null or absent in 2 of", lost[0])
    long = ok(outcome(call(via, "time_series", skus, shape="long", **WINDOW)))
    assert_same(long, series_ref[~series_ref["sku"].isin(lost)], ignore_index=True)
    error = incomplete(outcome(call(via, "time_series", skus, strict=True, **WINDOW)))
    assert_same(error.partial, got)
    assert (error.expected, error.received) == (len(skus), len(skus) - 2)


def test_time_series_item_with_empty_data_is_said_not_silent(direct, via, proxy, skus, series_ref):
    """An item whose ``data`` is ``{}``: its SKU was returned, with no value. Its rows were
    missing from ``shape="long"`` (and its columns from the wide frame) with nothing said."""
    empty = skus[:1]
    proxy.add(SERIES, set_field("data", {}, first=1))
    o = outcome(call(via, "time_series", skus, shape="long", **WINDOW))
    long = ok(o)
    assert_same(long, series_ref[~series_ref["sku"].isin(empty)], ignore_index=True)
    assert long.attrs["missing_skus"] == []  # returned: not missing
    warned(o, "data is empty ({}) in 1 of", empty[0])
    assert kinds(long) == {"null_field"}


# ------------------------------------------------------------------------ SKUs per request refused


def test_current_refused_as_too_many_skus_is_split_to_the_stated_bound(
    fresh, proxy, skus, current_ref
):
    """A service that takes at most 30 SKUs per request and says so (400 "at most 30 SKUs
    per request, got 100"): the chunk is sent again in requests of 30, the frame is whole,
    ``attrs`` says so, and the client's later calls send 30 at once. It used to raise
    BadRequestError, the chunks that had arrived lost."""
    assert len(skus) > 30
    proxy.add(
        CURRENT,
        refuse(400, refusal(lambda n: f"skus: at most 30 SKUs per request, got {n}"), 30, "skus"),
    )
    got = ok(o := outcome(call(fresh, "current", skus)))
    assert_same(got, current_ref)
    assert not o.warned(Warning)
    said = got.attrs["skus_per_request_refused"]
    assert said.startswith(f"{len(skus)} SKUs per request refused (400") and said.endswith(
        "requests of 30 SKUs"
    ), said
    split = -(-len(skus) // 30)
    assert proxy.count(CURRENT) == 1 + split
    again = ok(outcome(call(fresh, "current", skus)))
    assert_same(again, current_ref)
    assert proxy.count(CURRENT) == 1 + 2 * split and "skus_per_request_refused" not in again.attrs


def test_time_series_refused_as_too_many_skus_without_a_bound_is_halved(
    fresh, proxy, skus, series_ref
):
    """A refusal that states no bound ("too many SKUs"): halves until a size is taken."""
    proxy.add(SERIES, refuse(400, refusal(lambda n: "too many SKUs in one request"), 40, "skus"))
    got = ok(outcome(call(fresh, "time_series", skus, shape="long", **WINDOW)))
    assert_same(got, series_ref)
    size = len(skus)
    while size > 40:
        size //= 2
    assert got.attrs["skus_per_request_refused"].endswith(f"requests of {size} SKUs")


def test_sku_chunk_failing_after_a_split_keeps_the_chunks_that_arrived(
    fresh, proxy, skus, current_ref
):
    """After the split, one smaller request is refused for another reason: an
    IncompleteResultError whose partial holds the requests that arrived, the error naming
    the positions it held."""
    assert len(skus) > 60
    proxy.add(
        CURRENT, refuse(400, refusal(lambda n: f"skus: at most 50 SKUs, got {n}"), 50, "skus")
    )
    proxy.add(
        CURRENT,
        refuse(400, refusal(lambda n: "skus[10]: not served"), 0, "skus"),
        when=lambda ex: skus[60] in ex.body["skus"] and len(ex.body["skus"]) <= 50,
    )
    error = incomplete(outcome(call(fresh, "current", skus)))
    assert_same(error.partial, current_ref.iloc[:50])
    assert error.failed == [skus[50:]] and isinstance(error.errors[0], BadRequestError)
    assert "position 50 + i" in " ".join(getattr(error.errors[0], "__notes__", []))
    assert error.partial.attrs["skus_per_request_refused"].endswith("requests of 50 SKUs")


def test_a_refusal_of_one_sku_is_not_taken_for_too_many(fresh, proxy, skus):
    """A 400 naming one SKU's position is about that SKU: raised at once, never split."""
    proxy.add(CURRENT, refuse(400, refusal(lambda n: "skus[3]: 'X' is not a v2 SKU"), 0, "skus"))
    o = outcome(call(fresh, "current", skus))
    assert isinstance(o.error, BadRequestError) and "skus[3]" in str(o.error), repr(o.error)
    assert proxy.count(CURRENT) == 1


# ------------------------------------------------------------------------------------------ groups


def test_group_time_series_repeated_periods_are_removed_and_warned(direct, via, proxy):
    ref = direct.public.group_time_series(regions=["North America"], fields=["evRevenueLtm"])
    proxy.add(GROUP_SERIES, repeat_rows(3))
    got = ok(
        o := outcome(
            call(via, "group_time_series", regions=["North America"], fields=["evRevenueLtm"])
        )
    )
    assert_same(got, ref)
    warned(o, "/groups/time-series")


def test_group_time_series_cut_is_warned(direct, via, proxy):
    ref = direct.public.group_time_series(regions=["North America"], fields=["evRevenueLtm"])
    assert len(ref) > 3
    proxy.add(GROUP_SERIES, drop_rows(2))
    o = outcome(call(via, "group_time_series", regions=["North America"], fields=["evRevenueLtm"]))
    ok(o)
    warned(o, "/groups/time-series")
    assert isinstance(
        outcome(
            call(
                via,
                "group_time_series",
                regions=["North America"],
                fields=["evRevenueLtm"],
                strict=True,
            )
        ).error,
        DealframeError,
    )


def test_group_time_series_rows_expected_is_the_count_the_service_announced(direct, via, proxy):
    """Two periods cut from ``data`` with ``meta.count`` untouched: ``rows_expected`` is the
    service's count (docs/reliability.md), ``rows_received`` the periods that arrived (both
    used to be the frame's length, 118 and 118 where the service said 120)."""
    ask = {"regions": ["North America"], "fields": ["evRevenueLtm"]}
    ref = direct.public.group_time_series(**ask)
    assert len(ref) > 3 and ref.attrs["rows_expected"] == ref.attrs["rows_received"] == len(ref)
    proxy.add(GROUP_SERIES, drop_rows(2))
    got = ok(outcome(call(via, "group_time_series", **ask)))
    assert (got.attrs["rows_expected"], got.attrs["rows_received"]) == (len(ref), len(ref) - 2)
    # a window wider than the data adds empty months to the frame, not to the periods received
    wide = ok(outcome(call(via, "group_time_series", **ask, date_from="1990-01")))
    assert len(wide) > len(ref)
    assert (wide.attrs["rows_expected"], wide.attrs["rows_received"]) == (len(ref), len(ref) - 2)


def test_group_time_series_requested_field_absent_is_warned(direct, via, proxy):
    ask = {"regions": ["North America"], "fields": ["evRevenueLtm", "evRevenueNtm"]}
    ref = direct.public.group_time_series(**ask)
    proxy.add(GROUP_SERIES, edit(without("median", "evRevenueLtm")))
    got = ok(o := outcome(call(via, "group_time_series", **ask)))
    assert got["evRevenueLtm"].isna().all() and ref["evRevenueLtm"].notna().any()
    assert_same(got["evRevenueNtm"].to_frame(), ref["evRevenueNtm"].to_frame())
    warned(o, "/groups/time-series", "requested", "evRevenueLtm")
    assert kinds(got) == {"missing_field"}


def test_group_time_series_periods_with_a_null_median_are_said_and_kept(direct, via, proxy):
    """A period whose ``median`` is null (or absent) was a silent row of NaN: now a
    ``null_field`` finding names it; the rows stay, as the others' values do."""
    ask = {"regions": ["North America"], "fields": ["evRevenueLtm"]}
    ref = direct.public.group_time_series(**ask)
    assert len(ref) > 3 and ref["evRevenueLtm"].iloc[:2].notna().all()

    def blank(doc: Any) -> Any:
        doc["data"][0]["median"] = None
        del doc["data"][1]["median"]
        return doc

    proxy.add(GROUP_SERIES, edit(blank))
    got = ok(o := outcome(call(via, "group_time_series", **ask)))
    assert got["evRevenueLtm"].iloc[:2].isna().all()
    assert_same(got.iloc[2:], ref.iloc[2:])
    assert got.index.equals(ref.index) and kinds(got) == {"null_field"}
    periods = [str(p) for p in ref.index[:2]]
    said = [f["message"] for f in got.attrs["findings"]]
    assert "median is null or absent in 2 of " in said[0]
    assert f"periods ({', '.join(periods)}): their rows are kept" in said[0]
    assert any("median is null" in str(w.message) for w in o.caught)


@pytest.mark.parametrize(
    "rewrite",
    [data_null(), set_field("sum", "lots"), meta_set(companies="x"), drop_field("median")],
    ids=["data-null", "sum-string", "meta-companies", "no-median"],
)
def test_group_current_malformed_is_typed_or_warned(rewrite, direct, via, proxy):
    ref = direct.public.group_current(regions=["North America"])
    proxy.add(GROUP_CURRENT, rewrite)
    o = outcome(call(via, "group_current", regions=["North America"]))
    if o.error is not None:
        assert isinstance(o.error, DealframeError) and not isinstance(o.error, ValidationError), (
            repr(o.error)
        )
        return
    assert o.value.equals(ref) or o.warned(MissingDataWarning), "changed silently"


def test_group_current_rows_are_in_one_order_whatever_order_the_service_lists(direct, via, proxy):
    """A service listing its fields in another order (the median-only fields first, each
    statistic's fields reversed) gives the same frame, rows in the document's order, so it
    equals the local rollup's (``analytics.group_current``) row for row; they followed the
    order served."""
    from dealframe.analytics import group_current

    ref = direct.public.group_current(regions=["North America"])

    def reverse(doc: Any) -> Any:
        doc["data"] = {s: dict(reversed(doc["data"][s].items())) for s in ("median", "sum")}
        return doc

    proxy.add(GROUP_CURRENT, edit(reverse, "reversed"))
    got = via.public.group_current(regions=["North America"])
    assert got.index.tolist() == ref.index.tolist()
    assert_same(got, ref)
    members = direct.public.search(regions=["North America"]).index
    local = group_current(direct.public.current(members))
    assert local.index.tolist() == got.index.tolist()


def _flat(key: Callable[[str, str], str]) -> Callable[[Any], Any]:
    """groups/current ``data`` as one flat object, the statistic in each key."""

    def apply(doc: Any) -> Any:
        cells = doc["data"]
        doc["data"] = {key(s, f): v for s in ("sum", "median") for f, v in cells[s].items()}
        return doc

    return apply


FLAT_KEYS: dict[str, Callable[[str, str], str]] = {
    "fieldStat": lambda stat, field: field + stat.capitalize(),  # marketCapSum
    "stat_field": lambda stat, field: f"{stat}_{field}",  # sum_marketCap
    "field_stat": lambda stat, field: f"{field}_{stat}",
    "statField": lambda stat, field: stat + field[0].upper() + field[1:],  # sumMarketCap
}


@pytest.mark.parametrize("key", FLAT_KEYS.values(), ids=FLAT_KEYS.keys())
def test_group_current_with_the_statistic_in_each_key_is_read(key, direct, via, proxy):
    """``{"marketCapSum": x, "revenueLtmMedian": y, ...}``: the same frame as the sandbox's
    ``{sum: {...}, median: {...}}`` (it used to put every value, sums too, in ``median``)."""
    ref = direct.public.group_current(regions=["North America"])
    proxy.add(GROUP_CURRENT, edit(_flat(key)))
    o = outcome(call(via, "group_current", regions=["North America"], strict=True))
    assert_same(ok(o).sort_index(), ref.sort_index())


def test_the_doctor_names_the_flat_group_layout(via, proxy):
    proxy.add(GROUP_CURRENT, edit(_flat(FLAT_KEYS["fieldStat"])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(via)
    check = next(c for c in diagnosis.checks if c.name == "A.groups.current")
    assert check.verdict == "adapted" and "statistic in each key" in check.observed, check


@pytest.mark.parametrize(
    ("rewrite", "said"),
    [
        (_flat(lambda stat, field: field), "keys of a flat object name no statistic"),
        (_flat(lambda stat, field: field if stat == "median" else field + "Sum"), "revenueLtm"),
        (
            lambda doc: {**doc, "data": {**doc["data"], "evRevenueLtm": 4.2}},
            "data.evRevenueLtm: expected an object",
        ),
    ],
    ids=["flat-no-statistic", "medians-unnamed", "scalar-beside-objects"],
)
def test_group_current_whose_statistics_cannot_be_told_is_refused(rewrite, via, proxy, said):
    """A flat ``{field: x}`` (a sum or a median?), or such a member among ``{stat: {...}}``
    ones: ServiceContractError naming what came, never sums in the median column."""
    proxy.add(GROUP_CURRENT, edit(rewrite))
    o = outcome(call(via, "group_current", regions=["North America"]))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert said in str(o.error) and "/groups/current" in str(o.error)
