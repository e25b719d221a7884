"""The public <-> private link, the one-call comparison and the currency helpers, over HTTP
against the sandbox, whose Family A universe is its listed Family B companies (issue 15)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe import Client, MissingDataWarning, ValidationError
from dealframe.frames.schemas import LINK


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def truth(sandbox: Any) -> pd.DataFrame:
    """The sandbox's own record of which company is listed under which SKUs."""
    ds = sandbox.state.dataset
    rows = [
        {
            "company_id": ds.orgs[x["org"]]["id"],
            "sku_v1": x["sku_v1"],
            "sku_v2": x["sku_v2"],
            "deleted": bool(ds.orgs[x["org"]].get("deleted")),
        }
        for x in ds.listed
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def companies(client: Client, truth: pd.DataFrame) -> pd.DataFrame:
    """Every listed company and every tenth of the others, in the service's order (each id
    costs a profile read: the unlisted ones need no more than a sample)."""
    every = client.private.companies()
    listed = every["id"].isin(truth["company_id"])
    return every[listed | (every.index % 10 == 0)].reset_index(drop=True)


def test_company_ids_to_skus(client, truth, companies):
    assert (~companies["id"].isin(truth["company_id"])).sum() > 50  # unlisted ones too
    links = dealframe.skus_for_companies(client, companies["id"])
    assert list(links.columns) == [c.name for c in LINK]
    assert links["query"].tolist() == companies["id"].tolist()
    listed = truth[~truth["deleted"]].set_index("company_id")
    matched = links[links["match"] == "matched"].set_index("company_id")
    assert set(matched.index) == set(listed.index) and len(matched) > 50
    pd.testing.assert_series_equal(
        matched["sku_v1"].sort_index(),
        listed["sku_v1"].sort_index(),
        check_dtype=False,
        check_names=False,
    )
    pd.testing.assert_series_equal(
        matched["sku_v2"].sort_index(),
        listed["sku_v2"].sort_index(),
        check_dtype=False,
        check_names=False,
    )
    assert (matched["name_score"] == 1.0).all()
    assert matched["evidence"].str.contains("listing .* on .* = Family A", regex=True).all()
    _says_whether_countries_agree(matched)
    others = links[links["match"] != "matched"]
    assert (others["match"] == "not_listed").all()
    assert others["sku_v1"].isna().all() and others["sku_v2"].isna().all()
    # the .N collisions of the v2 format are told apart by the exchange
    assert matched["sku_v2"].str.contains(r"\.\d+$", regex=True).any()


@pytest.mark.parametrize("version", ["sku_v2", "sku_v1"])
def test_skus_to_company_ids(client, truth, version):
    live = truth[~truth["deleted"]]
    links = dealframe.companies_for_skus(client, live[version])
    assert links["query"].tolist() == live[version].tolist()
    assert (links["match"] == "matched").all(), links.loc[links["match"] != "matched", "evidence"]
    assert links["company_id"].tolist() == live["company_id"].tolist()
    assert links["sku_v1"].tolist() == live["sku_v1"].tolist()
    assert links["sku_v2"].tolist() == live["sku_v2"].tolist()
    assert (links["name"] == links["public_name"]).all()
    assert links["evidence"].str.contains("resolves to").all()
    _says_whether_countries_agree(links)


def _says_whether_countries_agree(links):
    same = (links["country"] == links["public_country"]).fillna(False).to_numpy(dtype=bool)
    assert (links["evidence"].str.contains("; same country").to_numpy(dtype=bool) == same).all()
    assert not links["evidence"].str.contains("closest name taken").any()  # one match each


def test_link_unknown_and_bad_input(client, truth):
    sku = truth["sku_v2"].iloc[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dealframe.MissingDataWarning)
        links = dealframe.companies_for_skus(client, [sku, "ZZZZ-USA", sku])
    assert links["query"].tolist() == [sku, "ZZZZ-USA"]
    assert links["match"].tolist() == ["matched", "not_found"]
    assert pd.isna(links.loc[1, "company_id"]) and "unknown SKU" in links.loc[1, "evidence"]
    unknown = "00000000-0000-4000-8000-000000000000"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dealframe.MissingDataWarning)
        back = dealframe.skus_for_companies(client, unknown)
    assert back["match"].tolist() == ["not_found"]
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=r"skus\[1\]"):
        dealframe.companies_for_skus(client, [sku, "not a sku"])
    with pytest.raises(ValidationError, match="company_ids"):
        dealframe.skus_for_companies(client, ["not-a-uuid"])
    assert client.stats.snapshot()["calls"] == before  # refused before any request


