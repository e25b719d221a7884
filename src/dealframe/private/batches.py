"""Filters of ids sent in batches: how a list call cuts, names and puts together its batches.

A request carries at most :data:`IDS_PER_BATCH` ids of a filter the discovery document types
``array_uuid`` (``id``, ``target_id``, ``investor_id`` ...). A list call holding more sends
one such filter (:func:`batched_filter`) in batches, every other filter whole with each; these
helpers read and rewrite a filter of ids as it goes out (:func:`id_values`, :func:`with_ids`),
name a batch in failures and findings (:func:`batch_name`, :func:`in_batch`), count the rows
of a union's batches, which may share rows (:func:`batch_overlap`, :func:`rows_counted`,
:class:`Distinct`), and merge sorted batches into one order (:func:`merge_batches`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..contract import Findings
from ..errors import ValidationError
from ..frames.normalize import canonical_uuid
from ..transport.paging import ItemFailure
from .filters import FilterSchema
from .order import merged_order

__all__ = [
    "IDS_PER_BATCH",
    "Distinct",
    "Held",
    "Overlap",
    "batch_name",
    "batch_overlap",
    "batched_filter",
    "id_values",
    "ids_held",
    "in_batch",
    "merge_batches",
    "over_bound",
    "rows_counted",
    "with_ids",
]

#: Ids per request of any filter the discovery document types ``array_uuid`` (``id``,
#: ``target_id``, ``investor_id`` ...): the sandbox's cap on each; a list call sends a filter
#: holding more in batches of this many
#: (:meth:`~dealframe.private.api.PrivateApi._pull_list`).
IDS_PER_BATCH = 1000


def merge_batches(
    frame: pd.DataFrame, batches: list[int], sort: str, found: Findings
) -> pd.DataFrame:
    """A sorted lookup's batches, each sorted by the service, merged into one order
    (:mod:`dealframe.private.order`); a key the rows do not carry is said, not guessed."""
    order = merged_order(frame, batches, sort)
    if order is None:
        found.add(
            "unsorted",
            f"the ids went out in {len(batches)} batches of at most {IDS_PER_BATCH}, each "
            f"sorted by {sort!r}; the rows carry no {sort.partition(':')[0]!r} column to "
            "merge them by, so they are in that order batch after batch",
        )
        return frame
    out = frame.iloc[order].reset_index(drop=True)
    out.attrs.update(frame.attrs)
    return out


def id_values(wired: Any) -> list[str] | None:
    """The ids of a filter of ids as it goes out: a plain list, or ``{operator: [...]}`` (a
    service listing several operators for it); None for any other value.

    Examples
    --------
    >>> id_values(["a", "b"]), id_values({"in": ["a"]}), id_values("a")
    (['a', 'b'], ['a'], None)
    """
    if isinstance(wired, list):
        return wired
    if isinstance(wired, Mapping) and len(wired) == 1:
        inner = next(iter(wired.values()))
        return inner if isinstance(inner, list) else None
    return None


def with_ids(wired: Any, ids: list[str]) -> Any:
    """``wired`` (a filter of ids as :func:`id_values` reads it) holding ``ids`` instead, in
    the same form.

    Examples
    --------
    >>> with_ids({"in": ["a", "b"]}, ["b"]), with_ids(["a", "b"], ["a"])
    ({'in': ['b']}, ['a'])
    """
    return {next(iter(wired)): ids} if isinstance(wired, Mapping) else ids


def batched_filter(schema: FilterSchema, wire: Mapping[str, Any]) -> str | None:
    """The filter of ids a list call sends in batches of :data:`IDS_PER_BATCH`: the one
    filter the discovery document types ``array_uuid`` (``id``, ``target_id``,
    ``investor_id`` ...) that holds more ids than that; else ``id`` when given (a lookup by
    id is read batch by batch, so the ids it did not return are known exactly); else None.

    Two such filters over the bound are refused: each batch of one would have to go out
    with every batch of the other, and a union of those cross products is not what a
    client should guess at.

    Raises
    ------
    ValidationError
        Naming the filters over the bound, what they hold and the bound.

    Examples
    --------
    >>> from dealframe.private.filters import documented_schema
    >>> schema = documented_schema("transactions")
    >>> batched_filter(schema, {"target_id": ["a"] * 1001, "id": ["b"]})
    'target_id'
    >>> batched_filter(schema, {"id": ["b"]}), batched_filter(schema, {"deal_type": ["M&A"]})
    ('id', None)
    """
    held = ids_held(schema, wire)
    over = over_bound(held)
    if len(over) > 1:
        raise ValidationError(
            " and ".join(over),
            f"at most one filter of ids holding more than {IDS_PER_BATCH:,} ids (one request "
            f"takes at most {IDS_PER_BATCH:,} of each; these hold {over}): the client sends "
            "one such filter in batches, not two at once; split the others into parts of "
            f"{IDS_PER_BATCH:,} and concatenate the frames of one call per part",
        )
    if over:
        return next(iter(over))
    return "id" if "id" in held else None


def ids_held(schema: FilterSchema, wire: Mapping[str, Any]) -> dict[str, int]:
    """How many ids each filter of ids of ``wire`` holds: those the discovery document types
    ``array_uuid``, and ``id`` whatever its type."""
    held: dict[str, int] = {}
    for name, wired in wire.items():
        spec = schema.fields.get(name)
        ids = id_values(wired)
        if ids is not None and (name == "id" or (spec is not None and spec.type == "array_uuid")):
            held[name] = len(ids)
    return held


class Held(dict[str, int]):
    """Filters of ids and how many each holds, said as ``target_id 1,500, investor_id 1,200``."""

    def __str__(self) -> str:
        return ", ".join(f"{name} {count:,}" for name, count in self.items())


def over_bound(held: Mapping[str, int]) -> Held:
    """The filters of ``held`` (:func:`ids_held`) holding more than :data:`IDS_PER_BATCH` ids.

    Examples
    --------
    >>> str(over_bound({"id": 3, "target_id": 1500}))
    'target_id 1,500'
    """
    return Held({name: count for name, count in held.items() if count > IDS_PER_BATCH})


def batch_name(key: str, start: int, count: int) -> str:
    """The batch of the filter of ids ``key`` starting at ``start`` (counted from 0) of its
    ``count`` ids, as a failure names it.

    Examples
    --------
    >>> batch_name("investor_id", 1000, 1449), batch_name("id", 0, 1500)
    ('investor_id ids 1001-1449', 'ids 1-1000')
    """
    named = "ids" if key == "id" else f"{key} ids"
    return f"{named} {start + 1}-{min(start + IDS_PER_BATCH, count)}"


def in_batch(failure: ItemFailure, batch: str) -> ItemFailure:
    """A failed page of a batch of ids, named with its batch (``ids 1001-1500 page 2``).

    Examples
    --------
    >>> in_batch(ItemFailure(0, 2, KeyError("x")), "ids 1001-1500").item
    'ids 1001-1500 page 2'
    """
    return ItemFailure(failure.index, f"{batch} page {failure.item}", failure.error)


class Overlap(NamedTuple):
    """The rows of a union filter's batches, one batch after another (:func:`batch_overlap`)."""

    later: np.ndarray  # rows whose id an earlier batch of the call holds (dropped)
    distinct: list[int]  # distinct rows of each batch, shared ones included
    kept: list[int]  # rows of each batch left once ``later`` ones are dropped
    shared: int  # rows of later batches that an earlier batch holds (each counted once a batch)


