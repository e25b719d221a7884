"""The sections of the page: what a reader sees, in the order a reader wants it.

Summary first (as-of date, cohort, headline figures), then the analysis (public comps,
private deals, private against public, investors), and the working details last (an
appendix: reconciliation with the service, methodology, provenance). Charts come from
:mod:`dealframe.plot`, drawn on standalone figures.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from functools import partial
from numbers import Real
from typing import cast

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg

from dealframe._version import __version__
from dealframe._wording import counted, matching, plural
from dealframe.frames.schemas import CURRENT_MONETARY
from dealframe.plot import (
    alt_text,
    capital_raised,
    co_investment,
    comps_multiples,
    deals_per_quarter,
    figure,
    group_history,
    growth_vs_multiple,
    private_vs_public,
    quarterly_medians,
    top_investors,
)
from dealframe.plot.deals import METRIC_LABELS

from .coinvestors import Unserved
from .gather import COMPARED_PERIODS, ReportData
from .headline import CI_LEVEL, SMALL_N, Headline
from .render import MISSING, Bullets, Cards, Chart, Heading, Row, Section, Text, number, table
from .tables import COMPS_MULTIPLES, bounds_text, comps_display

__all__ = ["page_sections"]

_COMPS_LABELS = {
    "sku": "SKU",
    "name": "company",
    "country": "country",
    "marketCap": "mkt cap $m",
    "enterpriseValue": "EV $m",
    "revenueLtm": "revenue LTM $m",
    "revenueNtm": "revenue NTM $m",
    "ebitdaLtm": "EBITDA LTM $m",
    "ebitdaNtm": "EBITDA NTM $m",
    "evRevenueLtm": "EV/rev LTM",
    "evRevenueNtm": "EV/rev NTM",
    "evEbitdaLtm": "EV/EBITDA LTM",
    "evEbitdaNtm": "EV/EBITDA NTM",
    "marginGrossLtm": "gross margin",
    "marginEbitdaLtm": "EBITDA margin",
    "revenueGrowthNtmLtm": "growth NTM/LTM",
    "ruleOf40": "rule of 40",
}
_PERCENT = ("marginGrossLtm", "marginEbitdaLtm", "revenueGrowthNtmLtm", "ruleOf40")
_COMPS_FORMATS = {
    **{c: "{:,.0f}" for c in CURRENT_MONETARY},
    **{c: "{:.1f}x" for c in COMPS_MULTIPLES},
    **{c: "{:.1f}%" for c in _PERCENT},
}


def _chart(draw: Callable[..., Axes], width: float = 7.0, height: float = 3.9) -> Chart:
    """The PNG and alt text of the chart ``draw`` makes on a new :func:`figure`.

    The figure's own Agg canvas prints it in one draw, which lays it out and renders it:
    ``savefig`` (as :func:`~dealframe.plot.png` calls it) first lays a figure of a layout
    engine out in a draw of its own, which renders nothing. Same PNG, byte for byte.
    """
    fig, ax = figure(width, height)
    draw(ax=ax)
    buffer = io.BytesIO()
    cast(FigureCanvasAgg, fig.canvas).print_png(buffer)
    return Chart(buffer.getvalue(), alt_text(ax))


def _times(value: float) -> str:
    """A multiple as the page writes it: ``3.6x``, or ``n/a`` for a missing one."""
    return number(value, "{:.1f}x") if pd.notna(value) else "n/a"


def _span(period: tuple[str, str]) -> str:
    """``2025-07-01 to 2026-06-30``: a period as the page names it."""
    return f"{period[0]} to {period[1]}"


def _summary(data: ReportData, headline: Headline) -> Section:
    latest = data.latest_deal or "none"
    return Section(
        "summary",
        "Summary",
        (
            Bullets(headline.sentences),
            Cards(tuple((c.label, c.value, c.detail) for c in headline.cards)),
            Text(
                f"Cohort: {data.cohort.label}. Data as of {data.as_of}, the service's latest date "
                f"(latest deal of the cohort {latest}); the last 12 months are "
                f"{data.periods.ltm[0]} to {data.periods.ltm[1]}, compared with "
                f"{data.periods.prior[0]} to {data.periods.prior[1]}. Deal medians are of the "
                "meaningful multiples (NM values left out), outliers trimmed as the service trims "
                f"them; where fewer than {SMALL_N} values stand behind one, its {CI_LEVEL:.0%} "
                "bootstrap interval is given.",
                css="note",
            ),
        ),
    )


def _comps(data: ReportData, t: Mapping[str, pd.DataFrame]) -> Section:
    comps = t["comps"]
    if not len(comps):
        return Section(
            "comps",
            "Public comps",
            (
                Text(
                    f"No listed company in {data.cohort.companies_label}: the public sections are "
                    "empty."
                ),
            ),
        )
    summary = t["comps_summary"]
    median = summary.loc["median"].get("evRevenueNtm", float("nan"))
    n = int(summary.loc["n"].get("evRevenueNtm", 0))
    shown = comps_display(comps, summary)
    return Section(
        "comps",
        "Public comps",
        (
            Text(
                f"{counted(len(comps), 'listed company')} in {data.cohort.companies_label}. "
                f"Median EV/Revenue NTM {_times(median)} over the "
                f"{counted(n, 'meaningful value')} of current data (the summary's card is "
                "the group's monthly series). Money in millions of USD, "
                "multiples in x, margins and growth in %.",
                css="lead",
            ),
            Row(
                (
                    _chart(
                        lambda ax: comps_multiples(data.current, "evRevenueNtm", ax=ax),
                        7.0,
                        0.24 * min(25, len(comps)) + 1.6,
                    ),
                    _chart(lambda ax: growth_vs_multiple(data.current, ax=ax), 6.4, 4.4),
                )
            ),
            _chart(lambda ax: group_history(data.history, ax=ax), 9.0, 3.4),
            table(
                shown,
                formats=_COMPS_FORMATS,
                labels=_COMPS_LABELS,
                scroll=True,
                lead_rows=4,
                caption=f"Comps table: {counted(len(comps), 'company')}, largest enterprise "
                "value first, "
                "summary rows on top",
                note=bounds_text(),
            ),
        ),
    )


def _deals(data: ReportData, t: Mapping[str, pd.DataFrame]) -> Section:
    deals = data.deals
    window = (data.periods.start, data.periods.end)
    label, fmt = METRIC_LABELS[data.metric]
    notable = t["notable_deals"].drop(columns=["id"])
    ltm = data.periods.ltm
    return Section(
        "deals",
        "Private deals",
        (
            Text(
                f"{counted(len(deals), 'deal')} with targets in {data.cohort.label}, "
                f"{_span(window)}.",
                css="lead",
            ),
            Row(
                (
                    _chart(lambda ax: deals_per_quarter(deals, window=window, ax=ax)),
                    _chart(lambda ax: capital_raised(deals, window=window, ax=ax)),
                )
            ),
            _chart(lambda ax: quarterly_medians(t["quarterly_medians"], ax=ax), 9.0, 3.9),
            Text(
                f"Median {label} per quarter by the service's method (outliers beyond 1.5 IQR "
                "trimmed; quarters with fewer deals than its small-n threshold have no median; "
                "appendix A shows the method reproduces the service's own aggregate)"
                + (
                    ", over the meaningful multiples (NM values left out)"
                    if t["quarterly_medians"].attrs.get("nm_removed")
                    else ""
                )
                + ". The n over each quarter counts the deals with a "
                + (
                    "meaningful value (NM left out)"
                    if t["quarterly_medians"].attrs.get("nm_removed")
                    else "value"
                )
                + "; the whiskers are "
                f"{CI_LEVEL:.0%} bootstrap intervals where n < {SMALL_N}.",
                css="note",
            ),
            table(
                notable,
                index=False,
                caption=f"Notable deals of the last 12 months ({_span(ltm)}), largest valuation, "
                "else amount raised"
                + (
                    "; the summary's twelve months, which begin before the window"
                    if data.periods.start > ltm[0]
                    else ""
                ),
                empty=f"No deal of the cohort from {_span(ltm)}: no notable deal to list.",
                formats={"raised": "{:,.1f}", "valuation": "{:,.0f}", "ev_revenue": "{:.1f}x"},
                labels={
                    "deal_date": "date",
                    "deal_type": "type",
                    "deal_subtype": "stage",
                    "raised": "raised $m",
                    "valuation": "valuation $m",
                    "ev_revenue": "EV/revenue",
                    "parties": "lead investors / buyers",
                },
            ),
        ),
    )


def _compare(data: ReportData, t: Mapping[str, pd.DataFrame]) -> Section:
    ltm = data.comparisons[COMPARED_PERIODS[0]]
    linked = {
        label: (len(c.comps), int(c.comps["match"].eq("matched").sum()))
        for label, c in data.comparisons.items()
    }
    comps_text = "Listed companies with a value in the period: " + ", ".join(
        f"{n:,} over the {label} ({k:,} linked)" for label, (n, k) in linked.items()
    )
    comparison = t["multiples_comparison"].assign(
        metric=lambda f: f["metric"].map(lambda m: METRIC_LABELS[m][0]),
        vs_public=lambda f: (
            f["vs_public"].astype(object).where(f["group"] != "public comps", "reference")
        ),
    )
    return Section(
        "compare",
        "Private against public multiples",
        (
            Text(
                f"The cohort's listed companies ({data.cohort.companies_label}) beside the "
                "multiples its private deals were struck at, over the same period "
                "(dealframe.compare_multiples): each listed company's EV/Revenue and EV/EBITDA "
                "LTM is the median of its monthly values in the period, and each is linked to "
                "its Family B company by its stock listing (dealframe.link). Deal multiples "
                f"are at each deal's date, on its trailing figures. {comps_text}. Both sides "
                "are summarised alike, so that a premium or discount compares like with like.",
                css="lead",
            ),
            Row(
                tuple(
                    _chart(
                        partial(
                            private_vs_public,
                            ltm.comps,
                            ltm.deals,
                            metric,
                            window=data.periods.ltm,
                            small_n_threshold=ltm.summary.attrs["small_n_threshold"],
                        ),
                        7.0,
                        3.6,
                    )
                    for metric in ("ev_revenue", "ev_ebitda")
                )
            ),
            table(
                comparison,
                index=False,
                caption="Medians and quartiles by dealframe.compare_multiples' method, the same "
                "for both sides: NM values left out (and counted), then outliers beyond 1.5 IQR "
                "trimmed as the service trims deals",
                formats={
                    **dict.fromkeys(("median", "q1", "q3"), "{:.1f}x"),
                    "vs_public": "{:+.0%}",
                },
                labels={"vs_public": "median vs public", "nm": "NM left out"},
                note="Public comps: dealframe.compare_multiples of the cohort (Family A search by "
                "region or vertical, monthly time series of the period, linked to Family B "
                "through dealframe.companies_for_skus). Private: the cohort's deals of the "
                "period (target region or vertical). " + bounds_text(),
            ),
        ),
    )


def _no_investors(data: ReportData, top: pd.DataFrame) -> tuple[str, str]:
    """Why the investors table and the pairs table have no row, in words (for each, what
    the page writes instead of a table of headers only)."""
    window, n = _span((data.periods.start, data.periods.end)), len(data.deals)
    if not n:
        ranked = f"No deal of the cohort in the window ({window}): no investor to rank."
    else:
        ranked = (
            f"None of the window's {counted(n, 'deal')} names a lead investor or buyer: "
            "no investor to rank."
        )
    if not len(top):
        return ranked, "No investor ranked in the window: no co-investor list to read."
    gone = data.co_investors_unserved
    if gone.ids and len(gone.ids) == len(top):
        if len(gone.deleted) == len(top):
            return ranked, "The service no longer serves the investors ranked: no co-investor list."
        return ranked, f"No co-investor list of the investors ranked: {_unserved(gone)}"
    return ranked, "The service lists no co-investor of the investors ranked."


def _unserved(gone: Unserved) -> str:
    """The investors whose co-investor list answered 404, in words: "soft-deleted" only of
    those the service says are, the others as the client saw their 404 (grouped by its
    words), and the profiles that could not be read (whether those are soft-deleted is not
    known).

    Examples
    --------
    >>> _unserved(Unserved(["a", "b", "c"], ["a"], (("no such id", ("b", "c")),)))
    '1 of the investors listed is no longer served by the service (soft-deleted since the deals). 2 answered 404 on /investors/{id}/co_investors (no such id). Their co-investors are not shown.'
    >>> _unserved(Unserved(["b"], [], (("no such id", ("b",)),), ["b"], "500"))[-120:]
    '(the profile of 1 could not be read: 500, so whether it is soft-deleted is not known). Their co-investors are not shown.'
    """
    said = []
    if gone.deleted:
        n = len(gone.deleted)
        said.append(
            f"{n} of the investors listed {plural(n, 'is', 'are')} no longer served by the "
            "service (soft-deleted since the deals)."
        )
    if gone.others:
        unread = ""
        if gone.unread:
            n = len(gone.unread)
            unread = (
                f" ({gone.profiles_unread}, so whether {plural(n, 'it is', 'they are')} "
                "soft-deleted is not known)"
            )
        said.append(
            f"{len(gone.others)} answered 404 on /investors/{{id}}/co_investors ({gone.why})"
            f"{unread}."
        )
    return " ".join([*said, "Their co-investors are not shown."])


def _investors(data: ReportData, t: Mapping[str, pd.DataFrame]) -> Section:
    top = t["top_investors"]
    pairs = t["co_investment_pairs"]
    window = _span((data.periods.start, data.periods.end))
    no_top, no_pairs = _no_investors(data, top)
    return Section(
        "investors",
        "Investors",
        (
            Text(
                f"The most active investors of the cohort's deals in the window, {window} "
                "(deals they led or bought), and their co-investment as the service counts it: its "
                "/investors/{id}/co_investors lists, which hold every participant of every deal "
                "of each investor, not only leads."
                + (
                    f" {_unserved(data.co_investors_unserved)}"
                    if data.co_investors_unserved.ids
                    else ""
                ),
                css="lead",
            ),
            Row(
                (
                    _chart(
                        lambda ax: top_investors(data.deals, top=len(top) or 1, ax=ax),
                        7.0,
                        0.26 * max(len(top), 4) + 1.4,
                    ),
                    _chart(
                        lambda ax: co_investment(
                            data.co_investors, names=data.investor_names, top=15, ax=ax
                        ),
                        7.0,
                        0.26 * 15 + 1.4,
                    ),
                )
            ),
            Row(
                (
                    table(
                        top.drop(columns=["participant_id"]),
                        index=False,
                        caption=f"Most active investors in the window, {window}",
                        empty=no_top,
                    ),
                    table(
                        pairs.head(15)[
                            ["name_a", "name_b", "shared_deals", "first_date", "last_date"]
                        ],
                        index=False,
                        caption="Pairs by deals shared (whole history)",
                        empty=no_pairs,
                        labels={
                            "name_a": "investor",
                            "name_b": "co-investor",
                            "shared_deals": "shared deals",
                            "first_date": "first",
                            "last_date": "last",
                        },
                    ),
                )
            ),
        ),
    )


#: The provenance columns that count (requests, rows): whole numbers on the page.
_PROVENANCE_COUNTS = ("requests", "rows_expected", "rows_received")


def _provenance(data: ReportData) -> pd.DataFrame:
    """One row per pull behind the page, its counts whole numbers (a pull that sent no request,
    such as the comps of a cohort with no listed company, leaves its cells empty: read as
    floats, every count would show as ``5,817.00``)."""
    frame = pd.DataFrame([{"pull": k, **v} for k, v in data.provenance.items()])
    for column in _PROVENANCE_COUNTS:
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce").round().astype("Int64")
    return frame


def _count(value: object) -> str:
    """A count as the charts write it (``1,057``), ``n/a`` when the service gave none.

    Examples
    --------
    >>> _count(1057), _count(np.int64(981)), _count(12.0), _count(None), _count(float("nan"))
    ('1,057', '981', '12', 'n/a', 'n/a')
    """
    if isinstance(value, Real) and not isinstance(value, bool) and np.isfinite(float(value)):
        return f"{round(float(value)):,}"
    return MISSING


def _appendix(data: ReportData, t: Mapping[str, pd.DataFrame], generated: str) -> Section:
    rec = t["reconciliation"]
    label, fmt = METRIC_LABELS[data.metric]
    shown = rec[["bucket", "n_service", "n_local", "median_service", "median_local", "match"]]
    if "partial" in rec:  # the quarters the window covers in part, as the charts label them
        shown = shown.assign(
            bucket=[f"{b} (partial)" if p else b for b, p in zip(rec["bucket"], rec["partial"])]
        )
    checks = t["headline_checks"]
    provenance = _provenance(data)
    threshold = data.small_n_threshold
    meta_deals, meta_trim = rec.attrs["total_deals"], rec.attrs["outliers_trimmed"]
    # the service's n counts every value; the quarterly chart's, the meaningful ones only
    nm_removed = bool(t["quarterly_medians"].attrs.get("nm_removed"))
    methodology: tuple[str, ...] = (
        f"Window: the service's own ({data.service_window[0]} to {data.service_window[1]}, "
        "five years to its latest date)"
        + (
            f", from {data.cohort.since} as asked"
            if data.cohort.since
            else ", starting at the first whole quarter"
        )
        + ".",
        "Cohort: listed companies through Family A search (regions / industries), deals "
        "through Family B filters on the target (target_region / target_verticals) and "
        "deal_type.",
        f"Deal medians: of the meaningful multiples (NM values left out), by the service's "
        f"method: outliers beyond 1.5 IQR trimmed per period, periods with fewer than "
        f"{threshold} values have none, n counted before trimming. Over every value the same "
        "method (dealframe.analytics.bucket_medians) reproduces the service's own "
        "transactions/aggregate; section A shows it does.",
        f"Intervals: {CI_LEVEL:.0%} percentile bootstrap of the median (scipy.stats.bootstrap, "
        f"4,999 resamples) over the deals the median is computed from, shown where n < "
        f"{SMALL_N}.",
        "Capital raised: the sum of deal_raised of the deals that disclose it; M&A deals carry "
        "none.",
        bounds_text(),
        "Partial quarters (the window starts or ends inside them) are drawn hatched and "
        "labelled; missing values are written n/a.",
        "Co-investment: the service's /investors/{id}/co_investors over each investor's "
        "whole history; the most active investors are ranked by the deals of the window they "
        "led (funding rounds) or bought (M&A), from the deal lists.",
    )
    if data.history_counts_unread is not None:  # the page is written all the same: said here
        methodology += (
            "Public median n (the companies with a value of EV/Revenue NTM that month, "
            "headline.csv): not known, so left empty (null); "
            f"{data.history_counts_unread}.",
        )
    return Section(
        "appendix",
        "Appendix: reconciliation, methodology, provenance",
        (
            Heading("A. Reconciliation with the service"),
            Text(
                f"{rec.attrs['summary']} (deals with a value"
                + (", NM included," if nm_removed else "")
                + f" {_count(meta_deals[1])} locally against "
                f"{_count(meta_deals[0])} at the service; outliers trimmed "
                f"{_count(meta_trim[1])} against {_count(meta_trim[0])}); "
                f"{matching(int(checks['match'].sum()), len(checks), 'headline median')}."
            ),
            Row(
                (
                    table(
                        shown.assign(match=shown["match"].map({True: "yes", False: "DIFFERS"})),
                        formats={"median_service": fmt, "median_local": fmt},
                        index=False,
                        scroll=True,
                        caption=f"Median {label} per quarter"
                        + (" over every value (NM included)" if nm_removed else "")
                        + ": service and local",
                        empty=f"No quarter in the window ({_span((data.periods.start, data.periods.end))}) at the "
                        "service or here: nothing to reconcile.",
                        labels={
                            "n_service": "n service",
                            "n_local": "n local",
                            "median_service": "median service",
                            "median_local": "median local",
                        },
                    ),
                    table(
                        checks.assign(match=checks["match"].map({True: "yes", False: "DIFFERS"})),
                        formats={"median_service": "{:.3f}", "median_local": "{:.3f}"},
                        index=False,
                        caption="Headline medians: service and local",
                    ),
                    table(
                        t["comps_rollup"],
                        formats={"sum": "{:,.0f}", "median": "{:,.2f}"},
                        caption="The service's group rollup (groups/current)",
                        empty="No listed company in the cohort: the service has no rollup of it.",
                    ),
                )
            ),
            Heading("B. Methodology"),
            Bullets(methodology),
            Heading("C. Provenance"),
            Text(
                f"Source {data.source}; generated {generated} by dealframe {__version__}. "
                "manifest.json holds the same, with the cohort and the window."
            ),
            table(
                provenance,
                index=False,
                caption="Pulls behind the page",
                formats=dict.fromkeys(_PROVENANCE_COUNTS, "{:,}"),
            ),
        ),
        css="appendix",
    )


def page_sections(
    data: ReportData, headline: Headline, tables: Mapping[str, pd.DataFrame], generated: str
) -> list[Section]:
    """Every section of the page, in order (the anchors of ``REPORT_SECTIONS``)."""
    return [
        _summary(data, headline),
        _comps(data, tables),
        _deals(data, tables),
        _compare(data, tables),
        _investors(data, tables),
        _appendix(data, tables, generated),
    ]
