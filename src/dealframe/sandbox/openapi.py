"""The sandbox's OpenAPI 3.0 document, served at ``GET /openapi.json``.

It describes every route of both families as the sandbox serves them: request bodies,
query and path parameters, success bodies, the error body of docs/sandbox.md and bearer
security per family. Family B filter bodies are built from the same filter specifications
that drive validation and the discovery documents (:mod:`.filters`), so the three cannot
drift apart. The document is built once and cached.
"""

from __future__ import annotations

import functools
from typing import Any

from .._vocab import (AGGREGATE_METRICS, GROUP_SUM_AND_MEDIAN, GROUP_SUM_ONLY, REGIONS,
                      SKUS_PER_CURRENT_REQUEST, SUBCOLLECTION_LIMIT_DEFAULT, SUBCOLLECTION_LIMIT_MAX,
                      TIME_BUCKETS, TIME_SERIES_FIELDS)
from .filters import MAX_IDS, MAX_PAGE, SORT_KEYS, SPECS, FilterSpec

__all__ = ["openapi_document"]

PRIVATE = "/api/private/v1"
MAX_RESOLVE_NAMES = 1000
_ENTITIES = ("companies", "investors", "transactions")

JSON = dict[str, Any]


# ------------------------------------------------------------------ small schema builders

def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def _s(type_: str, **kw: Any) -> JSON:
    return {"type": type_, **kw}


def _n(schema: JSON) -> JSON:
    """The schema made nullable (OpenAPI 3.0)."""
    if "$ref" in schema:
        return {"allOf": [schema], "nullable": True}
    return {**schema, "nullable": True}


def _obj(props: dict[str, JSON], *, required: tuple[str, ...] | None = None, extra: bool | JSON = False) -> JSON:
    out: JSON = {"type": "object", "properties": props, "additionalProperties": extra}
    needed = list(props if required is None else required)
    if needed:  # OpenAPI 3.0: `required` must not be empty
        out["required"] = needed
    return out


STR = _s("string")
INT = _s("integer")
NUM = _s("number")
BOOL = _s("boolean")
UUID = _s("string", format="uuid")
DATE = _s("string", format="date")
TIMESTAMP = _s("string", format="date-time")
STR_LIST = _s("array", items=STR)
NULL_NUM = _n(NUM)


# ------------------------------------------------------------------ shared components

def _error_schema() -> JSON:
    details = {"type": "object", "properties": {"errors": _s("array", items=STR)}, "additionalProperties": True}
    return _obj({"error": _obj({"code": STR, "message": STR, "details": details},
                               required=("code", "message"))})


def _page_meta() -> JSON:
    return _obj({"page": _s("integer", minimum=1, maximum=MAX_PAGE), "limit": _s("integer", minimum=1, maximum=SUBCOLLECTION_LIMIT_MAX),
                 "returned": _s("integer", minimum=0), "total": _s("integer", minimum=0), "has_more": BOOL})


def _participant() -> JSON:
    return _obj({"id": UUID, "name": STR, "country": _n(STR), "website": STR, "short_name": STR})


_ORG_COMMON = {
    "id": UUID, "name": STR, "short_name": STR, "description": STR, "website": STR, "linkedin": STR,
    "country": STR, "region": _s("string", enum=list(REGIONS)), "city": STR, "area": _n(STR),
    "founded": INT, "verticals": STR_LIST, "themes": STR_LIST, "client_focus": STR_LIST,
    "revenue_model": STR_LIST, "company_type": STR_LIST, "ownership": STR, "active": BOOL,
    "ipoed": _n(DATE), "ceo": _n(STR), "created_at": TIMESTAMP, "updated_at": TIMESTAMP,
    "deleted": BOOL, "is_public": BOOL,
}
_NULLABLE_IN_PROFILE = ("verticals", "themes", "revenue_model", "client_focus")


def _profile_common() -> dict[str, JSON]:
    out = dict(_ORG_COMMON)
    for key in _NULLABLE_IN_PROFILE:
        out[key] = _n(STR_LIST)
    out["employee_count"] = _n(INT)
    return out


