"""Checking command-line options before anything starts, with did-you-mean.

Every ``dealframe`` command parses its options with :class:`Parser` and these ``type=``
functions, so a typo (an option, a region, an entity, a date) is reported by argparse at
parse time, in one line (``dealframe mirror sync: error: ...``) and with the closest valid
value, before a sandbox starts or a request is sent; the exit code is 2, as for any usage
error. Numbers are read one way by every option: a whole number is ASCII digits (an
optional ``+``, spaces around), a decimal one a finite decimal (``1.5``, ``1e3``); what
Python's ``int()``/``float()`` would add (``1_000``, ``0x10`` for ``int`` only by base,
``nan``, ``inf``, other scripts' digits) is refused.

Examples
--------
>>> region("western europe")
'Western Europe'
>>> choice("companies", "investors", "deals")("deal")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: 'deal' is not one of companies, investors, deals (did you mean 'deals'?)
"""

from __future__ import annotations

import argparse
import contextvars
import datetime as dt
import difflib
import ipaddress
import math
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

from dealframe._vocab import REGIONS
from dealframe.arguments import INT64_MAX, iso3
from dealframe.errors import ValidationError, did_you_mean
from dealframe.public.sku import sku_version
from dealframe.sandbox.arguments import MAX_SCALE, scale_expected
from dealframe.sandbox.faults import FAULT_KINDS

__all__ = [
    "ApiWorded",
    "Parser",
    "Several",
    "choice",
    "countries",
    "country",
    "day",
    "fault_kinds",
    "fault_script",
    "fraction",
    "host",
    "is_decimal",
    "is_whole",
    "looks_like_codes",
    "looks_like_skus",
    "non_negative",
    "non_negative_int",
    "one_line",
    "options_everywhere",
    "pattern",
    "port",
    "positive",
    "positive_int",
    "region",
    "seconds_up_to",
    "sku",
    "skus",
    "spoken",
    "texts",
    "unquoted",
    "whole_from",
]


#: A run of white space holding a line break (any of ``str.splitlines``'s).
_BREAK = re.compile(
    r"[^\S\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]*"
    r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]\s*"
)


def one_line(message: object) -> str:
    """``message`` as one line: each run of white space holding a line break becomes one
    space; other spaces are kept (a value quoted in it, ``'   '``, stays what was given: a
    quoted value's own line breaks are escaped, ``'a\\nb'``).

    Examples
    --------
    >>> one_line("invalid --out: expected a folder,\\n    got '   '")
    "invalid --out: expected a folder, got '   '"
    """
    return _BREAK.sub(" ", str(message)).strip()


def choice(*choices: str, as_api: bool = False) -> Callable[[str], str]:
    """A ``type=`` that takes one of ``choices`` (case-insensitively), with did-you-mean.

    With ``as_api`` the refusal is worded as the Python API's
    :class:`~dealframe.errors.ValidationError` (``invalid --option: expected one of ...
    (did you mean ...), got '...'``; :class:`Parser` puts the ``invalid --option`` before it,
    the refusal being an :class:`ApiWorded`), for options whose Python argument says it so
    (``mirror``'s ``--entity``, ``--entities``).

    Examples
    --------
    >>> choice("deals", "investors", as_api=True)("deal")
    Traceback (most recent call last):
    ...
    dealframe.cli_options.ApiWorded: expected one of deals, investors (did you mean 'deals'?), got 'deal'
    """
    by_fold = {c.casefold(): c for c in choices}

    def check(value: str) -> str:
        found = by_fold.get(value.strip().casefold())
        if found is None:
            hint = did_you_mean(value, choices)
            if as_api:
                raise _as_api(f"one of {', '.join(choices)}{hint}", value)
            raise argparse.ArgumentTypeError(f"{value!r} is not one of {', '.join(choices)}{hint}")
        return found

    check.__name__ = "choice"
    return check


class ApiWorded(argparse.ArgumentTypeError):
    """A ``type=``'s refusal worded as :class:`~dealframe.errors.ValidationError`'s
    ``expected ..., got ...``: :class:`Parser` says it as the API does, ``invalid --x:
    expected ..., got ...``, where argparse would say ``argument --x: expected ...``. Only
    these are so worded: argparse's own ``expected one argument`` (an option given without
    its value) is left as argparse says it."""


