"""A chart given a frame in which a column it draws names several columns (a repeated name
from a ``concat`` along the columns; the top level of ``time_series``' (field, sku) columns
given to ``group_history``) refuses it with a ``ValidationError`` naming its argument, over
real HTTP against the sandbox. ``comps_multiples``, ``growth_vs_multiple`` and
``group_history`` raised pandas' ``AttributeError`` ('DataFrame' object has no attribute
'dtype'); ``deals_per_quarter`` and ``capital_raised`` named ``series``, an argument the user
never passed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

import dealframe.plot as dplot
from dealframe import Client, ValidationError


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def skus(client: Client) -> list[str]:
    return list(client.public.search().index[:5])


def test_time_series_given_to_group_history_is_refused(client, skus):
    ts = client.public.time_series(skus, fields=["evRevenueNtm"])
    with pytest.raises(ValidationError, match="names one column") as refused:
        dplot.group_history(ts)
    assert refused.value.argument == "history"
    assert "5 columns named 'evRevenueNtm'" in str(refused.value)


@pytest.mark.parametrize("chart", ["comps_multiples", "growth_vs_multiple"])
def test_a_repeated_multiple_column_is_refused(client, skus, chart):
    current = client.public.current(skus)
    twice = pd.concat([current, current[["evRevenueNtm"]]], axis=1)
    with pytest.raises(ValidationError, match="2 columns named 'evRevenueNtm'") as refused:
        getattr(dplot, chart)(twice)
    assert refused.value.argument == "current"


@pytest.mark.parametrize("chart", ["deals_per_quarter", "capital_raised"])
def test_a_repeated_deal_date_names_deals(client, chart):
    deals = client.private.deals(limit=100)
    twice = pd.concat([deals, deals[["deal_date"]]], axis=1)
    with pytest.raises(ValidationError, match="one column named 'deal_date'") as refused:
        getattr(dplot, chart)(twice)
    assert refused.value.argument == "deals"