def _company_profile() -> JSON:
    props = _profile_common()
    props["stock_listing"] = _n(_obj({"id": UUID, "ticker": STR, "exchange": STR, "currency": STR}))
    props["valuation"] = _obj({**{k: NULL_NUM for k in (
        "market_cap", "enterprise_value", "price_to_book", "price_to_sales", "price_to_cash_flow",
        "price_to_free_cash_flow", "beta")}, "updated_at": _n(TIMESTAMP)})
    props["fundamentals"] = _obj({k: NULL_NUM for k in (
        "revenue_fy", "ebitda_fy", "ev_revenue_ntm", "ev_revenue_ltm", "ev_revenue_fy", "ev_ebitda_ntm",
        "ev_ebitda_ltm", "ev_ebitda_fy", "pe_ntm", "pe_ltm", "pe_fy", "ebitda_margin_ntm",
        "ebitda_margin_ltm", "ebitda_margin_fy", "revenue_growth_ntm_ltm", "revenue_growth_fy1_fy",
        "rule_of_40", "rule_of_40_ltm")})
    props["deal_activity"] = _obj({
        "total_fundings_as_target": INT, "total_acquisitions_as_target": INT, "total_investments_made": INT,
        "last_funding_date": _n(DATE), "last_deal_date": _n(DATE)})
    return _obj(props, required=("id",))  # the fields allowlist may return any subset; id always


def _investor_profile() -> JSON:
    props = _profile_common()
    props["stats"] = _obj({
        "total_deals": INT, "deals_last_12m": INT, "avg_round_size": NULL_NUM, "median_valuation": NULL_NUM,
        "median_ev_revenue": NULL_NUM, "median_ev_ebitda": NULL_NUM, "most_common_deal_type": _n(STR),
        "most_common_deal_subtype": _n(STR),
        "top_countries": _s("array", items=_obj({"country": STR, "count": INT})),
        "top_verticals": _s("array", items=_obj({"vertical": STR, "count": INT})),
    })
    return _obj(props, required=("id",))


def _deal_fields(rich_target: bool) -> dict[str, JSON]:
    target = {"id": UUID, "name": STR, "short_name": STR, "website": STR, "country": _n(STR)}
    if rich_target:
        target.update({"region": STR, "city": STR, "founded": INT, "verticals": STR_LIST, "themes": STR_LIST,
                       "client_focus": STR_LIST, "revenue_model": STR_LIST, "company_type": STR_LIST})
    return {
        "id": UUID, "deal_date": DATE, "deal_type": STR, "deal_subtype": STR, "deal_synopsis": STR,
        "deal_valuation": NULL_NUM, "deal_raised": NULL_NUM, "deal_revenue": NULL_NUM, "deal_ebitda": NULL_NUM,
        "deal_multiples": _obj({"ev_revenue": NULL_NUM, "ev_ebitda": NULL_NUM}),
        "target": _obj(target),
        "buyers": _s("array", items=_ref("Participant")),
        "lead_investors": _s("array", items=_ref("Participant")),
        "created_at": TIMESTAMP, "updated_at": TIMESTAMP, "deleted": BOOL,
    }


def _deal_profile() -> JSON:
    props = _deal_fields(rich_target=True)
    props["investors"] = _s("array", items=_ref("Participant"))
    return _obj(props, required=("id",))


def _deal_with_role() -> JSON:
    props = _deal_fields(rich_target=False)
    props["role"] = _s("string", enum=["lead_investor", "buyer"])
    return _obj(props)


def _resolve_item() -> JSON:
    candidate = _obj({"id": UUID, "name": STR, "country": _n(STR), "score": _s("number", minimum=0, maximum=1)})
    return _obj({"query": STR, "id": _n(UUID), "match_type": _s("string", enum=["exact", "ambiguous", "no_match"]),
                 "candidates": _s("array", items=candidate)}, required=("query", "id", "match_type"))


def _aggregate_response() -> JSON:
    bucket = _obj({"bucket": STR, "n": _s("integer", minimum=0), "median": NULL_NUM, "q1": NULL_NUM,
                   "q3": NULL_NUM, "warning": _n(_s("string", enum=["small_n", "empty"]))})
    methodology = _obj({"small_n_threshold": INT, "outlier_rule": STR, "default_date_range_years": INT,
                        "empty_buckets_returned": BOOL, "date_range": _obj({"from": DATE, "to": DATE})})
    meta = _obj({"metric": _s("string", enum=list(AGGREGATE_METRICS)),
                 "time_bucket": _s("string", enum=list(TIME_BUCKETS)), "total_deals": INT,
                 "outliers_trimmed": INT, "methodology": methodology})
    return _obj({"data": _s("array", items=bucket), "meta": meta})


