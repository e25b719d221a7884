"""Bytes given as an id filter are refused whole, named as the argument, before any request.

``deals(id=b"...")``, ``filters={"id": b"..."}``, ``target_id=bytearray(...)``: the filter
read the bytes as a one-value list and the error named ``id[0]`` (of a ``bytearray``, its
first number); the sub-collections and profiles named ``id`` / ``ids`` and said bytes are not
taken. Every id filter now says the same. The drift proxy counts the requests for data.

A misspelt ``target_region`` is refused before any request by every deal-filter entry point
(``deals``, ``aggregate``, ``page``, ``filters=``): checked here so that none goes without it.
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
from dealframe.errors import EnumValueError, ValidationError

P = "/api/private/v1"
#: What would ask for data (discovery reads, GET /lookup/..., are no such request).
DATA = rf"^{P}/(companies|investors|transactions)(/aggregate)?$"
UUID = b"5f38873f-6e1c-4d6f-ad87-e6977cda30ba"
NOT_BYTES = "not bytes (decode them first: .decode())"


@pytest.fixture(scope="module")
def client(sandbox: Any, proxy: Any) -> Any:
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        c.private.lookup("companies")  # the discovery documents are read once, before
        c.private.lookup("transactions")
        yield c


BYTES: list[tuple[str, Callable[[Any], Any], str]] = [
    ("filters id", lambda c: c.private.companies(filters={"id": UUID}), "id"),
    ("keyword id", lambda c: c.private.deals(id=UUID), "id"),
    ("filters target_id", lambda c: c.private.deals(filters={"target_id": UUID}), "target_id"),
    ("bytearray", lambda c: c.private.deals(investor_id=bytearray(UUID)), "investor_id"),
    ("memoryview", lambda c: c.private.deals(target_id=memoryview(UUID)), "target_id"),
    ("operator", lambda c: c.private.deals(filters={"id": {"in": UUID}}), "id"),
    (
        "aggregate",
        lambda c: c.private.aggregate("valuation", "year", filters={"id": UUID}),
        "id",
    ),
    ("page", lambda c: c.private.page("transactions", {"target_id": UUID}), "target_id"),
]


@pytest.mark.parametrize(("case", "call", "argument"), BYTES, ids=[b[0] for b in BYTES])
def test_bytes_as_an_id_filter_are_refused_whole_naming_the_argument(
    client: Any, proxy: Any, case: str, call: Callable[[Any], Any], argument: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        call(client)
    assert caught.value.argument == argument, str(caught.value)
    assert str(caught.value).startswith(f"invalid {argument}: "), str(caught.value)
    assert NOT_BYTES in str(caught.value)
    assert proxy.count(DATA) == 0


def test_bytes_inside_a_list_of_ids_are_named_by_position(client: Any, proxy: Any) -> None:
    with pytest.raises(ValidationError, match=r"invalid id\[1\]: .*not bytes") as caught:
        client.private.deals(id=[UUID.decode(), UUID])
    assert caught.value.argument == "id[1]"
    assert proxy.count(DATA) == 0


def test_bytes_as_a_text_filter_are_refused_whole_naming_the_argument(
    client: Any, proxy: Any
) -> None:
    with pytest.raises(ValidationError) as caught:
        client.private.deals(deal_type=b"Venture")
    assert caught.value.argument == "deal_type" and NOT_BYTES in str(caught.value)
    assert proxy.count(DATA) == 0


REGION: list[tuple[str, Callable[[Any], Any]]] = [
    ("deals", lambda c: c.private.deals(target_region=["Westrn Europe"])),
    ("deals filters", lambda c: c.private.deals(filters={"target_region": ["Westrn Europe"]})),
    (
        "aggregate",
        lambda c: c.private.aggregate("valuation", "year", target_region="Westrn Europe"),
    ),
    ("page", lambda c: c.private.page("transactions", {"target_region": ["Westrn Europe"]})),
    (
        "investor deals",
        lambda c: c.private.deals(investor_id=[UUID.decode()], target_region="Westrn Europe"),
    ),
]


@pytest.mark.parametrize(("case", "call"), REGION, ids=[r[0] for r in REGION])
def test_a_misspelt_target_region_is_refused_before_any_request(
    client: Any, proxy: Any, case: str, call: Callable[[Any], Any]
) -> None:
    with pytest.raises(EnumValueError, match="did you mean 'Western Europe'") as caught:
        call(client)
    assert caught.value.argument == "target_region"
    assert proxy.count(DATA) == 0
