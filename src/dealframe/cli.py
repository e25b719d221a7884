"""dealframe: pull, mirror and report on the company, investor and deal data service.

Examples
--------
::

    dealframe sandbox serve --port 8765
    dealframe pull deals --deal-type Venture -o deals.parquet --sandbox
    dealframe report --sandbox --out report/
    dealframe mirror sync ./mirror --sandbox --scale 0.1
    dealframe doctor
"""

from __future__ import annotations

import argparse
import functools
import ipaddress
import os
import socket
import sys
import urllib.parse
import warnings
from collections.abc import Sequence

from dealframe import sandbox
from dealframe._version import __version__
from dealframe.cli_options import (
    Parser,
    fault_kinds,
    fault_script,
    fraction,
    host,
    non_negative,
    non_negative_int,
    options_everywhere,
    pattern,
    port,
    positive,
    sandbox_scale,
    seconds_up_to,
)
from dealframe.clitools import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    command_tokens,
    exit_status,
    fail,
    say,
    show_warning,
    told,
)
from dealframe.config import _is_loopback
from dealframe.doctor import cli as doctor_cli
from dealframe.errors import DealframeError
from dealframe.mirror import cli as mirror_cli
from dealframe.pull import cli as pull_cli
from dealframe.report import cli as report_cli
from dealframe.sandbox.arguments import MAX_LATENCY, MAX_SCALE, SCALE_MEMORY
from dealframe.sandbox.auth import DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_TOKEN
from dealframe.sandbox.faults import FAULT_KINDS, MAX_RETRY_AFTER, MAX_SLOW_SECONDS
from dealframe.sandbox.profiles import PROFILES, UnknownProfileError, select

__all__ = ["every_option", "main"]

#: What an interrupted command leaves behind, when there is something to say.
_INTERRUPTED = {
    "dealframe mirror sync": " (each table is at its previous version, or at the new one "
    "where its commit was done; the next sync goes on from there)",
}


def _latency_ms(value: str) -> float:
    """``--latency-ms``: milliseconds from 0 to the sandbox's largest latency, refused in the
    option's own unit (the sandbox's error spoke of seconds and of ``latency``).

    Examples
    --------
    >>> _latency_ms("250")
    250.0
    >>> _latency_ms("60001")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '60001' is not a number of milliseconds from 0 to 60,000
    """
    number = non_negative(value)
    if number > MAX_LATENCY * 1000:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a number of milliseconds from 0 to {MAX_LATENCY * 1000:,.0f}"
        )
    return number


def _fault_plan(args: argparse.Namespace) -> sandbox.FaultPlan | None:
    """The faults ``sandbox serve`` injects, from its ``--fault-*`` options (None: none)."""
    drawn = {"kinds": args.fault_kinds, "paths": args.fault_paths}
    given = [f"--fault-{name}" for name, value in drawn.items() if value]
    if given and not args.fault_rate:
        raise UsageError(f"{' and '.join(given)} say what --fault-rate draws: give it too")
    if not args.fault_rate and not args.fault_script:
        return None
    plan = sandbox.FaultPlan(
        rate=args.fault_rate,
        seed=args.seed,
        retry_after=args.fault_retry_after,
        slow_seconds=args.fault_slow_seconds,
        **{name: value for name, value in drawn.items() if value},
    )
    for where, kinds in args.fault_script:
        plan.script(where, kinds)
    return plan


def _resolve(name: str) -> None:
    """Check that the host ``--host`` names resolves, before the sandbox starts.

    Raises
    ------
    UsageError
        The name is unknown (exit status 2: running again will not help).
    DealframeError
        The name could not be resolved now (a name server that does not answer: exit 1).
    """
    try:
        socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        said = f"cannot resolve the host name {name!r} ({exc.strerror or exc})"
        if exc.errno == socket.EAI_NONAME:
            raise UsageError(
                f"--host: {said}; give an IP address or a name of this machine"
            ) from None
        raise DealframeError(f"--host: {said}") from None


