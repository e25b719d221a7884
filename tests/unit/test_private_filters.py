"""Discovery-driven filter validation, on the sandbox's own discovery documents."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from dealframe.errors import ValidationError
from dealframe.private.filters import EnumValueError, FilterSchema, to_timestamp_string
from dealframe.sandbox.discovery import discovery_document


@pytest.fixture(scope="module")
def deals():
    return FilterSchema("transactions", discovery_document("transactions"))


@pytest.fixture(scope="module")
def companies():
    return FilterSchema("companies", discovery_document("companies"))


def test_python_values_become_wire_values(deals):
    body = deals.build({
        "deal_type": "M&A", "date_from": dt.date(2023, 1, 1), "date_to": pd.Timestamp("2024-06-30 13:00"),
        "valuation_min": np.float64(100), "target_region": ("Western Europe",),
        "updated_at": dt.datetime(2024, 1, 1, 12), "include_deleted": np.bool_(True), "raised_max": None,
    })
    assert body == {
        "deal_type": ["M&A"], "date_from": "2023-01-01", "date_to": "2024-06-30",
        "valuation_min": 100.0, "target_region": ["Western Europe"],
        "updated_at": "2024-01-01T12:00:00+00:00", "include_deleted": True,
    }


def test_operator_object_form(companies):
    assert companies.build({"name": "acme"}) == {"name": "acme"}
    assert companies.build({"name": {"eq": "Acme"}}) == {"name": {"eq": "Acme"}}
    assert companies.build({"name": {"ilike": "Acme"}}) == {"name": "Acme"}
    with pytest.raises(ValidationError, match="operators ilike, eq"):
        companies.build({"name": {"gte": "Acme"}})


def test_unknown_field_suggests_close_match(deals):
    with pytest.raises(ValidationError) as err:
        deals.build({"deal_typ": ["M&A"]})
    assert err.value.argument == "deal_typ"
    assert "did you mean 'deal_type'" in str(err.value) and "valuation_min" in str(err.value)


@pytest.mark.parametrize("filters,argument", [
    ({"valuation_min": "100"}, "valuation_min"),
    ({"valuation_min": True}, "valuation_min"),
    ({"valuation_min": float("nan")}, "valuation_min"),
    ({"date_from": "2023-13-01"}, "date_from"),
    ({"date_from": "01/02/2023"}, "date_from"),
    ({"updated_at": "yesterday"}, "updated_at"),
    ({"target_id": ["not-a-uuid"]}, "target_id[0]"),
    ({"deal_type": [1]}, "deal_type[0]"),
    ({"include_deleted": "yes"}, "include_deleted"),
    ({"target_country": {"x": 1}}, "target_country"),
])
def test_wrong_types_name_the_argument(deals, filters, argument):
    with pytest.raises(ValidationError) as err:
        deals.build(filters)
    assert err.value.argument == argument


def test_enum_miss_is_its_own_error(deals):
    with pytest.raises(EnumValueError) as err:
        deals.build({"deal_subtype": ["Series Z"]})
    assert "Series A" in str(err.value)


def test_sort_checked(deals):
    assert deals.check_sort("deal_date") == "deal_date"
    with pytest.raises(ValidationError, match="deal_valuation"):
        deals.check_sort("name:asc")
    with pytest.raises(ValidationError):
        deals.check_sort("deal_date:up")


def test_timestamps_converted_to_utc():
    assert to_timestamp_string(pd.Timestamp("2024-01-01T00:30:00-05:00"), "t") == "2024-01-01T05:30:00+00:00"
