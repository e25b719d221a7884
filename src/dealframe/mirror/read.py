"""Reading a mirror: ``load`` (typed frames like the client's), ``files`` and ``status``.

Readers take no lock: they read the committed file list from the state file,
which a sync replaces atomically. A sync deletes replaced files only after its
commit, so a reader that raced it simply reads the list again. ``load`` merges
the base and the deltas: the newest generation holding an id wins (:mod:`.merge`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import ValidationError
from .errors import MirrorStateError
from .merge import newest_wins
from .schema import ENTITIES, arrow_schema, to_frame
from .state import FileEntry, MirrorState, read_state
from .sync import _ALIASES, open_folder

__all__ = ["files", "load", "status"]

_RETRIES = 3


def _entity(entity: str) -> str:
    name = _ALIASES.get(entity, entity)
    if name not in ENTITIES:
        raise ValidationError("entity", f"one of {', '.join(ENTITIES)}", got=entity)
    return name


def _state(path: str | Path) -> tuple[Path, MirrorState]:
    root = open_folder(path, create=False)
    state = read_state(root)
    if state is None:
        raise MirrorStateError(f"there is no mirror at {root} yet; run a sync first")
    return root, state


def _entries(path: str | Path, entity: str) -> tuple[Path, list[FileEntry]]:
    root, state = _state(path)
    es = state.entities.get(entity)
    return root / entity, sorted(es.files, key=lambda f: f.generation) if es else []


def files(path: str | Path, entity: str) -> list[Path]:
    """The committed Parquet files of ``entity``, oldest generation first.

    An id may be in several files (a base and deltas): its row in the last of
    them is the current one. Names sort in this order, so a query engine can
    merge by file name (docs/mirror.md gives the DuckDB, polars and Spark queries).

    Examples
    --------
    >>> import duckdb  # doctest: +SKIP
    >>> duckdb.sql(f"SELECT * FROM read_parquet({[str(p) for p in files('mirror', 'deals')]!r}, "
    ...            "filename = true) QUALIFY row_number() OVER (PARTITION BY id "
    ...            "ORDER BY filename DESC) = 1")  # doctest: +SKIP
    """
    entity = _entity(entity)
    folder, entries = _entries(path, entity)
    return [folder / f.name for f in entries]


def _read(folder: Path, entries: list[FileEntry], schema: pa.Schema) -> pa.Table:
    groups: dict[int, list[pa.Table]] = {}
    for f in entries:
        groups.setdefault(f.generation, []).append(pq.read_table(folder / f.name, schema=schema))
    tables = newest_wins([groups[g] for g in sorted(groups)])
    return pa.concat_tables(tables) if tables else schema.empty_table()


def load(path: str | Path, entity: str, include_deleted: bool = False,
         columns: list[str] | None = None) -> pd.DataFrame:
    """The mirrored rows of ``entity`` as the client's typed frame.

    Parameters
    ----------
    path : str or Path
        The mirror folder.
    entity : {"companies", "investors", "deals"}
    include_deleted : bool, default False
        Also return soft-deleted rows (``deleted`` True).

    Returns
    -------
    pandas.DataFrame
        The columns and dtypes of ``client.private.<entity>(...)``; one row per id, at its
        newest version.

    Examples
    --------
    >>> deals = dealframe.mirror.load("mirror", "deals")  # doctest: +SKIP
    >>> deals["deleted"].any()  # doctest: +SKIP
    False
    """
    entity = _entity(entity)
    if not isinstance(include_deleted, bool):
        raise ValidationError("include_deleted", "True or False", got=include_deleted)
    schema = arrow_schema(entity)
    for attempt in range(_RETRIES):
        folder, entries = _entries(path, entity)
        try:
            table = _read(folder, entries, schema)
            break
        except FileNotFoundError:
            if attempt == _RETRIES - 1:
                raise MirrorStateError(
                    f"a file the mirror at {path} lists is missing; run a sync to repair it "
                    "(or sync into a new folder)") from None
    if not include_deleted:
        table = table.filter(pc.invert(table.column("deleted")))
    frame = to_frame(table, entity)
    return frame[columns] if columns is not None else frame


def status(path: str | Path) -> pd.DataFrame:
    """Per entity: records (unique ids: live and deleted), rows stored, files, bytes, checkpoint.

    ``rows`` counts ids; ``stored_rows`` counts the rows in the files, where the
    deltas may hold newer versions of ids also in the base (``delta_files``).

    Examples
    --------
    >>> dealframe.mirror.status("mirror")  # doctest: +SKIP
    """
    root, state = _state(path)
    rows = []
    for entity in ENTITIES:
        es = state.entities.get(entity)
        if es is None:
            continue
        rows.append({"entity": entity, "rows": es.rows, "live": es.rows - es.deleted,
                     "deleted": es.deleted, "stored_rows": es.stored_rows, "files": len(es.files),
                     "delta_files": len(es.deltas), "bytes": sum(f.bytes for f in es.files),
                     "checkpoint": es.checkpoint, "last_sync": es.last_sync})
    frame = pd.DataFrame(rows, columns=["entity", "rows", "live", "deleted", "stored_rows", "files",
                                        "delta_files", "bytes", "checkpoint", "last_sync"])
    frame.attrs.update({"path": str(root), "schema_version": state.schema_version,
                        "syncs": state.syncs, "generation": state.generation,
                        "source": state.source})
    return frame