def _as_api(expected: str, value: str) -> ApiWorded:
    """A refusal worded as :class:`~dealframe.errors.ValidationError`'s (:class:`ApiWorded`)."""
    return ApiWorded(f"expected {expected}, got {value!r}")


def region(value: str) -> str:
    """A region of the interface document's vocabulary (any case), with did-you-mean.

    A typo is refused in the one wording of a region typo (the Python API's and
    ``dealframe report``'s :class:`~dealframe.errors.EnumValueError`): ``invalid --region:
    expected one of Africa, ..., Western Europe (did you mean ...?), got '...'``.

    Examples
    --------
    >>> region("westren europe")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealframe.cli_options.ApiWorded: expected one of Africa, ..., Western Europe (did you mean 'Western Europe'?), got 'westren europe'
    """
    return choice(*REGIONS, as_api=True)(value)


def country(value: str) -> str:
    """A country code as the client's country filters take it (:func:`~dealframe.arguments.iso3`:
    an assigned ISO 3166-1 alpha-3 code in upper case, or ``XKX``), spaces around set aside
    as ``dealframe pull``'s list options set them aside. ``gbr`` and ``GER`` are refused as
    ``pull`` and the Python API refuse them, in their words, with the code meant.

    Examples
    --------
    >>> country(" DEU ")
    'DEU'
    >>> country("gbr")
    Traceback (most recent call last):
    ...
    dealframe.cli_options.ApiWorded: expected an upper-case ISO 3166 alpha-3 code such as 'USA' (did you mean 'GBR'?), got 'gbr'
    >>> country("GER")
    Traceback (most recent call last):
    ...
    dealframe.cli_options.ApiWorded: expected an upper-case ISO 3166 alpha-3 code such as 'USA' (did you mean 'DEU', Germany? 'GER' is no ISO 3166 code), got 'GER'
    """
    try:
        return iso3(value.strip(), "--country")
    except ValidationError as error:
        raise _as_api(error.expected, value.strip()) from None


def countries(value: str) -> list[str]:
    """One or more country codes, comma-separated as ``dealframe pull``'s list options take
    them (``DEU,FRA``; blanks between commas set aside), each checked as by :func:`country`.

    Examples
    --------
    >>> countries("DEU, FRA,"), countries("GBR")
    (['DEU', 'FRA'], ['GBR'])
    >>> countries("DEU,GER")
    Traceback (most recent call last):
    ...
    dealframe.cli_options.ApiWorded: expected an upper-case ISO 3166 alpha-3 code such as 'USA' (did you mean 'DEU', Germany? 'GER' is no ISO 3166 code), got 'GER'
    """
    parts = [part for part in value.split(",") if part.strip()]
    return [country(part) for part in parts] if parts else [country(value)]


def day(value: str) -> str:
    """A date ``YYYY-MM-DD``."""
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date YYYY-MM-DD") from None


#: A whole number as every integer option reads it: ASCII digits, an optional sign and
#: spaces around (each option then checks its range: ``-0`` is 0). ``int()`` alone would also
#: read ``1_000`` and other scripts' digits.
_WHOLE = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)

#: A number as every decimal option reads it: ASCII digits with an optional sign, point and
#: exponent (``1.5``, ``.5``, ``1e3``). ``float()`` alone would also read ``1_0``, other
#: scripts' digits, ``nan`` and ``inf``.
_DECIMAL = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII)


def is_whole(value: str) -> bool:
    """Whether ``value`` is written as a whole number the options take (:data:`_WHOLE`).

    Examples
    --------
    >>> is_whole("15"), is_whole(" +15 "), is_whole("-0"), is_whole("1_000"), is_whole("1e3")
    (True, True, True, False, False)
    """
    return _WHOLE.fullmatch(value) is not None


def is_decimal(value: str) -> bool:
    """Whether ``value`` is written as a number the options take (:data:`_DECIMAL`): a
    finite decimal, never ``nan``, ``inf``, ``1_0`` or ``0x10``.

    Examples
    --------
    >>> is_decimal("2.5"), is_decimal("1e3"), is_decimal("nan"), is_decimal("1_0")
    (True, True, False, False)
    """
    return _DECIMAL.fullmatch(value) is not None


def _number(value: str, low: float, strict: bool, what: str) -> float:
    number = float(value) if is_decimal(value) else math.nan
    if not math.isfinite(number) or number < low or (strict and number == low):
        raise argparse.ArgumentTypeError(f"{value!r} is not {what}")
    return number


