"""``toml_words`` says a TOML value as a file writes it, and a value that is no TOML value
(``parse_config`` is public: a document built in Python) as what it is, not as a TOML table.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from dealframe.errors import ValidationError
from dealframe.report.config import parse_config, toml_words


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (True, "a TOML boolean true"),
        ("x", 'a TOML string "x"'),
        (
            [dt.date(2024, 1, 5), "a", 1, 1.5, False],
            'a TOML array [2024-01-05, "a", 1, 1.5, false]',
        ),
        ([[1], {"a": 1}], "a TOML array [[1], {...}]"),
        ([], "a TOML array []"),
        ({"a": dt.date(2024, 1, 5)}, "a TOML table"),
        (np.datetime64("2024-01-05"), "a numpy.datetime64 (not a TOML value)"),
        (pd.Timestamp("2024-01-05"), "a pandas.Timestamp (not a TOML value)"),
        (np.int64(5), "a numpy.int64 (not a TOML value)"),
        (None, "None (not a TOML value)"),
        ((1, 2), "a tuple (not a TOML value)"),
        ([np.datetime64("2024-01-05")], "a TOML array [<numpy.datetime64>]"),
    ],
)
def test_toml_words(value, words):
    assert toml_words(value) == words


def test_a_since_that_is_no_toml_value_is_said_as_what_it_is():
    document = {"out": "r", "cohort": [{"region": "Oceania", "since": np.datetime64("2024-01-05")}]}
    with pytest.raises(ValidationError) as raised:
        parse_config(document, "x.toml")
    assert str(raised.value).endswith("got a numpy.datetime64 (not a TOML value)"), raised.value
    assert "TOML table" not in str(raised.value)
