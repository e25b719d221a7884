"""Resolve results checked against what their ``match_type`` implies.

The interface document: "For ``exact``, ``id`` is set. For ``ambiguous`` and ``no_match``,
``id`` is null", and "For ``ambiguous``, a ``candidates`` array of ``{id: uuid, ...}`` is
added". A result that says otherwise is a finding (:func:`check_matches`), never a silent
null id, an id the ``match_type`` denies, or an id lost without a trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._wording import counted, names_shown, plural
from ..contract import Findings

__all__ = ["check_matches"]

#: Pairs of a name and an id a finding shows (the others are in ``attrs["ids_denied"]``).
_SHOWN = 5


def _blank(value: Any) -> bool:
    """Whether an id is no id: absent, null, or empty text."""
    return value is None or (isinstance(value, str) and not value.strip()) or value is pd.NA


def _candidates_written(record: Mapping[str, Any]) -> str | None:
    """How an ambiguous result's ``candidates`` fail to list any: ``absent``, ``null`` or
    ``empty``; None when it lists some (or is no list: the frame reader refuses that)."""
    if "candidates" not in record:
        return "absent"
    listed = record["candidates"]
    if listed is None:
        return "null"
    return "empty" if isinstance(listed, list) and not listed else None


def _pairs_shown(ids: Mapping[str, str]) -> str:
    """``'a' -> 'id', ...``: the first names and the ids served with them.

    Examples
    --------
    >>> _pairs_shown({"Acme": "5f38873f-6e1c-4d6f-ad87-e6977cda30ba"})
    "'Acme' -> '5f38873f-6e1c-4d6f-ad87-e6977cda30ba'"
    """
    pairs = [f"{name!r} -> {value!r}" for name, value in list(ids.items())[:_SHOWN]]
    return ", ".join(pairs) + (", ..." if len(ids) > _SHOWN else "")


def check_matches(
    records: Sequence[Mapping[str, Any]], matches: pd.DataFrame, found: Findings
) -> None:
    """Check each resolve result against what its ``match_type`` implies, each way they
    differ a finding naming the names (each once, a repeated name too):

    - ``exact`` without an ``id`` (null, absent, or blank text): ``null_field``; its ``id``
      is null (blank text too);
    - ``ambiguous`` or ``no_match`` with an ``id``: ``unknown_value`` (how the service
      answers every time: the answer stays in the HTTP cache); the ``id`` is set null in
      its row, as the document has it, and kept, by name, in ``matches.attrs["ids_denied"]``
      (``{}`` when none was), the finding quoting the first of them. An ambiguous name's ids
      are its candidates': ``on_ambiguous="best"`` still takes the best of them;
    - ``ambiguous`` whose ``candidates`` are absent, null or empty: ``missing_field``; no
      candidate to choose from, so its ``id`` stays null whatever ``on_ambiguous`` (an id
      the service served with it is in ``attrs["ids_denied"]``);
    - candidates without an ``id``: ``missing_field``; they are rows of the candidates frame
      with a null ``id`` (one that ``on_ambiguous="best"`` finds best leaves the name's
      ``id`` null).

    Parameters
    ----------
    records : sequence of mapping
        The results as served (``query`` the caller's name), one per row of ``matches``.
    matches : pandas.DataFrame
        The results' frame (:func:`~dealframe.frames.private.resolve_frames`), its
        ``match_type`` read; the ``id`` the document denies is set null in it.
    found : Findings
        Where what differs is recorded.

    Examples
    --------
    >>> from dealframe.frames.private import resolve_frames
    >>> served = [{"query": "a", "id": " ", "match_type": "exact"},
    ...           {"query": "b", "id": "x", "match_type": "no_match"}]
    >>> matches, _ = resolve_frames(served)
    >>> found = Findings("POST /x")
    >>> check_matches(served, matches, found)
    >>> [f.kind for f in found], matches["id"].isna().tolist(), matches.attrs["ids_denied"]
    (['null_field', 'unknown_value'], [True, True], {'b': 'x'})
    """
    kinds = matches["match_type"].astype(object).to_numpy()
    queries = matches["query"].astype(object).to_numpy()

    def names(rows: Sequence[int]) -> str:
        return names_shown(list(dict.fromkeys(str(queries[i]) for i in rows)))

    idless = [i for i, kind in enumerate(kinds) if kind == "exact" and _blank(records[i].get("id"))]
    if idless:
        found.add(
            "null_field",
            f"id null or absent where match_type is 'exact' (the interface document sets it): "
            f"{names(idless)} resolved without an id",
        )
        matches.loc[matches.index[idless], "id"] = pd.NA  # blank text is no id either
    denied = [
        i
        for i, kind in enumerate(kinds)
        if kind in ("ambiguous", "no_match") and not _blank(records[i].get("id"))
    ]
    # the ids as the frame reads them (one spelling), by name: a repeated name once
    read = matches["id"].astype(object).to_numpy()
    ids = {str(queries[i]): read[i] for i in denied if not pd.isna(read[i])}
    matches.attrs["ids_denied"] = ids
    if denied:
        said = sorted({str(kinds[i]) for i in denied})
        found.add(
            "unknown_value",
            f"id set where match_type is {' or '.join(map(repr, said))} (the interface document "
            f"gives them a null id): {names(denied)}; the id is left null and kept in "
            f"matches.attrs['ids_denied'] ({_pairs_shown(ids)}; an ambiguous name's ids are "
            "its candidates')",
        )
        matches.loc[matches.index[denied], "id"] = pd.NA
    ambiguous = [i for i, kind in enumerate(kinds) if kind == "ambiguous"]
    unlisted: dict[str, list[int]] = {}
    for i in ambiguous:
        written = _candidates_written(records[i])
        if written is not None:
            unlisted.setdefault(written, []).append(i)
    for written, rows in unlisted.items():
        picked = [i for i in rows if str(queries[i]) in ids]
        found.add(
            "missing_field",
            f"candidates {written} where match_type is 'ambiguous' (the interface document "
            f"lists them): {names(rows)} {plural(len(set(queries[rows])), 'has', 'have')} no "
            "candidate to choose from: the id is left null"
            + (
                f" (the id served with {names(picked)} is in matches.attrs['ids_denied'])"
                if picked
                else ""
            ),
        )
    firsts = {str(queries[i]): i for i in reversed(ambiguous)}  # a repeated name: once
    blank = [
        (i, sum(1 for c in listed if isinstance(c, Mapping) and _blank(c.get("id"))))
        for i in sorted(firsts.values())
        if isinstance(listed := records[i].get("candidates"), list)
    ]
    blank = [(i, n) for i, n in blank if n]
    if blank:
        found.add(
            "missing_field",
            f"candidates[].id missing or null in {counted(sum(n for _, n in blank), 'candidate')}"
            f" of {names([i for i, _ in blank])}: kept in the candidates frame with a null id "
            "(a best candidate without one leaves the name's id null)",
        )
