"""Every frame the library returns is typed the same way for 0, 1 or N rows, over HTTP.

The product promise (README, docs/frames.md): tidy, correctly typed DataFrames, the same
columns and dtypes whether a call returns 0, 1 or N rows, and no ``object`` dtype (nor in the
index, its levels, or a Series result). Each case below calls one public function or method
against the session sandbox three ways where its arguments allow it: a normal call (N rows),
one selecting a single row and one selecting none (a filter nobody matches, an empty input
frame). A case fails naming the function and every column that is ``object`` or whose dtype
(or presence) differs between the calls, and every ``attrs`` key present in one call and
missing in another. ``test_every_frame_function_is_swept`` walks the packages' ``__all__`` and
the client APIs so that a new frame-returning function cannot go unswept.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe
import dealframe.analytics as analytics
import dealframe.frames as frames
import dealframe.mirror as mirror
from dealframe.client import Client
from dealframe.plot import shaping
from dealframe.private.api import PrivateApi
from dealframe.public.api import PublicApi
from dealframe.report import tables

NOBODY = "00000000-0000-4000-8000-000000000000"  # a well-formed id no record has
NO_NAME = "zzqx-no-such-name"
NO_EV = 1e12  # an enterprise value above every company's
OLD = ("2001-01", "2001-02")  # months before every series
Calls = dict[str, Callable[[], Any]]


class World:
    """The client and the inputs the cases share, each pulled once and only when used."""

    def __init__(self, client: Client, folder: Path) -> None:
        self.c, self.folder = client, folder
        self.P, self.U, self.V1 = client.private, client.public, client.public_v1

    @cached_property
    def deals(self) -> pd.DataFrame:
        return self.P.deals(limit=300)

    @cached_property
    def companies(self) -> pd.DataFrame:
        return self.P.companies(limit=50)

    @cached_property
    def investors(self) -> pd.DataFrame:
        return self.P.investors(limit=20)

    @cached_property
    def exploded(self) -> pd.DataFrame:
        return dealframe.explode_participants(self.deals, roles=["lead_investor", "buyer"])

    def busiest(self, role: str) -> str:
        rows = self.exploded[self.exploded["role"] == role]
        return str(rows["participant_id"].value_counts().index[0])

    @cached_property
    def funded(self) -> str:  # a company with funding rounds (and investors)
        return str(self.deals.loc[self.deals["deal_type"] != "M&A", "target_id"].iloc[0])

    @cached_property
    def acquired(self) -> str:  # a company sold in an M&A deal
        return str(self.deals.loc[self.deals["deal_type"] == "M&A", "target_id"].iloc[0])

    @cached_property
    def skus(self) -> list[str]:
        return list(self.U.search().index[:5])

    @cached_property
    def v1_skus(self) -> list[str]:
        return list(self.V1.search().index[:5])

    @cached_property
    def region(self) -> str:
        return str(self.U.search()["region"].value_counts().index[0])

    @cached_property
    def current(self) -> pd.DataFrame:
        return self.U.current(self.skus)

    @cached_property
    def wide(self) -> pd.DataFrame:
        return self.U.time_series(self.skus[:3])

    @cached_property
    def service(self) -> pd.DataFrame:
        return self.P.aggregate("ev_revenue", "quarter")

    def ambiguous(self, kind: str) -> str:
        """The first word most names of ``kind`` share: a name with several candidates."""
        listed = getattr(self.P, kind)(limit=500)
        return str(listed["name"].str.split().str[0].value_counts().index[0])

    @cached_property
    def mirrored(self) -> tuple[Path, mirror.SyncReport]:
        path = self.folder / "mirror"
        report = mirror.sync(self.c, path, page_size=1000)
        mirror.snapshot_public(self.c, path, skus=self.skus[:2])
        return path, report

    @cached_property
    def comparison(self) -> dealframe.Comparison:
        return dealframe.compare_multiples(self.c, region=self.region)

    @cached_property
    def no_comparison(self) -> dealframe.Comparison:  # a day with no deal
        return dealframe.compare_multiples(
            self.c, region="Oceania", date_from="2026-06-01", date_to="2026-06-02"
        )


def three(
    n: Callable[[], Any], one: Callable[[], Any] | None, zero: Callable[[], Any] | None
) -> Calls:
    """The N-row call and, where the arguments can select them, the 1-row and 0-row ones."""
    given = {"N": n, "1": one, "0": zero}
    return {label: call for label, call in given.items() if call is not None}


def heads(call: Callable[[Any], Any], frame: Any) -> Calls:
    """:func:`three` of ``call`` over ``frame``, its first row and none of its rows."""
    return three(lambda: call(frame), lambda: call(frame.head(1)), lambda: call(frame.head(0)))


def _private(w: World) -> dict[str, Calls]:
    P, deal, deals = w.P, w.deals["id"].iloc[0], list(w.deals["id"][:5])
    cid, cids = w.companies["id"].iloc[0], list(w.companies["id"][:3])
    iid, iids = w.investors["id"].iloc[0], list(w.investors["id"][:3])
    lead, buyer = w.busiest("lead_investor"), w.busiest("buyer")
    names = [*w.companies["name"][:2], NO_NAME]
    cases = {
        "private.companies": three(
            lambda: P.companies(limit=20),
            lambda: P.companies(id=[cid]),
            lambda: P.companies(name=NO_NAME),
        ),
        "private.investors": three(
            lambda: P.investors(limit=20),
            lambda: P.investors(id=[iid]),
            lambda: P.investors(name=NO_NAME),
        ),
        "private.deals": three(
            lambda: P.deals(limit=20, include_deleted=True),
            lambda: P.deals(id=[deal], include_deleted=True),
            lambda: P.deals(target_id=[NOBODY], include_deleted=True),
        ),
        "private.deals(with_investors)": three(
            lambda: P.deals(id=deals, with_investors=True),
            lambda: P.deals(id=[deal], with_investors=True),
            lambda: P.deals(target_id=[NOBODY], with_investors=True),
        ),
        "private.company": three(
            lambda: P.company(cids), lambda: P.company(cid), lambda: P.company([])
        ),
        "private.investor": three(
            lambda: P.investor(iids), lambda: P.investor(iid), lambda: P.investor([])
        ),
        "private.deal": three(lambda: P.deal(deals[:3]), lambda: P.deal(deal), lambda: P.deal([])),
        "private.aggregate": three(
            lambda: P.aggregate("ev_revenue", "quarter"),
            lambda: P.aggregate("ev_revenue", "none"),
            lambda: P.aggregate("ev_revenue", "quarter", target_id=[NOBODY]),
        ),
    }
    for entity, nothing in (
        ("companies", {"name": NO_NAME}),
        ("investors", {"name": NO_NAME}),
        ("transactions", {"target_id": [NOBODY]}),
    ):
        cases[f"private.page({entity})"] = three(
            lambda e=entity: P.page(e, limit=5),
            lambda e=entity: P.page(e, limit=1),
            lambda e=entity, f=nothing: P.page(e, f, limit=5),
        )
        cases[f"private.lookup({entity})"] = {"N": lambda e=entity: P.lookup(e)}
    for what in ("countries", "verticals"):
        cases[f"private.investor_top({what})"] = three(
            lambda x=what: P.investor_top(lead, x),
            lambda x=what: P.investor_top(iid, x),
            lambda x=what: P.investor_top([], x),
        )
    for sub, ident in (
        ("fundings", w.funded),
        ("sellside", w.acquired),
        ("buyside", buyer),
        ("company_investors", w.funded),
        ("investments", lead),
        ("co_investors", lead),
        ("portfolio", lead),
    ):
        method = getattr(P, sub)
        cases[f"private.{sub}"] = three(
            lambda m=method, i=ident: m(i),
            lambda m=method, i=ident: m(i, limit=1),
            lambda m=method: m([]),
        )
    for kind, listed in (("companies", w.companies), ("investors", w.investors)):
        resolve = getattr(P, f"resolve_{kind}")
        known = list(listed["name"][:2])
        several = [*known, w.ambiguous(kind), NO_NAME]
        for part in ("matches", "candidates"):
            cases[f"private.resolve_{kind}.{part}"] = three(
                lambda r=resolve, p=part, n=several: getattr(r(n), p),
                lambda r=resolve, p=part, n=known[:1]: getattr(r(n), p),
                lambda r=resolve, p=part: getattr(r([]), p),
            )
    cases["private.resolve_companies(best).matches"] = three(
        lambda: (
            P.resolve_companies([*names, w.ambiguous("companies")], on_ambiguous="best").matches
        ),
        lambda: P.resolve_companies(names[:1], on_ambiguous="best").matches,
        lambda: P.resolve_companies([], on_ambiguous="best").matches,
    )
    return cases


def _public(w: World) -> dict[str, Calls]:
    cases: dict[str, Calls] = {}
    # fields named: with none named, a group with no month has the columns of the fields served
    # before, else the document's (which fields the service serves as series the client learns
    # only from an answer that has some)
    fields = ["evRevenueLtm", "marketCap"]
    apis = (("public", w.U, w.skus, "ZZZQ-USA"), ("public_v1", w.V1, w.v1_skus, "NYSE_ZZZQ"))
    for label, api, skus, nobody in apis:
        cases[f"{label}.search"] = three(
            lambda a=api: a.search(),
            lambda a=api: a.search(countries=[a.search()["countryCodeIso3"].iloc[0]]).head(1),
            lambda a=api: a.search(enterprise_value_above=NO_EV),
        )
        cases[f"{label}.current"] = three(  # [] is refused before any request: a SKU nobody has
            lambda a=api, s=skus: a.current(s),
            lambda a=api, s=skus: a.current(s[:1]),
            lambda a=api, z=nobody: a.current([z]),
        )
        for shape in ("wide", "long"):
            cases[f"{label}.time_series({shape})"] = three(
                lambda a=api, s=skus, h=shape: a.time_series(s[:2], shape=h),
                lambda a=api, s=skus, h=shape: a.time_series(
                    s[:1], date_from="2025-01", date_to="2025-01", shape=h
                ),
                lambda a=api, s=skus, h=shape: a.time_series(
                    s[:2], date_from=OLD[0], date_to=OLD[1], shape=h
                ),
            )
        cases[f"{label}.group_current"] = three(
            lambda a=api: a.group_current(regions=[w.region]),
            None,
            lambda a=api: a.group_current(regions=[w.region], enterprise_value_above=NO_EV),
        )
        cases[f"{label}.group_time_series"] = three(
            lambda a=api: a.group_time_series(regions=[w.region], fields=fields),
            lambda a=api: a.group_time_series(
                regions=[w.region], fields=fields, date_from="2025-01", date_to="2025-01"
            ),
            lambda a=api: a.group_time_series(
                regions=[w.region], fields=fields, enterprise_value_above=NO_EV
            ),
        )
    return cases


def _helpers(w: World) -> dict[str, Calls]:
    d, ex, cur = w.deals, w.exploded, w.current
    sold = d[d["deal_type"] == "M&A"]
    public_ids = list(dealframe.companies_for_skus(w.c, w.skus)["company_id"].dropna()[:3])
    return {
        "explode_participants": three(
            lambda: ex,
            lambda: dealframe.explode_participants(sold.head(1)),
            lambda: dealframe.explode_participants(d.head(0)),
        ),
        "co_investment_edges": three(
            lambda: dealframe.co_investment_edges(ex),
            lambda: dealframe.co_investment_edges(ex).head(1),
            lambda: dealframe.co_investment_edges(ex.head(0)),
        ),
        "contains_any": heads(lambda f: dealframe.contains_any(f, ["x"]), d["buyers"]),
        "to_usd": heads(dealframe.to_usd, cur),
        "to_local": heads(dealframe.to_local, cur),
        "companies_for_skus": three(
            lambda: dealframe.companies_for_skus(w.c, w.skus),
            lambda: dealframe.companies_for_skus(w.c, w.skus[:1]),
            lambda: dealframe.companies_for_skus(w.c, []),
        ),
        "skus_for_companies": three(
            lambda: dealframe.skus_for_companies(w.c, public_ids),
            lambda: dealframe.skus_for_companies(w.c, public_ids[:1]),
            lambda: dealframe.skus_for_companies(w.c, []),
        ),
    }


def _analytics(w: World) -> dict[str, Calls]:
    d, c, cur, wide, svc = w.deals, w.c, w.current, w.wide, w.service
    one = d[d["ev_revenue"].notna()].tail(1)
    local = analytics.bucket_medians(d, "ev_revenue", client=c)
    conv = analytics.DEFAULT_CONVENTIONS
    cases = {
        "analytics.bucket_medians": three(
            lambda: local,
            lambda: analytics.bucket_medians(d, "ev_revenue", "none", client=c),
            lambda: analytics.bucket_medians(d.head(0), "ev_revenue", client=c),
        ),
        "analytics.bucket_medians(explain)": three(
            lambda: analytics.bucket_medians(d, "ev_revenue", explain=True, client=c),
            lambda: analytics.bucket_medians(one, "ev_revenue", explain=True, client=c),
            lambda: analytics.bucket_medians(d.head(0), "ev_revenue", explain=True, client=c),
        ),
        "analytics.group_current": heads(analytics.group_current, cur),
        "analytics.group_current(by)": heads(lambda f: analytics.group_current(f, "country"), cur),
        "analytics.group_time_series": heads(
            lambda f: analytics.group_time_series(f, counts=True), wide
        ),
        "analytics.compare_buckets": three(
            lambda: analytics.compare_buckets(svc, local),
            lambda: analytics.compare_buckets(svc.head(1), local.head(1)),
            lambda: analytics.compare_buckets(svc.head(0), local.head(0)),
        ),
        "analytics.reconcile.frame": three(
            lambda: analytics.reconcile(c, "ev_revenue", "quarter").frame,
            lambda: analytics.reconcile(c, "ev_revenue", "none").frame,
            lambda: analytics.reconcile(c, "ev_revenue", "quarter", {"target_id": [NOBODY]}).frame,
        ),
        "analytics.reconcile_frames.frame": three(
            lambda: analytics.reconcile_frames(svc, d, "ev_revenue").frame,
            None,
            lambda: analytics.reconcile_frames(svc.head(0), d.head(0), "ev_revenue").frame,
        ),
        "analytics.calibrate": three(  # the default conventions only: each variant pulls
            lambda: analytics.calibrate(c, "ev_revenue", "year", variants=[conv]),
            lambda: analytics.calibrate(c, "ev_revenue", "none", variants=[conv]),
            lambda: analytics.calibrate(
                c, "ev_revenue", "year", {"target_id": [NOBODY]}, variants=[conv]
            ),
        ),
    }
    for i, part in enumerate(("current", "time_series")):
        cases[f"analytics.reconcile_groups.{part}.frame"] = three(
            lambda i=i: analytics.reconcile_groups(c, regions=[w.region])[i].frame,
            lambda i=i: (
                analytics.reconcile_groups(
                    c,
                    regions=[w.region],
                    fields=["evRevenueLtm"],
                    date_from="2025-01",
                    date_to="2025-01",
                )[i].frame
            ),
            lambda i=i: (
                analytics.reconcile_groups(c, regions=[w.region], enterprise_value_above=NO_EV)[
                    i
                ].frame
            ),
        )
    for part in ("summary", "deals", "comps"):
        cases[f"compare_multiples.{part}"] = three(
            lambda p=part: getattr(w.comparison, p),
            None,
            lambda p=part: getattr(w.no_comparison, p),
        )
    return cases


def _shaping_and_tables(w: World) -> dict[str, Calls]:
    d, cur, svc = w.deals, w.current, w.service
    rows = shaping.participant_rows(d)
    co = w.P.co_investors(w.busiest("lead_investor"))
    return {
        "plot.shaping.quarterly_activity": heads(shaping.quarterly_activity, d),
        "plot.shaping.participant_rows": three(
            lambda: rows,
            lambda: shaping.participant_rows(d.head(1)),
            lambda: shaping.participant_rows(d.head(0)),
        ),
        "plot.shaping.participant_names": heads(shaping.participant_names, rows),
        "plot.shaping.investor_activity": three(
            lambda: shaping.investor_activity(rows),
            lambda: shaping.investor_activity(rows, 1),
            lambda: shaping.investor_activity(rows.head(0)),
        ),
        "plot.shaping.co_investment_pairs": heads(shaping.co_investment_pairs, co),
        "plot.shaping.multiple_status": heads(
            lambda f: shaping.multiple_status(f, "evRevenueNtm"), cur
        ),
        "plot.shaping.meaningful": heads(lambda f: shaping.meaningful(f, "evRevenueNtm"), cur),
        "plot.shaping.trimmed_multiples": three(
            lambda: shaping.trimmed_multiples(d, "ev_revenue"),
            None,
            lambda: shaping.trimmed_multiples(d.head(0), "ev_revenue"),
        ),
        "report.comps_table": heads(tables.comps_table, cur),
        "report.comps_summary": heads(tables.comps_summary, cur),
        "report.rollup_table": three(
            lambda: tables.rollup_table(w.U.group_current(regions=[w.region])),
            None,
            lambda: tables.rollup_table(None),
        ),
        "report.reconciliation_table": three(
            lambda: tables.reconciliation_table(svc, d, "ev_revenue"),
            None,
            lambda: tables.reconciliation_table(svc.head(0), d.head(0), "ev_revenue"),
        ),
        "report.quarterly_medians_table": three(
            lambda: tables.quarterly_medians_table(svc, d, "ev_revenue", 5, 0.9),
            None,
            lambda: tables.quarterly_medians_table(svc, d.head(0), "ev_revenue", 5, 0.9),
        ),
        "report.notable_deals": three(
            lambda: tables.notable_deals(d, "2000-01-01"),
            lambda: tables.notable_deals(d, "2000-01-01", n=1),
            lambda: tables.notable_deals(d.head(0), "2000-01-01"),
        ),
        "report.multiples_comparison": three(
            lambda: tables.multiples_comparison({"all": w.comparison}),
            None,
            lambda: tables.multiples_comparison({}),
        ),
    }


def _mirror(w: World) -> dict[str, Calls]:
    path, report = w.mirrored
    cases: dict[str, Calls] = {
        "mirror.sync().frame": {
            "N": report.frame,
            "0": lambda: mirror.sync(w.c, path, page_size=1000).frame(),
        },
        "mirror.status": {"N": lambda: mirror.status(path)},
        "mirror.history": three(
            lambda: mirror.history(path), lambda: mirror.history(path, "deals").tail(1), None
        ),
        "mirror.load_public(current)": {"N": lambda: mirror.load_public(path, "current")},
        "mirror.load_public(time_series)": {"N": lambda: mirror.load_public(path, "time_series")},
    }
    for entity in mirror.ENTITIES:
        cases[f"mirror.load({entity})"] = three(
            lambda e=entity: mirror.load(path, e, include_deleted=True),
            lambda e=entity: mirror.load(path, e).head(1),
            lambda e=entity: mirror.load(path, e).head(0),
        )
    return cases


GROUPS = {
    "private": _private,
    "public": _public,
    "helpers": _helpers,
    "analytics": _analytics,
    "shaping_tables": _shaping_and_tables,
    "mirror": _mirror,
}


#: Frame-returning functions not swept here, and why.
EXEMPT = {
    "to_lists": "gives Python lists back on purpose: an object Series is its contract",
    "frames builders": "the client methods above build their frames with them",
    "report.comps_display": "the HTML page's mixed text and numbers, documented as object",
    "build_report": "its tables are report.* above, written as they are built",
    "doctor": "a Diagnosis holds checks as text, no frame",
}


#: ``attrs`` keys a frame carries for some calls only, as documented: ``missing_ids`` when
#: records were asked for by id.
CALL_ATTRS = {"missing_ids"}


def _dtypes(obj: Any) -> dict[str, str]:
    """Column (or Series) and index dtypes, by name."""
    if isinstance(obj, pd.Series):
        out = {"<values>": str(obj.dtype)}
    else:
        out = {str(name): str(dtype) for name, dtype in obj.dtypes.items()}
    index = obj.index
    levels = index.levels if isinstance(index, pd.MultiIndex) else [index]
    for name, level in zip(index.names, levels):  # a RangeIndex: int64, as its slices
        out[f"<index {name}>"] = str(level.dtype)
    return out


def _kinds(dtypes: dict[str, str]) -> dict[str, str]:
    """For a wide frame, whose columns are the data (SKUs): the dtypes, not the names."""
    return {"<columns>": ", ".join(sorted(set(dtypes.values())))}


def problems(name: str, results: dict[str, Any], wide: bool = False) -> list[str]:
    """Each object column, and each column, dtype or attrs key differing from the N call."""
    out: list[str] = []
    seen: dict[str, tuple[dict[str, str], set[str]]] = {}
    for label, obj in results.items():
        if not isinstance(obj, (pd.DataFrame, pd.Series)):
            out.append(f"{name} [{label}]: returned {type(obj).__name__}, not a frame")
            continue
        dtypes = _dtypes(obj)
        out += [
            f"{name} [{label}, {len(obj)} rows]: {col} is object"
            for col, dtype in dtypes.items()
            if dtype == "object"
        ]
        seen[label] = (_kinds(dtypes) if wide else dtypes, set(obj.attrs) - CALL_ATTRS)
    if "N" not in seen:
        return out
    ref, ref_attrs = seen["N"]
    for label, (dtypes, attrs) in seen.items():
        for col in sorted(set(ref) | set(dtypes)):
            if ref.get(col) != dtypes.get(col):
                out.append(
                    f"{name} [{label} vs N]: {col} is {dtypes.get(col, 'absent')}, "
                    f"{ref.get(col, 'absent')} with N rows"
                )
        if attrs != ref_attrs:
            out.append(
                f"{name} [{label} vs N]: attrs missing {sorted(ref_attrs - attrs)}, "
                f"extra {sorted(attrs - ref_attrs)}"
            )
    return out


@pytest.fixture(scope="module")
def world(sandbox, tmp_path_factory) -> Iterator[World]:
    with Client.for_sandbox(sandbox, progress=False) as client:
        yield World(client, tmp_path_factory.mktemp("typed"))


@pytest.mark.filterwarnings("ignore")  # warnings (a name not found ...) are not the point here
@pytest.mark.parametrize("group", list(GROUPS))
def test_every_frame_typed_for_0_1_n_rows(world: World, group: str) -> None:
    found: list[str] = []
    for name, calls in GROUPS[group](world).items():
        results: dict[str, Any] = {}
        for label, call in calls.items():
            try:
                results[label] = call()
            except Exception as exc:  # named with the call, not a bare error ending the sweep
                found.append(f"{name} [{label}]: raised {type(exc).__name__}: {exc}")
        found += problems(name, results, wide="(wide)" in name)
    assert not found, "frames not typed alike for 0, 1 and N rows:\n" + "\n".join(found)


def _returns_frames(obj: Any) -> bool:
    text = str(inspect.signature(obj).return_annotation)
    kinds = ("DataFrame", "Series", "Resolution", "Comparison", "Reconciliation", "SyncReport")
    return any(kind in text for kind in kinds)


def test_every_frame_function_is_swept(world: World) -> None:
    swept = " ".join(name for make in GROUPS.values() for name in make(world))
    exempt = " ".join(EXEMPT)
    missing = []
    for label, module in (
        ("", dealframe),
        ("analytics.", analytics),
        ("mirror.", mirror),
        ("frames.", frames),
    ):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and _returns_frames(obj):
                if label == "frames." or name in exempt:
                    continue  # the builders: the client methods' own
                if f"{label}{name}" not in swept and f"{name}" not in swept:
                    missing.append(f"{label}{name}")
    for label, cls in (("private", PrivateApi), ("public", PublicApi)):
        for name, obj in inspect.getmembers(cls, inspect.isfunction):
            if not name.startswith("_") and _returns_frames(obj):
                if f"{label}.{name}" not in swept:
                    missing.append(f"{label}.{name}")
    assert not missing, f"frame-returning functions no case sweeps: {missing}"
