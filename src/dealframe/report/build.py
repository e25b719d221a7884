"""``build_report``: gather, build the tables, draw, render and write (see docs/report.md)."""

from __future__ import annotations

import datetime as dt
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from dealframe._wording import counted, matching
from dealframe.arguments import checked_keywords, integer_in
from dealframe.errors import ValidationError
from dealframe.notices import MissingDataWarning
from dealframe.plot.shaping import (
    co_investment_pairs,
    investor_activity,
    participant_rows,
    quarterly_activity,
)

from .cohort import DEFAULT_COHORT, Cohort, check_metric, parse_cohort, parse_date
from .files import json_safe, prepare_out_dir, write_manifest, write_tables, write_text
from .gather import ReportData, gather, public_n_unknown
from .headline import CI_LEVEL, SMALL_N, Headline, build_headline
from .pages import page_sections
from .progress import Progress, stderr_sink
from .render import render_page
from .tables import (
    comps_summary,
    comps_table,
    multiples_comparison,
    notable_deals,
    partial_buckets,
    quarterly_medians_table,
    reconciliation_table,
    rollup_table,
)

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["REPORT_SECTIONS", "REPORT_TABLES", "ReportPaths", "build_report"]

#: Section anchors of report.html, in order.
REPORT_SECTIONS: tuple[str, ...] = ("summary", "comps", "deals", "compare", "investors", "appendix")
#: Tables written next to report.html (``<name>.parquet`` and ``<name>.csv``).
REPORT_TABLES: tuple[str, ...] = (
    "headline",
    "comps",
    "comps_summary",
    "comps_rollup",
    "valuation_history",
    "quarterly",
    "quarterly_medians",
    "deal_aggregate",
    "notable_deals",
    "multiples_comparison",
    "top_investors",
    "co_investment_pairs",
    "reconciliation",
    "headline_checks",
)
_STAGES = 7


