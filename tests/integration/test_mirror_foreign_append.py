"""Rows another writer appends while a sync writes the table (review of fix-m2): Delta's
conflict check lets an append through, so the sync's commit lands on top of it; the sync
records the version it read and the rows appended in between are found and rebuilt."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.mirror import store
from dealframe.sandbox.changes import Changes


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=37) as sandbox:
        yield sandbox


@pytest.fixture
def no_hook():
    yield
    store.set_crash_hook(None)


def _sync(client, path, **kwargs):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = mirror.sync(client, path, entities=["deals"], page_size=250, **kwargs)
    return report["deals"], [(w.category, str(w.message)) for w in seen]


def _once(at: str, write: Callable[[], object]) -> Callable[[str], None]:
    def hook(step: str) -> None:
        if step == at:
            store.set_crash_hook(None)
            write()

    return hook


def _append(path: Path, rows: pa.Table) -> Callable[[], None]:
    return lambda: write_deltalake(str(path / "deals"), rows, mode="append")


def _two_rows(path: Path) -> pa.Table:
    return DeltaTable(str(path / "deals")).to_pyarrow_table().slice(0, 2)


@pytest.mark.parametrize("at", ["walked", "before-commit"])
def test_rows_appended_during_a_sync_are_rebuilt(sb, tmp_path, no_hook, at):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=11)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        changes.update("deals", 3)
        store.set_crash_hook(_once(at, _append(path, _two_rows(path))))
        first, seen = _sync(client, path)
        second, _ = _sync(client, path)
        _sync(client, path)
        ids = mirror.load(path, "deals", include_deleted=True)["id"]
        service = sorted(client.private.deals(include_deleted=True)["id"])

    assert not ids.duplicated().any(), ids[ids.duplicated()].tolist()
    assert sorted(ids) == service
    repaired = first.repaired or second.repaired
    assert repaired and "(WRITE" in repaired, (first.repaired, second.repaired)
    assert mirror.MirrorDivergenceWarning not in [c for c, _ in seen], seen


def test_rows_appended_during_a_repair_are_rebuilt(sb, tmp_path, no_hook):
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        rows = _two_rows(path)
        DeltaTable(str(path / "deals")).delete("id IS NOT NULL")  # the next sync: a repair
        store.set_crash_hook(_once("before-commit", _append(path, rows)))
        first, _ = _sync(client, path)
        _sync(client, path)
        ids = mirror.load(path, "deals", include_deleted=True)["id"]
        service = sorted(client.private.deals(include_deleted=True)["id"])

    assert first.full and first.repaired and "(WRITE" in first.repaired, first.repaired
    assert not ids.duplicated().any(), ids[ids.duplicated()].tolist()
    assert sorted(ids) == service


def test_a_repair_beaten_to_its_commit_leaves_no_file_behind(sb, tmp_path, no_hook):
    path = tmp_path / "m"
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        first, second = _two_rows(path).column("id").to_pylist()
        deals = DeltaTable(str(path / "deals"))
        deals.delete(f"id = '{first}'")  # the next sync: a repair
        # a delete while it commits: the repair's overwrite fails Delta's conflict check
        store.set_crash_hook(
            _once(
                "before-commit", lambda: DeltaTable(str(path / "deals")).delete(f"id = '{second}'")
            )
        )
        done, _ = _sync(client, path)
        ids = mirror.load(path, "deals", include_deleted=True)["id"]
        service = sorted(client.private.deals(include_deleted=True)["id"])
        left = _untracked(path / "deals")

    assert done.full and done.repaired and "(DELETE" in done.repaired, done.repaired
    assert sorted(ids) == service
    assert not left, left


def _untracked(folder: Path) -> list[str]:
    """Data files no commit of the log ever added (removed ones stay for time travel)."""
    named: set[str] = set()
    for entry in (folder / "_delta_log").glob("*.json"):
        for line in entry.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                named.add(Path(action["add"]["path"]).name)
    return sorted(p.name for p in folder.glob("*.parquet") if p.name not in named)


def test_rows_appended_during_each_try_are_a_mirror_error_then_rebuilt(sb, tmp_path, no_hook):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=12)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        changes.update("deals", 3)
        rows = _two_rows(path)

        def append(step: str) -> None:  # every try: the sync, then its rebuild
            if step == "walked":
                write_deltalake(str(path / "deals"), rows, mode="append")

        store.set_crash_hook(append)
        with pytest.raises(mirror.MirrorLockedError, match="while this sync wrote it, twice"):
            mirror.sync(client, path, entities=["deals"], page_size=250)
        store.set_crash_hook(None)
        done, _ = _sync(client, path)
        ids = mirror.load(path, "deals", include_deleted=True)["id"]
        service = sorted(client.private.deals(include_deleted=True)["id"])

    assert done.full and done.repaired and "(WRITE" in done.repaired, done.repaired
    assert sorted(ids) == service
