"""The inputs of the local aggregates are read strictly: dates the service would read, never a
number or an ambiguous text taken for a date; a user's own ``deleted`` text read; repeated
SKUs said; no foreign warning leaks."""

import datetime as dt
import io
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import dealframe
from dealframe.analytics import bucket_medians, group_current, group_time_series, resolve_window
from dealframe.errors import ValidationError
from dealframe.frames.participants import co_investment_edges
from dealframe.frames.user_columns import datetime_values

VALUES = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def _deals(dates, **more):
    return pd.DataFrame({"deal_date": dates, "ev_revenue": VALUES[: len(dates)], **more})


def _medians(deals, *window, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning of pandas, numpy or ours leaks
        return bucket_medians(deals, "ev_revenue", "quarter", *window, **kwargs)


@pytest.mark.parametrize(
    "dates",
    [
        pytest.param([20240115, 20240116, 20240117, 20240201, 20240202, 20240203], id="yyyymmdd"),
        pytest.param([20240115.0] * 6, id="float"),
        pytest.param(pd.array([20240115] * 6, dtype="Int64"), id="Int64"),
        pytest.param(pd.array([20240115] * 6, dtype="int64[pyarrow]"), id="arrow-int"),
        pytest.param([True] * 6, id="bool"),
        pytest.param(pd.array([True] * 6, dtype="bool[pyarrow]"), id="arrow-bool"),
        pytest.param([20240115, "2024-01-15"] * 3, id="numbers-and-text"),
    ],
)
def test_numbers_and_booleans_are_not_dates(dates):
    with pytest.raises(ValidationError, match="deal_date: expected dates"):
        _medians(_deals(dates), "2024-01-01", "2024-12-31")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("05/01/2024", id="day-first"),
        pytest.param("01/05/2024", id="month-first"),
        pytest.param("2024-01", id="month"),
        pytest.param("2024", id="year"),
        pytest.param("Jan 5 2024", id="words"),
        pytest.param("20240105", id="digits"),
        pytest.param("2024-02-30", id="no-such-day"),
        pytest.param("0000-01-01", id="year-zero"),
        pytest.param("2024-01-05T10:00+25:00", id="no-such-offset-hour"),
        pytest.param("2024-01-05T10:00+00:99", id="no-such-offset-minute"),
    ],
)
def test_text_that_is_not_iso_8601_is_refused_naming_the_column_and_value(text):
    with pytest.raises(ValidationError, match="deal_date: expected dates") as raised:
        _medians(_deals(["2024-01-05"] * 5 + [text]), "2024-01-01", "2024-12-31")
    assert repr(text) in str(raised.value)


def test_a_time_zone_column_written_to_csv_reads_as_the_column_did():
    """Europe/Paris offsets change over the year: its CSV text holds +01:00 and +02:00, and
    each value's wall time is read, as the time-zone column's own."""
    zoned = pd.Series(
        pd.to_datetime(["2024-01-05 23:30", "2024-07-05 23:30", "2024-10-27 02:30"]),
        name="deal_date",
    ).dt.tz_localize("Europe/Paris", ambiguous=[True, True, False])
    text = pd.read_csv(io.StringIO(zoned.to_frame().to_csv(index=False)))["deal_date"]
    assert {t[-6:] for t in text} == {"+01:00", "+02:00"}
    assert (datetime_values(text) == datetime_values(zoned)).all()
    assert datetime_values(text)[1] == np.datetime64("2024-07-05T23:30")


def test_a_day_that_does_not_exist_among_offsets_is_named():
    dates = ["2024-01-05T10:00:00+01:00", "2024-02-30T10:00:00+02:00"] * 3
    with pytest.raises(ValidationError, match="deal_date: expected dates") as raised:
        _medians(_deals(dates), "2024-01-01", "2024-12-31")
    assert "'2024-02-30T10:00:00+02:00'" in str(raised.value)


@pytest.mark.parametrize(
    "dates",
    [
        pytest.param(["2024-01-05", dt.date(2024, 1, 6)] * 3, id="text-and-dates"),
        pytest.param(
            ["2024-01-05", pd.Timestamp("2024-01-06 10:00"), "2024-02-01", pd.NaT, None]
            + [pd.Timestamp("2024-03-31 23:59")],
            id="text-timestamps-nat-none",
        ),
        pytest.param(["2024-01-05", np.datetime64("2024-01-07")] * 3, id="text-and-datetime64"),
        pytest.param(
            ["2024-01-05T10:00:00+00"] * 3
            + [pd.Timestamp("2024-01-05 10:00", tz="Asia/Tokyo")] * 3,
            id="text-and-zoned-timestamps",
        ),
        pytest.param(
            [pd.Timestamp("2024-01-05 10:00", tz="Europe/Paris"), dt.datetime(2024, 1, 7)] * 3,
            id="zoned-and-naive-objects",
        ),
    ],
)
def test_objects_mixing_text_and_dates_are_read_value_by_value(dates):
    """A CSV export concatenated with the client's deals, a spreadsheet with date cells and
    text cells: each value read by its kind."""
    days = datetime_values(pd.Series(dates, dtype=object, name="deal_date"))
    out = _medians(_deals(dates), "2024-01-01", "2024-03-31")
    assert out[["bucket", "n"]].values.tolist() == [["2024-Q1", int((~np.isnat(days)).sum())]]
    assert out.loc[0, "n"] >= 4


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1.5, "1.5"), (20240105, "20240105"), (True, "True"), ("05/01/2024", "'05/01/2024'")],
)
def test_objects_mixing_dates_and_something_else_name_the_first_value_not_read(value, shown):
    dates = ["2024-01-05", dt.date(2024, 1, 6), pd.NaT, value, "2024-01-07", 7]
    with pytest.raises(ValidationError, match="deal_date: expected dates") as raised:
        _medians(_deals(dates), "2024-01-01", "2024-12-31")
    assert str(raised.value).endswith(f"got {shown}")


