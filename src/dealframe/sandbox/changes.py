"""The sandbox learns to change: a moving clock and seeded updates, inserts and soft deletes.

Every change stamps ``updated_at`` with the sandbox clock (``state.clock``) and
is applied under ``state.lock``, followed by :meth:`PrivateStore.rebuild`, so a
Family B read sees either the whole change or none of it. Changes are
deterministic: the same seed and the same sequence of calls give the same data.

Family A never moves: only fields that Family A does not read are changed
(descriptions, CEOs, areas, head counts, deal money), listed companies are never
soft-deleted, and inserted organisations are private.

Examples
--------
>>> import dealframe.sandbox
>>> with dealframe.sandbox.run(scale=0.02) as sb:
...     ch = Changes(sb.state, seed=1)
...     _ = ch.advance(3600)
...     ids = ch.update("deals", 5)
...     len(ids)
5
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np

from .data import iso_ts
from .names import person_names
from .state import Clock, SandboxState

__all__ = ["ENTITIES", "Changes", "ChangeInputError"]

#: Entities that change (``transactions`` is accepted for ``deals``).
ENTITIES: tuple[str, ...] = ("companies", "investors", "deals")
_ALIASES = {"transactions": "deals"}
_OPERATIONS = ("update", "insert", "soft_delete", "undelete")


class ChangeInputError(ValueError):
    """An unknown entity or operation, or a count that is not a non-negative integer."""


def _entity(name: str) -> str:
    name = _ALIASES.get(name, name)
    if name not in ENTITIES:
        raise ChangeInputError(f"entity: {name!r} is not one of {', '.join(ENTITIES)}")
    return name


def _count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ChangeInputError(f"n: must be a non-negative integer, got {n!r}")
    return int(n)


class Changes:
    """Seeded changes to a running sandbox's Family B data.

    Parameters
    ----------
    state : SandboxState
        ``sandbox.state`` of a running sandbox (``dealframe.sandbox.run``).
    seed : int, default 0
        Same seed, same sequence of calls: same changes.

    Examples
    --------
    >>> ch = Changes(sb.state, seed=3)  # doctest: +SKIP
    >>> ch.random_round(200)  # doctest: +SKIP
    {'update': [...], 'insert': [...], 'soft_delete': [...], 'undelete': [...]}
    """

    def __init__(self, state: SandboxState, seed: int = 0) -> None:
        self.state = state
        if state.clock is None:
            state.clock = Clock(state.config.as_of)
        self.rng = np.random.default_rng(seed)
        self._deferred = False

    @contextlib.contextmanager
    def bulk(self) -> Iterator["Changes"]:
        """Hold the lock and re-index once at the end: many changes, one rebuild.

        Examples
        --------
        >>> with ch.bulk():  # doctest: +SKIP
        ...     for _ in range(100):
        ...         _ = ch.advance(1); _ = ch.insert("deals", 1000)
        """
        with self.state.lock:
            self._deferred = True
            try:
                yield self
            finally:
                self._deferred = False
                self.state.private.rebuild()

    # ------------------------------------------------------------------ clock

    def now(self) -> dt.datetime:
        """The sandbox clock."""
        assert self.state.clock is not None
        return self.state.clock.now()

    def advance(self, seconds: float) -> dt.datetime:
        """Move the sandbox clock forward by ``seconds`` (>= 0); return the new time."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0:
            raise ChangeInputError(f"seconds: must be a number >= 0, got {seconds!r}")
        assert self.state.clock is not None
        return self.state.clock.advance(seconds)

    # ------------------------------------------------------------------ operations

    def update(self, entity: str, n: int) -> list[str]:
        """Change ``n`` live records (fields Family A does not read); return their ids."""
        return self._apply(_entity(entity), "update", _count(n))

    def insert(self, entity: str, n: int) -> list[str]:
        """Add ``n`` new records modelled on existing ones; return their ids."""
        return self._apply(_entity(entity), "insert", _count(n))

    def soft_delete(self, entity: str, n: int) -> list[str]:
        """Soft-delete ``n`` live records (never a listed company); return their ids."""
        return self._apply(_entity(entity), "soft_delete", _count(n))

    def undelete(self, entity: str, n: int) -> list[str]:
        """Bring back ``n`` soft-deleted records (fewer if fewer exist); return their ids."""
        return self._apply(_entity(entity), "undelete", _count(n))

    def random_round(self, n_changes: int, *, advance_seconds: float = 3600.0) -> dict[str, list[str]]:
        """Advance the clock, then apply ``n_changes`` changes of every kind to every entity.

        Returns
        -------
        dict
            Operation name → ids changed (entities mixed).
        """
        n_changes = _count(n_changes)
        self.advance(advance_seconds)
        weights = np.array([0.6, 0.2, 0.12, 0.08])
        picks = self.rng.choice(len(_OPERATIONS) * len(ENTITIES), size=n_changes,
                                p=np.repeat(weights, len(ENTITIES)) / len(ENTITIES))
        counts = np.bincount(picks, minlength=len(_OPERATIONS) * len(ENTITIES))
        out: dict[str, list[str]] = {op: [] for op in _OPERATIONS}
        with self.state.lock:
            for k, count in enumerate(counts.tolist()):
                op, entity = _OPERATIONS[k // len(ENTITIES)], ENTITIES[k % len(ENTITIES)]
                if count:
                    out[op] += self._apply(entity, op, count, rebuild=False)
            if not self._deferred:
                self.state.private.rebuild()
        return out

    # ------------------------------------------------------------------ machinery

    def _apply(self, entity: str, op: str, n: int, *, rebuild: bool = True) -> list[str]:
        if n == 0:
            return []
        with self.state.lock:
            stamp = iso_ts(self.now())
            records = self._records(entity)
            if op == "insert":
                ids = getattr(self, f"_insert_{entity}")(records, n, stamp)
            else:
                ids = getattr(self, f"_{op}")(entity, records, n, stamp)
            if rebuild and not self._deferred:
                self.state.private.rebuild()
        return ids

    def _records(self, entity: str) -> list[dict]:
        ds = self.state.dataset
        if entity == "deals":
            return ds.deals
        flag = "_company" if entity == "companies" else "_investor"
        return [o for o in ds.orgs if o[flag]]

    def _pick(self, pool: list[dict], n: int) -> list[dict]:
        if not pool:
            return []
        chosen = self.rng.choice(len(pool), size=min(n, len(pool)), replace=False)
        return [pool[i] for i in sorted(chosen.tolist())]

    def _update(self, entity: str, records: list[dict], n: int, stamp: str) -> list[str]:
        chosen = self._pick([r for r in records if not r["deleted"]], n)
        for r in chosen:
            if entity == "deals":
                self._change_money(r)
            else:
                self._change_org(r)
            r["updated_at"] = stamp
        return [r["id"] for r in chosen]

    def _soft_delete(self, entity: str, records: list[dict], n: int, stamp: str) -> list[str]:
        pool = [r for r in records if not r["deleted"] and not r.get("is_public", False)]
        chosen = self._pick(pool, n)
        for r in chosen:
            r["deleted"] = True
            r["updated_at"] = stamp
        return [r["id"] for r in chosen]

    def _undelete(self, entity: str, records: list[dict], n: int, stamp: str) -> list[str]:
        chosen = self._pick([r for r in records if r["deleted"]], n)
        for r in chosen:
            r["deleted"] = False
            r["updated_at"] = stamp
        return [r["id"] for r in chosen]

    def _change_org(self, org: dict) -> None:
        k = int(self.rng.integers(1, 1_000_000))
        org["description"] = f"{org['description'].split(' Update ')[0]} Update {k}."
        org["ceo"] = person_names(self.rng, 1)[0] if self.rng.random() < 0.8 else None
        org["employee_count"] = int(self.rng.lognormal(4.5, 1.6)) + 1
        if not org.get("is_public", False):
            org["active"] = bool(self.rng.random() < 0.9)

    def _change_money(self, deal: dict) -> None:
        factor = float(self.rng.uniform(0.7, 1.4))
        if deal["deal_valuation"] is not None:
            deal["deal_valuation"] = round(deal["deal_valuation"] * factor, 3)
            multiples = deal["deal_multiples"]
            for key, base in (("ev_revenue", "deal_revenue"), ("ev_ebitda", "deal_ebitda")):
                if deal[base]:
                    multiples[key] = round(deal["deal_valuation"] / deal[base], 4)
        elif deal["deal_raised"] is not None:
            deal["deal_raised"] = round(deal["deal_raised"] * factor, 3)
        else:
            deal["deal_revenue"] = round(float(self.rng.lognormal(3.0, 1.0)), 3)

    def _new_id(self) -> str:
        return str(uuid.UUID(bytes=self.rng.bytes(16), version=4))

    def _new_org(self, template: dict, stamp: str, suffix: str) -> dict:
        org = copy.deepcopy(template)
        k = int(self.rng.integers(100, 10_000))
        org.update({"id": self._new_id(), "name": f"{template['name']} {suffix} {k}",
                    "created_at": stamp, "updated_at": stamp, "deleted": False, "is_public": False,
                    "ipoed": None, "stock_listing": None})
        return org

    def _insert_companies(self, records: list[dict], n: int, stamp: str) -> list[str]:
        pool = [o for o in records if not o["is_public"] and not o["_investor"]]
        out = []
        for template in self._pick(pool, n) * (1 + n // max(len(pool), 1)):
            if len(out) == n:
                break
            org = self._new_org(template, stamp, "Labs")
            self.state.dataset.orgs.append(org)
            out.append(org["id"])
        return out

    def _insert_investors(self, records: list[dict], n: int, stamp: str) -> list[str]:
        pool = [o for o in records if not o["_company"]]
        out = []
        for template in self._pick(pool, n) * (1 + n // max(len(pool), 1)):
            if len(out) == n:
                break
            org = self._new_org(template, stamp, "Partners")
            self.state.dataset.orgs.append(org)
            out.append(org["id"])
        return out

    def _insert_deals(self, records: list[dict], n: int, stamp: str) -> list[str]:
        orgs = self.state.dataset.orgs
        targets = [i for i, o in enumerate(orgs) if o["_company"] and not o["deleted"]]
        out = []
        for template in self._pick([d for d in records if not d["deleted"]], n) * (1 + n // max(len(records), 1)):
            if len(out) == n:
                break
            deal = copy.deepcopy(template)
            members = {p["id"] for p in deal["investors"]} | {p["id"] for p in deal["buyers"]}
            for _ in range(20):
                target = targets[int(self.rng.integers(0, len(targets)))]
                if orgs[target]["id"] not in members:
                    break
            else:
                continue
            deal.update({"id": self._new_id(), "target_index": target,
                         "target_country": orgs[target]["country"],
                         "deal_synopsis": f"{orgs[target]['name']}: {deal['deal_subtype']} ({deal['deal_type']}).",
                         "created_at": stamp, "updated_at": stamp, "deleted": False})
            self.state.dataset.deals.append(deal)
            out.append(deal["id"])
        return out
