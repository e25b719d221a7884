"""Frames with Arrow dtypes give the local analytics and the frame helpers the client frame's
results: the mirror's tables read by polars (``to_pandas(use_pyarrow_extension_array=True)``:
``date32`` deal dates, ``large_string`` text, ``double`` values, ``bool`` flags), and pulls read
back with ``pd.read_parquet(..., dtype_backend="pyarrow")`` (``timestamp[us]`` dates,
``dictionary`` categories, ``int64`` counts), against a sandbox over HTTP. A column no reader of
the analytics can use is a ValidationError naming it, never a bare pandas or Arrow exception."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import dealframe.mirror as mirror
from dealframe import co_investment_edges, explode_participants, to_usd
from dealframe._vocab import AGGREGATE_METRICS, TIME_BUCKETS
from dealframe.analytics import (
    bucket_medians,
    compare_buckets,
    current_fields,
    group_current,
    reconcile_frames,
)
from dealframe.client import Client
from dealframe.errors import ValidationError

WINDOW = ("2019-01-01", "2025-12-31")
ROLES = ("lead_investor", "buyer")  # list rows carry no full investor list
REGIONS = ["Western Europe", "Northern Europe", "North America"]


@pytest.fixture(scope="module")
def client(sandbox):
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def mirrored(client, tmp_path_factory):
    """A mirror of the sandbox's deals, and a snapshot of some companies' current data."""
    path = tmp_path_factory.mktemp("mirror") / "m"
    mirror.sync(client, path, entities=["deals"], progress=False)
    mirror.snapshot_public(client, path, regions=REGIONS)
    return path


def by_id(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in one order whatever the reader's (explain rows and participants follow it)."""
    return frame.sort_values("id", ignore_index=True)


def read_back(frame: pd.DataFrame, path) -> pd.DataFrame:
    """``frame`` written to Parquet and read with Arrow dtypes."""
    frame.to_parquet(path)
    return pd.read_parquet(path, dtype_backend="pyarrow")


def polars_deals(path) -> pd.DataFrame:
    """The mirror's live deals as polars reads them, handed to pandas with Arrow dtypes."""
    table = pl.read_delta(str(path / "deals")).filter(~pl.col("deleted"))
    return by_id(table.to_pandas(use_pyarrow_extension_array=True))


def assert_same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, expected)
    assert got.attrs == expected.attrs


def test_polars_mirror_deals_give_the_client_frame_buckets(mirrored):
    arrow = polars_deals(mirrored)
    assert arrow["deal_date"].dtype == pd.ArrowDtype(pa.date32())
    assert arrow["ev_revenue"].dtype == pd.ArrowDtype(pa.float64())
    client_frame = by_id(mirror.load(mirrored, "deals"))
    for metric in AGGREGATE_METRICS:
        for bucket in TIME_BUCKETS:
            assert_same(
                bucket_medians(arrow, metric, bucket, *WINDOW),
                bucket_medians(client_frame, metric, bucket, *WINDOW),
            )
    assert_same(
        bucket_medians(arrow, "valuation", "year", *WINDOW, explain=True, ci=None),
        bucket_medians(client_frame, "valuation", "year", *WINDOW, explain=True),
    )


def test_polars_mirror_deals_reconcile_with_the_service(client, mirrored):
    service = client.private.aggregate("ev_revenue", "quarter")
    arrow = polars_deals(mirrored)
    got = reconcile_frames(service, arrow, "ev_revenue", "quarter")
    expected = reconcile_frames(service, mirror.load(mirrored, "deals"), "ev_revenue", "quarter")
    assert got.frame.attrs["matched"] == got.frame.attrs["buckets"] > 0
    assert_same(got.frame, expected.frame)
    assert got.summary == expected.summary


def test_pandas_arrow_read_of_the_mirror_files_gives_the_client_frame_buckets(mirrored):
    files = [str(f) for f in mirror.files(mirrored, "deals")]
    arrow = by_id(pd.read_parquet(files, dtype_backend="pyarrow"))
    assert arrow["deal_date"].dtype == pd.ArrowDtype(pa.date32())
    client_frame = by_id(mirror.load(mirrored, "deals", include_deleted=True))
    for bucket in TIME_BUCKETS:
        assert_same(
            bucket_medians(arrow, "ev_ebitda", bucket, *WINDOW),
            bucket_medians(client_frame, "ev_ebitda", bucket, *WINDOW),
        )


