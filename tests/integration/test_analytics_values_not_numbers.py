"""A documented numeric field that holds something else is said, and a categorical of numbers
is read by its values, in the rollups and the bucket medians alike (issue 5: non-numeric
metric values get a typed error naming the problem).

``current_fields`` / ``group_current`` used to leave a documented field out of the rollup,
silently, when it held text (``"NM"`` in a column read back from a CSV) or was a pandas
categorical; ``bucket_medians`` refused a pandas categorical of floats while it read the same
values as an Arrow dictionary (docs/frames.md: a dictionary column is decoded).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

import dealframe
from dealframe.analytics import bucket_medians, current_fields, group_current
from dealframe.errors import ValidationError

FIELD = "evRevenueLtm"


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[dealframe.Client]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def current(client: dealframe.Client) -> pd.DataFrame:
    frame = client.public.current(client.public.search(regions=["Western Europe"]).index)
    assert frame[FIELD].notna().sum() > 5
    return frame


def _categorical(series: pd.Series) -> pd.Series:
    return series.astype("category")


def _dictionary(series: pd.Series) -> pd.Series:
    encoded = pa.array(series.to_numpy(), from_pandas=True).dictionary_encode()
    return pd.Series(pd.arrays.ArrowExtensionArray(encoded), index=series.index)


def test_a_field_read_back_from_csv_with_nm_text_is_named(current):
    written = current.assign(**{FIELD: current[FIELD].astype(object)})
    written.iloc[0, written.columns.get_loc(FIELD)] = "NM"  # as a spreadsheet writes it
    read = pd.read_csv(io.StringIO(written.to_csv()), index_col=0)
    assert not pd.api.types.is_numeric_dtype(read[FIELD])  # text (str or object)
    for call in (current_fields, group_current):
        with pytest.raises(ValidationError) as caught:
            call(read)
        assert caught.value.argument == FIELD
        assert "'NM'" in str(caught.value)
    # read as the error says, the field is rolled up again
    fixed = read.assign(**{FIELD: pd.to_numeric(read[FIELD], errors="coerce")})
    assert FIELD in group_current(fixed).index


@pytest.mark.parametrize("encode", [_categorical, _dictionary], ids=["categorical", "dictionary"])
def test_a_categorical_field_is_rolled_up_by_its_values(current, encode):
    expected = group_current(current)
    got = group_current(current.assign(**{FIELD: encode(current[FIELD])}))
    assert got.index.tolist() == expected.index.tolist()
    pd.testing.assert_frame_equal(got, expected)


@pytest.fixture(scope="module")
def deals(client: dealframe.Client) -> pd.DataFrame:
    return client.private.deals(target_region=["Western Europe"])


@pytest.mark.parametrize("encode", [_categorical, _dictionary], ids=["categorical", "dictionary"])
def test_bucket_medians_reads_a_categorical_metric_by_its_values(client, deals, encode):
    expected = bucket_medians(deals, "ev_revenue", "year", client=client)
    got = bucket_medians(
        deals.assign(ev_revenue=encode(deals["ev_revenue"])), "ev_revenue", "year", client=client
    )
    pd.testing.assert_frame_equal(got, expected)
    assert got.attrs["outliers_trimmed"] == expected.attrs["outliers_trimmed"] > 0


def test_bucket_medians_names_a_metric_holding_text(client, deals):
    text = deals["ev_revenue"].astype(object)
    text.iloc[0] = "NM"
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError) as caught:
        bucket_medians(deals.assign(ev_revenue=text), "ev_revenue", "year", client=client)
    assert caught.value.argument == "ev_revenue" and "'NM'" in str(caught.value)
    assert client.stats.snapshot()["calls"] == before


@pytest.mark.parametrize("dtype", ["bool", "boolean", object], ids=["bool", "boolean", "object"])
def test_a_field_of_flags_is_named_without_the_advice_for_text(current, dtype):
    """Booleans are said as plain values (``True``, not ``np.True_``), with advice that helps
    (``pd.to_numeric`` keeps flags flags: it used to be advised for them), and a current-data
    field is said to need numeric values, not "metric" values."""
    flags = current[FIELD].fillna(0).gt(5).to_numpy()
    column = pd.Series(flags, index=current.index, dtype=dtype)
    with pytest.raises(ValidationError) as caught:
        group_current(current.assign(**{FIELD: column}))
    said = str(caught.value)
    assert caught.value.argument == FIELD
    assert "expected numeric values (" in said and "metric" not in said
    assert "errors='coerce'" not in said and "astype(float)" in said
    assert "np." not in said and ("such as True" in said or "such as False" in said)
