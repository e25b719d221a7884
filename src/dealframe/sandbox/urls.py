"""The URL table: every (method, path pattern) the sandbox serves, its handler and its doc.

One :class:`Url` per route, in matching order. The app (:mod:`dealframe.sandbox.app`)
is built from :func:`table`; the OpenAPI document (:func:`openapi_document`) from the
same entries, so what is served and what is documented cannot differ. A variant of
the sandbox swaps a handler by building a new table with :func:`dataclasses.replace`
on the entries it changes.

Examples
--------
>>> [u.path for u in table() if u.method == "GET" and u.path.endswith("/portfolio")]
['/api/private/v1/investors/{id}/portfolio']
>>> "/admin/v1/clock" in [u.path for u in table(admin=True)], "/admin/v1/clock" in [u.path for u in table()]
(True, False)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import orjson

from .models import SandboxState
from .openapi import (
    ID_PARAM,
    PAGE_PARAMS,
    Operation,
    build_document,
    collection,
    profile_params,
    public_body,
    ref,
    single,
)
from .responses import admin, meta, private, public
from .responses.request import ApiRequest
from .vocab import ENTITY_LABELS, VERSIONS

__all__ = ["Handler", "Url", "openapi_document", "table"]

#: A handler: the parsed request and the models in, the serialised 200 body out.
Handler = Callable[[ApiRequest, SandboxState], bytes]

P = private.PREFIX
_LIST_ITEM = {
    "companies": "CompanyListItem",
    "investors": "InvestorListItem",
    "transactions": "Deal",
}
_PROFILE = {
    "companies": "CompanyProfile",
    "investors": "InvestorProfile",
    "transactions": "DealProfile",
}


@dataclass(frozen=True)
class Url:
    """One route.

    Attributes
    ----------
    method, path : str
        HTTP method and Starlette path pattern (``{id}`` is a path parameter).
    handler : Handler
        Builds the 200 body.
    body : {"none", "optional", "required"}
        Whether the JSON body is read; an empty optional body is ``{}``, an empty
        required one a 400.
    doc : Operation or None
        How the OpenAPI document describes it (None: not documented, e.g. admin).
    """

    method: str
    path: str
    handler: Handler
    body: str = "none"
    doc: Operation | None = None


#: Family A routes: path, handler, operation name, schema stem (``<stem>Body``,
#: ``<stem>Response``), whether the body is required.
_PUBLIC = (
    ("companies", public.search, "Search", "Search", False),
    ("companies/current", public.current, "CurrentData", "Current", True),
    ("companies/time-series", public.time_series, "TimeSeries", "TimeSeries", True),
    ("groups/current", public.group_current_data, "GroupCurrent", "GroupCurrent", True),
    (
        "groups/time-series",
        public.group_time_series_data,
        "GroupTimeSeries",
        "GroupTimeSeries",
        True,
    ),
)


def _public(version: str) -> list[Url]:
    return [
        Url(
            "POST",
            f"/api/{version}/{path}",
            partial(handler, version),
            "optional",
            Operation(
                f"{version}{name}",
                f"Family A {path} ({version} SKUs)",
                f"public {version}",
                ref(f"{stem}Response"),
                body=public_body(stem, version),
                body_required=required,
            ),
        )
        for path, handler, name, stem, required in _PUBLIC
    ]


_SUB_COLLECTIONS = (  # entity, path name, Relations method, item schema, summary
    ("companies", "fundings", "fundings", "Deal", "Funding rounds where the company is the target"),
    ("companies", "sellside", "sellside", "Deal", "M&A deals where the company is the target"),
    (
        "companies",
        "buyside",
        "investments",
        "DealWithRole",
        "Deals where the company led a round or bought",
    ),
    (
        "companies",
        "investors",
        "company_investors",
        "CompanyInvestor",
        "Investors in the company's funding rounds",
    ),
    ("companies", "acquisitions", "sellside", "Deal", "Alias of sellside (earlier listing)"),
    (
        "companies",
        "investments",
        "investments",
        "DealWithRole",
        "Alias of buyside (earlier listing)",
    ),
    (
        "investors",
        "investments",
        "investments",
        "DealWithRole",
        "Deals the investor led or bought in",
    ),
    (
        "investors",
        "co_investors",
        "co_investors",
        "CoInvestor",
        "Organisations sharing deals with the investor",
    ),
    ("investors", "portfolio", "portfolio", "PortfolioItem", "Companies the investor took part in"),
)


def _private() -> list[Url]:
    out = [
        Url(
            "GET",
            f"{P}/lookup/{e}",
            partial(private.lookup, e),
            "none",
            Operation(
                f"lookup{ENTITY_LABELS[e]}",
                f"Discovery document for {e}",
                "discovery",
                ref("DiscoveryResponse"),
            ),
        )
        for e in ("transactions", "companies", "investors")
    ]
    out += [
        Url(
            "POST",
            f"{P}/{e}/resolve",
            partial(private.resolve, e),
            "required",
            Operation(
                f"resolve{ENTITY_LABELS[e]}",
                f"Resolve names to {e} ids",
                e,
                ref("ResolveResponse"),
                body=ref("ResolveBody"),
                body_required=True,
            ),
        )
        for e in ("companies", "investors")
    ]
    out.append(
        Url(
            "POST",
            f"{P}/transactions/aggregate",
            private.aggregate,
            "required",
            Operation(
                "aggregateTransactions",
                "Per-bucket IQR-trimmed median of a deal metric",
                "transactions",
                ref("AggregateResponse"),
                body=ref("AggregateBody"),
                body_required=True,
            ),
        )
    )
    out += [
        Url(
            "POST",
            f"{P}/{e}",
            partial(private.list_rows, e),
            "optional",
            Operation(
                f"list{ENTITY_LABELS[e]}",
                f"List and search {e}",
                e,
                collection(_LIST_ITEM[e]),
                body=ref(f"{ENTITY_LABELS[e]}ListBody"),
            ),
        )
        for e in ("companies", "investors", "transactions")
    ]
    out += [
        Url(
            "GET",
            f"{P}/{e}/{{id}}",
            partial(private.profile, e),
            "none",
            Operation(
                f"get{ENTITY_LABELS[e]}",
                f"One {ENTITY_LABELS[e].lower()}",
                e,
                single(_PROFILE[e]),
                params=(ID_PARAM, *profile_params(e)),
                errors=(400, 404),
            ),
        )
        for e in ("companies", "investors", "transactions")
    ]
    for entity, name, method, item, summary in _SUB_COLLECTIONS:
        op_id = f"{entity}{''.join(w.title() for w in name.split('_'))}"
        out.append(
            Url(
                "GET",
                f"{P}/{entity}/{{id}}/{name}",
                partial(private.sub_collection, entity, method),
                "none",
                Operation(
                    op_id,
                    summary,
                    entity,
                    collection(item),
                    params=(ID_PARAM, *PAGE_PARAMS),
                    errors=(400, 404),
                ),
            )
        )
    return out


@functools.lru_cache(maxsize=1)
def _openapi_body() -> bytes:
    return orjson.dumps(openapi_document())


def _meta() -> list[Url]:
    return [
        Url(
            "GET",
            "/health",
            meta.health,
            "none",
            Operation("health", "Liveness and the sandbox clock", "meta", ref("Health")),
        ),
        Url(
            "GET",
            "/openapi.json",
            partial(meta.document, _openapi_body),
            "none",
            Operation("openapi", "This document", "meta", {"type": "object"}),
        ),
    ]


def _admin() -> list[Url]:
    return [
        Url("GET", f"{admin.PREFIX}/clock", admin.clock),
        Url("POST", f"{admin.PREFIX}/advance", admin.advance, "required"),
        Url("POST", f"{admin.PREFIX}/changes", admin.apply, "required"),
    ]


def table(*, admin: bool = False) -> tuple[Url, ...]:
    """Every route, in matching order; the admin routes only when ``admin`` is true."""
    urls = [u for version in VERSIONS for u in _public(version)] + _private() + _meta()
    return tuple(urls + (_admin() if admin else []))


@functools.lru_cache(maxsize=1)
def openapi_document() -> dict:
    """The OpenAPI document of every documented route (built once; do not mutate it).

    Examples
    --------
    >>> doc = openapi_document()
    >>> doc["openapi"], "/api/private/v1/companies" in doc["paths"]
    ('3.0.3', True)
    """
    return build_document((u.method, u.path, u.doc) for u in table() if u.doc is not None)
