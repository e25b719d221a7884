"""The version of dealframe: the one source (pyproject reads it, the package exports it)."""

__version__ = "0.2.0"
