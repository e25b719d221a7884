"""An item of a list page whose value has the wrong type, over the drift proxy.

``deals()`` whose page 3 holds a ``deal_date`` written as the number ``20240101`` raised a
``ServiceContractError`` naming neither the page nor the item, and the two pages read whole
before it were lost (``.partial`` None). The error now names the page and the item's ``id``,
and, past page 1, carries the rows of the pages before it as an expired token part-way does
(``.partial``, ``.received``, ``.failed``); it is still a ``ServiceContractError``
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
    direct,
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


def test_a_wrongly_typed_value_on_page_3_is_named_and_keeps_pages_1_and_2(
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
    assert error.partial is not None and error.received == 2000
    assert error.failed == [3] and error.labels == ["page 3"]
    assert error.partial["id"].tolist() == deals["id"].iloc[:2000].tolist()


def test_a_wrongly_typed_value_on_page_1_is_named_without_a_partial(
    fresh: Any, proxy: Proxy, deals: Any
):
    """Nothing arrived before page 1: ``.partial`` stays None; the item is named (the 3rd)."""

    def third(doc: Any) -> Any:
        doc["data"][2]["deal_date"] = 20240101
        return doc

    from _drift_proxy import edit

    proxy.add(DEALS, edit(third), page=1, method="POST")
    got = outcome(lambda: fresh.private.deals())
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    assert f"page 1, item 3 of 1000 (id {deals['id'].iloc[2]})" in str(error), str(error)
    assert getattr(error, "partial", None) is None
