"""Every vocabulary, format, field list and limit the sandbox serves: its own copy.

The sandbox is a separate implementation of the interface document, so it decides
each of these for itself (docs/sandbox.md) and imports nothing from the client.
Where the document states a value (regions, deal types, metric names, field
classes), the value here is the document's; where it leaves a point open (SKU
alphabets, time-series fields, limits), the value here is the sandbox's decision.

Examples
--------
>>> is_sku("NASDAQ_ACME", "v1"), is_sku("ACME-USA.1", "v2"), is_sku("ACME-USA.1", "v1")
(True, True, False)
>>> METRIC_COLUMNS["valuation"], "M&A" in FUNDING_DEAL_TYPES
('deal_valuation', False)
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "AGGREGATE_METRICS",
    "COMPANY_LIST_FIELDS",
    "COMPANY_PROFILE_FIELDS",
    "DEAL_LIST_FIELDS",
    "DEAL_PROFILE_FIELDS",
    "DEAL_SUBTYPES",
    "DEAL_TYPES",
    "ENTITY_LABELS",
    "FUNDAMENTAL_FIELDS",
    "FUNDING_DEAL_TYPES",
    "GROUP_SUM_AND_MEDIAN",
    "GROUP_SUM_ONLY",
    "INVESTOR_LIST_FIELDS",
    "INVESTOR_PROFILE_FIELDS",
    "ISO3_PATTERN",
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "MAX_BODY_BYTES",
    "MAX_IDS",
    "MAX_PAGE",
    "MAX_RESOLVE_NAMES",
    "METRIC_COLUMNS",
    "MONTH_PATTERN",
    "PARTICIPANT_FIELDS",
    "PROFILE_FIELDS",
    "REGIONS",
    "SKUS_PER_CURRENT_REQUEST",
    "SKU_PATTERNS",
    "TIME_BUCKETS",
    "TIME_SERIES_FIELDS",
    "VALUATION_FIELDS",
    "VERSIONS",
    "is_iso3",
    "is_month",
    "is_sku",
    "matches",
]

# ---------------------------------------------------------------------------- document values

#: Region vocabulary (section 4.4).
REGIONS: tuple[str, ...] = (
    "Africa",
    "Central Asia",
    "East Asia",
    "Eastern Europe",
    "Latin America",
    "Middle East",
    "North America",
    "Northern Europe",
    "Oceania",
    "South Asia",
    "South-East Asia",
    "Southern Europe",
    "Western Europe",
)
#: Deal types (section 4.4), in the document's order.
DEAL_TYPES: tuple[str, ...] = ("Early", "Growth", "M&A", "Public listing", "Secondary", "Venture")
#: Deal types served as funding rounds: every type but M&A has lead investors, not buyers.
FUNDING_DEAL_TYPES: frozenset[str] = frozenset(DEAL_TYPES) - {"M&A"}
#: Deal subtypes (section 4.4).
DEAL_SUBTYPES: tuple[str, ...] = (
    "Angel",
    "ICO",
    "PE buyout",
    "Pre-seed",
    "Secondary - private",
    "Secondary - public",
    "Seed",
    "Series A",
    "Series B",
    "Series C",
    "Series D",
    "Series E",
    "Series F",
    "Series G",
    "Series H",
    "Series I",
    "Series J",
    "Strategic M&A",
    "Strategic investment",
    "Undisclosed stage",
)
#: Aggregate metric (section 4.3) → the deal field it reads (docs/sandbox.md).
METRIC_COLUMNS: dict[str, str] = {
    "ev_revenue": "ev_revenue",
    "ev_ebitda": "ev_ebitda",
    "valuation": "deal_valuation",
    "raised": "deal_raised",
    "revenue": "deal_revenue",
    "ebitda": "deal_ebitda",
}
AGGREGATE_METRICS: tuple[str, ...] = tuple(METRIC_COLUMNS)
#: Aggregate time buckets (section 4.3).
TIME_BUCKETS: tuple[str, ...] = ("month", "quarter", "year", "none")
#: Group current-data field classes (section 2.1); every other numeric field is median only.
GROUP_SUM_ONLY: tuple[str, ...] = ("marketCap", "enterpriseValue")
GROUP_SUM_AND_MEDIAN: tuple[str, ...] = ("revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm")

# ---------------------------------------------------------------------------- Family B fields

#: The list entities, each with the word that names one of them (messages, operation ids).
ENTITY_LABELS: dict[str, str] = {
    "companies": "Company",
    "investors": "Investor",
    "transactions": "Transaction",
}

COMPANY_LIST_FIELDS: tuple[str, ...] = (
    "id",
    "name",
    "short_name",
    "description",
    "website",
    "linkedin",
    "country",
    "region",
    "city",
    "area",
    "founded",
    "verticals",
    "themes",
    "client_focus",
    "revenue_model",
    "company_type",
    "ownership",
    "active",
    "ipoed",
    "ceo",
    "created_at",
    "updated_at",
    "deleted",
    "is_public",
)
COMPANY_PROFILE_FIELDS: tuple[str, ...] = COMPANY_LIST_FIELDS + (
    "employee_count",
    "stock_listing",
    "valuation",
    "fundamentals",
    "deal_activity",
)
INVESTOR_LIST_FIELDS: tuple[str, ...] = (
    "id",
    "name",
    "short_name",
    "website",
    "country",
    "updated_at",
    "deleted",
)
INVESTOR_PROFILE_FIELDS: tuple[str, ...] = (
    "id",
    "name",
    "short_name",
    "website",
    "linkedin",
    "company_type",
    "ownership",
    "description",
    "verticals",
    "themes",
    "city",
    "country",
    "region",
    "area",
    "founded",
    "ipoed",
    "ceo",
    "employee_count",
    "revenue_model",
    "client_focus",
    "active",
    "created_at",
    "updated_at",
    "deleted",
    "is_public",
    "stats",
)
DEAL_LIST_FIELDS: tuple[str, ...] = (
    "id",
    "deal_date",
    "deal_type",
    "deal_subtype",
    "deal_synopsis",
    "deal_valuation",
    "deal_raised",
    "deal_revenue",
    "deal_ebitda",
    "deal_multiples",
    "target",
    "buyers",
    "lead_investors",
    "created_at",
    "updated_at",
    "deleted",
)
DEAL_PROFILE_FIELDS: tuple[str, ...] = DEAL_LIST_FIELDS + ("investors",)
#: The company profile's ``valuation`` members (all null for a private company).
VALUATION_FIELDS: tuple[str, ...] = (
    "market_cap",
    "enterprise_value",
    "price_to_book",
    "price_to_sales",
    "price_to_cash_flow",
    "price_to_free_cash_flow",
    "beta",
    "updated_at",
)
#: The company profile's ``fundamentals`` members (all null when unknown).
FUNDAMENTAL_FIELDS: tuple[str, ...] = (
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
PARTICIPANT_FIELDS: tuple[str, ...] = ("id", "name", "country", "website", "short_name")
#: The names a profile's ``fields`` allowlist takes, per entity.
PROFILE_FIELDS: dict[str, tuple[str, ...]] = {
    "companies": COMPANY_PROFILE_FIELDS,
    "investors": INVESTOR_PROFILE_FIELDS,
    "transactions": DEAL_PROFILE_FIELDS,
}

# ---------------------------------------------------------------------------- Family A decisions

#: The Family A path versions.
VERSIONS: tuple[str, ...] = ("v1", "v2")

#: Time-series fields the sandbox serves (the document only gives examples).
TIME_SERIES_FIELDS: tuple[str, ...] = (
    "marketCap",
    "enterpriseValue",
    "revenueLtm",
    "evRevenueLtm",
    "evRevenueNtm",
    "evEbitdaLtm",
    "evEbitdaNtm",
    "marginGrossLtm",
    "marginEbitdaLtm",
    "revenueGrowthNtmLtm",
)

# The patterns below are written once, as the OpenAPI document states them (ECMA 262
# regular expressions, where ``$`` is the end of the text) and the handlers check them with
# ``fullmatch`` (so Python's ``$`` before a final newline cannot let one through): what the
# document allows and what a handler accepts cannot differ.

#: An ISO 3166 alpha-3 country code as the sandbox checks it: three capital letters.
ISO3_PATTERN = "^[A-Z]{3}$"
#: A ``YYYY-MM`` month (``dateFrom``, ``dateTo``): months 01 to 12.
MONTH_PATTERN = "^[0-9]{4}-(0[1-9]|1[0-2])$"

#: One part of a SKU: upper-case letters and digits, in pieces joined by ``.`` or ``-``
#: (tickers such as ``BRK.B`` or ``BF-B``; exchanges such as ``NSE-KE``).
_SKU_PART = "[A-Z0-9]+([.-][A-Z0-9]+)*"

#: SKU format per version (section 2.1), anchored at both ends.
#: v1 ``<EXCHANGE>_<TICKER>``; v2 ``<TICKER>-<ISO3>`` with an optional collision suffix ``.N``.
#: The v2 country is always the last ``-`` and three letters (before ``.N``), so a ticker with a
#: dot or a hyphen parses one way only; the formats never overlap (only v1 has ``_``).
SKU_PATTERNS: dict[str, str] = {
    "v1": f"^{_SKU_PART}_{_SKU_PART}$",
    "v2": f"^{_SKU_PART}-[A-Z]{{3}}([.][1-9][0-9]*)?$",
}


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def matches(pattern: str, value: str) -> bool:
    """Whether the whole of ``value`` matches ``pattern``, written in the document's dialect
    (``^...$``, as :data:`ISO3_PATTERN`): what a handler accepts is what the document allows.

    Examples
    --------
    >>> matches(ISO3_PATTERN, "USA"), matches(ISO3_PATTERN, "USA\\n")
    (True, False)
    """
    return _compiled(pattern).fullmatch(value) is not None


def is_sku(value: str, version: str) -> bool:
    """Whether ``value`` is a well-formed SKU of ``version`` (``"v1"`` or ``"v2"``).

    Examples
    --------
    >>> is_sku("BRK.B-USA", "v2"), is_sku("NYSE_BRK.B", "v1"), is_sku("BRK.B-USA", "v1")
    (True, True, False)
    >>> is_sku("ACME-USA.01", "v2"), is_sku("NASDAQ_ACME\\n", "v1")
    (False, False)
    """
    return matches(SKU_PATTERNS[version], value)


def is_iso3(value: str) -> bool:
    """Whether ``value`` is three capital letters (:data:`ISO3_PATTERN`).

    Examples
    --------
    >>> is_iso3("USA"), is_iso3("usa"), is_iso3("USA\\n")
    (True, False, False)
    """
    return matches(ISO3_PATTERN, value)


def is_month(value: str) -> bool:
    """Whether ``value`` is a ``YYYY-MM`` month (:data:`MONTH_PATTERN`).

    Examples
    --------
    >>> is_month("2024-12"), is_month("0000-00"), is_month("2024-13")
    (True, False, False)
    """
    return matches(MONTH_PATTERN, value)


# ---------------------------------------------------------------------------- limits

#: SKUs per current-data request (section 8).
SKUS_PER_CURRENT_REQUEST = 100
#: ``limit`` of lists and sub-collections: 1..LIMIT_MAX, default LIMIT_DEFAULT (section 8).
LIMIT_DEFAULT = 100
LIMIT_MAX = 1000
#: Largest ``page``: far past any data, and small enough that ``meta.page`` is a 64-bit integer.
MAX_PAGE = 10**9
#: Ids per ``filters.id`` (and the other id filters).
MAX_IDS = 1000
#: Names per resolve request.
MAX_RESOLVE_NAMES = 1000
#: Largest request body read, in bytes (1 MiB): 1,000 ids take about 40 KB and 1,000 long
#: names a few hundred; anything larger is answered 413 without being read.
MAX_BODY_BYTES = 1 << 20
