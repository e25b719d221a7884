"""Every answer checked against what its request implies: the one place that does it.

The transport checks that a success body is a ``{data, meta}`` document
(:mod:`dealframe.transport.body`). Everything past that is here, for every endpoint:

- counts against ``meta`` (``returned``, ``total``, ``has_more``), read only when they are
  sane integers and booleans (:func:`read_page`);
- pages that repeat earlier pages (a service that ignores ``page``);
- items of the wrong shape (not an object) and items without their identity (``id``,
  ``sku``, ``bucket``, ``query``), which are kept, never collapsed into one row;
- repeated identities (:func:`dedupe_at`): removed, and told apart as repeated (same content)
  or conflicting (different content);
- documented fields absent from every item (:func:`missing_fields`).

Each finding is a :class:`Finding`. A call whose answers have a finding of an answer gone
wrong (any but :data:`KEPT_IN_CACHE`) is not answered from the HTTP cache again:
:meth:`Findings.report` drops the cache entries its thread read or wrote since the previous
call reported (:func:`~dealframe.transport.cache.checked`). It turns them into
:class:`~dealframe.ServiceContractWarning` warnings (a
:class:`~dealframe.MissingDataWarning`) that name what and where, or, under
``strict=True``, into the typed error: :class:`~dealframe.errors.IncompleteResultError`
(with ``partial``) when rows are missing, else
:class:`~dealframe.errors.ServiceContractError`. ``df.attrs["findings"]`` lists them.

Examples
--------
>>> found = Findings("POST /api/private/v1/transactions")
>>> page = read_page({"data": [{"id": "a"}, {"id": "a"}], "meta": {"returned": 3, "total": 3}},
...                  found, number=1)
>>> [f.kind for f in found]
['count_mismatch']
>>> page.items
[{'id': 'a'}, {'id': 'a'}]
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from dealframe._countries import is_country, why_not
from dealframe._vocab import DEAL_SUBTYPES, DEAL_TYPES, REGIONS
from dealframe.arguments import call_secrets
from dealframe.errors import (
    _ANYWHERE,
    IncompleteResultError,
    RequestInfo,
    ServiceContractError,
    ValidationError,
    _forms,
    _scrub,
)
from dealframe.notices import (
    ServiceContractWarning,
    held,
    reading_answers,
    user_stacklevel,
)
from dealframe.transport.cache import checked, forget_call

__all__ = [
    "DOCUMENTED_FIELDS",
    "ISO3_FIELDS",
    "KEPT_IN_CACHE",
    "MAX_COUNT",
    "NOT_NULL",
    "NO_END",
    "NO_META",
    "NO_META_A",
    "ORDERED_FIELDS",
    "VOCABULARY_FIELDS",
    "Finding",
    "Findings",
    "EchoedAnswer",
    "PageRead",
    "absent_from_answers",
    "as_count",
    "as_flag",
    "blanked",
    "blanked_attrs",
    "dedupe_at",
    "dedupe_items",
    "document_values",
    "blank_echoed",
    "echoed",
    "identities",
    "identity_column",
    "keys_present",
    "meta_values",
    "missing_fields",
    "no_meta",
    "not_countries",
    "null_fields",
    "outside_vocabulary",
    "first_of",
    "quoted",
    "written",
    "read_items",
    "respelled_fields",
    "read_page",
    "say_echoed",
    "rows_deduped",
    "say_not_iso3",
    "shaping",
    "shaping_findings",
    "surely_distinct",
    "text_offsets",
    "typed_fields",
    "whole_page",
]

#: Largest count taken from ``meta`` at face value (a bigger ``total`` is not believed).
MAX_COUNT = 10**12
#: Findings that describe how a service answers every time (nulls in its data, a field it
#: does not serve, a value outside the vocabulary, counts written as text ...), not an answer
#: gone wrong: asking again would get the same, so they leave the call's cache entries in
#: place. Any other finding (rows missing, cut or repeated, a wrong shape, filters ignored)
#: drops them, so the next call asks the service again.
KEPT_IN_CACHE = frozenset(
    {
        "null_field",
        "missing_field",
        "unknown_value",
        "inverted_dates",
        "inverted_quartiles",
        "respelled_sku",
        "respelled_field",
        "inverted_rate",
        "rate_mismatch",
        "bad_meta",
        "numbers_as_text",
        "booleans_as_text",
        "empty_numbers",
        "not_finite",
        "no_offset",
        "unsorted",
        "unreadable_label",
        "threshold_mismatch",
        "suppression_unexplained",
        "deleted_served",
    }
)

_DEAL = (
    "id",
    "deal_date",
    "deal_type",
    "deal_subtype",
    "deal_synopsis",
    "deal_valuation",
    "deal_raised",
    "deal_revenue",
    "deal_ebitda",
    "deal_multiples",
    "target",
    "buyers",
    "lead_investors",
    "created_at",
    "updated_at",
    "deleted",
)

#: Fields the interface document (section 2) gives every item of each answer.
DOCUMENTED_FIELDS: Mapping[str, tuple[str, ...]] = {
    "companies": (
        "id",
        "name",
        "short_name",
        "description",
        "website",
        "linkedin",
        "country",
        "region",
        "city",
        "area",
        "founded",
        "verticals",
        "themes",
        "client_focus",
        "revenue_model",
        "company_type",
        "ownership",
        "active",
        "ipoed",
        "ceo",
        "created_at",
        "updated_at",
        "deleted",
        "is_public",
    ),
    "investors": ("id", "name", "short_name", "website", "country", "updated_at", "deleted"),
    "transactions": _DEAL,
    "deals_with_role": (*_DEAL, "role"),
    "company_investors": (
        "id",
        "name",
        "short_name",
        "country",
        "website",
        "rounds_participated",
        "is_lead_any_round",
        "first_round_date",
        "last_round_date",
    ),
    "portfolio": (
        "id",
        "name",
        "short_name",
        "website",
        "country",
        "first_invested",
        "last_invested",
        "rounds_count",
        "led_any_round",
    ),
    "co_investors": (
        "id",
        "name",
        "short_name",
        "website",
        "country",
        "shared_deals",
        "first_shared_date",
        "last_shared_date",
    ),
    "resolve": ("query", "id", "match_type"),
    "aggregate": ("bucket", "n", "median", "q1", "q3", "warning"),
    "search": (
        "sku",
        "ticker",
        "exchange",
        "name",
        "shortName",
        "enterpriseValue",
        "countryCodeIso3",
        "country",
        "region",
        "verticals",
        "themes",
    ),
    "current": (
        "sku",
        "ticker",
        "exchange",
        "name",
        "shortName",
        "countryCodeIso3",
        "country",
        "currency",
        "tags",
        "themes",
        "marketCap",
        "enterpriseValue",
        "revenueLtm",
        "revenueNtm",
        "ebitdaLtm",
        "ebitdaNtm",
        "evRevenueLtm",
        "evRevenueNtm",
        "evEbitdaLtm",
        "marginGrossLtm",
        "marginEbitdaLtm",
        "revenueGrowthNtmLtm",
        "ruleOf40Ltm",
        "ruleOf40",
        "rateToUsd",
        # section 2.1: "Every monetary field also has a local-currency variant whose name is
        # the field name plus the suffix Lcu" (frames.schemas.CURRENT_MONETARY)
        "marketCapLcu",
        "enterpriseValueLcu",
        "revenueLtmLcu",
        "revenueNtmLcu",
        "ebitdaLtmLcu",
        "ebitdaNtmLcu",
    ),
    "time_series": ("sku", "ticker", "exchange", "data"),
    "group_time_series": ("period", "median"),
}


def blanked(text: str) -> str:
    """``text`` with the tokens of the client whose call is running replaced by ``***``.

    Findings quote what the service sent (``meta.count is '...'``), and a service may echo
    a token back in any value: every :class:`Finding` is blanked as it is made, and so is a
    message that quotes the service without one. Only the running call's own client's
    tokens are blanked (:func:`~dealframe.arguments.client_call`), so a short token of
    another client open meanwhile leaves this call's words alone, and a text made outside
    any client call (a frame built offline) is returned as it is: no token is kept anywhere
    once a call returns.

    Parameters
    ----------
    text : str
        A message that may quote what the service sent.

    Returns
    -------
    str
        ``text``, each of the call's tokens in it written ``***``.

    Examples
    --------
    >>> from dealframe.arguments import client_call
    >>> with client_call(["2"]):
    ...     blanked("page 2 of 12"), str(Finding("bad_meta", "GET /x", "meta.count is '2'"))
    ('page *** of 12', "GET /x: meta.count is '***'")
    >>> blanked("page 2 of 12")
    'page 2 of 12'
    """
    secrets = call_secrets()
    return _scrub(text, secrets) if secrets else text


def blanked_attrs(value: Any) -> Any:
    """``value`` (a frame's ``attrs``, or anything in them) with the tokens of the client
    whose call is running blanked (:func:`blanked`) in every text and key of its dicts,
    lists and tuples; other objects (a frame, a number), and everything outside a client
    call, as they are.

    The ``attrs`` keep what the service's ``meta`` said (an aggregate's methodology, a
    page's counts): a token echoed back there is blanked as in a finding.

    Examples
    --------
    >>> from dealframe.arguments import client_call
    >>> attrs = {"methodology": {"date_range": {"from": "sk_live_0123456789abcdef"}}, "n": 2}
    >>> with client_call(["sk_live_0123456789abcdef"]):
    ...     blanked_attrs(attrs)
    {'methodology': {'date_range': {'from': '***'}}, 'n': 2}
    """
    if not call_secrets():
        return value
    if isinstance(value, str):
        return blanked(value)
    if isinstance(value, dict):
        return {blanked(k) if isinstance(k, str) else k: blanked_attrs(v) for k, v in value.items()}
    if isinstance(value, list) or type(value) is tuple:
        return type(value)(blanked_attrs(item) for item in value)
    return value


def echoed(names: Iterable[str]) -> list[str]:
    """The member names among ``names`` that carry a token of the client whose call is
    running (:func:`blanked` would change them), sorted; none outside a client call.

    A service that echoes the caller's token as a member name of its items would otherwise
    give the frame a column named by it: :func:`dealframe.frames.normalize.build_columns`
    leaves such a member out and :func:`missing_fields` says so (``echoed_token``).

    Examples
    --------
    >>> from dealframe.arguments import client_call
    >>> with client_call(["sk_live_0123456789abcdef"]):
    ...     echoed(["id", "sk_live_0123456789abcdef", "x_sk_live_0123456789abcdef"])
    ['sk_live_0123456789abcdef', 'x_sk_live_0123456789abcdef']
    >>> echoed(["sk_live_0123456789abcdef"])
    []
    """
    if not call_secrets():
        return []
    return sorted(name for name in names if blanked(name) != name)


class EchoedAnswer(dict[str, Any]):
    """A service's answer (its JSON object) in which :func:`blank_echoed` blanked the texts
    that held a token of the client that asked; ``echoed`` says how many.

    :func:`read_items` (and so :func:`read_page`) says so in an ``echoed_token`` finding.
    """

    echoed: int = 0


def _blank_texts(value: Any, tokens: Sequence[str], count: list[int]) -> Any:
    """``value`` (read from JSON) with ``tokens`` blanked out of its texts, member names left
    as they are; ``count[0]`` grows by one per text blanked."""
    if isinstance(value, str):
        if any(token in value for token in tokens):
            count[0] += 1
            return _scrub(value, tokens)
        return value
    if isinstance(value, dict):
        return {k: _blank_texts(v, tokens, count) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_texts(item, tokens, count) for item in value]
    return value


def blank_echoed(doc: Any, secrets: Iterable[str]) -> Any:
    """``doc`` (a JSON answer of the service) with every text VALUE that holds one of
    ``secrets`` (the tokens of the client that asked) blanked, as an :class:`EchoedAnswer`
    that counts them; ``doc`` itself when none holds one.

    A service that echoes the caller's token as a value (an item's ``name``, a note in
    ``meta``) would otherwise put it in the frame, and from there in every file written of it
    (``dealframe pull -o``, a mirror, a report). A token is blanked wherever it is in a text
    (``x<token>`` is ``x***``), as it is or percent-encoded (in a URL: :func:`~dealframe
    .errors._forms`). Only tokens of 12 characters or more are (as an error blanks
    them anywhere): a shorter one is a test key (``"2"``, ``"name"``) that ordinary data holds
    too, a count written ``"2"``, which blanking would turn into no value. Member names are
    left as they are: one named by a token is left out of the frame by the frame readers
    (:func:`echoed`, said by :func:`missing_fields`).

    Examples
    --------
    >>> doc = {"data": [{"name": "sk_live_0123456789abcdef", "id": "2",
    ...                  "note": "by x_sk_live_0123456789abcdef"}], "meta": {"count": "2"}}
    >>> out = blank_echoed(doc, ["sk_live_0123456789abcdef", "2"])
    >>> out["data"], out["meta"], out.echoed
    ([{'name': '***', 'id': '2', 'note': 'by x_***'}], {'count': '2'}, 2)
    >>> blank_echoed(doc, ["other-token-0123456789"]) is doc
    True
    >>> blank_echoed({"data": {"website": "https://x.io/?k=Kx7priv%2BSEC%2FRET42%3D%3D"}},
    ...              ["Kx7priv+SEC/RET42=="])["data"]  # percent-encoded in a URL
    {'website': 'https://x.io/?k=***'}
    """
    # each token in each form a service may echo it in (percent-encoded in a URL: _forms)
    tokens = [f for s in secrets if s and len(s) >= _ANYWHERE for f in _forms(s)]
    count = [0]
    blanked_doc = _blank_texts(doc, tokens, count) if tokens else doc
    if not count[0] or not isinstance(blanked_doc, dict):
        return doc
    answer = EchoedAnswer(blanked_doc)
    answer.echoed = count[0]
    return answer


def say_echoed(doc: Any, found: Findings, where: str | None = None) -> None:
    """The ``echoed_token`` finding of an answer whose texts :func:`blank_echoed` blanked
    (nothing for any other answer): every reader of an answer says it, :func:`read_items`
    for lists and pages, the profile and aggregate readers for theirs.

    Examples
    --------
    >>> found = Findings("GET /x/{id}")
    >>> say_echoed(blank_echoed({"data": {"name": "sk_live_0123456789abcdef"}},
    ...                         ["sk_live_0123456789abcdef"]), found)
    >>> [(f.kind, f.message) for f in found]  # doctest: +NORMALIZE_WHITESPACE
    [('echoed_token', "1 value(s) of the answer hold the client's token (***): blanked,
      no frame nor file holds a token")]
    """
    if isinstance(doc, EchoedAnswer) and doc.echoed:
        found.add(
            "echoed_token",
            f"{doc.echoed} value(s) of the answer hold the client's token (***): blanked, "
            "no frame nor file holds a token",
            where=where,
        )


def quoted(value: Any, limit: int) -> str:
    """``repr(value)`` of a service value, blanked (:func:`blanked`) and then cut to
    ``limit`` characters: cut first, a token at the cut would show in part, which no
    blanking afterwards can find.

    Parameters
    ----------
    value : object
        What the service sent.
    limit : int
        The most characters shown.

    Returns
    -------
    str
        What a message quotes.

    Examples
    --------
    >>> from dealframe.arguments import client_call
    >>> with client_call(["sk_live_0123456789abcdef"]):
    ...     quoted({"from": "sk_live_0123456789abcdef"}, 16)
    "{'from': '***'}"
    >>> quoted("x" * 40, 8)
    "'xxxxxxx"
    """
    return blanked(repr(value))[:limit]


def written(value: Any, limit: int = 50) -> str:
    """A served value as a finding writes it: ``null``, or quoted (:func:`quoted`, at most
    ``limit`` characters).

    Examples
    --------
    >>> written(None), written("soon"), written(2.5)
    ('null', "'soon'", '2.5')
    """
    return "null" if value is None else quoted(value, limit)


def first_of(names: Sequence[Any], shown: int = 5, sep: str = ", ") -> str:
    """The first ``shown`` of ``names`` (ids, SKUs, buckets) as a finding names them,
    separated by ``sep`` (``"; "`` for names that hold commas), then how many more there are.

    Examples
    --------
    >>> first_of(["a", "b"]), first_of(list("abcdefg"))
    ('a, b', 'a, b, c, d, e and 2 more')
    """
    words = sep.join(map(str, names[:shown]))
    return words + (f" and {len(names) - shown:,} more" if len(names) > shown else "")


@dataclass(frozen=True)
class Finding:
    """One way an answer differs from what its request implies.

    Attributes
    ----------
    kind : str
        ``wrong_shape``, ``bad_meta``, ``count_mismatch``, ``repeated_page``,
        ``missing_identity``, ``repeated_rows``, ``conflicting_rows``, ``missing_field``,
        ``null_field``, ``unknown_value``, ``unrequested``, ``deleted_served`` ...
    where : str
        The endpoint, and the page or chunk when there are several.
    message : str
        What was seen, with numbers; any token of the client whose call made it (echoed
        back by the service in a value quoted here) is blanked to ``***``
        (:func:`blanked`).
    shortfall : int
        Units (rows, SKUs, names) the result lacks because of it (0 when none).
    """

    kind: str
    where: str
    message: str
    shortfall: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", blanked(self.where))
        object.__setattr__(self, "message", blanked(self.message))

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Findings:
    """The findings of one call, reported once at its end.

    Parameters
    ----------
    where : str
        The endpoint (``"POST /api/private/v1/companies"``), the default ``where``.
    """

    where: str
    items: list[Finding] = field(default_factory=list)
    #: What the frame readers noted of this call's answers, by ``(kind, field)``
    #: (:mod:`dealframe.frames.said`): one finding each (:meth:`say`), its counts the call's.
    notes: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False, init=False)
    _said_at: dict[tuple[str, str], int] = field(default_factory=dict, repr=False, init=False)

    def add(self, kind: str, message: str, *, where: str | None = None, shortfall: int = 0) -> None:
        """Record one finding (one of an answer gone wrong drops the call's cache entries
        at once: the call may raise before it reports)."""
        self.items.append(Finding(kind, where or self.where, message, max(0, int(shortfall))))
        if kind not in KEPT_IN_CACHE:
            forget_call()

    def say(self, kind: str, key: str, message: str) -> None:
        """Record the one finding of ``kind`` about ``key`` (a field) of this call: a second
        one, said of more of its rows (another page, another answer), replaces the first
        in its place, so that the call says it once, with the call's counts.

        Examples
        --------
        >>> found = Findings("GET /x/{id}")
        >>> found.say("numbers_as_text", "founded", "founded: 1 of 1 values")
        >>> found.say("numbers_as_text", "founded", "founded: 2 of 2 values")
        >>> [f.message for f in found]
        ['founded: 2 of 2 values']
        """
        at = self._said_at.get((kind, key))
        if at is None:
            self._said_at[(kind, key)] = len(self.items)
            self.add(kind, message)
        else:
            self.items[at] = dataclasses.replace(self.items[at], message=message)

    def absorb(self, items: Iterable[Finding]) -> None:
        """Add the findings of one page or one id of this call: one that says again, in the
        same words and with no rows lost, what an earlier one said (a service without
        ``meta``, counts written as text) is said once per call, not once per page. Said
        again from another place (another batch of ids of the call), it is the call's: its
        place is the call's endpoint, not the first place's alone.

        Examples
        --------
        >>> found = Findings("GET /x")
        >>> found.absorb([Finding("bad_meta", "GET /x page 2", NO_META)] * 3)
        >>> len(found)
        1
        >>> found.absorb([Finding("bad_meta", "GET /x ids 1001-1500 page 2", NO_META)])
        >>> [f.where for f in found]
        ['GET /x']
        """
        said = {(f.kind, f.message): at for at, f in enumerate(self.items) if not f.shortfall}
        items = list(items)
        if any(f.kind not in KEPT_IN_CACHE for f in items):
            forget_call()  # as add() does
        for finding in items:
            key = (finding.kind, finding.message)
            if finding.shortfall or key not in said:
                self.items.append(finding)
                if not finding.shortfall:
                    said[key] = len(self.items) - 1
            elif self.items[said[key]].where != finding.where:
                kept = self.items[said[key]]
                self.items[said[key]] = dataclasses.replace(kept, where=self.where)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def records(self) -> list[dict[str, Any]]:
        """The findings as plain dicts (for ``df.attrs["findings"]``)."""
        return [
            {"kind": f.kind, "where": f.where, "message": f.message, "shortfall": f.shortfall}
            for f in self.items
        ]

    def report(
        self,
        *,
        strict: bool,
        partial: Any = None,
        expected: int | None = None,
        received: int | None = None,
        what: str = "rows",
    ) -> None:
        """Warn about each finding, or raise the typed error under ``strict``; either way,
        when one is of an answer gone wrong (not in :data:`KEPT_IN_CACHE`), the HTTP cache
        entries the call read or wrote are dropped (the next call asks again).

        Raises
        ------
        IncompleteResultError
            ``strict`` and some finding left the result short (``partial`` attached).
        ServiceContractError
            ``strict`` and the answer broke the contract without losing rows.
        """
        checked(wrong=any(f.kind not in KEPT_IN_CACHE for f in self.items))
        if not self.items:
            return
        if strict:
            short = [f for f in self.items if f.shortfall]
            text = "; ".join(str(f) for f in self.items[:5])
            if short:
                got = received if received is not None else 0
                raise IncompleteResultError(
                    expected,
                    got,
                    [f.where for f in short],
                    partial=partial,
                    what=what,
                    errors=[ServiceContractError(200, text, finding=short[0].kind)],
                )
            raise ServiceContractError(
                200, text, finding=self.items[0].kind, details={"findings": self.records()}
            )
        for finding in self.items:
            if not held(str(finding)):  # a feed walk says them once the page is kept
                warnings.warn(str(finding), ServiceContractWarning, stacklevel=user_stacklevel())


@dataclass
class PageRead:
    """One page's items and the ``meta`` values that could be believed (None otherwise)."""

    number: int
    items: list[Any]
    total: int | None = None
    returned: int | None = None
    has_more: bool | None = None
    limit: int | None = None
    page: int | None = None


def as_count(value: Any) -> int | None:
    """``value`` as a count: an integer from 0 to :data:`MAX_COUNT`, written as a JSON
    integer (or any Python or numpy integer, ``np.int64(15)``), an integral number (``15.0``)
    or its digits as text (``"15"``); else None (a boolean is no count).

    Examples
    --------
    >>> as_count(15), as_count("15"), as_count(15.0), as_count("1.5"), as_count(True)
    (15, 15, 15, None, None)
    >>> as_count(np.int64(15)), as_count(np.uint8(3)), as_count(np.int64(-1))
    (15, 3, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value)
    elif isinstance(value, numbers.Integral):  # numpy integers (np.bool_ is not Integral)
        value = int(value)
    return value if isinstance(value, int) and 0 <= value <= MAX_COUNT else None


#: Booleans written as text, as :func:`as_flag` reads them (case and surrounding spaces aside).
_FLAG_TEXT = {"true": True, "false": False}


def as_flag(value: Any) -> bool | None:
    """``value`` as a boolean: a JSON boolean (or numpy's ``np.True_``), or ``"true"`` /
    ``"false"`` written as text (case and surrounding spaces aside); else None (0 and 1 are
    no boolean of ``meta``, as ``True`` is no count of it).

    Parameters
    ----------
    value : object
        A ``meta`` value the interface document types as a boolean (``has_more``, an
        aggregate's ``methodology.empty_buckets_returned``), or a cell of a boolean column.

    Returns
    -------
    bool or None
        The boolean it says, None when it says none.

    Examples
    --------
    >>> as_flag(True), as_flag(" FALSE "), as_flag("true"), as_flag(1), as_flag("yes")
    (True, False, True, None, None)
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        return _FLAG_TEXT.get(value.strip().lower())
    return None


#: At most this many characters of a bad ``meta`` value are quoted in a finding.
_QUOTED = 100


def _count(
    meta: Mapping[str, Any],
    name: str,
    found: Findings | None = None,
    where: str | None = None,
    text: list[str] | None = None,
) -> int | None:
    """``meta[name]`` as a count, None when absent or not one. A count written as text or as
    a float is read, and its name appended to ``text`` (said once by the caller), or said here
    when there is no ``text``. What is said goes to ``found`` (at ``where``); with no
    ``found``, a value that is no count is warned of at once (:class:`ServiceContractWarning`)
    and one written as text is read without a word."""
    value = meta.get(name)
    if value is None:
        return None
    count = as_count(value)
    if count is None:
        said = f"meta.{name} is {quoted(value, _QUOTED)}, not a count: ignored"
        if found is None:
            warnings.warn(said, ServiceContractWarning, stacklevel=user_stacklevel())
        else:
            found.add("bad_meta", said, where=where)
    elif isinstance(value, (str, float)):
        if text is not None:
            text.append(name)
        elif found is not None:
            found.add("bad_meta", _as_written([name]), where=where)
    return count


def _flag(
    meta: Mapping[str, Any],
    name: str,
    found: Findings,
    where: str | None = None,
    text: list[str] | None = None,
) -> bool | None:
    """``meta[name]`` as a boolean (:func:`as_flag`), None when absent or not one (a
    ``bad_meta`` finding: ignored). One written as text is read, and its name appended to
    ``text`` (said once by the caller), or said here when there is no ``text``: as
    :func:`_count` reads a count."""
    value = meta.get(name)
    if value is None:
        return None
    flag = as_flag(value)
    if flag is None:
        said = f"meta.{name} is {quoted(value, _QUOTED)}, not a boolean: ignored"
        found.add("bad_meta", said, where=where)
    elif isinstance(value, str):
        if text is not None:
            text.append(name)
        else:
            found.add("bad_meta", _as_written([name]), where=where)
    return flag


def _as_written(names: Sequence[str]) -> str:
    """The finding of ``meta`` values written as text (or floats) and read all the same; the
    same words on every page, so that a walk says it once."""
    return (
        f"meta.{', meta.'.join(names)} written as text (or a float), not as a JSON integer or "
        "boolean: read as the value written"
    )


def read_items(doc: Mapping[str, Any], found: Findings, *, where: str | None = None) -> list[Any]:
    """The object items of ``doc["data"]``: a non-list ``data`` reads as none, and items
    that are not objects are dropped, each with a ``wrong_shape`` finding.

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies")
    >>> read_items({"data": [{"sku": "A-USA"}, 3]}, found)
    [{'sku': 'A-USA'}]
    >>> found.items[0].message
    '1 of 2 items are not objects: dropped'
    """
    say_echoed(doc, found, where)
    data = doc.get("data")
    if not isinstance(data, list):
        found.add(
            "wrong_shape",
            f"data is {type(data).__name__}, not a list: read as no rows",
            where=where,
        )
        return []
    if typed_fields(data) is not None or set(map(type, data)) <= {dict}:
        return data  # the usual answer, checked at C speed
    items = [item for item in data if isinstance(item, Mapping)]
    if len(items) != len(data):
        found.add(
            "wrong_shape",
            f"{len(data) - len(items)} of {len(data)} items are not objects: dropped",
            where=where,
            shortfall=len(data) - len(items),
        )
    return items


#: The finding of a Family A answer without ``meta`` (said once per call, as :data:`NO_META`).
NO_META_A = (
    "no meta, where the document gives every Family A answer {data, meta}: its counts "
    "unknown, the rows read as they came"
)


def no_meta(doc: Mapping[str, Any], found: Findings, *, where: str | None = None) -> bool:
    """Whether a Family A answer ``doc`` has no ``meta`` (absent or null), said in a
    ``bad_meta`` finding (:data:`NO_META_A`): section 2.1 gives every Family A success
    response ``{data, meta}``, so an answer without one is said, as a list page without one
    is (:data:`NO_META`); its rows are read all the same.

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies/current")
    >>> no_meta({"data": []}, found), no_meta({"data": [], "meta": {"count": 0}}, found)
    (True, False)
    >>> [f.kind for f in found]
    ['bad_meta']
    """
    if doc.get("meta") is not None:
        return False
    found.add("bad_meta", NO_META_A, where=where)
    return True


def meta_values(
    doc: Mapping[str, Any],
    found: Findings,
    *,
    counts: Sequence[str] = (),
    flags: Sequence[str] = (),
    where: str | None = None,
    needed: bool = False,
) -> dict[str, Any]:
    """``meta``'s ``counts`` (each a sane count, else None: a present but bad one is said)
    and ``flags`` (each a boolean, :func:`as_flag`: any other value that is no boolean is
    said and ignored), each None when absent or said and ignored; those written as text (or
    a count as a float) are read and said in one ``bad_meta`` finding naming them all, as
    :func:`read_page` says a page's: one answer, one word of what it writes as text.
    ``needed``: an answer without ``meta`` is said too (:func:`no_meta`).

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies")
    >>> meta_values({"meta": {"count": "2", "has_more": "false"}}, found, counts=["count",
    ...     "total"], flags=["has_more"])
    {'count': 2, 'total': None, 'has_more': False}
    >>> [f.message.split(" written")[0] for f in found]
    ['meta.count, meta.has_more']
    """
    names = [*counts, *flags]
    meta = doc.get("meta")
    if meta is None:
        if needed:
            no_meta(doc, found, where=where)
        return dict.fromkeys(names)
    where = where or found.where
    if not isinstance(meta, Mapping):
        found.add("bad_meta", f"meta is {type(meta).__name__}, not an object: ignored", where=where)
        return dict.fromkeys(names)
    text: list[str] = []  # meta values written as text, and read
    read = {name: _count(meta, name, found, where, text) for name in counts}
    read.update((name, _flag(meta, name, found, where, text)) for name in flags)
    if text:
        found.add("bad_meta", _as_written(text), where=where)
    return read


def dedupe_items(
    items: Sequence[Mapping[str, Any]], key: str, found: Findings, *, where: str | None = None
) -> list[Mapping[str, Any]]:
    """``items`` with one item per non-null ``key`` (the first); repeats reported.

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies/current")
    >>> [i["v"] for i in dedupe_items([{"sku": "A", "v": 1}, {"sku": "A", "v": 1}], "sku", found)]
    [1]
    >>> found.items[0].kind
    'repeated_rows'
    """
    fields = typed_fields(items)
    if fields is not None:  # typed rows: every field set (the repeats compared as dicts)
        keys = [getattr(item, key, None) for item in items]
    else:
        keys = [item.get(key) for item in items]
    counts: dict[Any, int] = {}
    for k in keys:
        if isinstance(k, str) and k:
            counts[k] = counts.get(k, 0) + 1
    if all(n == 1 for n in counts.values()):
        return list(items)  # the usual answer: nothing repeated, nothing to compare
    first: dict[Any, bytes] = {}
    out: list[Mapping[str, Any]] = []
    same = differ = 0
    for item, k in zip(items, keys):
        if not isinstance(k, str) or not k or counts[k] == 1:
            out.append(item)
            continue
        text = orjson.dumps(
            item if fields is None else {f: getattr(item, f) for f in fields},
            option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
            default=repr,
        )
        if k not in first:
            first[k] = text
            out.append(item)
        elif first[k] == text:
            same += 1
        else:
            differ += 1
    _add_repeats(found, key, same, differ, "the first", where)
    return out


def _add_repeats(
    found: Findings, label: str, same: int, differ: int, kept: str, where: str | None = None
) -> None:
    """Report keys that came more than once: with the same content, and with other content
    (of which ``kept`` was kept)."""
    if same:
        found.add(
            "repeated_rows",
            f"{same} {label}(s) came more than once with the same content: kept once",
            where=where,
        )
    if differ:
        found.add(
            "conflicting_rows",
            f"{differ} {label}(s) came more than once with different content: kept {kept}",
            where=where,
        )


#: The finding of a collection page without ``meta`` (one per walk, not one per page).
NO_META = "no meta (total, has_more, limit unknown): paged until an empty or short page"
#: The finding of a collection page whose ``meta`` says neither ``total`` nor ``has_more``
#: (both in the document's pagination meta; one per call, not one per page).
NO_END = (
    "meta says neither total nor has_more (the document's pagination meta has both): "
    "paged until an empty or short page, the rows not counted against a total"
)


def read_page(
    doc: Mapping[str, Any],
    found: Findings,
    *,
    number: int,
    where: str | None = None,
    asked: int | None = None,
    index: int | None = None,
) -> PageRead:
    """The items and believable ``meta`` of one collection page, findings recorded.

    ``data`` that is not a list counts as an empty page; items that are not objects are
    dropped (``wrong_shape``); a ``meta.returned`` that differs from the items received
    is a ``count_mismatch``, read as rows lost (its ``shortfall``) unless the page shows it
    whole (:func:`whole_page`, told the ``limit`` ``asked`` and the page's ``index`` in its
    query, from 0); a page without ``meta`` is a ``bad_meta`` (:data:`NO_META`), and so is
    one whose ``meta`` says neither ``total`` nor ``has_more`` (:data:`NO_END`), and a
    ``meta.limit`` below the rows the page holds (not believed: the page size is not it).
    The words of these findings name no page, so a walk or a call says each once.
    Counts written as text (``"15"``) or floats (``15.0``) and ``has_more`` written
    ``"true"``/``"false"`` are read, with one ``bad_meta`` finding for the page that names them.

    Examples
    --------
    >>> found = Findings("GET /x")
    >>> read_page({"data": None, "meta": {"total": -1}}, found, number=2).items
    []
    >>> [f.kind for f in found]
    ['wrong_shape', 'bad_meta']
    """
    where = where or (f"{found.where} page {number}" if number > 1 else found.where)
    data = doc.get("data")
    items = read_items(doc, found, where=where)
    data = data if isinstance(data, list) else []
    meta = doc.get("meta")
    said = meta is None or not isinstance(meta, Mapping)  # no meta to read: said so here
    if meta is None:
        found.add("bad_meta", NO_META, where=where)
        meta = {}
    elif not isinstance(meta, Mapping):
        found.add("bad_meta", f"meta is {type(meta).__name__}, not an object: ignored", where=where)
        meta = {}
    text: list[str] = []  # meta values written as text, and read
    read = PageRead(
        number,
        items,
        _count(meta, "total", found, where, text),
        _count(meta, "returned", found, where, text),
        None,
        _count(meta, "limit", found, where, text),
        _count(meta, "page", found, where, text),
    )
    read.has_more = _flag(meta, "has_more", found, where, text)
    if text:
        found.add("bad_meta", _as_written(text), where=where)
    if not said and meta.get("total") is None and meta.get("has_more") is None:
        found.add("bad_meta", NO_END, where=where)
    if read.limit is not None and read.limit < len(data):
        found.add(
            "bad_meta",
            f"meta.limit {read.limit} is below the rows a page holds: not the page size, ignored",
            where=where,
        )
        read.limit = None
    if read.returned is not None and read.returned != len(data):
        count = f"meta.returned says {read.returned} rows, the page holds {len(data)}"
        short = read.returned > len(data)
        whole = whole_page(read, len(data), asked=asked, index=index) if short else None
        found.add(
            "count_mismatch",
            count if whole is None else f"{count}, {whole}: no rows lost",
            where=where,
            shortfall=0 if whole is not None else max(0, read.returned - len(data)),
        )
    return read


def whole_page(read: PageRead, held: int, *, asked: int | None, index: int | None) -> str | None:
    """Why a page of ``held`` rows is whole whatever its ``meta.returned`` says (a service
    may echo the ``limit`` asked there, or write ``meta.total``: the interface document lists
    ``returned`` without defining it), or None when nothing shows it.

    A page is whole when it is full (it holds exactly the smaller of the ``limit`` asked and
    its ``meta.limit``: a page holds at most ``limit`` rows), or when it is a whole last page:
    its ``has_more`` is not true and the rows of the pages before it (``index`` pages of that
    size) and its own make its ``meta.total``. A page holding more rows than that size shows
    nothing (a service that serves past the ``limit`` asked, or past its own ``meta.limit``,
    may have cut rows of it too): its ``meta.returned`` is believed.

    Examples
    --------
    >>> whole_page(PageRead(1, [], total=120, returned=1000, limit=1000), 120, asked=1000,
    ...            index=0)
    'the last page, whole (0 rows before it and its 120 make the 120 of meta.total)'
    >>> whole_page(PageRead(1, [], total=120, returned=120, limit=50), 50, asked=50, index=0)
    'a full page (a page holds at most 50 rows)'
    >>> whole_page(PageRead(1, [], total=120, returned=120, has_more=True), 20, asked=50,
    ...            index=2) is None
    True
    >>> whole_page(PageRead(1, [], total=2000, returned=1000, limit=1000), 995, asked=50,
    ...            index=0) is None  # 1000 rows served for 50 asked, 5 of them cut
    True
    """
    sizes = [n for n in (asked, read.limit) if n is not None and n > 0]
    if not sizes:
        return None
    size = min(sizes)
    if held == size:
        return f"a full page (a page holds at most {size} rows)"
    if read.has_more is not True and read.total is not None and index is not None and index >= 0:
        before = index * size
        if before + held == read.total:
            return (
                f"the last page, whole ({before} rows before it and its {held} make the "
                f"{read.total} of meta.total)"
            )
    return None


def identities(
    items: Sequence[Mapping[str, Any]], key: str, found: Findings, *, where: str | None = None
) -> list[Any]:
    """The ``key`` of every item; items without a usable one are reported (and kept).

    Examples
    --------
    >>> found = Findings("POST /api/v2/companies")
    >>> identities([{"sku": "A-USA"}, {"name": "x"}], "sku", found)
    ['A-USA', None]
    >>> found.items[0].kind
    'missing_identity'
    """
    typed = typed_fields(items) is not None  # typed rows: every identity is text or null
    try:  # at C speed when every item has the key
        keys = list(map((attrgetter if typed else itemgetter)(key), items))
    except (KeyError, TypeError):
        keys = [item.get(key) for item in items]
    if typed:
        bad = len(keys) - len(list(filter(None, keys)))
    elif set(map(type, keys)) <= {str}:
        bad = keys.count("")
    else:
        bad = sum(1 for k in keys if not isinstance(k, str) or not k)
    odd = [] if typed or not bad else [k for k in keys if k is not None and not isinstance(k, str)]
    if odd:  # a number, say: not absent, but not the text the document gives
        found.add(
            "missing_identity",
            f"the {key!r} of {len(odd)} of {len(items)} items is not text "
            f"({', '.join(map(repr, odd[:3]))}{', ...' if len(odd) > 3 else ''}): read as its text",
            where=where,
        )
    if bad - len(odd):
        found.add(
            "missing_identity",
            f"{bad - len(odd)} of {len(items)} items have no {key!r}: kept as rows of their own",
            where=where,
        )
    return keys


def identity_column(
    column: pa.Array, key: str, found: Findings, *, where: str | None = None
) -> pa.Array:
    """:func:`identities` of items whose identities the parse has already read into Arrow
    text (``column``: ``key`` of every item, each one text or null, as
    :func:`dealframe.frames.private.list_page_columns` holds it): the same
    ``missing_identity`` finding for those null or empty, counted in the column's buffers
    instead of the items.

    Examples
    --------
    >>> found = Findings("POST /api/private/v1/companies")
    >>> identity_column(pa.array(["a", None, ""]), "id", found).to_pylist()
    ['a', None, '']
    >>> found.items[0].message
    "2 of 3 items have no 'id': kept as rows of their own"
    """
    offsets = text_offsets(column)
    empty = offsets[1:] == offsets[:-1]
    if column.null_count:
        empty &= column.is_valid().to_numpy(zero_copy_only=False)
    bad = column.null_count + int(np.count_nonzero(empty))
    if bad:
        found.add(
            "missing_identity",
            f"{bad} of {len(column)} items have no {key!r}: kept as rows of their own",
            where=where,
        )
    return column


def text_offsets(column: pa.Array) -> np.ndarray:
    """Where each value of an Arrow ``string`` or ``large_string`` array starts in its data
    buffer, and where the last ends (``len + 1`` offsets, read in place).

    Examples
    --------
    >>> text_offsets(pa.array(["ab", None, "c"])).tolist()
    [0, 2, 2, 3]
    """
    width = 8 if pa.types.is_large_string(column.type) else 4
    count = len(column) + 1
    buffer = column.buffers()[1]
    if buffer is None:  # an empty array may come without offsets
        return np.zeros(count, dtype=f"<i{width}")
    return np.frombuffer(buffer, f"<i{width}", count, column.offset * width)


def typed_fields(items: Sequence[Any]) -> tuple[str, ...] | None:
    """The fields of typed rows (one msgspec type, read by a schema'd decoder:
    :mod:`dealframe.frames.deal_rows`), else None (dicts, or no items).

    Examples
    --------
    >>> typed_fields([{"id": "a"}]) is None
    True
    """
    return getattr(type(items[0]), "__struct_fields__", None) if items else None


def keys_present(items: Sequence[Mapping[str, Any]]) -> set[str]:
    """Every key any item has (fast when the items share one layout)."""
    if not items:
        return set()
    fields = typed_fields(items)
    if fields is not None:  # read by a schema'd decoder: every item has every field
        return set(fields)
    first = items[0]
    if sum(map(len, items)) == len(items) * len(first) and all(k in first for k in items[-1]):
        return set(first)
    return set().union(*items)


def missing_fields(
    present: Iterable[str],
    answer: str,
    found: Findings,
    *,
    n_items: int,
    wanted: Iterable[str] | None = None,
    where: str | None = None,
    parts: Sequence[tuple[str, int, Collection[str]]] = (),
) -> list[str]:
    """Documented fields of ``answer`` (or the ``wanted`` subset) absent from every item.

    A member named by the running call's token (:func:`echoed`) is said too
    (``echoed_token``, the name blanked): the frame leaves it out.

    ``parts`` are the answers the items came in (pages, chunks), each as ``(label, rows,
    keys)``: its name in a finding, its item count and the members any of its items held
    (``present`` is their union), computed as the answer was read. A documented field some
    parts hold and others with items do not is a ``missing_field`` finding of its own
    (:func:`_missing_in_parts`): the fields absent from every item of a part are its
    values lost, which the union of all parts would not tell.

    Examples
    --------
    >>> found = Findings("GET /x")
    >>> missing_fields({"query", "id"}, "resolve", found, n_items=3)
    ['match_type']
    >>> parts = [("page 1", 2, {"query", "id", "match_type"}), ("page 2", 2, {"query", "id", "mt"})]
    >>> missing_fields({"query", "id", "match_type", "mt"}, "resolve", found, n_items=4, parts=parts)
    []
    >>> found.items[-1].message
    'documented field(s) absent from every item of some answers while others hold them: match_type on page 2 (2 rows), perhaps there as mt (a member those answers alone hold) (their values are null in those rows)'
    """
    if not n_items:
        return []
    have = set(present)
    fields = DOCUMENTED_FIELDS[answer] if wanted is None else tuple(wanted)
    missing = [name for name in fields if name not in have]
    if missing:
        found.add(
            "missing_field",
            f"documented field(s) absent from all {n_items} items: "
            f"{', '.join(missing)} (their columns are null)",
            where=where,
        )
    documented = set(fields) | set(DOCUMENTED_FIELDS.get(answer, ()))
    if parts:
        _missing_in_parts(parts, [f for f in fields if f in have], documented, found, where)
    unknown = have - documented
    if named := echoed(unknown):  # a documented member keeps its column whatever its name
        found.add(
            "echoed_token",
            f"{len(named)} member name(s) of the items hold the client's token "
            f"({', '.join(named)}): left out of the frame, no column is named by a token",
            where=where,
        )
    return missing


#: The :attr:`Findings.notes` key of what :func:`absent_from_answers` counted of a call.
_ABSENT_NOTE = ("missing_field", "single answers")


def absent_from_answers(
    answers: Iterable[tuple[str, Collection[str]]],
    wanted: Sequence[str],
    found: Findings,
) -> dict[str, np.ndarray]:
    """Say the ``wanted`` documented fields absent from single answers (profiles, single
    deals: one answer per id, ``answers`` as ``(id, keys)``): one ``missing_field`` finding
    for the call, not one per id, that names per field how many answers lack it and the
    first few of their ids. Called again with the same ``found`` (one call's answers read in
    parts), the finding is the call's, its counts those of every part (:meth:`Findings.say`).

    Returns
    -------
    dict
        Of these ``answers``: each field some of them lack, with a boolean per answer (True
        where absent): the rows :func:`null_fields` leaves out (``absent``), their nulls
        being this absence, said here.

    Examples
    --------
    >>> found = Findings("GET /x/{id}")
    >>> absent_from_answers([("a", {"id"}), ("b", {"id", "name"})], ["id", "name"], found)
    {'name': array([ True, False])}
    >>> absent_from_answers([("c", {"id"})], ["id", "name"], found)
    {'name': array([ True])}
    >>> [f.message for f in found]
    ['documented field(s) absent from single answers: name in 2 of 3 answers: id a, c (null in those rows)']
    """
    noted = found.notes.setdefault(_ABSENT_NOTE, {"answers": 0, "ids": {}})
    ids: dict[str, list[str]] = noted["ids"]
    lacking: dict[str, list[int]] = {}
    answers = list(answers)
    for at, (ident, keys) in enumerate(answers):
        noted["answers"] += 1
        for name in wanted:
            if name not in keys:
                ids.setdefault(name, []).append(ident)
                lacking.setdefault(name, []).append(at)
    rows = {}
    for name, where in lacking.items():
        rows[name] = np.zeros(len(answers), dtype=bool)
        rows[name][where] = True
    if not ids:
        return rows
    total = noted["answers"]
    shown = "; ".join(
        f"{name} in {len(lacking):,} of {total:,} answers: id {first_of(lacking, _IDS_SHOWN)}"
        for name, lacking in ids.items()
    )
    found.say(
        "missing_field",
        _ABSENT_NOTE[1],
        f"documented field(s) absent from single answers: {shown} (null in those rows)",
    )
    return rows


#: How many answers a ``missing_field`` finding of some answers names per field.
_PARTS_SHOWN = 5


def _missing_in_parts(
    parts: Sequence[tuple[str, int, Collection[str]]],
    fields: Sequence[str],
    documented: set[str],
    found: Findings,
    where: str | None,
) -> None:
    """Say the documented ``fields`` absent from every item of some ``parts`` (pages,
    chunks: ``(label, rows, keys)``) that hold items, while other parts hold them, and
    those parts alone hold a member outside the ``documented`` names, in its place: their
    values are there under another name, null in the field (a field absent from all items
    :func:`missing_fields` says). Without such a member nothing is said: a service that
    leaves null members out of its items gives parts without the field wherever none of
    their items has a value (short pages of sub-collections, often), and nothing was lost.
    Each field names those parts and their rows (the first :data:`_PARTS_SHOWN`), and the
    member likely to be the field: one that spells it in another case or with separators
    (:func:`_folded`, the rule of :func:`respelled_fields`), else the one such member.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> parts = [("page 1", 2, {"id", "deal_valuation"}), ("page 2", 3, {"id", "dealValuation"})]
    >>> _missing_in_parts(parts, ["id", "deal_valuation"], {"id", "deal_valuation"}, found, None)
    >>> found.items[0].message
    'documented field(s) absent from every item of some answers while others hold them: deal_valuation on page 2 (3 rows), there as dealValuation (the same name in another case or with separators) (their values are null in those rows)'
    >>> quiet = Findings("POST /x")  # page 2 holds no member in its place: nulls left out
    >>> _missing_in_parts(parts[:1] + [("page 2", 3, {"id"})], ["id", "deal_valuation"],
    ...                   {"id", "deal_valuation"}, quiet, None)
    >>> len(quiet)
    0
    """
    full = [part for part in parts if part[1]]
    lacking: dict[str, list[int]] = {}
    for at, (_, _, keys) in enumerate(full):
        for name in fields:
            if name not in keys:
                lacking.setdefault(name, []).append(at)
    shown: list[str] = []
    for name, ats in lacking.items():
        if len(ats) == len(full):
            continue  # absent from every item: :func:`missing_fields` says it
        inside = set.intersection(*(set(full[at][2]) for at in ats)) - documented
        if inside:
            chosen = set(ats)
            outside: set[str] = set().union(
                *(full[at][2] for at in range(len(full)) if at not in chosen)
            )
            inside -= outside
        if not inside:  # no member in its place: a service leaving out null members looks so
            continue
        labels = ", ".join(f"{full[at][0]} ({full[at][1]:,} rows)" for at in ats[:_PARTS_SHOWN])
        if len(ats) > _PARTS_SHOWN:
            rows = sum(full[at][1] for at in ats)
            labels += f" and {len(ats) - _PARTS_SHOWN:,} more ({rows:,} rows in all)"
        spelt = sorted(k for k in inside if isinstance(k, str) and _folded(k) == _folded(name))
        if spelt:
            labels += f", there as {_shown_key(spelt[0])} (the same name in another case or with separators)"
        elif len(inside) == 1 and isinstance(key := next(iter(inside)), str):
            labels += f", perhaps there as {_shown_key(key)} (a member those answers alone hold)"
        shown.append(f"{name} on {labels}")
    if shown:
        found.add(
            "missing_field",
            "documented field(s) absent from every item of some answers while others hold "
            f"them: {'; '.join(shown)} (their values are null in those rows)",
            where=where,
        )


#: What may stand between the words of a field's name (``market_cap_lcu``, ``ev revenue
#: ltm``, ``ev-revenue-ltm``): ``_ . -``, any whitespace, and the zero-width characters
#: (zero-width space, non-joiner and joiner, word joiner, byte-order mark) a copy and paste
#: brings along unseen.
_NAME_SEPARATORS = re.compile(r"[\s_.\-\u200b\u200c\u200d\u2060\ufeff]+")


def _folded(name: str) -> str:
    """``name`` without case or separators, NFKC-normalised first (full-width ``ｅｖ`` is
    ``ev``): ``marketCapLCU``, ``market_cap_lcu`` and ``Market Cap LCU`` alike.

    The one rule of "the same name in another spelling": of a served member
    (:func:`respelled_fields`), a time-series field (:mod:`dealframe.public.fields`), a
    profile field (:mod:`dealframe.private.fields`) and a did-you-mean
    (:mod:`dealframe.field_names`).

    Examples
    --------
    >>> _folded("Market Cap LCU"), _folded("market_cap_lcu"), _folded("ｅｖ\u200bRevenue-Ltm")
    ('marketcaplcu', 'marketcaplcu', 'evrevenueltm')
    """
    return _NAME_SEPARATORS.sub("", unicodedata.normalize("NFKC", name)).casefold()


def _shown_key(key: str) -> str:
    r"""``key`` as a finding writes it: as is, or in quotes with escapes (``'sku\u200b'``)
    when it holds a character that prints as nothing or as another (not printable, or changed
    by NFKC: a zero-width space, a full-width letter), so the reader sees how it differs.

    Examples
    --------
    >>> _shown_key("market_cap"), _shown_key("Market Cap"), _shown_key("sku\u200b")
    ('market_cap', 'Market Cap', "'sku\\u200b'")
    >>> _shown_key("ｓku")
    "'ｓku'"
    """
    plain = key.isprintable() and unicodedata.normalize("NFKC", key) == key
    return key if plain else repr(key)


def respelled_fields(
    items: list[Mapping[str, Any]],
    names: Iterable[str],
    found: Findings,
    *,
    read_as: str = "the documented field",
    labels: Sequence[str] | None = None,
    series: bool = False,
    month: Callable[[Any], Any] | None = None,
) -> list[Mapping[str, Any]]:
    """``items`` with each member that spells one of ``names`` in another case, or with
    separators (``marketCapLCU``, ``market_cap_lcu`` for ``marketCapLcu``), renamed to it,
    said once (``respelled_field``, naming each spelling and how many items; ``read_as``
    the words for what ``names`` are: a time series says "the field asked").

    The rule by which a ``groups/current`` key spells a field the client knows. A member is
    left as served (an extra column) where the item also holds the name itself, or where its
    spelling could be more than one of ``names``. Where an item holds two spellings of one
    field (``marketCapLCU`` and ``market_cap_lcu``), neither is read (the two may differ):
    both are kept as served, that field's column is null for the item, and the finding names
    the spellings kept and the item; the item's other members are read as ever.

    With ``series`` (the ``data`` or ``median`` of time-series items, a member no field
    asked is no column and no row), a spelling beside the field itself is read where the
    field has no value, and is then gone from the item:

    - with ``month`` (``data``: each field a map of months; ``month`` reads a month key, so
      that ``"2024-01"`` and ``"2024-01-01"`` are one month), it fills the months the field
      lacks (absent or null; a null field lacks every month), the value written under the
      field's own key of that month where it has one; the items of one ``labels`` entry (a
      SKU served twice) are one series: a month the field holds in any of them is the
      field's own;
    - without (``median``: a period's one value), it fills the field's null value.

    Said with how many values are read (a spelling that only repeats the field's values,
    or holds none, is not said); a value both hold, differing, is the field's own, said with
    the item (and month). A spelling that is not a map of months beside one (or a map
    beside a period's value), and two spellings of one field without the field itself, are
    not read: left out of the item, said.

    ``labels`` names each item in the finding (a SKU, a period); without, its ``sku`` or
    ``id``, else its place.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> respelled_fields([{"sku": "A", "marketCapLCU": 1.0}], ["sku", "marketCapLcu"], found)
    [{'sku': 'A', 'marketCapLcu': 1.0}]
    >>> found.items[0].message
    'member(s) written in another case or with separators, read as the documented field: marketCapLCU as marketCapLcu (in 1 of 1 items)'
    >>> found = Findings("POST /x")
    >>> respelled_fields([{"peNtm": {"2024-01": 1.0, "2024-02": None},
    ...                    "PENTM": {"2024-02-01": 2.0, "2024-01": 3.0}}], ["peNtm"], found,
    ...                  read_as="the field asked", labels=["A"], series=True,
    ...                  month=lambda key: key[:7])
    [{'peNtm': {'2024-01': 1.0, '2024-02': 2.0}}]
    >>> print(found.items[0].message)
    member(s) written in another case or with separators beside the field asked itself, read where it has no value: PENTM beside peNtm, 1 value(s) (in 1 of 1 items: A); a value both hold, differing, is the field's own: PENTM beside peNtm in A 2024-01
    """
    by_fold: dict[str, str | None] = {}
    for name in names:
        key = _folded(name)
        by_fold[key] = name if by_fold.get(key, name) == name else None  # None: ambiguous
    known = set(by_fold.values())
    typed = typed_fields(items)  # typed rows: every one holds these members, no other
    if typed is not None:
        members = set(typed)
    else:
        members = set().union(*(item for item in items if isinstance(item, Mapping)))
    if not any(  # the answer's members, each looked at once: most answers respell none
        isinstance(key, str) and key not in known and by_fold.get(_folded(key)) for key in members
    ):
        return items
    if typed is not None:  # renamed as the JSON reading's items are
        items = [{f: getattr(item, f) for f in typed} for item in items]
    read: Counter[tuple[str, str]] = Counter()
    kept: dict[tuple[str, ...], list[str]] = {}  # the spellings of one field -> the items
    beside: list[tuple[int, str, str]] = []  # series: (item, spelling, field) of one beside it
    named: list[str] = []
    out: list[Mapping[str, Any]] = []
    for item in items:
        label = labels[len(out)] if labels is not None else _item_label(item, len(out))
        named.append(label)
        renamed = {
            key: mine
            for key in item
            if isinstance(key, str)
            and key not in known
            and (mine := by_fold.get(_folded(key)))
            and mine not in item
        }
        fields = Counter(renamed.values())
        unread: list[str] = []
        if len(fields) < len(renamed):  # two spellings of one field: neither is read
            for mine in [m for m, n in fields.items() if n > 1]:
                spelt = tuple(k for k, m in renamed.items() if m == mine)
                kept.setdefault((mine, *spelt), []).append(label)
                unread.extend(spelt)
            renamed = {k: m for k, m in renamed.items() if fields[m] == 1}
        read.update(renamed.items())
        row = {renamed.get(k, k): v for k, v in item.items()} if renamed else item
        if series:
            beside.extend(
                (len(out), key, mine)
                for key in item
                if isinstance(key, str)
                and key not in known
                and (mine := by_fold.get(_folded(key)))
                and mine in item
            )
            if unread:  # a time series makes no column (row) of them: left out
                row = {k: v for k, v in row.items() if k not in unread}
        out.append(row)
    said = []
    if read:
        shown = ", ".join(f"{_shown_key(key)} as {mine}" for key, mine in sorted(read)[:6])
        most = max(read.values())
        said.append(
            "member(s) written in another case or with separators, read as "
            f"{read_as}: {shown}{' ...' if len(read) > 6 else ''} (in {most} of {len(items)} items)"
        )
    if beside:
        said.extend(_series_filled(out, named, beside, month, read_as, len(items)))
    if kept:
        shown = "; ".join(
            f"{' and '.join(map(_shown_key, spelt))} both spell {mine}, "
            f"{'not read' if series else 'kept as served'} (in {len(where)} of "
            f"{len(items)} items: {first_of(where, 3)})"
            for (mine, *spelt), where in sorted(kept.items())[:6]
        )
        said.append(
            "two spellings of one field in an item, neither read ("
            + (
                f"their values left out; {read_as} is null there"
                if series
                else "extra columns; the documented column is null there"
            )
            + f"): {shown}"
        )
    if said:
        found.add("respelled_field", "; ".join(said))
    return out


def _series_filled(
    out: list[Mapping[str, Any]],
    labels: list[str],
    beside: list[tuple[int, str, str]],
    month: Callable[[Any], Any] | None,
    read_as: str,
    n_items: int,
) -> list[str]:
    """Read into ``out`` (in place: each item touched copied first) each spelling of
    ``beside`` (``(item, spelling, field)``) where its field has no value, as
    :func:`respelled_fields` says with ``series``; the spelling is gone from its item.
    Returns the parts of its finding: the values read, those both hold differing, the
    spellings not read."""
    mine_of = {(at, mine) for at, _, mine in beside}
    copied: set[int] = set()
    writable: dict[tuple[int, str], dict[Any, Any]] = {}

    def own(at: int, mine: str) -> dict[Any, Any]:  # item ``at``'s field, writable
        if at not in copied:
            out[at] = dict(out[at])
            copied.add(at)
        if (at, mine) not in writable:
            held = out[at].get(mine)
            writable[at, mine] = dict(held) if isinstance(held, Mapping) else {}
            out[at][mine] = writable[at, mine]  # type: ignore[index]
        return writable[at, mine]

    def reading(key: Any) -> Any:  # the month a key names; a key naming none: itself
        said = month(key) if month is not None else None
        return key if said is None else said

    # the field's own value of each series and month: the first served (as the frames read
    # it), in whichever item of its label (a SKU served twice is one series)
    first: dict[tuple[str, str, Any], tuple[int, Any, Any]] = {}
    series = {(labels[at], mine) for at, mine in mine_of}
    if month is not None:
        for at, item in enumerate(out):
            for mine in {m for label, m in series if label == labels[at]}:
                held = item.get(mine)
                if isinstance(held, Mapping):
                    for key, value in held.items():
                        first.setdefault((labels[at], mine, reading(key)), (at, key, value))
    filled: dict[tuple[str, str], list[Any]] = {}  # (spelling, field) -> [values, items]
    differ: dict[tuple[str, str], list[str]] = {}  # -> "item month" both hold
    unread: dict[tuple[str, str], list[str]] = {}  # -> items: not a map beside a map
    taken: set[tuple[str, str, Any]] = set()  # the months a spelling filled
    for at, key, mine in beside:
        if at not in copied:
            out[at] = dict(out[at])
            copied.add(at)
        item = out[at]
        label, theirs = labels[at], item.pop(key)  # type: ignore[attr-defined]
        mine_value = item.get(mine)
        values, both = 0, []
        if theirs is None:
            continue  # nothing to read
        if (
            month is not None
            and isinstance(theirs, Mapping)
            and (mine_value is None or isinstance(mine_value, Mapping))
        ):
            for when, value in theirs.items():
                if value is None:
                    continue
                slot = (label, mine, reading(when))
                if slot in taken:
                    continue  # another spelling's value there first
                where, own_key, own_value = first.get(slot, (at, when, None))
                if own_value is None:
                    own(where, mine)[own_key] = value
                    first[slot] = (where, own_key, value)
                    taken.add(slot)
                    values += 1
                elif own_value != value:
                    both.append(f"{label} {when}")
        elif (
            month is None
            and not isinstance(theirs, Mapping)
            and not isinstance(mine_value, Mapping)
        ):
            if mine_value is None:
                item[mine] = theirs  # type: ignore[index]
                values = 1
            elif theirs != mine_value:
                both.append(label)
        else:  # a map of months beside one value, or no map beside a map: not read
            unread.setdefault((key, mine), []).append(label)
            continue
        if values:
            got = filled.setdefault((key, mine), [0, []])
            got[0] += values
            got[1].append(label)
        if both:
            differ.setdefault((key, mine), []).extend(both)
    said = []
    if filled:
        shown = "; ".join(
            f"{_shown_key(key)} beside {mine}, {values} value(s) (in {len(where)} of "
            f"{n_items} items: {first_of(where, 3)})"
            for (key, mine), (values, where) in sorted(filled.items())[:6]
        )
        said.append(
            "member(s) written in another case or with separators beside "
            f"{read_as} itself, read where it has no value: {shown}"
        )
    if differ:
        shown = "; ".join(
            f"{_shown_key(key)} beside {mine} in {first_of(where, 3)}"
            for (key, mine), where in sorted(differ.items())[:6]
        )
        said.append(f"a value both hold, differing, is the field's own: {shown}")
    if unread:
        shown = "; ".join(
            f"{_shown_key(key)} beside {mine} (in {len(where)} of {n_items} items: "
            f"{first_of(where, 3)})"
            for (key, mine), where in sorted(unread.items())[:6]
        )
        said.append(f"one a map of months and the other not, not read (left out): {shown}")
    return said


def _item_label(item: Mapping[str, Any], at: int) -> str:
    """How a finding names an item: its ``sku`` or ``id``, else its place in the answer."""
    for key in ("sku", "id"):
        if isinstance(item.get(key), (str, int)):
            return str(item[key])
    return f"item {at + 1}"


#: Company fields the interface document gives no null (section 2.2), checked: the name,
#: the timestamps, the state carriers (``active``, ``deleted``, ``is_public``), the founding
#: year and the region (a vocabulary). Free text (``short_name``, ``description``,
#: ``website``, ``linkedin``, ``city``, ``ownership``), the arrays and ``country`` are not
#: checked (the document marks the nullable ones, but an organisation's country is "nullable
#: in principle" as a participant, and a blank text loses no row of any cohort).
_COMPANY_NOT_NULL = (
    "name",
    "region",
    "founded",
    "active",
    "created_at",
    "updated_at",
    "deleted",
    "is_public",
)
#: Deal fields the document gives no null (section 2.2): dates, timestamps, the
#: vocabularies, the state carrier ``deleted`` and the ``target`` (as ``target_id``).
_DEAL_NOT_NULL = (
    "deal_date",
    "deal_type",
    "deal_subtype",
    "created_at",
    "updated_at",
    "deleted",
    "target_id",
)

#: Columns of the frames of each answer that the interface document gives no null (names,
#: dates and timestamps, vocabularies, booleans, counts, a deal's target; see
#: :data:`_COMPANY_NOT_NULL` for what is not checked): a null there is said, since those
#: rows then fall out of any filter, grouping or bucketing on it. (A missing ``id`` is a
#: ``missing_identity``.) A deal's ``target`` is an object, not nullable (section 2.2): a
#: null ``target_id`` is a deal whose ``target`` is null, absent or without its ``id``, whose
#: link to its company is lost (it falls out of every ``target_id``, ``target_country`` or
#: ``target_region`` cohort and every join on its company). A single deal's ``investors`` is
#: "the full investor list" (an array, not nullable): null, the deal's investors are lost.
#: The ``*_profile`` answers are the single forms (``GET /companies/{id}`` ...): an
#: investor's is the company profile's fields (section 2.2). Family A's current data is not
#: checked (its numbers are nullable; its texts are display fields).
NOT_NULL: Mapping[str, tuple[str, ...]] = {
    "companies": _COMPANY_NOT_NULL,
    "investors": ("name", "updated_at", "deleted"),
    "company_profile": _COMPANY_NOT_NULL,
    "investor_profile": _COMPANY_NOT_NULL,
    "transactions": _DEAL_NOT_NULL,
    "deal_profile": (*_DEAL_NOT_NULL, "investors"),
    "deals_with_role": (*_DEAL_NOT_NULL, "role"),
    "portfolio": ("name", "first_invested", "last_invested", "rounds_count", "led_any_round"),
    "company_investors": (
        "name",
        "rounds_participated",
        "is_lead_any_round",
        "first_round_date",
        "last_round_date",
    ),
    "co_investors": ("name", "shared_deals", "first_shared_date", "last_shared_date"),
    "search": ("name",),
}
#: The document's field of a :data:`NOT_NULL` column read from inside an object: what a
#: finding names (and what ``missing_field`` names when it is absent from every item).
_FIELD_OF_COLUMN: Mapping[str, str] = {"target_id": "target"}
#: Row ids a ``null_field`` finding names per column, at most.
_IDS_SHOWN = 5


def _null_label(name: str) -> str:
    """How a ``null_field`` finding names the column ``name``: with its document field when
    it is read from inside an object (``target (target_id)``)."""
    field = _FIELD_OF_COLUMN.get(name)
    return name if field is None else f"{field} ({name})"


def _ids_of(frame: pd.DataFrame, rows: pd.Series) -> str:
    """The ``id`` of the ``rows`` (a mask) as a finding names them (the first few; the SKU
    of a Family A frame, its index), or ""."""
    if "id" in frame.columns:
        key, values = "id", frame.loc[rows, "id"]
    elif frame.index.name == "sku":
        key, values = "sku", pd.Series(frame.index[rows.to_numpy(dtype=bool)])
    else:
        return ""
    ids = [str(i) for i in values.dropna().head(_IDS_SHOWN + 1)]
    if not ids:
        return ""
    more = int(rows.sum()) - min(len(ids), _IDS_SHOWN)
    shown = ", ".join(ids[:_IDS_SHOWN])
    return f": {key} {shown}" + (f" and {more:,} more" if more > 0 else "")


def _null_rows(frame: pd.DataFrame, column: str, absent: Mapping[str, np.ndarray]) -> pd.Series:
    """The rows of ``column`` null, but those whose field was absent (:func:`null_fields`'
    ``absent``; all of them when its mask is not one per row)."""
    nulls = frame[column].isna()
    lacks = absent.get(_FIELD_OF_COLUMN.get(column, column))
    if lacks is None or len(lacks) != len(frame):
        return nulls
    return nulls & ~np.asarray(lacks, dtype=bool)


def null_fields(
    frame: pd.DataFrame,
    answer: str,
    found: Findings,
    *,
    missing: Iterable[str] = (),
    absent: Mapping[str, np.ndarray] | None = None,
    where: str | None = None,
) -> dict[str, int]:
    """Columns the document gives no null (:data:`NOT_NULL`) that hold nulls, with counts.

    A field absent from every item is a ``missing_field`` already (``missing``: document
    field names, so ``target`` there stands for ``target_id``), and so is one absent from
    some items (``absent``: per document field, a boolean per row, True where it was absent,
    as :func:`absent_from_answers` gives it): those rows are not looked at. The rows are
    kept, and a ``null_field`` finding says how many of them are null where, and the first
    few of their ids.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> null_fields(pd.DataFrame({"id": ["d1", "d2"], "deal_type": ["M&A"] * 2,
    ...                           "deal_date": [None, "2024-01-01"], "target_id": [None, None]}),
    ...             "transactions", found)
    {'deal_date': 1, 'target_id': 2}
    >>> found.items[0].message
    'null where the document gives no null: deal_date in 1 of 2 rows: id d1; target (target_id) in 2 of 2 rows: id d1, d2 (rows kept; they fall out of anything filtered, grouped or bucketed on it)'
    """
    skip = set(missing)
    absent = absent or {}
    nulls = {
        name: _null_rows(frame, name, absent)
        for name in NOT_NULL.get(answer, ())
        if name in frame.columns and name not in skip and _FIELD_OF_COLUMN.get(name) not in skip
    }
    counts = {name: int(rows.sum()) for name, rows in nulls.items()}
    counts = {name: n for name, n in counts.items() if n}
    if counts:
        shown = "; ".join(
            f"{_null_label(name)} in {n:,} of {len(frame):,} rows{_ids_of(frame, nulls[name])}"
            for name, n in counts.items()
        )
        found.add(
            "null_field",
            f"null where the document gives no null: {shown} (rows kept; they fall out of "
            "anything filtered, grouped or bucketed on it)",
            where=where,
        )
    return counts


def outside_vocabulary(
    frame: pd.DataFrame,
    name: str,
    vocabulary: Sequence[Any],
    found: Findings,
    *,
    where: str | None = None,
    named: str | None = None,
) -> dict[Any, int]:
    """Values of column ``name`` outside ``vocabulary``, with their counts (most first); an
    ``unknown_value`` finding names them, each value that spells one of the vocabulary in
    another case or with other separators (``VENTURE``, ``Series_A``, ``western europe``)
    with a did-you-mean. The rows are kept, the values as they came: no comparison with a
    value of the vocabulary matches them. ``named`` says the vocabulary in the finding in
    place of listing its values (a long one).

    Examples
    --------
    >>> found = Findings("GET /x")
    >>> roles = pd.DataFrame({"role": ["buyer", "seller", "seller", None]})
    >>> outside_vocabulary(roles, "role", ("lead_investor", "buyer"), found)
    {'seller': 2}
    >>> found.items[0].message
    "role outside lead_investor, buyer in 2 of 4 rows: 'seller' (2) (rows kept, the values as they came: they match none of the vocabulary's)"
    """
    if name not in frame.columns:
        return {}
    values = frame[name].astype(object)
    odd = values[values.notna() & ~values.isin(list(vocabulary))]
    counts = dict(Counter(odd.tolist()).most_common())
    if counts:
        by_fold = {_folded(str(v)): v for v in vocabulary}
        shown = ", ".join(
            f"{quoted(value, 20)} ({n:,}{_spelt_as(value, by_fold)})"
            for value, n in list(counts.items())[:5]
        )
        more = f" and {len(counts) - 5} more" if len(counts) > 5 else ""
        found.add(
            "unknown_value",
            f"{name} outside {named or ', '.join(map(str, vocabulary))} in {len(odd):,} of "
            f"{len(frame):,} rows: {shown}{more} (rows kept, the values as they came: they "
            "match none of the vocabulary's)",
            where=where,
        )
    return counts


def _spelt_as(value: Any, by_fold: Mapping[str, Any]) -> str:
    """``; did you mean 'Venture'?`` for a ``value`` that spells a member of a vocabulary
    (``by_fold``: members by :func:`_folded` spelling) in another case or with other
    separators, else nothing.

    Examples
    --------
    >>> _spelt_as("Series_A", {"seriesa": "Series A"}), _spelt_as("Debt", {"seriesa": "Series A"})
    ("; did you mean 'Series A'?", '')
    """
    meant = by_fold.get(_folded(value)) if isinstance(value, str) else None
    return f"; did you mean {meant!r}?" if meant is not None else ""


_DEAL_VOCABULARIES: Mapping[str, tuple[str, ...]] = {
    "deal_type": DEAL_TYPES,
    "deal_subtype": DEAL_SUBTYPES,
}

#: Columns the interface document gives a closed vocabulary, by answer (section 4.4:
#: "Region vocabulary (for region and target_region)", the deal types and subtypes; ``role``
#: and ``match_type`` are checked where they are read, once their spelling is undone). The
#: deal types and subtypes a service's discovery document lists besides are taken too
#: (:func:`document_values`: ``listed``).
VOCABULARY_FIELDS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "companies": {"region": REGIONS},
    "investors": {  # a profile holds the company profile fields and the stats
        "region": REGIONS,
        "stats_most_common_deal_type": DEAL_TYPES,
        "stats_most_common_deal_subtype": DEAL_SUBTYPES,
    },
    "transactions": {"target_region": REGIONS, **_DEAL_VOCABULARIES},  # deals, fundings ...
    "deals_with_role": dict(_DEAL_VOCABULARIES),  # buyside, investments
}
#: The discovery filter whose listed values a column of :data:`VOCABULARY_FIELDS` takes
#: besides the document's (the lists grow).
_LISTED_AS: Mapping[str, str] = {
    "deal_type": "deal_type",
    "deal_subtype": "deal_subtype",
    "stats_most_common_deal_type": "deal_type",
    "stats_most_common_deal_subtype": "deal_subtype",
}
#: Columns the document types as ISO 3166 alpha-3 codes, by answer (sections 2.1 and 2.2).
ISO3_FIELDS: Mapping[str, tuple[str, ...]] = {
    "companies": ("country",),
    "investors": ("country",),
    "transactions": ("target_country",),  # deals, fundings, sellside
    "deals_with_role": ("target_country",),  # buyside, investments
    "search": ("countryCodeIso3",),
    "current": ("countryCodeIso3",),
}
#: Pairs of date columns of which the first, by its name, is never after the second.
ORDERED_FIELDS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "portfolio": (("first_invested", "last_invested"),),
    "company_investors": (("first_round_date", "last_round_date"),),
    "co_investors": (("first_shared_date", "last_shared_date"),),
}


def document_values(
    frame: pd.DataFrame,
    answer: str,
    found: Findings,
    *,
    where: str | None = None,
    listed: Mapping[str, Sequence[str] | None] | None = None,
) -> None:
    """Say the values of ``frame`` (the rows of an ``answer``: ``companies``, ``search``,
    ``portfolio`` ...) that break a rule the interface document makes plain, each rule in
    one finding; the rows and their values are kept as served (never dropped, never
    changed), so what is said is what the frame holds.

    - A value outside a closed vocabulary (:data:`VOCABULARY_FIELDS`: ``region``,
      ``target_region``, ``deal_type``, ``deal_subtype``): ``unknown_value``
      (:func:`outside_vocabulary`), with a did-you-mean for a value that spells a known one
      in another case or with other separators (``VENTURE``, ``Series_A``). A deal type or
      subtype is known when the document lists it or ``listed`` does: the values of the
      service's discovery document (``deal_type``, ``deal_subtype`` filters) the client
      holds.
    - A country that is no assigned ISO 3166 alpha-3 code (:data:`ISO3_FIELDS`: ``"US"``,
      ``"usa"``, ``"GER"``; :func:`~dealframe._countries.is_country`), a value no country
      filter takes: ``unknown_value``.
    - A first date after the last of the same row (:data:`ORDERED_FIELDS`:
      ``first_invested`` after ``last_invested``): ``inverted_dates``, naming the rows.

    Examples
    --------
    >>> found = Findings("POST /api/private/v1/companies")
    >>> rows = pd.DataFrame({"id": ["a", "b"], "region": ["Caribbean", "Oceania"],
    ...                      "country": ["GER", "AUS"]})
    >>> document_values(rows, "companies", found)
    >>> [f.message.split(":")[0] for f in found]
    ['region outside Africa, Central Asia, East Asia, Eastern Europe, Latin America, Middle East, North America, Northern Europe, Oceania, South Asia, South-East Asia, Southern Europe, Western Europe in 1 of 2 rows', 'country no country filter takes in 1 of 2 rows']
    >>> print(list(found)[1].message)
    country no country filter takes in 1 of 2 rows: 'GER' (1; did you mean 'DEU', Germany? 'GER' is no ISO 3166 code) (rows kept, the values as they came: a filter naming the code meant does not select them)
    """
    for name, vocabulary in VOCABULARY_FIELDS.get(answer, {}).items():
        served = (listed or {}).get(_LISTED_AS.get(name, name)) or ()
        more = tuple(v for v in served if v not in vocabulary)
        named = None
        if name in _LISTED_AS:  # long lists: said, not listed
            named = "the document's list" + (" and the discovery document's" if more else "")
        outside_vocabulary(frame, name, (*vocabulary, *more), found, where=where, named=named)
    for name in ISO3_FIELDS.get(answer, ()):
        _not_iso3(frame, name, found, where)
    for first, last in ORDERED_FIELDS.get(answer, ()):
        _inverted(frame, first, last, found, where)


def _not_iso3(frame: pd.DataFrame, name: str, found: Findings, where: str | None) -> None:
    """An ``unknown_value`` finding for the values of column ``name`` that the country
    filters do not take (:func:`~dealframe._countries.is_country`: an assigned ISO 3166-1
    alpha-3 code, or ``XKX``): ``US``, ``usa``, ``GER``, ``ANT``. A filter naming such a
    code is refused, and one naming the code meant (``DEU``) does not select these rows."""
    if name not in frame.columns:
        return
    values = frame[name].astype(object)
    present = values[values.notna()]
    say_not_iso3(
        name, present.to_numpy(dtype=object), np.arange(len(present)), len(frame), found, where
    )


def not_countries(values: Iterable[Any]) -> list[Any]:
    """The ``values`` (each once) no country filter takes: not an assigned code; a blank is
    no country, as a null is (the link reads both so), not a code meant."""
    return [v for v in values if not (isinstance(v, str) and (is_country(v) or not v.strip()))]


def say_not_iso3(
    label: str,
    values: np.ndarray,
    rows: np.ndarray,
    of: int,
    found: Findings,
    where: str | None,
) -> None:
    """The ``unknown_value`` finding of the country ``values`` (nulls left out), each of the
    row at the same place of ``rows``, of ``of`` rows: each value no country filter takes said
    once, with the rows that carry it and the code meant; nothing when there is none."""
    wrong = not_countries(pd.unique(values))  # each value checked once, not each row
    if not wrong:
        return
    odd = pd.Series(values, dtype=object).isin(wrong).to_numpy()
    # a row carrying a value twice (two participants of one country) counts once for it
    pairs = pd.DataFrame({"row": rows[odd], "value": values[odd]}).drop_duplicates()
    counts = Counter(pairs["value"].tolist()).most_common()
    carrying = pairs["row"].nunique()
    shown = ", ".join(f"{quoted(value, 20)} ({n:,}{_suggested(value)})" for value, n in counts[:5])
    more = f" and {len(counts) - 5} more" if len(counts) > 5 else ""
    found.add(
        "unknown_value",
        f"{label} no country filter takes in {carrying:,} of {of:,} rows: {shown}{more} "
        "(rows kept, the values as they came: a filter naming the code meant does not select "
        "them)",
        where=where,
    )


def _suggested(value: Any) -> str:
    """What :func:`~dealframe._countries.why_not` says of a country ``value``, after a
    semicolon (``; did you mean 'USA'?``), or nothing for a value it says nothing of.

    Examples
    --------
    >>> _suggested("usa"), _suggested("ZZZ")[:27], _suggested(276)
    ("; did you mean 'USA'?", "; 'ZZZ' is user-assigned in", '')
    """
    said = why_not(value).strip() if isinstance(value, str) else ""
    return f"; {said[1:-1]}" if said else ""


def _inverted(
    frame: pd.DataFrame, first: str, last: str, found: Findings, where: str | None
) -> None:
    """An ``inverted_dates`` finding for the rows whose ``first`` date is after ``last``."""
    if first not in frame.columns or last not in frame.columns:
        return
    try:
        after = (frame[first] > frame[last]).fillna(False).astype(bool)
    except TypeError:  # values the frame holds as text it could not read as dates
        return
    n = int(after.sum())
    if n:
        found.add(
            "inverted_dates",
            f"{first} after {last} in {n:,} of {len(frame):,} rows{_ids_of(frame, after)} "
            "(rows kept, the dates as they came)",
            where=where,
        )


def _row_texts(frame: pd.DataFrame, rows: Sequence[int]) -> list[str]:
    part = frame.iloc[list(rows)]
    return [
        "\x1f".join(map(repr, values)) for values in part.astype(object).itertuples(index=False)
    ]


def _keys(frame: pd.DataFrame, key: str | Sequence[str]) -> pd.Series | None:
    """One value per row identifying it (null when any part is null or empty), or None."""
    names = [key] if isinstance(key, str) else list(key)
    if any(name not in frame for name in names):
        return None
    if len(names) == 1:
        return frame[names[0]].reset_index(drop=True)
    parts = frame[names]
    complete = (parts.notna() & parts.ne("")).all(axis=1).to_numpy()
    rows = zip(*(frame[name].tolist() for name in names))
    return pd.Series([row if whole else None for row, whole in zip(rows, complete)], dtype=object)


#: Odd 64-bit multipliers that mix a text key's summary into one number (:func:`surely_distinct`).
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9))
#: Keys summarised at a time (:func:`surely_distinct`): arrays of a few pages of memory, which the
#: allocator reuses, where arrays of every key came as fresh pages on every call.
_SUMMARISED = 8192


