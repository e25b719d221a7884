"""The report against the session sandbox: a summary first with figures that equal independent
computations, every section with real numbers and charts with alt text, the tables equal to
what the client returns, and the working details in the appendix."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _report_builds import alt_text_only, session_report, undrawn

import dealframe
import dealframe.report.pages as pages
import dealframe.sandbox
from dealframe.analytics import bucket_medians, reconcile
from dealframe.errors import ValidationError
from dealframe.plot.shaping import (
    MULTIPLE_BOUNDS,
    MULTIPLE_DENOMINATORS,
    co_investment_pairs,
    meaningful,
)
from dealframe.report import REPORT_SECTIONS, REPORT_TABLES, build_report
from dealframe.report.tables import COMPS_MULTIPLES, comps_display

REGION = "North America"  # the largest region: every section has data even at small scale
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def report(sandbox):
    """The cohort's report with every chart drawn, built once per process (the other files
    that read this cohort's report of the session sandbox share it: _report_builds.py)."""
    built = session_report(sandbox, {"region": REGION}, charts=True)
    return built.paths, list(built.lines)


@pytest.fixture(scope="module")
def html(report) -> str:
    return report[0].html.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def manifest(report) -> dict:
    return json.loads(report[0].manifest.read_text())


@pytest.fixture(scope="module")
def window_deals(client, manifest):
    return client.private.deals(
        target_region=[REGION],
        date_from=manifest["periods"]["prior_12_months"][0],
        date_to=manifest["as_of"],
    )


def _parquet(report, name: str) -> pd.DataFrame:
    return pd.read_parquet(report[0].parquet[name])


def _sections(page: str) -> dict[str, str]:
    return dict(re.findall(r'<section id="([^"]+)"[^>]*>(.*?)</section>', page, flags=re.DOTALL))


def _visible(fragment: str) -> str:
    return re.sub(r"<[^>]+>", " ", re.sub(r'src="data:[^"]+"', "", fragment))


# ------------------------------------------------------------------ the page, as a reader sees it


def test_sections_in_reading_order_with_decodable_charts_and_alt_text(html):
    from PIL import Image

    sections = _sections(html)
    assert list(sections) == list(REPORT_SECTIONS)
    minimum = {"summary": 0, "comps": 3, "deals": 3, "compare": 2, "investors": 2, "appendix": 0}
    for name, body in sections.items():
        images = re.findall(
            r'<img alt="([^"]*)" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', body
        )
        assert len(images) >= minimum[name], name
        for alt, encoded in images:
            assert len(alt) > 60 and re.search(r"\d", alt), alt
            raw = base64.b64decode(encoded, validate=True)
            assert raw.startswith(PNG_MAGIC)
            with Image.open(io.BytesIO(raw)) as img:
                img.verify()
                assert img.size[0] >= 300 and img.size[1] >= 150


def test_summary_comes_first_with_the_data_as_of_date_and_cohort(html, manifest, client):
    probe = client.private.aggregate("ev_revenue", "none", target_region=[REGION])
    as_of = probe.attrs["methodology"]["date_range"]["to"]
    assert manifest["as_of"] == as_of
    header = html.split("<nav>")[0]
    assert as_of in header and REGION in header
    assert "generated" not in _visible(header).lower()
    summary = _visible(_sections(html)["summary"])
    assert pd.Timestamp(as_of).strftime("%-d %B %Y") in summary
    assert "Deals, last 12 months" in summary and "Capital raised" in summary
    assert "Median deal EV/Revenue" in summary and "Median deal EV/EBITDA" in summary


def test_working_details_are_only_in_the_appendix(html, manifest):
    sections = _sections(html)
    for name in REPORT_SECTIONS[:-1]:
        assert manifest["source"] not in sections[name], name
        assert "buckets match" not in sections[name], name
    assert manifest["source"] in sections["appendix"]
    assert "buckets match" in sections["appendix"]


def test_page_is_self_contained_and_never_shows_nan(html):
    assert "<script" not in html and "<link" not in html
    for attr in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert attr.startswith(("data:image/png;base64,", "#")), attr[:60]
    text = _visible(html)
    assert not re.search(r"\b(nan|NaN|None|NaT|<NA>)\b", text)
    assert "n/a" in text


# ------------------------------------------------------------------ the headline equals the data


