"""The one check of closed lists of values (``dealframe.arguments.choice``) and the places
that need no service: ``Conventions`` fields, the mirror's table names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dealframe.mirror as mirror
from dealframe.analytics import Conventions
from dealframe.arguments import choice
from dealframe.errors import ValidationError

BUCKETS = ("month", "quarter", "year", "none")


def test_a_listed_value_is_returned() -> None:
    assert choice("year", "time_bucket", BUCKETS) == "year"
    assert type(choice(np.str_("year"), "time_bucket", BUCKETS)) is str


@pytest.mark.parametrize(
    ("value", "closest"),
    [("Quarter", "quarter"), ("QUARTER", "quarter"), ("yaer", "year"), ("months", "month")],
)
def test_the_closest_value_is_suggested_case_ignored(value: str, closest: str) -> None:
    with pytest.raises(ValidationError) as caught:
        choice(value, "time_bucket", BUCKETS)
    assert caught.value.argument == "time_bucket"
    assert str(caught.value) == (
        "invalid time_bucket: expected one of month, quarter, year, none "
        f"(did you mean {closest!r}?), got {value!r}"
    )


@pytest.mark.parametrize("value", ["fortnight", None, 3, ["year"]])
def test_no_suggestion_without_a_close_value(value: object) -> None:
    with pytest.raises(ValidationError) as caught:
        choice(value, "time_bucket", BUCKETS, "a bucket")
    assert str(caught.value) == f"invalid time_bucket: expected a bucket, got {value!r}"


def test_conventions_suggest_the_closest_value() -> None:
    with pytest.raises(ValidationError) as caught:
        Conventions(trim_scope="buckets")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "invalid Conventions.trim_scope: expected one of 'bucket', 'window' "
        "(did you mean 'bucket'?), got 'buckets'"
    )
    with pytest.raises(ValidationError, match=r"did you mean 'hazen'\?"):
        Conventions(quantile_method="Hazen")  # type: ignore[arg-type]


def test_conventions_still_take_only_plain_values() -> None:
    with pytest.raises(ValidationError, match="Conventions.trim_scope"):
        Conventions(trim_scope=np.str_("bucket"))  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="Conventions.inclusive_bounds"):
        Conventions(inclusive_bounds=1)  # type: ignore[arg-type]
    assert Conventions(trim_scope="window").trim_scope == "window"


def test_mirror_table_names_suggest_the_closest(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as caught:
        mirror.load_public(tmp_path, "curent")
    assert caught.value.argument == "table"
    assert "(did you mean 'current'?)" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        mirror.load(tmp_path, "deels")
    assert caught.value.argument == "entity"
    assert "(did you mean 'deals'?)" in str(caught.value)
    with pytest.raises(ValidationError, match=r"did you mean 'investors'\?"):
        mirror.files(tmp_path, "Investors")
