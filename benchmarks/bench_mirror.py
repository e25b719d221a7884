"""Mirror figures (issues 6 and 16): incremental vs full sync time, load time against the old
merge-on-read layout, and the memory of a full sync.

- ``mirror_incremental_ratio``: 50,000 deals; a full ``mirror.sync`` of the deals, then 1% of
  them change on the service (``dealframe.sandbox.changes``), then an incremental sync; the
  figure is incremental time ÷ full time, same run, best of the repeats. The sandbox runs in a
  thread of this process (it has to, to be changed in-process), so both syncs share the GIL with
  it alike. Each incremental sync is checked: every deal once, the changed ones at the service's
  version, ``status`` counting them. The incremental sync upserts the changed rows into the
  deals' Delta table (one commit); the notes give the mean of further rounds of 1% changes
  (``later_rounds_ratio``), since each one rewrites the data files that hold changed ids.
- ``mirror_load_speedup``: ``mirror.load(path, "deals")`` of 50,000 deals from the Delta table,
  against the loader of the schema-version-2 layout it replaced (a base Parquet file and delta
  files merged on read by generation, newest version of each id wins), over the same rows in
  that layout: a base and five deltas of 1% changes each. A minimal copy of that loader lives
  in this file, as the baseline only. Both results are checked equal. Figure: old time ÷ new.
- ``mirror_full_peak_rss_mb``: 200,000 deals (a sandbox at scale 1.0 in a thread of this process,
  grown to 200,000 deals by seeded inserts of 1,000 deals per clock second, since generating
  scale 4.0 takes too long); a full sync in a fresh interpreter; the figure is the peak RSS
  growth of the sync (``VmHWM`` after, reset through ``/proc/self/clear_refs`` just before, minus
  ``VmRSS`` before), in MB. The same is measured at a quarter of the size first (50,000 deals),
  and the notes give the growth between the two per 1,000 deals (``growth_mb_per_1000``): near
  0 when the memory is bounded by the page and row group, not the table (the quick run measures
  12,500 and 50,000 deals). The baseline is the same measure for pulling every deal into one
  frame with ``client.private.deals`` and writing it with ``DataFrame.to_parquet``: what a
  mirror that is not written as it goes costs. Linux only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pandas as pd
from _common import ROOT, Context, Figure, benchmark, best_of, speedup, time_ratio

__all__ = ["bench_full_rss", "bench_incremental", "bench_load"]

_DEALS_AT_SCALE_1 = 50_000
_SIZES = {
    "full": dict(inc_deals=50_000, load_deals=50_000, rss_deals=(50_000, 200_000), repeat=2),
    "quick": dict(inc_deals=50_000, load_deals=50_000, rss_deals=(12_500, 50_000), repeat=2),
    "smoke": dict(inc_deals=2_500, load_deals=2_500, rss_deals=(1_250, 2_500), repeat=1),
}


def _check_mirror(mirror, sb, path, total: int, changed: list[str]) -> None:
    """The mirror holds every deal once, the changed ones at the service's version, and status
    counts them."""
    got = mirror.load(path, "deals", include_deleted=True, columns=["id", "updated_at"])
    status = mirror.status(path).set_index("entity").loc["deals"]
    if len(got) != total or got["id"].nunique() != total or status["rows"] != total:
        raise RuntimeError(
            f"mirror holds {len(got)} rows ({got['id'].nunique()} ids, status "
            f"{status['rows']}) of {total} deals after the incremental sync"
        )
    with sb.state.lock:
        wanted = set(changed)
        service = {d["id"]: d["updated_at"] for d in sb.state.dataset.deals if d["id"] in wanted}
    ours = got.set_index("id").loc[changed, "updated_at"]
    if any(ours[i] != pd.Timestamp(service[i]) for i in changed):
        raise RuntimeError("a changed deal is not at the service's version in the mirror")


def _later_rounds(mirror, changes, client, path, total: int, rounds: int = 3) -> list[float]:
    """Further rounds of 1% changes and incremental syncs."""
    times = []
    for _ in range(rounds):
        changes.advance(3600)
        changes.update("deals", total // 100)
        t0 = time.perf_counter()
        mirror.sync(client, path, ["deals"], progress=False)
        times.append(time.perf_counter() - t0)
    return times


@benchmark("mirror_incremental_ratio")
def bench_incremental(ctx: Context) -> dict[str, Figure]:
    """Full sync of the deals, 1% of them change, incremental sync: time ratio."""
    import dealframe.mirror as mirror
    import dealframe.sandbox
    from dealframe.client import Client
    from dealframe.sandbox.changes import Changes

    size = _SIZES[ctx.mode]
    n = size["inc_deals"]
    best_full = best_inc = float("inf")
    with (
        dealframe.sandbox.run(scale=n / _DEALS_AT_SCALE_1, seed=7) as sb,
        Client.for_sandbox(sb, progress=False) as client,
    ):
        changes = Changes(sb.state, seed=1)
        total = len(sb.state.dataset.deals)
        for rep in range(size["repeat"]):
            path = ctx.tmp / f"mirror-incremental-{rep}"
            t0 = time.perf_counter()
            mirror.sync(client, path, ["deals"], progress=False)
            best_full = min(best_full, time.perf_counter() - t0)
            changes.advance(3600)
            changed = changes.update("deals", total // 100)
            t0 = time.perf_counter()
            report = mirror.sync(client, path, ["deals"], progress=False)
            inc = time.perf_counter() - t0
            best_inc = min(best_inc, inc)
            if report["deals"].rows_received < len(changed):
                raise RuntimeError("the incremental sync did not read every changed deal")
            _check_mirror(mirror, sb, path, total, changed)
        later = _later_rounds(mirror, changes, client, path, total)  # not the figure: context
        _check_mirror(mirror, sb, path, total, [])
        versions = int(mirror.status(path).set_index("entity").loc["deals", "version"])
    return {
        "mirror_incremental_ratio": time_ratio(
            best_inc,
            best_full,
            unit="x (incremental sync ÷ full sync)",
            baseline="full mirror.sync of the same deals, same run",
            deals=total,
            changed=total // 100,
            full_s=best_full,
            incremental_s=best_inc,
            later_rounds_s=later,
            later_rounds_ratio=sum(later) / len(later) / best_full,
            table_versions=versions,
        )
    }


# ------------------------------------------------------------- the old loader (baseline only)
# A minimal copy of the schema-version-2 load: Parquet files in generations, the newest
# generation holding an id has its current row, live rows only, then the client's frame.


def _v2_unique(arrays):
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [c for a in arrays for c in (a.chunks if isinstance(a, pa.ChunkedArray) else [a])]
    unique = pc.unique(pa.chunked_array(chunks, pa.string()))
    return unique.combine_chunks() if isinstance(unique, pa.ChunkedArray) else unique


def _v2_load(files_by_generation: list[list], entity: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from dealframe.mirror.schema import arrow_schema, to_frame

    schema = arrow_schema(entity)
    groups = [[pq.read_table(f, schema=schema) for f in g] for g in files_by_generation]
    ids = [None] + [_v2_unique([t.column("id") for t in g]) for g in groups[1:]]
    newer = [None] * len(groups)
    seen = None
    for k in range(len(groups) - 1, -1, -1):
        newer[k] = seen
        if k > 0:
            seen = ids[k] if seen is None else _v2_unique([seen, ids[k]])
    tables = []
    for k, group in enumerate(groups):
        for t in group:
            if newer[k] is not None and len(newer[k]):
                t = t.filter(pc.invert(pc.is_in(t.column("id"), value_set=newer[k])))
            tables.append(t)
    table = pa.concat_tables(tables)
    table = table.filter(pc.invert(table.column("deleted")))
    return to_frame(table, entity)


def _write_v2_layout(folder, base, deltas) -> list[list]:
    """The same rows as the old layout wrote them: zstd, row groups of 16,384."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for generation, table in enumerate([base, *deltas], start=1):
        path = folder / f"part-{generation:010d}-00000000-000.parquet"
        pq.write_table(table, path, compression="zstd", row_group_size=16_384)
        out.append([path])
    return out


