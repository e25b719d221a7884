"""Family B routes (``/api/private/v1``): discovery, lists, profiles, sub-collections,
resolve and the transactions aggregate. Behaviour of open points: docs/sandbox.md."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Callable

import numpy as np
import orjson
from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from ..._vocab import AGGREGATE_METRICS, SUBCOLLECTION_LIMIT_DEFAULT, SUBCOLLECTION_LIMIT_MAX, TIME_BUCKETS
from ..aggregate import DEFAULT_DATE_RANGE_YEARS, AggregateInputError, compute_aggregate
from ..discovery import discovery_document
from ..filters import MAX_PAGE, parse_filters, parse_sort
from ..problems import ApiProblem, Problems, bad_request, json_response, not_found
from ..resolve import ResolveInputError
from ..state import SandboxState
from ..store import (COMPANY_PROFILE_FIELDS, DEAL_PROFILE_FIELDS, INVESTOR_PROFILE_FIELDS,
                     PrivateStore)
from .common import check_members, int_param, read_json_object

__all__ = ["routes", "MAX_RESOLVE_NAMES"]

PREFIX = "/api/private/v1"
MAX_RESOLVE_NAMES = 1000
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_LIST_MEMBERS = ("filters", "sort", "limit", "page")
_ENTITY_LABEL = {"companies": "Company", "investors": "Investor", "transactions": "Transaction"}


_PROFILE_HINT = "pass include_deleted=true to read it"


def _sub_collection_hint(entity: str) -> str:
    """The 404 hint of a sub-collection of a soft-deleted entity: it takes no include_deleted."""
    return (f"sub-collections of a soft-deleted {_ENTITY_LABEL[entity].lower()} are not served; "
            f"read its profile instead: GET {PREFIX}/{entity}/{{id}}?include_deleted=true")


def _meta(page: int, limit: int, returned: int, total: int) -> dict[str, Any]:
    return {"page": page, "limit": limit, "returned": returned, "total": total,
            "has_more": page * limit < total}


def _page_response(rows: list[bytes], meta: dict[str, Any]) -> Any:
    raw = b'{"data":[' + b",".join(rows) + b'],"meta":' + orjson.dumps(meta) + b"}"
    return json_response(raw=raw)


def _body_int(body: dict, name: str, default: int, lo: int, hi: int, problems: Problems) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(f"{name}: must be an integer between {lo} and {hi}, got {value!r}")
        return default
    if not lo <= value <= hi:
        problems.add(f"{name}: must be an integer between {lo} and {hi}, got {value}")
    return value


def _body_page(body: dict, problems: Problems) -> int:
    value = body.get("page", 1)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PAGE:
        problems.add(f"page: must be an integer between 1 and {MAX_PAGE}, got {value!r}")
        return 1
    return value


# POST-only paths that a GET /{entity}/{id} route would otherwise swallow as a malformed id.
_POST_ONLY = {f"{PREFIX}/companies/resolve", f"{PREFIX}/investors/resolve",
              f"{PREFIX}/transactions/aggregate"}


def _path_id(request: Request) -> str:
    ident = request.path_params["id"]
    if request.url.path.rstrip("/") in _POST_ONLY:  # docs/sandbox.md: known path, wrong method
        raise ApiProblem(405, "METHOD_NOT_ALLOWED",
                         f"{request.method} is not allowed on {request.url.path}")
    if not _UUID.match(ident):
        raise bad_request(f"id: {ident!r} is not a UUID")
    return ident.lower()


def _bool_param(request: Request, name: str, problems: Problems) -> bool:
    raw = request.query_params.get(name)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    problems.add(f"{name}: must be true or false, got {raw!r}")
    return False


def _fields_param(request: Request, allowed: tuple[str, ...], problems: Problems) -> list[str] | None:
    raw = request.query_params.get("fields")
    if raw is None or not raw.strip():
        return None
    names = [f.strip() for f in raw.split(",") if f.strip()]
    unknown = [f for f in names if f not in allowed]
    if unknown:
        problems.add(f"fields: unknown field {unknown[0]!r}; allowed: {', '.join(allowed)}")
    return ["id"] + [f for f in names if f != "id"]


def routes(state: SandboxState) -> list[BaseRoute]:
    """Every Family B route bound to ``state``."""

    def store() -> PrivateStore:
        return state.private

    # ---------------------------------------------------------------- discovery

    def lookup(entity: str) -> Callable:
        async def endpoint(request: Request) -> Any:
            return json_response({"data": discovery_document(entity)})
        return endpoint

    # ---------------------------------------------------------------- lists

    def list_endpoint(entity: str) -> Callable:
        async def endpoint(request: Request) -> Any:
            body = await read_json_object(request)
            problems = Problems()
            check_members(body, _LIST_MEMBERS, problems)
            conditions, include_deleted = parse_filters(entity, body.get("filters"), problems)
            sort = parse_sort(entity, body.get("sort"), problems)
            limit = _body_int(body, "limit", SUBCOLLECTION_LIMIT_DEFAULT, 1, SUBCOLLECTION_LIMIT_MAX, problems)
            page = _body_page(body, problems)
            problems.raise_if_any()
            with state.lock:
                rows = store().select(entity, conditions, include_deleted, sort)
                chosen = rows[(page - 1) * limit: page * limit]
                data = store().page_bytes(entity, chosen)
            return _page_response(data, _meta(page, limit, len(data), int(rows.size)))
        return endpoint

    # ---------------------------------------------------------------- profiles

    def find(entity: str, ident: str, include_deleted: bool, deleted_hint: str) -> dict:
        table = store().table(entity)
        row = table.row_of.get(ident)
        if row is None:
            raise not_found(_ENTITY_LABEL[entity], ident)
        record = table.records[row]
        if record["deleted"] and not include_deleted:
            raise not_found(_ENTITY_LABEL[entity], ident, deleted=True, hint=deleted_hint)
        return record

    def profile_endpoint(entity: str, allowed: tuple[str, ...], build: Callable) -> Callable:
        async def endpoint(request: Request) -> Any:
            ident = _path_id(request)
            problems = Problems()
            include_deleted = _bool_param(request, "include_deleted", problems)
            fields = _fields_param(request, allowed, problems)
            problems.raise_if_any()
            with state.lock:
                record = find(entity, ident, include_deleted, _PROFILE_HINT)
                out = build(record)
            if fields is not None:
                out = {k: out[k] for k in fields}
            return json_response({"data": out})
        return endpoint

    # ---------------------------------------------------------------- sub-collections

    def sub_endpoint(entity: str, produce: Callable) -> Callable:
        hint = _sub_collection_hint(entity)

        async def endpoint(request: Request) -> Any:
            ident = _path_id(request)
            problems = Problems()
            page = int_param(request, "page", 1, 1, MAX_PAGE, problems)
            limit = int_param(request, "limit", SUBCOLLECTION_LIMIT_DEFAULT, 1, SUBCOLLECTION_LIMIT_MAX, problems)
            problems.raise_if_any()
            with state.lock:
                record = find(entity, ident, False, hint)
                items = produce(record)
            chosen = items[(page - 1) * limit: page * limit]
            return json_response({"data": chosen, "meta": _meta(page, limit, len(chosen), len(items))})
        return endpoint

    # ---------------------------------------------------------------- resolve

    def resolve_endpoint(entity: str) -> Callable:
        async def endpoint(request: Request) -> Any:
            body = await read_json_object(request, required=True)
            problems = Problems()
            check_members(body, ("names",), problems)
            names = body.get("names")
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                problems.add("names: required, an array of strings")
            elif not 1 <= len(names) <= MAX_RESOLVE_NAMES:
                problems.add(f"names: must hold 1 to {MAX_RESOLVE_NAMES} names, got {len(names)}")
            problems.raise_if_any()
            try:
                with state.lock:
                    index = store().name_index(entity)
                items = index.resolve(names)
            except ResolveInputError as exc:
                raise bad_request(str(exc)) from None
            return json_response({"data": items, "meta": {"count": len(items)}})
        return endpoint

    # ---------------------------------------------------------------- aggregate

    async def aggregate(request: Request) -> Any:
        body = await read_json_object(request, required=True)
        problems = Problems()
        check_members(body, ("metric", "time_bucket", "filters"), problems)
        metric = body.get("metric")
        if metric is None:
            problems.add(f"metric: required; one of {', '.join(AGGREGATE_METRICS)}")
        elif metric not in AGGREGATE_METRICS:
            problems.add(f"metric: {metric!r} is not one of {', '.join(AGGREGATE_METRICS)}")
        bucket = body.get("time_bucket", "quarter")
        if bucket not in TIME_BUCKETS:
            problems.add(f"time_bucket: {bucket!r} is not one of {', '.join(TIME_BUCKETS)}")
        conditions, include_deleted = parse_filters("transactions", body.get("filters"), problems)
        problems.raise_if_any()
        window = {c.field: c.value for c in conditions if c.field in ("date_from", "date_to")}
        rest = [c for c in conditions if c.field not in ("date_from", "date_to")]

        def as_date(value: np.datetime64 | None) -> dt.date | None:
            return None if value is None else value.astype("datetime64[D]").item()

        date_to = as_date(window.get("date_to"))
        if "date_from" not in window and date_to is not None and date_to.year <= DEFAULT_DATE_RANGE_YEARS:
            # the default window (date_to minus 5 years) would start before year 1
            raise bad_request(f"filters.date_to: {date_to.isoformat()} leaves no room for the default "
                              f"{DEFAULT_DATE_RANGE_YEARS}-year window; give filters.date_from")

        with state.lock:
            rows = store().select("transactions", rest, include_deleted, ("deal_date", True))
            dates, values = store().metric_arrays(metric, rows)
        try:
            data, meta = compute_aggregate(
                dates, values, metric=metric, time_bucket=bucket,
                date_from=as_date(window.get("date_from")), date_to=as_date(window.get("date_to")),
                as_of=state.config.as_of.date())
        except AggregateInputError as exc:
            raise bad_request(str(exc)) from None
        return json_response({"data": data, "meta": meta})

    s = store
    company_subs = {
        "fundings": lambda o: s().fundings(o),
        "sellside": lambda o: s().sellside(o),
        "buyside": lambda o: s().with_role(o),
        "investors": lambda o: s().company_investors(o),
    }
    aliases = {"acquisitions": "sellside", "investments": "buyside"}
    investor_subs = {
        "investments": lambda o: s().with_role(o),
        "co_investors": lambda o: s().co_investors(o),
        "portfolio": lambda o: s().portfolio(o),
    }
    out: list[BaseRoute] = []
    for entity in ("transactions", "companies", "investors"):
        out.append(Route(f"{PREFIX}/lookup/{entity}", lookup(entity), methods=["GET"]))
    out += [
        Route(f"{PREFIX}/companies/resolve", resolve_endpoint("companies"), methods=["POST"]),
        Route(f"{PREFIX}/investors/resolve", resolve_endpoint("investors"), methods=["POST"]),
        Route(f"{PREFIX}/transactions/aggregate", aggregate, methods=["POST"]),
    ]
    for entity in ("companies", "investors", "transactions"):
        out.append(Route(f"{PREFIX}/{entity}", list_endpoint(entity), methods=["POST"]))
    out += [
        Route(f"{PREFIX}/companies/{{id}}",
              profile_endpoint("companies", COMPANY_PROFILE_FIELDS, lambda r: s().company_profile(r)),
              methods=["GET"]),
        Route(f"{PREFIX}/investors/{{id}}",
              profile_endpoint("investors", INVESTOR_PROFILE_FIELDS, lambda r: s().investor_profile(r)),
              methods=["GET"]),
        Route(f"{PREFIX}/transactions/{{id}}",
              profile_endpoint("transactions", DEAL_PROFILE_FIELDS, lambda r: s().deal_profile(r)),
              methods=["GET"]),
    ]
    for name, produce in company_subs.items():
        out.append(Route(f"{PREFIX}/companies/{{id}}/{name}", sub_endpoint("companies", produce),
                         methods=["GET"]))
    for alias, target in aliases.items():
        out.append(Route(f"{PREFIX}/companies/{{id}}/{alias}",
                         sub_endpoint("companies", company_subs[target]), methods=["GET"]))
    for name, produce in investor_subs.items():
        out.append(Route(f"{PREFIX}/investors/{{id}}/{name}", sub_endpoint("investors", produce),
                         methods=["GET"]))
    return out
