"""Family A (public company metrics) as DataFrames: ``client.public`` (v2) and ``client.public_v1``.

Each method checks its arguments (:mod:`.query`, :mod:`.sku`), sends the
requests through the client's transport (chunked and concurrent where the
service caps a request), and shapes the JSON with :mod:`dealframe.frames.public`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import re
import time
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import pandas as pd

from .._vocab import GROUP_SUM_AND_MEDIAN, GROUP_SUM_ONLY, SKUS_PER_CURRENT_REQUEST
from ..arguments import checked_keywords, checked_methods, choice, integer_in
from ..contract import (
    Finding,
    Findings,
    dedupe_items,
    document_values,
    first_of,
    identities,
    keys_present,
    meta_values,
    missing_fields,
    no_meta,
    null_fields,
    read_items,
    respelled_fields,
    say_echoed,
    shaping,
    typed_fields,
)
from ..errors import (
    ApiError,
    BadRequestError,
    DealframeError,
    IncompleteResultError,
    RequestInfo,
    ValidationError,
    incomplete,
)
from ..field_names import fields_noted
from ..frames.public import (
    META_COUNTS,
    as_mappings,
    current_frame,
    group_current_frame,
    group_time_series_frame,
    month_ordinal,
    read_current_page,
    read_meta,
    search_frame,
    time_series_long,
    time_series_wide,
)
from ..frames.schemas import CURRENT_DATA
from ..notices import MissingDataWarning, missing_kept, user_stacklevel, warn_missing
from ..provenance import attach
from ..transport.body import expecting
from ..transport.paging import FATAL_ERRORS, map_concurrent
from ..transport.refusals import smaller_size
from .extras import item_extras
from .fields import ServedFields, ordered_names, served_names
from .hints import HINT_SECONDS, unmatched_values
from .query import check_window, group_body, month_string, search_body, time_series_fields
from .rates import adapt_rates
from .sku import off_layout, validate_skus
from .window import MonthsOutside, periods_in_window

if TYPE_CHECKING:
    from ..transport.session import Response, Transport

__all__ = [
    "GROUP_CURRENT_PATH",
    "GROUP_TIME_SERIES_PATH",
    "GroupSeries",
    "PublicApi",
    "answer_count",
    "check_group_classes",
    "fewer_skus",
    "read_company_items",
    "read_group_series",
    "series_meta",
]

#: SKUs per time-series request (the service sets no cap; chunks keep bodies small and parallel).
SKUS_PER_TIME_SERIES_REQUEST = 100

#: The group endpoints the interface document promises (section 4.1), one version each: whether
#: ``/api/v1/groups/current`` and ``/api/v2/groups/time-series`` exist is "not shown". Group
#: bodies carry no SKUs, so ``client.public`` and ``client.public_v1`` both send them here.
GROUP_CURRENT_PATH = "/api/v2/groups/current"
GROUP_TIME_SERIES_PATH = "/api/v1/groups/time-series"


Strings: TypeAlias = Iterable[str] | str | None
Month: TypeAlias = str | pd.Period | dt.date | None


def _group(
    industries: Strings,
    themes: Strings,
    regions: Strings,
    countries: Strings,
    enterprise_value_above: float | None,
) -> dict[str, Any]:
    """The search members that were given (None: no constraint)."""
    given = {
        "industries": industries,
        "themes": themes,
        "regions": regions,
        "countries": countries,
        "enterprise_value_above": enterprise_value_above,
    }
    return {name: value for name, value in given.items() if value is not None}


class _Asked(NamedTuple):
    """The SKUs of a call: ``skus``, each once in the caller's order (what is sent), ``at``
    the position in the caller's list of each one's first occurrence, and ``given`` the
    length of the caller's list (repeats and all)."""

    skus: list[str]
    at: list[int]
    given: int


def _some_skus(skus: object, version: str, served: Collection[str] = ()) -> _Asked:
    """:func:`validate_skus`, and at least one: the service refuses an empty ``skus``
    (section 7: "skus must not be empty"), so an empty list is refused before any request.
    ``served``: SKUs out of the layout that the service listed (:meth:`PublicApi.search`),
    taken as they are.

    Examples
    --------
    >>> _some_skus(["A-USA", "B-USA", "A-USA", "C-USA"], "v2")
    _Asked(skus=['A-USA', 'B-USA', 'C-USA'], at=[0, 1, 3], given=4)
    """
    given = list(skus) if isinstance(skus, Iterator) else skus  # read once: kept
    wanted = validate_skus(given, version, served=served)
    items = given if isinstance(given, list) else list(given)  # type: ignore[call-overload]
    if not wanted:
        raise ValidationError(
            "skus",
            "at least one SKU (the service refuses an empty list; a search that matched "
            "nothing has no company to ask for)",
            got=items,
        )
    if len(items) == len(wanted):
        return _Asked(wanted, list(range(len(wanted))), len(items))
    first: dict[str, int] = {}
    for i, sku in enumerate(items):
        first.setdefault(sku, i)
    return _Asked(wanted, [first[sku] for sku in wanted], len(items))


def _series_members(
    fields: Strings,
    date_from: Month,
    date_to: Month,
    check: Callable[[list[str]], None] | None = None,
) -> tuple[dict[str, Any], tuple[list[str] | None, str | None, str | None]]:
    """The checked fields and months of a time-series body, as body members and as values;
    ``check`` is given the field names as the caller gave them (:func:`time_series_fields`)."""
    names = time_series_fields(fields, check)
    start, end = month_string(date_from, "date_from"), month_string(date_to, "date_to")
    check_window(start, end)
    given = {"fields": names, "dateFrom": start, "dateTo": end}
    return {k: v for k, v in given.items() if v is not None}, (names, start, end)


def _off_layout_said(skus: Iterable[Any], version: str, found: Findings) -> list[str]:
    """The SKUs a search listed that are not in the document's layout of ``version``
    (:func:`~dealframe.public.sku.off_layout`: ``aer-dnk``, a country in lower case), said
    in an ``unknown_value`` finding naming the first few and what is wrong with the first;
    the client takes them back as served (:meth:`PublicApi.current`, ``time_series``).

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies")
    >>> _off_layout_said(["ACME-USA", "aer-dnk"], "v2", found)
    ['aer-dnk']
    >>> found.items[0].message[:80]
    'sku outside the v2 layout <TICKER>-<ISO3>[.N] in 1 of 2 rows: aer-dnk (the first'
    """
    given = list(skus)
    off = off_layout(given, version)
    if off:
        shape = "<EXCHANGE>_<TICKER>" if version == "v1" else "<TICKER>-<ISO3>[.N]"
        why = next(iter(off.values())).strip()[1:-1]  # " (...)" of the first, or ""
        shown = first_of(list(off))
        found.add(
            "unknown_value",
            f"sku outside the {version} layout {shape} in {len(off):,} of {len(given):,} "
            f"rows: {shown}{f' (the first: {why})' if why else ''}: kept as served, and "
            "current() and time_series() of this client take them back as the service wrote "
            "them",
        )
    return list(off)


#: What a Family A answer that says it is incomplete leaves the caller to do: the interface
#: document describes no paging for Family A, so there is nothing the client can ask for.
_NOT_PAGED = "the interface document describes no paging here: the rest cannot be asked for"


def _chunk_label(at: list[int], chunk: list[str]) -> str:
    """A chunk of SKUs as an error names it: the positions in the caller's list (from 1) of
    its first and last SKU (``at``: each SKU's first position, from 0), and those SKUs. When
    SKUs the caller repeated lie between them, it says how many distinct SKUs it holds.

    Examples
    --------
    >>> _chunk_label(list(range(100, 200)), [f"T{i:04d}-USA" for i in range(100, 200)])
    'SKUs 101-200 (T0100-USA ... T0199-USA)'
    >>> _chunk_label([4], ["A-USA"]), _chunk_label([0, 1], ["A-USA", "B-USA"])
    ('SKU 5 (A-USA)', 'SKUs 1-2 (A-USA, B-USA)')
    >>> _chunk_label([105, 106, 155], ["X-USA", "Y-USA", "Z-USA"])
    'SKUs 106-156 (3 distinct: X-USA ... Z-USA)'
    """
    if len(chunk) == 1:
        return f"SKU {at[0] + 1} ({chunk[0]})"
    between = ", " if len(chunk) == 2 else " ... "
    run = at[-1] - at[0] == len(chunk) - 1
    distinct = "" if run else f"{len(chunk)} distinct: "
    return f"SKUs {at[0] + 1}-{at[-1] + 1} ({distinct}{chunk[0]}{between}{chunk[-1]})"


#: ``skus[i]`` in a service's message: the position of a SKU in the request it got.
_SKU_AT = re.compile(r"\bskus\[(\d+)\]")


