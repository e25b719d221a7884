"""A failed discovery request is not called a feed page (issue 16's audit).

A sync whose ``GET /lookup/transactions`` failed said it stopped "at the change feed's page 1
of every record (request 1 of pass 1 ...)": the note names a feed page only when a feed page
failed, and otherwise what was being read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.cli import main
from dealframe.client import Client
from dealframe.errors import ServerError
from dealframe.sandbox.faults import FaultPlan
from dealframe.transport import retry

FAST: dict[str, Any] = {
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "progress": False,
    "cache_enabled": False,
}


def test_a_failed_discovery_request_is_not_called_a_feed_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = FaultPlan(rate=1.0, kinds=["503"], paths=r"/transactions$", retry_after=0)
    with dealframe.sandbox.run(scale=0.02, faults=plan) as sb:
        with Client.for_sandbox(sb, **FAST) as client, pytest.raises(ServerError) as info:
            mirror.sync(client, tmp_path / "m", entities=["deals"])
        text = str(info.value)
        assert "(GET /api/private/v1/lookup/transactions)" in text, text
        assert "change feed's page" not in text, text
        assert (
            "mirror sync of deals: stopped while reading the discovery document of transactions "
            "(GET /api/private/v1/lookup/transactions)" in text
        ), text
        assert "the deals table is not written" in text, text
        for name, value in {
            "DEALFRAME_BASE_URL": sb.url,
            "DEALFRAME_PUBLIC_TOKEN": sb.public_token,
            "DEALFRAME_PRIVATE_KEY": sb.private_key,
            "DEALFRAME_CACHE": "off",
        }.items():
            monkeypatch.setenv(name, value)
        # the command's client retries with the default settings (no variable shortens them):
        # its backoffs are listed, not waited for
        slept: list[float] = []
        monkeypatch.setattr(retry, "sleep", slept.append)
        capsys.readouterr()
        assert main(["mirror", "sync", str(tmp_path / "cli"), "--no-progress"]) == 1
    assert slept, "the command's client did not retry the failing discovery request"
    err = capsys.readouterr().err
    assert "stopped while reading the discovery document of transactions" in err, err
    assert "change feed's page" not in err, err
