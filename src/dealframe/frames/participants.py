"""Deal participants: one row per (deal, role, participant), and co-investment edges.

The participant lists of a deals frame (``lead_investors``, ``buyers`` and, for
single deals or ``deals(..., with_investors=True)``, ``investors``) are JSON text
(:mod:`dealframe.frames.nested`). Exploding them reads that text with Arrow's JSON
reader over the column's own bytes (:func:`~dealframe.frames.objects.object_lists`),
with no Python object per participant.

Roles use one vocabulary in every frame: ``lead_investor``, ``buyer`` (the
service's ``role`` of buyside and investments rows) and ``investor`` (a member
of the deal's full investor list; leads are investors too).

Each row says what is known of its deal, so that it holds after ``attrs`` are lost (a CSV
round trip, a ``concat``): ``deleted`` (the deal is soft-deleted: the service's
``co_investors`` count live deals only, and so does :func:`co_investment_edges` by default)
and ``investors_missing`` (the investor role was asked and the deal's full investor list
was not read: the deal is undercounted).

Examples
--------
>>> from dealframe.frames.private import deals_frame
>>> deals = deals_frame([{"id": "d1", "deal_type": "Venture", "investors": [],
...     "lead_investors": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]}])
>>> explode_participants(deals)["participant_id"].tolist()
['a', 'b']
>>> co_investment_edges(explode_participants(deals))[["investor_a", "investor_b"]].values.tolist()
[['a', 'b']]
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dealframe._wording import plural
from dealframe.arguments import checked_keywords
from dealframe.contract import Findings, not_countries, say_not_iso3
from dealframe.errors import ValidationError, did_you_mean
from dealframe.frames.nested import to_lists
from dealframe.frames.normalize import _uuid_text, cast, empty_frame, to_booleans
from dealframe.frames.objects import _strings_in_order, _taken_text, object_lists
from dealframe.frames.private import deals_frame
from dealframe.frames.repeated import repeated_rows
from dealframe.frames.schemas import (
    EDGES,
    PARTICIPANT_COLUMNS,
    PARTICIPANT_FIELDS,
    PARTICIPANTS,
    ROLES,
    STRING_DTYPE,
    dtype_of,
)
from dealframe.frames.user_columns import (
    datetime_values,
    one_column_each,
    plain_column,
    true_rows,
)
from dealframe.notices import DealframeWarning, MissingInvestorsWarning, user_stacklevel

__all__ = [
    "co_investment_edges",
    "explode_participants",
    "participant_countries",
    "role_names",
    "say_participant_countries",
    "say_participant_ids",
    "say_participants",
]

#: Deal columns repeated on every participant row.
_CARRIED = ("deal_date", "deal_type", "deal_subtype", "target_id", "deleted")
#: The row column saying that its deal's investor rows are missing (the list was not read).
MISSING = "investors_missing"
_COLUMN_OF = {role: column for column, role in PARTICIPANT_COLUMNS.items()}
_ROLE_DTYPE = pd.CategoricalDtype(list(ROLES))
#: Columns whose values come from the deals frame, cast to the schema's dtypes when needed
#: (the participant columns are built in them).
_FROM_DEALS = tuple(c for c in PARTICIPANTS if c.name in ("deal_id", *_CARRIED))
#: ``attrs`` key of an exploded frame: deals whose full investor list was missing.
WITHOUT_INVESTORS = "deals_without_investors"
#: The ``attrs`` key of an explode's count of the rows of ``deals`` left out as repeats of
#: another row's deal (:func:`~dealframe.frames.repeated.repeated_rows`).
REPEATED = "repeated_deals"
#: Columns of an exploded frame that :func:`co_investment_edges` reads.
_READ = ("deal_id", "role", "participant_id", "participant_name", "deal_date", "deleted", MISSING)
#: ``attrs`` keys of an exploded frame: the ids of its deals without their full investor list
#: that have rows, live and soft-deleted, sorted, as one text with one id a line (one string:
#: pandas deep-copies ``attrs`` on each operation, a string at no cost, a tuple of 50,000 ids
#: in about 20 ms). :func:`co_investment_edges` counts those among the rows it is given.
LIVE_WITHOUT_INVESTORS = "live_deals_without_investors"
DELETED_WITHOUT_INVESTORS = "deleted_deals_without_investors"
#: ``attrs`` key of an edge list: soft-deleted deals left out.
DELETED_LEFT_OUT = "deleted_deals_left_out"
#: ``attrs`` key of an exploded frame: the roles read (those asked whose column the deals
#: have), a tuple; :func:`co_investment_edges` blames the explode for a role without rows only
#: when the role was not read.
ROLES_READ = "roles"


@checked_keywords
def role_names(roles: Any, argument: str = "roles") -> tuple[str, ...]:
    """Roles (``lead_investor``, ``buyer``, ``investor``; the deal column names
    ``lead_investors``, ``buyers``, ``investors`` are taken too), each once, in order.

    Examples
    --------
    >>> role_names(["buyers", "lead_investor"])
    ('buyer', 'lead_investor')

    A role that is not a string (a number, a list, a row of a 2-D array) is refused naming
    its place, before it is compared with a role name (an array compared so has no truth
    value):

    >>> role_names([["buyer", "buyer"]])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid roles[0]: expected a role name (a string) among lead_investor, buyer, investor, got ['buyer', 'buyer']
    """
    items = [roles] if isinstance(roles, str) else roles
    if not isinstance(items, Iterable) or isinstance(items, dict):
        raise ValidationError(argument, f"a list of roles among {', '.join(ROLES)}", got=roles)
    out: list[str] = []
    for i, role in enumerate(items):
        if not isinstance(role, str):
            raise ValidationError(
                f"{argument}[{i}]", f"a role name (a string) among {', '.join(ROLES)}", got=role
            )
        name = str(PARTICIPANT_COLUMNS.get(role, role))  # numpy.str_ too
        if name not in ROLES:
            hint = did_you_mean(role, [*ROLES, *PARTICIPANT_COLUMNS])
            raise ValidationError(argument, f"roles among {', '.join(ROLES)}{hint}", got=role)
        out.append(name)
    if not out:
        raise ValidationError(argument, f"at least one role among {', '.join(ROLES)}", got=roles)
    return tuple(dict.fromkeys(out))


def _read_roles(deals: pd.DataFrame, roles: list[str]) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """The participants of the roles' columns, read as one (the columns one after another),
    so a participant's text is parsed once whichever role and deal it is in."""
    columns = [_COLUMN_OF[role] for role in roles]
    return object_lists([deals[c] for c in columns], PARTICIPANT_FIELDS, columns)


