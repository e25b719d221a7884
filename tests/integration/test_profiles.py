"""The client under every sandbox profile: the same frames, with no configuration (issue 14).

Each profile of :mod:`dealframe.sandbox.profiles` answers one open point of the interface
document another way. For every profile but ``broken``, every client call of both families
is made against a sandbox serving that profile and against one serving the default, with the
same seed and scale (so the same data), and the two frames must be equal, except for exactly
what the profile legitimately changes:

- ``extra-fields``: the frames carry more columns (the unknown member and the extra fields
  the profile serves; :data:`EXTRA_COLUMNS` lists them per call), placed after the default
  ones; without them the frames are equal. Time series carry two more fields.
- ``threshold-3``: aggregate buckets with 3 or 4 deals are reported (``warning`` null, a
  median) where the default suppresses them (``small_n``); every other bucket is equal.
- every other profile: equal frames.

No call may raise a warning the same call does not raise under the default profile. Error
paths: a 400 and a 404 under each error-body profile are the same typed error as under the
default, with a message that names what was wrong.

One small sandbox (scale 0.05) per profile, shared by all its tests.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pytest

import dealframe
from dealframe.errors import BadRequestError, NotFoundError, ServiceContractError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox import PROFILES, run

SCALE, SEED = 0.05, 7
#: page-from-0 is tested below, each call on a client that has not yet seen it count from 0.
TESTED = [name for name in PROFILES if name not in ("default", "broken", "page-from-0")]
NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"


@dataclass
class Ids:
    """Entities every call is asked about (the same data under every profile)."""

    region: str
    skus: list[str]
    skus_v1: list[str]
    funded: str  # a company with funding rounds and investors
    sold: str  # a company with M&A deals as target
    buyer: str  # a company that bought others
    lead: str  # an investor that led rounds
    companies: list[str]
    deals: list[str]
    company_names: list[str]  # > 100, for resolve
    investor_names: list[str]


def _most(counter: Counter) -> str:
    return counter.most_common(1)[0][0]


def _ids(sb: Any) -> Ids:
    ds = sb.state.dataset
    orgs = list(ds.orgs)
    deals = [d for d in ds.deals if not d["deleted"]]
    live = [o for o in orgs if not o["deleted"]]
    companies = {o["id"] for o in live if o["_company"]}
    investors = {o["id"] for o in live if o["_investor"]}
    funded, sold, buyer, lead = Counter(), Counter(), Counter(), Counter()
    for d in deals:
        target = orgs[d["target_index"]]["id"]
        (sold if d["deal_type"] == "M&A" else funded)[target] += 1
        buyer.update(p["id"] for p in d["buyers"] if p["id"] in companies)
        lead.update(p["id"] for p in d["lead_investors"] if p["id"] in investors)
    funded = Counter({k: v for k, v in funded.items() if k in companies})
    sold = Counter({k: v for k, v in sold.items() if k in companies})
    listed = ds.listed
    region = Counter(orgs[c["org"]]["region"] for c in listed).most_common(1)[0][0]
    names_c = sorted(o["name"] for o in live if o["_company"])
    names_i = sorted(o["name"] for o in live if o["_investor"])
    return Ids(
        region=region,
        skus=[c["sku_v2"] for c in listed][:60],
        skus_v1=[c["sku_v1"] for c in listed][:20],
        funded=_most(funded),
        sold=_most(sold),
        buyer=_most(buyer),
        lead=_most(lead),
        companies=sorted(companies)[:30] + [NO_SUCH_ID],
        deals=[d["id"] for d in deals[::97]],
        company_names=names_c[:130] + ["zz none"],
        investor_names=names_i[:110],
    )


#: Every client call of both families, by name.
CALLS: dict[str, Callable[[dealframe.Client, Ids], Any]] = {
    "search_v2": lambda c, i: c.public.search(),
    "search_v1": lambda c, i: c.public_v1.search(regions=[i.region]),
    "current": lambda c, i: c.public.current(i.skus),
    "current_v1": lambda c, i: c.public_v1.current(i.skus_v1),
    "time_series_wide": lambda c, i: c.public.time_series(i.skus[:6], date_from="2024-01"),
    "time_series_long": lambda c, i: c.public.time_series(
        i.skus[:6], date_from="2025-06", shape="long"
    ),
    "time_series_fields": lambda c, i: c.public.time_series(
        i.skus[:4], fields=["evRevenueLtm", "marginEbitdaLtm"], date_to="2020-12"
    ),
    "group_current": lambda c, i: c.public.group_current(regions=[i.region]),
    "group_time_series": lambda c, i: c.public.group_time_series(
        regions=[i.region], date_from="2023-01", date_to="2024-06"
    ),
    "companies": lambda c, i: c.private.companies(),
    "investors": lambda c, i: c.private.investors(sort="name:desc"),
    "deals": lambda c, i: c.private.deals(),  # three pages of 1,000 (25 under limit-100)
    "deals_filtered": lambda c, i: c.private.deals(
        deal_type=["M&A"], sort="deal_valuation:desc", limit=450
    ),
    "changefeed": lambda c, i: c.private.companies(
        updated_at="2026-06-01T00:00:00+00:00", include_deleted=True, sort="updated_at:asc"
    ),
    "companies_by_id": lambda c, i: c.private.companies(id=i.companies),
    "deals_by_id": lambda c, i: c.private.deals(id=i.deals),
    "page": lambda c, i: c.private.page("transactions", sort="deal_date:desc", page=3, limit=40),
    "fundings": lambda c, i: c.private.fundings(i.funded),
    "sellside": lambda c, i: c.private.sellside(i.sold),
    "buyside": lambda c, i: c.private.buyside(i.buyer),
    "company_investors": lambda c, i: c.private.company_investors(i.funded),
    "investments": lambda c, i: c.private.investments(i.lead),
    "co_investors": lambda c, i: c.private.co_investors(i.lead),
    "portfolio": lambda c, i: c.private.portfolio(i.lead),
    "fundings_many": lambda c, i: c.private.fundings([i.funded, i.sold, i.buyer]),
    "company": lambda c, i: c.private.company(i.funded),
    "companies_profiles": lambda c, i: c.private.company(i.companies[:4]),
    "investor": lambda c, i: c.private.investor(i.lead),
    "investor_top": lambda c, i: c.private.investor_top(i.lead, "verticals"),
    "deal": lambda c, i: c.private.deal(i.deals[:3]),
    "resolve_companies": lambda c, i: c.private.resolve_companies(i.company_names),
    "resolve_investors": lambda c, i: c.private.resolve_investors(
        i.investor_names, on_ambiguous="best"
    ),
    "aggregate_month": lambda c, i: c.private.aggregate(
        "ev_revenue", "month", date_from="2024-01-01"
    ),
    "aggregate_quarter": lambda c, i: c.private.aggregate("valuation", "quarter"),
    "aggregate_year": lambda c, i: c.private.aggregate("raised", "year"),
    "aggregate_none": lambda c, i: c.private.aggregate("ev_ebitda", "none", deal_type=["M&A"]),
    "lookup_transactions": lambda c, i: c.private.lookup("transactions"),
    "lookup_companies": lambda c, i: c.private.lookup("companies"),
}

_DEAL_EXTRA = {"extra_field"}
#: Columns the extra-fields profile adds, per call (the unknown member, and extra fields).
EXTRA_COLUMNS: dict[str, set[Any]] = {
    "search_v2": {"extraField"},
    "search_v1": {"extraField"},
    "current": {"extraField", "netDebt", "netDebtLcu", "ruleOf40Ntm"},
    "current_v1": {"extraField", "netDebt", "netDebtLcu", "ruleOf40Ntm"},
    "group_current": set(),  # extra fields are rows: see _normalise
    "group_time_series": {"ruleOf40", "ebitdaLtm"},
    **{
        name: _DEAL_EXTRA
        for name in (
            "companies",
            "investors",
            "deals",
            "deals_filtered",
            "changefeed",
            "companies_by_id",
            "deals_by_id",
            "page",
            "fundings",
            "sellside",
            "buyside",
            "company_investors",
            "investments",
            "co_investors",
            "portfolio",
            "fundings_many",
            "company",
            "companies_profiles",
            "investor",
            "deal",
            "lookup_transactions",
            "lookup_companies",
        )
    },
}


@dataclass
class Served:
    """A client of one sandbox, with the frames it returned (computed once per call)."""

    profile: str
    client: dealframe.Client
    ids: Ids
    done: dict[str, tuple[Any, list[tuple[type, str]]]] = field(default_factory=dict)

    def call(self, name: str) -> tuple[Any, list[tuple[type, str]]]:
        if name not in self.done:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                result = CALLS[name](self.client, self.ids)
            self.done[name] = result, [(w.category, str(w.message)) for w in seen]
        return self.done[name]


@pytest.fixture(scope="module")
def reference() -> Any:
    with (
        run(scale=SCALE, seed=SEED) as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as client,
    ):
        yield Served("default", client, _ids(sb))


@pytest.fixture(scope="module", params=TESTED)
def served(request: pytest.FixtureRequest, reference: Served) -> Any:
    with (
        run(scale=SCALE, seed=SEED, profile=request.param) as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as client,
    ):
        yield Served(request.param, client, reference.ids)


def _frames(result: Any) -> list[pd.DataFrame]:
    return list(result) if isinstance(result, tuple) else [result]


def _columns(frame: pd.DataFrame) -> list[Any]:
    """Column labels, or the fields of a wide time-series frame (level 0)."""
    if isinstance(frame.columns, pd.MultiIndex):
        return list(dict.fromkeys(frame.columns.get_level_values(0)))
    return list(frame.columns)


def _without_extras(name: str, got: pd.DataFrame, want: pd.DataFrame) -> pd.DataFrame:
    """``got`` without the columns (and rows) extra-fields adds, checking they are exactly
    those expected and come after the default columns."""
    if name in ("time_series_wide", "time_series_long"):  # two more fields, as rows or columns
        extra = {"ruleOf40", "ebitdaLtm"}
        if name == "time_series_long":
            assert set(got["field"]) - set(want["field"]) == extra
            kept = got[~got["field"].isin(extra)].reset_index(drop=True)
            for column in kept.select_dtypes("category"):
                kept[column] = kept[column].cat.remove_unused_categories()
            return kept
        assert set(_columns(got)) - set(_columns(want)) == extra
        return got.drop(columns=list(extra), level=0)
    if name == "group_current":  # the extra current fields are medians: rows
        extra = set(got.index) - set(want.index)
        assert extra == {"netDebt", "netDebtLcu", "ruleOf40Ntm"}
        assert got.loc[sorted(extra), "sum"].isna().all()
        assert got.loc[sorted(extra), "median"].notna().all()
        return got.drop(index=sorted(extra))
    extra = set(_columns(got)) - set(_columns(want))
    assert extra == EXTRA_COLUMNS.get(name, set()), f"{name}: extra columns {extra}"
    assert _columns(got)[: len(_columns(want))] == _columns(want), "extra columns come last"
    return got.drop(columns=sorted(extra))


def _threshold_3(got: pd.DataFrame, want: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Buckets of 3 or 4 deals are reported under threshold-3; the rest is equal."""
    moved = want["n"].between(3, 4).to_numpy()
    assert (want.loc[moved, "warning"] == "small_n").all()
    assert got.loc[moved, "warning"].isna().all() and got.loc[moved, "median"].notna().all()
    assert got.attrs["methodology"]["small_n_threshold"] == 3
    return got[~moved].reset_index(drop=True), want[~moved].reset_index(drop=True)


