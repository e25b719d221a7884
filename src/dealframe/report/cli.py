"""``dealframe report``: the report on one cohort, or on every cohort of a TOML file.

Examples
--------
::

    dealframe report --sandbox --out report/                       # embedded sandbox
    dealframe report --out r/ --region "Western Europe" --vertical Fintech --since 2023-01-01
    dealframe report --out r/ --region "North America" --deal-type Venture --deal-type Growth
    dealframe report --config nightly.toml                          # one folder per cohort

Every option and the config file are checked before anything starts; an error is one line
on standard error. Stage lines go to standard error, the path of each ``report.html`` to
standard output.

Exit status
-----------
0
    Every report was written.
1
    A report failed while running (the service, the network, the disk).
2
    The command cannot work as given: a bad option or config file, an unwritable output
    folder, no service configured, a missing extra. Running it again will not help.
3
    Some cohorts of a config file were written and others failed.
130
    Interrupted (Ctrl-C): one line ``dealframe report: interrupted``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from pathlib import Path
from typing import Any

from dealframe._wording import counted
from dealframe.arguments import expanded_path
from dealframe.cli_options import whole_from
from dealframe.clitools import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_sandbox_options,
    command_tokens,
    exit_status,
    fail,
    flag_name,
    in_shell_words,
    service_client,
    told,
)
from dealframe.clitools import say as _say
from dealframe.errors import (
    DealframeError,
    EnumValueError,
    ExtraMissing,
    ValidationError,
    renamed,
)

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_PARTIAL", "EXIT_USAGE", "register"]

EXIT_PARTIAL = 3
_PREFIX = "dealframe report"


def _refuse_blank(value: str | None, option: str, expected: str) -> None:
    """Refuse ``value`` of ``option`` when it is empty or blank text: ``Path("")`` is the
    current folder, so ``--out "$OUTDIR"`` with the variable unset would write the report
    there (``dealframe pull -o ""`` and a config file's ``out = ""`` are refused alike).

    Examples
    --------
    >>> _refuse_blank("", "--out", "a folder path")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --out: expected a folder path, got ''
    """
    if value is not None and not value.strip():
        raise ValidationError(option, expected, got=value)


def _jobs(args: argparse.Namespace) -> list[Any]:
    """Every report to write, checked: the config file's cohorts, or the options' one."""
    from .cohort import parse_cohort
    from .config import ReportJob, load_config

    _refuse_blank(args.out, "--out", "a folder path, not empty or blank text")
    _refuse_blank(args.config, "--config", "a TOML file path, not empty or blank text")
    given = {  # "" is refused, not dropped
        key: getattr(args, key)
        for key in ("region", "vertical", "deal_type", "since")
        if getattr(args, key) is not None
    }
    if args.config is not None:
        if given:
            raise UsageError(
                f"--{next(iter(given)).replace('_', '-')} cannot be used with --config (the file "
                "gives the cohorts)"
            )
        return load_config(args.config, args.out)
    if args.out is None:
        raise UsageError('--out DIR is required (or --config FILE with out = "DIR")')
    from .cohort import DEFAULT_COHORT, check_metric

    if given.get("region") is None and given.get("vertical") is None:
        given = {**DEFAULT_COHORT, **given}
    try:
        cohort = parse_cohort(given)
    except ValidationError as exc:  # said as the option typed: --deal-type, not deal_type
        name = exc.argument.split("[")[0]
        if name not in given:
            raise
        # in a shell's words: a date YYYY-MM-DD, no Python type (datetime.date ...)
        raise in_shell_words(renamed(exc, flag_name(name)), {}) from None
    try:
        metric = check_metric(args.metric)
    except ValidationError as exc:  # said as the option typed: --metric
        raise renamed(exc, "--metric") from None
    return [ReportJob(cohort, Path(args.out), metric, args.top)]


def _sandbox_knows(jobs: list[Any], config: Any = None) -> None:
    """With ``--sandbox`` the vocabulary and the latest date are known before it starts: a
    vertical or deal type the sandbox does not have, a ``since`` after its latest date, is
    refused now, in the words the service's own check uses once
    it answers (:func:`~.cohort.unknown_to_service`: against a service, or with the sandbox
    started, the message is the same). With ``config`` (the file the jobs come from, one
    per cohort), the error names the file and the cohort, as the file's other errors do."""
    from dealframe.sandbox.models.data import AS_OF, VERTICALS
    from dealframe.sandbox.vocab import DEAL_TYPES

    from .cohort import not_after_latest, unknown_to_service
    from .config import cohort_place, in_file_words

    latest = AS_OF.date().isoformat()  # the sandbox's today: its aggregate window's end
    for i, job in enumerate(jobs, start=1):
        cohort = job.cohort
        refused: list[tuple[str, str, str]] = []  # key, value, what it expects
        if cohort.since is not None and cohort.since > latest:
            refused.append(("since", cohort.since, not_after_latest(latest)))
        wanted: list[tuple[str, str, tuple[str, ...]]] = []
        if cohort.vertical:  # sorted, as the service's check lists its companies' verticals
            wanted.append(("vertical", cohort.vertical, tuple(sorted(VERTICALS))))
        wanted += [("deal_type", t, DEAL_TYPES) for t in cohort.deal_types]
        refused += [  # the sandbox matches exactly, as its filters do
            (key, value, unknown_to_service(key, value, known))
            for key, value, known in wanted
            if value not in known
        ]
        for key, value, expected in refused[:1]:
            error = EnumValueError if key == "deal_type" else ValidationError
            if config is None:
                raise error("--" + key.replace("_", "-"), expected, got=value)
            # in the file's words, as its other errors: "cohort 2 (\"b\")", got "Fintec", cut
            where = cohort_place(os.fspath(config), i, cohort.name)
            raise in_file_words(error(key, expected, got=value), where)


#: The cohort key behind each name a check after start-up may give a bad value: the report's
#: own (``since``, ``vertical``) and the client's filters the cohort becomes
#: (:meth:`~.cohort.Cohort.deal_filters`, :meth:`~.cohort.Cohort.public_filters`).
_COHORT_KEY = {
    "since": "since",
    "region": "region",
    "target_region": "region",
    "regions": "region",
    "vertical": "vertical",
    "target_verticals": "vertical",
    "industries": "vertical",
    "deal_type": "deal_type",
}


def _as_given(error: Exception, args: argparse.Namespace) -> Exception:
    """``error`` naming where the user gave the value: the option (``--since``, in a shell's
    words: :func:`~dealframe.clitools.in_shell_words`) or, with ``--config``, the key of the
    file (``since (of nightly.toml)``, in the file's words: no Python type, text as a TOML
    string, ``got "Fintec"``: :func:`~.config.in_file_words`), as the checks made before
    start-up do.
    A value the
    service refuses (a ``--since`` after its latest date, a vertical or deal type it does not
    have) is otherwise named as the client's argument (``since``, ``deal_type[0]``); errors
    of other arguments are left as they are.

    Examples
    --------
    >>> args = argparse.Namespace(config=None)
    >>> str(_as_given(ValidationError("deal_type[0]", "a deal type", got="X"), args))
    "invalid --deal-type: expected a deal type, got 'X'"
    """
    if not isinstance(error, ValidationError):
        return error
    key = _COHORT_KEY.get(error.argument.split("[")[0].rsplit(".", 1)[-1])
    if key is None:
        return error
    if args.config is not None:  # in the file's words: got "Fintec", no Python type
        from .config import in_file_words

        return in_file_words(renamed(error, f"{key} (of {os.fspath(args.config)})"))
    return in_shell_words(renamed(error, flag_name(key)), {})


def _run(args: argparse.Namespace) -> int:
    say = (lambda line: None) if args.quiet else _say
    try:
        from . import build_report  # ExtraMissing without matplotlib
    except ExtraMissing as exc:
        raise UsageError(str(exc)) from None
    from .files import prepare_out_dir

    started = time.perf_counter()
    made: list[Path] = []  # folders this run creates: removed at the end if left empty
    try:
        return _run_jobs(args, say, build_report, prepare_out_dir, made, started)
    finally:
        for folder in sorted(made, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):  # only an empty folder can go
                folder.rmdir()


def _missing(out: Any) -> list[Path]:
    """The folders that writing to ``out`` would create, deepest first."""
    path, missing = expanded_path(out, "--out").absolute(), []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def _run_jobs(
    args: argparse.Namespace,
    say: Any,
    build_report: Any,
    prepare_out_dir: Any,
    made: list[Path],
    started: float,
) -> int:
    jobs = _jobs(args)
    if args.sandbox:
        _sandbox_knows(jobs, args.config)
    for job in jobs:  # every folder writable before anything starts
        made += _missing(job.out)
        try:
            prepare_out_dir(job.out)
        except ValidationError as exc:  # --out, or the key ``out`` of the config file
            where = f"out (of {os.fspath(args.config)})" if args.out is None else "--out"
            raise renamed(exc, where) from None
    failures: list[tuple[Any, Exception, int]] = []
    written = 0
    with service_client(args, say) as client:
        for job in jobs:
            if len(jobs) > 1:
                say(f"cohort {job.cohort.slug}: {job.cohort.label} -> {job.out}")
            try:
                paths = build_report(
                    client, job.out, cohort=job.cohort, metric=job.metric, top=job.top, progress=say
                )
            except DealframeError as exc:  # ValidationError: the service says it cannot work
                failures.append((job, _as_given(exc, args), exit_status(exc)))
                continue
            except OSError as exc:
                failures.append(
                    (job, DealframeError(f"cannot write {job.out}: {exc}"), EXIT_FAILED)
                )
                continue
            written += 1
            print(paths.html, flush=True)
    tokens = command_tokens(args)
    for job, error, _ in failures:  # with the error's PEP 678 notes, as every command says
        said = told(error, tokens)
        fail(_PREFIX, f"cohort {job.cohort.slug}: {said}" if len(jobs) > 1 else said, 0)
    if failures:
        if written:
            return EXIT_PARTIAL
        return EXIT_USAGE if all(code == EXIT_USAGE for _, _, code in failures) else EXIT_FAILED
    say(
        f"{_PREFIX}: done in {time.perf_counter() - started:.1f} s"
        + (f", {counted(written, 'report')}" if len(jobs) > 1 else "")
    )
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add ``report`` to the ``dealframe`` command's subparsers."""
    p = subparsers.add_parser(
        "report",
        help="the report on a cohort: HTML page plus Parquet/CSV tables",
        description="Build report.html for a cohort (summary, public comps, private deals, "
        "private against public multiples, investors, appendix) and the tables "
        "behind it as Parquet and CSV. Exit status: 0 written, 1 failed while "
        "running, 2 bad command or config, 3 some cohorts failed, 130 interrupted.",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="output folder (created); with --config, the folder of the cohorts' folders",
    )
    p.add_argument("--config", metavar="FILE", help="TOML file of cohorts (see docs/report.md)")
    add_sandbox_options(p)
    p.add_argument(
        "--region", help="cohort: a region (default Western Europe when no vertical is given)"
    )
    p.add_argument("--vertical", help="cohort: a vertical, e.g. Fintech")
    p.add_argument(
        "--deal-type",
        action="append",
        metavar="TYPE",
        help="cohort: a deal type (repeat, or comma-separate, for several)",
    )
    p.add_argument(
        "--since",
        "--date-from",
        dest="since",
        metavar="YYYY-MM-DD",
        help="first deal date (default: the service's five years, whole quarters)",
    )
    p.add_argument(
        "--metric",
        default="ev_revenue",
        help="deal metric of the quarterly medians (default ev_revenue)",
    )
    p.add_argument(
        "--top", type=whole_from(1, 100), default=15, help="investors listed, 1 to 100 (default 15)"
    )
    p.add_argument("--quiet", action="store_true", help="no stage lines on standard error")
    p.set_defaults(run=_run)
