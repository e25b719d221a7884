"""Soak figures (issue 8): a whole deals pull through 10% random faults vs the same pull without.

- ``soak_rows_per_s_with_faults``: rows per second of ``client.private.deals()`` (every deal of
  the sandbox: 100,000 at scale 2.0 in a full run) while 10% of requests fail at random across
  429 with ``Retry-After`` 0.05 s, 500/502/503, truncated and cut bodies, dropped connections and
  responses 0.2 s slower than the client's 0.5 s read timeout. Its ratio is the time with faults
  ÷ the time of the same pull without faults.
- ``soak_fault_overhead``: that time ratio alone (target <= 2.0).

The sandbox runs in a thread of this process (its fault plan is switched on and off between
samples), with the client's retries at 8 and backoff capped at 0.1 s, the settings of
tests/integration/test_soak.py. The two pulls are sampled alternately; each faulty pull must
return exactly the rows of the clean one (same ids, same order) or the benchmark fails.
"""

from __future__ import annotations

import time
from typing import Any

from _common import Context, Figure, benchmark, interleaved

__all__ = ["SOAK_SETTINGS", "bench_soak"]


_SCALES = {"full": 2.0, "quick": 1.0, "smoke": 0.1}
_RATE = 0.10
_KINDS = ("429", "500", "502", "503", "truncate", "cut", "drop", "slow")
#: Client settings of the soak (as in tests/integration/test_soak.py).
SOAK_SETTINGS: dict[str, Any] = {
    "retries": 8,
    "backoff_base": 0.01,
    "backoff_cap": 0.1,
    "retry_after_max": 0.2,
    "read_timeout": 0.5,
    "connect_timeout": 2.0,
    "max_workers": 4,
    "progress": False,
    "cache_enabled": False,
}


@benchmark("soak_rows_per_s_with_faults", "soak_fault_overhead")
def bench_soak(ctx: Context) -> dict[str, Figure]:
    """Every deal pulled with 10% random faults and without; rows/s and the time ratio."""
    import dealframe.sandbox
    from dealframe.client import Client
    from dealframe.sandbox.faults import FaultPlan

    scale = _SCALES[ctx.mode]
    plan = FaultPlan(rate=0.0, kinds=_KINDS, seed=2030, retry_after=0.05, slow_seconds=0.7)
    repeat = 1 if ctx.mode != "full" else 2
    with (
        dealframe.sandbox.run(scale=scale, seed=7, faults=plan) as sb,
        Client.for_sandbox(sb, **SOAK_SETTINGS) as client,
    ):
        client.private.schema("transactions")
        reference = client.private.deals()["id"].tolist()  # warms the sandbox's caches too
        faults: dict[str, int] = {}
        retries: list[int] = []

        def clean() -> list[str]:
            plan.reset()
            plan.rate = 0.0
            return client.private.deals()["id"].tolist()

        def faulty() -> list[str]:
            plan.reset()
            plan.rate = _RATE
            before = client.stats.snapshot()["retries"]
            try:
                ids = client.private.deals(strict=True)["id"].tolist()
            finally:
                plan.rate = 0.0
            retries.append(client.stats.snapshot()["retries"] - before)
            for kind, n in plan.counts().items():
                faults[kind] = faults.get(kind, 0) + n
            if ids != reference:
                raise AssertionError("soak: the pull through faults differs from the clean pull")
            return ids

        started = time.perf_counter()
        t_faults, _, t_clean, kept = interleaved(faulty, clean, repeat, keep=len)
        if kept != len(reference):
            raise AssertionError("soak: the clean pull changed between samples")
        wall = time.perf_counter() - started
    rows = len(reference)
    ratio = t_faults / t_clean
    extra = {
        "rows": rows,
        "scale": scale,
        "fault_rate": _RATE,
        "faults_injected": faults,
        "retries_per_pull": retries,
        "faulty_s": t_faults,
        "clean_s": t_clean,
        "samples": repeat,
        "wall_s": wall,
    }
    return {
        "soak_rows_per_s_with_faults": Figure(
            rows / t_faults, "rows/s", "the same pull without faults", ratio, extra
        ),
        "soak_fault_overhead": Figure(
            ratio,
            "x",
            "the same pull without faults",
            ratio,
            {"ours_s": t_faults, "baseline_s": t_clean, "rows": rows},
        ),
    }
