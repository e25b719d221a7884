"""Family B handlers (``/api/private/v1``): discovery, lists, profiles, sub-collections,
resolve and the transactions aggregate. Behaviour of open points: docs/sandbox.md.

Each handler takes the parsed request and the models and returns the response body,
serialised. Entity-specific endpoints share a handler with the entity bound by
:mod:`dealframe.sandbox.urls`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import orjson

from ..discovery import discovery_document
from ..errors import Problems, bad_request, json_value, not_found
from ..models import SandboxState
from ..models.aggregate import (
    DEFAULT_DATE_RANGE_YEARS,
    SMALL_N_THRESHOLD,
    AggregateInputError,
    compute_aggregate,
)
from ..models.filters import parse_filters, parse_sort
from ..models.resolve import ResolveInputError
from ..vocab import (
    AGGREGATE_METRICS,
    ENTITY_LABELS,
    LIMIT_DEFAULT,
    LIMIT_MAX,
    MAX_PAGE,
    MAX_RESOLVE_NAMES,
    PROFILE_FIELDS,
    TIME_BUCKETS,
)
from .request import ApiRequest, bool_param, check_members, int_param, path_id, query_param

__all__ = ["PREFIX", "aggregate", "list_rows", "lookup", "profile", "resolve", "sub_collection"]

PREFIX = "/api/private/v1"
#: POST-only paths that the ``GET /{entity}/{id}`` pattern would otherwise take for an id.
POST_ONLY = frozenset(
    {
        f"{PREFIX}/companies/resolve",
        f"{PREFIX}/investors/resolve",
        f"{PREFIX}/transactions/aggregate",
    }
)
_LIST_MEMBERS = ("filters", "sort", "limit", "page")
_PROFILE_HINT = "pass include_deleted=true to read it"


def _page(items: list[bytes], page: int, limit: int, total: int) -> bytes:
    """``{data, meta}`` of one page, from its serialised items."""
    meta = {
        "page": page,
        "limit": limit,
        "returned": len(items),
        "total": total,
        "has_more": page * limit < total,
    }
    return b'{"data":[' + b",".join(items) + b'],"meta":' + orjson.dumps(meta) + b"}"


def _body_int(body: dict, name: str, default: int, hi: int, problems: Problems) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
        problems.add(f"{name}: must be an integer between 1 and {hi}, got {json_value(value)}")
        return default
    return value


def _find(
    models: SandboxState, entity: str, ident: str, include_deleted: bool, hint: str
) -> tuple[int, dict]:
    found = models.private.find(entity, ident)
    if found is None:
        raise not_found(ENTITY_LABELS[entity], ident)
    if found[1]["deleted"] and not include_deleted:
        raise not_found(ENTITY_LABELS[entity], ident, deleted=True, hint=hint)
    return found


# ---------------------------------------------------------------------------- handlers


def lookup(entity: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``GET /lookup/{entity}``: the discovery document."""
    return orjson.dumps({"data": discovery_document(entity)})


