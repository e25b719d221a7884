"""The batch report: ``build_report(client, out_dir)`` and ``dealframe report --out DIR``.

One self-contained HTML page (public comps of a group, its valuation history,
deal activity and deal multiples reconciled against the service's aggregate,
the most active investors and their co-investment pairs) and the tables behind
it as Parquet and CSV. See docs/report.md.

Needs the ``report`` extra (matplotlib). Importing this package does not import
matplotlib; the first use of :func:`build_report` does.

Examples
--------
>>> import dealframe, dealframe.sandbox
>>> from dealframe.report import build_report
>>> with dealframe.sandbox.run(scale=0.05) as sb, dealframe.Client.for_sandbox(sb) as c:
...     paths = build_report(c, "report-out")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

__all__ = ["REPORT_SECTIONS", "REPORT_TABLES", "ReportPaths", "build_report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module 'dealframe.report' has no attribute {name!r}")
