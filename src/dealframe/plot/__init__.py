"""Charts as functions: each takes the frames the client returns and returns the Axes.

Every chart has a title, labelled axes, the number of items behind it where it matters,
and alt text (:func:`alt_text`) that says in words what the chart shows. Missing values
are written "n/a" and not-meaningful multiples "NM" (never a missing bar that reads as
zero); quarters the window covers only in part are drawn hatched and labelled "partial".

Pass ``ax=`` to draw into your own figure; without it a chart makes a new pyplot figure
(as pandas' ``DataFrame.plot`` does), which a notebook shows under the cell. The report
draws into standalone figures (:func:`figure`) and never touches pyplot.

Needs the ``report`` extra (matplotlib): without it, importing this package raises
:class:`~dealframe.errors.ExtraMissing` (an ``ImportError`` naming ``dealframe[report]``).

==============================  ==============================================================
:func:`comps_multiples`         a multiple per company (``public.current``), median line
:func:`growth_vs_multiple`      growth against a multiple, one point per company
:func:`group_history`           the group's median by month (``group_time_series``)
:func:`deals_per_quarter`       deals per quarter by type (``private.deals``)
:func:`capital_raised`          capital raised per quarter (``private.deals``)
:func:`quarterly_medians`       median per month, quarter or year with band, n, intervals
:func:`private_vs_public`       deal multiples beside the public comps' multiples
:func:`top_investors`           most active lead investors and buyers (``private.deals``)
:func:`co_investment`           investor pairs by shared deals (``private.co_investors``)
==============================  ==============================================================

Examples
--------
Deals of a small sandbox (the sandbox's data at scale 0.02), drawn into a standalone figure;
in a notebook, ``fig, ax = plt.subplots(figsize=(8, 4))`` does as well:

>>> import dealframe, dealframe.sandbox
>>> import dealframe.plot as dplot
>>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
...     deals = client.private.deals(target_region=["Western Europe"])
>>> fig, ax = dplot.figure(8, 4)
>>> ax = dplot.deals_per_quarter(deals, ax=ax)
>>> print(dplot.alt_text(ax))  # doctest: +NORMALIZE_WHITESPACE
Stacked bars of deals per quarter by deal type, 137 deals over 54 quarters (2013-Q1 to
2026-Q2); the busiest quarter was 2023-Q2 with 7 deals.

At the sandbox's default scale the same deals are 6,757 over 58 quarters (2012-Q1 to
2026-Q2), the busiest 2025-Q4 with 224.
"""

from __future__ import annotations

from dealframe.errors import needs_extra

with needs_extra("dealframe.plot", "report", "matplotlib"):  # ExtraMissing, an ImportError
    from ._base import alt_text, figure, png
    from .compare import private_vs_public
    from .comps import comps_multiples, group_history, growth_vs_multiple
    from .deals import capital_raised, deals_per_quarter, quarterly_medians
    from .investors import co_investment, top_investors

__all__ = [
    "alt_text",
    "capital_raised",
    "co_investment",
    "comps_multiples",
    "deals_per_quarter",
    "figure",
    "group_history",
    "growth_vs_multiple",
    "png",
    "private_vs_public",
    "quarterly_medians",
    "top_investors",
]