def list_rows(entity: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /{entity}``: one page of the filtered, sorted list."""
    body, problems = request.body, Problems()
    check_members(body, _LIST_MEMBERS, problems)
    conditions, include_deleted = parse_filters(entity, body.get("filters"), problems)
    sort = parse_sort(entity, body.get("sort"), problems)
    limit = _body_int(body, "limit", LIMIT_DEFAULT, LIMIT_MAX, problems)
    page = _body_int(body, "page", 1, MAX_PAGE, problems)
    problems.raise_if_any()
    with models.lock:
        found = models.private.select(entity, conditions, include_deleted, sort)
        items = models.private.page_bytes(entity, found[(page - 1) * limit : page * limit])
    return _page(items, page, limit, int(found.size))


def profile(entity: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``GET /{entity}/{id}``: one entity, optionally cut to an allowlist of ``fields``."""
    ident = path_id(request, POST_ONLY)
    problems = Problems()
    include_deleted = bool_param(request.query, "include_deleted", problems)
    allowed = PROFILE_FIELDS[entity]
    fields = None
    raw = query_param(request.query, "fields", problems)
    if raw is not None and raw.strip():
        names = [f.strip() for f in raw.split(",") if f.strip()]
        unknown = [f for f in names if f not in allowed]
        if unknown:
            problems.add(f"fields: unknown field {unknown[0]!r}; allowed: {', '.join(allowed)}")
        fields = ["id"] + [f for f in names if f != "id"]
    problems.raise_if_any()
    with models.lock:
        row, record = _find(models, entity, ident, include_deleted, _PROFILE_HINT)
        out = models.private.profile(entity, row, record)
    if fields is not None:
        out = {k: out[k] for k in fields}
    return orjson.dumps({"data": out})


def sub_collection(entity: str, name: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``GET /{entity}/{id}/{name}``: one page of a sub-collection (see ``Relations``)."""
    ident = path_id(request)
    problems = Problems()
    page = int_param(request.query, "page", 1, 1, MAX_PAGE, problems)
    limit = int_param(request.query, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX, problems)
    problems.raise_if_any()
    hint = (
        f"sub-collections of a soft-deleted {ENTITY_LABELS[entity].lower()} are not served; "
        f"read its profile instead: GET {PREFIX}/{entity}/{{id}}?include_deleted=true"
    )
    with models.lock:
        row, _ = _find(models, entity, ident, False, hint)
        items: list[bytes] = getattr(models.private.relations, name)(row)
    return _page(items[(page - 1) * limit : page * limit], page, limit, len(items))


def resolve(entity: str, request: ApiRequest, models: SandboxState) -> bytes:
    """``POST /{entity}/resolve``: each name to an id, with candidates when ambiguous."""
    body, problems = request.body, Problems()
    check_members(body, ("names",), problems)
    names: Any = body.get("names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        problems.add("names: required, an array of strings")
    elif not 1 <= len(names) <= MAX_RESOLVE_NAMES:
        problems.add(f"names: must hold 1 to {MAX_RESOLVE_NAMES} names, got {len(names)}")
    problems.raise_if_any()
    with models.lock:
        index = models.private.name_index(entity)
    try:
        items = index.resolve(names)
    except ResolveInputError as exc:
        raise bad_request(str(exc)) from None
    return orjson.dumps({"data": items, "meta": {"count": len(items)}})


def _as_date(value: np.datetime64 | None) -> dt.date | None:
    return None if value is None else value.astype("datetime64[D]").item()


def aggregate(
    request: ApiRequest, models: SandboxState, *, small_n_threshold: int = SMALL_N_THRESHOLD
) -> bytes:
    """``POST /transactions/aggregate``: per-bucket trimmed medians of a deal metric.

    ``small_n_threshold`` is the suppression threshold (a profile may serve another).
    """
    body, problems = request.body, Problems()
    check_members(body, ("metric", "time_bucket", "filters"), problems)
    metric: Any = body.get("metric")
    if metric is None:
        problems.add(f"metric: required; one of {', '.join(AGGREGATE_METRICS)}")
    elif metric not in AGGREGATE_METRICS:
        problems.add(f"metric: {json_value(metric)} is not one of {', '.join(AGGREGATE_METRICS)}")
    bucket = body.get("time_bucket", "quarter")
    if bucket not in TIME_BUCKETS:
        problems.add(f"time_bucket: {json_value(bucket)} is not one of {', '.join(TIME_BUCKETS)}")
    conditions, include_deleted = parse_filters("transactions", body.get("filters"), problems)
    problems.raise_if_any()
    window = {c.field: _as_date(c.value) for c in conditions if c.field in ("date_from", "date_to")}
    rest = [c for c in conditions if c.field not in ("date_from", "date_to")]
    date_to = window.get("date_to")
    if (
        "date_from" not in window
        and date_to is not None
        and date_to.year <= DEFAULT_DATE_RANGE_YEARS
    ):
        # the default window (date_to minus 5 years) would start before year 1
        raise bad_request(
            f"filters.date_to: {date_to.isoformat()} leaves no room for the default "
            f"{DEFAULT_DATE_RANGE_YEARS}-year window; give filters.date_from"
        )
    with models.lock:
        found = models.private.select("transactions", rest, include_deleted, ("deal_date", True))
        dates, values = models.private.metric_arrays(metric, found)
    try:
        data, meta = compute_aggregate(
            dates,
            values,
            metric=metric,
            time_bucket=bucket,
            date_from=window.get("date_from"),
            date_to=date_to,
            as_of=models.config.as_of.date(),
            small_n_threshold=small_n_threshold,
        )
    except AggregateInputError as exc:
        raise bad_request(str(exc)) from None
    return orjson.dumps({"data": data, "meta": meta})
