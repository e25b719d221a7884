"""Family B (private: companies, investors, deals) responses as typed frames.

Column names are the service's snake_case names; nested objects are flattened
into prefixed columns (``valuation_market_cap``, ``target_id``,
``stats_total_deals``); ``deal_multiples`` gives ``ev_revenue``/``ev_ebitda``.
Rows keep a default ``RangeIndex`` and an ``id`` column.

Examples
--------
>>> df = deals_frame([{"id": "d1", "deal_date": "2024-05-02", "deal_type": "M&A",
...                    "target": {"id": "t1", "name": "Acme"},
...                    "buyers": [{"id": "b1", "name": "Buyer"}]}])
>>> df.loc[0, "target_name"], df["deal_type"].dtype.name
('Acme', 'category')
"""

from __future__ import annotations

import calendar
import copy
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import orjson
import pandas as pd

from dealframe.arguments import checked_keywords, choice
from dealframe.contract import keys_present, typed_fields
from dealframe.errors import ValidationError
from dealframe.frames.deal_rows import read_deal_page
from dealframe.frames.nested import to_lists
from dealframe.frames.normalize import (
    as_records,
    assemble,
    build_columns,
    build_frame,
    cast,
    is_sequence,
    to_date,
)
from dealframe.frames.schemas import (
    AGGREGATE,
    CO_INVESTORS,
    COMPANY_INVESTORS,
    COMPANY_LIST,
    COMPANY_PROFILE,
    DEAL_LIST,
    DEAL_NESTED,
    DEAL_PROFILE,
    DEAL_PROFILE_ONLY,
    DEAL_ROLE,
    INVESTOR_LIST,
    INVESTOR_PROFILE,
    LOOKUP_FILTERS,
    MATCH_TYPES,
    PORTFOLIO,
    PROFILE_NESTED,
    RESOLVE_CANDIDATES,
    RESOLVE_RESULTS,
    ROLES,
    TOP_COUNTRIES,
    TOP_VERTICALS,
    Column,
    Schema,
)

__all__ = [
    "LabelsAsServed",
    "aggregate_frame",
    "bucket_period",
    "buckets_left_out",
    "day_of",
    "co_investors_frame",
    "company_investors_frame",
    "complete_deals",
    "company_profiles_frame",
    "deals_frame",
    "investor_profiles_frame",
    "list_frame",
    "list_page_columns",
    "lookup_frame",
    "portfolio_frame",
    "resolve_frames",
    "top_countries_frame",
    "top_verticals_frame",
]

Items = Iterable[Mapping[str, Any]] | Mapping[str, Any] | None

#: Columns, nested prefixes and optional columns of each list's rows.
LIST_SHAPES: dict[str, tuple[Schema, Mapping[str, str] | None, tuple[Any, ...]]] = {
    "companies": (COMPANY_LIST, None, ()),
    "investors": (INVESTOR_LIST, None, ()),
    "transactions": (DEAL_LIST, DEAL_NESTED, (DEAL_ROLE,)),
}

#: The schema'd reader of each list's pages (typed rows); pages of other lists, and pages
#: it refuses, are read as JSON (``client.private`` walks).
LIST_READERS: dict[str, Callable[[bytes], dict[str, Any] | None]] = {"transactions": read_deal_page}

_PROFILE_PREFIXES = {key: f"{key}_" for key in PROFILE_NESTED}


@checked_keywords
def company_profiles_frame(items: Items) -> pd.DataFrame:
    """Company profiles (``GET /companies/{id}``), one row each, nested objects flattened.

    ``stock_listing``, ``valuation``, ``fundamentals`` and ``deal_activity``
    become prefixed columns (``stock_listing_ticker``, ``valuation_updated_at``,
    ``fundamentals_ev_revenue_ntm``, ``deal_activity_last_deal_date``); a null
    object gives nulls. Profiles fetched with a ``fields`` allowlist still give
    every column. A single profile (or its ``{data}`` envelope) gives one row.

    Examples
    --------
    >>> df = company_profiles_frame({"id": "c1", "stock_listing": None,
    ...                              "valuation": {"market_cap": 5.0}})
    >>> df.loc[0, "valuation_market_cap"], pd.isna(df.loc[0, "stock_listing_ticker"])
    (np.float64(5.0), True)
    """
    return build_frame(as_records(items, "items"), COMPANY_PROFILE, _PROFILE_PREFIXES)


@checked_keywords
def investor_profiles_frame(items: Items) -> pd.DataFrame:
    """Investor profiles (``GET /investors/{id}``), ``stats`` flattened to ``stats_*``.

    ``stats_top_countries``/``stats_top_verticals`` are JSON text columns; see
    :func:`top_countries_frame` and :func:`top_verticals_frame` for tidy forms.

    Examples
    --------
    >>> df = investor_profiles_frame([{"id": "i1", "stats": {"total_deals": 12}}])
    >>> int(df.loc[0, "stats_total_deals"])
    12
    """
    return build_frame(as_records(items, "items"), INVESTOR_PROFILE, _PROFILE_PREFIXES)


