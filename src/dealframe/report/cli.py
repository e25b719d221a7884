"""``dealframe report --out DIR``: the batch report from the command line.

Examples
--------
::

    dealframe report --sandbox --out report/                  # embedded sandbox, scale 1.0
    dealframe report --out report/ --vertical Fintech          # DEALFRAME_BASE_URL and tokens
    dealframe report --out r/ --region "North America" --date-from 2023-01-01 --metric ev_ebitda

Stage lines go to standard error, the path of ``report.html`` to standard
output. Exit status: 0 on success, 1 when the report fails (the service, the
options, an unwritable ``--out``), 2 when an extra is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

from dealframe._vocab import AGGREGATE_METRICS
from dealframe.errors import ConfigurationError, DealframeError
from dealframe.sandbox import SandboxExtraMissing, SandboxStartError, embedded

__all__ = ["register"]

_PREFIX = "dealframe report"


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _fail(message: str, status: int) -> int:
    _say(f"{_PREFIX}: error: {' '.join(str(message).split())}")
    return status


class _MissingExtra(Exception):
    """An optional dependency (matplotlib, the sandbox) is not installed."""


@contextlib.contextmanager
def _client(args: argparse.Namespace, say: Any) -> Iterator[Any]:
    from dealframe.client import Client
    from dealframe.config import Settings

    if not args.sandbox:
        if Settings.from_env().base_url is None:
            raise ConfigurationError("no service configured: set DEALFRAME_BASE_URL, "
                                     "DEALFRAME_PUBLIC_TOKEN and DEALFRAME_PRIVATE_KEY, "
                                     "or pass --sandbox", field="base_url")
        with Client(progress=False) as client:
            yield client
        return
    try:
        with embedded(args.scale, args.seed, say=say) as sb, \
                Client.for_sandbox(sb, progress=False) as client:
            yield client
    except SandboxExtraMissing as exc:
        raise _MissingExtra(f"--sandbox: {exc}") from None
    except SandboxStartError as exc:
        raise DealframeError(f"--sandbox: {exc}") from None


def _run(args: argparse.Namespace) -> int:
    say = (lambda line: None) if args.quiet else _say
    try:
        from .build import build_report
        from .files import prepare_out_dir
    except ImportError as exc:
        return _fail(f"the report needs matplotlib: pip install 'dealframe[report]' ({exc})", 2)
    group = {"vertical": args.vertical} if args.vertical else {"region": args.region}
    started = time.perf_counter()
    try:
        prepare_out_dir(args.out)  # fail before starting anything
        with _client(args, say) as client:
            paths = build_report(client, args.out, group=group, metric=args.metric,
                                 window=(args.date_from, args.date_to), top=args.top,
                                 progress=say)
    except _MissingExtra as exc:
        return _fail(str(exc), 2)
    except DealframeError as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"cannot write the report to {args.out}: {exc}", 1)
    say(f"{_PREFIX}: done in {time.perf_counter() - started:.1f} s")
    print(paths.html, flush=True)
    return 0


def register(subparsers: Any) -> None:
    """Add ``report`` to the ``dealframe`` command's subparsers."""
    p = subparsers.add_parser(
        "report", help="the batch report: HTML page plus Parquet/CSV tables",
        description="Build report.html (public comps of a group, valuation history, deal "
                    "activity and medians reconciled with the service, active investors) and "
                    "the tables behind it as Parquet and CSV.")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created)")
    p.add_argument("--sandbox", action="store_true",
                   help="run against an embedded sandbox instead of DEALFRAME_BASE_URL")
    p.add_argument("--scale", type=float, default=1.0, help="sandbox data scale (default 1.0)")
    p.add_argument("--seed", type=int, default=7, help="sandbox seed (default 7)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--region", default="Western Europe",
                       help="group: a region (default Western Europe)")
    which.add_argument("--vertical", help="group: a vertical, e.g. Fintech")
    p.add_argument("--date-from", metavar="D", help="first deal date, YYYY-MM-DD "
                   "(default: the service's 5-year window)")
    p.add_argument("--date-to", metavar="D", help="last deal date, YYYY-MM-DD "
                   "(default: the service's today)")
    p.add_argument("--metric", choices=AGGREGATE_METRICS, default="ev_revenue",
                   help="deal metric of the quarterly medians (default ev_revenue)")
    p.add_argument("--top", type=int, default=15, help="investors and pairs listed (default 15)")
    p.add_argument("--quiet", action="store_true", help="no stage lines on standard error")
    p.set_defaults(run=_run)
