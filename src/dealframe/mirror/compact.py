"""``compact``: Delta's optimize (small files rewritten into few) and vacuum (files no kept
version needs deleted), keeping the history the caller asks for."""

from __future__ import annotations

import datetime as dt
import math
import numbers
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from dealframe.arguments import checked_keywords, integer_in

from ..errors import ValidationError
from .durable import mirror_lock
from .read import _state
from .schema import ENTITIES, PUBLIC_TABLES
from .state import check_writable
from .store import recover
from .sync import _entities, lock_timeout_seconds
from .table import (
    check,
    commit_properties,
    damage,
    guard_write,
    history_rows,
    is_table,
    last_info,
    open_table,
    owner_only,
    writer_properties,
)

__all__ = ["DEFAULT_RETAIN_HOURS", "compact", "kept_versions"]

#: History ``compact`` keeps by default: every version of the last 7 days (Delta's default).
DEFAULT_RETAIN_HOURS = 168.0
#: Operations of commits that change no rows: the mirror's compaction, Delta's optimize and
#: vacuum (another tool's); ``keep_versions`` does not count them.
_COMPACTIONS = ("compact", "optimize", "vacuum start", "vacuum end")


def _retention(keep_versions: Any, retain_hours: Any) -> tuple[int | None, float | None]:
    if keep_versions is not None and retain_hours is not None:
        raise ValidationError(
            "keep_versions", "either keep_versions or retain_hours, not both", got=keep_versions
        )
    if keep_versions is not None:
        what = "a whole number >= 1 (1: the last sync's version)"
        return integer_in(keep_versions, "keep_versions", 1, None, what), None
    hours = DEFAULT_RETAIN_HOURS if retain_hours is None else retain_hours
    if (
        isinstance(hours, bool)
        or not isinstance(hours, numbers.Real)
        or not math.isfinite(hours)
        or hours < 0
    ):
        raise ValidationError("retain_hours", "a number of hours >= 0", got=retain_hours)
    return None, float(hours)


def kept_versions(
    times: list[tuple[int, pd.Timestamp]],
    latest: int,
    *,
    keep_versions: int | None,
    retain_hours: float | None,
    now: pd.Timestamp,
    compactions: Collection[int] = (),
) -> list[int]:
    """The versions whose files a compaction keeps (pure).

    ``keep_versions`` keeps the newest N versions of data (the versions in ``compactions``,
    which change no rows, are not counted) and every version after the oldest of them;
    ``retain_hours`` keeps every version that was current at some point in the last H hours
    (the one current H hours ago included). The latest version and the compaction's own are
    always kept.

    Examples
    --------
    >>> t = pd.Timestamp("2026-01-10", tz="UTC")
    >>> times = [(0, t - pd.Timedelta(hours=50)), (1, t - pd.Timedelta(hours=30)),
    ...          (2, t - pd.Timedelta(hours=2))]
    >>> kept_versions(times, 2, keep_versions=2, retain_hours=None, now=t)
    [1, 2]
    >>> kept_versions(times, 2, keep_versions=None, retain_hours=40, now=t)  # 0 was current 40 h ago
    [0, 1, 2]
    >>> kept_versions(times, 2, keep_versions=None, retain_hours=20, now=t)
    [1, 2]
    >>> kept_versions(times, 2, keep_versions=None, retain_hours=0, now=t)
    [2]
    >>> kept_versions(times, 2, keep_versions=2, retain_hours=None, now=t, compactions={1})
    [0, 1, 2]
    """
    if keep_versions is not None:
        data = sorted((v for v, _ in times if v not in compactions), reverse=True)
        if len(data) >= keep_versions:
            start = data[keep_versions - 1]
        else:  # fewer versions of data than asked for: all of them
            start = min((v for v, _ in times), default=latest)
        return list(range(start, latest + 1))
    assert retain_hours is not None
    try:
        since = now - pd.Timedelta(hours=retain_hours)
    except (OverflowError, ValueError):  # more hours than time has: keep everything
        return sorted({v for v, _ in times} | {latest})
    ordered = sorted(times)
    kept = [v for v, t in ordered if t > since]
    older = [v for v, t in ordered if t <= since]
    if older and retain_hours > 0:
        kept.append(older[-1])  # the version current at the start of the window
    return sorted(set(kept) | {latest})