def _top_frame(profiles: Any, key: str, schema: Schema) -> pd.DataFrame:
    pairs: Iterable[tuple[Any, Any]]
    if isinstance(profiles, pd.DataFrame):
        pairs = zip(profiles["id"].tolist(), to_lists(profiles[f"stats_{key}"]).tolist())
    else:
        pairs = (
            (p.get("id"), (p.get("stats") or {}).get(key))
            for p in as_records(profiles, "profile_items")
        )
    rows: list[dict[str, Any]] = []
    for investor_id, entries in pairs:
        if not isinstance(entries, list):
            continue
        for rank, entry in enumerate(entries, start=1):
            if not isinstance(entry, Mapping):
                raise ValidationError(f"stats.{key}", "an array of objects", got=entry)
            rows.append({**entry, "investor_id": investor_id, "rank": rank})
    return build_frame(rows, schema)


@checked_keywords
def top_countries_frame(profile_items: Items | pd.DataFrame) -> pd.DataFrame:
    """``stats.top_countries`` of investor profiles, tidy.

    Columns ``investor_id``, ``country``, ``count`` and ``rank`` (1 = first
    listed). Takes profile items or an :func:`investor_profiles_frame`.

    Examples
    --------
    >>> p = {"id": "i1", "stats": {"top_countries": [{"country": "USA", "count": 9},
    ...                                               {"country": "GBR", "count": 4}]}}
    >>> top_countries_frame([p])["rank"].tolist()
    [1, 2]
    """
    return _top_frame(profile_items, "top_countries", TOP_COUNTRIES)


@checked_keywords
def top_verticals_frame(profile_items: Items | pd.DataFrame) -> pd.DataFrame:
    """``stats.top_verticals`` of investor profiles, tidy (``investor_id, vertical, count, rank``).

    Examples
    --------
    >>> p = {"id": "i1", "stats": {"top_verticals": [{"vertical": "AI", "count": 3}]}}
    >>> top_verticals_frame(p).loc[0, "vertical"]
    'AI'
    """
    return _top_frame(profile_items, "top_verticals", TOP_VERTICALS)


def _role_key(value: Any) -> Any:
    """A role value without case, spaces, ``-`` or ``_`` (``"Lead-Investor "``: ``leadinvestor``)."""
    return re.sub(r"[\s_-]+", "", value).casefold() if isinstance(value, str) else value


def _one_vocabulary(values: pd.Series, vocabulary: Sequence[str] = ROLES) -> pd.Series:
    """A categorical column (``role``, ``match_type``) with each value that differs from
    ``vocabulary`` only in case, spaces, ``-`` or ``_`` written as it (``"Lead_Investor"``,
    ``"buyer "``, ``"NO_MATCH"``); any other value stays an extra category, after the
    vocabulary's.

    Examples
    --------
    >>> role = pd.Series(pd.Categorical(["Lead-Investor", "buyer ", "seller"]))
    >>> _one_vocabulary(role).tolist(), list(_one_vocabulary(role).cat.categories)
    (['lead_investor', 'buyer', 'seller'], ['lead_investor', 'buyer', 'investor', 'seller'])
    """
    if not isinstance(values.dtype, pd.CategoricalDtype):
        return values
    old = list(values.cat.categories)
    if old == list(vocabulary):  # the vocabulary alone: nothing to write
        return values
    keys = {_role_key(value): value for value in vocabulary}
    written = [keys.get(_role_key(value), value) for value in old]
    new = [*vocabulary, *sorted({w for w in written if w not in vocabulary}, key=str)]
    at = {value: i for i, value in enumerate(new)}
    table = np.array([*(at[w] for w in written), -1], dtype=np.int32)  # a null's -1 stays -1
    codes = table[values.cat.codes.to_numpy()]
    out = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(new))
    return pd.Series(out, index=values.index, name=values.name)


def _single_only_carried(records: Sequence[Any]) -> tuple[Column, ...]:
    """The columns only single deals are documented to carry (:data:`DEAL_PROFILE_ONLY`:
    ``investors``, the richer target) that some of these deal rows carry: a service may put
    them in list rows too. Typed rows (:mod:`dealframe.frames.deal_rows`) carry ``investors``
    at most (their ``target`` holds the list fields only)."""
    if not records:
        return ()
    top = keys_present(records)
    inner: set[str] = set()
    if "target" in top and typed_fields(records) is None:
        targets = [r.get("target") for r in records]
        inner = keys_present([t for t in targets if isinstance(t, Mapping)])
    return tuple(
        c
        for c in DEAL_PROFILE_ONLY
        if (c.path[1] in inner if len(c.path) == 2 and c.path[0] == "target" else c.path[0] in top)
    )


