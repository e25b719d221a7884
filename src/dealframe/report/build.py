"""``build_report``: gather, build the tables, draw, render and write (see docs/report.md)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from dealframe.frames.participants import co_investment_edges, explode_participants

from . import plots
from .files import prepare_out_dir, write_manifest, write_tables, write_text
from .gather import (
    DEFAULT_GROUP,
    HISTORY_FIELD,
    ReportData,
    check_metric,
    gather,
    parse_group,
    parse_window,
)
from .progress import Progress, stderr_sink
from .render import Image, Row, Section, Text, render_page, table
from .tables import (
    co_investment_pairs,
    comps_table,
    deal_activity,
    reconciliation_table,
    rollup_table,
    top_investors,
)

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["REPORT_SECTIONS", "REPORT_TABLES", "ReportPaths", "build_report"]

#: Section anchors of report.html, in order.
REPORT_SECTIONS: tuple[str, ...] = ("comps", "valuation", "deals", "investors")
#: Tables written next to report.html (``<name>.parquet`` and ``<name>.csv``).
REPORT_TABLES: tuple[str, ...] = ("comps", "comps_rollup", "valuation_history", "deal_activity",
                                  "deal_aggregate", "reconciliation", "top_investors",
                                  "co_investment_pairs")
_STAGES = 7

_COMPS_LABELS = {
    "name": "company", "marketCap": "mkt cap $m", "enterpriseValue": "EV $m",
    "revenueLtm": "revenue LTM $m", "revenueNtm": "revenue NTM $m", "ebitdaLtm": "EBITDA LTM $m",
    "ebitdaNtm": "EBITDA NTM $m", "evRevenueLtm": "EV/rev LTM", "evRevenueNtm": "EV/rev NTM",
    "evEbitdaLtm": "EV/EBITDA LTM", "evEbitdaNtm": "EV/EBITDA NTM",
    "marginGrossLtm": "gross margin", "marginEbitdaLtm": "EBITDA margin",
    "revenueGrowthNtmLtm": "growth NTM/LTM", "ruleOf40": "rule of 40",
}
_MONEY = ("marketCap", "enterpriseValue", "revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm")
_MULTIPLES = ("evRevenueLtm", "evRevenueNtm", "evEbitdaLtm", "evEbitdaNtm")
_PERCENT = ("marginGrossLtm", "marginEbitdaLtm", "revenueGrowthNtmLtm", "ruleOf40")
_COMPS_FORMATS = {**{c: "{:,.0f}" for c in _MONEY}, **{c: "{:.1f}x" for c in _MULTIPLES},
                  **{c: "{:.1f}%" for c in _PERCENT}}
_METRICS = {"ev_revenue": ("EV/Revenue", "{:.2f}x"), "ev_ebitda": ("EV/EBITDA", "{:.2f}x"),
            "valuation": ("valuation ($m)", "{:,.0f}"), "raised": ("amount raised ($m)", "{:,.1f}"),
            "revenue": ("revenue ($m)", "{:,.1f}"), "ebitda": ("EBITDA ($m)", "{:,.1f}")}


@dataclass
class ReportPaths:
    """Where the report was written.

    Attributes
    ----------
    html : Path
        ``report.html`` (self-contained).
    manifest : Path
        ``manifest.json``: options, window, source and provenance of each table.
    tables : dict
        ``{name: {"parquet": Path, "csv": Path}}`` for every name in :data:`REPORT_TABLES`.
    seconds : float
        Time the report took.
    """

    html: Path
    manifest: Path
    tables: dict[str, dict[str, Path]] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def parquet(self) -> dict[str, Path]:
        """Parquet file of each table."""
        return {name: files["parquet"] for name, files in self.tables.items()}

    @property
    def csv(self) -> dict[str, Path]:
        """CSV file of each table."""
        return {name: files["csv"] for name, files in self.tables.items()}


def _sink(progress: bool | Callable[[str], None] | None) -> Callable[[str], None] | None:
    if progress is True:
        return stderr_sink
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    from dealframe.errors import ValidationError

    raise ValidationError("progress", "True, False, None or a function taking one line",
                          got=progress)


def _build_tables(data: ReportData, top: int) -> dict[str, pd.DataFrame]:
    exploded = explode_participants(data.deals, roles=("lead_investor", "buyer"))
    return {
        "comps": comps_table(data.current),
        "comps_rollup": rollup_table(data.group_current),
        "valuation_history": data.history,
        "deal_activity": deal_activity(data.deals, data.date_from, data.date_to),
        "deal_aggregate": data.aggregate,
        "reconciliation": reconciliation_table(data.aggregate, data.deals, data.metric),
        "top_investors": top_investors(exploded, top),
        "co_investment_pairs": co_investment_pairs(co_investment_edges(exploded), top),
    }


def _sections(data: ReportData, t: Mapping[str, pd.DataFrame]) -> list[Section]:
    label, fmt = _METRICS[data.metric]
    comps, rollup = t["comps"], t["comps_rollup"]
    median_ntm = rollup["median"].get("evRevenueNtm") if "evRevenueNtm" in rollup.index else None
    companies = data.group_current.attrs.get("companies", len(comps))
    comps_section = Section("comps", f"Public comps: {data.group.label}", (
        Text(f"{len(comps)} listed companies in {data.group.label} (the service's group has "
             f"{companies}). Money in millions of USD, multiples in x, margins and growth in %. "
             "Rollups are the service's own sums and medians over the group."),
        Row((Image(plots.comps_bars(comps, median_ntm), "EV/Revenue NTM per company"),
             table(rollup, formats={"sum": "{:,.0f}", "median": "{:,.2f}"},
                   caption="Group rollup (service): sum and median per field"))),
        table(comps, formats=_COMPS_FORMATS, labels=_COMPS_LABELS, scroll=True,
              caption=f"Comps table ({len(comps)} companies, largest enterprise value first)"),
    ))
    history = t["valuation_history"]
    valuation = Section("valuation", "Valuation over time", (
        Text(f"Left: the median EV/Revenue NTM across the group's companies, month by month "
             f"({data.date_from[:7]} to {data.date_to[:7]}, the service's group time series). "
             "Right: each company's revenue growth against its EV/Revenue NTM today; bigger "
             "points are bigger companies."),
        Row((Image(plots.valuation_line(history, HISTORY_FIELD), "median EV/Revenue NTM by month"),
             Image(plots.growth_scatter(comps), "growth against EV/Revenue NTM"))),
    ))
    rec = t["reconciliation"]
    service = t["deal_aggregate"]
    local_median = rec.set_index("bucket")["median_local"].reindex(service["bucket"])
    meta_deals, meta_trim = rec.attrs["total_deals"], rec.attrs["outliers_trimmed"]
    shown = rec[["bucket", "n_service", "n_local", "median_service", "median_local", "match"]]
    shown = shown.assign(match=shown["match"].map({True: "✓", False: "✗ differs"}))
    deals_section = Section("deals", f"Deal activity and deal {label}", (
        Text(f"{len(data.deals):,} deals with targets in {data.group.label}, "
             f"{data.date_from} to {data.date_to}."),
        Image(plots.activity_bars(t["deal_activity"]), "deals per quarter by type"),
        Text(f"The service's median {label} per quarter (transactions/aggregate: outliers "
             "trimmed by 1.5 IQR, quarters with fewer deals than the small-n threshold "
             "suppressed), and beside it the same quarters recomputed locally from the deals "
             "above with dealframe.analytics."),
        Text(f"Reconciliation: {rec.attrs['summary']} (deals with a value {meta_deals[1]} locally"
             f" vs {meta_deals[0]} at the service; outliers trimmed {meta_trim[1]} vs "
             f"{meta_trim[0]}).", css="summary"),
        Row((Image(plots.aggregate_band(service, local_median, label),
                   f"median {label} per quarter with q1-q3 band"),
             table(shown, formats={"median_service": fmt, "median_local": fmt},
                   labels={"n_service": "n svc", "n_local": "n local",
                           "median_service": "median svc", "median_local": "median local"},
                   index=False, scroll=True, caption="Service vs local, per quarter"))),
    ))
    top, pairs = t["top_investors"], t["co_investment_pairs"]
    investors = Section("investors", "Most active investors", (
        Text("Investors ranked by the deals of the window they led (funding rounds) or bought "
             "in (M&A), from the deals' participant lists (dealframe.explode_participants); "
             "pairs are investors that led or bought the same deals "
             "(dealframe.co_investment_edges)."),
        Row((Image(plots.investor_bars(top), "most active investors"),
             Image(plots.pair_bars(pairs), "co-investment pairs"))),
        Row((table(top.drop(columns=["participant_id"]), index=False,
                   caption="Most active investors"),
             table(pairs[["name_a", "name_b", "shared_deals", "first_date", "last_date"]],
                   index=False, caption="Co-investment pairs"))),
    ))
    return [comps_section, valuation, deals_section, investors]


def _provenance(frame: pd.DataFrame) -> dict[str, Any]:
    keys = ("endpoint", "requests", "from_cache", "rows_expected", "rows_received", "fetched_at")
    return {k: frame.attrs[k] for k in keys if k in frame.attrs}


def build_report(client: Client, out_dir: str | os.PathLike[str], *,
                 group: Mapping[str, str] | None = None, window: Any = None,
                 metric: str = "ev_revenue", top: int = 15,
                 progress: bool | Callable[[str], None] | None = None) -> ReportPaths:
    """Build the batch report: one HTML page and the tables behind it.

    Parameters
    ----------
    client : dealframe.Client
        Any client (``Client()`` from the environment, or ``Client.for_sandbox(sb)``).
    out_dir : str or Path
        Folder for ``report.html``, ``manifest.json`` and the tables; created if needed.
    group : mapping, optional
        ``{"region": R}`` (the region vocabulary) or ``{"vertical": V}``; default
        ``{"region": "Western Europe"}``. Applies to the comps (Family A) and to
        the deals' targets (Family B).
    window : (date_from, date_to), optional
        Deal dates, inclusive, ISO dates; either end None leaves it to the
        service (default: the last five years to the service's today). The
        valuation history covers the same months.
    metric : str, default "ev_revenue"
        Aggregate metric of the deal medians (ev_revenue, ev_ebitda, valuation,
        raised, revenue, ebitda).
    top : int, default 15
        Investors and co-investment pairs listed.
    progress : bool or callable, optional
        True prints stage lines to standard error; a function receives each line.

    Returns
    -------
    ReportPaths
        ``html``, ``manifest`` and ``tables`` (Parquet and CSV per table name).

    Raises
    ------
    dealframe.errors.ValidationError
        Bad options, an ``out_dir`` that cannot be written, a group without companies.
    dealframe.errors.DealframeError
        Whatever the client raises (authentication, transport, service errors).

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> from dealframe.report import build_report
    >>> with dealframe.sandbox.run(scale=0.05) as sb, dealframe.Client.for_sandbox(sb) as c:
    ...     paths = build_report(c, "out", group={"region": "North America"})  # doctest: +SKIP
    >>> paths.html  # doctest: +SKIP
    PosixPath('out/report.html')
    """
    from dealframe.errors import ValidationError

    sink = _sink(progress)
    chosen = parse_group(DEFAULT_GROUP if group is None else group)
    start, end = parse_window(window)
    metric = check_metric(metric)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValidationError("top", "a positive integer", got=top)
    out = prepare_out_dir(out_dir)
    steps = Progress(sink, _STAGES)
    data = gather(client, chosen, (start, end), metric, steps)
    with steps.stage("tables: comps, activity, reconciliation, investors") as st:
        tables = _build_tables(data, top)
        st.done(f"{tables['reconciliation'].attrs['summary']}; "
                f"{len(tables['top_investors'])} investors, "
                f"{len(tables['co_investment_pairs'])} pairs")
    with steps.stage("charts and page") as st:
        sections = _sections(data, tables)
        title = f"dealframe report: {data.group.label}"
        generated = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        facts = [("group", data.group.label), ("deals", f"{data.date_from} to {data.date_to}"),
                 ("metric", data.metric), ("source", data.source), ("generated", generated)]
        page = render_page(title, facts, sections,
                           [f"{n}.parquet/.csv" for n in REPORT_TABLES])
        st.done(f"{len(page) / 1e6:.1f} MB of HTML")
    with steps.stage(f"writing {out}") as st:
        written = write_tables(tables, out)
        html_path = write_text(out / "report.html", page)
        manifest = {
            "group": {data.group.kind: data.group.value}, "metric": data.metric,
            "window": {"from": data.date_from, "to": data.date_to}, "source": data.source,
            "generated": generated, "sections": list(REPORT_SECTIONS),
            "reconciliation": tables["reconciliation"].attrs["summary"],
            "tables": {n: {"rows": len(tables[n]), "files": [p.name for p in written[n].values()]}
                       for n in REPORT_TABLES},
            "provenance": {"current": _provenance(data.current),
                           "group_current": _provenance(data.group_current),
                           "valuation_history": _provenance(data.history),
                           "deal_aggregate": _provenance(data.aggregate),
                           "deals": _provenance(data.deals)},
        }
        manifest_path = write_manifest(out / "manifest.json", manifest)
        st.done(f"report.html, manifest.json and {len(written)} tables")
    return ReportPaths(html=html_path, manifest=manifest_path, tables=written,
                       seconds=steps.elapsed)
