"""The summary a reader takes in within 30 seconds: headline figures and two sentences.

Pure: takes :class:`~.gather.ReportData`, returns cards, sentences and the ``headline``
table. Each figure covers the twelve months to the data's as-of date and is compared with
the twelve months before. Deal medians are those of the meaningful multiples (NM values
out, see :func:`dealframe.plot.shaping.multiple_status`) by the service's method (outliers
beyond 1.5 IQR trimmed, :func:`dealframe.analytics.bucket_medians`); the same method over
every value is checked against the service's own ``transactions/aggregate`` for each period
(``checks``). Where a median rests on fewer than :data:`SMALL_N` values, its bootstrap
interval (``ci=``) is shown beside it, the prior period's as the last twelve months':
"n=12, 90% CI 3.8x–11.7x · prior 12 months 4.9x (n=8, 90% CI 3.3x–6.4x), +15%".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dealframe._figures import change_text, money, number
from dealframe._wording import counted, plural
from dealframe.analytics import bucket_medians, reconcile_frames
from dealframe.plot.deals import METRIC_LABELS
from dealframe.plot.shaping import meaningful

from .gather import COMPARED_PERIODS, HEADLINE_METRICS, ReportData

__all__ = ["CI_LEVEL", "SMALL_N", "Card", "Headline", "build_headline", "change_text", "money"]

#: A median of fewer deals than this is shown with its bootstrap interval.
SMALL_N = 30
#: Confidence level of those intervals.
CI_LEVEL = 0.9
_RESAMPLES = 4999


@dataclass(frozen=True)
class Card:
    """One headline figure: what it is, its value, and the line under it."""

    label: str
    value: str
    detail: str


@dataclass(frozen=True)
class Headline:
    """The summary: cards, sentences, the table written as ``headline.parquet``, and the
    check of the local medians against the service's."""

    cards: tuple[Card, ...]
    sentences: tuple[str, ...]
    table: pd.DataFrame
    checks: pd.DataFrame


def _in(deals: pd.DataFrame, period: tuple[str, str]) -> pd.DataFrame:
    inside = deals["deal_date"].between(pd.Timestamp(period[0]), pd.Timestamp(period[1]))
    return deals.loc[inside.to_numpy()]


def _count(values: pd.Series) -> int:
    """The n of a one-bucket reconciliation (0 where the bucket is not there)."""
    total = pd.to_numeric(values, errors="coerce").sum()
    return int(total) if pd.notna(total) else 0


def _local(
    deals: pd.DataFrame, metric: str, period: tuple[str, str], threshold: int, with_ci: bool
) -> pd.Series:
    """The service's method over the meaningful values of the period (one ``none`` bucket)."""
    frame = pd.DataFrame(
        {"deal_date": deals["deal_date"].to_numpy(), "value": meaningful(deals, metric).to_numpy()}
    )
    out = bucket_medians(
        frame,
        metric,
        "none",
        period[0],
        period[1],
        small_n_threshold=threshold,
        ci=CI_LEVEL if with_ci else None,
        ci_resamples=_RESAMPLES,
        rng=0,
        value_column="value",
    )
    return out.iloc[0]


def _number(value: Any) -> float:
    return float(value) if value is not None and pd.notna(value) else np.nan


def _row(
    figure: str,
    period: str,
    bounds: tuple[str, str],
    value: float,
    n: int | None,
    ci: tuple[float, float] = (np.nan, np.nan),
    note: str = "",
) -> dict[str, Any]:
    """One row of the headline table: ``note`` says why ``value`` is blank (the card's
    reason), empty where there is a value."""
    return {
        "figure": figure,
        "period": period,
        "start": bounds[0],
        "end": bounds[1],
        "value": value,
        "n": n,
        "ci_low": ci[0],
        "ci_high": ci[1],
        "note": "" if np.isfinite(value) else note,
    }


def _no_median(n: int, threshold: int) -> str:
    """Why a deal median is n/a: the card's words and the headline table's ``note``.

    Examples
    --------
    >>> _no_median(1, 3)
    'fewer than 3 meaningful values'
    """
    if n < threshold:
        return f"fewer than {threshold} meaningful values"
    return "no finite median of the meaningful values"


def _undisclosed(disclosed: int) -> str:
    """Why capital raised is n/a (no deal of the period disclosed an amount).

    Examples
    --------
    >>> _undisclosed(0)
    '0 deals disclosed an amount'
    """
    return f"{counted(disclosed, 'deal')} disclosed an amount"


