"""``client.cache`` over real HTTP: its methods check their arguments with dealframe errors,
its internal hooks are private, and ``clear(expired=True)`` gives the space back while the
client is open (the vacuumed pages used to stay in the write-ahead log until it closed).
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _clock import age_cache_entries

import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import CallError, UnknownArgumentError, ValidationError
from dealframe.transport.cache import CacheControl
from dealframe.transport.session import TransportStats


@pytest.fixture(scope="module")
def sb() -> Iterator[Any]:
    with dealframe.sandbox.run(scale=0.05, seed=7) as s:
        yield s


@pytest.fixture
def client(sb: Any, tmp_path: Path) -> Iterator[Client]:
    path = tmp_path / "http.sqlite"
    with Client.for_sandbox(sb, cache_enabled=True, cache_path=path, progress=False) as c:
        yield c


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda c: c.cache.clear(expird=True), UnknownArgumentError, "did you mean 'expired'"),
        (lambda c: c.cache.clear(True), CallError, "keyword arguments only: expired="),
        (lambda c: c.cache.info(1), CallError, "CacheControl.info"),
        (lambda c: c.cache.clear(expired="yes"), ValidationError, "invalid expired"),
        (lambda c: c.cache.clear(expired=None), ValidationError, "invalid expired"),
    ],
    ids=["misspelt", "positional", "info-argument", "expired-text", "expired-none"],
)
def test_a_wrong_argument_is_a_dealframe_error_and_deletes_nothing(client, call, error, words):
    client.private.deals(limit=5)
    entries = client.cache.info()["entries"]
    assert entries >= 1
    with pytest.raises(error) as info:
        call(client)
    assert isinstance(info.value, ValidationError) and words in str(info.value)
    assert client.cache.info()["entries"] == entries
    assert client.private.deals(limit=5).attrs["from_cache"] is True


def test_the_transports_hooks_are_not_public_and_still_work(client):
    public = {name for name in dir(client.cache) if not name.startswith("_")}
    assert public == {"clear", "info", "path", "enabled"}
    first = client.private.deals(limit=5)
    again = client.private.deals(limit=5)
    assert first.attrs["from_cache"] is False and again.attrs["from_cache"] is True
    assert client.stats.snapshot()["cache_hits"] >= 1


def test_the_properties_are_typed():
    hints = typing.get_type_hints(Client.cache.fget)  # type: ignore[attr-defined]
    assert hints["return"] is CacheControl
    hints = typing.get_type_hints(Client.stats.fget)  # type: ignore[attr-defined]
    assert hints["return"] is TransportStats


def test_stats_methods_take_no_arguments(client):
    with pytest.raises(CallError):
        client.stats.snapshot(True)


def test_clearing_expired_entries_gives_the_space_back_while_open(sb, tmp_path):
    path = tmp_path / "http.sqlite"
    with Client.for_sandbox(sb, cache_enabled=True, cache_path=path, progress=False) as client:
        client.private.deals()
        client.public.search()
        full = client.cache.info()
        assert full["entries"] >= 2
        age_cache_entries(path, 2 * 86_400)  # every entry written two days ago: expired
        client.cache.clear(expired=True)
        pruned = client.cache.info()
        wal = Path(f"{path}-wal")
        assert pruned["entries"] == 0
        # the vacuumed pages left the write-ahead log: it used to hold them (about twice
        # the entries' size) until the client closed, and info() counted them
        assert not wal.exists() or wal.stat().st_size == 0, wal.stat().st_size
        assert pruned["size_bytes"] < full["size_bytes"] / 4, (pruned, full)
