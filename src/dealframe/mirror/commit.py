"""Committing one entity's staged rows: as a delta, with the deltas merged, or compacted.

An entity's files are a base (its oldest generation) and deltas (later
generations: newer versions of some ids; the newest generation holding an id
wins, :mod:`.merge`). A commit writes the changed rows as a new delta, so an
incremental sync costs what changed, not the size of the table. When deltas
pile up it folds them away, with the commit that crosses the line:

* more than :data:`COMPACT_FRACTION` of the base's rows in deltas: everything
  is rewritten as a new base, one row per id (a compaction);
* :data:`MAX_DELTA_FILES` delta files already: they are merged with the new rows
  into one delta (the base stays).

Every path is the same durable sequence: files staged and fsynced, renamed
into the entity folder under new names (a new generation), folder fsynced,
state replaced (the commit point), then the folded files deleted. The state
also keeps the entity's counts of unique ids (rows, deleted), updated from the
newest stored version of each changed id.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .durable import fsync_dir
from .merge import drop_ids, last_per_id, superseding, unique_ids
from .state import EntityState, FileEntry, MirrorState, write_state
from .store import (ROWS_PER_FILE, Part, PartWriter, StagedRows, batches, move_into_place,
                    staged_tables, step)

__all__ = ["COMPACT_FRACTION", "MAX_DELTA_FILES", "Plan", "commit_entity", "current_versions",
           "plan"]

#: Deltas holding more rows than this fraction of the base's rows are compacted into a new base.
COMPACT_FRACTION = 0.1
#: Delta files allowed before the next commit merges them into one.
MAX_DELTA_FILES = 8
#: Above this many staged rows, skip looking for unchanged re-reads (a big pull rewrites anyway).
_COMPARE_MAX_ROWS = 50_000
_KEYS = ["id", "updated_at", "deleted"]


@dataclass
class Plan:
    """How a commit writes: ``kind`` is ``"none"``, ``"base"``, ``"delta"``, ``"merge"`` or
    ``"compact"``; ``merge`` files are folded into the new files (deleted after the commit),
    ``keep`` files stay as they are."""

    kind: str
    keep: list[FileEntry]
    merge: list[FileEntry]


def plan(files: list[FileEntry], new_rows: int, *, compact: bool = False) -> Plan:
    """Choose how to commit ``new_rows`` changed rows onto ``files`` (pure).

    Examples
    --------
    >>> plan([], 10).kind
    'base'
    >>> base = [FileEntry("part-1.parquet", 1000, 0, 1, generation=1)]
    >>> plan(base, 50).kind, plan(base, 500).kind, plan(base, 0).kind
    ('delta', 'compact', 'none')
    """
    if not files:
        return Plan("base" if new_rows else "none", [], [])
    es = EntityState(files=list(files))
    base, deltas = es.base, es.deltas
    delta_rows = sum(f.rows for f in deltas) + new_rows
    if (compact and (deltas or new_rows)) or delta_rows > COMPACT_FRACTION * sum(f.rows for f in base):
        return Plan("compact", [], list(files))
    if not new_rows:
        return Plan("none", list(files), [])
    if len(deltas) >= MAX_DELTA_FILES:
        return Plan("merge", base, deltas)
    return Plan("delta", list(files), [])


def _columns(path: Path, columns: list[str]) -> pa.Table:
    """Some columns of one Parquet file (``ParquetFile``: no dataset machinery for one file)."""
    with pq.ParquetFile(path) as f:
        return f.read(columns=columns, use_threads=False)  # small reads: no pool wake-ups


def _empty_versions() -> pa.Table:
    return pa.table({"id": pa.array([], pa.string()),
                     "updated_at": pa.array([], pa.timestamp("us", tz="UTC")),
                     "deleted": pa.array([], pa.bool_()), "file": pa.array([], pa.string()),
                     "row": pa.array([], pa.int64())})


def current_versions(folder: Path, files: list[FileEntry], ids: pa.Array) -> pa.Table:
    """The newest stored version of each of ``ids`` found: ``id, updated_at, deleted`` and
    where it is (``file`` name, ``row`` position).

    Reads three columns of every file (``files`` oldest generation first).

    Examples
    --------
    >>> current_versions(root / "deals", es.files, pa.array([deal_id]))  # doctest: +SKIP
    """
    pieces = []
    if len(ids):
        for f in files:
            t = _columns(folder / f.name, _KEYS)
            t = t.append_column("row", pa.array(np.arange(t.num_rows, dtype=np.int64)))
            t = t.filter(pc.is_in(t.column("id"), value_set=ids))
            if t.num_rows:
                pieces.append(t.append_column("file", pa.array([f.name] * t.num_rows, pa.string())))
    if not pieces:
        return _empty_versions()
    return last_per_id(pa.concat_tables(pieces)).select(_empty_versions().column_names)


def _same_stamp(new: pa.Table, current: pa.Table) -> dict[str, list[int]]:
    """Per file, the rows of the stored versions whose ``updated_at`` equals the staged one."""
    stored = dict(zip(current.column("id").to_pylist(),
                      zip(current.column("updated_at").cast(pa.int64()).to_pylist(),
                          current.column("file").to_pylist(), current.column("row").to_pylist())))
    out: dict[str, list[int]] = defaultdict(list)
    stamps = new.column("updated_at").cast(pa.int64()).to_pylist()
    for ident, stamp in zip(new.column("id").to_pylist(), stamps):
        hit = stored.get(ident)
        if hit is not None and hit[0] == stamp:
            out[hit[1]].append(hit[2])
    return out


def _read_rows(path: Path, rows: list[int]) -> pa.Table:
    """The rows at positions ``rows`` of a Parquet file, decoding only their row groups."""
    with pq.ParquetFile(path) as pf:
        sizes = [pf.metadata.row_group(i).num_rows for i in range(pf.metadata.num_row_groups)]
        starts = np.cumsum([0, *sizes])
        wanted = np.asarray(sorted(rows), dtype=np.int64)
        groups = np.unique(np.searchsorted(starts, wanted, side="right") - 1)
        table = pf.read_row_groups(groups.tolist(), use_threads=False)
    local = np.cumsum([0, *(sizes[g] for g in groups)])[:-1]  # where each group starts in table
    shift = dict(zip(groups.tolist(), (local - starts[groups]).tolist()))
    group_of = np.searchsorted(starts, wanted, side="right") - 1
    return table.take(wanted + np.array([shift[g] for g in group_of.tolist()], dtype=np.int64))


def _equal_rows(new: pa.Table, old: pa.Table) -> list[str]:
    """The ids whose row is the same in ``new`` and ``old`` (value for value)."""
    new, old = new.sort_by("id"), old.select(new.column_names).sort_by("id")
    if new.num_rows == old.num_rows and new.equals(old):  # the usual case: all re-reads unchanged
        return new.column("id").to_pylist()
    stored = {r["id"]: r for r in old.to_pylist()}
    return [r["id"] for r in new.to_pylist() if stored.get(r["id"]) == r]


def _unchanged(folder: Path, current: pa.Table, staged: StagedRows, parts: list[Part],
               reread: pa.Array | None) -> pa.Array:
    """Staged ids read again only because of the overlap whose row equals the stored one."""
    big = staged.position > _COMPARE_MAX_ROWS
    if reread is None or not len(reread) or not current.num_rows or big:
        return pa.array([], pa.string())
    new = pa.concat_tables(list(staged_tables(staged, parts)))
    new = new.filter(pc.is_in(new.column("id"), value_set=reread))
    same: list[str] = []
    for name, rows in _same_stamp(new, current).items():
        old = _read_rows(folder / name, rows)
        same += _equal_rows(new.filter(pc.is_in(new.column("id"), value_set=old.column("id"))), old)
    return pa.array(same, pa.string())


def _ids(folder: Path, f: FileEntry) -> pa.ChunkedArray:
    return _columns(folder / f.name, ["id"]).column("id")


def _write_folded(folder: Path, files: list[FileEntry], newest: pa.Array, out: PartWriter) -> None:
    """Write the rows of ``files`` that no newer generation (nor ``newest``) replaces."""
    generations = sorted({f.generation for f in files})
    groups = [[f for f in files if f.generation == g] for g in generations]
    ids = [None] + [unique_ids([_ids(folder, f) for f in g]) for g in groups[1:]] + [newest]
    newer = superseding(ids)
    for k, group in enumerate(groups):
        replaced = newer[k]
        for f in group:
            keep = None  # one hash set per file, not per batch
            if replaced is not None and len(replaced):
                keep = pc.invert(pc.is_in(_ids(folder, f), value_set=replaced))
            offset = 0
            for table in batches(folder / f.name):
                n = table.num_rows
                out.write(table if keep is None else table.filter(keep.slice(offset, n)))
                offset += n


def _write(chosen: Plan, folder: Path, entity: str, staged: StagedRows, parts: list[Part],
           write_ids: pa.Array, same: pa.Array, rows_per_file: int) -> tuple[list[Part], int, int]:
    """Stage the new files; return them, and how many staged rows (and deleted ones) they hold."""
    if chosen.kind == "none":
        return [], 0, 0
    if not chosen.merge and not staged.duplicates and not len(same) and staged.pending is None:
        return parts, sum(p.rows for p in parts), sum(p.deleted for p in parts)  # as staged
    out = PartWriter(staged.folder, entity, f"{staged.prefix}-packed", rows_per_file=rows_per_file)
    if chosen.merge:
        _write_folded(folder, chosen.merge, write_ids, out)
    rows = deleted = 0
    for table in staged_tables(staged, parts):
        table = drop_ids(table, same)
        out.write(table)
        rows += table.num_rows
        deleted += int(pc.sum(table.column("deleted")).as_py() or 0)
    return out.close(), rows, deleted


def _count(es: EntityState, chosen: Plan, new_parts: list[Part], written: tuple[int, int],
           current: pa.Table, write_ids: pa.Array) -> tuple[int, int]:
    """The entity's unique ids and deleted ids after the commit."""
    if chosen.kind in ("compact", "base"):  # the new files hold one row per id: count them
        return sum(p.rows for p in new_parts), sum(p.deleted for p in new_parts)
    old = current.filter(pc.is_in(current.column("id"), value_set=write_ids))
    old_deleted = int(pc.sum(old.column("deleted")).as_py() or 0)
    return (es.rows + written[0] - old.num_rows, es.deleted + written[1] - old_deleted)


