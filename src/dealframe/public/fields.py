"""Time-series field names: which are sent as given, and which are first checked against the
names the service serves.

The interface document names time-series fields by example only, so the service decides which
names exist (issue 14). A name the document gives is sent as given. Any other name is checked,
before the data request, against the field names the service itself serves, learned once per
client and version from one small request and kept (:class:`ServedFields`): a name it does not
serve is a :class:`~dealframe.errors.ValidationError` naming it with the closest served name
(issue 3), a name it serves is sent. When the names cannot be learned, every name is sent as
given and the service decides.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from ..contract import DOCUMENTED_FIELDS
from ..errors import DealframeError, ValidationError, did_you_mean
from ..frames.schemas import CURRENT_DATA

__all__ = ["DOCUMENTED_SERIES_FIELDS", "ServedFields", "check_served", "served_names"]

#: Names sent as given: the document's numeric company fields (section 2.1), among them its
#: time-series examples (``evRevenueLtm``, ``evRevenueNtm``, ``marginEbitdaLtm``). Whether the
#: service serves each as a series, it decides (a 400 names the one it does not).
DOCUMENTED_SERIES_FIELDS: frozenset[str] = frozenset(DOCUMENTED_FIELDS["current"]) & frozenset(
    column.name for column in CURRENT_DATA if column.kind == "float"
)


def served_names(doc: Any) -> frozenset[str]:
    """The field names of the ``data`` objects of a time-series answer (empty when it holds
    none, or is not a time-series answer).

    Examples
    --------
    >>> sorted(served_names({"data": [{"sku": "A-USA", "data": {"ruleOf40": {}, "marketCap": {}}}]}))
    ['marketCap', 'ruleOf40']
    >>> served_names({"data": [{"sku": "A-USA", "data": None}]})
    frozenset()
    """
    items = doc.get("data") if isinstance(doc, Mapping) else None
    if not isinstance(items, list):
        return frozenset()
    return frozenset(
        name
        for item in items
        if isinstance(item, Mapping) and isinstance(item.get("data"), Mapping)
        for name in item["data"]
        if isinstance(name, str)
    )


def check_served(names: list[str], served: frozenset[str]) -> None:
    """Raise for the first of ``names`` neither documented nor in ``served``, naming its
    position in ``fields`` and the closest served name.

    Examples
    --------
    >>> check_served(["ruleOf40", "marketCap"], frozenset({"marketCap"}))  # ruleOf40: documented
    >>> check_served(["evRevenueNtn"], frozenset({"evRevenueNtm", "marketCap"}))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields[0]: expected a time-series field the service serves (did you mean 'evRevenueNtm'?), got 'evRevenueNtn'
    """
    for i, name in enumerate(names):
        if name in DOCUMENTED_SERIES_FIELDS or name in served:
            continue
        known = sorted(served)
        hint = did_you_mean(name, known) or (
            f"; it serves {len(known)}: {', '.join(known[:12])}{' ...' if len(known) > 12 else ''}"
        )
        raise ValidationError(
            f"fields[{i}]", f"a time-series field the service serves{hint}", got=name
        )


class ServedFields:
    """The time-series field names a service serves, learned at most once and kept.

    Thread-safe: calls on several threads that need the names at once send one request; the
    others wait for its answer. A learning request that fails, or whose answer holds no
    field, is not kept (the next call that needs the names asks again).

    Examples
    --------
    >>> served = ServedFields()
    >>> served.check(["evRevenueLtm"], lambda: frozenset())  # documented: nothing learned
    >>> served.check(["ebitdaLtm", "notAField"], lambda: frozenset({"ebitdaLtm", "netDebt"}))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields[1]: expected a time-series field the service serves; it serves 2: ebitdaLtm, netDebt, got 'notAField'
    >>> served.check(["netDebt"], lambda: 1 / 0)  # kept: not asked again
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: frozenset[str] | None = None

    def check(self, names: list[str] | None, learn: Callable[[], frozenset[str]]) -> None:
        """Raise :class:`~dealframe.errors.ValidationError` for a name of ``names`` that is
        neither documented nor served; ``learn()`` gives the served names the first time one
        is needed (a :class:`~dealframe.errors.DealframeError` it raises: every name is sent)."""
        if not names or all(name in DOCUMENTED_SERIES_FIELDS for name in names):
            return
        with self._lock:
            if self._names is None:
                try:
                    self._names = learn() or None
                except DealframeError:
                    pass  # the service decides, as for a documented name
            served = self._names
        if served:
            check_served(names, served)
