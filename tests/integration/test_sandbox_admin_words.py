"""The admin endpoints' 400s word a value as every other 400 of the sandbox does, in JSON's
words (docs/sandbox.md, "400 BAD_REQUEST" and "Changes and the clock"): they said Python's
(``got True``, ``got None``), and the clock or the data did not move.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

import dealframe.sandbox

ADMIN = "admin-token-for-words"


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=7, admin_token=ADMIN) as sandbox:
        yield sandbox


def _admin(sb: Any, method: str, path: str, body: str | None = None) -> requests.Response:
    return requests.request(
        method,
        f"{sb.url}/admin/v1/{path}",
        data=body,
        headers={"Authorization": f"Bearer {ADMIN}", "Content-Type": "application/json"},
        timeout=30,
    )


@pytest.mark.parametrize(
    ("path", "body", "said"),
    [
        (
            "changes",
            '{"operation": "insert", "entity": "deals", "n": true}',
            "n: must be a non-negative integer, got true",
        ),
        (
            "changes",
            '{"operation": "update", "entity": "companies", "n": null}',
            "n: must be a non-negative integer, got null",
        ),
        (
            "changes",
            '{"operation": "random_round", "n": false}',
            "n: must be a non-negative integer, got false",
        ),
        (
            "changes",
            '{"operation": "random_round", "n": 1, "advance_seconds": null}',
            "advance_seconds: must be a number >= 0, got null",
        ),
        (
            "changes",
            '{"operation": "random_round", "n": 1, "advance_seconds": true}',
            "advance_seconds: must be a number >= 0, got true",
        ),
        ("advance", '{"seconds": null}', "seconds: must be a number >= 0, got null"),
        ("advance", '{"seconds": false}', "seconds: must be a number >= 0, got false"),
        ("advance", '{"seconds": "60"}', "seconds: must be a number >= 0, got '60'"),
        ("advance", '{"seconds": [60]}', "seconds: must be a number >= 0, got array"),
    ],
)
def test_admin_refusals_quote_values_in_json_words(
    sb: Any, path: str, body: str, said: str
) -> None:
    clock = _admin(sb, "GET", "clock").json()["data"]["now"]
    answer = _admin(sb, "POST", path, body)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "BAD_REQUEST"
    assert error["details"]["errors"] == [said]
    assert _admin(sb, "GET", "clock").json()["data"]["now"] == clock


def test_a_good_clock_move_still_moves_it(sb: Any) -> None:
    before = _admin(sb, "GET", "clock").json()["data"]["now"]
    moved = _admin(sb, "POST", "advance", '{"seconds": 60}')
    assert moved.status_code == 200
    assert moved.json()["data"]["now"] > before