@benchmark("mirror_load_speedup")
def bench_load(ctx: Context) -> dict[str, Figure]:
    """Load the live deals: Delta table vs the old base + deltas merged on read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    import dealframe.mirror as mirror
    import dealframe.sandbox
    from dealframe.client import Client
    from dealframe.mirror.schema import to_arrow
    from dealframe.sandbox.changes import Changes

    n = _SIZES[ctx.mode]["load_deals"]
    path = ctx.tmp / "mirror-load"
    with (
        dealframe.sandbox.run(scale=n / _DEALS_AT_SCALE_1, seed=7) as sb,
        Client.for_sandbox(sb, progress=False) as client,
    ):
        mirror.sync(client, path, ["deals"], progress=False)
        base = mirror.load(path, "deals", include_deleted=True)
        changes = Changes(sb.state, seed=3)
        rounds = []
        for _ in range(5):  # five incremental syncs of 1% changes: five deltas in the old layout
            changes.advance(3600)
            rounds.append(changes.update("deals", n // 100) + changes.soft_delete("deals", 5))
            mirror.sync(client, path, ["deals"], progress=False)
    latest = mirror.load(path, "deals", include_deleted=True)
    full = to_arrow(latest, "deals")
    deltas = [
        full.filter(pc.is_in(full.column("id"), value_set=pa.array(ids, pa.string())))
        for ids in rounds
    ]  # each delta: the rows of that round's ids (newest versions)
    v2 = _write_v2_layout(ctx.tmp / "mirror-load-v2" / "deals", to_arrow(base, "deals"), deltas)
    samples = ctx.samples(5, 1)
    new_s, ours = best_of(lambda: mirror.load(path, "deals"), samples, warmup=1)
    old_s, theirs = best_of(lambda: _v2_load(v2, "deals"), samples, warmup=1)
    a = ours.sort_values("id", ignore_index=True)
    b = theirs.sort_values("id", ignore_index=True)
    pd.testing.assert_frame_equal(a, b)  # the same rows, values and dtypes
    return {
        "mirror_load_speedup": speedup(
            new_s,
            old_s,
            unit="x (old merge-on-read load ÷ Delta load)",
            baseline="the schema-version-2 loader (base + 5 deltas merged by generation) over the "
            "same rows",
            deals=len(a),
            delta_files=len(deltas),
        )
    }


_PROBE = r"""
import json, sys
import dealframe.mirror as mirror
from dealframe.client import Client
url, key, path, how = sys.argv[1:5]

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    raise KeyError(field)