def surely_distinct(keys: pd.Series) -> bool:
    """True when the text ``keys`` are surely all different, told from a summary of each
    read in place from its Arrow buffers: its length and its first and last 8 bytes, mixed
    into one number. Equal keys have equal summaries, so no two summaries alike means no two
    keys alike (ids drawn at random or numbered differ in their first or last bytes). False
    says nothing: a null key, a key shorter than 8 bytes or two summaries alike leave the
    question to the exact check (:meth:`pandas.Series.is_unique`).

    Examples
    --------
    >>> ids = ["b3e6a3f0-0001", "b3e6a3f0-0002"]
    >>> surely_distinct(pd.Series(ids, dtype="str"))
    True
    >>> surely_distinct(pd.Series(ids[:1] * 2, dtype="str"))
    False
    """
    if not isinstance(keys.array, pd.arrays.ArrowStringArray):
        return False
    chunks = keys.array.__arrow_array__()
    column = chunks.chunk(0) if chunks.num_chunks == 1 else chunks.combine_chunks()
    if column.null_count or len(column) < 2:
        return not column.null_count
    offsets = text_offsets(column)
    start, size = int(offsets[0]), int(offsets[-1] - offsets[0])
    if size < 8 * len(column):  # some key is shorter than 8 bytes
        return False
    # every 8 bytes of the text, read at each byte (a key of 8 bytes or more holds both ends)
    words = np.ndarray((size - 7,), "<u8", column.buffers()[2], start, (1,))
    summary = np.empty(len(column), np.uint64)
    with np.errstate(over="ignore"):
        for at in range(0, len(column), _SUMMARISED):  # small steps: no fresh pages of memory
            ends = offsets[at : at + _SUMMARISED + 1] - start
            lengths = np.diff(ends)
            if lengths.min() < 8:
                return False
            part = words[ends[:-1]]
            part *= _MIX[0]
            part ^= words[ends[1:] - 8]
            part *= _MIX[1]
            part ^= lengths.astype(np.uint64) * _MIX[2]
            summary[at : at + len(part)] = part
    return bool(pd.Series(summary, copy=False).is_unique)  # hashed: a sort took twice as long


