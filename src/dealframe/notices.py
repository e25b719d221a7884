"""Warnings dealframe emits (never for errors: those are raised, see :mod:`dealframe.errors`)."""

from __future__ import annotations

__all__ = ["DealframeWarning", "MissingDataWarning"]


class DealframeWarning(UserWarning):
    """Base of dealframe's warnings."""


class MissingDataWarning(DealframeWarning):
    """Some requested entities were not returned by the service (see ``df.attrs``)."""
