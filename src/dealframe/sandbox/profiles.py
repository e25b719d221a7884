"""Sandbox profiles: the same data, with one open point of the interface document decided
another way.

The interface document leaves points open ("not shown"); the sandbox decides each one way
(docs/sandbox.md). A profile serves a documented alternative to one of them, so the client
and ``dealframe doctor`` can be tried against every answer a real service might give. Each
profile is one entry of :data:`PROFILES`, built from two kinds of change only:

- changes to the URL table (:mod:`.urls`): a handler wrapped to rewrite its request or
  post-process its answer, swapped for a variant, or a route removed;
- how Family B error answers are written (``errors``).

``default`` changes nothing: the sandbox as documented, byte for byte. Profiles combine
(``"limit-100,quarter-words"``) unless two of them decide the same point.

Examples
--------
>>> sorted(PROFILES)[:3]
['broken', 'default', 'errors-detail']
>>> select("limit-100,quarter-words").name
'limit-100,quarter-words'
>>> select("quarter-word")
Traceback (most recent call last):
...
dealframe.sandbox.profiles.UnknownProfileError: unknown sandbox profile 'quarter-word' (did you mean 'quarter-words'?); profiles: default, group-field-major, group-list, group-flat, quarter-compact, quarter-words, month-date, threshold-3, small-n-omitted, errors-detail, errors-list, limit-100, limit-500, page-from-0, resolve-100-400, resolve-100-413, timestamps-z, timestamps-offset, extra-fields, legacy-subresources, broken
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeGuard

import orjson

from .arguments import SandboxArgumentError
from .errors import ApiProblem, Problems, bad_request, error_body
from .models import SandboxState
from .responses import private, public
from .responses.request import ApiRequest, query_param
from .urls import Handler, Url
from .vocab import LIMIT_MAX, TIME_SERIES_FIELDS

__all__ = [
    "DEFAULT",
    "PROFILES",
    "ErrorWriter",
    "Profile",
    "UnknownProfileError",
    "default_error",
    "select",
]

#: How an error answer is written: the problem in, ``(body, media type)`` out.
ErrorWriter = Callable[[ApiProblem], tuple[bytes, str]]
#: What a profile does to the URL table.
TableChange = Callable[[tuple[Url, ...]], tuple[Url, ...]]

DEFAULT = "default"
_JSON = "application/json"
_B = private.PREFIX
_A = r"/api/v[12]"


class UnknownProfileError(SandboxArgumentError):
    """A ``profile`` that names no profile of :data:`PROFILES` (the message lists them, with
    the closest name), is no name or list of names, or combines two profiles that decide the
    same point.

    A :class:`~dealframe.sandbox.SandboxArgumentError` (so a ``dealframe.ValidationError`` and
    a ``ValueError``) whose ``.argument`` is ``"profile"``.
    """


def _unchanged(urls: tuple[Url, ...]) -> tuple[Url, ...]:
    return urls


@dataclass(frozen=True)
class Profile:
    """One documented alternative answer to an open point (or several, combined).

    Attributes
    ----------
    name : str
        ``default``, a name of :data:`PROFILES`, or names joined by commas.
    point : str
        The open point of the interface document it decides another way.
    serves : str
        What the sandbox then serves (docs/sandbox.md, "Profiles").
    touches : frozenset of str
        The points it decides; two profiles that touch one point do not combine.
    urls : callable
        The change to the URL table.
    errors : callable or None
        How Family B error answers are written (None: as documented).
    replaces : bool
        True when it swaps handlers rather than wrapping them (applied first when combined,
        so wrappers of other profiles wrap the swapped handler).
    """

    name: str
    point: str
    serves: str
    touches: frozenset[str] = frozenset()
    urls: TableChange = _unchanged
    errors: ErrorWriter | None = None
    replaces: bool = False

    def table(self, urls: Sequence[Url]) -> tuple[Url, ...]:
        """The URL table this profile serves, from the default one."""
        return self.urls(tuple(urls))


# ---------------------------------------------------------------------------- table helpers


def _edit(method: str, pattern: str, wrap: Callable[[Handler], Handler]) -> TableChange:
    """Wrap (or swap) the handler of every route whose path fully matches ``pattern``."""
    rx = re.compile(pattern)

    def change(urls: tuple[Url, ...]) -> tuple[Url, ...]:
        out = tuple(
            dataclasses.replace(u, handler=wrap(u.handler))
            if u.method == method and rx.fullmatch(u.path)
            else u
            for u in urls
        )
        if out == urls:
            raise LookupError(f"no route {method} {pattern} to change")
        return out

    return change


def _drop(method: str, pattern: str) -> TableChange:
    rx = re.compile(pattern)

    def change(urls: tuple[Url, ...]) -> tuple[Url, ...]:
        out = tuple(u for u in urls if not (u.method == method and rx.fullmatch(u.path)))
        if len(out) == len(urls):
            raise LookupError(f"no route {method} {pattern} to remove")
        return out

    return change


def _each(*changes: TableChange) -> TableChange:
    def change(urls: tuple[Url, ...]) -> tuple[Url, ...]:
        for one in changes:
            urls = one(urls)
        return urls

    return change


def _after(change: Callable[[ApiRequest, Any], Any]) -> Callable[[Handler], Handler]:
    """Post-process a handler's parsed answer (``change(request, doc)`` returns the new doc)."""

    def wrap(handler: Handler) -> Handler:
        def wrapped(request: ApiRequest, models: SandboxState) -> bytes:
            return orjson.dumps(change(request, orjson.loads(handler(request, models))))

        return wrapped

    return wrap


