"""compare_multiples summarises both sides without the multiples that are not meaningful.

The README's own call (``region="Western Europe", date_from="2023-01-01"`` on the scale-0.1
sandbox) printed a private EV/EBITDA median of -29.2x and a private-to-public ratio of -1.33:
the service's aggregate rule was applied to every value, and 15 of the 22 deal multiples were
negative (deals struck on negative EBITDA). By default both sides now leave out the values the
report's NM rule calls not meaningful (a zero or negative denominator, a negative multiple, or
one above 50x EV/Revenue or 100x EV/EBITDA), count them, and trim the rest as the service
trims; ``meaningful_only=False`` keeps the service's rule over every value.

The expected figures are written out here, independently of the library: the NM rule, the
IQR 1.5 trim and the small-n threshold.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe import Client, ValidationError

README_CALL = {"region": "Western Europe", "date_from": "2023-01-01"}
#: Deal multiple -> (its denominator, the public field, the NM bound).
MULTIPLES = {
    "ev_revenue": ("deal_revenue", "evRevenueLtm", 50.0),
    "ev_ebitda": ("deal_ebitda", "evEbitdaLtm", 100.0),
}
REGIONS = ("Western Europe", "North America", "East Asia", "Northern Europe", "Latin America")


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def _summarised(values: np.ndarray, threshold: int) -> tuple[int, float, float, float]:
    """n before trimming, then median, q1 and q3 of the values inside 1.5 IQR (NaN when
    there are fewer values than the threshold)."""
    values = values[np.isfinite(values)]
    if len(values) < threshold:
        return len(values), np.nan, np.nan, np.nan
    q1, q3 = np.quantile(values, [0.25, 0.75])
    kept = values[(values >= q1 - 1.5 * (q3 - q1)) & (values <= q3 + 1.5 * (q3 - q1))]
    return len(values), float(np.median(kept)), *map(float, np.quantile(kept, [0.25, 0.75]))


def _split(values: pd.Series, denominators: pd.Series | None, bound: float) -> tuple[Any, int]:
    """The meaningful values and the number of NM ones (of those present)."""
    x = values.to_numpy(dtype=float, na_value=np.nan)
    present = np.isfinite(x)
    nm = (x < 0) | (x > bound)
    if denominators is not None:
        nm |= denominators.to_numpy(dtype=float, na_value=np.nan) <= 0
    return x[present & ~nm], int((present & nm).sum())


def test_the_readme_call_summarises_no_negative_multiple(client):
    """The README's call: positive medians and ratio on both multiples, each side equal to
    the NM rule and the service's trim written out, the NM values counted."""
    cmp = dealframe.compare_multiples(client, **README_CALL)
    for metric in MULTIPLES:
        row = cmp.summary.loc[metric]
        assert row["private_median"] > 0 and row["public_median"] > 0, (metric, row.to_dict())
        assert row["private_q1"] >= 0 and row["private_to_public"] > 0, metric
    threshold = cmp.summary.attrs["small_n_threshold"]
    assert cmp.summary.attrs["meaningful_only"] is True
    for metric, (denominator, field, bound) in MULTIPLES.items():
        row = cmp.summary.loc[metric]
        fair, nm = _split(cmp.deals[metric], cmp.deals[denominator], bound)
        assert (row["private_n"], row["private_median"], row["private_q1"], row["private_q3"]) == (
            pytest.approx(_summarised(fair, threshold), rel=1e-12)
        )
        assert row["private_nm"] == nm
        fair, nm = _split(cmp.comps[field], None, bound)
        assert (row["public_n"], row["public_median"], row["public_q1"], row["public_q3"]) == (
            pytest.approx(_summarised(fair, threshold), rel=1e-12)
        )
        assert row["public_nm"] == nm
    # the cohort does hold the negative multiples that made the median negative
    assert cmp.summary.loc["ev_ebitda", "private_nm"] > cmp.summary.loc["ev_ebitda", "private_n"]
    assert (cmp.deals["ev_ebitda"] < 0).sum() > 10


@pytest.mark.parametrize("region", REGIONS)
def test_no_negative_median_by_default(client, region):
    cmp = dealframe.compare_multiples(client, region=region, date_from="2023-01-01", link=False)
    s = cmp.summary
    for column in ("private_median", "public_median", "private_q1", "public_q1"):
        assert not (s[column] < 0).any(), (region, column, s[column].tolist())
    assert not (s["private_to_public"] <= 0).any(), (region, s["private_to_public"].tolist())


def test_every_value_stays_one_keyword_away(client):
    """meaningful_only=False: the service's aggregate of the cohort, negative median and all;
    the NM values are still counted."""
    every = dealframe.compare_multiples(client, **README_CALL, meaningful_only=False, link=False)
    assert every.summary.attrs["meaningful_only"] is False
    for metric in MULTIPLES:
        service = client.private.aggregate(
            metric, "none", date_from="2023-01-01", target_region=["Western Europe"]
        )
        row = every.summary.loc[metric]
        assert row["private_n"] == service.loc[0, "n"]
        assert row["private_median"] == pytest.approx(service.loc[0, "median"], rel=1e-12)
    fair = dealframe.compare_multiples(client, **README_CALL, link=False)
    # the negative multiples are in: a lower quartile below 0 (the default's is not), and a
    # median below the default's (the README once printed a negative one: the data's luck)
    assert (
        every.summary.loc["ev_ebitda", "private_q1"]
        < 0
        <= fair.summary.loc["ev_ebitda", "private_q1"]
    )
    assert (
        every.summary.loc["ev_ebitda", "private_median"]
        < fair.summary.loc["ev_ebitda", "private_median"]
    )
    nm = ["private_nm", "public_nm"]
    assert every.summary[nm].equals(fair.summary[nm])


def test_a_bad_meaningful_only_is_refused_before_any_request(client):
    before = client.stats.snapshot()["calls"]
    for bad in ("yes", 1, None):
        with pytest.raises(
            ValidationError, match="invalid meaningful_only: expected True or False"
        ):
            dealframe.compare_multiples(client, **README_CALL, meaningful_only=bad)
    assert client.stats.snapshot()["calls"] == before
