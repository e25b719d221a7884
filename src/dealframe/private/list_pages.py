"""How a list call (``companies()``, ``investors()``, ``deals()``) reads and builds its pages:
one path, which the client runs on every page and the parse benchmarks time.

A page's body is read as the transport reads it for the list (:attr:`ListParse.reader`:
typed rows for a page of deals, :func:`~dealframe.frames.deal_rows.read_deal_page`, else
JSON; :meth:`ListParse.read`, as :func:`~dealframe.private.paging.read_body` reads a page a
worker left unread); the walk checks its ``meta`` and identities
(:func:`~dealframe.private.paging.pull_pages`), then its items become columns at once
(:meth:`ListParse.page`), and the pages are joined into one typed frame
(:meth:`ListParse.frame`), what the readers find said into the call's findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..contract import Findings, shaping
from ..frames.private import LIST_READERS, list_frame, list_page_columns
from ..frames.said import rows_said_later
from ..transport.body import Read
from .paging import read_body

if TYPE_CHECKING:
    import pandas as pd

    from ..errors import RequestInfo

__all__ = ["ListParse"]


@dataclass(frozen=True)
class ListParse:
    """The reading and building of the pages of one list call of ``entity``.

    Parameters
    ----------
    entity : str
        ``companies``, ``investors`` or ``transactions``.
    found : Findings or None
        The call's findings (named by its endpoint), told what the readers find; None
        outside any call (the readers raise and warn as of a user's own items, as the
        tests of the frames read them).
    info : RequestInfo, optional
        The request, for what a reader's error says of it.

    Examples
    --------
    >>> parse = ListParse("companies", Findings("POST /api/private/v1/companies"))
    >>> doc, problem = parse.read(b'{"data": [{"id": "c1", "name": "Acme"}], "meta": {}}')
    >>> frame, _ = parse.frame([parse.page(doc["data"])])
    >>> frame["name"].tolist(), problem
    (['Acme'], None)
    """

    entity: str
    found: Findings | None
    info: RequestInfo | None = None

    @property
    def reader(self) -> Callable[[bytes], Any] | None:
        """How the transport reads a page's body for this list (None: as JSON)."""
        return LIST_READERS.get(self.entity)

    def read(self, body: bytes) -> tuple[Any, str | None]:
        """``(document, problem)``: the page's ``body`` as the transport reads it for this
        list (:func:`~dealframe.private.paging.read_body`); the document None with the
        problem when the transport would not take it as it is (sent again, or failed)."""
        doc, problem = read_body(body, self.reader)
        return (doc.doc if isinstance(doc, Read) else doc), problem

    def page(self, items: Any) -> Any:
        """One page's ``items`` (checked by the walk) as columns: its JSON can go at once."""
        with self._shaping():
            return list_page_columns(self.entity, items)

    def frame(self, parts: Iterable[Any]) -> tuple[pd.DataFrame, dict[Any, Any]]:
        """The :meth:`page` of every page joined into one typed frame, and what the readers
        keep back to say of the rows the call returns
        (:func:`~dealframe.frames.said.rows_said_later`, for
        :func:`~dealframe.frames.said.say_kept`)."""
        with self._shaping(), rows_said_later() as later:
            return list_frame(self.entity, parts), later

    def _shaping(self) -> AbstractContextManager[Any]:
        """The call's answers being shaped (:func:`~dealframe.contract.shaping`), if any."""
        if self.found is None:
            return nullcontext()
        return shaping(self.info, self.found.where, self.found)
