"""Deals of the sandbox's synthetic data: who, when, how much, built straight into a store.

:func:`make_deals` draws every deal of a :class:`~.data.Dataset`'s organisations and returns
them as a :class:`~.records.RecordStore`: each deal serialised once (participants as bytes
shared by every deal they take part in) and the store's columns filled from the draws. No
dict per deal is kept, so generating is quick and leaves little for the garbage collector to
walk. The rules (docs/sandbox.md, "Clock and data"): a deal's target and participants were
founded by its date, a ``Public listing`` is a listed company's one listing on its listing
day, a listed company raises no private round from then on, a ``Secondary - public`` sells a
company's listed shares (its target is listed by the deal's date) and a ``Secondary - private``
a private company's (not listed by then), a ``Strategic M&A`` is bought by corporates and a
``PE buyout`` by private equity firms, every investor leads or buys somewhere, and a deal's
record is created after its date, once the database has begun, and never before the records of
the organisations it names.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter
from collections.abc import Mapping

import numpy as np
import orjson

from ..vocab import DEAL_TYPES
from .draws import Timeline, at_least_one, iso_ts_many, seconds_between, uuids, year_start_days
from .records import ListColumn, RecordStore

__all__ = ["MAX_LEADS", "make_deals", "may_target"]

_SUBTYPES: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    "Early": (
        ("Angel", "Pre-seed", "Seed", "Series A", "Undisclosed stage"),
        (0.1, 0.25, 0.45, 0.1, 0.1),
    ),
    "Venture": (
        ("Series A", "Series B", "Series C", "Series D", "Undisclosed stage"),
        (0.35, 0.35, 0.2, 0.05, 0.05),
    ),
    "Growth": (
        (
            "Series C",
            "Series D",
            "Series E",
            "Series F",
            "Series G",
            "Series H",
            "Series I",
            "Series J",
            "Strategic investment",
            "Undisclosed stage",
        ),
        (0.2, 0.2, 0.15, 0.1, 0.07, 0.05, 0.03, 0.02, 0.13, 0.05),
    ),
    "M&A": (("Strategic M&A", "PE buyout"), (0.7, 0.3)),
    "Secondary": (("Secondary - private", "Secondary - public"), (0.7, 0.3)),
    "Public listing": (("ICO", "Undisclosed stage"), (0.15, 0.85)),
}
_TYPE_P = {
    "Early": 0.22,
    "Venture": 0.30,
    "Growth": 0.14,
    "M&A": 0.22,
    "Secondary": 0.06,
    "Public listing": 0.06,
}
_RAISED_LOG_MEDIAN = {
    "Early": 1.5,
    "Venture": 15.0,
    "Growth": 80.0,
    "Secondary": 30.0,
    "Public listing": 150.0,
}

#: Deal types of private funding rounds: a company raises none once it is listed.
_PRIVATE_ROUNDS = ("Early", "Venture", "Growth")
#: A public secondary sells listed shares: its target is listed on or before the deal's date.
_LISTED_SECONDARY = "Secondary - public"
#: A private secondary sells a private company's shares: its target is not listed by then.
_UNLISTED_SECONDARY = "Secondary - private"
#: Most lead investors of a funding round (docs/sandbox.md, "Participant roles").
MAX_LEADS = 3
#: The organisation columns :func:`may_target` reads.
_TARGET_FIELDS = ("is_company", "deleted", "founded", "ipoed")
#: Participant draws per deal (leads and other investors, or buyers after the pool's two).
_SLOTS = 11


def may_target(
    columns: Mapping[str, np.ndarray],
    deal_type: str,
    day: np.datetime64,
    subtype: str | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """The organisations a new deal of ``deal_type`` (and ``subtype``) dated ``day`` may
    target, as a mask over an organisation store's :data:`~.records.ORG_SPEC` ``columns`` (or
    over its ``rows`` only, when given): live companies founded by ``day`` (an unknown founding
    year passes); for a private round (Early, Venture, Growth) or a ``Secondary - private``, not
    listed by then; for a ``Secondary - public``, listed by then. None for a ``Public listing``:
    a company lists once, on its ``ipoed``, and every listing is drawn with the data.

    Examples
    --------
    >>> columns = {
    ...     "is_company": np.array([True, True, True, False]),
    ...     "deleted": np.array([False, False, False, False]),
    ...     "founded": np.array([2010.0, 2020.0, 2000.0, 2000.0]),
    ...     "ipoed": np.array(["NaT", "NaT", "2015-05-01", "NaT"], dtype="datetime64[D]"),
    ... }
    >>> day = np.datetime64("2018-03-01")
    >>> may_target(columns, "Venture", day).tolist(), may_target(columns, "M&A", day).tolist()
    ([True, False, False, False], [True, False, True, False])
    >>> may_target(columns, "Secondary", day, "Secondary - public").tolist()
    [False, False, True, False]
    >>> may_target(columns, "Secondary", day, "Secondary - private").tolist()
    [True, False, False, False]
    >>> may_target(columns, "M&A", day, rows=np.array([2, 1, 2])).tolist()
    [True, False, True]
    """
    if rows is not None:
        columns = {name: columns[name][rows] for name in _TARGET_FIELDS}
    if deal_type == "Public listing":
        return np.zeros(len(columns["is_company"]), dtype=bool)
    year = int(np.asarray(day).astype("datetime64[Y]").astype(np.int64)) + 1970
    keep = columns["is_company"] & ~columns["deleted"] & ~(columns["founded"] > year)
    if deal_type in _PRIVATE_ROUNDS or subtype == _UNLISTED_SECONDARY:
        keep &= ~(columns["ipoed"] <= day)
    elif subtype == _LISTED_SECONDARY:
        keep &= columns["ipoed"] <= day
    return keep


def _drawn_founded_by(
    rng: np.random.Generator,
    founded_day: np.ndarray,
    weights: np.ndarray,
    day: np.ndarray,
    per_day: int = 1,
) -> np.ndarray:
    """``per_day`` positions into ``founded_day`` for each of ``day``, drawn with replacement by
    ``weights`` among those founded on or before that day (the earliest founded when none is).

    Returns
    -------
    numpy.ndarray
        ``(len(day), per_day)`` positions.
    """
    order = np.argsort(founded_day, kind="stable")
    cumulative = np.cumsum(weights[order])
    eligible = np.maximum(np.searchsorted(founded_day[order], day, side="right"), 1)[:, None]
    u = rng.random((len(day), per_day)) * cumulative[eligible - 1]
    return order[np.minimum(np.searchsorted(cumulative, u, side="right"), eligible - 1)]


def _secondaries_fit_listing(
    rng: np.random.Generator,
    deals: tuple[np.ndarray, np.ndarray, np.ndarray],
    company_idx: np.ndarray,
    days: tuple[np.ndarray, np.ndarray],
    target_w: np.ndarray,
) -> None:
    """Give each secondary a target whose listing fits its subtype, in place.

    A ``Secondary - public`` sells listed shares: its target is drawn again, by weight, among
    the companies listed on or before its date (and so founded by then: a company lists three
    years after its founding at the earliest). When no company is listed yet, it is a
    ``Secondary - private``. A ``Secondary - private`` sells a private company's shares: one
    whose target is listed by its date gets a target drawn among the companies that never list.

    Parameters
    ----------
    rng : numpy.random.Generator
        The draws' own stream.
    deals : tuple of numpy.ndarray
        Every deal's target (organisation position), subtype and day (ordinal); the first two
        are changed in place.
    company_idx : numpy.ndarray
        The companies' organisation positions.
    days : tuple of numpy.ndarray
        Every organisation's founding day and listing day (ordinals; never listed: the largest
        int64).
    target_w : numpy.ndarray
        Each company's weight as a target (aligned with ``company_idx``).
    """
    targets, subtype_of, day = deals
    founded_day, listed_day = days
    never = np.iinfo(np.int64).max
    listed = np.flatnonzero(listed_day[company_idx] != never)
    public = np.flatnonzero(subtype_of == _LISTED_SECONDARY)
    if public.size and listed.size:
        at = _drawn_founded_by(rng, listed_day[company_idx[listed]], target_w[listed], day[public])
        drawn = company_idx[listed[at[:, 0]]]
        fits = listed_day[drawn] <= day[public]
        targets[public[fits]] = drawn[fits]
        public = public[~fits]
    subtype_of[public] = _UNLISTED_SECONDARY  # no company listed by then
    private = np.flatnonzero((subtype_of == _UNLISTED_SECONDARY) & (listed_day[targets] <= day))
    unlisted = np.flatnonzero(listed_day[company_idx] == never)
    if private.size and unlisted.size:
        founded = founded_day[company_idx[unlisted]]
        at = _drawn_founded_by(rng, founded, target_w[unlisted], day[private])
        targets[private] = company_idx[unlisted[at[:, 0]]]


def _every_subtype(
    rng: np.random.Generator, subtype_of: np.ndarray, rows: np.ndarray, options: tuple[str, ...]
) -> None:
    """Give each of ``options`` missing among ``rows`` to one deal whose subtype has others (every
    subtype at every scale: a rare one may miss 1,000 deals)."""
    counts = Counter(subtype_of[rows].tolist())
    missing = [o for o in options if o not in counts]
    if not missing or rows.size < 2 * len(options):
        return
    spare = rng.permutation(rows).tolist()
    for option in missing:
        k = next(r for r in spare if counts[subtype_of[r]] > 1)
        counts[subtype_of[k]] -= 1
        subtype_of[k] = option
        counts[option] += 1


def _money(rng: np.random.Generator, types: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Money fields of every deal, rounded (NaN: null): log-normal, with nulls and about 1.5%
    outlier multiples."""
    is_ma = types == DEAL_TYPES.index("M&A")
    raised_median = np.array([_RAISED_LOG_MEDIAN.get(t, 1.0) for t in DEAL_TYPES])[types]
    raised = raised_median * rng.lognormal(0.0, 0.9, n)
    valuation = np.where(
        is_ma, rng.lognormal(np.log(300), 1.6, n), raised * rng.lognormal(np.log(5), 0.5, n)
    )
    raised[is_ma | (rng.random(n) < 0.08)] = np.nan
    valuation[rng.random(n) < 0.35] = np.nan
    multiple = rng.lognormal(np.log(6), 0.9, n)
    outlier = rng.random(n) < 0.015
    multiple[outlier] *= rng.uniform(10, 50, outlier.sum())
    base = np.where(np.isnan(valuation), rng.lognormal(np.log(200), 1.5, n), valuation)
    revenue = np.where(rng.random(n) < 0.45, base / multiple, np.nan)
    margin = rng.normal(0.05, 0.25, n)
    ebitda = np.where((rng.random(n) < 0.4) & (np.abs(margin) > 0.005), revenue * margin, np.nan)
    revenue, ebitda = np.round(revenue, 3), np.round(ebitda, 3)
    raised, valuation = np.round(raised, 3), np.round(valuation, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        ev_revenue = np.where(revenue != 0, valuation / revenue, np.nan)
        ev_ebitda = np.where(ebitda != 0, valuation / ebitda, np.nan)
    out = {  # rounded once more as the records always were (the same values but for an ulp)
        "deal_valuation": (valuation, 3),
        "deal_raised": (raised, 3),
        "deal_revenue": (revenue, 3),
        "deal_ebitda": (ebitda, 3),
        "ev_revenue": (ev_revenue, 4),
        "ev_ebitda": (ev_ebitda, 4),
    }
    return {k: _finite(np.round(v, d)) for k, (v, d) in out.items()}


def _finite(values: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(values), values, np.nan)


def _nullable(values: np.ndarray) -> list[float | None]:
    return [None if v != v else v for v in values.tolist()]


def make_deals(
    orgs: list[dict], rng: np.random.Generator, n_deals: int, as_of: dt.datetime
) -> RecordStore:
    """Draw ``n_deals`` deals among ``orgs`` (the generator's organisation records).

    Returns
    -------
    RecordStore
        The deals in :data:`~.records.DEAL_SPEC` form: the list fields except ``target``, plus
        ``target_index`` (the target's position in ``orgs``) and the full ``investors``.

    Notes
    -----
    ``orgs`` are changed in place: an organisation whose first deal's record is created
    before its own ``created_at`` gets that deal's (:func:`_created_with_first_deal`).
    """
    company_idx = np.array([i for i, o in enumerate(orgs) if o["_company"]])
    investor_idx = np.array([i for i, o in enumerate(orgs) if o["_investor"]])
    corporate = np.array([i for i in investor_idx if orgs[i]["_company"]])
    pe_firms = np.array(
        [
            i
            for i in investor_idx
            if not orgs[i]["_company"] and orgs[i]["company_type"] == ["Private equity"]
        ]
    )
    if pe_firms.size == 0:
        pe_firms = corporate
    # Heavy-tailed activity: a few investors take part in many deals, a few companies raise often.
    activity = rng.lognormal(0.0, 1.3, investor_idx.size)
    target_w = rng.lognormal(0.0, 0.8, company_idx.size)
    founded_day = year_start_days([o["founded"] for o in orgs])  # every org, by position
    never = np.iinfo(np.int64).max
    listed_day = np.array(
        [dt.date.fromisoformat(o["ipoed"]).toordinal() if o["ipoed"] else never for o in orgs],
        dtype=np.int64,
    )

    years = Timeline.of(as_of)
    start = dt.date(years.deals_from, 1, 1).toordinal()
    end = as_of.date().toordinal()
    # Public listings: one deal per company listed within the deal window, on its listing day (a
    # company lists once, and a listing's target is a listed company). The other deals are of
    # the other types, in the proportions of ``_TYPE_P``, on days that grow smoothly from the
    # window's start (2012 at the default clock).
    listing = DEAL_TYPES.index("Public listing")
    ipo_rows = np.flatnonzero((listed_day >= start) & (listed_day <= end))[:n_deals]
    n_other = n_deals - ipo_rows.size
    p_other = np.array([0.0 if k == listing else _TYPE_P[t] for k, t in enumerate(DEAL_TYPES)])
    types = np.concatenate(
        [
            rng.choice(len(DEAL_TYPES), size=n_other, p=p_other / p_other.sum()),
            np.full(ipo_rows.size, listing),
        ]
    )
    day = np.concatenate(
        [start + (rng.power(1.7, n_other) * (end - start)).astype(int), listed_day[ipo_rows]]
    )
    fixed_target = np.concatenate([np.full(n_other, -1), ipo_rows])
    shuffle = rng.permutation(n_deals)
    types, day, fixed_target = types[shuffle], day[shuffle], fixed_target[shuffle]
    subtype_of = np.empty(n_deals, dtype=object)
    for t, name in enumerate(DEAL_TYPES):
        rows = np.flatnonzero(types == t)
        options, probs = _SUBTYPES[name]
        subtype_of[rows] = np.array(options, dtype=object)[
            rng.choice(len(options), rows.size, p=probs)
        ]
        _every_subtype(rng, subtype_of, rows, options)
    # A deal's target is a company already founded on the deal's date, drawn by weight among
    # those: deal counts then follow the smooth curve of ``day`` (moving deals of young
    # companies to their founding year used to pile them up in recent years). A listed company
    # raises no private round (Early, Venture, Growth) from its listing day on: such a draw is
    # made again among companies that never list.
    targets = company_idx[_drawn_founded_by(rng, founded_day[company_idx], target_w, day)[:, 0]]
    late = np.isin(types, [DEAL_TYPES.index(t) for t in _PRIVATE_ROUNDS]) & (
        listed_day[targets] <= day
    )
    unlisted = np.flatnonzero(listed_day[company_idx] == never)
    again = _drawn_founded_by(
        rng, founded_day[company_idx[unlisted]], target_w[unlisted], day[late]
    )[:, 0]
    targets[late] = company_idx[unlisted[again]]
    targets = np.where(fixed_target >= 0, fixed_target, targets)
    # Secondaries follow their target's listing, drawn from a stream of their own (spawned,
    # so every other draw, Family A's included, stays as it was).
    _secondaries_fit_listing(
        rng.spawn(1)[0],
        (targets, subtype_of, day),
        company_idx,
        (founded_day, listed_day),
        target_w,
    )
    ids = uuids(rng, n_deals)

    # Participants: drawn with replacement among organisations founded by the deal's date (as
    # targets are), duplicates and the target itself dropped per deal.
    # About 1% of funding rounds have no lead and 1% of M&A deals no buyer (undisclosed): a
    # small share of gaps, documented, so the client's handling of them stays tested.
    n_leads = rng.choice(4, size=n_deals, p=[0.01, 0.66, 0.24, 0.09]).tolist()
    n_others = np.minimum(rng.poisson(2.5, n_deals), 8).tolist()
    n_buyers = rng.choice(3, size=n_deals, p=[0.01, 0.88, 0.11]).tolist()
    slots = _SLOTS
    # Flat lists, row k at [k * width, (k + 1) * width): one list each rather than one per deal.
    fund_pick = (
        investor_idx[_drawn_founded_by(rng, founded_day[investor_idx], activity, day, slots)]
        .ravel()
        .tolist()
    )
    even = np.ones(corporate.size)
    corp_pick = corporate[_drawn_founded_by(rng, founded_day[corporate], even, day, 2)]
    corp_pick = corp_pick.ravel().tolist()
    even = np.ones(pe_firms.size)
    pe_pick = pe_firms[_drawn_founded_by(rng, founded_day[pe_firms], even, day, 2)].ravel().tolist()
    country_null = (rng.random((n_deals, slots)) < 0.02).ravel().tolist()
    money = _money(rng, types, n_deals)

    epoch0 = dt.date(1970, 1, 1).toordinal()
    as_of_s = int(as_of.timestamp())
    # A deal's record is created within 30 days of its date; a deal older than the database
    # (2015 at the default clock) came in within 30 days of its beginning.
    recorded_from = np.maximum(day, dt.date(years.database_from, 1, 1).toordinal())
    created = (
        (recorded_from - epoch0) * 86_400
        + rng.integers(0, 30, n_deals) * 86_400
        + rng.integers(0, 86_400, n_deals)
    )
    created = np.minimum(created, as_of_s - 1)
    updated = seconds_between(rng, created, np.full(n_deals, as_of_s))
    deleted = rng.random(n_deals) < 0.01
    at_least_one(rng, deleted, np.ones(n_deals, dtype=bool))

    types_l, targets_l, day_l, subtype_l = (a.tolist() for a in (types, targets, day, subtype_of))
    buyers, leads, investors = _participants(
        founded_day.tolist(),
        types_l,
        targets_l,
        day_l,
        subtype_l,
        (fund_pick, corp_pick, pe_pick, country_null),
        (n_leads, n_others, n_buyers),
        (set(corporate.tolist()), set(pe_firms.tolist())),
    )
    deleted_l = deleted.tolist()
    _every_investor_leads(orgs, rng, types_l, targets_l, day_l, deleted_l, leads, investors)
    _created_with_first_deal(orgs, created, targets_l, investors)

    # The records, serialised once; the store's columns straight from the draws.
    dates = (day - epoch0).astype("datetime64[D]")
    records = _serialised(
        orgs,
        ids,
        (types_l, subtype_l, targets_l, deleted_l),
        np.datetime_as_string(dates).tolist(),
        money,
        (iso_ts_many(created), iso_ts_many(updated)),
        (buyers, leads, investors),
    )
    org_ids = [o["id"] for o in orgs]
    columns = {
        "id": np.array(ids, dtype=object),
        "deal_type": np.array(DEAL_TYPES, dtype=object)[types],
        "deal_subtype": subtype_of,
        "deal_date": dates,
        **money,
        "target_org": targets.astype(np.int64),
        "deleted": deleted,
        "updated_at": updated.astype(np.int64) * 1_000_000,
    }
    lists = {
        "investor_ids": _list_column(org_ids, investors),
        "lead_ids": _list_column(org_ids, leads),
        "buyer_ids": _list_column(org_ids, buyers),
    }
    return RecordStore(records, columns, lists)


def _participants(
    born_on: list[int],
    types_l: list[int],
    targets_l: list[int],
    day_l: list[int],
    subtype_l: list[str],
    picks: tuple[list[int], list[int], list[int], list[bool]],
    counts: tuple[list[int], list[int], list[int]],
    acquirers: tuple[set[int], set[int]],
) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Buyers, lead investors and investors of every deal, as participant codes (2 * org position,
    + 1 when the appearance shows no country): the first drawn of ``picks`` (flat, per deal: 11
    funds, 2 corporates, 2 PE firms, 11 null-country flags) founded by the deal's date (a pool with
    nobody founded by then gave its earliest member: skipped), each once, never the target;
    ``counts`` are the leads, other investors and buyers wanted. A buyer is of its deal's kind,
    from ``acquirers`` (the corporates and the PE firms): a corporate for a ``Strategic M&A``, a
    PE firm for a ``PE buyout``, also when the funds drawn stand in for the pool's two."""
    fund_pick, corp_pick, pe_pick, country_null = picks
    n_leads, n_others, n_buyers = counts
    corporates, pe_firms = acquirers
    slots = _SLOTS
    ma = DEAL_TYPES.index("M&A")
    buyers: list[tuple[int, ...]] = []
    leads: list[tuple[int, ...]] = []
    investors: list[tuple[int, ...]] = []
    for k in range(len(types_l)):
        today = day_l[k]
        seen = {targets_l[k]}
        row = k * slots
        funds, nulls = fund_pick[row : row + slots], country_null[row : row + slots]
        chosen: list[int] = []
        if types_l[k] == ma:
            buyout = subtype_l[k] == "PE buyout"
            pool = (pe_pick if buyout else corp_pick)[2 * k : 2 * k + 2]
            kind = pe_firms if buyout else corporates
            want = n_buyers[k]
            for s_, j in enumerate([*pool, *funds]):
                if len(chosen) == want:
                    break
                if j not in seen and born_on[j] <= today and j in kind:
                    seen.add(j)
                    chosen.append(2 * j + nulls[s_ % slots])
            buyers.append(tuple(chosen))
            leads.append(())
        else:
            want = n_leads[k] + n_others[k]
            for s_, j in enumerate(funds):
                if len(chosen) == want:
                    break
                if j in seen or born_on[j] > today:
                    continue
                seen.add(j)
                chosen.append(2 * j + nulls[s_])
            buyers.append(())
            leads.append(tuple(chosen[: n_leads[k]]))  # the first ones taken lead
        investors.append(tuple(chosen))
    return buyers, leads, investors