@checked_keywords
def participant_countries(
    deals: pd.DataFrame,
) -> tuple[tuple[str, ...], np.ndarray, pa.Array | np.ndarray] | None:
    """The ``country`` of every participant of the participant columns ``deals`` has
    (``lead_investors``, ``buyers``, ``investors``: JSON text, or lists of objects), read as
    one (:func:`~dealframe.frames.objects.object_lists`: each distinct participant parsed once).

    Returns
    -------
    tuple or None
        ``(columns, rows, countries)``: the columns read, the position (0-based) of the deal
        each participant is in, and its ``country`` (an Arrow string array, dictionary-encoded
        when the participants were read piece by piece; null where it has none). A country
        that is no text (``276``, a list) makes it an ``object`` array of the values as they
        came. None when ``deals`` has no row or no participant column, or a cell that is no
        list of objects (what the frame's shape is said elsewhere).

    Examples
    --------
    >>> deals = pd.DataFrame({"buyers": ['[{"country":"GER"}]', None],
    ...                       "lead_investors": ['[]', '[{"country":"USA"},{"country":null}]']})
    >>> columns, rows, countries = participant_countries(deals)
    >>> columns, rows.tolist(), countries.to_pylist()
    (('lead_investors', 'buyers'), [1, 1, 0], ['USA', None, 'GER'])
    """
    columns = tuple(c for c in PARTICIPANT_COLUMNS if c in deals.columns)
    if not columns or not len(deals):
        return None
    try:
        rows, values = object_lists([deals[c] for c in columns], ("country",), list(columns))
    except ValidationError:  # a country that is no text, or a cell that is no list of objects
        return _countries_as_they_came(deals, columns)
    return columns, rows % len(deals), values["country"]


def _countries_as_they_came(
    deals: pd.DataFrame, columns: tuple[str, ...], field: str = "country"
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray] | None:
    """:func:`participant_countries` cell by cell, the values kept as they came (``276``);
    None when a cell is no list of objects. (``field``: another member read so, the ``id``.)

    Examples
    --------
    >>> deals = pd.DataFrame({"buyers": ['[{"country":276}]', '[{"country":"GER"},{}]']})
    >>> _, rows, countries = _countries_as_they_came(deals, ("buyers",))
    >>> rows.tolist(), countries.tolist()
    ([0, 1, 1], [276, 'GER', None])
    """
    rows: list[int] = []
    countries: list[Any] = []
    for column in columns:
        try:
            cells = to_lists(deals[column])
        except ValidationError:
            return None
        for row, cell in enumerate(cells):
            if cell is None:
                continue
            if not isinstance(cell, list) or not all(isinstance(p, dict) for p in cell):
                return None
            rows += [row] * len(cell)
            countries += [_hashable(p.get(field)) for p in cell]
    values = np.empty(len(countries), dtype=object)
    values[:] = countries
    return columns, np.asarray(rows, dtype=np.int64), values


def _hashable(value: Any) -> Any:
    """A country as it came, a list or an object as its JSON text (to be counted)."""
    return orjson.dumps(value).decode() if isinstance(value, (list, dict)) else value


@checked_keywords
def say_participant_countries(
    deals: pd.DataFrame, found: Findings, *, where: str | None = None
) -> None:
    """The ``unknown_value`` finding of the ``country`` of the participants of deal rows
    (:func:`participant_countries`) that no country filter takes, as
    :func:`~dealframe.contract.document_values` says a deal's ``target_country``: one finding
    whatever the column, each value once with the rows that carry it and the code meant;
    blanks and nulls not said.

    Examples
    --------
    >>> found = Findings("POST /api/private/v1/transactions")
    >>> deals = pd.DataFrame({"buyers": ['[{"country":"GER"}]', '[{"country":"DEU"}]']})
    >>> say_participant_countries(deals, found)
    >>> print(list(found)[0].message[:69])
    participants' country (buyers) no country filter takes in 1 of 2 rows
    """
    read = participant_countries(deals)
    if read is not None:
        _say_countries(deals, *read, found, where)