def _small_n_omitted(got: pd.DataFrame, want: pd.DataFrame) -> pd.DataFrame:
    """Buckets below the threshold are left out under small-n-omitted: the client says which
    and how many deals they held; the rest is equal."""
    small = (want["warning"] == "small_n").to_numpy()
    assert got.attrs["buckets_left_out"] == want.loc[small, "bucket"].tolist()
    assert got.attrs["deals_left_out"] == int(want.loc[small, "n"].sum())
    assert want.attrs["buckets_left_out"] == [] and want.attrs["deals_left_out"] == 0
    return want[~small].reset_index(drop=True)


def _compare(profile: str, name: str, got: Any, want: Any) -> None:
    for g, w in zip(_frames(got), _frames(want), strict=True):
        if (
            profile == "extra-fields"
            and name != "investor_top"
            and not name.startswith(("resolve", "aggregate", "lookup_"))
        ):
            g = _without_extras(name, g, w)
        elif profile == "extra-fields":
            extra = set(_columns(g)) - set(_columns(w))
            assert extra <= {"extra_field"}, extra
            g = g.drop(columns=sorted(extra))
        if profile == "threshold-3" and name.startswith("aggregate"):
            g, w = _threshold_3(g, w)
        if profile == "small-n-omitted" and name.startswith("aggregate"):
            w = _small_n_omitted(g, w)
        pd.testing.assert_frame_equal(g, w)


