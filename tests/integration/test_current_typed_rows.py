"""Current data read two ways, one frame: ``client.public.current`` reads an answer of exactly
the schema's fields (the sandbox's, from the service or from the HTTP cache) as typed rows
(:func:`dealframe.frames.public.read_current_page`, msgspec), and any other answer as JSON
(orjson). A call whose answers went both ways parses the typed ones again as JSON and checks
the JSON items of all of them (a typed row holds ``1046.0`` where the answer wrote ``1046``).

Each way gives the same frame, the same findings and the same warnings: the typed reading is
only the fast one (a cache hit of 1,000 SKUs spent a fifth of its time in dicts it built and
walked; ``cache_hit_speedup_disk``). The drift proxy makes an answer go the JSON way by adding a
member beside ``data`` and ``meta``, which nothing reads, or a ``NaN`` token. A ``meta`` nested
deeper than msgspec goes (Python's recursion limit) is read the JSON way too.

Which way an answer went is not in the frame: :func:`spied` records what the reader took and
what the frame builder was given.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Proxy,
    assert_same,
    direct,
    edit,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    refuse,
    repeat_rows,
    set_field,
)

import dealframe.public.api
from dealframe import Client
from dealframe.errors import DealframeError, TransportError
from dealframe.frames.public import read_current_page
from dealframe.frames.schemas import CURRENT_DATA
from dealframe.notices import MissingDataWarning

CURRENT = "^/api/v2/companies/current$"
#: SKUs per request of :func:`via` (the service refused more once): 100 SKUs, three requests.
CHUNK = 40


@pytest.fixture(scope="module")
def skus(direct: Any) -> list[str]:
    """Up to 100 SKUs, more than two chunks of :data:`CHUNK`."""
    found = direct.public.search().index.tolist()[:100]
    assert len(found) > 2 * CHUNK
    return found


@pytest.fixture(scope="module")
def via(sandbox: Any, proxy: Proxy, skus: list[str]) -> Iterator[Client]:
    """A client through the drift proxy that sends :data:`CHUNK` SKUs per current-data request
    (the service refused more once): one call, several answers."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        message = f"skus: at most {CHUNK} SKUs per request"
        proxy.add(CURRENT, refuse(400, lambda n: {"error": {"message": message}}, CHUNK, "skus"))
        assert client.public.current(skus).attrs["skus_per_request_refused"]
        proxy.reset()
        yield client


@pytest.fixture(scope="module")
def current_ref(direct: Any, skus: list[str]) -> pd.DataFrame:
    """The sandbox's answers, read as typed rows."""
    return direct.public.current(skus)


@pytest.fixture(scope="module")
def body(sandbox: Any, skus: list[str]) -> bytes:
    """One current-data answer as the sandbox writes it (plain requests, not the client)."""
    answer = requests.post(
        f"{sandbox.url}/api/v2/companies/current",
        json={"skus": skus[:100]},
        headers={"Authorization": f"Bearer {sandbox.public_token}"},
        timeout=60,
    )
    assert answer.status_code == 200
    return answer.content


def with_links(doc: Any) -> Any:
    """A member beside ``data`` and ``meta``: the answer is read as JSON, the member ignored."""
    if isinstance(doc, dict):
        doc["links"] = {"self": None}
    return doc


