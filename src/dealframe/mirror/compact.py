"""``compact``: fold an entity's deltas into its base, so each id is in exactly one file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .commit import commit_entity
from .durable import mirror_lock
from .errors import MirrorStateError
from .schema import ENTITIES
from .state import read_state
from .store import ROWS_PER_FILE, STAGING, StagedRows, recover
from .sync import _entities, new_generation, open_folder

__all__ = ["compact"]


def compact(path: str | Path, entities: Iterable[str] = ENTITIES, *, lock_timeout: float = 60.0,
            rows_per_file: int = ROWS_PER_FILE) -> dict[str, int]:
    """Rewrite each entity's base and deltas as one base: one row per id, no service call.

    A sync compacts by itself when deltas pile up; call this before handing the
    folder to a tool that reads the files with a plain glob (no merge by file name).
    It holds the mirror's lock and commits like a sync (crash safe); checkpoints
    and last sync stay as they are.

    Parameters
    ----------
    path : str or Path
        The mirror folder.
    entities : iterable of str, default all
    lock_timeout : float, default 60
        Seconds to wait for a running sync.
    rows_per_file : int, default 250,000

    Returns
    -------
    dict
        Rows written per entity (0 when it already was one generation).

    Examples
    --------
    >>> dealframe.mirror.compact("mirror/")  # doctest: +SKIP
    {'companies': 0, 'investors': 0, 'deals': 50000}
    """
    names = _entities(entities)
    root = open_folder(path, create=False)
    if read_state(root) is None:
        raise MirrorStateError(f"there is no mirror at {root} yet; run a sync first")
    written: dict[str, int] = {}
    with mirror_lock(root, lock_timeout):
        state = read_state(root)
        assert state is not None
        recover(root, state)
        prefix = new_generation(state)
        for entity in names:
            es = state.entities.get(entity)
            if es is None or not es.deltas:  # never synced, or already one generation
                written[entity] = 0
                continue
            staged = StagedRows(root / STAGING / prefix / entity, entity, f"part-{prefix}",
                                rows_per_file=rows_per_file)
            written[entity] = commit_entity(root, state, entity, staged, staged.close(), None, None,
                                            rows_per_file=rows_per_file, compact=True)
        recover(root, state)
    return written
