"""The public comps of ``compare_multiples`` are held to the whole NM rule, as the deals are.

The rule (``multiple_status``) calls a multiple NM when its enterprise value is negative or its
denominator (revenue, EBITDA) is zero or negative, besides a negative value or one above the
bound. The comps of a period carried only their multiples, so for them only the value part
applied: a net-cash, loss-making company (negative EV over negative EBITDA, a positive
EV/EBITDA) was NM in the report's comps table and counted as meaningful in the "Private against
public" section beside it. The comparison now reads the enterprise value and the denominators
from the time series it already pulls (EBITDA as ``revenueLtm * marginEbitdaLtm / 100`` where
the service serves no ``ebitdaLtm``); where the answer holds none of a field, it applies the
value part and says so. The sandbox never serves such a company; the drift proxy plays it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

import dealframe
from dealframe.analytics.multiples import multiple_status
from dealframe.notices import DealframeWarning

SERIES = r"^/api/v[12]/companies/time-series$"
COHORT = {"region": "North America", "date_from": "2025-07-01", "date_to": "2026-06-30"}
#: What the NM rule reads of a comp besides its multiple, and what EBITDA is computed from.
READS = ("enterpriseValue", "revenueLtm", "ebitdaLtm", "marginEbitdaLtm")


@pytest.fixture(scope="module")
def reference(direct: Any) -> dealframe.Comparison:
    return dealframe.compare_multiples(direct, link=False, **COHORT)


@pytest.fixture(scope="module")
def target(reference: dealframe.Comparison) -> str:
    """A comp whose EV/EBITDA and EV/Revenue of the period are meaningful."""
    comps = reference.comps
    ok = (multiple_status(comps, "evEbitdaLtm") == "ok") & (
        multiple_status(comps, "evRevenueLtm") == "ok"
    )
    return str(comps.index[ok.to_numpy()][0])


def _net_cash_loss_maker(sku: str) -> Any:
    """The answer with ``sku``'s enterprise value and EBITDA margin negative in every month,
    its multiples left as the service gave them (EV over EBITDA: two negatives, positive)."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            if item.get("sku") == sku:
                for field in ("enterpriseValue", "marginEbitdaLtm", "ebitdaLtm"):
                    months = item["data"].get(field) or {}
                    item["data"][field] = {m: -abs(v) - 1.0 for m, v in months.items()}
        return doc

    return edit(apply, f"negative EV and EBITDA for {sku}")


def _without(*fields: str) -> Any:
    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            for field in fields:
                item["data"].pop(field, None)
        return doc

    return edit(apply, f"no {', '.join(fields)}")


def test_a_negative_ev_and_ebitda_comp_is_nm_on_the_public_side(via, proxy, reference, target):
    proxy.add(SERIES, _net_cash_loss_maker(target))
    got = dealframe.compare_multiples(via, link=False, **COHORT)
    assert got.comps.at[target, "evEbitdaLtm"] == reference.comps.at[target, "evEbitdaLtm"] > 0
    for metric in ("ev_ebitda", "ev_revenue"):  # a negative EV: NM for both multiples
        was, now = reference.summary.loc[metric], got.summary.loc[metric]
        assert (now["public_n"], now["public_nm"]) == (
            was["public_n"] - 1,
            was["public_nm"] + 1,
        ), metric
    row = got.comps.loc[target]  # what the rule read: the period's medians
    assert row["enterpriseValue"] < 0 and row["ebitdaLtm"] < 0
    # the chart's groups are the summary's: the same rule, the same median
    from dealframe.plot.compare import multiple_groups

    for metric in ("ev_revenue", "ev_ebitda"):
        groups = multiple_groups(
            got.comps, got.deals, metric, window=(COHORT["date_from"], COHORT["date_to"])
        )
        assert groups["public comps"].median() == pytest.approx(
            got.summary.at[metric, "public_median"], rel=1e-12
        )
        assert groups["public comps"].attrs["n"] == got.summary.at[metric, "public_n"]
    assert got.summary.attrs["public_nm_unapplied"] == []


def test_the_comps_carry_what_the_rule_read(reference):
    comps = reference.comps
    for field in ("enterpriseValue", "revenueLtm", "ebitdaLtm"):
        assert comps[field].dtype == "float64" and comps[field].notna().any(), field
    # the sandbox serves no ebitdaLtm series: EBITDA from revenue and margin, its sign kept
    assert (comps["ebitdaLtm"] < 0).any() and (comps["ebitdaLtm"] > 0).any()
    assert reference.summary.attrs["public_nm_unapplied"] == []


def test_fields_the_service_does_not_serve_leave_the_value_part_and_say_so(via, proxy, target):
    proxy.add(SERIES, _net_cash_loss_maker(target), _without(*READS))
    seen = outcome(lambda: dealframe.compare_multiples(via, link=False, **COHORT))
    assert seen.error is None, seen.error
    got = seen.value
    assert got.summary.attrs["public_nm_unapplied"] == [
        "enterpriseValue",
        "revenueLtm",
        "ebitdaLtm",
    ]
    (said,) = seen.warned(DealframeWarning)
    assert "enterpriseValue, revenueLtm, ebitdaLtm" in said and "value" in said
    assert got.comps[["enterpriseValue", "revenueLtm", "ebitdaLtm"]].isna().all().all()
    # the value part still applies: a negative multiple or one above the bound
    for metric, field in dealframe.comparison.PAIRS.items():
        values = got.comps[field].dropna()
        bound = 50.0 if metric == "ev_revenue" else 100.0
        nm = int(((values < 0) | (values > bound)).sum())
        assert got.summary.at[metric, "public_nm"] == nm
        assert got.summary.at[metric, "public_n"] == len(values) - nm
