"""Family A handlers: ``POST /api/{v1,v2}/companies``, ``companies/current``,
``companies/time-series``, ``groups/current`` and ``groups/time-series``.

Each handler validates the body with the pure ``parse_*`` functions below (every
problem collected into one 400 whose ``details.errors`` names the field and the rule,
docs/sandbox.md "Errors"), asks :class:`~dealframe.sandbox.models.public.PublicStore`
for the companies, and returns ``{data, meta}`` built from pre-serialised bytes. Both
versions serve every endpoint; they differ only in the SKU format (in the request's
``skus`` and in every item's ``sku``), bound by :mod:`dealframe.sandbox.urls`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import orjson

from ..errors import Problems, json_type
from ..models import SandboxState
from ..models.groups import group_current, group_time_series
from ..models.public import SearchQuery
from ..vocab import (
    REGIONS,
    SKUS_PER_CURRENT_REQUEST,
    TIME_SERIES_FIELDS,
    is_iso3,
    is_month,
    is_sku,
)
from .request import ApiRequest, check_members

__all__ = [
    "current",
    "group_current_data",
    "group_time_series_data",
    "parse_dates",
    "parse_fields",
    "parse_group",
    "parse_search",
    "parse_skus",
    "search",
    "time_series",
]

_GROUP_KEYS = ("industries", "themes", "regions", "countries")
SEARCH_MEMBERS = (*_GROUP_KEYS, "enterpriseValueAbove")
CURRENT_MEMBERS = ("skus",)
TIME_SERIES_MEMBERS = ("skus", "fields", "dateFrom", "dateTo")
GROUP_CURRENT_MEMBERS = SEARCH_MEMBERS
GROUP_TIME_SERIES_MEMBERS = (*SEARCH_MEMBERS, "fields", "dateFrom", "dateTo")


def _string_array(body: dict, name: str, problems: Problems) -> list[str] | None:
    """``body[name]`` as a list of strings, or None when absent or wrong (reported)."""
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, list):
        problems.add(f"{name}: must be an array of strings, got {json_type(value)}")
        return None
    bad = [i for i, item in enumerate(value) if not isinstance(item, str)]
    for i in bad:
        problems.add(f"{name}[{i}]: must be a string, got {json_type(value[i])}")
    return None if bad else value


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def parse_search(body: dict, problems: Problems) -> SearchQuery:
    """The search selection of a body (companies search and groups).

    Unknown members are not checked here (see :func:`check_members`).

    Examples
    --------
    >>> p = Problems()
    >>> parse_search({"regions": ["Oceania"], "enterpriseValueAbove": 100}, p)
    SearchQuery(industries=(), themes=(), regions=('Oceania',), countries=(), enterprise_value_above=100.0)
    >>> parse_search({"regions": ["Mars"], "enterpriseValueAbove": "1"}, p) and p.errors[0][:18]
    "regions[0]: 'Mars'"
    """
    lists: dict[str, tuple[str, ...]] = {}
    for name in _GROUP_KEYS:
        values = _string_array(body, name, problems)
        lists[name] = _unique(values) if values else ()
    for i, region in enumerate(lists["regions"]):
        if region not in REGIONS:
            problems.add(f"regions[{i}]: {region!r} is not one of {', '.join(REGIONS)}")
    for i, country in enumerate(lists["countries"]):
        if not is_iso3(country):
            problems.add(
                f"countries[{i}]: {country!r} is not an ISO 3166 alpha-3 code "
                "(three capital letters)"
            )
    ev: float | None = None
    if "enterpriseValueAbove" in body:
        raw = body["enterpriseValueAbove"]
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            problems.add(
                f"enterpriseValueAbove: must be a number (millions USD), got {json_type(raw)}"
            )
        else:
            ev = float(raw)
    return SearchQuery(
        industries=lists["industries"],
        themes=lists["themes"],
        regions=lists["regions"],
        countries=lists["countries"],
        enterprise_value_above=ev,
    )


def parse_group(body: dict, problems: Problems) -> SearchQuery:
    """The group selection: a search with at least one of the four group filters non-empty.

    Examples
    --------
    >>> p = Problems()
    >>> _ = parse_group({"enterpriseValueAbove": 5}, p)
    >>> p.errors[0].startswith("body: at least one of industries")
    True
    """
    query = parse_search(body, problems)
    if not any(isinstance(body.get(name), list) and body[name] for name in _GROUP_KEYS):
        problems.add(
            "body: at least one of industries, themes, regions, countries must be "
            "a non-empty array of strings"
        )
    return query


def parse_skus(body: dict, version: str, problems: Problems, *, limit: int | None) -> list[str]:
    """The ``skus`` member: required, non-empty, at most ``limit``, all of ``version``'s format.

    Examples
    --------
    >>> p = Problems()
    >>> parse_skus({"skus": []}, "v2", p, limit=100), p.errors
    ([], ['skus must not be empty'])
    >>> p = Problems()
    >>> _ = parse_skus({"skus": ["NASDAQ_ACME"]}, "v2", p, limit=100); p.errors
    ["skus[0]: 'NASDAQ_ACME' is not a v2 SKU"]
    """
    if "skus" not in body:
        problems.add("skus: required (a non-empty array of SKU strings)")
        return []
    skus = _string_array(body, "skus", problems)
    if skus is None:
        return []
    if not skus:
        problems.add("skus must not be empty")
        return []
    if limit is not None and len(skus) > limit:
        problems.add(f"skus: at most {limit} SKUs per request, got {len(skus)}")
    for i, sku in enumerate(skus):
        if not is_sku(sku, version):
            problems.add(f"skus[{i}]: {sku!r} is not a {version} SKU")
    return skus


def parse_fields(
    body: dict, problems: Problems, allowed: tuple[str, ...] = TIME_SERIES_FIELDS
) -> list[str]:
    """The ``fields`` member: names among ``allowed``; absent or empty means all of them.

    Examples
    --------
    >>> p = Problems()
    >>> parse_fields({"fields": ["evRevenueLtm", "evRevenueLtm"]}, p)
    ['evRevenueLtm']
    >>> _ = parse_fields({"fields": ["foo"]}, p); p.errors[0][:24]
    "fields[0]: 'foo' is not "
    """
    fields = _string_array(body, "fields", problems)
    if not fields:
        return list(allowed)
    for i, name in enumerate(fields):
        if name not in allowed:
            problems.add(f"fields[{i}]: {name!r} is not one of {', '.join(allowed)}")
    return list(_unique(fields))


def parse_dates(body: dict, problems: Problems) -> tuple[str | None, str | None]:
    """``dateFrom`` and ``dateTo``: optional ``YYYY-MM`` strings with ``dateFrom <= dateTo``.

    Examples
    --------
    >>> p = Problems()
    >>> parse_dates({"dateFrom": "2024-01"}, p)
    ('2024-01', None)
    >>> _ = parse_dates({"dateFrom": "2024-05", "dateTo": "2024-01"}, p); p.errors
    ["dateFrom: '2024-05' is after dateTo '2024-01'"]
    """
    out: dict[str, str | None] = {}
    for name in ("dateFrom", "dateTo"):
        out[name] = None
        if name not in body:
            continue
        value = body[name]
        if not isinstance(value, str):
            problems.add(f"{name}: must be a YYYY-MM string, got {json_type(value)}")
        elif not is_month(value):
            problems.add(f"{name}: must be a YYYY-MM month, got {value!r}")
        else:
            out[name] = value
    lo, hi = out["dateFrom"], out["dateTo"]
    if lo is not None and hi is not None and lo > hi:
        problems.add(f"dateFrom: {lo!r} is after dateTo {hi!r}")
    return lo, hi


# ---------------------------------------------------------------------------- handlers


def _envelope(items: list[bytes], meta: dict | None = None) -> bytes:
    """``{"data": [items...], "meta": meta or {"count": len(items)}}`` from item bytes."""
    meta_bytes = orjson.dumps(meta if meta is not None else {"count": len(items)})
    return b'{"data":[' + b",".join(items) + b'],"meta":' + meta_bytes + b"}"


def _body(request: ApiRequest, allowed: tuple[str, ...], problems: Problems) -> dict:
    check_members(request.body, allowed, problems)
    return request.body


def search(version: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /companies``: identifiers of the companies matching the search."""
    problems = Problems()
    query = parse_search(_body(request, SEARCH_MEMBERS, problems), problems)
    problems.raise_if_any()
    store = models.public
    return _envelope(store.identifiers_bytes(version, store.search(version, query)))


