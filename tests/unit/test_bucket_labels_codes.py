"""``analytics.bucket_labels`` refuses codes that are no bucket codes with a ``ValidationError``
naming ``codes`` (issue 13: every argument check raises a dealframe error): a boolean was read as
code 1 (``True`` -> ``['1971']``), a lone number as a list of one, and a code past year 9999 gave
a label of thirteen digits."""

from __future__ import annotations

import numpy as np
import pytest

from dealframe.analytics import bucket_labels
from dealframe.errors import ValidationError


@pytest.mark.parametrize(
    ("codes", "bucket"),
    [
        (True, "year"),
        (np.array([True, False]), "quarter"),
        (5, "year"),
        (np.array([[218, 219]]), "quarter"),
        (np.array([2**40]), "year"),
        (np.array([(9999 - 1970 + 1) * 12]), "month"),
        (np.array([-1970 * 4]), "quarter"),  # year 0
    ],
)
def test_codes_that_are_no_bucket_codes_are_refused(codes, bucket):
    with pytest.raises(ValidationError, match="invalid codes") as refused:
        bucket_labels(codes, bucket)
    assert refused.value.argument == "codes"


def test_codes_of_years_1_to_9999_are_labelled():
    assert bucket_labels(np.array([-1, 0, (9999 - 1970 + 1) * 12 - 1]), "month") == [
        "1969-12",
        "1970-01",
        "9999-12",
    ]
    assert bucket_labels(np.array([(1 - 1970) * 4]), "quarter") == ["0001-Q1"]
    assert bucket_labels([218, 219], "quarter") == ["2024-Q3", "2024-Q4"]
    assert bucket_labels(np.array([], dtype=np.int64), "year") == []
