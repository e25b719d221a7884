"""The frame builders refuse an argument of the wrong type with a dealframe error naming it
(issue 13: "raises dealframe errors from every argument check").

Each case here was Python's ``TypeError`` (``'int' object is not iterable``, ``'int' object
is not subscriptable``, ``a bytes-like object is required``), a ``KeyError: 'id'``, a
``ValueError`` (``not enough values to unpack``), an ``AttributeError`` or a silently wrong
result before.
"""

from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe.errors import ValidationError
from dealframe.frames import (
    complete_deals,
    deals_frame,
    group_time_series_frame,
    list_frame,
    list_page_columns,
    time_series_long,
    time_series_wide,
)
from dealframe.frames.deal_rows import read_deal_page
from dealframe.frames.normalize import build_frame, empty_frame
from dealframe.frames.objects import object_lists
from dealframe.frames.private import aggregate_frame, bucket_period, buckets_left_out
from dealframe.frames.public import as_mappings, read_current_page
from dealframe.frames.schemas import DEAL_PROFILE, INVESTOR_LIST, Column
from dealframe.frames.user_columns import datetime_values, plain_column, true_rows

WRONG = [5, 1.5, True, None, {}, object(), np.int64(3)]
SERIES = [{"sku": "A-USA", "data": {"marketCap": {"2024-01": 1.5}}}]
GROUP = [{"period": "2024-01", "median": {"marketCap": 3.0}}]
DEALS = deals_frame([{"id": "d1", "lead_investors": [{"id": "a"}]}, {"id": "d2"}])
SINGLES = deals_frame([{"id": "d1", "investors": [{"id": "a"}], "target": {"region": "Oceania"}}])


def _refused(call: Callable[[], Any], argument: str) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        call()
    assert isinstance(info.value, dealframe.DealframeError)
    assert info.value.argument == argument, str(info.value)
    return info.value


@pytest.mark.parametrize("wrong", [*WRONG, [], "id", pd.Series(["d1"], name="id")])
def test_complete_deals_refuses_anything_but_deals_frames(wrong: Any) -> None:
    error = _refused(lambda: complete_deals(wrong, SINGLES), "deals")
    assert "a deals frame" in str(error)
    _refused(lambda: complete_deals(DEALS, wrong), "singles")


def test_complete_deals_refuses_a_frame_without_one_id_column() -> None:
    error = _refused(lambda: complete_deals(DEALS.drop(columns="id"), SINGLES), "deals")
    assert "'id' column" in str(error)
    twice = pd.concat([SINGLES[["id"]], SINGLES[["id"]]], axis=1)
    _refused(lambda: complete_deals(DEALS, twice), "singles")
    # the frames it was written for are taken as before
    done = complete_deals(DEALS, SINGLES)
    assert done["target_region"].tolist()[0] == "Oceania" and len(done) == 2


@pytest.mark.parametrize("wrong", [*WRONG, "nonsense", b"x"])
def test_list_frame_refuses_parts_that_are_no_list(wrong: Any) -> None:
    error = _refused(lambda: list_frame("transactions", wrong), "parts")
    assert "list_page_columns" in str(error)


@pytest.mark.parametrize("part", [5, "x", [], ({}, {}, {}), ([], {}), object()])
def test_list_frame_refuses_a_part_that_list_page_columns_did_not_make(part: Any) -> None:
    good = list_page_columns("investors", [{"id": "a", "name": "A"}])
    _refused(lambda: list_frame("investors", [good, part]), "parts[1]")
    assert list_frame("investors", (good,)).loc[0, "name"] == "A"  # a tuple of parts is a list


@pytest.mark.parametrize("wrong", [5, 1.5, True, {}, {"marketCap": 1}, object(), "marketCap"])
def test_time_series_fields_must_be_a_list_of_strings(wrong: Any) -> None:
    _refused(lambda: time_series_long(SERIES, wrong), "fields")
    _refused(lambda: time_series_long(SERIES, fields=wrong), "fields")
    _refused(lambda: group_time_series_frame(GROUP, fields=wrong), "fields")


def test_a_field_that_is_no_string_is_named_by_its_place() -> None:
    _refused(lambda: time_series_long(SERIES, ["marketCap", 5]), "fields[1]")
    _refused(lambda: group_time_series_frame(GROUP, fields=[None]), "fields[0]")


def test_fields_given_as_an_iterator_are_read_once_not_used_up_by_the_check() -> None:
    """An iterator of fields was used up by the check: the wide frame then had no column."""
    wide = time_series_wide(SERIES, (f for f in ["marketCap", "ruleOf40"]))
    assert wide.columns.get_level_values("field").unique().tolist() == ["marketCap", "ruleOf40"]
    long = time_series_long(SERIES, iter(["marketCap"]))
    assert long["field"].tolist() == ["marketCap"]
    group = group_time_series_frame(GROUP, fields=iter(["ruleOf40"]))
    assert group.columns.tolist() == ["ruleOf40", "marketCap"]


