"""Family A request bodies, built and checked before any request (pure, no I/O)."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from .._vocab import REGIONS
from ..arguments import finite_number, iso3
from ..errors import ValidationError, did_you_mean, renamed
from ..private.filters import EnumValueError

__all__ = ["GROUP_FILTERS", "group_body", "month_string", "search_body", "time_series_fields"]

#: Python argument name → body member of the search filters.
SEARCH_FILTERS: dict[str, str] = {
    "industries": "industries",
    "themes": "themes",
    "regions": "regions",
    "countries": "countries",
    "enterprise_value_above": "enterpriseValueAbove",
}
GROUP_FILTERS = ("industries", "themes", "regions", "countries")
_ALIASES = {
    "enterpriseValueAbove": "enterprise_value_above",
    "industry": "industries",
    "theme": "themes",
    "region": "regions",
    "country": "countries",
}
#: ``YYYY-MM`` in ASCII digits only: ``\d`` would take any script's digits (which ``int``
#: reads too), and the service refuses them.
_MONTH = re.compile(r"^([0-9]{4})-([0-9]{2})$")


def _strings(name: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValidationError(name, "a list of strings", got=value)
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item.strip():
            raise ValidationError(f"{name}[{i}]", "a non-empty string", got=item)
    return items


def search_body(filters: Mapping[str, Any]) -> dict[str, Any]:
    """Check search filters and build the request body (camelCase members).

    Parameters
    ----------
    filters : mapping
        Any of ``industries``, ``themes``, ``regions``, ``countries`` (lists of
        strings; a single string is one item) and ``enterprise_value_above``
        (millions USD). None values are left out.

    Raises
    ------
    ValidationError
        Unknown filter (with a suggestion), wrong types, an empty list, a region outside
        the vocabulary, a country that is not ISO-3.

    Examples
    --------
    >>> search_body({"regions": "Western Europe", "enterprise_value_above": 500})
    {'regions': ['Western Europe'], 'enterpriseValueAbove': 500}
    """
    body: dict[str, Any] = {}
    for given, value in filters.items():
        name = _ALIASES.get(given, given)
        if name not in SEARCH_FILTERS:
            raise ValidationError(
                given,
                f"a search filter{did_you_mean(given, SEARCH_FILTERS)}; "
                f"valid: {', '.join(SEARCH_FILTERS)}",
                got=given,
            )
        if value is None:
            continue
        if name == "enterprise_value_above":
            body["enterpriseValueAbove"] = finite_number(
                value, given, "a finite number (millions USD)"
            )
            continue
        items = _strings(given, value)  # errors name the argument as the caller wrote it
        if not items:  # the service reads [] as no constraint: a silently wider search
            raise ValidationError(
                given,
                "at least one value (leave the filter out, or pass None, for no constraint)",
                got=items,
            )
        if name == "regions":
            for i, region in enumerate(items):
                if region not in REGIONS:  # worded and typed as the private filters' enums
                    raise EnumValueError(
                        f"{given}[{i}]",
                        f"one of {', '.join(REGIONS)}{did_you_mean(region, REGIONS)}",
                        got=region,
                    )
        if name == "countries":
            for i, code in enumerate(items):
                iso3(code, f"{given}[{i}]")
        body[SEARCH_FILTERS[name]] = items
    return body


def group_body(filters: Mapping[str, Any], caller: str = "group_current") -> dict[str, Any]:
    """A search body that names a group: at least one of the four group filters.

    ``caller`` names the function in the message when none is given.

    Examples
    --------
    >>> group_body({"countries": ["GBR"]})
    {'countries': ['GBR']}
    >>> group_body({})
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid filters: expected at least one non-empty filter among industries, themes, regions, countries for group_current (a group is the companies they match), got none
    """
    body = search_body(filters)
    if not any(body.get(k) for k in GROUP_FILTERS):
        raise ValidationError(  # "got none": the filters are the caller's keywords, not a dict
            "filters",
            f"at least one non-empty filter among {', '.join(GROUP_FILTERS)} for {caller} "
            "(a group is the companies they match), got none",
        )
    return body


def month_string(value: Any, argument: str) -> str | None:
    """A month as ``YYYY-MM`` from a string, Period, Timestamp or date.

    A string is ``YYYY-MM`` in ASCII digits, the document's format (``２０２４-01`` is
    refused), with surrounding spaces dropped. A quarter or a year (a ``Period`` longer than a
    month) is its first month as ``date_from`` and its last month as ``date_to``, so the
    window holds all of it.

    Examples
    --------
    >>> month_string(pd.Timestamp("2024-03-15"), "date_from")
    '2024-03'
    >>> month_string(pd.Period("2024Q1"), "date_from"), month_string(pd.Period("2024Q1"), "date_to")
    ('2024-01', '2024-03')
    >>> month_string("٢٠٢٤-٠١", "date_to")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid date_to: expected a month 'YYYY-MM' in ASCII digits, got '٢٠٢٤-٠١'
    """
    if value is None:
        return None
    if isinstance(value, str):
        m = _MONTH.match(value.strip())
        if m and 1 <= int(m.group(2)) <= 12:
            return value.strip()
        digits = "" if value.isascii() else " in ASCII digits"
        raise ValidationError(argument, f"a month 'YYYY-MM'{digits}", got=value)
    if isinstance(value, pd.Period):
        how = "start" if argument.endswith("from") else "end"
        return value.asfreq("M", how=how).strftime("%Y-%m")
    if isinstance(value, (pd.Timestamp, dt.date)):
        if pd.isna(value):
            raise ValidationError(argument, "a month, not NaT", got=value)
        return f"{value.year:04d}-{value.month:02d}"
    raise ValidationError(argument, "a month 'YYYY-MM', pandas.Period or date", got=value)


def time_series_fields(
    fields: Any, check: Callable[[list[str]], None] | None = None
) -> list[str] | None:
    """Time-series field names as sent: strings, each once, in the order given.

    The interface document names only examples (``evRevenueLtm``, ``evRevenueNtm``,
    ``marginEbitdaLtm``), so no name is refused here for what it names: the service decides,
    :mod:`.fields` refusing only another spelling of a documented field (``check``). A name
    holding a comma (a full-width ``，`` too: NFKC) is refused: it would be sent as one name
    the service does not know, not as the several it lists. The names are checked in the
    caller's order, each wholly (comma, spaces, ``check``), so the first bad one is named:
    ``fields[i]``, or ``fields`` for a single string.

    Parameters
    ----------
    fields : str, list of str or None
        The names (a string is one name); None: every field.
    check : callable, optional
        Given each name as the caller gave it (repeats and all), as a list of one, before
        they are made unique; its :class:`~dealframe.errors.ValidationError` is restated at
        the caller's ``fields[i]`` (or ``fields``).

    Examples
    --------
    >>> time_series_fields("evRevenueLtm")
    ['evRevenueLtm']
    >>> time_series_fields(["ruleOf40", "ebitdaLtm", "ruleOf40"])
    ['ruleOf40', 'ebitdaLtm']
    >>> time_series_fields("evRevenueLtm, marginEbitdaLtm")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields: expected one field name per item, without a comma (pass a list: ['evRevenueLtm', 'marginEbitdaLtm']), got 'evRevenueLtm, marginEbitdaLtm'
    >>> time_series_fields(["ruleOf40", "evRevenueLtm，marginEbitdaLtm"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields[1]: expected one field name per item, without a comma (pass a list: ['evRevenueLtm', 'marginEbitdaLtm']), got 'evRevenueLtm，marginEbitdaLtm'
    """
    if fields is None:
        return None
    items = _strings("fields", fields)
    if not items:
        raise ValidationError(
            "fields", "at least one time-series field name (or None: all)", got=items
        )
    for i, name in enumerate(items):  # the first bad name in the caller's order is named
        argument = "fields" if isinstance(fields, str) else f"fields[{i}]"
        normal = unicodedata.normalize("NFKC", name)  # a full-width comma is a comma
        if "," in normal:
            names = [part.strip() for part in normal.split(",") if part.strip()]
            raise ValidationError(
                argument,
                f"one field name per item, without a comma (pass a list: {names!r})",
                got=name,
            )
        if not name.strip() or name != name.strip():
            raise ValidationError(argument, "a field name without surrounding spaces", got=name)
        if check is not None:
            try:
                check([name])
            except ValidationError as exc:  # said of the caller's own fields or fields[i]
                raise renamed(exc, argument) from None
    return list(dict.fromkeys(items))


def check_window(date_from: str | None, date_to: str | None) -> None:
    """Raise when ``date_from`` is after ``date_to`` (both ``YYYY-MM`` or None)."""
    if date_from is not None and date_to is not None and date_from > date_to:
        raise ValidationError("date_from", f"a month not after date_to ({date_to})", got=date_from)
