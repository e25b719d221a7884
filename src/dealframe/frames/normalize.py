"""Shared shaping helpers: records in, typed columns out.

Everything here is pure: lists of parsed JSON objects (dicts), or of the typed rows a
schema'd decoder reads (:mod:`dealframe.frames.deal_rows`), become typed
pandas arrays following a :data:`~dealframe.frames.schemas.Schema`. Dates become
naive ``datetime64[us]``, timestamps UTC-aware ``datetime64[us, UTC]`` (offsets
such as ``+01:00`` are converted, not dropped), vocabularies Categoricals that
keep unknown values as extra categories, lists and objects JSON text
(:mod:`dealframe.frames.nested`), and fields not in the schema are kept as extra
columns with an inferred dtype.

Examples
--------
>>> from dealframe.frames.schemas import INVESTOR_LIST
>>> df = build_frame([{"id": "a", "updated_at": "2025-01-01T01:00:00+01:00"}], INVESTOR_LIST)
>>> str(df.loc[0, "updated_at"])
'2025-01-01 00:00:00+00:00'
>>> empty_frame(INVESTOR_LIST).shape
(0, 7)
"""

from __future__ import annotations

import math
import re
import uuid
import warnings
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import Any

import msgspec
import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dealframe.arguments import checked_keywords
from dealframe.contract import as_flag, echoed, typed_fields
from dealframe.errors import ValidationError
from dealframe.frames.extra_names import (
    NestedKey,
    extra_labels,
    extra_sources,
    label_order,
    renamed,
)
from dealframe.frames.nested import dumps, encode
from dealframe.frames.said import NumbersAsText, no_offset_text, say_values
from dealframe.frames.schemas import (
    DATE_DTYPE,
    KINDS,
    STRING_DTYPE,
    VOCABULARIES,
    Column,
    Schema,
    dtype_of,
)
from dealframe.notices import data_warning, holding, user_stacklevel

__all__ = [
    "as_records",
    "assemble",
    "build_columns",
    "build_frame",
    "canonical_uuid",
    "cast",
    "empty_frame",
    "infer_kind",
    "is_sequence",
    "NumbersAsText",
    "no_offset_text",
    "numbers_noted",
    "objects_checked",
    "offsets_noted",
    "to_booleans",
    "to_date",
    "to_utc",
    "warn_numbers_as_text",
    "warn_or_note",
    "warnings_noted",
    "why",
    "without_offset",
]

_EMPTY: Mapping[str, Any] = {}
#: Kinds kept as Arrow text page by page and typed once over every page (one cast of 50,000
#: values costs a fraction of fifty casts of 1,000); the others are typed page by page.
_TEXT_KINDS = frozenset({"str", "uuid", "date", "timestamp", "category"})
_TEXT = pa.large_string()
_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError)
_write_typed = msgspec.json.Encoder().encode


def as_records(obj: Any, what: str) -> list[Mapping[str, Any]]:
    """Items of a response as a list of mappings.

    Accepts a list/tuple/iterable of mappings, ``None`` (no items), a response
    envelope ``{"data": [...], "meta": ...}`` or ``{"data": {...}}`` (unwrapped),
    a single item mapping (one row), or a list of single-entity envelopes.

    Raises
    ------
    dealframe.errors.ValidationError
        When ``obj`` or one of its items is not a JSON object.

    Examples
    --------
    >>> as_records({"data": [{"id": "a"}], "meta": {}}, "deals")
    [{'id': 'a'}]
    """
    if obj is None:
        return []
    if isinstance(obj, Mapping):
        data = obj.get("data", None)
        if ("meta" in obj or len(obj) == 1) and isinstance(data, (list, tuple, Mapping)):
            return as_records(data if isinstance(data, (list, tuple)) else [data], what)
        return [obj]
    if isinstance(obj, (str, bytes, bytearray)) or not isinstance(obj, Iterable):
        raise ValidationError(what, "a list of JSON objects", got=type(obj).__name__)
    records = obj if isinstance(obj, list) else list(obj)
    if objects_checked(records, what):  # typed rows (:mod:`dealframe.frames.deal_rows`)
        return records
    if 1 in set(map(len, records)):  # single-entity envelopes {"data": {...}}: unwrap each
        records = [
            r["data"] if len(r) == 1 and isinstance(r.get("data"), Mapping) else r for r in records
        ]
    return records


@checked_keywords
def objects_checked(records: Sequence[Any], what: str) -> bool:
    """Refuse ``records`` unless every one is a JSON object (a mapping), or every one a typed
    row of the first one's type (:mod:`dealframe.frames.deal_rows`), naming ``what[i]`` of the
    first that is not; True for typed rows.

    Examples
    --------
    >>> objects_checked([{"id": "a"}, 5], "deals")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deals[1]: expected a JSON object, got 'int'
    """
    first = type(records[0]) if records else dict
    if list(map(type, records)).count(first) == len(records):  # one type: the common case
        if first is dict:
            return False
        if typed_fields(records) is not None:  # the reader's pages: no row to look at
            return True
    if set(map(type, records)) <= {dict}:
        return False
    if typed_fields(records) is not None:
        for i, rec in enumerate(records):
            if type(rec) is not first:
                raise ValidationError(
                    f"{what}[{i}]",
                    f"a row of {first.__name__} (as {what}[0])",
                    got=type(rec).__name__,
                )
        return True
    for i, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            raise ValidationError(f"{what}[{i}]", "a JSON object", got=type(rec).__name__)
    return False


def why(exc: BaseException) -> str:
    """A foreign exception's message for a one-line dealframe error: its first line, without
    pandas' advice about its own arguments.

    Examples
    --------
    >>> why(ValueError('time data "29/06" does not match. You might want to try: ...'))
    'time data "29/06" does not match'
    """
    lines = str(exc).strip().splitlines()
    first = lines[0].split(" You might want to try")[0] if lines else type(exc).__name__
    return first.rstrip(" .:,;")


def _is_null(v: Any) -> bool:
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and math.isnan(v))


def _as_text(values: Sequence[Any] | pa.Array) -> pa.Array:
    """Python strings (or None) as Arrow text; Arrow text as it is. Raises Arrow's errors."""
    return values if isinstance(values, pa.Array) else pa.array(values, _TEXT, from_pandas=True)


def _arrow_cast(values: Sequence[Any] | pa.Array, target: pa.DataType) -> np.ndarray | None:
    """Strings cast by Arrow's ISO 8601 parser, or None when Arrow cannot (pandas decides)."""
    try:
        return pc.cast(_as_text(values), target).to_numpy(zero_copy_only=False)
    except _ARROW_ERRORS:
        return None


def _python(values: Sequence[Any] | pa.Array) -> Sequence[Any]:
    return values.to_pylist() if isinstance(values, pa.Array) else values


