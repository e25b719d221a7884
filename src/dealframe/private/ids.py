"""Checking entity ids (UUIDs) before any request."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from pandas.api.types import is_scalar

from ..errors import ValidationError

__all__ = ["check_ids", "is_one_id", "refuse_bytes"]

#: What an id is expected to be, as the errors word it.
_EXPECTED = "a UUID such as 5f38873f-6e1c-4d6f-ad87-e6977cda30ba"
#: The kinds of value an id may be, as the errors of a value of another kind word it.
_KINDS = "a UUID (text or uuid.UUID)"
#: Bytes, which iterate as numbers: refused whole, as one value.
_BYTES = (bytes, bytearray, memoryview)
#: What an error says of bytes given as ids.
_NOT_BYTES = ", not bytes (decode them first: .decode())"


def is_one_id(ids: Any) -> bool:
    """Whether ``ids`` is one id (a string or a ``uuid.UUID``), not a list of them: a call
    given one id raises ``NotFoundError`` for it, one given a list reports it missing.

    Examples
    --------
    >>> is_one_id("5f38873f-6e1c-4d6f-ad87-e6977cda30ba"), is_one_id(uuid.uuid4()), is_one_id([])
    (True, True, False)
    """
    return isinstance(ids, (str, uuid.UUID))


def refuse_bytes(value: Any, argument: str, kinds: str | None = None) -> None:
    """Refuse ``value`` when it is bytes (``bytes``, ``bytearray``, ``memoryview``), whole and
    named as ``argument`` (not ``argument[0]``), with the words to decode them: read as a list
    they would be numbers, or one value of the wrong kind. ``kinds``: what ``argument`` takes
    (None: ids, one or a list of them).

    Raises
    ------
    ValidationError
        ``value`` is bytes.

    Examples
    --------
    >>> refuse_bytes("text", "id")
    >>> refuse_bytes(b"FRA", "country", "a string or a list of them")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid country: expected a string or a list of them, not bytes (decode them first: .decode()), got b'FRA'
    """
    if isinstance(value, _BYTES):
        what = f"{_KINDS} or a list of them" if kinds is None else kinds
        raise ValidationError(argument, f"{what}{_NOT_BYTES}", got=value)


def check_ids(ids: Any, argument: str = "ids", *, empty: bool = False) -> list[str]:
    """One UUID or a list of them → a list of canonical lower-case UUID strings, duplicates dropped.

    An id is a string Python's ``uuid.UUID`` reads (upper case, braces, 32 hex digits,
    ``urn:uuid:``) or a ``uuid.UUID`` object. An id with spaces or a line break around it is
    refused, the error asking ``(strip the spaces?)``: it is not stripped silently. Bytes
    (``bytes``, ``bytearray``, ``memoryview``) are refused whole, as one value, with the
    words to decode them: read as a list they would be numbers (``got 53``).
    ``empty``: an empty list is a list of no ids (the ids of an empty frame), not an error.

    Raises
    ------
    ValidationError
        Not a UUID (text or ``uuid.UUID``) or a list of them, empty (unless ``empty``),
        or a malformed UUID (named by position).

    Examples
    --------
    >>> check_ids("5F38873F-6E1C-4D6F-AD87-E6977CDA30BA")
    ['5f38873f-6e1c-4d6f-ad87-e6977cda30ba']
    >>> check_ids([uuid.UUID("5f38873f-6e1c-4d6f-ad87-e6977cda30ba")])
    ['5f38873f-6e1c-4d6f-ad87-e6977cda30ba']
    >>> check_ids([" 5f38873f-6e1c-4d6f-ad87-e6977cda30ba\\n"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid ids[0]: expected a UUID such as 5f38873f-6e1c-4d6f-ad87-e6977cda30ba (strip the spaces?), got ' 5f38873f-6e1c-4d6f-ad87-e6977cda30ba\\n'
    >>> check_ids([5])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid ids[0]: expected a UUID (text or uuid.UUID), got 5
    >>> check_ids(b"5f38873f-6e1c-4d6f-ad87-e6977cda30ba", "id")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid id: expected a UUID (text or uuid.UUID) or a list of them, not bytes (decode them first: .decode()), got b'5f38873f-6e1c-4d6f-ad87-e6977cda30ba'
    """
    refuse_bytes(ids, argument)
    if is_one_id(ids):
        items: list[Any] = [ids]
    elif isinstance(ids, Mapping) or not isinstance(ids, Iterable):
        raise ValidationError(argument, f"{_KINDS} or a list of them", got=ids)
    else:
        items = list(ids)
    if not items and not empty:
        raise ValidationError(argument, "at least one id", got=items)
    out: dict[str, None] = {}
    for i, item in enumerate(items):
        where = argument if is_one_id(ids) else f"{argument}[{i}]"
        if isinstance(item, uuid.UUID):
            out.setdefault(str(item), None)
            continue
        if not isinstance(item, str):
            if (
                not is_one_id(ids) and is_scalar(item) and bool(pd.isna(item))
            ):  # a frame's column with nulls
                raise ValidationError(
                    where, f"{_KINDS}, not a null (drop the nulls first: ids.dropna())"
                )
            raise ValidationError(
                where, _KINDS + (_NOT_BYTES if isinstance(item, _BYTES) else ""), got=item
            )
        try:
            out.setdefault(str(uuid.UUID(item)), None)
        except ValueError:
            raise ValidationError(where, _EXPECTED + _stripped_hint(item), got=item) from None
    return list(out)


def _stripped_hint(item: str) -> str:
    """`` (strip the spaces?)`` when ``item`` is a UUID but for spaces or line breaks
    around it, else nothing.

    Examples
    --------
    >>> _stripped_hint(" 5f38873f-6e1c-4d6f-ad87-e6977cda30ba"), _stripped_hint("abc ")
    (' (strip the spaces?)', '')
    """
    try:
        uuid.UUID(item.strip())
    except ValueError:
        return ""
    return " (strip the spaces?)"