def dedupe_at(
    frame: pd.DataFrame,
    key: str | Sequence[str],
    found: Findings,
    at: np.ndarray,
    *,
    newest: str | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """``frame`` with one row per non-null ``key`` (a column, or several together), and ``at``
    (a value per row: the rows' positions in the frame a call built) cut as its rows are:
    which copy of a repeat it kept, for what is said of the rows returned alone
    (:func:`~dealframe.frames.said.say_kept`).

    Rows with a null or empty key (no identity: :func:`identities`) are never merged.
    Repeats with identical content are ``repeated_rows``; with different content
    ``conflicting_rows``, and the row with the latest ``newest`` value (else the first) is
    kept (:func:`rows_deduped`).

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> df = pd.DataFrame({"id": ["a", "a", None, None], "v": [1, 2, 3, 3]})
    >>> dedupe_at(df, "id", found, np.arange(4))[0]["v"].tolist()
    [1, 3, 3]
    >>> [f.kind for f in found]
    ['conflicting_rows']
    >>> found = Findings("POST /x")
    >>> df = pd.DataFrame({"id": ["a", "b", "a"], "v": [1, 2, 3], "t": [1, 5, 9]})
    >>> out, at = dedupe_at(df, "id", found, np.arange(3), newest="t")
    >>> out["v"].tolist(), at.tolist()
    ([2, 3], [1, 2])
    """
    kept = rows_deduped(frame, key, found, newest=newest)
    if kept is None:
        return frame, at
    out = frame.iloc[kept].reset_index(drop=True)
    out.attrs["duplicates_removed"] = int(np.count_nonzero(~kept))
    return out, at[kept]


def rows_deduped(
    frame: pd.DataFrame, key: str | Sequence[str], found: Findings, *, newest: str | None = None
) -> np.ndarray | None:
    """Which rows of ``frame`` :func:`dedupe_at` keeps (a boolean per row), its findings recorded
    in ``found``; None when it keeps every row. What is aligned with the rows outside the frame
    (an aggregate's ``attrs["labels_as_served"]``) is cut by it as the rows are.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> df = pd.DataFrame({"id": ["a", "b", "a"], "v": [1, 2, 1]})
    >>> rows_deduped(df, "id", found).tolist(), [f.kind for f in found]
    ([True, True, False], ['repeated_rows'])
    """
    keys = _keys(frame, key) if not frame.empty else None
    if keys is None:
        return None
    if surely_distinct(keys) or keys.is_unique:  # the usual case, at a fraction of finding repeats
        return None
    label = key if isinstance(key, str) else "+".join(key)
    repeated = keys.notna() & keys.ne("") & keys.duplicated(keep=False)
    if not repeated.any():
        return None
    where = pd.Series(range(len(frame)))[repeated.to_numpy()]
    positions = {k: list(v) for k, v in where.groupby(keys[repeated].to_numpy(), sort=False)}
    text_of = dict(zip(where.tolist(), _row_texts(frame, where.tolist()), strict=True))
    drop: list[int] = []
    same = differ = 0
    for rows in positions.values():
        if len({text_of[r] for r in rows}) == 1:
            same += 1
            drop += rows[1:]
            continue
        differ += 1
        keep = rows[0]
        if newest is not None and newest in frame:
            stamps = frame[newest].iloc[rows]
            if stamps.notna().any():
                keep = rows[int(stamps.reset_index(drop=True).idxmax())]
        drop += [r for r in rows if r != keep]
    _add_repeats(found, label, same, differ, "the newest" if newest else "the first")
    kept = np.ones(len(frame), dtype=bool)
    kept[drop] = False
    return kept


def _as_json(value: Any) -> str:
    """``value`` as the service wrote it (JSON: ``null``, double quotes), else its repr; cut
    to 80 characters."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not a value JSON holds (a date the client made)
        shown = repr(value)
    return shown[:80] + "..." if len(shown) > 80 else shown


def _misread(exc: ValidationError) -> str:
    """What a shaping function could not read, in the service's terms: the member, what it
    should be and its value as JSON (``created_at: expected ISO 8601 timestamps (strings),
    got 1782777599``), with none of the word ``invalid`` that blames an argument.

    Examples
    --------
    >>> _misread(ValidationError("field", "a number", got=[None, "x"]))
    'field: expected a number, got [null, "x"]'
    """
    if not hasattr(exc, "got"):  # no value, or one JSON does not hold: as the error says it
        text = str(exc)
        return text.removeprefix("invalid ")
    return f"{exc.argument}: expected {exc.expected}, got {_as_json(exc.got)}"


#: The findings of the call whose answers are being shaped (:func:`shaping` given ``found``).
_SHAPED_FOR: ContextVar[Findings | None] = ContextVar("dealframe_shaped_for", default=None)


def shaping_findings() -> Findings | None:
    """The findings of the call whose answers the running :func:`shaping` block shapes, when
    it was given them, else None (a frame built from the user's own items, or outside any
    call): where the frame readers record what they read otherwise than the document writes
    it (numbers written as text), in place of a warning of their own.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> with shaping(None, "POST /x", found):
    ...     shaping_findings() is found
    True
    >>> shaping_findings() is None
    True
    """
    return _SHAPED_FOR.get()


@contextmanager
def shaping(
    request: RequestInfo | None, where: str, found: Findings | None = None
) -> Iterator[None]:
    """Turn a shaping function's :class:`ValidationError` into :class:`ServiceContractError`.

    Shaping functions raise ``ValidationError`` for items they cannot read: the caller's
    fault when the caller hands them a payload, the service's when the client does. Within
    the block, the frames built are of answers of the service
    (:func:`~dealframe.notices.reading_answers`: what is said of their data is a
    :class:`~dealframe.ServiceContractWarning`), and, given ``found`` (the call's findings),
    what the frame readers read otherwise than the document writes it is recorded there
    (:func:`shaping_findings`): said once by :meth:`Findings.report` and listed in
    ``attrs["findings"]``.
    """
    token = _SHAPED_FOR.set(found) if found is not None else None
    try:
        with reading_answers():
            yield
    except ValidationError as exc:
        forget_call()  # the answers are not answered from the cache again
        _detach(exc)
        # the error's own context names the request: ``where`` only when it says more
        said = "" if request is not None and where == str(request) else f"{where}: "
        error = ServiceContractError(
            200,
            blanked(f"{said}an item does not have the documented shape: {_misread(exc)}"),
            finding="wrong_shape",
            request=request,
        )
    else:
        return
    finally:
        if token is not None:
            _SHAPED_FOR.reset(token)
    raise error from None


def _detach(exc: BaseException) -> None:
    """Cut ``exc`` from the exceptions it was raised while handling or from.

    A reader's ``ValidationError`` raised ``from None`` in an ``except`` block still holds
    the foreign exception in ``__context__`` (``from None`` only hides it from tracebacks):
    a ``ValueError("could not convert string to float: '...'")`` quoting the service's value
    whole, a token it echoed included, where the dealframe errors blank it. The error
    :func:`shaping` raises keeps ``exc`` as its context, so nothing past ``exc`` is left.

    Examples
    --------
    >>> try:
    ...     try:
    ...         float("x-secret")
    ...     except ValueError:
    ...         raise ValidationError("n", "numbers") from None
    ... except ValidationError as exc:
    ...     _detach(exc)
    ...     caught = exc
    >>> caught.__context__ is None, caught.__cause__ is None
    (True, True)
    """
    exc.__cause__ = None
    exc.__context__ = None
    exc.__suppress_context__ = True
