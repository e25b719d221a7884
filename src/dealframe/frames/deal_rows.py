"""Deal list pages read straight into typed rows: the parse of ``client.private.deals()``.

A page whose every item has exactly the documented list-row fields (interface document,
section 2), each of its documented type or null, is read by a schema'd decoder (msgspec) into
rows that the column builder reads (:func:`dealframe.frames.normalize.build_columns`). The
rows are not tracked by the garbage collector, whose passes over a page's dicts were a fifth
of the parse. Any other page (a field more or less, a value of another type, an item that is
not an object, JSON that orjson refuses) is refused (None) and read as JSON into dicts, with
the same checks and the same column builder: the two give the same frame.

Participant objects are declared with their fields in sorted order, so a participant list
written back (msgspec) is the canonical text of :mod:`dealframe.frames.nested`.

Examples
--------
>>> page = read_deal_page(b'{"data": [], "meta": {"total": 0}}')
>>> page["data"], page["meta"]["total"]
([], 0)
>>> read_deal_page(b'{"data": [{"id": "d1"}]}') is None  # documented fields absent
True
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

__all__ = ["read_deal_page"]

_Text = str | None
_Number = float | None
# orjson reads integers beyond 64 bits as floats: such a count is left to it (refused)
_Count = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)] | None


class _Participant(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    country: _Text = None
    id: _Text = None
    name: _Text = None
    short_name: _Text = None
    website: _Text = None


class _Target(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: _Text = None
    name: _Text = None
    short_name: _Text = None
    website: _Text = None
    country: _Text = None


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
    target: _Target | None
    buyers: list[_Participant] | None
    lead_investors: list[_Participant] | None
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


def read_deal_page(content: bytes | bytearray | memoryview | str) -> dict[str, Any] | None:
    """A deal list page as ``{"data": rows, "meta": {...}}``, or None when it is not a page
    of documented rows (it is then read as JSON).

    Parameters
    ----------
    content : bytes
        The page as received.

    Returns
    -------
    dict or None
        ``data``: the rows (typed objects, one attribute per documented field); ``meta``: the
        page's counts (None when absent).

    Examples
    --------
    >>> row = read_deal_page(b'{"data": [{"id": "d", "deal_date": null, "deal_type": null, '
    ...     b'"deal_subtype": null, "deal_synopsis": null, "deal_valuation": 2, '
    ...     b'"deal_raised": null, "deal_revenue": null, "deal_ebitda": null, '
    ...     b'"deal_multiples": null, "target": null, "buyers": [], "lead_investors": null, '
    ...     b'"created_at": null, "updated_at": null, "deleted": false}]}')["data"][0]
    >>> row.id, row.deal_valuation
    ('d', 2.0)
    """
    try:
        page = _DECODER.decode(content)
    except (msgspec.DecodeError, ValueError):  # ValueError: text that is not UTF-8
        return None
    meta = None if page.meta is None else msgspec.structs.asdict(page.meta)
    return {"data": page.data, "meta": meta}
