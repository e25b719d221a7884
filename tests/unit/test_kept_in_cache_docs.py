"""The findings that leave the HTTP cache in place, as docs/errors.md and docs/reliability.md
list them, are those of ``dealframe.contract.KEPT_IN_CACHE``: a kind added to one and not the
others made the docs say a cache entry goes when it stays (``respelled_field``,
``inverted_rate``, ``rate_mismatch``, ``threshold_mismatch`` and ``suppression_unexplained``
were missing from docs/errors.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dealframe.contract import KEPT_IN_CACHE

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _listed(text: str, start: str, end: str) -> set[str]:
    at = text.index(start)
    span = text[at : text.index(end, at)]
    return set(re.findall(r"`([a-z_]+)`", span))


@pytest.mark.parametrize(
    ("doc", "start", "end"),
    [
        ("errors.md", "That is any finding but", "which describe how a service answers"),
        ("reliability.md", "Findings of how a service answers every time", "leave them"),
    ],
)
def test_the_docs_list_the_kinds_kept_in_cache(doc, start, end):
    listed = _listed((DOCS / doc).read_text(encoding="utf-8"), start, end)
    assert listed == set(KEPT_IN_CACHE), doc