def said(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return [(f["kind"], f["message"]) for f in frame.attrs.get("findings", [])]


def test_the_sandbox_answer_is_read_as_typed_rows_and_any_other_is_not(body):
    doc = orjson.loads(body)
    read = read_current_page(body)
    assert read is not None
    assert type(read["data"][0]).__struct_fields__ == tuple(c.name for c in CURRENT_DATA)
    assert [row.sku for row in read["data"]] == [item["sku"] for item in doc["data"]]
    assert read["meta"] == doc["meta"]
    item = doc["data"][0]
    others = {
        "a member beside data and meta": {**doc, "links": {}},
        "a field more": {**doc, "data": [{**item, "beta": 1.2}]},
        "a field less": {**doc, "data": [{k: v for k, v in item.items() if k != "currency"}]},
        "a field spelt otherwise": {
            **doc,
            "data": [{("marketCapLCU" if k == "marketCapLcu" else k): v for k, v in item.items()}],
        },
        "a boolean for a number": {**doc, "data": [{**item, "marketCap": True}]},
        "a number written as text": {**doc, "data": [{**item, "marketCap": "12.5"}]},
        "a null in a list": {**doc, "data": [{**item, "tags": ["AI", None]}]},
    }
    for what, other in others.items():
        assert read_current_page(orjson.dumps(other)) is None, what
    assert read_current_page(body.replace(b'"rateToUsd":', b'"rateToUsd":NaN,"x":', 1)) is None


def test_answers_read_as_json_give_the_same_frame(via, proxy, skus, current_ref):
    proxy.add(CURRENT, edit(with_links))
    got = outcome(lambda: via.public.current(skus))
    assert got.error is None, got.error
    assert_same(got.value, current_ref)
    assert said(got.value) == said(current_ref) == []
    assert got.value.attrs["rate_direction"] == current_ref.attrs["rate_direction"]
    assert proxy.count(CURRENT) == -(-len(skus) // CHUNK) == 3


def test_answers_read_both_ways_in_one_call_give_the_same_frame(via, proxy, skus, current_ref):
    proxy.add(CURRENT, edit(with_links), times=1)  # one answer as JSON, two as typed rows
    got = outcome(lambda: via.public.current(skus))
    assert got.error is None, got.error
    assert_same(got.value, current_ref)
    assert said(got.value) == []


@pytest.mark.parametrize(
    "drift",
    [
        pytest.param(lambda: [repeat_rows(2)], id="repeated_rows"),
        pytest.param(lambda: [set_field("sku", "ZZZZ-USA", first=1)], id="unrequested"),
        pytest.param(lambda: [set_field("sku", None, first=1)], id="sku_null"),
    ],
)
def test_typed_and_json_readings_find_and_warn_alike(drift, via, proxy, skus):
    """A drift the typed reading takes (the fields are the schema's) is found, said and warned
    as when the same answers are read as JSON."""
    proxy.add(CURRENT, *drift())
    typed = outcome(lambda: via.public.current(skus))
    proxy.reset()
    proxy.add(CURRENT, *drift(), edit(with_links))
    as_json = outcome(lambda: via.public.current(skus))
    assert typed.error is None and as_json.error is None, (typed.error, as_json.error)
    assert_same(typed.value, as_json.value)
    assert said(typed.value) == said(as_json.value) != []
    assert typed.warned(MissingDataWarning) == as_json.warned(MissingDataWarning) != []


def test_a_cache_hit_read_as_typed_rows_is_the_frame_from_the_service(
    sandbox, tmp_path, skus, current_ref
):
    path = tmp_path / "http-cache.sqlite"
    settings = {**FAST, "cache_enabled": True, "cache_path": path}
    with Client.for_sandbox(sandbox, **settings) as writer:
        fetched = writer.public.current(skus)
    with Client.for_sandbox(sandbox, **settings) as reader:  # a client that did not write it
        hit = reader.public.current(skus)
        assert reader.stats.network == 0 and reader.stats.cache_hits == -(-len(skus) // 100)
    assert hit.attrs["from_cache"] is True and fetched.attrs["from_cache"] is False
    assert_same(hit, current_ref)
    assert_same(fetched, current_ref)


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """What ``current()`` gave its reader and its frame builder, recorded: ``taken``, what
    :func:`read_current_page` returned for each body (None: read as JSON), and ``built``, the
    items :func:`~dealframe.frames.public.current_frame` was given."""
    record: dict[str, list[Any]] = {"taken": [], "built": []}
    reader, builder = dealframe.public.api.read_current_page, dealframe.public.api.current_frame

    def read(content: Any) -> Any:
        record["taken"].append(reader(content))
        return record["taken"][-1]

    def build(items: Any) -> pd.DataFrame:
        record["built"] += items
        return builder(items)

    monkeypatch.setattr(dealframe.public.api, "read_current_page", read)
    monkeypatch.setattr(dealframe.public.api, "current_frame", build)
    return record


@pytest.mark.parametrize("answer", ["from the service", "from the cache", "with links"])
def test_current_builds_its_frame_from_the_typed_rows_of_a_plain_answer(
    answer, sandbox, proxy, tmp_path, skus, current_ref, spied
):
    """The typed reading is the one taken: every plain answer, from the service or the
    cache, is read by the typed reader, and the frame is built from its rows (none of which
    the garbage collector tracks); an answer with a member more is read as JSON dicts."""
    settings = {**FAST, "cache_enabled": True, "cache_path": tmp_path / "http-cache.sqlite"}
    tokens = (sandbox.public_token, sandbox.private_key)
    if answer == "from the cache":
        with Client(proxy.url, *tokens, **settings) as writer:
            writer.public.current(skus)
    if answer == "with links":
        proxy.add(CURRENT, edit(with_links))
    spied["taken"].clear()
    spied["built"].clear()
    with Client(proxy.url, *tokens, **settings) as client:  # a client that did not write it
        got = client.public.current(skus)
        assert client.stats.cache_hits == (answer == "from the cache")
        assert client.stats.network == (answer != "from the cache")
    assert_same(got, current_ref)
    rows, taken = spied["built"], spied["taken"]
    assert len(rows) == len(skus) and taken
    if answer == "with links":
        assert taken == [None] * len(taken)
        assert all(type(row) is dict for row in rows)
        return
    assert None not in taken
    assert all(type(row) is type(rows[0]) and not gc.is_tracked(row) for row in rows)
    assert type(rows[0]).__struct_fields__ == tuple(c.name for c in CURRENT_DATA)
    read = {id(row) for doc in taken for row in doc["data"]}
    assert {id(row) for row in rows} <= read  # the reader's own rows, not a copy


def with_nan(content: bytes, field: str) -> bytes:
    """``field``'s first null written as ``NaN`` (Python's JSON writes it; JSON has no such
    number): the answer is read as JSON with the token as null, and warned of."""
    assert f'"{field}":null'.encode() in content
    return content.replace(f'"{field}":null'.encode(), f'"{field}":NaN'.encode(), 1)


@pytest.mark.parametrize("json_way", ["links", "NaN"])
def test_a_row_repeated_across_answers_read_both_ways_is_said_as_repeated(
    json_way, via, proxy, skus, body
):
    """The first answer also carries a row of the second, exactly as the sandbox wrote it
    (``employeeCount`` an integer), and goes the JSON way; the second answer is read as
    typed rows. The copies are the same content: ``repeated_rows``, as when every answer is
    read the typed way (the answers were told apart as ``1046.0`` and ``1046``:
    ``conflicting_rows``)."""
    served = {row["sku"]: row for row in orjson.loads(body)["data"]}
    copied = next(
        served[sku] for sku in skus[CHUNK : 2 * CHUNK] if type(served[sku]["employeeCount"]) is int
    )
    nulls = [
        c.name
        for c in CURRENT_DATA
        if c.kind == "float" and any(served[sku][c.name] is None for sku in skus[:CHUNK])
    ]
    assert nulls, "no null number in the first answer to write as NaN"

    def first_answer(ex: Any) -> bool:
        return skus[0] in ex.body["skus"]

    def with_copy(doc: Any) -> Any:
        doc["data"].append(dict(copied))
        return doc

    def json_way_too(ex: Any) -> None:
        if json_way == "links":
            ex.set_doc(with_links(ex.doc()))
        else:
            ex.content = with_nan(ex.content, nulls[0])

    proxy.add(CURRENT, edit(with_copy), when=first_answer)
    typed = outcome(lambda: via.public.current(skus))
    proxy.add(CURRENT, Action("json way", on_response=json_way_too), when=first_answer)
    mixed = outcome(lambda: via.public.current(skus))
    assert typed.error is None and mixed.error is None, (typed.error, mixed.error)
    assert_same(mixed.value, typed.value)
    kinds = [kind for kind, _ in said(mixed.value)]
    assert "repeated_rows" in kinds and "conflicting_rows" not in kinds, said(mixed.value)
    assert said(mixed.value) == said(typed.value)
    warned = mixed.warned(MissingDataWarning)
    tokens = [message for message in warned if "(NaN): read as null" in message]
    assert len(tokens) == (json_way == "NaN")
    assert [message for message in warned if message not in tokens] == typed.warned(
        MissingDataWarning
    )


def nested_meta(depth: int, inside: bool) -> Action:
    """``meta`` replaced by ``depth`` nested lists, or such lists put inside it as ``links``:
    past Python's recursion limit (1,000), which msgspec keeps to, and within orjson's 1,024
    up to 1,022. orjson cannot be made to write them (its limit is 255): bytes are edited."""
    nest = b"[" * depth + b"]" * depth

    def apply(ex: Any) -> None:
        if ex.status == 200 and inside:
            ex.content = ex.content.replace(b'"meta":{', b'"meta":{"links":' + nest + b",", 1)
        elif ex.status == 200:
            start = ex.content.index(b'"meta":{') + len(b'"meta":')
            ex.content = ex.content[:start] + nest + ex.content[ex.content.index(b"}", start) + 1 :]

    return Action(f"meta nested {depth} deep", on_response=apply)


@pytest.mark.parametrize("inside", [False, True], ids=["meta", "meta.links"])
def test_a_meta_nested_deeper_than_msgspec_goes_is_read_as_json(
    inside, via, proxy, skus, current_ref
):
    """A ``meta`` 1,020 lists deep: the frame, and what the JSON reading makes of such a
    meta (a list: ``bad_meta``, ignored; a member of it: nothing), never a bare
    RecursionError from msgspec."""
    assert sys.getrecursionlimit() < 1020  # else msgspec reads it: nothing to show here
    proxy.add(CURRENT, nested_meta(1020, inside))
    got = outcome(lambda: via.public.current(skus))
    assert got.error is None, repr(got.error)
    assert_same(got.value, current_ref)
    want = [] if inside else [("bad_meta", "meta is list, not an object: ignored")]
    assert said(got.value) == want


def test_a_meta_nested_deeper_than_orjson_goes_is_a_typed_error(via, proxy, skus):
    """2,000 lists deep is past what orjson reads too: the body is one the client cannot read
    (asked again, then a TransportError naming the call), as before the typed reading."""
    proxy.add(CURRENT, nested_meta(2000, False))
    got = outcome(lambda: via.public.current(skus[:CHUNK]))
    assert isinstance(got.error, DealframeError), repr(got.error)
    assert isinstance(got.error, TransportError), repr(got.error)
    assert "companies/current" in str(got.error)
    assert proxy.count(CURRENT) == 2  # the first attempt and its one retry (FAST)
