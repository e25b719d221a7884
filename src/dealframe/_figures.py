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
from typing import Any

import numpy as np

__all__ = ["UNCHANGED", "change_text", "money", "number"]

#: The words of a change that rounds to 0%.
UNCHANGED = "unchanged"

_SIGN = re.compile(r"[+-](?=[$\d.])")
_NONZERO = re.compile(r"[1-9]")


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
    """
    text = spec.format(value)
    return text if _NONZERO.search(text) else _SIGN.sub("", text, count=1)


def change_text(now: float, before: float, unit: str = "%") -> str:
    """``+12%`` / ``-3%`` (relative change), ``unchanged`` when it rounds to 0%, or ``n/a``
    when either value is missing or the earlier one is 0.

    ``unit`` is kept for callers that pass it; the change is always relative (``%``).

    Examples
    --------
    >>> change_text(110, 100), change_text(5.2, 5.21), change_text(5, 0)
    ('+10%', 'unchanged', 'n/a')
    >>> change_text(3.58, 3.59), change_text(100.6, 100), change_text(99, 100)
    ('unchanged', '+1%', '-1%')
    """
    if not (np.isfinite(now) and np.isfinite(before)) or before == 0:
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
    if value is None or not np.isfinite(value):
        return "n/a"
    text = number(value, "{:,.0f}")
    if abs(float(text.replace(",", ""))) >= 1000:
        text = number(value / 1000, "{:,.1f}") + "bn"
    else:
        text += "m"
    return "-$" + text[1:] if text.startswith("-") else "$" + text
