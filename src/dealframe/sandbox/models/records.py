"""Records kept as serialised rows with numpy columns beside them: few Python objects.

A sandbox at scale 1 holds about 73,000 records. As nested dicts and lists they are
half a million containers that every full garbage collection of the host process
walks, and the sandbox often runs inside a user's notebook or test session. Here each
record is one ``bytes`` object (its orjson serialisation, which the collector does
not track) and everything a query reads is a numpy column, so a store is a few dozen
containers whatever its size. A record is decoded only when a request needs all of it
(a profile, a sub-collection item) or a change rewrites it.

- :class:`Column` says how a scalar column is read from a record; :class:`ListColumn`
  holds a list-valued field of every row (codes into a vocabulary, with row offsets).
- :class:`RecordStore` is one kind of record: rows, columns, list columns, row by id.
- :data:`ORG_SPEC` and :data:`DEAL_SPEC` are the columns of organisations and deals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np
import orjson

__all__ = [
    "DEAL_SPEC",
    "ORG_SPEC",
    "Column",
    "ListColumn",
    "Prepared",
    "RecordSpec",
    "RecordStore",
]


@dataclass(frozen=True)
class Column:
    """A scalar column: its kind and how to read it from a record.

    Kinds: ``str`` (object array), ``bool``, ``int``, ``float`` (None is NaN),
    ``date`` (``YYYY-MM-DD`` as ``datetime64[D]``, None is NaT) and ``stamp``
    (an ISO timestamp with a ``+00:00`` offset as epoch microseconds, the unit of
    ``updated_at`` bounds).
    """

    kind: str
    read: Callable[[dict], Any]


def _array(kind: str, values: list[Any]) -> np.ndarray:
    """``values`` as the numpy array of a column of ``kind``."""
    if kind == "str":
        if any(v is None for v in values):
            raise ValueError("a str column holds no nulls")
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    if kind == "float":
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if kind == "date":
        return np.array(["NaT" if v is None else v for v in values], dtype="datetime64[D]")
    if kind == "stamp":
        seconds = np.array([v[:19] for v in values], dtype="datetime64[s]")
        return seconds.astype("datetime64[us]").astype(np.int64)
    return np.array(values, dtype={"bool": bool, "int": np.int64}[kind])


class ListColumn:
    """A list-valued field of every row: codes into ``vocab``, row ``i`` at ``offsets[i:i+2]``.

    Examples
    --------
    >>> col = ListColumn.from_lists([["a", "b"], [], ["b"]])
    >>> col.row(0), col.row(1), col.mask(["b", "zz"]).tolist()
    (['a', 'b'], [], [True, False, True])
    """

    def __init__(self, vocab: list[str], codes: np.ndarray, offsets: np.ndarray) -> None:
        self.vocab = vocab
        self.code_of = {v: i for i, v in enumerate(vocab)}
        self.codes = codes
        self.offsets = offsets
        self._element_rows: np.ndarray | None = None
        self._index: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_lists(cls, values: Sequence[Sequence[str]]) -> ListColumn:
        col = cls([], np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64))
        col.extend(values)
        return col

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def _encode(self, values: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        rows = [row or () for row in values]
        flat = list(chain.from_iterable(rows))
        for v in dict.fromkeys(flat):
            if v not in self.code_of:
                self.code_of[v] = len(self.vocab)
                self.vocab.append(v)
        codes = np.fromiter(map(self.code_of.__getitem__, flat), dtype=np.int32, count=len(flat))
        return codes, np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))

    def extend(self, values: Sequence[Sequence[str]]) -> None:
        """Append rows."""
        codes, lengths = self._encode(values)
        self.codes = np.concatenate([self.codes, codes])
        self.offsets = np.concatenate([self.offsets, self.offsets[-1] + np.cumsum(lengths)])
        self._element_rows = self._index = None

    def set(self, row: int, values: Sequence[str]) -> None:
        """Replace one row's values (rewrites the codes: changes rarely touch lists)."""
        if self.row(row) == list(values or ()):
            return
        codes, lengths = self._encode([values])
        a, b = self.offsets[row], self.offsets[row + 1]
        self.codes = np.concatenate([self.codes[:a], codes, self.codes[b:]])
        self.offsets = self.offsets.copy()
        self.offsets[row + 1 :] += int(lengths[0]) - int(b - a)
        self._element_rows = self._index = None

    def row(self, i: int) -> list[str]:
        """The values of row ``i``."""
        vocab = self.vocab
        return [vocab[c] for c in self.codes[self.offsets[i] : self.offsets[i + 1]].tolist()]

    def element_rows(self) -> np.ndarray:
        """The row of every element of ``codes``."""
        if self._element_rows is None:
            self._element_rows = np.repeat(
                np.arange(len(self), dtype=np.int64), np.diff(self.offsets)
            )
        return self._element_rows

    def _inverted(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows of each value, ascending, and where each value's rows start (built on first use)."""
        if self._index is None:
            order = np.argsort(self.codes, kind="stable")
            starts = np.searchsorted(self.codes[order], np.arange(len(self.vocab) + 1))
            self._index = (self.element_rows()[order], starts)
        return self._index

    def rows_with(self, wanted: Iterable[str]) -> np.ndarray:
        """Rows holding at least one of ``wanted``, ascending and unique."""
        rows, starts = self._inverted()
        parts = [
            rows[starts[c] : starts[c + 1]]
            for c in (self.code_of.get(v) for v in wanted)
            if c is not None
        ]
        if len(parts) == 1:
            return np.unique(parts[0]) if len(parts[0]) > 1 else parts[0]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)

    def mask(self, wanted: Iterable[str]) -> np.ndarray:
        """Rows holding at least one of ``wanted``, as a boolean mask."""
        out = np.zeros(len(self), dtype=bool)
        out[self.rows_with(wanted)] = True
        return out

    def copy(self) -> ListColumn:
        return ListColumn(list(self.vocab), self.codes.copy(), self.offsets.copy())


