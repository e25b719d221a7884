"""Family B (companies, investors, deals) as DataFrames: ``client.private``.

Filters are checked against the service's discovery documents before any
request (:mod:`.filters`); lists and sub-collections are paginated for the user
(:mod:`.paging`); JSON is shaped by :mod:`dealframe.frames.private`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import inspect
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import numpy as np
import orjson
import pandas as pd

from .._docs import fill_docs
from .._vocab import (
    AGGREGATE_METRICS,
    DEAL_SUBTYPES,
    DEAL_TYPES,
    SUBCOLLECTION_LIMIT_MAX,
    TIME_BUCKETS,
)
from .._wording import plural
from ..arguments import (
    KEYWORD_GROUPS,
    checked_keywords,
    checked_methods,
    choice,
    finite_number,
    integer_in,
)
from ..contract import (
    DOCUMENTED_FIELDS,
    VOCABULARY_FIELDS,
    Findings,
    absent_from_answers,
    dedupe_at,
    document_values,
    first_of,
    identities,
    keys_present,
    missing_fields,
    null_fields,
    outside_vocabulary,
    read_items,
    read_page,
    say_echoed,
    shaping,
    typed_fields,
)
from ..errors import (
    ApiError,
    BadRequestError,
    DealframeError,
    IncompleteResultError,
    NotFoundError,
    RateLimitedError,
    RequestInfo,
    ServiceContractError,
    TransportError,
    ValidationError,
    incomplete,
)
from ..field_names import fields_noted
from ..frames import private as shape
from ..frames.normalize import canonical_uuid
from ..frames.participants import say_participants
from ..frames.said import rows_kept, rows_said_later, say_kept
from ..frames.schemas import DEAL_PROFILE_ONLY, PROFILE_FIELDS, ROLES
from ..notices import (
    MissingDataWarning,
    missing_expected,
    user_stacklevel,
    warn_missing,
)
from ..provenance import Answered404, attach, combined_from_cache, fetched_at
from ..public.hints import HINT_SECONDS
from ..transport.paging import ItemFailure, map_concurrent, unsent
from ..transport.refusals import TOO_LARGE, smaller_size, stated_bound
from ..transport.refusals import said as refusal_words
from .aggregate import aggregate_refused, read_aggregate
from .batches import (
    IDS_PER_BATCH,
    Distinct,
    batch_name,
    batch_overlap,
    batched_filter,
    id_values,
    ids_held,
    in_batch,
    merge_batches,
    over_bound,
    rows_counted,
    with_ids,
)
from .counts import say_count
from .fields import absent_fields, check_fields, profile_fields, valued_keys
from .filters import (
    OPEN_LISTS,
    FilterSchema,
    documented_schema,
    materialised,
    merged_filters,
    service_decides,
    sort_form,
)
from .hints import EXACT_LABELS, carried_values, open_values, unmatched_open_values
from .ids import check_ids, is_one_id
from .list_pages import ListParse, Unread, first_unreadable, item_named, reads_alone
from .outside import drop_outside, say_deleted
from .page_size import about_page, open_point, vague
from .paging import (
    PAGE_SIZE,
    Numbering,
    Pages,
    page_parts,
    pull_pages,
    say_wrong_page,
    stopped,
)
from .resolve import NAMES_PER_RESOLVE, Resolution, Resolver
from .subroutes import SUB_404, SubRoutes, no_route, route_404
from .top_lists import top_lists_read, top_lists_said

if TYPE_CHECKING:
    from ..transport.session import Response, Transport

__all__ = [
    "IDS_PER_BATCH",
    "NAMES_PER_RESOLVE",
    "PrivateApi",
    "Resolution",
    "read_aggregate",
    "smaller_page",
]

PREFIX = "/api/private/v1"
ENTITIES = ("companies", "investors", "transactions")
#: Companies read to tell a misspelt open-vocabulary value after an empty answer.
HINT_PAGE = 1000
_ENTITY_ALIASES = {
    "deals": "transactions",
    "company": "companies",
    "investor": "investors",
    "transaction": "transactions",
    "deal": "transactions",
}


class _Pulled(NamedTuple):
    """The parsed pages of one list call and what they add up to."""

    pages: Pages[Any]
    expected: int | None  # rows the pages read should hold (None: the service did not say)
    total: int | None  # rows matching the filters (None: unknown, or batches left unsent)
    # for a lookup by id, the ids whose every row arrived: those not returned are absent
    looked_up: list[str] | None
    batches: list[int] | None = None  # rows of each batch of ids, in order
    refused: str | None = None  # the page size the service refused, and the one used
    zero: str | None = None  # what the walk saw of a service counting from 0
    # a union filter other than ``id`` sent in batches (a row may match several), and the
    # cap on rows of each batch (None: read whole)
    union: str | None = None
    caps: list[int | None] | None = None
    # of each batch held to the pages read (``enough`` stopped it before ``meta.total``'s
    # rows), the rows it counts: those that arrived, repeats included, up to what the pages
    # should hold (:attr:`~dealframe.private.paging.Pages.held`); None for the others
    held: list[int | None] | None = None
    # of a lookup in several batches of ids, each page as missing_fields takes its parts,
    # labelled with its batch (``ids 1001-1500 page 1``); None: the pages' own labels
    parts: list[tuple[str, int, frozenset[str]]] | None = None
    # ... and the ids of each page's batch (what an error's ``.failed`` holds for it)
    ids_of: list[list[str]] | None = None


#: Types of the filter parameters (values are checked against the discovery documents).
Ids = Iterable[str] | str | None
Strings = Iterable[str] | str | None
Number = float | None
Day = str | dt.date | None
Moment = str | dt.datetime | None
Flag = bool | None
Text = str | Mapping[str, str] | None


@checked_keywords
def smaller_page(error: ApiError, sent: int, *, body: int = 0) -> int | None:
    """The page size to ask for after ``error`` refused ``limit=sent``: the bound the error
    states, else half; None when the error is not about the page size
    (:func:`~dealframe.private.page_size.about_page`: words naming ``limit`` or the page size,
    or a 413 saying nothing but its status of a request whose ``body``, in bytes besides
    ``limit``, is small: 0 for a GET), or ``sent`` is 1. An ``error`` that is no
    :class:`~dealframe.errors.ApiError`, or a ``sent`` that is no whole number of 1 or more,
    is a :class:`~dealframe.errors.ValidationError` naming it.

    Examples
    --------
    >>> said = "limit: must be between 1 and 100, got 1000"
    >>> smaller_page(BadRequestError(400, "BAD_REQUEST", said), 1000)
    100
    >>> smaller_page(BadRequestError(400, "BAD_REQUEST", "limit too large"), 1000)
    500
    >>> smaller_page(BadRequestError(400, "BAD_REQUEST", "maximum page size is 100"), 1000)
    100
    >>> smaller_page(ApiError(413, "HTTP_413", "Request Entity Too Large"), 1000)
    500
    >>> smaller_page(BadRequestError(400, "BAD_REQUEST", "sort: unknown key"), 1000) is None
    True
    >>> smaller_page(BadRequestError(422, "X", "too many values in filter (at most 500)"), 1000)
    """
    if not isinstance(error, ApiError):
        raise ValidationError("error", "a dealframe.errors.ApiError", got=type(error).__name__)
    sent = integer_in(sent, "sent", 1, None, "a whole number of rows, 1 or more")
    body = integer_in(body, "body", 0, None, "a whole number of bytes, 0 or more")
    return smaller_size(error, sent, lambda words: about_page(error, sent, body))


def _pages_label(ident: str, pages: list[Any]) -> str:
    """How an error names an id of a sub-collection read in part: the id and its pages
    that failed.

    Examples
    --------
    >>> _pages_label("c1", [2]), _pages_label("c1", [2, 5])
    ('c1 page 2', 'c1 pages 2, 5')
    """
    return f"{ident} page{'s' if len(pages) > 1 else ''} {', '.join(map(str, pages))}"


def _said_once(notes: list[str]) -> str | None:
    """The notes of a call, joined (None when there are none)."""
    return "; ".join(notes) or None


#: A column of no service's (a NUL in its name) that carries each row's position through a
#: step that cuts or orders rows and resets the index (:func:`_carried`).
_AT = "\x00at"


def _oldest_fetch(attrs: Iterable[Mapping[str, Any]]) -> str:
    """The ``fetched_at`` of a frame built of frames with these ``attrs``: the oldest of theirs
    (:func:`~dealframe.provenance.fetched_at`'s rule: the data is as old as its oldest
    answer); the time of the call when none says one.

    Examples
    --------
    >>> _oldest_fetch([{"fetched_at": "2026-01-02T10:00:00+00:00"},
    ...                {"fetched_at": "2026-01-02T09:30:00+00:00"}, {}])
    '2026-01-02T09:30:00+00:00'
    """
    stamps = [
        dt.datetime.fromisoformat(a["fetched_at"])
        for a in attrs
        if isinstance(a.get("fetched_at"), str)
    ]
    aware = [s if s.tzinfo is not None else s.replace(tzinfo=dt.UTC) for s in stamps]
    return min(aware, default=fetched_at([])).isoformat(timespec="seconds")


def _carried(
    step: Callable[[pd.DataFrame], pd.DataFrame], frame: pd.DataFrame, at: np.ndarray
) -> tuple[pd.DataFrame, np.ndarray]:
    """``step(frame)``, and ``at`` (a value per row of ``frame``: its position in the frame a
    call built) cut and ordered as ``step`` cut and ordered the rows."""
    out = step(frame.assign(**{_AT: at}))
    return out.drop(columns=_AT), out[_AT].to_numpy()


#: Parameter descriptions shared by the methods (each ``{name}`` line of their docstrings).
_DOCS = {
    "refresh": """refresh : bool, default False
    Fetch again and overwrite the cached answer.""",
    "cache": """cache : bool, default True
    Use the HTTP cache (False: neither read nor write it).""",
    "strict": """strict : bool, default False
    Raise the typed error (:class:`~dealframe.errors.IncompleteResultError`,
    :class:`~dealframe.errors.ServiceContractError`) instead of warning when an
    answer is short or breaks the interface.""",
    "progress": """progress : bool, optional
    Progress bar (None: the client's ``progress`` setting).""",
}
#: The parameters of the sub-collection methods, by the family of their ids.
_DOCS |= {
    f"sub_of_{one}": f"""ids : str or list of str
    One {one} id (answered 404: :class:`~dealframe.errors.NotFoundError`) or a list
    of them (fetched concurrently; ids answered 404, even in a list of one, are in
    ``attrs["missing_ids"]`` with a warning).
limit : int, optional
    Cap on rows per {one}, from 1 to 1,000 (the interface document's bound on a
    sub-collection's ``limit``; default: every row, in pages of up to 1,000).
"""
    + "\n".join(_DOCS[name] for name in ("strict", "progress", "refresh", "cache"))
    for one in ("company", "investor")
}


#: What ``deals(..., with_investors=True)`` reads of each single deal.
_PROFILE_ONLY_FIELDS = ("id", "target", "investors")


#: Answers whose rows hold lists of Participant objects (``buyers``, ``lead_investors``, and
#: single deals' ``investors``): their ``country`` is checked as a deal's ``target_country``.
_PARTICIPANT_ANSWERS = frozenset({"transactions", "deals_with_role"})


def _beyond_document(frame: pd.DataFrame, answer: str) -> bool:
    """Whether a deal type or subtype column of ``frame`` (the rows of ``answer``) holds a
    value the interface document does not list: one the service's discovery document may
    list (its lists grow), so worth reading it for. False on the usual rows.

    Examples
    --------
    >>> _beyond_document(pd.DataFrame({"deal_type": ["Venture", None]}), "transactions")
    False
    >>> _beyond_document(pd.DataFrame({"deal_type": ["Venture", "Debt"]}), "transactions")
    True
    """
    for name, vocabulary in VOCABULARY_FIELDS.get(answer, {}).items():
        if vocabulary not in (DEAL_TYPES, DEAL_SUBTYPES) or name not in frame.columns:
            continue
        values = frame[name].astype(object)
        if (values.notna() & ~values.isin(list(vocabulary))).any():
            return True
    return False


def _document_values(
    frame: pd.DataFrame, answer: str, found: Findings, held: FilterSchema | None = None
) -> None:
    """:func:`~dealframe.contract.document_values` of the rows of ``answer`` (a deal type or
    subtype also known when ``held``, the transactions discovery document the client holds,
    lists it), and the participants' countries and ids of deal rows, read together
    (:func:`~dealframe.frames.participants.say_participants`)."""
    fields = held.fields if held is not None else {}
    listed = {name: spec.values for name, spec in fields.items()}
    document_values(frame, answer, found, listed=listed)
    if answer in _PARTICIPANT_ANSWERS:
        say_participants(frame, found)


def _absent_keys(items: list[Any], entity: str) -> dict[str, np.ndarray]:
    """The documented fields of ``entity`` some items lack (absent, not null): for each, a
    boolean per item, True where it is absent. Empty when every item has every field (one
    subset test per item: about 0.6 ms a page of 1,000 deals).

    Examples
    --------
    >>> {k: v.tolist() for k, v in _absent_keys([{"id": "a", "name": None}, {"id": "b"}],
    ...                                         "investors").items()}["name"]
    [False, True]
    """
    if not items or typed_fields(items) is not None:  # typed rows hold every field
        return {}
    documented = DOCUMENTED_FIELDS[entity]
    wanted = frozenset(documented)
    if all(isinstance(i, dict) and i.keys() >= wanted for i in items):  # JSON objects
        return {}
    return {
        name: lacks
        for name in documented
        if (lacks := np.fromiter((name not in i for i in items), bool, len(items))).any()
    }


def _single_deals(items: list[dict]) -> pd.DataFrame:
    """Single deals (``GET /transactions/{id}``) as a frame: every profile column."""
    return shape.deals_frame(items, with_role=False, profile=True)


def _kept_of_list_rows(frame: pd.DataFrame, investors: bool) -> str:
    """What the deals of a ``with_investors`` pull that have no single form hold of the
    profile-only columns, as the warning says it: ``investors`` null (``investors``: the list
    rows carried lists of their own, not taken for the full ones), the other columns what
    the list rows of ``frame`` carried."""
    rest = [c.name for c in DEAL_PROFILE_ONLY if c.name != "investors"]
    kept = [name for name in rest if name in frame]
    said = "their investors are null"
    if investors:
        said += " (the lists their list rows carried are not known to be full)"
    if not kept:
        return f"{said}, and so are their other profile-only columns"
    said += f"; {', '.join(kept)} hold what their list rows carried"
    return said if len(kept) == len(rest) else f"{said}, their other profile-only columns null"


#: The :data:`~dealframe.contract.NOT_NULL` answer of each family's single forms.
_PROFILE_ANSWERS = {
    "companies": "company_profile",
    "investors": "investor_profile",
    "transactions": "deal_profile",
}

#: The frame of each family's single forms (profiles).
_PROFILE_FRAMES: dict[str, Callable[[list[dict]], pd.DataFrame]] = {
    "companies": shape.company_profiles_frame,
    "investors": shape.investor_profiles_frame,
    "transactions": _single_deals,
}


class _Sub(NamedTuple):
    """A sub-collection: its parent's family, its name, its shaping, its rows' answer name."""

    entity: str
    name: str
    build: Callable[[list[dict]], pd.DataFrame]
    answer: str


def _deals_of(role: bool) -> Callable[[list[dict]], pd.DataFrame]:
    """Deals of a sub-collection as a frame (with the parent's ``role`` in each, or not)."""
    return lambda items: shape.deals_frame(items, with_role=role, profile=False)


#: The sub-collections, by the method that reads them.
_SUBS = {
    "fundings": _Sub("companies", "fundings", _deals_of(False), "transactions"),
    "sellside": _Sub("companies", "sellside", _deals_of(False), "transactions"),
    "buyside": _Sub("companies", "buyside", _deals_of(True), "deals_with_role"),
    "company_investors": _Sub(
        "companies", "investors", shape.company_investors_frame, "company_investors"
    ),
    "investments": _Sub("investors", "investments", _deals_of(True), "deals_with_role"),
    "co_investors": _Sub("investors", "co_investors", shape.co_investors_frame, "co_investors"),
    "portfolio": _Sub("investors", "portfolio", shape.portfolio_frame, "portfolio"),
}


