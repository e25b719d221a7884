"""Odd values a test's edit gives are refused or stood by the changes, never a 500 (issue 2).

A review found ``Changes.edit`` keeping values of another type than the document's (a float
founding year, a money figure as a string, a number as a description, a target row out of
range or of an organisation that is no company), which later crashed the changes' updates,
inserts and random rounds (a 500 over the admin endpoint) or the edit itself (a bare
``IndexError``); and funding rounds left with no date counting among every investor's rounds,
so inserted investors found no round to lead. docs/sandbox.md, "Changes and the clock", says
what holds instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dealframe.sandbox import SandboxConfig, SandboxState
from dealframe.sandbox.changes import ChangeInputError, Changes

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api, check_company_profile, check_deal_profile
from _sandbox_changes import admin_ok, sandbox_fixtures

sb, fresh = sandbox_fixtures(seed=3)

_ROUNDS = ["Early", "Venture", "Growth", "Secondary"]


@pytest.fixture(scope="module")
def generated() -> dict[str, tuple[list[str], list[dict]]]:
    """Per entity, the ids of 30 live records and their profiles as the generated data serves
    them, read by the first test that needs them (each test starts from the generated data:
    ``fresh`` resets the module's sandbox), so the cases of one entity share one read."""
    return {}


def _some(sb, entity: str, n: int) -> list[str]:
    """Ids of ``n`` live records of ``entity``, read over HTTP (investors that are no
    company, so an edit of one is no company's)."""
    api = Api(sb.url, sb.private_key)
    if entity == "investors":
        companies = {c["id"] for c in api.pull("companies", filters={"include_deleted": True})}
        return [i["id"] for i in api.pull("investors") if i["id"] not in companies][:n]
    path = "transactions" if entity == "deals" else entity
    return [r["id"] for r in api.pull(path)][:n]


def _changes_answer(sb, entity: str) -> None:
    """Updates, inserts and a random round over the admin endpoint: each a 200."""
    admin_ok(sb, {"operation": "update", "entity": entity, "n": 400})
    admin_ok(sb, {"operation": "insert", "entity": entity, "n": 40})
    admin_ok(sb, {"operation": "random_round", "n": 600})


@pytest.mark.parametrize(
    ("entity", "change", "field"),
    [
        ("companies", lambda r: r.update(description=5), "description"),
        ("companies", lambda r: r.update(name=5), "name"),
        ("investors", lambda r: r.update(founded=2001.5), "founded"),
        ("investors", lambda r: r.update(employee_count="12"), "employee_count"),
        ("deals", lambda r: r.update(deal_raised="12", deal_valuation=None), "deal_raised"),
        ("deals", lambda r: r.update(deal_valuation=float("nan")), "deal_valuation"),
        ("deals", lambda r: r.update(deal_raised=10**400), "deal_raised"),
        ("deals", lambda r: r["deal_multiples"].update(ev_revenue="3"), "deal_multiples"),
        ("deals", lambda r: r.update(target_index=10**9), "target_index"),
        ("deals", lambda r: r.update(target_index=-1), "target_index"),
        ("deals", lambda r: r.update(investors=[{"name": "no id"}]), "investors"),
        ("companies", lambda r: r.update(description=None), "description"),
        ("companies", lambda r: r.update(city=None), "city"),
        ("investors", lambda r: r.update(linkedin=None), "linkedin"),
        ("investors", lambda r: r.update(founded=None), "founded"),
        ("companies", lambda r: r.update(company_type=None), "company_type"),
        ("companies", lambda r: r.update(name=None), "name"),
        ("deals", lambda r: r.update(deal_date=None), "deal_date"),
        ("deals", lambda r: r.update(deal_synopsis=None), "deal_synopsis"),
        ("companies", lambda r: r.update(region="Nowhere"), "region"),
        ("investors", lambda r: r.update(country="XX"), "country"),
        ("deals", lambda r: r.update(deal_type="Whatever"), "deal_type"),
        ("deals", lambda r: r.update(deal_type=""), "deal_type"),
        ("companies", lambda r: r.update(valuation={}), "valuation"),
        ("companies", lambda r: r.update(fundamentals={}), "fundamentals"),
        ("companies", lambda r: r.update(fundamentals=None), "fundamentals"),
        ("companies", lambda r: r.update(fundamentals={"x": 1}), "fundamentals"),
        ("deals", lambda r: r.update(investors=[{"id": "x"}]), "investors"),
        ("deals", lambda r: r["deal_multiples"].update(extra=1), "deal_multiples"),
        ("companies", lambda r: r.update(created_at="2024-W01-1T00:00+00:00"), "created_at"),
        ("deals", lambda r: r.update(created_at="2024-01-01 00:00:00+00:00"), "created_at"),
        ("investors", lambda r: r.update(employee_count=10**30), "employee_count"),
        ("deals", lambda r: r.update(deal_raised=np.float64(2.5)), "deal_raised"),
        ("companies", lambda r: r.pop("city"), "city"),
    ],
    ids=[
        "number description",
        "number name",
        "float year",
        "string head count",
        "string money",
        "nan money",
        "money past any float",
        "string multiple",
        "target out of range",
        "negative target",
        "participant with no id",
        "null description",
        "null city",
        "null linkedin",
        "null founding year",
        "null company type",
        "null name",
        "undated deal",
        "null synopsis",
        "region outside the vocabulary",
        "country not ISO-3",
        "deal type outside the vocabulary",
        "empty deal type",
        "valuation with no keys",
        "fundamentals with no keys",
        "null fundamentals",
        "fundamentals with another key",
        "participant with only an id",
        "multiples with an extra key",
        "week-date timestamp",
        "timestamp with a space",
        "head count past 64 bits",
        "numpy money",
        "removed field",
    ],
)
def test_an_edit_of_another_type_than_the_documents_is_refused(
    fresh, generated, entity: str, change: Callable[[dict], None], field: str
):
    """The edit is a ChangeInputError naming the field and what it must be; nothing is changed
    (the records read over HTTP are as before), and the changes go on answering 200."""
    api = Api(fresh.url, fresh.private_key)
    path = "transactions" if entity == "deals" else entity
    if entity not in generated:  # read over HTTP once: ``fresh`` serves the generated data
        ids = _some(fresh, entity, 30)
        generated[entity] = (ids, [api.ok_get(f"/{path}/{i}")["data"] for i in ids])
    ids, before = generated[entity]
    with pytest.raises(ChangeInputError) as caught:
        Changes(fresh.state, seed=1).edit(entity, ids, change)
    assert caught.value.argument == "change"
    assert f"({field}: must be " in str(caught.value), str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert [api.ok_get(f"/{path}/{i}")["data"] for i in ids] == before
    _changes_answer(fresh, entity)


def test_an_edit_keeping_the_documents_types_is_applied(fresh):
    """Values of the document's types are kept as given: an integer founding year, nulls where
    the document allows them, an integer money figure, a company's row as a target."""
    api = Api(fresh.url, fresh.private_key)
    [investor] = _some(fresh, "investors", 1)
    [deal] = _some(fresh, "deals", 1)
    changes = Changes(fresh.state, seed=1)
    changes.edit("investors", investor, lambda r: r.update(founded=1990, ceo=None))
    profile = api.ok_get(f"/investors/{investor}")["data"]
    assert (profile["founded"], profile["ceo"]) == (1990, None)
    companies = np.flatnonzero(fresh.state.private.orgs.columns["is_company"])
    target = int(companies[-1])
    changes.edit("deals", deal, lambda r: r.update(deal_raised=12, target_index=target))
    row = api.ok_get(f"/transactions/{deal}")["data"]
    assert row["deal_raised"] == 12
    assert row["target"]["id"] == fresh.state.private.orgs.columns["id"][target]
    _changes_answer(fresh, "investors")


def test_identity_edits_of_every_record_are_accepted_and_served_as_documented(fresh):
    """Every record edited to itself, before and after random rounds, is accepted; the
    profiles then served pass the document's shape checks."""
    changes = Changes(fresh.state, seed=1)
    private = fresh.state.private
    for _ in range(2):
        for entity, store in (("companies", private.orgs), ("deals", private.deals)):
            ids = [str(i) for i in store.columns["id"]]
            assert len(changes.edit(entity, ids, lambda r: None)) == len(ids)
        admin_ok(fresh, {"operation": "random_round", "n": 300})
    api = Api(fresh.url, fresh.private_key)
    for company in api.pull("companies")[:50]:
        check_company_profile(api.ok_get(f"/companies/{company['id']}")["data"])
    for deal in api.pull("transactions")[:50]:
        check_deal_profile(api.ok_get(f"/transactions/{deal['id']}")["data"])


def test_identity_edits_are_accepted_at_another_scale_and_seed():
    """The same at scale 0.1, seed 5 (in-process): every record edited to itself is accepted,
    before and after random rounds."""
    state = SandboxState.build(SandboxConfig(scale=0.1, seed=5))
    changes = Changes(state, seed=2)
    for _ in range(2):
        for entity, store in (("investors", state.private.orgs), ("deals", state.private.deals)):
            ids = [str(i) for i in store.columns["id"]]
            assert len(changes.edit(entity, ids, lambda r: None)) == len(ids)
        changes.random_round(500)