@dataclass(frozen=True)
class RecordSpec:
    """The columns of one kind of record, and the keys that exist only while generating."""

    columns: dict[str, Column]
    lists: dict[str, Callable[[dict], Sequence[str]]]
    transient: tuple[str, ...] = ()


def _ids(key: str) -> Callable[[dict], list[str]]:
    ident = itemgetter("id")
    return lambda record: list(map(ident, record[key]))


def _field(key: str) -> Callable[[dict], Any]:
    return itemgetter(key)


#: Organisations (companies and investors share ids): what lists, filters and sorts read.
ORG_SPEC = RecordSpec(
    columns={
        **{
            k: Column("str", _field(k))
            for k in ("id", "name", "short_name", "website", "country", "region", "ownership")
        },
        "folded": Column("str", lambda r: r["name"].casefold()),
        **{k: Column("bool", _field(k)) for k in ("active", "deleted", "is_public")},
        "is_company": Column("bool", _field("_company")),
        "is_investor": Column("bool", _field("_investor")),
        "founded": Column("float", _field("founded")),
        "ipoed": Column("date", _field("ipoed")),
        "updated_at": Column("stamp", _field("updated_at")),
    },
    lists={
        k: _field(k)
        for k in ("verticals", "themes", "client_focus", "revenue_model", "company_type")
    },
    transient=("_country", "_fin"),
)

#: Deals: dates, money, target and participants (as ids) for filters, sorts and joins.
DEAL_SPEC = RecordSpec(
    columns={
        **{k: Column("str", _field(k)) for k in ("id", "deal_type", "deal_subtype")},
        "deal_date": Column("date", _field("deal_date")),
        **{
            k: Column("float", _field(k))
            for k in ("deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda")
        },
        "ev_revenue": Column("float", lambda r: r["deal_multiples"]["ev_revenue"]),
        "ev_ebitda": Column("float", lambda r: r["deal_multiples"]["ev_ebitda"]),
        "target_org": Column("int", _field("target_index")),
        "deleted": Column("bool", _field("deleted")),
        "updated_at": Column("stamp", _field("updated_at")),
    },
    lists={
        "investor_ids": _ids("investors"),
        "lead_ids": _ids("lead_investors"),
        "buyer_ids": _ids("buyers"),
    },
)


