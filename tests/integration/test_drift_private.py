"""Family B answers that decide open points another way, over the drift proxy: resolve
candidates without scores (or not in score order), sub-collections refusing the document's
``limit``, ``role`` values written in another case, profiles that ignore ``include_deleted``.

Each test rewrites the sandbox's answers into such a service and asserts that the client reads
the same frame as one talking to the sandbox directly, or says exactly what it saw: never a
silently chosen id, an error for a bound it could have learnt, or rows it was not asked for.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    via,
)

from dealframe.errors import NotFoundError, ServiceContractError
from dealframe.frames.schemas import ROLES
from dealframe.notices import MissingDataWarning, ServiceContractWarning

P = "/api/private/v1"
RESOLVE = f"^{P}/companies/resolve$"
INVESTMENTS = f"^{P}/investors/[^/]+/investments$"
BUYSIDE = f"^{P}/companies/[^/]+/buyside$"
PROFILE = f"^{P}/companies/[^/]+$"


# ---------------------------------------------------------------------------------- resolve


@pytest.fixture(scope="module")
def shared_names(direct: Any) -> list[str]:
    """Names that several companies carry (resolved as ambiguous, their best candidates tie)."""
    counts = direct.private.companies()["name"].value_counts()
    names = counts[counts > 1].index.tolist()[:4]
    assert len(names) >= 2, "the tests need names shared by several companies"
    return names


def candidates_edit(change: Any) -> Action:
    def apply(doc: Any) -> Any:
        for result in doc["data"]:
            result["candidates"] = change(result.get("candidates") or [])
        return doc

    return edit(apply, "candidates")


def _unscored(kind: str) -> Any:
    def change(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for candidate in candidates:
            if kind == "missing":
                candidate.pop("score", None)
            else:
                candidate["score"] = None
        return candidates

    return change


@pytest.mark.parametrize("kind", ["missing", "null"])
def test_best_of_candidates_without_scores_is_not_chosen(kind, via, proxy, shared_names):
    """Candidates without ``score``: on_ambiguous="best" cannot tell a best one, so each
    name keeps a null id, listed in attrs["unscored"] and said naming candidates[].score
    (it silently took the first of several same-named companies)."""
    proxy.add(RESOLVE, candidates_edit(_unscored(kind)))
    o = outcome(lambda: via.private.resolve_companies(shared_names, on_ambiguous="best"))
    assert o.error is None, repr(o.error)
    matches, candidates = o.value
    assert matches["id"].isna().all(), matches
    assert matches.attrs["unscored"] == shared_names
    assert matches.attrs["tied"] == []
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "candidates[].score missing or null" in said[0], said
    assert repr(shared_names[0]) in said[0]
    assert [f["kind"] for f in matches.attrs["findings"]] == ["missing_field"]
    assert set(candidates["query"]) == set(shared_names)
    with pytest.raises(ServiceContractError, match=r"candidates\[\]\.score"):
        via.private.resolve_companies(shared_names, on_ambiguous="best", strict=True)


def test_best_candidate_is_the_highest_score_in_any_order(direct, via, proxy):
    """Candidates listed lowest score first: "best" takes the highest score, not the first
    listed (the sandbox lists them by score: an order another service need not keep)."""
    names = direct.private.investors()["name"].str.split().str[0].drop_duplicates().tolist()
    ref = outcome(lambda: direct.private.resolve_investors(names[:200], on_ambiguous="best")).value
    chosen = ref.matches[ref.matches["match_type"] == "ambiguous"].dropna(subset=["id"])
    assert len(chosen) > 2, "the test needs ambiguous names with one best candidate"
    proxy.add(f"^{P}/investors/resolve$", candidates_edit(lambda c: c[::-1]))
    o = outcome(lambda: via.private.resolve_investors(names[:200], on_ambiguous="best"))
    assert o.error is None, repr(o.error)
    assert o.value.matches["id"].tolist() == ref.matches["id"].tolist()
    assert o.value.matches.attrs["tied"] == ref.matches.attrs["tied"]


# ---------------------------------------------------------------------------- sub-collections


def refuse_limit(over: int) -> Action:
    """A GET whose ``limit`` is above ``over`` refused with a 400 stating the bound."""

    def apply(ex: Any) -> None:
        sent = ex.query.get("limit")
        if sent is not None and int(sent) > over:
            said = f"limit: must be between 1 and {over}, got {sent}"
            ex.forward, ex.status, ex._doc = False, 400, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps({"error": {"code": "BAD_REQUEST", "message": said}})

    return Action(f"refuse_limit({over})", on_request=apply)


@pytest.fixture(scope="module")
def busy_investors(direct: Any) -> list[str]:
    """Investors with many investments, most first (the first more than 50: several pages of 50)."""
    profiles = direct.private.investors()
    ids = profiles["id"].tolist()[:30]
    made = direct.private.investments(ids)
    counts = made["investor_id"].value_counts()
    assert counts.max() > 50, "the tests need more than one page of 50"
    return counts.index.tolist()


def test_sub_collections_refusing_limit_above_50_are_read_in_pages_of_50(
    direct, fresh, proxy, busy_investors
):
    """A sub-collection GET refusing ``limit=1000`` (400 "limit: must be between 1 and 50"):
    every id is asked again at 50, the rows are those of the sandbox, attrs says so once,
    and the client keeps the size (it used to raise the BadRequestError for every call)."""
    ref = direct.private.investments(busy_investors)
    proxy.add(INVESTMENTS, refuse_limit(50))
    o = outcome(lambda: fresh.private.investments(busy_investors, strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.value.attrs["page_size_refused"]
    assert said.startswith("limit 1000 refused (400") and said.endswith("pages of 50"), said
    assert "; " not in said  # said once, whatever the number of ids refused
    assert not o.warned(Warning)
    proxy.reset()
    proxy.add(INVESTMENTS, refuse_limit(50))
    one = busy_investors[0]
    again = fresh.private.investments(one)
    assert_same(again, direct.private.investments(one))
    assert "page_size_refused" not in again.attrs
    pages = -(-len(again) // 50)
    assert pages > 1
    assert proxy.count(INVESTMENTS) == pages  # none refused: the bound is remembered


def test_a_sub_collection_refusal_that_is_not_about_limit_is_raised(fresh, proxy, busy_investors):
    def refuse(ex: Any) -> None:
        ex.forward, ex.status, ex._doc = False, 400, None
        ex.headers = {"Content-Type": "application/json"}
        ex.content = orjson.dumps({"error": {"code": "BAD_REQUEST", "message": "page: bad"}})

    proxy.add(INVESTMENTS, Action("refuse", on_request=refuse))
    o = outcome(lambda: fresh.private.investments(busy_investors[0]))
    assert "page: bad" in str(o.error), repr(o.error)
    assert proxy.count(INVESTMENTS) == 1


# -------------------------------------------------------------------------------------- roles


def roles_as(mapping: dict[str, str]) -> Action:
    """Each row's ``role`` written as ``mapping`` says (in turn, when a value maps to several)."""

    def apply(doc: Any) -> Any:
        for row in doc["data"]:
            row["role"] = mapping.get(row.get("role"), row.get("role"))
        return doc

    return edit(apply, "roles")


