"""Counts in words: ``1 deal``, ``3,330 deals``, for every line a user reads.

One helper for the report's page and stage lines, the charts' titles and alt text, and the
command line's progress, so that none writes "1 deals" or "1 requests"; and the names a
warning shows (:func:`names_shown`).

Examples
--------
>>> counted(1, "deal"), counted(3330, "deal"), counted(0, "listed company")
('1 deal', '3,330 deals', '0 listed companies')
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["counted", "matching", "names_shown", "plural"]

#: Names :func:`names_shown` shows (the others are counted).
_SHOWN = 5


def plural(n: float, noun: str, many: str | None = None) -> str:
    """``noun`` for a count of ``n``: as given for exactly 1, else its plural.

    The plural is ``many`` when given, else ``noun`` with ``s`` (``ies`` for a final
    consonant and ``y``: ``company``, ``companies``; ``day``, ``days``). In a phrase, the
    last word takes the plural (``listed company``, ``listed companies``).

    Examples
    --------
    >>> plural(1, "request"), plural(2, "request"), plural(2, "listed company")
    ('request', 'requests', 'listed companies')
    >>> plural(2, "co-investor row"), plural(0, "company"), plural(5, "is", "are")
    ('co-investor rows', 'companies', 'are')
    """
    if n == 1:
        return noun
    if many is not None:
        return many
    if len(noun) > 1 and noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n: float, noun: str, many: str | None = None) -> str:
    """``n`` with thousands separators and ``noun`` in the number it takes (:func:`plural`).

    Examples
    --------
    >>> counted(1, "row"), counted(12000, "row"), counted(1, "company", "companies")
    ('1 row', '12,000 rows', '1 company')
    """
    shown = f"{int(n):,}" if float(n).is_integer() else f"{n:,.1f}"
    return f"{shown} {plural(n, noun, many)}"


def matching(matched: int, total: int, noun: str) -> str:
    """``matched`` of ``total`` ``noun`` that match, each count in the number it takes:
    the noun agrees with the total, the verb with the count that matches.

    Examples
    --------
    >>> matching(1, 1, "bucket"), matching(20, 20, "bucket"), matching(1, 4, "headline median")
    ('1 of 1 bucket matches', '20 of 20 buckets match', '1 of 4 headline medians matches')
    """
    return f"{int(matched):,} of {counted(total, noun)} {plural(matched, 'matches', 'match')}"


def names_shown(names: Sequence[str]) -> str:
    """``2 names ('a', 'b')``: how many names, and the first five of them.

    Examples
    --------
    >>> names_shown(["Acme"]), names_shown(list("abcdefg"))
    ("1 name ('Acme')", "7 names ('a', 'b', 'c', 'd', 'e', ...)")
    """
    shown = ", ".join(repr(n) for n in names[:_SHOWN]) + (", ..." if len(names) > _SHOWN else "")
    return f"{counted(len(names), 'name')} ({shown})"
