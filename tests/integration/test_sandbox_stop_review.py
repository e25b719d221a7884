"""The review round of the sandbox's stopping and arguments.

Before: an app with latency or a ``slow`` fault, called from a second event loop, raised
``RuntimeError`` (its ``asyncio.Event`` was bound to the first loop); a request cancelled
5 s after leaving ``with run()`` printed about 45 lines of traceback; ``admin_token=" x "``
(and a public token or private key with blanks around it) was taken but never matched;
``sandbox serve --latency-ms 60001`` spoke of seconds and of ``latency``, and an
out-of-bound ``--fault-slow-seconds`` without a fault rate was not refused; the factory
fixture left the other sandboxes running when one failed to stop, and ``run()`` replaced
the block's own exception by the stop error.
"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.parse

import pytest
import requests

import dealframe.sandbox
from dealframe import cli
from dealframe.sandbox import (
    FaultPlan,
    SandboxArgumentError,
    SandboxConfig,
    SandboxState,
    pytest_plugin,
)
from dealframe.sandbox import server as server_module
from dealframe.sandbox.app import build_app
from dealframe.sandbox.auth import DEFAULT_PRIVATE_KEY
from dealframe.sandbox.launch import SandboxStopError


def _ask(app) -> int:
    """One POST of the private transactions through ``app``, in an event loop of its own."""

    async def one() -> int:
        body = json.dumps({"limit": 1}).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/private/v1/transactions",
            "raw_path": b"/api/private/v1/transactions",
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"authorization", f"Bearer {DEFAULT_PRIVATE_KEY}".encode()),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"host", b"t"),
            ],
            "client": ("127.0.0.1", 1),
            "server": ("t", 80),
        }
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive():
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        sent = []

        async def send(message):
            sent.append(message)

        await app(scope, receive, send)
        return sent[0]["status"]

    return asyncio.run(one())


@pytest.mark.parametrize("how", ["latency", "slow fault"])
def test_an_app_that_waits_answers_from_one_event_loop_after_another(how):
    state = SandboxState.build(SandboxConfig(scale=0.02, latency=0.01 if how == "latency" else 0))
    faults = FaultPlan(kinds=["slow"], rate=1.0, slow_seconds=0.01) if how != "latency" else None
    app = build_app(state, faults=faults)
    assert [_ask(app), _ask(app)] == [200, 200]


def test_a_request_cancelled_by_the_stopping_server_logs_no_traceback(caplog):
    with dealframe.sandbox.run(scale=0.02) as sb:
        parts = urllib.parse.urlsplit(sb.url)
        hung = socket.create_connection((parts.hostname, parts.port))
        hung.sendall(  # a body promised and never sent: the request waits past the 5 s
            b"POST /api/private/v1/transactions HTTP/1.1\r\nHost: x\r\n"
            + f"Authorization: Bearer {sb.private_key}\r\n".encode()
            + b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        assert requests.get(f"{sb.url}/health", timeout=5).ok  # the request is in
    hung.close()
    logged = [r for r in caplog.records if r.name.startswith("uvicorn") and r.levelname == "ERROR"]
    assert [r.exc_info for r in logged if r.exc_info] == []  # the traceback printed before
    assert len(logged) <= 1  # uvicorn's "Cancel 1 running task(s) ..."


@pytest.mark.parametrize("name", ["admin_token", "public_token", "private_key"])
@pytest.mark.parametrize("token", [" secret ", "secret\n", "\tsecret"])
def test_a_token_with_blanks_around_it_is_refused(name, token):
    with pytest.raises(SandboxArgumentError) as caught:
        with dealframe.sandbox.run(scale=0.02, **{name: token}):
            pass
    assert caught.value.argument == name
    assert "blanks around it" in str(caught.value) and "secret" not in str(caught.value)


def _serve_never_called(monkeypatch):
    def serve(*args, **kwargs):
        raise AssertionError("the sandbox started")

    monkeypatch.setattr(dealframe.sandbox, "serve", serve)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--latency-ms", "60001"], "--latency-ms: '60001' is not a number of milliseconds"),
        (["--fault-slow-seconds", "601"], "--fault-slow-seconds: '601' is not a number of seconds"),
        (["--fault-retry-after", "86401"], "--fault-retry-after: '86401' is not a number"),
    ],
)
def test_serve_options_out_of_bounds_are_named_as_typed(monkeypatch, capsys, argv, said):
    _serve_never_called(monkeypatch)
    with pytest.raises(SystemExit) as caught:
        cli.main(["sandbox", "serve", "--scale", "0.02", *argv])
    assert caught.value.code == 2
    assert said in capsys.readouterr().err


def test_serve_help_says_the_bounds(capsys):
    with pytest.raises(SystemExit):
        cli.main(["sandbox", "serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0 to 60,000" in text and "0 to 600 " in text and "0 to 86,400" in text


class _Stops:
    def __init__(self, fails: bool, stopped: list[int], n: int) -> None:
        self.fails, self.stopped, self.n = fails, stopped, n

    def stop(self) -> None:
        self.stopped.append(self.n)
        if self.fails:
            raise SandboxStopError(f"sandbox {self.n} did not stop")


def test_the_factory_stops_every_sandbox_when_one_fails_to(monkeypatch):
    stopped: list[int] = []
    made = iter([_Stops(True, stopped, 0), _Stops(False, stopped, 1), _Stops(True, stopped, 2)])
    monkeypatch.setattr(dealframe.sandbox, "start", lambda **kwargs: next(made))
    fixture = pytest_plugin.dealframe_sandbox_factory.__wrapped__()
    factory = next(fixture)
    for _ in range(3):
        factory()
    with pytest.raises(SandboxStopError, match="sandbox 0 did not stop") as caught:
        next(fixture)
    assert stopped == [0, 1, 2]
    assert "sandbox 2 did not stop" in " ".join(caught.value.__notes__)


@pytest.fixture
def stop_fails(monkeypatch):
    """Sandbox.stop raising once (the real stop then runs at the test's end)."""
    real = server_module.Sandbox.stop
    left = []

    def stop(self):
        left.append(self)
        raise SandboxStopError("the server thread still runs")

    monkeypatch.setattr(server_module.Sandbox, "stop", stop)
    yield
    monkeypatch.undo()
    for sb in left:
        real(sb)


def test_run_keeps_the_blocks_exception_and_notes_the_stop_error(stop_fails):
    with pytest.raises(KeyError) as caught:
        with dealframe.sandbox.run(scale=0.02):
            raise KeyError("mine")
    assert "the server thread still runs" in " ".join(caught.value.__notes__)


def test_run_raises_the_stop_error_after_a_block_that_ended_normally(stop_fails):
    with pytest.raises(SandboxStopError):
        with dealframe.sandbox.run(scale=0.02):
            pass
