"""Reading a mirror: ``load`` (typed frames like the client's, at any version), ``files``,
``status`` and ``history``.

Readers take no lock: a Delta table is read at one version (a snapshot of its
log), which a running sync never changes; the sync's commit makes a new version.
"""

from __future__ import annotations

import datetime as dt
import numbers
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
from deltalake import DeltaTable
from deltalake.exceptions import DeltaError

from dealframe.arguments import checked_keywords, choice

from ..errors import ValidationError
from ..frames.schemas import STRING_DTYPE
from ..notices import user_stacklevel
from .errors import MirrorDamagedError, MirrorDivergenceWarning, MirrorStateError
from .schema import ENTITIES, PUBLIC_TABLES, _shape, arrow_schema, schema_problem, to_frame
from .state import MirrorState, read_state
from .sync import _ALIASES, open_folder
from .table import (
    SYNC_OPERATIONS,
    check,
    damage,
    data_files,
    dataset,
    foreign_properties,
    foreign_rows,
    history_rows,
    is_table,
    last_info,
    log_lost,
    open_table,
    read_failure,
)

__all__ = ["as_of_version", "checked_dataset", "files", "history", "load", "status"]

#: The columns every data file of a Family A table must hold (None: all of the table's).
_PUBLIC_KEYS: dict[str, tuple[str, ...] | None] = {
    "public/current": ("sku",),  # a snapshot written before the service added a field lacks it
    "public/time_series": None,
}


def _entity(entity: Any) -> str:
    name = _ALIASES.get(entity, entity) if isinstance(entity, str) else entity
    return choice(name, "entity", ENTITIES)  # an alias maps to an entity: never refused


def _state(path: str | Path) -> tuple[Path, MirrorState]:
    root = open_folder(path, create=False)
    state = read_state(root)
    if state is None:
        raise MirrorStateError(f"there is no mirror at {root} yet; run a sync first")
    return root, state


def _table(path: str | Path, entity: str) -> tuple[Path, DeltaTable]:
    root, _ = _state(path)
    folder = root / entity
    if not is_table(folder):
        _no_log(folder)
        raise MirrorStateError(
            f"the mirror at {root} has no {entity} table yet; run a sync of {entity} first"
        )
    return folder, open_table(folder)


def _not_foreign(folder: Path, table: DeltaTable) -> None:
    """Raise :class:`MirrorDamagedError` when another writer gave the table properties the
    mirror does not write (:func:`.table.foreign_properties`): the next sync sets it aside."""
    if (foreign := foreign_properties(table)) is not None:
        raise damage(folder, foreign, rebuilt="sets it aside and builds it again from the service")


def _no_log(folder: Path) -> None:
    """A table folder holding data files but no Delta log is damaged (or a first sync died)."""
    if (problem := log_lost(folder)) is not None:
        raise damage(folder, problem)


def as_of_version(table: DeltaTable, as_of: Any, folder: Path) -> None:
    """Load ``table`` at ``as_of``: a version number, or a time (the version current then).

    A time is turned into a version here: the version current then, the one before the first
    committed after it (commit times: the commit's own ``timestamp``, which ``history`` shows
    as ``time``, read as increasing, as Delta readers read them).
    deltalake's own time travel goes by the log files' modification times instead, which
    differ from the commit times by a millisecond or so, and are all new in a copy of the
    mirror made without them.

    Raises
    ------
    dealframe.errors.ValidationError
        Not a version of the table, or a time before its first version.
    MirrorDamagedError
        The version cannot be read, or the table's commits cannot be listed.
    """
    latest = table.version()
    if isinstance(as_of, numbers.Integral) and not isinstance(as_of, bool):
        if not 0 <= int(as_of) <= latest:
            raise ValidationError(
                "as_of",
                f"a version of {folder.name} between 0 and {latest} "
                "(dealframe.mirror.history lists them)",
                got=as_of,
            )
        target = int(as_of)
    elif isinstance(as_of, numbers.Real) and not isinstance(as_of, bool):
        raise ValidationError(
            "as_of",
            "a version number as an int (versions are whole numbers: "
            "dealframe.mirror.history lists them), or a time (str, datetime, pandas.Timestamp)",
            got=as_of,
        )
    else:
        target = _version_at(table, _as_of_time(as_of), folder, as_of)
    if target == latest:
        return
    try:
        table.load_as_version(target)
    except (DeltaError, OSError, ValueError) as exc:
        raise damage(
            folder, f"version {as_of!r} cannot be read ({exc}); compact may have removed its log"
        ) from None


