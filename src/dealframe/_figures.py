"""Figures in words: one rounding rule for every number a user reads.

The report's tables and cards and the charts' titles, labels and alt text all write their
figures through these helpers, so that none writes a signed zero ("-0", "-0.0%", "+0%",
"-0.00"), a change under half a percent other than "unchanged", or money as "$-1m".

Examples
--------
>>> number(-0.04, "{:.1f}%"), change_text(3.58, 3.59), money(999.6), money(-0.6)
('0.0%', 'unchanged', '$1.0bn', '-$1m')
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

import numpy as np

__all__ = ["UNCHANGED", "change_text", "money", "number"]

#: The words of a change that rounds to 0%.
UNCHANGED = "unchanged"

_SIGN = re.compile(r"[+-](?=[$\d.])")
_NONZERO = re.compile(r"[1-9]")
#: The one replacement field of a spec (``"correlation {:.2f}"``): the figure alone is judged.
_FIELD = re.compile(r"\{[^{}]*\}")


def number(value: float | np.number[Any], spec: str) -> str:
    """``value`` formatted by ``spec`` (a ``str.format`` spec), rounded first: a figure that
    rounds to zero carries no sign, so neither a negative zero ("-0", "-0%", "-0.00") nor a
    forced plus ("+0%") is written.

    Examples
    --------
    >>> number(-0.4598, "{:,.0f}"), number(-0.004, "{:+.0%}"), number(0.001, "{:+.0%}")
    ('0', '0%', '0%')
    >>> number(-0.6, "{:,.0f}"), number(0.05, "{:+.0%}"), number(-0.0, "${:.1f}m")
    ('-1', '+5%', '$0.0m')
    >>> number(-0.004, "correlation {:.2f}"), number(-0.04, "{:.1f}%")
    ('correlation 0.00', '0.0%')
    >>> number(-0.001, "month 12 {:+.0%}")  # digits of the words around it are not the figure
    'month 12 0%'
    """
    field = _FIELD.search(spec)
    if field is None:
        return spec.format(value)
    figure = field.group().format(value)
    if not _NONZERO.search(figure):
        figure = _SIGN.sub("", figure, count=1)
    return spec[: field.start()].format() + figure + spec[field.end() :].format()


def change_text(now: float | None, before: float | None, unit: str = "%") -> str:
    """``+12%`` / ``-3%`` (relative change), ``unchanged`` when it rounds to 0%, or ``n/a``
    when either value is missing (NaN, None, ``pd.NA``) or the earlier one is 0 or below (a
    change relative to a negative figure reads backwards: -2 to -1 is a rise).

    ``unit`` is kept for callers that pass it; the change is always relative (``%``).

    Examples
    --------
    >>> change_text(110, 100), change_text(5.2, 5.21), change_text(5, 0)
    ('+10%', 'unchanged', 'n/a')
    >>> change_text(3.58, 3.59), change_text(100.6, 100), change_text(99, 100)
    ('unchanged', '+1%', '-1%')
    >>> change_text(-1.0, -2.0), change_text(None, 1.0)
    ('n/a', 'n/a')
    """
    if not _finite(now) or not _finite(before) or before <= 0:
        return "n/a"
    text = number(now / before - 1, "{:+.0%}")
    return UNCHANGED if text == "0%" else text


def money(value: float | None) -> str:
    """Millions of USD, short: ``$1.2bn``, ``$350m``, ``-$4m``, ``n/a``.

    The unit is chosen after rounding (999.6 is ``$1.0bn``, not ``$1,000m``); a negative
    figure has its sign before the dollar; one that rounds to zero has none (``$0m``).

    Examples
    --------
    >>> money(1234.0), money(12.3), money(float("nan")), money(999.6), money(999.4)
    ('$1.2bn', '$12m', 'n/a', '$1.0bn', '$999m')
    >>> money(-0.6), money(-0.4), money(-1520.0)
    ('-$1m', '$0m', '-$1.5bn')
    """
    if not _finite(value):
        return "n/a"
    text = number(value, "{:,.0f}")
    if abs(float(text.replace(",", ""))) >= 1000:
        text = number(value / 1000, "{:,.1f}") + "bn"
    else:
        text += "m"
    return "-$" + text[1:] if text.startswith("-") else "$" + text


def _finite(value: Any) -> TypeGuard[float]:
    """Whether ``value`` is a finite number (not None, NaN, ``pd.NA``, NaT or infinite).

    Examples
    --------
    >>> _finite(1.5), _finite(None), _finite(float("inf")), _finite(np.float32(2))
    (True, False, False, True)
    """
    try:
        return bool(np.isfinite(value))
    except (TypeError, ValueError):  # None, pd.NA (ambiguous), text
        return False