def _client_url(url: str, bound: str | None = None) -> str:
    """The URL a client on this machine uses for a server at ``url``, bound to the IP
    address ``bound`` (None: not known).

    A wildcard bind (``0.0.0.0``, ``::``) answers on loopback, and a host name the server
    bound to a loopback address (this machine's name, often) is served there: the client
    accepts that address over plain http, but refuses the wildcard address and any name
    other than ``localhost``. Any other host is kept (see :func:`_insecure_note`).

    Examples
    --------
    >>> _client_url("http://0.0.0.0:8123"), _client_url("http://[::]:8123")
    ('http://127.0.0.1:8123', 'http://[::1]:8123')
    >>> _client_url("http://127.0.0.1:8123"), _client_url("http://localhost:8123")
    ('http://127.0.0.1:8123', 'http://localhost:8123')
    >>> _client_url("http://devbox:8123", "::1"), _client_url("http://devbox:8123", "10.1.2.3")
    ('http://[::1]:8123', 'http://devbox:8123')
    """
    parts = urllib.parse.urlsplit(url)
    name = parts.hostname or ""
    if _is_loopback(name):
        return url
    host: ipaddress.IPv4Address | ipaddress.IPv6Address
    try:
        host = ipaddress.ip_address(name)
    except ValueError:  # a host name: the address the server bound it to
        try:
            host = ipaddress.ip_address(bound or "")
        except ValueError:
            return url
        if not host.is_loopback:
            return url
    if host.is_unspecified:
        host = ipaddress.ip_address("::1" if host.version == 6 else "127.0.0.1")
    elif not host.is_loopback:
        return url
    shown = f"[{host}]" if host.version == 6 else str(host)
    return parts._replace(netloc=f"{shown}:{parts.port}").geturl()


def _insecure_note(url: str) -> str | None:
    """A comment line for an exported ``url`` the client refuses as it is (plain http to a
    host that is not loopback, such as a LAN address), or None.

    Examples
    --------
    >>> _insecure_note("http://127.0.0.1:8123") is None
    True
    >>> print(_insecure_note("http://192.168.1.20:8123"))
    # plain http:// to 192.168.1.20 (not loopback): a client refuses it unless made with dealframe.Client(..., allow_insecure_http=True) (no environment variable lifts this)
    """
    name = urllib.parse.urlsplit(url).hostname or ""
    if _is_loopback(name):
        return None
    return (
        f"# plain http:// to {name} (not loopback): a client refuses it unless made with "
        "dealframe.Client(..., allow_insecure_http=True) (no environment variable lifts this)"
    )


