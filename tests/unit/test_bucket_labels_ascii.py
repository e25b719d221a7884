"""Aggregate bucket labels read at once (the standard forms) and one by one agree: digits
other than ASCII's (full-width, Arabic-Indic) are never taken as the standard form."""

from __future__ import annotations

import pytest

from dealframe.frames.private import _bucket_periods, bucket_period


@pytest.mark.parametrize(
    ("label", "bucket"),
    [
        ("２０２４-02", "month"),
        ("２０２４-Q2", "quarter"),
        ("２０２４", "year"),
        ("٢٠٢٤", "year"),
        ("2024-02", "month"),
        ("2024-Q2", "quarter"),
        ("2024", "year"),
    ],
)
def test_labels_read_at_once_agree_with_one_by_one(label: str, bucket: str) -> None:
    assert _bucket_periods([label], bucket) == [bucket_period(label, bucket)]