def _compact_table(
    folder: Path, keep_versions: int | None, retain_hours: float | None, entity: str | None
) -> dict[str, Any]:
    table = open_table(folder)
    problem = check(folder, table, entity)
    if problem:
        raise damage(folder, problem)
    info = last_info(table)
    props = commit_properties(
        "compact", checkpoint=info.checkpoint if info else None, sync=info.sync if info else None
    )
    # the mirror's own encodings (Snappy), not deltalake's default (zstd)
    metrics = table.optimize.compact(writer_properties=writer_properties(), commit_properties=props)
    table = open_table(folder)
    latest = table.version()
    entries = [info for info, _ in history_rows(table)]
    times = [(i.version, i.timestamp) for i in entries]
    # versions an earlier compaction removed stay removed: never report them as kept
    floor = max((i.oldest_kept for i in entries if i.oldest_kept is not None), default=0)
    keep = [
        v
        for v in kept_versions(
            times,
            latest,
            keep_versions=keep_versions,
            retain_hours=retain_hours,
            now=pd.Timestamp(dt.datetime.now(dt.UTC)),
            compactions={i.version for i in entries if i.operation in _COMPACTIONS},
        )
        if v >= floor or v == latest
    ]
    props = commit_properties(
        "compact",
        checkpoint=info.checkpoint if info else None,
        sync=info.sync if info else None,
        oldest_kept=min(keep),
    )
    removed = table.vacuum(
        retention_hours=0,
        dry_run=False,
        enforce_retention_duration=False,
        keep_versions=keep,
        full=True,
        commit_properties=props,
    )
    owner_only(folder)
    return {
        "files_added": int(metrics.get("numFilesAdded", 0)),
        "files_removed": int(metrics.get("numFilesRemoved", 0)),
        "files_deleted": len(removed),
        "versions_kept": len(keep),
        "oldest_kept": min(keep),
    }


@checked_keywords
def compact(
    path: str | Path,
    entities: Iterable[str] = ENTITIES,
    *,
    lock_timeout: float = 60.0,
    keep_versions: int | None = None,
    retain_hours: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Optimize and vacuum the mirror's Delta tables, keeping the history asked for.

    Optimize rewrites small data files into fewer large ones (a new version,
    same rows); vacuum then deletes the files no kept version needs, and files a
    crashed write left that no version names. No service call is made. It holds
    the mirror's lock (it waits for a running sync).

    Parameters
    ----------
    path : str or Path
        The mirror folder.
    entities : iterable of str, default all
        The tables (``"public/current"`` and ``"public/time_series"`` too).
    lock_timeout : float, default 60
        Seconds to wait for a running sync.
    keep_versions : int, optional
        Keep the newest N versions of data readable (the versions of the last N syncs, or
        snapshots, and every version after the oldest of them); the commits compaction makes
        (optimize, vacuum) change no rows and are not counted. 1: the last sync's.
    retain_hours : float, optional
        Keep every version current at some point in the last H hours (0: only
        the latest). Default (neither given): 168 hours, 7 days.

    Returns
    -------
    dict
        Per table: ``files_added``, ``files_removed`` (by optimize),
        ``files_deleted`` (by vacuum), ``versions_kept`` and ``oldest_kept``.

    Examples
    --------
    >>> dealframe.mirror.compact("mirror/", keep_versions=10)  # doctest: +SKIP
    """
    names = _entities(entities, (*ENTITIES, *PUBLIC_TABLES))
    keep, hours = _retention(keep_versions, retain_hours)
    lock_timeout = lock_timeout_seconds(lock_timeout)
    root, _ = _state(path)
    check_writable(root, marker=False)  # the lock file is written in; the marker is not
    done: dict[str, dict[str, Any]] = {}
    with guard_write(root), mirror_lock(root, lock_timeout):
        recover(root)
        for name in names:
            if is_table(root / name):
                done[name] = _compact_table(
                    root / name, keep, hours, name if name in ENTITIES else None
                )
    return done
