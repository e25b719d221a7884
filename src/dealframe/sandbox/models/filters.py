"""Family B filter specifications and their parsing.

One table per list endpoint (interface document section 4.4) drives three
things: the discovery documents, the validation of ``filters`` bodies, and the
conditions the store evaluates. The wire form is in docs/sandbox.md: a plain
value uses the field's first operator; ``{"<op>": value}`` picks another. An array
filter's values are deduplicated here (first occurrence kept), and
:func:`member_mask` tests a column against them by hashing, so a long list costs
one pass over the rows, not one per value.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import Problems, json_type, json_value
from ..vocab import DEAL_SUBTYPES, DEAL_TYPES, ISO3_PATTERN, MAX_IDS, REGIONS, matches

__all__ = [
    "Condition",
    "DEFAULT_SORT",
    "FilterSpec",
    "SORT_KEYS",
    "SPECS",
    "member_mask",
    "parse_date",
    "parse_datetime",
    "parse_filters",
    "parse_sort",
]

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: How a refusal names a :attr:`FilterSpec.pattern` (any other: the pattern itself).
_PATTERN_WORDS = {ISO3_PATTERN: "an ISO 3166 alpha-3 code (three capital letters)"}
_FRACTION = re.compile(r"[T ]\d{2}:\d{2}:\d{2}[.,]([0-9]+)")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MICROSECOND = dt.timedelta(microseconds=1)


@dataclass(frozen=True)
class FilterSpec:
    """One filter field: its type, operators, enum values and note.

    ``pattern`` is the one each value of an ``array_string`` filter must match whole
    (:data:`~dealframe.sandbox.vocab.ISO3_PATTERN` for the country filters), or None; the
    handler checks any pattern given, and the OpenAPI document states the same one.
    """

    field: str
    type: str
    operators: tuple[str, ...]
    description: str = ""
    values: tuple[str, ...] | None = None
    pattern: str | None = None

    def document(self) -> dict[str, Any]:
        """The discovery entry ``{field, type, operators, values?, description?}``."""
        out: dict[str, Any] = {
            "field": self.field,
            "type": self.type,
            "operators": list(self.operators),
        }
        if self.values is not None:
            out["values"] = list(self.values)
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True)
class Condition:
    """A parsed filter: field, operator and normalised value."""

    field: str
    op: str
    value: Any


def _S(field: str, type_: str, ops: tuple[str, ...], note: str = "", values=None) -> FilterSpec:
    return FilterSpec(field, type_, ops, note, values)


def _country(field: str, note: str) -> FilterSpec:
    """A filter of ISO-3 country codes (section 4.4): three capital letters, as Family A's
    ``countries``."""
    return FilterSpec(field, "array_string", ("in",), note, pattern=ISO3_PATTERN)


_ARRAY_OVERLAP = ("overlaps",)
_COMPANY_LISTS = ("verticals", "themes", "client_focus", "revenue_model", "company_type")

#: Filters companies and investors share.
_ID_BATCH = _S("id", "array_uuid", ("in",), "batch lookup by id (at most 1000)")
_NAME = _S(
    "name", "string", ("ilike", "eq"), "substring match, case-insensitive (ilike) or exact (eq)"
)
#: The filters of every family that the change feed uses.
_CHANGE_FEED = (
    _S("updated_at", "datetime", ("gte",), "change-feed checkpoint: updated at or after"),
    _S("include_deleted", "boolean", ("eq",), "default false; true on change-feed pulls"),
)

SPECS: dict[str, tuple[FilterSpec, ...]] = {
    "companies": (
        _ID_BATCH,
        _NAME,
        _country("country", "ISO-3 country codes"),
        _S("region", "array_string", ("in",), "region", REGIONS),
        *(
            _S(f, "array_string", _ARRAY_OVERLAP, "open vocabulary; any shared value matches")
            for f in _COMPANY_LISTS
        ),
        _S("ownership", "string", ("eq",), "exact ownership label"),
        _S("active", "boolean", ("eq",), "active status"),
        _S("founded_min", "number", ("gte",), "founding year, inclusive"),
        _S("founded_max", "number", ("lte",), "founding year, inclusive"),
        _S("ipoed_from", "date", ("gte",), "IPO date, inclusive"),
        _S("ipoed_to", "date", ("lte",), "IPO date, inclusive"),
        *_CHANGE_FEED,
    ),
    "investors": (
        _ID_BATCH,
        _NAME,
        _country("country", "ISO-3 country codes"),
        *_CHANGE_FEED,
    ),
    "transactions": (
        _S("id", "array_uuid", ("in",), "deal ids (at most 1000)"),
        _S("target_id", "array_uuid", ("in",), "target companies"),
        _S("investor_id", "array_uuid", ("in",), "lead investor or buyer"),
        _S("deal_type", "array_string", ("in",), "deal type", DEAL_TYPES),
        _S("deal_subtype", "array_string", ("in",), "deal subtype", DEAL_SUBTYPES),
        _S("date_from", "date", ("gte",), "deal date, inclusive"),
        _S("date_to", "date", ("lte",), "deal date, inclusive"),
        *(
            s
            for base in ("valuation", "raised", "revenue", "ebitda", "ev_revenue", "ev_ebitda")
            for s in (
                _S(f"{base}_min", "number", ("gte",), f"{base}, inclusive"),
                _S(f"{base}_max", "number", ("lte",), f"{base}, inclusive"),
            )
        ),
        _country("target_country", "ISO-3 country of the target"),
        _S("target_region", "array_string", ("in",), "region of the target", REGIONS),
        *(
            _S(f"target_{f}", "array_string", _ARRAY_OVERLAP, "open vocabulary of the target")
            for f in _COMPANY_LISTS
        ),
        *_CHANGE_FEED,
    ),
}

SORT_KEYS: dict[str, tuple[str, ...]] = {
    "companies": ("name", "founded", "ipoed", "updated_at"),
    "investors": ("name", "updated_at"),
    "transactions": ("deal_date", "deal_valuation", "deal_raised", "updated_at"),
}
DEFAULT_SORT: dict[str, tuple[str, bool]] = {
    "companies": ("name", False),
    "investors": ("name", False),
    "transactions": ("deal_date", True),
}


def _suggest(name: str, options: list[str]) -> str:
    close = difflib.get_close_matches(name, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_datetime(text: str) -> int | None:
    """Epoch microseconds of an ISO 8601 date or timestamp (naive means UTC), or None.

    Exact, so ``gte`` is: a fractional second is kept (``16.5`` is not ``16``), and
    digits past the microsecond that are not all zero round the value up (a moment
    after ``x`` never compares equal to ``x``). Stored ``updated_at`` values use the
    same unit (:mod:`.records`, kind ``stamp``).

    Examples
    --------
    >>> parse_datetime("1970-01-01T00:00:01.5+00:00")
    1500000
    >>> parse_datetime("1970-01-01T00:00:00.0000001Z"), parse_datetime("1970-01-02")
    (1, 86400000000)
    """
    try:
        if _DATE.match(text):
            moment = dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), dt.UTC)
        else:
            moment = dt.datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        micros = (moment - _EPOCH) // _MICROSECOND
    except (ValueError, OverflowError):
        return None
    fraction = _FRACTION.search(text)
    if fraction is not None and fraction.group(1)[6:].strip("0"):
        micros += 1  # fromisoformat drops digits past the microsecond; the bound is later
    return micros


def parse_date(text: Any) -> np.datetime64 | None:
    """A ``YYYY-MM-DD`` string as ``datetime64[D]``, or None when malformed."""
    if not isinstance(text, str) or not _DATE.match(text):
        return None
    try:
        return np.datetime64(dt.date.fromisoformat(text), "D")
    except ValueError:
        return None


def member_mask(column: np.ndarray, values: Collection[str]) -> np.ndarray:
    """Rows of ``column`` whose value is one of ``values``, as a boolean mask.

    A hash lookup per row (pandas' ``isin``): linear in rows plus values, where
    ``np.isin`` on object arrays compares every row with every value in turn (a
    17,576-code country list over 50,000 deals took about 50 seconds). A null cell
    matches nothing, since every value is a string.

    Examples
    --------
    >>> member_mask(np.array(["FRA", None, "USA"], dtype=object), ["USA", "USA", "DEU"])
    array([False, False,  True])
    >>> member_mask(np.array(["FRA"], dtype=object), [])
    array([False])
    """
    if not len(values):
        return np.zeros(len(column), dtype=bool)
    hits = pd.Series(column, dtype=object, copy=False).isin(list(values))
    return hits.to_numpy(dtype=bool)


def _value(spec: FilterSpec, op: str, value: Any, where: str, problems: Problems) -> Any:
    """Check one value against the spec's type; return the normalised value or None."""
    t = spec.type
    if t in ("array_uuid", "array_string"):
        if not isinstance(value, list):
            problems.add(f"{where}: expected an array of strings, got {json_type(value)}")
            return None
        wrong = next((i for i, v in enumerate(value) if not isinstance(v, str)), None)
        if wrong is not None:
            problems.add(f"{where}[{wrong}]: expected a string, got {json_type(value[wrong])}")
            return None
        if t == "array_uuid":
            bad = [v for v in value if not _UUID.fullmatch(v)]
            if bad:
                problems.add(f"{where}: {bad[0]!r} is not a UUID")
                return None
            if len(value) > MAX_IDS:
                problems.add(f"{where}: at most {MAX_IDS} ids per request, got {len(value)}")
                return None
            return list(dict.fromkeys(v.lower() for v in value))
        if spec.pattern is not None:
            bad = [v for v in value if not matches(spec.pattern, v)]
            if bad:
                rule = _PATTERN_WORDS.get(spec.pattern, f"a match of {spec.pattern}")
                problems.add(f"{where}: {bad[0]!r} is not {rule}")
                return None
        if spec.values is not None:
            bad = [v for v in value if v not in spec.values]
            if bad:
                problems.add(f"{where}: {bad[0]!r} is not one of {', '.join(spec.values)}")
                return None
        return list(dict.fromkeys(value))
    if t == "string":
        if not isinstance(value, str):
            problems.add(f"{where}: expected a string, got {json_type(value)}")
            return None
        return value
    if t == "boolean":
        if not isinstance(value, bool):
            problems.add(f"{where}: expected true or false, got {json_value(value)}")
            return None
        return value
    if t == "number":
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            problems.add(f"{where}: expected a finite number, got {json_value(value)}")
            return None
        return float(value)
    if t == "date":
        parsed = parse_date(value)
        if parsed is None:
            problems.add(f"{where}: expected a date YYYY-MM-DD, got {json_value(value)}")
        return parsed
    if t == "datetime":
        stamp = parse_datetime(value) if isinstance(value, str) else None
        if stamp is None:
            problems.add(f"{where}: expected an ISO 8601 timestamp, got {json_value(value)}")
        return stamp
    problems.add(f"{where}: unsupported type {t}")  # pragma: no cover - specs are fixed
    return None


def parse_filters(
    entity: str, raw: Any, problems: Problems, where: str = "filters"
) -> tuple[list[Condition], bool]:
    """Validate a ``filters`` object; return the conditions and ``include_deleted``.

    Every problem is added to ``problems`` with the field and the rule.
    """
    if raw is None:
        return [], False
    if not isinstance(raw, dict):
        problems.add(f"{where}: expected an object, got {json_type(raw)}")
        return [], False
    specs = {s.field: s for s in SPECS[entity]}
    conditions: list[Condition] = []
    include_deleted = False
    for name, given in raw.items():
        spec = specs.get(name)
        here = f"{where}.{name}"
        if spec is None:
            problems.add(
                f"{here}: unknown filter{_suggest(name, list(specs))}; "
                f"valid filters: {', '.join(specs)}"
            )
            continue
        op, value = spec.operators[0], given
        if isinstance(given, dict):
            if len(given) != 1:
                problems.add(
                    f"{here}: an operator object has exactly one key, one of "
                    f"{', '.join(spec.operators)}"
                )
                continue
            op, value = next(iter(given.items()))
            if op not in spec.operators:
                problems.add(
                    f"{here}: operator {op!r} is not supported; supported: "
                    f"{', '.join(spec.operators)}"
                )
                continue
        parsed = _value(spec, op, value, here, problems)
        if parsed is None:
            continue
        if name == "include_deleted":
            include_deleted = bool(parsed)
            continue
        conditions.append(Condition(name, op, parsed))
    _reversed_ranges(conditions, problems, where)
    return conditions, include_deleted


#: The filters that bound one field from below and from above (``gte``, ``lte``).
_RANGES = (
    ("date_from", "date_to"),
    ("founded_min", "founded_max"),
    ("ipoed_from", "ipoed_to"),
    *(
        (f"{base}_min", f"{base}_max")
        for base in ("valuation", "raised", "revenue", "ebitda", "ev_revenue", "ev_ebitda")
    ),
)


def _reversed_ranges(conditions: list[Condition], problems: Problems, where: str) -> None:
    """Refuse a lower bound above its upper bound, as the aggregate's window is refused.

    Examples
    --------
    >>> problems = Problems()
    >>> _reversed_ranges(
    ...     [Condition("founded_min", "gte", 2010.0), Condition("founded_max", "lte", 2000.0)],
    ...     problems,
    ...     "filters",
    ... )
    >>> problems.errors
    ['filters.founded_min: 2010 is above filters.founded_max 2000']
    """
    bounds = {c.field: c.value for c in conditions if c.op in ("gte", "lte")}
    for low, high in _RANGES:
        if low in bounds and high in bounds and bounds[low] > bounds[high]:
            word = "after" if isinstance(bounds[low], np.datetime64) else "above"
            problems.add(
                f"{where}.{low}: {_shown(bounds[low])} is {word} {where}.{high} "
                f"{_shown(bounds[high])}"
            )


def _shown(value: Any) -> str:
    """A bound as the request wrote it: a date as ISO text, a whole number without ``.0``."""
    if isinstance(value, np.datetime64):
        return str(value.astype("M8[D]"))
    return str(int(value)) if float(value).is_integer() else repr(value)


def parse_sort(entity: str, raw: Any, problems: Problems) -> tuple[str, bool]:
    """``<key>[:asc|desc]`` → (key, descending); direction defaults to desc."""
    if raw is None:
        return DEFAULT_SORT[entity]
    keys = SORT_KEYS[entity]
    if not isinstance(raw, str) or not raw.strip():
        problems.add(
            f"sort: expected a string '<key>:asc' or '<key>:desc'; keys: {', '.join(keys)}"
        )
        return DEFAULT_SORT[entity]
    key, _, direction = raw.partition(":")
    key, direction = key.strip(), direction.strip().lower() or "desc"
    if key not in keys:
        problems.add(
            f"sort: unknown key {key!r}{_suggest(key, list(keys))}; keys: {', '.join(keys)}"
        )
        return DEFAULT_SORT[entity]
    if direction not in ("asc", "desc"):
        problems.add(f"sort: direction must be asc or desc, got {json_value(direction)}")
        return DEFAULT_SORT[entity]
    return key, direction == "desc"
