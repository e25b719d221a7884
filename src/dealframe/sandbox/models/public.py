"""The Family A store: listed companies indexed per API version, with pre-serialised bytes.

:class:`PublicStore` turns the generator's ``Dataset.listed`` records into what the
``/api/v1`` and ``/api/v2`` routes serve (docs/sandbox.md, "Family A"):

- per-version SKU maps (v1 ``<EXCHANGE>_<TICKER>``, v2 ``<TICKER>-<ISO3>[.N]``; the
  formats themselves are in :mod:`dealframe.sandbox.vocab`);
- CompanyIdentifier and CompanyCurrentData records (``sku`` first, in the version's
  format), each serialised once with orjson so a response is a join of bytes;
- the search filters (``industries``, ``themes``, ``regions``, ``countries``,
  ``enterpriseValueAbove``) as boolean masks, results ordered by SKU; the same
  selection defines a group;
- time-series items: each (company, field) series is serialised on first use as the
  bytes of its ``"YYYY-MM":value`` entries plus the offsets of each entry, so a date
  range is one bytes slice and a request never serialises value by value.

Nothing here parses requests or builds HTTP responses; :mod:`..responses.public` does.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import orjson

from ..vocab import TIME_SERIES_FIELDS, VERSIONS
from .corpus import Corpus
from .filters import member_mask

__all__ = ["PublicStore", "SearchQuery"]

_IDENTIFIER_FROM_CURRENT = ("ticker", "exchange", "name", "shortName")


@dataclass(frozen=True)
class SearchQuery:
    """A validated search (or group) selection; empty tuples mean "no constraint"."""

    industries: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    enterprise_value_above: float | None = None


@dataclass
class _Series:
    """One (company, field) series: its ``"YYYY-MM":value`` entries as bytes, and its months."""

    body: bytes
    months: list[str]

    def slice(self, date_from: str | None, date_to: str | None) -> bytes:
        """The entries of months ``date_from..date_to`` (inclusive; None: unbounded).

        Every key is a fixed-width ``"YYYY-MM":``, so the range is one slice between
        two key positions found in the bytes (no per-value work).
        """
        if date_from is None and date_to is None:
            return self.body
        months = self.months
        a = 0 if date_from is None else bisect_left(months, date_from)
        b = len(months) if date_to is None else bisect_right(months, date_to)
        if a >= b:
            return b""
        if a == 0 and b == len(months):
            return self.body
        start = 0 if a == 0 else self.body.find(_month_key(months[a]))
        end = (
            len(self.body) if b == len(months) else self.body.find(_month_key(months[b]), start) - 1
        )
        return self.body[start:end]


def _month_key(month: str) -> bytes:
    """The serialised key of a month entry: ``"YYYY-MM":``."""
    return b'"' + month.encode() + b'":'


class PublicStore:
    """Family A data of one dataset, indexed for both API versions.

    Parameters
    ----------
    corpus : Corpus
        The data; only ``listed``, ``months``, ``series`` and the listed companies'
        region, verticals and themes are read, never changed (Family A never moves).

    Attributes
    ----------
    fields : tuple of str
        Time-series field names (axis 1 of ``corpus.series``).
    months : list of str
        ``YYYY-MM`` months of the series.

    Examples
    --------
    >>> from dealframe.sandbox.models.corpus import Corpus
    >>> from dealframe.sandbox.models.data import generate
    >>> store = PublicStore(Corpus.from_dataset(generate(seed=1, scale=0.02)))
    >>> rows = store.search("v2", SearchQuery())
    >>> len(rows) == len(store) and store.sku("v2", rows[0]) == min(store.skus("v2"))
    True
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.fields: tuple[str, ...] = TIME_SERIES_FIELDS
        self.months: list[str] = list(corpus.months)
        self._field_pos = {f: k for k, f in enumerate(self.fields)}
        self._field_keys = [orjson.dumps(f) + b":{" for f in self.fields]
        listed = corpus.listed
        self._skus = {v: [item[f"sku_{v}"] for item in listed] for v in VERSIONS}
        self._row_of = {v: {sku: r for r, sku in enumerate(skus)} for v, skus in self._skus.items()}
        for v, skus in self._skus.items():
            if len(self._row_of[v]) != len(skus):
                raise ValueError(f"{v} SKUs of the dataset are not unique")
        self._by_sku = {
            v: sorted(range(len(listed)), key=skus.__getitem__) for v, skus in self._skus.items()
        }
        self._current = [dict(item["current"]) for item in listed]
        self._identifier_rows = [self._identifier_base(item) for item in listed]
        self._identifier_bytes = {
            v: [orjson.dumps(self.identifier(v, r)) for r in range(len(listed))] for v in VERSIONS
        }
        self._current_bytes = {
            v: [orjson.dumps(self.current(v, r)) for r in range(len(listed))] for v in VERSIONS
        }
        self._ts_heads = {
            v: [
                orjson.dumps(
                    {
                        "sku": skus[r],
                        "ticker": self._current[r]["ticker"],
                        "exchange": self._current[r]["exchange"],
                    }
                )[:-1]
                + b',"data":{'
                for r in range(len(listed))
            ]
            for v, skus in self._skus.items()
        }
        self._index_filters(listed)
        self._series_cache: dict[int, list[_Series]] = {}
        self._series_lock = threading.Lock()

    # ------------------------------------------------------------------ identity

    def __len__(self) -> int:
        return len(self.corpus.listed)

    def skus(self, version: str) -> list[str]:
        """Every SKU of ``version``, in dataset order."""
        return list(self._skus[version])

    def sku(self, version: str, row: int) -> str:
        """The SKU of company ``row`` in ``version``'s format."""
        return self._skus[version][row]

    def row(self, version: str, sku: str) -> int | None:
        """The company of a SKU of ``version``, or None when unknown."""
        return self._row_of[version].get(sku)

    def rows(self, version: str, skus: Iterable[str]) -> list[int]:
        """Known companies of ``skus`` in request order, duplicates and unknown SKUs dropped."""
        found: list[int] = []
        seen: set[int] = set()
        index = self._row_of[version]
        for sku in skus:
            r = index.get(sku)
            if r is not None and r not in seen:
                seen.add(r)
                found.append(r)
        return found

    # ------------------------------------------------------------------ records

    def _identifier_base(self, item: dict) -> dict:
        orgs, row = self.corpus.orgs, item["org"]
        cur = item["current"]
        base = {key: cur[key] for key in _IDENTIFIER_FROM_CURRENT}
        base["enterpriseValue"] = cur["enterpriseValue"]
        base["countryCodeIso3"] = cur["countryCodeIso3"]
        base["country"] = cur["country"]
        base["region"] = orgs.columns["region"][row]
        base["verticals"] = orgs.lists["verticals"].row(row)
        base["themes"] = orgs.lists["themes"].row(row)
        return base

    def identifier(self, version: str, row: int) -> dict:
        """The CompanyIdentifier of company ``row`` (``sku`` first)."""
        return {"sku": self._skus[version][row], **self._identifier_rows[row]}

    def current(self, version: str, row: int) -> dict:
        """The CompanyCurrentData of company ``row`` (``sku`` first)."""
        return {"sku": self._skus[version][row], **self._current[row]}

    def current_records(self, rows: Sequence[int]) -> list[dict]:
        """Current data of ``rows`` without SKUs (the input of group aggregation)."""
        return [self._current[r] for r in rows]

    def identifiers_bytes(self, version: str, rows: Sequence[int]) -> list[bytes]:
        """Serialised CompanyIdentifier items of ``rows``."""
        cached = self._identifier_bytes[version]
        return [cached[r] for r in rows]

    def current_bytes(self, version: str, rows: Sequence[int]) -> list[bytes]:
        """Serialised CompanyCurrentData items of ``rows``."""
        cached = self._current_bytes[version]
        return [cached[r] for r in rows]

    # ------------------------------------------------------------------ search

    def _index_filters(self, listed: list[dict]) -> None:
        n = len(listed)
        ids = self._identifier_rows
        self._region = np.array([i["region"] for i in ids], dtype=object)
        self._country = np.array([i["countryCodeIso3"] for i in ids], dtype=object)
        self._ev = np.array(
            [np.nan if i["enterpriseValue"] is None else i["enterpriseValue"] for i in ids],
            dtype=float,
        )
        self._members: dict[str, dict[str, np.ndarray]] = {"verticals": {}, "themes": {}}
        for column, masks in self._members.items():
            for r, rec in enumerate(ids):
                for value in rec[column]:
                    masks.setdefault(value, np.zeros(n, dtype=bool))[r] = True

    def _overlaps(self, column: str, wanted: Sequence[str]) -> np.ndarray:
        mask = np.zeros(len(self), dtype=bool)
        for value in dict.fromkeys(wanted):  # each value once, however often it is given
            hit = self._members[column].get(value)
            if hit is not None:
                mask |= hit
        return mask

    def search(self, version: str, query: SearchQuery) -> list[int]:
        """Companies matching ``query``, ordered by ``version``'s SKU.

        ``industries`` overlaps the company's verticals, ``themes`` its themes;
        ``regions`` and ``countries`` test membership; ``enterprise_value_above``
        keeps a strictly greater, non-null enterprise value.
        """
        mask = np.ones(len(self), dtype=bool)
        if query.industries:
            mask &= self._overlaps("verticals", query.industries)
        if query.themes:
            mask &= self._overlaps("themes", query.themes)
        if query.regions:
            mask &= member_mask(self._region, query.regions)
        if query.countries:
            mask &= member_mask(self._country, query.countries)
        if query.enterprise_value_above is not None:
            with np.errstate(invalid="ignore"):
                mask &= self._ev > query.enterprise_value_above
        return [r for r in self._by_sku[version] if mask[r]]

    # ------------------------------------------------------------------ time series

    def field_positions(self, fields: Sequence[str]) -> list[int]:
        """Axis-1 positions of time-series field names (all must be known)."""
        return [self._field_pos[f] for f in fields]

    def _row_series(self, row: int) -> list[_Series]:
        """Every field's series of company ``row``, serialised once (a whole row at a time)."""
        cached = self._series_cache.get(row)
        if cached is not None:
            return cached
        built = []
        for values in self.corpus.series[row].tolist():
            entries = {m: v for m, v in zip(self.months, values) if v == v}  # NaN: absent
            built.append(_Series(orjson.dumps(entries)[1:-1], list(entries)))
        with self._series_lock:
            return self._series_cache.setdefault(row, built)

    def time_series_bytes(
        self,
        version: str,
        rows: Sequence[int],
        fields: Sequence[int],
        date_from: str | None = None,
        date_to: str | None = None,
    ) -> list[bytes]:
        """Serialised CompanyTimeSeriesData items of ``rows``.

        Parameters
        ----------
        version : str
            ``"v1"`` or ``"v2"``: the SKU format of the items.
        rows : sequence of int
            Companies, in output order.
        fields : sequence of int
            Field positions (see :meth:`field_positions`), in output order.
        date_from, date_to : str, optional
            Inclusive ``YYYY-MM`` bounds; None is unbounded. A month without a
            value is absent from its field's object.
        """
        heads = self._ts_heads[version]
        keys = self._field_keys
        out: list[bytes] = []
        for r in rows:
            series = self._row_series(r)
            parts = [keys[f] + series[f].slice(date_from, date_to) + b"}" for f in fields]
            out.append(heads[r] + b",".join(parts) + b"}}")
        return out

    def series_values(self, rows: Sequence[int]) -> np.ndarray:
        """The ``(companies, fields, months)`` values of ``rows`` (NaN: no value)."""
        return self.corpus.series[list(rows)]
