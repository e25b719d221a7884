"""Months of a Family A time-series answer outside the window its request sent: dropped, and
said.

``dateFrom`` and ``dateTo`` bound the months a time-series request asks for (inclusive,
``YYYY-MM``). A service that ignores them, or reads them otherwise, answers 200 with months
outside: the wide frame's index is the window, so they were dropped there without a word, and
counted as values all the same, so an answer holding months outside alone gave an empty frame
and no warning. They are now left out of what is read (both shapes, and what counts as a value
of a field asked for), and said in one ``unrequested`` finding naming ``dateFrom``/``dateTo``
and how many months were dropped, as Family B list rows outside the filters sent are
(:func:`dealframe.private.outside.drop_outside`). A key that names no month is kept: the
frame reader refuses it.

Examples
--------
>>> from dealframe.contract import Findings
>>> found = Findings("POST /api/v2/companies/time-series")
>>> items = [{"sku": "A-USA", "data": {"pe": {"2001-01": 1.0, "2024-02": 2.0}}}]
>>> series_in_window(items, "2024-01", None, found)
[{'sku': 'A-USA', 'data': {'pe': {'2024-02': 2.0}}}]
>>> found.items[0].message
'1 month (2001-01) outside the window sent (dateFrom 2024-01): 1 value of 1 SKU dropped (does the service read dateFrom/dateTo?)'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dealframe.contract import Findings
from dealframe.frames.public import month_ordinal

__all__ = ["periods_in_window", "series_in_window"]


def _bounds(date_from: str | None, date_to: str | None) -> tuple[int | None, int | None]:
    """The window's first and last month ordinals (None: that end not sent)."""
    lo = month_ordinal(date_from) if date_from is not None else None
    hi = month_ordinal(date_to) if date_to is not None else None
    return lo, hi


def _sent(date_from: str | None, date_to: str | None) -> str:
    """The window as the request sent it (``dateFrom 2024-01, dateTo 2024-06``)."""
    ends = [f"{name} {value}" for name, value in (("dateFrom", date_from), ("dateTo", date_to))]
    return ", ".join(end for end, value in zip(ends, (date_from, date_to)) if value is not None)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _months(keys: dict[str, None]) -> str:
    """The months dropped, as a finding names them: the first and last (sorted), and how many."""
    shown = sorted(keys)
    span = shown[0] if len(shown) == 1 else f"{shown[0]} ... {shown[-1]}"
    return f"{_plural(len(shown), 'month')} ({span})"


class _Outside:
    """Whether a month key lies outside the window (each key parsed once)."""

    def __init__(self, lo: int | None, hi: int | None) -> None:
        self.lo, self.hi = lo, hi
        self.seen: dict[Any, bool] = {}
        #: The keys seen that are not outside: a series of only these is compared at C speed.
        self.kept: set[Any] = set()

    def __call__(self, key: Any) -> bool:
        if not isinstance(key, str):  # no month: the frame reader refuses it
            return False
        known = self.seen.get(key)
        if known is None:
            month = month_ordinal(key)
            known = month is not None and (
                (self.lo is not None and month < self.lo)
                or (self.hi is not None and month > self.hi)
            )
            self.seen[key] = known
            if not known:
                self.kept.add(key)
        return known

    def any_in(self, series: Mapping[Any, Any]) -> bool:
        """Whether a key of ``series`` lies outside (the usual series, every key one seen
        inside before, at C speed)."""
        return not series.keys() <= self.kept and any(map(self, series))


def series_in_window(
    items: list[Mapping[str, Any]],
    date_from: str | None,
    date_to: str | None,
    found: Findings,
) -> list[Mapping[str, Any]]:
    """Company time-series ``items`` with the months of each series outside the window sent
    left out (an item whose series all lie outside keeps its ``data``, its series empty: its
    SKU was returned), said to ``found`` in one ``unrequested`` finding; ``items`` themselves
    when no month lies outside, or no window was sent.

    Parameters
    ----------
    items : list of dict
        The items read (:func:`dealframe.public.api.read_company_items`), each with ``data``.
    date_from, date_to : str or None
        The ``dateFrom`` and ``dateTo`` sent (``YYYY-MM``), None when not sent.
    found : Findings
        The call's findings.

    Returns
    -------
    list of dict
        The items, new dicts where months were left out (the answer's own are not changed).
    """
    lo, hi = _bounds(date_from, date_to)
    if lo is None and hi is None:
        return items
    outside = _Outside(lo, hi)
    out: list[Mapping[str, Any]] = []
    dropped: dict[str, None] = {}
    values = 0
    skus: set[Any] = set()
    for item in items:
        data = item.get("data")
        if not isinstance(data, Mapping):  # the frame reader says what it makes of it
            out.append(item)
            continue
        kept: dict[str, Any] = {}
        changed = False
        for name, series in data.items():
            if not isinstance(series, Mapping) or not outside.any_in(series):
                kept[name] = series
                continue
            changed = True
            inside = {}
            for key, value in series.items():
                if outside(key):
                    dropped[key] = None
                    values += 1
                else:
                    inside[key] = value
            kept[name] = inside
        if changed:
            skus.add(item.get("sku"))
            item = {**item, "data": kept}
        out.append(item)
    if not values:
        return items
    found.add(
        "unrequested",
        f"{_months(dropped)} outside the window sent ({_sent(date_from, date_to)}): "
        f"{_plural(values, 'value')} of {_plural(len(skus), 'SKU')} dropped (does the service "
        "read dateFrom/dateTo?)",
    )
    return out


def periods_in_window(
    items: list[Mapping[str, Any]],
    date_from: str | None,
    date_to: str | None,
    found: Findings,
) -> list[Mapping[str, Any]]:
    """Group time-series periods (``{period, median}``) without those outside the window
    sent, said to ``found`` in one ``unrequested`` finding; ``items`` themselves when none
    lies outside, or no window was sent. A period that names no month is kept (the frame
    reader refuses it).

    Examples
    --------
    >>> found = Findings("POST /api/v1/groups/time-series")
    >>> periods = [{"period": "2001-01", "median": {}}, {"period": "2024-01", "median": {}}]
    >>> periods_in_window(periods, "2024-01", "2024-03", found)
    [{'period': '2024-01', 'median': {}}]
    >>> found.items[0].message
    '1 month (2001-01) outside the window sent (dateFrom 2024-01, dateTo 2024-03): 1 period dropped (does the service read dateFrom/dateTo?)'
    """
    lo, hi = _bounds(date_from, date_to)
    if lo is None and hi is None:
        return items
    outside = _Outside(lo, hi)
    inside = [item for item in items if not outside(item.get("period"))]
    if len(inside) == len(items):
        return items
    dropped = {str(item.get("period")): None for item in items if outside(item.get("period"))}
    found.add(
        "unrequested",
        f"{_months(dropped)} outside the window sent ({_sent(date_from, date_to)}): "
        f"{_plural(len(items) - len(inside), 'period')} dropped (does the service read "
        "dateFrom/dateTo?)",
    )
    return inside
