"""An item of a sub-collection page whose value has the wrong type, over the drift proxy.

``portfolio(ids)`` where one investor's portfolio holds a ``rounds_count`` of ``2.5`` raised a
``ServiceContractError`` whose message named ``GET .../investors/{id}/portfolio`` with the id
still a placeholder, no item, and no ``.partial``: the other investors' rows were lost. The
error now names the request of that investor (its id in the path), the page and the item's
``id``, and carries the rows of the other ids, and that id's other rows (every page of it had
arrived), as ``.partial`` (``.failed`` holds the id, as an id read in part); it is still a
``ServiceContractError`` (``finding`` ``wrong_shape``).

That ``.partial`` is the frame the call returns of the other ids and of that id's other rows
(repeats dropped, its attrs and findings, said as warnings), an id answered 404 beside it is said and kept in
``attrs["missing_ids"]``, and the unreadable ids are found by halving the ids (a few builds,
no request sent again).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    api_error,
    assert_same,
    clamp_limit,
    direct,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    repeat_rows,
    set_field,
)

import dealframe.private.api as private_api
from dealframe import MissingDataWarning, ServiceContractWarning
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


def _third_item_unreadable() -> Any:
    """``rounds_count`` 2.5 in the third item of a page."""

    def apply(doc: Any) -> Any:
        data = doc.get("data")
        if isinstance(data, list) and len(data) > 2:
            data[2]["rounds_count"] = 2.5
        return doc

    return edit(apply, "third_item_unreadable")


def _less_third(frame: Any, ident: str) -> Any:
    """``frame`` less the third row of ``ident`` (the item :func:`_third_item_unreadable`
    makes unreadable on its one page)."""
    third = frame[frame["investor_id"] == ident].index[2]
    return frame.drop(index=third)


@pytest.fixture(scope="module")
def thirty(direct: Any) -> Any:
    """30 investors and two of them with at least 5 rows in their portfolio."""
    ids = direct.private.investors(limit=30)["id"].tolist()
    sizes = direct.private.portfolio(ids).groupby("investor_id").size()
    busy = sizes.index[sizes >= 5].tolist()
    assert len(busy) >= 2, "the tests need busy investors"
    return ids, busy


def test_an_id_answered_404_beside_an_unreadable_item_is_said_and_kept_in_attrs(
    fresh: Any, proxy: Proxy, thirty: Any
):
    """It fell out of the error's count unsaid: not in ``.failed``, no warning, no
    ``missing_ids`` on the partial."""
    ids, (bad, gone, *_) = thirty
    want = fresh.private.portfolio(ids)
    proxy.add(rf"^{P}/investors/{bad}/portfolio$", _third_item_unreadable())
    proxy.add(rf"^{P}/investors/{gone}/portfolio$", api_error(404, "NOT_FOUND", "No investor"))
    got = outcome(lambda: fresh.private.portfolio(ids))
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    assert error.failed == [bad] and error.received == 28 and error.expected == 30
    assert "1 answered 404" in str(error), str(error)
    assert error.partial.attrs["missing_ids"] == [gone]
    mine = want[want["investor_id"] == bad]
    assert f"page 1, item 3 of {len(mine)} (id {mine['id'].iloc[2]})" in str(error), str(error)
    assert any("1 of 30 investors answered 404" in m for m in got.warned(MissingDataWarning)), [
        str(w.message) for w in got.caught
    ]
    # the other ids' rows, and the bad id's but the item named (its one page less that item)
    others = _less_third(want[want["investor_id"] != gone], bad)
    assert_same(error.partial, others, ignore_index=True)


def test_the_partial_is_the_frame_the_call_returns_of_the_other_ids_with_its_findings(
    fresh: Any, proxy: Proxy, thirty: Any
):
    """The partial kept a repeated row of another id (no dedupe), had empty attrs, and what
    was found of the other ids (the repeats) went unsaid."""
    ids, (repeats, bad, *_) = thirty
    proxy.add(rf"^{P}/investors/{repeats}/portfolio$", repeat_rows(3))
    normal = outcome(lambda: fresh.private.portfolio(ids))
    assert normal.error is None and normal.warned(ServiceContractWarning)
    proxy.add(rf"^{P}/investors/{bad}/portfolio$", _third_item_unreadable())
    got = outcome(lambda: fresh.private.portfolio(ids))
    error = got.error
    assert type(error) is ServiceContractError, repr(error)
    partial = error.partial
    assert not partial.duplicated(["investor_id", "id"]).any()
    assert_same(partial, _less_third(normal.value, bad), ignore_index=True)
    findings = [f["kind"] for f in partial.attrs["findings"]]
    assert "repeated_rows" in findings, partial.attrs["findings"]
    assert partial.attrs["rows_expected"] == normal.value.attrs["rows_expected"]
    assert partial.attrs["rows_received"] == normal.value.attrs["rows_received"] - 1
    said = got.warned(ServiceContractWarning)
    assert said and all(m in said for m in normal.warned(ServiceContractWarning)), said


def test_the_unreadable_id_is_found_by_halving_the_ids_without_asking_again(
    fresh: Any, proxy: Proxy, portfolios: Any, direct: Any, monkeypatch: pytest.MonkeyPatch
):
    """One build per id (60 ids: 60 builds and more) became a few: about log2 of the ids,
    the pages of the id and log2 of its page's rows; no page is asked for again."""
    ids = direct.private.investors(limit=60)["id"].tolist()
    _, chosen = portfolios
    bad = chosen[3]
    fresh.private.portfolio(ids)
    asked = proxy.count(r"/portfolio$")
    builds = []
    reads = private_api.reads_alone

    def counted(build: Any, rows: Any) -> bool:
        builds.append(len(rows))
        return reads(build, rows)

    monkeypatch.setattr(private_api, "reads_alone", counted)
    proxy.add(rf"^{P}/investors/{bad}/portfolio$", _third_item_unreadable())
    error = outcome(lambda: fresh.private.portfolio(ids)).error
    assert type(error) is ServiceContractError, repr(error)
    assert error.failed == [bad] and "page 1, item 3 of" in str(error), str(error)
    assert proxy.count(r"/portfolio$") == 2 * asked
    assert len(builds) < 30, builds  # one per id of 60 before
