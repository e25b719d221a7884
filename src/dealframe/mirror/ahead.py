"""Reading a table's rows ahead, on a thread of their own, while the change feed is walked.

An incremental sync of a table small enough to be upserted in memory
(:data:`.table.IN_MEMORY_MAX_ROWS`) reads every row of it: the upsert rewrites
the files holding the changed ids, which, for changes spread over random ids, is
all of them. That read does not depend on what the feed returns, so it runs
while the feed is walked (waiting for the service, mostly): pyarrow decodes
without the GIL. The thread ends before the sync does (the ``with`` block waits
for it), and an error of the read is raised where the rows are used, so that a
damaged data file is handled by the commit as before.

Examples
--------
>>> with read_ahead(folder, table, "deals") as ahead:  # doctest: +SKIP
...     walk_the_feed()
...     rows = ahead.rows() if ahead is not None else None
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
from deltalake import DeltaTable

from . import table as table_mod
from .schema import arrow_schema

__all__ = ["StoredRows", "read_ahead"]


class StoredRows:
    """The rows of a table's loaded version, being read (:func:`read_ahead`).

    Attributes
    ----------
    files : list of Path
        The data files read: the ones a rewrite of the table removes.
    """

    def __init__(self, files: list[Path], future: Future[pa.Table]) -> None:
        self.files = files
        self._future = future

    def rows(self) -> pa.Table:
        """The rows (waits for the read); raises what the read raised."""
        return self._future.result()


@contextlib.contextmanager
def read_ahead(folder: Path, table: DeltaTable | None, entity: str) -> Iterator[StoredRows | None]:
    """Read ``table``'s rows on a thread during the ``with`` block, when an upsert would read
    them all (the table exists and holds at most :data:`.table.IN_MEMORY_MAX_ROWS` rows);
    yield None otherwise. Leaving the block waits for the read to end."""
    if table is None or table_mod.row_count(table) > table_mod.IN_MEMORY_MAX_ROWS:
        yield None
        return
    files = table_mod.data_files(folder, table)
    with ThreadPoolExecutor(1, thread_name_prefix="dealframe-mirror") as pool:
        yield StoredRows(files, pool.submit(table_mod.read_rows, files, arrow_schema(entity)))
