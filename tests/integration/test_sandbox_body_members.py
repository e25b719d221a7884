"""Repeated JSON members are refused exactly, at any size and depth, over HTTP.

A review of the check found that a large object with a repeated member held the whole sandbox
for about a minute (the repeat was looked for in quadratic time, on the event loop), that a
body nested 500 levels or more was a 500 instead of a 400 (the member count recursed), and
that the check cost several microseconds on every usual body. These requests pin the fixes:
a 400 naming the member for a repeat however it is written, a 400 (never a 500) for a deep
body, and no refusal of a body whose colons are inside its strings.
"""

from __future__ import annotations

import pytest
import requests

PRIVATE = "/api/private/v1"
#: Deeper than Python's recursion limit (1,000 frames) and within orjson's (1,024 levels).
DEPTH = 1000


def _raw(sandbox, path: str, text: str, *, public: bool = False, timeout: float = 30):
    token = sandbox.public_token if public else sandbox.private_key
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    return requests.post(sandbox.url + path, data=text.encode(), headers=headers, timeout=timeout)


def _refused(resp: requests.Response) -> list[str]:
    assert resp.status_code == 400, (resp.status_code, resp.text[:300])
    assert resp.json()["error"]["code"] == "BAD_REQUEST"
    return resp.json()["error"]["details"]["errors"]


def test_large_object_with_a_repeat_is_answered(sandbox):
    """80,000 distinct members and the last one again (880 KB, under the 1 MiB bound): a 400
    naming it. Found in quadratic time it took minutes, past this client's 20 s timeout."""
    keys = [f"k{i}" for i in range(80_000)]
    text = "{" + ",".join(f'"{k}":0' for k in keys) + f',"{keys[-1]}":1}}'
    resp = _raw(sandbox, f"{PRIVATE}/companies", text, timeout=20)
    assert _refused(resp) == [
        f"{keys[-1]}: given more than once (2 times) in the body; give it once"
    ]
    resp = _raw(sandbox, f"{PRIVATE}/companies", '{"limit": 1}')
    assert resp.status_code == 200 and resp.json()["meta"]["limit"] == 1


def _lists(depth: int, inner: str = "") -> str:
    return "[" * depth + inner + "]" * depth


def _objects(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize(
    "path, text, public",
    [
        (f"{PRIVATE}/companies", '{"x": ' + _lists(DEPTH) + "}", False),
        (f"{PRIVATE}/companies", '{"filters": ' + _objects(DEPTH) + "}", False),
        (f"{PRIVATE}/transactions", '{"sort": ' + _lists(DEPTH) + "}", False),
        ("/api/v2/companies/current", '{"skus": ["ACME-USA"], "x": ' + _lists(DEPTH) + "}", True),
        ("/api/v1/companies", '{"regions": ' + _lists(DEPTH) + "}", True),
    ],
)
def test_deep_body_is_a_400(sandbox, path, text, public):
    """Nested 1,000 levels: the handler's 400 (an unknown member or a wrong type)."""
    assert _refused(_raw(sandbox, path, text, public=public))


@pytest.mark.parametrize("public", [False, True])
def test_repeat_deep_inside_is_refused(sandbox, public):
    """A repeat 1,000 levels down (deeper than the standard parser that names it reads) is
    still a 400; 300 levels down it is named."""
    path = "/api/v1/companies" if public else f"{PRIVATE}/companies"
    deep = '{"x": ' + _lists(DEPTH, '{"a": 1, "a": 2}') + "}"
    assert _refused(_raw(sandbox, path, deep, public=public)) == [
        "body: a member is given more than once in one object; give it once"
    ]
    less = '{"x": ' + _lists(300, '{"a": 1, "a": 2}') + "}"
    assert _refused(_raw(sandbox, path, less, public=public)) == [
        "a: given more than once (2 times) in the body; give it once"
    ]


@pytest.mark.parametrize(
    "path, text, member, public",
    [
        (f"{PRIVATE}/companies", '{"limit": 1, "\\u006cimit": 3}', "limit", False),
        (
            f"{PRIVATE}/companies",
            '{"filters": {"country": ["USA"], "c\\u006funtry": ["FRA"]}}',
            "country",
            False,
        ),
        (
            "/api/v1/companies",
            '{"regions": ["Oceania"], "\\u0072egions": ["Africa"]}',
            "regions",
            True,
        ),
        # a colon written as an escape elsewhere in the body hides no repeat
        (
            f"{PRIVATE}/companies",
            '{"filters": {"name": {"ilike": "a\\u003ab"}}, "limit": 1, "limit": 2}',
            "limit",
            False,
        ),
    ],
)
def test_members_differing_only_by_escapes_are_one(sandbox, path, text, member, public):
    assert _refused(_raw(sandbox, path, text, public=public)) == [
        f"{member}: given more than once (2 times) in the body; give it once"
    ]


@pytest.mark.parametrize(
    "text",
    [
        '{"filters": {"updated_at": {"gte": "2020-01-01T00:00:00+00:00"}}, '
        '"sort": "updated_at:asc", "limit": 2}',
        '{"filters": {"name": {"ilike": "a\\u003ab: \\"c\\":"}}, "sort": "name:asc", "limit": 2}',
        '{"x": ' + _lists(DEPTH, '{"a": "b:c", "d": "\\u003a"}') + "}",
    ],
)
def test_colons_inside_strings_are_no_repeat(sandbox, text):
    """Colons in timestamps, sort values and names, written or escaped, at any depth."""
    resp = _raw(sandbox, f"{PRIVATE}/companies", text)
    if text.startswith('{"x"'):  # read whole: the 400 is the unknown member, not a repeat
        assert _refused(resp) == ["body.x: unknown member; allowed: filters, sort, limit, page"]
    else:
        assert resp.status_code == 200 and resp.json()["meta"]["limit"] == 2, resp.text[:300]