def _check_text(values: Sequence[Any], name: str, expected: str) -> None:
    """Refuse a value that is neither text nor missing before pandas reads it: pandas warns
    about numbers given with a format (a later pandas reads them as epochs).

    Examples
    --------
    >>> _check_text(["2024-01-01", None, float("nan")], "deal_date", "dates")
    >>> _check_text(["2024-01-01", 1704067200], "deal_date", "dates")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deal_date: expected dates, got 1704067200
    """
    if set(map(type, values)) <= {str, type(None)}:  # the common case, at C speed
        return
    for value in values:
        if (
            value is None
            or isinstance(value, str)
            or (isinstance(value, float) and math.isnan(value))
        ):
            continue
        if value is pd.NaT or value is pd.NA:
            continue
        raise ValidationError(name, expected, got=value)


#: The time of a timestamp and the offset after it: ``Z`` (or RFC 3339's ``z``), ``+01:00``,
#: ``-0500``, ``+01``, after a space or not (a date alone has none: its ``-28`` is no offset).
#: Read by Arrow (RE2): no lookaround.
_OFFSET = re.compile(
    r"[Tt ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)\s*$"
)
#: RFC 3339's lower-case ``z`` (UTC) ending a timestamp, which pandas refuses: written ``Z``
#: (``\1Z\2``) by Arrow, only when some value holds a ``z`` at all.
_LOWER_Z = re.compile(r"(\d\s*)z(\s*)$")
#: RFC 3339 (section 5.6) allows a lower-case ``t`` between the date and the time, as ``z``.
_LOWER_T = re.compile(r"^(\s*\d{4}-?\d{2}-?\d{2})t(\d)")
#: What :func:`to_utc` notes, by field, in place of warning (:func:`offsets_noted`): how many
#: timestamps stated no offset, and the first of them.
_NOTED: ContextVar[dict[str, tuple[int, str]] | None] = ContextVar(
    "dealframe_offsets_noted", default=None
)


def _unstated(texts: pa.Array) -> np.ndarray:
    """Which of ``texts`` (Arrow text) state no offset: a boolean array, False for a null or
    blank text."""
    stated = pc.match_substring_regex(texts, _OFFSET.pattern)
    written = pc.match_substring_regex(texts, r"\S")
    bare = pc.and_(written, pc.invert(stated)).fill_null(False)
    return np.asarray(bare.to_numpy(zero_copy_only=False), dtype=bool)


def without_offset(values: Sequence[Any]) -> list[str]:
    """The texts among ``values`` that state no offset (``2023-09-28T15:53:22``, a date alone):
    which instant they stand for depends on a time zone the service did not give.

    Examples
    --------
    >>> without_offset(["2023-09-28T15:53:22", "2023-09-28T15:53:22Z", "2023-09-28", None])
    ['2023-09-28T15:53:22', '2023-09-28']
    >>> without_offset(["2023-09-28T15:53:22+02:00", "2023-09-28T15:53:22.5z"])
    []
    >>> without_offset(["2023-09-28T15:53:22 +02:00", "2023-09-28 15:53:22 Z", " "])
    []
    """
    values = _python(values)
    texts = pa.array([v if isinstance(v, str) else None for v in values], _TEXT)
    return [values[int(i)] for i in np.flatnonzero(_unstated(texts))]


def _finer_than_us(values: Sequence[Any] | pa.Array) -> bool:
    """Whether some text of ``values`` gives more than six digits of a second (Arrow reads
    them by nanoseconds only)."""
    try:
        return bool(pc.any(pc.match_substring_regex(_as_text(values), r"[.,]\d{7}")).as_py())
    except _ARROW_ERRORS:
        return False


def offsets_noted() -> AbstractContextManager[dict[str, tuple[int, str]]]:
    """Within it, :func:`to_utc` warns of no timestamp without offset: it notes, in the dict
    yielded, by field, how many it read and the first of them, for the caller to say once
    (:func:`no_offset_text`). A walk that types its rows page by page (the mirror's change
    feed) so says them once per field, not once per page.

    It holds for the current thread or task only, as
    :func:`~dealframe.notices.missing_expected` does.

    Examples
    --------
    >>> with offsets_noted() as noted:
    ...     _ = to_utc(["2023-09-28T15:53:22"], "updated_at")  # not warned
    ...     _ = to_utc(["2023-09-29T10:00:00", "2023-09-29"], "updated_at")
    >>> noted
    {'updated_at': (3, '2023-09-28T15:53:22')}
    """
    return holding(_NOTED, {})


def to_utc(
    values: Sequence[Any], name: str = "timestamp", *, warn: bool = True
) -> pd.DatetimeIndex:
    """ISO 8601 strings (any offset, ``Z`` or ``z``, ``T`` or ``t``) as ``datetime64[us, UTC]``.

    Arrow's parser handles the common case (every value with an offset); anything
    else goes through :func:`pandas.to_datetime` with ``format="ISO8601"``. A value
    with no offset (``2023-09-28T15:53:22``, or a date alone) is read as UTC, and,
    with ``warn``, it is said once, naming the field and such a value (noted instead within
    :func:`offsets_noted`): the document gives every timestamp an offset, and a service
    writing its local time without one would shift every stamp. Said of an answer, it is a
    ``no_offset`` finding of the call (:func:`~dealframe.frames.said.say_values`); of items
    the user built, a :class:`~dealframe.DealframeWarning`. An offset after a space
    (``15:53:22 +02:00``) is one; a text read as no time (``"nan"``, ``"NaT"``) is no
    timestamp without offset.

    Examples
    --------
    >>> to_utc(["2024-03-01T10:00:00+01:00", None])[0].hour
    9
    >>> str(to_utc(["2024-03-01T10:00:00.5z"])[0])
    '2024-03-01 10:00:00.500000+00:00'
    >>> str(to_utc(["2024-03-01t10:00:00+01:00"])[0])  # RFC 3339's lower-case separator
    '2024-03-01 09:00:00+00:00'
    """
    fast = _arrow_cast(values, pa.timestamp("us", tz="UTC"))
    if fast is None and _finer_than_us(values):  # ``...22.123456789Z``: floored, as by pandas
        fast = _arrow_cast(values, pa.timestamp("ns", tz="UTC"))
    if fast is not None:
        return pd.DatetimeIndex(fast.astype("datetime64[us]")).tz_localize("UTC")
    values = _python(values)
    _check_text(values, name, "ISO 8601 timestamps (strings)")
    texts = pa.array([v if isinstance(v, str) else None for v in values], _TEXT)
    if pc.any(pc.match_substring(texts, "z")).as_py():  # a regex over every value otherwise
        texts = pc.replace_substring_regex(texts, _LOWER_Z.pattern, r"\1Z\2")
    if pc.any(pc.match_substring(texts, "t")).as_py():
        texts = pc.replace_substring_regex(texts, _LOWER_T.pattern, r"\1T\2")
    raw = texts.to_numpy(zero_copy_only=False)
    try:  # a text read as no time ("nan", "NaT") is null, no timestamp without offset
        out = pd.to_datetime(pd.Index(raw, dtype=object), utc=True, format="ISO8601")
    except (ValueError, TypeError) as exc:
        raise ValidationError(name, f"ISO 8601 timestamps ({why(exc)})") from None
    bare = np.flatnonzero(_unstated(texts) & ~out.isna()) if warn else np.empty(0, np.intp)
    noted = _NOTED.get()
    if len(bare) and noted is not None:
        count, sample = noted.get(name, (0, str(raw[bare[0]])))
        noted[name] = (count + len(bare), sample)
    elif len(bare):
        say_values("no_offset", name, raw, bare)
    return out.as_unit("us")


