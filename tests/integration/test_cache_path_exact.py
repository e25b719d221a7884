"""``cache_path`` is the file written, exactly: ``cache_path=".../http_cache"`` (no suffix)
writes ``.../http_cache``. requests-cache adds ``.sqlite`` to a name without a suffix, so the
file the user named was not the file written (``http_cache.sqlite`` beside it), silently."""

from __future__ import annotations

import sqlite3

import pytest

import dealframe


@pytest.mark.parametrize("name", ["http_cache", "http_cache.db", "http_cache.sqlite"])
def test_the_cache_file_is_the_path_given(sandbox, tmp_path, name):
    path = tmp_path / name
    with dealframe.Client.for_sandbox(
        sandbox, cache_enabled=True, cache_path=path, progress=False
    ) as client:
        first = client.public.search(regions=["Oceania"])
        again = client.public.search(regions=["Oceania"])
        info = client.cache.info()
    assert not first.attrs.get("from_cache") and again.attrs["from_cache"]
    assert info["path"] == str(path) and info["entries"] > 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == [name], written  # no http_cache.sqlite beside it, no -wal left
    with sqlite3.connect(path) as con:  # the answers are in the file named
        assert con.execute("SELECT count(*) FROM responses").fetchone()[0] == info["entries"]


def test_a_second_client_reads_the_file_the_first_wrote(sandbox, tmp_path):
    path = tmp_path / "shared"
    settings = {"cache_enabled": True, "cache_path": str(path), "progress": False}
    with dealframe.Client.for_sandbox(sandbox, **settings) as client:
        client.public.search(regions=["Oceania"])
    with dealframe.Client.for_sandbox(sandbox, **settings) as client:
        assert client.settings.cache_path == path
        assert client.public.search(regions=["Oceania"]).attrs["from_cache"]
        assert client.stats.network == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared"]
