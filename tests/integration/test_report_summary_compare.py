"""The Summary's private-against-public sentence gives the figures of the section it sums up.

The sentence computed its own public median (every meaningful value, untrimmed, no small-n
threshold) while the "Private against public" section below it trims both sides and gives no
median under the service's threshold: for North America the page said a 22% premium in the
Summary and +29% in the section, for South Asia a "2% discount" from 3 listed companies where
the section has no public median. Both are now read from one summary
(``compare_multiples(...).summary`` of the last twelve months).
"""

from __future__ import annotations

import html as html_text
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _report_builds import session_report

#: Cohorts of the scale-0.1 sandbox: North America and Edtech have a public median of the last
#: twelve months; South Asia has 3 listed companies with one, under the threshold of 5.
COHORTS = ({"region": "North America"}, {"vertical": "Edtech"}, {"region": "South Asia"})


@pytest.fixture(scope="module")
def reports(sandbox: Any) -> dict[str, tuple[str, pd.DataFrame]]:
    """Per cohort: the Summary's visible text and the section's rows of EV/Revenue, last 12
    months (index ``group``). The summary's text and the section's table are read, no chart:
    each report is one of this process's (_report_builds.py), with or without its charts."""
    out: dict[str, tuple[str, pd.DataFrame]] = {}
    for cohort in COHORTS:
        name = next(iter(cohort.values()))
        paths = session_report(sandbox, cohort, charts=False).paths
        page = paths.html.read_text(encoding="utf-8")
        summary = re.search(r'<section id="summary"[^>]*>(.*?)</section>', page, re.DOTALL)
        assert summary is not None
        text = re.sub(r"<[^>]+>", " ", re.sub(r'src="data:[^"]+"', "", summary.group(1)))
        table = pd.read_parquet(paths.parquet["multiples_comparison"])
        rows = table[(table["metric"] == "ev_revenue") & (table["period"] == "last 12 months")]
        out[name] = (" ".join(html_text.unescape(text).split()), rows.set_index("group"))
    return out


@pytest.mark.parametrize("name", [next(iter(c.values())) for c in COHORTS])
def test_the_summary_sentence_gives_the_sections_figures(reports, name):
    text, rows = reports[name]
    public, deals = rows.loc["public comps"], rows.loc["all deals"]
    assert np.isfinite(deals["median"])
    if np.isfinite(public["median"]):
        word = "premium" if deals["vs_public"] >= 0 else "discount"
        said = (
            f"priced at a median {deals['median']:.1f}x EV/Revenue (n={deals['n']}), against "
            f"{public['median']:.1f}x for the cohort's {public['n']} listed companies over the "
            f"same months (EV/Revenue LTM): a {abs(deals['vs_public']):.0%} {word}."
        )
        assert said in text, (name, text)
    else:
        assert public["n"] > 0, "the cohort chosen has comps under the threshold"
        said = (
            "Private and public EV/Revenue cannot be compared: "
            f"{public['n']} of the cohort's listed companies have a meaningful EV/Revenue LTM "
            "over the same months, fewer than the 5 a median needs."
        )
        assert said in text, (name, text)
        assert "premium" not in text and "discount" not in text


def test_one_cohort_is_under_the_threshold(reports):
    """The cohorts above cover both branches of the sentence."""
    medians = [rows.loc["public comps", "median"] for _, rows in reports.values()]
    assert any(np.isfinite(medians)) and not all(np.isfinite(medians))
