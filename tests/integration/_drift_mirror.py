"""A mirror of deals and companies synced straight from the session sandbox, once per test
process: the reference the drift tests compare a sync through the drift proxy with (the
paging and page-body tests each synced their own). Read it only: a test that changes a
mirror syncs one of its own."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path
from typing import Any

from _drift_proxy import FAST

from dealframe import Client, mirror

__all__ = ["direct_mirror"]


def direct_mirror(sandbox: Any) -> Path:
    """The folder of a mirror of ``deals`` and ``companies`` synced from ``sandbox`` itself
    (not through a proxy), built at the first call for that sandbox."""
    return _synced(sandbox.url, sandbox.public_token, sandbox.private_key)


@functools.cache
def _synced(url: str, public_token: str, private_key: str) -> Path:
    # under the run's cache folder (tests/conftest.py removes it at the end of the run)
    folder = Path(tempfile.mkdtemp(prefix="drift-mirror-", dir=os.environ.get("XDG_CACHE_HOME")))
    with Client(url, public_token, private_key, cache_enabled=False, **FAST) as client:
        mirror.sync(client, folder, ["deals", "companies"], progress=False)
    return folder