def positive(value: str) -> float:
    """A finite number above 0."""
    return _number(value, 0.0, True, "a number above 0")


def sandbox_scale(value: str) -> float:
    """A sandbox data scale: above 0 and at most the sandbox's maximum, refused before the
    sandbox starts generating (argparse names ``--scale`` in the error).

    Examples
    --------
    >>> sandbox_scale("0.5")
    0.5
    >>> sandbox_scale("1000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1000' is not a number above 0 and at most 20 (the sandbox's largest data: 1,000,000 deals, 400,000 companies; see docs/sandbox.md)
    """
    number = _number(value, 0.0, True, "a number above 0")
    if number > MAX_SCALE:
        raise argparse.ArgumentTypeError(f"{value!r} is not {scale_expected()}")
    return number


def seconds_up_to(longest: float, why: str) -> Callable[[str], float]:
    """A ``type=`` taking seconds from 0 to ``longest`` (``why``: what bounds it, said in the
    error argparse gives naming the flag).

    Examples
    --------
    >>> wait = seconds_up_to(300, "the doctor waits 300 s in all")
    >>> wait("5")
    5.0
    >>> wait("600")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '600' is not a number of seconds from 0 to 300 (the doctor waits 300 s in all)
    """

    def seconds(value: str) -> float:
        number = non_negative(value)
        if number > longest:
            raise argparse.ArgumentTypeError(
                f"{value!r} is not a number of seconds from 0 to {longest:,.0f} ({why})"
            )
        return number

    return seconds


def non_negative(value: str) -> float:
    """A finite number of 0 or more."""
    return _number(value, 0.0, False, "a number of 0 or more")


def fraction(value: str) -> float:
    """A number from 0 to 1.

    Examples
    --------
    >>> fraction("0.25")
    0.25
    """
    number = _number(value, 0.0, False, "a number from 0 to 1")
    if number > 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number from 0 to 1")
    return number


def port(value: str) -> int:
    """A TCP port, 0 to 65535 (0: any free one)."""
    if not is_whole(value) or not 0 <= int(value) <= 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port from 0 to 65535")
    return int(value)


#: One label of a host name (RFC 1123): letters, digits and '-', not at either end.
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def host(value: str) -> str:
    """An interface to listen on: an IP address or a host name, checked by its syntax only
    (whether the name resolves is seen when the server starts).

    Parameters
    ----------
    value : str
        The option's text (``--host``); spaces around it are dropped.

    Returns
    -------
    str
        The address or name, stripped.

    Raises
    ------
    argparse.ArgumentTypeError
        Neither an IP address (v4 or v6) nor a host name of letters, digits, ``-`` and ``.``
        (at most 253 characters, a last label that is not all digits); argparse reports it
        as a usage error naming the option.

    Examples
    --------
    >>> host("0.0.0.0"), host("::1"), host("localhost")
    ('0.0.0.0', '::1', 'localhost')
    >>> host("not a host")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'not a host' is not a host: an IP address (127.0.0.1, 0.0.0.0, ::1) or a host name (letters, digits, '-' and '.')
    """
    text = value.strip()
    try:
        ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        return text
    labels = text[:-1].split(".") if text.endswith(".") else text.split(".")
    if (
        len(text) <= 253
        and all(_LABEL.fullmatch(label) for label in labels)
        and not labels[-1].isdigit()  # 999.1.1.1 is no IP address, and no name either
    ):
        return text
    raise argparse.ArgumentTypeError(
        f"{value!r} is not a host: an IP address (127.0.0.1, 0.0.0.0, ::1) or a host name "
        "(letters, digits, '-' and '.')"
    )


def _whole(value: str, low: int, high: int | None = None) -> int:
    """A whole number from ``low`` to ``high`` (default 2**63 - 1, what the library's counts
    take), written as :func:`is_whole` says, refused by argparse, which names the option,
    before anything runs."""
    if high is not None:
        if not is_whole(value) or not low <= int(value) <= high:
            raise argparse.ArgumentTypeError(
                f"{value!r} is not a whole number from {low} to {high}"
            )
        return int(value)
    if not is_whole(value) or int(value) < low:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of {low} or more")
    if int(value) > INT64_MAX:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a whole number of {low} or more, at most {INT64_MAX} (2**63 - 1)"
        )
    return int(value)


