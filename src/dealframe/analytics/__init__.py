"""Local analytics: the service's aggregates recomputed from frames.

- :func:`bucket_medians`: IQR-trimmed bucket medians (``transactions/aggregate``).
- :func:`group_current`, :func:`group_time_series`: Family A group rollups
  (``groups/current``, ``groups/time-series``) for any group of SKUs.
- :class:`Conventions`: every convention the interface document leaves open, as parameters.
"""

from __future__ import annotations

from dealframe.analytics.buckets import bucket_medians, resolve_window, segment_quantiles
from dealframe.analytics.conventions import QUANTILE_METHODS, Conventions

__all__ = [
    "QUANTILE_METHODS",
    "Conventions",
    "bucket_medians",
    "resolve_window",
    "segment_quantiles",
]
