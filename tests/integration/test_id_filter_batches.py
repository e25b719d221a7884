"""Filters of ids over the sandbox's 1,000-id cap, over real HTTP (the drift proxy records what
was sent).

The sandbox takes at most 1,000 ids in each filter its discovery document types
``array_uuid`` (``id``, ``target_id``, ``investor_id``; docs/sandbox.md "Filters of ids").
``deals(target_id=companies["id"])``, the deals of a cohort, used to go out whole and come back
a 400; only ``id`` was split. Every list call now sends such a filter in batches of 1,000 and
merges them. ``target_id`` and ``investor_id`` are unions (a deal of two investors of two
batches comes back twice): the frame holds it once, ``attrs["batch_overlap"]`` counts it, and
the count check holds each batch to its own ``meta.total``. Two filters over the cap are refused
before any request; an aggregate is not split (medians cannot be merged) and a refusal of it
names the filter. Expectations come from the sandbox's rows read with plain ``requests``.
"""

from __future__ import annotations

import json
import sys
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    assert_same,
    direct,
    drop_rows,
    fresh,
    fresh_rules,
    no_hang,
    operators_of,
    proxy,
    wire_rows,
)

from dealframe.errors import BadRequestError, IncompleteResultError, ServerError, ValidationError

P = "/api/private/v1"
CAP = 1000


def padding(n: int, seed: int) -> list[str]:
    """``n`` well-formed ids no entity has (they match nothing)."""
    return [str(uuid.UUID(int=(seed << 64) + i, version=4)) for i in range(n)]


def participants(deal: dict[str, Any]) -> set[str]:
    """The ids ``investor_id`` matches a deal by: its lead investors and buyers."""
    return {p["id"] for p in [*deal["lead_investors"], *deal["buyers"]]}


@pytest.fixture(scope="module")
def deals(sandbox: Any) -> list[dict[str, Any]]:
    return wire_rows(sandbox, "/transactions")


@pytest.fixture(scope="module")
def company_ids(sandbox: Any) -> list[str]:
    ids = [c["id"] for c in wire_rows(sandbox, "/companies")][::-1]  # not the service's order
    assert len(ids) > CAP, "the test needs more companies than one request takes"
    return ids