def _position_note(message: str, at: list[int], chunk: list[str], given: int) -> str:
    """What ``skus[i]`` in the service's ``message`` about a request of ``chunk`` is in the
    caller's list of ``given`` SKUs (``at``: each SKU's first position there). The service
    counts within the request it got, which holds each SKU once and only some of them.

    Examples
    --------
    >>> _position_note("skus[1]: bad", [100, 101], ["A-USA", "B-USA"], 102)
    "skus[i] in the service's message is position 100 + i of yours: the request held SKUs 100..101 of 102"
    >>> _position_note("skus[1]: 'B_C-USA' is bad", [100, 155], ["A-USA", "B_C-USA"], 156)
    "skus[i] in the service's message is the request's i-th SKU: it held 2 distinct SKUs first given at positions 100..155 of your 156 (a SKU given twice is sent once); its skus[1] is position 155 of yours (B_C-USA)"
    """
    if at[-1] - at[0] == len(chunk) - 1:  # a run of the caller's list: an offset
        return (
            f"skus[i] in the service's message is position {at[0]} + i of yours: "
            f"the request held SKUs {at[0]}..{at[-1]} of {given}"
        )
    named = sorted({int(i) for i in _SKU_AT.findall(message) if int(i) < len(chunk)})
    each = "; ".join(f"its skus[{i}] is position {at[i]} of yours ({chunk[i]})" for i in named[:5])
    return (
        f"skus[i] in the service's message is the request's i-th SKU: it held {len(chunk)} "
        f"distinct SKUs first given at positions {at[0]}..{at[-1]} of your {given} (a SKU "
        "given twice is sent once)" + (f"; {each}" if each else "")
    )


def _checked(doc: Any, items: Any, found: Any) -> list[Any]:
    """The arguments of :func:`answer_count` and :func:`series_meta` checked: ``doc`` an
    answer's JSON object, ``items`` a list, ``found`` a :class:`~dealframe.contract.Findings`
    (what is read is added to it); else a :class:`~dealframe.errors.ValidationError` naming
    the argument. Returns ``items`` as a list."""
    if not isinstance(doc, Mapping):
        raise ValidationError("doc", "an answer's JSON object", got=type(doc).__name__)
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise ValidationError("items", "a list of the answer's items", got=type(items).__name__)
    _check_found(found)
    return list(items)


def _check_found(found: Any) -> None:
    """Refuse a ``found`` that is no :class:`~dealframe.contract.Findings` (``None`` too: what
    is read would be said nowhere)."""
    if not isinstance(found, Findings):
        raise ValidationError(
            "found", "a dealframe.contract.Findings (what is read is added to it)", got=found
        )


@checked_keywords
def answer_count(
    doc: Mapping[str, Any], items: Sequence[Any], found: Findings, what: str, *, whole: bool = False
) -> int | None:
    """The rows an answer says the whole result holds, with a finding added to ``found`` when
    it holds fewer.

    ``meta.count`` that differs from ``data``; a ``meta.total`` above both (a service that
    caps or pages the answer); ``meta.has_more: true`` (more, how many not said). Returns the
    larger of ``count`` and ``total`` (None when neither is a count, or ``has_more`` alone
    says there are more). Those written as text are read, and said in one finding
    (:func:`~dealframe.contract.meta_values`).

    ``whole``: the answer holds every item its request asked for (a chunk of SKUs that got
    each of its SKUs back), so it cannot be short: ``has_more: true`` is not said, and a
    count above ``data`` is said as no rows lost (no shortfall).

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies")
    >>> answer_count({"meta": {"count": 2, "total": 5}}, [{}, {}], found, "companies")
    5
    >>> found.items[0].message.split(":")[0], found.items[0].shortfall
    ('meta.total says 5 companies, data holds 2', 3)

    Raises
    ------
    dealframe.errors.ValidationError
        ``doc`` is not an object, ``items`` not a list, ``found`` not a
        :class:`~dealframe.contract.Findings` (None too), ``what`` not text.
    """
    items = _checked(doc, items, found)
    if not isinstance(what, str):
        raise ValidationError("what", "text naming the rows (companies, items)", got=what)
    read = meta_values(doc, found, counts=("count", "total"), flags=("has_more",), needed=True)
    return _counted(read, len(items), found, what, whole)


def _counted(
    read: Mapping[str, Any], held: int, found: Findings, what: str, whole: bool = False
) -> int | None:
    """:func:`answer_count` of the ``meta`` values read (``count``, ``total``, ``has_more``)
    of an answer whose ``data`` holds ``held`` items."""
    count, total, more = read["count"], read["total"], read["has_more"]
    if count is not None and count != held:
        found.add(
            "count_mismatch",
            f"meta.count says {count} {what}, data holds {held}",
            shortfall=0 if whole else count - held,
        )
    said = max(held, count or 0)
    if total is not None and total > said:
        found.add(
            "count_mismatch",
            f"meta.total says {total} {what}, data holds {held}: {_NOT_PAGED}",
            shortfall=0 if whole else total - said,
        )
    elif more and said == held and not whole:
        found.add(
            "count_mismatch",
            f"meta.has_more is true: the service holds more {what} than the {held} in data; "
            f"{_NOT_PAGED}",
            shortfall=1,  # at least one
        )
        return None  # how many is not said
    counts = [n for n in (count, total) if n is not None]
    return max(counts) if counts else None


@checked_keywords
def series_meta(
    doc: Mapping[str, Any], items: Sequence[Any], found: Findings
) -> tuple[Any, int | None]:
    """A group time-series answer's ``meta`` (its counts as integers:
    :func:`~dealframe.frames.public.read_meta`; ``has_more`` as the boolean it says) and the
    periods it says the group has (:func:`answer_count`): its counts and ``has_more`` written
    as text are said in one finding added to ``found``, as a list page's are, and so is a
    count above the periods held. Arguments are checked as :func:`answer_count` checks them.

    Examples
    --------
    >>> found = Findings("POST /api/v1/groups/time-series")
    >>> doc = {"meta": {"count": "2", "companies": "15", "has_more": "false"}}
    >>> series_meta(doc, [{}, {}], found)
    ({'count': 2, 'companies': 15, 'has_more': False}, 2)
    >>> [f.message.split(" written")[0] for f in found]
    ['meta.count, meta.companies, meta.has_more']
    """
    items = _checked(doc, items, found)
    read = meta_values(doc, found, counts=META_COUNTS, flags=("has_more",), needed=True)
    meta = read_meta(doc.get("meta"), Findings(found.where))  # the counts: said above
    if isinstance(meta, dict) and read["has_more"] is not None:
        meta["has_more"] = read["has_more"]
    return meta, _counted(read, len(items), found, "periods")


def _one_shortfall(short: list[Finding], answers: int) -> list[Finding]:
    """The ``count_mismatch`` findings of rows lost that several answers of one call say
    (chunks of SKUs, each short by its own ``meta``) as one finding of the call, its
    shortfall theirs together; one or none as they are.

    Examples
    --------
    >>> said = [Finding("count_mismatch", "POST /x", "meta.count says 3 items, data holds 2", 1)]
    >>> [f.message for f in _one_shortfall(said * 2, 4)]
    ['2 of 4 answers hold fewer items than their meta says; the first: meta.count says 3 items, data holds 2']
    """
    if len(short) < 2:
        return short
    first = short[0]
    return [
        Finding(
            first.kind,
            first.where,
            f"{len(short)} of {answers} answers hold fewer items than their meta says; "
            f"the first: {first.message}",
            sum(f.shortfall for f in short),
        )
    ]


def _sku_count_refused(status: int, words: str) -> bool:
    """Whether a refusal (its status and words) is about how many SKUs a request holds: a
    413, or words that name SKUs but no position (``skus[3]: ... is not a v2 SKU`` is about
    one SKU, and a smaller request would be refused alike)."""
    low = words.lower()
    return status == 413 or ("sku" in low and re.search(r"skus?\s*\[\s*\d", low) is None)


@checked_keywords
def fewer_skus(error: ApiError, sent: int) -> int | None:
    """The SKUs per request to send after ``error`` refused a request of ``sent`` as too
    many: the bound its words state, else half; None when it is another refusal. An
    ``error`` that is no :class:`~dealframe.errors.ApiError`, or a ``sent`` that is no whole
    number of 1 or more, is a :class:`~dealframe.errors.ValidationError` naming it.

    Examples
    --------
    >>> said = "skus: at most 50 SKUs per request, got 100"
    >>> fewer_skus(BadRequestError(400, "BAD_REQUEST", said), 100)
    50
    >>> fewer_skus(BadRequestError(400, "BAD_REQUEST", "skus[3]: 'X' is not a v2 SKU"), 100)
    """
    if not isinstance(error, ApiError):
        raise ValidationError("error", "a dealframe.errors.ApiError", got=type(error).__name__)
    sent = integer_in(sent, "sent", 1, None, "a whole number of SKUs, 1 or more")
    return smaller_size(error, sent, lambda words: _sku_count_refused(error.status, words))


#: The words that begin the ``missing_field`` finding of requested names no item holds at all
#: (:func:`_absent_requested`).
_NOT_HELD = "requested field(s) absent from "


