"""A sync interrupted at any step (in-process, at every step; incremental syncs that upsert in memory,
through a predicate and through a streamed rewrite) or killed with SIGKILL in a subprocess (at random
steps and random moments, in the middle of a Delta write included) leaves every table at its
previous version or at the new one, and the next sync completes the mirror: equal to a fresh full
pull, nothing lost, nothing doubled, counts of unique ids right, no staging left; ``compact``
then deletes the files a dead write left."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from _mirror_frames import assert_frames_equal

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.mirror import store, table
from dealframe.sandbox.changes import Changes

#: Crash tests: syncs killed at random points in child processes.
pytestmark = pytest.mark.slow

SYNC_ARGS = dict(page_size=250, rows_per_file=700)


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs (it is not an Exception)."""


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=23) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb):
    with Client.for_sandbox(sb, progress=False) as c:
        yield c


_EXPECTED: dict[tuple[int, str], pd.DataFrame] = {}


def expected_frame(client: Client, entity: str) -> pd.DataFrame:
    """A fresh full pull, cached per data version (the service does not change inside a test)."""
    key = (_VERSION[0], entity)
    if key not in _EXPECTED:
        frame = getattr(client.private, entity)(include_deleted=True)
        _EXPECTED[key] = frame.sort_values("id", ignore_index=True)
    return _EXPECTED[key]


_VERSION = [0]


def assert_complete(client: Client, path) -> None:
    status = mirror.status(path).set_index("entity")
    for entity in mirror.ENTITIES:
        expected = expected_frame(client, entity)
        got = mirror.load(path, entity, include_deleted=True).sort_values("id", ignore_index=True)
        assert_frames_equal(got, expected[list(got.columns)])
        counts = status.loc[entity, ["rows", "deleted"]].tolist()
        assert counts == [len(expected), int(expected["deleted"].sum())]  # unique ids
        versions = mirror.history(path, entity)
        syncs = versions[versions["operation"].isin(["full", "sync"])]["sync"]
        assert syncs.is_unique  # one commit per table and sync, never two
    assert not (path / store.STAGING).exists()


def referenced(folder) -> set[str]:
    """The data files some version of the table names."""
    from deltalake import DeltaTable

    latest = DeltaTable(str(folder)).version()
    return {
        p.rsplit("/", 1)[-1]
        for v in range(latest + 1)
        for p in DeltaTable(str(folder), version=v).file_uris()
    }


def count_steps(client, path) -> int:
    steps: list[str] = []
    store.set_crash_hook(steps.append)
    try:
        mirror.sync(client, path, **SYNC_ARGS)
    finally:
        store.set_crash_hook(None)
    return len(steps)


def crash_at(k: int):
    seen = {"n": 0}

    def hook(step: str) -> None:
        seen["n"] += 1
        if seen["n"] == k:
            raise Crash(step)

    return hook


@pytest.fixture(scope="module")
def base(sb, client, tmp_path_factory):
    """A mirror synced, changed a little and synced again (two versions), then a round of
    changes on the service (the next sync has work)."""
    root = tmp_path_factory.mktemp("crash")
    mirror.sync(client, root / "base", **SYNC_ARGS)
    ch = Changes(sb.state, seed=4)
    for entity in mirror.ENTITIES:
        ch.update(entity, 3)
    mirror.sync(client, root / "base", **SYNC_ARGS)
    assert (mirror.status(root / "base")["version"] == 1).all()
    ch.random_round(150)
    ch.insert("deals", 200)
    _VERSION[0] += 1
    return root


#: How the incremental sync upserts: (table.IN_MEMORY_MAX_ROWS, table.IN_LIST_MAX).
PATHS = {
    "in memory": (table.IN_MEMORY_MAX_ROWS, table.IN_LIST_MAX),
    "predicate": (0, table.IN_LIST_MAX),
    "streamed": (0, 10),
}


def versions(path) -> dict[str, int]:
    return mirror.status(path).set_index("entity")["version"].to_dict()


def crash_then_resume(client, path, step: int) -> None:
    """A sync that crashes at ``step``, then a sync that must complete the mirror."""
    store.set_crash_hook(crash_at(step))
    try:
        with pytest.raises(Crash):
            mirror.sync(client, path, **SYNC_ARGS)
    finally:
        store.set_crash_hook(None)
    mirror.sync(client, path, **SYNC_ARGS)
    assert_complete(client, path)


