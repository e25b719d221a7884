"""One Delta table of the mirror: open it, check it, read its dealframe commit info, commit to it.

Every commit the mirror makes carries its own metadata in the Delta log (custom
commit metadata, :data:`KEYS`): the change-feed checkpoint, the sync it belongs
to, what kind of commit it is and how many rows it received and wrote. A commit
is atomic (delta-rs writes the data files first, then the log entry naming them,
with put-if-absent), so the checkpoint never moves ahead of data on disk, and a
crash leaves the table at its previous version or at the new one.

Every foreign exception of delta-rs, Arrow or the operating system is translated
here into a :mod:`dealframe.mirror.errors` error that says what to do.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from deltalake import CommitProperties, DeltaTable, Schema, WriterProperties, write_deltalake
from deltalake.exceptions import DeltaError
from deltalake.transaction import AddAction, RemoveAction, create_table_with_add_actions

from .durable import fsync_dir, fsync_file, private_dirs
from .errors import MirrorDamagedError, MirrorWriteError
from .folders import is_table, log_lost
from .schema import SCHEMA_VERSION, schema_problem
from .store import ROW_GROUP_ROWS, note_moving_in, parquet_options

if TYPE_CHECKING:
    from .ahead import StoredRows

__all__ = [
    "IN_LIST_MAX",
    "IN_MEMORY_MAX_ROWS",
    "KEYS",
    "ROW_GROUP_ROWS",
    "SYNC_OPERATIONS",
    "CommitInfo",
    "add_files",
    "check",
    "commit_files",
    "commit_properties",
    "damage",
    "data_files",
    "foreign_change",
    "foreign_properties",
    "foreign_rows",
    "dataset",
    "full_disk",
    "guard_write",
    "history_rows",
    "is_table",
    "last_info",
    "log_lost",
    "open_table",
    "owner_only",
    "read_failure",
    "memory_pool",
    "read_rows",
    "replace_rows",
    "row_count",
    "sql_in",
    "upsert_rows",
    "write_rows",
    "writer_properties",
]

#: The custom commit metadata the mirror writes with every commit.
KEYS = {
    "checkpoint": "dealframe.checkpoint",
    "sync": "dealframe.sync",
    "operation": "dealframe.operation",
    "received": "dealframe.rows_received",
    "written": "dealframe.rows_written",
    "schema": "dealframe.schema_version",
    "reason": "dealframe.reason",
    "oldest_kept": "dealframe.oldest_kept",
    "read_version": "dealframe.read_version",
}
#: The operations of commits that bring a table up to date with the service.
SYNC_OPERATIONS = ("full", "sync", "repair", "migrate")
#: Most keys an upsert replaces through a ``key IN (...)`` predicate (more: a streamed rewrite).
IN_LIST_MAX = 5_000
#: Tables up to this many rows are upserted in memory (read, filtered, written in one go).
IN_MEMORY_MAX_ROWS = 250_000
#: Rows per file (and per writer thread) when an in-memory upsert rewrites a table.
ROWS_PER_WRITER = 25_000
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FULL_DISK = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}
_FULL_DISK_TEXT = (
    "no space left",
    "disk quota",
    "file too large",
    "read-only file system",
    "os error 28",
    "os error 27",
    "os error 122",
    "os error 30",
)


@dataclass(frozen=True)
class CommitInfo:
    """The mirror's metadata of one commit (see :data:`KEYS`)."""

    version: int
    timestamp: pd.Timestamp
    operation: str
    checkpoint: str | None
    sync: int | None
    rows_received: int | None
    rows_written: int | None
    reason: str | None
    oldest_kept: int | None
    #: The table's version the commit's sync read (and wrote over): another writer's commits
    #: after it and before this one are not in what the sync wrote (None: not recorded).
    read_version: int | None = None


