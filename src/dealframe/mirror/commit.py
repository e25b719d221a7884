"""Committing one entity's staged rows to its Delta table: exactly one commit per sync.

* A first sync (no table yet) commits the staged files themselves as the new
  table's data files (written as the pages arrived: memory holds about a row
  group, whatever the size of the table); a repair commits them over the old
  version (an overwrite: the earlier versions stay in the history until
  ``compact`` removes them).
* An incremental sync upserts the changed rows by id (:func:`.table.upsert_rows`):
  a changed record's row replaces the stored one, a new one is inserted, a
  soft-deleted one stays as a row with ``deleted`` true. A row marked deleted whose
  item lacked documented fields (absent, not null: a tombstone) keeps the values last
  read of those fields: this sync's earlier read, else the table's (:mod:`.absent`; a
  full pull rebuilding a table reads the one it replaces). When the pull holds
  only rows read again because of the overlap, they are compared with the
  stored ones: unchanged ones are left out, and when nothing is left no commit
  is made (the checkpoint has not moved either).

The commit carries the checkpoint in its metadata (:mod:`.table`), so the data
and the checkpoint move together or not at all.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
from deltalake import DeltaTable
from deltalake.exceptions import CommitFailedError

from .absent import absent_said, kept_values
from .durable import fsync_dir
from .schema import arrow_schema, schema_problem
from .store import Part, PartWriter, StagedRows, moved_in, staged_at, staged_tables, step
from .table import (
    add_files,
    commit_files,
    commit_properties,
    data_files,
    owner_only,
    upsert_rows,
    write_rows,
)

if TYPE_CHECKING:
    from .ahead import StoredRows

__all__ = ["commit_entity", "equal_rows", "stored_rows", "unchanged_rereads"]

#: Above this many staged rows, skip looking for unchanged re-reads (a big pull rewrites anyway).
_COMPARE_MAX_ROWS = 50_000


def equal_rows(new: pa.Table, old: pa.Table) -> list[str]:
    """The ids whose row is the same in ``new`` and ``old`` (value for value).

    Examples
    --------
    >>> import pyarrow as pa
    >>> equal_rows(pa.table({"id": ["a", "b"], "v": [1, 2]}), pa.table({"id": ["b", "a"], "v": [2, 0]}))
    ['b']
    """
    new, old = new.sort_by("id"), old.select(new.column_names).sort_by("id")
    if new.num_rows == old.num_rows and new.equals(old):  # the usual case: all re-reads unchanged
        return new.column("id").to_pylist()
    stored = {r["id"]: r for r in old.to_pylist()}
    return [r["id"] for r in new.to_pylist() if stored.get(r["id"]) == r]


def unchanged_rereads(
    folder: Path,
    table: DeltaTable,
    rows: pa.Table,
    reread: set[str],
    ahead: StoredRows | None = None,
) -> pa.Array:
    """Ids of ``rows`` read again only because of the overlap whose stored row is the same
    (the stored rows from ``ahead`` when it is given, else from the files)."""
    if not reread or rows.num_rows > _COMPARE_MAX_ROWS:
        return pa.array([], pa.string())
    ids = pa.array(sorted(reread), pa.string())
    new = rows.filter(pc.is_in(rows.column("id"), value_set=ids))
    if not new.num_rows:
        return pa.array([], pa.string())
    stored = stored_rows(folder, table, new.schema, ids, ahead)
    return pa.array(equal_rows(new, stored), pa.string())


def stored_rows(
    folder: Path, table: DeltaTable, schema: pa.Schema, ids: pa.Array, ahead: StoredRows | None
) -> pa.Table:
    """The table's rows whose id is in ``ids``, as ``schema`` (from ``ahead`` when it is
    given, else from the data files)."""
    if ahead is not None:
        every = ahead.rows()
        stored = every.filter(pc.is_in(every.column("id"), value_set=ids))
    else:
        # delta-rs writes strings as Arrow string views, which pyarrow 26 filters and takes
        # poorly (no is_in or take kernel; statistics compared as string_view): read them as
        # strings, find the rows by their ids, then take them
        dataset = ds.dataset(
            [str(p) for p in data_files(folder, table)], format="parquet", schema=schema
        )
        stored_ids = dataset.to_table(columns=["id"]).column("id")
        at = np.flatnonzero(pc.is_in(stored_ids, value_set=ids).to_numpy(zero_copy_only=False))
        stored = dataset.take(pa.array(at, pa.int64()))
    return stored.select(schema.names).cast(schema)


def _last_read(
    folder: Path,
    table: DeltaTable | None,
    staged: StagedRows,
    parts: list[Part],
    ahead: StoredRows | None,
    *,
    rebuild: bool,
) -> tuple[pa.Table, str | None]:
    """The rows last read of the ids the pull read as tombstones (:mod:`.absent`): this sync's
    earlier read of the id when there is one, else the table's row; and, for a ``rebuild``
    (a full pull replacing a table), why the table's rows could not be read, when they could
    not (its values are then lost: written null)."""
    schema = arrow_schema(staged.entity)
    earlier = staged_at(staged, parts, list(staged.earlier.values()))
    found = [] if earlier is None else [earlier.cast(schema)]
    rest = pa.array(sorted(set(staged.absent) - set(staged.earlier)), pa.string())
    lost = None
    if table is not None and len(rest):
        try:  # a table of another schema reads as this one: a column it lacks reads null
            found.append(stored_rows(folder, table, schema, rest, ahead))
        except Exception as exc:  # any failure: the rebuild goes on, said
            if not rebuild:
                raise
            lost = f"{type(exc).__name__}: {str(exc)[:200]}"
    return (pa.concat_tables(found) if found else schema.empty_table()), lost


class _Fill:
    """Fills tombstones' absent fields from the rows last read (:func:`.absent.kept_values`),
    batch by batch, counting what it did."""

    def __init__(self, source: pa.Table, staged: StagedRows) -> None:
        self.source, self.staged = source, staged
        self.kept: Counter[tuple[str, ...]] = Counter()
        self.new: Counter[tuple[str, ...]] = Counter()

    def __call__(self, rows: pa.Table) -> pa.Table:
        rows, kept, new = kept_values(rows, self.source, self.staged.absent)
        self.kept.update(kept)
        self.new.update(new)
        return rows


def _absent_said(staged: StagedRows, fill: _Fill | None, lost: str | None = None) -> None:
    """Note in ``staged.said`` what was done with the rows lacking documented fields (without
    ``fill``, every tombstone had nothing to fill from: new)."""
    kept, new = (fill.kept, fill.new) if fill is not None else (Counter(), Counter())
    if fill is None:
        new = Counter(staged.absent.values())
    staged.said += absent_said(kept, new, Counter(staged.nulled.values()), lost=lost)


def _final_files(
    staged: StagedRows, parts: list[Part], fill: _Fill | None = None
) -> list[tuple[Path, int]]:
    """The staged files as the table's data files: as written while the pull ran, or, when an
    id was read twice, rows were never flushed to a file or tombstones are to be filled
    (``fill``), rewritten (streaming) with each id's latest read only. Memory holds about a
    row group either way."""
    if not staged.duplicates and staged.pending is None and fill is None:
        return [(p.path, p.rows) for p in parts]
    out = PartWriter(staged.folder, staged.entity, "final", rows_per_file=staged.rows_per_file)
    for table in staged_tables(staged, parts):
        out.write(table if fill is None else fill(table))
    return [(p.path, p.rows) for p in out.close()]


def commit_entity(
    root: Path,
    entity: str,
    staged: StagedRows,
    parts: list[Part],
    *,
    table: DeltaTable | None,
    full: bool,
    checkpoint: str | None,
    sync: int,
    received: int,
    reason: str | None = None,
    ahead: StoredRows | None = None,
) -> int:
    """Write the staged rows to ``entity``'s table in one commit; return the rows written.

    Parameters
    ----------
    root : Path
        The mirror folder.
    entity : str
    staged, parts : StagedRows, list of Part
        The rows this sync pulled and the staged files holding them.
    table : DeltaTable or None
        The entity's table as it is (None: there is none yet).
    full : bool
        The pull read every record: write them as the table's new content
        (create or overwrite) rather than upserting them.
    checkpoint : str or None
        The change-feed checkpoint the commit records.
    sync, received : int
        The sync's number and the rows it received (recorded in the commit).
    reason : str, optional
        Why a full pull replaced the table (a repair), recorded in the commit.
    ahead : StoredRows, optional
        The table's rows, being read already (:func:`.ahead.read_ahead`): an upsert uses
        them rather than reading the files again.

    Examples
    --------
    >>> commit_entity(root, "deals", staged, staged.close(), table=None, full=True,
    ...               checkpoint="2026-01-01T00:00:00+00:00", sync=1, received=50_000)  # doctest: +SKIP
    50000
    """
    folder = root / entity
    schema = arrow_schema(entity)
    if full:
        written = staged.distinct
        fill, lost = None, None
        if staged.absent and (table is not None or staged.earlier):
            # tombstones: filled from this sync's earlier reads, else the table's; with neither
            # (a first sync), nothing to fill: the staged files are committed as they are
            source, lost = _last_read(folder, table, staged, parts, None, rebuild=True)
            fill = _Fill(source, staged)
        operation = "repair" if reason else "full"
        props = commit_properties(
            operation,
            checkpoint=checkpoint,
            sync=sync,
            received=received,
            written=written,
            reason=reason,
            read_version=None if table is None else table.version(),
        )
        if table is not None and schema_problem(entity, pa.schema(table.schema().to_arrow())):
            # the table holds another schema (a repair): delta-rs replaces the schema too
            tables = (t.cast(schema) for t in staged_tables(staged, parts))
            batches = (b for t in tables for b in (t if fill is None else fill(t)).to_batches())
            step("before-commit")
            write_rows(folder, batches, schema, mode="overwrite", properties=props, name=entity)
        else:
            files = _final_files(staged, parts, fill)
            step("before-commit")
            added = add_files(folder, files)
            step("moved-in")  # the files in the table folder, not yet in its log
            try:
                commit_files(folder, table, added, schema, props, entity)
            except CommitFailedError:  # another writer committed first: no log names them
                for action in added:
                    (folder / action.path).unlink(missing_ok=True)
                fsync_dir(folder)
                raise
            for staging in {path.parent for path, _ in files}:
                moved_in(staging)  # committed: no listing left for recover to act on
        if staged.absent or staged.nulled:
            _absent_said(staged, fill, lost)
    else:
        assert table is not None
        rows = (
            pa.concat_tables([t.cast(schema) for t in staged_tables(staged, parts)])
            if staged.position
            else schema.empty_table()
        )
        fill = None
        if staged.absent:  # before the re-reads are compared: a tombstone re-read is no change
            fill = _Fill(_last_read(folder, table, staged, parts, ahead, rebuild=False)[0], staged)
            rows = fill(rows)
        if staged.absent or staged.nulled:
            _absent_said(staged, fill)
        # Every upsert rewrites the data files holding the ids it replaces (Delta without
        # deletion vectors), so re-reads of the overlap cost nothing more to write along with
        # real changes. Only when the pull holds nothing newer than the checkpoint are they
        # compared with the stored rows, so that a sync with no change makes no commit.
        only_rereads = len(staged.reread) == staged.distinct
        same = (
            unchanged_rereads(folder, table, rows, staged.reread, ahead)
            if only_rereads
            else pa.array([], pa.string())
        )
        if len(same):
            rows = rows.filter(pc.invert(pc.is_in(rows.column("id"), value_set=same)))
        written = rows.num_rows
        if not written:
            return 0
        props = commit_properties(
            "sync",
            checkpoint=checkpoint,
            sync=sync,
            received=received,
            written=written,
            read_version=table.version(),
        )
        step("before-commit")
        upsert_rows(folder, table, rows, "id", props, entity, ahead)
    step("committed")
    owner_only(folder)
    return written
