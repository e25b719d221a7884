"""``sync``: bring a local Parquet mirror of the private data up to date from the change feed."""

from __future__ import annotations

import datetime as dt
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..errors import ConfigurationError, ValidationError
from .durable import LOCK_NAME, mirror_lock
from .errors import MirrorPathError
from .feed import PAGE_SIZE, FeedWalk, Fetch, client_fetch
from .schema import ENTITIES
from .state import STATE_NAME, MirrorState, read_state, write_state
from .commit import commit_entity
from .store import ROWS_PER_FILE, STAGING, StagedRows, recover

__all__ = ["DEFAULT_OVERLAP", "EntityReport", "SyncReport", "new_generation", "open_folder", "sync"]

#: How far before the checkpoint an incremental sync starts reading again: covers a
#: service whose timestamps are assigned a little before the rows become visible.
DEFAULT_OVERLAP = dt.timedelta(minutes=5)
#: Walks from the point where a tie moved while it was read, before giving up for this sync.
_MAX_PASSES = 3
_ALIASES = {"transactions": "deals"}


@dataclass
class EntityReport:
    """What one entity's sync did."""

    entity: str
    full: bool
    since: str | None
    checkpoint: str | None
    rows_received: int
    rows_written: int
    requests: int
    passes: int
    seconds: float


@dataclass
class SyncReport:
    """What :func:`sync` did, per entity (``report["deals"]``)."""

    path: Path
    entities: dict[str, EntityReport] = field(default_factory=dict)
    recovered_files: int = 0

    def __getitem__(self, entity: str) -> EntityReport:
        return self.entities[entity]

    def frame(self) -> pd.DataFrame:
        """One row per entity."""
        return pd.DataFrame([vars(r) for r in self.entities.values()])


def _entities(entities: Iterable[str]) -> list[str]:
    if isinstance(entities, str):
        entities = [entities]
    out = []
    for e in entities:
        name = _ALIASES.get(e, e)
        if name not in ENTITIES:
            raise ValidationError("entities", f"names among {', '.join(ENTITIES)}", got=e)
        if name not in out:
            out.append(name)
    if not out:
        raise ValidationError("entities", "at least one entity", got=list(entities))
    return out


def open_folder(path: str | Path, *, create: bool) -> Path:
    """Check that ``path`` can hold a mirror (creating it when asked); return it.

    Raises
    ------
    MirrorPathError
        ``path`` is a file, or a non-empty directory that holds no mirror.
    """
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise MirrorPathError(f"{folder} is a file, not a mirror folder; give the path of a "
                              "directory (new or empty for a first sync)")
    if not folder.exists():
        if not create:
            raise MirrorPathError(f"there is no mirror at {folder}; run dealframe.mirror.sync "
                                  "(or `dealframe mirror sync PATH`) first")
        folder.mkdir(parents=True, mode=0o700)
        return folder
    if not (folder / STATE_NAME).exists():
        extra = [p.name for p in folder.iterdir()
                 if p.name != LOCK_NAME and not p.name.startswith(f".{STATE_NAME}.tmp")]
        if extra:
            raise MirrorPathError(
                f"{folder} is not empty and holds no dealframe mirror ({STATE_NAME} is missing; "
                f"found {', '.join(sorted(extra)[:3])}...); choose a new or empty folder")
        if not create:
            raise MirrorPathError(f"there is no mirror at {folder} yet; run a sync first")
    return folder


def new_generation(state: MirrorState) -> str:
    """Advance ``state.generation``; return the prefix of the files it writes.

    File names start with the generation in 10 digits, so name order is generation order
    (what a query engine sees of "newest version wins", docs/mirror.md).

    Examples
    --------
    >>> state = MirrorState(generation=41)
    >>> new_generation(state)[:11], state.generation
    ('0000000042-', 42)
    """
    state.generation += 1
    return f"{state.generation:010d}-{uuid.uuid4().hex[:8]}"


def _check_client(client: Any) -> None:
    settings = getattr(client, "settings", None)
    if settings is None or not hasattr(client, "private"):
        raise ValidationError("client", "a dealframe.Client", got=client)
    if not getattr(settings, "private_key", None):
        raise ConfigurationError(
            "the mirror reads the private interface, which needs a Family B key: pass "
            "private_key=... to dealframe.Client or set DEALFRAME_PRIVATE_KEY",
            field="private_key")


def _overlap(overlap: dt.timedelta | float | int) -> dt.timedelta:
    if isinstance(overlap, dt.timedelta):
        value = overlap
    elif isinstance(overlap, (int, float)) and not isinstance(overlap, bool):
        value = dt.timedelta(seconds=overlap)
    else:
        raise ValidationError("overlap", "a datetime.timedelta or seconds", got=overlap)
    if value < dt.timedelta(0):
        raise ValidationError("overlap", "a duration >= 0", got=overlap)
    return value