def to_date(values: Sequence[Any], name: str = "date") -> np.ndarray:
    """``YYYY-MM-DD`` strings as naive ``datetime64[us]`` (``None`` → NaT).

    Examples
    --------
    >>> to_date(["2024-02-29", None]).dtype
    dtype('<M8[us]')
    """
    fast = _arrow_cast(values, pa.date32())
    if fast is not None:
        return fast.astype(DATE_DTYPE)
    values = _python(values)
    _check_text(values, name, "YYYY-MM-DD dates (strings)")
    values = [_day(v, name) for v in values]
    try:
        out = pd.to_datetime(pd.Index(values, dtype=object), format="%Y-%m-%d")
    except (ValueError, TypeError) as exc:
        raise ValidationError(name, f"YYYY-MM-DD dates ({why(exc)})") from None
    return out.to_numpy(dtype=DATE_DTYPE)


#: A date written as a timestamp (``2024-05-01T00:00:00Z``): the day, and the time of day.
_STAMPED = re.compile(
    r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?:Z|[+-]\d{2}:?\d{2})?"
)
_MIDNIGHT = re.compile(r"00:00(?::00(?:\.0+)?)?")


def _day(value: Any, name: str) -> Any:
    """A date given as a timestamp at midnight (a common serializer default) as its date;
    any other value as it is. A timestamp at another time is refused, naming it: which
    day it stands for depends on a time zone the document does not give.

    Examples
    --------
    >>> _day("2024-05-01T00:00:00.000+00:00", "deal_date"), _day("2024-05-01", "deal_date")
    ('2024-05-01', '2024-05-01')
    >>> _day("2024-05-01T13:30:00Z", "deal_date")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deal_date: expected YYYY-MM-DD dates (a timestamp at midnight is read as its date), got '2024-05-01T13:30:00Z'
    """
    if not isinstance(value, str) or len(value) <= 10:
        return value
    stamped = _STAMPED.fullmatch(value)
    if stamped is None:
        return value
    if _MIDNIGHT.fullmatch(stamped[2]) is None:
        raise ValidationError(
            name, "YYYY-MM-DD dates (a timestamp at midnight is read as its date)", got=value
        ) from None
    return stamped[1]


def _strings(values: Sequence[Any]) -> Any:
    """Python strings (or None), or Arrow text, as a ``str`` array, via Arrow when possible."""
    try:
        arrow = _as_text(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pd.array(values, dtype=STRING_DTYPE)  # non-string values: pandas casts them
    return pd.array(arrow, dtype=STRING_DTYPE)


@checked_keywords
def canonical_uuid(value: Any) -> Any:
    """A UUID in the one spelling the client uses (lower case, hyphenated, no braces), as
    :func:`dealframe.private.ids.check_ids` writes arguments; anything that is not a UUID
    (text or not) as it is.

    Examples
    --------
    >>> canonical_uuid("{5F38873F-6E1C-4D6F-AD87-E6977CDA30BA}")
    '5f38873f-6e1c-4d6f-ad87-e6977cda30ba'
    >>> canonical_uuid("d1"), canonical_uuid(7)
    ('d1', 7)
    """
    if not isinstance(value, str) or (len(value) == 36 and value.islower()):
        return value
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return value


def _uuids(values: Sequence[Any] | pa.Array) -> Any:
    """UUID text in one spelling (:func:`canonical_uuid`), so that every comparison
    downstream (ids asked for, the mirror's keys ...) sees the one the arguments have (by
    :func:`_uuid_text`). Values that are not text are left to :func:`_strings` (the
    identity check says them)."""
    try:
        arrow = _as_text(values)
    except _ARROW_ERRORS:
        return _strings(values)
    return pd.array(_uuid_text(arrow), dtype=STRING_DTYPE)


def _uuid_text(arrow: pa.Array) -> pa.Array:
    """Arrow text with its UUIDs in one spelling (:func:`canonical_uuid`). One vectorised
    test finds the values already canonical (every one, as a rule: the array is returned as
    it is); only the others are rewritten.

    Examples
    --------
    >>> _uuid_text(pa.array(["{5F38873F-6E1C-4D6F-AD87-E6977CDA30BA}", None])).to_pylist()
    ['5f38873f-6e1c-4d6f-ad87-e6977cda30ba', None]
    """
    ok = pc.and_(pc.equal(pc.binary_length(arrow), 36), pc.equal(arrow, pc.ascii_lower(arrow)))
    if pc.all(ok).as_py() is not False:  # True, or None: no non-null value
        return arrow
    text = arrow.to_pylist()
    for i in np.flatnonzero(~ok.fill_null(True).to_numpy(zero_copy_only=False)):
        text[i] = canonical_uuid(text[i])
    return pa.array(text, arrow.type)


#: JSON text (canonical: compact, sorted keys) of objects of which some ``"id"`` may not be
#: in the one spelling: a value holding a character other than lower-case hex and ``-``, or
#: not 36 characters long. An escaped quote (``\\"``) inside another value never matches.
_ODD_ID = r'"id":"(?:[^"]*[^0-9a-f"-]|[^"]{0,35}"|[^"]{37})'


#: What a list value may be (as :func:`~dealframe.frames.nested.encode` reads one).
_LISTS = (list, tuple, np.ndarray)


def _members_spelt(values: Sequence[Any], typed: bool = False) -> bool:
    """Whether every ``id`` of the objects of these lists (parsed JSON, or typed rows) is
    already in the one spelling (:func:`canonical_uuid`): tested first without a Python call
    per object (null, or 36 characters of lower case: a page of 1,000 deals, a small fraction
    of its parse), else per distinct id (ids that are no UUID, ``"d1"``, stay as they are).

    ``typed``: ``values`` are lists of typed rows or None, as a schema'd decoder reads them
    (:mod:`dealframe.frames.deal_rows`): their ids are found in C passes only.

    Examples
    --------
    >>> _members_spelt([[{"id": "d1"}], None]), _members_spelt([[{"id": "5F38873F-6E1C-4D6F-AD87-E6977CDA30BA"}]])
    (True, False)
    """
    if typed:  # lists of typed rows or None (dealframe.frames.deal_rows): C passes only
        found = chain.from_iterable(filter(None, values))
        texts = list(filter(None, map(attrgetter("id"), found)))  # "" is in its spelling
    else:
        # nulls (None, NaN, NA) and what is not a list (refused by encode) have no member
        members = list(chain.from_iterable(v for v in values if isinstance(v, _LISTS)))
        try:
            ids = list(map(attrgetter("id"), members))  # typed rows
        except AttributeError:
            ids = [m.get("id") if isinstance(m, Mapping) else None for m in members]
        texts = [i for i in ids if isinstance(i, str)]  # others are written as they are
    joined = "".join(texts)
    if joined == joined.lower() and set(map(len, texts)) <= {36}:
        return True
    return all(canonical_uuid(i) == i for i in set(texts))


def _member_ids(values: Sequence[Any], texts: Any, typed: bool = False) -> Any:
    """``texts`` (a pandas ``str`` array: lists of objects ``values`` as JSON text, as
    :func:`encode` writes them) with the ``id`` of each object in the one spelling of UUIDs
    (:func:`canonical_uuid`): a participant served as ``{"id": "550E8400-..."}`` is held as
    the same text as one served in lower case, in every frame and in the mirror. Returned as
    it is when every id already is (:func:`_members_spelt`, the rule; ``typed`` as there);
    else the lists whose text shows an id of another spelling are read and written again.

    Examples
    --------
    >>> values = [[{"id": "5F38873F-6E1C-4D6F-AD87-E6977CDA30BA", "name": "A"}], None]
    >>> list(_member_ids(values, encode(values, "buyers", array=True)))
    ['[{"id":"5f38873f-6e1c-4d6f-ad87-e6977cda30ba","name":"A"}]', nan]
    """
    if _members_spelt(values, typed):
        return texts
    odd = pc.match_substring_regex(texts.__arrow_array__(), _ODD_ID)
    cells = texts.to_numpy(dtype=object, na_value=None)
    for row in np.flatnonzero(pc.fill_null(odd, False).to_numpy()):
        members = orjson.loads(cells[row])
        for member in members if isinstance(members, list) else [members]:
            if isinstance(member, dict) and isinstance(member.get("id"), str):
                member["id"] = canonical_uuid(member["id"])
        cells[row] = dumps(members)
    return pd.array(cells, dtype=STRING_DTYPE)


def _categorical(values: Sequence[Any], vocab: Sequence[Any]) -> pd.Categorical:
    """Categorical over ``vocab`` plus any unknown values (sorted) as extra categories."""
    if isinstance(values, pa.Array):  # Arrow text: codes found by Arrow, no Python strings
        uniques = pc.unique(values).drop_null().to_pylist()
        known = set(vocab)
        cats = [*vocab, *sorted((v for v in uniques if v not in known), key=str)]
        try:
            found = pc.index_in(values, value_set=pa.array(cats, values.type))
        except _ARROW_ERRORS:  # a vocabulary that is not all text
            values = values.to_pylist()
        else:
            codes = found.fill_null(-1).to_numpy(zero_copy_only=False)
            return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(cats))
    try:
        uniques = set(values)
    except TypeError as exc:
        raise ValidationError("category", f"hashable values ({why(exc)})") from None
    known = set(vocab)
    extra = sorted((v for v in uniques if not _is_null(v) and v not in known), key=str)
    cats = [*vocab, *extra]
    pos = {c: i for i, c in enumerate(cats)}
    codes = np.fromiter(
        map(pos.get, values, repeat(-1, len(values))), dtype=np.int32, count=len(values)
    )
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(cats))