@pytest.mark.parametrize("name", list(CALLS))
def test_the_client_returns_the_default_frames(
    served: Served, reference: Served, name: str
) -> None:
    want, want_warned = reference.call(name)
    got, warned = served.call(name)
    _compare(served.profile, name, got, want)
    assert warned == want_warned, f"{served.profile}: warnings {warned} (default: {want_warned})"


def _labels(result: Any) -> list[str]:
    return list(result.attrs["labels_as_served"])


#: What each profile's answers show through the client (proof that the profile was served).
SERVED: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "group-field-major": ("group_current", lambda f: f.loc["marketCap", "sum"] > 0),
    "group-list": ("group_current", lambda f: f.loc["marketCap", "sum"] > 0),
    "group-flat": ("group_current", lambda f: f.loc["marketCap", "sum"] > 0),
    "quarter-compact": ("aggregate_quarter", lambda f: _labels(f)[0] == "2021Q2"),
    "quarter-words": ("aggregate_quarter", lambda f: _labels(f)[0] == "Q2 2021"),
    "month-date": ("aggregate_month", lambda f: _labels(f)[0] == "2024-01-01"),
    "threshold-3": (
        "aggregate_month",
        lambda f: (
            f.attrs["methodology"]["small_n_threshold"] == 3
            and (f["n"].between(3, 4) & f["median"].notna()).any()
        ),
    ),
    "small-n-omitted": (
        "aggregate_month",
        lambda f: f.attrs["deals_left_out"] > 0 and not (f["warning"] == "small_n").any(),
    ),
    "errors-detail": ("deals", lambda f: True),  # see the error tests
    "errors-list": ("deals", lambda f: True),
    "limit-100": ("deals", lambda f: f.attrs["page_size"] == 100 and f.attrs["requests"] == 25),
    "limit-500": ("deals", lambda f: f.attrs["page_size"] == 500 and f.attrs["requests"] == 5),
    "resolve-100-400": ("resolve_companies", lambda r: r.matches.attrs["batch_size"] <= 100),
    "resolve-100-413": ("resolve_companies", lambda r: r.matches.attrs["batch_size"] <= 100),
    "timestamps-z": ("deals", lambda f: str(f["updated_at"].dt.tz) == "UTC"),
    "timestamps-offset": ("deals", lambda f: str(f["updated_at"].dt.tz) == "UTC"),
    "extra-fields": ("current", lambda f: f["netDebt"].notna().any()),
    "legacy-subresources": ("sellside", lambda f: f.attrs["endpoint"].endswith("/acquisitions")),
}


