"""Vocabularies and field names shared by the client and the sandbox.

These are facts of the interface document (regions, deal types, metric and
bucket names, field classes), not behaviour: the client and the sandbox both
read them, and neither computes anything from the other's code.
"""

from __future__ import annotations

import re

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
    "SKU_V1",
    "SKU_V2",
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

#: One part of a SKU: upper-case letters and digits, in pieces joined by ``.`` or ``-``
#: (tickers such as ``BRK.B`` or ``BF-B``; exchanges such as ``NSE-KE``).
_SKU_PART = r"[A-Z0-9]+(?:[.\-][A-Z0-9]+)*"

#: Family A SKU formats (section 2.1), the single definition the client and the sandbox share.
#: Anchored at both ends (``\Z``, so no trailing newline slips through): use ``.match``.
#: v1 ``<EXCHANGE>_<TICKER>`` (``NASDAQ_ACME``, ``NYSE_BRK.B``); v2 ``<TICKER>-<ISO3>`` with an
#: optional collision suffix ``.N`` (``ACME-USA``, ``BRK.B-USA.1``: ticker ``BRK.B``, N 1). The
#: country is always the last ``-`` and three letters (before ``.N``), so a ticker holding a dot
#: or a hyphen still parses one way only; the two formats never overlap (only v1 has ``_``).
SKU_V1: re.Pattern[str] = re.compile(rf"^(?P<exchange>{_SKU_PART})_(?P<ticker>{_SKU_PART})\Z")
SKU_V2: re.Pattern[str] = re.compile(
    rf"^(?P<ticker>{_SKU_PART})-(?P<country>[A-Z]{{3}})(?:\.(?P<n>[1-9][0-9]*))?\Z")

#: Limits (section 8).
SKUS_PER_CURRENT_REQUEST = 100
SUBCOLLECTION_LIMIT_DEFAULT = 100
SUBCOLLECTION_LIMIT_MAX = 1000
