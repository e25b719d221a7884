"""Vocabularies and field names shared by the client and the sandbox.

These are facts of the interface document (regions, deal types, metric and
bucket names, field classes), not behaviour: the client and the sandbox both
read them, and neither computes anything from the other's code.
"""

from __future__ import annotations

__all__ = [
    "AGGREGATE_METRICS",
    "DEAL_SUBTYPES",
    "DEAL_TYPES",
    "FUNDING_DEAL_TYPES",
    "GROUP_SUM_AND_MEDIAN",
    "GROUP_SUM_ONLY",
    "METRIC_COLUMNS",
    "REGIONS",
    "SKUS_PER_CURRENT_REQUEST",
    "SUBCOLLECTION_LIMIT_DEFAULT",
    "SUBCOLLECTION_LIMIT_MAX",
    "TIME_BUCKETS",
    "TIME_SERIES_FIELDS",
]

#: Region vocabulary (interface document section 4.4).
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

#: Deal types (section 4.4).
DEAL_TYPES: tuple[str, ...] = ("Early", "Growth", "M&A", "Public listing", "Secondary", "Venture")

#: Deal types that are funding rounds (lead investors, not buyers).
FUNDING_DEAL_TYPES: tuple[str, ...] = ("Early", "Growth", "Public listing", "Secondary", "Venture")

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

#: Aggregate metrics (section 4.3) and the deal column each one reads.
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

#: Family A group current-data field classes (section 2.1).
GROUP_SUM_ONLY: tuple[str, ...] = ("marketCap", "enterpriseValue")
GROUP_SUM_AND_MEDIAN: tuple[str, ...] = ("revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm")

#: Family A time-series fields served by the sandbox (docs/sandbox.md).
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

#: Limits (section 8).
SKUS_PER_CURRENT_REQUEST = 100
SUBCOLLECTION_LIMIT_DEFAULT = 100
SUBCOLLECTION_LIMIT_MAX = 1000
