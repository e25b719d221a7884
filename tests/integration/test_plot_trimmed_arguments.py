"""``trimmed_multiples`` names its own argument when the deals frame lacks a column.

It delegates to ``measure_side``, whose error named ``date_column``: an argument
``trimmed_multiples`` does not take. The error now names ``deals`` and the column it lacks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

import dealframe
from dealframe.errors import ValidationError
from dealframe.plot.shaping import trimmed_multiples

SINCE = "2025-07-01"


@pytest.fixture(scope="module")
def deals(sandbox: Any) -> Iterator[pd.DataFrame]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        yield client.private.deals(target_region=["North America"], date_from=SINCE, limit=50)


def test_trimmed_multiples_names_the_deals_frame_and_the_missing_column(deals):
    with pytest.raises(ValidationError) as caught:
        trimmed_multiples(deals.drop(columns="deal_date"), "ev_revenue", (SINCE, None))
    assert caught.value.argument == "deals" and "deal_date" in str(caught.value)
    assert "date_column" not in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        trimmed_multiples(deals, "ev_revenu", (SINCE, None))
    assert caught.value.argument == "metric" and "did you mean 'ev_revenue'" in str(caught.value)
    with pytest.raises(ValidationError) as caught:  # a multiple the frame lacks: the frame's
        trimmed_multiples(deals.drop(columns="ev_revenue"), "ev_revenue", (SINCE, None))
    assert caught.value.argument == "deals" and "ev_revenue" in str(caught.value)
    for metric in ("deal_date", "deal_type"):  # read as multiples before (timestamps, or none)
        with pytest.raises(ValidationError) as caught:
            trimmed_multiples(deals, metric, (SINCE, None))
        assert caught.value.argument == "metric" and "numeric" in str(caught.value)
    for metric in (123, None):  # a bare TypeError (joining the names) before
        with pytest.raises(ValidationError) as caught:
            trimmed_multiples(deals, metric, (SINCE, None))  # type: ignore[arg-type]
        assert caught.value.argument == "metric"
    kept = trimmed_multiples(deals, "ev_revenue", (SINCE, None))
    assert isinstance(kept, pd.Series) and kept.attrs["n"] >= len(kept)
