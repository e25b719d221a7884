"""Why a Family B list matched nothing: open-vocabulary values no company carries.

The ``verticals``, ``themes``, ``client_focus``, ``revenue_model`` and ``company_type``
filters of companies (and their ``target_*`` forms on deals) are open vocabularies
(the interface document, section 4.4: "open vocabularies without fixed value lists"), so a
misspelt or wrong-case value is no error for the service: it matches nothing. Once such an
answer is empty, a page of companies tells which given value none of them carries and
which carried values are close. The page is a sample, so only a value with a close
carried spelling is named (pure, no I/O).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..public.hints import close_values
from .filters import OPEN_LISTS

__all__ = ["OPEN_LISTS", "open_values", "unmatched_open_values"]


def open_values(entity: str, wire: Mapping[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """The open-vocabulary filters of a list body: filter name -> (company field, values).

    Examples
    --------
    >>> open_values("transactions", {"target_themes": ["AI"], "deal_type": ["Seed"]})
    {'target_themes': ('themes', ['AI'])}
    >>> open_values("companies", {"verticals": {"overlaps": ["Fintech"]}})
    {'verticals': ('verticals', ['Fintech'])}
    """
    prefix = "target_" if entity == "transactions" else ""
    if entity not in ("companies", "transactions"):
        return {}
    out = {}
    for field in OPEN_LISTS:
        value = wire.get(prefix + field)
        if isinstance(value, Mapping) and len(value) == 1:  # {"overlaps": [...]}
            value = next(iter(value.values()))
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[prefix + field] = (field, value)
    return out


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
    """
    companies = list(companies)
    messages = []
    for name, (field, values) in given.items():
        carried = {
            v
            for c in companies
            if isinstance(c, Mapping) and isinstance(c.get(field), list)
            for v in c[field]
            if isinstance(v, str)
        }
        for i, value in enumerate(values):
            close = [] if value in carried else close_values(value, sorted(carried))
            if close:
                messages.append(
                    f"filters.{name}[{i}]: no company read carries {value!r} (values match "
                    f"exactly, case included; did you mean {' or '.join(map(repr, close))}?)"
                )
    return messages
