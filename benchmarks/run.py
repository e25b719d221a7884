"""Run dealframe's benchmarks in one process: a table on stdout and, optionally, JSON.

Usage::

    python benchmarks/run.py [--quick | --smoke] [--json PATH] [--only NAME ...]
                             [--sandbox {process,thread}]

Every figure is measured against a baseline in the same run (see benchmarks/README.md).
``--only`` takes figure names (``explode_speedup``), benchmark function names
(``bench_explode``) or module names (``private``). A benchmark that fails reports its
figures as ``null`` with an ``error`` note; the run goes on.

Adding a module of figures is one line in :data:`MODULES`.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common
from _common import BENCHMARKS, Benchmark, Context, Figure, machine_info

from dealframe.arguments import expanded_path
from dealframe.clitools import check_folder
from dealframe.errors import ValidationError

#: Benchmark modules (``benchmarks/bench_<name>.py``), run in this order.
MODULES: tuple[str, ...] = (
    "bench_sandbox",
    "bench_public",
    "bench_private",
    "bench_contract",
    "bench_analytics",
    "bench_mirror",
    "bench_soak",
)


#: Figures no longer measured, and what replaced them.
RETIRED = {
    "cache_hit_speedup": "issue 13 made the disk cache the target: cache_hit_speedup_disk",
}


def _selected(bench: Benchmark, only: list[str] | None) -> bool:
    if not only:
        return True
    keys = {bench.name, bench.module, f"bench_{bench.module}", *bench.figures}
    return any(o in keys for o in only)


def _run_one(bench: Benchmark, ctx: Context) -> dict[str, dict[str, Any]]:
    t0 = time.perf_counter()
    try:
        produced = bench.func(ctx)
        error = None
    except Exception as exc:  # a broken or missing function must not stop the run
        produced = {}
        error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc(file=sys.stderr)
    elapsed = time.perf_counter() - t0
    out: dict[str, dict[str, Any]] = {}
    for name in bench.figures:
        fig = produced.get(name)
        if fig is None:
            fig = Figure(None, "", "", None, {"error": error or "the benchmark did not produce it"})
        record = fig.to_json(name)
        record["benchmark_s"] = round(elapsed, 2)
        out[name] = record
    if _common.COLLECT_GARBAGE:
        gc.collect()
    return out


def _fmt(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, float):
        return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"
    return str(x)


def print_table(figures: dict[str, dict[str, Any]], file: Any = None) -> None:
    """The figures as a fixed-width table (name, value, unit, ratio, target, met), to
    ``file`` (default: ``sys.stdout`` when called, so a redirection of it is followed)."""
    file = sys.stdout if file is None else file
    rows = [("figure", "value", "ratio", "target", "met", "unit / error")]
    for name, f in figures.items():
        met = f.get("met")
        rows.append(
            (
                name,
                _fmt(f["value"]),
                _fmt(f["ratio"]),
                f.get("target", ""),
                "" if met is None else ("yes" if met else "NO"),
                f.get("error") or f["unit"],
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5][:90], file=file)


def _check_json_target(given: str) -> None:
    """Refuse a ``--json`` path the figures could not be written to, before the run: an
    existing file (or pipe, ``/dev/fd/N``) must open for writing; a new file's nearest existing
    folder must be one a file can be made in (its missing folders are made at the end).

    Raises
    ------
    dealframe.errors.ValidationError
        Naming ``--json`` and why.
    """
    target = expanded_path(given, "--json")
    expected = "a file path that can be written"
    if target.is_dir():
        raise ValidationError("--json", f"{expected} ({target} is a folder)", got=given)
    if target.exists() and not target.is_file():  # a pipe, /dev/fd/N: not opened now (a
        # reader of a named pipe would take the open and close for its end)
        if not os.access(target, os.W_OK):
            raise ValidationError("--json", f"{expected} ({target} cannot be written)", got=given)
        return
    if target.exists():  # opened for writing as the end will (an append-only file refuses)
        try:
            os.close(os.open(target, os.O_WRONLY))
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise ValidationError("--json", f"{expected} ({why})", got=given) from None
        return
    if not target.parent.exists():  # made at the end: proven makeable now
        check_folder(target.parent, "--json")
        return
    try:  # the file itself, made now (as root, /proc says yes to the bits and no to this)
        with open(target, "x"):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ValidationError("--json", f"{expected} ({why})", got=given) from None
    with contextlib.suppress(OSError):  # an append-only folder keeps it: written at the end
        target.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smaller sizes, under 2 minutes")
    size.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes, only to check that every figure is produced (tests)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the figures and machine as JSON")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="figures, benchmarks or modules")
    parser.add_argument(
        "--sandbox",
        choices=("process", "thread"),
        default="process",
        help="serve the shared sandbox from a child process (default) or a thread of this process",
    )
    args = parser.parse_args(argv)
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"

    for name in MODULES:
        importlib.import_module(name)
    chosen = [b for b in BENCHMARKS if _selected(b, args.only)]
    unknown = [o for o in args.only or () if not any(_selected(b, [o]) for b in BENCHMARKS)]
    if unknown:  # each name that matches nothing, even beside one that does
        known = sorted({f for b in BENCHMARKS for f in b.figures})
        retired = {o: RETIRED[o] for o in unknown if o in RETIRED}
        said = "; ".join(f"{o} was retired: {why}" for o, why in retired.items())
        parser.error(
            f"--only {' '.join(unknown)} matched nothing"
            + (f" ({said})" if said else "")
            + f"; figures are: {', '.join(known)}"
        )

    if args.json:  # a path the figures cannot be written to is said before anything runs
        try:
            _check_json_target(args.json)
        except ValidationError as exc:
            parser.error(str(exc))

    ctx = Context(mode, args.sandbox)
    machine = machine_info(mode, args.sandbox)
    figures: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    try:
        _common.COLLECT_GARBAGE = mode != "smoke"  # restored below, whatever happens
        for bench in chosen:
            print(
                f"[{time.perf_counter() - t0:6.1f}s] {bench.name} ...", file=sys.stderr, flush=True
            )
            figures.update(_run_one(bench, ctx))
    finally:
        ctx.close()
        _common.COLLECT_GARBAGE = True
    machine["total_s"] = round(time.perf_counter() - t0, 1)
    print_table(figures)
    print(f"\n{mode} run, {machine['total_s']} s, {machine['cpus']} CPUs ({machine['cpu']})")
    if args.json:
        path = expanded_path(args.json, "--json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"figures": figures, "machine": machine}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
