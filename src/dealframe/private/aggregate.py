"""Aggregate answers (``POST /transactions/aggregate``) read into their frame.

An aggregate is one answer, not paged: its buckets (a list, or an object keyed by bucket
label: :func:`aggregate_buckets`) and its ``meta`` (section 4.3: ``total_deals`` and the
``methodology``'s ``small_n_threshold``) are checked against the interface document, each
way they differ recorded as a finding (buckets out of time order sorted, and said), and the
buckets shaped by
:func:`~dealframe.frames.private.aggregate_frame` (:func:`read_aggregate`, the one reading
of :meth:`~dealframe.private.api.PrivateApi.aggregate` and the doctor). A refusal of an
aggregate whose filters hold more ids than a list batch takes says why
(:func:`aggregate_refused`).
"""

from __future__ import annotations

import contextvars
import copy
import datetime
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import pandas as pd

from .._vocab import AGGREGATE_METRICS, TIME_BUCKETS
from ..contract import (
    Findings,
    _as_written,
    as_count,
    as_flag,
    identities,
    keys_present,
    missing_fields,
    quoted,
    read_items,
    rows_deduped,
    shaping,
    written,
)
from ..errors import ApiError
from ..frames import private as shape
from ..frames.said import rows_said_later, say_kept
from ..notices import setting
from ..transport.refusals import TOO_LARGE
from .batches import IDS_PER_BATCH, Held
from .bucket_statistics import statistics_said
from .suppression import threshold_said

__all__ = [
    "DOCUMENTED_THRESHOLD",
    "aggregate_buckets",
    "aggregate_refused",
    "read_aggregate",
    "threshold_elsewhere",
    "threshold_read_elsewhere",
]


def aggregate_refused(error: ApiError, over: Held) -> ApiError:
    """``error`` of an aggregate whose filters of ids hold more than :data:`IDS_PER_BATCH`
    (``over``, :func:`~dealframe.private.batches.over_bound`), with a note naming them when
    it is a refusal (400, 413, 422): an aggregate goes out whole, its medians cannot be
    merged from batches. Any other error as it is.

    Parameters
    ----------
    error : ApiError
        What the aggregate request met.
    over : Held
        The filters of ids over the bound, and how many ids each holds.

    Returns
    -------
    ApiError
        A copy of ``error`` with the note, or ``error`` itself.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> refused = BadRequestError(400, "BAD_REQUEST", "Invalid request")
    >>> print(aggregate_refused(refused, Held({"target_id": 1500})).note)
    ids over 1,000 (target_id 1,500): an aggregate goes out in one request, not in batches of 1,000 ids as a list call (medians of batches cannot be merged); narrow the cohort to at most 1,000 ids a filter
    """
    if error.status not in TOO_LARGE or not over:
        return error
    return copy.copy(error).with_note(  # by DealframeError.__reduce__: every attribute
        f"ids over {IDS_PER_BATCH:,} ({over}): an aggregate goes out in one request, not in "
        f"batches of {IDS_PER_BATCH:,} ids as a list call (medians of batches cannot be "
        f"merged); narrow the cohort to at most {IDS_PER_BATCH:,} ids a filter",
    )


def aggregate_buckets(data: Any, found: Findings) -> Any:
    """An aggregate's ``data`` as a list of buckets: a list as it came; an object keyed by
    bucket label (``{"2024-Q1": {"n": 7, ...}}``) as its buckets, the key as ``bucket``
    where the bucket has none; one bucket object as itself. Any other object is no bucket
    (a ``wrong_shape`` finding names its keys); anything else is left to
    :func:`~dealframe.contract.read_items`.

    Parameters
    ----------
    data : object
        The answer's ``data``.
    found : Findings
        Where an object that holds no bucket is recorded.

    Returns
    -------
    object
        The buckets, as :func:`~dealframe.contract.read_items` reads an answer's ``data``.

    Examples
    --------
    >>> aggregate_buckets({"2024-Q1": {"n": 7}}, Findings("POST /x"))
    [{'bucket': '2024-Q1', 'n': 7}]
    """
    if not isinstance(data, Mapping):
        return data
    if _keyed(data):
        return [{"bucket": label, **bucket} for label, bucket in data.items()]
    if any(name in data for name in ("bucket", "n", "median")):
        return [data]
    found.add(
        "wrong_shape",
        f"data is an object that holds neither buckets keyed by their label nor one bucket "
        f"(keys {', '.join(map(repr, list(data)[:5]))}): read as no buckets",
    )
    return []


