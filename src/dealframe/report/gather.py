"""Everything the report needs from the service, pulled with a client (the only I/O).

Order matters once: the deal aggregate is asked first, because its
``methodology.date_range`` is the window the service actually used (its own
clock and its default of five years), and every other pull reuses that window.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from dealframe._vocab import AGGREGATE_METRICS, REGIONS
from dealframe.errors import ValidationError

from .progress import Progress

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["DEFAULT_GROUP", "HISTORY_FIELD", "Group", "ReportData", "check_metric", "gather",
           "parse_group", "parse_window"]

#: The group of the report when none is given.
DEFAULT_GROUP: Mapping[str, str] = {"region": "Western Europe"}
#: Time-series field of the valuation history.
HISTORY_FIELD = "evRevenueNtm"


@dataclass(frozen=True)
class Group:
    """A group of companies: one region (vocabulary of section 4.4) or one vertical."""

    kind: str
    value: str

    @property
    def label(self) -> str:
        """Human label, e.g. ``"region Western Europe"``."""
        return f"{self.kind} {self.value}"

    def public_filters(self) -> dict[str, list[str]]:
        """The Family A search/group filters naming this group."""
        return {"regions": [self.value]} if self.kind == "region" else {"industries": [self.value]}

    def deal_filters(self) -> dict[str, list[str]]:
        """The Family B deal filters naming this group's targets."""
        if self.kind == "region":
            return {"target_region": [self.value]}
        return {"target_verticals": [self.value]}


def parse_group(group: Any) -> Group:
    """A :class:`Group` from ``{"region": R}`` or ``{"vertical": V}``.

    Raises
    ------
    dealframe.errors.ValidationError
        Not a one-key mapping of region/vertical, an unknown region or an empty vertical.

    Examples
    --------
    >>> parse_group({"vertical": "Fintech"}).public_filters()
    {'industries': ['Fintech']}
    """
    if isinstance(group, Group):
        return group
    expected = 'a mapping with one key, "region" or "vertical", e.g. {"region": "Western Europe"}'
    if not isinstance(group, Mapping) or len(group) != 1:
        raise ValidationError("group", expected, got=group)
    (kind, value), = group.items()
    if kind not in ("region", "vertical"):
        raise ValidationError("group", expected, got=dict(group))
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"group.{kind}", "a non-empty string", got=value)
    if kind == "region" and value not in REGIONS:
        raise ValidationError("group.region", f"one of {', '.join(REGIONS)}", got=value)
    return Group(kind, value)


def _iso_date(value: Any, argument: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dt.date, pd.Timestamp)):
        return pd.Timestamp(value).date().isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise ValidationError(argument, "a date YYYY-MM-DD", got=value)


def parse_window(window: Any) -> tuple[str | None, str | None]:
    """``(date_from, date_to)`` as ISO dates (either may be None: the service's default).

    Examples
    --------
    >>> parse_window(("2022-01-01", None))
    ('2022-01-01', None)
    """
    if window is None:
        return None, None
    if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
        raise ValidationError("window", "a pair (date_from, date_to); None for a default end",
                              got=window)
    start, end = _iso_date(window[0], "window[0]"), _iso_date(window[1], "window[1]")
    if start is not None and end is not None and start > end:
        raise ValidationError("window", f"date_from not after date_to ({end})", got=start)
    return start, end


def check_metric(metric: Any) -> str:
    """The aggregate metric, checked against the interface's list."""
    if metric not in AGGREGATE_METRICS:
        raise ValidationError("metric", f"one of {', '.join(AGGREGATE_METRICS)}", got=metric)
    return str(metric)


@dataclass
class ReportData:
    """The frames behind the report, exactly as the client returned them."""

    group: Group
    metric: str
    date_from: str
    date_to: str
    members: pd.DataFrame
    current: pd.DataFrame
    group_current: pd.DataFrame
    history: pd.DataFrame
    aggregate: pd.DataFrame
    deals: pd.DataFrame
    source: str

    @property
    def deal_filters(self) -> dict[str, Any]:
        """The deal filters (group and window) used for the aggregate and the deals."""
        return {**self.group.deal_filters(), "date_from": self.date_from, "date_to": self.date_to}


def gather(client: Client, group: Group, window: tuple[str | None, str | None], metric: str,
           progress: Progress) -> ReportData:
    """Pull the aggregate, the group's public data and the deals of the window.

    Raises
    ------
    dealframe.errors.ValidationError
        The group has no listed company.
    dealframe.errors.DealframeError
        Anything the client raises (authentication, transport, ...).
    """
    start, end = window
    with progress.stage(f"deal aggregate ({metric} by quarter)") as st:
        filters: dict[str, Any] = dict(group.deal_filters())
        if start is not None:
            filters["date_from"] = start
        if end is not None:
            filters["date_to"] = end
        aggregate = client.private.aggregate(metric, "quarter", filters)
        used = (aggregate.attrs.get("methodology") or {}).get("date_range") or {}
        date_from, date_to = used.get("from") or start, used.get("to") or end
        if date_from is None or date_to is None:
            raise ValidationError("service", "an aggregate whose meta reports "
                                  "methodology.date_range", got=aggregate.attrs.get("methodology"))
        st.done(f"{len(aggregate)} quarters, window {date_from} .. {date_to}")
    with progress.stage(f"public comps for {group.label}") as st:
        members = client.public.search(**group.public_filters())
        if not len(members):
            raise ValidationError(f"group.{group.kind}", "a group with at least one listed "
                                  "company", got=group.value)
        current = client.public.current(members.index, progress=False)
        group_current = client.public.group_current(**group.public_filters())
        st.done(f"{len(current)} companies")
    with progress.stage("valuation history") as st:
        # The interface document lists groups/time-series under /api/v1 only (groups/current
        # under /api/v2 only); a group body holds no SKU, so the version changes nothing else.
        history = client.public_v1.group_time_series(fields=[HISTORY_FIELD], date_from=date_from[:7],
                                                  date_to=date_to[:7], **group.public_filters())
        st.done(f"{len(history)} months")
    with progress.stage("deals of the window") as st:
        deals = client.private.deals({**group.deal_filters(), "date_from": date_from,
                                      "date_to": date_to}, progress=False)
        st.done(f"{len(deals):,} deals")
    return ReportData(group=group, metric=metric, date_from=date_from, date_to=date_to,
                      members=members, current=current, group_current=group_current,
                      history=history, aggregate=aggregate, deals=deals,
                      source=str(client.settings.base_url))