class _Progress:
    """A tqdm bar (when asked, or when interactive) or a callback, per entity."""

    def __init__(self, progress: bool | Callable[[dict], None] | None) -> None:
        self.callback = progress if callable(progress) else None
        interactive = bool(getattr(sys.stderr, "isatty", lambda: False)()) or "ipykernel" in sys.modules
        self.bars = progress is True or (progress is None and interactive)
        self._bar: Any = None

    def start(self, entity: str) -> None:
        self.entity = entity

    def update(self, walk: FeedWalk) -> None:
        if self.callback is not None:
            self.callback({"entity": self.entity, "rows": walk.rows, "requests": walk.requests,
                           "total": walk.total})
        if self.bars:
            if self._bar is None:
                from tqdm.auto import tqdm

                self._bar = tqdm(total=walk.total, desc=f"mirror {self.entity}", unit="row",
                                 leave=False)
            self._bar.n = min(walk.rows, walk.total or walk.rows)
            self._bar.refresh()

    def done(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _iso(stamp: pd.Timestamp | None) -> str | None:
    return None if stamp is None else stamp.isoformat()


def _sync_entity(root: Path, state: MirrorState, entity: str, fetch: Fetch, *, overlap: dt.timedelta,
                 page_size: int, rows_per_file: int, prefix: str, progress: _Progress) -> EntityReport:
    started = time.perf_counter()
    es = state.entity(entity)
    since = None if es.checkpoint is None else pd.Timestamp(es.checkpoint) - overlap
    first_since = since
    staged = StagedRows(root / STAGING / prefix / entity, entity, f"part-{prefix}",
                        rows_per_file=rows_per_file,
                        reread_until=None if es.checkpoint is None else pd.Timestamp(es.checkpoint))
    progress.start(entity)
    received = requests = passes = 0
    walk = None
    for passes in range(1, _MAX_PASSES + 1):
        walk = FeedWalk(fetch, since, page_size)
        for frame in walk:
            staged.add(frame)
            progress.update(walk)
        received += walk.rows
        requests += walk.requests
        if walk.unstable_from is None:
            break
        since = walk.unstable_from  # a tie changed while it was read: read again from there
    progress.done()
    assert walk is not None
    checkpoint = walk.checkpoint
    if walk.unstable_from is not None and checkpoint is not None:
        checkpoint = min(checkpoint, walk.unstable_from)  # the next sync reads it again
    parts = staged.close()
    reread = pa.array(sorted(staged.reread), pa.string())
    synced_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    written = commit_entity(root, state, entity, staged, parts, _iso(checkpoint), synced_at,
                            rows_per_file=rows_per_file, reread=reread)
    return EntityReport(entity, first_since is None, _iso(first_since), es.checkpoint, received,
                        written, requests, passes, time.perf_counter() - started)


def sync(client: Any, path: str | Path, entities: Iterable[str] = ENTITIES, *,
         overlap: dt.timedelta | float = DEFAULT_OVERLAP,
         progress: bool | Callable[[dict], None] | None = None, lock_timeout: float = 60.0,
         page_size: int = PAGE_SIZE, rows_per_file: int = ROWS_PER_FILE) -> SyncReport:
    """Bring the Parquet mirror at ``path`` up to date with the service's private data.

    The first sync of an entity pulls every record, soft-deleted ones included;
    later syncs pull only records with ``updated_at >= checkpoint - overlap``
    (``include_deleted=true``) and upsert them by id: the changed rows are written
    as a delta file (newest version wins), and deltas are compacted into the base
    when they pile up. Soft deletes stay in the mirror with ``deleted=True``.

    Parameters
    ----------
    client : dealframe.Client
        With a Family B key.
    path : str or Path
        The mirror folder (created on the first sync; must be new or empty then).
    entities : iterable of str, default ("companies", "investors", "deals")
        What to sync (``"transactions"`` is accepted for ``"deals"``).
    overlap : timedelta or seconds, default 5 minutes
        How far before the checkpoint an incremental sync starts.
    progress : bool or callable, optional
        A progress bar per entity (None: only when interactive), or a callback
        receiving ``{"entity", "rows", "requests", "total"}`` after every page.
    lock_timeout : float, default 60
        Seconds to wait for another sync of the same folder before
        :class:`~dealframe.mirror.errors.MirrorLockedError` (0: refuse at once).
    page_size : int, default 1000
        Rows per request (the service's maximum).
    rows_per_file : int, default 250,000
        Rows per Parquet file.

    Returns
    -------
    SyncReport
        Per entity: rows received and written, requests, checkpoint, seconds.

    Raises
    ------
    dealframe.errors.ConfigurationError
        The client has no Family B key.
    MirrorPathError, MirrorVersionError, MirrorStateError, MirrorLockedError
        The folder cannot be used as it is; nothing in it is changed.

    Examples
    --------
    >>> import dealframe.mirror
    >>> report = dealframe.mirror.sync(client, "mirror/")  # doctest: +SKIP
    >>> report["deals"].rows_written  # doctest: +SKIP
    50000
    """
    names = _entities(entities)
    _check_client(client)
    gap = _overlap(overlap)
    if isinstance(page_size, bool) or not isinstance(page_size, int) or not 1 <= page_size <= PAGE_SIZE:
        raise ValidationError("page_size", f"an integer between 1 and {PAGE_SIZE}", got=page_size)
    if isinstance(rows_per_file, bool) or not isinstance(rows_per_file, int) or rows_per_file < 1:
        raise ValidationError("rows_per_file", "a positive integer", got=rows_per_file)
    root = open_folder(path, create=True)
    read_state(root)  # a corrupt or foreign state file is reported before the lock is taken
    with mirror_lock(root, lock_timeout):
        state = read_state(root)
        if state is None:
            state = MirrorState(source=getattr(client.settings, "base_url", None))
            write_state(root, state)
        report = SyncReport(root, recovered_files=len(recover(root, state)))
        state.syncs += 1
        prefix = new_generation(state)
        bar = _Progress(progress)
        for entity in names:
            fetch = client_fetch(client, entity, page_size)
            report.entities[entity] = _sync_entity(root, state, entity, fetch, overlap=gap,
                                                   page_size=page_size, rows_per_file=rows_per_file,
                                                   prefix=prefix, progress=bar)
        recover(root, state)  # the staging folder of this sync
        return report