def _as_of_time(as_of: Any) -> pd.Timestamp:
    try:
        stamp = pd.Timestamp(as_of)
    except (TypeError, ValueError, OverflowError):
        stamp = pd.NaT
    if isinstance(as_of, bool) or as_of is None or stamp is pd.NaT:
        raise ValidationError(
            "as_of",
            "a version number (int) or a time (str, datetime, pandas.Timestamp)",
            got=as_of,
        )
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _version_at(table: DeltaTable, stamp: pd.Timestamp, folder: Path, as_of: Any) -> int:
    """The version current at ``stamp``: the one before the first committed after it, as
    Delta readers take commit times (increasing: a clock that stepped back between two
    commits does not make the later one current before the earlier)."""
    try:
        commits = [(info.version, info.timestamp) for info, _ in history_rows(table)]
    except (DeltaError, OSError) as exc:
        raise read_failure(folder, exc) from None
    commits.sort()
    after = next((i for i, (_, time) in enumerate(commits) if time > stamp), len(commits))
    if not after:
        first = commits[0][1]
        raise ValidationError(
            "as_of",
            f"a time at or after the first version of {folder.name} ({first.isoformat()})",
            got=as_of,
        )
    return commits[after - 1][0]


def _vacuumed(folder: Path, as_of: Any, version: int) -> None:
    """When the latest version is whole, an older one that cannot be read was vacuumed:
    a bad ``as_of``, not a damaged table."""
    latest = open_table(folder)
    if check(folder, latest, None) is not None:
        return
    kept = [i.oldest_kept for i, _ in history_rows(latest, 50) if i.oldest_kept is not None]
    oldest = f"; the oldest version kept is {kept[0]}" if kept else ""
    raise ValidationError(
        "as_of",
        f"a version of {folder.name} whose files are still on disk: "
        f"compact removed those of version {version}{oldest} "
        "(dealframe.mirror.history lists the versions)",
        got=as_of,
    )


def _read(
    folder: Path, table: DeltaTable, entity: str, include_deleted: bool, columns: list[str] | None
) -> pa.Table:
    schema = arrow_schema(entity)
    problem = schema_problem(entity, pa.schema(table.schema().to_arrow()))
    if problem:
        raise damage(folder, problem)
    try:
        wanted = None if columns is None else list(dict.fromkeys([*columns, "deleted"]))
        data = checked_dataset(folder, table, entity).to_table(
            columns=wanted, filter=None if include_deleted else ~ds.field("deleted")
        )
    except (DeltaError, OSError, pa.ArrowException) as exc:
        raise read_failure(folder, exc) from None
    return data.cast(pa.schema([schema.field(n) for n in data.column_names]))


