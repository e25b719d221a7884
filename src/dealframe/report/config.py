"""A TOML file of cohorts, so one nightly run writes a report per cohort.

::

    # nightly.toml
    out = "reports"          # each cohort is written to reports/<name>/
    metric = "ev_revenue"    # optional, for every cohort (default ev_revenue)
    top = 15                 # optional (default 15)

    [[cohort]]
    name = "we-fintech"
    region = "Western Europe"
    vertical = "Fintech"
    since = "2023-01-01"

    [[cohort]]
    name = "na-venture"
    region = "North America"
    deal_type = ["Venture", "Growth"]
    metric = "ev_ebitda"     # a cohort may set its own metric and top

Everything is checked when the file is read, before anything starts: unknown keys (with the
closest valid one), every cohort as :func:`~.cohort.parse_cohort` checks it, folder names
that two cohorts would share. ``cohort`` is an array of tables (``[[cohort]]``, double
brackets, even for one); a single ``[cohort]`` table is refused as such. ``since`` is
``YYYY-MM-DD`` text or a TOML date: a TOML date-time or time (or any other value) is refused,
not cut to a day. ``out`` is a folder path in text (any other value is refused as such);
an ``out`` given to :func:`parse_config` or :func:`load_config` (``--out``) wins over the
file's, which is then not read. Errors name the file and the cohort, and say a value in
TOML's words (:func:`toml_words`: text as a TOML basic string, a date, a boolean, an array,
a table, wherever it is in the file), never as a Python type or ``repr``, and shortly (about
80 characters, then ``...``, as :class:`~dealframe.errors.ValidationError` says its value).

Examples
--------
>>> jobs = parse_config({"out": "r", "cohort": [{"region": "Oceania"}]}, "x.toml")
>>> jobs[0].out.as_posix(), jobs[0].cohort.label
('r/oceania', 'Oceania')
>>> parse_config({"out": "r", "cohort": {"region": "Oceania"}}, "x.toml")
Traceback (most recent call last):
...
dealframe.report.config.ConfigError: x.toml: invalid cohort: expected an array of tables ([[cohort]], with the double brackets), got a single table [cohort]
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealframe.arguments import integer_in
from dealframe.errors import ValidationError, did_you_mean, without_python_types

from .cohort import COHORT_KEYS, Cohort, check_metric, parse_cohort

__all__ = [
    "CONFIG_KEYS",
    "ConfigError",
    "ReportJob",
    "cohort_place",
    "in_file_words",
    "load_config",
    "parse_config",
    "toml_words",
]

#: Top-level keys of a config file.
CONFIG_KEYS: tuple[str, ...] = ("out", "metric", "top", "cohort")
_ENTRY_KEYS = (*COHORT_KEYS, "metric", "top")


@dataclass(frozen=True)
class ReportJob:
    """One report to write: its cohort, folder and options."""

    cohort: Cohort
    out: Path
    metric: str = "ev_revenue"
    top: int = 15


class ConfigError(ValidationError):
    """A config file that cannot be used (its path and the place in it are in the message)."""

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        self.expected = message
        Exception.__init__(self, message)


#: What a cohort's ``since`` may be in a file, in a file's words.
SINCE_EXPECTED = 'a date YYYY-MM-DD (a quoted "2024-01-05" or a TOML date 2024-01-05)'


def toml_words(value: Any) -> str:
    """``value`` as read from a TOML file, said as the file wrote it: its TOML type and,
    for a scalar or an array, its value as TOML writes it (text as a basic string, with
    TOML's escapes), no Python type or ``repr``, cut after about 80 characters (``...``) as
    :class:`~dealframe.errors.ValidationError` cuts its value. A value that is no TOML value
    (a document built in Python) is said as what it is.

    Examples
    --------
    >>> toml_words(dt.datetime(2024, 1, 5, 10, 0)), toml_words(dt.time(10, 0))
    ('a TOML date-time 2024-01-05T10:00:00', 'a TOML time 10:00:00')
    >>> toml_words(dt.datetime(2024, 1, 5, 10, 0, tzinfo=dt.timezone.utc))
    'a TOML date-time 2024-01-05T10:00:00Z'
    >>> toml_words(dt.date(2024, 1, 5)), toml_words(True), toml_words("x")
    ('a TOML date 2024-01-05', 'a TOML boolean true', 'a TOML string "x"')
    >>> toml_words([dt.date(2024, 1, 5), "Oceania"]), toml_words({"a": 1})
    ('a TOML array [2024-01-05, "Oceania"]', 'a TOML table')
    >>> toml_words(None), toml_words((1, 2))
    ('None (not a TOML value)', 'a tuple (not a TOML value)')
    >>> toml_words('We"s\\x07'), len(toml_words("x" * 5000))
    ('a TOML string "We\\\\"s\\\\u0007"', 97)
    """
    kind = _toml_kind(value)
    if kind is None:
        return f"{_python_name(value)} (not a TOML value)"
    if kind == "table":
        return "a TOML table"
    return f"a TOML {kind} {_shortened(_toml_text(value))}"


#: How long the items of an array said by :func:`toml_words` may be before ``...``.
_ARRAY_WIDTH = 60

#: How many characters of a value a message says before ``...``: as many as
#: :class:`~dealframe.errors.ValidationError` says of its ``got``.
_SHOWN = 80


def _shortened(text: str) -> str:
    """``text`` cut as :class:`~dealframe.errors.ValidationError` cuts the value it got: its
    first 80 characters, then ``...``."""
    return text[:_SHOWN] + "..." if len(text) > _SHOWN else text


#: What JSON leaves as it is that a TOML basic string does not take, or no stream can write:
#: DEL, and a lone surrogate (of a document built in Python; TOML has none).
_UNSAID = re.compile("[\x7f\ud800-\udfff]")


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: JSON's escapes are TOML's, and DEL, which JSON
    leaves as it is and TOML does not take unescaped, is escaped too, as is a lone
    surrogate (an escaped code point, ``"\\ud800"``), which a UTF-8 stream cannot write."""
    text = json.dumps(text, ensure_ascii=False)
    return _UNSAID.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def cohort_place(source: str, i: int, name: Any) -> str:
    """Where cohort ``i`` (from 1) of the file ``source`` is, for its errors: with its
    ``name`` as a TOML basic string, cut after about 80 characters, when it has one.

    Examples
    --------
    >>> cohort_place("c.toml", 2, 'We\\n"F"'), cohort_place("c.toml", 1, None)
    ('c.toml: cohort 2 ("We\\\\n\\\\"F\\\\"")', 'c.toml: cohort 1')
    """
    where = f"{source}: cohort {i}"
    return where + (f" ({_shortened(_toml_string(name))})" if isinstance(name, str) else "")


def in_file_words(exc: ValidationError, where: str | None = None) -> ValidationError:
    """``exc`` of a value of a config file, in a file's words, its class kept: no Python type
    among what is expected, the text it got as a TOML basic string (``got "Fintec"``, not
    Python's ``'Fintec'``), cut; with ``where`` (:func:`cohort_place`), a
    :class:`ConfigError` said there.

    Examples
    --------
    >>> str(in_file_words(ValidationError("vertical", "a vertical", got='Fin"tec')))
    'invalid vertical: expected a vertical, got "Fin\\\\"tec"'
    >>> str(in_file_words(ValidationError("top", "an integer", got="x"), "c.toml: cohort 1"))
    'c.toml: cohort 1: invalid top: expected an integer, got "x"'
    """
    if where is not None:
        return _located(exc, where)
    said = without_python_types(exc)
    message = _got(said, {})
    if message == str(said):
        return said
    again = copy.copy(said)  # by DealframeError.__reduce__: the class and every attribute
    again.args = (message,)
    return again


def _toml_kind(value: Any) -> str | None:
    """The TOML type of ``value`` as :mod:`tomllib` reads it, None for no TOML value."""
    kinds = {
        dt.datetime: "date-time",
        dt.date: "date",
        dt.time: "time",
        bool: "boolean",
        int: "integer",
        float: "float",
        str: "string",
        list: "array",
    }
    kind = kinds.get(type(value))
    return kind or ("table" if isinstance(value, Mapping) else None)


def _python_name(value: Any) -> str:
    """What a value that is no TOML value is: its type, named shortly (``numpy.datetime64``)."""
    if value is None:
        return "None"
    kind = type(value)
    package = kind.__module__.split(".")[0]
    return f"a {kind.__qualname__ if package == 'builtins' else f'{package}.{kind.__qualname__}'}"


def _toml_text(value: Any) -> str:
    """``value`` as TOML writes it: a table as ``{...}``, an array's items up to a width."""
    kind = _toml_kind(value)
    if kind == "date-time":
        text = value.isoformat()
        return text.removesuffix("+00:00") + "Z" if value.utcoffset() == dt.timedelta(0) else text
    if kind in ("date", "time"):
        return str(value.isoformat())
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("integer", "float"):
        return str(value)
    if kind == "string":
        return _toml_string(value)
    if kind == "table":
        return "{...}"
    if kind is None:
        return f"<{_python_name(value).removeprefix('a ')}>"
    items: list[str] = []
    for item in value:
        if items and len(", ".join(items)) > _ARRAY_WIDTH:
            items.append("...")
            break
        items.append(_shortened(_toml_text(item)))  # an item is cut, however deep
    return f"[{', '.join(items)}]"


def _got(exc: ValidationError, values: Mapping[str, Any]) -> str:
    """``exc`` of the value of its key among ``values`` (the table the error is of), with
    what it got said in TOML's words (:func:`toml_words`): the key's value, or the entry of
    its array that the error is of. Text the error got (a value, an entry, a part of a
    comma-separated text, an unknown key) is said as a TOML basic string (``got
    "Oceanai"``), cut as the error cut it."""
    message = str(exc)
    got = getattr(exc, "got", None)
    if isinstance(got, str):
        # what ValidationError says of this text (its repr, cut): said again in TOML's words
        python = str(ValidationError("", "", got=got)).removeprefix("invalid : expected ")
        if message.endswith(python):
            return f"{message.removesuffix(python)}, got {_shortened(_toml_string(got))}"
    argument = getattr(exc, "argument", None)
    if not isinstance(argument, str) or argument not in values:
        return message
    value = values[argument]
    for candidate in (value, *(value if isinstance(value, list) else ())):
        if isinstance(candidate, str):
            continue
        said = ValidationError(argument, exc.expected, got=candidate)
        if str(said) == message:  # the error is of this value
            return f"invalid {argument}: expected {exc.expected}, got {toml_words(candidate)}"
    return message


def _located(
    exc: ValidationError, where: str, values: Mapping[str, Any] | None = None
) -> ConfigError:
    """``exc`` of a value of the file, said at ``where`` in it, in a file's words: a date is
    ``YYYY-MM-DD`` text (or a TOML date), no Python type
    (:func:`~dealframe.errors.without_python_types`), and any value of ``values`` (the keys
    of the table the error is of) that is no text said as the file wrote it (:func:`_got`)."""
    exc = without_python_types(exc)
    message = _got(exc, values or {})
    return ConfigError(getattr(exc, "argument", "config"), f"{where}: {message}")


#: What ``out`` may be in a file.
OUT_EXPECTED = "a folder path (text)"


def _is_folder_path(value: Any) -> bool:
    """Whether a document's ``out`` is a folder path: text (a file's), or a path object
    (``pathlib.Path``, of a document built in Python)."""
    if isinstance(value, os.PathLike):
        return isinstance(os.fspath(value), str)
    return isinstance(value, str)


def parse_config(
    document: Mapping[str, Any], source: str, out: str | os.PathLike[str] | None = None
) -> list[ReportJob]:
    """The report jobs of a parsed config document.

    ``out``, when given (``--out``), is the folder of the cohorts' folders and wins over the
    document's ``out``, which is then neither read nor checked. Without it, the document's
    ``out`` is the folder: text (a TOML file's), or a ``pathlib.Path`` (a document built in
    Python); any other value is refused.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the file and the cohort: an unknown key, a bad cohort (a ``since`` that is
        neither text nor a TOML date), no cohort, ``cohort`` not an array of tables, two
        cohorts with one folder, no ``out`` or (without the ``out`` argument) an ``out``
        that is neither text nor a path, an empty path (``pathlib.Path("")``, which is the
        current folder, as ``out = ""`` and ``--out ""`` are refused; the text ``"."`` says
        it). A value is said in TOML's words (:func:`toml_words`: text as a TOML basic
        string, cut after about 80 characters); one that is no TOML value (a document built
        in Python: ``numpy.datetime64``) as what it is. A cohort is named by its place and
        its ``name``, a TOML basic string too (:func:`cohort_place`).

    Examples
    --------
    >>> parse_config({"out": "r", "top": True, "cohort": [{"region": "Oceania"}]}, "x.toml")
    Traceback (most recent call last):
    ...
    dealframe.report.config.ConfigError: x.toml: invalid top: expected an integer from 1 to 100, got a TOML boolean true
    >>> jobs = parse_config({"out": 5, "cohort": [{"region": "Oceania"}]}, "x.toml", out="r")
    >>> jobs[0].out.as_posix()  # the out argument (--out) wins: the file's is not read
    'r/oceania'
    """
    for key in document:
        if key not in CONFIG_KEYS:
            raise ConfigError(
                source,
                f"{source}: unknown key {_shortened(_toml_string(str(key)))}"
                f"{did_you_mean(str(key), CONFIG_KEYS)} (keys: "
                f"{', '.join(CONFIG_KEYS)})",
            )
    base = out if out is not None else document.get("out")
    if out is None and "out" in document and not _is_folder_path(base):
        raise ConfigError(
            "out", f"{source}: invalid out: expected {OUT_EXPECTED}, got {toml_words(base)}"
        )
    if isinstance(base, os.PathLike) and _is_folder_path(base) and not Path(base).parts:
        raise ConfigError(  # Path("") is Path("."): the current folder, said as nothing
            "out",
            f"{source}: invalid out: expected {OUT_EXPECTED}, not an empty path "
            f'(pathlib.Path("") is the current folder: give "." to mean it), '
            f"got {toml_words(base)}",
        )
    if not isinstance(base, (str, os.PathLike)) or not str(base).strip():
        raise ConfigError(
            source, f'{source}: no output folder: set out = "DIR" in the file or pass --out'
        )
    try:
        metric = check_metric(document.get("metric", "ev_revenue"))
        top = integer_in(document.get("top", 15), "top", 1, 100)
    except ValidationError as exc:
        raise _located(exc, source, document) from None
    cohorts = document.get("cohort")
    if cohorts is not None and not isinstance(cohorts, list):  # [cohort], cohort = "x"
        shape = "a single table [cohort]" if isinstance(cohorts, Mapping) else toml_words(cohorts)
        raise ConfigError(
            "cohort",
            f"{source}: invalid cohort: expected an array of tables ([[cohort]], with the "
            f"double brackets), got {shape}",
        )
    if not cohorts:
        raise ConfigError(source, f"{source}: no cohort: add one or more [[cohort]] tables")
    jobs: list[ReportJob] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(cohorts, start=1):
        where = f"{source}: cohort {i}"
        if not isinstance(entry, Mapping):
            raise ConfigError(source, f"{where}: not a table, got {toml_words(entry)}")
        named = cohort_place(source, i, entry.get("name"))
        since = entry.get("since")
        # the client's date filters would take a date-time's day and drop its time unsaid
        if not (since is None or isinstance(since, str) or type(since) is dt.date):
            raise ConfigError(
                "since",
                f"{named}: invalid since: expected {SINCE_EXPECTED}, got {toml_words(since)}",
            )
        try:
            unknown = [k for k in entry if k not in _ENTRY_KEYS]
            if unknown:
                raise ValidationError(
                    "cohort",
                    f"keys among {', '.join(_ENTRY_KEYS)}{did_you_mean(unknown[0], _ENTRY_KEYS)}",
                    got=unknown[0],
                )
            cohort = parse_cohort({k: v for k, v in entry.items() if k in COHORT_KEYS})
            job_metric = check_metric(entry.get("metric", metric))
            job_top = integer_in(entry.get("top", top), "top", 1, 100)
        except ValidationError as exc:
            raise _located(exc, named, entry) from None
        if cohort.slug in seen:
            raise ConfigError(
                source,
                f"{where}: its folder {_shortened(_toml_string(cohort.slug))} is cohort "
                f"{seen[cohort.slug]}'s too: give one a different name",
            )
        seen[cohort.slug] = i
        jobs.append(ReportJob(cohort, Path(base) / cohort.slug, job_metric, job_top))
    return jobs


def load_config(
    path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> list[ReportJob]:
    """Read and check a TOML config file of cohorts (see the module docstring).

    Examples
    --------
    >>> load_config("nightly.toml")  # doctest: +SKIP
    [ReportJob(cohort=Cohort(region='Western Europe', ...), out=PosixPath('reports/we-fintech'), ...)]
    """
    source = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError("config", f"{source}: no such file") from None
    except OSError as exc:
        raise ConfigError("config", f"{source}: cannot be read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config", f"{source}: not valid TOML ({exc})") from None
    return parse_config(document, source, out)
