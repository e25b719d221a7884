"""What the change feed's rows hold that the mirror's table does not keep as documented.

Two things, each said once per entity and sync (not once per page), in the sync's report and
with a :class:`~dealframe.ServiceContractWarning`:

* **nulls where the interface document gives none** (a company's ``name``, a deal's
  ``deal_date`` ...: :data:`~dealframe.contract.NOT_NULL`, less ``updated_at`` and
  ``deleted``, which stop the walk first). The client's list calls say them
  (``null_field``); the feed's rows are checked here by the same function,
  :func:`~dealframe.contract.null_fields`. A field *absent* from an item (not sent null) is
  not counted: the sync says those rows apart (``fields_absent``, :mod:`.absent`). The rows
  are written with the nulls, as sent.
* **fields outside the table**: a field the service sends beyond the interface document (an
  extra column of the client's frame, such as ``ticker_symbol``) is not stored, since the
  tables' schema is fixed (:func:`~dealframe.mirror.schema.to_arrow` drops it); the fields
  dropped are named.

Both count distinct rows, each id's latest read (the one the table is written with), in the
units of the report's ``rows_received`` and ``fields_absent``: :meth:`Arrived.add` takes the
rows in the order they are staged (:class:`~dealframe.mirror.store.StagedRows`), and
:meth:`Arrived.nulls` and :meth:`Arrived.not_mirrored` take the staged rows' mask of latest
reads (:meth:`~dealframe.mirror.store.StagedRows.keep_mask`), so a row the feed returns
again (the page boundary's overlap, a tie read again) counts once, as last read.

Examples
--------
>>> import numpy as np, pandas as pd
>>> seen = Arrived("companies")
>>> page = pd.DataFrame({"id": ["a", "b"], "name": [None, "Beta"], "deleted": [False, False],
...                      "updated_at": pd.to_datetime(["2024-01-01"] * 2, utc=True),
...                      "ticker_symbol": ["AAA", None]})
>>> seen.add(page)
>>> seen.add(page.assign(name=["Alpha", None]).iloc[:1])  # a read again, the later wins
>>> keep = np.array([False, True, True])  # the latest read of each id
>>> print(seen.nulls(keep))
None
>>> print(seen.nulls())  # every read counted
null where the document gives no null: name in 1 of 3 rows: id a (rows kept; they fall out of anything filtered, grouped or bucketed on it)
>>> print(seen.not_mirrored(keep))
fields not mirrored (beyond the interface document's fields of a list item: the table's columns are fixed, so they are not stored): ticker_symbol (a value in 1 of 2 rows)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..contract import NOT_NULL, Findings, null_fields
from .schema import ABSENT, api_entity, arrow_schema

__all__ = ["Arrived"]

#: What stands, in the rows kept for the null check, for a value sent or a field absent from
#: its item: not null (only values sent as null are counted).
_NOT_NULL_HERE = True
#: The column of the rows kept for the null check holding each row's position among the reads.
_AT = "__at__"


@dataclass
class Arrived:
    """What the change feed of ``entity`` held, frame by frame as staged (:meth:`add`), that a
    sync says once: nulls where the document gives none (:meth:`nulls`), and fields the table
    does not store (:meth:`not_mirrored`).

    Memory holds only the rows with such a null (their id, position and the checked columns)
    and the positions of the rows holding a value of an extra field (8 bytes each), whatever
    the number of rows read. Counted over the latest read of each id (the ``keep`` mask of
    the staged rows), a row the feed returns twice counts once, as it was last read; the
    report's ``rows_received`` and ``fields_absent`` count so.

    Attributes
    ----------
    entity : str
        ``companies``, ``investors`` or ``deals``.
    rows : int
        Rows read (every read counted: the position of the next one).
    """

    entity: str
    rows: int = 0
    _nulled: list[pd.DataFrame] = field(default_factory=list, repr=False)
    _extra: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False)

    def _checked(self) -> list[str]:
        """The columns the document gives no null, of the entity's table."""
        stored = set(arrow_schema(self.entity).names)
        return [c for c in NOT_NULL.get(api_entity(self.entity), ()) if c in stored]

    def add(self, frame: pd.DataFrame) -> None:
        """Note the rows of one feed frame, in the order they are staged (its
        :data:`~dealframe.mirror.schema.ABSENT` column naming the table columns each row's item
        lacked, when any did).

        Each checked column's nulls are found on the frame's own column (no copy of the rows
        as objects); only the rows holding such a null are kept, as objects."""
        if not len(frame):
            return
        start, self.rows = self.rows, self.rows + len(frame)
        stored = set(arrow_schema(self.entity).names) | {ABSENT}
        for name in frame.columns:
            if name not in stored:
                held = np.flatnonzero(frame[name].notna().to_numpy()) + start
                self._extra.setdefault(name, []).append(held)
        checked = self._checked()
        # a column the frame lacks: a field absent from every item, said apart
        sent = [c for c in checked if c in frame.columns]
        if not sent:
            return
        nulls = {c: frame[c].isna().to_numpy() for c in sent}
        if not any(n.any() for n in nulls.values()):
            return
        lacks: dict[str, np.ndarray] = {}  # absent from the item, not sent null: not counted
        if ABSENT in frame.columns:
            for row, lacked in enumerate(frame[ABSENT].tolist()):
                for column in lacked if isinstance(lacked, tuple) else ():
                    if column in nulls:
                        lacks.setdefault(column, np.zeros(len(frame), dtype=bool))[row] = True
        nulled = np.zeros(len(frame), dtype=bool)
        for c, isna in nulls.items():
            nulled |= isna & ~lacks[c] if c in lacks else isna
        if not nulled.any():
            return
        rows = np.flatnonzero(nulled)
        part = frame.iloc[rows]
        values = {"id": part["id"].to_numpy(dtype=object)}
        for c in checked:  # object columns (no inferred dtype), so a True can stand in any
            if c not in nulls:
                values[c] = np.full(len(rows), _NOT_NULL_HERE, dtype=object)
                continue
            values[c] = part[c].to_numpy(dtype=object, copy=True)
            if c in lacks:
                values[c][lacks[c][rows]] = _NOT_NULL_HERE
        view = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in values.items()})
        view.index = rows
        view[_AT] = rows + start
        self._nulled.append(view)

    def _kept(self, keep: np.ndarray | None) -> int:
        """Rows counted: the latest read of each id (``keep``), else every read."""
        if keep is not None and len(keep) != self.rows:
            raise ValueError(f"a mask of {len(keep)} reads for {self.rows} rows read")
        return self.rows if keep is None else int(keep.sum())

    def nulls(self, keep: np.ndarray | None = None) -> str | None:
        """The ``null_field`` finding of the rows read, worded by
        :func:`~dealframe.contract.null_fields` over the latest read of each id (``keep``: a
        mask over every read, :meth:`~dealframe.mirror.store.StagedRows.keep_mask`; None:
        every read); None when there is none."""
        if not self._nulled:
            return None
        rows = self._kept(keep)
        nulled = pd.concat(self._nulled, ignore_index=True)
        if keep is not None:
            nulled = nulled.loc[keep[nulled[_AT].to_numpy()]]
        if not len(nulled):
            return None
        checked = self._checked()
        others = rows - len(nulled)  # rows without such a null: only their number counts
        filler = {c: np.full(others, _NOT_NULL_HERE, dtype=object) for c in checked}
        every = pd.concat(
            [
                nulled.drop(columns=_AT),
                pd.DataFrame({"id": np.full(others, None, dtype=object), **filler}),
            ],
            ignore_index=True,
        )
        found = Findings("the change feed")
        null_fields(every, api_entity(self.entity), found)
        return "; ".join(f.message for f in found) or None

    def not_mirrored(self, keep: np.ndarray | None = None) -> str | None:
        """The fields read that the table does not store, with the rows that held a value of
        each, over the latest read of each id (``keep``, as :meth:`nulls`); None when there
        is none."""
        if not self._extra:
            return None
        rows = self._kept(keep)
        counts = {}
        for name, parts in self._extra.items():
            held = np.concatenate(parts)
            counts[name] = len(held) if keep is None else int(keep[held].sum())
        shown = ", ".join(
            f"{name} (a value in {n:,} of {rows:,} rows)" if n else f"{name} (null in all {rows:,})"
            for name, n in counts.items()
        )
        return (
            "fields not mirrored (beyond the interface document's fields of a list item: the "
            f"table's columns are fixed, so they are not stored): {shown}"
        )