def _discovery() -> JSON:
    entry = _obj({"field": STR, "type": _s("string", enum=["string", "number", "boolean", "date", "datetime", "uuid",
                                                              "array_string", "array_uuid"]),
                  "operators": _s("array", items=_s("string", enum=["eq", "in", "ilike", "gte", "lte", "overlaps",
                                                                      "between"])),
                  "values": STR_LIST, "description": STR}, required=("field", "type", "operators"))
    aggregate = _obj({"metrics": STR_LIST, "time_buckets": STR_LIST,
                      "methodology": _obj({"small_n_threshold": INT, "outlier_rule": STR,
                                           "default_date_range_years": INT, "empty_buckets_returned": BOOL})})
    doc = _obj({"filters": _s("array", items=entry), "sort_fields": STR_LIST, "sub_resources": STR_LIST,
                "aggregate": aggregate}, required=("filters", "sort_fields", "sub_resources"))
    return _obj({"data": doc})


# ------------------------------------------------------------------ Family B request bodies

def _operand(spec: FilterSpec, op: str) -> JSON:
    if op in ("in", "overlaps"):
        if spec.type == "array_uuid":
            return _s("array", items=UUID, maxItems=MAX_IDS)
        if spec.values is not None:
            return _s("array", items=_s("string", enum=list(spec.values)))
        return STR_LIST
    if spec.type == "boolean":
        return BOOL
    if spec.type == "number":
        return NUM
    if spec.type == "date":
        return DATE
    if spec.type == "datetime":
        return TIMESTAMP
    return STR


def _filter_value(spec: FilterSpec) -> JSON:
    """A plain value (the first operator) or ``{"<op>": value}`` with exactly one listed operator."""
    plain = _operand(spec, spec.operators[0])
    explicit = {"type": "object", "properties": {op: _operand(spec, op) for op in spec.operators},
                "minProperties": 1, "maxProperties": 1, "additionalProperties": False}
    return {"anyOf": [plain, explicit], "description": spec.description}


def _filters(entity: str) -> JSON:
    return {"type": "object", "properties": {s.field: _filter_value(s) for s in SPECS[entity]},
            "additionalProperties": False}


def _list_body(entity: str) -> JSON:
    keys = "|".join(SORT_KEYS[entity])
    return {"type": "object", "additionalProperties": False, "properties": {
        "filters": _ref(f"{_title(entity)}Filters"),
        "sort": _s("string", pattern=f"^({keys})(:(asc|desc))?$",
                   description="<sort_field> or <sort_field>:asc|desc; the direction defaults to desc"),
        "limit": _s("integer", minimum=1, maximum=SUBCOLLECTION_LIMIT_MAX, default=SUBCOLLECTION_LIMIT_DEFAULT),
        "page": _s("integer", minimum=1, maximum=MAX_PAGE, default=1),
    }}


def _title(entity: str) -> str:
    return {"companies": "Company", "investors": "Investor", "transactions": "Transaction"}[entity]


# ------------------------------------------------------------------ Family A

_GROUP_KEYS = ("industries", "themes", "regions", "countries")
_MONTH = _s("string", pattern=r"^\d{4}-\d{2}$")


def _search_props() -> dict[str, JSON]:
    return {**{k: STR_LIST for k in _GROUP_KEYS}, "enterpriseValueAbove": NUM}


def _group_body(extra: dict[str, JSON]) -> JSON:
    props = {**_search_props(), **extra}
    need_one = [{"required": [k], "properties": {k: _s("array", items=STR, minItems=1)}} for k in _GROUP_KEYS]
    return {"type": "object", "properties": props, "additionalProperties": False, "anyOf": need_one}


def _ts_extra() -> dict[str, JSON]:
    return {"fields": _s("array", items=_s("string", enum=list(TIME_SERIES_FIELDS))),
            "dateFrom": _MONTH, "dateTo": _MONTH}


