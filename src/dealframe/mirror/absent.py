"""Feed rows that lack documented fields: the table's values kept, not overwritten by absence.

The interface document gives every item of a list answer every documented field, and does not
say what a soft-deleted record of the change feed holds: a real service may well send it as a
tombstone (``{"id", "deleted", "updated_at"}`` only). A field *absent* from an item (not null:
null is a value, the record's own) says nothing of the record's value, so an incremental sync
merges such a row into the table updating only the fields it holds: the others keep the values
the table held (:func:`kept_values`). A row new to the table has none to keep: its absent
fields are written null. Both are said (:func:`absent_said`), by entity, rows and fields.

The client's page says which items lacked which fields (``attrs["absent"]`` of
:meth:`~dealframe.private.api.PrivateApi.page`); the change-feed fetch marks those rows
(:data:`~dealframe.mirror.schema.ABSENT`), and :class:`~dealframe.mirror.store.StagedRows`
keeps, per id, the fields its latest read lacked.

Examples
--------
>>> import pyarrow as pa
>>> rows = pa.table({"id": ["a", "b"], "name": pa.nulls(2, pa.string()), "deleted": [True, True]})
>>> stored = pa.table({"id": ["a"], "name": ["Acme"], "deleted": [False]})
>>> merged, kept, new = kept_values(rows, stored, {"a": ("name",), "b": ("name",)})
>>> merged.column("name").to_pylist(), dict(kept), dict(new)
(['Acme', None], {('name',): 1}, {('name',): 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["absent_said", "kept_values"]

#: Fields lacked, by the rows that lacked them (a row counted once, under its own fields).
Lacked = Counter[tuple[str, ...]]


def kept_values(
    rows: pa.Table, stored: pa.Table, absent: Mapping[str, tuple[str, ...]]
) -> tuple[pa.Table, Lacked, Lacked]:
    """``rows`` with, in each row whose id ``absent`` names, the columns it names taken from
    ``stored``'s row of the same id (the table's values); and how many rows, by the fields they
    lacked, kept the table's values and how many were new to it (their fields left null).

    Parameters
    ----------
    rows : pyarrow.Table
        The feed's rows about to be merged (an ``id`` column, the table's schema).
    stored : pyarrow.Table
        The table's rows for (at least) those ids, with the columns ``absent`` names.
    absent : mapping of str to tuple of str
        The columns each id's row lacked (absent from its item, not null).
    """
    ids = rows.column("id")
    marked = [absent.get(ident, ()) for ident in ids.to_pylist()]
    at = pc.index_in(ids, value_set=stored.column("id"))  # the stored row, or null when new
    held = pc.is_valid(at).to_pylist()
    kept, new = Lacked(), Lacked()
    for lacked, found in zip(marked, held):
        if lacked:
            (kept if found else new)[lacked] += 1
    names = {name for lacked in kept for name in lacked}
    for name in (n for n in rows.column_names if n in names):  # in the table's order
        use = pa.array([found and name in lacked for lacked, found in zip(marked, held)])
        table_values = stored.column(name).take(at).cast(rows.schema.field(name).type)
        merged = pc.if_else(use, table_values, rows.column(name))
        rows = rows.set_column(rows.schema.get_field_index(name), name, merged)
    return rows, kept, new


def _fields(lacked: Iterable[str]) -> str:
    names = list(lacked)
    return f"{len(names)} documented field(s) ({', '.join(names)})"


def absent_said(kept: Lacked, new: Lacked) -> list[str]:
    """What the rows lacking documented fields did, one sentence per set of fields lacked.

    Examples
    --------
    >>> absent_said(Counter({("name", "country"): 5}), Counter({("name",): 1}))[0]
    '5 row(s) came without 2 documented field(s) (name, country), absent rather than null (a tombstone of a deleted record, say): their values stay as the table held them'
    """
    said = [
        f"{count} row(s) came without {_fields(lacked)}, absent rather than null (a tombstone "
        "of a deleted record, say): their values stay as the table held them"
        for lacked, count in kept.items()
    ]
    said += [
        f"{count} row(s) new to the table came without {_fields(lacked)}, absent rather than "
        "null: written with those fields null (no earlier value to keep)"
        for lacked, count in new.items()
    ]
    return said
