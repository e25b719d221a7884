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
    body = deals.build(
        {
            "deal_type": "M&A",
            "date_from": dt.date(2023, 1, 1),
            "date_to": pd.Timestamp("2024-06-30 13:00"),
            "valuation_min": np.float64(100),
            "target_region": ("Western Europe",),
            "updated_at": dt.datetime(2024, 1, 1, 12),
            "include_deleted": np.bool_(True),
            "raised_max": None,
        }
    )
    assert body == {
        "deal_type": ["M&A"],
        "date_from": "2023-01-01",
        "date_to": "2024-06-30",
        "valuation_min": 100.0,
        "target_region": ["Western Europe"],
        "updated_at": "2024-01-01T12:00:00+00:00",
        "include_deleted": True,
    }


def test_operator_object_form(companies):
    # name lists two operators: the one meant is always written out (a plain value's reading
    # is the service's), ilike for a plain value as the interface document lists it first
    assert companies.build({"name": "acme"}) == {"name": {"ilike": "acme"}}
    assert companies.build({"name": {"eq": "Acme"}}) == {"name": {"eq": "Acme"}}
    assert companies.build({"name": {"ilike": "Acme"}}) == {"name": {"ilike": "Acme"}}
    with pytest.raises(ValidationError, match="operators ilike, eq"):
        companies.build({"name": {"gte": "Acme"}})


@pytest.mark.parametrize("given", ["true", 1, None, np.int64(1)])
def test_a_boolean_filter_takes_true_or_false_only(deals, given):
    if given is None:  # None leaves the filter out
        assert "include_deleted" not in deals.build({"include_deleted": given})
        return
    with pytest.raises(ValidationError) as err:
        deals.build({"include_deleted": given})
    assert type(err.value) is ValidationError and err.value.argument == "include_deleted"
    assert err.value.expected == "True or False" and str(err.value).endswith(f"got {given!r}")


@pytest.mark.parametrize(
    "filters,hint",
    [
        ({"deal_type": "ma"}, " (did you mean 'M&A'?)"),  # case is ignored
        ({"target_region": ["Nordics"]}, ""),  # not 'North America': too far
        ({"target_region": ["western europe"]}, " (did you mean 'Western Europe'?)"),
    ],
)
def test_enum_values_suggest_the_close_value_or_none(deals, filters, hint):
    with pytest.raises(EnumValueError) as err:
        deals.build(filters)
    assert err.value.expected.endswith(hint or ", Western Europe")  # no hint: the list ends


def test_unknown_field_suggests_close_match(deals):
    with pytest.raises(ValidationError) as err:
        deals.build({"deal_typ": ["M&A"]})
    assert err.value.argument == "deal_typ"
    assert "did you mean 'deal_type'" in str(err.value) and "valuation_min" in str(err.value)


@pytest.mark.parametrize(
    "filters,argument",
    [
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
    ],
)
def test_wrong_types_name_the_argument(deals, filters, argument):
    with pytest.raises(ValidationError) as err:
        deals.build(filters)
    assert err.value.argument == argument


def test_enum_miss_is_its_own_error(deals):
    with pytest.raises(EnumValueError) as err:
        deals.build({"deal_subtype": ["Series Z"]})
    assert "Series A" in str(err.value)


def test_sort_checked(deals):
    assert deals.check_sort("deal_date") == "deal_date:desc"  # the service's default, written out
    with pytest.raises(ValidationError, match="deal_valuation"):
        deals.check_sort("name:asc")
    with pytest.raises(ValidationError):
        deals.check_sort("deal_date:up")


@pytest.mark.parametrize(
    "given,canonical",
    [
        ("deal_date:ASC", "deal_date:asc"),
        ("deal_date: asc", "deal_date:asc"),
        (" deal_valuation : Desc ", "deal_valuation:desc"),
        ("updated_at:", "updated_at:desc"),
        ("deal_raised:asc", "deal_raised:asc"),
    ],
)
def test_sort_is_normalised_to_the_canonical_form(deals, given, canonical):
    assert deals.check_sort(given) == canonical


@pytest.mark.parametrize(
    "given,suggestion",
    [
        ("deal_dat:asc", "deal_date"),
        ("Deal_Date:asc", "deal_date"),
        ("valuation:desc", "deal_valuation"),
        ("deal_date:ascending", "asc"),
        ("deal_date:descending", "desc"),
        ("deal_date:dsc", "desc"),
    ],
)
def test_bad_sort_names_sort_and_suggests(deals, given, suggestion):
    with pytest.raises(ValidationError) as err:
        deals.check_sort(given)
    assert err.value.argument == "sort"
    assert f"did you mean {suggestion!r}?" in str(err.value)


