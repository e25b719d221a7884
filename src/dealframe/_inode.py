"""Inode flags (``chattr +i``, ``+a``) that keep a folder or file as it is, even for root.

One reader, :func:`locked`, for the command-line checks of an output folder
(:mod:`dealframe.clitools`) and the mirror's checks of its folder and in-place files
(:func:`dealframe.mirror.state.check_writable`).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

__all__ = ["locked"]


#: Linux inode flags (``chattr``) of a folder where no file can be renamed or removed, or of
#: a file that cannot be replaced, renamed or rewritten: ``FS_IMMUTABLE_FL`` and
#: ``FS_APPEND_FL``, read with ``FS_IOC_GETFLAGS``.
_LOCKS = {0x10: "immutable (chattr +i)", 0x20: "append-only (chattr +a)"}
_GETFLAGS = (2 << 30) | (struct.calcsize("l") << 16) | (ord("f") << 8) | 1


def locked(path: Path, *, follow: bool = True) -> str | None:
    """What makes ``path`` keep what it holds (``"immutable (chattr +i)"``, ``"append-only
    (chattr +a)"``), read from its inode flags: a folder so flagged keeps every file made in
    it, a file cannot be replaced (renamed over), removed or rewritten, even by root, whom
    permission bits do not stop. None where it has none, does not exist, or the system
    cannot say (not Linux, a file system without the flags): the write then decides.
    Without ``follow``, a symbolic link is not followed (None: a rename replaces the link,
    whatever its target's flags).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "f.json").write_bytes(b"{}")
    2
    >>> locked(folder), locked(folder / "f.json"), locked(folder / "missing")
    (None, None, None)
    """
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return None
    mode = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    if not follow:
        mode |= getattr(os, "O_NOFOLLOW", 0)
    try:  # a FIFO is opened without waiting for a writer; a link's target read if followed
        handle = os.open(path, mode)
    except OSError:  # ELOOP: a link not followed
        return None
    try:
        read = fcntl.ioctl(handle, _GETFLAGS, bytes(struct.calcsize("l")))
    except OSError:  # ENOTTY, EOPNOTSUPP: no such flags here
        return None
    finally:
        os.close(handle)
    flags = int.from_bytes(read[:4], sys.byteorder)
    return next((why for bit, why in _LOCKS.items() if flags & bit), None)
