"""Helpers for the Family B conformance tests: an HTTP caller, type checks written from the
interface document (section 2.2) and ground truth built from the sandbox's raw dataset.

Nothing here imports the sandbox's stores or filters: expectations come from the document,
docs/sandbox.md and the raw records of ``sandbox.state.dataset``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import orjson
import requests

__all__ = [
    "Api",
    "COMPANY_LIST_FIELDS",
    "COMPANY_PROFILE_EXTRA",
    "DEAL_LIST_FIELDS",
    "INVESTOR_LIST_FIELDS",
    "INVESTOR_PROFILE_FIELDS",
    "PREFIX",
    "Truth",
    "assert_bad_request",
    "check_company_list_item",
    "check_company_profile",
    "check_deal",
    "check_deal_profile",
    "check_investor_list_item",
    "check_investor_profile",
    "check_page_meta",
    "check_participant",
    "is_date",
    "is_timestamp",
    "is_uuid",
    "sort_key",
]

PREFIX = "/api/private/v1"
TIMEOUT = 30

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$")

COMPANY_LIST_FIELDS = (
    "id",
    "name",
    "short_name",
    "description",
    "website",
    "linkedin",
    "country",
    "region",
    "city",
    "area",
    "founded",
    "verticals",
    "themes",
    "client_focus",
    "revenue_model",
    "company_type",
    "ownership",
    "active",
    "ipoed",
    "ceo",
    "created_at",
    "updated_at",
    "deleted",
    "is_public",
)
COMPANY_PROFILE_EXTRA = (
    "employee_count",
    "stock_listing",
    "valuation",
    "fundamentals",
    "deal_activity",
)
INVESTOR_LIST_FIELDS = ("id", "name", "short_name", "website", "country", "updated_at", "deleted")
INVESTOR_PROFILE_FIELDS = (
    "id",
    "name",
    "short_name",
    "website",
    "linkedin",
    "company_type",
    "ownership",
    "description",
    "verticals",
    "themes",
    "city",
    "country",
    "region",
    "area",
    "founded",
    "ipoed",
    "ceo",
    "employee_count",
    "revenue_model",
    "client_focus",
    "active",
    "created_at",
    "updated_at",
    "deleted",
    "is_public",
    "stats",
)
DEAL_LIST_FIELDS = (
    "id",
    "deal_date",
    "deal_type",
    "deal_subtype",
    "deal_synopsis",
    "deal_valuation",
    "deal_raised",
    "deal_revenue",
    "deal_ebitda",
    "deal_multiples",
    "target",
    "buyers",
    "lead_investors",
    "created_at",
    "updated_at",
    "deleted",
)
PARTICIPANT_FIELDS = ("id", "name", "country", "website", "short_name")
VALUATION_NUMBERS = (
    "market_cap",
    "enterprise_value",
    "price_to_book",
    "price_to_sales",
    "price_to_cash_flow",
    "price_to_free_cash_flow",
    "beta",
)
FUNDAMENTALS = (
    "revenue_fy",
    "ebitda_fy",
    "ev_revenue_ntm",
    "ev_revenue_ltm",
    "ev_revenue_fy",
    "ev_ebitda_ntm",
    "ev_ebitda_ltm",
    "ev_ebitda_fy",
    "pe_ntm",
    "pe_ltm",
    "pe_fy",
    "ebitda_margin_ntm",
    "ebitda_margin_ltm",
    "ebitda_margin_fy",
    "revenue_growth_ntm_ltm",
    "revenue_growth_fy1_fy",
    "rule_of_40",
    "rule_of_40_ltm",
)
REGIONS = (
    "Africa",
    "Central Asia",
    "East Asia",
    "Eastern Europe",
    "Latin America",
    "Middle East",
    "North America",
    "Northern Europe",
    "Oceania",
    "South Asia",
    "South-East Asia",
    "Southern Europe",
    "Western Europe",
)
DEAL_TYPES = ("Early", "Growth", "M&A", "Public listing", "Secondary", "Venture")
DEAL_SUBTYPES = (
    "Angel",
    "ICO",
    "PE buyout",
    "Pre-seed",
    "Secondary - private",
    "Secondary - public",
    "Seed",
    "Series A",
    "Series B",
    "Series C",
    "Series D",
    "Series E",
    "Series F",
    "Series G",
    "Series H",
    "Series I",
    "Series J",
    "Strategic M&A",
    "Strategic investment",
    "Undisclosed stage",
)


# ------------------------------------------------------------------ scalar checks


def is_uuid(value: Any) -> bool:
    return isinstance(value, str) and bool(_UUID.match(value))


def is_date(value: Any) -> bool:
    if not isinstance(value, str) or not _DATE.match(value):
        return False
    dt.date.fromisoformat(value)
    return True


def is_timestamp(value: Any) -> bool:
    if not isinstance(value, str) or not _TS.match(value):
        return False
    return dt.datetime.fromisoformat(value).tzinfo is not None


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _num_or_none(value: Any) -> bool:
    return value is None or _num(value)


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check(ok: bool, what: str, value: Any) -> None:
    assert ok, f"{what}: unexpected value {value!r}"


# ------------------------------------------------------------------ shape checks (section 2.2)


def check_page_meta(meta: dict, *, page: int, limit: int, total: int | None = None) -> None:
    """Pagination meta: exact keys, types and arithmetic."""
    assert set(meta) == {"page", "limit", "returned", "total", "has_more"}, meta
    for key in ("page", "limit", "returned", "total"):
        assert isinstance(meta[key], int) and not isinstance(meta[key], bool), meta
    assert isinstance(meta["has_more"], bool)
    assert meta["page"] == page and meta["limit"] == limit
    if total is not None:
        assert meta["total"] == total
    expected_returned = max(0, min(limit, meta["total"] - (page - 1) * limit))
    assert meta["returned"] == expected_returned, meta
    assert meta["has_more"] == (page * limit < meta["total"]), meta


def check_participant(p: dict) -> None:
    assert set(p) == set(PARTICIPANT_FIELDS), p
    _check(is_uuid(p["id"]), "participant.id", p["id"])
    for key in ("name", "website", "short_name"):
        _check(isinstance(p[key], str), f"participant.{key}", p[key])
    _check(
        p["country"] is None or isinstance(p["country"], str), "participant.country", p["country"]
    )


def _check_org_common(row: dict, *, nullable_arrays: bool) -> None:
    _check(is_uuid(row["id"]), "id", row["id"])
    for key in ("name", "short_name", "description", "website", "linkedin", "city", "ownership"):
        _check(isinstance(row[key], str), key, row[key])
    _check(
        isinstance(row["country"], str) and len(row["country"]) == 3 and row["country"].isupper(),
        "country",
        row["country"],
    )
    _check(row["region"] in REGIONS, "region", row["region"])
    _check(row["area"] is None or isinstance(row["area"], str), "area", row["area"])
    _check(
        isinstance(row["founded"], int) and not isinstance(row["founded"], bool),
        "founded",
        row["founded"],
    )
    for key in ("verticals", "themes", "client_focus", "revenue_model"):
        ok = _str_list(row[key]) or (nullable_arrays and row[key] is None)
        _check(ok, key, row[key])
    _check(_str_list(row["company_type"]), "company_type", row["company_type"])
    for key in ("active", "deleted", "is_public"):
        _check(isinstance(row[key], bool), key, row[key])
    _check(row["ipoed"] is None or is_date(row["ipoed"]), "ipoed", row["ipoed"])
    _check(row["ceo"] is None or isinstance(row["ceo"], str), "ceo", row["ceo"])
    for key in ("created_at", "updated_at"):
        _check(is_timestamp(row[key]), key, row[key])


def check_company_list_item(row: dict) -> None:
    assert tuple(sorted(row)) == tuple(sorted(COMPANY_LIST_FIELDS)), sorted(
        set(row) ^ set(COMPANY_LIST_FIELDS)
    )
    _check_org_common(row, nullable_arrays=False)


def check_company_profile(row: dict) -> None:
    assert set(row) == set(COMPANY_LIST_FIELDS) | set(COMPANY_PROFILE_EXTRA), sorted(
        set(row) ^ (set(COMPANY_LIST_FIELDS) | set(COMPANY_PROFILE_EXTRA))
    )
    _check_org_common(row, nullable_arrays=True)
    ec = row["employee_count"]
    _check(ec is None or (isinstance(ec, int) and not isinstance(ec, bool)), "employee_count", ec)
    sl = row["stock_listing"]
    if sl is not None:  # docs/sandbox.md: null for companies that are not listed
        assert set(sl) == {"id", "ticker", "exchange", "currency"}, sl
        _check(is_uuid(sl["id"]), "stock_listing.id", sl["id"])
        for key in ("ticker", "exchange", "currency"):
            _check(isinstance(sl[key], str) and sl[key], f"stock_listing.{key}", sl[key])
    val = row["valuation"]
    assert set(val) == set(VALUATION_NUMBERS) | {"updated_at"}, val
    for key in VALUATION_NUMBERS:
        _check(_num_or_none(val[key]), f"valuation.{key}", val[key])
    _check(
        val["updated_at"] is None or is_timestamp(val["updated_at"]),
        "valuation.updated_at",
        val["updated_at"],
    )
    fund = row["fundamentals"]
    assert set(fund) == set(FUNDAMENTALS), sorted(set(fund) ^ set(FUNDAMENTALS))
    for key in FUNDAMENTALS:
        _check(_num_or_none(fund[key]), f"fundamentals.{key}", fund[key])
    act = row["deal_activity"]
    assert set(act) == {
        "total_fundings_as_target",
        "total_acquisitions_as_target",
        "total_investments_made",
        "last_funding_date",
        "last_deal_date",
    }, act
    for key in (
        "total_fundings_as_target",
        "total_acquisitions_as_target",
        "total_investments_made",
    ):
        _check(
            isinstance(act[key], int) and not isinstance(act[key], bool) and act[key] >= 0,
            f"deal_activity.{key}",
            act[key],
        )
    for key in ("last_funding_date", "last_deal_date"):
        _check(act[key] is None or is_date(act[key]), f"deal_activity.{key}", act[key])


def check_investor_list_item(row: dict) -> None:
    assert set(row) == set(INVESTOR_LIST_FIELDS), sorted(set(row) ^ set(INVESTOR_LIST_FIELDS))
    _check(is_uuid(row["id"]), "id", row["id"])
    for key in ("name", "short_name", "website"):
        _check(isinstance(row[key], str), key, row[key])
    _check(isinstance(row["country"], str) and len(row["country"]) == 3, "country", row["country"])
    _check(is_timestamp(row["updated_at"]), "updated_at", row["updated_at"])
    _check(isinstance(row["deleted"], bool), "deleted", row["deleted"])


def check_investor_profile(row: dict) -> None:
    assert set(row) == set(INVESTOR_PROFILE_FIELDS), sorted(set(row) ^ set(INVESTOR_PROFILE_FIELDS))
    _check_org_common(row, nullable_arrays=True)
    ec = row["employee_count"]
    _check(ec is None or (isinstance(ec, int) and not isinstance(ec, bool)), "employee_count", ec)
    stats = row["stats"]
    assert set(stats) == {
        "total_deals",
        "deals_last_12m",
        "avg_round_size",
        "median_valuation",
        "median_ev_revenue",
        "median_ev_ebitda",
        "most_common_deal_type",
        "most_common_deal_subtype",
        "top_countries",
        "top_verticals",
    }, stats
    for key in ("total_deals", "deals_last_12m"):
        _check(
            isinstance(stats[key], int) and not isinstance(stats[key], bool) and stats[key] >= 0,
            f"stats.{key}",
            stats[key],
        )
    for key in ("avg_round_size", "median_valuation", "median_ev_revenue", "median_ev_ebitda"):
        # a median over no values cannot be a number: null is the only honest answer then
        _check(_num_or_none(stats[key]), f"stats.{key}", stats[key])
    assert stats["most_common_deal_type"] is None or stats["most_common_deal_type"] in DEAL_TYPES
    assert (
        stats["most_common_deal_subtype"] is None
        or stats["most_common_deal_subtype"] in DEAL_SUBTYPES
    )
    for key, inner in (("top_countries", "country"), ("top_verticals", "vertical")):
        assert isinstance(stats[key], list), stats[key]
        for item in stats[key]:
            assert set(item) == {inner, "count"}, item
            _check(isinstance(item[inner], str), f"stats.{key}.{inner}", item[inner])
            _check(
                isinstance(item["count"], int) and item["count"] > 0,
                f"stats.{key}.count",
                item["count"],
            )


def check_deal(row: dict, *, extra: tuple[str, ...] = ()) -> None:
    """A Deal list / sub-collection item (plus ``extra`` keys, e.g. ``role``)."""
    assert set(row) == set(DEAL_LIST_FIELDS) | set(extra), sorted(
        set(row) ^ (set(DEAL_LIST_FIELDS) | set(extra))
    )
    _check_deal_common(row)
    assert set(row["target"]) == {"id", "name", "short_name", "website", "country"}, row["target"]


def _check_deal_common(row: dict) -> None:
    _check(is_uuid(row["id"]), "id", row["id"])
    _check(is_date(row["deal_date"]), "deal_date", row["deal_date"])
    _check(row["deal_type"] in DEAL_TYPES, "deal_type", row["deal_type"])
    _check(row["deal_subtype"] in DEAL_SUBTYPES, "deal_subtype", row["deal_subtype"])
    _check(isinstance(row["deal_synopsis"], str), "deal_synopsis", row["deal_synopsis"])
    for key in ("deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"):
        _check(_num_or_none(row[key]), key, row[key])
    assert set(row["deal_multiples"]) == {"ev_revenue", "ev_ebitda"}, row["deal_multiples"]
    for key in ("ev_revenue", "ev_ebitda"):
        _check(
            _num_or_none(row["deal_multiples"][key]),
            f"deal_multiples.{key}",
            row["deal_multiples"][key],
        )
    target = row["target"]
    _check(is_uuid(target["id"]), "target.id", target["id"])
    for key in ("name", "short_name", "website"):
        _check(isinstance(target[key], str), f"target.{key}", target[key])
    _check(
        target["country"] is None or isinstance(target["country"], str),
        "target.country",
        target["country"],
    )
    for key in ("buyers", "lead_investors"):
        assert isinstance(row[key], list)
        for p in row[key]:
            check_participant(p)
    if row["deal_type"] == "M&A":
        assert row["lead_investors"] == [], row["id"]
    else:
        assert row["buyers"] == [], row["id"]
    for key in ("created_at", "updated_at"):
        _check(is_timestamp(row[key]), key, row[key])
    _check(isinstance(row["deleted"], bool), "deleted", row["deleted"])


def check_deal_profile(row: dict) -> None:
    assert set(row) == set(DEAL_LIST_FIELDS) | {"investors"}, sorted(
        set(row) ^ (set(DEAL_LIST_FIELDS) | {"investors"})
    )
    _check_deal_common(row)
    target = row["target"]
    assert set(target) == {
        "id",
        "name",
        "short_name",
        "website",
        "country",
        "region",
        "city",
        "founded",
        "verticals",
        "themes",
        "client_focus",
        "revenue_model",
        "company_type",
    }, target
    _check(target["region"] in REGIONS, "target.region", target["region"])
    _check(isinstance(target["city"], str), "target.city", target["city"])
    _check(
        isinstance(target["founded"], int) and not isinstance(target["founded"], bool),
        "target.founded",
        target["founded"],
    )
    for key in ("verticals", "themes", "client_focus", "revenue_model", "company_type"):
        _check(_str_list(target[key]), f"target.{key}", target[key])
    assert isinstance(row["investors"], list)
    for p in row["investors"]:
        check_participant(p)


def assert_bad_request(resp: requests.Response, *names: str) -> list[str]:
    """A documented 400 whose ``details.errors`` mention every one of ``names``."""
    assert resp.status_code == 400, (resp.status_code, resp.text[:500])
    body = resp.json()
    assert set(body) == {"error"}, body
    err = body["error"]
    assert err["code"] == "BAD_REQUEST" and err["message"] == "Invalid request", err
    errors = err["details"]["errors"]
    assert isinstance(errors, list) and errors and all(isinstance(e, str) for e in errors), err
    for name in names:
        assert any(name in e for e in errors), (name, errors)
    return errors


def assert_error(
    resp: requests.Response, status: int, code: str, message: str | None = None
) -> dict:
    """Any documented error body (section 7 shape)."""
    assert resp.status_code == status, (resp.status_code, resp.text[:500])
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"}, body
    err = body["error"]
    assert set(err) <= {"code", "message", "details"} and {"code", "message"} <= set(err), err
    assert err["code"] == code, err
    assert isinstance(err["message"], str) and err["message"]
    if message is not None:
        assert err["message"] == message, err
    if "details" in err:
        assert isinstance(err["details"], dict)
    return err


# ------------------------------------------------------------------ sorting rule (docs/sandbox.md)


def sort_key(rows: list[dict], key: Any, descending: bool) -> list[dict]:
    """Rows ordered by ``key(row)`` (asc/desc), nulls last in either direction, ties by id asc."""
    present = [r for r in rows if key(r) is not None]
    absent = [r for r in rows if key(r) is None]
    present.sort(key=lambda r: r["id"])
    present.sort(key=key, reverse=descending)  # stable: ties keep id order
    absent.sort(key=lambda r: r["id"])
    return present + absent


# ------------------------------------------------------------------ HTTP


@dataclass
class Api:
    """A requests session authorised for Family B."""

    url: str
    key: str
    session: requests.Session = field(default_factory=requests.Session)

    def __post_init__(self) -> None:
        self.session.headers["Authorization"] = f"Bearer {self.key}"

    def post(self, path: str, body: Any = None, **kw: Any) -> requests.Response:
        if body is None:
            return self.session.post(self.url + PREFIX + path, timeout=TIMEOUT, **kw)
        return self.session.post(self.url + PREFIX + path, json=body, timeout=TIMEOUT, **kw)

    def get(self, path: str, **params: Any) -> requests.Response:
        return self.session.get(self.url + PREFIX + path, params=params or None, timeout=TIMEOUT)

    def ok_post(self, path: str, body: Any = None) -> dict:
        resp = self.post(path, body)
        assert resp.status_code == 200, (path, body, resp.status_code, resp.text[:500])
        assert resp.headers["content-type"].startswith("application/json")
        return orjson.loads(resp.content)  # strict JSON, and ~4x faster than resp.json()

    def ok_get(self, path: str, **params: Any) -> dict:
        resp = self.get(path, **params)
        assert resp.status_code == 200, (path, params, resp.status_code, resp.text[:500])
        return orjson.loads(resp.content)

    def pull(
        self, entity: str, filters: dict | None = None, sort: str | None = None, limit: int = 1000
    ) -> list[dict]:
        """Every row of a list, page by page, checking each page's meta."""
        rows: list[dict] = []
        page = 1
        while True:
            body: dict[str, Any] = {"limit": limit, "page": page}
            if filters is not None:
                body["filters"] = filters
            if sort is not None:
                body["sort"] = sort
            out = self.ok_post(f"/{entity}", body)
            assert set(out) == {"data", "meta"}
            check_page_meta(out["meta"], page=page, limit=limit)
            assert len(out["data"]) == out["meta"]["returned"]
            rows += out["data"]
            if not out["meta"]["has_more"]:
                assert len(rows) == out["meta"]["total"]
                return rows
            page += 1

    def pull_sub(self, path: str, limit: int = 1000) -> list[dict]:
        rows: list[dict] = []
        page = 1
        while True:
            out = self.ok_get(path, page=page, limit=limit)
            assert set(out) == {"data", "meta"}
            check_page_meta(out["meta"], page=page, limit=limit)
            rows += out["data"]
            if not out["meta"]["has_more"]:
                assert len(rows) == out["meta"]["total"]
                return rows
            page += 1


