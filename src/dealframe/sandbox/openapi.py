"""The sandbox's OpenAPI 3.0 document, served at ``GET /openapi.json``.

:func:`build_document` turns the URL table's entries (method, path and the
:class:`Operation` each documented entry carries, :mod:`dealframe.sandbox.urls`) into
the document, so every served route is described and nothing else. Components
describe request bodies, success bodies, the error body of docs/sandbox.md and bearer
security per family. Family B filter bodies are built from the same filter
specifications that drive validation and the discovery documents
(:mod:`.models.filters`), so the three cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .models.filters import SORT_KEYS, SPECS, FilterSpec
from .models.groups import CURRENT_NUMERIC_FIELDS
from .vocab import (
    AGGREGATE_METRICS,
    ENTITY_LABELS,
    FUNDAMENTAL_FIELDS,
    GROUP_SUM_AND_MEDIAN,
    GROUP_SUM_ONLY,
    INVESTOR_LIST_FIELDS,
    ISO3_PATTERN,
    LIMIT_DEFAULT,
    LIMIT_MAX,
    MAX_IDS,
    MAX_PAGE,
    MAX_RESOLVE_NAMES,
    MONTH_PATTERN,
    PARTICIPANT_FIELDS,
    PROFILE_FIELDS,
    REGIONS,
    SKU_PATTERNS,
    SKUS_PER_CURRENT_REQUEST,
    TIME_BUCKETS,
    TIME_SERIES_FIELDS,
    VALUATION_FIELDS,
)

__all__ = [
    "ID_PARAM",
    "PAGE_PARAMS",
    "Operation",
    "build_document",
    "collection",
    "profile_params",
    "public_body",
    "ref",
    "single",
]

PRIVATE = "/api/private/v1"

JSON = dict[str, Any]


# ------------------------------------------------------------------ small schema builders


def ref(name: str) -> JSON:
    """A reference to a component schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def _s(type_: str, **kw: Any) -> JSON:
    return {"type": type_, **kw}


def _n(schema: JSON) -> JSON:
    """The schema made nullable (OpenAPI 3.0)."""
    return {**schema, "nullable": True}


def _obj(
    props: dict[str, JSON], *, required: tuple[str, ...] | None = None, extra: bool | JSON = False
) -> JSON:
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
PAGE = _s("integer", minimum=1, maximum=MAX_PAGE, default=1)
LIMIT = _s("integer", minimum=1, maximum=LIMIT_MAX, default=LIMIT_DEFAULT)
#: The participant fields every deal, portfolio and co-investor entry opens with.
NAMED = {"id": UUID, "name": STR, "short_name": STR, "website": STR, "country": _n(STR)}
#: The aggregate methodology as the discovery document states it.
METHODOLOGY = {
    "small_n_threshold": INT,
    "outlier_rule": STR,
    "default_date_range_years": INT,
    "empty_buckets_returned": BOOL,
}


# ------------------------------------------------------------------ shared components


def _error_schema() -> JSON:
    details = {
        "type": "object",
        "properties": {"errors": _s("array", items=STR)},
        "additionalProperties": True,
    }
    return _obj(
        {
            "error": _obj(
                {"code": STR, "message": STR, "details": details}, required=("code", "message")
            )
        }
    )


