"""Family A (public company metrics) responses as typed frames.

Column names are the service's camelCase names. Companies are indexed by
``sku``; time series are indexed by a monthly :class:`pandas.PeriodIndex`
named ``month``.

Examples
--------
>>> items = [{"sku": "ACME-USA", "ticker": "ACME", "exchange": "NASDAQ",
...           "data": {"evRevenueLtm": {"2024-01": 5.0, "2024-03": 6.0}}}]
>>> ts = time_series_wide(items)
>>> ts["evRevenueLtm"]["ACME-USA"].tolist()
[5.0, nan, 6.0]
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from typing import Any, TypeAlias

import msgspec
import numpy as np
import orjson
import pandas as pd

from dealframe._wording import plural
from dealframe.arguments import checked_keywords
from dealframe.contract import (
    Findings,
    _add_repeats,
    _as_written,
    _count,
    _folded,
    shaping_findings,
    typed_fields,
)
from dealframe.errors import ValidationError
from dealframe.frames.deal_rows import PAGE_TYPES
from dealframe.frames.normalize import (
    _floats,
    as_records,
    build_frame,
    empty_frame,
    is_sequence,
    warn_numbers_as_text,
    warn_or_note,
    why,
)
from dealframe.frames.schemas import COMPANY_IDENTIFIER, CURRENT_DATA, TIME_SERIES_LONG

__all__ = [
    "GROUP_ROWS",
    "META_COUNTS",
    "as_mappings",
    "current_frame",
    "group_current_frame",
    "group_layout",
    "group_time_series_frame",
    "month_ordinal",
    "read_current_page",
    "month_text",
    "read_meta",
    "say_outside_window",
    "search_frame",
    "time_series_long",
    "time_series_wide",
]

_MONTH = re.compile(r"^(\d{4})-(\d{2})(?:-\d{2})?$")
_STATS = ("sum", "median")
#: The statistics a groups/current key (``data``'s, or its members') may name, in any case and
#: singular or plural (``sum``, ``Sum``, ``SUMS``, ``medians``); a column of its own each. A key
#: that names none is read, as served, only beside both a sum and a median (:func:`_refuse_untold`).
_STAT_WORDS = re.compile(
    r"(?P<stat>sum|median|mean|average|avg|min|max|count|n|std|stdev|q[1-3]|p\d{1,2})s?",
    re.IGNORECASE | re.ASCII,
)
#: The row order of a group current-data frame: the numeric fields of current data in
#: document order (:data:`~dealframe.frames.schemas.CURRENT_DATA`); a field it does not name
#: comes after them, in the order served. Whatever order a service lists its fields in, the
#: frame (and the local rollup, :func:`dealframe.analytics.group_current`) has this one.
GROUP_ROWS: tuple[str, ...] = tuple(c.name for c in CURRENT_DATA if c.kind == "float")
#: The members of a Family A ``meta`` that are counts: ``count`` and ``companies`` (integers in
#: the interface document's group time series ``{count, companies}`` and the ``{count}`` of the
#: other calls; the sandbox's groups/current ``meta`` has both), and the ``total`` the client
#: also reads as one. :func:`read_meta` makes them integers.
META_COUNTS: tuple[str, ...] = ("count", "companies", "total")

MonthLike: TypeAlias = str | pd.Period | pd.Timestamp | None

#: What each kind of current-data field is read as by :func:`read_current_page` (or null).
_ROW_TYPES: dict[str, Any] = {
    "float": float | None,
    "str": str | None,
    "category": str | None,
    "list": list[str] | None,
}
#: One current-data item holding exactly the fields of the schema (all of them, each of its
#: type or null), not tracked by the garbage collector.
_CurrentRow: Any = msgspec.defstruct(
    "_CurrentRow",
    [(c.name, _ROW_TYPES[c.kind]) for c in CURRENT_DATA],
    gc=False,
    forbid_unknown_fields=True,
)
#: A current-data answer of such rows; ``meta`` (any JSON, or absent) is read by orjson.
_CurrentPage: Any = msgspec.defstruct(
    "_CurrentPage",
    [("data", list[_CurrentRow]), ("meta", msgspec.Raw | msgspec.UnsetType, msgspec.UNSET)],
    forbid_unknown_fields=True,
)
_CURRENT_DECODER = msgspec.json.Decoder(_CurrentPage)


@checked_keywords
def read_current_page(content: bytes | bytearray | memoryview | str) -> dict[str, Any] | None:
    """A current-data answer as ``{"data": rows[, "meta": ...]}``, its rows typed, or None
    when it is not an answer of exactly the fields :data:`CURRENT_DATA` names.

    The rows are read by a schema'd decoder (msgspec), as deal pages are
    (:mod:`dealframe.frames.deal_rows`): no dict per row, no object for the collector to walk,
    and every value already of its field's type. Any other answer (a field more or less, one
    spelt otherwise, a value of another type, a member beside ``data`` and ``meta``, JSON
    msgspec refuses) gives None and is read as JSON by orjson, with the same checks and the
    same frame builder: both give the same frame, findings and warnings. ``meta`` is read by
    orjson whichever way, as the JSON reading has it. msgspec skips ``meta`` within Python's
    recursion limit (about 1,000 levels; orjson reads up to 1,024): a ``meta`` nested deeper
    also gives None, for the JSON reading to say what it makes of it (a ``bad_meta`` finding,
    or a body it cannot read), never a bare :class:`RecursionError`.

    Examples
    --------
    >>> read_current_page(b'{"data": [], "meta": {"count": 0}}')
    {'data': [], 'meta': {'count': 0}}
    >>> read_current_page(b'{"data": [{"sku": "A-USA"}]}') is None  # documented fields absent
    True
    >>> read_current_page(b'{"data": [], "meta": ' + b"[" * 1010 + b"]" * 1010 + b"}") is None
    True
    """
    if not isinstance(content, PAGE_TYPES):
        raise ValidationError("content", "the raw bytes of a page", got=type(content).__name__)
    try:
        page = _CURRENT_DECODER.decode(content)
        meta = page.meta
        doc = {"data": page.data}
        if meta is not msgspec.UNSET:
            doc["meta"] = orjson.loads(memoryview(meta))
    except (msgspec.DecodeError, orjson.JSONDecodeError, ValueError, RecursionError):
        return None  # ValueError: not UTF-8; RecursionError: meta nested past msgspec's depth
    return doc


@checked_keywords
def as_mappings(items: Sequence[Any]) -> list[Any]:
    """``items`` as dicts, whichever way each was read (typed rows of
    :func:`read_current_page` as dicts of their fields, numbers as floats; dicts as they
    are): what a check that rewrites items is given. Items of answers read both ways are not
    compared so (``1046.0`` against the JSON's ``1046``): those answers are all read as JSON.

    Examples
    --------
    >>> as_mappings([{"sku": "A-USA"}])
    [{'sku': 'A-USA'}]
    """
    if not is_sequence(items):
        raise ValidationError("items", "a list of items", got=type(items).__name__)
    if not any(typed_fields([item]) is not None for item in items):
        return items if isinstance(items, list) else list(items)
    return [
        item if typed_fields([item]) is None else msgspec.structs.asdict(item) for item in items
    ]


@checked_keywords
def search_frame(items: Iterable[Mapping[str, Any]] | None) -> pd.DataFrame:
    """Search results (CompanyIdentifier items) indexed by ``sku``.

    Parameters
    ----------
    items : list of dict
        The ``data`` array of a companies search response (or the envelope).

    Returns
    -------
    pandas.DataFrame
        Index ``sku``; ``verticals``/``themes`` are object columns of lists,
        ``region`` a Categorical over the region vocabulary; unknown fields kept.

    Examples
    --------
    >>> df = search_frame([{"sku": "ACME-USA", "enterpriseValue": 12, "verticals": ["AI"]}])
    >>> df.loc["ACME-USA", "enterpriseValue"], df.index.name
    (np.float64(12.0), 'sku')
    """
    return build_frame(as_records(items, "items"), COMPANY_IDENTIFIER, index="sku")


@checked_keywords
def current_frame(items: Iterable[Mapping[str, Any]] | None) -> pd.DataFrame:
    """Current-data items indexed by ``sku``, every field kept.

    Documented fields come first in document order (the six ``*Lcu`` variants
    after ``rateToUsd``), then undocumented extras sorted by name. Numbers are
    float64, text ``str``, ``tags``/``themes`` lists.

    Examples
    --------
    >>> df = current_frame([{"sku": "A-USA", "marketCap": 10, "marketCapLcu": 9.1,
    ...                      "rateToUsd": 1.1, "employeeCount": 120}])
    >>> df.columns[-1], df["employeeCount"].dtype
    ('employeeCount', dtype('float64'))
    """
    return build_frame(as_records(items, "items"), CURRENT_DATA, index="sku")


@checked_keywords
def month_ordinal(value: Any) -> int | None:
    """The month a time-series key or period names (``YYYY-MM``, or ``YYYY-MM-DD`` read as
    its month), as the frames read it: months since 1970-01; None when it names none (the
    frame reader refuses it).

    Examples
    --------
    >>> month_ordinal("2024-01"), month_ordinal("2024-01-01"), month_ordinal("Jan 2024")
    (648, 648, None)
    """
    try:
        return _month_ordinal(value, "month")
    except ValidationError:
        return None


def _month_ordinal(value: MonthLike, name: str) -> int:
    if isinstance(value, pd.Period):
        return int(value.asfreq("M").ordinal)
    if isinstance(value, pd.Timestamp):
        return (value.year - 1970) * 12 + value.month - 1
    match = _MONTH.match(str(value)) if isinstance(value, str) else None
    if match is None:
        raise ValidationError(name, "a month 'YYYY-MM'", got=value)
    year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12:
        raise ValidationError(name, "a month between 01 and 12", got=value)
    return (year - 1970) * 12 + month - 1


def _month_index(lo: int, hi: int) -> pd.PeriodIndex:
    ordinals = np.arange(lo, hi + 1, dtype=np.int64)
    return pd.PeriodIndex.from_ordinals(ordinals, freq="M").rename("month")


@checked_keywords
def month_text(ordinal: int) -> str:
    """The month of an ordinal (months since 1970-01, :func:`month_ordinal`) as ``YYYY-MM``.

    Examples
    --------
    >>> month_text(648), month_text(-1)
    ('2024-01', '1969-12')
    """
    year, month = divmod(int(ordinal), 12)
    return f"{1970 + year:04d}-{month + 1:02d}"


def _bounds(date_from: MonthLike, date_to: MonthLike) -> tuple[int | None, int | None]:
    """The window's first and last month ordinals (None: that end not given); ``date_from``
    after ``date_to`` is a :class:`~dealframe.errors.ValidationError`."""
    lo = _month_ordinal(date_from, "date_from") if date_from is not None else None
    hi = _month_ordinal(date_to, "date_to") if date_to is not None else None
    if lo is not None and hi is not None and lo > hi:
        raise ValidationError("date_from", f"a month not after date_to {date_to!r}", got=date_from)
    return lo, hi


@checked_keywords
def say_outside_window(
    found: Findings, months: Iterable[int], lo: int | None, hi: int | None, dropped: str
) -> None:
    """Say to ``found``, in one ``unrequested`` finding, that the months ``months`` (ordinals,
    each counted once) of an answer lie outside the window its request sent (``lo`` to
    ``hi``, ordinals, None: that end not sent), and what was ``dropped`` with them.

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies/time-series")
    >>> say_outside_window(found, [372, 372, 373], 648, None, "3 values of 1 SKU")
    >>> found.items[0].message
    '2 months (2001-01 ... 2001-02) outside the window sent (dateFrom 2024-01): 3 values of 1 SKU dropped (does the service read dateFrom/dateTo?)'
    """
    shown = sorted(set(months))
    span = month_text(shown[0])
    if len(shown) > 1:
        span += f" ... {month_text(shown[-1])}"
    ends = [(name, end) for name, end in (("dateFrom", lo), ("dateTo", hi)) if end is not None]
    sent = ", ".join(f"{name} {month_text(end)}" for name, end in ends)
    found.add(
        "unrequested",
        f"{len(shown):,} {plural(len(shown), 'month')} ({span}) outside the window sent "
        f"({sent}): {dropped} dropped (does the service read dateFrom/dateTo?)",
    )


def _collect(
    records: Sequence[Mapping[str, Any]],
    fields: Sequence[str] | None,
    found: Findings | None,
    skus: Sequence[str] | None = None,
    window: tuple[int | None, int | None] = (None, None),
):
    """Flatten time-series items into parallel arrays (one entry per value): one value per
    SKU, field and month, the first sent (repeats said to ``found``). Given ``fields``
    (``skus``), those are the fields (SKUs), in that order, and items' others are left out.
    Months outside ``window`` (ordinals, inclusive; None: that end open) are left out before
    anything is read of their values, and said to ``found`` (:func:`_leave_outside`)."""
    sku_pos: dict[str, int] = {s: i for i, s in enumerate(dict.fromkeys(skus or ()))}
    field_pos: dict[str, int] = {f: i for i, f in enumerate(fields or ())}
    fixed = fields is not None
    given = skus is not None
    kept: list[int] = []  # the SKU of each item read: one twice is a repeat
    keys: list[str] = []
    values: list[Any] = []
    chunk_f: list[int] = []
    chunk_s: list[int] = []
    chunk_n: list[int] = []
    for i, rec in enumerate(records):
        sku = rec.get("sku")
        if not isinstance(sku, str):
            raise ValidationError(f"time_series[{i}].sku", "a string", got=sku)
        if given and sku not in sku_pos:
            continue
        si = sku_pos.setdefault(sku, len(sku_pos))
        kept.append(si)
        data = rec.get("data") or {}
        if not isinstance(data, Mapping):
            raise ValidationError(f"time_series[{i}].data", "an object", got=type(data).__name__)
        for field, series in data.items():
            if fixed and field not in field_pos:
                continue
            fi = field_pos.setdefault(field, len(field_pos))
            if not series:
                continue
            if not isinstance(series, Mapping):
                raise ValidationError(
                    f"time_series[{i}].data.{field}",
                    "an object of months",
                    got=type(series).__name__,
                )
            keys.extend(series)
            values.extend(series.values())
            chunk_f.append(fi)
            chunk_s.append(si)
            chunk_n.append(len(series))
    counts = np.asarray(chunk_n, dtype=np.int64)
    f_idx = np.repeat(np.asarray(chunk_f, dtype=np.int64), counts)
    s_idx = np.repeat(np.asarray(chunk_s, dtype=np.int64), counts)
    if keys:
        codes, uniques = pd.factorize(np.asarray(keys, dtype=object))
        ords = np.array([_month_ordinal(u, "month") for u in uniques], dtype=np.int64)
        months = ords[codes]
        out_u = _outside(ords, *window)
        if out_u is not None and out_u.any():  # the rare answer: the service ignored the window
            outside = out_u[codes]
            _leave_outside(found, window, months, s_idx, values, outside)
            keep = ~outside
            in_chunk = np.repeat(np.arange(len(counts)), counts)[keep]
            counts = np.bincount(in_chunk, minlength=len(counts)).astype(np.int64)
            keys, values = list(compress(keys, keep)), list(compress(values, keep))
            f_idx, s_idx, months = f_idx[keep], s_idx[keep], months[keep]
            ords = ords[np.bincount(codes[keep], minlength=len(ords)) > 0]
    else:
        ords = months = np.empty(0, dtype=np.int64)
    types = set(map(type, values))
    if bool in types:  # numpy reads True as 1.0: refused, as in current data
        at = next(i for i, v in enumerate(values) if type(v) is bool)
        chunk = int(np.searchsorted(np.cumsum(counts), at, side="right"))
        raise ValidationError(
            f"time_series[{list(sku_pos)[chunk_s[chunk]]}].data."
            f"{list(field_pos)[chunk_f[chunk]]}[{keys[at]!r}]",
            "a number or null",
            got=values[at],
        )
    unread: str | None = None
    try:
        vals = np.asarray(values, dtype=np.float64) if values else np.empty(0)
    except (TypeError, ValueError) as exc:
        unread = why(exc)
    if unread is not None:  # raised out of the except block: numpy's error, which quotes the
        # service's value (a token it echoed, say), is not the error's __context__
        raise ValidationError("time_series", f"numeric values ({unread})")
    if str in types:  # numbers written as text ("1.5"): read, and said by field
        _said_as_text(values, vals, counts, chunk_f, chunk_s, list(field_pos), list(sku_pos))
    if keys and (len(set(ords.tolist())) < len(ords) or len(set(kept)) < len(kept)):
        # a month in two spellings ("2023-01", "2023-01-01") or a SKU twice: one value each
        keep, same, differ = _first_of_each((s_idx * len(field_pos) + f_idx), months, vals)
        f_idx, s_idx, months, vals = f_idx[keep], s_idx[keep], months[keep], vals[keep]
        if found is not None:
            _add_repeats(found, "month", same, differ, "the first")
    return list(sku_pos), list(field_pos), f_idx, s_idx, months, vals


def _outside(ords: np.ndarray, lo: int | None, hi: int | None) -> np.ndarray | None:
    """Which of the month ordinals ``ords`` lie outside ``lo`` to ``hi`` (None: no window)."""
    if lo is None and hi is None:
        return None
    out = np.zeros(len(ords), dtype=bool)
    if lo is not None:
        out |= ords < lo
    if hi is not None:
        out |= ords > hi
    return out


def _leave_outside(
    found: Findings | None,
    window: tuple[int | None, int | None],
    months: np.ndarray,
    s_idx: np.ndarray,
    values: list[Any],
    outside: np.ndarray,
) -> None:
    """Say to ``found`` the months outside the window (``outside``, a mask over the values):
    each month once whatever its spelling, and the values not null among them (``None``, or
    ``""``, read as null), with their SKUs."""
    if found is None:
        return
    held = np.fromiter(
        (not (v is None or (isinstance(v, str) and v == "")) for v in compress(values, outside)),
        dtype=bool,
    )
    n_skus = len(np.unique(s_idx[outside][held]))
    n_values = int(held.sum())
    dropped = (
        f"{n_values:,} {plural(n_values, 'value')} of {n_skus:,} {plural(n_skus, 'SKU')}"
        if n_values
        else "no value (only nulls)"
    )
    say_outside_window(found, np.unique(months[outside]).tolist(), *window, dropped)


def _said_as_text(
    values: list[Any],
    vals: np.ndarray,
    counts: np.ndarray,
    chunk_f: list[int],
    chunk_s: list[int],
    fields: list[str],
    skus: list[str],
) -> None:
    """Warn, by field, of the time-series values written as text and read as numbers, naming
    the first SKUs (:func:`~dealframe.frames.normalize.warn_numbers_as_text`)."""
    text = [i for i, v in enumerate(values) if isinstance(v, str) and np.isfinite(vals[i])]
    if not text:
        return
    chunk = np.searchsorted(np.cumsum(counts), np.asarray(text), side="right")
    by_field: dict[int, list[int]] = {}
    for at, c in zip(text, chunk.tolist()):
        by_field.setdefault(chunk_f[c], []).append(at)
    sku_of = {at: skus[chunk_s[c]] for at, c in zip(text, chunk.tolist())}
    for f, rows in by_field.items():
        warn_numbers_as_text(fields[f], values, rows, ("sku", sku_of))


def _first_of_each(
    series: np.ndarray, months: np.ndarray, vals: np.ndarray
) -> tuple[np.ndarray, int, int]:
    """Which values to keep (the first of each series and month, in the order sent), and how
    many repeats held the first one's value and how many another.

    Examples
    --------
    >>> keep, same, differ = _first_of_each(
    ...     np.array([0, 0, 0, 1]), np.array([5, 5, 6, 5]), np.array([1.0, 2.0, 3.0, 4.0])
    ... )
    >>> keep.tolist(), same, differ
    ([True, False, True, True], 0, 1)
    """
    key = series * (int(months.max() - months.min()) + 1) + (months - months.min())
    order = np.argsort(key, kind="stable")
    ranked = key[order]
    repeat = np.zeros(len(ranked), dtype=bool)
    repeat[1:] = ranked[1:] == ranked[:-1]
    start = np.maximum.accumulate(np.where(repeat, 0, np.arange(len(ranked))))
    ordered = vals[order]
    a, b = ordered[repeat], ordered[start[repeat]]
    equal = (a == b) | (np.isnan(a) & np.isnan(b))
    keep = np.ones(len(key), dtype=bool)
    keep[order[repeat]] = False
    return keep, int(equal.sum()), int((~equal).sum())


@checked_keywords
def time_series_wide(
    items: Iterable[Mapping[str, Any]] | None,
    fields: Sequence[str] | None = None,
    date_from: MonthLike = None,
    date_to: MonthLike = None,
    *,
    skus: Sequence[str] | None = None,
    found: Findings | None = None,
) -> pd.DataFrame:
    """Time-series items as a months × (field, sku) frame.

    Parameters
    ----------
    items : list of dict
        CompanyTimeSeriesData items.
    fields : sequence of str, optional
        Keep these fields, in this order (absent ones give all-NaN columns).
        Default: every field, in order of first appearance.
    skus : sequence of str, optional
        Keep these SKUs, in this order, each once (absent ones give all-NaN columns), so the
        columns are ``fields`` x ``skus`` whatever the items hold. Default: every SKU, in
        order of first appearance.
    date_from, date_to : str ``YYYY-MM`` or Period, optional
        Index range (inclusive); values outside are dropped before they are read (said to
        ``found`` when given: one ``unrequested`` finding naming the months, each once, and
        how many values not null of how many SKUs). Default: the first to the last month
        present; with no month present inside the one bound given (or none), the index is
        empty.
    found : dealframe.contract.Findings, optional
        Where to say that a month came twice in a series (``"2024-01"`` and
        ``"2024-01-01"``, or a SKU's item twice): the first value is kept either way; and
        the months outside ``date_from``/``date_to``.

    Returns
    -------
    pandas.DataFrame
        Index: every month of the range (``PeriodIndex`` named ``month``);
        columns: ``MultiIndex`` (``field``, ``sku``). Missing months are NaN.

    Raises
    ------
    dealframe.errors.ValidationError
        ``fields`` or ``skus`` not a list of strings (a bare string, a mapping, a None in
        it), a month that is not one, or ``date_from`` after ``date_to``.

    Examples
    --------
    >>> items = [{"sku": "A-USA", "data": {"marketCap": {"2024-01": 1.0}}},
    ...          {"sku": "B-GBR", "data": {"marketCap": {"2024-02": 2.0}}}]
    >>> time_series_wide(items)["marketCap"].shape
    (2, 2)
    >>> some = time_series_wide(items, ["marketCap", "ruleOf40"], skus=["C-USA", "A-USA"])
    >>> some.columns.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [('marketCap', 'C-USA'), ('marketCap', 'A-USA'),
     ('ruleOf40', 'C-USA'), ('ruleOf40', 'A-USA')]
    """
    fields, skus = _check_names("fields", fields), _check_names("skus", skus)
    _check_found(found)
    records = as_records(items, "items")
    lo, hi = _bounds(date_from, date_to)
    skus, field_list, f_idx, s_idx, months, vals = _collect(records, fields, found, skus, (lo, hi))
    if not len(months) and (lo is None or hi is None):
        lo, hi = 0, -1  # a bound not given is the data's own: with no month, no range
    if lo is None:
        lo = int(months.min())
    if hi is None:
        hi = int(months.max())
    n_sku = len(skus)
    out = np.full((max(hi - lo + 1, 0), len(field_list) * n_sku), np.nan)
    if len(months):
        out[months - lo, f_idx * n_sku + s_idx] = vals
    columns = pd.MultiIndex.from_product(
        [pd.Index(field_list, dtype="str"), pd.Index(skus, dtype="str")], names=["field", "sku"]
    )
    return pd.DataFrame(out, index=_month_index(lo, hi), columns=columns, copy=False)


def _check_names(argument: str, names: Any) -> list[str] | None:
    """``names`` (``fields`` or ``skus`` of a shaping function) as a list, or None; refused
    unless None or an iterable of strings: a bare string would be read as its characters, a
    None as a ``nan`` column, a number is no list. The list is what the caller reads (an
    iterator is read once, here).

    Examples
    --------
    >>> _check_names("fields", (f for f in ["marketCap"]))
    ['marketCap']
    >>> _check_names("skus", "A-USA")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid skus: expected a list of strings (one is ['A-USA']), got 'A-USA'
    """
    if names is None:
        return None
    if isinstance(names, str) or isinstance(names, Mapping) or not isinstance(names, Iterable):
        one = f" (one is [{names!r}])" if isinstance(names, str) else ""
        raise ValidationError(argument, f"a list of strings{one}", got=names)
    listed = list(names)
    for i, name in enumerate(listed):
        if not isinstance(name, str):
            raise ValidationError(f"{argument}[{i}]", "a string", got=name)
    return listed


def _check_found(found: Any) -> None:
    """Refuse a ``found`` of a shaping function that is neither a
    :class:`~dealframe.contract.Findings` nor None (it would be read only once something is
    said to it).

    Examples
    --------
    >>> _check_found(1 + 2j)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid found: expected a dealframe.contract.Findings or None, got (1+2j)
    """
    if found is not None and not isinstance(found, Findings):
        raise ValidationError("found", "a dealframe.contract.Findings or None", got=found)


@checked_keywords
def time_series_long(
    items: Iterable[Mapping[str, Any]] | None,
    fields: Sequence[str] | None = None,
    *,
    date_from: MonthLike = None,
    date_to: MonthLike = None,
    found: Findings | None = None,
) -> pd.DataFrame:
    """Time-series items as a tidy frame ``(sku, field, month, value)``.

    ``month`` is a ``period[M]`` column (not a Timestamp). Only values the
    service sent appear (a missing month has no row); rows follow input order.
    A month sent twice in a series gives one row, the first value, as in
    :func:`time_series_wide` (said to ``found`` when given). ``fields`` (keep these fields)
    is a list of strings, or None for every field; anything else is a
    :class:`~dealframe.errors.ValidationError` naming ``fields``. Months outside
    ``date_from``/``date_to`` (inclusive) give no row, as in :func:`time_series_wide` (said
    to ``found`` when given).

    Examples
    --------
    >>> df = time_series_long([{"sku": "A-USA", "data": {"marketCap": {"2024-01": 1.5}}}])
    >>> df.loc[0, "month"], df["month"].dtype
    (Period('2024-01', 'M'), period[M])
    """
    fields = _check_names("fields", fields)
    _check_found(found)
    records = as_records(items, "items")
    window = _bounds(date_from, date_to)
    skus, field_list, f_idx, s_idx, months, vals = _collect(records, fields, found, None, window)
    if not len(months):
        return empty_frame(TIME_SERIES_LONG)
    return pd.DataFrame(
        {
            "sku": pd.array(np.asarray(skus, dtype=object)[s_idx], dtype="str"),
            "field": pd.array(np.asarray(field_list, dtype=object)[f_idx], dtype="str"),
            "month": pd.PeriodIndex.from_ordinals(months, freq="M").array,
            "value": vals,
        }
    )


@checked_keywords
def read_meta(meta: Any, found: Findings | None = None) -> Any:
    """A Family A ``meta`` with its counts (:data:`META_COUNTS`) as integers.

    A count written as text or as an integral float (``"15"``, ``15.0``) is read as its
    integer, as is a numpy integer (``np.int64(15)``); one that is no count (``"many"``,
    ``3.5``, ``-1``, ``true``) becomes None. Given ``found``, both are said to it: one
    ``bad_meta`` finding naming every member written as text, one per member that is no
    count. Without it (a frame built from a ``meta`` at hand), a member that is no count is
    warned of (:class:`~dealframe.notices.ServiceContractWarning`), and text is read silently.

    Parameters
    ----------
    meta : dict or any
        The ``meta`` of an answer; anything but an object is returned as given.
    found : Findings, optional
        Where to say what was read otherwise (the client's call passes its own).

    Returns
    -------
    dict or any
        A copy of ``meta``, each count an ``int`` or None.

    Examples
    --------
    >>> found = Findings("POST /api/v1/groups/time-series")
    >>> read_meta({"count": "3", "companies": "15", "note": "x"}, found)
    {'count': 3, 'companies': 15, 'note': 'x'}
    >>> found.items[0].message.split(" written")[0]
    'meta.count, meta.companies'
    >>> read_meta({"count": np.int64(3)})
    {'count': 3}
    """
    if not isinstance(meta, Mapping):
        return meta
    out = dict(meta)
    text: list[str] = []
    for name in META_COUNTS:
        if out.get(name) is not None:
            out[name] = _count(out, name, found, None, text)
    if text and found is not None:
        found.add("bad_meta", _as_written(text))
    return out


def _with_meta(frame: pd.DataFrame, meta: Mapping[str, Any] | None) -> pd.DataFrame:
    if meta is not None:
        if not isinstance(meta, Mapping):
            raise ValidationError("meta", "an object", got=type(meta).__name__)
        frame.attrs.update(copy.deepcopy(read_meta(meta)))
    return frame


def _unwrap(data: Any, meta: Mapping[str, Any] | None) -> tuple[Any, Mapping[str, Any] | None]:
    if isinstance(data, Mapping) and "data" in data and ("meta" in data or len(data) == 1):
        return data["data"], meta if meta is not None else data.get("meta")
    return data, meta


#: The layouts of groups/current ``data`` the client reads (section 2.1 shows none).
_GROUP_LAYOUTS = (
    "{sum: {field: x}, median: {field: y}}, {field: {sum: x, median: y}}, "
    "[{field, sum, median}], or a flat {key: x} whose every key names its statistic "
    "(marketCapSum, marketCap_sum, sum_marketCap; beside sums and medians, another statistic "
    "of a field they name: marketCap_stddev)"
)
#: Statistics a flat key may name, and the four ways it may name one.
_KEY_STATS = "sum|median|mean|min|max"
_FLAT_KEYS = (
    re.compile(rf"(?P<field>.+?)[_.\-](?P<stat>(?i:{_KEY_STATS}))", re.ASCII),  # marketCap_sum
    re.compile(rf"(?P<field>.*[a-z0-9])(?P<stat>{_KEY_STATS.title()})", re.ASCII),  # marketCapSum
    re.compile(rf"(?P<stat>(?i:{_KEY_STATS}))[_.\-](?P<field>.+)", re.ASCII),  # sum_marketCap
    re.compile(rf"(?P<stat>{_KEY_STATS})(?P<field>[A-Z].*)", re.ASCII),  # sumMarketCap
)


def _way_stat_field(key: Any) -> tuple[int, str, str] | None:
    """``(way, statistic, field)`` of a flat key that names its statistic, else None: ``way``
    is the index in :data:`_FLAT_KEYS` of the way it is written (0 ``marketCap_sum``, 1
    ``marketCapSum``, 2 ``sum_marketCap``, 3 ``sumMarketCap``).

    Examples
    --------
    >>> [_way_stat_field(k) for k in ("marketCapSum", "median_revenueLtm", "sumMarketCap")]
    [(1, 'sum', 'marketCap'), (2, 'median', 'revenueLtm'), (3, 'sum', 'marketCap')]
    >>> _way_stat_field("evRevenueLtm") is None
    True
    """
    for way, pattern in enumerate(_FLAT_KEYS):
        found = pattern.fullmatch(key) if isinstance(key, str) else None
        if found:
            field = found["field"]
            if way == 3:  # sumMarketCap: the field is marketCap
                field = field[0].lower() + field[1:]
            return way, found["stat"].lower(), field
    return None


#: How a flat key may write a statistic of the service's own beside its field, in the ways of
#: :data:`_FLAT_KEYS`: after or before a separator (``_stddev``, ``.weighted_median``), or
#: joined in camelCase after the field (``Stddev``) or before it (``stddev``).
_SEPARATORS = "_.-"
_SEPARATED_STAT = re.compile(r"[A-Za-z][A-Za-z0-9_]*", re.ASCII)
_CAMEL_SUFFIX = re.compile(r"[A-Z][A-Za-z0-9]*", re.ASCII)
_CAMEL_PREFIX = re.compile(r"[a-z][A-Za-z0-9]*", re.ASCII)
#: The statistics a camelCase flat key may write joined to its field (``marketCapStddev``,
#: ``stddevMarketCap``), in any case: sum, median, mean, average, avg, min, max, count, std,
#: stdev, stddev, var, variance, iqr, q1 to q3, p1 to p99, weightedMedian, weightedMean and
#: weightedAverage. A closed list, since a camelCase tail is as often the rest of a field's
#: name (``marketCapLcu``, ``ruleOf40Ltm``); after or before a separator (``marketCap_stddev``,
#: ``stddev_marketCap``) any name is a statistic.
_CAMEL_STAT = re.compile(
    r"sum|median|mean|average|avg|min|max|count|std|stdev|stddev|var|variance|iqr|q[1-3]"
    r"|p[1-9][0-9]?|weighted(?:median|mean|average)",
    re.IGNORECASE | re.ASCII,
)
#: The Family A fields the client knows (:data:`~dealframe.frames.schemas.CURRENT_DATA`: the
#: document's current-data fields, their ``Lcu`` variants, and those the service is seen to
#: send), spelt without case or separators (:func:`_spells_a_field`).
_KNOWN_FIELDS = frozenset(_folded(c.name) for c in CURRENT_DATA)
_SEPARATOR = re.compile(f"[{re.escape(_SEPARATORS)}]")


def _spells_a_field(key: Any) -> bool:
    """Whether flat ``key`` spells a Family A field the client knows, in any case, with or
    without separators (``marketCapLcu``, ``market_cap_lcu``, ``Market Cap LCU``): that field
    written without its statistic, never split into another field and a statistic (an
    ``lcu`` of ``marketCap``). The rule of a respelled member (:func:`~dealframe.contract.
    _folded`: whitespace, zero-width and full-width characters too).

    Examples
    --------
    >>> [_spells_a_field(k) for k in ("marketCapLcu", "ruleOf40_ltm", "marketCapStddev", 3)]
    [True, True, False, False]
    >>> [_spells_a_field(k) for k in ("Market Cap LCU", "market\u200bCapLcu", "ｍarketCapLcu")]
    [True, True, True]
    """
    return isinstance(key, str) and _folded(key) in _KNOWN_FIELDS


#: The ways (indices in :data:`_FLAT_KEYS`) a statistic of the service's own is read in beside
#: sums and medians written any way: all but the camelCase one before the field
#: (``stddevMarketCap``), read only where the sums or medians are written so (``sumMarketCap``),
#: since beside others it would read fields written without their statistic as one
#: (``evRevenueLtm``: an ``ev`` of ``revenueLtm``).
_OWN_WAYS = (0, 1, 2)


def _own_stat(written: str, camel: bool = False) -> str:
    """The column of a statistic a flat key writes as ``written`` beside its field: the
    statistic it names (:func:`_stat_name`), else its name as served, its first letter lower
    case when ``camel`` (``marketCapStddev``: the capital only joins it to the field)."""
    if camel:
        written = written[0].lower() + written[1:]
    return _stat_name(written) or written


def _splits(key: str) -> Iterable[tuple[int, str, str, str]]:
    """``(way, written statistic, column, field)`` for every place ``key`` may be split in
    one of the four ways of :data:`_FLAT_KEYS`, its parts of the right form, a camelCase
    statistic one of :data:`_CAMEL_STAT` (none checked against the fields read).

    Examples
    --------
    >>> sorted(_splits("revenueLtmLcuStddev"))
    [(1, 'Stddev', 'stddev', 'revenueLtmLcu')]
    >>> sorted(_splits("marketCapLcu")), sorted(_splits("marketCap_lcu"))
    ([], [(0, 'lcu', 'lcu', 'marketCap'), (2, 'marketCap', 'marketCap', 'lcu')])
    """
    for i in range(1, len(key) - 1):
        left, right = key[:i], key[i + 1 :]
        if key[i] in _SEPARATORS:
            if _SEPARATED_STAT.fullmatch(right):  # marketCap_stddev
                yield 0, right, _own_stat(right), left
            if _SEPARATED_STAT.fullmatch(left):  # stddev_marketCap
                yield 2, left, _own_stat(left), right
    for i in range(1, len(key)):
        left, right = key[:i], key[i:]
        if key[i].isupper():
            if (
                (left[-1].islower() or left[-1].isdigit())
                and _CAMEL_SUFFIX.fullmatch(right)
                and _CAMEL_STAT.fullmatch(right)
            ):  # marketCapStddev
                yield 1, right, _own_stat(right, camel=True), left
            if _CAMEL_PREFIX.fullmatch(left) and _CAMEL_STAT.fullmatch(left):  # stddevMarketCap
                yield 3, left, _own_stat(left), right[0].lower() + right[1:]


def _readings(key: Any, fields: Mapping[str, Any], ways: Iterable[int]) -> set[tuple[str, str]]:
    """Every ``(statistic, field)`` flat ``key`` splits into, written in one of ``ways``
    (:data:`_OWN_WAYS`, and those of the keys that name a sum or a median), whose field is one of ``fields`` (the fields
    those keys name) and whose statistic is none of them. A key that is itself one of
    ``fields`` (``revenueLtmLcu`` beside ``revenueLtmLcuMedian``), or spells a field the
    client knows (:func:`_spells_a_field`: ``marketCapLcu`` beside ``marketCapSum``), names no
    statistic: it is that field, written without its statistic.

    Examples
    --------
    >>> sorted(_readings("marketCap.stddev", {"marketCap": 0}, [0]))
    [('stddev', 'marketCap')]
    >>> sorted(_readings("revenueLtmLcuStddev", {"revenueLtm": 0, "revenueLtmLcu": 0}, [1]))
    [('stddev', 'revenueLtmLcu')]
    >>> sorted(_readings("revenue_ltm_lcu_spread", {"revenue_ltm": 0, "revenue_ltm_lcu": 0}, [0]))
    [('lcu_spread', 'revenue_ltm'), ('spread', 'revenue_ltm_lcu')]
    >>> _readings("evRevenueLtm", {"revenueLtm": 0}, [0, 1, 2, 3]), _readings("pe_pe", {"pe": 0}, [0])
    (set(), set())
    >>> _readings("marketCapLcu", {"marketCap": 0}, [1]), _readings("ruleOf40_ltm", {"ruleOf40": 0}, [0])
    (set(), set())
    """
    if not isinstance(key, str) or key in fields or _spells_a_field(key):
        return set()
    allowed = set(ways)
    return {
        (column, field)
        for way, written, column, field in _splits(key)
        if way in allowed and field in fields and written not in fields and column not in fields
    }


def _split_own(
    keys: list[Any], fields: Mapping[str, Any], ways: Iterable[int]
) -> tuple[dict[Any, tuple[str, str]], list[str], dict[Any, set[tuple[str, str]]]]:
    """Flat ``keys`` that name no sum, median, mean, min or max, split against the ``fields``
    read beside them, written in ``ways`` (:func:`_readings`): ``(read, unsplit, ambiguous)``.
    A key split one way is read so; one split several ways is read the one way whose
    statistic another key has as its only reading (``revenue_ltm_lcu_stddev`` beside
    ``market_cap_stddev``: the ``stddev`` of ``revenue_ltm_lcu``, not the ``lcu_stddev`` of
    ``revenue_ltm``), and is ambiguous otherwise; a key split no way is unsplit."""
    ways = list(ways)
    splits = {key: _readings(key, fields, ways) for key in keys}
    sure = {next(iter(r))[0] for r in splits.values() if len(r) == 1}
    read: dict[Any, tuple[str, str]] = {}
    unsplit: list[str] = []
    ambiguous: dict[Any, set[tuple[str, str]]] = {}
    for key, readings in splits.items():
        backed = {r for r in readings if r[0] in sure} if len(readings) > 1 else readings
        if len(backed) == 1:
            read[key] = next(iter(backed))
        elif readings:
            ambiguous[key] = readings
        else:
            unsplit.append(str(key))
    return read, unsplit, ambiguous


def _stat_with_separator(named: Mapping[Any, tuple[str, str]]) -> list[Any]:
    """The keys of ``named`` (``{key: (statistic, field)}``) whose field holds a separator
    and begins with a field without one named by the others: that field and a statistic
    (``pe_weighted_median``: the ``weighted_median`` of ``pe``, not the median of a field
    ``pe_weighted``), read as one where no field named holds a separator (camelCase, as
    Family A's are); where fields hold separators (``market_cap_sum``), left as read.

    Examples
    --------
    >>> _stat_with_separator({"pe_median": ("median", "pe"),
    ...                       "pe_weighted_median": ("median", "pe_weighted")})
    ['pe_weighted_median']
    >>> _stat_with_separator({"market_cap_sum": ("sum", "market_cap")})
    []
    """
    split = re.compile(f"[{re.escape(_SEPARATORS)}]")
    plain = {f for _, f in named.values() if not split.search(f)}
    return [k for k, (_, f) in named.items() if split.search(f) and split.split(f)[0] in plain]


def _known_field_reading(key: str) -> tuple[int, str, str] | None:
    """``(way, statistic column, field)`` of flat ``key`` split at the longest field the
    client knows (:data:`_KNOWN_FIELDS`: the document's current-data fields, their ``Lcu``
    variants, those the sandbox serves), its statistic written in one of the four ways
    (:func:`_splits`), itself no field, and one of the closed list camelCase statistics are
    (:data:`_CAMEL_STAT`, separators left out: ``weighted_median``) however it is written;
    None when no split gives a known field and a listed statistic.

    ``revenueLtmWeightedMedian`` is the ``weightedMedian`` of ``revenueLtm``, not the median
    of a field ``revenueLtmWeighted``, which no document names. But ``rule_of_40_fy_median``
    is no ``fy_median`` of ``rule_of_40``: a field the client does not know may begin with
    one it knows, and after a separator a name not listed is as often the rest of that field.

    Examples
    --------
    >>> _known_field_reading("revenueLtmWeightedMedian")
    (1, 'weightedMedian', 'revenueLtm')
    >>> _known_field_reading("revenue_ltm_lcu_weighted_mean")
    (0, 'weighted_mean', 'revenue_ltm_lcu')
    >>> _known_field_reading("peWeightedMedian") is None  # pe: no Family A field
    True
    >>> [_known_field_reading(k) for k in ("rule_of_40_fy_median", "market_cap_float_median")]
    [None, None]
    """
    readings = [
        (way, column, field)
        for way, written, column, field in _splits(key)
        if _spells_a_field(field)
        and not _spells_a_field(written)
        and _CAMEL_STAT.fullmatch(_SEPARATOR.sub("", written))
    ]
    return max(readings, key=lambda r: len(r[2]), default=None)


def _flat_reading(key: Any) -> tuple[int, str, str] | None:
    """``(way, statistic, field)`` of a flat key, preferring the longest field the client
    knows: a key that spells a known field is that field, written without its statistic
    (None), even when it ends in a statistic's word; a key whose sum/median/mean/min/max
    reading (:func:`_way_stat_field`) names no known field is split at the longest known
    field in it, when one is (:func:`_known_field_reading`). A key naming no known field
    either way is read as before (``peWeightedMedian``: the median of ``peWeighted``).

    Examples
    --------
    >>> _flat_reading("revenueLtmWeightedMedian"), _flat_reading("marketCapLcuMedian")
    ((1, 'weightedMedian', 'revenueLtm'), (1, 'median', 'marketCapLcu'))
    >>> _flat_reading("peWeightedMedian"), _flat_reading("marketCapLcu")
    ((1, 'median', 'peWeighted'), None)
    """
    if not isinstance(key, str) or _spells_a_field(key):
        return None
    found = _way_stat_field(key)
    if found is None or _spells_a_field(found[2]):
        return found
    return _known_field_reading(key) or found


def _flat_split(
    data: Mapping[str, Any],
) -> tuple[dict[str, dict[str, Any]], list[str], dict[Any, set[tuple[str, str]]]]:
    """``({stat: {field: value}}, unsplit, ambiguous)`` of a flat ``{key: value}``: the keys
    that name a sum, median, mean, min or max (:func:`_way_stat_field`), and, when these name
    both a sum and a median, the others split against the fields these name, written in one
    of :data:`_OWN_WAYS` or a way these are written (:func:`_split_own`). Where the sum or the
    median is missing, every other key is unsplit: it may be it."""
    named: dict[Any, tuple[str, str]] = {}
    ways = dict.fromkeys(_OWN_WAYS)
    rest = []
    for key in data:
        found = _flat_reading(key)
        if found is None:
            rest.append(key)
        else:
            ways[found[0]] = None
            named[key] = found[1:]
    for key in _stat_with_separator(named):
        del named[key]
        rest.append(key)
    unsplit: list[str] = [str(k) for k in rest]
    ambiguous: dict[Any, set[tuple[str, str]]] = {}
    if rest and all(any(s == stat for s, _ in named.values()) for stat in _STATS):
        fields = dict.fromkeys(f for _, f in named.values())
        own, unsplit, ambiguous = _split_own(rest, fields, ways)
        named.update(own)
    cells: dict[str, dict[str, Any]] = {}
    for key, (stat, field) in named.items():
        if field in cells.setdefault(stat, {}):
            raise ValidationError(f"data.{key}", f"one {stat} of {field} (it came twice)")
        cells[stat][field] = data[key]
    return cells, unsplit, ambiguous


def _flat_cells(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{stat: {field: value}}`` of a flat ``{key: value}`` whose keys name the statistic
    (:func:`_flat_split`). A key that names none (``marketCap``: a sum or a median?), or,
    beside sums and medians, no statistic of a field read beside it, is refused naming the
    keys, never guessed, as is one that splits more than one way. A key that spells a field
    the client knows (``marketCapLcu``) is that field without its statistic, and said so.

    Examples
    --------
    >>> _flat_cells({"marketCap_sum": 1.0, "pe_median": 2.0, "pe_stddev": 0.5})
    {'sum': {'marketCap': 1.0}, 'median': {'pe': 2.0}, 'stddev': {'pe': 0.5}}
    >>> def refusal(data):
    ...     try:
    ...         _flat_cells(data)
    ...     except ValidationError as exc:
    ...         return str(exc).split("; ")[-1]
    >>> refusal({"marketCapSum": 1.0, "revenueLtmMedian": 2.0, "marketCapLcu": 3.0})
    'these keys of a flat object name no statistic of a field read beside them (marketCap, revenueLtm): marketCapLcu (marketCapLcu: a field written without its statistic)'
    >>> refusal({"revenue_ltm_sum": 1.0, "revenue_ltm_lcu_median": 2.0, "revenue_ltm_lcu_spread": 3.0})
    'it splits more than one way (the lcu_spread of revenue_ltm, the spread of revenue_ltm_lcu)'
    """
    cells, unsplit, ambiguous = _flat_split(data)
    if unsplit:
        missing = [s for s in _STATS if s not in cells]
        why_not = (
            f"(a {' or a '.join(missing)}?)"
            if missing
            else f"of a field read beside them ({_shown(dict.fromkeys(f for c in cells.values() for f in c))})"
        )
        alone = [k for k in unsplit if _spells_a_field(k)]
        raise ValidationError(
            "data",
            f"one of the layouts {_GROUP_LAYOUTS}; these keys of a flat object name no "
            f"statistic {why_not}: {_shown(unsplit)}"
            + (f" ({_shown(alone)}: a field written without its statistic)" if alone else ""),
        )
    for key, readings in ambiguous.items():
        told = ", ".join(f"the {stat} of {field}" for stat, field in sorted(readings))
        raise ValidationError(
            f"data.{key}", f"a key read one way; it splits more than one way ({told})"
        )
    return cells


def _stat_name(key: Any) -> str | None:
    """The statistic a groups/current key names, as its column (lower case, singular), or
    None when it names none: the case of a name, and a plural, are the service's spelling.

    Examples
    --------
    >>> [_stat_name(k) for k in ("sum", "Median", "SUMS", "medians", "mean")]
    ['sum', 'median', 'sum', 'median', 'mean']
    >>> [_stat_name(k) for k in ("total", "marketCap", 3)]
    [None, None, None]
    """
    found = _STAT_WORDS.fullmatch(key.strip()) if isinstance(key, str) else None
    return found["stat"].lower() if found else None


def _shown(keys: Iterable[Any]) -> str:
    """Keys as a short list: the first five, and how many there are beyond them."""
    keys = [str(k) for k in keys]
    return ", ".join(keys[:5]) + (f" ... ({len(keys)} keys)" if len(keys) > 5 else "")


def _refuse_untold(keys: Iterable[Any], what: str, data: Iterable[Any] | None = None) -> None:
    """Refuse statistic ``keys`` that hold a key naming no statistic while the sum or the
    median is not among them: that key may be it (``{total, median}``: a sum?), and is never
    guessed. Beside both a sum and a median, a key that names no statistic (``stddev``,
    ``weighted_median``) is a statistic of the service's own: a column of its own, as served.
    The message says ``what`` the keys are, and the keys of ``data`` when given.

    Examples
    --------
    >>> _refuse_untold(["sum", "Median", "stddev"], "keys of data")
    >>> try:
    ...     _refuse_untold(["total", "median"], "keys of data")
    ... except ValidationError as exc:
    ...     print(str(exc).split("; ")[-1])
    the keys of data name no sum, and these name no statistic (a sum?): total
    """
    keys = list(dict.fromkeys(keys))
    named = {_stat_name(k) for k in keys}
    unnamed = [k for k in keys if _stat_name(k) is None]
    missing = [s for s in _STATS if s not in named]
    if unnamed and missing:
        raise ValidationError(
            "data",
            f"one of the layouts {_GROUP_LAYOUTS}; the {what} name no {' and no '.join(missing)}, "
            f"and these name no statistic (a {' or a '.join(missing)}?): {_shown(unnamed)}"
            + ("" if data is None else f" (keys of data: {_shown(data)})"),
        )


def _stat_column(key: Any, where: str, seen: dict[str, Any]) -> str:
    """The column of statistic ``key`` (at ``where``): the statistic it names
    (:func:`_stat_name`), else the key as served (a statistic of the service's own, read only
    beside a sum and a median: :func:`_refuse_untold`). The same statistic twice (``sum`` and
    ``Sum``) is refused: which one holds it cannot be told."""
    stat = _stat_name(key)
    if stat is None:
        stat = str(key)
    if stat in seen:
        raise ValidationError(
            where, f"one {stat} (it came as {seen[stat]!r} and as {key!r})", got=key
        )
    seen[stat] = key
    return stat


def _described(stats: Mapping[str, Any]) -> str:
    """The statistic names as served, the sum and the median first (``Sum, Median``)."""
    order = [*(s for s in _STATS if s in stats), *(s for s in stats if s not in _STATS)]
    return ", ".join(str(stats[s]) for s in order)


def _row_cells(data: list[Any]) -> tuple[dict[str, dict[str, Any]], str]:
    """``[{"field": f, "sum": x, "median": y}, ...]``: cells and the layout as served.

    A field in two rows with the same members is read once, said (``repeated_rows``, or a
    warning for items the user built); with other members (a sum doubled) it is refused,
    naming both rows: which of them holds the field's statistics cannot be told.

    Examples
    --------
    >>> rows = [{"field": "marketCap", "sum": 1.0}, {"field": "marketCap", "sum": 2.0}]
    >>> _row_cells(rows)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid data[1]: expected one row per field ('marketCap' also at data[0], with other statistics), got {'field': 'marketCap', 'sum': 2.0}
    """
    cells: dict[str, dict[str, Any]] = {}
    served: dict[str, Any] = {}
    for i, row in enumerate(data):
        if not isinstance(row, Mapping) or "field" not in row:
            raise ValidationError(f"data[{i}]", "an object with a 'field' member", got=row)
    data = _once_per_field(data)
    keys = [k for row in data for k in row if k != "field"]
    _refuse_untold(keys, "keys of its rows")
    for i, row in enumerate(data):
        seen: dict[str, Any] = {}
        for key, value in row.items():
            if key != "field":
                stat = _stat_column(key, f"data[{i}].{key}", seen)
                cells.setdefault(stat, {})[row["field"]] = value
        served.update((s, k) for s, k in seen.items() if s not in served)
    return cells, f"a list of {{field, {_described(served)}}}"


def _once_per_field(rows: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``rows`` (of the list layout) with a row repeating an earlier one of its field left
    out, said; a row of a field seen before with other members refused (ValidationError)."""
    first: dict[Any, int] = {}
    kept: list[Mapping[str, Any]] = []
    same = 0
    for i, row in enumerate(rows):
        field = row["field"]
        at = first.setdefault(field, i) if isinstance(field, str) else i
        if at == i:
            kept.append(row)
        elif dict(row) == dict(rows[at]):
            same += 1
        else:
            raise ValidationError(
                f"data[{i}]",
                f"one row per field ({field!r} also at data[{at}], with other statistics)",
                got=row,
            )
    if same:
        found = shaping_findings()
        if found is not None:
            _add_repeats(found, "field", same, 0, "the first")
        else:  # items the user built, or read by the doctor (which notes it)
            warn_or_note(f"{same} field(s) came more than once with the same content: kept once")
    return kept


def _stat_major(data: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], str]:
    """``{sum: {field: x}, median: {field: y}}``, each key naming its statistic (or, beside
    a sum and a median, a statistic of the service's own: :func:`_refuse_untold`)."""
    _refuse_untold(data, "keys of data", data)
    cells: dict[str, dict[str, Any]] = {}
    seen: dict[str, Any] = {}
    for key, inner in data.items():
        stat = _stat_column(key, f"data.{key}", seen)
        if inner is not None:
            cells[stat] = dict(inner)
    return cells, "{" + ", ".join(f"{seen[s]}: {{...}}" for s in seen) + "}"


def _field_major(data: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], str]:
    """``{field: {sum: x, median: y}}``, read so only when the keys of the members name
    statistics (a key that names none only beside a sum and a median: :func:`_refuse_untold`):
    otherwise the layout cannot be told (statistics under other names, or fields under
    statistics spelt otherwise) and is refused, never transposed."""
    inner_keys = [k for inner in data.values() if inner is not None for k in inner]
    _refuse_untold(inner_keys, "keys of its members", data)
    cells: dict[str, dict[str, Any]] = {}
    served: dict[str, Any] = {}
    for field, inner in data.items():
        seen: dict[str, Any] = {}
        for key, value in (inner or {}).items():
            cells.setdefault(_stat_column(key, f"data.{field}.{key}", seen), {})[field] = value
        served.update((s, k) for s, k in seen.items() if s not in served)
    return cells, f"{{field: {{{_described(served)}}}}}"


def _read_group(data: Any) -> tuple[dict[str, dict[str, Any]], str]:
    """``{stat: {field: value}}`` from any of the accepted layouts (:data:`_GROUP_LAYOUTS`),
    and that layout as served (statistic names in the service's spelling).

    A mapping of mappings is statistic-major when a key of ``data`` names a statistic
    (``sum``, ``Median``, ``SUMS``: :func:`_stat_name`), field-major when none does and the
    keys of its members name statistics. A key that names none is a column of its own beside
    both a sum and a median, and refused otherwise, naming the keys seen
    (:func:`_refuse_untold`). In a flat object, beside sums and medians, a key that splits
    into a field they name and another statistic, written the way they are
    (``marketCap_stddev`` beside ``marketCap_sum``), is that statistic's column; one that
    spells a field the client knows (``marketCapLcu``), splits no such way, or splits more
    than one, is refused naming it (:func:`_flat_cells`).

    Examples
    --------
    >>> _read_group({"Sums": {"marketCap": 1.0}, "Medians": {"evRevenueLtm": 2.0}})
    ({'sum': {'marketCap': 1.0}, 'median': {'evRevenueLtm': 2.0}}, '{Sums: {...}, Medians: {...}}')
    >>> _read_group({"marketCap": {"SUM": 1.0}})
    ({'sum': {'marketCap': 1.0}}, '{field: {SUM}}')
    """
    if isinstance(data, list):
        return _row_cells(data)
    if not isinstance(data, Mapping):
        raise ValidationError(
            "data", f"one of the layouts {_GROUP_LAYOUTS}", got=type(data).__name__
        )
    given = [v for v in data.values() if v is not None]
    if not any(isinstance(v, Mapping) for v in given) and (
        given or (data and not any(_flat_split(data)[1:]))
    ):  # flat: every value a number, or every one null and every key naming its statistic
        return _flat_cells(data), "a flat {fieldSum: x, fieldMedian: y} (the statistic in each key)"
    for key, inner in data.items():
        if inner is not None and not isinstance(inner, Mapping):
            # a statistic cannot be told: refused, not guessed
            raise ValidationError(
                f"data.{key}", "an object, as the other members of data", got=inner
            )
    if any(_stat_name(k) is not None for k in data):
        return _stat_major(data)
    return _field_major(data)


@checked_keywords
def group_layout(data: Any) -> str:
    """The layout of a groups/current ``data`` (or its ``{data, meta}`` envelope) as served,
    the statistic names in the service's spelling: what :func:`group_current_frame` read.

    Raises
    ------
    ValidationError
        ``data`` is none of the accepted layouts (the message names the keys seen).

    Examples
    --------
    >>> group_layout({"sum": {"marketCap": 1.0}, "median": {"evRevenueLtm": 2.0}})
    '{sum: {...}, median: {...}}'
    >>> group_layout([{"field": "marketCap", "Sum": 1.0, "Median": None}])
    'a list of {field, Sum, Median}'
    """
    return _read_group(_unwrap(data, None)[0])[1]


@checked_keywords
def group_current_frame(
    data: Mapping[str, Any] | Sequence[Mapping[str, Any]], meta: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """Group current data as one row per field with ``sum`` and ``median``.

    Accepts the sandbox layout ``{"sum": {field: x}, "median": {field: y}}``,
    the field-major variant ``{field: {"sum": x, "median": y}}``, a list of
    ``{"field", "sum", "median"}`` rows, a flat object whose every key names its
    statistic (``marketCapSum``, ``marketCap_sum``, ``sum_marketCap``,
    ``sumMarketCap``), or the whole ``{data, meta}`` envelope. A statistic's name
    may be written in any case or as a plural (``Sum``, ``SUMS``, ``medians``).
    ``data`` is field-major only when the keys of its members name statistics. Other
    statistics the service sends become extra columns: ``mean``, ``min``, ``max``,
    ``count`` ... under their own names, and, beside both a sum and a median, any key
    that names no statistic (``stddev``, ``weighted_median``), as served. In a flat
    object that is a key that splits into a field its sums and medians name and another
    statistic (``marketCap_stddev``, ``marketCap.stddev``, ``marketCapStddev``,
    ``stddev_marketCap``, and ``stddevMarketCap`` where they are written so:
    ``sumMarketCap``): a ``stddev`` column (a camelCase statistic with its first letter
    lower case). A statistic joined in camelCase is one of a closed list (``Stddev``,
    ``Variance``, ``Count``, ``P75``, ``WeightedMedian`` ...: :data:`_CAMEL_STAT`); after
    or before a separator, any name. Where the sum or the median is missing,
    such a key (``{"total": {...}, "median": {...}}``: a sum?) is refused, naming the
    keys seen, never guessed, as is a flat key that names no statistic
    (``{"marketCap": x}``), spells a field the client knows, written without its
    statistic (``marketCapLcu``, ``ruleOf40Ltm``, ``market_cap_lcu``: never an ``lcu`` of
    marketCap), names none of a field read beside it (``evRevenueLtm``,
    ``marketCap_revenueLtm``, ``revenueLtmLcuSpread``: no listed statistic), or splits
    more than one way (``revenue_ltm_lcu_spread`` beside ``revenue_ltm_sum`` and
    ``revenue_ltm_lcu_median``: a spread of revenue_ltm_lcu or an lcu_spread of
    revenue_ltm?), unless only one of those ways names a statistic another key has as its
    only reading. A flat key is split at the longest field the client knows (the
    document's current-data fields, their ``Lcu`` variants, those the sandbox serves):
    ``revenueLtmWeightedMedian`` is the ``weightedMedian`` of ``revenueLtm``, not the median
    of a field ``revenueLtmWeighted``; a key naming no known field either way is read as
    before (``peWeightedMedian``: the median of ``peWeighted``, a row of its own). Cells a
    field's class does not have are NaN.
    ``meta`` keys are copied into ``attrs``, its counts (``count``, ``companies``)
    as integers even when written as text or as numpy integers (:func:`read_meta`).

    Examples
    --------
    >>> df = group_current_frame({"sum": {"marketCap": 10.0},
    ...                           "median": {"evRevenueLtm": 4.2}}, {"count": 3})
    >>> df.loc["marketCap", "median"], df.attrs["count"]
    (np.float64(nan), 3)
    """
    data, meta = _unwrap(data, meta)
    cells = _respelled_group_fields(_read_group(data)[0])
    fields: dict[str, None] = {}
    for stat in (*_STATS, *sorted(set(cells) - set(_STATS))):
        fields.update(dict.fromkeys(cells.get(stat, {})))
    known = [f for f in GROUP_ROWS if f in fields]
    fields = dict.fromkeys([*known, *fields])
    index = pd.Index(list(fields), dtype="str", name="field")
    columns: dict[str, np.ndarray] = {}
    for stat in (*_STATS, *sorted(set(cells) - set(_STATS))):
        values = [cells.get(stat, {}).get(f) for f in fields]
        try:
            columns[stat] = np.array(values, dtype=np.float64) if values else np.empty(0)
        except (TypeError, ValueError) as exc:
            unread = why(exc)
        else:
            continue
        # out of the except block: numpy's error, quoting the value, is not its __context__
        raise ValidationError(f"data.{stat}", f"numeric values ({unread})")
    return _with_meta(pd.DataFrame(columns, index=index), meta)


def _respelled_group_fields(cells: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``cells`` (``{stat: {field: value}}``) with each field that spells one of
    :data:`GROUP_ROWS` in another case or with separators (``market_cap``, ``MarketCap``:
    :func:`~dealframe.contract._folded`, the rule of ``current()``) renamed to it, said
    (``respelled_field``, or a warning for items the user built). A spelling is left as
    served where the field itself, or another spelling of it, is there too.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     _respelled_group_fields({"sum": {"market_cap": 1.0}, "median": {"pe": 2.0}})
    {'sum': {'marketCap': 1.0}, 'median': {'pe': 2.0}}
    >>> str(said[0].message)
    'field(s) written in another case or with separators, read as the documented field: market_cap as marketCap'
    """
    fields = {f for inner in cells.values() for f in inner}
    by_fold: dict[str, list[str]] = {}
    for name in fields:
        if isinstance(name, str):
            by_fold.setdefault(_folded(name), []).append(name)
    rename: dict[str, str] = {}
    for known in GROUP_ROWS:
        spellings = by_fold.get(_folded(known), [])
        if len(spellings) == 1 and spellings[0] != known:  # the field, or two spellings: kept
            rename[spellings[0]] = known
    if not rename:
        return cells
    text = (
        "field(s) written in another case or with separators, read as the documented field: "
        + ", ".join(f"{old} as {new}" for old, new in sorted(rename.items()))
    )
    found = shaping_findings()
    if found is not None:
        found.add("respelled_field", text)
    else:  # items the user built, or read by the doctor (which notes it)
        warn_or_note(text)
    return {stat: {rename.get(f, f): v for f, v in inner.items()} for stat, inner in cells.items()}


def _window(ords: list[int], date_from: MonthLike, date_to: MonthLike) -> tuple[int, int]:
    """First and last month ordinals of a frame: the given bounds, else the data's own.

    The rule of :func:`time_series_wide`: a bound given is kept even where no value
    falls; a missing bound is the first (last) month present inside the other; with no
    month there and a bound missing, the range is empty (``date_from`` alone and
    ``date_to`` alone alike).

    Examples
    --------
    >>> _window([], None, "1990-01"), _window([], "2030-01", None), _window([], None, None)
    ((0, -1), (0, -1), (0, -1))
    >>> _window([], "2030-01", "2030-02")  # both given: kept, empty of values
    (720, 721)
    """
    lo, hi = _bounds(date_from, date_to)
    inside = [o for o in ords if (lo is None or o >= lo) and (hi is None or o <= hi)]
    if not inside and (lo is None or hi is None):
        return 0, -1
    return (min(inside) if lo is None else lo), (max(inside) if hi is None else hi)


@checked_keywords
def group_time_series_frame(
    items: Iterable[Mapping[str, Any]] | Mapping[str, Any] | None,
    meta: Mapping[str, Any] | None = None,
    *,
    fields: Sequence[str] | None = None,
    date_from: MonthLike = None,
    date_to: MonthLike = None,
) -> pd.DataFrame:
    """Group time-series items (``{period, median}``) as months × fields.

    One float64 column per field and one row per month, with the same columns and
    dtypes whether the group has 0, 1 or N months of data.

    Parameters
    ----------
    items : list of dict
        The ``data`` array (or the whole ``{data, meta}`` envelope).
    meta : dict, optional
        Copied into ``attrs`` (``count``, ``companies``: integers, even when written as
        text; :func:`read_meta`).
    fields : sequence of str, optional
        Columns always present, in this order (all-NaN when the service sent no
        value); other fields the service sends follow in order of first appearance.
        Pass the fields requested (or every time-series field when none was). Anything but
        None or a list of strings is a :class:`~dealframe.errors.ValidationError` naming
        ``fields``.
    date_from, date_to : str ``YYYY-MM`` or Period, optional
        Index range (inclusive), as in :func:`time_series_wide`: a bound given is
        kept even when no month near it has a value, and periods outside are dropped.
        Default: the first to the last period present (months the service skipped
        inside are NaN rows).

    Returns
    -------
    pandas.DataFrame
        Index: monthly ``PeriodIndex`` named ``month``; columns: ``field`` (float64).

    Raises
    ------
    dealframe.errors.ValidationError
        A median value that is no number: a boolean, or text that is none (``"abc"``),
        named ``median.<field>``. As every Family A reader reads numbers, a number written as
        text (``"12.5"``) is read and warned of (:class:`~dealframe.ServiceContractWarning`,
        once per field, naming the first periods), and an empty string ``""`` is read as
        null and warned of.

    Examples
    --------
    >>> df = group_time_series_frame([{"period": "2024-01", "median": {"marketCap": 3.0}},
    ...                               {"period": "2024-03", "median": {"marketCap": 4.0}}],
    ...                              {"count": 2, "companies": 9})
    >>> len(df), df.attrs["companies"]
    (3, 9)
    >>> empty = group_time_series_frame([], {"count": 0, "companies": 0}, fields=["marketCap"],
    ...                                 date_from="2030-01", date_to="2030-03")
    >>> empty.shape, empty["marketCap"].dtype
    ((3, 1), dtype('float64'))
    """
    fields = _check_names("fields", fields)
    items, meta = _unwrap(items, meta)
    records = as_records(items, "items")
    columns: dict[str, None] = dict.fromkeys(fields or ())
    ords: list[int] = []
    for i, rec in enumerate(records):
        ords.append(_month_ordinal(rec.get("period"), f"group_time_series[{i}].period"))
        median = rec.get("median") or {}
        if not isinstance(median, Mapping):
            raise ValidationError(f"group_time_series[{i}].median", "an object", got=median)
        columns.update(dict.fromkeys(median))
    lo, hi = _window(ords, date_from, date_to)
    out = np.full((max(hi - lo + 1, 0), len(columns)), np.nan)
    pos = {f: j for j, f in enumerate(columns)}
    for field, (rows, values, periods) in _medians(records, ords, lo, hi).items():
        out[rows, pos[field]] = _floats(values, f"median.{field}", labels=("period", periods))
    frame = pd.DataFrame(
        out, index=_month_index(lo, hi), columns=pd.Index(list(columns), dtype="str", name="field")
    )
    return _with_meta(frame, meta)


def _medians(
    records: Sequence[Mapping[str, Any]], ords: Sequence[int], lo: int, hi: int
) -> dict[str, tuple[list[int], list[Any], list[str]]]:
    """The median values of the periods from ``lo`` to ``hi`` by field: the row of each (its
    month from ``lo``), the value as sent, and its period, for the client's number reader
    (:func:`~dealframe.frames.normalize._floats`: a number written as text read and warned of,
    once per field, ``""`` read as null and warned of, a boolean or other text refused), as
    every Family A reader reads its numbers.

    Examples
    --------
    >>> _medians([{"period": "2024-02", "median": {"pe": "1.5"}}], [649], 648, 650)
    {'pe': ([1], ['1.5'], ['2024-02'])}
    """
    by_field: dict[str, tuple[list[int], list[Any], list[str]]] = {}
    for o, rec in zip(ords, records):
        if not lo <= o <= hi:
            continue
        for field, value in (rec.get("median") or {}).items():
            rows, values, periods = by_field.setdefault(field, ([], [], []))
            rows.append(o - lo)
            values.append(value)
            periods.append(str(rec.get("period")))
    return by_field
