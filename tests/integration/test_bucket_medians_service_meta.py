"""bucket_medians and calibrate say what the service's aggregate says, over HTTP.

The window (``attrs["date_range"]``, as ``client.private.aggregate``'s), the default window's
anchor (``calibrate`` compares it with the service's ``date_range.from``, over the service's
own ``default_date_range_years``), deals counted once (a frame of ``investments()`` of several
investors repeats co-invested deals), and deal dates of a CSV export concatenated with the
client's deals.
"""

import datetime as dt
import io
import sys
import warnings
from pathlib import Path

import orjson
import pandas as pd
import pytest

import dealframe
from dealframe.analytics import Conventions, bucket_medians
from dealframe.analytics.reconcile import calibrate
from dealframe.notices import ServiceContractWarning

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Action, Proxy, edit

P = "/api/private/v1"


@pytest.fixture(scope="module")
def client(sandbox, tmp_path_factory):
    path = tmp_path_factory.mktemp("cache") / "http.sqlite"
    with dealframe.Client.for_sandbox(
        sandbox, cache_enabled=True, cache_path=path, progress=False
    ) as c:
        yield c


@pytest.mark.parametrize("time_bucket", ["quarter", "none"])
def test_date_range_in_attrs_is_the_aggregates(client, time_bucket):
    service = client.private.aggregate("ev_revenue", time_bucket)
    deals = client.private.deals(
        date_from=service.attrs["date_range"]["from"], date_to=service.attrs["date_range"]["to"]
    )
    local = bucket_medians(deals, "ev_revenue", time_bucket, client=client)
    assert local.attrs["date_range"] == service.attrs["date_range"]
    explained = bucket_medians(deals, "ev_revenue", time_bucket, client=client, explain=True)
    assert explained.attrs["date_range"] == service.attrs["date_range"]


def test_calibrate_tests_the_window_anchor_against_the_services_window(client):
    anchors = [Conventions(), Conventions(window_anchor="period_start")]
    table = calibrate(client, "ev_revenue", "quarter", variants=anchors).set_index("window_anchor")
    # the buckets are computed over the service's window either way: only the default
    # window's start tells the anchors apart (the sandbox's is 5 years before date_to)
    assert table.loc["period_start", "buckets_matched"] == table.loc["date_to", "buckets_matched"]
    assert table.loc["date_to", "reproduces"]
    assert not table.loc["period_start", "meta_matches"]
    assert not table.loc["period_start", "reproduces"]
    # (no quarter is small: whether small buckets are dropped is untested, see
    # test_calibrate_reads_the_answer.py)
    assert "window_anchor" not in table.attrs["untested"]


def test_calibrate_says_the_anchor_is_not_tested_with_a_date_from(client):
    anchors = [Conventions(), Conventions(window_anchor="period_start")]
    table = calibrate(client, "ev_revenue", "year", {"date_from": "2022-01-01"}, variants=anchors)
    assert table["reproduces"].all()
    assert table.attrs["untested"][0] == "window_anchor"


def test_repeated_deal_ids_are_said_and_deduplicated_equal_the_service(client):
    investors = client.private.investors()["id"].iloc[:60].tolist()
    rows = client.private.investments(investors)
    assert rows["id"].duplicated().any()  # co-invested deals, once per investor
    service = client.private.aggregate("valuation", "none", investor_id=investors)
    with pytest.warns(dealframe.DealframeWarning, match=r"repeated deal ids: \d+ among") as said:
        as_rows = bucket_medians(rows, "valuation", "none", client=client)
    assert 'drop_duplicates("id")' in str(said[0].message)
    assert int(as_rows.loc[0, "n"]) > int(service.loc[0, "n"])  # why it is said
    with warnings.catch_warnings():
        warnings.simplefilter("error", dealframe.DealframeWarning)
        deduplicated = bucket_medians(
            rows.drop_duplicates("id"), "valuation", "none", client=client
        )
    for stat in ("n", "median", "q1", "q3"):
        assert deduplicated.loc[0, stat] == pytest.approx(service.loc[0, stat], rel=1e-9)
    assert deduplicated.attrs["total_deals"] == service.attrs["total_deals"]