def checked_dataset(folder: Path, table: DeltaTable, name: str) -> ds.Dataset:
    """The table's loaded version as a pyarrow dataset, once every data file is seen to be
    the table's own: there, of the size the log gives, and of ``name``'s schema.

    pyarrow reads a data file under the log's schema whatever the file holds: another
    table's file (copied over one of this table) would come back as rows of this table,
    its columns null. Only the footers are read (the scan reuses them), never a row.

    Parameters
    ----------
    folder : Path
        The table's folder.
    table : DeltaTable
        The table, at the version to read.
    name : str
        An entity (the columns and types its writer writes) or one of
        :data:`~dealframe.mirror.schema.PUBLIC_TABLES` (the log's columns, less its partition
        columns; every file holds at least ``sku``).

    Raises
    ------
    MirrorDamagedError
        A data file is missing, unreadable, of another size than the log says, or holds
        columns that are not this table's (naming the file, what it holds and what was
        expected).
    """
    expected, keys = _expected_columns(table, name)
    sizes = _logged_sizes(table)
    scan = dataset(folder, table)
    for fragment in scan.get_fragments():
        path = str(fragment.path)
        try:
            on_disk = (folder / path).stat().st_size
        except FileNotFoundError:
            raise damage(folder, f"the data file {path} it lists is missing") from None
        problem = _file_problem(path, name, fragment.physical_schema, expected, keys)
        if problem is None and sizes.get(path, on_disk) != on_disk:
            problem = f"the data file {path} has {on_disk} bytes, the log says {sizes[path]}"
        if problem:
            raise damage(folder, problem)
    return scan


def _expected_columns(table: DeltaTable, name: str) -> tuple[pa.Schema, Sequence[str]]:
    """The columns ``name``'s data files hold, and those every one of them must hold."""
    if name in ENTITIES:
        schema = arrow_schema(name)
        return schema, schema.names  # the writer writes every column, always
    partitions = set(table.metadata().partition_columns)
    logged = pa.schema(table.schema().to_arrow())
    schema = pa.schema([f for f in logged if f.name not in partitions])
    keys = _PUBLIC_KEYS.get(name)
    return schema, schema.names if keys is None else keys


def _logged_sizes(table: DeltaTable) -> dict[str, int]:
    """The size in bytes the log gives each data file of the loaded version, by path."""
    actions = pa.table(table.get_add_actions(flatten=True))
    return dict(zip(actions.column("path").to_pylist(), actions.column("size_bytes").to_pylist()))


def _file_problem(
    path: str, name: str, schema: pa.Schema, expected: pa.Schema, keys: Sequence[str]
) -> str | None:
    """What is wrong with a data file of schema ``schema`` as one of ``name``'s, or None."""
    found, wanted = dict(_shape(schema)), dict(_shape(expected))
    missing = [c for c in keys if c not in found]
    foreign = [c for c in found if c not in wanted]
    retyped = [
        f"{c} ({t}, not {wanted[c]})" for c, t in found.items() if c in wanted and t != wanted[c]
    ]
    if not (missing or foreign or retyped) and len(found) == len(schema):
        return None
    holds = f"{len(schema)} columns ({_listed(schema.names)})"
    owner = [e for e in ENTITIES if e != name and set(found) == set(arrow_schema(e).names)]
    if owner:
        holds = f"the {owner[0]} table's {holds}"
    what = [
        f"without {_listed(missing)}" if missing else "",
        f"with columns the {name} table has not ({_listed(foreign)})" if foreign else "",
        f"with other types: {_listed(retyped)}" if retyped else "",
        "with a column name repeated" if len(found) != len(schema) else "",
    ]
    return (
        f"the data file {path} holds {holds}, not the {name} table's "
        f"{len(expected)} columns ({_listed(expected.names)}): " + "; ".join(w for w in what if w)
    )


def _listed(names: Sequence[str], most: int = 7) -> str:
    """The first ``most`` of ``names``, comma-separated, with how many more.

    Examples
    --------
    >>> _listed(["a", "b", "c"], 2)
    'a, b, ... 1 more'
    """
    more = f", ... {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _columns(columns: Any, entity: str) -> list[str] | None:
    if columns is None:
        return None
    names = arrow_schema(entity).names
    if (
        isinstance(columns, str)
        or not isinstance(columns, Iterable)
        or not all(isinstance(c, str) for c in columns)
    ):
        raise ValidationError("columns", f"a list of column names of {entity}", got=columns)
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise ValidationError(
            "columns", f"column names of {entity} ({', '.join(names)})", got=unknown
        )
    return list(columns)