@pytest.mark.parametrize(
    ("text", "day"),
    [
        pytest.param("2024-01-05 00:00:00+00", "2024-01-05", id="psql-timestamptz"),
        pytest.param("2024-01-05T23:30:00+0530", "2024-01-05", id="offset-without-colon"),
        pytest.param(" 2024-01-05", "2024-01-05", id="leading-space"),
        pytest.param("2024-01-05\t", "2024-01-05", id="trailing-tab"),
        pytest.param("", None, id="empty-is-null"),
        pytest.param("   ", None, id="spaces-are-null"),
    ],
)
def test_iso_text_as_other_writers_write_it_is_read(text, day):
    """Text pandas' ISO 8601 reader and ``datetime.fromisoformat`` read, as the window's
    reader strips it; empty text is null, as the client reads an empty string elsewhere."""
    expected = np.datetime64("NaT", "D") if day is None else np.datetime64(day, "D")
    for dates in (pd.Series([text, "2024-02-01"]), pd.Series([text, "2024-02-01"], dtype="str")):
        read = datetime_values(dates).astype("datetime64[D]")
        np.testing.assert_array_equal(read, [expected, np.datetime64("2024-02-01")])


def test_the_window_and_the_date_column_read_spaced_text_alike():
    column = datetime_values(pd.Series([" 2024-01-05 "])).astype("datetime64[D]")[0]
    assert resolve_window(" 2024-01-05 ", " 2024-01-05 ") == (column.item(), column.item())


def test_a_window_date_beyond_year_9999_is_named():
    with pytest.raises(ValidationError, match="invalid date_to: expected a date of the years 1"):
        resolve_window(date_to=np.datetime64("10000-01-01"))
    with pytest.raises(ValidationError, match="invalid as_of"):
        resolve_window(as_of=np.datetime64("0000-06-01"))


@pytest.mark.parametrize(
    "dates",
    [
        pytest.param(["2024-01-05"] * 6, id="iso-text"),
        pytest.param(pd.array(["2024-01-05"] * 6, dtype="string[pyarrow]"), id="arrow-text"),
        pytest.param(["2024-01-05T23:30:00"] * 6, id="timestamps"),
        pytest.param(["2024-01-05T23:30:00-05:00"] * 6, id="one-offset-wall-time"),
        pytest.param([dt.date(2024, 1, 5)] * 6, id="date-objects"),
        pytest.param(pd.to_datetime(["2024-01-05"] * 6).astype("datetime64[s]"), id="seconds"),
        pytest.param(
            pd.to_datetime(["2024-01-05 23:00"] * 6).tz_localize("Asia/Tokyo"), id="tz-aware"
        ),
        pytest.param(pd.array([dt.date(2024, 1, 5)] * 6, dtype="date32[pyarrow]"), id="date32"),
        pytest.param(pd.period_range("2024-01-05", periods=6, freq="h"), id="periods"),
        pytest.param(pd.Categorical(["2024-01-05"] * 6), id="categorical-text"),
    ],
)
def test_dates_the_client_writes_are_read(dates):
    out = _medians(_deals(dates), "2024-01-01", "2024-03-31")
    assert out[["bucket", "n"]].values.tolist() == [["2024-Q1", 6]]
    assert out.loc[0, "median"] == 3.5


def test_participant_dates_read_alike():
    """co_investment_edges reads deal_date through the same reader."""
    rows = pd.DataFrame(
        {
            "deal_id": ["d1", "d1"],
            "participant_id": ["a", "b"],
            "role": ["investor", "investor"],
            "deal_date": [20240105, 20240105],
        }
    )
    with pytest.raises(ValidationError, match="deal_date"):
        co_investment_edges(rows)
    rows["deal_date"] = "2024-01-05"
    edges = co_investment_edges(rows)
    assert edges["first_date"].tolist() == [pd.Timestamp("2024-01-05")]


@pytest.mark.parametrize(
    "value", ["2024-12", "2024", "12/01/2024", "Dec 2024", "20241201", "2024-12-01x"]
)
@pytest.mark.parametrize("argument", ["date_from", "date_to", "as_of"])
def test_window_dates_are_yyyy_mm_dd_as_the_service_reads_them(value, argument):
    given = {"date_from": None, "date_to": "2024-12-31", "as_of": None} | {argument: value}
    with pytest.raises(ValidationError, match=f"invalid {argument}: expected a date YYYY-MM-DD"):
        resolve_window(**given)
    with pytest.raises(ValidationError, match=f"invalid {argument}"):
        _medians(_deals(["2024-01-05"] * 6), **given)