def test_link_empty_input_is_an_empty_typed_frame(client, truth):
    """No ids or SKUs (the target_id column of no deals): no rows, the columns and dtypes of a
    non-empty answer, and no request."""
    none = client.private.deals(valuation_min=1e15)
    assert len(none) == 0
    some_ids = dealframe.skus_for_companies(client, truth["company_id"].head(2))
    some_skus = dealframe.companies_for_skus(client, truth["sku_v2"].head(2))
    before = client.stats.snapshot()["calls"]
    empties = {
        "target_id": dealframe.skus_for_companies(client, none["target_id"]),
        "ids []": dealframe.skus_for_companies(client, []),
        "skus []": dealframe.companies_for_skus(client, []),
        "skus iter": dealframe.companies_for_skus(client, iter(())),
    }
    assert client.stats.snapshot()["calls"] == before
    assert len(some_ids) == len(some_skus) == 2
    for name, empty in empties.items():
        assert len(empty) == 0, name
        for some in (some_ids, some_skus):
            assert empty.dtypes.to_dict() == some.dtypes.to_dict(), name
            assert list(empty.columns) == list(some.columns) == [c.name for c in LINK]
            assert empty["match"].cat.categories.tolist() == some["match"].cat.categories.tolist()


def _trimmed(values: np.ndarray) -> tuple[int, float, float, float]:
    """The aggregate's rule, written out: n before trimming, IQR 1.5 bounds, stats of the kept."""
    values = values[~np.isnan(values)]
    q1, q3 = np.quantile(values, [0.25, 0.75])
    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    kept = values[(values >= low) & (values <= high)]
    return len(values), float(np.median(kept)), *map(float, np.quantile(kept, [0.25, 0.75]))


def test_compare_multiples_private_side_is_the_services_aggregate(client, truth):
    """With meaningful_only=False, the service's rule over every value: the private side is
    the cohort's transactions/aggregate (the default leaves NM multiples out, see
    test_compare_meaningful.py)."""
    cmp = dealframe.compare_multiples(
        client, region="North America", date_from="2022-01-01", meaningful_only=False
    )
    summary = cmp.summary
    assert list(summary.index) == ["ev_revenue", "ev_ebitda"]
    assert summary.attrs["date_from"] == "2022-01-01" and summary.attrs["deals"] == len(cmp.deals)
    for metric in summary.index:
        service = client.private.aggregate(
            metric, "none", date_from="2022-01-01", target_region=["North America"]
        )
        row = summary.loc[metric]
        assert row["private_n"] == service.loc[0, "n"]
        for k in ("median", "q1", "q3"):
            assert row[f"private_{k}"] == pytest.approx(service.loc[0, k], rel=1e-12)
        field = row["public_field"]
        n, median, q1, q3 = _trimmed(cmp.comps[field].to_numpy(dtype=float, na_value=np.nan))
        assert (
            row["public_n"],
            row["public_median"],
            row["public_q1"],
            row["public_q3"],
        ) == pytest.approx((n, median, q1, q3), rel=1e-12)
        assert row["private_to_public"] == pytest.approx(
            row["private_median"] / row["public_median"]
        )
    # the comps are the cohort's listed companies, linked back to Family B
    assert set(cmp.comps["countryCodeIso3"]) <= {"USA", "CAN", "MEX"} and len(cmp.comps) > 5
    listed = truth.set_index("sku_v2")["company_id"]
    assert cmp.comps["company_id"].tolist() == listed.reindex(cmp.comps.index).tolist()
    assert (cmp.comps["match"] == "matched").all()