def _keyed(data: Any) -> bool:
    """Whether an aggregate's ``data`` is an object keyed by bucket label: its members have no
    order (a JSON object's order carries no meaning)."""
    return isinstance(data, Mapping) and all(isinstance(b, Mapping) for b in data.values())


#: Whether the aggregate calls of this thread (or task) leave an absent or null
#: ``meta.methodology.small_n_threshold`` to their caller, which reads the value elsewhere and
#: says which one it used: one warning for one cause (:func:`threshold_read_elsewhere`).
_THRESHOLD_ELSEWHERE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "dealframe_threshold_elsewhere", default=False
)


def threshold_read_elsewhere() -> AbstractContextManager[None]:
    """Within it, an aggregate answer without ``meta.methodology.small_n_threshold`` (absent
    or null) is not a finding of the aggregate call: the caller (the analytics'
    ``service_methodology``) reads the threshold elsewhere and says, in one warning, that the
    field is missing, where the value came from and the value used. Every other finding
    (a threshold that is no count, a missing ``methodology``) is said as always.

    It holds for the current thread or task only (a ``contextvars.ContextVar``), as
    :func:`~dealframe.notices.missing_expected` does.

    Yields
    ------
    None
        Within the ``with`` block.
    """
    return setting(_THRESHOLD_ELSEWHERE, True)


#: The interface document's ``small_n_threshold`` of the aggregate response (section 4.3 rule
#: 9), used only when neither the service's answer nor its discovery document gives one.
DOCUMENTED_THRESHOLD = 5


def threshold_elsewhere(meta: Any, discovery: Callable[[], Any]) -> tuple[int, str]:
    """The ``small_n_threshold`` the analytics use for an aggregate answer without
    ``meta.methodology.small_n_threshold`` (:func:`threshold_read_elsewhere`), and where it
    came from, as their warning and the doctor say it: the answer's ``meta`` own
    ``small_n_threshold``, else the transactions discovery document's (``discovery()``, its
    ``data``, read only then) ``aggregate.methodology.small_n_threshold``, else
    :data:`DOCUMENTED_THRESHOLD`.

    Examples
    --------
    >>> threshold_elsewhere({"small_n_threshold": "3"}, dict)
    (3, "from the answer's meta.small_n_threshold")
    >>> threshold_elsewhere({}, lambda: {"aggregate": {"methodology": {"small_n_threshold": 4}}})[0]
    4
    >>> threshold_elsewhere(None, dict)[0]
    5
    """
    moved = as_count(meta.get("small_n_threshold")) if isinstance(meta, Mapping) else None
    if moved is not None:
        return moved, "from the answer's meta.small_n_threshold"
    listed = discovery()
    for key in ("aggregate", "methodology", "small_n_threshold"):
        listed = listed.get(key) if isinstance(listed, Mapping) else None
    if (found := as_count(listed)) is not None:
        return found, (
            "from the transactions discovery document (GET /api/private/v1/lookup/"
            "transactions aggregate.methodology.small_n_threshold)"
        )
    return DOCUMENTED_THRESHOLD, (
        "the interface document's value (section 4.3 rule 9): the discovery document gives "
        "none either (its aggregate.methodology.small_n_threshold is "
        f"{'absent' if listed is None else quoted(listed, 100)})"
    )


def _threshold_said(meta: Mapping[str, Any], found: Findings) -> None:
    """Say an aggregate ``meta`` without a readable ``methodology.small_n_threshold``: the
    interface document gives 3 and 5 and makes the runtime value authoritative (section 4.3
    rule 9), so an absent or null one is a ``missing_field`` (naming where else the answer
    holds it, if it does), one that is no count a ``bad_meta``.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> _threshold_said({"methodology": {}, "small_n_threshold": 3}, found)
    >>> print(found.items[0].message)
    meta.methodology.small_n_threshold is absent (meta.small_n_threshold is 3): the service's small-n threshold is not where the interface document puts it
    """
    method = meta.get("methodology")
    if not isinstance(method, Mapping):
        held = "absent" if method is None else f"{type(method).__name__}, not an object"
        found.add(
            "missing_field",
            f"meta.methodology is {held}: the small-n threshold and the window "
            "(small_n_threshold, date_range) are unknown",
        )
        return
    value = method.get("small_n_threshold")
    if value is None and _THRESHOLD_ELSEWHERE.get():
        return  # the caller says it, with the value it used (threshold_read_elsewhere)
    if value is None:
        moved = meta.get("small_n_threshold")
        found.add(
            "missing_field",
            f"meta.methodology.small_n_threshold is "
            f"{'null' if 'small_n_threshold' in method else 'absent'}"
            + ("" if moved is None else f" (meta.small_n_threshold is {quoted(moved, 50)})")
            + ": the service's small-n threshold is not where the interface document puts it",
        )
    elif as_count(value) is None:
        found.add(
            "bad_meta",
            f"meta.methodology.small_n_threshold is {quoted(value, 100)}, not a non-negative integer",
        )