@checked_keywords
def load(
    path: str | Path,
    entity: str,
    include_deleted: bool = False,
    columns: list[str] | None = None,
    *,
    as_of: int | str | dt.datetime | None = None,
) -> pd.DataFrame:
    """The mirrored rows of ``entity`` as the client's typed frame, now or at an earlier sync.

    Parameters
    ----------
    path : str or Path
        The mirror folder.
    entity : {"companies", "investors", "deals"}
    include_deleted : bool, default False
        Also return soft-deleted rows (``deleted`` True).
    columns : list of str, optional
        Only these columns (in this order).
    as_of : int, str, datetime or pandas.Timestamp, optional
        A version of the entity's table (``history`` lists them), or a time: the
        version that was current then (a time without a zone is UTC). None: the
        latest.

    Returns
    -------
    pandas.DataFrame
        The columns and dtypes of ``client.private.<entity>(...)``; one row per id.
        ``attrs["version"]`` is the table version read.

    Raises
    ------
    MirrorDamagedError
        A file of the table is missing, unreadable or of another size than the log
        says, the table holds another table, or one of its data files does (another
        table's columns, or not the entity's key columns: the file's own schema is
        checked, its footer only); the message names the file, what it holds and what
        was expected, and gives the repair (``dealframe mirror sync PATH --repair``).
        Also, for the latest version (``as_of`` None), when another writer changed its rows
        after the mirror's last sync (an append: duplicate ids) or gave it properties the
        mirror does not write (deletion vectors, ``delta.appendOnly`` ...): the message names
        the commit or property; a sync rebuilds the table.

    Examples
    --------
    >>> deals = dealframe.mirror.load("mirror", "deals")  # doctest: +SKIP
    >>> deals["deleted"].any()  # doctest: +SKIP
    False
    >>> before = dealframe.mirror.load("mirror", "deals", as_of="2026-11-01")  # doctest: +SKIP
    """
    entity = _entity(entity)
    if not isinstance(include_deleted, bool):
        raise ValidationError("include_deleted", "True or False", got=include_deleted)
    wanted = _columns(columns, entity)
    folder, table = _table(path, entity)
    if as_of is not None:
        as_of_version(table, as_of, folder)
    else:  # the same cheap look at the log a sync makes: never another writer's rows silently
        _not_foreign(folder, table)
        if (changed := foreign_rows(table)) is not None:
            raise damage(
                folder,
                f"{changed} (a version before that commit is still readable with as_of=..., "
                "history lists them)",
                rebuilt="rebuilds it from a full pull",
            )
    try:
        data = _read(folder, table, entity, include_deleted, wanted)
    except MirrorDamagedError:
        if as_of is not None:
            _vacuumed(folder, as_of, table.version())
        raise
    frame = to_frame_columns(data, entity)
    frame.attrs["version"] = table.version()
    return frame[wanted] if wanted is not None else frame


def to_frame_columns(table: pa.Table, entity: str) -> pd.DataFrame:
    """:func:`~dealframe.mirror.schema.to_frame` of the columns ``table`` has."""
    if table.column_names == arrow_schema(entity).names:
        return to_frame(table, entity)
    full = arrow_schema(entity)
    arrays = [
        table.column(n) if n in table.column_names else pa.nulls(table.num_rows, f.type)
        for n, f in zip(full.names, full)
    ]
    frame = to_frame(pa.Table.from_arrays(arrays, schema=full), entity)
    return frame[table.column_names]


@checked_keywords
def files(path: str | Path, entity: str) -> list[Path]:
    """The data files of ``entity``'s table at its latest version (each id in exactly one).

    Engines that read Delta tables need only the folder (``path/entity``); this
    list is for tools that read plain Parquet files.

    Parameters
    ----------
    path : str or Path
        The mirror's folder.
    entity : {"companies", "investors", "deals"}

    Returns
    -------
    list of Path

    Examples
    --------
    >>> import duckdb  # doctest: +SKIP
    >>> duckdb.read_parquet([str(p) for p in files("mirror", "deals")])  # doctest: +SKIP
    """
    entity = _entity(entity)
    folder, table = _table(path, entity)
    return data_files(folder, table)


