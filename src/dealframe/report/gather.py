"""Everything the report needs from the service, pulled with a client (the only I/O).

Order matters once: the service is first asked for its window (an aggregate with
``time_bucket="none"``), because ``methodology.date_range`` gives the service's own today
and default start; every other pull uses the window derived from it. By default the
window is the service's five years with its leading part-quarter dropped, so the first
quarter is whole; with ``since`` it starts there and a part-quarter is labelled.

The service's small-n threshold is resolved once, here, from the quarterly aggregate
(:func:`~dealframe.analytics.buckets.aggregate_threshold`: its meta, else the transactions
discovery document, as ``compare_multiples`` reads it), and every table, the headline and
the appendix use that one value.

Every pull the page is built from is in ``provenance`` (``manifest.json``, Appendix C), those
:func:`~dealframe.compare_multiples` makes too (:func:`~.recording.recording`: its frames stay
inside it), by endpoint and period, and so are the discovery documents the client checks the
filters against: the report reads each one it filters by itself, first
(:func:`_discovery`: ``client.private.lookup``), so the calls after it find the client's copy
and send no read of their own that no frame would record. The pulls of the public median's ``n`` only give that
``n``: when they fail, the page is written with it unknown, said (:func:`_card_counts`,
:func:`public_n_unknown`); a pull that failed is said there, not in ``provenance``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from dealframe._wording import counted
from dealframe.analytics.buckets import aggregate_threshold
from dealframe.analytics.rollups import group_time_series
from dealframe.comparison import Comparison, compare_multiples, methodology_read
from dealframe.errors import DealframeError, ServiceContractError, ValidationError
from dealframe.frames.nested import to_lists
from dealframe.frames.public import current_frame
from dealframe.notices import missing_expected
from dealframe.plot.shaping import investor_activity, participant_rows
from dealframe.private.aggregate import threshold_read_elsewhere
from dealframe.private.api import PREFIX as PRIVATE_PREFIX
from dealframe.provenance import combined_from_cache

from .cohort import Cohort, not_after_latest, unknown_to_service
from .coinvestors import CHECKS_ENDPOINT, Unserved, no_co_investors, read_co_investors
from .progress import Progress
from .recording import recording

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = [
    "CARD_FIELD",
    "COMPARED_PERIODS",
    "HEADLINE_METRICS",
    "HISTORY_FIELDS",
    "Periods",
    "ReportData",
    "Unserved",
    "card_months",
    "gather",
    "public_n_unknown",
    "report_window",
]

#: Time-series fields of the valuation history.
HISTORY_FIELDS: tuple[str, ...] = ("evRevenueNtm", "evEbitdaLtm")
#: The field of the public card (its median now and twelve months earlier, and their n).
CARD_FIELD = "evRevenueNtm"
#: Deal multiples of the headline (the service's median over each period).
HEADLINE_METRICS: tuple[str, ...] = ("ev_revenue", "ev_ebitda")
#: The periods of "Private against public multiples", first the headline's.
COMPARED_PERIODS: tuple[str, ...] = ("last 12 months", "whole window")


@dataclass(frozen=True)
class Periods:
    """The report's window and the two twelve-month periods of the headline."""

    start: str
    end: str
    ltm: tuple[str, str]
    prior: tuple[str, str]

    @property
    def pull_start(self) -> str:
        """First deal date pulled: the window's start, or the prior period's if earlier."""
        return min(self.start, self.prior[0])


def _iso(stamp: pd.Timestamp) -> str:
    return stamp.date().isoformat()


