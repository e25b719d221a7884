"""Functions given a client check every argument before their first request (issue 13):
``mirror.snapshot_public(client, path, skus=5)`` was Python's ``TypeError`` from ``list(5)``
(``fields=5`` was refused only after the current data had been fetched), and
``bucket_medians(..., client=client, rng="seed")`` asked the service and returned, the seed
unused and unchecked, while ``ci_resamples=1`` was refused."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("deltalake")

import dealframe
from dealframe import mirror
from dealframe.analytics import bucket_medians
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as c:
        yield c


@pytest.mark.parametrize("skus", [5, 1.5, [5], [None], {"ACME-USA": 1}, b"ACME-USA"])
def test_snapshot_public_refuses_skus_it_cannot_use_before_any_request(
    client: Any, tmp_path: Any, skus: Any
) -> None:
    before = client.stats.calls
    with pytest.raises(ValidationError) as caught:
        mirror.snapshot_public(client, tmp_path / "m", skus=skus)
    assert caught.value.argument.startswith("skus"), str(caught.value)
    assert client.stats.calls == before
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("fields", [5, [5], {"evRevenueLtm": 1}])
def test_snapshot_public_refuses_fields_it_cannot_use_before_any_request(
    client: Any, tmp_path: Any, fields: Any
) -> None:
    skus = list(client.public.search(regions=["Western Europe"]).index[:2])
    before = client.stats.calls
    with pytest.raises(ValidationError) as caught:
        mirror.snapshot_public(client, tmp_path / "m", skus=skus, fields=fields)
    assert caught.value.argument.startswith("fields"), str(caught.value)
    assert client.stats.calls == before


def test_snapshot_public_still_takes_one_sku_as_a_string(client: Any, tmp_path: Any) -> None:
    [sku] = list(client.public.search(regions=["Western Europe"]).index[:1])
    done = mirror.snapshot_public(client, tmp_path / "m", skus=sku, fields=["evRevenueLtm"])
    assert done["companies"] == 1


@pytest.mark.parametrize("rng", ["seed", object(), True])
def test_bucket_medians_checks_rng_before_asking_the_service(client: Any, rng: Any) -> None:
    deals = client.private.deals(limit=200)
    before = client.stats.calls
    with pytest.raises(ValidationError) as caught:
        bucket_medians(deals, "ev_revenue", client=client, rng=rng)
    assert caught.value.argument == "rng"
    assert client.stats.calls == before  # refused before the methodology request
    assert len(bucket_medians(deals, "ev_revenue", client=client, rng=7))
