"""Shared machinery of the benchmark harness: registry, sizes, timing, memory, machine info.

A benchmark is a function ``fn(ctx) -> dict[figure_name, Figure]`` registered with
:func:`benchmark`, which names the figures it produces. A module of benchmarks is listed once
in ``run.py``'s ``MODULES``; everything else (the table, the JSON, ``--only``, errors turned
into ``null`` figures) is generic.

Timing is best-of-N wall time with :func:`time.perf_counter`: the machine is shared and noisy,
so the minimum is the least disturbed estimate, and every figure is a ratio against a
baseline measured in the same run, never an absolute time asserted anywhere.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import gc
import importlib.util
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "BENCHMARKS",
    "Benchmark",
    "Context",
    "Figure",
    "SIZES",
    "NETWORK_LATENCY",
    "TARGETS",
    "benchmark",
    "best_of",
    "interleaved",
    "load_synth",
    "machine_info",
    "rss_peak_in_subprocess",
    "sample_notes",
    "speedup",
    "time_ratio",
    "tracemalloc_peak",
]

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(__file__).resolve().parent

#: Sizes per mode. Figure names never change with the mode; each figure records its size.
SIZES: dict[str, dict[str, Any]] = {
    "full": dict(
        scale=1.0,
        repeat=5,
        heavy_repeat=3,
        start_repeat=3,
        cold_repeat=2,
        page_requests=100,
        skus=1_000,
        ts_companies=1_000,
        ts_months=120,
        parse_deals=200_000,
        explode_deals=200_000,
        pull_deals=50_000,
        bucket_deals=2_000_000,
        rollup_companies=5_000,
        e2e_deals=50_000,
    ),
    "quick": dict(
        scale=1.0,
        repeat=3,
        heavy_repeat=2,
        start_repeat=1,
        cold_repeat=1,
        page_requests=40,
        skus=1_000,
        ts_companies=300,
        ts_months=120,
        parse_deals=50_000,
        explode_deals=50_000,
        pull_deals=20_000,
        bucket_deals=500_000,
        rollup_companies=5_000,
        e2e_deals=50_000,
    ),
    "smoke": dict(
        scale=0.1,
        repeat=1,
        heavy_repeat=1,
        start_repeat=1,
        cold_repeat=1,
        page_requests=10,
        skus=100,
        ts_companies=40,
        ts_months=120,
        parse_deals=4_000,
        explode_deals=4_000,
        pull_deals=4_000,
        bucket_deals=50_000,
        rollup_companies=1_000,
        e2e_deals=4_000,
    ),
}

#: Targets from the issues: (comparison, threshold) on the figure's value.
TARGETS: dict[str, tuple[str, float]] = {
    "sandbox_deals_page_1000_per_s": (">=", 100.0),
    "sandbox_start_s": ("<", 3.0),
    "current_1000_skus_speedup": (">=", 1.8),
    "timeseries_wide_speedup": (">=", 4.0),
    "cache_hit_speedup_disk": (">=", 5.0),
    "deals_parse_speedup": (">=", 2.5),
    "deals_parse_peak_mem_ratio": ("<=", 1.0),
    "explode_speedup": (">=", 50.0),
    "deals_pull_50k_speedup": (">=", 1.5),
    "deals_pull_50k_speedup_loopback": (">=", 1.0),
    "deals_pull_end_to_end_speedup": (">=", 3.0),
    "contract_checks_overhead": ("<=", 1.05),
    "bucket_medians_2m_vs_duckdb": ("<=", 1.0),
    "bucket_medians_speedup": (">=", 5.0),
    "group_rollup_speedup": (">=", 3.0),
    "mirror_incremental_ratio": ("<=", 0.1),
    "soak_fault_overhead": ("<=", 2.0),
}


# ---------------------------------------------------------------------------- figures


@dataclasses.dataclass
class Figure:
    """One named figure: ``value`` in ``unit``, compared with ``baseline``.

    ``ratio`` is ours ÷ baseline time (lower is better) unless the figure's name ends in
    ``_speedup`` (baseline ÷ ours, higher is better). ``extra`` holds the raw timings, sizes
    and notes that explain the number.
    """

    value: float | None
    unit: str
    baseline: str
    ratio: float | None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self, name: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": _round(self.value),
            "unit": self.unit,
            "baseline": self.baseline,
            "ratio": _round(self.ratio),
        }
        target = TARGETS.get(name)
        if target is not None:
            op, threshold = target
            out["target"] = f"{op} {threshold:g}"
            out["met"] = None if self.value is None else _compare(self.value, op, threshold)
        out.update({k: _round(v) if isinstance(v, float) else v for k, v in self.extra.items()})
        return out


def _round(x: float | None) -> float | None:
    if x is None:
        return None
    return float(f"{x:.4g}")


def _compare(value: float, op: str, threshold: float) -> bool:
    return {
        "<": value < threshold,
        "<=": value <= threshold,
        ">=": value >= threshold,
        ">": value > threshold,
    }[op]


def speedup(ours_s: float, baseline_s: float, *, unit: str, baseline: str, **extra: Any) -> Figure:
    """A ``*_speedup`` figure: value and ratio are baseline time ÷ our time."""
    s = baseline_s / ours_s
    return Figure(s, unit, baseline, s, {"ours_s": ours_s, "baseline_s": baseline_s, **extra})


def time_ratio(
    ours_s: float, baseline_s: float, *, unit: str, baseline: str, **extra: Any
) -> Figure:
    """A lower-is-better figure: value and ratio are our time ÷ baseline time."""
    r = ours_s / baseline_s
    return Figure(r, unit, baseline, r, {"ours_s": ours_s, "baseline_s": baseline_s, **extra})


# ---------------------------------------------------------------------------- registry


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """A registered benchmark function and the figures it produces."""

    module: str
    func: Callable[[Context], dict[str, Figure]]
    figures: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.func.__name__


#: Every benchmark registered by the imported modules, in registration order.
BENCHMARKS: list[Benchmark] = []


def benchmark(*figures: str) -> Callable[[Callable], Callable]:
    """Register ``fn(ctx) -> {figure: Figure}`` as producing ``figures``.

    Examples
    --------
    >>> @benchmark("example_speedup")          # doctest: +SKIP
    ... def bench_example(ctx): ...
    """

    def register(func: Callable[[Context], dict[str, Figure]]) -> Callable:
        module = func.__module__.rsplit(".", 1)[-1].removeprefix("bench_")
        BENCHMARKS.append(Benchmark(module, func, tuple(figures)))
        return func

    return register


# ---------------------------------------------------------------------------- timing

#: Whether :func:`interleaved` collects the garbage before each sample and ``run.py`` after
#: each benchmark. ``run.py --smoke`` turns it off: a smoke run's figures are not read, and a
#: full collection costs up to 0.1 s on a busy 2-core machine (a smoke run made about a
#: hundred of them).
COLLECT_GARBAGE = True


def best_of(
    fn: Callable[[], Any], repeat: int, *, warmup: int = 0, min_time: float = 0.0
) -> tuple[float, Any]:
    """Best (minimum) wall time of ``fn()`` over ``repeat`` samples, and its last result.

    With ``min_time``, each sample runs ``fn`` enough times to last at least that long
    (calibrated on the first call) and the time per call is reported, as ``timeit`` does
    for fast functions.
    """
    result = None
    for _ in range(warmup):
        result = fn()
    loops = 1
    if min_time > 0:
        t0 = time.perf_counter()
        result = fn()
        once = max(time.perf_counter() - t0, 1e-7)
        loops = max(1, int(min_time / once))
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        for _ in range(loops):
            result = fn()
        best = min(best, (time.perf_counter() - t0) / loops)
    return best, result


def interleaved(
    ours: Callable[[], Any],
    base: Callable[[], Any],
    repeat: int,
    *,
    warmup: int = 0,
    keep: Callable[[Any], Any] | None = None,
    keep_base: Callable[[Any], Any] | None = None,
    samples: dict[str, list[tuple[float, float]]] | None = None,
) -> tuple[float, Any, float, Any]:
    """Best times of ``ours()`` and ``base()`` sampled alternately (ABAB...), so drift in
    the machine's load hits both sides alike.

    Before each sample the garbage is collected (unless :data:`COLLECT_GARBAGE` is off: a
    smoke run) and the other side's result is already gone: only ``keep(result)`` (default:
    the result itself) of the last sample of each side is kept, so one side's live objects
    never slow the other's garbage collector.

    ``samples``, when given, receives every timed sample of each side (``"ours"``,
    ``"base"``: lists of ``(wall, cpu)`` seconds, ``cpu`` being the CPU time of every thread
    of the process): see :func:`sample_notes`.

    Returns ``(t_ours, kept_ours, t_base, kept_base)``.
    """
    keep = keep or (lambda r: r)
    keep_base = keep_base or keep
    kept: dict[str, Any] = {}
    best = {"ours": float("inf"), "base": float("inf")}
    sides = (("ours", ours, keep), ("base", base, keep_base))
    for i in range(warmup + max(1, repeat)):
        for name, fn, reduce in sides:
            if COLLECT_GARBAGE:
                gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            result = fn()
            elapsed = time.perf_counter() - t0
            cpu = time.process_time() - c0
            if i >= warmup:
                best[name] = min(best[name], elapsed)
                if samples is not None:
                    samples.setdefault(name, []).append((elapsed, cpu))
            kept[name] = reduce(result)
            del result
    return best["ours"], kept["ours"], best["base"], kept["base"]


def sample_notes(
    samples: dict[str, list[tuple[float, float]]], *, speedup: bool = False
) -> dict[str, Any]:
    """What the samples of :func:`interleaved` say beside the best times, to tell a figure
    that moved because the machine was busy from one that moved because the code did.

    ``ours_cpu_s`` and ``baseline_cpu_s``: the CPU time (every thread) of each side's best
    sample; above its wall time, that sample ran on more than one CPU. ``paired_median``: the
    median over the rounds of ours ÷ baseline wall time (baseline ÷ ours for a ``speedup``),
    the two samples of a round running within a second, under about the same load.
    ``load_avg_1m``: the machine's load then.
    """
    ours, base = samples.get("ours", []), samples.get("base", [])
    if not ours or not base:
        return {}
    return {
        "ours_cpu_s": min(ours)[1],
        "baseline_cpu_s": min(base)[1],
        "paired_median": statistics.median(
            b[0] / o[0] if speedup else o[0] / b[0] for o, b in zip(ours, base)
        ),
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def tracemalloc_peak(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Peak bytes traced by :mod:`tracemalloc` while ``fn()`` runs (Python and numpy
    allocations only: Arrow's allocator is invisible to it; prefer
    :func:`rss_peak_in_subprocess` when Arrow memory matters)."""
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return float(peak), result


