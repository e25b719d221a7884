"""The stored form of a sandbox's data: what the stores are built from and snapshots keep.

:class:`Corpus` holds organisations and deals as :class:`~.records.RecordStore` objects
(serialised rows plus columns) and Family A's listed companies with their monthly
series. :meth:`Corpus.from_dataset` converts the generator's plain records once;
:meth:`Corpus.to_arrays` and :meth:`Corpus.from_arrays` give the flat numpy arrays a
snapshot writes and reads (no pickle: strings are stored as fixed-width unicode, rows
as one byte blob with offsets).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import orjson

from .data import Dataset
from .records import DEAL_SPEC, ORG_SPEC, ListColumn, RecordSpec, RecordStore

__all__ = ["Corpus"]

_STORES: dict[str, RecordSpec] = {"orgs": ORG_SPEC, "deals": DEAL_SPEC}


@dataclass
class Corpus:
    """Everything a sandbox serves, in stored form.

    Attributes
    ----------
    seed, scale, as_of
        What it was generated from.
    orgs, deals : RecordStore
        Organisations (``ORG_SPEC``) and deals (``DEAL_SPEC``).
    listed : list of dict
        Family A companies: ``org`` (row in ``orgs``), ``sku_v1``, ``sku_v2`` and
        ``current`` (CompanyCurrentData without the SKU).
    months : list of str
        ``YYYY-MM`` months of the series.
    series : numpy.ndarray
        ``(listed, time-series fields, months)`` values, NaN where absent.
    """

    seed: int
    scale: float
    as_of: dt.datetime
    orgs: RecordStore
    deals: RecordStore
    listed: list[dict]
    months: list[str]
    series: np.ndarray

    @classmethod
    def from_dataset(cls, ds: Dataset) -> Corpus:
        """Serialise the generator's records (done once per seed, scale and generator)."""
        return cls(
            seed=ds.seed,
            scale=ds.scale,
            as_of=ds.as_of,
            orgs=RecordStore.from_records(ORG_SPEC, ds.orgs),
            deals=ds.deal_store
            if ds.deal_store is not None
            else RecordStore.from_records(DEAL_SPEC, []),
            listed=ds.listed,
            months=list(ds.months),
            series=ds.series,
        )

    def copy(self) -> Corpus:
        """A copy whose stores can change without touching this one."""
        return Corpus(
            seed=self.seed,
            scale=self.scale,
            as_of=self.as_of,
            orgs=self.orgs.copy(),
            deals=self.deals.copy(),
            listed=self.listed,
            months=self.months,
            series=self.series,
        )

    # ------------------------------------------------------------------ flat arrays

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Every value as a named numpy array of a plain dtype (no objects).

        Examples
        --------
        >>> from dealframe.sandbox.models.data import generate
        >>> corpus = Corpus.from_dataset(generate(seed=1, scale=0.02))
        >>> again = Corpus.from_arrays(corpus.to_arrays())
        >>> again.deals.rows == corpus.deals.rows
        True
        >>> again.orgs.lists["themes"].row(5) == corpus.orgs.lists["themes"].row(5)
        True
        """
        meta = {
            "seed": self.seed,
            "scale": self.scale,
            "as_of": self.as_of.isoformat(),
            "months": self.months,
            "listed": self.listed,
        }
        out = {"meta": np.frombuffer(orjson.dumps(meta), dtype=np.uint8), "series": self.series}
        for name, store in (("orgs", self.orgs), ("deals", self.deals)):
            lengths = np.fromiter((len(r) for r in store.rows), dtype=np.int64, count=len(store))
            out[f"{name}.rows"] = np.frombuffer(b"".join(store.rows), dtype=np.uint8)
            out[f"{name}.offsets"] = np.concatenate([[0], np.cumsum(lengths)])
            for key, values in store.columns.items():
                out[f"{name}.col.{key}"] = values.astype(str) if values.dtype == object else values
            for key, col in store.lists.items():
                out[f"{name}.list.{key}.vocab"] = np.array(col.vocab, dtype=str)
                out[f"{name}.list.{key}.codes"] = col.codes
                out[f"{name}.list.{key}.offsets"] = col.offsets
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Corpus:
        """The inverse of :meth:`to_arrays`."""
        meta = orjson.loads(arrays["meta"].tobytes())
        stores = {name: _store_from_arrays(name, spec, arrays) for name, spec in _STORES.items()}
        return cls(
            seed=meta["seed"],
            scale=meta["scale"],
            as_of=dt.datetime.fromisoformat(meta["as_of"]),
            orgs=stores["orgs"],
            deals=stores["deals"],
            listed=meta["listed"],
            months=meta["months"],
            series=arrays["series"],
        )


def _store_from_arrays(name: str, spec: RecordSpec, arrays: dict[str, np.ndarray]) -> RecordStore:
    blob = arrays[f"{name}.rows"].tobytes()
    bounds = arrays[f"{name}.offsets"].tolist()
    rows = [blob[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    columns = {}
    for key, column in spec.columns.items():
        values = arrays[f"{name}.col.{key}"]
        columns[key] = values.astype(object) if column.kind == "str" else values
    lists = {
        key: ListColumn(
            arrays[f"{name}.list.{key}.vocab"].tolist(),
            arrays[f"{name}.list.{key}.codes"],
            arrays[f"{name}.list.{key}.offsets"],
        )
        for key in spec.lists
    }
    return RecordStore(rows, columns, lists)
