"""Nested or two-dimensional input to the column helpers and the SKU link is a
ValidationError naming the argument (it was a TypeError, ArrowInvalid or pandas ValueError)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe.errors import ValidationError


@pytest.fixture
def offline():
    """A client whose every request would fail: the checks must come first."""
    client = dealframe.Client("http://127.0.0.1:9", "tok-public-x", "tok-private-x", retries=0)
    yield client
    client.close()


@pytest.mark.parametrize(
    "column",
    [np.array([["[]", "[]"]]), np.array([["[]", "[]"]], dtype=object)],
    ids=["text", "object"],
)
def test_to_lists_refuses_a_two_dimensional_array(column):
    with pytest.raises(ValidationError) as info:
        dealframe.to_lists(column)
    assert info.value.argument == "column"
    assert "(1, 2)" in str(info.value)


def test_to_lists_still_reads_a_column_of_lists():
    got = dealframe.to_lists(pd.Series([["a"], None, '["b"]']))
    assert got.tolist() == [["a"], None, ["b"]]


@pytest.mark.parametrize(
    ("skus", "where"),
    [
        ([["AB-USA"]], "skus[0]"),
        (["AB-USA", ["AB-USA"]], "skus[1]"),
        ([{}], "skus[0]"),
        (np.array([["AB-USA", "AB-USA"]]), "skus[0]"),
    ],
    ids=["nested", "second-nested", "dict", "2d-array"],
)
def test_companies_for_skus_refuses_unhashable_items_by_position(offline, skus, where):
    with pytest.raises(ValidationError) as info:
        dealframe.companies_for_skus(offline, skus)
    assert info.value.argument == where


@pytest.mark.parametrize("skus", [b"AAPL-USA", bytearray(b"AAPL-USA"), memoryview(b"AAPL-USA")])
def test_companies_for_skus_refuses_bytes_whole(offline, skus):
    with pytest.raises(ValidationError) as info:
        dealframe.companies_for_skus(offline, skus)
    assert info.value.argument == "skus"
    assert "decode" in str(info.value)