def test_calibrate_says_the_anchor_is_not_tested_when_both_anchors_start_alike(client):
    """By month, a date_to on the first of a month gives a default start on the first of a
    month: both anchors give it, and the answer cannot tell them apart."""
    anchors = [Conventions(), Conventions(window_anchor="period_start")]
    table = calibrate(client, "ev_revenue", "month", {"date_to": "2024-03-01"}, variants=anchors)
    assert table["reproduces"].all()
    assert table.attrs["untested"][0] == "window_anchor"


def _years_earlier(day: str, years: int) -> str:
    end = dt.date.fromisoformat(day)
    return end.replace(year=end.year - years).isoformat()  # not 29 February: see the test


def test_calibrate_takes_the_window_length_the_service_reports(sandbox, client):
    """A service whose default window is 3 years (meta.methodology.default_date_range_years 3,
    its date_range 3 years long): every variant is tested against it, the defaults reproduce
    it, and the table says the service's length."""
    end = client.private.aggregate("ev_revenue", "quarter").attrs["date_range"]["to"]
    assert end[5:] != "02-29"
    start = _years_earlier(end, 3)

    def three_years_by_default(ex):  # as a service of 3 years computes its default window
        filters = ex.body.setdefault("filters", {})
        filters.setdefault("date_from", start)
        ex.raw_body = orjson.dumps(ex.body)

    def says_three_years(doc):
        doc["meta"]["methodology"]["default_date_range_years"] = 3
        return doc

    with Proxy(sandbox.url) as proxy:
        proxy.add(
            f"^{P}/transactions/aggregate$",
            Action("3-year default window", on_request=three_years_by_default),
            edit(says_three_years, "default_date_range_years 3"),
            method="POST",
        )
        with dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as three:
            anchors = [Conventions(), Conventions(window_anchor="period_start")]
            table = calibrate(three, "ev_revenue", "quarter", variants=anchors)
    assert table.attrs["best"] is not None
    assert table.attrs["best"]["window_years"] == 3
    assert table.attrs["best"]["window_anchor"] == "date_to"
    assert table["window_years"].tolist() == [3, 3]
    assert table.set_index("window_anchor").loc["date_to", "reproduces"]


def test_calibrate_says_a_window_length_no_window_can_take_and_tests_its_own(sandbox, client):
    """A meta saying ``default_date_range_years: 3000`` (a window starting before year 1):
    said as the service's, and the variants' own length tested; it raised a ValidationError
    naming ``date_to``, an argument the user never gave."""

    def says_3000_years(doc):
        doc["meta"]["methodology"]["default_date_range_years"] = 3000
        return doc

    with Proxy(sandbox.url) as proxy:
        proxy.add(
            f"^{P}/transactions/aggregate$",
            edit(says_3000_years, "default_date_range_years 3000"),
            method="POST",
        )
        with dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as odd:
            with pytest.warns(ServiceContractWarning, match="default_date_range_years is 3000"):
                table = calibrate(odd, "ev_revenue", "quarter", variants=[Conventions()])
    assert table["window_years"].tolist() == [Conventions().window_years]
    assert table["buckets_matched"].iloc[0] == table["buckets"].iloc[0] > 0


def test_deals_of_a_csv_export_concatenated_with_the_clients_are_read(client):
    """A CSV export read back (dates as text) concatenated with deals of the client
    (datetime64): one object column of text and Timestamps, read value by value."""
    service = client.private.aggregate("valuation", "year")
    window = service.attrs["date_range"]
    deals = client.private.deals(date_from=window["from"], date_to=window["to"])
    half = len(deals) // 2
    exported = pd.read_csv(io.StringIO(deals.iloc[:half].to_csv(index=False)))
    assert exported["deal_date"].dtype != "datetime64[us]"  # text, as read_csv leaves it
    mixed = pd.concat([exported, deals.iloc[half:]], ignore_index=True)
    assert mixed["deal_date"].dtype == object
    local = bucket_medians(mixed, "valuation", "year", client=client)
    reference = bucket_medians(deals, "valuation", "year", client=client)
    assert local["n"].tolist() == reference["n"].tolist()
    assert local["n"].sum() > 0
    pd.testing.assert_series_equal(local["median"], reference["median"])
