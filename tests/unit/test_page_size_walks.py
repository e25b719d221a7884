"""Walks that share the client's page size (sub-collection reads of several ids run on worker
threads): one that gives up puts back only what it lowered itself, never what another walk
learned meanwhile."""

from __future__ import annotations

from typing import Any

import pytest

from dealframe import Client
from dealframe.errors import ApiError, BadRequestError, error_from_response


@pytest.fixture
def api() -> Any:
    with Client("http://127.0.0.1:9", "public-token", "private-key") as client:
        yield client.private


def bound(n: int) -> BadRequestError:
    return BadRequestError(400, "BAD_REQUEST", f"limit: must be between 1 and {n}")


def test_a_walk_that_gives_up_keeps_what_another_walk_learned(api: Any) -> None:
    """B asks 1,000 rows and is refused; meanwhile A is refused 1,000 and learns pages of 100;
    B, refused with a bare 413 at every size down to one row, gives up: the page size stays
    A's 100 (it was put back to 1,000)."""
    sizes: list[int] = []

    def read_a(size: int) -> Any:
        if size > 100:
            raise bound(100)
        return "a"

    def read_b(size: int) -> Any:
        sizes.append(size)
        if len(sizes) == 1:  # A runs while B's first request is in flight
            assert api._walk(read_a, None, lambda sent, note: None, sub=True) == "a"
        raise error_from_response(413, b"{}", None)

    with pytest.raises(ApiError) as raised:
        api._walk(read_b, None, lambda sent, note: None, sub=True)
    assert "limit 1 refused" in str(raised.value)
    assert sizes[0] == 1000 and sizes[1] == 100 and sizes[-1] == 1
    assert api._sub_page_size == 100


def test_a_walk_that_gives_up_puts_back_what_it_lowered(api: Any) -> None:
    def refused(size: int) -> Any:
        raise error_from_response(413, b"{}", None)

    with pytest.raises(ApiError):
        api._walk(refused, None, lambda sent, note: None, sub=True)
    assert api._sub_page_size == 1000
