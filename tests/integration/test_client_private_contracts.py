"""Family B contracts through the client, over real HTTP against the session sandbox.

The contracts of issues 3 and 4: a bad argument is a typed error naming it, before any request;
never a silent empty frame; nothing dropped without saying so. Findings of the Family B audit:

- B2: a lookup by ``id`` reports the ids that did not come back (``attrs["missing_ids"]``, a
  MissingDataWarning, IncompleteResultError under ``strict=True``) for companies, investors and
  deals; other filters narrowing on purpose list them without a warning.
- B8: sort strings the service accepts (``name:ASC``, ``name: asc``) are accepted and sent in
  the canonical form; unknown keys/directions are refused with a suggestion.
- B9: a profile ``fields`` name that spells a profile's field in another case or with
  separators is refused before any request; any other is sent, the service deciding.
- B11: an empty list for a list filter is refused (it would match nothing), at every entry point.
- ``limit`` says in ``attrs`` when it cut the result (``rows_total``, ``truncated``).

Expectations come from raw HTTP calls to the same sandbox (the ``api`` fixture) and from the
interface document, never from the client's own shaping.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from _private_api import (
    COMPANY_LIST_FIELDS,
    COMPANY_PROFILE_EXTRA,
    DEAL_LIST_FIELDS,
    INVESTOR_PROFILE_FIELDS,
)

from dealframe.client import Client
from dealframe.errors import (
    BadRequestError,
    DealframeError,
    IncompleteResultError,
    ValidationError,
)
from dealframe.frames.schemas import PROFILE_FIELDS
from dealframe.notices import MissingDataWarning

ZERO = "00000000-0000-4000-8000-000000000000"
ENTITIES = {"companies": "companies", "investors": "investors", "deals": "transactions"}
PROFILES = {"company": "companies", "investor": "investors", "deal": "transactions"}


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        for entity in ("companies", "investors", "transactions"):
            c.private.schema(entity)  # discovery loaded once: later request counts are about data
        yield c


@pytest.fixture(scope="module")
def world(api: Any) -> dict[str, Any]:
    """Every row of the three lists (deleted ones too), read page by page with plain requests."""
    rows = {e: api.pull(e, {"include_deleted": True}) for e in ENTITIES.values()}
    return {
        "live": {e: [r for r in rs if not r["deleted"]] for e, rs in rows.items()},
        "deleted": {e: [r["id"] for r in rs if r["deleted"]] for e, rs in rows.items()},
    }


def calls(client: Client) -> int:
    return client.stats.snapshot()["calls"]


def returned_ids(api: Any, entity: str, filters: dict[str, Any]) -> list[str]:
    return [r["id"] for r in api.pull(entity, filters)]


# ---------------------------------------------------------------------------- B2: batch by id


@pytest.mark.parametrize("method", list(ENTITIES))
def test_unknown_ids_are_reported_not_dropped(client, api, world, method):
    entity = ENTITIES[method]
    live = [r["id"] for r in world["live"][entity][:3]]
    asked = [ZERO, live[0], live[1]]
    assert returned_ids(api, entity, {"id": asked}) == sorted(live[:2]) or set(
        returned_ids(api, entity, {"id": asked})
    ) == set(live[:2])  # the service drops ZERO
    with pytest.warns(MissingDataWarning) as record:
        frame = getattr(client.private, method)(id=asked)
    assert frame["id"].tolist() == live[:2]  # the ids' order
    assert frame.attrs["missing_ids"] == [ZERO]
    text = " ".join(str(w.message) for w in record)
    assert ZERO in text and "include_deleted" in text and "1 of 3" in text
    with pytest.raises(IncompleteResultError) as info:
        getattr(client.private, method)(id=asked, strict=True)
    assert info.value.failed == [ZERO] and info.value.expected == 3 and info.value.received == 2
    assert info.value.partial["id"].tolist() == live[:2]


@pytest.mark.parametrize("method", list(ENTITIES))
def test_all_ids_found_gives_an_empty_missing_list_and_no_warning(client, world, method):
    entity = ENTITIES[method]
    asked = [r["id"] for r in world["live"][entity][5:9]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = getattr(client.private, method)(id=asked, strict=True)
    assert frame["id"].tolist() == asked
    assert frame.attrs["missing_ids"] == []
    without_id = getattr(client.private, method)(limit=3)
    assert "missing_ids" not in without_id.attrs  # only a lookup by id has asked-for ids


@pytest.mark.parametrize("method", list(ENTITIES))
def test_soft_deleted_ids_are_missing_unless_include_deleted(client, api, world, method):
    entity = ENTITIES[method]
    gone = world["deleted"][entity][0]
    live = world["live"][entity][0]["id"]
    assert returned_ids(api, entity, {"id": [gone, live]}) == [live]
    with pytest.warns(MissingDataWarning, match="include_deleted=True"):
        frame = getattr(client.private, method)(id=[gone, live])
    assert frame["id"].tolist() == [live] and frame.attrs["missing_ids"] == [gone]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = getattr(client.private, method)(id=[gone, live], include_deleted=True)
    assert both["id"].tolist() == [gone, live] and both.attrs["missing_ids"] == []
    assert both["deleted"].tolist() == [True, False]
    with pytest.warns(MissingDataWarning) as record:  # with include_deleted, only "unknown"
        getattr(client.private, method)(id=[ZERO, live], include_deleted=True)
    assert "unknown ids" in str(record[0].message) and "include_deleted=True to" not in str(
        record[0].message
    )


def test_ids_excluded_by_other_filters_are_listed_without_a_warning(client, api, world):
    rows = world["live"]["companies"]
    a = rows[0]
    b = next(r for r in rows if r["country"] != a["country"])
    filters = {"id": [b["id"], a["id"], ZERO], "country": [a["country"]]}
    assert returned_ids(api, "companies", filters) == [a["id"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # country narrows on purpose: nothing to warn about
        frame = client.private.companies(**filters, strict=True)
    assert frame["id"].tolist() == [a["id"]]
    assert frame.attrs["missing_ids"] == [b["id"], ZERO]
    deals = world["live"]["transactions"]
    ma = next(d for d in deals if d["deal_type"] == "M&A")
    other = next(d for d in deals if d["deal_type"] != "M&A")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        narrowed = client.private.deals(id=[other["id"], ma["id"]], deal_type=["M&A"])
    assert narrowed["id"].tolist() == [ma["id"]] and narrowed.attrs["missing_ids"] == [other["id"]]


def test_missing_ids_across_batches_of_1000(client, api, world):
    live = [d["id"] for d in world["live"]["transactions"][:1500]]
    unknown = [f"00000000-0000-4000-8000-{n:012d}" for n in (1, 2, 3)]
    asked = live[:600] + [unknown[0]] + live[600:1200] + unknown[1:] + live[1200:]
    first, second = asked[:1000], asked[1000:]
    assert len(returned_ids(api, "transactions", {"id": first})) == 999
    assert len(returned_ids(api, "transactions", {"id": second})) == len(second) - 2
    with pytest.warns(MissingDataWarning, match="3 of 1503 deal ids"):
        frame = client.private.deals(id=asked)
    assert frame.attrs["requests"] == 2
    assert frame["id"].tolist() == live
    assert frame.attrs["missing_ids"] == unknown


def test_an_id_lookup_that_finds_nothing_keeps_the_schema(client, world):
    with pytest.warns(MissingDataWarning):
        nothing = client.private.deals(id=[ZERO])
    some = client.private.deals(id=[d["id"] for d in world["live"]["transactions"][:3]])
    assert len(nothing) == 0 and nothing.attrs["missing_ids"] == [ZERO]
    assert list(nothing.columns) == list(some.columns)
    assert list(map(str, nothing.dtypes)) == list(map(str, some.dtypes))


def test_id_lookup_with_limit_keeps_the_first_ids_found(client, world):
    live = [r["id"] for r in world["live"]["investors"][10:16]][::-1]
    asked = [live[0], ZERO, *live[1:]]
    with pytest.warns(MissingDataWarning):
        frame = client.private.investors(id=asked, limit=3)
    assert frame["id"].tolist() == live[:3]  # the first three found, in the ids' order
    assert frame.attrs["missing_ids"] == [ZERO]
    assert frame.attrs["truncated"] is True and frame.attrs["rows_total"] == len(live)


def test_id_lookup_with_limit_stops_sending_batches(client, world):
    live = [d["id"] for d in world["live"]["transactions"][:1200]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ids of unsent batches are not "missing"
        frame = client.private.deals(id=live, limit=10)
    assert frame["id"].tolist() == live[:10]
    assert frame.attrs["requests"] == 1 and frame.attrs["missing_ids"] == []
    assert frame.attrs["truncated"] is True and frame.attrs["rows_total"] is None


# ---------------------------------------------------------------------------- B8: sort strings


@pytest.mark.parametrize(
    "method,given,canonical",
    [
        ("companies", "name:ASC", "name:asc"),
        ("companies", "name: asc", "name:asc"),
        ("companies", "founded: DESC ", "founded:desc"),
        ("investors", "updated_at:Asc", "updated_at:asc"),
        ("deals", "deal_valuation:ASC", "deal_valuation:asc"),
        ("deals", "deal_date", "deal_date:desc"),
    ],
)
def test_sort_strings_the_service_accepts_are_accepted(client, api, method, given, canonical):
    entity = ENTITIES[method]
    filters = {"deal_type": ["Venture"]} if method == "deals" else {}
    frame = getattr(client.private, method)(sort=given, **filters)
    assert frame.attrs["sort"] == canonical
    assert frame["id"].tolist() == [r["id"] for r in api.pull(entity, filters, given)]
    assert frame["id"].tolist() == [r["id"] for r in api.pull(entity, filters, canonical)]


def test_spaces_around_the_key_are_dropped_too(client, api):
    frame = client.private.companies(sort=" founded :desc", limit=50)  # sent as founded:desc
    assert frame.attrs["sort"] == "founded:desc"
    canonical = api.ok_post("/companies", {"sort": "founded:desc", "limit": 50})["data"]
    assert frame["id"].tolist() == [r["id"] for r in canonical]
    # the sandbox ignores the spaces too (docs/sandbox.md, Sort)
    spaced = api.ok_post("/companies", {"sort": " founded :desc", "limit": 50})["data"]
    assert [r["id"] for r in spaced] == [r["id"] for r in canonical]


def test_page_sends_the_canonical_sort(client, api):
    frame = client.private.page("companies", sort="name: DESC", page=2, limit=5)
    doc = api.ok_post("/companies", {"filters": {}, "sort": "name:desc", "page": 2, "limit": 5})
    assert frame["id"].tolist() == [r["id"] for r in doc["data"]]
    assert frame.attrs["sort"] == "name:desc"


@pytest.mark.parametrize(
    "method,sort,suggestion",
    [
        ("companies", "nme:asc", "'name'"),
        ("companies", "Name:asc", "'name'"),
        ("investors", "update_at:desc", "'updated_at'"),
        ("deals", "deal_dat", "'deal_date'"),
        ("deals", "deal_date:ascending", "'asc'"),
        ("companies", "name:dsc", "'desc'"),
    ],
)
def test_unknown_sort_is_refused_with_a_suggestion(client, method, sort, suggestion):
    before = calls(client)
    with pytest.raises(ValidationError) as info:
        getattr(client.private, method)(sort=sort)
    assert calls(client) == before
    assert info.value.argument == "sort"
    assert f"did you mean {suggestion}" in str(info.value)


# ---------------------------------------------------------------------------- B9: profile fields


def test_known_profile_fields_are_those_of_the_document(world):
    assert set(PROFILE_FIELDS["companies"]) == set(COMPANY_LIST_FIELDS + COMPANY_PROFILE_EXTRA)
    assert set(PROFILE_FIELDS["investors"]) == set(INVESTOR_PROFILE_FIELDS)
    assert set(PROFILE_FIELDS["transactions"]) == set(DEAL_LIST_FIELDS + ("investors",))


@pytest.mark.parametrize("method", list(PROFILES))
def test_every_known_profile_field_is_accepted_by_the_service(client, api, world, method):
    entity = PROFILES[method]
    ident = world["live"][entity][0]["id"]
    for name in PROFILE_FIELDS[entity]:
        data = api.ok_get(f"/{entity}/{ident}", fields=name)["data"]
        assert set(data) == {"id", name}, name
    everything = getattr(client.private, method)(ident, fields=list(PROFILE_FIELDS[entity]))
    plain = getattr(client.private, method)(ident)
    pd.testing.assert_frame_equal(everything, plain)


@pytest.mark.parametrize(
    "method,fields",
    [
        ("company", ["foo"]),
        ("company", ["name", "valuaton"]),
        ("company", "employee_cont"),
        ("company", ["stats"]),  # an investor profile field
        ("investor", ["stat"]),
        ("investor", ["fundamentals"]),  # a company profile field
        ("deal", ["investor"]),
        ("deal", ["target_name"]),  # a column of the frame, not a response field
    ],
)
def test_unknown_profile_fields_are_sent_and_the_services_400_is_the_error(
    client, api, world, method, fields
):
    """A service may serve fields the document does not list (issue 14): the name is sent,
    and the sandbox's 400, naming it, is the error, for one id and for a list."""
    entity = PROFILES[method]
    ident = world["live"][entity][0]["id"]
    names = [fields] if isinstance(fields, str) else fields
    assert (
        api.get(f"/{entity}/{ident}", fields=",".join(names)).status_code == 400
    )  # the service refuses it
    before = calls(client)
    with pytest.raises(BadRequestError, match=names[-1]):
        getattr(client.private, method)(ident, fields=fields)
    assert calls(client) == before + 1
    with pytest.raises(DealframeError, match=names[-1]):  # a list of ids: sent the same way
        getattr(client.private, method)([ident, ident], fields=fields)
    assert calls(client) > before + 1


