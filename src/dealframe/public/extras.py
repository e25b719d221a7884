"""Members of time-series items the interface document does not name, kept per item.

A company series item is ``{sku, ticker, exchange, data}`` and a group series period
``{period, median}`` (section 4.1); a service may send more beside them (the sandbox's
``extra-fields`` profile: ``extraField`` on every item). The frames of ``time_series`` and
``group_time_series`` are months x fields, with no row per item to hold such a member as a
column (as ``current`` and ``search`` do), so each is kept in the frame's
``attrs["item_extras"]``, by the item's SKU or period, as served. Nothing is dropped without
a trace (pure, no I/O).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..contract import DOCUMENTED_FIELDS, echoed, keys_present

__all__ = ["item_extras"]


def item_extras(
    items: Sequence[Mapping[str, Any]], answer: str, key: str
) -> dict[str, dict[str, Any]]:
    """The members of each of ``items`` beyond the documented ones of ``answer``
    (``time_series``, ``group_time_series``: :data:`~dealframe.contract.DOCUMENTED_FIELDS`),
    by the item's ``key`` member (its SKU, its period), for the items that hold any, values
    as served. A member named by the running call's token is left out: the ``echoed_token``
    finding of :func:`~dealframe.contract.missing_fields` says it.

    Examples
    --------
    >>> items = [{"period": "2024-01", "median": {}, "extraField": "x"},
    ...          {"period": "2024-02", "median": {}}]
    >>> item_extras(items, "group_time_series", "period")
    {'2024-01': {'extraField': 'x'}}
    >>> item_extras(items[1:], "group_time_series", "period")
    {}
    """
    unknown = keys_present(items) - set(DOCUMENTED_FIELDS[answer])
    unknown -= set(echoed(unknown))
    if not unknown:  # the common case: one pass over the keys, none per item
        return {}
    kept: dict[str, dict[str, Any]] = {}
    for item in items:
        extra = {name: value for name, value in item.items() if name in unknown}
        if extra:
            kept[str(item.get(key))] = extra
    return kept
