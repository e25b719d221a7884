"""Family A snapshots in the research store (placeholder, filled in below)."""
from __future__ import annotations

__all__ = ["PUBLIC_TABLES", "load_public", "snapshot_public"]

PUBLIC_TABLES = ("public/current", "public/time_series")


def snapshot_public(*a, **k):  # pragma: no cover
    raise NotImplementedError


def load_public(*a, **k):  # pragma: no cover
    raise NotImplementedError
