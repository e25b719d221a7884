"""Whether each aggregate bucket's statistics hold together.

Section 2 of the interface document gives every aggregate bucket ``median``, ``q1`` and
``q3`` as numbers (a suppressed bucket has all three null: :mod:`.suppression` judges those
against the threshold). A bucket with some of them and not the others, or whose quartiles
are out of order (``q1`` above ``q3``, the ``median`` outside ``q1``..``q3``), is a value no
computation of quartiles gives: a user plotting the median between its quartiles, or
reading ``q3 - q1`` as a spread, would draw or read nonsense without a word.
:func:`statistics_said` says each, naming the buckets; the values stay as served.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..contract import Findings, first_of
from .suppression import STATISTICS

__all__ = ["INVERTED", "statistics_said"]

#: The finding of buckets whose quartiles are out of order (how the service answers each
#: time: kept in the HTTP cache, as ``inverted_dates`` is).
INVERTED = "inverted_quartiles"

#: Buckets named in a finding's words; the rest are counted.
_NAMED = 4


def statistics_said(frame: pd.DataFrame, found: Findings) -> None:
    """Record what does not hold together in the statistics of the buckets of ``frame`` (an
    :func:`~dealframe.frames.private.aggregate_frame`, one row a bucket): a ``null_field``
    finding for buckets with some of ``median``, ``q1``, ``q3`` null and some not (the
    statistics null, naming the buckets), an :data:`INVERTED` one for buckets whose ``q1``
    is above their ``q3`` or whose ``median`` is outside ``q1``..``q3``. A frame without
    these columns holds nothing to judge.

    Parameters
    ----------
    frame : pandas.DataFrame
        The aggregate frame (``bucket``, ``median``, ``q1``, ``q3``).
    found : Findings
        Where it is recorded.

    Examples
    --------
    >>> f = pd.DataFrame({"bucket": ["2024-01", "2024-02", "2024-03", "2024-04"],
    ...                   "median": [None, 2.0, 9.0, None], "q1": [1.0, 3.0, 1.0, None],
    ...                   "q3": [3.0, 1.0, 4.0, None]})
    >>> found = Findings("POST /x")
    >>> statistics_said(f, found)
    >>> for finding in found:
    ...     print(finding.kind, finding.message)
    null_field median null in 1 of 4 buckets whose other statistics hold values (2024-01): kept as served (the interface document gives a bucket median, q1 and q3, all null when suppressed)
    inverted_quartiles 2 of 4 buckets have their quartiles out of order: q1 above q3 in 2024-02; median outside q1..q3 in 2024-02, 2024-03: kept as served
    """
    if len(frame) == 0 or not {"bucket", *STATISTICS} <= set(frame.columns):
        return
    values = {
        name: pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        for name in STATISTICS
    }
    labels = frame["bucket"].astype(str).tolist()
    null = np.column_stack([np.isnan(values[name]) for name in STATISTICS])
    partly = null.any(axis=1) & ~null.all(axis=1)  # all null: suppressed, judged elsewhere
    if partly.any():
        said = []
        for j, name in enumerate(STATISTICS):
            where = np.flatnonzero(partly & null[:, j])
            if len(where):
                said.append(
                    f"{name} null in {len(where)} of {len(frame)} buckets whose other "
                    f"statistics hold values ({first_of([labels[i] for i in where], _NAMED)})"
                )
        found.add(
            "null_field",
            f"{'; '.join(said)}: kept as served (the interface document gives a bucket "
            "median, q1 and q3, all null when suppressed)",
        )
    median, q1, q3 = values["median"], values["q1"], values["q3"]
    with np.errstate(invalid="ignore"):
        crossed = q1 > q3  # NaN compares False: a null quartile is none of these
        outside = (median < q1) | (median > q3)
    if not (crossed | outside).any():
        return
    said = []
    if crossed.any():
        said.append(
            f"q1 above q3 in {first_of([labels[i] for i in np.flatnonzero(crossed)], _NAMED)}"
        )
    if outside.any():
        shown = first_of([labels[i] for i in np.flatnonzero(outside)], _NAMED)
        said.append(f"median outside q1..q3 in {shown}")
    found.add(
        INVERTED,
        f"{int((crossed | outside).sum())} of {len(frame)} buckets have their quartiles out of "
        f"order: {'; '.join(said)}: kept as served",
    )