@dataclass(frozen=True)
class Prepared:
    """A record's row, bytes, column values and list items, read and not yet written
    (:meth:`RecordStore.prepare`)."""

    row: int
    serialised: bytes
    columns: dict[str, Any]
    lists: dict[str, Any]


class RecordStore:
    """Records of one kind: serialised rows, columns, list columns, and the row of each id.

    Parameters
    ----------
    spec : RecordSpec
        What the columns are.
    rows : list of bytes
        One orjson-serialised record per row.
    columns, lists : dict
        Arrays of :class:`Column` kinds and :class:`ListColumn` objects, one entry per row.

    Examples
    --------
    >>> spec = RecordSpec({"id": Column("str", _field("id"))}, {"tags": _field("tags")})
    >>> store = RecordStore.from_records(spec, [{"id": "a", "tags": ["x"]}])
    >>> store.append(spec, [{"id": "b", "tags": []}]).tolist(), store.record(1), store.row_of["b"]
    ([1], {'id': 'b', 'tags': []}, 1)
    """

    def __init__(
        self, rows: list[bytes], columns: dict[str, np.ndarray], lists: dict[str, ListColumn]
    ) -> None:
        self.rows = rows
        self.columns = columns
        self.lists = lists
        self.row_of: dict[str, int] = {ident: i for i, ident in enumerate(columns["id"].tolist())}

    @classmethod
    def from_records(cls, spec: RecordSpec, records: Sequence[dict]) -> RecordStore:
        """Serialise ``records`` (dropping ``spec.transient`` keys) and read their columns."""
        store = cls(
            [],
            {name: _array(c.kind, []) for name, c in spec.columns.items()},
            {name: ListColumn.from_lists([]) for name in spec.lists},
        )
        store.append(spec, records)
        return store

    def __len__(self) -> int:
        return len(self.rows)

    def record(self, row: int) -> dict:
        """The record of ``row`` (a new dict each call)."""
        return orjson.loads(self.rows[row])

    @staticmethod
    def _serialise(spec: RecordSpec, record: dict) -> bytes:
        if any(k in record for k in spec.transient):
            record = dict(record)
            for key in spec.transient:
                record.pop(key, None)
        return orjson.dumps(record)

    def append(self, spec: RecordSpec, records: Sequence[dict]) -> np.ndarray:
        """Add ``records`` at the end; returns their rows."""
        first = len(self.rows)
        self.rows.extend(self._serialise(spec, r) for r in records)
        for name, c in spec.columns.items():
            self.columns[name] = np.concatenate(
                [self.columns[name], _array(c.kind, list(map(c.read, records)))]
            )
        for name, read in spec.lists.items():
            self.lists[name].extend(list(map(read, records)))
        for i, ident in enumerate(self.columns["id"][first:].tolist(), start=first):
            self.row_of[ident] = i
        return np.arange(first, len(self.rows), dtype=np.int64)

    def prepare(self, spec: RecordSpec, row: int, record: dict) -> Prepared:
        """Everything :meth:`apply` writes for ``record`` at ``row``, read before anything is
        written: a record that breaks the store's columns (its id changed, a required field
        missing or null) raises here (``ValueError``, ``KeyError``) and changes nothing."""
        if record.get("id") != self.columns["id"][row]:
            raise ValueError("a record keeps its id")
        columns = {name: _array(c.kind, [c.read(record)])[0] for name, c in spec.columns.items()}
        lists = {name: read(record) for name, read in spec.lists.items()}
        return Prepared(row, self._serialise(spec, record), columns, lists)

    def apply(self, prepared: Prepared) -> None:
        """Write what :meth:`prepare` read."""
        self.rows[prepared.row] = prepared.serialised
        for name, value in prepared.columns.items():
            self.columns[name][prepared.row] = value
        for name, items in prepared.lists.items():
            self.lists[name].set(prepared.row, items)

    def copy(self) -> RecordStore:
        """An independent copy (rows are immutable bytes, so only the list is copied)."""
        return RecordStore(
            list(self.rows),
            {k: v.copy() for k, v in self.columns.items()},
            {k: v.copy() for k, v in self.lists.items()},
        )
