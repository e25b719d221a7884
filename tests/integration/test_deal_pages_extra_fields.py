"""A service that adds a member to every deal (the sandbox's ``extra-fields`` profile: the
interface document allows members it does not name) is read as typed rows, not as JSON.

Such pages were read by orjson into dicts, at about twice the parse time of documented pages.
The frame and its findings must be those the JSON reading gives (the client's own fallback,
taken by a reader that refuses every page); a spy on the typed reader (not on the transport)
counts the pages it read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

import dealframe.frames.private as frames_private
from dealframe import Client
from dealframe.sandbox import run

#: The sandbox's extra member of Family B items and its value (docs/sandbox.md, extra-fields).
EXTRA, VALUE = "extra_field", "served by the extra-fields profile"
DEALS = {"deal_type": ["M&A", "Venture"]}


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """A client of a service adding ``extra_field`` to every item, serving 100 rows a page."""
    with (
        run(scale=0.03, seed=5, profile="extra-fields,limit-100") as served,
        Client.for_sandbox(served, progress=False) as client,
    ):
        yield client


def _deals(client: Client, monkeypatch: pytest.MonkeyPatch, typed: bool) -> tuple[Any, list]:
    """``client.private.deals(**DEALS)``, and the rows of each page the typed reader took;
    with ``typed`` False the reader takes none (every page is read as JSON)."""
    real = frames_private.LIST_READERS["transactions"]
    taken: list[int] = []

    def spy(content: Any) -> Any:
        read = real(content) if typed else None
        if read is not None:
            taken.append(len(read["data"]))
        return read

    with monkeypatch.context() as patch:
        patch.setitem(frames_private.LIST_READERS, "transactions", spy)
        return client.private.deals(**DEALS, cache=False), taken


def test_pages_with_an_extra_member_in_every_item_are_read_typed(client, monkeypatch):
    got, taken = _deals(client, monkeypatch, typed=True)
    want, none = _deals(client, monkeypatch, typed=False)
    assert none == []
    pages = got.attrs["requests"]  # one request a page: 100 rows each
    assert pages >= 3 and len(taken) == pages and sum(taken) == len(got)
    pd.testing.assert_frame_equal(got, want)
    assert got.columns[-1] == EXTRA and (got[EXTRA] == VALUE).all()
    assert got.attrs["findings"] == want.attrs["findings"]