def report_window(service_from: str, service_to: str, since: str | None) -> Periods:
    """The window (whole quarters unless ``since`` says otherwise) and the headline periods.

    Examples
    --------
    >>> p = report_window("2021-06-30", "2026-06-30", None)
    >>> p.start, p.end, p.ltm, p.prior
    ('2021-07-01', '2026-06-30', ('2025-07-01', '2026-06-30'), ('2024-07-01', '2025-06-30'))
    """
    end = pd.Timestamp(service_to)
    if since is not None:
        start = pd.Timestamp(since)
    else:
        first = pd.Timestamp(service_from)
        quarter = first.to_period("Q")
        start = first if first == quarter.start_time else (quarter + 1).start_time
    ltm_start = end - pd.DateOffset(years=1) + pd.Timedelta(days=1)
    prior_end = ltm_start - pd.Timedelta(days=1)
    prior_start = prior_end - pd.DateOffset(years=1) + pd.Timedelta(days=1)
    return Periods(
        _iso(start), _iso(end), (_iso(ltm_start), _iso(end)), (_iso(prior_start), _iso(prior_end))
    )


@dataclass
class ReportData:
    """The frames behind the report, exactly as the client returned them."""

    cohort: Cohort
    metric: str
    periods: Periods
    service_window: tuple[str, str]
    members: pd.DataFrame
    current: pd.DataFrame
    group_current: pd.DataFrame | None
    history: pd.DataFrame
    #: The companies with a value of :data:`CARD_FIELD` (``n_evRevenueNtm``, index month) in
    #: the public card's months (:func:`card_months`): the values each of its medians is of,
    #: which the group's answer does not give. Empty when they are not known.
    history_counts: pd.DataFrame
    aggregate: pd.DataFrame
    #: The service's small-n threshold: the aggregate's, or read where its meta has none
    #: (:func:`~dealframe.analytics.buckets.aggregate_threshold`); one value for the report.
    small_n_threshold: int
    headline_aggregates: dict[tuple[str, str], pd.DataFrame]
    deals_pulled: pd.DataFrame
    co_investors: pd.DataFrame
    investor_names: dict[str, str]
    #: The investors whose co-investor list answered 404, soft-deleted ones apart.
    co_investors_unserved: Unserved
    source: str
    provenance: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: :func:`dealframe.compare_multiples` of the cohort per period (:data:`COMPARED_PERIODS`):
    #: its public comps of the period, linked to their Family B companies, and its deals.
    comparisons: dict[str, Comparison] = field(default_factory=dict)
    #: Why the public card's n (:attr:`history_counts`) is not known; None when it is.
    history_counts_unread: str | None = None

    @property
    def co_investors_missing(self) -> list[str]:
        """The investors whose co-investor list answered 404, whatever the cause (the name
        before :attr:`co_investors_unserved`, which tells them apart; read-only)."""
        return list(self.co_investors_unserved.ids)

    @property
    def deals(self) -> pd.DataFrame:
        """The deals of the window (the pull may reach further back for the headline)."""
        dates = self.deals_pulled["deal_date"]
        inside = (dates >= pd.Timestamp(self.periods.start)).to_numpy(dtype=bool, na_value=False)
        frame = self.deals_pulled.loc[inside]
        frame.attrs = {
            **self.deals_pulled.attrs,
            "filters": {
                **(self.deals_pulled.attrs.get("filters") or {}),
                "date_from": self.periods.start,
                "date_to": self.periods.end,
            },
        }
        return frame

    @property
    def as_of(self) -> str:
        """The data's own latest date: the service's today (its aggregate window's end)."""
        return self.periods.end

    @property
    def latest_deal(self) -> str | None:
        """Date of the latest deal of the cohort."""
        if not len(self.deals_pulled):
            return None
        return _iso(pd.Timestamp(self.deals_pulled["deal_date"].max()))


_PROVENANCE_KEYS = (
    "endpoint",
    "requests",
    "from_cache",
    "rows_expected",
    "rows_received",
    "fetched_at",
)


def _provenance(frame: pd.DataFrame) -> dict[str, Any]:
    return {k: frame.attrs[k] for k in _PROVENANCE_KEYS if k in frame.attrs}


