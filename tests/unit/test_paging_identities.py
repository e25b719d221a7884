"""The walk knows a page by its parsed identity column: the same first and last identity
(and count) is not a repeated page unless every identity is the same, in the same order."""

from __future__ import annotations

from typing import Any

from dealframe.contract import Findings
from dealframe.frames.private import list_page_columns
from dealframe.private.paging import pull_pages


class _Page:
    """A stand-in response serving ``pages[page - 1]`` (ids only), 3 pages of 4 rows."""

    from_cache, attempts, elapsed = False, 1, 0.0

    def __init__(self, ids: list[Any], page: int) -> None:
        self.ids, self.page = ids, page

    def json(self) -> dict:
        rows = [{"id": i, "name": f"n{i}"} for i in self.ids]
        return {"data": rows, "meta": {"total": 12, "has_more": self.page < 3}}


def _walk(pages: list[list[Any]]) -> tuple[Any, Findings]:
    found = Findings("POST /x")
    walked = pull_pages(
        lambda page, size: _Page(pages[page - 1], page),
        limit=None,
        workers=1,
        progress=False,
        desc="x",
        found=found,
        page_size=4,
        parse=lambda items: list_page_columns("companies", items),
    )
    return walked, found


def test_pages_alike_at_both_ends_are_all_read():
    pages = [["a1", "b", "c", "z"], ["a1", "x", "y", "z"], ["a1", "b", "d", "z"]]
    walked, found = _walk(pages)
    assert walked.rows == 12 and len(walked.infos) == 3
    assert [f.kind for f in found] == []


def test_a_page_whose_identities_repeat_an_earlier_one_ends_the_walk():
    pages = [["a1", "b", "c", "z"], ["a2", "x", "y", "z"], ["a1", "b", "c", "z"]]
    walked, found = _walk(pages)
    assert walked.rows == 8
    assert [(f.kind, f.where) for f in found] == [("repeated_page", "POST /x page 3")]


def test_null_and_empty_identities_are_told_apart():
    """Page 2 swaps a null and an empty id of page 1: not a repeat; page 3 is one."""
    pages = [["a", None, "", "z"], ["a", "", None, "z"], ["a", None, "", "z"]]
    walked, found = _walk(pages)
    assert walked.rows == 8
    assert [(f.kind, f.where) for f in found][-1] == ("repeated_page", "POST /x page 3")
    assert [f.message for f in found if f.kind == "missing_identity"] == [
        "2 of 4 items have no 'id': kept as rows of their own"  # said once per walk
    ]
