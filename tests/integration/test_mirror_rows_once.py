"""``rows_received`` counts each record once, as docs/mirror.md says (issue 16's audit).

A service counting ``page`` from 0 makes the walk read every record twice (the first read
taken for page 1 onwards): the report said 2,000 rows received for 1,000 records, and the
command "2,000 rows read".
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

FAST: dict[str, Any] = {
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "progress": False,
    "cache_enabled": False,
}


def test_rows_received_counts_each_record_once_when_pages_count_from_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with dealframe.sandbox.run(scale=0.05, profile="page-from-0") as sb:
        with Client.for_sandbox(sb, **FAST) as client, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = mirror.sync(client, tmp_path / "m", entities=["companies"])["companies"]
        assert report.page_from_0 is not None
        assert report.rows_received == report.rows_written == report.table_rows, report
        history = mirror.history(tmp_path / "m", "companies")
        assert history["rows_received"].iloc[0] == report.rows_written
        for name, value in {
            "DEALFRAME_BASE_URL": sb.url,
            "DEALFRAME_PUBLIC_TOKEN": sb.public_token,
            "DEALFRAME_PRIVATE_KEY": sb.private_key,
            "DEALFRAME_CACHE": "off",
        }.items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args = ["mirror", "sync", str(tmp_path / "cli"), "--entities", "companies"]
            assert main([*args, "--no-progress"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert f"{report.rows_written:,} rows read" in line, line
