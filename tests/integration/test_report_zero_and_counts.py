"""The report writes no signed zero, and its quarterly chart says what its n counts.

Audit findings: the comps table showed "-0" for an EBITDA LTM of -0.46 ($m, formatted
``{:,.0f}``) and the "Private against public" table "-0%" for a discount of 0.48% (``{:+.0%}``);
the quarterly chart's title and alt text said "955 deals with a value" and its caption "the deals
with a value" while appendix A said "deals with a value 981 locally against 981 at the service":
the chart counts the meaningful multiples only (NM left out), the reconciliation every value.

A review then found signed zeros in the charts' alt text, which the page's tables did not
share: the group's 12-month change "-0% on twelve months earlier (3.59x)" beside a card that
said "unchanged", and "Median growth -0.0%" under the growth chart. Every text of every chart
(alt text, title, labels, annotations, legend) now writes its figures by the page's one rule.

Northern Europe of the session sandbox (scale 0.1) has an EV/EBITDA discount of all deals to the
public comps under half a percent over the whole window; the drift proxy gives the first company
of every current-data answer an EBITDA LTM of -0.4598 (the audit's value), every company a revenue
growth of about -0.04% (a median that rounds to -0.0%), and the group's latest month a median EV/
Revenue NTM 0.2% under that of twelve months earlier (a change that rounds to -0%), which the
sandbox does not serve.
"""

from __future__ import annotations

import html as html_text
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Proxy, edit

import dealframe
import dealframe.sandbox
from dealframe.report import build_report

COHORT = {"region": "Northern Europe"}
EBITDA = -0.4598
#: The group's latest median EV/Revenue NTM over that of twelve months earlier.
LATEST_OVER_YEAR_AGO = 0.998
#: A figure that rounds to zero written with a sign: "-0", "+0%", "-0.0x", "$-0m", "-0.00" ...
#: (a sentence's full stop or comma may follow it)
SIGNED_ZERO = re.compile(r"(?<![\w.])\$?[+\-\u2212]\$?0(?:\.0+)?(?:%|x|m|bn)?(?!\w|[.,]\d)")


def _current(doc: Any) -> Any:
    data = doc.get("data") if isinstance(doc, dict) else None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data[0]["ebitdaLtm"] = EBITDA
        for i, item in enumerate(data):
            if isinstance(item, dict):
                item["revenueGrowthNtmLtm"] = -0.04 - i * 1e-5
    return doc


def _latest_month(doc: Any) -> Any:
    data = doc.get("data") if isinstance(doc, dict) else None
    by = {it["period"]: it for it in data or () if isinstance(it, dict) and "period" in it}
    if by:
        last = max(by)
        year_ago = by.get(str(pd.Period(last, "M") - 12), {}).get("median", {})
        if year_ago.get("evRevenueNtm") is not None:
            by[last]["median"]["evRevenueNtm"] = year_ago["evRevenueNtm"] * LATEST_OVER_YEAR_AGO
    return doc


def _chart_texts(ax: Any) -> list[str]:
    """Every text a chart draws: titles, axis labels, tick labels, annotations, legend."""
    texts = [ax.get_title(loc=w) for w in ("left", "center", "right")]
    texts += [ax.get_xlabel(), ax.get_ylabel()]
    texts += [t.get_text() for t in ax.texts + ax.get_xticklabels() + ax.get_yticklabels()]
    legend = ax.get_legend()
    texts += [t.get_text() for t in legend.get_texts()] if legend is not None else []
    return [t for t in texts if t]


@pytest.fixture(scope="module")
def drawn() -> list[list[str]]:
    """The texts of each chart the page drew (filled by :func:`written`)."""
    return []


