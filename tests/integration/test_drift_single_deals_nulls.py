"""Single deals' investors, participants without an id, and nulls the document gives none, over
real HTTP through the drift proxy.

- A single deal (``GET /transactions/{id}``) "also has investors (array of Participant), the
  full investor list" (interface document, section 2.2): served null, every deal of
  ``deals(..., with_investors=True)`` lost its investors without a word. Now ``null_field``.
- Participants (``investors``, ``lead_investors``, ``buyers``) served without their ``id``
  made ``co_investment_edges`` lose most edges without a word. Now ``missing_identity``,
  naming the deals.
- A documented field absent from every single deal was one warning per deal (182 for one
  call). Now one ``missing_field`` for the call, with the count and the first ids.
- Names, counts, booleans and timestamps the document gives no null (sub-collection items'
  ``name``, Family A search's ``name``, ``active``, ``rounds_count`` ...) passed null silently.
  Now ``null_field``, as list names were.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    direct,
    drop_field,
    fresh,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
    set_field,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import MissingDataWarning, ServiceContractWarning

P = "/api/private/v1"
SINGLE = rf"{P}/transactions/[0-9a-f-]+$"
DEALS = {"deal_type": ["Venture"], "limit": 40}


def _kinds(findings: list[dict[str, Any]], kind: str) -> list[str]:
    return [f["message"] for f in findings if f["kind"] == kind]


def _without_ids(column: str) -> Any:
    def change(item: dict[str, Any]) -> None:
        item[column] = [{k: v for k, v in p.items() if k != "id"} for p in item.get(column) or []]

    return items_edit(change, f"{column} without ids")


@pytest.fixture(scope="module")
def with_investors(direct: Any) -> Any:
    return direct.private.deals(**DEALS, with_investors=True)


def test_a_clean_pull_says_none_of_these(fresh: Any, with_investors: Any) -> None:
    """No false alarm: the sandbox's answers, through the proxy untouched, say nothing."""
    o = outcome(lambda: fresh.private.deals(**DEALS, with_investors=True))
    assert o.error is None, repr(o.error)
    assert not o.warned(ServiceContractWarning), o.warned(ServiceContractWarning)
    assert with_investors["investors"].notna().all()


def test_single_deals_with_null_investors_are_a_null_field(fresh: Any, proxy: Any) -> None:
    proxy.add(SINGLE, set_field("investors", None))
    o = outcome(lambda: fresh.private.deals(**DEALS, with_investors=True))
    assert o.error is None, repr(o.error)
    frame = o.value
    assert frame["investors"].isna().all()
    said = _kinds(frame.attrs["profiles"]["findings"], "null_field")
    assert len(said) == 1 and "investors in 40 of 40 rows: id " in said[0], said
    assert frame["id"].iloc[0] in said[0]
    warned = [m for m in o.warned(ServiceContractWarning) if "investors in" in m]
    assert len(warned) == 1, warned
    with pytest.raises(ServiceContractError, match="investors in 40 of 40"):
        fresh.private.deals(**DEALS, with_investors=True, strict=True)


def test_single_deals_investors_without_ids_are_a_missing_identity(
    fresh: Any, proxy: Any, with_investors: Any
) -> None:
    proxy.add(SINGLE, _without_ids("investors"))
    o = outcome(lambda: fresh.private.deals(**DEALS, with_investors=True))
    assert o.error is None, repr(o.error)
    said = _kinds(o.value.attrs["profiles"]["findings"], "missing_identity")
    assert len(said) == 1, said
    assert "have no 'id' (investors)" in said[0] and "of 40 deals: id " in said[0], said
    assert with_investors["id"].iloc[0] in said[0]
    assert any("have no 'id'" in m for m in o.warned(ServiceContractWarning))


def test_list_rows_lead_investors_without_ids_are_a_missing_identity(
    fresh: Any, proxy: Any
) -> None:
    proxy.add(rf"{P}/transactions$", _without_ids("lead_investors"))
    o = outcome(lambda: fresh.private.deals(**DEALS))
    assert o.error is None, repr(o.error)
    said = _kinds(o.value.attrs["findings"], "missing_identity")
    assert len(said) == 1 and "have no 'id' (lead_investors)" in said[0], said


def test_a_field_absent_from_every_single_deal_is_said_once(fresh: Any, proxy: Any) -> None:
    proxy.add(SINGLE, drop_field("investors"))
    o = outcome(lambda: fresh.private.deals(**DEALS, with_investors=True))
    assert o.error is None, repr(o.error)
    absent = [m for m in o.warned(ServiceContractWarning) if "absent" in m]
    assert len(absent) == 1, absent[:3]
    assert "investors in 40 of 40 answers: id " in absent[0] and "and 35 more" in absent[0]
    said = _kinds(o.value.attrs["profiles"]["findings"], "missing_field")
    assert len(said) == 1, said