def whole_from(low: int, high: int) -> Callable[[str], int]:
    """A ``type=`` for a whole number from ``low`` to ``high`` (``report --top``).

    Examples
    --------
    >>> whole_from(1, 100)("15")
    15
    >>> whole_from(1, 100)("1_000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1_000' is not a whole number from 1 to 100
    """

    def check(value: str) -> int:
        return _whole(value, low, high)

    check.__name__ = "whole_from"
    return check


def non_negative_int(value: str) -> int:
    """A whole number of 0 or more (a seed).

    Examples
    --------
    >>> non_negative_int("0")
    0
    >>> non_negative_int(str(2**64))
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '18446744073709551616' is not a whole number of 0 or more, at most 9223372036854775807 (2**63 - 1)
    """
    return _whole(value, 0)


def positive_int(value: str) -> int:
    """A whole number of 1 or more.

    Examples
    --------
    >>> positive_int("15")
    15
    """
    return _whole(value, 1)


def sku(value: str) -> str:
    """A Family A SKU of either version."""
    if sku_version(value.strip()) is None:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a SKU (v2 TICKER-ISO3[.N], or v1 EXCHANGE_TICKER)"
        )
    return value.strip()


def fault_kinds(value: str) -> tuple[str, ...]:
    """Fault kinds joined by commas, each one the sandbox knows (with did-you-mean).

    Examples
    --------
    >>> fault_kinds("429, slow")
    ('429', 'slow')
    >>> fault_kinds("429,trunc")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'trunc' is not a fault kind (did you mean 'truncate'?); kinds: 429, 500, 502, 503, 504, slow, truncate, cut, drop
    """
    kinds = tuple(k.strip() for k in value.split(","))
    for kind in kinds:
        if kind not in FAULT_KINDS:
            raise argparse.ArgumentTypeError(
                f"{kind!r} is not a fault kind{did_you_mean(kind, FAULT_KINDS)}; "
                f"kinds: {', '.join(FAULT_KINDS)}"
            )
    return kinds


def pattern(value: str) -> str:
    """A regular expression (checked that it compiles)."""
    try:
        re.compile(value)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"{value!r} is not a regular expression ({exc})") from None
    return value


def fault_script(value: str) -> tuple[str, list[str | None]]:
    """``REGEX=KIND,KIND,...``: a path pattern and the faults its next requests get in order
    (``pass`` lets one through).

    Examples
    --------
    >>> fault_script("/companies$=429,pass,drop")
    ('/companies$', ['429', None, 'drop'])
    """
    where, sep, kinds = value.rpartition("=")
    if not sep or not kinds.strip():
        raise argparse.ArgumentTypeError(
            f"{value!r} is not REGEX=KIND,... (e.g. '/companies$=429,503,pass')"
        )
    listed = [k.strip() for k in kinds.split(",")]
    known = [k for k in listed if k != "pass"]
    try:
        fault_kinds(",".join(known)) if known else ()
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or pass)") from None
    return pattern(where), [None if k == "pass" else k for k in listed]


def _parts(names: tuple[str, ...], as_api: bool = False) -> Callable[[str], list[str]]:
    """A ``type=`` for one or more of ``names`` joined by commas, each checked (``as_api``:
    as :func:`choice` words it)."""
    one = choice(*names, as_api=as_api)

    def parts(value: str) -> list[str]:
        given = [part for part in value.split(",") if part.strip()]
        if not given:
            raise argparse.ArgumentTypeError(f"{value!r} names none of {', '.join(names)}")
        return [one(part) for part in given]

    return parts


