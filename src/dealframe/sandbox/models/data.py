"""Deterministic synthetic data for the sandbox.

``generate(seed, scale)`` returns a :class:`Dataset` of plain wire-form
records: organisations (companies and investors), deals, and the listed
companies of Family A with their monthly series. The same seed and scale give
the same records, byte for byte once serialised. Derived figures (deal
activity, investor stats, sub-collections) are computed by the store from these
records, so that changes made later stay consistent.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np

from ..arguments import scale_number, whole
from ..vocab import (
    DEAL_TYPES,
    FUNDAMENTAL_FIELDS,
    GROUP_SUM_AND_MEDIAN,
    GROUP_SUM_ONLY,
    TIME_SERIES_FIELDS,
    VALUATION_FIELDS,
)
from .geography import COUNTRIES
from .names import company_names, firm_names, person_names, slugify, ticker_of

__all__ = ["AS_OF", "Dataset", "generate", "iso_ts"]

#: The sandbox clock's default "as of" moment.
AS_OF = dt.datetime(2026, 6, 30, tzinfo=dt.UTC)

VERTICALS = (
    "Fintech",
    "Healthtech",
    "Enterprise Software",
    "Cybersecurity",
    "E-commerce",
    "Edtech",
    "Insurtech",
    "Proptech",
    "Climate Tech",
    "AI & Machine Learning",
    "Biotech",
    "Logistics",
    "Adtech",
    "Gaming",
    "Mobility",
    "Agtech",
    "Foodtech",
    "HR Tech",
    "Legal Tech",
    "Media",
    "Semiconductors",
    "Telecom",
    "Travel",
    "Web3",
    "DevTools",
    "Data Infrastructure",
    "Marketplaces",
    "Robotics",
    "Space Tech",
    "Retail Tech",
)
THEMES = (
    "Generative AI",
    "Embedded Finance",
    "Open Banking",
    "Sustainability",
    "Remote Work",
    "Creator Economy",
    "Digital Health",
    "Supply Chain Resilience",
    "Decarbonisation",
    "Vertical SaaS",
    "Low-code",
    "Quantum",
    "Privacy",
    "BNPL",
    "Electrification",
    "Circular Economy",
)
CLIENT_FOCUS = ("B2B", "B2C", "B2B2C", "B2G")
REVENUE_MODELS = (
    "SaaS",
    "Marketplace",
    "Transactional",
    "Advertising",
    "Hardware",
    "Licensing",
    "Services",
    "Subscription",
)
PRIVATE_OWNERSHIP = ("Privately held", "VC-backed", "PE-backed", "Subsidiary")
FIRM_TYPES = (
    "Venture capital",
    "Private equity",
    "Family office",
    "Accelerator",
    "Corporate venture",
)

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

MONTHS_OF_SERIES = 120


@dataclass
class Dataset:
    """Everything the sandbox serves, as plain records (the generator's output).

    The stores keep these records serialised, one bytes object per row, with
    numpy columns beside them (:mod:`.records`); this form exists only while
    generating.

    Attributes
    ----------
    orgs : list of dict
        Every organisation in company-profile form (without the derived
        ``deal_activity``), keyed by position; ``_company`` and ``_investor``
        say which lists it belongs to.
    deals : list of dict
        Deals: the list fields except ``target``, plus ``target_index`` (the target's
        position in ``orgs``: every target field is the company's) and the full
        ``investors``.
    listed : list of dict
        Family A companies: ``org`` (index into ``orgs``), ``sku_v1``,
        ``sku_v2`` and ``current`` (CompanyCurrentData without the SKU).
    months : list of str
        The ``YYYY-MM`` months of the series.
    series : numpy.ndarray
        ``len(listed) x len(TIME_SERIES_FIELDS) x len(months)`` floats, NaN
        where a month has no value.
    """

    seed: int
    scale: float
    as_of: dt.datetime
    orgs: list[dict] = field(default_factory=list)
    deals: list[dict] = field(default_factory=list)
    listed: list[dict] = field(default_factory=list)
    months: list[str] = field(default_factory=list)
    series: np.ndarray = field(default_factory=lambda: np.empty((0, 0, 0)))


def iso_ts(moment: dt.datetime) -> str:
    """Format a UTC timestamp the way the service does (``+00:00`` offset)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def iso_ts_many(seconds: np.ndarray) -> list[str]:
    """Format many UTC epoch seconds like :func:`iso_ts` (vectorised)."""
    text = np.datetime_as_string(
        np.asarray(seconds, dtype="int64").astype("datetime64[s]"), unit="s"
    )
    return [t + "+00:00" for t in text.tolist()]


def _rounded(values: np.ndarray, digits: int) -> list[float | None]:
    """Round an array and turn NaN/inf into None, as plain Python floats."""
    arr = np.round(np.asarray(values, dtype=float), digits)
    return [None if v != v or v in (np.inf, -np.inf) else v for v in arr.tolist()]


def _subsets(
    rng: np.random.Generator, vocab: tuple[str, ...], n: int, lo: int, hi: int
) -> list[list[str]]:
    """``n`` random sorted subsets of ``vocab`` with ``lo..hi`` members each."""
    k = rng.integers(lo, hi + 1, n)
    order = np.argsort(rng.random((n, len(vocab))), axis=1)
    # the first ``hi`` picks of every row (at most the whole vocabulary), flat: one list, not
    # ``n`` lists that the garbage collector walks while the records are being built
    w = min(hi, len(vocab))
    firsts = order[:, :w].ravel().tolist()
    return [
        [vocab[j] for j in sorted(firsts[i * w : i * w + min(kk, w)])]
        for i, kk in enumerate(k.tolist())
    ]


def _seconds_between(rng: np.random.Generator, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Uniform epoch seconds in ``[lo, hi)`` element-wise."""
    span = np.maximum(hi - lo, 1)
    return lo + (rng.random(lo.shape) * span).astype("int64")


def _uuids(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` version-4 UUIDs from ``16 * n`` random bytes: ``str(uuid.UUID(bytes=b, version=4))``
    of each 16, formatted without building a ``UUID`` object per id."""
    raw = np.frombuffer(rng.bytes(16 * n), dtype=np.uint8).reshape(n, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40  # the version, 4
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = raw.tobytes().hex()
    return [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-{h[i + 16 : i + 20]}-{h[i + 20 : i + 32]}"
        for i in range(0, 32 * n, 32)
    ]


def _r(x: float, digits: int = 3) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), digits)


def generate(seed: int = 7, scale: float = 1.0, as_of: dt.datetime = AS_OF) -> Dataset:
    """Generate the sandbox's data.

    Parameters
    ----------
    seed : int
        Seed of every random draw.
    scale : float
        1.0 gives 1,000 listed companies, 20,000 companies, 3,000 investors
        and 50,000 deals; counts scale linearly with small floors. Above 0 and at most
        :data:`~dealframe.sandbox.arguments.MAX_SCALE` (20).
    as_of : datetime
        The sandbox clock; nothing is dated after it.

    Returns
    -------
    Dataset

    Examples
    --------
    >>> ds = generate(seed=1, scale=0.02)
    >>> len(ds.deals) > 0 and len(ds.listed) > 0
    True
    """
    scale_number(scale)
    whole("seed", seed)
    rng = np.random.default_rng(seed)
    n_companies = max(int(20_000 * scale), 400)
    n_investors = max(int(3_000 * scale), 120)
    n_listed = max(int(1_000 * scale), 60)
    n_deals = max(int(50_000 * scale), 1_000)
    n_corporate_investors = n_investors // 4
    n_firms = n_investors - n_corporate_investors

    ds = Dataset(seed=seed, scale=scale, as_of=as_of)
    _make_orgs(ds, rng, n_companies, n_firms, n_corporate_investors, n_listed)
    _make_deals(ds, rng, n_deals)
    _every_investor_leads(ds, rng)
    _make_listed(ds, rng)
    return ds


# --------------------------------------------------------------------------- organisations


def _make_orgs(
    ds: Dataset,
    rng: np.random.Generator,
    n_companies: int,
    n_firms: int,
    n_corporate_investors: int,
    n_listed: int,
) -> None:
    as_of_s = int(ds.as_of.timestamp())
    n = n_companies + n_firms
    names = company_names(rng, n_companies) + firm_names(rng, n_firms)
    # A few companies share a name with another one (in another country) so that resolve
    # returns ambiguous matches for exact names.
    dup = rng.choice(n_companies, size=max(n_companies // 80, 3), replace=False)
    for i, j in zip(dup.tolist(), rng.integers(0, n_companies, dup.size).tolist()):
        names[i] = names[j]
    ids = _uuids(rng, n)
    weights = np.array([c.weight for c in COUNTRIES])
    country_idx = rng.choice(len(COUNTRIES), size=n, p=weights / weights.sum())
    country_idx[: len(COUNTRIES)] = np.arange(len(COUNTRIES))  # every country at least once
    founded = np.clip(2025 - rng.exponential(11.0, n).astype(int), 1900, 2024)
    ceos = person_names(rng, n)

    # Listed companies: older companies. Corporate investors: half listed, half private.
    eligible = np.flatnonzero(founded[:n_companies] <= 2019)
    listed = np.sort(rng.choice(eligible, size=min(n_listed, eligible.size), replace=False))
    is_listed = np.zeros(n, dtype=bool)
    is_listed[listed] = True
    corp_listed = rng.choice(
        listed, size=min(n_corporate_investors // 2, listed.size), replace=False
    )
    others = np.setdiff1d(np.arange(n_companies), listed)
    corp_private = rng.choice(others, size=n_corporate_investors - corp_listed.size, replace=False)
    corporate = np.zeros(n, dtype=bool)
    corporate[corp_listed] = True
    corporate[corp_private] = True
    is_company = np.arange(n) < n_companies

    created_lo = int(dt.datetime(2015, 1, 1, tzinfo=dt.UTC).timestamp())
    created = _seconds_between(rng, np.full(n, created_lo), np.full(n, as_of_s - 30 * 86_400))
    updated = _seconds_between(rng, created, np.full(n, as_of_s))
    created_s, updated_s = iso_ts_many(created), iso_ts_many(updated)
    # IPO dates lean early, so most listed companies have the whole series.
    ipo_lo = np.array([dt.date(max(int(f) + 3, 1995), 1, 1).toordinal() for f in founded])
    ipo_hi = (ds.as_of.date() - dt.timedelta(days=400)).toordinal()
    ipo_day = ipo_lo + ((ipo_hi - ipo_lo) * rng.random(n) ** 2.5).astype(int)
    verticals = _subsets(rng, VERTICALS, n, 1, 3)
    no_vertical = (rng.random(n) < 0.03).tolist()
    themes = _subsets(rng, THEMES, n, 0, 3)
    client_focus = _subsets(rng, CLIENT_FOCUS, n, 1, 2)
    revenue_model = _subsets(rng, REVENUE_MODELS, n, 1, 2)
    city_pick = rng.integers(0, 10, n).tolist()
    area_null = (rng.random(n) < 0.4).tolist()
    ceo_null = (rng.random(n) < 0.2).tolist()
    active = (rng.random(n) < 0.92).tolist()
    deleted = (rng.random(n) < 0.01).tolist()
    ownership_pick = rng.integers(0, len(PRIVATE_OWNERSHIP), n).tolist()
    firm_pick = rng.integers(0, len(FIRM_TYPES), n).tolist()
    employees = ((rng.lognormal(4.5, 1.6, n)).astype(int) + 1).tolist()
    employees_null = (rng.random(n) < 0.15).tolist()
    # Plain Python values from here on, so the records serialise as they are.
    country_idx, founded, ipo_day = country_idx.tolist(), founded.tolist(), ipo_day.tolist()
    is_listed_l, corporate_l, is_company_l = (
        is_listed.tolist(),
        corporate.tolist(),
        is_company.tolist(),
    )
    for i in range(n):
        c = COUNTRIES[country_idx[i]]
        name = names[i]
        city = c.cities[city_pick[i] % len(c.cities)]
        if is_company_l[i]:
            vert = [] if no_vertical[i] else verticals[i]
            cf, rm = client_focus[i], revenue_model[i]
            if corporate_l[i] or is_listed_l[i]:
                company_type = ["Corporate"]
            else:
                company_type = ["Startup"] if founded[i] >= 2015 else ["Scaleup"]
        else:
            vert, cf, rm = verticals[i][:2], [], []
            company_type = [FIRM_TYPES[firm_pick[i]]]
        if is_listed_l[i]:
            ownership = "Publicly listed"
        elif is_company_l[i]:
            ownership = PRIVATE_OWNERSHIP[ownership_pick[i]]
        else:
            ownership = "Privately held"
        slug = slugify(name)
        ds.orgs.append(
            {
                "id": ids[i],
                "name": name,
                "short_name": name.split(" ")[0],
                "description": (
                    f"{name} is a {company_type[0].lower()} based in {city} working in "
                    f"{(vert[0] if vert else 'technology').lower()}."
                ),
                "website": f"https://www.{slug}.com",
                "linkedin": f"https://www.linkedin.com/company/{slug}",
                "country": c.iso3,
                "region": c.region,
                "city": city,
                "area": None if area_null[i] else f"Greater {city}",
                "founded": founded[i],
                "verticals": vert,
                "themes": themes[i],
                "client_focus": cf,
                "revenue_model": rm,
                "company_type": company_type,
                "ownership": ownership,
                "active": bool(is_listed_l[i] or active[i]),
                "ipoed": dt.date.fromordinal(ipo_day[i]).isoformat() if is_listed_l[i] else None,
                "ceo": None if ceo_null[i] else ceos[i],
                "created_at": created_s[i],
                "updated_at": updated_s[i],
                "deleted": bool(deleted[i] and not is_listed_l[i]),
                "is_public": bool(is_listed_l[i]),
                "employee_count": None if employees_null[i] else employees[i],
                "stock_listing": None,
                "valuation": None,
                "fundamentals": None,
                "_company": bool(is_company_l[i]),
                "_investor": bool(corporate_l[i] or not is_company_l[i]),
                "_country": c,
            }
        )
    _listing_details(ds, rng, listed)
    _private_financials(ds, rng, n_companies, is_listed)


def _listing_details(ds: Dataset, rng: np.random.Generator, listed: np.ndarray) -> None:
    """Stock listings, market valuation and fundamentals of listed companies."""
    used: set[tuple[str, str]] = set()
    for i in listed:
        org = ds.orgs[i]
        c = org["_country"]
        exchange = c.exchanges[int(rng.integers(0, len(c.exchanges)))]
        ticker = ticker_of(org["name"], int(rng.integers(3, 5)))
        tries = 0
        while (exchange, ticker) in used:  # unique per exchange, so v1 SKUs are unique
            tries += 1
            # 26 four-letter variants per prefix run out at large scales: then grow a letter.
            keep = 3 + tries // 40
            ticker = ticker[:keep] + chr(ord("A") + int(rng.integers(0, 26)))
        used.add((exchange, ticker))
        org["stock_listing"] = {
            "id": _uuids(rng, 1)[0],
            "ticker": ticker,
            "exchange": exchange,
            "currency": c.currency,
        }
        market_cap = float(rng.lognormal(np.log(1500), 1.8))
        ev = market_cap * float(np.clip(rng.normal(1.1, 0.2), 0.5, 2.5))
        revenue = ev / float(rng.lognormal(np.log(4), 0.8))
        margin = float(rng.normal(0.12, 0.18))
        growth = float(rng.normal(0.12, 0.15))
        ebitda = revenue * margin
        org["valuation"] = {
            "market_cap": _r(market_cap),
            "enterprise_value": _r(ev),
            "price_to_book": _r(rng.lognormal(1.0, 0.7), 4),
            "price_to_sales": _r(market_cap / revenue, 4),
            "price_to_cash_flow": _r(rng.lognormal(2.6, 0.6), 4) if rng.random() > 0.1 else None,
            "price_to_free_cash_flow": _r(rng.lognormal(3.0, 0.7), 4)
            if rng.random() > 0.15
            else None,
            "beta": _r(rng.normal(1.0, 0.35), 4),
            "updated_at": iso_ts(ds.as_of - dt.timedelta(days=int(rng.integers(0, 5)))),
        }
        org["fundamentals"] = _fundamentals(rng, ev, revenue, ebitda, growth, margin)
        org["_fin"] = {
            "market_cap": market_cap,
            "ev": ev,
            "revenue": revenue,
            "margin": margin,
            "growth": growth,
        }


def _fundamentals(
    rng: np.random.Generator, ev: float, revenue: float, ebitda: float, growth: float, margin: float
) -> dict:
    rev_ntm = revenue * (1 + growth)
    ebitda_ntm = rev_ntm * (margin + 0.01)
    pos = lambda x: x if x > 0 else np.nan  # noqa: E731 - multiples of negative EBITDA are not meaningful
    pe = float(rng.lognormal(np.log(22), 0.6))
    return {
        "revenue_fy": _r(revenue),
        "ebitda_fy": _r(ebitda),
        "ev_revenue_ntm": _r(ev / rev_ntm, 4),
        "ev_revenue_ltm": _r(ev / revenue, 4),
        "ev_revenue_fy": _r(ev / revenue, 4),
        "ev_ebitda_ntm": _r(ev / pos(ebitda_ntm), 4),
        "ev_ebitda_ltm": _r(ev / pos(ebitda), 4),
        "ev_ebitda_fy": _r(ev / pos(ebitda), 4),
        "pe_ntm": _r(pe * 0.85, 4) if margin > 0 else None,
        "pe_ltm": _r(pe, 4) if margin > 0 else None,
        "pe_fy": _r(pe, 4) if margin > 0 else None,
        "ebitda_margin_ntm": _r((margin + 0.01) * 100, 4),
        "ebitda_margin_ltm": _r(margin * 100, 4),
        "ebitda_margin_fy": _r(margin * 100, 4),
        "revenue_growth_ntm_ltm": _r(growth * 100, 4),
        "revenue_growth_fy1_fy": _r(growth * 100 * 0.9, 4),
        "rule_of_40": _r((growth + margin + 0.01) * 100, 4),
        "rule_of_40_ltm": _r((growth * 0.9 + margin) * 100, 4),
    }


def _private_financials(
    ds: Dataset, rng: np.random.Generator, n_companies: int, is_listed: np.ndarray
) -> None:
    """Private companies: valuation unknown, fundamentals known for about one in five."""
    for i, org in enumerate(ds.orgs):
        if is_listed[i]:
            continue
        org["valuation"] = dict.fromkeys(VALUATION_FIELDS)
        if i < n_companies and rng.random() < 0.2:
            revenue = float(rng.lognormal(np.log(20), 1.3))
            margin = float(rng.normal(-0.05, 0.25))
            growth = float(rng.normal(0.35, 0.3))
            ev = revenue * float(rng.lognormal(np.log(6), 0.8))
            org["fundamentals"] = _fundamentals(rng, ev, revenue, revenue * margin, growth, margin)
        else:
            org["fundamentals"] = dict.fromkeys(FUNDAMENTAL_FIELDS)


# --------------------------------------------------------------------------- deals


def _make_deals(ds: Dataset, rng: np.random.Generator, n_deals: int) -> None:
    orgs = ds.orgs
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

    types = rng.choice(len(DEAL_TYPES), size=n_deals, p=[_TYPE_P[t] for t in DEAL_TYPES])
    subtype_of = np.empty(n_deals, dtype=object)
    for t, name in enumerate(DEAL_TYPES):
        mask = types == t
        options, probs = _SUBTYPES[name]
        subtype_of[mask] = np.array(options, dtype=object)[
            rng.choice(len(options), mask.sum(), p=probs)
        ]
    start = dt.date(2012, 1, 1).toordinal()
    end = ds.as_of.date().toordinal()
    day = start + (rng.power(1.7, n_deals) * (end - start)).astype(int)
    # A deal's target is a company already founded on the deal's date, drawn by weight among
    # those: deal counts then follow the smooth curve of ``day`` (moving deals of young
    # companies to their founding year used to pile them up in recent years).
    founded_day = np.array([dt.date(orgs[i]["founded"], 1, 1).toordinal() for i in company_idx])
    order = np.argsort(founded_day, kind="stable")
    cumulative = np.cumsum(target_w[order])
    eligible = np.maximum(np.searchsorted(founded_day[order], day, side="right"), 1)
    pick = np.searchsorted(cumulative, rng.random(n_deals) * cumulative[eligible - 1], side="right")
    targets = company_idx[order[np.minimum(pick, eligible - 1)]]
    ids = _uuids(rng, n_deals)

    # Participants: drawn with replacement, duplicates and the target itself dropped per deal.
    # About 1% of funding rounds have no lead and 1% of M&A deals no buyer (undisclosed): a
    # small share of gaps, documented, so the client's handling of them stays tested.
    n_leads = rng.choice(4, size=n_deals, p=[0.01, 0.66, 0.24, 0.09]).tolist()
    n_others = np.minimum(rng.poisson(2.5, n_deals), 8).tolist()
    n_buyers = rng.choice(3, size=n_deals, p=[0.01, 0.88, 0.11]).tolist()
    slots = 11
    # Flat lists, row k at [k * width, (k + 1) * width): one list each rather than one per deal
    # (200,000 lists at scale 1 that the garbage collector walked while the deals were built).
    fund_pick = (
        investor_idx[
            rng.choice(investor_idx.size, size=(n_deals, slots), p=activity / activity.sum())
        ]
        .ravel()
        .tolist()
    )
    corp_pick = corporate[rng.integers(0, corporate.size, (n_deals, 2))].ravel().tolist()
    pe_pick = pe_firms[rng.integers(0, pe_firms.size, (n_deals, 2))].ravel().tolist()
    country_null = (rng.random((n_deals, slots)) < 0.02).ravel().tolist()
    # A deal's target is its company, so every target field (country included) is read from the
    # company (the store joins them). The draw that used to null 1% of target countries is kept
    # so that every later draw, and so the rest of the data, stays as it was.
    rng.random(n_deals)
    money = _deal_money(rng, types, n_deals)

    epoch0 = dt.date(1970, 1, 1).toordinal()
    as_of_s = int(ds.as_of.timestamp())
    created = (
        (day - epoch0) * 86_400
        + rng.integers(0, 30, n_deals) * 86_400
        + rng.integers(0, 86_400, n_deals)
    )
    created = np.minimum(created, as_of_s - 1)
    updated = _seconds_between(rng, created, np.full(n_deals, as_of_s))
    created_s, updated_s = iso_ts_many(created), iso_ts_many(updated)
    deleted = (rng.random(n_deals) < 0.01).tolist()
    ma = DEAL_TYPES.index("M&A")

    # One participant dict per (organisation, country shown), shared by every deal it takes
    # part in: nothing changes them in place, and fewer objects make generation cheaper.
    templates: dict[tuple[int, bool], dict] = {}

    def participant(j: int, null_country: bool) -> dict:
        tpl = templates.get((j, null_country))
        if tpl is None:
            tpl = templates[(j, null_country)] = _participant(orgs[j], null_country)
        return tpl

    types, targets, day, subtype_of = (a.tolist() for a in (types, targets, day, subtype_of))
    for k in range(n_deals):
        target = orgs[targets[k]]
        subtype = subtype_of[k]
        seen = {target["id"]}
        buyers: list[dict] = []
        leads: list[dict] = []
        investors: list[dict] = []
        row = slice(k * slots, (k + 1) * slots)
        funds, nulls = fund_pick[row], country_null[row]
        if types[k] == ma:
            pool = (pe_pick if subtype == "PE buyout" else corp_pick)[2 * k : 2 * k + 2]
            for s_, j in enumerate([*pool, *funds]):
                if len(buyers) == n_buyers[k]:
                    break
                if orgs[j]["id"] not in seen:
                    seen.add(orgs[j]["id"])
                    buyers.append(participant(j, nulls[s_ % slots]))
            investors = list(buyers)
        else:
            want = n_leads[k] + n_others[k]
            for s_, j in enumerate(funds):
                if len(investors) == want:
                    break
                if orgs[j]["id"] in seen:
                    continue
                seen.add(orgs[j]["id"])
                p = participant(j, nulls[s_])
                if len(leads) < n_leads[k]:  # the first ones taken lead (a repeat is skipped)
                    leads.append(p)
                investors.append(p)
        m = money[k]
        deal_type = DEAL_TYPES[types[k]]
        ds.deals.append(
            {
                "id": ids[k],
                "deal_date": dt.date.fromordinal(day[k]).isoformat(),
                "deal_type": deal_type,
                "deal_subtype": subtype,
                "deal_synopsis": _synopsis(target, deal_type, subtype, m, leads, buyers),
                **m,
                "target_index": targets[k],
                "buyers": buyers,
                "lead_investors": leads,
                "investors": investors,
                "created_at": created_s[k],
                "updated_at": updated_s[k],
                "deleted": deleted[k],
            }
        )


def _participant(org: dict, null_country: bool = False) -> dict:
    return {
        "id": org["id"],
        "name": org["name"],
        "country": None if null_country else org["country"],
        "website": org["website"],
        "short_name": org["short_name"],
    }


def _deal_money(rng: np.random.Generator, types: np.ndarray, n: int) -> list[dict]:
    """Money fields of every deal: log-normal, with nulls and about 1.5% outlier multiples."""
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
    cols = [
        _rounded(a, d)
        for a, d in (
            (valuation, 3),
            (raised, 3),
            (revenue, 3),
            (ebitda, 3),
            (ev_revenue, 4),
            (ev_ebitda, 4),
        )
    ]
    return [
        {
            "deal_valuation": v,
            "deal_raised": r,
            "deal_revenue": rv,
            "deal_ebitda": e,
            "deal_multiples": {"ev_revenue": evr, "ev_ebitda": eve},
        }
        for v, r, rv, e, evr, eve in zip(*cols)
    ]


#: Most lead investors of a funding round (docs/sandbox.md, "Participant roles").
MAX_LEADS = 3


def _every_investor_leads(ds: Dataset, rng: np.random.Generator) -> None:
    """Make every listed investor a lead investor or buyer of at least one live deal.

    Section 4.3: investors are organisations that led funding rounds or acquired
    companies. An investor that only co-invested becomes a lead of one of its
    rounds; one with no deal at all leads a random funding round.
    """
    leading: set[str] = set()
    rounds_of: dict[str, list[int]] = {}
    for k, d in enumerate(ds.deals):
        if d["deleted"]:
            continue
        leading.update(p["id"] for p in d["lead_investors"])
        leading.update(p["id"] for p in d["buyers"])
        if d["deal_type"] != "M&A":
            for p in d["investors"]:
                rounds_of.setdefault(p["id"], []).append(k)
    funding = [k for k, d in enumerate(ds.deals) if d["deal_type"] != "M&A" and not d["deleted"]]

    def room(k: int) -> bool:  # a funding round has 1 to MAX_LEADS leads (docs/sandbox.md)
        return len(ds.deals[k]["lead_investors"]) < MAX_LEADS

    for index, org in enumerate(ds.orgs):
        if not org["_investor"] or org["id"] in leading:
            continue
        own = rounds_of.get(org["id"])
        pick = own[int(rng.integers(0, len(own)))] if own else None
        if own and pick is not None and not room(pick):
            pick = next((k for k in own if room(k)), None)
        if pick is not None:
            deal = ds.deals[pick]
            member = next(p for p in deal["investors"] if p["id"] == org["id"])
        else:
            choices = (
                [
                    k
                    for k in (funding[int(i)] for i in rng.integers(0, len(funding), 20))
                    if ds.deals[k]["target_index"] != index and room(k)
                ]
                if funding
                else []
            )
            if not choices:
                continue
            deal = ds.deals[choices[0]]
            member = _participant(org)
            deal["investors"].append(member)
        deal["lead_investors"].append(member)
        target = ds.orgs[deal["target_index"]]
        deal["deal_synopsis"] = _synopsis(
            target,
            deal["deal_type"],
            deal["deal_subtype"],
            deal,
            deal["lead_investors"],
            deal["buyers"],
        )
        leading.add(org["id"])


def _synopsis(
    target: dict, deal_type: str, subtype: str, money: dict, leads: list[dict], buyers: list[dict]
) -> str:
    if deal_type == "M&A":
        who = " and ".join(b["name"] for b in buyers) or "An undisclosed buyer"
        return f"{who} acquired {target['name']} ({subtype})."
    amount = (
        f"${money['deal_raised']:,.1f}m"
        if money["deal_raised"] is not None
        else "an undisclosed amount"
    )
    led = f", led by {leads[0]['name']}" if leads else ""
    return f"{target['name']} raised {amount} in a {subtype} {deal_type.lower()} round{led}."


# --------------------------------------------------------------------------- Family A


def _make_listed(ds: Dataset, rng: np.random.Generator) -> None:
    listed = [i for i, o in enumerate(ds.orgs) if o["is_public"]]
    first_v2: dict[tuple[str, str], int] = {}
    last = np.datetime64(ds.as_of.strftime("%Y-%m"), "M")
    months = ds.months = np.arange(last - MONTHS_OF_SERIES + 1, last + 1).astype(str).tolist()
    n, f, t = len(listed), len(TIME_SERIES_FIELDS), len(months)
    series = np.full((n, f, t), np.nan)
    # Force a few v2 collisions: same ticker on two exchanges of one country.
    by_country: dict[str, list[int]] = {}
    for i in listed:
        by_country.setdefault(ds.orgs[i]["country"], []).append(i)
    # Never onto a ticker already taken on b's exchange: v1 SKUs (<EXCHANGE>_<TICKER>) stay unique.
    taken = {
        (ds.orgs[i]["stock_listing"]["exchange"], ds.orgs[i]["stock_listing"]["ticker"])
        for i in listed
    }
    for members in by_country.values():
        multi = [i for i in members if len(ds.orgs[i]["_country"].exchanges) > 1]
        for a, b in zip(multi[0:6:2], multi[1:6:2]):
            la, lb = ds.orgs[a]["stock_listing"], ds.orgs[b]["stock_listing"]
            if la["exchange"] != lb["exchange"] and (lb["exchange"], la["ticker"]) not in taken:
                taken.discard((lb["exchange"], lb["ticker"]))
                lb["ticker"] = la["ticker"]
                taken.add((lb["exchange"], lb["ticker"]))
    fi = {name: k for k, name in enumerate(TIME_SERIES_FIELDS)}
    for row, i in enumerate(listed):
        org = ds.orgs[i]
        listing, fin = org["stock_listing"], org["_fin"]
        key = (listing["ticker"], org["country"])
        nth = first_v2.get(key, 0)
        first_v2[key] = nth + 1
        sku_v2 = f"{listing['ticker']}-{org['country']}" + (f".{nth}" if nth else "")
        sku_v1 = f"{listing['exchange']}_{listing['ticker']}"
        _fill_series(series[row], fi, fin, org, months, rng)
        ds.listed.append(
            {
                "org": i,
                "sku_v1": sku_v1,
                "sku_v2": sku_v2,
                "current": _current(org, series[row], fi, rng),
            }
        )
    ds.series = series


def _fill_series(
    out: np.ndarray,
    fi: dict[str, int],
    fin: dict,
    org: dict,
    months: list[str],
    rng: np.random.Generator,
) -> None:
    t = len(months)
    steps = rng.normal(0.004, 0.07, t)
    log_path = np.cumsum(steps[::-1])[::-1] - steps[-1]  # 0 at the last month
    mcap = fin["market_cap"] * np.exp(-log_path)
    ev_ratio = np.clip(
        fin["ev"] / fin["market_cap"] + rng.normal(0, 0.02, t).cumsum() * 0.2, 0.4, 3
    )
    ev = mcap * ev_ratio
    years_back = (t - 1 - np.arange(t)) / 12
    growth = fin["growth"]
    revenue = (
        fin["revenue"] / (1 + max(growth, -0.5)) ** years_back * np.exp(rng.normal(0, 0.02, t))
    )
    margin = fin["margin"] + rng.normal(0, 0.01, t).cumsum() * 0.3
    gross = np.clip(0.55 + margin * 0.8 + rng.normal(0, 0.01, t), 0.05, 0.95)
    g_path = growth + rng.normal(0, 0.01, t).cumsum() * 0.3
    ebitda = revenue * margin
    ebitda_ntm = revenue * (1 + g_path) * (margin + 0.01)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[fi["marketCap"]] = mcap
        out[fi["enterpriseValue"]] = ev
        out[fi["revenueLtm"]] = revenue
        out[fi["evRevenueLtm"]] = ev / revenue
        out[fi["evRevenueNtm"]] = ev / (revenue * (1 + g_path))
        out[fi["evEbitdaLtm"]] = np.where(ebitda > 0, ev / ebitda, np.nan)
        out[fi["evEbitdaNtm"]] = np.where(ebitda_ntm > 0, ev / ebitda_ntm, np.nan)
        out[fi["marginGrossLtm"]] = gross * 100
        out[fi["marginEbitdaLtm"]] = margin * 100
        out[fi["revenueGrowthNtmLtm"]] = g_path * 100
    # Missing months: nothing before the listing month, gaps for some companies, stray holes.
    ipo_month = org["ipoed"][:7]
    start = int(np.searchsorted(np.array(months), ipo_month))
    out[:, :start] = np.nan
    if rng.random() < 0.06:
        g0 = int(rng.integers(0, t - 3))
        out[:, g0 : g0 + int(rng.integers(1, 4))] = np.nan
    holes = rng.random(out.shape) < 0.004
    out[holes] = np.nan
    out[:, -1] = np.where(np.isnan(out[:, -1]), out[:, -2], out[:, -1])  # current month present
    np.round(out, 4, out=out)


def _current(org: dict, rows: np.ndarray, fi: dict[str, int], rng: np.random.Generator) -> dict:
    """CompanyCurrentData (without sku) from the last month of the series."""
    last = {name: rows[k, -1] for name, k in fi.items()}
    c = org["_country"]
    rate = c.rate_to_usd
    revenue_ltm = last["revenueLtm"]
    growth = last["revenueGrowthNtmLtm"] / 100
    margin = last["marginEbitdaLtm"] / 100
    revenue_ntm = revenue_ltm * (1 + growth)
    ebitda_ltm = revenue_ltm * margin
    ebitda_ntm = revenue_ntm * (margin + 0.01)
    growth_ltm = growth * 0.9 * 100
    values = {
        "marketCap": last["marketCap"],
        "enterpriseValue": last["enterpriseValue"],
        "revenueLtm": revenue_ltm,
        "revenueNtm": revenue_ntm,
        "ebitdaLtm": ebitda_ltm,
        "ebitdaNtm": ebitda_ntm,
        "evRevenueLtm": last["evRevenueLtm"],
        "evRevenueNtm": last["evRevenueNtm"],
        "evEbitdaLtm": last["evEbitdaLtm"],
        "marginGrossLtm": last["marginGrossLtm"],
        "marginEbitdaLtm": last["marginEbitdaLtm"],
        "revenueGrowthNtmLtm": last["revenueGrowthNtmLtm"],
        "ruleOf40Ltm": growth_ltm + margin * 100,
        "ruleOf40": growth * 100 + (margin + 0.01) * 100,
        "evEbitdaNtm": last["evEbitdaNtm"],
        "marginEbitdaNtm": (margin + 0.01) * 100,
        "revenueGrowthLtm": growth_ltm,
    }
    # Nulls where the document allows them (all numeric fields are nullable).
    for key in values:
        if key not in ("marketCap", "enterpriseValue") and rng.random() < 0.04:
            values[key] = np.nan
    out: dict = {
        "ticker": org["stock_listing"]["ticker"],
        "exchange": org["stock_listing"]["exchange"],
        "name": org["name"],
        "shortName": org["short_name"],
        "countryCodeIso3": org["country"],
        "country": c.name,
        "currency": c.currency,
        "tags": list(org["verticals"]),
        "themes": list(org["themes"]),
    }
    for key, v in values.items():
        out[key] = _r(v, 4)
    for key in (*GROUP_SUM_ONLY, *GROUP_SUM_AND_MEDIAN):  # the money fields
        out[key + "Lcu"] = None if out[key] is None else _r(out[key] / rate, 4)
    out["rateToUsd"] = rate
    out["region"] = org["region"]
    out["verticals"] = list(org["verticals"])
    out["employeeCount"] = org["employee_count"]
    return out
