"""A sync that commits nothing reports the checkpoint its table keeps (issue 16's audit).

The feed returned no row at all (the records at the checkpoint gone): the report, and the
command's line, said the cursor the walk read from (the checkpoint less the overlap), while
the table made no commit and kept its checkpoint, as ``status`` and ``history`` show.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.cli import main
from dealframe.client import Client
from dealframe.sandbox import Changes

FAST: dict[str, Any] = {
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "progress": False,
    "cache_enabled": False,
}


def test_a_sync_that_commits_nothing_reports_the_checkpoint_its_table_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The records stamped at the checkpoint are gone from the service (a sandbox started
    again from the same seed): the feed returns no row at all, nothing is committed, and the
    report said the cursor read from (the checkpoint less the overlap: 00:55 for 01:00)."""
    path = tmp_path / "m"
    with dealframe.sandbox.run(scale=0.02) as sb, Client.for_sandbox(sb, **FAST) as client:
        mirror.sync(client, path, entities=["deals"])
        changes = Changes(sb.state, seed=1)
        changes.advance(3600)
        changes.update("deals", 3)
        mirror.sync(client, path, entities=["deals"])
    held = mirror.status(path).set_index("entity").loc["deals", "checkpoint"]
    assert held == "2026-06-30T01:00:00+00:00"
    with dealframe.sandbox.run(scale=0.02) as sb:
        with Client.for_sandbox(sb, **FAST) as client, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the counts differ: the records are gone
            report = mirror.sync(client, path, entities=["deals"])["deals"]
        assert (report.rows_received, report.rows_written) == (0, 0)
        assert report.checkpoint == held, report
        assert mirror.history(path, "deals")["checkpoint"].iloc[0] == held
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = ["mirror", "sync", str(path), "--entities", "deals", "--no-progress"]
        assert main([*args, "--sandbox", "--scale", "0.02"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert f"checkpoint {held} " in line, line
