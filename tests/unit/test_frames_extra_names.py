"""Names of extra columns (review of the frames merges, items 1 and 4): two fields asking for
one name both keep their values, under names that do not depend on how the rows fell into
pages, in an order that does not depend on the run."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

import dealframe
from dealframe.frames import (
    company_profiles_frame,
    deals_frame,
    list_frame,
    list_page_columns,
)


def _quiet(build: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build()


def _values(frame: pd.DataFrame, *names: Any) -> dict[Any, list[Any]]:
    """The values of ``names``, missing ones None."""
    return {n: [None if pd.isna(v) else v for v in frame[n].tolist()] for n in names}


def _pages(entity: str, *pages: list[dict[str, Any]]) -> pd.DataFrame:
    return _quiet(lambda: list_frame(entity, [list_page_columns(entity, p) for p in pages]))


def test_a_nested_key_and_its_text_both_keep_their_values():
    """``{7: ..., "7": ...}`` in a target: ``target_7`` held one of them (``["int"]``)."""
    frame = _quiet(lambda: deals_frame([{"id": "d1", "target": {"id": "t", 7: "i", "7": "s"}}]))
    assert _values(frame, "target_7", "target_7_2") == {"target_7": ["s"], "target_7_2": ["i"]}


@pytest.mark.parametrize(
    "items",
    [
        # a nested key and its text, in two records
        [
            {"id": "d1", "target": {"id": "t", 7: "i"}},
            {"id": "d2", "target": {"id": "t", "7": "s"}},
        ],
        # a top-level field and the nested field asking for its name (string keys)
        [{"id": "d1", "target_7": "top"}, {"id": "d2", "target": {"id": "t", "7": "nested"}}],
    ],
    ids=["int and str keys", "top-level and nested"],
)
def test_one_page_and_two_pages_give_the_same_frame(items):
    """One page lost the first record's value (``[nan, "nested"]``, ``["int", nan]``); two pages
    joined both fields into one column (``["top", "nested"]``)."""
    one = _quiet(lambda: deals_frame(items))
    two = _pages("transactions", items[:1], items[1:])
    one_page = _pages("transactions", items)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, one_page)
    assert one.iloc[:, -2:].notna().sum().tolist() == [1, 1]  # both values, one a column


def test_a_profile_keeps_both_statistics():
    frame = _quiet(lambda: company_profiles_frame([{"id": "a", "stats": {6: 1, "6": 2}}]))
    assert _values(frame, "stats_6", "stats_6_2") == {"stats_6": [2.0], "stats_6_2": [1.0]}


def test_a_top_level_field_is_not_overwritten_by_a_nested_one_of_its_fallback_name():
    """``deal_multiples`` keys have no prefix: ``7`` asks for ``"7"``, then for
    ``deal_multiples_7``, the name of a top-level field (its 3.0 was lost)."""
    item = {"id": "d1", "deal_multiples": {7: 1.0, "7": 2.0}, "deal_multiples_7": 3.0}
    frame = _quiet(lambda: deals_frame([item]))
    assert _values(frame, "7", "deal_multiples_7", "deal_multiples_7_2") == {
        "7": [2.0],
        "deal_multiples_7": [3.0],
        "deal_multiples_7_2": [1.0],
    }


def test_a_field_named_as_a_schema_column_is_kept_under_a_free_name():
    """A top-level ``target_name`` beside ``target.name`` was dropped; ``deal_multiples.role``
    was dropped with ``role`` (``with_role=False``)."""
    item = {"id": "d1", "target": {"id": "t", "name": "N"}, "target_name": "top"}
    frame = _quiet(lambda: deals_frame([item]))
    assert _values(frame, "target_name", "target_name_2") == {
        "target_name": ["N"],
        "target_name_2": ["top"],
    }
    roled = _quiet(lambda: deals_frame([{"id": "d1", "deal_multiples": {"role": 5}}]))
    assert "role" not in roled and roled["deal_multiples_role"].tolist() == [5.0]


def test_names_already_free_are_kept():
    item = {"id": "d1", "target": {"id": "t", "x": "tx"}, "deal_multiples": {"y": 1.0}, "z": 2}
    frame = _quiet(lambda: deals_frame([item]))
    assert list(frame.columns[-3:]) == ["target_x", "y", "z"]


_ORDER = """
import warnings; warnings.simplefilter("ignore")
import dealframe.frames as F
a = F.deals_frame([{"id": "d1", 2024: 1.5, "2024": "s"}])
p = F.list_page_columns("investors", [{"id": "a", 5: "x", "5": "y"}])
b = F.list_frame("investors", [p])
print([repr(c) for f in (a, b) for c in f.columns[-2:]])
"""


def test_the_order_of_a_key_and_its_text_is_the_same_on_every_run():
    """Sorted by text alone, ``5`` and ``"5"`` came in the order of a set (``PYTHONHASHSEED``)."""
    src = os.path.dirname(os.path.dirname(dealframe.__file__))
    orders = set()
    for seed in range(4):
        env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": src}
        run = subprocess.run(
            [sys.executable, "-c", _ORDER], env=env, capture_output=True, text=True, check=True
        )
        orders.add(run.stdout.strip())
    assert orders == {"""['2024', "'2024'", '5', "'5'"]"""}
    frame = _pages("investors", [{"id": "a", 5: "x", "5": "y"}])
    assert list(frame.columns[-2:]) == [5, "5"] and frame[5].dtype == frame["5"].dtype