def _public_components() -> dict[str, JSON]:
    identifier = _obj({"sku": STR, "ticker": STR, "exchange": STR, "name": STR, "shortName": STR,
                       "enterpriseValue": NULL_NUM, "countryCodeIso3": STR, "country": STR, "region": STR,
                       "verticals": STR_LIST, "themes": STR_LIST})
    numbers = ("marketCap", "enterpriseValue", "revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm", "evRevenueLtm",
               "evRevenueNtm", "evEbitdaLtm", "marginGrossLtm", "marginEbitdaLtm", "revenueGrowthNtmLtm",
               "ruleOf40Ltm", "ruleOf40", "rateToUsd")
    current_props: dict[str, JSON] = {k: STR for k in ("sku", "ticker", "exchange", "name", "shortName",
                                                       "countryCodeIso3", "country", "currency")}
    current_props.update({"tags": STR_LIST, "themes": STR_LIST})
    current_props.update({k: NULL_NUM for k in numbers})
    current = {**_obj(current_props, required=("sku", "ticker", "exchange", "name")),
               "additionalProperties": True,
               "description": "Fields beyond the listed ones (docs/sandbox.md): region, verticals, evEbitdaNtm, "
                              "marginEbitdaNtm, revenueGrowthLtm, employeeCount and the Lcu variants."}
    series = _obj({"sku": STR, "ticker": STR, "exchange": STR,
                   "data": {"type": "object", "additionalProperties": {"type": "object",
                                                                       "additionalProperties": NUM}}})
    sums = {"type": "object", "properties": {k: NULL_NUM for k in (*GROUP_SUM_ONLY, *GROUP_SUM_AND_MEDIAN)},
            "additionalProperties": NULL_NUM}
    medians = {"type": "object", "additionalProperties": NULL_NUM}
    count_meta = _obj({"count": INT})
    group_meta = _obj({"count": INT, "companies": INT})
    return {
        "CompanyIdentifier": identifier,
        "CompanyCurrentData": current,
        "CompanyTimeSeriesData": series,
        "CountMeta": count_meta,
        "GroupMeta": group_meta,
        "SearchResponse": _obj({"data": _s("array", items=_ref("CompanyIdentifier")), "meta": _ref("CountMeta")}),
        "CurrentResponse": _obj({"data": _s("array", items=_ref("CompanyCurrentData")), "meta": _ref("CountMeta")}),
        "TimeSeriesResponse": _obj({"data": _s("array", items=_ref("CompanyTimeSeriesData")),
                                    "meta": _ref("CountMeta")}),
        "GroupCurrentResponse": _obj({"data": _obj({"sum": sums, "median": medians}), "meta": _ref("GroupMeta")}),
        "GroupTimeSeriesResponse": _obj({"data": _s("array", items=_obj({"period": _MONTH, "median": medians})),
                                         "meta": _ref("GroupMeta")}),
        "SearchBody": {"type": "object", "properties": _search_props(), "additionalProperties": False},
        "CurrentBody": _obj({"skus": _s("array", items=STR, minItems=1, maxItems=SKUS_PER_CURRENT_REQUEST)}),
        "TimeSeriesBody": _obj({"skus": _s("array", items=STR, minItems=1), **_ts_extra()}, required=("skus",)),
        "GroupCurrentBody": _group_body({}),
        "GroupTimeSeriesBody": _group_body(_ts_extra()),
    }


# ------------------------------------------------------------------ operations

def _errors(*statuses: int) -> dict[str, JSON]:
    text = {400: "Invalid request (details.errors names each field and rule)",
            401: "MISSING_TOKEN or INVALID_TOKEN", 404: "NOT_FOUND (details.deleted for soft-deleted entities)",
            405: "METHOD_NOT_ALLOWED", 429: "RATE_LIMITED, with Retry-After",
            500: "INTERNAL_ERROR (fault injection only)"}
    out = {str(s): {"description": text[s], "content": {"application/json": {"schema": _ref("Error")}}}
           for s in statuses}
    out["default"] = {"description": "Any other error (fault injection: 502, 503)",
                      "content": {"application/json": {"schema": _ref("Error")}}}
    return out


def _op(op_id: str, summary: str, tag: str, ok: JSON, *, family: str, body: JSON | None = None,
        body_required: bool = False, params: list[JSON] | None = None, errors=(400, 401, 429)) -> JSON:
    out: JSON = {
        "operationId": op_id, "summary": summary, "tags": [tag],
        "security": [{"privateKey": []}] if family == "private" else [{"publicToken": []}],
        "responses": {"200": {"description": "Success", "content": {"application/json": {"schema": ok}}},
                      **_errors(*errors)},
    }
    if params:
        out["parameters"] = params
    if body is not None:
        out["requestBody"] = {"required": body_required, "content": {"application/json": {"schema": body}}}
    return out


_ID_PARAM = {"name": "id", "in": "path", "required": True, "schema": UUID}
_PAGE_PARAMS = [
    {"name": "page", "in": "query", "required": False,
     "schema": _s("integer", minimum=1, maximum=MAX_PAGE, default=1)},
    {"name": "limit", "in": "query", "required": False,
     "schema": _s("integer", minimum=1, maximum=SUBCOLLECTION_LIMIT_MAX, default=SUBCOLLECTION_LIMIT_DEFAULT)},
]
_PROFILE_PARAMS = [
    {"name": "fields", "in": "query", "required": False, "schema": STR,
     "description": "comma-separated allowlist of top-level fields; id is always included"},
    {"name": "include_deleted", "in": "query", "required": False, "schema": _s("boolean", default=False)},
]


