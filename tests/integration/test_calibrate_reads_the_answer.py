"""``calibrate`` takes from the service's answer what the answer shows: whether small-n buckets
are returned or left out (``suppressed``) and whether empty buckets are (``empty``).

``Conventions.variants`` varies only what an answer cannot show, and says the rest is taken
from ``base``; calibrate used to take only ``window_years`` from the answer, so against a
service that leaves small buckets out (the ``small-n-omitted`` profile) or returns no empty
bucket (``empty_buckets_returned`` false, through the drift proxy) its ``best`` kept the
defaults: passed as ``conventions=``, as docs/aggregates.md says to, it gave rows the service
does not.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    edit,
    fresh_rules,
    proxy,
)

import dealframe
import dealframe.sandbox
from dealframe.analytics import Conventions, bucket_medians, calibrate

AGGREGATE = "^/api/private/v1/transactions/aggregate$"
FILTERS = {"target_country": ["FRA"]}
VARIANTS = list(Conventions.variants(max_changes=1))


def _local_buckets(client: dealframe.Client, metric: str, bucket: str, best: dict) -> list[str]:
    """The buckets ``bucket_medians`` gives under the calibrated conventions, over the service's
    own window and threshold (what a user does next)."""
    service = client.private.aggregate(metric, bucket, FILTERS)
    window = service.attrs["methodology"]["date_range"]
    deals = client.private.deals({**FILTERS, "date_from": window["from"], "date_to": window["to"]})
    local = bucket_medians(
        deals,
        metric,
        bucket,
        window["from"],
        window["to"],
        small_n_threshold=service.attrs["methodology"]["small_n_threshold"],
        conventions=Conventions(**best),
    )
    return local["bucket"].tolist()


def test_a_service_leaving_small_buckets_out_calibrates_to_drop():
    with (
        dealframe.sandbox.run(scale=0.1, profile="small-n-omitted") as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as omitting,
    ):
        service = omitting.private.aggregate("raised", "month", FILTERS)
        assert service.attrs["deals_left_out"] > 0, "small buckets must be left out"
        table = calibrate(omitting, "raised", "month", FILTERS, variants=VARIANTS)
        best = table.attrs["best"]
        assert best is not None and best["suppressed"] == "drop"
        assert (table["suppressed"] == "drop").all()  # every variant takes it
        assert "suppressed" not in table.attrs["untested"]
        assert _local_buckets(omitting, "raised", "month", best) == service["bucket"].tolist()


def test_the_default_sandbox_calibrates_to_its_own_conventions(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        table = calibrate(client, "raised", "month", FILTERS, variants=VARIANTS)
        service = client.private.aggregate("raised", "month", FILTERS)
    assert (service["warning"] == "small_n").any() and (service["n"] == 0).any()
    assert Conventions(**table.attrs["best"]) == Conventions()
    assert table.attrs["untested"] == []


def _no_empty_buckets(doc: Any) -> Any:
    """The answer of a service that returns no empty bucket, and says so."""
    doc["data"] = [b for b in doc["data"] if b["n"] > 0]
    doc["meta"]["methodology"]["empty_buckets_returned"] = False
    return doc


@pytest.fixture
def through(sandbox: Any, proxy: Proxy) -> Iterator[dealframe.Client]:
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def test_a_service_returning_no_empty_bucket_calibrates_to_drop(through, proxy):
    proxy.add(AGGREGATE, edit(_no_empty_buckets, "no empty buckets"))
    service = through.private.aggregate("raised", "month", FILTERS)
    assert service.attrs["buckets_left_out"], "empty months must be left out"
    table = calibrate(through, "raised", "month", FILTERS, variants=VARIANTS)
    best = table.attrs["best"]
    assert best is not None and best["empty"] == "drop" and best["suppressed"] == "null_stats"
    assert table.attrs["untested"] == []
    assert _local_buckets(through, "raised", "month", best) == service["bucket"].tolist()


def test_an_answer_that_cannot_tell_says_so(through, proxy):
    # no small bucket, no empty one, and no empty_buckets_returned: neither can be read
    def untold(doc: Any) -> Any:
        doc["data"] = [b for b in doc["data"] if b["n"] >= 5]
        doc["meta"]["total_deals"] = sum(b["n"] for b in doc["data"])
        del doc["meta"]["methodology"]["empty_buckets_returned"]
        return doc

    proxy.add(AGGREGATE, edit(untold, "untold"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the missing flag is a finding: not what is tested
        table = calibrate(through, "raised", "year", FILTERS, variants=VARIANTS)
    assert set(table.attrs["untested"]) >= {"suppressed", "empty"}
