"""Raw list pages → the frame ``client.private.deals()`` (or ``companies()``, ``investors()``)
builds of them, by the functions it runs on each page's body, without HTTP and without the
walk's checks of ``meta`` and identities (tested with the client and the page walk).

The transport reads a success body with the list's reader
(:data:`dealframe.frames.private.LIST_READERS`: typed rows for a page of deals, else JSON),
each page's items become columns at once (``list_page_columns``), and the pages are joined
(``list_frame``), as ``private/api.py`` does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from dealframe.frames.private import LIST_READERS, list_frame, list_page_columns
from dealframe.transport.body import Read, expecting, parse

__all__ = ["RefusedBody", "list_from_items", "list_from_pages", "page_items"]


class RefusedBody(Exception):
    """A body the transport does not take as a page (not JSON, no ``data``, not an object):
    the client sends the request again or fails it, and never shapes it."""


def page_items(entity: str, page: bytes) -> Any:
    """The items of one page as the transport reads its body for the list of ``entity``."""
    reader = LIST_READERS.get(entity)
    if reader is None:
        doc, problem = parse(page)
    else:
        with expecting(reader):
            doc, problem = parse(page)
    if doc is None:
        raise RefusedBody(problem)
    return (doc.doc if isinstance(doc, Read) else doc)["data"]


def list_from_pages(
    pages: Iterable[bytes], entity: str = "transactions", **kwargs: Any
) -> pd.DataFrame:
    """The frame of ``pages`` (raw bodies) as the client builds it."""
    parts = [list_page_columns(entity, page_items(entity, page)) for page in pages]
    return list_frame(entity, parts, **kwargs)


def list_from_items(entity: str, items: Any, **kwargs: Any) -> pd.DataFrame:
    """The frame of one page's ``items`` (parsed) as the client builds it."""
    return list_frame(entity, [list_page_columns(entity, items)], **kwargs)
