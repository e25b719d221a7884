"""The kind of a Family A field in the research store, and what a new snapshot may change.

A field of ``public/current`` keeps its kind across snapshots (a number stays a number), as the
client's frames do for a documented field: a field that was ``7.5`` and is now ``"A+"`` is not
cast to fit the stored column (which raised a raw ``ArrowInvalid``, or turned ``7.5`` into the
text ``'7.5'``), it is refused as a :class:`~dealframe.errors.ServiceContractError` naming the
field and both kinds, before anything is written. A stored column that holds no value at all (a
field first seen all-null, which the client's frame types as text) takes the kind of the first
values that arrive: it is widened, not refused.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ServiceContractError

__all__ = ["kind", "kinds_checked"]


def kind(type_: pa.DataType) -> str:
    """The kind of an Arrow type, in words.

    Examples
    --------
    >>> kind(pa.float64()), kind(pa.int64()), kind(pa.large_string()), kind(pa.bool_())
    ('number', 'number', 'text', 'true/false')
    """
    if pa.types.is_integer(type_) or pa.types.is_floating(type_) or pa.types.is_decimal(type_):
        return "number"
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return "text"
    if pa.types.is_boolean(type_):
        return "true/false"
    if pa.types.is_temporal(type_):
        return "date or time"
    if pa.types.is_null(type_):
        return "null"
    return str(type_)


def kinds_checked(
    stored: pa.Schema, rows: pa.Table, holds_values: Callable[[str], bool], what: str
) -> list[str]:
    """The stored columns ``rows`` widens (they hold no value; ``rows`` gives them another
    kind); refuse a field whose values change kind.

    Parameters
    ----------
    stored : pyarrow.Schema
        The table's schema.
    rows : pyarrow.Table
        The new snapshot's rows.
    holds_values : callable
        ``holds_values(name)``: whether the stored column ``name`` holds a value (a scan; asked
        only for a column whose kind differs).
    what : str
        The snapshot, for the message (``"the snapshot of 2026-01-05"``).

    Raises
    ------
    dealframe.errors.ServiceContractError
        A field ``rows`` gives values of another kind than the stored ones (``finding``
        ``wrong_shape``).

    Examples
    --------
    >>> old = pa.schema([("sku", pa.string()), ("esgRating", pa.float64())])
    >>> kinds_checked(old, pa.table({"sku": ["A-USA"], "esgRating": ["A+"]}), lambda n: True,
    ...               "the snapshot of 2026-01-05")
    Traceback (most recent call last):
    ...
    dealframe.errors.ServiceContractError: 200 SERVICE_CONTRACT: Family A field 'esgRating' changed kind: the research store holds it as number (earlier snapshots), the service now sends text ('A+'); nothing was written for the snapshot of 2026-01-05
    """
    widened = []
    for name in rows.column_names:
        if name not in stored.names:
            continue
        column = rows.column(name)
        if column.null_count == len(column):  # no value: nulls fit any kind
            continue
        before, now = kind(stored.field(name).type), kind(column.type)
        if before == now:
            continue
        if not holds_values(name):
            widened.append(name)
            continue
        example = pc.drop_null(column)[0].as_py()
        raise ServiceContractError(
            200,
            f"Family A field {name!r} changed kind: the research store holds it as {before} "
            f"(earlier snapshots), the service now sends {now} ({example!r}); nothing was "
            f"written for {what}",
            finding="wrong_shape",
        )
    return widened
