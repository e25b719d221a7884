"""A mirror sync that fails part-way closes its progress bar, as one that ends does.

Its bar was closed only when the walk ended: a service down after a few pages left it open.
``dealframe mirror sync`` then printed its error on the bar's line
(``... 999/5000 [00:00<?, ?row/s]dealframe mirror sync: error: 500 ...``), the bar cleared
only at exit, and tqdm kept the bar for as long as the exception was kept (a notebook's last
error). The service goes down through the drift proxy after 3 pages; the command runs on a
pseudo-terminal (Python's ``pty``) with a window size, as a shell gives it.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import tqdm

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    fresh_rules,
    proxy,
)

import dealframe.mirror as mirror
from dealframe.client import Client
from dealframe.errors import ServerError

pty = pytest.importorskip("pty")

from _cli import in_a_terminal  # noqa: E402 - the tests' own helpers

P = "/api/private/v1"
PAGE_SIZE = 500  # pages enough in the session sandbox's deals for the 4th to fail


def server_error() -> Action:
    """A 500 in the interface document's error shape (nothing forwarded), asking for a wait
    longer than the client waits: given up at once, not retried (the command's client retries
    as its defaults say)."""

    def apply(ex: Any) -> None:
        ex.forward = False
        ex.status = 500
        ex.headers = {"Content-Type": "application/json", "Retry-After": "86400"}
        ex.content = orjson.dumps(
            {"error": {"code": "INTERNAL_ERROR", "message": "An internal error occurred"}}
        )

    return Action("500", on_request=apply)


def after(n: int) -> Callable[[Any], bool]:
    """A rule's ``when``: every request from the ``n + 1``-th on (retries too)."""
    seen = [0]

    def when(_: Any) -> bool:
        seen[0] += 1
        return seen[0] > n

    return when


def _down_after_3_pages(proxy: Any) -> None:
    proxy.add(rf"^{P}/transactions$", server_error(), method="POST", when=after(3))


def _bars() -> list[Any]:
    return [bar for bar in list(tqdm.tqdm._instances) if type(bar).__name__ == "DealframeBar"]


def test_a_failed_sync_leaves_no_bar_behind(sandbox, proxy, tmp_path):
    _down_after_3_pages(proxy)
    err = io.StringIO()
    with (
        Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # what the sync says of its failure is not the point
        with pytest.raises(ServerError) as caught:
            mirror.sync(
                client, tmp_path / "m", entities=["deals"], progress=True, page_size=PAGE_SIZE
            )
        left = _bars()  # the exception (and its traceback's frames) still held, as a REPL does
    shown = err.getvalue()
    assert "mirror deals:" in shown, shown[-500:]  # the bar was drawn
    assert caught.value.status == 500
    assert left == [], left
    # the bar's line is cleared: what is written next starts at the line's beginning
    assert shown.endswith("\r"), repr(shown[-200:])


def _sync_in_a_terminal(proxy: Any, sandbox: Any, folder: Path) -> tuple[int, str]:
    """Exit status and what the terminal showed (standard output and error)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    env.update(
        DEALFRAME_BASE_URL=proxy.url,
        DEALFRAME_PUBLIC_TOKEN=sandbox.public_token,
        DEALFRAME_PRIVATE_KEY=sandbox.private_key,
        DEALFRAME_CACHE="off",
    )
    command = [sys.executable, "-m", "dealframe", "mirror", "sync", str(folder)]
    code, _, shown = in_a_terminal([*command, "--entities", "deals"], env)
    return code, shown


def test_the_command_prints_its_error_on_a_line_of_its_own(sandbox, proxy, tmp_path):
    _down_after_3_pages(proxy)
    code, shown = _sync_in_a_terminal(proxy, sandbox, tmp_path / "m")
    assert code == 1, shown
    assert "mirror deals:" in shown and "%|" in shown, shown  # the bar was drawn
    error = shown.index("dealframe mirror sync: error: 500 INTERNAL_ERROR")
    before = shown[:error]
    # the bar's line was cleared first: the error starts a line, no bar state glued to it
    assert before.endswith(("\r", "\n")), repr(shown[max(0, error - 120) : error + 60])
