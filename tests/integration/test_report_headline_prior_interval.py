"""The headline card gives the prior period's bootstrap interval where its n is small.

The prior twelve months' median deal multiple had its interval computed (``ci_low`` and
``ci_high`` of ``headline.csv``), but the card showed it only for the current figure:
"n=12, 90% CI 3.8x–11.7x · prior 12 months 4.9x (n=8), +15%". Issue 17 asks for intervals
where n is small: the prior figure now has its own by the same rule (fewer than
``SMALL_N`` values), "prior 12 months 4.9x (n=8, 90% CI 3.3x–6.4x)".

One report on the session sandbox (scale 0.1, seed 7) for a cohort whose prior period has
many deals with a revenue multiple (no interval shown) and few with an EBITDA multiple (its
interval shown): both sides of the rule on one card row each.
"""

from __future__ import annotations

import html
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _report_builds import session_report

from dealframe.report.headline import CI_LEVEL, SMALL_N

COHORT = {"region": "North America"}


@pytest.fixture(scope="module")
def written(sandbox: Any) -> Any:
    """The cohort's report, one of this process's (_report_builds.py): its headline table and
    the summary's cards are read, no chart (built without them unless one was built with)."""
    return session_report(sandbox, COHORT, charts=False).paths


def _x(value: float) -> str:
    return f"{value:.1f}x"


def test_the_prior_figure_shows_its_interval_where_its_n_is_small(written):
    table = pd.read_parquet(written.parquet["headline"])
    page = html.unescape(Path(written.html).read_text(encoding="utf-8"))
    medians = table[table["figure"].str.startswith("median deal ")]
    shown = not_shown = 0
    for figure, rows in medians.groupby("figure"):
        now, prior = (rows[rows["period"] == p].iloc[0] for p in ("ltm", "prior"))
        if not np.isfinite(prior["value"]):
            continue
        n = int(prior["n"])
        before = f"prior 12 months {_x(prior['value'])} (n={n:,}"
        assert before in page, (figure, before)
        interval = f"{CI_LEVEL:.0%} CI {_x(prior['ci_low'])}–{_x(prior['ci_high'])}"
        if n < SMALL_N:
            assert np.isfinite(prior["ci_low"]) and np.isfinite(prior["ci_high"])
            assert f"{before}, {interval})" in page, (figure, interval)
            shown += 1
        else:
            assert f"{before})" in page and f"{before}, {CI_LEVEL:.0%} CI" not in page
            not_shown += 1
        if np.isfinite(now["ci_low"]):  # the current figure's, as before
            assert (
                f"n={int(now['n']):,}, {CI_LEVEL:.0%} CI {_x(now['ci_low'])}–{_x(now['ci_high'])}"
                in page
            )
    assert shown, "the cohort should have a prior median of few values"
    assert not_shown, "the cohort should have a prior median of many values"
