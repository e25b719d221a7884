"""The NM rule: which valuation multiples are not meaningful.

One rule for every multiple the library summarises beside another: the report's tables and
charts (:mod:`dealframe.plot`), and :func:`dealframe.compare_multiples`, which leaves NM
values out of both sides by default. A multiple is NM (not meaningful) when its denominator
(revenue or EBITDA of the same period) is zero or negative, when the enterprise value is
negative, or when the multiple is negative or above its bound (:data:`MULTIPLE_BOUNDS`: 50x
EV/Revenue, 100x EV/EBITDA).

Examples
--------
>>> import pandas as pd
>>> cur = pd.DataFrame({"evEbitdaLtm": [12.0, None, 250.0, None],
...                     "ebitdaLtm": [10.0, 5.0, 1.0, -3.0]})
>>> multiple_status(cur, "evEbitdaLtm").tolist()
['ok', 'n/a', 'NM', 'NM']
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dealframe.errors import ValidationError

__all__ = ["MULTIPLE_BOUNDS", "MULTIPLE_DENOMINATORS", "meaningful", "multiple_status", "numbers"]

#: Upper bound of a meaningful multiple, per Family A field and per deal column: above it the
#: value is shown as "NM" (not meaningful) and left out of medians and quartiles.
MULTIPLE_BOUNDS: dict[str, float] = {
    "evRevenueLtm": 50.0,
    "evRevenueNtm": 50.0,
    "evEbitdaLtm": 100.0,
    "evEbitdaNtm": 100.0,
    "ev_revenue": 50.0,
    "ev_ebitda": 100.0,
}
#: The denominator of each multiple: when it is zero or negative the multiple is "NM".
MULTIPLE_DENOMINATORS: dict[str, str] = {
    "evRevenueLtm": "revenueLtm",
    "evRevenueNtm": "revenueNtm",
    "evEbitdaLtm": "ebitdaLtm",
    "evEbitdaNtm": "ebitdaNtm",
    "ev_revenue": "deal_revenue",
    "ev_ebitda": "deal_ebitda",
}


def numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    """``frame[column]`` as floats, NaN where not a number (all NaN when there is no column)."""
    if column not in frame:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def multiple_status(frame: pd.DataFrame, column: str, bound: float | None = None) -> pd.Series:
    """``"ok"``, ``"NM"`` (not meaningful) or ``"n/a"`` (missing) for each value of a multiple.

    The rule: a multiple is NM when its denominator (revenue or EBITDA of the same period,
    :data:`MULTIPLE_DENOMINATORS`) is zero or negative, when the enterprise value is
    negative, or when the multiple is negative or above ``bound`` (default
    :data:`MULTIPLE_BOUNDS`: 50x for EV/Revenue, 100x for EV/EBITDA); n/a when it is missing
    otherwise.

    Parameters
    ----------
    frame : DataFrame
        ``client.public.current(...)`` (camelCase fields) or a deals frame (``ev_revenue``).
    column : str
        The multiple.
    bound : float, optional
        Replaces the column's default bound.

    Examples
    --------
    >>> deals = pd.DataFrame({"ev_revenue": [4.0, 80.0], "deal_revenue": [2.0, 1.0]})
    >>> multiple_status(deals, "ev_revenue").tolist()
    ['ok', 'NM']
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", "a DataFrame", got=frame)
    if column not in frame:
        raise ValidationError(
            "column", f"a column of the frame (not in {list(frame.columns)[:8]}...)", got=column
        )
    limit = MULTIPLE_BOUNDS.get(column, np.inf) if bound is None else float(bound)
    values = numbers(frame, column)
    denominator = numbers(frame, MULTIPLE_DENOMINATORS.get(column, ""))
    ev = numbers(frame, "enterpriseValue")
    with np.errstate(invalid="ignore"):
        nm = (denominator <= 0) | (ev < 0) | (values < 0) | (values > limit)
    status = np.where(nm, "NM", np.where(np.isnan(values), "n/a", "ok"))
    return pd.Series(status, index=frame.index, name=column, dtype="str")


def meaningful(frame: pd.DataFrame, column: str, bound: float | None = None) -> pd.Series:
    """The values of a multiple with NM and missing values as NaN (see :func:`multiple_status`).

    Examples
    --------
    >>> meaningful(pd.DataFrame({"ev_revenue": [4.0, 80.0, -1.0]}), "ev_revenue").tolist()
    [4.0, nan, nan]
    """
    status = multiple_status(frame, column, bound)
    return pd.Series(
        np.where(status == "ok", numbers(frame, column), np.nan), index=frame.index, name=column
    )
