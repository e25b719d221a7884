"""Rows of a list answer that the filters sent exclude (a service ignored a filter), dropped.

The filter wire form (``{"deal_type": [...]}``, a plain value meaning the field's first
operator) is how this client reads the interface document; a service that reads a filter
another way, or not at all, answers 200 with rows the request ruled out. Every filter whose
field is a column of the list frame is checked against the frame with the operator's
documented meaning (``in``, ``overlaps``, ``eq``, ``ilike``, ``gte``/``lte`` inclusive; text
without regard to case, which a service may ignore), and
``include_deleted`` left false rules out rows with ``deleted: true``. A null cell meets no
condition; a column null in every row is not checked (the answer does not carry the field). Filters on fields that list rows do not
hold (``investor_id``, ``target_region`` ...) are not checked.

Examples
--------
>>> frame = pd.DataFrame({"id": ["a", "b"], "deal_type": ["M&A", "Venture"]})
>>> rows, notes = outside_filters(frame, {"deal_type": ["Venture"]}, {"deal_type": "in"})
>>> rows.tolist(), notes
([True, False], ["deal_type: 1 row not in ['Venture']"])
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dealframe._wording import counted
from dealframe.contract import Findings, _ids_of  # the ids a finding names, as its others do
from dealframe.frames.nested import contains_any
from dealframe.private.filters import FilterSchema

__all__ = ["drop_outside", "outside_filters", "say_deleted"]

#: The list frame's column for a filter whose name is not the column's own.
COLUMNS = {
    "date_from": "deal_date",
    "date_to": "deal_date",
    "valuation_min": "deal_valuation",
    "valuation_max": "deal_valuation",
    "raised_min": "deal_raised",
    "raised_max": "deal_raised",
    "revenue_min": "deal_revenue",
    "revenue_max": "deal_revenue",
    "ebitda_min": "deal_ebitda",
    "ebitda_max": "deal_ebitda",
    "founded_min": "founded",
    "founded_max": "founded",
    "ipoed_from": "ipoed",
    "ipoed_to": "ipoed",
}
#: The operator a range filter stands for, by the end of its name.
_RANGE = {"min": "gte", "from": "gte", "max": "lte", "to": "lte"}
#: Columns of identifiers: compared without case (the wire form is lower case).
_IDS = frozenset({"id", "target_id"})


def _bound(column: pd.Series, value: Any) -> Any:
    """``value`` in the column's terms: a timestamp for a datetime column, else as it is."""
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        stamp = pd.Timestamp(value)
        return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp
    if pd.api.types.is_datetime64_dtype(column.dtype):
        return pd.Timestamp(value)
    return value


def _violates(column: pd.Series, name: str, op: str, value: Any) -> tuple[pd.Series, str] | None:
    """The rows ``column`` shows outside ``op value``, and how to say it (None: unchecked)."""
    if op == "in" and isinstance(value, list):
        if name in _IDS:
            wanted = {str(v).lower() for v in value}
            return ~column.str.lower().isin(wanted), f"not in the {len(value)} ids asked for"
        return ~_folded(column).isin({_fold(v) for v in value}), f"not in {value[:5]!r}"
    if op == "overlaps" and isinstance(value, list):
        return ~contains_any(column, value), f"sharing no value with {value[:5]!r}"
    if op == "eq" and isinstance(value, str):
        return _folded(column) != _fold(value), f"not equal to {value!r}"
    if op == "eq":
        return column != value, f"not equal to {value!r}"
    if op == "ilike" and isinstance(value, str) and not set(value) & {"%", "_"}:
        # lower case or case folding (``ﬁ`` holds ``fi``): a row either finds is the service's
        text = column.astype("string")
        lower = text.str.lower().str.contains(value.lower(), regex=False)
        found = lower | text.str.casefold().str.contains(value.casefold(), regex=False)
        return ~found.astype("boolean"), f"not containing {value!r}"
    if op in ("gte", "lte"):
        bound = _bound(column, value)
        if op == "gte":
            return column < bound, f"before {value!r}" if _dated(column) else f"below {value!r}"
        return column > bound, f"after {value!r}" if _dated(column) else f"above {value!r}"
    return None


