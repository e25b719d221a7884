"""The table of country codes the country filters take (:mod:`dealframe._countries`)."""

from __future__ import annotations

import pytest

from dealframe._countries import NOT_ISO, USER_ASSIGNED, is_country, why_not
from dealframe.arguments import iso3
from dealframe.errors import ValidationError


def test_every_suggestion_is_a_code_taken_and_no_listed_code_is_one():
    assert [code for code in NOT_ISO if is_country(code)] == []
    assert [code for code in NOT_ISO.values() if not is_country(code)] == []
    assert all(is_country(code) for code in USER_ASSIGNED)


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("GER", "DEU"),
        ("NED", "NLD"),
        ("SUI", "CHE"),
        ("UK", "GBR"),
        ("UKK", "GBR"),
        ("ENG", "GBR"),
        ("DEN", "DNK"),
        ("POR", "PRT"),
        ("ger", "DEU"),
        ("de", "DEU"),
        ("Germany", "DEU"),
        ("gbr", "GBR"),
    ],
)
def test_a_common_code_that_is_no_iso_code_suggests_the_one_meant(given, meant):
    with pytest.raises(ValidationError) as caught:
        iso3(given, "country[0]")
    assert caught.value.argument == "country[0]"
    assert f"did you mean {meant!r}" in str(caught.value)


@pytest.mark.parametrize("code", ["DEU", "GBR", "USA", "ATA", "XKX"])
def test_assigned_codes_and_kosovo_pass(code):
    assert iso3(code, "country") == code


@pytest.mark.parametrize(
    ("code", "said"),
    [("ZZZ", "user-assigned"), ("XXA", "user-assigned"), ("ANT", "withdrawn"), ("ABD", "not an")],
)
def test_a_code_without_a_suggestion_says_what_it_is(code, said):
    assert said in why_not(code)
    assert not is_country(code)