@pytest.mark.parametrize(
    "value",
    [
        "2024-12-01",
        dt.date(2024, 12, 1),
        dt.datetime(2024, 12, 1, 15),
        pd.Timestamp("2024-12-01 15:00", tz="UTC"),
        np.datetime64("2024-12-01"),
    ],
)
def test_window_dates_as_objects_are_their_days(value):
    assert resolve_window(date_to=value, conventions=None) == (
        dt.date(2019, 12, 1),
        dt.date(2024, 12, 1),
    )


@pytest.mark.parametrize(
    "deleted",
    [
        pytest.param(["false"] * 5 + ["true"], id="lower"),
        pytest.param(["False"] * 5 + ["True"], id="capitalised"),
        pytest.param(pd.array(["false"] * 5 + ["true"], dtype="str"), id="str"),
        pytest.param([False] * 5 + [True], id="booleans"),
        pytest.param([None] * 5 + ["TRUE"], id="nulls"),
    ],
)
def test_deleted_written_as_text_is_read_as_booleans(deleted):
    deals = _deals(["2024-01-05"] * 6, deleted=deleted)
    assert _medians(deals, "2024-01-01", "2024-03-31").loc[0, "n"] == 5
    assert _medians(deals, "2024-01-01", "2024-03-31", include_deleted=True).loc[0, "n"] == 6


@pytest.mark.parametrize(
    "deleted",
    [
        pytest.param(pd.Categorical(["false"] * 5 + ["true"]), id="categorical"),
        pytest.param(
            pd.array(
                ["false"] * 5 + ["true"],
                dtype=pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string())),
            ),
            id="arrow-dictionary",
        ),
        pytest.param(pd.Categorical([False] * 5 + [True]), id="categorical-booleans"),
        pytest.param([0] * 5 + [1], id="numbers"),
        pytest.param(pd.array([0, None, 0, 0, 0, 1], dtype="Int64"), id="Int64"),
    ],
)
def test_deleted_of_other_dtypes_is_read_by_its_values(deleted):
    deals = _deals(["2024-01-05"] * 6, deleted=deleted)
    assert _medians(deals, "2024-01-01", "2024-03-31").loc[0, "n"] == 5


@pytest.mark.parametrize(
    ("deleted", "shown"),
    [
        pytest.param(["no"] * 5 + ["yes"], "'no'", id="words"),
        pytest.param([0] * 5 + [2], "2", id="two"),
        pytest.param([0.0] * 5 + [0.5], "0.5", id="half"),
        pytest.param(["0"] * 5 + ["1"], "'0'", id="digits-as-text"),
        pytest.param(pd.Categorical(["no"] * 5 + ["yes"]), "'no'", id="categorical-words"),
    ],
)
def test_deleted_that_says_no_boolean_is_refused(deleted, shown):
    deals = _deals(["2024-01-05"] * 6, deleted=deleted)
    with pytest.raises(ValidationError, match="invalid deleted") as raised:
        _medians(deals, "2024-01-01", "2024-03-31")
    assert str(raised.value).endswith(f"got {shown}")


def test_one_resample_is_refused_and_two_give_an_interval_without_numpy_warnings():
    """One resample has no spread (scipy's standard error of it divides by zero, with numpy
    warnings): refused naming ci_resamples, before any work; two are the fewest."""
    deals = _deals(["2024-01-05"] * 6)
    with pytest.raises(ValidationError, match="ci_resamples"):
        _medians(deals, "2024-01-01", "2024-03-31", ci=0.9, ci_resamples=1)
    out = _medians(deals, "2024-01-01", "2024-03-31", ci=0.9, ci_resamples=2, rng=0)
    assert out.loc[0, "median_low"] <= out.loc[0, "median_high"]


def test_repeated_skus_of_a_rollup_are_said():
    current = pd.DataFrame(
        {"marketCap": [10.0, 30.0, 10.0], "revenueLtm": [1.0, 2.0, 1.0]},
        index=pd.Index(["A-USA", "B-USA", "A-USA"], name="sku"),
    )
    with pytest.warns(dealframe.DealframeWarning, match="repeated SKUs: 1 among the 3 rows"):
        group_current(current)
    columns = pd.MultiIndex.from_tuples(
        [("evRevenueLtm", "A"), ("evRevenueLtm", "B"), ("evRevenueLtm", "A")],
        names=["field", "sku"],
    )
    months = pd.period_range("2024-01", periods=2, freq="M", name="month")
    wide = pd.DataFrame([[1.0, 2.0, 1.0], [3.0, 4.0, 3.0]], index=months, columns=columns)
    with pytest.warns(dealframe.DealframeWarning, match=r"1 among the 3 \(field, sku\) columns"):
        group_time_series(wide)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        once = group_time_series(wide.loc[:, ~wide.columns.duplicated()])
    assert once["evRevenueLtm"].tolist() == [1.5, 3.5]
