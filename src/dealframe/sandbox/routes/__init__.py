"""Routes of the sandbox: Family A (public), Family B (private) and meta."""

from __future__ import annotations

from starlette.routing import BaseRoute

from ..state import SandboxState

__all__ = ["all_routes"]


def all_routes(state: SandboxState) -> list[BaseRoute]:
    """Every route of the sandbox, bound to ``state``."""
    from . import admin, meta, private, public

    return [*public.routes(state), *private.routes(state), *meta.routes(state),
            *admin.routes(state)]
