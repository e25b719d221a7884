"""A token that expires part-way through a multi-request call, over the drift proxy.

The interface document leaves token lifetime "not shown": a long pull can meet a 401 on page
3. The rows that arrived before it are kept: the error stays an AuthenticationError (what
``except AuthenticationError`` catches) and carries them on ``.partial`` with the counts an
IncompleteResultError has. It used to throw every page and chunk that had arrived away, while
a 429 or 5xx on the same page kept them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    clamp_limit,
    direct,
    fresh,
    fresh_rules,
    outcome,
    proxy,
    via,
)

from dealframe import Client
from dealframe.errors import AuthenticationError, BadRequestError, IncompleteResultError

P = "/api/private/v1"
DEALS = f"^{P}/transactions$"


def answer(status: int, code: str = "INVALID_TOKEN", message: str = "Token expired") -> Action:
    """The service's JSON error answer with ``status`` instead of the sandbox's."""

    def apply(ex: Exchange) -> None:
        ex.status, ex._doc = status, None
        ex.headers = {"Content-Type": "application/json"}
        ex.content = orjson.dumps({"error": {"code": code, "message": message}})

    return Action(f"answer({status})", on_response=apply)


@pytest.fixture(scope="module")
def deals_ref(direct: Any) -> Any:
    frame = direct.private.deals()
    assert len(frame) > 1500, "the tests need several pages"
    return frame


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, AuthenticationError), (403, AuthenticationError), (400, BadRequestError)],
)
def test_a_refusal_on_page_3_of_a_walk_keeps_the_pages_that_arrived(
    status, kind, via, proxy, deals_ref
):
    """Pages of 500 rows, page 3 refused (an expired token; a 400 every later page would
    meet too): the error is of the refusal's class, pages 1-2 are on ``.partial`` and the
    message says how many rows arrived before it."""
    proxy.add(DEALS, clamp_limit(500))
    proxy.add(DEALS, answer(status), page=3)
    error = outcome(lambda: via.private.deals()).error
    assert type(error) is kind, repr(error)
    assert error.status == status
    kept = set(error.partial["id"])
    assert set(deals_ref["id"].iloc[:1000]) <= kept
    assert kept.isdisjoint(deals_ref["id"].iloc[1000:1500])
    assert error.received == len(error.partial) and error.expected == len(deals_ref)
    assert error.failed[0] == 3
    assert f"received {error.received} of {len(deals_ref)} rows" in str(error)


def test_a_refusal_of_page_1_is_unchanged(via, proxy):
    """Nothing arrived: the service's error as itself, with nothing on ``.partial``."""
    proxy.add(DEALS, answer(401), page=1)
    error = outcome(lambda: via.private.deals()).error
    assert type(error) is AuthenticationError, repr(error)
    assert error.partial is None and error.received is None
    assert "received" not in str(error)
    assert proxy.count(DEALS) == 1


def _asked_ids(ex: Exchange) -> list[Any]:
    """The ids a list request asks for (its ``filters.id``, a list or ``{"in": [...]}``)."""
    ids = (ex.body.get("filters") or {}).get("id") if isinstance(ex.body, dict) else None
    ids = ids.get("in") if isinstance(ids, dict) else ids
    return ids if isinstance(ids, list) else []


def test_a_401_on_a_later_batch_of_ids_keeps_the_batches_that_arrived(via, proxy, deals_ref):
    """``deals(id=...)`` of more ids than one batch (1,000): the token expires on the second
    batch's first page. The first batch's rows are on ``.partial``; the error is the
    AuthenticationError, naming the ids left (they were thrown away with the first batch)."""
    ids = deals_ref["id"].tolist()[:1500]
    proxy.add(DEALS, answer(401), when=lambda ex: len(_asked_ids(ex)) == 500)
    error = outcome(lambda: via.private.deals(id=ids)).error
    assert type(error) is AuthenticationError, repr(error)
    assert set(error.partial["id"]) == set(ids[:1000])
    assert error.received == 1000 and error.failed == ["ids 1001-1500"]
    assert "received 1000 rows" in str(error)


def test_a_429_on_page_3_is_still_an_incomplete_result(via, proxy):
    """The other failures are unchanged: an IncompleteResultError with ``.partial``."""
    proxy.add(DEALS, clamp_limit(500))
    proxy.add(DEALS, answer(429, "RATE_LIMITED", "slow down"), page=3)
    error = outcome(lambda: via.private.deals()).error
    assert type(error) is IncompleteResultError, repr(error)
    assert error.failed == [3] and len(error.partial) >= 1000


def test_a_401_on_a_later_chunk_of_current_keeps_the_chunks_that_arrived(direct, fresh, proxy):
    """Family A: SKUs in chunks; the chunk holding the last SKU answered 401. The rows of
    the chunk that arrived are on ``.partial``; its SKUs are not named as failed."""
    skus = direct.public.search().index.tolist()[:150]
    skus += [f"Z{i:03d}-USA" for i in range(150 - len(skus))]  # SKUs unknown still count
    last = skus[-1]

    def holds_last(ex: Exchange) -> bool:
        return isinstance(ex.body, dict) and last in ex.body.get("skus", [])

    proxy.add("/companies/current$", answer(401), when=holds_last)
    error = outcome(lambda: fresh.public.current(skus)).error
    assert type(error) is AuthenticationError, repr(error)
    assert proxy.count("/companies/current$") >= 2
    failed = [sku for chunk in error.failed for sku in chunk]
    assert last in failed and skus[0] not in failed
    assert error.expected == len(skus) and error.received == len(skus) - len(failed)
    assert error.partial is not None and not error.partial.empty
    assert set(error.partial.index) <= set(skus[: len(skus) - len(failed)])
    assert f"received {error.received} of {len(skus)} SKUs" in str(error)


@pytest.fixture(scope="module")
def company_ids(direct: Any) -> list[str]:
    ids = direct.private.companies(limit=6)["id"].tolist()
    assert len(ids) == 6
    return ids


@pytest.fixture
def one_at_a_time(sandbox: Any, proxy: Any) -> Any:
    """A client through the proxy sending one request at a time (exact counts)."""
    settings = {**FAST, "max_workers": 1}
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **settings
    ) as c:
        yield c


def test_a_401_on_one_profile_keeps_the_profiles_that_arrived(company_ids, one_at_a_time, proxy):
    """Profiles of six companies, one at a time, the last answered 401."""
    last = company_ids[-1]
    proxy.add(f"{P}/companies/{last}$", answer(401))
    error = outcome(lambda: one_at_a_time.private.company(company_ids)).error
    assert type(error) is AuthenticationError, repr(error)
    assert error.failed == [last] and error.expected == 6 and error.received == 5
    assert set(error.partial["id"]) == set(company_ids[:-1])


def test_a_401_on_a_sub_collection_keeps_the_ids_that_arrived(company_ids, one_at_a_time, proxy):
    """A sub-collection of six companies, one at a time, the last company's answered 401."""
    last = company_ids[-1]
    proxy.add(f"{P}/companies/{last}/fundings", answer(401))
    error = outcome(lambda: one_at_a_time.private.fundings(company_ids)).error
    assert type(error) is AuthenticationError, repr(error)
    assert error.failed == [last] and error.expected == 6 and error.received == 5
    assert error.partial is not None and last not in set(error.partial["company_id"])
