"""Sandbox figures (issue 2): how fast it serves a 1,000-deal page and how fast it starts."""

from __future__ import annotations

import gc
import json
import time

import orjson
from _common import Context, Figure, benchmark, best_of, env_var

__all__ = ["bench_deals_page", "bench_start"]

PAGE_LIMIT = 1_000
TARGET_PAGES_PER_S = 100.0
TARGET_START_S = 3.0


@benchmark("sandbox_deals_page_1000_per_s")
def bench_deals_page(ctx: Context) -> dict[str, Figure]:
    """Pages of 1,000 deals requested one after another with ``requests`` over loopback.

    The rows' bytes are serialised lazily by the sandbox and then kept, so a first pass over
    every page warms it (its rate is reported as ``first_pass_per_s``); the figure is the best
    steady-state rate over ``page_requests`` requests cycling through every page.
    """
    import requests

    sb = ctx.sandbox()
    url = f"{sb.url}/api/private/v1/transactions"
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {sb.private_key}"

    def get(page: int) -> bytes:
        r = session.post(url, json={"limit": PAGE_LIMIT, "page": page})
        r.raise_for_status()
        return r.content

    first = get(1)
    meta = orjson.loads(first)["meta"]
    n_pages = max(1, -(-meta["total"] // PAGE_LIMIT))
    t0 = time.perf_counter()
    for p in range(2, n_pages + 1):
        get(p)
    first_pass = (n_pages - 1) / (time.perf_counter() - t0) if n_pages > 1 else None
    pages = [1 + i % n_pages for i in range(ctx.page_requests)]

    def cycle() -> int:
        return sum(len(get(p)) for p in pages)

    best, total_bytes = best_of(cycle, 3)
    rate = len(pages) / best
    items = orjson.loads(first)["data"]
    dumps_s, _ = best_of(lambda: json.dumps({"data": items, "meta": meta}).encode(), 3)
    session.close()
    return {
        "sandbox_deals_page_1000_per_s": Figure(
            rate,
            "pages/s (1,000 deals each, POST over loopback, body received, not parsed)",
            f"target {TARGET_PAGES_PER_S:g} pages/s; ratio = target ÷ value = our time per page ÷ "
            "10 ms",
            TARGET_PAGES_PER_S / rate,
            {
                "page_bytes": total_bytes // len(pages),
                "pages_cycled": n_pages,
                "requests": len(pages),
                "first_pass_per_s": first_pass,
                "json_dumps_page_ms": dumps_s * 1e3,
                "notes": f"sandbox in a {ctx.sandbox_mode} at scale {ctx.scale}; "
                "json_dumps_page_ms = stdlib json.dumps of the same page alone, what "
                "serialising per request would cost before any HTTP",
            },
        )
    }


def _collect_ms() -> float:
    """One full garbage collection of this process, in ms (best of five)."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        gc.collect()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def _collector_load(scale: float) -> dict[str, float]:
    """What a running in-process sandbox costs the host's garbage collector.

    Every full collection of a user's notebook walks what the sandbox keeps alive: the
    objects it adds to the collector's tracking, and a full collection's time without and
    with it running.
    """
    import dealframe.sandbox

    without = _collect_ms()
    before = len(gc.get_objects())
    with dealframe.sandbox.run(scale=scale):
        gc.collect()
        tracked = len(gc.get_objects()) - before
        with_sandbox = _collect_ms()
    return {
        "gc_tracked_objects": tracked,
        "gc_full_collection_ms": with_sandbox,
        "gc_full_collection_ms_without": without,
    }


@benchmark("sandbox_start_s", "sandbox_start_cold_s")
def bench_start(ctx: Context) -> dict[str, Figure]:
    """``dealframe.sandbox.run(scale)`` in this process: seconds until it serves.

    Warm: the start-up snapshot is present (the shared sandbox, or the first sample, wrote
    it). Cold: ``DEALFRAME_SANDBOX_CACHE=0`` regenerates the data. Imports are done first
    and not counted. The notes give the objects the running sandbox adds to the garbage
    collector's tracking and what one full collection then costs.
    """
    import requests

    import dealframe.sandbox

    def start_once() -> float:
        t0 = time.perf_counter()
        with dealframe.sandbox.run(scale=ctx.scale) as sb:
            elapsed = time.perf_counter() - t0
            requests.get(f"{sb.url}/api/v2/companies", timeout=5)  # it really serves
        return elapsed

    import uvicorn  # noqa: F401  (imports are not part of the start time)

    from dealframe.sandbox import app  # noqa: F401

    if not ctx.snapshot_written(ctx.scale):
        start_once()  # writes the start-up snapshot; not counted
    warm = min(start_once() for _ in range(ctx.start_repeat))
    with env_var("DEALFRAME_SANDBOX_CACHE", "0"):
        cold = min(start_once() for _ in range(ctx.cold_repeat))
    collector = _collector_load(ctx.scale)
    baseline = f"target {TARGET_START_S:g} s; ratio = value ÷ target"
    note = f"scale {ctx.scale}; in-process run(), entry of the with-block until serving"
    return {
        "sandbox_start_s": Figure(
            warm,
            "s (warm: start-up snapshot present)",
            baseline,
            warm / TARGET_START_S,
            {"samples": ctx.start_repeat, "cold_s": cold, **collector, "notes": note},
        ),
        "sandbox_start_cold_s": Figure(
            cold,
            "s (cold: DEALFRAME_SANDBOX_CACHE=0)",
            baseline,
            cold / TARGET_START_S,
            {"samples": ctx.cold_repeat, "notes": note},
        ),
    }