# ------------------------------------------------------------------ ground truth from the raw dataset


def first_items(sandbox: Any, entity: str, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` items of the list of ``entity`` as the sandbox writes them, read
    with plain requests (what a user holds after reading the JSON themselves)."""
    body = {"filters": {}, "limit": limit, "page": 1}
    items = Api(sandbox.url, sandbox.private_key).ok_post(f"/{entity}", body)["data"]
    assert len(items) == limit
    return items


def _participant(p: dict) -> dict:
    return {k: p[k] for k in PARTICIPANT_FIELDS}


class Truth:
    """Raw records of the sandbox's dataset, projected to the documented wire forms."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset
        orgs = dataset.orgs
        self.companies = [{k: o[k] for k in COMPANY_LIST_FIELDS} for o in orgs if o["_company"]]
        self.investors = [{k: o[k] for k in INVESTOR_LIST_FIELDS} for o in orgs if o["_investor"]]
        self.org_by_id = {o["id"]: o for o in orgs}
        self.deals = []
        self.deal_targets = {}
        for d in dataset.deals:
            t = orgs[d["target_index"]]
            row = {k: d[k] for k in DEAL_LIST_FIELDS if k != "target"}
            row["target"] = {
                "id": t["id"],
                "name": t["name"],
                "short_name": t["short_name"],
                "website": t["website"],
                "country": t["country"],
            }
            row["buyers"] = [_participant(p) for p in d["buyers"]]
            row["lead_investors"] = [_participant(p) for p in d["lead_investors"]]
            row["investors"] = [_participant(p) for p in d["investors"]]
            self.deals.append(row)
            self.deal_targets[d["id"]] = t
        self._list_forms: list[dict] | None = None

    def deals_in_list_form(self) -> list[dict]:
        """Every deal as a list item shows it (:meth:`list_form`), built once; a new list."""
        if self._list_forms is None:
            self._list_forms = [self.list_form(d) for d in self.deals]
        return list(self._list_forms)

    @staticmethod
    def live(rows: list[dict]) -> list[dict]:
        return [r for r in rows if not r["deleted"]]

    def target_of(self, deal: dict) -> dict:
        return self.deal_targets[deal["id"]]

    @staticmethod
    def list_form(deal: dict) -> dict:
        return {k: v for k, v in deal.items() if k != "investors"}
