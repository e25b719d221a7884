"""Figures derived from the deal records: sub-collections, deal activity and investor stats.

Everything here is computed per request from the stores' columns, so it always agrees
with the deal records, including after changes. "Live" deals are those not soft-deleted.
An organisation takes part in a deal when it is among the deal's ``investors`` (for
M&A these are the buyers); it leads or buys when it is among ``lead_investors`` or
``buyers``. Orders are those of docs/sandbox.md. Sub-collections are lists of
serialised items.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

import numpy as np
import orjson

from ..vocab import FUNDING_DEAL_TYPES
from .records import RecordStore
from .tables import Table

__all__ = ["Relations"]

_FUNDING = np.array(sorted(FUNDING_DEAL_TYPES), dtype=object)
#: The organisation fields a portfolio or co-investor entry opens with.
_NAMED = ("id", "name", "short_name", "website", "country")


def _median(values: np.ndarray) -> float | None:
    values = values[~np.isnan(values)]
    return round(float(np.median(values)), 4) if values.size else None


def _ranked(counter: Counter) -> list[tuple[str, int]]:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))


def _top(counter: Counter, key: str) -> list[dict]:
    return [{key: k, "count": n} for k, n in _ranked(counter)[:5]]


def _most_common(counter: Counter) -> str | None:
    ranked = _ranked(counter)
    return ranked[0][0] if ranked else None


class Relations:
    """What the deals say about each organisation.

    Parameters
    ----------
    orgs, deals : RecordStore
        Organisations and deals.
    transactions : Table
        The deal table (its list items and id ranks are reused).
    as_of : datetime
        The sandbox clock's start (``deals_last_12m`` counts back from it).
    """

    def __init__(
        self, orgs: RecordStore, deals: RecordStore, transactions: Table, as_of: dt.datetime
    ) -> None:
        self.orgs = orgs
        self.deals = deals
        self.transactions = transactions
        self.as_of = as_of

    # ------------------------------------------------------------------ deal selections

    def _live(self, rows: np.ndarray) -> np.ndarray:
        """The live deals among ``rows``."""
        return rows[~self.deals.columns["deleted"][rows]]

    def _as_target(self, org_row: int) -> np.ndarray:
        return self._live(np.flatnonzero(self.deals.columns["target_org"] == org_row))

    def _with(self, role: str, org_row: int) -> np.ndarray:
        """Deal rows whose ``role`` list (``investor_ids``, ``lead_ids``, ``buyer_ids``) holds the org."""
        return self.deals.lists[role].rows_with([self.orgs.columns["id"][org_row]])

    def _taking_part(self, org_row: int) -> np.ndarray:
        return self._live(self._with("investor_ids", org_row))

    def _funding(self, rows: np.ndarray) -> np.ndarray:
        return rows[np.isin(self.deals.columns["deal_type"][rows], _FUNDING)]

    def _by_date_desc(self, rows: np.ndarray) -> np.ndarray:
        """Deal rows by ``deal_date`` descending, then ``id`` ascending."""
        days = self.deals.columns["deal_date"][rows].astype(np.int64)
        return rows[np.lexsort((self.transactions.columns["id_rank"][rows], -days))]

    def _date(self, row: int) -> str:
        return str(self.deals.columns["deal_date"][row])

    def _org(self, org_row: int, *names: str) -> dict:
        cols = self.orgs.columns
        return {name: cols[name][org_row] for name in names}

    # ------------------------------------------------------------------ deal lists

    def fundings(self, org_row: int) -> list[bytes]:
        """Live funding rounds targeting the company."""
        rows = self._by_date_desc(self._funding(self._as_target(org_row)))
        return self.transactions.item_bytes(rows)

    def sellside(self, org_row: int) -> list[bytes]:
        """Live M&A deals targeting the company."""
        rows = self._as_target(org_row)
        rows = self._by_date_desc(rows[self.deals.columns["deal_type"][rows] == "M&A"])
        return self.transactions.item_bytes(rows)

    def investments(self, org_row: int) -> list[bytes]:
        """Live deals the organisation leads or buys in, each with its ``role``."""
        lead = self._with("lead_ids", org_row)
        rows = np.union1d(lead, self._with("buyer_ids", org_row))
        rows = self._by_date_desc(self._live(rows))
        leads = set(lead.tolist())
        items = self.transactions.item_bytes(rows)
        return [
            item[:-1] + (b',"role":"lead_investor"}' if k in leads else b',"role":"buyer"}')
            for item, k in zip(items, rows.tolist())
        ]

    # ------------------------------------------------------------------ organisation lists

    def _per_org(
        self, events: list[tuple[int, str, bool]], fields: tuple[str, ...], names: dict[str, int]
    ) -> list[dict]:
        """One entry per organisation row of ``events`` (``(org row, deal date, flag)``): its
        ``fields``, then ``names`` in order, each naming a figure by position: 0 the number of
        events, 1 whether any had the flag, 2 the first date, 3 the last."""
        acc: dict[int, list] = {}
        for row, day, flag in events:
            a = acc.setdefault(row, [0, False, day, day])
            a[0] += 1
            a[1] = a[1] or flag
            a[2] = min(a[2], day)
            a[3] = max(a[3], day)
        return [
            {**self._org(row, *fields), **{name: a[k] for name, k in names.items()}}
            for row, a in acc.items()
        ]

    def company_investors(self, org_row: int) -> list[bytes]:
        """Investors in the company's live funding rounds, by rounds taken part in, then name
        (organisations only: a participant that is none is left out)."""
        lists, row_of = self.deals.lists, self.orgs.row_of
        events = [
            (row_of[pid], self._date(k), pid in lists["lead_ids"].row(k))
            for k in self._funding(self._as_target(org_row)).tolist()
            for pid in lists["investor_ids"].row(k)
            if pid in row_of
        ]
        figures = {
            "rounds_participated": 0,
            "is_lead_any_round": 1,
            "first_round_date": 2,
            "last_round_date": 3,
        }
        out = self._per_org(events, ("id", "name", "short_name", "country", "website"), figures)
        out.sort(key=lambda a: (a["name"], a["id"]))
        return [orjson.dumps(a) for a in sorted(out, key=lambda a: -a["rounds_participated"])]

    def portfolio(self, org_row: int) -> list[bytes]:
        """Companies the organisation took part in, by last investment (newest first), then id."""
        led = set(self._with("lead_ids", org_row).tolist())
        target = self.deals.columns["target_org"]
        events = [
            (int(target[k]), self._date(k), k in led) for k in self._taking_part(org_row).tolist()
        ]
        figures = {"first_invested": 2, "last_invested": 3, "rounds_count": 0, "led_any_round": 1}
        out = self._per_org(events, _NAMED, figures)
        out.sort(key=lambda a: a["id"])
        return [
            orjson.dumps(a) for a in sorted(out, key=lambda a: a["last_invested"], reverse=True)
        ]

    def co_investors(self, org_row: int) -> list[bytes]:
        """Organisations sharing live deals with this one, by deals shared, then id (a
        participant that is no organisation is left out)."""
        me, row_of = self.orgs.columns["id"][org_row], self.orgs.row_of
        events = [
            (row_of[pid], self._date(k), False)
            for k in self._taking_part(org_row).tolist()
            for pid in dict.fromkeys(self.deals.lists["investor_ids"].row(k))
            if pid != me and pid in row_of
        ]
        figures = {"shared_deals": 0, "first_shared_date": 2, "last_shared_date": 3}
        out = self._per_org(events, _NAMED, figures)
        out.sort(key=lambda a: a["id"])
        return [orjson.dumps(a) for a in sorted(out, key=lambda a: -a["shared_deals"])]

    # ------------------------------------------------------------------ profile figures

    def deal_activity(self, org_row: int) -> dict:
        """The company profile's ``deal_activity``."""
        types = self.deals.columns["deal_type"]
        as_target = self._as_target(org_row).tolist()
        made = self._taking_part(org_row).tolist()
        funding_days = [self._date(k) for k in as_target if types[k] in FUNDING_DEAL_TYPES]
        return {
            "total_fundings_as_target": len(funding_days),
            "total_acquisitions_as_target": sum(1 for k in as_target if types[k] == "M&A"),
            "total_investments_made": len(made),
            "last_funding_date": max(funding_days, default=None),
            "last_deal_date": max((self._date(k) for k in as_target + made), default=None),
        }

    def investor_stats(self, org_row: int) -> dict:
        """The investor profile's ``stats`` over the live deals it takes part in."""
        rows = self._taking_part(org_row)
        cols = self.deals.columns
        targets = cols["target_org"][rows].tolist()
        raised = [v for v in cols["deal_raised"][rows].tolist() if v == v]  # NaN: unknown
        year_ago = np.datetime64(self.as_of.date() - dt.timedelta(days=365), "D")
        countries, verticals = self.orgs.columns["country"], self.orgs.lists["verticals"]
        return {
            "total_deals": len(rows),
            "deals_last_12m": int((cols["deal_date"][rows] > year_ago).sum()),
            "avg_round_size": round(sum(raised) / len(raised), 4) if raised else None,
            "median_valuation": _median(cols["deal_valuation"][rows]),
            "median_ev_revenue": _median(cols["ev_revenue"][rows]),
            "median_ev_ebitda": _median(cols["ev_ebitda"][rows]),
            "most_common_deal_type": _most_common(Counter(cols["deal_type"][rows].tolist())),
            "most_common_deal_subtype": _most_common(Counter(cols["deal_subtype"][rows].tolist())),
            "top_countries": _top(Counter(countries[t] for t in targets), "country"),
            "top_verticals": _top(
                Counter(v for t in targets for v in verticals.row(t)), "vertical"
            ),
        }
