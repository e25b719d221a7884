"""The mirror writes a categorical column's values as text, whatever its categories hold:
the values each row shows (nulls as nulls), never the codes, never the unused categories."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from dealframe.mirror.schema import arrow_schema, to_arrow

CASES = {
    "nulls and unused categories": pd.Categorical(
        ["equity", None, "m_and_a", "equity"], categories=["debt", "equity", "m_and_a"]
    ),
    "ordered": pd.Categorical(["b", "a", None, "b"], categories=["b", "a"], ordered=True),
    "non-ASCII and empty text": pd.Categorical(["Zürich", "", "北京", None]),
    "Arrow text categories": pd.Categorical(
        ["x", None, "y", "x"], categories=pd.Index(["y", "x", "z"], dtype="string[pyarrow]")
    ),
    "no categories, all null": pd.Categorical([None, None], categories=pd.Index([], dtype=object)),
    "values outside the vocabulary": pd.Categorical(["not_a_deal_type", "equity"]),
}


@pytest.mark.parametrize("values", CASES.values(), ids=CASES.keys())
def test_categorical_column_is_written_as_its_values(values: pd.Categorical) -> None:
    frame = pd.DataFrame({"id": [f"d{i}" for i in range(len(values))], "deal_type": values})
    table = to_arrow(frame, "deals")
    expected = pa.array(
        [None if pd.isna(v) else str(v) for v in values],
        type=arrow_schema("deals").field("deal_type").type,
    )
    got = table.column("deal_type").combine_chunks()
    assert got.type == expected.type
    assert got.to_pylist() == expected.to_pylist()
