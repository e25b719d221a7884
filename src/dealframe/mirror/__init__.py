"""A local Parquet mirror of the private data, kept up to date from the change feed.

``sync`` pulls everything the first time (soft-deleted records included) and,
later, only what changed since the checkpoint, upserting by id (changed rows go
to delta files, merged on read and compacted when they pile up); ``load`` reads
an entity back as the client's typed frame; ``status`` summarises the mirror;
``compact`` folds the deltas away.
See docs/mirror.md for the guarantees and for querying the files with DuckDB,
polars or Spark.

Examples
--------
>>> import dealframe.mirror
>>> dealframe.mirror.sync(client, "mirror/")  # doctest: +SKIP
>>> deals = dealframe.mirror.load("mirror/", "deals")  # doctest: +SKIP
"""

from __future__ import annotations

from .errors import (MirrorError, MirrorLockedError, MirrorPathError, MirrorStateError,
                     MirrorVersionError)
from .compact import compact
from .read import files, load, status
from .schema import ENTITIES, SCHEMA_VERSION
from .sync import DEFAULT_OVERLAP, EntityReport, SyncReport, sync

__all__ = [
    "DEFAULT_OVERLAP",
    "ENTITIES",
    "EntityReport",
    "MirrorError",
    "MirrorLockedError",
    "MirrorPathError",
    "MirrorStateError",
    "MirrorVersionError",
    "SCHEMA_VERSION",
    "SyncReport",
    "compact",
    "files",
    "load",
    "status",
    "sync",
]