def _absent_requested(
    items: list[Mapping[str, Any]],
    member: str,
    names: list[str] | None,
    found: Findings,
    served: ServedFields,
    window: bool,
    outside: Callable[[Any], bool] | None = None,
    guessed: Sequence[str] = (),
) -> list[str]:
    """Say which requested ``names`` the items' ``member`` (``data``, ``median``) gives no
    value (a month not null and not ``outside`` the window sent, :func:`_valued`), and keep in
    ``served`` the names it gives one;
    return the names no item holds as a key (the frame's ``attrs["fields_not_held"]``).

    - A name some item holds as a key, with no value anywhere (months all null, an empty map,
      a null median), is missing data, never a service fault: one
      :class:`~dealframe.MissingDataWarning` for the call (``no value for X in data of any of
      the 3 items: their columns are all null``; ``in this window`` when ``window``, a
      ``date_from`` or ``date_to`` given). Such a name is not kept as served.
    - A name no item holds as a key is a ``missing_field`` finding (the client sent it as
      given: the service may not serve it), returned.
    - When no item holds any key (``data: {}`` in every item: a service that leaves empty
      maps out; a group answer with no period, ``data: []``), the answer holds no data: every
      name is missing data, said once (a company series whose items all lack ``data`` has
      its SKUs said as not returned instead).
    - Without ``names`` (the service's default fields), an answer none of whose fields holds
      a value (a window with no month of data), or a group answer with no period, is
      missing data too, said once: never a silent frame of nulls, or of no row. When its
      columns are then ``guessed`` (the document's fields, :func:`_series_columns`), the
      warning names them; so does one for a company answer with no item.

    A name is given the closest name known (``served``: the document's, those seen with a
    value, and the names this answer holds) only when it is none of those."""
    window_said = " in this window" if window else ""
    there = " in the window" if window else ""  # values outside it may exist, dropped
    note = _guessed_note(guessed)
    if not items:  # no item: a group answer with no period (data: []), or no SKU returned
        if member == "median" and names:
            warn_missing(
                f"no value for {', '.join(_hinted(names, served, frozenset()))}{window_said}: "
                "the answer holds no period, their columns are all null"
            )
        elif member == "median":  # no field named: the columns of the fields known, null
            said = note or ", so the columns of the fields served before are all null"
            warn_missing(f"no value{window_said}: the answer holds no period{said}")
        elif guessed:  # no SKU returned (each said as such): the columns are a guess
            warn_missing(f"no value{window_said}: the answer holds no SKU's data{note}")
        return []
    have: set[str] = set()
    held = 0
    for item in items:
        values = item.get(member)
        if isinstance(values, Mapping):
            have.update(name for name, value in values.items() if _valued(value, outside))
            held += 1
    served.add(have)
    if not held:  # every member null or absent: said by the caller (null_field)
        if guessed:
            warn_missing(f"no value{window_said}: no item holds {member}{note}")
        return []
    keys = served_names(items, member)
    asked = list(dict.fromkeys(names or ()))
    # a name held with no value, or any when the answer holds no key at all: missing data;
    # no name asked: missing data when no field the answer holds has a value
    empty = [n for n in asked if n not in have and (n in keys or not keys)]
    if empty or (not asked and not have):
        what = f"for {', '.join(_hinted(empty, served, keys))} " if empty else ""
        if empty:
            said = "their columns are all null"
        elif keys:
            said = f"none of the {len(keys)} fields it holds has one, every value{there} is null"
        else:
            said = f"the answer holds no field{note}"
        warn_missing(f"no value {what}in {member} of any of the {held} items{window_said}: {said}")
    absent = [n for n in asked if n not in keys and keys]
    if absent:
        found.add(
            "missing_field",
            f"{_NOT_HELD}{member} of all {held} items: {', '.join(_hinted(absent, served, keys))}",
        )
    return absent


def _respelled_members(
    items: list[Mapping[str, Any]],
    member: str,
    names: list[str] | None,
    found: Findings,
    label: str,
) -> list[Mapping[str, Any]]:
    """``items`` with each key of their ``member`` (``data``, ``median``) that spells one of the
    time-series fields asked (``names``) in another case or with separators (``EVREVENUENTM``,
    ``ev_revenue_ntm`` for ``evRevenueNtm``) read as it, said once (``respelled_field``,
    naming the items by their ``label`` member: ``sku``, ``period``): the rule of
    ``current()`` (:func:`~dealframe.contract.respelled_fields`), so values served under
    another spelling of a field asked are read, not thrown away. Beside the field itself, a
    spelling fills the months the field lacks (``data``: months matched as the frames read
    them, ``2024-01`` and ``2024-01-01`` one month; the items of one SKU one series) or a
    period's null value (``median``), the field's own value kept where both hold one, said;
    a spelling not read is left out of the item. Without ``names`` (the service's default
    fields, its own names) the items are as served.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> _respelled_members([{"sku": "A", "data": {"PE_NTM": {"2024-01": 1.0}}}], "data",
    ...                    ["peNtm"], found, "sku")
    [{'sku': 'A', 'data': {'peNtm': {'2024-01': 1.0}}}]
    >>> found.items[0].kind
    'respelled_field'
    """
    if not names:
        return items
    held = [item for item in items if isinstance(item.get(member), Mapping)]
    read = respelled_fields(
        [item[member] for item in held],
        names,
        found,
        read_as="the field asked",
        labels=[str(item.get(label, f"item {at + 1}")) for at, item in enumerate(held)],
        series=True,
        month=month_ordinal if member == "data" else None,  # data: maps of months
    )
    if all(new is item[member] for new, item in zip(read, held, strict=True)):
        return items  # no key respelled: most answers
    each = iter(read)
    return [
        {**item, member: next(each)} if isinstance(item.get(member), Mapping) else item
        for item in items
    ]


def _guessed_note(guessed: Sequence[str]) -> str:
    """The words of a missing-data warning for a frame whose field columns are ``guessed``
    (the document's fields: :func:`_series_columns`), or none.

    Examples
    --------
    >>> _guessed_note(["evRevenueLtm"])
    ", and no earlier answer told which fields the service serves: the columns are the document's time-series fields (evRevenueLtm), all null (name fields for fixed columns)"
    """
    if not guessed:
        return ""
    return (
        ", and no earlier answer told which fields the service serves: the columns are the "
        f"document's time-series fields ({', '.join(guessed)}), all null (name fields for "
        "fixed columns)"
    )


def _series_columns(
    served: ServedFields, endpoint: str, names: list[str] | None, held: list[str], framed: bool
) -> tuple[list[str] | None, tuple[str, ...]]:
    """The fields a time-series frame of ``endpoint`` (``"time_series"``,
    ``"group_time_series"``) is built with, and the document's fields among them when they are
    a guess (for the warning: :func:`_guessed_note`).

    With ``names`` (the fields asked): those. Without, the fields the answer holds (``held``,
    in order) are kept as the service's default ones
    (:meth:`~dealframe.public.fields.ServedFields.served_by_default`); when the frame holds
    one (``framed``), None: the answer's own. Else, an answer with no field (SKUs not returned,
    a group or a window with no data) has the columns of the fields served by default before,
    or, when none was, the document's (:data:`~dealframe.public.fields.SERIES_EXAMPLES`),
    guessed: the same columns whether 0, 1 or N entities come back.

    Examples
    --------
    >>> served = ServedFields()
    >>> _series_columns(served, "time_series", None, [], False)
    (['evRevenueLtm', 'evRevenueNtm', 'marginEbitdaLtm'], ('evRevenueLtm', 'evRevenueNtm', 'marginEbitdaLtm'))
    >>> _series_columns(served, "time_series", None, ["marketCap"], True)
    (None, ())
    >>> _series_columns(served, "time_series", None, [], False)
    (['marketCap'], ())
    """
    if names is not None:
        return names, ()
    served.served_by_default(endpoint, held)
    if framed:
        return None, ()
    columns, documents = served.default_columns(endpoint)
    return list(columns), columns if documents else ()


def _hinted(names: Iterable[str], served: ServedFields, keys: Iterable[str]) -> list[str]:
    """Each of ``names`` with the closest name known when it is not one
    (:meth:`~dealframe.field_names.KnownFields.hint`, ``keys`` the names the answer holds)."""
    return [name + served.hint(name, keys) for name in names]


def _valued(value: Any, outside: Callable[[Any], bool] | None = None) -> bool:
    """Whether a field's value in a time-series item holds a value: a company's map of
    months with one month not null (and not ``outside`` the window sent, when given), a
    group's value not null.

    Examples
    --------
    >>> _valued({"2024-01": None, "2024-02": 1.5}), _valued({"2024-01": None}), _valued({})
    (True, False, False)
    >>> _valued({"2001-01": 1.5}, MonthsOutside("2024-01", None))
    False
    >>> _valued(2.5), _valued(None)
    (True, False)
    """
    if isinstance(value, Mapping):
        if outside is None:
            return any(month is not None for month in value.values())
        return any(v is not None and not outside(k) for k, v in value.items())
    return value is not None