def _period_values(client, skus, first, last):
    """Per SKU (those with a value) and field: the median and the count of its monthly values
    between the months ``first`` and ``last``, from the wide time series, by plain pandas."""
    fields = ["evRevenueLtm", "evEbitdaLtm"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dealframe.MissingDataWarning)
        wide = client.public.time_series(list(skus), fields=fields, date_from=first, date_to=last)
    out = {}
    for field in fields:
        months = wide[field]  # months x SKUs
        assert months.index.min() >= pd.Period(first, "M") and months.index.max() <= pd.Period(
            last, "M"
        )
        out[field] = months.median()  # NaN-skipping, per SKU column
        out[f"{field}_months"] = months.notna().sum()
    frame = pd.DataFrame(out)
    with_data = (frame["evRevenueLtm_months"] > 0) | (frame["evEbitdaLtm_months"] > 0)
    return frame[with_data]


def test_compare_multiples_public_side_is_the_period(client):
    """The public side of a period is its comps' values in the period's months (issue 15):
    two periods differ, each equals its time series computed here, and a company without a
    value in the period is no comp."""
    found = client.public.search(regions=["North America"])
    periods = {
        # a period starting mid-month reads that month whole
        "old": ("2018-01-15", "2019-12-31", "2018-01", "2019-12"),
        "new": ("2025-01-01", "2026-06-30", "2025-01", "2026-06"),
    }
    got = {}
    for key, (date_from, date_to, first, last) in periods.items():
        cmp = dealframe.compare_multiples(
            client,
            region="North America",
            date_from=date_from,
            date_to=date_to,
            link=False,
            meaningful_only=False,  # every value: the period's values exactly
        )
        expected = _period_values(client, found.index, first, last)
        assert sorted(cmp.comps.index) == sorted(expected.index) and len(expected) > 5
        comps = cmp.comps.loc[expected.index]
        for column in expected.columns:
            np.testing.assert_allclose(
                comps[column].to_numpy(dtype=float, na_value=np.nan),
                expected[column].to_numpy(dtype=float),
                rtol=1e-12,
                err_msg=f"{key} {column}",
            )
        for metric, field in dealframe.comparison.PAIRS.items():
            n, median, q1, q3 = _trimmed(expected[field].to_numpy(dtype=float))
            row = cmp.summary.loc[metric]
            assert (row["public_n"], row["public_median"], row["public_q1"], row["public_q3"]) == (
                pytest.approx((n, median, q1, q3), rel=1e-12)
            )
        got[key] = cmp
    old, new = got["old"], got["new"]
    # companies listed after 2019 have no value then: no comps of the old period
    assert set(old.comps.index) < set(new.comps.index) <= set(found.index)
    assert old.summary.attrs["comps"] == len(old.comps) < len(found)
    assert (old.comps["evRevenueLtm_months"] <= 24).all()
    assert (old.comps["evRevenueLtm_months"] == 24).any()  # January 2018 counted
    for metric in ("ev_revenue", "ev_ebitda"):
        assert old.summary.loc[metric, "public_median"] != new.summary.loc[metric, "public_median"]
        assert old.summary.loc[metric, "public_n"] < new.summary.loc[metric, "public_n"]