def _floats(
    values: Sequence[Any],
    name: str = "number",
    typed: bool = False,
    labels: tuple[str, Any] | None = None,
) -> np.ndarray:
    """Numbers (or None) as float64, None as NaN: by Arrow when it takes them all (floats,
    ints it holds exactly), else by numpy (numeric strings, big ints ...). A boolean is
    refused (Arrow and numpy read it as 1 or 0); an empty string is null, text that is
    not a finite number (``"Infinity"``, ``"-inf"``, ``"NaN"``) is read as written, and a
    number written as text (``"123.5"``) is read as that number: each warned of, naming the
    field (the last with its count and, given ``labels`` (``("id", ids)``), the first rows'
    labels: :func:`warn_numbers_as_text`). ``typed``: values a schema'd decoder read as
    floats or null (:mod:`dealframe.frames.deal_rows`: fields declared ``float | None``),
    taken as they are, without the checks above.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     _floats(["123.5", 2.0], "deal_valuation", labels=("id", ["d1", "d2"])).tolist()
    [123.5, 2.0]
    >>> str(said[0].message)
    "deal_valuation: numbers written as text in 1 of 2 values (such as '123.5'; id d1): read as numbers"
    """
    if typed:  # numbers and None only, as the decoder read them: None is NaN
        return np.array(values, dtype=np.float64)
    values = _no_booleans(values, name)
    try:  # the common case: the text check below costs nothing here (pd.NA, NaT: null)
        read = pa.array(values, pa.float64(), from_pandas=True)
        return read.to_numpy(zero_copy_only=False, writable=True)
    except _ARROW_ERRORS:
        pass
    if not len(values):
        return np.empty(0, np.float64)
    values = [None if v is pd.NA or v is pd.NaT else v for v in values]
    text = [i for i, v in enumerate(values) if isinstance(v, str)]
    values = _blanks_null(values, name, labels)
    try:
        out = np.array(values, dtype=np.float64)
    except (ValueError, TypeError):
        odd = next(v for v in values if not _is_number(v))
        raise ValidationError(name, "numbers", got=odd) from None
    odd = [i for i in text if values[i] is not None and not np.isfinite(out[i])]
    if odd:
        _warn("not_finite", name, values, odd, labels)
    spelt = [i for i in text if values[i] is not None and np.isfinite(out[i])]
    if spelt:
        warn_numbers_as_text(name, values, spelt, labels)
    return out


#: What :func:`warn_numbers_as_text` notes, by field, in place of warning (:func:`numbers_noted`).
_TEXT_NOTED: ContextVar[dict[str, NumbersAsText] | None] = ContextVar(
    "dealframe_numbers_noted", default=None
)


def numbers_noted() -> AbstractContextManager[dict[str, NumbersAsText]]:
    """Within it, :func:`warn_numbers_as_text` warns of nothing: it notes, in the dict yielded,
    by field, the numbers written as text it was given, for the caller to say once
    (:meth:`NumbersAsText.text`). A walk that builds a frame per page (the mirror's change
    feed) so says them once per field, not once per page. It holds for the current thread or
    task only, as :func:`offsets_noted` does.

    Examples
    --------
    >>> with numbers_noted() as noted:
    ...     warn_numbers_as_text("founded", ["1999", 2001], [0], ("id", ["a", "b"]))
    ...     warn_numbers_as_text("founded", ["2003"], [0], ("id", ["c"]))
    >>> noted["founded"].text("founded")
    "founded: numbers written as text in 2 of 3 values (such as '1999'; id a, c): read as numbers"
    """
    return holding(_TEXT_NOTED, {})


