"""Whether an aggregate's buckets agree with the small-n threshold its answer reports.

Section 4.3 of the interface document: buckets with fewer deals than ``small_n_threshold`` are
suppressed (rule 3), and the value the service returns at run time is authoritative (rule 9).
The client reads that value from ``meta.methodology.small_n_threshold`` and uses it (the
analytics suppress local buckets by it, :func:`~dealframe.analytics.reconcile` compares by
it). A bucket below it that carries statistics, or one at or above it whose statistics are
null, may say the buckets were cut by another threshold than the one reported: the local side
then disagrees with the service on exactly those buckets.

What a bucket's ``n`` counts is not written: the document says "n (deal count)" (rule 1), and
``warning`` takes values it does not show (rule 8). A service whose ``n`` counts every deal
nulls the statistics of a bucket with many deals but few values, and may say why in its
``warning``. So a bucket at or above the threshold with null statistics counts against the
threshold only when its ``warning`` is null or one the answer's own suppressed buckets (below
the threshold, null statistics) carry; any other warning (``"no_values"``) gives another
reason, and the bucket is left aside. No warning value is assumed: only the answer's.

:func:`threshold_said` records a ``threshold_mismatch`` finding naming the buckets and their
``n`` when one threshold other than the reported one gives the buckets' suppression; when none
does, a ``suppression_unexplained`` finding naming both readings (another threshold, or ``n``
counting deals without a value), which the doctor does not call broken.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..contract import Findings, first_of

__all__ = ["STATISTICS", "UNEXPLAINED", "OffThreshold", "off_threshold", "threshold_said"]

#: The statistics a suppressed bucket has null (section 4.3 rule 1: n, median, q1, q3).
STATISTICS = ("median", "q1", "q3")

#: Buckets named in a finding's words; the rest are counted.
_NAMED = 4

#: The finding of buckets no one threshold suppresses so (not a threshold mismatch: ``n`` may
#: count deals without a value).
UNEXPLAINED = "suppression_unexplained"

#: Why a bucket of ``n`` deals may be suppressed at or above the threshold, besides it.
_OTHER_READING = (
    "the service cuts at another threshold than it reports, or its n counts deals without a "
    "value (a bucket of that many deals with fewer values is suppressed: rule 1 says only "
    '"n (deal count)")'
)


class OffThreshold(NamedTuple):
    """The buckets of an aggregate frame that disagree with a threshold, as ``(label, n)``.

    Attributes
    ----------
    shown : list of (str, int)
        Buckets with fewer deals than the threshold (and at least one) that carry a statistic.
    withheld : list of (str, int)
        Buckets with at least the threshold's deals (and at least one) whose statistics are
        all null and whose ``warning`` is null or one the answer's buckets below the
        threshold with null statistics carry (a bucket with another warning is left aside:
        its statistics are null for another reason).
    followed : tuple of (int, int) or None
        ``(low, high)``: the buckets' own suppression is that of any threshold from ``low``
        to ``high`` (the smallest ``n`` with statistics is ``high``); None when no threshold
        gives it (or no bucket carries statistics).
    """

    shown: list[tuple[str, int]]
    withheld: list[tuple[str, int]]
    followed: tuple[int, int] | None

    @property
    def labels(self) -> list[str]:
        """The labels of every bucket that disagrees."""
        return [label for label, _ in (*self.shown, *self.withheld)]


def off_threshold(frame: pd.DataFrame, threshold: int) -> OffThreshold:
    """The buckets of an aggregate ``frame`` (``bucket``, ``n``, ``median``, ``q1``, ``q3``)
    whose statistics disagree with ``threshold`` (pure: no finding, no request).

    Parameters
    ----------
    frame : pandas.DataFrame
        As :meth:`~dealframe.private.api.PrivateApi.aggregate` returns it.
    threshold : int
        The small-n threshold the answer reports.

    Returns
    -------
    OffThreshold
        Empty lists when every bucket agrees; a frame without these columns agrees.

    Examples
    --------
    >>> f = pd.DataFrame({"bucket": ["a", "b", "c", "d"], "n": [2, 4, 6, 0],
    ...                   "median": [None, 1.0, 2.0, None], "q1": [None] * 4, "q3": [None] * 4})
    >>> off_threshold(f, 5)
    OffThreshold(shown=[('b', 4)], withheld=[], followed=(3, 4))
    >>> off_threshold(f, 3).shown, off_threshold(f, 2).withheld
    ([], [('a', 2)])

    A warning the suppressed buckets below the threshold do not carry gives another reason:

    >>> f["warning"] = ["small_n", None, "no_values", "empty"]
    >>> f.loc[2, "median"] = None
    >>> off_threshold(f, 3)
    OffThreshold(shown=[], withheld=[], followed=(3, 4))
    >>> f.loc[2, "warning"] = "small_n"
    >>> off_threshold(f, 3)
    OffThreshold(shown=[], withheld=[('c', 6)], followed=None)
    """
    if len(frame) == 0 or not {"bucket", "n", *STATISTICS} <= set(frame.columns):
        return OffThreshold([], [], None)
    n = pd.to_numeric(frame["n"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    stated = np.zeros(len(frame), dtype=bool)
    for name in STATISTICS:
        values = pd.to_numeric(frame[name], errors="coerce")
        stated |= values.notna().to_numpy(dtype=bool)
    counted = ~np.isnan(n) & (n > 0)
    counted &= ~_otherwise_null(frame, n, threshold, counted & ~stated)
    labels = frame["bucket"].astype(str).tolist()

    def named(mask: np.ndarray) -> list[tuple[str, int]]:
        return [(labels[i], int(n[i])) for i in np.flatnonzero(mask)]

    shown = named(counted & (n < threshold) & stated)
    withheld = named(counted & (n >= threshold) & ~stated)
    with_stats, without = n[counted & stated], n[counted & ~stated]
    low = int(without.max()) + 1 if len(without) else 1
    high = int(with_stats.min()) if len(with_stats) else None
    followed = (low, high) if high is not None and low <= high else None
    return OffThreshold(shown, withheld, followed)


def _otherwise_null(
    frame: pd.DataFrame, n: np.ndarray, threshold: int, null: np.ndarray
) -> np.ndarray:
    """The buckets at or above ``threshold`` with null statistics (``null``) whose
    ``warning`` is neither null nor one the buckets below it with null statistics carry: null
    for a reason the answer names, not the threshold (no warning value is assumed).

    Examples
    --------
    >>> f = pd.DataFrame({"warning": ["small_n", "small_n", None, "no_values"]})
    >>> _otherwise_null(f, np.array([2.0, 6, 7, 8]), 5, np.array([True] * 4)).tolist()
    [False, False, False, True]
    """
    if "warning" not in frame.columns:
        return np.zeros(len(frame), dtype=bool)
    warning = frame["warning"].astype(object).where(frame["warning"].notna(), None).tolist()
    said = np.array([w is not None for w in warning], dtype=bool)
    below = null & (n < threshold)
    small = {warning[i] for i in np.flatnonzero(below & said)}
    other = np.array([w is not None and w not in small for w in warning], dtype=bool)
    return null & (n >= threshold) & other


def _listed(buckets: list[tuple[str, int]]) -> str:
    """The buckets as a finding names them (:func:`~dealframe.contract.first_of`)."""
    return first_of([f"{label} n={n}" for label, n in buckets], _NAMED)


def threshold_said(frame: pd.DataFrame, threshold: int | None, found: Findings) -> OffThreshold:
    """Record, as one finding, the buckets of ``frame`` that disagree with the ``threshold``
    the answer reports (nothing when it reports none: that is said where the threshold is
    read): a ``threshold_mismatch`` when one other threshold gives their suppression, else a
    :data:`UNEXPLAINED` one naming both readings (another threshold, or ``n`` counting deals
    without a value).

    Parameters
    ----------
    frame : pandas.DataFrame
        The aggregate frame.
    threshold : int or None
        The answer's ``meta.methodology.small_n_threshold`` as a count.
    found : Findings
        Where it is recorded.

    Returns
    -------
    OffThreshold
        What disagrees (empty with no threshold).

    Examples
    --------
    >>> f = pd.DataFrame({"bucket": ["2024-01", "2024-02"], "n": [4, 6],
    ...                   "median": [None, 2.0], "q1": [None, 1.0], "q3": [None, 3.0]})
    >>> found = Findings("POST /x")
    >>> _ = threshold_said(f, 3, found)
    >>> print(found.items[0].message)
    meta.methodology.small_n_threshold is 3, but 1 bucket at or above it has null statistics (2024-01 n=4): the buckets are not suppressed by the threshold the answer reports (section 4.3 rule 3); they follow a threshold between 5 and 6 (local buckets cut by 3 will not match them)
    >>> found = Findings("POST /x")
    >>> _ = threshold_said(f.assign(n=[8, 6]), 3, found)
    >>> print(found.items[0].kind, found.items[0].message)
    suppression_unexplained meta.methodology.small_n_threshold is 3, and 1 bucket at or above it has null statistics (2024-01 n=8), while buckets of fewer deals carry statistics: no one threshold gives this suppression; the service cuts at another threshold than it reports, or its n counts deals without a value (a bucket of that many deals with fewer values is suppressed: rule 1 says only "n (deal count)") (local buckets cut by 3 will not match them)
    """
    if threshold is None:
        return OffThreshold([], [], None)
    off = off_threshold(frame, threshold)
    if not off.labels:
        return off
    parts = []
    if off.shown:
        many = len(off.shown) > 1
        parts.append(
            f"{len(off.shown)} bucket{'s' if many else ''} below it "
            f"{'carry' if many else 'carries'} statistics ({_listed(off.shown)})"
        )
    if off.withheld:
        many = len(off.withheld) > 1
        parts.append(
            f"{len(off.withheld)} bucket{'s' if many else ''} at or above it "
            f"{'have' if many else 'has'} null statistics ({_listed(off.withheld)})"
        )
    said = " and ".join(parts)
    local = f"(local buckets cut by {threshold} will not match them)"
    if off.followed is None:
        found.add(
            UNEXPLAINED,
            f"meta.methodology.small_n_threshold is {threshold}, and {said}, while buckets of "
            f"fewer deals carry statistics: no one threshold gives this suppression; "
            f"{_OTHER_READING} {local}",
        )
        return off
    if off.followed[0] == off.followed[1]:
        follows = f"they follow a threshold of {off.followed[1]}"
    else:
        follows = f"they follow a threshold between {off.followed[0]} and {off.followed[1]}"
    found.add(
        "threshold_mismatch",
        f"meta.methodology.small_n_threshold is {threshold}, but {said}: the buckets are not "
        f"suppressed by the threshold the answer reports (section 4.3 rule 3); {follows} {local}",
    )
    return off
