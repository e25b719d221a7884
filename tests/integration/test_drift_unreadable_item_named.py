"""An item of a list page whose value has the wrong type, over the drift proxy.

``deals()`` whose page 3 holds a ``deal_date`` written as the number ``20240101`` raised a
``ServiceContractError`` naming neither the page nor the item, and the pages read whole were
lost (``.partial`` None); then it kept only the pages before the one named, with a count that
left out the rest. Every page has arrived when the pages are joined: the error names the page
(with its batch of ids, when several) and the item's ``id``, and carries every readable row as
``.partial`` (the page named less that item), with the call's ``attrs``, ``.received`` and
``.expected``, as an expired token part-way does; it is still a ``ServiceContractError``
(``finding`` ``wrong_shape``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    assert_same,
    clamp_limit,
    direct,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    set_field,
)

from dealframe.errors import ServiceContractError

DEALS = "^/api/private/v1/transactions$"


@pytest.fixture(scope="module")
def deals(direct: Any) -> Any:
    frame = direct.private.deals()
    assert len(frame) > 2000, "the tests need three pages"
    return frame


def test_a_wrongly_typed_value_on_page_3_is_named_and_keeps_every_readable_row(
    fresh: Any, proxy: Proxy, deals: Any
):
    proxy.add(DEALS, set_field("deal_date", 20240101, first=1), page=3, method="POST")
    got = outcome(lambda: fresh.private.deals())
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    assert error.finding == "wrong_shape"
    first = deals["id"].iloc[2000]  # the first item of page 3
    rows = min(1000, len(deals) - 2000)
    assert f"page 3, item 1 of {rows} (id {first})" in str(error), str(error)
    assert "deal_date" in str(error) and "20240101" in str(error)
    # every page had arrived: the partial holds every row but the one unreadable
    assert error.partial["id"].tolist() == [i for i in deals["id"] if i != first]
    assert (error.received, error.expected) == (len(deals) - 1, len(deals))
    assert error.failed == [3] and error.labels == ["page 3"]
    assert f"received {len(deals) - 1} of {len(deals)} rows" in str(error), str(error)


def test_an_unreadable_item_past_many_small_pages_keeps_the_pages_after_it(
    fresh: Any, proxy: Proxy, deals: Any
):
    """A service serving pages of 100: the item on page 2 leaves the 24 other pages and the
    page's 99 other rows in ``.partial``, whose ``attrs`` are the call's, as an expired token
    part-way leaves them."""
    proxy.add(DEALS, clamp_limit(100), method="POST")
    proxy.add(DEALS, set_field("deal_date", 20240101, first=1), page=2, method="POST")
    got = outcome(lambda: fresh.private.deals())
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    first = deals["id"].iloc[100]
    assert f"page 2, item 1 of 100 (id {first})" in str(error), str(error)
    assert error.partial["id"].tolist() == [i for i in deals["id"] if i != first]
    assert (error.received, error.expected) == (len(deals) - 1, len(deals))
    attrs = error.partial.attrs
    assert attrs["endpoint"] == "POST /api/private/v1/transactions"
    assert attrs["page_size"] == 100 and attrs["requests"] == -(-len(deals) // 100)
    assert attrs["rows_received"] == len(deals) - 1 and "findings" in attrs
    assert "filters" in attrs


def test_a_wrongly_typed_value_on_page_1_keeps_the_other_pages(
    fresh: Any, proxy: Proxy, deals: Any
):
    """The item is named (the 3rd of page 1); the pages after it arrived and are kept."""

    def third(doc: Any) -> Any:
        doc["data"][2]["deal_date"] = 20240101
        return doc

    proxy.add(DEALS, edit(third), page=1, method="POST")
    got = outcome(lambda: fresh.private.deals())
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    bad = deals["id"].iloc[2]
    assert f"page 1, item 3 of 1000 (id {bad})" in str(error), str(error)
    assert error.partial["id"].tolist() == [i for i in deals["id"] if i != bad]
    assert error.failed == [1]


def test_an_unreadable_item_of_an_id_batch_names_the_batch_and_its_ids(
    fresh: Any, proxy: Proxy, deals: Any
):
    """Deals of 1,500 ids go in two batches: an item of the second batch's page 1 is named
    with its batch, and ``.failed`` holds that batch's ids (to ask again)."""
    ids = deals["id"].tolist()[:1500]
    second = set(ids[1000:])

    def first_of_second_batch(doc: Any) -> Any:
        rows = doc["data"]
        if rows and rows[0]["id"] in second:
            rows[0]["deal_date"] = 20240101
        return doc

    proxy.add(DEALS, edit(first_of_second_batch), method="POST")
    got = outcome(lambda: fresh.private.deals(id=ids))
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    assert "ids 1001-1500 page 1, item 1 of 500" in str(error), str(error)
    assert error.labels == ["ids 1001-1500 page 1"]
    assert error.failed == [ids[1000:]]
    assert len(error.partial) == 1499
