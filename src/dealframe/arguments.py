"""Checks of plain arguments shared by the public functions (numbers, integers, flags,
country codes, paths, closed choices), and the decorators that check every call against its signature.

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

import datetime as dt
import functools
import inspect
import math
import numbers
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, ParamSpec, TypeAlias, TypeVar

import numpy as np

from dealframe._countries import is_country, why_not
from dealframe._tokens import Tokens
from dealframe.errors import (
    _CALL_SECRETS,
    CallError,
    UnknownArgumentError,
    ValidationError,
    did_you_mean,
)

__all__ = [
    "INT64_MAX",
    "KEYWORD_GROUPS",
    "DateLike",
    "call_secrets",
    "carried",
    "checked_keywords",
    "checked_methods",
    "choice",
    "client_call",
    "client_secrets",
    "expanded_path",
    "finite_number",
    "flag",
    "integer_in",
    "iso3",
    "positive_number",
    "unencodable",
]

P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C", bound=type)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

#: Largest integer a JSON body carries (64-bit signed).
INT64_MAX = 2**63 - 1

#: The attribute of a function, set before :func:`checked_keywords` wraps it, that lists its
#: keywords by group for the message of an unknown one: a dict of label to names (the list
#: calls of ``client.private`` say the service's filters apart from the call's options).
KEYWORD_GROUPS = "__keyword_groups__"

#: A day as the public functions take it: ``"YYYY-MM-DD"``, a ``datetime.date`` (so also a
#: ``datetime`` or a ``pandas.Timestamp``) or a ``numpy.datetime64``.
DateLike: TypeAlias = str | dt.date | np.datetime64


def finite_number(value: Any, argument: str, what: str = "a finite number") -> int | float:
    """``value`` as a JSON number: a finite real (a ``decimal.Decimal`` too), not a boolean,
    within 64 bits if an integer.

    A ``Decimal`` is no ``numbers.Real`` but is a number all the same: sent as an ``int``
    when written without decimals (``Decimal("100")``) and within 64 bits, else as a
    ``float`` (``Decimal("1E+20")``, as ``1e20`` is); an error names the ``Decimal`` given.

    Examples
    --------
    >>> finite_number(Decimal("100.5"), "valuation_min"), finite_number(Decimal("7"), "x")
    (100.5, 7)
    >>> finite_number(Decimal("1E+20"), "valuation_min")
    1e+20
    >>> finite_number(Decimal("NaN"), "valuation_min")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid valuation_min: expected a finite number, got Decimal('NaN')
    """
    given = value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValidationError(argument, what, got=given)
        exponent = value.as_tuple().exponent
        whole = isinstance(exponent, int) and exponent >= 0 and abs(value) <= INT64_MAX
        value = int(value) if whole else float(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValidationError(argument, what, got=given)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, numbers.Integral):
        if abs(int(value)) > INT64_MAX:
            raise ValidationError(argument, f"{what} (at most 2**63 - 1 in size)", got=given)
        return int(value)
    number = float(value)
    if not math.isfinite(number):
        raise ValidationError(argument, what, got=given)
    return number


def positive_number(
    value: Any, argument: str, most: float | None = None, what: str | None = None
) -> float:
    """``value`` as a Python ``float`` above 0 (and at most ``most`` when given): any finite
    real number (numpy's too), never a boolean. ``what`` words the expectation the error
    states.

    Examples
    --------
    >>> positive_number(7, "width")
    7.0
    >>> positive_number(0, "width", 100)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid width: expected a number above 0 and at most 100, got 0
    """
    bound = "a number above 0" + ("" if most is None else f" and at most {most:g}")
    number = finite_number(value, argument, what or bound)
    if not 0 < number <= (math.inf if most is None else most):
        raise ValidationError(argument, what or bound, got=value)
    return float(number)


def integer_in(
    value: Any, argument: str, low: int, high: int | None, what: str | None = None
) -> int:
    """``value`` as a Python ``int`` from ``low`` to ``high`` (None: up to 2**63 - 1): any
    integral number (``numpy.int64`` too: what ``len``, ``df.shape`` or ``Series.max()``
    give), never a boolean. ``what`` words the expectation the error states.

    Examples
    --------
    >>> import numpy as np
    >>> integer_in(np.int64(15), "top", 1, None)
    15
    >>> integer_in(np.bool_(True), "top", 1, None, "a positive integer")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid top: expected a positive integer, got np.True_
    >>> integer_in(2**64, "top", 1, None)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid top: expected an integer of at least 1, at most 9223372036854775807 (2**63 - 1), got 18446744073709551616
    """
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
        expected = what or bound
        if high is None and not isinstance(value, (bool, np.bool_)):
            if isinstance(value, numbers.Integral) and int(value) > top:
                expected = f"{expected}, at most {top} (2**63 - 1)"
        raise ValidationError(argument, expected, got=value)
    return int(value)


def iso3(value: Any, argument: str) -> str:
    """``value`` as an ISO 3166-1 alpha-3 country code, as the service's country fields hold
    them: an assigned code, upper case (another spelling, or a code of the right shape that
    is no ISO code, such as the IOC's ``GER``, would match no row). ``XKX`` (Kosovo), the one
    user-assigned code in common use, is taken too (:mod:`dealframe._countries`).

    Raises
    ------
    ValidationError
        Naming ``argument``, with the code most likely meant (:func:`~dealframe._countries.why_not`).

    Examples
    --------
    >>> iso3("GBR", "country")
    'GBR'
    >>> iso3("gbr", "country")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid country: expected an upper-case ISO 3166 alpha-3 code such as 'USA' (did you mean 'GBR'?), got 'gbr'
    >>> iso3("GER", "country[0]")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid country[0]: expected an upper-case ISO 3166 alpha-3 code such as 'USA' (did you mean 'DEU', Germany? 'GER' is no ISO 3166 code), got 'GER'
    """
    if isinstance(value, str) and is_country(value):
        return value
    hint = why_not(value) if isinstance(value, str) else ""
    raise ValidationError(
        argument, f"an upper-case ISO 3166 alpha-3 code such as 'USA'{hint}", got=value
    )


def choice(value: Any, argument: str, choices: Iterable[str], expected: str | None = None) -> str:
    """``value`` if it is one of ``choices``, exactly (case included, as the service takes it).

    Otherwise a :class:`~dealframe.errors.ValidationError` naming ``argument``, listing the
    choices (``expected`` words them; default ``one of a, b``) and suggesting the closest one,
    case ignored: ``'Quarter'`` suggests ``'quarter'``. The one check of every closed list of
    values of the public functions, so each suggests as the CLI and the report do.

    Parameters
    ----------
    value : any
        What the caller gave.
    argument : str
        The argument's name, as the error names it (``"time_bucket"``, ``"fields[2]"``).
    choices : iterable of str
        The values taken, in the order the error lists them.
    expected : str, optional
        How the error words what is expected (``"'wide' or 'long'"``); default
        ``one of`` and the choices.

    Returns
    -------
    str
        ``value`` itself.

    Raises
    ------
    ValidationError
        ``value`` is not one of ``choices`` (not a string, or another case).

    Examples
    --------
    >>> choice("year", "time_bucket", ["month", "quarter", "year"])
    'year'
    >>> choice("Quarter", "time_bucket", ["month", "quarter", "year"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid time_bucket: expected one of month, quarter, year (did you mean 'quarter'?), got 'Quarter'
    >>> choice("Long", "shape", ["wide", "long"], "'wide' or 'long'")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid shape: expected 'wide' or 'long' (did you mean 'long'?), got 'Long'
    """
    options = tuple(choices)
    if isinstance(value, str) and value in options:
        return str(value)
    hint = did_you_mean(value, options) if isinstance(value, str) else ""
    listed = expected if expected is not None else "one of " + ", ".join(options)
    raise ValidationError(argument, listed + hint, got=value)


def expanded_path(value: str | os.PathLike[str], argument: str) -> Path:
    """``value`` as a ``Path`` with ``~`` expanded; ``~someone`` for a user this system does
    not know is a :class:`~dealframe.errors.ValidationError` (pathlib raises RuntimeError).

    Examples
    --------
    >>> expanded_path("~nobody-here-at-all/x", "out")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid out: expected a path whose ~user exists on this system, got '~nobody-here-at-all/x'
    """
    try:
        return Path(value).expanduser()
    except RuntimeError:
        raise ValidationError(
            argument, "a path whose ~user exists on this system", got=str(value)
        ) from None


def flag(value: Any, argument: str) -> bool:
    """``value`` as a boolean (``True``/``False``, numpy booleans included)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(argument, "True or False", got=value)
    return bool(value)


#: Annotations of a flag (as written under ``from __future__ import annotations``, or not);
#: None allowed with the second.
_FLAG, _FLAG_OR_NONE = ("bool", bool), ("bool | None", "None | bool", "Optional[bool]", bool | None)
#: Annotations of a client argument; None allowed with the second.
_CLIENT, _CLIENT_OR_NONE = ("Client", "dealframe.Client"), ("Client | None", "None | Client")


def _annotated(
    parameters: Iterable[inspect.Parameter], plain: tuple[Any, ...], or_none: tuple[Any, ...]
) -> dict[str, bool]:
    """Parameters annotated as one of ``plain`` (False) or of ``or_none`` (True: None allowed)."""
    return {
        p.name: p.annotation in or_none
        for p in parameters
        if p.annotation in plain or p.annotation in or_none
    }


def _check_flags(flags: dict[str, bool], given: Mapping[str, Any]) -> None:
    for name, none_ok in flags.items():
        value = given.get(name, False)
        if not isinstance(value, (bool, np.bool_)) and not (none_ok and value is None):
            raise ValidationError(
                name, "True, False or None" if none_ok else "True or False", got=value
            )


#: How deep :func:`unencodable` looks into lists and mappings (``filters.name``, ``names[0]``).
_TEXT_DEPTH = 4
_NOT_UTF8 = "text UTF-8 can encode (no lone surrogate: a byte that is not UTF-8, as from Latin-1)"


def unencodable(value: Any, argument: str, depth: int = 0) -> tuple[str, str] | None:
    """The first text in ``value`` that UTF-8 cannot encode (a lone surrogate), as ``(name,
    text)`` with the name dotted or indexed as a :class:`~dealframe.errors.ValidationError`
    names it; None when there is none.

    Looks into texts, paths (``os.PathLike``), lists, tuples, sets and mappings (keys and
    values), :data:`_TEXT_DEPTH` levels deep; anything else (a frame, an array) is left to
    the check that reads it.

    Examples
    --------
    >>> unencodable({"name": "Acme\\udcff"}, "filters")
    ('filters.name', 'Acme\\udcff')
    >>> unencodable(["Acme", "Bolt\\udcff"], "names")
    ('names[1]', 'Bolt\\udcff')
    >>> unencodable(["Acme", "Zürich"], "names") is None
    True
    """
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        if value.isascii():
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return argument, value
        return None
    if depth >= _TEXT_DEPTH:
        return None
    if isinstance(value, (list, tuple, set, frozenset)) and _all_utf8(value):
        return None  # texts only, all encodable: a list of ids is one join, not a loop
    found = None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = unencodable(key, argument, depth + 1) or unencodable(
                item, f"{argument}.{key}", depth + 1
            )
            if found:
                break
    elif isinstance(value, (list, tuple)):
        for at, item in enumerate(value):
            if found := unencodable(item, f"{argument}[{at}]", depth + 1):
                break
    elif isinstance(value, (set, frozenset)):
        for item in value:
            if found := unencodable(item, argument, depth + 1):
                break
    return found


def _all_utf8(values: Iterable[Any]) -> bool:
    """True when ``values`` are all texts that UTF-8 encodes (none holds a lone surrogate);
    False when one is not a text, or one does not encode (:func:`unencodable` then looks
    item by item, to name it).

    Examples
    --------
    >>> _all_utf8(["a", "Zürich"]), _all_utf8(["a", 1]), _all_utf8(["a", "b\\udcff"])
    (True, False, False)
    """
    try:
        joined = "".join(values)
    except TypeError:  # an item that is not a text (a number, a path, a list)
        return False
    if joined.isascii():
        return True
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_texts(given: Mapping[str, Any], skip: Iterable[str]) -> None:
    """Refuse a text argument UTF-8 cannot encode (:func:`unencodable`), before any request
    carries it or any file is written under it."""
    for name, value in given.items():
        if name in skip:
            continue
        found = unencodable(value, name)
        if found is not None:
            raise ValidationError(found[0], _NOT_UTF8, got=found[1])


def _is_client(value: Any) -> bool:
    return all(hasattr(value, name) for name in ("public", "private", "settings"))


def call_secrets() -> Tokens:
    """The tokens of the client whose call is running (:func:`client_call`), else none.

    Returns
    -------
    Tokens
        What :func:`dealframe.contract.blanked` writes ``***`` in the call's findings, and
        every dealframe error made in the call in its message (the context variable is
        :mod:`dealframe.errors`'s, which every module imports). Iterating gives the tokens;
        its ``repr`` hides them, so a traceback recording locals does not show them.

    Examples
    --------
    >>> call_secrets()
    Tokens(<none>)
    """
    held = _CALL_SECRETS.get()
    return held if isinstance(held, Tokens) else Tokens(held)


@contextmanager
def client_call(secrets: Iterable[str]) -> Iterator[None]:
    """The block is one call of a client with these tokens: the findings and the errors
    made in it blank them (:func:`dealframe.contract.blanked`,
    :class:`~dealframe.errors.DealframeError`).

    :func:`checked_keywords` runs every public method of a client and of its APIs, and every
    function given a client, in this block; worker threads the call hands requests to run
    in it too (:func:`carried`). It holds for this context only, until the block ends: no
    other client's call sees the tokens, and nothing keeps them afterwards. A call nested
    in another (a function given a client calling its methods) blanks the tokens of both.

    Parameters
    ----------
    secrets : Tokens or iterable of str
        The client's tokens (empty ones are skipped).

    Examples
    --------
    >>> with client_call(Tokens(["sk_live_0123456789abcdef", ""])):
    ...     list(call_secrets())
    ['sk_live_0123456789abcdef']
    >>> len(call_secrets())
    0
    """
    outer = call_secrets()
    held = Tokens([*outer, *secrets])  # a Tokens, not a list: no traceback shows its items
    if len(held) == len(outer):
        yield
        return
    token = _CALL_SECRETS.set(held)
    try:
        yield
    finally:
        _CALL_SECRETS.reset(token)


def carried(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run in the current client call (:func:`client_call`) wherever it runs:
    what the call hands to a worker thread (``function`` itself outside a call).

    The worker thread holds the tokens only while ``function`` runs, not after.

    Parameters
    ----------
    function : callable
        What is handed to a worker thread.

    Returns
    -------
    callable
        ``function``, run inside ``client_call`` with the current call's tokens.

    Examples
    --------
    >>> with client_call(Tokens(["sk_live_0123456789abcdef"])):
    ...     later = carried(call_secrets)
    >>> list(later()), list(call_secrets())
    (['sk_live_0123456789abcdef'], [])
    """
    secrets = _CALL_SECRETS.get()
    if not secrets:
        return function

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with client_call(secrets):
            return function(*args, **kwargs)

    return run


def client_secrets(value: Any) -> Tokens:
    """The tokens of a client, or of one of its APIs (its transport's), else none: what
    :func:`client_call` is given for a call of it.

    Parameters
    ----------
    value : Client, PublicApi, PrivateApi or anything
        The object whose method runs, or a client given to a function.

    Returns
    -------
    Tokens
        Its non-empty tokens, in a holder whose ``repr`` hides them.

    Examples
    --------
    >>> client_secrets(object())
    Tokens(<none>)
    """
    transport = getattr(value, "_transport", None) or getattr(value, "_t", None)
    secrets = getattr(transport, "_secrets", None)
    return Tokens(secrets if isinstance(secrets, (tuple, Tokens)) else ())


def checked_keywords(function: Callable[P, R]) -> Callable[P, R]:
    """``function``, refusing arguments its signature does not take with a dealframe error
    instead of Python's bare ``TypeError``, and a flag that is no boolean.

    A keyword it does not take is an :class:`~dealframe.errors.UnknownArgumentError` (the
    closest keyword named, then every keyword it takes, by the groups its
    :data:`KEYWORD_GROUPS` attribute names if it has one); too many positional arguments, a missing or a repeated one a
    :class:`~dealframe.errors.CallError`; a value other than ``True``/``False`` (or None
    where the annotation allows it) for a parameter annotated ``bool`` a
    :class:`~dealframe.errors.ValidationError` naming it (``strict="false"`` would
    otherwise be true), as is anything but a client for a parameter annotated ``Client``.
    The signature seen by ``inspect`` and type checkers is unchanged. A method of a client
    or of its APIs, and a function given a client, runs as one call of that client
    (:func:`client_call`): its findings blank the client's tokens; a text argument there
    that UTF-8 cannot encode (a lone surrogate, :func:`unencodable`) is a
    :class:`~dealframe.errors.ValidationError` naming it (``names[0]``, ``filters.name``,
    ``path``) before the call sends anything or writes a file.

    Examples
    --------
    >>> @checked_keywords
    ... def pull(*, limit=None):
    ...     return limit
    >>> pull(limit=5)
    5
    >>> pull(limt=5)
    Traceback (most recent call last):
    ...
    dealframe.errors.UnknownArgumentError: invalid limt: expected a keyword of pull (did you mean 'limit'?); valid: limit, got 'limt'
    """
    signature = inspect.signature(function)
    parameters = signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return function  # it checks the names it collects itself
    names = frozenset(p.name for p in parameters if p.kind in _NAMED)
    label = function.__qualname__.removesuffix(".__init__")
    # a constructor checks its own fields, with its own error (ConfigurationError, Conventions.x)
    constructor = function.__name__ == "__init__"
    flags = {} if constructor else _annotated(parameters, _FLAG, _FLAG_OR_NONE)
    clients = {} if constructor else _annotated(parameters, _CLIENT, _CLIENT_OR_NONE)
    groups = getattr(function, KEYWORD_GROUPS, None)

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        if kwargs and not names.issuperset(kwargs):
            unknown = next(k for k in kwargs if k not in names)
            raise UnknownArgumentError(
                unknown, _as_typed(label, args), names - {"self", "cls"}, groups=groups
            )
        _check_flags(flags, kwargs)  # named first: they say most of what is wrong
        try:
            given = signature.bind(*args, **kwargs).arguments
        except TypeError as exc:
            raise CallError(_as_typed(label, args), _problem(signature, args, exc)) from None
        _check_flags(flags, given)
        for name, none_ok in clients.items():
            value = given.get(name)
            if name in given and not _is_client(value) and not (none_ok and value is None):
                raise ValidationError(name, "a dealframe.Client", got=type(value).__name__)
        owners = [given[name] for name in ("self", *clients) if name in given]
        # held in a Tokens: a traceback recording locals shows this frame (issue 8)
        secrets = Tokens(s for owner in owners for s in client_secrets(owner))
        if not secrets:
            return function(*args, **kwargs)
        with client_call(secrets):
            _check_texts(given, ("self", *clients))  # a call of a client: JSON and paths next
            return function(*args, **kwargs)

    return checked


#: How a user reaches the methods of these classes, for errors to name the call as typed.
_REACHED_AS = {"PublicApi": "client.public", "PrivateApi": "client.private", "Client": "client"}


def _as_typed(label: str, args: tuple[Any, ...]) -> str:
    """``label`` (``Class.method``) as the user typed the call: ``client.public.search``,
    ``client.public_v1.search`` (the instance's ``version``), ``client.private.companies``.

    Examples
    --------
    >>> _as_typed("PublicApi.search", ())
    'PublicApi.search'
    """
    owner, _, method = label.rpartition(".")
    reached = _REACHED_AS.get(owner)
    if reached is None or not args or type(args[0]).__name__ != owner:
        return label  # a function, a class method, a constructor: named as written
    if owner == "PublicApi" and getattr(args[0], "version", None) == "v1":
        reached = "client.public_v1"
    return f"{reached}.{method}"


def _problem(signature: inspect.Signature, args: tuple[Any, ...], exc: TypeError) -> str:
    """What :meth:`inspect.Signature.bind` refused, said for a user: a call of a
    keyword-only function with positional arguments names its keywords and the count."""
    parameters = list(signature.parameters.values())
    positional = [p for p in parameters if p.kind in _POSITIONAL]
    keywords = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
    extra = len(args) - len(positional)
    own = [p for p in positional if p.name not in {"self", "cls"}]
    if extra <= 0 or own or not keywords:
        return str(exc)
    shown = ", ".join(f"{name}=..." for name in keywords[:3]) + (
        ", ..." if len(keywords) > 3 else ""
    )
    plural = "s" if extra > 1 else ""
    return f"keyword arguments only: {shown}; got {extra} positional argument{plural}"


def checked_methods(cls: C) -> C:
    """Class decorator: :func:`checked_keywords` on ``__init__`` and every public method
    defined in the class (static and class methods included).

    Examples
    --------
    >>> @checked_methods
    ... class Api:
    ...     def deals(self, *, limit=None):
    ...         return limit
    >>> Api().deals(limits=1)
    Traceback (most recent call last):
    ...
    dealframe.errors.UnknownArgumentError: invalid limits: expected a keyword of Api.deals (did you mean 'limit'?); valid: limit, got 'limits'
    """
    for name, member in list(vars(cls).items()):
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, (staticmethod, classmethod)):
            setattr(cls, name, type(member)(checked_keywords(member.__func__)))
        elif inspect.isfunction(member):
            setattr(cls, name, checked_keywords(member))
    return cls
