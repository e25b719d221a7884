"""The Parquet dataset of one entity: staged writes, copy-on-write upserts, commit, recovery.

Layout of a mirror folder::

    PATH/_mirror.json             state: schema version, per entity checkpoint and file list
    PATH/.lock                    flock held by the running sync
    PATH/companies/part-*.parquet committed files: one row per id across the folder
    PATH/investors/part-*.parquet
    PATH/deals/part-*.parquet
    PATH/_staging/<sync>/         files of a sync in progress (never read)

A sync writes new files under ``_staging`` (fsynced), renames them into the
entity folder under names never used before, fsyncs the folder, then replaces
``_mirror.json`` (the commit point), and only then deletes the files it
replaced. Whatever the moment of a crash, the state file names only complete,
durable files; files it does not name are leftovers that :func:`recover`
deletes before the next sync starts, which then reads again from the old
checkpoint (upserts are idempotent).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .durable import fsync_dir, fsync_file
from .schema import ENTITIES, arrow_schema, to_arrow
from .state import FileEntry, MirrorState, write_state

__all__ = ["ROWS_PER_FILE", "ROW_GROUP_ROWS", "STAGING", "PartWriter", "StagedRows",
           "commit_entity", "recover", "set_crash_hook"]

#: Rows per Parquet file (files are rolled at this size).
ROWS_PER_FILE = 250_000
#: Rows per row group (the unit of buffering while writing).
ROW_GROUP_ROWS = 16_384
STAGING = "_staging"
_COMPRESSION = "zstd"

_HOOK: Callable[[str], None] | None = None


def set_crash_hook(hook: Callable[[str], None] | None) -> None:
    """Call ``hook(step)`` at every durable step of a sync (tests kill the process there)."""
    global _HOOK
    _HOOK = hook


def _step(name: str) -> None:
    if _HOOK is not None:
        _HOOK(name)


@dataclass
class _Part:
    path: Path
    rows: int = 0
    deleted: int = 0


class PartWriter:
    """Tables in, rolling zstd Parquet files out (``prefix-NNN.parquet`` in ``folder``).

    Rows are buffered up to a row group, so memory stays bounded by
    ``row_group_rows`` whatever the number of rows written.
    """

    def __init__(self, folder: Path, entity: str, prefix: str, *,
                 rows_per_file: int = ROWS_PER_FILE, row_group_rows: int = ROW_GROUP_ROWS) -> None:
        self.folder, self.prefix = folder, prefix
        self.schema = arrow_schema(entity)
        self.rows_per_file, self.row_group_rows = rows_per_file, row_group_rows
        self.parts: list[_Part] = []
        self._writer: pq.ParquetWriter | None = None
        self._buffer: list[pa.Table] = []
        self._buffered = 0

    def write(self, table: pa.Table) -> None:
        """Append rows (any number)."""
        while table.num_rows:
            room = self._room()
            head, table = table.slice(0, room), table.slice(room)
            self._buffer.append(head)
            self._buffered += head.num_rows
            if self._buffered >= self.row_group_rows or self._file_full():
                self._flush()

    def _room(self) -> int:
        current = self.parts[-1].rows if self._writer is not None else 0
        return max(1, self.rows_per_file - current - self._buffered)

    def _file_full(self) -> bool:
        current = self.parts[-1].rows if self._writer is not None else 0
        return current + self._buffered >= self.rows_per_file

    def _flush(self) -> None:
        if not self._buffered:
            return
        if self._writer is None:
            part = _Part(self.folder / f"{self.prefix}-{len(self.parts):03d}.parquet")
            self.parts.append(part)
            self._writer = pq.ParquetWriter(part.path, self.schema, compression=_COMPRESSION)
            os.chmod(part.path, 0o600)  # owner-only, like the state file
        table = pa.concat_tables(self._buffer)
        self._writer.write_table(table, row_group_size=self.row_group_rows)
        part = self.parts[-1]
        part.rows += table.num_rows
        part.deleted += int(pc.sum(table.column("deleted")).as_py() or 0)
        self._buffer, self._buffered = [], 0
        if part.rows >= self.rows_per_file:
            self._close_file()

    def _close_file(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            fsync_file(self.parts[-1].path)
            _step("staged-file")

    def close(self) -> list[_Part]:
        """Write what is buffered, close and fsync every file; return the parts."""
        self._flush()
        self._close_file()
        if self.parts:
            fsync_dir(self.folder)
        return self.parts


@dataclass
class StagedRows:
    """The rows one sync pulled for an entity, written as they arrive.

    Tracks, per id, the position of its latest read, so that when the feed
    returned an id twice (it changed while pages were read) only the later
    version is committed; and, with ``reread_until`` (the previous checkpoint),
    the ids whose latest read is stamped at or before it: re-reads of the overlap.
    """

    folder: Path
    entity: str
    prefix: str
    rows_per_file: int = ROWS_PER_FILE
    reread_until: pd.Timestamp | None = None
    latest: dict[str, int] = field(default_factory=dict)
    reread: set[str] = field(default_factory=set)
    position: int = 0
    duplicates: bool = False
    _writer: PartWriter | None = None

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._writer = PartWriter(self.folder, self.entity, self.prefix,
                                  rows_per_file=self.rows_per_file)

    def add(self, frame: pd.DataFrame) -> None:
        """Stage the rows of one feed frame."""
        if not len(frame):
            return
        ids = frame["id"].tolist()
        for offset, ident in enumerate(ids):
            if ident in self.latest:
                self.duplicates = True
            self.latest[ident] = self.position + offset
        self.position += len(ids)
        if self.reread_until is not None:  # ids whose latest read may be an unchanged re-read
            old = (frame["updated_at"] <= self.reread_until).to_numpy()
            for ident, is_old in zip(ids, old.tolist()):
                (self.reread.add if is_old else self.reread.discard)(ident)
        assert self._writer is not None
        self._writer.write(to_arrow(frame, self.entity))

    def close(self) -> list[_Part]:
        assert self._writer is not None
        return self._writer.close()

    def keep_mask(self, ids: list[str], start: int) -> np.ndarray:
        """Rows (at positions ``start``...) that hold their id's latest version."""
        latest = self.latest
        return np.fromiter((latest[i] == start + k for k, i in enumerate(ids)), dtype=bool,
                           count=len(ids))


