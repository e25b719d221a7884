"""The note of a sync stopped part-way counts each record once, as ``rows_received`` does.

It summed the walk's reads: a record changed while the walk read it (read at its old stamp,
then again at its new one) counted twice, though the report's ``rows_received`` and the docs
count each record once.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dealframe.errors import ServerError
from dealframe.mirror.store import StagedRows
from dealframe.mirror.sync import _Progress, _walk

T0 = pd.Timestamp("2026-01-01", tz="UTC")
IDS = [f"{i:08d}-0000-4000-8000-000000000000" for i in range(30)]


def test_the_rows_read_before_a_failure_count_each_record_once(tmp_path: Path) -> None:
    stamps = {ident: T0 + pd.Timedelta(seconds=i) for i, ident in enumerate(IDS)}
    asked = {"n": 0}

    def fetch(since: pd.Timestamp | None, page: int) -> tuple[pd.DataFrame, int]:
        asked["n"] += 1
        if asked["n"] == 2:  # the first record changes after page 1 read it: read again later
            stamps[IDS[0]] = T0 + pd.Timedelta(seconds=15.5)
        if asked["n"] == 4:
            raise ServerError(503, "SERVICE_UNAVAILABLE", "Down")
        rows = sorted((t, i) for i, t in stamps.items() if since is None or t >= since)
        chosen = rows[(page - 1) * 10 : page * 10]
        frame = pd.DataFrame(
            {
                "id": [i for _, i in chosen],
                "updated_at": [t for t, _ in chosen],
                "deleted": False,
                "name": "x",
            }
        )
        return frame, len(rows)

    staged = StagedRows(tmp_path / "s", "investors", "part")
    with pytest.raises(ServerError) as info:
        _walk(fetch, None, staged, 10, _Progress(False), entity="investors")
    read = staged.position  # every read staged, the changed record's two included
    assert read == staged.records() + 1  # the changed record, read twice, is one record
    note = str(info.value)  # an API error says its notes in its message
    assert f"after {staged.records():,} rows read)" in note, note
