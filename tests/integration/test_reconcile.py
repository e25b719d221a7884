"""Local analytics equal the sandbox's own aggregates (two independent implementations)."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import dealframe
import dealframe.analytics
import dealframe.sandbox
from dealframe._vocab import AGGREGATE_METRICS, TIME_BUCKETS
from dealframe.analytics import DEFAULT_CONVENTIONS, Conventions
from dealframe.analytics.reconcile import calibrate, compare_buckets, reconcile, reconcile_groups
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def client(sandbox, tmp_path_factory):
    # The cache lets the same deal pull serve every metric and bucket of one cohort.
    path = tmp_path_factory.mktemp("cache") / "http.sqlite"
    with dealframe.Client.for_sandbox(
        sandbox, cache_enabled=True, cache_path=path, progress=False
    ) as c:
        yield c


@pytest.fixture(scope="module")
def remembering(sandbox, tmp_path_factory):
    """A client whose deal pulls are remembered by their arguments (a copy each time): every
    metric and bucket of one cohort reconciles against the same deals. The pull itself is
    tested in test_client_private.py; what is tested here is the arithmetic on both sides."""
    path = tmp_path_factory.mktemp("cache") / "http.sqlite"
    client = dealframe.Client.for_sandbox(
        sandbox, cache_enabled=True, cache_path=path, progress=False
    )
    pulls: dict[str, pd.DataFrame] = {}
    real = client.private.deals

    def deals(*args, **kwargs):
        key = repr((args, sorted(kwargs.items())))
        if key not in pulls:
            pulls[key] = real(*args, **kwargs)
        return pulls[key].copy()

    with client, pytest.MonkeyPatch.context() as mp:
        mp.setattr(client.private, "deals", deals)
        yield client


@pytest.fixture(scope="module")
def tiny_cohort(sandbox):
    deals = sandbox.state.dataset.deals
    counts, with_multiple = {}, set()
    for d in deals:
        if not d["deleted"]:
            counts[d["target_index"]] = counts.get(d["target_index"], 0) + 1
            if d["deal_multiples"]["ev_revenue"] is not None:
                with_multiple.add(d["target_index"])
    target = next(t for t, n in counts.items() if 2 <= n < 5 and t in with_multiple)
    return {"target_id": [sandbox.state.dataset.orgs[target]["id"]]}


COHORTS = {
    "all": {},
    "region": {"target_region": ["Western Europe", "Northern Europe"]},
    "deal_type": {"deal_type": ["Venture", "Growth"]},
    "window": {"date_from": "2016-02-29", "date_to": "2019-08-15"},
    "empty": {"target_country": ["ATA"]},
}


@pytest.mark.parametrize("cohort", [*COHORTS, "tiny"])
@pytest.mark.parametrize("metric", AGGREGATE_METRICS)
def test_local_equals_service_for_every_bucket(remembering, tiny_cohort, cohort, metric):
    filters = tiny_cohort if cohort == "tiny" else COHORTS[cohort]
    for bucket in TIME_BUCKETS:
        rec = reconcile(remembering, metric, bucket, filters)
        frame = rec.frame
        assert len(frame) > 0
        assert frame["match"].all(), rec.summary + "\n" + frame[~frame["match"]].to_string()
        assert frame.attrs["meta_matches"], rec.summary
        for stat in ("n", "median", "q1", "q3"):
            diff = frame[f"{stat}_diff"].to_numpy(dtype=float, na_value=np.nan)
            assert np.nanmax(np.abs(diff), initial=0.0) <= 1e-9
        service, local = frame.attrs["service_meta"], frame.attrs["local_meta"]
        assert service["total_deals"] == local["total_deals"]
        assert service["outliers_trimmed"] == local["outliers_trimmed"]
        if cohort == "empty":
            assert service["total_deals"] == 0 and (frame["n_service"] == 0).all()
        if cohort == "tiny":
            assert (frame["n_service"] < 5).all()


def test_summary_counts_buckets(client):
    rec = reconcile(client, "ev_revenue", "year")
    assert rec.summary.startswith(
        f"ev_revenue by year: {len(rec.frame):,} of {len(rec.frame):,} buckets match"
    )


def test_a_different_convention_is_detected(client):
    # Trimming over the whole window changes some quartiles: the comparison must notice.
    other = Conventions(trim_scope="window", stats_on="all")
    rec = reconcile(client, "ev_revenue", "quarter", conventions=other)
    assert not rec.frame["match"].all()


def test_compare_buckets_flags_differences():
    import pandas as pd

    service = pd.DataFrame(
        {
            "bucket": ["a", "b"],
            "n": [5, 6],
            "median": [1.0, np.nan],
            "q1": [0.5, np.nan],
            "q3": [2.0, np.nan],
        }
    )
    local = service.copy()
    local.loc[0, "median"] = 1.0 + 1e-6
    out = compare_buckets(service, local)
    assert out["match"].tolist() == [False, True]
    assert out.loc[0, "median_diff"] == pytest.approx(1e-6)


def test_calibrate_identifies_the_sandbox_conventions(client, tmp_path):
    variants = list(itertools.islice(Conventions.variants(), 60))
    table = calibrate(client, "ev_revenue", "quarter", variants=variants)
    assert Conventions(**table.attrs["best"]) == DEFAULT_CONVENTIONS
    table.to_parquet(tmp_path / "calibrate.parquet")  # attrs are JSON
    assert pd.read_parquet(tmp_path / "calibrate.parquet").attrs["best"] == table.attrs["best"]
    assert table.loc[0, "reproduces"]
    # Variants changing what is counted or trimmed must not reproduce the service.
    wrong = table[(table["n_counted"] == "after") | (table["stats_on"] == "all")]
    assert len(wrong) and not wrong["reproduces"].any()


def test_every_frame_analytics_returns_has_json_attrs(client):
    """attrs are written into Parquet as JSON: no object of ours may sit in them."""
    filters = {"deal_type": ["Venture"]}
    rec = reconcile(client, "ev_revenue", "year", filters)
    cur, ts = reconcile_groups(client, regions=["Western Europe"])
    deals = client.private.deals(filters)
    current = client.public.current(client.public.search(regions=["Western Europe"]).index)
    frames = {
        "reconcile": rec.frame,
        "reconcile_groups": cur.frame,
        "reconcile_groups series": ts.frame,
        "bucket_medians": dealframe.analytics.bucket_medians(
            deals, "ev_revenue", "year", "2022-01-01", "2024-12-31", ci=0.9, ci_resamples=99, rng=0
        ),
        "group_current": dealframe.analytics.group_current(current),
    }
    for name, frame in frames.items():
        assert json.dumps(frame.attrs), name  # TypeError if not JSON


@pytest.mark.parametrize(
    "group",
    [
        {"regions": ["Western Europe"]},
        {"countries": ["USA", "CAN"]},
        {"industries": ["Fintech"], "enterprise_value_above": 500},
    ],
)
def test_group_rollups_equal_the_service(client, group):
    cur, ts = reconcile_groups(client, **group)
    assert len(cur.frame) > 0 and cur.frame["match"].all(), cur.frame[~cur.frame["match"]]
    # the medians of *Lcu fields, rateToUsd and the numeric extras are compared too
    for field in ("marketCapLcu", "revenueNtmLcu", "rateToUsd", "employeeCount"):
        row = cur.frame.loc[field]
        assert np.isfinite(row["median_service"]) and row["median_local"] == pytest.approx(
            row["median_service"], rel=1e-12
        ), field
        assert np.isnan(row["sum_service"]) and np.isnan(row["sum_local"]), field
    assert len(ts.frame) > 0 and ts.frame["match"].all(), ts.frame[~ts.frame["match"]]


def test_group_current_rows_come_in_the_services_order(client):
    group = {"regions": ["Western Europe"]}
    service = client.public.group_current(**group)
    local = dealframe.analytics.group_current(
        client.public.current(client.public.search(**group).index)
    )
    assert local.index.tolist() == service.index.tolist()
    pd.testing.assert_frame_equal(local, service, check_exact=False, rtol=1e-12)


def test_group_time_series_frame_is_the_services(client):
    """The local rollup of the members' series is the service's group frame, axis names too;
    so reconcile_groups gives one index layout whether or not the group has companies."""
    group, window = {"regions": ["Western Europe"]}, {"date_from": "2024-01", "date_to": "2024-06"}
    kw = {"fields": ["evRevenueLtm", "marginEbitdaLtm"], **window}
    service = client.public.group_time_series(**group, **kw)
    members = client.public.search(**group).index
    local = dealframe.analytics.group_time_series(client.public.time_series(members, **kw))
    assert len(service) > 0
    pd.testing.assert_frame_equal(local, service, check_exact=False, rtol=1e-12)
    full = reconcile_groups(client, **group, **kw)[1].frame
    empty = reconcile_groups(client, **group, enterprise_value_above=1e12, **kw)[1].frame
    assert full["service"].notna().any() and empty["service"].isna().all()
    assert full.index.names == empty.index.names == ["month", "field"]


@pytest.mark.parametrize(
    "bad",
    [{"date_from": "2024-13"}, {"fields": [""]}, {"date_from": "2025-06", "date_to": "2024-01"}],
)
def test_reconcile_groups_refuses_bad_series_arguments_before_any_request(client, bad):
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=next(iter(bad))):
        reconcile_groups(client, regions=["Oceania"], **bad)
    assert client.stats.snapshot()["calls"] == before


def test_bucket_medians_asks_the_service_for_threshold_and_date(client):
    # Rule 9: the runtime threshold is authoritative; the window ends at the service's date.
    deals = client.private.deals(deal_type=["Venture"])
    with_client = dealframe.analytics.bucket_medians(deals, "ev_revenue", "year", client=client)
    service = client.private.aggregate("ev_revenue", "year", deal_type=["Venture"])
    assert (
        with_client.attrs["methodology"]["small_n_threshold"]
        == service.attrs["methodology"]["small_n_threshold"]
    )
    assert (
        with_client.attrs["methodology"]["date_range"] == service.attrs["methodology"]["date_range"]
    )
    assert compare_buckets(service, with_client)["match"].all()


@pytest.mark.parametrize(
    ("bucket", "relabel"),
    [
        ("quarter", lambda label: f"Q{label[-1]} {label[:4]}"),  # 2024-Q1 -> Q1 2024
        ("quarter", lambda label: label.replace("-", "")),  # 2024-Q1 -> 2024Q1
        ("month", lambda label: f"{label}-01"),  # 2024-01 -> 2024-01-01
    ],
)
def test_a_service_labelling_buckets_otherwise_still_reconciles(client, bucket, relabel):
    # Issue 14: the label format is an open point; buckets are matched by period_start.
    service = client.private.aggregate("ev_revenue", bucket, deal_type=["Venture"])
    window = service.attrs["methodology"]["date_range"]
    deals = client.private.deals(
        deal_type=["Venture"], date_from=window["from"], date_to=window["to"]
    )
    local = dealframe.analytics.bucket_medians(
        deals,
        "ev_revenue",
        bucket,
        window["from"],
        window["to"],
        small_n_threshold=service.attrs["methodology"]["small_n_threshold"],
    )
    relabelled = service.assign(bucket=service["bucket"].map(relabel))
    frame = compare_buckets(relabelled, local)
    assert len(frame) == len(service) and frame["match"].all()
    assert frame["bucket"].tolist() == relabelled["bucket"].tolist()
    # matching by label alone would have paired nothing
    by_label = compare_buckets(relabelled.drop(columns=["period_start"]), local)
    assert len(by_label) == 2 * len(service) and not by_label["match"].any()


def test_buckets_a_service_leaves_out_as_suppressed_still_reconcile():
    """ "Suppressed" may mean left out of the answer (the small-n-omitted profile): the
    aggregate says which buckets and how many deals, without a count warning, and reconcile
    counts them as matching where the local count is below the threshold too."""
    filters = {"target_country": ["FRA"]}
    with (
        dealframe.sandbox.run(scale=0.1, profile="small-n-omitted") as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as omitting,
        dealframe.sandbox.run(scale=0.1) as sb_default,
        dealframe.Client.for_sandbox(sb_default, progress=False) as default,
    ):
        full = default.private.aggregate("raised", "month", filters, strict=True)
        cut = omitting.private.aggregate("raised", "month", filters, strict=True)
        small = full["warning"] == "small_n"
        assert small.any() and cut.attrs["buckets_left_out"] == full.loc[small, "bucket"].tolist()
        assert cut.attrs["deals_left_out"] == int(full.loc[small, "n"].sum())
        assert full.attrs["deals_left_out"] == 0
        rec = reconcile(omitting, "raised", "month", filters)
    assert rec.frame["match"].all() and rec.frame.attrs["left_out_by_service"] == small.sum()
    assert "left out by the service" in rec.summary


def test_a_whole_window_bucket_left_out_as_suppressed_is_said_and_reconciles():
    """time_bucket="none" has one bucket, "all": a service that leaves it out (fewer deals than
    the threshold) answers no row; the client says so, without a count warning."""
    filters = {  # a window with fewer deals than the threshold at scale 0.1
        "target_region": ["Western Europe"],
        "date_from": "2025-01-01",
        "date_to": "2025-06-30",
    }
    with (
        dealframe.sandbox.run(scale=0.1, profile="small-n-omitted") as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as omitting,
    ):
        cut = omitting.private.aggregate("ev_ebitda", "none", filters, strict=True)
        assert len(cut) == 0 and 0 < cut.attrs["total_deals"] < 5, "one small bucket left out"
        assert cut.attrs["buckets_left_out"] == ["all"]
        assert cut.attrs["deals_left_out"] == cut.attrs["total_deals"]
        rec = reconcile(omitting, "ev_ebitda", "none", filters)
        deals = omitting.private.deals(filters)
    assert rec.frame["bucket"].tolist() == ["all"] and rec.frame["match"].all()
    assert rec.frame.attrs["left_out_by_service"] == 1
    # reconcile_frames is reconcile on frames already pulled
    again = dealframe.analytics.reconcile_frames(cut, deals, "ev_ebitda", "none")
    pd.testing.assert_frame_equal(again.frame, rec.frame)
    assert again.summary == rec.summary
