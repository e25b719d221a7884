"""Private deal multiples of a cohort beside the public comps of the same cohort, in one call.

A cohort is a region, a vertical (Family B's ``target_verticals``, Family A's
``industries``) and a period. :func:`compare_multiples` pulls the cohort's deals
(``client.private.deals``) and its public comps (``client.public.search`` then
``current``), links the comps to their Family B companies (:mod:`dealframe.link`), and
summarises each multiple on both sides with the same statistic: the service's aggregate
rule (IQR-trimmed median, q1 and q3, small buckets suppressed), computed by
:func:`dealframe.analytics.bucket_medians` over the whole period.

The pairs compared are deal EV/revenue with public EV/revenue LTM (``evRevenueLtm``), and
deal EV/EBITDA with public EV/EBITDA LTM (``evEbitdaLtm``): a deal's multiple is its
valuation over the revenue (EBITDA) reported with the deal, the public one enterprise value
over the last twelve months.

Examples
--------
>>> sorted(PAIRS)
['ev_ebitda', 'ev_revenue']
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from dealframe.analytics.buckets import bucket_medians, service_methodology
from dealframe.analytics.periods import resolve_window
from dealframe.arguments import DateLike, checked_keywords
from dealframe.errors import ValidationError
from dealframe.frames.normalize import build_frame
from dealframe.frames.public import current_frame
from dealframe.frames.schemas import LINK
from dealframe.link import companies_for_skus

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["PAIRS", "Comparison", "compare_multiples", "summarise"]

#: Private deal multiple -> the public current-data field it is compared with.
PAIRS: dict[str, str] = {"ev_revenue": "evRevenueLtm", "ev_ebitda": "evEbitdaLtm"}


class Comparison(NamedTuple):
    """What :func:`compare_multiples` returns.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per multiple (index ``metric``): ``public_field``, then ``n``, ``median``,
        ``q1``, ``q3`` and ``warning`` of each side (``private_*``, ``public_*``), and
        ``private_to_public`` (private median over public median). ``attrs`` hold the cohort
        and the window.
    deals : pandas.DataFrame
        The cohort's deals (``client.private.deals``).
    comps : pandas.DataFrame
        The cohort's public comps (``client.public.current``, index ``sku``), with
        ``company_id``, ``match`` and ``link_evidence`` from :func:`dealframe.companies_for_skus`.
    """

    summary: pd.DataFrame
    deals: pd.DataFrame
    comps: pd.DataFrame


def _strings(value: Any, argument: str) -> list[str] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if (
        not isinstance(items, Iterable)
        or isinstance(items, dict)
        or not all(isinstance(v, str) and v.strip() for v in items)
        or not list(items)
    ):
        raise ValidationError(argument, "a name or a list of names", got=value)
    return list(items)


def _side(
    values: pd.DataFrame,
    metric: str,
    column: str,
    date_column: str,
    start: DateLike,
    end: DateLike,
    threshold: int,
) -> dict[str, Any]:
    out = bucket_medians(
        values,
        metric,
        "none",
        start,
        end,
        small_n_threshold=threshold,
        date_column=date_column,
        value_column=column,
    )
    row = out.iloc[0] if len(out) else pd.Series(dtype=object)
    return {k: row.get(k) for k in ("n", "median", "q1", "q3", "warning")}


def summarise(
    deals: pd.DataFrame, comps: pd.DataFrame, start: DateLike, end: DateLike, threshold: int = 5
) -> pd.DataFrame:
    """The summary of a :class:`Comparison` from its two frames (pure).

    Parameters
    ----------
    deals : pandas.DataFrame
        Deals with ``deal_date`` and the ``ev_revenue``/``ev_ebitda`` columns.
    comps : pandas.DataFrame
        Current data with ``evRevenueLtm``/``evEbitdaLtm``.
    start, end : date-like
        The period: deals outside it are left out; comps count as of ``end``.
    threshold : int, default 5
        Fewer values than this give no median (``warning`` ``small_n``), as in the
        service's aggregate.

    Examples
    --------
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-03-01"] * 5),
    ...                       "ev_revenue": [4.0, 5, 6, 7, 8], "ev_ebitda": [np.nan] * 5})
    >>> comps = pd.DataFrame({"evRevenueLtm": [2.0, 3, 4, 5, 6], "evEbitdaLtm": [9.0] * 5})
    >>> s = summarise(deals, comps, "2024-01-01", "2024-12-31")
    >>> s.loc["ev_revenue", ["private_median", "public_median", "private_to_public"]].tolist()
    [6.0, 4.0, 1.5]
    """
    on = pd.Timestamp(end).to_datetime64().astype("datetime64[us]")
    rows = []
    for metric, field in PAIRS.items():
        private = _side(deals, metric, metric, "deal_date", start, end, threshold)
        values = comps[field] if field in comps else pd.Series(np.nan, index=comps.index)
        public = _side(
            pd.DataFrame(
                {
                    "on": np.full(len(comps), on),
                    "value": values.to_numpy(dtype=float, na_value=np.nan),
                }
            ),
            metric,
            "value",
            "on",
            start,
            end,
            threshold,
        )
        ratio = (
            private["median"] / public["median"]
            if pd.notna(private["median"]) and pd.notna(public["median"]) and public["median"] != 0
            else np.nan
        )
        rows.append(
            {
                "metric": metric,
                "public_field": field,
                **{f"private_{k}": v for k, v in private.items()},
                **{f"public_{k}": v for k, v in public.items()},
                "private_to_public": ratio,
            }
        )
    frame = pd.DataFrame(rows).set_index("metric")
    for side in ("private", "public"):
        frame[f"{side}_n"] = frame[f"{side}_n"].astype("Int64")
        for k in ("median", "q1", "q3"):
            frame[f"{side}_{k}"] = frame[f"{side}_{k}"].astype(float)
        frame[f"{side}_warning"] = frame[f"{side}_warning"].astype("str")
    frame["public_field"] = frame["public_field"].astype("str")
    frame["private_to_public"] = frame["private_to_public"].astype(float)
    frame.index = frame.index.astype("str")
    return frame


@checked_keywords
def compare_multiples(
    client: Client,
    *,
    region: str | list[str] | None = None,
    vertical: str | list[str] | None = None,
    date_from: DateLike | None = None,
    date_to: DateLike | None = None,
    deal_type: str | list[str] | None = None,
    link: bool = True,
) -> Comparison:
    """Private deal multiples of a cohort beside the public comps of the same cohort.

    Parameters
    ----------
    client : dealframe.Client
    region : str or list of str, optional
        Region(s) of the interface document's vocabulary: the deals' ``target_region``,
        the comps' ``regions``.
    vertical : str or list of str, optional
        Vertical(s): the deals' ``target_verticals``, the comps' ``industries``.
    date_from, date_to : date-like, optional
        The period of the deals (inclusive). By default the service's aggregate window: the
        five years to its current date.
    deal_type : str or list of str, optional
        Deal types of the private side (default: every type).
    link : bool, default True
        Add each comp's Family B ``company_id`` (:func:`dealframe.companies_for_skus`), so
        the comps' own private rounds can be looked up.

    Returns
    -------
    Comparison
        ``(summary, deals, comps)``; ``summary`` has one row per multiple, the private and
        the public statistics side by side.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the argument, before any request where it can be known.

    Examples
    --------
    >>> cmp = dealframe.compare_multiples(client, region="Western Europe", vertical="Fintech",
    ...                                   date_from="2023-01-01")  # doctest: +SKIP
    >>> cmp.summary[["private_n", "private_median", "public_n", "public_median",
    ...              "private_to_public"]]  # doctest: +SKIP
    """
    regions = _strings(region, "region")
    verticals = _strings(vertical, "vertical")
    deal_types = _strings(deal_type, "deal_type")
    if not isinstance(link, bool):
        raise ValidationError("link", "True or False", got=link)
    # a bad date (or order) is refused before any request; the service's date comes after
    resolve_window(date_from, date_to, as_of=dt.date.max, time_bucket="none")
    threshold, today = service_methodology(client)
    start, end = resolve_window(date_from, date_to, as_of=today, time_bucket="none")
    deals = client.private.deals(
        date_from=start,
        date_to=end,
        target_region=regions,
        target_verticals=verticals,
        deal_type=deal_types,
    )
    found = client.public.search(regions=regions, industries=verticals)
    comps = client.public.current(list(found.index)) if len(found) else current_frame([])
    if link:  # no comps: the same columns, no rows
        links = (
            companies_for_skus(client, list(comps.index)) if len(comps) else build_frame([], LINK)
        ).set_index("query")
        comps = comps.assign(
            company_id=links["company_id"].reindex(comps.index),
            match=links["match"].reindex(comps.index),
            link_evidence=links["evidence"].reindex(comps.index),
        )
    summary = summarise(deals, comps, start, end, threshold)
    summary.attrs.update(
        {
            "region": regions,
            "vertical": verticals,
            "deal_type": deal_types,
            "date_from": start.isoformat(),
            "date_to": end.isoformat(),
            "small_n_threshold": threshold,
            "deals": len(deals),
            "comps": len(comps),
        }
    )
    return Comparison(summary, deals, comps)