def writer_properties() -> WriterProperties:
    """Snappy (see :data:`.store.COMPRESSION`), row groups of :data:`ROW_GROUP_ROWS` rows."""
    return WriterProperties(compression="SNAPPY", max_row_group_size=ROW_GROUP_ROWS)


def commit_properties(
    operation: str,
    *,
    checkpoint: str | None,
    sync: int | None,
    received: int | None = None,
    written: int | None = None,
    reason: str | None = None,
    oldest_kept: int | None = None,
    read_version: int | None = None,
) -> CommitProperties:
    """The commit metadata of one mirror commit.

    Examples
    --------
    >>> commit_properties("sync", checkpoint="2026-01-01T00:00:00+00:00", sync=3).custom_metadata[
    ...     "dealframe.checkpoint"]
    '2026-01-01T00:00:00+00:00'
    """
    meta: dict[str, Any] = {
        KEYS["operation"]: operation,
        KEYS["checkpoint"]: checkpoint or "",
        KEYS["schema"]: str(SCHEMA_VERSION),
    }
    for key, value in (
        ("sync", sync),
        ("received", received),
        ("written", written),
        ("oldest_kept", oldest_kept),
        ("read_version", read_version),
    ):
        if value is not None:
            meta[KEYS[key]] = str(value)
    if reason:
        meta[KEYS["reason"]] = reason
    return CommitProperties(custom_metadata=meta)


