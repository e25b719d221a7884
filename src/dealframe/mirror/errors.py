"""Errors of the mirror; each message says what to do.

::

    DealframeError
    └── MirrorError                  base of the mirror's errors
        ├── MirrorPathError          the path is a file, or a directory that is not a mirror
        ├── MirrorVersionError       the mirror was written by another schema version
        ├── MirrorStateError         the state file is unreadable or inconsistent
        └── MirrorLockedError        another sync holds the mirror's lock

A client without a Family B key raises :class:`dealframe.errors.ConfigurationError`.
"""

from __future__ import annotations

from ..errors import DealframeError

__all__ = ["MirrorError", "MirrorLockedError", "MirrorPathError", "MirrorStateError",
           "MirrorVersionError"]


class MirrorError(DealframeError):
    """Base class of the mirror's errors."""


class MirrorPathError(MirrorError):
    """The path cannot hold a mirror (a file, or a non-empty directory that is not a mirror)."""


class MirrorVersionError(MirrorError):
    """The mirror's schema version is not the one this dealframe writes."""


class MirrorStateError(MirrorError):
    """The state file is corrupt, or a file it lists is missing."""


class MirrorLockedError(MirrorError):
    """Another sync holds the mirror's lock and did not release it in time."""