def test_the_profile_was_served(served: Served) -> None:
    name, shows = SERVED[served.profile]
    got, _ = served.call(name)
    assert shows(got), f"{served.profile}: {name} does not show the profile"


def test_every_reference_frame_has_rows(reference: Served) -> None:
    empty = [name for name in CALLS for f in _frames(reference.call(name)[0])[:1] if f.empty]
    assert not empty


# ---------------------------------------------------------------------------- page-from-0

#: The list calls of a service counting ``page`` from 0: each asks its first page without
#: ``page``, which the service answers with its first page, however it counts. A walk of
#: several pages (``deals``) settles how pages count by its second page, asked as
#: ``page: 1``, and says so; a call within one page settles nothing (nor needs to).
FROM_0 = ["companies", "investors", "deals", "changefeed", "companies_by_id", "deals_by_id"]
SEVERAL_PAGES = {"deals"}


@pytest.fixture(scope="module")
def from_0() -> Any:
    with run(scale=SCALE, seed=SEED, profile="page-from-0") as sb:
        yield sb


@pytest.mark.parametrize("name", FROM_0)
def test_under_page_from_0_a_list_reads_every_row_and_a_walk_settles_it(
    from_0: Any, reference: Served, name: str
) -> None:
    with dealframe.Client.for_sandbox(from_0, progress=False, cache_enabled=False) as client:
        got, warned = Served("page-from-0", client, reference.ids).call(name)
        want, want_warned = reference.call(name)
        _compare("page-from-0", name, got, want)
        assert warned == want_warned
        several = name in SEVERAL_PAGES
        said = got.attrs.get("page_from_0") or ""
        assert ("the service counts page from 0" in said) == several, said
        assert client.private._first_page == (0 if several else 1)
        capped = CALLS["deals_filtered"](client, reference.ids)  # within a page: right anyway
        _compare("page-from-0", "deals_filtered", capped, reference.call("deals_filtered")[0])
        assert "page_from_0" not in capped.attrs


