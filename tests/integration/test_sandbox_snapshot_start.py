"""A first start writes its start-up snapshot only once it answers, and finishes it on stop.

The snapshot of freshly generated data (docs/sandbox.md, "Start-up snapshot") used to be
written from a thread begun while the data was still being indexed, so on a first start it
competed with the start itself for the interpreter and delayed the first answer; and
``dealframe sandbox serve`` stopped with SIGTERM (which uvicorn raises again once it has shut
down) could end mid-write, leaving a temporary file and no snapshot.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import requests
import uvicorn

import dealframe.sandbox
from dealframe.sandbox import server as server_module

KEY = {"Authorization": "Bearer sandbox-private-key"}
DEALS = "/api/private/v1/transactions"
#: Large enough for a snapshot (more than ``snapshot.MIN_DEALS`` deals), quick to generate.
SCALE = "0.1"


def _entries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@contextmanager
def _serve(folder: Path) -> Iterator[tuple[str, list[str]]]:
    """``dealframe sandbox serve`` with its snapshots in ``folder``: its URL, and what
    ``folder`` held when it printed that it serves (its socket listens from then on)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dealframe", "sandbox", "serve", "--scale", SCALE]
        + ["--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env | {"DEALFRAME_SANDBOX_CACHE": str(folder)},
    )
    try:
        line = proc.stdout.readline()
        at_ready = _entries(folder)
        assert "serving on" in line, line + proc.stderr.read()
        yield f"http://127.0.0.1:{port}", at_ready
    finally:
        proc.send_signal(signal.SIGTERM)  # how a service manager or a test harness stops it
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()


def _deals_page(url: str) -> bytes:
    answer = requests.post(url + DEALS, json={"limit": 200, "page": 3}, headers=KEY, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.content


def test_a_first_serve_begins_its_snapshot_only_once_answering_and_a_sigterm_waits_for_it(
    tmp_path,
):
    folder = tmp_path / "snapshots"
    with _serve(folder) as (url, at_ready):
        assert requests.get(url + "/health", timeout=60).status_code == 200  # the first answer
        first = _deals_page(url)
    # Nothing was written while the data was being indexed: not even the temporary file.
    assert at_ready == [], at_ready
    # SIGTERM came right after the first answers: the shutdown waited for the whole file.
    written = _entries(folder)
    assert len(written) == 1 and written[0].endswith(".npz"), written
    with np.load(folder / written[0], allow_pickle=False) as npz:
        assert "deals.rows" in npz.files and npz["deals.offsets"].size == 5_001
    # The next start loads it (nothing more is written) and serves the same bytes.
    with _serve(folder) as (url, at_ready):
        again = _deals_page(url)
    assert at_ready == written and _entries(folder) == written
    assert again == first


def test_an_embedded_first_start_writes_the_snapshot_that_the_next_start_serves(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("DEALFRAME_SANDBOX_CACHE", str(tmp_path))
    with dealframe.sandbox.run(scale=float(SCALE)) as sb:
        first = _deals_page(sb.url)
    written = _entries(tmp_path)  # stop() waited for the write begun once it answered
    assert len(written) == 1 and written[0].endswith(".npz"), written
    with dealframe.sandbox.run(scale=float(SCALE)) as sb:
        assert _deals_page(sb.url) == first
    assert _entries(tmp_path) == written


class _SlowWriter:
    """A start-up snapshot whose write lasts until ``done`` is set (a slow disk)."""

    started = True

    def __init__(self) -> None:
        self.done = threading.Event()

    @property
    def writing(self) -> bool:
        return not self.done.is_set()

    def start(self) -> None:
        pass

    def join(self) -> None:
        self.done.wait(timeout=30)


def test_stop_returns_only_once_the_server_thread_ended_after_a_slow_snapshot(monkeypatch):
    """A write lasting past stop()'s first wait held the server's shutdown, and stop()
    returned with the server thread still running (on a slow disk, 11 s of write left)."""
    monkeypatch.setattr(server_module, "_STOP_WAIT_S", 0.2)
    sb = dealframe.sandbox.start(scale=0.02)
    slow = _SlowWriter()
    sb.state._writer = slow  # type: ignore[assignment]
    assert requests.get(f"{sb.url}/api/private/v1/lookup/transactions", headers=KEY).ok
    serving = sb._thread  # (other sandboxes of the test run serve from threads of that name)
    assert serving is not None and serving.is_alive()
    finished = threading.Timer(1.0, slow.done.set)  # past the first wait of stop()
    finished.start()
    try:
        sb.stop()
    finally:
        finished.join()
    assert slow.done.is_set()
    assert not serving.is_alive()


def test_a_second_ctrl_c_ends_the_wait_for_the_snapshot():
    """The wait for the snapshot blocked uvicorn's event loop, so its "second Ctrl-C exits
    now" (``force_exit``) was never read: `sandbox serve` exited only once the write ended."""
    slow = _SlowWriter()
    state = types.SimpleNamespace(snapshot_writing=True, close=slow.join)
    server = server_module._Server(uvicorn.Config(app=None), state)  # type: ignore[arg-type]

    async def shut_down() -> None:
        asyncio.get_running_loop().call_later(0.2, setattr, server, "force_exit", True)
        await asyncio.wait_for(server.snapshot_written(), timeout=10)

    asyncio.run(shut_down())
    assert not slow.done.is_set()  # left unfinished: the process exits now
