"""``page()`` drops the rows outside the filters sent, as the list calls do, over HTTP.

A service that ignores a filter (or serves a deleted row without ``include_deleted``)
answers 200 with rows the request ruled out. ``deals()`` drops them with an ``unrequested``
finding (a ``ServiceContractWarning``; ``strict=True`` raises); ``page()`` returned them as
they came, without a word. The drift proxy makes the first row of each page such a row.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import edit, fresh, fresh_rules, proxy  # noqa: F401 - fixtures are used by name

from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

LIST = r"^/api/private/v1/transactions$"


def first_row_outside(doc: Any) -> Any:
    """The page's first row an Early deal, soft-deleted (outside deal_type=M&A, and outside
    a request without include_deleted)."""
    if doc.get("data"):
        doc["data"][0].update(deal_type="Early", deleted=True)
    return doc


def test_page_drops_rows_outside_the_filters_and_says_so(fresh: Any, proxy: Any) -> None:
    proxy.add(LIST, edit(first_row_outside), method="POST")
    with pytest.warns(ServiceContractWarning, match="outside the filters sent") as said:
        frame = fresh.private.page("transactions", {"deal_type": ["M&A"]}, limit=3)
    message = str(said[0].message)
    assert "deal_type: 1 row not in ['M&A']" in message
    assert "include_deleted: 1 deleted row, not asked for" in message
    assert len(frame) == 2 and set(frame["deal_type"]) == {"M&A"}
    assert not frame["deleted"].any()
    assert frame.attrs["returned"] == 3  # the service's page as it said it
    assert [f["kind"] for f in frame.attrs["findings"]] == ["unrequested"]


def test_page_strict_raises_on_rows_outside_the_filters(fresh: Any, proxy: Any) -> None:
    proxy.add(LIST, edit(first_row_outside), method="POST")
    with pytest.raises(ServiceContractError, match="outside the filters sent") as caught:
        fresh.private.page("transactions", {"deal_type": ["M&A"]}, limit=3, strict=True)
    assert caught.value.finding == "unrequested"


def test_page_keeps_deleted_rows_asked_for(fresh: Any, proxy: Any) -> None:
    """With include_deleted, a deleted row is what was asked: kept, nothing said."""
    proxy.add(LIST, edit(first_row_outside), method="POST")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServiceContractWarning)
        frame = fresh.private.page(
            "transactions", {"deal_type": ["Early", "M&A"], "include_deleted": True}, limit=3
        )
    assert len(frame) == 3 and frame["deleted"].iloc[0]


def test_page_keeps_rows_below_updated_at_for_the_feed_walk(fresh: Any, proxy: Any) -> None:
    """A row below ``updated_at`` is a change-feed walk's sign that the service ignores its
    cursor (the mirror stops on it): dropped, the page would read as the feed's end. Kept,
    and said (test_private_filters_pages_review.py)."""

    def stamped_early(doc: Any) -> Any:
        if doc.get("data"):
            doc["data"][0]["updated_at"] = "2001-01-01T00:00:00Z"
        return doc

    proxy.add(LIST, edit(stamped_early), method="POST")
    with pytest.warns(ServiceContractWarning, match="kept"):
        frame = fresh.private.page(
            "transactions",
            {"updated_at": "2010-01-01T00:00:00Z", "include_deleted": True},
            sort="updated_at:asc",
            limit=3,
        )
    assert len(frame) == 3
    assert frame["updated_at"].iloc[0] == pd.Timestamp("2001-01-01", tz="UTC")