@pytest.mark.parametrize(
    "method,fields,suggestion",
    [
        ("company", ["Name"], "name"),
        ("company", "employee-count", "employee_count"),
        ("investor", ["shortName"], "short_name"),
        ("deal", ["dealDate"], "deal_date"),
    ],
)
def test_another_spelling_of_a_profile_field_is_refused_before_any_request(
    client, world, method, fields, suggestion
):
    entity = PROFILES[method]
    ident = world["live"][entity][0]["id"]
    before = calls(client)
    for ids in (ident, [ident, ident]):  # a list of ids is checked the same way
        with pytest.raises(ValidationError) as info:
            getattr(client.private, method)(ids, fields=fields)
        assert info.value.argument == "fields"
        assert f"did you mean {suggestion!r}" in str(info.value)
    assert calls(client) == before


def test_profile_fields_as_a_comma_separated_string(client, api, world):
    ident = world["live"]["companies"][2]["id"]
    frame = client.private.company(ident, fields="name, valuation")
    data = api.ok_get(f"/companies/{ident}", fields="name,valuation")["data"]
    assert frame.loc[0, "name"] == data["name"]
    if data["valuation"]["market_cap"] is not None:
        assert frame.loc[0, "valuation_market_cap"] == data["valuation"]["market_cap"]
    assert pd.isna(frame.loc[0, "country"])  # not asked for


