"""A documented field missing (or renamed) on one page or chunk only, and SKUs a search
lists out of the document's layout, over real HTTP through the drift proxy.

A field the service left out of every item of one page, and served on the others, used to
be checked over the members of all pages together: present on some, it was "there", and
the page's values were lost without a word (``deal_valuation`` served as ``dealValuation``
on page 2: NaN in 1,000 rows, a new column, no warning). Each page (each chunk of SKUs) is
now checked too: a ``missing_field`` finding names the pages and their rows, and the member
those pages alone hold that is likely the field under another name.

A search whose SKUs the service writes in lower case (``aer-dnk``) handed back identifiers
that ``current`` then refused before sending. The search now says so (``unknown_value``),
and ``current`` / ``time_series`` take back, as served, the SKUs this client was listed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    clamp_limit,
    direct,
    fresh,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
    refuse,
)

from dealframe.errors import ServiceContractError, ValidationError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
DEALS = f"^{P}/transactions$"
COMPANIES = f"^{P}/companies$"
FUNDINGS = f"^{P}/companies/[^/]+/fundings$"
CURRENT = "^/api/v2/companies/current$"
SEARCH = "^/api/v2/companies$"


def renamed(old: str, new: str) -> Action:
    """Every item's ``old`` member served as ``new``."""

    def change(item: dict[str, Any]) -> None:
        if old in item:
            item[new] = item.pop(old)

    return items_edit(change, f"renamed({old}->{new})")


def _per_page(messages: list[str]) -> list[str]:
    return [m for m in messages if "absent from every item of some answers" in m]


def test_a_field_renamed_on_one_deal_page_is_said_naming_the_page_and_the_spelling(
    fresh: Any, proxy: Any
) -> None:
    proxy.add(DEALS, renamed("deal_valuation", "dealValuation"), page=2)
    o = outcome(fresh.private.deals)
    assert o.error is None, repr(o.error)
    said = _per_page(o.warned(ServiceContractWarning))
    assert len(said) == 1, o.warned(ServiceContractWarning)
    assert "deal_valuation on page 2 (1,000 rows)" in said[0], said
    assert "there as dealValuation (the same name in another case" in said[0], said
    kinds = {f["kind"] for f in o.value.attrs["findings"]}
    assert "missing_field" in kinds, o.value.attrs["findings"]


def test_strict_raises_for_a_field_lost_on_one_page(fresh: Any, proxy: Any) -> None:
    proxy.add(DEALS, renamed("deal_valuation", "dealValuation"), page=2)
    o = outcome(lambda: fresh.private.deals(strict=True))
    assert isinstance(o.error, ServiceContractError), repr(o.error)
    assert "deal_valuation on page 2" in str(o.error), str(o.error)


def test_a_field_served_under_another_name_on_one_page_names_that_member(
    fresh: Any, proxy: Any
) -> None:
    """Not the same name folded: the one member those pages alone hold is named as likely."""
    proxy.add(COMPANIES, renamed("ipoed", "ipo_date"), page=2)
    o = outcome(fresh.private.companies)
    assert o.error is None, repr(o.error)
    said = _per_page(o.warned(ServiceContractWarning))
    assert len(said) == 1 and "ipoed on page 2 (" in said[0], said
    assert "perhaps there as ipo_date" in said[0], said


def test_a_field_renamed_on_every_page_is_said_once_as_before(fresh: Any, proxy: Any) -> None:
    proxy.add(DEALS, renamed("deal_valuation", "dealValuation"))
    o = outcome(fresh.private.deals)
    messages = o.warned(ServiceContractWarning)
    assert not _per_page(messages), messages
    assert any("absent from all" in m and "deal_valuation" in m for m in messages), messages