@pytest.mark.parametrize("wrong", [5, None, [], {}, object()])
def test_the_page_readers_refuse_what_is_no_page(wrong: Any) -> None:
    _refused(lambda: read_deal_page(wrong), "content")
    _refused(lambda: read_current_page(wrong), "content")
    assert read_current_page(b'{"data": []}') == {"data": []}


@pytest.mark.parametrize("wrong", [5, None, {}, "x", object()])
def test_as_mappings_refuses_what_is_no_list(wrong: Any) -> None:
    _refused(lambda: as_mappings(wrong), "items")


def test_bucket_helpers_refuse_a_bucket_that_is_no_name() -> None:
    frame = aggregate_frame([{"bucket": "2024-Q1", "n": 7}], {"time_bucket": "quarter"})
    _refused(lambda: bucket_period("2024-Q1", ["quarter"]), "time_bucket")  # type: ignore[arg-type]
    _refused(lambda: buckets_left_out(frame, ["quarter"]), "time_bucket")  # type: ignore[arg-type]
    _refused(lambda: buckets_left_out(5, "quarter"), "frame")  # type: ignore[arg-type]
    assert bucket_period("Q2 2024", None) == ("2024-Q2", "2024-04-01", "2024-06-30")


@pytest.mark.parametrize("reader", [plain_column, datetime_values, true_rows])
@pytest.mark.parametrize("wrong", [5, None, "deal_date", ["2024-01-01"], np.array([1])])
def test_column_readers_refuse_what_is_no_series(reader: Callable[[Any], Any], wrong: Any) -> None:
    _refused(lambda: reader(wrong), "series")


def test_object_lists_names_the_argument_of_the_wrong_type() -> None:
    column = pd.Series(['[{"id":"a"}]'])
    _refused(lambda: object_lists(5, ("id",)), "column")  # type: ignore[arg-type]
    _refused(lambda: object_lists([column, "x"], ("id",)), "column")  # type: ignore[list-item]
    _refused(lambda: object_lists(column, 5), "fields")  # type: ignore[arg-type]
    _refused(lambda: object_lists(column, "id"), "fields")  # type: ignore[arg-type]
    _refused(lambda: object_lists(column, ("id",), 5), "name")  # type: ignore[arg-type]
    _refused(lambda: object_lists([column, column], ("id",), ["a"]), "name")
    rows, values = object_lists(column, ["id"])  # type: ignore[arg-type]
    assert rows.tolist() == [0] and values["id"].to_pylist() == ["a"]


def test_schema_builders_name_the_argument_of_the_wrong_type() -> None:
    _refused(lambda: empty_frame("id"), "schema")  # type: ignore[arg-type]
    _refused(lambda: empty_frame(INVESTOR_LIST, index=5), "index")  # type: ignore[arg-type]
    _refused(lambda: empty_frame(INVESTOR_LIST, index="nope"), "index")
    _refused(lambda: build_frame(5, INVESTOR_LIST), "records")  # type: ignore[arg-type]
    _refused(lambda: build_frame([{"id": "a"}, 5], INVESTOR_LIST), "records[1]")  # type: ignore[list-item]
    _refused(lambda: build_frame([], INVESTOR_LIST, 5), "nested")  # type: ignore[arg-type]
    _refused(lambda: build_frame([], INVESTOR_LIST, extra_columns=5), "extra_columns")  # type: ignore[arg-type]
    _refused(lambda: build_frame([], INVESTOR_LIST, index=["id"]), "index")  # type: ignore[arg-type]
    assert build_frame([{"id": "a"}], INVESTOR_LIST, index="id").index.tolist() == ["a"]


def test_a_column_spec_of_the_wrong_type_is_a_validation_error() -> None:
    _refused(lambda: Column("x", 5), "x.kind")  # type: ignore[arg-type]
    _refused(lambda: Column("x", "str", fields=5), "x.fields")  # type: ignore[arg-type]
    _refused(lambda: Column("x", "str", path=5), "x.path")  # type: ignore[arg-type]
    _refused(lambda: Column("x", "category"), "x.categories")
    _refused(lambda: Column(5, "str"), "name")  # type: ignore[arg-type]
    assert Column("target_id", "str", ("target", "id")).path == ("target", "id")


# ------------------------------------------------- what the checks above must still take


#: Deal items a user builds from a frame of their own: one column named by a number.
NUMBERED = pd.DataFrame({"id": ["d1"], "deal_date": ["2024-01-02"], 2024: [1.5]}).to_dict("records")
LED = [{**NUMBERED[0], "lead_investors": [{"id": "a"}]}]

