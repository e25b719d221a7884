"""Deal list pages read straight into typed rows: the parse of ``client.private.deals()``.

A page whose every item has the documented list-row fields, each of its documented type or
null, is read by a schema'd decoder (msgspec) into rows the garbage collector does not track
(its passes over a page's dicts were a fifth of the parse); the column builder reads them as it
reads dicts (:func:`dealframe.frames.normalize.build_columns`). Members of the items beyond the
documented ones (the document allows them; the client keeps them as extra columns) are read
too: msgspec's refusal names one such member, one pass over the items' members (not their
values) finds them all, and the page is read again by rows that add them as fields of any
value, null where an item lacks one (as a dict's ``get`` reads it), an integer beyond 64 bits
a float (as orjson reads it: lists and objects are looked into only when the page holds 19
digits in a row); ``investors``, which the document shows on single deals, is read as
participants (:data:`_SINGLE_ONLY`). A member null in every row may be absent from every item
(no column): the page is read again with it UNSET where absent, and so are later pages at once
(UNSET for every member would cost more: making each absent value null again takes longer than
the decode). A
later page refused for the same member is read at once with the members pages refused for it
held (their union, up to :data:`MAX_EXTRA`): a member none of its items holds makes no column,
and the page is read once more with those it holds; the decoders are kept in a small cache
keyed by the members' names. Any other page (a documented field absent, another type, an
unknown member inside ``target``, a participant or ``deal_multiples``, or in ``meta``, an item
that is not an object, JSON orjson refuses) gives None and is read as JSON, with the same
checks and builder: both give the same frame. Costs, by layout of the members, are in
docs/real-service.md ("Unknown fields on items"). Participant fields are declared in sorted
order, so a list written back by msgspec is the canonical text of
:mod:`dealframe.frames.nested`.

Examples
--------
>>> read_deal_page(b'{"data": [], "meta": {"total": 0}}')["meta"]["total"]
0
>>> read_deal_page(b'{"data": [{"id": "d1"}]}') is None  # documented fields absent
True
"""

from __future__ import annotations

import functools
import re
from collections import deque
from itertools import compress, repeat
from operator import attrgetter, is_
from typing import Annotated, Any

import msgspec

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError

__all__ = ["PAGE_TYPES", "read_deal_page"]

#: What one raw page may be: its bytes as received, or its text.
PAGE_TYPES = (bytes, bytearray, memoryview, str)

_Text = str | None
_Number = float | None
# orjson reads integers beyond 64 bits as floats: such a count is left to it (refused)
_Count = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)] | None


