"""Participant JSON text read by Arrow's JSON reader: pretty-printed cells and cells longer
than one parse block read like any other."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dealframe.errors import ValidationError
from dealframe.frames.objects import object_lists


def test_pretty_printed_cells_read_like_compact_ones():
    cells = [[{"id": "a", "name": "line\nbreak"}], None, [], [{"id": "b"}, {"id": "c"}]]
    compact = pd.Series([None if c is None else json.dumps(c) for c in cells])
    pretty = pd.Series([None if c is None else json.dumps(c, indent=2) for c in cells])
    rows_c, values_c = object_lists(compact, ("id", "name"))
    rows_p, values_p = object_lists(pretty, ("id", "name"))
    assert rows_p.tolist() == rows_c.tolist() == [0, 3, 3]
    assert values_p["name"].to_pylist() == ["line\nbreak", None, None]
    assert values_p["id"].to_pylist() == values_c["id"].to_pylist() == ["a", "b", "c"]


def test_a_cell_longer_than_a_parse_block_is_read_whole():
    many = [{"id": str(i), "name": "n" * 20} for i in range(60_000)]  # about 2.5 MB of text
    rows, values = object_lists(pd.Series([json.dumps(many), '[{"id": "z"}]']), ("id",))
    assert len(rows) == 60_001 and rows[-1] == 1
    assert values["id"].to_pylist()[-2:] == ["59999", "z"]


def test_a_cell_that_is_not_a_list_of_objects_is_named():
    with pytest.raises(ValidationError, match=r"buyers\[1\]"):
        object_lists(pd.Series(['[{"id": "a"}]', '{"id": "b"}']), ("id",), "buyers")