# ---------------------------------------------------------------------------- error paths

#: Calls the service refuses (the client cannot know before sending), with the typed error
#: and the words its message must hold under every error-body profile.
FAILING: dict[str, tuple[Callable[[dealframe.Client, str], Any], type, tuple[str, ...]]] = {
    "page_out_of_range": (
        lambda c, i: c.private.page("companies", page=10**10),
        BadRequestError,
        ("page", "1000000000"),
    ),
    "window_before_year_1": (
        lambda c, i: c.private.aggregate("ev_revenue", "year", date_to="0003-01-01"),
        BadRequestError,
        ("filters.date_to", "date_from"),
    ),
    "unknown_company": (lambda c, i: c.private.company(NO_SUCH_ID), NotFoundError, ("not found",)),
    "unknown_sub_collection": (
        lambda c, i: c.private.fundings(NO_SUCH_ID),
        NotFoundError,
        ("not found",),
    ),
    "soft_deleted_company": (lambda c, i: c.private.company(i), NotFoundError, ("deleted",)),
}


@pytest.fixture(scope="module", params=["default", "errors-detail", "errors-list"])
def erring(request: pytest.FixtureRequest) -> Any:
    with (
        run(scale=0.02, seed=SEED, profile=request.param) as sb,
        dealframe.Client.for_sandbox(sb, progress=False, retries=0) as client,
    ):
        deleted = next(o["id"] for o in sb.state.dataset.orgs if o["deleted"] and o["_company"])
        yield request.param, client, deleted


@pytest.mark.parametrize("case", list(FAILING))
def test_errors_are_the_same_typed_error_with_a_readable_message(erring: Any, case: str) -> None:
    profile, client, deleted = erring
    call, kind, words = FAILING[case]
    with pytest.raises(kind) as caught:
        call(client, deleted)
    text = str(caught.value)
    assert all(w.lower() in text.lower() for w in words), text
    assert "{" not in text, f"{profile}: a body pasted into the message: {text}"
    if kind is BadRequestError:  # errors-detail: {"detail": one string}, one problem listed
        assert caught.value.errors, f"{profile}: the problems are not listed in .errors"
        assert text.count(caught.value.errors[0]) == 1, f"{profile}: said twice: {text}"


def test_a_soft_deleted_entity_is_told_from_an_unknown_id_under_every_error_body(
    erring: Any,
) -> None:
    """``NotFoundError.deleted`` reads ``details.deleted`` or, where the body has no details,
    the service's words."""
    profile, client, deleted = erring
    with pytest.raises(NotFoundError) as gone:
        client.private.company(deleted)
    with pytest.raises(NotFoundError) as unknown:
        client.private.company(NO_SUCH_ID)
    assert gone.value.deleted is True, f"{profile}: {gone.value}"
    assert unknown.value.deleted is False, f"{profile}: {unknown.value}"


