"""Private deal multiples of a cohort beside the public comps of the same cohort, in one call.

A cohort is a region, a vertical (Family B's ``target_verticals``, Family A's
``industries``) and a period. :func:`compare_multiples` pulls the cohort's deals of the
period (``client.private.deals``) and its public comps in the same period: the companies of
the cohort (``client.public.search``) with a value in the monthly time series
(``client.public.time_series``) of one of the period's months, each comp's value for the
period being the median of its monthly values. It links the comps to their Family B companies
(:mod:`dealframe.link`), and summarises each multiple on both sides with the same method
(:func:`measure_side`): the multiples that are not meaningful are left out and counted (the
NM rule, :func:`dealframe.analytics.multiples.multiple_status`: a zero or negative
denominator, a negative enterprise value, a negative multiple or one above 50x EV/Revenue or
100x EV/EBITDA; for a comp, its enterprise value, revenue and EBITDA of the period are the
medians of its monthly ``enterpriseValue``, ``revenueLtm`` and ``ebitdaLtm`` in the same
series, EBITDA computed as ``revenueLtm * marginEbitdaLtm / 100`` where the service serves
no ``ebitdaLtm``; a field the service serves no value of leaves that part of the rule out,
and the comparison says so), then the service's aggregate rule (IQR-trimmed median, q1 and q3, small
buckets suppressed) is computed by :func:`dealframe.analytics.bucket_medians` over the deals
of the period on one side and the comps' period values on the other.

Both sides are treated alike, the public one trimmed as the private one: a ratio of two
medians compares like with like only when one rule made both, so that neither side's
extremes move its median while the other's are cut. ``meaningful_only=False`` gives the
service's rule over every value (negative multiples included), as its
``transactions/aggregate`` computes it. ``dealframe report``'s "Private against public"
section is built by the same function (:func:`summarise`), so it shows the same medians.

The pairs compared are deal EV/revenue with public EV/revenue LTM (``evRevenueLtm``), and
deal EV/EBITDA with public EV/EBITDA LTM (``evEbitdaLtm``): a deal's multiple is its
valuation over the revenue (EBITDA) reported with the deal, the public one enterprise value
over the last twelve months.

Examples
--------
>>> sorted(PAIRS)
['ev_ebitda', 'ev_revenue']
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Hashable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from dealframe.analytics.buckets import bucket_medians, service_methodology
from dealframe.analytics.multiples import MULTIPLE_DENOMINATORS, meaningful, numbers
from dealframe.analytics.periods import resolve_window
from dealframe.arguments import DateLike, checked_keywords
from dealframe.errors import ValidationError, renamed
from dealframe.frames.nested import to_lists
from dealframe.frames.normalize import build_frame
from dealframe.frames.schemas import Column, Schema
from dealframe.link import companies_for_skus
from dealframe.notices import (
    DealframeWarning,
    missing_expected,
    missing_held,
    setting,
    user_stacklevel,
    warn_missing,
)
from dealframe.private.filters import documented_schema, service_decides
from dealframe.public.hints import close_values
from dealframe.public.query import search_body

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = [
    "NM_FIELDS",
    "PAIRS",
    "Comparison",
    "Side",
    "compare_multiples",
    "measure_side",
    "summarise",
]

#: Private deal multiple -> the public time-series field it is compared with.
PAIRS: dict[str, str] = {"ev_revenue": "evRevenueLtm", "ev_ebitda": "evEbitdaLtm"}
#: What the NM rule reads of a comp beside its multiple, as time-series fields: the enterprise
#: value (negative: NM) and the denominators (zero or negative: NM), :data:`MULTIPLE_DENOMINATORS`.
NM_FIELDS: tuple[str, ...] = (
    "enterpriseValue",
    *(MULTIPLE_DENOMINATORS[field] for field in PAIRS.values()),
)
#: EBITDA margin (percent of revenue): where the series serve no ``ebitdaLtm``, a month's
#: EBITDA is ``revenueLtm * marginEbitdaLtm / 100``, its definition.
_MARGIN = "marginEbitdaLtm"
#: The comps of a period: the search's identity of each, per field its period value (the
#: median of its monthly values) and the number of months with a value, then the period value
#: of each field the NM rule reads.
_COMPS: Schema = (
    *(Column(name, "str") for name in ("sku", "ticker", "exchange", "name", "countryCodeIso3")),
    *(
        column
        for field in PAIRS.values()
        for column in (Column(field, "float"), Column(f"{field}_months", "int"))
    ),
    *(Column(field, "float") for field in NM_FIELDS),
)
#: The filters compare_multiples forwards, by the name of its own argument.
_OURS: dict[str, str] = {
    "target_region": "region",
    "regions": "region",
    "target_verticals": "vertical",
    "industries": "vertical",
}


class Comparison(NamedTuple):
    """What :func:`compare_multiples` returns.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per multiple (index ``metric``): ``public_field``, then ``n``, ``nm``,
        ``median``, ``q1``, ``q3`` and ``warning`` of each side (``private_*``,
        ``public_*``), and ``private_to_public`` (private median over public median). ``n``
        counts the values summarised before trimming (as the service counts), ``nm`` the
        values of the period that are not meaningful (left out unless
        ``meaningful_only=False``). ``attrs`` hold the cohort, the window, the threshold and
        ``meaningful_only``.
    deals : pandas.DataFrame
        The cohort's deals (``client.private.deals``).
    comps : pandas.DataFrame
        The cohort's public comps in the period (index ``sku``): ``ticker``, ``exchange``,
        ``name`` and ``countryCodeIso3`` (``client.public.search``), then per field of
        :data:`PAIRS` its value for the period (``evRevenueLtm``, ``evEbitdaLtm``: the median
        of the comp's monthly values) and the number of months with a value
        (``evRevenueLtm_months``, ``evEbitdaLtm_months``), the period's median of what the NM
        rule reads (:data:`NM_FIELDS`: ``enterpriseValue``, ``revenueLtm``, ``ebitdaLtm``;
        NaN where the series have no value), and ``company_id``, ``match`` and
        ``link_evidence`` from :func:`dealframe.companies_for_skus`. ``attrs["nm_unapplied"]``
        (and the summary's ``attrs["public_nm_unapplied"]``) name the fields of
        :data:`NM_FIELDS` the service's series held no value of, whose part of the rule was
        left out.

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
    ...     cmp = dealframe.compare_multiples(client, region="North America")
    >>> cmp.summary.loc["ev_revenue", ["private_n", "public_n"]].tolist()
    [50, 22]
    >>> print(f'{cmp.summary.at["ev_revenue", "private_to_public"]:.2f}')  # private / public
    2.09
    >>> len(cmp.deals) == cmp.summary.attrs["deals"], cmp.comps.index.name
    (True, 'sku')
    >>> cmp.comps[["evRevenueLtm", "match"]].head(2)
              evRevenueLtm    match
    sku
    AERS-CAN       1.34015  matched
    BRI-USA        2.22200  matched
    """

    summary: pd.DataFrame
    deals: pd.DataFrame
    comps: pd.DataFrame


def _strings(value: Any, argument: str) -> list[str] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if (
        not isinstance(items, Iterable)
        or isinstance(items, dict)
        or not all(isinstance(v, str) and v.strip() for v in items)
        or not list(items)
    ):
        raise ValidationError(argument, "a name or a list of names", got=value)
    return list(items)


#: The service's ``(small_n_threshold, current date)`` a caller has already read
#: (:func:`methodology_read`); None: :func:`compare_multiples` asks the service.
_METHODOLOGY_READ: ContextVar[tuple[int, str] | None] = ContextVar(
    "dealframe_methodology_read", default=None
)


def methodology_read(small_n_threshold: int, today: str) -> AbstractContextManager[None]:
    """Within it, :func:`compare_multiples` uses the service's ``small_n_threshold`` and
    current date ``today`` the caller has read (the report's gather step,
    :func:`~dealframe.analytics.buckets.aggregate_threshold`), rather than asking the service
    again: a threshold the service's answers lack is then said once, by the caller, not once
    more per comparison. Every other step of the comparison is unchanged.

    It holds for the current thread or task only (a ``contextvars.ContextVar``), as
    :func:`~dealframe.notices.missing_expected` does.
    """
    return setting(_METHODOLOGY_READ, (small_n_threshold, today))


@contextmanager
def _named_as_ours() -> Iterator[None]:
    """A refused filter that compare_multiples forwards is named as its own argument."""
    try:
        yield
    except ValidationError as exc:
        stem, bracket, rest = exc.argument.partition("[")
        if stem not in _OURS:
            raise
        raise renamed(exc, _OURS[stem] + bracket + rest) from None


def _check_private(client: Client, filters: Mapping[str, Any]) -> None:
    """The deal filters checked against the service's discovery document before the deals
    are asked for, as the client's list calls check them
    (:func:`~dealframe.private.filters.service_decides`: its enum lists may have grown since
    it was read, so it is read again to refuse); what the interface document fixes is
    refused first, before any request."""
    with _named_as_ours():
        service_decides(
            lambda again, retries: client.private.schema(
                "transactions", refresh=again, retries=retries
            ),
            lambda schema: schema.build(filters),
            lambda: documented_schema("transactions").precheck(filters),
        )


def _check_verticals(client: Client, verticals: list[str] | None) -> None:
    """A vertical no listed company carries, with a close one that some company does, is a
    misspelling: refused naming ``vertical``.

    The vocabulary is open (discovery lists no values), so the ``verticals`` of Family A's
    companies (one search, without filters) are the reference. A spelling that a carried one
    differs from only in case, spaces or punctuation (``fintech``, ``Fin-Tech`` for
    ``Fintech``) is refused at once. One as alike as the search's own hint asks
    (:func:`~dealframe.public.hints.close_values`: ``Fintek``, ``Fintec``, but also
    ``Insurtech`` beside ``Fintech`` or ``Agtech`` beside ``Adtech``) is refused only when no
    deal carries it either (one request of one row): a sibling vertical that only private
    companies carry is compared. One with no close match may be a private-only vertical and is
    sent (the search then warns of it, naming ``vertical``: :func:`_public_comps`).
    """
    if not verticals:
        return
    universe = client.public.search()
    if "verticals" not in universe:  # the answer does not say: the service decides
        return
    known = sorted({v for cell in to_lists(universe["verticals"]) for v in cell or ()})
    folded = {_folded(v): v for v in known}
    for i, given in enumerate(verticals):
        if given in known:
            continue
        close = [folded[_folded(given)]] if _folded(given) in folded else []
        if not close and (close := close_values(given, known)):
            # the client's own question: its empty answer is not hinted at (a warning naming
            # filters.target_verticals, which the caller never passed); the refusal says it
            carried = client.private._probe(
                "transactions", client.private.deals, target_verticals=[given]
            )
            close = close if carried.empty else []
        if close:
            raise ValidationError(
                f"vertical[{i}]",
                f"a vertical the companies carry (did you mean {close[0]!r}?)",
                got=given,
            )


def _public_comps(
    client: Client, regions: list[str] | None, verticals: list[str] | None
) -> pd.DataFrame:
    """The public companies of ``regions`` and ``verticals`` (:meth:`PublicApi.search`).

    The search's own hint that no company carries a value names its argument, ``industries``,
    which the caller of :func:`compare_multiples` never passed: it is said naming ``vertical``
    (the same index: the verticals are the industries searched). What else the search says of
    missing data is said as it is.
    """
    with missing_held() as said:
        found = client.public.search(regions=regions, industries=verticals)
    for message in said:
        if message.startswith("industries["):
            message = "vertical[" + message.removeprefix("industries[")
        warn_missing(message)
    return found


def _folded(text: str) -> str:
    """``text`` without case, spaces or punctuation: ``Fin-Tech`` and ``fintech`` alike.

    Examples
    --------
    >>> _folded("Fin-Tech "), _folded("HR Tech")
    ('fintech', 'hrtech')
    """
    return "".join(c for c in text.casefold() if c.isalnum())


def _period_comps(
    client: Client, found: pd.DataFrame, date_from: Any, date_to: Any
) -> pd.DataFrame:
    """The companies of ``found`` (search rows, index ``sku``) with a value of a field of
    :data:`PAIRS` in the monthly time series of the period's months (from the month of
    ``date_from`` to the month of ``date_to``, both whole): per field the median of their
    monthly values, and the number of months with a value (:data:`_COMPS`), and the median
    of each field of :data:`NM_FIELDS` likewise, so that the whole NM rule applies to them.

    The series are asked for with every field (the document names time-series fields by
    example only, and asking for one the service does not serve is refused): those it
    serves are read. A field of :data:`NM_FIELDS` the answer holds no value of (``ebitdaLtm``
    is computed from ``revenueLtm`` and ``marginEbitdaLtm`` where it is not served) leaves
    that part of the rule unapplied: ``attrs["nm_unapplied"]`` names it and a
    :class:`~dealframe.notices.DealframeWarning` says so.
    """
    first, last = pd.Period(date_from, "M"), pd.Period(date_to, "M")
    rows: list[dict[str, Any]] = []
    absent: list[str] = []
    if len(found):
        with missing_expected():  # a company without values in the period is no comp
            series = client.public.time_series(
                list(found.index), date_from=first, date_to=last, shape="long"
            )
        inside = series[series["month"].between(first, last) & series["value"].notna()]
        monthly = _with_ebitda(inside)
        values = monthly.groupby(["sku", "field"])["value"]
        medians, months = values.median(), values.count()
        for sku in found.index:
            row = {c.name: found.at[sku, c.name] for c in _COMPS[1:5]}
            row["sku"] = sku
            for field in (*PAIRS.values(), *NM_FIELDS):
                row[field] = medians.get((sku, field))
            for field in PAIRS.values():
                row[f"{field}_months"] = months.get((sku, field), 0)
            if any(row[f"{field}_months"] for field in PAIRS.values()):
                rows.append(row)
        held = set(monthly["field"])
        absent = [field for field in NM_FIELDS if field not in held]
    comps = build_frame(rows, _COMPS, index="sku")
    comps.attrs["nm_unapplied"] = absent if rows else []
    if rows and absent:
        _warn_unapplied(absent, first, last)
    return comps


def _with_ebitda(inside: pd.DataFrame) -> pd.DataFrame:
    """``inside`` (long rows ``sku, field, month, value``) with ``ebitdaLtm`` rows computed
    as ``revenueLtm * marginEbitdaLtm / 100`` for the company-months that have both and no
    ``ebitdaLtm`` of their own.

    Examples
    --------
    >>> m = pd.Period("2024-01", "M")
    >>> rows = pd.DataFrame({"sku": ["A", "A"], "field": ["revenueLtm", "marginEbitdaLtm"],
    ...                      "month": [m, m], "value": [200.0, -5.0]})
    >>> _with_ebitda(rows).query("field == 'ebitdaLtm'")["value"].tolist()
    [-10.0]
    """
    ebitda = MULTIPLE_DENOMINATORS["evEbitdaLtm"]
    wanted = ["revenueLtm", _MARGIN, ebitda]
    parts = inside[inside["field"].isin(wanted)]
    wide = parts.pivot_table(
        index=["sku", "month"], columns="field", values="value", aggfunc="first", observed=True
    ).reindex(columns=wanted)
    derived = (wide["revenueLtm"] * wide[_MARGIN] / 100)[wide[ebitda].isna()].dropna()
    if derived.empty:
        return inside
    extra = derived.rename("value").reset_index().assign(field=ebitda)
    return pd.concat([inside, extra[list(inside.columns)]], ignore_index=True)


def _warn_unapplied(absent: list[str], first: pd.Period, last: pd.Period) -> None:
    """Say which parts of the NM rule the public comps could not be held to."""
    parts = {
        "enterpriseValue": "a negative enterprise value",
        "revenueLtm": "a zero or negative revenue (EV/Revenue LTM)",
        "ebitdaLtm": "a zero or negative EBITDA (EV/EBITDA LTM; nor revenueLtm and "
        "marginEbitdaLtm to compute it)",
    }
    warnings.warn(
        f"compare_multiples: the public comps' time series of {first}..{last} held no "
        f"{', '.join(absent)}, so their multiples are NM only when negative or above the "
        f"bound; not applied: {'; '.join(parts[f] for f in absent)}",
        DealframeWarning,
        stacklevel=user_stacklevel(),
    )


class Side(NamedTuple):
    """One side of a comparison, as :func:`measure_side` summarises it.

    Attributes
    ----------
    kept : pandas.Series
        The values the statistics are of (after the NM rule and the trimming; none when the
        side has fewer values than the threshold), ascending, indexed like the frame;
        ``attrs["n"]`` is ``n``.
    n : int
        The values summarised, before trimming (the service's ``n``).
    nm : int
        The values of the period that are not meaningful (NM), left out of ``n`` and the
        statistics when ``meaningful_only`` (else counted in them).
    median, q1, q3 : float
        Of the kept values; NaN when there are none.
    warning : str or None
        The aggregate's ``warning`` (``small_n``, ``empty``, ``all_trimmed``) or None.

    Examples
    --------
    >>> side = measure_side(pd.DataFrame({"ev": [-3.0, 1, 2, 3, 4, 5]}), "ev",
    ...                     "2024-01-01", "2024-12-31", date_column=None)
    >>> side.n, side.nm, side.median
    (5, 1, 3.0)
    """

    kept: pd.Series
    n: int
    nm: int
    median: float
    q1: float
    q3: float
    warning: str | None


def _bucket(
    frame: pd.DataFrame,
    values: np.ndarray,
    column: str,
    on: Any,
    start: DateLike,
    end: DateLike,
    threshold: int,
    *,
    explain: bool = False,
) -> pd.DataFrame:
    """:func:`~dealframe.analytics.bucket_medians` of ``values`` (one ``none`` bucket of the
    period), dated ``on``; ``frame``'s ``deleted`` rows are left out as the aggregate does."""
    shaped = pd.DataFrame({"on": on, "value": values}, index=frame.index)
    if "deleted" in frame.columns:
        shaped["deleted"] = frame["deleted"].array
    return bucket_medians(
        shaped,
        column,
        "none",
        start,
        end,
        small_n_threshold=threshold,
        explain=explain,
        date_column="on",
        value_column="value",
    )


def _has_column(frame: pd.DataFrame, label: Any) -> bool:
    """Whether ``label`` is a column label of ``frame`` (any hashable label, as pandas allows:
    ``"deal_date"``, ``9``, a tuple of a ``MultiIndex``); an unhashable one is none.

    Examples
    --------
    >>> f = pd.DataFrame({9: [1], "deal_date": [2]})
    >>> _has_column(f, 9), _has_column(f, "deal_date"), _has_column(f, "on"), _has_column(f, [9])
    (True, True, False, False)
    """
    try:
        return label in frame.columns
    except TypeError:  # unhashable: a list, a dict, a tuple holding one
        return False


@checked_keywords
def measure_side(
    frame: pd.DataFrame,
    column: str,
    start: DateLike,
    end: DateLike,
    threshold: int = 5,
    *,
    date_column: Hashable | None = "deal_date",
    meaningful_only: bool = True,
) -> Side:
    """One side of a comparison: the values of a multiple the method keeps, and their statistics.

    The one method behind :func:`compare_multiples`, :func:`summarise`, the report's "Private
    against public" section and :func:`dealframe.plot.private_vs_public`, for both sides.
    The values of the period (``start`` to ``end``, inclusive) that are not meaningful (the
    NM rule, :func:`dealframe.analytics.multiples.multiple_status`) are counted and, with
    ``meaningful_only``, left out; then the service's aggregate rule applies to the rest
    (one ``none`` bucket of :func:`dealframe.analytics.bucket_medians`: outliers beyond 1.5
    IQR trimmed, fewer than ``threshold`` values give no statistic).

    Parameters
    ----------
    frame : pandas.DataFrame
        Deals (``client.private.deals``), or comps with one value per company (the
        ``comps`` of :func:`compare_multiples`, ``client.public.current(...)``). The NM rule
        reads the denominator and ``enterpriseValue`` columns the frame has
        (:data:`~dealframe.analytics.multiples.MULTIPLE_DENOMINATORS`); without them, the
        value part only. Rows marked ``deleted`` are left out, as the service's aggregate
        leaves them out.
    column : str
        The multiple (``ev_revenue``, ``evEbitdaLtm`` ...); a frame without it has no value.
    start, end : date-like
        The period.
    threshold : int, default 5
        The service's ``small_n_threshold``.
    date_column : str, hashable or None, default "deal_date"
        The column of the date of each value (any label the frame has: ``9`` too, as pandas
        allows); None: every row counts once (comps, whose values are of the period already).
    meaningful_only : bool, default True
        False: every value, negative multiples included, as the service's aggregate counts
        them.

    Returns
    -------
    Side

    Raises
    ------
    dealframe.errors.ValidationError
        ``frame`` is not a DataFrame, ``column`` is no name (a ``str``), the frame has no
        column ``date_column`` (an unhashable one is none), or an argument of
        :func:`~dealframe.analytics.bucket_medians` (the period, ``threshold``) is bad.

    Examples
    --------
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-03-01"] * 7),
    ...                       "ev_ebitda": [-40.0, 8, 9, 10, 11, 12, 500]})
    >>> fair = measure_side(deals, "ev_ebitda", "2024-01-01", "2024-12-31")
    >>> fair.n, fair.nm, fair.median, fair.kept.tolist()
    (5, 2, 10.0, [8.0, 9.0, 10.0, 11.0, 12.0])
    >>> every = measure_side(deals, "ev_ebitda", "2024-01-01", "2024-12-31",
    ...                      meaningful_only=False)
    >>> every.n, every.nm, every.median
    (7, 2, 10.0)
    """
    if not isinstance(meaningful_only, bool):
        raise ValidationError("meaningful_only", "True or False", got=meaningful_only)
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", "a DataFrame of deals or comps", got=frame)
    if not isinstance(column, str):
        raise ValidationError("column", "a column name (str) such as 'ev_revenue'", got=column)
    if date_column is not None and not _has_column(frame, date_column):
        columns = ", ".join(map(str, frame.columns[:8]))
        raise ValidationError(
            "date_column",
            f"a column of the frame or None (its columns: {columns})",
            got=date_column,
        )
    if date_column is None:
        on: Any = np.full(len(frame), pd.Timestamp(end).to_datetime64().astype("datetime64[us]"))
    else:
        on = frame[date_column].array
    present = column in frame.columns
    every = numbers(frame, column)
    fair = meaningful(frame, column).to_numpy(dtype=float) if present else every
    counted = {
        name: _bucket(frame, values, column, on, start, end, threshold, explain=True)
        for name, values in (("every", every), ("fair", fair))
    }
    rows = counted["fair" if meaningful_only else "every"]
    stats = _bucket(frame, fair if meaningful_only else every, column, on, start, end, threshold)
    first = stats.iloc[0] if len(stats) else pd.Series(dtype=object)
    chosen = rows[rows["kept"] & ~rows["suppressed"]]
    kept = pd.Series(chosen["value"].to_numpy(dtype=float), index=chosen.index, name=column)
    kept.attrs["n"] = len(rows)
    warning = first.get("warning")
    return Side(
        kept=kept,
        n=len(rows),
        nm=len(counted["every"]) - len(counted["fair"]),
        median=float(first.get("median", np.nan)),
        q1=float(first.get("q1", np.nan)),
        q3=float(first.get("q3", np.nan)),
        warning=warning if isinstance(warning, str) else None,
    )


_STATISTICS = ("n", "nm", "median", "q1", "q3", "warning")


@checked_keywords
def summarise(
    deals: pd.DataFrame,
    comps: pd.DataFrame,
    start: DateLike,
    end: DateLike,
    threshold: int = 5,
    *,
    meaningful_only: bool = True,
) -> pd.DataFrame:
    """The summary of a :class:`Comparison` from its two frames (pure).

    Both sides by one method (:func:`measure_side`): NM multiples counted (``*_nm``) and,
    with ``meaningful_only``, left out; the rest IQR-trimmed as the service's aggregate
    trims them; the public side exactly as the private one.

    Parameters
    ----------
    deals : pandas.DataFrame
        Deals with ``deal_date`` and the ``ev_revenue``/``ev_ebitda`` columns (and
        ``deal_revenue``/``deal_ebitda``, the denominators the NM rule reads).
    comps : pandas.DataFrame
        One value per comp for the period in ``evRevenueLtm``/``evEbitdaLtm`` (as the
        ``comps`` of :func:`compare_multiples`).
    start, end : date-like
        The period: deals outside it are left out; each comp counts once.
    threshold : int, default 5
        Fewer values than this give no median (``warning`` ``small_n``), as in the
        service's aggregate.
    meaningful_only : bool, default True
        False: the service's rule over every value, NM multiples included.

    Examples
    --------
    >>> deals = pd.DataFrame({"deal_date": pd.to_datetime(["2024-03-01"] * 6),
    ...                       "ev_revenue": [4.0, 5, 6, 7, 8, -2], "ev_ebitda": [np.nan] * 6})
    >>> comps = pd.DataFrame({"evRevenueLtm": [2.0, 3, 4, 5, 6], "evEbitdaLtm": [9.0] * 5})
    >>> s = summarise(deals, comps, "2024-01-01", "2024-12-31")
    >>> s.loc["ev_revenue", ["private_median", "public_median", "private_to_public"]].tolist()
    [6.0, 4.0, 1.5]
    >>> s.loc["ev_revenue", ["private_n", "private_nm"]].tolist()  # -2 is NM: left out
    [5, 1]
    """
    if not isinstance(meaningful_only, bool):
        raise ValidationError("meaningful_only", "True or False", got=meaningful_only)
    rows = []
    for metric, field in PAIRS.items():
        private = measure_side(
            deals, metric, start, end, threshold, meaningful_only=meaningful_only
        )
        public = measure_side(
            comps, field, start, end, threshold, date_column=None, meaningful_only=meaningful_only
        )
        ratio = (
            private.median / public.median
            if np.isfinite(private.median) and np.isfinite(public.median) and public.median != 0
            else np.nan
        )
        rows.append(
            {
                "metric": metric,
                "public_field": field,
                **{f"private_{k}": getattr(private, k) for k in _STATISTICS},
                **{f"public_{k}": getattr(public, k) for k in _STATISTICS},
                "private_to_public": ratio,
            }
        )
    frame = pd.DataFrame(rows).set_index("metric")
    for side in ("private", "public"):
        for k in ("n", "nm"):
            frame[f"{side}_{k}"] = frame[f"{side}_{k}"].astype("Int64")
        for k in ("median", "q1", "q3"):
            frame[f"{side}_{k}"] = frame[f"{side}_{k}"].astype(float)
        frame[f"{side}_warning"] = frame[f"{side}_warning"].astype("str")
    frame["public_field"] = frame["public_field"].astype("str")
    frame["private_to_public"] = frame["private_to_public"].astype(float)
    frame.index = frame.index.astype("str")
    return frame


@checked_keywords
def compare_multiples(
    client: Client,
    *,
    region: str | list[str] | None = None,
    vertical: str | list[str] | None = None,
    date_from: DateLike | None = None,
    date_to: DateLike | None = None,
    deal_type: str | list[str] | None = None,
    link: bool = True,
    meaningful_only: bool = True,
) -> Comparison:
    """Private deal multiples of a cohort beside the public comps of the same cohort.

    Parameters
    ----------
    client : dealframe.Client
    region : str or list of str, optional
        Region(s) of the interface document's vocabulary: the deals' ``target_region``,
        the comps' ``regions``.
    vertical : str or list of str, optional
        Vertical(s): the deals' ``target_verticals``, the comps' ``industries``.
    date_from, date_to : date-like, optional
        The period (inclusive). By default the service's aggregate window: the five years to
        its current date. The deals are those dated in it; the public side reads the
        calendar months it touches, whole (the month of ``date_from`` to the month of
        ``date_to``: a period from 2024-03-15 reads March 2024 whole).
    deal_type : str or list of str, optional
        Deal types of the private side (default: every type).
    link : bool, default True
        Add each comp's Family B ``company_id`` (:func:`dealframe.companies_for_skus`), so
        the comps' own private rounds can be looked up.
    meaningful_only : bool, default True
        Leave the multiples that are not meaningful out of both sides (the NM rule of
        :func:`dealframe.analytics.multiples.multiple_status`, the report's: a zero or
        negative denominator, a negative enterprise value, a negative multiple, or one
        above 50x EV/Revenue or 100x EV/EBITDA); ``summary`` counts them (``private_nm``,
        ``public_nm``). False: the service's aggregate rule over every value, negative
        multiples included (``private_*`` then equals ``transactions/aggregate`` of the
        cohort and period); its medians can be negative.

    Returns
    -------
    Comparison
        ``(summary, deals, comps)``; ``summary`` has one row per multiple, the private and
        the public statistics side by side, both by one method (:func:`measure_side`):
        NM values left out and counted (the whole rule on both sides: a comp's enterprise
        value, revenue and EBITDA of the period are read from its time series), then outliers beyond 1.5 IQR trimmed and small
        sides suppressed as the service's aggregate does. The public side is trimmed as the
        private one, so that the ratio is of like statistics. The public statistics are
        over the comps of the period: each comp's value is the median of its monthly values
        in the period, and a company with no value in the period is no comp.

    Warns
    -----
    dealframe.notices.DealframeWarning
        When the comps' time series hold no value of a field of :data:`NM_FIELDS` (nor, for
        ``ebitdaLtm``, ``revenueLtm`` and ``marginEbitdaLtm``): the public side is then held
        to the rest of the rule (a negative multiple, or one above the bound), and the
        warning names the parts left out.
    dealframe.notices.MissingDataWarning
        For a ``vertical`` no listed company carries and with no close value (it is sent:
        only private companies may carry it), naming it: ``vertical[0]: no company carries
        ...``.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the argument (``region``, ``vertical``, ``deal_type``, ``link``,
        ``meaningful_only`` ..., with a close match for a misspelt value), before any
        request where it can be known (a deal type waits for the discovery document).

    Examples
    --------
    >>> cmp = dealframe.compare_multiples(client, region="Western Europe", vertical="Fintech",
    ...                                   date_from="2023-01-01")
    >>> cmp.summary[["private_median", "public_median", "private_to_public"]]
                private_median  public_median  private_to_public
    metric
    ev_revenue ...
    ev_ebitda ...
    >>> cmp.summary[["private_n", "private_nm", "public_n", "public_nm"]]  # NM: left out
                private_n  private_nm  public_n  public_nm
    metric
    ev_revenue ...
    ev_ebitda ...
    """
    regions = _strings(region, "region")
    verticals = _strings(vertical, "vertical")
    deal_types = _strings(deal_type, "deal_type")
    if not isinstance(link, bool):
        raise ValidationError("link", "True or False", got=link)
    if not isinstance(meaningful_only, bool):
        raise ValidationError("meaningful_only", "True or False", got=meaningful_only)
    search_body({"region": regions})  # the region vocabulary, naming ``region``
    # a bad date (or order) is refused before any request; the service's date comes after
    resolve_window(date_from, date_to, as_of=dt.date.max, time_bucket="none")
    _check_private(
        client, {"target_region": regions, "target_verticals": verticals, "deal_type": deal_types}
    )
    _check_verticals(client, verticals)
    threshold, today = _METHODOLOGY_READ.get() or service_methodology(client)
    start, end = resolve_window(date_from, date_to, as_of=today, time_bucket="none")
    deals = client.private.deals(
        date_from=start,
        date_to=end,
        target_region=regions,
        target_verticals=verticals,
        deal_type=deal_types,
    )
    found = _public_comps(client, regions, verticals)
    comps = _period_comps(client, found, start, end)
    if link:  # no comps: the same columns, no rows
        links = companies_for_skus(client, list(comps.index)).set_index("query")
        comps = comps.assign(
            company_id=links["company_id"].reindex(comps.index),
            match=links["match"].reindex(comps.index),
            link_evidence=links["evidence"].reindex(comps.index),
        )
    summary = summarise(deals, comps, start, end, threshold, meaningful_only=meaningful_only)
    summary.attrs.update(
        {
            "region": regions,
            "vertical": verticals,
            "deal_type": deal_types,
            "date_from": start.isoformat(),
            "date_to": end.isoformat(),
            "small_n_threshold": threshold,
            "meaningful_only": meaningful_only,
            "deals": len(deals),
            "comps": len(comps),
            "public_nm_unapplied": list(comps.attrs.get("nm_unapplied", [])),
        }
    )
    return Comparison(summary, deals, comps)
