"""An aggregate whose median or quartile the service writes ``Infinity`` (read as written:
``inf``, with a ServiceContractWarning) broke ``plot.quarterly_medians`` with matplotlib's
``ValueError: Axis limits cannot be NaN or Inf``, and the report's checks against the service
said such a median matched any local one (the tolerance, relative to it, was infinite) and
wrote it ``infx``. Now the chart leaves infinite values out, a MissingDataWarning and the alt
text naming their quarters; the report's checks say they differ and write ``inf``. The drift
proxy serves the infinities (the sandbox does not)."""

from __future__ import annotations

import html as html_text
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Proxy, edit
from _report_builds import alt_text_only

import dealframe
import dealframe.report.pages as pages
from dealframe.notices import MissingDataWarning
from dealframe.plot import alt_text, figure, quarterly_medians
from dealframe.report import build_report

AGGREGATE = r"/transactions/aggregate$"
COHORT = {"region": "Western Europe"}


def _infinite(doc: Any) -> Any:
    """The first bucket with a median: median ``Infinity``; the second: q3 ``-Infinity``."""
    valued = [it for it in doc.get("data") or () if isinstance(it, dict) and it.get("median")]
    if valued:
        valued[0]["median"] = "Infinity"
    if len(valued) > 1:
        valued[1]["q3"] = "-Infinity"
    return doc


@pytest.fixture(scope="module")
def proxied(sandbox: Any) -> Iterator[Any]:
    with Proxy(sandbox.url) as proxy:
        proxy.add(AGGREGATE, edit(_infinite, "Infinity in the first medians"))
        with dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client:
            yield client


def test_the_chart_leaves_infinite_values_out_and_names_their_quarters(proxied):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the client's finding on the body
        buckets = proxied.private.aggregate(
            "ev_revenue", "quarter", {"target_region": "Western Europe"}
        )
    first = buckets["bucket"][pd.to_numeric(buckets["median"]) == float("inf")].tolist()
    second = buckets["bucket"][pd.to_numeric(buckets["q3"]) == -float("inf")].tolist()
    assert len(first) == 1 and len(second) == 1  # the service's infinities, read as written
    with pytest.warns(MissingDataWarning) as said:
        ax = quarterly_medians(buckets, ax=figure()[1])
    named = [str(w.message) for w in said if "infinite" in str(w.message)]
    assert named == [
        "quarterly_medians: infinite values not drawn: "
        f"{first[0]} (median inf), {second[0]} (q3 -inf)"
    ], named
    for line in ax.get_lines():
        assert pd.Series(line.get_ydata(), dtype=float).abs().ne(float("inf")).all()
    assert pd.Series(ax.get_ylim()).abs().lt(float("inf")).all()
    assert f"Infinite values not drawn in {first[0]}, {second[0]}." in alt_text(ax)
    n_row = [t.get_text() for t in ax.texts][1:]  # after the row's "n"
    at = buckets["bucket"].tolist().index(first[0])
    assert n_row[2 * at : 2 * at + 2] == ["n/a", f"{int(buckets['n'][at]):,}"], n_row


@pytest.fixture(scope="module")
def written(proxied: Any, tmp_path_factory: Any) -> Any:
    # the charts drawn from the infinite medians, not rendered as PNGs (half of a report's
    # time): the tables and the page's cells are read
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as patch:
        warnings.simplefilter("ignore")
        patch.setattr(pages, "_chart", alt_text_only)
        return build_report(proxied, tmp_path_factory.mktemp("inf"), cohort=COHORT, progress=False)


def test_the_report_says_an_infinite_service_median_differs(written):
    rec = pd.read_parquet(written.parquet["reconciliation"])
    infinite = rec[rec["median_service"] == float("inf")]
    assert len(infinite) == 1 and infinite["median_local"].notna().all()
    assert not infinite["match"].any()  # inf matched any number
    checks = pd.read_parquet(written.parquet["headline_checks"])
    assert (checks["median_service"] == float("inf")).any()
    assert not checks.loc[checks["median_service"] == float("inf"), "match"].any()
    page = written.html.read_text(encoding="utf-8")
    cells = [html_text.unescape(c) for c in re.findall(r'<td class="num">([^<]*)</td>', page)]
    assert "inf" in cells
    assert not [c for c in cells if "inf" in c and c not in ("inf", "-inf")], cells  # no infx
