"""A full sync whose feed returns nothing still commits: version 0, no rows, no checkpoint.

The docs and ``EntityReport`` said a sync that writes nothing makes no commit; that holds for
an incremental sync (the table keeps its checkpoint), not for a first sync or a rebuild, which
commits the empty table with no checkpoint (the next sync is full again). The command's sync
line printed ``checkpoint None`` there; it prints ``-``, as ``status`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _cli import at_service
from _drift_proxy import FAST, Proxy, edit, fresh_rules, no_hang, proxy  # noqa: F401 - fixtures

from dealframe import mirror
from dealframe.cli import main
from dealframe.client import Client

FEED = r"/api/private/v1/investors$"


def _no_rows(doc: Any) -> Any:
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        doc["data"] = []
        meta = doc.get("meta")
        for count in ("total", "returned"):  # a service with no row says so
            if isinstance(meta, dict) and count in meta:
                meta[count] = 0
    return doc


def test_a_full_sync_of_an_empty_feed_commits_version_0_without_a_checkpoint(
    sandbox: Any,
    proxy: Proxy,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proxy.add(FEED, edit(_no_rows, "no rows"), method="POST")
    path = tmp_path / "m"
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        first = mirror.sync(c, path, entities=["investors"])["investors"]
        second = mirror.sync(c, path, entities=["investors"])["investors"]
    assert (first.full, first.version, first.rows_written, first.checkpoint) == (True, 0, 0, None)
    assert second.full and second.checkpoint is None  # no checkpoint: full again
    status = mirror.status(path).set_index("entity")
    assert status.loc["investors", "version"] == second.version
    assert status.loc["investors", "rows"] == 0
    assert pd.isna(status.loc["investors", "checkpoint"])
    at_service(monkeypatch, proxy.url, sandbox.public_token, sandbox.private_key)
    capsys.readouterr()
    assert (
        main(["mirror", "sync", str(tmp_path / "cli"), "--entities", "investors", "--no-progress"])
        == 0
    )
    out = capsys.readouterr().out
    assert "checkpoint -" in out and "None" not in out, out
