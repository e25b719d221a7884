"""A list's ``sort`` of the wrong form is refused before any request, the discovery read
included, over HTTP through the drift proxy.

Before, a sort that was no text (``sort=5``, ``sort=["deal_date:desc"]``), a blank one, one
with several keys or an unknown direction was checked only against the discovery document,
after ``GET /lookup/{entity}``: an unreachable service raised a ``TransportError`` instead of
the ``ValidationError`` naming ``sort``. The key itself still needs the document.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh,
    fresh_rules,
    proxy,
)

from dealframe.errors import ValidationError

P = "/api/private/v1"
CALLS = {
    "deals": lambda c, sort: c.private.deals(sort=sort, limit=2),
    "companies": lambda c, sort: c.private.companies(sort=sort, limit=2),
    "investors": lambda c, sort: c.private.investors(sort=sort, limit=2),
    "page": lambda c, sort: c.private.page("transactions", sort=sort, limit=2),
}
BAD = [5, ["deal_date:desc"], b"deal_date:asc", "", "  ", ":asc", "deal_date:up", "a:asc,b:desc"]


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("sort", BAD, ids=repr)
def test_a_sort_of_the_wrong_form_sends_nothing(
    fresh: Any, proxy: Any, call: str, sort: Any
) -> None:
    with pytest.raises(ValidationError) as caught:
        CALLS[call](fresh, sort)
    assert caught.value.argument == "sort"
    assert proxy.count(P) == 0  # not even the discovery read


def test_the_wrong_type_is_said_so(fresh: Any, proxy: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        fresh.private.deals(sort=5)
    assert str(caught.value) == (
        "invalid sort: expected one sort key as text, '<key>:asc' or '<key>:desc', got 5"
    )
    with pytest.raises(ValidationError, match="direction 'asc' or 'desc' \\(did you mean 'desc'"):
        fresh.private.deals(sort="deal_date:des")
    assert proxy.count(P) == 0


def test_an_unreachable_service_is_not_what_a_bad_sort_raises() -> None:
    from dealframe import Client

    with Client(
        base_url="http://127.0.0.1:9",
        public_token="t" * 8,
        private_key="k" * 8,
        cache_enabled=False,
        retries=0,
    ) as c:
        for sort in (5, ["deal_date:desc"]):
            with pytest.raises(ValidationError, match="invalid sort"):
                c.private.deals(sort=sort)
            with pytest.raises(ValidationError, match="invalid sort"):
                c.private.companies(sort=sort)


def test_the_key_is_still_checked_against_the_document(fresh: Any, proxy: Any) -> None:
    with pytest.raises(ValidationError, match="did you mean 'deal_date'") as caught:
        fresh.private.deals(sort="deal_dat:asc")
    assert caught.value.argument == "sort"
    assert proxy.count(rf"^{P}/lookup/transactions$") == 1
    assert proxy.count(rf"^{P}/transactions$") == 0
    frame = fresh.private.deals(sort=" deal_date : ASC ", limit=3)
    assert frame.attrs["sort"] == "deal_date:asc"
    assert frame["deal_date"].is_monotonic_increasing