BUILDERS: dict[str, Callable[[], pd.DataFrame]] = {
    "deals_frame": lambda: deals_frame(NUMBERED),
    "build_frame": lambda: build_frame(NUMBERED, INVESTOR_LIST),
    "list_frame investors": lambda: list_frame(
        "investors", [list_page_columns("investors", NUMBERED)]
    ),
    "list_frame companies": lambda: list_frame(
        "companies", [list_page_columns("companies", NUMBERED)]
    ),
    "list_frame transactions": lambda: list_frame(
        "transactions", [list_page_columns("transactions", NUMBERED)]
    ),
    "company_profiles_frame": lambda: dealframe.frames.company_profiles_frame(NUMBERED),
    "portfolio_frame": lambda: dealframe.frames.portfolio_frame(NUMBERED),
}


@pytest.mark.parametrize("build", BUILDERS.values(), ids=BUILDERS.keys())
def test_keys_that_are_no_strings_are_kept_as_extra_columns_by_every_builder(
    build: Callable[[], pd.DataFrame],
) -> None:
    """``df.to_dict("records")`` of a frame with a column ``2024``: a ValidationError ("expected
    a column name (a string), got 2024") or a TypeError ("'<' not supported between 'str' and
    'int'") before, depending on the builder."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = build()
    assert 2024 in frame.columns and frame[2024].tolist() == [1.5]
    assert frame[2024].dtype == np.float64


def test_explode_participants_takes_deal_items_with_such_keys() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = dealframe.explode_participants(LED)
    assert rows["participant_id"].tolist() == ["a"] and rows["deal_id"].tolist() == ["d1"]


def test_nested_keys_that_are_no_strings_get_their_prefix() -> None:
    frame = deals_frame([{"id": "d1", "target": {"id": "t", 7: "x"}, "b": 1}])
    assert frame["target_7"].tolist() == ["x"] and frame["b"].tolist() == [1.0]
    extras = list(build_frame([{"id": "a", 5: "x", "b": 1}], INVESTOR_LIST).columns)
    assert extras[-2:] == [5, "b"]  # extras sorted by their text


def test_list_frame_takes_parts_in_any_sequence_and_a_part_as_a_list() -> None:
    """``deque([part])`` and ``[columns, extras]`` worked before the checks were added."""
    part = list_page_columns("investors", [{"id": "a", "name": "A"}])
    for parts in (deque([part]), [list(part)], iter([part]), (p for p in [part])):
        assert list_frame("investors", parts).loc[0, "name"] == "A"
    deals = list_page_columns("transactions", [{"id": "d1"}])
    assert list_frame("transactions", deque([list(deals)]))["id"].tolist() == ["d1"]


def test_complete_deals_takes_columns_of_two_levels() -> None:
    """Columns ``('id', '')`` ... (a frame written with a second header row): ``deals["id"]``
    is one column, taken as before (refused since the checks were added)."""
    two = DEALS.copy()
    two.columns = pd.MultiIndex.from_tuples([(c, "") for c in two.columns])
    done = complete_deals(two, SINGLES)  # the profile's columns, then the frame's own
    assert len(done) == 2 and done.shape[1] == len(DEALS.columns) + len(DEAL_PROFILE)
    assert done["target_region"].tolist()[0] == "Oceania"
    several = DEALS.copy()
    several.columns = pd.MultiIndex.from_tuples(
        [("id", "a") if c == "id" else (c, "") for c in several.columns]
    )
    several[("id", "b")] = several[("id", "a")]
    _refused(lambda: complete_deals(several, SINGLES), "deals")


def test_the_bucket_helpers_take_an_unknown_bucket_alike() -> None:
    frame = aggregate_frame([{"bucket": "2024-Q1", "n": 7}], {"time_bucket": "quarter"})
    assert buckets_left_out(frame, None) == []
    assert bucket_period("2024-Q1", None) == ("2024-Q1", "2024-01-01", "2024-03-31")


def test_builders_take_sequences_that_are_no_list() -> None:
    assert build_frame(deque([{"id": "a"}]), INVESTOR_LIST)["id"].tolist() == ["a"]
    assert list(build_frame([{"id": "a"}], deque(INVESTOR_LIST)).columns)[0] == "id"
    column = pd.Series(['[{"id":"a"}]'])
    rows, values = object_lists(iter([column]), iter(["id"]), iter(["lead_investors"]))
    assert rows.tolist() == [0] and values["id"].to_pylist() == ["a"]
    assert as_mappings(({"sku": "A-USA"},)) == [{"sku": "A-USA"}]


class _Row(msgspec.Struct):
    id: str | None = None


def test_typed_rows_are_all_checked_not_the_first_alone() -> None:
    """``[typed row, 5]`` passed the check (it looked at the first row only) and failed later
    with an AttributeError."""
    typed = [_Row(id="a")]  # a row of a schema'd decoder (dealframe.frames.deal_rows)
    assert build_frame(typed, INVESTOR_LIST)["id"].tolist() == ["a"]
    error = _refused(lambda: build_frame([*typed, 5], INVESTOR_LIST), "records[1]")
    assert "int" in str(error)
    _refused(lambda: list_page_columns("investors", [*typed, {"id": "b"}]), "items[1]")
