"""``client.private.deals()`` over HTTP: pages of documented rows are read into typed rows
(frames/deal_rows.py), members beyond the documented ones included, any other page as JSON into
dicts, and the frame is in every case the one the JSON read of the same pages gives (issue 13:
one engine, with a fallback).

The reference is built here from the raw pages, fetched with ``requests`` through the same
drift proxy and read with orjson into the same column builder; the client's frame must equal
it. A spy on the reader (not on the transport) counts the pages it took, so each test knows
which path each page went.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    assert_same,
    direct,
    drop_field,
    edit,
    fresh_rules,
    outcome,
    proxy,
    set_field,
    via,
)

import dealframe.frames.private as frames_private
from dealframe import Client
from dealframe.errors import ServiceContractError
from dealframe.frames import list_frame, list_page_columns
from dealframe.notices import MissingDataWarning

P = "/api/private/v1"
DEALS = {"deal_type": ["M&A", "Venture"]}  # three pages at the session sandbox's scale
TRANSACTIONS = f"^{P}/transactions$"


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Rows of every page the typed reader took (one entry per page)."""
    real = frames_private.LIST_READERS["transactions"]
    pages: list[int] = []

    def spy(content: Any) -> Any:
        read = real(content)
        if read is not None:
            pages.append(len(read["data"]))
        return read

    monkeypatch.setitem(frames_private.LIST_READERS, "transactions", spy)
    return pages


