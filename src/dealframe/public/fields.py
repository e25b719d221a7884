"""Time-series field names: which are sent as given, and which are first checked against the
names the service serves.

The interface document names time-series fields by example only, so the service decides which
names exist (issue 14). A name the document gives is sent as given. Any other name is checked,
before the data request, against the field names the service itself serves, seen in small
requests over the SKUs (or the group) of the calls that named them and kept
(:class:`ServedFields`, shared by a client's company and group series, whose ``fields`` the
document describes alike): a name it does not serve is a
:class:`~dealframe.errors.ValidationError` naming it with the closest served name (issue 3), a
name it serves is sent. When the names cannot be learned, every name is sent as given and the
service decides.
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
#: (Their ``Lcu`` variants are checked, as any other name: section 2.1 gives them to current
#: data, and no time-series example names one.)
DOCUMENTED_SERIES_FIELDS: frozenset[str] = frozenset(
    name for name in DOCUMENTED_FIELDS["current"] if not name.endswith("Lcu")
) & frozenset(column.name for column in CURRENT_DATA if column.kind == "float")


def served_names(doc: Any, member: str = "data") -> frozenset[str]:
    """The field names of the ``member`` objects of the items of a time-series answer:
    ``data`` of a company's item, ``median`` of a group's (empty when it holds none, or is
    not such an answer).

    Parameters
    ----------
    doc : any
        A time-series answer as parsed from JSON (``{"data": [item, ...], "meta": ...}``);
        anything else holds no name.
    member : str, default "data"
        The member of each item that holds the fields: ``"data"`` in
        ``companies/time-series``, ``"median"`` in ``groups/time-series``.

    Returns
    -------
    frozenset of str
        The names (string keys) of those members over every item; items that are not objects,
        and members that are null or not objects, add none.

    Examples
    --------
    >>> sorted(served_names({"data": [{"sku": "A-USA", "data": {"ruleOf40": {}, "marketCap": {}}}]}))
    ['marketCap', 'ruleOf40']
    >>> served_names({"data": [{"sku": "A-USA", "data": None}]})
    frozenset()
    >>> sorted(served_names({"data": [{"period": "2024-01", "median": {"ruleOf40": 1.5}}]}, "median"))
    ['ruleOf40']
    """
    items = doc.get("data") if isinstance(doc, Mapping) else None
    if not isinstance(items, list):
        return frozenset()
    return frozenset(
        name
        for item in items
        if isinstance(item, Mapping) and isinstance(item.get(member), Mapping)
        for name in item[member]
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
    """The time-series field names a service was seen to serve, kept and added to.

    A name neither documented nor among them is looked for with one small request over the
    SKUs, or the group, of the call that asks for it (``learn``: a service may leave out a
    field a company has no value for, so the names of one call's companies are not the names
    of the service), then refused only when that answer lacks it too. Thread-safe: calls on
    several threads that need the same names at once send one request.

    Examples
    --------
    >>> served = ServedFields()
    >>> served.check(["evRevenueLtm"], lambda: frozenset())  # documented: nothing learned
    >>> served.check(["ebitdaLtm", "notAField"], lambda: frozenset({"ebitdaLtm", "netDebt"}))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields[1]: expected a time-series field the service serves; it serves 2: ebitdaLtm, netDebt, got 'notAField'
    >>> served.check(["netDebt"], lambda: 1 / 0)  # seen: not asked again
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: frozenset[str] = frozenset()

    def _unknown(self, names: list[str]) -> bool:
        return any(n not in DOCUMENTED_SERIES_FIELDS and n not in self._names for n in names)

    def check(self, names: list[str] | None, learn: Callable[[], frozenset[str]]) -> None:
        """Raise :class:`~dealframe.errors.ValidationError` for a name of ``names`` that is
        neither documented nor served; ``learn()`` gives the names served for the call's SKUs
        (or group) when one is not known (a :class:`~dealframe.errors.DealframeError` it
        raises, or an answer without a field: every name is sent, the service decides)."""
        if not names or not self._unknown(names):
            return
        with self._lock:
            if not self._unknown(names):  # another thread learned them meanwhile
                return
            try:
                learned = learn()
            except DealframeError:
                return  # the service decides, as for a documented name
            self._names |= learned
            served = self._names
        if learned:
            check_served(names, served)
