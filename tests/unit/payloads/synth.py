"""Synthetic payload generators for benchmarks and property tests.

Pure, deterministic (seeded) generators of service-shaped JSON: Family B deal
list pages (as the raw bytes a list endpoint returns) and Family A time-series
items. Nothing here talks to a server or to the sandbox.

Load it by path so it works whatever ``sys.path`` holds::

    import importlib.util, pathlib
    p = pathlib.Path("tests/unit/payloads/synth.py")
    spec = importlib.util.spec_from_file_location("dealframe_synth", p)
    synth = importlib.util.module_from_spec(spec); spec.loader.exec_module(synth)
    pages = synth.deal_pages(200_000)            # list[bytes], 1,000 deals a page
    items = synth.time_series_items(1_000, 120)  # list[dict], 10 fields

Examples
--------
>>> pages = deal_pages(2_500, page_size=1_000, seed=1)
>>> len(pages)
3
>>> items = time_series_items(3, 12)
>>> sorted(items[0])
['data', 'exchange', 'sku', 'ticker']
"""

from __future__ import annotations

import random
from typing import Any

import orjson

__all__ = ["deal_items", "deal_pages", "participant", "time_series_items"]

_REGIONS = ("North America", "Western Europe", "Northern Europe", "East Asia", "Oceania")
_COUNTRIES = ("USA", "GBR", "DEU", "FRA", "SWE", "JPN", "AUS", "CAN")
_FUNDING = {
    "Early": ("Seed", "Pre-seed", "Angel", "Series A"),
    "Venture": ("Series A", "Series B", "Series C", "Series D"),
    "Growth": ("Series E", "Series F", "PE buyout", "Undisclosed stage"),
    "Secondary": ("Secondary - private", "Secondary - public"),
    "Public listing": ("ICO", "Undisclosed stage"),
}
_MA_SUBTYPES = ("Strategic M&A", "PE buyout")
_OFFSETS = ("+00:00", "+01:00", "-05:00", "+05:30", "Z")


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"


def participant(rng: random.Random, pool: list[str]) -> dict[str, Any]:
    """One Participant object drawn from a pool of investor ids."""
    pid = rng.choice(pool)
    n = int(pid[:6], 16) % 997
    return {
        "id": pid,
        "name": f"Investor {n} Capital",
        "short_name": f"Inv{n}",
        "country": None if n % 17 == 0 else _COUNTRIES[n % len(_COUNTRIES)],
        "website": f"https://inv{n}.example.com",
    }


def _timestamp(rng: random.Random, year: int) -> str:
    off = rng.choice(_OFFSETS)
    return (
        f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}{off}"
    )


def _money(rng: random.Random, null_rate: float = 0.2) -> float | None:
    if rng.random() < null_rate:
        return None
    return round(rng.lognormvariate(3.0, 1.5), 3)