def test_compare_multiples_arguments(client):
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=r"invalid region\[0\]: .*'Western Europe'\?"):
        dealframe.compare_multiples(client, region="Westen Europe")  # not target_region
    with pytest.raises(ValidationError, match=r"invalid region\[1\]: .*'Western Europe'\?"):
        dealframe.compare_multiples(client, region=["Oceania", "Westen Europe"])
    with pytest.raises(ValidationError, match="region"):
        dealframe.compare_multiples(client, region="Westeros")
    with pytest.raises(ValidationError, match="vertical"):
        dealframe.compare_multiples(client, vertical=[3])
    with pytest.raises(ValidationError, match="date_from"):
        dealframe.compare_multiples(client, date_from="2024-05-01", date_to="2023-01-01")
    with pytest.raises(ValidationError, match="date_from"):
        dealframe.compare_multiples(client, date_from="x")
    with pytest.raises(ValidationError, match="client"):
        dealframe.compare_multiples(None)
    assert client.stats.snapshot()["calls"] == before  # refused before any request
    with pytest.raises(ValidationError, match=r"invalid deal_type: .*'Venture'\?"):
        dealframe.compare_multiples(client, deal_type="Ventre")  # its values: discovery's
    verticals = {v for cell in client.public.search()["verticals"] for v in json.loads(cell)}
    real = max(sorted(verticals), key=len)
    for typo in (real.lower(), real[:-1]):  # wrong case, a letter short
        with pytest.raises(ValidationError, match=rf"invalid vertical\[0\]: .*{real!r}\?"):
            dealframe.compare_multiples(client, vertical=typo)
    # as alike as the search's own warning finds it (0.77 by difflib): refused, not an empty
    # comparison with warnings naming filters the user never passed
    assert "Fintech" in verticals
    with pytest.raises(ValidationError, match=r"invalid vertical\[0\]: .*'Fintech'\?"):
        dealframe.compare_multiples(client, vertical="Fintek")
    with pytest.warns(MissingDataWarning, match="no company carries 'No such vertical'"):
        none = dealframe.compare_multiples(
            client, region="Oceania", vertical="No such vertical", link=False
        )
    assert len(none.deals) == 0 and len(none.comps) == 0
    # no comps: the columns and dtypes of comps that exist, link columns included
    with pytest.warns(MissingDataWarning):
        empty = dealframe.compare_multiples(client, region="Oceania", vertical="No such vertical")
    some = dealframe.compare_multiples(client, region="North America", date_from="2022-01-01")
    assert len(empty.comps) == 0 < len(some.comps)
    assert empty.comps.dtypes.to_dict() == some.comps.dtypes.to_dict()
    assert empty.comps.index.name == some.comps.index.name == "sku"
    assert none.summary["private_n"].tolist() == [0, 0]
    assert none.summary["private_median"].isna().all()


def test_currency_helpers_follow_rate_to_usd(client, truth):
    current = client.public.current(truth["sku_v2"].head(40))
    usd = dealframe.to_usd(current)
    for field in ("marketCap", "enterpriseValue", "revenueLtm", "ebitdaNtm"):
        both = current[field].notna() & usd[field].notna()
        assert both.sum() > 10
        np.testing.assert_allclose(
            usd.loc[both, field], current.loc[both, field], rtol=1e-3, atol=1e-3
        )
    local = dealframe.to_local(current)
    lcu = [c for c in local.columns if c.endswith("Lcu")]
    assert len(lcu) == 6
    for name in lcu:
        both = current[name].notna() & local[name].notna()
        np.testing.assert_allclose(
            local.loc[both, name], current.loc[both, name], rtol=1e-3, atol=1e-3
        )
    round_trip = dealframe.to_usd(dealframe.to_local(current))
    np.testing.assert_allclose(round_trip["marketCap"], current["marketCap"], rtol=1e-12)
    assert (current["currency"] != "USD").any()  # real conversions, not only rates of 1
    with pytest.raises(ValidationError, match="rateToUsd") as no_rate:
        dealframe.to_usd(current.drop(columns="rateToUsd"))
    assert no_rate.value.argument == "frame"  # the frame lacks it: no rate= was passed
    renamed = current.rename(columns={"rateToUsd": "fx"})
    assert dealframe.to_usd(renamed, rate="fx")["marketCap"].notna().any()
    with pytest.raises(ValidationError, match="fields"):
        dealframe.to_local(current, ["marketCap", "nope"])
    # only what is in the other currency converts: no number comes out converted twice
    for fn, field in (
        (dealframe.to_usd, "marketCap"),  # already USD
        (dealframe.to_usd, "evRevenueLtm"),  # a ratio
        (dealframe.to_local, "marketCapLcu"),
        (dealframe.to_local, "evRevenueLtm"),
        (dealframe.to_local, "rateToUsd"),
    ):
        with pytest.raises(ValidationError, match="invalid fields"):
            fn(current, field)
    with pytest.raises(ValidationError, match="invalid fields"):
        dealframe.to_usd(current, [])
    with pytest.raises(ValidationError, match="local-currency columns"):
        dealframe.to_usd(current[["name", "rateToUsd"]])  # nothing to convert
    with pytest.raises(ValidationError, match="unique names"):
        dealframe.to_usd(pd.concat([current, dealframe.to_usd(current)], axis=1))
    odd = current.head(3).assign(rateToUsd=[np.inf, 0.0, -1.0])
    assert dealframe.to_usd(odd)["marketCap"].isna().all()
    assert dealframe.to_local(odd)["marketCapLcu"].isna().all()
