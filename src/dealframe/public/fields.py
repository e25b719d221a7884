"""Time-series field names: sent as given, the service's answer deciding (issue 14).

The interface document names time-series fields by example only, so the service decides which
names exist, and a service may leave out a field a company has no value for: no request over
some companies tells which names the service serves for the others. So a name is sent as
given, with no request before it, and the service's answer decides: its 400 naming the field
is the error, and a name no item of the answer holds is a ``missing_field`` finding naming it
with the closest name known (:meth:`ServedFields.hint`: the document's fields and the names
seen with a value in this client's answers), and so is the note of a 400 whose words name it
(:func:`~dealframe.field_names.note_refused_fields`). A name the client knows gets no
suggestion: a service may leave out a field no company has a value for.

One kind of name is refused before any request (:meth:`ServedFields.check`), because it is
certainly a typo: one that spells a field the document gives in another case or with
separators (``evrevenueltm``, ``ev_revenue_ltm``, ``EV Revenue LTM`` for ``evRevenueLtm``;
``market_cap_lcu`` for ``marketCapLcu``), unless an answer of the client held it as written
(the service serves it). A name one letter from a documented one
(``evRevenueNtn``) is sent: real fields differ by a letter (``evEbitdaLtm``, ``evEbitdaNtm``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..contract import DOCUMENTED_FIELDS
from ..contract import _folded as folded  # one rule of "the same name in another spelling"
from ..errors import ValidationError
from ..field_names import SEEN_LIMIT, KnownFields
from ..frames.schemas import CURRENT_DATA

__all__ = [
    "DOCUMENTED_SERIES_FIELDS",
    "LCU_FIELDS",
    "SERIES_EXAMPLES",
    "ServedFields",
    "ordered_names",
    "respelled_documented",
    "served_names",
]

#: The document's numeric company fields (section 2.1), among them its time-series examples
#: (``evRevenueLtm``, ``evRevenueNtm``, ``marginEbitdaLtm``): the names another spelling of
#: which is refused. Whether the service serves each as a series, it decides (a 400 names the
#: one it does not). (Their ``Lcu`` variants are :data:`LCU_FIELDS`: section 2.1 gives them to
#: current data, and no time-series example names one.)
DOCUMENTED_SERIES_FIELDS: frozenset[str] = frozenset(
    name for name in DOCUMENTED_FIELDS["current"] if not name.endswith("Lcu")
) & frozenset(column.name for column in CURRENT_DATA if column.kind == "float")

#: The time-series fields the document names, in its order (section 2.1, CompanyTimeSeriesData:
#: ``data`` maps a field name, "for example ``evRevenueLtm``, ``evRevenueNtm``,
#: ``marginEbitdaLtm``", to its months): the columns of a series called with no ``fields`` whose
#: answer holds no field, when no earlier answer told which fields the service serves
#: (:meth:`ServedFields.default_columns`). The document lists no complete set.
SERIES_EXAMPLES: tuple[str, ...] = ("evRevenueLtm", "evRevenueNtm", "marginEbitdaLtm")

#: The document's local-currency variants (section 2.1: "the field name plus the suffix
#: ``Lcu``"): known names too, so ``market_cap_lcu`` is another spelling of ``marketCapLcu``
#: (never of ``marketCap``), and ``marketCapLcu`` is given no did-you-mean. Whether the
#: service serves one as a series, it decides, as for every name.
LCU_FIELDS: frozenset[str] = frozenset(
    name for name in DOCUMENTED_FIELDS["current"] if name.endswith("Lcu")
)

#: Each documented series field (and ``Lcu`` variant) by its spelling without case or
#: separators (:func:`~dealframe.contract._folded`).
_BY_FOLD: dict[str, str] = {folded(name): name for name in DOCUMENTED_SERIES_FIELDS | LCU_FIELDS}


def ordered_names(doc: Any, member: str = "data") -> list[str]:
    """The field names of the ``member`` objects of the items of a time-series answer, each
    once, in order of first appearance (:func:`served_names`, which gives them as a set).

    Examples
    --------
    >>> ordered_names([{"sku": "A-USA", "data": {"ruleOf40": {}}},
    ...                {"sku": "B-USA", "data": {"marketCap": {}, "ruleOf40": {}}}])
    ['ruleOf40', 'marketCap']
    """
    items = doc.get("data") if isinstance(doc, Mapping) else doc
    if not isinstance(items, list):
        return []
    return list(
        dict.fromkeys(
            name
            for item in items
            if isinstance(item, Mapping) and isinstance(item.get(member), Mapping)
            for name in item[member]
            if isinstance(name, str)
        )
    )


def served_names(doc: Any, member: str = "data") -> frozenset[str]:
    """The field names of the ``member`` objects of the items of a time-series answer:
    ``data`` of a company's item, ``median`` of a group's (empty when it holds none, or is
    not such an answer).

    Parameters
    ----------
    doc : any
        A time-series answer as parsed from JSON (``{"data": [item, ...], "meta": ...}``), or
        its list of items; anything else holds no name.
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
    >>> sorted(served_names([{"period": "2024-01", "median": {"ruleOf40": 1.5}}], "median"))
    ['ruleOf40']
    """
    return frozenset(ordered_names(doc, member))


def respelled_documented(name: str) -> str | None:
    """The field the document gives that ``name`` spells in another case or with separators
    (``_``, ``.``, ``-``, whitespace, zero-width characters; NFKC-normalised first), or None
    (``name`` is that field, or spells none).

    Examples
    --------
    >>> respelled_documented("ev_revenue_ltm"), respelled_documented("EV Revenue LTM")
    ('evRevenueLtm', 'evRevenueLtm')
    >>> respelled_documented("market_cap_lcu"), respelled_documented("marketcaplcu")
    ('marketCapLcu', 'marketCapLcu')
    >>> respelled_documented("evRevenueLtm"), respelled_documented("evRevenueNtn")
    (None, None)
    """
    documented = _BY_FOLD.get(folded(name))
    return documented if documented is not None and documented != name else None


class ServedFields(KnownFields):
    """The time-series field names: the document's (:data:`DOCUMENTED_SERIES_FIELDS`) and
    those a client's answers were seen to hold with a value, kept and added to (shared by a
    client's company and group series, whose ``fields`` the document describes alike).
    Thread-safe; bounded (:class:`~dealframe.field_names.KnownFields`).

    They never refuse a name: they only keep :meth:`check` from refusing another spelling of
    a documented field that the service serves as written, and give :meth:`hint` its choices
    (none for a name they know: a service may leave out a field no company has a value for).

    Examples
    --------
    >>> served = ServedFields()
    >>> served.check(["evRevenueLtm", "custom", "evRevenueNtn"])  # sent: the service decides
    >>> served.check(["marketCap", "ev_revenue_ltm"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields[1]: expected a time-series field as the document spells it (did you mean 'evRevenueLtm'?), got 'ev_revenue_ltm'
    >>> served.add(["ev_revenue_ltm", "customField"])  # seen in an answer: sent from now on
    >>> served.check(["ev_revenue_ltm"])
    >>> served.hint("customFeild", also=["marketCap"]), served.hint("evRevenueLtm")
    (" (did you mean 'customField'?)", '')
    >>> served.default_columns("time_series")  # no default answer seen: the document's
    (('evRevenueLtm', 'evRevenueNtm', 'marginEbitdaLtm'), True)
    >>> served.served_by_default("time_series", ["marketCap", "ruleOf40"])
    >>> served.default_columns("time_series")
    (('marketCap', 'ruleOf40'), False)
    """

    def __init__(self) -> None:
        super().__init__(DOCUMENTED_SERIES_FIELDS | LCU_FIELDS)
        self._defaults: dict[str, dict[str, None]] = {}  # by endpoint, in order first served

    def served_by_default(self, endpoint: str, names: Iterable[str]) -> None:
        """Keep ``names``, the fields an answer of ``endpoint`` (``"time_series"``,
        ``"group_time_series"``) to a call naming no ``fields`` held: the service's default
        fields there, added to those kept before (at most
        :data:`~dealframe.field_names.SEEN_LIMIT`, the oldest left out first)."""
        names = [n for n in names if isinstance(n, str)]
        if not names:
            return
        with self._lock:
            kept = self._defaults.setdefault(endpoint, {})
            kept.update(dict.fromkeys(names))
            while len(kept) > SEEN_LIMIT:
                del kept[next(iter(kept))]

    def default_columns(self, endpoint: str) -> tuple[tuple[str, ...], bool]:
        """The field columns of a frame of ``endpoint`` called with no ``fields`` whose answer
        holds no field (an unknown SKU, a group or a window with no data): the fields the
        service was seen to serve there by default (:meth:`served_by_default`), in the order
        first served, else the document's examples (:data:`SERIES_EXAMPLES`); and whether they
        are the document's (which fields the service serves is then not known)."""
        with self._lock:
            kept = tuple(self._defaults.get(endpoint, ()))
        return (kept, False) if kept else (SERIES_EXAMPLES, True)

    def check(self, names: list[str] | None) -> None:
        """Raise :class:`~dealframe.errors.ValidationError` naming ``fields[i]`` for the first
        of ``names`` that spells a documented field in another case or with separators and
        was not seen served as written; every other name is left to the service. No request.

        ``names`` are the caller's as given, repeats and all: ``i`` is the position in them.
        """
        for i, name in enumerate(names or ()):
            documented = respelled_documented(name)
            if documented is not None and name not in self:
                raise ValidationError(
                    f"fields[{i}]",
                    f"a time-series field as the document spells it (did you mean {documented!r}?)",
                    got=name,
                )
