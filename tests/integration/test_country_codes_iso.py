"""Country filters take assigned ISO 3166-1 alpha-3 codes only (audit of the private interface).

A code of the right shape that is no ISO code (``GER``, the IOC's and FIFA's code for
Germany; ``NED``, ``SUI``, ``UKK``, ``ZZZ``) used to be sent: the service matched no row and
the call returned an empty frame that said nothing, though the docs say country codes are
checked before any request. Now each family's country filters refuse it with a
ValidationError naming the argument and the code meant, and send nothing for the data; the
drift proxy counts what reaches the service. ``XKX`` (Kosovo, user-assigned) is taken.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, fresh_rules, proxy  # noqa: F401 - fixtures are used by name

from dealframe.client import Client
from dealframe.errors import ValidationError

P = "/api/private/v1"
#: What would ask for data (discovery reads, GET /lookup/..., are no such request).
DATA = rf"^({P}/(companies|investors|transactions)(/aggregate)?|/api/v[12]/companies)$"


@pytest.fixture(scope="module")
def client(sandbox: Any, proxy: Any) -> Any:
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        c.private.lookup("companies")  # the discovery documents are read once, before
        c.private.lookup("investors")
        c.private.lookup("transactions")
        yield c


CASES: list[tuple[str, Callable[[Any], Any], str, str]] = [
    ("companies", lambda c: c.private.companies(country=["GER"]), "country[0]", "'DEU', Germany"),
    (
        "deals",
        lambda c: c.private.deals(target_country=["DEU", "NED"]),
        "target_country[1]",
        "'NLD', Netherlands",
    ),
    ("investors", lambda c: c.private.investors(country=["SUI"]), "country[0]", "'CHE'"),
    ("ukk", lambda c: c.private.companies(country=["UKK"]), "country[0]", "'GBR'"),
    ("uk", lambda c: c.private.companies(country=["UK"]), "country[0]", "'GBR'"),
    ("user-assigned", lambda c: c.private.companies(country=["ZZZ"]), "country[0]", "'XKX'"),
    (
        "raw filters",
        lambda c: c.private.companies(filters={"country": {"in": ["DEN"]}}),
        "country[0]",
        "'DNK'",
    ),
    (
        "aggregate",
        lambda c: c.private.aggregate("raised", target_country=["POR"]),
        "target_country[0]",
        "'PRT'",
    ),
    ("family A", lambda c: c.public.search(countries=["GER"]), "countries[0]", "'DEU'"),
]


@pytest.mark.parametrize(("label", "call", "argument", "meant"), CASES, ids=[c[0] for c in CASES])
def test_a_code_that_is_no_iso_code_is_refused_before_the_data_is_asked(
    client, proxy, label, call, argument, meant
):
    before = proxy.count(DATA)
    with pytest.raises(ValidationError) as caught:
        call(client)
    message = str(caught.value)
    assert f"did you mean {meant}" in message or f"only {meant}" in message, message
    assert caught.value.argument == argument, message
    assert proxy.count(DATA) == before  # nothing asked: no silent empty frame


def test_assigned_codes_and_kosovo_are_taken(client):
    germany = client.private.companies(country=["DEU"], limit=5)
    assert len(germany) == 5 and set(germany["country"]) == {"DEU"}
    kosovo = client.private.companies(country=["XKX"])  # taken; no sandbox company there
    assert kosovo.empty and list(kosovo.columns) == list(germany.columns)
    antarctica = client.public.search(countries=["ATA"])  # assigned: empty, but known
    assert antarctica.empty


@pytest.mark.parametrize("given", ["ß", "ß ", "\ufb06"])
def test_a_letter_that_upper_cases_to_two_suggests_no_country(client, proxy, given):
    """``"ß".upper()`` is ``"SS"`` (and the ligature ``"\ufb06".upper()`` is ``"ST"``): the
    error used to suggest South Sudan (``did you mean 'SSD'? 'SS' is its ISO 3166 alpha-2
    code``), or Sao Tome and Principe, for a letter that names no country. Only ASCII text is
    read as a code in another case."""
    before = proxy.count(DATA)
    with pytest.raises(ValidationError) as caught:
        client.private.companies(country=[given])
    message = str(caught.value)
    assert "did you mean" not in message and "alpha-2" not in message, message
    assert caught.value.argument == "country[0]", message
    assert proxy.count(DATA) == before
