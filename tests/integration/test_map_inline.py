"""``map_concurrent``'s ``inline``: the items a multi-request call answers on the caller's
thread (cache hits read there).

An item read inline fails exactly as the same item on a worker thread: an error of one item
is that item's failure, and a token refused part-way keeps what arrived, whichever thread met
it. On a cold cache the lookups stop after a run of misses and each miss goes to the workers
at once: they no longer hold every request back until all items were looked up."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import pytest
from _asgi_server import serve

from dealframe.config import Settings
from dealframe.errors import AuthenticationError, NotFoundError
from dealframe.sandbox.faults import FaultPlan
from dealframe.transport.paging import COLD_RUN, MapResult, map_concurrent
from dealframe.transport.session import Transport

PUBLIC = "pub-" + secrets.token_hex(16)
PRIVATE = "priv-" + secrets.token_hex(16)
NOT_FOUND = (404, b'{"error": {"code": "NOT_FOUND", "message": "no such item"}}', {})


@pytest.fixture(scope="module")
def server():
    with serve(PUBLIC, PRIVATE, FaultPlan()) as served:
        yield served


@pytest.fixture(autouse=True)
def _fresh(server):
    with server.state.lock:
        server.state.responses.clear()


def _transport(server, tmp_path, token: str = PUBLIC) -> Transport:
    return Transport(
        Settings(
            base_url=server.url,
            public_token=token,
            private_key=PRIVATE,
            cache_enabled=False,
            max_workers=4,
            retries=0,
        )
    )


def _outcome(result: MapResult[str]) -> tuple[list[str | None], list[tuple[int, type]]]:
    return result.results, [(f.item, type(f.error)) for f in result.failures]


def _get(t: Transport) -> Callable[[int], str]:
    def get(i: int) -> str:
        return t.request("public", "GET", f"/api/v2/items/{i}").json()["data"]["path"]

    return get


def test_an_item_that_fails_inline_is_a_failure_as_on_a_worker(server, tmp_path):
    server.state.responses["/api/v2/items/3"] = NOT_FOUND
    with _transport(server, tmp_path) as t:
        get = _get(t)
        on_workers = map_concurrent(get, range(8), 4, progress=False)
        inline = map_concurrent(get, range(8), 4, progress=False, inline=get)
    assert _outcome(on_workers)[1] == [(3, NotFoundError)]
    assert _outcome(inline) == _outcome(on_workers)
    assert inline.results[4] == "/api/v2/items/4"


def test_a_token_refused_inline_part_way_keeps_what_arrived(server, tmp_path):
    """The token is refused at item 3, read inline: items 0-2 arrived and are kept, every item
    left fails with that error (as when a worker meets it: see ``map_concurrent``'s
    ``fatal``), where the error used to leave the call with nothing."""
    with _transport(server, tmp_path) as t, _transport(server, tmp_path, "bad-token") as bad:
        good, refused = _get(t), _get(bad)

        def read(i: int) -> str:
            return (refused if i == 3 else good)(i)

        result = map_concurrent(good, range(8), 4, progress=False, inline=read)
    assert result.results[:3] == [f"/api/v2/items/{i}" for i in range(3)]
    assert [f.item for f in result.failures] == [3, 4, 5, 6, 7]
    assert all(isinstance(f.error, AuthenticationError) for f in result.failures)


def test_a_cold_cache_is_looked_up_for_a_run_of_misses_only(server, tmp_path):
    asked: list[int] = []

    def lookup(i: int) -> str | None:
        asked.append(i)
        return f"/api/v2/items/{i}" if i == 1 else None  # one hit, then misses only

    sent = server.state.total()
    with _transport(server, tmp_path) as t:
        get = _get(t)
        result = map_concurrent(get, range(COLD_RUN * 4), 4, progress=False, inline=lookup)
        assert result.ok
    # COLD_RUN misses in a row from item 2 (after the hit); then one item in COLD_RUN is asked
    first = 2
    sampled = [first + COLD_RUN * k for k in (1, 2, 3)]
    assert asked == [*range(first + COLD_RUN), *sampled]
    assert result.results == [f"/api/v2/items/{i}" for i in range(COLD_RUN * 4)]
    assert server.state.total() - sent == COLD_RUN * 4 - 1  # every item but the hit was sent


def test_a_partly_cached_call_looks_up_again_once_a_hit_is_found(server, tmp_path):
    """The first items missing (new since the cache was filled), the rest cached: once the
    lookups of one item in COLD_RUN find a hit, every item is looked up again."""
    asked: list[int] = []
    cached = 2 * COLD_RUN - 4  # items from here on are in the cache

    def lookup(i: int) -> str | None:
        asked.append(i)
        return f"/api/v2/items/{i}" if i >= cached else None

    sent = server.state.total()
    with _transport(server, tmp_path) as t:
        result = map_concurrent(_get(t), range(COLD_RUN * 4), 4, progress=False, inline=lookup)
        assert result.ok
    assert asked == [*range(COLD_RUN + 1), *range(2 * COLD_RUN, 4 * COLD_RUN)]
    assert server.state.total() - sent == 2 * COLD_RUN  # the misses and the items not asked