@pytest.fixture(scope="module")
def acquirers(direct: Any) -> list[str]:
    """Companies with buyside deals."""
    companies = direct.private.companies()["id"].tolist()[:300]
    made = direct.private.buyside(companies)
    assert len(made) > 5
    return made["company_id"].drop_duplicates().tolist()


def test_role_values_in_another_case_are_read_as_the_vocabulary(
    direct, via, proxy, busy_investors, acquirers
):
    """``Lead_Investor``, ``BUYER``, ``buyer `` are ``lead_investor`` and ``buyer``: the same
    frames as the sandbox's, in the role vocabulary of explode_participants (they were extra
    categories, and ``role == "lead_investor"`` matched no row)."""
    ref = direct.private.investments(busy_investors)
    assert (ref["role"] == "lead_investor").any()
    proxy.add(INVESTMENTS, roles_as({"lead_investor": "Lead_Investor", "buyer": "buyer "}))
    proxy.add(BUYSIDE, roles_as({"lead_investor": "lead-investor", "buyer": "BUYER"}))
    o = outcome(lambda: via.private.investments(busy_investors, strict=True))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert o.value["role"].dtype == pd.CategoricalDtype(list(ROLES))
    bought = outcome(lambda: via.private.buyside(acquirers, strict=True))
    assert bought.error is None, repr(bought.error)
    assert_same(bought.value, direct.private.buyside(acquirers))
    assert bought.value["role"].dtype == pd.CategoricalDtype(list(ROLES))


