"""Durable file operations: fsync, atomic replace, and the mirror's lock file.

A file is durable once its bytes and the directory entry naming it are on disk:
:func:`fsync_file` then :func:`fsync_dir`. :func:`atomic_write` writes a
temporary file in the same directory and renames it over the target, so a
reader sees the old bytes or the new ones, never a mix.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from .errors import MirrorLockedError, MirrorPathError

__all__ = ["LOCK_NAME", "atomic_write", "fsync_dir", "fsync_file", "mirror_lock", "private_dirs"]

LOCK_NAME = ".lock"

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def private_dirs(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each owner-only (0700).

    ``Path.mkdir(parents=True, mode=...)`` gives the mode to the last folder only; the
    parents it creates get the default (0755 under the usual umask).
    """
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)


def fsync_file(path: Path) -> None:
    """Flush ``path``'s bytes to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flush ``path``'s directory entries (creations, renames, deletions) to disk."""
    if os.name != "nt":  # directories cannot be opened on Windows
        fsync_file(path)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically and durably.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> atomic_write(p, b"{}"); p.read_bytes()
    b'{}'
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    # Owner-only, like the HTTP cache: a mirror holds the account's data.
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    try:
        os.replace(tmp, path)
    except OSError:  # refused (a flag, a permission): the temporary file is not left behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


@contextlib.contextmanager
def mirror_lock(folder: Path, timeout: float) -> Iterator[None]:
    """Hold the mirror's exclusive lock for the ``with`` block.

    The lock is an ``flock`` on ``folder/.lock``: the operating system drops it
    when the holder dies (even by ``kill -9``), so a crash never leaves a stale lock. The
    file itself is never removed: removing it while another process waits on it would let a
    third lock a new file of the same name at the same time.

    Parameters
    ----------
    folder : Path
        The mirror directory (must exist).
    timeout : float
        Seconds to wait for a running sync to finish; 0 refuses at once.

    Raises
    ------
    MirrorLockedError
        The lock stayed taken for ``timeout`` seconds.
    MirrorPathError
        The lock file cannot be opened for writing (a permission, a ``chattr`` flag).
    """
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except PermissionError as exc:  # a flag the mirror's check could not read (chattr)
        raise MirrorPathError(
            f"the mirror's lock {path} cannot be opened for writing ({exc.strerror}); every "
            "writer writes its pid in it: make it and its folder writable (`lsattr "
            f"{path}` shows a chattr flag) and run again; nothing was written"
        ) from None
    try:
        deadline = time.monotonic() + max(timeout, 0.0)
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                raise MirrorLockedError(
                    f"another sync (pid {holder}) is writing the mirror at {folder}; wait for it "
                    "to finish or pass a longer lock_timeout (--lock-timeout; waited "
                    f"{timeout:g} s)"
                )
            time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _try_lock(fd: int) -> bool:
    if fcntl is None:  # pragma: no cover - Windows: no advisory lock; single writer assumed
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
