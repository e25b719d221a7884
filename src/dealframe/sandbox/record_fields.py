"""The interface document's type for each field of an organisation or deal record.

``Changes.edit`` applies a test's own change to records; a value the document does not allow
(a float year, a number as a string, a null where the document gives none, a region or deal
type outside its vocabulary, an object missing its keys, a timestamp in another form) would be
kept in the record and served, or crash the changes and reads that use it later. :func:`misfit`
finds the first field of a record whose value does not fit, so the edit is refused instead.

The types are those of the OpenAPI document the sandbox serves (:mod:`.openapi`: a company's
and a deal's profile, a participant), read here, not restated, with the vocabularies
(:mod:`.vocab`: deal types and subtypes) and the document's words the schemas leave out: a
country is an ISO 3166-1 alpha-3 code, a founding year is from 1 to 9999, a head count is 0 or
more, a number is a finite ``int`` (within 64 bits) or ``float`` (no numpy scalar). Fields the
document does not list are not checked, except the sandbox's own flags and a deal's target row.

Examples
--------
>>> misfit("deals", {"deal_raised": "12"}, lambda row: True)
('deal_raised', 'a finite number or null', '12')
>>> misfit("companies", {"founded": 2001, "ceo": None}, lambda row: True) is None
True
>>> misfit("companies", {"description": None}, lambda row: True)
('description', 'a string', None)
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from .openapi import _ORG_COMMON, NAMED, _company_profile, _deal_fields, _n
from .vocab import DEAL_SUBTYPES, DEAL_TYPES, ISO3_PATTERN, PARTICIPANT_FIELDS, matches

__all__ = ["misfit"]

JSON = dict[str, Any]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
_UUID = re.compile(r"[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_BOOL: JSON = {"type": "boolean"}

#: A participant: the document's (``Participant``), its ``website`` and ``short_name`` also
#: null, as a participant that is no organisation may have them (docs/sandbox.md).
_PARTICIPANT: JSON = {
    "type": "object",
    "properties": {
        k: _n(NAMED[k]) if k in ("website", "short_name") else NAMED[k] for k in PARTICIPANT_FIELDS
    },
    "required": list(PARTICIPANT_FIELDS),
    "additionalProperties": False,
}


def _orgs() -> dict[str, JSON]:
    props = dict(_company_profile()["properties"])
    del props["deal_activity"]  # computed, not stored
    props["country"] = {**_ORG_COMMON["country"], "pattern": ISO3_PATTERN}
    props["founded"] = {**props["founded"], "minimum": 1, "maximum": 9999}
    props["employee_count"] = {**props["employee_count"], "minimum": 0}
    return {**props, "_company": _BOOL, "_investor": _BOOL}


def _deals() -> dict[str, JSON]:
    props = _deal_fields(rich_target=False)
    del props["target"]  # stored as target_index, checked apart
    props["deal_type"] = {**props["deal_type"], "enum": list(DEAL_TYPES)}
    props["deal_subtype"] = {**props["deal_subtype"], "enum": list(DEAL_SUBTYPES)}
    for key in ("buyers", "lead_investors", "investors"):
        props[key] = {"type": "array", "items": _PARTICIPANT}
    return props


_SCHEMAS: dict[str, dict[str, JSON]] = {"orgs": _orgs(), "deals": _deals()}


def _number(value: Any) -> bool:
    """A finite JSON number: a Python ``int`` within 64 bits or a finite ``float`` (not a
    bool, not a numpy scalar, which the records' JSON does not hold).

    Examples
    --------
    >>> _number(2.5), _number(10**400), _number(float("inf")), _number(True)
    (True, False, False, False)
    """
    if type(value) is int:
        return -(2**63) <= value < 2**63
    return type(value) is float and math.isfinite(value)


def _formatted(fmt: str | None, value: str) -> bool:
    if fmt == "date":
        if not _DATE.fullmatch(value):
            return False
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            return False
    elif fmt == "date-time":
        if not _STAMP.fullmatch(value):
            return False
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return False
    elif fmt == "uuid":
        return bool(_UUID.fullmatch(value))
    return True


def _fits(schema: JSON, value: Any) -> bool:
    """Whether ``value`` is of the (OpenAPI 3.0) ``schema``: its type, nullability, enum,
    format, pattern, bounds, an object's keys and an array's items."""
    if value is None:
        return bool(schema.get("nullable"))
    if "enum" in schema and value not in schema["enum"]:
        return False
    kind = schema.get("type")
    if kind == "string":
        if not isinstance(value, str) or not _formatted(schema.get("format"), value):
            return False
        return "pattern" not in schema or matches(schema["pattern"], value)
    if kind in ("integer", "number"):
        if not _number(value) or (kind == "integer" and type(value) is not int):
            return False
        return schema.get("minimum", value) <= value <= schema.get("maximum", value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list) and all(_fits(schema["items"], v) for v in value)
    if kind == "object":
        props = schema.get("properties", {})
        return (
            isinstance(value, dict)
            and all(k in value for k in schema.get("required", ()))
            and (schema.get("additionalProperties", True) is not False or set(value) <= set(props))
            and all(_fits(props[k], v) for k, v in value.items() if k in props)
        )
    return True


def _describe(schema: JSON) -> str:
    """What fits ``schema``, in words (for the refusal's message)."""
    kind, fmt = schema.get("type"), schema.get("format")
    if "enum" in schema:
        said = "one of " + ", ".join(repr(v) for v in schema["enum"])
    elif kind == "string" and fmt == "date":
        said = "a date (YYYY-MM-DD)"
    elif kind == "string" and fmt == "date-time":
        said = "an ISO timestamp YYYY-MM-DDTHH:MM:SS with its offset"
    elif kind == "string" and fmt == "uuid":
        said = "a UUID string"
    elif kind == "string" and schema.get("pattern") == ISO3_PATTERN:
        said = "an ISO 3166-1 alpha-3 code (3 capital letters)"
    elif kind == "string":
        said = "a string"
    elif kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        said = "an integer" + (f" from {low}" if low is not None else "")
        said += f" to {high}" if high is not None else (" or more" if low is not None else "")
    elif kind == "number":
        said = "a finite number"
    elif kind == "boolean":
        said = "true or false"
    elif kind == "array":
        said = f"an array of {_describe(schema['items'])}s".replace(" or nulls", "")
    elif kind == "object":
        kinds = {k: _describe(v) for k, v in schema.get("properties", {}).items()}
        if len(set(kinds.values())) == 1:  # the same for every key: said once
            said = f"an object with exactly the keys {{{', '.join(kinds)}}}, each "
            said += next(iter(kinds.values()))
        else:
            said = "an object with exactly {" + ", ".join(f"{k}: {v}" for k, v in kinds.items())
            said += "}"
    else:
        said = "a JSON value"
    return said + (" or null" if schema.get("nullable") else "")


def misfit(
    entity: str, record: Mapping[str, Any], is_company: Callable[[int], bool]
) -> tuple[str, str, Any] | None:
    """The first field of ``record`` whose value is not of the document's type, as
    ``(field, expected, value)``; None when every field fits.

    Parameters
    ----------
    entity : str
        ``companies``, ``investors`` or ``deals``.
    record : mapping
        The record, as stored (a deal's target as ``target_index``).
    is_company : callable
        Whether an organisation row (an int of 0 or more) is a company's: a deal's target
        must be one.

    Examples
    --------
    >>> misfit("investors", {"founded": 2001.5}, lambda row: row < 10)
    ('founded', 'an integer from 1 to 9999', 2001.5)
    >>> misfit("deals", {"deal_type": "Whatever"}, lambda row: row < 10)[:2]
    ('deal_type', "one of 'Early', 'Growth', 'M&A', 'Public listing', 'Secondary', 'Venture'")
    >>> misfit("deals", {"target_index": -1}, lambda row: row < 10)
    ('target_index', 'the row of an organisation that is a company', -1)
    """
    schemas = _SCHEMAS["deals" if entity == "deals" else "orgs"]
    for field, schema in schemas.items():
        if field in record and not _fits(schema, record[field]):
            return field, _describe(schema), record[field]
    if entity == "deals" and "target_index" in record:
        row = record["target_index"]
        if not (type(row) is int and row >= 0 and is_company(row)):
            return "target_index", "the row of an organisation that is a company", row
    return None