def _around(
    rewrite: Callable[[ApiRequest], ApiRequest] = lambda r: r,
    change: Callable[[bytes], bytes] = lambda b: b,
) -> Callable[[Handler], Handler]:
    """Rewrite the request before the handler sees it (or refuse it by raising), and the
    answer's bytes after."""

    def wrap(handler: Handler) -> Handler:
        def wrapped(request: ApiRequest, models: SandboxState) -> bytes:
            return change(handler(rewrite(request), models))

        return wrapped

    return wrap


def _swap(handler: Handler) -> Callable[[Handler], Handler]:
    return lambda _: handler


# ---------------------------------------------------------------------------- group layout


def _field_major(request: ApiRequest, doc: dict) -> dict:
    """``{sum: {f: x}, median: {f: y}}`` → ``{f: {sum: x, median: y}}`` (stats a field has)."""
    out: dict[str, dict[str, Any]] = {}
    for stat in ("sum", "median"):
        for name, value in (doc["data"].get(stat) or {}).items():
            out.setdefault(name, {})[stat] = value
    return {**doc, "data": out}


def _group_list(request: ApiRequest, doc: dict) -> dict:
    """→ ``[{field, sum, median}]``, null where the field's class has no such statistic."""
    sums, medians = doc["data"].get("sum") or {}, doc["data"].get("median") or {}
    names = dict.fromkeys([*sums, *medians])
    return {
        **doc,
        "data": [{"field": n, "sum": sums.get(n), "median": medians.get(n)} for n in names],
    }


def _group_flat(request: ApiRequest, doc: dict) -> dict:
    """→ ``{fieldSum: x, fieldMedian: y}``: one flat object, the statistic in each key."""
    data = doc["data"]
    flat = {f"{f}{stat.title()}": v for stat in ("sum", "median") for f, v in data[stat].items()}
    return {**doc, "data": flat}


def _group_unreadable(request: ApiRequest, doc: dict) -> dict:
    """→ ``[[field, sum, median], ...]``: rows without names (the broken profile)."""
    rows = _group_list(request, doc)["data"]
    return {**doc, "data": [[r["field"], r["sum"], r["median"]] for r in rows]}


def _group_layout(change: Callable[[ApiRequest, dict], dict]) -> TableChange:
    return _edit("POST", f"{_A}/groups/current", _after(change))


# ---------------------------------------------------------------------------- aggregate labels

_AGGREGATE = f"{_B}/transactions/aggregate"


def _relabel(bucket: str, form: Callable[[str], str]) -> TableChange:
    def change(request: ApiRequest, doc: dict) -> dict:
        if (doc.get("meta") or {}).get("time_bucket") == bucket:
            for item in doc["data"]:
                item["bucket"] = form(item["bucket"])
        return doc

    return _edit("POST", _AGGREGATE, _after(change))


def _quarter_words(label: str) -> str:
    year, quarter = label.split("-")
    return f"{quarter} {year}"


def _unreadable_labels(request: ApiRequest, doc: dict) -> dict:
    for k, item in enumerate(doc["data"], 1):
        item["bucket"] = f"bucket {k}"
    return doc


