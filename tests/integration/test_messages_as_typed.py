"""Error messages name what the user typed and what the user got wrong, over HTTP against the
sandbox: a ``service`` frame without its attrs is the user's frame, not the service's answer;
a group call without a filter names the missing filters, not a Python dict; a call error names
``client.public.search`` (``client.public_v1``, ``client.private``), not an internal class; a
region typo is worded and typed alike in the public and the private families; a ``strict``
sub-collection miss says "company ids" and why the ids did not come back."""

from __future__ import annotations

import pandas as pd
import pytest

import dealframe
from dealframe.analytics import reconcile_frames, reconcile_groups
from dealframe.client import Client
from dealframe.errors import (
    CallError,
    IncompleteResultError,
    ServiceContractError,
    UnknownArgumentError,
    ValidationError,
)
from dealframe.private.filters import EnumValueError

MISSING = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def client(sandbox):
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def calls(client: Client) -> int:
    return client.stats.snapshot()["calls"]


def test_reconcile_frames_blames_a_frame_without_attrs_not_the_service(client):
    deals = client.private.deals(deal_type=["Venture"], limit=50)
    service = client.private.aggregate("ev_revenue", "quarter", deal_type=["Venture"])
    rebuilt = pd.DataFrame(service.to_dict("list"))  # what a frame read back from CSV is
    for frame in (rebuilt, pd.DataFrame()):
        with pytest.raises(ValidationError) as info:
            reconcile_frames(frame, deals, "ev_revenue")
        assert not isinstance(info.value, ServiceContractError)
        assert info.value.argument == "service"
        message = str(info.value)
        assert message.startswith("invalid service: expected the frame client.private.aggregate")
        assert "attrs['methodology']" in message and "pass the aggregate frame itself" in message
        assert "200" not in message and "POST" not in message and "None" not in message
    assert "columns: bucket" in str(_refusal(rebuilt, deals))
    reconcile_frames(service, deals, "ev_revenue")  # the frame itself is read


def _refusal(service: pd.DataFrame, deals: pd.DataFrame) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        reconcile_frames(service, deals, "ev_revenue")
    return info.value


@pytest.mark.parametrize(
    ("call", "caller"),
    [
        (lambda c: c.public.group_current(), "group_current"),
        (lambda c: c.public_v1.group_time_series(enterprise_value_above=1), "group_time_series"),
        (lambda c: reconcile_groups(c), "reconcile_groups"),
    ],
)
def test_a_group_without_filter_names_the_filters_not_a_dict(client, call, caller):
    before = calls(client)
    with pytest.raises(ValidationError) as info:
        call(client)
    assert calls(client) == before
    assert info.value.argument == "filters"
    assert str(info.value) == (
        "invalid filters: expected at least one non-empty filter among industries, themes, "
        f"regions, countries for {caller} (a group is the companies they match), got none"
    )


def test_call_errors_name_the_call_as_typed(client):
    before = calls(client)
    with pytest.raises(CallError) as info:
        client.public.search("Western Europe")
    assert info.value.function == "client.public.search"
    assert str(info.value) == (
        "invalid arguments: expected those of client.public.search (keyword arguments only: "
        "industries=..., themes=..., regions=..., ...; got 1 positional argument)"
    )
    with pytest.raises(UnknownArgumentError) as info:
        client.public_v1.search(region=["Western Europe"])
    assert str(info.value) == (
        "invalid region: expected a keyword of client.public_v1.search "
        "(did you mean 'regions'?); valid: cache, countries, enterprise_value_above, "
        "industries, refresh, regions, strict, themes, got 'region'"
    )
    with pytest.raises(UnknownArgumentError, match=r"a keyword of client\.private\.companies "):
        client.private.companies(contry=["GBR"])
    with pytest.raises(CallError, match=r"^invalid arguments: expected those of client\.private"):
        client.private.aggregate()
    assert "PublicApi" not in str(info.value)
    assert calls(client) == before


def test_a_region_typo_is_one_error_in_both_families(client):
    regions = ", ".join(dealframe._vocab.REGIONS)
    with pytest.raises(EnumValueError) as public:
        client.public.search(regions=["Westen Europe"])
    assert str(public.value) == (
        f"invalid regions[0]: expected one of {regions} (did you mean 'Western Europe'?), "
        "got 'Westen Europe'"
    )
    with pytest.raises(EnumValueError, match=r"^invalid regions\[0\]: expected one of Africa"):
        client.public.group_current(regions=["Mars"])
    with pytest.raises(EnumValueError, match=r"\(did you mean 'Western Europe'\?\), got"):
        client.private.companies(region=["Westen Europe"])


@pytest.mark.parametrize(
    ("method", "noun"),
    [("company_investors", "company"), ("fundings", "company"), ("investments", "investor")],
)
def test_a_strict_sub_collection_miss_says_which_ids_and_why(client, method, noun):
    with pytest.raises(IncompleteResultError) as info:
        getattr(client.private, method)([MISSING], strict=True)
    assert str(info.value).startswith(
        f"incomplete result: received 0 of 1 {noun} ids (answered 404: no such id, "
        "soft-deleted, or no items, as some services answer); 1 failed"
    )
    assert MISSING in str(info.value)
