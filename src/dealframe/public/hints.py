"""Why a Family A search matched nothing: industries or themes no company carries.

The service matches ``industries`` (a company's ``verticals``) and ``themes`` exactly, case
included, and their vocabulary is open (the interface document lists no values), so a
misspelt or wrong-case value is no error there: it selects no company. Once such an answer
is empty, the values every company carries (an unfiltered search) tell which given value
matches none, and which known values are close (pure, no I/O).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["HINT_SECONDS", "close_values", "unmatched_values"]

#: Seconds the request of an empty-answer hint may take in all: it is one attempt (no retry,
#: no ``Retry-After`` or backoff waited out), and when it fails the hint is left.
HINT_SECONDS = 5.0

#: Search body member -> the company field it matches.
_MATCHED_FIELD = {"industries": "verticals", "themes": "themes"}


def close_values(value: str, known: list[str], cutoff: float = 0.6) -> list[str]:
    """Known values equal to ``value`` but for case, else the closest spellings (at least
    ``cutoff`` alike, as :func:`difflib.get_close_matches` scores them).

    Examples
    --------
    >>> close_values("fintec", ["Fintech", "Adtech"])
    ['Fintech']
    """
    folded = value.casefold()
    same = [k for k in known if k.casefold() == folded]
    if same:
        return same
    by_fold = {k.casefold(): k for k in known}
    return [
        by_fold[c] for c in difflib.get_close_matches(folded, list(by_fold), n=3, cutoff=cutoff)
    ]


def unmatched_values(body: Mapping[str, Any], companies: Iterable[Mapping[str, Any]]) -> list[str]:
    """One message per ``industries`` or ``themes`` value of ``body`` that none of
    ``companies`` (search items) carries, naming the argument and the close values.

    Examples
    --------
    >>> companies = [{"verticals": ["Fintech", "AI"], "themes": ["Payments"]}]
    >>> unmatched_values({"industries": ["fintech", "AI"], "themes": ["Paymnts"]}, companies)
    ["industries[0]: no company carries 'fintech' (values match exactly, case included; did you mean 'Fintech'?)", "themes[0]: no company carries 'Paymnts' (values match exactly, case included; did you mean 'Payments'?)"]
    """
    companies = list(companies)
    messages = []
    for member, field in _MATCHED_FIELD.items():
        given = body.get(member) or []
        carried = {
            v
            for c in companies
            if isinstance(c.get(field), list)
            for v in c[field]
            if isinstance(v, str)
        }
        known = sorted(carried)
        for i, value in enumerate(given):
            if value in carried:
                continue
            close = close_values(value, known)
            hint = (
                f"did you mean {' or '.join(repr(c) for c in close)}?"
                if close
                else f"no close value among the {len(known)} the companies carry"
            )
            messages.append(
                f"{member}[{i}]: no company carries {value!r} "
                f"(values match exactly, case included; {hint})"
            )
    return messages