def _deal_columns(records: Sequence[Any], schema: Schema) -> Any:
    """One page of deal rows as columns (:func:`~dealframe.frames.normalize.build_columns`):
    on list rows (:data:`DEAL_LIST`), the single-deal columns they carry written as single
    deals write them (participants canonical, the same dtypes), not as unknown fields."""
    carried = _single_only_carried(records) if schema is DEAL_LIST else ()
    return build_columns(records, schema, DEAL_NESTED, (*carried, DEAL_ROLE))


def _deals_joined(parts: list[Any], schema: Schema, with_role: bool | None) -> pd.DataFrame:
    """Deal columns joined into a frame, with ``role`` as ``with_role`` asks (:func:`deals_frame`),
    in the one role vocabulary (:func:`_one_vocabulary`); on list rows, the single-deal
    columns some page carried (:func:`_deal_columns`) after the list columns."""
    always = () if with_role is None or with_role is False else (DEAL_ROLE.name,)
    optional = (*DEAL_PROFILE_ONLY, DEAL_ROLE) if schema is DEAL_LIST else (DEAL_ROLE,)
    frame = assemble(parts, schema, optional, always=always)
    if DEAL_ROLE.name not in frame:
        return frame
    if with_role is False:
        return frame.drop(columns=DEAL_ROLE.name)
    frame[DEAL_ROLE.name] = _one_vocabulary(frame[DEAL_ROLE.name])
    return frame


def _is_profile(records: list[Mapping[str, Any]]) -> bool:
    """Whether deal items are single deals (they carry the full ``investors`` list)."""
    return any("investors" in r for r in records)


@checked_keywords
def deals_frame(
    items: Items, *, with_role: bool | None = None, profile: bool | None = None
) -> pd.DataFrame:
    """Deals (list rows, sub-collection rows or single deals), one row per deal.

    Parameters
    ----------
    items : list of dict
        Deal objects, a ``{data, meta}`` page or a single ``{data}`` deal.
    with_role : bool, optional
        ``role`` (Categorical over ``lead_investor``, ``buyer``, ``investor``) is a
        column when the rows carry it; ``True`` adds it even to an empty result
        (sub-collection callers), ``False`` drops it.
    profile : bool, optional
        ``True``: single deals (``GET /transactions/{id}``), with the columns only
        they carry (``target_region``, ``target_city``, ``target_founded``, the
        target's lists, ``investors``); ``False``: list rows, with those of them that
        some row carries (after the list columns, written as single deals write them:
        participants with every participant field, ids in lower case). By
        default, single deals when some item carries ``investors``.

    Returns
    -------
    pandas.DataFrame
        ``deal_date`` a date, ``created_at``/``updated_at`` UTC, ``deal_type``/
        ``deal_subtype``/``target_region`` Categoricals, ``ev_revenue``/
        ``ev_ebitda`` from ``deal_multiples``, ``target_*`` from ``target``,
        ``buyers``/``lead_investors`` (and ``investors``) as JSON text of their
        participants (:mod:`dealframe.frames.nested`), unknown fields kept at the end.

    Examples
    --------
    >>> df = deals_frame([{"id": "d", "created_at": "2024-01-01T00:30:00+01:00",
    ...                    "buyers": [{"id": "b", "name": "B"}]}])
    >>> str(df.loc[0, "created_at"]), "role" in df, "investors" in df
    ('2023-12-31 23:30:00+00:00', False, False)
    >>> df.loc[0, "buyers"]
    '[{"country":null,"id":"b","name":"B","short_name":null,"website":null}]'
    """
    records = as_records(items, "items")
    schema = DEAL_PROFILE if (_is_profile(records) if profile is None else profile) else DEAL_LIST
    return _deals_joined([_deal_columns(records, schema)], schema, with_role)