def warn_numbers_as_text(
    name: str,
    values: Sequence[Any],
    rows: Sequence[int],
    labels: tuple[str, Any] | None = None,
    *,
    booleans: bool = False,
) -> None:
    """Say that the ``rows`` of ``values``, of the number field ``name``, hold numbers
    written as text (``"123.5"``), read as numbers: how many, the first value, and the first
    rows' ``labels`` (``(key, labels)``, indexed as ``values`` is) when given (noted instead
    within :func:`numbers_noted`). The document gives these fields JSON numbers; a service
    writing text is said, not silently read. Of an answer (within a
    :func:`~dealframe.contract.shaping` block given the call's findings) it is a finding of the
    call (``numbers_as_text``, ``booleans_as_text``): said once per call and field by its
    report and listed in its frame's ``attrs["findings"]``, as every other adaptation of an
    answer; of items the user built, a :class:`~dealframe.DealframeWarning`
    (:func:`~dealframe.frames.said.say_values`). ``booleans``: the field is a boolean one,
    whose ``rows`` hold ``"true"``, ``"false"``, 0 or 1.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     warn_numbers_as_text("value", ["1.5", 2.0], [0], ("sku", ["A-USA", "B-USA"]))
    >>> str(said[0].message)
    "value: numbers written as text in 1 of 2 values (such as '1.5'; sku A-USA): read as numbers"
    """
    kind = "booleans_as_text" if booleans else "numbers_as_text"
    noted = _TEXT_NOTED.get()
    if noted is None:
        say_values(kind, name, values, rows, labels)
    else:
        noted.setdefault(name, NumbersAsText.of(kind)).add(values, rows, labels)


def _no_booleans(values: Sequence[Any], name: str) -> Sequence[Any]:
    """Refuse a boolean among numbers, Python's or numpy's (Arrow, numpy and pandas read it as
    1 or 0); ``values`` with numpy's 64-bit unsigned integers as Python integers, which Arrow
    would read past ``2**63`` as negative numbers (``np.uint64(2**64 - 1)`` as -1).

    Examples
    --------
    >>> _no_booleans([1.5, np.bool_(True)], "deal_valuation")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid deal_valuation: expected numbers, got True
    """
    types = set(map(type, values))
    _refuse_booleans(values, types, name)
    if np.uint64 in types:
        return [int(v) if type(v) is np.uint64 else v for v in values]
    return values


#: The types of booleans: Python's and numpy's (``np.bool_`` is no ``bool``, nor an ``int``).
_BOOLEANS = frozenset({bool, np.bool_})


def _refuse_booleans(values: Sequence[Any], types: set[type], name: str) -> None:
    """A ValidationError naming the first boolean of ``values`` (of these ``types``), if any."""
    if types & _BOOLEANS:
        flag = next(v for v in values if type(v) in _BOOLEANS)
        raise ValidationError(name, "numbers", got=bool(flag))


def _blanks_null(
    values: Sequence[Any], name: str, labels: tuple[str, Any] | None = None
) -> Sequence[Any]:
    """``values`` with empty strings ``""`` (where a number or null is documented) as None,
    said naming the field (``empty_numbers``: :func:`_warn`)."""
    blank = [i for i, v in enumerate(values) if isinstance(v, str) and not v.strip()]
    if not blank:
        return values
    _warn("empty_numbers", name, values, blank, labels)
    values = list(values)
    for i in blank:
        values[i] = None
    return values


def _ints(values: Sequence[Any], name: str, labels: tuple[str, Any] | None = None) -> Any:
    """Whole numbers (or None) as ``Int64``: a boolean (Python's or numpy's) is refused and an
    empty string is null, as for :func:`_floats` (``3.0`` is read as 3, and ``"3"`` too, said
    as a number written as text, naming the first rows by their ``labels``; ``2.5`` is
    refused; ``pd.NA`` and ``NaT`` are null).

    Examples
    --------
    >>> _ints([3.0, None], "founded").tolist()
    [3, <NA>]
    >>> _ints([np.bool_(True)], "founded")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid founded: expected numbers, got True
    """
    types = set(map(type, values))
    _refuse_booleans(values, types, name)
    if type(pd.NaT) in types:
        values = [None if v is pd.NaT else v for v in values]
    if str not in types:
        return pd.array(values, dtype=pd.Int64Dtype())
    spelt = [i for i, v in enumerate(values) if isinstance(v, str) and v.strip()]
    read = list(_blanks_null(values, name, labels))
    for i in spelt:  # text beside numbers is refused by pandas: each read alone
        read[i] = _whole(read[i], name)
    out = pd.array(read, dtype=pd.Int64Dtype())
    if spelt:
        warn_numbers_as_text(name, values, spelt, labels)
    return out


#: The whole numbers an ``Int64`` column holds.
_INT64 = range(-(2**63), 2**63)


def _whole(text: str, name: str) -> int:
    """A whole number written as text (``"1999"``, ``"3.0"``) that an ``Int64`` column holds,
    else a ValidationError (``"2.5"``, ``"99999999999999999999"``).

    Examples
    --------
    >>> _whole(" 1999 ", "founded"), _whole("3.0", "founded")
    (1999, 3)
    """
    try:
        number: int | float = int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            raise ValidationError(name, "whole numbers", got=text) from None
        if not number.is_integer():
            raise ValidationError(name, "whole numbers", got=text) from None
    if int(number) not in _INT64:
        raise ValidationError(name, "whole numbers of 64 bits", got=text)
    return int(number)


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (ValueError, TypeError):
        return value is None
    return True


#: What :func:`_warn` notes in place of warning (:func:`warnings_noted`): its lines, in order.
_WARN_NOTED: ContextVar[list[str] | None] = ContextVar("dealframe_warnings_noted", default=None)


def warnings_noted() -> AbstractContextManager[list[str]]:
    """Within it, the other values the readers warn of (empty strings where a number is
    documented, text that is not a finite number), and extra fields given free names
    (``attrs["extra_names"]``), are not warned of: each line is noted, once,
    in the list yielded, for the caller to say (the doctor quotes them). It holds for the
    current thread or task only, as :func:`numbers_noted` does.

    Examples
    --------
    >>> with warnings_noted() as noted:
    ...     _ = _floats(["", "NaN", 1.0], "marketCap")
    >>> noted  # doctest: +NORMALIZE_WHITESPACE
    ['marketCap: empty strings "" where a number or null is documented: read as null',
     "marketCap: text that is not a finite number ('NaN'): read as written"]
    """
    return holding(_WARN_NOTED, [])


def warn_or_note(said: str) -> None:
    """Warn ``said`` (a ``DataWarning``: values read otherwise than written), or note it once
    for the caller to say, within :func:`warnings_noted` (the doctor quotes it).

    Examples
    --------
    >>> with warnings_noted() as noted:
    ...     warn_or_note("market_cap read as marketCap")
    ...     warn_or_note("market_cap read as marketCap")
    >>> noted
    ['market_cap read as marketCap']
    """
    noted = _WARN_NOTED.get()
    if noted is None:
        warnings.warn(said, data_warning(), stacklevel=user_stacklevel())
    elif said not in noted:
        noted.append(said)


def _warn(
    kind: str,
    name: str,
    values: Sequence[Any],
    rows: Sequence[int],
    labels: tuple[str, Any] | None = None,
) -> None:
    """Say the ``rows`` of ``values`` of field ``name`` read otherwise than written (``kind``:
    ``empty_numbers``, ``not_finite``): :func:`~dealframe.frames.said.say_values`, or noted
    instead, once, within :func:`warnings_noted`."""
    noted = _WARN_NOTED.get()
    if noted is None:
        say_values(kind, name, values, rows, labels)
        return
    fresh = NumbersAsText.of(kind)
    fresh.add(values, rows, labels)
    if fresh.text(name) not in noted:
        noted.append(fresh.text(name))