@pytest.fixture(scope="module")
def investor_batches(sandbox: Any, deals: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Investor ids in two batches of ``investor_id`` (each padded to the cap with ids of no
    one), split so that some deals have a participant in each."""
    investors = [i["id"] for i in wire_rows(sandbox, "/investors")]
    half = len(investors) // 2
    first = investors[:half] + padding(CAP - half, 1)
    second = investors[half:] + padding(300, 2)
    return first, second


def records(proxy: Any) -> list[dict[str, Any]]:
    """A request action keeping the filters of the POST list requests the proxy forwards,
    each distinct filters object once (the pages of one batch share it), in arrival order."""
    sent: list[dict[str, Any]] = []

    def keep(ex: Exchange) -> None:
        filters = ex.body.get("filters") if isinstance(ex.body, dict) else None
        if isinstance(filters, dict) and filters not in sent:
            sent.append(filters)

    proxy.add(f"^{P}/transactions(/aggregate)?$", Action("record filters", keep), method="POST")
    return sent


def ids_in(wired: Any) -> list[str]:
    return wired if isinstance(wired, list) else next(iter(wired.values()))


def test_deals_of_more_than_1000_target_companies_go_in_batches(fresh, proxy, deals, company_ids):
    want = {d["id"] for d in deals if d["target"]["id"] in set(company_ids)}
    sent = records(proxy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every row adds up: nothing to warn about
        frame = fresh.private.deals(target_id=company_ids, strict=True)
    assert set(frame["id"]) == want and frame["id"].is_unique
    assert [len(f["target_id"]) for f in sent] == [CAP, len(company_ids) - CAP]
    attrs = frame.attrs
    assert attrs["rows_expected"] == attrs["rows_received"] == attrs["rows_total"] == len(want)
    assert attrs["batch_overlap"] == 0 and attrs["duplicates_removed"] == 0
    assert attrs["filters"]["target_id"] == company_ids  # the call's filter, as given
    assert set(frame["target_id"]) <= set(company_ids)


def test_investor_batches_sharing_deals_keep_each_deal_once(fresh, proxy, deals, investor_batches):
    """``investor_id`` is a union: a deal led by an investor of the first batch and one of the
    second comes back in both. It is one row; the count check holds each batch to its total."""
    first, second = map(set, investor_batches)
    both = [d["id"] for d in deals if participants(d) & first and participants(d) & second]
    want = {d["id"] for d in deals if participants(d) & (first | second)}
    assert both, "the test needs deals with an investor in each batch"
    sent = records(proxy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = fresh.private.deals(investor_id=[*investor_batches[0], *investor_batches[1]])
    assert set(frame["id"]) == want and frame["id"].is_unique
    assert [len(f["investor_id"]) for f in sent] == [CAP, len(second)]
    attrs = frame.attrs
    assert attrs["batch_overlap"] == len(both)
    assert attrs["rows_expected"] == attrs["rows_received"] == len(want) + len(both)
    assert attrs["rows_total"] == len(want) and attrs["duplicates_removed"] == 0
    assert attrs["truncated"] is False


def test_sorted_and_limited_batches_are_one_order(
    sandbox, fresh, deals, investor_batches, company_ids
):
    """With ``sort``, the batches (each sorted by the service) merge into the order one request
    over every id would give, and ``limit`` takes its first rows, from whichever batch."""
    wanted = [*investor_batches[0], *investor_batches[1]]
    asked = set(wanted)
    truth = [
        d["id"]
        for d in wire_rows(sandbox, "/transactions", "deal_valuation:desc")
        if participants(d) & asked
    ]
    frame = fresh.private.deals(investor_id=wanted, sort="deal_valuation:desc")
    assert frame["id"].tolist() == truth
    top = fresh.private.deals(investor_id=wanted, sort="deal_valuation:desc", limit=25)
    assert top["id"].tolist() == truth[:25]
    assert top.attrs["truncated"] is True
    # without sort, batches stop once ``limit`` rows arrived (one target a deal: no overlap)
    of_first = sum(d["target"]["id"] in set(company_ids[:CAP]) for d in deals)
    some = fresh.private.deals(target_id=company_ids, limit=of_first + 10)
    assert len(some) == of_first + 10 and some["id"].is_unique
    assert set(some["target_id"]) <= set(company_ids) and some.attrs["truncated"] is True


def test_two_filters_over_the_cap_are_refused_before_any_list_request(
    fresh, proxy, company_ids, investor_batches
):
    fresh.private.lookup("transactions")  # the discovery document held: nothing else to read
    before = proxy.count()
    with pytest.raises(ValidationError) as info:
        fresh.private.deals(
            target_id=company_ids, investor_id=[*investor_batches[0], *investor_batches[1]]
        )
    text = str(info.value)
    assert info.value.argument == "target_id and investor_id"
    assert f"target_id {len(company_ids):,}" in text and "1,000" in text
    assert proxy.count() == before  # nothing sent


def test_an_aggregate_goes_out_whole_and_its_refusal_names_the_filter(fresh, proxy, company_ids):
    """Medians of batches cannot be merged: the aggregate is sent as given (the real service's
    cap is unknown), and the sandbox's refusal says which filter and why it was not split."""
    sent = records(proxy)
    with pytest.raises(BadRequestError) as info:
        fresh.private.aggregate("ev_revenue", "year", target_id=company_ids)
    assert [len(f["target_id"]) for f in sent] == [len(company_ids)]
    note = info.value.note or ""
    assert f"target_id {len(company_ids):,}" in note and "one request" in note, note
    assert "medians of batches cannot be merged" in note
    few = fresh.private.aggregate("ev_revenue", "year", target_id=company_ids[:CAP])
    assert few.attrs["request"]["filters"]["target_id"] == company_ids[:CAP]


def test_ids_written_out_with_their_operator_are_batched_too(
    direct, fresh, proxy, deals, investor_batches
):
    """A service listing ``id`` and ``investor_id`` with two operators gets ``{"in": [...]}``:
    its batches keep that form (the list of ids in it was sliced as if it were the list)."""
    proxy.add(f"^{P}/lookup/transactions$", operators_of(id=["in", "eq"], investor_id=["in", "eq"]))
    sent = records(proxy)
    wanted = [*investor_batches[0], *investor_batches[1]]
    frame = fresh.private.deals(investor_id=wanted)
    assert_same(frame, direct.private.deals(investor_id=wanted))
    assert [len(f["investor_id"]["in"]) for f in sent] == [CAP, len(investor_batches[1])]
    ids = [d["id"] for d in deals][:1500]
    sent.clear()
    looked = fresh.private.deals(id=ids)
    assert looked["id"].tolist() == ids
    assert [len(ids_in(f["id"])) for f in sent] == [CAP, 500]
    assert all(isinstance(f["id"], dict) for f in sent)


def holding(key: str, one: str) -> Any:
    """A rule's ``when``: the list requests whose filter ``key`` holds the id ``one`` (the
    pages of one batch)."""

    def when(ex: Exchange) -> bool:
        filters = ex.body.get("filters") if isinstance(ex.body, dict) else None
        return isinstance(filters, dict) and one in ids_in(filters.get(key) or [])

    return when


def server_error() -> Action:
    """A 500 with the interface document's error body, whatever was asked (retried, then
    given up on)."""
    body = json.dumps({"error": {"code": "INTERNAL_ERROR", "message": "down"}}).encode()

    def apply(ex: Exchange) -> None:
        ex.status, ex.content, ex._doc = 500, body, None
        ex.headers = {"Content-Type": "application/json"}

    return Action("500", on_response=apply)


def test_a_limit_without_sort_over_batches_sharing_deals_gets_its_rows(
    fresh, deals, investor_batches
):
    """Without ``sort``, a later batch of ``investor_id`` holds deals an earlier one returned.
    Asked only for the rows still wanted it came up short by those, without a word: ``limit``
    rows, or every matching row when fewer match, is what a plain list with ``limit`` gives."""
    first, second = map(set, investor_batches)
    want = {d["id"] for d in deals if participants(d) & (first | second)}
    of_first = sum(bool(participants(d) & first) for d in deals)
    wanted = [*investor_batches[0], *investor_batches[1]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every batch adds up: nothing to warn about
        some = fresh.private.deals(investor_id=wanted, limit=of_first + 50, strict=True)
        every = fresh.private.deals(investor_id=wanted, limit=len(want) + 9, strict=True)
    assert len(some) == of_first + 50 and some["id"].is_unique and set(some["id"]) <= want
    assert some.attrs["truncated"] is True and some.attrs["rows_total"] is None
    assert set(every["id"]) == want and every["id"].is_unique
    assert every.attrs["rows_total"] == len(want) and every.attrs["truncated"] is False


def test_a_later_batch_failing_keeps_the_batches_that_arrived(
    fresh, proxy, deals, investor_batches
):
    """A 500 (after its retries) on the first page of the second batch: the first batch's rows
    are kept on an ``IncompleteResultError`` naming the batch, not lost with a bare error; the
    union's size is unknown."""
    first, second = investor_batches
    of_first = {d["id"] for d in deals if participants(d) & set(first)}
    when = holding("investor_id", second[0])
    proxy.add(f"^{P}/transactions$", server_error(), method="POST", page=1, when=when)
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals(investor_id=[*first, *second])
    error = info.value
    assert error.failed == [f"investor_id ids {CAP + 1}-{CAP + len(second)}"]
    assert isinstance(error.errors[0], ServerError)
    assert set(error.partial["id"]) == of_first and error.partial["id"].is_unique
    assert error.partial.attrs["rows_total"] is None


def test_a_page_failing_in_a_later_batch_is_named_with_it(fresh, proxy, deals, investor_batches):
    """A 500 on page 2 of the second batch: the failure names the batch, and ``rows_total`` of
    the partial frame is None (the batch's ``meta.total`` less the overlap among the rows read
    counted rows that never arrived)."""
    first, second = investor_batches
    proxy.add(
        f"^{P}/transactions$",
        server_error(),
        method="POST",
        page=2,
        when=holding("investor_id", second[0]),
    )
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals(investor_id=[*first, *second])
    error = info.value
    assert error.partial["id"].is_unique and error.partial.attrs["rows_total"] is None
    assert error.failed == [f"investor_id ids {CAP + 1}-{CAP + len(second)} page 2"]


def test_rows_a_batch_left_out_leave_the_union_size_unknown(fresh, proxy, investor_batches):
    """A service that leaves rows out of a batch's page (said by the count check): the union's
    size cannot be told from the rows read, so ``rows_total`` is None, not a guess."""
    first, second = investor_batches
    when = holding("investor_id", second[0])
    proxy.add(f"^{P}/transactions$", drop_rows(5), method="POST", page=1, when=when)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the short page is warned of (tested elsewhere)
        frame = fresh.private.deals(investor_id=[*first, *second])
    assert frame.attrs["rows_total"] is None


def test_a_lookup_by_id_keeps_the_batches_before_one_that_failed(fresh, proxy, deals):
    """``deals(id=...)`` of 1,500 ids whose second batch meets a 500: the first 1,000 deals
    arrive on the error (the defect predates the batching of other filters)."""
    ids = [d["id"] for d in deals][:1500]
    proxy.add(f"^{P}/transactions$", server_error(), method="POST", when=holding("id", ids[CAP]))
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals(id=ids)
    error = info.value
    assert error.failed == [f"ids {CAP + 1}-1500"]
    assert error.partial["id"].tolist() == ids[:CAP]
