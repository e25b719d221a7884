"""Participant JSON text read by Arrow's JSON reader: pretty-printed cells and cells longer
than one parse block read like any other."""

from __future__ import annotations

import json
import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from dealframe.errors import ValidationError
from dealframe.frames import objects
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


def _reference(cells: list, fields: tuple[str, ...]) -> tuple[list[int], dict[str, list]]:
    rows = [i for i, c in enumerate(cells) if c for _ in c]
    return rows, {f: [o.get(f) for c in cells if c for o in c] for f in fields}


def test_a_large_chunked_column_is_read_like_json_loads():
    # Over 1 MiB in three chunks: one dictionary for all.
    people = [{"id": f"p{i}", "name": f"Name {i}", "country": None} for i in range(500)]
    cells = [
        None if i % 7 == 0 else [] if i % 5 == 0 else people[i % 500 : i % 500 + 1 + i % 3]
        for i in range(30_000)
    ]
    text = [None if c is None else json.dumps(c, separators=(",", ":")) for c in cells]
    column = pd.concat([pd.Series(text[i::3], dtype="str") for i in range(3)], ignore_index=True)
    ordered = [cells[i::3] for i in range(3)]
    expected_rows, expected = _reference([c for part in ordered for c in part], ("id", "name"))
    rows, values = object_lists(column, ("id", "name", "country"))
    assert column.str.len().sum() > 1 << 20
    assert rows.tolist() == expected_rows
    assert values["id"].to_pylist() == expected["id"]
    assert values["name"].to_pylist() == expected["name"]
    assert values["country"].to_pylist() == [None] * len(rows)
    assert pa.types.is_dictionary(values["id"].type)  # cut, not read cell by cell


@pytest.mark.parametrize(
    "cells, separators",
    [
        ([[{"id": "a", "name": "x},{y"}], [{"id": "b"}]], (",", ":")),  # a cut inside a string
        ([[{"id": "a", "name": "x[{y"}], [{"id": "b"}]], (",", ":")),  # a "[{" inside a string
        ([[{"id": "a\n", "name": 'q"},{"id":"z'}]], (",", ":")),  # escapes around a cut
        ([[{"id": "a"}, {"id": "b"}], []], (", ", ": ")),  # spaced: no "},{" to cut at
    ],
)
def test_cells_the_cut_cannot_read_are_read_whole(cells, separators):
    text = pd.Series([json.dumps(c, separators=separators) for c in cells])
    rows, values = object_lists(text, ("id",))
    expected_rows, expected = _reference(cells, ("id",))
    assert rows.tolist() == expected_rows
    assert values["id"].to_pylist() == expected["id"]
    assert not pa.types.is_dictionary(values["id"].type)  # read cell by cell


def test_objects_are_cut_past_empty_and_null_cells_and_in_a_slice():
    cells = [[{}, {}], None, [], [], [{"id": "a"}], [{"id": "a"}, {"id": "b"}], None, [{}]]
    text = [None if c is None else json.dumps(c, separators=(",", ":")) for c in cells]
    column = pd.Series(text, dtype="str")
    for start in (0, 1, 5):  # a slice: its first cell's text starts inside the column's
        rows, values = object_lists(column[start:], ("id",))
        expected_rows, expected = _reference(cells[start:], ("id",))
        assert rows.tolist() == expected_rows
        assert values["id"].to_pylist() == expected["id"]
        assert pa.types.is_dictionary(values["id"].type)  # cut, not read cell by cell


@pytest.mark.parametrize("space", ["\n", "\r\n", "\r", " "])
def test_raw_whitespace_inside_an_object_is_read(space):
    # A raw line break would make one object two lines for the reader: the cell is read whole.
    text = pd.Series([f'[{{"id":{space}"a"}},{{"id":"b"}}]', f'[{{{space}"id":"a"}}]'])
    rows, values = object_lists(text, ("id",))
    assert rows.tolist() == [0, 0, 1] and values["id"].to_pylist() == ["a", "b", "a"]


def test_a_null_cell_holding_text_is_null():
    data = pa.py_buffer(b'[{"id":"a"}][{"id":"x"}][{"id":"b"}]')
    offsets = pa.py_buffer(np.array([0, 12, 24, 36], np.int64).tobytes())
    valid = pa.py_buffer(bytes([0b101]))
    cells = pa.Array.from_buffers(pa.large_string(), 3, [valid, offsets, data])
    rows, values = object_lists(pd.Series(pd.arrays.ArrowStringArray(cells)), ("id",))
    assert rows.tolist() == [0, 2] and values["id"].to_pylist() == ["a", "b"]


def test_the_error_names_the_row_of_the_column_past_null_cells():
    with pytest.raises(ValidationError, match=r"buyers\[3\]"):
        object_lists(pd.Series([None, "[]", '[{"id": "a"}]', '["x"]']), ("id",), "buyers")


