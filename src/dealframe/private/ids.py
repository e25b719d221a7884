"""Checking entity ids (UUIDs) before any request."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from pandas.api.types import is_scalar

from ..errors import ValidationError

__all__ = ["check_ids"]


def check_ids(ids: Any, argument: str = "ids", *, empty: bool = False) -> list[str]:
    """One UUID or a list of them → a list of canonical lower-case UUID strings, duplicates dropped.

    ``empty``: an empty list is a list of no ids (the ids of an empty frame), not an error.

    Raises
    ------
    ValidationError
        Not a string or list of strings, empty (unless ``empty``), or a malformed UUID
        (named by position).

    Examples
    --------
    >>> check_ids("5F38873F-6E1C-4D6F-AD87-E6977CDA30BA")
    ['5f38873f-6e1c-4d6f-ad87-e6977cda30ba']
    """
    if isinstance(ids, str):
        items: list[Any] = [ids]
    elif isinstance(ids, Mapping) or not isinstance(ids, Iterable):
        raise ValidationError(argument, "a UUID string or a list of them", got=ids)
    else:
        items = list(ids)
    if not items and not empty:
        raise ValidationError(argument, "at least one id", got=items)
    out: dict[str, None] = {}
    for i, item in enumerate(items):
        where = argument if isinstance(ids, str) else f"{argument}[{i}]"
        if not isinstance(item, str):
            if (
                not isinstance(ids, str) and is_scalar(item) and bool(pd.isna(item))
            ):  # a frame's column with nulls
                raise ValidationError(
                    where, "a UUID string, not a null (drop the nulls first: ids.dropna())"
                )
            raise ValidationError(where, "a UUID string", got=item)
        try:
            out.setdefault(str(uuid.UUID(item)), None)
        except ValueError:
            raise ValidationError(
                where, "a UUID such as 5f38873f-6e1c-4d6f-ad87-e6977cda30ba", got=item
            ) from None
    return list(out)
