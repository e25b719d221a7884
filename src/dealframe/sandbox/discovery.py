"""The three discovery documents (``GET /lookup/{entity}``), built from the filter specs."""

from __future__ import annotations

from typing import Any

from .models.aggregate import DEFAULT_DATE_RANGE_YEARS, OUTLIER_RULE, SMALL_N_THRESHOLD
from .models.filters import SORT_KEYS, SPECS
from .vocab import AGGREGATE_METRICS, TIME_BUCKETS

__all__ = ["SUB_RESOURCES", "discovery_document"]

SUB_RESOURCES: dict[str, tuple[str, ...]] = {
    "companies": (
        "/companies/{id}/fundings",
        "/companies/{id}/sellside",
        "/companies/{id}/buyside",
        "/companies/{id}/investors",
    ),
    "investors": (
        "/investors/{id}/investments",
        "/investors/{id}/co_investors",
        "/investors/{id}/portfolio",
    ),
    "transactions": (),
}


def discovery_document(entity: str) -> dict[str, Any]:
    """``{filters, sort_fields, sub_resources}`` (plus ``aggregate`` for transactions).

    Examples
    --------
    >>> doc = discovery_document("investors")
    >>> [f["field"] for f in doc["filters"]][:2]
    ['id', 'name']
    """
    doc: dict[str, Any] = {
        "filters": [spec.document() for spec in SPECS[entity]],
        "sort_fields": list(SORT_KEYS[entity]),
        "sub_resources": list(SUB_RESOURCES[entity]),
    }
    if entity == "transactions":
        doc["aggregate"] = {
            "metrics": list(AGGREGATE_METRICS),
            "time_buckets": list(TIME_BUCKETS),
            "methodology": {
                "small_n_threshold": SMALL_N_THRESHOLD,
                "outlier_rule": OUTLIER_RULE,
                "default_date_range_years": DEFAULT_DATE_RANGE_YEARS,
                "empty_buckets_returned": True,
            },
        }
    return doc