def _sub_framed(sub: _Sub, items: list[dict]) -> tuple[pd.DataFrame, pd.Series]:
    """``items`` of ``sub`` (each with its parent's id) as the call's frame, the parent's id
    first, and that column as built."""
    parent = "company_id" if sub.entity == "companies" else "investor_id"
    frame = sub.build(items)
    column = frame.pop(parent) if parent in frame else pd.Series([], dtype="str")
    frame.insert(0, parent, pd.array(column, dtype="str"))
    return frame, column


def _sub_unreadable(
    error: ServiceContractError,
    sub: _Sub,
    pulled: list[tuple[str, Pages[Any]]],
    rows_of: Callable[[str, Pages[Any]], list[dict]],
) -> tuple[list[tuple[str, Pages[Any]]], ServiceContractError] | None:
    """The ids of ``pulled`` whose rows (``rows_of(id, pages)``) cannot be read alone, found
    by halving the ids (:func:`_unreadable_ids`: a few builds, once ``error`` was met), each
    as an id read in part: ``pulled`` again with each such id's pages holding the rows of it
    that read (:func:`_readable_parts`: every page of it had arrived), its first page that
    cannot be read alone one of its ``failed``. And the error that names the first: its
    request's path (not ``{id}``), that page and, in it, the item (found by halving:
    :func:`~dealframe.private.list_pages.first_unreadable`). None when every id reads alone
    (values of one member typed differently from id to id)."""

    def reads(rows: list[dict]) -> bool:
        return reads_alone(sub.build, rows)

    rows = {ident: rows_of(ident, pages) for ident, pages in pulled}
    bad = set(_unreadable_ids([(ident, rows[ident]) for ident, _ in pulled], reads))
    if not bad:
        return None
    named: ServiceContractError | None = None
    out: list[tuple[str, Pages[Any]]] = []
    for ident, pages in pulled:
        if ident not in bad:
            out.append((ident, pages))
            continue
        # each page's rows (``rows`` from its start, ``limit`` cut), and the first that fails
        # alone
        sliced: list[list[dict]] = []
        for part in pages.parts:
            start = sum(len(each) for each in sliced)
            sliced.append(rows[ident][start : start + len(part)])
        at = next((k for k, these in enumerate(sliced) if these and not reads(these)), None)
        page = None if at is None else pages.infos[at].page
        path = f"{PREFIX}/{sub.entity}/{ident}/{sub.name}"
        request = RequestInfo("GET", path, "private")
        row = None
        if at is not None:
            these = sliced[at]
            row = first_unreadable(len(these), functools.partial(_fails, reads, these))
        if named is None:
            where = ""
            if at is not None:
                ident_of = "" if row is None else f" (id {_ident_of(sliced[at][row])})"
                item = "" if row is None else f", item {row + 1} of {pages.infos[at].rows}"
                where = f"page {page}{item}{ident_of}"
            named = item_named(error, where, request)
            said = named
        else:
            said = ServiceContractError(
                error.status,
                f"{'its pages' if page is None else f'page {page}'}: an item cannot be read "
                "(a value of the wrong type)",
                finding=error.finding,
                request=request,
            )
        many = len(pages.parts)
        if at is None:  # no page fails alone (typed differently from page to page): none kept
            parts, infos = [], []
        else:
            parts = _readable_parts(sliced, at, row, reads)
            infos = pages.infos if len(parts) == len(sliced) else pages.infos[:at]
        cut = dataclasses.replace(
            pages,
            parts=parts,
            infos=infos,
            failed=[
                *pages.failed,
                ItemFailure(at or 0, page or (f"1-{many}" if many > 1 else 1), said),
            ],
        )
        out.append((ident, cut))
    assert named is not None
    return out, named


def _readable_parts(
    parts: list[list[dict]], at: int, row: int | None, reads: Callable[[list[dict]], bool]
) -> list[list[dict]]:
    """The rows of one id's pages ``parts`` that can be kept when page ``at`` cannot be read
    alone (its item ``row``, when found): every page of it had arrived, so its other pages
    that read alone and page ``at`` less that item (when the rest of it reads), each page in
    its place (an empty one for a page dropped) when they read together; else the pages
    before ``at``.

    Examples
    --------
    >>> def reads(rows):
    ...     return "x" not in rows
    >>> _readable_parts([["a"], ["b", "x", "c"], ["d"]], 1, 1, reads)
    [['a'], ['b', 'c'], ['d']]
    >>> _readable_parts([["a"], ["x"], ["x", "d"]], 1, 0, reads)
    [['a'], [], []]
    >>> _readable_parts([["a"], ["b", "x"], ["c"]], 1, None, reads)
    [['a'], [], ['c']]
    >>> _readable_parts([["a"], ["x"], ["c"]], 1, 0, lambda rows: rows in (["a"], ["c"]))
    [['a']]
    """
    less = [] if row is None else parts[at][:row] + parts[at][row + 1 :]
    # the pages before ``at`` read alone (it is the first that does not)
    kept = [*parts[:at], less if less and reads(less) else []]
    kept += [part if not part or reads(part) else [] for part in parts[at + 1 :]]
    return kept if reads([one for part in kept for one in part]) else parts[:at]


def _fails(reads: Callable[[list[dict]], bool], rows: list[dict], start: int, stop: int) -> bool:
    """Whether ``rows`` ``start``..``stop`` cannot be read (``reads``) alone."""
    return not reads(rows[start:stop])


def _failed_of(
    error: DealframeError,
) -> tuple[list[Any], list[str], list[BaseException]]:
    """``(failed, labels, errors)`` of ``error`` (the single forms of a partial that failed),
    as :meth:`~dealframe.private.paging.Pages.raise_for_failures` takes them: its failed ids
    and their errors, or the error itself when it names none (it said it all the same).

    Examples
    --------
    >>> from dealframe.errors import IncompleteResultError, ServerError
    >>> down = ServerError(500, "X", "down")
    >>> _failed_of(IncompleteResultError(3, 2, ["d1"], errors=[down]))[:2]
    (['d1'], ['d1'])
    >>> _failed_of(down)
    ([], [], [])
    """
    failed = list(getattr(error, "failed", None) or [])
    labels = list(getattr(error, "labels", None) or [str(item) for item in failed])
    errors = list(getattr(error, "errors", None) or [error] * len(failed))
    return failed, labels, errors


def _notes_of(error: DealframeError) -> list[str]:
    """What ``error`` (the single forms of a partial that failed) says beyond the pages: its
    notes (the deals answered 404), and itself when it names no failed id (a finding under
    ``strict=True``)."""
    notes = list(getattr(error, "__notes__", []))
    if not getattr(error, "failed", None):
        notes.insert(0, f"the single forms: {error}")
    return notes


def _unreadable_ids(
    groups: list[tuple[str, list[dict]]], reads: Callable[[list[dict]], bool]
) -> list[str]:
    """The ids of ``groups`` (``(id, rows)``, whose rows together cannot be read) whose rows
    cannot be read alone, in their order, found by halving: a half that reads holds none, and
    when the first half reads the second is known to fail without a build (about ``k log2 n``
    builds for ``k`` such ids of ``n``). An id is named only when its rows fail alone (values
    typed differently from id to id name none).

    Examples
    --------
    >>> seen = []
    >>> def reads(rows):
    ...     seen.append(len(rows))
    ...     return 5 not in rows
    >>> _unreadable_ids([(str(i), [i]) for i in range(16)], reads), len(seen)
    (['5'], 7)
    """

    def within(group: list[tuple[str, list[dict]]], failing: bool) -> list[str]:
        if len(group) == 1:  # an id is named by its own build only
            return [] if reads(group[0][1]) else [group[0][0]]
        if not failing and reads([row for _, rows in group for row in rows]):
            return []
        half = len(group) // 2
        first = within(group[:half], False)
        return first + within(group[half:], not first)

    return within(groups, True) if groups else []


def _ident_of(row: Any) -> Any:
    """The ``id`` of an item of a sub-collection (None when it has none)."""
    return row.get("id") if isinstance(row, dict) else None


class _Unstored(Exception):
    """A sub-collection's page 1 is not in the HTTP cache (its pull goes to a worker)."""


#: The annotations of a filter parameter (the aliases above, as the signatures spell them).
_FILTER_TYPES = frozenset({"Ids", "Strings", "Number", "Day", "Moment", "Flag", "Text"})


@functools.cache
def _filter_names(function: Callable[..., Any]) -> tuple[str, ...]:
    """The keyword-only parameters of ``function`` typed as filters, in signature order."""
    parameters = inspect.signature(function).parameters.values()
    return tuple(
        p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.annotation in _FILTER_TYPES
    )


_F = TypeVar("_F", bound=Callable[..., Any])


def _filters_apart(method: _F) -> _F:
    """``method`` (a call taking the service's filters as keywords), whose unknown keyword
    is refused listing its filters (in the interface document's order) apart from the
    call's own options (:data:`~dealframe.arguments.KEYWORD_GROUPS`)."""
    filters = _filter_names(method)
    named = inspect.signature(method).parameters
    options = sorted(name for name in named if name not in filters and name != "self")
    setattr(method, KEYWORD_GROUPS, {"filters": list(filters), "call options": options})
    return method


#: The ``deadline`` of a read that is a call of its own (its own ``call_budget``).
_OWN_BUDGET: Any = object()


