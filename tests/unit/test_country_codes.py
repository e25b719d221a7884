"""The table of country codes the country filters take (:mod:`dealframe._countries`)."""

from __future__ import annotations

import pytest

from dealframe._countries import NOT_ISO, USER_ASSIGNED, WITHDRAWN, is_country, why_not
from dealframe.arguments import iso3
from dealframe.errors import ValidationError


def test_every_suggestion_is_a_code_taken_and_no_listed_code_is_one():
    assert [code for code in NOT_ISO if is_country(code)] == []
    assert [code for code in NOT_ISO.values() if not is_country(code)] == []
    assert all(is_country(code) for code in USER_ASSIGNED)
    assert [code for code in WITHDRAWN if is_country(code) or code in NOT_ISO] == []
    assert all(is_country(meant) for meant, _ in WITHDRAWN.values())


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
        ("SIN", "SGP"),
        ("TRI", "TTO"),
        ("CTA", "CAF"),
        ("EQG", "GNQ"),
        ("KVX", "XKX"),
        ("TAH", "PYF"),
        ("NMI", "MNP"),
        ("XK", "XKX"),
        ("KOS", "XKX"),
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


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (
            "ANT",
            "withdrawn from ISO 3166: Netherlands Antilles; it is the IOC's code for "
            "Antigua and Barbuda, 'ATG')",
        ),
        ("BUR", "; it is the IOC's code for Burkina Faso, 'BFA')"),
    ],
)
def test_a_withdrawn_code_the_ioc_uses_names_both_countries(code, said):
    with pytest.raises(ValidationError) as caught:
        iso3(code, "country[0]")
    assert said in str(caught.value)


@pytest.mark.parametrize(("code", "meant"), [("NA", "'NAM', Namibia"), ("de", "'DEU', Germany")])
def test_an_alpha_2_code_is_said_to_be_one(code, meant):
    """``NA`` is Namibia's alpha-2 code (not "not available"): the hint says which it is."""
    assert (
        why_not(code) == f" (did you mean {meant}? {code.upper()!r} is its ISO 3166 alpha-2 code)"
    )
