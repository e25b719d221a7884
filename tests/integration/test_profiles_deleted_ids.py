"""Profiles of many ids say which missing ids are soft-deleted and which unknown, when the
service's 404 bodies tell (audit of the private interface).

``company([live, deleted])`` (and ``investor``, ``deal``, ``investor_top``) warned "1 of 2
companies were not found (or are soft-deleted; pass include_deleted=True)" though the 404 body
said ``details.deleted: true``, as the call of one id says. Now the warning names the
soft-deleted ids apart from the unknown ones, and ``attrs["deleted_ids"]`` lists the former;
``attrs["missing_ids"]`` still lists both. Through the drift proxy, a service whose 404 says
nothing of deletion keeps the old words: the client cannot tell.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, api_error, fresh_rules, proxy  # noqa: F401 - fixtures by name

from dealframe.client import Client
from dealframe.notices import MissingDataWarning

NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
P = "/api/private/v1"


@pytest.fixture(scope="module")
def client(sandbox: Any, proxy: Any) -> Any:
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def _ids(client: Any, entity: str) -> tuple[str, str]:
    """A live id and a soft-deleted one of ``entity``."""
    read = {
        "companies": client.private.companies,
        "investors": client.private.investors,
        "transactions": lambda **kw: client.private.deals(limit=5000, **kw),
    }[entity]
    rows = read(include_deleted=True)
    return rows.loc[~rows["deleted"], "id"].iloc[0], rows.loc[rows["deleted"], "id"].iloc[0]


CALLS: dict[str, tuple[str, Callable[[Any, list[str]], Any]]] = {
    "company": ("companies", lambda c, ids: c.private.company(ids)),
    "investor": ("investors", lambda c, ids: c.private.investor(ids)),
    "deal": ("transactions", lambda c, ids: c.private.deal(ids)),
    "investor_top": ("investors", lambda c, ids: c.private.investor_top(ids, "countries")),
}


def _called(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = call()
    return frame, [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]


@pytest.mark.parametrize("name", list(CALLS))
def test_the_soft_deleted_ids_are_named_apart_from_the_unknown(client, name):
    entity, read = CALLS[name]
    live, deleted = _ids(client, entity)
    frame, said = _called(lambda: read(client, [live, deleted, NO_SUCH_ID]))
    assert frame.attrs["missing_ids"] == [deleted, NO_SUCH_ID]
    assert frame.attrs["deleted_ids"] == [deleted]
    assert len(said) == 1, said
    assert f"1 soft-deleted (pass include_deleted=True to read it): {deleted}" in said[0]
    assert f"1 unknown: {NO_SUCH_ID}" in said[0]
    assert "(or are soft-deleted" not in said[0]


def test_with_include_deleted_the_missing_are_unknown(client):
    live, deleted = _ids(client, "companies")
    frame, said = _called(
        lambda: client.private.company([live, deleted, NO_SUCH_ID], include_deleted=True)
    )
    assert frame["id"].tolist() == [live, deleted] and frame.attrs["deleted_ids"] == []
    assert len(said) == 1 and "1 of 3 companies were not found (unknown ids)" in said[0], said


def test_nothing_missing_lists_no_deleted_id(client):
    live, _ = _ids(client, "companies")
    frame, said = _called(lambda: client.private.company([live]))
    assert frame.attrs["missing_ids"] == [] and frame.attrs["deleted_ids"] == [] and not said


def test_a_404_that_says_nothing_of_deletion_keeps_both_causes(client, proxy):
    live, deleted = _ids(client, "companies")
    proxy.add(rf"^{P}/companies/{re.escape(deleted)}$", api_error(404, "NOT_FOUND", "Not found"))
    frame, said = _called(lambda: client.private.company([live, deleted, NO_SUCH_ID]))
    assert frame.attrs["missing_ids"] == [deleted, NO_SUCH_ID]
    assert frame.attrs["deleted_ids"] == []
    assert len(said) == 1, said
    assert (
        "2 of 3 companies were not found (or are soft-deleted; pass include_deleted=True)"
        in (said[0])
    )
