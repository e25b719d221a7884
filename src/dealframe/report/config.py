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
that two cohorts would share.

Examples
--------
>>> jobs = parse_config({"out": "r", "cohort": [{"region": "Oceania"}]}, "x.toml")
>>> jobs[0].out.as_posix(), jobs[0].cohort.label
('r/oceania', 'Oceania')
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealframe.arguments import integer_in
from dealframe.errors import ValidationError, did_you_mean, without_python_types

from .cohort import COHORT_KEYS, Cohort, check_metric, parse_cohort

__all__ = ["CONFIG_KEYS", "ConfigError", "ReportJob", "load_config", "parse_config"]

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


def _located(exc: ValidationError, where: str) -> ConfigError:
    """``exc`` of a value of the file, said at ``where`` in it, in a file's words: a date is
    ``YYYY-MM-DD`` text (or a TOML date), no Python type
    (:func:`~dealframe.errors.without_python_types`)."""
    exc = without_python_types(exc)
    return ConfigError(getattr(exc, "argument", "config"), f"{where}: {exc}")


def parse_config(
    document: Mapping[str, Any], source: str, out: str | os.PathLike[str] | None = None
) -> list[ReportJob]:
    """The report jobs of a parsed config document (``out`` overrides the file's).

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the file and the cohort: an unknown key, a bad cohort, no cohort, two cohorts
        with one folder, no ``out``.
    """
    for key in document:
        if key not in CONFIG_KEYS:
            raise ConfigError(
                source,
                f"{source}: unknown key {key!r}"
                f"{did_you_mean(str(key), CONFIG_KEYS)} (keys: "
                f"{', '.join(CONFIG_KEYS)})",
            )
    base = out if out is not None else document.get("out")
    if not isinstance(base, (str, os.PathLike)) or not str(base).strip():
        raise ConfigError(
            source, f'{source}: no output folder: set out = "DIR" in the file or pass --out'
        )
    try:
        metric = check_metric(document.get("metric", "ev_revenue"))
        top = integer_in(document.get("top", 15), "top", 1, 100)
    except ValidationError as exc:
        raise _located(exc, source) from None
    cohorts = document.get("cohort")
    if not isinstance(cohorts, list) or not cohorts:
        raise ConfigError(source, f"{source}: no cohort: add one or more [[cohort]] tables")
    jobs: list[ReportJob] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(cohorts, start=1):
        where = f"{source}: cohort {i}"
        if not isinstance(entry, Mapping):
            raise ConfigError(source, f"{where}: not a table")
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
            raise _located(
                exc, where + (f" ({entry['name']})" if isinstance(entry.get("name"), str) else "")
            ) from None
        if cohort.slug in seen:
            raise ConfigError(
                source,
                f"{where}: its folder {cohort.slug!r} is cohort "
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