#: The integers of an aggregate answer's ``meta`` (interface document section 4.3), by
#: their path in it: one written as text (``"4934"``) is read as its integer, and said.
_AGGREGATE_COUNTS: tuple[tuple[str, ...], ...] = (
    ("total_deals",),
    ("outliers_trimmed",),
    ("methodology", "small_n_threshold"),
    ("methodology", "default_date_range_years"),
)
#: Its booleans, likewise: one written as text (``"true"``) is read as the boolean it says.
_AGGREGATE_FLAGS: tuple[tuple[str, ...], ...] = (("methodology", "empty_buckets_returned"),)


def _meta_read(meta: Mapping[str, Any], found: Findings) -> dict[str, Any]:
    """A copy of an aggregate ``meta`` with its integers (:data:`_AGGREGATE_COUNTS`) written
    as text or as integral floats (``"4934"``, ``4934.0``) read as integers and its booleans
    (:data:`_AGGREGATE_FLAGS`) written as text (``"true"``, ``"FALSE"``) read as booleans
    (:func:`~dealframe.contract.as_flag`), one ``bad_meta`` finding naming them all in the
    words of a list page's ``meta`` (so that ``total_deals`` is compared with the buckets'
    ``n``). A value that is no count (``"lots"``, ``-3``, ``2.5``, null: the document types
    each an integer) is left as served, never trusted, with one ``bad_meta`` finding naming
    them (the threshold's is said by :func:`_threshold_said`); one that is no boolean (null
    too), with a ``bad_meta`` finding. A member absent is not looked at here.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> _meta_read({"total_deals": "12", "methodology": {"small_n_threshold": "5",
    ...     "empty_buckets_returned": "true"}}, found)
    {'total_deals': 12, 'methodology': {'small_n_threshold': 5, 'empty_buckets_returned': True}}
    >>> print(found.items[0].message)
    meta.total_deals, meta.methodology.small_n_threshold, meta.methodology.empty_buckets_returned written as text (or a float), not as a JSON integer or boolean: read as the value written
    >>> _meta_read({"total_deals": None}, found)["total_deals"] is None
    True
    >>> print(found.items[-1].message)
    meta.total_deals is null: not a non-negative integer, left as served and not trusted (total_deals is not compared with the buckets' n)
    """
    out = dict(meta)
    method = out.get("methodology")
    if isinstance(method, Mapping):
        out["methodology"] = dict(method)
    text: list[str] = []
    uncounted: list[str] = []
    for path in _AGGREGATE_COUNTS + _AGGREGATE_FLAGS:
        holder = out if len(path) == 1 else out.get(path[0])
        if not isinstance(holder, dict) or path[-1] not in holder:
            continue  # absent: not looked at here (the threshold's: _threshold_said)
        value, name = holder[path[-1]], ".".join(path)
        read: Any = as_flag(value) if path in _AGGREGATE_FLAGS else as_count(value)
        if read is None and path in _AGGREGATE_FLAGS:
            found.add("bad_meta", f"meta.{name} is {written(value, 100)}, not a boolean")
        elif read is None and path != ("methodology", "small_n_threshold"):
            uncounted.append(f"meta.{name} is {written(value)}")  # null too: typed integer
        elif read is not None and isinstance(value, (str, float)):
            holder[path[-1]] = read
            text.append(name)
    if text:
        found.add("bad_meta", _as_written(text))
    if uncounted:
        found.add(
            "bad_meta",
            f"{', '.join(uncounted)}: not a non-negative integer, left as served and not "
            "trusted (total_deals is not compared with the buckets' n)"
            if any(u.startswith("meta.total_deals ") for u in uncounted)
            else f"{', '.join(uncounted)}: not a non-negative integer, left as served and "
            "not trusted",
        )
    return out


