"""A filter given both in the raw ``filters`` dict and as a keyword must agree.

``client.private.deals(filters={"deal_type": ["M&A"]}, deal_type=["Venture"])`` returned
Venture rows without a word: the keyword silently won. Two different values of one filter is
a slip the client cannot settle: refused before any request, naming both. The same value
given twice is taken.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import numpy as np
import pandas as pd
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


# The same value written in two forms: each side alone sends the same filter, so the two are
# one value (compared as sent, an ``in`` list's values in any order), not a conflict.
SAME_AS_SENT = [
    ("a code and a list of it", {"target_country": "USA"}, {"target_country": ["USA"]}),
    ("the operator written out", {"deal_type": {"in": ["M&A"]}}, {"deal_type": ["M&A"]}),
    ("a date as text and as date", {"date_from": "2021-01-01"}, {"date_from": dt.date(2021, 1, 1)}),
    ("a set and a list", {"deal_type": {"M&A"}}, {"deal_type": ["M&A"]}),
    (
        "a list and a Categorical (frame['deal_type'].unique())",
        {"deal_type": ["M&A", "Venture"]},
        {"deal_type": pd.Categorical(["M&A", "Venture"])},
    ),
    (
        "an in list in another order",
        {"deal_type": ["Venture", "M&A"]},
        {"deal_type": ["M&A", "Venture"]},
    ),
]


@pytest.mark.parametrize(
    ("raw", "named"), [c[1:] for c in SAME_AS_SENT], ids=[c[0] for c in SAME_AS_SENT]
)
def test_the_same_value_in_two_forms_is_taken(client, raw, named):
    alone = client.private.deals(limit=20, **named)
    before = client.stats.snapshot()["calls"]
    both = client.private.deals(filters=raw, limit=20, **named)
    assert client.stats.snapshot()["calls"] == before + 1  # one request: the list's page
    assert both["id"].tolist() == alone["id"].tolist()
    assert both.attrs["filters"] == alone.attrs["filters"]


def test_a_conflict_given_as_a_categorical_is_one_line(client):
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=r"filters\['deal_type'\].*deal_type") as info:
        client.private.deals(
            filters={"deal_type": ["M&A", "Venture"]},
            deal_type=pd.Categorical(["M&A", "Growth"]),
            limit=1,
        )
    assert "\n" not in str(info.value)
    assert client.stats.snapshot()["calls"] == before


def test_a_real_conflict_in_another_form_is_still_refused(client):
    before = client.stats.snapshot()["calls"]
    with pytest.raises(ValidationError, match=r"filters\['date_from'\].*date_from"):
        client.private.deals(
            filters={"date_from": "2021-01-02"}, date_from=dt.date(2021, 1, 1), limit=1
        )
    with pytest.raises(ValidationError, match=r"filters\['target_country'\].*target_country"):
        client.private.deals(filters={"target_country": "USA"}, target_country=["USA", "GBR"])
    assert client.stats.snapshot()["calls"] == before


def test_the_first_call_compares_as_the_services_document_sends(sandbox):
    """Before the client holds the service's discovery document the two forms are compared
    under the interface document's rules, and again under the service's once read: a form
    that the service's document sends otherwise is refused then, never dropped unsaid."""
    with dealframe.Client.for_sandbox(sandbox, progress=False) as fresh:
        frame = fresh.private.deals(
            filters={"deal_type": {"in": ["M&A"]}}, deal_type=["M&A"], limit=5
        )
        assert set(frame["deal_type"].astype(str)) == {"M&A"}
    with dealframe.Client.for_sandbox(sandbox, progress=False) as fresh:

        def only_eq(response: Any, *args: Any, **kwargs: Any) -> Any:
            if "/lookup/companies" in response.url and response.status_code == 200:
                doc = response.json()
                for spec in doc["data"]["filters"]:
                    if spec["field"] == "name":
                        spec["operators"] = ["eq"]  # the service takes no ilike on names
                response._content = json.dumps(doc).encode()
                response.headers["Content-Length"] = str(len(response._content))
            return response

        fresh._transport._session.hooks["response"].append(only_eq)
        with pytest.raises(ValidationError, match=r"filters\['name'\]"):
            fresh.private.companies(filters={"name": {"ilike": "lab"}}, name="lab", limit=3)


def test_a_conflict_of_numpy_values_is_shown_as_python_values(client):
    with pytest.raises(ValidationError) as info:
        client.private.deals(filters={"deal_type": np.array(["M&A"] * 2)}, deal_type=["Venture"])
    assert "np.str_" not in str(info.value) and "['M&A', 'M&A']" in str(info.value)


def test_a_filter_the_services_document_leaves_out_is_said_unknown_not_two_values(sandbox):
    """Given twice in two forms of one value, a filter the service's discovery document does
    not list is refused as a filter the service does not take (as given once), not as two
    values: the forms are compared under the interface document's rules there."""
    with dealframe.Client.for_sandbox(sandbox, progress=False) as fresh:

        def without_country(response: Any, *args: Any, **kwargs: Any) -> Any:
            if "/lookup/transactions" in response.url and response.status_code == 200:
                doc = response.json()
                filters = doc["data"]["filters"]
                doc["data"]["filters"] = [f for f in filters if f["field"] != "target_country"]
                response._content = json.dumps(doc).encode()
                response.headers["Content-Length"] = str(len(response._content))
            return response

        fresh._transport._session.hooks["response"].append(without_country)
        with pytest.raises(ValidationError) as once:
            fresh.private.deals(target_country=["USA"], limit=3)
        with pytest.raises(ValidationError) as twice:
            fresh.private.deals(filters={"target_country": "USA"}, target_country=["USA"], limit=3)
    assert "one value" not in str(twice.value)
    assert twice.value.argument == once.value.argument
