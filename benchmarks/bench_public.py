"""Family A figures (issue 3): concurrent current data, the wide time-series frame, the cache."""

from __future__ import annotations

import json

import numpy as np
import orjson
import pandas as pd
from _common import NETWORK_LATENCY, Context, Figure, benchmark, interleaved, load_synth, speedup

__all__ = [
    "bench_cache_hit",
    "bench_current",
    "bench_timeseries_wide",
    "timeseries_baseline",
    "timeseries_ours",
]


def _skus(ctx: Context) -> list[str]:
    def make() -> list[str]:
        with ctx.client() as client:
            return client.public.search().index.tolist()[: ctx.skus]

    return ctx.shared("skus", make)


def _same_frames(a: pd.DataFrame, b: pd.DataFrame, what: str) -> None:
    try:
        pd.testing.assert_frame_equal(a, b)
    except AssertionError as exc:
        raise AssertionError(f"{what}: the two sides returned different frames: {exc}") from exc


def _current_speedup(ctx: Context, skus: list[str], latency: float) -> Figure:
    with ctx.client(latency) as conc, ctx.client(latency, max_workers=1) as seq:
        workers = conc.settings.max_workers
        t_conc, a, t_seq, b = interleaved(
            lambda: conc.public.current(skus),
            lambda: seq.public.current(skus),
            ctx.repeat,
            warmup=1,
        )
    _same_frames(a, b, "current")
    where = f"{latency * 1000:.0f} ms simulated round trip" if latency else "loopback, no latency"
    return speedup(
        t_conc,
        t_seq,
        unit=f"x ({len(skus)} SKUs, {a.attrs.get('requests')} requests, "
        f"max_workers={workers} vs 1, {where})",
        baseline="the same call with max_workers=1 (requests one after another)",
        skus=len(skus),
        max_workers=workers,
        latency_s=latency,
        notes=f"sandbox in a {ctx.sandbox_mode}; cache off; {where}",
    )


@benchmark("current_1000_skus_speedup", "current_1000_skus_speedup_loopback")
def bench_current(ctx: Context) -> dict[str, Figure]:
    """``client.public.current`` of 1,000 SKUs (10 requests of 100): the client's default
    ``max_workers`` against ``max_workers=1`` (one request after another), against a sandbox
    answering after a simulated round trip (NETWORK_LATENCY) and at bare loopback speed."""
    skus = _skus(ctx)
    return {
        "current_1000_skus_speedup": _current_speedup(ctx, skus, NETWORK_LATENCY),
        "current_1000_skus_speedup_loopback": _current_speedup(ctx, skus, 0.0),
    }


@benchmark("cache_hit_speedup_disk", "cache_hit_speedup_disk_loopback")
def bench_cache_hit(ctx: Context) -> dict[str, Figure]:
    """The same ``current`` pull answered by the requests-cache SQLite file vs by the sandbox
    (after a simulated round trip, and at bare loopback speed).

    The hit side is a client opened on an already filled cache file, as a fresh process
    has it: every hit is read from SQLite, checked, parsed and shaped.
    """
    skus = _skus(ctx)
    return {
        "cache_hit_speedup_disk": _cache_speedup(ctx, skus, NETWORK_LATENCY),
        "cache_hit_speedup_disk_loopback": _cache_speedup(ctx, skus, 0.0),
    }


def _cache_speedup(ctx: Context, skus: list[str], latency: float) -> Figure:
    path = ctx.tmp / f"http-cache-{latency}.sqlite"
    where = f"{latency * 1000:.0f} ms simulated round trip" if latency else "loopback, no latency"
    with ctx.client(latency, cache_enabled=True, cache_path=path) as writer:
        writer.public.current(skus, refresh=True)  # fill the cache file
    with ctx.client(latency, cache_enabled=True, cache_path=path) as client:
        t_hit, hit, t_miss, miss = interleaved(
            lambda: client.public.current(skus),
            lambda: client.public.current(skus, cache=False),
            ctx.samples(7, ctx.repeat),  # samples cost ~0.1 s; a CPU-bound side needs more of them
            warmup=1,
        )
        info = client.cache.info()
    if hit.attrs.get("from_cache") is not True or miss.attrs.get("from_cache") is not False:
        raise AssertionError(
            f"cache provenance wrong: hit {hit.attrs.get('from_cache')!r}, "
            f"miss {miss.attrs.get('from_cache')!r}"
        )
    _same_frames(hit, miss, "cache")
    return speedup(
        t_hit,
        t_miss,
        unit=f"x ({len(skus)} SKUs, {hit.attrs.get('requests')} requests, "
        f"cache hit vs sandbox, {where})",
        baseline="the same client.public.current call with cache=False (from the sandbox)",
        skus=len(skus),
        cache_entries=info.get("entries"),
        latency_s=latency,
        notes=f"{where}; hits read from the requests-cache SQLite file by a client that "
        "did not write them",
    )


