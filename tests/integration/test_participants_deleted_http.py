"""Participants over HTTP, audit of issue 15: soft-deleted deals in co-investment, investor lists
that list rows carry (written as single deals write them), what an exploded frame still
knows after a CSV round trip, and missing lists said whatever roles are counted."""

from __future__ import annotations

import io
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _co_investors import assert_edges_are_co_investors
from _drift_proxy import Action, _replace, edit, fresh, fresh_rules, items_edit, proxy  # noqa: F401 - fixtures are used by name

import dealframe
import dealframe.sandbox
from dealframe import Client, MissingDataWarning, MissingInvestorsWarning
from dealframe.errors import ServiceContractError
from dealframe.frames.private import LIST_READERS
from dealframe.frames.schemas import DEAL_PROFILE_ONLY

P = "/api/private/v1"
PROFILE_ONLY = [c.name for c in DEAL_PROFILE_ONLY]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A small sandbox of this module's own (about 10 of its 1,000 deals are soft-deleted)."""
    with dealframe.sandbox.run(scale=0.02, seed=7) as sb:
        yield sb


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def feed(client: Client) -> pd.DataFrame:
    """A change-feed pull: live and soft-deleted deals, each with its full investor list."""
    return client.private.deals(
        include_deleted=True, updated_at="2000-01-01T00:00:00Z", with_investors=True
    )


def test_co_investment_leaves_soft_deleted_deals_out_as_co_investors_does(client, feed):
    gone = feed[feed["deleted"].fillna(False).to_numpy(dtype=bool)]
    assert len(gone) >= 5
    gone_ids = set(gone["id"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingInvestorsWarning)  # complete lists: no warning
        people = dealframe.explode_participants(feed)
        edges = dealframe.co_investment_edges(people)
    # the service's co_investors of the investors of deleted deals: live deals only
    in_gone = people["deal_id"].isin(gone_ids).to_numpy()
    touched = people.loc[in_gone & (people["role"] == "investor").to_numpy(), "participant_id"]
    sample = list(dict.fromkeys(touched))[:8]
    assert len(sample) >= 4
    theirs = client.private.co_investors(sample)
    assert_edges_are_co_investors(edges, theirs, sample)
    # the default equals the edges of the live deals alone
    live = feed[~feed["id"].isin(gone_ids)].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        edges, dealframe.co_investment_edges(dealframe.explode_participants(live))
    )
    # every row says whether its deal is deleted: users can filter after exploding
    deleted_of = dict(zip(feed["id"], feed["deleted"], strict=True))
    assert people["deleted"].dtype == "boolean"
    assert people["deleted"].tolist() == [deleted_of[i] for i in people["deal_id"]]
    assert people.loc[in_gone, "deleted"].all() and not people.loc[~in_gone, "deleted"].any()
    assert edges.attrs["deleted_deals_left_out"] == people.loc[in_gone, "deal_id"].nunique()
    counted = dealframe.co_investment_edges(people, include_deleted=True)
    assert counted.attrs["deleted_deals_left_out"] == 0
    assert counted["shared_deals"].sum() > edges["shared_deals"].sum()


def test_exploded_columns_are_the_same_whatever_the_deals_frame_holds(client, feed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingInvestorsWarning)
        full = dealframe.explode_participants(feed)
        listed = dealframe.explode_participants(client.private.deals(limit=20))
        bare = dealframe.explode_participants(
            client.private.deals(limit=20).drop(columns=["deleted"])
        )
        none = dealframe.explode_participants(client.private.deals(valuation_min=1e12))
    for other in (listed, bare, none):
        assert list(other.columns) == list(full.columns)
        assert list(other.dtypes) == list(full.dtypes)
    assert bare["deleted"].isna().all() and not listed["deleted"].isna().any()
    assert listed["investors_missing"].all() and not full["investors_missing"].any()


def _spelt_otherwise(participants: list[dict]) -> list[dict]:
    """Participants as another service may write them: keys in another order, ids in upper
    case, and the first one without its ``website``."""
    out = [{k: p[k] for k in reversed(list(p))} | {"id": p["id"].upper()} for p in participants]
    if out:
        out[0].pop("website")
    return out