@checked_keywords
def complete_deals(deals: pd.DataFrame, singles: pd.DataFrame) -> pd.DataFrame:
    """Deal list rows with the columns of their single forms (matched by ``id``).

    The result has the columns of single deals (``DEAL_PROFILE``) in their order,
    then the list rows' other columns; a deal without a single form keeps nulls in
    the profile-only columns (``investors``, ``target_region`` ...), or what its list row
    carried of them (the single form's value is taken wherever there is one).

    Examples
    --------
    >>> rows = deals_frame([{"id": "d1", "lead_investors": [{"id": "a"}]}, {"id": "d2"}])
    >>> one = deals_frame([{"id": "d1", "investors": [{"id": "a"}, {"id": "b"}],
    ...                     "target": {"region": "Oceania"}}])
    >>> done = complete_deals(rows, one)
    >>> done["target_region"].tolist(), done["investors"].isna().tolist()
    (['Oceania', nan], [False, True])

    Anything but a frame with one ``id`` column, for ``deals`` or ``singles``, is a
    :class:`~dealframe.errors.ValidationError` naming that argument.
    """
    for argument, frame in (("deals", deals), ("singles", singles)):
        if not isinstance(frame, pd.DataFrame):
            raise ValidationError(argument, "a deals frame", got=type(frame).__name__)
        if "id" not in frame.columns or not isinstance(frame["id"], pd.Series):
            shown = list(frame.columns)[:8]
            raise ValidationError(argument, "a deals frame with one 'id' column", got=shown)
    keys = pd.Index(deals["id"].to_numpy(dtype=object, na_value=None))
    singles = singles.drop_duplicates("id") if singles["id"].duplicated().any() else singles
    position = pd.Index(singles["id"].to_numpy(dtype=object, na_value=None)).get_indexer(keys)
    found = position >= 0
    columns: dict[str, Any] = {}
    for col in DEAL_PROFILE:
        if col.name in deals.columns and col not in DEAL_PROFILE_ONLY:
            columns[col.name] = deals[col.name].array
            continue
        source = (
            singles[col.name].array
            if col.name in singles.columns
            else cast([None] * len(singles), col)
        )
        taken = source.take(np.where(found, position, -1), allow_fill=True)
        if col.name in deals.columns:  # carried by list rows too: theirs where no single form
            taken = _where(found, taken, deals[col.name].array, col)
        columns[col.name] = taken
    for name in deals.columns:
        if name not in columns:
            columns[name] = deals[name].array
    out = pd.DataFrame(columns, index=deals.index, copy=False)
    out.attrs.update(deals.attrs)
    return out


def _where(found: np.ndarray, taken: Any, kept: Any, col: Column) -> Any:
    """``taken`` where ``found``, else ``kept`` (two arrays of ``col``'s dtype; categories
    joined)."""
    if found.all():
        return taken
    if isinstance(taken.dtype, pd.CategoricalDtype):
        values = np.where(found, taken.astype(object), kept.astype(object))
        return cast([None if pd.isna(v) else v for v in values], col)
    return pd.Series(taken).where(found, pd.Series(kept)).array


@checked_keywords
def list_page_columns(entity: str, items: Items) -> Any:
    """One list page's items as columns (the parsed dicts can then be freed).

    List fields become JSON text at once; scalar fields stay raw values, typed once over
    every page by :func:`list_frame`.

    The unit of work of a list pull: each page is built as soon as it arrives, and
    :func:`list_frame` joins the pages. ``entity`` is ``companies``, ``investors`` or
    ``transactions``.

    Examples
    --------
    >>> part = list_page_columns("investors", [{"id": "a", "name": "A"}])
    >>> list_frame("investors", [part]).loc[0, "name"]
    'A'
    """
    columns, nested, extra = LIST_SHAPES[choice(entity, "entity", LIST_SHAPES)]
    if entity == "transactions":
        return _deal_columns(as_records(items, "items"), columns)
    return build_columns(as_records(items, "items"), columns, nested, extra)


@checked_keywords
def list_frame(
    entity: str, parts: Iterable[Any], *, with_role: bool | None = False
) -> pd.DataFrame:
    """Join the :func:`list_page_columns` of every page into one typed frame.

    ``with_role`` applies to deals as in :func:`deals_frame` (list rows carry no ``role``).

    Examples
    --------
    >>> list_frame("companies", []).shape[0]
    0

    ``parts`` holds :func:`list_page_columns` results (a list, a tuple, a ``deque`` or any
    iterable, read once); anything else is a :class:`~dealframe.errors.ValidationError`
    naming ``parts`` (or the part).
    """
    columns, _, extra = LIST_SHAPES[choice(entity, "entity", LIST_SHAPES)]
    if isinstance(parts, str | bytes | Mapping) or not isinstance(parts, Iterable):
        raise ValidationError(
            "parts", "a list of list_page_columns results", got=type(parts).__name__
        )
    parts = [_part(part, i) for i, part in enumerate(parts)]  # an iterator is read once
    if entity != "transactions":
        return assemble(parts, columns, extra)
    return _deals_joined(parts, columns, with_role)