def _serialised(
    orgs: list[dict],
    ids: list[str],
    per_deal: tuple[list[int], list[str], list[int], list[bool]],
    date_text: list[str],
    money: dict[str, np.ndarray],
    stamps: tuple[list[str], list[str]],
    roles: tuple[list[tuple[int, ...]], ...],
) -> list[bytes]:
    """Every deal record as orjson would write its dict, each participant's JSON written once."""
    types_l, subtype_l, targets_l, deleted_l = per_deal
    created_s, updated_s = stamps
    buyers, leads, investors = roles
    n_deals = len(ids)
    part: dict[int, bytes] = {}

    def joined(codes: tuple[int, ...]) -> bytes:
        out = []
        for c in codes:
            b = part.get(c)
            if b is None:
                org = orgs[c >> 1]
                b = part[c] = orjson.dumps(
                    {
                        "id": org["id"],
                        "name": org["name"],
                        "country": None if c & 1 else org["country"],
                        "website": org["website"],
                        "short_name": org["short_name"],
                    }
                )
            out.append(b)
        return b",".join(out)

    cols = {k: _nullable(v) for k, v in money.items()}
    raised = cols["deal_raised"]
    records: list[bytes] = []
    for k in range(n_deals):
        deal_type = DEAL_TYPES[types_l[k]]
        target = orgs[targets_l[k]]
        head = orjson.dumps(
            {
                "id": ids[k],
                "deal_date": date_text[k],
                "deal_type": deal_type,
                "deal_subtype": subtype_l[k],
                "deal_synopsis": _synopsis(
                    target["name"],
                    deal_type,
                    subtype_l[k],
                    raised[k],
                    orgs[leads[k][0] >> 1]["name"] if leads[k] else None,
                    [orgs[c >> 1]["name"] for c in buyers[k]],
                ),
                "deal_valuation": cols["deal_valuation"][k],
                "deal_raised": raised[k],
                "deal_revenue": cols["deal_revenue"][k],
                "deal_ebitda": cols["deal_ebitda"][k],
                "deal_multiples": {
                    "ev_revenue": cols["ev_revenue"][k],
                    "ev_ebitda": cols["ev_ebitda"][k],
                },
                "target_index": targets_l[k],
            }
        )
        records.append(
            b"".join(
                (
                    head[:-1],
                    b',"buyers":[',
                    joined(buyers[k]),
                    b'],"lead_investors":[',
                    joined(leads[k]),
                    b'],"investors":[',
                    joined(investors[k]),
                    b'],"created_at":"',
                    created_s[k].encode(),
                    b'","updated_at":"',
                    updated_s[k].encode(),
                    b'","deleted":true}' if deleted_l[k] else b'","deleted":false}',
                )
            )
        )
    return records


