"""The sandbox learns to change: a moving clock and seeded updates, inserts and soft deletes.

Every change stamps ``updated_at`` with the sandbox clock (``state.clock``) and is
applied to the Family B records under ``state.lock``, followed by
:meth:`~dealframe.sandbox.models.private.PrivateStore.refresh`, so a Family B read
sees either the whole change or none of it. Changes are deterministic: the same seed
and the same sequence of calls give the same data. An inserted record always gets an
id that no organisation or deal has.

Family A never moves: only fields that Family A does not read are changed
(descriptions, CEOs, head counts, activity, deal money), listed companies are never
soft-deleted, and inserted organisations are private. An inserted investor comes with a new
funding round it leads (section 4.3: investors led rounds or acquired companies), and a deal's
soft delete never takes an investor's last live deal it leads or buys, so fewer deals than asked
may be soft-deleted.

Examples
--------
>>> from dealframe.sandbox.models import SandboxConfig, SandboxState
>>> state = SandboxState.build(SandboxConfig(scale=0.02))
>>> ch = Changes(state, seed=1)
>>> _ = ch.advance(3600)
>>> len(ch.update("deals", 5)), len(ch.insert("companies", 2))
(5, 2)
>>> state.reset()  # back to the generated data
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import numbers
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from .arguments import SandboxArgumentError, methods_checked
from .errors import json_value
from .models.data import iso_ts
from .models.deals import MAX_LEADS, may_target
from .models.names import person_names
from .models.records import RecordStore
from .models.state import SandboxState
from .record_fields import misfit

__all__ = ["ENTITIES", "MAX_CHANGES", "ChangeInputError", "Changes"]

#: Entities that change (``transactions`` is accepted for ``deals``).
ENTITIES: tuple[str, ...] = ("companies", "investors", "deals")
_ALIASES = {"transactions": "deals"}
_OPERATIONS = ("update", "insert", "soft_delete", "undelete")


class ChangeInputError(SandboxArgumentError):
    """An unknown entity or id, a count that is not a non-negative integer, a state that is
    no sandbox's, a seed that is no seed.

    A :class:`~dealframe.sandbox.SandboxArgumentError` (so a ``dealframe.ValidationError`` and
    a ``ValueError``) with ``.argument`` and ``.expected``; its message is
    ``<argument>: <problem>``, as the admin endpoints' ``400`` quotes it in ``details.errors``.

    Examples
    --------
    >>> Changes(None)
    Traceback (most recent call last):
    ...
    dealframe.sandbox.changes.ChangeInputError: state: must be a SandboxState (sb.state of a running sandbox, or one built in-process), got null
    """


class _Misfit(Exception):
    """A field of an edited record not of the document's type: ``(field, expected, value)``
    (:func:`~.record_fields.misfit`)."""


class _Removed:
    """The value of a field an edit removed, as its refusal shows it."""

    def __repr__(self) -> str:
        return "nothing (the field was removed)"


def _refused(
    argument: str, expected: str, got: Any, problem: str | None = None
) -> ChangeInputError:
    """A :class:`ChangeInputError` saying ``<argument>: <problem>`` (by default: must be
    ``expected``, got ``got``), ``got`` in JSON's words (:func:`~.errors.json_value`), as
    the admin endpoints' ``400`` quotes it and every other 400 of the sandbox words a value.

    Examples
    --------
    >>> str(_refused("n", "a non-negative integer", True))
    'n: must be a non-negative integer, got true'
    >>> str(_refused("seconds", "a number >= 0", None))
    'seconds: must be a number >= 0, got null'
    """
    said = problem or f"must be {expected}, got {json_value(got)}"
    return ChangeInputError(argument, expected, got, message=f"{argument}: {said}")


def _entity(name: Any) -> str:
    """``name`` as one of :data:`ENTITIES` (``"transactions"`` is ``"deals"``).

    Examples
    --------
    >>> _entity("transactions")
    'deals'
    >>> _entity("deal")
    Traceback (most recent call last):
    ...
    dealframe.sandbox.changes.ChangeInputError: entity: 'deal' is not one of companies, investors, deals (did you mean 'deals'?)
    """
    name = _ALIASES.get(name, name) if isinstance(name, str) else name
    if name not in ENTITIES:
        expected = f"one of {', '.join(ENTITIES)}"
        words = [*ENTITIES, *_ALIASES]
        close = difflib.get_close_matches(name, words, n=1) if isinstance(name, str) else []
        hint = f" (did you mean {_ALIASES.get(close[0], close[0])!r}?)" if close else ""
        raise _refused("entity", expected, name, f"{json_value(name)} is not {expected}{hint}")
    return name


def _whole(n: Any) -> bool:
    """Whether ``n`` is an integer of 0 or more (numpy's too; not a bool)."""
    return not isinstance(n, bool) and isinstance(n, (int, np.integer)) and bool(n >= 0)


def _real(value: Any) -> bool:
    """Whether ``value`` is a real number (``numbers.Real``: numpy's too), not a bool.

    Examples
    --------
    >>> _real(2), _real(np.int64(2)), _real(np.float32(1.5)), _real(True), _real("2")
    (True, True, True, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


#: Most records one call changes or adds (``n``, ``n_changes``): records are built in
#: memory, so a count far beyond any sandbox's data (``insert("deals", 10**30)``) is refused
#: rather than tried; call again for more.
MAX_CHANGES = 100_000

#: Organisations drawn at once as a copied deal's target, before all are searched
#: (:meth:`Changes._target`).
_DRAWN_TARGETS = 32


def _count(n: Any) -> int:
    """``n`` as a count of records to change, named ``n`` (as the admin endpoint's body
    member is named, for ``random_round`` too)."""
    if not _whole(n):
        raise _refused("n", "a non-negative integer", n)
    if n > MAX_CHANGES:
        expected = f"at most {MAX_CHANGES:,} (call again for more)"
        raise _refused("n", expected, n)
    return int(n)


def _ids(ids: Any) -> list[str]:
    """``ids`` as a list of id strings (a bare string is one id), else a
    :class:`ChangeInputError` naming ``ids``."""
    if isinstance(ids, str):
        return [ids]
    expected = "an id or a list of ids (strings)"
    if not isinstance(ids, Iterable) or isinstance(ids, (bytes, bytearray, Mapping)):
        raise _refused("ids", expected, ids)
    listed = list(ids)
    for k, one in enumerate(listed):
        if not isinstance(one, str):
            raise _refused(f"ids[{k}]", "an id (a string)", one)
    return listed


@methods_checked
class Changes:
    """Seeded changes to a sandbox's Family B data.

    Parameters
    ----------
    state : SandboxState
        ``sandbox.state`` of a running sandbox, or a state built in-process.
    seed : int or numpy.random.Generator, default 0
        Same seed, same sequence of calls: same changes. A generator is used as is, whatever
        its bit generator, and the changes follow its state (the admin endpoint passes the
        state's own, so its changes continue one stream across requests).

    Raises
    ------
    ChangeInputError
        A ``state`` that is no :class:`SandboxState` (``Changes(sb)`` for
        ``Changes(sb.state)``, ``Changes(None)``) or a ``seed`` that is neither.
    SandboxCallError
        Arguments a method does not take (``insert("deals", nn=1)``), as every method.

    Examples
    --------
    >>> ch = Changes(sb.state, seed=3)  # doctest: +SKIP
    >>> ch.random_round(200)  # doctest: +SKIP
    {'update': [...], 'insert': [...], 'soft_delete': [...], 'undelete': [...]}
    """

    def __init__(self, state: SandboxState, seed: int | np.random.Generator = 0) -> None:
        if not isinstance(state, SandboxState):
            expected = "a SandboxState (sb.state of a running sandbox, or one built in-process)"
            raise _refused("state", expected, state)
        if not isinstance(seed, np.random.Generator) and not _whole(seed):
            raise _refused("seed", "a non-negative integer or a numpy.random.Generator", seed)
        self.state = state
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._rounds_rng: np.random.Generator | None = None
        self._deferred = False

    @contextlib.contextmanager
    def bulk(self) -> Iterator[Changes]:
        """Hold the lock and re-index once at the end: many changes, one refresh.

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
                self.state.private.refresh()

    # ------------------------------------------------------------------ clock

    def now(self) -> dt.datetime:
        """The sandbox clock.

        It starts at the configuration's ``as_of`` and moves only by :meth:`advance`; every
        change stamps ``updated_at`` with it.

        Examples
        --------
        >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
        >>> ch = Changes(SandboxState.build(SandboxConfig(scale=0.02, as_of="2026-01-01")))
        >>> ch.now().isoformat()
        '2026-01-01T00:00:00+00:00'
        """
        return self.state.clock.now()

    def advance(self, seconds: float) -> dt.datetime:
        """Move the sandbox clock forward by ``seconds`` (>= 0); return the new time.

        Examples
        --------
        >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> ch = Changes(state, seed=1)
        >>> ch.advance(90).isoformat()
        '2026-06-30T00:01:30+00:00'
        >>> [deal] = ch.update("deals", 1)  # stamped with the new time
        >>> state.private.find("transactions", deal)[1]["updated_at"]
        '2026-06-30T00:01:30+00:00'
        """
        return self._advance(seconds, "seconds")

    def _advance(self, seconds: Any, argument: str) -> dt.datetime:
        """:meth:`advance`, a bad ``seconds`` named ``argument``: any real number of 0 or
        more (numpy's too: ``np.int64(2)``; not a bool)."""
        if not _real(seconds) or not seconds >= 0:
            raise _refused(argument, "a number >= 0", seconds)
        # ``timedelta`` takes no numpy number: an int stays exact, the others are floats
        value = int(seconds) if isinstance(seconds, numbers.Integral) else float(seconds)
        try:
            return self.state.clock.advance(value)
        except OverflowError:  # beyond datetime's year 9999 (10**30, inf): the clock is kept
            expected = "a number >= 0 that keeps the clock before the year 10000"
            raise _refused(argument, expected, seconds) from None

    # ------------------------------------------------------------------ operations

    def update(self, entity: str, n: int) -> list[str]:
        """Change ``n`` live records (fields Family A does not read; fewer if fewer are
        live); return their ids.

        Examples
        --------
        >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> ch = Changes(state, seed=1)
        >>> _ = ch.advance(60)
        >>> ids = ch.update("deals", 3)
        >>> len(ids), {state.private.find("transactions", i)[1]["updated_at"] for i in ids}
        (3, {'2026-06-30T00:01:00+00:00'})
        """
        return self._apply(_entity(entity), "update", _count(n))

    def insert(self, entity: str, n: int) -> list[str]:
        """Add ``n`` new records modelled on existing ones; return their (new) ids.

        Each new investor comes with a new deal: a funding round it leads, dated on or after
        its founding (section 4.3), so ``insert("investors", n)`` adds ``n`` deals too, whose
        ids are not returned (``investor_id`` finds them). The rounds are drawn from a stream
        of their own, seeded by one draw from this one, so they move no other change's draws.
        Rarely fewer than ``n`` are added: an investor for whom no round is found, or a deal
        copied from one for which no target is left, is not.

        Examples
        --------
        >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> new = Changes(state, seed=1).insert("companies", 2)
        >>> [state.private.find("companies", i)[1]["name"] for i in new]
        ['Syndex Finance Labs 9509', 'Pixwexbri Logistics Labs 2567']
        """
        return self._apply(_entity(entity), "insert", _count(n))

    def soft_delete(self, entity: str, n: int) -> list[str]:
        """Soft-delete up to ``n`` live records; return their ids (maybe fewer than ``n``).

        Never a listed company. Deals are picked among all live deals, and a pick that is
        the last live deal an investor (soft-deleted or not) leads or buys is skipped, so
        every investor keeps one: fewer than ``n`` deals may be soft-deleted. Fewer than
        ``n`` live records (of those that may go) are all soft-deleted.

        Examples
        --------
        A soft-deleted company is a 404 unless deleted records are asked for:

        >>> import dealframe, dealframe.sandbox
        >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
        ...     [gone] = Changes(sb.state, seed=1).soft_delete("companies", 1)
        ...     try:
        ...         client.private.company(gone)
        ...     except dealframe.NotFoundError as error:
        ...         print(error.status)
        ...     print(client.private.company(gone, include_deleted=True)["deleted"].tolist())
        404
        [True]
        """
        return self._apply(_entity(entity), "soft_delete", _count(n))

    def undelete(self, entity: str, n: int) -> list[str]:
        """Bring back ``n`` soft-deleted records (fewer if fewer exist); return their ids.

        Examples
        --------
        >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
        >>> state = SandboxState.build(SandboxConfig(scale=0.02))
        >>> back = Changes(state, seed=1).undelete("investors", 5)  # only one was deleted
        >>> [state.private.find("investors", i)[1]["deleted"] for i in back]
        [False]
        """
        return self._apply(_entity(entity), "undelete", _count(n))

    def edit(self, entity: str, ids: Iterable[str], change: Callable[[dict], None]) -> list[str]:
        """Apply ``change`` to the records of ``ids`` (a dict each, changed in place).

        ``updated_at`` is then stamped with the clock. For tests that need one precise
        change; an unknown id, or a change that leaves a record invalid (its ``id`` changed,
        a field removed, a required field null, a field of another type than the document's:
        :func:`~.record_fields.misfit`), is a :class:`ChangeInputError` naming the field and
        what it must be, and nothing is changed. A deal may be given a participant that is no
        organisation: the deal lists it, the organisations' sub-collections leave it out, and
        soft deletes keep it no deal.

        Examples
        --------
        >>> ch.edit("deals", ids, lambda d: d.update(deal_synopsis="Revised."))  # doctest: +SKIP
        """
        name = _entity(entity)
        ids = _ids(ids)
        if not callable(change):
            raise _refused(
                "change", "a function taking a record (a dict) to change in place", change
            )
        store = self._store(name)
        unknown = [i for i in ids if i not in store.row_of]
        if unknown:
            problem = f"{json_value(unknown[0])} is not a known {entity} id"
            raise _refused("ids", f"known {entity} ids", unknown[0], problem)
        with self.state.lock:
            rows = [store.row_of[i] for i in ids]
            self._rewrite(name, rows, change, iso_ts(self.now()), checked=True)
            self._refresh()
        return ids

    def random_round(
        self, n_changes: int, *, advance_seconds: float = 3600.0
    ) -> dict[str, list[str]]:
        """Advance the clock, then apply ``n_changes`` changes of every kind to every entity.

        Returns
        -------
        dict
            Operation name → ids changed (entities mixed): maybe fewer than drawn, as
            each operation may change fewer than asked (a deal's soft delete most often).

        Examples
        --------
        >>> from dealframe.sandbox.models import SandboxConfig, SandboxState
        >>> ch = Changes(SandboxState.build(SandboxConfig(scale=0.02)), seed=1)
        >>> done = ch.random_round(50)
        >>> {op: len(ids) for op, ids in done.items()}
        {'update': 31, 'insert': 9, 'soft_delete': 5, 'undelete': 3}
        >>> ch.now().isoformat()  # an hour later
        '2026-06-30T01:00:00+00:00'
        """
        n_changes = _count(n_changes)
        self._advance(advance_seconds, "advance_seconds")
        weights = np.array([0.6, 0.2, 0.12, 0.08])
        picks = self.rng.choice(
            len(_OPERATIONS) * len(ENTITIES),
            size=n_changes,
            p=np.repeat(weights, len(ENTITIES)) / len(ENTITIES),
        )
        counts = np.bincount(picks, minlength=len(_OPERATIONS) * len(ENTITIES))
        out: dict[str, list[str]] = {op: [] for op in _OPERATIONS}
        with self.state.lock:
            try:
                for k, count in enumerate(counts.tolist()):
                    op, entity = _OPERATIONS[k // len(ENTITIES)], ENTITIES[k % len(ENTITIES)]
                    if count:
                        out[op] += self._apply(entity, op, count, refresh=False)
            finally:  # the operations applied are read, even when a later one failed
                self._refresh()
        return out

    # ------------------------------------------------------------------ machinery

    def _refresh(self) -> None:
        if not self._deferred:
            self.state.private.refresh()

    def _store(self, entity: str) -> RecordStore:
        private = self.state.private
        return private.deals if entity == "deals" else private.orgs

    def _pool(self, entity: str, mask: np.ndarray | None = None) -> np.ndarray:
        """Rows of ``entity`` (within ``mask``), in record order."""
        if entity == "deals":
            keep = np.ones(len(self.state.private.deals), dtype=bool)
        else:
            flag = "is_company" if entity == "companies" else "is_investor"
            keep = self.state.private.orgs.columns[flag].copy()
        return np.flatnonzero(keep if mask is None else keep & mask)

    def _apply(self, entity: str, op: str, n: int, *, refresh: bool = True) -> list[str]:
        if n == 0:
            return []
        with self.state.lock:
            try:
                ids = getattr(self, f"_{op}")(entity, n, iso_ts(self.now()))
            finally:  # whatever was applied is read, even when the operation failed
                if refresh:
                    self._refresh()
        return ids

    def _pick(self, pool: np.ndarray, n: int) -> list[int]:
        if not len(pool):
            return []
        chosen = self.rng.choice(len(pool), size=min(n, len(pool)), replace=False)
        return [int(pool[i]) for i in sorted(chosen.tolist())]

    def _rewrite(
        self,
        entity: str,
        rows: list[int],
        change: Callable[[dict], None],
        stamp: str,
        *,
        checked: bool = False,
    ) -> list[str]:
        """Apply ``change`` to the records of ``rows``, stamped; with ``checked`` (a test's
        change, :meth:`edit`), each record's fields are first checked against the document's
        types (:func:`~.record_fields.misfit`) and the fields it had are kept."""
        store = self._store(entity)
        spec = self.state.private.spec(store)
        prepared = []
        for row in rows:  # every record read and checked before any is written
            record = store.record(row)
            ident, fields = record["id"], list(record)
            change(record)
            record["updated_at"] = stamp
            try:
                if checked:
                    self._check_fields(entity, record, fields)
                prepared.append(store.prepare(spec, row, record))
            except (KeyError, ValueError, TypeError) as exc:
                why = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
                problem = f"the change left {entity} {ident} invalid ({why}): nothing was changed"
                raise _refused(
                    "change", "a change that keeps each record valid", None, problem
                ) from None
            except _Misfit as exc:
                field, expected, value = exc.args
                problem = (
                    f"the change left {entity} {ident} invalid ({field}: must be {expected}, "
                    f"got {json_value(value)}): nothing was changed"
                )
                raise _refused("change", f"{field}: {expected}", value, problem) from None
        for one in prepared:
            store.apply(one)
        return [store.columns["id"][one.row] for one in prepared]

    def _check_fields(self, entity: str, record: dict, fields: list[str]) -> None:
        """Raise :class:`_Misfit` for the first field of ``record`` not of the document's
        type, or for one of ``fields`` it no longer has."""
        orgs = self.state.private.orgs
        companies = orgs.columns["is_company"]
        found = misfit(entity, record, lambda row: row < len(orgs) and bool(companies[row]))
        if found is not None:
            raise _Misfit(*found)
        removed = [field for field in fields if field not in record]
        if removed:
            raise _Misfit(
                removed[0], "kept (an edit may change a field, not remove it)", _Removed()
            )

    def _update(self, entity: str, n: int, stamp: str) -> list[str]:
        deleted = self._store(entity).columns["deleted"]
        change = self._change_money if entity == "deals" else self._change_org
        return self._rewrite(entity, self._pick(self._pool(entity, ~deleted), n), change, stamp)

    def _soft_delete(self, entity: str, n: int, stamp: str) -> list[str]:
        cols = self._store(entity).columns
        if entity == "deals":
            rows = self._spare_leaders(n)
        else:
            rows = self._pick(self._pool(entity, ~cols["deleted"] & ~cols["is_public"]), n)
        return self._rewrite(entity, rows, lambda r: r.update(deleted=True), stamp)

    def _spare_leaders(self, n: int) -> list[int]:
        """Rows of up to ``n`` live deals to soft-delete, picked among all live deals, a pick
        that is the last live deal an investor leads or buys skipped (so fewer rows).

        Section 4.3's investors led rounds or acquired companies, so every investor keeps one
        (docs/sandbox.md, "What changes"). Picking among all live deals, not only the others,
        leaves the stream's later draws as they would be without the rule."""
        private = self.state.private
        deals, orgs = private.deals, private.orgs
        live = ~deals.columns["deleted"]
        nobody = len(orgs)  # the row of a participant that is no organisation (Changes.edit)
        roles = []  # per role list (leads, buyers): the organisation row of each vocabulary id
        led = np.zeros(nobody + 1, dtype=np.int64)  # live deals each organisation leads or buys
        for name in ("lead_ids", "buyer_ids"):
            col = deals.lists[name]
            org_of = np.fromiter(
                (orgs.row_of.get(i, nobody) for i in col.vocab),
                dtype=np.int64,
                count=len(col.vocab),
            )
            roles.append((col, org_of))
            led += np.bincount(org_of[col.codes][live[col.element_rows()]], minlength=led.size)
        # soft-deleted investors too (one may be undeleted); nobody is guarded
        guarded = np.append(orgs.columns["is_investor"], False)
        out = []
        for row in self._pick(self._pool("deals", live), n):
            leaders = np.concatenate(
                [
                    org_of[col.codes[col.offsets[row] : col.offsets[row + 1]]]
                    for col, org_of in roles
                ]
            )
            if (guarded[leaders] & (led[leaders] <= 1)).any():
                continue  # an investor's last live deal as lead or buyer
            led[leaders] -= 1
            out.append(row)
        return out

    def _undelete(self, entity: str, n: int, stamp: str) -> list[str]:
        deleted = self._store(entity).columns["deleted"]
        return self._rewrite(
            entity,
            self._pick(self._pool(entity, deleted), n),
            lambda r: r.update(deleted=False),
            stamp,
        )

    def _change_org(self, org: dict) -> None:
        k = int(self.rng.integers(1, 1_000_000))
        said = org["description"]  # a string or null (Changes.edit may leave it null)
        org["description"] = f"{said.split(' Update ')[0]} Update {k}." if said else f"Update {k}."
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

    # ------------------------------------------------------------------ inserts

    def _new_id(self, taken: set[str], rng: np.random.Generator | None = None) -> str:
        """A random id that no organisation, deal or id in ``taken`` has (then added to it),
        drawn from ``rng`` (by default the changes' own stream)."""
        private = self.state.private
        rng = self.rng if rng is None else rng
        while True:
            ident = str(uuid.UUID(bytes=rng.bytes(16), version=4))
            if (
                ident not in private.orgs.row_of
                and ident not in private.deals.row_of
                and ident not in taken
            ):
                taken.add(ident)
                return ident

    def _templates(self, pool: np.ndarray, n: int, population: int) -> list[int]:
        """Rows to copy: ``n`` picked from ``pool``, repeated when the pool is small."""
        return self._pick(pool, n) * (1 + n // max(population, 1))

    def _insert(self, entity: str, n: int, stamp: str) -> list[str]:
        private = self.state.private
        led: list[dict] = []
        if entity == "deals":
            records = self._new_deals(n, stamp)
        else:
            records, led = self._new_orgs(entity, n, stamp)
        store = self._store(entity)
        store.append(private.spec(store), records)
        if led:  # after the investors they name
            private.deals.append(private.spec(private.deals), led)
        return [r["id"] for r in records]

    def _new_orgs(self, entity: str, n: int, stamp: str) -> tuple[list[dict], list[dict]]:
        """``n`` new organisations, each an existing one's copy under a new id and name, and
        for new investors the funding rounds they lead (:meth:`_led_round`): an investor with
        no such round (none dated after its founding has a target left) is not inserted.

        A new company is the target of no deal yet, as about a quarter of the generated
        companies are.
        """
        cols = self.state.private.orgs.columns
        if entity == "companies":
            pool, suffix = self._pool(entity, ~cols["is_public"] & ~cols["is_investor"]), "Labs"
        else:
            pool, suffix = self._pool(entity, ~cols["is_company"]), "Partners"
            rounds, rng = self._rounds_by_date(), self._rounds_stream()
        out: list[dict] = []
        led: list[dict] = []
        taken: set[str] = set()
        for row in self._templates(pool, n, len(pool)):
            if len(out) == n:
                break
            org = self.state.private.orgs.record(row)
            k = int(self.rng.integers(100, 10_000))
            org.update(
                {
                    "id": self._new_id(taken),
                    "name": f"{org['name']} {suffix} {k}",
                    "created_at": stamp,
                    "updated_at": stamp,
                    "deleted": False,
                    "is_public": False,
                    "ipoed": None,
                    "stock_listing": None,
                }
            )
            if entity == "investors":
                deal = self._led_round(org, rounds, taken, stamp, rng)
                if deal is None:
                    taken.discard(org["id"])
                    continue
                led.append(deal)
            out.append(org)
        return out, led

    def _rounds_stream(self) -> np.random.Generator:
        """The random stream of inserted investors' rounds: seeded once, by one draw from the
        changes' own stream (whatever its bit generator), so that how many draws the rounds
        take moves no other change's draws, and the same generator state gives the same
        rounds."""
        if self._rounds_rng is None:
            self._rounds_rng = np.random.default_rng(int(self.rng.integers(0, 2**63)))
        return self._rounds_rng

    def _rounds_by_date(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the live funding rounds (no M&A, no listing) by ``deal_date``, and their
        dates: an investor's rounds (dated on or after its founding) are a suffix. A round
        with no date (``Changes.edit`` may leave one) is none: it would sort last, inside every
        suffix, and its copies find no target."""
        deals = self.state.private.deals.columns
        rounds = ~deals["deleted"] & ~np.isin(deals["deal_type"], ["M&A", "Public listing"])
        rounds &= ~np.isnat(deals["deal_date"])
        rows = np.flatnonzero(rounds)
        order = np.argsort(deals["deal_date"][rows], kind="stable")
        return rows[order], deals["deal_date"][rows[order]]

    def _led_round(
        self,
        org: dict,
        rounds: tuple[np.ndarray, np.ndarray],
        taken: set[str],
        stamp: str,
        rng: np.random.Generator,
    ) -> dict | None:
        """A new funding round that the new investor ``org`` leads, recorded at ``stamp`` (with
        ``org`` itself): a copy (:meth:`_copied_deal`) of one of the live ``rounds``
        (:meth:`_rounds_by_date`) dated on or after ``org``'s founding, drawn from ``rng``,
        ``org`` added to its investors and leads (in place of its last lead when it has
        :data:`~.models.deals.MAX_LEADS`). None when a few such rounds tried have no target
        left, or there is none.
        """
        rows, days = rounds
        start = 0
        if org["founded"] is not None:
            founded = np.datetime64(f"{org['founded']:04d}-01-01")
            start = int(np.searchsorted(days, founded, side="left"))
        for _ in range(5 if start < rows.size else 0):
            deal = self._copied_deal(int(rows[rng.integers(start, rows.size)]), taken, stamp, rng)
            if deal is not None:
                member = {k: org[k] for k in ("id", "name", "country", "website", "short_name")}
                deal["investors"] = [*deal["investors"], member]
                deal["lead_investors"] = [*deal["lead_investors"][: MAX_LEADS - 1], member]
                return deal
        return None

    def _new_deals(self, n: int, stamp: str) -> list[dict]:
        """``n`` new deals, each a live deal's copy (never a ``Public listing``: a company lists
        once) with its date and participants and another target (:meth:`_copied_deal`: founded
        by then, no private round or private secondary once listed, a public secondary only
        once listed, not among its participants)."""
        cols = self.state.private.deals.columns
        pool = self._pool("deals", ~cols["deleted"] & (cols["deal_type"] != "Public listing"))
        out: list[dict] = []
        taken: set[str] = set()
        for row in self._templates(pool, n, len(pool)):
            if len(out) == n:
                break
            deal = self._copied_deal(row, taken, stamp)
            if deal is not None:
                out.append(deal)
        return out

    def _copied_deal(
        self, row: int, taken: set[str], stamp: str, rng: np.random.Generator | None = None
    ) -> dict | None:
        """A copy of the deal at ``row`` with its date, type and participants, a new id (added
        to ``taken``), recorded at ``stamp``, and another target: one it may have on that date
        (:func:`~.models.deals.may_target`, by type and subtype) and not among its
        participants. None when no such target is found. Drawn from ``rng`` (by default the
        changes' own stream)."""
        rng = self.rng if rng is None else rng
        orgs, deals = self.state.private.orgs.columns, self.state.private.deals
        deal = deals.record(row)
        target = self._target(deal, deals.columns["deal_date"][row], rng)
        if target is None:
            return None
        deal.update(
            {
                "id": self._new_id(taken, rng),
                "target_index": target,
                "deal_synopsis": f"{orgs['name'][target]}: {deal['deal_subtype']} "
                f"({deal['deal_type']}).",
                "created_at": stamp,
                "updated_at": stamp,
                "deleted": False,
            }
        )
        return deal

    def _target(self, deal: dict, day: np.datetime64, rng: np.random.Generator) -> int | None:
        """The organisation row of a target for a copy of ``deal`` dated ``day``, drawn from
        ``rng`` alike among all it may have (:func:`~.models.deals.may_target`) that are not
        among its participants; None when there is none.

        The first that fits among a few rows drawn at random (most organisations fit), else
        one among all that fit: no mask over every organisation for most deals.
        """
        orgs = self.state.private.orgs
        kind = (deal["deal_type"], day, deal["deal_subtype"])
        participants = (p["id"] for p in [*deal["investors"], *deal["buyers"]])
        members = {orgs.row_of[i] for i in participants if i in orgs.row_of}
        drawn = rng.integers(0, len(orgs), size=_DRAWN_TARGETS)
        for row in drawn[may_target(orgs.columns, *kind, rows=drawn)].tolist():
            if row not in members:
                return int(row)
        keep = may_target(orgs.columns, *kind)
        keep[list(members)] = False
        targets = np.flatnonzero(keep)
        return int(targets[rng.integers(0, targets.size)]) if targets.size else None
