"""The group rollups say what they cannot take or leave out (issue 5's audit).

- ``group_time_series`` refused a wide frame holding text with ``invalid wide: ... got
  'non-numeric columns'``, naming neither field, SKU nor value, where ``group_current`` names
  the field and a value; and it read numbers written as text (``"1"``) where
  ``group_current`` refuses them.
- Both rollups dropped infinite values without a word (a ``marketCap`` of ``[inf, 1, 2]``
  summed to 3.0): they are still left out, as nulls (the service holds no infinite value),
  but a ``DealframeWarning`` names each field and how many.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dealframe import DealframeWarning
from dealframe.analytics import group_current, group_time_series
from dealframe.errors import ValidationError


def wide_frame(values: list[list[object]], fields: tuple[str, ...] = ("evRevenueLtm",)):
    """A wide time-series frame: three months, ``(field, sku)`` columns, SKUs A, B, C."""
    months = pd.period_range("2024-01", periods=len(values), freq="M", name="month")
    columns = pd.MultiIndex.from_product([list(fields), ["A", "B", "C"]], names=["field", "sku"])
    return pd.DataFrame(values, index=months, columns=columns)


def test_time_series_text_names_the_field_the_sku_and_the_value():
    wide = wide_frame([[1, 2, 3], [np.nan, 5, 6], [np.nan] * 3])
    text = wide.astype(object).where(wide.notna(), "NM")
    with pytest.raises(ValidationError) as caught:
        group_time_series(text)
    said = str(caught.value)
    assert "evRevenueLtm" in said and "'A'" in said and "'NM'" in said, said
    assert "pd.to_numeric(column, errors='coerce')" in said  # the same advice as group_current


def test_time_series_names_the_column_holding_text_not_the_first():
    wide = wide_frame([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]], fields=("marketCap", "revenueLtm"))
    wide = wide.astype(object)
    wide[("revenueLtm", "B")] = ["n/a"]
    with pytest.raises(ValidationError) as caught:
        group_time_series(wide)
    said = str(caught.value)
    assert "revenueLtm" in said and "'B'" in said and "'n/a'" in said, said
    assert "marketCap" not in said


def test_time_series_and_current_refuse_numbers_written_as_text_alike():
    wide = wide_frame([["1", "2", "3"]])
    with pytest.raises(ValidationError, match=r"evRevenueLtm.*such as '1'"):
        group_time_series(wide)
    with pytest.raises(ValidationError, match=r"evRevenueLtm.*such as '1'"):
        group_current(pd.DataFrame({"evRevenueLtm": ["1", "2", "3"]}))


def test_time_series_flags_are_no_numbers():
    wide = wide_frame([[True, False, True]])
    with pytest.raises(ValidationError, match=r"evRevenueLtm.*flags are no numbers"):
        group_time_series(wide)


def test_time_series_of_nullable_and_integer_columns_still_reads():
    wide = wide_frame([[1, 2, 3], [4, 5, 6]]).astype("Int64")
    wide.iloc[1, 0] = pd.NA
    out = group_time_series(wide)
    assert out["evRevenueLtm"].tolist() == [2.0, 5.5]


def test_current_says_infinite_values_left_out():
    current = pd.DataFrame(
        {"marketCap": [np.inf, 1.0, 2.0], "revenueLtm": [-np.inf, np.inf, 4.0]},
        index=pd.Index(["A", "B", "C"], name="sku"),
    )
    with pytest.warns(DealframeWarning) as said:
        out = group_current(current)
    texts = [str(w.message) for w in said if issubclass(w.category, DealframeWarning)]
    assert len(texts) == 1, texts
    assert "marketCap (1)" in texts[0] and "revenueLtm (2)" in texts[0], texts[0]
    assert out.loc["marketCap", "sum"] == 3.0  # left out, as nulls
    assert out.loc["revenueLtm", "median"] == 4.0


def test_time_series_says_infinite_values_left_out():
    wide = wide_frame([[np.inf, 2.0, 3.0], [1.0, -np.inf, np.inf]])
    with pytest.warns(DealframeWarning, match=r"evRevenueLtm \(3\)"):
        out = group_time_series(wide, counts=True)
    assert out["evRevenueLtm"].tolist() == [2.5, 1.0]
    assert out["n_evRevenueLtm"].tolist() == [2, 1]


def test_no_warning_without_infinite_values():
    wide = wide_frame([[1.0, 2.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        group_time_series(wide)
        group_current(pd.DataFrame({"marketCap": [1.0, np.nan]}))
