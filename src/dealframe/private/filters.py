"""Discovery-driven filters for Family B lists: validate in Python, build the wire body.

The service describes its filters in the discovery documents (``GET
/lookup/{entity}``). :class:`FilterSchema` wraps one document and checks a
user's filters against it before any request: unknown fields (with a close
match and the valid list), operators the field does not take, values of the
wrong type, enum values outside the list. :func:`documented_schema` is the same
for the documents as the interface document writes them (section 4.4): its
:meth:`~FilterSchema.precheck` finds what that document fixes (a malformed date,
number, UUID, timestamp, boolean, list of strings, blank name or ISO-3 code of a
documented filter) and :func:`service_decides` raises it before any request, the
discovery read included. The service's document adds what only it knows: filter names
beyond the interface document's, operators, enum values (they grow); a filter the
interface document types keeps that type. Values are written the Python way (dates as strings, ``datetime.date`` or
``pandas.Timestamp``; a single string where an array is expected) and converted to the
wire form of docs/sandbox.md. A plain value means the operator the interface document lists
first for the filter (``name="acme"``: ``ilike``; a filter it does not list: the service's
first), and ``{"op": value}`` picks another. The value goes plain on the wire only when the
service lists that operator alone for the field; otherwise as ``{"op": value}``, so the match
does not depend on how the service reads a plain value (section 4.2 does not say: one that
lists ``name`` as ``["eq", "ilike"]`` may read ``"acme"`` as an exact match).
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .._vocab import DEAL_SUBTYPES, DEAL_TYPES, REGIONS
from ..arguments import finite_number, flag, iso3
from ..contract import blanked, quoted
from ..errors import (
    EnumValueError,
    RequestInfo,
    ServiceContractError,
    ValidationError,
    did_you_mean,
)
from ..notices import ServiceContractWarning, user_stacklevel
from .ids import check_ids, is_one_id, refuse_bytes

__all__ = [
    "EnumValueError",
    "FilterSchema",
    "OPEN_LISTS",
    "SORT_DIRECTIONS",
    "documented_document",
    "documented_schema",
    "is_day",
    "materialised",
    "merged_filters",
    "range_bound",
    "service_decides",
    "sort_form",
    "to_date_string",
    "to_timestamp_string",
]

#: Sort directions of ``<key>:<direction>`` (interface document section 4.2).
SORT_DIRECTIONS: tuple[str, ...] = ("asc", "desc")
_T = TypeVar("_T")


#: Filters whose values are ISO 3166 alpha-3 codes (interface document section 4.4).
_COUNTRY_FILTERS = frozenset({"country", "target_country"})


def to_date_string(value: Any, argument: str) -> str:
    """A date-like value as ``YYYY-MM-DD``: text written so (stripped), or the day of a
    date, datetime, Timestamp or ``numpy.datetime64``; anything else, or a day outside the
    years 1 to 9999 (``numpy.datetime64("10000-01-01")``), is a ValidationError naming
    ``argument``; ``NaT`` (pandas' or numpy's) is refused as no date.

    Examples
    --------
    >>> to_date_string(pd.Timestamp("2024-03-05 10:00"), "date_from")
    '2024-03-05'
    >>> to_date_string(np.datetime64("NaT"), "date_from")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid date_from: expected a date, not NaT, got np.datetime64('NaT','generic')
    """
    expected = "a date YYYY-MM-DD, datetime.date or pandas.Timestamp"
    if isinstance(value, str):
        text = value.strip()
        if is_day(text):
            return text
        raise ValidationError(argument, expected, got=value)
    if isinstance(value, (pd.Timestamp, dt.datetime, np.datetime64)) and pd.isna(value):
        raise ValidationError(argument, "a date, not NaT", got=value)  # pandas' or numpy's
    if isinstance(value, (pd.Timestamp, dt.datetime)):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, np.datetime64):
        text = str(value.astype("datetime64[D]"))
        if is_day(text):
            return text
        raise ValidationError(argument, "a date of the years 1 to 9999", got=text)
    raise ValidationError(argument, expected, got=value)


def is_day(value: Any) -> bool:
    """Whether ``value`` is a real day written ``YYYY-MM-DD`` (a year from 1 to 9999).

    Examples
    --------
    >>> is_day("2024-02-29"), is_day("2023-02-29"), is_day("20240105"), is_day(None)
    (True, False, False, False)
    """
    try:
        return bool(dt.date.fromisoformat(value).isoformat() == value)
    except (TypeError, ValueError):
        return False


def to_timestamp_string(value: Any, argument: str) -> str:
    """A timestamp as ISO 8601 with an offset; naive values are taken as UTC.

    Examples
    --------
    >>> to_timestamp_string("2024-03-05T10:00:00+01:00", "updated_at")
    '2024-03-05T09:00:00+00:00'

    It is sent in UTC: a timestamp that is past the year 9999 there (or before the year 1)
    is refused, not sent as text the user never wrote (``10000-01-01T23:58:59+00:00``):

    >>> to_timestamp_string("9999-12-31T23:59:59-23:59", "updated_at")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid updated_at: expected a timestamp of the years 1 to 9999 once written in UTC, as it is sent, got '9999-12-31T23:59:59-23:59'
    """
    try:
        stamp = pd.Timestamp(value) if not isinstance(value, (int, float)) else None
    except (ValueError, TypeError):
        stamp = None
    if stamp is None or pd.isna(stamp):
        raise ValidationError(
            argument, "an ISO 8601 timestamp, datetime or pandas.Timestamp", got=value
        )
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    if not 1 <= stamp.year <= 9999:  # 9999-12-31T23:59:59-23:59 is 10000-01-01 in UTC
        raise ValidationError(
            argument,
            "a timestamp of the years 1 to 9999 once written in UTC, as it is sent",
            got=value,
        )
    return stamp.isoformat()


def _as_list(value: Any, argument: str) -> list[Any]:
    if isinstance(value, str) or is_one_id(value):  # one value: a text, a uuid.UUID
        return [value]
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValidationError(argument, "a list of values", got=value)
    return list(value)


def _a(word: str) -> str:
    """``word`` after its indefinite article, for messages.

    Examples
    --------
    >>> _a("investors"), _a("companies")
    ('an investors', 'a companies')
    """
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


@dataclass(frozen=True)
class _Field:
    name: str
    type: str
    operators: tuple[str, ...]
    values: tuple[str, ...] | None


#: Earlier names of sub-collections (interface document, section 4.4).
#: The bounds of a range filter: ``date_from``/``date_to``, ``valuation_min``/``valuation_max``.
_UPPER = {"from": "to", "min": "max"}
#: Operators that keep a lower (``_from``/``_min``) or upper (``_to``/``_max``) bound one
#: (:func:`range_bound`).
_LOWER_OPS = frozenset({"gte", "gt", "eq"})
_UPPER_OPS = frozenset({"lte", "lt", "eq"})
_SUB_ALIASES = {("companies", "sellside"): "acquisitions", ("companies", "buyside"): "investments"}


#: Members of a ``sub_resources`` entry written as an object that give its path (or name).
_SUB_KEYS = ("path", "href", "url", "name")


def _sub_paths(document: Mapping[str, Any]) -> tuple[tuple[str, ...], str | None]:
    """The sub-resource paths of a discovery document, and what was seen if its
    ``sub_resources`` cannot be read (None when it can). An entry is a path string (section
    4.4) or an object giving one (``{"name": ..., "path": ...}``, ``href``, ``url``, or only
    ``name``).

    Examples
    --------
    >>> _sub_paths({"sub_resources": [{"name": "sellside", "path": "/companies/{id}/sellside"}]})
    (('/companies/{id}/sellside',), None)
    >>> _sub_paths({})
    ((), 'is absent')
    >>> _sub_paths({"sub_resources": [{"rel": "x"}]})
    ((), "has entries that give no path (such as {'rel': 'x'})")
    """
    if "sub_resources" not in document:
        return (), "is absent"
    subs = document["sub_resources"]
    if not isinstance(subs, list):
        return (), f"is {quoted(subs, 80)}, not a list of paths"
    paths: list[str] = []
    unread: list[Any] = []
    for entry in subs:
        if isinstance(entry, Mapping):
            entry = next((entry[k] for k in _SUB_KEYS if isinstance(entry.get(k), str)), entry)
        if isinstance(entry, str) and entry.strip():
            paths.append(entry.strip())
        else:
            unread.append(entry)
    if unread:
        return tuple(paths), f"has entries that give no path (such as {quoted(unread[0], 80)})"
    return tuple(paths), None


def _not_a_document(
    where: str, document: Any, request: RequestInfo | None = None
) -> ServiceContractError | None:
    """The error of a discovery ``data`` that is not a discovery document (not an object, no
    list of filters, a filter that is not a ``{field, type, operators}`` object), else None.
    With ``request`` (the discovery request the answer came to) the error carries it, as the
    errors of the other requests do, and says it after its words; else it opens with
    ``where``.

    Returned, not raised, so that the error's traceback holds no frame whose locals hold the
    document (:class:`FilterSchema` raises it after dropping its own).

    Examples
    --------
    >>> print(_not_a_document("GET /x", {"filters": [{"field": 1}]}))
    200 SERVICE_CONTRACT: GET /x: filters[0] is not a {field, type, operators} object
    >>> print(_not_a_document("GET /x", None, RequestInfo("GET", "/x", "private")))
    200 SERVICE_CONTRACT: data is NoneType, not a discovery document (GET /x)
    >>> _not_a_document("GET /x", {"filters": []}) is None
    True
    """
    said_where = "" if request is not None else f"{where}: "

    def wrong(words: str) -> ServiceContractError:
        return ServiceContractError(
            200, f"{said_where}{words}", finding="wrong_shape", request=request
        )

    if not isinstance(document, Mapping):
        return wrong(f"data is {type(document).__name__}, not a discovery document")
    entries = document.get("filters")
    if not isinstance(entries, list):  # else every filter would be refused as unknown
        said = "missing" if "filters" not in document else f"{type(entries).__name__}"
        return wrong(
            f"the discovery document has no list of filters (data.filters is {said}, not a "
            "list of {field, type, operators} objects)"
        )
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("field"), str):
            return wrong(f"filters[{i}] is not a {{field, type, operators}} object")
    return None


#: What :meth:`FilterSchema._operand` gives for a value it leaves to the service's document.
_UNCHECKED = object()


class FilterSchema:
    """The filters, sort keys and sub-resources of one discovery document.

    The document gives the filter names, their operators and enum values; a filter the
    interface document types (section 4.4: :func:`documented_document`) keeps that type
    whatever the service's document says (said in a ``ServiceContractWarning``), so a value
    is checked the same way before the document is read (:meth:`precheck`) and after.

    Parameters
    ----------
    entity : str
        ``"companies"``, ``"investors"`` or ``"transactions"`` (for messages).
    document : dict
        The discovery document's ``data``.
    request : RequestInfo, optional
        The discovery request it answered: carried by the
        :class:`~dealframe.ServiceContractError` raised when ``document`` is not one (so that
        what reads it, a mirror sync among them, names the request that failed).

    Examples
    --------
    >>> doc = {"filters": [{"field": "country", "type": "array_string", "operators": ["in"]}],
    ...        "sort_fields": ["name"], "sub_resources": []}
    >>> FilterSchema("investors", doc).build({"country": "GBR"})
    {'country': ['GBR']}
    """

    def __init__(
        self, entity: str, document: Mapping[str, Any], request: RequestInfo | None = None
    ) -> None:
        where = f"GET /api/private/v1/lookup/{entity}"
        wrong = _not_a_document(where, document, request)
        if wrong is not None:
            # raised from a frame without the document: a traceback that records locals
            # (pytest -l, Sentry) would show a token the service echoed in it
            del document
            raise wrong
        self.entity = entity
        self.document = document
        self.fields: dict[str, _Field] = {}
        fixed = _documented_types(entity)
        unlisted: dict[str, Any] = {}
        retyped: dict[str, str] = {}
        for entry in document["filters"]:
            values = entry.get("values")
            if values is not None and not isinstance(values, list):  # the enum check goes: said
                unlisted[entry["field"]] = values
            operators = entry.get("operators")
            served = str(entry.get("type", "string"))
            typed = fixed.get(entry["field"], served)  # the interface document's, if it types it
            if typed != served:
                retyped[entry["field"]] = served
            self.fields[entry["field"]] = _Field(
                entry["field"],
                typed,
                tuple(str(o) for o in operators) if isinstance(operators, list) else (),
                tuple(str(v) for v in values) if isinstance(values, list) else None,
            )
        if retyped:
            warnings.warn(
                blanked(  # the service's words: a token it echoes is not shown
                    f"{where}: the discovery document types "
                    + ", ".join(f"{name} as {str(t)[:40]!r}" for name, t in retyped.items())
                    + " where the interface document (section 4.4) types "
                    + ", ".join(f"{name} as {fixed[name]!r}" for name in retyped)
                    + ": values are checked and sent as the interface document types them"
                ),
                ServiceContractWarning,
                stacklevel=user_stacklevel(),
            )
        if unlisted:
            first = next(iter(unlisted.values()))
            warnings.warn(
                blanked(  # the service's words: a token it echoes is not shown
                    f"{where}: the values of {', '.join(unlisted)} are not arrays (such as "
                    f"{type(first).__name__} {str(first)[:60]!r}): the client cannot check "
                    "these filters' values (the service decides)"
                ),
                ServiceContractWarning,
                stacklevel=user_stacklevel(),
            )
        sort = document.get("sort_fields")
        self.sort_fields: tuple[str, ...] = (
            tuple(str(k) for k in sort) if isinstance(sort, list) else ()
        )
        #: The sub-resource paths the service lists (``/companies/{id}/fundings`` ...), and
        #: what was seen when ``sub_resources`` cannot be read (None: it could).
        self.sub_resources, self.sub_resources_unread = _sub_paths(document)

    def sub_resource(self, name: str) -> str:
        """The path segment to use for the sub-collection ``name`` on this service.

        The interface document reports ``sellside`` and ``buyside``, and an earlier listing
        ``acquisitions`` and ``investments`` instead: whichever of the two the discovery
        document lists is used (the current name when it lists neither: the client then
        asks the service which one it serves, see :meth:`earlier_name`).

        Examples
        --------
        >>> FilterSchema("companies", {"filters": [],
        ...                            "sub_resources": ["/companies/{id}/acquisitions"]}
        ...              ).sub_resource("sellside")
        'acquisitions'
        """
        listed = self._sub_names()
        alias = _SUB_ALIASES.get((self.entity, name))
        if name not in listed and alias is not None and alias in listed:
            return alias
        return name

    def earlier_name(self, name: str) -> str | None:
        """The earlier name of the sub-collection ``name`` (``acquisitions`` for ``sellside``,
        ``investments`` for ``buyside``) when this document lists neither it nor ``name``
        (``sub_resources`` absent or unreadable, or silent on both): which one the service
        serves is then found by asking it. None when the document decides, or ``name`` has
        no earlier name.

        Examples
        --------
        >>> FilterSchema("companies", {"filters": []}).earlier_name("sellside")
        'acquisitions'
        >>> FilterSchema("companies", {"filters": [], "sub_resources": [
        ...     "/companies/{id}/sellside"]}).earlier_name("sellside") is None
        True
        """
        alias = _SUB_ALIASES.get((self.entity, name))
        listed = self._sub_names()
        if alias is None or name in listed or alias in listed:
            return None
        return alias

    def _sub_names(self) -> set[str]:
        """The last path segment of each sub-resource listed (``sellside`` ...)."""
        return {p.rstrip("/").rsplit("/", 1)[-1] for p in self.sub_resources}

    def build(self, filters: Mapping[str, Any]) -> dict[str, Any]:
        """Validate ``filters`` and return the wire ``filters`` object.

        Raises
        ------
        ValidationError
            Naming the filter and what it accepts (``EnumValueError`` for a value
            outside an enum list).
        """
        return self._convert(filters, known_only=False)

    def precheck(self, filters: Mapping[str, Any]) -> None:
        """Refuse what the interface document fixes whatever the service's discovery
        document holds, sending nothing: the value of each filter it types (of an entity it
        does not describe: each filter this schema lists), by the filter's type (a date
        ``YYYY-MM-DD``, a finite number, a UUID, an ISO 8601 timestamp, ``True``/``False``,
        a non-empty list of non-blank strings, upper-case ISO-3 country codes, a non-blank
        name), the form ``{operator: value}`` and a range's bounds in order.

        Left to :meth:`build` against the service's discovery document: filter names the
        interface document does not give (the service may list more filters), operators it
        does not list for a filter, and enum values outside its lists (they grow). The
        client raises what this refuses before the service's document is read
        (:func:`service_decides`).

        Raises
        ------
        ValidationError
            Naming the filter and what it accepts.

        Examples
        --------
        >>> schema = documented_schema("transactions")
        >>> schema.precheck({"deal_type": ["Mega round"], "new_filter": 1})  # the service decides
        >>> schema.precheck({"date_from": "2024-13-01"})
        Traceback (most recent call last):
        ...
        dealframe.errors.ValidationError: invalid date_from: expected a date YYYY-MM-DD, datetime.date or pandas.Timestamp, got '2024-13-01'
        """
        self._convert(filters, known_only=True)

    def _convert(self, filters: Mapping[str, Any], *, known_only: bool) -> dict[str, Any]:
        """The wire ``filters`` of ``filters`` (:meth:`build`). With ``known_only``
        (:meth:`precheck`), a name this schema does not list and an operator it does not list
        for a filter are let through (and left out of the result), and so is an enum value
        outside its lists (kept)."""
        out: dict[str, Any] = {}
        fixed = _documented_types(self.entity)
        for name, value in filters.items():
            if value is None:
                continue
            if not isinstance(name, str) or not name.strip():
                raise ValidationError(
                    f"filters[{name!r}]",
                    f"{_a(self.entity)} filter name (valid: {', '.join(self.fields)})",
                    got=name,
                )
            spec = self.fields.get(name)
            if known_only and fixed and name not in fixed:
                continue  # a filter the interface document does not type: the service's
            if spec is None:
                if known_only:
                    continue  # the service's document may list it
                raise ValidationError(
                    name,
                    f"{_a(self.entity)} filter{did_you_mean(name, self.fields)}; "
                    f"valid: {', '.join(self.fields)}",
                    got=name,
                )
            operand = self._operand(spec, value, enums=not known_only)
            if operand is not _UNCHECKED:
                out[name] = operand
        self._check_ranges(out)
        return out

    def _check_ranges(self, wire: Mapping[str, Any]) -> None:
        """Refuse a lower bound above its upper bound (``date_from`` after ``date_to``,
        ``valuation_min`` above ``valuation_max`` ...): the service would match no row.

        A bound is read whether it goes out plain or as ``{op: value}`` (a service listing
        several operators for it gets the written-out form), as long as its operator keeps
        it a bound in its own direction (:func:`range_bound`).

        Examples
        --------
        >>> schema = FilterSchema("transactions", {"filters": [
        ...     {"field": "date_from", "type": "date", "operators": ["gte", "lte"]},
        ...     {"field": "date_to", "type": "date", "operators": ["lte"]}]})
        >>> schema.build({"date_from": "2025-01-01", "date_to": "2024-01-01"})
        Traceback (most recent call last):
        ...
        dealframe.errors.ValidationError: invalid date_from: expected a date not after date_to (2024-01-01): the range would match no row, got '2025-01-01'
        """
        for low, wired in wire.items():
            stem, _, end = low.rpartition("_")
            high = f"{stem}_{_UPPER.get(end, '')}"
            a = range_bound(wired, lower=True)
            b = range_bound(wire.get(high), lower=False) if end in _UPPER else None
            if a is None or b is None:
                continue
            dates = isinstance(a, str) and isinstance(b, str)
            numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
            if (dates or numbers) and a > b:
                what = "a date not after" if dates else "a number not above"
                raise ValidationError(
                    low, f"{what} {high} ({b}): the range would match no row", got=a
                )

    def _operand(self, spec: _Field, value: Any, *, enums: bool = True) -> Any:
        """``value`` for the wire; without ``enums`` (:meth:`precheck`) an enum value
        outside the list passes, and an operator not listed gives ``_UNCHECKED``.

        A plain value stands for :meth:`_plain_operator`; it is sent plain only when that is
        the field's one listed operator (a plain value can then mean nothing else), else as
        ``{op: value}``."""
        if isinstance(value, Mapping):
            if len(value) != 1:
                raise ValidationError(
                    spec.name,
                    f"one operator and its value, e.g. {{{(spec.operators or ('eq',))[0]!r}: ...}}",
                    got=value,
                )
            op, value = next(iter(value.items()))
            if not isinstance(op, str) or op not in spec.operators:
                if not enums and isinstance(op, str):
                    return _UNCHECKED  # the service's document may list it
                raise ValidationError(
                    spec.name, f"one of the operators {', '.join(spec.operators)}", got=op
                )
        else:
            op = self._plain_operator(spec, value, say=enums)
        converted = self._value(spec, value, enums=enums)
        if op is None or spec.operators == (op,):
            return converted
        return {op: converted}

    def _plain_operator(self, spec: _Field, value: Any, *, say: bool = True) -> str | None:
        """The operator a plain ``value`` of ``spec`` means: the one the interface document
        lists first for the filter (section 4.4: ``name`` is ``ilike``, a substring match),
        or the service's first for a filter it does not document. When the service does not
        list the documented one, its first operator is used and, with ``say``, a
        ``ServiceContractWarning`` says so (the match is then not the one documented).

        Examples
        --------
        >>> schema = FilterSchema("companies", {"filters": [
        ...     {"field": "name", "type": "string", "operators": ["eq", "ilike"]}]})
        >>> schema.build({"name": "labs"})  # a substring match, whatever a plain value means
        {'name': {'ilike': 'labs'}}
        """
        listed = spec.operators
        documented = _documented_operators(self.entity).get(spec.name)
        if documented in listed:
            return documented
        if documented is None or not listed:  # the service's own filter (or no operator)
            return listed[0] if listed else None
        if say:
            warnings.warn(
                f"GET /api/private/v1/lookup/{self.entity}: the filter {spec.name} lists the "
                f"operators {', '.join(listed)}, not {documented} (what a plain {spec.name} "
                f"means, {_MEANING.get(documented, documented)}): {spec.name}="
                f"{quoted(value, 60)} is sent as {{{listed[0]!r}: ...}}, "
                f"{_MEANING.get(listed[0], listed[0])}; pass {{{listed[0]!r}: ...}} to say so",
                ServiceContractWarning,
                stacklevel=user_stacklevel(),
            )
        return listed[0]

    def _value(self, spec: _Field, value: Any, *, enums: bool = True) -> Any:
        t, arg = spec.type, spec.name
        if t in ("array_string", "array_uuid"):
            # bytes are one value of the wrong kind: named as the argument, not as its [0]
            refuse_bytes(value, arg, "a string or a list of them" if t == "array_string" else None)
            items = _as_list(value, arg)
            if not items:  # the service would match nothing: an empty frame that says nothing
                raise ValidationError(
                    arg,
                    "at least one value (an empty list matches no row; "
                    "leave the filter out, or pass None, for no constraint)",
                    got=items,
                )
            for i, item in enumerate(items):
                if t == "array_uuid":
                    continue  # ids: check_ids below (text or uuid.UUID, nulls, blanks)
                if not isinstance(item, str):
                    raise ValidationError(f"{arg}[{i}]", "a string", got=item)
                if not item.strip():
                    raise ValidationError(
                        f"{arg}[{i}]", "a non-blank string (a blank value matches no row)", got=item
                    )
            if arg in _COUNTRY_FILTERS:  # ISO-3 codes (section 4.4)
                items = [iso3(item, f"{arg}[{i}]") for i, item in enumerate(items)]
            if t == "array_uuid":  # lower case, first occurrence kept
                items = check_ids(items, arg)
            if spec.values is not None and enums:
                bad = [v for v in items if v not in spec.values]
                if bad:
                    raise EnumValueError(
                        arg,
                        f"values from {', '.join(spec.values)}{did_you_mean(bad[0], spec.values)}",
                        got=bad[0],
                    )
            return items
        if t == "string":
            if not isinstance(value, str):
                raise ValidationError(arg, "a string", got=value)
            if not value.strip():  # ilike "" matches every row: a blank cell is no filter
                raise ValidationError(
                    arg,
                    "a non-blank string (leave the filter out, or pass None, for all)",
                    got=value,
                )
            if spec.values is not None and enums and value not in spec.values:
                raise EnumValueError(
                    arg,
                    f"one of {', '.join(spec.values)}{did_you_mean(value, spec.values)}",
                    got=value,
                )
            return value
        if t == "boolean":
            return flag(value, arg)
        if t == "number":
            return finite_number(value, arg)
        if t == "date":
            return to_date_string(value, arg)
        if t == "datetime":
            return to_timestamp_string(value, arg)
        if t == "uuid":
            refuse_bytes(value, arg, "a UUID")
            try:
                return str(uuid.UUID(str(value)))
            except ValueError:
                raise ValidationError(arg, "a UUID", got=value) from None
        return value  # a type this client does not know yet: pass it through

    def check_sort(self, sort: str | None) -> str | None:
        """Validate ``<key>[:asc|desc]`` and return its canonical form ``<key>:<direction>``.

        Spaces around the key and the direction are dropped and the direction is
        lower-cased (``"name: ASC"`` → ``"name:asc"``); without a direction the
        service's default, ``desc``, is written out. Keys are case-sensitive. The form
        is :func:`sort_form`'s; the key is one of this document's ``sort_fields``.

        Raises
        ------
        ValidationError
            Naming ``sort``: what :func:`sort_form` refuses; an unknown key, with the
            closest valid one.

        Examples
        --------
        >>> schema = FilterSchema("x", {"filters": [], "sort_fields": ["name"]})
        >>> schema.check_sort(" name : ASC ")
        'name:asc'
        >>> schema.check_sort("name")
        'name:desc'
        """
        sort = sort_form(sort)
        if sort is None:
            return None
        key, _, direction = sort.partition(":")
        if key not in self.sort_fields:
            keys = ", ".join(self.sort_fields)
            raise ValidationError(
                "sort", f"a sort key among {keys}{did_you_mean(key, self.sort_fields)}", got=key
            )
        return sort


def sort_form(sort: Any) -> str | None:
    """A list's ``sort`` checked for what the interface document fixes (section 4.2), before
    any request, the discovery read included: None, or text ``<key>[:asc|desc]`` with one
    non-blank key. Returned as ``<key>:<direction>`` (spaces dropped, the direction
    lower-cased, ``desc`` written out when missing); whether the key is one of the list's
    sort keys needs the discovery document (:meth:`FilterSchema.check_sort`).

    Raises
    ------
    ValidationError
        Naming ``sort``: anything but text or None, several keys (comma-separated), a blank
        key, an unknown direction (with the closest one).

    Examples
    --------
    >>> sort_form(" deal_date : ASC ")
    'deal_date:asc'
    >>> sort_form(5)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid sort: expected one sort key as text, '<key>:asc' or '<key>:desc', got 5
    """
    if sort is None:
        return None
    if not isinstance(sort, str):
        raise ValidationError("sort", "one sort key as text, '<key>:asc' or '<key>:desc'", got=sort)
    if "," in sort:  # the body's sort is one "<key>:<direction>" (section 4.2)
        raise ValidationError(
            "sort",
            "one sort key, '<key>:asc' or '<key>:desc' (the service sorts by one key: several, "
            "comma-separated, are not taken)",
            got=sort,
        )
    key, _, direction = sort.strip().partition(":")
    key, direction = key.strip(), direction.strip().lower() or "desc"
    if not key:
        raise ValidationError("sort", "a sort key, '<key>:asc' or '<key>:desc'", got=sort)
    if direction not in SORT_DIRECTIONS:
        raise ValidationError(
            "sort",
            f"direction 'asc' or 'desc'{did_you_mean(direction, SORT_DIRECTIONS)}",
            got=direction,
        )
    return f"{key}:{direction}"


# ---------------------------------------------------------------- the documented discovery


def _entry(
    field: str, type_: str, operators: tuple[str, ...], values: tuple[str, ...] | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"field": field, "type": type_, "operators": list(operators)}
    if values is not None:
        entry["values"] = list(values)
    return entry


#: Company fields of open vocabularies, filtered by ``overlaps`` (section 4.4: "open
#: vocabularies without fixed value lists"); deals filter them as ``target_<field>``.
OPEN_LISTS = ("verticals", "themes", "client_focus", "revenue_model", "company_type")
_MEASURES = ("valuation", "raised", "revenue", "ebitda", "ev_revenue", "ev_ebitda")
_IDS = _entry("id", "array_uuid", ("in",))
_NAME = _entry("name", "string", ("ilike", "eq"))
_COUNTRY = _entry("country", "array_string", ("in",))
_FEED = (_entry("updated_at", "datetime", ("gte",)), _entry("include_deleted", "boolean", ("eq",)))

#: The three discovery documents as the interface document writes them (section 4.4; the
#: enum lists are those it gives, which the service's may extend).
_DOCUMENTED: dict[str, dict[str, Any]] = {
    "companies": {
        "filters": [
            _IDS,
            _NAME,
            _COUNTRY,
            _entry("region", "array_string", ("in",), REGIONS),
            *(_entry(f, "array_string", ("overlaps",)) for f in OPEN_LISTS),
            _entry("ownership", "string", ("eq",)),
            _entry("active", "boolean", ("eq",)),
            _entry("founded_min", "number", ("gte",)),
            _entry("founded_max", "number", ("lte",)),
            _entry("ipoed_from", "date", ("gte",)),
            _entry("ipoed_to", "date", ("lte",)),
            *_FEED,
        ],
        "sort_fields": ["name", "founded", "ipoed", "updated_at"],
        "sub_resources": [
            "/companies/{id}/fundings",
            "/companies/{id}/sellside",
            "/companies/{id}/buyside",
            "/companies/{id}/investors",
        ],
    },
    "investors": {
        "filters": [_IDS, _NAME, _COUNTRY, *_FEED],
        "sort_fields": ["name", "updated_at"],
        "sub_resources": [
            "/investors/{id}/investments",
            "/investors/{id}/co_investors",
            "/investors/{id}/portfolio",
        ],
    },
    "transactions": {
        "filters": [
            _IDS,
            _entry("target_id", "array_uuid", ("in",)),
            _entry("investor_id", "array_uuid", ("in",)),
            _entry("deal_type", "array_string", ("in",), DEAL_TYPES),
            _entry("deal_subtype", "array_string", ("in",), DEAL_SUBTYPES),
            _entry("date_from", "date", ("gte",)),
            _entry("date_to", "date", ("lte",)),
            *(
                _entry(f"{measure}_{end}", "number", (op,))
                for measure in _MEASURES
                for end, op in (("min", "gte"), ("max", "lte"))
            ),
            _entry("target_country", "array_string", ("in",)),
            _entry("target_region", "array_string", ("in",), REGIONS),
            *(_entry(f"target_{f}", "array_string", ("overlaps",)) for f in OPEN_LISTS),
            *_FEED,
        ],
        "sort_fields": ["deal_date", "deal_valuation", "deal_raised", "updated_at"],
        "sub_resources": [],
    },
}


#: What each operator matches (interface document section 4.4), for messages.
def range_bound(wired: Any, *, lower: bool) -> Any:
    """The value of a range bound (``date_from``/``valuation_min`` with ``lower``,
    ``date_to``/``valuation_max`` without) in either wire form: ``wired`` itself when plain,
    the value of a one-operator ``{op: value}`` whose operator keeps it a bound on that side
    (``gte``/``gt``/``eq`` below, ``lte``/``lt``/``eq`` above); None when absent or not such
    a bound.

    ``attrs["filters"]`` of a frame holds the filters as sent: a bound the service lists with
    several operators reads ``{"gte": "2024-01-01"}`` there, a bound with one stays plain.

    Examples
    --------
    >>> range_bound("2024-01-01", lower=True), range_bound({"gte": 5}, lower=True)
    ('2024-01-01', 5)
    >>> range_bound({"lte": 5}, lower=True), range_bound({"lte": 5}, lower=False)
    (None, 5)
    """
    if not isinstance(wired, Mapping):
        return wired
    if len(wired) != 1:
        return None
    op, value = next(iter(wired.items()))
    return value if op in (_LOWER_OPS if lower else _UPPER_OPS) else None


_MEANING = {
    "eq": "an exact match",
    "in": "one of the values given",
    "ilike": "a case-insensitive substring match",
    "gte": "at least the value",
    "lte": "at most the value",
    "overlaps": "sharing a value with the list",
}


@functools.cache
def _documented_operators(entity: str) -> dict[str, str]:
    """The operator a plain value of each filter of ``entity`` means: the first the
    interface document lists for it (section 4.4); empty for an entity it does not describe.

    Examples
    --------
    >>> _documented_operators("companies")["name"]
    'ilike'
    """
    filters = _DOCUMENTED.get(entity, {}).get("filters", ())
    return {f["field"]: f["operators"][0] for f in filters if f["operators"]}


@functools.cache
def _documented_types(entity: str) -> dict[str, str]:
    """The type the interface document gives each filter of ``entity`` (section 4.4); empty
    for an entity it does not describe.

    Examples
    --------
    >>> _documented_types("companies")["founded_min"], _documented_types("x")
    ('number', {})
    """
    filters = _DOCUMENTED.get(entity, {}).get("filters", ())
    return {f["field"]: f["type"] for f in filters}


def documented_document(entity: str) -> dict[str, Any]:
    """The discovery document ``data`` of ``entity`` as the interface document writes it
    (section 4.4): its filters with their types, operators and enum lists, its sort keys and
    sub-resources (a copy: the caller may change it).

    Examples
    --------
    >>> [f["field"] for f in documented_document("investors")["filters"]]
    ['id', 'name', 'country', 'updated_at', 'include_deleted']
    """
    return copy.deepcopy(_DOCUMENTED[entity])


@functools.cache
def documented_schema(entity: str) -> FilterSchema:
    """The :class:`FilterSchema` of :func:`documented_document`, read without the service:
    what the client checks before it has read the service's own discovery document.

    Examples
    --------
    >>> documented_schema("transactions").fields["valuation_min"].type
    'number'
    """
    return FilterSchema(entity, documented_document(entity))


#: Filter types that take one value: an iterator given to one is refused, not read.
_ONE_VALUE_TYPES = frozenset({"string", "boolean", "number", "date", "datetime", "uuid"})
#: Operators whose value is a list, whatever the filter's type.
_LIST_OPERATORS = frozenset({"in", "overlaps"})


def materialised(filters: Mapping[Any, Any], *schemas: FilterSchema) -> dict[Any, Any]:
    """``filters`` with the one-shot iterators of the filters that take a list read into a
    list, once: a value given as a generator, ``map``, ``filter`` or ``iter(...)``, at the top
    level or as an operator's value (``{"in": gen}``).

    Filters are checked twice against the same values (:func:`service_decides`: the
    interface document's types first, then the service's discovery document, and once more
    after an enum list grew): an iterator read by the first check would leave the second an
    empty list. Anything that is not an iterator (a list, tuple, set, text, bytes, mapping,
    ``numpy.ndarray``, ``pandas.Series`` or ``Index``) is left as it is.

    An iterator given to a filter that takes one value is left unread, for the check to
    refuse it as given (``valuation_min=itertools.repeat(1)``: reading it would never end):
    a filter every one of ``schemas`` listing it types as one value (a number, date,
    timestamp, boolean, UUID or text), unless its operator takes a list (``in``,
    ``overlaps``). A filter none of them lists is the service's to decide: read.

    Examples
    --------
    >>> import itertools
    >>> schema = documented_schema("transactions")
    >>> materialised({"id": (i for i in ["a"]), "deal_type": {"in": iter(["M&A"])},
    ...               "target_country": "FRA"}, schema)
    {'id': ['a'], 'deal_type': {'in': ['M&A']}, 'target_country': 'FRA'}
    >>> materialised({"valuation_min": itertools.repeat(1)}, schema)
    {'valuation_min': repeat(1)}
    """

    def one_value(name: Any) -> bool:
        types = [s.fields[name].type for s in schemas if name in s.fields]
        return bool(types) and all(t in _ONE_VALUE_TYPES for t in types)

    def once(value: Any, read: bool) -> Any:
        return list(value) if read and isinstance(value, Iterator) else value

    out: dict[Any, Any] = {}
    for name, value in filters.items():
        single = one_value(name)
        if isinstance(value, Mapping):
            out[name] = {
                op: once(v, not single or op in _LIST_OPERATORS) for op, v in value.items()
            }
        else:
            out[name] = once(value, not single)
    return out


def merged_filters(
    raw: Mapping[Any, Any], named: Mapping[str, Any], *schemas: FilterSchema
) -> dict[Any, Any]:
    """The filters of a call: its raw ``filters`` dict (``raw``) with its filter keywords
    (``named``) added; a filter given in both must be given the same value.

    Two different values of one filter (``filters={"deal_type": ["M&A"]}`` beside
    ``deal_type=["Venture"]``) are a slip the client cannot settle: refused naming both, before
    any request. The same value twice is taken, however each is written: the two are compared
    as they would be sent, each converted on its own by the last of ``schemas`` that lists the
    filter (``"USA"`` and ``["USA"]``, ``"2021-01-01"`` and ``datetime.date(2021, 1, 1)``,
    ``{"in": ["M&A"]}`` and ``["M&A"]``, a list and a ``pandas.Categorical`` of its values;
    the values of an ``in`` or ``overlaps`` list in any order). A filter no schema lists, or a
    value its schema refuses (the check refuses it later), is compared as given: a list,
    tuple, array, Series or Categorical of the same items in the same order alike (iterators are read
    first: :func:`materialised`). ``None`` is no value (no constraint) on either side: it is
    left out.

    Raises
    ------
    ValidationError
        Naming ``filters['<name>']`` and the keyword ``<name>``, with both values (an array
        shown as the list of its values).

    Examples
    --------
    >>> merged_filters({"deal_type": ["M&A"], "target_country": "FRA"}, {"deal_type": ("M&A",)})
    {'deal_type': ('M&A',), 'target_country': 'FRA'}
    >>> merged_filters({"date_from": "2021-01-01"}, {"date_from": dt.date(2021, 1, 1)},
    ...                documented_schema("transactions"))
    {'date_from': datetime.date(2021, 1, 1)}
    >>> merged_filters({"deal_type": ["M&A"]}, {"deal_type": None})
    {'deal_type': ['M&A']}
    >>> merged_filters({"deal_type": ["M&A"]}, {"deal_type": ["Venture"]})
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid filters['deal_type']: expected deal_type's value ['Venture'] (a filter given both in filters and as a keyword must have one value), got ['M&A']
    """
    for name, value in named.items():
        given = raw.get(name)
        if given is None or value is None:
            continue
        schema = next((s for s in reversed(schemas) if name in s.fields), None)
        if not _same_value(given, value, schema, name):
            raise ValidationError(
                f"filters[{name!r}]",
                f"{name}'s value {quoted(_shown(value), 80)} (a filter given both in filters "
                "and as a keyword must have one value)",
                got=_shown(given),
            )
    return {
        **{k: v for k, v in raw.items() if v is not None},
        **{k: v for k, v in named.items() if v is not None},
    }


#: Sequences compared item by item, and shown as the list of their items.
_ARRAYS = (list, tuple, np.ndarray, pd.Series, pd.Index, pd.api.extensions.ExtensionArray)


def _shown(value: Any) -> Any:
    """``value`` as a message quotes it: an array, Series, Index or Categorical as the list
    of its values (its repr runs over several lines), anything else as it is.

    Examples
    --------
    >>> _shown(pd.Categorical(["M&A", "Venture"])), _shown({"in": ("a",)})
    (['M&A', 'Venture'], {'in': ('a',)})
    >>> _shown(np.array(["M&A"])), _shown(np.array(["2021-01-01"], dtype="datetime64[ns]"))
    (['M&A'], [Timestamp('2021-01-01 00:00:00')])
    """
    if isinstance(value, _ARRAYS) and not isinstance(value, (list, tuple)):
        try:  # Python values and Timestamps, not numpy's reprs or nanoseconds
            return pd.Series(value).tolist()
        except (TypeError, ValueError):  # not one-dimensional
            return np.asarray(value, dtype=object).tolist()
    return value


def _as_sent(schema: FilterSchema, name: str, value: Any) -> Any:
    """``value`` of the filter ``name`` as ``schema`` would send it, for comparing: its
    operator and its converted value (a frozenset for a list operator, ``in`` or
    ``overlaps``, whose values' order the service does not read); ``_UNCHECKED`` when
    ``schema`` refuses it or does not list its operator.

    Examples
    --------
    >>> schema = documented_schema("transactions")
    >>> _as_sent(schema, "target_country", "USA") == _as_sent(schema, "target_country", ["USA"])
    True
    >>> _as_sent(schema, "date_from", dt.date(2021, 1, 1))
    ('gte', '2021-01-01')
    """
    spec = schema.fields[name]
    try:
        operand = schema._operand(spec, value, enums=False)
    except (TypeError, ValueError):  # a ValidationError: the check refuses it later
        return _UNCHECKED
    if operand is _UNCHECKED:
        return _UNCHECKED
    if isinstance(operand, Mapping):
        ((op, sent),) = operand.items()
    else:  # plain: the field's one operator
        op, sent = (spec.operators[0] if len(spec.operators) == 1 else None), operand
    if op in _LIST_OPERATORS and isinstance(sent, list):
        try:
            sent = frozenset(sent)
        except TypeError:  # values that do not hash (a type this client does not know)
            pass
    return op, sent


def _same_value(a: Any, b: Any, schema: FilterSchema | None = None, name: str = "") -> bool:
    """Whether two values of the filter ``name`` are the same: as ``schema`` would send each
    (:func:`_as_sent`), when it lists the filter and takes both; else as given, sequences
    (list, tuple, ``numpy.ndarray``, ``pandas.Series``, ``Index`` or ``Categorical``) item by
    item, mappings key by key.

    Examples
    --------
    >>> _same_value(["a", "b"], np.array(["a", "b"])), _same_value({"in": ["a"]}, {"in": ("a",)})
    (True, True)
    >>> _same_value(["a", "b"], ["b", "a"]), _same_value(1, "1"), _same_value(pd.NA, "a")
    (False, False, False)
    >>> _same_value(["b", "a"], ["a", "b"], documented_schema("transactions"), "deal_type")
    True
    """
    if a is b:
        return True
    if schema is not None:
        sent_a, sent_b = _as_sent(schema, name, a), _as_sent(schema, name, b)
        if sent_a is not _UNCHECKED and sent_b is not _UNCHECKED:
            return bool(sent_a == sent_b)

    def plain(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, _ARRAYS):
            return [plain(v) for v in value]
        return value

    try:
        return bool(plain(a) == plain(b))
    except (TypeError, ValueError):  # a value with no truth (pd.NA, an array): not the same
        return False


def service_decides(
    read: Callable[[bool, int | None], FilterSchema],
    build: Callable[[FilterSchema], _T],
    precheck: Callable[[], object] | None = None,
    *,
    refresh: bool = False,
) -> tuple[FilterSchema, _T]:
    """Filters checked first against what the interface document fixes, then against the
    service's discovery document for what only it knows.

    ``precheck()`` (a :meth:`FilterSchema.precheck` against :func:`documented_schema`, or
    the document the client holds: the same types) runs first and raises its
    ``ValidationError`` at once, before any request: a malformed date, number, UUID,
    timestamp, boolean, list of strings or name is refused the same way on a fresh client
    and on one holding the service's document, whether the service is reachable or not.
    Only then is the service's document read (``read(refresh, None)``, a request only when
    the client holds no copy or ``refresh`` asks) and ``build(schema)`` against it decides
    what it alone knows: filter names beyond the interface document's, operators, enum
    values. An ``EnumValueError`` of ``build`` (enum lists grow) reads the document again
    (``read(True, None)``) and builds once more, unless ``refresh`` already did. The checks
    read the same values several times: filters given as iterators are first read into
    lists (:func:`materialised`).

    Parameters
    ----------
    read : callable
        ``read(refresh, retries)``: the service's :class:`FilterSchema` (the client's copy
        when it holds one and ``refresh`` is false), its request retried ``retries`` times
        (None, as here: as the client's settings say).
    build : callable
        ``build(schema)``: the filters checked and converted against ``schema``; raises
        ``ValidationError``.
    precheck : callable, optional
        The check that needs no request; None for none.
    refresh : bool, default False
        Read the service's document again, not the client's copy.

    Returns
    -------
    tuple
        The service's schema and what ``build`` returned for it.

    Raises
    ------
    ValidationError
        From the precheck (nothing sent), or from ``build`` against the service's document.
    TransportError, ApiError
        The read failed.

    Examples
    --------
    >>> filters = {"founded_min": "2000-01-01"}  # the interface document: a number
    >>> def unread(refresh, retries):
    ...     raise AssertionError("not read: the precheck refused first")
    >>> service_decides(unread, lambda schema: schema.build(filters),
    ...                 lambda: documented_schema("companies").precheck(filters))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid founded_min: expected a finite number, got '2000-01-01'
    >>> served = documented_schema("companies")
    >>> service_decides(lambda refresh, retries: served, lambda schema: schema.build(
    ...     {"founded_min": 2000}), lambda: served.precheck({"founded_min": 2000}))[1]
    {'founded_min': 2000}
    """
    if precheck is not None:
        precheck()  # what the interface document fixes: refused before any request
    schema = read(refresh, None)
    try:
        return schema, build(schema)
    except EnumValueError:
        if refresh:
            raise
        schema = read(True, None)  # lists grow: look again
        return schema, build(schema)
