"""The lone-surrogate check of text arguments (arguments.py, ``unencodable``): the text it
refuses is named by its place, whether a list of texts is read in one join or item by item
(its cost is measured outside the tests: no test times anything)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from dealframe.arguments import unencodable

IDS = [str(uuid.uuid4()) for _ in range(50_000)]


@pytest.mark.parametrize(
    "value,found",
    [
        (IDS, None),
        (tuple(IDS), None),
        (set(IDS[:10]), None),
        (["Zürich", "Genève"], None),
        (["Zürich", "Gen\udcffève"], ("names[1]", "Gen\udcffève")),
        ([*IDS[:3], "x\udcff"], ("names[3]", "x\udcff")),
        (["a", 1, "b\udcff"], ("names[2]", "b\udcff")),
        (["a", Path("b\udcff")], ("names[1]", "b\udcff")),
        ([["a"], ["b\udcff"]], ("names[1][0]", "b\udcff")),
    ],
)
def test_a_refused_text_is_named_by_its_place(value: object, found: object) -> None:
    assert unencodable(value, "names") == found
