"""Staging the rows one sync pulls: rolling Parquet files written as pages arrive, deduplicated
by id on the way out, and deleted by :func:`recover` after the sync (or after a crash).

Layout of a mirror folder::

    PATH/_mirror.json             marker: format, schema version, source, syncs
    PATH/.lock                    flock held by the running sync
    PATH/companies/               a Delta table (data files and _delta_log/)
    PATH/investors/
    PATH/deals/
    PATH/public/current/          Family A snapshots (snapshot_public), when used
    PATH/public/time_series/
    PATH/_staging/<sync>/         rows of a sync in progress (never read by readers)

A sync writes the pages it reads under ``_staging`` as they arrive, so memory
holds about a row group, and a 16-byte key per row read (:mod:`.ids`), whatever
the number of rows; the commit then streams the
staged rows into the entity's Delta table in one atomic commit (:mod:`.commit`).
A crash before that commit leaves the table at its previous version; the next
sync deletes the staging folder and reads again from the old checkpoint
(upserts are idempotent).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .absent import is_tombstone
from .durable import atomic_write, fsync_dir, fsync_file, private_dirs
from .folders import log_lost
from .ids import KeyIndex, id_keys, latest_reads
from .schema import ABSENT, arrow_schema, fields_of, to_arrow

__all__ = [
    "KEY",
    "MOVING_IN",
    "ROWS_PER_FILE",
    "ROW_GROUP_ROWS",
    "STAGING",
    "Part",
    "PartWriter",
    "StagedRows",
    "batches",
    "cleared_on_failure",
    "moved_in",
    "note_moving_in",
    "parquet_options",
    "recover",
    "set_crash_hook",
    "staged_at",
    "staged_tables",
    "step",
]

#: Rows per staged Parquet file (files are rolled at this size).
ROWS_PER_FILE = 250_000
#: Rows per row group (the unit of buffering while writing).
ROW_GROUP_ROWS = 16_384
STAGING = "_staging"
#: Snappy: the Delta and Spark default (every reader has it), and faster to write and read than
#: zstd; the files are about a third larger.
COMPRESSION = "snappy"
#: The key column of the entities' tables: one value per row.
KEY = "id"
#: In an entity's staging folder: the names of the data files a first sync (or a rebuild) is
#: about to move into the table folder, one a line, written before the first is moved.
MOVING_IN = "moving-in.txt"

_HOOK: Callable[[str], None] | None = None


def parquet_options(schema: pa.Schema, key: str | None = KEY) -> dict[str, Any]:
    """How the mirror's Parquet files encode each column (``pq.write_table`` keywords).

    Dictionary encoding for the string columns, whose values repeat (categories, countries,
    a deal's target); plain for numbers and timestamps, mostly distinct (smaller and faster
    so), and for ``key``, distinct by definition, which is not compressed either (random ids
    do not compress: snappy saved 7% of its bytes for a fifth of the write time, measured).
    Everything else is snappy (:data:`COMPRESSION`). Plain Parquet: every reader reads it.

    Examples
    --------
    >>> import pyarrow as pa
    >>> opts = parquet_options(pa.schema({"id": pa.string(), "name": pa.string(), "n": pa.int64()}))
    >>> opts["use_dictionary"], opts["compression"]["id"]
    (['name'], 'none')
    """
    strings = [f.name for f in schema if f.name != key and pa.types.is_string(f.type)]
    codecs = {f.name: "none" if f.name == key else COMPRESSION for f in schema}
    return {"compression": codecs, "use_dictionary": strings}


def set_crash_hook(hook: Callable[[str], None] | None) -> None:
    """Call ``hook(step)`` at every durable step of a sync (tests kill the process there)."""
    global _HOOK
    _HOOK = hook


def step(name: str) -> None:
    """A durable step was reached (the crash hook, when set, runs here).

    Examples
    --------
    >>> step("committed")  # no hook set: nothing happens
    """
    if _HOOK is not None:
        _HOOK(name)


@dataclass
class Part:
    """A Parquet file written by :class:`PartWriter`: its path, rows and deleted rows."""

    path: Path
    rows: int = 0
    deleted: int = 0


class PartWriter:
    """Tables in, rolling snappy Parquet files out (``prefix-NNN.parquet`` in ``folder``).

    Rows are buffered up to a row group, so memory stays bounded by
    ``row_group_rows`` whatever the number of rows written.
    """

    def __init__(
        self,
        folder: Path,
        entity: str,
        prefix: str,
        *,
        rows_per_file: int = ROWS_PER_FILE,
        row_group_rows: int = ROW_GROUP_ROWS,
    ) -> None:
        self.folder, self.prefix = folder, prefix
        self.schema = arrow_schema(entity)
        self.rows_per_file, self.row_group_rows = rows_per_file, row_group_rows
        self.parts: list[Part] = []
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
        """Rows that fit in the current row group and file (row groups of exactly
        ``row_group_rows``, so their statistics stay narrow)."""
        current = self.parts[-1].rows if self._writer is not None else 0
        return max(1, min(self.rows_per_file - current, self.row_group_rows) - self._buffered)

    def _file_full(self) -> bool:
        current = self.parts[-1].rows if self._writer is not None else 0
        return current + self._buffered >= self.rows_per_file

    def _flush(self) -> None:
        if not self._buffered:
            return
        if self._writer is None:
            part = Part(self.folder / f"{self.prefix}-{len(self.parts):03d}.parquet")
            self.parts.append(part)
            self._writer = pq.ParquetWriter(part.path, self.schema, **parquet_options(self.schema))
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
            step("staged-file")

    def take_buffer(self) -> pa.Table | None:
        """The rows written so far, when they are all still in memory (no file started): they
        are handed over instead of written; None once a file exists."""
        if self.parts or not self._buffered:
            return None
        table = pa.concat_tables(self._buffer)
        self._buffer, self._buffered = [], 0
        return table

    def close(self) -> list[Part]:
        """Write what is buffered, close and fsync every file; return the parts."""
        self._flush()
        self._close_file()
        if self.parts:
            fsync_dir(self.folder)
        return self.parts


@dataclass
class StagedRows:
    """The rows one sync pulled for an entity, written as they arrive.

    A pull smaller than a row group never reaches a staged file: :meth:`close`
    leaves it in ``pending`` (in memory), and the commit writes it once.

    Keeps the key of each read (16 bytes, :mod:`.ids`), not its id's text, so that memory
    holds a row group and 16 bytes a row whatever the size of the table; :meth:`close` finds
    the ids the feed returned twice (they changed while pages were read), of which only the
    later read is committed (:meth:`keep_mask`); and, with ``reread_until`` (the previous
    checkpoint), notes the ids whose latest read is stamped at or before it: re-reads of the
    overlap (an incremental sync's, as text).

    Rows lacking documented fields (absent from their items, not null: the feed frame's
    :data:`~dealframe.mirror.schema.ABSENT` column) are kept apart by what the feed says of
    them (:mod:`.absent`): in ``absent``, the columns each id's latest read lacked when it is
    marked deleted and holds no more of its fields than it lacks (a tombstone, :func:`.absent.is_tombstone`: the
    commit fills them from the most recent read that held them), with, in ``earlier``, the
    position of this sync's earlier read of that id when there is one (else the table's row
    is that read); in ``nulled``, the columns any other row lacked (live, or marked deleted
    holding more: written null, a service that leaves nulls out).
    """

    folder: Path
    entity: str
    prefix: str
    rows_per_file: int = ROWS_PER_FILE
    reread_until: pd.Timestamp | None = None
    reread: set[str] = field(default_factory=set)
    absent: dict[str, tuple[str, ...]] = field(default_factory=dict)
    earlier: dict[str, int] = field(default_factory=dict)
    nulled: dict[str, tuple[str, ...]] = field(default_factory=dict)
    said: list[str] = field(default_factory=list)  # what the commit did with them
    position: int = 0
    duplicates: bool = False
    distinct: int = 0  # ids read (each once), known once closed
    pending: pa.Table | None = None
    _writer: PartWriter | None = None
    _keys: list[np.ndarray] = field(default_factory=list)  # of every read, in order
    _index: KeyIndex | None = None  # the keys by id, once a frame lacking fields needs them
    _keep: np.ndarray | None = None  # the reads holding their id's latest, when not all
    _others: int = 0  # the table's documented fields besides id, deleted and updated_at

    def __post_init__(self) -> None:
        private_dirs(self.folder)
        names = arrow_schema(self.entity).names
        self._others = len(fields_of(self.entity, set(names) - {"id", "deleted", "updated_at"}))
        self._writer = PartWriter(
            self.folder, self.entity, self.prefix, rows_per_file=self.rows_per_file
        )

    def add(self, frame: pd.DataFrame) -> None:
        """Stage the rows of one feed frame."""
        if not len(frame):
            return
        ids = frame["id"].tolist()
        keys = id_keys(ids)
        marked = ABSENT in frame.columns
        previous: list[int | None] = []
        if marked:  # this sync's latest read of each id before this frame, when there is one
            previous = [None if p < 0 else p for p in self._indexed().last(keys).tolist()]
        positions = np.arange(self.position, self.position + len(ids), dtype=np.int64)
        self._keys.append(keys)
        if self._index is not None:
            self._index.add(keys, positions)
        self.position += len(ids)
        if self.reread_until is not None:  # ids whose latest read may be an unchanged re-read
            old = (frame["updated_at"] <= self.reread_until).to_numpy()
            for ident, is_old in zip(ids, old.tolist()):
                (self.reread.add if is_old else self.reread.discard)(ident)
        if marked:
            self._mark(ids, frame[ABSENT].tolist(), frame["deleted"].eq(True).tolist(), previous)
        elif self.absent or self.nulled:  # read whole now: the latest read of each id says
            for ident in ids:
                self._forget(ident)
        assert self._writer is not None
        self._writer.write(to_arrow(frame, self.entity))

    def _indexed(self) -> KeyIndex:
        """The keys read so far, by id (built when first needed, then kept up to date)."""
        if self._index is None:
            self._index = KeyIndex()
            if self._keys:
                keys = np.concatenate(self._keys)
                self._index.add(keys, np.arange(len(keys), dtype=np.int64))
        return self._index

    def _forget(self, ident: str) -> None:
        self.absent.pop(ident, None)
        self.earlier.pop(ident, None)
        self.nulled.pop(ident, None)

    def _mark(
        self, ids: list[str], marks: list[Any], gone: list[Any], previous: list[int | None]
    ) -> None:
        """Note the columns each row lacked: a tombstone's (marked deleted) to fill, from this
        sync's earlier read of its id when there is one (a tombstone read after a tombstone
        keeps the earlier one's source), a live row's to write null."""
        for ident, lacked, deleted, before in zip(ids, marks, gone, previous):
            lacks = isinstance(lacked, tuple) and bool(lacked)
            tombstone = (
                deleted is True
                and lacks
                and is_tombstone(len(fields_of(self.entity, lacked)), self._others)
            )
            source = self.earlier.get(ident) if ident in self.absent else before
            self._forget(ident)
            if tombstone:
                self.absent[ident] = lacked
                if source is not None:
                    self.earlier[ident] = source
            elif lacks:
                self.nulled[ident] = lacked

    def records(self) -> int:
        """How many records (distinct ids) the rows staged so far hold: each once, however
        often it was read (what :attr:`distinct` says once closed, counted the same way:
        :func:`~dealframe.mirror.ids.latest_reads` marks one read of each id).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     staged = StagedRows(pathlib.Path(tmp) / "s", "investors", "part")
        ...     staged._keys.append(id_keys(["a", "b", "a"]))
        ...     staged.records()
        2
        """
        return self._latest()[2]

    def _latest(self) -> tuple[np.ndarray, np.ndarray | None, int]:
        """The keys of the rows staged so far, in order; the mask of each id's latest read
        (None when no id was read twice: every row is); how many records (distinct ids)."""
        keys = np.concatenate(self._keys) if self._keys else np.empty((0, 2), np.uint64)
        keep = latest_reads(keys)
        return keys, keep, len(keys) if keep is None else int(keep.sum())

    def close(self) -> list[Part]:
        """The staged files (fsynced); rows never flushed to one stay in ``pending``."""
        assert self._writer is not None
        self.pending = self._writer.take_buffer()
        parts = self._writer.close()
        keys, self._keep, self.distinct = self._latest()
        self._keys, self._index = [keys], None
        self.duplicates = self._keep is not None
        return parts

    def keep_mask(self, start: int, count: int) -> np.ndarray:
        """Rows (at positions ``start`` to ``start + count``) that hold their id's latest
        version (after :meth:`close`)."""
        if self._keep is None:
            return np.ones(count, dtype=bool)
        return self._keep[start : start + count]


def batches(path: Path, batch_rows: int = ROW_GROUP_ROWS) -> Iterator[pa.Table]:
    """The rows of a Parquet file, ``batch_rows`` at a time (memory bounded by a batch).

    Examples
    --------
    >>> sum(t.num_rows for t in batches(path))  # doctest: +SKIP
    """
    with pq.ParquetFile(path) as f:
        for batch in f.iter_batches(batch_size=batch_rows):
            yield pa.Table.from_batches([batch])


def staged_tables(staged: StagedRows, parts: list[Part]) -> Iterator[pa.Table]:
    """The staged rows holding their id's latest read (files, then ``pending``).

    Examples
    --------
    >>> parts = staged.close(); rows = pa.concat_tables(staged_tables(staged, parts))  # doctest: +SKIP
    """
    start = 0
    tables = (t for part in parts for t in batches(part.path))
    pending = [staged.pending] if staged.pending is not None else []
    for table in itertools.chain(tables, pending):
        if staged.duplicates:
            mask = staged.keep_mask(start, table.num_rows)
            start += table.num_rows
            table = table.filter(pa.array(mask))
        yield table


def staged_at(staged: StagedRows, parts: list[Part], positions: list[int]) -> pa.Table | None:
    """The staged rows at ``positions`` (in the order they were read, every read counted),
    whatever later reads of their ids; None when there are none. Reads the staged files once.

    Examples
    --------
    >>> staged_at(staged, staged.close(), [0, 5])  # doctest: +SKIP
    """
    wanted = np.unique(np.asarray(positions, dtype=np.int64))
    if not len(wanted):
        return None
    found, start = [], 0
    pending = [staged.pending] if staged.pending is not None else []
    for table in itertools.chain((t for p in parts for t in batches(p.path)), pending):
        lo, hi = np.searchsorted(wanted, [start, start + table.num_rows])
        if hi > lo:
            found.append(table.take(pa.array(wanted[lo:hi] - start)))
        start += table.num_rows
        if start > wanted[-1]:
            break
    return pa.concat_tables(found) if found else None


def note_moving_in(staging: Path, names: list[str]) -> None:
    """Record, durably and before any is moved, the ``names`` of the data files a first sync
    (or a rebuild) moves from its ``staging`` folder into the table folder (:data:`MOVING_IN`):
    the files :func:`recover` may delete when that sync dies before the table's log names them.

    Examples
    --------
    >>> import tempfile
    >>> staging = Path(tempfile.mkdtemp())
    >>> (staging / "000001" / "investors").mkdir(parents=True)
    >>> note_moving_in(staging / "000001" / "investors", ["part-00000-a-c000.snappy.parquet"])
    >>> _moving_in(staging, "investors")
    {'part-00000-a-c000.snappy.parquet'}
    """
    atomic_write(staging / MOVING_IN, "".join(f"{name}\n" for name in names).encode())


def moved_in(staging: Path) -> None:
    """Forget, durably, the listing :func:`note_moving_in` wrote in ``staging``: the files it
    names are committed, table data that :func:`recover` must never delete.

    Examples
    --------
    >>> import tempfile
    >>> staging = Path(tempfile.mkdtemp()) / "000001" / "investors"
    >>> staging.mkdir(parents=True)
    >>> note_moving_in(staging, ["part-00000-a-c000.snappy.parquet"])
    >>> moved_in(staging)
    >>> _moving_in(staging.parent.parent, "investors")
    set()
    """
    (staging / MOVING_IN).unlink(missing_ok=True)
    fsync_dir(staging)


def _moving_in(staging: Path, entity: str) -> set[str]:
    """The data file names any sync under ``staging`` noted it was moving into ``entity``'s
    table folder (:func:`note_moving_in`); plain file names only."""
    names: set[str] = set()
    for noted in staging.glob(f"*/{entity}/{MOVING_IN}"):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            names.update(
                n
                for n in noted.read_text().splitlines()
                if n.endswith(".parquet") and Path(n).name == n
            )
    return names


def recover(root: Path) -> list[Path]:
    """Delete what an interrupted sync left outside the tables: its staging folder and
    temporary marker files; and the data files a first sync of an entity (or a rebuild)
    moved into the entity's table folder before it could write the table's log: in a folder
    holding data files and no Delta log, the files that sync listed in its staging
    (:func:`note_moving_in`) before moving them, and only those. Any other data file of a
    folder without a log is a table whose log was lost
    (:func:`~dealframe.mirror.folders.log_lost`), left to the sync to set aside (with a
    :class:`~dealframe.mirror.MirrorRepairWarning`), whatever staging is left: an
    incremental sync killed there lists no files. (Data files a dead commit wrote into a table
    are never read, since no log entry names them; ``compact`` deletes them.)

    Returns
    -------
    list of Path
        The files removed.
    """
    removed: list[Path] = []
    staging = root / STAGING
    for entity in sorted({p.name for p in staging.glob("*/*") if p.is_dir()}):
        folder = root / entity
        if log_lost(folder) is None:
            continue
        # an interrupted first sync (or rebuild): nothing of it committed
        listed = _moving_in(staging, entity)
        files = [f for f in sorted(folder.glob("*.parquet")) if f.name in listed]
        for file in files:
            file.unlink()
        removed += files
        if files:
            fsync_dir(folder)
    if staging.exists():
        removed += [p for p in staging.rglob("*") if p.is_file()]
        shutil.rmtree(staging)
    for p in root.glob("._mirror.json.tmp-*"):
        p.unlink()
        removed.append(p)
    if removed:
        fsync_dir(root)
    return removed


@contextlib.contextmanager
def cleared_on_failure(root: Path) -> Iterator[None]:
    """Within it, a block that raises leaves no staging folder behind (:func:`recover`): the
    staging of a failed sync is deleted as it fails, under its lock, rather than by the next
    sync. Best effort: what cannot be deleted now (a disk gone read-only), the next sync
    deletes; a process killed (``kill -9``) leaves it to the next sync too.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     try:
    ...         with cleared_on_failure(Path(tmp)):
    ...             (Path(tmp) / STAGING / "000001").mkdir(parents=True)
    ...             raise ConnectionError("the service is down")
    ...     except ConnectionError:
    ...         pass
    ...     left = (Path(tmp) / STAGING).exists()
    >>> left
    False
    """
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            recover(root)
        raise
