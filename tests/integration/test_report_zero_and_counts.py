"""The report writes no signed zero, and its quarterly chart says what its n counts.

Audit findings: the comps table showed "-0" for an EBITDA LTM of -0.46 ($m, formatted
``{:,.0f}``) and the "Private against public" table "-0%" for a discount of 0.48% (``{:+.0%}``);
the quarterly chart's title and alt text said "955 deals with a value" and its caption "the deals
with a value" while appendix A said "deals with a value 981 locally against 981 at the service":
the chart counts the meaningful multiples only (NM left out), the reconciliation every value.

Northern Europe of the session sandbox (scale 0.1) has an EV/EBITDA discount of all deals to the
public comps under half a percent over the whole window; the drift proxy gives the first company
of every current-data answer an EBITDA LTM of -0.4598 (the audit's value), which the sandbox does
not serve.
"""

from __future__ import annotations

import html as html_text
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
from dealframe.report import build_report

COHORT = {"region": "Northern Europe"}
EBITDA = -0.4598
#: A figure that rounds to zero written with a sign: "-0", "+0%", "-0.0x", "$-0m" ...
SIGNED_ZERO = re.compile(r"(?<![\w.])\$?[+-]\$?0(?:\.0+)?(?:%|x|m|bn)?(?![\w.,])")


def _first_ebitda(doc: Any) -> Any:
    data = doc.get("data") if isinstance(doc, dict) else None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data[0]["ebitdaLtm"] = EBITDA
    return doc


@pytest.fixture(scope="module")
def written(sandbox: Any, tmp_path_factory: Any) -> Iterator[Any]:
    with Proxy(sandbox.url) as proxy:
        proxy.add(r"/companies/current$", edit(_first_ebitda, "EBITDA LTM -0.4598"))
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


def _alt(page: str, start: str) -> str:
    alts = [html_text.unescape(a) for a in re.findall(r'alt="([^"]*)"', page)]
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