# ---------------------------------------------------------------------------- threshold


def _threshold(n: int) -> TableChange:
    def discovery(request: ApiRequest, doc: dict) -> dict:
        doc["data"]["aggregate"]["methodology"]["small_n_threshold"] = n
        return doc

    return _each(
        _edit("POST", _AGGREGATE, _swap(partial(private.aggregate, small_n_threshold=n))),
        _edit("GET", f"{_B}/lookup/transactions", _after(discovery)),
    )


def _omit_small(request: ApiRequest, doc: dict) -> dict:
    """Buckets below the threshold left out, not returned with null statistics."""
    doc["data"] = [b for b in doc["data"] if b.get("warning") != "small_n"]
    return doc


# ---------------------------------------------------------------------------- Family B errors


def _problems(problem: ApiProblem) -> list[tuple[str | None, str]]:
    """``(field, message)`` of each problem: ``details.errors`` split at the field, or the
    message alone."""
    details = problem.details or {}
    texts = details.get("errors")
    if not isinstance(texts, list) or not texts:
        hint = details.get("hint")
        message = f"{problem.message}: {hint}" if hint else problem.message
        return [(None, message)]
    out: list[tuple[str | None, str]] = []
    for text in map(str, texts):
        name, sep, rest = text.partition(": ")
        out.append((name, rest) if sep and " " not in name else (None, text))
    return out


def _detail(problem: ApiProblem) -> tuple[bytes, str]:
    """``{"detail": "..."}``: every problem in one string (as FastAPI-style services do)."""
    texts = [f"{name}: {text}" if name else text for name, text in _problems(problem)]
    return orjson.dumps({"detail": "; ".join(texts)}), _JSON


def _errors_list(problem: ApiProblem) -> tuple[bytes, str]:
    """``{"errors": [{"field", "message"}]}``, ``field`` null when no field is at fault."""
    return orjson.dumps(
        {"errors": [{"field": name, "message": text} for name, text in _problems(problem)]}
    ), _JSON


def _plain_text(problem: ApiProblem) -> tuple[bytes, str]:
    """A plain-text page (the broken profile)."""
    lines = [f"Error {problem.status}"] + [text for _, text in _problems(problem)]
    return "\n".join(lines).encode(), "text/plain; charset=utf-8"


# ---------------------------------------------------------------------------- paging, resolve

_LISTS = f"{_B}/(companies|investors|transactions)"


def _clamp_limit(n: int) -> TableChange:
    """POST lists serve at most ``n`` rows per page and say so in ``meta.limit``."""

    def rewrite(request: ApiRequest) -> ApiRequest:
        limit = request.body.get("limit")
        if isinstance(limit, int) and not isinstance(limit, bool) and n < limit <= LIMIT_MAX:
            return dataclasses.replace(request, body={**request.body, "limit": n})
        return request  # in range already, or wrong: the handler answers as documented

    return _edit("POST", _LISTS, _around(rewrite))


def _pages_from_0() -> TableChange:
    """POST lists count ``page`` from 0: the body's page p is the sandbox's page p+1, and
    ``meta.page`` says p (``has_more`` is the same for both counts)."""

    def rewrite(request: ApiRequest) -> ApiRequest:
        page = request.body.get("page")
        if isinstance(page, int) and not isinstance(page, bool) and page >= 0:
            return dataclasses.replace(request, body={**request.body, "page": page + 1})
        return request  # absent (the first page) or wrong: the handler answers as documented

    def answer(request: ApiRequest, doc: Any) -> Any:
        doc["meta"]["page"] -= 1
        return doc

    return _edit("POST", _LISTS, lambda handler: _after(answer)(_around(rewrite)(handler)))


def _ignore_page(request: ApiRequest) -> ApiRequest:
    return dataclasses.replace(request, body={k: v for k, v in request.body.items() if k != "page"})


def _resolve_cap(n: int, status: int) -> TableChange:
    """Resolve refuses more than ``n`` names with ``status`` (400 or 413)."""

    def rewrite(request: ApiRequest) -> ApiRequest:
        names = request.body.get("names")
        if isinstance(names, list) and len(names) > n:
            text = f"names: at most {n} names per request, got {len(names)}"
            if status == 413:
                raise ApiProblem(
                    413, "PAYLOAD_TOO_LARGE", "Too many names", {"errors": [text], "limit_names": n}
                )
            raise bad_request(text)
        return request

    return _edit("POST", f"{_B}/(companies|investors)/resolve", _around(rewrite))


