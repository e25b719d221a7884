"""The identity checks of a list pull read the ids where the parse holds them (Arrow text),
and tell distinct ids apart from a summary of each (length, first and last 8 bytes) before
any exact check: ids alike in that summary must still be told apart, and repeats found.

Every pull goes through the drift proxy, which rewrites the sandbox's deal pages.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    set_field,
    via,
)

from dealframe.contract import Findings, identities, identity_column
from dealframe.notices import MissingDataWarning

DEALS = "^/api/private/v1/transactions$"
#: Deals over three pages at the session sandbox's scale.
WHICH = {"deal_type": ["M&A", "Venture"]}


@pytest.fixture(scope="module")
def deals_ref(direct: Any) -> Any:
    frame = direct.private.deals(**WHICH)
    assert len(frame) > 2000, "the tests need several pages"
    return frame


def alike(i: int) -> str:
    """Ids of one length, with the same first and last 8 bytes, that differ in the middle."""
    return f"deal-id-{i:06d}-the-same-end"


def renumber(rows: int, twin: bool = False) -> Any:
    """Give the first ``rows`` deals of the page the ids :func:`alike`; with ``twin``, the
    second deal the first one's id (its content stays its own)."""

    def apply(doc: Any) -> Any:
        for i, item in enumerate(doc["data"][:rows]):
            item["id"] = alike(0 if twin and i == 1 else i)
        return doc

    return edit(apply, "renumber")


def kinds(frame: Any) -> set[str]:
    return {f["kind"] for f in frame.attrs["findings"]}


def test_ids_alike_at_both_ends_are_all_kept(via, proxy, deals_ref):
    proxy.add(DEALS, renumber(500), page=2)
    o = outcome(lambda: via.private.deals(**WHICH))
    assert o.error is None, o.error
    got = o.value
    assert len(got) == len(deals_ref)
    assert got["id"].is_unique
    assert got["id"].str.startswith("deal-id-").sum() == 500
    assert not kinds(got) & {"repeated_rows", "conflicting_rows", "missing_identity"}
    assert not o.warned(MissingDataWarning)


def test_a_repeated_id_among_ids_alike_is_found(via, proxy, deals_ref):
    proxy.add(DEALS, renumber(500, twin=True), page=2)
    o = outcome(lambda: via.private.deals(**WHICH))
    assert o.error is None, o.error
    got = o.value
    assert len(got) == len(deals_ref) - 1 and got["id"].is_unique
    assert "conflicting_rows" in kinds(got)
    assert got.attrs["duplicates_removed"] == 1


def test_empty_ids_on_a_later_page_are_said_for_that_page(via, proxy, deals_ref):
    proxy.add(DEALS, set_field("id", "", first=2), page=2)
    o = outcome(lambda: via.private.deals(**WHICH))
    assert o.error is None, o.error
    got = o.value
    assert len(got) == len(deals_ref)  # kept as rows of their own, never merged
    said = [f for f in got.attrs["findings"] if f["kind"] == "missing_identity"]
    assert [f["where"] for f in said] == ["POST /api/private/v1/transactions page 2"]
    assert said[0]["message"].startswith("2 of 1000 items have no 'id'")


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
@pytest.mark.parametrize(
    "ids", [["a", "b"], ["a", None, ""], [None, None], ["", "x", ""], ["z", "a", "a"], []]
)
def test_the_column_says_what_the_items_say(ids, kind):
    for column in (pa.array(ids, kind), pa.array(["q", *ids], kind)[1:]):
        by_column, by_items = Findings("POST /x"), Findings("POST /x")
        assert identity_column(column, "id", by_column, where="page 2") is column
        identities([{"id": i} for i in ids], "id", by_items, where="page 2")
        assert by_column.records() == by_items.records()
