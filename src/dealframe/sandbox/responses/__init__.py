"""The sandbox's handlers: one function per endpoint, ``(ApiRequest, SandboxState) -> bytes``.

Handlers parse what they need from the :class:`~.request.ApiRequest`, call the models
and return the response body serialised (an error is an
:class:`~dealframe.sandbox.errors.ApiProblem` raised). They know nothing of HTTP
servers: :mod:`dealframe.sandbox.urls` maps methods and paths to them and
:mod:`dealframe.sandbox.app` serves that table.
"""

from __future__ import annotations

from .request import ApiRequest

__all__ = ["ApiRequest"]
