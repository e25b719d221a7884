"""Starting a sandbox from a command: the serving layer on demand, and ``embedded``.

The models (data, stores, changes) need only numpy and orjson; serving them over HTTP
needs the sandbox extra (Starlette and uvicorn). :func:`http_layer` loads the serving
layer on first use and turns a missing extra into :class:`SandboxExtraMissing`, whose
message says what to install. :func:`embedded` is the one start-up every command's
``--sandbox`` option uses.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from dealframe.errors import DealframeError, ExtraMissing

from .arguments import SandboxArgumentError, keywords_checked

__all__ = ["SandboxExtraMissing", "SandboxStartError", "SandboxStopError", "embedded", "http_layer"]

_EXTRA = ("starlette", "uvicorn")


class SandboxExtraMissing(ExtraMissing):
    """The sandbox extra (Starlette, uvicorn) is not installed; the message says how to fix it.

    A :class:`dealframe.ExtraMissing` (so an ``ImportError`` and a ``DealframeError``):
    ``.extra`` is ``"sandbox"``, ``.name`` the module that could not be imported.

    Examples
    --------
    >>> str(SandboxExtraMissing("the sandbox server", "sandbox", "uvicorn"))
    'the sandbox server needs uvicorn: pip install "dealframe[sandbox]"'
    """


class SandboxStartError(DealframeError, RuntimeError):
    """The sandbox server could not bind or start: its address is in use or cannot be bound,
    or it did not answer in time.

    A ``dealframe.DealframeError`` (and, as before, a ``RuntimeError``); no subclass fits it:
    the arguments were good (a bad one is a :class:`SandboxArgumentError`), and it is no
    answer of a service.
    """


class SandboxStopError(DealframeError, RuntimeError):
    """The sandbox's server thread did not end when the sandbox was stopped.

    Stopping ends the requests in flight (their waits at once, the rest after a bounded
    graceful shutdown), so this is rare: a handler that never returns. It is raised rather
    than leave a server thread running unseen (a ``RuntimeError`` and a ``DealframeError``).
    """


def http_layer() -> ModuleType:
    """:mod:`dealframe.sandbox.server`, loaded on first use.

    Raises
    ------
    SandboxExtraMissing
        When Starlette or uvicorn cannot be imported.
    """
    try:
        return importlib.import_module(".server", __package__)
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in _EXTRA:
            raise
        module = (exc.name or "").split(".")[0]
        raise SandboxExtraMissing("the sandbox server", "sandbox", module, str(exc)) from None


@keywords_checked
@contextlib.contextmanager
def embedded(
    scale: float = 1.0,
    seed: int = 7,
    *,
    say: Callable[[str], None] | None = None,
    profile: str = "default",
) -> Iterator[Any]:
    """Serve a sandbox for the ``with`` block: the start-up of every ``--sandbox`` option.

    Parameters
    ----------
    scale, seed
        As for :func:`dealframe.sandbox.run`.
    say : callable, optional
        Receives a line when the start begins and when the sandbox is ready (``print``).
    profile : str, default "default"
        The sandbox profile (:mod:`dealframe.sandbox.profiles`).

    Yields
    ------
    Sandbox

    Raises
    ------
    SandboxArgumentError
        ``say`` is not callable (nor None), before anything starts; the other arguments as
        for :func:`dealframe.sandbox.run`.
    SandboxExtraMissing
        The sandbox extra is not installed (a ``dealframe.ExtraMissing``, an ``ImportError``).
    SandboxStartError
        The server could not start (a ``dealframe.DealframeError``, a ``RuntimeError``).

    Examples
    --------
    >>> with embedded(scale=0.02, say=print) as sb:  # doctest: +ELLIPSIS
    ...     sb.url.startswith("http://127.0.0.1:")
    starting the embedded sandbox (scale 0.02, seed 7) ...
          sandbox ready at http://127.0.0.1:... (... s)
    True
    """
    if say is not None and not callable(say):
        raise SandboxArgumentError("say", "a callable taking a line of text (print), or None", say)
    server = http_layer()
    started = time.perf_counter()
    if say is not None:
        say(f"starting the embedded sandbox (scale {scale:g}, seed {seed}) ...")
    with server.run(scale=scale, seed=seed, profile=profile) as sb:
        if say is not None:
            say(f"      sandbox ready at {sb.url} ({time.perf_counter() - started:.1f} s)")
        yield sb