class Several(argparse.Action):
    """An option taking one or more values: ``--entities deals,companies``, ``--entities deals
    companies`` or ``--entities deals --entities companies`` (each checked, with did-you-mean;
    given twice, the values add up).

    The words after the option are its values while they look like one (:meth:`wants`):
    ``mirror sync --entities deals PATH`` leaves ``PATH`` to the command (plain
    ``nargs='+'`` would take it as a value). :class:`Parser` does this. The values are either
    one or more of ``names`` (a refused one worded as the Python API words it with
    ``as_api=True``, see :func:`choice`), or what ``type`` reads from a comma-separated value
    (a function of ``str`` to a list), a word after the first being taken while ``takes``
    says it is one (by default every word that is not an option: free text, such as
    ``--industry``). When a command then lacks an argument, :class:`Parser` says which
    option took which word, and to give the argument before the option.

    Examples
    --------
    >>> p = Parser(prog="x")
    >>> _ = p.add_argument("path")
    >>> _ = p.add_argument("--entities", action=Several, names=("companies", "deals"))
    >>> vars(p.parse_args(["--entities", "deals", "companies", "m"]))
    {'path': 'm', 'entities': ['deals', 'companies']}
    >>> p.parse_args(["m", "--entities", "deals,companies"]).entities
    ['deals', 'companies']
    >>> _ = p.add_argument("--country", action=Several, type=countries, takes=looks_like_codes)
    >>> vars(p.parse_args(["--country", "DEU", "FRA,GBR", "m"]))
    {'path': 'm', 'entities': None, 'country': ['DEU', 'FRA', 'GBR']}
    """

    def __init__(
        self,
        option_strings: list[str],
        dest: str,
        *,
        names: Any = None,
        as_api: bool = False,
        type: Callable[[str], list[str]] | None = None,
        takes: Callable[[str], bool] | None = None,
        **kwargs: Any,
    ) -> None:
        self.names = None if names is None else tuple(names)
        self.takes = takes
        if self.names is not None:
            type = _parts(self.names, as_api)
        elif type is None:
            type = texts
        kwargs.setdefault("metavar", "NAME[,NAME...]" if self.names else "VALUE[,VALUE...]")
        super().__init__(option_strings, dest, type=type, **kwargs)

    def wants(self, word: str) -> bool:
        """Whether ``word`` (after a first value) is one more value rather than the next
        argument: one of the names, or a typo of one (refused then, with did-you-mean); else
        what ``takes`` says; else any word that is not an option."""
        if word.startswith("-"):
            return False
        if self.names is None:
            return self.takes is None or self.takes(word)
        folded = {n.casefold() for n in self.names}
        parts = [part.strip() for part in word.split(",") if part.strip()]
        return bool(parts) and all(
            p.casefold() in folded or did_you_mean(p, self.names) for p in parts
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, given + [v for v in values if v not in given])


def texts(value: str) -> list[str]:
    """Free-text values, comma-separated as ``dealframe pull``'s list filters take them
    (blanks between commas and spaces around each set aside): ``--industry``.

    Examples
    --------
    >>> texts("Fintech, Software,")
    ['Fintech', 'Software']
    >>> texts(" , ")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: ' , ' names no value
    """
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"{value!r} names no value")
    return parts


def _positionals(parser: argparse.ArgumentParser) -> list[str]:
    """The names of ``parser``'s positional arguments as its usage writes them (``PATH``),
    sub-commands aside."""
    return [
        str(a.metavar or a.dest)
        for a in parser._actions
        if not a.option_strings and not isinstance(a, argparse._SubParsersAction)
    ]


def _refuses(message: str, option: str, word: str) -> bool:
    """Whether the usage error ``message`` refuses ``word`` as a value of ``option``
    (``invalid --country: ... got 'out'``, ``argument --region: ... 'out'``), other than as a
    typo of one (did-you-mean says that)."""
    return (
        bool(re.match(rf"(invalid|argument) {re.escape(option)}\b", message))
        and message.rstrip().endswith(f"got {word!r}")  # not an example the message quotes
        and "did you mean" not in message  # a typo of a value, said as such
    )


def looks_like_codes(word: str) -> bool:
    """Whether ``word`` is meant as country codes (:func:`countries`): two or three letters,
    comma-separated; a typo (``gbr``, ``GER``, ``DE``) is taken, to be refused with the code
    meant, a path (``./mirror``, ``mirror``) is not.

    Examples
    --------
    >>> looks_like_codes("GBR,deu"), looks_like_codes("DE"), looks_like_codes("mirror")
    (True, True, False)
    """
    parts = [part.strip() for part in word.split(",") if part.strip()]
    return bool(parts) and all(re.fullmatch(r"[A-Za-z]{2,3}", part) for part in parts)


def skus(value: str) -> list[str]:
    """One or more SKUs, comma-separated, each checked as by :func:`sku`.

    Examples
    --------
    >>> skus("CELZ-GBR, NYSE_IBM")
    ['CELZ-GBR', 'NYSE_IBM']
    """
    return [sku(part) for part in texts(value)]