# ---------------------------------------------------------------------------- B11: empty lists


def _empty_list_calls(world: dict[str, Any]) -> list[tuple[Any, str]]:
    cid = world["live"]["companies"][0]["id"]
    return [
        (lambda p: p.companies(country=[]), "country"),
        (lambda p: p.companies(region=[]), "region"),
        (lambda p: p.companies(id=[]), "id"),
        (lambda p: p.companies(verticals=[]), "verticals"),
        (lambda p: p.companies(filters={"themes": ()}), "themes"),
        (lambda p: p.companies(country=["GBR"], company_type={"overlaps": []}), "company_type"),
        (lambda p: p.investors(country=[]), "country"),
        (lambda p: p.investors(id=[]), "id"),
        (lambda p: p.deals(deal_type=[]), "deal_type"),
        (lambda p: p.deals(id=[]), "id"),
        (lambda p: p.deals(target_id=[], date_from="2020-01-01"), "target_id"),
        (lambda p: p.deals(investor_id={"in": []}), "investor_id"),
        (lambda p: p.deals(target_verticals=pd.Series([], dtype="str")), "target_verticals"),
        (lambda p: p.deals(target_country=["GBR", ""]), "target_country[1]"),
        (lambda p: p.aggregate("ev_revenue", "year", target_region=[]), "target_region"),
        (lambda p: p.aggregate("raised", filters={"deal_subtype": []}), "deal_subtype"),
        (lambda p: p.page("transactions", {"deal_type": []}), "deal_type"),
        (lambda p: p.company(cid, fields=[]), "fields"),
    ]


