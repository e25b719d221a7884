"""The Family B store: columnar indexes over the sandbox's records.

Lists are answered by a boolean mask per filter over numpy columns, a cached
sort permutation (key, then nulls last, then ``id`` ascending), and page slices
of rows serialised once with orjson. Profiles and sub-collections are built on
request from inverted indexes (deals by target, by participant), so they always
agree with the deal records. :meth:`PrivateStore.rebuild` re-indexes after the
records change.
"""

from __future__ import annotations

import datetime as dt
import gc
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from .._vocab import FUNDING_DEAL_TYPES, METRIC_COLUMNS
from .data import Dataset
from .filters import Condition

__all__ = ["PrivateStore", "Table", "COMPANY_LIST_FIELDS", "INVESTOR_LIST_FIELDS"]

COMPANY_LIST_FIELDS = (
    "id", "name", "short_name", "description", "website", "linkedin", "country", "region", "city",
    "area", "founded", "verticals", "themes", "client_focus", "revenue_model", "company_type",
    "ownership", "active", "ipoed", "ceo", "created_at", "updated_at", "deleted", "is_public",
)
COMPANY_PROFILE_FIELDS = COMPANY_LIST_FIELDS + (
    "employee_count", "stock_listing", "valuation", "fundamentals", "deal_activity",
)
INVESTOR_LIST_FIELDS = ("id", "name", "short_name", "website", "country", "updated_at", "deleted")
INVESTOR_PROFILE_FIELDS = (
    "id", "name", "short_name", "website", "linkedin", "company_type", "ownership", "description",
    "verticals", "themes", "city", "country", "region", "area", "founded", "ipoed", "ceo",
    "employee_count", "revenue_model", "client_focus", "active", "created_at", "updated_at",
    "deleted", "is_public", "stats",
)
DEAL_LIST_FIELDS = (
    "id", "deal_date", "deal_type", "deal_subtype", "deal_synopsis", "deal_valuation", "deal_raised",
    "deal_revenue", "deal_ebitda", "deal_multiples", "target", "buyers", "lead_investors",
    "created_at", "updated_at", "deleted",
)
DEAL_PROFILE_FIELDS = DEAL_LIST_FIELDS + ("investors",)
_NULLABLE_PROFILE_LISTS = ("verticals", "themes", "revenue_model", "client_focus")
_COMPANY_LISTS = ("verticals", "themes", "client_focus", "revenue_model", "company_type")
_FUNDING = frozenset(FUNDING_DEAL_TYPES)


def _microseconds(stamps: list[str]) -> np.ndarray:
    """``YYYY-MM-DDTHH:MM:SS+00:00`` strings → epoch microseconds (int64).

    The unit of :func:`~.filters.parse_datetime`, so an ``updated_at`` bound with a
    fractional second compares exactly (a stamp of ``…:16`` is before ``…:16.5``).
    """
    return np.array([s[:19] for s in stamps], dtype="datetime64[s]").astype("datetime64[us]").astype("int64")


def _dates(values: list[str | None]) -> np.ndarray:
    return np.array([v if v is not None else "NaT" for v in values], dtype="datetime64[D]")