def _part(part: Any, i: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """``parts[i]`` of :func:`list_frame` as the pair :func:`list_page_columns` made (a list
    of the two is taken too), else a ValidationError naming it."""
    if not (is_sequence(part) and len(part) == 2 and all(isinstance(d, dict) for d in part)):
        raise ValidationError(f"parts[{i}]", "a list_page_columns result", got=type(part).__name__)
    return part[0], part[1]


@checked_keywords
def company_investors_frame(items: Items) -> pd.DataFrame:
    """``/companies/{id}/investors`` items.

    Examples
    --------
    >>> df = company_investors_frame([{"id": "i", "rounds_participated": 2}])
    >>> df["rounds_participated"].dtype
    Int64Dtype()
    """
    return build_frame(as_records(items, "items"), COMPANY_INVESTORS)


@checked_keywords
def portfolio_frame(items: Items) -> pd.DataFrame:
    """``/investors/{id}/portfolio`` items.

    Examples
    --------
    >>> portfolio_frame([{"id": "c", "first_invested": "2021-03-04"}])["first_invested"].dtype
    dtype('<M8[us]')
    """
    return build_frame(as_records(items, "items"), PORTFOLIO)


@checked_keywords
def co_investors_frame(items: Items) -> pd.DataFrame:
    """``/investors/{id}/co_investors`` items.

    Examples
    --------
    >>> co_investors_frame([])["shared_deals"].dtype
    Int64Dtype()
    """
    return build_frame(as_records(items, "items"), CO_INVESTORS)


@checked_keywords
def resolve_frames(items: Items) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Resolve results as ``(results, candidates)``.

    ``results``: one row per query in input order (``query``, ``id``,
    ``match_type`` Categorical exact/ambiguous/no_match). ``candidates``: one
    row per candidate (``query``, ``id``, ``name``, ``country``, ``score``,
    ``rank`` from 1 in the service's order).

    Examples
    --------
    >>> res, cand = resolve_frames([{"query": "acme", "id": None, "match_type": "ambiguous",
    ...     "candidates": [{"id": "a", "name": "Acme", "country": "USA", "score": 0.9}]}])
    >>> res.loc[0, "match_type"], cand.loc[0, "rank"]
    ('ambiguous', np.int64(1))
    """
    records = as_records(items, "items")
    results = build_frame(
        [{k: v for k, v in r.items() if k != "candidates"} for r in records], RESOLVE_RESULTS
    )
    results["match_type"] = _one_vocabulary(results["match_type"], MATCH_TYPES)
    rows: list[dict[str, Any]] = []
    for i, rec in enumerate(records):
        cands = rec.get("candidates") or []
        if not isinstance(cands, list):
            raise ValidationError(f"resolve[{i}].candidates", "an array", got=cands)
        for rank, cand in enumerate(cands, start=1):
            if not isinstance(cand, Mapping):
                raise ValidationError(f"resolve[{i}].candidates[{rank - 1}]", "an object", got=cand)
            rows.append({**cand, "query": rec.get("query"), "rank": rank})
    return results, build_frame(rows, RESOLVE_CANDIDATES)


@checked_keywords
def aggregate_frame(data: Items, meta: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Aggregate buckets, one row each, with each bucket's calendar bounds.

    The service's month and quarter labels are an open point of the interface document;
    any of ``2024-01``, ``2024-01-01``, ``2024-Q1``, ``2024Q1``, ``Q1 2024`` (and ``2024``
    for years) is read (:func:`bucket_period`) and ``bucket`` is written the one way:
    ``YYYY-MM``, ``YYYY-Qn``, ``YYYY``, and ``all`` for ``time_bucket`` none, whose bounds
    are the methodology's ``date_range``. ``period_start``/``period_end`` are the
    inclusive bounds; ``attrs["labels_as_served"]`` keeps the labels as they came, one a row
    (a :class:`LabelsAsServed`: a read-only list the frame's copies share). A label
    that cannot be read keeps its text and null bounds. A ``warning`` that is not text (an
    object, a list) is written as JSON. ``meta`` keys (metric, time_bucket, total_deals,
    outliers_trimmed, methodology) are copied into ``attrs``, plus ``date_range`` lifted out
    of the methodology, its ``from``/``to`` as ``YYYY-MM-DD`` (:func:`day_of`: a time part
    such as ``T00:00:00Z`` is dropped).

    Examples
    --------
    >>> df = aggregate_frame([{"bucket": "Q3 2024", "n": 7, "median": 4.1, "q1": 3.0,
    ...                        "q3": 6.0, "warning": None}],
    ...                      {"metric": "ev_revenue", "time_bucket": "quarter"})
    >>> df.loc[0, "bucket"], str(df.loc[0, "period_end"].date()), df.attrs["metric"]
    ('2024-Q3', '2024-09-30', 'ev_revenue')
    """
    if isinstance(data, Mapping) and "data" in data and meta is None:
        meta = data.get("meta")
    records = as_records(data, "data")
    if meta is not None and not isinstance(meta, Mapping):
        raise ValidationError("meta", "an object", got=meta)
    meta = dict(meta or {})
    methodology = meta.get("methodology")
    methodology = methodology if isinstance(methodology, Mapping) else {}
    date_range = meta.get("date_range") or methodology.get("date_range") or {}
    date_range = (
        {k: day_of(v) for k, v in date_range.items()} if isinstance(date_range, Mapping) else {}
    )
    bucket = meta.get("time_bucket")
    bucket = bucket if isinstance(bucket, str) else None
    periods = _bucket_periods([r.get("bucket") for r in records], bucket)
    rows = [
        {**r, "bucket": p[0] if p is not None else r.get("bucket"), "warning": _text(r)}
        for r, p in zip(records, periods)
    ]
    frame = build_frame(rows, AGGREGATE)
    bounds = [
        (date_range.get("from"), date_range.get("to"))
        if p is not None and p[0] == "all"
        else (p[1], p[2])
        if p is not None
        else (None, None)
        for p in periods
    ]
    for j, col in enumerate(("period_start", "period_end")):
        parsed = to_date([b[j] for b in bounds], col)
        frame[col] = frame[col].where(frame[col].notna(), parsed)
    frame.attrs.update(copy.deepcopy(meta))
    frame.attrs["date_range"] = copy.deepcopy(dict(date_range))
    frame.attrs["labels_as_served"] = LabelsAsServed(r.get("bucket") for r in records)
    return frame


class LabelsAsServed(list):
    """The bucket labels of an aggregate frame as the service wrote them, one a row
    (``attrs["labels_as_served"]``): a list that cannot be changed in place, so that the copy
    pandas makes of a frame's ``attrs`` on every operation shares it instead of copying each
    label (a list of 120,000 month labels made every step of a frame take a second). Labels
    that are no text, number or null (an object or a list a service wrote) are copied as
    usual. ``list(labels)`` gives a list to change.

    Examples
    --------
    >>> import copy
    >>> labels = LabelsAsServed(["2024-01", "Feb 2024"])
    >>> copy.deepcopy(labels) is labels, labels == ["2024-01", "Feb 2024"]
    (True, True)
    >>> labels.append("2024-03")
    Traceback (most recent call last):
    ...
    TypeError: the labels as served are read only: list(labels) gives a list to change
    """

    def __init__(self, labels: Iterable[Any] = ()) -> None:
        super().__init__(labels)
        # read once: the list never changes
        self._shared = all(label is None or type(label) in _ATOMS for label in self)

    def __deepcopy__(self, memo: dict[int, Any]) -> LabelsAsServed:
        return self if self._shared else LabelsAsServed(copy.deepcopy(list(self), memo))

    def __copy__(self) -> LabelsAsServed:
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # pickled as built: list's own would append
        return (LabelsAsServed, (list(self),))

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the labels as served are read only: list(labels) gives a list to change")

    append = extend = insert = pop = remove = clear = sort = reverse = _read_only
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only


#: The label types a :class:`LabelsAsServed` shares rather than copies (None too).
_ATOMS = frozenset({str, int, float, bool})


def _text(record: Mapping[str, Any]) -> Any:
    """A bucket's ``warning``: text as it came, anything else (an object, a list) as JSON,
    and an empty object or list as no warning."""
    value = record.get("warning")
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, dict)) and not value:
        return None
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS, default=repr).decode()