def test_headline_counts_and_capital_equal_the_deals(report, manifest, window_deals):
    headline = _parquet(report, "headline").set_index(["figure", "period"])
    for period in ("ltm", "prior"):
        start, end = manifest["periods"]["last_12_months" if period == "ltm" else "prior_12_months"]
        inside = window_deals[
            (window_deals["deal_date"] >= start) & (window_deals["deal_date"] <= end)
        ]
        assert headline.loc[("deals", period), "value"] == len(inside)
        assert headline.loc[("capital raised ($m)", period), "value"] == pytest.approx(
            inside["deal_raised"].sum()
        )


def test_every_headline_row_names_its_period(report, manifest):
    headline = _parquet(report, "headline").set_index(["figure", "period"])
    for figure in ("deals", "capital raised ($m)", "median deal EV/Revenue"):
        assert list(headline.loc[(figure, "ltm"), ["start", "end"]]) == list(
            manifest["periods"]["last_12_months"]
        )
        assert list(headline.loc[(figure, "prior"), ["start", "end"]]) == list(
            manifest["periods"]["prior_12_months"]
        )
    public = headline.loc["public median EV/Revenue NTM"]
    latest = pd.Period(public.loc["latest month", "start"], "M")
    assert latest == pd.Period(manifest["as_of"], "M")
    assert public.loc["12 months earlier", "start"] == str(latest - 12)
    assert public.loc["12 months earlier", "end"] == str(latest - 12)


def test_public_medians_count_the_companies_with_a_value_that_month(report, client):
    """The n of a public median is the values it is of (the companies with a value that
    month), not the group's size: it used to be the group's size for both months."""
    public = _parquet(report, "headline").set_index(["figure", "period"])
    public = public.loc["public median EV/Revenue NTM"]
    skus = client.public_v1.search(regions=[REGION]).index  # the group's, as its median's
    series = client.public_v1.time_series(skus, fields=["evRevenueNtm"])["evRevenueNtm"]
    for period in ("latest month", "12 months earlier"):
        month = pd.Period(public.loc[period, "start"], "M")
        values = series.loc[month].dropna()
        assert public.loc[period, "n"] == len(values) <= len(skus)
        assert public.loc[period, "value"] == pytest.approx(values.median(), rel=1e-9)


def test_headline_medians_are_the_services_method_on_meaningful_values(
    report, manifest, window_deals
):
    headline = _parquet(report, "headline").set_index(["figure", "period"])
    start, end = manifest["periods"]["last_12_months"]
    for metric, label in (("ev_revenue", "EV/Revenue"), ("ev_ebitda", "EV/EBITDA")):
        values = meaningful(window_deals, metric)
        assert not (values > MULTIPLE_BOUNDS[metric]).any()
        frame = pd.DataFrame({"deal_date": window_deals["deal_date"], "v": values})
        expected = bucket_medians(frame, metric, "none", start, end, value_column="v").iloc[0]
        row = headline.loc[(f"median deal {label}", "ltm")]
        assert row["n"] == expected["n"]
        assert row["value"] == pytest.approx(expected["median"], nan_ok=True)
    comparison = _parquet(report, "multiples_comparison")
    all_deals = comparison[
        (comparison["metric"] == "ev_revenue")
        & (comparison["group"] == "all deals")
        & (comparison["period"] == "last 12 months")
    ].iloc[0]
    card = headline.loc[("median deal EV/Revenue", "ltm")]
    assert all_deals["median"] == pytest.approx(card["value"]) and all_deals["n"] == card["n"]


def test_headline_method_reproduces_the_services_own_medians(report):
    checks = _parquet(report, "headline_checks")
    assert len(checks) == 4 and checks["match"].all()
    assert (checks["n_service"] > 0).all()


def test_small_n_medians_carry_a_bootstrap_interval(report):
    quarters = _parquet(report, "quarterly_medians")
    small = quarters[(quarters["n"] > 0) & (quarters["n"] < 30) & quarters["median"].notna()]
    large = quarters[(quarters["n"] >= 30) & quarters["median"].notna()]
    assert len(small), "the test sandbox has small quarters"
    assert (small["median_low"] <= small["median"]).all()
    assert (small["median"] <= small["median_high"]).all()
    assert (small["median_low"] < small["median_high"]).any()
    assert large["median_low"].isna().all()
    headline = _parquet(report, "headline")
    medians = headline[headline["figure"].str.startswith("median deal")]
    for _, row in medians.iterrows():
        if 0 < row["n"] < 30 and np.isfinite(row["value"]):
            assert row["ci_low"] <= row["value"] <= row["ci_high"]
        else:
            assert np.isnan(row["ci_low"])


# ------------------------------------------------------------------ sections


