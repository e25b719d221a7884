"""Routes outside the two families: health and the OpenAPI document."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from ..problems import json_response
from ..state import SandboxState

__all__ = ["routes"]


def routes(state: SandboxState) -> list[BaseRoute]:
    """Health check and ``/openapi.json``."""

    async def health(request: Request):
        return json_response({"status": "ok", "as_of": state.config.as_of.isoformat(),
                              "seed": state.config.seed, "scale": state.config.scale})

    async def openapi(request: Request):
        from ..openapi import openapi_document

        return json_response(openapi_document())

    return [Route("/health", health, methods=["GET"]),
            Route("/openapi.json", openapi, methods=["GET"])]
