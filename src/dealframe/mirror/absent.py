"""Feed rows that lack documented fields: a tombstone's values kept, a live row's written null.

The interface document gives every item of a list answer every documented field, and does not
say what a soft-deleted record of the change feed holds: a real service may well send it as a
tombstone (``{"id", "deleted", "updated_at"}`` only). A field *absent* from an item (not null:
null is a value, the record's own) of a row the feed marks deleted says nothing of the
record's value, so the sync keeps the value last read when the row is a tombstone (of the
documented fields of its table besides ``id``, ``deleted`` and ``updated_at``, it holds no more
than it lacks: :func:`is_tombstone`): this sync's earlier read of the record (read whole, then
deleted while the walk went on), else the table's (:func:`kept_values`; a rebuild reads the
table it replaces). A tombstone of a record never read has none to keep: its
absent fields are written null. A row *not* a tombstone (live, or marked deleted but holding
more of its fields than it lacks) that lacks fields is written null there, as it always was: services that leave
null fields out of their items ("exclude none" serialisers) are common, and a value cleared
must be written cleared. All three are said (:func:`absent_said`), one sentence each at most,
by entity, rows and the fields most often absent.

The client's page says which items lacked which fields (``attrs["absent"]`` of
:meth:`~dealframe.private.api.PrivateApi.page`); the change-feed fetch marks those rows
(:data:`~dealframe.mirror.schema.ABSENT`), and :class:`~dealframe.mirror.store.StagedRows`
keeps, per id, the fields its latest read lacked and whether it was a tombstone.

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
from collections.abc import Mapping

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["absent_said", "is_tombstone", "kept_values"]

#: Fields lacked, by the rows that lacked them (a row counted once, under its own fields).
Lacked = Counter[tuple[str, ...]]


def is_tombstone(lacked: int, others: int) -> bool:
    """Whether a row marked deleted whose item lacked ``lacked`` of the ``others`` documented
    top-level fields of its table (``id``, ``deleted`` and ``updated_at`` left out) is a
    tombstone: it holds no more of them than it lacks. Fields, not columns, are counted (a
    deal's ``target`` gives five columns): ``{id, name, deleted, updated_at}`` of an investor
    (4 other fields) and a deal holding only its ``target`` are tombstones, and a record that
    lacks only the fields it left null (a service that leaves nulls out) is not (the harm of
    the other way, a cleared value kept, is the smaller one for a record mostly null).

    Examples
    --------
    >>> is_tombstone(3, 4), is_tombstone(2, 4), is_tombstone(1, 20)
    (True, True, False)
    """
    return others - lacked <= lacked


def kept_values(
    rows: pa.Table, stored: pa.Table, absent: Mapping[str, tuple[str, ...]]
) -> tuple[pa.Table, Lacked, Lacked]:
    """``rows`` with, in each row whose id ``absent`` names, the columns it names taken from
    ``stored``'s row of the same id (the values last read: this sync's earlier read of the
    record, else the table's); and how many rows, by the fields they lacked, kept values and
    how many had none to keep (their fields left null).

    Parameters
    ----------
    rows : pyarrow.Table
        The feed's rows about to be merged (an ``id`` column, the table's schema).
    stored : pyarrow.Table
        The rows last read of (at least) those ids, with the columns ``absent`` names, one
        per id.
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


def _fields(lacked: Lacked) -> str:
    """The fields the rows lacked, those most often absent first (the first four named)."""
    by_field: Counter[str] = Counter()
    for names, count in lacked.items():
        for name in names:
            by_field[name] += count
    top = [f"{name} ({count})" for name, count in by_field.most_common(4)]
    more = f", {len(by_field) - 4} more" if len(by_field) > 4 else ""
    return f"{len(by_field)} documented field(s) ({', '.join(top)}{more})"


def absent_said(kept: Lacked, new: Lacked, nulled: Lacked, *, lost: str | None = None) -> list[str]:
    """What the rows lacking documented fields did: at most one sentence each for the
    tombstones filled (``kept``), the tombstones with nothing to fill from (``new``; ``lost``
    says why the values a table held could not be read, when they could not) and the live
    rows written null (``nulled``), each with its count of rows and the fields most often
    absent (with the rows lacking each).

    Examples
    --------
    >>> absent_said(Counter({("name", "country"): 5}), Counter(), Counter())[0]
    "5 row(s) marked deleted came without 2 documented field(s) (name (5), country (5)), absent rather than null (tombstones): their values stay as last read (this sync's earlier read of the record, else the table)"
    >>> absent_said(Counter(), Counter(), Counter({("ceo",): 3, ("ceo", "city"): 1}))[0]
    '4 row(s) not tombstones (live, or marked deleted holding more of their fields than they lack) came without 2 documented field(s) (ceo (4), city (1)), absent rather than null: written null (a service that leaves nulls out of its items, say)'
    """
    said = []
    if kept:
        said.append(
            f"{sum(kept.values())} row(s) marked deleted came without {_fields(kept)}, absent "
            "rather than null (tombstones): their values stay as last read (this sync's "
            "earlier read of the record, else the table)"
        )
    if new and lost is not None:
        said.append(
            f"{sum(new.values())} row(s) marked deleted came without {_fields(new)}, absent "
            f"rather than null (tombstones), and the values the table held could not be read "
            f"({lost}): written null, the values the table held for them are lost"
        )
    elif new:
        said.append(
            f"{sum(new.values())} row(s) marked deleted and new to the table came without "
            f"{_fields(new)}, absent rather than null (tombstones): written null (no earlier "
            "value to keep)"
        )
    if nulled:
        said.append(
            f"{sum(nulled.values())} row(s) not tombstones (live, or marked deleted holding more "
            f"of their fields than they lack) came without {_fields(nulled)}, absent rather than "
            "null: written null (a "
            "service that leaves nulls out of its items, say)"
        )
    return said
