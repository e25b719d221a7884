"""Rows of a deals frame that repeat a deal another row holds: a ``concat`` of overlapping
pulls, the sub-collections of several ids stacked (a deal two investors took part in is in
both their ``investments``). :func:`~dealframe.frames.participants.explode_participants`
reads each deal once.

Examples
--------
>>> deals = pd.DataFrame({"id": ["a", "b", "a"], "updated_at": pd.to_datetime([2, 1, 1])})
>>> repeated_rows(deals).tolist()  # the first 'a' is the newer one: kept
[False, False, True]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dealframe.arguments import checked_keywords
from dealframe.contract import surely_distinct

__all__ = ["repeated_rows"]


def _stamps(values: pd.Series) -> pd.Series:
    """``updated_at`` as UTC times to order rows by (NaT where there is none): text in any
    ISO 8601 form (``...Z`` and ``...+00:00`` alike, as a CSV of two pulls may mix them)."""
    if isinstance(values.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(values):
        return pd.to_datetime(values, utc=True)
    try:
        return pd.to_datetime(values, errors="coerce", utc=True, format="ISO8601")
    except (TypeError, ValueError):  # numbers, objects of several kinds
        return pd.to_datetime(values, errors="coerce", utc=True, format="mixed")


@checked_keywords
def repeated_rows(deals: pd.DataFrame) -> np.ndarray | None:
    """Which rows of ``deals`` repeat the ``id`` of another row and are not the one kept of
    it: the newest by ``updated_at`` when the frame has it (the last among equals), else
    the last (a later pull concatenated after an earlier one); None when no id repeats. A
    null or empty id repeats nothing (as :func:`~dealframe.contract.rows_deduped` reads
    keys).

    Examples
    --------
    >>> repeated_rows(pd.DataFrame({"id": ["a", "b", None, None]})) is None
    True
    >>> repeated_rows(pd.DataFrame({"id": ["a", "b", "a"]})).tolist()
    [True, False, False]
    """
    ids = deals["id"].reset_index(drop=True)
    if surely_distinct(ids):  # the usual case, in a few ms for 50,000 ids
        return None
    twice = (ids.notna() & ids.ne("") & ids.duplicated(keep=False)).to_numpy(dtype=bool)
    if not twice.any():
        return None
    at = np.flatnonzero(twice)
    rows = pd.DataFrame({"id": ids.to_numpy(dtype=object)[at]}, index=at)
    if "updated_at" in deals:
        rows["at"] = _stamps(deals["updated_at"].iloc[at]).to_numpy()
        rows = rows.sort_values("at", kind="stable", na_position="first")
    kept = rows.drop_duplicates("id", keep="last").index.to_numpy()
    repeated = twice.copy()
    repeated[kept] = False
    return repeated