def test_role_values_outside_the_vocabulary_are_kept_and_said(direct, via, proxy, busy_investors):
    ref = direct.private.investments(busy_investors)
    proxy.add(INVESTMENTS, roles_as({"buyer": "acquirer"}))
    o = outcome(lambda: via.private.investments(busy_investors))
    assert o.error is None, repr(o.error)
    buyers = int((ref["role"] == "buyer").sum())
    assert buyers and int((o.value["role"] == "acquirer").sum()) == buyers
    assert list(o.value["role"].cat.categories) == [*ROLES, "acquirer"]
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and f"'acquirer' ({buyers:,})" in said[0], said
    assert "role outside lead_investor, buyer, investor" in said[0]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["unknown_value"]
    with pytest.raises(ServiceContractError, match="acquirer"):
        via.private.investments(busy_investors, strict=True)


# ---------------------------------------------------------------------------- include_deleted


def send_include_deleted() -> Action:
    """A service that reads every profile request as if include_deleted were true."""

    def apply(ex: Any) -> None:
        ex.query["include_deleted"] = "true"

    return Action("ignore include_deleted", on_request=apply)


@pytest.fixture(scope="module")
def live_and_deleted(direct: Any) -> tuple[list[str], list[str]]:
    every = direct.private.companies(include_deleted=True)
    gone = every["deleted"].fillna(False).to_numpy(dtype=bool)
    live, deleted = every.loc[~gone, "id"].tolist()[:5], every.loc[gone, "id"].tolist()[:3]
    assert len(deleted) == 3, "the test needs soft-deleted companies"
    return live, deleted


def test_profiles_served_deleted_without_include_deleted_are_missing(
    direct, via, proxy, live_and_deleted
):
    """A service ignoring ``include_deleted=false`` serves soft-deleted companies: they are
    missing, as its 404 would have made them, and the answer is said (they came back as
    rows with ``deleted`` True, silently)."""
    live, deleted = live_and_deleted
    with pytest.warns(MissingDataWarning):
        ref = direct.private.company(live + deleted)
    assert ref.attrs["missing_ids"] == deleted
    proxy.add(PROFILE, send_include_deleted())
    o = outcome(lambda: via.private.company(live + deleted))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert o.value.attrs["missing_ids"] == deleted
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "include_deleted was not sent (the service ignored it)" in said[0]
    assert all(i in said[0] for i in deleted)
    missing = [m for m in o.warned(MissingDataWarning) if m not in said]
    assert len(missing) == 1 and "3 of 8 companies were not found" in missing[0]
    with pytest.raises(NotFoundError) as caught:
        via.private.company(deleted[0])
    assert caught.value.deleted and "ignored it" in str(caught.value)
    asked = via.private.company(deleted, include_deleted=True)
    assert asked["deleted"].all() and asked.attrs["missing_ids"] == []


# ------------------------------------------------------------------- sub-collection 404s


def not_found_when_empty() -> Action:
    """A service that answers 404 for a company that exists but has no fundings."""

    def apply(ex: Any) -> None:
        doc = ex.doc()
        if ex.status == 200 and isinstance(doc, dict) and doc.get("data") == []:
            ex.status, ex._doc = 404, None
            ex.headers = {"Content-Type": "application/json"}
            ex.content = orjson.dumps({"error": {"code": "NOT_FOUND", "message": "no fundings"}})

    return Action("404 when empty", on_response=apply)


def test_a_sub_collection_404_for_an_id_without_items_is_not_called_unknown(direct, via, proxy):
    """Some services answer 404 for an id that exists but has no sub-items: the missing-ids
    warning said "not found (or soft-deleted)", more than the client knows. It now says a 404
    and its possible causes; the ids are still in ``attrs["missing_ids"]``, the rows kept."""
    companies = direct.private.companies()["id"].tolist()[:40]
    ref = direct.private.fundings(companies)
    empty = [c for c in companies if c not in set(ref["company_id"])]
    assert empty and len(empty) < len(companies), "the test needs companies with and without"
    proxy.add(f"^{P}/companies/[^/]+/fundings$", not_found_when_empty())
    o = outcome(lambda: via.private.fundings(companies))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert o.value.attrs["missing_ids"] == empty
    said = o.warned(MissingDataWarning)
    assert len(said) == 1, said
    assert f"{len(empty)} of {len(companies)} companies answered 404 (no such id, " in said[0]
    assert "soft-deleted, or no items" in said[0] and "not found" not in said[0]
