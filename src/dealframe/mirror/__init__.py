"""The private data as local Delta Lake tables, kept up to date from the change feed.

``sync`` pulls everything the first time (soft-deleted records included) and,
later, only what changed since the checkpoint, merging it by id into each
entity's Delta table in one atomic commit; ``load`` reads an entity back as the
client's typed frame, at the latest version or ``as_of`` an earlier sync;
``history`` lists the commits; ``status`` summarises the mirror; ``compact``
optimizes and vacuums; ``snapshot_public`` keeps dated snapshots of Family A
data beside them. DuckDB, polars, Spark and every Delta reader read the tables
as they are. See docs/mirror.md.

Examples
--------
>>> import dealframe.mirror
>>> dealframe.mirror.sync(client, "mirror/")  # doctest: +SKIP
>>> deals = dealframe.mirror.load("mirror/", "deals")  # doctest: +SKIP
>>> dealframe.mirror.history("mirror/", "deals")  # doctest: +SKIP
"""

from __future__ import annotations

from .compact import DEFAULT_RETAIN_HOURS, compact
from .errors import (
    MirrorDamagedError,
    MirrorDivergenceWarning,
    MirrorError,
    MirrorLockedError,
    MirrorPathError,
    MirrorRepairWarning,
    MirrorStateError,
    MirrorVersionError,
    MirrorWriteError,
)
from .public import PUBLIC_TABLES, load_public, snapshot_public
from .read import files, history, load, status
from .schema import ENTITIES, SCHEMA_VERSION
from .sync import DEFAULT_OVERLAP, EntityReport, SyncReport, sync

__all__ = [
    "DEFAULT_OVERLAP",
    "DEFAULT_RETAIN_HOURS",
    "ENTITIES",
    "EntityReport",
    "MirrorDamagedError",
    "MirrorError",
    "MirrorLockedError",
    "MirrorPathError",
    "MirrorDivergenceWarning",
    "MirrorRepairWarning",
    "MirrorStateError",
    "MirrorVersionError",
    "MirrorWriteError",
    "PUBLIC_TABLES",
    "SCHEMA_VERSION",
    "SyncReport",
    "compact",
    "files",
    "history",
    "load",
    "load_public",
    "snapshot_public",
    "status",
    "sync",
]
