"""Reading a mirror: ``load`` (typed frames like the client's), ``files`` and ``status``.

Readers take no lock: they read the committed file list from the state file,
which a sync replaces atomically. A sync deletes replaced files only after its
commit, so a reader that raced it simply reads the list again.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import ValidationError
from .errors import MirrorStateError
from .schema import ENTITIES, arrow_schema, to_frame
from .state import MirrorState, read_state
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


def files(path: str | Path, entity: str) -> list[Path]:
    """The committed Parquet files of ``entity`` (what a query engine should read).

    Examples
    --------
    >>> import duckdb  # doctest: +SKIP
    >>> duckdb.read_parquet([str(p) for p in files("mirror", "deals")])  # doctest: +SKIP
    """
    entity = _entity(entity)
    root, state = _state(path)
    es = state.entities.get(entity)
    return [root / entity / f.name for f in es.files] if es else []


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
        The columns and dtypes of ``client.private.<entity>(...)``; one row per id.

    Examples
    --------
    >>> deals = dealframe.mirror.load("mirror", "deals")  # doctest: +SKIP
    >>> deals["deleted"].any()  # doctest: +SKIP
    False
    """
    entity = _entity(entity)
    if not isinstance(include_deleted, bool):
        raise ValidationError("include_deleted", "True or False", got=include_deleted)
    for attempt in range(_RETRIES):
        paths = files(path, entity)
        try:
            tables = [pq.read_table(p, schema=arrow_schema(entity)) for p in paths]
            break
        except FileNotFoundError:
            if attempt == _RETRIES - 1:
                raise MirrorStateError(
                    f"a file the mirror at {path} lists is missing; run a sync to repair it "
                    "(or sync into a new folder)") from None
    schema = arrow_schema(entity)
    table = pa.concat_tables(tables) if tables else schema.empty_table()
    if not include_deleted:
        table = table.filter(pa.compute.invert(table.column("deleted")))
    frame = to_frame(table, entity)
    return frame[columns] if columns is not None else frame


def status(path: str | Path) -> pd.DataFrame:
    """Rows per entity (live and deleted), files, bytes, checkpoint and last sync.

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
                     "deleted": es.deleted, "files": len(es.files),
                     "bytes": sum(f.bytes for f in es.files), "checkpoint": es.checkpoint,
                     "last_sync": es.last_sync})
    frame = pd.DataFrame(rows, columns=["entity", "rows", "live", "deleted", "files", "bytes",
                                        "checkpoint", "last_sync"])
    frame.attrs.update({"path": str(root), "schema_version": state.schema_version,
                        "syncs": state.syncs, "source": state.source})
    return frame
