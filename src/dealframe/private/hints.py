"""Why a Family B list matched nothing: open-vocabulary values no company carries.

The ``verticals``, ``themes``, ``client_focus``, ``revenue_model`` and ``company_type``
filters of companies (and their ``target_*`` forms on deals) are open vocabularies
(the interface document, section 4.4: "open vocabularies without fixed value lists"), and
``ownership`` of companies is an "exact label" (``eq``), so a misspelt or wrong-case value is
no error for the service: it matches nothing. Once such an answer is empty, a page of
companies tells which given value none of them carries and which carried values are close.
The page is a sample, so only a value with a close carried spelling is named (pure, no I/O).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..public.hints import close_values
from .filters import OPEN_LISTS

__all__ = ["EXACT_LABELS", "OPEN_LISTS", "carried_values", "open_values", "unmatched_open_values"]

#: Company filters of one exact label (a string matched with ``eq``: section 4.4, "exact
#: label"), read by the same hint as the open vocabularies. Deals filter none such.
EXACT_LABELS = ("ownership",)


def open_values(entity: str, wire: Mapping[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """The open-vocabulary filters of a list body: filter name -> (company field, values).

    Examples
    --------
    >>> open_values("transactions", {"target_themes": ["AI"], "deal_type": ["Seed"]})
    {'target_themes': ('themes', ['AI'])}
    >>> open_values("companies", {"verticals": {"overlaps": ["Fintech"]}})
    {'verticals': ('verticals', ['Fintech'])}
    >>> open_values("companies", {"ownership": "publicly listed"})
    {'ownership': ('ownership', ['publicly listed'])}
    """
    prefix = "target_" if entity == "transactions" else ""
    if entity not in ("companies", "transactions"):
        return {}
    labels = EXACT_LABELS if entity == "companies" else ()
    out = {}
    for field in (*OPEN_LISTS, *labels):
        value = wire.get(prefix + field)
        if isinstance(value, Mapping) and len(value) == 1:  # {"overlaps": [...]}, {"eq": ...}
            value = next(iter(value.values()))
        if field in labels and isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[prefix + field] = (field, value)
    return out


def carried_values(companies: Iterable[Any], field: str) -> list[str]:
    """The distinct values the ``companies`` carry in ``field`` (a list of text, or one text
    for an exact label), sorted.

    Examples
    --------
    >>> carried_values([{"verticals": ["b", "a"]}, {"verticals": None}], "verticals")
    ['a', 'b']
    >>> carried_values([{"ownership": "Publicly listed"}, {}], "ownership")
    ['Publicly listed']
    """
    found: set[str] = set()
    for company in companies:
        value = company.get(field) if isinstance(company, Mapping) else None
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        found.update(v for v in values if isinstance(v, str))
    return sorted(found)


def unmatched_open_values(
    given: Mapping[str, tuple[str, list[str]]], companies: Iterable[Mapping[str, Any]]
) -> list[str]:
    """One message per given value that none of ``companies`` carries while one of them
    carries a close spelling (the same but for case, else a near one), naming the filter.

    Examples
    --------
    >>> companies = [{"verticals": ["Fintech", "AI"]}, {"verticals": None}]
    >>> unmatched_open_values({"verticals": ("verticals", ["fintech", "AI", "Zzz"])}, companies)
    ["filters.verticals[0]: no company read carries 'fintech' (values match exactly, case included; did you mean 'Fintech'?)"]
    >>> unmatched_open_values({"ownership": ("ownership", ["publicly listed"])},
    ...                       [{"ownership": "Publicly listed"}])
    ["filters.ownership: no company read carries 'publicly listed' (values match exactly, case included; did you mean 'Publicly listed'?)"]
    """
    companies = list(companies)
    messages = []
    for name, (field, values) in given.items():
        carried = carried_values(companies, field)
        for i, value in enumerate(values):
            close = [] if value in carried else close_values(value, carried)
            if close:
                where = name if field in EXACT_LABELS else f"{name}[{i}]"  # one label, no list
                messages.append(
                    f"filters.{where}: no company read carries {value!r} (values match "
                    f"exactly, case included; did you mean {' or '.join(map(repr, close))}?)"
                )
    return messages