def _counts(folder: Path, table: DeltaTable, entity: str) -> tuple[int, int, int, int, int]:
    """Rows, live rows, deleted rows, data files and bytes of the table's latest version.

    Live rows are those :func:`load` returns (``deleted`` False): a row whose ``deleted`` is
    null (a table written before the change feed's pages were checked for it) is neither
    live nor deleted, so ``status`` and ``load`` never disagree."""
    actions = pa.table(table.get_add_actions(flatten=True))
    try:
        scan = checked_dataset(folder, table, entity)
        deleted = scan.to_table(columns=["deleted"]).column("deleted")
    except (DeltaError, OSError, pa.ArrowException) as exc:
        raise read_failure(folder, exc) from None
    return (
        len(deleted),
        int(pc.sum(pc.invert(deleted)).as_py() or 0),  # nulls are not summed
        int(pc.sum(deleted).as_py() or 0),
        actions.num_rows,
        int(pc.sum(actions.column("size_bytes")).as_py() or 0),
    )


@checked_keywords
def status(path: str | Path) -> pd.DataFrame:
    """Per entity: records (live and deleted), the table's version, files, bytes, checkpoint.

    Parameters
    ----------
    path : str or Path
        The mirror's folder.

    Returns
    -------
    DataFrame
        One row per entity of the mirror (companies, investors, deals), in that order:
        ``rows``, ``live``, ``deleted``, ``version``, ``files``, ``bytes``, ``checkpoint``,
        ``last_sync``, all NA for an entity that has no table yet; ``attrs`` holds ``path``,
        ``schema_version``, ``syncs`` and ``source``.

    Raises
    ------
    MirrorDamagedError
        A table is damaged, as :func:`load` finds it (a data file holding another
        table's columns is not counted as the entity's rows), or holds properties the mirror
        does not write (as in :func:`load`); the message gives the repair.

    Warns
    -----
    MirrorDivergenceWarning
        Another writer changed a table's rows after the mirror's last sync (an append, a
        delete ...): its counts are the table's, not the service's; the next sync rebuilds it.

    Examples
    --------
    >>> dealframe.mirror.status("mirror")  # doctest: +SKIP
    """
    root, state = _state(path)
    rows: list[dict[str, Any]] = []
    for entity in ENTITIES:
        folder = root / entity
        if not is_table(folder):
            _no_log(folder)
            rows.append({"entity": entity})  # no table yet: its row, NA in every column
            continue
        table = open_table(folder)
        problem = schema_problem(entity, pa.schema(table.schema().to_arrow()))
        if problem:
            raise damage(folder, problem)
        _not_foreign(folder, table)
        if (changed := foreign_rows(table)) is not None:  # the counts are the table's as it is
            warnings.warn(
                f"the mirror's {entity} table at {folder}: {changed}; its counts here are the "
                "table's, not the service's: the next sync rebuilds it from a full pull",
                MirrorDivergenceWarning,
                stacklevel=user_stacklevel(),
            )
        n, live, deleted, n_files, size = _counts(folder, table, entity)
        info = last_info(table)
        synced = last_info(table, SYNC_OPERATIONS)
        rows.append(
            {
                "entity": entity,
                "rows": n,
                "live": live,
                "deleted": deleted,
                "version": table.version(),
                "files": n_files,
                "bytes": size,
                "checkpoint": info.checkpoint if info else None,
                "last_sync": synced.timestamp.isoformat(timespec="seconds") if synced else None,
            }
        )
    frame = _typed(rows, _STATUS_DTYPES)
    frame.attrs.update(
        path=str(root), schema_version=state.schema_version, syncs=state.syncs, source=state.source
    )
    return frame