def test_comps_equal_current_data_and_apply_the_nm_rule(report, client, html):
    comps = _parquet(report, "comps")
    skus = client.public.search(regions=[REGION]).index
    current = client.public.current(skus)
    assert sorted(comps.index) == sorted(skus)
    expected = current.loc[comps.index, comps.columns]
    expected.attrs = {}
    pd.testing.assert_frame_equal(comps, expected)
    ev = comps["enterpriseValue"].dropna().to_numpy()
    assert (ev[:-1] >= ev[1:]).all()
    summary = _parquet(report, "comps_summary")
    # NM: a known denominator <= 0, a known negative EV, a negative multiple or one above 100x
    ok = comps["evEbitdaLtm"].where(
        ~(comps["ebitdaLtm"] <= 0)
        & ~(comps["enterpriseValue"] < 0)
        & (comps["evEbitdaLtm"] >= 0)
        & (comps["evEbitdaLtm"] <= 100)
    )
    assert summary.loc["median", "evEbitdaLtm"] == pytest.approx(ok.median())
    assert summary.loc["n", "evEbitdaLtm"] == ok.notna().sum()
    assert summary.loc["nm", "evEbitdaLtm"] > 0, "the test data has NM multiples"
    body = _sections(html)["comps"]
    rows = re.findall(r"<tbody>(.*?)</tbody>", body, flags=re.DOTALL)[-1].split("</tr>")
    assert [re.sub(r"<[^>]+>", "", r.split("</th>")[0]) for r in rows[:4]] == [
        "Median",
        "25th percentile",
        "75th percentile",
        "n (meaningful)",
    ]
    assert ">NM<" in body and "NM (not meaningful)" in body


def test_comps_cells_say_nm_where_the_summary_counts_nm(report):
    comps = _parquet(report, "comps")
    summary = _parquet(report, "comps_summary")
    cells = comps_display(comps, summary).iloc[4:]  # below the median, quartile and n rows
    for multiple in COMPS_MULTIPLES:
        denominator = comps[MULTIPLE_DENOMINATORS[multiple]]
        assert (cells.loc[denominator <= 0, multiple] == "NM").all(), multiple
        assert (cells[multiple] == "NM").sum() == summary.loc["nm", multiple], multiple
        assert cells[multiple].isna().sum() == summary.loc["na", multiple], multiple
    assert (comps["ebitdaNtm"] <= 0).any(), "the test data has a negative NTM EBITDA"


def test_quarters_are_whole_and_match_the_deals(report, manifest, client):
    quarterly = _parquet(report, "quarterly")
    start = pd.Timestamp(manifest["window"]["from"])
    assert start == start.to_period("Q").start_time  # the default window drops a part-quarter
    assert not quarterly["partial"].iloc[0]
    deals = client.private.deals(
        target_region=[REGION],
        date_from=manifest["window"]["from"],
        date_to=manifest["window"]["to"],
    )
    assert int(quarterly["total"].sum()) == len(deals)
    assert quarterly["raised"].sum() == pytest.approx(deals["deal_raised"].sum())


def test_notable_deals_are_the_largest_of_the_last_twelve_months(report, manifest, window_deals):
    notable = _parquet(report, "notable_deals")
    start = manifest["periods"]["last_12_months"][0]
    recent = window_deals[window_deals["deal_date"] >= start]
    size = recent["deal_valuation"].fillna(recent["deal_raised"])
    assert set(notable["id"]) == set(recent.loc[size.nlargest(len(notable)).index, "id"])
    assert len(notable) == 10