def test_empty_lists_are_refused_before_any_request(client, world):
    for call, argument in _empty_list_calls(world):
        before = calls(client)
        with pytest.raises(ValidationError) as info:
            call(client.private)
        assert calls(client) == before, (argument, "a request was sent")
        assert info.value.argument == argument, (argument, str(info.value))
        assert argument.split("[")[0] in str(info.value)


@pytest.mark.parametrize(
    ("method", "sample"),
    [
        ("company", "companies"),
        ("deal", "transactions"),
        ("investor", "investors"),
        ("investor_top", "investors"),
        ("fundings", "companies"),
        ("sellside", "companies"),
        ("buyside", "companies"),
        ("company_investors", "companies"),
        ("investments", "investors"),
        ("co_investors", "investors"),
        ("portfolio", "investors"),
    ],
)
def test_no_ids_give_the_typed_empty_frame_without_a_request(client, world, method, sample):
    """The ids of an empty frame (a cohort that matched nothing) are a list of no ids: the
    frame of no rows has the columns and dtypes of a frame of rows (empty *filter* lists stay
    refused: they would mean neither "any" nor "none" clearly)."""
    some = getattr(client.private, method)([r["id"] for r in world["live"][sample][:2]])
    for empty in ([], (), pd.Series([], dtype="str")):
        before = calls(client)
        none = getattr(client.private, method)(empty)
        assert calls(client) == before, method
        assert len(none) == 0 and none.attrs["requests"] == 0
        assert none.dtypes.to_dict() == some.dtypes.to_dict(), method


