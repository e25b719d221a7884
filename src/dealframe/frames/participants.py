"""Deal participants: one row per (deal, role, participant), and co-investment edges.

The participant lists of a deals frame (``buyers``, ``lead_investors``,
``investors``) are Arrow ``list<struct>`` columns
(:data:`~dealframe.frames.schemas.PARTICIPANTS_DTYPE`), so exploding them is
pure Arrow: :func:`pyarrow.compute.list_parent_indices`,
:func:`pyarrow.compute.list_flatten`, struct field access and ``take``, with no
Python object per participant. Frames whose participant columns are object
columns of lists of dicts (built by hand, or read back from older files) are
converted once first (slower); nothing goes through ``json_normalize`` row by row.

Examples
--------
>>> from dealframe.frames.private import deals_frame
>>> deals = deals_frame([{"id": "d1", "deal_type": "Venture",
...     "lead_investors": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]}])
>>> explode_participants(deals)["participant_id"].tolist()
['a', 'b']
>>> co_investment_edges(explode_participants(deals))[["investor_a", "investor_b"]].values.tolist()
[['a', 'b']]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dealframe.errors import ValidationError
from dealframe.frames.normalize import cast, empty_frame, struct_lists
from dealframe.frames.private import deals_frame
from dealframe.frames.schemas import (
    EDGES,
    PARTICIPANT_FIELDS,
    PARTICIPANT_ROLES,
    PARTICIPANTS,
    PARTICIPANTS_DTYPE,
    STRING_DTYPE,
    dtype_of,
)

__all__ = ["co_investment_edges", "explode_participants"]

_LIST = PARTICIPANTS_DTYPE.pyarrow_dtype
#: Deal columns repeated on every participant row.
_CARRIED = ("deal_date", "deal_type", "deal_subtype", "target_id")


def _to_arrow(column: pd.Series, role: str) -> pa.ChunkedArray:
    """A participant column as ``list<struct<5 large strings>>``, without a copy when it is one.

    Arrow-backed columns of another list/struct/string flavour (``string`` fields,
    a Parquet round trip's ``element`` list field) are cast; object columns of
    Python lists of dicts are converted once (the slow path).
    """
    dtype = column.dtype
    arrow_type = dtype.pyarrow_dtype if isinstance(dtype, pd.ArrowDtype) else None
    if arrow_type is not None and (pa.types.is_list(arrow_type)
                                   or pa.types.is_large_list(arrow_type)):
        lists = pa.chunked_array(column.array.__arrow_array__())
        if lists.type == _LIST:
            return lists
        try:
            return lists.cast(_LIST)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            pass  # other struct fields: read the values as Python objects below
    values = column.to_numpy(dtype=object, na_value=None)
    lists = struct_lists(values, PARTICIPANT_FIELDS, role).__arrow_array__()
    return lists if isinstance(lists, pa.ChunkedArray) else pa.chunked_array([lists])


def _strings(chunks: list[pa.ChunkedArray]) -> Any:
    arr = (pa.chunked_array([c for ch in chunks for c in ch.chunks], pa.large_string())
           if chunks else pa.array([], pa.large_string()))
    return pd.array(arr, dtype=STRING_DTYPE)


def explode_participants(
    deals: pd.DataFrame | Iterable[dict[str, Any]],
    roles: Sequence[str] = PARTICIPANT_ROLES,
) -> pd.DataFrame:
    """One row per (deal, role, participant).

    Parameters
    ----------
    deals : pandas.DataFrame or list of dict
        A :func:`~dealframe.frames.private.deals_frame` (deal items are shaped
        with it first). Participant columns may also be object columns of lists
        of dicts (converted first).
    roles : sequence of str
        Participant list columns to read, in this order. Roles missing from the
        frame (``investors`` on list rows) are skipped; null lists give no rows.

    Returns
    -------
    pandas.DataFrame
        ``deal_id``, ``role`` (Categorical over ``roles``), ``participant_id``,
        ``participant_name``, ``participant_short_name``,
        ``participant_country``, ``participant_website``, and the deal's
        ``deal_date``, ``deal_type``, ``deal_subtype``, ``target_id``. Rows are
        in deal order, then role order, then list order.

    Examples
    --------
    >>> ex = explode_participants([{"id": "d", "buyers": [{"id": "x", "country": None}],
    ...                             "lead_investors": []}])
    >>> ex[["deal_id", "role", "participant_id"]].values.tolist()
    [['d', 'buyers', 'x']]
    """
    if deals is None:
        raise ValidationError("deals", "a deals frame (or a list of deal items)", got=deals)
    if not isinstance(deals, pd.DataFrame):
        deals = deals_frame(deals)
    if isinstance(roles, str) or not all(isinstance(r, str) for r in roles):
        raise ValidationError("roles", "a sequence of column names", got=roles)
    roles = tuple(dict.fromkeys(roles))
    if "id" not in deals:
        raise ValidationError("deals", "a deals frame with an 'id' column")
    parents: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    fields: dict[str, list[pa.ChunkedArray]] = {f: [] for f in PARTICIPANT_FIELDS}
    for code, role in enumerate(roles):
        if role not in deals:
            continue
        lists = _to_arrow(deals[role], role)
        parent = pc.list_parent_indices(lists).to_numpy()
        flat = pc.list_flatten(lists)
        parents.append(parent)
        codes.append(np.full(len(parent), code, dtype=np.int8))
        for f in PARTICIPANT_FIELDS:
            fields[f].append(pc.struct_field(flat, f))
    parent = np.concatenate(parents) if parents else np.empty(0, dtype=np.int64)
    role_codes = np.concatenate(codes) if codes else np.empty(0, dtype=np.int8)
    order = np.argsort(parent, kind="stable")  # deal-major; role and list order kept
    if len(parents) > 1:
        parent, role_codes = parent[order], role_codes[order]
    columns: dict[str, Any] = {
        "deal_id": deals["id"].array.take(parent),
        "role": pd.Categorical.from_codes(role_codes, dtype=pd.CategoricalDtype(list(roles))),
    }
    for f in PARTICIPANT_FIELDS:
        values = _strings(fields[f])
        columns[f"participant_{f}"] = values.take(order) if len(parents) > 1 else values
    for name in _CARRIED:
        spec = next(c for c in PARTICIPANTS if c.name == name)
        if name in deals:
            columns[name] = deals[name].array.take(parent)
        else:
            columns[name] = cast([None] * len(parent), spec)
    frame = pd.DataFrame(columns)
    for spec in PARTICIPANTS:  # keep the schema's dtypes whatever the input frame held
        col = frame[spec.name]
        if spec.kind == "category":
            if not isinstance(col.dtype, pd.CategoricalDtype):  # unknown values stay categories
                frame[spec.name] = cast(col.to_numpy(dtype=object, na_value=None), spec)
        elif col.dtype != dtype_of(spec):
            frame[spec.name] = col.astype(dtype_of(spec))
    return frame


def co_investment_edges(exploded: pd.DataFrame, roles: Sequence[str] | None = None
                        ) -> pd.DataFrame:
    """Pairs of participants that shared deals, as an edge list.

    Parameters
    ----------
    exploded : pandas.DataFrame
        Output of :func:`explode_participants`.
    roles : sequence of str, optional
        Only count participants in these roles (default: all rows).

    Returns
    -------
    pandas.DataFrame
        ``investor_a`` < ``investor_b`` (ids), ``name_a``, ``name_b``,
        ``shared_deals`` (distinct deals), ``first_date``/``last_date`` (deal
        dates), sorted by ``shared_deals`` descending, then ids.

    Examples
    --------
    >>> ex = pd.DataFrame({"deal_id": ["d1", "d1", "d2", "d2"],
    ...     "role": ["investors"] * 4, "participant_id": ["b", "a", "a", "b"],
    ...     "participant_name": ["B", "A", "A", "B"],
    ...     "deal_date": pd.to_datetime(["2020-01-01"] * 2 + ["2021-05-01"] * 2)})
    >>> int(co_investment_edges(ex).loc[0, "shared_deals"])
    2
    """
    if not isinstance(exploded, pd.DataFrame):
        raise ValidationError("exploded", "a frame from explode_participants", got=exploded)
    for col in ("deal_id", "participant_id"):
        if col not in exploded:
            raise ValidationError("exploded",
                                  f"a frame from explode_participants (no {col!r} column)")
    rows = exploded
    if roles is not None:
        rows = rows[rows["role"].isin(list(roles))]
    rows = rows[rows["deal_id"].notna() & rows["participant_id"].notna()]
    if not len(rows):
        return empty_frame(EDGES)
    pid_codes, pids = pd.factorize(rows["participant_id"].to_numpy(dtype=object), sort=True)
    deal_codes, _ = pd.factorize(rows["deal_id"].to_numpy(dtype=object))
    dates = (rows["deal_date"].to_numpy(dtype="datetime64[us]") if "deal_date" in rows
             else np.full(len(rows), np.datetime64("NaT"), dtype="datetime64[us]"))
    pairs = pd.DataFrame({"d": deal_codes, "p": pid_codes, "t": dates})
    pairs = pairs.drop_duplicates(["d", "p"])
    joined = pairs.merge(pairs[["d", "p"]], on="d", suffixes=("_a", "_b"))
    joined = joined[joined["p_a"] < joined["p_b"]]
    if not len(joined):
        return empty_frame(EDGES)
    agg = joined.groupby(["p_a", "p_b"], sort=False).agg(
        shared_deals=("d", "size"), first_date=("t", "min"), last_date=("t", "max"))
    agg = agg.reset_index()
    names = (rows["participant_name"].to_numpy(dtype=object) if "participant_name" in rows
             else np.full(len(rows), None, dtype=object))
    first_name = pd.Series(names).groupby(pid_codes, sort=True).first()
    name_of = first_name.reindex(range(len(pids))).to_numpy(dtype=object)
    a, b = agg["p_a"].to_numpy(), agg["p_b"].to_numpy()
    frame = pd.DataFrame({
        "investor_a": pd.array(np.asarray(pids, dtype=object)[a], dtype=STRING_DTYPE),
        "investor_b": pd.array(np.asarray(pids, dtype=object)[b], dtype=STRING_DTYPE),
        "name_a": pd.array(name_of[a], dtype=STRING_DTYPE),
        "name_b": pd.array(name_of[b], dtype=STRING_DTYPE),
        "shared_deals": pd.array(agg["shared_deals"].to_numpy(), dtype="Int64"),
        "first_date": agg["first_date"].to_numpy(dtype="datetime64[us]"),
        "last_date": agg["last_date"].to_numpy(dtype="datetime64[us]"),
    })
    frame = frame.sort_values(["shared_deals", "investor_a", "investor_b"],
                              ascending=[False, True, True], ignore_index=True)
    return frame