def _multiple_card(data: ReportData, metric: str, rows: list[dict], checks: list[dict]) -> Card:
    """The median of the meaningful deal multiples (the service's method), and the check
    that the method reproduces the service's own median over every value."""
    label = METRIC_LABELS[metric][0]
    threshold = data.small_n_threshold
    values: dict[str, tuple[float, int, float, float]] = {}
    for period_name in ("ltm", "prior"):
        period = getattr(data.periods, period_name)
        service = data.headline_aggregates[(metric, period_name)]
        # reconcile's own steps: a period the service left out (small n) matches a small n here
        rec = reconcile_frames(
            service, data.deals_pulled, metric, "none", small_n_threshold=threshold
        ).frame
        checks.append(
            {
                "figure": f"median deal {label}",
                "period": period_name,
                "n_service": _count(rec["n_service"]),
                "n_local": _count(rec["n_local"]),
                "median_service": _number(rec["median_service"].max()),
                "median_local": _number(rec["median_local"].max()),
                "match": bool(rec["match"].all()),
            }
        )
        first = _local(data.deals_pulled, metric, period, threshold, False)
        n, median = int(first["n"]), _number(first["median"])
        low = high = np.nan
        if 0 < n < SMALL_N and np.isfinite(median):
            with_ci = _local(data.deals_pulled, metric, period, threshold, True)
            low, high = _number(with_ci["median_low"]), _number(with_ci["median_high"])
        values[period_name] = (median, n, low, high)
        rows.append(
            _row(
                f"median deal {label}",
                period_name,
                period,
                median,
                n,
                (low, high),
                _no_median(n, threshold),
            )
        )
    (now, n_now, low, high), (before, n_before, low_before, high_before) = (
        values["ltm"],
        values["prior"],
    )
    why = "" if np.isfinite(now) else f" ({_no_median(n_now, threshold)})"
    prior = number(before, "{:.1f}x") if np.isfinite(before) else "n/a"
    return Card(
        f"Median deal {label}, last 12 months",
        number(now, "{:.1f}x") if np.isfinite(now) else "n/a",
        f"n={n_now:,}{_interval(low, high)}{why} · prior 12 months {prior} "
        f"(n={n_before:,}{_interval(low_before, high_before)}), {change_text(now, before)}",
    )


def _interval(low: float, high: float) -> str:
    """A median's bootstrap interval after its n on a card, or nothing where it has none
    (n of at least :data:`SMALL_N`, or no median): the same rule for both periods.

    Examples
    --------
    >>> _interval(3.34, 6.41), _interval(np.nan, np.nan)
    (', 90% CI 3.3x–6.4x', '')
    """
    if not np.isfinite(low):
        return ""
    return f", {CI_LEVEL:.0%} CI {number(low, '{:.1f}x')}–{number(high, '{:.1f}x')}"


def _public_card(data: ReportData, rows: list[dict]) -> Card:
    field = "evRevenueNtm"
    history = data.history
    series = (
        pd.to_numeric(history[field], errors="coerce")
        if field in history
        else pd.Series([], dtype=float)
    )
    series = series.dropna()
    now = float(series.iloc[-1]) if len(series) else np.nan
    month = str(series.index[-1]) if len(series) else "n/a"
    before, earlier = np.nan, "n/a"
    if len(series) and isinstance(series.index, pd.PeriodIndex):
        year_ago = series.index[-1] - 12
        before, earlier = float(series.get(year_ago, np.nan)), str(year_ago)
    companies = history.attrs.get("companies", len(data.current))
    figure = "public median EV/Revenue NTM"
    no_month = "no month of the group's series (groups/time-series) has a median"
    if not len(series):
        earlier_note = no_month
    elif earlier == "n/a":
        earlier_note = "the group's series is not monthly"
    else:
        earlier_note = f"the group's series has no median for {earlier}"
    rows.append(
        _row(
            figure,
            "latest month",
            (month, month),
            now,
            _values(data, field, month),
            note=no_month,
        )
    )
    rows.append(
        _row(
            figure,
            "12 months earlier",
            (earlier, earlier),
            before,
            _values(data, field, earlier),
            note=earlier_note,
        )
    )
    # the card is the group's monthly series (its last month); the Public comps section
    # below is of today's current data: the source said, so two medians do not puzzle
    # an n/a gives its reason, the headline table's note: the source's month where there is
    # one, else why there is none; the year-earlier value's reason once, not twice
    if np.isfinite(before):
        earlier_text = f"{number(before, '{:.1f}x')}, {change_text(now, before)}"
    elif earlier_note == no_month:
        earlier_text = "n/a"
    else:
        earlier_text = f"n/a ({earlier_note})"
    return Card(
        "Public comps, median EV/Revenue NTM",
        number(now, "{:.1f}x") if np.isfinite(now) else "n/a",
        (f"monthly series, {month}" if np.isfinite(now) else no_month)
        + f" · {counted(companies, 'listed company')} · 12 months earlier {earlier_text}",
    )