def _given(method: Callable[..., Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The filter parameters of ``method`` that ``arguments`` (its ``locals()``) gives: its
    keyword-only parameters typed as filters, but for None ("no constraint")."""
    names = _filter_names(getattr(method, "__func__", method))  # per function, not per client
    return {name: arguments[name] for name in names if arguments[name] is not None}


#: Filters that do not narrow a lookup by id (``include_deleted`` widens it).
_NOT_NARROWING = frozenset({"id", "include_deleted"})


def _report_missing_ids(
    entity: str,
    wire: Mapping[str, Any],
    looked_up: list[str],
    missing: list[str],
    frame: pd.DataFrame,
    strict: bool,
) -> None:
    """Warn (or raise under ``strict``) about ids a lookup by id did not return.

    Only when ``id`` is the only narrowing filter: other filters exclude rows on
    purpose, so their misses are listed in ``attrs["missing_ids"]`` but not flagged.
    """
    if any(name not in _NOT_NARROWING for name in wire):
        return
    label = {"companies": "company", "investors": "investor"}.get(entity, "deal")
    if strict:
        raise IncompleteResultError(
            len(looked_up),
            len(looked_up) - len(missing),
            missing,
            partial=frame,
            what=f"{label} ids",
        )
    reason = (
        "unknown ids"
        if wire.get("include_deleted") is True
        else "unknown ids, or soft-deleted ones: pass include_deleted=True to get those"
    )
    warnings.warn(
        f"{len(missing)} of {len(looked_up)} {label} ids were not returned ({reason}): "
        f"{first_of(missing)} (see df.attrs['missing_ids'])",
        MissingDataWarning,
        stacklevel=user_stacklevel(),
    )


#: The :attr:`~dealframe.contract.Findings.notes` key of the answers of another id than
#: asked that :func:`_say_other_ids` counted of a call.
_OTHER_IDS = ("wrong_entity", "single answers")


def _say_other_ids(
    others: list[tuple[str, str]], asked: int, found: Findings, where: str | None
) -> None:
    """The ``wrong_entity`` finding of single answers whose ``id`` is not the one asked
    (``others``: each asked id, and what its answer is, of ``asked`` answers), once for the
    call, with the count and the first few; called again with the same ``found`` (one
    call's answers read in parts), its counts those of every part. Of one id asked
    (``where``: its path), the answer alone.

    Examples
    --------
    >>> found = Findings("GET /x/{id}")
    >>> _say_other_ids([("a", "asked for a, the answer's id is 'b'")], 1_500, found, None)
    >>> _say_other_ids([("c", "asked for c, the answer's id is 'b'")], 20, found, None)
    >>> [f.message for f in found], found.notes[_OTHER_IDS]["ids"]
    (["2 of 1,520 answers are of another id: asked for a, the answer's id is 'b'; asked for c, the answer's id is 'b'"], ['a', 'c'])
    """
    noted = found.notes.setdefault(_OTHER_IDS, {"asked": 0, "ids": [], "said": []})
    noted["asked"] += asked
    noted["ids"] += [ident for ident, _ in others]
    noted["said"] += [said for _, said in others[: 5 - len(noted["said"])]]
    if not others:
        return
    if where is not None:  # one id asked
        found.add("wrong_entity", others[0][1], where=where)
        return
    n = len(noted["ids"])
    more = n - len(noted["said"])
    shown = "; ".join(noted["said"]) + (f" and {more:,} more" if more else "")
    found.say(
        "wrong_entity",
        _OTHER_IDS[1],
        f"{n:,} of {noted['asked']:,} answers are of another id: {shown}",
    )


def _missing_profiles(
    entity: str, asked: int, missing: list[str], deleted: list[str], include_deleted: bool
) -> str:
    """What the warning of a profile call says of the ids of ``missing`` (of ``asked``): those
    the service said are soft-deleted (``deleted``: a 404 saying so, or a profile served
    with ``deleted`` true) apart from the others, unknown, once it said so of one; else that
    they are unknown or soft-deleted, as a 404 alone does not tell (with ``include_deleted``
    a soft-deleted one is served: they are unknown).

    Examples
    --------
    >>> _missing_profiles("companies", 3, ["a", "b"], ["b"], False)
    "2 of 3 companies were not found: 1 soft-deleted (pass include_deleted=True to read it): b; 1 unknown: a; see df.attrs['missing_ids'] (the soft-deleted in df.attrs['deleted_ids'])"
    >>> _missing_profiles("companies", 3, ["a"], [], False)
    "1 of 3 companies were not found (or are soft-deleted; pass include_deleted=True): see df.attrs['missing_ids']"
    """
    head = f"{len(missing)} of {asked} {entity} were not found"
    if include_deleted:
        return f"{head} (unknown ids): see df.attrs['missing_ids']"
    if not deleted:
        return (
            f"{head} (or are soft-deleted; pass include_deleted=True): see df.attrs['missing_ids']"
        )
    unknown = [i for i in missing if i not in set(deleted)]
    them = plural(len(deleted), "it", "them")
    parts = [
        f"{len(deleted)} soft-deleted (pass include_deleted=True to read {them}): {first_of(deleted)}"
    ]
    if unknown:
        parts.append(f"{len(unknown)} unknown: {first_of(unknown)}")
    return (
        f"{head}: {'; '.join(parts)}; see df.attrs['missing_ids'] (the soft-deleted in "
        "df.attrs['deleted_ids'])"
    )


@checked_methods
@fill_docs(_DOCS)
class PrivateApi:
    """The private interface: obtain it as ``client.private``."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport
        #: The profile field names known, by entity: the document's and those seen served
        #: with a value in this client's answers (:mod:`.fields`)
        self._profile_fields = {entity: profile_fields(entity) for entity in PROFILE_FIELDS}
        self._schemas: dict[str, FilterSchema] = {}
        # the best-effort read of the transactions discovery document for the rows' deal
        # types failed: not asked again by each call (a filter's own read still asks)
        self._listing_failed = False
        #: The name the service serves each sub-collection under (:mod:`.subroutes`).
        self._sub_routes = SubRoutes(self._request, PREFIX)
        self._lock = threading.Lock()
        #: The resolve calls, and what the service was seen to take of them (:mod:`.resolve`).
        self._resolver = Resolver(transport, self._request, PREFIX)
        #: Rows per list page asked for: lowered when a service refuses ``limit`` as too large.
        self._list_page_size = PAGE_SIZE
        #: Rows per sub-collection page asked for: the document's 1,000, lowered as above.
        self._sub_page_size = SUBCOLLECTION_LIMIT_MAX
        #: The service's number of a list's first page: 0 once a list call has found that the
        #: service counts ``page`` from 0 (its ``page: 1`` brought rows its first page did not
        #: hold, and the rows added up); ``_first_page_known`` once a call has found that it
        #: counts from 1 (page 1's ``meta.page`` 1, or a ``page: 1`` that repeated page 1), so
        #: that later walks ask no page twice to tell (:class:`~.paging.Numbering`).
        self._first_page = 1
        self._first_page_known = False
        #: The open-vocabulary values one page of companies carries, by field: read once,
        #: for the hint after an empty answer (:meth:`_hint_open_values`).
        self._carried: dict[str, list[str]] | None = None
        self._carried_lock = threading.Lock()

    def __repr__(self) -> str:
        return "<PrivateApi /api/private/v1>"

    # ------------------------------------------------------------------ plumbing

    @property
    def _workers(self) -> int:
        return self._t.settings.max_workers

    def _progress(self, progress: bool | None) -> bool | None:
        return self._t.settings.progress if progress is None else progress

    def _request(
        self,
        method: str,
        path: str,
        kind: str,
        refresh: bool = False,
        cache: bool = True,
        deadline: Any = None,
        **payload: Any,
    ) -> Response:
        """``method`` on ``path`` under the prefix; ``payload`` is ``params=`` or ``json=``."""
        extra = {} if deadline is None else {"deadline": deadline}
        return self._t.request(
            "private",
            method,
            f"{PREFIX}{path}",
            kind=kind,
            refresh=refresh,
            cache=cache,
            **payload,
            **extra,
        )

    @staticmethod
    def _entity(entity: str) -> str:
        name = _ENTITY_ALIASES.get(entity, entity) if isinstance(entity, str) else entity
        return choice(name, "entity", ENTITIES)  # an alias maps to an entity: never refused

    def schema(
        self,
        entity: str,
        *,
        refresh: bool = False,
        cache: bool = True,
        deadline: float | None = None,
        retries: int | None = None,
    ) -> FilterSchema:
        """The filter schema of ``entity`` from its discovery document (cached per client).

        Parameters
        ----------
        entity : {"companies", "investors", "transactions"}
        refresh : bool, default False
            Read the discovery document again instead of the client's copy (and overwrite
            the HTTP cache's).
        cache : bool, default True
            Read and write the discovery document in the HTTP cache (False: neither read nor
            write it; the client's own copy is still used and kept).
        deadline : float, optional
            The deadline (``time.monotonic()`` seconds) of the call that asks (the
            transport's call budget); None for a call of its own.
        retries : int, optional
            Retries of the discovery read after its first attempt; None for the client's
            ``retries``. ``0``: one attempt, whose failure is raised at once (no backoff, no
            ``Retry-After`` waited out).

        Returns
        -------
        FilterSchema
            The filters, their operators and values, the sort keys and sub-resources.

        Raises
        ------
        ValidationError
            An unknown ``entity``, a ``deadline`` that is not a finite number of seconds, or
            ``retries`` that is no count (nothing is sent; also when the client holds the
            schema and would send nothing).

        Notes
        -----
        A list call checks its filter values first against what the interface document
        fixes (section 4.4: types, the form of dates, numbers, UUIDs), before any request,
        this read included; then against this document for what only the service knows
        (filter names beyond the interface document's, operators, enum values), read first
        when the client holds no copy. A documented filter keeps the interface document's
        type even where this document types it otherwise (warned when it is read).

        Examples
        --------
        >>> client.private.schema("companies").sub_resource("sellside")
        'sellside'
        """
        entity = self._entity(entity)
        if deadline is not None:
            deadline = finite_number(deadline, "deadline", "a finite number of seconds or None")
        if retries is not None:  # checked whether or not a request is sent
            retries = integer_in(retries, "retries", 0, None, "a count of retries (0 or more)")
        with self._lock:
            cached = self._schemas.get(entity)
        if cached is not None and not refresh:
            return cached
        response = self._request(
            "GET", f"/lookup/{entity}", "discovery", refresh, cache, deadline, retries=retries
        )
        schema, _ = self._discovery(entity, response)
        with self._lock:
            self._schemas[entity] = schema
        return schema

    def _listing_document(self, frame: pd.DataFrame, answer: str) -> FilterSchema | None:
        """The transactions discovery document to tell known deal types and subtypes of the
        rows of ``answer`` by (:func:`_document_values`): the one the client holds; when it
        holds none and ``frame`` carries a value the interface document does not list, the
        service's, read once (:meth:`schema`: kept for later calls), so a value the service's
        own document lists is known whichever call ran first. Best effort, one attempt: when
        that read fails, None (the value is said against the interface document's list), and
        it is not asked again by later calls (a call's filters still read it as they must).
        The usual rows (every value listed) read nothing."""
        with self._lock:
            held = self._schemas.get("transactions")
            failed = self._listing_failed
        if held is not None or failed or not _beyond_document(frame, answer):
            return held
        try:
            return self.schema("transactions", retries=0)
        except DealframeError:
            with self._lock:
                self._listing_failed = True  # said against the interface document's list
            return None

    def _discovery(self, entity: str, response: Response) -> tuple[FilterSchema, Any]:
        """The filter schema of a discovery answer, and its ``data``. An answer that is not a
        discovery document (``data`` null, no list of filters) is the service's fault: its
        HTTP cache entry is dropped and ``ServiceContractError`` raised, carrying the
        discovery request (``.request``, as a failed request's error does), so the client
        keeps no copy and the next call asks again. The error leaves this frame without the
        document: a traceback that records locals would show a token the service echoed."""
        doc = response.json().get("data")
        try:
            schema = FilterSchema(entity, doc, response.request)
        except ServiceContractError:
            self._t.forget(response)
            del doc
            raise
        return schema, doc

    def _build_filters(
        self,
        entity: str,
        filters: Mapping[str, Any] | None,
        kwargs: Mapping[str, Any],
        deadline: Any = None,
        *,
        refresh: bool = False,
        cache: bool = True,
    ) -> tuple[FilterSchema, dict[str, Any]]:
        """The schema of ``entity`` and ``filters`` with ``kwargs`` built for the wire; the
        discovery document is read as the call asks (``refresh``, ``cache``).

        :func:`~dealframe.private.filters.service_decides`: before the client holds the
        service's discovery document (or with ``refresh``), the values are first checked
        against the document it holds or the interface document's own (section 4.4:
        :func:`~dealframe.private.filters.documented_schema`), and what that refuses is raised
        at once, nothing sent; then the service's document decides what only it knows: its
        filter names beyond the interface document's, operators and enum lists (read again
        once on a value outside a list: they grow)."""
        if filters is not None and not isinstance(filters, Mapping):
            raise ValidationError("filters", "a dict of filter names to values", got=filters)
        with self._lock:
            held = self._schemas.get(entity)
        # read once: a generator would be empty for the second check (service_decides); one
        # given to a filter of one value is left for the check to refuse (it may never end)
        typed = [documented_schema(entity)] if held is None else [documented_schema(entity), held]
        raw, named = materialised(filters or {}, *typed), materialised(kwargs, *typed)
        merged = merged_filters(raw, named, *typed)
        offline = None if held is not None and not refresh else held or documented_schema(entity)

        def read(again: bool, retries: int | None) -> FilterSchema:
            return self.schema(
                entity, refresh=again, cache=cache, deadline=deadline, retries=retries
            )

        return service_decides(
            read,
            # a filter given twice compared again as the service's document sends it (its
            # operators may differ from the one checked first; one it does not list, as the
            # documents checked first do): never one form lost unsaid
            lambda schema: schema.build(merged_filters(raw, named, *typed, schema)),
            None if offline is None else lambda: offline.precheck(merged),
            refresh=refresh,
        )

    # ------------------------------------------------------------------ discovery

    def lookup(self, entity: str, *, refresh: bool = False) -> pd.DataFrame:
        """The discovery document of ``entity`` as a frame (one row per filter).

        Parameters
        ----------
        entity : {"companies", "investors", "transactions"}
        {refresh}

        Returns
        -------
        pandas.DataFrame
            Columns field, type, operators, values, description; sort keys,
            sub-resources and (transactions) the aggregate methodology in ``attrs``.

        Examples
        --------
        >>> client.private.lookup("transactions").set_index("field").loc["deal_type", "values"]
        '["Early","Growth","M&A","Public listing","Secondary","Venture"...]'
        """
        entity = self._entity(entity)
        response = self._request("GET", f"/lookup/{entity}", "discovery", refresh)
        schema, doc = self._discovery(entity, response)
        with self._lock:
            self._schemas[entity] = schema
        endpoint = f"GET {PREFIX}/lookup/{entity}"
        with shaping(response.request, endpoint):  # the service's document, not an argument
            frame = shape.lookup_frame(doc)
        return attach(frame, endpoint=endpoint, responses=[response])

    # ------------------------------------------------------------------ lists

    def _page_size(self, sub: bool) -> int:
        """Rows per page this client asks for: of its sub-collection reads with ``sub``, else
        of its lists (and of the mirror's change feed)."""
        return self._sub_page_size if sub else self._list_page_size

    def _set_page_size(self, sub: bool, size: int) -> None:
        """Set :meth:`_page_size` (under ``self._lock``)."""
        if sub:
            self._sub_page_size = size
        else:
            self._list_page_size = size

    def _lower(self, sub: bool, size: int) -> int | None:
        """Lower :meth:`_page_size` to ``size``: the size it was when lowered, None when it
        was already no larger (another walk lowered it first)."""
        with self._lock:
            now = self._page_size(sub)
            if size >= now:
                return None
            self._set_page_size(sub, size)
            return now

    def _page_refused(
        self,
        error: ApiError,
        sent: int,
        *,
        sub: bool = False,
        body: int = 0,
        lowered: list[tuple[int, int]] | None = None,
    ) -> str | None:
        """A page asked with ``limit=sent`` was refused with ``error``: when the error is
        about the page size (:func:`smaller_page`, told the request's ``body`` bytes besides
        ``limit``), lower the page size of this client's list calls (and of the mirror's
        change feed), or with ``sub`` that of its sub-collection reads (a bound of their own),
        to the bound it states (else half of ``sent``) and return what to say of it; None for
        any other refusal. ``lowered`` is told ``(size before, size set)`` when it lowered."""
        smaller = smaller_page(error, sent, body=body)
        if smaller is None:
            return None
        was = self._lower(sub, smaller)
        if was is not None and lowered is not None:
            lowered.append((was, smaller))
        return f"limit {sent} refused ({error}): pages of {smaller}"

    def _walk(
        self,
        read: Callable[[int], Pages[Any]],
        cap: int | None,
        said: Callable[[int, str], Any],
        *,
        sub: bool = False,
        body: Mapping[str, Any] | None = None,
    ) -> Pages[Any]:
        """``read(size)`` with this client's page size (of sub-collections with ``sub``). A
        page 1 refused for its ``limit`` (:func:`smaller_page`; a 413 is about the page when
        the list ``body``, its filters and sort, is small, or for a GET: None) lowers it to
        the bound the refusal states, else half; ``said(sent, note)`` is told, and the walk
        starts again. A refusal stating a bound that is refused again, at that bound, in the
        same words is about something else (``too many values in filter: the limit is 500``):
        it is raised in the service's words alone. A refusal it cannot adapt to is raised:
        about the page size with no
        smaller page left, naming the open point of the interface document
        (:func:`~dealframe.private.page_size.open_point`), and so, as a may-be, when its words
        say nothing but its status (:func:`~dealframe.private.page_size.vague`); in the
        service's words alone otherwise. The page size this walk lowered is then put back as
        it found it, unless another walk (a sub-collection read of another id, on another
        thread) has set it since: what that walk learned stays."""
        lowered: list[tuple[int, int]] = []  # (size before, size set) by this walk
        stated: str | None = None  # the words of the last refusal, when they stated a bound
        while True:
            size = self._page_size(sub)
            try:
                return read(size)
            except ApiError as exc:  # page 1 refused (400, 413, 422): is it its limit?
                if exc.status not in TOO_LARGE:
                    raise
                sent = min(size, cap) if cap else size
                nbytes = 0 if body is None else len(orjson.dumps(body, default=str))
                words = refusal_words(exc)
                # refused again, at the bound it stated, in the same words: not about the page
                again = words == stated
                note = (
                    None
                    if again
                    else self._page_refused(exc, sent, sub=sub, body=nbytes, lowered=lowered)
                )
                if note is not None:
                    said(sent, note)
                    stated = words if stated_bound(exc, sent) is not None else None
                    continue
                with self._lock:  # the service refuses alike at the sizes this walk set
                    if lowered and self._page_size(sub) == lowered[-1][1]:
                        self._set_page_size(sub, lowered[0][0])
                if again:
                    raise  # in the service's words: the bound it states is of something else
                if about_page(exc, sent, nbytes):  # refused down to one row
                    exc.with_note(open_point(sent, sub=sub))
                elif vague(exc):  # words of its status alone: it may be about the page size
                    exc.with_note(open_point(sent, sub=sub, sure=False))
                raise  # any other words are the service's, about something else

    def _pull_list(
        self,
        entity: str,
        wire: dict[str, Any],
        sort: str | None,
        limit: int | None,
        parse: ListParse,
        progress: bool | None,
        refresh: bool,
        cache: bool,
        deadline: Any,
        found: Findings,
        *,
        key: str | None,
    ) -> _Pulled:
        """The pages of a list; the filter of ids ``key`` (:func:`batched_filter`) goes in
        batches of :data:`IDS_PER_BATCH` ids, every other filter whole with each batch.

        A lookup by ``id`` reads each batch whole, so the ids it did not return are known
        exactly. A batch of another filter (``target_id``, ``investor_id`` ...) is a union:
        a row may match ids of several batches (a deal of two investors), so the caller cuts
        the union to ``limit`` once it is de-duplicated. With ``sort``, each such batch is
        read up to ``limit`` rows (the first rows of the order are among the first rows of
        some batch), and every batch is read. Without ``sort``, a batch is read until the
        distinct rows of the batches so far (:class:`Distinct`) reach ``limit``, or up to
        ``limit`` rows of its own (asked for only the rows still wanted, it would come up
        short by the rows it shares with earlier batches; past the rows still wanted, its
        rows are cut away); batches stop once the rows read reach ``limit``, and the ids of
        the batches not sent are not looked up. ``total`` is then unknown (None), as when a
        batch was cut by ``limit`` (or stopped once enough rows were read) or a page of it
        failed.

        Once a batch has arrived, a later batch whose first page fails for good (a 5xx, a
        429 or a timeout after its retries, an expired token) ends the call: it and every
        batch left are failures with that error, named by the ids they hold
        (``investor_id ids 1001-1449``, :func:`batch_name`), so the caller raises
        :class:`~dealframe.errors.IncompleteResultError` (an expired token's
        :class:`~dealframe.errors.AuthenticationError` as itself) carrying the batches that
        arrived. A page that fails past a batch's first is named with its batch
        (``investor_id ids 1001-1449 page 2``) when there are several, as are the findings
        of its pages. Nothing arrived yet, or a 400 (about what the batch holds): the error
        is raised as itself.

        A lookup by ``id`` says which ids it looked up whole (``looked_up``): those the rows
        lack are known to be absent. Alone, they are the ids of each batch every page of
        which arrived; beside another filter's batches (each sent with every id: any batch
        may hold any of them), every id once every batch arrived whole, else none.
        """
        kind = "changefeed" if "updated_at" in wire else "list"
        head = {} if sort is None else {"sort": sort}
        refused: list[str] = []  # this call's refusals of a page size (said in its attrs)
        zero: list[str] = []  # how the service was seen to count from 0 (said in its attrs)
        labelled: list[tuple[str, int, frozenset[str]]] = []  # the pages of batches of ids
        ids_of: list[list[str]] = []  # ... and the ids of each one's batch
        # the service's number of its first page, as this client knows it (0 only once seen)
        numbering = Numbering(self._first_page, self._first_page == 0 or self._first_page_known)

        def pull(
            filters: dict[str, Any],
            cap: int | None,
            enough: Distinct | None = None,
            batch: str | None = None,
        ) -> Pages[Any]:
            """Every page of one list request (``cap`` rows at most, or until ``enough``),
            checked and parsed; what its pages are found to say is named with its ``batch``
            of ids when there are several (``... investor_id ids 1001-1449 page 2``)."""
            told = found if batch is None else Findings(f"{found.where} {batch}")
            try:
                return walk(filters, cap, enough, told)
            finally:
                if told is not found:
                    found.absorb(told.items)

        def walk(
            filters: dict[str, Any], cap: int | None, enough: Distinct | None, told: Findings
        ) -> Pages[Any]:
            """:func:`pull`'s pages, its findings added to ``told``."""
            body = {"filters": filters, **head}

            def paged(number: int | None, size: int) -> dict[str, Any]:
                """The body asking for the service's page ``number`` (None: its first)."""
                return (
                    {**body, "limit": size}
                    if number is None
                    else {**body, "page": number, "limit": size}
                )

            def fetch(page: int, size: int) -> Response:
                """The walk's page ``page``: page 1 without ``page`` (the documented
                ``{filters, sort, limit}``, which any service answers with its first page
                however it counts; section 4.2 shows no ``page``, and one may refuse it), the
                later ones counted the service's way (:meth:`Numbering.number`)."""
                asked = paged(numbering.number(page), size)
                return self._request(
                    "POST", f"/{entity}", kind, refresh, cache, deadline, json=asked
                )

            def stored(page: int, size: int) -> Response | None:
                return self._t.cached(
                    "private",
                    "POST",
                    f"{PREFIX}/{entity}",
                    json=paged(numbering.number(page), size),
                    kind=kind,
                )

            pages = self._walk(
                lambda size: pull_pages(
                    fetch,
                    limit=cap,
                    workers=self._workers,
                    progress=self._progress(progress),
                    desc=entity,
                    parse=parse.page,
                    pool=self._t.pool,
                    found=told,
                    page_size=size,
                    lookup=stored if cache and not refresh else None,
                    reader=parse.reader,
                    numbering=numbering,
                    enough=enough,
                ),
                cap,
                lambda sent, note: refused.append(note),
                body=body,
            )
            if numbering.said is not None:  # this call found the service counting from 0
                zero[:] = [numbering.said]  # (once, whatever batch of ids found it)
            elif numbering.known and numbering.first == 1:  # later walks need not ask
                self._first_page, self._first_page_known = 1, True
            return pages

        def said(
            pages: Pages[Any],
            expected: int | None,
            total: int | None,
            looked_up: list[str] | None = None,
            batches: list[int] | None = None,
            caps: list[int | None] | None = None,
            held: list[int | None] | None = None,
        ) -> _Pulled:
            """What was pulled, with what this call met on the way."""
            notes = _said_once(refused), _said_once(zero)
            union = None if key == "id" else key
            parts = labelled or None
            return _Pulled(
                pages,
                expected,
                total,
                looked_up,
                batches,
                *notes,
                union,
                caps,
                held,
                parts,
                ids_of if parts else None,
            )

        if key is None:
            pages = pull(dict(wire), limit)
            return said(pages, pages.expected, pages.total)
        ids = id_values(wire[key]) or []
        # a lookup by id (the key, or an id filter beside another key) reads each batch
        # whole: the ids it did not return are then known exactly
        exact = "id" in wire
        # another filter's batches may share rows: the rows read so far are counted distinct
        union = key != "id"
        merged: Pages[Any] = Pages([], [], None, None, 0)
        expected: int | None = 0
        total: int | None = 0
        looked_up: list[str] = []  # of a lookup by id alone: the batches that arrived whole
        batches: list[int] = []
        caps: list[int | None] = []
        held: list[int | None] = []
        # with limit and no sort, batches stop once it is reached (but for a lookup by id
        # beside another filter of ids: every batch, read whole, tells which ids came back)
        stops = limit is not None and sort is None and not (union and exact)
        # ... and a union's batch once the distinct rows read reach it
        counter = Distinct(limit) if stops and union and limit is not None else None
        several = len(ids) > IDS_PER_BATCH

        def whole() -> list[str] | None:
            """The ids looked up whole, for a lookup by id (None for any other call)."""
            if not exact:
                return None
            if not union:
                return looked_up
            return [] if merged.failed else list(id_values(wire["id"]) or [])

        for start in range(0, len(ids), IDS_PER_BATCH):
            seen = merged.rows if counter is None else counter.rows  # distinct over batches
            if stops and limit is not None and seen >= limit:
                return said(merged, expected, None, whole(), batches, caps, held)
            batch = ids[start : start + IDS_PER_BATCH]
            # a union batch is asked for ``limit`` rows, with sort or without: some of its
            # rows may be ones an earlier batch holds (the union is cut once de-duplicated)
            cap = None if exact or limit is None else limit
            try:
                name = batch_name(key, start, len(ids)) if several else None
                pages = pull({**wire, key: with_ids(wire[key], batch)}, cap, counter, name)
            except (ApiError, TransportError) as exc:
                # nothing arrived, or a refusal of what this batch holds: the error as itself
                if not batches or isinstance(exc, BadRequestError):
                    raise
                # the batches that arrived are kept; this batch and every one left are
                # failures with this error (a 5xx or timeout after its retries, a token that
                # expired part-way): the caller raises it carrying them
                merged.failed += [
                    ItemFailure(at // IDS_PER_BATCH, batch_name(key, at, len(ids)), exc)
                    for at in range(start, len(ids), IDS_PER_BATCH)
                ]
                merged.expected = merged.total = None
                return said(merged, None, None, whole(), batches, caps, held)
            merged.parts += pages.parts
            merged.infos += pages.infos
            if name is not None:  # a page part named with its batch, as its findings are
                labelled.extend(page_parts(pages.infos, f"{name} "))
                ids_of.extend([list(batch)] * len(pages.infos))
            merged.moved = pages.moved or merged.moved
            merged.keys |= pages.keys
            merged.failed += (
                pages.failed if name is None else [in_batch(f, name) for f in pages.failed]
            )
            merged.size = pages.size
            expected = (
                None if expected is None or pages.expected is None else expected + pages.expected
            )
            # a batch cut by ``limit``, or with pages that failed: the union's size is unknown
            cut = cap is not None and (pages.total is None or pages.total > cap)
            cut = cut or (union and bool(pages.failed))
            cut = cut or (pages.enough and pages.rows < (pages.total or 0))
            total = None if total is None or pages.total is None or cut else total + pages.total
            if not union and not pages.failed:  # a failed page may have held any of its ids
                looked_up += batch
            batches.append(pages.rows)
            caps.append(cap)
            held.append(min(pages.rows, pages.expected or 0) if pages.held else None)
        merged.expected, merged.total = expected, total
        return said(merged, expected, total, whole(), batches, caps, held)

    def _list(
        self,
        entity: str,
        method: Callable[..., Any],
        arguments: Mapping[str, Any],
        *,
        hint: bool = True,
    ) -> pd.DataFrame:
        """The rows of the list ``method`` of ``entity`` asks for: ``arguments`` is its
        ``locals()`` (its filters, and how to pull them). Without ``hint`` an empty answer
        is not hinted at (:meth:`_hint_open_values`): :meth:`_probe`."""
        filters, sort, limit = arguments["filters"], arguments["sort"], arguments["limit"]
        strict, progress = arguments["strict"], arguments["progress"]
        refresh, cache = arguments["refresh"], arguments["cache"]
        if limit is not None:  # any integral number (numpy's too), never a boolean
            limit = integer_in(limit, "limit", 1, None)
        # one budget for the whole call, discovery included (and a caller's own, when given:
        # deals(with_investors=True) reads the single forms within it too)
        deadline = arguments["deadline"] if "deadline" in arguments else self._t.deadline()
        sort_form(sort)  # its form before any request, the discovery read included
        schema, wire = self._build_filters(
            entity, filters, _given(method, arguments), deadline, refresh=refresh, cache=cache
        )
        sort = schema.check_sort(sort)
        key = batched_filter(schema, wire)  # before any list request: two over are refused
        endpoint = f"POST {PREFIX}/{entity}"
        found = Findings(endpoint)
        # each page read and its rows made columns at once (its JSON freed), then joined
        parse = ListParse(entity, found, RequestInfo("POST", f"{PREFIX}/{entity}", "private"))
        pulled = self._pull_list(
            entity,
            wire,
            sort,
            limit,
            parse,
            progress,
            refresh,
            cache,
            deadline,
            found,
            key=key,
        )
        pages = pulled.pages
        # what the readers say of values is said of the rows returned alone (not of those
        # past ``limit``, nor of a repeat dropped): kept back by row until they are known
        names = None
        if pulled.parts is not None and pulled.ids_of is not None:
            names = [(part[0], ids) for part, ids in zip(pulled.parts, pulled.ids_of, strict=True)]
        unread: Unread | None = None  # items that cannot be read: the rest is the partial
        try:
            frame, later = parse.frame(pages.parts)
        except ServiceContractError as exc:
            unread = (
                None if exc.finding != "wrong_shape" else parse.unreadable(exc, pages.parts, names)
            )
            if unread is None:  # values of one member typed differently from page to page
                raise
            # the frame of what reads, built and cut as the call's frame is (each row's
            # place among the rows that arrived kept): a union's batches lose those rows
            if pulled.batches is not None:
                pulled = pulled._replace(batches=unread.less(pulled.batches))
            try:
                frame, later = parse.frame([each for pieces in unread.parts for each in pieces])
            except ServiceContractError:  # the rest typed differently from page to page
                pages.raise_for_failures(None, counts=(pulled.expected, 0), unread=unread.said)
                raise
        del pages.parts[:]
        received = len(frame)
        # each row's position in the frame built, cut and ordered as the rows are: what is
        # said of values is said of the rows returned alone (the copy of a repeat kept)
        at = np.arange(received)
        batches, total, counted, shared = pulled.batches, pulled.total, None, 0
        if pulled.union is not None and batches is not None and sum(batches) == received:
            # a row of several batches (a deal of investors of two batches) is kept once,
            # and is no repeat of the service: each batch is counted against its own total
            overlap = batch_overlap(frame, batches)
            caps = pulled.caps or [None] * len(batches)
            counted = rows_counted(overlap.distinct, caps, pulled.held or [None] * len(batches))
            shared = overlap.shared
            if overlap.later.any():
                frame = frame.loc[~overlap.later].reset_index(drop=True)
                at = at[~overlap.later]
                batches = overlap.kept
        if pulled.union is not None:
            # the union's rows are the batches' totals less their overlap, known only when
            # every batch arrived whole (no page failed, no row the service left out or added)
            whole = counted is not None and counted == pulled.expected
            total = total - shared if whole and total is not None else None
        if sort is not None and batches is not None and len(batches) > 1:
            frame, at = _carried(lambda f: merge_batches(f, batches, sort, found), frame, at)
        absent = missing_fields(  # of all pages, and of each (a field renamed on one page)
            pages.keys,
            entity,
            found,
            n_items=received + (0 if unread is None else len(unread.removed)),
            parts=pulled.parts or page_parts(pages.infos),
        )
        frame, at = dedupe_at(frame, "id", found, at, newest="updated_at")
        duplicates = received - shared - len(frame)
        arrived = len(frame)
        frame, at = _carried(lambda f: drop_outside(f, wire, schema, found), frame, at)
        # the rows of the first ``limit`` places: an item that cannot be read keeps its place
        # (rows merged from several batches by the sort: the place of an unreadable one is
        # unknown, its value perhaps the sort's, and the first ``limit`` of those that read
        # are the partial)
        merged = sort is not None and batches is not None and len(batches) > 1
        room = limit if limit is None or unread is None or merged else limit - unread.before(limit)
        if pulled.looked_up is None and room is not None and len(frame) > room:
            frame = frame.iloc[:room].reset_index(drop=True)  # the last page may overshoot
            at = at[:room]
        # rows that arrived, before any were dropped as outside the filters (of a union's
        # batches: those of each batch, up to what was asked of it)
        distinct = (
            counted
            if counted is not None
            else arrived
            if pulled.looked_up is not None or limit is None
            else min(arrived, limit)
        )
        missing: list[str] | None = None
        if pulled.looked_up is not None:
            returned = set(frame["id"].tolist())
            returned |= set() if unread is None else set(unread.ids)  # arrived, unreadable
            missing = [i for i in pulled.looked_up if i not in returned]
            if sort is None:  # without a sort, rows follow the ids asked for
                order = {i: n for n, i in enumerate(id_values(wire["id"]) or [])}
                sorted_at = frame["id"].map(order).argsort(kind="stable").to_numpy()
                frame, at = frame.iloc[sorted_at], at[sorted_at]
            frame, at = frame.iloc[:room].reset_index(drop=True), at[:room]
        say_kept(found, later, rows_kept(received, at))
        # of the rows returned: a null cut away by ``limit`` is not the user's to look for
        null_fields(frame, entity, found, missing=absent)
        # a region, a country, a deal type outside the document (or the discovery list held)
        _document_values(frame, entity, found, self._listing_document(frame, entity))
        if pulled.zero is not None and distinct == pulled.expected and not duplicates:
            # a page=1 of new rows, and the rows add up: later calls count from 0 too
            self._first_page = 0
        if not pages.failed and unread is None:
            capped = "" if limit is None else " (capped by limit)"
            if any(n is not None for n in pulled.held or []):  # a batch stopped part-way
                capped = " (capped by limit and by the pages read)"
            # repeats are rows moving between the pages of one walk (of a batch): not
            # between batches, nor within a page, nor of id lookups
            paged = pulled.looked_up is None and any(i.page > 1 for i in pages.infos)
            say_count(
                found,
                pulled.expected,
                distinct,
                pages.size,
                moved=pages.moved,
                repeated=duplicates if paged else 0,
                capped=capped,
            )
        truncated = limit is not None and (total is None or total > limit)
        attach(
            frame,
            endpoint=endpoint,
            responses=pages.infos,
            rows_expected=pulled.expected,
            rows_received=received,
            rows_total=total,
            truncated=truncated,
            duplicates_removed=duplicates,
            **({} if pulled.union is None else {"batch_overlap": shared}),
            filters=wire,
            sort=sort,
            page_size=pages.size,
            findings=found.records(),
            **({} if missing is None else {"missing_ids": missing}),
            **({} if pulled.refused is None else {"page_size_refused": pulled.refused}),
            **({} if pulled.zero is None else {"page_from_0": pulled.zero}),
        )
        # a union's batches share rows: once a page failed or came short, the rows it should
        # have had are unknown (so are the rows they shared), and those that arrived are the
        # partial's; the pages' own counts hold each shared row once a batch
        union = None if pulled.union is None else (None, len(frame))
        # the rows a lookup by ids should return: as many as were found, up to ``limit``
        wanted = pulled.expected
        if wanted is not None and limit is not None:
            wanted = min(wanted, limit)
        if unread is not None:
            profiles: DealframeError | None = None  # single forms that failed
            if arguments.get("with_investors"):  # the partial completed as the frame is
                try:
                    frame = self._with_profiles(
                        frame,
                        strict=strict,
                        progress=progress,
                        refresh=refresh,
                        cache=cache,
                        deadline=deadline,
                    )
                except DealframeError as failed:  # what they gave, the failed ones named
                    profiles = failed
                    completed = getattr(failed, "partial", None)
                    if isinstance(completed, pd.DataFrame):
                        frame = completed
            if not len(frame) and profiles is None and not pages.failed:
                raise unread.named from None  # nothing else arrived: the item's error alone
            came = received + len(unread.removed)
            expected = wanted
            if expected is None:  # the rows that arrived (up to ``limit``)
                expected = came if limit is None else min(came, limit)
            try:
                pages.raise_for_failures(
                    frame,
                    counts=union or (expected, len(frame)),
                    unread=unread.said,
                    also=None if profiles is None else _failed_of(profiles),
                )
            except DealframeError as error:  # the single forms' notes (404s) said too
                for note in [] if profiles is None else _notes_of(profiles):
                    error.add_note(note)
                raise
        lookup = pulled.looked_up is not None and limit is not None and union is None
        pages.raise_for_failures(frame, counts=(wanted, len(frame)) if lookup else union)
        expected, received = (pulled.expected, distinct) if union is None else union
        found.report(strict=strict, partial=frame, expected=expected, received=received)
        if missing:
            _report_missing_ids(entity, wire, pulled.looked_up or [], missing, frame, strict)
        if not len(frame) and hint:
            self._hint_open_values(entity, wire, deadline)
        return frame

    def _probe(self, entity: str, method: Callable[..., Any], **named: Any) -> pd.DataFrame:
        """The first row (``limit=1``, no progress bar) of the list ``method`` of ``entity``
        that matches the filter keywords ``named``: a question the client asks for a check
        of its own (:func:`~dealframe.comparison.compare_multiples`: does any deal carry this
        vertical?). An empty answer is not hinted at as the user's own call's is
        (:meth:`_hint_open_values`): the check says what it means, naming the caller's own
        argument. A parameter of this call, not a warnings filter (process-wide, so it would
        silence other threads' warnings too)."""
        arguments = dict.fromkeys(_filter_names(getattr(method, "__func__", method)))
        arguments.update(filters=None, sort=None, limit=1, strict=False, progress=False)
        arguments.update(refresh=False, cache=True, **named)
        return self._list(entity, method, arguments, hint=False)

    def _hint_open_values(self, entity: str, wire: Mapping[str, Any], deadline: Any) -> None:
        """After an empty answer: warn of each open-vocabulary value (``verticals``,
        ``target_themes``...) or exact label (``ownership``: ``publicly listed`` for
        ``Publicly listed``) that no company of one page carries while a close spelling is
        carried (the service matches them exactly, so ``fintech`` selects nothing). The
        carried values are read once per client (:meth:`_carried_values`)."""
        given = open_values(entity, wire)
        carried = self._carried_values(deadline) if given else None
        for message in unmatched_open_values(given, [carried] if carried else []):
            warnings.warn(message, MissingDataWarning, stacklevel=user_stacklevel())

    def _carried_values(self, deadline: Any) -> dict[str, list[str]] | None:
        """The open-vocabulary values (:data:`~dealframe.private.hints.OPEN_LISTS`) and exact
        labels (:data:`~dealframe.private.hints.EXACT_LABELS`) the
        companies of one page of :data:`HINT_PAGE` carry, by field; None when that page could
        not be read (the hint is left, the answer stands).

        The page is a sample: read once per client and kept for its later empty answers (a
        loop over 50 verticals reads one page, not 50). Its request is one attempt of at
        most :data:`~dealframe.public.hints.HINT_SECONDS`, within the call's ``deadline``: a failure (a 429, a 5xx,
        a timeout) is neither retried nor waited out (``Retry-After``, backoff), nor is it
        sent while a 429 holds this client's calls back; a page that failed is asked for
        again at the next empty answer.
        """
        with self._carried_lock:  # one page read, whichever thread's answer is empty first
            if self._carried is not None:
                return self._carried
            if self._t.gate.remaining("private") or self._t.gate.held("private")[0]:
                return None  # the service asked this client to wait: no hint
            until = time.monotonic() + HINT_SECONDS
            until = until if deadline is None else min(until, deadline)
            with contextlib.suppress(DealframeError):  # only a hint: never worth the answer
                response = self._request(  # not cached: its answer is not checked as a call's
                    "POST",
                    "/companies",
                    "list",
                    False,
                    False,
                    until,
                    json={"limit": HINT_PAGE},
                    retries=0,
                )
                companies = read_items(response.json(), Findings(f"POST {PREFIX}/companies"))
                self._carried = self._values_by_field(companies)
            return self._carried

    @staticmethod
    def _values_by_field(companies: Iterable[Any]) -> dict[str, list[str]]:
        """The values of each open-vocabulary field and exact label the ``companies`` carry,
        sorted.

        Examples
        --------
        >>> got = PrivateApi._values_by_field([{"verticals": ["b", "a"]}, {"verticals": None}])
        >>> got["verticals"], got["themes"], got["ownership"]
        (['a', 'b'], [], [])
        """
        companies = list(companies)
        return {field: carried_values(companies, field) for field in (*OPEN_LISTS, *EXACT_LABELS)}

    def page(
        self,
        entity: str,
        filters: Mapping[str, Any] | None = None,
        *,
        sort: str | None = None,
        page: int = 1,
        limit: int = 100,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """One page of a list, exactly as the service pages it (no automatic pagination).

        For callers that page themselves, such as a change-feed walk; most users want
        :meth:`companies`, :meth:`investors` or :meth:`deals`, which fetch every page.

        Parameters
        ----------
        entity : {"companies", "investors", "transactions"}
        filters : dict, optional
            Filters by discovery name (``{"updated_at": ..., "include_deleted": True}``),
            validated as in :meth:`deals`.
        sort : str, optional
            ``"<key>:asc"`` or ``"<key>:desc"``.
        page : int, default 1
            The page number as the service counts it: from 1 (the sandbox), or from 0 for a
            service that does (the document does not say for POST lists).
        limit : int, default 100
            Rows per page, 1 to 1000 (a service may serve fewer: ``attrs["limit"]``).
        strict : bool, default False
            Raise :class:`~dealframe.errors.ServiceContractError` instead of warning
            when the page contradicts its own ``meta`` or holds rows outside the filters
            sent (see :mod:`dealframe.contract`).
        {refresh}
        {cache}

        Returns
        -------
        pandas.DataFrame
            The page's rows; ``attrs`` also holds the pagination meta (``page``, ``limit``,
            ``returned``, ``total``, ``has_more``), and ``absent``: the documented fields some
            items lacked (absent, not null: their columns are null in those rows), each with
            the ids of those rows (``{}`` when every item held every field). Rows outside
            the filters sent (a service that ignored one; a deleted row without
            ``include_deleted``) are dropped with an ``unrequested`` finding, as the list
            calls drop them: the frame may then hold fewer rows than ``returned`` says.
            Rows below ``updated_at`` are kept, said in an ``unrequested`` finding of their
            own: a change-feed walk reads them as the service ignoring its cursor (dropped,
            the page would look like the feed's end).

        Examples
        --------
        >>> first = client.private.page("transactions", sort="updated_at:asc", limit=100)
        >>> first.attrs["returned"], first.attrs["total"], first.attrs["has_more"]
        (100, ..., True)
        """
        entity = self._entity(entity)
        page = integer_in(page, "page", 0, None)
        limit = integer_in(limit, "limit", 1, SUBCOLLECTION_LIMIT_MAX)
        sort_form(sort)  # its form before any request, the discovery read included
        schema, wire = self._build_filters(entity, filters, {}, refresh=refresh, cache=cache)
        body: dict[str, Any] = {"filters": wire, "page": page, "limit": limit}
        sort = schema.check_sort(sort)
        if sort is not None:
            body["sort"] = sort
        kind = "changefeed" if "updated_at" in wire else "list"
        response = self._request("POST", f"/{entity}", kind, refresh, cache, json=body)
        endpoint = f"POST {PREFIX}/{entity}"
        found = Findings(f"{endpoint} page {page}")
        read = read_page(  # the page's place in its query, as this client counts pages
            response.json(),
            found,
            number=page,
            where=found.where,
            asked=limit,
            index=page - self._first_page,
        )
        if read.page is not None and read.page != page:  # as a list walk says it
            say_wrong_page(found, page, read.page, None)
        identities(read.items, "id", found)
        with shaping(response.request, endpoint, found), rows_said_later() as later:
            frame = shape.list_frame(entity, [shape.list_page_columns(entity, read.items)])
        missing_fields(keys_present(read.items), entity, found, n_items=len(read.items))
        built = len(frame)
        lacking = _absent_keys(read.items, entity) if built == len(read.items) else {}
        frame, at = dedupe_at(frame, "id", found, np.arange(built), newest="updated_at")
        # rows the filters sent exclude (a service that ignored one): dropped, as lists do;
        # but for ``updated_at``, the cursor of a change-feed walk: a row below it is how the
        # walk tells a service ignoring the filter (dropped, the page would read as the end),
        # kept and said
        frame, at = _carried(
            lambda f: drop_outside(f, wire, schema, found, keep=("updated_at",)), frame, at
        )
        absent: dict[str, list[Any]] = {}  # documented field -> ids of the items lacking it
        if lacking:
            ids = frame["id"].to_numpy(dtype=object)
            absent = {name: ids[lacks[at]].tolist() for name, lacks in lacking.items()}
        say_kept(found, later, rows_kept(built, at))  # of the rows returned alone (the copy kept)
        # a region, a country, a deal type outside the document (or the discovery list held)
        _document_values(frame, entity, found, self._listing_document(frame, entity))
        attach(
            frame,
            endpoint=endpoint,
            responses=[response],
            rows_expected=read.returned if read.returned is not None else len(read.items),
            rows_received=len(read.items),
            filters=wire,
            sort=sort,
            findings=found.records(),
            page=read.page,
            limit=read.limit,
            returned=read.returned,
            total=read.total,
            has_more=read.has_more,
            absent=absent,
        )
        found.report(strict=strict, partial=frame, expected=read.returned, received=len(read.items))
        # an empty query, not a page past its end: without ``total``, only the service's first
        # page (0 always is; 1 unless this client found the service counting pages from 0)
        first = page == 0 or (page == 1 and self._first_page != 0)
        if not len(frame) and (read.total == 0 or (read.total is None and first)):
            self._hint_open_values(entity, wire, None)
        return frame

    @_filters_apart
    def companies(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        sort: str | None = None,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
        id: Ids = None,
        name: Text = None,
        country: Strings = None,
        region: Strings = None,
        verticals: Strings = None,
        themes: Strings = None,
        client_focus: Strings = None,
        revenue_model: Strings = None,
        company_type: Strings = None,
        ownership: Text = None,
        active: Flag = None,
        founded_min: Number = None,
        founded_max: Number = None,
        ipoed_from: Day = None,
        ipoed_to: Day = None,
        updated_at: Moment = None,
        include_deleted: Flag = None,
    ) -> pd.DataFrame:
        """Companies matching the filters, every page fetched for you.

        Parameters
        ----------
        filters : dict, optional
            Raw filters by discovery name, the keyword filters added to them. A filter
            given both here and as a keyword must have the same value in both
            (``filters={"deal_type": ["M&A"]}`` with ``deal_type=["Venture"]`` raises a
            :class:`~dealframe.errors.ValidationError` naming both, before any request).
        sort : str, optional
            ``"<key>:asc"`` or ``"<key>:desc"`` (name, founded, ipoed, updated_at);
            spaces and the direction's case do not matter (``"name: ASC"``), and
            without a direction it is ``desc``. Sent as ``"<key>:<direction>"``.
        limit : int, optional
            Cap on rows (default: all). ``attrs["rows_total"]`` holds the rows the
            filters match and ``attrs["truncated"]`` is True when the cap cut them.
        strict : bool, default False
            Raise :class:`~dealframe.errors.IncompleteResultError` when the rows
            received do not add up to the total announced, or when ids asked for
            by ``id`` did not come back (else a
            :class:`~dealframe.MissingDataWarning`).
        progress : bool, optional
            Progress bar on multi-page pulls (None: the client's ``progress`` setting).
        {refresh}
        {cache}
        id, name, country, region, verticals, themes, client_focus, revenue_model : optional
        company_type, ownership, active, founded_min, founded_max, ipoed_from : optional
        ipoed_to, updated_at, include_deleted : optional
            The filters of the interface document, the Python way: ``name="acme"`` (ilike) or
            ``name={"eq": "Acme Labs"}``, ``country=["GBR"]``, ``region=[...]``,
            ``verticals=[...]`` (overlaps), ``founded_min=2015``,
            ``ipoed_from=datetime.date(2020, 1, 1)``, ``id=[...]`` (batched),
            ``include_deleted=True`` ... A list filter needs at least one value
            (``country=[]`` would match nothing and is refused); leave it out, or
            pass None, for no constraint.

        Returns
        -------
        pandas.DataFrame
            One row per company, typed; provenance in ``attrs``.

        Notes
        -----
        A lookup by ``id`` returns the rows in the order of the ids (unless
        ``sort`` is given) and lists the ids that did not come back in
        ``attrs["missing_ids"]`` (empty when none). An id is missing when it is
        unknown or soft-deleted (soft-deleted rows come back only with
        ``include_deleted=True``). When ``id`` is the only narrowing filter, missing
        ids are reported with a :class:`~dealframe.MissingDataWarning` (or an
        :class:`~dealframe.errors.IncompleteResultError` with ``strict=True``). When
        other filters are given too (``country``, ``updated_at`` ...), they exclude
        rows on purpose: the ids they exclude are still listed in
        ``attrs["missing_ids"]``, without a warning. Ids go out in batches of 1,000 (as
        do those of any filter of ids the service lists, such as ``target_id`` of
        :meth:`deals`); with ``sort``, the batches (each sorted by the service) are
        merged into one order over every id, and ``limit`` takes the first rows of it.
        Without ``sort``, with ``limit``, batches stop once the cap is reached; ids of
        batches not sent are not looked up (``attrs["rows_total"]`` is then None).

        Examples
        --------
        >>> uk = client.private.companies(country=["GBR"], verticals=["Fintech"], sort="founded:desc")
        >>> wanted_ids = uk["id"].tolist()[::-1]
        >>> some = client.private.companies(id=wanted_ids)  # in the order of the ids
        >>> some.attrs["missing_ids"]  # ids asked for that did not come back
        []
        """
        return self._list("companies", self.companies, locals())

    @_filters_apart
    def investors(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        sort: str | None = None,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
        id: Ids = None,
        name: Text = None,
        country: Strings = None,
        updated_at: Moment = None,
        include_deleted: Flag = None,
    ) -> pd.DataFrame:
        """Investors matching the filters (``name``, ``country``, ``id``, ``updated_at`` ...).

        ``attrs`` and the handling of ``id`` (``attrs["missing_ids"]``) are those of
        :meth:`companies`.

        Parameters
        ----------
        filters, limit, strict, progress, refresh, cache
            As for :meth:`companies`.
        sort : str, optional
            ``"<key>:asc"`` or ``"<key>:desc"``; keys name, updated_at.
        id, name, country, updated_at, include_deleted : optional
            Filters, as for :meth:`companies`: ``name="capital"`` (ilike),
            ``country=["USA"]``, ``id=[...]`` (batched).

        Returns
        -------
        pandas.DataFrame
            One row per investor, typed; provenance in ``attrs``.

        Examples
        --------
        >>> capital = client.private.investors(name="capital", limit=20)
        >>> capital.columns.tolist()
        ['id', 'name', 'short_name', 'website', 'country', 'updated_at', 'deleted']
        """
        return self._list("investors", self.investors, locals())

    @_filters_apart
    def deals(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        sort: str | None = None,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
        id: Ids = None,
        target_id: Ids = None,
        investor_id: Ids = None,
        deal_type: Strings = None,
        deal_subtype: Strings = None,
        date_from: Day = None,
        date_to: Day = None,
        valuation_min: Number = None,
        valuation_max: Number = None,
        raised_min: Number = None,
        raised_max: Number = None,
        revenue_min: Number = None,
        revenue_max: Number = None,
        ebitda_min: Number = None,
        ebitda_max: Number = None,
        ev_revenue_min: Number = None,
        ev_revenue_max: Number = None,
        ev_ebitda_min: Number = None,
        ev_ebitda_max: Number = None,
        target_country: Strings = None,
        target_region: Strings = None,
        target_verticals: Strings = None,
        target_themes: Strings = None,
        target_client_focus: Strings = None,
        target_revenue_model: Strings = None,
        target_company_type: Strings = None,
        updated_at: Moment = None,
        include_deleted: Flag = None,
        with_investors: bool = False,
    ) -> pd.DataFrame:
        """Deals (funding rounds and M&A) matching the filters, flattened one row per deal.

        Parameters
        ----------
        filters, limit, strict, progress, refresh, cache
            As for :meth:`companies`.
        sort : str, optional
            ``"<key>:asc"`` or ``"<key>:desc"``; keys deal_date, deal_valuation,
            deal_raised, updated_at.
        id, target_id, investor_id : str or list of str, optional
            Deal, target company and investor (lead investor or buyer) ids; any number,
            sent in batches of 1,000 (``deals(target_id=cohort["id"])``). A deal matching
            ids of two batches (two of its investors) is one row, counted in
            ``attrs["batch_overlap"]``; two of these filters over 1,000 ids at once are
            refused (:class:`~dealframe.errors.ValidationError`). Deal ids of ``id`` that
            do not come back are in ``attrs["missing_ids"]`` (see :meth:`companies`).
        deal_type, deal_subtype : str or list of str, optional
            ``deal_type=["M&A"]``.
        date_from, date_to : str or date, optional
            Deal dates: ``date_from="2023-01-01"``.
        valuation_min, valuation_max, raised_min, raised_max, revenue_min : float, optional
        revenue_max, ebitda_min, ebitda_max, ev_revenue_min, ev_revenue_max : float, optional
        ev_ebitda_min, ev_ebitda_max : float, optional
            Bounds of the deal's figures and multiples: ``valuation_min=100``.
        target_country, target_region, target_verticals, target_themes : optional
        target_client_focus, target_revenue_model, target_company_type : optional
            The target company's attributes: ``target_region=["Western Europe"]``.
        updated_at : optional
            A lower bound of ``updated_at`` (the change feed).
        include_deleted : bool, optional
            Soft-deleted deals too (``deleted`` True).
        with_investors : bool, default False
            Also read every deal's single form (``GET /transactions/{id}``,
            concurrently, with a progress bar) for what list rows lack: the full
            ``investors`` list and the target's ``region``, ``city``, ``founded`` and
            lists. One request per deal: use it on the deals you analyse. Deals whose
            single form cannot be read (deleted meanwhile, or soft-deleted rows of
            ``include_deleted=True``) have a null ``investors`` (a list the service put in
            their list rows is not known to be the full one, so
            :func:`dealframe.explode_participants` counts their lists as missing) and, in the
            other profile-only columns, what their list rows carried (null where they
            carried nothing), with a :class:`~dealframe.MissingDataWarning` saying which
            (under ``strict``, an
            :class:`~dealframe.errors.IncompleteResultError` whose ``partial`` is the
            frame). ``attrs["profiles"]`` records the requests (and their
            ``from_cache`` and ``fetched_at``) and missing ids; ``attrs["requests"]``,
            ``attrs["from_cache"]`` and ``attrs["fetched_at"]`` (the oldest) are of the list
            pages and the profiles together.

        Returns
        -------
        pandas.DataFrame
            ``deal_date`` datetime, timestamps UTC, ``ev_revenue``/``ev_ebitda``,
            ``target_*`` columns, ``lead_investors``/``buyers`` (and, with
            ``with_investors``, ``investors``) as JSON text (see
            :func:`dealframe.explode_participants`, :func:`dealframe.to_lists`).
            List rows hold what list answers hold: the profile-only columns
            (``target_region``, ``target_city``, ``investors`` ...) are there only
            with ``with_investors=True``.

        Examples
        --------
        >>> ma = client.private.deals(deal_type=["M&A"], date_from="2023-01-01", valuation_min=100,
        ...                           target_region=["Western Europe"], sort="deal_date:desc")
        >>> full = client.private.deals(deal_type=["Venture"], date_from="2025-01-01",
        ...                             with_investors=True)
        >>> edges = dealframe.co_investment_edges(dealframe.explode_participants(full))
        >>> edges.columns.tolist()
        ['investor_a', 'investor_b', 'name_a', 'name_b', 'shared_deals', 'first_date', 'last_date']
        """
        deadline = self._t.deadline()  # one budget for the list and the single forms
        frame = self._list("transactions", self.deals, locals())
        if not with_investors:
            return frame
        return self._with_profiles(
            frame,
            strict=strict,
            progress=progress,
            refresh=refresh,
            cache=cache,
            deadline=deadline,
        )

    def _with_profiles(
        self,
        frame: pd.DataFrame,
        *,
        strict: bool,
        progress: bool | None,
        refresh: bool,
        cache: bool,
        deadline: float | None,
    ) -> pd.DataFrame:
        """Deal list rows completed from their single forms: the columns only those carry,
        read within the call's ``deadline`` (the listing's).

        Soft-deleted rows (``include_deleted=True``) are read with ``include_deleted`` too
        (the document shows that parameter for companies and investors only: a service that
        refuses it for deals leaves those rows null, warned of as missing).
        """
        deleted = (
            frame["deleted"].fillna(False).to_numpy(dtype=bool)
            if "deleted" in frame
            else np.zeros(len(frame), dtype=bool)
        )
        groups: dict[bool, list[str]] = {False: [], True: []}
        for i, gone in zip(frame["id"].tolist(), deleted.tolist()):
            if isinstance(i, str):
                groups[gone].append(i)
        ids = groups[False] + groups[True]
        # the live and the deleted deals' single forms are one call's: its findings said once
        found = Findings(f"GET {PREFIX}/transactions/{{id}}")
        # the ids whose profile failed for good, or went unsent, and the error of each
        failed: list[str] = []
        errors: list[BaseException] = []
        parts = [_single_deals([])]
        lacking: list[dict[str, np.ndarray]] = []  # each part's fields absent from answers
        for n, (gone, wanted) in enumerate(groups.items()):
            if not wanted:
                continue
            try:
                with missing_expected():  # reported below, as deals without a single form
                    parts.append(
                        self._profiles(
                            "transactions",
                            wanted,
                            _PROFILE_ONLY_FIELDS,
                            gone,
                            False,
                            progress,
                            refresh,
                            cache,
                            found=found,
                            deadline=deadline,
                            lacking=lacking,
                        )
                    )
            except IncompleteResultError as exc:  # some requests failed for good
                failed += exc.failed
                errors += exc.errors or [exc] * len(exc.failed)
                if isinstance(exc.partial, pd.DataFrame):
                    parts.append(exc.partial)
            except RateLimitedError as exc:  # none sent (the gate shut past the budget)
                if not unsent(exc):
                    raise
                # the listing is kept as the error's partial all the same; every deal of
                # this group and of those not tried after it is named, each with the error
                left = [i for later in list(groups.values())[n:] for i in later]
                failed += left
                errors += [exc] * len(left)
                break
            except BadRequestError:
                if not gone:
                    raise
                # include_deleted refused for deals: the deleted rows stay null (warned below)
        profiles = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        # the frame's checks, once for the call over every part's rows (not once a part)
        absent = {
            name: np.concatenate(
                [
                    part.get(name, np.zeros(len(rows), bool))
                    for part, rows in zip(lacking, parts[1:])
                ]
            )
            for name in {name for part in lacking for name in part}
            if len(lacking) == len(parts) - 1  # else no row left out: nulls said, not lost
        }
        self._check_profiles(profiles, "transactions", list(_PROFILE_ONLY_FIELDS), absent, found)
        requests = sum(p.attrs.get("requests", 0) for p in parts)
        # the full investor list is the single form's: a list row's own (a service may send
        # the leads only) is not known complete, so a deal without a single form keeps none
        # and explode_participants counts it as missing
        carried = "investors" in frame
        out = shape.complete_deals(frame.drop(columns="investors") if carried else frame, profiles)
        returned = set(profiles["id"].dropna().tolist())
        missing = [i for i in ids if i not in returned]
        out.attrs.update(frame.attrs)
        out.attrs["profiles"] = {
            "requests": requests,
            "from_cache": combined_from_cache(p.attrs for p in parts),
            "fetched_at": _oldest_fetch(p.attrs for p in parts),
            "missing_ids": missing,
            "findings": found.records(),
        }
        # the list's pages and the profiles built the frame: both counted, both in from_cache,
        # its data as old as the oldest of them (profiles read from the cache earlier)
        out.attrs["requests"] = frame.attrs.get("requests", 0) + requests
        out.attrs["from_cache"] = combined_from_cache([frame.attrs, *(p.attrs for p in parts)])
        out.attrs["fetched_at"] = _oldest_fetch([frame.attrs, *(p.attrs for p in parts)])
        if failed:  # the deals answered 404 are in attrs["profiles"]["missing_ids"] too
            error = IncompleteResultError(
                len(ids),
                len(returned),
                failed,
                errors=errors,
                partial=out,
                what="deal profiles",
            )
            named = set(failed)
            unread = [i for i in missing if i not in named]
            if unread:  # answered 404: no error of their own, said here all the same
                error.add_note(
                    f"{len(unread)} more {plural(len(unread), 'deal has', 'deals have')} no "
                    f"single form to read (answered 404): {first_of(unread)} "
                    "(see .partial.attrs['profiles']['missing_ids'])"
                )
            raise error
        found.report(
            strict=strict,
            partial=out,
            expected=len(ids),
            received=len(returned),
            what="deal profiles",
        )
        if missing:
            if strict:
                raise IncompleteResultError(
                    len(ids), len(returned), missing, partial=out, what="deal profiles"
                )
            # an answer of another id (wrong_entity) completes no row: not one gone missing
            elsewhere = set(found.notes.get(_OTHER_IDS, {}).get("ids", ()))
            kept = _kept_of_list_rows(frame, carried)
            said = [
                f"{len(group):,} of {len(ids):,} deals {why}: {kept}: {first_of(group)}"
                for group, why in (
                    (
                        [i for i in missing if i not in elsewhere],
                        "have no single form to read (deleted since the list was read, or "
                        "soft-deleted deals the service does not serve singly?)",
                    ),
                    (
                        [i for i in missing if i in elsewhere],
                        "came back under another id (the wrong_entity finding names them), "
                        "so completed no row",
                    ),
                )
                if group
            ]
            warnings.warn(
                f"{'; '.join(said)} (see df.attrs['profiles'])",
                MissingDataWarning,
                stacklevel=user_stacklevel(),
            )
        return out

    # ------------------------------------------------------------------ profiles

    def _profiles(
        self,
        entity: str,
        ids: Any,
        fields: Any,
        include_deleted: bool,
        strict: bool,
        progress: bool | None,
        refresh: bool,
        cache: bool,
        build: Callable[[list[dict]], pd.DataFrame] | None = None,
        found: Findings | None = None,
        deadline: Any = _OWN_BUDGET,
        lacking: list[dict[str, np.ndarray]] | None = None,
    ) -> pd.DataFrame:
        """Single forms of ``ids``, shaped by ``build`` (default: the entity's profile frame),
        within ``deadline`` (a calling call's; by default this call's own ``call_budget``).

        Given ``found`` (the findings of a call that reads profiles in several parts), what
        the answers are found to be is recorded there, for the caller to report once (one
        finding per field for the call, raised under its ``strict``); else reported here.
        The frame's checks (:meth:`_check_profiles`) are then the caller's, run once over
        the frame of every part: ``lacking`` gets this part's fields absent from some
        answers (a boolean per row of the frame returned).
        """
        build = build or _PROFILE_FRAMES[entity]
        single = is_one_id(ids)
        wanted = check_ids(ids, "ids", empty=True)  # one id or many: the argument is ids
        params: dict[str, Any] = {}
        names = check_fields(entity, fields)
        if names is not None:
            params["fields"] = ",".join(names)
        if not isinstance(include_deleted, bool):
            raise ValidationError("include_deleted", "True or False", got=include_deleted)
        if include_deleted:
            params["include_deleted"] = True
        if deadline is _OWN_BUDGET:
            deadline = self._t.deadline()
        said_deleted: set[str] = set()  # answered 404 saying soft-deleted (details.deleted)

        def fetch(ident: str) -> Any:
            try:
                path = f"/{entity}/{ident}"
                return self._request(
                    "GET", path, "profile", refresh, cache, deadline, params=params or None
                )
            except NotFoundError as exc:
                if single:
                    raise
                if exc.deleted:
                    said_deleted.add(ident)
                return None

        def stored(ident: str) -> Response | None:
            """The cache's answer, read on this thread (a hit is CPU work that worker threads,
            queueing on the cache's one connection, would only slow down)."""
            path = f"{PREFIX}/{entity}/{ident}"
            return self._t.cached("private", "GET", path, params=params or None, kind="profile")

        failures: list[Any] = []
        known = self._profile_fields[entity]
        with fields_noted(names, known):  # a 400's words stay; a close name for one it names
            if single:
                responses = [fetch(wanted[0])]
            else:
                result = map_concurrent(
                    fetch,
                    wanted,
                    self._workers,
                    pool=self._t.pool,
                    progress=self._progress(progress),
                    desc=f"{entity} profiles",
                    inline=stored if cache and not refresh else None,
                    deadline=deadline,
                )
                responses, failures = result.results, result.failures
        endpoint = f"GET {PREFIX}/{entity}/{{id}}"
        reported = found is None  # else the caller's findings, reported by the caller
        found = Findings(endpoint) if found is None else found
        failed = {f.item for f in failures}
        got: list[tuple[str, Any]] = []
        deleted_served: list[str] = []  # soft-deleted though include_deleted was not sent
        others: list[tuple[str, str]] = []  # answers of another id than asked (wrong_entity)
        for ident, response in zip(wanted, responses):
            if response is None:
                continue
            doc = response.json()
            data = doc.get("data")
            where = f"GET {PREFIX}/{entity}/{ident}"
            say_echoed(doc, found, where)  # its texts the transport blanked
            if not isinstance(data, Mapping):
                found.add(
                    "wrong_shape",
                    f"data is {type(data).__name__}, not an object",
                    where=where,
                    shortfall=1,
                )
                failed.add(ident)
                continue
            if data.get("deleted") is True and not include_deleted:
                # the service ignored include_deleted: read as the 404 a soft-deleted id gets
                if single:
                    raise NotFoundError(
                        404,
                        "NOT_FOUND",
                        f"{ident} is soft-deleted; pass include_deleted=True to read it",
                        details={"deleted": True},
                        request=RequestInfo("GET", f"{PREFIX}/{entity}/{ident}", "private"),
                        note="the service answered 200 with deleted: true though "
                        "include_deleted was not sent (it ignored it): read as its 404",
                    )
                deleted_served.append(ident)  # missing, as after a 404 (said below)
                continue
            if canonical_uuid(data.get("id")) != ident:
                others.append((ident, f"asked for {ident}, the answer's id is {data.get('id')!r}"))
            got.append((ident, response))
        _say_other_ids(
            others, len(wanted), found, f"GET {PREFIX}/{entity}/{wanted[0]}" if single else None
        )
        if deleted_served:
            n = len(deleted_served)
            found.add(
                "unrequested",
                f"{n} of {len(wanted)} answers are soft-deleted (deleted: true) though "
                f"include_deleted was not sent (the service ignored it): left out, as its 404 "
                f"would have: {first_of(deleted_served)}",
            )
        datas = [r.json()["data"] for _, r in got]
        # the document's fields absent from some answers: said once for the call, with the
        # count and the first ids (not once per id); any other name, once (absent_fields);
        # a member named by the token, once (missing_fields of no field)
        documented = PROFILE_FIELDS[entity]
        wanted_fields = [n for n in names or documented if n in documented]
        absent = absent_from_answers(zip([i for i, _ in got], datas), wanted_fields, found)
        held = keys_present(datas)
        missing_fields(
            held,
            entity,
            found,
            n_items=len(datas),
            wanted=(),
        )
        absent_fields(entity, names, datas, found, known)
        if entity == "investors":  # stats' top lists: items null or without their members
            top_lists_said(zip([i for i, _ in got], datas, strict=True), found)
        known.add(valued_keys(datas))
        with shaping(RequestInfo("GET", f"{PREFIX}/{entity}/{{id}}", "private"), endpoint, found):
            frame = build(datas)
        if lacking is None:
            self._check_profiles(frame, entity, names, absent, found)
        else:  # one part of the caller's call: checked by the caller, with the others
            lacking.append(absent)
        gone = set(deleted_served)
        missing = [
            i for i, r in zip(wanted, responses) if (r is None or i in gone) and i not in failed
        ]
        deleted = [i for i in missing if i in gone or i in said_deleted]
        # every request answered built the frame, those left out and those answered 404 too
        errors = {f.item for f in failures}
        answered_404 = sum(r is None and i not in errors for i, r in zip(wanted, responses))
        attach(
            frame,
            endpoint=endpoint,
            responses=[r for r in responses if r is not None] + [Answered404()] * answered_404,
            rows_expected=len(wanted),
            missing_ids=missing,
            deleted_ids=deleted,
            findings=found.records(),
        )
        if failures:
            raise incomplete(
                len(wanted),
                len(got),
                [f.item for f in failures],
                errors=[f.error for f in failures],
                partial=frame,
                what="profiles",
            )
        if reported:
            found.report(
                strict=strict,
                partial=frame,
                expected=len(wanted),
                received=len(got),
                what="profiles",
            )
        if missing:
            if strict:
                raise IncompleteResultError(
                    len(wanted), len(got), missing, partial=frame, what="profiles"
                )
            warn_missing(_missing_profiles(entity, len(wanted), missing, deleted, include_deleted))
        return frame

    def _check_profiles(
        self,
        frame: pd.DataFrame,
        entity: str,
        names: list[str] | None,
        absent: Mapping[str, np.ndarray],
        found: Findings,
    ) -> None:
        """The checks of the frame of one call's single forms, once for the call: a null
        where the document gives none, as list answers are checked (a field not asked for
        is not looked at, nor a row whose answer lacked it, ``absent``: that absence is said
        already), and the values (:func:`_document_values`)."""
        documented = PROFILE_FIELDS[entity]
        asked = set(documented if names is None else names)
        unread = [f for f in documented if f not in asked]
        null_fields(frame, _PROFILE_ANSWERS[entity], found, missing=unread, absent=absent)
        _document_values(frame, entity, found, self._listing_document(frame, entity))

    def company(
        self,
        ids: str | Iterable[str],
        *,
        fields: Strings = None,
        include_deleted: bool = False,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Company profiles, nested objects flattened (``valuation_market_cap``, ...).

        Parameters
        ----------
        ids : str, uuid.UUID or list of them
            One UUID (a missing one raises :class:`~dealframe.errors.NotFoundError`)
            or many (fetched concurrently; missing ones in ``attrs["missing_ids"]``, with a
            warning naming apart those the service said are soft-deleted, listed in
            ``attrs["deleted_ids"]``).
        fields : list of str, optional
            Allowlist of top-level fields of the company profile (``name``,
            ``employee_count``, ``stock_listing``, ``valuation``, ``fundamentals``,
            ``deal_activity`` ...; ``id`` always comes back), a list or one string of
            comma-separated names. Every name is sent as given and the service decides (it
            may serve fields the document does not list): a name it refuses is its
            :class:`~dealframe.errors.BadRequestError`, in words its own, with the closest
            name known in the note; a name the document does not list that no answer holds
            is a ``missing_field`` warning with the closest name known (the profile's
            fields and those seen with a value in this client's answers; none for a name
            that is one of those). Only another case or separator spelling of a profile
            field (``shortName``, ``Name``), or a comma inside a list element, raises
            :class:`~dealframe.errors.ValidationError` naming ``fields``, before any
            request.
        include_deleted : bool, default False
            Return soft-deleted companies too (``deleted`` True). Without it, a profile
            served with ``deleted`` True (a service that ignores the parameter) is read
            as the 404 it should have been: missing (or, for one id, ``NotFoundError``).
        strict : bool, default False
            Raise :class:`~dealframe.errors.IncompleteResultError` when some of many ids
            do not come back (else a :class:`~dealframe.MissingDataWarning`).
        progress : bool, optional
            Progress bar over many ids (None: the client's ``progress`` setting).
        {refresh}
        {cache}

        Examples
        --------
        >>> company_id = client.private.companies(limit=1)["id"][0]
        >>> client.private.company(company_id).filter(like="valuation_").columns.tolist()
        ['valuation_market_cap', 'valuation_enterprise_value', 'valuation_price_to_book', ...]
        """
        return self._profiles(
            "companies", ids, fields, include_deleted, strict, progress, refresh, cache
        )

    def investor(
        self,
        ids: str | Iterable[str],
        *,
        fields: Strings = None,
        include_deleted: bool = False,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Investor profiles with ``stats_*`` columns; see :meth:`investor_top` for top lists.

        Parameters
        ----------
        ids : str or list of str
            One UUID (a missing one raises :class:`~dealframe.errors.NotFoundError`)
            or many, as for :meth:`company`.
        fields : list of str, optional
            Allowlist of top-level fields of the investor profile (the company profile's
            list fields, ``employee_count``, ``stats``), taken as for :meth:`company`.
        include_deleted, strict, progress, refresh, cache
            As for :meth:`company`.

        Examples
        --------
        >>> investor_id = client.private.investors(limit=1)["id"][0]
        >>> client.private.investor(investor_id)["stats_total_deals"]
        0    ...
        Name: stats_total_deals, dtype: Int64
        """
        return self._profiles(
            "investors", ids, fields, include_deleted, strict, progress, refresh, cache
        )

    def investor_top(
        self,
        ids: str | Iterable[str],
        what: str = "countries",
        *,
        include_deleted: bool = False,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """``stats.top_countries`` or ``stats.top_verticals`` of investors as a tidy frame.

        Parameters
        ----------
        ids : str or list of str
            Investor UUIDs, as for :meth:`investor`.
        what : {"countries", "verticals"}
            Which top list.
        include_deleted, strict, progress, refresh, cache
            As for :meth:`investor`.

        Returns
        -------
        pandas.DataFrame
            One row per (investor, country or vertical) with its ``count``.

        Examples
        --------
        >>> investor_id = client.private.investors(limit=1)["id"][0]
        >>> client.private.investor_top(investor_id, "verticals").columns.tolist()
        ['investor_id', 'vertical', 'count', 'rank']
        """
        choice(what, "what", ("countries", "verticals"), "'countries' or 'verticals'")
        builder = shape.top_countries_frame if what == "countries" else shape.top_verticals_frame
        captured: list[list[dict]] = []

        def build(items: list[dict]) -> pd.DataFrame:
            captured.append(items)
            return shape.investor_profiles_frame(items)

        def top_of(profiles: pd.DataFrame) -> pd.DataFrame:
            # the items ``profiles`` was built of; top-list items that are no object left
            # out, members that cannot be read null (said of the profiles: top_lists_said)
            top = builder(top_lists_read(captured[-1]))
            # the profiles' provenance: the same requests, cache state and findings
            kept = {
                k: v
                for k, v in profiles.attrs.items()
                if k not in ("rows_expected", "rows_received")
            }
            top.attrs.update(kept, rows_expected=len(top), rows_received=len(top))
            return top

        try:
            profiles = self._profiles(
                "investors", ids, None, include_deleted, strict, progress, refresh, cache, build
            )
        except (IncompleteResultError, ApiError) as error:  # what arrived, as this call's
            if isinstance(error.partial, pd.DataFrame) and captured:  # frame: its top rows
                error.partial = top_of(error.partial)
            raise
        return top_of(profiles)

    def deal(
        self,
        ids: str | Iterable[str],
        *,
        fields: Strings = None,
        include_deleted: bool = False,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Single deals with the richer target and the full ``investors`` list.

        Parameters
        ----------
        ids : str or list of str
            One UUID (a missing one raises :class:`~dealframe.errors.NotFoundError`)
            or many, as for :meth:`company`.
        fields : list of str, optional
            Allowlist of top-level fields of the single deal (the deal list fields and
            ``investors``), taken as for :meth:`company`.
        include_deleted, strict, progress, refresh, cache
            As for :meth:`company`.

        Examples
        --------
        >>> deal_id = client.private.deals(limit=1)["id"][0]
        >>> client.private.deal(deal_id)[["target_name", "target_region", "investors"]].dtypes
        target_name           str
        target_region    category
        investors             str
        dtype: object
        """
        return self._profiles(
            "transactions", ids, fields, include_deleted, strict, progress, refresh, cache
        )

    # ------------------------------------------------------------------ sub-collections

    def _sub(
        self,
        method: str,
        ids: Any,
        limit: int | None,
        strict: bool,
        progress: bool | None,
        refresh: bool,
        cache: bool,
    ) -> pd.DataFrame:
        """The sub-collection read by ``method`` (:data:`_SUBS`) of each of ``ids``."""
        entity, name, _, answer = _SUBS[method]
        parent = "company_id" if entity == "companies" else "investor_id"
        # Here limit caps the rows per entity, within the document's 1..1000 (section 4.2;
        # None, the default: every row); the walk asks for pages of 1000 (or of the smaller
        # bound a refusal of ``limit`` stated: kept for later calls).
        if limit is not None:
            what = (
                f"an integer from 1 to {SUBCOLLECTION_LIMIT_MAX:,} (the document's bound on a "
                "sub-collection's limit), or None for every row"
            )
            limit = integer_in(limit, "limit", 1, SUBCOLLECTION_LIMIT_MAX, what)
        single = is_one_id(ids)  # one id raises NotFoundError; a list never does
        wanted = check_ids(ids, "ids", empty=True)  # one id or many: the argument is ids
        deadline = self._t.deadline()
        if wanted:  # no ids (an empty frame's): an empty frame, without a request
            schema = self.schema(entity, refresh=refresh, cache=cache, deadline=deadline)
            name = self._sub_routes.name_for(
                entity, schema, name, wanted[0], refresh, cache, deadline
            )
        inner_workers = self._workers if len(wanted) == 1 else 1
        endpoint = f"GET {PREFIX}/{entity}/{{id}}/{name}"
        said: dict[str, list[Any]] = {}  # each id's findings, added in the order of the ids
        refused: dict[int, str] = {}  # each page size refused, said once whatever the ids

        def pull(ident: str, stored: bool = False) -> tuple[str, Pages[Any]]:
            """Every page of ``ident``'s sub-collection; with ``stored``, every page from the
            HTTP cache only (:class:`_Unstored` at the first that is not there: nothing was
            sent, and a worker pulls the id, its cached pages read again cheaply)."""

            def fetch(page: int, size: int) -> Response:
                page_params = {"page": page, "limit": size}
                path = f"/{entity}/{ident}/{name}"
                if stored:
                    hit = self._t.cached(
                        "private", "GET", f"{PREFIX}{path}", params=page_params, kind="list"
                    )
                    if hit is not None:
                        return hit
                    raise _Unstored  # a miss is a worker's: never sent from this thread
                return self._request(
                    "GET", path, "list", refresh, cache, deadline, params=page_params
                )

            where = Findings(f"GET {PREFIX}/{entity}/{ident}/{name}")
            pages = self._walk(
                lambda size: pull_pages(
                    fetch,
                    limit=limit,
                    workers=inner_workers,
                    progress=False,
                    desc=name,
                    page_size=size,
                    pool=self._t.pool,
                    found=where,
                ),
                limit,
                refused.setdefault,
                sub=True,
            )
            said[ident] = where.items
            return ident, pages

        failures: list[Any] = []
        if single:
            try:
                pulled = [pull(wanted[0])]
            except NotFoundError as exc:
                if not exc.deleted:  # else the service said why, and the message says so
                    causes = route_404(name) if no_route(exc) else f"a 404 here means {SUB_404}"
                    exc.with_note(causes)
                raise
        else:

            def inline(ident: str) -> tuple[str, Pages[Any]] | None:
                """``ident`` pulled on this thread when all its pages are in the HTTP cache
                (a hit is CPU work that worker threads, queueing on the cache's one
                connection, would only slow down), else None, with nothing sent: a worker
                pulls it."""
                try:
                    return pull(ident, stored=True)
                except _Unstored:
                    return None

            result = map_concurrent(
                pull,
                wanted,
                self._workers,
                pool=self._t.pool,
                progress=self._progress(progress),
                desc=name,
                inline=inline if cache and not refresh else None,
                deadline=deadline,
            )
            pulled, failures = result.values, result.failures
        # an id answered 404 is missing, as for profiles: the rest is kept. Unknown, soft-deleted
        # or (some services) without items: the client cannot tell, and says no more than that
        gone = [f.item for f in failures if isinstance(f.error, NotFoundError)]
        routeless = bool(gone) and all(no_route(f.error) for f in failures if f.item in gone)
        why = route_404(name) if routeless else SUB_404
        failures = [f for f in failures if not isinstance(f.error, NotFoundError)]
        sub = _SUBS[method]._replace(name=name)
        info = RequestInfo("GET", f"{PREFIX}/{entity}/{{id}}/{name}", "private")

        def rows_of(ident: str, pages: Pages[Any]) -> list[dict]:
            """``ident``'s rows (its pages' items, ``limit`` cut), each with its id."""
            rows = [item for part in pages.parts for item in part]
            return [{**row, parent: ident} for row in rows[:limit]]

        def short(partial: pd.DataFrame | None, stop: ServiceContractError | None) -> Exception:
            """The call's error when some ids failed, or were read in part (a later page
            failed, or held an unreadable item: ``stop``): ``partial`` the frame of the rest,
            what it found said as the call's (``strict``: on ``partial.attrs`` only)."""
            if not strict:
                if partial is not None:
                    found.report(strict=False)
                if gone:
                    warn_missing(
                        f"{len(gone)} of {len(wanted)} {entity} answered 404 ({why}): their "
                        f"{name} are not in the partial frame; see its attrs['missing_ids']"
                    )
            # an id read in part is a failed id as one not read at all: ``.failed`` holds the
            # id (the partial's rows of it are dropped by ``isin``), its label names the
            # pages, and the partial keeps the rows that did arrive
            partly: dict[str, list[ItemFailure]] = {}
            for ident, pages in pulled:
                for f in pages.failed:
                    partly.setdefault(ident, []).append(f)
            lost = f"; {len(gone)} answered 404, in .partial.attrs['missing_ids']" if gone else ""
            return incomplete(
                len(wanted),
                len(pulled) - len(partly),
                [f.item for f in failures] + list(partly),
                errors=[f.error for f in failures] + [fs[0].error for fs in partly.values()],
                partial=partial,
                what=f"{entity} ({name}{lost})",
                stop=stop or stopped([f for fs in partly.values() for f in fs]),
                labels=[str(f.item) for f in failures]
                + [_pages_label(ident, [f.item for f in fs]) for ident, fs in partly.items()],
            )

        unread: ServiceContractError | None = None  # an unreadable item, named
        while True:
            found = Findings(endpoint)
            for ident in wanted:  # what the ids' pages say alike (meta as text ...) is said once
                found.absorb(said.get(ident, ()))
            items: list[dict] = []
            responses: list[Any] = []
            keys: set[str] = set()
            parts: list[tuple[str, int, frozenset[str]]] = []  # each id's pages (for its fields)
            for ident, pages in pulled:
                responses += pages.infos
                keys |= pages.keys
                parts += page_parts(pages.infos, f"{ident} ")
                items += rows_of(ident, pages)
            # what the readers say of values is said of the rows returned alone (not of a
            # repeat dropped): kept back by row until they are known
            try:
                with shaping(info, endpoint, found), rows_said_later() as later:
                    frame, column = _sub_framed(sub, items)
                break
            except ServiceContractError as exc:
                if exc.finding != "wrong_shape":
                    raise
                if unread is not None:  # the rest typed differently from id to id
                    raise short(None, unread) from None
                # the ids whose rows cannot be read alone become ids read in part (their
                # rows that read kept), and the call is built again of the rest
                cut = _sub_unreadable(exc, sub, pulled, rows_of)
                if cut is None:  # each id reads alone: values typed differently id to id
                    raise
                pulled, unread = cut
                if single and not any(pulled[0][1].parts):
                    raise unread from None  # nothing else of it reads
        absent = missing_fields(keys, answer, found, n_items=len(items), parts=parts)
        built = len(frame)
        frame, at = dedupe_at(frame, [parent, "id"], found, np.arange(built))
        say_kept(found, later, rows_kept(built, at))
        self._sub_counts(found, pulled, frame[parent], column, limit)
        null_fields(frame, answer, found, missing=absent)
        outside_vocabulary(frame, "role", ROLES, found)  # after any case or spacing is undone
        # first_invested after last_invested, a deal type outside the lists ...
        _document_values(frame, answer, found, self._listing_document(frame, answer))
        say_deleted(frame, found, name)  # soft-deleted rows no call can ask for: kept, said
        totals = [pages.total for _, pages in pulled]
        known = [t for t in totals if t is not None]
        attach(
            frame,
            endpoint=endpoint,
            # the request each id of ``gone`` sent, answered 404, built the frame too
            responses=responses + [Answered404()] * len(gone),
            rows_expected=None
            if len(known) < len(totals)
            else sum(t if limit is None else min(t, limit) for t in known),
            rows_received=len(items),
            rows_total=None if len(known) < len(totals) else sum(known),
            truncated=limit is not None and any(t > limit for t in known),
            missing_ids=gone,
            findings=found.records(),
            **({"page_size_refused": _said_once(list(refused.values()))} if refused else {}),
        )
        if failures or unread is not None or any(pages.failed for _, pages in pulled):
            raise short(frame, unread)
        found.report(
            strict=strict, partial=frame, expected=frame.attrs["rows_expected"], received=len(frame)
        )
        if gone:
            if strict:
                singular = {"companies": "company", "investors": "investor"}.get(entity, entity)
                raise IncompleteResultError(
                    len(wanted),
                    len(wanted) - len(gone),
                    gone,
                    partial=frame,
                    what=f"{singular} ids (answered 404: {why})",
                )
            warn_missing(
                f"{len(gone)} of {len(wanted)} {entity} answered 404 ({why}): their {name} "
                "are not in the frame; see df.attrs['missing_ids']"
            )
        return frame

    @staticmethod
    def _sub_counts(
        found: Findings,
        pulled: list[tuple[str, Pages[Any]]],
        kept: pd.Series,
        built: pd.Series,
        limit: int | None,
    ) -> None:
        """Say of each id whose pages all arrived what the lists say
        (:func:`~dealframe.private.counts.say_count`): its distinct rows (``kept``: the parent
        id of each row once repeats were dropped) against its ``meta.total``, the rows that
        came again over its pages (``built``: the parent id of each row built), and a
        ``meta.total`` that moved while its pages were read."""
        distinct, arrived = kept.value_counts(), built.value_counts()
        capped = "" if limit is None else " (capped by limit)"
        for ident, pages in pulled:
            if pages.failed:
                continue
            rows = int(distinct.get(ident, 0))
            paged = any(info.page > 1 for info in pages.infos)
            say_count(
                found,
                pages.expected,
                rows,
                pages.size,
                moved=pages.moved,
                repeated=int(arrived.get(ident, 0)) - rows if paged else 0,
                capped=capped,
                where=found.where.replace("{id}", ident),
            )

    def fundings(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Funding rounds where the company (or each of the companies) is the target.

        Parameters
        ----------
        {sub_of_company}

        Returns
        -------
        pandas.DataFrame
            Deals frame with ``company_id`` first; every page fetched. ``limit``
            caps the rows per company; ``attrs["rows_total"]`` holds the rows there
            are and ``attrs["truncated"]`` says whether the cap cut them (the same for
            every sub-collection).

        Examples
        --------
        >>> company_id = client.private.deals(deal_type=["Venture"], limit=1)["target_id"][0]
        >>> client.private.fundings(company_id)[["deal_date", "deal_type", "deal_subtype"]]
           deal_date deal_type deal_subtype
        0 ...
        """
        return self._sub("fundings", ids, limit, strict, progress, refresh, cache)

    def sellside(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """M&A deals where the company is the target (``company_id`` first).

        Parameters
        ----------
        {sub_of_company}

        Examples
        --------
        >>> company_id = client.private.deals(deal_type=["M&A"], limit=1)["target_id"][0]
        >>> client.private.sellside(company_id)[["deal_date", "deal_type", "deal_subtype"]]
           deal_date deal_type deal_subtype
        0 ... M&A ...
        """
        return self._sub("sellside", ids, limit, strict, progress, refresh, cache)

    def buyside(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Deals where the company is a buyer or a lead investor, with ``role``.

        Parameters
        ----------
        {sub_of_company}

        Examples
        --------
        >>> bought = client.private.deals(deal_subtype=["Strategic M&A"], limit=1)
        >>> company_id = dealframe.explode_participants(bought, ["buyer"])["participant_id"][0]
        >>> client.private.buyside(company_id)["role"].value_counts(sort=False)
        role
        lead_investor    ...
        buyer            ...
        investor           0
        Name: count, dtype: int64
        """
        return self._sub("buyside", ids, limit, strict, progress, refresh, cache)

    def company_investors(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Investors in the company's funding rounds (rounds_participated, is_lead_any_round, ...).

        Parameters
        ----------
        {sub_of_company}

        Examples
        --------
        >>> company_id = client.private.deals(deal_type=["Venture"], limit=1)["target_id"][0]
        >>> client.private.company_investors(company_id)[["name", "rounds_participated"]].head()
                 name  rounds_participated
        0 ...
        """
        return self._sub("company_investors", ids, limit, strict, progress, refresh, cache)

    def investments(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Deals the investor led or bought in, with ``role`` (``investor_id`` first).

        Parameters
        ----------
        {sub_of_investor}

        Examples
        --------
        >>> investor_id = client.private.investors(limit=1)["id"][0]
        >>> client.private.investments(investor_id)[["deal_date", "deal_type", "role"]]
           deal_date deal_type role
        0 ...
        """
        return self._sub("investments", ids, limit, strict, progress, refresh, cache)

    def co_investors(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Investors sharing deals with the investor (shared_deals, first/last shared date).

        Parameters
        ----------
        {sub_of_investor}

        Examples
        --------
        >>> investor_id = client.private.investors(limit=1)["id"][0]
        >>> client.private.co_investors(investor_id)[["name", "shared_deals"]].head(10)
                 name  shared_deals
        0 ...
        """
        return self._sub("co_investors", ids, limit, strict, progress, refresh, cache)

    def portfolio(
        self,
        ids: str | Iterable[str],
        *,
        limit: int | None = None,
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Companies the investor has backed (first/last invested, rounds_count, led_any_round).

        Parameters
        ----------
        {sub_of_investor}

        Examples
        --------
        >>> investor_id = client.private.investors(limit=1)["id"][0]
        >>> client.private.portfolio(investor_id)[["name", "rounds_count", "led_any_round"]]
                 name  rounds_count  led_any_round
        0 ...
        """
        return self._sub("portfolio", ids, limit, strict, progress, refresh, cache)

    # ------------------------------------------------------------------ resolve

    def resolve_companies(
        self,
        names: Iterable[str],
        *,
        on_ambiguous: str = "none",
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> Resolution:
        """Resolve company names to ids.

        Parameters
        ----------
        names : list of str
            Any number (sent in batches of 1,000; fewer once the service refused a batch as
            holding too many, or answered only its first names: those ``k`` results are kept
            and the names left sent again in batches of ``k``, said in
            ``matches.attrs["batch_size_cut"]``). A name repeated in the list (the same
            string) is sent once and its result is every copy's: one row per position as
            ever; a refusal of it is reported at its first position. A name is reported
            refused only when the service refuses it alone. When the service refuses a batch naming names of it (``names[7]: must be
            at most 200 characters``), each name a position may mean (at most 8 positions of
            one refusal a round) is sent alone (one request each: the name at it, and until
            this client has told whether the service counts from 0 or from 1, ``names[8]``
            for the 8th name, the one before it too);
            one accepted alone has that answer as its result, and the batch is sent again
            without them (at most 20 times per batch). The names refused alone make the call
            raise an :class:`~dealframe.errors.IncompleteResultError` whose ``failed`` lists
            ``names[i]`` (its position in ``names``), whose ``errors`` hold the refusal with
            that position, and whose ``.partial`` holds every other name, resolved. The
            refusal itself is raised when it was the only name sent.
        on_ambiguous : {"none", "best", "raise"}
            Leave ``id`` null for ambiguous names, take the best candidate, or raise
            :class:`~dealframe.errors.AmbiguousNameError`. With ``"best"``, a name whose
            best candidates have the same score keeps a null ``id``: it is listed in
            ``matches.attrs["tied"]`` and warned of (:class:`~dealframe.MissingDataWarning`);
            so does one with several candidates not all of which carry a ``score`` (no best
            can be told): listed in ``matches.attrs["unscored"]``, a ``missing_field``
            finding (:class:`~dealframe.ServiceContractWarning`, or under ``strict`` the
            :class:`~dealframe.errors.ServiceContractError`). With ``"best"`` both lists are
            in ``attrs`` for 0, 1 or N names, empty when no name is such.
        {strict}
        progress : bool, optional
            Progress bar over the batches (None: the client's ``progress`` setting).
        {refresh}
        {cache}

        Returns
        -------
        Resolution
            ``(matches, candidates)``: one row per name in input order (query, id,
            match_type) and the candidates (query, id, name, country, score, rank), one
            block per distinct name (a name the list repeats has its candidates once), so
            ``matches.merge(candidates, on="query")`` gives each row of ``matches`` its
            candidates once. Both frames carry the call's provenance in ``attrs``
            (``endpoint``, ``requests``, ``from_cache``, ``fetched_at``, ``findings`` ...;
            ``rows_received`` counts each frame's own rows).

        Examples
        --------
        >>> name = client.private.companies(limit=1)["name"][0]
        >>> matches, candidates = client.private.resolve_companies([name, "Globex"])
        >>> matches["match_type"].tolist()
        ['exact', 'no_match']
        """
        return self._resolver.resolve(
            "companies", names, on_ambiguous, progress, refresh, cache, strict
        )

    def resolve_investors(
        self,
        names: Iterable[str],
        *,
        on_ambiguous: str = "none",
        strict: bool = False,
        progress: bool | None = None,
        refresh: bool = False,
        cache: bool = True,
    ) -> Resolution:
        """Resolve investor names to ids; see :meth:`resolve_companies`.

        Parameters
        ----------
        names : list of str
            Any number, batched as for :meth:`resolve_companies`.
        on_ambiguous, strict, progress, refresh, cache
            As for :meth:`resolve_companies`.

        Returns
        -------
        Resolution
            ``(matches, candidates)``, as for :meth:`resolve_companies`.

        Examples
        --------
        >>> investor = client.private.investors(limit=1)
        >>> misspelt = investor["name"][0][:-1]  # "Acme Capita"
        >>> matches, _ = client.private.resolve_investors([misspelt], on_ambiguous="best")
        >>> matches["match_type"][0], matches["id"][0] == investor["id"][0]  # the best candidate
        ('ambiguous', True)
        """
        return self._resolver.resolve(
            "investors", names, on_ambiguous, progress, refresh, cache, strict
        )

    # ------------------------------------------------------------------ aggregate

    @_filters_apart
    def aggregate(
        self,
        metric: str,
        time_bucket: str = "quarter",
        filters: Mapping[str, Any] | None = None,
        *,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
        id: Ids = None,
        target_id: Ids = None,
        investor_id: Ids = None,
        deal_type: Strings = None,
        deal_subtype: Strings = None,
        date_from: Day = None,
        date_to: Day = None,
        valuation_min: Number = None,
        valuation_max: Number = None,
        raised_min: Number = None,
        raised_max: Number = None,
        revenue_min: Number = None,
        revenue_max: Number = None,
        ebitda_min: Number = None,
        ebitda_max: Number = None,
        ev_revenue_min: Number = None,
        ev_revenue_max: Number = None,
        ev_ebitda_min: Number = None,
        ev_ebitda_max: Number = None,
        target_country: Strings = None,
        target_region: Strings = None,
        target_verticals: Strings = None,
        target_themes: Strings = None,
        target_client_focus: Strings = None,
        target_revenue_model: Strings = None,
        target_company_type: Strings = None,
        updated_at: Moment = None,
        include_deleted: Flag = None,
    ) -> pd.DataFrame:
        """The service's IQR-trimmed medians of a deal metric per time bucket.

        Parameters
        ----------
        metric : {"ev_revenue", "ev_ebitda", "valuation", "raised", "revenue", "ebitda"}
        time_bucket : {"month", "quarter", "year", "none"}
        filters, id, target_id, investor_id, deal_type, deal_subtype, date_from : optional
        date_to, valuation_min, valuation_max, raised_min, raised_max : optional
        revenue_min, revenue_max, ebitda_min, ebitda_max, ev_revenue_min : optional
        ev_revenue_max, ev_ebitda_min, ev_ebitda_max, target_country : optional
        target_region, target_verticals, target_themes, target_client_focus : optional
        target_revenue_model, target_company_type, updated_at, include_deleted : optional
            Deal filters, as in :meth:`deals` (``date_from``/``date_to`` set the
            window; default the last 5 years). Ids are sent as given, never in batches
            (medians cannot be merged from batches): a refusal of more than 1,000 ids of
            a filter says which filter.
        strict : bool, default False
            Raise :class:`~dealframe.errors.ServiceContractError` instead of warning
            when the answer breaks the interface (repeated buckets, unreadable labels,
            counts that do not add up, buckets of a list in another order than time order:
            ``unsorted``, buckets whose statistics disagree with the
            ``small_n_threshold`` the answer reports: ``threshold_mismatch``, or
            ``suppression_unexplained`` when no one threshold gives them).
        {refresh}
        {cache}

        Returns
        -------
        pandas.DataFrame
            One row per bucket (bucket, period_start, period_end, n, median, q1,
            q3, warning), in time order whatever order the service serves them in (a
            label that cannot be read last), so ``frame.iloc[-1]`` is the latest bucket;
            ``bucket`` is ``YYYY-MM``, ``YYYY-Qn``, ``YYYY`` or ``all`` whatever label
            form the service uses (its own labels are in ``attrs["labels_as_served"]``,
            one a row, in the frame's order); the response meta in ``attrs``. A list of
            buckets in another order is said (``unsorted``, naming the first labels as
            served); buckets keyed by label in a JSON object, whose members have no
            order, are sorted without a word.

        Examples
        --------
        >>> client.private.aggregate("ev_revenue", "year", deal_type=["Venture"])
          bucket period_start period_end   n   median       q1        q3 warning
        0 ...
        """
        choice(metric, "metric", AGGREGATE_METRICS)
        choice(time_bucket, "time_bucket", TIME_BUCKETS)
        deadline = self._t.deadline()
        named = _given(self.aggregate, locals())
        schema, wire = self._build_filters(
            "transactions", filters, named, deadline, refresh=refresh, cache=cache
        )
        body = {"metric": metric, "time_bucket": time_bucket, "filters": wire}
        path = "/transactions/aggregate"
        try:
            response = self._request("POST", path, "aggregate", refresh, cache, deadline, json=body)
        except ApiError as exc:
            noted = aggregate_refused(exc, over_bound(ids_held(schema, wire)))
            if noted is exc:
                raise
            raise noted from None
        endpoint = f"POST {PREFIX}/transactions/aggregate"
        found = Findings(endpoint)
        doc = response.json()
        say_echoed(doc, found)  # its texts the transport blanked (meta's too)
        frame = read_aggregate(doc, time_bucket, found, response.request, metric=metric)
        attach(
            frame, endpoint=endpoint, responses=[response], request=body, findings=found.records()
        )
        found.report(strict=strict, partial=frame)
        return frame