@pytest.fixture(scope="module")
def written(sandbox: Any, tmp_path_factory: Any, drawn: list[list[str]]) -> Iterator[Any]:
    import dealframe.report.pages as pages

    to_alt = pages.alt_text  # read of each chart once it is drawn

    def alt_text(ax: Any, *args: Any, **kwargs: Any) -> str:
        drawn.append(_chart_texts(ax))
        return to_alt(ax, *args, **kwargs)

    with Proxy(sandbox.url) as proxy, pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages, "alt_text", alt_text)
        proxy.add(r"/companies/current$", edit(_current, "EBITDA LTM -0.4598, growth -0.04%"))
        proxy.add(r"/groups/time-series$", edit(_latest_month, "latest month -0.2%"))
        with dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client:
            yield build_report(
                client, tmp_path_factory.mktemp("zero"), cohort=COHORT, progress=False
            )


@pytest.fixture(scope="module")
def page(written: Any) -> str:
    return written.html.read_text(encoding="utf-8")


def _cells(page: str) -> list[str]:
    return [html_text.unescape(c) for c in re.findall(r'<td class="num">([^<]*)</td>', page)]


def _visible(page: str) -> str:
    text = re.sub(r"<[^>]+>", " ", re.sub(r'src="data:[^"]+"', "", page))
    return " ".join(html_text.unescape(text).split())


def _alts(page: str) -> list[str]:
    return [html_text.unescape(a) for a in re.findall(r'alt="([^"]*)"', page)]


def _alt(page: str, start: str) -> str:
    alts = _alts(page)
    found = [a for a in alts if a.startswith(start)]
    assert len(found) == 1, alts
    return found[0]


def test_no_figure_that_rounds_to_zero_carries_a_sign(written, page):
    comps = pd.read_parquet(written.parquet["comps"])
    assert (comps["ebitdaLtm"] == EBITDA).any()  # the page had a -0.46 to write
    compared = pd.read_parquet(written.parquet["multiples_comparison"])
    assert compared["vs_public"].between(-0.005, 0, inclusive="neither").any()  # and a -0.48%
    cells = _cells(page)
    assert not [c for c in cells if SIGNED_ZERO.fullmatch(c)]
    assert not SIGNED_ZERO.findall(_visible(page))
    assert "0" in cells and "0%" in cells  # written, without a sign


def test_no_chart_writes_a_signed_zero_in_its_alt_text_or_on_it(written, page, drawn):
    comps = pd.read_parquet(written.parquet["comps"])
    assert comps["revenueGrowthNtmLtm"].between(-0.05, -0.04).all()  # the growth was there
    alts = _alts(page)
    assert len(alts) == len(drawn) >= 8  # every chart of the page, its texts caught too
    assert not [m for a in alts for m in SIGNED_ZERO.findall(a)], alts
    texts = [t for chart in drawn for t in chart]
    assert any("Median" in t for t in texts)  # the titles are among them
    assert not [t for t in texts if SIGNED_ZERO.search(t)]
    growth = _alt(page, "Scatter of")
    assert "Median growth 0.0%, median" in growth


def test_the_group_history_alt_says_unchanged_as_the_card_does(written, page):
    history = pd.read_parquet(written.parquet["valuation_history"])["evRevenueNtm"]
    assert history.iloc[-1] / history.iloc[-13] == pytest.approx(LATEST_OVER_YEAR_AGO)
    alt = _alt(page, "Line of the group's median EV/Revenue NTM")
    assert f"unchanged from twelve months earlier ({history.iloc[-13]:.2f}x)." in alt
    assert "on twelve months earlier" not in alt
    card = re.search(r"Public comps, median EV/Revenue NTM.{0,200}", _visible(page))
    assert card is not None and "unchanged" in card.group(0)


