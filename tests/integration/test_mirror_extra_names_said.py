"""The change feed's extra fields that had to be given free names, said once per feed.

Every feed page is typed on its own, so a page whose rows hold both a nested ``target.7`` and
a top-level ``target_7`` gives the nested one a free name on each page. ``mirror.sync`` says
that once for the feed (a :class:`ServiceContractWarning` naming it), not once per page.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    fresh_rules,
    items_edit,
    proxy,
    via,
)

from dealframe import ServiceContractWarning, mirror

DEALS = r"^/api/private/v1/transactions$"


def _both(item: dict[str, Any]) -> None:
    """``target.7`` and a top-level ``target_7``: the nested one needs another name."""
    item["target"] = {**(item.get("target") or {}), "7": f"nested:{item['id']}"}
    item["target_7"] = f"top:{item['id']}"


def test_free_names_in_the_feed_are_said_once_per_feed(via, proxy, tmp_path):
    proxy.add(DEALS, items_edit(_both), method="POST")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = mirror.sync(
            via, tmp_path / "m", entities=("deals",), page_size=500, progress=False
        )["deals"]
    assert report.requests > 2, "the test needs several pages"
    said = [w for w in caught if "free names" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in said]
    assert said[0].category is ServiceContractWarning
    assert str(said[0].message).startswith("the change feed of deals: extra fields"), str(
        said[0].message
    )
    assert "target_7_2 (target.7)" in str(said[0].message)