def test_time_series_fields_beyond_the_sandboxs_are_sent_as_given(reference: Served) -> None:
    """The document names time-series fields by example only: the client sends any name, and
    the service decides (issue 14: ``ruleOf40`` and ``ebitdaLtm`` were refused before sending)."""
    skus = reference.ids.skus[:3]
    with pytest.raises(BadRequestError, match="ruleOf40"):  # the default sandbox has no such field
        reference.client.public.time_series(skus, fields=["ruleOf40"])
    parts = reference.client.public.time_series(
        skus, fields=["revenueLtm", "marginEbitdaLtm"], date_from="2024-01"
    )
    with (
        run(scale=SCALE, seed=SEED, profile="extra-fields") as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as client,
    ):
        got = client.public.time_series(skus, fields=["ebitdaLtm"], date_from="2024-01")
        group = client.public.group_time_series(
            regions=[reference.ids.region],
            fields=["ruleOf40", "ebitdaLtm"],
            date_from="2024-01",
            date_to="2024-03",
        )
    want = (parts["revenueLtm"] * parts["marginEbitdaLtm"] / 100).round(4)
    assert list(dict.fromkeys(got.columns.get_level_values(0))) == ["ebitdaLtm"]
    pd.testing.assert_frame_equal(got["ebitdaLtm"], want, check_names=False)
    assert list(group.columns) == ["ruleOf40", "ebitdaLtm"] and len(group) == 3
    assert group.notna().all().all()


# ---------------------------------------------------------------------------- broken

#: Calls whose answers the broken profile changes, and the typed outcome the client gives:
#: every answer with a timestamp (lists, deal sub-collections, profiles) is refused, naming it.
_STAMPED = (
    "companies",
    "investors",
    "deals",
    "deals_filtered",
    "changefeed",
    "companies_by_id",
    "deals_by_id",
    "page",
    "fundings",
    "sellside",
    "buyside",
    "investments",
    "fundings_many",
    "company",
    "companies_profiles",
    "investor",
    "investor_top",
    "deal",
)
BROKEN: dict[str, tuple[str, str]] = {
    **{name: ("raises", "ISO 8601 timestamps (strings), got 1") for name in _STAMPED},
    "group_current": ("raises", "an object with a 'field' member"),
    "aggregate_quarter": ("warns", "could not be read as quarters: 'bucket 1'"),
    "aggregate_month": ("warns", "could not be read as months: 'bucket 1'"),
    "aggregate_year": ("warns", "could not be read as years: 'bucket 1'"),
}


@pytest.fixture(scope="module")
def broken(reference: Served) -> Any:
    with (
        run(scale=SCALE, seed=SEED, profile="broken") as sb,
        dealframe.Client.for_sandbox(sb, progress=False, retries=0) as client,
    ):
        yield Served("broken", client, reference.ids)


@pytest.mark.parametrize("name", list(CALLS))
def test_under_broken_the_client_says_what_broke(
    broken: Served, reference: Served, name: str
) -> None:
    """Never a foreign exception or warning, never a silently different frame: the same frame,
    a ``ServiceContractWarning`` naming the endpoint, or a ``ServiceContractError``."""
    outcome, words = BROKEN.get(name, ("equal", ""))
    if outcome == "raises":
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ServiceContractError, match=re.escape(words)):
                CALLS[name](broken.client, broken.ids)
        return
    got, warned = broken.call(name)
    if outcome == "warns":
        assert [c for c, _ in warned] == [ServiceContractWarning]
        assert words in warned[0][1] and "/transactions/aggregate" in warned[0][1]
        return
    _compare("broken", name, got, reference.call(name)[0])
    assert warned == reference.call(name)[1]


def test_under_broken_a_plain_text_error_is_summarised(broken: Served) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(BadRequestError) as bad:
            broken.client.private.aggregate("ev_revenue", "year", date_to="0003-01-01")
        with pytest.raises(NotFoundError) as missing:
            broken.client.private.company(NO_SUCH_ID)
    for caught in (bad, missing):
        text = str(caught.value)
        assert "not a JSON error body" in text and "text/plain" in text and "Error 4" in text
