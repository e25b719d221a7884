"""Family A in the research store: dated snapshots of current data and the monthly time series.

``snapshot_public`` takes a universe (search filters, or SKUs), and in two Delta
tables beside the mirror's entities:

* ``PATH/public/current``: appends today's ``client.public.current`` rows as the
  partition ``snapshot_date = today`` (a second snapshot on the same day replaces
  that day's partition). One row per SKU and date; the columns are the service's
  fields, with ``sku`` and ``snapshot_date`` first.
* ``PATH/public/time_series``: the universe's monthly series in long form
  (``sku``, ``field``, ``month``, ``value``, ``fetched_on``), replacing the
  earlier rows of those SKUs. Long form keeps one schema whatever the fields and
  SKUs, and every engine filters and pivots it (a wide table would need a column
  per field and SKU).

``load_public(path, "current", on=D)`` answers "what did the comps look like on
date D" (the latest snapshot on or before D); ``as_of`` reads an earlier version
of either table, e.g. the time series as it was before a revision.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
from deltalake import DeltaTable, write_deltalake

from dealframe.arguments import DateLike, checked_keywords, choice

from ..errors import ServiceContractError, ValidationError
from ..frames.normalize import cast
from ..frames.schemas import CURRENT_DATA, DATE_DTYPE, VOCABULARIES, Column
from ..public.query import time_series_fields
from ..public.sku import validate_skus
from .durable import mirror_lock
from .errors import MirrorStateError
from .kinds import kinds_checked
from .read import _state, as_of_version, checked_dataset
from .schema import PUBLIC_TABLES
from .state import (
    MirrorState,
    check_source,
    check_writable,
    client_source,
    read_state,
    write_state,
)
from .sync import _usable_marker, folder_path, lock_timeout_seconds, open_folder
from .table import (
    commit_properties,
    guard_write,
    is_table,
    open_table,
    owner_only,
    read_failure,
    upsert_rows,
    writer_properties,
)

if TYPE_CHECKING:
    from ..client import Client

__all__ = ["PUBLIC_TABLES", "current_table", "load_public", "series_table", "snapshot_public"]

_CURRENT, _SERIES = PUBLIC_TABLES


def _date(value: Any, argument: str) -> dt.date:
    if value is None:
        return dt.datetime.now(dt.UTC).date()
    try:
        stamp = pd.Timestamp(value)
    except (TypeError, ValueError, OverflowError):
        stamp = pd.NaT
    if isinstance(value, bool) or stamp is pd.NaT:
        raise ValidationError(
            argument, "a date (YYYY-MM-DD, datetime.date or pandas.Timestamp)", got=value
        )
    return stamp.date()


def _plain(table: pa.Table) -> pa.Table:
    """Types every Delta reader takes: dictionaries (categories) decoded, large strings plain."""
    fields = []
    for f in table.schema:
        t = f.type
        if pa.types.is_dictionary(t):
            t = t.value_type
        if pa.types.is_large_string(t):
            t = pa.string()
        if pa.types.is_null(t):
            t = pa.string()
        fields.append(pa.field(f.name, t))
    return table.cast(pa.schema(fields))


def current_table(frame: pd.DataFrame, day: dt.date) -> pa.Table:
    """``client.public.current`` rows as the snapshot table's rows of ``day`` (pure).

    Examples
    --------
    >>> f = pd.DataFrame({"evRevenueLtm": [2.5]}, index=pd.Index(["ACME-USA"], name="sku"))
    >>> current_table(f, dt.date(2026, 1, 2)).to_pydict()
    {'snapshot_date': [datetime.date(2026, 1, 2)], 'sku': ['ACME-USA'], 'evRevenueLtm': [2.5]}
    """
    flat = frame.reset_index()
    table = _plain(pa.Table.from_pandas(flat, preserve_index=False))
    table = table.replace_schema_metadata(None)
    dates = pa.array([day] * table.num_rows, pa.date32())
    return table.add_column(0, "snapshot_date", dates)


def series_table(frame: pd.DataFrame, day: dt.date) -> pa.Table:
    """``client.public.time_series(..., shape="long")`` as the series table's rows (pure).

    Months become the date of their first day. Each column is converted by Arrow and
    numpy, without a Python object per row (a nightly snapshot has millions of rows).

    Examples
    --------
    >>> f = pd.DataFrame({"sku": ["ACME-USA"], "field": ["marketCap"],
    ...                   "month": pd.PeriodIndex(["2025-03"], freq="M"), "value": [10.0]})
    >>> series_table(f, dt.date(2026, 1, 2)).column("month").to_pylist()
    [datetime.date(2025, 3, 1)]
    """
    return pa.table(
        {
            "sku": _text(frame["sku"]),
            "field": _text(frame["field"]),
            "month": pa.array(_days(frame["month"]), pa.date32(), from_pandas=True),
            "value": pa.array(frame["value"].to_numpy(dtype=float), pa.float64(), from_pandas=True),
            "fetched_on": pa.array(np.full(len(frame), np.datetime64(day, "D")), pa.date32()),
        }
    )


def _text(column: pd.Series) -> pa.Array | pa.ChunkedArray:
    """A text column as an Arrow ``string`` array, converted by Arrow (pandas' Arrow-backed
    ``str`` without a Python object per row: the long series has millions of rows).

    Examples
    --------
    >>> _text(pd.Series(["a", None], dtype="category")).to_pylist()
    ['a', None]
    """
    return pa.array(column, from_pandas=True).cast(pa.string())


def _days(month: pd.Series) -> np.ndarray:
    """Months (periods or timestamps) as ``datetime64[D]``: a period's first day, a
    timestamp's calendar date (its wall time for one with a time zone); NaT stays NaT.

    Examples
    --------
    >>> _days(pd.Series(pd.PeriodIndex(["2025-03", None], freq="M")))
    array(['2025-03-01',        'NaT'], dtype='datetime64[D]')
    """
    if isinstance(month.dtype, pd.PeriodDtype):
        month = month.dt.to_timestamp()
    stamps = pd.to_datetime(month)
    if stamps.dt.tz is not None:
        stamps = stamps.dt.tz_localize(None)
    return stamps.to_numpy().astype("datetime64[D]")


def _categories(names: list[str]) -> list[str]:
    """The columns ``client.public.current`` gives as categories (stored as text, which every
    engine reads): those of its schema, and extra fields named like a vocabulary.

    Examples
    --------
    >>> _categories(["sku", "region", "evRevenueLtm"])
    ['region']
    """
    kinds = {c.name: c.kind for c in CURRENT_DATA}
    return [n for n in names if kinds.get(n, "category" if n in VOCABULARIES else "") == "category"]


def _universe(client: Any, skus: Any, filters: dict[str, Any]) -> list[str]:
    if skus is not None and filters:
        raise ValidationError("skus", "either skus or search filters, not both", got=skus)
    if skus is None and not filters:
        raise ValidationError(
            "skus",
            "a list of SKUs, or search filters (regions=..., "
            "countries=..., industries=..., themes=..., "
            "enterprise_value_above=...)",
            got=None,
        )
    if skus is not None:  # checked before any request: a number or None named as ``skus``
        version = getattr(client.public, "version", "v2")
        served: frozenset[str] = getattr(client.public, "served_skus", frozenset())
        return validate_skus([skus] if isinstance(skus, str) else skus, version, served=served)
    found = client.public.search(**filters)
    return [str(s) for s in found.index]


def _write_current(folder: Path, rows: pa.Table, day: dt.date, props: Any) -> None:
    """Write ``rows`` as the partition of ``day``: a field keeps its kind (see
    :mod:`dealframe.mirror.kinds`); a stored column that holds no value and now gets values
    of another kind is widened, by one commit that rewrites the table."""
    if not is_table(folder):
        write_deltalake(
            str(folder),
            rows,
            mode="append",
            partition_by=["snapshot_date"],
            name="public/current",
            description="dealframe: Family A current data by snapshot date",
            writer_properties=writer_properties(),
            commit_properties=props,
        )
        return
    table = open_table(folder)
    stored = pa.schema(table.schema().to_arrow())

    def holds_values(name: str) -> bool:
        values = _stored(folder, table, [name]).column(name)
        return values.null_count < len(values)

    what = f"the snapshot of {day.isoformat()}"
    widened = kinds_checked(stored, rows, holds_values, what)
    types = {f.name: f.type for f in stored if f.name not in widened}
    try:
        rows = _aligned(rows, types)
    except pa.ArrowException as exc:  # kinds agree, values do not fit (an overflow ...)
        raise ServiceContractError(
            200,
            f"Family A current data does not fit the research store's columns ({exc}); "
            f"nothing was written for {what}",
            finding="wrong_shape",
        ) from None
    if not widened:
        write_deltalake(
            str(folder),
            rows,
            mode="overwrite",
            predicate=f"snapshot_date = '{day.isoformat()}'",
            schema_mode="merge" if len(rows.schema) > len(stored) else None,
            writer_properties=writer_properties(),
            commit_properties=props,
        )
        return
    others = _stored(
        folder, table, None, ~(ds.field("snapshot_date") == pa.scalar(day, pa.date32()))
    )
    whole = pa.concat_tables(
        [_aligned(others, dict(zip(rows.schema.names, rows.schema.types))), rows]
    )
    write_deltalake(
        str(folder),
        whole.select(rows.column_names),
        mode="overwrite",
        schema_mode="overwrite",
        partition_by=["snapshot_date"],
        writer_properties=writer_properties(),
        commit_properties=props,
    )


def _stored(
    folder: Path, table: DeltaTable, columns: list[str] | None, where: Any = None
) -> pa.Table:
    try:
        return checked_dataset(folder, table, _CURRENT).to_table(columns=columns, filter=where)
    except (OSError, pa.ArrowException) as exc:
        raise read_failure(folder, exc) from None


def _aligned(rows: pa.Table, types: dict[str, pa.DataType]) -> pa.Table:
    """``rows`` with the columns of ``types`` first, of those types (a column ``rows`` lacks:
    null), then its own others."""
    for name, type_ in types.items():
        if name not in rows.column_names:  # a field this snapshot lacks: null, as stored
            rows = rows.append_column(name, pa.nulls(rows.num_rows, type_))
    order = [*types, *(n for n in rows.column_names if n not in types)]
    rows = rows.select(order)
    return rows.cast(
        pa.schema([pa.field(n, types.get(n, rows.schema.field(n).type)) for n in order])
    )


def _write_series(folder: Path, rows: pa.Table, props: Any) -> None:
    if not is_table(folder):
        write_deltalake(
            str(folder),
            rows,
            mode="append",
            name="public/time_series",
            description="dealframe: Family A monthly time series, long form",
            writer_properties=writer_properties(),
            commit_properties=props,
        )
        return
    if rows.num_rows:
        upsert_rows(folder, open_table(folder), rows, "sku", props, "public/time_series")


@checked_keywords
def snapshot_public(
    client: Client,
    path: str | Path,
    *,
    skus: list[str] | None = None,
    date: DateLike | None = None,
    fields: list[str] | None = None,
    lock_timeout: float = 60.0,
    industries: Iterable[str] | str | None = None,
    themes: Iterable[str] | str | None = None,
    regions: Iterable[str] | str | None = None,
    countries: Iterable[str] | str | None = None,
    enterprise_value_above: float | None = None,
    allow_other_source: bool = False,
) -> dict[str, Any]:
    """Append today's Family A current data of a universe, and refresh its monthly series.

    Parameters
    ----------
    client : dealframe.Client
        With a Family A token.
    path : str or Path
        The mirror folder (or a new one): the tables are ``path/public/current``
        and ``path/public/time_series``.
    skus : list of str, optional
        The universe as SKUs; or give search filters instead.
    date : str or date, optional
        The snapshot's date (default: today, UTC). A second snapshot of the same
        date replaces the first.
    fields : list of str, optional
        Time-series fields (default: all).
    lock_timeout : float, default 60
        Seconds to wait for a running sync of the folder.
    industries, themes, regions, countries, enterprise_value_above
        The universe as a search, instead of ``skus`` (as ``client.public.search``).
    allow_other_source : bool, default False
        Write into a mirror synced from another service (as :func:`~dealframe.mirror.sync`).

    Returns
    -------
    dict
        ``snapshot_date``, ``companies`` (rows written), ``missing_skus``,
        ``current_version``, ``time_series_rows``, ``time_series_version``.

    Raises
    ------
    dealframe.errors.ValidationError
        A bad argument, or a universe of which the service returns no company (nothing is
        written: a stored snapshot of the day is never replaced by an empty one).
    MirrorStateError
        The mirror was synced from another service (checked before anything is fetched).
    MirrorPathError
        The folder, its marker or its lock file carries a flag that keeps it as it is
        (``chattr +i``, ``+a``), or the marker cannot be replaced (checked before anything is
        fetched where the flags say so).

    Examples
    --------
    >>> dealframe.mirror.snapshot_public(client, "mirror/", regions=["Western Europe"])  # doctest: +SKIP
    >>> comps = dealframe.mirror.load_public("mirror/", "current", on="2026-06-30")  # doctest: +SKIP
    """
    if not hasattr(client, "public") or not hasattr(client, "settings"):
        raise ValidationError("client", "a dealframe.Client", got=client)
    lock_timeout = lock_timeout_seconds(lock_timeout)
    if not isinstance(allow_other_source, bool):
        raise ValidationError("allow_other_source", "True or False", got=allow_other_source)
    day = _date(date, "date")
    here = client_source(client)
    if folder_path(path).is_dir():  # refused before anything is fetched
        check_writable(folder_path(path))
        known = read_state(folder_path(path))
        check_source(folder_path(path), known.source if known else None, here, allow_other_source)
    searched = {
        "industries": industries,
        "themes": themes,
        "regions": regions,
        "countries": countries,
        "enterprise_value_above": enterprise_value_above,
    }
    given = {k: v for k, v in searched.items() if v is not None}
    # checked before any request, as client.public.time_series checks them (a comma, another
    # spelling of a documented field: ``evrevenueltm``), so a typo costs no request
    time_series_fields(fields, client.public.served_fields.check)
    universe = _universe(client, skus, given)
    current = client.public.current(universe) if universe else pd.DataFrame()
    if current.empty:  # never replace a stored snapshot of the day with an empty one
        raise ValidationError(
            "skus" if skus is not None else ", ".join(given),
            "a universe of which the service returns at least one company "
            f"(nothing was written for {day.isoformat()})",
            got=skus if skus is not None else given,
        )
    series = client.public.time_series(universe, fields=fields, shape="long")
    rows, long = current_table(current, day), series_table(series, day)
    with guard_write(path):
        root = open_folder(path, create=True)
        _usable_marker(root)
        with mirror_lock(root, lock_timeout):
            state = read_state(root) or MirrorState()
            state.source = check_source(root, state.source, here, allow_other_source)
            write_state(root, state)
            props = commit_properties(
                "snapshot",
                checkpoint=None,
                sync=None,
                received=len(universe),
                written=rows.num_rows,
                reason=f"snapshot of {day.isoformat()}",
            )
            (root / "public").mkdir(exist_ok=True, mode=0o700)
            _write_current(root / _CURRENT, rows, day, props)
            props = commit_properties(
                "snapshot",
                checkpoint=None,
                sync=None,
                received=len(universe),
                written=long.num_rows,
                reason=f"time series fetched on {day.isoformat()}",
            )
            _write_series(root / _SERIES, long, props)
            for name in PUBLIC_TABLES:
                owner_only(root / name)
    return {
        "snapshot_date": day,
        "companies": rows.num_rows,
        "missing_skus": list(current.attrs.get("missing_skus", [])),
        "current_version": DeltaTable(str(root / _CURRENT)).version(),
        "time_series_rows": long.num_rows,
        "time_series_version": DeltaTable(str(root / _SERIES)).version(),
    }


@checked_keywords
def load_public(
    path: str | Path,
    table: str = "current",
    *,
    on: DateLike | None = None,
    as_of: int | str | dt.datetime | None = None,
) -> pd.DataFrame:
    """Read a Family A table of the research store.

    Parameters
    ----------
    path : str or Path
        The mirror folder.
    table : {"current", "time_series"}
    on : date, optional
        ``current`` only: the snapshot that was the latest on this date (what
        the comps looked like then). None: every snapshot, ``snapshot_date`` a column.
    as_of : int or time, optional
        A version of the table (``dealframe.mirror.history(path, "public/...")``), or a
        time: the version current then.

    Returns
    -------
    pandas.DataFrame
        ``current``: indexed by ``sku`` when ``on`` is given; ``time_series``: long
        rows ``sku``, ``field``, ``month`` (monthly periods), ``value``, ``fetched_on``.
        Dates are ``datetime64[us]``, as in every frame. ``attrs["snapshot_date"]`` is the
        snapshot read (``YYYY-MM-DD``).

    Raises
    ------
    MirrorDamagedError
        A data file of the table is missing or unreadable, or is not the table's own (it
        lacks ``sku``, or holds columns the table has not: another table's file); the
        message names the file and what it holds.

    Examples
    --------
    >>> comps = dealframe.mirror.load_public("mirror/", "current", on="2026-06-30")  # doctest: +SKIP
    >>> ts = dealframe.mirror.load_public("mirror/", "time_series")  # doctest: +SKIP
    >>> wide = ts.pivot_table(index="month", columns=["field", "sku"], values="value")  # doctest: +SKIP
    """
    choice(table, "table", ("current", "time_series"), "'current' or 'time_series'")
    if on is not None and table != "current":
        raise ValidationError("on", "None for the time series (use as_of)", got=on)
    root, _ = _state(path)
    folder = root / "public" / table
    if not is_table(folder):
        raise MirrorStateError(
            f"the research store at {root} has no {table} table yet; run "
            "dealframe.mirror.snapshot_public (or `dealframe mirror "
            "snapshot-public PATH`) first"
        )
    delta = open_table(folder)
    if as_of is not None:
        as_of_version(delta, as_of, folder)
    day = _date(on, "on") if on is not None else None
    try:
        scan = checked_dataset(folder, delta, f"public/{table}")
        if day is not None:
            dates = scan.to_table(
                columns=["snapshot_date"],
                filter=ds.field("snapshot_date") <= pa.scalar(day, pa.date32()),
            )
            latest = pc.max(dates.column("snapshot_date")).as_py() if dates.num_rows else None
            if latest is None:
                raise ValidationError("on", "a date on or after the first snapshot", got=on)
            data = scan.to_table(filter=ds.field("snapshot_date") == pa.scalar(latest, pa.date32()))
        else:
            data = scan.to_table()
    except (OSError, pa.ArrowException) as exc:
        raise read_failure(folder, exc) from None
    frame = data.to_pandas(
        types_mapper={
            pa.string(): pd.StringDtype(na_value=float("nan")),
            pa.string_view(): pd.StringDtype(na_value=float("nan")),
            pa.bool_(): pd.BooleanDtype(),  # as client.public.current types a boolean field
        }.get
    )
    frame.attrs["version"] = delta.version()
    if table == "time_series":
        frame["month"] = pd.PeriodIndex(pd.to_datetime(frame["month"]), freq="M")
        frame["fetched_on"] = pd.to_datetime(frame["fetched_on"]).astype(DATE_DTYPE)
        return frame.sort_values(["sku", "field", "month"], ignore_index=True)
    frame["snapshot_date"] = pd.to_datetime(frame["snapshot_date"]).astype(DATE_DTYPE)
    for name in _categories(data.column_names):
        frame[name] = cast(data.column(name).combine_chunks(), Column(name, "category"))
    if day is not None:
        assert latest is not None  # a day was asked for: a snapshot was found above
        frame.attrs["snapshot_date"] = latest.isoformat()  # attrs stay JSON (to_parquet)
        return frame.drop(columns="snapshot_date").set_index("sku").sort_index()
    return frame.sort_values(["snapshot_date", "sku"], ignore_index=True)