def test_private_against_public_compares_the_linked_comps_of_the_same_period(
    report, client, manifest, html
):
    """The section is compare_multiples of the cohort and period, figure for figure (it said
    +39% where compare_multiples said -14% for one cohort: the report left NM multiples out
    and did not trim the public side, compare_multiples kept every value): one method for
    both, NM values out of both sides and counted, both sides trimmed."""
    comparison = _parquet(report, "multiples_comparison")
    periods = {
        "last 12 months": manifest["periods"]["last_12_months"],
        "whole window": [manifest["window"]["from"], manifest["window"]["to"]],
    }
    assert set(comparison["period"]) == set(periods)
    section = _visible(_sections(html)["compare"])
    for label, (start, end) in periods.items():
        linked = dealframe.compare_multiples(client, region=REGION, date_from=start, date_to=end)
        assert (linked.comps["match"] == "matched").all(), "the sandbox lists every comp"
        rows = comparison[comparison["period"] == label].set_index(["metric", "group"])
        for metric, field in (("ev_revenue", "evRevenueLtm"), ("ev_ebitda", "evEbitdaLtm")):
            summary = linked.summary.loc[metric]
            public = rows.loc[(metric, "public comps")]
            deals = rows.loc[(metric, "all deals")]
            for side, row in (("public", public), ("private", deals)):
                got = [row[k] for k in ("median", "q1", "q3")]
                want = [summary[f"{side}_{k}"] for k in ("median", "q1", "q3")]
                assert got == pytest.approx(want, rel=1e-12), (label, metric, side)
                assert (row["n"], row["nm"]) == (summary[f"{side}_n"], summary[f"{side}_nm"])
            assert np.isfinite(deals["median"]) and deals["median"] > 0
            assert deals["vs_public"] == pytest.approx(summary["private_to_public"] - 1)
            # NM values are out of both sides: n counts the meaningful values
            assert public["n"] == meaningful(linked.comps, field).notna().sum() > 0
            assert deals["n"] == meaningful(linked.deals, metric).notna().sum()
            assert deals["nm"] == linked.deals[metric].notna().sum() - deals["n"]
            if label == "last 12 months":  # the page shows the section's figures
                assert f"{deals['median']:.1f}x" in section
                assert f"{public['median']:.1f}x" in section
    assert {"all deals", "funding rounds", "M&A"} <= set(comparison["group"])
    assert (comparison["nm"] >= 0).all() and (comparison.loc[comparison["n"] > 0, "nm"] > 0).any()
    assert "dealframe.compare_multiples" in section and "linked" in section


def test_co_investment_is_the_services_own(report, client):
    top = _parquet(report, "top_investors")
    pairs = _parquet(report, "co_investment_pairs")
    co = client.private.co_investors(list(top["participant_id"]))
    expected = co_investment_pairs(co, dict(zip(top["participant_id"], top["name"])), None)
    pd.testing.assert_frame_equal(pairs.reset_index(drop=True), expected, check_dtype=False)
    first = pairs.iloc[0]
    side = co[(co["investor_id"] == first["investor_a"]) & (co["id"] == first["investor_b"])]
    other = co[(co["investor_id"] == first["investor_b"]) & (co["id"] == first["investor_a"])]
    assert int(pd.concat([side, other])["shared_deals"].max()) == first["shared_deals"]
    assert first["shared_deals"] > 2  # complete lists, not the leads-only noise of list deals


def test_reconciliation_equals_reconcile(report, client, manifest):
    rec = _parquet(report, "reconciliation")
    window = manifest["window"]
    expected = reconcile(
        client,
        "ev_revenue",
        "quarter",
        {"target_region": [REGION], "date_from": window["from"], "date_to": window["to"]},
    ).frame
    expected.attrs = {}
    # the window starts on a whole quarter: no partial bucket (the column the report adds)
    assert not rec.pop("partial").any()
    pd.testing.assert_frame_equal(rec, expected, check_dtype=False)
    assert rec["match"].all()


