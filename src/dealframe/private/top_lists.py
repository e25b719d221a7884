"""The top lists of investor profiles (``stats.top_countries``, ``stats.top_verticals``)
checked against the interface document, and their items kept as the tidy frames read them.

Section 2 types ``top_countries`` as an array of ``{country: string, count: integer}`` and
``top_verticals`` as one of ``{vertical: string, count: integer}``. An item that is no object
(``null``), or one without its name or its ``count``, was read without a word: the profile
frame kept it in its JSON text column, and ``investor_top`` raised a
:class:`~dealframe.errors.ValidationError` (the error of a bad argument) on a null item.
:func:`top_lists_said` says each way the lists differ, once per call, naming the profiles;
:func:`objects_only` leaves the items that are no object out of what ``investor_top``
reads (a row of no country and no count says nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..contract import Findings, quoted

__all__ = ["TOP_LISTS", "objects_only", "top_lists_said"]

#: Each top list of an investor profile's ``stats``, and the members of its items.
TOP_LISTS: Mapping[str, tuple[str, str]] = {
    "top_countries": ("country", "count"),
    "top_verticals": ("vertical", "count"),
}

#: Profiles named in a finding's words; the rest are counted.
_NAMED = 5


def _named(ids: list[str]) -> str:
    shown = ", ".join(ids[:_NAMED])
    return shown + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")


def _shown(value: Any) -> str:
    """A served value as a finding writes it: ``null``, or quoted."""
    return "null" if value is None else quoted(value, 40)


def top_lists_said(profiles: Iterable[tuple[str, Mapping[str, Any]]], found: Findings) -> None:
    """Record how the top lists of investor ``profiles`` (``(id, data)`` of each answer)
    differ from the document, one finding of each kind for the call, naming the profiles:
    a list that is no array, or items that are no object (``null``, text), ``wrong_shape``;
    a list null, or items whose name or ``count`` is null, ``null_field``; items without
    their name or ``count``, ``missing_field``. A ``stats`` or list absent is not looked at
    (a profile field absent is said where the profile is read); the values stay as served.

    Parameters
    ----------
    profiles : iterable of (str, mapping)
        Each profile's id and its ``data``.
    found : Findings
        Where it is recorded.

    Examples
    --------
    >>> found = Findings("GET /investors/{id}")
    >>> top_lists_said([("i1", {"stats": {"top_countries": [None, {"country": "USA"}]}})],
    ...                found)
    >>> for finding in found:
    ...     print(finding.kind, finding.message)
    wrong_shape stats.top_countries holds items that are no {country, count} object (null) in 1 of 1 profiles (i1): left out of investor_top
    missing_field stats.top_countries holds items without count in 1 of 1 profiles (i1)
    """
    said: dict[tuple[str, str], tuple[list[str], list[str]]] = {}  # -> (what, ids)

    def note(kind: str, words: str, what: str, ident: str) -> None:
        whats, ids = said.setdefault((kind, words), ([], []))
        if what not in whats:
            whats.append(what)
        if ident not in ids:
            ids.append(ident)

    total = 0
    for ident, data in profiles:
        total += 1
        stats = data.get("stats")
        if not isinstance(stats, Mapping):
            continue
        for key, members in TOP_LISTS.items():
            if key not in stats:
                continue
            entries = stats[key]
            if entries is None:
                note("null_field", f"stats.{key} is null", "", ident)
                continue
            if not isinstance(entries, list):
                note("wrong_shape", f"stats.{key} is no array", _shown(entries), ident)
                continue
            for entry in entries:
                if not isinstance(entry, Mapping):
                    shape = "{" + ", ".join(members) + "}"
                    words = f"stats.{key} holds items that are no {shape} object"
                    note("wrong_shape", words, _shown(entry), ident)
                    continue
                for member in members:
                    if member not in entry:
                        note("missing_field", f"stats.{key} holds items without", member, ident)
                    elif entry[member] is None:
                        note("null_field", f"stats.{key} holds items whose", member, ident)
    for (kind, words), (whats, ids) in said.items():
        where = f"in {len(ids)} of {total} profiles ({_named(ids)})"
        if kind == "wrong_shape":
            left = ": left out of investor_top" if "holds items" in words else ""
            found.add(kind, f"{words} ({', '.join(whats)}) {where}{left}")
        elif words.endswith(" is null"):
            found.add(kind, f"{words} {where}")
        elif words.endswith(" whose"):
            found.add(kind, f"{words} {' and '.join(whats)} is null {where}")
        else:
            found.add(kind, f"{words} {' and '.join(whats)} {where}")


def objects_only(profiles: list[Any]) -> list[Any]:
    """``profiles`` (the ``data`` of each answer) with the items of their top lists that are
    no object left out (said by :func:`top_lists_said`), as ``investor_top`` reads them;
    a profile without such an item is as served.

    Examples
    --------
    >>> objects_only([{"id": "i1", "stats": {"top_countries": [None, {"country": "USA"}]}}])
    [{'id': 'i1', 'stats': {'top_countries': [{'country': 'USA'}]}}]
    """
    out = []
    for profile in profiles:
        stats = profile.get("stats") if isinstance(profile, Mapping) else None
        if not isinstance(stats, Mapping) or not any(
            isinstance(stats.get(key), list)
            and not all(isinstance(entry, Mapping) for entry in stats[key])
            for key in TOP_LISTS
        ):
            out.append(profile)
            continue
        kept = {
            key: [e for e in value if isinstance(e, Mapping)]
            if key in TOP_LISTS and isinstance(value, list)
            else value
            for key, value in stats.items()
        }
        out.append({**profile, "stats": kept})
    return out
