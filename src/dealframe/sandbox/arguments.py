"""Arguments of the sandbox checked before anything is built: :class:`SandboxArgumentError`.

The sandbox's behaviour is its own (it is the oracle the client is checked against), but its
errors are dealframe's: a :class:`SandboxArgumentError` is a
:class:`dealframe.errors.ValidationError` (so a ``ValueError`` and a ``DealframeError``), with
the argument, what was expected and what was given. :mod:`dealframe.errors`, the vocabulary
of every error, is the one module outside the sandbox it imports.

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

import datetime as dt
import difflib
import functools
import inspect
import math
import numbers
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from dealframe.errors import ValidationError

__all__ = [
    "MAX_LATENCY",
    "MAX_SCALE",
    "SCALE_MEMORY",
    "SandboxArgumentError",
    "SandboxCallError",
    "host_name",
    "keywords_checked",
    "methods_checked",
    "moment",
    "number",
    "port_number",
    "scale_number",
    "whole",
]

#: The largest data scale the sandbox generates: 1,000,000 deals, 400,000 companies, 60,000
#: investors and 20,000 listed companies, the million-row pull of docs/reliability.md (the
#: largest scale the project uses; about 80 s to generate). Generation is linear in the scale
#: and held in memory, so a scale far above it (``--scale 1000``: 50 million deals) would run
#: for hours and exhaust memory instead of failing: it is refused before anything is built.
MAX_SCALE = 20.0

#: The longest simulated latency, in seconds: a minute stands for the slowest remote
#: service's round trip (``latency=1e30`` held every answer for good).
MAX_LATENCY = 60.0

#: What a scale costs in memory, as every ``--scale`` option's help says it (the
#: measurements are in docs/sandbox.md, "Memory").
SCALE_MEMORY = (
    "memory: about 0.8 GB per unit of scale, up to 1.4 GB when the start generates the data "
    "(docs/sandbox.md)"
)

P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C", bound=type)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_MISSING = object()


class SandboxArgumentError(ValidationError):
    """A sandbox function was given an argument it cannot use.

    A :class:`dealframe.errors.ValidationError`: a ``ValueError`` that
    ``except dealframe.DealframeError`` catches.

    Parameters
    ----------
    argument : str
        The argument's name.
    expected : str
        What would have been accepted.
    got : object, optional
        The value given (shown with ``repr``).
    message : str, optional
        The message in place of ``invalid <argument>: expected <expected>, got <got>``, for an
        error whose words are the sandbox's own (a ``400``'s ``details.errors`` quotes them).

    Attributes
    ----------
    argument : str
        The argument's name.
    expected : str
        What would have been accepted.

    Examples
    --------
    >>> import dealframe
    >>> error = SandboxArgumentError("seed", "a whole number of 0 or more", -1)
    >>> str(error), isinstance(error, dealframe.ValidationError)
    ('invalid seed: expected a whole number of 0 or more, got -1', True)
    >>> str(SandboxArgumentError("n", "an integer", -1, message="n: must be an integer"))
    'n: must be an integer'
    """

    def __init__(
        self, argument: str, expected: str, got: Any = _MISSING, *, message: str | None = None
    ) -> None:
        if got is _MISSING:
            super().__init__(argument, expected)
        else:
            super().__init__(argument, expected, got=got)
        if message is not None:
            self.args = (message,)


class SandboxCallError(SandboxArgumentError, TypeError):
    """A sandbox function or method was called with arguments its signature does not take: a
    keyword it does not take (``.argument`` is that keyword; the message names the closest
    one), too many positional arguments, a required one missing (``.argument`` is
    ``"arguments"``).

    Raised by :func:`keywords_checked` in place of Python's bare ``TypeError``: it is one, and
    a :class:`SandboxArgumentError`, as the client's ``dealframe.CallError`` is.
    """


def keywords_checked(function: Callable[P, R]) -> Callable[P, R]:
    """``function``, refusing arguments its signature does not take with
    :class:`SandboxCallError` instead of Python's bare ``TypeError``: a keyword it does
    not take names the closest one it does (as the client's ``checked_keywords``).

    Examples
    --------
    >>> @keywords_checked
    ... def start(scale=1.0, seed=7):
    ...     return scale
    >>> start(scal=0.5)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxCallError: invalid scal: expected a keyword of start (did you mean 'scale'?), got 'scal'
    """
    signature = inspect.signature(function)
    names = [p.name for p in signature.parameters.values() if p.kind in _NAMED]
    names = [name for name in names if name not in ("self", "cls")]
    label = function.__qualname__.removesuffix(".__init__")

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        unknown = next((key for key in kwargs if key not in names), None)
        if unknown is not None:
            close = difflib.get_close_matches(unknown, names, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else ", ".join(names) or "it takes none"
            raise SandboxCallError(unknown, f"a keyword of {label} ({hint})", unknown)
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise SandboxCallError("arguments", f"those of {label} ({exc})") from None
        return function(*args, **kwargs)

    return checked


def methods_checked(cls: C) -> C:
    """Class decorator: :func:`keywords_checked` on ``__init__`` and every public method
    defined in the class, class and static methods too (as the client's ``checked_methods``).

    Examples
    --------
    >>> @methods_checked
    ... class Clock:
    ...     def advance(self, seconds):
    ...         return seconds
    >>> Clock().advance(1, 2)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxCallError: invalid arguments: expected those of Clock.advance (too many positional arguments)
    """
    for name, member in list(vars(cls).items()):
        if name != "__init__" and name.startswith("_"):
            continue
        if inspect.isfunction(member):
            setattr(cls, name, keywords_checked(member))
        elif isinstance(member, (classmethod, staticmethod)):
            setattr(cls, name, type(member)(keywords_checked(member.__func__)))
    return cls


def moment(argument: str, value: Any) -> dt.datetime:
    """``value`` as a UTC datetime, or :class:`SandboxArgumentError`.

    Accepted: a ``datetime`` (one without a zone is UTC; another zone is converted), a
    ``date`` (its midnight, UTC) or an ISO 8601 string of either (``"2026-01-01"``,
    ``"2026-01-01T12:00:00+02:00"``); years 1900 to 9000.

    Examples
    --------
    >>> moment("as_of", "2026-01-01")
    datetime.datetime(2026, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
    >>> moment("as_of", dt.datetime(2026, 1, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=2))))
    datetime.datetime(2026, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
    >>> moment("as_of", 20260101)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid as_of: expected a datetime (no zone: UTC), a date or an ISO 8601 string such as '2026-06-30', got 20260101
    """
    expected = "a datetime (no zone: UTC), a date or an ISO 8601 string such as '2026-06-30'"
    given = value
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise SandboxArgumentError(argument, expected, given) from None
    elif isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        value = dt.datetime.combine(value, dt.time())
    if not isinstance(value, dt.datetime):
        raise SandboxArgumentError(argument, expected, given)
    if value.utcoffset() is None:
        value = value.replace(tzinfo=dt.UTC)
    if not 1900 <= value.year <= 9000:  # the data spans decades before and a year after it
        raise SandboxArgumentError(argument, f"{expected}, in the years 1900 to 9000", given)
    return value.astimezone(dt.UTC)


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


def scale_number(value: Any, argument: str = "scale") -> float:
    """``value`` as a data scale, above 0 and at most :data:`MAX_SCALE`, or
    :class:`SandboxArgumentError` naming ``argument`` and the maximum (with what it makes).

    Examples
    --------
    >>> scale_number(0.1)
    0.1
    >>> scale_number(1000)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.arguments.SandboxArgumentError: invalid scale: expected a number above 0 and at most 20 (the sandbox's largest data: 1,000,000 deals, 400,000 companies; see docs/sandbox.md), got 1000
    """
    scale = number(argument, value, above=0.0)
    if scale > MAX_SCALE:
        raise SandboxArgumentError(argument, scale_expected(), value)
    return scale


def scale_expected() -> str:
    """What a data scale must be, with the largest data it makes (said by the CLI too)."""
    deals, companies = int(50_000 * MAX_SCALE), int(20_000 * MAX_SCALE)
    return (
        f"a number above 0 and at most {MAX_SCALE:g} (the sandbox's largest data: "
        f"{deals:,} deals, {companies:,} companies; see docs/sandbox.md)"
    )


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


def host_name(value: Any) -> str:
    """``value`` as the host to bind (a name or an IP address, as text), or
    :class:`SandboxArgumentError`.

    Examples
    --------
    >>> host_name("127.0.0.1")
    '127.0.0.1'
    """
    if not isinstance(value, str) or not value.strip():
        raise SandboxArgumentError("host", "a host name or an IP address, as text", value)
    return value


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