def test_first_sync_interrupted_at_every_step(client, tmp_path):
    n = count_steps(client, tmp_path / "probe")
    assert n >= 8
    for k in range(1, n + 1):
        path = tmp_path / f"m{k}"
        crash_then_resume(client, path, k)


@pytest.mark.parametrize("path_kind", list(PATHS))
def test_incremental_sync_interrupted_at_every_step(client, base, tmp_path, monkeypatch, path_kind):
    monkeypatch.setattr(table, "IN_MEMORY_MAX_ROWS", PATHS[path_kind][0])
    monkeypatch.setattr(table, "IN_LIST_MAX", PATHS[path_kind][1])
    probe = tmp_path / "probe"
    shutil.copytree(base / "base", probe)
    n = count_steps(client, probe)
    assert n >= 8
    assert versions(probe) == {e: 2 for e in mirror.ENTITIES}
    for k in range(1, n + 1):
        path = tmp_path / f"m{k}"
        shutil.copytree(base / "base", path)
        store.set_crash_hook(crash_at(k))
        try:
            with pytest.raises(Crash):
                mirror.sync(client, path, **SYNC_ARGS)
        finally:
            store.set_crash_hook(None)
        assert set(versions(path).values()) <= {1, 2}  # the old version or the new one
        mirror.sync(client, path, **SYNC_ARGS)
        assert_complete(client, path)
        assert set(versions(path).values()) == {2}  # a crash before a commit costs no version


_CHILD = textwrap.dedent("""
    import json, os, signal, sys
    from types import SimpleNamespace
    from dealframe.client import Client
    import dealframe.mirror as mirror
    from dealframe.mirror import store
    url, key, path, kill_at = json.loads(sys.stdin.readline())  # imports done: the trial
    seen = [0]
    def hook(step):
        seen[0] += 1
        if seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    if kill_at > 0:
        store.set_crash_hook(hook)
    print("ready", flush=True)
    # the parent's sandbox, as Client.for_sandbox knows it (the mirror's recorded source)
    from dealframe.sandbox.models.data import AS_OF
    config = SimpleNamespace(seed=23, scale=0.02, as_of=AS_OF)
    served = SimpleNamespace(url=url, public_token=key, private_key=key,
                             state=SimpleNamespace(config=config))
    with Client.for_sandbox(served, progress=False) as c:
        mirror.sync(c, path, page_size=250, rows_per_file=700)
""")


def _child() -> subprocess.Popen:
    """A child that imports what it needs, then waits on stdin for its trial (see :func:`_go`):
    the next trial's child starts while this one's mirror is checked."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _go(proc: subprocess.Popen, sb, path, kill_at: int) -> None:
    """Start the child's sync of ``path``; ``kill_at`` > 0: SIGKILL itself at that step."""
    assert proc.stdin is not None
    proc.stdin.write(json.dumps([sb.url, sb.private_key, str(path), kill_at]).encode() + b"\n")
    proc.stdin.close()


def test_kill_9_in_a_subprocess_then_resume(sb, client, base, tmp_path):
    rng = random.Random(2024)
    n = count_steps(client, _copy(base, tmp_path / "probe"))
    killed = 0
    waiting = _child()
    try:
        for trial in range(5):
            path = _copy(base, tmp_path / f"m{trial}")
            proc, waiting = waiting, (_child() if trial < 4 else None)
            if trial < 3:  # at a random durable step: between two files
                _go(proc, sb, path, rng.randint(1, n))
                proc.wait(timeout=60)
            else:  # at a random moment once the child is running
                _go(proc, sb, path, 0)
                assert proc.stdout.readline().strip() == b"ready"
                time.sleep(rng.uniform(0.0, 0.6))
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=60)
            proc.stdout.close()
            proc.stderr.close()
            killed += proc.returncode == -signal.SIGKILL
            mirror.sync(client, path, lock_timeout=5, **SYNC_ARGS)  # the dead child's lock is gone
            assert_complete(client, path)
            mirror.compact(path)  # deletes what a dead write left; keeps every version (7 days)
            for entity in mirror.ENTITIES:
                on_disk = {p.name for p in (path / entity).glob("*.parquet")}
                assert on_disk == referenced(path / entity)
    finally:
        if waiting is not None:  # a failed trial: the spare child is not left behind
            waiting.kill()
            waiting.communicate()
    assert killed >= 3


def _copy(base, path):
    shutil.copytree(base / "base", path)
    return path
