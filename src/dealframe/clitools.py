"""What the ``dealframe`` subcommands share: the client they work with, and the usage error.

``--sandbox`` starts the embedded sandbox (:func:`dealframe.sandbox.embedded`); otherwise the
service comes from ``DEALFRAME_BASE_URL`` and the tokens from the environment.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from .errors import DealframeError

__all__ = ["UsageError", "service_client"]


class UsageError(Exception):
    """The command cannot work as given: one line to standard error, exit status 2."""


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