def full_disk(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk refused a write."""
    if isinstance(exc, OSError) and exc.errno in _FULL_DISK:
        return True
    text = str(exc).lower()
    return any(t in text for t in _FULL_DISK_TEXT)


@contextlib.contextmanager
def guard_write(root: Any) -> Iterator[None]:
    """Turn a refused write (full disk, quota, read-only, too large) into :class:`MirrorWriteError`.

    Other errors pass through.
    """
    try:
        yield
    except (OSError, DeltaError, pa.ArrowException) as exc:
        if not full_disk(exc):
            raise
        raise MirrorWriteError(
            f"the disk refused a write to the mirror at {root} ({_short(exc)}); free space (or "
            "make the folder writable) and run the sync again: every table is still at its "
            "previous version, and the next sync reads again from its checkpoint"
        ) from None


def _short(exc: BaseException) -> str:
    text = " ".join(_ANSI.sub("", str(exc)).replace("↳", "").split())
    return text[:300] + ("..." if len(text) > 300 else "")


def damage(folder: Path, what: str, *, rebuilt: str | None = None) -> MirrorDamagedError:
    """The error for a damaged table, with the repair that works for it: a sync rebuilds an
    entity's table (``rebuilt``: how a plain sync does it, when no ``--repair`` is needed);
    a Family A table (``public/...``) holds snapshots the service no longer has, so it is
    restored or started anew."""
    if folder.parent.name == "public":
        return MirrorDamagedError(
            f"the research store's table at {folder} is damaged: {what}. A sync does not "
            "rebuild it (the service keeps no past snapshots): restore the file from a "
            "backup, or move the folder aside and run dealframe.mirror.snapshot_public "
            f"(`dealframe mirror snapshot-public {folder.parent.parent}`) again, which starts "
            "the table anew"
        )
    root = folder.parent
    if rebuilt is not None:
        return MirrorDamagedError(
            f"the mirror's table at {folder} is damaged: {what}. The next `dealframe mirror "
            f"sync {root}` (or dealframe.mirror.sync(client, path)) {rebuilt}"
        )
    return MirrorDamagedError(
        f"the mirror's table at {folder} is damaged: {what}. Run `dealframe mirror sync {root} "
        "--repair` (or dealframe.mirror.sync(client, path, repair=True)) to rebuild it from the "
        "service"
    )


def read_failure(folder: Path, exc: BaseException) -> MirrorDamagedError:
    """A read of the table failed: a missing or corrupt data file, or a damaged log."""
    if isinstance(exc, FileNotFoundError) or (
        # not Parquet's "magic bytes not found": a file that is there, with garbage in it
        not isinstance(exc, pa.ArrowInvalid) and "not found" in str(exc).lower()
    ):
        return damage(folder, f"a data file it lists is missing ({_short(exc)})")
    return damage(folder, f"a file cannot be read ({type(exc).__name__}: {_short(exc)})")


def open_table(folder: Path, version: int | None = None) -> DeltaTable:
    """The Delta table in ``folder`` (at ``version``).

    Raises
    ------
    MirrorDamagedError
        The log cannot be read.
    """
    try:
        return DeltaTable(str(folder), version=version)
    except (DeltaError, OSError, ValueError, pa.ArrowException) as exc:
        raise damage(folder, f"its Delta log cannot be read ({_short(exc)})") from None


def _info(entry: dict[str, Any]) -> CommitInfo:
    def number(key: str) -> int | None:
        value = entry.get(KEYS[key])
        try:
            return int(value) if value not in (None, "") else None
        except (TypeError, ValueError):
            return None

    op = entry.get(KEYS["operation"]) or str(entry.get("operation", "")).lower()
    return CommitInfo(
        int(entry.get("version", -1)),
        pd.Timestamp(int(entry.get("timestamp", 0)), unit="ms", tz="UTC"),
        str(op),
        entry.get(KEYS["checkpoint"]) or None,
        number("sync"),
        number("received"),
        number("written"),
        entry.get(KEYS["reason"]) or None,
        number("oldest_kept"),
        number("read_version"),
    )


def history_rows(table: DeltaTable, limit: int | None = None) -> list[tuple[CommitInfo, dict]]:
    """The table's commits, newest first: the mirror's metadata and Delta's own entry.

    Raises
    ------
    MirrorDamagedError
        The table has a version but deltalake lists no commit (a log it cannot list, e.g. at
        a path it reads as a URL with a fragment): never read as "no checkpoint", which would
        make every sync a full pull.
    """
    entries = table.history(limit)
    if not entries and table.version() >= 0 and (limit is None or limit > 0):
        folder = Path(unquote(urlsplit(table.table_uri).path))
        raise damage(folder, f"deltalake lists no commit of its version {table.version()}")
    return [(_info(e), e) for e in entries]


def last_info(table: DeltaTable, operations: tuple[str, ...] | None = None) -> CommitInfo | None:
    """The newest commit that carries the mirror's metadata (its checkpoint), of one of
    ``operations`` when given, or None (the log holds none).

    It looks back as far as it must: other writers' commits that change no row (property
    changes, their own optimize or vacuum) may stand between the table's version and the
    mirror's last commit, any number of them; only a log without such a commit (or whose
    older entries Delta's log cleanup removed) gives None.
    """
    limit = 1  # the newest commit is the mirror's, as a rule
    while True:
        rows = history_rows(table, limit)
        for info, entry in rows:
            if KEYS["checkpoint"] in entry and (operations is None or info.operation in operations):
                return info
        if len(rows) < limit:  # the whole log was read
            return None
        limit *= 10  # 10, 100, ... commits back, until the log's first


#: Delta operations that change no row (the files' layout, the table's properties, its log):
#: a commit of one by another writer leaves the table as the mirror synced it.
_NO_ROW_CHANGE = frozenset(
    {
        "OPTIMIZE",
        "VACUUM START",
        "VACUUM END",
        "SET TBLPROPERTIES",
        "UNSET TBLPROPERTIES",
        "ADD CONSTRAINT",
        "DROP CONSTRAINT",
        "UPGRADE PROTOCOL",
        "ADD FEATURE",
        "CHECKPOINT",
        "CREATE CHECKPOINT",
        "UPDATE TABLE METADATA",
        "UPDATE FIELD METADATA",  # a column's comment (deltalake's set_column_metadata)
        "CHANGE COLUMN",  # Spark's ALTER COLUMN ... COMMENT
    }
)


#: What another writer's operation does to the mirror's rows, said in ``foreign_change``.
_WHAT_IT_DID = {
    "DELETE": "rows it deleted would never come back",
    "WRITE": "rows it appended would stay as duplicates of their ids",
    "WRITE OVERWRITE": "rows it dropped would never come back, and rows it wrote would stay",
    "STREAMING UPDATE": "rows it appended would stay as duplicates of their ids",
    "UPDATE": "values it changed would stay until the service changes those records again",
    "MERGE": "rows it inserted, changed or deleted would stay so",
    "RESTORE": "the rows of the version it restored would stay, each record's later changes "
    "lost until the service changes it again",
}


def foreign_change(table: DeltaTable, since: int) -> str | None:
    """What another writer changed in the table after version ``since``, in words, or None:
    the oldest later commit without the mirror's metadata (:data:`KEYS`; the mirror's own
    commits, its compactions too, carry it) whose operation may change rows (a ``DELETE``,
    ``UPDATE``, ``MERGE``, ``WRITE``, ``RESTORE``...; not an ``OPTIMIZE``, ``VACUUM`` or
    property change). The change feed from the mirror's checkpoint would not undo it: rows
    deleted there never come back, rows appended there stay as duplicates (said by operation).

    ``since`` is the version the mirror's last sync that wrote rows (:data:`SYNC_OPERATIONS`)
    read (:attr:`CommitInfo.read_version`), or that sync's own version when it recorded none:
    Delta's conflict check lets another writer's append through while a sync writes, so the
    sync's commit may land on top of such a commit.

    Examples
    --------
    >>> foreign_change(DeltaTable("mirror/deals"), 1)  # doctest: +SKIP
    'another writer changed its rows: version 2 (DELETE, committed after version 1 ...'
    """
    newer = table.version() - since
    if newer <= 0:
        return None
    for info, entry in reversed(history_rows(table, newer)):  # oldest first
        operation = str(entry.get("operation", "")).upper()
        if info.version <= since or KEYS["operation"] in entry or operation in _NO_ROW_CHANGE:
            continue
        mode = str((entry.get("operationParameters") or {}).get("mode", "")).upper()
        kind = f"{operation} {mode}" if f"{operation} {mode}" in _WHAT_IT_DID else operation
        did = _WHAT_IT_DID.get(kind, "what it changed would stay")
        return (
            f"another writer changed its rows: version {info.version} "
            f"({operation or 'an unnamed operation'}, committed after version {since}, which "
            "the mirror's last sync read, without the mirror's metadata); the change feed from "
            f"the mirror's checkpoint would not undo it ({did})"
        )
    return None


def foreign_rows(table: DeltaTable) -> str | None:
    """:func:`foreign_change` since the version the mirror's last commit that wrote rows read
    (None: no such commit, or no change by another writer since): the cheap look at the log
    that ``sync``, ``load`` and ``status`` make."""
    info = last_info(table, SYNC_OPERATIONS)
    if info is None:
        return None
    return foreign_change(table, info.version if info.read_version is None else info.read_version)


#: Table properties the mirror never sets, each with what it does to the mirror's commits.
_FOREIGN_SETTINGS = {
    "delta.appendOnly": "the table refuses every commit that replaces rows: an upsert's",
    "delta.enableChangeDataFeed": "the mirror's commits write no change files",
    "delta.enableDeletionVectors": "the mirror reads data files whole, not deletion vectors",
    "delta.columnMapping.mode": "the mirror reads data files by their column names",
    "delta.enableRowTracking": "the mirror's commits keep no row ids",
}
#: Writer features that change nothing unless a property above turns them on.
_HARMLESS_WRITER_FEATURES = frozenset(
    {"appendOnly", "invariants", "checkConstraints", "changeDataFeed"}
)


def foreign_properties(table: DeltaTable) -> str | None:
    """What another writer turned on in the table's properties or protocol that the mirror
    does not write, in words, or None.

    The mirror creates its tables with protocol 1/2, no table features and no properties. An
    append-only table refuses its upserts, a change data feed or a ``CHECK`` constraint would
    be ignored by its commits (no change files; rows breaking the constraint written), and a
    reader feature such as deletion vectors makes its reads fail: each is another writer's
    change, found before the feed is read. Harmless settings (log retention, checkpoint
    interval, ...) are not named.

    Examples
    --------
    >>> foreign_properties(DeltaTable("mirror/deals"))  # doctest: +SKIP
    "another writer turned on what the mirror does not write: delta.appendOnly = 'true' ..."
    """
    found: list[str] = []
    config = table.metadata().configuration or {}
    for key, value in sorted(config.items()):
        if key.startswith("delta.constraints."):
            found.append(
                f"the CHECK constraint {key.removeprefix('delta.constraints.')} ({value}: the "
                "mirror's commits do not enforce it)"
            )
        elif key in _FOREIGN_SETTINGS and str(value).strip().lower() not in ("false", "none"):
            found.append(f"{key} = {value!r} ({_FOREIGN_SETTINGS[key]})")
    protocol = table.protocol()
    readers = sorted(protocol.reader_features or [])
    writers = sorted(set(protocol.writer_features or []) - _HARMLESS_WRITER_FEATURES - set(readers))
    if readers:
        found.append(f"the reader feature(s) {', '.join(readers)} (the mirror reads none)")
    elif protocol.min_reader_version > 1:
        found.append(f"reader version {protocol.min_reader_version} (the mirror reads version 1)")
    if writers:
        found.append(f"the writer feature(s) {', '.join(writers)} (the mirror writes none)")
    if not found:
        return None
    return "another writer turned on what the mirror does not write: " + "; ".join(found)


def _footer_problem(folder: Path, path: str, rows: int | None, size: int | None) -> str | None:
    file = folder / path
    try:
        on_disk = file.stat().st_size
    except FileNotFoundError:
        return f"the data file {path} it lists is missing"
    if size is not None and on_disk != size:
        return f"the data file {path} has {on_disk} bytes, the log says {size}"
    try:
        meta = pq.read_metadata(file)
    except (OSError, pa.ArrowException) as exc:
        return f"the data file {path} is not readable Parquet ({_short(exc)})"
    if rows is not None and meta.num_rows != rows:
        return f"the data file {path} holds {meta.num_rows} rows, the log says {rows}"
    return None


def check(folder: Path, table: DeltaTable, entity: str | None, *, deep: bool = False) -> str | None:
    """What is wrong with the table, or None.

    Cheap checks always (every data file exists, has the size the log gives and a
    readable Parquet footer with the row count the log gives; ``entity``'s schema);
    ``deep`` also reads every row.
    """
    try:
        if entity is not None:
            problem = schema_problem(entity, pa.schema(table.schema().to_arrow()))
            if problem:
                return problem
        actions = pa.table(table.get_add_actions(flatten=True))
        paths = actions.column("path").to_pylist()
        rows = (
            actions.column("num_records").to_pylist()
            if "num_records" in actions.column_names
            else [None] * len(paths)
        )
        sizes = actions.column("size_bytes").to_pylist()
        for path, n, size in zip(paths, rows, sizes):
            problem = _footer_problem(folder, path, n, size)
            if problem:
                return problem
        if deep:
            dataset(folder, table).to_table()
    except (DeltaError, OSError, ValueError, pa.ArrowException) as exc:
        return f"it cannot be read ({type(exc).__name__}: {_short(exc)})"
    return None


def add_files(folder: Path, parts: list[tuple[Path, int]]) -> list[AddAction]:
    """Move finished Parquet files (path, rows) of a staging folder into the table folder
    under new Delta-style names; the add actions that commit them (statistics: the row
    count). The names are noted in the staging folder first (:func:`.store.note_moving_in`):
    the files :func:`.store.recover` deletes if the sync dies before its commit."""
    private_dirs(folder)
    actions: list[AddAction] = []
    names = [_part_name() for _ in parts]
    for staging in {path.parent for path, _ in parts}:
        note_moving_in(staging, names)
    for (path, rows), name in zip(parts, names):
        os.replace(path, folder / name)
        actions.append(_added(folder, name, rows))
    fsync_dir(folder)
    return actions


def _part_name() -> str:
    return f"part-00000-{uuid.uuid4()}-c000.snappy.parquet"


def _added(folder: Path, name: str, rows: int) -> AddAction:
    """The add action of the data file ``name`` in ``folder`` (statistics: the row count)."""
    stat = (folder / name).stat()
    stats = json.dumps({"numRecords": rows})
    return AddAction(name, stat.st_size, {}, int(stat.st_mtime * 1000), True, stats)


def commit_files(
    folder: Path,
    table: DeltaTable | None,
    actions: list[AddAction],
    schema: pa.Schema,
    properties: CommitProperties,
    name: str,
) -> None:
    """Commit data files already in the folder as the table's whole content: a new table,
    or an overwrite of the old one (one commit either way)."""
    delta_schema = Schema.from_arrow(schema)
    if table is None:
        create_table_with_add_actions(
            str(folder),
            delta_schema,
            actions,
            mode="error",
            name=name,
            description=f"dealframe mirror: {name}",
            commit_properties=properties,
        )
    else:
        every: list[AddAction | RemoveAction] = [*actions]
        table.create_write_transaction(
            every, mode="overwrite", schema=delta_schema, commit_properties=properties
        )


def write_rows(
    folder: Path,
    batches: Iterator[pa.RecordBatch],
    schema: pa.Schema,
    *,
    mode: str,
    properties: CommitProperties,
    name: str,
    partition_by: list[str] | None = None,
    predicate: str | None = None,
    keep_schema: bool = False,
) -> None:
    """Write batches as one commit (``mode`` "append" or "overwrite"), streaming them.

    An overwrite without a predicate replaces the schema too (a repair of a table that
    held another schema), unless ``keep_schema``.
    """
    reader = pa.RecordBatchReader.from_batches(schema, batches)
    replace = mode == "overwrite" and predicate is None and not keep_schema
    write_deltalake(
        str(folder),
        reader,
        mode=mode,  # type: ignore[call-overload]
        schema_mode="overwrite" if replace else None,
        name=name,
        description=f"dealframe mirror: {name}",
        partition_by=partition_by,
        predicate=predicate,
        writer_properties=writer_properties(),
        commit_properties=properties,
    )


def sql_in(column: str, values: list[str]) -> str:
    """A SQL ``column IN (...)`` predicate over string values (quotes doubled).

    Examples
    --------
    >>> sql_in("id", ["a", "o'b"])
    "id IN ('a', 'o''b')"
    """
    quoted = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    return f"{column} IN ({quoted})"


def _write_file(folder: Path, rows: pa.Table) -> AddAction:
    """``rows`` as a new data file of the table (written and synced), and its add action."""
    name = _part_name()
    path = folder / name
    pq.write_table(
        rows,
        path,
        row_group_size=ROW_GROUP_ROWS,
        memory_pool=memory_pool(),
        **parquet_options(rows.schema),
    )
    fsync_file(path)
    return _added(folder, name, rows.num_rows)


def memory_pool() -> pa.MemoryPool:
    """The allocator of a rewrite's big, short-lived buffers: the system's (``malloc``).

    pyarrow's default pool (mimalloc on Linux) gives each new thread fresh segments backed by
    transparent huge pages, which the kernel zeroes 2 MB at a time on first touch: on the
    threads a sync starts, that cost up to 0.3 s of system time per incremental sync of 50,000
    deals (measured, perf: ``clear_page_erms`` under ``mi_page_free_list_extend``), against
    at most about 0.09 s with ``malloc``. The pool is passed to each call; the process's default
    pool is left as it is.
    """
    return pa.system_memory_pool()


def _writers() -> int:
    """Most files an upsert writes at once: one per CPU."""
    return os.cpu_count() or 1


def _rewrite_piece(
    folder: Path, old: pa.Table, key: str, drop: pa.Array, new: pa.Table
) -> AddAction | None:
    """``old`` without the rows whose ``key`` is in ``drop``, then ``new``, as one new data
    file (None: no row is left)."""
    pool = memory_pool()
    replaced = pc.is_in(old.column(key), value_set=drop, memory_pool=pool)
    kept = pc.filter(old, pc.invert(replaced, memory_pool=pool), memory_pool=pool)
    if new.num_rows:
        kept = pa.concat_tables([kept, new]) if kept.num_rows else new
    return _write_file(folder, kept) if kept.num_rows else None


def replace_rows(
    folder: Path,
    table: DeltaTable,
    old: list[Path],
    stored: pa.Table,
    rows: pa.Table,
    key: str,
    properties: CommitProperties,
) -> None:
    """One commit that removes the data files ``old`` and adds, as new files written with
    pyarrow (a third faster than delta-rs's writer here, measured), their rows ``stored``
    whose ``key`` is not in ``rows``, and ``rows``.

    The rows are cut into one file per :data:`ROWS_PER_WRITER` rows, up to one per CPU: each is filtered, written and
    synced on a thread of its own, at once with the others (pyarrow filters and encodes
    without the GIL). The files hold about as many rows each, ``rows`` coming last."""
    drop = rows.column(key).drop_null().unique()
    size, total = stored.num_rows, stored.num_rows + rows.num_rows
    parts = max(1, min(_writers(), total // ROWS_PER_WRITER))
    step = -(-total // parts)
    cuts = [(k * step, min((k + 1) * step, total)) for k in range(parts)]
    olds = [stored.slice(a, max(0, min(b, size) - a)) for a, b in cuts]
    news = [rows.slice(max(a, size) - size, max(0, b - max(a, size))) for a, b in cuts]
    if parts == 1:
        made = [_rewrite_piece(folder, olds[0], key, drop, news[0])]
    else:
        with ThreadPoolExecutor(parts, thread_name_prefix="dealframe-mirror") as pool:
            made = list(
                pool.map(
                    _rewrite_piece, [folder] * parts, olds, [key] * parts, [drop] * parts, news
                )
            )
    adds = [a for a in made if a is not None]
    fsync_dir(folder)
    now = int(time.time() * 1000)
    actions: list[AddAction | RemoveAction] = [
        RemoveAction(str(p.relative_to(folder)), True, now, p.stat().st_size) for p in old
    ]
    actions += adds
    table.create_write_transaction(
        actions, mode="append", schema=Schema.from_arrow(rows.schema), commit_properties=properties
    )


def upsert_rows(
    folder: Path,
    table: DeltaTable,
    rows: pa.Table,
    key: str,
    properties: CommitProperties,
    name: str,
    ahead: StoredRows | None = None,
) -> None:
    """Replace the rows whose ``key`` is in ``rows`` and insert the others, as one commit.

    ``ahead``: the table's rows, being read already (:func:`.ahead.read_ahead`), for the
    in-memory upsert.

    Delta without deletion vectors (delta-rs writes none) is copy-on-write: every
    data file holding a replaced key is rewritten, and changes spread over random
    ids reach every file. So a table of up to :data:`IN_MEMORY_MAX_ROWS` rows is
    read, filtered and written back as one new file in one go (the fastest way,
    measured: :func:`replace_rows`); a larger
    one goes through Delta's replaceWhere (``key IN (...)``, up to
    :data:`IN_LIST_MAX` keys: a longer predicate is slow to plan and can overflow
    delta-rs's stack), or else is streamed into the new version batch by batch.

    Delta's MERGE would do the same, but delta-rs 1.6 writes the files it merges with
    strings as Arrow string views, which pyarrow cannot filter on (no comparison
    kernels), so DuckDB or pyarrow reading the table through a pyarrow dataset would
    fail on any ``WHERE`` over a string column; writes keep the types given.
    """
    keys = rows.column(key).drop_null().unique()
    if row_count(table) <= IN_MEMORY_MAX_ROWS:  # the whole table is rewritten: do it in Arrow
        if ahead is None:
            files = data_files(folder, table)
            old = read_rows(files, rows.schema)
        else:
            files, old = ahead.files, ahead.rows()
        replace_rows(folder, table, files, old, rows, key, properties)
        return
    if len(keys) <= IN_LIST_MAX:
        write_deltalake(
            str(folder),
            rows,
            mode="overwrite",
            predicate=sql_in(key, keys.to_pylist()),
            writer_properties=writer_properties(),
            commit_properties=properties,
        )
        return
    dataset = ds.dataset(
        [str(p) for p in data_files(folder, table)], format="parquet", schema=rows.schema
    )

    def batches() -> Iterator[pa.RecordBatch]:
        for batch in dataset.to_batches(batch_size=ROW_GROUP_ROWS):
            kept = batch.filter(pc.invert(pc.is_in(batch.column(key), value_set=keys)))
            if kept.num_rows:
                yield kept
        yield from rows.to_batches()

    write_rows(
        folder,
        batches(),
        rows.schema,
        mode="overwrite",
        properties=properties,
        name=name,
        keep_schema=True,
    )


def row_count(table: DeltaTable) -> int:
    """The rows of the table's loaded version (the log's counts)."""
    actions = pa.table(table.get_add_actions(flatten=True))
    return int(pc.sum(actions.column("num_records")).as_py() or 0)


def read_rows(files: list[Path], schema: pa.Schema) -> pa.Table:
    """Every row of the data files ``files`` as ``schema`` (delta-rs's string views read as
    strings); pyarrow reads the row groups in parallel.

    Examples
    --------
    >>> read_rows([], pa.schema({"id": pa.string()})).num_rows
    0
    """
    dataset = ds.dataset([str(p) for p in files], format="parquet", schema=schema)
    return dataset.to_table(memory_pool=memory_pool())


def dataset(folder: Path, table: DeltaTable) -> ds.Dataset:
    """The table's loaded version as a pyarrow dataset whose files Arrow opens itself.

    deltalake's own dataset reads through a Python filesystem, which Arrow's I/O threads
    call back into; one doing so while the interpreter shuts down aborts the process
    ("terminate called without an active exception", exit 134, apache/arrow#34314), after a
    read that returned its rows. The mirror is a local folder: Arrow's local filesystem
    reads it with no Python in its threads.
    """
    return table.to_pyarrow_dataset(
        filesystem=pafs.SubTreeFileSystem(str(folder.absolute()), pafs.LocalFileSystem())
    )


def data_files(folder: Path, table: DeltaTable) -> list[Path]:
    """The data files of the table's loaded version, sorted."""
    paths = pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist()
    return sorted(folder / p for p in paths)


def owner_only(folder: Path) -> None:
    """Make the table's files owner-only, like the rest of the mirror (delta-rs writes with the
    process umask; the mirror's root folder is owner-only already)."""
    for base, dirs, files in os.walk(folder):
        for name in dirs:
            _chmod(os.path.join(base, name), 0o700)
        for name in files:
            _chmod(os.path.join(base, name), 0o600)
    _chmod(str(folder), 0o700)


def _chmod(path: str, mode: int) -> None:
    with contextlib.suppress(FileNotFoundError):  # removed meanwhile (a vacuum)
        if os.stat(path).st_mode & 0o777 != mode:
            os.chmod(path, mode)
