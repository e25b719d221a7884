"""Arguments of the sandbox checked before anything is built: :class:`SandboxArgumentError`.

The sandbox imports nothing from the client (it is the oracle the client is checked
against), so it has its own error for a bad argument, worded as the client's
``ValidationError``: the argument, what was expected, what was given.

Examples
--------
>>> number("scale", 0.5, above=0.0)
0.5
>>> number("scale", 0, above=0.0)
Traceback (most recent call last):
...
dealframe.sandbox.arguments.SandboxArgumentError: invalid scale: expected a number above 0, got 0
"""

from __future__ import annotations

import math
import numbers
from typing import Any

__all__ = ["SandboxArgumentError", "number", "port_number", "whole"]


class SandboxArgumentError(ValueError):
    """A sandbox function was given an argument it cannot use.

    Attributes
    ----------
    argument : str
        The argument's name.
    expected : str
        What would have been accepted.
    """

    def __init__(self, argument: str, expected: str, got: Any) -> None:
        self.argument, self.expected = argument, expected
        super().__init__(f"invalid {argument}: expected {expected}, got {got!r}")


def number(
    argument: str,
    value: Any,
    *,
    above: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
) -> float:
    """``value`` as a finite float within the bounds, or :class:`SandboxArgumentError`."""
    bounds = []
    if above is not None:
        bounds.append(f"above {above:g}")
    if at_least is not None:
        bounds.append(f"from {at_least:g}")
    if at_most is not None:
        bounds.append(f"{'to' if at_least is not None else 'at most'} {at_most:g}")
    expected = "a number" + (" " + " ".join(bounds) if bounds else "")
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)  # numpy's too
    try:
        ok = ok and math.isfinite(value)
    except OverflowError:  # an int too large for a float
        ok = False
    if ok and above is not None:
        ok = value > above
    if ok and at_least is not None:
        ok = value >= at_least
    if ok and at_most is not None:
        ok = value <= at_most
    if not ok:
        raise SandboxArgumentError(argument, expected, value)
    return float(value)


def whole(argument: str, value: Any) -> int:
    """``value`` as an int of 0 or more (numpy's integers too; not a bool), or
    :class:`SandboxArgumentError`.

    Examples
    --------
    >>> whole("seed", 7)
    7
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise SandboxArgumentError(argument, "a whole number of 0 or more", value)
    return int(value)


def port_number(value: Any) -> int:
    """``value`` as a TCP port, 0 (any free port) to 65535, or :class:`SandboxArgumentError`.

    Examples
    --------
    >>> port_number(0), port_number(8765)
    (0, 8765)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SandboxArgumentError("port", "a port from 0 (any free port) to 65535", value)
    if not 0 <= int(value) <= 65535:
        raise SandboxArgumentError("port", "a port from 0 (any free port) to 65535", value)
    return int(value)