#: A date, then perhaps a time of day and an offset: ``2021-06-30T00:00:00.000+00:00``.
_DAY = re.compile(
    r"(\d{4}-\d{2}-\d{2})"
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?",
    re.I,
)


@checked_keywords
def day_of(value: Any) -> Any:
    """The ``YYYY-MM-DD`` of a date written with a time part (``2021-06-30T00:00:00Z``, as the
    day written, whatever the offset); any other value as it came.

    Examples
    --------
    >>> day_of("2021-06-30T23:59:59+02:00"), day_of("2021-06-30"), day_of("June")
    ('2021-06-30', '2021-06-30', 'June')
    """
    match = _DAY.fullmatch(value.strip()) if isinstance(value, str) else None
    return match[1] if match else value


_FREQ = {"month": "M", "quarter": "Q", "year": "Y"}
#: The one way each kind of bucket is labelled.
_LABEL: dict[str, Callable[[int, int], str]] = {  # of (year, month or quarter)
    "month": lambda year, month: f"{year:04d}-{month:02d}",
    "quarter": lambda year, quarter: f"{year:04d}-Q{quarter}",
    "year": lambda year, _: f"{year:04d}",
}


@checked_keywords
def buckets_left_out(frame: pd.DataFrame, time_bucket: str | None) -> list[str]:
    """Labels of the window's buckets that an :func:`aggregate_frame` does not hold.

    The window is ``attrs["date_range"]``; a service that leaves out suppressed (or empty)
    buckets answers fewer rows than the window has buckets. For ``none`` the window is one
    bucket, ``all``: left out when the answer holds no row. Empty when the window or a label
    cannot be read, or ``time_bucket`` is None (unknown), as :func:`bucket_period` takes it.

    Examples
    --------
    >>> df = aggregate_frame([{"bucket": "2024-Q1", "n": 7}, {"bucket": "2024-Q4", "n": 5}],
    ...     {"time_bucket": "quarter", "date_range": {"from": "2024-01-01", "to": "2024-12-31"}})
    >>> buckets_left_out(df, "quarter")
    ['2024-Q2', '2024-Q3']
    >>> buckets_left_out(aggregate_frame([], {"time_bucket": "none"}), "none")
    ['all']
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", "a frame of aggregate_frame", got=type(frame).__name__)
    if time_bucket is not None and not isinstance(time_bucket, str):
        raise ValidationError(
            "time_bucket", "a time bucket (month, quarter, year, none) or None", got=time_bucket
        )
    if time_bucket is None:
        return []
    if time_bucket == "none":
        return [] if len(frame) else ["all"]
    freq = _FREQ.get(time_bucket)
    window = frame.attrs.get("date_range") or {}
    if freq is None or frame["period_start"].isna().any():
        return []
    try:
        periods = pd.period_range(window.get("from"), window.get("to"), freq=freq)
    except (TypeError, ValueError):
        return []
    held = set(frame["bucket"].astype(str))
    # the labels from the periods' integer fields: no Period object a bucket
    parts = periods.quarter if time_bucket == "quarter" else periods.month
    name = _LABEL[time_bucket]
    labels = (name(y, p) for y, p in zip(periods.year.tolist(), parts.tolist()))
    return [label for label in labels if label not in held]


_LABELS: dict[str, tuple[re.Pattern[str], ...]] = {
    "month": (re.compile(r"^(?P<y>\d{4})-?(?P<m>\d{2})(?:-\d{2})?$"),),
    "quarter": (
        re.compile(r"^(?P<y>\d{4})[- ]?Q(?P<q>[1-4])$", re.I),
        re.compile(r"^Q(?P<q>[1-4])[- ]?(?P<y>\d{4})$", re.I),
        re.compile(r"^(?P<y>\d{4})-(?P<m>\d{2})(?:-\d{2})?$"),
    ),
    "year": (re.compile(r"^(?P<y>\d{4})(?:-01(?:-01)?)?$"),),
}


def _period(kind: str, parts: Mapping[str, str | None]) -> tuple[str, str, str] | None:
    """``(label, first day, last day)`` of the period a label's parts name, in plain integer
    arithmetic (a ``pandas.Period`` a label cost a second per 10,000 labels)."""
    year = int(parts["y"] or 0)
    if year < 1:  # no year 0000 in the calendar (pandas cannot hold it): a label not read
        return None
    if kind == "month":
        month = int(parts["m"] or 0)
        if not 1 <= month <= 12:
            return None
        first, last, label = month, month, _LABEL[kind](year, month)
    elif kind == "quarter":
        if parts.get("q"):
            quarter = int(parts["q"] or 0)
        elif int(parts["m"] or 0) in (1, 4, 7, 10):
            quarter = (int(parts["m"] or 0) - 1) // 3 + 1
        else:
            return None
        first, last, label = 3 * quarter - 2, 3 * quarter, _LABEL[kind](year, quarter)
    else:
        first, last, label = 1, 12, _LABEL["year"](year, 1)
    # ISO days, zero-padded below year 1000 (as strftime's %Y is not, with glibc)
    end = calendar.monthrange(year, last)[1]
    return label, f"{year:04d}-{first:02d}-01", f"{year:04d}-{last:02d}-{end:02d}"


@checked_keywords
def bucket_period(label: Any, time_bucket: str | None) -> tuple[str, str | None, str | None] | None:
    """``(canonical label, first day, last day)`` of a bucket label, or None if unreadable.

    ``time_bucket`` chooses how a label is read (a date such as ``2024-04-01`` is the
    month, quarter or year starting that day); without it, any readable form is taken.

    Examples
    --------
    >>> bucket_period("Q2 2024", "quarter")
    ('2024-Q2', '2024-04-01', '2024-06-30')
    >>> bucket_period("2024-02-01", "month")
    ('2024-02', '2024-02-01', '2024-02-29')
    >>> bucket_period("all", "none")
    ('all', None, None)
    >>> bucket_period("0999-Q4", "quarter")
    ('0999-Q4', '0999-10-01', '0999-12-31')
    """
    if time_bucket is not None and not isinstance(time_bucket, str):
        raise ValidationError(
            "time_bucket", "a time bucket (month, quarter, year, none) or None", got=time_bucket
        )
    return _bucket_period(label, time_bucket)


#: The one form of each kind of label (:data:`_LABEL`), read at once by :func:`_bucket_periods`.
_WRITTEN = {
    "month": re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])"),
    "quarter": re.compile(r"[0-9]{4}-Q[1-4]"),
    "year": re.compile(r"[0-9]{4}"),
}
#: The months of each kind of bucket.
_MONTHS = {"month": 1, "quarter": 3, "year": 12}


def _bucket_periods(
    labels: Sequence[Any], time_bucket: str | None
) -> list[tuple[str, str | None, str | None] | None]:
    """:func:`bucket_period` of each label, for a ``time_bucket`` already checked: the labels
    written in the one form of ``time_bucket`` (``2024-01``, ``2024-Q1``, ``2024``; a
    service's usual answer) read at once, as numpy month numbers, and the others one by one.

    Examples
    --------
    >>> _bucket_periods(["2024-02", "Feb 2024", "2024-2", None], "month")[:2]
    [('2024-02', '2024-02-01', '2024-02-29'), None]
    """
    out: list[tuple[str, str | None, str | None] | None] = [None] * len(labels)
    written = _WRITTEN.get(time_bucket or "")
    one_form = np.fromiter(
        (
            written is not None and type(label) is str and written.fullmatch(label) is not None
            for label in labels
        ),
        dtype=bool,
        count=len(labels),
    )
    at = np.flatnonzero(one_form)
    text = [labels[i] for i in at.tolist()]
    if len(at):
        years = np.array([int(t[:4]) for t in text])
        if time_bucket == "month":
            first = np.array([int(t[5:7]) for t in text])
        elif time_bucket == "quarter":
            first = np.array([int(t[6]) for t in text]) * 3 - 2
        else:
            first = np.ones(len(at), dtype=np.int64)
        months = ((years - 1970) * 12 + first - 1).astype("datetime64[M]")
        starts = np.datetime_as_string(months.astype("datetime64[D]")).tolist()
        ends = np.datetime_as_string(
            (months + _MONTHS[str(time_bucket)]).astype("datetime64[D]") - 1
        ).tolist()
        for i, label, start, end, year in zip(at.tolist(), text, starts, ends, years.tolist()):
            out[i] = (label, start, end) if year >= 1 else None  # no year 0000
    for i in np.flatnonzero(~one_form).tolist():
        out[i] = _bucket_period(labels[i], time_bucket)
    return out


def _bucket_period(
    label: Any, time_bucket: str | None
) -> tuple[str, str | None, str | None] | None:
    """:func:`bucket_period` of a ``time_bucket`` already checked (str or None): what
    :func:`aggregate_frame` calls once a bucket."""
    if time_bucket == "year" and type(label) is int:  # a year written as a number: 2021
        label = str(label)
    if not isinstance(label, str):
        return None
    text = label.strip()
    if time_bucket == "none":
        return "all", None, None
    if text.lower() == "all":
        return ("all", None, None) if time_bucket is None else None
    for kind in [time_bucket] if time_bucket in _LABELS else list(_LABELS):
        for pattern in _LABELS[kind]:
            m = pattern.match(text)
            period = _period(kind, m.groupdict()) if m else None
            if period is not None:
                return period
    return None


@checked_keywords
def lookup_frame(doc: Mapping[str, Any]) -> pd.DataFrame:
    """A discovery document as one row per filter.

    Columns ``field``, ``type``, ``operators`` (JSON array text), ``values``
    (JSON array text, or missing when not enum-backed), ``description``; ``sort_fields``,
    ``sub_resources`` and (transactions) ``aggregate`` go into ``attrs``.

    Examples
    --------
    >>> df = lookup_frame({"data": {"filters": [{"field": "name", "type": "string",
    ...     "operators": ["ilike", "eq"]}], "sort_fields": ["name"], "sub_resources": []}})
    >>> df.loc[0, "operators"], df.attrs["sort_fields"]
    ('["ilike","eq"]', ['name'])
    """
    if not isinstance(doc, Mapping):
        raise ValidationError("doc", "a discovery document (object)", got=type(doc).__name__)
    body = doc.get("data", doc) if "filters" not in doc else doc
    if not isinstance(body, Mapping):
        raise ValidationError("doc.data", "an object", got=body)
    frame = build_frame(as_records(body.get("filters") or [], "lookup.filters"), LOOKUP_FILTERS)
    for key, value in body.items():
        if key != "filters":
            frame.attrs[key] = copy.deepcopy(value)
    frame.attrs.setdefault("sort_fields", [])
    frame.attrs.setdefault("sub_resources", [])
    return frame
