"""Family B answers rewritten by the drift proxy: lists, sub-collections, profiles, resolve and
aggregate (issue 12, cases 1 to 5).

Every test asks the same question of a client that talks to the sandbox directly (the
undisturbed reference) and of one that talks through :mod:`_drift_proxy`, which rewrites the
sandbox's answers. The result through the proxy must equal the reference, or come with a
``MissingDataWarning`` (a ``ServiceContractWarning``) that names the endpoint, or be a typed
dealframe error; under ``strict=True`` it must be the typed error, and an
``IncompleteResultError`` must carry in ``partial`` exactly the rows that did arrive. The
frame's ``attrs`` (``rows_expected``, ``rows_received``, ``findings``) must agree with what
the proxy did.

Sub-collections are one page at the session sandbox's scale; tests that need many pages ask
the proxy to serve smaller pages than the client asked for (``clamp_limit``), as a service
that caps ``limit`` would.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Outcome,
    assert_same,
    clamp_limit,
    data_null,
    direct,
    drop_field,
    drop_rows,
    edit,
    fresh_rules,
    html,
    ignore_filters,
    ignore_page,
    meta_delete,
    meta_set,
    no_hang,
    non_objects,
    outcome,
    proxy,
    recount,
    repeat_rows,
    set_field,
    via,
    wire_rows,
)

from dealframe.errors import (
    DealframeError,
    IncompleteResultError,
    ServerError,
    ServiceContractError,
)
from dealframe.notices import MissingDataWarning

P = "/api/private/v1"
#: client method -> (entity, path of the sub-collection, which busy entity to ask about)
SUBS = {
    "fundings": ("companies", "fundings", "funded"),
    "sellside": ("companies", "sellside", "sold"),
    "buyside": ("companies", "buyside", "buyer"),
    "company_investors": ("companies", "investors", "funded"),
    "investments": ("investors", "investments", "lead"),
    "co_investors": ("investors", "co_investors", "lead"),
    "portfolio": ("investors", "portfolio", "lead"),
}
LISTS = {"companies": "companies", "investors": "investors", "deals": "transactions"}
#: Deals over three pages (about 2,600 at scale 0.1): every list case, at half the cost of all.
DEALS = {"deal_type": ["M&A", "Venture"]}


def list_args(method: str) -> dict[str, Any]:
    return DEALS if method == "deals" else {}


def endpoint(*parts: str) -> str:
    """A regex for exactly one Family B path (``{id}`` parts as given)."""
    return "^" + P + "/" + "/".join(parts) + "$"


def sub_path(method: str) -> str:
    entity, name, _ = SUBS[method]
    return endpoint(entity, "[^/]+", name)


# ---------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def busy(sandbox: Any) -> dict[str, str]:
    """For each sub-collection, the entity with the most rows (from raw deal lists)."""
    rows = wire_rows(sandbox, "/transactions")
    funded = Counter(r["target"]["id"] for r in rows if r["deal_type"] != "M&A")
    sold = Counter(r["target"]["id"] for r in rows if r["deal_type"] == "M&A")
    buyer = Counter(b["id"] for r in rows for b in r["buyers"])
    lead = Counter(b["id"] for r in rows for b in r["lead_investors"])
    return {
        method: {"funded": funded, "sold": sold, "buyer": buyer, "lead": lead}[who].most_common(1)[
            0
        ][0]
        for method, (_, _, who) in SUBS.items()
    }


@pytest.fixture(scope="module")
def undisturbed(direct: Any) -> Callable[..., Any]:
    """``undisturbed(method, *args, **kwargs)``: the answer read directly, once per module."""
    memo: dict[str, Any] = {}

    def get(method: str, *args: Any, **kwargs: Any) -> Any:
        key = repr((method, args, sorted(kwargs.items())))
        if key not in memo:
            memo[key] = getattr(direct.private, method)(*args, **kwargs)
        value = memo[key]
        return value.copy() if isinstance(value, pd.DataFrame) else value

    return get


@pytest.fixture(scope="module")
def deals_ref(undisturbed: Callable[..., Any]) -> pd.DataFrame:
    """Every deal, read directly (several pages)."""
    frame = undisturbed("deals", **DEALS)
    assert frame.attrs["rows_expected"] == len(frame) > 2000, "the tests need several pages"
    return frame


@pytest.fixture(scope="module")
def companies_ref(undisturbed: Callable[..., Any]) -> pd.DataFrame:
    """Every company, read directly (two pages or more: a cheaper multi-page list)."""
    frame = undisturbed("companies")
    assert len(frame) > 1000, "the tests need several pages"
    return frame


# ----------------------------------------------------------------------------------------- helpers


def equal(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert_same(got, want, ignore_index=True)


def ok(o: Outcome) -> pd.DataFrame:
    """The frame of a call that must not have raised."""
    assert o.error is None, f"raised {o.error!r}"
    assert isinstance(o.value, pd.DataFrame)
    return o.value


def warned(o: Outcome, *fragments: str) -> None:
    """A MissingDataWarning (or subclass) was raised whose message holds every fragment."""
    messages = o.warned(MissingDataWarning)
    assert messages, "no MissingDataWarning was raised"
    assert any(all(f in m for f in fragments) for m in messages), messages


def kinds(frame: pd.DataFrame) -> set[str]:
    return {f["kind"] for f in frame.attrs["findings"]}


def incomplete(o: Outcome) -> IncompleteResultError:
    assert isinstance(o.error, IncompleteResultError), (
        f"expected IncompleteResultError, got {o.error!r}"
    )
    return o.error


def rows_of(got: pd.DataFrame, ref: pd.DataFrame, key: str = "id") -> None:
    """Every row of ``got`` is a row of ``ref`` (same key, same content), once."""
    assert got[key].notna().all() and got[key].is_unique
    want = ref.set_index(key).loc[got[key].tolist()].reset_index()
    equal(got, want[ref.columns])


def received_truthfully(frame: pd.DataFrame, sent: int) -> None:
    """``rows_received`` counts the rows sent, or the distinct ones with the rest removed."""
    received = frame.attrs["rows_received"]
    removed = frame.attrs.get("duplicates_removed", 0)
    assert received == sent or (received == len(frame) and removed == sent - len(frame)), (
        received,
        removed,
        sent,
        len(frame),
    )


def call(client: Any, method: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: getattr(client.private, method)(*args, **kwargs)


# ------------------------------------------------------------------------- case 1: sub-collections


@pytest.mark.parametrize("method", SUBS)
def test_sub_collection_cut_by_two_rows_is_warned_and_strict_keeps_the_rest(
    method, undisturbed, via, proxy, busy
):
    ident = busy[method]
    ref = undisturbed(method, ident)
    assert len(ref) >= 3
    proxy.add(sub_path(method), drop_rows(2))
    got = ok(o := outcome(call(via, method, ident)))
    equal(got, ref.iloc[:-2])
    warned(o, f"/{SUBS[method][1]}")
    assert got.attrs["rows_expected"] == len(ref)
    assert got.attrs["rows_received"] == len(ref) - 2
    assert "count_mismatch" in kinds(got)

    error = incomplete(outcome(call(via, method, ident, strict=True)))
    equal(error.partial, ref.iloc[:-2])
    assert (error.expected, error.received) == (len(ref), len(ref) - 2)


@pytest.mark.parametrize("method", SUBS)
def test_sub_collection_repeated_rows_are_removed_and_warned(method, undisturbed, via, proxy, busy):
    ident = busy[method]
    ref = undisturbed(method, ident)
    proxy.add(sub_path(method), repeat_rows(2))
    got = ok(o := outcome(call(via, method, ident)))
    equal(got, ref)
    warned(o, f"/{SUBS[method][1]}")
    assert "repeated_rows" in kinds(got)
    assert got.attrs["rows_expected"] == len(ref)
    received_truthfully(got, len(ref) + 2)
    assert isinstance(outcome(call(via, method, ident, strict=True)).error, ServiceContractError)


@pytest.mark.parametrize("method", SUBS)
def test_sub_collection_data_null_is_warned_not_an_empty_success(
    method, undisturbed, via, proxy, busy
):
    ident = busy[method]
    ref = undisturbed(method, ident)
    proxy.add(sub_path(method), data_null())
    got = ok(o := outcome(call(via, method, ident)))
    assert len(got) == 0 and list(got.columns) == list(ref.columns)
    warned(o, f"/{SUBS[method][1]}")
    assert got.attrs["rows_expected"] == len(ref) and got.attrs["rows_received"] == 0

    error = incomplete(outcome(call(via, method, ident, strict=True)))
    assert isinstance(error.partial, pd.DataFrame) and len(error.partial) == 0
    assert (error.expected, error.received) == (len(ref), 0)


@pytest.mark.parametrize("method", ["investments", "co_investors"])
def test_sub_collection_non_object_items_are_dropped_and_warned(
    method, undisturbed, via, proxy, busy
):
    ident = busy[method]
    ref = undisturbed(method, ident)
    proxy.add(sub_path(method), non_objects(("oops", 42)))
    got = ok(o := outcome(call(via, method, ident)))
    equal(got, ref.iloc[2:])
    warned(o, f"/{SUBS[method][1]}")
    assert "wrong_shape" in kinds(got)
    error = incomplete(outcome(call(via, method, ident, strict=True)))
    equal(error.partial, ref.iloc[2:])


def test_sub_collections_of_many_ids_report_the_cut_entity(undisturbed, via, proxy, busy):
    ids = [busy["investments"]] + [
        i for i in undisturbed("investors", limit=5)["id"] if i != busy["investments"]
    ][:2]
    ref = undisturbed("investments", ids)
    proxy.add(endpoint("investors", ids[0], "investments"), drop_rows(2))
    got = ok(o := outcome(call(via, "investments", ids)))
    mine = ref[ref["investor_id"] == ids[0]]
    equal(got, ref.drop(mine.index[-2:]))
    warned(o, ids[0])
    assert got.attrs["rows_expected"] == len(ref) and got.attrs["rows_received"] == len(ref) - 2


# ----------------------------------------------------------------------------------- case 1: lists


def _page1(ref: pd.DataFrame) -> int:
    return min(1000, len(ref))


@pytest.mark.parametrize("method", LISTS)
def test_list_page_cut_by_two_rows_is_warned_and_strict_keeps_the_rest(
    method, undisturbed, via, proxy
):
    ref = undisturbed(method, **list_args(method))
    first = _page1(ref)
    want = ref.drop(ref.index[first - 2 : first])
    proxy.add(endpoint(LISTS[method]), drop_rows(2), page=1)
    got = ok(o := outcome(call(via, method, **list_args(method))))
    equal(got, want)
    warned(o, f"{P}/{LISTS[method]}")
    assert (got.attrs["rows_expected"], got.attrs["rows_received"]) == (len(ref), len(ref) - 2)

    error = incomplete(outcome(call(via, method, strict=True, **list_args(method))))
    equal(error.partial, want)
    assert (error.expected, error.received) == (len(ref), len(ref) - 2)


def test_list_page_cut_with_a_matching_meta_returned_is_still_warned(undisturbed, via, proxy):
    """The only page (investors: fewer than 1,000) two rows short of meta.total."""
    ref = undisturbed("investors")
    assert len(ref) < 1000
    proxy.add(endpoint("investors"), drop_rows(2), recount(), page=1)
    got = ok(o := outcome(call(via, "investors")))
    assert len(got) == len(ref) - 2
    rows_of(got, ref)
    warned(o, f"{P}/investors")
    assert got.attrs["rows_expected"] == len(ref)


@pytest.mark.parametrize("method", ["companies", "deals"])
def test_a_short_page_1_that_says_more_follows_sets_the_page_size(method, undisturbed, via, proxy):
    """Page 1 holds 998 rows, as its meta.returned says, and more follows (meta.limit still
    1000): the service serves 998 rows a page, as one that clamps ``limit`` and repeats the
    ``limit`` asked. Later pages are asked at 998 and no row is lost (it used to ask for
    1000 a page, and lose rows where the service counts pages at the size it serves)."""
    ref = undisturbed(method, **list_args(method))
    assert len(ref) > 1000
    proxy.add(endpoint(LISTS[method]), drop_rows(2), recount(), page=1)
    got = ok(o := outcome(call(via, method, **list_args(method))))
    equal(got, ref)
    assert got.attrs["page_size"] == 998
    assert not o.warned(Warning)


@pytest.mark.parametrize("method", LISTS)
def test_list_repeated_rows_are_removed_and_warned(method, undisturbed, via, proxy):
    ref = undisturbed(method, **list_args(method))
    proxy.add(endpoint(LISTS[method]), repeat_rows(2), page=1)
    got = ok(o := outcome(call(via, method, **list_args(method))))
    equal(got, ref)
    warned(o, f"{P}/{LISTS[method]}")
    assert "repeated_rows" in kinds(got)
    received_truthfully(got, len(ref) + 2)


def test_list_repeated_ids_with_different_content_are_told_apart(
    undisturbed, via, proxy, deals_ref
):
    first = deals_ref.iloc[0]

    def twin(doc: Any) -> Any:
        changed = dict(doc["data"][0], deal_synopsis="a different synopsis")
        doc["data"].append(changed)
        return doc

    proxy.add(endpoint("transactions"), edit(twin), page=1)
    got = ok(o := outcome(call(via, "deals", **DEALS)))
    assert got["id"].is_unique and len(got) == len(deals_ref)
    assert "conflicting_rows" in kinds(got)
    warned(o, "different content")
    assert got.set_index("id").loc[first["id"], "deal_synopsis"] in (
        first["deal_synopsis"],
        "a different synopsis",
    )


@pytest.mark.parametrize("method", LISTS)
def test_list_data_null_on_page_one_is_warned_not_an_empty_success(method, undisturbed, via, proxy):
    ref = undisturbed(method, **list_args(method))
    proxy.add(endpoint(LISTS[method]), data_null(), page=1)
    got = ok(o := outcome(call(via, method, **list_args(method))))
    assert len(got) == 0 and list(got.columns) == list(ref.columns)
    warned(o, f"{P}/{LISTS[method]}")
    assert got.attrs["rows_expected"] == len(ref) and got.attrs["rows_received"] == 0
    error = incomplete(outcome(call(via, method, strict=True, **list_args(method))))
    assert len(error.partial) == 0 and error.expected == len(ref)


def test_list_data_null_on_a_middle_page_is_warned(via, proxy, deals_ref):
    proxy.add(endpoint("transactions"), data_null(), page=2)
    got = ok(o := outcome(call(via, "deals", **DEALS)))
    assert len(got) < len(deals_ref)
    rows_of(got, deals_ref)
    assert not got["id"].isin(deals_ref["id"].iloc[1000:2000]).any()
    warned(o, f"{P}/transactions")
    assert got.attrs["rows_expected"] == len(deals_ref)
    assert got.attrs["rows_received"] == len(got)
    error = incomplete(outcome(call(via, "deals", strict=True, **DEALS)))
    equal(error.partial, got)


def test_list_non_object_items_are_dropped_and_warned(via, proxy, deals_ref):
    proxy.add(endpoint("transactions"), non_objects(("oops", 42, None)), page=1)
    got = ok(o := outcome(call(via, "deals", **DEALS)))
    equal(got, deals_ref.iloc[3:])
    warned(o, f"{P}/transactions")
    assert "wrong_shape" in kinds(got)
    assert got.attrs["rows_received"] == len(deals_ref) - 3


def test_list_wrong_meta_returned_is_warned(via, proxy, companies_ref):
    proxy.add(endpoint("companies"), meta_set(returned=999), page=2)
    got = ok(o := outcome(call(via, "companies")))
    equal(got, companies_ref)
    warned(o, f"{P}/companies page 2")


@pytest.mark.parametrize("value", ["1976", -1, 1.5, True, [1], {"n": 1}])
def test_list_meta_total_of_the_wrong_type_is_ignored_and_warned(value, via, proxy, companies_ref):
    proxy.add(endpoint("companies"), meta_set(total=value))
    got = ok(o := outcome(call(via, "companies")))
    equal(got, companies_ref)
    warned(o, "meta.total")


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_list_meta_has_more_of_the_wrong_type_still_reads_every_row(
    value, via, proxy, companies_ref
):
    proxy.add(endpoint("companies"), meta_set(has_more=value))
    got = ok(outcome(call(via, "companies")))
    equal(got, companies_ref)


def test_list_page_that_ignores_page_stops_and_is_warned(via, proxy, deals_ref):
    proxy.add(endpoint("transactions"), ignore_page())
    got = ok(o := outcome(call(via, "deals", **DEALS)))
    equal(got, deals_ref.iloc[:1000])
    warned(o, f"{P}/transactions")
    assert "repeated_page" in kinds(got)
    assert proxy.count(endpoint("transactions")) <= 1 + 10
    error = incomplete(outcome(call(via, "deals", strict=True, **DEALS)))
    equal(error.partial, deals_ref.iloc[:1000])


def test_sub_collection_that_ignores_page_stops_and_is_warned(undisturbed, via, proxy, busy):
    ident = busy["investments"]
    ref = undisturbed("investments", ident)
    assert len(ref) > 200
    proxy.add(sub_path("investments"), clamp_limit(100), ignore_page())
    got = ok(o := outcome(call(via, "investments", ident)))
    equal(got, ref.iloc[:100])
    warned(o, "/investments")
    assert "repeated_page" in kinds(got)
    assert proxy.count(sub_path("investments")) <= 1 + 10


def test_aggregate_repeated_buckets_are_removed_and_warned(undisturbed, via, proxy):
    ref = undisturbed("aggregate", "ev_revenue", "year")
    assert len(ref) >= 3
    proxy.add(endpoint("transactions", "aggregate"), repeat_rows(len(ref) - 1))
    got = ok(o := outcome(call(via, "aggregate", "ev_revenue", "year")))
    equal(got, ref)  # the service sent len(ref) buckets: never 2 * len(ref) - 1 rows
    warned(o, "/transactions/aggregate")
    assert "repeated_rows" in kinds(got)
    assert isinstance(
        outcome(call(via, "aggregate", "ev_revenue", "year", strict=True)).error,
        ServiceContractError,
    )


def test_aggregate_missing_bucket_is_warned(undisturbed, via, proxy):
    ref = undisturbed("aggregate", "valuation", "year")
    proxy.add(endpoint("transactions", "aggregate"), drop_rows(1))
    got = ok(o := outcome(call(via, "aggregate", "valuation", "year")))
    equal(got, ref.iloc[:-1])
    warned(o, "/transactions/aggregate")
    assert isinstance(
        outcome(call(via, "aggregate", "valuation", "year", strict=True)).error, DealframeError
    )


def test_aggregate_data_null_is_warned(via, proxy):
    proxy.add(endpoint("transactions", "aggregate"), data_null())
    got = ok(o := outcome(call(via, "aggregate", "raised", "year")))
    assert len(got) == 0
    warned(o, "/transactions/aggregate")


# ---------------------------------------------------------------------- case 2: meta.total missing


@pytest.mark.parametrize(
    "rewrite",
    [
        meta_delete("total"),
        meta_set(total=None),
        meta_delete("has_more"),
        meta_delete("total", "has_more"),
        meta_delete(),
    ],
    ids=["total-deleted", "total-null", "has_more-deleted", "both-deleted", "no-meta"],
)
def test_list_without_total_or_has_more_still_reads_every_page(rewrite, via, proxy, companies_ref):
    proxy.add(endpoint("companies"), rewrite)
    got = ok(o := outcome(call(via, "companies")))
    equal(got, companies_ref)
    assert got.attrs["rows_received"] == len(companies_ref)
    assert got.attrs["rows_expected"] in (None, len(companies_ref))
    assert not [m for m in o.warned(MissingDataWarning) if "did the data change" in m]


def test_list_total_missing_with_has_more_true_reads_every_page(via, proxy, companies_ref):
    proxy.add(endpoint("companies"), meta_delete("total"))
    proxy.add(
        endpoint("companies"),
        meta_set(has_more=True),
        when=lambda ex: (ex.page or 1) * 1000 < len(companies_ref),
    )
    got = ok(outcome(call(via, "companies")))
    equal(got, companies_ref)
    assert set(proxy.pages(endpoint("companies"))) >= set(range(1, len(companies_ref) // 1000 + 2))


@pytest.mark.parametrize("limit", [None, 1500])
def test_list_total_too_small_with_has_more_true_reads_every_page(limit, via, proxy, companies_ref):
    """``total`` says page 1 held everything while ``has_more`` says more is coming: the
    walk follows ``has_more`` (it used to stop after page 1, with a warning that read as a
    surplus)."""
    assert len(companies_ref) > 1000
    proxy.add(
        endpoint("companies"),
        meta_set(total=50, has_more=True),
        when=lambda ex: (ex.page or 1) * 1000 < len(companies_ref),
    )
    got = ok(o := outcome(call(via, "companies", limit=limit)))
    equal(got, companies_ref if limit is None else companies_ref.iloc[:limit])
    assert proxy.count(endpoint("companies")) >= 2
    warned(o, f"{P}/companies")


def test_sub_collection_without_total_reads_every_page(undisturbed, via, proxy, busy):
    ident = busy["investments"]
    ref = undisturbed("investments", ident)
    proxy.add(sub_path("investments"), clamp_limit(100), meta_delete("total"))
    got = ok(outcome(call(via, "investments", ident)))
    equal(got, ref)
    assert proxy.count(sub_path("investments")) >= -(-len(ref) // 100)


def test_list_has_more_false_too_early_is_warned_and_strict_keeps_page_one(
    via, proxy, companies_ref
):
    proxy.add(endpoint("companies"), meta_set(has_more=False))
    got = ok(o := outcome(call(via, "companies")))
    rows_of(got, companies_ref)
    if len(got) < len(companies_ref):
        warned(o, f"{P}/companies")
        error = incomplete(outcome(call(via, "companies", strict=True)))
        equal(error.partial, got)


@pytest.mark.parametrize(
    ("method", "ignored", "filters"),
    [
        ("deals", (), {"deal_type": ["Venture"], "date_from": "2024-01-01"}),
        ("deals", ("date_from",), {**DEALS, "date_from": "2024-01-01"}),
        ("deals", (), {"valuation_min": 50, "target_country": ["USA", "GBR"]}),
        ("companies", (), {"region": ["Western Europe"], "founded_min": 2005}),
        ("companies", ("name",), {"name": "HEALTH"}),
        ("investors", (), {"country": ["USA"]}),
    ],
)
def test_rows_outside_the_filters_sent_are_dropped_and_warned(
    method, ignored, filters, undisturbed, via, proxy
):
    """A service that ignores a filter answers 200 with rows the request ruled out: they are
    dropped and said, and the frame equals the one a service that read the filter gives."""
    ref = undisturbed(method, **filters)
    assert 0 < len(ref)
    proxy.add(endpoint(LISTS[method]), ignore_filters(*ignored))
    got = ok(o := outcome(call(via, method, **filters)))
    equal(got, ref)
    warned(o, "outside the filters sent", "dropped")
    assert "unrequested" in kinds(got)
    strict = outcome(call(via, method, strict=True, **filters))
    assert isinstance(strict.error, ServiceContractError), repr(strict.error)


@pytest.mark.parametrize("value", [None, "drop"])
def test_nulls_where_the_document_gives_none_are_kept_and_warned(value, deals_ref, via, proxy):
    action = (
        drop_field("deal_date", first=7) if value == "drop" else set_field("deal_date", None, 7)
    )
    proxy.add(endpoint("transactions"), action, page=2)
    got = ok(o := outcome(call(via, "deals", **DEALS)))
    assert len(got) == len(deals_ref) and got["deal_date"].isna().sum() == 7
    warned(o, "null where the document gives no null", "deal_date in 7 of")
    assert "null_field" in kinds(got)


def test_an_id_lookup_answered_with_every_row_keeps_the_ids_asked_for(deals_ref, via, proxy):
    ids = deals_ref["id"].iloc[[5, 1]].tolist()
    proxy.add(endpoint("transactions"), ignore_filters())
    got = ok(o := outcome(call(via, "deals", id=ids)))
    assert got["id"].tolist() == ids and got.attrs["missing_ids"] == []
    warned(o, "outside the filters sent", "2 ids asked for")


def test_deleted_rows_not_asked_for_are_dropped(via, proxy, companies_ref, undisturbed):
    deleted = undisturbed("companies", include_deleted=True)
    assert deleted["deleted"].any(), "the sandbox has soft-deleted companies"
    proxy.add(endpoint("companies"), Action("include_deleted", on_request=_with_deleted))
    got = ok(o := outcome(call(via, "companies")))
    equal(got, companies_ref)
    warned(o, "include_deleted")


def _with_deleted(ex: Any) -> None:
    ex.body["filters"] = {**ex.body.get("filters", {}), "include_deleted": True}
    ex.raw_body = orjson.dumps(ex.body)


# ------------------------------------------------------------------------- case 3: inflated totals


@pytest.mark.parametrize("total", [3_000_000, 10**12, 10**12 + 1, 10**30])
def test_inflated_total_over_a_few_hundred_rows_costs_no_memory_and_few_requests(
    total, undisturbed, via, proxy
):
    ref = undisturbed("deals", deal_type=["Secondary"])
    assert 100 < len(ref) < 1000
    proxy.add(endpoint("transactions"), meta_set(total=total, has_more=True))
    o = outcome(call(via, "deals", deal_type=["Secondary"]))
    assert proxy.count(endpoint("transactions")) <= 1 + 10
    if o.error is not None:
        assert isinstance(o.error, DealframeError), repr(o.error)
        return
    got = o.value
    equal(got, ref)
    warned(o, f"{P}/transactions")


@pytest.mark.parametrize("total", [3_000_000, 10**12])
def test_inflated_total_with_truthful_has_more_reads_every_page_once(
    total, via, proxy, companies_ref
):
    proxy.add(endpoint("companies"), meta_set(total=total))
    got = ok(o := outcome(call(via, "companies")))
    equal(got, companies_ref)
    pages = -(-len(companies_ref) // 1000)
    assert proxy.count(endpoint("companies")) <= pages + 10
    warned(o, f"{P}/companies")


def test_inflated_total_on_a_sub_collection_costs_few_requests(undisturbed, via, proxy, busy):
    ident = busy["investments"]
    ref = undisturbed("investments", ident)
    proxy.add(sub_path("investments"), clamp_limit(100), meta_set(total=3_000_000))
    got = ok(o := outcome(call(via, "investments", ident)))
    equal(got, ref)
    assert proxy.count(sub_path("investments")) <= -(-len(ref) // 100) + 10
    warned(o, "/investments")


# ---------------------------------------------------------------------- case 4: identities, fields


@pytest.mark.parametrize("method", LISTS)
def test_list_rows_without_id_are_kept_apart_and_warned(method, undisturbed, via, proxy):
    ref = undisturbed(method, **list_args(method))
    proxy.add(endpoint(LISTS[method]), drop_field("id"))
    got = ok(o := outcome(call(via, method, **list_args(method))))
    assert len(got) == len(ref)
    assert got["id"].isna().all()
    equal(got.drop(columns="id"), ref.drop(columns="id"))
    warned(o, "'id'")
    assert "missing_identity" in kinds(got)


def test_list_some_rows_without_id_are_kept_apart_and_warned(via, proxy, deals_ref):
    proxy.add(endpoint("transactions"), drop_field("id", first=3), page=2)
    got = ok(o := outcome(call(via, "deals", **DEALS)))
    assert len(got) == len(deals_ref)
    assert got["id"].isna().sum() == 3
    equal(got.drop(columns="id"), deals_ref.drop(columns="id"))
    warned(o, "'id'")


@pytest.mark.parametrize("method", ["investments", "portfolio"])
def test_sub_collection_rows_without_id_are_kept_apart_and_warned(
    method, undisturbed, via, proxy, busy
):
    ident = busy[method]
    ref = undisturbed(method, ident)
    proxy.add(sub_path(method), drop_field("id"))
    got = ok(o := outcome(call(via, method, ident)))
    assert len(got) == len(ref)
    equal(got.drop(columns="id"), ref.drop(columns="id"))
    warned(o, "'id'")


DOCUMENTED = [
    ("companies", endpoint("companies"), "ceo"),
    ("investors", endpoint("investors"), "website"),
    ("deals", endpoint("transactions"), "deal_synopsis"),
    ("fundings", sub_path("fundings"), "deal_valuation"),
    ("buyside", sub_path("buyside"), "role"),
    ("investments", sub_path("investments"), "role"),
    ("company_investors", sub_path("company_investors"), "rounds_participated"),
    ("co_investors", sub_path("co_investors"), "shared_deals"),
    ("portfolio", sub_path("portfolio"), "rounds_count"),
]


@pytest.mark.parametrize("method,path,name", DOCUMENTED, ids=[f"{m}-{n}" for m, _, n in DOCUMENTED])
def test_documented_field_absent_from_every_row_is_warned(method, path, name, via, proxy, busy):
    args = (busy[method],) if method in SUBS else ()
    proxy.add(path, drop_field(name))
    o = outcome(call(via, method, *args, **list_args(method)))
    got = ok(o)
    assert len(got) > 0
    warned(o, "absent", name)
    assert "missing_field" in kinds(got)
    error = outcome(call(via, method, *args, strict=True, **list_args(method))).error
    assert isinstance(error, DealframeError), repr(error)


def test_aggregate_bucket_without_label_is_kept_and_warned(undisturbed, via, proxy):
    ref = undisturbed("aggregate", "ev_revenue", "year")
    proxy.add(endpoint("transactions", "aggregate"), drop_field("bucket", first=1))
    got = ok(o := outcome(call(via, "aggregate", "ev_revenue", "year")))
    assert len(got) == len(ref)
    warned(o, "'bucket'")


def test_aggregate_field_absent_from_every_bucket_is_warned(via, proxy):
    proxy.add(endpoint("transactions", "aggregate"), drop_field("q1"))
    o = outcome(call(via, "aggregate", "ev_revenue", "year"))
    ok(o)
    warned(o, "absent", "q1")


# ---------------------------------------------------------------------------- profiles and resolve


@pytest.fixture(scope="module")
def some_companies(undisturbed: Any) -> list[str]:
    return undisturbed("companies", limit=3)["id"].tolist()


PROFILES = {
    "company": ("companies", "companies"),
    "investor": ("investors", "investors"),
    "deal": ("transactions", "deals"),
}


@pytest.mark.parametrize("method", PROFILES)
def test_profile_answer_with_data_null_is_warned_and_strict_keeps_the_others(
    method, undisturbed, via, proxy
):
    entity, lister = PROFILES[method]
    ids = undisturbed(lister, limit=3)["id"].tolist()
    ref = undisturbed(method, ids)
    proxy.add(endpoint(entity, ids[1]), data_null())
    got = ok(o := outcome(call(via, method, ids)))
    equal(got, ref.drop(index=1))
    warned(o, ids[1])
    assert got.attrs["rows_expected"] == 3

    error = incomplete(outcome(call(via, method, ids, strict=True)))
    equal(error.partial, ref.drop(index=1))
    assert (error.expected, error.received) == (3, 2)


def test_profile_of_another_entity_is_warned(undisturbed, via, proxy, some_companies):
    proxy.add(endpoint("companies", some_companies[0]), set_field("id", some_companies[2]))
    o = outcome(call(via, "company", some_companies))
    got = ok(o)
    warned(o, some_companies[0])
    assert "wrong_entity" in kinds(got)


def test_profile_field_absent_is_warned(via, proxy, some_companies):
    proxy.add(endpoint("companies", "[^/]+"), drop_field("employee_count"))
    o = outcome(call(via, "company", some_companies))
    ok(o)
    warned(o, "absent", "employee_count")


def test_profile_that_fails_gives_the_others_in_partial(undisturbed, via, proxy, some_companies):
    ref = undisturbed("company", some_companies)
    proxy.add(endpoint("companies", some_companies[2]), html(502))
    error = incomplete(outcome(call(via, "company", some_companies)))
    equal(error.partial, ref.iloc[:2])
    assert error.received == 2 and error.expected == 3


@pytest.fixture(scope="module")
def names(undisturbed: Any) -> list[str]:
    known = undisturbed("companies", limit=4)["name"].tolist()
    return known + ["no such company at all", "a"]


def test_resolve_result_missing_is_warned_and_strict_counts_names(undisturbed, via, proxy, names):
    ref = undisturbed("resolve_companies", names)
    proxy.add(endpoint("companies", "resolve"), drop_rows(1))
    o = outcome(call(via, "resolve_companies", names))
    assert o.error is None, repr(o.error)
    matches = o.value.matches
    assert matches["query"].tolist() == names
    equal(matches.iloc[:-1], ref.matches.iloc[:-1])
    assert pd.isna(matches["match_type"].iloc[-1])
    warned(o, "/companies/resolve")
    assert (matches.attrs["rows_expected"], matches.attrs["rows_received"]) == (
        len(names),
        len(names) - 1,
    )
    error = incomplete(outcome(call(via, "resolve_companies", names, strict=True)))
    assert (error.expected, error.received) == (len(names), len(names) - 1)
    partial = error.partial
    partial = partial.matches if hasattr(partial, "matches") else partial
    equal(partial.iloc[:-1], ref.matches.iloc[:-1])


def test_resolve_repeated_results_are_warned_and_matched_once(undisturbed, via, proxy, names):
    ref = undisturbed("resolve_companies", names)
    proxy.add(endpoint("companies", "resolve"), repeat_rows(2))
    o = outcome(call(via, "resolve_companies", names))
    assert o.error is None, repr(o.error)
    equal(o.value.matches, ref.matches)
    warned(o, "/companies/resolve")


def test_resolve_data_null_is_warned(via, proxy, names):
    proxy.add(endpoint("companies", "resolve"), data_null())
    o = outcome(call(via, "resolve_companies", names))
    assert o.error is None, repr(o.error)
    assert o.value.matches["match_type"].isna().all()
    warned(o, "/companies/resolve")
    error = incomplete(outcome(call(via, "resolve_companies", names, strict=True)))
    assert (error.expected, error.received) == (len(names), 0)


def test_resolve_without_match_type_is_warned(via, proxy, names):
    proxy.add(endpoint("investors", "resolve"), drop_field("match_type"))
    o = outcome(call(via, "resolve_investors", names))
    assert o.error is None or isinstance(o.error, DealframeError), repr(o.error)
    if o.error is None:
        warned(o, "absent", "match_type")


# --------------------------------------------------------------------------------- case 5: partial


def test_failed_page_follows_the_documented_recipe(via, proxy, deals_ref):
    """docs/errors.md: ``except IncompleteResultError as exc: deals = exc.partial``."""
    proxy.add(endpoint("transactions"), html(502), page=3)
    try:
        via.private.deals(strict=True, **DEALS)
    except IncompleteResultError as exc:
        deals = exc.partial
        failed = exc.failed
        received = exc.received
    else:
        pytest.fail("a page that fails must raise IncompleteResultError")
    want = deals_ref.drop(deals_ref.index[2000:3000])
    equal(deals, want)
    assert received == len(want)
    assert any("3" in str(item) for item in failed)
    assert deals.attrs["rows_expected"] == len(deals_ref)


def test_failed_page_raises_even_without_strict(via, proxy, deals_ref):
    proxy.add(endpoint("transactions"), html(502), page=2)
    error = incomplete(outcome(call(via, "deals", **DEALS)))
    equal(error.partial, deals_ref.drop(deals_ref.index[1000:2000]))


def test_failed_sub_collection_of_one_id_gives_the_others_in_partial(undisturbed, via, proxy, busy):
    ids = [busy["investments"]] + [
        i for i in undisturbed("investors", limit=4)["id"] if i != busy["investments"]
    ][:2]
    ref = undisturbed("investments", ids)
    proxy.add(endpoint("investors", ids[0], "investments"), html(502))
    error = incomplete(outcome(call(via, "investments", ids)))
    equal(error.partial, ref[ref["investor_id"] != ids[0]])


def test_resolve_whose_only_batch_fails_raises_its_own_error(via, proxy, names):
    """Nothing arrived, so nothing is named (docs/reliability.md): the request's own typed
    error, as deals() and current() raise it (it was IncompleteResultError "received 0 of 6
    names")."""
    proxy.add(endpoint("companies", "resolve"), html(502))
    error = outcome(call(via, "resolve_companies", names)).error
    assert type(error) is ServerError and error.status == 502, repr(error)
    assert f"POST {P}/companies/resolve" in str(error)


def test_failed_resolve_batch_gives_a_partial(via, proxy, names):
    """The second of two batches fails: the first batch's names are kept in ``partial``."""
    many = [*names, *(f"no such company {i}" for i in range(1200 - len(names)))]  # 1000, 200
    proxy.add(
        endpoint("companies", "resolve"),
        html(502),
        when=lambda ex: len(ex.body["names"]) < 1000,
    )
    error = incomplete(outcome(call(via, "resolve_companies", many)))
    assert (error.expected, error.received) == (1200, 1000)
    assert error.failed == ["names 1001..1200"]
    matches = error.partial.matches
    assert matches["query"].tolist() == many[:1000]