def deal_items(
    n: int,
    *,
    seed: int = 0,
    n_investors: int = 3_000,
    with_role: bool = False,
    single: bool = False,
) -> list[dict[str, Any]]:
    """``n`` Deal objects shaped like list rows (or single profiles if ``single``)."""
    rng = random.Random(seed)
    pool = [_uuid(rng) for _ in range(max(1, n_investors))]
    out: list[dict[str, Any]] = []
    for _ in range(n):
        year = rng.randint(2015, 2026)
        is_ma = rng.random() < 0.25
        if is_ma:
            deal_type, subtype = "M&A", rng.choice(_MA_SUBTYPES)
            buyers = [participant(rng, pool) for _ in range(rng.randint(0, 2))]
            leads: list[dict[str, Any]] = []
            investors = list(buyers)
        else:
            deal_type = rng.choice(tuple(_FUNDING))
            subtype = rng.choice(_FUNDING[deal_type])
            buyers = []
            leads = [participant(rng, pool) for _ in range(rng.randint(0, 3))]
            investors = leads + [participant(rng, pool) for _ in range(rng.randint(0, 4))]
        valuation, revenue, ebitda = _money(rng), _money(rng, 0.5), _money(rng, 0.6)
        if ebitda is not None and rng.random() < 0.15:
            ebitda = -ebitda
        tid = _uuid(rng)
        target: dict[str, Any] = {
            "id": tid,
            "name": f"Target {tid[:8]} Inc",
            "short_name": f"T{tid[:6]}",
            "website": f"https://{tid[:8]}.example.org",
            "country": None if rng.random() < 0.03 else rng.choice(_COUNTRIES),
        }
        if single:
            target.update(
                region=rng.choice(_REGIONS),
                city="Springfield",
                founded=rng.randint(1990, 2022) if rng.random() < 0.9 else None,
                verticals=["Fintech"],
                themes=[],
                client_focus=["B2B"],
                revenue_model=["SaaS"],
                company_type=["Startup"],
            )
        deal: dict[str, Any] = {
            "id": _uuid(rng),
            "deal_date": f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "deal_type": deal_type,
            "deal_subtype": subtype,
            "deal_synopsis": f"{target['name']} {deal_type} deal.",
            "deal_valuation": valuation,
            "deal_raised": _money(rng, 0.3),
            "deal_revenue": revenue,
            "deal_ebitda": ebitda,
            "deal_multiples": {
                "ev_revenue": round(valuation / revenue, 4) if valuation and revenue else None,
                "ev_ebitda": round(valuation / ebitda, 4) if valuation and ebitda else None,
            },
            "target": target,
            "buyers": buyers,
            "lead_investors": leads,
            "created_at": _timestamp(rng, year),
            "updated_at": _timestamp(rng, min(year + 1, 2026)),
            "deleted": rng.random() < 0.01,
        }
        if single:
            deal["investors"] = investors
        if with_role:
            deal["role"] = "buyer" if is_ma else "lead_investor"
        out.append(deal)
    return out


def deal_pages(
    n: int, *, page_size: int = 1_000, seed: int = 0, n_investors: int = 3_000
) -> list[bytes]:
    """Raw bytes of ``{data, meta}`` list responses holding ``n`` deals in total."""
    items = deal_items(n, seed=seed, n_investors=n_investors)
    pages: list[bytes] = []
    n_pages = max(1, -(-n // page_size))
    for p in range(n_pages):
        chunk = items[p * page_size : (p + 1) * page_size]
        meta = {
            "page": p + 1,
            "limit": page_size,
            "returned": len(chunk),
            "total": n,
            "has_more": (p + 1) * page_size < n,
        }
        pages.append(orjson.dumps({"data": chunk, "meta": meta}))
    return pages


_TS_FIELDS = (
    "marketCap",
    "enterpriseValue",
    "revenueLtm",
    "evRevenueLtm",
    "evRevenueNtm",
    "evEbitdaLtm",
    "evEbitdaNtm",
    "marginGrossLtm",
    "marginEbitdaLtm",
    "revenueGrowthNtmLtm",
)


def time_series_items(
    n_companies: int,
    n_months: int,
    fields: tuple[str, ...] = _TS_FIELDS,
    *,
    seed: int = 0,
    start: tuple[int, int] = (2016, 7),
    missing_rate: float = 0.02,
) -> list[dict[str, Any]]:
    """Family A time-series items: ``n_companies`` SKUs, ``n_months`` months each.

    Each company starts at a random late-listing month and misses about
    ``missing_rate`` of its months, so months are absent, never null.
    """
    rng = random.Random(seed)
    y0, m0 = start
    months = [f"{y0 + (m0 - 1 + i) // 12}-{(m0 - 1 + i) % 12 + 1:02d}" for i in range(n_months)]
    items = []
    for c in range(n_companies):
        first = 0 if rng.random() < 0.8 else rng.randint(0, max(0, n_months - 1))
        present = [m for m in months[first:] if rng.random() >= missing_rate]
        data = {f: {m: round(rng.uniform(0.1, 50.0), 4) for m in present} for f in fields}
        ticker = f"T{c:04d}"
        items.append(
            {
                "sku": f"{ticker}-USA" if c % 50 else f"{ticker}-USA.1",
                "ticker": ticker,
                "exchange": "NASDAQ",
                "data": data,
            }
        )
    return items