def _batches(path: Path, batch_rows: int = ROW_GROUP_ROWS) -> Iterator[pa.Table]:
    with pq.ParquetFile(path) as f:
        for batch in f.iter_batches(batch_size=batch_rows):
            yield pa.Table.from_batches([batch])


def _touched(path: Path, changed: pa.Array) -> bool:
    ids = pq.read_table(path, columns=["id"]).column("id")
    return bool(pc.any(pc.is_in(ids, value_set=changed)).as_py())


def _staged_tables(staged: StagedRows, parts: list[_Part]) -> Iterator[pa.Table]:
    """The staged rows holding their id's latest read."""
    start = 0
    for part in parts:
        for table in _batches(part.path):
            if staged.duplicates:
                mask = staged.keep_mask(table.column("id").to_pylist(), start)
                start += table.num_rows
                table = table.filter(pa.array(mask))
            yield table


#: Above this many staged rows, skip looking for unchanged re-reads (a big pull rewrites anyway).
_COMPARE_MAX_ROWS = 50_000


def _unchanged(folder: Path, touched: list[FileEntry], staged: StagedRows, parts: list[_Part],
               changed: pa.Array) -> pa.Array:
    """Ids whose staged row equals the stored one (rows read again only because of the overlap)."""
    if staged.position > _COMPARE_MAX_ROWS:
        return pa.array([], pa.string())
    new = pa.concat_tables(list(_staged_tables(staged, parts))).sort_by("id")
    tables = [pq.read_table(folder / f.name) for f in touched]
    old = pa.concat_tables([t.filter(pc.is_in(t.column("id"), value_set=changed))
                            for t in tables]).sort_by("id")
    new = new.filter(pc.is_in(new.column("id"), value_set=old.column("id")))
    if new.num_rows != old.num_rows:  # pragma: no cover - one row per id on both sides
        return pa.array([], pa.string())
    same = [a["id"] for a, b in zip(new.to_pylist(), old.to_pylist()) if a == b]
    return pa.array(same, pa.string())