@pytest.mark.parametrize(
    "filters,argument",
    [
        ({"deal_type": []}, "deal_type"),  # in, enum-backed
        ({"target_country": ()}, "target_country"),  # in, open vocabulary
        ({"id": []}, "id"),  # array_uuid
        ({"target_verticals": []}, "target_verticals"),  # overlaps
        ({"investor_id": {"in": []}}, "investor_id"),  # explicit operator
        ({"target_region": pd.Index([])}, "target_region"),  # any empty iterable
        (
            {"target_country": ["GBR", " "]},
            "target_country[1]",
        ),  # a blank value matches nothing too
    ],
)
def test_empty_lists_are_refused(deals, filters, argument):
    with pytest.raises(ValidationError) as err:
        deals.build(filters)
    assert err.value.argument == argument
    assert "at least one value" in str(err.value) or "non-blank" in str(err.value)


def test_none_still_means_no_constraint(deals, companies):
    assert deals.build({"deal_type": None, "id": None}) == {}
    assert companies.build({"country": ["GBR"], "verticals": None}) == {"country": ["GBR"]}


def test_timestamps_converted_to_utc():
    assert (
        to_timestamp_string(pd.Timestamp("2024-01-01T00:30:00-05:00"), "t")
        == "2024-01-01T05:30:00+00:00"
    )


# ---------------------------------------------------------------- profile fields


def test_profile_fields_agree_with_the_sandbox():
    from dealframe.frames.schemas import PROFILE_FIELDS
    from dealframe.sandbox.vocab import (
        COMPANY_PROFILE_FIELDS,
        DEAL_PROFILE_FIELDS,
        INVESTOR_PROFILE_FIELDS,
    )

    assert set(PROFILE_FIELDS["companies"]) == set(COMPANY_PROFILE_FIELDS)
    assert set(PROFILE_FIELDS["investors"]) == set(INVESTOR_PROFILE_FIELDS)
    assert set(PROFILE_FIELDS["transactions"]) == set(DEAL_PROFILE_FIELDS)
    # the interface document's additions to each profile (section 2.2)
    assert {"employee_count", "stock_listing", "valuation", "fundamentals", "deal_activity"} <= set(
        PROFILE_FIELDS["companies"]
    )
    assert "stats" in PROFILE_FIELDS["investors"] and "stats" not in PROFILE_FIELDS["companies"]
    assert "investors" in PROFILE_FIELDS["transactions"]


@pytest.mark.parametrize(
    "entity,fields,names",
    [
        ("companies", ["name", "valuation"], ["name", "valuation"]),
        ("companies", " name , deal_activity", ["name", "deal_activity"]),
        ("investors", ("stats", "stats", "id"), ["stats", "id"]),
        ("transactions", "investors", ["investors"]),
        ("companies", None, None),
        # names the document does not give are sent: the service may serve them (issue 14)
        ("companies", "name,extra_field", ["name", "extra_field"]),
        ("companies", ["foo", "valuaton", "stats"], ["foo", "valuaton", "stats"]),
        ("transactions", ["investor", "nmae"], ["investor", "nmae"]),
    ],
)
def test_profile_fields_accepted(entity, fields, names):
    from dealframe.private.fields import check_fields

    assert check_fields(entity, fields) == names


@pytest.mark.parametrize(
    "entity,fields,got,suggestion",
    [
        # another case, or separators, of a field of the profile: certainly a typo
        ("companies", ["name", "Name"], "Name", "name"),
        ("companies", ["shortName"], "shortName", "short_name"),
        ("investors", ["employee-count"], "employee-count", "employee_count"),
        ("transactions", ["DealDate"], "DealDate", "deal_date"),
        # a comma in a name of a list: sent, it would be two names
        ("transactions", ["name,deal_date"], "name,deal_date", None),
    ],
)
def test_profile_fields_certainly_wrong_are_refused(entity, fields, got, suggestion):
    from dealframe.private.fields import check_fields

    with pytest.raises(ValidationError) as err:
        check_fields(entity, fields)
    assert err.value.argument == "fields"
    assert repr(got) in str(err.value)
    if suggestion:
        assert f"did you mean {suggestion!r}" in str(err.value)


@pytest.mark.parametrize("fields", [[], "", [""], [" "], ["name", 3], {"name": 1}, 7, b"name"])
def test_malformed_profile_fields_are_refused(fields):
    from dealframe.private.fields import check_fields

    with pytest.raises(ValidationError) as err:
        check_fields("companies", fields)
    assert err.value.argument == "fields"


def test_ilike_rows_the_service_may_match_are_not_outside():
    """A service may match ``ilike`` by lower case or by case folding (``ﬁ`` holds ``fi``):
    neither kind of row is called outside the filter; a row neither matches is."""
    from dealframe.private.outside import outside_filters

    frame = pd.DataFrame({"id": ["a", "b", "c"], "name": ["Fintech ONE", "ﬁnlab", "Acme"]})
    bad, notes = outside_filters(frame, {"name": "fi"}, {"name": "ilike"})
    assert bad.tolist() == [False, False, True]
    assert notes == ["name: 1 row not containing 'fi'"]
    bad, _ = outside_filters(frame, {"name": "ﬁ"}, {"name": "ilike"})
    assert bad.tolist() == [False, False, True]