def to_booleans(
    values: Sequence[Any], name: str, labels: tuple[str, Any] | None = None, *, said: bool = True
) -> Any:
    """Booleans (or None) as a pandas ``boolean`` array, as the client reads a boolean field.

    ``"true"``/``"false"`` written as text (case and spaces aside:
    :func:`~dealframe.contract.as_flag`, as ``meta``'s booleans are read) and, in a column,
    the numbers 0 and 1 are read as the booleans they say, and said, naming the field (and the first rows'
    ``labels``, as :func:`warn_numbers_as_text` does); anything else is refused, naming the
    field and the value.

    Parameters
    ----------
    values : sequence
        The field's values (JSON booleans, nulls, and perhaps text or 0/1).
    name : str
        The field, as a warning or an error names it.
    labels : tuple of (str, sequence), optional
        ``(key, labels)`` of the rows, indexed as ``values`` is (``("id", ids)``).
    said : bool, default True
        Whether booleans written as text or as 0/1 are said (:func:`warn_numbers_as_text`:
        a finding of the call for an answer, a :class:`~dealframe.DealframeWarning` for items
        the user built); False for a column the user's frame holds (the analytics' ``deleted``
        column), of which nothing is said.

    Returns
    -------
    pandas.arrays.BooleanArray
        One boolean (or ``<NA>``) per value.

    Raises
    ------
    dealframe.errors.ValidationError
        A value that is no boolean, no ``"true"``/``"false"`` and neither 0 nor 1.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     to_booleans(["true", False, None], "deleted").tolist()
    [True, False, <NA>]
    >>> str(said[0].message)
    "deleted: booleans written as text or as 0/1 in 1 of 3 values (such as 'true'): read as the booleans they say"
    """
    try:  # by Arrow: a third of pandas' time over a list of booleans
        return pd.BooleanDtype().__from_arrow__(pa.array(values, pa.bool_()))
    except _ARROW_ERRORS:
        pass
    out: list[Any] = []
    spelt: list[int] = []
    for i, value in enumerate(values):
        if value is None or isinstance(value, (bool, np.bool_)) or _is_null(value):
            out.append(None if _is_null(value) else bool(value))
            continue
        flag = as_flag(value) if isinstance(value, str) else None
        if flag is not None:
            out.append(flag)
        elif isinstance(value, (int, float, np.number)) and value in (0, 1):
            out.append(bool(value))
        else:
            raise ValidationError(name, "booleans (true or false)", got=value)
        spelt.append(i)
    if spelt and said:
        warn_numbers_as_text(name, values, spelt, labels, booleans=True)
    return pd.array(out, dtype=pd.BooleanDtype())


def _objects(values: Sequence[Any]) -> np.ndarray:
    return np.fromiter(values, dtype=object, count=len(values))


def cast(values: Sequence[Any], column: Column) -> Any:
    """Raw JSON values of one column as a typed pandas/numpy array.

    Raises
    ------
    dealframe.errors.ValidationError
        When a value cannot be read as the column's kind.

    Examples
    --------
    >>> cast([1, None], Column("n", "int")).dtype
    Int64Dtype()
    """
    kind, name = column.kind, column.name
    try:
        if kind == "float":
            return _floats(values, name)
        if kind == "int":
            return _ints(values, name)
        if kind == "bool":
            return to_booleans(values, name)
        if kind == "str":
            return _strings(values)
        if kind == "uuid":
            return _uuids(values)
        if kind == "date":
            return to_date(values, name)
        if kind == "timestamp":
            return to_utc(values, name).array
        if kind == "category":
            return _categorical(values, column.categories or ())
        if kind in ("list", "object"):
            texts = encode(values, name, array=kind == "list", fields=column.fields)
            return _member_ids(values, texts) if "id" in (column.fields or ()) else texts
    except ValidationError:
        raise
    except (ValueError, TypeError) as exc:
        raise ValidationError(name, f"{kind} values ({why(exc)})") from None
    raise ValidationError("column", f"a known kind ({', '.join(KINDS)})", got=kind)


def _is_number_type(kind: type) -> bool:
    """Whether values of type ``kind`` are numbers: Python's ``int`` and ``float``, numpy's
    integers and floats (``np.int64``, ``np.float32`` ...); no boolean (Python's ``bool`` is
    an ``int``, numpy's ``np.bool_`` is no ``np.integer``)."""
    return kind in (int, float) or (
        issubclass(kind, (np.integer, np.floating)) and not issubclass(kind, np.bool_)
    )


def infer_kind(name: str, values: Sequence[Any]) -> str:
    """Kind of an extra (unknown) column from its values.

    Numbers give ``float``, strings ``str`` (``category`` for a known vocabulary
    name), booleans ``bool``, lists ``list``; anything else (dicts, mixtures,
    all null) is ``object``. Lists and objects are held as JSON text. Numpy's numbers
    (``np.float64(2)``, ``np.int64(3)``: items a user built with ``arr[i]``,
    ``series.iloc[i]`` or numpy arithmetic hold them; ``df.to_dict("records")``, an array's
    ``.tolist()`` give Python's, with pandas 3) are numbers and its booleans
    (``np.bool_(True)``) booleans, as Python's are; ``pd.NA`` and ``NaT`` are null, as None
    and NaN are.

    Examples
    --------
    >>> infer_kind("x", [1, None, 2.5]), infer_kind("x", ["a"]), infer_kind("x", [[1]])
    ('float', 'str', 'list')
    >>> infer_kind("x", [np.int64(3), 2.5]), infer_kind("x", [np.bool_(True), False])
    ('float', 'bool')
    """
    types = {type(v) for v in values if not _is_null(v)}
    if not types:
        return "object"
    if types <= {bool, np.bool_}:
        return "bool"
    if all(map(_is_number_type, types)):
        return "float"
    if types == {str}:
        return "category" if name in VOCABULARIES else "str"
    if types == {list}:
        return "list"
    return "object"


def _table(objs: Sequence[Mapping[str, Any]]) -> tuple[set[str], dict[str, list[Any]]]:
    """All keys of ``objs`` and ``{key: [obj.get(key) for obj in objs]}``, at C speed.

    Service items are homogeneous (same keys), so when the total key count says
    every object has the first one's keys, each column is one ``itemgetter`` pass
    (a missing key raises, and each key is then read with ``get``). Reading dicts by
    column makes no tuple per object: a page of 1,000 deals read row-wise cost
    twice as much, most of it the collector walking those tuples. Typed rows are read the
    same way, one ``attrgetter`` pass a field: a tuple per row (``msgspec.structs.astuple``
    and ``zip``) is quicker alone, but the collector walks those tuples: with it, a pull
    of 50,000 deals (``deals_pull_end_to_end_speedup``) fell from 3.4-3.6 to 3.0-3.2.
    """
    n = len(objs)
    if not n:
        return set(), {}
    fields = typed_fields(objs)
    if fields is not None:  # typed rows (:mod:`dealframe.frames.deal_rows`): every field set
        return set(fields), {key: list(map(attrgetter(key), objs)) for key in fields}
    keys0 = tuple(objs[0])
    if keys0 and sum(map(len, objs)) == n * len(keys0):
        try:
            return set(keys0), {key: list(map(itemgetter(key), objs)) for key in keys0}
        except KeyError:
            pass
    present = set().union(*objs)
    columns: dict[str, list[Any]] = {}
    for key in present:
        try:
            columns[key] = list(map(itemgetter(key), objs))
        except KeyError:
            columns[key] = [o.get(key) for o in objs]
    return present, columns


