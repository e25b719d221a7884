"""Every frame the library returns survives the common pandas steps (issue 15).

Each frame is built from the sandbox over HTTP (or locally from such frames), then put
through: ``to_parquet`` + ``pd.read_parquet`` with default arguments (an equal frame),
``drop_duplicates``, ``nunique``, ``merge`` on every column, ``concat`` (dtypes kept),
``groupby`` on each column, pickle (an equal frame), ``to_csv`` and ``DataFrame.equals``.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe
from dealframe import Client, analytics, mirror

Build = Callable[[dict[str, Any]], pd.DataFrame]


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def seen(client: Client, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Ids and SKUs the frames are asked about, and a synced mirror."""
    deals = client.private.deals(limit=300, with_investors=True)
    people = dealframe.explode_participants(deals)
    leads = people.loc[people["role"] == "lead_investor", "participant_id"]
    skus = client.public.search().index[:12].tolist()
    skus_v1 = client.public_v1.search().index[:12].tolist()
    path = tmp_path_factory.mktemp("mirror") / "m"
    mirror.sync(client, path, progress=False)
    mirror.snapshot_public(client, path, skus=skus[:5])
    targets = deals["target_id"].dropna().unique()[:6].tolist()
    acting = people.loc[people["role"] != "investor", "participant_id"].unique().tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dealframe.MissingDataWarning)  # investors, not companies
        corporates = client.private.companies(id=acting)["id"].head(4).tolist()
    return {
        "deals": deals,
        "people": people,
        "leads": leads.unique()[:4].tolist(),
        "skus": skus,
        "skus_v1": skus_v1,
        "listed": dealframe.companies_for_skus(client, skus[:5]),
        "comparison": dealframe.compare_multiples(client, region="Western Europe"),
        "lead_names": people.loc[people["role"] == "lead_investor", "participant_name"]
        .dropna()
        .unique()[:3]
        .tolist(),
        "targets": targets,
        "mirror": path,
        "corporates": corporates,
        "ma_targets": deals.loc[deals["deal_type"] == "M&A", "target_id"].head(4).tolist(),
    }


