"""The Family B store: companies, investors and deals over two record stores.

Lists are answered by a boolean mask per filter over numpy columns (a list filter's
membership by hashing, :func:`~.filters.member_mask`), a cached sort
permutation (key, then nulls last, then ``id`` ascending) and page slices of list
items serialised once. Every target field of a deal is read from its company, so a
deal's target and the company's list item always agree. Profiles and
sub-collections (:class:`~.relations.Relations`) are built per request from the columns and the
records they need. After records change, :meth:`PrivateStore.refresh` re-derives the
tables and empties the caches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import orjson

from ..vocab import (
    COMPANY_LIST_FIELDS,
    DEAL_LIST_FIELDS,
    INVESTOR_LIST_FIELDS,
    INVESTOR_PROFILE_FIELDS,
    METRIC_COLUMNS,
)
from .corpus import Corpus
from .filters import Condition, member_mask
from .records import DEAL_SPEC, ORG_SPEC, RecordSpec, RecordStore
from .relations import Relations
from .resolve import NameIndex
from .tables import Table

__all__ = ["PrivateStore"]

_NULLABLE_PROFILE_LISTS = ("verticals", "themes", "revenue_model", "client_focus")
_TARGET_FIELDS = ("id", "name", "short_name", "website", "country")
_RICH_TARGET_FIELDS = (
    "region",
    "city",
    "founded",
    "verticals",
    "themes",
    "client_focus",
    "revenue_model",
    "company_type",
)
_RANGE_COLUMNS = {
    "founded_min": "founded",
    "founded_max": "founded",
    "ipoed_from": "ipoed",
    "ipoed_to": "ipoed",
    "date_from": "deal_date",
    "date_to": "deal_date",
    **{
        f"{m}_{end}": f"deal_{m}"
        for m in ("valuation", "raised", "revenue", "ebitda")
        for end in ("min", "max")
    },
    **{f"{m}_{end}": m for m in ("ev_revenue", "ev_ebitda") for end in ("min", "max")},
    "updated_at": "updated_at",
}
_QUERY_CACHE = 128


class PrivateStore:
    """Companies, investors and deals of a :class:`~.corpus.Corpus`, indexed for queries.

    The corpus's record stores are used (and changed) in place: build from a copy to
    keep the original.

    Examples
    --------
    >>> from dealframe.sandbox.models.corpus import Corpus
    >>> from dealframe.sandbox.models.data import generate
    >>> store = PrivateStore(Corpus.from_dataset(generate(seed=1, scale=0.02)))
    >>> rows = store.select("transactions", [], False, ("deal_date", True))
    >>> deal = orjson.loads(store.page_bytes("transactions", rows[:1])[0])
    >>> deal["target"]["country"] == store.company(deal["target"]["id"])["country"]
    True
    """

    def __init__(self, corpus: Corpus) -> None:
        self.orgs = corpus.orgs
        self.deals = corpus.deals
        self.as_of = corpus.as_of
        self._lock = threading.Lock()
        self._queries: OrderedDict[Any, np.ndarray] = OrderedDict()
        self._name_indexes: dict[str, NameIndex] = {}
        self.refresh()

    # ------------------------------------------------------------------ indexing

    def refresh(self) -> None:
        """Re-derive the tables from the record stores (after records change)."""
        o, d = self.orgs.columns, self.deals.columns
        company_rows = np.flatnonzero(o["is_company"])
        investor_rows = np.flatnonzero(o["is_investor"])
        org_columns = (
            "country",
            "region",
            "ownership",
            "active",
            "founded",
            "ipoed",
            "deleted",
            "updated_at",
        )
        self.companies = Table(
            self.orgs,
            company_rows,
            {
                "name": o["folded"][company_rows],
                "name_exact": o["name"][company_rows],
                **{k: o[k][company_rows] for k in org_columns},
            },
            self._company_item,
        )
        self.investors = Table(
            self.orgs,
            investor_rows,
            {
                "name": o["folded"][investor_rows],
                "name_exact": o["name"][investor_rows],
                **{k: o[k][investor_rows] for k in ("country", "deleted", "updated_at")},
            },
            self._investor_item,
        )
        target = d["target_org"]
        self.transactions = Table(
            self.deals,
            np.arange(len(self.deals)),
            {
                **{k: v for k, v in d.items() if k != "id"},
                "target_id": o["id"][target],
                "target_country": o["country"][target],
                "target_region": o["region"][target],
            },
            self._deal_item,
        )
        self.relations = Relations(self.orgs, self.deals, self.transactions, self.as_of)
        with self._lock:
            self._queries.clear()
            self._name_indexes.clear()

    def table(self, entity: str) -> Table:
        """The table of a list endpoint (``companies``, ``investors``, ``transactions``)."""
        return {
            "companies": self.companies,
            "investors": self.investors,
            "transactions": self.transactions,
        }[entity]

    # ------------------------------------------------------------------ list queries

    def select(
        self,
        entity: str,
        conditions: list[Condition],
        include_deleted: bool,
        sort: tuple[str, bool],
    ) -> np.ndarray:
        """Table positions matching the filters, in sort order (cached for paging)."""
        key = (entity, repr(conditions), include_deleted, sort)
        with self._lock:
            hit = self._queries.get(key)
            if hit is not None:
                self._queries.move_to_end(key)
                return hit
        table = self.table(entity)
        mask = np.ones(len(table), dtype=bool) if include_deleted else ~table.columns["deleted"]
        for c in conditions:
            mask &= self._condition(table, c)
        perm = table.permutation(*sort)
        found = perm[mask[perm]]
        with self._lock:
            self._queries[key] = found
            while len(self._queries) > _QUERY_CACHE:
                self._queries.popitem(last=False)
        return found

    def _condition(self, table: Table, c: Condition) -> np.ndarray:
        f, op, v = c.field, c.op, c.value
        cols = table.columns
        if f == "id":
            mask = np.zeros(len(table), dtype=bool)
            mask[table.positions(v)] = True
            return mask
        if f == "name":
            if op == "eq":
                return cols["name_exact"] == v
            needle = v.casefold()
            return np.fromiter((needle in n for n in cols["name"]), dtype=bool, count=len(table))
        if f == "investor_id":  # a lead investor or a buyer
            return self.deals.lists["lead_ids"].mask(v) | self.deals.lists["buyer_ids"].mask(v)
        if op == "overlaps":
            if f.startswith("target_"):
                return self.orgs.lists[f[len("target_") :]].mask(v)[cols["target_org"]]
            return self.orgs.lists[f].mask(v)[table.rows]
        if op == "in":
            return member_mask(cols[f], v)
        if op == "eq":
            return cols[f] == v
        values = cols[_RANGE_COLUMNS[f]]
        if op == "gte":
            return values >= v
        if op == "lte":
            return values <= v
        raise AssertionError(f"unhandled filter {f} {op}")  # pragma: no cover - specs are fixed

    def page_bytes(self, entity: str, positions: np.ndarray) -> list[bytes]:
        """Serialised list items of table ``positions``."""
        return self.table(entity).item_bytes(positions)

    # ------------------------------------------------------------------ items

    def _company_item(self, row: int) -> bytes:
        org = self.orgs.record(row)
        return orjson.dumps({k: org[k] for k in COMPANY_LIST_FIELDS})

    def _investor_item(self, row: int) -> bytes:
        org = self.orgs.record(row)
        return orjson.dumps({k: org[k] for k in INVESTOR_LIST_FIELDS})

    def target(self, org_row: int) -> dict:
        """The ``target`` object of a deal list item: the company's own fields."""
        cols = self.orgs.columns
        return {k: cols[k][org_row] for k in _TARGET_FIELDS}

    def deal_item(self, deal: dict) -> dict:
        """The list item of a deal record."""
        out = {k: deal[k] for k in DEAL_LIST_FIELDS if k != "target"}
        out["target"] = self.target(deal["target_index"])
        return {k: out[k] for k in DEAL_LIST_FIELDS}

    def _deal_item(self, row: int) -> bytes:
        return orjson.dumps(self.deal_item(self.deals.record(row)))

    # ------------------------------------------------------------------ single entities

    def find(self, entity: str, ident: str) -> tuple[int, dict] | None:
        """(record row, record) of an id in a table, or None when it is not there."""
        table = self.table(entity)
        position = table.position(ident)
        if position is None:
            return None
        row = int(table.rows[position])
        return row, table.store.record(row)

    def company(self, ident: str) -> dict:
        """The record of a company id (a helper for tests and examples)."""
        found = self.find("companies", ident)
        if found is None:
            raise KeyError(ident)
        return found[1]

    def company_profile(self, row: int, org: dict) -> dict:
        out = {k: org[k] for k in COMPANY_LIST_FIELDS}
        for k in _NULLABLE_PROFILE_LISTS:
            if not out[k]:
                out[k] = None
        for k in ("employee_count", "stock_listing", "valuation", "fundamentals"):
            out[k] = org[k]
        out["deal_activity"] = self.relations.deal_activity(row)
        return out

    def investor_profile(self, row: int, org: dict) -> dict:
        out = {k: org[k] for k in INVESTOR_PROFILE_FIELDS if k != "stats"}
        for k in _NULLABLE_PROFILE_LISTS:
            if not out[k]:
                out[k] = None
        out["stats"] = self.relations.investor_stats(row)
        return out

    def deal_profile(self, row: int, deal: dict) -> dict:
        out = self.deal_item(deal)
        target = self.orgs.record(deal["target_index"])
        out["target"].update({k: target[k] for k in _RICH_TARGET_FIELDS})
        out["investors"] = deal["investors"]
        return out

    def profile(self, entity: str, row: int, record: dict) -> dict:
        """The single-entity form of a record of ``entity``."""
        build = {
            "companies": self.company_profile,
            "investors": self.investor_profile,
            "transactions": self.deal_profile,
        }[entity]
        return build(row, record)

    # ------------------------------------------------------------------ aggregate and resolve

    def metric_arrays(self, metric: str, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Deal dates and metric values of deal table ``positions`` for the aggregate."""
        cols = self.transactions.columns
        return cols["deal_date"][positions], cols[METRIC_COLUMNS[metric]][positions]

    def name_index(self, entity: str) -> NameIndex:
        """The resolve index of ``companies`` or ``investors`` (built on first use)."""
        with self._lock:
            index = self._name_indexes.get(entity)
            if index is None:
                table = self.table(entity)
                cols = self.orgs.columns
                rows = table.rows
                index = NameIndex(
                    cols["id"][rows].tolist(),
                    cols["name"][rows].tolist(),
                    cols["country"][rows].tolist(),
                    (~cols["deleted"][rows]).tolist(),
                )
                self._name_indexes[entity] = index
        return index

    # ------------------------------------------------------------------ changes

    def spec(self, store: RecordStore) -> RecordSpec:
        """The record spec of one of this store's record stores."""
        return ORG_SPEC if store is self.orgs else DEAL_SPEC
