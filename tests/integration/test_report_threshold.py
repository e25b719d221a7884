"""The report on a service whose aggregate answer lacks ``meta.methodology.small_n_threshold``
while its transactions discovery document gives one (3: sandbox profile ``threshold-3``, the
key taken out of every aggregate answer by the drift proxy).

The report used three thresholds on one page: the reconciliation and the quarterly medians
took 5, the headline said "fewer than 5", the appendix printed "fewer than None", while
``compare_multiples`` in the same run read 3 from the discovery document and said so. The
threshold is now resolved once in the gather step and used everywhere, and
``analytics.reconcile`` reads it the same way.
"""

from __future__ import annotations

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
from dealframe import analytics
from dealframe.notices import ServiceContractWarning
from dealframe.report import build_report
from dealframe.sandbox import run

P = "/api/private/v1"
COHORT = {"region": "Western Europe", "deal_type": ["Secondary"]}  # quarters of 3 and 4 deals
DEAL_FILTERS = {"target_region": ["Western Europe"], "deal_type": ["Secondary"]}
METRIC = "valuation"  # no NM rule: the local medians are the service's own


def _without_threshold(doc: Any) -> Any:
    methodology = (doc.get("meta") or {}).get("methodology")
    if isinstance(methodology, dict):
        methodology.pop("small_n_threshold", None)
    return doc


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Proxy]]:
    """A service suppressing buckets below 3 deals, whose aggregate answers do not say so."""
    with run(scale=0.2, profile="threshold-3") as sandbox, Proxy(sandbox.url) as proxy:
        proxy.add(f"^{P}/transactions/aggregate$", edit(_without_threshold, "no threshold"))
        yield sandbox, proxy


@pytest.fixture(scope="module")
def client(served: tuple[Any, Proxy]) -> Iterator[Any]:
    sandbox, proxy = served
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


@pytest.fixture(scope="module")
def written(client: Any, tmp_path_factory: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught, pytest.MonkeyPatch.context() as patch:
        warnings.simplefilter("always")
        # the charts drawn (every warning of the build given, their alt text on the page), not
        # rendered as PNGs (half of a report's time): the tables and the page's text are read
        patch.setattr(pages, "_chart", alt_text_only)
        paths = build_report(
            client, tmp_path_factory.mktemp("thr"), cohort=COHORT, metric=METRIC, progress=False
        )
    return paths, [str(w.message) for w in caught if issubclass(w.category, Warning)]


def test_the_report_uses_the_discovery_threshold_everywhere(written):
    paths, said = written
    rec = pd.read_parquet(paths.parquet["reconciliation"])
    medians = pd.read_parquet(paths.parquet["quarterly_medians"])
    small = medians["n"].between(3, 4)
    assert small.any(), "the test needs quarters of 3 or 4 deals"
    # quarters of 3 and 4 deals have the service's median here too, and match it
    assert medians.loc[small, "median"].notna().all(), medians.loc[small]
    assert rec["match"].all(), rec.loc[~rec["match"]]
    page = paths.html.read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", " ", re.sub(r'src="data:[^"]+"', "", page))
    assert "periods with fewer than 3 values have none" in text
    assert "fewer than None" not in text and "fewer than 5 " not in text
    assert f"{len(rec)} of {len(rec)} buckets match" in text
    used = [m for m in said if "small_n_threshold 3 used" in m]
    assert used and all("from the transactions discovery document" in m for m in used), said
    assert not [m for m in said if "small_n_threshold 5" in m], said


def test_the_report_says_the_missing_threshold_once(written):
    """Review 3, D4: each ``compare_multiples`` of the gather step asked the service for its
    threshold again and said the missing key again: three identical warnings per report.
    The comparisons now use the threshold the gather step resolved (and said)."""
    _, said = written
    used = [m for m in said if "small_n_threshold 3 used" in m]
    assert len(used) == 1, used


def test_reconcile_reads_the_threshold_the_answer_lacks(client):
    with pytest.warns(ServiceContractWarning) as caught:
        rec = analytics.reconcile(client, METRIC, "quarter", DEAL_FILTERS, progress=False)
    frame = rec.frame
    assert frame["match"].all(), frame.loc[~frame["match"]]
    assert (frame["n_service"].between(3, 4)).any(), "the test needs quarters of 3 or 4 deals"
    said = [str(w.message) for w in caught if "small_n_threshold" in str(w.message)]
    assert len(said) == 1, said  # the missing key said once, with the value used
    assert "small_n_threshold 3 used, from the transactions discovery document" in said[0]


def _threshold_as_text(doc: Any) -> Any:
    methodology = (doc.get("meta") or {}).get("methodology")
    if isinstance(methodology, dict) and "small_n_threshold" in methodology:
        methodology["small_n_threshold"] = str(methodology["small_n_threshold"])
    return doc


def test_report_tables_read_a_threshold_written_as_text_alike(served):
    """Review 3, D5: an aggregate answer writing its threshold as text ("3").
    ``reconciliation_table`` read it as 3 (``aggregate_methodology``) while
    ``quarterly_medians_table`` called without ``small_n_threshold`` took 5: quarters of 3
    and 4 deals had a median in one exported table and none in the other."""
    from dealframe.report.tables import quarterly_medians_table, reconciliation_table

    sandbox, _ = served
    with Proxy(sandbox.url) as proxy:
        proxy.add(f"^{P}/transactions/aggregate$", edit(_threshold_as_text, "threshold text"))
        with dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as c:
            service = c.private.aggregate(METRIC, "quarter", DEAL_FILTERS)
            # the client reads it as 3 (and warns); a frame built from the JSON at hand
            # (frames.private.aggregate_frame) keeps the text: the tables are given that
            assert service.attrs["methodology"]["small_n_threshold"] == 3
            service.attrs["methodology"]["small_n_threshold"] = "3"
            window = service.attrs["methodology"]["date_range"]
            deals = c.private.deals(**DEAL_FILTERS, date_from=window["from"], date_to=window["to"])
    medians = quarterly_medians_table(service, deals, METRIC, 30, 0.9)
    rec = reconciliation_table(service, deals, METRIC, "quarter")
    assert rec["match"].all(), rec.loc[~rec["match"]]
    small = medians["n"].between(3, 4)
    assert small.any(), "the test needs quarters of 3 or 4 deals"
    assert medians.loc[small, "median"].notna().all(), medians.loc[small]
    local = rec.set_index("bucket")["median_local"]
    for bucket, median in medians.loc[small, ["bucket", "median"]].itertuples(index=False):
        assert median == pytest.approx(local[bucket]), (bucket, median, local[bucket])