#: The columns of ``status`` and ``history`` and their dtypes, whatever the rows (0 included).
_STATUS_DTYPES = {
    "entity": STRING_DTYPE,
    "rows": "Int64",
    "live": "Int64",
    "deleted": "Int64",
    "version": "Int64",
    "files": "Int64",
    "bytes": "Int64",
    "checkpoint": STRING_DTYPE,
    "last_sync": STRING_DTYPE,
}
_HISTORY_DTYPES = {
    "entity": STRING_DTYPE,
    "version": "Int64",
    "time": "datetime64[us, UTC]",
    "operation": STRING_DTYPE,
    "sync": "Int64",
    "rows_received": "Int64",
    "rows_changed": "Int64",
    "checkpoint": STRING_DTYPE,
    "reason": STRING_DTYPE,
}


def _typed(rows: list[dict[str, Any]] | pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    """``rows`` as a frame of exactly ``dtypes``' columns and dtypes (no inference: an
    all-null column stays text, an empty frame keeps its types)."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows, columns=list(dtypes))
    return frame.astype(dtypes)


def _changed(entry: dict[str, Any]) -> int | None:
    metrics = entry.get("operationMetrics") or {}
    if "num_target_rows_inserted" in metrics:
        return (
            int(metrics.get("num_target_rows_inserted", 0))
            + int(metrics.get("num_target_rows_updated", 0))
            + int(metrics.get("num_target_rows_deleted", 0))
        )
    if "num_added_rows" in metrics:
        return int(metrics["num_added_rows"])
    return None


@checked_keywords
def history(path: str | Path, entity: str | None = None) -> pd.DataFrame:
    """The commits of the mirror's tables, newest first: one row per table version.

    Columns: ``entity``, ``version`` (give it to ``load(..., as_of=...)``), ``time``
    (UTC), ``operation`` (``full``, ``sync``, ``repair``, ``migrate``, ``compact``,
    ``snapshot``, or Delta's own name for a commit another tool made), ``sync``
    (the mirror's sync number: one per ``sync`` call, shared by its tables),
    ``rows_received``, ``rows_changed`` (rows the commit wrote: inserted or replaced, as the
    mirror counts them; Delta's own metrics for commits of other tools), ``checkpoint``,
    ``reason`` (why a table was rebuilt).

    Parameters
    ----------
    path : str or Path
        The mirror folder.
    entity : str, optional
        One table (an entity, or ``"public/current"``, ``"public/time_series"``);
        default: every table.

    Returns
    -------
    pandas.DataFrame
        One row per table version, newest first, with the columns above (the same columns
        and dtypes when there is none).

    Examples
    --------
    >>> dealframe.mirror.history("mirror", "deals").head()  # doctest: +SKIP
    """
    root, _ = _state(path)
    names = [*ENTITIES, *PUBLIC_TABLES]
    if entity is not None:
        name = _ALIASES.get(entity, entity) if isinstance(entity, str) else entity
        names = [choice(name, "entity", names)]
    rows = []
    for name in names:
        folder = root / name
        if not is_table(folder):
            continue
        try:
            entries = history_rows(open_table(folder))
        except (DeltaError, OSError) as exc:
            raise read_failure(folder, exc) from None
        for info, entry in entries:
            rows.append(
                {
                    "entity": name,
                    "version": info.version,
                    "time": info.timestamp,
                    "operation": info.operation,
                    "sync": info.sync,
                    "rows_received": info.rows_received,
                    "rows_changed": info.rows_written
                    if info.rows_written is not None
                    else _changed(entry),
                    "checkpoint": info.checkpoint,
                    "reason": info.reason,
                }
            )
    frame = pd.DataFrame(rows, columns=list(_HISTORY_DTYPES))
    frame["time"] = pd.to_datetime(frame["time"], utc=True)
    return _typed(frame, _HISTORY_DTYPES).sort_values(
        ["time", "entity", "version"], ascending=[False, True, False], ignore_index=True
    )
