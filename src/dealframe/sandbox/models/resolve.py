"""Bulk name-to-id resolution for the sandbox (docs/sandbox.md, "Resolve").

Names and queries are compared in a normalised form (:func:`normalize_name`):

1. Unicode NFKC normalisation, then case folding (``"Straße"`` → ``"strasse"``).
2. Apostrophes and periods are deleted, so ``"O'Neil"`` → ``"oneil"`` and
   ``"S.A."`` → ``"sa"``.
3. Every other character that is not a letter, digit or combining mark
   (punctuation, symbols, ``_``, control characters) becomes a space; runs of
   whitespace collapse to one space; the ends are stripped.
4. Trailing legal suffixes are dropped, repeatedly, but never the only word:
   ``"Acme Co., Ltd."`` → ``"acme"``. The suffixes (:data:`LEGAL_SUFFIXES`):
   inc, incorporated, corp, corporation, co, company, ltd, limited, llc, llp,
   lp, plc, gmbh, ag, kg, sa, sas, sarl, srl, spa, bv, nv, ab, asa, oy, oyj,
   pte, pty, kk, se. Words such as "group" and "holdings" are kept: they are
   part of a brand more often than a legal form.

Matching a query (only live entities, never soft-deleted ones):

- ``exact``: exactly one entity has the query's normalised name.
- ``ambiguous``: several do (each a candidate with score 1.0); or, when none
  does, at least one entity's normalised name contains the normalised query as
  a substring or has the same first word. Those candidates are scored with
  ``difflib.SequenceMatcher(None, normalised_name, normalised_query).ratio()``
  rounded to 4 decimals.
- ``no_match``: otherwise, and for a query that normalises to nothing.

Candidates are ordered by descending score, then name, then id; at most five
are returned. Queries are never fed to ``re``: the substring search is
``str.find`` over one pre-joined string of normalised names, and first words
come from a dictionary, so quotes, ``%``, SQL fragments and any Unicode are
plain text.
"""

from __future__ import annotations

import heapq
import unicodedata
from bisect import bisect_right
from difflib import SequenceMatcher

__all__ = ["LEGAL_SUFFIXES", "MAX_CANDIDATES", "NameIndex", "ResolveInputError", "normalize_name"]

#: Trailing words dropped by :func:`normalize_name` (after punctuation is removed).
LEGAL_SUFFIXES: frozenset[str] = frozenset(
    {
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "ltd",
        "limited",
        "llc",
        "llp",
        "lp",
        "plc",
        "gmbh",
        "ag",
        "kg",
        "sa",
        "sas",
        "sarl",
        "srl",
        "spa",
        "bv",
        "nv",
        "ab",
        "asa",
        "oy",
        "oyj",
        "pte",
        "pty",
        "kk",
        "se",
    }
)
#: Most candidates returned for an ambiguous query.
MAX_CANDIDATES = 5

_DELETED_CHARS = frozenset("'.\u2019\u2018`\u00b4\u02bc")
_SEPARATOR = "\n"  # never inside a normalised name


class ResolveInputError(ValueError):
    """Bad input to the resolver: the message starts with the field it names."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class _CharMap(dict):
    """``str.translate`` table computed lazily: keep, delete or turn into a space."""

    def __missing__(self, code: int) -> str | None:
        ch = chr(code)
        if ch in _DELETED_CHARS:
            out = None
        elif ch.isalnum() or unicodedata.category(ch).startswith("M"):
            out = ch
        else:
            out = " "
        self[code] = out
        return out


_CHAR_MAP = _CharMap()


def normalize_name(name: str) -> str:
    """The form in which names and queries are compared (see the module docstring).

    Examples
    --------
    >>> normalize_name("  Acme   Labs, Inc. ")
    'acme labs'
    >>> normalize_name("Zenori Capital Co., Ltd.")
    'zenori capital'
    >>> normalize_name("Müller & Söhne GmbH")
    'müller söhne'
    >>> normalize_name("Inc")
    'inc'
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    tokens = folded.translate(_CHAR_MAP).split()
    while len(tokens) > 1 and tokens[-1] in LEGAL_SUFFIXES:
        tokens.pop()
    return " ".join(tokens)


