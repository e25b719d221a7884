"""What the error of a list call sent in batches of ids says of its partial frame, over real
HTTP (the drift proxy fails the pages of one batch).

``attrs["missing_ids"]`` of a lookup by ``id`` names the ids the service did not return. On the
partial frame of an ``IncompleteResultError`` it used to name ids nobody had looked up: those
of a batch whose page failed (real deals that sat on that page), and, for ``id`` beside an
``investor_id`` of more than 1,000 ids, every id a batch not read might have returned. It now
names only the ids known to be absent. The error's ``expected`` and ``received`` of a union of
batches (``investor_id``) counted a deal of two batches once in each; they now count the rows
of the result: unknown, and the partial's; so do those of ``strict=True`` when a page of a batch
came short, whose ``failed`` names the batch. A batch that the early stop of ``limit`` ends
part-way, in which the service repeated rows, is no longer said to lack those rows: the repeats
are said as repeats, as a plain pull says them. Expectations come from the sandbox's rows read
with plain ``requests``.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    clamp_limit,
    drop_rows,
    fresh,
    fresh_rules,
    ignore_page,
    meta_delete,
    no_hang,
    proxy,
)
from test_id_filter_batches import (  # noqa: F401 - fixtures are used by name
    CAP,
    P,
    deals,
    holding,
    investor_batches,
    padding,
    participants,
    server_error,
)

from dealframe import Client
from dealframe.errors import IncompleteResultError, ServiceContractError

LIST = f"^{P}/transactions$"


def test_an_id_lookup_beside_investor_batches_names_no_id_a_failed_batch_may_hold(
    fresh, proxy, deals, investor_batches
):
    """``deals(id=X, investor_id=<1,449 ids>)``: every id goes with each batch of
    ``investor_id``, so when the second batch fails, any id of ``X`` not returned may be a deal
    of it. None is named missing (50 real deals of the second batch were)."""
    first, second = map(set, investor_batches)
    only_first = [
        d["id"] for d in deals if participants(d) & first and not participants(d) & second
    ]
    only_second = [
        d["id"] for d in deals if participants(d) & second and not participants(d) & first
    ]
    unknown = padding(10, 9)
    looked = only_first[:50] + only_second[:50] + unknown
    wanted = [*investor_batches[0], *investor_batches[1]]
    whole = fresh.private.deals(id=looked, investor_id=wanted)
    assert whole.attrs["missing_ids"] == unknown  # every batch arrived: absent for sure
    when = holding("investor_id", investor_batches[1][0])
    proxy.add(LIST, server_error(), method="POST", page=1, when=when)
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals(id=looked, investor_id=wanted)
    partial = info.value.partial
    assert set(partial["id"]) == set(only_first[:50])
    assert partial.attrs["missing_ids"] == []


def test_an_id_lookup_whose_page_failed_names_none_of_that_batch_missing(fresh, proxy, deals):
    """A service of 500-row pages: the first batch of 1,000 ids comes in two pages, and its
    page 2 fails. The ids of that batch are not named missing (400 real deals sat on that
    page); those of the second batch, which arrived whole, are."""
    real = [d["id"] for d in deals]
    unknown = padding(200, 9)
    ids = real[:900] + unknown[:100] + real[900:1300] + unknown[100:]
    proxy.add(LIST, clamp_limit(500), method="POST")
    proxy.add(LIST, server_error(), method="POST", page=2, when=holding("id", real[0]))
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals(id=ids)
    error = info.value
    assert error.failed == [f"ids 1-{CAP} page 2"]
    assert set(error.partial["id"]) == set(real[:500] + real[900:1300])
    assert error.partial.attrs["missing_ids"] == unknown[100:]


def test_the_error_of_a_union_counts_the_rows_of_its_result(fresh, proxy, investor_batches):
    """Page 2 of the second batch of ``investor_id`` fails: the union's size is unknown (the
    failed page's deals may be the first batch's too), and ``received`` is the partial's rows,
    each deal once, not the batches' rows with their shared deals counted in each."""
    wanted = [*investor_batches[0], *investor_batches[1]]
    when = holding("investor_id", investor_batches[1][0])
    proxy.add(LIST, server_error(), method="POST", page=2, when=when)
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals(investor_id=wanted)
    error = info.value
    assert error.partial.attrs["batch_overlap"] > 0  # the test needs deals of both batches
    assert error.expected is None
    assert error.received == len(error.partial)
    assert f"received {len(error.partial)} rows;" in str(error)


def test_the_error_of_a_plain_pull_counts_its_pages(fresh, proxy, deals):
    """A plain pull (no batches) keeps its counts: the rows ``meta.total`` announced, and the
    rows that arrived."""
    proxy.add(LIST, server_error(), method="POST", page=2)
    with pytest.raises(IncompleteResultError) as info:
        fresh.private.deals()
    error = info.value
    assert error.expected == len(deals)
    assert error.received == len(error.partial) == len(deals) - CAP * len(error.failed)


def test_a_limit_without_sort_reads_a_later_batch_only_for_the_rows_still_wanted(
    sandbox, proxy, deals, investor_batches
):
    """``limit`` one row past the first batch of ``investor_id``: the second batch is read
    until one distinct row more has arrived (its first page), not up to ``limit`` rows of its
    own (three pages more, most of them cut away). The rows are the plain union's, cut."""
    first, second = investor_batches
    union: list[str] = []
    for batch in (set(first), set(second)):
        union += [d["id"] for d in deals if participants(d) & batch and d["id"] not in union]
    of_first = sum(bool(participants(d) & set(first)) for d in deals)
    assert of_first > CAP and len(union) > of_first + CAP  # batch 2 alone would take 3 pages
    settings = {**FAST, "max_workers": 1, "cache_enabled": False}  # no page runs ahead
    with Client(proxy.url, sandbox.public_token, sandbox.private_key, **settings) as client:
        client.private.deals(limit=1)  # the discovery document, read before counting
        proxy.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # every batch adds up: nothing to warn about
            frame = client.private.deals(investor_id=[*first, *second], limit=of_first + 1)
    assert proxy.count(LIST, "POST") == math.ceil(of_first / CAP) + 1
    assert set(frame["id"]) == set(union[: of_first + 1]) and len(frame) == of_first + 1
    assert frame.attrs["truncated"] is True and frame.attrs["rows_total"] is None