_ORG_COMMON = {
    "id": UUID,
    "name": STR,
    "short_name": STR,
    "description": STR,
    "website": STR,
    "linkedin": STR,
    "country": STR,
    "region": _s("string", enum=list(REGIONS)),
    "city": STR,
    "area": _n(STR),
    "founded": INT,
    "verticals": STR_LIST,
    "themes": STR_LIST,
    "client_focus": STR_LIST,
    "revenue_model": STR_LIST,
    "company_type": STR_LIST,
    "ownership": STR,
    "active": BOOL,
    "ipoed": _n(DATE),
    "ceo": _n(STR),
    "created_at": TIMESTAMP,
    "updated_at": TIMESTAMP,
    "deleted": BOOL,
    "is_public": BOOL,
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
    props["valuation"] = _obj(
        {k: _n(TIMESTAMP) if k == "updated_at" else NULL_NUM for k in VALUATION_FIELDS}
    )
    props["fundamentals"] = _obj({k: NULL_NUM for k in FUNDAMENTAL_FIELDS})
    props["deal_activity"] = _obj(
        {
            "total_fundings_as_target": INT,
            "total_acquisitions_as_target": INT,
            "total_investments_made": INT,
            "last_funding_date": _n(DATE),
            "last_deal_date": _n(DATE),
        }
    )
    return _obj(props, required=("id",))  # the fields allowlist may return any subset; id always


def _investor_profile() -> JSON:
    props = _profile_common()
    props["stats"] = _obj(
        {
            "total_deals": INT,
            "deals_last_12m": INT,
            "avg_round_size": NULL_NUM,
            "median_valuation": NULL_NUM,
            "median_ev_revenue": NULL_NUM,
            "median_ev_ebitda": NULL_NUM,
            "most_common_deal_type": _n(STR),
            "most_common_deal_subtype": _n(STR),
            "top_countries": _s("array", items=_obj({"country": STR, "count": INT})),
            "top_verticals": _s("array", items=_obj({"vertical": STR, "count": INT})),
        }
    )
    return _obj(props, required=("id",))


def _deal_fields(rich_target: bool) -> dict[str, JSON]:
    target = dict(NAMED)
    if rich_target:
        target.update(
            {
                "region": STR,
                "city": STR,
                "founded": INT,
                "verticals": STR_LIST,
                "themes": STR_LIST,
                "client_focus": STR_LIST,
                "revenue_model": STR_LIST,
                "company_type": STR_LIST,
            }
        )
    return {
        "id": UUID,
        "deal_date": DATE,
        "deal_type": STR,
        "deal_subtype": STR,
        "deal_synopsis": STR,
        "deal_valuation": NULL_NUM,
        "deal_raised": NULL_NUM,
        "deal_revenue": NULL_NUM,
        "deal_ebitda": NULL_NUM,
        "deal_multiples": _obj({"ev_revenue": NULL_NUM, "ev_ebitda": NULL_NUM}),
        "target": _obj(target),
        "buyers": _s("array", items=ref("Participant")),
        "lead_investors": _s("array", items=ref("Participant")),
        "created_at": TIMESTAMP,
        "updated_at": TIMESTAMP,
        "deleted": BOOL,
    }


def _deal_profile() -> JSON:
    props = _deal_fields(rich_target=True)
    props["investors"] = _s("array", items=ref("Participant"))
    return _obj(props, required=("id",))


def _deal_with_role() -> JSON:
    props = _deal_fields(rich_target=False)
    props["role"] = _s("string", enum=["lead_investor", "buyer"])
    return _obj(props)


def _resolve_item() -> JSON:
    candidate = _obj(
        {"id": UUID, "name": STR, "country": _n(STR), "score": _s("number", minimum=0, maximum=1)}
    )
    return _obj(
        {
            "query": STR,
            "id": _n(UUID),
            "match_type": _s("string", enum=["exact", "ambiguous", "no_match"]),
            "candidates": _s("array", items=candidate),
        },
        required=("query", "id", "match_type"),
    )


def _aggregate_response() -> JSON:
    bucket = _obj(
        {
            "bucket": STR,
            "n": _s("integer", minimum=0),
            "median": NULL_NUM,
            "q1": NULL_NUM,
            "q3": NULL_NUM,
            "warning": _n(_s("string", enum=["small_n", "empty", "all_trimmed"])),
        }
    )
    methodology = _obj({**METHODOLOGY, "date_range": _obj({"from": DATE, "to": DATE})})
    meta = _obj(
        {
            "metric": _s("string", enum=list(AGGREGATE_METRICS)),
            "time_bucket": _s("string", enum=list(TIME_BUCKETS)),
            "total_deals": INT,
            "outliers_trimmed": INT,
            "methodology": methodology,
        }
    )
    return _obj({"data": _s("array", items=bucket), "meta": meta})


def _discovery() -> JSON:
    entry = _obj(
        {
            "field": STR,
            "type": _s(
                "string",
                enum=[
                    "string",
                    "number",
                    "boolean",
                    "date",
                    "datetime",
                    "uuid",
                    "array_string",
                    "array_uuid",
                ],
            ),
            "operators": _s(
                "array",
                items=_s("string", enum=["eq", "in", "ilike", "gte", "lte", "overlaps", "between"]),
            ),
            "values": STR_LIST,
            "description": STR,
        },
        required=("field", "type", "operators"),
    )
    aggregate = _obj(
        {
            "metrics": STR_LIST,
            "time_buckets": STR_LIST,
            "methodology": _obj(METHODOLOGY),
        }
    )
    doc = _obj(
        {
            "filters": _s("array", items=entry),
            "sort_fields": STR_LIST,
            "sub_resources": STR_LIST,
            "aggregate": aggregate,
        },
        required=("filters", "sort_fields", "sub_resources"),
    )
    return _obj({"data": doc})


# ------------------------------------------------------------------ Family B request bodies


def _operand(spec: FilterSpec, op: str) -> JSON:
    if op in ("in", "overlaps"):
        if spec.type == "array_uuid":
            return _s("array", items=UUID, maxItems=MAX_IDS)
        if spec.values is not None:
            return _s("array", items=_s("string", enum=list(spec.values)))
        if spec.pattern is not None:
            return _s("array", items=_s("string", pattern=spec.pattern))
        return STR_LIST
    return {"boolean": BOOL, "number": NUM, "date": DATE, "datetime": TIMESTAMP}.get(spec.type, STR)


def _filter_value(spec: FilterSpec) -> JSON:
    """A plain value (the first operator) or ``{"<op>": value}`` with exactly one listed operator."""
    plain = _operand(spec, spec.operators[0])
    explicit = {
        "type": "object",
        "properties": {op: _operand(spec, op) for op in spec.operators},
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": False,
    }
    return {"anyOf": [plain, explicit], "description": spec.description}


def _filters(entity: str) -> JSON:
    return {
        "type": "object",
        "nullable": True,  # `"filters": null` is read as no filters
        "properties": {s.field: _filter_value(s) for s in SPECS[entity]},
        "additionalProperties": False,
    }


def _list_body(entity: str) -> JSON:
    keys = "|".join(SORT_KEYS[entity])
    return {
        "type": "object",
        "nullable": True,  # a JSON null body is read as {} (docs/sandbox.md, "List body")
        "additionalProperties": False,
        "properties": {
            "filters": ref(f"{ENTITY_LABELS[entity]}Filters"),
            "sort": _s(
                "string",
                nullable=True,  # null: the default order
                pattern=f"^({keys})(:(asc|desc))?$",
                description="<sort_field> or <sort_field>:asc|desc; the direction defaults to desc",
            ),
            "limit": LIMIT,
            "page": PAGE,
        },
    }


# ------------------------------------------------------------------ Family A

_GROUP_KEYS = ("industries", "themes", "regions", "countries")
_MONTH = _s("string", pattern=MONTH_PATTERN)
#: The Family A bodies that carry ``skus``: one component per version, whose SKU pattern it is.
_SKU_BODIES = ("Current", "TimeSeries")


def public_body(stem: str, version: str) -> JSON:
    """The request body of the Family A operation ``stem`` of ``version``.

    Examples
    --------
    >>> public_body("Current", "v2"), public_body("Search", "v2")
    ({'$ref': '#/components/schemas/V2CurrentBody'}, {'$ref': '#/components/schemas/SearchBody'})
    """
    return ref(f"{version.upper()}{stem}Body" if stem in _SKU_BODIES else f"{stem}Body")


def _search_props() -> dict[str, JSON]:
    return {
        "industries": STR_LIST,
        "themes": STR_LIST,
        "regions": _s("array", items=_s("string", enum=list(REGIONS))),
        "countries": _s("array", items=_s("string", pattern=ISO3_PATTERN)),
        "enterpriseValueAbove": NUM,
    }


def _group_body(extra: dict[str, JSON]) -> JSON:
    props = {**_search_props(), **extra}
    need_one = [
        {"required": [k], "properties": {k: _s("array", items=STR, minItems=1)}}
        for k in _GROUP_KEYS
    ]
    return {"type": "object", "properties": props, "additionalProperties": False, "anyOf": need_one}


def _ts_extra() -> dict[str, JSON]:
    return {
        "fields": _s("array", items=_s("string", enum=list(TIME_SERIES_FIELDS))),
        "dateFrom": {**_MONTH, "description": "YYYY-MM; not after dateTo (a 400)"},
        "dateTo": _MONTH,
    }


def _skus(version: str, **limits: int) -> JSON:
    sku = _s("string", pattern=SKU_PATTERNS[version])
    return _s("array", items=sku, minItems=1, **limits)


def _public_components() -> dict[str, JSON]:
    identifier = _obj(
        {
            "sku": STR,
            "ticker": STR,
            "exchange": STR,
            "name": STR,
            "shortName": STR,
            "enterpriseValue": NULL_NUM,
            "countryCodeIso3": STR,
            "country": STR,
            "region": STR,
            "verticals": STR_LIST,
            "themes": STR_LIST,
        }
    )
    # The numeric fields of the document: the sandbox's, less those docs/sandbox.md adds.
    beyond = ("evEbitdaNtm", "marginEbitdaNtm", "revenueGrowthLtm", "employeeCount")
    numbers = [f for f in CURRENT_NUMERIC_FIELDS if f not in beyond and not f.endswith("Lcu")]
    current_props: dict[str, JSON] = {
        k: STR
        for k in (
            "sku",
            "ticker",
            "exchange",
            "name",
            "shortName",
            "countryCodeIso3",
            "country",
            "currency",
        )
    }
    current_props.update({"tags": STR_LIST, "themes": STR_LIST})
    current_props.update({k: NULL_NUM for k in numbers})
    current = {
        **_obj(current_props, required=("sku", "ticker", "exchange", "name")),
        "additionalProperties": True,
        "description": "Fields beyond the listed ones (docs/sandbox.md): region, verticals, evEbitdaNtm, "
        "marginEbitdaNtm, revenueGrowthLtm, employeeCount and the Lcu variants.",
    }
    series = _obj(
        {
            "sku": STR,
            "ticker": STR,
            "exchange": STR,
            "data": {
                "type": "object",
                "additionalProperties": {"type": "object", "additionalProperties": NUM},
            },
        }
    )
    sums = {
        "type": "object",
        "properties": {k: NULL_NUM for k in (*GROUP_SUM_ONLY, *GROUP_SUM_AND_MEDIAN)},
        "additionalProperties": NULL_NUM,
    }
    medians = {"type": "object", "additionalProperties": NULL_NUM}
    count_meta = _obj({"count": INT})
    group_meta = _obj({"count": INT, "companies": INT})
    return {
        "CompanyIdentifier": identifier,
        "CompanyCurrentData": current,
        "CompanyTimeSeriesData": series,
        "CountMeta": count_meta,
        "GroupMeta": group_meta,
        "SearchResponse": _obj(
            {"data": _s("array", items=ref("CompanyIdentifier")), "meta": ref("CountMeta")}
        ),
        "CurrentResponse": _obj(
            {"data": _s("array", items=ref("CompanyCurrentData")), "meta": ref("CountMeta")}
        ),
        "TimeSeriesResponse": _obj(
            {"data": _s("array", items=ref("CompanyTimeSeriesData")), "meta": ref("CountMeta")}
        ),
        "GroupCurrentResponse": _obj(
            {"data": _obj({"sum": sums, "median": medians}), "meta": ref("GroupMeta")}
        ),
        "GroupTimeSeriesResponse": _obj(
            {
                "data": _s("array", items=_obj({"period": _MONTH, "median": medians})),
                "meta": ref("GroupMeta"),
            }
        ),
        "SearchBody": {
            "type": "object",
            "nullable": True,  # a JSON null body is read as {} (docs/sandbox.md, "List body")
            "properties": _search_props(),
            "additionalProperties": False,
        },
        **{
            f"{version.upper()}CurrentBody": _obj(
                {"skus": _skus(version, maxItems=SKUS_PER_CURRENT_REQUEST)}
            )
            for version in SKU_PATTERNS
        },
        **{
            f"{version.upper()}TimeSeriesBody": _obj(
                {"skus": _skus(version), **_ts_extra()}, required=("skus",)
            )
            for version in SKU_PATTERNS
        },
        "GroupCurrentBody": _group_body({}),
        "GroupTimeSeriesBody": _group_body(_ts_extra()),
    }


# ------------------------------------------------------------------ operations


def collection(item: str) -> JSON:
    """A paginated ``{data: [item], meta}`` body."""
    return _obj({"data": _s("array", items=ref(item)), "meta": ref("PaginationMeta")})


def single(item: str) -> JSON:
    """A single-entity ``{data: item}`` body."""
    return _obj({"data": ref(item)})


ID_PARAM: JSON = {"name": "id", "in": "path", "required": True, "schema": UUID}


def _query(name: str, schema: JSON, **kw: Any) -> JSON:
    return {"name": name, "in": "query", "required": False, "schema": schema, **kw}


PAGE_PARAMS: tuple[JSON, ...] = (_query("page", PAGE), _query("limit", LIMIT))


def profile_params(entity: str) -> tuple[JSON, ...]:
    """The query parameters of ``GET /{entity}/{id}``: ``fields`` (the names of
    :data:`~dealframe.sandbox.vocab.PROFILE_FIELDS`, comma-separated) and ``include_deleted``.

    Examples
    --------
    >>> fields, _ = profile_params("investors")
    >>> fields["style"], fields["explode"], fields["schema"]["items"]["enum"][:2]
    ('form', False, ['id', 'name'])
    """
    names = _s("string", enum=list(PROFILE_FIELDS[entity]))
    fields = _query(
        "fields",
        _s("array", items=names),
        style="form",
        explode=False,
        description="comma-separated allowlist of top-level fields; id is always included",
    )
    return fields, _query("include_deleted", _s("boolean", default=False))


_ERROR_TEXT = {
    400: "Invalid request (details.errors names each field and rule)",
    401: "MISSING_TOKEN or INVALID_TOKEN",
    404: "NOT_FOUND (details.deleted for soft-deleted entities)",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE (the body is not read)",
    429: "RATE_LIMITED, with Retry-After",
    500: "INTERNAL_ERROR (fault injection only)",
}


@dataclass(frozen=True)
class Operation:
    """How one URL table entry is documented.

    Attributes
    ----------
    op_id, summary, tag : str
        ``operationId``, ``summary`` and the single tag.
    ok : dict
        Schema of the 200 body.
    body : dict or None
        Schema of the request body (None: the operation takes none).
    body_required : bool
        Whether the request body is required.
    params : tuple of dict
        Path and query parameters.
    errors : tuple of int
        Documented error statuses besides ``default`` (401 and 429 are added for the
        two families; 400 and 413 for every operation with a body).
    """

    op_id: str
    summary: str
    tag: str
    ok: JSON
    body: JSON | None = None
    body_required: bool = False
    params: tuple[JSON, ...] = ()
    errors: tuple[int, ...] = ()


def _security(path: str) -> list[JSON]:
    if path.startswith(PRIVATE):
        return [{"privateKey": []}]
    if path.startswith("/api/"):
        return [{"publicToken": []}]
    return []


def _errors(path: str, op: Operation) -> dict[str, JSON]:
    statuses = set(op.errors)
    if path.startswith("/api/"):
        statuses |= {401, 429}
    if op.body is not None:
        statuses |= {400, 413}
    if not statuses:
        return {}
    error = {"content": {"application/json": {"schema": ref("Error")}}}
    out: dict[str, JSON] = {
        str(s): {"description": _ERROR_TEXT[s], **error} for s in sorted(statuses)
    }
    out["default"] = {"description": "Any other error (fault injection: 502, 503)", **error}
    return out


def _operation(path: str, op: Operation) -> JSON:
    out: JSON = {
        "operationId": op.op_id,
        "summary": op.summary,
        "tags": [op.tag],
        "security": _security(path),
        "responses": {
            "200": {"description": "Success", "content": {"application/json": {"schema": op.ok}}},
            **_errors(path, op),
        },
    }
    if op.params:
        out["parameters"] = list(op.params)
    if op.body is not None:
        out["requestBody"] = {
            "required": op.body_required,
            "content": {"application/json": {"schema": op.body}},
        }
    return out


def _components() -> JSON:
    schemas: dict[str, JSON] = {
        "Error": _error_schema(),
        "PaginationMeta": _obj(
            {
                "page": _s("integer", minimum=1, maximum=MAX_PAGE),
                "limit": _s("integer", minimum=1, maximum=LIMIT_MAX),
                "returned": _s("integer", minimum=0),
                "total": _s("integer", minimum=0),
                "has_more": BOOL,
            }
        ),
        "Participant": _obj({k: NAMED[k] for k in PARTICIPANT_FIELDS}),
        "CompanyListItem": _obj(dict(_ORG_COMMON)),
        "CompanyProfile": _company_profile(),
        "InvestorListItem": _obj({k: _ORG_COMMON[k] for k in INVESTOR_LIST_FIELDS}),
        "InvestorProfile": _investor_profile(),
        "Deal": _obj(_deal_fields(rich_target=False)),
        "DealWithRole": _deal_with_role(),
        "DealProfile": _deal_profile(),
        "CompanyInvestor": _obj(
            {
                "id": UUID,
                "name": STR,
                "short_name": STR,
                "country": _n(STR),
                "website": STR,
                "rounds_participated": INT,
                "is_lead_any_round": BOOL,
                "first_round_date": DATE,
                "last_round_date": DATE,
            }
        ),
        "PortfolioItem": _obj(
            {
                **NAMED,
                "first_invested": DATE,
                "last_invested": DATE,
                "rounds_count": INT,
                "led_any_round": BOOL,
            }
        ),
        "CoInvestor": _obj(
            {
                **NAMED,
                "shared_deals": INT,
                "first_shared_date": DATE,
                "last_shared_date": DATE,
            }
        ),
        "ResolveItem": _resolve_item(),
        "ResolveResponse": _obj(
            {"data": _s("array", items=ref("ResolveItem")), "meta": _obj({"count": INT})}
        ),
        "Health": _obj({"status": STR, "as_of": TIMESTAMP, "seed": INT, "scale": NUM}),
        "ResolveBody": _obj(
            {"names": _s("array", items=STR, minItems=1, maxItems=MAX_RESOLVE_NAMES)}
        ),
        "AggregateBody": _obj(
            {
                "metric": _s("string", enum=list(AGGREGATE_METRICS)),
                "time_bucket": _s("string", enum=list(TIME_BUCKETS), default="quarter"),
                "filters": ref("TransactionFilters"),
            },
            required=("metric",),
        ),
        "AggregateResponse": _aggregate_response(),
        "DiscoveryResponse": _discovery(),
    }
    for entity in ENTITY_LABELS:
        schemas[f"{ENTITY_LABELS[entity]}Filters"] = _filters(entity)
        schemas[f"{ENTITY_LABELS[entity]}ListBody"] = _list_body(entity)
    schemas.update(_public_components())
    return {
        "schemas": schemas,
        "securitySchemes": {
            "publicToken": {
                "type": "http",
                "scheme": "bearer",
                "description": "Family A token (/api/v1, /api/v2)",
            },
            "privateKey": {
                "type": "http",
                "scheme": "bearer",
                "description": "Family B API key (/api/private/v1)",
            },
        },
    }


def build_document(operations: Iterable[tuple[str, str, Operation]]) -> JSON:
    """The OpenAPI 3.0 document of ``(method, path, operation)`` entries.

    Examples
    --------
    >>> op = Operation("health", "Liveness", "meta", {"type": "object"})
    >>> doc = build_document([("GET", "/health", op)])
    >>> doc["openapi"], list(doc["paths"]["/health"]), doc["paths"]["/health"]["get"]["security"]
    ('3.0.3', ['get'], [])
    """
    paths: dict[str, JSON] = {}
    for method, path, op in operations:
        paths.setdefault(path, {})[method.lower()] = _operation(path, op)
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "dealframe sandbox: company, investor and deal data service",
            "version": "1.0.0",
            "description": "Local implementation of the interface document; open points decided in "
            "docs/sandbox.md. Family A (/api/v1, /api/v2) is camelCase; Family B "
            "(/api/private/v1) is snake_case. Money in millions of USD.",
        },
        "servers": [{"url": "/"}],
        "security": [{"privateKey": []}, {"publicToken": []}],
        "tags": [
            {"name": n}
            for n in (
                "discovery",
                "companies",
                "investors",
                "transactions",
                "public v1",
                "public v2",
                "meta",
            )
        ],
        "paths": paths,
        "components": _components(),
    }
