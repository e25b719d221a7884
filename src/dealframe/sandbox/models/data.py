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
import math
from dataclasses import dataclass, field

import numpy as np

from ..arguments import scale_number, whole
from ..vocab import (
    FUNDAMENTAL_FIELDS,
    GROUP_SUM_AND_MEDIAN,
    GROUP_SUM_ONLY,
    REGIONS,
    TIME_SERIES_FIELDS,
    VALUATION_FIELDS,
)
from .deals import make_deals
from .draws import (
    Timeline,
    at_least_one,
    iso_ts_many,
    seconds_between,
    subsets,
    uuids,
    year_start_seconds,
)
from .geography import COUNTRIES, LEGAL_FORMS
from .names import (
    company_names,
    firm_names,
    person_names,
    share_names,
    slugify,
    ticker_of,
    with_legal_forms,
)
from .records import RecordStore

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
    deal_store : RecordStore
        Deals, serialised as they are drawn (:func:`.deals.make_deals`): the list fields
        except ``target``, plus ``target_index`` (the target's position in ``orgs``: every
        target field is the company's) and the full ``investors``. :attr:`deals` decodes
        them.
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
    deal_store: RecordStore | None = None
    listed: list[dict] = field(default_factory=list)
    months: list[str] = field(default_factory=list)
    series: np.ndarray = field(default_factory=lambda: np.empty((0, 0, 0)))

    @property
    def deals(self) -> list[dict]:
        """The deal records, decoded (a new list of new dicts each call: for inspection)."""
        store = self.deal_store
        return [] if store is None else [store.record(k) for k in range(len(store))]


def iso_ts(moment: dt.datetime) -> str:
    """Format a UTC timestamp the way the service does (``+00:00`` offset)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _r(x: float, digits: int = 3) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), digits)


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
        The sandbox clock; nothing is dated after it, and the years of the data are counted
        back from its year (:class:`~.draws.Timeline`).

    Returns
    -------
    Dataset

    Examples
    --------
    >>> ds = generate(seed=1, scale=0.02)
    >>> len(ds.deal_store), len(ds.listed), ds.deals[0]["deal_date"] <= "2026-06-30"
    (1000, 60, True)
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
    ds.deal_store = make_deals(ds.orgs, rng, n_deals, as_of)
    _make_listed(ds, rng)
    return ds


# --------------------------------------------------------------------------- organisations


def _pick_listed(
    rng: np.random.Generator,
    country_idx: np.ndarray,
    founded: np.ndarray,
    n_listed: int,
    founded_by: int,
) -> np.ndarray:
    """Rows of the listed companies, ascending: one of every region of the vocabulary first
    (so Family A has every region at every scale), then companies founded by ``founded_by``
    (:attr:`.draws.Timeline.listed_founded_by`) at random.

    ``founded`` is changed in place only where a region has no company old enough to list (the
    smallest scales): its first company is then made old enough.
    """
    region = np.array([COUNTRIES[k].region for k in country_idx.tolist()], dtype=object)
    old_enough = founded[: country_idx.size] <= founded_by
    first: list[int] = []
    for name in REGIONS:
        members = np.flatnonzero(region == name)
        if members.size == 0:  # no company of the region at all: nothing to list
            continue
        ready = members[old_enough[members]]
        if ready.size == 0:
            ready = members[:1]
            founded[ready] = np.minimum(founded[ready], founded_by)
        first.append(int(ready[int(rng.integers(0, ready.size))]))
    eligible = np.setdiff1d(np.flatnonzero(founded[: country_idx.size] <= founded_by), first)
    rest = rng.choice(
        eligible, size=min(max(n_listed - len(first), 0), eligible.size), replace=False
    )
    return np.sort(np.concatenate([np.array(first, dtype=np.int64), rest.astype(np.int64)]))


def _make_orgs(
    ds: Dataset,
    rng: np.random.Generator,
    n_companies: int,
    n_firms: int,
    n_corporate_investors: int,
    n_listed: int,
) -> None:
    as_of_s = int(ds.as_of.timestamp())
    years = Timeline.of(ds.as_of)
    n = n_companies + n_firms
    names = company_names(rng, n_companies) + firm_names(rng, n_firms)
    dup = rng.choice(n_companies, size=max(n_companies // 80, 3), replace=False)
    drawn_sources = rng.integers(0, n_companies, dup.size)
    ids = uuids(rng, n)
    weights = np.array([c.weight for c in COUNTRIES])
    country_idx = rng.choice(len(COUNTRIES), size=n, p=weights / weights.sum())
    country_idx[: len(COUNTRIES)] = np.arange(len(COUNTRIES))  # every country at least once
    # A few companies share a name with one other company, of another country, so that resolve
    # returns ambiguous matches for exact names that a country tells apart; neither takes a
    # legal suffix (below), so the names stay equal.
    sources = share_names(
        names, dup.tolist(), drawn_sources.tolist(), country_idx[:n_companies].tolist()
    )
    # Founding years lean recent, counted back from the year before the clock's.
    founded = np.clip(
        years.founded_by + 1 - rng.exponential(11.0, n).astype(int),
        years.oldest,
        years.founded_by,
    )
    ceos = person_names(rng, n)

    # Listed companies: older companies, at least one of every region. Corporate investors:
    # half listed, half private.
    listed = _pick_listed(
        rng, country_idx[:n_companies], founded, n_listed, years.listed_founded_by
    )
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

    # Legal suffixes of the company's country (its public-company forms once listed).
    bare = set(dup.tolist()) | set(sources)
    forms = [
        ()
        if i in bare
        else getattr(LEGAL_FORMS[COUNTRIES[k].iso3], "public" if is_listed[i] else "private")
        for i, k in enumerate(country_idx[:n_companies].tolist())
    ]
    names[:n_companies] = with_legal_forms(rng, names[:n_companies], forms)

    # A record is created once the organisation exists: from its founding year (or the year
    # the database begins) to a month before the clock.
    created_lo = np.maximum(
        int(year_start_seconds(np.array([years.database_from]))[0]), year_start_seconds(founded)
    )
    created = seconds_between(rng, created_lo, np.full(n, as_of_s - 30 * 86_400))
    updated = seconds_between(rng, created, np.full(n, as_of_s))
    created_s, updated_s = iso_ts_many(created), iso_ts_many(updated)
    # IPO dates lean early, so most listed companies have the whole series.
    ipo_lo = np.array(
        [dt.date(max(int(f) + 3, years.listings_from), 1, 1).toordinal() for f in founded]
    )
    ipo_hi = (ds.as_of.date() - dt.timedelta(days=400)).toordinal()
    ipo_day = ipo_lo + ((ipo_hi - ipo_lo) * rng.random(n) ** 2.5).astype(int)
    verticals = subsets(rng, VERTICALS, n, 1, 3)
    no_vertical = (rng.random(n) < 0.03).tolist()
    themes = subsets(rng, THEMES, n, 0, 3)
    client_focus = subsets(rng, CLIENT_FOCUS, n, 1, 2)
    revenue_model = subsets(rng, REVENUE_MODELS, n, 1, 2)
    city_pick = rng.integers(0, 10, n).tolist()
    area_null = (rng.random(n) < 0.4).tolist()
    ceo_null = (rng.random(n) < 0.2).tolist()
    active = (rng.random(n) < 0.92).tolist()
    # About 1% soft-deleted (never a listed company), and at least one company and one investor
    # at every scale, so that ``include_deleted`` always has something to show.
    deleted = (rng.random(n) < 0.01) & ~is_listed
    investor = corporate | ~is_company
    for pool in (is_company & ~investor & ~is_listed, investor & ~is_listed):
        at_least_one(rng, deleted, pool)
    deleted = deleted.tolist()
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
                company_type = ["Startup"] if founded[i] >= years.startups_from else ["Scaleup"]
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
                "deleted": deleted[i],
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
            "id": uuids(rng, 1)[0],
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


def _figures(ev: float, revenue: float, growth: float, margin: float) -> dict[str, float]:
    """The multiples, margins and growth of a company (unrounded), from its enterprise value,
    revenue, growth and EBITDA margin (fractions). One computation for both families, so a
    listed company's Family A current data and Family B fundamentals agree."""
    rev_ntm = revenue * (1 + growth)
    ebitda = revenue * margin
    ebitda_ntm = rev_ntm * (margin + 0.01)
    pos = lambda x: x if x > 0 else np.nan  # noqa: E731 - multiples of negative EBITDA are not meaningful
    return {
        "revenue": revenue,
        "revenue_ntm": rev_ntm,
        "ebitda": ebitda,
        "ebitda_ntm": ebitda_ntm,
        "ev_revenue_ntm": ev / rev_ntm,
        "ev_revenue_ltm": ev / revenue,
        "ev_ebitda_ntm": ev / pos(ebitda_ntm),
        "ev_ebitda_ltm": ev / pos(ebitda),
        "ebitda_margin_ntm": (margin + 0.01) * 100,
        "ebitda_margin_ltm": margin * 100,
        "revenue_growth_ntm_ltm": growth * 100,
        "revenue_growth_ltm": growth * 0.9 * 100,
        "rule_of_40": (growth + margin + 0.01) * 100,
        "rule_of_40_ltm": (growth * 0.9 + margin) * 100,
    }


def _fundamentals(
    rng: np.random.Generator, ev: float, revenue: float, ebitda: float, growth: float, margin: float
) -> dict:
    f = _figures(ev, revenue, growth, margin)
    pe = float(rng.lognormal(np.log(22), 0.6))
    return {
        "revenue_fy": _r(revenue),
        "ebitda_fy": _r(ebitda),
        "ev_revenue_ntm": _r(f["ev_revenue_ntm"], 4),
        "ev_revenue_ltm": _r(f["ev_revenue_ltm"], 4),
        "ev_revenue_fy": _r(f["ev_revenue_ltm"], 4),
        "ev_ebitda_ntm": _r(f["ev_ebitda_ntm"], 4),
        "ev_ebitda_ltm": _r(f["ev_ebitda_ltm"], 4),
        "ev_ebitda_fy": _r(f["ev_ebitda_ltm"], 4),
        "pe_ntm": _r(pe * 0.85, 4) if margin > 0 else None,
        "pe_ltm": _r(pe, 4) if margin > 0 else None,
        "pe_fy": _r(pe, 4) if margin > 0 else None,
        "ebitda_margin_ntm": _r(f["ebitda_margin_ntm"], 4),
        "ebitda_margin_ltm": _r(f["ebitda_margin_ltm"], 4),
        "ebitda_margin_fy": _r(f["ebitda_margin_ltm"], 4),
        "revenue_growth_ntm_ltm": _r(f["revenue_growth_ntm_ltm"], 4),
        "revenue_growth_fy1_fy": _r(f["revenue_growth_ltm"], 4),
        "rule_of_40": _r(f["rule_of_40"], 4),
        "rule_of_40_ltm": _r(f["rule_of_40_ltm"], 4),
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


def _walk_to_zero(rng: np.random.Generator, t: int, scale: float) -> np.ndarray:
    """A random walk of ``t`` steps (``scale`` each, normal) that ends at exactly 0: the last
    month of a series is the company's figure on the clock's date."""
    steps = rng.normal(0, scale, t)
    walk = np.cumsum(steps[::-1])[::-1]
    return walk - walk[-1]


def _fill_series(
    out: np.ndarray,
    fi: dict[str, int],
    fin: dict,
    org: dict,
    months: list[str],
    rng: np.random.Generator,
) -> None:
    """Monthly values back from the clock's month, whose values are the company's Family B
    figures (``fin``, the same :func:`_figures`)."""
    t = len(months)
    steps = rng.normal(0.004, 0.07, t)
    log_path = np.cumsum(steps[::-1])[::-1] - steps[-1]  # 0 at the last month
    mcap = fin["market_cap"] * np.exp(-log_path)
    ev_ratio = np.clip(fin["ev"] / fin["market_cap"] + _walk_to_zero(rng, t, 0.004), 0.4, 3)
    ev = mcap * ev_ratio
    years_back = (t - 1 - np.arange(t)) / 12
    growth = fin["growth"]
    revenue = (
        fin["revenue"] / (1 + max(growth, -0.5)) ** years_back * np.exp(rng.normal(0, 0.02, t))
    )
    margin = fin["margin"] + _walk_to_zero(rng, t, 0.003)
    gross = np.clip(0.55 + margin * 0.8 + rng.normal(0, 0.01, t), 0.05, 0.95)
    g_path = growth + _walk_to_zero(rng, t, 0.003)
    # the clock's month: exactly the Family B figures
    ev[-1], revenue[-1], margin[-1], g_path[-1] = fin["ev"], fin["revenue"], fin["margin"], growth
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
    f = _figures(fin["ev"], fin["revenue"], growth, fin["margin"])
    for name, key in _SHARED_SERIES.items():
        out[fi[name], -1] = f[key]
    # Missing months: nothing before the listing month, gaps for some companies, stray holes;
    # the clock's month is always there (it is the current data).
    ipo_month = org["ipoed"][:7]
    start = int(np.searchsorted(np.array(months), ipo_month))
    out[:, :start] = np.nan
    if rng.random() < 0.06:
        g0 = int(rng.integers(0, t - 3))
        out[:, g0 : g0 + int(rng.integers(1, 4))] = np.nan
    holes = rng.random(out.shape) < 0.004
    holes[:, -1] = False
    out[holes] = np.nan
    np.round(out, 4, out=out)


#: Time-series fields whose clock's-month value is one of :func:`_figures`.
_SHARED_SERIES = {
    "evRevenueLtm": "ev_revenue_ltm",
    "evRevenueNtm": "ev_revenue_ntm",
    "evEbitdaLtm": "ev_ebitda_ltm",
    "evEbitdaNtm": "ev_ebitda_ntm",
    "marginEbitdaLtm": "ebitda_margin_ltm",
    "revenueGrowthNtmLtm": "revenue_growth_ntm_ltm",
}


def _current(org: dict, rows: np.ndarray, fi: dict[str, int], rng: np.random.Generator) -> dict:
    """CompanyCurrentData (without sku): the company's Family B figures on the clock's date
    (the last month of its series), in Family A's names."""
    fin = org["_fin"]
    f = _figures(fin["ev"], fin["revenue"], fin["growth"], fin["margin"])
    c = org["_country"]
    rate = c.rate_to_usd
    values = {
        "marketCap": fin["market_cap"],
        "enterpriseValue": fin["ev"],
        "revenueLtm": f["revenue"],
        "revenueNtm": f["revenue_ntm"],
        "ebitdaLtm": f["ebitda"],
        "ebitdaNtm": f["ebitda_ntm"],
        "evRevenueLtm": f["ev_revenue_ltm"],
        "evRevenueNtm": f["ev_revenue_ntm"],
        "evEbitdaLtm": f["ev_ebitda_ltm"],
        "marginGrossLtm": rows[fi["marginGrossLtm"], -1],
        "marginEbitdaLtm": f["ebitda_margin_ltm"],
        "revenueGrowthNtmLtm": f["revenue_growth_ntm_ltm"],
        "ruleOf40Ltm": f["rule_of_40_ltm"],
        "ruleOf40": f["rule_of_40"],
        "evEbitdaNtm": f["ev_ebitda_ntm"],
        "marginEbitdaNtm": f["ebitda_margin_ntm"],
        "revenueGrowthLtm": f["revenue_growth_ltm"],
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
