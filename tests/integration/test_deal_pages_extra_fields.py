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
from _decoder_reads import Reads, Spied
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
    reads = Reads(deal_rows._decoder)
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


def _doc_items(doc: Any) -> list[Any]:
    """The items of a list page's body (none for any other body)."""
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        return doc["data"]
    return []


def _typed_and_json(client: Client, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Spied]:
    """The frame read typed (every page), what the reader paid, and the same frame read as
    JSON: they must be equal."""
    with monkeypatch.context() as patch:
        spied = Spied(patch)
        got, taken = _deals(client, monkeypatch, typed=True)
    want, _ = _deals(client, monkeypatch, typed=False)
    assert len(taken) == got.attrs["requests"] >= 3
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs["findings"] == want.attrs["findings"]
    return got, spied


def test_a_member_null_in_every_item_is_read_without_a_pass_a_page(drifted, monkeypatch):
    """A member null in every item looked like one the guess held but no item had: every page
    paid a pass over its members (parse 3.2-3.5 ms a page of 1,000 items, not 1.3-1.5). Now
    the decode tells a null member from an absent one: one pass, on the first page, which is
    read once more telling them; later pages are read so at once."""
    proxy, client = drifted
    proxy.add("/transactions$", set_field("deleted_at", None))
    got, spied = _typed_and_json(client, monkeypatch)
    pages = got.attrs["requests"]
    assert spied.passes == [1]
    assert set(spied.sets) == {(), ("deleted_at",)} and len(spied.sets) == 2 * pages + 1
    assert "deleted_at" in got.columns and got["deleted_at"].isna().all()


def test_alternating_member_sets_are_read_with_their_union(drifted, monkeypatch):
    """Pages holding {aa, bb} and {aa} in turn: each page's set replaced the guess and the
    next page paid a pass (3.5 ms a page, not 1.2). Now the guess is their union: no pass
    after the first page, and a page holding fewer is read again with its own members."""

    def alternate(doc: Any) -> Any:
        page = (doc.get("meta") or {}).get("page") or 1
        for item in _doc_items(doc):
            item.update({"aa": 1, "bb": 2} if page % 2 else {"aa": 1})
        return doc

    proxy, client = drifted
    proxy.add("/transactions$", edit(alternate))
    got, spied = _typed_and_json(client, monkeypatch)
    assert spied.passes == [1]
    assert set(spied.sets) == {(), ("aa",), ("aa", "bb")}
    assert got["bb"].notna().any() and got["bb"].isna().any()


def test_lists_and_objects_of_small_integers_are_not_walked(drifted, monkeypatch):
    """Lists and objects in a member were walked in Python on every page for integers beyond
    64 bits (parse 4.4 ms a page, not 2.1-2.4); a page with no 19 digits in a row has none."""
    links = {"self": "/d", "tags": [1, 2, 3, {"k": 4}], "n": {"a": [5, 6]}}
    proxy, client = drifted
    proxy.add("/transactions$", set_field("links", links))
    got, spied = _typed_and_json(client, monkeypatch)
    assert spied.walks == [] and spied.passes == [1]
    assert set(got["links"]) == {'{"n":{"a":[5,6]},"self":"/d","tags":[1,2,3,{"k":4}]}'}
