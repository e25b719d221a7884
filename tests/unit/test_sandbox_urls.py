"""The URL table and its handlers, in-process: handlers run without a server, and the app serves
exactly the table it is given (so a variant swaps a handler in one place)."""

from __future__ import annotations

import asyncio
import dataclasses

import orjson
import pytest

from dealframe.sandbox.app import build_app
from dealframe.sandbox.errors import ApiProblem
from dealframe.sandbox.models import SandboxConfig, SandboxState
from dealframe.sandbox.responses import private, public
from dealframe.sandbox.responses.request import ApiRequest
from dealframe.sandbox.urls import openapi_document, table


@pytest.fixture(scope="module")
def state() -> SandboxState:
    return SandboxState.build(SandboxConfig(scale=0.02, seed=3))


def call(app, method: str, path: str, body: bytes = b"", token: str = "") -> tuple[int, bytes]:
    """One request through the ASGI app, without a server."""
    sent: list[dict] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    headers = [
        (b"authorization", f"Bearer {token}".encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "http_version": "1.1",
        "scheme": "http",
        "root_path": "",
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 1),
    }
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_handlers_answer_without_a_server(state):
    page = orjson.loads(private.list_rows("transactions", ApiRequest(body={"limit": 3}), state))
    assert page["meta"]["returned"] == 3 and len(page["data"]) == 3
    deal = page["data"][0]
    one = orjson.loads(
        private.profile("transactions", ApiRequest(path_params={"id": deal["id"]}), state)
    )
    assert {k: v for k, v in one["data"].items() if k not in ("target", "investors")} == {
        k: v for k, v in deal.items() if k != "target"
    }
    found = orjson.loads(
        public.search("v2", ApiRequest(body={"regions": ["North America"]}), state)
    )
    assert found["data"] and all(row["region"] == "North America" for row in found["data"])
    with pytest.raises(ApiProblem) as bad:
        private.list_rows("companies", ApiRequest(body={"limit": 0}), state)
    assert bad.value.status == 400 and "limit" in bad.value.details["errors"][0]


def test_the_table_is_unique_and_fully_documented():
    urls = table()
    assert len({(u.method, u.path) for u in urls}) == len(urls)
    documented = {
        (path, method.upper())
        for path, item in openapi_document()["paths"].items()
        for method in item
    }
    assert documented == {(u.path, u.method) for u in urls}
    assert (
        not {u.path for u in table(admin=True)}
        - {u.path for u in urls}
        - {"/admin/v1/clock", "/admin/v1/advance", "/admin/v1/changes"}
    )


def test_the_app_serves_the_table_it_is_given(state):
    key = state.config.private_key
    urls = table()
    path = "/api/private/v1/lookup/investors"
    status, body = call(build_app(state, urls=urls), "GET", path, token=key)
    assert status == 200 and "filters" in orjson.loads(body)["data"]
    swapped = [
        dataclasses.replace(u, handler=lambda request, models: b'{"data":"variant"}')
        if u.path == path
        else u
        for u in urls
    ]
    status, body = call(build_app(state, urls=swapped), "GET", path, token=key)
    assert (status, body) == (200, b'{"data":"variant"}')
    without = [u for u in urls if u.path != path]
    status, body = call(build_app(state, urls=without), "GET", path, token=key)
    assert status == 404 and orjson.loads(body)["error"]["code"] == "NOT_FOUND"
