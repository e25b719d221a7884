"""Local analytics: the service's aggregates recomputed from frames.

- :func:`bucket_medians`: IQR-trimmed bucket medians (``transactions/aggregate``), every
  quantile by :func:`numpy.quantile`, with ``explain=True`` for a per-deal audit trail and
  ``ci=`` for bootstrap intervals of the medians (``scipy.stats.bootstrap``).
- :func:`group_current`, :func:`group_time_series`: Family A group rollups
  (``groups/current``, ``groups/time-series``) for any group of SKUs.
- :class:`Conventions`: every convention the interface document leaves open, as parameters,
  with the sandbox's behaviour as the default; :meth:`Conventions.variants` for calibration.
- :func:`reconcile`, :func:`reconcile_groups`, :func:`calibrate`: the proof, against the service,
  that the local numbers mean the same, and which conventions a service uses;
  :func:`reconcile_frames` is :func:`reconcile` on frames already pulled.
"""

from __future__ import annotations

from dealframe.analytics.buckets import bucket_medians
from dealframe.analytics.conventions import (
    DEFAULT_CONVENTIONS,
    QUANTILE_METHODS,
    Conventions,
)
from dealframe.analytics.periods import bucket_labels, resolve_window
from dealframe.analytics.reconcile import (
    Reconciliation,
    calibrate,
    compare_buckets,
    reconcile,
    reconcile_frames,
    reconcile_groups,
)
from dealframe.analytics.rollups import current_fields, group_current, group_time_series

__all__ = [
    "DEFAULT_CONVENTIONS",
    "QUANTILE_METHODS",
    "Conventions",
    "Reconciliation",
    "bucket_labels",
    "bucket_medians",
    "calibrate",
    "compare_buckets",
    "current_fields",
    "group_current",
    "group_time_series",
    "reconcile",
    "reconcile_frames",
    "reconcile_groups",
    "resolve_window",
]