def _date_range_said(meta: Mapping[str, Any], found: Findings) -> None:
    """Say an aggregate ``meta.methodology.date_range`` that is not the document's ``{from:
    date, to: date}`` (section 4.3): not an object, or a bound null, absent or no date
    (``"soon"``; a time part such as ``T00:00:00Z`` is read as its day), or ``from`` after
    ``to``, one ``bad_meta`` finding. Its window bounds a ``time_bucket`` none bucket
    (``all``) and counts the buckets left out (``attrs["buckets_left_out"]``); it is kept as
    served. A ``date_range`` null is said the same way (the document types it an object); one
    absent is not looked at here.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> _date_range_said({"methodology": {"date_range": {"from": "soon", "to": None}}}, found)
    >>> print(found.items[0].message)
    meta.methodology.date_range is not {from: date, to: date}: from is 'soon', to is null: the window of the buckets is unknown (kept as served)
    >>> _date_range_said({"methodology": {"date_range": {"from": "2020-01-01",
    ...                                   "to": "2024-12-31T00:00:00Z"}}}, found)
    >>> len(found.items)
    1
    """
    method = meta.get("methodology")
    if not isinstance(method, Mapping) or "date_range" not in method:
        return
    span = method["date_range"]
    if not isinstance(span, Mapping):
        wrong = [f"it is {written(span, 100)}"]
    else:
        days = {key: _day(span.get(key)) for key in ("from", "to")}
        wrong = [
            f"{key} is {'absent' if key not in span else written(span[key])}"
            for key, day in days.items()
            if day is None
        ]
        start, end = days["from"], days["to"]
        if start is not None and end is not None and start > end:
            wrong = [f"from ({span['from']}) is after to ({span['to']})"]
    if wrong:
        found.add(
            "bad_meta",
            f"meta.methodology.date_range is not {{from: date, to: date}}: {', '.join(wrong)}: "
            "the window of the buckets is unknown (kept as served)",
        )


def _day(value: Any) -> datetime.date | None:
    """A ``date_range`` bound as a date (:func:`~dealframe.frames.private.day_of`: a time part
    dropped), else None.

    Examples
    --------
    >>> _day("2024-02-29"), _day("2024-02-30"), _day(None), _day(20240101)
    (datetime.date(2024, 2, 29), None, None, None)
    """
    day = shape.day_of(value)
    if not isinstance(day, str) or not _DATE.fullmatch(day):
        return None
    try:
        return datetime.date.fromisoformat(day)
    except ValueError:
        return None


#: A date as the document writes one: ``YYYY-MM-DD``.
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


#: The buckets whose labels have a form of their own (``none`` reads any label as ``all``).
_LABELLED = ("month", "quarter", "year")
#: ``meta.time_bucket`` words that plainly name a documented bucket, read as it.
_BUCKET_SYNONYMS = {
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
}
#: The documented words of each ``meta`` member compared with the request.
_DOCUMENTED = {"metric": AGGREGATE_METRICS, "time_bucket": TIME_BUCKETS}


def _folded(value: Any) -> Any:
    """A ``meta`` word as compared with the one asked: text stripped and case folded."""
    return value.strip().casefold() if isinstance(value, str) else value


def _documented(name: str, value: Any) -> str | None:
    """The documented word (:data:`~dealframe._vocab.AGGREGATE_METRICS`,
    :data:`~dealframe._vocab.TIME_BUCKETS`) a ``meta`` member ``name`` written ``value``
    is: case and spaces aside, a plain synonym of a bucket read as it; None for any other
    spelling.

    Examples
    --------
    >>> _documented("time_bucket", " Quarterly"), _documented("time_bucket", "Q")
    ('quarter', None)
    >>> _documented("metric", "EV_Revenue"), _documented("metric", "EV/Revenue")
    ('ev_revenue', None)
    """
    word = _folded(value)
    if name == "time_bucket":
        word = _BUCKET_SYNONYMS.get(word, word)
    return word if word in _DOCUMENTED[name] else None