def _say_countries(
    deals: pd.DataFrame,
    columns: tuple[str, ...],
    rows: np.ndarray,
    countries: pa.Array | np.ndarray,
    found: Findings,
    where: str | None,
) -> None:
    """:func:`say_participant_countries` of the countries read (:func:`participant_countries`)."""
    if isinstance(countries, np.ndarray):  # values that are no text among them, as they came
        values = countries
    else:
        distinct = countries.dictionary if isinstance(countries, pa.DictionaryArray) else countries
        if not not_countries(pc.unique(distinct).drop_null().to_pylist()):
            return  # as a rule: each distinct value looked at once, no row counted
        values = np.asarray(countries.to_pylist(), dtype=object)
    kept = np.fromiter((v is not None for v in values), bool, len(values))
    label = f"participants' country ({', '.join(columns)})"
    say_not_iso3(label, values[kept], rows[kept], len(deals), found, where)


@checked_keywords
def say_participant_ids(deals: pd.DataFrame, found: Findings, *, where: str | None = None) -> None:
    """The ``missing_identity`` finding of the participants of deal rows (``lead_investors``,
    ``buyers``, ``investors``) without their ``id`` (absent, null or empty text; the
    document gives every Participant one), naming how many, in how many deals and the first
    few deal ids: one finding whatever the column. Such a participant is kept as it came;
    :func:`explode_participants` gives it a null ``participant_id``, so
    :func:`co_investment_edges` has no edge of it and the deal's investors are undercounted.

    Examples
    --------
    >>> found = Findings("POST /api/private/v1/transactions")
    >>> deals = pd.DataFrame({"id": ["d1", "d2"],
    ...                       "lead_investors": ['[{"id":"a"},{"name":"B"}]', '[{"id":""}]']})
    >>> say_participant_ids(deals, found)
    >>> print(list(found)[0].message)
    2 of 3 participants have no 'id' (lead_investors), in 2 of 2 deals: id d1, d2 (kept without one: explode_participants gives them a null participant_id, co_investment_edges no edge)
    """
    columns = tuple(c for c in PARTICIPANT_COLUMNS if c in deals.columns)
    if not columns or not len(deals):
        return
    try:  # as a rule: no participant looked at one by one
        rows, values = object_lists([deals[c] for c in columns], ("id",), list(columns))
    except ValidationError:
        read = _countries_as_they_came(deals, columns, "id")  # an id that is no text
        if read is None:  # a cell that is no list of objects: its shape is said elsewhere
            return
        _, rows, values_read = read  # rows: the deals' (not counted through the columns)
        absent = np.fromiter((v is None or v == "" for v in values_read), bool, len(values_read))
        rows = rows + len(deals) * len(columns)  # no column told apart: all named
        _say_ids(deals, columns, rows, absent, found, where)
        return
    _say_ids(deals, columns, rows, _without_id(values["id"]), found, where)


@checked_keywords
def say_participants(deals: pd.DataFrame, found: Findings, *, where: str | None = None) -> None:
    """:func:`say_participant_countries` and :func:`say_participant_ids` of deal rows, both
    from one read of their participants (each distinct one parsed once, its ``id`` and
    ``country`` taken together): what a call's deal rows are checked with.

    Examples
    --------
    >>> found = Findings("POST /api/private/v1/transactions")
    >>> deals = pd.DataFrame({"id": ["d1"], "buyers": ['[{"id":"a","country":"GER"},{}]']})
    >>> say_participants(deals, found)
    >>> [f.kind for f in found]
    ['unknown_value', 'missing_identity']
    """
    columns = tuple(c for c in PARTICIPANT_COLUMNS if c in deals.columns)
    if not columns or not len(deals):
        return
    try:  # as a rule: no participant looked at one by one
        rows, values = object_lists([deals[c] for c in columns], ("id", "country"), list(columns))
    except ValidationError:  # a value that is no text, or a cell that is no list of objects
        say_participant_countries(deals, found, where=where)  # each read as it came
        say_participant_ids(deals, found, where=where)
        return
    _say_countries(deals, columns, rows % len(deals), values["country"], found, where)
    _say_ids(deals, columns, rows, _without_id(values["id"]), found, where)


def _without_id(ids: pa.Array) -> np.ndarray:
    """True for each participant ``id`` null (absent or null) or empty text, in one pass over
    the column's buffers (a dictionary-encoded one: over its distinct values)."""
    if isinstance(ids, pa.DictionaryArray):
        blank = pc.fill_null(pc.equal(pc.utf8_length(ids.dictionary), 0), True)
        return pc.fill_null(pc.take(blank, ids.indices), True).to_numpy(zero_copy_only=False)
    return pc.fill_null(pc.equal(pc.utf8_length(ids), 0), True).to_numpy(zero_copy_only=False)


