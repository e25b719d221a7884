"""Bootstrap confidence intervals of bucket medians (``scipy.stats.bootstrap``).

A median of five deals says little on its own; its interval says how little. The bucket's
median is recomputed on resamples of the values it was computed from (the kept values, or all
of them with ``stats_on="all"``), with the same quantile method, and the percentile interval
of those medians is reported. Trimming is taken as given: it is not redone inside a resample.
Percentile, not scipy's default BCa: BCa's acceleration comes from a jackknife, which does not
estimate a median's variability consistently, and it turns ties into degenerate intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["median_intervals"]

#: Values per batch of resamples held in memory at once (32 MB of float64).
_BATCH_VALUES = 1 << 22


def median_intervals(
    samples: Sequence[np.ndarray],
    confidence: float,
    *,
    method: str = "linear",
    n_resamples: int = 9999,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the median of every sample.

    Parameters
    ----------
    samples : sequence of ndarray
        One array of finite values per bucket (empty: no interval).
    confidence : float
        Confidence level in (0, 1).
    method : str
        numpy quantile method of the median (``np.quantile(x, 0.5, method=method)``).
    n_resamples : int
        Resamples per sample, at least 2 (one resample has no spread: scipy's standard
        error of it divides by zero).
    rng : numpy.random.Generator
        Drawn from in sample order, over each sample's values sorted, so a seeded generator
        gives the same intervals whatever order the values came in.

    Returns
    -------
    low, high : ndarray of float64
        NaN for an empty sample; ``[v, v]`` for a sample whose values are all ``v``.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = median_intervals([np.array([1.0, 2.0, 3.0, 4.0, 9.0]), np.array([])],
    ...                              0.9, n_resamples=999, rng=np.random.default_rng(0))
    >>> bool(low[0] <= 3.0 <= high[0]), bool(np.isnan(low[1]))
    (True, True)
    """
    from scipy.stats import bootstrap  # scipy.stats takes ~0.3 s to import: only when asked

    quantile_method: Any = method  # numpy's stubs want a literal

    def median(values: np.ndarray, axis: int = -1) -> Any:
        return np.quantile(values, 0.5, axis=axis, method=quantile_method)

    low = np.full(len(samples), np.nan)
    high = np.full(len(samples), np.nan)
    for i, values in enumerate(samples):
        if not len(values):
            continue
        if values.min() == values.max():  # every resample is the same: so is its median
            low[i] = high[i] = values[0]
            continue
        result = bootstrap(
            (np.sort(values),),
            median,
            n_resamples=n_resamples,
            vectorized=True,
            batch=max(1, _BATCH_VALUES // len(values)),
            method="percentile",
            confidence_level=confidence,
            rng=rng,
        )
        low[i], high[i] = result.confidence_interval
    return low + 0.0, high + 0.0  # a zero is +0.0 (-0.0 and 0.0 sort alike, in any order)