@pytest.mark.parametrize("with_target", [False, True], ids=["investors", "investors+target"])
def test_investor_lists_in_list_rows_are_written_as_single_deals(
    client, proxy, fresh, with_target, monkeypatch
):
    c = fresh
    typed: list[bool] = []  # whether each page was read as typed rows (else as JSON)
    read = LIST_READERS["transactions"]
    monkeypatch.setitem(
        LIST_READERS,
        "transactions",
        lambda page: typed.append(read(page) is not None) or read(page),
    )
    singles = client.private.deal(list(client.private.deals(limit=30)["id"]))
    raw = {i: orjson.loads(t) for i, t in zip(singles["id"], singles["investors"], strict=True)}
    targets = singles.set_index("id")

    def carry(doc: Any) -> Any:
        for item in doc.get("data") or []:
            item["investors"] = _spelt_otherwise(raw[item["id"]])
            if with_target:
                row = targets.loc[item["id"]]
                item["target"]["region"] = row["target_region"]
                item["target"]["city"] = row["target_city"]
                item["target"]["founded"] = int(row["target_founded"])
        return doc

    proxy.add(f"{P}/transactions$", edit(carry), method="POST")
    typed.clear()  # the pages of the pull through the proxy only
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingInvestorsWarning)  # every row carried its list
        got = c.private.deals(limit=30)
        people = dealframe.explode_participants(got)
    assert len(got) == 30 and got["id"].tolist() == singles["id"].tolist()
    # investors alone: typed rows read it as participants; a richer target: read as JSON
    assert typed == [not with_target]
    carried = ["investors"] + (["target_region", "target_city", "target_founded"] * with_target)
    assert [col for col in got.columns if col in PROFILE_ONLY] == [
        col for col in PROFILE_ONLY if col in carried
    ]
    for name in carried:
        assert got[name].dtype == singles[name].dtype, name
    # the first participant lost its website: padded with null; all else as the single deal
    want = singles["investors"].copy()
    for i, ident in enumerate(singles["id"]):
        members = raw[ident]
        if members:
            want[i] = dealframe.frames.nested.dumps([{**members[0], "website": None}, *members[1:]])
    assert got["investors"].tolist() == want.tolist()
    if with_target:
        pd.testing.assert_frame_equal(
            got[["target_region", "target_city", "target_founded"]],
            singles[["target_region", "target_city", "target_founded"]],
        )
    assert (people["role"] == "investor").sum() == sum(map(len, raw.values()))
    assert people.loc[people["role"] == "investor", "participant_id"].str.islower().all()


def test_with_investors_takes_the_single_forms_over_list_rows(client, proxy, fresh):
    """List rows carrying a partial ``investors`` (the leads only) are completed from the
    single forms (a deal without one: see the test below)."""
    c = fresh
    want = client.private.deals(limit=30, with_investors=True)

    def leads_only(doc: Any) -> Any:
        for item in doc.get("data") or []:
            item["investors"] = item["lead_investors"]
        return doc

    proxy.add(f"{P}/transactions$", edit(leads_only), method="POST")
    got = c.private.deals(limit=30, with_investors=True)
    assert got["investors"].tolist() == want["investors"].tolist()
    assert list(got.columns) == list(want.columns)


def test_no_false_missing_lists_warning_after_a_csv_round_trip(client, proxy, fresh):
    """A service may send ``investors: []`` for an M&A deal with buyers. Once an exploded frame
    has lost its ``attrs`` (a CSV round trip), its rows still say which lists were read."""
    c = fresh
    mergers = set(client.private.deals(deal_type=["M&A"], limit=60)["id"])

    def no_investors(doc: Any) -> Any:
        data = doc.get("data")
        if isinstance(data, dict) and data.get("id") in mergers:
            data["investors"] = []
        return doc

    proxy.add(f"{P}/transactions/[^/]+$", edit(no_investors), method="GET")
    deals = c.private.deals(deal_type=["M&A"], limit=60, with_investors=True)
    assert (deals["investors"] == "[]").all() and (deals["buyers"] != "[]").any()
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingInvestorsWarning)
        people = dealframe.explode_participants(deals)
        back = pd.read_csv(io.StringIO(people.to_csv(index=False)))
        dealframe.co_investment_edges(back)  # no warning: every list was read
    # a list pull lacks its lists, and still says so after the round trip
    with pytest.warns(MissingInvestorsWarning):
        listed = dealframe.explode_participants(c.private.deals(deal_type=["M&A"], limit=60))
    back = pd.read_csv(io.StringIO(listed.to_csv(index=False)))
    paired = listed["deal_id"].nunique()  # the deals with buyers
    with pytest.warns(MissingInvestorsWarning, match=f"^{paired} deals"):
        dealframe.co_investment_edges(back)


