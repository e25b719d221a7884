"""Errors of the mirror; each message says what is wrong and how to repair it.

::

    DealframeError
    └── MirrorError                  base of the mirror's errors
        ├── MirrorPathError          the path is a file, or a directory that is not a mirror
        ├── MirrorVersionError       the mirror was written by another schema version
        ├── MirrorStateError         the marker file is unreadable, or there is nothing to read
        │   └── MirrorDamagedError   a table is missing, unreadable or holds another table
        ├── MirrorWriteError         the disk refused a write (full, read-only, too large)
        └── MirrorLockedError        another sync holds the mirror's lock, or another
                                     writer committed to a table during the sync, twice

    DealframeWarning
    ├── MirrorRepairWarning          a damaged table was rebuilt from a full pull
    └── MirrorDivergenceWarning      the table may differ from the service (counts, clocks)

A client without a Family B key raises :class:`dealframe.errors.ConfigurationError`;
a bad argument (an unknown entity, a version that does not exist) raises
:class:`dealframe.errors.ValidationError`.
"""

from __future__ import annotations

from ..errors import DealframeError
from ..notices import DealframeWarning

__all__ = [
    "MirrorDamagedError",
    "MirrorDivergenceWarning",
    "MirrorError",
    "MirrorLockedError",
    "MirrorPathError",
    "MirrorRepairWarning",
    "MirrorStateError",
    "MirrorVersionError",
    "MirrorWriteError",
    "Said",
]

#: Warnings kept until an operation's loop is over, then emitted: (category, message). A
#: warning filtered into an error (``-W error``) raised inside the loop stops it part-way.
Said = list[tuple[type[Warning], str]]


class MirrorError(DealframeError):
    """Base class of the mirror's errors."""


class MirrorPathError(MirrorError):
    """The path cannot hold a mirror (a file, or a non-empty directory that is not a mirror)."""


class MirrorVersionError(MirrorError):
    """The mirror's schema version is not one this dealframe reads."""


class MirrorStateError(MirrorError):
    """The marker file is corrupt, or the mirror holds nothing to read yet."""


class MirrorDamagedError(MirrorStateError):
    """A table's files are missing or unreadable, or it holds another table's schema.

    ``dealframe mirror sync PATH --repair`` (``sync(..., repair=True)``) rebuilds it.
    """


class MirrorWriteError(MirrorError):
    """The operating system refused a write (no space left, read-only, file too large).

    The tables are left at their previous version; free space and run the sync again.
    """


class MirrorLockedError(MirrorError):
    """Another sync holds the mirror's lock and did not release it in time, or another writer
    (not a dealframe sync) committed to a table while a sync wrote it, and again while the
    sync wrote it once more: sync again when that writer is done."""


class MirrorRepairWarning(DealframeWarning):
    """A sync found a damaged table (missing or unreadable files, another table's schema), or
    one another writer changed (its rows, or properties the mirror does not write), and
    rebuilt it from a full pull (``SyncReport[entity].repaired`` says what was wrong)."""


class MirrorDivergenceWarning(DealframeWarning):
    """A sync found a sign that a table differs from the service: its row count differs from
    the service's count (``SyncReport[entity].rows_differ``), or rows are stamped after the
    sync's start (``SyncReport[entity].stamped_ahead``)."""