#: What a windowed ``client.public.time_series`` call asks: the fields, the SKUs, and the
#: window sent (``dateFrom``, ``dateTo``).
Asked = tuple[list[str], list[str], str, str]


def timeseries_ours(body: bytes, asked: Asked) -> pd.DataFrame:
    """JSON body → wide frame, the way the client does it for a windowed request: orjson, then
    ``time_series_wide`` given the fields and SKUs asked, the window sent (months outside it
    left out and said) and the call's findings, as ``client.public.time_series`` calls it."""
    from dealframe.contract import Findings
    from dealframe.frames.public import time_series_wide

    fields, skus, start, end = asked
    found = Findings("POST /api/v2/companies/time-series")
    frame = time_series_wide(
        orjson.loads(body)["data"],
        fields=fields,
        date_from=start,
        date_to=end,
        skus=skus,
        found=found,
    )
    if found.items:
        raise AssertionError(f"timeseries: findings on a clean answer: {found.items}")
    return frame


def _asked(items: list[dict]) -> Asked:
    """The request the synthetic answer answers: its fields and SKUs, and its first and last
    months as the window sent."""
    months = sorted({m for it in items for series in it["data"].values() for m in series})
    fields = list(dict.fromkeys(f for it in items for f in it["data"]))
    return fields, [it["sku"] for it in items], months[0], months[-1]


def timeseries_baseline(body: bytes) -> pd.DataFrame:
    """JSON body → wide frame with the obvious pandas: json.loads, json_normalize, pivot."""
    items = json.loads(body)["data"]
    flat = pd.json_normalize(items, sep="|")  # one row per SKU, a column per data|field|month
    cells = [c for c in flat.columns if c.startswith("data|")]
    long = flat.melt(id_vars="sku", value_vars=cells, value_name="value")
    long = long.dropna(subset=["value"])
    parts = long["variable"].str.split("|", expand=True)
    long["field"], long["month"] = parts[1], parts[2]
    wide = long.pivot(index="month", columns=["field", "sku"], values="value")
    wide.index = pd.PeriodIndex(wide.index, freq="M", name="month")
    return wide


def _same_wide(ours: pd.DataFrame, base: pd.DataFrame) -> None:
    aligned = base.reindex(index=ours.index, columns=ours.columns)
    if not np.array_equal(
        ours.to_numpy(dtype=float), aligned.to_numpy(dtype=float), equal_nan=True
    ):
        raise AssertionError("timeseries: the two sides hold different values")
    if aligned.notna().to_numpy().sum() != base.notna().to_numpy().sum():
        raise AssertionError("timeseries: ours lost cells the baseline has")


@benchmark("timeseries_wide_speedup")
def bench_timeseries_wide(ctx: Context) -> dict[str, Figure]:
    """Time-series JSON (companies × months × 10 fields) → months × (field, sku) frame.

    Parse included on both sides: the baseline parses with ``json.loads`` (what
    ``response.json()`` does), ours with orjson (what the client does). Ours is the client's
    windowed request (fields, SKUs and ``dateFrom``/``dateTo`` asked: the window check
    included); the baseline pivots every month it is given.
    """
    synth = load_synth()
    items = synth.time_series_items(ctx.ts_companies, ctx.ts_months)
    body = orjson.dumps({"data": items})
    asked = _asked(items)
    del items
    t_ours, ours, t_base, base = interleaved(
        lambda: timeseries_ours(body, asked), lambda: timeseries_baseline(body), ctx.heavy_repeat
    )
    _same_wide(ours, base)
    values = int(ours.notna().to_numpy().sum())
    return {
        "timeseries_wide_speedup": speedup(
            t_ours,
            t_base,
            unit=f"x ({ctx.ts_companies} companies × {ctx.ts_months} months × "
            f"10 fields, {values:,} values, parse included)",
            baseline="json.loads + pandas.json_normalize + melt + pivot (+ PeriodIndex)",
            body_mb=len(body) / 1e6,
            values=values,
            notes="parse included on both sides: json.loads for the baseline, orjson for ours; "
            "ours given the fields, SKUs and window asked, as the client's windowed call",
        )
    }