def _values(data: ReportData, field: str, month: str) -> int | None:
    """The companies with a value of ``field`` in ``month`` (``YYYY-MM``): those the group's
    median of that month is of (``data.history_counts``), 0 for a month without one, None
    when they are not known (``data.history_counts_unread`` says why).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> counts = pd.DataFrame({"n_evRevenueNtm": pd.array([155, 157], dtype="Int64")},
    ...                       index=pd.period_range("2025-06", periods=2, freq="M"))
    >>> data = SimpleNamespace(history_counts=counts, history_counts_unread=None)
    >>> _values(data, "evRevenueNtm", "2025-06"), _values(data, "evRevenueNtm", "n/a")
    (155, 0)
    >>> data.history_counts_unread = "its pulls failed: 503"
    >>> _values(data, "evRevenueNtm", "2025-06") is None
    True
    """
    if month == "n/a":
        return 0
    if data.history_counts_unread is not None:
        return None
    column = data.history_counts.get(f"n_{field}")
    if column is None:
        return 0
    counts = {str(period): n for period, n in column.items() if pd.notna(n)}
    return int(counts.get(month, 0))


def build_headline(data: ReportData) -> Headline:
    """Cards, sentences, the headline table and the local check of the service's medians.

    Examples
    --------
    >>> build_headline(data).cards[0].label  # doctest: +SKIP
    'Deals, last 12 months'
    """
    rows: list[dict] = []
    checks: list[dict] = []
    ltm, prior = (_in(data.deals_pulled, p) for p in (data.periods.ltm, data.periods.prior))
    count_card = Card(
        "Deals, last 12 months",
        f"{len(ltm):,}",
        f"prior 12 months {len(prior):,}, {change_text(len(ltm), len(prior))}",
    )
    raised_now = float(pd.to_numeric(ltm["deal_raised"], errors="coerce").sum(min_count=1))
    raised_before = float(pd.to_numeric(prior["deal_raised"], errors="coerce").sum(min_count=1))
    disclosed = int(ltm["deal_raised"].notna().sum())
    raised_card = Card(
        "Capital raised, last 12 months",
        money(raised_now),
        f"{counted(disclosed, 'deal')} disclosed an amount · prior 12 months "
        f"{money(raised_before)}, {change_text(raised_now, raised_before)}",
    )
    for name, frame, raised in (("ltm", ltm, raised_now), ("prior", prior, raised_before)):
        period = getattr(data.periods, name)
        rows.append(_row("deals", name, period, float(len(frame)), len(frame)))
        disclosed_n = int(frame["deal_raised"].notna().sum())
        rows.append(
            _row(
                "capital raised ($m)",
                name,
                period,
                raised,
                disclosed_n,
                note=_undisclosed(disclosed_n),
            )
        )
    multiple_cards = [_multiple_card(data, m, rows, checks) for m in HEADLINE_METRICS]
    public_card = _public_card(data, rows)
    cards = (count_card, raised_card, *multiple_cards, public_card)
    table = pd.DataFrame(rows)
    table["n"] = table["n"].astype("Int64")  # n/a: a public median's n not known
    table["note"] = table["note"].astype(str)
    sentences = _sentences(data, ltm, prior, raised_now, raised_before)
    return Headline(cards, sentences, table, pd.DataFrame(checks))


def _sentences(
    data: ReportData,
    ltm: pd.DataFrame,
    prior: pd.DataFrame,
    raised_now: float,
    raised_before: float,
) -> tuple[str, ...]:
    as_of = pd.Timestamp(data.as_of).strftime("%-d %B %Y")
    first = (
        f"{counted(len(ltm), 'deal')} in the twelve months to {as_of} "
        f"({change_text(len(ltm), len(prior))} on the twelve months before)"
        + (_raising(raised_now, raised_before) if len(ltm) else ".")
    )
    second = _compared(data.comparisons[COMPARED_PERIODS[0]].summary)
    return (first, second)


