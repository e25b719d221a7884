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

from dealframe.sandbox.changes import ChangeInputError, Changes

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api
from _sandbox_changes import admin_ok, sandbox_fixtures

sb, fresh = sandbox_fixtures(seed=3)

_ROUNDS = ["Early", "Venture", "Growth", "Secondary"]


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


def test_rounds_with_no_date_leave_inserted_investors_rounds_to_lead(fresh):
    """Two funding rounds in three left with no date: every investor inserted still leads a
    round, one of the dated rounds' copies (an undated one would sort after every founding
    year and its copies find no target)."""
    api = Api(fresh.url, fresh.private_key)
    rounds = [d["id"] for d in api.pull("transactions", filters={"deal_type": _ROUNDS})]
    undated = [d for k, d in enumerate(rounds) if k % 3]  # every date still among the rest
    Changes(fresh.state, seed=1).edit("deals", undated, lambda d: d.update(deal_date=None))
    new = admin_ok(fresh, {"operation": "insert", "entity": "investors", "n": 1000})["ids"]
    assert len(new) == 1000
    led = api.pull("transactions", filters={"investor_id": new})
    assert len(led) == 1000 and all(d["deal_date"] is not None for d in led)


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
    ],
)
def test_an_edit_of_another_type_than_the_documents_is_refused(
    fresh, entity: str, change: Callable[[dict], None], field: str
):
    """The edit is a ChangeInputError naming the field and what it must be; nothing is changed
    (the records read over HTTP are as before), and the changes go on answering 200."""
    api = Api(fresh.url, fresh.private_key)
    ids = _some(fresh, entity, 30)
    path = "transactions" if entity == "deals" else entity
    before = [api.ok_get(f"/{path}/{i}")["data"] for i in ids]
    with pytest.raises(ChangeInputError) as caught:
        Changes(fresh.state, seed=1).edit(entity, ids, change)
    assert caught.value.argument == "change"
    assert f"({field}: must be " in str(caught.value), str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert [api.ok_get(f"/{path}/{i}")["data"] for i in ids] == before
    _changes_answer(fresh, entity)


def test_a_null_description_is_updated_and_rounds_go_on(fresh):
    """Text may be null: an organisation left with no description gets one from an update
    (``Update <k>.``), and the changes' updates, inserts and rounds answer 200."""
    api = Api(fresh.url, fresh.private_key)
    ids = _some(fresh, "companies", 40)
    changes = Changes(fresh.state, seed=1)
    changes.edit("companies", ids, lambda r: r.update(description=None))
    assert {api.ok_get(f"/companies/{i}")["data"]["description"] for i in ids} == {None}
    updated = changes.update("companies", 100_000)  # every live company
    assert set(ids) <= set(updated)
    said = {api.ok_get(f"/companies/{i}")["data"]["description"] for i in ids}
    assert all(s.startswith("Update ") for s in said), said
    changes.edit("companies", ids, lambda r: r.update(description=None))
    _changes_answer(fresh, "companies")


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