def _list_column(org_ids: list[str], rows: list[tuple[int, ...]]) -> ListColumn:
    """Participant ids of every deal (the vocabulary: the organisations that take part)."""
    flat = np.fromiter((c >> 1 for row in rows for c in row), dtype=np.int64)
    used, codes = np.unique(flat, return_inverse=True)
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    return ListColumn(
        [org_ids[i] for i in used.tolist()],
        codes.astype(np.int32),
        np.concatenate([[0], np.cumsum(lengths)]),
    )


def _created_with_first_deal(
    orgs: list[dict], created: np.ndarray, targets: list[int], investors: list[tuple[int, ...]]
) -> None:
    """Move an organisation's ``created_at`` back to its first deal's record when that came
    first: a database creates the record of a company or investor at the latest when it
    records a deal naming it (as target, investor or buyer). ``created`` is each deal's epoch
    seconds; ``orgs`` are changed in place.

    The deal was dated on or after the organisation's founding and recorded once the
    database had begun, so the record still is.
    """
    k = np.fromiter(map(len, investors), dtype=np.int64, count=len(investors))
    who = np.concatenate(
        [
            np.asarray(targets, dtype=np.int64),
            np.fromiter((c >> 1 for row in investors for c in row), dtype=np.int64),
        ]
    )
    when = np.concatenate([created, np.repeat(created, k)])
    first = np.full(len(orgs), np.iinfo(np.int64).max)
    np.minimum.at(first, who, when)
    own = np.array([o["created_at"][:19] for o in orgs], dtype="datetime64[s]").astype(np.int64)
    earlier = np.flatnonzero(first < own)
    for i, stamp in zip(earlier.tolist(), iso_ts_many(first[earlier])):
        orgs[i]["created_at"] = stamp