def _say_ids(
    deals: pd.DataFrame,
    columns: tuple[str, ...],
    rows: np.ndarray,
    absent: np.ndarray,
    found: Findings,
    where: str | None,
) -> None:
    """:func:`say_participant_ids` of the participants read: ``rows`` counted through the
    ``columns`` one after another (past them: no column told apart), ``absent`` True for
    one without its ``id``."""
    if not absent.any():
        return
    deal_rows = np.unique(rows[absent] % len(deals))
    at = rows[absent] // len(deals)
    said = [c for n, c in enumerate(columns) if (at == n).any() or (at >= len(columns)).any()]
    if "id" in deals.columns:
        deal_ids = [str(i) for i in deals["id"].iloc[deal_rows[:5]].tolist()]
        more = len(deal_rows) - len(deal_ids)
        named = ": id " + ", ".join(deal_ids) + (f" and {more:,} more" if more > 0 else "")
    else:
        named = ""
    found.add(
        "missing_identity",
        f"{int(absent.sum()):,} of {len(absent):,} participants have no 'id' "
        f"({', '.join(said)}), in {len(deal_rows):,} of {len(deals):,} deals{named} (kept without one: "
        "explode_participants gives them a null participant_id, co_investment_edges no edge)",
        where=where,
    )


def _carried(deals: pd.DataFrame) -> dict[str, Any]:
    """The deal columns repeated on participant rows, one value per deal: Arrow columns as the
    client's frames hold them, dates as wall times (``datetime64[us]``, time zones dropped, as
    :func:`~dealframe.analytics.bucket_medians` reads them), ``deleted`` as booleans (text
    ``"True"`` of a CSV too), nulls for a missing column."""
    out: dict[str, Any] = {}
    for name in _CARRIED:
        spec = next(c for c in PARTICIPANTS if c.name == name)
        if name not in deals:
            out[name] = cast([None] * len(deals), spec)
        elif spec.kind == "date":
            out[name] = datetime_values(deals[name])
        elif spec.kind == "bool" and not pd.api.types.is_bool_dtype(deals[name].dtype):
            values = plain_column(deals[name]).to_numpy(dtype=object, na_value=None)
            out[name] = to_booleans(values, name, said=False)
        else:
            out[name] = plain_column(deals[name]).array
    return out


def _taken(values: Any, rows: np.ndarray) -> Any:
    """``values`` (a deal column's array) repeated on the participant ``rows``; text is taken
    by :func:`~dealframe.frames.objects._taken_text`."""
    if isinstance(values, pd.arrays.ArrowStringArray) and values.dtype == STRING_DTYPE:
        return pd.array(_taken_text(values.__arrow_array__(), rows), dtype=STRING_DTYPE)
    return values.take(rows)


def _schema_categories(dtype: Any, categories: Sequence[str]) -> bool:
    """Whether ``dtype`` is categorical with the schema's categories first, in its order (as
    the client's frames have them; another reader may order them otherwise)."""
    if not isinstance(dtype, pd.CategoricalDtype):
        return False
    return list(dtype.categories[: len(categories)]) == list(categories)


def _without_investors(deals: pd.DataFrame) -> np.ndarray:
    """Which deals lack their full investor list (list rows carry none; ``[]`` is a list)."""
    if "investors" not in deals:
        return np.ones(len(deals), dtype=bool)
    return deals["investors"].isna().to_numpy(dtype=bool)


