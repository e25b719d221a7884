"""``client.cache.clear()`` empties the cache file without dropping its tables.

requests-cache's ``clear`` drops each table and creates it again in a second transaction, so
another client or process reading the same file in between failed with a raw
``sqlite3.OperationalError: no such table: responses``. Now both tables are emptied in one
transaction: every other reader sees the entries or a miss, and fetches again.
"""

from __future__ import annotations

import sqlite3

import dealframe


def _schema_version(path) -> int:
    with sqlite3.connect(path) as con:
        return con.execute("PRAGMA schema_version").fetchone()[0]


def test_a_clear_by_one_client_is_a_miss_for_another_on_the_same_file(sandbox, tmp_path):
    path = tmp_path / "http_cache.sqlite"
    settings = {"cache_enabled": True, "cache_path": path, "progress": False}
    with (
        dealframe.Client.for_sandbox(sandbox, **settings) as a,
        dealframe.Client.for_sandbox(sandbox, **settings) as b,
    ):
        skus = a.public.search(regions=["Oceania"]).index[:5].tolist()
        assert a.public.current(skus).attrs["from_cache"] is False
        assert b.public.current(skus).attrs["from_cache"] is True  # one file, shared
        schema = _schema_version(path)

        b.cache.clear()

        # The tables were emptied, not dropped and made again: SQLite counts every change of
        # the schema (a DROP TABLE, a CREATE TABLE or INDEX: eight for the two tables);
        # the VACUUM that gives the space back counts one.
        assert _schema_version(path) - schema <= 1
        assert a.cache.info()["entries"] == b.cache.info()["entries"] == 0
        sent = a.stats.network
        again = a.public.current(skus)  # a miss, fetched again: no error
        assert again.attrs["from_cache"] is False and a.stats.network > sent
        assert b.public.current(skus).attrs["from_cache"] is True  # stored anew
        b.cache.clear(expired=True)  # deletes rows only, as before
        assert _schema_version(path) - schema <= 2
        assert a.public.current(skus).attrs["from_cache"] is True
