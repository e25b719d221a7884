"""One sandbox is one source for a mirror, whether the client was made by
``Client.for_sandbox(sb)`` or by ``Client(sb.url, ...)``, over HTTP against the session sandbox.

Before, a mirror synced by one of the two clients refused the other (``MirrorStateError:
synced from http://127.0.0.1:PORT, not from dealframe-sandbox (seed 7, ...)``), both ways and
for ``snapshot_public`` too: mirror.md's first block makes ``Client()`` from the environment,
its snapshot block a sandbox client. Another service is still refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealframe.mirror as mirror
from dealframe import Client
from dealframe.client import SANDBOX_SOURCE


@pytest.fixture
def plain(sandbox: Any) -> Iterator[Client]:
    with Client(sandbox.url, sandbox.public_token, sandbox.private_key, cache_enabled=False) as c:
        yield c


@pytest.fixture
def boxed(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def sync(client: Client, path: Path) -> None:
    mirror.sync(client, path, ["investors"], progress=False)


def test_a_plain_client_then_the_sandbox_client_then_the_plain_one(
    plain: Client, boxed: Client, tmp_path: Path
) -> None:
    path = tmp_path / "m"
    sync(plain, path)
    assert mirror.status(path).attrs["source"] == plain.source
    sync(boxed, path)  # the sandbox's name is kept from now on: it does not change with its port
    assert mirror.status(path).attrs["source"] == boxed.source
    assert boxed.source is not None and boxed.source.startswith(SANDBOX_SOURCE)
    sync(plain, path)
    assert mirror.status(path).attrs["source"] == boxed.source
    assert mirror.status(path).attrs["syncs"] == 3


def test_the_sandbox_client_then_a_plain_client(
    plain: Client, boxed: Client, tmp_path: Path
) -> None:
    path = tmp_path / "m"
    sync(boxed, path)
    sync(plain, path)
    assert mirror.status(path).attrs["source"] == boxed.source
    assert mirror.status(path).attrs["syncs"] == 2


def test_snapshots_by_either_client(plain: Client, boxed: Client, tmp_path: Path) -> None:
    path = tmp_path / "m"
    skus = list(boxed.public.search(countries=["GBR"]).index[:2])
    assert mirror.snapshot_public(plain, path, skus=skus, date="2026-06-01")["companies"] == 2
    assert mirror.snapshot_public(boxed, path, skus=skus, date="2026-06-02")["companies"] == 2
    assert mirror.snapshot_public(plain, path, skus=skus, date="2026-06-03")["companies"] == 2
    sync(plain, path)  # the entities of the same mirror, too
    assert mirror.status(path).attrs["source"] == boxed.source


def test_another_service_is_still_another_source(
    sandbox: Any, boxed: Client, tmp_path: Path
) -> None:
    path = tmp_path / "m"
    sync(boxed, path)
    with Client(
        "http://127.0.0.1:1",
        sandbox.public_token,
        sandbox.private_key,
        retries=0,
        cache_enabled=False,
    ) as elsewhere:
        with pytest.raises(mirror.MirrorStateError, match="not from http://127.0.0.1:1"):
            sync(elsewhere, path)
        with pytest.raises(mirror.MirrorStateError, match="not from http://127.0.0.1:1"):
            mirror.snapshot_public(elsewhere, path, skus=["CEL-GBR"])
    assert mirror.status(path).attrs["syncs"] == 1
