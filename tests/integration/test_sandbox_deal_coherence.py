"""A deal's kind fits its target and participants on its date, and investors lead (issue 2).

An audit found data the real service could not hold: ``Secondary - public`` deals (a sale of
listed shares) targeting companies never listed, ``Secondary - private`` deals of companies
listed by then, a ``Strategic M&A`` bought by a venture fund and ``PE buyout`` deals by firms
that are no private equity, investors inserted by the changes leading no deal (section 4.3:
"investors are organisations that led funding rounds or acquired companies"), and the changes'
soft deletes taking away an investor's last live deal. Each rule is read over HTTP, from the
interface document's fields, in the generated data and after the changes (docs/sandbox.md,
"Clock and data" and "What changes").
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _private_api import Api
from _sandbox_changes import admin_ok, sandbox_fixtures

_PRIVATE_ROUNDS = {"Early", "Venture", "Growth"}

sb, fresh = sandbox_fixtures(seed=7)


def _listed_by(company: dict, day: str) -> bool:
    return company["ipoed"] is not None and company["ipoed"] <= day


def _misfit_secondaries(companies: list[dict], deals: list[dict]) -> list[tuple]:
    """Secondaries whose target's listing on the deal's date contradicts the subtype."""
    by_id = {c["id"]: c for c in companies}
    wrong = []
    for d in deals:
        target = by_id[d["target"]["id"]]
        listed = _listed_by(target, d["deal_date"])
        if (d["deal_subtype"] == "Secondary - public" and not listed) or (
            d["deal_subtype"] == "Secondary - private" and listed
        ):
            wrong.append((d["deal_subtype"], d["deal_date"], target["ipoed"]))
    return wrong


def test_secondaries_fit_their_targets_listing(sandbox):
    """A public secondary's target is listed by the deal's date; a private one's is not."""
    api = Api(sandbox.url, sandbox.private_key)
    companies = api.pull("companies", filters={"include_deleted": True})
    secondaries = api.pull(
        "transactions", filters={"include_deleted": True, "deal_type": ["Secondary"]}
    )
    kinds = {d["deal_subtype"] for d in secondaries}
    assert kinds == {"Secondary - public", "Secondary - private"}
    assert sum(d["deal_subtype"] == "Secondary - public" for d in secondaries) > 20
    wrong = _misfit_secondaries(companies, secondaries)
    assert wrong == [], (len(wrong), wrong[:3])


def test_acquirers_are_of_their_deals_kind(sandbox):
    """A Strategic M&A is bought by a corporate (an organisation in the companies list), a PE
    buyout by a private equity firm (its profile's ``company_type``)."""
    api = Api(sandbox.url, sandbox.private_key)
    companies = {c["id"] for c in api.pull("companies", filters={"include_deleted": True})}
    deals = api.pull("transactions", filters={"include_deleted": True, "deal_type": ["M&A"]})
    strategic = [p for d in deals if d["deal_subtype"] == "Strategic M&A" for p in d["buyers"]]
    buyout = {p["id"] for d in deals if d["deal_subtype"] == "PE buyout" for p in d["buyers"]}
    assert len(strategic) > 100 and len(buyout) > 10
    assert [p["name"] for p in strategic if p["id"] not in companies] == []
    kinds = {
        ident: api.ok_get(f"/investors/{ident}", fields="company_type", include_deleted="true")[
            "data"
        ]["company_type"]
        for ident in sorted(buyout)
    }
    assert {i: k for i, k in kinds.items() if k != ["Private equity"]} == {}


def test_an_inserted_investor_leads_a_round_that_keeps_the_rules(fresh):
    """An investor inserted by the changes leads one new funding round: found by
    ``/investments`` and ``investor_id``, dated on or after its founding, recorded with it,
    targeting another company as any round may."""
    new = admin_ok(fresh, {"operation": "insert", "entity": "investors", "n": 25})["ids"]
    assert len(new) == 25
    api = Api(fresh.url, fresh.private_key)
    companies = {c["id"]: c for c in api.pull("companies", filters={"include_deleted": True})}
    wrong, rounds = [], []
    for ident in new:
        profile = api.ok_get(f"/investors/{ident}")["data"]
        rows = api.pull_sub(f"/investors/{ident}/investments")
        found = api.pull("transactions", filters={"investor_id": [ident]})
        assert [r["role"] for r in rows] == ["lead_investor"], (ident, rows)
        assert [d["id"] for d in found] == [r["id"] for r in rows]
        [deal] = found
        rounds.append(deal)
        target = companies[deal["target"]["id"]]
        if (
            deal["deal_type"] in {"M&A", "Public listing"}
            or ident not in {p["id"] for p in deal["lead_investors"]}
            or len(deal["lead_investors"]) > 3
            or deal["deal_date"] < f"{profile['founded']:04d}-01-01"
            or deal["deal_date"] < f"{target['founded']:04d}-01-01"
            or deal["created_at"] < profile["created_at"]
            or target["id"] == ident
            or (deal["deal_type"] in _PRIVATE_ROUNDS and _listed_by(target, deal["deal_date"]))
        ):
            wrong.append((profile["founded"], profile["created_at"], deal))
        full = api.ok_get(f"/transactions/{deal['id']}")["data"]
        assert ident in {p["id"] for p in full["investors"]}  # a lead is among the investors
    assert wrong == [], wrong[:2]
    assert len(rounds) == len(new)
    assert _misfit_secondaries(list(companies.values()), rounds) == []


def test_inserted_secondaries_fit_their_targets_listing(fresh):
    new = set(admin_ok(fresh, {"operation": "insert", "entity": "deals", "n": 600})["ids"])
    api = Api(fresh.url, fresh.private_key)
    companies = api.pull("companies", filters={"include_deleted": True})
    deals = api.pull("transactions", filters={"deal_type": ["Secondary"]})
    inserted = [d for d in deals if d["id"] in new]
    assert sum(d["deal_subtype"] == "Secondary - public" for d in inserted) >= 3
    assert sum(d["deal_subtype"] == "Secondary - private" for d in inserted) >= 3
    assert _misfit_secondaries(companies, inserted) == []


def test_soft_deletes_leave_every_investor_a_live_deal_it_leads(fresh):
    """The changes' soft deletes of deals keep, for each investor, soft-deleted or not, one live
    deal it leads or buys: inserted investors (one round each) and generated ones alike, and
    investors soft-deleted while the deals go, then undeleted."""
    api = Api(fresh.url, fresh.private_key)
    admin_ok(fresh, {"operation": "insert", "entity": "investors", "n": 40})
    away = admin_ok(fresh, {"operation": "soft_delete", "entity": "investors", "n": 25})["ids"]
    assert len(away) == 25
    done = admin_ok(fresh, {"operation": "soft_delete", "entity": "deals", "n": 900})["ids"]
    assert len(done) > 500  # most deals went
    everyone = api.pull("investors", filters={"include_deleted": True})
    deleted = {i["id"] for i in everyone if i["deleted"]}
    assert deleted >= set(away)
    back = admin_ok(fresh, {"operation": "undelete", "entity": "investors", "n": len(deleted)})
    assert set(back["ids"]) == deleted
    deals = api.pull("transactions")  # the live ones
    leading = {p["id"] for d in deals for p in [*d["lead_investors"], *d["buyers"]]}
    idle = [(i["name"], i["id"] in deleted) for i in everyone if i["id"] not in leading]
    assert idle == [], (len(idle), idle[:5])
    assert {i["id"] for i in api.pull("investors")} == {i["id"] for i in everyone}