with Client(url, private_key=key, cache_enabled=False, progress=False) as client:
    mirror.sync(client, path + "-warm", ["investors"], progress=False)  # imports, connections
    reset = True
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        reset = False
    before = status("VmRSS")
    if how == "sync":
        rows = mirror.sync(client, path, ["deals"], progress=False)["deals"].rows_written
    else:
        frame = client.private.deals(include_deleted=True)
        frame.to_parquet(path)
        rows = len(frame)
    print(json.dumps({"before": before, "peak": status("VmHWM"), "rows": rows, "reset": reset}))
"""


def _probe(url: str, key: str, path: str, how: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, url, key, path, how],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    if out.returncode != 0:
        raise RuntimeError(f"memory probe ({how}) failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


@benchmark("mirror_full_peak_rss_mb")
def bench_full_rss(ctx: Context) -> dict[str, Figure]:
    """Peak RSS growth of a full sync of the deals, vs pulling them into one frame."""
    import dealframe.sandbox
    from dealframe.sandbox.changes import Changes

    small, n = _SIZES[ctx.mode]["rss_deals"]
    scale = min(1.0, small / _DEALS_AT_SCALE_1)
    growth: list[float] = []  # peak RSS growth (MB) of a full sync at each size
    with dealframe.sandbox.run(scale=scale, seed=7) as sb:
        changes = Changes(sb.state, seed=2)
        for size in (small, n):
            with changes.bulk():
                while len(sb.state.dataset.deals) < size:
                    changes.advance(1)
                    changes.insert("deals", min(1000, size - len(sb.state.dataset.deals)))
            ours = _probe(sb.url, sb.private_key, str(ctx.tmp / f"mirror-rss-{size}"), "sync")
            if ours["rows"] != size:
                raise RuntimeError(f"the sync wrote {ours['rows']} deals of {size}")
            growth.append((ours["peak"] - ours["before"]) / 2**20)
        base = _probe(sb.url, sb.private_key, str(ctx.tmp / "deals.parquet"), "frame")
    if ours["rows"] != base["rows"]:
        raise RuntimeError(f"the sync wrote {ours['rows']} deals, the frame holds {base['rows']}")
    mb = growth[-1]
    base_mb = (base["peak"] - base["before"]) / 2**20
    return {
        "mirror_full_peak_rss_mb": Figure(
            mb,
            "MB (peak RSS growth of a full mirror.sync of the deals)",
            "client.private.deals(include_deleted=True) into one frame, then to_parquet",
            mb / base_mb,
            {
                "deals": ours["rows"],
                "small_deals": small,
                "small_peak_rss_mb": growth[0],
                "growth_mb_per_1000": (growth[1] - growth[0]) / ((n - small) / 1000),
                "baseline_mb": base_mb,
                "hwm_reset": bool(ours["reset"] and base["reset"]),
            },
        )
    }
