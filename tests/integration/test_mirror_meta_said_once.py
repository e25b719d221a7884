"""Pagination ``meta`` the change feed's pages contradict, said once per entity per sync.

The mirror reads the feed page by page (``private.page``), each page a call of its own: a
``meta`` without ``total`` and ``has_more`` was warned once per page read (14 warnings for a
small sync), a ``meta.limit`` below the rows of its page once per page too, and a
``meta.page`` other than the page asked once per page read (``asked for page 1, meta.page
says 7``, beside the grouped one) and, grouped, once per page number asked (its words name
the page asked): twice once a walk read a page 2. Each is now one
:class:`ServiceContractWarning` per entity, of its endpoint.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh_rules,
    meta_delete,
    meta_set,
    proxy,
    via,
)

from dealframe import ServiceContractWarning, mirror

LISTS = r"^/api/private/v1/(companies|investors|transactions)$"
ENTITIES = ("companies", "investors", "deals")


def _sync(client: Any, path: Path) -> tuple[Any, list[str]]:
    """A sync of the three lists in pages of 200, and its ServiceContractWarning messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reports = mirror.sync(client, path, entities=ENTITIES, page_size=200, progress=False)
    said = [str(w.message) for w in caught if issubclass(w.category, ServiceContractWarning)]
    return reports, said


def _once_each(said: list[str], words: str) -> list[str]:
    """The messages holding ``words``, asserted one per entity."""
    found = [m for m in said if words in m]
    for entity in ENTITIES:
        assert len([m for m in found if f"the change feed of {entity}:" in m]) == 1, found
    assert len(found) == len(ENTITIES), found
    return found


def test_meta_without_total_and_has_more_is_said_once_per_entity(via, proxy, tmp_path):
    proxy.add(LISTS, meta_delete("total", "has_more"), method="POST")
    reports, said = _sync(via, tmp_path / "m")
    assert sum(r.requests for r in reports.entities.values()) > 6, "the test needs pages"
    for message in _once_each(said, "meta says neither total nor has_more"):
        assert " page " not in message.split(": meta says")[0], message


def test_meta_limit_below_the_rows_is_said_once_per_entity(via, proxy, tmp_path):
    proxy.add(LISTS, meta_set(limit=10), method="POST")
    _, said = _sync(via, tmp_path / "m")
    _once_each(said, "meta.limit 10 is below the rows a page holds")


def test_meta_page_other_than_the_page_asked_is_said_once_per_entity(via, proxy, tmp_path):
    proxy.add(LISTS, meta_set(page=7), method="POST")
    _, said = _sync(via, tmp_path / "m")
    _once_each(said, "meta.page is not the page asked (page=1 asked, meta.page 7)")


def _one_stamp(doc: Any) -> Any:
    """Every item of a page stamped as its first: a whole page on one timestamp (a tie),
    which the walk reads on with page 2 of that timestamp."""
    items = doc.get("data") if isinstance(doc, dict) else None
    if isinstance(items, list) and items:
        for item in items:
            item["updated_at"] = items[0]["updated_at"]
    return doc


def test_meta_page_said_once_per_entity_whatever_the_page_asked(via, proxy, tmp_path):
    """A walk reaching page 2 (a tie): one warning of companies, not one per page number
    asked nor one per page read."""
    proxy.add(
        r"^/api/private/v1/companies$",
        edit(_one_stamp, "one stamp"),
        method="POST",
        times=1,
        when=lambda ex: isinstance(ex.body, dict) and ex.body.get("limit", 0) > 1,
    )
    proxy.add(r"^/api/private/v1/companies$", meta_set(page=7), method="POST")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mirror.sync(via, tmp_path / "m", entities=("companies",), page_size=100, progress=False)
    said = [str(w.message) for w in caught if issubclass(w.category, ServiceContractWarning)]
    assert 2 in proxy.sent("/companies"), "the test needs a page 2"
    paged = [m for m in said if "meta.page" in m]
    assert len(paged) == 1, paged
    assert "the change feed of companies:" in paged[0], paged