def raw_frame(url: str, key: str) -> tuple[pd.DataFrame, int]:
    """The JSON read of the pages the client asks for (and how many pages there were)."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {key}"
    parts, page = [], 1
    while True:
        body = session.post(
            f"{url}{P}/transactions",
            json={"filters": DEALS, "limit": 1000, "page": page},
            timeout=60,
        ).content
        doc = orjson.loads(body)
        parts.append(list_page_columns("transactions", doc["data"]))
        if not doc["meta"]["has_more"]:
            return list_frame("transactions", parts), page
        page += 1


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert_same(got, want, ignore_index=True)
    for name in ("buyers", "lead_investors"):  # the text explode_participants cuts
        assert got[name].tolist() == want[name].tolist()


def test_documented_pages_are_read_typed_and_equal_the_json_read(direct, sandbox, taken):
    got = direct.private.deals(**DEALS)
    want, pages = raw_frame(sandbox.url, sandbox.private_key)
    assert pages >= 3 and len(taken) == pages and sum(taken) == len(got)
    same(got, want)
    assert got.attrs["findings"] == []


def _target_region(doc: Any) -> Any:
    for item in doc["data"][:5]:
        item["target"] = {**(item["target"] or {}), "region": "Oceania"}
    return doc


def _participant_role(doc: Any) -> Any:
    rows = [item for item in doc["data"] if item["lead_investors"]][:3]
    for item in rows:
        item["lead_investors"][0]["role"] = "lead"
    return doc


#: Answers on page 2 the typed reader refuses, read as JSON with the JSON read's result:
#: (rewrite, the column it shows in, rows showing it there and how many, the extra column).
ON_PAGE_2: dict[str, tuple[Action, str, Callable[[pd.Series], Any], int, str | None]] = {
    "unknown target key": (
        edit(_target_region, "target_region"),
        "target_region",
        lambda column: column.notna().sum(),
        5,
        "target_region",
    ),
    "number as text": (
        set_field("deal_valuation", "12345.678", first=3),
        "deal_valuation",
        lambda column: (column == 12345.678).sum(),
        3,
        None,
    ),
    "unknown participant key": (
        edit(_participant_role, "participant_role"),
        "lead_investors",
        lambda column: column.str.contains('"role":"lead"').sum(),
        3,
        None,
    ),
}


@pytest.mark.parametrize("case", list(ON_PAGE_2))
def test_a_page_of_other_rows_is_read_as_json_with_its_result(
    case, via, proxy, sandbox, direct, taken
):
    action, column, count, shown, extra = ON_PAGE_2[case]
    proxy.add(TRANSACTIONS, action, page=2)
    o = outcome(lambda: via.private.deals(**DEALS))
    assert o.error is None, repr(o.error)
    got = o.value
    want, pages = raw_frame(proxy.url, sandbox.private_key)
    assert len(taken) == pages - 1  # page 2 alone went the JSON way
    same(got, want)
    assert count(got[column]) == shown
    reference = direct.private.deals(**DEALS)
    assert list(got.columns) == list(reference.columns) + ([extra] if extra else [])


def test_members_beyond_the_documented_ones_are_read_typed_as_extra_columns(
    via, proxy, sandbox, direct, taken
):
    """Members the document does not name (it allows them): in some items only, of several
    kinds (an object, a number, a null, a boolean), on page 2; in every item on page 3. Every
    page is still read typed, and the frame is the JSON read's: the same extra columns, a
    member an item lacks read as null."""
    proxy.add(
        TRANSACTIONS,
        set_field("extra_field", {"a": [1, "x"]}, first=4),
        set_field("score", 2.5, first=7),
        set_field("flag", None, first=2),
        page=2,
    )
    proxy.add(TRANSACTIONS, set_field("flag", True), set_field("_links", {"self": "/x"}), page=3)
    o = outcome(lambda: via.private.deals(**DEALS))
    assert o.error is None, repr(o.error)
    got = o.value
    want, pages = raw_frame(proxy.url, sandbox.private_key)
    assert len(taken) == pages and sum(taken) == len(got)  # no page went the JSON way
    same(got, want)
    reference = direct.private.deals(**DEALS)
    added = ["_links", "extra_field", "flag", "score"]
    assert list(got.columns) == list(reference.columns) + added
    assert got["extra_field"].notna().sum() == 4 and got["score"].notna().sum() == 7
    assert got["extra_field"].dropna().tolist() == ['{"a":[1,"x"]}'] * 4
    flags = got["flag"]  # null in page 2's first two items and where absent; True on page 3
    assert flags.dtype.name == "boolean" and flags.dropna().all()
    assert flags.sum() == got["_links"].notna().sum() > 100
    assert got.attrs["findings"] == []


def test_a_documented_field_absent_from_every_row_is_warned_as_before(via, proxy, sandbox, taken):
    proxy.add(TRANSACTIONS, drop_field("deal_synopsis"))
    o = outcome(lambda: via.private.deals(**DEALS))
    assert o.error is None, repr(o.error)
    want, _ = raw_frame(proxy.url, sandbox.private_key)
    same(o.value, want)
    assert taken == []
    assert any("deal_synopsis" in m for m in o.warned(MissingDataWarning))
    assert "missing_field" in {f["kind"] for f in o.value.attrs["findings"]}


def test_a_timestamp_the_client_cannot_read_is_still_a_contract_error(via, proxy):
    proxy.add(TRANSACTIONS, set_field("created_at", 1642190107, first=1), page=3)
    o = outcome(lambda: via.private.deals(**DEALS))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert "created_at" in str(o.error)


def test_repeated_and_conflicting_ids_on_typed_pages_are_found_as_before(via, proxy, direct, taken):
    def repeat(doc: Any) -> Any:
        first = doc["data"][0]
        doc["data"].append(dict(first))  # same content
        doc["data"].append({**doc["data"][1], "deal_synopsis": "changed"})  # same id, other text
        doc["meta"]["returned"] = len(doc["data"])
        return doc

    proxy.add(TRANSACTIONS, edit(repeat, "repeat"), page=1)
    o = outcome(lambda: via.private.deals(**DEALS))
    assert o.error is None, repr(o.error)
    assert len(taken) >= 3  # the repeated rows are documented rows: read typed
    assert {f["kind"] for f in o.value.attrs["findings"]} >= {"repeated_rows", "conflicting_rows"}
    same(o.value, direct.private.deals(**DEALS))


@pytest.fixture
def cached(sandbox: Any, tmp_path: Path) -> Iterator[Client]:
    with Client.for_sandbox(
        sandbox, cache_enabled=True, cache_path=tmp_path / "http.sqlite"
    ) as client:
        yield client


def test_pages_stored_in_the_http_cache_are_read_typed_too(cached, direct, taken):
    first = cached.private.deals(**DEALS)
    stored = len(taken)
    again = cached.private.deals(**DEALS)
    assert stored >= 3 and len(taken) == 2 * stored
    assert first.attrs["from_cache"] is False and again.attrs["from_cache"] is True
    same(first, direct.private.deals(**DEALS))
    same(again, first)
