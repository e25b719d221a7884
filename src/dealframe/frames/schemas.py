"""Column specifications and dtypes of every frame, in one place.

Each resource has a :class:`Schema`: an ordered tuple of :class:`Column` specs
(name in the frame, source key in the JSON item, kind). The kind decides the
dtype, and only this module maps kinds to dtypes:

============  =====================================  ==============================
kind          dtype                                  used for
============  =====================================  ==============================
``float``     ``float64``                            money, multiples, margins
``int``       ``Int64`` (nullable)                   counts, years
``bool``      ``boolean`` (nullable)                 flags
``str``       pandas ``str`` (``StringDtype``)       text, ISO codes
``uuid``      pandas ``str`` (``StringDtype``)       ids: one spelling, lower case
``date``      ``datetime64[us]`` naive               ``YYYY-MM-DD`` fields
``timestamp`` ``datetime64[us, UTC]``                ISO 8601 with offset
``category``  ``Categorical`` (vocabulary + extras)  enum-backed vocabularies
``month``     ``period[M]``                          ``YYYY-MM`` months
``list``      pandas ``str``: JSON array text        array fields (``verticals``,
                                                     ``tags``, participants ...)
``object``    pandas ``str``: JSON text              nested objects kept whole
============  =====================================  ==============================

**Nested values are JSON text.** A ``list`` or ``object`` cell holds its value
as compact JSON with sorted keys (:mod:`dealframe.frames.nested`):
``'["AI","Fintech"]'``, ``'[{"country":"USA","id":"...","name":"...",
"short_name":null,"website":null}]'``; a null list is a missing value (``NaN``),
an empty one ``'[]'``. Plain strings are the one representation that every
pandas step keeps and hashes (``to_parquet`` + ``read_parquet``, ``merge``,
``drop_duplicates``, ``groupby``, pickle, CSV) and every engine reads.
:func:`dealframe.to_lists` gives Python lists back; a ``list`` column with
``fields`` (participants) always holds objects with exactly those fields, so
the same participant has the same text in every frame.

Dates are **microsecond** resolution everywhere (``datetime64[us]``), the
resolution :func:`pandas.to_datetime` gives in pandas 3; timestamps are
``datetime64[us, UTC]``.

Unknown fields the service sends are kept as extra columns whose dtype is
inferred (see :func:`dealframe.frames.normalize.infer_kind`).

Examples
--------
>>> [c.name for c in INVESTOR_LIST][:3]
['id', 'name', 'short_name']
>>> dtype_of(Column("n", "int"))
Int64Dtype()
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dealframe._vocab import DEAL_SUBTYPES, DEAL_TYPES, REGIONS
from dealframe.errors import ValidationError

__all__ = [
    "AGGREGATE",
    "CO_INVESTORS",
    "COMPANY_IDENTIFIER",
    "COMPANY_INVESTORS",
    "COMPANY_LIST",
    "COMPANY_PROFILE",
    "CURRENT_DATA",
    "CURRENT_MONETARY",
    "Column",
    "DATE_DTYPE",
    "DEAL",
    "DEAL_LIST",
    "DEAL_NESTED",
    "DEAL_PROFILE",
    "DEAL_PROFILE_ONLY",
    "DEAL_ROLE",
    "EDGES",
    "INVESTOR_LIST",
    "INVESTOR_PROFILE",
    "KINDS",
    "LINK",
    "LINK_MATCHES",
    "LOOKUP_FILTERS",
    "MATCH_TYPES",
    "MONTH_DTYPE",
    "PARTICIPANT_COLUMNS",
    "PARTICIPANT_FIELDS",
    "PARTICIPANTS",
    "PORTFOLIO",
    "PROFILE_FIELDS",
    "PROFILE_NESTED",
    "RESOLVE_CANDIDATES",
    "RESOLVE_RESULTS",
    "ROLES",
    "Schema",
    "STRING_DTYPE",
    "TIMESTAMP_DTYPE",
    "TIME_SERIES_LONG",
    "TOP_COUNTRIES",
    "TOP_VERTICALS",
    "VOCABULARIES",
    "dtype_of",
    "top_level_fields",
]

#: Dates (``YYYY-MM-DD``): naive, microsecond resolution, everywhere.
DATE_DTYPE = np.dtype("datetime64[us]")
#: Timestamps: UTC-aware, microsecond resolution.
TIMESTAMP_DTYPE = pd.DatetimeTZDtype(unit="us", tz="UTC")
#: Months (time series): monthly periods.
MONTH_DTYPE = pd.PeriodDtype("M")
#: Text: the pandas ``str`` dtype (``StringDtype(na_value=nan)`` in pandas 3).
STRING_DTYPE = pd.api.types.pandas_dtype("str")

KINDS: tuple[str, ...] = (
    "float",
    "int",
    "bool",
    "str",
    "uuid",
    "date",
    "timestamp",
    "month",
    "category",
    "list",
    "object",
)

#: Match types of resolve results.
MATCH_TYPES: tuple[str, ...] = ("exact", "ambiguous", "no_match")
#: The one ``role`` vocabulary of every frame: buyside / investments rows (the service's
#: values, ``lead_investor`` and ``buyer``) and :func:`dealframe.explode_participants` rows
#: (``investor``: a member of a deal's full investor list).
ROLES: tuple[str, ...] = ("lead_investor", "buyer", "investor")
#: Deal columns holding participant lists, and the role of their members.
PARTICIPANT_COLUMNS: dict[str, str] = {
    "lead_investors": "lead_investor",
    "buyers": "buyer",
    "investors": "investor",
}
#: Fields of a Participant object.
PARTICIPANT_FIELDS: tuple[str, ...] = ("id", "name", "short_name", "country", "website")

#: Vocabularies of enum-backed columns; also applied to extra columns of these names.
VOCABULARIES: dict[str, tuple[str, ...]] = {
    "region": REGIONS,
    "target_region": REGIONS,
    "deal_type": DEAL_TYPES,
    "deal_subtype": DEAL_SUBTYPES,
    "stats_most_common_deal_type": DEAL_TYPES,
    "stats_most_common_deal_subtype": DEAL_SUBTYPES,
    "match_type": MATCH_TYPES,
    "role": ROLES,
}


@dataclass(frozen=True)
class Column:
    """One column: frame ``name``, ``kind`` and the JSON ``path`` it comes from.

    ``path`` is a tuple of keys (``("target", "id")`` for ``target_id``); it
    defaults to ``(name,)``. ``categories`` overrides the vocabulary of a
    ``category`` column. ``fields`` makes a ``list`` column a list of objects
    with these fields, each always present (see :mod:`dealframe.frames.nested`).
    """

    name: str
    kind: str
    path: tuple[str, ...] = ()
    categories: tuple[str, ...] | None = None
    fields: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValidationError("name", "a column name (a string)", got=self.name)
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ValidationError(f"{self.name}.kind", f"one of {', '.join(KINDS)}", got=self.kind)
        if not isinstance(self.path, tuple) or not all(isinstance(k, str) for k in self.path):
            raise ValidationError(f"{self.name}.path", "a tuple of JSON keys", got=self.path)
        if not self.path:
            object.__setattr__(self, "path", (self.name,))
        if self.kind == "category" and self.categories is None:
            if self.name not in VOCABULARIES:
                raise ValidationError(
                    f"{self.name}.categories", "the categories (no vocabulary has this name)"
                )
            object.__setattr__(self, "categories", VOCABULARIES[self.name])
        if self.fields is not None and self.kind != "list":
            raise ValidationError(
                f"{self.name}.fields", "None (only list columns take fields)", got=self.fields
            )


Schema = tuple[Column, ...]


def dtype_of(column: Column) -> object:
    """The pandas dtype of a column spec.

    Examples
    --------
    >>> dtype_of(Column("deal_date", "date"))
    dtype('<M8[us]')
    >>> dtype_of(Column("buyers", "list", fields=PARTICIPANT_FIELDS))
    <StringDtype(na_value=nan)>
    """
    kind = column.kind
    if kind == "float":
        return np.dtype("float64")
    if kind == "int":
        return pd.Int64Dtype()
    if kind == "bool":
        return pd.BooleanDtype()
    if kind in ("str", "uuid"):
        return STRING_DTYPE
    if kind == "date":
        return DATE_DTYPE
    if kind == "timestamp":
        return TIMESTAMP_DTYPE
    if kind == "month":
        return MONTH_DTYPE
    if kind == "category":
        return pd.CategoricalDtype(list(column.categories or ()))
    return STRING_DTYPE  # list and object: JSON text


def top_level_fields(schema: Schema) -> tuple[str, ...]:
    """The top-level JSON fields a schema reads, in column order, each once.

    Examples
    --------
    >>> top_level_fields((Column("id", "str"), Column("target_id", "str", ("target", "id")),
    ...                   Column("target_name", "str", ("target", "name"))))
    ('id', 'target')
    """
    return tuple(dict.fromkeys(column.path[0] for column in schema))


def _cols(kind: str, *names: str, prefix: str = "", parent: str | None = None) -> Schema:
    """Columns of one kind; with ``parent`` they come from ``item[parent][name]``."""
    if parent is None:
        return tuple(Column(prefix + n, kind) for n in names)
    return tuple(Column(prefix + n, kind, (parent, n)) for n in names)


# ---------------------------------------------------------------- Family A
COMPANY_IDENTIFIER: Schema = (
    *_cols("str", "sku", "ticker", "exchange", "name", "shortName"),
    Column("enterpriseValue", "float"),
    *_cols("str", "countryCodeIso3", "country"),
    Column("region", "category"),
    *_cols("list", "verticals", "themes"),
)

#: Monetary current-data fields; each has an ``<name>Lcu`` variant.
CURRENT_MONETARY: tuple[str, ...] = (
    "marketCap",
    "enterpriseValue",
    "revenueLtm",
    "revenueNtm",
    "ebitdaLtm",
    "ebitdaNtm",
)
CURRENT_DATA: Schema = (
    *_cols(
        "str",
        "sku",
        "ticker",
        "exchange",
        "name",
        "shortName",
        "countryCodeIso3",
        "country",
        "currency",
    ),
    *_cols("list", "tags", "themes"),
    *_cols(
        "float",
        *CURRENT_MONETARY,
        "evRevenueLtm",
        "evRevenueNtm",
        "evEbitdaLtm",
        "marginGrossLtm",
        "marginEbitdaLtm",
        "revenueGrowthNtmLtm",
        "ruleOf40Ltm",
        "ruleOf40",
        "rateToUsd",
    ),
    *_cols("float", *(f"{n}Lcu" for n in CURRENT_MONETARY)),
    # Fields the document does not list but the service (and the sandbox) sends: typed here
    # so that a column that happens to be all null keeps its dtype (docs/sandbox.md).
    Column("region", "category"),
    Column("verticals", "list"),
    *_cols("float", "evEbitdaNtm", "marginEbitdaNtm", "revenueGrowthLtm"),
    Column("employeeCount", "float"),  # "numbers as float64" (issue 3), like every other number
)

TIME_SERIES_LONG: Schema = (
    Column("sku", "str"),
    Column("field", "str"),
    Column("month", "month"),
    Column("value", "float"),
)

# ---------------------------------------------------------------- Family B
_COMPANY_TEXT = ("name", "short_name", "description", "website", "linkedin", "country")
_COMPANY_LISTS = ("verticals", "themes", "client_focus", "revenue_model", "company_type")

COMPANY_LIST: Schema = (
    Column("id", "uuid"),
    *_cols("str", *_COMPANY_TEXT),
    Column("region", "category"),
    *_cols("str", "city", "area"),
    Column("founded", "int"),
    *_cols("list", *_COMPANY_LISTS),
    Column("ownership", "str"),
    Column("active", "bool"),
    Column("ipoed", "date"),
    Column("ceo", "str"),
    *_cols("timestamp", "created_at", "updated_at"),
    *_cols("bool", "deleted", "is_public"),
)

_VALUATION = (
    "market_cap",
    "enterprise_value",
    "price_to_book",
    "price_to_sales",
    "price_to_cash_flow",
    "price_to_free_cash_flow",
    "beta",
)
_FUNDAMENTALS = (
    "revenue_fy",
    "ebitda_fy",
    "ev_revenue_ntm",
    "ev_revenue_ltm",
    "ev_revenue_fy",
    "ev_ebitda_ntm",
    "ev_ebitda_ltm",
    "ev_ebitda_fy",
    "pe_ntm",
    "pe_ltm",
    "pe_fy",
    "ebitda_margin_ntm",
    "ebitda_margin_ltm",
    "ebitda_margin_fy",
    "revenue_growth_ntm_ltm",
    "revenue_growth_fy1_fy",
    "rule_of_40",
    "rule_of_40_ltm",
)

COMPANY_PROFILE: Schema = (
    *COMPANY_LIST,
    Column("employee_count", "int"),
    Column("stock_listing_id", "uuid", ("stock_listing", "id")),
    *_cols(
        "str",
        "ticker",
        "exchange",
        "currency",
        prefix="stock_listing_",
        parent="stock_listing",
    ),
    *_cols("float", *_VALUATION, prefix="valuation_", parent="valuation"),
    Column("valuation_updated_at", "timestamp", ("valuation", "updated_at")),
    *_cols("float", *_FUNDAMENTALS, prefix="fundamentals_", parent="fundamentals"),
    *_cols(
        "int",
        "total_fundings_as_target",
        "total_acquisitions_as_target",
        "total_investments_made",
        prefix="deal_activity_",
        parent="deal_activity",
    ),
    *_cols(
        "date",
        "last_funding_date",
        "last_deal_date",
        prefix="deal_activity_",
        parent="deal_activity",
    ),
)

#: Prefixed nested objects of the profiles (extra keys inside them become extra columns).
PROFILE_NESTED: tuple[str, ...] = (
    "stock_listing",
    "valuation",
    "fundamentals",
    "deal_activity",
    "stats",
)

INVESTOR_LIST: Schema = (
    Column("id", "uuid"),
    *_cols("str", "name", "short_name", "website", "country"),
    Column("updated_at", "timestamp"),
    Column("deleted", "bool"),
)

INVESTOR_PROFILE: Schema = (
    *COMPANY_LIST,
    Column("employee_count", "int"),
    *_cols("int", "total_deals", "deals_last_12m", prefix="stats_", parent="stats"),
    *_cols(
        "float",
        "avg_round_size",
        "median_valuation",
        "median_ev_revenue",
        "median_ev_ebitda",
        prefix="stats_",
        parent="stats",
    ),
    Column("stats_most_common_deal_type", "category", ("stats", "most_common_deal_type")),
    Column("stats_most_common_deal_subtype", "category", ("stats", "most_common_deal_subtype")),
    *_cols("list", "top_countries", "top_verticals", prefix="stats_", parent="stats"),
)

TOP_COUNTRIES: Schema = (
    Column("investor_id", "uuid"),
    Column("country", "str"),
    Column("count", "int"),
    Column("rank", "int"),
)
TOP_VERTICALS: Schema = (
    Column("investor_id", "uuid"),
    Column("vertical", "str"),
    Column("count", "int"),
    Column("rank", "int"),
)

_DEAL_HEAD: Schema = (
    Column("id", "uuid"),
    Column("deal_date", "date"),
    Column("deal_type", "category"),
    Column("deal_subtype", "category"),
    Column("deal_synopsis", "str"),
    *_cols("float", "deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"),
    *_cols("float", "ev_revenue", "ev_ebitda", parent="deal_multiples"),
    Column("target_id", "uuid", ("target", "id")),
    *_cols("str", "name", "short_name", "website", "country", prefix="target_", parent="target"),
)
_DEAL_TAIL: Schema = (
    *_cols("timestamp", "created_at", "updated_at"),
    Column("deleted", "bool"),
)
#: Columns of the single deal (``GET /transactions/{id}``) that list rows do not carry: the
#: richer target and the full ``investors`` list.
DEAL_PROFILE_ONLY: Schema = (
    Column("target_region", "category", ("target", "region")),
    Column("target_city", "str", ("target", "city")),
    Column("target_founded", "int", ("target", "founded")),
    *_cols("list", *_COMPANY_LISTS, prefix="target_", parent="target"),
    Column("investors", "list", fields=PARTICIPANT_FIELDS),
)
#: Deal list rows (``POST /transactions``) and deal sub-collection rows: what they carry.
DEAL_LIST: Schema = (
    *_DEAL_HEAD,
    *(Column(name, "list", fields=PARTICIPANT_FIELDS) for name in ("buyers", "lead_investors")),
    *_DEAL_TAIL,
)
#: Single deals (``GET /transactions/{id}``), and list rows completed from them
#: (``client.private.deals(..., with_investors=True)``).
DEAL_PROFILE: Schema = (
    *_DEAL_HEAD,
    *DEAL_PROFILE_ONLY[:-1],
    *(
        Column(name, "list", fields=PARTICIPANT_FIELDS)
        for name in ("buyers", "lead_investors", "investors")
    ),
    *_DEAL_TAIL,
)
#: Every column a deal frame may have (:data:`DEAL_PROFILE`).
DEAL = DEAL_PROFILE
#: Added to :data:`DEAL_LIST` on sub-collection rows (buyside / investments).
DEAL_ROLE = Column("role", "category")
#: Nested objects of a deal and the prefix their extra keys get.
DEAL_NESTED: dict[str, str] = {"deal_multiples": "", "target": "target_"}

#: Top-level fields of each single profile (interface document section 2.2), by entity: what
#: the ``fields`` allowlist of ``GET /companies/{id}``, ``/investors/{id}`` and
#: ``/transactions/{id}`` may name. Read from the profile schemas, so the frame's columns and
#: the names the client accepts cannot drift apart.
PROFILE_FIELDS: dict[str, tuple[str, ...]] = {
    "companies": top_level_fields(COMPANY_PROFILE),
    "investors": top_level_fields(INVESTOR_PROFILE),
    "transactions": top_level_fields(DEAL),
}

COMPANY_INVESTORS: Schema = (
    Column("id", "uuid"),
    *_cols("str", "name", "short_name", "country", "website"),
    Column("rounds_participated", "int"),
    Column("is_lead_any_round", "bool"),
    *_cols("date", "first_round_date", "last_round_date"),
)
PORTFOLIO: Schema = (
    Column("id", "uuid"),
    *_cols("str", "name", "short_name", "website", "country"),
    *_cols("date", "first_invested", "last_invested"),
    Column("rounds_count", "int"),
    Column("led_any_round", "bool"),
)
CO_INVESTORS: Schema = (
    Column("id", "uuid"),
    *_cols("str", "name", "short_name", "website", "country"),
    Column("shared_deals", "int"),
    *_cols("date", "first_shared_date", "last_shared_date"),
)

RESOLVE_RESULTS: Schema = (
    Column("query", "str"),
    Column("id", "uuid"),
    Column("match_type", "category"),
)
RESOLVE_CANDIDATES: Schema = (
    Column("query", "str"),
    Column("id", "uuid"),
    *_cols("str", "name", "country"),
    Column("score", "float"),
    Column("rank", "int"),
)

AGGREGATE: Schema = (
    Column("bucket", "str"),
    *_cols("date", "period_start", "period_end"),
    Column("n", "int"),
    *_cols("float", "median", "q1", "q3"),
    Column("warning", "str"),
)

LOOKUP_FILTERS: Schema = (
    *_cols("str", "field", "type"),
    *_cols("list", "operators", "values"),
    Column("description", "str"),
)

PARTICIPANTS: Schema = (
    Column("deal_id", "uuid"),
    Column("role", "category"),
    Column("participant_id", "uuid"),
    *_cols("str", *(f"participant_{f}" for f in PARTICIPANT_FIELDS if f != "id")),
    Column("deal_date", "date"),
    Column("deal_type", "category"),
    Column("deal_subtype", "category"),
    Column("target_id", "uuid"),
    Column("deleted", "bool"),
    Column("investors_missing", "bool"),
)

EDGES: Schema = (
    *_cols("str", "investor_a", "investor_b", "name_a", "name_b"),
    Column("shared_deals", "int"),
    *_cols("date", "first_date", "last_date"),
)

#: ``match`` of a public <-> private link row (:mod:`dealframe.link`).
LINK_MATCHES: tuple[str, ...] = ("matched", "ambiguous", "not_listed", "not_found")
#: Rows of :func:`dealframe.skus_for_companies` and :func:`dealframe.companies_for_skus`.
LINK: Schema = (
    *_cols(
        "str",
        "query",
        "company_id",
        "sku_v1",
        "sku_v2",
        "ticker",
        "exchange",
        "name",
        "public_name",
        "country",
        "public_country",
    ),
    Column("match", "category", categories=LINK_MATCHES),
    Column("name_score", "float"),
    Column("evidence", "str"),
)