_RSS_PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import importlib
module = importlib.import_module(sys.argv[2])
func = getattr(module, sys.argv[3])
with open(sys.argv[4], "rb") as fh:
    pages = [line.rstrip(b"\n") for line in fh]
module.warm_imports()

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

try:  # reset the high-water mark to the current resident size (Linux >= 4.0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    reset = True
except OSError:
    reset = False
before = status("VmRSS")
result = func(pages)
peak = status("VmHWM")
print(json.dumps({"before": before, "peak": peak, "rows": len(result), "reset": reset}))
"""


def rss_peak_in_subprocess(module: str, func: str, pages_file: Path) -> dict[str, Any]:
    """Run ``module.func(pages)`` in a fresh interpreter; peak RSS growth in bytes.

    The pages (one JSON document per line of ``pages_file``) are loaded and
    ``module.warm_imports()`` is called first; then the high-water mark is reset
    (``/proc/self/clear_refs``) and the figure is ``VmHWM`` after the call minus ``VmRSS``
    just before it: the growth caused by ``func`` alone. (``ru_maxrss`` is useless here: Linux
    carries it over from the forking parent across ``exec``.) Linux only.
    """
    out = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, str(BENCH_DIR), module, func, str(pages_file)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    if out.returncode != 0:
        raise RuntimeError(f"memory probe {module}.{func} failed: {out.stderr.strip()[-500:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "growth": float(data["peak"] - data["before"]),
        "rows": data["rows"],
        "hwm_reset": data["reset"],
    }


# ---------------------------------------------------------------------------- machine


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _mem_total_gb() -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    return None


def _version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
        if out.returncode == 0:
            return out.stdout.strip()
    return None


def machine_info(mode: str, sandbox_mode: str) -> dict[str, Any]:
    """Where and with what the figures were measured."""
    return {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "mode": mode,
        "sandbox": sandbox_mode,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_gb": _mem_total_gb(),
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "git_commit": _git_commit(),
        "versions": {
            n: _version(n)
            for n in (
                "dealframe",
                "pandas",
                "numpy",
                "pyarrow",
                "orjson",
                "msgspec",
                "requests",
                "requests-cache",
                "duckdb",
                "uvicorn",
                "starlette",
            )
        },
    }


# ---------------------------------------------------------------------------- data


def load_synth() -> Any:
    """The synthetic payload generators of ``tests/unit/payloads/synth.py``, loaded by path."""
    path = ROOT / "tests" / "unit" / "payloads" / "synth.py"
    spec = importlib.util.spec_from_file_location("dealframe_bench_synth", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------- sandbox


@dataclasses.dataclass
class SandboxHandle:
    """A running sandbox the benchmarks talk to (a child process or an in-process thread)."""

    url: str
    public_token: str
    private_key: str
    stop: Callable[[], None]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Simulated round trip (seconds) for the figures that concurrency or caching exist to win:
#: a same-region cloud API. On loopback a request costs ~1 ms and there is nothing to hide.
NETWORK_LATENCY = 0.03


def _start_process_sandbox(scale: float, latency: float = 0.0) -> SandboxHandle:
    """``python -m dealframe sandbox serve`` in a child process, polled until it answers."""
    import requests

    from dealframe.sandbox.auth import DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_TOKEN

    port = _free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEALFRAME_PUBLIC_TOKEN", "DEALFRAME_PRIVATE_KEY")
    }
    log = tempfile.TemporaryFile()  # a file, not a pipe: a full pipe would block the server
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dealframe",
            "sandbox",
            "serve",
            "--port",
            str(port),
            "--scale",
            str(scale),
            "--latency-ms",
            str(latency * 1000),
        ],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=env,
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"

    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()

    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"sandbox process exited: {log.read().decode()[-500:]}")
        try:
            requests.get(f"{url}/api/v2/companies", timeout=1)
            break
        except requests.RequestException:
            if time.monotonic() > deadline:
                stop()
                raise RuntimeError("sandbox process did not start within 120 s") from None
            time.sleep(0.05)
    return SandboxHandle(url, DEFAULT_PUBLIC_TOKEN, DEFAULT_PRIVATE_KEY, stop)


def _start_thread_sandbox(scale: float, latency: float = 0.0) -> SandboxHandle:
    import dealframe.sandbox

    sb = dealframe.sandbox.start(scale, latency=latency)
    return SandboxHandle(sb.url, sb.public_token, sb.private_key, sb.stop)


class Context:
    """What every benchmark receives: the mode's sizes, a shared sandbox, shared data."""

    def __init__(self, mode: str, sandbox_mode: str = "process") -> None:
        self.mode = mode
        self.sizes = SIZES[mode]
        self.sandbox_mode = sandbox_mode
        self._sandbox: SandboxHandle | None = None
        self._slow: SandboxHandle | None = None
        self._cache: dict[str, Any] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="dealframe-bench-"))

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["sizes"][name]
        except KeyError:
            raise AttributeError(name) from None

    def sandbox(self, latency: float = 0.0) -> SandboxHandle:
        """The shared sandbox at the mode's scale, started on first use; ``latency`` > 0 gives
        a second one whose every request waits that long (a remote service's round trip)."""
        start = _start_process_sandbox if self.sandbox_mode == "process" else _start_thread_sandbox
        if latency > 0:
            if self._slow is None:
                self._slow = start(self.scale, latency)
            return self._slow
        if self._sandbox is None:
            self._sandbox = start(self.scale)
        return self._sandbox

    def snapshot_written(self, scale: float) -> bool:
        """True when a sandbox at ``scale`` (default seed) already ran, so its start-up
        snapshot exists (the shared sandbox writes it)."""
        return self._sandbox is not None and scale == self.scale

    def client(self, latency: float = 0.0, **settings: Any) -> Any:
        """A :class:`dealframe.client.Client` on the shared sandbox (cache off unless asked)."""
        from dealframe.client import Client

        sb = self.sandbox(latency)
        settings.setdefault("cache_enabled", False)
        settings.setdefault("progress", False)
        return Client(sb.url, sb.public_token, sb.private_key, **settings)

    def shared(self, key: str, make: Callable[[], Any]) -> Any:
        """Data built once and shared by the benchmarks that need it (e.g. deal pages)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def samples(self, at_least: int, repeat: int) -> int:
        """Samples a side of a figure whose best of fewer than ``at_least`` moved run to run:
        ``max(at_least, repeat)``, except in a smoke run, whose figures only have to be
        produced (their values are not read): ``repeat`` there."""
        return repeat if self.mode == "smoke" else max(at_least, repeat)

    def drop(self, key: str) -> None:
        self._cache.pop(key, None)

    def close(self) -> None:
        for handle in (self._sandbox, self._slow):
            if handle is not None:
                handle.stop()
        self._sandbox = self._slow = None
        self._cache.clear()
        import shutil

        shutil.rmtree(self.tmp, ignore_errors=True)


@contextlib.contextmanager
def env_var(name: str, value: str) -> Iterator[None]:
    """Set an environment variable for the ``with`` block."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old
