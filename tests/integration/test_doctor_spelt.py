"""``dealframe doctor`` reads the items of its probes with the client's own frame readers: a
service writing numbers as text in Family A's current data (``"1.5"``), or booleans as text in
Family B's lists, profiles and sub-collections (``"true"``), is one the client warns of on
every call, so the check is ``adapted`` and quotes the client's words, never ``holds``; and
the doctor's run warns of none of it itself (what the readers say is collected, not warned)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    edit,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)

from dealframe import Client
from dealframe.doctor import ADAPTED, diagnose
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (nothing learned is shared between tests)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def _rows(doc: Any) -> list[Any]:
    data = doc.get("data") if isinstance(doc, dict) else None
    return data if isinstance(data, list) else [data]


def _numbers_as_text(doc: Any) -> Any:
    """Every ``marketCap`` written as text: ``"1.5"``."""
    for row in _rows(doc):
        if isinstance(row, dict) and isinstance(row.get("marketCap"), (int, float)):
            row["marketCap"] = str(row["marketCap"])
    return doc


def _booleans_as_text(doc: Any) -> Any:
    """Every boolean of the rows written as text: ``"true"``, ``"false"``."""
    for row in _rows(doc):
        if isinstance(row, dict):
            for key, value in row.items():
                if isinstance(value, bool):
                    row[key] = "true" if value else "false"
    return doc


def _sku(c: Client) -> str:
    found = c.public.search()
    return str(found["sku"].iloc[0] if "sku" in found.columns else found.index[0])


def _company(c: Client) -> str:
    return str(c.private.companies(limit=5)["id"].iloc[0])


def _target(c: Client) -> str:
    """A company with a sellside row: the target of an M&A deal."""
    deals = c.private.deals(deal_type=["M&A"], limit=5)
    return str(deals["target_id"].dropna().iloc[0])


@pytest.mark.parametrize(
    ("path", "change", "check", "family", "call", "said"),
    [
        (
            "^/api/v2/companies/current$",
            _numbers_as_text,
            "A.current",
            "A",
            lambda c: c.public.current([_sku(c)]),
            "marketCap: numbers written as text in ",
        ),
        (
            f"^{P}/companies$",
            _booleans_as_text,
            "B.list_items",
            "B",
            lambda c: c.private.companies(limit=5),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            f"^{P}/transactions$",
            _booleans_as_text,
            "B.paging.page",
            "B",
            lambda c: c.private.deals(limit=5),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            f"^{P}/companies/[0-9a-f-]{{36}}$",
            _booleans_as_text,
            "B.profile",
            "B",
            lambda c: c.private.company(_company(c)),
            "deleted: booleans written as text or as 0/1 in ",
        ),
        (
            f"^{P}/companies/[0-9a-f-]{{36}}/sellside$",
            _booleans_as_text,
            "B.sub_collection",
            "B",
            lambda c: c.private.sellside(_target(c)),
            "deleted: booleans written as text or as 0/1 in ",
        ),
    ],
    ids=["current-numbers", "list-booleans", "deal-list-booleans", "profile", "sub-collection"],
)
def test_values_written_as_text_are_adapted_in_the_client_s_words(
    client: Client,
    proxy: Proxy,
    path: str,
    change: Callable[[Any], Any],
    check: str,
    family: str,
    call: Callable[[Client], Any],
    said: str,
) -> None:
    proxy.add(path, edit(change))
    got = outcome(lambda: call(client))
    assert got.error is None, got.error
    warned = [w for w in got.warned(ServiceContractWarning) if said in w]
    assert warned, got.caught  # the client warns of it on every call
    ran = outcome(lambda: diagnose(client, family=family))
    assert ran.error is None, ran.error
    seen = {c.name: c for c in ran.value.checks}[check]
    assert seen.verdict == ADAPTED, seen
    assert "the client warns: " in seen.observed and said in seen.observed
    assert warned[0].split(" in ")[0] in seen.observed  # the field and what, as the client
    # collected from the readers, not warned: the doctor's run itself warns of none of it
    assert not [w for w in ran.warned(ServiceContractWarning) if "written as text" in w]
