"""Reports for the report's tests, at the cost their assertions need.

A report's charts are drawn from the frames already pulled, with no request of their own, and
are most of its time (about four fifths at the session sandbox's scale): half in the plot
functions, half in rendering their PNG. A test that reads a report's tables, text or requests
leaves them undrawn (:func:`undrawn`); one that reads the charts' alt text, or the warnings the
plot functions give, draws them without the PNG (:func:`alt_text_only`); one that reads the
PNGs or their layout draws them whole (``dealframe.report.pages._chart``, as the product does).

:func:`session_report` builds a report of the session sandbox once per process: the files that
read the same cohort's report (test_report.py, test_report_summary_compare.py,
test_report_headline_prior_interval.py) share it. Its files are read, never written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import dealframe
import dealframe.report.pages as pages
from dealframe.plot import alt_text, figure
from dealframe.report import build_report

__all__ = ["Built", "alt_text_only", "session_report", "undrawn"]


def undrawn(draw: Callable[..., Any], *size: float) -> pages.Chart:
    """For ``pages._chart``: no chart drawn, no alt text (the page is written as ever)."""
    return pages.Chart(b"", "")


def alt_text_only(draw: Callable[..., Any], width: float = 7.0, height: float = 3.9) -> pages.Chart:
    """For ``pages._chart``: the chart drawn on its Axes (its plot function's warnings given)
    and its alt text written, as the page has them; no PNG rendered."""
    fig, ax = figure(width, height)
    draw(ax=ax)
    return pages.Chart(b"", alt_text(ax))


@dataclass(frozen=True)
class Built:
    """A report of :func:`session_report`: its paths and the progress lines it said."""

    paths: Any
    lines: tuple[str, ...]
    drawn: bool


_BUILT: dict[tuple[int, str, str], Built] = {}


def session_report(sandbox: Any, cohort: Mapping[str, Any], *, charts: bool = True) -> Built:
    """The report of ``cohort`` on the session ``sandbox`` (default metric and top), built once
    per process. ``charts=False``: a test that reads no chart takes a report built with its
    charts or without them, whichever this process built first; ``charts=True`` one whose
    charts are drawn whole."""
    key = (id(sandbox), sandbox.url, json.dumps(dict(cohort), sort_keys=True))
    held = _BUILT.get(key)
    if held is not None and (held.drawn or not charts):
        return held
    base = Path(os.environ.get("XDG_CACHE_HOME") or tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="dealframe-report-", dir=base))
    lines: list[str] = []
    with (
        dealframe.Client.for_sandbox(sandbox, progress=False) as client,
        pytest.MonkeyPatch.context() as patch,
    ):
        if not charts:
            patch.setattr(pages, "_chart", undrawn)
        paths = build_report(client, out, cohort=dict(cohort), progress=lines.append)
    _BUILT[key] = Built(paths, tuple(lines), charts)
    return _BUILT[key]
