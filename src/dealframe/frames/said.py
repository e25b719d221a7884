"""What the frame readers say of values written otherwise than the document writes them.

Numbers and booleans written as text (``"123.5"``, ``"true"``), empty strings and text that is
no finite number where a number is documented (``""``, ``"Infinity"``), timestamps without an
offset: each is read (as the number, the boolean, null, as written, as UTC) and said, by field.
How it is said depends on where the values came from (:func:`say_values`):

- an answer of the service, shaped within :func:`~dealframe.contract.shaping` given the call's
  findings: one finding of the call per kind and field (:meth:`~dealframe.contract.Findings.say`),
  its counts the call's, said once by the call's report, listed in ``attrs["findings"]`` and
  raised under ``strict=True``, as every other adaptation of an answer;
- within :func:`rows_said_later` (a list call, whose frame holds rows it may not return: past
  ``limit``, repeated), noted by row and said by :func:`say_kept` of the rows returned only;
- items the user built (no call): a :class:`~dealframe.DealframeWarning` (no service answered
  them, :func:`~dealframe.notices.data_warning`).

Examples
--------
>>> said = NumbersAsText()
>>> said.add(["1.5", 2.0], [0], ("sku", ["A-USA", "B-USA"]))
>>> said.text("value")
"value: numbers written as text in 1 of 2 values (such as '1.5'; sku A-USA): read as numbers"
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dealframe.contract import Findings, shaping_findings
from dealframe.frames.nested import _is_null
from dealframe.notices import data_warning, holding, user_stacklevel

__all__ = [
    "NumbersAsText",
    "SAID_KINDS",
    "no_offset_text",
    "rows_kept",
    "rows_said_later",
    "say_kept",
    "say_values",
]

#: Row labels a record names, at most.
_LABELS_SHOWN = 5
#: Values of text that is no finite number a record quotes, at most.
_QUOTED = 5
#: The kinds said, and what each says of its values: what they were, and as what they were read.
SAID_KINDS: dict[str, tuple[str, str]] = {
    "numbers_as_text": ("numbers written as text", "numbers"),
    "booleans_as_text": ("booleans written as text or as 0/1", "the booleans they say"),
    "empty_numbers": ('empty strings "" where a number or null is documented', "null"),
    "not_finite": ("text that is not a finite number", "written"),
    "no_offset": ("no offset", "UTC"),
}


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


@dataclass
class NumbersAsText:
    """Values of one field read otherwise than written (``kind``: numbers written as text, by
    default; :data:`SAID_KINDS`), as said: how many of how many values, the first of them, and
    the first rows' labels (``key``: ``id`` or ``sku``; ``more``: labels not shown). Each row
    is kept (``rows``, its value and label), so that a record of a frame can be cut to the
    rows a call returns (:meth:`kept`)."""

    count: int = 0
    total: int = 0
    sample: str = ""
    key: str | None = None
    labels: list[str] = field(default_factory=list)
    more: int = 0
    #: what they were (a boolean field's: ``booleans written as text or as 0/1``) and as what
    #: they were read
    written: str = "numbers written as text"
    read: str = "numbers"
    kind: str = "numbers_as_text"
    rows: list[int] = field(default_factory=list, repr=False)
    values: list[Any] = field(default_factory=list, repr=False)
    marks: list[str | None] = field(default_factory=list, repr=False)
    #: the labels not shown, each once (``more`` counts them: a label of many rows is one)
    others: set[str] = field(default_factory=set, repr=False)

    @classmethod
    def of(cls, kind: str) -> NumbersAsText:
        """An empty record of ``kind`` (one of :data:`SAID_KINDS`)."""
        written, read = SAID_KINDS[kind]
        return cls(written=written, read=read, kind=kind)

    def add(
        self,
        values: Sequence[Any],
        rows: Sequence[int] | np.ndarray,
        labels: tuple[str, Any] | None,
        *,
        total: int | None = None,
    ) -> None:
        """Count the ``rows`` of ``values`` (one frame's, or one page's) read otherwise than
        written, of ``total`` values (``len(values)`` unless given)."""
        if not len(rows):
            return
        if not self.count:
            self.sample = repr(_plain(values[rows[0]]))
        offset = self.total
        self.count += len(rows)
        self.total += len(values) if total is None else total
        column = None
        if labels is not None:
            self.key, column = labels
        seen = dict.fromkeys(self.labels)
        for i in rows:
            mark = None if column is None or _is_null(column[i]) else str(column[i])
            self.rows.append(offset + int(i))
            self.values.append(_plain(values[i]))
            self.marks.append(mark)
            if mark is not None and mark not in seen:
                if len(seen) < _LABELS_SHOWN:
                    seen[mark] = None
                else:
                    self.others.add(mark)
        self.labels = list(seen)
        self.more = len(self.others)

    def kept(self, kept: np.ndarray) -> NumbersAsText:
        """This record of the rows ``kept`` holds True for alone (a boolean per value counted,
        in order), of as many values as it holds True.

        Examples
        --------
        >>> said = NumbersAsText()
        >>> said.add(["1", "2", 3.0], [0, 1], ("id", ["a", "b", "c"]))
        >>> said.kept(np.array([False, True, True])).text("n")
        "n: numbers written as text in 1 of 2 values (such as '2'; id b): read as numbers"
        >>> many = NumbersAsText()
        >>> many.add(["1"] * 12, range(12), ("sku", list("abcdef") * 2))
        >>> many.text("x").split("; ")[1]
        'sku a, b, c, d, e and 1 more): read as numbers'
        """
        out = NumbersAsText.of(self.kind)
        at = [n for n, row in enumerate(self.rows) if row < len(kept) and kept[row]]
        out.add(
            [self.values[n] for n in at],
            range(len(at)),
            None if self.key is None else (self.key, [self.marks[n] for n in at]),
            total=int(np.count_nonzero(kept)),
        )
        return out

    def text(self, name: str) -> str:
        """What is said of them, for the field ``name``.

        Examples
        --------
        >>> said = NumbersAsText.of("not_finite")
        >>> said.add(["Infinity", "-inf", 1.0], [0, 1], None)
        >>> said.text("deal_valuation")
        "deal_valuation: text that is not a finite number ('-inf', 'Infinity'): read as written"
        """
        if self.kind == "empty_numbers":
            return f"{name}: {self.written}: read as {self.read}"
        if self.kind == "not_finite":
            odd = sorted({str(v) for v in self.values})[:_QUOTED]
            return f"{name}: {self.written} ({', '.join(map(repr, odd))}): read as {self.read}"
        if self.kind == "no_offset":
            return no_offset_text(name, self.count, self.values[0])
        named = ""
        if self.labels:
            more = f" and {self.more:,} more" if self.more else ""
            named = f"; {self.key} {', '.join(self.labels)}{more}"
        many = f"{self.count:,} of {self.total:,} values"
        return (
            f"{name}: {self.written} in {many} (such as {self.sample}{named}): read as {self.read}"
        )


def no_offset_text(name: str, count: int, sample: str) -> str:
    """What is said of ``count`` timestamps of ``name`` read without an offset.

    Examples
    --------
    >>> no_offset_text("updated_at", 2000, "2023-09-28T15:53:22")
    "updated_at: no offset in 2,000 timestamps (such as '2023-09-28T15:53:22'): read as UTC"
    """
    many = f"{count:,} timestamps" if count > 1 else "a timestamp"
    return f"{name}: no offset in {many} (such as {sample!r}): read as UTC"


#: The records :func:`say_values` keeps back within :func:`rows_said_later`.
_LATER: ContextVar[dict[tuple[str, str], NumbersAsText] | None] = ContextVar(
    "dealframe_rows_said_later", default=None
)


def rows_said_later() -> AbstractContextManager[dict[tuple[str, str], NumbersAsText]]:
    """Within it, what :func:`say_values` is given of an answer is kept back, by kind and
    field, in the dict yielded, row by row, for :func:`say_kept` to say of the rows the call
    returns: a list call builds one frame of every row that arrived, then cuts it (``limit``,
    repeats, rows outside its filters). It holds for the current thread or task only, as
    :func:`~dealframe.notices.missing_expected` does.

    Examples
    --------
    >>> from dealframe.contract import shaping
    >>> found = Findings("POST /x")
    >>> with shaping(None, "POST /x", found), rows_said_later() as later:
    ...     say_values("numbers_as_text", "n", ["1", 2.0], [0], ("id", ["a", "b"]))
    >>> len(found), list(later)
    (0, [('numbers_as_text', 'n')])
    """
    return holding(_LATER, {})


def say_values(
    kind: str,
    name: str,
    values: Sequence[Any],
    rows: Sequence[int] | np.ndarray,
    labels: tuple[str, Any] | None = None,
) -> None:
    """Say that the ``rows`` of ``values`` of the field ``name`` were read otherwise than
    written (``kind``, one of :data:`SAID_KINDS`), naming the rows by their ``labels``
    (``(key, labels)``, indexed as ``values`` is) when given: a finding of the call whose
    answers are shaped (once per call, kind and field, with the call's counts), kept back
    within :func:`rows_said_later`, else (items the user built) a
    :class:`~dealframe.DealframeWarning`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     say_values("empty_numbers", "founded", ["", 1999], [0])
    >>> said[0].category.__name__, str(said[0].message)
    ('DealframeWarning', 'founded: empty strings "" where a number or null is documented: read as null')
    """
    later, found = _LATER.get(), shaping_findings()
    if later is not None and found is not None:
        later.setdefault((kind, name), NumbersAsText.of(kind)).add(values, rows, labels)
    elif found is not None:
        _say(found, kind, name, values, rows, labels)
    else:
        fresh = NumbersAsText.of(kind)
        fresh.add(values, rows, labels)
        warnings.warn(fresh.text(name), data_warning(), stacklevel=user_stacklevel())


def _say(
    found: Findings,
    kind: str,
    name: str,
    values: Sequence[Any],
    rows: Sequence[int] | np.ndarray,
    labels: tuple[str, Any] | None,
    total: int | None = None,
) -> None:
    """Add the ``rows`` to the call's record of ``kind`` and ``name``, and say it (once)."""
    said = found.notes.setdefault((kind, name), NumbersAsText.of(kind))
    said.add(values, rows, labels, total=total)
    if said.count:
        found.say(kind, name, said.text(name))


def rows_kept(total: int, at: Sequence[int] | np.ndarray) -> np.ndarray:
    """Which of the ``total`` rows of a frame a call returns: a boolean per row, True at the
    positions ``at`` (in any order) of the rows it returns, as the steps that cut the frame
    (:func:`~dealframe.contract.dedupe_at`: which copy of a repeat is kept, the newest or the
    first; rows outside the filters, ``limit``) kept them.

    Examples
    --------
    >>> rows_kept(6, [5, 0, 2]).tolist()
    [True, False, True, False, False, True]
    """
    kept = np.zeros(total, dtype=bool)
    kept[np.asarray(at, dtype=np.intp)] = True
    return kept


def say_kept(
    found: Findings, later: dict[tuple[str, str], NumbersAsText], kept: np.ndarray
) -> None:
    """Say what :func:`rows_said_later` kept back of a frame, of the rows the call returns
    alone (``kept``: a boolean per row of the frame, :func:`rows_kept`): findings of the call
    (:meth:`~dealframe.contract.Findings.say`).

    Examples
    --------
    >>> from dealframe.contract import shaping
    >>> found = Findings("POST /x")
    >>> with shaping(None, "POST /x", found), rows_said_later() as later:
    ...     say_values("numbers_as_text", "n", ["1", "2", 3.0], [0, 1], ("id", ["a", "b", "c"]))
    >>> say_kept(found, later, rows_kept(3, [1, 2]))
    >>> print(found.items[0])
    POST /x: n: numbers written as text in 1 of 2 values (such as '2'; id b): read as numbers
    """
    for (kind, name), said in later.items():
        cut = said.kept(kept)
        labels = None if cut.key is None else (cut.key, cut.marks)
        _say(found, kind, name, cut.values, range(cut.count), labels, cut.total)
