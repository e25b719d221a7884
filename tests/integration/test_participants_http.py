"""Complete investor lists over HTTP: ``deals(..., with_investors=True)``, the warnings when
lists are missing, one role vocabulary, and co-investment equal to the service's own
``/investors/{id}/co_investors`` (issue 15)."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))

from _co_investors import assert_edges_are_co_investors, both_ways
from _drift_proxy import Action, Proxy, _replace

import dealframe
import dealframe.sandbox
from dealframe import Client, MissingDataWarning, MissingInvestorsWarning
from dealframe.errors import IncompleteResultError, ValidationError
from dealframe.frames.schemas import DEAL_PROFILE_ONLY, ROLES

P = "/api/private/v1"
PROFILE_ONLY = [c.name for c in DEAL_PROFILE_ONLY]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A small sandbox of this module's own: a complete pull reads one profile per deal, and
    1,000 deals hold every case these tests look at (the session one holds 5,000)."""
    with dealframe.sandbox.run(scale=0.02, seed=7) as sb:
        yield sb


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def listed(client: Client) -> pd.DataFrame:
    return client.private.deals()


@pytest.fixture(scope="module")
def complete(client: Client) -> pd.DataFrame:
    """Every live deal with its full investor list (one profile read per deal)."""
    return client.private.deals(with_investors=True)


def _single(sandbox: Any, ident: str) -> dict:
    reply = requests.get(
        f"{sandbox.url}{P}/transactions/{ident}",
        headers={"Authorization": f"Bearer {sandbox.private_key}"},
        timeout=30,
    )
    reply.raise_for_status()
    return reply.json()["data"]


def test_list_rows_hold_what_list_answers_hold(listed, complete):
    assert not set(PROFILE_ONLY) & set(listed.columns)
    assert set(PROFILE_ONLY) <= set(complete.columns)
    # the same rows, in the same order, with the list columns unchanged
    pd.testing.assert_frame_equal(complete[list(listed.columns)], listed, check_like=False)
    assert complete["investors"].notna().all()
    assert complete["target_region"].notna().mean() > 0.9
    assert complete.attrs["profiles"]["requests"] == len(listed)
    assert complete.attrs["profiles"]["missing_ids"] == []
    assert complete.attrs["requests"] == listed.attrs["requests"] + len(listed)


def test_complete_rows_equal_the_single_deals(sandbox, client, complete):
    rng = np.random.default_rng(15)
    for ident in rng.choice(complete["id"].to_numpy(dtype=object), 5, replace=False):
        single = _single(sandbox, ident)
        row = complete.set_index("id").loc[ident]
        assert [p["id"] for p in dealframe.to_lists(pd.Series([row["investors"]]))[0]] == [
            p["id"] for p in single["investors"]
        ]
        assert row["target_city"] == single["target"]["city"]
        assert row["target_founded"] == single["target"]["founded"]
        assert dealframe.to_lists(pd.Series([row["target_verticals"]]))[0] == (
            single["target"]["verticals"] or []
        )
    # one deal read alone is the same row
    one = client.private.deal([complete.loc[0, "id"]])
    pd.testing.assert_frame_equal(one[PROFILE_ONLY], complete.loc[[0], PROFILE_ONLY])