def shifted(by: int) -> Action:
    """From page 3 on, each page served ``by`` rows late, the way rows move while a walk pages:
    page 3 starts with the last ``by`` rows of page 2, and each page's last ``by`` rows open the
    next one (nothing is lost; the order is the service's). Pages must come one at a time."""
    carry: list[Any] = []

    def apply(ex: Exchange) -> None:
        doc, page = ex.doc(), ex.page or 1
        if not isinstance(doc, dict) or page < 2:
            return
        rows, more = doc["data"], doc["meta"]["has_more"]
        if page > 2:
            doc["data"] = carry + (rows[:-by] if more else rows)
            ex.set_doc(doc)
        carry[:] = rows[-by:]

    return Action(f"shifted({by})", on_response=apply)


def test_rows_repeated_in_a_batch_the_limit_ends_are_said_as_repeats(
    sandbox, proxy, deals, investor_batches
):
    """The second batch's rows move 5 rows late from its page 3 on (page 3 repeats page 2's
    last 5), and ``limit`` ends that batch a few pages in: its distinct rows then fall short
    of its full pages by the 5 rows it repeated. The frame is the union's first rows; the
    call says only that ids came more than once (it used to say, too, that ``meta.total``
    announced 5 rows more than arrived, and ``strict=True`` raised ``IncompleteResultError``
    on a complete frame instead of the ``ServiceContractError`` of a plain pull)."""
    first, second = investor_batches
    union: list[str] = []
    for batch in (set(first), set(second)):
        union += [d["id"] for d in deals if participants(d) & batch and d["id"] not in union]
    of_first = sum(bool(participants(d) & set(first)) for d in deals)
    size, limit = 200, of_first + 3 * 200 + 7  # past batch 2's page 4: a page past its shift
    assert len(union) > limit + 2 * size  # the stop lands well before batch 2's end
    proxy.add(LIST, clamp_limit(size), method="POST")
    proxy.add(LIST, shifted(5), method="POST", when=holding("investor_id", second[0]))
    settings = {**FAST, "max_workers": 1, "cache_enabled": False}  # pages one at a time
    with Client(proxy.url, sandbox.public_token, sandbox.private_key, **settings) as client:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            frame = client.private.deals(investor_id=[*first, *second], limit=limit)
        with pytest.raises(ServiceContractError) as info:
            client.private.deals(investor_id=[*first, *second], limit=limit, strict=True)
    assert frame["id"].tolist() == union[:limit]
    assert frame.attrs["rows_total"] is None  # batch 2 was not read to its end
    assert [f["kind"] for f in frame.attrs["findings"]] == ["repeated_rows"]
    assert len(seen) == 1 and "came more than once" in str(seen[0].message)
    assert info.value.finding == "repeated_rows"


def test_the_strict_error_of_a_union_counts_the_rows_of_its_result(fresh, proxy, investor_batches):
    """Page 2 of the second batch of ``investor_id`` comes 5 rows short (``meta`` unchanged),
    with ``strict=True``: ``IncompleteResultError``'s ``expected`` is None and ``received`` the
    partial's rows, as when a page fails, not the batches' rows with their shared deals
    counted in each ("received 5689 of 5694" for a partial of 4,887 rows); its ``failed``
    names the batch of the short page."""
    wanted = [*investor_batches[0], *investor_batches[1]]
    when = holding("investor_id", investor_batches[1][0])
    proxy.add(LIST, drop_rows(5), method="POST", page=2, when=when)
    for limit in (None, 4000):
        with pytest.raises(IncompleteResultError) as info:
            fresh.private.deals(investor_id=wanted, limit=limit, strict=True)
        error = info.value
        assert error.partial.attrs["batch_overlap"] > 0  # the test needs shared deals
        assert error.expected is None
        assert error.received == len(error.partial)
        assert f"received {len(error.partial)} rows;" in str(error)
        assert f"investor_id ids {CAP + 1}-{len(wanted)} page 2" in error.failed[0]


@pytest.mark.parametrize("drift", ["no meta", "page= ignored"])
def test_a_finding_every_batch_makes_is_said_once_for_the_call(
    fresh, proxy, investor_batches, drift
):
    """Said by the pages of both batches of ``investor_id``, a finding in the same words is
    said once, and of the call (its endpoint), not pinned to the first batch: "no meta" was
    said of ``investor_id ids 1-1000`` alone, and the second batch's stopped paging nowhere."""
    wanted = [*investor_batches[0], *investor_batches[1]]
    proxy.add(LIST, meta_delete() if drift == "no meta" else ignore_page(), method="POST")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            found = fresh.private.deals(investor_id=wanted).attrs["findings"]
        except IncompleteResultError as error:  # page= ignored: rows are missing
            found = error.partial.attrs["findings"]
    kind = "bad_meta" if drift == "no meta" else "repeated_page"
    said = [f for f in found if f["kind"] == kind]
    assert len(said) == 1, found
    assert said[0]["where"] == f"POST {P}/transactions", said