def _collection(item: str) -> JSON:
    return _obj({"data": _s("array", items=_ref(item)), "meta": _ref("PaginationMeta")})


def _single(item: str) -> JSON:
    return _obj({"data": _ref(item)})


def _private_paths() -> dict[str, JSON]:
    paths: dict[str, JSON] = {}
    items = {"companies": "CompanyListItem", "investors": "InvestorListItem", "transactions": "Deal"}
    profiles = {"companies": "CompanyProfile", "investors": "InvestorProfile", "transactions": "DealProfile"}
    for entity in _ENTITIES:
        t = _title(entity)
        paths[f"{PRIVATE}/lookup/{entity}"] = {"get": _op(
            f"lookup{t}", f"Discovery document for {entity}", "discovery", _ref("DiscoveryResponse"),
            family="private", errors=(401, 429))}
        paths[f"{PRIVATE}/{entity}"] = {"post": _op(
            f"list{t}", f"List and search {entity}", entity, _collection(items[entity]), family="private",
            body=_ref(f"{t}ListBody"))}
        paths[f"{PRIVATE}/{entity}/{{id}}"] = {"get": _op(
            f"get{t}", f"One {entity[:-1] if entity != 'companies' else 'company'}", entity,
            _single(profiles[entity]), family="private", params=[_ID_PARAM, *_PROFILE_PARAMS],
            errors=(400, 401, 404, 429))}
    for entity in ("companies", "investors"):
        t = _title(entity)
        paths[f"{PRIVATE}/{entity}/resolve"] = {"post": _op(
            f"resolve{t}", f"Resolve names to {entity} ids", entity,
            _obj({"data": _s("array", items=_ref("ResolveItem")), "meta": _obj({"count": INT})}),
            family="private", body=_ref("ResolveBody"), body_required=True)}
    paths[f"{PRIVATE}/transactions/aggregate"] = {"post": _op(
        "aggregateTransactions", "Per-bucket IQR-trimmed median of a deal metric", "transactions",
        _ref("AggregateResponse"), family="private", body=_ref("AggregateBody"), body_required=True)}
    subs = [("companies", "fundings", "Deal", "Funding rounds where the company is the target"),
            ("companies", "sellside", "Deal", "M&A deals where the company is the target"),
            ("companies", "acquisitions", "Deal", "Alias of sellside (earlier listing)"),
            ("companies", "buyside", "DealWithRole", "Deals where the company led a round or bought"),
            ("companies", "investments", "DealWithRole", "Alias of buyside (earlier listing)"),
            ("companies", "investors", "CompanyInvestor", "Investors in the company's funding rounds"),
            ("investors", "investments", "DealWithRole", "Deals the investor led or bought in"),
            ("investors", "co_investors", "CoInvestor", "Organisations sharing deals with the investor"),
            ("investors", "portfolio", "PortfolioItem", "Companies the investor took part in")]
    for entity, name, item, summary in subs:
        op_id = f"{entity}{''.join(w.title() for w in name.split('_'))}"
        paths[f"{PRIVATE}/{entity}/{{id}}/{name}"] = {"get": _op(
            op_id, summary, entity, _collection(item), family="private", params=[_ID_PARAM, *_PAGE_PARAMS],
            errors=(400, 401, 404, 429))}
    return paths


def _public_paths() -> dict[str, JSON]:
    paths: dict[str, JSON] = {}
    endpoints = [("companies", "Search", "SearchBody", "SearchResponse", False),
                 ("companies/current", "CurrentData", "CurrentBody", "CurrentResponse", True),
                 ("companies/time-series", "TimeSeries", "TimeSeriesBody", "TimeSeriesResponse", True),
                 ("groups/current", "GroupCurrent", "GroupCurrentBody", "GroupCurrentResponse", True),
                 ("groups/time-series", "GroupTimeSeries", "GroupTimeSeriesBody", "GroupTimeSeriesResponse", True)]
    for version in ("v1", "v2"):
        for path, name, body, resp, required in endpoints:
            paths[f"/api/{version}/{path}"] = {"post": _op(
                f"{version}{name}", f"Family A {path} ({version} SKUs)", f"public {version}", _ref(resp),
                family="public", body=_ref(body), body_required=required)}
    return paths