def test_co_investment_edges_equal_the_services_co_investors(client, complete):
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingInvestorsWarning)  # complete: no warning
        people = dealframe.explode_participants(complete)
        edges = dealframe.co_investment_edges(people)
    both = both_ways(edges)
    leads = people.loc[people["role"] == "lead_investor", "participant_id"].value_counts()
    busiest = both.groupby("me")["shared_deals"].sum().sort_values(ascending=False)
    sample = list(
        dict.fromkeys([*busiest.index[:3], *leads.index[-2:], leads.index[len(leads) // 2]])
    )
    sample = [s for s in sample if s in set(leads.index)]
    assert len(sample) >= 4
    theirs = client.private.co_investors(sample)
    assert theirs["shared_deals"].max() >= 2
    assert_edges_are_co_investors(edges, theirs, sample)


def test_list_rows_undercount_and_say_so(listed, complete):
    with pytest.warns(MissingInvestorsWarning, match="deals have no full investor list"):
        people = dealframe.explode_participants(listed)
    assert people.attrs["deals_without_investors"] == len(listed)
    assert not (people["role"] == "investor").any()
    with pytest.warns(MissingInvestorsWarning):
        partial = dealframe.co_investment_edges(people)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingInvestorsWarning)
        full = dealframe.co_investment_edges(dealframe.explode_participants(complete))
    assert full["shared_deals"].sum() > partial["shared_deals"].sum()
    assert full["shared_deals"].max() > partial["shared_deals"].max()


def test_one_role_vocabulary(client, complete):
    people = dealframe.explode_participants(complete)
    assert set(people["role"].astype(str)) == set(ROLES)
    investor = people.loc[people["role"] == "lead_investor", "participant_id"].iloc[0]
    made = client.private.investments(investor)
    assert set(made["role"].astype(str)) <= {"lead_investor", "buyer"}
    assert made["role"].dtype == people["role"].dtype
    # the two frames join on (deal, role) without a hand-made map
    joined = made.merge(
        people[people["participant_id"] == investor],
        left_on=["id", "role"],
        right_on=["deal_id", "role"],
    )
    assert len(joined) == len(made)


def test_with_investors_on_a_cohort_and_an_empty_one(client):
    venture = client.private.deals(deal_type=["Venture"], with_investors=True, limit=40)
    assert len(venture) == 40 and venture["investors"].notna().all()
    assert venture.attrs["profiles"]["requests"] == 40
    none = client.private.deals(valuation_min=1e12, with_investors=True)
    assert len(none) == 0
    assert list(none.columns) == list(venture.columns)
    assert list(none.dtypes) == list(venture.dtypes)


def test_with_investors_completes_soft_deleted_deals_too(sandbox, client):
    """``include_deleted=True`` rows are completed from their single forms as well (read with
    ``include_deleted``), so nothing says their investors are missing."""
    frame = client.private.deals(include_deleted=True, with_investors=True)
    gone = frame[frame["deleted"].fillna(False).to_numpy(dtype=bool)]
    assert len(gone) > 0
    assert gone["investors"].notna().all()
    assert frame.attrs["profiles"]["missing_ids"] == []
    one = gone.iloc[0]
    reply = requests.get(
        f"{sandbox.url}{P}/transactions/{one['id']}",
        params={"include_deleted": "true"},
        headers={"Authorization": f"Bearer {sandbox.private_key}"},
        timeout=30,
    )
    truth = reply.json()["data"]
    assert orjson.loads(one["investors"]) == truth["investors"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingInvestorsWarning)
        dealframe.explode_participants(frame)


def test_a_single_form_that_cannot_be_read(sandbox, complete):
    victim = complete.loc[3, "id"]
    gone = Action("gone", on_response=_replace(404, b'{"detail": "not found"}', "application/json"))
    with (
        Proxy(sandbox.url) as proxy,
        Client(
            proxy.url,
            sandbox.public_token,
            sandbox.private_key,
            cache_enabled=False,
            progress=False,
            retries=0,
        ) as via,
    ):
        proxy.add(f"{P}/transactions/{victim}$", gone)
        with pytest.warns(MissingDataWarning, match="1 of 40 deals have no single form"):
            got = via.private.deals(with_investors=True, limit=40)
        assert got.attrs["profiles"]["missing_ids"] == [victim]
        row = got.set_index("id").loc[victim]
        assert pd.isna(row["investors"]) and pd.isna(row["target_region"])
        assert got["investors"].notna().sum() == 39
        with pytest.raises(IncompleteResultError) as caught:
            via.private.deals(with_investors=True, limit=40, strict=True)
        assert caught.value.partial is not None and len(caught.value.partial) == 40
        with pytest.warns(MissingInvestorsWarning, match="1 of 40 deals"):
            dealframe.explode_participants(got)


def test_a_contract_warning_of_the_single_forms_points_at_the_call(sandbox, complete):
    victim = complete.loc[5, "id"]
    data = _single(sandbox, victim)
    data.pop("investors")  # a documented field the single form lacks
    body = {"data": data}
    short = Action("short", on_response=_replace(200, orjson.dumps(body), "application/json"))
    with (
        Proxy(sandbox.url) as proxy,
        Client(proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False) as via,
    ):
        proxy.add(f"{P}/transactions/{victim}$", short)
        with pytest.warns(dealframe.ServiceContractWarning, match="investors") as seen:
            via.private.deals(with_investors=True, limit=40, progress=False)
    assert {Path(w.filename).name for w in seen} == {Path(__file__).name}


@pytest.mark.parametrize("roles", [("buyer",), ("lead_investor", "buyer"), ("buyers",)])
def test_a_role_asked_whose_column_is_absent_is_refused(listed, roles):
    """A role passed in ``roles`` whose column the deals frame lacks is a ValidationError
    naming the column, not an empty frame; the default roles read what the frame holds."""
    without = listed.drop(columns=["buyers"])
    with pytest.raises(ValidationError, match="no 'buyers' column") as caught:
        dealframe.explode_participants(without, roles=roles)
    assert caught.value.argument == "roles"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingInvestorsWarning)  # a list pull: no investors
        rows = dealframe.explode_participants(without)
    assert len(rows) > 0 and set(rows["role"].astype(str)) == {"lead_investor"}


def test_edges_of_roles_that_were_not_exploded_warn(complete):
    """``co_investment_edges(..., roles=("investor",))`` over a frame exploded without the
    investor role warns (docs/frames.md) instead of returning no edge silently."""
    leads = dealframe.explode_participants(complete, roles=("lead_investor", "buyer"))
    with pytest.warns(MissingInvestorsWarning, match="no row of the exploded frame has role "):
        none = dealframe.co_investment_edges(leads, roles=("investor",))
    assert len(none) == 0
    with pytest.warns(MissingInvestorsWarning, match="count the other roles only"):
        some = dealframe.co_investment_edges(leads, roles=("investor", "lead_investor"))
    assert len(some) > 0
    investors = dealframe.explode_participants(complete, roles=("investor",))
    with pytest.warns(dealframe.DealframeWarning, match="role 'buyer'") as seen:
        dealframe.co_investment_edges(investors, roles=("buyer",))
    assert not any(issubclass(w.category, MissingInvestorsWarning) for w in seen)


def test_edges_of_roles_exploded_say_nothing(complete):
    """Roles that were exploded give their edges without a word, also when one of them has
    no row in the deals (buyers of funding rounds only)."""
    everyone = dealframe.explode_participants(complete)
    rounds = everyone[everyone["deal_type"].astype(str) == "Venture"]
    leads = dealframe.explode_participants(complete, roles=("lead_investor", "buyer"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(dealframe.co_investment_edges(everyone, roles=("investor",))) > 0
        assert len(dealframe.co_investment_edges(rounds, roles=("investor", "buyer"))) > 0
        assert len(dealframe.co_investment_edges(leads)) > 0
        assert len(dealframe.co_investment_edges(leads, roles=("lead_investor", "buyer"))) > 0


def test_the_reports_participant_rows_read_the_columns_a_frame_has(listed):
    """The charts' and the report's reader asks only the roles whose columns the frame has,
    so a deals frame without ``buyers`` still charts its lead investors (not refused)."""
    from dealframe.plot.shaping import participant_rows

    without = listed.drop(columns=["buyers"])
    rows = participant_rows(without)
    assert set(rows["role"].astype(str)) == {"lead_investor"}
    expected = dealframe.explode_participants(without, roles=("lead_investor",))
    assert rows["participant_id"].tolist() == expected["participant_id"].tolist()
    with pytest.raises(ValidationError, match="participant columns"):
        participant_rows(listed.drop(columns=["buyers", "lead_investors"]))
