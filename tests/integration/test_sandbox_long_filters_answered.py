"""Long list filters are answered in one pass over the rows (docs/sandbox.md, "Array filters"),
checked without timing anything: a burst of long-list requests, as a client's workers send
them, is answered within the client's own default read timeout.

Membership was tested value by value (``np.isin`` on objects: one comparison of every row with
every value), so a list filter of 130,000 to 160,000 values (as many as a 1 MiB body holds)
over the 5,000 deals of this sandbox cost 6 to 12 seconds of one core each. The requests of a
burst are answered one after another (each list differs by a few values, so no answer is
reused from the store's cache of queries), and the last ones waited past
``DEFAULT_READ_TIMEOUT`` (60 s): the client gave up (``ReadTimeout``). Hashing answers the
burst in a second or two.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import pytest
import requests

from dealframe.config import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT
from dealframe.sandbox import run

PREFIX = "/api/private/v1"
#: Every three-letter code: valid input to a country filter.
ALL_CODES = ["".join(c) for c in itertools.product(string.ascii_uppercase, repeat=3)]
#: Requests of the burst (the client's default workers, 8, three times over).
BURST = 24


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    """A sandbox of its own at a known scale (5,000 deals): the session's may be smaller."""
    with run(scale=0.1, seed=7) as sandbox:
        yield sandbox


def _post(sb: Any, body: bytes) -> requests.Response:
    return requests.post(
        f"{sb.url}{PREFIX}/transactions",
        data=body,
        headers={"Authorization": f"Bearer {sb.private_key}", "Content-Type": "application/json"},
        timeout=(DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT),
    )


def _total(answer: requests.Response) -> int:
    assert answer.status_code == 200, answer.text[:300]
    return int(answer.json()["meta"]["total"])


def test_a_burst_of_long_country_lists_is_answered_within_the_read_timeout(sb: Any) -> None:
    codes = ALL_CODES * 9  # 158,184 values, each code 9 times

    def body(i: int) -> bytes:  # each request its own list, every code in each
        return orjson.dumps({"filters": {"target_country": codes[i:]}, "limit": 1})

    assert len(body(0)) < 1 << 20  # within the sandbox's body limit: no 413
    expected = _total(_post(sb, orjson.dumps({"filters": {}, "limit": 1})))
    with ThreadPoolExecutor(BURST) as pool:
        answers = list(pool.map(lambda i: _post(sb, body(i)), range(BURST)))
    totals = [_total(a) for a in answers]
    # every deal with a target country (every code is in the list), and only those
    with_country = _total(
        _post(sb, orjson.dumps({"filters": {"target_country": ALL_CODES}, "limit": 1}))
    )
    assert totals == [with_country] * BURST
    assert 0 < with_country <= expected


def test_a_burst_of_long_subtype_lists_is_answered_within_the_read_timeout(sb: Any) -> None:
    short = _total(
        _post(sb, orjson.dumps({"filters": {"deal_subtype": ["Seed", "Angel"]}, "limit": 1}))
    )
    assert short > 0

    def body(i: int) -> bytes:  # each request its own list
        return orjson.dumps(
            {"filters": {"deal_subtype": ["Seed", "Angel"] * (65_000 - i)}, "limit": 1}
        )

    assert len(body(0)) < 1 << 20
    with ThreadPoolExecutor(BURST) as pool:
        answers = list(pool.map(lambda i: _post(sb, body(i)), range(BURST)))
    assert [_total(a) for a in answers] == [short] * BURST
