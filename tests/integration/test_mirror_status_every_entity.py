"""``status`` gives one row per entity, with a table or not (issue 16's audit).

An entity never synced had no row (a sync of companies and deals: two rows), where
docs/mirror.md says one row per entity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
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


def test_status_gives_a_row_to_every_entity_with_or_without_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m"
    with dealframe.sandbox.run(scale=0.02) as sb, Client.for_sandbox(sb, **FAST) as client:
        mirror.sync(client, path, entities=["companies", "deals"])
    status = mirror.status(path)
    assert status["entity"].tolist() == list(mirror.ENTITIES)
    investors = status.set_index("entity").loc["investors"]
    assert investors.isna().all(), investors
    assert status.set_index("entity").loc["deals", "rows"] == 1000
    assert str(status["rows"].dtype) == "Int64" and str(status["checkpoint"].dtype) == "str"
    capsys.readouterr()
    assert main(["mirror", "status", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:]] == list(mirror.ENTITIES), lines
    assert lines[3].split()[1:] == ["-"] * 8, lines
    assert pd.isna(status.loc[1, "last_sync"])
