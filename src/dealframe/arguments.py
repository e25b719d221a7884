"""Checks of plain arguments shared by the public functions (numbers, integers, flags).

Each returns the value in the form that is sent (a Python ``int``/``float``/``bool``) or
raises :class:`~dealframe.errors.ValidationError` naming the argument. Numbers must also
survive the trip to JSON: integers beyond 64 bits cannot be encoded.

Examples
--------
>>> finite_number(12.5, "valuation_min")
12.5
>>> finite_number(2**64, "valuation_min")
Traceback (most recent call last):
...
dealframe.errors.ValidationError: invalid valuation_min: expected a finite number (at most 2**63 - 1 in size), got 18446744073709551616
>>> integer_in(3, "page", 1, None)
3
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from dealframe.errors import ValidationError

__all__ = ["INT64_MAX", "finite_number", "flag", "integer_in"]

#: Largest integer a JSON body carries (64-bit signed).
INT64_MAX = 2**63 - 1


def finite_number(value: Any, argument: str, what: str = "a finite number") -> int | float:
    """``value`` as a JSON number: a finite real, not a boolean, within 64 bits if an integer."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValidationError(argument, what, got=value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, numbers.Integral):
        if abs(int(value)) > INT64_MAX:
            raise ValidationError(argument, f"{what} (at most 2**63 - 1 in size)", got=value)
        return int(value)
    number = float(value)
    if not math.isfinite(number):
        raise ValidationError(argument, what, got=value)
    return number


def integer_in(value: Any, argument: str, low: int, high: int | None) -> int:
    """``value`` as an integer from ``low`` to ``high`` (None: up to 2**63 - 1)."""
    top = INT64_MAX if high is None else high
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Integral)
        or not low <= int(value) <= top
    ):
        bound = (
            f"an integer from {low} to {high}"
            if high is not None
            else f"an integer of at least {low}"
        )
        raise ValidationError(argument, bound, got=value)
    return int(value)


def flag(value: Any, argument: str) -> bool:
    """``value`` as a boolean (``True``/``False``, numpy booleans included)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(argument, "True or False", got=value)
    return bool(value)