def commit_entity(root: Path, state: MirrorState, entity: str, staged: StagedRows, parts: list[Part],
                  checkpoint: str | None, synced_at: str | None, *,
                  rows_per_file: int = ROWS_PER_FILE, reread: pa.Array | None = None,
                  compact: bool = False) -> int:
    """Upsert the staged rows into the entity's files and commit the state; return rows written.

    Parameters
    ----------
    root : Path
        The mirror folder.
    state : MirrorState
        Its state; ``state.generation`` names the new files.
    entity : str
    staged, parts : StagedRows, list of Part
        The rows this sync pulled and the staged files holding them.
    checkpoint, synced_at : str or None
        The entity's new checkpoint and last sync (None keeps the old one).
    rows_per_file : int
        Rows per file written.
    reread : pyarrow.Array, optional
        Staged ids that may be unchanged re-reads (stamped at or before the
        previous checkpoint): rows equal to the stored ones are not written again.
    compact : bool, default False
        Rewrite the entity as one generation (a base with one row per id).

    Examples
    --------
    >>> commit_entity(root, state, "deals", staged, staged.close(), "2026-01-01T00:00:00+00:00",
    ...               "2026-01-02T00:00:00+00:00")  # doctest: +SKIP
    """
    folder = root / entity
    folder.mkdir(exist_ok=True, mode=0o700)
    es = state.entity(entity)
    staged_ids = pa.array(list(staged.latest), pa.string())
    current = current_versions(folder, es.files, staged_ids)
    same = _unchanged(folder, current, staged, parts, reread)
    write_ids = drop_ids(pa.table({"id": staged_ids}), same).column("id").combine_chunks()
    chosen = plan(es.files, len(write_ids), compact=compact)
    new_parts, rows, deleted = _write(chosen, folder, entity, staged, parts, write_ids, same,
                                      rows_per_file)
    es.rows, es.deleted = _count(es, chosen, new_parts, (rows, deleted), current, write_ids)
    es.files = chosen.keep + move_into_place(new_parts, folder, state.generation)
    es.checkpoint = checkpoint if checkpoint is not None else es.checkpoint
    es.last_sync = synced_at if synced_at is not None else es.last_sync
    step("before-state")
    write_state(root, state)
    step("committed")
    for f in chosen.merge:
        (folder / f.name).unlink(missing_ok=True)
        step("deleted-file")
    if chosen.merge:
        fsync_dir(folder)
    return sum(p.rows for p in new_parts)
