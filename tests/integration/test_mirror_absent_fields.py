"""Change-feed rows without some documented fields (absent, not null), over HTTP.

The interface document does not say what the change feed holds of a soft-deleted record: a
real service may send it as a tombstone (``{id, deleted, updated_at}``). The drift proxy makes
the sandbox do so, and these tests check that an incremental sync keeps the values the table
held for the fields the row lacked (what arrived is never thrown away: issue 12), writes a
row new to the table with them null, says both, and still writes a null the service sends.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dealframe import ServiceContractWarning, mirror
from dealframe.client import Client
from dealframe.mirror import table
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh_rules,
    items_edit,
    no_hang,
    proxy,
)
from _own_sandbox import client, sandbox, sb  # noqa: F401 - fixtures are used by name

HANG_LIMIT = 120
OWN_SANDBOX = {"scale": 0.02, "seed": 41}  # the tests change its data
KEPT = ("id", "deleted", "updated_at")
#: How the incremental sync upserts: (table.IN_MEMORY_MAX_ROWS, table.IN_LIST_MAX).
PATHS = {"in memory": None, "streamed": (0, 10)}


def _tombstone(item: dict[str, Any]) -> None:
    """A deleted record as a tombstone: its id, deleted flag and timestamp only."""
    if item.get("deleted") is True:
        for key in [k for k in item if k not in KEPT]:
            del item[key]


def _nulled(item: dict[str, Any]) -> None:
    """A deleted record with its name sent as null (a value, not an absence)."""
    if item.get("deleted") is True:
        item["name"] = None


def _sync(client: Client, path: Path, entity: str) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = mirror.sync(client, path, entities=(entity,), progress=False, page_size=100)
    said = [str(w.message) for w in seen if issubclass(w.category, ServiceContractWarning)]
    return report[entity], said


def _rows(path: Path, entity: str, ids: list[str]) -> pd.DataFrame:
    rows = mirror.load(path, entity, include_deleted=True).set_index("id")
    return rows.loc[sorted(ids)]


@pytest.mark.parametrize("upsert", list(PATHS))
def test_tombstones_keep_the_values_the_table_held(
    client, sb, proxy, tmp_path, monkeypatch, upsert
):
    if PATHS[upsert] is not None:  # the table read from its files, streamed into the new one
        monkeypatch.setattr(table, "IN_MEMORY_MAX_ROWS", PATHS[upsert][0])
        monkeypatch.setattr(table, "IN_LIST_MAX", PATHS[upsert][1])
    path = tmp_path / "mirror"
    _sync(client, path, "companies")
    changes = Changes(sb.state, seed=1)
    changes.advance(60)
    gone = changes.soft_delete("companies", 5)
    before = _rows(path, "companies", gone)
    proxy.add(r"/api/private/v1/companies$", items_edit(_tombstone, "tombstone"))
    done, said = _sync(client, path, "companies")
    after = _rows(path, "companies", gone)
    assert after["deleted"].all()
    assert not before["deleted"].any()
    assert after["name"].notna().all() and after["country"].notna().all()
    kept = [c for c in before.columns if c not in KEPT]
    pd.testing.assert_frame_equal(after[kept], before[kept])  # every field the tombstone lacked
    assert (after["updated_at"] > before["updated_at"]).all()  # the tombstone's own fields
    found = [s for s in said if "5 row(s) came without 21 documented field(s)" in s]
    assert len(found) == 1 and "the change feed of companies" in found[0]
    assert "name" in found[0] and "stay as the table held them" in found[0]
    assert done.fields_absent is not None and "5 row(s)" in done.fields_absent
    version = done.version
    # the overlap reads the tombstones again: filled, they equal the rows held, so no commit
    again, said = _sync(client, path, "companies")
    assert again.version == version and again.rows_written == 0
    pd.testing.assert_frame_equal(_rows(path, "companies", gone), after)


def test_deal_tombstones_keep_their_target_and_multiples(client, sb, proxy, tmp_path):
    path = tmp_path / "mirror"
    _sync(client, path, "deals")
    changes = Changes(sb.state, seed=2)
    changes.advance(60)
    gone = changes.soft_delete("deals", 4)
    before = _rows(path, "deals", gone)
    proxy.add(r"/api/private/v1/transactions$", items_edit(_tombstone, "tombstone"))
    done, said = _sync(client, path, "deals")
    after = _rows(path, "deals", gone)
    assert after["deleted"].all() and after["target_id"].notna().all()
    columns = ["deal_type", "target_id", "target_name", "ev_revenue", "buyers", "created_at"]
    pd.testing.assert_frame_equal(after[columns], before[columns])
    assert any("4 row(s) came without" in s and "target_id" in s for s in said)


def test_new_rows_without_fields_are_null_and_said(client, sb, proxy, tmp_path):
    changes = Changes(sb.state, seed=3)
    gone = changes.soft_delete("investors", 3)
    proxy.add(r"/api/private/v1/investors$", items_edit(_tombstone, "tombstone"))
    path = tmp_path / "mirror"
    done, said = _sync(client, path, "investors")  # a first sync: no value to keep
    rows = _rows(path, "investors", gone)
    assert rows["deleted"].all() and rows["name"].isna().all() and rows["country"].isna().all()
    deleted = int(mirror.load(path, "investors", include_deleted=True)["deleted"].sum())
    text = f"{deleted} row(s) new to the table came without 4 documented field(s)"
    assert any(text in s and "written with those fields null" in s for s in said)
    assert done.fields_absent is not None and text in done.fields_absent


def test_a_null_sent_is_written(client, sb, proxy, tmp_path):
    path = tmp_path / "mirror"
    _sync(client, path, "investors")
    changes = Changes(sb.state, seed=4)
    changes.advance(60)
    gone = changes.soft_delete("investors", 3)
    proxy.add(r"/api/private/v1/investors$", items_edit(_nulled, "nulled"))
    done, said = _sync(client, path, "investors")
    rows = _rows(path, "investors", gone)
    assert rows["deleted"].all() and rows["name"].isna().all()  # the record's own value
    assert rows["country"].notna().all()
    assert done.fields_absent is None and not [s for s in said if "came without" in s]