@checked_keywords
def explode_participants(
    deals: pd.DataFrame | Iterable[dict[str, Any]],
    roles: Sequence[str] = ROLES,
) -> pd.DataFrame:
    """One row per (deal, role, participant).

    Parameters
    ----------
    deals : pandas.DataFrame or list of dict
        A deals frame of the client (deal items are shaped with
        :func:`~dealframe.frames.private.deals_frame` first), or the same columns with Arrow
        dtypes (the mirror's ``deals`` read by polars or ``pd.read_parquet(...,
        dtype_backend="pyarrow")``), read as the client's dtypes; a time zone of
        ``deal_date`` is dropped, keeping the wall time.
    roles : sequence of str
        Roles to read, in this order: ``lead_investor`` (``lead_investors``),
        ``buyer`` (``buyers``), ``investor`` (``investors``, the full list, leads
        included). Null lists give no rows.

    Returns
    -------
    pandas.DataFrame
        ``deal_id``, ``role`` (Categorical over ``lead_investor``, ``buyer``,
        ``investor``: the ``role`` of ``investments`` and ``buyside`` rows too),
        ``participant_id``, ``participant_name``, ``participant_short_name``,
        ``participant_country``, ``participant_website``, and the deal's
        ``deal_date``, ``deal_type``, ``deal_subtype``, ``target_id``, ``deleted``
        (``boolean``; null when ``deals`` has no ``deleted`` column) and
        ``investors_missing`` (``boolean``: ``investor`` is among ``roles`` and the deal's
        full ``investors`` list is null or absent, so its investor rows are missing; never
        null). Every column is there whatever ``deals`` holds. Rows are in
        deal order, then role order, then list order. A deal that several rows of
        ``deals`` hold (a ``concat`` of overlapping pulls, stacked sub-collections) is
        exploded once, from its newest row by ``updated_at`` (else its last), warned of;
        ``attrs["repeated_deals"]`` counts the rows left out.
        ``attrs["deals_without_investors"]`` counts the deals whose investor list
        was missing; ``attrs["live_deals_without_investors"]`` and
        ``attrs["deleted_deals_without_investors"]`` hold the ids of those of them that have
        rows, live and soft-deleted, sorted, as one text with one id a line (what
        :func:`co_investment_edges` counts among its rows when they have lost their
        ``investors_missing`` column, after any row filter too).

    Raises
    ------
    dealframe.errors.ValidationError
        No ``id`` or participant column, an unknown role, a role passed in ``roles`` whose
        column (``lead_investors``, ``buyers``) the frame lacks (naming it; an absent
        ``investors`` is a list not read, warned of), a ``deal_date`` column that holds
        no dates, or a ``deleted`` column holding a value that is no boolean (text ``"yes"``,
        ``"0"`` or ``"1"``, the number 2: booleans, 0/1 and text ``"true"`` / ``"false"`` in
        any case are read, as :func:`co_investment_edges` and
        :func:`~dealframe.analytics.bucket_medians` read ``deleted``), naming the column.

    Warns
    -----
    dealframe.DealframeWarning
        Rows of ``deals`` repeat another row's deal id: each deal is read once.
    dealframe.MissingInvestorsWarning
        ``investor`` is among ``roles`` and some deals have no full investor list: deal list
        rows carry lead investors and buyers only, and a deal of a ``with_investors=True``
        pull whose single form could not be read keeps none. Pull them with
        ``client.private.deals(..., with_investors=True)`` (again, in the second case).

    Examples
    --------
    >>> ex = explode_participants([{"id": "d", "buyers": [{"id": "x", "country": None}],
    ...                             "lead_investors": [], "investors": []}])
    >>> ex[["deal_id", "role", "participant_id"]].values.tolist()
    [['d', 'buyer', 'x']]
    """
    if deals is None:
        raise ValidationError("deals", "a deals frame (or a list of deal items)", got=deals)
    if not isinstance(deals, pd.DataFrame):
        deals = deals_frame(deals)
    explicit = roles is not ROLES  # roles asked for: a column absent is no silent empty
    roles = role_names(roles)
    one_column_each(deals, ("id", *PARTICIPANT_COLUMNS, *_CARRIED), "deals")
    if "id" not in deals:
        raise ValidationError("deals", "a deals frame with an 'id' column")
    present = [role for role in roles if _COLUMN_OF[role] in deals]
    if not any(column in deals for column in PARTICIPANT_COLUMNS):
        shown = ", ".join(map(str, deals.columns[:8])) + (", ..." if deals.shape[1] > 8 else "")
        raise ValidationError(
            "deals",
            f"a deals frame with participant columns ({', '.join(PARTICIPANT_COLUMNS)})",
            got=f"a frame with columns {shown}",
        )
    # an absent ``investors`` is a list not read: said per deal (investors_missing) and warned
    absent = [_COLUMN_OF[role] for role in roles if role not in present and role != "investor"]
    if explicit and absent:
        has = [c for c in PARTICIPANT_COLUMNS if c in deals]
        raise ValidationError(
            "roles",
            f"roles whose columns the deals frame has (no {', '.join(map(repr, absent))} "
            f"column; it has {', '.join(map(repr, has))})",
            got=roles,
        )
    repeated = repeated_rows(deals)
    if repeated is not None:  # each deal read once: one row per (deal, role, participant)
        deals = deals[~repeated]
        _say_repeated(int(repeated.sum()))
    found, values = _read_roles(deals, present)
    # found counts through the columns one after another: its blocks are the roles
    ends = np.searchsorted(found, np.arange(1, len(present) + 1) * len(deals))
    block = np.repeat(np.arange(len(present)), np.diff(ends, prepend=0))
    parent = found - block * len(deals)
    codes = np.array([ROLES.index(role) for role in present], dtype=np.int8)
    order = np.argsort(parent, kind="stable")  # deal-major; role and list order kept
    parent, block = parent[order], block[order]
    columns: dict[str, Any] = {
        "deal_id": _taken(deals["id"].array, parent),
        "role": pd.Categorical.from_codes(codes[block], dtype=_ROLE_DTYPE, validate=False),
    }
    ids = values["id"]  # in one spelling: each distinct one looked at once
    if isinstance(ids, pa.DictionaryArray):
        spelt = _uuid_text(ids.dictionary)  # as many values: the indices hold
        values["id"] = pa.DictionaryArray.from_arrays(ids.indices, spelt, safe=False)
    else:
        values["id"] = _uuid_text(ids)
    for f, strings in _strings_in_order(values, order).items():
        columns[f"participant_{f}"] = pd.array(strings, dtype=STRING_DTYPE)
    for name, carried in _carried(deals).items():
        columns[name] = _taken(carried, parent)
    lacking = _without_investors(deals) if "investor" in roles else np.zeros(len(deals), bool)
    lacking_rows = lacking[parent] if lacking.any() else np.zeros(len(parent), bool)
    columns[MISSING] = pd.array(lacking_rows, dtype="boolean")
    frame = pd.DataFrame(columns, copy=False)
    for spec in _FROM_DEALS:  # keep the schema's dtypes whatever the input frame held
        col = frame[spec.name]
        if spec.kind == "category":
            if not _schema_categories(col.dtype, spec.categories or ()):
                # unknown values stay categories, after the schema's own in its order
                frame[spec.name] = cast(col.to_numpy(dtype=object, na_value=None), spec)
        elif col.dtype != dtype_of(spec):
            frame[spec.name] = col.astype(dtype_of(spec))
    missing = int(lacking.sum())
    frame.attrs[WITHOUT_INVESTORS] = missing
    frame.attrs[ROLES_READ] = tuple(present)
    frame.attrs[REPEATED] = 0 if repeated is None else int(repeated.sum())
    frame.attrs.update(_lacking_with_rows(lacking_rows, frame["deal_id"], frame["deleted"]))
    if missing:
        warnings.warn(
            f"{missing:,} of {len(deals):,} deals have no full investor list (it was not read: "
            "deal list rows carry lead investors and buyers only, and a deal whose single "
            "form could not be read keeps none): their investors are missing from the rows. "
            "For complete lists pull the deals with client.private.deals(..., "
            "with_investors=True) (again, if some single forms were missing), or pass "
            "roles=('lead_investor', 'buyer')",
            MissingInvestorsWarning,
            stacklevel=user_stacklevel(),
        )
    return frame