def _parents(values: list[Any], head: str) -> list[Any]:
    """Nested objects of one key, ``None`` replaced by an empty mapping (or empty typed row)."""
    types = set(map(type, values))
    if types <= {dict}:
        return values
    row = next((o for o in values if o is not None), None)
    if row is not None and typed_fields([row]) is not None:  # typed rows, all of one type
        empty = type(row)()
        return [empty if o is None else o for o in values]
    out = list(values)
    for i, o in enumerate(out):
        if o is None:
            out[i] = _EMPTY
        elif not isinstance(o, Mapping):
            raise ValidationError(head, "an object or null", got=type(o).__name__)
    return out


def build_columns(
    records: Sequence[Mapping[str, Any]],
    schema: Schema,
    nested: Mapping[str, str] | None = None,
    extra_columns: Sequence[Column] = (),
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Schema columns and raw (object) extra columns of ``records``, for :func:`assemble`.

    List and object columns are written as JSON text and numbers typed at once,
    so the parsed lists and dicts of a page can be freed; text, date, timestamp
    and category columns are kept as Arrow text and typed once, over every page,
    by :func:`assemble` (as are the numbers of a column a page holds text in, so numbers
    written as text are said once, naming their rows).

    ``nested`` maps a nested-object key to the prefix its unknown keys get as
    extra columns (``{"target": "target_"}``); other unknown top-level keys keep
    their name. Extras are keyed by their source (a top-level key as it is, a
    :class:`~dealframe.frames.extra_names.NestedKey` for a nested one): :func:`assemble`
    names them over every page (:mod:`dealframe.frames.extra_names`), so that two sources
    asking for one name (a top-level ``target_7`` and ``target: {"7": ...}``) both keep
    their values. ``extra_columns`` are optional spec'd columns added only when
    some record carries them (``role``). An unknown key that holds a token of the
    client whose call builds the frame (echoed back by the service:
    :func:`dealframe.contract.echoed`) is left out: no column is named by a token.
    """
    nested = nested or {}
    n = len(records)
    typed = typed_fields(records) is not None
    top_keys, raw = _table(records)
    optional = [c for c in extra_columns if c.path[0] in top_keys]
    specs = [*schema, *optional]
    known_top = {c.path[0] for c in (*schema, *extra_columns)} | set(nested)
    unknown = top_keys - known_top
    unknown -= set(echoed(k for k in unknown if isinstance(k, str)))  # none named by a token
    extras: dict[Any, np.ndarray] = {k: _objects(raw[k]) for k in unknown}
    heads = dict.fromkeys([c.path[0] for c in specs if len(c.path) == 2] + list(nested))
    nested_raw: dict[tuple[str, str], list[Any]] = {}
    for head in heads:
        objs = _parents(raw[head], head) if head in top_keys else []
        present, got = _table(objs)
        nested_raw.update(((head, k), v) for k, v in got.items())
        if head not in nested:
            continue
        known = {c.path[1] for c in specs if len(c.path) == 2 and c.path[0] == head}
        said = set(echoed(k for k in present if isinstance(k, str)))
        for key in present - known - said:  # named by :func:`assemble`, over every page
            extras[NestedKey(head, key, f"{nested[head]}{key}")] = _objects(got[key])
    nulls = [None] * n
    columns: dict[str, Any] = {}
    for col in specs:
        if len(col.path) == 1:
            values = raw.get(col.path[0], nulls)
        else:
            values = nested_raw.get((col.path[0], col.path[1]), nulls)
        columns[col.name] = _page_column(values, col, typed)
    return columns, extras


def _page_column(values: Sequence[Any], col: Column, typed: bool = False) -> Any:
    """One page's values of a column: text kinds as Arrow text (typed once by :func:`assemble`;
    kept as they are when they are not all text), the others typed at once. Lists of typed
    rows are written by msgspec: their fields are declared in sorted order, so the text is
    the canonical text :func:`dealframe.frames.nested.encode` writes."""
    if typed and col.kind == "list":
        blobs = [None if v is None else _write_typed(v) for v in values]
        texts = pd.array(pa.array(blobs, pa.large_binary()).view(_TEXT), dtype=STRING_DTYPE)
        return _member_ids(values, texts, typed=True) if "id" in (col.fields or ()) else texts
    if col.kind == "float":
        if typed:
            return _floats(values, col.name, typed=True)
        values = _no_booleans(values, col.name)
        try:  # numbers only (the common case): typed now
            return pa.array(values, pa.float64()).to_numpy(zero_copy_only=False, writable=True)
        except _ARROW_ERRORS:  # text among them: typed once over every page by :func:`assemble`,
            return values  # which says numbers written as text once, naming their rows
    if col.kind == "int" and str in set(map(type, values)):
        return values  # the same
    if col.kind == "bool":
        try:  # booleans only (the common case): typed now
            return pd.BooleanDtype().__from_arrow__(pa.array(values, pa.bool_()))
        except _ARROW_ERRORS:  # text or 0/1 among them: typed once over every page, so
            return values  # that they are said once, with the call's count
    if col.kind not in _TEXT_KINDS:
        return cast(values, col)
    try:
        return _as_text(values)
    except _ARROW_ERRORS:
        return values


@checked_keywords
def is_sequence(value: Any) -> bool:
    """Whether ``value`` is a sequence of items that may be read more than once (a list, a
    tuple, a ``deque``, a range ...), not a string, bytes or a mapping.

    Examples
    --------
    >>> from collections import deque
    >>> is_sequence(deque([1])), is_sequence("ab"), is_sequence(iter([1]))
    (True, False, False)
    """
    return isinstance(value, Sequence) and not isinstance(
        value, str | bytes | bytearray | memoryview
    )


def _check_schema(schema: Any, index: Any, argument: str = "schema") -> None:
    """Refuse ``schema`` unless a tuple of :class:`Column`, and ``index`` unless None or the
    name of one of them."""
    if not is_sequence(schema) or not all(isinstance(c, Column) for c in schema):
        raise ValidationError(argument, "a tuple of Column (a schema)", got=type(schema).__name__)
    if index is not None and not (isinstance(index, str) and index in {c.name for c in schema}):
        raise ValidationError("index", "None or the name of a column of the schema", got=index)


@checked_keywords
def empty_frame(schema: Schema, index: str | None = None) -> pd.DataFrame:
    """A zero-row frame with every column of ``schema`` at its dtype.

    Examples
    --------
    >>> from dealframe.frames.schemas import AGGREGATE
    >>> empty_frame(AGGREGATE)["n"].dtype
    Int64Dtype()
    """
    _check_schema(schema, index)
    frame = pd.DataFrame({c.name: pd.Series([], dtype=dtype_of(c)) for c in schema})
    return frame.set_index(index) if index else frame


def _absent(n: int, col: Column) -> Any:
    """A page's chunk of a column none of its rows carried."""
    return pa.nulls(n, _TEXT) if col.kind in _TEXT_KINDS else cast([None] * n, col)