def _fold(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


def _folded(column: pd.Series) -> pd.Series:
    """Text without case: a service may match ``usa`` to ``USA``; that is not a row outside."""
    return column.astype("string").str.casefold()


def _dated(column: pd.Series) -> bool:
    return pd.api.types.is_datetime64_any_dtype(column.dtype)


def outside_filters(
    frame: pd.DataFrame, wire: Mapping[str, Any], operators: Mapping[str, str]
) -> tuple[np.ndarray, list[str]]:
    """Which rows of a list ``frame`` the ``wire`` filters exclude, and per filter how many.

    Parameters
    ----------
    frame : pandas.DataFrame
        A list frame (companies, investors or deals).
    wire : mapping
        The filters as sent (plain values, or ``{operator: value}``).
    operators : mapping
        Each filter's first operator from the discovery document (what a plain value means).

    Returns
    -------
    tuple
        A boolean array (True: the filters exclude the row) and one note per filter that
        some row breaks, naming the filter, the count and the rule.
    """
    bad = np.zeros(len(frame), dtype=bool)
    notes: list[str] = []
    if not len(frame):
        return bad, notes
    for name, given in wire.items():
        op: Any = operators.get(name) or _RANGE.get(name.rpartition("_")[2])
        value = given
        if isinstance(given, Mapping) and len(given) == 1:
            op, value = next(iter(given.items()))
        column_name = COLUMNS.get(name, name)
        if name == "include_deleted" or column_name not in frame.columns or op is None:
            continue
        column = frame[column_name]
        if not column.notna().any():
            continue  # the answer does not carry the field: nothing to check it on
        try:
            checked = _violates(column, name, str(op), value)
        except (TypeError, ValueError):
            continue  # a value this check cannot compare: the service decides
        if checked is None:
            continue
        # a null meets no condition (as the service reads it), so it is outside too
        rows = checked[0].fillna(True).to_numpy(dtype=bool) | column.isna().to_numpy()
        if rows.any():
            count = int(rows.sum())
            notes.append(f"{name}: {count} row{'s' if count > 1 else ''} {checked[1]}")
            bad |= rows
    if wire.get("include_deleted") is not True and "deleted" in frame.columns:
        rows = frame["deleted"].fillna(False).to_numpy(dtype=bool)
        if rows.any():
            notes.append(
                f"include_deleted: {counted(int(rows.sum()), 'deleted row')}, not asked for"
            )
            bad |= rows
    return bad, notes


def drop_outside(
    frame: pd.DataFrame,
    wire: Mapping[str, Any],
    schema: FilterSchema,
    found: Findings,
    *,
    keep: Collection[str] = (),
) -> pd.DataFrame:
    """``frame`` without the rows the filters sent exclude (a service that ignored a filter),
    said as an ``unrequested`` finding; the rows outside only the filters named in ``keep``
    are kept, said in an ``unrequested`` finding of their own.

    Parameters
    ----------
    frame : pandas.DataFrame
        A list frame (companies, investors or deals).
    wire : mapping
        The filters as sent.
    schema : FilterSchema
        The discovery document the filters were built by (each filter's first operator is
        what a plain value means).
    found : Findings
        Where the rows dropped (and kept) are said.
    keep : collection of str, optional
        Filters whose rows outside are kept (``page()``'s ``updated_at``: a change-feed walk
        reads such rows as the service ignoring its cursor).

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when no row is dropped, else a copy without those rows (its
        ``attrs`` kept).

    Examples
    --------
    >>> schema = FilterSchema("transactions", {"filters": [
    ...     {"field": "updated_at", "type": "datetime", "operators": ["gte"]}]})
    >>> frame = pd.DataFrame({"id": ["a", "b"], "updated_at": pd.to_datetime(
    ...     ["2001-01-01", "2030-01-01"], utc=True)})
    >>> found = Findings("POST /transactions page 1")
    >>> len(drop_outside(frame, {"updated_at": "2010-01-01T00:00:00Z"}, schema, found,
    ...                  keep=["updated_at"]))
    2
    >>> print(found.items[0].message)
    1 of 2 rows are below the filters sent (updated_at: 1 row before '2010-01-01T00:00:00Z'): kept (a change-feed walk reads them as the service ignoring its cursor; does the service read these filters?)
    """
    operators = {n: f.operators[0] for n, f in schema.fields.items() if f.operators}
    bad, notes = outside_filters(frame, {n: v for n, v in wire.items() if n not in keep}, operators)
    out = frame
    if bad.any():
        found.add(
            "unrequested",
            f"{int(bad.sum())} of {len(frame)} rows are outside the filters sent "
            f"({'; '.join(notes)}): dropped (does the service read these filters?)",
        )
        out = frame.loc[~bad].reset_index(drop=True)
        out.attrs.update(frame.attrs)
    kept = {n: v for n, v in wire.items() if n in keep}
    if kept:  # include_deleted is the dropped rows' (said above)
        below, said = outside_filters(out, {**kept, "include_deleted": True}, operators)
        if below.any():
            found.add(
                "unrequested",
                f"{int(below.sum())} of {len(out)} rows are below the filters sent "
                f"({'; '.join(said)}): kept (a change-feed walk reads them as the service "
                "ignoring its cursor; does the service read these filters?)",
            )
    return out


def say_deleted(frame: pd.DataFrame, found: Findings, what: str) -> None:
    """Say, in one ``deleted_served`` finding naming their ids, the rows of a sub-collection
    ``frame`` served with ``deleted: true``; the rows are kept.

    The interface document (section 3) hides a soft-deleted entity from reads that do not
    ask for deleted records, and a sub-collection cannot ask (it takes no
    ``include_deleted``): such rows are the service's choice, not the call's. They stay in
    the frame, flagged in its ``deleted`` column, for the caller to keep or drop. The answer
    is used as it came, so the finding leaves the call's HTTP cache entries in place
    (:data:`~dealframe.contract.KEPT_IN_CACHE`): asking again would get the same rows.

    Parameters
    ----------
    frame : pandas.DataFrame
        A sub-collection frame (its ``id`` and ``deleted`` columns are read when present).
    found : Findings
        Where the rows are said.
    what : str
        What the rows are, for the message (``"fundings"``).

    Examples
    --------
    >>> found = Findings("GET /companies/{id}/fundings")
    >>> say_deleted(pd.DataFrame({"id": ["a", "b"], "deleted": [True, False]}), found,
    ...             "fundings")
    >>> print(found.items[0].message)
    1 of 2 fundings rows are soft-deleted (deleted: true) though a sub-collection takes no include_deleted (the interface document, section 3, hides deleted records from reads that do not ask for them): kept, flagged in the deleted column: id a
    """
    if "deleted" not in frame.columns or not len(frame):
        return
    rows = frame["deleted"].eq(True).fillna(False).astype(bool)
    if not rows.any():
        return
    found.add(
        "deleted_served",
        f"{int(rows.sum())} of {len(frame)} {what} rows are soft-deleted (deleted: true) though "
        "a sub-collection takes no include_deleted (the interface document, section 3, hides "
        "deleted records from reads that do not ask for them): kept, flagged in the deleted "
        f"column{_ids_of(frame, rows)}",
    )
