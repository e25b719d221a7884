"""What a mirror's table folder holds, from its files alone: a Delta log, or data files
without one (no Delta Lake reader needed, so the staging code can ask it too)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["is_table", "log_lost"]


def is_table(folder: Path) -> bool:
    """Whether ``folder`` holds a Delta log (a table, readable or not)."""
    return (folder / "_delta_log").is_dir()


def log_lost(folder: Path) -> str | None:
    """What is wrong with ``folder`` when it holds data files but no Delta log (the log
    deleted, or a first sync that died between moving its files in and committing them),
    else None: such a folder is a damaged table, not a missing one.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = Path(tmp)
    ...     before = log_lost(folder)
    ...     _ = (folder / "part-00000-x-c000.snappy.parquet").write_bytes(b"")
    ...     after = log_lost(folder)
    >>> before is None, after
    (True, 'it holds data files but its Delta log (_delta_log) is missing (deleted, or the first sync did not finish)')
    """
    if is_table(folder) or not folder.is_dir() or not any(folder.glob("*.parquet")):
        return None
    return (
        "it holds data files but its Delta log (_delta_log) is missing "
        "(deleted, or the first sync did not finish)"
    )
