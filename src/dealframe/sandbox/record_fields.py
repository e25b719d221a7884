"""The interface document's type for each field of an organisation or deal record.

``Changes.edit`` applies a test's own change to records; a value of another type than the
document's (a float year, a number as a string, a text that is a number) would be kept in the
record and crash the changes and reads that use it later. :func:`misfit` finds the first field
of a record whose value does not fit, so the edit is refused instead.

The types are the document's (section 4), with the nulls the sandbox itself holds: text may be
null (the columns of names, countries, types and subtypes then refuse it), a founding year
and a deal's date too, money and multiples are finite numbers or null, and a deal's target is
the row of an organisation that is a company. Fields the document does not list are not
checked.

Examples
--------
>>> misfit("deals", {"deal_raised": "12"}, lambda row: True)
('deal_raised', 'a finite number (int or float) or null', '12')
>>> misfit("companies", {"founded": 2001, "description": None}, lambda row: True) is None
True
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["misfit"]

#: A check: whether a value fits, and what fits (for the message).
_Check = tuple[Callable[[Any], bool], str]


def _text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    """A finite JSON number (a Python int or float, not a bool), an int within 64 bits (the
    columns' integers; past about 1.8e308 a float does not hold it either).

    Examples
    --------
    >>> _number(2.5), _number(10**400), _number(float("inf")), _number(True)
    (True, False, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):  # math.isfinite of 10**400 raises OverflowError
        return -(2**63) <= value < 2**63
    return math.isfinite(value)


def _money(value: Any) -> bool:
    return value is None or _number(value)


def _year(value: Any) -> bool:
    return value is None or (_integer(value) and 1 <= value <= 9999)


def _count(value: Any) -> bool:
    return value is None or (_integer(value) and value >= 0)


def _date(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _stamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return dt.datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


def _strings(value: Any) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _numbers(value: Any) -> bool:
    """An object of finite numbers or nulls (its ``updated_at`` a timestamp or null), or null."""
    if value is None:
        return True
    if not isinstance(value, dict):
        return False
    return all(
        (v is None or _stamp(v)) if k == "updated_at" else _money(v) for k, v in value.items()
    )


def _listing(value: Any) -> bool:
    keys = ("id", "ticker", "exchange", "currency")
    return value is None or (
        isinstance(value, dict) and all(isinstance(value.get(k), str) for k in keys)
    )


def _multiples(value: Any) -> bool:
    return isinstance(value, dict) and all(
        k in value and _money(value[k]) for k in ("ev_revenue", "ev_ebitda")
    )


def _participants(value: Any) -> bool:
    """Participants (section 4): objects with a string ``id`` and ``name``, ``country``,
    ``website`` and ``short_name`` text or null."""
    if not isinstance(value, list):
        return False
    keys = ("name", "country", "website", "short_name")
    return all(
        isinstance(p, dict) and isinstance(p.get("id"), str) and all(_text(p.get(k)) for k in keys)
        for p in value
    )


def _yes_no(value: Any) -> bool:
    return isinstance(value, bool)


_TEXT: _Check = (_text, "a string or null")
_STAMP: _Check = (_stamp, "an ISO timestamp with its offset (a string)")
_BOOL: _Check = (_yes_no, "true or false")
_MONEY: _Check = (_money, "a finite number (int or float) or null")
_COMMON: dict[str, _Check] = {
    "created_at": _STAMP,
    "updated_at": _STAMP,
    "deleted": _BOOL,
}

_ORGS: dict[str, _Check] = {
    **_COMMON,
    **dict.fromkeys(
        (
            "name",
            "short_name",
            "description",
            "website",
            "linkedin",
            "country",
            "region",
            "city",
            "area",
            "ownership",
            "ceo",
        ),
        _TEXT,
    ),
    "founded": (_year, "an integer year from 1 to 9999, or null"),
    "employee_count": (_count, "an integer >= 0 or null"),
    **dict.fromkeys(("active", "is_public", "_company", "_investor"), _BOOL),
    "ipoed": (_date, "a date (YYYY-MM-DD) or null"),
    **dict.fromkeys(
        ("verticals", "themes", "client_focus", "revenue_model", "company_type"),
        (_strings, "an array of strings or null"),
    ),
    "stock_listing": (_listing, "an object of strings id, ticker, exchange, currency, or null"),
    **dict.fromkeys(
        ("valuation", "fundamentals"), (_numbers, "an object of finite numbers or nulls, or null")
    ),
}

_DEALS: dict[str, _Check] = {
    **_COMMON,
    **dict.fromkeys(("deal_type", "deal_subtype", "deal_synopsis"), _TEXT),
    "deal_date": (_date, "a date (YYYY-MM-DD) or null"),
    **dict.fromkeys(("deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"), _MONEY),
    "deal_multiples": (_multiples, "an object {ev_revenue, ev_ebitda} of finite numbers or nulls"),
    **dict.fromkeys(
        ("buyers", "lead_investors", "investors"),
        (
            _participants,
            "an array of participants (objects with a string id; name, country, website "
            "and short_name strings or null)",
        ),
    ),
}


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
    ('founded', 'an integer year from 1 to 9999, or null', 2001.5)
    >>> misfit("deals", {"target_index": -1}, lambda row: row < 10)
    ('target_index', 'the row of an organisation that is a company', -1)
    """
    checks = _DEALS if entity == "deals" else _ORGS
    for field, (fits, expected) in checks.items():
        if field in record and not fits(record[field]):
            return field, expected, record[field]
    if entity == "deals" and "target_index" in record:
        row = record["target_index"]
        if not (_integer(row) and row >= 0 and is_company(row)):
            return "target_index", "the row of an organisation that is a company", row
    return None