def test_a_null_column_beside_text_read_cell_by_cell():
    # Spaced JSON is read cell by cell; a column of nulls beside it has nothing to read.
    spaced = pd.Series([json.dumps([{"id": "a"}, {"id": "b"}])], dtype="str")
    nulls = pd.Series([None], dtype="str")
    rows, values = object_lists([spaced, nulls], ("id",), ["lead_investors", "investors"])
    assert rows.tolist() == [0, 0] and values["id"].to_pylist() == ["a", "b"]
    rows, values = object_lists([nulls, spaced], ("id",), ["investors", "lead_investors"])
    assert rows.tolist() == [1, 1] and values["id"].to_pylist() == ["a", "b"]


_ATOMS = ["a", "},{", "[{", ",{", "{", "}", "]", "[", ",", '"', "\\", "\n", " ", "é", "{{", "}]"]


def _drawn_object(rng: random.Random) -> dict:
    def text() -> str:
        return "".join(rng.choice(_ATOMS) for _ in range(rng.randint(0, 4)))

    fields = rng.sample(["id", "name", "country", "other"], rng.randint(0, 4))
    nested = [1, [1, {"a": "},{"}], {"b": [{"c": 1}, {"d": "[{"}]}]
    return {f: rng.choice(nested + [text()]) if f == "other" else text() for f in fields}


def test_cells_of_braces_commas_and_brackets_in_strings_read_like_json_loads():
    # Braces, brackets and commas inside strings and nested values: wherever the cut falls,
    # the objects are those json.loads reads (cut, or read whole when a piece is not one).
    rng = random.Random(15)
    for _ in range(400):
        cells = [
            rng.choice([None, [], [_drawn_object(rng) for _ in range(rng.randint(1, 4))]])
            for _ in range(rng.randint(1, 6))
        ]
        separators = rng.choice([(",", ":"), (",", ":"), (", ", ": ")])
        text = [
            None if c is None else json.dumps(c, separators=separators, ensure_ascii=False)
            for c in cells
        ]
        rows, values = object_lists(pd.Series(text, dtype="str"), ("id", "name", "country"))
        expected_rows, expected = _reference(cells, ("id", "name", "country"))
        assert rows.tolist() == expected_rows, text
        for f, listed in expected.items():
            assert values[f].to_pylist() == listed, text


@pytest.mark.parametrize("block", [8, 24, 1 << 20])
def test_braces_are_found_eight_tests_at_a_time_whatever_their_neighbours(monkeypatch, block):
    # Words of two braces or more, a last block shorter than eight bytes, a slice's bounds.
    monkeypatch.setattr(objects, "_BLOCK", block)
    rng = np.random.default_rng(7)
    for n in range(0, 200, 13):
        text = rng.choice(np.frombuffer(b"{{a,}[", np.uint8), size=n)
        for lo in range(0, n + 1, 9):
            expected = np.flatnonzero(text[lo:n] == ord("{")) + lo
            assert objects._braces(text, lo, n).tolist() == expected.tolist()


@pytest.mark.parametrize(
    "cells",
    [
        ['[{"x":,{"id":"z"}}]', '[{"id":"a"}{"id":"b"}]'],
        ['[{"id":"a","x":[1,,{"id":"z"}]}]', '[{"id":"b"} {"id":"c"}]'],
        ['[{"id":"a"},{"id":"b"}\n{"id":"c"},{"x":,{"id":"d"}}]'],
    ],
    ids=["two-cells", "nested-and-spaced", "one-cell"],
)
def test_malformed_cells_are_refused_not_read_as_other_participants(cells):
    """A piece the cut leaves unfinished (after ``:``, ``[`` or ``,``) must not swallow the
    next piece while a missing comma makes a row too many: json.loads refuses these cells,
    and so does the read, naming the column."""
    for cell in cells:
        if cell.count("{") > 1:
            with pytest.raises(json.JSONDecodeError):
                json.loads(cell)
    with pytest.raises(ValidationError, match="lead_investors"):
        object_lists(pd.Series(cells, dtype="str"), ("id",), "lead_investors")


def test_a_comma_and_brace_inside_a_name_keeps_the_cut(monkeypatch):
    """``,{`` inside a string is no place to cut: the column is still cut at ``},{`` (not
    read whole) and gives json.loads' participants."""
    cells = [
        json.dumps([{"id": "a", "name": "x,{y"}, {"id": "b", "name": "z"}], separators=(",", ":")),
        json.dumps([{"id": "b", "name": "z"}], separators=(",", ":")),
    ]
    whole: list[int] = []
    read_cells = objects._read_cells
    monkeypatch.setattr(
        objects, "_read_cells", lambda *a, **k: whole.append(1) or read_cells(*a, **k)
    )
    rows, values = object_lists(pd.Series(cells, dtype="str"), ("id", "name"))
    assert whole == []
    assert rows.tolist() == [0, 0, 1]
    assert values["name"].to_pylist() == ["x,{y", "z", "z"]
