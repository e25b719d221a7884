"""The property tests' shared helpers: tests/unit/_client_pages.py (raw list pages and items
built into frames by the path the client runs on each page) made importable here as
``_client_pages``, loaded once for every module that needs it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def _load_client_pages() -> None:
    """Put tests/unit/_client_pages.py in ``sys.modules`` as ``_client_pages`` (the same
    module the unit tests import by that name, when they ran first in this process)."""
    if "_client_pages" in sys.modules:
        return
    path = Path(__file__).parents[1] / "unit" / "_client_pages.py"
    spec = importlib.util.spec_from_file_location("_client_pages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_client_pages"] = module
    spec.loader.exec_module(module)


_load_client_pages()
