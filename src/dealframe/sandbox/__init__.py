"""A faithful local implementation of the service (see docs/sandbox.md).

Laid out like a fake service should be:

- :mod:`.models`: the generated data and the stores that answer queries, with
  :meth:`~.models.SandboxState.reset`; usable in-process, without a server.
- :mod:`.responses`: one handler per endpoint, ``(ApiRequest, SandboxState) -> bytes``.
- :mod:`.urls`: the table of (method, path) → handler from which the app (:mod:`.app`)
  and the OpenAPI document (:mod:`.openapi`) are built.
- :mod:`.changes` changes the data on a moving clock; :mod:`.faults` injects failures.
- :mod:`.profiles`: each profile answers one open point of the interface document another
  way (``run(profile="limit-100")``), for trying a client against every answer.

Serving over HTTP (``run``, ``start``, ``serve``, ``Sandbox``) needs the ``sandbox``
extra (``pip install "dealframe[sandbox]"``: Starlette and uvicorn); those names load
on first use, so the models work without it. The sandbox imports nothing from the
client but its error classes (:mod:`dealframe.errors`: every error it raises on purpose is a
``dealframe.DealframeError``), and the client never imports it.

Examples
--------
>>> import dealframe.sandbox
>>> with dealframe.sandbox.run(scale=0.02, seed=7) as sb:
...     print(sb.url.startswith("http://127.0.0.1:"))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .arguments import SandboxArgumentError, SandboxCallError
from .changes import ChangeInputError, Changes
from .faults import FaultPlan
from .launch import (
    SandboxExtraMissing,
    SandboxStartError,
    SandboxStopError,
    embedded,
    http_layer,
)
from .models import SandboxConfig, SandboxState
from .profiles import PROFILES, UnknownProfileError

if TYPE_CHECKING:
    from .server import Sandbox, run, serve, start

__all__ = [
    "PROFILES",
    "ChangeInputError",
    "Changes",
    "FaultPlan",
    "Sandbox",
    "SandboxArgumentError",
    "SandboxCallError",
    "SandboxConfig",
    "SandboxExtraMissing",
    "SandboxStartError",
    "SandboxStopError",
    "SandboxState",
    "UnknownProfileError",
    "embedded",
    "run",
    "serve",
    "start",
]

_SERVING = frozenset({"Sandbox", "run", "serve", "start"})


def __getattr__(name: str) -> Any:
    """``Sandbox``, ``run``, ``serve`` and ``start`` come from the serving layer, loaded on first
    use (it needs the sandbox extra; see :func:`.launch.http_layer`)."""
    if name in _SERVING:
        return getattr(http_layer(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
