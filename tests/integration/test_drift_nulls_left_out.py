"""A service that leaves null members out of its items gives sub-collection pages without a
field wherever none of their items has a value: nothing was lost, and nothing is said, over
real HTTP through the drift proxy. The check of fields absent from some pages only (a rename on
one page) warned on about a quarter of the pages of ``fundings`` of many companies, and
``strict=True`` raised; a renamed field is still said."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import Proxy, items_edit

import dealframe
from dealframe.sandbox import run

SUB = r"^/api/private/v1/companies/[^/]+/fundings$"


def _without_nulls(item: dict[str, Any]) -> None:
    for name in [k for k, v in item.items() if v is None]:
        del item[name]


@pytest.fixture(scope="module")
def served() -> Iterator[Any]:
    with run(scale=0.1, seed=4) as sb:
        yield sb


def _fundings(sb: Any, edit: Any, strict: bool = False) -> tuple[Any, list[str]]:
    with (
        Proxy(sb.url) as proxy,
        dealframe.Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False) as c,
    ):
        ids = c.private.companies(limit=120)["id"]
        proxy.add(SUB, items_edit(edit), method="GET")
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            frame = c.private.fundings(ids, strict=strict)
    return frame, [str(w.message) for w in seen if "absent from every item" in str(w.message)]


def test_nulls_left_out_say_nothing(served):
    frame, said = _fundings(served, _without_nulls, strict=True)  # strict: no error either
    assert said == []
    assert len(frame) > 50 and frame["deal_ebitda"].isna().any()  # the nulls are there


def test_a_renamed_field_is_still_said(served):
    def renamed(item: dict[str, Any]) -> None:  # every page of a quarter of the companies
        _without_nulls(item)
        if str((item.get("target") or {}).get("id", ""))[:1] in "0123":
            item["dealDate"] = item.pop("deal_date")

    _, said = _fundings(served, renamed)
    assert said and "there as dealDate" in said[0], said