def _raising(now: float, before: float) -> str:
    """The end of the first sentence: the capital raised, or in words why there is none
    (of deals the twelve months have: with none, the sentence says nothing of amounts).

    Examples
    --------
    >>> _raising(4500.0, 4000.0)
    ', raising $4.5bn (+12%).'
    >>> _raising(np.nan, np.nan)  # an M&A-only cohort: M&A deals carry no amount raised
    '; none of them disclosed an amount raised.'
    >>> _raising(12.0, np.nan)
    ', raising $12m (no deal of the twelve months before disclosed an amount).'
    """
    if not np.isfinite(now):
        return "; none of them disclosed an amount raised."
    if not np.isfinite(before):
        return f", raising {money(now)} (no deal of the twelve months before disclosed an amount)."
    return f", raising {money(now)} ({change_text(now, before)})."


def _compared(summary: pd.DataFrame) -> str:
    """The sentence on private against public EV/Revenue of the last twelve months.

    Its figures are those of the "Private against public" section, read from the one
    summary both are written from (:func:`dealframe.compare_multiples`' ``summary`` of the
    period): the deals' median and n, the public comps' median and n, and the ratio of the
    two medians, each side by one method (NM values out, 1.5 IQR trimmed, no median below the
    service's small-n threshold).

    Examples
    --------
    >>> s = pd.DataFrame({"private_median": [5.0], "private_n": [40], "public_median": [4.0],
    ...                   "public_n": [12], "private_to_public": [1.25]}, index=["ev_revenue"])
    >>> s.attrs["small_n_threshold"] = 5
    >>> print(_compared(s))  # doctest: +NORMALIZE_WHITESPACE
    Deals of the last twelve months were priced at a median 5.0x EV/Revenue (n=40), against
    4.0x for the cohort's 12 listed companies over the same months (EV/Revenue LTM): a 25%
    premium.
    >>> s.loc["ev_revenue", ["public_median", "private_to_public"]] = [4.98, 1.004]
    >>> print(_compared(s))  # doctest: +NORMALIZE_WHITESPACE
    Deals of the last twelve months were priced at a median 5.0x EV/Revenue (n=40), against
    5.0x for the cohort's 12 listed companies over the same months (EV/Revenue LTM): in line
    with them (under half a percent apart).
    >>> s.loc["ev_revenue", ["public_median", "public_n"]] = [np.nan, 3]
    >>> print(_compared(s))  # doctest: +NORMALIZE_WHITESPACE
    Private and public EV/Revenue cannot be compared: 3 of the cohort's listed companies have
    a meaningful EV/Revenue LTM over the same months, fewer than the 5 a median needs.
    """
    row = summary.loc["ev_revenue"]
    p, q = _number(row["private_median"]), _number(row["public_median"])
    ratio = _number(row["private_to_public"])
    n, public_n = (int(row[k]) if pd.notna(row[k]) else 0 for k in ("private_n", "public_n"))
    threshold = summary.attrs.get("small_n_threshold", 5)
    if np.isfinite(p) and np.isfinite(q) and np.isfinite(ratio):
        gap = number(abs(ratio - 1), "{:.0%}")
        verdict = (  # a gap that rounds to 0% is no premium nor discount: said so, in words
            "in line with them (under half a percent apart)"
            if gap == "0%"
            else f"a {gap} {'premium' if ratio >= 1 else 'discount'}"
        )
        return (
            f"Deals of the last twelve months were priced at a median {number(p, '{:.1f}x')} "
            f"EV/Revenue (n={n:,}), against {number(q, '{:.1f}x')} for the cohort's "
            f"{counted(public_n, 'listed company')} over the same months (EV/Revenue LTM): "
            f"{verdict}."
        )
    if not np.isfinite(p):
        why = "too few deals of the last twelve months have a meaningful multiple."
    elif public_n == 0:
        why = "the cohort has no listed company with one."
    else:
        why = (
            f"{public_n} of the cohort's listed companies {plural(public_n, 'has', 'have')} "
            f"a meaningful EV/Revenue LTM over the same months, fewer than the {threshold} a "
            "median needs."
        )
    return "Private and public EV/Revenue cannot be compared: " + why
