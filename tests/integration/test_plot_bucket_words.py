"""``quarterly_medians`` says what it was given: month or year buckets are titled, labelled and
described per month or per year (never "per quarter"), and one bucket over the whole window is
refused. Frames come from the session sandbox over real HTTP."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

import dealframe
import dealframe.plot as dplot
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def frames(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        buckets = {
            kind: client.private.aggregate("ev_revenue", kind)  # every deal: months with n
            for kind in ("month", "quarter", "year", "none")
        }
    return {"buckets": buckets}


def _described(ax) -> str:
    return " | ".join([ax.get_title(loc="left"), ax.get_xlabel(), dplot.alt_text(ax)])


@pytest.mark.parametrize("kind", ["month", "quarter", "year"])
def test_quarterly_medians_names_the_buckets_it_draws(frames, kind):
    buckets = frames["buckets"][kind]
    assert buckets.attrs["time_bucket"] == kind and len(buckets) > 1
    assert buckets["median"].notna().sum() > 1
    _, ax = dplot.figure()
    dplot.quarterly_medians(buckets, ax=ax)
    title, alt = ax.get_title(loc="left"), dplot.alt_text(ax)
    assert title.startswith(f"Median EV/Revenue per {kind}, n = ")
    assert ax.get_xlabel() == kind
    assert f"of deals per {kind} from {buckets['bucket'].iloc[0]} to " in alt
    assert f"Latest {kind} with a median" in alt
    others = {"month", "quarter", "year"} - {kind}
    said = _described(ax).lower()
    assert not any(other in said for other in others), said
    # the service's default window starts and ends inside a bucket: the partial edge is named
    # with the bucket's own word
    assert f"Partial {kind}s: " in alt


def test_month_and_year_labels_alone_tell_the_bucket(frames):
    """A bucket frame whose attrs were lost (read back from a file) is named by its labels."""
    for kind in ("month", "year"):
        bare = frames["buckets"][kind].copy()
        bare.attrs = {"metric": "ev_revenue"}
        _, ax = dplot.figure()
        dplot.quarterly_medians(bare, ax=ax)
        assert ax.get_xlabel() == kind
        assert "quarter" not in _described(ax).lower()


def test_one_bucket_over_the_whole_window_is_refused_not_drawn_as_a_quarter(frames):
    whole = frames["buckets"]["none"]
    assert whole["bucket"].tolist() == ["all"]
    with pytest.raises(ValidationError) as caught:
        dplot.quarterly_medians(whole)
    assert caught.value.argument == "buckets"
    assert "month, quarter or year" in str(caught.value) and "'none'" in str(caught.value)
