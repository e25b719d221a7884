"""A filter's ``pattern`` is checked whatever it is, not only when it is the ISO-3 one.

The review found ``FilterSpec.pattern`` enforced only when it equalled ``ISO3_PATTERN``: a
filter given another pattern (which the OpenAPI document would state) took any value.
"""

from __future__ import annotations

import dataclasses

import pytest

from dealframe.sandbox.errors import Problems
from dealframe.sandbox.models import filters


@pytest.fixture()
def two_letter_country(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = tuple(
        dataclasses.replace(s, pattern="^[A-Z]{2}$") if s.field == "country" else s
        for s in filters.SPECS["companies"]
    )
    monkeypatch.setitem(filters.SPECS, "companies", specs)


def test_any_pattern_is_enforced(two_letter_country):
    problems = Problems()
    conditions, _ = filters.parse_filters("companies", {"country": ["US", "USA"]}, problems)
    assert problems.errors == ["filters.country: 'USA' is not a match of ^[A-Z]{2}$"]
    problems = Problems()
    conditions, _ = filters.parse_filters("companies", {"country": ["US", "FR"]}, problems)
    assert problems.errors == [] and conditions


def test_the_iso3_pattern_is_named_in_words():
    problems = Problems()
    filters.parse_filters("companies", {"country": ["USA\n"]}, problems)
    assert problems.errors == [
        "filters.country: 'USA\\n' is not an ISO 3166 alpha-3 code (three capital letters)"
    ]
