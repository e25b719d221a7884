"""Checking the ``fields`` allowlist of a Family B profile before any request.

``GET /companies/{id}``, ``/investors/{id}`` and ``/transactions/{id}`` take
``fields``, a comma-separated allowlist of top-level response fields; the
service answers 400 to a name it does not know. The names each profile has
(interface document section 2.2) are :data:`dealframe.frames.schemas.PROFILE_FIELDS`,
the same tuples the profile frames are built from, so a typo is refused here,
with the closest valid name, instead of after a round trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ValidationError, did_you_mean
from ..frames.schemas import PROFILE_FIELDS

__all__ = ["check_fields"]

_LABELS = {"companies": "company", "investors": "investor", "transactions": "deal"}


def _names(fields: Any) -> list[str]:
    """``fields`` as a list of stripped names (a string may hold several, comma-separated)."""
    if isinstance(fields, str):
        items: list[Any] = fields.split(",")
    elif isinstance(fields, (Mapping, bytes)) or not isinstance(fields, Iterable):
        raise ValidationError("fields", "a list of field names", got=fields)
    else:
        items = list(fields)
    if not items or not all(isinstance(f, str) and f.strip() for f in items):
        raise ValidationError("fields", "a non-empty list of field names (strings)", got=fields)
    return [f.strip() for f in items]


def check_fields(entity: str, fields: Any) -> list[str] | None:
    """Validate a profile's ``fields`` allowlist; the names to send, each once, in order.

    Parameters
    ----------
    entity : {"companies", "investors", "transactions"}
        Whose profile.
    fields : list of str, str or None
        Top-level field names (``id`` is always returned by the service); a string
        is one name or several separated by commas. None means every field.

    Returns
    -------
    list of str or None
        The names, stripped and without repeats; None when ``fields`` is None.

    Raises
    ------
    ValidationError
        Naming ``fields``: not a list of names, empty, or a name the profile does
        not have (with the closest valid name and the full list).

    Examples
    --------
    >>> check_fields("companies", ["name", " valuation", "name"])
    ['name', 'valuation']
    >>> check_fields("investors", "name,stats")
    ['name', 'stats']
    >>> check_fields("companies", ["valuaton"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields: ... (did you mean 'valuation'?); valid: ...
    """
    if fields is None:
        return None
    allowed = PROFILE_FIELDS[entity]
    names = list(dict.fromkeys(_names(fields)))
    for name in names:
        if name not in allowed:
            raise ValidationError(
                "fields",
                f"a field of the {_LABELS[entity]} profile{did_you_mean(name, allowed)}; "
                f"valid: {', '.join(allowed)}",
                got=name,
            )
    return names
