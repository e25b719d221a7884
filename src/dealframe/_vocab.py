"""What the interface document closes, and only that: the client's fixed vocabulary.

Regions, deal types and subtypes, aggregate metric and bucket names, the group sum/median
field classes and the documented limits. Everything the document leaves open (time-series
field names, SKU alphabets, label formats ...) is read from the service or adapted to, never
assumed here; the sandbox keeps its own copy of its decisions (``dealframe.sandbox.vocab``).
"""

from __future__ import annotations

__all__ = [
    "AGGREGATE_METRICS",
    "DEAL_SUBTYPES",
    "DEAL_TYPES",
    "GROUP_SUM_AND_MEDIAN",
    "GROUP_SUM_ONLY",
    "REGIONS",
    "SKUS_PER_CURRENT_REQUEST",
    "SUBCOLLECTION_LIMIT_MAX",
    "TIME_BUCKETS",
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

#: Aggregate metrics (section 4.3).
AGGREGATE_METRICS: tuple[str, ...] = (
    "ev_revenue",
    "ev_ebitda",
    "valuation",
    "raised",
    "revenue",
    "ebitda",
)

#: Aggregate time buckets (section 4.3).
TIME_BUCKETS: tuple[str, ...] = ("month", "quarter", "year", "none")

#: Family A group current-data field classes (section 2.1).
GROUP_SUM_ONLY: tuple[str, ...] = ("marketCap", "enterpriseValue")
GROUP_SUM_AND_MEDIAN: tuple[str, ...] = ("revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm")

#: Limits (section 8).
SKUS_PER_CURRENT_REQUEST = 100
SUBCOLLECTION_LIMIT_MAX = 1000
