"""``mirror.snapshot_public`` refuses a misspelled time-series field before any request, as
``client.public.time_series`` does (docs/mirror.md, "snapshot_public"): the name that spells a
documented field another way (``evrevenueltm`` for ``evRevenueLtm``) was refused only at the
time-series call, after the universe's current data had been fetched.
"""

from __future__ import annotations

import pytest

pytest.importorskip("deltalake")

import dealframe
from dealframe import mirror
from dealframe.errors import BadRequestError, ValidationError


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as c:
        yield c


@pytest.fixture(scope="module")
def sku(client) -> str:
    return str(client.public.search(regions=["Western Europe"]).index[0])


@pytest.mark.parametrize("field", ["evrevenueltm", "ev_revenue_ltm", "EvRevenueLtm"])
def test_a_misspelled_field_is_refused_before_any_request(client, sku, tmp_path, field) -> None:
    before = client.stats.calls
    with pytest.raises(ValidationError) as by_client:
        client.public.time_series([sku], fields=["evRevenueNtm", field])
    assert client.stats.calls == before
    path = tmp_path / "m"
    with pytest.raises(ValidationError) as by_mirror:
        mirror.snapshot_public(client, path, skus=[sku], fields=["evRevenueNtm", field])
    assert client.stats.calls == before, "a request was made before the field was refused"
    assert str(by_mirror.value) == str(by_client.value)
    assert by_mirror.value.argument == "fields[1]"
    assert not path.exists()


def test_a_search_universe_is_not_searched_for_a_misspelled_field(client, tmp_path) -> None:
    before = client.stats.calls
    with pytest.raises(ValidationError, match="evRevenueLtm"):
        mirror.snapshot_public(
            client, tmp_path / "m", regions=["Western Europe"], fields=["evrevenueltm"]
        )
    assert client.stats.calls == before


def test_fields_spelled_as_documented_are_fetched(client, sku, tmp_path) -> None:
    report = mirror.snapshot_public(client, tmp_path / "m", skus=[sku], fields=["evRevenueLtm"])
    assert report["companies"] == 1 and report["time_series_rows"] > 0


def test_a_spelling_the_client_saw_served_is_sent_by_both(sandbox, tmp_path) -> None:
    # a fresh client of its own: what it has seen served is its own; once seen, the spelling is
    # the service's to judge (the sandbox refuses it with a 400), for time_series and the mirror
    with dealframe.Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as own:
        sku = str(own.public.search(regions=["Western Europe"]).index[0])
        own.public.served_fields.add(["ev_revenue_ltm"])  # as if an answer had held it
        before = own.stats.calls
        with pytest.raises(BadRequestError, match="ev_revenue_ltm"):
            own.public.time_series([sku], fields=["ev_revenue_ltm"])
        assert own.stats.calls > before  # sent
        sent = own.stats.calls
        with pytest.raises(BadRequestError, match="ev_revenue_ltm"):
            mirror.snapshot_public(own, tmp_path / "m", skus=[sku], fields=["ev_revenue_ltm"])
        assert own.stats.calls > sent  # sent too, not refused before the requests
