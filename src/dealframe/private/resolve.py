"""Names resolved to ids (``POST /{entity}/resolve``): the batches a resolve call sends.

The interface document does not say how many names one resolve request may carry, nor how a
service names the names it refuses. :class:`Resolver` sends a caller's names in batches,
splits a batch refused as holding too many (:func:`fewer_names`), sends alone the names a
refusal names (:func:`named_positions`) so that only a name refused alone is reported
refused, sends again the names an answer for the first names only left out
(:func:`answered_first`), and keeps what it learns of the service (names per request, how
it counts positions) for the client's later calls. The answers are paired with the names
sent and shaped into a :class:`Resolution`.
"""

from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from .._wording import names_shown, plural
from ..arguments import choice
from ..contract import Findings, keys_present, missing_fields, outside_vocabulary, shaping
from ..errors import (
    AmbiguousNameError,
    ApiError,
    BadRequestError,
    RequestInfo,
    ValidationError,
    incomplete,
)
from ..frames import private as shape
from ..frames.schemas import MATCH_TYPES
from ..notices import MissingDataWarning, user_stacklevel
from ..provenance import attach
from ..transport.paging import FATAL_ERRORS, ItemFailure, map_concurrent
from ..transport.refusals import said as _said
from ..transport.refusals import smaller_size
from .resolved import check_matches

if TYPE_CHECKING:
    from ..transport.session import Response, Transport

__all__ = [
    "LONE_POSITIONS",
    "NAMES_PER_RESOLVE",
    "NAME_REFUSALS",
    "Resolution",
    "Resolver",
    "answered_first",
    "fewer_names",
    "named_positions",
]

#: Names per resolve request to start with (not stated by the interface document; lowered
#: when a service refuses a batch as holding too many, see :func:`fewer_names`).
NAMES_PER_RESOLVE = 1000
#: Rounds of one resolve batch sent again without the names a refusal of it names
#: (``names[7]: must be at most 200 characters``), each sent alone first, that found at
#: most one name refused alone: a service that names one name of every batch it is sent
#: cannot make a call send a request or two per name. A round that finds several names
#: refused alone (a refusal listing its problems) does not count, so every good name of a
#: batch whose refusals list hundreds of bad names is still resolved.
NAME_REFUSALS = 20
#: Positions of one refusal whose names are sent alone in one round (a refusal naming more
#: has the others named again when the batch is sent without these): at most
#: ``2 * LONE_POSITIONS`` lone requests a round while how the service counts is not known.
LONE_POSITIONS = 8


class Resolution(NamedTuple):
    """What a resolve returns: ``matches`` (one row per query) and ``candidates`` (tidy),
    each with the call's provenance in its ``attrs``."""

    matches: pd.DataFrame
    candidates: pd.DataFrame


