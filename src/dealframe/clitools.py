"""What the ``dealframe`` subcommands share: the ``--sandbox`` options, the client they work
with, and the usage error.

``--sandbox`` starts the embedded sandbox (:func:`dealframe.sandbox.embedded`); otherwise the
service comes from ``DEALFRAME_BASE_URL`` and the tokens from the environment.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from .cli_options import non_negative_int, positive
from .errors import DealframeError

__all__ = ["UsageError", "add_sandbox_options", "service_client"]


class UsageError(Exception):
    """The command cannot work as given: one line to standard error, exit status 2."""


def add_sandbox_options(parser: argparse.ArgumentParser, *, scale: float = 1.0) -> None:
    """``--sandbox``, ``--scale`` (a number above 0, checked before anything starts) and
    ``--seed``: the embedded sandbox a command may run against (see :func:`service_client`).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> add_sandbox_options(p, scale=0.1)
    >>> vars(p.parse_args(["--sandbox", "--seed", "3"]))
    {'sandbox': True, 'scale': 0.1, 'seed': 3}
    """
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="run against an embedded sandbox instead of DEALFRAME_BASE_URL",
    )
    parser.add_argument(
        "--scale", type=positive, default=scale, help=f"sandbox data scale (default {scale:g})"
    )
    parser.add_argument("--seed", type=non_negative_int, default=7, help="sandbox seed (default 7)")


@contextlib.contextmanager
def service_client(
    args: argparse.Namespace,
    say: Callable[[str], None] | None = None,
    *,
    progress: bool | None = False,
) -> Iterator[Any]:
    """The :class:`~dealframe.Client` a command runs with (``args.sandbox``, ``args.scale``,
    ``args.seed``), closed (and the sandbox stopped) at the end.

    Raises
    ------
    UsageError
        No service configured, or ``--sandbox`` without the sandbox extra.
    DealframeError
        The embedded sandbox failed to start.
    """
    from .client import Client
    from .config import Settings
    from .sandbox import SandboxExtraMissing, SandboxStartError, embedded

    if not getattr(args, "sandbox", False):
        if Settings.from_env().base_url is None:
            raise UsageError(
                "no service configured: set DEALFRAME_BASE_URL, "
                "DEALFRAME_PUBLIC_TOKEN and DEALFRAME_PRIVATE_KEY, or pass --sandbox"
            )
        with Client(progress=progress) as client:
            yield client
        return
    try:
        with (
            embedded(args.scale, args.seed, say=say) as sb,
            Client.for_sandbox(sb, progress=progress) as client,
        ):
            yield client
    except SandboxExtraMissing as exc:
        raise UsageError(f"--sandbox: {exc}") from None
    except SandboxStartError as exc:
        raise DealframeError(f"--sandbox: {exc}") from None
