"""A filter given both in the raw ``filters`` dict and as a keyword must agree.

``client.private.deals(filters={"deal_type": ["M&A"]}, deal_type=["Venture"])`` returned
Venture rows without a word: the keyword silently won. Two different values of one filter is
a slip the client cannot settle: refused before any request, naming both. The same value
given twice is taken.
"""

from __future__ import annotations

from typing import Any

import pytest

import dealframe
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


CONFLICTS = [
    ("deals", {"deal_type": ["M&A"]}, {"deal_type": ["Venture"]}),
    ("companies", {"country": ["USA"]}, {"country": ["GBR"]}),
    ("investors", {"name": "acme"}, {"name": "globex"}),
]


@pytest.mark.parametrize(("method", "raw", "named"), CONFLICTS)
def test_a_conflicting_filter_is_refused_before_any_request(client, method, raw, named):
    (key,) = named
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=rf"filters\['{key}'\].*\b{key}\b") as info:
        getattr(client.private, method)(filters=raw, limit=1, **named)
    assert repr(raw[key]) in str(info.value) and repr(named[key]) in str(info.value)
    assert client.stats.snapshot()["calls"] == before


def test_aggregate_refuses_a_conflicting_filter_too(client):
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=r"filters\['deal_type'\].*deal_type"):
        client.private.aggregate(
            "valuation", "year", filters={"deal_type": ["M&A"]}, deal_type=["Venture"]
        )
    assert client.stats.snapshot()["calls"] == before


def test_the_same_value_given_twice_is_taken(client):
    both = client.private.deals(filters={"deal_type": ["M&A"]}, deal_type=("M&A",), limit=5)
    assert set(both["deal_type"].astype(str)) == {"M&A"}
    assert both.attrs["filters"]["deal_type"] == ["M&A"]
    gen = client.private.deals(filters={"deal_type": iter(["M&A"])}, deal_type=["M&A"], limit=5)
    assert gen["id"].tolist() == both["id"].tolist()


def test_a_none_in_the_dict_is_no_value(client):
    got = client.private.deals(filters={"deal_type": None}, deal_type=["Venture"], limit=5)
    assert set(got["deal_type"].astype(str)) == {"Venture"}
