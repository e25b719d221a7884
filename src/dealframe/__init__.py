"""dealframe: a pandas-native client for a company, investor and deal data service."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
