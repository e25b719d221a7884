"""Stopping a sandbox ends the requests in flight: no server thread outlives its ``with``.

A client that gave up on a ``slow`` fault (45 s) left its request sleeping in the server:
leaving the ``with`` block blocked about 20 s (two waits of 10 s), then returned with the
server thread still running. The server now ends the waits of the requests in flight when
it begins to stop, and ``stop()`` raises rather than leave a thread behind.
"""

from __future__ import annotations

import threading
import time

import pytest
import requests

import dealframe.sandbox
from dealframe.sandbox import FaultPlan, SandboxStopError
from dealframe.sandbox import server as server_module

SLOW = 45.0  # far past every bound below: a stop that waited for it fails them all


def _serving_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "dealframe-sandbox"}


def _abandon(url: str, path: str, headers: dict[str, str] | None = None) -> None:
    """Ask and give up after a second, as a client with a short read timeout does."""
    with pytest.raises(requests.ReadTimeout):
        requests.get(f"{url}{path}", headers=headers, timeout=1)


def test_leaving_the_block_after_an_abandoned_slow_fault_ends_the_server_thread():
    before = _serving_threads()  # other sandboxes of the test run serve from that name too
    plan = FaultPlan(rate=1.0, kinds=["slow"], slow_seconds=SLOW)
    with dealframe.sandbox.run(scale=0.02, faults=plan) as sb:
        serving = sb._thread
        assert serving is not None and serving.is_alive()
        _abandon(sb.url, "/api/v2/current")
        assert plan.counts() == {"slow": 1}  # the request is sleeping in the server
        began = time.monotonic()
    took = time.monotonic() - began
    assert not serving.is_alive()  # the with block never returns with it running
    assert _serving_threads() <= before
    assert took < 10, took  # generous: the old code took 20 s, a wait to the end 45


def test_stopping_ends_a_request_waiting_out_the_latency():
    sb = dealframe.sandbox.start(scale=0.02, latency=60)
    serving = sb._thread
    assert serving is not None
    try:
        headers = {"Authorization": f"Bearer {sb.private_key}"}
        _abandon(sb.url, "/api/private/v1/lookup/transactions", headers)
    finally:
        sb.stop()
    assert not serving.is_alive()
    sb.stop()  # again: nothing left to do


def test_a_server_thread_that_does_not_end_is_an_error_not_a_silent_leftover(monkeypatch):
    """A handler that never returns holds the server thread: stop() says so."""
    monkeypatch.setattr(server_module, "_STOP_WAIT_S", 0.2)
    sb = dealframe.sandbox.start(scale=0.02)
    serving = sb._thread
    assert serving is not None
    release = threading.Event()
    monkeypatch.setattr(sb.state, "close", lambda: None)  # (no snapshot to wait for)
    stuck = threading.Thread(target=release.wait, kwargs={"timeout": 30})
    stuck.start()
    real_thread = sb._thread
    sb._thread = stuck  # type: ignore[assignment]  # stands for a server thread that hangs
    try:
        with pytest.raises(SandboxStopError, match="did not stop") as caught:
            sb.stop()
        assert isinstance(caught.value, RuntimeError)
        assert isinstance(caught.value, dealframe.DealframeError)
        assert sb._thread is stuck  # kept: calling stop() again waits again
    finally:
        release.set()
        stuck.join()
        sb._thread = real_thread
        sb.stop()
    assert not serving.is_alive()