def _say_repeated(rows: int) -> None:
    warnings.warn(
        f"{rows:,} {plural(rows, 'row')} of deals {'repeats' if rows == 1 else 'repeat'} the "
        "id of another row (a concat of "
        "overlapping pulls, the sub-collections of several ids stacked): each deal is "
        "exploded once, from its newest row by updated_at (else its last), so that no "
        f"participant is counted twice; attrs[{REPEATED!r}] counts the rows left out",
        DealframeWarning,
        stacklevel=user_stacklevel(),
    )


def _lacking_with_rows(
    lacking: np.ndarray, deal_ids: pd.Series, deleted: pd.Series
) -> dict[str, str]:
    """The ``attrs`` ids of deals without their full investor list that have rows
    (``lacking``: of each row, ``deal_ids`` its deal), live and soft-deleted apart."""
    if not lacking.any():  # complete lists, as a rule
        return {LIVE_WITHOUT_INVESTORS: "", DELETED_WITHOUT_INVESTORS: ""}
    gone = deleted.fillna(False).to_numpy(dtype=bool)
    return {
        LIVE_WITHOUT_INVESTORS: _id_lines(deal_ids[lacking & ~gone]),
        DELETED_WITHOUT_INVESTORS: _id_lines(deal_ids[lacking & gone]),
    }


def _id_lines(deal_ids: pd.Series) -> str:
    """Distinct ids, sorted, one a line (null ids left out)."""
    return "\n".join(sorted(set(deal_ids.dropna().astype(str).tolist())))


def _incomplete(exploded: pd.DataFrame, rows: pd.DataFrame) -> int:
    """Deals of ``rows`` (the rows of every role counted; a deal without its list may have no
    investor row at all) counted without their full investor list (0 when none is known to
    lack it).

    Read from the rows' ``investors_missing`` (what :func:`explode_participants` knew of each
    deal, kept through a CSV round trip), else from the ids ``attrs`` of ``exploded`` keep of
    such deals (live and soft-deleted: ``rows`` have lost the soft-deleted ones to leave
    out), counted among ``rows`` (exact after a row filter, a column selection or a ``concat``
    of equal frames), else guessed: a deal with lead investor rows and no investor row (a full
    list holds its leads). A deal with buyer rows only says nothing: a service may list no
    ``investors`` for an M&A deal.
    """
    if MISSING in rows:
        return int(rows.loc[true_rows(rows[MISSING]), "deal_id"].nunique())
    live = exploded.attrs.get(LIVE_WITHOUT_INVESTORS)
    deleted = exploded.attrs.get(DELETED_WITHOUT_INVESTORS)
    if isinstance(live, str) and isinstance(deleted, str):
        present = {str(i) for i in rows["deal_id"].dropna().unique().tolist()}
        return len(present.intersection(f"{live}\n{deleted}".split("\n")))
    if "role" not in rows:
        return 0
    role = rows["role"].astype(object)
    with_list = set(rows.loc[(role == "investor").to_numpy(), "deal_id"].tolist())
    leading = set(rows.loc[(role == "lead_investor").to_numpy(), "deal_id"].tolist())
    return len(leading - with_list)