def test_buckets_left_out_as_suppressed_are_not_reported_as_failures(tmp_path, monkeypatch):
    """Under small-n-omitted the service leaves small buckets (and a small headline period) out
    of its aggregates: the appendix counts them as reconcile does, without a count warning."""
    # its tables and appendix are read: the charts (most of a report's time) are left undrawn
    monkeypatch.setattr(pages, "_chart", undrawn)
    # a region with headline periods both served and left out (n 0) at scale 0.1
    cohort = {"region": "Southern Europe"}
    with (
        dealframe.sandbox.run(scale=0.1, profile="small-n-omitted") as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as omitting,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("error", dealframe.ServiceContractWarning)
        paths = build_report(omitting, tmp_path, cohort=cohort, progress=False)
        manifest = json.loads(paths.manifest.read_text())
        window = manifest["window"]
        expected = reconcile(
            omitting,
            "ev_revenue",
            "quarter",
            {
                "target_region": [cohort["region"]],
                "date_from": window["from"],
                "date_to": window["to"],
            },
        ).frame
    rec = _parquet((paths, []), "reconciliation")
    assert expected.attrs["left_out_by_service"] > 0, "the window has buckets left out"
    expected.attrs = {}
    assert not rec.pop("partial").any()
    pd.testing.assert_frame_equal(rec, expected, check_dtype=False)
    assert rec["match"].all()
    assert manifest["reconciliation"].startswith(f"{len(rec)} of {len(rec)} buckets match")
    checks = _parquet((paths, []), "headline_checks")
    assert checks["match"].all() and (checks["n_service"] == 0).any()
    assert (checks["n_service"] > 0).any()


def test_manifest_and_progress(report, manifest):
    paths, lines = report
    assert set(manifest["tables"]) == set(REPORT_TABLES)
    for name in REPORT_TABLES:
        for suffix in ("parquet", "csv"):
            assert (paths.html.parent / f"{name}.{suffix}").is_file()
    assert manifest["cohort"] == {"region": REGION}
    assert manifest["provenance"]["deals"]["endpoint"].endswith("/transactions")
    assert manifest["provenance"]["co_investors"]["endpoint"].endswith("/co_investors")
    starts = [line for line in lines if re.match(r"\[\d/7\]", line)]
    assert len(starts) == 7


# ------------------------------------------------------------------ cohorts


def test_since_mid_quarter_labels_the_partial_quarter(client, tmp_path, monkeypatch):
    # the charts' alt text is read, not their PNGs: drawn, not rendered
    monkeypatch.setattr(pages, "_chart", alt_text_only)
    paths = build_report(
        client,
        tmp_path,
        cohort={"region": REGION, "deal_type": ["Venture", "Growth"], "since": "2024-02-15"},
    )
    quarterly = pd.read_parquet(paths.parquet["quarterly"])
    assert quarterly.index[0] == "2024-Q1" and quarterly["partial"].iloc[0]
    assert quarterly["days"].iloc[0] == 46 and not quarterly["partial"].iloc[1:].any()
    page = paths.html.read_text()
    assert "2024-Q1 (46 days)" in page  # in the chart's alt text
    deals = client.private.deals(
        target_region=[REGION], deal_type=["Venture", "Growth"], date_from="2024-02-15"
    )
    assert int(quarterly["total"].sum()) == len(deals)
    comparison = pd.read_parquet(paths.parquet["multiples_comparison"])
    assert "M&A" not in set(comparison["group"])  # the cohort has no M&A


def test_a_window_inside_one_quarter_lays_out_and_counts_in_words(client, manifest, tmp_path):
    """A ``since`` late in the service's last quarter: one partial quarter. Its medians chart
    collapsed ("constrained_layout not applied", the tick label cut off), and the page, the
    stage line and the manifest said "1 of 1 buckets match"."""
    since = pd.Timestamp(manifest["as_of"]).to_period("Q").start_time + pd.Timedelta(days=45)
    lines: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        paths = build_report(
            client,
            tmp_path,
            cohort={"region": REGION, "since": since.date().isoformat()},
            progress=lines.append,
        )
    said = [str(w.message) for w in caught]
    assert not [m for m in said if "layout" in m], said
    rec = _parquet((paths, []), "reconciliation")
    assert len(rec) == 1 and rec["match"].all()
    words = "1 of 1 bucket matches"
    assert json.loads(paths.manifest.read_text())["reconciliation"].startswith(words)
    assert [line for line in lines if words in line], lines  # the [5/7] stage line
    appendix = _visible(_sections(paths.html.read_text())["appendix"])
    assert words in appendix and "buckets match" not in appendix
    checks = _parquet((paths, []), "headline_checks")
    assert f"{len(checks)} of {len(checks)} headline medians match." in appendix


def test_bad_options_raise_typed_errors_before_any_request(client, tmp_path):
    before = client.stats.calls
    cases = [
        ({"region": "Westren Europe"}, "did you mean 'Western Europe'"),
        ({"region": REGION, "deal_type": ["Ventur"]}, "did you mean 'Venture'"),
        ({"region": REGION, "since": "2024-02-30"}, "since"),
        ({"regoin": REGION}, "did you mean 'region'"),
        ({"deal_type": ["M&A"]}, "a region or a vertical"),
    ]
    for cohort, message in cases:
        with pytest.raises(ValidationError, match=re.escape(message)):
            build_report(client, tmp_path / "o", cohort=cohort)
    with pytest.raises(ValidationError, match="did you mean 'ev_ebitda'"):
        build_report(client, tmp_path / "o", metric="ev_ebitdaa")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(ValidationError, match="out_dir"):
        build_report(client, blocker)
    assert client.stats.calls == before


def test_unknown_vertical_is_refused_with_a_suggestion(client, tmp_path):
    with pytest.raises(ValidationError, match="did you mean 'Fintech'"):
        build_report(client, tmp_path / "o", cohort={"vertical": "Fintek"})
    with pytest.raises(ValidationError, match="since"):
        build_report(client, tmp_path / "o", cohort={"region": REGION, "since": "2099-01-01"})