def test_a_pull_read_back_with_arrow_dtypes_reconciles_as_the_pull(client, tmp_path):
    service = client.private.aggregate("valuation", "year")
    window = service.attrs["methodology"]["date_range"]
    deals = client.private.deals({"date_from": window["from"], "date_to": window["to"]})
    arrow_deals = read_back(deals, tmp_path / "deals.parquet")
    arrow_service = read_back(service, tmp_path / "service.parquet")
    assert arrow_deals["deal_date"].dtype == pd.ArrowDtype(pa.timestamp("us"))
    assert arrow_service["n"].dtype == pd.ArrowDtype(pa.int64())
    expected = reconcile_frames(service, deals, "valuation", "year")
    got = reconcile_frames(arrow_service, arrow_deals, "valuation", "year")
    assert_same(got.frame, expected.frame)
    local = bucket_medians(deals, "valuation", "year", window["from"], window["to"])
    arrow_local = read_back(local, tmp_path / "local.parquet")
    assert_same(compare_buckets(arrow_service, arrow_local), compare_buckets(service, local))


def test_participants_of_arrow_deals_are_the_client_frame_ones(mirrored, tmp_path):
    client_frame = by_id(mirror.load(mirrored, "deals"))
    # polars' read of the mirror; and the deals as engines that keep instants (Spark, DuckDB
    # TIMESTAMPTZ) write them: deal dates as UTC timestamps
    utc = pa.Table.from_pandas(client_frame, preserve_index=False)
    at = utc.schema.get_field_index("deal_date")
    utc = utc.set_column(at, "deal_date", utc["deal_date"].cast(pa.timestamp("us", tz="UTC")))
    pq.write_table(utc, tmp_path / "utc.parquet")
    readers = {
        "polars": polars_deals(mirrored),
        "utc": pd.read_parquet(tmp_path / "utc.parquet", dtype_backend="pyarrow"),
    }
    assert readers["utc"]["deal_date"].dtype == pd.ArrowDtype(pa.timestamp("us", tz="UTC"))
    expected = explode_participants(client_frame, roles=ROLES)
    assert len(expected) > 0
    for name, arrow in readers.items():
        got = explode_participants(arrow, roles=ROLES)
        assert_same(got, expected)
        assert_same(co_investment_edges(got), co_investment_edges(expected)), name


def test_current_data_with_arrow_dtypes_rolls_up_as_the_client_frame(client, mirrored, tmp_path):
    snapshot = mirror.load_public(mirrored)
    polars_current = pl.read_delta(str(mirrored / "public" / "current")).to_pandas(
        use_pyarrow_extension_array=True
    )
    assert isinstance(polars_current["region"].dtype, pd.ArrowDtype)
    current = client.public.current(client.public.search(regions=REGIONS).index)
    arrow_current = read_back(current, tmp_path / "current.parquet")
    assert arrow_current["region"].dtype == pd.ArrowDtype(pa.dictionary(pa.int8(), pa.string()))
    for arrow, expected in ((polars_current, snapshot), (arrow_current, current)):
        assert current_fields(arrow) == current_fields(expected)
        assert_same(group_current(arrow), group_current(expected))
        for by in ("region", "country"):
            got = group_current(arrow.set_index("sku") if "sku" in arrow else arrow, by=by)
            # the group level is text (str) or categorical (dictionary-encoded text), as a
            # client frame's label column; the client frame's categories (the whole
            # vocabulary) are not in a table that stores text
            groups = got.index.levels[0].dtype
            assert groups == "str" or isinstance(groups, pd.CategoricalDtype), groups
            pd.testing.assert_frame_equal(
                got, group_current(expected, by=by), check_index_type=False, check_categorical=False
            )
            assert got.attrs == group_current(expected, by=by).attrs
        pd.testing.assert_frame_equal(
            to_usd(arrow).reset_index(drop=True), to_usd(expected).reset_index(drop=True)
        )


def unusable(kind: pa.DataType, rows: int, index: pd.Index) -> pd.Series:
    """An Arrow column of ``kind`` with a value in every row."""
    one = {"dura": 86_400, "list": ["2024-01-05"], "bina": b"2024-01-05"}[str(kind)[:4]]
    values = pa.array([one] * rows, type=kind)
    return pd.Series(pd.arrays.ArrowExtensionArray(values), index=index)


@pytest.mark.parametrize("kind", [pa.duration("s"), pa.list_(pa.string()), pa.binary()], ids=str)
def test_an_arrow_column_no_reader_can_use_is_a_validation_error(client, kind):
    deals = client.private.deals({"date_from": "2024-01-01", "date_to": "2024-06-30"})
    assert len(deals)
    odd = unusable(kind, len(deals), deals.index)
    with pytest.raises(ValidationError, match="deal_date"):
        bucket_medians(deals.assign(deal_date=odd), "ev_revenue", "quarter", *WINDOW)
    with pytest.raises(ValidationError, match="ev_revenue"):
        bucket_medians(deals.assign(ev_revenue=odd), "ev_revenue", "quarter", *WINDOW)
    exploded = explode_participants(deals, roles=ROLES)
    odd_rows = unusable(kind, len(exploded), exploded.index)
    with pytest.raises(ValidationError, match="deal_date"):
        co_investment_edges(exploded.assign(deal_date=odd_rows))
    with pytest.raises(ValidationError, match="deal_date"):
        explode_participants(deals.assign(deal_date=odd), roles=ROLES)
