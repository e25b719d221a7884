"""Tables another writer changed in their properties or protocol, or appended to (audit 16b):
deletion vectors, ``delta.appendOnly``, a ``CHECK`` constraint and the change data feed are
found before the feed is read, the table set aside and built again from a full pull (never
deltalake's error, never ``MirrorLockedError``); ``load`` and ``status`` look at the log as a
sync does; ``compact`` writes the mirror's Snappy files; the messages say what happened."""

from __future__ import annotations

import warnings

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.sandbox.changes import Changes


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.01, seed=41) as sandbox:
        yield sandbox


def _newest(table: DeltaTable) -> str:
    """The newest ``updated_at`` in the table: a constraint every later change breaks."""
    return str(pc.max(table.to_pyarrow_table(columns=["updated_at"]).column(0)).as_py())


def _files(table: DeltaTable) -> list[str]:
    return pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist()


def _ids(frame: pd.DataFrame) -> list[str]:
    return sorted(frame["id"].tolist())


def _sync(client: Client, path, **kw) -> tuple[mirror.SyncReport, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = mirror.sync(client, path, page_size=250, **kw)
    return report, list(seen)


def _repairs(seen: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in seen if issubclass(w.category, mirror.MirrorRepairWarning)]


@pytest.mark.parametrize(
    ("entity", "alter", "named"),
    [
        (
            "deals",
            lambda t: t.alter.set_table_properties({"delta.enableDeletionVectors": "true"}),
            "deletionVectors",
        ),
        (
            "deals",
            lambda t: t.alter.set_table_properties({"delta.appendOnly": "true"}),
            "delta.appendOnly",
        ),
        (
            "companies",
            lambda t: t.alter.add_constraint({"old_only": f"updated_at <= '{_newest(t)}'"}),
            "CHECK constraint old_only",
        ),
        (
            "investors",
            lambda t: t.alter.set_table_properties({"delta.enableChangeDataFeed": "true"}),
            "delta.enableChangeDataFeed",
        ),
    ],
    ids=["deletion-vectors", "append-only", "constraint", "change-data-feed"],
)
def test_a_foreign_property_sets_the_table_aside(sb, tmp_path, entity, alter, named):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=5)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, page_size=250)
        alter(DeltaTable(str(path / entity)))
        with pytest.raises(mirror.MirrorDamagedError, match=named):
            mirror.load(path, entity)
        with pytest.raises(mirror.MirrorDamagedError, match=named):
            mirror.status(path)
        changes.advance(3600)
        changes.update(entity, 3)
        report, seen = _sync(client, path)
        again, seen_again = _sync(client, path)
        service = client.private.__getattribute__(entity)(include_deleted=True)

    repairs = _repairs(seen)
    assert len(repairs) == 1 and named in repairs[0] and "_damaged" in repairs[0], repairs
    assert "versions start again at 0" in repairs[0]  # a pinned as_of names the new table's
    assert report[entity].full and report[entity].repaired
    assert len(list((path / "_damaged").iterdir())) == 1
    fresh = DeltaTable(str(path / entity))
    assert fresh.protocol().reader_features is None and not fresh.metadata().configuration
    assert _ids(mirror.load(path, entity, include_deleted=True)) == _ids(service)
    assert not again[entity].full and not _repairs(seen_again)


def test_append_only_set_while_a_sync_writes_is_no_lock(sb, tmp_path):
    """The upsert's refusal by an append-only table is no concurrent commit: rebuilt."""
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=6)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, page_size=250)
        changes.advance(3600)
        changes.update("deals", 3)
        done: list[bool] = []

        def turn_on(step: dict) -> None:  # after the table was looked at, before the commit
            if step["entity"] == "deals" and not done:
                done.append(True)
                DeltaTable(str(path / "deals")).alter.set_table_properties(
                    {"delta.appendOnly": "true"}
                )

        report, seen = _sync(client, path, progress=turn_on)
        service = client.private.deals(include_deleted=True)
    assert done
    repairs = _repairs(seen)
    assert len(repairs) == 1 and "delta.appendOnly" in repairs[0], repairs
    assert report["deals"].full
    assert _ids(mirror.load(path, "deals", include_deleted=True)) == _ids(service)


def test_a_foreign_append_is_seen_by_load_and_status(sb, tmp_path):
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, page_size=250)
        folder = str(path / "deals")
        write_deltalake(folder, DeltaTable(folder).to_pyarrow_table().slice(0, 5), mode="append")
        with pytest.raises(mirror.MirrorDamagedError, match=r"\(WRITE.*duplicates") as raised:
            mirror.load(path, "deals")
        assert "rows it deleted" not in str(raised.value)
        with pytest.warns(mirror.MirrorDivergenceWarning, match="another writer changed"):
            mirror.status(path)
        report, seen = _sync(client, path)
        service = client.private.deals(include_deleted=True)
    assert report["deals"].full
    assert any("duplicates" in r for r in _repairs(seen))
    loaded = mirror.load(path, "deals", include_deleted=True)
    assert not loaded["id"].duplicated().any() and _ids(loaded) == _ids(service)


def test_compact_writes_snappy(sb, tmp_path):
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250, rows_per_file=40)
    before = len(_files(DeltaTable(str(path / "deals"))))
    done = mirror.compact(path, ["deals"], keep_versions=1)
    table = DeltaTable(str(path / "deals"))
    assert done["deals"]["files_added"] >= 1 and len(_files(table)) < before
    codecs = {
        pq.ParquetFile(path / "deals" / f).metadata.row_group(0).column(c).compression
        for f in _files(table)
        for c in range(pq.ParquetFile(path / "deals" / f).metadata.num_columns)
    }
    assert codecs == {"SNAPPY"}, codecs


def test_a_missing_marker_beside_the_tables_is_said(sb, tmp_path):
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["investors"], page_size=250)
        (path / "_mirror.json").unlink()
        with pytest.raises(mirror.MirrorPathError, match="marker _mirror.json is missing") as e:
            mirror.sync(client, path)
    assert "investors" in str(e.value) and "choose a new" not in str(e.value)
    with pytest.raises(mirror.MirrorPathError, match="restore _mirror.json"):
        mirror.status(path)


def test_a_column_comment_changes_no_row(sb, tmp_path):
    """A comment set on a column by another writer (deltalake's ``set_column_metadata``, an
    ``UPDATE FIELD METADATA`` commit) changes no row: ``load`` and ``status`` read the table,
    and the next sync stays incremental (it was taken for a change of rows: load refused the
    table and the sync rebuilt it from a full pull)."""
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, page_size=250)
        DeltaTable(str(path / "deals")).alter.set_column_metadata("id", {"comment": "deal id"})
        assert len(mirror.load(path, "deals")) > 0
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no divergence said
            mirror.status(path)
        report, seen = _sync(client, path)
    assert not report["deals"].full and not _repairs(seen)
