"""The top lists of investor profiles (``stats.top_countries``, ``stats.top_verticals``)
checked against the interface document, and their items kept as the tidy frames read them.

Section 2 types ``top_countries`` as an array of ``{country: string, count: integer}`` and
``top_verticals`` as one of ``{vertical: string, count: integer}``. An item that is no object
(``null``), one without its name or its ``count``, or one whose name is no text or whose
``count`` is no non-negative integer (``2.5``, ``"3"``), was read without a word: the
profile frame kept it in its JSON text column, and ``investor_top`` raised a
:class:`~dealframe.errors.ValidationError` (the error of a bad argument) on a null item or
a count of ``2.5``. :func:`top_lists_said` says each way the lists differ, once per call,
naming the profiles; :func:`top_lists_read` gives ``investor_top`` the items as it can read
them: the items that are no object left out (a row of no country and no count says
nothing), a count written as text read as its number, a name that is no text and a count
that cannot be read as null.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..contract import Findings, as_count, first_of, written

__all__ = ["TOP_LISTS", "top_lists_read", "top_lists_said"]

#: Each top list of an investor profile's ``stats``, and the members of its items.
TOP_LISTS: Mapping[str, tuple[str, str]] = {
    "top_countries": ("country", "count"),
    "top_verticals": ("vertical", "count"),
}


def _counted(value: Any) -> bool:
    """Whether ``value`` is a count as the document writes one: a non-negative JSON integer
    (``3.0`` too: JSON does not tell the two apart)."""
    return not isinstance(value, str) and as_count(value) is not None


def top_lists_said(profiles: Iterable[tuple[str, Mapping[str, Any]]], found: Findings) -> None:
    """Record how the top lists of investor ``profiles`` (``(id, data)`` of each answer)
    differ from the document, one finding of each kind for the call, naming the profiles:
    a list that is no array, items that are no object (``null``, text), items whose name is
    no text or whose ``count`` is no non-negative integer (``2.5``, ``-1``), ``wrong_shape``;
    a ``count`` written as text (``"3"``), ``numbers_as_text``; a list null, or items whose
    name or ``count`` is null, ``null_field``; items without their name or ``count``,
    ``missing_field``. A ``stats`` or list absent is not looked at (a profile field absent
    is said where the profile is read); the values stay as served (``investor_top`` reads
    them as :func:`top_lists_read` says).

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
    >>> found = Findings("GET /investors/{id}")
    >>> top_lists_said([("i1", {"stats": {"top_countries": [{"country": 5, "count": 2.5},
    ...                                                     {"country": "USA", "count": "3"}]}})],
    ...                found)
    >>> for finding in found:
    ...     print(finding.kind, finding.message)
    wrong_shape stats.top_countries holds items whose country is no text (5) in 1 of 1 profiles (i1): read as null by investor_top
    wrong_shape stats.top_countries holds items whose count is no non-negative integer (2.5) in 1 of 1 profiles (i1): read as null by investor_top
    numbers_as_text stats.top_countries holds items whose count is written as text ('3') in 1 of 1 profiles (i1): read as its number by investor_top
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
                note("wrong_shape", f"stats.{key} is no array", written(entries, 40), ident)
                continue
            for entry in entries:
                if not isinstance(entry, Mapping):
                    shape = "{" + ", ".join(members) + "}"
                    words = f"stats.{key} holds items that are no {shape} object"
                    note("wrong_shape", words, written(entry, 40), ident)
                    continue
                name, count = members
                for member in members:
                    value = entry.get(member)
                    if member not in entry:
                        note("missing_field", f"stats.{key} holds items without", member, ident)
                    elif value is None:
                        note("null_field", f"stats.{key} holds items whose", member, ident)
                    elif member == name and not isinstance(value, str):
                        words = f"stats.{key} holds items whose {name} is no text"
                        note("wrong_shape", words, written(value, 40), ident)
                    elif member == count and isinstance(value, str) and as_count(value) is not None:
                        words = f"stats.{key} holds items whose count is written as text"
                        note("numbers_as_text", words, written(value, 40), ident)
                    elif member == count and not _counted(value):
                        words = f"stats.{key} holds items whose count is no non-negative integer"
                        note("wrong_shape", words, written(value, 40), ident)
    for (kind, words), (whats, ids) in said.items():
        where = f"in {len(ids)} of {total} profiles ({first_of(ids)})"
        if kind == "numbers_as_text":
            found.add(
                kind, f"{words} ({first_of(whats)}) {where}: read as its number by investor_top"
            )
        elif kind == "wrong_shape":
            left = (
                ""
                if "holds items" not in words
                else ": read as null by investor_top"
                if " whose " in words
                else ": left out of investor_top"
            )
            found.add(kind, f"{words} ({first_of(whats)}) {where}{left}")
        elif words.endswith(" is null"):
            found.add(kind, f"{words} {where}")
        elif words.endswith(" whose"):
            found.add(kind, f"{words} {' and '.join(whats)} is null {where}")
        else:
            found.add(kind, f"{words} {' and '.join(whats)} {where}")


def _entry_read(entry: Mapping[str, Any], members: tuple[str, str]) -> Mapping[str, Any]:
    """A top-list item as ``investor_top`` reads it: a name that is no text, and a count that
    is no count (:func:`~dealframe.contract.as_count`: digits as text read), null."""
    name, count = members
    out = dict(entry)
    if out.get(name) is not None and not isinstance(out[name], str):
        out[name] = None
    if out.get(count) is not None:
        out[count] = as_count(out[count])
    return out


def _readable(entry: Any, members: tuple[str, str]) -> bool:
    """Whether ``investor_top`` reads top-list item ``entry`` as served."""
    name, count = members
    return isinstance(entry, Mapping) and (
        (entry.get(name) is None or isinstance(entry[name], str))
        and (entry.get(count) is None or _counted(entry[count]))
    )


def top_lists_read(profiles: list[Any]) -> list[Any]:
    """``profiles`` (the ``data`` of each answer) with their top lists as ``investor_top``
    reads them (each way said by :func:`top_lists_said`): the items that are no object left
    out, a name that is no text null, a ``count`` written as text read as its number, and
    one that is no count (``2.5``, ``-1``, ``"lots"``) null. A profile whose lists hold no
    such item is as served.

    Examples
    --------
    >>> top_lists_read([{"id": "i1", "stats": {"top_countries": [None, {"country": "USA"}]}}])
    [{'id': 'i1', 'stats': {'top_countries': [{'country': 'USA'}]}}]
    >>> top_lists_read([{"id": "i1", "stats": {"top_countries": [{"country": 5, "count": "3"},
    ...                                                          {"country": "GBR", "count": 2.5}]}}])
    [{'id': 'i1', 'stats': {'top_countries': [{'country': None, 'count': 3}, {'country': 'GBR', 'count': None}]}}]
    """
    out = []
    for profile in profiles:
        stats = profile.get("stats") if isinstance(profile, Mapping) else None
        if not isinstance(stats, Mapping) or all(
            not isinstance(stats.get(key), list)
            or all(_readable(entry, members) for entry in stats[key])
            for key, members in TOP_LISTS.items()
        ):
            out.append(profile)
            continue
        kept = {
            key: [_entry_read(e, TOP_LISTS[key]) for e in value if isinstance(e, Mapping)]
            if key in TOP_LISTS and isinstance(value, list)
            else value
            for key, value in stats.items()
        }
        out.append({**profile, "stats": kept})
    return out
