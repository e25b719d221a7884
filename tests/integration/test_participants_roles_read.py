"""``co_investment_edges(people, roles=...)`` with a role that has no row blames
``explode_participants`` only when the role was not given to it (``attrs["roles"]``, the roles
read). Funding rounds have no buyers: over Venture deals exploded with every role, asking for
buyers used to warn "explode the deals with the roles you count", a wrong cause. Deals pulled
over HTTP from a sandbox of this module's own."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

import dealframe
import dealframe.sandbox
from dealframe import Client, DealframeWarning

BLAMES_EXPLODE = "explode the deals with the roles you count"


@pytest.fixture(scope="module")
def rounds() -> Iterator[pd.DataFrame]:
    """Venture deals with their full investor lists."""
    with (
        dealframe.sandbox.run(scale=0.02, seed=7) as sb,
        Client.for_sandbox(sb, progress=False) as client,
    ):
        yield client.private.deals(deal_type=["Venture"], with_investors=True, limit=200)


def _said(call: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, DealframeWarning)]


def test_a_role_read_that_no_deal_has_is_not_blamed_on_the_explode(rounds):
    people = dealframe.explode_participants(rounds)
    assert len(people) and "buyer" not in set(people["role"].astype(str))  # rounds: no buyer
    said = _said(lambda: dealframe.co_investment_edges(people, roles=("buyer",)))
    assert len(said) == 1, said
    assert "no row has role 'buyer' though explode_participants read it" in said[0], said
    assert BLAMES_EXPLODE not in said[0] and "no edge is counted" in said[0], said
    assert people.attrs["roles"] == ("lead_investor", "buyer", "investor")


def test_a_role_not_read_is_blamed_on_the_explode(rounds):
    investors = dealframe.explode_participants(rounds, roles=("investor",))
    assert investors.attrs["roles"] == ("investor",)
    said = _said(lambda: dealframe.co_investment_edges(investors, roles=("buyer",)))
    assert len(said) == 1 and BLAMES_EXPLODE in said[0], said
    assert "explode_participants read only 'investor'" in said[0], said


def test_frames_of_other_roles_concatenated_say_both_causes(rounds):
    """pandas drops ``attrs`` that differ between the frames of a concat: neither cause is
    known then, and both are said."""
    both = pd.concat(
        [
            dealframe.explode_participants(rounds, roles=("lead_investor",)),
            dealframe.explode_participants(rounds, roles=("buyer",)),
        ]
    )
    assert "roles" not in both.attrs
    said = _said(lambda: dealframe.co_investment_edges(both, roles=("buyer",)))
    assert len(said) == 1, said
    assert "either no deal of the frame has one, or explode_participants" in said[0], said


def test_rows_filtered_after_the_explode_are_not_said_as_deals_without_the_role(rounds):
    """A row filter keeps ``attrs["roles"]``: the investor rows the user dropped are not "no
    deal has one" (it used to say so, though every round has investors)."""
    people = dealframe.explode_participants(rounds)
    assert (people["role"] == "investor").any()
    leads = people[people["role"] == "lead_investor"]
    assert leads.attrs["roles"] == ("lead_investor", "buyer", "investor")
    said = _said(lambda: dealframe.co_investment_edges(leads, roles=("investor",)))
    assert len(said) == 1, said
    assert "no deal of the frame has" not in said[0], said
    assert "no deal had one, or the rows were filtered since" in said[0], said
    assert BLAMES_EXPLODE not in said[0], said


def test_an_explode_that_read_no_role_says_so(rounds):
    """A record of no role read (an explode of deals without ``investors`` for that role alone
    records ``()``; here carried onto rows, as a frame assembled from such a one would) is said
    as "read no role", not "read only none"."""
    listed = rounds.drop(columns=["investors"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        none_read = dealframe.explode_participants(listed, roles=("investor",))
    assert none_read.attrs["roles"] == ()
    people = dealframe.explode_participants(rounds, roles=("buyer", "lead_investor"))
    people.attrs["roles"] = none_read.attrs["roles"]
    said = _said(lambda: dealframe.co_investment_edges(people, roles=("investor",)))
    assert said and all("read only none" not in s for s in said), said
    assert any("explode_participants read no role" in s for s in said), said
