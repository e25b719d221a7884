"""Another writer's commits the mirror's own checks once missed (issue 16, review of fix-m): a
``DELETE`` followed by ``mirror compact`` (whose commits carry the mirror's metadata), a
commit made while a sync writes the table, and more no-row commits than the log was once read
back for."""

from __future__ import annotations

import warnings

import pytest
from deltalake import DeltaTable

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.mirror import store
from dealframe.sandbox.changes import Changes


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=31) as sandbox:
        yield sandbox


@pytest.fixture
def no_hook():
    yield
    store.set_crash_hook(None)


def _sync(client, path):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = mirror.sync(client, path, entities=["deals"], page_size=250)
    return report["deals"], [(w.category, str(w.message)) for w in seen]


def _ids(client, path):
    held = sorted(mirror.load(path, "deals", include_deleted=True)["id"])
    return held, sorted(client.private.deals(include_deleted=True)["id"])


def test_a_foreign_delete_before_a_compaction_is_rebuilt(sb, tmp_path):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=5)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        changes.soft_delete("deals", 5)
        _sync(client, path)
        deals = DeltaTable(str(path / "deals"))
        last = deals.version()
        assert deals.delete("deleted = true")["num_deleted_rows"] >= 5
        mirror.compact(path, ["deals"], keep_versions=1)  # commits with the mirror's metadata
        changes.update("deals", 3)
        done, seen = _sync(client, path)
        held, service = _ids(client, path)

    assert done.full and done.repaired and f"version {last + 1} (DELETE" in done.repaired
    assert [c for c, _ in seen] == [mirror.MirrorRepairWarning], seen
    assert held == service


def test_a_foreign_commit_during_a_sync_is_synced_again(sb, tmp_path, no_hook):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=6)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        changes.update("deals", 3)

        def purge_once(step: str) -> None:
            if step == "walked":  # the feed is read; the sync's commit comes next
                store.set_crash_hook(None)
                DeltaTable(str(path / "deals")).delete("id IS NOT NULL")

        store.set_crash_hook(purge_once)
        done, seen = _sync(client, path)
        held, service = _ids(client, path)

    assert done.full and done.repaired and "(DELETE" in done.repaired
    assert [c for c, _ in seen] == [mirror.MirrorRepairWarning], seen
    assert held == service


def test_a_foreign_commit_during_each_try_is_a_mirror_error(sb, tmp_path, no_hook):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=7)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        changes.update("deals", 3)

        def note(step: str) -> None:  # a commit that changes no row: each try is incremental
            if step == "walked":
                DeltaTable(str(path / "deals")).alter.set_table_properties(
                    {"team.note": step}, raise_if_not_exists=False
                )

        store.set_crash_hook(note)
        with pytest.raises(mirror.MirrorLockedError, match="another writer committed"):
            mirror.sync(client, path, entities=["deals"], page_size=250)


def test_many_property_changes_leave_the_next_sync_incremental(sb, tmp_path):
    path = tmp_path / "m"
    changes = Changes(sb.state, seed=8)
    with Client.for_sandbox(sb, progress=False) as client:
        mirror.sync(client, path, entities=["deals"], page_size=250)
        deals = DeltaTable(str(path / "deals"))
        for n in range(60):  # more than the 50 commits the log was once read back for
            deals.alter.set_table_properties({"team.note": str(n)}, raise_if_not_exists=False)
        changes.update("deals", 3)
        done, seen = _sync(client, path)
        held, service = _ids(client, path)

    assert not done.full and done.repaired is None, done.repaired
    assert not seen, seen
    assert held == service
