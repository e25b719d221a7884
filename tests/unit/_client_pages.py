"""Raw list pages → the frame ``client.private.deals()`` (or ``companies()``, ``investors()``)
builds of them, by the path it runs on each page's body
(:class:`dealframe.private.list_pages.ListParse`, the same object the client builds its list
calls with), without HTTP and without the walk's checks of ``meta`` and identities (tested
with the client and the page walk).

Each body is read as the transport reads it for the list (typed rows for a page of deals,
else JSON), each page's items become columns at once, and the pages are joined.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from dealframe.frames.private import list_frame
from dealframe.private.list_pages import ListParse

__all__ = ["RefusedBody", "list_from_items", "list_from_pages", "page_items"]


class RefusedBody(Exception):
    """A body the transport does not take as a page (not JSON, no ``data``, not an object):
    the client sends the request again or fails it, and never shapes it."""


def _parse(entity: str) -> ListParse:
    """The list path, outside any call: the readers' errors and warnings are those of frames
    built of a user's own items (a call would turn them into a ``ServiceContractError`` and
    findings of the answer)."""
    return ListParse(entity, None)


def page_items(entity: str, page: bytes) -> Any:
    """The items of one page as the transport reads its body for the list of ``entity``."""
    doc, problem = _parse(entity).read(page)
    if doc is None:
        raise RefusedBody(problem)
    return doc["data"]


def list_from_pages(
    pages: Iterable[bytes], entity: str = "transactions", **kwargs: Any
) -> pd.DataFrame:
    """The frame of ``pages`` (raw bodies) as the client builds it (``kwargs``: those of
    :func:`~dealframe.frames.private.list_frame`, joined by it then)."""
    parse = _parse(entity)
    parts = [parse.page(page_items(entity, page)) for page in pages]
    return list_frame(entity, parts, **kwargs) if kwargs else parse.frame(parts)[0]


def list_from_items(entity: str, items: Any, **kwargs: Any) -> pd.DataFrame:
    """The frame of one page's ``items`` (parsed) as the client builds it."""
    parse = _parse(entity)
    part = parse.page(items)
    return list_frame(entity, [part], **kwargs) if kwargs else parse.frame([part])[0]