@pytest.mark.parametrize(
    ("path", "field", "read"),
    [
        (rf"{P}/investors/[0-9a-f-]+/portfolio", "name", "portfolio"),
        (rf"{P}/investors/[0-9a-f-]+/portfolio", "rounds_count", "portfolio"),
        (rf"{P}/investors/[0-9a-f-]+/portfolio", "led_any_round", "portfolio"),
        (rf"{P}/investors/[0-9a-f-]+/co_investors", "name", "co_investors"),
        (rf"{P}/companies/[0-9a-f-]+/investors", "name", "company_investors"),
        (rf"{P}/companies$", "active", "companies"),
        (rf"{P}/transactions$", "deleted", "deals"),
        (rf"{P}/transactions$", "created_at", "deals"),
    ],
)
def test_nulls_the_document_gives_none_are_said(
    fresh: Any, direct: Any, proxy: Any, path: str, field: str, read: str
) -> None:
    calls = {
        "portfolio": lambda c, ids: c.private.portfolio(ids["investors"]),
        "co_investors": lambda c, ids: c.private.co_investors(ids["investors"]),
        "company_investors": lambda c, ids: c.private.company_investors(ids["companies"]),
        "companies": lambda c, ids: c.private.companies(),
        "deals": lambda c, ids: c.private.deals(**DEALS),
    }
    deals = direct.private.deals(deal_type=["Venture"])
    ids = {
        "investors": direct.private.investors()["id"].iloc[:3].tolist(),
        "companies": deals["target_id"].dropna().unique()[:3].tolist(),
    }
    proxy.add(path, set_field(field, None, first=2))
    o = outcome(lambda: calls[read](fresh, ids))
    assert o.error is None, repr(o.error)
    said = _kinds(o.value.attrs["findings"], "null_field")
    assert len(said) == 1 and f"no null: {field} in " in said[0], said


def test_family_a_search_name_null_is_said_with_skus(fresh: Any, proxy: Any) -> None:
    proxy.add(r"/api/v2/companies$", set_field("name", None, first=3))
    o = outcome(fresh.public.search)
    assert o.error is None, repr(o.error)
    frame = o.value
    said = _kinds(frame.attrs["findings"], "null_field")
    assert len(said) == 1 and "name in 3 of " in said[0], said
    assert f"sku {frame.index[0]}" in said[0], said


def test_single_deals_of_another_id_are_said_once(fresh: Any, proxy: Any) -> None:
    """Every single deal answered with another deal's id: one wrong_entity for the call."""
    other = "00000000-0000-4000-8000-000000000001"
    proxy.add(SINGLE, set_field("id", other))
    o = outcome(lambda: fresh.private.deals(**DEALS, with_investors=True))
    assert o.error is None, repr(o.error)
    said = _kinds(o.value.attrs["profiles"]["findings"], "wrong_entity")
    assert len(said) == 1 and said[0].startswith("40 of 40 answers are of another id: "), said
    assert said[0].endswith(" and 35 more") and other in said[0], said
    assert len([m for m in o.warned(ServiceContractWarning) if "another id" in m]) == 1


# A call with include_deleted=True reads the live deals' and the soft-deleted deals' single
# forms in two parts: what they are found to be is still said once for the call.


@pytest.fixture(scope="module")
def mixed(direct: Any) -> list[str]:
    """Six live deals' ids and four soft-deleted ones'."""
    deals = direct.private.deals({"include_deleted": True}, deal_type=["Venture"])
    gone = deals["deleted"].fillna(False).astype(bool)
    ids = deals.loc[~gone, "id"].iloc[:6].tolist() + deals.loc[gone, "id"].iloc[:4].tolist()
    assert len(ids) == 10, "the sandbox has soft-deleted Venture deals"
    return ids


def _mixed_deals(client: Any, ids: list[str]) -> Any:
    return client.private.deals({"include_deleted": True}, id=ids, with_investors=True)


@pytest.mark.parametrize(
    ("action", "kind", "said"),
    [
        (set_field("investors", None), "null_field", "investors in 10 of 10 rows: id "),
        (_without_ids("investors"), "missing_identity", "have no 'id' (investors), in "),
        (
            set_field("id", "00000000-0000-4000-8000-000000000001"),
            "wrong_entity",
            "10 of 10 answers are of another id: ",
        ),
    ],
)
def test_live_and_deleted_single_deals_are_said_once(
    fresh: Any, proxy: Any, mixed: list[str], action: Any, kind: str, said: str
) -> None:
    proxy.add(SINGLE, action)
    o = outcome(lambda: _mixed_deals(fresh, mixed))
    assert o.error is None, repr(o.error)
    assert o.value["deleted"].fillna(False).astype(bool).sum() == 4
    found = _kinds(o.value.attrs["profiles"]["findings"], kind)
    assert len(found) == 1 and said in found[0], found
    if kind == "missing_identity":
        assert " of 10 deals: id " in found[0], found
    warned = [m for m in o.warned(ServiceContractWarning) if said in m]
    assert len(warned) == 1, warned


def test_a_field_absent_from_some_single_deals_is_no_null_field(
    fresh: Any, proxy: Any, mixed: list[str]
) -> None:
    """Absent from one live and one soft-deleted deal's answer: said as absent, once; the
    null it leaves in those rows is that absence, not a null_field besides."""
    for ident in (mixed[0], mixed[-1]):
        proxy.add(rf"{P}/transactions/{ident}$", drop_field("investors"))
    o = outcome(lambda: _mixed_deals(fresh, mixed))
    assert o.error is None, repr(o.error)
    findings = o.value.attrs["profiles"]["findings"]
    absent = _kinds(findings, "missing_field")
    assert len(absent) == 1 and "investors in 2 of 10 answers: id " in absent[0], absent
    assert mixed[0] in absent[0] and mixed[-1] in absent[0], absent
    assert not _kinds(findings, "null_field"), findings
    assert o.value["investors"].isna().sum() == 2


def test_single_deals_all_of_another_id_are_not_said_deleted(
    fresh: Any, proxy: Any, mixed: list[str]
) -> None:
    """Every single deal answered with another id: the warning of the rows left incomplete
    says so, not that they have no single form (deleted since the list was read)."""
    proxy.add(SINGLE, set_field("id", "00000000-0000-4000-8000-000000000001"))
    o = outcome(lambda: _mixed_deals(fresh, mixed))
    assert o.error is None, repr(o.error)
    missing = [str(w.message) for w in o.caught if w.category is MissingDataWarning]
    assert len(missing) == 1, missing
    assert missing[0].startswith("10 of 10 deals came back under another id"), missing
    assert "no single form" not in missing[0], missing
