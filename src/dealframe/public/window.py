"""Months of a Family A time-series answer outside the window its request sent: dropped, and
said.

``dateFrom`` and ``dateTo`` bound the months a time-series request asks for (inclusive,
``YYYY-MM``). A service that ignores them, or reads them otherwise, answers 200 with months
outside. A company series leaves them out where its months are read as ordinals
(:func:`dealframe.frames.public.time_series_wide`, ``time_series_long``: given the window and
the call's findings); a group series' periods outside are left out here
(:func:`periods_in_window`). Either is said in one ``unrequested`` finding naming
``dateFrom``/``dateTo`` and the months dropped, each once (``YYYY-MM``), as Family B list rows
outside the filters sent are (:func:`dealframe.private.outside.drop_outside`). A key that names
no month is kept: the frame reader refuses it. :class:`MonthsOutside` tells whether a month
key lies outside, for what counts as a value of a field asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dealframe._wording import plural
from dealframe.contract import Findings
from dealframe.frames.public import month_ordinal, say_outside_window

__all__ = ["MonthsOutside", "periods_in_window"]


class MonthsOutside:
    """Whether a month key lies outside the window ``date_from`` to ``date_to`` (``YYYY-MM``,
    None: that end not sent), each key parsed once; a key naming no month is not outside.

    Examples
    --------
    >>> outside = MonthsOutside("2024-01", None)
    >>> outside("2023-12"), outside("2024-01-01"), outside("Jan 2001"), outside.sent
    (True, False, False, True)
    """

    def __init__(self, date_from: str | None, date_to: str | None) -> None:
        self.lo = month_ordinal(date_from) if date_from is not None else None
        self.hi = month_ordinal(date_to) if date_to is not None else None
        #: Whether a window was sent at all.
        self.sent = self.lo is not None or self.hi is not None
        self._seen: dict[Any, bool] = {}

    def __call__(self, key: Any) -> bool:
        if not isinstance(key, str):  # no month: the frame reader refuses it
            return False
        known = self._seen.get(key)
        if known is None:
            month = month_ordinal(key)
            known = month is not None and (
                (self.lo is not None and month < self.lo)
                or (self.hi is not None and month > self.hi)
            )
            self._seen[key] = known
        return known


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
    outside = MonthsOutside(date_from, date_to)
    if not outside.sent:
        return items
    inside = [item for item in items if not outside(item.get("period"))]
    if len(inside) == len(items):
        return items
    dropped = [month_ordinal(item.get("period")) for item in items if outside(item.get("period"))]
    n = len(items) - len(inside)
    say_outside_window(
        found,
        [m for m in dropped if m is not None],
        outside.lo,
        outside.hi,
        f"{n:,} {plural(n, 'period')}",
    )
    return inside