def _every_investor_leads(
    orgs: list[dict],
    rng: np.random.Generator,
    types: list[int],
    targets: list[int],
    day: list[int],
    deleted: list[bool],
    leads: list[tuple[int, ...]],
    investors: list[tuple[int, ...]],
) -> None:
    """Make every listed investor a lead investor or buyer of at least one live deal.

    Section 4.3: investors are organisations that led funding rounds or acquired
    companies. An investor that only co-invested becomes a lead of one of its
    rounds; one with no deal at all leads a random funding round dated on or after its
    founding. ``leads`` and ``investors`` (participant codes) are changed in place.
    """
    ma = DEAL_TYPES.index("M&A")
    leading: set[int] = set()
    rounds_of: dict[int, list[int]] = {}
    for k in range(len(types)):
        if deleted[k]:
            continue
        if types[k] == ma:  # buyers are its investors
            leading.update(c >> 1 for c in investors[k])
            continue
        leading.update(c >> 1 for c in leads[k])
        for c in investors[k]:
            rounds_of.setdefault(c >> 1, []).append(k)
    # Live funding rounds by date, for investors that took part in none.
    funding = sorted((day[k], k) for k in range(len(types)) if types[k] != ma and not deleted[k])
    funding_days = [d for d, _ in funding]
    founded_day = year_start_days([o["founded"] for o in orgs]).tolist()

    def room(k: int) -> bool:  # a funding round has 1 to MAX_LEADS leads (docs/sandbox.md)
        return len(leads[k]) < MAX_LEADS

    for index, org in enumerate(orgs):
        if not org["_investor"] or index in leading:
            continue
        own = rounds_of.get(index)
        pick = own[int(rng.integers(0, len(own)))] if own else None
        if own and pick is not None and not room(pick):
            pick = next((k for k in own if room(k)), None)
        if pick is not None:
            member = next(c for c in investors[pick] if c >> 1 == index)
        else:
            first = bisect.bisect_left(funding_days, founded_day[index])
            choices = (
                [
                    k
                    for k in (funding[int(i)][1] for i in rng.integers(first, len(funding), 20))
                    if targets[k] != index and room(k)
                ]
                if first < len(funding)
                else []
            )
            if not choices:
                continue
            pick = choices[0]
            member = 2 * index
            investors[pick] = (*investors[pick], member)
        leads[pick] = (*leads[pick], member)
        leading.add(index)


def _synopsis(
    target: str,
    deal_type: str,
    subtype: str,
    raised: float | None,
    lead: str | None,
    buyers: list[str],
) -> str:
    if deal_type == "M&A":
        who = " and ".join(buyers) or "An undisclosed buyer"
        return f"{who} acquired {target} ({subtype})."
    amount = f"${raised:,.1f}m" if raised is not None else "an undisclosed amount"
    led = f", led by {lead}" if lead else ""
    return f"{target} raised {amount} in a {subtype} {deal_type.lower()} round{led}."