class NameIndex:
    """Resolver over one entity list (companies or investors), built once.

    Parameters
    ----------
    ids, names : list of str
        Entity ids and display names.
    countries : list of str or None
        ISO-3 country of each entity (reported in candidates).
    live : list of bool
        False for soft-deleted entities, which are never matched.

    Examples
    --------
    >>> index = NameIndex(["u1", "u2", "u3"], ["Acme Labs Inc", "Acme Robotics", "Old Co"],
    ...                   ["USA", "DEU", "FRA"], [True, True, False])
    >>> [r["match_type"] for r in index.resolve(["acme labs", "Acme", "Old", ""])]
    ['exact', 'ambiguous', 'no_match', 'no_match']
    >>> index.resolve(["ACME LABS, INC."])[0]
    {'query': 'ACME LABS, INC.', 'id': 'u1', 'match_type': 'exact'}
    >>> index.resolve(["acme"])[0]["candidates"][0]
    {'id': 'u1', 'name': 'Acme Labs Inc', 'country': 'USA', 'score': 0.6154}
    """

    def __init__(
        self,
        ids: list[str],
        names: list[str],
        countries: list[str | None],
        live: list[bool],
    ) -> None:
        if not len(ids) == len(names) == len(countries) == len(live):
            raise ResolveInputError("ids", "ids, names, countries and live differ in length")
        self._ids = list(ids)
        self._names = list(names)
        self._countries = list(countries)
        # Per live entity with a non-empty normalised name: entity index and normalised name.
        self._entity: list[int] = []
        self._norm: list[str] = []
        self._exact: dict[str, list[int]] = {}
        self._first_word: dict[str, list[int]] = {}
        for i, (name, alive) in enumerate(zip(names, live)):
            norm = normalize_name(name) if alive else ""
            if not norm:
                continue
            k = len(self._entity)
            self._entity.append(i)
            self._norm.append(norm)
            self._exact.setdefault(norm, []).append(k)
            self._first_word.setdefault(norm.split(" ", 1)[0], []).append(k)
        self._blob = _SEPARATOR.join(self._norm)
        self._starts: list[int] = []
        offset = 0
        for norm in self._norm:
            self._starts.append(offset)
            offset += len(norm) + 1

    def __len__(self) -> int:
        """Number of matchable (live, non-empty) entities."""
        return len(self._entity)

    def resolve(self, queries: list[str]) -> list[dict]:
        """Resolve each query to an entity id.

        Parameters
        ----------
        queries : list of str
            Names to resolve; each is echoed as ``query``.

        Returns
        -------
        list of dict
            One item per query, in order: ``{"query", "id", "match_type"}``, plus
            ``candidates`` (``{"id", "name", "country", "score"}``) when
            ``match_type`` is ``"ambiguous"``.

        Raises
        ------
        ResolveInputError
            If a query is not a string.

        Examples
        --------
        >>> NameIndex(["u1"], ["Acme"], [None], [True]).resolve(["Acme Ltd", "Zed"])
        [{'query': 'Acme Ltd', 'id': 'u1', 'match_type': 'exact'}, {'query': 'Zed', 'id': None, 'match_type': 'no_match'}]
        """
        cache: dict[str, tuple[str | None, str, list[dict] | None]] = {}
        out: list[dict] = []
        for pos, query in enumerate(queries):
            if not isinstance(query, str):
                raise ResolveInputError(f"names[{pos}]", f"{query!r} is not a string")
            norm = normalize_name(query)
            if norm not in cache:
                cache[norm] = self._match(norm)
            entity_id, match_type, candidates = cache[norm]
            item: dict = {"query": query, "id": entity_id, "match_type": match_type}
            if candidates is not None:
                item["candidates"] = [dict(c) for c in candidates]
            out.append(item)
        return out

    # -- matching -------------------------------------------------------------------------

    def _match(self, norm: str) -> tuple[str | None, str, list[dict] | None]:
        """(id, match_type, candidates) for one normalised query."""
        if not norm:
            return None, "no_match", None
        same = self._exact.get(norm, [])
        if len(same) == 1:
            return self._ids[self._entity[same[0]]], "exact", None
        if same:
            return None, "ambiguous", self._top([(1.0, k) for k in same])
        near = self._containing(norm)
        near.update(self._first_word.get(norm.split(" ", 1)[0], ()))
        if not near:
            return None, "no_match", None
        return None, "ambiguous", self._top(self._score(norm, near))

    def _containing(self, norm: str) -> set[int]:
        """Positions of names whose normalised form contains ``norm``."""
        found: set[int] = set()
        blob, starts = self._blob, self._starts
        at = blob.find(norm)
        while at != -1:
            k = bisect_right(starts, at) - 1
            found.add(k)
            if k + 1 >= len(starts):
                break
            at = blob.find(norm, starts[k + 1])
        return found

    def _score(self, norm: str, positions: set[int]) -> list[tuple[float, int]]:
        """(score, position) for every candidate that can still reach the top five.

        Candidates are visited by decreasing upper bound of the ratio (from the
        two lengths); once the bound falls below the fifth-best score found,
        no later candidate can enter the top five and the rest are skipped.
        """
        matcher = SequenceMatcher(None, "", norm)  # the query is seq2: analysed once
        n_q = len(norm)

        def bound(k: int) -> float:
            n = len(self._norm[k])
            return round(2.0 * min(n, n_q) / (n + n_q), 4)

        scored: list[tuple[float, int]] = []
        best: list[float] = []  # min-heap of the top MAX_CANDIDATES scores
        for k in sorted(positions, key=lambda k: (-bound(k), k)):
            floor = best[0] if len(best) == MAX_CANDIDATES else -1.0
            if bound(k) < floor:
                break
            matcher.set_seq1(self._norm[k])
            if round(matcher.quick_ratio(), 4) < floor:
                continue
            score = round(matcher.ratio(), 4)
            scored.append((score, k))
            if len(best) < MAX_CANDIDATES:
                heapq.heappush(best, score)
            elif score > best[0]:
                heapq.heapreplace(best, score)
        return scored

    def _top(self, scored: list[tuple[float, int]]) -> list[dict]:
        """The best candidates, by descending score, then name, then id."""

        def key(item: tuple[float, int]) -> tuple[float, str, str]:
            i = self._entity[item[1]]
            return (-item[0], self._names[i], self._ids[i])

        top = sorted(scored, key=key)[:MAX_CANDIDATES]
        return [
            {
                "id": self._ids[self._entity[k]],
                "name": self._names[self._entity[k]],
                "country": self._countries[self._entity[k]],
                "score": score,
            }
            for score, k in top
        ]
