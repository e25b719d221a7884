"""A deal that several rows of the input hold is exploded once: ``explode_participants`` gives
one row per (deal, role, participant), over real HTTP against the sandbox.

Stacking the ``investments`` of several investors (the documented way to use sub-collections
of several ids) holds a deal once per investor of the stack who took part in it; exploding that
used to repeat each of its participant rows as many times, without a word, so counting deals per
investor on the exploded frame counted some twice. A ``concat`` of overlapping pulls did the
same."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pandas as pd
import pytest

import dealframe
from dealframe import Client, DealframeWarning
from dealframe.sandbox import run

KEY = ["deal_id", "role", "participant_id"]
ROLES = ("lead_investor", "buyer")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with run(scale=0.05, seed=11) as served, Client.for_sandbox(served, progress=False) as c:
        yield c


def _explode(deals: pd.DataFrame) -> tuple[pd.DataFrame, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        exploded = dealframe.explode_participants(deals, roles=ROLES)
    return exploded, [w for w in seen if issubclass(w.category, DealframeWarning)]


def test_stacked_investments_explode_each_deal_once(client):
    top = client.private.investors(sort="name:asc").head(40)["id"]
    stacked = client.private.investments(top)
    assert stacked["id"].duplicated().any()  # some deal of two of these investors
    exploded, said = _explode(stacked)
    assert not exploded.duplicated(KEY).any()
    once, quiet = _explode(stacked.drop_duplicates("id"))
    assert quiet == []  # no repeat, no word
    key = exploded[KEY].sort_values(KEY).reset_index(drop=True)
    assert key.equals(once[KEY].sort_values(KEY).reset_index(drop=True))
    repeats = int(stacked["id"].duplicated().sum())
    assert exploded.attrs["repeated_deals"] == repeats and once.attrs["repeated_deals"] == 0
    assert any(f"{repeats:,} row" in str(w.message) for w in said), [str(w.message) for w in said]


def test_a_concat_of_two_pulls_keeps_the_newest_row_of_each_deal(client):
    deals = client.private.deals(deal_type=["M&A"], limit=50)
    older = deals.copy()
    older["updated_at"] = older["updated_at"] - pd.Timedelta(days=1)
    older["buyers"] = "[]"  # an older version: no buyer yet
    both = pd.concat([deals, older], ignore_index=True)  # the newer first
    exploded, said = _explode(both)
    alone, _ = _explode(deals)
    assert said and exploded.attrs["repeated_deals"] == len(deals)
    assert exploded[KEY].reset_index(drop=True).equals(alone[KEY].reset_index(drop=True))
    assert (exploded["role"] == "buyer").sum() > 0  # the newer rows' buyers


def test_null_ids_repeat_nothing(client):
    """Deals without an id are not one deal: each keeps its rows (as list pages' rows with a
    null key are never merged)."""
    deals = client.private.deals(deal_type=["M&A"], limit=30).reset_index(drop=True)
    alone, _ = _explode(deals)
    nulled = set(deals.loc[:4, "id"])
    deals.loc[:4, "id"] = None
    exploded, said = _explode(deals)
    assert said == [] and exploded.attrs["repeated_deals"] == 0
    assert len(exploded) == len(alone)
    assert exploded["deal_id"].isna().sum() == alone["deal_id"].isin(nulled).sum() >= 5


def test_ids_of_several_lengths_are_compared_whole():
    """Ids of several lengths whose bytes add up to as many as ids of one length (36, 38, 38,
    32) were read at the wrong boundaries and said all distinct: the repeat is found."""
    ids = [
        "5f38873f-6e1c-4d6f-ad87-e6977cda30ba",
        "{0e2a2c1b-9b7d-4c1e-8f3a-2d4b6c8e0f11}",
        "{0e2a2c1b-9b7d-4c1e-8f3a-2d4b6c8e0f11}",
        "7c9e6679742540de944be07fc1f90ae7",
    ]
    lead = '[{"country":null,"id":"x","name":"X","short_name":null,"website":null}]'
    deals = pd.DataFrame({"id": ids, "lead_investors": [lead] * 4, "buyers": ["[]"] * 4})
    exploded, said = _explode(deals)
    assert exploded.attrs["repeated_deals"] == 1 and said
    assert not exploded.duplicated(KEY).any()


def test_timestamps_in_two_iso_forms_keep_the_newest(client):
    """``updated_at`` as text in two ISO 8601 forms (``Z``, ``+00:00``: a CSV of two pulls):
    the newer row is kept whichever form each has."""
    deals = client.private.deals(deal_type=["M&A"], limit=20)
    newer = deals.assign(updated_at=deals["updated_at"].dt.strftime("%Y-%m-%d %H:%M:%S+00:00"))
    older = deals.assign(
        updated_at=(deals["updated_at"] - pd.Timedelta(days=1)).dt.strftime("%Y-%m-%dT%H:%M:%SZ"),
        buyers="[]",
    )
    exploded, _ = _explode(pd.concat([older, newer], ignore_index=True))
    alone, _ = _explode(deals)
    assert (exploded["role"] == "buyer").sum() == (alone["role"] == "buyer").sum() > 0