def test_the_investor_role_alone_warns_of_deals_without_their_lists(client):
    """``roles=("investor",)``: a deal whose list was not read has no investor row, so which
    deals lack their list is read from the rows of every role (the review's repro: a list pull
    gave no edges and no warning; a concat with complete deals, no warning either)."""
    listed = client.private.deals(limit=200).iloc[40:]
    full = client.private.deals(limit=40, with_investors=True)
    assert not set(listed["id"]) & set(full["id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingInvestorsWarning)
        partial = dealframe.explode_participants(listed)
        complete = dealframe.explode_participants(full)
    lacking = partial["deal_id"].nunique()  # list deals with a lead or a buyer row
    assert lacking > 100 and not (partial["role"] == "investor").any()
    with pytest.warns(MissingInvestorsWarning, match=f"^{lacking} deals lack"):
        alone = dealframe.co_investment_edges(partial, roles=("investor",))
    assert len(alone) == 0
    want = dealframe.co_investment_edges(complete, roles=("investor",))
    assert len(want) > 0
    both = pd.concat([partial, complete], ignore_index=True)
    both.attrs.clear()  # the rows say which deals lack their lists
    for frame in (both, pd.read_csv(io.StringIO(both.to_csv(index=False)))):
        with pytest.warns(MissingInvestorsWarning, match=f"^{lacking} deals lack"):
            edges = dealframe.co_investment_edges(frame, roles=("investor",))
        key = ["investor_a", "investor_b", "shared_deals"]
        pd.testing.assert_frame_equal(edges[key], want[key])
    # attrs alone (no investors_missing column) say it too, counting what the rows count: the
    # deals with rows (a deal with no participant at all is not among them)
    assert len(listed) > lacking
    counted = partial.drop(columns="investors_missing")
    with pytest.warns(MissingInvestorsWarning, match=f"^{lacking} deals lack"):
        dealframe.co_investment_edges(counted, roles=("investor",))


def _not_found(ident: str) -> Action:
    """The single form of deal ``ident`` answered 404 (deleted since the list was read)."""
    body = orjson.dumps({"error": {"code": "NOT_FOUND", "message": "Resource not found"}})
    return Action(f"gone {ident}", on_response=_replace(404, body, "application/json"))


def test_a_deal_without_its_single_form_keeps_no_list_of_its_list_row(client, proxy, fresh):
    """With ``with_investors=True``, list rows carrying a list of their own (the first
    investor only) and the target's city: a deal whose single form is a 404 keeps the city
    of its row, but not its list (not known full), and the warning says so."""
    c = fresh
    singles = client.private.deals(limit=40, with_investors=True)
    raw = {i: orjson.loads(t) for i, t in zip(singles["id"], singles["investors"], strict=True)}
    gone = singles.loc[3, "id"]
    assert raw[gone]

    def first_only(doc: Any) -> Any:
        for item in doc.get("data") or []:
            item["investors"] = raw[item["id"]][:1]
            if isinstance(item.get("target"), dict):
                item["target"]["city"] = "Listed City"
        return doc

    proxy.add(f"{P}/transactions$", edit(first_only), method="POST")
    proxy.add(f"{P}/transactions/{gone}$", _not_found(gone), method="GET")
    said = (
        r"^1 of 40 deals have no single form to read \(.*\): their investors are null \(the "
        r"lists their list rows carried are not known to be full\); target_city hold what their "
        rf"list rows carried, their other profile-only columns null: {gone} "
    )
    with pytest.warns(MissingDataWarning, match=said):
        got = c.private.deals(limit=40, with_investors=True)
    assert got.attrs["profiles"]["missing_ids"] == [gone]
    row = got.set_index("id").loc[gone]
    assert pd.isna(row["investors"])
    assert row["target_city"] == "Listed City" and pd.isna(row["target_region"])
    read = (got["id"] != gone).to_numpy()
    assert got.loc[read, "investors"].tolist() == singles.loc[read, "investors"].tolist()
    # the warning is true of a with_investors=True pull too (it said list rows lacked lists)
    with pytest.warns(MissingInvestorsWarning, match="^1 of 40 deals") as said:
        people = dealframe.explode_participants(got)
    assert "a deal whose single form could not be read keeps none" in str(said[0].message)
    assert people.loc[people["deal_id"] == gone, "investors_missing"].all()
    assert not people.loc[people["deal_id"] != gone, "investors_missing"].any()


def test_a_frame_without_investors_missing_counts_live_deals_as_its_rows_would(feed, proxy, fresh):
    """A change feed whose soft-deleted deals' single forms carry no investor list, exploded,
    then columns selected (no ``investors_missing``): ``co_investment_edges`` leaves the
    deleted deals out and does not warn (every live list was read); with ``include_deleted``
    it warns of the deleted deals that have rows, read from ``attrs`` as from the rows."""
    c = fresh
    gone = set(feed.loc[feed["deleted"].fillna(False).to_numpy(dtype=bool), "id"])
    assert len(gone) >= 5
    listless = items_edit(lambda item: item.get("id") in gone and item.update(investors=None))
    proxy.add(f"{P}/transactions/[^/]+$", listless, method="GET")
    got = c.private.deals(
        include_deleted=True, updated_at="2000-01-01T00:00:00Z", with_investors=True
    )
    assert got.loc[got["id"].isin(gone), "investors"].isna().all()
    assert got.loc[~got["id"].isin(gone), "investors"].notna().all()
    with pytest.warns(MissingInvestorsWarning, match=f"^{len(gone)} of {len(got):,} deals"):
        people = dealframe.explode_participants(got)
    with_rows = people.loc[people["deleted"].to_numpy(dtype=bool), "deal_id"].nunique()
    assert 0 < with_rows <= len(gone)
    selected = people[["deal_id", "role", "participant_id", "deal_date", "deleted"]]
    for frame in (people, selected):
        with warnings.catch_warnings():
            warnings.simplefilter("error", MissingInvestorsWarning)  # live lists all read
            edges = dealframe.co_investment_edges(frame)
        assert edges.attrs["deleted_deals_left_out"] == with_rows
        with pytest.warns(MissingInvestorsWarning, match=f"^{with_rows} deals lack"):
            dealframe.co_investment_edges(frame, include_deleted=True)


def test_lead_rows_of_a_list_pull_count_the_deals_lacking_their_lists_after_a_filter(client):
    """A list pull (lead investors and buyers only) beside deals pulled with their investor
    lists, exploded, columns selected (no ``investors_missing``), then the lead rows kept:
    the deals counted as lacking their list are the list pull's, not every deal with lead
    rows (the frame no longer had the exploded row count, and its lead rows were taken for
    deals without their lists)."""
    full = client.private.deals(limit=40, with_investors=True)
    listed = client.private.deals(limit=120)
    listed = listed[~listed["id"].isin(set(full["id"]))]
    assert full["investors"].notna().all() and len(listed) >= 40
    with pytest.warns(MissingInvestorsWarning, match=f"^{len(listed)} of "):
        people = dealframe.explode_participants(pd.concat([full, listed], ignore_index=True))
    selected = people[["deal_id", "role", "participant_id", "deal_date", "deleted"]]
    leads = selected[selected["role"] == "lead_investor"]
    lacking = leads.loc[leads["deal_id"].isin(set(listed["id"])), "deal_id"].nunique()
    assert 0 < lacking < leads["deal_id"].nunique()  # deals of both pulls have lead rows
    with pytest.warns(MissingInvestorsWarning, match=f"^{lacking} deals lack") as said:
        dealframe.co_investment_edges(leads)
    assert len(said) == 1


def test_investors_that_are_no_list_fail_a_list_pull_as_a_single_deal(client, proxy, fresh):
    c = fresh
    ids = client.private.deals(limit=3)["id"].tolist()
    junk = items_edit(lambda item: item.update(investors="n/a"))
    proxy.add(f"{P}/transactions$", junk, method="POST")
    proxy.add(f"{P}/transactions/[^/]+$", junk, method="GET")
    for call in (lambda: c.private.deals(limit=3), lambda: c.private.deal(ids)):
        with pytest.raises(ServiceContractError, match=r"investors.*expected an array.*n/a"):
            call()


def test_a_member_a_participant_adds_is_kept(proxy, fresh):
    """A sixth member of a participant (``"type": "vc"``) is kept, in key order, in list rows
    and single deals alike; the exploded rows hold the five fields."""
    c = fresh

    def typed(item: dict) -> None:
        for key in ("lead_investors", "buyers", "investors"):
            for participant in item.get(key) or []:
                participant["type"] = "vc"

    proxy.add(f"{P}/transactions$", items_edit(typed), method="POST")
    proxy.add(f"{P}/transactions/[^/]+$", items_edit(typed), method="GET")
    listed = c.private.deals(limit=20)
    one = c.private.deal(listed["id"].tolist())
    members = [orjson.loads(t) for t in [*listed["lead_investors"], *one["investors"]]]
    assert sum(map(len, members)) > 20
    fields = ["country", "id", "name", "short_name", "type", "website"]
    assert all(list(p) == fields and p["type"] == "vc" for ps in members for p in ps)
    assert listed["lead_investors"].tolist() == one["lead_investors"].tolist()
    people = dealframe.explode_participants(one)
    assert [c for c in people.columns if c.startswith("participant_")] == [
        "participant_id",
        "participant_name",
        "participant_short_name",
        "participant_country",
        "participant_website",
    ]
    assert (people["role"] == "investor").sum() == sum(map(len, members[len(listed) :]))