def batch_overlap(frame: pd.DataFrame, batches: list[int]) -> Overlap:
    """Of the rows of a union filter's batches (one batch after another): which rows an
    earlier batch of the call already holds (a deal of two investors of ``investor_id`` that
    went out in two batches), and how many distinct rows each batch holds (its rows less
    those it repeats itself; a row without id counts once each).

    Examples
    --------
    >>> frame = pd.DataFrame({"id": ["a", "b", "b", "a", "c", "c"]})
    >>> seen = batch_overlap(frame, [3, 3])
    >>> seen.later.tolist(), seen.distinct, seen.kept, seen.shared
    ([False, False, False, True, False, False], [2, 2], [3, 2], 1)
    """
    label = np.repeat(np.arange(len(batches)), batches)
    ids = frame["id"].reset_index(drop=True)
    where = np.flatnonzero((ids.notna() & ids.ne("")).to_numpy(dtype=bool))
    keyed = pd.DataFrame({"id": ids.iloc[where].astype(str).to_numpy(), "batch": label[where]})
    first = keyed.groupby("id", sort=False)["batch"].transform("min").to_numpy()
    later = np.zeros(len(frame), dtype=bool)
    later[where[keyed["batch"].to_numpy() > first]] = True
    repeats = np.zeros(len(frame), dtype=bool)
    repeats[where[keyed.duplicated(["id", "batch"]).to_numpy()]] = True

    def per_batch(rows: np.ndarray) -> list[int]:
        return np.bincount(label[rows], minlength=len(batches)).tolist()

    distinct = [n - r for n, r in zip(batches, per_batch(repeats), strict=True)]
    kept = [n - d for n, d in zip(batches, per_batch(later), strict=True)]
    return Overlap(later, distinct, kept, int((later & ~repeats).sum()))


def rows_counted(distinct: list[int], caps: list[int | None], held: list[int | None]) -> int:
    """The rows a union's batches count against what they should hold: each batch's distinct
    rows (up to its cap), but a batch held to the pages read counts its rows that arrived on
    them, repeats included (``held``): it stopped once its *distinct* rows were enough, so
    they fall short of its full pages by exactly the rows it repeated, which are said as
    repeats, not as rows missing.

    Examples
    --------
    >>> rows_counted([2656, 995], [3263, 3263], [None, 1000])
    3656
    >>> rows_counted([2656, 995], [None, 900], [None, None])
    3556
    """
    return sum(
        (n if c is None else min(n, c)) if h is None else h
        for n, c, h in zip(distinct, caps, held, strict=True)
    )


class Distinct:
    """The distinct rows of a union's batches read so far
    (:meth:`~dealframe.private.api.PrivateApi._pull_list`), told each page's identities in
    turn (:func:`~dealframe.private.paging.pull_pages`'s ``enough``): True once they reach
    ``limit``. An id counts once in whatever spelling of a
    UUID it comes; a row without id counts once each, as the frame keeps it.

    Examples
    --------
    >>> seen = Distinct(4)
    >>> seen(["a", "b", "a"]), seen.rows, seen(["b", None, "c"]), seen.rows
    (False, 2, True, 4)
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.ids: set[Any] = set()
        self.blank = 0  # rows without id

    @property
    def rows(self) -> int:
        """The distinct rows read so far."""
        return len(self.ids) + self.blank

    def __call__(self, ids: Any) -> bool:
        values = ids.to_pylist() if hasattr(ids, "to_pylist") else ids
        known = [canonical_uuid(i) if isinstance(i, str) else str(i) for i in values if i]
        self.blank += len(values) - len(known)
        self.ids.update(known)
        return self.rows >= self.limit
