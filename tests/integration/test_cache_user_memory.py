"""A ``Client`` with the cache on leaves the user's own requests-cache alone.

requests-cache's ``use_memory=True`` is one shared in-memory SQLite database per process
(``file::memory:?cache=shared``). The client's backend opened it for its placeholder tables,
so building a ``Client`` ran DDL in the user's in-memory cache and, while the user held a write
there (``bulk_commit``), waited for it without end (requests-cache retries ``BEGIN IMMEDIATE``
in a loop).
"""

from __future__ import annotations

import threading

from requests_cache.backends.sqlite import SQLiteCache

import dealframe

#: Generous: only reached when the client waits for the user's transaction (the defect).
WAIT = 30.0


def test_a_client_is_built_and_answers_while_the_users_memory_cache_holds_a_write(
    sandbox, tmp_path
):
    user = SQLiteCache(use_memory=True)  # the user's own cache, shared in-memory database
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with user.responses.bulk_commit():  # a batch of the user's writes, still open
            user.responses["mine"] = "kept"
            holding.set()
            release.wait(WAIT)

    built: list[dealframe.Client] = []
    entries: list[int] = []
    done = threading.Event()

    def build() -> None:
        client = dealframe.Client.for_sandbox(
            sandbox, cache_enabled=True, cache_path=tmp_path / "http_cache.sqlite", progress=False
        )
        built.append(client)
        client.public.search(regions=["Oceania"])  # a request stored in the client's own file
        entries.append(client.cache.info()["entries"])
        done.set()

    holder = threading.Thread(target=hold)
    holder.start()
    builder = threading.Thread(target=build, daemon=True)
    try:
        assert holding.wait(WAIT)
        builder.start()
        finished = done.wait(WAIT)
        still_open = not release.is_set() and holder.is_alive()
        assert finished and still_open, "Client() waited for the user's own in-memory cache"
    finally:
        release.set()
        holder.join()
        builder.join(WAIT)
        for client in built:
            client.close()
    try:
        assert user.responses["mine"] == "kept"  # the user's write committed, untouched
        assert entries[0] > 0  # the client's answers are in its own file
    finally:
        user.close()