def test_no_names_resolve_to_empty_frames(client, world):
    some, some_candidates = client.private.resolve_companies(
        [world["live"]["companies"][0]["name"]]
    )
    before = calls(client)
    none, candidates = client.private.resolve_companies([])
    assert calls(client) == before
    assert len(none) == 0 and none.dtypes.to_dict() == some.dtypes.to_dict()
    assert list(candidates.columns) == list(some_candidates.columns)


def test_none_is_still_no_constraint(client, api):
    frame = client.private.companies(country=None, verticals=None, limit=5)
    assert frame["id"].tolist() == [
        r["id"] for r in api.ok_post("/companies", {"limit": 5})["data"]
    ]


# ---------------------------------------------------------------------------- limit in attrs


@pytest.mark.parametrize("method", list(ENTITIES))
def test_limit_says_when_it_cut_the_result(client, api, method):
    entity = ENTITIES[method]
    total = api.ok_post(f"/{entity}", {"limit": 1})["meta"]["total"]
    assert total > 100
    cap = min(1200, total - 1)  # more than one page where the data allows it
    cut = getattr(client.private, method)(limit=cap)
    assert len(cut) == cap
    assert cut.attrs["rows_total"] == total and cut.attrs["truncated"] is True
    small = getattr(client.private, method)(limit=3)
    assert small.attrs["rows_total"] == total and small.attrs["truncated"] is True
    whole = getattr(client.private, method)(limit=total)
    assert len(whole) == total and whole.attrs["truncated"] is False
    everything = getattr(client.private, method)()
    assert everything.attrs["rows_total"] == len(everything) == total
    assert everything.attrs["truncated"] is False


def test_limit_larger_than_a_narrow_result_is_not_a_cut(client, api):
    filters = {"deal_type": ["M&A"], "date_from": "2024-01-01", "date_to": "2024-03-31"}
    expected = [r["id"] for r in api.pull("transactions", filters)]
    frame = client.private.deals(**filters, limit=len(expected) + 10)
    assert frame["id"].tolist() == expected
    assert frame.attrs["rows_total"] == len(expected) and frame.attrs["truncated"] is False


def test_sub_collection_limit_says_when_it_cut(client, api, world):
    deals = world["live"]["transactions"]
    counts = pd.Series([p["id"] for d in deals for p in d["lead_investors"]]).value_counts()
    busy, quiet = counts.index[0], counts.index[-1]
    totals = {
        i: api.ok_get(f"/investors/{i}/investments", limit=1)["meta"]["total"]
        for i in (busy, quiet)
    }
    assert totals[busy] > 2
    frame = client.private.investments([busy, quiet], limit=2)
    assert frame.groupby("investor_id").size().to_dict() == {
        i: min(2, t) for i, t in totals.items() if t
    }
    assert frame.attrs["rows_total"] == sum(totals.values()) and frame.attrs["truncated"] is True
    whole = client.private.investments([busy, quiet])
    assert len(whole) == whole.attrs["rows_total"] == sum(totals.values())
    assert whole.attrs["truncated"] is False