def looks_like_skus(word: str) -> bool:
    """Whether ``word`` is SKUs (:func:`skus`) rather than a path: each comma-separated part
    is a SKU of either version and holds no ``/``.

    Examples
    --------
    >>> looks_like_skus("CELZ-GBR,TOR-GBR"), looks_like_skus("./mirror"), looks_like_skus("m")
    (True, False, False)
    """
    parts = [part.strip() for part in word.split(",") if part.strip()]
    return bool(parts) and all("/" not in p and sku_version(p) is not None for p in parts)


def _joined(
    parser: argparse.ArgumentParser, argv: list[str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """``argv`` with the values of each :class:`Several` option joined into one token
    (``--entities deals companies`` -> ``--entities=deals,companies``), and each option that
    took more than one word with the last word it took (for :meth:`Parser.error`, should an
    argument then be missing: ``--industry took 'mirror' as one of its values``)."""
    several = {
        s: action
        for action in parser._actions
        if isinstance(action, Several)
        for s in action.option_strings
    }
    out: list[str] = []
    took: list[tuple[str, str]] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            return out + [token, *argv[i:]], took
        action = several.get(token)
        if action is None or i == len(argv) or argv[i].startswith("-"):
            out.append(token)  # no value: argparse says "expected one argument"
            continue
        values = [argv[i]]
        i += 1
        while i < len(argv) and action.wants(argv[i]):
            values.append(argv[i])
            i += 1
        if len(values) > 1:
            took.append((token, values[-1]))
        out.append(f"{token}={','.join(values)}")
    return out, took


def _options(parser: argparse.ArgumentParser) -> set[str]:
    """The long option strings of ``parser`` itself."""
    return {
        s
        for action in parser._actions
        for s in action.option_strings  # no public view
        if s.startswith("--")
    }


def _hint(word: str, options: set[str]) -> str:
    """`` (did you mean '--x'?)`` for an unknown option ``word``; a one-letter one suggests
    the only long option of that letter (``-V``: ``--version``)."""
    hint = did_you_mean(word, options)
    if hint or not re.fullmatch(r"-[A-Za-z]", word):
        return hint
    same = sorted(o for o in options if o[2:3].casefold() == word[1].casefold())
    return f" (did you mean {same[0]!r}?)" if len(same) == 1 else ""


def _named(action: argparse.Action) -> str | None:
    """How a refusal names ``action``'s option: its first long option string (``--entity``),
    else its first one; None for a positional argument."""
    strings = action.option_strings
    return next((s for s in strings if s.startswith("--")), strings[0] if strings else None)


def _commands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[Any] | None:
    """The sub-commands of ``parser``, if it has any."""
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _chosen(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The (sub-)command parser that ``argv`` selects."""
    commands = _commands(parser)
    if commands is not None:
        for i, token in enumerate(argv):
            if token in commands.choices:
                return _chosen(commands.choices[token], argv[i + 1 :])
    return parser


def spoken(word: str, options: Iterable[str], everywhere: Iterable[str] = ()) -> str | None:
    """How a usage error names ``word``, an argument not taken: as the option it is or
    closely misspells, its value left out (``--public-tokn`` for ``--public-tokn=SECRET``,
    with did-you-mean against ``options``, the command's, then ``everywhere``, the options of
    every dealframe command; ``-V``, a letter of one long option), or a one-letter option
    (``-x``: no token is that short); else None: not quoted (a token may begin with ``-``:
    ``--public-token -SECRET``, ``-pSECRET``, ``--sk_live_SECRET``).

    Examples
    --------
    >>> opts = {"--public-token", "--version"}
    >>> spoken("--public-tokn=SECRET", opts), spoken("-V", opts), spoken("--version", opts)
    ("--public-tokn (did you mean '--public-token'?)", "-V (did you mean '--version'?)", '--version')
    >>> spoken("-SECRET", opts), spoken("-pSECRET", opts), spoken("--xyz=SECRET", opts)
    (None, None, None)
    >>> spoken("--versionSECRET", opts) is None, spoken("-x", opts)
    (True, '-x')
    >>> spoken("--sandbox", opts, {"--sandbox"}), spoken("--no-progres", opts, {"--no-progress"})
    ('--sandbox', "--no-progres (did you mean '--no-progress'?)")
    >>> spoken("--region", {"--regions"}, {"--region"})  # another command's, a slip of ours
    "--region (did you mean '--regions'?)"
    """
    options, everywhere = set(options), set(everywhere)
    name = word.split("=", 1)[0]
    if name in options:
        return name
    if not re.fullmatch(r"--[A-Za-z][\w-]*|-[A-Za-z]", name):
        return name if name in everywhere else None
    # the command's own options first; an option of another command is only named
    pools = (options,) if name in everywhere else (options, everywhere | options)
    for pool in pools:
        pool = {o for o in pool if o.startswith("--")}
        hint = _hint(name, pool)
        # a slip of a letter or two, not a word that merely begins like an option
        close = difflib.get_close_matches(name.casefold(), [o.casefold() for o in pool], 1, 0.8)
        if hint and (close or len(name) == 2):
            return f"{name}{hint}"
    return name if len(name) == 2 or name in everywhere else None


def unquoted(count: int) -> str:
    """How a usage error counts the arguments it does not quote (:func:`spoken`).

    Examples
    --------
    >>> unquoted(1), unquoted(2)
    ('1 argument not quoted (it may hold a token)', '2 arguments not quoted (one may hold a token)')
    """
    if count == 1:
        return "1 argument not quoted (it may hold a token)"
    return f"{count} arguments not quoted (one may hold a token)"


def _unrecognized(words: list[str], options: set[str], everywhere: set[str]) -> str:
    """argparse's "unrecognized arguments" said without quoting a value: an option of any
    dealframe command (``everywhere``) or a close slip of one by its name (:func:`spoken`),
    everything else counted (one may be a token: ``doctor --public-token A B``,
    ``doctor --public-tokn -SECRET``).

    Examples
    --------
    >>> _unrecognized(["--public-tokn=SECRET", "B", "-Cx"], {"--public-token"}, set())
    "unrecognized arguments: --public-tokn (did you mean '--public-token'?); 2 arguments not quoted (one may hold a token)"
    """
    said = [name for name in (spoken(w, options, everywhere) for w in words) if name is not None]
    if len(words) > len(said):
        said.append(unquoted(len(words) - len(said)))
    return f"unrecognized arguments: {'; '.join(said)}"


def options_everywhere(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings of ``parser`` and of every sub-command under it.

    Examples
    --------
    >>> p = Parser(prog="x")
    >>> _ = p.add_argument("--region")
    >>> _ = p.add_subparsers().add_parser("go").add_argument("-n", "--dry-run")
    >>> sorted(options_everywhere(p))
    ['--dry-run', '--help', '--region', '-h', '-n']
    """
    found: set[str] = set()
    seen: set[int] = set()
    todo = [parser]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.update(s for action in current._actions for s in action.option_strings)
        commands = _commands(current)
        if commands is not None:
            todo.extend(commands.choices.values())
    return found


class _Once(argparse._StoreAction):
    """argparse's ``store`` for an option of a :class:`Parser`: given a second time, it is
    refused (argparse would keep the last value and drop the first without a word). An
    option that takes several values after it (``nargs="+"``) is refused given twice too.
    Options that may be repeated say so with ``action="append"`` or :class:`Several`.

    Examples
    --------
    >>> p = Parser(prog="x")
    >>> _ = p.add_argument("--region")
    >>> p.parse_args(["--region", "A"]).region
    'A'
    >>> p.parse_args(["--region", "A", "--region", "B"])  # doctest: +SKIP
    x: error: argument --region: given twice; it takes one value (see x --help)
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = getattr(parser, "_given", None)
        if self.option_strings and given is not None:
            if self.dest in given:
                several = self.nargs in ("+", "*") or isinstance(self.nargs, int)
                takes = f"every value after one {option_string}" if several else "one value"
                # the values are not quoted: one may be a token (doctor --public-token)
                raise argparse.ArgumentError(self, f"given twice; it takes {takes}")
            given[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


#: The outermost :class:`Parser` of the parse under way (its sub-commands parse within it).
_PARSING: contextvars.ContextVar[argparse.ArgumentParser | None] = contextvars.ContextVar(
    "_PARSING", default=None
)


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors are one line (no usage block, for
    scheduler logs), prefixed by the sub-command, suggesting the closest option or choice.

    An unknown option before the sub-command (``dealframe --verison``) is refused as such,
    with did-you-mean, before argparse would ask for the missing sub-command or ignore it.
    An option of one value given twice (``--region A --region B``) is refused, naming it,
    where argparse would silently keep the last. Sub-command parsers made with
    ``add_subparsers`` are of this class too.
    """

    _argv: list[str] = []
    _given: dict[str, Any] | None = None
    #: The :class:`Several` options of the parse under way that took more than one word,
    #: with the last word each took.
    _took: list[tuple[str, str]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)  # every option of one value: given once
        self.register("action", "store", _Once)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        outermost = _PARSING.set(_PARSING.get() or self)  # a sub-command's: the root's
        try:
            self._argv = list(sys.argv[1:] if args is None else args)
            self._check_before_command(self._argv)
            self._given = {}
            joined, self._took = _joined(self, self._argv)
            return super().parse_known_args(joined, namespace)
        finally:
            self._given = None
            self._took = []
            _PARSING.reset(outermost)

    def _everywhere(self) -> set[str]:
        """The options of every command of the parse under way (:func:`options_everywhere` of the
        outermost parser)."""
        return options_everywhere(_PARSING.get() or self)

    def _known(self, token: str) -> argparse.Action | None:
        """The option ``token`` names (``--opt``, ``--opt=value`` or a unique prefix)."""
        name = token.split("=", 1)[0]
        known = self._option_string_actions
        if name in known:
            return known[name]
        found = {a for s, a in known.items() if self.allow_abbrev and s.startswith(name)}
        return found.pop() if name.startswith("--") and len(found) == 1 else None

    def _check_before_command(self, argv: list[str]) -> None:
        """Refuse an unknown option before the sub-command (there, argparse would only say
        the sub-command is missing, or leave the option unread)."""
        if _commands(self) is None:
            return
        skip = False
        for token in argv:
            if skip:
                skip = False
            elif not token.startswith("-") or token in ("-", "--"):
                return  # the sub-command (argparse checks it)
            elif (action := self._known(token)) is None:  # its value is not quoted
                self._say(self.prog, _unrecognized([token], _options(self), self._everywhere()))
            else:
                skip = action.nargs != 0 and "=" not in token

    def error(self, message: str) -> NoReturn:
        chosen = _chosen(self, self._argv)
        unknown = re.match(r"unrecognized arguments: (.*)", message)
        if unknown:
            words = unknown.group(1).split()
            message = _unrecognized(words, _options(chosen), self._everywhere())
        invalid = re.match(
            r"(argument .*: invalid choice: '([^']*)' \(choose from (.*)\))$", message
        )
        if invalid:
            choices = re.findall(r"'([^']*)'", invalid.group(3))
            word = invalid.group(2)
            # a few short words (sub-commands): 'sink' is half 'sync', below did_you_mean's bar
            close = did_you_mean(word, choices) or "".join(
                f" (did you mean {c!r}?)" for c in difflib.get_close_matches(word, choices, 1, 0.5)
            )
            message = invalid.group(1) + close
        missing = re.fullmatch(r"the following arguments are required: (.*)", message)
        taken: list[tuple[str, str]] = getattr(chosen, "_took", [])
        if missing and taken:  # a list option may have taken it
            took = "; ".join(f"{o} took {word!r} as one of its values" for o, word in taken)
            first = ", ".join(dict.fromkeys(o for o, _ in taken))
            message += f" ({took}: give {missing.group(1)} before {first})"
        elif refused := [(o, w) for o, w in taken if _refuses(message, o, w)]:
            option, word = refused[0]  # a list option took the next argument and refused it
            meant = " or ".join(_positionals(chosen)) or "an argument"
            message += (
                f" ({option} took {word!r} as one of its values: if it is {meant}, give it "
                f"before {option})"
            )
        self._say(chosen.prog, message)

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        """The value of ``arg_string`` for ``action`` (argparse's), a refusal worded as the
        Python API's (:class:`ApiWorded`: a choice made with ``as_api=True``) said as the API
        says it: ``invalid --entity: expected one of ..., got '...'``, not ``argument
        --entity: ...``. argparse raises its ``ArgumentError`` while handling the type's
        refusal, so that refusal is the error's context."""
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as exc:
            refused = exc.__context__
            if not isinstance(refused, ApiWorded):
                raise
            named = _named(action) or exc.argument_name
            raise argparse.ArgumentError(None, f"invalid {named}: {refused}") from None

    @staticmethod
    def _say(prog: str, message: str) -> NoReturn:
        """The one-line usage error of ``prog``; exit status 2."""
        print(f"{prog}: error: {one_line(message)} (see {prog} --help)", file=sys.stderr)
        raise SystemExit(2)
