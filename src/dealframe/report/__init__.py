"""The report on a cohort: ``build_report(client, out_dir)`` and ``dealframe report``.

One self-contained HTML page a portfolio manager reads in a minute (a summary with the
data's as-of date and headline figures, then public comps, private deals, private against
public multiples and investors, with the reconciliation, methodology and provenance in an
appendix) and the tables behind it as Parquet and CSV; a TOML file of cohorts writes one
report per cohort. See docs/report.md. The charts are those of :mod:`dealframe.plot`.

Needs the ``report`` extra (matplotlib). Importing this package does not import
matplotlib; the first use of :func:`build_report` does, and raises
:class:`~dealframe.errors.ExtraMissing` (an ``ImportError`` naming ``dealframe[report]``)
without it.

Examples
--------
>>> import dealframe, dealframe.sandbox
>>> from dealframe.report import build_report
>>> with dealframe.sandbox.run(scale=0.05) as sb, dealframe.Client.for_sandbox(sb) as c:
...     paths = build_report(c, "report-out", cohort={"region": "Oceania"})  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dealframe.errors import needs_extra

if TYPE_CHECKING:  # type checkers see the real signatures; importing stays light
    from .build import REPORT_SECTIONS, REPORT_TABLES, ReportPaths, build_report

__all__ = ["REPORT_SECTIONS", "REPORT_TABLES", "ReportPaths", "build_report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        with needs_extra("the report", "report", "matplotlib"):
            from . import build

        return getattr(build, name)
    raise AttributeError(f"module 'dealframe.report' has no attribute {name!r}")
