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
from _drift_proxy import FAST, Proxy, edit, set_field

import dealframe.frames.deal_rows as deal_rows
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


class _Reads:
    """A spy on the typed reader's decoders: the member sets each page was decoded with."""

    def __init__(self, real: Any) -> None:
        self.real, self.sets = real, []

    def __call__(self, extra: tuple[str, ...]) -> Any:
        decoder = self.real(extra)
        sets = self.sets

        class Counted:
            def decode(self, content: Any) -> Any:
                sets.append(extra)
                return decoder.decode(content)

        return Counted()


@pytest.fixture
def drifted() -> Iterator[Any]:
    """A proxy in front of a service of 100 rows a page, and a client of it."""
    with (
        run(scale=0.03, seed=5, profile="limit-100") as served,
        Proxy(served.url) as proxy,
        Client(
            proxy.url,
            served.public_token,
            served.private_key,
            cache_enabled=False,
            **{**FAST, "max_workers": 8},
        ) as client,
    ):
        yield proxy, client


def test_an_integer_beyond_64_bits_in_an_extra_member_is_read_as_orjson_reads_it(
    drifted, monkeypatch
):
    """orjson reads such an integer as a float; the typed rows once kept a Python int, and the
    column builder refused it ("Integer exceeds 64-bit range"): the call failed."""
    proxy, client = drifted
    proxy.add("/transactions$", set_field("links", {"n": 10**20, "m": [-(10**30), 2**64 - 1]}))
    proxy.add("/transactions$", set_field("score", 10**20, first=1))
    got, taken = _deals(client, monkeypatch, typed=True)
    want, _ = _deals(client, monkeypatch, typed=False)
    assert len(taken) == got.attrs["requests"] >= 3
    pd.testing.assert_frame_equal(got, want)
    assert set(got["links"]) == {'{"m":[-1e+30,18446744073709551615],"n":1e+20}'}
    assert got["score"].dropna().tolist() == [1e20] * got.attrs["requests"]


def test_members_first_found_late_are_found_in_one_pass(drifted, monkeypatch):
    """16 members only in the last item of each page: each new name once cost another decode
    of the page (17 a page) and a decoder of the names found so far; now the page is decoded
    twice (one pass finding its members between, on the first page only)."""
    names = [f"late_{k}" for k in range(deal_rows.MAX_EXTRA)]

    def late(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list) and doc["data"]:
            doc["data"][-1].update({name: k for k, name in enumerate(names)})
        return doc

    proxy, client = drifted
    proxy.add("/transactions$", edit(late))
    reads = _Reads(deal_rows._decoder)
    monkeypatch.setattr(deal_rows, "_decoder", reads)
    monkeypatch.setattr(deal_rows, "_LAST", {}, raising=False)  # no page read before
    got, taken = _deals(client, monkeypatch, typed=True)
    pages = got.attrs["requests"]
    assert pages >= 3 and len(taken) == pages
    assert len(reads.sets) == 2 * pages  # refused, then read with all of them
    assert set(reads.sets) == {(), tuple(sorted(names))}  # no decoder of some of them made
    monkeypatch.undo()
    want, _ = _deals(client, monkeypatch, typed=False)
    pd.testing.assert_frame_equal(got, want)
    assert got[names].notna().sum().tolist() == [pages] * len(names)