def _read_as(items: list[Any], asked: str, served: Any) -> str:
    """The time bucket an aggregate's labels are read as: the one ``asked``, unless some
    label is none of its buckets while every label is one of the documented bucket the
    answer's ``meta.time_bucket`` says it ``served`` (the labels' own form).

    Examples
    --------
    >>> _read_as([{"bucket": "2021-Q2"}], "quarter", "month")  # quarters, whatever meta says
    'quarter'
    >>> _read_as([{"bucket": "2021-05"}, {"bucket": "2021-06"}], "year", "Monthly")
    'month'
    """
    kind = _documented("time_bucket", served)
    if kind == asked or kind not in _LABELLED or asked not in _LABELLED:
        return asked
    labels = [item.get("bucket") for item in items if isinstance(item, Mapping)]

    def reads(bucket: str) -> bool:
        return all(shape.bucket_period(label, bucket) is not None for label in labels)

    return kind if labels and not reads(asked) and reads(kind) else asked


def _asked_said(
    meta: Mapping[str, Any], asked: Mapping[str, Any], read_as: str, found: Findings
) -> dict[str, Any]:
    """Say an aggregate ``meta`` whose ``metric`` or ``time_bucket`` is not the one
    ``asked`` (one absent or null is not compared), and return the ``attrs`` that keep the
    words served: ``meta_metric``, ``meta_time_bucket`` (each when not written as asked),
    ``labels_read_as`` (when the labels are read as another bucket than the one asked).

    Another documented word (:func:`_documented`) is a ``wrong_entity`` finding naming
    both; any other spelling (``Q``, ``EV/Revenue``) an ``unknown_value`` (how the service
    answers every time: the answer stays in the HTTP cache), read as the word asked. Case,
    spaces and a plain synonym (``quarterly``) are the word asked, silently.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> _asked_said({"metric": "ev_ebitda", "time_bucket": "Quarterly"},
    ...             {"metric": "ev_revenue", "time_bucket": "quarter"}, "quarter", found)
    {'meta_metric': 'ev_ebitda', 'meta_time_bucket': 'Quarterly'}
    >>> print(found.items[0].message)
    meta.metric is 'ev_ebitda', not the 'ev_revenue' asked: the answer may be of another aggregate than the one asked (attrs['metric'] and attrs['time_bucket'] hold what was asked, attrs['meta_metric'] and attrs['meta_time_bucket'] what meta says; the labels are read as quarters)
    """
    kept: dict[str, Any] = {}
    differ, unknown = [], []
    for name, value in asked.items():
        served = meta.get(name)
        if value is None or served is None:
            continue
        if served != value:
            kept[f"meta_{name}"] = served
        word = _documented(name, served)
        if word is None:
            unknown.append(
                f"meta.{name} is {quoted(served, 50)}, no {name} the interface document "
                f"gives: read as the {quoted(value, 50)} asked"
            )
        elif word != value:
            differ.append(f"meta.{name} is {quoted(served, 50)}, not the {quoted(value, 50)} asked")
    if read_as != asked.get("time_bucket"):
        kept["labels_read_as"] = read_as
    how = "read as one bucket, all" if read_as == "none" else f"read as {read_as}s"
    if read_as != asked.get("time_bucket"):
        how += " (their own form: they are none of the buckets asked; attrs['labels_read_as'])"
    held = " and ".join(f"attrs[{key!r}]" for key in kept if key.startswith("meta_"))
    if differ:
        found.add(
            "wrong_entity",
            f"{'; '.join(differ)}: the answer may be of another aggregate than the one asked "
            f"(attrs['metric'] and attrs['time_bucket'] hold what was asked, {held} what meta "
            f"says; the labels are {how})",
        )
    if unknown:
        found.add("unknown_value", f"{'; '.join(unknown)} ({held} as served)")
    return kept


def _higher_cut(threshold: int | None) -> str:
    """The other reading of more deals than left-out buckets below ``threshold`` hold: they
    hold more, the service leaving buckets out by a higher threshold than it reports
    (section 4.3 rules 3 and 9); ``""`` without a threshold.

    Examples
    --------
    >>> _higher_cut(3)
    ': buckets were lost, or the left-out ones hold 3 deals or more each, the service leaving out buckets by a higher threshold than the one it reports'
    """
    if threshold is None:
        return ""
    return (
        f": buckets were lost, or the left-out ones hold {threshold} deals or more each, the "
        "service leaving out buckets by a higher threshold than the one it reports"
    )