# ---------------------------------------------------------------------------- timestamps

_STAMP = re.compile(rb'"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\+00:00"')
_ZULU_FORMS = (b"Z", b".000Z", b".000000Z", b".0Z")
#: Offsets written by timestamps-offset, in turn: half hours, negative, and past 12 hours.
_OFFSETS = (330, -180, 540, -570, 60, 765, -600, 0)
_ALL_B = f"{_B}/.*"


def _zulu(body: bytes) -> bytes:
    """``+00:00`` → ``Z``, with and without fractions of a second (same instants)."""
    forms = itertools.cycle(_ZULU_FORMS)
    return _STAMP.sub(lambda m: b'"' + m[1] + next(forms) + b'"', body)


def _offset(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{rest:02d}"


def _shifted(body: bytes) -> bytes:
    """``+00:00`` → the same instant in other offsets (``+05:30``, ``-03:00``, ...), in turn."""
    offsets = itertools.cycle(_OFFSETS)

    def one(m: re.Match[bytes]) -> bytes:
        minutes = next(offsets)
        local = dt.datetime.fromisoformat(m[1].decode()) + dt.timedelta(minutes=minutes)
        return f'"{local.isoformat()}{_offset(minutes)}"'.encode()

    return _STAMP.sub(one, body)


def _epoch(body: bytes) -> bytes:
    """Timestamps as Unix seconds (the broken profile: no offset, no ISO 8601)."""

    def one(m: re.Match[bytes]) -> bytes:
        when = dt.datetime.fromisoformat(m[1].decode()).replace(tzinfo=dt.UTC)
        return str(int(when.timestamp())).encode()

    return _STAMP.sub(one, body)


def _timestamps(change: Callable[[bytes], bytes]) -> TableChange:
    return _each(
        _edit("GET", _ALL_B, _around(change=change)), _edit("POST", _ALL_B, _around(change=change))
    )


# ---------------------------------------------------------------------------- extra fields

#: The unknown member added to every item (Family A camelCase, Family B snake_case).
EXTRA_A, EXTRA_B = "extraField", "extra_field"
_EXTRA_VALUE = "served by the extra-fields profile"
#: Time-series fields beyond the sandbox's ten, derived from two of them per month.
EXTRA_SERIES: Mapping[str, tuple[str, str, Callable[[Any, Any], Any]]] = {
    "ruleOf40": ("revenueGrowthNtmLtm", "marginEbitdaLtm", lambda g, m: g + m),
    "ebitdaLtm": ("revenueLtm", "marginEbitdaLtm", lambda r, m: r * m / 100.0),
}
_ALL_SERIES = (*TIME_SERIES_FIELDS, *EXTRA_SERIES)


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _extra_current(item: Mapping[str, Any]) -> dict[str, Any]:
    """Current-data fields beyond the sandbox's, derived from the item's own values."""

    def diff(a: str, b: str) -> float | None:
        x, y = item.get(a), item.get(b)
        return round(x - y, 4) if _number(x) and _number(y) else None

    growth, margin = item.get("revenueGrowthNtmLtm"), item.get("marginEbitdaNtm")
    return {
        "netDebt": diff("enterpriseValue", "marketCap"),
        "netDebtLcu": diff("enterpriseValueLcu", "marketCapLcu"),
        "ruleOf40Ntm": round(growth + margin, 4) if _number(growth) and _number(margin) else None,
    }


def _tag_items(key: str) -> Callable[[ApiRequest, Any], Any]:
    """Add the unknown member to every item of ``data`` (or to ``data`` itself); a profile
    read with a ``fields`` allowlist gets only what it asked for."""

    def change(request: ApiRequest, doc: Any) -> Any:
        if (request.query.get("fields") or "").strip():
            return doc
        data = doc.get("data")
        if isinstance(data, list):
            for item in data:
                if isinstance(item, dict):
                    item[key] = _EXTRA_VALUE
        elif isinstance(data, dict) and isinstance(data.get("filters"), list):  # discovery
            for entry in data["filters"]:
                entry[key] = _EXTRA_VALUE
        elif isinstance(data, dict):
            data[key] = _EXTRA_VALUE
        return doc

    return change


def _with_current_extras(request: ApiRequest, doc: dict) -> dict:
    for item in doc["data"]:
        item.update(_extra_current(item))
        item[EXTRA_A] = _EXTRA_VALUE
    return doc


def _series_request(request: ApiRequest) -> ApiRequest:
    """Ask the sandbox's handler for the fields the extra series are derived from."""
    fields = request.body.get("fields")
    if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
        return request  # absent (all fields) or wrong: the handler answers as documented
    unknown = [
        f"fields[{i}]: {f!r} is not one of {', '.join(_ALL_SERIES)}"
        for i, f in enumerate(fields)
        if f not in _ALL_SERIES
    ]
    if unknown:
        raise bad_request(*unknown)
    wanted = [f for f in fields if f not in EXTRA_SERIES]
    for name in fields:
        if name in EXTRA_SERIES:
            wanted += EXTRA_SERIES[name][:2]
    return dataclasses.replace(
        request, body={**request.body, "fields": list(dict.fromkeys(wanted))}
    )


def _series_answer(request: ApiRequest, doc: dict) -> dict:
    """Derive the extra series, then keep exactly the fields asked for, in their order."""
    fields = request.body.get("fields")
    wanted = (
        list(dict.fromkeys(fields)) if isinstance(fields, list) and fields else list(_ALL_SERIES)
    )
    for item in doc["data"]:
        data = item["data"]
        for name, (a, b, f) in EXTRA_SERIES.items():
            if name in wanted:
                xs, ys = data.get(a) or {}, data.get(b) or {}
                data[name] = {
                    m: round(f(x, ys[m]), 4)
                    for m, x in xs.items()
                    if _number(x) and _number(ys.get(m))
                }
        item["data"] = {name: data[name] for name in wanted}
        item[EXTRA_A] = _EXTRA_VALUE
    return doc


def _tag_meta(request: ApiRequest, doc: dict) -> dict:
    doc["meta"][EXTRA_A] = _EXTRA_VALUE
    return doc


def _version_bound(handler: Callable[..., bytes]) -> Callable[[Handler], Handler]:
    """Swap a Family A handler for ``handler`` bound to the route's own version."""

    def wrap(old: Handler) -> Handler:
        version = old.args[0] if isinstance(old, partial) else "v2"
        return partial(handler, version)

    return wrap


def _replaced(query: Mapping[str, str], name: str, value: str) -> Mapping[str, str]:
    """``query`` with parameter ``name`` set to ``value`` and every other parameter kept as
    given, repeats included: the server's multi-dict stays one, so the handler still sees a
    repeated parameter (and refuses it).

    Examples
    --------
    >>> from starlette.datastructures import QueryParams
    >>> q = _replaced(QueryParams("fields=a&x=1&x=2"), "fields", "b")
    >>> q["fields"], q.getlist("x")
    ('b', ['1', '2'])
    >>> _replaced({"fields": "a", "x": "1"}, "fields", "b")
    {'fields': 'b', 'x': '1'}
    """
    multi_items = getattr(query, "multi_items", None)
    if not callable(multi_items):
        return {**query, name: value}
    items = [(k, v) for k, v in multi_items() if k != name]
    return type(query)([*items, (name, value)])  # type: ignore[call-arg]


def _asked_extra(handler: Handler) -> Handler:
    """A profile read whose ``fields`` allowlist names the unknown member: the handler reads
    the other names, and the member is added, as the service serves it."""

    def wrapped(request: ApiRequest, models: SandboxState) -> bytes:
        names = [f.strip() for f in (request.query.get("fields") or "").split(",") if f.strip()]
        repeated = Problems()  # ``fields`` given more than once: the handler's own 400
        query_param(request.query, "fields", repeated)
        if EXTRA_B not in names or repeated.errors:
            return handler(request, models)
        rest = ",".join(f for f in names if f != EXTRA_B) or "id"
        query = _replaced(request.query, "fields", rest)
        doc = orjson.loads(handler(dataclasses.replace(request, query=query), models))
        doc["data"][EXTRA_B] = _EXTRA_VALUE
        return orjson.dumps(doc)

    return wrapped


def _extra_document(request: ApiRequest, doc: dict) -> dict:
    """The served document lists the names this profile's handlers take: ``extra_field`` in
    each profile read's ``fields``, the extra series in the time-series bodies' ``fields``."""
    for item in doc["paths"].values():
        for operation in item.values():
            for param in operation.get("parameters", ()):
                if param["name"] == "fields":
                    param["schema"]["items"]["enum"].append(EXTRA_B)
    for name, schema in doc["components"]["schemas"].items():
        if name.endswith("TimeSeriesBody"):
            schema["properties"]["fields"]["items"]["enum"].extend(EXTRA_SERIES)
    return doc


def _extra_fields() -> TableChange:
    tag_a, tag_b = _after(_tag_items(EXTRA_A)), _after(_tag_items(EXTRA_B))
    current = partial(public.group_current_data, derived=_extra_current)
    series = partial(public.group_time_series_data, derived=EXTRA_SERIES)
    return _each(
        _edit(
            "POST",
            f"{_A}/groups/current",
            lambda h: _after(_tag_meta)(_version_bound(current)(h)),
        ),
        _edit("POST", f"{_A}/groups/time-series", lambda h: tag_a(_version_bound(series)(h))),
        _edit("POST", f"{_A}/companies", tag_a),
        _edit("POST", f"{_A}/companies/current", _after(_with_current_extras)),
        _edit(
            "POST",
            f"{_A}/companies/time-series",
            lambda h: _after(_series_answer)(_around(_series_request)(h)),
        ),
        _edit("GET", f"{_B}/(companies|investors|transactions)/{{id}}", _asked_extra),
        _edit("GET", "/openapi.json", _after(_extra_document)),
        _edit("GET", _ALL_B, tag_b),
        _edit("POST", _ALL_B, tag_b),
    )


# ---------------------------------------------------------------------------- sub-resources

_LEGACY_COMPANY_SUBS = (
    "/companies/{id}/fundings",
    "/companies/{id}/acquisitions",
    "/companies/{id}/investments",
    "/companies/{id}/investors",
)


def _legacy_subresources() -> TableChange:
    def discovery(request: ApiRequest, doc: dict) -> dict:
        doc["data"]["sub_resources"] = list(_LEGACY_COMPANY_SUBS)
        return doc

    return _each(
        _drop("GET", f"{_B}/companies/{{id}}/sellside"),
        _drop("GET", f"{_B}/companies/{{id}}/buyside"),
        _edit("GET", f"{_B}/lookup/companies", _after(discovery)),
    )


# ---------------------------------------------------------------------------- the profiles

_GROUP = "groups/current data layout (section 2.1: not shown)"
_LABELS = "month and quarter bucket labels (section 4.3 rule 7: not shown)"
_ERRORS = "Family B error body (section 7: not shown)"
_LIMIT = "page member and upper bound of limit of POST lists (section 4.2: not shown)"
_RESOLVE = "names per resolve request (section 8: not shown)"
_STAMPS = "timestamps: ISO 8601 with offset (section 2.2), which offset not shown"

_ALL: tuple[Profile, ...] = (
    Profile(DEFAULT, "none", "the sandbox as documented in this page, byte for byte"),
    Profile(
        "group-field-major",
        _GROUP,
        "groups/current `data` as `{field: {sum, median}}` (each field with the statistics "
        "its class has)",
        frozenset({"group-layout"}),
        _group_layout(_field_major),
    ),
    Profile(
        "group-list",
        _GROUP,
        "groups/current `data` as a list of `{field, sum, median}` (null where the class "
        "has no such statistic)",
        frozenset({"group-layout"}),
        _group_layout(_group_list),
    ),
    Profile(
        "group-flat",
        _GROUP,
        "groups/current `data` as one flat object, the statistic in each key "
        "(`marketCapSum`, `revenueLtmSum`, `revenueLtmMedian`, `evRevenueLtmMedian`)",
        frozenset({"group-layout"}),
        _group_layout(_group_flat),
    ),
    Profile(
        "quarter-compact",
        _LABELS,
        "quarter buckets labelled `2024Q1`",
        frozenset({"quarter-labels"}),
        _relabel("quarter", lambda s: s.replace("-", "")),
    ),
    Profile(
        "quarter-words",
        _LABELS,
        "quarter buckets labelled `Q1 2024`",
        frozenset({"quarter-labels"}),
        _relabel("quarter", _quarter_words),
    ),
    Profile(
        "month-date",
        _LABELS,
        "month buckets labelled by their first day, `2024-01-01`",
        frozenset({"month-labels"}),
        _relabel("month", lambda s: f"{s}-01"),
    ),
    Profile(
        "threshold-3",
        "small_n_threshold (section 4.3 rule 9: 3 or 5)",
        "the aggregate suppresses buckets with fewer than 3 deals, and its meta and the "
        "transactions discovery document say 3",
        frozenset({"threshold"}),
        _threshold(3),
        replaces=True,
    ),
    Profile(
        "small-n-omitted",
        "what a suppressed bucket is (section 4.3 rule 3)",
        "aggregate buckets with fewer deals than `small_n_threshold` left out of `data` "
        "(the default returns them with `n`, null statistics and `warning: small_n`); empty "
        "buckets still follow `empty_buckets_returned`",
        frozenset({"suppression"}),
        _edit("POST", _AGGREGATE, _after(_omit_small)),
    ),
    Profile(
        "errors-detail",
        _ERRORS,
        'Family B errors as `{"detail": "..."}`: every problem in one string (a 404 '
        "for a soft-deleted entity says so in words only)",
        frozenset({"errors"}),
        errors=_detail,
    ),
    Profile(
        "errors-list",
        _ERRORS,
        'Family B errors as `{"errors": [{"field": ..., "message": ...}]}` (`field` '
        "null when no field is at fault)",
        frozenset({"errors"}),
        errors=_errors_list,
    ),
    Profile(
        "limit-100",
        _LIMIT,
        "POST lists serve at most 100 rows per page and say so in `meta.limit`; page k "
        "holds rows (k-1)*100+1 .. k*100",
        frozenset({"list-limit"}),
        _clamp_limit(100),
    ),
    Profile(
        "limit-500", _LIMIT, "as limit-100, with 500", frozenset({"list-limit"}), _clamp_limit(500)
    ),
    Profile(
        "page-from-0",
        _LIMIT,
        "POST lists count `page` from 0: page 0 holds rows 1 .. limit, page k rows "
        "k*limit+1 .. (k+1)*limit, and `meta.page` says the page as asked",
        frozenset({"list-page"}),
        _pages_from_0(),
    ),
    Profile(
        "resolve-100-400",
        _RESOLVE,
        "resolve takes at most 100 names; more is a 400 `BAD_REQUEST` naming `names`",
        frozenset({"resolve-batch"}),
        _resolve_cap(100, 400),
    ),
    Profile(
        "resolve-100-413",
        _RESOLVE,
        "resolve takes at most 100 names; more is a 413 `PAYLOAD_TOO_LARGE` "
        "(`details.limit_names`: 100)",
        frozenset({"resolve-batch"}),
        _resolve_cap(100, 413),
    ),
    Profile(
        "timestamps-z",
        _STAMPS,
        "Family B timestamps end in `Z`, in turn with no fraction and with fractions of a "
        "second (`...:00Z`, `...:00.000Z`, `...:00.000000Z`, `...:00.0Z`): the same "
        "instants",
        frozenset({"timestamps"}),
        _timestamps(_zulu),
    ),
    Profile(
        "timestamps-offset",
        _STAMPS,
        "Family B timestamps written in other offsets, in turn `+05:30`, `-03:00`, `+09:00`, "
        "`-09:30`, `+01:00`, `+12:45`, `-10:00`, `+00:00`: the same instants",
        frozenset({"timestamps"}),
        _timestamps(_shifted),
    ),
    Profile(
        "extra-fields",
        "current-data fields beyond those listed, time-series field names (sections 2.1, "
        "4.1: examples only), unknown members",
        "time series also serve `ruleOf40` (revenueGrowthNtmLtm + marginEbitdaLtm) and "
        "`ebitdaLtm` (revenueLtm x marginEbitdaLtm / 100), by default and when asked, in "
        "companies/time-series and groups/time-series; current data also carries "
        "`netDebt`, `netDebtLcu` and `ruleOf40Ntm` (medians in groups/current); every item "
        "of every answer carries an unknown member (`extraField` in Family A, "
        "`extra_field` in Family B; in the meta of groups/current, in each filter of the "
        "discovery documents, in the data of a profile read without a `fields` allowlist)",
        frozenset({"fields"}),
        _extra_fields(),
        replaces=True,
    ),
    Profile(
        "legacy-subresources",
        "sub-resource names (section 4.4: an earlier listing)",
        "the companies discovery document lists `/companies/{id}/acquisitions` and "
        "`/companies/{id}/investments` instead of sellside and buyside, and only those "
        "two paths serve (`/sellside` and `/buyside` are 404)",
        frozenset({"sub-resources"}),
        _legacy_subresources(),
    ),
    Profile(
        "broken",
        "several at once, beyond what a client can adapt to",
        "a deliberately broken service: POST lists ignore `page` (every page is page 1), "
        "aggregate buckets are labelled `bucket 1`, `bucket 2` ..., Family B errors are "
        "plain text, groups/current `data` is a list of `[field, sum, median]` arrays, and "
        "Family B timestamps are Unix seconds",
        frozenset(
            {"list-page", "quarter-labels", "month-labels", "errors", "group-layout", "timestamps"}
        ),
        _each(
            _edit("POST", _LISTS, _around(_ignore_page)),
            _edit("POST", _AGGREGATE, _after(_unreadable_labels)),
            _group_layout(_group_unreadable),
            _timestamps(_epoch),
        ),
        errors=_plain_text,
    ),
)

#: Every profile by name, in the order docs/sandbox.md lists them.
PROFILES: Mapping[str, Profile] = {p.name: p for p in _ALL}


def _names(spec: str | Iterable[str] | None) -> list[str]:
    if spec is None:
        return []
    if not isinstance(spec, (str, Iterable)) or isinstance(spec, Mapping):
        expected = "a profile name, names joined by commas, or a list of names"
        raise UnknownProfileError(
            "profile", expected, spec, message=f"profile: {expected}, got {spec!r}"
        )
    parts = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for part in parts:
        if not isinstance(part, str):
            message = f"profile: a profile name is a string, got {part!r}"
            raise UnknownProfileError("profile", "profile names as strings", part, message=message)
        name = part.strip()
        if name in ("", DEFAULT) or name in out:
            continue
        if name not in PROFILES:
            close = difflib.get_close_matches(name, list(PROFILES), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            expected = f"one of the profiles {', '.join(PROFILES)}"
            message = f"unknown sandbox profile {name!r}{hint}; profiles: {', '.join(PROFILES)}"
            raise UnknownProfileError("profile", expected, name, message=message)
        out.append(name)
    return out


def select(spec: str | Iterable[str] | Profile | None = DEFAULT) -> Profile:
    """The profile named by ``spec``: a name, names joined by commas, or a list of names.

    Parameters
    ----------
    spec : str, list of str, Profile or None
        ``"default"`` (or None, or ``""``) is the sandbox as documented.

    Returns
    -------
    Profile
        Its ``name`` is the canonical spelling (``"default"``, or names joined by commas in
        the order given).

    Raises
    ------
    UnknownProfileError
        A name that is not a profile (a ``dealframe.ValidationError``, so a ``ValueError``;
        the message lists the profiles), or two profiles that decide the same point.

    Examples
    --------
    >>> select(None).name, select(["limit-100", "default"]).name
    ('default', 'limit-100')
    >>> select("quarter-words,quarter-compact")
    Traceback (most recent call last):
    ...
    dealframe.sandbox.profiles.UnknownProfileError: profiles quarter-words and quarter-compact both decide quarter-labels: pick one
    """
    if isinstance(spec, Profile):
        return spec
    names = _names(spec)
    if not names:
        return PROFILES[DEFAULT]
    if len(names) == 1:
        return PROFILES[names[0]]
    chosen = [PROFILES[n] for n in names]
    for a, b in itertools.combinations(chosen, 2):
        both = a.touches & b.touches
        if both:
            points = ", ".join(sorted(both))
            raise UnknownProfileError(
                "profile",
                "profiles that decide different points",
                ",".join(names),
                message=f"profiles {a.name} and {b.name} both decide {points}: pick one",
            )
    order = sorted(chosen, key=lambda p: not p.replaces)  # swaps first, then wrappers
    writer = next((p.errors for p in chosen if p.errors is not None), None)
    return Profile(
        ",".join(names),
        "; ".join(p.point for p in chosen),
        "; ".join(p.serves for p in chosen),
        frozenset().union(*(p.touches for p in chosen)),
        _each(*(p.urls for p in order)),
        writer,
        replaces=any(p.replaces for p in chosen),
    )


def default_error(problem: ApiProblem) -> tuple[bytes, str]:
    """The documented error body (Family A's shape, for both families)."""
    return error_body(problem), _JSON
