"""The report's tables, built from the frames the client returned (pure: no I/O).

Each function takes client frames and returns a plain DataFrame that is both
shown in the HTML and written as Parquet and CSV, so what a reader sees is
exactly what the files hold.

Examples
--------
>>> import pandas as pd
>>> cur = pd.DataFrame({"name": ["A", "B"], "enterpriseValue": [1.0, 5.0]},
...                    index=pd.Index(["A-USA", "B-USA"], name="sku"))
>>> comps_table(cur).index.tolist()
['B-USA', 'A-USA']
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dealframe._vocab import DEAL_TYPES
from dealframe.analytics import bucket_medians
from dealframe.analytics.reconcile import compare_buckets

__all__ = [
    "COMPS_COLUMNS",
    "ROLLUP_FIELDS",
    "co_investment_pairs",
    "comps_table",
    "deal_activity",
    "quarter_labels",
    "reconciliation_table",
    "rollup_table",
    "top_investors",
]

#: Columns of the comps table, in order (those the service does not send are left out).
COMPS_COLUMNS: tuple[str, ...] = (
    "name", "country", "marketCap", "enterpriseValue", "revenueLtm", "revenueNtm", "ebitdaLtm",
    "evRevenueLtm", "evRevenueNtm", "evEbitdaLtm", "evEbitdaNtm", "marginGrossLtm",
    "marginEbitdaLtm", "revenueGrowthNtmLtm", "ruleOf40",
)
#: Fields of the group rollup shown in the report (the Parquet file holds every field).
ROLLUP_FIELDS: tuple[str, ...] = (
    "marketCap", "enterpriseValue", "revenueLtm", "revenueNtm", "ebitdaLtm", "ebitdaNtm",
    "evRevenueLtm", "evRevenueNtm", "evEbitdaLtm", "evEbitdaNtm", "marginGrossLtm",
    "marginEbitdaLtm", "revenueGrowthNtmLtm", "ruleOf40",
)


def comps_table(current: pd.DataFrame) -> pd.DataFrame:
    """The comps: one row per company of the group, largest enterprise value first.

    Parameters
    ----------
    current : DataFrame
        ``client.public.current(skus)`` (index ``sku``).

    Returns
    -------
    DataFrame
        The :data:`COMPS_COLUMNS` present in ``current``, values unchanged,
        sorted by ``enterpriseValue`` descending (missing last), then SKU.

    Examples
    --------
    >>> cur = pd.DataFrame({"name": ["A"], "evRevenueNtm": [2.0], "tags": [["x"]]},
    ...                    index=pd.Index(["A-USA"], name="sku"))
    >>> list(comps_table(cur).columns)
    ['name', 'evRevenueNtm']
    """
    columns = [c for c in COMPS_COLUMNS if c in current.columns]
    table = current[columns].copy()
    table.attrs = {}
    if "enterpriseValue" in table:
        order = np.lexsort((table.index.to_numpy(dtype=object).astype(str),
                            -table["enterpriseValue"].to_numpy(dtype=float, na_value=np.nan)))
        ev_missing = table["enterpriseValue"].isna().to_numpy()
        order = np.concatenate([order[~ev_missing[order]], order[ev_missing[order]]])
        table = table.iloc[order]
    return table


def rollup_table(group_current: pd.DataFrame) -> pd.DataFrame:
    """The service's group sums and medians, restricted to the comps' fields.

    Examples
    --------
    >>> gc = pd.DataFrame({"sum": [3.0, np.nan], "median": [np.nan, 1.5]},
    ...                   index=pd.Index(["marketCap", "employeeCount"], name="field"))
    >>> rollup_table(gc).index.tolist()
    ['marketCap']
    """
    fields = [f for f in ROLLUP_FIELDS if f in group_current.index]
    table = group_current.loc[fields, ["sum", "median"]].copy()
    table.attrs = {}
    return table


def quarter_labels(date_from: Any, date_to: Any) -> list[str]:
    """Every ``YYYY-Qn`` label from the quarter of ``date_from`` to that of ``date_to``.

    Examples
    --------
    >>> quarter_labels("2024-02-10", "2024-12-31")
    ['2024-Q1', '2024-Q2', '2024-Q3', '2024-Q4']
    """
    periods = pd.period_range(pd.Period(date_from, "Q"), pd.Period(date_to, "Q"), freq="Q")
    return [f"{p.year}-Q{p.quarter}" for p in periods]


def deal_activity(deals: pd.DataFrame, date_from: Any, date_to: Any) -> pd.DataFrame:
    """Deal counts per quarter of the window and deal type (every quarter, zeros included).

    Returns
    -------
    DataFrame
        Index ``quarter`` (``YYYY-Qn``, the aggregate's labels), one int64
        column per deal type (the vocabulary first, then any new type), and
        ``total``.

    Examples
    --------
    >>> d = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-05", "2024-05-01"]),
    ...                   "deal_type": ["M&A", "Venture"]})
    >>> deal_activity(d, "2024-01-01", "2024-06-30")[["M&A", "Venture", "total"]].values.tolist()
    [[1, 0, 1], [0, 1, 1]]
    """
    labels = quarter_labels(date_from, date_to)
    dates = pd.to_datetime(deals["deal_date"]) if len(deals) else pd.Series([], dtype="datetime64[us]")
    quarters = dates.dt.to_period("Q")
    label = [f"{p.year}-Q{p.quarter}" if p is not pd.NaT else None for p in quarters]
    types = deals["deal_type"].astype("object") if len(deals) else pd.Series([], dtype=object)
    seen = [t for t in pd.unique(types.dropna()) if t not in DEAL_TYPES]
    columns = list(DEAL_TYPES) + sorted(seen)
    counts = pd.crosstab(pd.Series(label, index=deals.index, name="quarter"),
                         pd.Series(types, index=deals.index, name="deal_type")) if len(deals) \
        else pd.DataFrame()
    table = counts.reindex(index=labels, columns=columns, fill_value=0).fillna(0).astype("int64")
    table.index.name = "quarter"
    table.columns = pd.Index([str(c) for c in table.columns], name=None)
    table["total"] = table.sum(axis=1)
    return table


def reconciliation_table(service: pd.DataFrame, deals: pd.DataFrame, metric: str,
                         time_bucket: str = "quarter") -> pd.DataFrame:
    """The service's aggregate beside the same buckets recomputed locally from ``deals``.

    The steps of :func:`dealframe.analytics.reconcile`, on deals already pulled
    with the aggregate's filters and window: :func:`~dealframe.analytics.bucket_medians`
    with the service's window and ``small_n_threshold``, then
    :func:`~dealframe.analytics.reconcile.compare_buckets`.

    Returns
    -------
    DataFrame
        ``compare_buckets``' frame (bucket, ``<stat>_service/_local/_diff``,
        ``match``); ``attrs`` ``matched``, ``buckets``, ``summary``.

    Examples
    --------
    >>> svc = bucket_medians(pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 5),
    ...     "ev_revenue": [1.0, 2, 3, 4, 5]}), "ev_revenue", "year", "2024-01-01", "2024-12-31")
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-01-02"] * 5),
    ...                       "ev_revenue": [1.0, 2, 3, 4, 5]})
    >>> svc.attrs["methodology"]["date_range"] = {"from": "2024-01-01", "to": "2024-12-31"}
    >>> reconciliation_table(svc, deals, "ev_revenue", "year").attrs["summary"]
    '1 of 1 buckets match'
    """
    methodology = service.attrs.get("methodology") or {}
    window = methodology.get("date_range") or {}
    local = bucket_medians(deals, metric, time_bucket, window.get("from"), window.get("to"),
                           small_n_threshold=int(methodology.get("small_n_threshold", 5)))
    frame = compare_buckets(service, local)
    matched, total = int(frame["match"].sum()), len(frame)
    frame.attrs = {"matched": matched, "buckets": total,
                   "summary": f"{matched} of {total} buckets match",
                   "total_deals": (service.attrs.get("total_deals"), local.attrs.get("total_deals")),
                   "outliers_trimmed": (service.attrs.get("outliers_trimmed"),
                                        local.attrs.get("outliers_trimmed"))}
    return frame


def _participant_counts(exploded: pd.DataFrame, role: str) -> pd.Series:
    rows = exploded[exploded["role"] == role]
    return rows.drop_duplicates(["deal_id", "participant_id"]).groupby(
        "participant_id", sort=False, observed=True).size()


def top_investors(exploded: pd.DataFrame, n: int = 15) -> pd.DataFrame:
    """The ``n`` participants with the most deals led (funding rounds) or bought (M&A).

    Parameters
    ----------
    exploded : DataFrame
        :func:`dealframe.explode_participants` of a deals frame.
    n : int
        Rows kept.

    Returns
    -------
    DataFrame
        ``participant_id``, ``name``, ``country``, ``led``, ``bought``,
        ``deals`` (distinct deals in either role), ``first_deal``,
        ``last_deal``; most deals first, then name and id.

    Examples
    --------
    >>> ex = pd.DataFrame({"deal_id": ["d1", "d2", "d2"],
    ...     "role": ["lead_investor", "lead_investor", "lead_investor"],
    ...     "participant_id": ["a", "a", "b"], "participant_name": ["A", "A", "B"],
    ...     "participant_country": ["USA", "USA", None],
    ...     "deal_date": pd.to_datetime(["2024-01-01", "2024-02-01", "2024-02-01"])})
    >>> top_investors(ex)[["participant_id", "led", "deals"]].values.tolist()
    [['a', 2, 2], ['b', 1, 1]]
    """
    rows = exploded[exploded["role"].isin(["lead_investor", "buyer"])
                    & exploded["participant_id"].notna()]
    columns = ["participant_id", "name", "country", "led", "bought", "deals", "first_deal",
               "last_deal"]
    if not len(rows):
        empty = pd.DataFrame({c: pd.Series([], dtype="str") for c in columns[:3]})
        for c in ("led", "bought", "deals"):
            empty[c] = pd.Series([], dtype="int64")
        for c in ("first_deal", "last_deal"):
            empty[c] = pd.Series([], dtype="datetime64[us]")
        return empty
    grouped = rows.groupby("participant_id", sort=False)
    table = pd.DataFrame({
        "name": grouped["participant_name"].first(),
        "country": grouped["participant_country"].first(),
        "led": _participant_counts(rows, "lead_investor"),
        "bought": _participant_counts(rows, "buyer"),
        "deals": grouped["deal_id"].nunique(),
        "first_deal": grouped["deal_date"].min(),
        "last_deal": grouped["deal_date"].max(),
    })
    for c in ("led", "bought", "deals"):
        table[c] = table[c].fillna(0).astype("int64")
    table.index.name = "participant_id"
    table = table.reset_index()
    table["participant_id"] = table["participant_id"].astype("str")
    for c in ("name", "country"):
        table[c] = table[c].astype("str")
    table = table.sort_values(["deals", "name", "participant_id"], ascending=[False, True, True],
                              kind="stable", ignore_index=True)
    return table.head(n)[columns]


def co_investment_pairs(edges: pd.DataFrame, n: int = 15) -> pd.DataFrame:
    """The ``n`` pairs that shared the most deals (``co_investment_edges`` is sorted so).

    Examples
    --------
    >>> e = pd.DataFrame({"investor_a": ["a", "a"], "investor_b": ["b", "c"],
    ...                   "shared_deals": [3, 1]})
    >>> co_investment_pairs(e, 1)["investor_b"].tolist()
    ['b']
    """
    table = edges.head(n).reset_index(drop=True)
    table.attrs = {}
    return table

