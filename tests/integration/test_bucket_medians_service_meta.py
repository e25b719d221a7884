"""bucket_medians and calibrate say what the service's aggregate says, over HTTP.

The window (``attrs["date_range"]``, as ``client.private.aggregate``'s), the default window's
anchor (``calibrate`` compares it with the service's ``date_range.from``), and deals counted
once (a frame of ``investments()`` of several investors repeats co-invested deals).
"""

import warnings

import pytest

import dealframe
from dealframe.analytics import Conventions, bucket_medians
from dealframe.analytics.reconcile import calibrate


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
    assert table.attrs["untested"] == []


def test_calibrate_says_the_anchor_is_not_tested_with_a_date_from(client):
    anchors = [Conventions(), Conventions(window_anchor="period_start")]
    table = calibrate(client, "ev_revenue", "year", {"date_from": "2022-01-01"}, variants=anchors)
    assert table["reproduces"].all()
    assert table.attrs["untested"] == ["window_anchor"]


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