def _say_unexploded(exploded: pd.DataFrame, wanted: Sequence[str], any_asked: bool) -> None:
    """Warn when roles asked of :func:`co_investment_edges` have no row: no row of any of them
    (no edge), or the investor role with no row while lead investors have some (a full list
    holds its leads). A role merely absent from the deals (buyers of funding rounds only) is
    said only when nothing is left to count. The explode is blamed only for roles it did not
    read (``attrs["roles"]``); of a role it read, no deal had one or the rows were filtered
    since (a filter keeps ``attrs``), and nothing more is asserted; without that record (a
    frame built otherwise, or a ``concat`` of frames of other roles, whose ``attrs`` pandas
    drops) either may be the cause, and both are said."""
    held = set(exploded["role"].dropna().astype(object).unique().tolist())
    unseen = [role for role in wanted if role not in held]
    if any_asked and not ("investor" in unseen and "lead_investor" in held):
        return
    read = exploded.attrs.get(ROLES_READ)
    named = ", ".join(map(repr, unseen))
    holds = f"it holds {', '.join(map(repr, sorted(held))) or 'no role'}"
    if not isinstance(read, (tuple, list)):
        cause = (
            f"no row of the exploded frame has role {named} ({holds}): either no deal of the "
            "frame has one, or explode_participants was not given the role (it reads only the "
            "roles it is given; explode the deals with the roles you count)"
        )
    elif unexploded := [role for role in unseen if role not in read]:
        took = f"read only {', '.join(map(repr, read))}" if read else "read no role"
        cause = (
            f"no row of the exploded frame has role {', '.join(map(repr, unexploded))} "
            f"({holds}; explode_participants {took}): explode the deals with the roles you count"
        )
    else:  # read, and no row: no deal had one, or the user's filter dropped the rows since
        cause = (
            f"no row has role {named} though explode_participants read "
            f"{plural(len(unseen), 'it', 'them')} ({holds}): no deal had one, or the rows "
            "were filtered since"
        )
    warnings.warn(
        cause
        + ": "
        + ("its edges count the other roles only" if any_asked else "no edge is counted"),
        MissingInvestorsWarning if "investor" in unseen else DealframeWarning,
        stacklevel=user_stacklevel(),
    )


def _deleted(rows: pd.DataFrame, include_deleted: bool) -> np.ndarray:
    """Which of ``rows`` are of soft-deleted deals, to leave out (none with
    ``include_deleted``, or without a ``deleted`` column)."""
    if include_deleted or "deleted" not in rows:
        return np.zeros(len(rows), dtype=bool)
    return true_rows(rows["deleted"])


