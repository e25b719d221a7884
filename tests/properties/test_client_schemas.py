"""Property: a client frame has one schema whatever the number of rows (0, 1 or N).

Random filters and random selections are sent through the client to the session sandbox over
HTTP; every frame must have the columns and dtypes of a reference pull of the same resource.
A handful of examples each keeps the file quick.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealframe._vocab import DEAL_TYPES, REGIONS
from dealframe.client import Client
from dealframe.notices import MissingDataWarning
from dealframe.sandbox.vocab import TIME_SERIES_FIELDS

FEW = settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
COUNTRIES = ("USA", "GBR", "DEU", "FRA", "CHN", "IND", "BRA", "ATA", "JPN", "SWE")


def schema(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return [(str(c), str(t)) for c, t in frame.dtypes.items()]


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def reference(client: Client) -> dict[str, pd.DataFrame]:
    return {
        "search": client.public.search(),
        "current": client.public.current(client.public.search().index.tolist()),
        "deals": client.private.deals(limit=300),
        "companies": client.private.companies(limit=300),
        "investors": client.private.investors(limit=100),
    }


@FEW
@given(
    regions=st.lists(st.sampled_from(REGIONS), max_size=2, unique=True),
    countries=st.lists(st.sampled_from(COUNTRIES), max_size=2, unique=True),
    ev=st.one_of(st.none(), st.sampled_from([0, 500, 5_000, 50_000, 1e9])),
    version=st.sampled_from(["v1", "v2"]),
)
def test_search_schema_does_not_depend_on_the_rows(
    client, reference, regions, countries, ev, version
):
    api = client.public_v1 if version == "v1" else client.public
    frame = api.search(  # an empty list is refused (the service reads it as no constraint)
        regions=regions or None, countries=countries or None, enterprise_value_above=ev
    )
    assert schema(frame) == schema(reference["search"])
    assert frame.index.name == "sku"


@FEW
@given(data=st.data())
def test_current_schema_for_any_non_empty_selection(client, reference, data):
    everything = reference["current"].index.tolist()
    picked = data.draw(st.lists(st.sampled_from(everything), min_size=10, max_size=40, unique=True))
    frame = client.public.current(picked)
    assert frame.index.tolist() == picked
    assert schema(frame) == schema(reference["current"])


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_current_schema_for_every_single_sku(client, version):
    api = client.public_v1 if version == "v1" else client.public
    skus = api.search().index.tolist()
    expected = schema(api.current(skus))
    mismatched = [s for s in skus if schema(api.current([s])) != expected]
    assert mismatched == []


@FEW
@given(n_unknown=st.integers(1, 3))
def test_current_with_nothing_found_keeps_the_documented_schema(client, reference, n_unknown):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)
        frame = client.public.current([f"QQ{i}-ZZZ" for i in range(n_unknown)])
    assert len(frame) == 0
    assert schema(frame) == schema(reference["current"])


@FEW
@given(
    data=st.data(),
    fields=st.lists(st.sampled_from(TIME_SERIES_FIELDS), min_size=1, max_size=3, unique=True),
    shape=st.sampled_from(["wide", "long"]),
)
def test_time_series_schema(client, reference, data, fields, shape):
    everything = reference["current"].index.tolist()
    picked = data.draw(st.lists(st.sampled_from(everything), min_size=1, max_size=5, unique=True))
    frame = client.public.time_series(
        picked, fields=fields, date_from="2025-01", date_to="2025-12", shape=shape
    )
    if shape == "wide":
        assert all(str(t) == "float64" for t in frame.dtypes)
        assert frame.columns.get_level_values("field").unique().tolist() == fields
        assert len(frame) == 12
    else:
        assert schema(frame) == [
            ("sku", "str"),
            ("field", "str"),
            ("month", "period[M]"),
            ("value", "float64"),
        ]


@FEW
@given(
    deal_types=st.lists(st.sampled_from(DEAL_TYPES), max_size=3, unique=True),
    valuation_min=st.one_of(st.none(), st.sampled_from([0, 50, 1_000, 1e12])),
    year=st.one_of(st.none(), st.integers(2016, 2027)),
    regions=st.lists(st.sampled_from(REGIONS), max_size=2, unique=True),
    limit=st.one_of(st.none(), st.integers(1, 3)),
)
def test_deals_schema_for_any_filters(
    client, reference, deal_types, valuation_min, year, regions, limit
):
    kwargs: dict[str, Any] = {
        "deal_type": deal_types or None,
        "valuation_min": valuation_min,
        "target_region": regions or None,
    }
    if year is not None:
        kwargs.update(date_from=f"{year}-01-01", date_to=f"{year}-03-31")
    frame = client.private.deals(limit=limit if limit else 50, **kwargs)
    assert schema(frame) == schema(reference["deals"])


@FEW
@given(
    name=st.text(alphabet="aeiouzrtnx", min_size=1, max_size=4),
    founded=st.one_of(st.none(), st.integers(1950, 2030)),
    countries=st.lists(st.sampled_from(COUNTRIES), max_size=2, unique=True),
)
def test_company_and_investor_schemas_for_any_filters(client, reference, name, founded, countries):
    companies = client.private.companies(
        name=name, founded_min=founded, country=countries or None, limit=50
    )
    assert schema(companies) == schema(reference["companies"])
    investors = client.private.investors(name=name, country=countries or None, limit=50)
    assert schema(investors) == schema(reference["investors"])


@FEW
@given(k=st.integers(0, 4))
def test_sub_collection_schema_for_any_company(client, reference, k):
    ident = reference["companies"]["id"].iloc[k * 37]
    frames = [
        client.private.fundings(ident),
        client.private.fundings(reference["companies"]["id"][:2].tolist()),
    ]
    assert schema(frames[0]) == schema(frames[1])
    investors = [
        client.private.company_investors(ident),
        client.private.company_investors(reference["companies"]["id"].iloc[0]),
    ]
    assert schema(investors[0]) == schema(investors[1])
