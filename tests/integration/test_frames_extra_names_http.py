"""Extra columns over HTTP: a field the document does not name, asking for the name of another
column (a top-level ``target_7`` beside ``target: {"7": ...}``, a top-level ``stats_x`` beside
``stats: {"x": ...}``, a top-level ``stats_total_deals`` beside the documented one), keeps its
value under a free name, whatever page it came in (review of the frames merges, item 1).

The nested value used to overwrite the top-level one on the page that held both (and the
top-level field named as a schema column was dropped), while over two pages the two were
joined into one column: one page and two pages gave different frames.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import fresh, fresh_rules, items_edit, proxy  # noqa: F401 - fixtures are used by name

from dealframe import ServiceContractWarning
from dealframe.frames import deals_frame
from dealframe.sandbox import run

P = "/api/private/v1"
ROWS = 100  # rows a page (the sandbox's limit-100 profile)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """The limit-100 profile: a page is 100 rows."""
    with run(scale=0.03, seed=5, profile="limit-100") as sandbox:
        yield sandbox


def _nested(head: str, key: str, tag: str) -> Any:
    def change(item: dict[str, Any]) -> None:
        item[head] = {**(item.get(head) or {}), key: f"{tag}:{item['id']}"}

    return change


def _top(name: str, tag: str) -> Any:
    return lambda item: item.update({name: f"{tag}:{item['id']}"})


def test_a_list_pull_keeps_both_fields_whatever_page_they_came_in(proxy, fresh):
    """Page 1: both ``target_7`` and ``target.7``; page 2: ``target.7`` alone."""
    client = fresh
    proxy.add(f"{P}/transactions$", items_edit(_top("target_7", "top")), method="POST", page=1)
    for page in (1, 2):
        proxy.add(
            f"{P}/transactions$",
            items_edit(_nested("target", "7", "nested")),
            method="POST",
            page=page,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = client.private.deals(limit=3 * ROWS)
    assert len(got) == 3 * ROWS and got.attrs["requests"] == 3
    ids = got["id"].astype(object)
    top = pd.Series([f"top:{i}" for i in ids[:ROWS]] + [None] * 2 * ROWS, dtype=object)
    nested = pd.Series([f"nested:{i}" for i in ids[: 2 * ROWS]] + [None] * ROWS, dtype=object)
    assert got["target_7"].astype(object).where(got["target_7"].notna(), None).tolist() == (
        top.tolist()
    )
    assert got["target_7_2"].astype(object).where(got["target_7_2"].notna(), None).tolist() == (
        nested.tolist()
    )
    assert list(got.columns[-2:]) == ["target_7", "target_7_2"]


def test_the_same_rows_in_one_page_give_the_same_columns(proxy, fresh):
    """The rows of a pull over three pages, built again as one page: the same extra columns
    hold the same values (the nested field was joined with the top-level one over pages)."""
    client = fresh
    proxy.add(f"{P}/transactions$", items_edit(_top("target_7", "top")), method="POST", page=1)
    proxy.add(
        f"{P}/transactions$", items_edit(_nested("target", "7", "nested")), method="POST", page=2
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = client.private.deals(limit=3 * ROWS)
        items = [
            {"id": i, **({"target_7": f"top:{i}"} if k < ROWS else {})}
            | ({"target": {"id": "t", "7": f"nested:{i}"}} if ROWS <= k < 2 * ROWS else {})
            for k, i in enumerate(got["id"].astype(object))
        ]
        one = deals_frame(items)
    for name in ("target_7", "target_7_2"):
        pd.testing.assert_series_equal(got[name], one[name])
    assert got["target_7"].notna().sum() == ROWS and got["target_7_2"].notna().sum() == ROWS


def test_a_profile_keeps_a_top_level_field_beside_a_nested_one_and_a_schema_column(proxy, fresh):
    """Investor profiles with ``stats_x`` and ``stats.x``, and a top-level
    ``stats_total_deals`` beside the documented ``stats.total_deals``."""
    client = fresh
    ids = client.private.investors(limit=3)["id"].tolist()
    proxy.add(
        f"{P}/investors/[^/]+$",
        items_edit(_top("stats_x", "top")),
        items_edit(_nested("stats", "x", "nested")),
        items_edit(_top("stats_total_deals", "top")),
        method="GET",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = client.private.investor(ids)
    assert got["id"].tolist() == ids
    assert got["stats_x"].tolist() == [f"top:{i}" for i in ids]
    assert got["stats_x_2"].tolist() == [f"nested:{i}" for i in ids]
    assert got["stats_total_deals_2"].tolist() == [f"top:{i}" for i in ids]
    assert str(got["stats_total_deals"].dtype) == "Int64" and got["stats_total_deals"].notna().all()


def test_a_name_given_within_one_call_is_said_in_attrs_and_warned_of_when_moved(proxy, fresh):
    """Page 1 rows carry ``target: {"7": ...}``, page 2 rows a top-level ``target_7``: a pull
    of one page names the nested field ``target_7``, a pull of two ``target_7_2``, and
    ``page()`` of each gives one ``target_7`` of another source (review of the frames merges,
    item 1). ``attrs["extra_names"]`` tells them apart, and the pull that had to move a name
    warns once."""
    client = fresh
    proxy.add(
        f"{P}/transactions$", items_edit(_nested("target", "7", "nested")), method="POST", page=1
    )
    proxy.add(f"{P}/transactions$", items_edit(_top("target_7", "top")), method="POST", page=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServiceContractWarning)  # no name moved: no warning
        one = client.private.deals(limit=ROWS)
    assert one["target_7"].astype(object).iloc[0] == f"nested:{one['id'].iloc[0]}"
    assert one.attrs["extra_names"] == {"target_7": ["target", "7"]}
    with pytest.warns(ServiceContractWarning, match=r"target_7_2 \(target\.7\)") as said:
        two = client.private.deals(limit=2 * ROWS)
    assert len([w for w in said if "free names" in str(w.message)]) == 1
    assert two.attrs["extra_names"] == {"target_7_2": ["target", "7"]}
    assert two["target_7_2"].astype(object).iloc[0] == f"nested:{two['id'].iloc[0]}"
    assert two["target_7"].astype(object).iloc[ROWS] == f"top:{two['id'].iloc[ROWS]}"
    pages = [client.private.page("transactions", page=n, limit=ROWS) for n in (1, 2)]
    assert [list(p.columns[-1:]) for p in pages] == [["target_7"], ["target_7"]]
    assert pages[0].attrs["extra_names"] == {"target_7": ["target", "7"]}
    assert "extra_names" not in pages[1].attrs  # a top-level field under its own name
    assert pd.concat(pages).attrs.get("extra_names") is None  # unequal attrs: none kept
