"""A sync that fails leaves no staging folder behind, over real HTTP.

A first sync against a service that cannot be reached used to leave
``_staging/000001/companies/`` in the new folder (and a sync that failed part-way, the files it
had staged), though the docs say ``_staging/`` exists only while a sync runs: only the next
sync deleted it. A sync that fails now deletes what it staged as it fails. The lock's file
``.lock`` stays, by the lock's design (an ``flock`` on a file that is never removed).
"""

from __future__ import annotations

import socket
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServerError, TransportError
from dealframe.mirror import store

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Exchange, Proxy, html, no_hang  # noqa: F401 - no_hang: autouse

HANG_LIMIT = 60


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.02, seed=43) as sandbox:
        yield sandbox


def _nothing_listening() -> str:
    """The URL of a local port nothing listens on (connections are refused)."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_a_first_sync_against_a_service_out_of_reach_leaves_no_staging(sb, tmp_path):
    path = tmp_path / "m"
    with Client(_nothing_listening(), sb.public_token, sb.private_key, **FAST) as client:
        with pytest.raises(TransportError):
            mirror.sync(client, path, progress=False)
    assert not (path / store.STAGING).exists()
    assert {p.name for p in path.iterdir()} <= {".lock", "_mirror.json"}
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as client:
        report = mirror.sync(client, path, entities=["companies"], progress=False)
    assert report["companies"].full and report["companies"].rows_written > 0


def test_a_sync_failing_part_way_deletes_what_it_staged(sb, tmp_path):
    path = tmp_path / "m"
    seen = {"feed": 0}

    def third_page_on(ex: Exchange) -> bool:
        if ex.method == "POST" and isinstance(ex.body, dict) and ex.body.get("limit") == 40:
            seen["feed"] += 1
        return seen["feed"] >= 3

    with (
        Proxy(sb.url) as proxy,
        Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST) as client,
    ):
        proxy.add(r"/api/private/v1/investors$", html(502), when=third_page_on)
        with pytest.raises(ServerError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mirror.sync(
                client,
                path,
                entities=["companies", "investors"],
                progress=False,
                page_size=40,
                rows_per_file=30,
            )
    assert seen["feed"] >= 3  # two pages of investors were staged before the failure
    assert not (path / store.STAGING).exists()
    status = mirror.status(path).set_index("entity")
    assert status.loc["companies", "rows"] > 0  # committed before investors failed
    assert pd.isna(status.loc["investors", "version"])  # no table of it yet


def test_a_sync_refused_for_another_source_changes_nothing_of_the_mirror(sb, tmp_path):
    # what an interrupted sync left: deleted by the next sync this mirror allows, not by one
    # it refuses (the refusal is the mirror's own: nothing of it may change)
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as client:
        mirror.sync(client, path, entities=["investors"], progress=False)
    left = path / store.STAGING / "000009" / "investors" / "part-000.parquet"
    left.parent.mkdir(parents=True)
    left.write_bytes(b"x")
    marker = path / "._mirror.json.tmp-abc"
    marker.write_text("{}")
    before = sorted(p.relative_to(path).as_posix() for p in path.rglob("*"))
    with Client(sb.url, sb.public_token, sb.private_key, progress=False, cache_enabled=False) as c:
        with pytest.raises(mirror.MirrorStateError, match="was synced from"):
            mirror.sync(c, path, entities=["investors"], progress=False)
    assert sorted(p.relative_to(path).as_posix() for p in path.rglob("*")) == before
    assert left.read_bytes() == b"x" and marker.read_text() == "{}"
