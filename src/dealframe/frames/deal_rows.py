"""Deal list pages read straight into typed rows: the parse of ``client.private.deals()``.

A page whose every item has the documented list-row fields, each of its documented type or
null, is read by a schema'd decoder (msgspec) into rows the garbage collector does not track
(its passes over a page's dicts were a fifth of the parse); the column builder reads them as it
reads dicts (:func:`dealframe.frames.normalize.build_columns`). Members of the items beyond the
documented ones (the document allows them; the client keeps them as extra columns) are read
too: msgspec's refusal names each such member, and the page is read again by rows that add
them as fields of any value, null where an item lacks one (as a dict's ``get`` reads it), the
decoders kept in a small cache keyed by the members' names. Any other page (a documented
field absent, another type, an unknown member inside ``target``, a participant or
``deal_multiples``, or in ``meta``, an item that is not an object, JSON orjson refuses) gives
None and is read as JSON, with the same checks and builder: both give the same frame.
Participant fields are declared in sorted order, so a list written back by msgspec is the
canonical text of :mod:`dealframe.frames.nested`.

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
from typing import Annotated, Any

import msgspec

from dealframe.arguments import checked_keywords

__all__ = ["read_deal_page"]

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

#: The most unknown members a page's rows take (a page with more is read as JSON): each one
#: found costs a decode of the page up to the first item holding it.
MAX_EXTRA = 16
#: msgspec's refusal of a member of an item of ``data`` (not of ``meta``, of the page, or
#: of an object inside an item: those pages are read as JSON).
_UNKNOWN = re.compile(r"Object contains unknown field `(.+)` - at `\$\.data\[\d+\]`")


@functools.lru_cache(maxsize=32)
def _decoder(extra: tuple[str, ...]) -> msgspec.json.Decoder[Any]:
    """The decoder of pages whose items may also hold the members ``extra`` (sorted), of any
    value, None where an item lacks one: the documented fields first, then these."""
    if not extra:
        return _DECODER
    deal: Any = msgspec.defstruct(  # a type made at run time: Any to the type checker
        "_Deal",
        [(name, Any, None) for name in extra],
        bases=(_Deal,),
        gc=False,
        forbid_unknown_fields=True,
    )
    page = msgspec.defstruct(
        "_Page", [("data", list[deal]), ("meta", _Meta | None, None)], forbid_unknown_fields=True
    )
    return msgspec.json.Decoder(page)


def _unknown_member(error: msgspec.ValidationError, known: list[str]) -> str | None:
    """The item member msgspec refused as unknown, when rows can hold it as a field (a name
    Python takes for an attribute, not a dunder, not found before); else None."""
    match = _UNKNOWN.fullmatch(str(error))
    name = match[1] if match else None
    if name is None or not name.isidentifier() or name.startswith("__") or name in known:
        return None
    return name


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
    extra: list[str] = []
    while True:
        try:
            page = _decoder(tuple(sorted(extra))).decode(content)
            break
        except msgspec.ValidationError as exc:  # an unknown member: read again with it
            name = _unknown_member(exc, extra)
            if name is None or len(extra) == MAX_EXTRA:
                return None
            extra.append(name)
        except (msgspec.DecodeError, ValueError, RecursionError):  # ValueError: not UTF-8
            return None
    meta = None if page.meta is None else msgspec.structs.asdict(page.meta)
    return {"data": page.data, "meta": meta}