def _joined(chunks: list[Any], col: Column, labels: tuple[str, Any] | None = None) -> Any:
    """One column over every page: typed chunks joined; text chunks joined, then typed once
    (as are the numbers of a column some page held text in, ``labels`` naming its rows)."""
    if col.kind in _TEXT_KINDS:
        if all(isinstance(c, pa.Array) for c in chunks):
            return cast(chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks), col)
        return cast(list(chain.from_iterable(map(_python, chunks))), col)
    if col.kind in ("float", "int", "bool") and any(isinstance(c, list) for c in chunks):
        values = list(chain.from_iterable(c if isinstance(c, list) else list(c) for c in chunks))
        if col.kind == "float":
            return _floats(values, col.name, labels=labels)
        if col.kind == "bool":
            return to_booleans(values, col.name, labels=labels)
        return _ints(values, col.name, labels=labels)
    if len(chunks) == 1:
        return chunks[0]
    if isinstance(chunks[0], np.ndarray):
        return np.concatenate(chunks)
    return type(chunks[0])._concat_same_type(chunks)


def _row_labels(columns: Mapping[str, Any]) -> tuple[str, Any] | None:
    """How a warning names the rows of the columns typed so far: by ``sku`` or ``id`` (the
    schemas put them first), else not at all."""
    for key in ("sku", "id"):
        if key in columns:
            return key, columns[key]
    return None


def assemble(
    parts: Sequence[tuple[dict[str, Any], dict[str, np.ndarray]]],
    schema: Schema,
    extra_columns: Sequence[Column] = (),
    *,
    always: Sequence[str] = (),
    index: str | None = None,
) -> pd.DataFrame:
    """One frame from the ``build_columns`` output of one or more pages.

    Schema columns come first in schema order, then the ``extra_columns`` some
    page carried (or named in ``always``), then unknown extras sorted by name (by their text,
    then their type's name), each named as :func:`~dealframe.frames.extra_names.extra_labels`
    says over every page: no extra takes the name of a column of ``schema`` or
    ``extra_columns``, or of another extra. ``attrs["extra_names"]`` says where each extra
    column that is no top-level key under its own name came from (``{"target_7_2": ["target",
    "7"]}``), and a warning says which had to be named otherwise than they asked (a name that
    holds for this call only): a :class:`~dealframe.ServiceContractWarning` for answers of the
    service, a :class:`~dealframe.DealframeWarning` for items the user built.
    Text, date, timestamp, category and extra columns are typed once, on the
    concatenated values (numbers and lists page by page, which comes to the same), so
    the result does not depend on how the rows were split into pages. ``index`` names
    a schema column to use as the index (like ``set_index``, without copying the others).
    """
    if not parts:
        return empty_frame(schema, index)
    lengths = [len(next(iter(t.values()))) if t else 0 for t, _ in parts]
    specs = {c.name: c for c in (*schema, *extra_columns)}
    order = [c.name for c in schema]
    for col in extra_columns:
        if col.name in always or any(col.name in t for t, _ in parts):
            order.append(col.name)
    columns: dict[str, Any] = {}
    for name in order:
        col = specs[name]
        chunks = [t[name] if name in t else _absent(n, col) for (t, _), n in zip(parts, lengths)]
        columns[name] = _joined(chunks, col, _row_labels(columns))
    reserved = [c.name for c in (*schema, *extra_columns)]
    labels = extra_labels((k for _, e in parts for k in e), reserved)
    for key, label in sorted(labels.items(), key=lambda kl: label_order(kl[1])):
        chunks = [
            e[key] if key in e else np.full(n, None, dtype=object)
            for (_, e), n in zip(parts, lengths)
        ]
        raw: Any = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
        text = str(label)  # a key of the caller's items may be no string (2024): kept as is
        columns[label] = cast(raw, Column(text, infer_kind(text, raw)))
    if index is None:
        frame = pd.DataFrame(columns, copy=False)
    else:
        rows = pd.Index(columns.pop(index), name=index)
        frame = pd.DataFrame(columns, index=rows, copy=False)
    _say_extra_names(frame, labels)
    return frame


def _say_extra_names(frame: pd.DataFrame, labels: dict[Any, Any]) -> None:
    """Record where the extra columns that are no top-level key under its own name came from
    (``attrs["extra_names"]``), and warn once when some had to be named otherwise than they
    asked: their names hold for this call only. The warning is a
    :class:`~dealframe.ServiceContractWarning` for a frame of answers of the service, a
    :class:`~dealframe.DealframeWarning` for one of items the user built
    (:func:`~dealframe.notices.data_warning`)."""
    sources = extra_sources(labels)
    if sources:
        frame.attrs["extra_names"] = sources
    moved = renamed(labels)
    if moved:
        shown = ", ".join(f"{name} ({'.'.join(map(str, sources[name]))})" for name in moved)
        said = (
            f"extra fields named as other columns were given free names: {shown}. These "
            "names hold within this call only (another call, whose rows hold other fields, "
            "may name them otherwise): check attrs['extra_names'] before joining frames"
        )
        warn_or_note(said)  # or noted for the caller to say (:func:`warnings_noted`)


@checked_keywords
def build_frame(
    records: Sequence[Mapping[str, Any]],
    schema: Schema,
    nested: Mapping[str, str] | None = None,
    extra_columns: Sequence[Column] = (),
    *,
    always: Sequence[str] = (),
    index: str | None = None,
) -> pd.DataFrame:
    """Typed frame of ``records``: schema columns, then extras (see :func:`assemble`).

    Examples
    --------
    >>> from dealframe.frames.schemas import INVESTOR_LIST
    >>> list(build_frame([{"id": "a", "aum": 5}], INVESTOR_LIST).columns)[-1]
    'aum'

    An argument of another type is a :class:`~dealframe.errors.ValidationError` naming it.
    """
    if not is_sequence(records):
        raise ValidationError("records", "a list of JSON objects", got=type(records).__name__)
    objects_checked(records, "records")
    _check_schema(schema, index)
    if nested is not None and not (
        isinstance(nested, Mapping) and all(isinstance(v, str) for v in nested.values())
    ):
        raise ValidationError("nested", "a dict of key to column prefix", got=nested)
    _check_schema(extra_columns, None, "extra_columns")
    if not is_sequence(always):
        raise ValidationError("always", "a list of column names", got=always)
    return assemble(
        [build_columns(records, schema, nested, extra_columns)],
        schema,
        extra_columns,
        always=always,
        index=index,
    )