def _combined(frames: list[pd.DataFrame]) -> dict[str, Any]:
    """One provenance row of several pulls of one endpoint: requests and rows summed,
    ``from_cache`` combined, the oldest ``fetched_at`` (the data's age, as one call's
    ``fetched_at`` is its oldest answer's: :func:`~dealframe.provenance.fetched_at`).

    Examples
    --------
    >>> a, b = pd.DataFrame(), pd.DataFrame()
    >>> a.attrs = {"endpoint": "POST /x", "requests": 1, "from_cache": False,
    ...            "rows_expected": 1, "rows_received": 1, "fetched_at": "2026-01-01T00:00:00"}
    >>> b.attrs = {**a.attrs, "from_cache": True, "fetched_at": "2026-01-01T00:00:01"}
    >>> row = _combined([a, b])
    >>> row["requests"], row["from_cache"], row["rows_received"], row["fetched_at"]
    (2, 'partial', 2, '2026-01-01T00:00:00')
    """
    rows = [_provenance(f) for f in frames]
    out: dict[str, Any] = {
        "endpoint": "; ".join(dict.fromkeys(str(r["endpoint"]) for r in rows if "endpoint" in r)),
        "from_cache": combined_from_cache(rows),
    }
    for key in ("requests", "rows_expected", "rows_received"):
        out[key] = sum(int(r.get(key) or 0) for r in rows)
    stamps = [str(r["fetched_at"]) for r in rows if r.get("fetched_at")]
    if stamps:
        out["fetched_at"] = min(stamps)
    return {k: out[k] for k in _PROVENANCE_KEYS if k in out}


