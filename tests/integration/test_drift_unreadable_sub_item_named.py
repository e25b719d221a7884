"""An item of a sub-collection page whose value has the wrong type, over the drift proxy.

``portfolio(ids)`` where one investor's portfolio holds a ``rounds_count`` of ``2.5`` raised a
``ServiceContractError`` whose message named ``GET .../investors/{id}/portfolio`` with the id
still a placeholder, no item, and no ``.partial``: the other investors' rows were lost. The
error now names the request of that investor (its id in the path), the page and the item's
``id``, and carries the rows of the other ids, and that id's other rows (every page of it had
arrived), as ``.partial`` (``.failed`` holds the id, as an id read in part); it is still a
``ServiceContractError`` (``finding`` ``wrong_shape``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    clamp_limit,
    direct,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    set_field,
)

from dealframe.errors import ServiceContractError

P = "/api/private/v1"


@pytest.fixture(scope="module")
def portfolios(direct: Any) -> Any:
    """The portfolios of 8 investors, read directly (the undisturbed reference)."""
    ids = direct.private.investors(limit=60)["id"].tolist()
    frame = direct.private.portfolio(ids)
    sizes = frame.groupby("investor_id").size()
    assert (sizes > 0).sum() >= 4 and sizes.max() > 150, "the tests need busy investors"
    chosen = sizes.sort_values(ascending=False).index[:8].tolist()
    return frame[frame["investor_id"].isin(chosen)].reset_index(drop=True), chosen


def _rows(frame: Any, ident: str) -> Any:
    return frame[frame["investor_id"] == ident]["id"].tolist()


def test_a_wrongly_typed_value_names_the_parents_request_and_keeps_the_other_ids(
    fresh: Any, proxy: Proxy, portfolios: Any
):
    frame, chosen = portfolios
    bad = chosen[2]
    proxy.add(rf"^{P}/investors/{bad}/portfolio$", set_field("rounds_count", 2.5, first=1))
    error = outcome(lambda: fresh.private.portfolio(chosen)).error
    assert type(error) is ServiceContractError, repr(error)
    assert error.finding == "wrong_shape"
    message = str(error)
    assert f"(GET {P}/investors/{bad}/portfolio)" in message, message
    assert "{id}" not in message
    first = _rows(frame, bad)[0]
    assert f"page 1, item 1 of {len(_rows(frame, bad))} (id {first})" in message, message
    assert "rounds_count" in message
    assert error.failed == [bad] and error.labels == [f"{bad} page 1"]
    assert error.received == len(chosen) - 1 and error.expected == len(chosen)
    assert error.partial is not None
    others = [ident for ident in chosen if ident != bad]
    # the other ids' rows, and that id's but the item named
    assert sorted(error.partial["id"].tolist()) == sorted(
        frame[frame["investor_id"].isin(others)]["id"].tolist() + _rows(frame, bad)[1:]
    )
    assert set(error.partial["investor_id"]) == set(chosen)


def test_a_wrongly_typed_value_on_page_3_of_one_id_keeps_its_other_rows(
    fresh: Any, proxy: Proxy, portfolios: Any
):
    """One id, pages of 50 (the service serves fewer than asked): the item is the first of
    page 3, and every other row of the id (pages 1, 2 and 4 on, and page 3 less that
    item) is the partial."""
    frame, chosen = portfolios
    busiest = chosen[0]
    proxy.add(rf"^{P}/investors/{busiest}/portfolio$", clamp_limit(50))
    proxy.add(
        rf"^{P}/investors/{busiest}/portfolio$", set_field("rounds_count", 2.5, first=1), page=3
    )
    error = outcome(lambda: fresh.private.portfolio(busiest)).error
    assert type(error) is ServiceContractError, repr(error)
    want = _rows(frame, busiest)
    assert f"page 3, item 1 of 50 (id {want[100]})" in str(error), str(error)
    assert f"(GET {P}/investors/{busiest}/portfolio)" in str(error)
    assert error.failed == [busiest] and error.labels == [f"{busiest} page 3"]
    assert error.partial is not None
    assert len(want) > 150, "the test needs a page after the one named"
    assert error.partial["id"].tolist() == want[:100] + want[101:]


def test_a_wrongly_typed_deal_date_of_one_company_keeps_its_other_rows(
    fresh: Any, direct: Any, proxy: Proxy
):
    """A deal-shaped sub-collection (``fundings``) of one id: its other rows are the
    partial (none when the item is its only row)."""
    deals = direct.private.deals(deal_type=["Venture"], limit=50)
    company = deals["target_id"].iloc[0]
    want = direct.private.fundings(company)
    assert len(want) >= 1
    proxy.add(rf"^{P}/companies/{company}/fundings$", set_field("deal_date", 20240101, first=1))
    error = outcome(lambda: fresh.private.fundings(company)).error
    assert type(error) is ServiceContractError, repr(error)
    message = str(error)
    assert f"page 1, item 1 of {len(want)} (id {want['id'].iloc[0]})" in message, message
    assert f"(GET {P}/companies/{company}/fundings)" in message and "{id}" not in message
    assert "20240101" in message
    if len(want) == 1:
        assert getattr(error, "partial", None) is None
    else:
        assert error.partial["id"].tolist() == want["id"].tolist()[1:]
