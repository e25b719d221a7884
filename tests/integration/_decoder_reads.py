"""Spies on the typed reader of deal list pages (``dealframe.frames.deal_rows``), shared by
its unit tests and its tests over HTTP: what each page cost, counted where it is paid."""

from __future__ import annotations

from typing import Any

import pytest

import dealframe.frames.deal_rows as deal_rows


class Reads:
    """A spy on the reader's decoders: the member sets each decode of a page used."""

    def __init__(self, real: Any) -> None:
        self.real, self.sets = real, []

    def __call__(self, extra: tuple[str, ...], *told: tuple[str, ...]) -> Any:
        decoder, sets = self.real(extra, *told), self.sets

        class Counted:
            def decode(self, content: Any) -> Any:
                sets.append(extra)
                return decoder.decode(content)

        return Counted()


class Spied:
    """The reader's decodes (``sets``, see :class:`Reads`), its passes over a page's members
    (``passes``) and its walks of lists and objects (``walks``), the reader remembering no
    page read before."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.reads = Reads(deal_rows._decoder)
        self.sets = self.reads.sets
        self.passes: list[int] = []
        self.walks: list[int] = []
        find, walk = deal_rows._all_unknown_members, deal_rows._as_orjson_reads
        patch.setattr(deal_rows, "_decoder", self.reads)
        patch.setattr(deal_rows, "_LAST", {})
        patch.setattr(deal_rows, "_all_unknown_members", lambda c: self.passes.append(1) or find(c))
        patch.setattr(deal_rows, "_as_orjson_reads", lambda v: self.walks.append(1) or walk(v))
