"""Handlers outside the two families: health and the OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable

import orjson

from ..models import SandboxState
from .request import ApiRequest

__all__ = ["document", "health"]


def health(request: ApiRequest, models: SandboxState) -> bytes:
    """``GET /health``: alive, with the sandbox's clock, seed and scale."""
    cfg = models.config
    return orjson.dumps(
        {"status": "ok", "as_of": cfg.as_of.isoformat(), "seed": cfg.seed, "scale": cfg.scale}
    )


def document(body: Callable[[], bytes], request: ApiRequest, models: SandboxState) -> bytes:
    """A fixed document (``GET /openapi.json``: the URL table binds its ``body``)."""
    return body()