def _with_data(items: list[Mapping[str, Any]], found: Findings) -> list[Mapping[str, Any]]:
    """The time-series items that hold ``data``; one whose ``data`` is null or absent is said
    (a ``null_field`` finding naming its SKU) and left out, so its SKU counts as not returned
    (``attrs["missing_skus"]``), as a SKU the service left out does. One whose ``data`` is
    empty (``{}``) is kept (the SKU was returned) and said: it has no value; when every item's
    is, the answer holds no data, which :func:`_absent_requested` says as missing data."""
    kept = [it for it in items if it.get("data") is not None]
    bare = [str(it.get("sku")) for it in kept if isinstance(it["data"], Mapping) and not it["data"]]
    if bare and len(bare) < len(kept):  # returned, with no field at all: said, not silent
        shown = first_of(bare)
        found.add(
            "null_field",
            f"data is empty ({{}}) in {len(bare)} of {len(items)} items ({shown}): no value "
            "for their SKUs",
        )
    if len(kept) < len(items):
        empty = [str(it.get("sku")) for it in items if it.get("data") is None]
        shown = first_of(empty)
        found.add(
            "null_field",
            f"data is null or absent in {len(empty)} of {len(items)} items ({shown}): "
            "their SKUs count as not returned",
        )
    return kept


#: A month written with its day, as the frames read it (``2023-01-01``).
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}$")


