"""dealframe doctor: run every check against a service and print what holds.

Exit codes: 0 nothing breaks, 1 something breaks, 2 the checks could not run (no base URL
or token, a token the service rejects, service unreachable) or not all of them did
(``--max-requests`` ran out, a family's token is not set: ``--family A|B`` checks one
family alone, or the service was still rate limited or unavailable after one more try:
those checks are "not checked"). A wait the service asks for (a 429's ``Retry-After``) is
made once per probe, at most ``--retry-after-max`` seconds (from 0 to 300, default the
client's 60), 300 s in all at most (one that would pass that is not made, and said), and one
longer than a few seconds is said on standard error before it starts. Tokens come from
the environment (``DEALFRAME_BASE_URL``, ``DEALFRAME_PUBLIC_TOKEN``,
``DEALFRAME_PRIVATE_KEY``) or the flags, and are never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..cli_options import choice, positive_int, seconds_up_to
from ..clitools import EXIT_USAGE, command_tokens, fail, said_from, say, told
from ..errors import DealframeError
from .waits import WAIT_BUDGET, seconds

__all__ = ["register"]

#: What bounds ``--retry-after-max``: no wait longer than the run's budget is ever made.
_WAIT_BOUND = f"the doctor waits {seconds(WAIT_BUDGET)} in all: no longer wait is made"


def _run(args: argparse.Namespace) -> int:
    from ..client import Client
    from .checks import diagnose

    def waiting(line: str) -> None:
        say(f"dealframe doctor: {line}")

    try:
        with Client(
            args.base_url,
            args.public_token,
            args.private_key,
            cache_enabled=False,
            progress=False,
            retries=0,
            retry_after_max=args.retry_after_max,  # None: the client's default
        ) as client:
            said_from(client, args)  # a refusal names --base-url, not DEALFRAME_BASE_URL
            diagnosis = diagnose(
                client, max_requests=args.max_requests, family=args.family, say=waiting
            )
    except DealframeError as exc:
        said = told(exc, command_tokens(args))  # its PEP 678 notes too
        return fail("dealframe doctor", f"cannot run: {said}", EXIT_USAGE)
    try:
        if args.json:
            print(json.dumps(diagnosis.to_dict(), indent=2))
        else:
            print(f"dealframe doctor: {diagnosis.base_url}")
            print(diagnosis.table())
            print(diagnosis.verdict())
        sys.stdout.flush()
    except BrokenPipeError:  # `dealframe doctor --json | head`: the reader has gone
        # what Python's documentation advises: point stdout at devnull, so the flush at
        # exit does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if diagnosis.rejected:  # fix the token first: what else the run saw may follow from it
        return EXIT_USAGE
    if not diagnosis.ok:
        return 1
    if diagnosis.skipped:  # a family's checks did not run for want of its token
        other = "B" if diagnosis.skipped[0].startswith("Family A") else "A"
        return fail(
            "dealframe doctor",
            f"not checked: {', '.join(diagnosis.skipped)}; set the token, or pass "
            f"--family {other} to check Family {other} alone",
            EXIT_USAGE,
        )
    # the budget ran out, or the service did not let a check run (rate limited, unavailable)
    return EXIT_USAGE if diagnosis.budget_reached or diagnosis.not_checked else 0


def register(sub: Any) -> None:
    """Add ``doctor`` to the ``dealframe`` command's subparsers."""
    parser = sub.add_parser(
        "doctor",
        help="check every assumption the client makes about a "
        "service (read-only, at most 60 requests)",
        description="Run every check against a service and print what holds. Exit status: "
        "0 nothing breaks, 1 something breaks, 2 the checks could not run (no base URL or "
        "token, a token the service rejects, service unreachable) or not all of them did "
        "(--max-requests ran out, a family's token is not set: --family checks one "
        "family alone, or the service was still rate limited or unavailable after one "
        "more try: those checks are 'not checked', never 'breaks').",
    )
    parser.add_argument("--base-url", default=None, help="service root (else DEALFRAME_BASE_URL)")
    parser.add_argument(
        "--public-token",
        default=None,
        help="Family A token (else DEALFRAME_PUBLIC_TOKEN; never printed)",
    )
    parser.add_argument(
        "--private-key",
        default=None,
        help="Family B key (else DEALFRAME_PRIVATE_KEY; never printed)",
    )
    parser.add_argument(
        "--family",
        type=choice("A", "B"),
        default=None,
        help="check one interface family only, A (public token) or B (private key); "
        "default both, and a family without its token is exit 2",
    )
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    parser.add_argument(
        "--max-requests",
        type=positive_int,  # checked as every whole-number option: 1_000 and 0 refused
        default=60,
        help="upper bound on requests sent, 1 or more (default 60)",
    )
    parser.add_argument(
        "--retry-after-max",
        type=seconds_up_to(WAIT_BUDGET, _WAIT_BOUND),
        default=None,
        metavar="SECONDS",
        help="longest wait made when the service asks for one (a 429's Retry-After), once "
        f"per probe, from 0 to {WAIT_BUDGET:,.0f}; a longer one leaves the check 'not "
        "checked' (default 60; 0 makes no wait the service asks for, but still the client's "
        f"short backoff); the waits of a run take {WAIT_BUDGET:,.0f} s in all at most, and "
        "one that would pass that is not made",
    )
    parser.set_defaults(run=_run)
