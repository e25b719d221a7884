"""Values outside what the interface document allows, over the drift proxy.

``role`` and ``match_type`` outside their vocabularies were said (``unknown_value``), but a
company ``region`` outside the region vocabulary (``"Caribbean"``) became a new category
silently, a ``country`` that is no ISO-3 code (``"US"``) passed as any text, and a portfolio
row whose ``first_invested`` is after its ``last_invested`` passed too. Each is now one
finding of the call naming the field, how many rows and which values (or rows); the rows and
their values are kept as served.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh_rules,
    items_edit,
    outcome,
    proxy,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning


def _findings(frame: pd.DataFrame, kind: str) -> list[str]:
    return [f["message"] for f in frame.attrs["findings"] if f["kind"] == kind]


def test_a_region_and_a_country_outside_the_document_are_said_and_kept(via, proxy):
    plain = outcome(lambda: via.private.companies(limit=50))
    assert plain.error is None and not plain.caught, plain.caught

    def odd(item: dict[str, Any]) -> None:
        item.update(region="Caribbean", country="US")

    proxy.add(r"/api/private/v1/companies$", items_edit(odd))
    got = outcome(lambda: via.private.companies(limit=50))
    assert got.error is None, got.error
    frame = got.value
    said = _findings(frame, "unknown_value")
    assert len(said) == 2, frame.attrs["findings"]
    assert said[0].startswith("region outside Africa, ") and "'Caribbean' (50)" in said[0]
    assert said[1] == (
        "country no country filter takes in 50 of 50 rows: 'US' (50; did you mean 'USA', "
        "United States? 'US' is its ISO 3166 alpha-2 code) (rows kept, the values as they "
        "came: a filter naming the code meant does not select them)"
    )
    assert (frame["region"] == "Caribbean").all() and (frame["country"] == "US").all()
    assert len(got.warned(ServiceContractWarning)) == 2

    strict = outcome(lambda: via.private.companies(limit=50, strict=True))
    assert isinstance(strict.error, ServiceContractError), strict.error


def test_an_investor_profile_country_outside_the_document_is_said(via, proxy):
    ident = via.private.investors(limit=1)["id"].iloc[0]
    proxy.add(r"/api/private/v1/investors/[^/]+$", items_edit(lambda it: it.update(country="gb")))
    got = outcome(lambda: via.private.investor(ident))
    assert got.error is None, got.error
    said = _findings(got.value, "unknown_value")
    assert len(said) == 1 and "'gb' (1; did you mean 'GBR', United Kingdom? " in said[0], said
    assert got.value["country"].tolist() == ["gb"]


@pytest.mark.parametrize("code", ["GB", "ANT"])
@pytest.mark.parametrize("call", ["search", "current"])
def test_a_family_a_country_code_that_is_no_iso3_is_said(via, proxy, call, code):
    """``GB`` (alpha-2) and ``ANT`` (three capital letters: Netherlands Antilles, withdrawn
    from ISO 3166 in 2010; the IOC's Antigua) are no code a country filter takes: said."""
    skus = list(via.public.search(countries=["GBR"]).index[:3])
    path = "^/api/v2/companies$" if call == "search" else "^/api/v2/companies/current$"
    proxy.add(path, items_edit(lambda it: it.update(countryCodeIso3=code)))
    got = outcome(
        lambda: (
            via.public.search(countries=["GBR"]) if call == "search" else via.public.current(skus)
        )
    )
    assert got.error is None, got.error
    said = _findings(got.value, "unknown_value")
    assert len(said) == 1, said
    assert said[0].startswith("countryCodeIso3 no country filter takes in "), said
    assert f"'{code}' (" in said[0] and said[0].endswith(
        "(rows kept, the values as they came: a filter naming the code meant does not select them)"
    )
    assert (got.value["countryCodeIso3"] == code).all()


@pytest.mark.parametrize("code", ["GER", "KOS", "deu"])
def test_a_private_country_of_the_right_shape_that_no_filter_takes_is_said(via, proxy, code):
    """A company profile and a list whose ``country`` is ``GER`` (the IOC's Germany), ``KOS``
    or ``deu``: the filter ``country=["GER"]`` is refused (pointing to ``DEU``) and
    ``country=["DEU"]`` does not select these rows, so the frame says so. ``GER`` used to
    pass unsaid: only the shape (three capital letters) was checked."""
    why = {
        "GER": "; did you mean 'DEU', Germany? 'GER' is no ISO 3166 code",
        "KOS": "; did you mean 'XKX', Kosovo? 'KOS' is no ISO 3166 code",
        "deu": "; did you mean 'DEU'?",
    }
    ident = via.private.companies(limit=1)["id"].iloc[0]
    proxy.add(
        r"^/api/private/v1/companies(/[^/]+)?$", items_edit(lambda it: it.update(country=code))
    )
    for call, rows in (
        (lambda: via.private.company(ident), 1),
        (lambda: via.private.companies(limit=5), 5),
    ):
        got = outcome(call)
        assert got.error is None, got.error
        said = _findings(got.value, "unknown_value")
        assert said == [
            f"country no country filter takes in {rows} of {rows} rows: '{code}' "
            f"({rows}{why[code]}) (rows kept, the values as they came: a filter naming the "
            "code meant does not select them)"
        ], said
        assert len(got.warned(ServiceContractWarning)) == 1
        assert (got.value["country"] == code).all()


def test_a_private_country_the_filters_take_is_not_said(via, proxy):
    """``XKX`` (Kosovo, user-assigned, taken by the country filters) and ``ATA`` are no finding."""
    codes = iter(["XKX", "ATA"] * 5)
    proxy.add(r"^/api/private/v1/companies$", items_edit(lambda it: it.update(country=next(codes))))
    got = outcome(lambda: via.private.companies(limit=5))
    assert got.error is None and not got.caught, got.caught
    assert not _findings(got.value, "unknown_value")
    assert got.value["country"].tolist() == ["XKX", "ATA", "XKX", "ATA", "XKX"]


@pytest.mark.parametrize(
    ("name", "first", "last"),
    [
        ("portfolio", "first_invested", "last_invested"),
        ("co_investors", "first_shared_date", "last_shared_date"),
    ],
)
def test_a_first_date_after_the_last_is_said_and_kept(via, proxy, name, first, last):
    ident = via.private.investors(limit=1)["id"].iloc[0]
    call = getattr(via.private, name)
    plain = outcome(lambda: call(ident))
    assert plain.error is None and not plain.caught, plain.caught
    assert len(plain.value)

    proxy.add(
        rf"/api/private/v1/investors/[^/]+/{name}$",
        items_edit(lambda it: it.update({first: "2024-05-01", last: "2020-01-31"})),
    )
    got = outcome(lambda: call(ident))
    assert got.error is None, got.error
    said = _findings(got.value, "inverted_dates")
    n = len(got.value)
    assert len(said) == 1 and said[0].startswith(f"{first} after {last} in {n} of {n} rows: id ")
    assert len(got.value) == len(plain.value)  # rows kept
    assert (got.value[first].astype(str) == "2024-05-01").all()


def test_a_company_investor_whose_first_round_is_after_its_last_is_said(via, proxy):
    ident = via.private.companies(limit=50)["id"].tolist()
    company, plain = next(
        (i, frame)
        for i, frame in ((i, via.private.company_investors(i)) for i in ident)
        if len(frame)  # a company with investors
    )

    proxy.add(
        r"/api/private/v1/companies/[^/]+/investors$",
        items_edit(
            lambda it: it.update(first_round_date="2024-05-01", last_round_date="2020-01-31")
        ),
    )
    got = outcome(lambda: via.private.company_investors(company))
    assert got.error is None, got.error
    said = _findings(got.value, "inverted_dates")
    n = len(got.value)
    assert n == len(plain)  # rows kept
    assert len(said) == 1, got.value.attrs["findings"]
    assert said[0].startswith(f"first_round_date after last_round_date in {n} of {n} rows: id ")
    assert (got.value["first_round_date"].astype(str) == "2024-05-01").all()


def test_a_region_of_any_length_is_quoted_cut(via, proxy):
    long = "Caribbean" + "x" * 50_000
    proxy.add(r"/api/private/v1/companies$", items_edit(lambda it: it.update(region=long)))
    got = outcome(lambda: via.private.companies(limit=50))
    assert got.error is None, got.error
    said = _findings(got.value, "unknown_value")
    assert len(said) == 1 and said[0].startswith("region outside Africa, "), said
    assert "'Caribbean" in said[0] and "(50)" in said[0]
    assert len(said[0]) < 500, len(said[0])  # the value cut, not quoted whole
    assert (got.value["region"] == long).all()  # the value kept as served


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("deals", r"^/api/private/v1/transactions$"),
        ("fundings", r"^/api/private/v1/companies/[^/]+/fundings$"),
        ("buyside", r"^/api/private/v1/companies/[^/]+/buyside$"),
        ("investments", r"^/api/private/v1/investors/[^/]+/investments$"),
    ],
)
def test_a_deal_target_country_no_filter_takes_is_said(via, proxy, method, path):
    """A deal whose ``target.country`` is ``GER`` (the IOC's Germany): ``deals(target_country=
    ["GER"])`` is refused and ``["DEU"]`` does not select it, so the frame says so, as it does
    of a company's ``country``. Deals, fundings, sellside, buyside and investments used to
    say nothing: only companies, investors and Family A were checked."""
    if method == "deals":
        call: Any = lambda: via.private.deals(limit=5)  # noqa: E731
    else:
        entity = via.private.investors if method == "investments" else via.private.companies
        ids = entity(limit=40)["id"].tolist()
        call = lambda: getattr(via.private, method)(ids)  # noqa: E731

    def ger(item: dict[str, Any]) -> None:
        if isinstance(item.get("target"), dict):
            item["target"]["country"] = "GER"

    proxy.add(path, items_edit(ger))
    got = outcome(call)
    assert got.error is None, got.error
    frame = got.value
    rows = int((frame["target_country"] == "GER").sum())
    assert rows > 0 and rows == len(frame), frame["target_country"].tolist()
    said = _findings(frame, "unknown_value")
    assert said == [
        f"target_country no country filter takes in {rows} of {rows} rows: 'GER' ({rows}; did "
        "you mean 'DEU', Germany? 'GER' is no ISO 3166 code) (rows kept, the values as they "
        "came: a filter naming the code meant does not select them)"
    ], said
    assert len(got.warned(ServiceContractWarning)) == 1


def test_a_blank_target_country_is_no_code_meant(via, proxy):
    """A blank country is no country, as a null is: it was said as a value "no country filter
    takes", as if a code were meant."""

    def blank(item: dict[str, Any]) -> None:
        if isinstance(item.get("target"), dict):
            item["target"]["country"] = ""

    proxy.add(r"^/api/private/v1/transactions$", items_edit(blank))
    got = outcome(lambda: via.private.deals(limit=5, cache=False))
    assert got.error is None, got.error
    assert (got.value["target_country"].fillna("") == "").all()
    assert not any("no country filter takes" in f for f in _findings(got.value, "unknown_value"))