def _in_time_order(frame: pd.DataFrame, found: Findings, *, ordered: bool = True) -> pd.DataFrame:
    """``frame`` (an :func:`~dealframe.frames.private.aggregate_frame`) with its buckets in time
    order, by ``period_start``: the interface document does not say in which order the buckets
    come, and a user reads ``frame.iloc[-1]`` as the latest one. Buckets in another order are
    sorted and ``attrs["labels_as_served"]`` (one a row) follows the rows; buckets whose label
    could not be read keep their place among them when the others are in order, else come
    last. Buckets of a list in another order are an ``unsorted`` finding naming the first
    labels as served; buckets keyed by label in an object (not ``ordered``: its members have no
    order to keep) are sorted without one.

    Examples
    --------
    >>> from dealframe.frames.private import aggregate_frame
    >>> found = Findings("POST /x")
    >>> served = aggregate_frame([{"bucket": "Q2 2024", "n": 6}, {"bucket": "2024-Q1", "n": 7}],
    ...                          {"time_bucket": "quarter"})
    >>> out = _in_time_order(served, found)
    >>> out["bucket"].tolist(), out.attrs["labels_as_served"]
    (['2024-Q1', '2024-Q2'], ['2024-Q1', 'Q2 2024'])
    >>> print(found.items[0].message)
    the 2 buckets came in another order than time order (first 'Q2 2024', '2024-Q1'): sorted by time
    """
    starts = frame["period_start"].reset_index(drop=True)
    read = starts.dropna()
    if read.is_monotonic_increasing:
        return frame
    order = starts.sort_values(kind="stable", na_position="last").index.to_numpy()
    labels = frame.attrs.get("labels_as_served")
    if not (isinstance(labels, list) and len(labels) == len(frame)):
        labels = frame["bucket"].tolist()
    if ordered:
        shown = ", ".join(map(repr, labels[:3]))
        found.add(
            "unsorted",
            f"the {len(frame)} buckets came in another order than time order (first {shown}): "
            "sorted by time",
        )
    out = frame.iloc[order].reset_index(drop=True)  # its attrs a copy of the frame's
    out.attrs["labels_as_served"] = shape.LabelsAsServed(labels[i] for i in order)
    return out


def _deduped(frame: pd.DataFrame, found: Findings) -> tuple[pd.DataFrame, np.ndarray]:
    """``frame`` with one row per bucket (:func:`~dealframe.contract.rows_deduped`), its
    ``attrs["labels_as_served"]`` cut as its rows are: one label a row; and which rows of
    ``frame`` it keeps (a boolean per row), for what is said of them alone."""
    kept = rows_deduped(frame, "bucket", found)
    if kept is None:
        return frame, np.ones(len(frame), dtype=bool)
    labels = frame.attrs.get("labels_as_served")
    out = frame.iloc[kept].reset_index(drop=True)
    out.attrs["duplicates_removed"] = int((~kept).sum())
    if isinstance(labels, list) and len(labels) == len(frame):
        out.attrs["labels_as_served"] = shape.LabelsAsServed(
            label for label, k in zip(labels, kept) if k
        )
    return out, kept