def _floats(values: list[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype="float64")


@dataclass
class Table:
    """Columns, lists and serialised rows of one list endpoint."""

    name: str
    records: list[dict]
    list_fields: tuple[str, ...]
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    lists: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    row_of: dict[str, int] = field(default_factory=dict)
    _bytes: list[bytes | None] = field(default_factory=list)
    _perms: dict[tuple[str, bool], np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.row_of = {r["id"]: i for i, r in enumerate(self.records)}
        self._bytes = [None] * len(self.records)
        ids = np.array([r["id"] for r in self.records], dtype=object)
        rank = np.empty(len(ids), dtype=np.int64)
        rank[np.argsort(ids, kind="stable")] = np.arange(len(ids))
        self.columns["id_rank"] = rank
        self.columns["deleted"] = np.array([r["deleted"] for r in self.records], dtype=bool)
        self.columns["updated_at"] = _microseconds([r["updated_at"] for r in self.records])

    def __len__(self) -> int:
        return len(self.records)

    def add_lists(self, name: str, values: list[list[str]]) -> None:
        """Index a list-valued field: value → sorted rows holding it."""
        rows: dict[str, list[int]] = {}
        for i, vals in enumerate(values):
            for v in vals or ():
                rows.setdefault(v, []).append(i)
        self.lists[name] = {k: np.array(v, dtype=np.int64) for k, v in rows.items()}

    def overlaps(self, name: str, wanted: list[str]) -> np.ndarray:
        mask = np.zeros(len(self), dtype=bool)
        index = self.lists[name]
        for v in wanted:
            rows = index.get(v)
            if rows is not None:
                mask[rows] = True
        return mask

    def row_bytes(self, row: int, build) -> bytes:
        """The serialised list item of ``row`` (built once by ``build(record)``)."""
        cached = self._bytes[row]
        if cached is None:
            cached = self._bytes[row] = orjson.dumps(build(self.records[row]))
        return cached

    def permutation(self, key: str, descending: bool) -> np.ndarray:
        """Rows ordered by ``key`` (nulls last in both directions), ties by id ascending."""
        perm = self._perms.get((key, descending))
        if perm is None:
            values = self.columns[key]
            if values.dtype == object:  # strings: rank them first
                codes = np.unique(values, return_inverse=True)[1].astype(np.float64)
                nulls = np.zeros(len(values), dtype=bool)
                values = codes
            elif values.dtype.kind == "M":
                nulls = np.isnat(values)
                values = values.astype("int64").astype(np.float64)
            else:
                values = values.astype(np.float64)
                nulls = np.isnan(values)
            keyed = np.where(nulls, 0.0, -values if descending else values)
            perm = np.lexsort((self.columns["id_rank"], keyed, nulls))
            self._perms[(key, descending)] = perm
        return perm


class PrivateStore:
    """Companies, investors and deals of one :class:`Dataset`, indexed for queries."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self._lock = threading.Lock()
        self._queries: OrderedDict[Any, np.ndarray] = OrderedDict()
        self._name_indexes: dict[str, Any] = {}
        self.rebuild()

    # ------------------------------------------------------------------ indexing

    def rebuild(self) -> None:
        """(Re)build every index from the dataset's records."""
        gc_was_enabled = gc.isenabled()
        gc.disable()  # hundreds of thousands of small containers; collection would dominate
        try:
            self._build()
        finally:
            if gc_was_enabled:
                gc.enable()
        from .state import freeze_long_lived

        freeze_long_lived()  # the new indexes are long-lived: keep them out of later collections

    def _build(self) -> None:
        ds = self.dataset
        orgs = ds.orgs
        self.org_row = {o["id"]: i for i, o in enumerate(orgs)}
        companies = [o for o in orgs if o["_company"]]
        investors = [o for o in orgs if o["_investor"]]
        self.companies = self._company_table(companies)
        self.company_org_rows = np.array([self.org_row[o["id"]] for o in companies], dtype=np.int64)
        self.investors = self._investor_table(investors)
        self.deals = self._deal_table(ds.deals)
        self._index_participation()
        with self._lock:
            self._queries.clear()
            self._name_indexes.clear()

    def _company_table(self, records: list[dict]) -> Table:
        t = Table("companies", records, COMPANY_LIST_FIELDS)
        t.columns["name"] = np.array([r["name"].casefold() for r in records], dtype=object)
        t.columns["name_exact"] = np.array([r["name"] for r in records], dtype=object)
        for col in ("country", "region", "ownership"):
            t.columns[col] = np.array([r[col] for r in records], dtype=object)
        t.columns["active"] = np.array([r["active"] for r in records], dtype=bool)
        t.columns["founded"] = _floats([r["founded"] for r in records])
        t.columns["ipoed"] = _dates([r["ipoed"] for r in records])
        for name in _COMPANY_LISTS:
            t.add_lists(name, [r[name] for r in records])
        return t

    def _investor_table(self, records: list[dict]) -> Table:
        t = Table("investors", records, INVESTOR_LIST_FIELDS)
        t.columns["name"] = np.array([r["name"].casefold() for r in records], dtype=object)
        t.columns["name_exact"] = np.array([r["name"] for r in records], dtype=object)
        t.columns["country"] = np.array([r["country"] for r in records], dtype=object)
        return t

    def _deal_table(self, records: list[dict]) -> Table:
        orgs = self.dataset.orgs
        t = Table("transactions", records, DEAL_LIST_FIELDS)
        t.columns["deal_date"] = np.array([r["deal_date"] for r in records], dtype="datetime64[D]")
        for col in ("deal_type", "deal_subtype"):
            t.columns[col] = np.array([r[col] for r in records], dtype=object)
        for col in ("deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"):
            t.columns[col] = _floats([r[col] for r in records])
        for col in ("ev_revenue", "ev_ebitda"):
            t.columns[col] = _floats([r["deal_multiples"][col] for r in records])
        target = np.array([r["target_index"] for r in records], dtype=np.int64)
        t.columns["target_org"] = target
        t.columns["target_id"] = np.array([orgs[i]["id"] for i in target.tolist()], dtype=object)
        t.columns["target_country"] = np.array([r["target_country"] for r in records], dtype=object)
        t.columns["target_region"] = np.array([orgs[i]["region"] for i in target.tolist()], dtype=object)
        return t

    def _index_participation(self) -> None:
        """Deals by target and by participant (lead/buyer role, and any role)."""
        by_target: dict[int, list[int]] = {}
        lead_or_buyer: dict[str, list[tuple[int, str]]] = {}
        any_role: dict[str, list[int]] = {}
        for k, d in enumerate(self.deals.records):
            by_target.setdefault(d["target_index"], []).append(k)
            for p in d["lead_investors"]:
                lead_or_buyer.setdefault(p["id"], []).append((k, "lead_investor"))
            for p in d["buyers"]:
                lead_or_buyer.setdefault(p["id"], []).append((k, "buyer"))
            for p in d["investors"]:
                any_role.setdefault(p["id"], []).append(k)
        self.by_target = by_target
        self.lead_or_buyer = lead_or_buyer
        self.any_role = any_role

    def _investor_rows(self, wanted: list[str]) -> np.ndarray:
        """Deals where any of ``wanted`` is a lead investor or a buyer."""
        mask = np.zeros(len(self.deals), dtype=bool)
        for pid in wanted:
            rows = [k for k, _ in self.lead_or_buyer.get(pid, ())]
            mask[rows] = True
        return mask

    # ------------------------------------------------------------------ list queries

    def _mask(self, table: Table, conditions: list[Condition], include_deleted: bool) -> np.ndarray:
        mask = np.ones(len(table), dtype=bool) if include_deleted else ~table.columns["deleted"]
        for c in conditions:
            mask &= self._condition(table, c)
        return mask

    def _condition(self, table: Table, c: Condition) -> np.ndarray:
        f, op, v = c.field, c.op, c.value
        cols = table.columns
        if f == "id":
            m = np.zeros(len(table), dtype=bool)
            rows = [table.row_of[i] for i in v if i in table.row_of]
            m[rows] = True
            return m
        if f == "name":
            if op == "eq":
                return cols["name_exact"] == v
            needle = v.casefold()
            return np.fromiter((needle in n for n in cols["name"]), dtype=bool, count=len(table))
        if f == "investor_id":
            return self._investor_rows(v)
        if f in ("target_id",):
            return np.isin(cols["target_id"], v)
        if op == "in":
            return np.isin(cols[f], np.array(v, dtype=object))
        if op == "overlaps":
            if f.startswith("target_"):
                companies = self.companies.overlaps(f[len("target_"):], v)
                return np.isin(cols["target_org"], self.company_org_rows[companies])
            return table.overlaps(f, v)
        if op == "eq":
            return cols[f] == v
        column = _RANGE_COLUMNS.get(f, f)
        values = cols[column]
        if op == "gte":
            return values >= v
        if op == "lte":
            return values <= v
        raise AssertionError(f"unhandled filter {f} {op}")  # pragma: no cover - specs are fixed

    def select(self, entity: str, conditions: list[Condition], include_deleted: bool,
               sort: tuple[str, bool]) -> np.ndarray:
        """Rows matching the filters, in sort order (cached for paging)."""
        table = self.table(entity)
        key = (entity, repr(conditions), include_deleted, sort)
        with self._lock:
            hit = self._queries.get(key)
            if hit is not None:
                self._queries.move_to_end(key)
                return hit
        mask = self._mask(table, conditions, include_deleted)
        perm = table.permutation(*sort)
        rows = perm[mask[perm]]
        with self._lock:
            self._queries[key] = rows
            while len(self._queries) > 128:
                self._queries.popitem(last=False)
        return rows

    def table(self, entity: str) -> Table:
        return {"companies": self.companies, "investors": self.investors,
                "transactions": self.deals}[entity]

    def page_bytes(self, entity: str, rows: np.ndarray) -> list[bytes]:
        """Serialised list items of ``rows``."""
        table = self.table(entity)
        build = {"companies": self.company_item, "investors": self.investor_item,
                 "transactions": self.deal_item}[entity]
        return [table.row_bytes(r, build) for r in rows.tolist()]

    # ------------------------------------------------------------------ records

    @staticmethod
    def company_item(org: dict) -> dict:
        return {k: org[k] for k in COMPANY_LIST_FIELDS}

    @staticmethod
    def investor_item(org: dict) -> dict:
        return {k: org[k] for k in INVESTOR_LIST_FIELDS}

    def _target(self, deal: dict, rich: bool) -> dict:
        org = self.dataset.orgs[deal["target_index"]]
        out = {"id": org["id"], "name": org["name"], "short_name": org["short_name"],
               "website": org["website"], "country": deal["target_country"]}
        if rich:
            out.update({"region": org["region"], "city": org["city"], "founded": org["founded"]})
            for f in _COMPANY_LISTS:
                out[f] = list(org[f])
        return out

    def deal_item(self, deal: dict) -> dict:
        out = {k: deal[k] for k in DEAL_LIST_FIELDS if k != "target"}
        out["target"] = self._target(deal, rich=False)
        return {k: out[k] for k in DEAL_LIST_FIELDS}

    def deal_profile(self, deal: dict) -> dict:
        out = self.deal_item(deal)
        out["target"] = self._target(deal, rich=True)
        out["investors"] = deal["investors"]
        return out

    def company_profile(self, org: dict) -> dict:
        out = {k: org[k] for k in COMPANY_LIST_FIELDS}
        for k in _NULLABLE_PROFILE_LISTS:
            if not out[k]:
                out[k] = None
        out["employee_count"] = org["employee_count"]
        out["stock_listing"] = org["stock_listing"]
        out["valuation"] = org["valuation"]
        out["fundamentals"] = org["fundamentals"]
        out["deal_activity"] = self._deal_activity(org)
        return out

    def investor_profile(self, org: dict) -> dict:
        out = {k: org[k] for k in INVESTOR_PROFILE_FIELDS if k != "stats"}
        for k in _NULLABLE_PROFILE_LISTS:
            if not out[k]:
                out[k] = None
        out["stats"] = self._investor_stats(org)
        return out

    def live_deals(self, rows: list[int]) -> list[int]:
        deleted = self.deals.columns["deleted"]
        return [k for k in rows if not deleted[k]]

    def _deal_activity(self, org: dict) -> dict:
        deals = self.deals.records
        as_target = self.live_deals(self.by_target.get(self.org_row[org["id"]], []))
        made = self.live_deals(self.any_role.get(org["id"], []))
        fundings = [k for k in as_target if deals[k]["deal_type"] in _FUNDING]
        acquisitions = [k for k in as_target if deals[k]["deal_type"] == "M&A"]
        all_dates = [deals[k]["deal_date"] for k in as_target + made]
        return {
            "total_fundings_as_target": len(fundings),
            "total_acquisitions_as_target": len(acquisitions),
            "total_investments_made": len(set(made)),
            "last_funding_date": max((deals[k]["deal_date"] for k in fundings), default=None),
            "last_deal_date": max(all_dates, default=None),
        }

    def _investor_stats(self, org: dict) -> dict:
        deals = self.deals.records
        rows = sorted(set(self.live_deals(self.any_role.get(org["id"], []))))
        as_of = self.dataset.as_of.date()
        year_ago = (as_of - dt.timedelta(days=365)).isoformat()
        picked = [deals[k] for k in rows]

        def median(values: list[float]) -> float | None:
            vals = [v for v in values if v is not None]
            return round(float(np.median(vals)), 4) if vals else None

        raised = [d["deal_raised"] for d in picked if d["deal_raised"] is not None]
        types = Counter(d["deal_type"] for d in picked)
        subtypes = Counter(d["deal_subtype"] for d in picked)
        countries = Counter(d["target_country"] for d in picked if d["target_country"])
        verticals = Counter(v for d in picked for v in self.dataset.orgs[d["target_index"]]["verticals"])

        def top(counter: Counter, key: str) -> list[dict]:
            ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
            return [{key: k, "count": n} for k, n in ranked]

        def most_common(counter: Counter) -> str | None:
            ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
            return ranked[0][0] if ranked else None

        return {
            "total_deals": len(picked),
            "deals_last_12m": sum(1 for d in picked if d["deal_date"] > year_ago),
            "avg_round_size": round(sum(raised) / len(raised), 4) if raised else None,
            "median_valuation": median([d["deal_valuation"] for d in picked]),
            "median_ev_revenue": median([d["deal_multiples"]["ev_revenue"] for d in picked]),
            "median_ev_ebitda": median([d["deal_multiples"]["ev_ebitda"] for d in picked]),
            "most_common_deal_type": most_common(types),
            "most_common_deal_subtype": most_common(subtypes),
            "top_countries": top(countries, "country"),
            "top_verticals": top(verticals, "vertical"),
        }

    # ------------------------------------------------------------------ sub-collections

    def _by_date_desc(self, rows: list[int]) -> list[int]:
        deals = self.deals.records
        rows = sorted(rows, key=lambda k: deals[k]["id"])
        return sorted(rows, key=lambda k: deals[k]["deal_date"], reverse=True)

    def fundings(self, org: dict) -> list[dict]:
        rows = self.live_deals(self.by_target.get(self.org_row[org["id"]], []))
        deals = self.deals.records
        return [self.deal_item(deals[k]) for k in self._by_date_desc(
            [k for k in rows if deals[k]["deal_type"] in _FUNDING])]

    def sellside(self, org: dict) -> list[dict]:
        rows = self.live_deals(self.by_target.get(self.org_row[org["id"]], []))
        deals = self.deals.records
        return [self.deal_item(deals[k]) for k in self._by_date_desc(
            [k for k in rows if deals[k]["deal_type"] == "M&A"])]

    def with_role(self, org: dict) -> list[dict]:
        """Deals where ``org`` is a lead investor or a buyer, each with ``role``."""
        deals = self.deals.records
        deleted = self.deals.columns["deleted"]
        roles: dict[int, str] = {}
        for k, role in self.lead_or_buyer.get(org["id"], []):
            if not deleted[k]:
                roles.setdefault(k, role)
        return [{**self.deal_item(deals[k]), "role": roles[k]} for k in self._by_date_desc(list(roles))]

    def company_investors(self, org: dict) -> list[dict]:
        deals = self.deals.records
        rows = [k for k in self.live_deals(self.by_target.get(self.org_row[org["id"]], []))
                if deals[k]["deal_type"] in _FUNDING]
        acc: dict[str, dict] = {}
        for k in rows:
            d = deals[k]
            leads = {p["id"] for p in d["lead_investors"]}
            for p in d["investors"]:
                a = acc.get(p["id"])
                if a is None:
                    inv = self.dataset.orgs[self.org_row[p["id"]]]
                    a = acc[p["id"]] = {
                        "id": p["id"], "name": inv["name"], "short_name": inv["short_name"],
                        "country": inv["country"], "website": inv["website"],
                        "rounds_participated": 0, "is_lead_any_round": False,
                        "first_round_date": d["deal_date"], "last_round_date": d["deal_date"],
                    }
                a["rounds_participated"] += 1
                a["is_lead_any_round"] = a["is_lead_any_round"] or p["id"] in leads
                a["first_round_date"] = min(a["first_round_date"], d["deal_date"])
                a["last_round_date"] = max(a["last_round_date"], d["deal_date"])
        out = sorted(acc.values(), key=lambda a: (a["name"], a["id"]))
        return sorted(out, key=lambda a: -a["rounds_participated"])

    def portfolio(self, org: dict) -> list[dict]:
        deals = self.deals.records
        acc: dict[int, dict] = {}
        for k in sorted(set(self.live_deals(self.any_role.get(org["id"], [])))):
            d = deals[k]
            led = any(p["id"] == org["id"] for p in d["lead_investors"])
            target = self.dataset.orgs[d["target_index"]]
            a = acc.get(d["target_index"])
            if a is None:
                a = acc[d["target_index"]] = {
                    "id": target["id"], "name": target["name"], "short_name": target["short_name"],
                    "website": target["website"], "country": d["target_country"],
                    "first_invested": d["deal_date"], "last_invested": d["deal_date"],
                    "rounds_count": 0, "led_any_round": False,
                }
            a["rounds_count"] += 1
            a["led_any_round"] = a["led_any_round"] or led
            a["first_invested"] = min(a["first_invested"], d["deal_date"])
            a["last_invested"] = max(a["last_invested"], d["deal_date"])
        out = sorted(acc.values(), key=lambda a: a["id"])
        return sorted(out, key=lambda a: a["last_invested"], reverse=True)

    def co_investors(self, org: dict) -> list[dict]:
        deals = self.deals.records
        acc: dict[str, dict] = {}
        for k in sorted(set(self.live_deals(self.any_role.get(org["id"], [])))):
            d = deals[k]
            for p in {p["id"]: p for p in d["investors"]}.values():
                if p["id"] == org["id"]:
                    continue
                a = acc.get(p["id"])
                if a is None:
                    inv = self.dataset.orgs[self.org_row[p["id"]]]
                    a = acc[p["id"]] = {
                        "id": p["id"], "name": inv["name"], "short_name": inv["short_name"],
                        "website": inv["website"], "country": inv["country"], "shared_deals": 0,
                        "first_shared_date": d["deal_date"], "last_shared_date": d["deal_date"],
                    }
                a["shared_deals"] += 1
                a["first_shared_date"] = min(a["first_shared_date"], d["deal_date"])
                a["last_shared_date"] = max(a["last_shared_date"], d["deal_date"])
        out = sorted(acc.values(), key=lambda a: a["id"])
        return sorted(out, key=lambda a: -a["shared_deals"])

    # ------------------------------------------------------------------ aggregate and resolve

    def metric_arrays(self, metric: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Deal dates and metric values of ``rows`` for the aggregate."""
        column = METRIC_COLUMNS[metric]
        return self.deals.columns["deal_date"][rows], self.deals.columns[column][rows]

    def name_index(self, entity: str) -> Any:
        """The resolve index of ``companies`` or ``investors`` (built on first use)."""
        from .resolve import NameIndex

        with self._lock:
            index = self._name_indexes.get(entity)
            if index is None:
                table = self.table(entity)
                recs = table.records
                index = NameIndex([r["id"] for r in recs], [r["name"] for r in recs],
                                  [r["country"] for r in recs], [not r["deleted"] for r in recs])
                self._name_indexes[entity] = index
        return index


_RANGE_COLUMNS = {
    "founded_min": "founded", "founded_max": "founded", "ipoed_from": "ipoed", "ipoed_to": "ipoed",
    "date_from": "deal_date", "date_to": "deal_date",
    "valuation_min": "deal_valuation", "valuation_max": "deal_valuation",
    "raised_min": "deal_raised", "raised_max": "deal_raised",
    "revenue_min": "deal_revenue", "revenue_max": "deal_revenue",
    "ebitda_min": "deal_ebitda", "ebitda_max": "deal_ebitda",
    "ev_revenue_min": "ev_revenue", "ev_revenue_max": "ev_revenue",
    "ev_ebitda_min": "ev_ebitda", "ev_ebitda_max": "ev_ebitda",
    "updated_at": "updated_at",
}
