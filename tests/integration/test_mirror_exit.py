"""Reading a mirror leaves the process able to exit: ``dealframe mirror status`` printed its
table and then aborted about one run in four ("terminate called without an active exception",
exit 134). deltalake's pyarrow dataset reads through a Python filesystem, and Arrow's threads
released its Python buffers after the read returned; one doing so while the interpreter shut
down aborted the process (apache/arrow#34314). The mirror's reads now give Arrow its own local
filesystem."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pyarrow.fs as pafs
import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client

#: Runs of ``mirror.status`` in a fresh process (2 at a time, about 5 s): the old reads aborted
#: 0-50% of them; the test below finds the cause every time, so these runs are the end-to-end
#: check of the exit, not the only guard.
RUNS = 8


@pytest.fixture(scope="module")
def client():
    with (
        dealframe.sandbox.run(scale=0.05, seed=3) as sb,
        Client.for_sandbox(sb, progress=False, cache_enabled=False) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def path(client, tmp_path_factory):
    folder = tmp_path_factory.mktemp("exit") / "m"
    mirror.sync(client, folder)
    mirror.snapshot_public(client, folder, regions=["Western Europe"], date="2026-06-30")
    return folder


def _status(folder) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys, dealframe.mirror as m; m.status(sys.argv[1])", folder],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_status_in_a_fresh_process_exits_0_every_time(path):
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(_status, [str(path)] * RUNS))
    failed = [(p.returncode, p.stderr.strip()[-300:]) for p in done if p.returncode != 0]
    assert failed == [], f"{len(failed)} of {RUNS} runs failed"


def test_no_read_hands_arrow_a_python_filesystem(client, path, monkeypatch):
    """The cause, every time rather than one exit in four: no read of the mirror (status, load,
    load_public, history, a sync's checks, compact) goes through a Python filesystem."""
    made: list[object] = []
    python_filesystem = pafs.PyFileSystem

    def spy(handler):
        made.append(handler)
        return python_filesystem(handler)

    monkeypatch.setattr(pafs, "PyFileSystem", spy)
    assert mirror.status(path)["rows"].gt(0).all()
    for entity in mirror.ENTITIES:
        assert len(mirror.load(path, entity, include_deleted=True)) > 0
        assert list(mirror.load(path, entity, columns=["id"], as_of=0).columns) == ["id"]
    assert len(mirror.load_public(path, "current", on="2026-06-30")) > 0
    assert len(mirror.load_public(path, "time_series")) > 0
    assert len(mirror.history(path)) >= 5
    report = mirror.sync(client, path, repair=True)  # reads every row of every table first
    assert not any(r.repaired for r in report.entities.values())
    assert set(mirror.compact(path, keep_versions=1)) == set(mirror.ENTITIES)
    assert len(mirror.load(path, "deals")) > 0
    assert not made, f"{len(made)} reads went through a Python filesystem"