def _sandbox_serve(args: argparse.Namespace) -> int:
    try:
        serve = sandbox.serve
    except sandbox.SandboxExtraMissing as exc:
        raise UsageError(exc) from None
    try:
        profile = select(args.profile)
    except UnknownProfileError as exc:
        raise UsageError(f"--profile: {exc}") from None
    public = os.environ.get("DEALFRAME_PUBLIC_TOKEN") or DEFAULT_PUBLIC_TOKEN
    private = os.environ.get("DEALFRAME_PRIVATE_KEY") or DEFAULT_PRIVATE_KEY
    faults = _fault_plan(args)
    _resolve(args.host)

    bound: list[str] = []  # the address the server listens on (serve says it before ready)

    def ready(state: object, url: str) -> None:
        print(
            f"dealframe sandbox serving on {url} (scale {args.scale}, seed {args.seed}, "
            f"profile {profile.name})",
            flush=True,
        )
        print("# for a client in another shell:", flush=True)
        client_url = _client_url(url, bound[0] if bound else None)
        print(f"export DEALFRAME_BASE_URL={client_url}", flush=True)
        note = _insecure_note(client_url)
        if note is not None:
            print(note, flush=True)
        for name, value in (("DEALFRAME_PUBLIC_TOKEN", public), ("DEALFRAME_PRIVATE_KEY", private)):
            if name in os.environ:  # the user's own token: never echoed
                print(f"# {name}: as set in this environment", flush=True)
            else:  # the sandbox's built-in test token
                print(f"export {name}={value}", flush=True)

    try:
        serve(
            args.scale,
            args.seed,
            public_token=public,
            private_key=private,
            host=args.host,
            port=args.port,
            rate_limit=args.rate_limit,
            latency=args.latency_ms / 1000,
            faults=faults,
            ready=ready,
            profile=profile,
            bound=bound.append,
        )
    except sandbox.SandboxStartError as exc:
        raise DealframeError(exc) from None
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="dealframe",
        description=__doc__.splitlines()[0],
        epilog="'dealframe COMMAND --help' shows the options of a command. Exit status: 0 done, "
        "1 the run failed (service, network, data, disk), 2 bad usage or configuration, "
        "130 interrupted (Ctrl-C); report and doctor add their own (see their --help).",
    )
    parser.add_argument("--version", action="version", version=f"dealframe {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sandbox = sub.add_parser(
        "sandbox",
        help="serve the local sandbox service (fake data, real HTTP)",
        description="The local sandbox service.",
    )
    sandbox_sub = sandbox.add_subparsers(dest="action", required=True)
    serve = sandbox_sub.add_parser(
        "serve",
        help="serve the sandbox in the foreground",
        description="Serve the sandbox in the foreground; prints the export lines of a client.",
    )
    serve.add_argument(
        "--host",
        type=host,
        default="127.0.0.1",
        help="interface: an IP address or a host name of this machine (default 127.0.0.1)",
    )
    serve.add_argument("--port", type=port, default=8765, help="port (default 8765; 0: any)")
    serve.add_argument(
        "--scale",
        type=sandbox_scale,
        default=1.0,
        help=f"data scale, above 0 and at most {MAX_SCALE:g} (default 1.0); {SCALE_MEMORY}",
    )
    serve.add_argument("--seed", type=non_negative_int, default=7, help="data seed (default 7)")
    serve.add_argument(
        "--rate-limit",
        type=positive,
        default=None,
        help="requests per second per token before 429 (default: none)",
    )
    serve.add_argument(
        "--latency-ms",
        type=_latency_ms,
        default=0.0,
        help="simulated round trip per request in milliseconds, like a remote service: 0 to "
        f"{MAX_LATENCY * 1000:,.0f} (default 0)",
    )
    serve.add_argument(
        "--fault-rate",
        type=fraction,
        default=0.0,
        help="fraction of requests that fail at random (default 0)",
    )
    serve.add_argument(
        "--fault-kinds",
        type=fault_kinds,
        default=None,
        help=f"the faults --fault-rate draws from, joined by commas: {', '.join(FAULT_KINDS)} "
        "(default 429,500,502,503)",
    )
    serve.add_argument(
        "--fault-paths",
        type=pattern,
        default=None,
        metavar="REGEX",
        help="limit --fault-rate to the paths this regular expression finds (default all)",
    )
    serve.add_argument(
        "--fault-script",
        type=fault_script,
        action="append",
        default=[],
        metavar="REGEX=KIND,...",
        help="give the next requests whose path REGEX finds these faults in order, then let "
        "them through ('pass' lets one through); repeatable, e.g. '/companies$=429,503,pass,drop'",
    )
    serve.add_argument(
        "--fault-retry-after",
        type=seconds_up_to(MAX_RETRY_AFTER, "the longest Retry-After the sandbox sends"),
        default=1.0,
        help=f"seconds of Retry-After sent with a 429 fault: 0 to {MAX_RETRY_AFTER:,.0f} "
        "(default 1)",
    )
    serve.add_argument(
        "--fault-slow-seconds",
        type=seconds_up_to(MAX_SLOW_SECONDS, "the longest slow fault of the sandbox"),
        default=2.0,
        help=f"delay of a slow fault in seconds: 0 to {MAX_SLOW_SECONDS:,.0f} (default 2)",
    )
    serve.add_argument(
        "--profile",
        default="default",
        help="answer an open point of the interface document another way: "
        f"{', '.join(PROFILES)} (several joined by commas; docs/sandbox.md)",
    )
    serve.set_defaults(run=_sandbox_serve)
    doctor_cli.register(sub)
    mirror_cli.register(sub)
    report_cli.register(sub)
    pull_cli.register(sub)
    # every command is given the option strings of all of them (``args.every_option``): a
    # command that reads words of its own (pull's filters) tells another command's option
    # from a typo without importing this module (no import cycle, hidden or not)
    parser.set_defaults(every_option=frozenset(options_everywhere(parser)))
    return parser


@functools.cache
def every_option() -> frozenset[str]:
    """The option strings of every ``dealframe`` command: a usage error names a word that
    is one (:func:`~dealframe.cli_options.spoken`), wherever it was given."""
    return frozenset(options_everywhere(_parser()))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (docs/errors.md).

    Errors are one line ``dealframe COMMAND: error: ...`` on standard error, warnings one line
    ``dealframe COMMAND: warning: ...``, Ctrl-C one line ``dealframe COMMAND: interrupted``
    (exit status 130); a reader of standard output that leaves early (``| head -1``) ends the
    command quietly, exit status 0; the warnings settings are restored on return.

    Examples
    --------
    >>> main(["mirror", "status", "no-such-mirror"])  # doctest: +SKIP
    2
    """
    args = _parser().parse_args(argv)
    prog = " ".join(["dealframe", args.command, *([args.action] if "action" in args else [])])
    with warnings.catch_warnings():
        warnings.showwarning = show_warning(prog)
        try:
            return int(args.run(args))
        except KeyboardInterrupt:
            say(f"{prog}: interrupted{_INTERRUPTED.get(prog, '')}")
            return EXIT_INTERRUPTED
        except (UsageError, DealframeError) as exc:
            return fail(prog, told(exc, command_tokens(args)), exit_status(exc))
        except BrokenPipeError:  # `dealframe mirror history PATH | head -1`: the reader left
            # what Python's documentation advises (as `doctor` does): point standard output at
            # devnull, so the flush at exit does not raise again; the command's work before its
            # output was done, and the rest of the output is what the reader did not want
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
