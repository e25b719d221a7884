"""Migrating a schema-version-2 mirror (Parquet base and delta files) to Delta tables, in place.

A version-2 entity folder holds Parquet files named in ``_mirror.json``, each
with a generation; the newest generation holding an id has its current row.
The migration streams those rows (newest version of each id only) into a new
Delta table in the same folder, as version 0 with the old checkpoint in its
commit (operation ``migrate``), so the next sync goes on incrementally. Then
the marker is rewritten as version 3 (the commit point of the migration), and
only then are the old files deleted.

Version-2 files held list fields (``verticals``, ``buyers`` ...) as Arrow
``list<string>`` and ``list<struct<id, name, ...>>`` columns; version 3 holds the
frames' canonical JSON text. Each such column is written as that text by
:func:`dealframe.frames.nested.encode`, the encoder the frames use, so a migrated
table holds exactly what a fresh sync writes.

A crash before the marker is rewritten leaves a version-2 mirror whose folders
may hold a half-made Delta table: the next sync removes it and migrates again.
An entity whose old files cannot be read is not migrated (a
:class:`~dealframe.mirror.MirrorRepairWarning` says which file and what was
seen, in one line) and the sync pulls it in full.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake.exceptions import DeltaError

from ..errors import ValidationError
from ..frames.nested import encode
from .errors import MirrorRepairWarning, Said
from .schema import ENTITIES, arrow_schema, columns
from .state import MirrorState, write_state
from .store import ROW_GROUP_ROWS
from .table import commit_properties, full_disk, owner_only, write_rows

__all__ = ["migrate", "newer_ids"]


def _files(entry: dict[str, Any]) -> list[tuple[int, str]]:
    return sorted((int(f["generation"]), str(f["name"])) for f in entry.get("files") or [])


def newer_ids(ids_by_generation: list[pa.Array]) -> list[pa.Array | None]:
    """Per generation (oldest first), the ids some newer generation holds (None: none).

    Examples
    --------
    >>> out = newer_ids([pa.array(["a", "b"]), pa.array(["b"]), pa.array(["c"])])
    >>> [None if a is None else sorted(a.to_pylist()) for a in out]
    [['b', 'c'], ['c'], None]
    """
    out: list[pa.Array | None] = [None] * len(ids_by_generation)
    newer: pa.Array | None = None
    for k in range(len(ids_by_generation) - 1, -1, -1):
        out[k] = newer
        ids = ids_by_generation[k]
        newer = ids if newer is None else pc.unique(pa.concat_arrays([newer, ids]))
    return out


class _OldFileError(Exception):
    """An old file that could not be read: its name and what reading it raised."""

    def __init__(self, name: str, exc: BaseException) -> None:
        super().__init__(name, exc)
        self.name = name
        self.exc = exc

    def __str__(self) -> str:
        return f"{self.name}: {_one_line(self.exc)}"


@contextlib.contextmanager
def _reading(name: str) -> Iterator[None]:
    """Name the old file in what reading it raises."""
    try:
        yield
    except (OSError, pa.ArrowException, KeyError, ValidationError) as exc:
        raise _OldFileError(name, exc) from exc


def _as_text(table: pa.Table, entity: str) -> pa.Table:
    """``table`` with its nested columns (version 2's Arrow lists and structs) as the frames'
    canonical JSON text, written by the frames' own encoder (null stays null)."""
    for col in columns(entity):
        i = table.schema.get_field_index(col.name)
        if i < 0 or not pa.types.is_nested(table.schema.field(i).type):
            continue
        values = table.column(i).to_pylist()
        texts = encode(values, col.name, array=col.kind == "list", fields=col.fields)
        table = table.set_column(i, col.name, pa.array(texts.__arrow_array__()))
    return table


def _current_rows(
    folder: Path, files: list[tuple[int, str]], schema: pa.Schema, entity: str
) -> Iterator[pa.RecordBatch]:
    """Each id's newest row, file by file, a row group at a time, in the table's ``schema``."""
    generations = sorted({g for g, _ in files})
    ids_of: dict[int, list[pa.Array]] = {g: [] for g in generations}
    for generation, name in files:
        with _reading(name):
            ids = pq.read_table(folder / name, columns=["id"]).column("id")
            ids_of[generation].append(ids.combine_chunks().cast(pa.string()))
    ids = [pa.concat_arrays(ids_of[g] or [pa.array([], pa.string())]) for g in generations]
    newer = dict(zip(generations, newer_ids(ids)))
    for generation, name in files:
        drop = newer[generation]
        with _reading(name), pq.ParquetFile(folder / name) as f:
            for batch in f.iter_batches(batch_size=ROW_GROUP_ROWS):
                table = pa.Table.from_batches([batch]).select(schema.names)
                table = _as_text(table, entity).cast(schema)
                if drop is not None and len(drop):
                    table = table.filter(pc.invert(pc.is_in(table.column("id"), value_set=drop)))
                yield from table.to_batches()


def _recorded(
    batches: Iterator[pa.RecordBatch], seen: list[BaseException]
) -> Iterator[pa.RecordBatch]:
    """``batches``, keeping what they raised: the Delta writer that pulls them wraps it in a
    ``DeltaError`` whose text holds the whole Python traceback."""
    try:
        yield from batches
    except Exception as exc:
        seen.append(exc)
        raise


def _one_line(exc: BaseException) -> str:
    """What ``exc`` says, on one line (its first), after its type's name.

    Examples
    --------
    >>> _one_line(ValueError("bad value\\nTraceback (most recent call last): ..."))
    'ValueError: bad value'
    """
    if isinstance(exc, _OldFileError):
        return str(exc)
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _clear(folder: Path, keep: set[str]) -> None:
    """Remove what a dead migration left: its Delta log and the files it wrote."""
    shutil.rmtree(folder / "_delta_log", ignore_errors=True)
    for p in folder.glob("*.parquet"):
        if p.name not in keep:
            p.unlink()


def _migrate_entity(root: Path, entity: str, entry: dict[str, Any], syncs: int) -> str | None:
    """Migrate one entity; what to warn of when its old files cannot be read (else None)."""
    folder = root / entity
    files = _files(entry)
    _clear(folder, {n for _, n in files})
    if not files:
        return None
    schema = arrow_schema(entity)
    props = commit_properties(
        "migrate",
        checkpoint=entry.get("checkpoint"),
        sync=syncs,
        written=int(entry.get("rows") or 0),
        reason="migrated from schema version 2",
    )
    seen: list[BaseException] = []
    try:
        write_rows(
            folder,
            _recorded(_current_rows(folder, files, schema, entity), seen),
            schema,
            mode="append",
            properties=props,
            name=entity,
        )
    except (OSError, pa.ArrowException, KeyError, DeltaError, _OldFileError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError):
            if full_disk(exc):
                raise
        _clear(folder, set())
        return (
            f"the {entity} files of the version-2 mirror at {root} could not be read "
            f"({_one_line(seen[0] if seen else exc)}); the sync pulls {entity} in full instead"
        )
    owner_only(folder)
    return None


def migrate(root: Path, doc: dict[str, Any], said: Said, source: str | None) -> MirrorState:
    """Turn the version-2 mirror at ``root`` (its marker ``doc``) into Delta tables, recording
    ``source`` (the migrating sync's, checked against the old marker's by the sync first:
    version 2 recorded the base URL, not :attr:`dealframe.Client.source`).

    Called by :func:`~dealframe.mirror.sync` under the mirror's lock. An entity that cannot
    be migrated is added to ``said`` (a :class:`~dealframe.mirror.MirrorRepairWarning`),
    which the sync warns of after its loop: a warning filtered into an error (``-W error``)
    raised here stopped the migration part-way.

    Returns
    -------
    MirrorState
        The new marker (already written).
    """
    syncs = int(doc.get("syncs") or 0)
    entities = doc.get("entities") or {}
    for entity in ENTITIES:
        if isinstance(entities.get(entity), dict):
            problem = _migrate_entity(root, entity, entities[entity], syncs)
            if problem is not None:
                said.append((MirrorRepairWarning, problem))
    state = MirrorState(
        created_at=str(doc.get("created_at") or MirrorState().created_at),
        source=source,
        syncs=syncs,
    )
    write_state(root, state)  # the migration's commit point
    for entity in ENTITIES:
        entry = entities.get(entity)
        for _, name in _files(entry) if isinstance(entry, dict) else []:
            (root / entity / name).unlink(missing_ok=True)
    return state
