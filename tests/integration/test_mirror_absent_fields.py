"""Change-feed rows without some documented fields (absent, not null), over HTTP.

The interface document does not say what the change feed holds of a soft-deleted record: a
real service may send it as a tombstone (``{id, deleted, updated_at}``). The drift proxy makes
the sandbox do so, and these tests check that a sync keeps the values last read for the fields
a row marked deleted lacked (this sync's earlier read of the record, else the table's, also
when a full pull rebuilds the table: what arrived is never thrown away, issue 12), writes a
tombstone new to the table with them null, says each in one sentence, and still writes a null
the service sends, and a null a service leaves out of a live record's item.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dealframe import ServiceContractWarning, mirror
from dealframe.client import Client
from dealframe.mirror import commit, store, table
from dealframe.mirror.schema import api_entity
from dealframe.sandbox.changes import Changes

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    Proxy,
    drop_field,
    drop_rows,
    fresh_rules,
    items_edit,
    no_hang,
    proxy,
)
from _own_sandbox import client, sandbox, sb  # noqa: F401 - fixtures are used by name

sync_module = importlib.import_module("dealframe.mirror.sync")  # the module, not mirror.sync
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


def _without_nulls(item: dict[str, Any]) -> None:
    """An item as an "exclude none" serialiser writes it: its null members left out."""
    for key in [k for k, v in item.items() if v is None]:
        del item[key]


def _sync(client: Client, path: Path, entity: str, page_size: int = 100) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = mirror.sync(client, path, entities=(entity,), progress=False, page_size=page_size)
    said = [str(w.message) for w in seen if issubclass(w.category, ServiceContractWarning)]
    return report[entity], said


def _rows(path: Path, entity: str, ids: list[str]) -> pd.DataFrame:
    rows = mirror.load(path, entity, include_deleted=True).set_index("id")
    return rows.loc[sorted(ids)]


def _deleted_as_tombstones(
    client: Client, sb: Any, proxy: Proxy, path: Path, entity: str, n: int, seed: int
) -> tuple[list[str], pd.DataFrame]:
    """A first sync, then ``n`` records soft-deleted, which the feed now sends as tombstones:
    their ids and their rows as the table holds them."""
    _sync(client, path, entity)
    changes = Changes(sb.state, seed=seed)
    changes.advance(60)
    gone = changes.soft_delete(entity, n)
    proxy.add(rf"/api/private/v1/{api_entity(entity)}$", items_edit(_tombstone))
    return gone, _rows(path, entity, gone)


@pytest.mark.parametrize("upsert", list(PATHS))
def test_tombstones_keep_the_values_the_table_held(
    client, sb, proxy, tmp_path, monkeypatch, upsert
):
    if PATHS[upsert] is not None:  # the table read from its files, streamed into the new one
        monkeypatch.setattr(table, "IN_MEMORY_MAX_ROWS", PATHS[upsert][0])
        monkeypatch.setattr(table, "IN_LIST_MAX", PATHS[upsert][1])
    path = tmp_path / "mirror"
    gone, before = _deleted_as_tombstones(client, sb, proxy, path, "companies", 5, seed=1)
    done, said = _sync(client, path, "companies")
    after = _rows(path, "companies", gone)
    assert after["deleted"].all()
    assert not before["deleted"].any()
    assert after["name"].notna().all() and after["country"].notna().all()
    kept = [c for c in before.columns if c not in KEPT]
    pd.testing.assert_frame_equal(after[kept], before[kept])  # every field the tombstone lacked
    assert (after["updated_at"] > before["updated_at"]).all()  # the tombstone's own fields
    found = [s for s in said if "5 row(s) marked deleted came without 21 documented" in s]
    assert len(found) == 1 and "the change feed of companies" in found[0]
    assert "name (5)" in found[0] and "their values stay as last read" in found[0]
    assert done.fields_absent is not None and "5 row(s)" in done.fields_absent
    assert "; " not in done.fields_absent  # one sentence
    version = done.version
    # the overlap reads the tombstones again: filled, they equal the rows held, so no commit
    again, said = _sync(client, path, "companies")
    assert again.version == version and again.rows_written == 0
    pd.testing.assert_frame_equal(_rows(path, "companies", gone), after)


def test_deal_tombstones_keep_their_target_and_multiples(client, sb, proxy, tmp_path):
    path = tmp_path / "mirror"
    gone, before = _deleted_as_tombstones(client, sb, proxy, path, "deals", 4, seed=2)
    done, said = _sync(client, path, "deals")
    after = _rows(path, "deals", gone)
    assert after["deleted"].all() and after["target_id"].notna().all()
    columns = ["deal_type", "target_id", "target_name", "ev_revenue", "buyers", "created_at"]
    pd.testing.assert_frame_equal(after[columns], before[columns])
    found = [s for s in said if "4 row(s) marked deleted came without" in s]
    assert len(found) == 1 and "18 documented field(s) (deal_date (4)" in found[0], said


def _tombstone_with(*held: str) -> Any:
    """A deleted record as a tombstone that also carries the documented fields ``held``."""

    def change(item: dict[str, Any]) -> None:
        if item.get("deleted") is True:
            for key in [k for k in item if k not in (*KEPT, *held)]:
                del item[key]

    return change


@pytest.mark.parametrize(
    ("entity", "held", "kept"),
    [
        ("investors", ("name",), ["short_name", "website", "country"]),
        ("deals", ("target",), ["deal_date", "deal_type", "buyers", "created_at", "ev_revenue"]),
        ("deals", ("deal_multiples",), ["deal_date", "target_id", "target_name", "buyers"]),
    ],
    ids=["investor with its name", "deal with its target", "deal with its multiples"],
)
def test_a_tombstone_carrying_a_field_or_two_keeps_the_others(
    client, sb, proxy, tmp_path, entity, held, kept
):
    """Fields are counted, not columns: a deal's ``target`` (five columns) or an investor's
    ``name`` beside the tombstone's own fields still make a tombstone (a rule of one column in
    ten wrote null over every other field of these)."""
    path = tmp_path / "mirror"
    _sync(client, path, entity)
    changes = Changes(sb.state, seed=7)
    changes.advance(60)
    gone = changes.soft_delete(entity, 3)
    before = _rows(path, entity, gone)
    proxy.add(rf"/api/private/v1/{api_entity(entity)}$", items_edit(_tombstone_with(*held)))
    done, said = _sync(client, path, entity)
    after = _rows(path, entity, gone)
    assert after["deleted"].all()
    pd.testing.assert_frame_equal(after[kept], before[kept])
    assert after[kept].notna().any(axis=None)
    assert any("marked deleted came without" in s for s in said), said


def test_new_rows_without_fields_are_null_and_said(client, sb, proxy, tmp_path):
    changes = Changes(sb.state, seed=3)
    gone = changes.soft_delete("investors", 3)
    proxy.add(r"/api/private/v1/investors$", items_edit(_tombstone, "tombstone"))
    path = tmp_path / "mirror"
    done, said = _sync(client, path, "investors")  # a first sync: no value to keep
    rows = _rows(path, "investors", gone)
    assert rows["deleted"].all() and rows["name"].isna().all() and rows["country"].isna().all()
    deleted = int(mirror.load(path, "investors", include_deleted=True)["deleted"].sum())
    text = f"{deleted} row(s) marked deleted and new to the table came without 4 documented"
    assert any(text in s and "written null (no earlier value to keep)" in s for s in said)
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


def test_a_live_record_whose_nulls_are_left_out_is_written_null(client, sb, proxy, tmp_path):
    """A service that leaves null members out of its items ("exclude none"): a value it
    cleared is written null (a live row is no tombstone), said once, in one sentence."""
    proxy.add(r"/api/private/v1/companies$", items_edit(_without_nulls))
    path = tmp_path / "mirror"
    first, _ = _sync(client, path, "companies")
    changes = Changes(sb.state, seed=11)
    changes.advance(60)
    held = mirror.load(path, "companies")
    cleared = held.loc[held["ceo"].notna(), "id"].head(3).tolist()
    changes.edit("companies", cleared, lambda d: d.update(ceo=None))
    done, said = _sync(client, path, "companies")
    after = _rows(path, "companies", cleared)
    assert after["ceo"].isna().all() and not after["deleted"].any()
    assert after["name"].notna().all()
    assert done.fields_absent is not None and "; " not in done.fields_absent  # one sentence
    assert (
        "not tombstones (live, or marked deleted holding more of their fields than they lack)"
        in done.fields_absent
    )
    assert "ceo (" in done.fields_absent and "written null" in done.fields_absent
    assert "tombstones)" not in done.fields_absent  # no tombstone sentence
    # the first sync: deleted records lacking only their nulls are no tombstones: written null
    assert first.fields_absent is not None and "; " not in first.fields_absent
    assert "tombstones)" not in first.fields_absent
    assert len(first.fields_absent) < 500  # not one sentence per set of fields lacked


class _ClockBehind(types.ModuleType):
    """pandas, but for a clock set back to 2026-01-01 (``pd.Timestamp.now``)."""

    class Timestamp(pd.Timestamp):
        @classmethod
        def now(cls, tz: Any = None) -> pd.Timestamp:
            return pd.Timestamp("2026-01-01", tz=tz)

    def __getattr__(self, name: str) -> Any:
        return getattr(pd, name)


@pytest.mark.parametrize("why", ["schema", "checkpoint ahead", "table unreadable"])
def test_a_rebuild_keeps_what_the_table_held(client, sb, proxy, tmp_path, monkeypatch, why):
    """A full pull replacing a table that can still be read (another schema; a checkpoint
    after this machine's clock) fills its tombstones from that table; when it cannot be read,
    they are written null and the loss is said."""
    from deltalake import DeltaTable, write_deltalake

    path = tmp_path / "mirror"
    _sync(client, path, "investors")
    changes = Changes(sb.state, seed=8)
    changes.advance(60)
    gone = changes.soft_delete("investors", 3)
    _sync(client, path, "investors")  # read whole: the table holds them deleted, with values
    before = _rows(path, "investors", gone)
    assert before["deleted"].all() and before["name"].notna().all()
    proxy.add(r"/api/private/v1/investors$", items_edit(_tombstone))
    if why == "checkpoint ahead":
        monkeypatch.setattr(sync_module, "pd", _ClockBehind("pandas"))
    else:  # a table of another schema (an older dealframe's, say): rebuilt
        held = DeltaTable(str(path / "investors")).to_pyarrow_table().drop_columns(["website"])
        write_deltalake(str(path / "investors"), held, mode="overwrite", schema_mode="overwrite")
    if why == "table unreadable":

        def unreadable(*args: Any) -> None:
            raise OSError("a data file is gone")

        monkeypatch.setattr(commit, "stored_rows", unreadable)
    done, said = _sync(client, path, "investors")
    monkeypatch.setattr(sync_module, "pd", pd)
    assert done.full
    after = _rows(path, "investors", gone)
    assert after["deleted"].all()
    if why == "table unreadable":
        assert after["name"].isna().all()
        assert "could not be read (OSError: a data file is gone)" in (done.fields_absent or "")
        assert "the values the table held for them are lost" in (done.fields_absent or "")
        return
    pd.testing.assert_frame_equal(after[["name", "country"]], before[["name", "country"]])
    assert done.fields_absent is not None and "row(s) marked deleted" in done.fields_absent
    assert "their values stay as last read" in done.fields_absent
    assert "new to the table" not in done.fields_absent


@pytest.mark.parametrize("change", ["renamed", "inserted"])
def test_a_record_read_whole_then_as_a_tombstone_keeps_this_syncs_read(
    client, sb, proxy, tmp_path, change
):
    """Records changed (renamed, or inserted), read whole on the feed's first page, then
    deleted while the walk goes on, read again later as tombstones: their values are those
    this sync read, not the table's older ones (nor nulls)."""
    path = tmp_path / "mirror"
    _sync(client, path, "investors")
    changes = Changes(sb.state, seed=5)
    changes.advance(60)
    ids: list[str] = []
    for _ in range(3):  # one timestamp each: a page holds some, not a tie
        changes.advance(1)
        if change == "renamed":
            ident = changes.update("investors", 1)[0]
            changes.edit("investors", [ident], lambda d: d.update(name=d["name"] + " RENAMED"))
        else:
            ident = changes.insert("investors", 1)[0]
        ids.append(ident)
    read: set[str] = set()

    def delete_once_read(ex: Exchange) -> None:
        items = (ex.doc() or {}).get("data") or []
        held = {item.get("id") for item in items[:-1]} & set(ids)  # the last: the next page's
        if held and not read:
            read.update(held)
            changes.advance(60)
            changes.edit("investors", ids, lambda d: d.update(deleted=True))

    proxy.add(r"/api/private/v1/investors$", items_edit(_tombstone))
    proxy.add(r"/api/private/v1/investors$", Action("delete", on_response=delete_once_read))
    done, said = _sync(client, path, "investors", page_size=2)
    after = _rows(path, "investors", ids)
    assert read and after["deleted"].all()
    names = after["name"].loc[sorted(read)]  # read whole before the delete
    if change == "renamed":
        assert names.str.endswith(" RENAMED").all(), after["name"].tolist()
    else:
        assert names.notna().all(), after["name"].tolist()
        never = len(ids) - len(read)  # inserted, deleted before read whole: nothing to keep
        assert f"{never} row(s) marked deleted and new" in (done.fields_absent or "")
    pages = [s for s in said if "absent from all" in s]  # pages of tombstones only
    assert pages and all("kept as last read in rows marked deleted" in s for s in pages)
    assert not [s for s in said if "their columns are null" in s]
    kept = len(ids) if change == "renamed" else len(read)  # from this sync's read or the table
    assert f"{kept} row(s) marked deleted came without" in (done.fields_absent or "")


def test_a_deleted_record_whose_nulls_are_left_out_is_written_null(client, sb, proxy, tmp_path):
    """A record cleared and deleted in one change, from a service that leaves nulls out: its
    item lacks the cleared field only, holding the others: no tombstone, the field written
    null (not kept from the table), said as live rows are."""
    proxy.add(r"/api/private/v1/companies$", items_edit(_without_nulls))
    path = tmp_path / "mirror"
    _sync(client, path, "companies")
    held = mirror.load(path, "companies")
    cleared = held.loc[held["ceo"].notna(), "id"].head(3).tolist()
    changes = Changes(sb.state, seed=11)
    changes.advance(60)
    changes.edit("companies", cleared, lambda d: d.update(ceo=None, deleted=True))
    done, said = _sync(client, path, "companies")
    after = _rows(path, "companies", cleared)
    assert after["deleted"].all() and after["ceo"].isna().all(), after["ceo"].tolist()
    assert after["name"].notna().all()
    assert done.fields_absent is not None and "tombstones)" not in done.fields_absent
    assert "row(s) not tombstones" in done.fields_absent and "ceo (3)" in done.fields_absent


def test_a_first_sync_of_tombstones_commits_the_staged_files_as_they_are(
    client, sb, proxy, tmp_path, monkeypatch
):
    """Nothing to fill tombstones from (no table, no earlier read): the staged files are
    the table's, not rewritten; the tombstones are said new, their fields null."""
    monkeypatch.setitem(store.PartWriter.__init__.__kwdefaults__, "row_group_rows", 64)
    writers: list[str] = []

    class Spy(store.PartWriter):
        def __init__(self, folder: Path, entity: str, prefix: str, **kw: Any) -> None:
            writers.append(prefix)
            super().__init__(folder, entity, prefix, **kw)

    monkeypatch.setattr(commit, "PartWriter", Spy)
    gone = Changes(sb.state, seed=3).soft_delete("companies", 5)
    proxy.add(r"/api/private/v1/companies$", items_edit(_tombstone))
    path = tmp_path / "mirror"
    done, said = _sync(client, path, "companies")
    assert writers == []  # no rewrite of the pull
    rows = _rows(path, "companies", gone)
    assert rows["deleted"].all() and rows["name"].isna().all()
    deleted = int(mirror.load(path, "companies", include_deleted=True)["deleted"].sum())
    text = f"{deleted} row(s) marked deleted and new to the table came without 21 documented"
    assert done.fields_absent is not None and text in done.fields_absent


def test_pages_asked_again_and_count_requests_say_absent_fields_as_the_mirror(
    client, proxy, tmp_path
):
    """A field absent from every item: the page asked again (short of a row the first time)
    says it as the mirror holds it, and the one-item count requests do not say it at all."""
    proxy.add(r"/api/private/v1/investors$", drop_field("website"))
    proxy.add(r"/api/private/v1/investors$", drop_rows(1), page=1, times=1)
    done, said = _sync(client, tmp_path / "mirror", "investors")
    assert done.page_asked_again is not None
    assert not [s for s in said if "their columns are null" in s], said
    assert not [s for s in said if "absent from all 1 items" in s], said
    pages = [s for s in said if "absent from all" in s and "website" in s]
    assert pages and all("kept as last read in rows marked deleted" in s for s in pages)
