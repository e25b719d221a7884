"""Family A group computations of the sandbox (docs/sandbox.md, "Family A").

``groups/current`` sums and medians current-data fields over a group of
companies; ``groups/time-series`` takes the monthly median of each field over
the group. Both are pure functions: the routes choose the group's companies
and hand their data here.

Field classes (interface section 2.1):

- sum only: ``marketCap``, ``enterpriseValue``;
- sum and median: ``revenueLtm``, ``revenueNtm``, ``ebitdaLtm``, ``ebitdaNtm``;
- median only: every other numeric field, including the local-currency variants
  (``*Lcu``, whose median mixes currencies), ``rateToUsd`` and numeric extras such
  as ``employeeCount``.

Nulls (and non-finite numbers) are skipped; a field with no value gives
``None``. Medians are ordinary medians (mean of the two middle values for an
even count); sums are correctly rounded (``math.fsum``).
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from ..vocab import GROUP_SUM_AND_MEDIAN, GROUP_SUM_ONLY

__all__ = [
    "CURRENT_NUMERIC_FIELDS",
    "GroupInputError",
    "group_current",
    "group_time_series",
]

#: Numeric current-data fields the sandbox serves (document and docs/sandbox.md extras).
#: They always appear in the output, even when every company's value is null.
CURRENT_NUMERIC_FIELDS: tuple[str, ...] = (
    "marketCap",
    "enterpriseValue",
    "revenueLtm",
    "revenueNtm",
    "ebitdaLtm",
    "ebitdaNtm",
    "evRevenueLtm",
    "evRevenueNtm",
    "evEbitdaLtm",
    "evEbitdaNtm",
    "marginGrossLtm",
    "marginEbitdaLtm",
    "marginEbitdaNtm",
    "revenueGrowthNtmLtm",
    "revenueGrowthLtm",
    "ruleOf40Ltm",
    "ruleOf40",
    "rateToUsd",
    *(f"{name}Lcu" for name in (*GROUP_SUM_ONLY, *GROUP_SUM_AND_MEDIAN)),
    "employeeCount",
)


class GroupInputError(ValueError):
    """Bad input to a group computation: the message starts with the field it names."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _is_number(value: object) -> bool:
    """True for a finite int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _numeric_fields(records: list[dict]) -> list[str]:
    """The known numeric fields, then any other numeric field in order of appearance."""
    fields = list(CURRENT_NUMERIC_FIELDS)
    seen = set(fields)
    for record in records:
        for name, value in record.items():
            if name not in seen and _is_number(value):
                seen.add(name)
                fields.append(name)
    return fields


def group_current(records: list[dict]) -> tuple[dict, dict]:
    """Sum and median of current-data fields over a group of companies.

    Parameters
    ----------
    records : list of dict
        The group's CompanyCurrentData items (camelCase keys).

    Returns
    -------
    data : dict
        ``{"sum": {field: number or None}, "median": {field: number or None}}``.
        ``sum`` holds the sum-only and sum-and-median fields; ``median`` holds
        the sum-and-median fields and every other numeric field (``*Lcu``
        variants and ``rateToUsd`` included).
    meta : dict
        ``{"count": n_companies, "companies": n_companies}``.

    Examples
    --------
    >>> data, meta = group_current([
    ...     {"sku": "A-USA", "marketCap": 10.0, "revenueLtm": 2.0, "evRevenueLtm": 4.0},
    ...     {"sku": "B-USA", "marketCap": 5.0, "revenueLtm": None, "evRevenueLtm": 6.0},
    ... ])
    >>> data["sum"]["marketCap"], data["sum"]["revenueLtm"], data["median"]["evRevenueLtm"]
    (15.0, 2.0, 5.0)
    >>> "marketCap" in data["median"], data["median"]["ruleOf40"], meta
    (False, None, {'count': 2, 'companies': 2})
    >>> data, _ = group_current([{"marketCapLcu": 9.0, "rateToUsd": 1.0},
    ...                          {"marketCapLcu": 7.0, "rateToUsd": 1.5}])
    >>> data["median"]["marketCapLcu"], data["median"]["rateToUsd"], "marketCapLcu" in data["sum"]
    (8.0, 1.25, False)
    """
    sums: dict[str, float | None] = {}
    medians: dict[str, float | None] = {}
    for name in _numeric_fields(records):
        values = [float(r[name]) for r in records if _is_number(r.get(name))]
        if name in GROUP_SUM_ONLY or name in GROUP_SUM_AND_MEDIAN:
            sums[name] = math.fsum(values) if values else None
        if name not in GROUP_SUM_ONLY:
            medians[name] = float(statistics.median(values)) if values else None
    n = len(records)
    return {"sum": sums, "median": medians}, {"count": n, "companies": n}


def _month_range_mask(months: list[str], date_from: str | None, date_to: str | None) -> np.ndarray:
    """Boolean mask of ``YYYY-MM`` months inside the inclusive range (string order is date order)."""
    lo = date_from if date_from is not None else ""
    hi = date_to if date_to is not None else "9999-99"
    return np.array([lo <= m <= hi for m in months], dtype=bool)


def group_time_series(
    values: np.ndarray,
    fields: list[str],
    months: list[str],
    *,
    field_subset: list[str] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
) -> tuple[list[dict], dict]:
    """Monthly median of each time-series field over a group of companies.

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(companies, fields, months)``, NaN where a company has no value.
    fields : list of str
        Field names of axis 1.
    months : list of str
        ``YYYY-MM`` labels of axis 2, in chronological order.
    field_subset : list of str, optional
        Fields to report (default all), in the order given.
    date_from, date_to : str, optional
        Inclusive ``YYYY-MM`` bounds; omitted means unbounded.

    Returns
    -------
    data : list of dict
        ``{"period": "YYYY-MM", "median": {field: number or None}}`` for each month
        in range that has at least one value in a requested field.
    meta : dict
        ``{"count": n_periods, "companies": n_companies}``.

    Raises
    ------
    GroupInputError
        On a shape mismatch or a field not in ``fields``.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([[[1.0, np.nan, np.nan]], [[3.0, 4.0, np.nan]]])  # 2 companies, 1 field
    >>> group_time_series(v, ["evRevenueLtm"], ["2024-01", "2024-02", "2024-03"])
    ([{'period': '2024-01', 'median': {'evRevenueLtm': 2.0}}, {'period': '2024-02', 'median': {'evRevenueLtm': 4.0}}], {'count': 2, 'companies': 2})
    """
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 3 or arr.shape[1:] != (len(fields), len(months)):
        raise GroupInputError(
            "values",
            f"shape {arr.shape} does not match (companies, {len(fields)}, {len(months)})",
        )
    wanted = list(fields) if field_subset is None else list(field_subset)
    position = {name: i for i, name in enumerate(fields)}
    for name in wanted:
        if name not in position:
            raise GroupInputError("fields", f"{name!r} is not one of {', '.join(fields)}")
    n_companies = arr.shape[0]
    month_mask = _month_range_mask(months, date_from, date_to)
    sub = arr[:, [position[name] for name in wanted], :][:, :, month_mask]
    periods = [m for m, keep in zip(months, month_mask) if keep]

    if n_companies == 0 or sub.size == 0:
        return [], {"count": 0, "companies": n_companies}
    # (fields, months); numpy warns about an all-NaN slice, so only the others are asked,
    # and a slice whose median is not a number (+inf beside -inf) has none
    has_value = np.asarray(~np.isnan(sub).all(axis=0), dtype=bool)
    medians = np.full(has_value.shape, np.nan)
    with np.errstate(invalid="ignore"):
        medians[has_value] = np.nanmedian(sub[:, has_value], axis=0)
    has_value &= ~np.isnan(medians)

    data: list[dict] = []
    for j in np.flatnonzero(has_value.any(axis=0)):
        median = {
            name: (float(medians[i, j]) if has_value[i, j] else None)
            for i, name in enumerate(wanted)
        }
        data.append({"period": periods[j], "median": median})
    return data, {"count": len(data), "companies": n_companies}