class _Party(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A deal's target or one of its participants (fields in sorted order: see above)."""

    country: _Text = None
    id: _Text = None
    name: _Text = None
    short_name: _Text = None
    website: _Text = None


class _Multiples(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    ev_revenue: _Number = None
    ev_ebitda: _Number = None


class _Deal(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: _Text
    deal_date: _Text
    deal_type: _Text
    deal_subtype: _Text
    deal_synopsis: _Text
    deal_valuation: _Number
    deal_raised: _Number
    deal_revenue: _Number
    deal_ebitda: _Number
    deal_multiples: _Multiples | None
    target: _Party | None
    buyers: list[_Party] | None
    lead_investors: list[_Party] | None
    created_at: _Text
    updated_at: _Text
    deleted: bool | None


class _Meta(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    page: _Count = None
    limit: _Count = None
    returned: _Count = None
    total: _Count = None
    has_more: bool | None = None


class _Page(msgspec.Struct, forbid_unknown_fields=True):
    data: list[_Deal]
    meta: _Meta | None = None


_DECODER = msgspec.json.Decoder(_Page)

#: Members of single deals (documented there, not in list rows) that a page's items may hold,
#: read as their documented type when they do: ``investors`` as participants, so the list is
#: written as the single deal writes it (every participant field, in sorted order); a
#: value of another type gives None (the page is read as JSON, whose checks name it).
_SINGLE_ONLY: dict[str, Any] = {"investors": list[_Party] | None}

#: The most unknown members a page's rows take (a page with more is read as JSON).
MAX_EXTRA = 16
#: The members pages held, by the first one msgspec refused there (their union, at most
#: :data:`MAX_EXTRA`), and those of them null in every item of a page (told from absent
#: ones): a later page refused for that member is read with them at once.
_LAST: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
_LAST_MAX = 256
#: msgspec's refusal of a member of an item of ``data`` (not of ``meta``, of the page, or
#: of an object inside an item: those pages are read as JSON).
_UNKNOWN = re.compile(r"Object contains unknown field `(.+)` - at `\$\.data\[\d+\]`")
#: The integers orjson reads as int (int64 and uint64); it reads any other as a float
_INT_LOW, _INT_HIGH = -(2**63), 2**64 - 1
#: A page's bytes with every digit a ``0`` and any other byte a space: an integer beyond
#: int64 and uint64 has 19 digits or more, a run of ``_LONG`` (a translation and a search of
#: a page take a third of a walk of its members' lists and objects in Python).
_DIGITS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG = b"0" * 19
#: The types of the values of a member no item holds (one null in every item is held), and
#: of one null or absent in every item (read with None for absent: unclear)
_ABSENT, _UNCLEAR = {msgspec.UnsetType}, {type(None)}


class _Keys(msgspec.Struct):
    """A page's items as their members, unread (the pass that finds every member's name)."""

    data: list[dict[str, msgspec.Raw]]


_KEYS = msgspec.json.Decoder(_Keys)


@functools.lru_cache(maxsize=64)
def _decoder(extra: tuple[str, ...], told: tuple[str, ...] = ()) -> msgspec.json.Decoder[Any]:
    """The decoder of pages whose items may also hold the members ``extra`` (sorted), of any
    value (those of :data:`_SINGLE_ONLY` of their type), None where an item lacks one, UNSET
    for those in ``told`` (told from null: making each such value None again costs more than
    the decode tells): the documented fields first, then these."""
    if not extra:
        return _DECODER

    def field(name: str) -> tuple[Any, Any]:
        kind = _SINGLE_ONLY.get(name, Any)
        return (kind | msgspec.UnsetType, msgspec.UNSET) if name in told else (kind, None)

    deal: Any = msgspec.defstruct(  # a type made at run time: Any to the type checker
        "_Deal",
        [(name, *field(name)) for name in extra],
        bases=(_Deal,),
        gc=False,
        forbid_unknown_fields=True,
    )
    page = msgspec.defstruct(
        "_Page", [("data", list[deal]), ("meta", _Meta | None, None)], forbid_unknown_fields=True
    )
    return msgspec.json.Decoder(page)


def _field_name(name: str) -> bool:
    """Whether rows can hold the member ``name`` as a field (a name Python takes for an
    attribute, not a dunder)."""
    return name.isidentifier() and not name.startswith("__")


def _unknown_member(error: msgspec.ValidationError) -> str | None:
    """The item member msgspec refused as unknown, when rows can hold it as a field; else
    None."""
    match = _UNKNOWN.fullmatch(str(error))
    return match[1] if match is not None and _field_name(match[1]) else None


def _all_unknown_members(content: Any) -> tuple[str, ...] | None:
    """Every member of the page's items the document does not name (sorted), in one pass;
    None when there are more than :data:`MAX_EXTRA` or one rows cannot hold."""
    try:
        items = _KEYS.decode(content).data
    except (msgspec.DecodeError, ValueError, RecursionError):  # then the page is read as JSON
        return None
    extra = set().union(*items).difference(_Deal.__struct_fields__)
    if len(extra) > MAX_EXTRA or not all(map(_field_name, extra)):
        return None
    return tuple(sorted(extra))


def _long_integers(content: Any) -> bool:
    """Whether the page holds a run of 19 digits or more (else every integer in it is inside
    int64, as orjson reads it)."""
    if isinstance(content, str):
        content = content.encode()
    elif isinstance(content, memoryview):
        content = bytes(content)
    return _LONG in content.translate(_DIGITS)


def _as_orjson_reads(value: Any) -> Any:
    """``value`` (msgspec's reading of any JSON) with every integer outside int64 and uint64
    a float, as orjson reads it (lists and objects changed in place).

    Raises
    ------
    OverflowError
        For an integer beyond floats (orjson refuses the page).
    """
    if type(value) is int:
        return value if _INT_LOW <= value <= _INT_HIGH else float(value)
    stack = [value]  # not recursive: the value may be as deep as msgspec allowed
    while stack:
        node = stack.pop()
        for key, item in list(node.items() if type(node) is dict else enumerate(node)):
            kind = type(item)
            if kind is int and not _INT_LOW <= item <= _INT_HIGH:
                node[key] = float(item)
            elif kind is dict or kind is list:
                stack.append(item)
    return value


def _columns(rows: list[Any], extra: tuple[str, ...]) -> dict[str, tuple[list[Any], set[type]]]:
    """Each member of ``extra``: its values in ``rows`` and their types."""
    columns = {}
    for name in extra:
        values = list(map(attrgetter(name), rows))
        columns[name] = (values, set(map(type, values)))
    return columns


def _read_as_orjson(
    rows: list[Any], columns: dict[str, tuple[list[Any], set[type]]], content: Any
) -> None:
    """The members of ``rows`` (``columns``: see :func:`_columns`) as the JSON reading has
    them: null where an item lacks one (as a dict's ``get`` reads it), an integer beyond
    int64 and uint64 a float (see :func:`_as_orjson_reads`). A member holding integers is
    looked into only when one is beyond both, lists and objects only when the page holds
    19 digits in a row (looked for once).

    Raises
    ------
    OverflowError
        For an integer beyond floats (orjson refuses the page).
    """
    long: bool | None = None
    for name, (values, kinds) in columns.items():
        if msgspec.UnsetType in kinds:  # rows lacking the member: null (at C speed)
            lacking = compress(rows, map(is_, values, repeat(msgspec.UNSET)))
            deque(map(setattr, lacking, repeat(name), repeat(None)), maxlen=0)
        deep: set[type] = {kind for kind in (dict, list) if kind in kinds}
        if deep:
            if long is None:
                long = _long_integers(content)
            if not long:
                deep.clear()
        if int in kinds:
            ints = [value for value in values if type(value) is int]
            if min(ints) < _INT_LOW or max(ints) > _INT_HIGH:
                deep.add(int)
        if not deep:
            continue
        for row, value in zip(rows, values, strict=True):
            if type(value) in deep:
                setattr(row, name, _as_orjson_reads(value))


def _remember(first: str, extra: tuple[str, ...], told: tuple[str, ...]) -> None:
    """Remember the members ``extra`` a page refused first for ``first`` held, with those
    pages refused for it held before (while they are at most :data:`MAX_EXTRA`), and those
    to tell from null (``told``, with those told before)."""
    held, was_told = _LAST.get(first, ((), ()))
    union = tuple(sorted(set(held).union(extra)))
    if len(union) > MAX_EXTRA:
        union, was_told = extra, ()
    if len(_LAST) >= _LAST_MAX and first not in _LAST:
        _LAST.clear()
    _LAST[first] = union, tuple(sorted(set(was_told).union(told).intersection(union)))


@checked_keywords
def read_deal_page(content: bytes | bytearray | memoryview | str) -> dict[str, Any] | None:
    """A deal list page as ``{"data": rows, "meta": {...} or None}``, or None when it is not
    a page of documented rows (members beyond the documented ones are fields of the rows).

    msgspec counts its nesting against Python's recursion limit, which orjson does not use:
    a :class:`RecursionError` of the decoder (a caller already deep in its stack; the schema
    refuses any deeper value at its first token) also gives None, and the page is read as
    JSON, as :func:`~dealframe.frames.public.read_current_page` does with a deep ``meta``.

    Parameters
    ----------
    content : bytes
        The page as received.

    Examples
    --------
    >>> read_deal_page(b'{"data": [{"id": "d"}], "meta": {}, "links": {}}') is None
    True
    >>> documented = dict.fromkeys(_Deal.__struct_fields__)
    >>> page = msgspec.json.encode({"data": [{**documented, "score": 2.5}, documented]})
    >>> [row.score for row in read_deal_page(page)["data"]]  # a member the document lacks
    [2.5, None]
    """
    if not isinstance(content, PAGE_TYPES):
        raise ValidationError("content", "the raw bytes of a page", got=type(content).__name__)
    extra: tuple[str, ...] = ()
    told: tuple[str, ...] = ()  # members read UNSET where absent (told from null), if held
    first: str | None = None  # the member the documented rows refused
    found = False  # extra is every member of the page's items (a pass over them, or a read)
    while True:
        try:
            page = _decoder(extra, tuple(name for name in told if name in extra)).decode(content)
        except msgspec.ValidationError as exc:  # an unknown member: read again with it
            name = _unknown_member(exc)
            if name is None or found:
                return None
            if first is None:
                first, guess = name, _LAST.get(name)
                if guess is not None:  # the members pages refused for it held
                    extra, told = guess
                    continue
            members = _all_unknown_members(content)  # all found at once: one more read
            if members is None:
                return None
            extra, found = members, True
            continue
        except (msgspec.DecodeError, ValueError, RecursionError):  # ValueError: not UTF-8
            return None
        if not extra:
            break
        columns = _columns(page.data, extra)
        unclear = [name for name, (_, kinds) in columns.items() if kinds == _UNCLEAR]
        if unclear := [name for name in unclear if name not in told]:  # null, or absent?
            told = tuple(sorted(set(told).union(unclear)))
            continue
        held = tuple(name for name, (_, kinds) in columns.items() if kinds != _ABSENT)
        if held == extra:
            break
        extra, found = held, True  # a member of the guess no item holds: no column for it
    if extra:
        assert first is not None  # only a refusal adds members
        _remember(first, extra, told)
        try:
            _read_as_orjson(page.data, columns, content)
        except OverflowError:  # an integer orjson refuses (beyond floats)
            return None
    meta = None if page.meta is None else msgspec.structs.asdict(page.meta)
    return {"data": page.data, "meta": meta}