def current(version: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /companies/current``: current data of up to 100 SKUs, in request order."""
    problems = Problems()
    body = _body(request, CURRENT_MEMBERS, problems)
    skus = parse_skus(body, version, problems, limit=SKUS_PER_CURRENT_REQUEST)
    problems.raise_if_any()
    store = models.public
    return _envelope(store.current_bytes(version, store.rows(version, skus)))


def time_series(version: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /companies/time-series``: monthly series of the SKUs, in request order."""
    problems = Problems()
    body = _body(request, TIME_SERIES_MEMBERS, problems)
    skus = parse_skus(body, version, problems, limit=None)
    fields = parse_fields(body, problems)
    date_from, date_to = parse_dates(body, problems)
    problems.raise_if_any()
    store = models.public
    return _envelope(
        store.time_series_bytes(
            version, store.rows(version, skus), store.field_positions(fields), date_from, date_to
        )
    )


def group_current_data(
    version: str,
    request: ApiRequest,
    models: SandboxState,
    *,
    derived: Callable[[dict], dict] | None = None,
) -> bytes:
    """``POST /groups/current``: sums and medians of current data over the group.

    ``derived`` adds fields to each company's current data before the figures are taken
    (the extra-fields profile's).
    """
    problems = Problems()
    query = parse_group(_body(request, GROUP_CURRENT_MEMBERS, problems), problems)
    problems.raise_if_any()
    store = models.public
    records = store.current_records(store.search(version, query))
    if derived is not None:
        records = [{**r, **derived(r)} for r in records]
    data, meta = group_current(records)
    return orjson.dumps({"data": data, "meta": meta})


def group_time_series_data(
    version: str,
    request: ApiRequest,
    models: SandboxState,
    *,
    derived: Mapping[str, tuple[str, str, Callable[[Any, Any], Any]]] | None = None,
) -> bytes:
    """``POST /groups/time-series``: monthly medians over the group.

    ``derived`` adds series, each ``name: (a, b, f)`` computed as ``f(a, b)`` of two of the
    sandbox's series month by month (the extra-fields profile's); they can be asked for.
    """
    derived = derived or {}
    problems = Problems()
    body = _body(request, GROUP_TIME_SERIES_MEMBERS, problems)
    query = parse_group(body, problems)
    fields = parse_fields(body, problems, allowed=(*TIME_SERIES_FIELDS, *derived))
    date_from, date_to = parse_dates(body, problems)
    problems.raise_if_any()
    store = models.public
    values = store.series_values(store.search(version, query))
    if derived:
        at = {name: k for k, name in enumerate(store.fields)}
        more = [f(values[:, at[a]], values[:, at[b]]) for a, b, f in derived.values()]
        values = np.concatenate([values, np.round(np.stack(more, axis=1), 4)], axis=1)
    data, meta = group_time_series(
        values,
        [*store.fields, *derived],
        store.months,
        field_subset=fields,
        date_from=date_from,
        date_to=date_to,
    )
    return orjson.dumps({"data": data, "meta": meta})