def _discovery(client: Client, entity: str, provenance: dict[str, dict[str, Any]]) -> None:
    """Read the discovery document of ``entity`` (``client.private.lookup``, which keeps the
    client's copy) and record it as ``discovery_<entity>``: the filters of the calls after
    it are checked against that copy, so they read nothing themselves (a read made inside a
    call returns no frame, and would be in no provenance).

    A document the filter checks read but ``lookup``'s frame refuses (an odd ``values`` or
    ``operators`` member: ``ServiceContractError``) does not stop the report, which read
    only to record: the calls check against the client's copy, or read it again where the
    read kept none (an answer that is no discovery document), failing as they would have.
    The row then counts every read made, from the client's counters, with no rows, and
    ``fetched_at`` only when every read was sent (now): of an answer from the HTTP cache the
    client keeps no time, and the row does not claim one."""
    stats = client.stats
    network, hits = stats.network, stats.cache_hits
    try:
        provenance[f"discovery_{entity}"] = _provenance(client.private.lookup(entity))
    except ServiceContractError:
        client.private.schema(entity)  # the copy the read kept, else read again
        sent, cached = stats.network - network, stats.cache_hits - hits
        row: dict[str, Any] = {
            "endpoint": f"GET {PRIVATE_PREFIX}/lookup/{entity}",
            "requests": sent + cached,
            "from_cache": combined_from_cache(
                [{"requests": sent, "from_cache": False}, {"requests": cached, "from_cache": True}]
            ),
            "rows_expected": None,
            "rows_received": None,
        }
        if sent and not cached:
            row["fetched_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        provenance[f"discovery_{entity}"] = row


def _service_window(
    client: Client, cohort: Cohort, metric: str, pulls: dict[str, pd.DataFrame]
) -> tuple[str, str]:
    # Without the cohort's start: the service's own window, so a start after its latest date
    # is told apart (and said so) from a request the service refuses.
    probe = client.private.aggregate(metric, "none", dict(cohort.deal_filters()))
    pulls["service_window"] = probe
    used = (probe.attrs.get("methodology") or {}).get("date_range") or {}
    start, end = used.get("from"), used.get("to")
    if not start or not end:
        raise ValidationError(
            "service",
            "an aggregate whose meta reports methodology.date_range",
            got=probe.attrs.get("methodology"),
        )
    return str(start), str(end)


def _check_vertical(client: Client, cohort: Cohort, pulls: dict[str, pd.DataFrame]) -> None:
    """Fail with a suggestion when no listed company has the cohort's vertical at all."""
    universe = client.public.search()
    pulls["verticals_known"] = universe
    seen: set[str] = set()
    if "verticals" in universe:
        for values in to_lists(universe["verticals"]):
            seen.update(str(v) for v in values or ())
    if seen and cohort.vertical not in seen:
        raise ValidationError(
            "vertical",
            unknown_to_service("vertical", cohort.vertical or "", sorted(seen)),
            got=cohort.vertical,
        )


def card_months(history: pd.DataFrame) -> tuple[pd.Period, pd.Period] | None:
    """The months of the public card: the latest with a median of :data:`CARD_FIELD` in
    ``history`` and the one twelve months earlier; None when no month has one.

    Examples
    --------
    >>> h = pd.DataFrame({"evRevenueNtm": [4.0, 5.0, None]},
    ...                  index=pd.period_range("2025-05", periods=3, freq="M"))
    >>> card_months(h)
    (Period('2024-06', 'M'), Period('2025-06', 'M'))
    >>> card_months(h.iloc[2:]) is None
    True
    """
    if CARD_FIELD not in history or not isinstance(history.index, pd.PeriodIndex):
        return None
    series = pd.to_numeric(history[CARD_FIELD], errors="coerce").dropna()
    if not len(series):
        return None
    return series.index[-1] - 12, series.index[-1]


def _no_counts() -> pd.DataFrame:
    return pd.DataFrame(
        {f"n_{CARD_FIELD}": pd.Series([], dtype="Int64")},
        index=pd.PeriodIndex([], freq="M", name="month"),
    )


def _card_counts(
    client: Client, cohort: Cohort, history: pd.DataFrame, pulls: dict[str, pd.DataFrame]
) -> tuple[pd.DataFrame, str | None]:
    """The companies with a value of :data:`CARD_FIELD` in the public card's months
    (:func:`card_months`), and why they are not known (None when they are).

    The group's answer gives each month's median, not of how many values: the group's
    members of the same version (v1) and their series of that field over those months count
    them. These pulls only give ``n``: when one fails, or its answer cannot stand behind the
    group's median (no member, companies the series left out, no value in a month the group
    has a median of), the page is still written, with that ``n`` unknown and said why. Each
    pull answered is added to ``pulls`` (by its provenance name); a pull that failed is not
    (its error is the reason given).
    """
    months = card_months(history)
    if months is None:  # no median on the card: no n to count, no request
        return _no_counts(), None
    try:
        found = client.public_v1.search(**cohort.public_filters())
        pulls["public_counts_search"] = found
        if not len(found):
            return _no_counts(), (
                "the group's search (v1) found no company, though the group has a median"
            )
        with missing_expected():  # a company without a value in those months counts none
            wide = client.public_v1.time_series(
                found.index,
                fields=[CARD_FIELD],
                date_from=str(months[0]),
                date_to=str(months[1]),
                progress=False,
            )
        pulls["public_counts_series"] = wide
    except DealframeError as exc:
        return _no_counts(), f"its pulls failed: {str(exc).splitlines()[0]}"
    left_out = wide.attrs.get("missing_skus") or []
    if left_out:  # their values are not known: a count of the others would read as the n
        return _no_counts(), (
            f"the series (v1) returned {len(found) - len(left_out)} of {len(found)} companies"
        )
    local = group_time_series(wide, counts=True)
    column = f"n_{CARD_FIELD}"
    counts = local[[column]] if column in local else _no_counts()
    medians = pd.to_numeric(history[CARD_FIELD], errors="coerce")
    for month in months:
        if pd.notna(medians.get(month)) and not counts[column].get(month, 0):
            return _no_counts(), (
                f"the group's series (v1) hold no value of {CARD_FIELD} in {month}, "
                "where the group has a median"
            )
    return counts, None


def public_n_unknown(data: ReportData) -> str | None:
    """The warning that the public median's ``n`` is not known (None when it is), naming the
    cohort: its ``name`` when it has one (two cohorts of a config file may select the same
    companies), its companies' label. Said once the page is written (by ``build_report``),
    never before a later stage fails the report.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> data = SimpleNamespace(cohort=Cohort(region="Western Europe", name="we-vc"),
    ...                        history_counts_unread="its pulls failed: 503")
    >>> print(public_n_unknown(data))  # doctest: +NORMALIZE_WHITESPACE
    the public median's n (the companies with a value of evRevenueNtm that month) of cohort
    we-vc (Western Europe) is not known: its pulls failed: 503; headline.csv leaves it empty
    (null)
    """
    if data.history_counts_unread is None:
        return None
    cohort = data.cohort
    who = cohort.companies_label
    if cohort.name:
        who = f"cohort {cohort.name} ({who})"
    return (
        f"the public median's n (the companies with a value of {CARD_FIELD} that month) of "
        f"{who} is not known: {data.history_counts_unread}; headline.csv leaves it empty (null)"
    )


def _public(
    client: Client, cohort: Cohort, periods: Periods, pulls: dict[str, pd.DataFrame]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None, pd.DataFrame, pd.DataFrame, str | None]:
    if cohort.vertical:  # refused before the search, which would only warn of it
        _check_vertical(client, cohort, pulls)
    members = client.public.search(**cohort.public_filters())
    pulls["members"] = members
    months = pd.PeriodIndex([], freq="M", name="month")
    if not len(members):  # no company to ask for: current data's own schema, with no row
        return (
            members,
            current_frame([]),
            None,
            pd.DataFrame({f: pd.Series([], dtype=float) for f in HISTORY_FIELDS}, index=months),
            _no_counts(),
            None,
        )
    current = client.public.current(members.index, progress=False)
    group_current = client.public.group_current(**cohort.public_filters())
    # The interface document lists groups/time-series under /api/v1 only.
    first, last = min(periods.start, periods.prior[0])[:7], periods.end[:7]
    history = client.public_v1.group_time_series(
        fields=list(HISTORY_FIELDS), date_from=first, date_to=last, **cohort.public_filters()
    )
    counts, unread = _card_counts(client, cohort, history, pulls)
    return members, current, group_current, history, counts, unread


def gather(client: Client, cohort: Cohort, metric: str, top: int, progress: Progress) -> ReportData:
    """Pull what the report shows: aggregates, the cohort's public data, deals, co-investors.

    Raises
    ------
    dealframe.errors.ValidationError
        ``since`` after the service's latest date; a vertical no company has.
    dealframe.errors.DealframeError
        Anything the client raises (authentication, transport, ...).
    """
    provenance: dict[str, dict[str, Any]] = {}
    pulls: dict[str, pd.DataFrame] = {}  # each pull of a stage, by its provenance name
    with (
        progress.stage(f"deal aggregates ({metric} by quarter, headline periods)") as st,
        threshold_read_elsewhere(),  # a missing threshold is said once, with the value used
    ):
        _discovery(client, "transactions", provenance)  # every deal pull's filters
        service_from, service_to = _service_window(client, cohort, metric, pulls)
        if cohort.since is not None and cohort.since > service_to:
            raise ValidationError("since", not_after_latest(service_to), got=cohort.since)
        periods = report_window(service_from, service_to, cohort.since)
        window = {"date_from": periods.start, "date_to": periods.end}
        aggregate = client.private.aggregate(metric, "quarter", {**cohort.deal_filters(), **window})
        headline: dict[tuple[str, str], pd.DataFrame] = {}
        for name in HEADLINE_METRICS:
            for label, (start, end) in (("ltm", periods.ltm), ("prior", periods.prior)):
                headline[(name, label)] = client.private.aggregate(
                    name, "none", {**cohort.deal_filters(), "date_from": start, "date_to": end}
                )
        threshold = aggregate_threshold(client, aggregate)
        provenance["service_window"] = _provenance(pulls.pop("service_window"))
        provenance["deal_aggregate"] = _provenance(aggregate)
        provenance["headline_aggregates"] = _combined(list(headline.values()))
        st.done(f"{counted(len(aggregate), 'quarter')}, window {periods.start} .. {periods.end}")
    with progress.stage(f"public comps of {cohort.companies_label}") as st:
        members, current, group_current, history, counts, unread = _public(
            client, cohort, periods, pulls
        )
        if "verticals_known" in pulls:
            provenance["verticals_known"] = _provenance(pulls.pop("verticals_known"))
        provenance["members"] = _provenance(pulls.pop("members"))
        provenance["current"] = _provenance(current)
        if group_current is not None:
            provenance["group_current"] = _provenance(group_current)
            provenance["valuation_history"] = _provenance(history)
        provenance.update({name: _provenance(frame) for name, frame in pulls.items()})
        pulls.clear()
        bounds = dict(zip(COMPARED_PERIODS, (periods.ltm, (periods.start, periods.end))))
        comparisons: dict[str, Comparison] = {}
        for label, (start, end) in bounds.items():
            seen: list[pd.DataFrame] = []  # its pulls, whose frames it does not return
            with methodology_read(threshold, service_to):  # the threshold said once, above
                comparisons[label] = compare_multiples(
                    recording(client, seen),
                    region=cohort.region,
                    vertical=cohort.vertical,
                    deal_type=list(cohort.deal_types) or None,
                    date_from=start,
                    date_to=end,
                )
            by_endpoint: dict[str, list[pd.DataFrame]] = {}
            for frame in seen:
                by_endpoint.setdefault(str(frame.attrs["endpoint"]), []).append(frame)
            for endpoint, frames in by_endpoint.items():
                provenance[f"comparison ({label}): {endpoint}"] = _combined(frames)
        linked = comparisons[COMPARED_PERIODS[0]].comps["match"].eq("matched").sum()
        st.done(
            f"{counted(len(current), 'listed company')}, {counted(len(history), 'month')} of "
            f"history, {counted(linked, 'comp')} of the last 12 months linked to their private "
            "profile"
        )
    with progress.stage("deals of the window") as st:
        deals = client.private.deals(
            {**cohort.deal_filters(), "date_from": periods.pull_start, "date_to": periods.end},
            progress=False,
        )
        provenance["deals"] = _provenance(deals)
        st.done(f"{counted(len(deals), 'deal')} from {periods.pull_start}")
    with progress.stage("co-investors of the most active investors") as st:
        window_deals = deals[deals["deal_date"] >= pd.Timestamp(periods.start)]
        active = investor_activity(participant_rows(window_deals), top)
        ids = active["participant_id"].tolist()
        names = dict(zip(ids, active["name"].astype(object)))
        unserved = Unserved()
        if ids:
            _discovery(client, "investors", provenance)  # the co-investors route's name
            co, unserved = read_co_investors(client, ids)
            provenance["co_investors"] = _provenance(co)
            if unserved.checks:  # the profiles and lists asked again of the ids answered 404
                provenance["co_investors_checks"] = {
                    "endpoint": CHECKS_ENDPOINT,
                    "requests": unserved.checks,
                }
        else:
            co = no_co_investors()
        st.done(
            f"{counted(len(ids), 'investor')}, {counted(len(co), 'co-investor row')}"
            + (f"; {len(unserved.deleted)} not served (soft-deleted)" if unserved.deleted else "")
            + (
                f"; {len(unserved.others)} not served: answered 404 ({unserved.why})"
                if unserved.others
                else ""
            )
            + (f" ({unserved.profiles_unread})" if unserved.unread else "")
        )
    return ReportData(
        cohort=cohort,
        metric=metric,
        periods=periods,
        service_window=(service_from, service_to),
        members=members,
        current=current,
        group_current=group_current,
        history=history,
        history_counts=counts,
        history_counts_unread=unread,
        aggregate=aggregate,
        small_n_threshold=threshold,
        headline_aggregates=headline,
        deals_pulled=deals,
        co_investors=co,
        investor_names=names,
        co_investors_unserved=unserved,
        source=str(client.settings.base_url),
        provenance=provenance,
        comparisons=comparisons,
    )