@checked_keywords
def co_investment_edges(
    exploded: pd.DataFrame, roles: Sequence[str] | None = None, *, include_deleted: bool = False
) -> pd.DataFrame:
    """Pairs of participants that shared deals, as an edge list.

    Over deals with complete investor lists (``deals(..., with_investors=True)``)
    this equals the service's ``co_investors`` of each live investor: ``shared_deals``,
    and the first and last shared dates. Soft-deleted deals are left out by default: the
    interface document hides a soft-deleted record from every read that does not ask for
    deleted ones, and ``co_investors`` takes no ``include_deleted``, so its counts are of
    live deals (the sandbox counts them so). A soft-deleted investor (a participant of an
    ``include_deleted=True`` pull) still has its edges here, while the service answers its
    ``co_investors`` with a 404.

    Parameters
    ----------
    exploded : pandas.DataFrame
        Output of :func:`explode_participants`.
    roles : sequence of str, optional
        Only count participants in these roles (default: every row; a participant
        counts once per deal whatever its roles).
    include_deleted : bool, default False
        Count the deals whose ``deleted`` is true too (rows of
        ``deals(include_deleted=True)``; booleans, 0/1, or text ``"true"`` / ``"false"`` in
        any case). Pass True to compare with a service whose ``co_investors`` count them.

    Returns
    -------
    pandas.DataFrame
        ``investor_a`` < ``investor_b`` (ids), ``name_a``, ``name_b``,
        ``shared_deals`` (distinct deals), ``first_date``/``last_date`` (deal
        dates), sorted by ``shared_deals`` descending, then ids.
        ``attrs["deleted_deals_left_out"]`` counts the soft-deleted deals left out (0 with
        ``include_deleted``, or when ``exploded`` has no ``deleted`` column).

    Raises
    ------
    dealframe.errors.ValidationError
        Not a frame of :func:`explode_participants`, a ``deal_date`` column that holds no
        dates (naming it; Arrow dates and timestamps are read, a time zone dropped), or a
        ``deleted`` column holding a value that is no boolean (as
        :func:`explode_participants` reads it), unless ``include_deleted``.

    Warns
    -----
    dealframe.MissingInvestorsWarning
        The investor role is counted (``roles`` is None or holds it) and some of the deals
        counted lack their full investor list, as :func:`explode_participants` recorded it in
        ``investors_missing`` (else in ``attrs``, whose ids of such deals are counted among the
        rows, so after a row filter too; without a ``deleted`` column, live and soft-deleted
        are counted; for frames with neither, such as a ``concat`` of two pulls, deals with
        lead investor rows but no investor row: a deal with buyers only may have no
        ``investors`` at all). Read from the rows of every role, so ``roles=("investor",)``
        warns of deals that have no investor row because their list was not read. A deal that
        has no row of any role (no lead investor or buyer either, or none of the roles
        exploded) is not counted: :func:`explode_participants` warned of it.
        ``roles`` given and none of its roles has a row (or ``investor`` has none while
        lead investors have some): those roles were not exploded
        (:class:`~dealframe.MissingInvestorsWarning` when ``investor`` is one of them, else
        :class:`~dealframe.DealframeWarning`).

    Examples
    --------
    >>> ex = pd.DataFrame({"deal_id": ["d1", "d1", "d2", "d2"],
    ...     "role": ["investor"] * 4, "participant_id": ["b", "a", "a", "b"],
    ...     "participant_name": ["B", "A", "A", "B"],
    ...     "deal_date": pd.to_datetime(["2020-01-01"] * 2 + ["2021-05-01"] * 2)})
    >>> int(co_investment_edges(ex).loc[0, "shared_deals"])
    2
    """
    if not isinstance(exploded, pd.DataFrame):
        raise ValidationError("exploded", "a frame from explode_participants", got=exploded)
    for col in ("deal_id", "participant_id"):
        if col not in exploded:
            raise ValidationError(
                "exploded", f"a frame from explode_participants (no {col!r} column)"
            )
    wanted = ROLES if roles is None else role_names(roles)
    if roles is not None and "role" not in exploded:
        raise ValidationError("exploded", "a frame from explode_participants (no 'role' column)")
    one_column_each(exploded, _READ, "exploded")
    gone = _deleted(exploded, include_deleted)
    said = False  # investor lists said missing: the roles not exploded are not said again
    if "investor" in wanted:  # live rows of every role (a deal lacking its list has none)
        missing = _incomplete(exploded, exploded[~gone] if gone.any() else exploded)
        if missing:
            said = True
            warnings.warn(
                f"{missing:,} deals lack their full investor list (it was not read): "
                "co-investment is undercounted. For complete lists pull the deals with "
                "client.private.deals(..., with_investors=True) (again, if some single "
                "forms were missing)",
                MissingInvestorsWarning,
                stacklevel=user_stacklevel(),
            )
    asked = (
        np.ones(len(exploded), dtype=bool)
        if roles is None
        else exploded["role"].astype(object).isin(list(wanted)).to_numpy()
    )
    if roles is not None and len(exploded) and not said:
        _say_unexploded(exploded, wanted, bool(asked.any()))
    left_out = int(exploded.loc[gone & asked, "deal_id"].nunique())
    rows = exploded[asked & ~gone]
    rows = rows[rows["deal_id"].notna() & rows["participant_id"].notna()]
    if not len(rows):
        return _said(empty_frame(EDGES), left_out)
    pid_codes, pids = pd.factorize(rows["participant_id"].to_numpy(dtype=object), sort=True)
    deal_codes, _ = pd.factorize(rows["deal_id"].to_numpy(dtype=object))

    dates = (
        datetime_values(rows["deal_date"])
        if "deal_date" in rows
        else np.full(len(rows), np.datetime64("NaT"), dtype="datetime64[us]")
    )
    pairs = pd.DataFrame({"d": deal_codes, "p": pid_codes, "t": dates})
    pairs = pairs.drop_duplicates(["d", "p"])
    joined = pairs.merge(pairs[["d", "p"]], on="d", suffixes=("_a", "_b"))
    joined = joined[joined["p_a"] < joined["p_b"]]
    if not len(joined):
        return _said(empty_frame(EDGES), left_out)
    agg = joined.groupby(["p_a", "p_b"], sort=False).agg(
        shared_deals=("d", "size"), first_date=("t", "min"), last_date=("t", "max")
    )
    agg = agg.reset_index()
    names = (
        rows["participant_name"].to_numpy(dtype=object)
        if "participant_name" in rows
        else np.full(len(rows), None, dtype=object)
    )
    first_name = pd.Series(names).groupby(pid_codes, sort=True).first()
    name_of = first_name.reindex(range(len(pids))).to_numpy(dtype=object)
    a, b = agg["p_a"].to_numpy(), agg["p_b"].to_numpy()
    frame = pd.DataFrame(
        {
            "investor_a": pd.array(np.asarray(pids, dtype=object)[a], dtype=STRING_DTYPE),
            "investor_b": pd.array(np.asarray(pids, dtype=object)[b], dtype=STRING_DTYPE),
            "name_a": pd.array(name_of[a], dtype=STRING_DTYPE),
            "name_b": pd.array(name_of[b], dtype=STRING_DTYPE),
            "shared_deals": pd.array(agg["shared_deals"].to_numpy(), dtype="Int64"),
            "first_date": agg["first_date"].to_numpy(dtype="datetime64[us]"),
            "last_date": agg["last_date"].to_numpy(dtype="datetime64[us]"),
        }
    )
    frame = frame.sort_values(
        ["shared_deals", "investor_a", "investor_b"],
        ascending=[False, True, True],
        ignore_index=True,
    )
    return _said(frame, left_out)


def _said(edges: pd.DataFrame, left_out: int) -> pd.DataFrame:
    """``edges`` with the soft-deleted deals left out counted in ``attrs``."""
    edges.attrs[DELETED_LEFT_OUT] = left_out
    return edges