FRAMES: dict[str, Build] = {
    # Family A
    "search": lambda s: s["client"].public.search(),
    "search_v1": lambda s: s["client"].public_v1.search(),
    "current": lambda s: s["client"].public.current(s["skus"]),
    "time_series_wide": lambda s: s["client"].public.time_series(s["skus"][:4]),
    "time_series_long": lambda s: s["client"].public.time_series(s["skus"][:4], shape="long"),
    "group_current": lambda s: s["client"].public.group_current(regions=["Western Europe"]),
    "group_time_series": lambda s: s["client"].public.group_time_series(regions=["Western Europe"]),
    "current_v1": lambda s: s["client"].public_v1.current(s["skus_v1"]),
    "time_series_v1": lambda s: s["client"].public_v1.time_series(s["skus_v1"][:4]),
    "time_series_v1_long": lambda s: s["client"].public_v1.time_series(
        s["skus_v1"][:4], shape="long"
    ),
    "group_current_v1": lambda s: s["client"].public_v1.group_current(regions=["Western Europe"]),
    "group_time_series_v1": lambda s: s["client"].public_v1.group_time_series(
        regions=["Western Europe"]
    ),
    # Family B lists, profiles, sub-collections, resolve, aggregate, discovery
    "companies": lambda s: s["client"].private.companies(limit=200),
    "investors": lambda s: s["client"].private.investors(limit=200),
    "deals": lambda s: s["client"].private.deals(limit=300),
    "deals_with_investors": lambda s: s["deals"],
    "page": lambda s: s["client"].private.page("transactions", limit=50),
    "company": lambda s: s["client"].private.company(s["targets"]),
    "investor": lambda s: s["client"].private.investor(s["leads"]),
    "investor_top": lambda s: s["client"].private.investor_top(s["leads"], "verticals"),
    "deal": lambda s: s["client"].private.deal(s["deals"]["id"].head(5).tolist()),
    "fundings": lambda s: s["client"].private.fundings(s["targets"]),
    "sellside": lambda s: s["client"].private.sellside(s["ma_targets"]),
    "buyside": lambda s: s["client"].private.buyside(s["corporates"]),
    "company_investors": lambda s: s["client"].private.company_investors(s["targets"]),
    "investments": lambda s: s["client"].private.investments(s["leads"]),
    "co_investors": lambda s: s["client"].private.co_investors(s["leads"]),
    "portfolio": lambda s: s["client"].private.portfolio(s["leads"]),
    "resolve_matches": lambda s: (
        s["client"]
        .private.resolve_companies(
            [*s["deals"]["target_name"].head(3).tolist(), "Labs", "nothing like it"]
        )
        .matches
    ),
    "resolve_candidates": lambda s: (
        s["client"].private.resolve_companies(["Labs", "Capital"]).candidates
    ),
    "resolve_investors_matches": lambda s: (
        s["client"].private.resolve_investors([*s["lead_names"], "nothing like it"]).matches
    ),
    "resolve_investors_candidates": lambda s: (
        s["client"].private.resolve_investors(["Capital", "Partners"]).candidates
    ),
    "investor_top_countries": lambda s: s["client"].private.investor_top(s["leads"], "countries"),
    "aggregate": lambda s: s["client"].private.aggregate("ev_revenue", "quarter"),
    "lookup": lambda s: s["client"].private.lookup("transactions"),
    # Built locally
    "explode_participants": lambda s: s["people"],
    "co_investment_edges": lambda s: dealframe.co_investment_edges(s["people"]),
    "bucket_medians": lambda s: analytics.bucket_medians(
        s["deals"], "ev_revenue", "year", date_to=s["deals"]["deal_date"].max()
    ),
    "bucket_medians_explain": lambda s: analytics.bucket_medians(
        s["deals"], "ev_revenue", "year", date_to=s["deals"]["deal_date"].max(), explain=True
    ),
    "bucket_medians_ci": lambda s: analytics.bucket_medians(
        s["deals"],
        "ev_revenue",
        "year",
        date_to=s["deals"]["deal_date"].max(),
        ci=0.9,
        ci_resamples=199,
        rng=1,
    ),
    "rollup_group_current": lambda s: analytics.group_current(
        s["client"].public.current(s["skus"])
    ),
    "rollup_group_time_series": lambda s: analytics.group_time_series(
        s["client"].public.time_series(s["skus"][:4])
    ),
    "reconcile": lambda s: analytics.reconcile(s["client"], "ev_revenue", "year").frame,
    "compare_buckets": lambda s: analytics.compare_buckets(
        s["client"].private.aggregate("ev_revenue", "year"),
        analytics.bucket_medians(
            s["client"].private.deals(), "ev_revenue", "year", client=s["client"]
        ),
    ),
    # The public <-> private link and currencies
    "companies_for_skus": lambda s: s["listed"],
    "skus_for_companies": lambda s: dealframe.skus_for_companies(
        s["client"], s["listed"]["company_id"].dropna().tolist()
    ),
    "compare_summary": lambda s: s["comparison"].summary,
    "compare_deals": lambda s: s["comparison"].deals,
    "compare_comps": lambda s: s["comparison"].comps,
    "to_usd": lambda s: dealframe.to_usd(s["client"].public.current(s["skus"])),
    "to_local": lambda s: dealframe.to_local(
        dealframe.to_usd(s["client"].public.current(s["skus"]))
    ),
    "mirror_deals": lambda s: mirror.load(s["mirror"], "deals"),
    "mirror_companies": lambda s: mirror.load(s["mirror"], "companies"),
    "mirror_status": lambda s: mirror.status(s["mirror"]),
    "mirror_history": lambda s: mirror.history(s["mirror"]),
    "mirror_public_current": lambda s: mirror.load_public(s["mirror"], "current"),
    "mirror_public_on": lambda s: mirror.load_public(
        s["mirror"], "current", on=pd.Timestamp.now(tz="UTC").date()
    ),
    "mirror_public_series": lambda s: mirror.load_public(s["mirror"], "time_series"),
}


@pytest.fixture(scope="module")
def frames(client: Client, seen: dict[str, Any]) -> Callable[[str], pd.DataFrame]:
    state = {**seen, "client": client}

    def build(name: str) -> pd.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dealframe.MissingDataWarning)
            return FRAMES[name](state)

    return build


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns as one level and the index as columns: what merge and groupby take."""
    out = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame
    if isinstance(out.columns, pd.MultiIndex):
        out = out.set_axis(["|".join(map(str, c)) for c in out.columns], axis=1)
    return out


@pytest.mark.parametrize("name", list(FRAMES))
def test_every_pandas_step(
    frames: Callable[[str], pd.DataFrame], name: str, tmp_path: Path
) -> None:
    frame = frames(name)
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0, name
    # Parquet with default arguments: an equal frame
    frame.to_parquet(tmp_path / "f.parquet")
    back = pd.read_parquet(tmp_path / "f.parquet")
    pd.testing.assert_frame_equal(back, frame)
    # pickle, equals, CSV
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(frame)), frame)
    assert frame.equals(frame.copy(deep=True))
    assert frame.to_csv().count("\n") >= len(frame)
    # hashing steps over every column
    flat = _flat(frame)
    unique = flat.drop_duplicates()
    assert len(unique) <= len(flat)
    counts = flat.nunique(dropna=False)
    assert (counts >= 1).all() and (counts <= len(flat)).all()
    merged = unique.merge(unique, on=list(unique.columns), how="inner")
    assert len(merged) >= len(unique)
    for column in flat.columns:
        sizes = flat.groupby(column, dropna=False, observed=True, sort=False).size()
        assert sizes.sum() == len(flat), column
    stacked = pd.concat([frame, frame])
    assert len(stacked) == 2 * len(frame)
    assert list(stacked.dtypes) == list(frame.dtypes)