def test_a_field_dropped_on_page_2_of_a_sub_collection_is_said(
    fresh: Any, direct: Any, proxy: Any
) -> None:
    deals = direct.private.deals()
    busy = deals["target_id"].value_counts()
    companies = busy[busy > 5].index[:3].tolist()
    assert companies, "the sandbox has no company with more than 5 fundings"
    proxy.add(FUNDINGS, clamp_limit(5))
    proxy.add(FUNDINGS, renamed("deal_raised", "dealRaised"), page=2)
    o = outcome(lambda: fresh.private.fundings(companies))
    assert o.error is None, repr(o.error)
    said = _per_page(o.warned(ServiceContractWarning))
    assert len(said) == 1, o.warned(ServiceContractWarning)
    assert f"deal_raised on {companies[0]} page 2 (" in said[0], said
    assert "there as dealRaised" in said[0], said


def test_a_field_renamed_in_one_chunk_of_skus_is_said_naming_the_chunk(
    fresh: Any, direct: Any, proxy: Any
) -> None:
    skus = direct.public.search().index.tolist()[:90]
    # a service that takes 30 SKUs a request: three chunks, the second renames a field
    proxy.add(
        CURRENT,
        refuse(
            400,
            lambda n: {"error": {"code": "BAD_REQUEST", "message": f"skus: at most 30, got {n}"}},
            30,
            "skus",
        ),
        method="POST",
    )
    proxy.add(
        CURRENT,
        renamed("evRevenueNtm", "ev_rev_ntm"),
        when=lambda ex: isinstance(ex.body, dict) and ex.body.get("skus", [None])[0] == skus[30],
    )
    o = outcome(lambda: fresh.public.current(skus))
    assert o.error is None, repr(o.error)
    said = _per_page(o.warned(ServiceContractWarning))
    assert len(said) == 1, o.warned(ServiceContractWarning)
    assert f"evRevenueNtm on chunk 2 ({skus[30]} ... {skus[59]}) (30 rows)" in said[0], said
    assert "perhaps there as ev_rev_ntm" in said[0], said


def _lower_case_service() -> tuple[Action, Action]:
    """A service whose SKUs are in lower case: listed so, and read back whatever their case
    (the sandbox, behind, takes the document's layout)."""

    def ask(ex: Exchange) -> None:
        if isinstance(ex.body, dict) and isinstance(ex.body.get("skus"), list):
            ex.body["skus"] = [s.upper() for s in ex.body["skus"]]
            ex.raw_body = __import__("orjson").dumps(ex.body)

    def lower(item: dict[str, Any]) -> None:
        if isinstance(item.get("sku"), str):
            item["sku"] = item["sku"].lower()

    return Action("upper_skus_asked", on_request=ask), items_edit(lower, "lower_skus")


@pytest.mark.parametrize("call", ["current", "time_series"])
def test_skus_a_search_lists_in_lower_case_are_said_and_taken_back(
    call: str, fresh: Any, proxy: Any
) -> None:
    ask, lower = _lower_case_service()
    proxy.add(SEARCH, lower)
    proxy.add("^/api/v2/companies/(current|time-series)$", ask, lower)
    listed = outcome(fresh.public.search)
    assert listed.error is None, repr(listed.error)
    skus = listed.value.index[:5].tolist()
    assert all(s == s.lower() for s in skus), skus
    said = [m for m in listed.warned(ServiceContractWarning) if "outside the v2 layout" in m]
    assert len(said) == 1 and skus[0] in said[0], listed.warned(ServiceContractWarning)
    assert "take them back as the service wrote them" in said[0], said
    if call == "current":
        got = outcome(lambda: fresh.public.current(skus))
    else:
        got = outcome(lambda: fresh.public.time_series(skus, shape="long"))
    assert got.error is None, repr(got.error)
    returned = got.value.index if call == "current" else got.value["sku"]
    assert set(returned) == set(skus), returned
    assert got.value.attrs["missing_skus"] == []
    # a SKU out of the layout that no search listed is still refused before sending
    sent = sum(proxy.hits.values())
    refused = outcome(lambda: getattr(fresh.public, call)(["zzzz-usa"]))
    assert isinstance(refused.error, ValidationError), repr(refused.error)
    assert sum(proxy.hits.values()) == sent