def _meta_paths() -> dict[str, JSON]:
    health = _obj({"status": STR, "as_of": TIMESTAMP, "seed": INT, "scale": NUM})
    return {
        "/health": {"get": {"operationId": "health", "summary": "Liveness and the sandbox clock", "tags": ["meta"],
                            "security": [], "responses": {"200": {"description": "Alive", "content": {
                                "application/json": {"schema": health}}}}}},
        "/openapi.json": {"get": {"operationId": "openapi", "summary": "This document", "tags": ["meta"],
                                  "security": [], "responses": {"200": {"description": "OpenAPI document", "content": {
                                      "application/json": {"schema": {"type": "object"}}}}}}},
    }


def _components() -> JSON:
    schemas: dict[str, JSON] = {
        "Error": _error_schema(),
        "PaginationMeta": _page_meta(),
        "Participant": _participant(),
        "CompanyListItem": _obj(dict(_ORG_COMMON)),
        "CompanyProfile": _company_profile(),
        "InvestorListItem": _obj({"id": UUID, "name": STR, "short_name": STR, "website": STR, "country": STR,
                                  "updated_at": TIMESTAMP, "deleted": BOOL}),
        "InvestorProfile": _investor_profile(),
        "Deal": _obj(_deal_fields(rich_target=False)),
        "DealWithRole": _deal_with_role(),
        "DealProfile": _deal_profile(),
        "CompanyInvestor": _obj({"id": UUID, "name": STR, "short_name": STR, "country": _n(STR), "website": STR,
                                 "rounds_participated": INT, "is_lead_any_round": BOOL,
                                 "first_round_date": DATE, "last_round_date": DATE}),
        "PortfolioItem": _obj({"id": UUID, "name": STR, "short_name": STR, "website": STR, "country": _n(STR),
                               "first_invested": DATE, "last_invested": DATE, "rounds_count": INT,
                               "led_any_round": BOOL}),
        "CoInvestor": _obj({"id": UUID, "name": STR, "short_name": STR, "website": STR, "country": _n(STR),
                            "shared_deals": INT, "first_shared_date": DATE, "last_shared_date": DATE}),
        "ResolveItem": _resolve_item(),
        "ResolveBody": _obj({"names": _s("array", items=STR, minItems=1, maxItems=MAX_RESOLVE_NAMES)}),
        "AggregateBody": _obj({"metric": _s("string", enum=list(AGGREGATE_METRICS)),
                               "time_bucket": _s("string", enum=list(TIME_BUCKETS), default="quarter"),
                               "filters": _ref("TransactionFilters")}, required=("metric",)),
        "AggregateResponse": _aggregate_response(),
        "DiscoveryResponse": _discovery(),
    }
    for entity in _ENTITIES:
        schemas[f"{_title(entity)}Filters"] = _filters(entity)
        schemas[f"{_title(entity)}ListBody"] = _list_body(entity)
    schemas.update(_public_components())
    return {
        "schemas": schemas,
        "securitySchemes": {
            "publicToken": {"type": "http", "scheme": "bearer",
                            "description": "Family A token (/api/v1, /api/v2)"},
            "privateKey": {"type": "http", "scheme": "bearer",
                           "description": "Family B API key (/api/private/v1)"},
        },
    }


@functools.lru_cache(maxsize=1)
def _document() -> JSON:
    return {
        "openapi": "3.0.3",
        "info": {"title": "dealframe sandbox: company, investor and deal data service", "version": "1.0.0",
                 "description": "Local implementation of the interface document; open points decided in "
                                "docs/sandbox.md. Family A (/api/v1, /api/v2) is camelCase; Family B "
                                "(/api/private/v1) is snake_case. Money in millions of USD."},
        "servers": [{"url": "/"}],
        "security": [{"privateKey": []}, {"publicToken": []}],
        "tags": [{"name": n} for n in ("discovery", "companies", "investors", "transactions", "public v1",
                                       "public v2", "meta")],
        "paths": {**_public_paths(), **_private_paths(), **_meta_paths()},
        "components": _components(),
    }


def openapi_document() -> JSON:
    """The OpenAPI 3.0 document of every sandbox route (built once, cached; do not mutate it).

    Returns
    -------
    dict
        JSON-serialisable OpenAPI document.

    Examples
    --------
    >>> doc = openapi_document()
    >>> doc["openapi"], "/api/private/v1/companies" in doc["paths"]
    ('3.0.3', True)
    """
    return _document()