def _move_into_place(parts: Iterable[_Part], folder: Path) -> list[FileEntry]:
    entries = []
    for part in parts:
        target = folder / part.path.name
        os.replace(part.path, target)
        _step("moved-file")
        entries.append(FileEntry(target.name, part.rows, part.deleted, target.stat().st_size))
    fsync_dir(folder)
    return entries


def commit_entity(root: Path, state: MirrorState, entity: str, staged: StagedRows, parts: list[_Part],
                  checkpoint: str | None, synced_at: str, *, rows_per_file: int = ROWS_PER_FILE,
                  reread: pa.Array | None = None) -> int:
    """Upsert the staged rows into the entity's files and commit the state; return rows written.

    Old files holding none of the staged ids and big enough stay as they are;
    the others are rewritten without the staged ids (copy on write) together
    with the staged rows and any small files (compaction), packed into files of
    up to ``rows_per_file`` rows. ``reread`` names staged ids that may be unchanged
    re-reads (stamped at or before the previous checkpoint).
    """
    folder = root / entity
    folder.mkdir(exist_ok=True, mode=0o700)
    es = state.entity(entity)
    changed = pa.array(list(staged.latest), type=pa.string())
    touched = [f for f in es.files if len(changed) and _touched(folder / f.name, changed)]
    same = pa.array([], pa.string())
    if touched and reread is not None and len(reread):
        # Rows read again only because of the overlap may equal the stored ones; when they are
        # the only reason to rewrite a file, compare and leave equal rows where they are.
        fresh = pc.filter(changed, pc.invert(pc.is_in(changed, value_set=reread)))
        only_reread = [f for f in touched if not (len(fresh) and _touched(folder / f.name, fresh))]
        if only_reread:
            same = _unchanged(folder, only_reread, staged, parts, reread)
            changed = pc.filter(changed, pc.invert(pc.is_in(changed, value_set=same)))
            dropped = {f.name for f in only_reread if not _touched(folder / f.name, changed)}
            touched = [f for f in touched if f.name not in dropped]
    names = {f.name for f in touched}
    keep, rewrite = [], []
    for f in es.files:
        small = staged.position > len(same) and f.rows < rows_per_file // 2  # compact when adding
        (rewrite if small or f.name in names else keep).append(f)
    if not rewrite and not staged.duplicates and not len(same):
        new_parts = parts  # nothing to merge: the staged files become the new files
    else:
        packer = PartWriter(staged.folder, entity, f"{staged.prefix}-packed", rows_per_file=rows_per_file)
        for f in rewrite:
            for table in _batches(folder / f.name):
                packer.write(table.filter(pc.invert(pc.is_in(table.column("id"), value_set=changed))))
        for table in _staged_tables(staged, parts):
            packer.write(table.filter(pc.is_in(table.column("id"), value_set=changed)))
        new_parts = packer.close()
    written = sum(p.rows for p in new_parts)
    entries = _move_into_place(new_parts, folder)
    es.files = keep + entries
    es.checkpoint = checkpoint if checkpoint is not None else es.checkpoint
    es.last_sync = synced_at
    _step("before-state")
    write_state(root, state)
    _step("committed")
    for f in rewrite:
        (folder / f.name).unlink(missing_ok=True)
        _step("deleted-file")
    if rewrite:
        fsync_dir(folder)
    return written


def recover(root: Path, state: MirrorState) -> list[Path]:
    """Delete what an interrupted sync left: staging, and entity files the state does not name.

    Returns
    -------
    list of Path
        The files removed.
    """
    removed: list[Path] = []
    staging = root / STAGING
    if staging.exists():
        removed += [p for p in staging.rglob("*") if p.is_file()]
        shutil.rmtree(staging)
    for entity in ENTITIES:
        folder = root / entity
        if not folder.is_dir():
            continue
        named = {f.name for f in state.entity(entity).files} if entity in state.entities else set()
        for p in folder.iterdir():
            if p.is_file() and p.name not in named:
                p.unlink()
                removed.append(p)
        if removed:
            fsync_dir(folder)
    for p in root.glob("._mirror.json.tmp-*"):
        p.unlink()
        removed.append(p)
    if removed:
        fsync_dir(root)
    return removed