@pytest.fixture(scope="module")
def larger(tmp_path_factory: Any) -> Any:
    """The report on North America of a scale 0.4 sandbox: over a thousand deals with a value,
    a count that takes a thousands separator (the session sandbox's cohorts have fewer)."""
    import dealframe.report.pages as pages

    chart = pages._chart

    def quarterly_only(draw: Any, *size: float) -> Any:
        """The quarterly medians chart, the one read here; the others (most of a report's
        time) are left undrawn: the session's report above draws every chart."""
        code = getattr(draw, "__code__", None)  # some are partials of a plot function
        if code is not None and "quarterly_medians" in code.co_names:
            return chart(draw, *size)
        return pages.Chart(b"", "")

    with dealframe.sandbox.run(scale=0.4, seed=7) as sb, dealframe.Client.for_sandbox(sb) as c:
        with pytest.MonkeyPatch.context() as patch:  # for this build only
            patch.setattr(pages, "_chart", quarterly_only)
            paths = build_report(
                c,
                tmp_path_factory.mktemp("larger"),
                cohort={"region": "North America"},
                progress=False,
            )
    return paths


def test_appendix_a_writes_its_counts_as_the_charts_do(larger):
    page = larger.html.read_text(encoding="utf-8")
    rec = pd.read_parquet(larger.parquet["reconciliation"])
    shown = pd.read_parquet(larger.parquet["quarterly_medians"])
    every, meaningful = int(rec["n_local"].sum()), int(shown["n"].sum())
    assert every >= 1000  # a count with a thousands separator to write
    assert f"NM included, {every:,} locally against {every:,} at the service" in _visible(page)
    alt = _alt(page, "Line of the median EV/Revenue of deals per quarter")
    assert f"; {meaningful:,} deals with a meaningful value" in alt  # the chart's, alike


def test_the_quarterly_chart_counts_the_meaningful_values_and_says_so(written, page):
    shown = pd.read_parquet(written.parquet["quarterly_medians"])
    rec = pd.read_parquet(written.parquet["reconciliation"])
    meaningful, every = int(shown["n"].sum()), int(rec["n_local"].sum())
    assert meaningful < every  # the cohort has NM multiples: the two counts differ
    alt = _alt(page, "Line of the median EV/Revenue of deals per quarter")
    assert f"; {meaningful:,} deals with a meaningful value (NM left out)." in alt
    text = _visible(page)
    assert "The n over each quarter counts the deals with a meaningful value (NM left out)" in (
        text
    )
    assert f"deals with a value, NM included, {every:,} locally against" in text
    assert "per quarter over every value (NM included): service and local" in text
    assert f"{meaningful:,} deals with a value" not in text + alt


def test_the_written_table_keeps_what_its_n_counts_in_the_manifest(written):
    from dealframe.plot import figure, quarterly_medians

    manifest = json.loads(written.manifest.read_text(encoding="utf-8"))
    attrs = manifest["tables"]["quarterly_medians"]["attrs"]
    assert attrs["nm_removed"] is True
    assert attrs["ci"] == {
        "confidence": 0.9,
        "method": "percentile bootstrap",
        "resamples": 4999,
        "below_n": 30,
    }
    every = int(pd.read_parquet(written.parquet["reconciliation"])["n_local"].sum())
    assert manifest["tables"]["reconciliation"]["attrs"]["total_deals"] == [every, every]
    shown = pd.read_parquet(written.parquet["quarterly_medians"])
    assert shown.attrs == {}  # the file has none: the manifest gives them back
    shown.attrs = attrs
    title = quarterly_medians(shown, ax=figure()[1]).get_title(loc="left")
    assert title.endswith(
        f"n = {int(shown['n'].sum()):,} deals with a meaningful value (NM left out)"
    )


def test_the_quarterly_chart_title_says_the_same(written):
    from dealframe.plot import figure, quarterly_medians

    shown = pd.read_parquet(written.parquet["quarterly_medians"])
    meaningful = int(shown["n"].sum())
    shown.attrs = {"metric": "ev_revenue", "nm_removed": True}  # the report's frame's attrs
    title = quarterly_medians(shown, ax=figure()[1]).get_title(loc="left")
    assert title.endswith(f"n = {meaningful:,} deals with a meaningful value (NM left out)")
    shown.attrs = {"metric": "ev_revenue"}  # a frame of every value: the words as they were
    title = quarterly_medians(shown, ax=figure()[1]).get_title(loc="left")
    assert title.endswith(f"n = {meaningful:,} deals with a value")
