"""The benchmark harness runs end to end and writes every named figure (values not asserted).

``benchmarks/run.py --smoke`` is ``--quick`` with tiny sizes: the same benchmarks, the same
figure names, the same JSON, in well under a minute. Performance itself is never asserted
here (the machine is shared and noisy); benchmarks/README.md records the figures.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "run.py"

#: Every figure the issues name (issues 2, 3, 4 and 5), exactly as spelled there.
NAMED_FIGURES = {
    "sandbox_deals_page_1000_per_s",
    "sandbox_start_s",
    "current_1000_skus_speedup",
    "timeseries_wide_speedup",
    "cache_hit_speedup_disk",
    "deals_parse_speedup",
    "deals_parse_peak_mem_ratio",
    "explode_speedup",
    "deals_pull_50k_speedup",
    "deals_pull_end_to_end_speedup",
    "bucket_medians_2m_vs_duckdb",
    "bucket_medians_speedup",
    "group_rollup_speedup",
}


def _run(tmp_path: Path, *args: str, timeout: float = 240) -> dict:
    out = tmp_path / "figures.json"
    proc = subprocess.run(
        [sys.executable, str(RUN), *args, "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "figure" in proc.stdout  # the table header was printed
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _run(tmp_path_factory.mktemp("bench"), "--smoke")


def test_every_named_figure_is_written(smoke: dict) -> None:
    missing = NAMED_FIGURES - set(smoke["figures"])
    assert not missing, f"figures missing from the JSON: {sorted(missing)}"


def test_each_figure_has_value_unit_baseline_ratio(smoke: dict) -> None:
    for name, fig in smoke["figures"].items():
        assert {"value", "unit", "baseline", "ratio"} <= set(fig), name
        if fig["value"] is None:  # a broken benchmark reports null and says why
            assert fig["ratio"] is None and fig.get("error"), name
            continue
        assert isinstance(fig["value"], (int, float)) and math.isfinite(fig["value"]), name
        assert isinstance(fig["ratio"], (int, float)) and fig["ratio"] > 0, name
        assert fig["unit"] and fig["baseline"], name
        if name.endswith("_speedup"):  # baseline ÷ ours: the value is the ratio
            assert fig["ratio"] == pytest.approx(fig["value"]), name


def test_machine_is_recorded(smoke: dict) -> None:
    machine = smoke["machine"]
    assert machine["mode"] == "smoke"
    assert machine["cpus"] >= 1
    assert machine["python"].count(".") == 2
    assert machine["versions"]["pandas"]


@pytest.fixture(scope="module")
def harness() -> Any:
    """benchmarks/run.py imported into this process: its ``main`` is what the script runs."""
    sys.path.insert(0, str(RUN.parent))
    try:
        import run
    finally:
        sys.path.remove(str(RUN.parent))
    return run


def test_only_runs_the_selected_figures(
    harness: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script's ``main`` runs in this process (the ``smoke`` fixture runs the script
    itself): a second interpreter would import pandas and dealframe again for one figure."""
    out = tmp_path / "figures.json"
    assert harness.main(["--smoke", "--only", "group_rollup_speedup", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert "figure" in captured.out  # the table header was printed
    assert "] bench_group_rollup ..." in captured.err
    assert "] bench_" not in captured.err.replace("] bench_group_rollup ...", "")
    data = json.loads(out.read_text())
    assert set(data["figures"]) == {"group_rollup_speedup"}
    assert data["figures"]["group_rollup_speedup"]["value"] is not None


def test_a_failing_benchmark_gives_null_figures_not_a_crash(harness: Any) -> None:
    sys.path.insert(0, str(RUN.parent))
    try:
        from _common import Benchmark, Context
    finally:
        sys.path.remove(str(RUN.parent))

    def broken(ctx: Context) -> dict:
        raise ImportError("dealframe.frames.nothing is not written yet")

    ctx = Context("smoke")
    try:
        out = harness._run_one(Benchmark("test", broken, ("a_speedup", "b_s")), ctx)
    finally:
        ctx.close()
    assert set(out) == {"a_speedup", "b_s"}
    for fig in out.values():
        assert fig["value"] is None and fig["ratio"] is None
        assert "not written yet" in fig["error"]


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (["timeseries_wide_speedup", "no_such_figure"], "--only no_such_figure matched nothing"),
        (["explode_speedup", "cache_hit_speedup"], "cache_hit_speedup was retired"),
    ],
)
def test_only_refuses_each_name_that_matches_nothing(
    harness: Any, names: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name matching nothing is refused even beside one that matches: it was skipped
    silently, so a retired figure's name printed the other figure and exited 0.

    The script's ``main`` runs in this process: the refusal comes while the arguments are
    read, so no new interpreter needs to import pandas, dealframe and the benchmarks."""
    with pytest.raises(SystemExit) as exited:
        harness.main(["--smoke", "--only", *names])
    captured = capsys.readouterr()
    assert exited.value.code == 2, captured.err[-2000:]
    assert said in captured.err
    assert "figure" not in captured.out  # nothing ran: no table
    assert "] bench_" not in captured.err  # and no benchmark started


@pytest.mark.parametrize("where", ["under a file", "a folder", "in /proc", "~nosuchuser"])
def test_a_json_path_that_cannot_be_written_is_refused_first(
    harness: Any, tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json`` under a file, naming a folder, in a folder no file can be made in (even by
    root) or under a user who does not exist was found out only once every benchmark had
    run (minutes of a quick run), by a traceback that lost the figures: it is refused while
    the arguments are read, before any benchmark starts."""
    if where == "in /proc" and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    (tmp_path / "afile").write_text("")
    path = {
        "under a file": tmp_path / "afile" / "x.json",
        "a folder": tmp_path,
        "in /proc": Path("/proc/dealframe-figures.json"),
        "~nosuchuser": "~dealframe-no-such-user/x.json",
    }[where]
    with pytest.raises(SystemExit) as exited:
        harness.main(["--smoke", "--only", "group_rollup_speedup", "--json", str(path)])
    captured = capsys.readouterr()
    assert exited.value.code == 2, captured.err[-2000:]
    assert "invalid --json" in captured.err, captured.err[-2000:]
    assert "] bench_" not in captured.err  # no benchmark started
    assert not (tmp_path / "afile").is_dir()


def test_a_json_path_may_be_a_pipe_or_a_new_folder(harness: Any, tmp_path: Path) -> None:
    """What the check must not refuse: a new file in folders made at the end, and an existing
    writable file that is no regular file (``--json /dev/fd/N``, a shell's ``>(...)``)."""
    harness._check_json_target(str(tmp_path / "new" / "deeper" / "x.json"))
    assert not (tmp_path / "new").exists()  # made only when the figures are written
    read, write = os.pipe()
    try:
        harness._check_json_target(f"/dev/fd/{write}")
    finally:
        os.close(read)
        os.close(write)


def test_an_existing_append_only_json_file_is_refused_first(harness: Any, tmp_path: Path) -> None:
    """An existing file that can be appended to but not rewritten (``chattr +a``) passed the
    permission check and failed the final write once every benchmark had run: it is opened
    for writing as the end will open it, before the run."""
    import shutil

    from dealframe.errors import ValidationError

    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("needs root and chattr")
    target = tmp_path / "figures.json"
    target.write_text("{}")
    if subprocess.run(["chattr", "+a", str(target)], capture_output=True).returncode:
        pytest.skip("a file system without chattr flags")
    try:
        with pytest.raises(ValidationError, match="invalid --json"):
            harness._check_json_target(str(target))
    finally:
        subprocess.run(["chattr", "-a", str(target)], check=True)


def test_a_named_pipe_is_not_opened_by_the_check(
    harness: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening and closing a named pipe's write end gives a reader waiting on it the end at
    once: the check did, so ``cat f > out`` ended before the run and the final write waited
    forever for a reader (the figures lost). A pipe is checked for permission only."""
    fifo = tmp_path / "figures"
    os.mkfifo(fifo)
    opened: list[str] = []
    real_open = os.open

    def recorded(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", recorded)
    harness._check_json_target(str(fifo))
    assert str(fifo) not in opened