#: A position in the names of a resolve request, as a service may name it in a refusal:
#: ``names[7]``, or FastAPI's ``body.names.7``. The digits are group ``at``.
_NAME_AT = re.compile(r"(?P<head>\bnames?\s*\[\s*|\bnames?\.)(?P<at>\d+)", re.IGNORECASE)
#: Words that name a field (``sort: unknown``, ``body.names: ...``).
_FIELD_NAMED = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*\s*:(?!//)")
#: Words of a count or a size (``too many items``, ``payload too big``, ``at most 100``).
_COUNT_WORDS = re.compile(
    r"\b(?:too\s+(?:many|large|big|long)|at\s+most|max(?:imum)?|exceed(?:s|ed|ing)?|limits?)\b",
    re.IGNORECASE,
)


def _names_count_refused(status: int, words: str) -> bool:
    """Whether a refusal (its status and words) may be about how many names a resolve
    request holds: words that name no position (``names[7]: contains forbidden characters``
    is about one name, and a smaller request holding it would be refused alike) and that are
    a 413, name ``names`` (``names: at most 100 names``), speak of a count or a size
    (``Error: too many items in request``, ``Validation failed: payload too big``: the
    ``word:`` before them is no field), or name no field at all (an empty body).

    Examples
    --------
    >>> _names_count_refused(400, "names: at most 100 names per request, got 1000")
    True
    >>> _names_count_refused(400, "Invalid request names[7]: contains forbidden characters")
    False
    >>> _names_count_refused(400, "Error: too many items in request")
    True
    >>> _names_count_refused(413, "HTTP 413"), _names_count_refused(400, "sort: unknown")
    (True, False)
    """
    if _NAME_AT.search(words):
        return False
    named = re.search(r"\bnames\b", words, re.IGNORECASE) is not None
    counted = _COUNT_WORDS.search(words) is not None
    return status == 413 or named or counted or _FIELD_NAMED.search(words) is None


def fewer_names(error: ApiError, sent: int) -> int | None:
    """The names per resolve request to send after ``error`` refused a batch of ``sent``:
    the bound its words state, else half; None when it is another refusal
    (:func:`_names_count_refused`) or ``sent`` is 1.

    Examples
    --------
    >>> words = "names: at most 100 names per request, got 1000"
    >>> fewer_names(BadRequestError(400, "BAD_REQUEST", words), 1000)
    100
    >>> fewer_names(BadRequestError(400, "BAD_REQUEST", "names[7]: forbidden"), 1000) is None
    True
    """
    return smaller_size(error, sent, lambda words: _names_count_refused(error.status, words))


def named_positions(error: ApiError) -> list[int]:
    """The positions of names a refusal of a resolve request names (``names[7]``,
    ``body.names.7``), as the service counted them, in order, each once.

    Examples
    --------
    >>> said = {"errors": ["names[7]: too long", "body.names.2: bad", "names[7]: blank"]}
    >>> named_positions(BadRequestError(400, "BAD_REQUEST", "Invalid", details=said))
    [7, 2]
    """
    return list(dict.fromkeys(int(m["at"]) for m in _NAME_AT.finditer(_said(error))))


def _in_callers_list(error: ApiError, at: list[int], total: int, base: int | None = 0) -> ApiError:
    """``error``, a refusal of the request holding the names at positions ``at`` of the
    caller's ``total`` (in order), with the positions it names (``names[2]``, counted by the
    service within the request, from ``base``: 0, or 1) counted in the caller's list
    (``names[102]`` when ``at`` starts at 100), and a note saying so. The error itself when
    the two counts agree (``at`` is ``0, 1, 2, ...`` and ``base`` 0); a position the request
    does not hold, or any when ``base`` is None (how the service counts is not known), is
    left as the service wrote it.

    Examples
    --------
    >>> error = BadRequestError(400, "BAD_REQUEST", "Invalid", details={"errors": ["names[2]: bad"]})
    >>> _in_callers_list(error, list(range(100, 200)), 300).errors
    ['names[102]: bad']
    >>> _in_callers_list(error, [0, 1, 3, 4], 5).errors  # names[2] was sent without
    ['names[3]: bad']
    >>> _in_callers_list(error, [0, 1, 2, 3], 4, base=1).errors  # the service's 2nd name
    ['names[1]: bad']
    """
    if at == list(range(len(at))) and base == 0:
        return error
    held = f"names[{at[0]}]..names[{at[-1]}]"
    if at[-1] - at[0] + 1 != len(at):  # names of it were sent alone and left out
        held = f"{len(at)} names of {held}"
    if base is None:
        note = (
            f"the service counted positions within the request holding {held} of your"
            f" {total}, from 0 or from 1 (not yet told): shown as it wrote them"
        )
        return _noted(error, note)

    def moved(m: re.Match[str]) -> str:
        where = int(m["at"]) - base
        return f"{m['head']}{at[where]}" if 0 <= where < len(at) else m[0]

    counted = " from 1" if base else ""
    note = (
        f"the service counted positions{counted} within the request holding {held} of your"
        f" {total}: shown here as positions in your list (counted from 0)"
    )
    return _noted(error, note, lambda text: _NAME_AT.sub(moved, text))


def _noted(error: ApiError, note: str, shift: Callable[[str], str] | None = None) -> ApiError:
    """A copy of ``error`` with ``note`` added (after its own), its message and its
    ``errors`` rewritten by ``shift`` when given: only their words change in the text, what
    it held after them (``stopped part-way: ...``, appended as :meth:`with_note` does) stays.

    Examples
    --------
    >>> error = BadRequestError(400, "X", "bad", details={"errors": ["names[2]: bad"]})
    >>> error.args = (f"{error}; stopped part-way: received 5 of 9 rows",)
    >>> str(_noted(error, "moved", lambda text: text.replace("[2]", "[7]")))
    '400 X: bad: names[7]: bad; stopped part-way: received 5 of 9 rows; moved'
    """
    again = copy.copy(error)  # by DealframeError.__reduce__: the class and every attribute
    if shift is not None:
        again.message = shift(error.message)
        listed = error.details.get("errors")
        if isinstance(listed, list):
            shifted = [shift(e) if isinstance(e, str) else e for e in listed]
            again.details = {**error.details, "errors": shifted}
        text, words = str(error), error._describe()
        kept = text.replace(words, again._describe(), 1) if words in text else again._render()
        again.args = (kept,)
    return again.with_note(note)


class _Batch(NamedTuple):
    """Names of one resolve request: their positions in the caller's list (``at``, in
    order; a name the list repeats is sent once, at its first position), the names, and how
    many names the batch held when it was cut (before any name refused alone was left out of
    it)."""

    at: list[int]
    names: list[str]
    cut: int
    resent: int = 0  # times sent again without names the service refused alone

    def label(self) -> str:
        """How a failure of the batch is listed: ``names 101..200`` (counted from 1), or
        ``names[150]`` (the position in the caller's list) for a name that failed alone.

        Examples
        --------
        >>> _Batch([100, 101, 102], ["a", "b", "c"], 3).label(), _Batch([7], ["x"], 1).label()
        ('names 101..103', 'names[7]')
        >>> _Batch([0, 2], ["a", "c"], 3).label()
        'names 1..3 (2 of them; the others failed alone)'
        >>> _Batch([0, 2], ["a", "c"], 2).label()  # names[1] repeats names[0]
        'names 1..3 (2 of them; the others repeat names before them)'
        """
        if len(self.at) == 1:
            return f"names[{self.at[0]}]"
        span = f"names {self.at[0] + 1}..{self.at[-1] + 1}"
        width = self.at[-1] - self.at[0] + 1
        if width != len(self.at):
            why = [
                *(["failed alone"] if self.cut > len(self.at) else []),
                *(["repeat names before them"] if width > self.cut else []),
            ]
            span += f" ({len(self.at)} of them; the others {' or '.join(why)})"
        return span


def _whole(names: list[str], start: int, stop: int, at: list[int] | None = None) -> _Batch:
    """The batch of ``names[start:stop]``, at those positions of the caller's list (or of
    ``at``, the positions of ``names``), as cut: no name of it left out yet."""
    held = names[start:stop]
    where = list(range(start, start + len(held))) if at is None else at[start:stop]
    return _Batch(where, held, len(held))


def _first_places(names: list[str]) -> list[int]:
    """For each position of ``names``, the position where that name (the same string) is
    first: a resolve request sends each name once.

    Examples
    --------
    >>> _first_places(["a", "b", "a", "c", "b", "A"])
    [0, 1, 0, 3, 1, 5]
    """
    first: dict[str, int] = {}
    return [first.setdefault(name, i) for i, name in enumerate(names)]


def _without_candidates(result: Any) -> Any:
    """``result`` (one resolve result) without its ``candidates``: those of a name the
    caller's list repeats, whose first place holds them.

    Examples
    --------
    >>> _without_candidates({"query": "Acme", "candidates": [{"id": "a"}]})
    {'query': 'Acme'}
    """
    if not isinstance(result, Mapping):
        return result
    return {k: v for k, v in result.items() if k != "candidates"}


def _with_repeats(label: str, at: list[int], places: list[int]) -> str:
    """``label`` (of a batch that failed, holding the names at positions ``at``) with the
    later positions of the caller's list repeating those names (``places``:
    :func:`_first_places`), which failed with them.

    Examples
    --------
    >>> _with_repeats("names[1]", [1], [0, 1, 0, 1, 4, 1])
    'names[1] (repeated at names[3], names[5])'
    >>> _with_repeats("names 1..2", [0, 1], [0, 1, 0, 1, 0, 1, 0])
    'names 1..2 (repeated at 5 positions after)'
    >>> _with_repeats("names[4]", [4], [0, 1, 0, 1, 4, 1])
    'names[4]'
    """
    held = set(at)
    again = [i for i, first in enumerate(places) if first != i and first in held]
    if not again:
        return label
    shown = ", ".join(f"names[{i}]" for i in again)
    return f"{label} (repeated at {shown if len(again) <= 3 else f'{len(again)} positions after'})"


def _query_key(text: Any) -> str:
    """How a resolve result's ``query`` is paired with a name sent: its text, stripped, case
    folded (a service may echo ``ACME`` for ``Acme ``)."""
    return str(text).strip().casefold()


def answered_first(names: list[str], data: Any) -> int | None:
    """How many of ``names`` (one resolve request) an answer's ``data`` holds results for
    when they are exactly the first ones: ``k`` when ``data`` is a list of ``k`` results
    (``0 < k <= len(names)``) whose echoed ``query`` values pair, as a whole, with
    ``names[:k]`` (in any order), and, when ``k`` is short of ``len(names)``, some name left
    unanswered is none of those answered (a service answering once names that differ in case
    or spaces only is no bound: the client sends a name repeated in the caller's list once,
    so only such names are left to pair alike). None for an answer that cannot be paired so
    safely (no ``query``, results for names not sent, a gap, no result at all).

    Examples
    --------
    >>> names = ["Acme", "Globex", "Initech", "Umbrella"]
    >>> answered_first(names, [{"query": "globex"}, {"query": "Acme"}])
    2
    >>> answered_first(names[:2], [{"query": "Globex"}, {"query": "Acme"}])  # whole
    2
    >>> answered_first(names, [{"query": "Acme"}, {"query": "Initech"}]) is None  # a gap
    True
    >>> answered_first(["a", "b", "A"], [{"query": "a"}, {"query": "b"}]) is None  # alike
    True
    >>> answered_first(names, [{"id": "..."}]) is None  # nothing to pair by
    True
    """
    if not isinstance(data, list) or not 0 < len(data) <= len(names):
        return None
    if not all(isinstance(item, Mapping) and isinstance(item.get("query"), str) for item in data):
        return None
    k = len(data)
    first = [_query_key(name) for name in names[:k]]
    if sorted(_query_key(item["query"]) for item in data) != sorted(first):
        return None
    answered = set(first)
    if k < len(names) and all(_query_key(name) in answered for name in names[k:]):
        return None
    return k


def _candidates(named: list[int], held: int, base: int | None) -> list[int]:
    """The names of a request of ``held`` names (their indexes) that a refusal naming the
    positions ``named`` may mean: each position counted from ``base``, or, when how the
    service counts is not known (None), from 0 and from 1 (``names[5]`` is the 6th name,
    or the 5th).

    Examples
    --------
    >>> _candidates([5, 6], 32, None), _candidates([5, 6], 32, 1), _candidates([0, 40], 32, None)
    ([4, 5, 6], [4, 5], [0])
    """
    bases = (0, 1) if base is None else (base,)
    return sorted({p - b for p in named for b in bases if 0 <= p - b < held})


def _told_base(named: list[int], at: list[int], refused: dict[int, bool]) -> int | None:
    """How the service counts the positions ``named`` of its refusal of the request holding
    the names at ``at`` of the caller's list (0, or 1), as the names sent alone tell
    (``refused``: by position in the caller's list, True for a name refused alone, False for
    one accepted alone). A position tells when exactly one of its two names (``at[p]``,
    counted from 0, and ``at[p - 1]``, from 1) was refused alone and the other accepted, or
    does not exist. None when no position tells (both refused, both accepted, one that could
    not be sent) or two tell apart.

    Examples
    --------
    >>> at = list(range(100, 132))  # names[4] and names[5] refused; counted from 1
    >>> _told_base([5, 6], at, {104: True, 105: True, 106: False})
    1
    >>> _told_base([5], at, {104: True, 105: True}) is None  # both refused: untold
    True
    """
    told = set()
    for p in named:
        said = [refused.get(at[i]) if 0 <= i < len(at) else False for i in (p, p - 1)]
        if None not in said and said.count(True) == 1:
            told.add(said.index(True))
    return told.pop() if len(told) == 1 else None


def _failed_alone(one: _Batch, error: ApiError, total: int) -> ItemFailure:
    """The failure of the caller's name ``one`` (a request of it alone) that the service
    refused: its refusal, with the position it names (``names[0]``, or ``names[1]`` as a
    service counting from 1 names it) shown as the name's position in the caller's list of
    ``total``, and a note saying so."""
    at = one.at[0]

    def shift(text: str) -> str:
        return _NAME_AT.sub(lambda m: f"{m['head']}{at}" if int(m["at"]) < 2 else m[0], text)

    note = f"names[{at}] of your {total} was sent alone and refused"
    return ItemFailure(at, one, _noted(error, note, shift))


def _fill_best(
    matches: pd.DataFrame, candidates: pd.DataFrame, ambiguous: pd.Series, found: Findings
) -> None:
    """``id`` of each ambiguous name set to its best candidate: the one that scores above
    the rest. Two names keep a null id: one whose best candidates have the same score (warned
    of and listed in ``matches.attrs["tied"]``), and one with several candidates some of which
    carry no ``score`` (missing or null: no best can be told), a ``missing_field`` finding
    listed in ``matches.attrs["unscored"]``. A name without candidates, or whose best
    candidate has no ``id``, keeps a null id too (said by
    :func:`~dealframe.private.resolved.check_matches`)."""
    # one block of candidates per distinct name (a repeated name's are its first's)
    ranked = candidates.sort_values(
        ["query", "score", "rank"], ascending=[True, False, True], na_position="last"
    )
    place = ranked.groupby("query", sort=False).cumcount().to_numpy()
    first = ranked[place == 0].set_index("query")
    second = ranked[place == 1].set_index("query")["score"].reindex(first.index)
    several = ranked["query"].value_counts().reindex(first.index).to_numpy() > 1
    blank = ranked["score"].isna().groupby(ranked["query"], sort=False).any()
    unscored = several & blank.reindex(first.index).to_numpy(dtype=bool)
    tied = second.eq(first["score"]).to_numpy(dtype=bool) & ~unscored
    best = first["id"].where(~(tied | unscored))
    queries = matches.loc[ambiguous, "query"]
    # a name without candidates (said by check_matches) has none: null, in the id's dtype
    # (all of them null is a float array, which a text column refuses)
    matches.loc[ambiguous, "id"] = pd.array(queries.map(best), dtype=matches["id"].dtype)

    def named(which: np.ndarray) -> tuple[list[str], str]:
        chosen = set(first.index[which])
        names = list(dict.fromkeys(q for q in queries.tolist() if q in chosen))
        # the names and the verb in the number they take: "1 name (...) has", "2 ... have"
        return names, f"{names_shown(names)} {plural(len(names), 'has', 'have')}"

    matches.attrs["tied"], said = named(tied)
    if matches.attrs["tied"]:
        warnings.warn(
            f"{said} several best candidates with the same score: their id is left null "
            "(the candidates frame lists them; the country may tell them apart)",
            MissingDataWarning,
            stacklevel=user_stacklevel(),
        )
    matches.attrs["unscored"], said = named(unscored)
    if matches.attrs["unscored"]:
        found.add(
            "missing_field",
            f"candidates[].score missing or null: {said} several candidates, not all "
            "scored, so no best can be told: their id is left null (on_ambiguous='best'; "
            "the candidates frame lists them)",
        )


class Resolver:
    """The resolve calls of one client: its names sent in batches, and what the service was
    seen to take, kept for the client's later calls.

    Parameters
    ----------
    transport : Transport
        The client's transport: its call budget (``deadline()``), its worker pool and its
        ``max_workers`` and ``progress`` settings.
    request : callable
        ``request(method, path, kind, refresh, cache, deadline, json=...)``: the request
        of ``path`` under ``prefix`` (:meth:`~dealframe.private.api.PrivateApi._request`).
    prefix : str
        The path of the private interface (``/api/private/v1``), as findings and errors
        name the endpoint.
    """

    def __init__(self, transport: Transport, request: Callable[..., Response], prefix: str) -> None:
        self._t = transport
        self._request = request
        self._prefix = prefix
        #: Names per resolve request: lowered when a service refuses a batch as too large.
        self.per_request = NAMES_PER_RESOLVE
        #: How a service counts the positions a resolve refusal names (``names[7]``): 0 or
        #: 1 once names sent alone told it (:func:`_told_base`); None until then.
        self.counted_from: int | None = None

    @property
    def _workers(self) -> int:
        return self._t.settings.max_workers

    def resolve(
        self,
        entity: str,
        names: Any,
        on_ambiguous: str,
        progress: bool | None,
        refresh: bool,
        cache: bool,
        strict: bool = False,
    ) -> Resolution:
        """Resolve ``names`` of ``entity`` to ids: the body of
        :meth:`~dealframe.private.api.PrivateApi.resolve_companies` and
        :meth:`~dealframe.private.api.PrivateApi.resolve_investors`.

        Parameters
        ----------
        entity : {"companies", "investors"}
            The family whose ``resolve`` is asked.
        names : list of str
            The caller's names, checked here (a non-blank string each).
        on_ambiguous : {"none", "best", "raise"}
            What to do with an ambiguous name.
        progress : bool or None
            Progress bar over the batches (None: the client's ``progress`` setting).
        refresh, cache : bool
            As the call asks of the HTTP cache.
        strict : bool, default False
            Raise the typed error instead of warning.

        Returns
        -------
        Resolution
            ``(matches, candidates)``, provenance in the ``attrs`` of both (the same
            ``endpoint``, ``requests``, ``from_cache``, ``fetched_at``, ``batch_size`` and
            ``findings``; ``rows_received`` counts each frame's rows; ``rows_expected``, of
            ``matches`` only, the names asked: the service announces no count of
            candidates).
        """
        choice(on_ambiguous, "on_ambiguous", ("none", "best", "raise"), "'none', 'best' or 'raise'")
        if isinstance(names, str) or not isinstance(names, Iterable) or isinstance(names, Mapping):
            raise ValidationError("names", "a list of names (strings)", got=names)
        items = list(names)
        for i, name in enumerate(items):
            if not isinstance(name, str) or not name.strip():
                raise ValidationError(f"names[{i}]", "a non-blank string", got=name)
        deadline = self._t.deadline()
        endpoint = f"POST {self._prefix}/{entity}/resolve"
        found = Findings(endpoint)
        answers, responses, failures, cut = self._batches(
            entity, items, progress, refresh, cache, deadline
        )
        data: dict[int, Any] = {}  # by position in the caller's list: names sent alone too
        for start in sorted(answers):
            batch, answer = answers[start]
            where = f"{endpoint} {batch.label()}"
            data.update(zip(batch.at, _check_resolved(batch.names, answer, found, where)))
        places = _first_places(items)
        for i, first in enumerate(places):  # a repeated name: sent once
            if i != first and first in data:
                data[i] = dict(data[first])
        info = RequestInfo("POST", f"{self._prefix}/{entity}/resolve", "private")
        served = [data[i] for i in sorted(data)]
        # one block of candidates per distinct name: a repeat's would double the rows of
        # ``matches.merge(candidates, on="query")`` (its match row is kept, in place)
        shaped = [_without_candidates(data[i]) if places[i] != i else data[i] for i in sorted(data)]
        with shaping(info, endpoint, found):
            matches, candidates = shape.resolve_frames(shaped)
        outside_vocabulary(matches, "match_type", MATCH_TYPES, found)  # after case is undone
        check_matches(served, matches, found)  # ids and candidates its match_type implies
        ambiguous = matches["match_type"] == "ambiguous"
        if on_ambiguous == "best":  # the lists are there (empty) when no name is ambiguous
            matches.attrs.update(tied=[], unscored=[])
            if ambiguous.any():
                _fill_best(matches, candidates, ambiguous, found)
        received = int(matches["match_type"].notna().sum())
        # one provenance for both frames (they come of the same requests: one fetched_at),
        # written by attach; each counts its own rows. The service announces how many names
        # it answers (rows_expected of matches), not how many candidates: theirs has none
        cut_said: dict[str, Any] = {} if cut is None else {"batch_size_cut": cut}
        call = attach(
            pd.DataFrame(),
            endpoint=endpoint,
            responses=responses,
            batch_size=self.per_request,
            **cut_said,
            findings=found.records(),
        ).attrs
        matches.attrs.update(copy.deepcopy(call), rows_expected=len(items), rows_received=received)
        candidates.attrs.update(
            {k: copy.deepcopy(v) for k, v in call.items() if k != "rows_expected"},
            rows_received=len(candidates),
        )
        if failures:
            if not responses and len(failures) == 1:  # one request, and it failed: its error
                raise failures[0].error
            raise incomplete(
                len(items),
                received,
                [_with_repeats(f.item.label(), f.item.at, places) for f in failures],
                errors=[f.error for f in failures],
                partial=Resolution(matches, candidates),
                what="names",
            )
        found.report(
            strict=strict,
            partial=Resolution(matches, candidates),
            expected=len(items),
            received=received,
            what="names",
        )
        if on_ambiguous == "raise" and ambiguous.any():
            asked = matches.loc[ambiguous, "query"].tolist()
            listed = set(candidates["query"].dropna())  # names with a candidate to choose
            raise AmbiguousNameError(
                asked,
                unlisted=[q for q in dict.fromkeys(asked) if q not in listed],
                ids=matches.attrs["ids_denied"],
            )
        return Resolution(matches, candidates)

    def _batches(
        self,
        entity: str,
        names: list[str],
        progress: bool | None,
        refresh: bool,
        cache: bool,
        deadline: Any,
    ) -> tuple[dict[int, tuple[_Batch, Any]], list[Any], list[Any], str | None]:
        """Send ``names`` in batches: the answers by the position of their batch's first name,
        the responses, the batches and names that failed (:class:`ItemFailure`, item a
        :class:`_Batch`), in the order of the caller's list, and what to say of batches the
        service answered only in part (None when none was).

        How many names one request may carry is not stated by the interface document. The
        client starts at :data:`NAMES_PER_RESOLVE`; a batch refused as holding too many
        (:func:`fewer_names`) is split to the bound the refusal states, else in halves, and
        that size is kept for this client's later calls once a batch of it was accepted. A
        refusal naming names of the batch (``names[7]: ...``) is not split. A name is
        reported refused only when the service refuses it alone: each name the positions
        may mean (:func:`_candidates`: counted as this client has told the service counts,
        else from 0 and from 1; at most :data:`LONE_POSITIONS` positions of one refusal a
        round, the others named again by the next refusal) is sent alone; one refused failed
        alone (its error naming
        its position in the caller's list, :func:`_failed_alone`), one accepted has that
        answer as its result; and the batch is sent again without them, up to
        :data:`NAME_REFUSALS` rounds that find at most one name refused alone (then the rest
        of the batch failed with that refusal). A request that stops the call (an
        ``AuthenticationError``: a token expired meanwhile) fails every batch still to send
        once something arrived, which is kept.
        The names sent alone tell how the service counts once exactly one of a position's
        two names is refused alone (:func:`_told_base`): kept for this client's later calls.
        A refusal naming no position the batch holds fails the batch whole. A smaller batch
        that fails is a failure: the batches that arrived are kept.

        A batch answered without an error but with results for its first ``k`` names only
        (:func:`answered_first`: paired by their echoed ``query``) is taken as a service
        answering at most ``k`` names a request: those results are kept and the names left
        are sent again in batches of ``k`` (and so on, should those come back short too).
        ``k`` is kept for this client's later calls once a batch sent again of ``k`` names
        (two or more) came back whole: a batch of fewer names coming back whole tells no
        bound from a service losing the last result of longer answers (a batch of one name
        would keep any ``k``, down to 1). When several bounds are so told, the smallest is
        kept. An answer that cannot be paired so is left to :func:`_check_resolved` (a
        ``count_mismatch``).

        A name the caller's list repeats (the same string) is sent once, at its first
        position (:func:`_first_places`): its answer is every copy's (:meth:`resolve`), a
        refusal of it names that position.
        """
        answers: dict[int, tuple[_Batch, Any]] = {}
        responses: list[Any] = []
        failures: list[Any] = []
        size = self.per_request
        firsts = [i for i, first in enumerate(_first_places(names)) if i == first]
        distinct = [names[i] for i in firsts]
        todo = [_whole(distinct, i, i + size, firsts) for i in range(0, len(distinct), size)]
        accepted: set[int] = set()  # the sizes of the batches accepted
        refused = False
        # of batches answered for their first names only: the fewest names answered, what
        # to say of them, the batches sent again for the names left (the position that
        # starts each, and the bound it was cut to), and the bounds told by one of k names
        # that came back whole
        answered: int | None = None
        cuts: list[str] = []
        resent: dict[int, int] = {}
        confirmed: set[int] = set()
        # the batches that arrived are kept: after the first round a 400 is one batch's
        later = tuple(e for e in FATAL_ERRORS if e is not BadRequestError)

        def send(batch: _Batch) -> Any:
            try:
                return self._request(
                    "POST",
                    f"/{entity}/resolve",
                    "list",
                    refresh,
                    cache,
                    deadline,
                    json={"names": batch.names},
                )
            except ApiError as exc:
                alone = len(batch.names) == 1 and isinstance(exc, BadRequestError)
                if alone or fewer_names(exc, len(batch.names)) is not None or named_positions(exc):
                    return exc  # a name refused alone, too many names, or names refused
                raise

        def keep(batch: _Batch, response: Any) -> list[_Batch]:
            """Keep the answer to ``batch``: the batches to send again for the names an
            answer to its first names only left out (none for any other answer)."""
            nonlocal answered
            responses.append(response)
            data = response.json().get("data")
            k = answered_first(batch.names, data)
            if k is None or k == len(batch.names):
                bound = resent.get(batch.at[0])
                if k is not None and bound is not None and 1 < bound == k:
                    confirmed.add(bound)  # a whole batch of the bound: no lost last result
                answers[batch.at[0]] = (batch, data)
                return []
            answers[batch.at[0]] = (_Batch(batch.at[:k], batch.names[:k], k), data)
            answered = k if answered is None else min(answered, k)
            left = len(batch.names) - k
            cuts.append(
                f"{k} results for {len(batch.names)} names sent, with no error (for the"
                f" first {k}): the other {left} sent again in batches of {k}"
            )
            rest = [_whole(batch.names, i, i + k, batch.at) for i in range(k, len(batch.names), k)]
            resent.update((b.at[0], k) for b in rest)
            return rest

        fatal = FATAL_ERRORS
        stopped: ApiError | None = None  # a request that stops the call (a token expired)
        while todo:
            try:
                result = map_concurrent(
                    send,
                    todo,
                    self._workers,
                    progress=self._t.settings.progress if progress is None else progress,
                    desc="resolve",
                    pool=self._t.pool,
                    fatal=fatal,
                    deadline=deadline,
                )
            except ApiError as exc:  # what arrived before it is kept
                if not (answers or failures):
                    raise
                failures += [ItemFailure(b.at[0], b, exc) for b in todo]
                break
            failures += result.failures
            again: list[_Batch] = []
            for batch, outcome in zip(todo, result.results):
                if outcome is None:
                    continue
                if not isinstance(outcome, ApiError):
                    again += keep(batch, outcome)
                    accepted.add(batch.cut)
                    continue
                if len(batch.names) == 1:  # refused alone: that name failed
                    failures.append(_failed_alone(batch, outcome, len(names)))
                    continue
                fewer = fewer_names(outcome, len(batch.names))
                if fewer is not None:
                    size, refused = min(size, fewer), True
                    again += [
                        _whole(batch.names, i, i + size, batch.at)
                        for i in range(0, len(batch.names), size)
                    ]
                    continue
                # about names of the batch: a smaller batch holding them would be refused too
                named = named_positions(outcome)[:LONE_POSITIONS]  # the rest: next round
                alone = _candidates(named, len(batch.names), self.counted_from)
                if stopped is not None or batch.resent >= NAME_REFUSALS or not alone:
                    error = stopped or _in_callers_list(
                        outcome, batch.at, len(names), self.counted_from
                    )
                    failures.append(ItemFailure(batch.at[0], batch, error))
                    continue
                ones = [_Batch([batch.at[i]], [batch.names[i]], 1) for i in alone]
                try:
                    sent = map_concurrent(
                        send,
                        ones,
                        self._workers,
                        progress=False,
                        pool=self._t.pool,
                        fatal=later,
                        deadline=deadline,
                    )
                except ApiError as exc:  # the other answers of this round are still kept
                    stopped = exc
                    failures.append(ItemFailure(batch.at[0], batch, exc))
                    continue
                failures += sent.failures  # a name that could not be sent alone (a 503)
                said: dict[int, bool] = {}
                for one, reply in zip(ones, sent.results):
                    if isinstance(reply, ApiError):
                        failures.append(_failed_alone(one, reply, len(names)))
                    elif reply is not None:
                        keep(one, reply)  # one name: answered whole or not at all
                    if reply is not None:
                        said[one.at[0]] = isinstance(reply, ApiError)
                if self.counted_from is None:
                    self.counted_from = _told_base(named, batch.at, said)
                rest = [i for i in range(len(batch.names)) if i not in alone]
                if rest:  # a round that found at most one name refused alone counts
                    at, held = [batch.at[i] for i in rest], [batch.names[i] for i in rest]
                    counted = sum(said.values()) < 2
                    again.append(_Batch(at, held, batch.cut, batch.resent + counted))
            if stopped is not None:
                failures += [ItemFailure(b.at[0], b, stopped) for b in again]
                break
            todo, fatal = again, later
        if refused and size in accepted:  # a batch of that size was taken: kept
            self.per_request = min(self.per_request, size)
        if confirmed:  # a batch of the bound sent again came back whole: kept
            self.per_request = min(self.per_request, min(confirmed))
            cuts.append(f"batches of {min(confirmed)} kept for this client's later calls")
        elif answered is not None:
            cuts.append(
                f"batches of {answered} not kept (no batch of that many names sent again"
                " came back whole)"
            )
        failures.sort(key=lambda f: f.item.at[0])
        return answers, responses, failures, "; ".join(dict.fromkeys(cuts)) or None


def _check_resolved(batch: list[str], data: Any, found: Findings, where: str) -> list[Any]:
    """One result per name sent, in order; results that cannot be matched are reported."""
    items = data if isinstance(data, list) else []
    if not isinstance(data, list):
        found.add(
            "wrong_shape",
            f"data is {type(data).__name__}, not a list",
            where=where,
            shortfall=len(batch),
        )
    items = [item for item in items if isinstance(item, Mapping)]
    missing_fields(keys_present(items), "resolve", found, n_items=len(items), where=where)
    if len(items) == len(batch) and all(
        _query_key(item.get("query", "")) == _query_key(name) for item, name in zip(items, batch)
    ):
        return [{**item, "query": name} for item, name in zip(items, batch)]
    by_query: dict[str, list[Any]] = {}
    for item in items:
        by_query.setdefault(_query_key(item.get("query", "")), []).append(item)
    out, lost = [], 0
    for name in batch:
        queue = by_query.get(_query_key(name))
        if queue:
            out.append({**queue.pop(0), "query": name})
        else:
            lost += 1
            out.append({"query": name, "id": None, "match_type": None})
    extra = sum(len(q) for q in by_query.values())
    if not lost and not extra:
        return out  # every name has its result, in another order: paired by query
    found.add(
        "count_mismatch",
        f"{len(batch)} names sent, {len(items)} results received "
        f"({lost} names without a result, {extra} results for names "
        "not sent)",
        where=where,
        shortfall=lost,
    )
    return out