def _by_month(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """``item`` with its ``period`` as ``YYYY-MM`` when it is written with a day, so one month
    in two spellings (``2023-01``, ``2023-01-01``) is one period, repeated.

    Examples
    --------
    >>> _by_month({"period": "2023-01-01", "median": {}})
    {'period': '2023-01', 'median': {}}
    """
    period = item.get("period") if isinstance(item, Mapping) else None
    if isinstance(period, str) and len(period) == 10 and _DAY.match(period):
        return {**item, "period": period[:7]}
    return item


class GroupSeries(NamedTuple):
    """A group time-series answer as :func:`read_group_series` reads it."""

    #: Months x fields (:func:`~dealframe.frames.public.group_time_series_frame`).
    frame: pd.DataFrame
    #: The periods read, each once (the first of a repeated one kept), months as ``YYYY-MM``.
    items: list[Mapping[str, Any]]
    #: The periods the answer says the group has (:func:`series_meta`), None when unsaid.
    expected: int | None
    #: The fields asked that no period holds (``attrs["fields_not_held"]``).
    not_held: list[str]
    #: The periods of ``items`` within the window asked: those the frame holds.
    inside: list[Mapping[str, Any]]


@checked_keywords
def read_group_series(
    doc: Mapping[str, Any],
    found: Findings,
    request: RequestInfo,
    *,
    fields: list[str] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    served: ServedFields | None = None,
    window: bool = False,
) -> GroupSeries:
    """A group time-series answer read as ``group_time_series`` reads it, step by step: its
    items (periods written with a day read as months), their identities and documented
    members, a period repeated kept once (the first), the fields asked that it holds no value
    for (with ``served``: the client's names seen), null medians, its ``meta``, then the frame
    of the months from ``date_from`` to ``date_to`` (periods outside are dropped, their
    values never read, and said: :func:`~dealframe.public.window.periods_in_window`). What
    it says is added to ``found``; what the frame cannot read is raised as the client raises
    it (a :class:`~dealframe.errors.ServiceContractError` naming ``request``). ``dealframe doctor`` reads its probe's answer with it, so the two never
    read an answer apart.

    Examples
    --------
    >>> doc = {"data": [{"period": "2024-01", "median": {"pe": 1.5}},
    ...                 {"period": "2024-01-01", "median": {"pe": "abc"}},
    ...                 {"period": "2023-12", "median": {"pe": "abc"}}],
    ...        "meta": {"count": 2, "companies": 4}}
    >>> found = Findings("POST /api/v1/groups/time-series")
    >>> read = read_group_series(doc, found, RequestInfo("POST", "/api/v1/groups/time-series",
    ...                          "public"), date_from="2024-01", date_to="2024-01")
    >>> read.frame["pe"].tolist(), read.expected, [f.kind for f in found]
    ([1.5], 2, ['conflicting_rows', 'unrequested'])
    >>> found.items[1].message.split(":")[0]  # 2023-12, outside the window asked
    '1 month (2023-12) outside the window sent (dateFrom 2024-01, dateTo 2024-01)'
    """
    _check_found(found)
    items = [_by_month(item) for item in read_items(doc, found)]
    identities(items, "period", found)
    absent = missing_fields(keys_present(items), "group_time_series", found, n_items=len(items))
    items = dedupe_items(items, "period", found)
    items = _respelled_members(
        items, "median", fields, found, "period"
    )  # another spelling of a name asked
    inside = periods_in_window(items, date_from, date_to, found)  # the others: said, dropped
    columns: list[str] | None = fields
    guessed: tuple[str, ...] = ()  # the document's fields, when they are the columns
    if served is not None:
        held = ordered_names(items, "median")
        framed = bool(ordered_names(inside, "median"))
        columns, guessed = _series_columns(served, "group_time_series", fields, held, framed)
    not_held = (
        []
        if served is None
        else _absent_requested(inside, "median", fields, found, served, window, guessed=guessed)
    )
    if "median" not in absent:  # absent from every item: missing_field said it already
        _null_medians(inside, found)
    meta, count = series_meta(doc, items, found)  # written as text: read, said once
    with shaping(request, found.where, found):
        frame = group_time_series_frame(
            inside, meta, fields=columns, date_from=date_from, date_to=date_to
        )
    return GroupSeries(frame, items, count, not_held, inside)


def _null_medians(items: list[Mapping[str, Any]], found: Findings) -> None:
    """A ``null_field`` finding naming the periods whose ``median`` is null or absent: their
    rows are kept, every value NaN (a silent row of empty values until said)."""
    empty = [str(it.get("period")) for it in items if it.get("median") is None]
    if empty:
        shown = first_of(empty)
        found.add(
            "null_field",
            f"median is null or absent in {len(empty)} of {len(items)} periods ({shown}): "
            "their rows are kept, every value NaN",
        )


@checked_keywords
def check_group_classes(frame: pd.DataFrame, found: Findings) -> None:
    """Sums and medians where section 2.1 gives each field class them (layout not shown):
    what is missing is added to ``found`` (``missing_field``; ``wrong_shape`` for a group
    whose answer holds no field at all).

    Sum only: marketCap, enterpriseValue; sum and median: revenue/EBITDA LTM and NTM;
    median only: every other numeric field. ``frame`` is a group current-data frame
    (:func:`~dealframe.frames.public.group_current_frame`); anything but a DataFrame, or a
    ``found`` that is no :class:`~dealframe.contract.Findings`, is a
    :class:`~dealframe.errors.ValidationError` naming it.

    Examples
    --------
    >>> found = Findings("POST /api/v2/groups/current")
    >>> check_group_classes(group_current_frame({"sum": {"marketCap": 1.0}, "median": {}}), found)
    >>> [f.kind for f in found]
    ['missing_field', 'missing_field']
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", "a group current-data DataFrame", got=type(frame).__name__)
    _check_found(found)
    if frame.attrs.get("companies") == 0 or frame.attrs.get("count") == 0:
        return  # an empty group: every statistic is null
    if not len(frame):
        # a group of companies whose answer holds no field: an answer gone wrong (not how a
        # service answers every time), so the call's cache entries go (contract.KEPT_IN_CACHE)
        found.add("wrong_shape", "the answer holds no field at all for a group of companies")
        return
    for stat, fields in (
        ("sum", (*GROUP_SUM_ONLY, *GROUP_SUM_AND_MEDIAN)),
        ("median", GROUP_SUM_AND_MEDIAN),
    ):
        have = frame[stat].dropna().index if stat in frame else pd.Index([])
        absent = [f for f in fields if f not in have]
        if len(absent) == len(fields):
            found.add(
                "missing_field",
                f"no {stat} in the answer (the document gives {', '.join(fields[:3])}... a {stat})",
            )
        elif absent:
            found.add("missing_field", f"no {stat} for {', '.join(absent)}")


def _as_asked(
    items: list[Mapping[str, Any]], wanted: list[str], found: Findings
) -> list[Mapping[str, Any]]:
    """``items`` with each SKU that was not asked for but equals one asked SKU up to case
    (``celz-gbr`` for ``CELZ-GBR``) written as asked, said once (``respelled_sku``). A SKU
    that equals several asked ones up to case is left as sent (dropped as not asked for).

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies/current")
    >>> [it["sku"] for it in _as_asked([{"sku": "a-usa"}], ["A-USA"], found)]
    ['A-USA']
    >>> found.items[0].kind
    'respelled_sku'
    """
    folded: dict[str, str | None] = {}
    for name in wanted:  # two asked SKUs equal up to case: neither can be told
        folded[name.casefold()] = name if folded.get(name.casefold(), name) == name else None
    asked = set(wanted)
    out: list[Mapping[str, Any]] = []
    respelled: list[str] = []
    for item in items:
        sku = item.get("sku")
        mine = folded.get(sku.casefold()) if isinstance(sku, str) and sku not in asked else None
        if mine is not None:
            respelled.append(f"{sku!r} for {mine!r}")
            item = {**item, "sku": mine}
        out.append(item)
    if respelled:
        found.add(
            "respelled_sku",
            f"{len(respelled)} items have their SKU in another case than asked "
            f"({first_of(respelled, 3)}): "
            "read as the SKU asked",
        )
    return out


def _empty_group(frame: pd.DataFrame) -> bool:
    """Whether a groups/current frame says its group matched no company: ``meta.companies``
    of 0; without it (the document does not show this ``meta``), a ``meta.count`` of 0, the
    Family A count, or no statistic in ``data`` with a value.

    Examples
    --------
    >>> nan = float("nan")
    >>> frame = pd.DataFrame({"sum": [nan], "median": [nan]}, index=["marketCap"])
    >>> frame.attrs = {"count": 12}
    >>> _empty_group(frame)
    True
    >>> frame.attrs = {"count": 12, "companies": 3}
    >>> _empty_group(frame)
    False
    """
    companies = frame.attrs.get("companies")
    if companies is not None:
        return bool(companies == 0)
    return bool(frame.attrs.get("count") == 0 or frame.isna().all(axis=None))


def _skus_of(items: list[Any]) -> list[Any]:
    """The ``sku`` of each item (None where it has none), dicts or typed rows alike
    (:func:`~dealframe.frames.public.read_current_page`)."""
    if typed_fields(items) is not None:
        return list(map(attrgetter("sku"), items))
    return [item.get("sku") for item in items]


def _as_json(responses: list[Response], where: str) -> list[Any]:
    """The items of every answer as the JSON reading has them: an answer the typed reader
    took (:func:`~dealframe.frames.public.read_current_page`) is parsed again by orjson.

    What a call whose answers were read both ways checks, so that its items are all of one
    kind and hold the values as served; the typed reading has said what the items and the
    ``meta`` of its answers hold (the same as this reading would), so what this reading
    finds is not said again.
    """
    items: list[Any] = []
    for response in responses:
        items += read_items(response.json(), Findings(where))
    return items


def _in_order(frame: pd.DataFrame, returned: list[Any], wanted: list[str]) -> pd.DataFrame:
    """Rows of the SKUs asked for, in the order asked (a SKU returned twice: its first row).

    ``returned`` is the SKU of each row of ``frame``, in order. Rows the service sent for
    SKUs nobody asked for are dropped; SKUs it did not send are simply absent.
    """
    if returned == wanted:
        return frame
    first: dict[Any, int] = {}
    for position, sku in enumerate(returned):
        first.setdefault(sku, position)
    return frame.take([first[s] for s in wanted if s in first])


def _chunk_parts(
    items: list[Any], sizes: list[int], sent: list[list[str]]
) -> list[tuple[str, int, set[str]]]:
    """The chunks ``items`` came in (``sizes``: the items of each, in order; ``sent``: the
    SKUs each asked for) as :func:`~dealframe.contract.missing_fields` takes its ``parts``:
    ``(its label, its items, the members they hold)``, read as
    :func:`~dealframe.contract.keys_present` reads an answer.

    Examples
    --------
    >>> parts = _chunk_parts([{"sku": "A"}, {"sku": "B", "x": 1}], [1, 1], [["A"], ["B", "C"]])
    >>> [(label, rows, sorted(keys)) for label, rows, keys in parts]
    [('chunk 1 (A)', 1, ['sku']), ('chunk 2 (B ... C)', 1, ['sku', 'x'])]
    """
    parts: list[tuple[str, int, set[str]]] = []
    start = 0
    for number, (size, skus) in enumerate(zip(sizes, sent, strict=True), 1):
        asked = " ... ".join(dict.fromkeys([skus[0], skus[-1]])) if skus else "no SKU"
        parts.append((f"chunk {number} ({asked})", size, keys_present(items[start : start + size])))
        start += size
    return parts


def read_company_items(
    responses: list[Response],
    sent: list[list[str]],
    wanted: list[str],
    found: Findings,
    answer: str,
) -> list[Mapping[str, Any]]:
    """The checked items of every chunk: objects with a SKU that was asked for, once each
    (the first of a SKU repeated); of a time series (``answer``), in the order ``wanted``,
    those without ``data`` said and left out (their SKUs count as not returned).
    ``client.public.current`` and ``time_series`` read their answers with it, and so does
    ``dealframe doctor`` its probe's (``A.current``, ``A.time_series``): they never read an
    answer apart.

    Each chunk's ``meta`` is read as :meth:`search` reads it (``bad_meta``,
    ``count_mismatch``); what every chunk says alike is said once, and the rows the
    chunks' ``meta`` say they lack in one finding for the call. A chunk that holds every
    SKU it was sent (``sent``) cannot be short, whatever its ``meta`` says
    (:func:`answer_count`'s ``whole``). The items are typed
    rows where every answer with items was read by :func:`read_current_page`, else the
    dicts of the JSON reading: when some answers were read the typed way and some were
    not, the typed ones are read again as JSON (:func:`_as_json`), so a row repeated
    across them compares as served (a typed row holds ``1046.0`` where the JSON has
    ``1046``)."""
    asked = set(wanted)
    items: list[Any] = []
    typed: set[bool] = set()
    short: list[Finding] = []
    sizes: list[int] = []  # items of each chunk, in order (for the fields of each)
    for response, skus in zip(responses, sent, strict=True):
        doc = response.read if response.read is not None else response.json()
        chunk = read_items(doc, found)
        said = Findings(found.where)
        answer_count(doc, chunk, said, "items", whole=set(skus) <= set(_skus_of(chunk)))
        short += [f for f in said if f.shortfall]
        found.absorb(f for f in said if not f.shortfall)
        items += chunk
        sizes.append(len(chunk))
        if chunk:
            typed.add(typed_fields(chunk) is not None)
    found.absorb(_one_shortfall(short, len(responses)))
    if len(typed) > 1:  # answers read both ways: all of them as JSON for the checks below
        items = _as_json(responses, found.where)
    if answer == "current":  # marketCapLCU is marketCapLcu: the rule of groups/current keys
        items = respelled_fields(items, [c.name for c in CURRENT_DATA], found)
    parts = _chunk_parts(items, sizes, sent)  # a field renamed in one chunk is said of it
    present = set().union(*(keys for _, _, keys in parts))
    missing_fields(present, answer, found, n_items=len(items), parts=parts)
    skus = _skus_of(items)
    extra = [sku for sku in skus if sku not in asked]
    if extra:
        items = _as_asked(as_mappings(items), wanted, found)
        skus = _skus_of(items)
        extra = [sku for sku in skus if sku not in asked]
    nameless = sum(1 for sku in extra if sku is None or sku == "")
    if nameless:  # no row can be told apart without its SKU: dropped, not kept
        found.add("missing_identity", f"{nameless} of {len(items)} items have no 'sku': dropped")
    extra = [sku for sku in extra if sku is not None and sku != ""]
    if extra:
        found.add(
            "unrequested",
            f"{len(extra)} items for SKUs not asked for: dropped "
            f"({', '.join(map(repr, extra[:3]))})",
        )
    kept = [item for item, sku in zip(items, skus, strict=True) if sku in asked]
    kept = dedupe_items(kept, "sku", found)
    if answer != "time_series":
        return kept
    order = {s: i for i, s in enumerate(wanted)}  # as asked; those without data left out
    return _with_data(sorted(kept, key=lambda it: order[it["sku"]]), found)


@checked_methods
class PublicApi:
    """The public company-metrics interface of one version.

    Obtain it from a :class:`dealframe.Client` as ``client.public`` (v2) or
    ``client.public_v1``; do not build it directly.
    """

    def __init__(self, transport: Transport, version: str = "v2") -> None:
        if version not in ("v1", "v2"):
            raise ValidationError("version", "'v1' or 'v2'", got=version)
        self._t = transport
        self.version = version
        self._prefix = f"/api/{version}"
        #: SKUs per request of each path, once the service refused more: the client's, so a
        #: cap learned by v1 calls applies to v2 calls and back (wrong, it only costs smaller
        #: requests; relearning it costs a refused request per family)
        self._skus_per_request = transport.skus_per_request
        #: The time-series field names the service was seen to serve (:mod:`.fields`)
        self._served_fields = ServedFields()
        #: SKUs out of the document's layout that :meth:`search` was served (``aer-dnk``):
        #: :meth:`current` and :meth:`time_series` take them back as the service wrote them
        self._served_skus: set[str] = set()

    def __repr__(self) -> str:
        return f"<PublicApi {self.version}>"

    @property
    def served_fields(self) -> ServedFields:
        """The time-series field names this client has seen the service serve, which
        :meth:`time_series` checks ``fields`` against before any request (shared with the
        mirror's :func:`~dealframe.mirror.snapshot_public`, so both refuse and take alike).

        Examples
        --------
        >>> client.public.served_fields.check(["evRevenueLtm"])  # a documented name: no error
        """
        return self._served_fields

    @property
    def served_skus(self) -> frozenset[str]:
        """The SKUs out of the interface document's layout that :meth:`search` of this client
        was served (``aer-dnk`` of a service writing lower case), which :meth:`current` and
        :meth:`time_series` take back as the service wrote them (as does the mirror's
        :func:`~dealframe.mirror.snapshot_public`). A copy: empty until such a SKU is served.

        Examples
        --------
        >>> client.public.served_skus
        frozenset()
        """
        return frozenset(self._served_skus)

    # ------------------------------------------------------------------ plumbing

    def _post(
        self, full: str, body: dict[str, Any], kind: str, refresh: bool, cache: bool
    ) -> Response:
        """POST a full path (``/api/v1/...``), whatever this object's version."""
        return self._t.request(
            "public", "POST", full, json=body, kind=kind, refresh=refresh, cache=cache
        )

    def _chunked(
        self,
        path: str,
        asked: _Asked,
        size: int,
        extra: dict[str, Any],
        kind: str,
        refresh: bool,
        cache: bool,
        progress: bool | None,
        desc: str,
        reader: Callable[[bytes], Any] | None = None,
    ) -> tuple[list[Response], list[list[str]], list[Any], str | None]:
        """The answers to ``skus`` sent ``size`` at a time (fewer when the service refused as
        many before), the SKUs each answer was asked for, the chunks that failed, and what to
        say of a refused size.

        ``reader`` is given each answer's body first, from the service or the cache alike
        (:func:`~dealframe.transport.body.expecting`: what it returns is ``response.read``).

        A chunk refused as holding too many SKUs (:func:`fewer_skus`) is sent again split to
        the size the refusal states (else in halves), and that size is kept for this path's
        later calls, of either version. A chunk that still fails is a failure: the chunks that arrived are kept.
        """
        settings = self._t.settings
        deadline = self._t.deadline()
        full = f"{self._prefix}{path}"
        skus = asked.skus
        size = min(size, self._skus_per_request.get(path, size))
        todo = [(i, skus[i : i + size]) for i in range(0, len(skus), size)]

        def reading() -> contextlib.AbstractContextManager[None]:
            return contextlib.nullcontext() if reader is None else expecting(reader)

        def fetch(item: tuple[int, list[str]]) -> Response | ApiError:
            start, chunk = item
            try:
                with reading():
                    return self._t.request(
                        "public",
                        "POST",
                        full,
                        json={"skus": chunk, **extra},
                        kind=kind,
                        refresh=refresh,
                        cache=cache,
                        deadline=deadline,
                    )
            except ApiError as exc:
                if fewer_skus(exc, len(chunk)) is not None:
                    return exc  # too many SKUs at once: split below
                at = asked.at[start : start + len(chunk)]
                if isinstance(exc, BadRequestError) and (
                    len(chunk) < len(skus) or at[-1] != len(chunk) - 1
                ):  # the service counts positions within the chunk it got
                    exc.add_note(_position_note(str(exc), at, chunk, asked.given))
                raise

        def stored(item: tuple[int, list[str]]) -> Response | None:
            with reading():
                return self._t.cached(
                    "public", "POST", full, json={"skus": item[1], **extra}, kind=kind
                )

        responses: list[Response] = []
        sent: list[list[str]] = []  # the SKUs of each response's request
        failures: list[Any] = []
        refused: str | None = None
        fatal = FATAL_ERRORS
        while todo:
            result = map_concurrent(
                fetch,
                todo,
                settings.max_workers,
                pool=self._t.pool,
                progress=settings.progress if progress is None else progress,
                desc=desc,
                inline=stored if cache and not refresh else None,
                fatal=fatal,
                deadline=deadline,
            )
            failures += [  # index: the chunk's first SKU's position in ``skus``
                dataclasses.replace(f, index=f.item[0], item=f.item[1]) for f in result.failures
            ]
            again: list[tuple[int, list[str]]] = []
            for (start, chunk), outcome in zip(todo, result.results):
                if isinstance(outcome, ApiError):
                    size = min(size, fewer_skus(outcome, len(chunk)) or size)
                    refused = refused or f"{len(chunk)} SKUs per request refused ({outcome})"
                    again.append((start, chunk))
                elif outcome is not None:
                    responses.append(outcome)
                    sent.append(chunk)
            todo = [(at + i, c[i : i + size]) for at, c in again for i in range(0, len(c), size)]
            # the chunks that arrived are kept: a smaller chunk that fails is a failure
            fatal = tuple(e for e in FATAL_ERRORS if e is not BadRequestError)
        if refused:
            with self._t.skus_lock:  # calls on other threads learn too: the smallest size wins
                self._skus_per_request[path] = min(size, self._skus_per_request.get(path, size))
            refused += f": requests of {size} SKUs"
        return responses, sent, failures, refused

    @staticmethod
    def _settle(
        frame: pd.DataFrame,
        endpoint: str,
        responses: list[Response],
        failures: list[Any],
        asked: _Asked,
        received: list[str],
        found: Findings,
        strict: bool,
        refused: str | None,
    ) -> pd.DataFrame:
        """``frame`` with its provenance, once the chunks that failed (raised), the SKUs not
        received (``attrs["missing_skus"]``: warned, or raised under ``strict``) and the
        findings are reported; ``attrs["skus_per_request_refused"]`` says what a service that
        refused as many SKUs per request was sent instead."""
        wanted = asked.skus
        attach(
            frame,
            endpoint=endpoint,
            responses=responses,
            rows_expected=len(wanted),
            rows_received=len(received),
            findings=found.records(),
            **({} if refused is None else {"skus_per_request_refused": refused}),
        )
        if failures:
            if not responses and len(failures) == 1:  # one request, and it failed: its error
                raise failures[0].error
            # the SKUs of the chunks that arrived but did not come back (those of the failed
            # chunks are the error's .failed): a partial says them as a whole frame does
            unsent = {s for f in failures for s in f.item}
            present = set(received)
            frame.attrs["missing_skus"] = [
                s for s in wanted if s not in present and s not in unsent
            ]
            raise incomplete(
                len(wanted),
                len(present & set(wanted)),  # what came back, not what was not lost
                [f.item for f in failures],
                errors=[f.error for f in failures],
                partial=frame,
                what="SKUs" if asked.given == len(wanted) else "distinct SKUs",
                labels=[
                    _chunk_label(asked.at[f.index : f.index + len(f.item)], f.item)
                    for f in failures
                ],
            )
        present = set(received)
        missing = [s for s in wanted if s not in present]
        frame.attrs["missing_skus"] = missing
        if missing:
            if strict:
                raise IncompleteResultError(
                    len(wanted), len(wanted) - len(missing), missing, partial=frame, what="SKUs"
                )
            shown = first_of(missing)
            warn_missing(
                f"{len(missing)} of {len(wanted)} SKUs were not returned by the service: "
                f"{shown} (see df.attrs['missing_skus'])"
            )
        found.report(
            strict=strict, partial=frame, expected=len(wanted), received=len(received), what="SKUs"
        )
        return frame

    def _explain_empty(
        self, body: Mapping[str, Any], empty: bool, refresh: bool, cache: bool
    ) -> None:
        """After an empty answer filtered by industries or themes: one unfiltered search
        (with the call's cache settings) and a :class:`~dealframe.notices.MissingDataWarning`
        per given value that no company carries, with the close ones (the service matches
        them exactly).

        The search is only a hint: one attempt of at most
        :data:`~dealframe.public.hints.HINT_SECONDS`, not sent while a 429 holds this
        client's calls back; a failure (a 429, a 5xx, a timeout) is neither retried nor
        waited out, and the empty answer stands without the hint."""
        if not empty or not (body.get("industries") or body.get("themes")):
            return
        if self._t.gate.remaining("public") or self._t.gate.held("public")[0]:
            return  # the service asked this client to wait: no hint
        with contextlib.suppress(DealframeError):  # only a hint: never worth the answer
            response = self._t.request(
                "public",
                "POST",
                f"{self._prefix}/companies",
                json={},
                kind="list",
                refresh=refresh,
                cache=cache,
                deadline=time.monotonic() + HINT_SECONDS,
                retries=0,
            )
            companies = read_items(response.json(), Findings(f"POST {self._prefix}/companies"))
            for message in unmatched_values(body, companies):
                if not missing_kept(message):  # a call made of calls says it once
                    warnings.warn(message, MissingDataWarning, stacklevel=user_stacklevel())

    # ------------------------------------------------------------------ endpoints

    def search(
        self,
        *,
        industries: Strings = None,
        themes: Strings = None,
        regions: Strings = None,
        countries: Strings = None,
        enterprise_value_above: float | None = None,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Companies matching the filters (all companies when none is given).

        Parameters
        ----------
        industries, themes, regions, countries : list of str, optional
            Companies whose verticals/themes overlap, or whose region/ISO-3
            country is in the list. A single string is one item.
        enterprise_value_above : float, optional
            Enterprise value strictly above this (millions USD).
        strict : bool, default False
            Raise instead of warning when the answer breaks the interface (see
            :mod:`dealframe.contract`): :class:`~dealframe.errors.IncompleteResultError`
            when companies are missing, else :class:`~dealframe.errors.ServiceContractError`.
        refresh : bool, default False
            Ignore a cached answer and overwrite it.
        cache : bool, default True
            False bypasses the cache.

        Returns
        -------
        pandas.DataFrame
            One row per company, indexed by ``sku``.

        Examples
        --------
        >>> comps = client.public.search(regions=["Western Europe"], enterprise_value_above=1_000)
        >>> comps[["name", "enterpriseValue"]].head()
                name  enterpriseValue
        sku
        ...
        """
        body = search_body(_group(industries, themes, regions, countries, enterprise_value_above))
        response = self._post(f"{self._prefix}/companies", body, "list", refresh, cache)
        endpoint = f"POST {self._prefix}/companies"
        found = Findings(endpoint)
        doc = response.json()
        items = read_items(doc, found)
        count = answer_count(doc, items, found, "companies")
        identities(items, "sku", found)
        absent = missing_fields(keys_present(items), "search", found, n_items=len(items))
        items = dedupe_items(items, "sku", found)
        with shaping(response.request, endpoint, found):
            frame = search_frame(items)
        null_fields(frame, "search", found, missing=absent)  # a name the document gives no null
        document_values(frame, "search", found)  # a countryCodeIso3 that is no ISO-3 code
        self._served_skus.update(_off_layout_said(frame.index, self.version, found))
        attach(
            frame,
            endpoint=endpoint,
            responses=[response],
            rows_expected=count,
            filters=body,
            findings=found.records(),
        )
        found.report(
            strict=strict, partial=frame, expected=count, received=len(frame), what="companies"
        )
        self._explain_empty(body, not len(frame), refresh, cache)
        return frame

    def current(
        self,
        skus: Iterable[str],
        *,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
        progress: bool | None = None,
    ) -> pd.DataFrame:
        """Current data for any number of SKUs (sent 100 at a time, concurrently).

        Parameters
        ----------
        skus : list of str
            SKUs of this version (v2 ``TICKER-ISO3[.N]``, v1 ``EXCHANGE_TICKER``); a list
            even for one (``["ACME-USA"]``: a single string is a
            :class:`~dealframe.errors.ValidationError`, as are an empty list, a mapping, a
            frame and None).
        strict : bool, default False
            Raise :class:`~dealframe.errors.IncompleteResultError` when some SKUs
            are not returned, instead of a :class:`~dealframe.notices.MissingDataWarning`.
        refresh, cache : bool
            Cache control, as in :meth:`search`.
        progress : bool, optional
            Progress bar; default: when interactive.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``sku`` in the order asked; every field the service
            returns (``*Lcu`` variants and ``rateToUsd`` included; a member spelt in
            another case, ``marketCapLCU``, is the field it spells, said once). SKUs not
            returned are listed in ``attrs["missing_skus"]``. A service that refuses
            100 SKUs per request is sent fewer (``attrs["skus_per_request_refused"]``).
            ``rateToUsd`` is USD per one unit of local currency whichever way the
            service writes it: rates its rows show as local currency per USD are
            inverted and said (``attrs["rate_direction"]``, ``attrs["rate_inverted"]``;
            :func:`~dealframe.public.rates.adapt_rates`).

        Examples
        --------
        >>> skus = client.public.search(countries=["USA"]).index[:2]  # v2: TICKER-ISO3[.N]
        >>> cur = client.public.current(skus)
        >>> cur[["name", "evRevenueNtm"]]
                name  evRevenueNtm
        sku
        ...
        """
        asked = _some_skus(skus, self.version, self._served_skus)
        wanted = asked.skus
        responses, sent, failures, refused = self._chunked(
            "/companies/current",
            asked,
            SKUS_PER_CURRENT_REQUEST,
            {},
            "current",
            refresh,
            cache,
            progress,
            "current data",
            read_current_page,  # the usual answer as typed rows; any other read as JSON
        )
        endpoint = f"POST {self._prefix}/companies/current"
        found = Findings(endpoint)
        items = read_company_items(responses, sent, wanted, found, "current")
        info = RequestInfo("POST", f"{self._prefix}/companies/current", "public")
        with shaping(info, endpoint, found):
            frame = _in_order(current_frame(items), _skus_of(items), wanted)
        document_values(frame, "current", found)  # a countryCodeIso3 that is no ISO-3 code
        adapt_rates(frame, found)  # rateToUsd as USD per unit, whichever way it is served
        received = frame.index.tolist()
        return self._settle(
            frame, endpoint, responses, failures, asked, received, found, strict, refused
        )

    def time_series(
        self,
        skus: Iterable[str],
        fields: Strings = None,
        date_from: Month = None,
        date_to: Month = None,
        shape: str = "wide",
        *,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
        progress: bool | None = None,
    ) -> pd.DataFrame:
        """Monthly series of the SKUs.

        Parameters
        ----------
        skus : list of str
            SKUs of this version, at least one (a list even for one: ``["ACME-USA"]``).
        fields : list of str, optional
            Time-series fields (default: all). The document names them by example only, so
            the service decides: every name is sent as given, its 400 is the error (the
            closest name known in its note for a name its words point at). A name some item
            holds with no value anywhere (months all null, an empty map), or any when the
            answer holds no data at all, is missing data: one
            :class:`~dealframe.notices.MissingDataWarning` per call, never a service fault. A
            name no item holds at all is a ``missing_field`` finding (``strict=True``:
            :class:`~dealframe.errors.ServiceContractError`). Either names the closest name
            known (the document's and those seen with a value in this client's answers) only
            for a name that is neither.
            Only another spelling of a field the document gives (``ev_revenue_ltm``,
            ``evrevenueltm`` for ``evRevenueLtm``) is a
            :class:`~dealframe.errors.ValidationError` naming ``fields[i]`` and that field,
            before any request, unless an answer held it as written (``i``: its position in
            ``fields`` as given); so is a name holding a comma (pass a list). An item without
            ``data`` counts as a SKU not returned.
        date_from, date_to : str, pandas.Period or date, optional
            Inclusive months ``YYYY-MM``; none means no date filter. Months served outside
            them (a service that ignores ``dateFrom``/``dateTo``) are dropped, in both
            shapes, and said in one ``unrequested`` finding
            (:func:`~dealframe.frames.public.time_series_wide`); they count as no value.
        shape : {"wide", "long"}
            ``wide``: index a monthly PeriodIndex, columns (field, sku), so
            ``ts["evRevenueLtm"]`` is months x SKUs, missing months NaN. The SKUs are every
            SKU asked, each once, in the order given (one not returned: all-NaN columns);
            the fields are ``fields`` as given, or without them those the answer holds
            (the service's default; the document lists none), so with ``fields`` the
            columns depend only on the arguments. An answer holding no field (no SKU
            returned) has those served before by default, else the document's time-series
            fields, said in a warning (:func:`_series_columns`).
            ``long``: tidy rows (sku, field, month, value).
        strict, refresh, cache, progress
            As in :meth:`current`.

        Returns
        -------
        pandas.DataFrame
            As ``shape`` says; ``attrs["missing_skus"]`` lists the SKUs the service did not
            return (each warned, an :class:`~dealframe.errors.IncompleteResultError` under
            ``strict=True``); ``attrs["item_extras"]`` holds, by SKU, the members of its item
            the document does not name (:func:`~dealframe.public.extras.item_extras`). The
            items' ``ticker`` and ``exchange`` are not in the frame (``current`` and
            ``search`` give them).

        Raises
        ------
        dealframe.errors.ValidationError
            ``skus``, ``fields``, a month or ``shape`` that cannot be sent, before any
            request.

        Examples
        --------
        >>> skus = client.public.search(countries=["GBR"]).index
        >>> ts = client.public.time_series(skus, fields=["evRevenueNtm"], date_from="2020-01")
        >>> ts["evRevenueNtm"].index[0], ts["evRevenueNtm"].columns.name  # months x SKUs
        (Period('2020-01', 'M'), 'sku')
        >>> ts["evRevenueNtm"].plot()  # draws a figure  # doctest: +SKIP
        """
        choice(shape, "shape", ("wide", "long"), "'wide' or 'long'")
        asked = _some_skus(skus, self.version, self._served_skus)
        wanted = asked.skus
        extra, (names, start, end) = _series_members(
            fields, date_from, date_to, self._served_fields.check
        )
        with fields_noted(names, self._served_fields):
            responses, sent, failures, refused = self._chunked(
                "/companies/time-series",
                asked,
                SKUS_PER_TIME_SERIES_REQUEST,
                extra,
                "time_series",
                refresh,
                cache,
                progress,
                "time series",
            )
        endpoint = f"POST {self._prefix}/companies/time-series"
        found = Findings(endpoint)
        items = read_company_items(responses, sent, wanted, found, "time_series")
        items = _respelled_members(items, "data", names, found, "sku")  # EVREVENUENTM: a name asked
        outside = MonthsOutside(start, end)  # months outside: no value of a field asked for
        window = date_from is not None or date_to is not None
        held = ordered_names(items, "data")  # no field in the answer: the columns known
        columns, guessed = _series_columns(
            self._served_fields, "time_series", names, held, bool(held)
        )
        guessed = guessed if shape == "wide" else ()  # long: rows, no field column to guess
        not_held = _absent_requested(
            items, "data", names, found, self._served_fields, window, outside, guessed
        )
        with shaping(
            RequestInfo("POST", f"{self._prefix}/companies/time-series", "public"), endpoint, found
        ):  # months outside the window: left out where they are read, said to found
            if shape == "wide":
                frame = time_series_wide(
                    items, fields=columns, date_from=start, date_to=end, skus=wanted, found=found
                )
            else:
                frame = time_series_long(items, date_from=start, date_to=end, found=found)
        received = [it["sku"] for it in items]  # a SKU not received: all-NaN columns, no rows
        frame.attrs["fields_not_held"] = not_held
        frame.attrs["item_extras"] = item_extras(items, "time_series", "sku")
        return self._settle(
            frame, endpoint, responses, failures, asked, received, found, strict, refused
        )

    def group_current(
        self,
        *,
        industries: Strings = None,
        themes: Strings = None,
        regions: Strings = None,
        countries: Strings = None,
        enterprise_value_above: float | None = None,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Sums and medians of current data over a group of companies.

        Always sent to ``POST /api/v2/groups/current``, the only version the
        interface document shows (the body has no SKUs, so ``public_v1`` sends it
        there too).

        Parameters
        ----------
        industries, themes, regions, countries : list of str
            At least one names the group.
        enterprise_value_above : float, optional
            Narrows the group to companies whose enterprise value is above it.
        strict : bool, default False
            Raise :class:`~dealframe.errors.ServiceContractError` instead of warning
            when the answer breaks the interface (see :mod:`dealframe.contract`).
        refresh, cache : bool
            Cache control, as in :meth:`search`.

        Returns
        -------
        pandas.DataFrame
            One row per field with ``sum`` and ``median`` (NaN where the field's
            class has none); ``attrs`` holds the response meta (companies). A group that
            matched no company (``meta.companies`` 0; without it, ``meta.count`` 0 or no
            value in ``data``) is missing data: one
            :class:`~dealframe.notices.MissingDataWarning` when every value is NaN (a meta
            saying no company beside values is a ``bad_meta`` finding instead, the values
            kept), followed, when filtered by industries or themes, by a hint naming each
            value no company carries, with the close ones.

        Examples
        --------
        >>> client.public.group_current(regions=["Northern Europe"]).loc["revenueLtm"]
        sum       ...
        median    ...
        Name: revenueLtm, dtype: float64
        """
        body = group_body(_group(industries, themes, regions, countries, enterprise_value_above))
        response = self._post(GROUP_CURRENT_PATH, body, "current", refresh, cache)
        payload = response.json()
        endpoint = f"POST {GROUP_CURRENT_PATH}"
        found = Findings(endpoint)
        say_echoed(payload, found)  # its texts the transport blanked (meta's too)
        no_meta(payload, found)  # its meta is not shown, but every Family A answer has one
        meta = read_meta(payload.get("meta"), found)  # counts written as text: read, and said
        with shaping(response.request, endpoint, found):
            frame = group_current_frame(payload.get("data"), meta)
        check_group_classes(frame, found)
        empty = _empty_group(frame)
        valued = int(frame.notna().to_numpy().sum())
        if empty and valued:  # a meta saying no company, beside values: kept, said
            said = "companies" if frame.attrs.get("companies") == 0 else "count"
            found.add(
                "bad_meta",
                f"meta.{said} is 0 (the group matches no company), yet {valued} sums and "
                "medians hold a value"
                + ("" if strict else ": kept as served"),  # strict: raised, nothing kept
            )
        attach(frame, endpoint=endpoint, responses=[response], group=body, findings=found.records())
        found.report(strict=strict, partial=frame)
        if empty and not valued:  # every statistic NaN: said, then which values matched none
            warn_missing("no value: the group matches no company, every sum and median is NaN")
        self._explain_empty(body, empty, refresh, cache)
        return frame

    def group_time_series(
        self,
        *,
        industries: Strings = None,
        themes: Strings = None,
        regions: Strings = None,
        countries: Strings = None,
        enterprise_value_above: float | None = None,
        fields: Strings = None,
        date_from: Month = None,
        date_to: Month = None,
        strict: bool = False,
        refresh: bool = False,
        cache: bool = True,
    ) -> pd.DataFrame:
        """Monthly medians over a group of companies.

        Always sent to ``POST /api/v1/groups/time-series``, the only version the
        interface document shows (the body has no SKUs, so ``public`` (v2) sends it
        there too).

        Parameters
        ----------
        industries, themes, regions, countries : list of str
            At least one names the group.
        enterprise_value_above : float, optional
            Narrows the group to companies whose enterprise value is above it.
        fields : list of str, optional
            Time-series fields (default: all), as in :meth:`time_series`: sent as given,
            the service deciding; one some period's ``median`` holds with no value anywhere
            (null), or any when the answer holds no period (``data: []``), is missing data
            (one :class:`~dealframe.notices.MissingDataWarning`), one no period's ``median``
            holds at all a ``missing_field`` finding, each with the closest name known for
            an unknown name (the names seen are kept with those of :meth:`time_series`);
            another spelling of a documented field is a
            :class:`~dealframe.errors.ValidationError` naming ``fields[i]``, before any
            request.
        date_from, date_to : str, pandas.Period or date, optional
            Inclusive months ``YYYY-MM``; none means no date filter. Periods served outside
            them are dropped and said (:func:`~dealframe.public.window.periods_in_window`).
        strict : bool, default False
            Raise :class:`~dealframe.errors.ServiceContractError` instead of warning
            when the answer breaks the interface (see :mod:`dealframe.contract`).
        refresh, cache : bool
            Cache control, as in :meth:`search`.

        Returns
        -------
        pandas.DataFrame
            Index a monthly PeriodIndex, one float64 column per field requested, the same
            for 0, 1 or N months. When no field is named, the columns are every field the
            service sent; an answer with none in the window (no month) has those served before
            by default, else the document's time-series fields, said in a warning
            (:func:`_series_columns`; name ``fields`` for fixed columns).
            Each date given bounds the index (months without a value are NaN rows, as
            in :meth:`time_series`); a date not given is the first (last) month returned,
            and with no month returned the index is then empty. ``attrs`` holds ``count`` and
            ``companies``, and ``item_extras``: by period of the window, the members of its
            item the document does not name (:func:`~dealframe.public.extras.item_extras`).

        Examples
        --------
        >>> med = client.public.group_time_series(countries=["GBR"], fields=["evRevenueNtm"])
        >>> med.columns.tolist(), med.index.freqstr  # a monthly median per field
        (['evRevenueNtm'], 'M')
        """
        body = group_body(
            _group(industries, themes, regions, countries, enterprise_value_above),
            "group_time_series",
        )
        extra, (names, start, end) = _series_members(
            fields, date_from, date_to, self._served_fields.check
        )
        body.update(extra)
        with fields_noted(names, self._served_fields):
            response = self._post(GROUP_TIME_SERIES_PATH, body, "time_series", refresh, cache)
        endpoint = f"POST {GROUP_TIME_SERIES_PATH}"
        found = Findings(endpoint)
        window = date_from is not None or date_to is not None
        frame, items, count, not_held, inside = read_group_series(
            response.json(),
            found,
            response.request,
            fields=names,
            date_from=start,
            date_to=end,
            served=self._served_fields,
            window=window,
        )
        attach(  # in periods, as the service counts them (the frame may add empty months)
            frame,
            endpoint=endpoint,
            responses=[response],
            rows_expected=len(items) if count is None else count,
            rows_received=len(items),
            group=body,
            findings=found.records(),
            fields_not_held=not_held,
            item_extras=item_extras(inside, "group_time_series", "period"),
        )
        found.report(
            strict=strict, partial=frame, expected=count, received=len(items), what="periods"
        )
        self._explain_empty(body, frame.attrs.get("companies") == 0, refresh, cache)
        return frame
