"""A faithful local implementation of the service (see docs/sandbox.md).

Needs the ``sandbox`` extra (``pip install "dealframe[sandbox]"``): Starlette
and uvicorn. The client never imports this package.

Examples
--------
>>> import dealframe.sandbox
>>> with dealframe.sandbox.run(scale=0.02, seed=7) as sb:
...     print(sb.url.startswith("http://127.0.0.1:"))
True
"""

from __future__ import annotations

from .server import Sandbox, run, serve, start

__all__ = ["Sandbox", "run", "serve", "start"]
