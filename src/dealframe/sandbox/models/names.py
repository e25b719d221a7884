"""Deterministic synthetic names, slugs and people for the sandbox."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = [
    "company_names",
    "firm_names",
    "person_names",
    "share_names",
    "slugify",
    "ticker_of",
    "with_legal_forms",
]

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ne",
    "va",
    "zu",
    "tor",
    "rex",
    "lum",
    "quan",
    "sol",
    "ter",
    "bri",
    "dex",
    "fy",
    "gen",
    "hal",
    "ix",
    "jo",
    "kyr",
    "max",
    "nov",
    "ori",
    "pix",
    "qua",
    "ron",
    "syn",
    "tal",
    "umo",
    "vel",
    "wex",
    "xa",
    "yor",
    "zen",
    "aer",
    "cel",
    "dro",
    "eon",
    "fin",
    "gro",
)
_NOUNS = (
    "Labs",
    "Analytics",
    "Systems",
    "Health",
    "Pay",
    "Robotics",
    "Logistics",
    "Energy",
    "Bio",
    "Security",
    "Cloud",
    "Data",
    "Networks",
    "Foods",
    "Motors",
    "Learning",
    "Finance",
    "Media",
    "Games",
    "Space",
    "Materials",
    "Therapeutics",
    "Software",
    "Mobility",
    "Commerce",
    "Insure",
    "Homes",
    "Retail",
    "Travel",
    "Works",
    "AI",
    "Grid",
    "Devices",
    "Markets",
    "Studio",
    "Care",
)
_FIRM_NOUNS = ("Capital", "Ventures", "Partners", "Equity", "Investments", "Growth", "Fund")
_FIRST = (
    "Alex",
    "Maria",
    "Chen",
    "Priya",
    "Omar",
    "Sofia",
    "Lukas",
    "Amara",
    "Kenji",
    "Elena",
    "David",
    "Fatima",
    "Jonas",
    "Aisha",
    "Mateo",
    "Yuki",
    "Noah",
    "Ines",
    "Ravi",
    "Zara",
)
_LAST = (
    "Smith",
    "Garcia",
    "Wang",
    "Patel",
    "Haddad",
    "Rossi",
    "Müller",
    "Okafor",
    "Tanaka",
    "Ivanova",
    "Brown",
    "Khan",
    "Berg",
    "Diallo",
    "Lopez",
    "Sato",
    "Cohen",
    "Silva",
    "Rao",
    "Novak",
)


_NOT_IN_SLUG = re.compile("[^a-z0-9]")

#: Distinct words after which longer ones are drawn (below the ~65,600 of 2-3 syllables, so
#: that drawing never stalls; the default scale never gets there, keeping its data unchanged).
_SHORT_WORDS_BUDGET = 40_000


def _roots(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct capitalised pseudo-words of two or three syllables (four once those
    run short: 40 syllables give about 65,000 words of two or three, fewer than a large
    scale needs)."""
    seen: set[str] = set()
    out: list[str] = []
    syl = np.array(_SYLLABLES, dtype=object)
    while len(out) < n:
        m = (n - len(out)) * 2 + 16
        longer = len(seen) >= _SHORT_WORDS_BUDGET
        picks = syl[rng.integers(0, len(_SYLLABLES), (m, 4 if longer else 3))]
        three = rng.random(m) < 0.5
        for row, t in zip(picks.tolist(), three.tolist()):
            if longer:
                word = "".join(row if t else row[:3]).capitalize()
            else:
                word = ("".join(row) if t else row[0] + row[1]).capitalize()
            if word not in seen:
                seen.add(word)
                out.append(word)
                if len(out) == n:
                    break
    return out


def company_names(rng: np.random.Generator, n: int) -> list[str]:
    """Distinct company names such as ``"Novalum Analytics"`` (without a legal suffix: see
    :func:`with_legal_forms`)."""
    roots = _roots(rng, n)
    nouns = rng.integers(0, len(_NOUNS), n)
    return [f"{r} {_NOUNS[k]}" for r, k in zip(roots, nouns)]


def with_legal_forms(
    rng: np.random.Generator,
    names: Sequence[str],
    forms: Sequence[tuple[str, ...]],
    share: float = 0.12,
) -> list[str]:
    """``names`` with a legal suffix on about ``share`` of them, drawn from each name's own
    ``forms`` (those of its country and listing; an empty tuple: never a suffix).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> with_legal_forms(rng, ["Kalo Labs", "Mine Data"], [("GmbH",), ()], share=1.0)
    ['Kalo Labs GmbH', 'Mine Data']
    """
    n = len(names)
    legal = (rng.random(n) < share).tolist()
    pick = rng.random(n).tolist()
    return [
        f"{name} {own[int(u * len(own))]}" if lg and own else name
        for name, own, lg, u in zip(names, forms, legal, pick)
    ]


def share_names(
    names: list[str], takers: Sequence[int], sources: Sequence[int], group: Sequence[int]
) -> list[int]:
    """Give each of ``takers`` the name of another company of another ``group`` (country), in
    place; return the companies whose names were given.

    A taker's source is its drawn one in ``sources``, or else the first position after it
    (round the list) that is no taker, gave no name yet and is of another group than the
    taker: so every shared name is held by exactly two companies, in two countries. A taker
    for which no company qualifies keeps its own name.

    Examples
    --------
    >>> names = ["A Labs", "B Labs", "C Labs", "D Labs"]
    >>> share_names(names, [0], [1], group=[5, 5, 6, 6])  # 1 is of the same country: 2 instead
    [2]
    >>> names
    ['C Labs', 'B Labs', 'C Labs', 'D Labs']
    """
    n = len(group)
    taking = set(takers)
    given: list[int] = []
    for i, j in zip(takers, sources):
        for k in range(n):
            s = (j + k) % n
            if s not in taking and s not in given and group[s] != group[i]:
                names[i] = names[s]
                given.append(s)
                break
    return given


def firm_names(rng: np.random.Generator, n: int) -> list[str]:
    """Distinct investment-firm names such as ``"Zenori Capital"``."""
    roots = _roots(rng, n)
    nouns = rng.integers(0, len(_FIRM_NOUNS), n)
    return [f"{r} {_FIRM_NOUNS[k]}" for r, k in zip(roots, nouns)]


def person_names(rng: np.random.Generator, n: int) -> list[str]:
    """People's names for CEOs."""
    f = rng.integers(0, len(_FIRST), n)
    last = rng.integers(0, len(_LAST), n)
    return [f"{_FIRST[a]} {_LAST[b]}" for a, b in zip(f, last)]


def slugify(name: str) -> str:
    """Lower-case ASCII letters and digits of ``name``, for websites.

    Examples
    --------
    >>> slugify("Novalum Analytics GmbH & Co.")
    'novalumanalyticsgmbhco'
    """
    return _NOT_IN_SLUG.sub("", name.lower())  # lower() leaves no ASCII capital


def ticker_of(name: str, length: int = 4) -> str:
    """A ticker from the first letters of a name (``"Novalum Analytics"`` → ``"NOVA"``)."""
    letters = [ch for ch in name.upper() if "A" <= ch <= "Z"]
    return "".join(letters[:length])