@dataclass
class ReportPaths:
    """Where the report was written.

    Attributes
    ----------
    html : Path
        ``report.html`` (self-contained).
    manifest : Path
        ``manifest.json``: cohort, window, as-of date, each table's rows, files and
        ``attrs``, provenance of each pull.
    tables : dict
        ``{name: {"parquet": Path, "csv": Path}}`` for every name in :data:`REPORT_TABLES`.
    seconds : float
        Time the report took.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> import dealframe, dealframe.sandbox
    >>> with tempfile.TemporaryDirectory() as tmp, dealframe.sandbox.run(scale=0.02) as sb:
    ...     with dealframe.Client.for_sandbox(sb) as client:
    ...         paths = build_report(client, tmp, cohort={"region": "Oceania"})
    ...         print(paths.html.name, paths.manifest.name, paths.parquet["top_investors"].name)
    ...         print(len(pd.read_parquet(paths.parquet["top_investors"])))
    report.html manifest.json top_investors.parquet
    15
    >>> sorted(paths.tables) == sorted(REPORT_TABLES), sorted(paths.tables["comps"])
    (True, ['csv', 'parquet'])
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
    raise ValidationError(
        "progress", "True, False, None or a function taking one line", got=progress
    )


def _build_tables(data: ReportData, headline: Headline) -> dict[str, pd.DataFrame]:
    deals = data.deals
    window = (data.periods.start, data.periods.end)
    top = len(data.investor_names) or 1
    return {
        "headline": headline.table,
        "comps": comps_table(data.current),
        "comps_summary": comps_summary(data.current),
        "comps_rollup": rollup_table(data.group_current),
        "valuation_history": data.history,
        "quarterly": quarterly_activity(deals, window),
        # every table of quarters marks those the window covers in part, as quarterly does
        "quarterly_medians": partial_buckets(
            quarterly_medians_table(
                data.aggregate,
                deals,
                data.metric,
                SMALL_N,
                CI_LEVEL,
                small_n_threshold=data.small_n_threshold,
            ),
            window,
        ),
        "deal_aggregate": partial_buckets(data.aggregate, window),
        # the summary's twelve months, also when the window starts later (``since``)
        "notable_deals": notable_deals(data.deals_pulled, data.periods.ltm[0]),
        "multiples_comparison": multiples_comparison(data.comparisons),
        "top_investors": investor_activity(participant_rows(deals), top),
        "co_investment_pairs": co_investment_pairs(data.co_investors, data.investor_names, None),
        "reconciliation": partial_buckets(
            reconciliation_table(
                data.aggregate, deals, data.metric, small_n_threshold=data.small_n_threshold
            ),
            window,
        ),
        "headline_checks": headline.checks,
    }


def _long_date(iso: str) -> str:
    return pd.Timestamp(iso).strftime("%-d %B %Y")


def _manifest(
    data: ReportData,
    tables: Mapping[str, pd.DataFrame],
    written: Mapping[str, Mapping[str, Path]],
    generated: str,
) -> dict[str, Any]:
    return {
        "cohort": data.cohort.as_dict(),
        "label": data.cohort.label,
        "metric": data.metric,
        "as_of": data.as_of,
        "latest_deal": data.latest_deal,
        "window": {"from": data.periods.start, "to": data.periods.end},
        "service_window": {"from": data.service_window[0], "to": data.service_window[1]},
        "periods": {
            "last_12_months": list(data.periods.ltm),
            "prior_12_months": list(data.periods.prior),
        },
        "source": data.source,
        "generated": generated,
        "sections": list(REPORT_SECTIONS),
        "reconciliation": tables["reconciliation"].attrs["summary"],
        "headline_checks": matching(
            int(tables["headline_checks"]["match"].sum()),
            len(tables["headline_checks"]),
            "headline median",
        ),
        "tables": {
            n: {
                "rows": len(tables[n]),
                "files": [p.name for p in written[n].values()],
                # what the files leave out: nm_removed (n counts meaningful values only), ci ...
                "attrs": json_safe(tables[n].attrs),
            }
            for n in REPORT_TABLES
        },
        "provenance": data.provenance,
    }


@checked_keywords
def build_report(
    client: Client,
    out_dir: str | os.PathLike[str],
    *,
    cohort: Mapping[str, Any] | Cohort | None = None,
    group: Mapping[str, Any] | None = None,
    window: tuple[str | dt.date | None, None] | None = None,
    metric: str = "ev_revenue",
    top: int = 15,
    progress: bool | Callable[[str], None] | None = None,
) -> ReportPaths:
    """Build the report on a cohort: one HTML page and the tables behind it.

    Parameters
    ----------
    client : dealframe.Client
        Any client (``Client()`` from the environment, or ``Client.for_sandbox(sb)``).
    out_dir : str or Path
        Folder for ``report.html``, ``manifest.json`` and the tables; created if needed.
    cohort : mapping, optional
        ``region`` (the region vocabulary) and/or ``vertical``, optional ``deal_type`` (a
        type or a list) and ``since`` (first deal date); default
        ``{"region": "Western Europe"}``. See :func:`~dealframe.report.cohort.parse_cohort`.
    group : mapping, optional
        The earlier name of ``cohort`` (``{"region": R}`` or ``{"vertical": V}``).
    window : (date_from, None), optional
        The earlier way to give ``since``.
    metric : str, default "ev_revenue"
        Metric of the quarterly medians (ev_revenue, ev_ebitda, valuation, raised, revenue,
        ebitda).
    top : int, default 15
        Investors listed, and whose co-investors are read.
    progress : bool or callable, optional
        True prints stage lines to standard error; a function receives each line.

    Returns
    -------
    ReportPaths
        ``html``, ``manifest`` and ``tables`` (Parquet and CSV per table name).

    Raises
    ------
    dealframe.errors.ValidationError
        Bad options (before any request), an ``out_dir`` that cannot be written, a vertical
        no company has, ``since`` after the service's latest date.
    dealframe.errors.DealframeError
        Whatever the client raises (authentication, transport, service errors).

    Warns
    -----
    dealframe.notices.MissingDataWarning
        Once the page is written, when the public median's ``n`` is not known (its pulls
        failed, or their answer cannot stand behind the group's median): ``headline``'s ``n``
        of the public rows is left empty (null).

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> from dealframe.report import build_report
    >>> with dealframe.sandbox.run(scale=0.05) as sb, dealframe.Client.for_sandbox(sb) as c:
    ...     paths = build_report(c, "out", cohort={"region": "North America",
    ...                                            "deal_type": ["Venture", "Growth"]})  # doctest: +SKIP
    >>> paths.html  # doctest: +SKIP
    PosixPath('out/report.html')
    """
    sink = _sink(progress)
    if cohort is not None and group is not None:
        raise ValidationError(
            "group", "None when cohort is given (group is its earlier name)", got=group
        )
    if isinstance(cohort, Cohort):
        if window is not None:
            raise ValidationError("window", "None with a Cohort (give it since=)", got=window)
        parsed = cohort
    else:
        given = cohort if cohort is not None else group
        if given is not None and not isinstance(given, Mapping):  # before dict() reads it
            argument, also = ("cohort", ", a Cohort") if cohort is not None else ("group", "")
            raise ValidationError(
                argument,
                f"a mapping such as {{'region': 'Western Europe'}}{also} or None",
                got=given,
            )
        chosen = dict(DEFAULT_COHORT if given is None else given)
        if window is not None:
            if (
                isinstance(window, (str, bytes))
                or not hasattr(window, "__len__")
                or len(window) != 2
                or window[1] is not None
            ):
                raise ValidationError(
                    "window",
                    "(since, None): the report ends at the service's latest date",
                    got=window,
                )
            chosen["since"] = parse_date(window[0], "window[0]")
        # a key refused is named as the argument it came in (``group``, its earlier name)
        parsed = parse_cohort(chosen, where="cohort" if group is None else "group")
    metric = check_metric(metric)
    top = integer_in(top, "top", 1, 100)
    out = prepare_out_dir(out_dir)
    steps = Progress(sink, _STAGES)
    data = gather(client, parsed, metric, top, steps)
    with steps.stage("tables: headline, comps, quarters, reconciliation, investors") as st:
        headline = build_headline(data)
        tables = _build_tables(data, headline)
        st.done(
            f"{tables['reconciliation'].attrs['summary']}; "
            f"{counted(len(tables['comps']), 'comp')}, "
            f"{counted(len(tables['co_investment_pairs']), 'pair')}"
        )
    with steps.stage("charts and page") as st:
        generated = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        sections = page_sections(data, headline, tables, generated)
        title = f"{data.cohort.label}: private deals and public comps"
        subtitle = (
            f"Data as of {_long_date(data.as_of)} · deals {data.periods.start} to "
            f"{data.periods.end}"
        )
        facts = [
            ("cohort", data.cohort.label),
            ("data as of", data.as_of),
            ("deals in the window", f"{len(data.deals):,}"),
            ("listed companies", f"{len(data.current):,}"),
        ]
        page = render_page(
            title, subtitle, facts, sections, [f"{n}.parquet/.csv" for n in REPORT_TABLES]
        )
        st.done(f"{len(page) / 1e6:.1f} MB of HTML")
    with steps.stage(f"writing {out}") as st:
        written = write_tables(tables, out)
        html_path = write_text(out / "report.html", page)
        manifest_path = write_manifest(
            out / "manifest.json", _manifest(data, tables, written, generated)
        )
        st.done(f"report.html, manifest.json and {counted(len(written), 'table')}")
    said = public_n_unknown(data)
    if said is not None:  # once the page is written: a later stage's failure writes none
        warnings.warn(said, MissingDataWarning, stacklevel=2)
    return ReportPaths(
        html=html_path, manifest=manifest_path, tables=written, seconds=steps.elapsed
    )
