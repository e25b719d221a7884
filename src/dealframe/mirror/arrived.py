"""What the change feed's pages hold that the mirror's table does not keep as documented.

Two things, each said once per entity and sync (not once per page), in the sync's report and
with a :class:`~dealframe.ServiceContractWarning`:

* **nulls where the interface document gives none** (a company's ``name``, a deal's
  ``deal_date`` ...: :data:`~dealframe.contract.NOT_NULL`). The client's list calls say them
  (``null_field``); the feed's pages, read one at a time by
  :meth:`~dealframe.private.api.PrivateApi.page`, are checked here by the same function,
  :func:`~dealframe.contract.null_fields`, over the rows of every page read. A field *absent*
  from an item (not sent null) is not counted: the sync says those rows apart
  (``fields_absent``, :mod:`.absent`). The rows are written with the nulls, as sent.
* **fields outside the table**: a field the service sends beyond the interface document (an
  extra column of the client's frame, such as ``ticker_symbol``) is not stored, since the
  tables' schema is fixed (:func:`~dealframe.mirror.schema.to_arrow` drops it); the fields
  dropped are named.

Examples
--------
>>> import pandas as pd
>>> seen = Arrived("companies")
>>> page = pd.DataFrame({"id": ["a", "b"], "name": [None, "Beta"], "deleted": [False, False],
...                      "updated_at": pd.to_datetime(["2024-01-01"] * 2, utc=True),
...                      "ticker_symbol": ["AAA", None]})
>>> page.attrs["absent"] = {}
>>> seen.add(page)
>>> print(seen.nulls())
null where the document gives no null: name in 1 of 2 rows: id a (rows kept; they fall out of anything filtered, grouped or bucketed on it)
>>> print(seen.not_mirrored())
fields not mirrored (beyond the interface document's fields of a list item: the table's columns are fixed, so they are not stored): ticker_symbol (a value in 1 of 2 rows)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..contract import NOT_NULL, Findings, null_fields
from .schema import ABSENT, absent_columns, api_entity, arrow_schema

__all__ = ["Arrived"]

#: What stands, in the rows kept for the null check, for a value sent or a field absent from
#: its item: not null (only values sent as null are counted).
_NOT_NULL_HERE = True


@dataclass
class Arrived:
    """What the change feed of ``entity`` held, page by page (:meth:`add`), that a sync says
    once: nulls where the document gives none (:meth:`nulls`), and fields the table does not
    store (:meth:`not_mirrored`).

    Memory holds only the rows with such a null (their id and the checked columns) and a
    count per extra field, whatever the number of rows read. A row the feed returns twice
    (the overlap, a record changed while the walk went on) counts twice, as the feed's other
    values said once per sync do.

    Attributes
    ----------
    entity : str
        ``companies``, ``investors`` or ``deals``.
    rows : int
        Rows read.
    """

    entity: str
    rows: int = 0
    _nulled: list[pd.DataFrame] = field(default_factory=list, repr=False)
    _extra: dict[str, int] = field(default_factory=dict, repr=False)

    def clear(self) -> None:
        """Forget every page (a walk read again from its start)."""
        self.rows = 0
        self._nulled.clear()
        self._extra.clear()

    def _checked(self) -> list[str]:
        """The columns the document gives no null, of the entity's table."""
        stored = set(arrow_schema(self.entity).names)
        return [c for c in NOT_NULL.get(api_entity(self.entity), ()) if c in stored]

    def add(self, frame: pd.DataFrame) -> None:
        """Note one feed page (the client's frame of it, ``attrs["absent"]`` naming the items
        that lacked each documented field)."""
        if not len(frame):
            return
        self.rows += len(frame)
        stored = set(arrow_schema(self.entity).names) | {ABSENT}
        for name in frame.columns:
            if name not in stored:
                self._extra[name] = self._extra.get(name, 0) + int(frame[name].notna().sum())
        checked = self._checked()
        if not checked:
            return
        view = pd.DataFrame(
            {
                "id": frame["id"].astype(object),
                **{  # a column the frame lacks: a field absent from every item, said apart
                    c: frame[c].astype(object) if c in frame.columns else _NOT_NULL_HERE
                    for c in checked
                },
            }
        )
        for name, ids in (frame.attrs.get("absent") or {}).items():
            lacking = view["id"].isin(list(ids)).to_numpy()
            for column in absent_columns(self.entity, [name]):
                if column in checked and lacking.any():
                    view.loc[lacking, column] = _NOT_NULL_HERE  # absent, not sent null
        scratch = Findings("the change feed")
        if null_fields(view, api_entity(self.entity), scratch):  # the client's own check
            self._nulled.append(view.loc[view[checked].isna().any(axis=1).to_numpy()])

    def nulls(self) -> str | None:
        """The ``null_field`` finding of every page read, worded by
        :func:`~dealframe.contract.null_fields` over all their rows; None when there is none."""
        if not self._nulled:
            return None
        checked = self._checked()
        nulled = pd.concat(self._nulled, ignore_index=True)
        others = self.rows - len(nulled)  # rows without such a null: only their number counts
        filler = {c: np.full(others, _NOT_NULL_HERE, dtype=object) for c in checked}
        rows = pd.concat(
            [nulled, pd.DataFrame({"id": np.full(others, None, dtype=object), **filler})],
            ignore_index=True,
        )
        found = Findings("the change feed")
        null_fields(rows, api_entity(self.entity), found)
        return "; ".join(f.message for f in found) or None

    def not_mirrored(self) -> str | None:
        """The fields read that the table does not store, with the rows that held a value of
        each; None when there is none."""
        if not self._extra:
            return None
        shown = ", ".join(
            f"{name} (a value in {n:,} of {self.rows:,} rows)"
            if n
            else f"{name} (null in all {self.rows:,})"
            for name, n in self._extra.items()
        )
        return (
            "fields not mirrored (beyond the interface document's fields of a list item: the "
            f"table's columns are fixed, so they are not stored): {shown}"
        )