def read_aggregate(
    doc: Any,
    time_bucket: str,
    found: Findings,
    request: Any = None,
    *,
    metric: str | None = None,
    threshold: bool = True,
    suppression: bool = True,
) -> pd.DataFrame:
    """An aggregate answer read into its frame, each way it differs from the document
    recorded in ``found``: the one reading of
    :meth:`~dealframe.private.api.PrivateApi.aggregate` and the doctor.

    Parameters
    ----------
    doc : object
        The answer's JSON.
    time_bucket : str
        The bucket asked for.
    found : Findings
        Where what differs is recorded.
    request : RequestInfo or requests.PreparedRequest, optional
        Named by a shaping error.
    metric : str, optional
        The metric asked for. ``meta.metric`` and ``meta.time_bucket`` another documented
        word than the one asked are a ``wrong_entity`` finding, any other spelling an
        ``unknown_value`` (:func:`_asked_said`); ``attrs["metric"]`` and
        ``attrs["time_bucket"]`` hold what was asked, ``attrs["meta_metric"]`` and
        ``attrs["meta_time_bucket"]`` what ``meta`` says when not written as asked. The
        labels are read as the bucket asked, or as the one ``meta`` says when every label is
        one of its buckets and some label none of the bucket asked
        (``attrs["labels_read_as"]`` then names it).
    threshold : bool
        Whether a ``small_n_threshold`` the answer lacks is a finding (the doctor says it in
        a check of its own).
    suppression : bool
        Whether buckets that disagree with the answer's ``small_n_threshold`` (statistics
        below it, none at or above it) are a ``threshold_mismatch`` (or
        ``suppression_unexplained``) finding
        (:func:`~dealframe.private.suppression.threshold_said`; the doctor says it in its
        suppression check only).

    Returns
    -------
    pandas.DataFrame
        As :meth:`~dealframe.private.api.PrivateApi.aggregate` returns it, before provenance: ``attrs`` hold the
        ``buckets_left_out`` and ``deals_left_out``.

    Examples
    --------
    >>> found = Findings("POST /x")
    >>> len(read_aggregate({"data": {"buckets": []}, "meta": {}}, "month", found))
    0
    >>> [f.kind for f in found]  # buckets wrapped in an object; no small_n_threshold
    ['wrong_shape', 'missing_field']
    """
    endpoint = found.where
    data = doc.get("data") if isinstance(doc, Mapping) else None
    items = read_items({"data": aggregate_buckets(data, found)}, found)
    meta = doc.get("meta") if isinstance(doc, Mapping) else None
    if not isinstance(meta, Mapping):  # one answer, not paged: only its meta is unknown
        found.add(
            "bad_meta",
            ("no meta" if meta is None else f"meta is {type(meta).__name__}, not an object")
            + ": total_deals and the methodology (small_n_threshold, date_range) are unknown",
        )
        meta = {}
    else:
        meta = _meta_read(meta, found)  # its integers and booleans written as text: read, said
        _date_range_said(meta, found)
        if threshold:
            _threshold_said(meta, found)
    identities(items, "bucket", found)
    missing_fields(keys_present(items), "aggregate", found, n_items=len(items))
    # what the readers say of values is said of the buckets kept alone (not of a repeat
    # dropped): kept back by row until they are known
    # the labels are read as the bucket asked (or as their own form, when it is the one meta
    # says and not the one asked), and attrs say what was asked: meta saying otherwise is said
    asked = {"metric": metric, "time_bucket": time_bucket}
    read_as = _read_as(items, time_bucket, meta.get("time_bucket"))
    served = _asked_said(meta, asked, read_as, found)
    held = {**meta, **{k: v for k, v in asked.items() if v is not None}, "time_bucket": read_as}
    with shaping(request, endpoint, found), rows_said_later() as later:
        frame = shape.aggregate_frame(items, held)
    frame.attrs.update(time_bucket=time_bucket, **served)  # what was asked, what was served
    served_labels = frame.attrs["labels_as_served"]
    unread = [served_labels[i] for i in np.flatnonzero(frame["period_start"].isna().to_numpy())]
    if unread and read_as != "none":
        found.add(
            "unreadable_label",
            f"{len(unread)} bucket label(s) could not be read as "
            f"{read_as}s: {', '.join(map(repr, unread[:3]))}",
        )
    frame, kept = _deduped(frame, found)
    say_kept(found, later, kept)
    frame = _in_time_order(frame, found, ordered=not _keyed(data))
    statistics_said(frame, found)  # median, q1, q3 of one bucket: all or none, in order
    method = meta.get("methodology")
    bound = method.get("small_n_threshold") if isinstance(method, Mapping) else None
    if suppression:
        threshold_said(frame, as_count(bound), found)
    total = meta.get("total_deals")
    counted = int(frame["n"].sum()) if len(frame) else 0
    # "suppressed" may mean left out: the window's buckets the answer does not hold
    left_out = shape.buckets_left_out(frame, read_as)
    frame.attrs["buckets_left_out"], frame.attrs["deals_left_out"] = left_out, 0
    if isinstance(total, int) and not isinstance(total, bool) and total != counted:
        # left-out buckets hold fewer than small_n_threshold deals each, or it is a loss
        room = max(0, (as_count(bound) or 0) - 1) * len(left_out)
        if 0 < total - counted <= room:
            frame.attrs["deals_left_out"] = total - counted
        else:
            found.add(
                "count_mismatch",
                f"meta.total_deals is {total}, the buckets' n add up to {counted}"
                + (
                    f" ({total - counted} deals are more than {len(left_out)} left-out "
                    f"bucket(s) below small_n_threshold {bound} can hold"
                    + _higher_cut(as_count(bound))
                    + ")"
                    if left_out and counted < total
                    else ""
                ),
            )
    return frame
